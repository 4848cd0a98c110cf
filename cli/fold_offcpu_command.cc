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

namespace {

// The sink for `flags`, or a usage error's exit code.
int MakeSink(const OffCpuFlags& flags, const analyses::fold::FoldOptions& fold,
             const FilterOptions& filter, std::unique_ptr<analyses::offcpu::OffCpuSink>* out) {
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
  return kExitOk;
}

// Why the parse left nothing to fold, as one line; "" when it did not.
std::string NothingReason(const analyses::offcpu::OffCpuSink& sink) {
  if (!sink.NothingToFold()) return "";
  return "no sched:sched_switch callchains to fold (record with `perf record -e "
         "sched:sched_switch -e sched:sched_waking -a -g`)";
}

// The notes after a fold of `name`.
void WriteNotes(const std::string& name, const OffCpuFlags& flags,
                const analyses::offcpu::OffCpuSink& sink) {
  if (flags.wakeup && sink.stats().waker_stacks == 0) {
    std::cerr << "tk: " << name
              << ": no sched_waking/sched_wakeup callchains: no waker stacks (record with "
                 "-e sched:sched_waking -g)\n";
  }
  sink.WriteNote(std::cerr);
}

}  // namespace

int FoldOffCpu(const std::string& path, const ParseOptions& popts, const OffCpuFlags& flags,
               const analyses::fold::FoldOptions& fold, const FilterOptions& filter,
               std::unique_ptr<analyses::offcpu::OffCpuSink>* out) {
  if (int rc = MakeSink(flags, fold, filter, out); rc != kExitOk) return rc;
  analyses::offcpu::OffCpuSink& sink = **out;
  std::string name;
  Pipeline pipe;
  pipe.before_parse = [&](Input& in, Format, Parser&) {
    name = in.name();
    return -1;
  };
  pipe.nothing_reason = [&] { return NothingReason(sink); };
  if (int rc = RunPipeline(path, popts, sink, pipe); rc != kExitOk) return rc;
  WriteNotes(name, flags, sink);
  return kExitOk;
}

int FoldOffCpu(Input& in, Parser& parser, const OffCpuFlags& flags,
               const analyses::fold::FoldOptions& fold, const FilterOptions& filter,
               Diagnostics& diag, std::unique_ptr<analyses::offcpu::OffCpuSink>* out) {
  if (int rc = MakeSink(flags, fold, filter, out); rc != kExitOk) return rc;
  analyses::offcpu::OffCpuSink& sink = **out;
  absl::Status st = parser.Parse(in, sink, diag);
  diag.PrintSummary();
  if (!st.ok()) return Fail(SV(st.message()), kExitData);
  if (std::string why = NothingReason(sink); !why.empty()) {
    return Fail(in.name() + ": " + why, kExitData);
  }
  WriteNotes(in.name(), flags, sink);
  return kExitOk;
}

int RunOffCpuFold(const std::string& path, const ParseOptions& popts, const OffCpuFlags& flags,
                  const analyses::fold::FoldOptions& fold, const FilterOptions& filter,
                  bool json) {
  std::unique_ptr<analyses::offcpu::OffCpuSink> sink;
  if (int rc = FoldOffCpu(path, popts, flags, fold, filter, &sink); rc != kExitOk) return rc;
  if (json) {
    sink->WriteJson(std::cout);
  } else {
    sink->Write(std::cout);
  }
  return FinishOutput(std::cout);
}

}  // namespace tk::cli
