// `tk sched timehist`: perf sched timehist — one row per context switch-out, e.g.
//
//            time    cpu  task name                       wait time  sch delay   run time
//                         [tid/pid]                          (msec)     (msec)     (msec)
// --------------- ------  ------------------------------  ---------  ---------  ---------
//      661.245333 [0000]  migration/0[18]                     0.000      0.007      0.031
//      661.245573 [0000]  <idle>                              0.000      0.000      0.240
//
// For the task switched out at t on a CPU whose previous switch was at tprev (so it ran
// tprev..t), with last_time its own previous switch-out and ready_to_run the first wakeup
// since then (or last_time itself when it left runnable, R/R+):
//   run time  = t - tprev
//   sch delay = tprev - ready_to_run            (0 without a wakeup)
//   wait time = tprev - last_time, accounted by the state it left in: R preempt, D iowait,
//               anything else sleep (--state prints the letter; -s --state sums them).
// pid 0 is the per-CPU <idle> task. If the input has sched_waking, sched_wakeup is ignored.
//
// perf 6.1 (Debian 12) resets ready_to_run at every switch-out, so it prints a 0 sch delay
// after an R switch-out; perf 6.12+ and tk count the wait from the switch-out (docs/sched.md).
// With callchains (perf sched record -g) each row ends with the switch-out's callchain
// (timehist_chain.h).
#ifndef TK_ANALYSES_SCHED_TIMEHIST_H_
#define TK_ANALYSES_SCHED_TIMEHIST_H_

#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "analyses/sched/task_table.h"
#include "analyses/sched/timehist_chain.h"
#include "analyses/sched/timehist_rules.h"
#include "core/filter.h"
#include "core/sink.h"

namespace tk::sched {

struct TimehistOptions {
  bool summary_only = false;     // -s: only the summary
  bool with_summary = false;     // -S: rows then the summary
  bool show_wakeups = false;     // -w: a row per wakeup ("awakened: comm[tid]")
  bool show_next = false;        // -n: the task switched in ("next: comm[tid]")
  bool show_migrations = false;  // -M: migration rows; also counts migrations in the summary
  bool show_state = false;       // --state: the state letter; summary splits the wait time
  // -V/--cpu-visual: a column per CPU after the CPU number: 's' a switch, 'i' idle leaving,
  // 'm' a migration (perf's layout, one column more than CPUs, as perf). Default off.
  bool cpu_visual = false;
  // The recording's CPU count (perf.data nr_cpus_online, trace.dat cpus) for -V's columns;
  // 0 unknown (text input): perf's fallback of 4. Grows with the CPUs seen, as perf's.
  int32_t nr_cpus = 0;
  // -I/--idle-hist (perf's): only switches into or out of idle; each idle period is charged
  // to the task that went idle ("Idle-time summary": its count, total, min/avg/max). Wakeup
  // and migration rows are not shown. Default off.
  bool idle_hist = false;
  // --json: JSON Lines instead of the table, one object per row ("type": "switch", "wakeup",
  // "migrate", "lost"; "ts_ns" the event time in ns, durations in *_ms), then with -s/-S one "task" object per task, "idle" per CPU and a
  // "total". Every number is there whatever the other flags. Default off.
  bool json = false;
  // -p/-t/--comm: only rows and summary lines of these tasks (a wakeup or migration row when
  // either task matches); -C: only rows and stats of these CPUs; --time: one window (perf's
  // timehist takes one range; later ones are ignored), runs clipped to it. Every event still
  // feeds the state (docs/filters.md). Default: no filter.
  FilterOptions filter;
  // --compat perf-6.1: perf 6.1's handling — — letters from ffs(raw prev_state) into
  // "RSDTtZXxKWP" (R+ prints W and counts as sleep, I prints K, Z prints X, X prints Z) and
  // ready_to_run reset at every switch-out (no sch delay after an R switch-out). Default off.
  bool perf61 = false;
  // -g/--call-graph (perf's default on; --no-call-graph off): the callchain column when the
  // sched_switch events have callchains; --max-stack: at most this many functions (perf 6.1:
  // the first N+2 frames, timehist_chain.h).
  bool callchain = true;
  uint32_t max_stack = 5;
};

// Streaming (analyses/common/report.h): rows are written to `out` as switch events arrive,
// the header with the first row; Finish() builds the summary and WriteRest() writes it.
class TimehistAnalysis final : public EventSink {
 public:
  TimehistAnalysis(TimehistOptions opts, std::ostream& out);
  EventMask wants() const override;
  // Before the parse: the input's sched_switch events record no callchain, so there is no
  // column and nothing to symbolize (perf's timehist_check_attr turns -g off then).
  void NoCallchains() { opts_.callchain = false; }
  absl::Status OnEvent(const Event& e) override;
  absl::Status Finish() override;
  // After Finish(), once the pipeline succeeded: what is not written yet (the last rows, the
  // header when no row came, the summary).
  void WriteRest();
  // The stderr note when tk's default rules (sch delay counted from an R/R+ switch-out,
  // R+ = preempted) changed rows against perf 6.1's; "" when not (or with --compat).
  std::string Perf61Note() const;

