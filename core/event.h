// tk's event model: what every parser produces and every analysis consumes.
//
// One Event per record of the input, whatever its format (perf.data, trace.dat, `perf script`
// text, ftrace text). Parsers normalise kernel-version quirks before an event leaves them:
// task states, rwbs letters, block field sets, comm with spaces. Analyses never see a raw
// kernel encoding.
//
// Lifetime: every string_view and Span in an Event borrows the parser's buffers and is valid
// only during EventSink::OnEvent (the stack's frames and the comm longer when the Event says
// stable_views). An analysis that keeps a string interns it (core/intern.h).
#ifndef TK_CORE_EVENT_H_
#define TK_CORE_EVENT_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

#include "absl/types/span.h"
#include "core/rwbs.h"
#include "core/task_state.h"

namespace tk {

// One stack frame, leaf first in Event::stack. `symbol` has no "+0x1a" offset; it is
// "[unknown]" when unresolved (as perf script prints it). `dso` is what perf script prints in
// parentheses: a path, "[kernel.kallsyms]", "[unknown]", "[vdso]", "/tmp/perf-PID.map" ...
struct Frame {
  uint64_t ip = 0;
  std::string_view symbol;
  std::string_view dso;
  // ip's offset in its symbol ("+0x1a" in perf script); -1 when unresolved or unknown
  // (text inputs strip it).
  int64_t sym_offset = -1;
};

// A non-tracepoint sample (cpu-clock, cycles, ...). Its event name, period and stack are in
// the Event itself, since tracepoint samples carry them too.
struct Sample {};

// sched:sched_switch
struct SchedSwitch {
  std::string_view prev_comm;
  int32_t prev_pid = -1;
  int32_t prev_prio = -1;
  TaskState prev_state;
  std::string_view next_comm;
  int32_t next_pid = -1;
  int32_t next_prio = -1;
};

// sched:sched_wakeup, sched:sched_waking, sched:sched_wakeup_new
struct SchedWakeup {
  enum class Kind : uint8_t { kWakeup, kWaking, kWakeupNew };
  Kind kind = Kind::kWakeup;
  std::string_view comm;
  int32_t pid = -1;
  int32_t prio = -1;
  int32_t target_cpu = -1;  // -1 when the kernel's format lacks it
  int32_t success = 1;      // older kernels print success=; newer always 1
};

// sched:sched_migrate_task
struct SchedMigrate {
  std::string_view comm;
  int32_t pid = -1;
  int32_t prio = -1;
  int32_t orig_cpu = -1;
  int32_t dest_cpu = -1;
};

// sched:sched_stat_runtime (and sched_stat_wait/sleep/iowait/blocked: `which` says which)
struct SchedStat {
  enum class Which : uint8_t { kRuntime, kWait, kSleep, kIowait, kBlocked };
  Which which = Which::kRuntime;
  std::string_view comm;
  int32_t pid = -1;
  uint64_t delay_ns = 0;  // runtime= for kRuntime, delay= for the others
  uint64_t vruntime = 0;  // kRuntime only, 0 when absent (6.x removed it)
};

// sched:sched_process_fork
struct SchedFork {
  std::string_view parent_comm;
  int32_t parent_pid = -1;
  std::string_view child_comm;
  int32_t child_pid = -1;
};

// sched:sched_process_exit, sched:sched_process_free
struct SchedExit {
  std::string_view comm;
  int32_t pid = -1;
  int32_t prio = -1;
  int8_t group_dead = -1;  // sched_process_exit's group_dead (6.x): 1/0; -1 when absent
};

// The stages of a block request's life, as btt names them.
enum class BlockStage : uint8_t {
  kBioQueue,       // Q  block:block_bio_queue
  kGetRq,          // G  block:block_getrq
  kSleepRq,        // S  block:block_sleeprq (old kernels)
  kInsert,         // I  block:block_rq_insert
  kIssue,          // D  block:block_rq_issue
  kComplete,       // C  block:block_rq_complete
  kRequeue,        // R  block:block_rq_requeue
  kRqMerge,        //    block:block_rq_merge
  kBackMerge,      // M  block:block_bio_backmerge
  kFrontMerge,     // F  block:block_bio_frontmerge
  kBioRemap,       // A  block:block_bio_remap
  kRqRemap,        // A  block:block_rq_remap
  kBioComplete,    //    block:block_bio_complete
  kBioBounce,      //    block:block_bio_bounce
  kSplit,          // X  block:block_split
  kIoStart,        //    block:block_io_start (6.5+)
  kIoDone,         //    block:block_io_done (6.5+)
  kPlug,           // P  block:block_plug
  kUnplug,         // U  block:block_unplug
  kDirtyBuffer,    //    block:block_dirty_buffer / block_touch_buffer
};
// The tracepoint's name without "block:", e.g. "block_rq_issue" (core/kernel_events.cc).
std::string_view BlockStageName(BlockStage s);

// Every block:* request/bio event. Fields the kernel's format lacks stay at their defaults.
struct BlockRq {
  BlockStage stage = BlockStage::kIssue;
  uint32_t major = 0, minor = 0;
  uint64_t sector = 0;
  uint32_t nr_sector = 0;
  uint32_t bytes = 0;       // block_rq_* "bytes" field (0 when absent)
  Rwbs rwbs;
  int32_t error = 0;        // block_rq_complete / bio_complete
  std::string_view comm;    // the comm field in [brackets]; empty when absent
  // Remaps: where the I/O came from ("<- (252,2) 488"). Split: new_sector in old_sector.
  uint32_t old_major = 0, old_minor = 0;
  uint64_t old_sector = 0;
  // 6.11+ ioprio (class,hint,level) packed as the kernel's u16; -1 when absent.
  int32_t ioprio = -1;
  uint32_t nr_rq = 0;       // unplug: number of requests
};

// PERF_RECORD_COMM (and the exec bit), or a comm change seen in a text format.
struct Comm {
  int32_t pid = -1, tid = -1;
  std::string_view comm;
  bool exec = false;
};

// PERF_RECORD_FORK / PERF_RECORD_EXIT
struct Fork {
  int32_t pid = -1, ppid = -1, tid = -1, ptid = -1;
};
struct Exit {
  int32_t pid = -1, ppid = -1, tid = -1, ptid = -1;
};

// Events the recorder lost: PERF_RECORD_LOST/LOST_SAMPLES, ring-buffer page overruns,
// "CPU N: M events lost" lines in text.
struct Lost {
  enum class Kind : uint8_t { kLost, kLostSamples, kOverrun, kThrottle, kUnthrottle };
  Kind kind = Kind::kLost;
  uint64_t count = 0;
};

// irq:irq_handler_entry / irq:irq_handler_exit (2.6.3x printed handler= / return=).
struct Irq {
  bool exit = false;
  int32_t irq = -1;
  std::string_view name;  // entry: the handler's name ("ahci[0000:00:1f.2]")
  int32_t ret = -1;       // exit: 0 = IRQ_NONE (unhandled), 1 = handled; -1 unknown
};

// irq:softirq_raise / softirq_entry / softirq_exit. vec 0..9 = HI..RCU (SoftirqName).
struct Softirq {
  enum class Phase : uint8_t { kRaise, kEntry, kExit };
  Phase phase = Phase::kEntry;
  int32_t vec = -1;
};
// "HI", "TIMER", ..., "RCU" as the kernel's softirq_to_name; "" outside 0..9.
std::string_view SoftirqName(int32_t vec);

// raw_syscalls:sys_enter / sys_exit, and syscalls:sys_enter_NAME / sys_exit_NAME.
struct Syscall {
  bool exit = false;
  int64_t id = -1;         // syscall number; -1 when the source lacks it (per-call text events)
  std::string_view name;   // syscalls:sys_enter_NAME: NAME; empty for raw_syscalls
  int64_t ret = 0;         // exit only
  uint64_t args[6] = {};   // enter, raw_syscalls: args[0..5]; per-call events: their slots
  uint8_t nargs = 0;
};

// kmem:mm_page_alloc, mm_page_free, mm_page_free_batched (and before 3.3 mm_page_free_direct,
// mm_pagevec_free). Kernels since 4.1 record a pfn, older ones a struct page pointer: `pfn`
// holds whichever the source has (`is_page_ptr` says which); both identify the page.
struct PageEvent {
  enum class Op : uint8_t { kAlloc, kFree, kFreeBatched };
  Op op = Op::kAlloc;
  uint64_t pfn = 0;
  bool is_page_ptr = false;
  bool failed = false;        // alloc: pfn -1 / NULL page (the allocation failed)
  uint32_t order = 0;         // 2^order pages; free_batched: 0
  uint64_t gfp_flags = 0;     // alloc, binary sources (text prints names: 0)
  int32_t migratetype = -1;   // alloc; -1 unknown
};

// A field of an event tk has no type for, formatted as its source printed it (text) or as
// decimal / string (binary). `numeric` tells JSON writers to emit a number.
struct Field {
  std::string_view name;
  std::string_view value;
  bool numeric = false;
};

// Any other event: the name is in Event::name, the fields here (may be empty when the
// source only had free text, then `text` holds it).
struct Generic {
  absl::Span<const Field> fields;
  std::string_view text;
};

using Body = std::variant<Sample, SchedSwitch, SchedWakeup, SchedMigrate, SchedStat, SchedFork,
                          SchedExit, BlockRq, Comm, Fork, Exit, Lost, Generic, Irq, Softirq,
                          Syscall, PageEvent>;

// The kinds, in Body's order, for masks. kIrq and after are the "families" of
// core/kernel_events.h: decoded to their type only for a sink that asks for that kind, else
// delivered as Generic (as before they had a type).
enum class EventKind : uint8_t {
  kSample, kSchedSwitch, kSchedWakeup, kSchedMigrate, kSchedStat, kSchedFork, kSchedExit,
  kBlockRq, kComm, kFork, kExit, kLost, kGeneric, kIrq, kSoftirq, kSyscall, kPage,
};
inline constexpr int kNumEventKinds = 17;
inline constexpr int kFirstFamilyKind = static_cast<int>(EventKind::kIrq);

// Events that carry a stack and an event type (samples, tracepoints); the side-band records
// (COMM, FORK, EXIT, LOST) do not.
inline bool IsStackEvent(EventKind k) {
  return k != EventKind::kComm && k != EventKind::kFork && k != EventKind::kExit &&
         k != EventKind::kLost;
}

struct Event {
  int64_t ts_ns = -1;  // integer nanoseconds; -1 when the source has no time
  int32_t cpu = -1;    // -1 when the format lacks it
  int32_t pid = -1;    // process (tgid); -1 when unknown
  int32_t tid = -1;    // thread
  std::string_view comm;  // the comm of `tid` as the source names it; may be empty
  // The event's name. Tracepoints: "system:name" ("sched:sched_switch"; text formats that omit
  // the system get it from the known-event table, else the bare name). Samples: the name as
  // perf script prints it, modifiers included ("cycles:uppp", "cpu-clock:pppH").
  std::string_view name;
  uint64_t period = 1;        // sample weight; 1 when the source prints none
  bool has_period = false;    // the source printed/recorded a period
  absl::Span<const Frame> stack;  // leaf first; empty when not recorded
  // A stack was recorded for this event, even when it holds no frame: a perf.data callchain
  // with no address, a `perf script` event followed by the blank line that ends a stack. tk
  // fold folds such an event as its bare comm (as stackcollapse-perf.pl); an event with no
  // stack recorded (a one-line tracepoint of `perf script` without -g) is not a stack.
  bool stack_recorded = false;
  // perf.data: when `stack` is empty because perf drops the callchain (a context marker it
  // does not know; perf script prints no stack), the sample's own IP as one frame, since
  // perf report still counts the sample there (tk report follows it). Empty otherwise.
  absl::Span<const Frame> dropped_stack_ip;
  // The stack is a recorded callchain (perf record -g); false when it is only the sample's IP
  // (perf.data without PERF_SAMPLE_CALLCHAIN) or the source does not say.
  bool callchain = false;
  // A dedupe key for the stack, 0 when the parser gives none. Within one parser's stream of
  // events (one ParseSplit half is its own stream), two events with the same non-zero
  // stack_id carry equal `stack`, `dropped_stack_ip`, `stack_recorded` and `callchain`, frame
  // for frame, names included. So an analysis may keep what it derived from one stack (a
  // folded name, report entries) under the id and reuse it for the next event that has the
  // id, without looking at the frames again. The id says nothing about comm, pid, tid, name
  // or period. perf.data: the raw callchain under the process' maps at the time; text formats
  // give none (a cache of perf script stack blocks measured slower than folding by ids).
  uint64_t stack_id = 0;
  // The views of `comm` and of every frame's symbol and dso stay valid and unchanged until
  // the parse ends (perf.data: symbol tables and interned names), so an analysis may keep
  // them without copying. perf script text: true when the sink wants stacks (frame and comm
  // names interned by parsers/perf_script/frame_table.h). False where they point into a
  // reused line buffer (ftrace text, perf script text without stacks).
  bool stable_views = false;
  // Text sources: a tracepoint's field text as the source printed it (the kernel's print
  // format as `perf script`, `trace-cmd report` or tracefs rendered it), for a sink whose mask
  // asks WithInfoText (tk script). Empty otherwise, and always for binary sources: tk never
  // evaluates print formats, tk script renders their typed events itself.
  std::string_view info_text;
  // The source knows `pid` but its own text does not show it: perf.data, whose default
  // `perf script` header prints only the TID, so stackcollapse-perf.pl folds its roots as
  // "comm-?/TID" (tk fold does the same). Text inputs that print no PID have pid -1 instead.
  bool pid_hidden = false;
  Body body;

