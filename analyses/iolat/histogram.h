// Latency histograms for tk iolat: the shared ones (analyses/common/histogram.h), under the
// names iolat's code uses. Log2Histogram: bcc biolatency's table; LatencyStats: exact
// count/min/max/avg and percentiles (exact up to 65536 values, then within 0.39%).
#ifndef TK_ANALYSES_IOLAT_HISTOGRAM_H_
#define TK_ANALYSES_IOLAT_HISTOGRAM_H_

#include "analyses/common/histogram.h"

namespace tk::iolat {

using Log2Histogram = common::Log2Histogram;
using LatencyStats = common::Distribution;

}  // namespace tk::iolat

#endif  // TK_ANALYSES_IOLAT_HISTOGRAM_H_
