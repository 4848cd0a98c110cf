// Small formatting helpers shared by the iolat report writers.
#ifndef TK_ANALYSES_IOLAT_REPORT_UTIL_H_
#define TK_ANALYSES_IOLAT_REPORT_UTIL_H_

#include <cstdint>
#include <string>

#include "analyses/iolat/iolat.h"
#include "analyses/iolat/writesync.h"

namespace tk::iolat {

// "0 B", "512 B", "4.0 KiB", "64.0 MiB", "1.5 GiB".
std::string HumanBytes(uint64_t b);
// "100%", "37%", "-" when the whole is 0.
std::string Percent(uint64_t part, uint64_t whole);
// Bytes per second over the device's active span (first to last accounted I/O), in MB/s.
double ThroughputMBs(const DeviceSummary& d);
// The name of a histogram's section, as bcc biolatency prints it ("disk", "flags",
// "process"); null for the single histogram.
const char* HistSection(HistOptions::By by);

}  // namespace tk::iolat

#endif  // TK_ANALYSES_IOLAT_REPORT_UTIL_H_
