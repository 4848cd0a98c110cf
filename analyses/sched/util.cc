#include "analyses/sched/util.h"

#include <ostream>
#include <variant>

#include "analyses/sched/perf_format.h"
#include "nlohmann/json.hpp"

namespace tk::sched {

EventMask UtilAnalysis::wants() const {
  // Every kind: the window ends at the last event of any kind.
  return EventMask().Add(EventKind::kSchedSwitch).Add(EventKind::kSchedWakeup)
      .Add(EventKind::kSchedStat).Add(EventKind::kSchedMigrate);
}

absl::Status UtilAnalysis::OnEvent(const Event& e) {
  if (e.ts_ns > last_ts_) last_ts_ = e.ts_ns;
  if (e.kind() != EventKind::kSchedSwitch || !ValidCpu(e.cpu)) return absl::OkStatus();
  const auto& s = std::get<SchedSwitch>(e.body);
  if (static_cast<size_t>(e.cpu) >= cpus_.size()) cpus_.resize(e.cpu + 1);
  Cpu& c = cpus_[e.cpu];
  if (c.first < 0) {
    c.first = e.ts_ns;
  } else if (c.curr == 0 && e.ts_ns > c.last_switch) {
    c.idle += filter_.TimeOverlapNs(c.last_switch, e.ts_ns);
  }
  c.curr = s.next_pid;
  c.last_switch = e.ts_ns;
  if (filter_.TimeOk(e.ts_ns)) ++c.switches;
  return absl::OkStatus();
}

absl::Status UtilAnalysis::Finish() {
  std::vector<CpuUtil>& out = report_.cpus;
  out.clear();
  CpuUtil sum;
  for (size_t i = 0; i < cpus_.size(); ++i) {
    const Cpu& c = cpus_[i];
    if (c.first < 0 || !filter_.CpuOk(static_cast<int32_t>(i))) continue;
    CpuUtil u;
    u.cpu = static_cast<int32_t>(i);
    u.window_ns = filter_.TimeOverlapNs(c.first, last_ts_);
    u.idle_ns = c.idle;
    if (c.curr == 0) u.idle_ns += filter_.TimeOverlapNs(c.last_switch, last_ts_);
    u.busy_ns = u.window_ns - std::min(u.idle_ns, u.window_ns);
    u.switches = c.switches;
    sum.window_ns += u.window_ns;
    sum.busy_ns += u.busy_ns;
    sum.idle_ns += u.idle_ns;
    sum.switches += u.switches;
    out.push_back(u);
  }
  out.push_back(sum);
  return absl::OkStatus();
}

void WriteText(const UtilReport& r, std::ostream& out) {
  std::string s;
  AppendF(&s, "%5s %11s %11s %11s %8s %9s\n", "CPU", "window ms", "busy ms", "idle ms", "util %",
          "switches");
  for (const CpuUtil& u : r.cpus) {
    double pct = u.window_ns ? 100.0 * u.busy_ns / u.window_ns : 0.0;
    if (u.cpu < 0) AppendF(&s, "%5s", "all");
    else AppendF(&s, "%5d", u.cpu);
    AppendF(&s, " %11.3f %11.3f %11.3f %8.2f %9lu\n", Ms(u.window_ns), Ms(u.busy_ns),
            Ms(u.idle_ns), pct, static_cast<unsigned long>(u.switches));
  }
  out << s;
}

void WriteJson(const UtilReport& r, std::ostream& out) {
  nlohmann::ordered_json cpus = nlohmann::ordered_json::array();
  nlohmann::ordered_json total;
  for (const CpuUtil& u : r.cpus) {
    nlohmann::ordered_json j;
    if (u.cpu >= 0) j["cpu"] = u.cpu;
    j["window_ms"] = Ms(u.window_ns);
    j["busy_ms"] = Ms(u.busy_ns);
    j["idle_ms"] = Ms(u.idle_ns);
    j["util_pct"] = u.window_ns ? 100.0 * u.busy_ns / u.window_ns : 0.0;
    j["switches"] = u.switches;
    if (u.cpu >= 0) cpus.push_back(std::move(j));
    else total = std::move(j);
  }
  nlohmann::ordered_json j;
  j["cpus"] = std::move(cpus);
  j["total"] = std::move(total);
  out << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

}  // namespace tk::sched
