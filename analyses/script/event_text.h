// An event's fields as text, in the kernel's own print format — what `perf script` (through
// libtraceevent) prints after "sched:sched_switch: ", so tk script's text output lines up with
// perf script's whatever the input format was.
#ifndef TK_ANALYSES_SCRIPT_EVENT_TEXT_H_
#define TK_ANALYSES_SCRIPT_EVENT_TEXT_H_

#include <cstdint>
#include <string>

#include "core/event.h"

namespace tk::analyses::script {

// Appends the print-format text of a tracepoint event (nothing for samples and records):
//   prev_comm=dd prev_pid=9615 prev_prio=120 prev_state=D ==> next_comm=swapper/1 next_pid=0 next_prio=120
//   comm=loop1 pid=2464 prio=100 target_cpu=000
//   254,0 RM 4096 () 20377144 + 8 0x2,0,4 [perf-exec]
// Generic events: their text as the source printed it, else "k=v" pairs.
void AppendEventText(const Event& e, std::string* out);

void AppendInt(int64_t v, std::string* out);
void AppendUint(uint64_t v, std::string* out);

}  // namespace tk::analyses::script

#endif  // TK_ANALYSES_SCRIPT_EVENT_TEXT_H_
