// `tk sched latency`: perf sched latency's per-task scheduling delay table.
//
// The state machine is perf's (tools/perf/builtin-sched.c, latency_*_event), per thread, keeping
// only the last "atom" {state, sched_out, wake_up, sched_in} since nothing reads older ones:
//
//   sched_switch at t on a CPU, prev -> next:
//     prev: a new atom with sched_out = t; if prev_state is R (R+ too: preempted) the atom is
//           already waiting for the CPU with wake_up = t, else it is sleeping.
//     next: (a thread never seen gets a waiting atom with wake_up = t, i.e. a 0 delay)
//           if its atom is waiting: delay = t - wake_up (t < wake_up: atom ignored), added to
//           the thread's total, max kept with its start (wake_up) and end (t), count += 1.
//   sched_waking / sched_wakeup / sched_wakeup_new of pid at t:
//     only when pid's atom is sleeping (or always with -C): it starts waiting, wake_up = t;
//     a wakeup before the atom's sched_out counts as an unordered timestamp.
//     If the input has sched_waking, sched_wakeup is ignored (perf prefers waking). tk reads
//     in one pass, so "has" means "has shown one so far": a sched_wakeup before the first
//     sched_waking counts (the kernel emits waking first, so only a wakeup whose waking fell
//     before the recording started is affected).
//   sched_stat_runtime: runtime= is added to the thread's "Runtime ms". An input without
//     sched_stat_runtime (trace-cmd record -e sched_switch -e sched_wakeup) gets the Runtime
//     from switch pairs instead: prev ran from the CPU's previous switch to this one — the
//     run time timehist -s shows. perf prints 0.000 there; --compat perf-6.1 too.
//   sched_migrate_task (only with -C, as perf): resets the atom's times to t.
//
// Rows merge threads of the same comm ("comm:(N)"); -p keeps them apart ("comm:tid"). Threads
// named swapper and threads with no measured delay are not printed.
#ifndef TK_ANALYSES_SCHED_LATENCY_H_
#define TK_ANALYSES_SCHED_LATENCY_H_

#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "analyses/sched/task_table.h"
#include "core/filter.h"
#include "core/sink.h"

namespace tk::sched {

enum class LatencySortKey : uint8_t { kPid, kAvg, kMax, kSwitch, kRuntime };

// Parses perf's -s list: "pid", "avg", "max", "switch", "runtime" separated by ',' or ' '.
absl::StatusOr<std::vector<LatencySortKey>> ParseLatencySort(std::string_view s);

struct LatencyOptions {
  // Sort keys, each descending; default perf's "avg, max, switch, runtime".
  std::vector<LatencySortKey> sort = {LatencySortKey::kAvg, LatencySortKey::kMax,
                                      LatencySortKey::kSwitch, LatencySortKey::kRuntime};
  // -p/--pids: one row per thread instead of per comm. Default off (merge by comm).
  bool per_pid = false;
  // -C/--CPU: the recording holds only this CPU (perf record -C), so wakeups of tasks not
  // known to sleep and migrations are trusted. Default -1: all CPUs. Like perf, events are
  // not filtered by CPU.
  int32_t profile_cpu = -1;
  // --compat perf-6.1: ignore sched_waking (perf 6.1 only handles sched_wakeup/_new), and
  // decode states as perf up to 6.6 did (it indexes "RSDTtZXxKWP" with the
  // raw prev_state, so a preempted task, R+ = TASK_REPORT_MAX, is not seen as runnable and
  // its wait is not counted), name threads only from Comm records (perf's ":TID" for the
  // others) and title the count column " Switches ". Default off: R+ is R
  // (perf 6.7+, docs/sched.md).
  bool perf61 = false;
  // --time/--cpu: only delays whose switch-in (and runtime whose sched_stat_runtime) falls
  // in the window and on these CPUs; --pid/--tid/--comm: only rows of these threads (the
  // thread's process and last comm). Every event still drives the atoms. Default: all.
  FilterOptions filter;
};

struct LatencyRow {
  std::string task;             // "comm:(N)" or "comm:tid", as perf prints it
  std::string comm;
  std::vector<int32_t> tids;    // the threads merged into the row, descending
  uint64_t runtime_ns = 0;
  uint64_t count = 0;           // delays measured ("Count", perf 6.1: "Switches")
  uint64_t total_delay_ns = 0;
  uint64_t avg_delay_ns = 0;    // integer division, as perf
  uint64_t max_delay_ns = 0;
  int64_t max_delay_start_ns = 0;  // 0 when no delay was > 0
  int64_t max_delay_end_ns = 0;
};

struct LatencyInfo {
  uint64_t nr_timestamps = 0;            // wakeups (and -C migrations) checked for order
  uint64_t nr_unordered_timestamps = 0;  // wakeups earlier than the task's sched-out
  uint64_t nr_context_switch_bugs = 0;   // prev_pid was not the CPU's current task
  uint64_t nr_events = 0;                // events read (perf counts every perf.data record,
                                         // MMAP and the like too, so its figure is higher)
  uint64_t nr_lost_events = 0;
  uint64_t nr_lost_chunks = 0;
};

struct LatencyReport {
  bool perf61 = false;           // print perf 6.1's " Switches " header
  std::vector<LatencyRow> rows;  // sorted
  uint64_t total_runtime_ns = 0;
  uint64_t total_count = 0;
  // Where Runtime came from: "sched_stat_runtime", or "sched_switch" (switch pairs) when the
  // input had no sched_stat_runtime.
  std::string runtime_source = "sched_stat_runtime";
  LatencyInfo info;
  // Without --compat: the threads whose count, total or max delay perf 6.1's rules
  // (sched_waking ignored, R+ not runnable) would give differently, out of `perf61_of`.
  uint64_t perf61_differs = 0, perf61_of = 0;
};

class LatencyAnalysis final : public EventSink {
 public:
  explicit LatencyAnalysis(LatencyOptions opts);
  EventMask wants() const override;
  absl::Status OnEvent(const Event& e) override;
  // Builds the report (analyses/common/report.h).
  absl::Status Finish() override;
  const LatencyReport& report() const { return report_; }

