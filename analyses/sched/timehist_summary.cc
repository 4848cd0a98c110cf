// perf sched timehist -s / -S: the per-task summary, idle time per CPU and totals, as perf 6.1
// prints it (threads in perf's thread-table order: (u32)tid % 256, then tid; exited threads under
// "Terminated tasks:"), e.g.
//
// Runtime summary
//                           comm  parent   sched-in     run-time    min-run     avg-run     max-run  stddev  migrations
//                                           (count)       (msec)     (msec)      (msec)      (msec)       %
// ---------------------------------------------------------------------------------------------------------------------
//                rcu_preempt[15]       2          3        0.023      0.005       0.007       0.009   12.74       0
//
// Idle stats:
//     CPU  0 idle for      0.406  msec  (  1.66%)
//     CPU  1 idle entire time window
//
//     Total number of unique tasks: 9
// Total number of context switches: 4030
//            Total run time (msec): 48.306
//     Total scheduling time (msec): 24.557  (x 2)
//
// With --state the columns are perf 6.12's wait-time split: run-time sleep iowait preempt delay.
// With -I ("Idle-time summary") a task's columns are the idle periods that followed it.
#include <algorithm>
#include <ostream>

#include "analyses/sched/perf_format.h"
#include "analyses/sched/timehist.h"

