// `tk sched [latency|timehist|hist|top|util] [options] [FILE|-]`: scheduler latency.
// `latency` is the default subcommand, as `perf sched latency` is the usual first look.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "analyses/sched/hist.h"
#include "analyses/sched/latency.h"
#include "analyses/sched/timehist.h"
#include "analyses/sched/top.h"
#include "analyses/sched/util.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "core/absl_compat.h"

namespace tk::cli {
namespace {

constexpr const char* kSubcommands[] = {"latency", "timehist", "hist", "top", "util"};

// Adds the input file (positional, or perf's -i/--input) to a subcommand.
void AddInput(CLI::App* app, std::string* path) {
  app->add_option("file", *path, "Input file: perf.data, trace.dat, perf script or ftrace text; - for stdin")
      ->capture_default_str();
  app->add_option("-i,--input", *path, "Input file (as perf's -i)");
}

// --compat: "perf-6.1" reproduces perf 6.1's state decoding (see LatencyOptions::perf61).
bool ParseCompat(const std::string& v, bool* perf61) {
  if (v.empty()) return true;
  if (v == "perf-6.1") {
    *perf61 = true;
    return true;
  }
  return false;
}

int RunLatency(const std::string& path, const std::string& sort, bool pids, int cpu, bool json,
               const std::string& compat) {
  sched::LatencyOptions opts;
  absl::StatusOr<std::vector<sched::LatencySortKey>> keys = sched::ParseLatencySort(sort);
  if (!keys.ok()) return Fail(std::string("sched latency: ") + std::string(SV(keys.status().message())), kExitUsage);
  opts.sort = *keys;
  opts.per_pid = pids;
  opts.profile_cpu = cpu;
  if (!ParseCompat(compat, &opts.perf61))
    return Fail("sched latency: --compat: only perf-6.1 is known", kExitUsage);
  sched::LatencyAnalysis a(opts);
  if (int rc = RunPipeline(path, ParseOptions(), a); rc != kExitOk) return rc;
  sched::LatencyReport r = a.Report();
  if (json) sched::WriteLatencyJson(r, std::cout);
  else sched::WriteLatencyText(r, std::cout);
  return FinishOutput(std::cout);
}

}  // namespace

int RunSched(int argc, char** argv) {
  // `tk sched FILE` and `tk sched -p FILE` mean `tk sched latency ...`.
  std::vector<char*> args(argv, argv + argc);
  std::string latency = "latency";
  bool has_sub = false;
  for (int i = 1; i < argc && !has_sub; ++i)
    for (const char* s : kSubcommands)
      if (std::string_view(argv[i]) == s) has_sub = true;
  bool help = argc >= 2 && (std::string_view(argv[1]) == "-h" || std::string_view(argv[1]) == "--help");
  if (!has_sub && !help) args.insert(args.begin() + 1, latency.data());

  CLI::App app(
      "tk sched: who waited for a CPU, how long, and when (perf sched latency/timehist, "
      "bcc runqlat histograms, the worst delays, CPU use). Reads perf.data, trace.dat, "
      "perf script or ftrace text recorded with the sched tracepoints (perf sched record).",
      "tk sched");
  app.require_subcommand(1, 1);
  std::string path = "perf.data";

  // latency
  CLI::App* lat = app.add_subcommand("latency", "per-task scheduling delay table (perf sched latency; the default)");
  std::string sort = "avg, max, switch, runtime";
  bool pids = false, lat_json = false;
  int cpu = -1;
  AddInput(lat, &path);
  lat->add_option("-s,--sort", sort, "Sort by key(s): pid, avg, max, switch, runtime")->capture_default_str();
  lat->add_flag("-p,--pids", pids, "One row per thread (comm:tid) instead of per comm");
  lat->add_option("-C,--CPU", cpu, "The recording holds only this CPU (perf record -C): trust its wakeups and migrations");
  lat->add_flag("--json", lat_json, "JSON: {tasks, total, info}");
  std::string lat_compat;
  lat->add_option("--compat", lat_compat,
                  "perf-6.1: as perf 6.1 (Debian 12): R+ (preempted) not counted as runnable, "
                  "\"Switches\" header");

  // timehist
  CLI::App* th = app.add_subcommand("timehist", "one row per context switch: wait, sch delay, run time (perf sched timehist)");
  sched::TimehistOptions topts;
  std::string th_pids, th_tids, th_cpus, th_time;
  AddInput(th, &path);
  th->add_flag("-s,--summary", topts.summary_only, "Only the per-task summary");
  th->add_flag("-S,--with-summary", topts.with_summary, "Rows, then the summary");
  th->add_flag("-w,--wakeups", topts.show_wakeups, "Show wakeup events");
  th->add_flag("-n,--next", topts.show_next, "Show the task switched in");
  th->add_flag("-M,--migrations", topts.show_migrations, "Show migration events");
  th->add_flag("--state", topts.show_state, "Show the task state at switch-out; summary splits sleep/iowait/preempt");
  th->add_option("-p,--pid", th_pids, "Only these process ids (pid[,pid...])");
  th->add_option("-t,--tid", th_tids, "Only these thread ids (tid[,tid...])");
  th->add_option("-C,--cpu", th_cpus, "Only these CPUs (0,2-3)");
  th->add_flag("--json", topts.json, "JSON Lines: a row per object, then the summary (-s/-S)");
  th->add_option("--time", th_time, "Time window START,STOP in seconds (either may be empty)");
  std::string th_compat;
  th->add_option("--compat", th_compat,
                 "perf-6.1: as perf 6.1 (Debian 12): state letters from the raw value (R+ is W), "
                 "no sch delay after an R switch-out");

  // hist
  CLI::App* hi = app.add_subcommand("hist", "log2 histograms of scheduling delay (bcc runqlat layout), p50/p90/p99/max");
  sched::HistOptions hopts;
  bool per_process = false, per_thread = false, per_cpu = false, hist_json = false;
  AddInput(hi, &path);
  hi->add_flag("-P,--pids", per_process, "One histogram per process");
  hi->add_flag("-L,--tids", per_thread, "One histogram per thread");
  hi->add_flag("--per-cpu", per_cpu, "One histogram per CPU");
  hi->add_flag("-m,--milliseconds", hopts.millis, "Buckets in milliseconds");
  hi->add_flag("--json", hist_json, "JSON");

  // top
  CLI::App* tp = app.add_subcommand("top", "the N longest scheduling delays with their waker (lttng schedtop columns)");
  sched::TopOptions popts;
  bool top_json = false;
  AddInput(tp, &path);
  tp->add_option("-n,--limit", popts.n, "How many")->capture_default_str();
  tp->add_flag("--json", top_json, "JSON");

  // util
  CLI::App* ut = app.add_subcommand("util", "per-CPU busy and idle time");
  bool util_json = false;
  AddInput(ut, &path);
  ut->add_flag("--json", util_json, "JSON");

  if (int rc = ParseArgs(app, static_cast<int>(args.size()), args.data()); rc >= 0) return rc;

  if (lat->parsed()) return RunLatency(path, sort, pids, cpu, lat_json, lat_compat);

  if (th->parsed()) {
    if (topts.summary_only && (topts.show_wakeups || topts.show_next))
      return Fail("sched timehist: -s and -w/-n are mutually exclusive", kExitUsage);
    struct List {
      const std::string& text;
      std::vector<int32_t>* out;
      const char* what;
    };
    for (const List& l : {List{th_pids, &topts.pids, "--pid"}, List{th_tids, &topts.tids, "--tid"},
                          List{th_cpus, &topts.cpus, "--cpu"}}) {
      if (l.text.empty()) continue;
      absl::StatusOr<std::vector<int32_t>> v = sched::ParseIntList(l.text);
      if (!v.ok()) return Fail(std::string("sched timehist: ") + l.what + ": " + std::string(SV(v.status().message())), kExitUsage);
      *l.out = *v;
    }
    if (!ParseCompat(th_compat, &topts.perf61))
      return Fail("sched timehist: --compat: only perf-6.1 is known", kExitUsage);
    if (!th_time.empty()) {
      absl::Status st = sched::ParseTimeWindow(th_time, &topts.start_ns, &topts.end_ns);
      if (!st.ok()) return Fail(std::string("sched timehist: ") + std::string(SV(st.message())), kExitUsage);
    }
    sched::TimehistAnalysis a(topts, std::cout);
    if (int rc = RunPipeline(path, ParseOptions(), a); rc != kExitOk) return rc;
    return FinishOutput(std::cout);
  }

  if (hi->parsed()) {
    if (per_process + per_thread + per_cpu > 1)
      return Fail("sched hist: -P, -L and --per-cpu are mutually exclusive", kExitUsage);
    hopts.by = per_process ? sched::HistOptions::By::kProcess
               : per_thread ? sched::HistOptions::By::kThread
               : per_cpu    ? sched::HistOptions::By::kCpu
                            : sched::HistOptions::By::kAll;
    sched::HistAnalysis a(hopts);
    if (int rc = RunPipeline(path, ParseOptions(), a); rc != kExitOk) return rc;
    if (hist_json) a.WriteJson(std::cout);
    else a.WriteText(std::cout);
    return FinishOutput(std::cout);
  }

  if (tp->parsed()) {
    sched::TopAnalysis a(popts);
    if (int rc = RunPipeline(path, ParseOptions(), a); rc != kExitOk) return rc;
    if (top_json) a.WriteJson(std::cout);
    else a.WriteText(std::cout);
    return FinishOutput(std::cout);
  }

  sched::UtilAnalysis a;
  if (int rc = RunPipeline(path, ParseOptions(), a); rc != kExitOk) return rc;
  if (util_json) a.WriteJson(std::cout);
  else a.WriteText(std::cout);
  return FinishOutput(std::cout);
}

}  // namespace tk::cli
