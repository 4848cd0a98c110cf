// `tk syscalls --compat perf-trace`: the summary `perf trace -s -i FILE` (perf 6.1) prints for a
// `perf trace record` file, byte for byte:
//
//    Summary of events:
//
//    dd (21703), 404 events, 13.7%
//
//      syscall            calls  errors  total       min       avg       max       stddev
//                                        (msec)    (msec)    (msec)    (msec)        (%)
//      --------------- --------  ------ -------- --------- --------- ---------     ------
//      write                 35      0     0.578     0.000     0.017     0.067     11.01%
//
// perf's rules, kept here and documented in docs/syscalls.md because they differ from tk's own:
// - A thread's entry time is its last sys_enter and is never cleared: an exit is timed from it,
//   and counts 0 ns when the thread had no enter yet (perf's "exit without enter").
// - errors = exits with ret < 0; stddev = 100 · (s/√n) / mean, the relative standard error.
// - "events" counts the thread's sys_enter and sys_exit samples with a syscall number
//   (rt_sigreturn's exit, number −1, is skipped); the % divides by every sample of the file.
// - Threads in perf's machine order (tid % 256, then fewer events first); rows by total
//   time descending, ties by syscall number; comm = the thread's last name.
#ifndef TK_ANALYSES_SYSCALLS_PERF_TRACE_H_
#define TK_ANALYSES_SYSCALLS_PERF_TRACE_H_

#include <iosfwd>
#include <map>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "analyses/lttng/common.h"
#include "analyses/syscalls/syscall_names.h"
#include "core/sink.h"

namespace tk::syscalls {

class PerfTraceSummary final : public EventSink {
 public:
  explicit PerfTraceSummary(std::string arch)
      : arch_(std::move(arch)), table_(SyscallTable::ForArch(arch_.empty() ? "x86_64" : arch_)) {}
  // Every sample counts in the denominator of the thread share.
  EventMask wants() const override {
    return EventMask::All().WithStacks(false).Add(EventKind::kSyscall);
  }
  void OnTraceInfo(const TraceInfo& info) override {
    if (arch_.empty() && !info.arch.empty()) table_ = SyscallTable::ForArch(info.arch);
  }
  absl::Status OnEvent(const Event& e) override;
  uint64_t syscall_events() const { return syscall_events_; }
  void Write(std::ostream& out) const;

 private:
  struct Stats {
    lttng::RunningStats s;
    uint64_t failures = 0;
  };
  struct Thread {
    std::string comm;
    uint64_t nr_events = 0;
    int64_t entry_time = 0;
    std::map<int64_t, Stats> calls;  // by syscall number
  };
  std::string arch_;
  SyscallTable table_;
  absl::flat_hash_map<int32_t, Thread> threads_;
  uint64_t samples_ = 0, syscall_events_ = 0;
};

}  // namespace tk::syscalls

#endif  // TK_ANALYSES_SYSCALLS_PERF_TRACE_H_
