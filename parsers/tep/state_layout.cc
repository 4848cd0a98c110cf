#include "parsers/tep/state_layout.h"

#include <cctype>
#include <charconv>

namespace tk::parsers::tep {
namespace {

// Recursive descent over C's precedence: | ^ & (<< >>) (+ -) unary primary. Unsigned
// arithmetic (wraps, no UB); shifts of 64 or more fail.
class Eval {
 public:
  explicit Eval(std::string_view s) : s_(s) {}

  std::optional<uint64_t> Run() {
    std::optional<uint64_t> v = Or();
    Skip();
    if (!v || pos_ != s_.size()) return std::nullopt;
    return v;
  }

 private:
  void Skip() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t')) ++pos_;
  }
  bool Eat(std::string_view op) {
    Skip();
    if (s_.substr(pos_, op.size()) != op) return false;
    pos_ += op.size();
    return true;
  }
  std::optional<uint64_t> Or() {
    auto v = Xor();
    while (v && Peek('|')) {
      ++pos_;
      auto r = Xor();
      if (!r) return std::nullopt;
      *v |= *r;
    }
    return v;
  }
  std::optional<uint64_t> Xor() {
    auto v = And();
    while (v && Peek('^')) {
      ++pos_;
      auto r = And();
      if (!r) return std::nullopt;
      *v ^= *r;
    }
    return v;
  }
  std::optional<uint64_t> And() {
    auto v = Shift();
    while (v && Peek('&')) {
      ++pos_;
      auto r = Shift();
      if (!r) return std::nullopt;
      *v &= *r;
    }
    return v;
  }
  std::optional<uint64_t> Shift() {
    auto v = Add();
    for (;;) {
      if (!v) return v;
      bool left = Eat("<<");
      if (!left && !Eat(">>")) return v;
      auto r = Add();
      if (!r || *r >= 64) return std::nullopt;
      *v = left ? *v << *r : *v >> *r;
    }
  }
  std::optional<uint64_t> Add() {
    auto v = Unary();
    for (;;) {
      if (!v) return v;
      Skip();
      if (pos_ >= s_.size() || (s_[pos_] != '+' && s_[pos_] != '-')) return v;
      char op = s_[pos_++];
      auto r = Unary();
      if (!r) return std::nullopt;
      *v = op == '+' ? *v + *r : *v - *r;
    }
  }
  std::optional<uint64_t> Unary() {
    Skip();
    if (pos_ < s_.size() && s_[pos_] == '~') {
      ++pos_;
      auto v = Unary();
      if (v) *v = ~*v;
      return v;
    }
    if (pos_ < s_.size() && s_[pos_] == '-') {
      ++pos_;
      auto v = Unary();
      if (v) *v = uint64_t{0} - *v;
      return v;
    }
    return Primary();
  }
  std::optional<uint64_t> Primary() {
    Skip();
    if (++depth_ > 64) return std::nullopt;  // "((((((..." bombs
    std::optional<uint64_t> v;
    if (pos_ < s_.size() && s_[pos_] == '(') {
      ++pos_;
      v = Or();
      Skip();
      if (!v || pos_ >= s_.size() || s_[pos_] != ')') return std::nullopt;
      ++pos_;
    } else {
      v = Number();
    }
    --depth_;
    return v;
  }
  std::optional<uint64_t> Number() {
    int base = 10;
    if (s_.substr(pos_, 2) == "0x" || s_.substr(pos_, 2) == "0X") {
      base = 16;
      pos_ += 2;
    }
    uint64_t v = 0;
    auto [ptr, ec] = std::from_chars(s_.data() + pos_, s_.data() + s_.size(), v, base);
    if (ec != std::errc()) return std::nullopt;
    pos_ = ptr - s_.data();
    while (pos_ < s_.size() && (s_[pos_] == 'U' || s_[pos_] == 'L' || s_[pos_] == 'u' ||
                                s_[pos_] == 'l')) {
      ++pos_;  // 1UL
    }
    return v;
  }
  bool Peek(char c) {
    Skip();
    // A single '|' or '&' (not '||' / '&&', which make the expression unsupported).
    return pos_ < s_.size() && s_[pos_] == c &&
           (pos_ + 1 >= s_.size() || s_[pos_ + 1] != c);
  }

