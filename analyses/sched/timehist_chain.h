// `perf sched timehist`'s callchain column: the stack of each sched_switch sample (perf sched
// record -g) after a row, leaf first, on one line:
//
//   ... 0.005      0.000      0.008    anon_pipe_read <- vfs_read <- ksys_read <- do_syscall_64
//
// perf (builtin-sched.c, timehist_print_sample and save_task_callchain) prints two spaces,
// then " NAME" for the first frame and " <- NAME" for each next one, and skips the scheduler's
// own functions: frames whose symbol is exactly schedule, __schedule or preempt_schedule. A
// frame without a symbol is "[unknown]". The idle task's rows have no column.
//
// How many frames (--max-stack N, default 5): perf resolves the first N+2 frames and then
// drops the scheduler's, so it prints N+1 or N+2 functions when fewer than two of them are
// scheduler frames (a preemption through __cond_resched). tk prints at most N functions, as
// --max-stack's help says; --compat perf-6.1 keeps perf's N+2 window.
//
// User-space frames: perf 6.1's timehist handles MMAP records but not MMAP2, which perf
// record writes for every user mapping, so every user frame prints "[unknown]". tk names them
// as tk fold and perf script do; --compat perf-6.1 prints "[unknown]" (docs/sched.md).
//
// -I (idle-hist) with callchains: the chain of the task that went idle is kept per CPU and
// the idle period that follows is charged to it; the summary lists per CPU the chains by idle
// time ("Idle stats by callchain:", frames folded callee first as "a <- b").
#ifndef TK_ANALYSES_SCHED_TIMEHIST_CHAIN_H_
#define TK_ANALYSES_SCHED_TIMEHIST_CHAIN_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/types/span.h"
#include "core/event.h"

namespace tk::sched {

// perf's ignore list: the scheduler functions every switch-out passes through.
bool IsSchedulerFunction(std::string_view symbol);

// A frame of a sample's chain as timehist shows it. `ignored` frames (the scheduler's) are
// kept in -I's chains, as perf keeps them, but never printed.
struct ChainFrame {
  std::string_view name;  // the symbol, or "[unknown]"
  uint64_t ip = 0;
  bool resolved = false;
  bool ignored = false;
};

// Which frames of a stack (leaf first) timehist considers, by perf 6.1's rules (`perf61`) or
// tk's (see the file comment). Appends to `out` (cleared first).
void ChainFrames(absl::Span<const Frame> stack, uint32_t max_stack, bool perf61,
                 std::vector<ChainFrame>* out);

// Whether two chains print the same column.
bool SameColumn(const std::vector<ChainFrame>& a, const std::vector<ChainFrame>& b);

// The row's column: "  " + " a <- b <- c" (the ignored frames skipped).
void AppendChainColumn(std::string* out, const std::vector<ChainFrame>& chain);
// The printed frames' names as a JSON array.
void AppendChainJson(std::string* out, const std::vector<ChainFrame>& chain);

// -I: one CPU's idle time by the callchain of the task that went idle.
class IdleChains {
 public:
  // A task went idle on this CPU with `chain`; it stays the CPU's chain until the next one.
  void Save(const std::vector<ChainFrame>& chain);
  // An idle period of `ns` ended: charged to the saved chain, if any.
  void Charge(uint64_t ns);
  struct Entry {
    std::vector<std::string> frames;  // the printed frames (no scheduler's), callee first
    uint64_t hit = 0, count = 0, order = 0;
  };
  // Most idle time first; equal times in the order the chains came (perf's flat sort).
  std::vector<const Entry*> Sorted() const;
  // perf's table:
  //   "  Idle time (msec)     Count  Callchains" ... "  " TIME(12) " %8d  " "a <- b"
  void Append(std::string* out) const;

 private:
  std::string current_;  // the saved chain's key (every frame, ignored ones too)
  std::vector<std::string> current_frames_;
  bool has_current_ = false;
  absl::flat_hash_map<std::string, Entry> by_chain_;
};

}  // namespace tk::sched

#endif  // TK_ANALYSES_SCHED_TIMEHIST_CHAIN_H_
