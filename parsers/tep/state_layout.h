// The prev_state letter table of a sched_switch print fmt, read from its text by tk itself:
// libtraceevent's print-expression parser crashes on corrupt formats (NULL dereference on a
// cut expression, division by zero on "R%C->x" — found by fuzzing), so tk never hands it a
// print fmt and evaluates the few constant expressions involved here.
//
//   6.18: (REC->prev_state & ((((0x00000000 | 0x00000001 | ... | 0x00000040) + 1) << 1) - 1))
//           ? __print_flags(REC->prev_state & ((((...) + 1) << 1) - 1), "|",
//                           { 0x00000001, "S" }, ..., { 0x00000080, "I" }) : "R",
//         REC->prev_state & (((0x00000000 | ... | 0x00000040) + 1) << 1) ? "+" : ""
//   4.9 : REC->prev_state & (4096-1) ? __print_flags(REC->prev_state & (4096-1), "|",
//           { 1, "S"} , ..., { 1024, "N" }) : "R", REC->prev_state & 4096 ? "+" : ""
//   3.x : REC->prev_state ? __print_flags(REC->prev_state, "|", { 1, "S"} , ...) : "R"
#ifndef TK_PARSERS_TEP_STATE_LAYOUT_H_
#define TK_PARSERS_TEP_STATE_LAYOUT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tk::parsers::tep {

struct StateLayout {
  std::vector<std::pair<uint64_t, std::string>> flags;  // __print_flags table, in order
  uint64_t mask = ~uint64_t{0};  // the bits __print_flags is given
  uint64_t preempt_bit = 0;      // prints "+" when set; 0 = the format has no "+"
};

// Reads the layout from the print fmt line's text (what follows "print fmt: "); nullopt when it
// does not have the shape above.
std::optional<StateLayout> ParseStateLayout(std::string_view print_fmt);

// What the kernel's print fmt prints for `v`: "S", "R+", "D|K", "S|0x400" (libtraceevent's
// __print_flags: named flags in table order, leftover bits in hex).
std::string FormatState(const StateLayout& layout, uint64_t v);

// Evaluates a constant integer expression of numbers, ( ) | ^ & << >> + - ~ (C precedence);
// nullopt on anything else. Exposed for tests.
std::optional<uint64_t> EvalConstant(std::string_view expr);

}  // namespace tk::parsers::tep

#endif  // TK_PARSERS_TEP_STATE_LAYOUT_H_
