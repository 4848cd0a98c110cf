#include "tests/sched/sched_events.h"

#include "gtest/gtest.h"

namespace tk::sched::testing {

Event Switch(int64_t ts, int32_t cpu, int32_t prev, std::string_view prev_comm,
             std::string_view state, int32_t next, std::string_view next_comm,
             int32_t next_prio) {
  Event e;
  e.ts_ns = ts;
  e.cpu = cpu;
  e.pid = e.tid = prev;
  e.comm = prev == 0 ? "swapper" : prev_comm;
  e.name = "sched:sched_switch";
  SchedSwitch s;
  s.prev_comm = prev_comm;
  s.prev_pid = prev;
  s.prev_prio = 120;
  s.prev_state = TaskState::FromLetters(state);
  s.next_comm = next_comm;
  s.next_pid = next;
  s.next_prio = next_prio;
  e.body = s;
  return e;
}

Event Wake(int64_t ts, int32_t cpu, int32_t waker, int32_t pid, std::string_view comm,
           SchedWakeup::Kind kind) {
  Event e;
  e.ts_ns = ts;
  e.cpu = cpu;
  e.pid = e.tid = waker;
  e.name = kind == SchedWakeup::Kind::kWaking ? "sched:sched_waking" : "sched:sched_wakeup";
  SchedWakeup w;
  w.kind = kind;
  w.comm = comm;
  w.pid = pid;
  w.prio = 120;
  w.target_cpu = cpu;
  e.body = w;
  return e;
}

Event Runtime(int64_t ts, int32_t cpu, int32_t pid, std::string_view comm, uint64_t ns) {
  Event e;
  e.ts_ns = ts;
  e.cpu = cpu;
  e.pid = e.tid = pid;
  e.name = "sched:sched_stat_runtime";
  SchedStat st;
  st.which = SchedStat::Which::kRuntime;
  st.comm = comm;
  st.pid = pid;
  st.delay_ns = ns;
  e.body = st;
  return e;
}

Event Migrate(int64_t ts, int32_t cpu, int32_t mover, int32_t pid, std::string_view comm,
              int32_t from, int32_t to) {
  Event e;
  e.ts_ns = ts;
  e.cpu = cpu;
  e.pid = e.tid = mover;
  e.name = "sched:sched_migrate_task";
  SchedMigrate m;
  m.comm = comm;
  m.pid = pid;
  m.prio = 120;
  m.orig_cpu = from;
  m.dest_cpu = to;
  e.body = m;
  return e;
}

void Feed(EventSink& sink, const std::vector<Event>& events) {
  for (const Event& e : events) {
    if (!sink.wants().Has(e.kind())) continue;
    ASSERT_TRUE(sink.OnEvent(e).ok());
  }
  ASSERT_TRUE(sink.Finish().ok());
}

}  // namespace tk::sched::testing
