// `tk sched top -n N`: the N longest scheduling delays, with who woke the task (LTTng
// schedtop's columns), e.g.
//
// Wakeup             Switch             Latency (us) Priority  CPU  Wakee                 Waker
// 661.268216123      661.268957456           741.333      120    0  sched-pipe (7983)     sched-pipe (7981)
//
// A task that became runnable by preemption shows the task that took its CPU as
// "(preempted by) comm (tid)".
#ifndef TK_ANALYSES_SCHED_TOP_H_
#define TK_ANALYSES_SCHED_TOP_H_

#include <cstdint>
#include <iosfwd>
#include <queue>
#include <string>
#include <vector>

#include "analyses/sched/delays.h"
#include "core/sink.h"

namespace tk::sched {

struct TopOptions {
  size_t n = 10;  // -n: how many delays (default 10, as lttng-schedtop's --limit)
  FilterOptions filter;  // which delays count (DelayTracker); default all
};

struct TopEntry {
  int64_t ready_ns = 0, run_ns = 0;
  uint64_t delay_ns = 0;
  int32_t prio = -1, cpu = -1;
  int32_t tid = -1, waker_tid = -1;
  std::string comm, waker_comm;
  bool preempted = false;
};

// Longest first; ties by earlier wakeup.
struct TopReport {
  std::vector<TopEntry> entries;
};

class TopAnalysis final : public EventSink {
 public:
  explicit TopAnalysis(TopOptions opts) : opts_(opts), tracker_(opts_.filter) {}
  EventMask wants() const override { return DelayTracker::Wants(); }
  absl::Status OnEvent(const Event& e) override;
  absl::Status Finish() override;  // builds the report (analyses/common/report.h)
  const TopReport& report() const { return report_; }

 private:
  struct Later {  // min-heap on delay: the top of the heap is the smallest kept
    bool operator()(const TopEntry& a, const TopEntry& b) const {
      if (a.delay_ns != b.delay_ns) return a.delay_ns > b.delay_ns;
      return a.ready_ns < b.ready_ns;
    }
  };
  TopOptions opts_;
  DelayTracker tracker_;
  std::priority_queue<TopEntry, std::vector<TopEntry>, Later> heap_;
  TopReport report_;
};

void WriteText(const TopReport& r, std::ostream& out);
void WriteJson(const TopReport& r, std::ostream& out);

}  // namespace tk::sched

#endif  // TK_ANALYSES_SCHED_TOP_H_
