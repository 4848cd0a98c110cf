// `tk sched [latency|timehist|hist|top|util] [options] [FILE|-]`: scheduler latency.
// `latency` is the default subcommand, as `perf sched latency` is the usual first look.
// Each subcommand: flags -> its analysis' Options, RunPipeline, then the report.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "analyses/common/report.h"
#include "analyses/sched/hist.h"
#include "analyses/sched/latency.h"
#include "analyses/sched/timehist.h"
#include "analyses/sched/top.h"
#include "analyses/sched/util.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "cli/filter_options.h"
#include "core/absl_compat.h"
#include "core/format.h"
#include "core/input.h"
#include "nlohmann/json.hpp"
#include "parsers/parser.h"

namespace tk::cli {
namespace {

constexpr const char* kSubcommands[] = {"latency", "timehist", "hist", "top", "util"};
constexpr const char* kCompatHelp =
    "perf-6.1: reproduce perf 6.1 (Debian 12) byte for byte: sched_waking ignored by latency, "
    "R+ (preempted) not runnable, no sch delay after an R switch-out, thread names from COMM "
    "records only";

// Adds the input file (positional, or perf's -i/--input) to a subcommand.
void AddInput(CLI::App* app, std::string* path) {
  app->add_option("file", *path,
                  "Input: perf.data, trace.dat, perf script or ftrace text; - for stdin")
      ->capture_default_str();
  app->add_option("-i,--input", *path, "Input file (as perf's -i)");
}

int Usage(std::string_view cmd, std::string_view what) {
  return UsageError(std::string("tk sched ") + std::string(cmd), what);
}

// "perf-6.1" -> true; "" -> false; anything else is an error.
bool ParseCompat(const std::string& v, bool* perf61) {
  *perf61 = v == "perf-6.1";
  return v.empty() || *perf61;
}

// The header facts of a perf.data or trace.dat input (tk info's, the parser's Describe()), for
// the perf numbers that come from the file rather than its events, read before the pipeline
// runs (timehist -V's CPU count sizes its columns), from the run's one opening of the input
// (OpenInputOnce: the pipeline parses the same, detected once; stdin too); {} for text.
nlohmann::json DescribeFile(const std::string& path) {
  absl::StatusOr<OpenedInput*> in = OpenInputOnce(path);
  if (!in.ok()) return {};  // the pipeline says what is wrong
  absl::StatusOr<std::unique_ptr<Parser>> parser =
      ParserFor(*(*in)->input, (*in)->format, ParseOptions());
  if (!parser.ok()) return {};
  absl::StatusOr<std::string> j = DescribeFacts(*(*in)->input, **parser);
  return j.ok() ? nlohmann::json::parse(*j, nullptr, false) : nlohmann::json{};
}

struct LatencyFlags {
  std::string sort = "avg, max, switch, runtime", compat;
  bool pids = false, json = false;
  int cpu = -1;
};

CLI::App* AddLatency(CLI::App& app, std::string* path, LatencyFlags* f) {
  CLI::App* c = app.add_subcommand(
      "latency", "per-task scheduling delay table (perf sched latency; the default)");
  AddInput(c, path);
  c->add_option("-s,--sort", f->sort, "Sort by key(s): pid, avg, max, switch, runtime")
      ->capture_default_str();
  c->add_flag("-p,--pids", f->pids, "One row per thread (comm:tid) instead of per comm");
  c->add_option("-C,--CPU", f->cpu,
                "The recording holds only this CPU (perf record -C): trust its wakeups and "
                "migrations (events are not filtered, as perf)");
  c->add_flag("--json", f->json, "JSON: {tasks, total, info}");
  c->add_option("--compat", f->compat, kCompatHelp);
  return c;
}

int RunLatency(const std::string& path, const LatencyFlags& f, FilterOptions filter) {
  sched::LatencyOptions opts;
  opts.filter = std::move(filter);
  absl::StatusOr<std::vector<sched::LatencySortKey>> keys = sched::ParseLatencySort(f.sort);
  if (!keys.ok()) return Usage("latency", SV(keys.status().message()));
  opts.sort = *keys;
  opts.per_pid = f.pids;
  opts.profile_cpu = f.cpu;
  if (!ParseCompat(f.compat, &opts.perf61)) return Usage("latency", "--compat: only perf-6.1");
  sched::LatencyAnalysis a(opts);
  Format format = Format::kUnknown;
  Pipeline p;
  p.detected = &format;
  std::string facts;
  if (opts.perf61) p.facts = &facts;
  if (int rc = RunPipeline(path, ParseOptions(), a, p); rc != kExitOk) return rc;
  sched::LatencyReport r = a.report();
  // perf's "INFO: ... lost events (N out of TOTAL)": TOTAL counts every record of the file
  // (MMAP, COMM, FINISHED_ROUND, ...), not only the events an analysis reads.
  if (opts.perf61 && format == Format::kPerfData) {
    nlohmann::json d = nlohmann::json::parse(facts, nullptr, false);
    if (d.is_object() && d.contains("records")) r.info.nr_events = d["records"].get<uint64_t>();
  }
  if (std::string note = sched::LatencyPerf61Note(r); !note.empty()) std::cerr << "tk: " << note << "\n";
  common::WriteReport(r, f.json, std::cout);
  return FinishOutput(std::cout);
}

struct TimehistFlags {
  sched::TimehistOptions opts;
  std::string compat;
  ParseOptions popts;  // how the callchains' frames are symbolized
};

CLI::App* AddTimehist(CLI::App& app, std::string* path, TimehistFlags* f) {
  CLI::App* c = app.add_subcommand(
      "timehist", "one row per context switch: wait, sch delay, run time (perf sched timehist)");
  sched::TimehistOptions& o = f->opts;
  AddInput(c, path);
  c->add_flag("-s,--summary", o.summary_only, "Only the per-task summary");
  c->add_flag("-S,--with-summary", o.with_summary, "Rows, then the summary");
  c->add_flag("-w,--wakeups", o.show_wakeups, "Show wakeup events");
  c->add_flag("-n,--next", o.show_next, "Show the task switched in");
  c->add_flag("-M,--migrations", o.show_migrations, "Show migration events");
  c->add_flag("-V,--cpu-visual", o.cpu_visual,
              "A column per CPU: s switch, i idle, m migration (perf's -V)");
  c->add_flag("-I,--idle-hist", o.idle_hist,
              "Only switches to and from idle; idle time charged to the task that went idle");
  c->add_flag("--state", o.show_state,
              "Show the task state at switch-out; the summary splits sleep/iowait/preempt");
  c->add_flag("-g,--call-graph,!--no-call-graph", o.callchain,
              "Show the callchain of each switch-out when recorded (perf sched record -g; "
              "default on), leaf first, without schedule/__schedule/preempt_schedule");
  c->add_option("--max-stack", o.max_stack,
                "At most this many functions per callchain (perf 6.1 shows the first N+2 "
                "frames less the scheduler's)")
      ->check(NonNegative())
      ->capture_default_str();
  AddSymbolOptions(*c, &f->popts);
  c->add_flag("--json", o.json,
              "JSON Lines: one object per row (\"callchain\": [functions]), then the summary "
              "(-s/-S)");
  c->add_option("--compat", f->compat,
                std::string(kCompatHelp) + "; callchains: user-space frames [unknown] (perf "
                "6.1's timehist ignores MMAP2), the first --max-stack+2 frames");
  return c;
}

int RunTimehist(const std::string& path, TimehistFlags& f, FilterOptions filter) {
  sched::TimehistOptions& o = f.opts;
  if (o.summary_only && (o.show_wakeups || o.show_next))
    return Usage("timehist", "-s and -w/-n are mutually exclusive");
  if (!ParseCompat(f.compat, &o.perf61)) return Usage("timehist", "--compat: only perf-6.1");
  if (filter.time.size() > 1) return Usage("timehist", "--time: one START,END range (as perf)");
  o.filter = std::move(filter);
  if (o.cpu_visual) {
    nlohmann::json d = DescribeFile(path);
    if (d.contains("nr_cpus_online")) o.nr_cpus = d["nr_cpus_online"].get<int32_t>();
    else if (d.contains("cpus")) o.nr_cpus = d["cpus"].get<int32_t>();
  }
  sched::TimehistAnalysis a(o, std::cout);
  Pipeline pipe;
  pipe.before_parse = [&a](Input& in, Format, Parser& parser) -> int {
    if (!a.wants().stacks() || !parser.Describes() || !in.EnsureMapped().ok()) return -1;
    absl::StatusOr<std::string> d = parser.Describe(in);
    if (!d.ok()) return -1;  // the parse says what is wrong
    nlohmann::json j = nlohmann::json::parse(*d, nullptr, false);
    if (!j.is_object() || !j.contains("perf_events")) return -1;
    for (const auto& ev : j["perf_events"]) {
      if (ev.value("name", "") == "sched:sched_switch" &&
          ev.value("sample_type", "").find("CALLCHAIN") == std::string::npos)
        a.NoCallchains();
    }
    return -1;
  };
  if (int rc = RunPipeline(path, f.popts, a, pipe); rc != kExitOk) return rc;
  a.WriteRest();  // the table first, then the note about it
  if (std::string note = a.Perf61Note(); !note.empty()) std::cerr << "tk: " << note << "\n";
  return FinishOutput(std::cout);
}

struct HistFlags {
  sched::HistOptions opts;
  bool per_process = false, per_thread = false, per_cpu = false, json = false;
};

CLI::App* AddHist(CLI::App& app, std::string* path, HistFlags* f) {
  CLI::App* c = app.add_subcommand(
      "hist", "log2 histograms of scheduling delay (bcc runqlat layout), p50/p90/p99/max");
  AddInput(c, path);
  c->add_flag("-P,--pids", f->per_process, "One histogram per process");
  c->add_flag("-L,--tids", f->per_thread, "One histogram per thread");
  c->add_flag("--per-cpu", f->per_cpu, "One histogram per CPU");
  c->add_flag("-m,--milliseconds", f->opts.millis, "Buckets in milliseconds");
  c->add_flag("--json", f->json, "JSON");
  return c;
}

int RunHist(const std::string& path, HistFlags& f, FilterOptions filter) {
  f.opts.filter = std::move(filter);
  if (f.per_process + f.per_thread + f.per_cpu > 1)
    return Usage("hist", "-P, -L and --per-cpu are mutually exclusive");
  using By = sched::HistOptions::By;
  f.opts.by = f.per_process ? By::kProcess
              : f.per_thread ? By::kThread
              : f.per_cpu    ? By::kCpu
                             : By::kAll;
  sched::HistAnalysis a(f.opts);
  if (int rc = RunPipeline(path, ParseOptions(), a); rc != kExitOk) return rc;
  common::WriteReport(a.report(), f.json, std::cout);
  return FinishOutput(std::cout);
}

// Runs an analysis and writes its report (top, util).
template <typename A>
int RunSimple(const std::string& path, A& a, bool json) {
  if (int rc = RunPipeline(path, ParseOptions(), a); rc != kExitOk) return rc;
  common::WriteReport(a.report(), json, std::cout);
  return FinishOutput(std::cout);
}

// `tk sched FILE` and `tk sched -p FILE` mean `tk sched latency ...`.
std::vector<char*> WithDefaultSubcommand(int argc, char** argv, std::string* latency) {
  std::vector<char*> args(argv, argv + argc);
  for (int i = 1; i < argc; ++i)
    for (const char* s : kSubcommands)
      if (std::string_view(argv[i]) == s) return args;
  if (argc >= 2 && (std::string_view(argv[1]) == "-h" || std::string_view(argv[1]) == "--help"))
    return args;
  args.insert(args.begin() + 1, latency->data());
  return args;
}

}  // namespace

int RunSched(int argc, char** argv) {
  std::string latency = "latency";
  std::vector<char*> args = WithDefaultSubcommand(argc, argv, &latency);
  CLI::App app(
      "tk sched: who waited for a CPU, how long, and when (perf sched latency/timehist, "
      "bcc runqlat histograms, the worst delays, CPU use). Reads perf.data, trace.dat, "
      "perf script or ftrace text recorded with the sched tracepoints (perf sched record).",
      "tk sched");
  app.require_subcommand(1, 1);
  std::string path = "perf.data";
  LatencyFlags lf;
  TimehistFlags tf;
  HistFlags hf;
  sched::TopOptions topts;
  bool top_json = false, util_json = false;
  CLI::App* lat = AddLatency(app, &path, &lf);
  CLI::App* th = AddTimehist(app, &path, &tf);
  CLI::App* hi = AddHist(app, &path, &hf);
  CLI::App* tp = app.add_subcommand(
      "top", "the N longest scheduling delays with their waker (lttng schedtop columns)");
  AddInput(tp, &path);
  tp->add_option("-n,--limit", topts.n, "How many")
      ->check(NonNegative())
      ->capture_default_str();
  tp->add_flag("--json", top_json, "JSON");
  CLI::App* ut = app.add_subcommand("util", "per-CPU busy and idle time");
  AddInput(ut, &path);
  ut->add_flag("--json", util_json, "JSON");
  FilterFlags ff;
  FilterNames latency_names;  // perf sched latency's -p is --pids, its -C --CPU
  latency_names.pid = "--pid";
  latency_names.cpu = "--cpu";
  FilterNames timehist_names;
  timehist_names.tid = "-t,--tid";
  AddFilterOptions(lat, &ff, latency_names);
  AddFilterOptions(th, &ff, timehist_names);
  for (CLI::App* c : {hi, tp, ut}) AddFilterOptions(c, &ff);

  if (int rc = ParseArgs(app, static_cast<int>(args.size()), args.data()); rc >= 0) return rc;
  CLI::App* sub = app.get_subcommands().front();
  std::optional<FilterOptions> filter = ResolveFilter(ff, "sched " + sub->get_name(), path);
  if (!filter) return kExitUsage;
  if (lat->parsed()) return RunLatency(path, lf, std::move(*filter));
  if (th->parsed()) return RunTimehist(path, tf, std::move(*filter));
  if (hi->parsed()) return RunHist(path, hf, std::move(*filter));
  if (tp->parsed()) {
    topts.filter = std::move(*filter);
    sched::TopAnalysis a(topts);
    return RunSimple(path, a, top_json);
  }
  if (filter->has_task())
    return Usage("util", "--pid/--tid/--comm: util is per CPU (timehist -s gives a task's "
                         "run time)");
  sched::UtilOptions uopts;
  uopts.filter = std::move(*filter);
  sched::UtilAnalysis a(uopts);
  return RunSimple(path, a, util_json);
}

}  // namespace tk::cli
