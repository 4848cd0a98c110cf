// The decoder keeps one EventInfo per event id: the event's name, which handler builds its typed
// body, and that handler's fields resolved by name in this recording's format. Handlers read
// fields through FieldReader (bounds-checked, sign-extending) and fill core/event.h types.
#include "parsers/tep/tep_decoder.h"

#include <algorithm>
#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"
#include "parsers/tep/family_decode.h"
#include "parsers/tep/fields.h"
#include "parsers/tep/prev_state.h"
#include "parsers/tep/sched_decode.h"
#include "parsers/tep/state_layout.h"
#include "parsers/tep/tracing_data.h"

extern "C" {
#include <traceevent/event-parse.h>
}

namespace tk::parsers::tep {
namespace {

enum class Handler : uint8_t { kSwitch, kWakeup, kMigrate, kStat, kFork, kExit, kBlock, kGeneric };

// The fields each handler reads, by slot. Block events carry different subsets by kernel and
// by event (dirty_buffer: dev sector size; unplug: nr_rq comm; remap: old_dev old_sector ...).
constexpr int kMaxSlots = 14;
using SlotNames = std::array<const char*, kMaxSlots>;
constexpr SlotNames kSwitchSlots = {"prev_comm", "prev_pid",  "prev_prio", "prev_state",
                                    "next_comm", "next_pid",  "next_prio"};
constexpr SlotNames kWakeupSlots = {"comm", "pid", "prio", "target_cpu", "success"};
constexpr SlotNames kMigrateSlots = {"comm", "pid", "prio", "orig_cpu", "dest_cpu"};
constexpr SlotNames kStatSlots = {"comm", "pid", "runtime", "delay", "vruntime"};
constexpr SlotNames kForkSlots = {"parent_comm", "parent_pid", "child_comm", "child_pid"};
constexpr SlotNames kExitSlots = {"comm", "pid", "prio", "group_dead"};
constexpr SlotNames kBlockSlots = {"dev",   "sector",  "nr_sector", "bytes",      "error",
                                   "errors", "ioprio", "rwbs",      "comm",       "old_dev",
                                   "old_sector", "new_sector", "nr_rq", "size"};
enum BlockSlot {
  kDev, kSector, kNrSector, kBytes, kError, kErrors, kIoprio, kRwbs, kComm, kOldDev,
  kOldSector, kNewSector, kNrRq, kSize,
};

// The handler for a kind of core/kernel_events.h (families have their own decoder).
Handler HandlerFor(EventKind k) {
  switch (k) {
    case EventKind::kSchedSwitch: return Handler::kSwitch;
    case EventKind::kSchedWakeup: return Handler::kWakeup;
    case EventKind::kSchedMigrate: return Handler::kMigrate;
    case EventKind::kSchedStat: return Handler::kStat;
    case EventKind::kSchedFork: return Handler::kFork;
    case EventKind::kSchedExit: return Handler::kExit;
    case EventKind::kBlockRq: return Handler::kBlock;
    default: return Handler::kGeneric;
  }
}

const SlotNames* SlotsFor(Handler h) {
  switch (h) {
    case Handler::kSwitch: return &kSwitchSlots;
    case Handler::kWakeup: return &kWakeupSlots;
    case Handler::kMigrate: return &kMigrateSlots;
    case Handler::kStat: return &kStatSlots;
    case Handler::kFork: return &kForkSlots;
    case Handler::kExit: return &kExitSlots;
    case Handler::kBlock: return &kBlockSlots;
    case Handler::kGeneric: break;
  }
  return nullptr;
}

EventKind KindOf(Handler h) {
  switch (h) {
    case Handler::kSwitch: return EventKind::kSchedSwitch;
    case Handler::kWakeup: return EventKind::kSchedWakeup;
    case Handler::kMigrate: return EventKind::kSchedMigrate;
    case Handler::kStat: return EventKind::kSchedStat;
    case Handler::kFork: return EventKind::kSchedFork;
    case Handler::kExit: return EventKind::kSchedExit;
    case Handler::kBlock: return EventKind::kBlockRq;
    case Handler::kGeneric: break;
  }
  return EventKind::kGeneric;
}

int32_t I32(int64_t v) { return static_cast<int32_t>(v); }
uint32_t U32(int64_t v) { return static_cast<uint32_t>(v); }

// Kernel dev_t (include/linux/kdev_t.h): MINORBITS 20.
void SplitDev(uint64_t dev, uint32_t* major, uint32_t* minor) {
  *major = static_cast<uint32_t>(dev >> 20);
  *minor = static_cast<uint32_t>(dev & 0xfffff);
}

}  // namespace

struct EventInfo {
  struct tep_event* ev = nullptr;
  std::string name;  // "sched:sched_switch"
  Handler handler = Handler::kGeneric;
  uint8_t param = 0;
  int fixed_size = 0;
  FieldRef common_pid;
  std::array<FieldRef, kMaxSlots> slots;
  std::vector<std::pair<const char*, FieldRef>> fields;  // Generic: every non-common field
  std::unique_ptr<PrevStateDecoder> prev_state;
  std::unique_ptr<FamilyInfo> family;  // core/kernel_events.h families
};

struct TepDecoder::Impl {
  struct tep_handle* tep = nullptr;
  TraceEvents* events = nullptr;
  bool big_endian = false;
  EventMask wanted = EventMask::AllTyped();  // families outside it decode as Generic
  // Indexed by common_type (a u16): nullptr = not looked up yet or unknown.
  std::vector<std::unique_ptr<EventInfo>> by_id;
  std::vector<uint8_t> looked_up;
  // Generic output storage, reused per call.
  std::vector<Field> generic;
  std::string text;
  std::vector<std::pair<size_t, size_t>> spans;

