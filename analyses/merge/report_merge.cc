#include "analyses/merge/report_merge.h"

#include <bit>
#include <cmath>

#include "absl/strings/str_cat.h"

namespace tk::analyses::merge {
namespace {

using Json = nlohmann::ordered_json;

constexpr const char* kIolatSections[] = {"disk", "flags", "process"};

bool IsUnsigned(const Json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_number_unsigned();
}

// The log2 slot whose upper bound is `high` (2^k - 1 → k); -1 when it is not one.
int SlotOf(uint64_t high) {
  if (high == UINT64_MAX) return 64;
  if (!std::has_single_bit(high + 1) || high == 0) return -1;
  return std::bit_width(high);
}

}  // namespace

bool LooksLikeJson(std::string_view text) {
  size_t i = text.find_first_not_of(" \t\r\n");
  return i != std::string_view::npos && (text[i] == '{' || text[i] == '[');
}

absl::Status ReportMerge::AddBuckets(const Json& buckets, const char* high_key, Hist* h) {
  if (!buckets.is_array()) return absl::InvalidArgumentError("buckets are not an array");
  uint64_t n = 0;
  for (const Json& b : buckets) {
    if (!IsUnsigned(b, high_key) || !IsUnsigned(b, "count")) {
      return absl::InvalidArgumentError(absl::StrCat("a bucket without \"", high_key,
                                                     "\" and \"count\": ", b.dump()));
    }
    int slot = SlotOf(b[high_key].get<uint64_t>());
    if (slot < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("not a log2 bucket (upper bound 2^k-1): ", b.dump()));
    }
    uint64_t c = b["count"].get<uint64_t>();
    h->log2.Add(common::Log2Histogram::Low(slot), c);
    n += c;
  }
  h->count += n;
  if (n) ++h->inputs;
  return absl::OkStatus();
}

absl::Status ReportMerge::AddSched(const Json& r, Hist* h) {
  std::string unit = r["buckets"].empty() || r["buckets"][0].contains("high_us") ? "us" : "ms";
  if (!r["buckets"].empty()) {
    if (unit_.empty()) unit_ = unit;
    if (unit != unit_) {
      return absl::InvalidArgumentError("histograms in usecs and in msecs (-m) cannot be merged");
    }
  }
  int before = h->inputs;
  if (absl::Status st = AddBuckets(r["buckets"], unit == "us" ? "high_us" : "high_ms", h);
      !st.ok()) {
    return st;
  }
  if (IsUnsigned(r, "max_ns")) h->max_ns = std::max(h->max_ns, r["max_ns"].get<uint64_t>());
  if (h->inputs == 1 && before == 0) {
    for (const char* k : {"p50_ns", "p90_ns", "p99_ns", "percentiles_exact"}) {
      if (r.contains(k)) h->single[k] = r[k];
    }
  }
  return absl::OkStatus();
}

absl::Status ReportMerge::AddIolat(const Json& r) {
  for (const Json& one : r) {
    if (!one.is_object() || !one.contains("data") || !one.contains("val_type") ||
        !one["val_type"].is_string()) {
      return absl::InvalidArgumentError("not a tk iolat hist --json histogram");
    }
    Json extra = {{"val_type", one["val_type"]}};
    std::string key;
    for (const char* s : kIolatSections) {
      if (one.contains(s)) {
        extra[s] = one[s];
        key = one[s].is_string() ? one[s].get<std::string>() : one[s].dump();
      }
    }
    std::string unit = one["val_type"].get<std::string>();
    if (unit_.empty()) unit_ = unit;
    if (unit != unit_) {
      return absl::InvalidArgumentError("histograms in usecs and in msecs (-m) cannot be merged");
    }
    Hist& h = named_[key];
    if (h.extra.is_null()) h.extra = extra;
    if (h.extra != extra) {
      return absl::InvalidArgumentError("histograms per disk, flags or process mixed");
    }
    if (absl::Status st = AddBuckets(one["data"], "interval-end", &h); !st.ok()) return st;
  }
  return absl::OkStatus();
}

