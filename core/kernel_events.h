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
  std::array<std::string_view, 4> fields = {};
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

// What an analysis family reads and what to record for it, declared once: `kinds` is the
// mask its analysis asks for, `missing` the one line a command prints for an input without
// them (cli/common.h RunPipeline's Pipeline::needs).
struct RecordingNeeds {
  EventMask kinds;
  const char* missing;
};

// tk sched and the sched passes: context switches (wakeups for the delays).
inline constexpr RecordingNeeds kSchedNeeds = {
    EventMask().Add(EventKind::kSchedSwitch).Add(EventKind::kSchedWakeup),
    "no sched:sched_switch events: record with perf sched record, or perf record -e "
    "sched:sched_switch -e sched:sched_wakeup -e sched:sched_waking -a (tk info lists what the "
    "file holds)"};
// tk iolat: block requests, with the sched events that name who waited and lost records.
inline constexpr RecordingNeeds kIolatNeeds = {
    EventMask().Add(EventKind::kBlockRq).Add(EventKind::kSchedSwitch)
        .Add(EventKind::kSchedWakeup).Add(EventKind::kLost),
    "no block request events: record with perf record -e 'block:*' -a (tk info lists what the "
    "file holds)"};
// tk cputop: context switches and migrations.
inline constexpr RecordingNeeds kCputopNeeds = {
    EventMask().Add(EventKind::kSchedSwitch).Add(EventKind::kSchedMigrate),
    "no sched:sched_switch events: record with `perf sched record`, `perf record -a -e "
    "sched:sched_switch -e sched:sched_migrate_task` or `trace-cmd record -e sched_switch -e "
    "sched_migrate_task`"};
// tk memtop: page allocations and frees.
inline constexpr RecordingNeeds kMemtopNeeds = {
    EventMask().Add(EventKind::kPage),
    "no kmem:mm_page_alloc/mm_page_free events: record with `perf kmem --page record`, "
    "`perf record -a -e kmem:mm_page_alloc -e kmem:mm_page_free -e kmem:mm_page_free_batched` "
    "or `trace-cmd record -e kmem:mm_page_alloc -e kmem:mm_page_free -e kmem:mm_page_free_batched`"};
// tk irq: hard and soft interrupts, and lost records (the report says where data is missing).
inline constexpr RecordingNeeds kIrqNeeds = {
    EventMask().Add(EventKind::kIrq).Add(EventKind::kSoftirq).Add(EventKind::kLost),
    "no irq:irq_handler_* or irq:softirq_* events: record with `perf record -a -e 'irq:*'` "
    "or `trace-cmd record -e irq`"};
// tk syscalls: raw_syscalls or the per-call syscalls:* events.
inline constexpr RecordingNeeds kSyscallsNeeds = {
    EventMask().Add(EventKind::kSyscall),
    "no raw_syscalls:sys_enter/sys_exit (or syscalls:sys_*) events: record with `perf trace "
    "record`, `perf record -a -e 'raw_syscalls:*'` or `trace-cmd record -e raw_syscalls`"};

// Every family's needs, in the order a command without its own line picks one by (the first
// whose key events are the analysis' own: sched before cputop, which shares its key).
inline constexpr const RecordingNeeds* kAllRecordingNeeds[] = {
    &kSchedNeeds, &kIolatNeeds, &kCputopNeeds, &kMemtopNeeds, &kIrqNeeds, &kSyscallsNeeds};

}  // namespace tk

#endif  // TK_CORE_KERNEL_EVENTS_H_
