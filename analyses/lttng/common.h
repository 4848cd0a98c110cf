// What the LTTng-analyses-style reports (tk irq, syscalls, cputop, memtop) share.
//
// - RunningStats: count, total, min, max and Welford's running mean / M2, so no sample is kept:
//   memory grows with the number of keys, not of events. Stdev() is the sample standard
//   deviation (n−1, as LTTng); RelStderr() is perf's "stddev%" (100 · (s/√n) / mean).
// - Log2Hist: bcc's log2 buckets (bpf_log2l: bucket i holds [2^(i-1), 2^i − 1], 0 with 1).
// - LinearFreq: LTTng's linear frequency table over [min, max] with `resolution` buckets.
#ifndef TK_ANALYSES_LTTNG_COMMON_H_
#define TK_ANALYSES_LTTNG_COMMON_H_

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "analyses/common/histogram.h"
#include "core/event.h"
#include "nlohmann/json.hpp"

namespace tk::lttng {

using Json = nlohmann::ordered_json;

// The first and last timestamps a report saw: "Timerange: [987.251026, 987.610734]".
struct SeenRange {
  int64_t first = -1, last = -1;
  void Add(int64_t ts) {
    if (ts < 0) return;
    if (first < 0) first = ts;
    if (ts > last) last = ts;
  }
  std::string Text() const;  // the "Timerange: [...]\n" line
  Json ToJson() const;       // {"begin_ns", "end_ns"}
};

// The process and latest comm of a thread, learned from its events.
struct TaskName {
  int32_t pid = -1;
  std::string comm;
  void Learn(const Event& e) {
    if (e.pid >= 0) pid = e.pid;
    if (!e.comm.empty() && comm != e.comm) comm.assign(e.comm);
  }
};

class RunningStats {
 public:
  void Add(uint64_t v) {
    ++n_;
    total_ += v;
    if (v < min_) min_ = v;
    if (v > max_) max_ = v;
    double d = static_cast<double>(v) - mean_;
    mean_ += d / static_cast<double>(n_);
    m2_ += d * (static_cast<double>(v) - mean_);
  }
  uint64_t count() const { return n_; }
  uint64_t total() const { return total_; }
  uint64_t min() const { return n_ ? min_ : 0; }
  uint64_t max() const { return max_; }
  double mean() const { return mean_; }
  // The statistics of both series together (Chan et al.'s pairwise update of mean and M2).
  static RunningStats Merge(const RunningStats& a, const RunningStats& b);
  // Sample standard deviation (n−1); 0 when n < 2.
  double Stdev() const;
  // perf's stddev_stats / avg_stats in percent: the relative standard error of the mean.
  double RelStderr() const;

 private:
  uint64_t n_ = 0, total_ = 0, min_ = UINT64_MAX, max_ = 0;
  double mean_ = 0, m2_ = 0;
};

class Log2Hist {
 public:
  // `v` in the histogram's unit (µs or ms), as bcc divides before bucketing.
  void Add(uint64_t v) {
    h_.Add(v);
    ++n_;
  }
  uint64_t count() const { return n_; }
  const std::array<uint64_t, common::Log2Histogram::kSlots>& buckets() const { return h_.slots(); }
  // bcc's print_log2_hist (nothing when empty).
  void Write(const char* unit, std::string* out) const { h_.Append(unit, out); }
  Json ToJson() const;  // [{"low","high","count"}...] for the non-empty range

 private:
  common::Log2Histogram h_;  // the one bcc log2 table sched and iolat print too
  uint64_t n_ = 0;
};

// LTTng's linear table: `resolution` buckets of (max−min)/resolution from min; a value equal
// to max lands in the last bucket; values outside [min, max] are not counted. Built from the
// range, so it needs the range first (from --min/--max, or the series' own min/max from
// RunningStats and a second look at the values the caller keeps).
class LinearFreq {
 public:
  LinearFreq(double min, double max, int resolution);
  void Add(double v);
  // "%0.03f" lower bound, a bar of up to `bar_width` '#', the count: one row per bucket.
  void Write(std::string* out) const;
  Json ToJson() const;
  bool empty() const { return step_ <= 0; }

 private:
  double min_, max_, step_;
  std::vector<uint64_t> counts_;
};

// "%0.03f" of ns as µs.
std::string Us(uint64_t ns);
std::string Us(double ns);

// The bar-graph row prefix LTTng prints: a bar of `width` cells scaled so `max` fills it.
std::string Bar(double value, double max, int width);

}  // namespace tk::lttng

#endif  // TK_ANALYSES_LTTNG_COMMON_H_
