// Latency histograms shared by tk sched and tk iolat.
//
// Log2Histogram is bcc's BPF_HISTOGRAM with bpf_log2l() slots, printed exactly as bcc's
// table.py print_log2_hist does (runqlat's / biolatency's "usecs : count distribution"):
//
//          usecs               : count     distribution
//              0 -> 1          : 0        |                                        |
//              2 -> 3          : 12       |****                                    |
//             64 -> 127        : 97       |****************************************|
//
// Distribution keeps count/min/max/sum exactly and answers nearest-rank percentiles. Up to
// kExactLimit values it keeps every value and a percentile is exact (a value that occurred).
// Past that it folds them into a log-linear histogram (HDR-histogram style: values below
// 2^kSubBits are exact; above, each power of two is cut into 2^kSubBits equal buckets) and a
// percentile is its bucket's midpoint clamped to [min, max], within 2^-(kSubBits+1) = 0.39%;
// Quantile::exact says which. Memory: 8 bytes a value up to the limit (512 KiB), then about
// 29 KiB for a 10 s maximum.
#ifndef TK_ANALYSES_COMMON_HISTOGRAM_H_
#define TK_ANALYSES_COMMON_HISTOGRAM_H_

#include <array>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

namespace tk::common {

class Log2Histogram {
 public:
  static constexpr int kSlots = 65;  // bcc's log2_index_max
  // bcc's bpf_log2l(v): 0 and 1 land in slot 1, v in [2^(k-1), 2^k - 1] in slot k.
  static int Slot(uint64_t v);
  // Slot k's bounds as bcc prints them ("0 -> 1", "2 -> 3", "4 -> 7").
  static uint64_t Low(int slot);
  static uint64_t High(int slot);
  void Add(uint64_t v, uint64_t n = 1) { slots_[Slot(v)] += n; }
  uint64_t total() const;
  bool empty() const { return total() == 0; }
  const std::array<uint64_t, kSlots>& slots() const { return slots_; }
  // The highest non-empty slot; 0 when empty.
  int last_slot() const;
  // table.py _print_log2_hist(vals, val_type): nothing when every slot is empty; the wide
  // layout when a slot above 32 is used.
  void Append(std::string_view val_type, std::string* out) const;
  void Print(std::ostream& out, std::string_view val_type) const;

 private:
  std::array<uint64_t, kSlots> slots_{};
};

class Distribution {
 public:
  static constexpr size_t kExactLimit = size_t{1} << 16;
  static constexpr int kSubBits = 7;
  struct Quantile {
    uint64_t value = 0;
    bool exact = true;  // false: a log-linear bucket's midpoint (within 0.39%)
  };
  void Add(uint64_t v);
  uint64_t count() const { return count_; }
  uint64_t min() const { return count_ ? min_ : 0; }
  uint64_t max() const { return max_; }
  double avg() const { return count_ ? static_cast<double>(sum_) / count_ : 0.0; }
  // Nearest rank: the ceil(p/100 * count)-th smallest value (p in (0, 100]); 0 when empty.
  Quantile At(double p) const;
  uint64_t Percentile(double p) const { return At(p).value; }
  // Every percentile of this distribution is exact.
  bool exact() const { return count_ <= kExactLimit; }

 private:
  static size_t Index(uint64_t v);
  static uint64_t Lower(size_t idx);
  static uint64_t Width(size_t idx);
  void AddBucket(uint64_t v);

  uint64_t count_ = 0, min_ = UINT64_MAX, max_ = 0;
  unsigned __int128 sum_ = 0;
  mutable std::vector<uint64_t> values_;  // while count_ <= kExactLimit (sorted lazily)
  mutable bool sorted_ = true;
  std::vector<uint64_t> buckets_;         // once count_ > kExactLimit
};

}  // namespace tk::common

#endif  // TK_ANALYSES_COMMON_HISTOGRAM_H_
