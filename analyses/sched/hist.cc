#include "analyses/sched/hist.h"

#include <ostream>

#include "absl/strings/str_cat.h"
#include "analyses/sched/perf_format.h"
#include "core/absl_compat.h"
#include "nlohmann/json.hpp"

namespace tk::sched {
namespace {

// bcc's bpf_log2l: floor(log2(v)) + 1, with 0 -> 1.
size_t Log2Index(uint64_t v) {
  if (v == 0) return 1;
  return static_cast<size_t>(63 - __builtin_clzll(v)) + 1;
}

constexpr int kSubBits = 7;  // 128 sub-buckets per power of two

}  // namespace

size_t DelayHistogram::FineIndex(uint64_t v) {
  if (v < (1u << kSubBits)) return static_cast<size_t>(v);
  int e = 63 - __builtin_clzll(v) - kSubBits + 1;  // shift that leaves kSubBits bits
  uint64_t top = v >> e;                            // in [64, 127] * 2 ... [2^(k-1), 2^k)
  return static_cast<size_t>(e) * (1u << (kSubBits - 1)) + static_cast<size_t>(top);
}

uint64_t DelayHistogram::FineLow(size_t idx) {
  if (idx < (1u << kSubBits)) return idx;
  size_t half = 1u << (kSubBits - 1);
  size_t e = (idx - half) / half;  // inverse of FineIndex
  uint64_t top = idx - e * half;
  return top << e;
}

void DelayHistogram::Add(uint64_t ns, bool millis) {
  uint64_t unit = millis ? ns / 1000000 : ns / 1000;
  ++log2_[Log2Index(unit)];
  size_t fi = FineIndex(ns);
  if (fi >= fine_.size()) fine_.resize(fi + 1);
  ++fine_[fi];
  ++count_;
  if (ns > max_) max_ = ns;
}

uint64_t DelayHistogram::Quantile(double q) const {
  if (count_ == 0) return 0;
  uint64_t rank = static_cast<uint64_t>(q * static_cast<double>(count_) + 0.999999999);
  if (rank < 1) rank = 1;
  uint64_t seen = 0;
  for (size_t i = 0; i < fine_.size(); ++i) {
    seen += fine_[i];
    if (seen >= rank) return std::min(FineLow(i), max_);
  }
  return max_;
}

void WriteLog2Hist(const std::array<uint64_t, 65>& vals, const char* unit, std::string* out) {
  size_t idx_max = 0;
  uint64_t val_max = 0;
  bool any = false;
  for (size_t i = 0; i < vals.size(); ++i) {
    if (vals[i] > 0) {
      idx_max = i;
      any = true;
    }
    val_max = std::max(val_max, vals[i]);
  }
  if (!any) return;
  const bool wide = idx_max > 32;
  const int stars = wide ? 20 : 40;
  if (idx_max > 0) {
    if (wide) AppendF(out, "               %-29s : count     distribution\n", unit);
    else AppendF(out, "     %-19s : count     distribution\n", unit);
  }
  for (size_t i = 1; i <= idx_max; ++i) {
    uint64_t low = (uint64_t{1} << i) >> 1;
    uint64_t high = i >= 64 ? UINT64_MAX : (uint64_t{1} << i) - 1;
    if (low == high) low -= 1;
    uint64_t n = vals[i];
    // bcc's _stars: floor(width * val / val_max) stars, at most width.
    uint64_t k = val_max ? std::min<uint64_t>(stars * n / val_max, stars) : 0;
    std::string bar(k, '*');
    if (wide)
      AppendF(out, "%20lu -> %-20lu : %-8lu |%-*s|\n", static_cast<unsigned long>(low),
              static_cast<unsigned long>(high), static_cast<unsigned long>(n), stars, bar.c_str());
    else
      AppendF(out, "%10lu -> %-10lu : %-8lu |%-*s|\n", static_cast<unsigned long>(low),
              static_cast<unsigned long>(high), static_cast<unsigned long>(n), stars, bar.c_str());
  }
}

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

void AppendPercentiles(const DelayHistogram& h, std::string* out) {
  AppendF(out, "     count %lu  p50 %.3f us  p90 %.3f us  p99 %.3f us  max %.3f us\n",
          static_cast<unsigned long>(h.count()), h.Quantile(0.50) / 1e3, h.Quantile(0.90) / 1e3,
          h.Quantile(0.99) / 1e3, h.max_ns() / 1e3);
}

}  // namespace

void HistAnalysis::WriteText(std::ostream& out) const {
  std::string s;
  const char* unit = opts_.millis ? "msecs" : "usecs";
  if (opts_.by == HistOptions::By::kAll) {
    WriteLog2Hist(all_.log2(), unit, &s);
    if (all_.count() == 0) s += "no scheduling delays (no sched_switch with a wakeup)\n";
    else AppendPercentiles(all_, &s);
  } else {
    for (const auto& [key, sec] : sections_) {
      s += "\n" + sec.label + "\n";
      WriteLog2Hist(sec.hist.log2(), unit, &s);
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
    const auto& v = h.log2();
    size_t last = 0;
    for (size_t i = 0; i < v.size(); ++i)
      if (v[i]) last = i;
    for (size_t i = 1; i <= last; ++i) {
      uint64_t low = (uint64_t{1} << i) >> 1, high = (uint64_t{1} << i) - 1;
      if (low == high) low -= 1;
      buckets.push_back({{"low", low}, {"high", high}, {"count", v[i]}});
    }
    j["unit"] = opts_.millis ? "msecs" : "usecs";
    j["buckets"] = std::move(buckets);
    j["count"] = h.count();
    j["p50_us"] = h.Quantile(0.50) / 1e3;
    j["p90_us"] = h.Quantile(0.90) / 1e3;
    j["p99_us"] = h.Quantile(0.99) / 1e3;
    j["max_us"] = h.max_ns() / 1e3;
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