 private:
  enum class AtomState : uint8_t { kUnseen, kSleeping, kWaitCpu, kSchedIn, kIgnore };
  // The last atom of a thread and its totals, under one set of rules.
  struct Atoms {
    AtomState state = AtomState::kUnseen;  // kUnseen: no event of the thread counted yet
    int64_t sched_out = 0, wake_up = 0, sched_in = 0;
    uint64_t total_lat = 0, max_lat = 0, nb_atoms = 0;
    int64_t max_lat_start = 0, max_lat_end = 0;
  };
  // The rule sets: kMain is the options' (perf 6.1's with --compat), kPerf61 perf 6.1's when
  // the main ones are not, for the stderr note. One map entry holds both, so the shadow
  // costs no second lookup (it was a second LatencyAnalysis: a third of the analysis).
  enum Rules : uint8_t { kMain = 0, kPerf61 = 1 };
  struct Thread {
    Atoms a[2];
    uint64_t runtime = 0;         // from sched_stat_runtime
    uint64_t switch_runtime = 0;  // from switch pairs
  };
  // The thread's atoms under rule set `r`; seen for the first time, they get an atom sched
  // out at `ts` in `runnable` (waiting) or sleeping state.
  static Atoms& AtomsOf(Thread& t, int r, int64_t ts, bool runnable) {
    if (t.a[r].state == AtomState::kUnseen) SchedOut(t.a[r], ts, runnable);
    return t.a[r];
  }
  static void SchedOut(Atoms& t, int64_t ts, bool runnable);
  void SwitchIn(Atoms& in, const Event& e);
  void OnSwitch(const Event& e, const SchedSwitch& s);
  void OnWakeup(const Event& e, const SchedWakeup& w);
  void WakeUp(Atoms& t, const Event& e, bool count);
  void OnMigrate(const Event& e, const SchedMigrate& m);
  void OnStat(const Event& e, const SchedStat& st);
  void OnLost(const Lost& l);
  // Whether a delay or runtime at `ts` on `cpu` counts (--time, -C).
  bool Counted(int64_t ts, int32_t cpu) const {
    return counts_all_ || (filter_.TimeOk(ts) && filter_.CpuOk(cpu));
  }
  // Counts the shown threads whose delays differ under perf 6.1's rules.
  void ComparePerf61(LatencyReport* rep) const;
  LatencyReport BuildReport();

  LatencyOptions opts_;
  int rule_sets_;  // 2 with the perf 6.1 shadow, 1 with --compat
  Filter filter_;
  bool counts_all_;  // no --time and no -C: every delay counts
  TaskTable tasks_;
  TidMap<Thread> threads_;
  std::vector<int32_t> curr_pid_;  // per CPU, -1 unknown
  std::vector<int64_t> last_switch_;  // per CPU, -1 none yet
  bool seen_waking_ = false;
  bool seen_runtime_ = false;  // a sched_stat_runtime event
  LatencyInfo info_;
  LatencyReport report_;
};

// perf sched latency's table: header, rows, TOTAL, INFO lines.
void WriteText(const LatencyReport& r, std::ostream& out);
// The stderr note when tk's default rules changed the numbers against perf 6.1's; "" when
// they did not (or with --compat).
std::string LatencyPerf61Note(const LatencyReport& r);
// {"tasks": [...], "total": {...}, "info": {...}}
void WriteJson(const LatencyReport& r, std::ostream& out);

}  // namespace tk::sched

#endif  // TK_ANALYSES_SCHED_LATENCY_H_
