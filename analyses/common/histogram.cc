#include "analyses/common/histogram.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <ostream>

#include "absl/strings/str_format.h"

namespace tk::common {

int Log2Histogram::Slot(uint64_t v) {
  // bpf_log2l(v) = bpf_log2(v) + 1 where bpf_log2(0) = bpf_log2(1) = 0: the bit width of v,
  // with 0 counted like 1.
  return v <= 1 ? 1 : std::bit_width(v);
}

uint64_t Log2Histogram::Low(int slot) {
  uint64_t low = uint64_t{1} << (slot - 1);
  return low == High(slot) ? low - 1 : low;  // slot 1: "0 -> 1"
}

uint64_t Log2Histogram::High(int slot) {
  return slot >= 64 ? UINT64_MAX : (uint64_t{1} << slot) - 1;
}

uint64_t Log2Histogram::total() const {
  uint64_t t = 0;
  for (uint64_t s : slots_) t += s;
  return t;
}

int Log2Histogram::last_slot() const {
  int last = 0;
  for (int i = 0; i < kSlots; ++i)
    if (slots_[i] > 0) last = i;
  return last;
}

void Log2Histogram::Append(std::string_view val_type, std::string* out) const {
  const int idx_max = last_slot();
  if (idx_max <= 0) return;
  uint64_t val_max = 0;
  for (uint64_t s : slots_) val_max = std::max(val_max, s);
  const bool narrow = idx_max <= 32;
  const int stars = narrow ? 40 : 20;
  if (narrow) absl::StrAppendFormat(out, "     %-19s : count     distribution\n", val_type);
  else absl::StrAppendFormat(out, "               %-29s : count     distribution\n", val_type);
  for (int i = 1; i <= idx_max; ++i) {
    // table.py _stars(): floor(width * val / val_max) stars, at most width.
    uint64_t n = slots_[i];
    auto k = static_cast<size_t>(
        std::min<unsigned __int128>(static_cast<unsigned __int128>(stars) * n / val_max, stars));
    std::string bar(k, '*');
    if (narrow)
      absl::StrAppendFormat(out, "%10d -> %-10d : %-8d |%-40s|\n", Low(i), High(i), n, bar);
    else
      absl::StrAppendFormat(out, "%20d -> %-20d : %-8d |%-20s|\n", Low(i), High(i), n, bar);
  }
}

void Log2Histogram::Print(std::ostream& out, std::string_view val_type) const {
  std::string s;
  Append(val_type, &s);
  out << s;
}

// Log-linear index: v < 2^kSubBits maps to itself; otherwise with e = bit_width(v) - kSubBits - 1
// (the number of low bits dropped), index = (e + 1) << kSubBits | (v >> e) & (2^kSubBits - 1).
size_t Distribution::Index(uint64_t v) {
  constexpr uint64_t kSub = uint64_t{1} << kSubBits;
  if (v < kSub) return static_cast<size_t>(v);
  int e = std::bit_width(v) - kSubBits - 1;
  return (static_cast<size_t>(e + 1) << kSubBits) | ((v >> e) & (kSub - 1));
}

uint64_t Distribution::Lower(size_t idx) {
  constexpr uint64_t kSub = uint64_t{1} << kSubBits;
  if (idx < kSub) return idx;
  int e = static_cast<int>(idx >> kSubBits) - 1;
  return (kSub | (idx & (kSub - 1))) << e;
}

uint64_t Distribution::Width(size_t idx) {
  constexpr uint64_t kSub = uint64_t{1} << kSubBits;
  if (idx < kSub) return 1;
  return uint64_t{1} << ((idx >> kSubBits) - 1);
}

void Distribution::AddBucket(uint64_t v) {
  size_t idx = Index(v);
  if (idx >= buckets_.size()) buckets_.resize(idx + 1);
  ++buckets_[idx];
}

void Distribution::Add(uint64_t v) {
  ++count_;
  min_ = std::min(min_, v);
  max_ = std::max(max_, v);
  sum_ += v;
  if (count_ <= kExactLimit) {
    if (!values_.empty() && v < values_.back()) sorted_ = false;
    values_.push_back(v);
    return;
  }
  if (!values_.empty()) {  // past the limit: fold the kept values into buckets
    for (uint64_t x : values_) AddBucket(x);
    values_.clear();
    values_.shrink_to_fit();
  }
  AddBucket(v);
}

Distribution::Quantile Distribution::At(double p) const {
  if (count_ == 0) return {};
  auto rank = static_cast<uint64_t>(std::ceil(p / 100.0 * static_cast<double>(count_)));
  rank = std::clamp<uint64_t>(rank, 1, count_);
  if (rank == 1) return {min_, true};
  if (rank == count_) return {max_, true};
  if (exact()) {
    if (!sorted_) {
      std::sort(values_.begin(), values_.end());
      sorted_ = true;
    }
    return {values_[rank - 1], true};
  }
  uint64_t seen = 0;
  for (size_t i = 0; i < buckets_.size(); ++i) {
    seen += buckets_[i];
    if (seen < rank) continue;
    uint64_t lo = std::max(Lower(i), min_), hi = std::min(Lower(i) + Width(i) - 1, max_);
    return {std::clamp(Lower(i) + (Width(i) - 1) / 2, lo, hi), lo == hi};
  }
  return {max_, true};
}

}  // namespace tk::common
