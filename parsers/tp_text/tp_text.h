// Tracepoint field text → typed event, shared by the `perf script` and ftrace text parsers.
//
// Handles the kernel's own print formats ("prev_comm=bash prev_pid=1 ... ==> next_comm=..."),
// trace-cmd's plugin formats ("bash:1 [120] S ==> swapper/0:0 [120]"), the block formats of
// kernels 3.x to 6.11+ ("8,0 WS 0 () 7827752 + 8 [loop1]", "7,0 WS () 229378 + 2 be,0,4 [0]").
#ifndef TK_PARSERS_TP_TEXT_TP_TEXT_H_
#define TK_PARSERS_TP_TEXT_TP_TEXT_H_

#include <string>
#include <string_view>
#include <vector>

#include "core/event.h"
#include "core/kernel_events.h"

namespace tk::parsers::tp_text {

class TracepointTextDecoder {
 public:
  // `name` is the event as the line names it: "sched:sched_switch" or "sched_switch";
  // `text` is what follows "name:" (leading spaces allowed). Sets e.name to "system:name" when
  // the system is known, and e.body to the typed event, or to Generic (fields parsed from
  // "key=value" pairs when the text has them, else the text). Returns false when the text of a
  // known event does not parse: e.body is then Generic with the text; the caller counts it.
  // Views set in `e` borrow `name`, `text` and this decoder's storage (valid until the next call).
  bool Decode(std::string_view name, std::string_view text, Event& e);

  // "system:name" for `name` as a text format prints it ("sched_switch" → "sched:sched_switch";
  // names with a system or unknown to tk unchanged). Valid until the next call.
  std::string_view FullName(std::string_view name);

  // The kind Decode produces for `name` when its text parses (kGeneric for events tk has no
  // type for), so a parser can skip decoding what its sink does not want. KindOf: every
  // family (core/kernel_events.h) typed; Kind: as SetWanted says.
  static EventKind KindOf(std::string_view name);
  EventKind Kind(std::string_view name) const;

  // The sink's mask: events of a family whose kind it lacks decode as Generic (as before tk
  // typed them). Default: every family typed.
  void SetWanted(EventMask mask) { wanted_ = mask; }

 private:
  bool DecodeTyped(const KernelEvent& k, std::string_view name, std::string_view text, Event& e);

  EventMask wanted_ = EventMask::AllTyped();
  std::string name_buf_;
  std::vector<Field> fields_;
};

// Splits "k1=v1 k2=v2 ..." into fields (a word without '=' continues the previous value, so
// "comm=Web Content pid=1" keeps its comm). False when the text does not start with "key=".
bool ParseKeyValues(std::string_view text, std::vector<Field>* fields);

}  // namespace tk::parsers::tp_text

#endif  // TK_PARSERS_TP_TEXT_TP_TEXT_H_
