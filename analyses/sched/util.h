// `tk sched util`: per-CPU busy and idle time over the trace, from sched_switch alone:
//
//   CPU   window ms     busy ms     idle ms   util %  switches
//     0      24.557      24.151       0.406    98.35      2017
//
// A CPU's window runs from its first sched_switch (before it, what ran is unknown) to the
// last event of the trace; time is idle while pid 0 (swapper) holds the CPU.
#ifndef TK_ANALYSES_SCHED_UTIL_H_
#define TK_ANALYSES_SCHED_UTIL_H_

#include <cstdint>
#include <iosfwd>
#include <vector>

#include "core/filter.h"
#include "core/sink.h"

namespace tk::sched {

struct UtilOptions {
  // --cpu: only these CPUs' rows (and their sum); --time: every figure clipped to the
  // window (a CPU's window starts at its first sched_switch or the window's start, whichever
  // is later). Task filters do not apply to a per-CPU table (the CLI refuses them).
  FilterOptions filter;
};

struct CpuUtil {
  int32_t cpu = -1;
  uint64_t window_ns = 0, busy_ns = 0, idle_ns = 0, switches = 0;
};

// Per CPU that had a sched_switch, ascending; then the sum as cpu -1.
struct UtilReport {
  std::vector<CpuUtil> cpus;
};

class UtilAnalysis final : public EventSink {
 public:
  explicit UtilAnalysis(UtilOptions opts = {}) : opts_(opts), filter_(opts_.filter) {}
  EventMask wants() const override;
  absl::Status OnEvent(const Event& e) override;
  absl::Status Finish() override;  // builds the report (analyses/common/report.h)
  const UtilReport& report() const { return report_; }

 private:
  struct Cpu {
    int64_t first = -1, last_switch = -1;
    int32_t curr = -1;
    uint64_t idle = 0, switches = 0;
  };
  UtilOptions opts_;
  Filter filter_;
  std::vector<Cpu> cpus_;
  int64_t last_ts_ = -1;
  UtilReport report_;
};

void WriteText(const UtilReport& r, std::ostream& out);
void WriteJson(const UtilReport& r, std::ostream& out);

}  // namespace tk::sched

#endif  // TK_ANALYSES_SCHED_UTIL_H_