absl::Status ReportMerge::AddIrq(const Json& r) {
  const Json& range = r["time_range"];
  if (IsUnsigned(range, "begin_ns") && IsUnsigned(range, "end_ns")) {
    int64_t b = range["begin_ns"].get<int64_t>(), e = range["end_ns"].get<int64_t>();
    if (b > 0 && (begin_ns_ < 0 || b < begin_ns_)) begin_ns_ = b;
    if (e > end_ns_) end_ns_ = e;
  }
  for (bool soft : {false, true}) {
    const Json& list = r[soft ? "softirqs" : "hardirqs"];
    if (!list.is_array()) return absl::InvalidArgumentError("not a tk irq hist --json report");
    for (const Json& one : list) {
      if (!one.is_object() || !one.contains("name") || !one["name"].is_string() ||
          (soft && !one.contains("vec"))) {
        return absl::InvalidArgumentError(absl::StrCat("a histogram without name: ", one.dump()));
      }
      Hist& h = soft ? numbered_[one["vec"].get<int64_t>()]
                     : named_[one["name"].get<std::string>()];
      if (h.extra.is_null()) {
        h.extra = soft ? Json{{"vec", one["vec"]}, {"name", one["name"]}}
                       : Json{{"name", one["name"]}};
      }
      if (absl::Status st = AddBuckets(one["buckets"], "high", &h); !st.ok()) return st;
    }
  }
  return absl::OkStatus();
}

namespace {

// The reports whose merge is refused, with why and what to merge instead; "" for others.
std::string Unmergeable(const Json& r) {
  if (!r.is_object()) return "";
  if (r.contains("devices") && r.contains("block_events")) {
    return "tk iolat --json reports do not merge exactly (percentiles without buckets, "
           "averages rounded to the ns, top-N writers, ratios): merge tk iolat hist --json, or "
           "query io_request in tk sql";
  }
  if (r.contains("tasks") && r.contains("runtime_source")) {
    return "tk sched latency --json reports do not merge exactly (per-task averages rounded "
           "to the ns, no total delay): merge tk sched hist --json, or query sched_delay in "
           "tk sql";
  }
  return "";
}

}  // namespace

absl::Status ReportMerge::Add(const Json& r) {
  if (std::string why = Unmergeable(r); !why.empty()) return absl::InvalidArgumentError(why);
  Shape shape = r.is_array()                                     ? Shape::kIolatHist
                : r.is_object() && r.contains("hardirqs")        ? Shape::kIrqHist
                : IsIrqStats(r)                                  ? Shape::kIrqStats
                : r.is_object() && r.contains("percentiles_exact") && r.contains("buckets")
                    ? Shape::kSchedHist
                    : Shape::kNone;
  if (shape == Shape::kNone) {
    return absl::InvalidArgumentError(
        "not a report tk merge knows (tk sched hist, tk iolat hist, tk irq hist or tk irq "
        "--json)");
  }
  if (shape_ != Shape::kNone && shape != shape_) {
    return absl::InvalidArgumentError("another report than the first input's");
  }
  shape_ = shape;
  if (shape == Shape::kIolatHist) return AddIolat(r);
  if (shape == Shape::kIrqStats) return irq_stats_.Add(r);
  if (shape == Shape::kIrqHist) {
    if (!r.contains("unit") || r["unit"] != "usecs") {
      return absl::InvalidArgumentError("irq hist: unit is not usecs");
    }
    return AddIrq(r);
  }
  if (absl::Status st = AddSched(r, &all_); !st.ok()) return st;
  if (!r.contains("sections")) return absl::OkStatus();
  has_sections_ = true;
  for (const Json& s : r["sections"]) {
    if (!s.is_object() || !s.contains("key") || !s["key"].is_number_integer() ||
        !s.contains("buckets")) {
      return absl::InvalidArgumentError(absl::StrCat("a section without key: ", s.dump()));
    }
    Hist& h = numbered_[s["key"].get<int64_t>()];
    if (h.extra.is_null()) h.extra = {{"key", s["key"]}, {"label", s.value("label", "")}};
    if (absl::Status st = AddSched(s, &h); !st.ok()) return st;
  }
  return absl::OkStatus();
}

