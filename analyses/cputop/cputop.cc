#include "analyses/cputop/cputop.h"

#include <algorithm>
#include <variant>

#include "analyses/sched/perf_format.h"

namespace tk::cputop {

EventMask CputopAnalysis::wants() const {
  return kCputopNeeds.kinds;
}

CputopAnalysis::Task& CputopAnalysis::TaskOf(int32_t tid, std::string_view comm) {
  Task& t = tasks_[tid];
  if (!comm.empty() && t.comm != comm) t.comm.assign(comm);
  return t;
}

void CputopAnalysis::AddPrio(Task& t, int32_t prio) {
  if (prio < 0) return;
  auto it = std::lower_bound(t.prios.begin(), t.prios.end(), prio);
  if (it == t.prios.end() || *it != prio) t.prios.insert(it, prio);
}

CputopAnalysis::CputopAnalysis(CputopOptions opts) : opts_(std::move(opts)) {
  if (!opts_.filter.time.empty()) {
    start_ns_ = opts_.filter.time.front().start_ns;
    end_ns_ = opts_.filter.time.back().end_ns;
  }
}

absl::Status CputopAnalysis::OnEvent(const Event& e) {
  const Filter& f = filter_;
  if (e.ts_ns >= 0) {  // the range is clipped to --time in Report()
    if (first_ts_ < 0) first_ts_ = e.ts_ns;
    last_ts_ = std::max(last_ts_, e.ts_ns);
  }
  if (const auto* s = std::get_if<SchedSwitch>(&e.body)) {
    OnSwitch(e, *s);
  } else if (const auto* m = std::get_if<SchedMigrate>(&e.body)) {
    if (m->pid > 0 && f.TimeOk(e.ts_ns)) ++TaskOf(m->pid, m->comm).migrations;
  }
  return absl::OkStatus();
}

void CputopAnalysis::OnSwitch(const Event& e, const SchedSwitch& s) {
  ++seen_;
  if (!sched::ValidCpu(e.cpu)) return;
  const Filter& f = filter_;
  const int64_t start_ns = start_ns_, end_ns = end_ns_;
  if (static_cast<size_t>(e.cpu) >= cpus_.size()) cpus_.resize(e.cpu + 1);
  Cpu& c = cpus_[e.cpu];
  const bool cpu_ok = f.CpuOk(e.cpu);
  // The slice [tprev, t] clipped to the window, as perf sched timehist --time clips it.
  int64_t t = e.ts_ns, tprev = c.last_switch;
  bool skip = start_ns && start_ns > t;
  if (!skip) {
    if (tprev && start_ns > tprev) tprev = start_ns;
    if (end_ns) {
      if (!tprev || tprev > end_ns)
        skip = true;
      else if (t > end_ns)
        t = end_ns;
    }
  }
  if (!skip && cpu_ok) {
    ++switches_;
    uint64_t slice = tprev ? static_cast<uint64_t>(t - tprev) : 0;
    Task& prev = TaskOf(s.prev_pid, s.prev_comm);
    if (e.tid == s.prev_pid && e.pid >= 0) prev.pid = e.pid;
    prev.run_ns += slice;
    ++prev.slices;
    AddPrio(prev, s.prev_prio);
    if (s.prev_pid != 0) c.busy += slice;
    if (s.next_pid >= 0) AddPrio(TaskOf(s.next_pid, s.next_comm), s.next_prio);
    if (c.first == 0) c.first = tprev ? tprev : e.ts_ns;
  }
  c.last_switch = e.ts_ns;
  c.curr = s.next_pid;
}

absl::Status CputopAnalysis::Finish() {
  const Filter& f = filter_;
  CputopReport& r = report_;
  r = CputopReport();
  r.begin_ns = std::max<int64_t>(first_ts_, 0);
  r.end_ns = std::max<int64_t>(last_ts_, 0);
  if (start_ns_) r.begin_ns = std::max(r.begin_ns, start_ns_);
  if (end_ns_ && r.end_ns > end_ns_) r.end_ns = end_ns_;
  if (r.end_ns < r.begin_ns) r.end_ns = r.begin_ns;
  const double range = static_cast<double>(r.end_ns - r.begin_ns);
  r.switches = switches_;
  // Slices still running at the end, per CPU.
  absl::flat_hash_map<int32_t, uint64_t> open;
  double sum_pct = 0;
  for (size_t i = 0; i < cpus_.size(); ++i) {
    const Cpu& c = cpus_[i];
    if (c.first == 0 || !f.CpuOk(static_cast<int32_t>(i))) continue;
    CpuRow row;
    row.cpu = static_cast<int32_t>(i);
    row.busy_ns = c.busy;
    int64_t from = std::max(c.last_switch, r.begin_ns);
    if (c.curr > 0 && r.end_ns > from) {
      uint64_t tail = static_cast<uint64_t>(r.end_ns - from);
      row.busy_ns += tail;
      open[c.curr] += tail;
    }
    row.window_ns = r.end_ns > c.first ? static_cast<uint64_t>(r.end_ns - c.first) : 0;
    row.usage_pct = row.window_ns ? 100.0 * static_cast<double>(row.busy_ns) / row.window_ns : 0;
    sum_pct += row.usage_pct;
    r.cpus.push_back(row);
  }
  r.total_pct = r.cpus.empty() ? 0 : sum_pct / static_cast<double>(r.cpus.size());
  for (const auto& [tid, t] : tasks_) {
    if (t.slices == 0 && !open.contains(tid)) continue;
    if (tid == 0 && !opts_.idle) continue;
    if (!f.TaskOk(t.pid, tid, t.comm)) continue;
    TaskRow row;
    row.tid = tid;
    row.pid = t.pid;
    row.comm = t.comm;
    row.run_ns = t.run_ns;
    if (auto it = open.find(tid); it != open.end()) row.running_at_end_ns = it->second;
    row.slices = t.slices;
    row.migrations = t.migrations;
    row.prios = t.prios;
    row.usage_pct = range > 0 ? 100.0 * static_cast<double>(t.run_ns) / range : 0;
    r.tasks.push_back(std::move(row));
  }
  std::sort(r.tasks.begin(), r.tasks.end(), [](const TaskRow& a, const TaskRow& b) {
    return a.run_ns != b.run_ns ? a.run_ns > b.run_ns : a.tid < b.tid;
  });
  r.total_tasks = r.tasks.size();
  if (opts_.top > 0 && r.tasks.size() > static_cast<size_t>(opts_.top)) r.tasks.resize(opts_.top);
  return absl::OkStatus();
}

}  // namespace tk::cputop
