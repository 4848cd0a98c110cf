#include "analyses/merge/stats_merge.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"

namespace tk::analyses::merge {
namespace {

using Json = nlohmann::ordered_json;

// A µs value of the report (ns / 1000 printed as the shortest double) back in ns.
uint64_t Ns(const Json& us) { return static_cast<uint64_t>(std::llround(us.get<double>() * 1000)); }

bool IsNumber(const Json& j, const char* key) { return j.contains(key) && j[key].is_number(); }

}  // namespace

bool IsIrqStats(const Json& r) {
  return r.is_object() && r.contains("hard") && r.contains("soft") &&
         r.contains("unpaired_exits");
}

absl::Status IrqStatsMerge::Moments::Add(const Json& s) {
  if (!s.is_object() || !s.contains("count") || !s["count"].is_number_unsigned() ||
      !IsNumber(s, "total_us")) {
    return absl::InvalidArgumentError(absl::StrCat("statistics without count and total_us: ",
                                                   s.dump()));
  }
  const uint64_t n = s["count"].get<uint64_t>();
  if (n == 0) return absl::OkStatus();
  for (const char* k : {"min_us", "avg_us", "max_us"}) {
    if (!IsNumber(s, k)) {
      return absl::InvalidArgumentError(absl::StrCat("statistics without ", k, ": ", s.dump()));
    }
  }
  const double mean = s["avg_us"].get<double>() * 1000;
  const double sd = s["stdev_us"].is_number() ? s["stdev_us"].get<double>() * 1000 : 0;
  const double m2 = sd * sd * static_cast<double>(n - 1);
  if (++inputs == 1) {
    single = {{"avg_us", s["avg_us"]}, {"stdev_us", s["stdev_us"]}};
    mean_ = mean;
    m2_ = m2;
  } else {  // Chan et al.: the mean and M2 of both series
    const double na = static_cast<double>(count), nb = static_cast<double>(n);
    const double delta = mean - mean_;
    mean_ += delta * nb / (na + nb);
    m2_ += m2 + delta * delta * na * nb / (na + nb);
  }
  count += n;
  total_ns += Ns(s["total_us"]);
  min_ns = std::min(min_ns, Ns(s["min_us"]));
  max_ns = std::max(max_ns, Ns(s["max_us"]));
  return absl::OkStatus();
}

// tk irq's STATS object (analyses/irq/irq_report.cc's StatsJson), keys in its order.
Json IrqStatsMerge::Moments::ToJson() const {
  Json j = {{"count", count}, {"total_us", static_cast<double>(total_ns) / 1000.0}};
  if (count) {
    j["min_us"] = static_cast<double>(min_ns) / 1000.0;
    // total / count: the exact mean, rounded once.
    j["avg_us"] = inputs == 1 ? single["avg_us"]
                              : Json(static_cast<double>(total_ns) / static_cast<double>(count) /
                                     1000.0);
    j["max_us"] = static_cast<double>(max_ns) / 1000.0;
  }
  if (count < 2) {
    j["stdev_us"] = nullptr;
  } else if (inputs == 1) {
    j["stdev_us"] = single["stdev_us"];
  } else {
    j["stdev_us"] = std::sqrt(m2_ / static_cast<double>(count - 1)) / 1000.0;
  }
  return j;
}

absl::Status IrqStatsMerge::AddRows(const Json& rows, bool soft) {
  if (!rows.is_array()) return absl::InvalidArgumentError("not a tk irq --json report");
  const char* key = soft ? "vec" : "irq";
  for (const Json& row : rows) {
    if (!row.is_object() || !row.contains(key) || !row[key].is_number_integer() ||
        !row.contains("duration")) {
      return absl::InvalidArgumentError(absl::StrCat("a row without ", key, ": ", row.dump()));
    }
    if (row.contains("longest") || row.contains("freq")) {
      return absl::InvalidArgumentError(
          "--top lists and tk irq freq tables do not merge exactly: merge reports without them");
    }
    Row& r = (soft ? soft_ : hard_)[row[key].get<int64_t>()];
    if (r.name.is_null()) r.name = row.value("name", Json(""));
    if (absl::Status st = r.duration.Add(row["duration"]); !st.ok()) return st;
    if (soft && row.contains("raise_latency")) {
      if (absl::Status st = r.raise.Add(row["raise_latency"]); !st.ok()) return st;
    }
  }
  return absl::OkStatus();
}

absl::Status IrqStatsMerge::Add(const Json& r) {
  const Json& range = r.value("time_range", Json::object());
  if (IsNumber(range, "begin_ns") && IsNumber(range, "end_ns")) {
    int64_t b = range["begin_ns"].get<int64_t>(), e = range["end_ns"].get<int64_t>();
    if (b > 0 && (begin_ns_ < 0 || b < begin_ns_)) begin_ns_ = b;
    if (e > end_ns_) end_ns_ = e;
  }
  if (absl::Status st = AddRows(r["hard"], false); !st.ok()) return st;
  if (absl::Status st = AddRows(r["soft"], true); !st.ok()) return st;
  if (r["unpaired_exits"].is_number_unsigned()) unpaired_ += r["unpaired_exits"].get<uint64_t>();
  return absl::OkStatus();
}

Json IrqStatsMerge::ToJson() const {
  Json j;
  j["time_range"] = {{"begin_ns", std::max<int64_t>(begin_ns_, 0)},
                     {"end_ns", std::max<int64_t>(end_ns_, 0)}};
  bool recomputed = false;
  for (bool soft : {false, true}) {
    Json rows = Json::array();
    for (const auto& [n, r] : soft ? soft_ : hard_) {
      Json row = {{soft ? "vec" : "irq", n}, {"name", r.name}, {"duration", r.duration.ToJson()}};
      recomputed |= r.duration.inputs >= 2;
      if (soft) {
        row["raise_latency"] = r.raise.ToJson();
        recomputed |= r.raise.inputs >= 2;
      }
      rows.push_back(std::move(row));
    }
    j[soft ? "soft" : "hard"] = std::move(rows);
  }
  j["unpaired_exits"] = unpaired_;
  if (recomputed) j["avg_stdev_exact"] = false;
  return j;
}

}  // namespace tk::analyses::merge
