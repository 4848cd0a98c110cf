// Latency histograms for tk iolat.
//
// Log2Histogram is bcc's BPF_HISTOGRAM with bpf_log2l() slots, printed exactly as bcc's
// table.py print_log2_hist does (biolatency's "usecs : count distribution" layout):
//
//          usecs               : count     distribution
//              0 -> 1          : 0        |                                        |
//              2 -> 3          : 12       |****                                    |
//             64 -> 127        : 97       |****************************************|
//
// LatencyStats keeps count/min/max/sum exactly and percentiles from a log-linear histogram
// (HDR-histogram style): values below 2^kSubBits ns are exact; above, each power of two is cut
// into 2^kSubBits equal buckets and a percentile is reported as its bucket's midpoint, clamped
// to [min, max]. Relative error is at most 2^-(kSubBits+1) = 0.39%. Memory grows with the
// largest value seen (about 29 KiB for a 10 s maximum), never with the sample count.
#ifndef TK_ANALYSES_IOLAT_HISTOGRAM_H_
#define TK_ANALYSES_IOLAT_HISTOGRAM_H_

#include <array>
#include <cstdint>
#include <ostream>
#include <string_view>
#include <vector>

namespace tk::iolat {

class Log2Histogram {
 public:
  static constexpr int kSlots = 65;  // bcc's log2_index_max
  // bcc's bpf_log2l(v): 0 and 1 land in slot 1, v in [2^(k-1), 2^k - 1] in slot k.
  static int Slot(uint64_t v);
  void Add(uint64_t v, uint64_t n = 1) { slots_[Slot(v)] += n; }
  uint64_t total() const;
  bool empty() const { return total() == 0; }
  const std::array<uint64_t, kSlots>& slots() const { return slots_; }
  // table.py _print_log2_hist(vals, val_type, strip_leading_zero=None): prints nothing when
  // every slot above 0 is empty.
  void Print(std::ostream& out, std::string_view val_type) const;

 private:
  std::array<uint64_t, kSlots> slots_{};
};

class LatencyStats {
 public:
  static constexpr int kSubBits = 7;
  void Add(uint64_t ns);
  uint64_t count() const { return count_; }
  uint64_t min() const { return count_ ? min_ : 0; }
  uint64_t max() const { return max_; }
  double avg() const { return count_ ? static_cast<double>(sum_) / count_ : 0.0; }
  // Nearest-rank percentile (p in (0, 100]); 0 when empty.
  uint64_t Percentile(double p) const;

 private:
  static size_t Index(uint64_t v);
  static uint64_t Lower(size_t idx);
  static uint64_t Width(size_t idx);

  uint64_t count_ = 0, min_ = UINT64_MAX, max_ = 0;
  unsigned __int128 sum_ = 0;
  std::vector<uint64_t> buckets_;
};

}  // namespace tk::iolat

#endif  // TK_ANALYSES_IOLAT_HISTOGRAM_H_
