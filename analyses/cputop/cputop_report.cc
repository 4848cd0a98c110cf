// tk cputop's text and JSON reports. Text, in lttng-cputop's order (per-TID bars, per-CPU bars,
// total), with the CPU time itself in a column so it can be checked against perf:
//
//   Timerange: [987.350977, 987.962040] (611.063 ms)
//   Per-TID usage                         CPU ms   usage  process                migrations
//   priorities
//   ##################################################################################################
//   ████████████████████████████          350.12  57.30 %  busy1 (17711)                  0  [120]
//
//   Per-CPU usage
//   ##################################################################################################
//   ████████████████████████████████████          611.06  99.99 %  CPU 0
//
//   Total CPU usage: 99.50%
#include <ostream>

#include "analyses/cputop/cputop.h"
#include "analyses/sched/perf_format.h"

namespace tk::cputop {
namespace {

using sched::AppendF;

constexpr int kBar = 40;

std::string Prios(const std::vector<int32_t>& p) {
  std::string s = "[";
  for (size_t i = 0; i < p.size(); ++i) AppendF(&s, "%s%d", i ? ", " : "", p[i]);
  return s + "]";
}

std::string Range(const CputopReport& r) {
  std::string s;
  AppendF(&s, "Timerange: [%s, %s] (%.3f ms)\n", sched::UsecTimestamp(r.begin_ns).c_str(),
          sched::UsecTimestamp(r.end_ns).c_str(), sched::Ms(r.end_ns - r.begin_ns));
  return s;
}

}  // namespace

void WriteText(const CputopReport& r, std::ostream& out) {
  std::string s = Range(r);
  const std::string rule(98, '#');
  AppendF(&s, "%-*s %10s %8s  %-30s %10s  %s\n", kBar, "Per-TID usage", "CPU ms", "usage",
          "process", "migrations", "priorities");
  s += rule + "\n";
  for (const TaskRow& t : r.tasks) {
    std::string proc = t.comm + " (" + std::to_string(t.tid) + ")";
    AppendF(&s, "%s %10.3f %6.2f %%  %-30s %10lu  %s\n", lttng::Bar(t.usage_pct, 100, kBar).c_str(),
            sched::Ms(t.run_ns), t.usage_pct, proc.c_str(),
            static_cast<unsigned long>(t.migrations), Prios(t.prios).c_str());
  }
  if (r.total_tasks > r.tasks.size())
    AppendF(&s, "(%zu more threads; --top 0 shows all)\n", r.total_tasks - r.tasks.size());
  AppendF(&s, "\n%-*s %10s %8s\n", kBar, "Per-CPU usage", "busy ms", "usage");
  s += rule + "\n";
  for (const CpuRow& c : r.cpus) {
    AppendF(&s, "%s %10.3f %6.2f %%  CPU %d\n", lttng::Bar(c.usage_pct, 100, kBar).c_str(),
            sched::Ms(c.busy_ns), c.usage_pct, c.cpu);
  }
  AppendF(&s, "\nTotal CPU usage: %.2f%%\n", r.total_pct);
  out << s;
}


void WriteJson(const CputopReport& r, std::ostream& out) {
  lttng::Json j;
  j["time_range"] = {{"begin_ns", r.begin_ns}, {"end_ns", r.end_ns}};
  lttng::Json tasks = lttng::Json::array();
  for (const TaskRow& t : r.tasks) {
    tasks.push_back({{"tid", t.tid},
                     {"pid", t.pid},
                     {"comm", t.comm},
                     {"cpu_ns", t.run_ns},
                     {"running_at_end_ns", t.running_at_end_ns},
                     {"usage_pct", t.usage_pct},
                     {"slices", t.slices},
                     {"migrations", t.migrations},
                     {"priorities", t.prios}});
  }
  j["tasks"] = std::move(tasks);
  j["total_tasks"] = r.total_tasks;
  lttng::Json cpus = lttng::Json::array();
  for (const CpuRow& c : r.cpus) {
    cpus.push_back({{"cpu", c.cpu},
                    {"window_ns", c.window_ns},
                    {"busy_ns", c.busy_ns},
                    {"usage_pct", c.usage_pct}});
  }
  j["cpus"] = std::move(cpus);
  j["total_usage_pct"] = r.total_pct;
  j["switches"] = r.switches;
  out << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

}  // namespace tk::cputop
