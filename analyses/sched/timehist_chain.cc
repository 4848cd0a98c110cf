#include "analyses/sched/timehist_chain.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "analyses/sched/perf_format.h"

namespace tk::sched {

bool IsSchedulerFunction(std::string_view symbol) {
  return symbol == "schedule" || symbol == "__schedule" || symbol == "preempt_schedule";
}

namespace {

constexpr std::string_view kUnknown = "[unknown]";

// A frame of a user-space mapping (an ELF path, a JIT map, the vdso), which perf 6.1's
// timehist never maps (it ignores MMAP2). Kernel frames are "[kernel.kallsyms]", "[module]"
// or a KSYMBOL's name.
bool IsUserFrame(const Frame& f) {
  return f.dso.starts_with("/") || f.dso == "[vdso]" || f.dso == "[vdso32]" ||
         f.dso == "[vsyscall]";
}

}  // namespace

void ChainFrames(absl::Span<const Frame> stack, uint32_t max_stack, bool perf61,
                 std::vector<ChainFrame>* out) {
  out->clear();
  // perf 6.1: thread__resolve_callchain(..., max_stack + 2), whatever is skipped afterwards.
  const size_t window = perf61 ? std::min<size_t>(stack.size(), size_t{max_stack} + 2)
                               : stack.size();
  uint32_t shown = 0;
  for (size_t i = 0; i < window; ++i) {
    if (!perf61 && shown >= max_stack) break;
    const Frame& f = stack[i];
    ChainFrame c;
    c.ip = f.ip;
    c.resolved = f.symbol != kUnknown && !f.symbol.empty() && !(perf61 && IsUserFrame(f));
    c.name = c.resolved ? f.symbol : kUnknown;
    c.ignored = c.resolved && IsSchedulerFunction(c.name);
    shown += !c.ignored;
    out->push_back(c);
  }
}

bool SameColumn(const std::vector<ChainFrame>& a, const std::vector<ChainFrame>& b) {
  auto next = [](const std::vector<ChainFrame>& v, size_t i) {
    while (i < v.size() && v[i].ignored) ++i;
    return i;
  };
  size_t i = next(a, 0), j = next(b, 0);
  for (; i < a.size() && j < b.size(); i = next(a, i + 1), j = next(b, j + 1))
    if (a[i].name != b[j].name) return false;
  return i == a.size() && j == b.size();
}

void AppendChainColumn(std::string* out, const std::vector<ChainFrame>& chain) {
  *out += "  ";
  bool first = true;
  for (const ChainFrame& c : chain) {
    if (c.ignored) continue;
    *out += first ? " " : " <- ";
    *out += c.name;
    first = false;
  }
}

void AppendChainJson(std::string* out, const std::vector<ChainFrame>& chain) {
  *out += '[';
  bool first = true;
  for (const ChainFrame& c : chain) {
    if (c.ignored) continue;
    if (!first) *out += ',';
    JsonString(out, c.name);
    first = false;
  }
  *out += ']';
}

void IdleChains::Save(const std::vector<ChainFrame>& chain) {
  // perf keeps the copy only when it has frames (itr->cursor.nr); its chains merge by
  // function (the symbol, else the address), and print an unresolved frame as its address.
  current_.clear();
  current_frames_.clear();
  has_current_ = !chain.empty();
  for (const ChainFrame& c : chain) {
    std::string name = c.resolved ? std::string(c.name) : absl::StrCat("0x", absl::Hex(c.ip));
    absl::StrAppend(&current_, name, "\n");
    if (!c.ignored) current_frames_.push_back(std::move(name));
  }
}

void IdleChains::Charge(uint64_t ns) {
  if (!has_current_) return;
  auto [it, added] = by_chain_.try_emplace(current_);
  if (added) {
    it->second.frames = current_frames_;
    it->second.order = by_chain_.size();
  }
  it->second.hit += ns;
  ++it->second.count;
}

std::vector<const IdleChains::Entry*> IdleChains::Sorted() const {
  std::vector<const Entry*> rows;
  for (const auto& [key, e] : by_chain_) rows.push_back(&e);
  std::sort(rows.begin(), rows.end(), [](const Entry* a, const Entry* b) {
    return a->hit != b->hit ? a->hit > b->hit : a->order < b->order;
  });
  return rows;
}

void IdleChains::Append(std::string* out) const {
  AppendF(out, "  %16s  %8s  %s\n", "Idle time (msec)", "Count", "Callchains");
  AppendF(out, "  %s  %s  %s\n", std::string(16, '-').c_str(), std::string(8, '-').c_str(),
          std::string(50, '-').c_str());
  for (const Entry* e : Sorted()) {
    *out += "  ";
    AppendSchedTime(out, e->hit, 12);
    AppendF(out, " %8d  ", static_cast<int>(e->count));
    *out += absl::StrJoin(e->frames, " <- ");
    *out += '\n';
  }
}

}  // namespace tk::sched
