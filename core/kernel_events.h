// Every kernel event tk knows by name, declared once: each name a kernel era used, the kind it
// decodes to, its variant, and for the families (hard and soft interrupts, system calls, page
// allocations) the fields the binary decoder reads (parsers/tep) and the text decoder expects
// (parsers/tp_text). The sched and block kinds' fields are their decoders' (one per kind);
// kGeneric entries are names whose system the text formats omit. Both decoders, BlockStageName
// and `tk script` go by this table: adding a family is an entry here plus its two decode
// functions, and an EventMask asks for it by its kind alone.
//
// Field names per era (a slot lists alternatives, "pfn|page": the first the format has wins):
//   irq:irq_handler_entry   irq, name        (2.6.3x text: "irq=N handler=NAME")
//   irq:irq_handler_exit    irq, ret         (2.6.3x text: "return=handled")
//   irq:softirq_*           vec              (2.6.3x text: "softirq=N action=NAME")
//   raw_syscalls:sys_enter  id, args[6];     sys_exit: id, ret
//   syscalls:sys_enter_NAME __syscall_nr (nr before 4.x), then the call's own 8-byte slots;
//                           sys_exit_NAME: __syscall_nr, ret
//   kmem:mm_page_alloc      pfn (a struct page pointer `page` before 4.1), order, gfp_flags,
//                           migratetype
//   kmem:mm_page_free       pfn|page, order  (mm_page_free_direct before 3.3)
//   kmem:mm_page_free_batched pfn|page      (mm_pagevec_free, with order, before 3.3)
#ifndef TK_CORE_KERNEL_EVENTS_H_
#define TK_CORE_KERNEL_EVENTS_H_

#include <array>
#include <cstdint>
#include <string_view>

#include "absl/types/span.h"
#include "core/event.h"

namespace tk {

struct KernelEvent {
  std::string_view name;  // "irq:irq_handler_entry"; per-call syscalls: the prefix
  EventKind kind;
  // SchedWakeup::Kind, SchedStat::Which, BlockStage; Irq / Syscall: 1 = exit; Softirq::Phase;
  // PageEvent::Op.
  uint8_t variant;
  // Binary field slots ("a|b" = era alternatives); empty = unused.
  std::array<std::string_view, 4> fields;
  bool prefix = false;  // name is a prefix: syscalls:sys_enter_<call>
};

absl::Span<const KernelEvent> KernelEvents();

// The kinds decoded to their type only for a sink that asks for them (core/event.h).
constexpr bool IsFamily(EventKind k) { return static_cast<int>(k) >= kFirstFamilyKind; }

// The declaration for an event named "system:name" or, as text formats print it, "name";
// nullptr when tk does not know the name.
const KernelEvent* FindKernelEvent(std::string_view name);

// The part of `name` after a prefix declaration ("syscalls:sys_enter_read" → "read").
std::string_view KernelEventSuffix(const KernelEvent& k, std::string_view name);

}  // namespace tk

#endif  // TK_CORE_KERNEL_EVENTS_H_
