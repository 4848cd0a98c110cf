#include "analyses/sched/timehist.h"

#include <algorithm>
#include <cmath>
#include <ostream>
#include <variant>

#include "absl/strings/str_cat.h"
#include "analyses/sched/perf_format.h"
#include "analyses/sched/timehist_rules.h"
#include "core/absl_compat.h"
#include "core/timestamp.h"
#include "core/visit.h"

namespace tk::sched {

void TimehistAnalysis::Stats::Update(uint64_t v) {
  n += 1;
  double delta = static_cast<double>(v) - mean;
  mean += delta / n;
  m2 += delta * (static_cast<double>(v) - mean);
  max = std::max(max, v);
  min = std::min(min, v);
}

double TimehistAnalysis::Stats::RelStddev() const {
  if (n < 2) return 0.0;
  double variance = m2 / (n - 1);
  double stddev = std::sqrt(variance / n);
  return mean != 0 ? 100.0 * stddev / mean : 0.0;
}

TimehistAnalysis::TimehistAnalysis(TimehistOptions opts, std::ostream& out)
    : opts_(std::move(opts)), rules_(opts_.perf61), out_(out) {
  filter_ = Filter(opts_.filter);
  if (!opts_.filter.time.empty()) {
    start_ns_ = opts_.filter.time.front().start_ns;
    end_ns_ = opts_.filter.time.front().end_ns;
  }
  if (opts_.summary_only) opts_.with_summary = true;
  rules_.Configure(tasks_);
  if (opts_.nr_cpus > 0) visual_max_cpu_ = opts_.nr_cpus;
  header_cpus_ = visual_max_cpu_ + 1;
  header_pending_ = !opts_.summary_only && !opts_.json;
}

EventMask TimehistAnalysis::wants() const {
  return TaskTable::Wants()
      .Add(EventKind::kSchedSwitch)
      .Add(EventKind::kSchedWakeup)
      .Add(EventKind::kSchedMigrate)
      .Add(EventKind::kLost)
      .WithStacks(opts_.callchain);
}

bool TimehistAnalysis::TaskWanted(int32_t tid) {
  if (!filter_.options().has_task()) return true;
  int32_t pid = 0;
  if (tid != 0) {
    const TaskInfo* t = tasks_.Find(tid);
    pid = t && t->pid >= 0 ? t->pid : tid;
  }
  return filter_.TaskOk(pid, tid, tasks_.Comm(tid));
}

bool TimehistAnalysis::Filtered(int32_t tid) {
  if (TaskWanted(tid)) return false;
  ++skipped_samples_;
  return true;
}

bool TimehistAnalysis::CpuWanted(int32_t cpu) const {
  return opts_.filter.cpus.empty() || filter_.CpuOk(cpu);
}

const std::string& TimehistAnalysis::CommStr(int32_t tid, bool idle) {
  // perf's timehist_get_commstr: "comm" for pid 0, "comm[tid/pid]" for a thread that is not
  // its process's leader, else "comm[tid]"; at most 31 characters. Kept per thread and built
  // again only when its comm or pid changed (comms are interned: a new name, a new pointer).
  static const std::string kIdle = "<idle>";
  if (idle) return kIdle;
  std::string_view comm = tasks_.Comm(tid);
  const TaskInfo* t = tasks_.Find(tid);
  int32_t pid = tid == 0 ? 0 : (t && t->pid >= 0 ? t->pid : tid);
  CommCache& c = comm_strs_[tid];
  if (c.comm == comm.data() && c.size == comm.size() && c.pid == pid && c.built) return c.str;
  c = CommCache{comm.data(), comm.size(), pid, true, {}};
  if (pid == 0) c.str = std::string(comm);
  else if (pid != tid) c.str = absl::StrCat(AV(comm), "[", tid, "/", pid, "]");
  else c.str = absl::StrCat(AV(comm), "[", tid, "]");
  if (c.str.size() > 31) c.str.resize(31);
  comm_width_ = std::max(comm_width_, static_cast<int>(c.str.size()));
  return c.str;
}

TimehistAnalysis::Runtime& TimehistAnalysis::IdleRuntime(int32_t cpu) {
  if (static_cast<size_t>(cpu) >= idle_.size()) idle_.resize(cpu + 1);
  return idle_[cpu];
}

std::string& TimehistAnalysis::Rows() {
  if (header_pending_) {
    header_pending_ = false;
    AppendHeader();
  }
  return buf_;
}

// perf prints the header before it reads the first event: with its initial comm column (30)
// and the recording's CPU count, whatever the rows widen later.
void TimehistAnalysis::AppendHeader() {
  std::string& s = buf_;
  const int ncpus = header_cpus_;
  const int comm_width = kCommWidth;
  AppendF(&s, "%15s %6s ", "time", "cpu");
  if (opts_.cpu_visual) {
    s += ' ';
    for (int i = 0; i < ncpus; ++i) s += "0123456789abcdef"[i % 16];
    s += ' ';
  }
  AppendF(&s, " %-*s", comm_width, "task name");
  AppendF(&s, "  %9s  %9s  %9s", "wait time", "sch delay", "run time");
  if (opts_.show_state) AppendF(&s, "  %s", "state");
  s += "\n";
  AppendF(&s, "%15s %-6s ", "", "");
  if (opts_.cpu_visual) AppendF(&s, " %*s ", ncpus, "");
  AppendF(&s, " %-*s", comm_width, "[tid/pid]");
  AppendF(&s, "  %9s  %9s  %9s", "(msec)", "(msec)", "(msec)");
  if (opts_.show_state) AppendF(&s, "  %5s", "");  // perf 6.1 pads the units row
  s += "\n";
  AppendF(&s, "%.15s %.6s ", std::string(15, '-').c_str(), std::string(6, '-').c_str());
  if (opts_.cpu_visual) {
    s += ' ';
    s.append(ncpus, '-');
    s += ' ';
  }
  AppendF(&s, " %s", std::string(comm_width, '-').c_str());
  AppendF(&s, "  %.9s  %.9s  %.9s", "---------", "---------", "---------");
  if (opts_.show_state) AppendF(&s, "  %.5s", "-----");
  s += "\n";
}

void TimehistAnalysis::AppendVisual(int32_t cpu, char c, const char* pad) {
  std::string& b = buf_;
  b += pad;
  for (int32_t i = 0; i <= visual_max_cpu_; ++i) b += i == cpu ? c : ' ';
  b += pad;
}

namespace {

// perf's timehist_update_runtime_stats. Returns whether perf 6.1's ready_to_run would have
// given another sch delay. `stats`: keep the run-time statistics (only the summary prints
// them; their running mean divides on every row).
bool UpdateRuntime(TimehistAnalysis::Runtime& r, int64_t t, int64_t tprev, bool stats) {
  r.dt_delay = r.dt_sleep = r.dt_iowait = r.dt_preempt = r.dt_run = 0;
  uint64_t delay61 = 0;
  if (tprev) {
    r.dt_run = static_cast<uint64_t>(t - tprev);
    if (r.ready_to_run && r.ready_to_run <= tprev) r.dt_delay = tprev - r.ready_to_run;
    if (r.ready_to_run61 && r.ready_to_run61 <= tprev) delay61 = tprev - r.ready_to_run61;
    if (r.last_time && r.last_time <= tprev) {
      uint64_t wait = static_cast<uint64_t>(tprev - r.last_time);
      if (r.last_state == 'R') r.dt_preempt = wait;
      else if (r.last_state == 'D') r.dt_iowait = wait;
      else r.dt_sleep = wait;
    }
  }
  if (stats) r.run_stats.Update(r.dt_run);
  r.total_run += r.dt_run;
  r.total_delay += r.dt_delay;
  r.total_sleep += r.dt_sleep;
  r.total_iowait += r.dt_iowait;
  r.total_preempt += r.dt_preempt;
  return delay61 != r.dt_delay;
}

}  // namespace

void TimehistAnalysis::PrintRow(const Event& e, const SchedSwitch& s, const Runtime& r,
                                std::string_view comm, int64_t t, char state, bool idle) {
  if (!CpuWanted(e.cpu)) return;
  std::string& b = Rows();
  if (opts_.json) {
    b += "{\"type\":\"switch\",\"ts_ns\":";
    b += std::to_string(t);
    AppendF(&b, ",\"cpu\":%d,\"task\":", e.cpu);
    JsonString(&b, comm);
    AppendF(&b, ",\"tid\":%d,\"state\":\"%c\",\"wait_ms\":%.6f,\"sleep_ms\":%.6f,"
            "\"iowait_ms\":%.6f,\"preempt_ms\":%.6f,\"sch_delay_ms\":%.6f,\"run_ms\":%.6f,"
            "\"next_tid\":%d",
            idle ? 0 : s.prev_pid, idle ? 'I' : state,
            Ms(r.dt_sleep + r.dt_iowait + r.dt_preempt), Ms(r.dt_sleep), Ms(r.dt_iowait),
            Ms(r.dt_preempt), Ms(r.dt_delay), Ms(r.dt_run), s.next_pid);
    if (chain_recorded_) {  // the idle task's rows: []
      b += ",\"callchain\":";
      AppendChainJson(&b, chain_);
      perf61_chains_differ_ += chain_differs_;
    }
    b += "}\n";
    FlushIfBig(&buf_, out_);
    return;
  }
  // The fixed columns in one piece: time, CPU, comm (<= 31), wait, delay, run.
  char row[16 + 26 + 7 + 2 + 32 + 3 * (16 + 26)];
  char* p = PutUsecTimestamp(row, t, 15);
  *p++ = ' ';
  if (e.cpu < 0 || e.cpu > 9999 || opts_.cpu_visual) {
    b.append(row, p - row);
    AppendCpu(&b, e.cpu);
    if (opts_.cpu_visual) AppendVisual(e.cpu, idle ? 'i' : 's', " ");
    p = row;
  } else {
    p = PutCpu(p, e.cpu);
  }
  *p++ = ' ';
  p = PutLeft(p, comm, comm_width_);
  *p++ = ' ';
  p = PutSchedTime(p, r.dt_sleep + r.dt_iowait + r.dt_preempt, 6);
  p = PutSchedTime(p, r.dt_delay, 6);
  p = PutSchedTime(p, r.dt_run, 6);
  b.append(row, p - row);
  if (opts_.show_state) {
    b += "     ";
    b += idle ? 'I' : state;
    b += ' ';
  }
  if (opts_.show_next) {
    std::string next = absl::StrCat("next: ", AV(s.next_comm), "[", s.next_pid, "]");
    if (next.size() > 29) next.resize(29);  // perf's char nstr[30]
    AppendF(&b, " %-*s", comm_width_, next.c_str());
  }
  if (opts_.show_wakeups && !opts_.show_next) AppendF(&b, "  %-*s", comm_width_, "");
  if (chain_on_) {
    AppendChainColumn(&b, chain_);
    perf61_chains_differ_ += chain_differs_;
  }
  b += "\n";
  FlushIfBig(&buf_, out_);
}

bool TimehistAnalysis::ClipToWindow(int64_t* t, int64_t* tprev) const {
  // Rows inside the window only; the first run is cut at the window's start, the last at its
  // end; a task whose sched-in was not seen is left out at the end.
  if (start_ns_ && start_ns_ > *t) return false;
  if (*tprev && start_ns_ > *tprev) *tprev = start_ns_;
  if (end_ns_) {
    if (!*tprev || *tprev > end_ns_) return false;
    if (*t > end_ns_) *t = end_ns_;
  }
  return true;
}

void TimehistAnalysis::OnSwitch(const Event& e, const SchedSwitch& s) {
  if (!ValidCpu(e.cpu) && e.cpu != -1) return;  // corrupt CPU number
  const int32_t cpu = std::max(e.cpu, 0);
  max_cpu_ = std::max(max_cpu_, cpu);
  if (static_cast<size_t>(cpu) >= last_switch_.size()) last_switch_.resize(cpu + 1, 0);
  const bool idle = s.prev_pid == 0;
  const char state = rules_.StateLetter(s.prev_state);
  const int32_t tid = rules_.RowThread(e, s, tasks_);
  TakeChain(e, s);
  // -I: perf names the CPU's last thread (and keeps the chain of a task going idle) before
  // it filters; only switches with idle on one side count.
  if (opts_.idle_hist && !idle) {
    IdleRuntime(cpu).last_thread = tid;
    if (chain_on_ && s.next_pid == 0) IdleChainsOf(cpu).Save(chain_);
  }
  bool skipped = Filtered(tid);
  if (opts_.idle_hist && s.prev_pid != 0 && s.next_pid != 0) skipped = true;
  int64_t t = e.ts_ns;
  Runtime* tr = nullptr;
  if (!skipped) {
    tr = idle ? &IdleRuntime(cpu) : &runtime_[tid];
    int64_t tprev = last_switch_[cpu];
    if (ClipToWindow(&t, &tprev)) {
      Switch sw{e, s, *tr, cpu, tid, t, tprev, state, idle};
      if (opts_.idle_hist) IdleHistSwitch(sw);
      else CountSwitch(sw);
    }
  }
  if (hist_start_ == 0 && t >= start_ns_) hist_start_ = t;
  if (end_ns_ == 0 || t <= end_ns_) hist_end_ = t;
  if (tr) {
    tr->last_time = e.ts_ns;
    tr->last_state = state;
    tr->ready_to_run = rules_.ReadyAtSwitchOut(state) ? t : 0;
    tr->ready_to_run61 = 0;
  }
  last_switch_[cpu] = e.ts_ns;
}

// -I: only the idle periods count (charged to the task that went idle), and a row is shown
// for each switch with idle on one side.
void TimehistAnalysis::IdleHistSwitch(const Switch& w) {
  if (w.idle) {
    if (CpuWanted(w.cpu)) UpdateRuntime(w.r, w.t, w.tprev, opts_.with_summary);
    if (w.r.last_thread < 0) return;  // perf prints no row then
    ChargeIdle(w.r, w.t, w.tprev);
    IdleChainsOf(w.cpu).Charge(static_cast<uint64_t>(w.t - w.tprev));
  }
  if (!opts_.summary_only) PrintRow(w.e, w.s, w.r, CommStr(w.tid, w.idle), w.t, w.state, w.idle);
}

void TimehistAnalysis::CountSwitch(const Switch& w) {
  if (CpuWanted(w.cpu)) {
    bool differs = UpdateRuntime(w.r, w.t, w.tprev, opts_.with_summary);
    // With --state (or its summary split), R+ is preemption here, sleep ('W') in 6.1.
    if (opts_.show_state && !w.idle && Perf61Letter(w.s.prev_state) != w.state) differs = true;
    ++rows_;
    perf61_rows_differ_ += differs && !rules_.perf61();
  }
  if (!opts_.summary_only) PrintRow(w.e, w.s, w.r, CommStr(w.tid, w.idle), w.t, w.state, w.idle);
}

void TimehistAnalysis::TakeChain(const Event& e, const SchedSwitch& s) {
  chain_.clear();
  chain_differs_ = false;
  chain_recorded_ = opts_.callchain && e.callchain;
  chain_on_ = chain_recorded_ && s.prev_pid != 0;  // idle rows have none
  if (!chain_on_) return;
  chains_seen_ = true;
  ChainFrames(e.stack, opts_.max_stack, rules_.perf61(), &chain_);
  if (rules_.perf61()) return;
  ChainFrames(e.stack, opts_.max_stack, true, &chain61_);
  chain_differs_ = !SameColumn(chain_, chain61_);
}

IdleChains& TimehistAnalysis::IdleChainsOf(int32_t cpu) {
  if (static_cast<size_t>(cpu) >= idle_chains_.size()) idle_chains_.resize(cpu + 1);
  return idle_chains_[cpu];
}

void TimehistAnalysis::ChargeIdle(Runtime& idle, int64_t t, int64_t tprev) {
  Runtime& last = runtime_[idle.last_thread];
  idle.last_thread = -1;
  UpdateRuntime(last, t, tprev, opts_.with_summary);
  // Only its totals count: the row of its next switch must not show this period.
  last.dt_run = last.dt_delay = last.dt_sleep = last.dt_iowait = last.dt_preempt = 0;
}

void TimehistAnalysis::OnWakeup(const Event& e, const SchedWakeup& w) {
  if (w.kind == SchedWakeup::Kind::kWaking) seen_waking_ = true;
  if (w.kind == SchedWakeup::Kind::kWakeup && seen_waking_) return;
  if (w.pid <= 0) return;
  rules_.OnWakee(w.pid, tasks_);
  Runtime& tr = runtime_[w.pid];
  if (tr.ready_to_run == 0) tr.ready_to_run = e.ts_ns;
  if (tr.ready_to_run61 == 0) tr.ready_to_run61 = e.ts_ns;
  if (!opts_.show_wakeups || opts_.idle_hist) return;
  if ((start_ns_ && e.ts_ns < start_ns_) || (end_ns_ && e.ts_ns > end_ns_))
    return;
  int32_t waker = std::max(e.tid, 0);
  if (Filtered(waker) && Filtered(w.pid)) return;
  std::string& b = Rows();
  if (opts_.json) {
    b += "{\"type\":\"wakeup\",\"ts_ns\":" + std::to_string(e.ts_ns);
    AppendF(&b, ",\"cpu\":%d,\"waker\":", e.cpu);
    JsonString(&b, CommStr(waker, false));
    b += ",\"awakened\":";
    JsonString(&b, CommStr(w.pid, false));
    AppendF(&b, ",\"tid\":%d}\n", w.pid);
    FlushIfBig(&buf_, out_);
    return;
  }
  AppendF(&b, "%15s [%04d] ", UsecTimestamp(e.ts_ns).c_str(), e.cpu);
  if (opts_.cpu_visual) AppendF(&b, " %*s ", visual_max_cpu_ + 1, "");
  AppendF(&b, " %-*s ", comm_width_, CommStr(waker, false).c_str());
  AppendF(&b, "  %9s  %9s  %9s ", "", "", "");
  AppendF(&b, "awakened: %s\n", CommStr(w.pid, false).c_str());
  FlushIfBig(&buf_, out_);
}

void TimehistAnalysis::OnMigrate(const Event& e, const SchedMigrate& m) {
  if (!opts_.show_migrations || m.pid <= 0) return;  // perf hooks migrations only with -M
  runtime_[m.pid].migrations++;
  if (opts_.summary_only || opts_.idle_hist) return;
  int32_t mover = std::max(e.tid, 0);
  if (Filtered(mover) && Filtered(m.pid)) return;
  std::string& b = Rows();
  if (opts_.json) {
    b += "{\"type\":\"migrate\",\"ts_ns\":" + std::to_string(e.ts_ns);
    AppendF(&b, ",\"cpu\":%d,\"task\":", e.cpu);
    JsonString(&b, CommStr(m.pid, false));
    AppendF(&b, ",\"tid\":%d,\"from\":%d,\"to\":%d}\n", m.pid, m.orig_cpu, m.dest_cpu);
    FlushIfBig(&buf_, out_);
    return;
  }
  AppendF(&b, "%15s [%04d] ", UsecTimestamp(e.ts_ns).c_str(), e.cpu);
  if (opts_.cpu_visual) AppendVisual(e.cpu, 'm', "  ");  // perf's two spaces here
  AppendF(&b, " %-*s ", comm_width_, CommStr(mover, false).c_str());
  AppendF(&b, "  %9s  %9s  %9s ", "", "", "");
  AppendF(&b, "migrated: %s cpu %d => %d\n", CommStr(m.pid, false).c_str(), m.orig_cpu,
          m.dest_cpu);
  FlushIfBig(&buf_, out_);
}

void TimehistAnalysis::OnLost(const Event& e, const Lost& l) {
  if (l.kind != Lost::Kind::kLost && l.kind != Lost::Kind::kOverrun) return;  // as perf
  if (opts_.json) {
    AppendF(&Rows(), "{\"type\":\"lost\",\"ts_ns\":%lld,\"cpu\":%d,\"count\":%lu}\n",
            static_cast<long long>(e.ts_ns), e.cpu, static_cast<unsigned long>(l.count));
    return;
  }
  AppendF(&Rows(), "%15s lost %lu events on cpu %d\n", UsecTimestamp(e.ts_ns).c_str(),
          static_cast<unsigned long>(l.count), e.cpu);
}

absl::Status TimehistAnalysis::OnEvent(const Event& e) {
  tasks_.Observe(e);
  if (ValidCpu(e.cpu) && e.cpu > max_cpu_) max_cpu_ = e.cpu;
  if (ValidCpu(e.cpu) && e.cpu > visual_max_cpu_) visual_max_cpu_ = e.cpu;
  VisitBody(
      e, [&](const SchedSwitch& s) { OnSwitch(e, s); },
      [&](const SchedWakeup& w) { OnWakeup(e, w); },
      [&](const SchedMigrate& m) { OnMigrate(e, m); }, [&](const Lost& l) { OnLost(e, l); });
  return absl::OkStatus();
}

std::string TimehistAnalysis::Perf61Note() const {
  if (rules_.perf61()) return "";
  std::string note;
  if (perf61_rows_differ_ > 0) {
    note = absl::StrCat("sched timehist: ", perf61_rows_differ_, " of ", rows_,
                        " rows follow current perf (sch delay counted from an R/R+ switch-out",
                        opts_.show_state ? ", R+ = preempted" : "",
                        ") and differ from perf 6.1's; --compat perf-6.1 gives 6.1's numbers");
  }
  if (perf61_chains_differ_ > 0) {
    absl::StrAppend(&note, note.empty() ? "" : "\ntk: ", "sched timehist: ",
                    perf61_chains_differ_, " rows' callchains name user-space frames or stop at ",
                    opts_.max_stack, " functions, where perf 6.1 prints [unknown] and the first ",
                    uint64_t{opts_.max_stack} + 2, " frames; --compat perf-6.1 prints 6.1's");
  }
  return note;
}

absl::Status TimehistAnalysis::Finish() {
  Rows();  // the header even when no row came
  if (opts_.with_summary) {
    if (opts_.json) JsonSummary();
    else PrintSummary();
  }
  return absl::OkStatus();
}

void TimehistAnalysis::WriteRest() {
  out_.write(buf_.data(), static_cast<std::streamsize>(buf_.size()));
  buf_.clear();
}

}  // namespace tk::sched
