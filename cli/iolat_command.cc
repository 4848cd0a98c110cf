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

#include "analyses/iolat/iolat.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "cli/filter_options.h"
#include "core/absl_compat.h"

namespace tk::cli {

namespace {

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

  iolat::Options opts;
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
  hist->add_flag("-Q,--queued", opts.hist_queued, "include OS queued time (Q2C instead of D2C)");
  hist->add_flag("-m,--milliseconds", opts.hist_millis, "millisecond histogram");

  CLI::App* top = app.add_subcommand("top", "the slowest requests (by Q2C, or D2C without Q)");
  AddCommon(*top, &common);
  top->add_option("-n", opts.top_n, "how many")->check(NonNegative())->capture_default_str();
  top->add_flag("--d2c", opts.top_by_d2c, "rank by device time (D2C)");

  CLI::App* log = app.add_subcommand("log", "every completed request (biosnoop-like)");
  AddCommon(*log, &common);

  app.add_option("--writers", opts.top_writers, "writers listed per device in the report")
      ->capture_default_str();
  if (int rc = ParseArgs(app, argc, argv); rc >= 0) return rc;
  std::optional<FilterOptions> filter = ResolveFilter(common.filter, "iolat", common.path);
  if (!filter) return kExitUsage;
  opts.filter = std::move(*filter);

  if (lat->parsed()) opts.mode = iolat::Options::Mode::kLatency;
  if (hist->parsed()) opts.mode = iolat::Options::Mode::kHist;
  if (top->parsed()) opts.mode = iolat::Options::Mode::kTop;
  if (log->parsed()) opts.mode = iolat::Options::Mode::kLog;
  if (by_disk) opts.hist_by = iolat::Options::HistBy::kDevice;
  if (by_flags) opts.hist_by = iolat::Options::HistBy::kFlags;
  if (by_proc) opts.hist_by = iolat::Options::HistBy::kProcess;
  opts.json = common.json;
  opts.input_name = common.path == "-" ? "<stdin>" : common.path;

  std::optional<iolat::MountTable> mounts;
  if (!common.mountinfo.empty()) {
    std::ifstream f(common.mountinfo, std::ios::binary);
    if (!f) return Fail(common.mountinfo + ": cannot open", kExitUsage);
    std::stringstream ss;
    ss << f.rdbuf();
    absl::StatusOr<iolat::MountTable> t = iolat::MountTable::Parse(ss.str(), common.mountinfo);
    if (!t.ok()) return Fail(SV(t.status().message()), kExitData);
    mounts = std::move(*t);
    opts.mounts = &*mounts;
  }

  iolat::IolatAnalysis analysis(opts, &std::cout);
  ParseOptions popts;
  popts.use_buildid_cache = false;
  popts.use_host_kallsyms = false;
  int rc = RunPipeline(common.path, popts, analysis);
  int out_rc = FinishOutput(std::cout);
  return rc != kExitOk ? rc : out_rc;
}

}  // namespace tk::cli
