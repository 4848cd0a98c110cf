// Where `perf sched timehist` of perf 6.1 (Debian 12) and current perf (tk's default) differ,
// in one place: TimehistAnalysis asks its rules and never tests --compat itself.
//
//                          current perf (default)            perf 6.1 (--compat perf-6.1)
//   state letter           TaskState::Letter() (R+ is R)     "RSDTtZXxKWP"[ffs(raw)] (R+ is W)
//   sch delay after R      counted from the switch-out       0 (ready_to_run reset at every
//                                                            switch-out)
//   row of an exiting task prev_pid                          the sample's thread (perf could
//                                                            not name it: ":-1 -1")
//   wakee of unknown pid   its own process                   pid 0 (prints as a bare comm)
//   thread names           every event's comm                COMM records only
#ifndef TK_ANALYSES_SCHED_TIMEHIST_RULES_H_
#define TK_ANALYSES_SCHED_TIMEHIST_RULES_H_

#include <cstdint>

#include "analyses/sched/task_table.h"
#include "core/event.h"

namespace tk::sched {

// perf 6.1's task_state_char: "RSDTtZXxKWP"[ffs(raw)] with the raw TASK_REPORT bits of 4.14+
// kernels (S 1, D 2, T 4, t 8, X 0x10, Z 0x20, P 0x40, I 0x80, R+ 0x100).
char Perf61Letter(const TaskState& st);

class TimehistRules {
 public:
  explicit TimehistRules(bool perf61) : perf61_(perf61) {}
  bool perf61() const { return perf61_; }

  // The letter printed (--state) and accounted (R preempt, D iowait, else sleep).
  char StateLetter(const TaskState& st) const {
    return perf61_ ? Perf61Letter(st) : st.Letter();
  }
  // Whether a task switched out in `state` is ready to run from then on (its next sch delay
  // counts from the switch-out).
  bool ReadyAtSwitchOut(char state) const { return state == 'R' && !perf61_; }
  // The thread a switch-out row is charged to (perf 6.1: the sample's, learning its process).
  int32_t RowThread(const Event& e, const SchedSwitch& s, TaskTable& tasks) const;
  // A wakeup of `pid`: perf 6.1 looks the wakee up as (pid 0, tid), so a thread it knew no
  // process of gets pid 0.
  void OnWakee(int32_t pid, TaskTable& tasks) const;
  // Thread names from COMM records only (perf 6.1) or from every event's comm.
  void Configure(TaskTable& tasks) const { tasks.set_record_names_only(perf61_); }

 private:
  bool perf61_;
};

}  // namespace tk::sched

#endif  // TK_ANALYSES_SCHED_TIMEHIST_RULES_H_
