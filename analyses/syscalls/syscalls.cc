#include "analyses/syscalls/syscalls.h"

#include <algorithm>
#include <variant>

namespace tk::syscalls {

SyscallsAnalysis::SyscallsAnalysis(SyscallsOptions opts)
    : opts_(std::move(opts)),
      table_(SyscallTable::ForArch(opts_.arch.empty() ? "x86_64" : opts_.arch)) {}

void SyscallsAnalysis::OnTraceInfo(const TraceInfo& info) {
  if (opts_.arch.empty() && !info.arch.empty()) table_ = SyscallTable::ForArch(info.arch);
}

std::string_view SyscallsAnalysis::NameOf(const Syscall& c) {
  if (!c.name.empty()) return c.name;
  std::string_view n = table_.Name(c.id);
  if (!n.empty()) return n;
  name_buf_ = "syscall_" + std::to_string(c.id);
  return name_buf_;
}

absl::Status SyscallsAnalysis::OnEvent(const Event& e) {
  const auto* c = std::get_if<Syscall>(&e.body);
  if (!c) return absl::OkStatus();
  ++events_;
  if (!filter_.Accepts(e)) return absl::OkStatus();
  range_.Add(e.ts_ns);
  Thread& t = threads_[e.tid];
  t.Learn(e);
  if (c->exit && c->id < 0 && c->name.empty()) {
    ++unnumbered_exits_;
    return absl::OkStatus();
  }
  std::string_view name = NameOf(*c);
  if (c->exit)
    Exit(e.tid, t, name, *c, e.ts_ns);
  else
    Enter(t, name, e.ts_ns);
  return absl::OkStatus();
}

void SyscallsAnalysis::Enter(Thread& t, std::string_view name, int64_t ts) {
  if (t.open) ++t.calls[t.open_name].enter_only;
  t.open = true;
  t.open_name.assign(name);
  t.open_ts = ts;
}

void SyscallsAnalysis::Exit(int32_t tid, Thread& t, std::string_view name, const Syscall& c,
                            int64_t ts) {
  auto it = t.calls.find(name);
  if (it == t.calls.end()) it = t.calls.emplace(std::string(name), CallStats()).first;
  CallStats& s = it->second;
  if (!t.open || t.open_name != name || ts < t.open_ts) {
    if (t.open) ++t.calls[t.open_name].enter_only;
    t.open = false;
    ++s.exit_only;
    return;
  }
  t.open = false;
  const uint64_t ns = static_cast<uint64_t>(ts - t.open_ts);
  const double us = static_cast<double>(ns) / 1000.0;
  if ((opts_.min_us >= 0 && us < opts_.min_us) || (opts_.max_us >= 0 && us > opts_.max_us)) return;
  s.duration.Add(ns);
  if (opts_.on_call) {
    opts_.on_call({tid, t.pid, t.comm, name, c.id, t.open_ts, ts, c.ret});
  }
  const bool error = c.ret >= -4095 && c.ret < 0;
  if (error) ++s.errors;
  if (opts_.errno_names) ++s.returns[error ? -c.ret : 0];
}

absl::Status SyscallsAnalysis::Finish() {
  for (auto& [tid, t] : threads_) {
    if (t.open) ++t.calls[t.open_name].enter_only;
    t.open = false;
  }
  SyscallsReport& r = report_;
  r.top = opts_.top;
  r.errno_names = opts_.errno_names;
  r.summary = opts_.summary;
  r.arch = table_.arch();
  r.range = range_;
  r.unnumbered_exits = unnumbered_exits_;
  // --summary: merged in the table's order (the running statistics' sums depend on it).
  if (opts_.summary) {
    for (const auto& [tid, t] : threads_) {
      for (const auto& [name, c] : t.calls) {
        CallStats& m = r.merged[name];
        m.errors += c.errors;
        m.exit_only += c.exit_only;
        m.enter_only += c.enter_only;
        m.duration = lttng::RunningStats::Merge(m.duration, c.duration);
      }
    }
  }
  auto total = [](const SyscallThread& t) {
    uint64_t n = 0;
    for (const auto& [name, c] : t.calls) n += c.duration.count();
    return n;
  };
  for (const auto& [tid, t] : threads_) r.threads.push_back(SyscallThread{tid, t.pid, t.comm, t.calls});
  std::sort(r.threads.begin(), r.threads.end(), [&](const SyscallThread& a, const SyscallThread& b) {
    uint64_t x = total(a), y = total(b);
    return x != y ? x > y : a.tid < b.tid;
  });
  return absl::OkStatus();
}

}  // namespace tk::syscalls
