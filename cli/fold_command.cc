// tk fold [--pid|--tid] [--kernel] [--jit] [--all] [--addrs] [--event-filter=EV] [FILE|-]
//
// Folded stacks for flame graphs, as `perf script | stackcollapse-perf.pl` prints them, from
// perf.data (the default input, as perf's) or `perf script` text; "-" is stdin.
// --off-cpu / --wakeup [--state S,D,R] [--min-us N] [--max-us N]: off-CPU time per stack
// instead (cli/fold_offcpu.h).
#include <iostream>
#include <memory>

#include "analyses/fold/fold.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "cli/filter_options.h"
#include "cli/fold_offcpu.h"
#include "core/absl_compat.h"
#include "core/diag.h"
#include "core/input.h"
#include "core/run_settings.h"
#include "core/sanitizers.h"

namespace tk::cli {
namespace {

// ParseArgs' default (the CPUs this process may run on, without hardware_concurrency()'s
// read of /sys/devices/system/cpu/online, a host file no input needs).
int Threads(int requested) { return ResolveThreads(requested); }

// Whether the folded stacks may be left unfreed at the end (a CLI process about to exit:
// freeing ~10^4 strings and their map was ~1 ms of the serial end of a perf.data fold).
// Sanitizer builds free them, so their leak checks stay meaningful.
constexpr bool kLeakAtExit = !kAddressOrMemorySanitizer;

}  // namespace

int RunFold(int argc, char** argv) {
  CLI::App app(
      "tk fold: fold stacks into \"root;caller;...;leaf COUNT\" lines for flame graphs, as\n"
      "`perf script | stackcollapse-perf.pl` prints them. Reads perf.data or `perf script`\n"
      "text; output sorted, weighted by the sample period when the input has one.",
      "tk fold");
  std::string path = "perf.data";
  analyses::fold::FoldOptions fo;
  int threads = 0;
  ParseOptions popts;
  app.add_option("file", path, "Input file (default perf.data), - for stdin");
  app.add_flag("--pid", fo.include_pid, "Include the PID with the process name: comm-PID");
  app.add_flag("--tid", fo.include_tid,
               "Include the PID and TID with the process name: comm-PID/TID");
  FoldNameFlags names;
  AddFoldNameFlags(app, &names,
                   "Fold only events of this type (default: the first event type seen)");
  bool json = false;
  app.add_flag("--json", json, "One JSON object: {event, total, stacks: [{frames, count}]}");
  app.add_option("--threads", threads,
                 "Threads (default 2 on 2+ cores): text folds in two halves, perf.data is read "
                 "(and its stacks folded) beside the decoding; output is the same with 1")
      ->check(CLI::PositiveNumber);
  AddSymbolOptions(app, &popts);
  OffCpuFlags offcpu;
  AddOffCpuFlags(app, &offcpu);
  FilterFlags ff;
  FilterNames fnames;  // --pid/--tid are stackcollapse-perf.pl's root annotations here
  fnames.pid = "-p,--pids";
  fnames.tid = "-t,--tids";
  AddFilterOptions(&app, &ff, fnames);
  if (int rc = ParseArgs(app, argc, argv); rc >= 0) return rc;
  if (int rc = CheckOffCpuFlags(app, offcpu); rc >= 0) return rc;
  std::optional<FilterOptions> fopts = ResolveFilter(ff, "fold", path);
  if (!fopts) return kExitUsage;
  const Filter filter(std::move(*fopts));
  names.Apply();
  fo.names = names.names;
  fo.event_filter = names.event_filter;

  fo.worker_thread = Threads(threads) >= 2;
  if (offcpu.on()) return RunOffCpuFold(path, popts, offcpu, fo, filter.options(), json);
  auto owned_sink = std::make_unique<analyses::fold::FoldSink>(fo);
  analyses::fold::FoldSink& sink = *owned_sink;
  // perf script text in memory folds in two halves on two threads (the parser splits it), as
  // file-mode perf.data does with --perf-data-split-min; the FoldSink's worker thread then
  // never starts (each half folds on its own thread). A one-pass parse folds into `sink` with
  // its worker.
  analyses::fold::FoldParts parts(sink, filter.empty() ? nullptr : &filter);
  popts.threads = Threads(threads);
  Pipeline pipe;
  pipe.parts = &parts;
  pipe.after_parse = [&](const Diagnostics&) {
    if (!sink.first_filtered().empty() && sink.samples() > 0) {
      // stackcollapse-perf.pl's message, printed when a second event type is dropped.
      std::cerr << "Filtering for events of type: " << sink.first_filtered() << "\n";
    }
  };
  pipe.nothing_reason = [&] { return sink.NothingFoldedReason(); };
  if (int rc = RunPipeline(path, popts, parts.Whole(), pipe); rc != kExitOk) return rc;
  if (json) {
    sink.WriteJson(std::cout);
  } else {
    sink.Write(std::cout);
  }
  const int rc = FinishOutput(std::cout);
  if (kLeakAtExit) (void)owned_sink.release();  // (after the output: see kLeakAtExit)
  return rc;
}

}  // namespace tk::cli
