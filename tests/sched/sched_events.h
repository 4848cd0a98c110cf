// Builders for synthesized sched events (tests only). Strings must outlive the events.
#ifndef TK_TESTS_SCHED_SCHED_EVENTS_H_
#define TK_TESTS_SCHED_SCHED_EVENTS_H_

#include <string_view>
#include <vector>

#include "core/event.h"
#include "core/sink.h"

namespace tk::sched::testing {

inline constexpr int64_t kUs = 1000;

// sched_switch at `ts` on `cpu`: prev (pid, comm, state letters "S", "R", "R+") -> next.
Event Switch(int64_t ts, int32_t cpu, int32_t prev, std::string_view prev_comm,
             std::string_view state, int32_t next, std::string_view next_comm,
             int32_t next_prio = 120);
// sched_waking / sched_wakeup / sched_wakeup_new of `pid`, fired by task `waker` on `cpu`.
Event Wake(int64_t ts, int32_t cpu, int32_t waker, int32_t pid, std::string_view comm,
           SchedWakeup::Kind kind = SchedWakeup::Kind::kWaking);
// sched_stat_runtime of `pid`.
Event Runtime(int64_t ts, int32_t cpu, int32_t pid, std::string_view comm, uint64_t ns);
Event Migrate(int64_t ts, int32_t cpu, int32_t mover, int32_t pid, std::string_view comm,
              int32_t from, int32_t to);

// Feeds every event the sink wants, then Finish().
void Feed(EventSink& sink, const std::vector<Event>& events);

}  // namespace tk::sched::testing

#endif  // TK_TESTS_SCHED_SCHED_EVENTS_H_
