// JSON iolat output. The report's shape (issue 6):
//   {"devices": [{"dev": "7,0", "mount": "/tmp/m", "fstype": "ext4", "mount_options": "rw,sync",
//     "requests": 80, "writes": 64, "write_bytes": 4194304, "sync_write_bytes": 4194304,
//     "sync_write_ratio": 1.0, "verdict": "write-sync", "cause": "mount",
//     "top_writers": [{"comm": "dd", "pid": 42, ...}],
//     "latency": {"d2c": {"count": 330, "min_us": ..., "p50_us": ..., "percentiles_exact": true},
//     ...}}]}
// Unknown values are null, never omitted.
#include <cmath>
#include <ostream>

#include "analyses/iolat/iolat.h"
#include "analyses/iolat/report_util.h"
#include "nlohmann/json.hpp"

namespace tk::iolat {

namespace {

using nlohmann::json;

// Microseconds with nanosecond resolution (3 decimals).
double Us(double ns) { return std::round(ns) / 1e3; }

json Stats(const LatencyStats& s) {
  if (s.count() == 0) return json{{"count", 0}};
  return json{{"count", s.count()},
              {"min_us", Us(s.min())},
              {"avg_us", Us(s.avg())},
              {"p50_us", Us(s.Percentile(50))},
              {"p99_us", Us(s.Percentile(99))},
              {"max_us", Us(s.max())},
              {"percentiles_exact", s.exact()}};
}

json Writer(const WriterSummary& w) {
  return json{{"comm", std::string(w.comm)},
              {"pid", w.pid},
              {"tid", w.tid},
              {"issuer", std::string(IssuerName(w.issuer))},
              {"from", w.from_dev ? json(DevName(w.from_dev)) : json(nullptr)},
              {"writes", w.writes},
              {"bytes", w.bytes},
              {"sync_writes", w.sync_writes},
              {"sync_bytes", w.sync_bytes},
              {"sync_ratio", w.bytes ? static_cast<double>(w.sync_bytes) / w.bytes : 0.0},
              {"d_sleeps", w.d_sleeps},
              {"d_sleep_ms", w.d_sleep_ns / 1e6}};
}

json Device(const WriteSyncReport& r, const DeviceSummary& d) {
  const Mix& m = d.mix;
  auto nul = [](bool has, const std::string& s) { return has ? json(s) : json(nullptr); };
  json j;
  j["dev"] = DevName(d.dev);
  j["mount"] = nul(d.mount, d.mount ? d.mount->mount_point : "");
  j["fstype"] = nul(d.mount, d.mount ? d.mount->fstype : "");
  j["mount_options"] = nul(d.mount, d.mount ? d.mount->options() : "");
  j["mount_sync"] = d.mount ? json(d.mount->sync()) : json(nullptr);
  j["accounted_at"] = d.stage == 'Q' ? "block_bio_queue" : "block_rq_issue";
  j["requests"] = m.requests;
  j["reads"] = m.reads;
  j["read_bytes"] = m.read_bytes;
  j["writes"] = m.writes;
  j["write_bytes"] = m.write_bytes;
  j["sync_writes"] = m.sync_writes;
  j["sync_write_bytes"] = m.sync_write_bytes;
  j["sync_write_ratio"] = d.sync_ratio();
  j["fua"] = m.fua;
  j["preflush"] = m.preflush;
  j["flushes"] = m.flushes;
  j["discards"] = m.discards;
  j["sequential_ratio"] =
      m.reads + m.writes ? static_cast<double>(m.sequential) / (m.reads + m.writes) : 0.0;
  j["throughput_mb_s"] = ThroughputMBs(d);
  json by = json::object();
  for (Issuer i : {Issuer::kWriter, Issuer::kFlusher, Issuer::kJournal, Issuer::kStacked,
                   Issuer::kKernel}) {
    by[std::string(IssuerName(i))] = {{"bytes", d.bytes_by_issuer[static_cast<size_t>(i)]},
                                      {"sync_bytes", d.sync_by_issuer[static_cast<size_t>(i)]}};
  }
  j["by_issuer"] = by;
  j["writer_sync_bytes"] = d.writer_sync;
  j["writer_sync_ratio"] = d.own_base ? static_cast<double>(d.writer_sync) / d.own_base : 0.0;
  j["verdict"] = d.verdict;
  j["cause"] = d.cause.empty() ? json(nullptr) : json(d.cause);
  json st = json::array();
  for (const StackedSummary& s : d.stacked) {
    st.push_back({{"from", DevName(s.from_dev)}, {"root", DevName(s.root_dev)},
                  {"bytes", s.bytes}, {"sync_bytes", s.sync_bytes}});
  }
  j["stacked"] = st;
  json tw = json::array();
  for (size_t i = 0; i < d.writers.size() && i < r.top_writers; ++i)
    tw.push_back(Writer(d.writers[i]));
  j["top_writers"] = tw;
  json lat = json::object();
  if (auto it = r.stages.latency.find(d.dev); it != r.stages.latency.end()) {
    lat["d2c"] = Stats(it->second.d2c);
    lat["q2c"] = Stats(it->second.q2c);
  } else {
    lat["d2c"] = Stats(LatencyStats());
    lat["q2c"] = Stats(LatencyStats());
  }
  j["latency"] = lat;
  return j;
}

json Record(const IoRecord& x) {
  auto ns = [](int64_t a, int64_t b) { return a >= 0 && b >= a ? json(b - a) : json(nullptr); };
  return json{{"ts_ns", x.first()}, {"complete_ns", x.c},      {"comm", std::string(x.comm)},
              {"pid", x.pid},       {"tid", x.tid},            {"dev", DevName(x.stat_dev)},
              {"rwbs", x.rwbs.ToString()}, {"sector", x.sector}, {"bytes", x.bytes()},
              {"q2d_ns", ns(x.q, x.d)},    {"d2c_ns", ns(x.d, x.c)}, {"q2c_ns", ns(x.q, x.c)},
              {"error", x.error}};
}

}  // namespace

void WriteJson(const WriteSyncReport& r, std::ostream& out) {
  const InputCounts& in = r.input;
  json j;
  j["input"] = r.input_name;
  j["duration_s"] = in.last_ts > in.first_ts ? (in.last_ts - in.first_ts) / 1e9 : 0.0;
  j["block_events"] = in.block_events;
  j["sched_switch_events"] = in.switch_events;
  j["lost_events"] = in.lost;
  j["mounts_known"] = r.mounts_known;
  json devs = json::array();
  for (const DeviceSummary& d : r.devices) devs.push_back(Device(r, d));
  j["devices"] = devs;
  out << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

void WriteJson(const StageLatencyReport& r, std::ostream& out) {
  json devs = json::array();
  for (const auto& [dev, l] : r.latency) {
    TrackerCounts c;
    if (auto it = r.counts.find(dev); it != r.counts.end()) c = it->second;
    devs.push_back({{"dev", DevName(dev)},
                    {"latency",
                     {{"q2g", Stats(l.q2g)}, {"g2i", Stats(l.g2i)}, {"i2d", Stats(l.i2d)},
                      {"d2c", Stats(l.d2c)}, {"q2c", Stats(l.q2c)}}},
                    {"completed", l.completed},
                    {"errors", l.errors},
                    {"merges", c.merges},
                    {"requeues", c.requeues},
                    {"partial_completions", c.partial_completions},
                    {"unmatched_completions", c.unmatched_completions},
                    {"never_completed", c.never_completed},
                    {"stale_issued", c.stale_issued},
                    {"lost_inflight", c.lost_inflight}});
  }
  out << json{{"devices", devs}}.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

// bcc biolatency -j shape: one object per histogram with "val_type" and {interval-start,
// interval-end, count} buckets up to the last non-empty one.
void WriteJson(const HistReport& r, std::ostream& out) {
  const char* section = HistSection(r.by);
  json arr = json::array();
  for (const auto& [key, h] : r.hists) {
    int max_idx = 0;
    for (int i = 0; i < Log2Histogram::kSlots; ++i)
      if (h.slots()[i]) max_idx = i;
    json data = json::array();
    uint64_t prev = 0;
    for (int i = 1; i <= max_idx; ++i) {
      uint64_t index = i >= 64 ? UINT64_MAX : (uint64_t{1} << i);
      data.push_back({{"interval-start", prev}, {"interval-end", index - 1},
                      {"count", h.slots()[i]}});
      prev = index;
    }
    json one = {{"val_type", r.millis ? "msecs" : "usecs"}, {"data", data}};
    if (section) one[section] = key;
    arr.push_back(one);
  }
  out << arr.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

void WriteJson(const TopReport& r, std::ostream& out) {
  json arr = json::array();
  for (const TopEntry& t : r.top) arr.push_back(Record(t.rec));
  out << arr.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

void WriteLogLineJson(const IoRecord& rec, std::ostream& out) { out << Record(rec).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n"; }

}  // namespace tk::iolat
