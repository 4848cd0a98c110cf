// Tracepoint text → typed Event: core/kernel_events.h's table, keyed by event name (with and
// without its system), picks the parser (sched_text.cc, block_text.cc, family_text.cc); other
// events become Generic with their "key=value" fields.
#include "parsers/tp_text/tp_text.h"

#include "absl/container/flat_hash_map.h"
#include "core/kernel_events.h"
#include "parsers/tp_text/block_text.h"
#include "parsers/tp_text/family_text.h"
#include "parsers/tp_text/sched_text.h"
#include "parsers/tp_text/text_fields.h"

namespace tk::parsers::tp_text {
namespace {

// System of an event name outside the table, by its unambiguous prefix.
struct Prefix {
  std::string_view prefix, system;
};
constexpr Prefix kPrefixes[] = {
    {"sched_", "sched"},       {"block_", "block"},         {"blk_zone_", "block"},
    {"disk_zone_", "block"},   {"hrtimer_", "timer"},       {"timer_", "timer"},
    {"itimer_", "timer"},      {"workqueue_", "workqueue"}, {"writeback_", "writeback"},
    {"sys_enter_", "syscalls"}, {"sys_exit_", "syscalls"},  {"ext4_", "ext4"},
    {"jbd2_", "jbd2"},         {"xfs_", "xfs"},             {"btrfs_", "btrfs"},
    {"f2fs_", "f2fs"},         {"mm_filemap_", "filemap"},  {"kvm_", "kvm"},
    {"net_dev_", "net"},       {"netif_", "net"},           {"rcu_", "rcu"},
};

// core/kernel_events.h by full and bare name (prefix ones, syscalls:sys_enter_<call>: by
// FindKernelEvent).
struct Table {
  absl::flat_hash_map<std::string_view, const KernelEvent*> by_name;
  Table() {
    for (const KernelEvent& k : KernelEvents()) {
      if (k.prefix) continue;
      by_name[k.name] = &k;
      by_name[k.name.substr(k.name.find(':') + 1)] = &k;
    }
    // The trace file names ftrace:print (trace_marker writes) after its function.
    by_name["tracing_mark_write"] = by_name["ftrace:print"];
  }
};

const Table& GetTable() {
  static const Table* t = new Table();
  return *t;
}

const KernelEvent* Find(std::string_view name) {
  const Table& t = GetTable();
  if (auto it = t.by_name.find(name); it != t.by_name.end()) return it->second;
  // syscalls:sys_enter_<call> / sys_exit_<call>, with or without the system.
  if (name.substr(0, 5) == "sys_e" || name.substr(0, 14) == "syscalls:sys_e")
    return FindKernelEvent(name);
  return nullptr;
}

bool IsKeyChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || IsDigit(c) || c == '_' ||
         c == '.';
}

// A decimal integer that JSON can carry as a number.
bool LooksNumeric(std::string_view v) {
  if (!v.empty() && v[0] == '-') v.remove_prefix(1);
  if (v.empty() || v.size() > 19) return false;
  for (char c : v) {
    if (!IsDigit(c)) return false;
  }
  return true;
}

}  // namespace

