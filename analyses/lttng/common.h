// What the LTTng-analyses-style reports (tk irq, syscalls, cputop, memtop) share.
//
// - ReportFilter: --pid/--tid/--comm/--cpu/--time, applied to each event before it is counted.
//   (A shared filter stage for every command is being built in core/; this struct is meant to
//   be replaced by it without changing the reports.)
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

struct ReportFilter {
  std::vector<int32_t> pids;         // --pid: process ids (tgid); empty = all
  std::vector<int32_t> tids;         // --tid: thread ids
  std::vector<std::string> comms;    // --comm: exact comm match
  std::vector<int32_t> cpus;         // --cpu
  int64_t start_ns = 0, end_ns = 0;  // --time START,END (0 = open)

  bool InTime(int64_t ts) const { return !(start_ns && ts < start_ns) && !(end_ns && ts > end_ns); }
  bool CpuOk(int32_t cpu) const;
  // `pid` may be -1 (unknown): then the tid stands for it.
  bool TaskOk(int32_t pid, int32_t tid, std::string_view comm) const;
  bool HasTaskFilter() const { return !pids.empty() || !tids.empty() || !comms.empty(); }
  // A timed event inside --time, on a wanted CPU, of a wanted task (the event's thread).
  bool Accepts(const Event& e) const {
    return e.ts_ns >= 0 && InTime(e.ts_ns) && CpuOk(e.cpu) && TaskOk(e.pid, e.tid, e.comm);
  }
};

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

// Parses the string forms of the options into `f` ("1,2-4" lists, "a,b" comms, perf's
// "START,END" seconds). Empty strings leave a field unset.
absl::Status ParseFilter(const std::string& pids, const std::string& tids, const std::string& comms,
                         const std::string& cpus, const std::string& time, ReportFilter* f);

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
