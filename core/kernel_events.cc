#include "core/kernel_events.h"

namespace tk {
namespace {

constexpr uint8_t U(SchedWakeup::Kind k) { return static_cast<uint8_t>(k); }
constexpr uint8_t U(SchedStat::Which w) { return static_cast<uint8_t>(w); }
constexpr uint8_t U(BlockStage s) { return static_cast<uint8_t>(s); }
constexpr uint8_t U(Softirq::Phase p) { return static_cast<uint8_t>(p); }
constexpr uint8_t U(PageEvent::Op o) { return static_cast<uint8_t>(o); }

constexpr EventKind kSwitch = EventKind::kSchedSwitch, kWakeup = EventKind::kSchedWakeup,
                    kStat = EventKind::kSchedStat, kBlock = EventKind::kBlockRq,
                    kName = EventKind::kGeneric;

// Per kind in Body's order; a stage's first entry names it (BlockStageName).
constexpr KernelEvent kEvents[] = {
    {"sched:sched_switch", kSwitch, 0},
    {"sched:sched_wakeup", kWakeup, U(SchedWakeup::Kind::kWakeup)},
    {"sched:sched_waking", kWakeup, U(SchedWakeup::Kind::kWaking)},
    {"sched:sched_wakeup_new", kWakeup, U(SchedWakeup::Kind::kWakeupNew)},
    {"sched:sched_migrate_task", EventKind::kSchedMigrate, 0},
    {"sched:sched_stat_runtime", kStat, U(SchedStat::Which::kRuntime)},
    {"sched:sched_stat_wait", kStat, U(SchedStat::Which::kWait)},
    {"sched:sched_stat_sleep", kStat, U(SchedStat::Which::kSleep)},
    {"sched:sched_stat_iowait", kStat, U(SchedStat::Which::kIowait)},
    {"sched:sched_stat_blocked", kStat, U(SchedStat::Which::kBlocked)},
    {"sched:sched_process_fork", EventKind::kSchedFork, 0},
    {"sched:sched_process_exit", EventKind::kSchedExit, 0},
    {"sched:sched_process_free", EventKind::kSchedExit, 0},
    {"block:block_bio_queue", kBlock, U(BlockStage::kBioQueue)},
    {"block:block_getrq", kBlock, U(BlockStage::kGetRq)},
    {"block:block_sleeprq", kBlock, U(BlockStage::kSleepRq)},
    {"block:block_rq_insert", kBlock, U(BlockStage::kInsert)},
    {"block:block_rq_issue", kBlock, U(BlockStage::kIssue)},
    {"block:block_rq_complete", kBlock, U(BlockStage::kComplete)},
    {"block:block_rq_requeue", kBlock, U(BlockStage::kRequeue)},
    {"block:block_rq_merge", kBlock, U(BlockStage::kRqMerge)},
    {"block:block_bio_backmerge", kBlock, U(BlockStage::kBackMerge)},
    {"block:block_bio_frontmerge", kBlock, U(BlockStage::kFrontMerge)},
    {"block:block_bio_remap", kBlock, U(BlockStage::kBioRemap)},
    {"block:block_rq_remap", kBlock, U(BlockStage::kRqRemap)},
    {"block:block_bio_complete", kBlock, U(BlockStage::kBioComplete)},
    {"block:block_bio_bounce", kBlock, U(BlockStage::kBioBounce)},
    {"block:block_split", kBlock, U(BlockStage::kSplit)},
    {"block:block_io_start", kBlock, U(BlockStage::kIoStart)},
    {"block:block_io_done", kBlock, U(BlockStage::kIoDone)},
    {"block:block_plug", kBlock, U(BlockStage::kPlug)},
    {"block:block_unplug", kBlock, U(BlockStage::kUnplug)},
    {"block:block_unplug_io", kBlock, U(BlockStage::kUnplug)},     // 2.6.3x
    {"block:block_unplug_timer", kBlock, U(BlockStage::kUnplug)},  // 2.6.3x
    {"block:block_dirty_buffer", kBlock, U(BlockStage::kDirtyBuffer)},
    {"block:block_touch_buffer", kBlock, U(BlockStage::kDirtyBuffer)},
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
    // Events tk has no type for but whose system the text formats omit.
    {"sched:sched_wake_idle_without_ipi", kName, 0},
    {"sched:sched_kthread_stop", kName, 0},
    {"sched:sched_kthread_stop_ret", kName, 0},
    {"sched:sched_process_wait", kName, 0},
    {"sched:sched_process_exec", kName, 0},
    {"sched:sched_prepare_exec", kName, 0},
    {"sched:sched_process_hang", kName, 0},
    {"sched:sched_pi_setprio", kName, 0},
    {"sched:sched_move_numa", kName, 0},
    {"sched:sched_stick_numa", kName, 0},
    {"sched:sched_swap_numa", kName, 0},
    {"block:block_rq_error", kName, 0},
    {"block:block_rq_abort", kName, 0},
    {"irq:tasklet_entry", kName, 0},
    {"irq:tasklet_exit", kName, 0},
    {"power:cpu_idle", kName, 0},
    {"power:cpu_frequency", kName, 0},
    {"task:task_newtask", kName, 0},
    {"task:task_rename", kName, 0},
    {"signal:signal_generate", kName, 0},
    {"signal:signal_deliver", kName, 0},
    {"ftrace:print", kName, 0},
    {"ftrace:bprint", kName, 0},
    {"ftrace:function", kName, 0},
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

std::string_view BlockStageName(BlockStage s) {
  for (const KernelEvent& k : kEvents) {
    if (k.kind == kBlock && k.variant == U(s)) return Bare(k.name);
  }
  return "block_unknown";
}

std::string_view SoftirqName(int32_t vec) {
  static constexpr std::string_view kNames[] = {"HI",       "TIMER",   "NET_TX", "NET_RX",  "BLOCK",
                                                "IRQ_POLL", "TASKLET", "SCHED",  "HRTIMER", "RCU"};
  return vec >= 0 && vec < 10 ? kNames[vec] : std::string_view();
}

}  // namespace tk
