// tk iolat: block I/O latency and write-sync detection per device.
//
//   tk iolat [--mountinfo F] [--json] [FILE]      write-sync report (the default)
//   tk iolat latency [FILE]                       btt-style Q2G G2I I2D D2C Q2C per device
//   tk iolat hist [-D|-F|-P] [-Q] [-m] [FILE]     bcc biolatency histograms
//   tk iolat top [-n N] [--d2c] [FILE]            the slowest requests
//   tk iolat log [FILE]                           biosnoop-like list, in completion order
#include <fstream>
#include <iostream>
#include <sstream>

#include "analyses/common/report.h"
#include "analyses/iolat/iolat.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "cli/filter_options.h"
#include "core/absl_compat.h"

namespace tk::cli {

namespace {

// Runs `a` over the input (block and sched events need no symbols: no build-id cache, no
// host kallsyms).
int Parse(const std::string& path, EventSink& a) {
  ParseOptions popts;
  popts.use_buildid_cache = false;
  popts.use_host_kallsyms = false;
  return RunPipeline(path, popts, a);
}

// Runs `a` and, when that succeeded, writes its report (nothing before an error line).
template <typename A>
int Run(const std::string& path, A& a, bool json) {
  if (int rc = Parse(path, a); rc != kExitOk) return rc;
  common::WriteReport(a.report(), json, std::cout);
  return FinishOutput(std::cout);
}

struct Common {
  std::string path = "perf.data";
  std::string mountinfo;
  bool json = false;
  FilterFlags filter;
};

void AddCommon(CLI::App& app, Common* c) {
  app.add_option("file", c->path, "Input file (perf.data, trace.dat, perf script or ftrace "
                                  "text), - for stdin")
      ->capture_default_str();
  app.add_option("--mountinfo", c->mountinfo,
                 "A copy of /proc/self/mountinfo from the traced machine: maps devices to "
                 "mounts and tells a `sync` mount from O_SYNC/fsync in the application");
  app.add_flag("--json", c->json, "JSON output");
  FilterNames names;
  names.device = "-d,--device";
  AddFilterOptions(&app, &c->filter, names);
}

}  // namespace

int RunIolat(int argc, char** argv) {
  CLI::App app(
      "tk iolat: block I/O latency and write-sync detection per device.\n"
      "Default: per device, how much of the written data was synchronous (S/FUA/preflush), who "
      "queued it (the writer, flushers, jbd2, an upper dm/loop device), whether writers slept "
      "in D, and a verdict: write-sync, async, mixed, stacked (the I/O of devices above dominates) or no-writes (cause: mount, application, "
      "stacked, unknown).\nRecord with: perf record -e 'block:*' -e sched:sched_switch "
      "-e sched:sched_wakeup -a",
      "tk iolat");
  app.require_subcommand(0, 1);
  Common common;
  AddCommon(app, &common);

  iolat::WriteSyncOptions wopts;
  iolat::HistOptions hopts;
  iolat::TopOptions topts;
  CLI::App* lat = app.add_subcommand("latency", "btt-style stage latencies per device: Q2G "
                                                "G2I I2D D2C Q2C (count min avg p50 p99 max)");
  AddCommon(*lat, &common);

  CLI::App* hist = app.add_subcommand("hist", "bcc biolatency log2 histograms of D2C");
  AddCommon(*hist, &common);
  bool by_disk = false, by_flags = false, by_proc = false;
  auto* d_opt = hist->add_flag("-D,--disks", by_disk, "a histogram per device");
  auto* f_opt = hist->add_flag("-F,--flags", by_flags, "a histogram per I/O flag set");
  auto* p_opt = hist->add_flag("-P,--processes", by_proc, "a histogram per submitting process");
  d_opt->excludes(f_opt)->excludes(p_opt);
  f_opt->excludes(p_opt);
  hist->add_flag("-Q,--queued", hopts.queued, "include OS queued time (Q2C instead of D2C)");
  hist->add_flag("-m,--milliseconds", hopts.millis, "millisecond histogram");

  CLI::App* top = app.add_subcommand("top", "the slowest requests (by Q2C, or D2C without Q)");
  AddCommon(*top, &common);
  top->add_option("-n", topts.n, "how many")->check(NonNegative())->capture_default_str();
  top->add_flag("--d2c", topts.by_d2c, "rank by device time (D2C)");

  CLI::App* log = app.add_subcommand("log", "every completed request (biosnoop-like)");
  AddCommon(*log, &common);

  app.add_option("--writers", wopts.top_writers, "writers listed per device in the report")
      ->capture_default_str();
  if (int rc = ParseArgs(app, argc, argv); rc >= 0) return rc;
  std::optional<FilterOptions> filter = ResolveFilter(common.filter, "iolat", common.path);
  if (!filter) return kExitUsage;
  std::optional<iolat::MountTable> mounts;
  if (!common.mountinfo.empty()) {
    std::ifstream f(common.mountinfo, std::ios::binary);
    if (!f) return Fail(common.mountinfo + ": cannot open", kExitUsage);
    std::stringstream ss;
    ss << f.rdbuf();
    absl::StatusOr<iolat::MountTable> t = iolat::MountTable::Parse(ss.str(), common.mountinfo);
    if (!t.ok()) return Fail(SV(t.status().message()), kExitData);
    mounts = std::move(*t);
  }
  iolat::Options io;
  io.filter = std::move(*filter);
  const bool json = common.json;
  if (lat->parsed()) {
    iolat::StageLatencyAnalysis a(io);
    return Run(common.path, a, json);
  }
  if (hist->parsed()) {
    hopts.io = std::move(io);
    if (by_disk) hopts.by = iolat::HistOptions::By::kDevice;
    if (by_flags) hopts.by = iolat::HistOptions::By::kFlags;
    if (by_proc) hopts.by = iolat::HistOptions::By::kProcess;
    iolat::HistAnalysis a(hopts);
    return Run(common.path, a, json);
  }
  if (top->parsed()) {
    topts.io = std::move(io);
    iolat::TopAnalysis a(topts);
    return Run(common.path, a, json);
  }
  if (log->parsed()) {
    iolat::LogAnalysis a(io, json, &std::cout);
    if (int rc = Parse(common.path, a); rc != kExitOk) return rc;
    a.WriteRest();
    return FinishOutput(std::cout);
  }
  wopts.io = std::move(io);
  wopts.input_name = common.path == "-" ? "<stdin>" : common.path;
  if (mounts) wopts.mounts = &*mounts;

  iolat::WriteSyncAnalysis a(std::move(wopts));
  return Run(common.path, a, json);
}

}  // namespace tk::cli
