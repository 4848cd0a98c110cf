#include "analyses/offcpu/offcpu.h"

#include <algorithm>
#include <ostream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"
#include "core/visit.h"

namespace tk::analyses::offcpu {
namespace {

constexpr std::string_view kKnownStates = "RSDTtXZPI";

// The event perf record --off-cpu writes (tools/perf/util/bpf_off_cpu.c: "offcpu-time").
bool IsOffCpuTimeEvent(std::string_view name) {
  return name == "offcpu-time" || name.starts_with("offcpu-time:");
}

// perf.data samples without PERF_SAMPLE_CALLCHAIN carry the sample IP as a one-frame stack;
// a sched_switch callchain has at least __schedule and its caller.
bool HasCallchain(const Event& e) { return e.stack.size() >= 2; }

// A thread that dies at this switch-out never comes back: no interval starts.
bool Dead(const TaskState& st) { return st.bits & (TaskState::kX | TaskState::kZ); }

}  // namespace

absl::Status ParseStates(std::string_view list, std::string* states) {
  states->clear();
  for (size_t i = 0; i <= list.size();) {
    size_t j = std::min(list.find(',', i), list.size());
    std::string_view tok = list.substr(i, j - i);
    i = j + 1;
    if (tok.empty()) continue;
    if (tok == "R+") tok = "R";  // R includes the preempted R+
    if (tok.size() != 1 || kKnownStates.find(tok[0]) == std::string_view::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("--state: unknown state '", AV(tok), "' (want letters of ",
                       AV(kKnownStates), ", comma separated)"));
    }
    if (states->find(tok[0]) == std::string::npos) states->push_back(tok[0]);
  }
  if (states->empty()) return absl::InvalidArgumentError("--state: empty list");
  return absl::OkStatus();
}

OffCpuSink::OffCpuSink(OffCpuOptions opt) : opt_(std::move(opt)), filter_(opt_.filter) {}

EventMask OffCpuSink::wants() const {
  return EventMask()
      .Add(EventKind::kSchedSwitch)
      .Add(EventKind::kSchedWakeup)
      .Add(EventKind::kSample)
      .Add(EventKind::kFork)
      .Add(EventKind::kSchedFork)
      .WithStacks();
}

void OffCpuSink::AppendStack(const Event& e, bool leaf_first, std::string* key) const {
  fold::FrameNameOptions names = opt_.fold.names;
  if (leaf_first) {
    for (const Frame& f : e.stack) fold::AppendFrame(f, names, key);
    return;
  }
  // As tk fold: Java names are tidied only under a root that is exactly "java".
  names.java = *key == "java";
  for (size_t i = e.stack.size(); i-- > 0;) fold::AppendFrame(e.stack[i], names, key);
}

bool OffCpuSink::Wanted(char state, uint64_t us) const {
  if (!opt_.states.empty() && opt_.states.find(state) == std::string::npos) return false;
  return us >= opt_.min_us && us <= opt_.max_us;
}

absl::Status OffCpuSink::OnEvent(const Event& e) {
  if (e.ts_ns >= 0) last_ns_ = std::max(last_ns_, e.ts_ns);
  VisitBody(
      e, [&](const SchedSwitch& s) { OnSwitch(e, s); },
      [&](const SchedWakeup& w) { OnWakeup(e, w); }, [&](const Sample&) { OnSample(e); },
      [&](const Fork& f) { born_.insert(f.tid); },
      [&](const SchedFork& f) { born_.insert(f.child_pid); });
  return absl::OkStatus();
}

