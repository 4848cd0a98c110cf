// tk fold [--pid|--tid] [--kernel] [--jit] [--all] [--addrs] [--event-filter=EV] [FILE|-]
//
// Folded stacks for flame graphs, as `perf script | stackcollapse-perf.pl` prints them, from
// perf.data (the default input, as perf's) or `perf script` text; "-" is stdin.
// --off-cpu / --wakeup [--state S,D,R] [--min-us N] [--max-us N]: off-CPU time per stack
// instead (cli/fold_offcpu.h).
#include <iostream>
#include <thread>

#include "analyses/fold/fold.h"
#include "analyses/fold/text_fold.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "cli/fold_offcpu.h"
#include "core/absl_compat.h"
#include "core/diag.h"
#include "core/format.h"
#include "core/input.h"
#include "parsers/perf_script/perf_script_parser.h"

namespace tk::cli {
namespace {

int Threads(int requested) {
  if (requested > 0) return requested;
  unsigned hw = std::thread::hardware_concurrency();
  return hw >= 2 ? 2 : 1;
}

}  // namespace

int RunFold(int argc, char** argv) {
  CLI::App app(
      "tk fold: fold stacks into \"root;caller;...;leaf COUNT\" lines for flame graphs, as\n"
      "`perf script | stackcollapse-perf.pl` prints them. Reads perf.data or `perf script`\n"
      "text; output sorted, weighted by the sample period when the input has one.",
      "tk fold");
  std::string path = "perf.data";
  analyses::fold::FoldOptions fo;
  bool all = false;
  int threads = 0;
  ParseOptions popts;
  app.add_option("file", path, "Input file (default perf.data), - for stdin");
  app.add_flag("--pid", fo.include_pid, "Include the PID with the process name: comm-PID");
  app.add_flag("--tid", fo.include_tid,
               "Include the PID and TID with the process name: comm-PID/TID");
  app.add_flag("--kernel", fo.names.annotate_kernel, "Annotate kernel functions with _[k]");
  app.add_flag("--jit", fo.names.annotate_jit, "Annotate JIT functions with _[j]");
  app.add_flag("--all", all, "All annotations (--kernel --jit)");
  app.add_flag("--addrs", fo.names.include_addrs,
               "Include raw addresses where symbols cannot be found: [dso <addr>]");
  app.add_option("--event-filter", fo.event_filter,
                 "Fold only events of this type (default: the first event type seen)");
  bool json = false;
  app.add_flag("--json", json, "One JSON object: {event, total, stacks: [{frames, count}]}");
  app.add_option("--threads", threads,
                 "Threads (default 2 on 2+ cores): text folds in two halves, perf.data stacks "
                 "fold beside the reader")
      ->group("");
  AddSymbolOptions(app, &popts);
  OffCpuFlags offcpu;
  AddOffCpuFlags(app, &offcpu);
  if (int rc = ParseArgs(app, argc, argv); rc >= 0) return rc;
  if (int rc = CheckOffCpuFlags(app, offcpu); rc >= 0) return rc;
  if (all) fo.names.annotate_kernel = fo.names.annotate_jit = true;

  absl::StatusOr<std::unique_ptr<Input>> in = Input::Open(path);
  if (!in.ok()) return Fail(SV(in.status().message()), kExitUsage);
  Diagnostics diag((*in)->name());
  absl::StatusOr<std::string_view> head = (*in)->Peek(8192);
  if (!head.ok()) return Fail(SV(head.status().message()), kExitUsage);
  Format format = DetectFormat(*head);
  // perf script's default header shows only the TID, so stackcollapse shows "?" for the PID
  // of perf.data samples; tk folds perf.data as that pipeline would.
  fo.pid_shown = format != Format::kPerfData && format != Format::kPerfDataPipe;
  fo.worker_thread = Threads(threads) >= 2;
  if (offcpu.on()) return RunOffCpuFold(**in, popts, offcpu, fo, json, diag);
  analyses::fold::FoldSink sink(fo);

  absl::Status st;
  if (format == Format::kPerfScriptText) {
    if (std::optional<std::string_view> text = (*in)->mapped()) {
      analyses::fold::TextFoldOptions to;
      to.threads = Threads(threads);
      to.release_parsed_pages = true;  // Input::Open maps files read-only, privately
      st = analyses::fold::FoldText(*text, (*in)->name(), to, sink, diag);
    } else {
      st = parsers::perf_script::NewPerfScriptParser(popts)->Parse(**in, sink, diag);
    }
  } else {
    st = ParseInput(**in, popts, sink, diag);
  }
  diag.PrintSummary();
  if (!sink.first_filtered().empty() && sink.samples() > 0) {
    // stackcollapse-perf.pl's message, printed when a second event type is dropped.
    std::cerr << "Filtering for events of type: " << sink.first_filtered() << "\n";
  }
  if (!st.ok()) return Fail(SV(st.message()), kExitData);
  if (std::string why = sink.NothingFoldedReason(); !why.empty()) {
    return Fail((*in)->name() + ": " + why, kExitData);
  }
  if (json) {
    sink.WriteJson(std::cout);
  } else {
    sink.Write(std::cout);
  }
  return FinishOutput(std::cout);
}

}  // namespace tk::cli
