// `tk sched hist`: scheduling delays as log2 histograms in bcc runqlat's layout, overall, per
// process (-P), per thread (-L) or per CPU (--per-cpu), with p50/p90/p99/max:
//
//      usecs               : count     distribution
//          0 -> 1          : 233      |***********                             |
//          2 -> 3          : 742      |****************************************|
//
// Buckets are bcc's bpf_log2l of the delay in whole microseconds: bucket i (1-based) holds
// [2^(i-1), 2^i - 1], and 0 goes with 1. Percentiles come from a log-linear histogram (64
// to 128 sub-buckets per power of two: within 2%) so memory does not grow with the trace.
#ifndef TK_ANALYSES_SCHED_HIST_H_
#define TK_ANALYSES_SCHED_HIST_H_

#include <array>
#include <cstdint>
#include <iosfwd>
#include <map>
#include <string>
#include <vector>

#include "analyses/sched/delays.h"
#include "core/sink.h"

namespace tk::sched {

struct HistOptions {
  enum class By : uint8_t { kAll, kProcess, kThread, kCpu };
  By by = By::kAll;          // default: one histogram for every task
  bool millis = false;       // -m: buckets in milliseconds (runqlat -m)
  FilterOptions filter;      // which delays count (DelayTracker); default all
};

// One histogram plus the figures for percentiles.
class DelayHistogram {
 public:
  void Add(uint64_t ns, bool millis);
  uint64_t count() const { return count_; }
  uint64_t max_ns() const { return max_; }
  // The q-quantile (0 < q <= 1) in ns: the low edge of the fine bucket holding it.
  uint64_t Quantile(double q) const;
  const std::array<uint64_t, 65>& log2() const { return log2_; }

 private:
  static size_t FineIndex(uint64_t v);
  static uint64_t FineLow(size_t idx);
  std::array<uint64_t, 65> log2_{};
  std::vector<uint64_t> fine_;
  uint64_t count_ = 0, max_ = 0;
};

// bcc's print_log2_hist (stars scaled to the largest bucket, 40 wide).
void WriteLog2Hist(const std::array<uint64_t, 65>& vals, const char* unit, std::string* out);

class HistAnalysis final : public EventSink {
 public:
  explicit HistAnalysis(HistOptions opts) : opts_(opts), tracker_(opts_.filter) {}
  EventMask wants() const override { return DelayTracker::Wants(); }
  absl::Status OnEvent(const Event& e) override;
  void WriteText(std::ostream& out) const;
  void WriteJson(std::ostream& out) const;

 private:
  struct Section {
    std::string label;  // "pid = 1234 comm", "cpu = 0"
    DelayHistogram hist;
  };
  HistOptions opts_;
  DelayTracker tracker_;
  DelayHistogram all_;
  std::map<int64_t, Section> sections_;
};

}  // namespace tk::sched

#endif  // TK_ANALYSES_SCHED_HIST_H_