  std::string_view s_;
  size_t pos_ = 0;
  int depth_ = 0;
};

// The text from `open` (just after a '(') to its matching ')', or npos.
size_t MatchingParen(std::string_view s, size_t open) {
  int depth = 1;
  bool in_string = false;
  for (size_t i = open; i < s.size(); ++i) {
    char c = s[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '(') {
      ++depth;
    } else if (c == ')' && --depth == 0) {
      return i;
    }
  }
  return std::string_view::npos;
}

// "REC->prev_state & EXPR" → EXPR's value; "REC->prev_state" → all bits.
std::optional<uint64_t> MaskOf(std::string_view arg) {
  size_t amp = arg.find('&');
  if (amp == std::string_view::npos) {
    return arg.find("REC->prev_state") != std::string_view::npos
               ? std::optional<uint64_t>(~uint64_t{0})
               : std::nullopt;
  }
  return EvalConstant(arg.substr(amp + 1));
}

}  // namespace

std::optional<uint64_t> EvalConstant(std::string_view expr) { return Eval(expr).Run(); }

std::optional<StateLayout> ParseStateLayout(std::string_view p) {
  StateLayout l;
  size_t pf = p.find("__print_flags(");
  if (pf == std::string_view::npos) return std::nullopt;
  size_t open = pf + 14;
  size_t close = MatchingParen(p, open);
  if (close == std::string_view::npos) return std::nullopt;
  std::string_view args = p.substr(open, close - open);
  size_t comma = args.find(',');
  if (comma == std::string_view::npos) return std::nullopt;
  std::optional<uint64_t> mask = MaskOf(args.substr(0, comma));
  if (!mask) return std::nullopt;
  l.mask = *mask;
  // { VALUE, "NAME" } pairs.
  for (size_t b = args.find('{'); b != std::string_view::npos; b = args.find('{', b + 1)) {
    size_t e = args.find('}', b);
    if (e == std::string_view::npos) return std::nullopt;
    std::string_view pair = args.substr(b + 1, e - b - 1);
    size_t c = pair.find(',');
    size_t q1 = pair.find('"');
    size_t q2 = q1 == std::string_view::npos ? q1 : pair.find('"', q1 + 1);
    if (c == std::string_view::npos || q2 == std::string_view::npos || q1 < c) {
      return std::nullopt;
    }
    std::optional<uint64_t> v = EvalConstant(pair.substr(0, c));
    if (!v) return std::nullopt;
    l.flags.emplace_back(*v, std::string(pair.substr(q1 + 1, q2 - q1 - 1)));
  }
  if (l.flags.empty()) return std::nullopt;
  // ..., REC->prev_state & EXPR ? "+" : ""
  size_t plus = p.find("? \"+\"", close);
  if (plus != std::string_view::npos) {
    size_t rec = p.rfind("REC->prev_state", plus);
    if (rec == std::string_view::npos || rec < close) return std::nullopt;
    std::string_view cond = p.substr(rec, plus - rec);
    size_t amp = cond.find('&');
    if (amp == std::string_view::npos) return std::nullopt;
    std::optional<uint64_t> bit = EvalConstant(cond.substr(amp + 1));
    if (!bit) return std::nullopt;
    l.preempt_bit = *bit;
  }
  return l;
}

std::string FormatState(const StateLayout& l, uint64_t v) {
  std::string s;
  uint64_t m = v & l.mask;
  if (m == 0) {
    s = "R";
  } else {
    for (const auto& [value, name] : l.flags) {
      if (value == 0 || (m & value) != value) continue;
      if (!s.empty()) s.push_back('|');
      s += name;
      m &= ~value;
    }
    if (m) {
      static constexpr char kHex[] = "0123456789abcdef";
      std::string hex;
      for (; m; m >>= 4) hex.insert(hex.begin(), kHex[m & 15]);
      if (!s.empty()) s.push_back('|');
      s += "0x" + hex;
    }
  }
  if (l.preempt_bit && (v & l.preempt_bit)) s.push_back('+');
  return s;
}

}  // namespace tk::parsers::tep
