// The options tk irq / syscalls / cputop / memtop share: the input, the shared filter flags
// (cli/filter_options.h: --time, -p/--pid, --tid, --comm, -C/--cpu, as every command), --top
// and --json. LTTng-analyses' spellings are aliases: --procname for --comm, --limit for --top
// (docs/filters.md); -t stays an alias of --tid, as these reports had it.
#ifndef TK_CLI_REPORT_FLAGS_H_
#define TK_CLI_REPORT_FLAGS_H_

#include <iostream>
#include <optional>
#include <string>

#include "CLI/CLI.hpp"
#include "analyses/common/report.h"
#include "cli/common.h"
#include "cli/filter_options.h"
#include "core/filter.h"

namespace tk::cli {

struct ReportFlags {
  std::string path = "perf.data";
  FilterFlags filters;
  int top = 10;
  bool json = false;
  // The filter the flags give for `cmd` ("irq"); nullopt after printing the error (exit 2).
  std::optional<FilterOptions> Filter(std::string_view cmd) const {
    return ResolveFilter(filters, cmd, path);
  }
};

// Adds the input (positional or -i) and the shared filters to `app`; `with_top` adds --top.
inline void AddReportFlags(CLI::App* app, ReportFlags* f, bool with_top) {
  app->add_option("file", f->path,
                  "Input: perf.data, trace.dat, perf script or ftrace text; - for stdin")
      ->capture_default_str();
  app->add_option("-i,--input", f->path, "Input file (as perf's -i)");
  if (with_top) {
    app->add_option("--top,--limit", f->top, "Rows per table (0 = all; --limit as LTTng)")
        ->capture_default_str();
  }
  app->add_flag("--json", f->json, "JSON instead of text");
  FilterNames names;
  names.tid = "-t,--tid";
  names.comm = "--comm,--comms,--procname";
  AddFilterOptions(app, &f->filters, names);
}

// Runs `a` over flags.path; when it saw none of its events (a.events() == 0) prints `needs`
// (what to record) and returns 1; else writes its JSON or text report to stdout. `p` for
// the pipeline's other settings (tk irq freq's second pass).
template <typename Analysis>
int RunReport(const ReportFlags& flags, Analysis& a, const char* needs, Pipeline p = {}) {
  p.needs = needs;
  if (int rc = RunPipeline(flags.path, ParseOptions(), a, p); rc != kExitOk) return rc;
  if (a.events() == 0) return Fail((p.name.empty() ? flags.path : p.name) + ": " + needs, kExitData);
  if constexpr (requires { a.report(); }) {  // analyses/common/report.h's pattern
    common::WriteReport(a.report(), flags.json, std::cout);
  } else if (flags.json) {
    a.WriteJson(std::cout);
  } else {
    a.WriteText(std::cout);
  }
  return FinishOutput(std::cout);
}

}  // namespace tk::cli

#endif  // TK_CLI_REPORT_FLAGS_H_
