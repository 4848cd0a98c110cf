// The sched_* tracepoints' typed bodies from a raw payload, shared by TepDecoder (any thread
// that owns it) and SchedFastDecoder (the perf.data reading thread, without libtraceevent).
//
// Both read the same fields, resolved by name once per event id in the recording's own
// format (TepDecoder does the resolving), through the same functions below, so the two paths
// give the same events by construction; tests/perf_data/fast_decode_test.cc checks it on every
// committed perf.data fixture with sched events.
//
// Slots, per kind (a slot the kernel's format lacks is absent and reads as its default):
//   sched_switch        prev_comm prev_pid prev_prio prev_state next_comm next_pid next_prio
//   sched_wakeup(_new), sched_waking                  comm pid prio target_cpu success
//   sched_migrate_task  comm pid prio orig_cpu dest_cpu
//   sched_stat_*        comm pid runtime delay vruntime
//   sched_process_fork  parent_comm parent_pid child_comm child_pid
//   sched_process_exit/free                          comm pid prio group_dead
#ifndef TK_PARSERS_TEP_SCHED_DECODE_H_
#define TK_PARSERS_TEP_SCHED_DECODE_H_

#include <algorithm>
#include <array>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "core/event.h"
#include "parsers/tep/fields.h"
#include "parsers/tep/prev_state.h"

