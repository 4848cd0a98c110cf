#include "analyses/iolat/histogram.h"

#include <bit>
#include <cmath>

#include "absl/strings/str_format.h"

namespace tk::iolat {

int Log2Histogram::Slot(uint64_t v) {
  // bpf_log2l(v) = bpf_log2(v) + 1 where bpf_log2(0) = bpf_log2(1) = 0: the bit width of v,
  // with 0 counted like 1.
  return v <= 1 ? 1 : std::bit_width(v);
}

uint64_t Log2Histogram::total() const {
  uint64_t t = 0;
  for (uint64_t s : slots_) t += s;
  return t;
}

namespace {

// table.py _stars(): stars while i <= width*val/val_max - 1 (true division), at most width.
std::string Stars(uint64_t val, uint64_t val_max, int width) {
  if (val_max == 0) return "";
  double x = static_cast<double>(static_cast<long double>(width) * val / val_max);
  int n = 0;
  while (n <= width - 1 && !(n > x - 1)) ++n;
  return std::string(n, '*');
}

}  // namespace

void Log2Histogram::Print(std::ostream& out, std::string_view val_type) const {
  int idx_max = -1;
  uint64_t val_max = 0;
  for (int i = 0; i < kSlots; ++i) {
    if (slots_[i] > 0) idx_max = i;
    if (slots_[i] > val_max) val_max = slots_[i];
  }
  if (idx_max <= 0) return;
  const bool narrow = idx_max <= 32;
  const int stars = narrow ? 40 : 20;
  if (narrow) {
    out << absl::StrFormat("     %-19s : count     distribution\n", std::string(val_type));
  } else {
    out << absl::StrFormat("               %-29s : count     distribution\n",
                           std::string(val_type));
  }
  for (int i = 1; i <= idx_max; ++i) {
    uint64_t low = uint64_t{1} << (i - 1);
    uint64_t high = i >= 64 ? UINT64_MAX : (uint64_t{1} << i) - 1;
    if (low == high) low -= 1;
    std::string bar = Stars(slots_[i], val_max, stars);
    if (narrow) {
      out << absl::StrFormat("%10d -> %-10d : %-8d |%-40s|\n", low, high, slots_[i], bar);
    } else {
      out << absl::StrFormat("%20d -> %-20d : %-8d |%-20s|\n", low, high, slots_[i], bar);
    }
  }
}

// Log-linear index: v < 2^kSubBits maps to itself; otherwise with e = bit_width(v) - kSubBits - 1
// (the number of low bits dropped), index = (e + 1) << kSubBits | (v >> e) & (2^kSubBits - 1).
size_t LatencyStats::Index(uint64_t v) {
  constexpr uint64_t kSub = uint64_t{1} << kSubBits;
  if (v < kSub) return static_cast<size_t>(v);
  int e = std::bit_width(v) - kSubBits - 1;
  return (static_cast<size_t>(e + 1) << kSubBits) | ((v >> e) & (kSub - 1));
}

uint64_t LatencyStats::Lower(size_t idx) {
  constexpr uint64_t kSub = uint64_t{1} << kSubBits;
  if (idx < kSub) return idx;
  int e = static_cast<int>(idx >> kSubBits) - 1;
  return (kSub | (idx & (kSub - 1))) << e;
}

uint64_t LatencyStats::Width(size_t idx) {
  constexpr uint64_t kSub = uint64_t{1} << kSubBits;
  if (idx < kSub) return 1;
  return uint64_t{1} << ((idx >> kSubBits) - 1);
}

void LatencyStats::Add(uint64_t ns) {
  ++count_;
  if (ns < min_) min_ = ns;
  if (ns > max_) max_ = ns;
  sum_ += ns;
  size_t idx = Index(ns);
  if (idx >= buckets_.size()) buckets_.resize(idx + 1);
  ++buckets_[idx];
}

uint64_t LatencyStats::Percentile(double p) const {
  if (count_ == 0) return 0;
  uint64_t rank = static_cast<uint64_t>(std::ceil(p / 100.0 * static_cast<double>(count_)));
  if (rank < 1) rank = 1;
  if (rank >= count_) return max_;
  if (rank == 1) return min_;
  uint64_t seen = 0;
  for (size_t i = 0; i < buckets_.size(); ++i) {
    seen += buckets_[i];
    if (seen >= rank) {
      uint64_t mid = Lower(i) + (Width(i) - 1) / 2;
      if (mid < min_) mid = min_;
      if (mid > max_) mid = max_;
      return mid;
    }
  }
  return max_;
}

}  // namespace tk::iolat
