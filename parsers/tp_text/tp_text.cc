// Tracepoint text → typed Event: a table keyed by event name (with and without its system)
// picks the parser (sched_text.cc, block_text.cc); other events become Generic with their
// "key=value" fields.
#include "parsers/tp_text/tp_text.h"

#include "absl/container/flat_hash_map.h"
#include "core/kernel_events.h"
#include "parsers/tp_text/block_text.h"
#include "parsers/tp_text/family_text.h"
#include "parsers/tp_text/sched_text.h"
#include "parsers/tp_text/text_fields.h"

namespace tk::parsers::tp_text {
namespace {

enum class Kind : uint8_t { kSwitch, kWakeup, kMigrate, kStat, kFork, kExit, kBlock, kNameOnly };

struct Known {
  std::string_view full;  // "sched:sched_switch"
  Kind kind;
  uint8_t arg;  // SchedWakeup::Kind, SchedStat::Which or BlockStage
};

constexpr uint8_t U(SchedWakeup::Kind k) { return static_cast<uint8_t>(k); }
constexpr uint8_t U(SchedStat::Which w) { return static_cast<uint8_t>(w); }
constexpr uint8_t U(BlockStage s) { return static_cast<uint8_t>(s); }

constexpr Known kKnown[] = {
    {"sched:sched_switch", Kind::kSwitch, 0},
    {"sched:sched_wakeup", Kind::kWakeup, U(SchedWakeup::Kind::kWakeup)},
    {"sched:sched_waking", Kind::kWakeup, U(SchedWakeup::Kind::kWaking)},
    {"sched:sched_wakeup_new", Kind::kWakeup, U(SchedWakeup::Kind::kWakeupNew)},
    {"sched:sched_migrate_task", Kind::kMigrate, 0},
    {"sched:sched_stat_runtime", Kind::kStat, U(SchedStat::Which::kRuntime)},
    {"sched:sched_stat_wait", Kind::kStat, U(SchedStat::Which::kWait)},
    {"sched:sched_stat_sleep", Kind::kStat, U(SchedStat::Which::kSleep)},
    {"sched:sched_stat_iowait", Kind::kStat, U(SchedStat::Which::kIowait)},
    {"sched:sched_stat_blocked", Kind::kStat, U(SchedStat::Which::kBlocked)},
    {"sched:sched_process_fork", Kind::kFork, 0},
    {"sched:sched_process_exit", Kind::kExit, 0},
    {"sched:sched_process_free", Kind::kExit, 0},
    {"block:block_bio_queue", Kind::kBlock, U(BlockStage::kBioQueue)},
    {"block:block_getrq", Kind::kBlock, U(BlockStage::kGetRq)},
    {"block:block_sleeprq", Kind::kBlock, U(BlockStage::kSleepRq)},
    {"block:block_rq_insert", Kind::kBlock, U(BlockStage::kInsert)},
    {"block:block_rq_issue", Kind::kBlock, U(BlockStage::kIssue)},
    {"block:block_rq_complete", Kind::kBlock, U(BlockStage::kComplete)},
    {"block:block_rq_requeue", Kind::kBlock, U(BlockStage::kRequeue)},
    {"block:block_rq_merge", Kind::kBlock, U(BlockStage::kRqMerge)},
    {"block:block_bio_backmerge", Kind::kBlock, U(BlockStage::kBackMerge)},
    {"block:block_bio_frontmerge", Kind::kBlock, U(BlockStage::kFrontMerge)},
    {"block:block_bio_remap", Kind::kBlock, U(BlockStage::kBioRemap)},
    {"block:block_rq_remap", Kind::kBlock, U(BlockStage::kRqRemap)},
    {"block:block_bio_complete", Kind::kBlock, U(BlockStage::kBioComplete)},
    {"block:block_bio_bounce", Kind::kBlock, U(BlockStage::kBioBounce)},
    {"block:block_split", Kind::kBlock, U(BlockStage::kSplit)},
    {"block:block_io_start", Kind::kBlock, U(BlockStage::kIoStart)},
    {"block:block_io_done", Kind::kBlock, U(BlockStage::kIoDone)},
    {"block:block_plug", Kind::kBlock, U(BlockStage::kPlug)},
    {"block:block_unplug", Kind::kBlock, U(BlockStage::kUnplug)},
    {"block:block_unplug_io", Kind::kBlock, U(BlockStage::kUnplug)},     // 2.6.3x
    {"block:block_unplug_timer", Kind::kBlock, U(BlockStage::kUnplug)},  // 2.6.3x
    {"block:block_dirty_buffer", Kind::kBlock, U(BlockStage::kDirtyBuffer)},
    {"block:block_touch_buffer", Kind::kBlock, U(BlockStage::kDirtyBuffer)},
    // Events tk has no type for but whose system the text formats omit.
    {"sched:sched_wake_idle_without_ipi", Kind::kNameOnly, 0},
    {"sched:sched_kthread_stop", Kind::kNameOnly, 0},
    {"sched:sched_kthread_stop_ret", Kind::kNameOnly, 0},
    {"sched:sched_process_wait", Kind::kNameOnly, 0},
    {"sched:sched_process_exec", Kind::kNameOnly, 0},
    {"sched:sched_prepare_exec", Kind::kNameOnly, 0},
    {"sched:sched_process_hang", Kind::kNameOnly, 0},
    {"sched:sched_pi_setprio", Kind::kNameOnly, 0},
    {"sched:sched_move_numa", Kind::kNameOnly, 0},
    {"sched:sched_stick_numa", Kind::kNameOnly, 0},
    {"sched:sched_swap_numa", Kind::kNameOnly, 0},
    {"block:block_rq_error", Kind::kNameOnly, 0},
    {"block:block_rq_abort", Kind::kNameOnly, 0},
    {"irq:tasklet_entry", Kind::kNameOnly, 0},
    {"irq:tasklet_exit", Kind::kNameOnly, 0},
    {"power:cpu_idle", Kind::kNameOnly, 0},
    {"power:cpu_frequency", Kind::kNameOnly, 0},
    {"task:task_newtask", Kind::kNameOnly, 0},
    {"task:task_rename", Kind::kNameOnly, 0},
    {"signal:signal_generate", Kind::kNameOnly, 0},
    {"signal:signal_deliver", Kind::kNameOnly, 0},
    {"ftrace:print", Kind::kNameOnly, 0},
    {"ftrace:bprint", Kind::kNameOnly, 0},
    {"ftrace:function", Kind::kNameOnly, 0},
};

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

struct Table {
  absl::flat_hash_map<std::string_view, const Known*> by_name;
  // core/kernel_events.h families by full and bare name (prefix ones: FindFamily).
  absl::flat_hash_map<std::string_view, const KernelEvent*> families;
  Table() {
    for (const Known& k : kKnown) {
      by_name[k.full] = &k;
      by_name[k.full.substr(k.full.find(':') + 1)] = &k;
    }
    for (const KernelEvent& k : KernelEvents()) {
      if (k.prefix) continue;
      families[k.name] = &k;
      families[k.name.substr(k.name.find(':') + 1)] = &k;
    }
    // The trace file names ftrace:print (trace_marker writes) after its function.
    by_name["tracing_mark_write"] = by_name["ftrace:print"];
  }
};

const Table& GetTable() {
  static const Table* t = new Table();
  return *t;
}

const KernelEvent* FindFamily(std::string_view name) {
  const Table& t = GetTable();
  if (auto it = t.families.find(name); it != t.families.end()) return it->second;
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
  const Table& t = GetTable();
  if (auto it = t.by_name.find(name); it != t.by_name.end()) return it->second->full;
  if (const KernelEvent* k = FindFamily(name); k && !k->prefix) return k->name;
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
  if (const KernelEvent* k = FindFamily(name)) {
    return wanted_.Has(k->kind) ? k->kind : EventKind::kGeneric;
  }
  return KindOf(name);
}

EventKind TracepointTextDecoder::KindOf(std::string_view name) {
  const Table& t = GetTable();
  auto it = t.by_name.find(name);
  if (it == t.by_name.end()) {
    const KernelEvent* k = FindFamily(name);
    return k ? k->kind : EventKind::kGeneric;
  }
  switch (it->second->kind) {
    case Kind::kSwitch: return EventKind::kSchedSwitch;
    case Kind::kWakeup: return EventKind::kSchedWakeup;
    case Kind::kMigrate: return EventKind::kSchedMigrate;
    case Kind::kStat: return EventKind::kSchedStat;
    case Kind::kFork: return EventKind::kSchedFork;
    case Kind::kExit: return EventKind::kSchedExit;
    case Kind::kBlock: return EventKind::kBlockRq;
    case Kind::kNameOnly: break;
  }
  return EventKind::kGeneric;
}

bool TracepointTextDecoder::Decode(std::string_view name, std::string_view text, Event& e) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  e.info_text = wanted_.info_text() ? text : std::string_view();
  const Table& t = GetTable();
  auto it = t.by_name.find(name);
  const Known* k = it == t.by_name.end() ? nullptr : it->second;
  e.name = k ? k->full : FullName(name);
  if (const KernelEvent* f = k ? nullptr : FindFamily(name); f && wanted_.Has(f->kind)) {
    if (ParseFamilyText(*f, name, text, e)) return true;
    fields_.clear();
    e.body = Generic{{}, text};
    return false;
  }
  bool ok = true;
  if (k) {
    switch (k->kind) {
      case Kind::kSwitch:
        if (auto s = ParseSchedSwitch(text)) { e.body = *s; return true; }
        ok = false;
        break;
      case Kind::kWakeup:
        if (auto w = ParseSchedWakeup(text)) {
          w->kind = static_cast<SchedWakeup::Kind>(k->arg);
          e.body = *w;
          return true;
        }
        ok = false;
        break;
      case Kind::kMigrate:
        if (auto m = ParseSchedMigrate(text)) { e.body = *m; return true; }
        ok = false;
        break;
      case Kind::kStat:
        if (auto s = ParseSchedStat(text)) {
          s->which = static_cast<SchedStat::Which>(k->arg);
          e.body = *s;
          return true;
        }
        ok = false;
        break;
      case Kind::kFork:
        if (auto f = ParseSchedFork(text)) { e.body = *f; return true; }
        ok = false;
        break;
      case Kind::kExit:
        if (auto x = ParseSchedExit(text)) { e.body = *x; return true; }
        ok = false;
        break;
      case Kind::kBlock:
        if (auto b = ParseBlock(static_cast<BlockStage>(k->arg), text)) { e.body = *b; return true; }
        ok = false;
        break;
      case Kind::kNameOnly:
        break;
    }
  }
  if (ok && ParseKeyValues(text, &fields_)) {
    e.body = Generic{absl::MakeConstSpan(fields_), text};
  } else {
    fields_.clear();
    e.body = Generic{{}, text};
  }
  return ok;
}

}  // namespace tk::parsers::tp_text
