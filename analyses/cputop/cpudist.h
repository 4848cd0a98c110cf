// `tk cputop hist`: bcc cpudist's log2 histograms of on-CPU slices (the time from a thread's
// switch-in to its switch-out), or with --off-cpu of off-CPU time (switch-out to the next
// switch-in), in µs (-m: ms), overall or per process (-P) / thread (-L):
//
//      usecs               : count     distribution
//          0 -> 1          : 12       |****                                    |
//
// As cpudist: pid 0 (idle) is left out unless --idle; a slice counts once both of its ends
// were seen. --time keeps slices ending in the window, --cpu those ending on those CPUs.
#ifndef TK_ANALYSES_CPUTOP_CPUDIST_H_
#define TK_ANALYSES_CPUTOP_CPUDIST_H_

#include <iosfwd>
#include <map>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "analyses/lttng/common.h"
#include "core/filter.h"
#include "core/sink.h"

namespace tk::cputop {

struct CpudistOptions {
  FilterOptions filter;  // the shared filters (core/filter.h)
  enum class By : uint8_t { kAll, kProcess, kThread };
  By by = By::kAll;
  bool off_cpu = false;  // -O/--off-cpu
  bool millis = false;   // -m
  bool idle = false;     // -I/--idle
};

// One process' or thread's histogram.
struct CpudistSection {
  std::string comm;
  lttng::Log2Hist hist;
};

// What Finish() builds (analyses/common/report.h).
struct CpudistReport {
  CpudistOptions::By by = CpudistOptions::By::kAll;
  bool off_cpu = false, millis = false;
  lttng::Log2Hist all;                          // kAll
  std::map<int32_t, CpudistSection> sections;  // kProcess / kThread: by pid / tid
};

void WriteText(const CpudistReport& r, std::ostream& out);
void WriteJson(const CpudistReport& r, std::ostream& out);

class CpudistAnalysis final : public EventSink {
 public:
  explicit CpudistAnalysis(CpudistOptions opts) : opts_(std::move(opts)) {}
  EventMask wants() const override { return EventMask().Add(EventKind::kSchedSwitch); }
  absl::Status OnEvent(const Event& e) override;
  absl::Status Finish() override;
  const CpudistReport& report() const { return report_; }
  uint64_t events() const { return switches_; }

 private:
  struct Thread {
    int64_t in = 0, out = 0;  // last switch-in / switch-out, 0 = not seen
    int32_t pid = -1;
    std::string comm;
  };
  void Add(int32_t tid, const Thread& t, int64_t from, int64_t to, int32_t cpu);

  CpudistOptions opts_;
  Filter filter_{opts_.filter};
  absl::flat_hash_map<int32_t, Thread> threads_;
  CpudistReport report_;  // filled as slices end
  uint64_t switches_ = 0;
};

}  // namespace tk::cputop

#endif  // TK_ANALYSES_CPUTOP_CPUDIST_H_