void OffCpuSink::OnSwitch(const Event& e, const SchedSwitch& s) {
  ++stats_.switches;
  if (HasCallchain(e)) ++stats_.switch_stacks;
  if (e.ts_ns < 0) return;
  if (first_ns_ < 0) first_ns_ = e.ts_ns;
  // The previous switch on this CPU: the latest moment a lost switch-in can be placed at.
  int64_t cpu_prev = -1;
  if (e.cpu >= 0 && e.cpu < 4096) {
    if (static_cast<size_t>(e.cpu) >= cpu_last_.size()) cpu_last_.resize(e.cpu + 1, -1);
    cpu_prev = std::exchange(cpu_last_[e.cpu], e.ts_ns);
  }
  // Switch-in first: prev == next does not happen, and the order does not matter otherwise.
  if (int32_t next = s.next_pid; next > 0) {
    auto it = pending_.find(next);
    if (it != pending_.end()) {
      Close(next, it->second, e.ts_ns);
      pending_.erase(it);
    } else if (born_.erase(next)) {
      // a new thread's first run: it never left a CPU
    } else if (seen_.contains(next)) {
      ++stats_.unpaired_in;
    } else {
      ++stats_.open_start;
      stats_.open_start_us += static_cast<uint64_t>(e.ts_ns - first_ns_) / 1000;
    }
    seen_.insert(next);
    waker_.erase(next);
  }
  int32_t prev = s.prev_pid;
  if (prev <= 0) return;
  seen_.insert(prev);
  born_.erase(prev);
  auto [it, fresh] = pending_.try_emplace(prev);
  if (!fresh) {
    // prev leaves a CPU while off-CPU: its switch-in was lost. It ran on this CPU since some
    // switch after the previous one here, so that one bounds the wait from below; perf sched
    // timehist books exactly that (its "previous switch on this CPU"), and so does tk.
    ++stats_.unpaired_out;
    if (cpu_prev >= it->second.out_ns) Close(prev, it->second, cpu_prev);
  }
  waker_.erase(prev);
  if (Dead(s.prev_state)) {
    pending_.erase(it);
    return;
  }
  Pending& p = it->second;
  p.out_ns = e.ts_ns;
  p.pid = e.pid;
  p.waker_tid = -1;
  p.state = s.prev_state.Letter();
  p.has_stack = HasCallchain(e);
  const std::string_view comm = e.comm.empty() ? s.prev_comm : e.comm;
  p.wanted = filter_.TaskOk(e.pid, e.tid >= 0 ? e.tid : prev, comm) && filter_.CpuOk(e.cpu);
  p.key.clear();
  if (!p.has_stack) return;
  // The sample's comm/pid/tid are prev's: the kernel emits sched_switch in prev's context.
  fold::AppendRoot(opt_.fold, e.comm.empty() ? s.prev_comm : e.comm, fold::ShownPid(e),
                   e.tid >= 0 ? e.tid : prev, &p.key);
  AppendStack(e, /*leaf_first=*/false, &p.key);
}

void OffCpuSink::Close(int32_t tid, const Pending& p, int64_t in_ns) {
  if (in_ns < p.out_ns) return;  // time going backwards: nothing sensible to add
  uint64_t us = static_cast<uint64_t>(in_ns - p.out_ns) / 1000;
  Count(tid, p, in_ns, us);
  if (opt_.on_interval) {
    opt_.on_interval({.tid = tid, .pid = p.pid, .state = p.state, .out_ns = p.out_ns,
                      .in_ns = in_ns, .waker_tid = p.waker_tid, .has_stack = p.has_stack});
  }
}

// Adds the interval to its stack when it passes the options.
void OffCpuSink::Count(int32_t tid, const Pending& p, int64_t in_ns, uint64_t us) {
  if (!p.has_stack) {
    ++stats_.no_stack;
    return;
  }
  ++stats_.intervals;
  if (!p.wanted || !filter_.TimeOk(in_ns) || !Wanted(p.state, us)) return;
  ++stats_.counted;
  stats_.counted_us += us;
  if (us == 0) return;  // --min-us 0: counted, but a line of weight 0 says nothing
  if (!opt_.wakeup) {
    stacks_[p.key] += us;
    return;
  }
  key_ = p.key;
  auto w = waker_.find(tid);
  if (w != waker_.end()) {
    key_ += w->second;
  } else {
    key_ += ";--;";  // offwaketime's form without a waker: an empty last frame
    ++stats_.no_waker;
  }
  stacks_[key_] += us;
}

