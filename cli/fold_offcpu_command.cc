// tk fold --off-cpu / --wakeup (see cli/fold_offcpu.h and analyses/offcpu/offcpu.h).
#include <iostream>

#include "cli/common.h"
#include "cli/fold_offcpu.h"
#include "core/absl_compat.h"

namespace tk::cli {

void AddOffCpuFlags(CLI::App& app, OffCpuFlags* f) {
  app.add_flag("--off-cpu", f->off_cpu,
               "Fold where threads waited: the sched_switch callchain at each switch-out, "
               "weighted by the microseconds until the thread ran again (bcc offcputime -f)");
  app.add_flag("--wakeup", f->wakeup,
               "As --off-cpu, with the waker's stack (sched_waking/sched_wakeup callchain) "
               "after \"--\", leaf first, then its comm (bcc offwaketime -f; render with "
               "--colors chain)");
  app.add_option("--state", f->states,
                 "--off-cpu/--wakeup: only intervals that began in these prev_states "
                 "(S,D,R,...; R includes R+; default all)");
  app.add_option("--min-us", f->min_us,
                 "--off-cpu/--wakeup: drop intervals shorter than this many us (default 1)");
  app.add_option("--max-us", f->max_us,
                 "--off-cpu/--wakeup: drop intervals longer than this many us");
}

int CheckOffCpuFlags(const CLI::App& app, const OffCpuFlags& f) {
  if (f.on()) return -1;
  for (const char* flag : {"--state", "--min-us", "--max-us"}) {
    if (app.count(flag) > 0)
      return Fail(std::string(flag) + " needs --off-cpu or --wakeup", kExitUsage);
  }
  return -1;
}

int FoldOffCpu(Input& in, const ParseOptions& popts, const OffCpuFlags& flags,
               const analyses::fold::FoldOptions& fold, const FilterOptions& filter,
               Diagnostics& diag, std::unique_ptr<analyses::offcpu::OffCpuSink>* out) {
  analyses::offcpu::OffCpuOptions oo;
  oo.filter = filter;
  oo.wakeup = flags.wakeup;
  oo.min_us = flags.min_us;
  oo.max_us = flags.max_us;
  oo.fold = fold;
  if (!flags.states.empty()) {
    if (absl::Status st = analyses::offcpu::ParseStates(flags.states, &oo.states); !st.ok())
      return Fail(SV(st.message()), kExitUsage);
  }
  if (oo.min_us > oo.max_us) return Fail("--min-us is above --max-us", kExitUsage);
  *out = std::make_unique<analyses::offcpu::OffCpuSink>(oo);
  analyses::offcpu::OffCpuSink& sink = **out;
  absl::Status st = ParseInput(in, popts, sink, diag);
  diag.PrintSummary();
  if (!st.ok()) return Fail(SV(st.message()), kExitData);
  if (sink.NothingToFold()) {
    return Fail(in.name() + ": no sched:sched_switch callchains to fold (record with `perf " +
                    "record -e sched:sched_switch -e sched:sched_waking -a -g`)",
                kExitData);
  }
  if (flags.wakeup && sink.stats().waker_stacks == 0) {
    std::cerr << "tk: " << in.name()
              << ": no sched_waking/sched_wakeup callchains: no waker stacks (record with "
                 "-e sched:sched_waking -g)\n";
  }
  sink.WriteNote(std::cerr);
  return kExitOk;
}

int RunOffCpuFold(Input& in, const ParseOptions& popts, const OffCpuFlags& flags,
                  const analyses::fold::FoldOptions& fold, const FilterOptions& filter,
                  bool json, Diagnostics& diag) {
  std::unique_ptr<analyses::offcpu::OffCpuSink> sink;
  if (int rc = FoldOffCpu(in, popts, flags, fold, filter, diag, &sink); rc != kExitOk) return rc;
  if (json) {
    sink->WriteJson(std::cout);
  } else {
    sink->Write(std::cout);
  }
  return FinishOutput(std::cout);
}

}  // namespace tk::cli
