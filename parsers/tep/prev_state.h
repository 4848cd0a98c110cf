// sched_switch.prev_state: a number whose bits differ by kernel, turned into TaskState with the
// event's own print format — the same text `perf script` / `trace-cmd report` print.
//
//   6.x / 4.14+:  (prev_state & (TASK_REPORT_MAX-1)) ? __print_flags(..., "|",
//                   {0x01,"S"},{0x02,"D"},{0x04,"T"},{0x08,"t"},{0x10,"X"},{0x20,"Z"},
//                   {0x40,"P"},{0x80,"I"}) : "R",
//                 prev_state & TASK_REPORT_MAX ? "+" : ""          (TASK_REPORT_MAX = 0x100)
//   4.x (<4.14):  {1,"S"},{2,"D"},{4,"T"},{8,"t"},{16,"X"},{32,"Z"},{64,"x"},{128,"K"},
//                 {256,"W"},{512,"P"},{1024,"N"}, "+" for TASK_STATE_MAX (2048)
//   3.x:          {1,"S"},{2,"D"},{4,"T"},{8,"t"},{16,"Z"},{32,"X"},{64,"x"},{128,"W"}
//
// The table and the masks come from the print fmt text (state_layout.h), evaluated by tk.
// Without that text (a tep_handle the caller parsed), libtraceevent's printer evaluates the
// format on a synthetic record holding only the value (once per distinct value); if neither
// works, the 6.x layout above is used.
#ifndef TK_PARSERS_TEP_PREV_STATE_H_
#define TK_PARSERS_TEP_PREV_STATE_H_

#include <array>
#include <bitset>
#include <cstdint>
#include <optional>
#include <string_view>

#include "absl/container/flat_hash_map.h"
#include "core/task_state.h"
#include "parsers/tep/fields.h"
#include "parsers/tep/state_layout.h"

struct tep_event;

namespace tk::parsers::tep {

// Letters as printed ("S", "R+", "D|K", "S|0x400") → TaskState; hex leftovers of bits the
// format does not name set TaskState::kOther.
TaskState TaskStateFromPrinted(std::string_view letters);
// The 6.x / 4.14+ bit layout (TASK_REPORT), used when the print format is unusable.
TaskState TaskStateFromReportBits(uint64_t v);

class PrevStateDecoder {
 public:
  // `ev` is a sched_switch format; `field` its prev_state field; `layout` from its print fmt
  // text when the caller has it.
  PrevStateDecoder(struct tep_event* ev, FieldRef field, std::optional<StateLayout> layout)
      : ev_(ev), field_(field), layout_(std::move(layout)) {}
  // Memoised: values below kSmall (every state a kernel reports, R+ included) from an
  // array, others from a bounded map.
  TaskState Decode(uint64_t value) {
    if (value < kSmall && small_set_[value]) return small_[value];
    return DecodeSlow(value);
  }
  const std::optional<StateLayout>& layout() const { return layout_; }

 private:
  static constexpr uint64_t kSmall = 4096;
  TaskState DecodeSlow(uint64_t value);
  TaskState Compute(uint64_t value);
  bool Print(uint64_t value, TaskState* out);

  struct tep_event* ev_;
  FieldRef field_;
  std::optional<StateLayout> layout_;
  std::array<TaskState, kSmall> small_{};
  std::bitset<kSmall> small_set_;
  absl::flat_hash_map<uint64_t, TaskState> cache_;
};

}  // namespace tk::parsers::tep

#endif  // TK_PARSERS_TEP_PREV_STATE_H_