  EventInfo* LookupId(int id);
  EventInfo* Lookup(std::string_view raw);
  std::unique_ptr<EventInfo> Build(struct tep_event* ev);
  void DecodeBody(EventInfo& info, const FieldReader& r, Event& e);
  void DecodeBlock(EventInfo& info, const FieldReader& r, Event& e);
  void DecodeGeneric(EventInfo& info, const FieldReader& r, Event& e);
};

std::unique_ptr<EventInfo> TepDecoder::Impl::Build(struct tep_event* ev) {
  auto info = std::make_unique<EventInfo>();
  info->ev = ev;
  std::string_view system = ev->system ? ev->system : "";
  std::string_view name = ev->name ? ev->name : "";
  info->name = absl::StrCat(AV(system), ":", AV(name));
  info->fixed_size = FixedSize(ev);
  info->common_pid = MakeFieldRef(tep_find_common_field(ev, "common_pid"));
  if (const KernelEvent* k = FindKernelEvent(info->name)) {
    if (IsFamily(k->kind)) {
      info->family = std::make_unique<FamilyInfo>(ResolveFamily(*k, ev, info->name));
    } else {
      info->handler = HandlerFor(k->kind);
      info->param = k->variant;
    }
  }
  if (const SlotNames* slots = SlotsFor(info->handler)) {
    for (int i = 0; i < kMaxSlots; ++i) {
      if ((*slots)[i]) info->slots[i] = ResolveField(ev, (*slots)[i]);
    }
  }
  if (info->handler == Handler::kSwitch) {
    std::optional<StateLayout> layout;
    if (events) {
      std::string_view text = events->FormatText(ev->id);
      size_t at = text.find("\nprint fmt: ");
      if (at != std::string_view::npos) {
        std::string_view line = text.substr(at + 12);
        layout = ParseStateLayout(line.substr(0, line.find('\n')));
      }
    }
    info->prev_state = std::make_unique<PrevStateDecoder>(ev, info->slots[3], std::move(layout));
  }
  for (struct tep_format_field* f = ev->format.fields; f; f = f->next) {
    info->fields.emplace_back(f->name, MakeFieldRef(f));
  }
  return info;
}

EventInfo* TepDecoder::Impl::LookupId(int id) {
  if (by_id.empty()) {
    by_id.resize(65536);
    looked_up.resize(65536);
  }
  if (!looked_up[id]) {
    looked_up[id] = 1;
    struct tep_event* ev = events ? events->Find(id) : tep_find_event(tep, id);
    if (ev) by_id[id] = Build(ev);
  }
  return by_id[id].get();
}

EventInfo* TepDecoder::Impl::Lookup(std::string_view raw) {
  // common_type: u16 at offset 0 in every kernel since 2.6.31.
  if (raw.size() < 2) return nullptr;
  EventInfo* info = LookupId(static_cast<int>(LoadUnsigned(raw.data(), 2, NeedsSwap(big_endian))));
  if (!info || raw.size() < static_cast<size_t>(info->fixed_size)) return nullptr;
  return info;
}

void TepDecoder::Impl::DecodeBlock(EventInfo& info, const FieldReader& r, Event& e) {
  const auto& s = info.slots;
  BlockRq b;
  b.stage = static_cast<BlockStage>(info.param);
  if (auto dev = r.UInt(s[kDev])) SplitDev(*dev, &b.major, &b.minor);
  b.sector = r.UInt(s[kSector]).value_or(0);
  b.nr_sector = U32(r.IntOr(s[kNrSector], 0));
  b.bytes = U32(r.IntOr(s[kBytes], r.IntOr(s[kSize], 0)));
  b.error = I32(r.IntOr(s[kError], r.IntOr(s[kErrors], 0)));
  b.ioprio = s[kIoprio].present() ? I32(r.IntOr(s[kIoprio], -1)) : -1;
  b.rwbs = Rwbs::Parse(r.Str(s[kRwbs]));
  b.comm = r.Str(s[kComm]);
  if (auto dev = r.UInt(s[kOldDev])) SplitDev(*dev, &b.old_major, &b.old_minor);
  b.old_sector = r.UInt(s[kOldSector]).value_or(r.UInt(s[kNewSector]).value_or(0));
  b.nr_rq = U32(r.IntOr(s[kNrRq], 0));
  e.body = b;
}

void TepDecoder::Impl::DecodeGeneric(EventInfo& info, const FieldReader& r, Event& e) {
  // Text first (one buffer, may reallocate), then the views into it.
  text.clear();
  spans.clear();
  generic.clear();
  for (const auto& [name, ref] : info.fields) {
    size_t start = text.size();
    bool numeric = AppendFieldText(r, ref, big_endian, &text);
    spans.emplace_back(start, text.size() - start);
    generic.push_back(Field{name, {}, numeric});
  }
  for (size_t i = 0; i < generic.size(); ++i) {
    generic[i].value = std::string_view(text).substr(spans[i].first, spans[i].second);
  }
  e.body = Generic{absl::MakeConstSpan(generic), {}};
}

void TepDecoder::Impl::DecodeBody(EventInfo& info, const FieldReader& r, Event& e) {
  switch (info.handler) {
    case Handler::kBlock:
      DecodeBlock(info, r, e);
      return;
    case Handler::kGeneric:
      DecodeGeneric(info, r, e);
      return;
    default:  // the sched kinds (sched_decode.h)
      DecodeSchedBody(KindOf(info.handler), info.param, info.slots.data(), r,
                      info.prev_state.get(), &e.body);
      return;
  }
}

TepDecoder::TepDecoder(struct tep_handle* tep) : impl_(new Impl) {
  impl_->tep = tep;
  impl_->big_endian = tep_is_file_bigendian(tep);
}

TepDecoder::TepDecoder(TraceEvents* events) : impl_(new Impl) {
  impl_->tep = events->tep();
  impl_->events = events;
  impl_->big_endian = events->big_endian();
}

TepDecoder::~TepDecoder() { delete impl_; }

void TepDecoder::SetWanted(EventMask mask) { impl_->wanted = mask; }

bool TepDecoder::Decode(std::string_view raw, Event& e) {
  EventInfo* info = impl_->Lookup(raw);
  if (!info) return false;
  FieldReader r(raw, impl_->big_endian);
  e.name = info->name;
  if (e.tid == -1) e.tid = I32(r.IntOr(info->common_pid, -1));
  e.info_text = {};  // libtraceevent never sees print formats (tracing_data.h): no rendering
  if (info->family && impl_->wanted.Has(info->family->decl->kind)) {
    DecodeFamily(*info->family, r, impl_->big_endian, e);
  } else {
    impl_->DecodeBody(*info, r, e);
  }
  return true;
}

bool TepDecoder::Classify(std::string_view raw, EventKind* kind) {
  EventInfo* info = impl_->Lookup(raw);
  if (!info) return false;
  *kind = info->family && impl_->wanted.Has(info->family->decl->kind) ? info->family->decl->kind
                                                                     : KindOf(info->handler);
  return true;
}

bool TepDecoder::big_endian() const { return impl_->big_endian; }

bool TepDecoder::SchedLayoutOf(int id, SchedLayout* out) {
  if (id < 0 || id > 0xffff) return false;
  EventInfo* info = impl_->LookupId(id);
  if (!info || info->family) return false;
  EventKind kind = KindOf(info->handler);
  if (!IsSchedKind(kind)) return false;
  out->id = id;
  out->kind = kind;
  out->variant = info->param;
  out->fixed_size = info->fixed_size;
  out->name = info->name;
  std::copy_n(info->slots.begin(), kSchedSlots, out->slots.begin());
  out->states.reset();
  if (info->prev_state) out->states = info->prev_state->layout();
  return true;
}

std::string_view TepDecoder::Name(std::string_view raw) {
  EventInfo* info = impl_->Lookup(raw);
  return info ? std::string_view(info->name) : std::string_view();
}

}  // namespace tk::parsers::tep
