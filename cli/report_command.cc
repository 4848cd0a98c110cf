// tk report [--sort KEYS] [--no-children] [-n] [--show-total-period] [--percent-limit P] [-q]
//           [--comms L] [--dsos L] [--symbols L] [--percentage relative] [-F FIELDS]
//           [--format perf|top] [--json] [FILE|-]
//
// perf report --stdio's table (perf's option names and numbers) from perf.data or
// `perf script` text, symbolized as `tk fold` symbolizes; --format top prints pprof -top's
// flat/cum table by function instead.
#include <iostream>

#include "absl/strings/str_split.h"
#include "analyses/report/report.h"
#include "analyses/report/top.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "core/absl_compat.h"
#include "core/run_settings.h"

namespace tk::cli {
namespace {

std::vector<std::string> SplitList(const std::string& s) {
  std::vector<std::string> out;
  for (absl::string_view p : absl::StrSplit(AV(s), ',', absl::SkipEmpty())) out.emplace_back(p);
  return out;
}

// --json or the text table of a sink, then the exit code of writing it.
template <typename Sink>
int Write(const Sink& sink, bool json) {
  if (json) {
    sink.WriteJson(std::cout);
  } else {
    sink.WriteText(std::cout);
  }
  return FinishOutput(std::cout);
}

}  // namespace

int RunReport(int argc, char** argv) {
  CLI::App app(
      "tk report: perf report --stdio's table, with perf's options and numbers, from perf.data\n"
      "or `perf script` text (symbolized as tk fold symbolizes). Callchains are never drawn\n"
      "(as perf's -g none). --format top prints pprof -top's flat/cum table by function.",
      "tk report");
  std::string path = "perf.data";
  std::string sort = "comm,dso,sym", fields, comms, dsos, symbols, percentage = "absolute";
  std::string format = "perf";
  bool children = false, no_children = false, json = false;
  analyses::report::ReportOptions ro;
  ParseOptions popts;
  app.add_option("file", path, "Input file (default perf.data), - for stdin");
  app.add_option("-s,--sort", sort, "Sort keys: comm, pid, dso, sym, cpu (default comm,dso,sym)");
  app.add_flag("--children", children, "Children and Self columns (default with callchains)");
  app.add_flag("--no-children", no_children, "One Overhead column (self only)");
  app.add_flag("-n,--show-nr-samples", ro.show_nr_samples, "Show a Samples column");
  app.add_flag("--show-total-period", ro.show_total_period, "Show a Period column");
  app.add_option("--percent-limit", ro.percent_limit, "Hide rows below this percent");
  app.add_flag("-q,--quiet", ro.quiet, "No header lines");
  app.add_option("-c,--comms", comms, "Only these comms (comma-separated)");
  app.add_option("-d,--dsos", dsos, "Only these shared objects (short names)");
  app.add_option("-S,--symbols", symbols, "Only these symbols");
  app.add_option("--percentage", percentage,
                 "absolute (of the whole total, default) or relative (of the filtered rows)")
      ->check(CLI::IsMember({"absolute", "relative"}));
  app.add_option("-F,--fields", fields,
                 "Exactly these columns: overhead, overhead_children, sample, period and sort "
                 "keys");
  app.add_option("--format", format, "perf (default) or top (pprof -top by function)")
      ->check(CLI::IsMember({"perf", "top"}));
  app.add_flag("--json", json, "One JSON object with the rows");
  // perf's -g/--call-graph is accepted and ignored: tk prints no callchain graphs.
  std::string call_graph;
  app.add_option("-g,--call-graph", call_graph, "Accepted for perf compatibility (no graphs)")
      ->group("");
  AddSymbolOptions(app, &popts);
  if (int rc = ParseArgs(app, argc, argv); rc >= 0) return rc;
  if (children && no_children) return Fail("report: --children and --no-children", kExitUsage);
  if (children) ro.children = true;
  if (no_children) ro.children = false;
  std::string bad;
  std::vector<analyses::report::Column> cols;
  if (!analyses::report::ParseColumns(sort, false, &cols, &bad))
    return Fail("report: unknown --sort key '" + bad + "'", kExitUsage);
  ro.sort.clear();
  for (const auto& c : cols) ro.sort.push_back(c.key);
  if (!fields.empty() && !analyses::report::ParseColumns(fields, true, &ro.fields, &bad))
    return Fail("report: unknown -F field '" + bad + "'", kExitUsage);
  ro.comms = SplitList(comms);
  ro.dsos = SplitList(dsos);
  ro.symbols = SplitList(symbols);
  ro.relative = percentage == "relative";
  ro.threads = DefaultThreads();  // --threads: a worker adds the samples

  if (format == "top") {
    analyses::report::TopSink top;
    if (int rc = RunPipeline(path, popts, top); rc != kExitOk) return rc;
    return Write(top, json);
  }
  analyses::report::ReportSink sink(ro);
  // A parser that can cut its input (perf script text in memory) parses its parts on threads
  // of their own into sinks merged in order; the others feed `sink` itself.
  analyses::report::ReportParts parts(sink);
  Pipeline pipe;
  // Not perf.data: its one pass already keeps two cores busy with three threads (reading and
  // stack keys, decoding, this sink's worker), where two parts each decode and accumulate on
  // one thread. Measured with perf.data's parts (RunSessionParts, session 9; load 8-9, 8
  // alternating runs): perf-a-g.data 0.20-0.26 s CPU in one pass, 0.28-0.37 s in two parts;
  // callgrind: the parts' 290M and 324M, then the merge's 20M, against a decoding thread's
  // 255M and the worker's 176M (docs/performance.md, report, session 9).
  if (absl::StatusOr<OpenedInput*> in = OpenInputOnce(path);
      in.ok() && (*in)->format != Format::kPerfData && (*in)->format != Format::kPerfDataPipe)
    pipe.parts = &parts;
  // Parts are not counted by RunPipeline: the samples added are the count it would make.
  pipe.nothing_reason = [&] {
    return sink.samples() > 0 ? std::string() : MissingEvents(sink.wants());
  };
  if (int rc = RunPipeline(path, popts, parts.Whole(), pipe); rc != kExitOk) return rc;
  return Write(sink, json);
}

}  // namespace tk::cli
