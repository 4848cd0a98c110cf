// `tk merge` of `tk irq --json` (the stats report, lttng-irqstats' numbers): many parts' or
// hosts' reports into the report of all their interrupts together.
//
//   {"time_range": {"begin_ns", "end_ns"},
//    "hard": [{"irq", "name", "duration": STATS}], "soft": [{"vec", "name", "duration": STATS,
//    "raise_latency": STATS}], "unpaired_exits"}
//   STATS = {"count", "total_us", "min_us", "avg_us", "max_us", "stdev_us"}
//
// Exact: count and unpaired_exits add; total_us adds (as integer ns: every total is a whole
// number of ns / 1000, which a double holds exactly enough to round back); min_us and max_us
// are the extremes; the time range spans the inputs'. IRQs merge by number, vectors by vector
// (the name of the first input that has it), in numeric order as tk irq writes them.
// Recomputed: avg_us as total / count, stdev_us (sample, n-1) from each input's count, mean
// and stdev by Chan et al.'s pairwise update (RunningStats::Merge's formula): the same values
// as the whole's (whose mean is a running one) up to floating-point rounding in the last
// digits, so the merged report says "avg_stdev_exact": false. A statistic only one input contributed to keeps that input's
// values, so a merge of one report is that report.
//
// Not merged (refused): --top's "longest" lists and tk irq freq's tables.
#ifndef TK_ANALYSES_MERGE_STATS_MERGE_H_
#define TK_ANALYSES_MERGE_STATS_MERGE_H_

#include <cstdint>
#include <map>
#include <string>

#include "absl/status/status.h"
#include "nlohmann/json.hpp"

namespace tk::analyses::merge {

// True for a `tk irq --json` stats report.
bool IsIrqStats(const nlohmann::ordered_json& report);

class IrqStatsMerge {
 public:
  absl::Status Add(const nlohmann::ordered_json& report);
  nlohmann::ordered_json ToJson() const;

 private:
  // One STATS object merged.
  struct Moments {
    uint64_t count = 0, total_ns = 0, min_ns = UINT64_MAX, max_ns = 0;
    double mean_ = 0, m2_ = 0;  // ns, ns²
    int inputs = 0;           // inputs with count > 0
    nlohmann::ordered_json single;  // that input's avg_us and stdev_us while inputs == 1
    absl::Status Add(const nlohmann::ordered_json& stats);
    nlohmann::ordered_json ToJson() const;
  };
  struct Row {
    nlohmann::ordered_json name;
    Moments duration, raise;
  };
  absl::Status AddRows(const nlohmann::ordered_json& rows, bool soft);

  std::map<int64_t, Row> hard_, soft_;
  uint64_t unpaired_ = 0;
  int64_t begin_ns_ = -1, end_ns_ = -1;
  bool recomputed_ = false;  // some avg/stdev came from two or more inputs
};

}  // namespace tk::analyses::merge

#endif  // TK_ANALYSES_MERGE_STATS_MERGE_H_
