// Synthesized block/sched events for iolat unit tests. Strings are literals (they outlive the
// OnEvent calls).
#ifndef TK_TESTS_IOLAT_EVENTS_H_
#define TK_TESTS_IOLAT_EVENTS_H_

#include "core/event.h"

namespace tk::iolat::testing {

inline Event Block(int64_t ts, BlockStage st, uint32_t major, uint32_t minor, const char* rwbs,
                   uint64_t sector, uint32_t nr, const char* comm, int32_t pid = 100) {
  Event e;
  e.ts_ns = ts;
  e.pid = pid;
  e.tid = pid;
  e.comm = comm;
  e.name = "block:x";
  BlockRq b;
  b.stage = st;
  b.major = major;
  b.minor = minor;
  b.rwbs = Rwbs::Parse(rwbs);
  b.sector = sector;
  b.nr_sector = nr;
  b.bytes = nr * 512;
  b.comm = comm;
  e.body = b;
  return e;
}

inline Event Remap(int64_t ts, uint32_t major, uint32_t minor, const char* rwbs, uint64_t sector,
                   uint32_t nr, uint32_t old_major, uint32_t old_minor, uint64_t old_sector,
                   const char* comm, int32_t pid = 100) {
  Event e = Block(ts, BlockStage::kBioRemap, major, minor, rwbs, sector, nr, comm, pid);
  BlockRq& b = std::get<BlockRq>(e.body);
  b.old_major = old_major;
  b.old_minor = old_minor;
  b.old_sector = old_sector;
  b.comm = "";
  return e;
}

inline Event Switch(int64_t ts, const char* prev, int32_t prev_pid, const char* state,
                    const char* next, int32_t next_pid) {
  Event e;
  e.ts_ns = ts;
  e.pid = prev_pid;
  e.tid = prev_pid;
  e.comm = prev;
  e.name = "sched:sched_switch";
  SchedSwitch s;
  s.prev_comm = prev;
  s.prev_pid = prev_pid;
  s.prev_state = TaskState::FromLetters(state);
  s.next_comm = next;
  s.next_pid = next_pid;
  e.body = s;
  return e;
}

inline Event Wakeup(int64_t ts, const char* comm, int32_t pid) {
  Event e;
  e.ts_ns = ts;
  e.name = "sched:sched_wakeup";
  SchedWakeup w;
  w.comm = comm;
  w.pid = pid;
  e.body = w;
  return e;
}

}  // namespace tk::iolat::testing

#endif  // TK_TESTS_IOLAT_EVENTS_H_
