// `tk syscalls [options] [FILE|-]`: system call statistics per thread (lttng-syscallstats),
// --summary (bcc syscount -L), --compat perf-trace (perf trace -s).
#include <iostream>

#include "analyses/syscalls/perf_trace.h"
#include "analyses/syscalls/syscalls.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "cli/report_flags.h"
#include "core/absl_compat.h"
#include "core/kernel_events.h"

namespace tk::cli {

int RunSyscalls(int argc, char** argv) {
  CLI::App app(
      "tk syscalls: per thread and system call: calls, errors (-4095 <= ret < 0), min, avg, "
      "max, stdev in µs (lttng-syscallstats). Calls whose enter or exit lies outside the trace "
      "are listed, not timed. Needs raw_syscalls:sys_enter/sys_exit or syscalls:sys_* (perf "
      "trace record, perf record -e 'raw_syscalls:*', trace-cmd record -e raw_syscalls).",
      "tk syscalls");
  ReportFlags f;
  f.top = 0;
  syscalls::SyscallsOptions o;
  std::string compat;
  AddReportFlags(&app, &f, true);
  app.add_option("--min", o.min_us, "Only calls lasting at least this many µs");
  app.add_option("--max", o.max_us, "Only calls lasting at most this many µs");
  app.add_flag("--errno", o.errno_names,
               "Return values by errno name ({'success': n, 'ENOENT': m})");
  app.add_flag(
      "--summary", o.summary,
      "One table over all threads: SYSCALL COUNT TIME (us) by total time (bcc syscount -L)");
  app.add_option("--arch", o.arch,
                 "Syscall table (x86_64, i386); default: the recorded machine, x86_64 for text");
  app.add_option("--compat", compat,
                 "perf-trace: `perf trace -s` (perf 6.1) byte for byte for a perf trace record "
                 "file: msec, stddev = relative standard error, exits without enter as 0 ms");
  if (int rc = ParseArgs(app, argc, argv); rc >= 0) return rc;
  if (!compat.empty() && compat != "perf-trace")
    return Fail("syscalls: --compat: only perf-trace", kExitUsage);
  if (std::optional<FilterOptions> fo = f.Filter("syscalls")) {
    o.filter = std::move(*fo);
  } else {
    return kExitUsage;
  }
  if (!compat.empty()) {
    if (!o.filter.empty() || o.summary || o.errno_names || o.min_us >= 0 || o.max_us >= 0 || f.json)
      return Fail("syscalls: --compat perf-trace takes no other option (perf trace -s has none)",
                  kExitUsage);
    syscalls::PerfTraceSummary a(o.arch);
    if (int rc = RunPipeline(f.path, ParseOptions(), a, nullptr, kSyscallsNeeds.missing);
        rc != kExitOk)
      return rc;
    if (a.syscall_events() == 0) return Fail(f.path + ": " + kSyscallsNeeds.missing, kExitData);
    a.Write(std::cout);
    return FinishOutput(std::cout);
  }
  o.top = f.top;
  syscalls::SyscallsAnalysis a(o);
  return RunReport(f, a, kSyscallsNeeds.missing);
}

}  // namespace tk::cli
