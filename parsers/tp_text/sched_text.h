// sched:* tracepoint text → typed events. Pure functions; each returns nullopt when the text
// is not one of the forms it documents. String views in the results borrow `text`.
#ifndef TK_PARSERS_TP_TEXT_SCHED_TEXT_H_
#define TK_PARSERS_TP_TEXT_SCHED_TEXT_H_

#include <optional>
#include <string_view>

#include "core/event.h"

namespace tk::parsers::tp_text {

// prev_state as text: letters ("R", "R+", "D|K") or a number (raw output): bits as kernels
// 4.14+ report them (S D T t X Z P I = bits 0..7, 0x100 = preempted).
TaskState StateFromText(std::string_view s);

// trace-cmd's sched_switch plugin prints prev_state with a stale letter table, "SDTtZXxW" for
// bits 0..7 (2.6-era kernels). Maps its letters back to the bit and names the bit as the
// kernel's own print format does on 4.14+ ("SDTtXZPI"): plugin "W" is I (idle), "Z" is X.
// The plugin cannot show the preempted bit (0x100): its "R" may have been "R+".
TaskState StateFromPluginLetters(std::string_view s);

std::optional<SchedSwitch> ParseSchedSwitch(std::string_view text);
// The kind (wakeup / waking / wakeup_new) is the caller's to set.
std::optional<SchedWakeup> ParseSchedWakeup(std::string_view text);
std::optional<SchedMigrate> ParseSchedMigrate(std::string_view text);
// `runtime=` for sched_stat_runtime, `delay=` for the others; the caller sets `which`.
std::optional<SchedStat> ParseSchedStat(std::string_view text);
std::optional<SchedFork> ParseSchedFork(std::string_view text);
// sched_process_exit and sched_process_free.
std::optional<SchedExit> ParseSchedExit(std::string_view text);

}  // namespace tk::parsers::tp_text

#endif  // TK_PARSERS_TP_TEXT_SCHED_TEXT_H_
