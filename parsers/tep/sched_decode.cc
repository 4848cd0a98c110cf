#include "parsers/tep/sched_decode.h"

#include <utility>

namespace tk::parsers::tep {

namespace {

// The layouts nearly every recording has, as the kernel's format files give them (64-bit
// kernels since 4.14; sched_stat_runtime's __data_loc comm and no vruntime since 6.10):
//
//   sched_switch  char prev_comm[16] @8; pid_t prev_pid @24; int prev_prio @28;
//                 long prev_state @32; char next_comm[16] @40; pid_t next_pid @56;
//                 int next_prio @60
//   sched_wakeup, sched_waking, sched_wakeup_new
//                 char comm[16] @8; pid_t pid @24; int prio @28; int target_cpu @32
//   sched_stat_runtime  char comm[16] @8; pid_t pid @24; u64 runtime @32; u64 vruntime @40
//                 or  __data_loc char[] comm @8; pid_t pid @12; u64 runtime @16
//
// Only what the readers use is compared: offset, size, sign, dynamic, relative, scalar.
constexpr FieldRef Comm16(int offset) { return FieldRef{offset, 16, 0, 0, false, false, false, false}; }
constexpr FieldRef Num(int offset, int size, bool sign) {
  return FieldRef{offset, size, 0, 0, sign, false, false, true};
}
constexpr FieldRef kAbsent{};

constexpr SchedSlotRefs kSwitch = {Comm16(8), Num(24, 4, true), Num(28, 4, true), Num(32, 8, true),
                                   Comm16(40), Num(56, 4, true), Num(60, 4, true)};
constexpr SchedSlotRefs kWakeup = {Comm16(8), Num(24, 4, true), Num(28, 4, true),
                                   Num(32, 4, true), kAbsent, kAbsent, kAbsent};
constexpr SchedSlotRefs kStatRuntime = {Comm16(8), Num(24, 4, true), Num(32, 8, false), kAbsent,
                                        Num(40, 8, false), kAbsent, kAbsent};
constexpr SchedSlotRefs kStatRuntimeLoc = {FieldRef{8, 4, 0, 0, false, true, false, true},
                                           Num(12, 4, true), Num(16, 8, false), kAbsent,
                                           kAbsent, kAbsent, kAbsent};

bool SameReads(const FieldRef& a, const FieldRef& b) {
  if (!a.present() || !b.present()) return a.present() == b.present();
  return a.offset == b.offset && a.size == b.size && a.sign == b.sign &&
         a.dynamic == b.dynamic && a.relative == b.relative && a.scalar == b.scalar;
}

bool SameLayout(const SchedSlotRefs& a, const SchedSlotRefs& b) {
  for (int i = 0; i < kSchedSlots; ++i)
    if (!SameReads(a[i], b[i])) return false;
  return true;
}

// flatten: DecodeSchedBody and the readers inline, so the constant slots fold into loads.
template <EventKind K, const SchedSlotRefs& kSlots>
[[gnu::flatten]] void DecodeFixed(uint8_t variant, std::string_view raw, PrevStateDecoder* states,
                                  Body* body) {
  DecodeSchedBody(K, variant, kSlots.data(), InRangeFieldReader(raw), states, body);
}

SchedFastDecoder::FixedFn FixedFor(const SchedLayout& l) {
  switch (l.kind) {
    case EventKind::kSchedSwitch:
      if (SameLayout(l.slots, kSwitch)) return DecodeFixed<EventKind::kSchedSwitch, kSwitch>;
      return nullptr;
    case EventKind::kSchedWakeup:
      if (SameLayout(l.slots, kWakeup)) return DecodeFixed<EventKind::kSchedWakeup, kWakeup>;
      return nullptr;
    case EventKind::kSchedStat:
      if (l.variant != static_cast<uint8_t>(SchedStat::Which::kRuntime)) return nullptr;
      if (SameLayout(l.slots, kStatRuntime))
        return DecodeFixed<EventKind::kSchedStat, kStatRuntime>;
      if (SameLayout(l.slots, kStatRuntimeLoc))
        return DecodeFixed<EventKind::kSchedStat, kStatRuntimeLoc>;
      return nullptr;
    default:
      return nullptr;
  }
}

}  // namespace

int SchedFastDecoder::Add(SchedLayout layout) {
  if (!IsSchedKind(layout.kind) || layout.id < 0) return -1;
  // Without the print fmt's letter table prev_state needs libtraceevent's printer, which is
  // the TepDecoder's (and its thread's) alone.
  if (layout.kind == EventKind::kSchedSwitch && !layout.states) return -1;
  Entry e;
  if (layout.kind == EventKind::kSchedSwitch) {
    e.states = std::make_unique<PrevStateDecoder>(nullptr, layout.slots[3], layout.states);
  }
  if (!NeedsSwap(big_endian_)) e.fixed = FixedFor(layout);
  e.layout = std::move(layout);
  entries_.push_back(std::move(e));
  return static_cast<int>(entries_.size() - 1);
}

}  // namespace tk::parsers::tep