  // perf's stats (util/stat.c): running mean and M2 (Welford), min, max.
  struct Stats {
    double n = 0, mean = 0, m2 = 0;
    uint64_t max = 0, min = UINT64_MAX;
    void Update(uint64_t v);
    double RelStddev() const;  // 100 * stddev of the mean / mean
  };
  struct Runtime {
    int64_t last_time = 0;     // last switch-out
    char last_state = 0;       // state letter at that switch-out
    int64_t ready_to_run = 0;  // first wakeup since (or last_time after an R switch-out)
    int64_t ready_to_run61 = 0;  // the same under perf 6.1's rule (reset at every switch-out)
    uint64_t dt_run = 0, dt_delay = 0, dt_sleep = 0, dt_iowait = 0, dt_preempt = 0;
    Stats run_stats;
    uint64_t total_run = 0, total_delay = 0, total_sleep = 0, total_iowait = 0;
    uint64_t total_preempt = 0, migrations = 0;
    int32_t last_thread = -1;  // -I, idle of a CPU: the task that last switched on it
  };

 private:
  bool TaskWanted(int32_t tid);  // the task filter, with the pid and comm the table knows
  bool Filtered(int32_t tid);    // perf's thread__is_filtered; counts skipped samples
  bool CpuWanted(int32_t cpu) const;
  // "comm[tid/pid]" and widens the column; valid until the next call for another thread.
  const std::string& CommStr(int32_t tid, bool idle);
  Runtime& IdleRuntime(int32_t cpu);
  static constexpr int kCommWidth = 30;  // perf's initial comm column
  // The buffer rows go to, after the header when it is not written yet.
  std::string& Rows();
  void AppendHeader();
  // -V: " " + one character per CPU column + " " ('c' on this CPU, blanks elsewhere).
  void AppendVisual(int32_t cpu, char c, const char* pad);
  // -I: charges the idle period that just ended to the task that went idle.
  void ChargeIdle(Runtime& idle, int64_t t, int64_t tprev);
  // A switch-out row's facts: the run of `tid` (charged to `r`) from tprev to t, clipped to
  // the window.
  struct Switch {
    const Event& e;
    const SchedSwitch& s;
    Runtime& r;
    int32_t cpu, tid;
    int64_t t, tprev;
    char state;
    bool idle;
  };
  // --time: clips a run to the window; false when it lies outside.
  bool ClipToWindow(int64_t* t, int64_t* tprev) const;
  void OnSwitch(const Event& e, const SchedSwitch& s);
  void IdleHistSwitch(const Switch& w);
  void CountSwitch(const Switch& w);
  void OnWakeup(const Event& e, const SchedWakeup& w);
  void OnMigrate(const Event& e, const SchedMigrate& m);
  void OnLost(const Event& e, const Lost& l);  // perf's "lost N events on cpu C" row
  void PrintRow(const Event& e, const SchedSwitch& s, const Runtime& r, std::string_view comm,
                int64_t t, char state, bool idle);
  // The switch-out's chain into chain_ (chain_on_ when the column is shown for it); counts
  // the rows perf 6.1's rules would print another chain for.
  void TakeChain(const Event& e, const SchedSwitch& s);
  IdleChains& IdleChainsOf(int32_t cpu);
  void PrintIdleChains();
  // The tasks the summary lists, by tid: run at least once, not idle, wanted by the task
  // filter (silently, as perf's thread__is_filtered).
  std::vector<int32_t> SummaryTasks();
  void PrintSummary();
  void JsonSummary();
  void PrintThreadSummary(int32_t tid, const Runtime& r, uint64_t* tasks, uint64_t* switches,
                          uint64_t* run);

  TimehistOptions opts_;
  TimehistRules rules_;
  std::ostream& out_;
  std::string buf_;
  TaskTable tasks_;
  TidMap<Runtime> runtime_;
  struct CommCache {  // CommStr's string and what it was built from
    const char* comm = nullptr;
    size_t size = 0;
    int32_t pid = 0;
    bool built = false;
    std::string str;
  };
  TidMap<CommCache> comm_strs_;
  std::vector<Runtime> idle_;            // per CPU
  std::vector<int64_t> last_switch_;     // per CPU, 0 = none yet
  Filter filter_;
  int64_t start_ns_ = 0, end_ns_ = 0;  // the --time window, 0 = open
  int comm_width_ = kCommWidth;
  int header_cpus_ = 0;  // -V: the header's CPU columns (the recording's count, as perf)
  bool header_pending_ = false;
  int32_t max_cpu_ = -1;
  int32_t visual_max_cpu_ = 4;  // -V: perf's sched->max_cpu (the recording's CPU count)
  uint64_t skipped_samples_ = 0;
  uint64_t rows_ = 0, perf61_rows_differ_ = 0;  // rows whose numbers perf 6.1 would change
  int64_t hist_start_ = 0, hist_end_ = 0;
  bool seen_waking_ = false;
  std::vector<ChainFrame> chain_, chain61_;  // the current switch-out's (and 6.1's) chain
  bool chain_recorded_ = false;  // the current switch-out has a callchain (and -g is on)
  bool chain_on_ = false;        // the current row has the column
  bool chain_differs_ = false;   // and perf 6.1 would print another one
  bool chains_seen_ = false;     // some switch-out had a callchain (-I's summary section)
  uint64_t perf61_chains_differ_ = 0;  // rows whose column perf 6.1 would print otherwise
  std::vector<IdleChains> idle_chains_;  // -I, per CPU
};

}  // namespace tk::sched

#endif  // TK_ANALYSES_SCHED_TIMEHIST_H_
