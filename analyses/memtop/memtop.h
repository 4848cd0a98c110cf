// `tk memtop`: who allocated and freed pages, from kmem:mm_page_alloc, mm_page_free and
// mm_page_free_batched (mm_page_free_direct / mm_pagevec_free before 3.3):
//
// - Per thread (the task the event was recorded in, as LTTng charges the current task):
//   allocation and free events, pages (2^order each: LTTng counts one page per event) and
//   bytes (pages × 4 KiB); top N both ways; totals. Failed allocations (pfn −1) are counted
//   apart, not as pages. Frees of pages allocated before the trace count (LTTng drops them).
// - perf kmem --page stat's SUMMARY: mm_page_alloc and mm_page_free only (what `perf kmem
//   --page record` records), paired by page (pfn, or the page pointer before 4.1): alloc+freed,
//   alloc-only, free-only, failures, and the order × migratetype table; --compat perf-kmem
//   prints that block as perf 6.1 does, byte for byte.
// Filters: task filters and --cpu by the event; --time by its timestamp.
#ifndef TK_ANALYSES_MEMTOP_MEMTOP_H_
#define TK_ANALYSES_MEMTOP_MEMTOP_H_

#include <array>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "analyses/lttng/common.h"
#include "core/filter.h"
#include "core/kernel_events.h"
#include "core/sink.h"

namespace tk::memtop {

inline constexpr uint64_t kPageSize = 4096;  // perf kmem's default (x86, arm64 4K pages)

struct MemtopOptions {
  FilterOptions filter;  // the shared filters (core/filter.h)
  int top = 10;
  bool perf_kmem = false;  // --compat perf-kmem: only perf's SUMMARY block
};

// perf kmem --page's counters.
struct PageSummary {
  uint64_t allocs = 0, alloc_bytes = 0, frees = 0, free_bytes = 0;
  uint64_t nomatch = 0, nomatch_bytes = 0, fails = 0, fail_bytes = 0;
  std::array<std::array<uint64_t, 5>, 11> order_migrate{};  // perf's MAX_PAGE_ORDER 11
};

// One thread's page events.
struct MemtopTask {
  int32_t tid = -1, pid = -1;
  std::string comm;
  uint64_t allocs = 0, alloc_pages = 0, frees = 0, free_pages = 0, failed = 0;
};

// What Finish() builds (analyses/common/report.h): the layout options, the time range, every
// thread by tid and perf kmem's summary.
struct MemtopReport {
  int top = 10;
  bool perf_kmem = false;  // --compat perf-kmem: WriteText prints only perf's SUMMARY block
  lttng::SeenRange range;
  std::vector<MemtopTask> tasks;  // by tid
  PageSummary summary;
};

void WriteText(const MemtopReport& r, std::ostream& out);
void WriteJson(const MemtopReport& r, std::ostream& out);

class MemtopAnalysis final : public EventSink {
 public:
  explicit MemtopAnalysis(MemtopOptions opts) : opts_(std::move(opts)) {}
  EventMask wants() const override { return kMemtopNeeds.kinds; }
  absl::Status OnEvent(const Event& e) override;
  absl::Status Finish() override;
  uint64_t events() const { return events_; }
  const MemtopReport& report() const { return report_; }

 private:
  struct Task : lttng::TaskName {
    uint64_t allocs = 0, alloc_pages = 0, frees = 0, free_pages = 0, failed = 0;
  };
  void PerfKmem(const PageEvent& p);

  MemtopOptions opts_;
  Filter filter_{opts_.filter};
  absl::flat_hash_map<int32_t, Task> tasks_;
  absl::flat_hash_map<uint64_t, uint32_t> live_;  // perf kmem's live pages: page → allocs
  PageSummary sum_;
  uint64_t events_ = 0;
  lttng::SeenRange range_;
  MemtopReport report_;
};

}  // namespace tk::memtop

#endif  // TK_ANALYSES_MEMTOP_MEMTOP_H_
