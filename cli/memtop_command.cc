// `tk memtop [options] [FILE|-]`: page allocations and frees per thread (lttng-memtop) and
// perf kmem --page stat's summary (--compat perf-kmem).
#include <iostream>

#include "analyses/memtop/memtop.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "cli/report_flags.h"
#include "core/absl_compat.h"
#include "core/kernel_events.h"

namespace tk::cli {

int RunMemtop(int argc, char** argv) {
  CLI::App app(
      "tk memtop: pages (2^order each) and KiB allocated and freed per thread, top N both "
      "ways, totals (lttng-memtop); failed allocations apart. Needs kmem:mm_page_alloc, "
      "mm_page_free, mm_page_free_batched (perf kmem --page record, perf record -e "
      "'kmem:mm_page_*').",
      "tk memtop");
  ReportFlags f;
  memtop::MemtopOptions o;
  std::string compat;
  AddReportFlags(&app, &f, true);
  app.add_option("--compat", compat,
                 "perf-kmem: only the SUMMARY block of `perf kmem --page stat` (perf 6.1), byte "
                 "for byte: mm_page_alloc/mm_page_free paired by page");
  if (int rc = ParseArgs(app, argc, argv); rc >= 0) return rc;
  if (!compat.empty() && compat != "perf-kmem")
    return Fail("memtop: --compat: only perf-kmem", kExitUsage);
  if (std::optional<FilterOptions> fo = f.Filter("memtop")) {
    o.filter = std::move(*fo);
  } else {
    return kExitUsage;
  }
  o.top = f.top;
  o.perf_kmem = !compat.empty();
  memtop::MemtopAnalysis a(o);
  return RunReport(f, a, kMemtopNeeds.missing);
}

}  // namespace tk::cli
