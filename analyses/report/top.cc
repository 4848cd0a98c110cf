#include "analyses/report/top.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ostream>

#include "analyses/fold/fold.h"
#include "core/absl_compat.h"
#include "nlohmann/json.hpp"

namespace tk::analyses::report {
namespace {

// pprof's measurement.Percentage.
std::string Percentage(uint64_t v, uint64_t total) {
  double r = total ? 100.0 * static_cast<double>(v) / static_cast<double>(total) : 0;
  if (r >= 99.95 && r <= 100.05) return "  100%";
  char buf[32];
  std::snprintf(buf, sizeof buf, r >= 1.0 ? "%5.2f%%" : "%5.2g%%", r);
  return buf;
}

std::string Trimmed(std::string s) { return s.substr(s.find_first_not_of(' ')); }

std::string Right(const std::string& s, size_t w) {
  return s.size() >= w ? s : std::string(w - s.size(), ' ') + s;
}

}  // namespace

void FrameFunctions(const Frame& f, const fold::FrameNameOptions& opt, std::string* scratch,
                    std::vector<std::string_view>* out) {
  out->clear();
  scratch->clear();
  if (fold::AppendFrame(f, opt, scratch) == 0) return;
  // ";root;...;callee": reversed, so the callee (the innermost inlined name) comes first.
  std::string_view s = *scratch;
  while (!s.empty()) {
    size_t semi = s.rfind(';');
    out->push_back(s.substr(semi + 1));
    s = s.substr(0, semi);
  }
}

bool IsTimeEvent(std::string_view name) {
  std::string_view base = name.substr(0, name.find(':'));
  return base == "cpu-clock" || base == "task-clock";
}

namespace {

struct TimeUnit {
  const char* name;
  double factor;  // in nanoseconds
};
constexpr TimeUnit kTimeUnits[] = {
    {"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}, {"hrs", 3600e9}};

// pprof's measurement.Scale for tk's two units: nanoseconds scale (to = "minimum": the
// largest unit in which the value is at least 1), counts do not.
double Scale(int64_t v, std::string_view unit, std::string_view to, std::string* to_name) {
  to_name->clear();
  if (unit != "nanoseconds") return static_cast<double>(v);
  double x = std::fabs(static_cast<double>(v));
  const TimeUnit* pick = nullptr;
  if (to == "minimum") {
    for (const TimeUnit& u : kTimeUnits)
      if (x / u.factor >= 1.0) pick = &u;
    if (!pick) pick = &kTimeUnits[3];  // the default unit: s
  } else {
    for (const TimeUnit& u : kTimeUnits)
      if (to == u.name) pick = &u;
    if (!pick) pick = &kTimeUnits[3];
  }
  *to_name = pick->name;
  return static_cast<double>(v) / pick->factor;
}

}  // namespace

std::string ScaledValue(int64_t v, std::string_view unit, std::string_view to) {
  std::string name;
  double x = Scale(v, unit, to, &name);
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.2f", x);
  std::string s = buf;
  if (s.ends_with(".00")) s.resize(s.size() - 3);
  if (s == "0" || s == "-0") return "0";
  return s + name;
}

// pprof's selectOutputUnit: one unit for the whole table, from the smallest non-zero value
// (a row's flat, else its cum) unless that is under 1% of the total and the total's unit
// differs, then from 100 times the smallest.
std::string OutputUnit(const std::vector<uint64_t>& mins, uint64_t total, std::string_view unit) {
  int64_t min = 0;
  for (uint64_t m : mins)
    if (m > 0 && (min == 0 || static_cast<int64_t>(m) < min)) min = static_cast<int64_t>(m);
  const int64_t max = static_cast<int64_t>(total);
  if (min == 0) min = max;
  std::string min_unit, max_unit, out;
  Scale(min, unit, "minimum", &min_unit);
  Scale(max, unit, "minimum", &max_unit);
  out = min_unit;
  if (min_unit != max_unit && min * 100 < max) Scale(100 * min, unit, "minimum", &out);
  return out;
}

absl::Status TopSink::OnEvent(const Event& e) {
  if (e.stack.empty()) return absl::OkStatus();
  if (filter_.empty()) filter_ = std::string(e.name);
  if (!fold::SameEventType(e.name, filter_)) return absl::OkStatus();
  const uint64_t v = e.has_period && e.period ? e.period : 1;
  ++sample_no_;
  fold::FrameNameOptions opt;
  opt.java = e.comm == "java";
  bool leaf = true;
  for (const Frame& f : e.stack) {
    FrameFunctions(f, opt, &scratch_, &names_);
    for (std::string_view n : names_) {
      auto it = rows_.find(AV(n));
      if (it == rows_.end()) it = rows_.emplace(std::string(n), Row{std::string(n)}).first;
      Row& r = it->second;
      if (leaf) r.flat += v;
      leaf = false;
      if (r.last_sample == sample_no_) continue;
      r.last_sample = sample_no_;
      r.cum += v;
    }
  }
  if (!leaf) total_ += v;  // a stack fold skips entirely counts nowhere, as in the profile
  return absl::OkStatus();
}

std::vector<const TopSink::Row*> TopSink::Sorted() const {
  std::vector<const Row*> v;
  for (const auto& [k, r] : rows_) v.push_back(&r);
  std::sort(v.begin(), v.end(), [](const Row* a, const Row* b) {
    if (a->flat != b->flat) return a->flat > b->flat;
    if (a->name != b->name) return a->name < b->name;
    return a->cum > b->cum;
  });
  return v;
}

void TopSink::WriteText(std::ostream& out) const {
  const std::string unit = IsTimeEvent(filter_) ? "nanoseconds" : "count";
  const std::vector<const Row*> rows = Sorted();
  std::vector<uint64_t> mins;
  for (const Row* r : rows) mins.push_back(r->flat ? r->flat : r->cum);
  const std::string to = OutputUnit(mins, total_, unit);
  // pprof's header labels, from "Type:" on (File, Build ID and Duration need the profile).
  out << "Type: " << (IsTimeEvent(filter_) ? "cpu" : filter_.substr(0, filter_.find(':'))) << "\n";
  out << "Showing nodes accounting for " << ScaledValue(total_, unit, to) << ", "
      << Trimmed(Percentage(total_, total_)) << " of " << ScaledValue(total_, unit, to)
      << " total\n";
  out << "      flat  flat%   sum%        cum   cum%\n";
  uint64_t sum = 0;
  for (const Row* r : rows) {
    sum += r->flat;
    out << Right(ScaledValue(r->flat, unit, to), 10) << " " << Percentage(r->flat, total_) << " "
        << Percentage(sum, total_) << " " << Right(ScaledValue(r->cum, unit, to), 10) << " "
        << Percentage(r->cum, total_) << "  " << r->name << "\n";
  }
}

void TopSink::WriteJson(std::ostream& out) const {
  nlohmann::json rows = nlohmann::json::array();
  for (const Row* r : Sorted())
    rows.push_back({{"name", r->name}, {"flat", r->flat}, {"cum", r->cum}});
  nlohmann::json j = {{"event", filter_}, {"total", total_}, {"rows", std::move(rows)}};
  out << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

}  // namespace tk::analyses::report
