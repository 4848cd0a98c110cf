#include "core/task_state.h"

namespace tk {
namespace {

struct LetterBit {
  char c;
  uint16_t bit;
};
constexpr LetterBit kLetters[] = {
    {'S', TaskState::kS}, {'D', TaskState::kD}, {'T', TaskState::kT}, {'t', TaskState::kt},
    {'X', TaskState::kX}, {'Z', TaskState::kZ}, {'P', TaskState::kP}, {'I', TaskState::kI},
    {'K', TaskState::kK}, {'W', TaskState::kW}, {'x', TaskState::kx}, {'N', TaskState::kN},
};

}  // namespace

TaskState TaskState::FromLetters(std::string_view s) {
  TaskState st;
  for (char c : s) {
    if (c == '|' || c == 'R' || c == ' ') continue;
    if (c == '+') {
      st.preempted = true;
      continue;
    }
    bool found = false;
    for (const LetterBit& l : kLetters) {
      if (l.c == c) {
        st.bits |= l.bit;
        found = true;
        break;
      }
    }
    if (!found) st.bits |= kOther;
  }
  if (st.bits != 0) st.preempted = false;
  return st;
}

std::string TaskState::ToString() const {
  if (bits == 0) return preempted ? "R+" : "R";
  std::string s;
  for (const LetterBit& l : kLetters) {
    if (bits & l.bit) {
      if (!s.empty()) s += '|';
      s += l.c;
    }
  }
  if (bits & kOther) {
    if (!s.empty()) s += '|';
    s += '?';
  }
  return s;
}

char TaskState::Letter() const {
  if (bits == 0) return 'R';
  for (const LetterBit& l : kLetters) {
    if (bits & l.bit) return l.c;
  }
  return '?';
}

}  // namespace tk
