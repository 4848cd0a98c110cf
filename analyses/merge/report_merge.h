// `tk merge` of --json histogram reports: many hosts' (or many parts') reports into one, as
// the report of all their events together would read. (`tk irq --json`'s statistics merge
// too: stats_merge.h. `tk iolat --json` and `tk sched latency --json` are refused: their
// percentiles have no buckets and their averages are rounded, so no merge is exact.)
//
// Three report shapes are recognised by their keys (one shape per merge; mixing is an error):
//   sched hist  {"buckets": [{"low_us"|"low_ms", "high_*", "count"}], "count", "p50_ns",
//                "p90_ns", "p99_ns", "max_ns", "percentiles_exact"[, "sections": [{... "key",
//                "label"}]]}                                        (tk sched hist --json)
//   iolat hist  [{"val_type", "data": [{"interval-start", "interval-end", "count"}]
//                [, "disk"|"flags"|"process": KEY]}]           (tk iolat hist --json, bcc -j)
//   irq hist    {"time_range": {"begin_ns", "end_ns"}, "unit", "hardirqs": [{"name", "count",
//                "buckets": [{"low", "high", "count"}]}], "softirqs": [{"vec", "name", ...}]}
//                                                                    (tk irq hist --json)
// All three use bcc's log2 slots (slot k holds [2^(k-1), 2^k - 1], slot 1 holds 0 and 1), so
// a bucket is identified by its upper bound and buckets of the same slot add exactly. Counts
// add, max is the maximum, a time range spans the inputs' ranges: all exact. Sections
// (per process, thread, CPU, device, flag set, handler name, vector) merge by key and are
// written in the order the single-file report writes them (by key).
//
// Percentiles (sched hist) cannot be merged from percentiles: they are recomputed from the
// merged log2 buckets (nearest rank: the bucket holding the ceil(p/100 * count)-th value),
// as that bucket's midpoint in ns clamped to max_ns, and "percentiles_exact" is false. Only a
// section to which a single input contributed keeps that input's percentiles and flag, so a
// merge of one report is that report.
#ifndef TK_ANALYSES_MERGE_REPORT_MERGE_H_
#define TK_ANALYSES_MERGE_REPORT_MERGE_H_

#include <map>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "analyses/common/histogram.h"
#include "analyses/merge/stats_merge.h"
#include "nlohmann/json.hpp"

namespace tk::analyses::merge {

// True when `text` (a whole input) looks like a JSON document ('{' or '[' first, after
// whitespace): `tk merge` then merges reports instead of folded stacks.
bool LooksLikeJson(std::string_view text);

class ReportMerge {
 public:
  // Adds one report (parsed JSON); an error names what is wrong with it (not a known
  // report, another shape or unit than the first input's, a malformed bucket).
  absl::Status Add(const nlohmann::ordered_json& report);

  // The merged report, in the shape of the inputs, as the single-file report prints it.
  std::string Dump() const;

 private:
  enum class Shape { kNone, kSchedHist, kIolatHist, kIrqHist, kIrqStats };
  // One merged histogram: the log2 slots and, for sched hist, the other values.
  struct Hist {
    common::Log2Histogram log2;
    uint64_t count = 0, max_ns = 0;
    int inputs = 0;                 // inputs that added a non-empty histogram
    nlohmann::ordered_json single;  // the percentiles of the first such input
    nlohmann::ordered_json extra;   // key, label (sched); val_type, disk... (iolat); name, vec
  };
  absl::Status AddBuckets(const nlohmann::ordered_json& buckets, const char* high_key,
                          Hist* h);
  absl::Status AddSched(const nlohmann::ordered_json& r, Hist* h);
  absl::Status AddIolat(const nlohmann::ordered_json& r);
  absl::Status AddIrq(const nlohmann::ordered_json& r);
  nlohmann::ordered_json SchedJson(const Hist& h) const;
  static nlohmann::ordered_json Buckets(const Hist& h, const char* low, const char* high);

  Shape shape_ = Shape::kNone;
  std::string unit_;  // "us"/"ms" (sched), "usecs"/"msecs" (iolat, irq)
  Hist all_;          // sched: the all-tasks histogram
  // Sections in the single-file report's order: iolat's by the section value, irq's hard IRQs
  // by handler name; sched's by key and irq's softirqs by vector (numeric order).
  std::map<std::string, Hist> named_;
  std::map<int64_t, Hist> numbered_;
  bool has_sections_ = false;  // sched: some input had "sections"
  int64_t begin_ns_ = -1, end_ns_ = -1;  // irq: the spanned time range
  IrqStatsMerge irq_stats_;              // tk irq --json (stats_merge.h)
};

}  // namespace tk::analyses::merge

#endif  // TK_ANALYSES_MERGE_REPORT_MERGE_H_
