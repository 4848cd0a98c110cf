#include "analyses/lttng/common.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "analyses/sched/hist.h"
#include "analyses/sched/perf_format.h"
#include "analyses/sched/timehist.h"
#include "core/absl_compat.h"

namespace tk::lttng {

RunningStats RunningStats::Merge(const RunningStats& a, const RunningStats& b) {
  if (a.n_ == 0) return b;
  if (b.n_ == 0) return a;
  RunningStats m;
  m.n_ = a.n_ + b.n_;
  m.total_ = a.total_ + b.total_;
  m.min_ = std::min(a.min_, b.min_);
  m.max_ = std::max(a.max_, b.max_);
  const double na = static_cast<double>(a.n_), nb = static_cast<double>(b.n_);
  const double delta = b.mean_ - a.mean_;
  m.mean_ = a.mean_ + delta * nb / (na + nb);
  m.m2_ = a.m2_ + b.m2_ + delta * delta * na * nb / (na + nb);
  return m;
}

double RunningStats::Stdev() const {
  if (n_ < 2) return 0;
  return std::sqrt(m2_ / static_cast<double>(n_ - 1));
}

double RunningStats::RelStderr() const {
  if (n_ < 2 || mean_ == 0) return 0;
  return 100.0 * (Stdev() / std::sqrt(static_cast<double>(n_))) / mean_;
}

Json Log2Hist::ToJson() const {
  Json a = Json::array();
  size_t last = 0;
  const auto& b_ = h_.slots();
  for (size_t i = 1; i < b_.size(); ++i)
    if (b_[i]) last = i;
  for (size_t i = 1; i <= last; ++i) {
    uint64_t low = (uint64_t{1} << i) >> 1;
    uint64_t high = i >= 64 ? UINT64_MAX : (uint64_t{1} << i) - 1;
    if (low == high) low -= 1;
    a.push_back(Json{{"low", low}, {"high", high}, {"count", b_[i]}});
  }
  return a;
}

LinearFreq::LinearFreq(double min, double max, int resolution)
    : min_(min), max_(max), step_(resolution > 0 ? (max - min) / resolution : 0) {
  if (step_ > 0) counts_.assign(static_cast<size_t>(resolution), 0);
}

void LinearFreq::Add(double v) {
  if (step_ <= 0 || v < min_ || v > max_) return;
  size_t i = static_cast<size_t>((v - min_) / step_);
  if (i >= counts_.size()) i = counts_.size() - 1;
  ++counts_[i];
}

void LinearFreq::Write(std::string* out) const {
  uint64_t top = 0;
  for (uint64_t c : counts_) top = std::max(top, c);
  for (size_t i = 0; i < counts_.size(); ++i) {
    sched::AppendF(out, "%10.3f %s %lu\n", min_ + step_ * static_cast<double>(i),
                   Bar(static_cast<double>(counts_[i]), static_cast<double>(top), 60).c_str(),
                   static_cast<unsigned long>(counts_[i]));
  }
}

Json LinearFreq::ToJson() const {
  Json a = Json::array();
  for (size_t i = 0; i < counts_.size(); ++i)
    a.push_back(Json{{"low_us", min_ + step_ * static_cast<double>(i)},
                     {"high_us", min_ + step_ * static_cast<double>(i + 1)},
                     {"count", counts_[i]}});
  return a;
}

std::string SeenRange::Text() const {
  std::string s;
  sched::AppendF(&s, "Timerange: [%s, %s]\n",
                 sched::UsecTimestamp(std::max<int64_t>(first, 0)).c_str(),
                 sched::UsecTimestamp(std::max<int64_t>(last, 0)).c_str());
  return s;
}

Json SeenRange::ToJson() const {
  return Json{{"begin_ns", std::max<int64_t>(first, 0)}, {"end_ns", std::max<int64_t>(last, 0)}};
}

std::string Us(uint64_t ns) { return Us(static_cast<double>(ns)); }
std::string Us(double ns) {
  std::string s;
  sched::AppendF(&s, "%0.3f", ns / 1000.0);
  return s;
}

std::string Bar(double value, double max, int width) {
  int n = max > 0 ? static_cast<int>(value * width / max) : 0;
  n = std::clamp(n, 0, width);
  std::string s;
  for (int i = 0; i < n; ++i) s += "\u2588";  // █
  s.append(static_cast<size_t>(width - n), ' ');
  return s;
}

}  // namespace tk::lttng
