#include "analyses/cputop/cpudist.h"

#include <ostream>
#include <variant>

#include "analyses/sched/perf_format.h"

namespace tk::cputop {

void CpudistAnalysis::Add(int32_t tid, const Thread& t, int64_t from, int64_t to, int32_t cpu) {
  const Filter& f = filter_;
  if (from == 0 || to < from || !f.TimeOk(to) || !f.CpuOk(cpu)) return;
  if (tid == 0 && !opts_.idle) return;
  if (!f.TaskOk(t.pid, tid, t.comm)) return;
  uint64_t ns = static_cast<uint64_t>(to - from);
  uint64_t v = opts_.millis ? ns / 1000000 : ns / 1000;
  if (opts_.by == CpudistOptions::By::kAll) {
    report_.all.Add(v);
    return;
  }
  int32_t key = opts_.by == CpudistOptions::By::kProcess && t.pid >= 0 ? t.pid : tid;
  CpudistSection& s = report_.sections[key];
  if (s.comm.empty()) s.comm = t.comm;
  s.hist.Add(v);
}

absl::Status CpudistAnalysis::OnEvent(const Event& e) {
  const auto* s = std::get_if<SchedSwitch>(&e.body);
  if (!s || e.ts_ns < 0) return absl::OkStatus();
  ++switches_;
  Thread& prev = threads_[s->prev_pid];
  if (!s->prev_comm.empty()) prev.comm.assign(s->prev_comm);
  if (e.tid == s->prev_pid && e.pid >= 0) prev.pid = e.pid;
  if (!opts_.off_cpu) Add(s->prev_pid, prev, prev.in, e.ts_ns, e.cpu);
  prev.out = e.ts_ns;
  prev.in = 0;
  Thread& next = threads_[s->next_pid];
  if (!s->next_comm.empty()) next.comm.assign(s->next_comm);
  if (opts_.off_cpu) Add(s->next_pid, next, next.out, e.ts_ns, e.cpu);
  next.in = e.ts_ns;
  return absl::OkStatus();
}

absl::Status CpudistAnalysis::Finish() {
  report_.by = opts_.by;
  report_.off_cpu = opts_.off_cpu;
  report_.millis = opts_.millis;
  return absl::OkStatus();
}

void WriteText(const CpudistReport& r, std::ostream& out) {
  const char* unit = r.millis ? "msecs" : "usecs";
  std::string s;
  if (r.by == CpudistOptions::By::kAll) {
    r.all.Write(unit, &s);
  } else {
    const char* label = r.by == CpudistOptions::By::kProcess ? "pid" : "tid";
    for (const auto& [key, sec] : r.sections) {
      sched::AppendF(&s, "\n%s = %d %s\n", label, key, sec.comm.c_str());
      sec.hist.Write(unit, &s);
    }
  }
  out << s;
}

void WriteJson(const CpudistReport& r, std::ostream& out) {
  lttng::Json j;
  j["unit"] = r.millis ? "msecs" : "usecs";
  j["off_cpu"] = r.off_cpu;
  if (r.by == CpudistOptions::By::kAll) {
    j["count"] = r.all.count();
    j["buckets"] = r.all.ToJson();
  } else {
    lttng::Json a = lttng::Json::array();
    for (const auto& [key, sec] : r.sections) {
      a.push_back({{r.by == CpudistOptions::By::kProcess ? "pid" : "tid", key},
                   {"comm", sec.comm},
                   {"count", sec.hist.count()},
                   {"buckets", sec.hist.ToJson()}});
    }
    j["sections"] = std::move(a);
  }
  out << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

}  // namespace tk::cputop