namespace tk::parsers::tep {

inline constexpr int kSchedSlots = 7;
using SchedSlotRefs = std::array<FieldRef, kSchedSlots>;

// Whether `k` is one of the kinds above.
inline bool IsSchedKind(EventKind k) {
  return k == EventKind::kSchedSwitch || k == EventKind::kSchedWakeup ||
         k == EventKind::kSchedMigrate || k == EventKind::kSchedStat ||
         k == EventKind::kSchedFork || k == EventKind::kSchedExit;
}

// The body as a T with every field at its default: the alternative already there is reused
// (emplace destroys and constructs through the variant's index on every event).
template <typename T>
inline T& ResetAs(Body* body) {
  if (T* t = std::get_if<T>(body)) {
    *t = T{};
    return *t;
  }
  return body->emplace<T>();
}

// Fills `*body` with the event of kind `k` (a sched kind; `variant` is core/kernel_events.h's:
// the wakeup kind, the stat which). `states` turns sched_switch's prev_state into a TaskState.
// `Reader` is FieldReader or, for a payload checked to hold its fixed fields in the host's
// byte order, InRangeFieldReader (the same values).
template <typename Reader>
inline void DecodeSchedBody(EventKind k, uint8_t variant, const FieldRef* s, const Reader& r,
                            PrevStateDecoder* states, Body* body) {
  auto i32 = [](int64_t v) { return static_cast<int32_t>(v); };
  switch (k) {
    case EventKind::kSchedSwitch: {
      SchedSwitch& sw = ResetAs<SchedSwitch>(body);
      sw.prev_comm = r.Str(s[0]);
      sw.prev_pid = i32(r.IntOr(s[1], -1));
      sw.prev_prio = i32(r.IntOr(s[2], -1));
      uint64_t state = r.UInt(s[3]).value_or(0);
      if (s[3].size < 8) state &= (uint64_t{1} << (8 * s[3].size)) - 1;
      sw.prev_state = states->Decode(state);
      sw.next_comm = r.Str(s[4]);
      sw.next_pid = i32(r.IntOr(s[5], -1));
      sw.next_prio = i32(r.IntOr(s[6], -1));
      return;
    }
    case EventKind::kSchedWakeup: {
      SchedWakeup& w = ResetAs<SchedWakeup>(body);
      w.kind = static_cast<SchedWakeup::Kind>(variant);
      w.comm = r.Str(s[0]);
      w.pid = i32(r.IntOr(s[1], -1));
      w.prio = i32(r.IntOr(s[2], -1));
      w.target_cpu = i32(r.IntOr(s[3], -1));
      w.success = i32(r.IntOr(s[4], 1));
      return;
    }
    case EventKind::kSchedMigrate: {
      SchedMigrate& m = ResetAs<SchedMigrate>(body);
      m.comm = r.Str(s[0]);
      m.pid = i32(r.IntOr(s[1], -1));
      m.prio = i32(r.IntOr(s[2], -1));
      m.orig_cpu = i32(r.IntOr(s[3], -1));
      m.dest_cpu = i32(r.IntOr(s[4], -1));
      return;
    }
    case EventKind::kSchedStat: {
      SchedStat& st = ResetAs<SchedStat>(body);
      st.which = static_cast<SchedStat::Which>(variant);
      st.comm = r.Str(s[0]);
      st.pid = i32(r.IntOr(s[1], -1));
      st.delay_ns = r.UInt(st.which == SchedStat::Which::kRuntime ? s[2] : s[3]).value_or(0);
      st.vruntime = r.UInt(s[4]).value_or(0);
      return;
    }
    case EventKind::kSchedFork: {
      SchedFork& f = ResetAs<SchedFork>(body);
      f.parent_comm = r.Str(s[0]);
      f.parent_pid = i32(r.IntOr(s[1], -1));
      f.child_comm = r.Str(s[2]);
      f.child_pid = i32(r.IntOr(s[3], -1));
      return;
    }
    case EventKind::kSchedExit: {
      SchedExit& x = ResetAs<SchedExit>(body);
      x.comm = r.Str(s[0]);
      x.pid = i32(r.IntOr(s[1], -1));
      x.prio = i32(r.IntOr(s[2], -1));
      x.group_dead = static_cast<int8_t>(std::clamp<int64_t>(r.IntOr(s[3], -1), -1, 1));
      return;
    }
    default:
      return;
  }
}

// One sched event id as TepDecoder resolved it: enough to decode its payloads without
// libtraceevent. Copied out while nothing else uses the TepDecoder.
struct SchedLayout {
  int id = -1;              // common_type
  EventKind kind = EventKind::kGeneric;
  uint8_t variant = 0;
  int fixed_size = 0;       // a shorter payload is malformed
  std::string_view name;    // "sched:sched_switch", the TepDecoder's (lives as long as it)
  SchedSlotRefs slots;
  // sched_switch: the prev_state letters from the print fmt (required for the fast path:
  // without it TepDecoder asks libtraceevent's printer, which only it may call).
  std::optional<StateLayout> states;
};

// Decodes the sched payloads of the ids it was given, on whichever one thread calls it (it
// keeps its own prev_state cache). Decode gives the body TepDecoder::Decode gives; the name
// is layout(handle).name. (TepDecoder also fills a tid of -1 from common_pid; perf.data
// samples keep their own.)
class SchedFastDecoder {
 public:
  explicit SchedFastDecoder(bool big_endian) : big_endian_(big_endian) {}
  // Adds a layout; returns its handle (>= 0), or -1 when it cannot take the fast path.
  int Add(SchedLayout layout);
  const SchedLayout& layout(int handle) const { return entries_[handle].layout; }
  // Whether the layout is one of the common kernels' (sched_decode.cc), decoded with its
  // offsets known at compile time (the same reads as the others, as plain loads).
  bool fixed(int handle) const { return entries_[handle].fixed != nullptr; }
  // A decoder of one fixed layout: DecodeSchedBody with constant slots.
  using FixedFn = void (*)(uint8_t variant, std::string_view raw, PrevStateDecoder* states,
                           Body* body);
  // Whether `raw` is a payload of layout `handle`'s event (its common_type) long enough for
  // its format; when it is not, the caller takes the TepDecoder path (which names it
  // malformed or decodes the other event).
  bool Matches(int handle, std::string_view raw) const {
    const SchedLayout& l = entries_[static_cast<size_t>(handle)].layout;
    return raw.size() >= static_cast<size_t>(std::max(l.fixed_size, 2)) &&
           static_cast<int>(LoadUnsigned(raw.data(), 2, NeedsSwap(big_endian_))) == l.id;
  }
  // The body of a payload that Matches(handle, raw) (so it holds the format's fixed fields).
  void Decode(int handle, std::string_view raw, Body* body) {
    Entry& en = entries_[static_cast<size_t>(handle)];
    if (en.fixed) {
      en.fixed(en.layout.variant, raw, en.states.get(), body);
    } else if (NeedsSwap(big_endian_)) {
      DecodeSchedBody(en.layout.kind, en.layout.variant, en.layout.slots.data(),
                      FieldReader(raw, big_endian_), en.states.get(), body);
    } else {  // Matches checked the size
      DecodeSchedBody(en.layout.kind, en.layout.variant, en.layout.slots.data(),
                      InRangeFieldReader(raw), en.states.get(), body);
    }
  }

 private:
  struct Entry {
    SchedLayout layout;
    std::unique_ptr<PrevStateDecoder> states;
    FixedFn fixed = nullptr;  // host byte order and a common layout
  };
  bool big_endian_;
  std::vector<Entry> entries_;
};

}  // namespace tk::parsers::tep

#endif  // TK_PARSERS_TEP_SCHED_DECODE_H_
