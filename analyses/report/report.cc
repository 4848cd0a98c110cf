#include "analyses/report/report.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <thread>
#include <tuple>
#include <utility>

#include "absl/hash/hash.h"
#include "absl/strings/str_split.h"
#include "analyses/fold/frame_name.h"
#include "core/absl_compat.h"

namespace tk::analyses::report {
namespace {

// Stacks of fewer frames are looked up frame by frame without the thread's memo.
constexpr size_t kOuterMemoMinFrames = 4;

// SlowEntry's one step of a table's entries: from kGrowAt to room for kReserveEntries, address
// space whose pages are touched in order as entries come. (The maps grow as absl grows them:
// reserving their slots early touches pages at random, +9 MB of RSS for --no-children's 11K
// entries on perf-a-g.data; what it saved the worker, 176M -> 163M instructions, came from the
// emptier table's probes, a reserve late (at 32K) saved nothing.) 1M entries (104 MB of
// address space, untouched until used): cc20k.data's 134K entries passed the former 128K and
// the doubling copied 13.6 MB into fresh pages on the worker (~7% of its CPU, perf record).
constexpr size_t kGrowAt = 4096;
constexpr size_t kReserveEntries = size_t{1} << 20;

// Kernel addresses on x86-64 and arm64 start at the top half.
constexpr uint64_t kKernelStart = 0xffff800000000000ull;

struct Name {
  const char* name;
  bool is_key;
  Key key;
  Value value;
};
constexpr Name kNames[] = {
    {"comm", true, Key::kComm, Value::kOverhead},
    {"pid", true, Key::kPid, Value::kOverhead},
    {"dso", true, Key::kDso, Value::kOverhead},
    {"sym", true, Key::kSym, Value::kOverhead},
    {"symbol", true, Key::kSym, Value::kOverhead},
    {"cpu", true, Key::kCpu, Value::kOverhead},
    {"overhead", false, Key::kComm, Value::kOverhead},
    {"overhead_children", false, Key::kComm, Value::kChildren},
    {"sample", false, Key::kComm, Value::kSamples},
    {"period", false, Key::kComm, Value::kPeriod},
};

// "[unknown]", by its size first (a call to compare otherwise, on every frame).
bool IsUnknown(std::string_view s) {
  return s.size() == 9 && std::memcmp(s.data(), "[unknown]", 9) == 0;
}

bool Resolved(const Frame& f) { return !IsUnknown(f.symbol) && !f.symbol.empty(); }

// A resolved frame's symbol start (Frame::ip is DSO-relative for ELF DSOs, absolute for the
// kernel; 0 without an offset, as in text inputs); an unresolved frame's address.
uint64_t SymbolAddress(const Frame& f) {
  if (!Resolved(f)) return f.ip;
  return f.sym_offset >= 0 ? f.ip - static_cast<uint64_t>(f.sym_offset) : 0;
}

}  // namespace

bool ParseColumns(std::string_view list, bool allow_values, std::vector<Column>* out,
                  std::string* bad) {
  for (absl::string_view part : absl::StrSplit(AV(list), ',', absl::SkipEmpty())) {
    const Name* found = nullptr;
    for (const Name& n : kNames) {
      if (SV(part) == n.name && (n.is_key || allow_values)) found = &n;
    }
    if (!found) {
      *bad = std::string(part);
      return false;
    }
    out->push_back(Column{found->is_key, found->value, found->key});
  }
  return true;
}

std::string_view ShortDso(std::string_view dso) {
  if (!dso.empty() && dso[0] == '[') return dso;
  size_t slash = dso.rfind('/');
  return slash == std::string_view::npos ? dso : dso.substr(slash + 1);
}

bool IsKernelFrame(const Frame& f) {
  if (IsUnknown(f.dso)) return f.ip >= kKernelStart;
  // User-space maps with bracketed names (stackcollapse's --kernel counts them as kernel).
  if (f.dso == "[vdso]" || f.dso == "[vsyscall]" || f.dso == "[uprobes]") return false;
  return fold::IsKernelDso(f.dso);
}

ReportSink::ReportSink(ReportOptions opt) : opt_(std::move(opt)) {
  keys_ = opt_.sort;
  if (!opt_.fields.empty()) {
    keys_.clear();
    for (const Column& c : opt_.fields)
      if (c.is_key) keys_.push_back(c.key);
  }
  for (Key k : keys_) {
    key_comm_ |= k == Key::kComm;
    key_pid_ |= k == Key::kPid;
    key_dso_ |= k == Key::kDso;
    key_sym_ |= k == Key::kSym;
    key_cpu_ |= k == Key::kCpu;
  }
  for (const std::string& s : opt_.comms) comms_.insert(s);
  for (const std::string& s : opt_.dsos) dsos_.insert(s);
  for (const std::string& s : opt_.symbols) symbols_.insert(s);
}

ReportSink::~ReportSink() { StopWorker(); }

// As perf: Children only when the file has callchains, whatever the option says.
bool ReportSink::children() const { return saw_callchain_ && opt_.children.value_or(true); }

namespace {

// a == b, without a memcmp call for names of 8 to 16 bytes (event names mostly are: every
// sample compares its name with the last table's): two overlapping 8-byte words.
bool SameName(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  if (a.size() < 8 || a.size() > 16) return a == b;
  uint64_t a0, a1, b0, b1;
  std::memcpy(&a0, a.data(), 8);
  std::memcpy(&b0, b.data(), 8);
  std::memcpy(&a1, a.data() + a.size() - 8, 8);
  std::memcpy(&b1, b.data() + b.size() - 8, 8);
  return ((a0 ^ b0) | (a1 ^ b1)) == 0;
}

}  // namespace

Table& ReportSink::TableFor(std::string_view name) {
  if (last_table_ && SameName(last_table_->event, name)) return *last_table_;
  for (auto& t : tables_) {
    if (t->event == name) return *(last_table_ = t.get());
  }
  tables_.push_back(std::make_unique<Table>());
  tables_.back()->event = std::string(name);
  return *(last_table_ = tables_.back().get());
}

bool ReportSink::LevelOf(const Frame& f, bool stable) {
  if (!stable || f.dso.empty() || IsUnknown(f.dso)) return IsKernelFrame(f);
  // A mapped frame's level is its DSO's (IsKernelFrame reads nothing else then).
  const uintptr_t slot = reinterpret_cast<uintptr_t>(f.dso.data()) >> 4;
  DsoLevel& d = dso_levels_[slot % dso_levels_.size()];
  if (d.data != f.dso.data() || d.size != f.dso.size())
    d = {f.dso.data(), f.dso.size(), IsKernelFrame(f)};
  return d.kernel;
}

// A sample's comm/tid/cpu as an id, so a frame's key holds one word for them. Consecutive
// samples of one thread skip the lookup.
uint64_t ReportSink::ContextOf(const Event& e) {
  ContextKey c{};
  if (key_comm_) {
    c.comm = e.comm.data();
    c.comm_len = static_cast<uint32_t>(e.comm.size());
  }
  if (key_pid_) c.tid = e.tid;
  if (key_cpu_) c.cpu = e.cpu;
  if (last_context_id_ != ~0ull && c == last_context_) return last_context_id_;
  auto [it, added] = contexts_.try_emplace(c, static_cast<uint32_t>(contexts_.size()));
  if (added) context_comm_.push_back(key_comm_ ? strings_.Intern(e.comm) : std::string_view());
  last_context_ = c;
  return last_context_id_ = it->second;
}

// The entry key packs only the sort keys' parts, so entries differing elsewhere merge. A
// resolved symbol is keyed by its start too (two static functions of one name are two
// entries), an unresolved one by its address, as perf's sort__sym_cmp does.
// `sample_kernel`: the sample's level, which a frame outside every map takes (perf 6.1's
// fill_callchain_info sets the level only for frames inside a map). A mapped frame's level
// follows from its DSO, computed only when its entry is made.
uint32_t ReportSink::EntryFor(Table& t, uint64_t ctx, const Event& e, const Frame& f,
                              bool sample_kernel) {
  const bool unmapped = IsUnknown(f.dso);
  if (!e.stable_views) return SlowEntry(t, 0, e, f, unmapped ? sample_kernel : IsKernelFrame(f));
  // An unresolved frame under a sym key is keyed by its address, so its FrameKey finds no
  // more than the content key does: it goes to the content index alone. On cc20k.data
  // (perf -a -g under a g++ load) 126K of the 134K entries are unresolved addresses (cc1plus
  // without frame pointers), each in both maps before: the fast map held 135K keys where it
  // now holds 8K (cache-resident), and a new address costs one insert, not two.
  if (key_sym_ && !Resolved(f)) return UnresolvedEntry(t, ctx, e, f, sample_kernel);
  // Only the parts the sort keys use, so the cache never splits what the keys merge.
  FrameKey k{ctx << 1 | (unmapped && sample_kernel), nullptr, nullptr, 0};
  if (key_dso_ || key_sym_) k.dso = f.dso.data();
  if (key_sym_) {
    // A resolved symbol's name is one view of its symbol table.
    k.sym = f.symbol.data();
    k.addr = SymbolAddress(f);
  }
  auto [it, added] = t.fast.try_emplace(k, 0);
  if (added) it->second = SlowEntry(t, ctx, e, f, unmapped ? sample_kernel : LevelOf(f, true));
  return it->second;
}

// `sym` is empty exactly when the frame is unresolved (a resolved frame's name is not).
EntryKey ReportSink::KeyOf(std::string_view comm, std::string_view dso, std::string_view sym,
                           uint64_t addr, int32_t tid, int32_t cpu) const {
  EntryKey k{};
  if (key_comm_) k.comm = comm.data();
  if (key_pid_) k.tid = tid;
  // A symbol's start is relative to its DSO: the DSO is part of a symbol's key (perf's
  // sort__sym_cmp; an unresolved frame is its address alone).
  if (key_dso_ || (key_sym_ && !sym.empty())) k.dso = dso.data();
  if (key_sym_) {
    k.sym = sym.data();
    k.addr = addr;
  }
  if (key_cpu_) k.cpu = cpu;
  return k;
}

// Stable views (perf.data) find their interned copies by the view's address: the context's
// comm (when comm is a sort key, the context's comm is this sample's), and per DSO and symbol
// view a small map, so an entry made under a second comm hashes no string.
uint32_t ReportSink::SlowEntry(Table& t, uint64_t ctx, const Event& e, const Frame& f,
                               bool kernel) {
  const bool resolved = Resolved(f);
  std::string_view comm, dso, sym;
  if (e.stable_views) {
    comm = key_comm_ ? context_comm_[ctx] : strings_.Intern(e.comm);
    dso = InternedDso(f.dso);
    if (resolved) {
      auto [y, new_sym] = interned_views_.try_emplace(ViewKey{f.symbol.data(), f.symbol.size()});
      if (new_sym) y->second = strings_.Intern(f.symbol);
      sym = y->second;
    }
  } else {
    comm = strings_.Intern(e.comm);
    dso = strings_.Intern(ShortDso(f.dso));
    if (resolved) sym = strings_.Intern(f.symbol);
  }
  const EntryKey k = KeyOf(comm, dso, sym, SymbolAddress(f), e.tid, e.cpu);
  const auto [id, added] = IndexFind(t, k);
  if (added) {
    // One jump in capacity instead of doublings that copied and re-faulted a large table's
    // ~10 MB of entries at every step, on the worker's critical path. A small input stays below
    // it and pays nothing.
    if (t.entries.size() == kGrowAt) t.entries.reserve(kReserveEntries);
    Entry en;
    en.comm = comm;
    en.dso = dso;
    en.sym = sym;
    en.addr = SymbolAddress(f);
    en.tid = e.tid;
    en.cpu = e.cpu;
    en.kernel = kernel;  // the first sample to make the entry decides, as in perf
    t.entries.push_back(en);
  }
  return id;
}

std::string_view ReportSink::InternedDso(std::string_view view) {
  DsoName& d = dso_names_[(reinterpret_cast<uintptr_t>(view.data()) >> 4) % dso_names_.size()];
  if (d.data != view.data() || d.size != view.size() || d.name.data() == nullptr) {  // or unset
    auto [it, added] = interned_views_.try_emplace(ViewKey{view.data(), view.size(), true});
    if (added) it->second = strings_.Intern(ShortDso(view));
    d = {view.data(), view.size(), it->second};
  }
  return d.name;
}

// SlowEntry's work for an unresolved frame without its symbol's views, and the level only
// for a new entry (on cc20k.data 400K lookups, 126K new).
uint32_t ReportSink::UnresolvedEntry(Table& t, uint64_t ctx, const Event& e, const Frame& f,
                                     bool sample_kernel) {
  const std::string_view dso = InternedDso(f.dso);
  const std::string_view comm = key_comm_ ? context_comm_[ctx] : std::string_view();
  const auto [id, added] = IndexFind(t, KeyOf(comm, dso, {}, f.ip, e.tid, e.cpu));
  if (added) {
    if (t.entries.size() == kGrowAt) t.entries.reserve(kReserveEntries);  // as SlowEntry
    Entry en;
    en.comm = key_comm_ ? comm : strings_.Intern(e.comm);
    en.dso = dso;
    en.addr = f.ip;
    en.tid = e.tid;
    en.cpu = e.cpu;
    en.kernel = IsUnknown(f.dso) ? sample_kernel : LevelOf(f, true);
    t.entries.push_back(en);
  }
  return id;
}

std::pair<uint32_t, bool> ReportSink::IndexFind(Table& t, const EntryKey& k) const {
  const uint64_t h = absl::Hash<EntryKey>()(k);
  const IndexProbe probe{k, static_cast<uint32_t>(h >> 32 ^ h), this, &t.entries};
  bool added = false;
  auto it = t.index.lazy_emplace(probe, [&](const auto& make) {
    added = true;
    make(IndexSlot{static_cast<uint32_t>(t.entries.size()), probe.hash});
  });
  return {it->id, added};
}

absl::Status ReportSink::OnEvent(const Event& e) {
  if (e.kind() != EventKind::kSample) {  // samples first: nearly every event is one
    if (const Lost* l = std::get_if<Lost>(&e.body)) {
      if (l->kind == Lost::Kind::kLostSamples) lost_samples_ += l->count;
    } else if (const Comm* c = std::get_if<Comm>(&e.body)) {
      thread_comm_[c->tid] = thread_strings_.Intern(c->comm);
    }
    return absl::OkStatus();
  }
  if (key_pid_) {
    std::string_view& last = thread_comm_[e.tid];
    if (last != e.comm) last = thread_strings_.Intern(e.comm);
  }
  Table& t = TableFor(e.name);
  if (opt_.threads >= 2 && e.stable_views) {
    Send(t, e);
  } else {
    if (pipe_) Drain();  // the worker's samples come first
    Accumulate(t, e);
  }
  return absl::OkStatus();
}

// Everything a sample adds, from the fields the worker's copy keeps: comm, tid, cpu, period,
// stack, dropped_stack_ip, stack_id, stable_views.
void ReportSink::Accumulate(Table& t, const Event& e) {
  const uint64_t period = e.has_period ? e.period : 1;
  ++t.samples;
  t.period += period;
  ++sample_no_;
  const bool children = opt_.children != false;
  const uint64_t ctx = e.stable_views ? ContextOf(e) : 0;
  StackKey memo_key{ctx, e.stack_id};
  if (e.stack_id != 0) {
    if (!e.stable_views) memo_key.ctx = MemoContextOf(e);
    if (AddRemembered(t, memo_key, period)) return;
  }
  static const Frame kNone{0, "[unknown]", "[unknown]"};
  const Frame& leaf = !e.stack.empty()              ? e.stack[0]
                      : !e.dropped_stack_ip.empty() ? e.dropped_stack_ip[0]
                                                    : kNone;
  // The sample's mode: its leaf's level (outside every map ("[unknown]") the ip decides).
  const bool kernel = LevelOf(leaf, e.stable_views);
  const size_t n = e.stack.size();
  // Entries from the outermost frame in: the memo's first, then by lookup. A frame outside
  // every map takes the sample's level: [k] under a kernel leaf even for a user address, as
  // perf 6.1 prints it (tests/report/parity_test.cc, a.data).
  // Shallow stacks skip the thread's memo: its probe and update cost more than the frames it
  // can save (perf -a -g of code without frame pointers: 2.9 frames a sample, 23K of 360K
  // probes saved for 27M instructions). The memo keeps the thread's last deep stack, whose
  // entries are still this context's.
  const bool outer_memo = children && e.stable_views && n >= kOuterMemoMinFrames;
  const size_t same = outer_memo ? SameOuterFrames(e, t, ctx, kernel) : 0;
  ids_.resize(n);
  for (size_t d = 0; d < n; ++d) {
    if (d < same) {
      ids_[n - 1 - d] = memo_->frames[d].entry;
    } else if (children || d + 1 == n) {
      ids_[n - 1 - d] = EntryFor(t, ctx, e, e.stack[n - 1 - d], kernel);
    }
  }
  const uint32_t self_id = n ? ids_[0] : EntryFor(t, ctx, e, leaf, kernel);
  Entry& self = t.entries[self_id];
  self.self_period += period;
  ++self.self_samples;
  if (n >= 2) saw_callchain_ = true;
  added_.clear();
  if (children) {
    if (outer_memo && same < n) Remember(e, t, ctx, kernel, same, ids_);
    if (n == 0) {
      self.children_period += period;
      self.last_sample = sample_no_;
      added_.push_back(self_id);
    }
    for (uint32_t id : ids_) {
      Entry& en = t.entries[id];
      if (en.last_sample == sample_no_) continue;  // recursion: once per sample
      en.last_sample = sample_no_;
      en.children_period += period;
      added_.push_back(id);
    }
  }
  if (e.stack_id != 0) RememberStack(t, memo_key, self_id);
}

uint64_t ReportSink::MemoContextOf(const Event& e) {
  // Text inputs: the comm's view is a line buffer's; the key holds its interned copy. A run
  // of one thread's samples compares the comm's bytes with the last key's instead.
  ContextKey c{};
  if (key_pid_) c.tid = e.tid;
  if (key_cpu_) c.cpu = e.cpu;
  if (memo_last_id_ != ~0ull && c.tid == memo_last_.tid && c.cpu == memo_last_.cpu &&
      (!key_comm_ || e.comm == std::string_view(memo_last_.comm, memo_last_.comm_len)))
    return memo_last_id_;
  if (key_comm_) {
    const std::string_view comm = strings_.Intern(e.comm);
    c.comm = comm.data();
    c.comm_len = static_cast<uint32_t>(comm.size());
  }
  auto [it, added] = memo_contexts_.try_emplace(c, static_cast<uint32_t>(memo_contexts_.size()));
  memo_last_ = c;
  return memo_last_id_ = uint64_t{1} << 63 | it->second;  // apart from ContextOf's ids
}

bool ReportSink::AddRemembered(Table& t, const StackKey& k, uint64_t period) {
  auto it = t.stacks.find(k);
  if (it == t.stacks.end()) return false;
  const uint32_t* p = t.stack_ids.data() + it->second;
  const uint32_t n = p[0];
  Entry& self = t.entries[p[1]];
  self.self_period += period;
  ++self.self_samples;
  for (const uint32_t* id = p + 2; id != p + 2 + n; ++id) t.entries[*id].children_period += period;
  return true;
}

// The sample's Self entry and the entries it added Children to (added_, each once).
void ReportSink::RememberStack(Table& t, const StackKey& k, uint32_t self_id) {
  if (t.stack_ids.size() >= kMaxMemoIds) return;
  if (!t.stacks.try_emplace(k, static_cast<uint32_t>(t.stack_ids.size())).second) return;
  t.stack_ids.push_back(static_cast<uint32_t>(added_.size()));
  t.stack_ids.push_back(self_id);
  t.stack_ids.insert(t.stack_ids.end(), added_.begin(), added_.end());
}

size_t ReportSink::SameOuterFrames(const Event& e, const Table& t, uint64_t ctx, bool kernel) {
  memo_ = &memos_[e.tid];
  if (memo_->table != &t || memo_->ctx != ctx || memo_->kernel != kernel) return 0;
  const size_t n = e.stack.size(), m = std::min(n, memo_->frames.size());
  size_t d = 0;
  while (d < m && memo_->frames[d] == e.stack[n - 1 - d]) ++d;
  return d;
}

void ReportSink::Remember(const Event& e, const Table& t, uint64_t ctx, bool kernel, size_t same,
                          const std::vector<uint32_t>& ids) {
  StackMemo& m = *memo_;
  if (m.table != &t || m.ctx != ctx || m.kernel != kernel) same = 0;
  m.table = &t;
  m.ctx = ctx;
  m.kernel = kernel;
  const size_t n = e.stack.size();
  m.frames.resize(n);
  for (size_t d = same; d < n; ++d) {
    const Frame& f = e.stack[n - 1 - d];
    m.frames[d] = MemoFrame{f.ip,
                            f.dso.data(),
                            f.symbol.data(),
                            static_cast<uint32_t>(f.dso.size()),
                            static_cast<uint32_t>(f.symbol.size()),
                            ids[n - 1 - d]};
  }
}

uint64_t ReportSink::samples() const {
  uint64_t n = 0;
  for (const auto& t : tables_) n += t->samples;
  return n;
}

void ReportSink::Merge(ReportSink& part) {
  part.StopWorker();
  lost_samples_ += part.lost_samples_;
  saw_callchain_ |= part.saw_callchain_;
  // The memos key frames by the part's parser's views, which die with the part.
  for (auto& t : part.tables_) {
    t->fast = {};
    t->stacks = {};
    t->stack_ids = {};
  }
  if (tables_.empty() && thread_comm_.empty()) {
    // Nothing here yet (the first part): its tables, and the strings they view, as they are.
    std::swap(strings_, part.strings_);
    std::swap(thread_strings_, part.thread_strings_);
    tables_.swap(part.tables_);
    thread_comm_.swap(part.thread_comm_);
    last_table_ = nullptr;
    return;
  }
  for (const auto& [tid, comm] : part.thread_comm_)
    thread_comm_[tid] = thread_strings_.Intern(comm);
  // The part's strings as this sink's: interned, so a view's address names its content, and
  // each is looked up here once. Entries of one comm and DSO come in runs.
  absl::flat_hash_map<const char*, std::string_view> mine;
  mine.reserve(part.strings_.size());
  struct Last {
    const char* part = nullptr;
    std::string_view mine;
  } last_comm, last_dso, last_sym;
  auto map = [&](std::string_view v, Last* last) {
    if (v.data() == nullptr) return v;  // an unresolved symbol
    if (v.data() != last->part) {
      auto [it, added] = mine.try_emplace(v.data());
      if (added) it->second = strings_.Intern(v);
      last->part = v.data();
      last->mine = it->second;
    }
    return last->mine;
  };
  for (const auto& pt : part.tables_) {
    Table& t = TableFor(pt->event);
    t.samples += pt->samples;
    t.period += pt->period;
    t.entries.reserve(t.entries.size() + pt->entries.size());
    t.index.reserve(t.index.size() + pt->entries.size());
    for (const Entry& pe : pt->entries) {
      const std::string_view comm = map(pe.comm, &last_comm), dso = map(pe.dso, &last_dso),
                             sym = map(pe.sym, &last_sym);
      const EntryKey k = KeyOf(comm, dso, sym, pe.addr, pe.tid, pe.cpu);
      const auto [id, added] = IndexFind(t, k);
      if (added) {
        Entry& en = t.entries.emplace_back(pe);
        en.comm = comm;
        en.dso = dso;
        en.sym = sym;
        en.last_sample = 0;
      } else {
        Entry& en = t.entries[id];
        en.self_period += pe.self_period;
        en.self_samples += pe.self_samples;
        en.children_period += pe.children_period;
      }
    }
  }
  part.tables_.clear();
}

std::unique_ptr<EventSink> ReportParts::NewPart() {
  ReportOptions o = out_.options();
  o.threads = 1;
  return std::make_unique<ReportSink>(std::move(o));
}

void ReportParts::MergePart(EventSink& part) { out_.Merge(static_cast<ReportSink&>(part)); }

std::string_view ReportSink::ThreadComm(const Entry& en) const {
  auto it = thread_comm_.find(en.tid);
  return it == thread_comm_.end() ? en.comm : it->second;
}

bool ReportSink::Kept(const Entry& en) const {
  if (!comms_.empty() && !comms_.contains(en.comm)) return false;
  if (!dsos_.empty() && !dsos_.contains(en.dso)) return false;
  if (!symbols_.empty() && (en.sym.empty() || !symbols_.contains(en.sym))) return false;
  return true;
}

}  // namespace tk::analyses::report
