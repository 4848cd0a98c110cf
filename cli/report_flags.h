// The options tk irq / syscalls / cputop / memtop share: --pid --tid --comm --cpu --time --top
// --json. Kept here until the shared filter stage (core/filter, AddFilterOptions) lands; then
// AddReportFlags becomes a call to it and ReportFlags::Parse a conversion.
#ifndef TK_CLI_REPORT_FLAGS_H_
#define TK_CLI_REPORT_FLAGS_H_

#include <iostream>
#include <string>

#include "CLI/CLI.hpp"
#include "analyses/lttng/common.h"
#include "cli/common.h"

namespace tk::cli {

struct ReportFlags {
  std::string path = "perf.data";
  std::string pids, tids, comms, cpus, time;
  int top = 10;
  bool json = false;
  absl::Status Parse(lttng::ReportFilter* f) const {
    return lttng::ParseFilter(pids, tids, comms, cpus, time, f);
  }
};

// Adds the input (positional or -i) and the shared filters to `app`; `with_top` adds --top.
inline void AddReportFlags(CLI::App* app, ReportFlags* f, bool with_top) {
  app->add_option("file", f->path,
                  "Input: perf.data, trace.dat, perf script or ftrace text; - for stdin")
      ->capture_default_str();
  app->add_option("-i,--input", f->path, "Input file (as perf's -i)");
  app->add_option("-p,--pid", f->pids, "Only these process ids (pid[,pid...])");
  app->add_option("-t,--tid", f->tids, "Only these thread ids (tid[,tid...])");
  app->add_option("--comm", f->comms, "Only tasks with this comm (exact; comm[,comm...])");
  app->add_option("-C,--cpu", f->cpus, "Only these CPUs (0,2-3)");
  app->add_option("--time", f->time,
                  "Time window START,END in trace seconds, as perf (either may be empty)");
  if (with_top) app->add_option("--top", f->top, "Rows per table (0 = all)")->capture_default_str();
  app->add_flag("--json", f->json, "JSON instead of text");
}

// Runs `a` over flags.path; when it saw none of its events (a.events() == 0) prints `needs`
// (what to record) and returns 1; else writes its JSON or text report to stdout.
template <typename Analysis>
int RunReport(const ReportFlags& flags, Analysis& a, const char* needs) {
  if (int rc = RunPipeline(flags.path, ParseOptions(), a, nullptr, needs); rc != kExitOk) return rc;
  if (a.events() == 0) return Fail(flags.path + ": " + needs, kExitData);
  if (flags.json)
    a.WriteJson(std::cout);
  else
    a.WriteText(std::cout);
  return FinishOutput(std::cout);
}

}  // namespace tk::cli

#endif  // TK_CLI_REPORT_FLAGS_H_
