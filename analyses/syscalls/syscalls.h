// `tk syscalls`: per thread, per system call: calls, errors, total / min / avg / max / stdev
// of the time from sys_enter to sys_exit, from raw_syscalls:sys_enter/sys_exit or
// syscalls:sys_enter_NAME/sys_exit_NAME (lttng-syscallstats' question).
//
// Counting rules (docs/syscalls.md):
// - A call is the thread's sys_enter and its next sys_exit of the same syscall. An exit whose
//   enter was not seen (the call began before the trace or the --time window) is counted as
//   `exit_only` and never given a guessed duration; an enter whose exit was not seen (exit,
//   exit_group, a successful execve on old kernels, the end of the trace) as `enter_only`.
// - An error is a return value in [−4095, −1] (the kernel's errno range); --errno splits the
//   returns by errno name.
// - sys_exit with syscall number −1 (rt_sigreturn: the kernel has no number left to report) is
//   not a call; rt_sigreturn's enter is counted as enter_only.
// - Names: the syscall table of the recorded architecture (perf.data HEADER_ARCH, trace.dat
//   uname); text inputs record none and use --arch (default x86_64).
// - --min/--max (µs) keep calls whose duration is inside; --time keeps events inside the
//   window; task filters use the event's thread, process and comm; --cpu the event's CPU.
// Only running statistics are kept: memory grows with threads × distinct syscalls.
#ifndef TK_ANALYSES_SYSCALLS_SYSCALLS_H_
#define TK_ANALYSES_SYSCALLS_SYSCALLS_H_

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <map>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "analyses/lttng/common.h"
#include "analyses/syscalls/syscall_names.h"
#include "core/filter.h"
#include "core/kernel_events.h"
#include "core/sink.h"

namespace tk::syscalls {

// One completed call (sys_enter and its sys_exit), as the statistics count it.
struct CallRecord {
  int32_t tid = -1, pid = -1;
  std::string_view comm, name;
  int64_t nr = -1;  // syscall number; -1 for per-call events without one
  int64_t enter_ns = 0, exit_ns = 0, ret = 0;
};

struct SyscallsOptions {
  FilterOptions filter;  // the shared filters (core/filter.h)
  int top = 0;                      // threads (default) or rows (--summary); 0 = all
  double min_us = -1, max_us = -1;  // --min/--max
  bool errno_names = false;         // --errno: a return-value column
  bool summary = false;             // --summary: one table over all threads (syscount -L)
  std::string arch;                 // --arch: overrides the recorded one
  // Called with every call the statistics count (tk sql's syscalls rows).
  std::function<void(const CallRecord&)> on_call;
};

struct CallStats {
  lttng::RunningStats duration;
  uint64_t errors = 0, exit_only = 0, enter_only = 0;
  std::map<int64_t, uint64_t> returns;  // --errno: 0 = success, else errno
};

// One thread's calls.
struct SyscallThread {
  int32_t tid = -1, pid = -1;
  std::string comm;
  // std::less<> lets a string_view find a std::string key without a copy.
  std::map<std::string, CallStats, std::less<>> calls;
};

// What Finish() builds (analyses/common/report.h).
struct SyscallsReport {
  int top = 0;
  bool errno_names = false, summary = false;
  std::string arch;  // the syscall table's
  lttng::SeenRange range;
  std::vector<SyscallThread> threads;       // by calls descending, then tid
  std::map<std::string, CallStats> merged;  // --summary: per syscall over every thread
  uint64_t unnumbered_exits = 0;
};

void WriteText(const SyscallsReport& r, std::ostream& out);
void WriteJson(const SyscallsReport& r, std::ostream& out);

class SyscallsAnalysis final : public EventSink {
 public:
  explicit SyscallsAnalysis(SyscallsOptions opts);
  EventMask wants() const override { return kSyscallsNeeds.kinds; }
  void OnTraceInfo(const TraceInfo& info) override;
  absl::Status OnEvent(const Event& e) override;
  absl::Status Finish() override;
  uint64_t events() const { return events_; }
  const SyscallsReport& report() const { return report_; }

 private:
  struct Thread : lttng::TaskName {
    std::map<std::string, CallStats, std::less<>> calls;
    bool open = false;
    std::string open_name;
    int64_t open_ts = 0;
  };
  std::string_view NameOf(const Syscall& c);
  void Enter(Thread& t, std::string_view name, int64_t ts);
  void Exit(int32_t tid, Thread& t, std::string_view name, const Syscall& c, int64_t ts);

  SyscallsOptions opts_;
  Filter filter_{opts_.filter};
  SyscallTable table_;
  absl::flat_hash_map<int32_t, Thread> threads_;
  std::string name_buf_;
  uint64_t events_ = 0, unnumbered_exits_ = 0;
  lttng::SeenRange range_;
  SyscallsReport report_;
};

}  // namespace tk::syscalls

#endif  // TK_ANALYSES_SYSCALLS_SYSCALLS_H_