  EventKind kind() const { return static_cast<EventKind>(body.index()); }
};

// Which events a sink wants; parsers skip decoding (and symbolizing) what nobody wants.
class EventMask {
 public:
  constexpr EventMask() = default;
  // Every event, with stacks; the families (kIrq...) come as Generic, as they print today.
  static constexpr EventMask All() {
    EventMask m;
    m.bits_ = (1u << kFirstFamilyKind) - 1;
    m.stacks_ = true;
    return m;
  }
  // Every event, each family decoded to its type.
  static constexpr EventMask AllTyped() {
    EventMask m = All();
    m.bits_ = (1u << kNumEventKinds) - 1;
    return m;
  }
  constexpr EventMask& Add(EventKind k) {
    bits_ |= 1u << static_cast<int>(k);
    return *this;
  }
  constexpr EventMask& WithStacks(bool on = true) {
    stacks_ = on;
    return *this;
  }
  // Event::info_text filled in by the text parsers.
  constexpr EventMask& WithInfoText(bool on = true) {
    info_text_ = on;
    return *this;
  }
  constexpr bool Has(EventKind k) const { return bits_ & (1u << static_cast<int>(k)); }
  constexpr bool stacks() const { return stacks_; }
  constexpr bool info_text() const { return info_text_; }
  constexpr bool operator==(const EventMask&) const = default;
  constexpr EventMask operator|(EventMask o) const {
    EventMask m;
    m.bits_ = bits_ | o.bits_;
    m.stacks_ = stacks_ || o.stacks_;
    m.info_text_ = info_text_ || o.info_text_;
    return m;
  }

 private:
  uint32_t bits_ = 0;
  bool stacks_ = false;
  bool info_text_ = false;
};

}  // namespace tk

#endif  // TK_CORE_EVENT_H_
