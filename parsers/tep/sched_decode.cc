#include "parsers/tep/sched_decode.h"

#include <utility>

namespace tk::parsers::tep {

int SchedFastDecoder::Add(SchedLayout layout) {
  if (!IsSchedKind(layout.kind) || layout.id < 0) return -1;
  // Without the print fmt's letter table prev_state needs libtraceevent's printer, which is
  // the TepDecoder's (and its thread's) alone.
  if (layout.kind == EventKind::kSchedSwitch && !layout.states) return -1;
  Entry e;
  if (layout.kind == EventKind::kSchedSwitch) {
    e.states = std::make_unique<PrevStateDecoder>(nullptr, layout.slots[3], layout.states);
  }
  e.layout = std::move(layout);
  entries_.push_back(std::move(e));
  return static_cast<int>(entries_.size() - 1);
}

}  // namespace tk::parsers::tep
