#include "core/kernel_events.h"

namespace tk {
namespace {

constexpr uint8_t U(Softirq::Phase p) { return static_cast<uint8_t>(p); }
constexpr uint8_t U(PageEvent::Op o) { return static_cast<uint8_t>(o); }

constexpr KernelEvent kEvents[] = {
    {"irq:irq_handler_entry", EventKind::kIrq, 0, {"irq", "name|handler"}},
    {"irq:irq_handler_exit", EventKind::kIrq, 1, {"irq", "ret|return"}},
    {"irq:softirq_raise", EventKind::kSoftirq, U(Softirq::Phase::kRaise), {"vec|softirq"}},
    {"irq:softirq_entry", EventKind::kSoftirq, U(Softirq::Phase::kEntry), {"vec|softirq"}},
    {"irq:softirq_exit", EventKind::kSoftirq, U(Softirq::Phase::kExit), {"vec|softirq"}},
    {"raw_syscalls:sys_enter", EventKind::kSyscall, 0, {"id", "args"}},
    {"raw_syscalls:sys_exit", EventKind::kSyscall, 1, {"id", "ret"}},
    {"syscalls:sys_enter_", EventKind::kSyscall, 0, {"__syscall_nr|nr"}, true},
    {"syscalls:sys_exit_", EventKind::kSyscall, 1, {"__syscall_nr|nr", "ret"}, true},
    {"kmem:mm_page_alloc",
     EventKind::kPage,
     U(PageEvent::Op::kAlloc),
     {"pfn|page", "order", "gfp_flags", "migratetype"}},
    {"kmem:mm_page_free", EventKind::kPage, U(PageEvent::Op::kFree), {"pfn|page", "order"}},
    {"kmem:mm_page_free_direct", EventKind::kPage, U(PageEvent::Op::kFree), {"page", "order"}},
    {"kmem:mm_page_free_batched", EventKind::kPage, U(PageEvent::Op::kFreeBatched), {"pfn|page"}},
    {"kmem:mm_pagevec_free", EventKind::kPage, U(PageEvent::Op::kFreeBatched), {"page", "order"}},
};

std::string_view Bare(std::string_view full) { return full.substr(full.find(':') + 1); }

}  // namespace

absl::Span<const KernelEvent> KernelEvents() { return kEvents; }

const KernelEvent* FindKernelEvent(std::string_view name) {
  const bool has_system = name.find(':') != std::string_view::npos;
  for (const KernelEvent& k : kEvents) {
    std::string_view want = has_system ? k.name : Bare(k.name);
    if (k.prefix ? (name.size() > want.size() && name.substr(0, want.size()) == want)
                 : name == want)
      return &k;
  }
  return nullptr;
}

std::string_view KernelEventSuffix(const KernelEvent& k, std::string_view name) {
  if (!k.prefix) return {};
  std::string_view want = name.find(':') != std::string_view::npos ? k.name : Bare(k.name);
  return name.size() > want.size() ? name.substr(want.size()) : std::string_view();
}

std::string_view SoftirqName(int32_t vec) {
  static constexpr std::string_view kNames[] = {"HI",       "TIMER",   "NET_TX", "NET_RX",  "BLOCK",
                                                "IRQ_POLL", "TASKLET", "SCHED",  "HRTIMER", "RCU"};
  return vec >= 0 && vec < 10 ? kNames[vec] : std::string_view();
}

}  // namespace tk