namespace tk::sched {

std::vector<int32_t> TimehistAnalysis::SummaryTasks() {
  std::vector<int32_t> tids;
  for (const auto& [tid, r] : runtime_.entries())
    if (tid != 0 && r.run_stats.n > 0 && TaskWanted(tid)) tids.push_back(tid);
  std::sort(tids.begin(), tids.end());
  return tids;
}

void TimehistAnalysis::PrintThreadSummary(int32_t tid, const Runtime& r, uint64_t* tasks,
                                          uint64_t* switches, uint64_t* run) {
  ++*tasks;
  *switches += static_cast<uint64_t>(r.run_stats.n);
  *run += r.total_run;
  const TaskInfo* info = tasks_.Find(tid);
  std::string comm = CommStr(tid, false);
  std::string& b = buf_;
  AppendF(&b, "%*s   %5d  %9lu ", comm_width_, comm.c_str(), info ? info->ppid : -1,
          static_cast<unsigned long>(r.run_stats.n));
  AppendSchedTime(&b, r.total_run, 8);
  if (opts_.show_state) {
    AppendSchedTime(&b, r.total_sleep, 6);
    b += " ";
    AppendSchedTime(&b, r.total_iowait, 6);
    b += " ";
    AppendSchedTime(&b, r.total_preempt, 6);
    b += " ";
    AppendSchedTime(&b, r.total_delay, 6);
    b += "\n";
    return;
  }
  AppendSchedTime(&b, r.run_stats.min, 6);
  b += " ";
  AppendSchedTime(&b, static_cast<uint64_t>(r.run_stats.mean), 6);
  b += " ";
  AppendSchedTime(&b, r.run_stats.max, 6);
  b += "  ";
  AppendF(&b, "%5.2f", static_cast<float>(r.run_stats.RelStddev()));
  AppendF(&b, "   %5lu\n", static_cast<unsigned long>(r.migrations));
}

void TimehistAnalysis::PrintSummary() {
  std::string& b = buf_;
  if (opts_.idle_hist) {
    b += "\nIdle-time summary\n";
    AppendF(&b, "%*s  parent  sched-out  ", comm_width_, "comm");
    b += "  idle-time   min-idle    avg-idle    max-idle  stddev  migrations\n";
  } else if (opts_.show_state) {
    b += "\nWait-time summary\n";
    AppendF(&b, "%*s  parent   sched-in  ", comm_width_, "comm");
    b += "   run-time      sleep      iowait     preempt       delay\n";
  } else {
    b += "\nRuntime summary\n";
    AppendF(&b, "%*s  parent   sched-in  ", comm_width_, "comm");
    b += "   run-time    min-run     avg-run     max-run  stddev  migrations\n";
  }
  AppendF(&b, "%*s            (count)  ", comm_width_, "");
  AppendF(&b, "     (msec)     (msec)      (msec)      (msec)       %s\n",
          opts_.show_state ? "(msec)" : "%");
  b += std::string(117, '-') + "\n";

  std::vector<int32_t> tids = SummaryTasks();
  std::sort(tids.begin(), tids.end(), [](int32_t a, int32_t b) {
    return std::make_pair(static_cast<uint32_t>(a) % 256, a) <
           std::make_pair(static_cast<uint32_t>(b) % 256, b);
  });
  uint64_t tasks = 0, switches = 0, run = 0;
  for (bool dead : {false, true}) {
    uint64_t before = tasks;
    if (dead) b += "\nTerminated tasks:\n";
    for (int32_t tid : tids) {
      const TaskInfo* info = tasks_.Find(tid);
      if ((info && info->exited) != dead) continue;
      PrintThreadSummary(tid, runtime_[tid], &tasks, &switches, &run);
    }
    if (!dead && tasks == 0) b += "<no still running tasks>\n";
    if (dead && tasks == before) b += "<no terminated tasks>\n";
  }
  // perf: idle stats are not tracked when samples were filtered out (but are with -I).
  if (skipped_samples_ && !opts_.idle_hist) return;
  const uint64_t hist_time = static_cast<uint64_t>(hist_end_ - hist_start_);
  b += "\nIdle stats:\n";
  for (int32_t cpu = 0; cpu <= max_cpu_; ++cpu) {
    if (!CpuWanted(cpu)) continue;
    const Runtime* r = static_cast<size_t>(cpu) < idle_.size() ? &idle_[cpu] : nullptr;
    if (r && r->run_stats.n > 0) {
      switches += static_cast<uint64_t>(r->run_stats.n);
      AppendF(&b, "    CPU %2d idle for ", cpu);
      AppendSchedTime(&b, r->total_run, 6);
      AppendF(&b, " msec  (%6.2f%%)\n", 100.0 * r->total_run / hist_time);
    } else {
      AppendF(&b, "    CPU %2d idle entire time window\n", cpu);
    }
  }
  if (opts_.idle_hist && chains_seen_) PrintIdleChains();
  AppendF(&b, "\n    Total number of unique tasks: %lu\nTotal number of context switches: %lu\n",
          static_cast<unsigned long>(tasks), static_cast<unsigned long>(switches));
  b += "           Total run time (msec): ";
  AppendSchedTime(&b, run, 2);
  b += "\n    Total scheduling time (msec): ";
  AppendSchedTime(&b, hist_time, 2);
  AppendF(&b, " (x %d)\n", max_cpu_ + 1);
}

// -I with callchains: per CPU its idle time, then the chains that went idle by idle time.
void TimehistAnalysis::PrintIdleChains() {
  std::string& b = buf_;
  b += "\nIdle stats by callchain:\n";
  for (int32_t cpu = 0; cpu <= max_cpu_; ++cpu) {
    AppendF(&b, "  CPU %2d:", cpu);
    AppendSchedTime(&b, static_cast<size_t>(cpu) < idle_.size() ? idle_[cpu].total_run : 0, 6);
    b += " msec\n";
    IdleChainsOf(cpu).Append(&b);
    b += "\n";
  }
}

void TimehistAnalysis::JsonSummary() {
  std::string& b = buf_;
  uint64_t tasks = 0, switches = 0, run = 0;
  for (int32_t tid : SummaryTasks()) {
    const Runtime& r = runtime_[tid];
    const TaskInfo* info = tasks_.Find(tid);
    int32_t pid = info && info->pid >= 0 ? info->pid : tid;
    ++tasks;
    switches += static_cast<uint64_t>(r.run_stats.n);
    run += r.total_run;
    b += "{\"type\":\"task\",\"task\":";
    JsonString(&b, CommStr(tid, false));
    AppendF(&b,
            ",\"tid\":%d,\"pid\":%d,\"ppid\":%d,\"exited\":%s,\"sched_in\":%lu,"
            "\"run_ms\":%.6f,\"min_run_ms\":%.6f,\"avg_run_ms\":%.6f,\"max_run_ms\":%.6f,"
            "\"stddev_pct\":%.2f,\"sleep_ms\":%.6f,\"iowait_ms\":%.6f,\"preempt_ms\":%.6f,"
            "\"delay_ms\":%.6f,\"migrations\":%lu}\n",
            tid, pid, info ? info->ppid : -1, info && info->exited ? "true" : "false",
            static_cast<unsigned long>(r.run_stats.n), Ms(r.total_run), Ms(r.run_stats.min),
            r.run_stats.mean / 1e6, Ms(r.run_stats.max), r.run_stats.RelStddev(),
            Ms(r.total_sleep), Ms(r.total_iowait), Ms(r.total_preempt), Ms(r.total_delay),
            static_cast<unsigned long>(r.migrations));
  }
  const uint64_t hist_time = static_cast<uint64_t>(hist_end_ - hist_start_);
  for (int32_t cpu = 0; cpu <= max_cpu_ && opts_.idle_hist && chains_seen_; ++cpu) {
    for (const IdleChains::Entry* c : IdleChainsOf(cpu).Sorted()) {
      AppendF(&b, "{\"type\":\"idle_callchain\",\"cpu\":%d,\"idle_ms\":%.6f,\"count\":%lu,"
              "\"callchain\":", cpu, Ms(c->hit), static_cast<unsigned long>(c->count));
      b += '[';
      for (size_t i = 0; i < c->frames.size(); ++i) {
        if (i) b += ',';
        JsonString(&b, c->frames[i]);
      }
      b += "]}\n";
    }
  }
  for (int32_t cpu = 0; cpu <= max_cpu_ && !skipped_samples_; ++cpu) {
    if (!CpuWanted(cpu)) continue;
    const Runtime* r = static_cast<size_t>(cpu) < idle_.size() ? &idle_[cpu] : nullptr;
    uint64_t idle = r ? r->total_run : 0;
    if (r) switches += static_cast<uint64_t>(r->run_stats.n);
    AppendF(&b, "{\"type\":\"idle\",\"cpu\":%d,\"idle_ms\":%.6f,\"idle_pct\":%.2f}\n",
            cpu, Ms(idle), hist_time ? 100.0 * idle / hist_time : 0.0);
  }
  AppendF(&b,
          "{\"type\":\"total\",\"tasks\":%lu,\"context_switches\":%lu,\"run_ms\":%.6f,"
          "\"window_ms\":%.6f,\"cpus\":%d}\n",
          static_cast<unsigned long>(tasks), static_cast<unsigned long>(switches), Ms(run),
          Ms(hist_time), max_cpu_ + 1);
}

}  // namespace tk::sched
