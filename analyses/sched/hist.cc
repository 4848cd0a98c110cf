#include "analyses/sched/hist.h"

#include <ostream>

#include "absl/strings/str_cat.h"
#include "analyses/sched/perf_format.h"
#include "core/absl_compat.h"
#include "nlohmann/json.hpp"

namespace tk::sched {

absl::Status HistAnalysis::OnEvent(const Event& e) {
  tracker_.OnEvent(e, [this](const Delay& d) {
    all_.Add(d.delay_ns(), opts_.millis);
    if (opts_.by == HistOptions::By::kAll) return;
    int64_t key;
    switch (opts_.by) {
      case HistOptions::By::kProcess: key = d.pid; break;
      case HistOptions::By::kThread: key = d.tid; break;
      default: key = d.cpu; break;
    }
    HistReport::Section& s = sections_[key];
    if (s.label.empty()) {
      if (opts_.by == HistOptions::By::kCpu) {
        s.label = absl::StrCat("cpu = ", key);
      } else {
        // bcc: "pid = 1234 comm" (the process's comm: the leader's when known).
        std::string_view comm = tracker_.tasks().Comm(static_cast<int32_t>(key));
        s.label = absl::StrCat(opts_.by == HistOptions::By::kThread ? "tid = " : "pid = ", key,
                               " ", AV(comm));
      }
    }
    s.hist.Add(d.delay_ns(), opts_.millis);
  });
  return absl::OkStatus();
}

absl::Status HistAnalysis::Finish() {
  report_.by = opts_.by;
  report_.millis = opts_.millis;
  report_.all = std::move(all_);
  report_.sections.clear();
  for (auto& [key, sec] : sections_) {
    sec.key = key;
    report_.sections.push_back(std::move(sec));
  }
  sections_.clear();
  return absl::OkStatus();
}

namespace {

// "p50 4.992 us"; "p50 ~4.992 us" when the value is a bucket's midpoint, not a delay.
void AppendPercentile(const common::Distribution& d, double p, std::string* out) {
  common::Distribution::Quantile q = d.At(p);
  AppendF(out, "  p%g %s%.3f us", p, q.exact ? "" : "~", q.value / 1e3);
}

void AppendPercentiles(const DelayHistogram& h, std::string* out) {
  AppendF(out, "     count %lu", static_cast<unsigned long>(h.ns.count()));
  for (double p : {50.0, 90.0, 99.0}) AppendPercentile(h.ns, p, out);
  AppendF(out, "  max %.3f us\n", h.ns.max() / 1e3);
}

}  // namespace

void WriteText(const HistReport& r, std::ostream& out) {
  std::string s;
  const char* unit = r.millis ? "msecs" : "usecs";
  if (r.by == HistOptions::By::kAll) {
    r.all.log2.Append(unit, &s);
    if (r.all.ns.count() == 0) s += "no scheduling delays (no sched_switch with a wakeup)\n";
    else AppendPercentiles(r.all, &s);
  } else {
    for (const HistReport::Section& sec : r.sections) {
      s += "\n" + sec.label + "\n";
      sec.hist.log2.Append(unit, &s);
      AppendPercentiles(sec.hist, &s);
    }
    if (r.sections.empty()) s += "no scheduling delays (no sched_switch with a wakeup)\n";
  }
  out << s;
}

void WriteJson(const HistReport& r, std::ostream& out) {
  auto one = [&r](const DelayHistogram& h) {
    nlohmann::ordered_json j;
    nlohmann::ordered_json buckets = nlohmann::ordered_json::array();
    const std::string lo = r.millis ? "low_ms" : "low_us";
    const std::string hi = r.millis ? "high_ms" : "high_us";
    for (int i = 1; i <= h.log2.last_slot(); ++i)
      buckets.push_back({{lo, common::Log2Histogram::Low(i)},
                         {hi, common::Log2Histogram::High(i)},
                         {"count", h.log2.slots()[i]}});
    j["buckets"] = std::move(buckets);
    j["count"] = h.ns.count();
    j["p50_ns"] = h.ns.Percentile(50);
    j["p90_ns"] = h.ns.Percentile(90);
    j["p99_ns"] = h.ns.Percentile(99);
    j["max_ns"] = h.ns.max();
    j["percentiles_exact"] = h.ns.exact();
    return j;
  };
  nlohmann::ordered_json j = one(r.all);
  if (r.by != HistOptions::By::kAll) {
    nlohmann::ordered_json secs = nlohmann::ordered_json::array();
    for (const HistReport::Section& sec : r.sections) {
      nlohmann::ordered_json x = one(sec.hist);
      x["key"] = sec.key;
      x["label"] = sec.label;
      secs.push_back(std::move(x));
    }
    j["sections"] = std::move(secs);
  }
  out << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

}  // namespace tk::sched
