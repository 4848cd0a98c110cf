// The filters every command takes (--time, --pid, --tid, --comm, --cpu, and --device on
// iolat), in one place: one FilterOptions, one Filter holding the predicates, and FilterSink,
// the stage that drops events before an analysis sees them.
//
// What a filter is applied to depends on the analysis (docs/filters.md):
//   - per-event analyses (fold, script) see only the events the filter accepts: FilterSink
//     in front of them tests the event's own time, CPU and task (a sample's pid/tid/comm, the
//     task that was running when a tracepoint fired), as perf script does;
//   - analyses with state machines (sched, iolat) see every event and ask the Filter about
//     what they report: a scheduling delay (the task that waited, the CPU it got, the time it
//     got it), a block request (its submitter, device, the time of the stage counted), a
//     timehist row (perf sched timehist's rule). Dropping events before them would lose the
//     wakeups and switches of other tasks that their numbers need.
//
// Time ranges follow perf's --time (util/time-utils.c): "START,END" in trace seconds with up
// to 9 decimals, either side may be empty (open), both ends inclusive; several ranges
// separated by spaces ("1.5,2 3,3.5", in order, not overlapping) select their union; an event
// without a time (or time 0) is never dropped. perf's percent forms ("10%/2", "0%-10%,30%-40%",
// "25%") are slices of [first, last] sample time, which perf.data records in its header: they
// are resolved before the parse (ParsePercentRanges), so only where that header exists.
#ifndef TK_CORE_FILTER_H_
#define TK_CORE_FILTER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "core/event.h"
#include "core/sink.h"

namespace tk {

// [start_ns, end_ns], both inclusive; 0 = open on that side (as perf).
struct TimeRange {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  bool operator==(const TimeRange&) const = default;
};

struct BlockDevice {
  uint32_t major = 0, minor = 0;
  bool operator==(const BlockDevice&) const = default;
};

// Every list empty = no filter on that field. Lists are alternatives (an event matches a
// field when it matches any entry); fields combine with AND.
struct FilterOptions {
  std::vector<TimeRange> time;
  std::vector<int32_t> pids;  // process (tgid); where the input has none, the tid stands in
  std::vector<int32_t> tids;
  std::vector<std::string> comms;  // exact thread names
  std::vector<int32_t> cpus;
  std::vector<BlockDevice> devices;
  bool empty() const {
    return time.empty() && pids.empty() && tids.empty() && comms.empty() && cpus.empty() &&
           devices.empty();
  }
  bool has_task() const { return !pids.empty() || !tids.empty() || !comms.empty(); }
};

// perf's --time: one or more "START,END" ranges separated by spaces (see the file comment).
// A percent form is an error here (it needs the trace's span: ParsePercentRanges).
absl::StatusOr<std::vector<TimeRange>> ParseTimeRanges(std::string_view s);
inline bool IsPercentTime(std::string_view s) { return s.find('%') != std::string_view::npos; }
// perf's percent forms over the sample span [first_ns, last_ns]: "P%/N" the Nth slice of P
// percent, "A%-B%" from A to B percent, several of one kind separated by ',', "P%" the first
// P percent. A slice ends 1 ns before the next one starts (except at the end of the trace).
absl::StatusOr<std::vector<TimeRange>> ParsePercentRanges(std::string_view s, int64_t first_ns,
                                                          int64_t last_ns);
// "1,3,5-7" (a range expands; at most 65536 ids in one range).
absl::StatusOr<std::vector<int32_t>> ParseIdList(std::string_view s);
// "sh,cc1plus" (perf's --comms list; a comm cannot contain ',' here).
std::vector<std::string> ParseCommList(std::string_view s);
// "8:0", "8:0,8:16" or one "8,0" (blkparse's spelling of a device).
absl::StatusOr<std::vector<BlockDevice>> ParseDeviceList(std::string_view s);

class Filter {
 public:
  Filter() = default;  // accepts everything
  explicit Filter(FilterOptions opts);

  const FilterOptions& options() const { return opts_; }
  bool empty() const { return opts_.empty(); }

  bool TimeOk(int64_t ts_ns) const;
  bool CpuOk(int32_t cpu) const;  // an unknown CPU (-1) fails a CPU filter
  // `pid` -1 (unknown) matches the pid filter by `tid`.
  bool TaskOk(int32_t pid, int32_t tid, std::string_view comm) const;
  bool DeviceOk(uint32_t major, uint32_t minor) const;
  // How much of [from, to] lies in the time ranges (all of it without a time filter);
  // overlapping ranges count twice.
  uint64_t TimeOverlapNs(int64_t from, int64_t to) const;
  // The event's own time, CPU and task, and for a block event its device.
  bool Accepts(const Event& e) const;

 private:
  FilterOptions opts_;
  absl::flat_hash_set<int32_t> pids_, tids_, cpus_;
  absl::flat_hash_set<std::string> comms_;
  absl::flat_hash_set<uint64_t> devices_;
};

// Forwards the events `filter` accepts to `next`. Kinds in `side_band` (perf.data's COMM,
// FORK, EXIT and LOST records by default) are tested by CPU only, as perf script does with
// --show-task-events: they describe tasks rather than being something a task did.
class FilterSink final : public EventSink {
 public:
  static constexpr EventMask kSideBand = EventMask()
                                             .Add(EventKind::kComm)
                                             .Add(EventKind::kFork)
                                             .Add(EventKind::kExit)
                                             .Add(EventKind::kLost);
  FilterSink(const Filter& filter, EventSink& next, EventMask side_band = kSideBand)
      : filter_(filter), next_(next), side_band_(side_band) {}
  EventMask wants() const override { return next_.wants(); }
  absl::Status OnEvent(const Event& e) override;
  absl::Status Finish() override { return next_.Finish(); }
  SideWork* TakeSideWork() override { return next_.TakeSideWork(); }
  void PrefetchStack(uint64_t stack_id) override { next_.PrefetchStack(stack_id); }
  uint64_t dropped() const { return dropped_; }

 private:
  const Filter& filter_;
  EventSink& next_;
  EventMask side_band_;
  uint64_t dropped_ = 0;
};

}  // namespace tk

#endif  // TK_CORE_FILTER_H_
