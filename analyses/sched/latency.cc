#include "analyses/sched/latency.h"

#include <algorithm>
#include <map>
#include <variant>

#include "absl/strings/str_cat.h"
#include "analyses/sched/perf_format.h"
#include "core/absl_compat.h"
#include "core/strings.h"
#include "core/visit.h"

namespace tk::sched {

absl::StatusOr<std::vector<LatencySortKey>> ParseLatencySort(std::string_view s) {
  std::vector<LatencySortKey> keys;
  for (std::string_view rest = s; !rest.empty();) {
    std::string_view tok = NextPiece(&rest, ", ");
    if (tok.empty()) continue;
    if (tok == "pid") keys.push_back(LatencySortKey::kPid);
    else if (tok == "avg") keys.push_back(LatencySortKey::kAvg);
    else if (tok == "max") keys.push_back(LatencySortKey::kMax);
    else if (tok == "switch") keys.push_back(LatencySortKey::kSwitch);
    else if (tok == "runtime") keys.push_back(LatencySortKey::kRuntime);
    else
      return absl::InvalidArgumentError(absl::StrCat(
          "unknown --sort key: '", AV(tok), "' (pid, avg, max, switch, runtime)"));
  }
  if (keys.empty()) return absl::InvalidArgumentError("empty --sort list");
  return keys;
}

LatencyAnalysis::LatencyAnalysis(LatencyOptions opts)
    : opts_(std::move(opts)),
      rule_sets_(opts_.perf61 ? 1 : 2),
      filter_(opts_.filter),
      counts_all_(opts_.filter.time.empty() && opts_.filter.cpus.empty()) {
  tasks_.set_record_names_only(opts_.perf61);
}

EventMask LatencyAnalysis::wants() const {
  return TaskTable::Wants()
      .Add(EventKind::kSchedSwitch)
      .Add(EventKind::kSchedWakeup)
      .Add(EventKind::kSchedStat)
      .Add(EventKind::kSchedMigrate)
      .Add(EventKind::kLost);
}

void LatencyAnalysis::SchedOut(Atoms& t, int64_t ts, bool runnable) {
  t.sched_out = ts;
  t.sched_in = 0;
  if (runnable) {
    t.state = AtomState::kWaitCpu;
    t.wake_up = ts;
  } else {
    t.state = AtomState::kSleeping;
    t.wake_up = 0;
  }
}

void LatencyAnalysis::SwitchIn(Atoms& in, const Event& e) {
  const int64_t ts = e.ts_ns;
  if (in.state != AtomState::kWaitCpu) return;
  if (ts < in.wake_up) {
    in.state = AtomState::kIgnore;
    return;
  }
  in.state = AtomState::kSchedIn;
  in.sched_in = ts;
  if (!Counted(ts, e.cpu)) return;
  uint64_t delta = static_cast<uint64_t>(ts - in.wake_up);
  in.total_lat += delta;
  if (delta > in.max_lat) {
    in.max_lat = delta;
    in.max_lat_start = in.wake_up;
    in.max_lat_end = ts;
  }
  ++in.nb_atoms;
}

void LatencyAnalysis::OnSwitch(const Event& e, const SchedSwitch& s) {
  const int64_t ts = e.ts_ns;
  if (ValidCpu(e.cpu)) {
    if (static_cast<size_t>(e.cpu) >= curr_pid_.size()) curr_pid_.resize(e.cpu + 1, -1);
    if (static_cast<size_t>(e.cpu) >= last_switch_.size()) last_switch_.resize(e.cpu + 1, -1);
    int32_t& curr = curr_pid_[e.cpu];
    if (curr != -1 && curr != s.prev_pid) ++info_.nr_context_switch_bugs;
    curr = s.next_pid;
  }
  // prev: a new atom, waiting at once when it left runnable (preempted or yielded). Done
  // before `next` is looked up: that may insert, and move `prev`.
  Thread& prev = threads_[s.prev_pid];
  if (ValidCpu(e.cpu)) {
    int64_t& last = last_switch_[e.cpu];
    if (last >= 0 && ts >= last) prev.switch_runtime += static_cast<uint64_t>(ts - last);
    last = ts;
  }
  for (int r = 0; r < rule_sets_; ++r) {
    bool perf61 = r == kPerf61 || opts_.perf61;
    SchedOut(prev.a[r], ts, s.prev_state.runnable() && !(perf61 && s.prev_state.preempted));
  }
  // next: a thread never seen came in from a runnable atom at ts (delay 0).
  Thread& next = threads_[s.next_pid];
  for (int r = 0; r < rule_sets_; ++r) SwitchIn(AtomsOf(next, r, ts, /*runnable=*/true), e);
}

void LatencyAnalysis::WakeUp(Atoms& t, const Event& e, bool count) {
  // A wakeup of a task already runnable (on a run queue) only changes its state: keep the
  // earlier wake_up. With -C the recording misses other CPUs' events, so trust every wakeup.
  if (opts_.profile_cpu == -1 && t.state != AtomState::kSleeping) return;
  if (count) ++info_.nr_timestamps;
  if (t.sched_out > e.ts_ns) {
    if (count) ++info_.nr_unordered_timestamps;
    return;
  }
  t.state = AtomState::kWaitCpu;
  t.wake_up = e.ts_ns;
}

void LatencyAnalysis::OnWakeup(const Event& e, const SchedWakeup& w) {
  // Which rule sets take it: perf 6.1 has no sched_waking handler; current perf ignores
  // sched_wakeup once it has seen sched_waking.
  const bool waking = w.kind == SchedWakeup::Kind::kWaking;
  bool take[2] = {false, !waking};
  if (opts_.perf61) {
    take[kMain] = !waking;
  } else {
    if (waking) seen_waking_ = true;
    take[kMain] = !(w.kind == SchedWakeup::Kind::kWakeup && seen_waking_);
  }
  if (!take[kMain] && !(rule_sets_ > 1 && take[kPerf61])) return;
  Thread& t = threads_[w.pid];
  for (int r = 0; r < rule_sets_; ++r) {
    if (take[r]) WakeUp(AtomsOf(t, r, e.ts_ns, /*runnable=*/false), e, r == kMain);
  }
}

void LatencyAnalysis::OnMigrate(const Event& e, const SchedMigrate& m) {
  if (opts_.profile_cpu == -1) return;  // only matters when one CPU was recorded
  Thread& t = threads_[m.pid];
  for (int r = 0; r < rule_sets_; ++r) {
    Atoms& a = AtomsOf(t, r, e.ts_ns, /*runnable=*/true);
    a.sched_in = a.sched_out = a.wake_up = e.ts_ns;
  }
  ++info_.nr_timestamps;
}

void LatencyAnalysis::OnStat(const Event& e, const SchedStat& st) {
  if (st.which != SchedStat::Which::kRuntime) return;
  seen_runtime_ = true;
  Thread& t = threads_[st.pid];
  for (int r = 0; r < rule_sets_; ++r) AtomsOf(t, r, e.ts_ns, /*runnable=*/true);
  if (Counted(e.ts_ns, e.cpu)) t.runtime += st.delay_ns;
}

void LatencyAnalysis::OnLost(const Lost& l) {
  if (l.kind == Lost::Kind::kLost || l.kind == Lost::Kind::kOverrun) {
    info_.nr_lost_events += l.count;
    ++info_.nr_lost_chunks;
  }
}

absl::Status LatencyAnalysis::OnEvent(const Event& e) {
  ++info_.nr_events;
  tasks_.Observe(e);
  VisitBody(
      e, [&](const SchedSwitch& s) { OnSwitch(e, s); },
      [&](const SchedWakeup& w) { OnWakeup(e, w); }, [&](const SchedStat& st) { OnStat(e, st); },
      [&](const SchedMigrate& m) { OnMigrate(e, m); }, [&](const Lost& l) { OnLost(l); });
  return absl::OkStatus();
}

namespace {

// perf's comparators: > 0 when `a` sorts before `b` (every key is descending).
int Compare(LatencySortKey k, const LatencyRow& a, const LatencyRow& b) {
  auto cmp = [](auto x, auto y) { return x < y ? -1 : (x > y ? 1 : 0); };
  switch (k) {
    case LatencySortKey::kPid: return cmp(a.tids.front(), b.tids.front());
    case LatencySortKey::kAvg: return cmp(a.avg_delay_ns, b.avg_delay_ns);
    case LatencySortKey::kMax: return cmp(a.max_delay_ns, b.max_delay_ns);
    case LatencySortKey::kSwitch: return cmp(a.count, b.count);
    case LatencySortKey::kRuntime: return cmp(a.runtime_ns, b.runtime_ns);
  }
  return 0;
}

}  // namespace

absl::Status LatencyAnalysis::Finish() {
  report_ = BuildReport();
  return absl::OkStatus();
}

LatencyReport LatencyAnalysis::BuildReport() {
  // perf walks its per-thread tree in descending tid order and merges into a tree keyed by
  // comm; rows then keep that order (comm descending, or tid descending with -p) among equal
  // sort keys. The first thread merged (the highest tid) names the row; a later one's max
  // replaces it only when strictly greater.
  std::vector<int32_t> tids;
  tids.reserve(threads_.size());
  for (const auto& [tid, t] : threads_.entries()) {
    if (t.a[kMain].state == AtomState::kUnseen) continue;  // only the perf 6.1 rules saw it
    if (filter_.options().has_task()) {
      const TaskInfo* info = tasks_.Find(tid);
      if (!filter_.TaskOk(info ? info->pid : -1, tid, tasks_.Comm(tid))) continue;
    }
    tids.push_back(tid);
  }
  std::sort(tids.begin(), tids.end(), std::greater<>());

  // Without sched_stat_runtime, Runtime from switch pairs (perf 6.1 prints 0.000).
  const bool from_switches = !seen_runtime_ && !opts_.perf61;
  std::vector<LatencyRow> rows;
  std::map<std::string_view, size_t, std::greater<>> by_comm;
  for (int32_t tid : tids) {
    const Thread& t = threads_[tid];
    std::string_view comm = tasks_.Comm(tid);
    LatencyRow* row;
    if (!opts_.per_pid) {
      auto [it, inserted] = by_comm.try_emplace(comm, rows.size());
      if (inserted) rows.emplace_back();
      row = &rows[it->second];
    } else {
      row = &rows.emplace_back();
    }
    if (row->tids.empty()) row->comm = std::string(comm);
    row->tids.push_back(tid);
    row->runtime_ns += from_switches ? t.switch_runtime : t.runtime;
    const Atoms& a = t.a[kMain];
    row->count += a.nb_atoms;
    row->total_delay_ns += a.total_lat;
    if (row->max_delay_ns < a.max_lat) {
      row->max_delay_ns = a.max_lat;
      row->max_delay_start_ns = a.max_lat_start;
      row->max_delay_end_ns = a.max_lat_end;
    }
  }
  // Merged rows come out of perf's comm tree in descending comm order.
  if (!opts_.per_pid) {
    std::vector<LatencyRow> ordered;
    ordered.reserve(rows.size());
    for (const auto& [comm, idx] : by_comm) ordered.push_back(std::move(rows[idx]));
    rows = std::move(ordered);
  }
  LatencyReport rep;
  for (LatencyRow& row : rows) {
    if (row.count == 0 || row.comm == "swapper") continue;  // perf ignores idle
    row.avg_delay_ns = row.total_delay_ns / row.count;
    row.task = row.tids.size() > 1 && !opts_.per_pid
                   ? absl::StrCat(row.comm, ":(", row.tids.size(), ")")
                   : absl::StrCat(row.comm, ":", row.tids.front());
    rep.total_runtime_ns += row.runtime_ns;
    rep.total_count += row.count;
    rep.rows.push_back(std::move(row));
  }
  const std::vector<LatencySortKey>& keys = opts_.sort;
  std::stable_sort(rep.rows.begin(), rep.rows.end(),
                   [&keys](const LatencyRow& a, const LatencyRow& b) {
                     for (LatencySortKey k : keys) {
                       int c = Compare(k, a, b);
                       if (c != 0) return c > 0;
                     }
                     return false;
                   });
  rep.info = info_;
  rep.perf61 = opts_.perf61;
  if (from_switches) rep.runtime_source = "sched_switch";
  ComparePerf61(&rep);
  return rep;
}

void LatencyAnalysis::ComparePerf61(LatencyReport* rep) const {
  if (rule_sets_ < 2) return;
  for (const auto& [tid, th] : threads_.entries()) {
    const Atoms& t = th.a[kMain];
    const Atoms& o = th.a[kPerf61];  // all 0 when perf 6.1's rules never saw the thread
    if (t.state == AtomState::kUnseen) continue;
    if (t.nb_atoms == 0 && o.nb_atoms == 0) continue;
    if (tid == 0) continue;  // swapper is not shown
    ++rep->perf61_of;
    if (t.nb_atoms != o.nb_atoms || t.total_lat != o.total_lat || t.max_lat != o.max_lat)
      ++rep->perf61_differs;
  }
}

std::string LatencyPerf61Note(const LatencyReport& r) {
  if (r.perf61 || r.perf61_differs == 0) return "";
  return absl::StrCat("sched latency: delays of ", r.perf61_differs, " of ", r.perf61_of,
                      " threads follow current perf (sched_waking preferred, R+ = preempted) "
                      "and differ from perf 6.1's; --compat perf-6.1 gives 6.1's numbers");
}

}  // namespace tk::sched
