#include "analyses/sched/top.h"

#include <algorithm>
#include <ostream>

#include "absl/strings/str_cat.h"
#include "analyses/sched/perf_format.h"
#include "core/timestamp.h"
#include "nlohmann/json.hpp"

namespace tk::sched {

absl::Status TopAnalysis::OnEvent(const Event& e) {
  tracker_.OnEvent(e, [this](const Delay& d) {
    if (opts_.n == 0) return;
    uint64_t delay = d.delay_ns();
    if (heap_.size() >= opts_.n) {
      const TopEntry& least = heap_.top();
      if (delay < least.delay_ns || (delay == least.delay_ns && d.ready_ns >= least.ready_ns))
        return;
    }
    TopEntry t;
    t.ready_ns = d.ready_ns;
    t.run_ns = d.run_ns;
    t.delay_ns = delay;
    t.prio = d.prio;
    t.cpu = d.cpu;
    t.tid = d.tid;
    t.comm = std::string(d.comm);
    t.waker_tid = d.waker_tid;
    t.waker_comm = std::string(d.waker_comm);
    t.preempted = d.preempted;
    heap_.push(std::move(t));
    if (heap_.size() > opts_.n) heap_.pop();
  });
  return absl::OkStatus();
}

absl::Status TopAnalysis::Finish() {
  auto copy = heap_;
  std::vector<TopEntry>& v = report_.entries;
  v.clear();
  while (!copy.empty()) {
    v.push_back(copy.top());
    copy.pop();
  }
  std::reverse(v.begin(), v.end());
  return absl::OkStatus();
}

void WriteText(const TopReport& r, std::ostream& out) {
  std::string s;
  AppendF(&s, "%-18s %-18s %12s %8s %4s  %-24s %s\n", "Wakeup", "Switch", "Latency (us)",
          "Priority", "CPU", "Wakee", "Waker");
  for (const TopEntry& t : r.entries) {
    std::string wakee = absl::StrCat(t.comm, " (", t.tid, ")");
    std::string waker = t.waker_tid < 0 ? "?"
                        : absl::StrCat(t.preempted ? "(preempted by) " : "", t.waker_comm,
                                       " (", t.waker_tid, ")");
    AppendF(&s, "%-18s %-18s %12.3f %8d %4d  %-24s %s\n", FormatTimestamp(t.ready_ns, 9).c_str(),
            FormatTimestamp(t.run_ns, 9).c_str(), t.delay_ns / 1e3, t.prio, t.cpu, wakee.c_str(),
            waker.c_str());
  }
  out << s;
}

void WriteJson(const TopReport& r, std::ostream& out) {
  nlohmann::ordered_json arr = nlohmann::ordered_json::array();
  for (const TopEntry& t : r.entries) {
    nlohmann::ordered_json j;
    j["wakeup_ns"] = t.ready_ns;
    j["switch_ns"] = t.run_ns;
    j["latency_us"] = t.delay_ns / 1e3;
    j["prio"] = t.prio;
    j["cpu"] = t.cpu;
    j["tid"] = t.tid;
    j["comm"] = t.comm;
    j["waker_tid"] = t.waker_tid;
    j["waker_comm"] = t.waker_comm;
    j["preempted"] = t.preempted;
    arr.push_back(std::move(j));
  }
  nlohmann::ordered_json j;
  j["top"] = std::move(arr);
  out << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

}  // namespace tk::sched
