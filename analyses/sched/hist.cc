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
    Section& s = sections_[key];
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

void HistAnalysis::WriteText(std::ostream& out) const {
  std::string s;
  const char* unit = opts_.millis ? "msecs" : "usecs";
  if (opts_.by == HistOptions::By::kAll) {
    all_.log2.Append(unit, &s);
    if (all_.ns.count() == 0) s += "no scheduling delays (no sched_switch with a wakeup)\n";
    else AppendPercentiles(all_, &s);
  } else {
    for (const auto& [key, sec] : sections_) {
      s += "\n" + sec.label + "\n";
      sec.hist.log2.Append(unit, &s);
      AppendPercentiles(sec.hist, &s);
    }
    if (sections_.empty()) s += "no scheduling delays (no sched_switch with a wakeup)\n";
  }
  out << s;
}

void HistAnalysis::WriteJson(std::ostream& out) const {
  auto one = [this](const DelayHistogram& h) {
    nlohmann::ordered_json j;
    nlohmann::ordered_json buckets = nlohmann::ordered_json::array();
    const std::string lo = opts_.millis ? "low_ms" : "low_us";
    const std::string hi = opts_.millis ? "high_ms" : "high_us";
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
  nlohmann::ordered_json j = one(all_);
  if (opts_.by != HistOptions::By::kAll) {
    nlohmann::ordered_json secs = nlohmann::ordered_json::array();
    for (const auto& [key, sec] : sections_) {
      nlohmann::ordered_json x = one(sec.hist);
      x["key"] = key;
      x["label"] = sec.label;
      secs.push_back(std::move(x));
    }
    j["sections"] = std::move(secs);
  }
  out << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

}  // namespace tk::sched
