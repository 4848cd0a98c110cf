// tk script: every event, one line each, in the order the parser delivers them (time order).
//
// Text, shaped like perf script's default output:
//             perf  8773 [000]   707.455929: sched:sched_switch: prev_comm=perf prev_pid=8773 ...
//          swapper     0 [000]   267.436250:      50000 cpu-clock:pppH:
//         	ffffffff821f2c2b pv_native_safe_halt ([kernel.kallsyms])
// JSON Lines (--json), one object per event:
//   {"ts":707455929000,"cpu":0,"pid":8773,"tid":8773,"comm":"perf","event":"sched:sched_switch",
//    "fields":{"prev_comm":"perf","prev_pid":8773,...}}
// Samples (cycles, cpu-clock...) add "period"; any event recorded with a callchain adds
// "stack" ([{"ip":"ffffffff821f2c2b","symbol":...,"dso":...}], leaf first). Unknown ts/cpu/pid/tid are -1. Lost-event records are printed as event "lost" with
// fields kind and count. Field keys and value forms: analyses/script/event_fields.h.
#ifndef TK_ANALYSES_SCRIPT_SCRIPT_H_
#define TK_ANALYSES_SCRIPT_SCRIPT_H_

#include <iosfwd>
#include <string>

#include "analyses/script/event_fields.h"
#include "core/sink.h"

namespace tk::analyses::script {

struct Options {
  bool json = false;           // JSON Lines instead of text
  int time_digits = 6;         // 6 = µs as perf script prints; 9 with --ns
  bool show_task_events = false;  // COMM/FORK/EXIT side-band records (perf's --show-task-events)
};

class ScriptSink final : public EventSink {
 public:
  ScriptSink(const Options& opts, std::ostream& out) : opts_(opts), out_(out) {}
  EventMask wants() const override;
  // Fails (stopping the parse) only when the output stream fails, e.g. a closed pipe.
  absl::Status OnEvent(const Event& e) override;
  absl::Status Finish() override;
  uint64_t events() const { return events_; }

 private:
  void Text(const Event& e);
  void Json(const Event& e);
  void JsonFields(const Event& e);
  absl::Status Flush();

  Options opts_;
  std::ostream& out_;
  std::string buf_;
  EventFields fields_;
  uint64_t events_ = 0;
};

}  // namespace tk::analyses::script

#endif  // TK_ANALYSES_SCRIPT_SCRIPT_H_
