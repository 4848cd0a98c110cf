// perf sched latency's table, byte for byte (perf_sched__lat / output_lat_thread), e.g.:
//
//  -------------------------------------------------------------------------------------------------------------------------------------------
//   Task                  |   Runtime ms  |  Count   | Avg delay ms    | Max delay ms    | Max delay start           | Max delay end          |
//  -------------------------------------------------------------------------------------------------------------------------------------------
//   clang++:(2)           |     24.177 ms |        6 | avg:   2.686 ms | max:   4.112 ms | max start:   661.251274 s | max end:   661.255386 s
//   tail:7979             |      0.041 ms |        1 | avg:   0.000 ms | max:   0.000 ms | max start:     0.000000 s | max end:     0.000000 s
//  -----------------------------------------------------------------------------------------------------------------
//   TOTAL:                |     48.284 ms |     2013 |
//  ---------------------------------------------------
//
// (perf up to 6.12 titles the third column " Switches "; later perf "  Count   ".)
#include <ostream>

#include "analyses/sched/latency.h"
#include "analyses/sched/perf_format.h"
#include "nlohmann/json.hpp"

namespace tk::sched {
namespace {

const std::string kRule = " " + std::string(139, '-');

void AppendRow(std::string* out, const LatencyRow& r) {
  size_t start = out->size();
  AppendF(out, "  %s ", r.task.c_str());
  // perf pads the name to 24 columns (never truncates).
  for (size_t n = out->size() - start; n < 24; ++n) out->push_back(' ');
  AppendF(out,
          "|%11.3f ms |%9lu | avg:%8.3f ms | max:%8.3f ms | max start: %12s s | max end: %12s "
          "s\n",
          static_cast<double>(r.runtime_ns) / 1e6, static_cast<unsigned long>(r.count),
          static_cast<double>(r.avg_delay_ns) / 1e6, static_cast<double>(r.max_delay_ns) / 1e6,
          UsecTimestamp(r.max_delay_start_ns).c_str(), UsecTimestamp(r.max_delay_end_ns).c_str());
}

// perf's print_bad_events.
void AppendInfo(std::string* out, const LatencyInfo& i) {
  if (i.nr_unordered_timestamps && i.nr_timestamps) {
    AppendF(out, "  INFO: %.3f%% unordered timestamps (%lu out of %lu)\n",
            static_cast<double>(i.nr_unordered_timestamps) / i.nr_timestamps * 100.0,
            static_cast<unsigned long>(i.nr_unordered_timestamps),
            static_cast<unsigned long>(i.nr_timestamps));
  }
  if (i.nr_lost_events && i.nr_events) {
    AppendF(out, "  INFO: %.3f%% lost events (%lu out of %lu, in %lu chunks)\n",
            static_cast<double>(i.nr_lost_events) / i.nr_events * 100.0,
            static_cast<unsigned long>(i.nr_lost_events), static_cast<unsigned long>(i.nr_events),
            static_cast<unsigned long>(i.nr_lost_chunks));
  }
  if (i.nr_context_switch_bugs && i.nr_timestamps) {
    AppendF(out, "  INFO: %.3f%% context switch bugs (%lu out of %lu)",
            static_cast<double>(i.nr_context_switch_bugs) / i.nr_timestamps * 100.0,
            static_cast<unsigned long>(i.nr_context_switch_bugs),
            static_cast<unsigned long>(i.nr_timestamps));
    if (i.nr_lost_events) out->append(" (due to lost events?)");
    out->push_back('\n');
  }
}

}  // namespace

void WriteText(const LatencyReport& r, std::ostream& out) {
  std::string s;
  s += "\n";
  s += kRule;
  s += "\n  Task                  |   Runtime ms  |";
  s += r.perf61 ? " Switches " : "  Count   ";
  s += "| Avg delay ms    | Max delay ms    | Max delay start           | Max delay end          |\n";
  s += kRule;
  s += "\n";
  for (const LatencyRow& row : r.rows) {
    AppendRow(&s, row);
    FlushIfBig(&s, out);
  }
  s += " " + std::string(113, '-') + "\n";
  AppendF(&s, "  TOTAL:                |%11.3f ms |%9lu |\n",
          static_cast<double>(r.total_runtime_ns) / 1e6,
          static_cast<unsigned long>(r.total_count));
  s += " " + std::string(51, '-') + "\n";
  AppendInfo(&s, r.info);
  s += "\n";
  out << s;
}

void WriteJson(const LatencyReport& r, std::ostream& out) {
  nlohmann::ordered_json tasks = nlohmann::ordered_json::array();
  for (const LatencyRow& row : r.rows) {
    nlohmann::ordered_json t;
    t["task"] = row.task;
    t["comm"] = row.comm;
    t["pids"] = row.tids;
    t["runtime_ms"] = Ms(row.runtime_ns);
    t["count"] = row.count;
    t["avg_delay_ms"] = Ms(row.avg_delay_ns);
    t["max_delay_ms"] = Ms(row.max_delay_ns);
    t["max_delay_start_ns"] = row.max_delay_start_ns;
    t["max_delay_end_ns"] = row.max_delay_end_ns;
    tasks.push_back(std::move(t));
  }
  nlohmann::ordered_json j;
  j["tasks"] = std::move(tasks);
  j["total"] = {{"runtime_ms", Ms(r.total_runtime_ns)}, {"count", r.total_count}};
  j["runtime_source"] = r.runtime_source;
  j["info"] = {{"timestamps", r.info.nr_timestamps},
               {"unordered_timestamps", r.info.nr_unordered_timestamps},
               {"context_switch_bugs", r.info.nr_context_switch_bugs},
               {"events", r.info.nr_events},
               {"lost_events", r.info.nr_lost_events},
               {"lost_chunks", r.info.nr_lost_chunks}};
  out << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

}  // namespace tk::sched
