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
#include "cli/fold_command.h"
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

void AddFoldArgs(CLI::App& app, FoldArgs* a) {
  analyses::fold::FoldOptions& fo = a->fo;
  app.add_flag("--pid", fo.include_pid, "Include the PID with the process name: comm-PID");
  app.add_flag("--tid", fo.include_tid,
               "Include the PID and TID with the process name: comm-PID/TID");
  app.add_flag("--kernel", fo.names.annotate_kernel, "Annotate kernel functions with _[k]");
  app.add_flag("--jit", fo.names.annotate_jit, "Annotate JIT functions with _[j]");
  app.add_flag("--all", a->all, "All annotations (--kernel --jit)");
  app.add_flag("--addrs", fo.names.include_addrs,
               "Include raw addresses where symbols cannot be found: [dso <addr>]");
  app.add_option("--event-filter", fo.event_filter,
                 "Fold only events of this type (default: the first event type seen)");
  app.add_option("--threads", a->threads,
                 "Threads (default 2 on 2+ cores): text folds in two halves, perf.data stacks "
                 "fold beside the reader")
      ->group("");
  AddSymbolOptions(app, &a->popts);
  AddOffCpuFlags(app, &a->offcpu);
}

int CheckFoldArgs(const CLI::App& app, const FoldArgs& a) {
  return CheckOffCpuFlags(app, a.offcpu);
}

int FoldToText(Input& in, FoldArgs& a, bool json, std::ostream& out) {
  analyses::fold::FoldOptions fo = a.fo;
  if (a.all) fo.names.annotate_kernel = fo.names.annotate_jit = true;
  Diagnostics diag(in.name());
  absl::StatusOr<std::string_view> head = in.Peek(8192);
  if (!head.ok()) return Fail(SV(head.status().message()), kExitUsage);
  Format format = DetectFormat(*head);
  // perf script's default header shows only the TID, so stackcollapse shows "?" for the PID
  // of perf.data samples; tk folds perf.data as that pipeline would.
  fo.pid_shown = format != Format::kPerfData && format != Format::kPerfDataPipe;
  fo.worker_thread = Threads(a.threads) >= 2;
  if (a.offcpu.on()) {
    // RunOffCpuFold writes to std::cout: point it at `out` meanwhile.
    std::streambuf* saved = std::cout.rdbuf(out.rdbuf());
    int rc = RunOffCpuFold(in, a.popts, a.offcpu, fo, json, diag);
    std::cout.rdbuf(saved);
    return rc;
  }
  analyses::fold::FoldSink sink(fo);

  absl::Status st;
  if (format == Format::kPerfScriptText) {
    if (std::optional<std::string_view> text = in.mapped()) {
      analyses::fold::TextFoldOptions to;
      to.threads = Threads(a.threads);
      to.release_parsed_pages = true;  // Input::Open maps files read-only, privately
      st = analyses::fold::FoldText(*text, in.name(), to, sink, diag);
    } else {
      st = parsers::perf_script::NewPerfScriptParser(a.popts)->Parse(in, sink, diag);
    }
  } else {
    st = ParseInput(in, a.popts, sink, diag);
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
    sink.WriteJson(out);
  } else {
    sink.Write(out);
  }
  return FinishOutput(out);
}

int RunFold(int argc, char** argv) {
  CLI::App app(
      "tk fold: fold stacks into \"root;caller;...;leaf COUNT\" lines for flame graphs, as\n"
      "`perf script | stackcollapse-perf.pl` prints them. Reads perf.data or `perf script`\n"
      "text; output sorted, weighted by the sample period when the input has one.",
      "tk fold");
  std::string path = "perf.data";
  FoldArgs args;
  app.add_option("file", path, "Input file (default perf.data), - for stdin");
  bool json = false;
  app.add_flag("--json", json, "One JSON object: {event, total, stacks: [{frames, count}]}");
  AddFoldArgs(app, &args);
  if (int rc = ParseArgs(app, argc, argv); rc >= 0) return rc;
  if (int rc = CheckFoldArgs(app, args); rc >= 0) return rc;

  absl::StatusOr<std::unique_ptr<Input>> in = Input::Open(path);
  if (!in.ok()) return Fail(SV(in.status().message()), kExitUsage);
  return FoldToText(**in, args, json, std::cout);
}

}  // namespace tk::cli
