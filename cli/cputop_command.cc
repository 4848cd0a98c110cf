// `tk cputop [hist] [options] [FILE|-]`: CPU time per thread and per CPU from sched_switch
// (lttng-cputop), or with `hist` bcc cpudist's histograms of on-/off-CPU slices.
#include <iostream>

#include "analyses/cputop/cpudist.h"
#include "analyses/cputop/cputop.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "cli/report_flags.h"
#include "core/absl_compat.h"
#include "core/kernel_events.h"

namespace tk::cli {

int RunCputop(int argc, char** argv) {
  CLI::App app(
      "tk cputop: CPU time and usage % per thread over the traced range, busy % per CPU, "
      "total (mean over the CPUs seen), migrations, priorities (lttng-cputop). A thread's CPU "
      "time is perf sched timehist -s's run-time. `tk cputop hist`: bcc cpudist histograms. "
      "Needs sched:sched_switch (perf sched record; sched_migrate_task for migrations).",
      "tk cputop");
  ReportFlags f;
  bool idle = false;
  AddReportFlags(&app, &f, true);
  app.add_flag("--idle", idle, "Include the idle task (pid 0) in the per-TID table");
  CLI::App* hist = app.add_subcommand(
      "hist", "log2 histograms of on-CPU slices (bcc cpudist; --off-cpu: off-CPU time)");
  ReportFlags hf;
  cputop::CpudistOptions ho;
  bool per_pid = false, per_tid = false;
  AddReportFlags(hist, &hf, false);
  hist->add_flag("-O,--off-cpu", ho.off_cpu, "Off-CPU time (switch-out to next switch-in)");
  hist->add_flag("-P,--pids", per_pid, "One histogram per process");
  hist->add_flag("-L,--tids", per_tid, "One histogram per thread");
  hist->add_flag("-m,--milliseconds", ho.millis, "Buckets in milliseconds");
  hist->add_flag("-I,--idle", ho.idle, "Include the idle task (pid 0)");
  if (int rc = ParseArgs(app, argc, argv); rc >= 0) return rc;

  if (hist->parsed()) {
    if (per_pid && per_tid)
      return Fail("cputop hist: -P and -L are mutually exclusive", kExitUsage);
    if (std::optional<FilterOptions> fo = hf.Filter("cputop hist")) {
      ho.filter = std::move(*fo);
    } else {
      return kExitUsage;
    }
    using By = cputop::CpudistOptions::By;
    ho.by = per_pid ? By::kProcess : per_tid ? By::kThread : By::kAll;
    cputop::CpudistAnalysis a(ho);
    return RunReport(hf, a, kCputopNeeds.missing);
  }
  cputop::CputopOptions o;
  if (std::optional<FilterOptions> fo = f.Filter("cputop")) {
    o.filter = std::move(*fo);
  } else {
    return kExitUsage;
  }
  if (o.filter.time.size() > 1) {
    return Fail("cputop: --time takes one START,END window here", kExitUsage);
  }
  o.top = f.top;
  o.idle = idle;
  cputop::CputopAnalysis a(o);
  return RunReport(f, a, kCputopNeeds.missing);
}

}  // namespace tk::cli
