// `tk cputop`: where the CPU time went, per thread and per CPU, from sched:sched_switch alone
// (the question lttng-cputop answers):
//
//   Per-TID usage: CPU time and its share of the traced range, migrations, priorities
//   Per-CPU usage: busy share of each CPU's window; total = mean over the CPUs seen
//
// Counting rules (docs/cputop.md):
// - A thread's CPU time is the sum of its slices: a slice starts at the switch that put it on
//   a CPU (the previous sched_switch on that CPU) and ends at the switch that takes it off.
//   This is exactly `perf sched timehist -s`'s run-time per task. The first switch seen on a
//   CPU ends a slice whose start is unknown: it counts 0 (as perf). The slice still running at
//   the end of the trace is not counted in the thread's CPU time either (as perf; LTTng adds
//   it) — it is reported apart as `running_at_end_ns` in JSON.
// - usage % = CPU time × 100 / traced range (first to last event of the window).
// - A CPU is busy while a task other than pid 0 holds it. Its window starts at its first
//   sched_switch (what ran before is unknown; LTTng counts it busy) and ends at the last event;
//   the slice still running at the end counts here. Total = mean of the per-CPU shares over
//   the CPUs seen (not over nr_cpus), as LTTng.
// - Migrations: sched:sched_migrate_task events of the thread.
// - Priorities: the distinct prio values the kernel recorded at its switches (kernel prio:
//   120 = nice 0; LTTng prints prio − 100).
// - Filters: --time clips slices to the window; --cpu keeps those CPUs' slices; task filters
//   keep those threads' rows (the per-CPU table is not task-filtered).
#ifndef TK_ANALYSES_CPUTOP_CPUTOP_H_
#define TK_ANALYSES_CPUTOP_CPUTOP_H_

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "analyses/lttng/common.h"
#include "core/filter.h"
#include "core/kernel_events.h"
#include "core/sink.h"

namespace tk::cputop {

struct CputopOptions {
  FilterOptions filter;  // the shared filters (core/filter.h)
  int top = 10;       // --top N: rows of the per-TID table (0 = all)
  bool idle = false;  // --idle: include pid 0 (swapper) in the per-TID table
};

struct TaskRow {
  int32_t tid = -1, pid = -1;
  std::string comm;
  uint64_t run_ns = 0;             // sum of closed slices (= perf sched timehist -s run-time)
  uint64_t running_at_end_ns = 0;  // the slice open at the end of the window
  uint64_t slices = 0;             // switch-outs (perf's sched-in count)
  uint64_t migrations = 0;
  std::vector<int32_t> prios;  // ascending
  double usage_pct = 0;
};

struct CpuRow {
  int32_t cpu = -1;
  uint64_t window_ns = 0, busy_ns = 0;
  double usage_pct = 0;
};

struct CputopReport {
  int64_t begin_ns = 0, end_ns = 0;  // traced range
  std::vector<TaskRow> tasks;        // by run time descending, then tid
  size_t total_tasks = 0;            // before --top
  std::vector<CpuRow> cpus;          // ascending
  double total_pct = 0;
  uint64_t switches = 0;
};

class CputopAnalysis final : public EventSink {
 public:
  // opts.filter.time holds at most one range (the window slices are clipped to).
  explicit CputopAnalysis(CputopOptions opts);
  EventMask wants() const override;
  absl::Status OnEvent(const Event& e) override;
  // Builds the report (analyses/common/report.h).
  absl::Status Finish() override;
  const CputopReport& report() const { return report_; }
  uint64_t events() const { return seen_; }  // every sched_switch, filtered or not

 private:
  struct Task {
    int32_t pid = -1;
    std::string comm;
    uint64_t run_ns = 0, slices = 0, migrations = 0;
    std::vector<int32_t> prios;
  };
  struct Cpu {
    int64_t first = 0, last_switch = 0;  // 0 = none yet
    int32_t curr = -1;
    uint64_t busy = 0;
  };
  Task& TaskOf(int32_t tid, std::string_view comm);
  void OnSwitch(const Event& e, const SchedSwitch& s);
  void AddPrio(Task& t, int32_t prio);

  CputopOptions opts_;
  Filter filter_{opts_.filter};
  int64_t start_ns_ = 0, end_ns_ = 0;  // the --time window (0 = open)
  absl::flat_hash_map<int32_t, Task> tasks_;
  std::vector<Cpu> cpus_;
  int64_t first_ts_ = -1, last_ts_ = -1;
  uint64_t switches_ = 0, seen_ = 0;
  CputopReport report_;
};

void WriteText(const CputopReport& r, std::ostream& out);
void WriteJson(const CputopReport& r, std::ostream& out);

}  // namespace tk::cputop

#endif  // TK_ANALYSES_CPUTOP_CPUTOP_H_
