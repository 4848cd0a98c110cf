#include "analyses/syscalls/perf_trace.h"

#include <algorithm>
#include <ostream>
#include <variant>
#include <vector>

#include "analyses/sched/perf_format.h"

namespace tk::syscalls {

absl::Status PerfTraceSummary::OnEvent(const Event& e) {
  switch (e.kind()) {
    case EventKind::kComm:
    case EventKind::kFork:
    case EventKind::kExit:
    case EventKind::kLost:
      return absl::OkStatus();
    default:
      break;
  }
  ++samples_;
  const auto* c = std::get_if<Syscall>(&e.body);
  if (!c) return absl::OkStatus();
  ++syscall_events_;
  if (c->id < 0) return absl::OkStatus();
  Thread& t = threads_[e.tid];
  if (!e.comm.empty() && t.comm != e.comm) t.comm.assign(e.comm);
  ++t.nr_events;
  if (!c->exit) {
    t.entry_time = e.ts_ns;
    return absl::OkStatus();
  }
  uint64_t duration =
      t.entry_time && e.ts_ns > t.entry_time ? static_cast<uint64_t>(e.ts_ns - t.entry_time) : 0;
  Stats& s = t.calls[c->id];
  s.s.Add(duration);
  if (c->ret < 0) ++s.failures;
  return absl::OkStatus();
}

void PerfTraceSummary::Write(std::ostream& out) const {
  using sched::AppendF;
  std::vector<std::pair<int32_t, const Thread*>> threads;
  for (const auto& [tid, t] : threads_) threads.emplace_back(tid, &t);
  std::sort(threads.begin(), threads.end(), [](const auto& a, const auto& b) {
    uint32_t ba = static_cast<uint32_t>(a.first) % 256, bb = static_cast<uint32_t>(b.first) % 256;
    if (ba != bb) return ba < bb;
    if (a.second->nr_events != b.second->nr_events)
      return a.second->nr_events < b.second->nr_events;
    return a.first < b.first;
  });
  std::string s = "\n Summary of events:\n\n";
  for (const auto& [tid, t] : threads) {
    double ratio =
        samples_ ? static_cast<double>(t->nr_events) / static_cast<double>(samples_) * 100.0 : 0;
    AppendF(&s, " %s (%d), %lu events, %.1f%%\n", t->comm.c_str(), tid,
            static_cast<unsigned long>(t->nr_events), ratio);
    s +=
        "\n   syscall            calls  errors  total       min       avg       max       stddev\n";
    s += "                                     (msec)    (msec)    (msec)    (msec)        (%)\n";
    s += "   --------------- --------  ------ -------- --------- --------- ---------     ------\n";
    struct Row {
      int64_t id;
      double msecs;
      const Stats* st;
    };
    std::vector<Row> rows;
    for (const auto& [id, st] : t->calls)
      rows.push_back({id, static_cast<double>(st.s.count()) * (st.s.mean() / 1e6), &st});
    std::stable_sort(rows.begin(), rows.end(),
                     [](const Row& a, const Row& b) { return a.msecs > b.msecs; });
    for (const Row& r : rows) {
      const lttng::RunningStats& st = r.st->s;
      std::string_view name = table_.Name(r.id);
      std::string n = name.empty() ? std::to_string(r.id) : std::string(name);
      double avg = st.mean();
      double pct = avg ? st.RelStderr() : 0.0;
      AppendF(&s, "   %-15s", n.c_str());
      AppendF(&s, " %8lu %6lu %9.3f %9.3f %9.3f", static_cast<unsigned long>(st.count()),
              static_cast<unsigned long>(r.st->failures), r.msecs, st.min() / 1e6, avg / 1e6);
      AppendF(&s, " %9.3f %9.2f%%\n", st.max() / 1e6, pct);
    }
    s += "\n\n";
  }
  out << s;
}

}  // namespace tk::syscalls