Json ReportMerge::Buckets(const Hist& h, const char* low, const char* high) {
  Json a = Json::array();
  for (int i = 1; i <= h.log2.last_slot(); ++i) {
    a.push_back({{low, common::Log2Histogram::Low(i)},
                 {high, common::Log2Histogram::High(i)},
                 {"count", h.log2.slots()[i]}});
  }
  return a;
}

// sched hist's object: merged buckets, count, max; percentiles from one input as they were,
// else from the buckets (nearest rank, the bucket's midpoint in ns, at most max_ns).
Json ReportMerge::SchedJson(const Hist& h) const {
  bool ms = unit_ == "ms";
  Json j;
  j["buckets"] = Buckets(h, ms ? "low_ms" : "low_us", ms ? "high_ms" : "high_us");
  j["count"] = h.count;
  const double unit_ns = ms ? 1e6 : 1e3;
  for (double p : {50.0, 90.0, 99.0}) {
    std::string key = absl::StrCat("p", static_cast<int>(p), "_ns");
    if (h.inputs <= 1) {
      j[key] = h.single.value(key, Json(0));
      continue;
    }
    uint64_t rank = static_cast<uint64_t>(std::ceil(p / 100.0 * static_cast<double>(h.count)));
    uint64_t seen = 0;
    int slot = 1;
    for (; slot < common::Log2Histogram::kSlots; ++slot) {
      seen += h.log2.slots()[slot];
      if (seen >= rank) break;
    }
    double mid = (static_cast<double>(common::Log2Histogram::Low(slot)) +
                  static_cast<double>(common::Log2Histogram::High(slot))) /
                 2 * unit_ns;
    j[key] = std::min<uint64_t>(static_cast<uint64_t>(mid), h.max_ns);
  }
  j["max_ns"] = h.max_ns;
  j["percentiles_exact"] = h.inputs <= 1 ? h.single.value("percentiles_exact", Json(true))
                                         : Json(false);
  return j;
}

std::string ReportMerge::Dump() const {
  Json j;
  switch (shape_) {
    case Shape::kNone:
      return "";
    case Shape::kIrqStats:
      j = irq_stats_.ToJson();
      break;
    case Shape::kSchedHist:
      j = SchedJson(all_);
      if (has_sections_) {
        Json secs = Json::array();
        for (const auto& [key, h] : numbered_) {
          Json x = SchedJson(h);
          x["key"] = h.extra["key"];
          x["label"] = h.extra["label"];
          secs.push_back(std::move(x));
        }
        j["sections"] = std::move(secs);
      }
      break;
    case Shape::kIolatHist: {
      // bcc's -j keys sorted, as tk iolat writes them (nlohmann::json's order).
      nlohmann::json arr = nlohmann::json::array();
      for (const auto& [key, h] : named_) {
        nlohmann::json one = nlohmann::json::parse(h.extra.dump());
        one["data"] = nlohmann::json::parse(Buckets(h, "interval-start", "interval-end").dump());
        arr.push_back(std::move(one));
      }
      return arr.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    }
    case Shape::kIrqHist: {
      j["time_range"] = {{"begin_ns", std::max<int64_t>(begin_ns_, 0)},
                         {"end_ns", std::max<int64_t>(end_ns_, 0)}};
      j["unit"] = "usecs";
      Json hard = Json::array(), soft = Json::array();
      for (const auto& [name, h] : named_) {
        Json x = h.extra;
        x["count"] = h.count;
        x["buckets"] = Buckets(h, "low", "high");
        hard.push_back(std::move(x));
      }
      for (const auto& [vec, h] : numbered_) {
        Json x = h.extra;
        x["count"] = h.count;
        x["buckets"] = Buckets(h, "low", "high");
        soft.push_back(std::move(x));
      }
      j["hardirqs"] = std::move(hard);
      j["softirqs"] = std::move(soft);
      break;
    }
  }
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace tk::analyses::merge