void OffCpuSink::OnWakeup(const Event& e, const SchedWakeup& w) {
  if (w.kind == SchedWakeup::Kind::kWakeupNew) return;
  // As perf sched: with sched_waking in the input, sched_wakeup is ignored. sched_waking
  // always fires in the waker's context; sched_wakeup may fire on the target's CPU.
  if (w.kind == SchedWakeup::Kind::kWaking) {
    seen_waking_ = true;
  } else if (seen_waking_) {
    return;
  }
  auto p = pending_.find(w.pid);
  if (p == pending_.end()) return;  // not off-CPU: a wakeup of a running thread
  p->second.waker_tid = e.tid;
  if (!opt_.wakeup) return;
  if (HasCallchain(e)) ++stats_.waker_stacks;
  std::string& k = waker_[w.pid];  // the last wakeup wins, as in offwaketime
  k.assign(";--");
  AppendStack(e, /*leaf_first=*/true, &k);
  k.push_back(';');
  size_t from = k.size();
  k.append(e.comm);
  std::replace(k.begin() + from, k.end(), ' ', '_');
  std::replace(k.begin() + from, k.end(), ';', ':');
}

void OffCpuSink::OnSample(const Event& e) {
  if (!IsOffCpuTimeEvent(e.name) || !e.has_period || e.stack.empty()) return;
  ++stats_.offcpu_samples;
  if (!filter_.Accepts(e)) return;
  uint64_t us = e.period / 1000;
  // perf --off-cpu records no prev_state: --state cannot select these.
  if (us < opt_.min_us || us > opt_.max_us) return;
  ++stats_.counted;
  if (us == 0) return;
  key_.clear();
  fold::AppendRoot(opt_.fold, e.comm, fold::ShownPid(e), e.tid, &key_);
  AppendStack(e, /*leaf_first=*/false, &key_);
  stacks_[key_] += us;
  stats_.counted_us += us;
}

absl::Status OffCpuSink::Finish() {
  for (const auto& [tid, p] : pending_) {
    ++stats_.open_end;
    if (last_ns_ >= p.out_ns) stats_.open_end_us += static_cast<uint64_t>(last_ns_ - p.out_ns) / 1000;
  }
  return absl::OkStatus();
}

void OffCpuSink::WriteNote(std::ostream& err) const {
  if (stats_.switch_stacks > 0 && stats_.intervals == 0) {
    // A per-process recording sees its threads leave CPUs, hardly ever come back.
    err << "tk: no thread was seen leaving a CPU and coming back: record system-wide "
           "(perf record -a)\n";
  }
  if (stats_.open_start + stats_.open_end > 0) {
    err << "tk: not counted: " << stats_.open_end
        << " off-CPU intervals still open at the end of the trace (" << stats_.open_end_us
        << " us so far), " << stats_.open_start << " open at its start ("
        << stats_.open_start_us << " us seen)\n";
  }
  if (stats_.no_stack > 0) {
    err << "tk: not counted: " << stats_.no_stack
        << " off-CPU intervals whose sched_switch has no callchain\n";
  }
  if (stats_.unpaired_in + stats_.unpaired_out > 0) {
    err << "tk: unpaired switches (events lost or filtered out?): " << stats_.unpaired_out
        << " switch-outs of threads already off-CPU (interval closed at the CPU's previous "
           "switch, as perf sched timehist does), "
        << stats_.unpaired_in
        << " switch-ins of threads already on a CPU\n";
  }
}

void OffCpuSink::WriteJson(std::ostream& out) const {
  nlohmann::json j = fold::FoldedJson(stacks_, opt_.wakeup ? "wakeup" : "off-cpu");
  j["unit"] = "us";
  j["intervals"] = {{"closed", stats_.intervals},
                    {"counted", stats_.counted},
                    {"counted_us", stats_.counted_us},
                    {"no_stack", stats_.no_stack},
                    {"unpaired_switch_out", stats_.unpaired_out},
                    {"unpaired_switch_in", stats_.unpaired_in},
                    {"open_at_start", stats_.open_start},
                    {"open_at_start_us", stats_.open_start_us},
                    {"open_at_end", stats_.open_end},
                    {"open_at_end_us", stats_.open_end_us}};
  if (opt_.wakeup) {
    j["intervals"]["no_waker"] = stats_.no_waker;
    j["wakeups_with_callchain"] = stats_.waker_stacks;
  }
  j["sched_switch"] = {{"events", stats_.switches}, {"with_callchain", stats_.switch_stacks}};
  j["offcpu_time_samples"] = stats_.offcpu_samples;
  out << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

}  // namespace tk::analyses::offcpu
