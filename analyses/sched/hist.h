// `tk sched hist`: scheduling delays as log2 histograms in bcc runqlat's layout, overall, per
// process (-P), per thread (-L) or per CPU (--per-cpu), with p50/p90/p99/max:
//
//      usecs               : count     distribution
//          0 -> 1          : 233      |***********                             |
//          2 -> 3          : 742      |****************************************|
//
// Buckets are bcc's bpf_log2l of the delay in whole microseconds: bucket i (1-based) holds
// [2^(i-1), 2^i - 1], and 0 goes with 1. Percentiles are nearest-rank over the exact delays
// (analyses/common/histogram.h: exact up to 65536 delays a histogram; past that within 0.39%,
// printed with a leading "~" and "exact": false in JSON).
#ifndef TK_ANALYSES_SCHED_HIST_H_
#define TK_ANALYSES_SCHED_HIST_H_

#include <array>
#include <cstdint>
#include <iosfwd>
#include <map>
#include <string>
#include <vector>

#include "analyses/common/histogram.h"
#include "analyses/sched/delays.h"
#include "core/sink.h"

namespace tk::sched {

struct HistOptions {
  enum class By : uint8_t { kAll, kProcess, kThread, kCpu };
  By by = By::kAll;          // default: one histogram for every task
  bool millis = false;       // -m: buckets in milliseconds (runqlat -m)
  FilterOptions filter;      // which delays count (DelayTracker); default all
};

// One histogram (whole µs or ms) plus the delays in ns for percentiles.
struct DelayHistogram {
  void Add(uint64_t delay_ns, bool millis) {
    log2.Add(millis ? delay_ns / 1000000 : delay_ns / 1000);
    ns.Add(delay_ns);
  }
  common::Log2Histogram log2;
  common::Distribution ns;  // the delays in ns
};

struct HistReport {
  struct Section {
    int64_t key = 0;    // pid, tid or cpu
    std::string label;  // "pid = 1234 comm", "cpu = 0"
    DelayHistogram hist;
  };
  HistOptions::By by = HistOptions::By::kAll;
  bool millis = false;
  DelayHistogram all;
  std::vector<Section> sections;  // by key; empty for By::kAll
};

class HistAnalysis final : public EventSink {
 public:
  explicit HistAnalysis(HistOptions opts) : opts_(opts), tracker_(opts_.filter) {}
  EventMask wants() const override { return DelayTracker::Wants(); }
  absl::Status OnEvent(const Event& e) override;
  absl::Status Finish() override;  // builds the report (analyses/common/report.h)
  const HistReport& report() const { return report_; }

 private:
  HistOptions opts_;
  DelayTracker tracker_;
  DelayHistogram all_;
  std::map<int64_t, HistReport::Section> sections_;
  HistReport report_;
};

void WriteText(const HistReport& r, std::ostream& out);
void WriteJson(const HistReport& r, std::ostream& out);

}  // namespace tk::sched

#endif  // TK_ANALYSES_SCHED_HIST_H_
