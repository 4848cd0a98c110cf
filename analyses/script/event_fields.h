// Event → the tracepoint's fields, keyed by the names of its format file
// (/sys/kernel/tracing/events/SYSTEM/NAME/format), in that file's order. One mapping for every
// input format, so `tk script --json` prints the same keys and values whether an event came
// from perf.data, trace.dat, perf script text or ftrace text. Reusable by any analysis that
// wants to show an event's fields.
//
// Canonical value forms (what differs between sources is normalised here):
//   prev_state   letters as the kernel's print format shows them: "R", "R+", "S", "D", "D|K", "I"
//   dev, old_dev "MAJ,MIN" string ("254,0"), not the kernel's dev_t number
//   rwbs         the kernel's letters ("WS", "FWFS"), rebuilt from the parsed flags
//   ioprio       the kernel's u16 (class << 13 | hint << 3 | level): "be,0,4" → 16388;
//                only present when the source had it (6.11+ rq events)
//   comm fields  as the source names them (ftrace's "<idle>" stays "<idle>")
//   numbers      JSON numbers; sector is a u64 (dirty_buffer's can be 2^64 - 65536)
// Fields the event model does not carry are absent: block cmd (always empty since 5.x),
// rq_remap nr_bios, sched_process_exit group_dead. Optional ones appear only when known:
// sched_wakeup success (only when 0: failed wakeups of 2.6/3.x kernels), target_cpu,
// sched_stat_runtime vruntime (when nonzero; 6.8+ dropped it).
// The families (core/kernel_events.h): irq_handler_entry irq name, _exit irq ret (1 handled,
// 0 unhandled); softirq_* vec; sys_enter (raw and per call) id args[], sys_exit id ret;
// mm_page_* pfn (or page, the struct page pointer of kernels before 4.1) order, alloc's
// migratetype and gfp_flags (a number; only from binary sources, text ones print names).
#ifndef TK_ANALYSES_SCRIPT_EVENT_FIELDS_H_
#define TK_ANALYSES_SCRIPT_EVENT_FIELDS_H_

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/types/span.h"
#include "core/event.h"

namespace tk::analyses::script {

struct FieldValue {
  enum class Type : uint8_t { kInt, kUint, kString, kNumberText, kUintList };
  std::string_view name;
  Type type = Type::kInt;
  int64_t i = 0;
  uint64_t u = 0;
  std::string_view s;  // kString, and kNumberText (a Generic field the source printed as a number)
  absl::Span<const uint64_t> list;  // kUintList (raw_syscalls:sys_enter args)
};

class EventFields {
 public:
  // Fills fields() for `e`. Views borrow `e` and this object; valid until the next Fill.
  // Samples, side-band and lost records have no tracepoint fields (empty).
  void Fill(const Event& e);
  const std::vector<FieldValue>& fields() const { return fields_; }

 private:
  void Int(std::string_view name, int64_t v);
  void Uint(std::string_view name, uint64_t v);
  void Str(std::string_view name, std::string_view v);
  // Formats "MAJ,MIN" into scratch slot `slot` and adds it.
  void Dev(std::string_view name, uint32_t major, uint32_t minor, int slot);
  void Block(const BlockRq& b);
  void Family(const Event& e);

  std::vector<FieldValue> fields_;
  std::array<std::string, 4> scratch_;
};

}  // namespace tk::analyses::script

#endif  // TK_ANALYSES_SCRIPT_EVENT_FIELDS_H_
