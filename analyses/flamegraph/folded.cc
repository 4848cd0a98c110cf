#include "analyses/flamegraph/folded.h"

#include <algorithm>
#include <charconv>
#include <cstring>

#include "analyses/flamegraph/text.h"

namespace tk::analyses::flamegraph {
namespace {

constexpr uint32_t kBlock = UINT32_MAX;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

bool SplitLastCount(std::string_view s, bool unicode, std::string_view* head,
                    std::string_view* count, double* value) {
  size_t i = s.size();
  while (i > 0 && (IsDigit(s[i - 1]) || s[i - 1] == '.')) --i;
  if (i == s.size() || !IsDigit(s[i])) return false;
  std::string_view token = s.substr(i);
  if (std::count(token.begin(), token.end(), '.') > 1) return false;
  size_t ws = PerlSpaceBefore(s, i);
  if (!unicode && ws > 1) ws = 0;
  if (ws == 0) return false;
  *head = s.substr(0, i - ws);
  *count = token;
  *value = 0;
  std::from_chars(token.data(), token.data() + token.size(), *value);
  return true;
}

namespace {

bool SplitCount(std::string_view s, std::string_view* head, std::string_view* count,
                double* value) {
  return SplitLastCount(s, true, head, count, value);
}

// a1+a2 < b1+b2, bytewise (unsigned), without concatenating.
bool ConcatLess(std::string_view a1, std::string_view a2, std::string_view b1,
                std::string_view b2) {
  size_t na = a1.size() + a2.size(), nb = b1.size() + b2.size();
  size_t common = std::min(a1.size(), b1.size());
  if (common) {
    if (int c = std::memcmp(a1.data(), b1.data(), common); c != 0) return c < 0;
  }
  for (size_t i = common; i < na && i < nb; ++i) {
    unsigned char x = i < a1.size() ? a1[i] : a2[i - a1.size()];
    unsigned char y = i < b1.size() ? b1[i] : b2[i - b1.size()];
    if (x != y) return x < y;
  }
  return na < nb;
}

}  // namespace

bool ParseFoldedLine(std::string_view line, FoldedLine* out) {
  std::string_view stack;
  if (!SplitCount(line, &stack, &out->c1_text, &out->c1)) return false;
  out->two = false;
  out->c2_text = {};
  std::string_view inner, c;
  double v;
  if (SplitCount(stack, &inner, &c, &v)) {
    out->two = true;
    out->c2 = out->c1;
    out->c2_text = out->c1_text;
    out->c1 = v;
    out->c1_text = c;
    stack = inner;
  }
  out->stack = stack;
  out->tail = line.substr(stack.size());
  return true;
}

FoldedProfile::FoldedProfile(bool reverse, bool input_order)
    : reverse_(reverse), input_order_(input_order) {}

uint64_t FoldedProfile::AddText(std::string_view text, uint64_t first_line,
                                const std::function<void(uint64_t, std::string_view)>& malformed) {
  uint64_t n = 0;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    uint64_t line_no = first_line + n++;
    if (!AddLine(line, line_no) && malformed) malformed(line_no, line);
  }
  return n;
}

bool FoldedProfile::AddLine(std::string_view line, uint64_t line_no) {
  ++stats_.lines;
  if (!IsValidUtf8(line)) {
    if (stats_.repaired++ == 0 || stats_.first_repaired == 0) stats_.first_repaired = line_no;
    scratch_ = RepairUtf8(line);
    line = scratch_;
  }
  FoldedLine p;
  bool ok = ParseFoldedLine(line, &p);
  std::string reversed;
  if (ok && reverse_) {
    // flamegraph.pl --reverse: join(";", reverse split(";", STACK)) . " C1[ C2]", parsed
    // again (split drops trailing empty frames).
    std::vector<std::string_view> frames;
    for (size_t pos = 0; pos <= p.stack.size() && !p.stack.empty();) {
      size_t semi = p.stack.find(';', pos);
      if (semi == std::string_view::npos) semi = p.stack.size();
      frames.push_back(p.stack.substr(pos, semi - pos));
      pos = semi + 1;
    }
    while (!frames.empty() && frames.back().empty()) frames.pop_back();
    for (size_t i = frames.size(); i-- > 0;) {
      reversed.append(frames[i]);
      if (i) reversed.push_back(';');
    }
    reversed.push_back(' ');
    reversed.append(p.c1_text);
    if (p.two) {
      reversed.push_back(' ');
      reversed.append(p.c2_text);
    }
    ok = ParseFoldedLine(reversed, &p);
  }
  if (!ok) {
    ++stats_.malformed;
    return false;
  }
  AddParsed(p);
  return true;
}

uint32_t FoldedProfile::Intern(std::string_view stack) {
  uint32_t node = FrameTree::kRoot;
  size_t depth = 0;
  bool same = true;
  for (size_t pos = 0; !stack.empty() && pos <= stack.size(); ++depth) {
    size_t semi = stack.find(';', pos);
    if (semi == std::string_view::npos) semi = stack.size();
    std::string_view f = stack.substr(pos, semi - pos);
    pos = semi + 1;
    if (same && depth < prev_path_.size() && tree_.node(prev_path_[depth]).name == f) {
      node = prev_path_[depth];
      continue;
    }
    same = false;
    node = tree_.Child(node, f);
    if (depth < prev_path_.size()) {
      prev_path_[depth] = node;
    } else {
      prev_path_.push_back(node);
    }
  }
  prev_path_.resize(depth);
  return node;
}

void FoldedProfile::AddParsed(const FoldedLine& p) {
  uint32_t leaf = Intern(p.stack);
  estimated_total_ += p.two ? p.c2 : p.c1;
  if (input_order_) {
    tails_.push_back({leaf, 1, {}, p.c1, p.c2, p.two});
    return;
  }
  // The leaf's lines are a list (almost always of one): identical lines count once.
  FrameTree::Node& n = tree_.node(leaf);
  for (uint32_t t = n.user; t != FrameTree::kNone; t = tails_[t].next) {
    if (tails_[t].text == p.tail) {
      ++tails_[t].mult;
      return;
    }
  }
  Tail t{leaf, 1, tree_.Store(p.tail), p.c1, p.c2, p.two, n.user};
  n.user = static_cast<uint32_t>(tails_.size());
  tails_.push_back(t);
}

void FoldedProfile::ForEachLine(const std::function<void(const Tail&)>& fn) const {
  if (input_order_) {
    for (const Tail& t : tails_) fn(t);
    return;
  }
  ReplaySorted(fn);
}

// Sorting whole lines bytewise visits the tree depth first: all lines below "P;c;" are
// contiguous, so among the lines below P they sort as the key "c;" would, and a line ending
// at c ("P;c TAIL") sorts as "c" + TAIL. The items below P (children blocks and children's
// own lines) are sorted by these keys, which reproduces the whole-line order exactly, e.g.
// "foo 5" < "foo.isra.0;x 2" < "foo;y 3" (' ' < '.' < ';') splits foo in two.
void FoldedProfile::ReplaySorted(const std::function<void(const Tail&)>& fn) const {
  struct Item {
    uint32_t node;
    uint32_t tail;  // kBlock: the lines below node
  };
  auto suffix = [&](const Item& it) {
    return it.tail == kBlock ? std::string_view(";") : tails_[it.tail].text;
  };
  auto less = [&](const Item& a, const Item& b) {
    return ConcatLess(tree_.node(a.node).name, suffix(a), tree_.node(b.node).name, suffix(b));
  };
  auto fill_items = [&](uint32_t p, std::vector<Item>* items) {
    items->clear();
    if (p == FrameTree::kRoot) {
      for (uint32_t t = tree_.node(p).user; t != FrameTree::kNone; t = tails_[t].next)
        items->push_back({p, t});
    }
    for (uint32_t c = tree_.node(p).first_child; c != FrameTree::kNone;
         c = tree_.node(c).next_sibling) {
      const FrameTree::Node& n = tree_.node(c);
      if (n.first_child != FrameTree::kNone) items->push_back({c, kBlock});
      for (uint32_t t = n.user; t != FrameTree::kNone; t = tails_[t].next) items->push_back({c, t});
    }
    std::sort(items->begin(), items->end(), less);
  };
  std::vector<std::vector<Item>> levels(1);
  std::vector<size_t> next(1, 0);
  fill_items(FrameTree::kRoot, &levels[0]);
  size_t depth = 0;
  for (;;) {
    if (next[depth] == levels[depth].size()) {
      if (depth == 0) break;
      --depth;
      continue;
    }
    Item it = levels[depth][next[depth]++];
    if (it.tail != kBlock) {
      fn(tails_[it.tail]);
      continue;
    }
    if (++depth == levels.size()) {
      levels.emplace_back();
      next.push_back(0);
    }
    next[depth] = 0;
    fill_items(it.node, &levels[depth]);
  }
}

}  // namespace tk::analyses::flamegraph
