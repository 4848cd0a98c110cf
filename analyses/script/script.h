// tk script: every event, one line each, in the order the parser delivers them (time order).
//
// Text, perf script 6.1's default output (or its -F fields):
//             perf  8773 [000]   707.455929: sched:sched_switch: prev_comm=perf prev_pid=8773 ...
//   swapper     0 [000]   267.436250:      50000 cpu-clock:pppH: 
//         	ffffffff821f2c2b pv_native_safe_halt+0xb ([kernel.kallsyms])
// (ScriptSink::Text has the field-by-field rules.)
// JSON Lines (--json), one object per event:
//   {"ts_ns":707455929000,"cpu":0,"pid":8773,"tid":8773,"comm":"perf","event":"sched:sched_switch",
//    "fields":{"prev_comm":"perf","prev_pid":8773,...}}
// Samples (cycles, cpu-clock...) add "period"; any event recorded with a callchain adds
// "stack" ([{"ip":"ffffffff821f2c2b","symbol":...,"dso":...}], leaf first). Unknown ts/cpu/pid/tid are -1. Lost-event records are printed as event "lost" with
// fields kind and count. Field keys and value forms: analyses/script/event_fields.h.
#ifndef TK_ANALYSES_SCRIPT_SCRIPT_H_
#define TK_ANALYSES_SCRIPT_SCRIPT_H_

#include <iosfwd>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

#include "analyses/script/event_fields.h"
#include "core/sink.h"

namespace tk::analyses::script {

// Text fields (-F, perf script's names).
enum : uint32_t {
  kFieldComm = 1 << 0, kFieldTid = 1 << 1, kFieldPid = 1 << 2, kFieldCpu = 1 << 3,
  kFieldTime = 1 << 4, kFieldPeriod = 1 << 5, kFieldEvent = 1 << 6, kFieldTrace = 1 << 7,
  kFieldIp = 1 << 8, kFieldSym = 1 << 9, kFieldSymOff = 1 << 10, kFieldDso = 1 << 11,
};
// "comm,tid,time,event,ip,sym" -> field bits; unknown names are an error.
absl::StatusOr<uint32_t> ParseFields(std::string_view list);

struct Options {
  bool json = false;           // JSON Lines instead of text
  int time_digits = 6;         // 6 = µs as perf script prints; 9 with --ns
  bool show_task_events = false;  // COMM/FORK/EXIT side-band records (perf's --show-task-events)
  // -F: the text fields for every event; 0 = perf script's defaults (samples: comm tid cpu
  // time period event ip sym symoff dso; tracepoints: comm tid cpu time event trace, plus the
  // ip/sym/symoff/dso callchain when one was recorded).
  uint32_t fields = 0;
  // Width event names are padded to (perf: the longest event name of the file); 0 none.
  size_t name_width = 0;
};

class ScriptSink final : public EventSink {
 public:
  ScriptSink(const Options& opts, std::ostream& out) : opts_(opts), out_(out) {}
  EventMask wants() const override;
  // Fails (stopping the parse) only when the output stream fails, e.g. a closed pipe.
  absl::Status OnEvent(const Event& e) override;
  absl::Status Finish() override;
  uint64_t events() const { return events_; }
  // Options::name_width, known once the input's header was read.
  size_t name_width() const { return opts_.name_width; }
  void set_name_width(size_t w) { opts_.name_width = w; }

 private:
  void Text(const Event& e);
  void RecordText(const Event& e);
  void FrameText(const Frame& fr, uint32_t fields, bool chain);
  void AppendPadded(int64_t v, size_t width);
  void AppendCpu(int32_t cpu);  // "[%03d]"
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