// "key=value" pairs of an event tk has no type for:
//   cpu=1
//   filename=/usr/bin/sh pid=8774 old_pid=8774
//   interp=/usr/bin/sh filename=/usr/bin/sh pid=8774 comm=perf-exec
//   comm=Web Content pid=3100 prio=120          (a word without '=' continues the value)
// Returns false (fields cleared) when the text does not start with a key=.
bool ParseKeyValues(std::string_view text, std::vector<Field>* fields) {
  fields->clear();
  size_t pos = 0;
  while (pos < text.size() && text[pos] == ' ') ++pos;
  while (pos < text.size()) {
    size_t end = text.find(' ', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view tok = text.substr(pos, end - pos);
    size_t eq = tok.find('=');
    bool is_pair = eq != std::string_view::npos && eq > 0;
    for (size_t i = 0; is_pair && i < eq; ++i) is_pair = IsKeyChar(tok[i]);
    if (is_pair) {
      fields->push_back(Field{tok.substr(0, eq), tok.substr(eq + 1), false});
    } else if (fields->empty()) {
      return false;
    } else {
      // Extend the previous value to the end of this word.
      Field& f = fields->back();
      f.value = std::string_view(f.value.data(), text.data() + end - f.value.data());
    }
    pos = end;
    while (pos < text.size() && text[pos] == ' ') ++pos;
  }
  for (Field& f : *fields) f.numeric = LooksNumeric(f.value);
  return !fields->empty();
}

std::string_view TracepointTextDecoder::FullName(std::string_view name) {
  if (const KernelEvent* k = Find(name); k && !k->prefix) return k->name;
  if (name.find(':') != std::string_view::npos) return name;
  for (const Prefix& p : kPrefixes) {
    if (name.substr(0, p.prefix.size()) == p.prefix) {
      name_buf_.assign(p.system);
      name_buf_ += ':';
      name_buf_.append(name);
      return name_buf_;
    }
  }
  return name;
}

EventKind TracepointTextDecoder::Kind(std::string_view name) const {
  const KernelEvent* k = Find(name);
  if (!k) return EventKind::kGeneric;
  return !IsFamily(k->kind) || wanted_.Has(k->kind) ? k->kind : EventKind::kGeneric;
}

EventKind TracepointTextDecoder::KindOf(std::string_view name) {
  const KernelEvent* k = Find(name);
  return k ? k->kind : EventKind::kGeneric;
}

// The typed parse of a known event's text; false when the text does not parse.
bool TracepointTextDecoder::DecodeTyped(const KernelEvent& k, std::string_view name,
                                        std::string_view text, Event& e) {
  switch (k.kind) {
    case EventKind::kSchedSwitch:
      if (auto s = ParseSchedSwitch(text)) { e.body = *s; return true; }
      return false;
    case EventKind::kSchedWakeup:
      if (auto w = ParseSchedWakeup(text)) {
        w->kind = static_cast<SchedWakeup::Kind>(k.variant);
        e.body = *w;
        return true;
      }
      return false;
    case EventKind::kSchedMigrate:
      if (auto m = ParseSchedMigrate(text)) { e.body = *m; return true; }
      return false;
    case EventKind::kSchedStat:
      if (auto s = ParseSchedStat(text)) {
        s->which = static_cast<SchedStat::Which>(k.variant);
        e.body = *s;
        return true;
      }
      return false;
    case EventKind::kSchedFork:
      if (auto f = ParseSchedFork(text)) { e.body = *f; return true; }
      return false;
    case EventKind::kSchedExit:
      if (auto x = ParseSchedExit(text)) { e.body = *x; return true; }
      return false;
    case EventKind::kBlockRq:
      if (auto b = ParseBlock(static_cast<BlockStage>(k.variant), text)) { e.body = *b; return true; }
      return false;
    default:
      return ParseFamilyText(k, name, text, e);
  }
}

bool TracepointTextDecoder::Decode(std::string_view name, std::string_view text, Event& e) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  e.info_text = wanted_.info_text() ? text : std::string_view();
  const KernelEvent* k = Find(name);
  e.name = k && !k->prefix ? k->name : FullName(name);
  const bool typed = k && k->kind != EventKind::kGeneric &&
                     (!IsFamily(k->kind) || wanted_.Has(k->kind));
  if (typed && DecodeTyped(*k, name, text, e)) return true;
  // Unknown, untyped or unparsable: Generic, with key=value fields when the text of an
  // event tk has no type for has them.
  if (!typed && ParseKeyValues(text, &fields_)) {
    e.body = Generic{absl::MakeConstSpan(fields_), text};
  } else {
    fields_.clear();
    e.body = Generic{{}, text};
  }
  return !typed;
}

}  // namespace tk::parsers::tp_text
