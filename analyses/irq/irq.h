// `tk irq`: how long interrupt handlers ran, from irq:irq_handler_entry/exit and
// irq:softirq_raise/entry/exit (lttng-irqstats, bcc hardirqs / softirqs):
//
// Pairing (docs/irq.md):
// - Hard IRQs: one slot per CPU. An entry fills it; an exit with the same irq completes the
//   pair (duration = exit − entry); an exit with another irq, or without an entry, is counted
//   as unpaired and dropped. A second entry before an exit replaces the first.
// - Softirqs: per (CPU, vector) the first raise not yet run is kept (a raise while one is
//   pending adds nothing, as the kernel's pending bit); an entry takes it (raise latency =
//   entry − raise) or runs without one; the exit completes the entry.
// - Lost events (PERF_RECORD_LOST, ring-buffer overruns) clear every open slot.
// Statistics per IRQ number (handler names joined) and per softirq vector: count, min, avg,
// max, sample stdev (n−1), in µs; sorted by number. Only durations inside --min/--max (µs)
// count; --time keeps pairs whose entry lies in the window; --cpu filters by CPU; task filters
// keep interrupts that arrived while that task ran (the event's thread).
#ifndef TK_ANALYSES_IRQ_IRQ_H_
#define TK_ANALYSES_IRQ_IRQ_H_

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "analyses/lttng/common.h"
#include "core/filter.h"
#include "core/kernel_events.h"
#include "core/sink.h"

namespace tk::irq {

struct Interrupt;

struct IrqOptions {
  FilterOptions filter;  // the shared filters (core/filter.h)
  double min_us = -1, max_us = -1;  // --min/--max (negative = none)
  std::vector<int32_t> irqs, vecs;  // --irq / --softirq: only these (empty = all)
  bool hard = true, soft = true;    // --hard-only / --soft-only clear the other
  enum class Mode : uint8_t { kStats, kHist, kFreq, kLog };
  Mode mode = Mode::kStats;
  int freq_resolution = 20;  // freq: buckets per table
  int top = 0;               // stats --top N: the N longest interrupts per IRQ and vector
  // freq without --min and --max: each series' table spans its own [min, max] duration (µs),
  // known from a first pass (the stats of the same input); keyed by (soft, number). The
  // tables then fill as durations come: memory is series × buckets, no duration is kept.
  std::map<std::pair<bool, int32_t>, std::pair<double, double>> freq_ranges;
  bool json = false;         // log: JSON Lines rows
  // Called with every interrupt the statistics count (tk sql's irq rows), in any mode.
  std::function<void(const Interrupt&)> on_interrupt;
};

// One interrupt, as the log prints it and the other modes consume it.
struct Interrupt {
  bool soft = false;
  int32_t number = -1;  // irq or vec
  int32_t cpu = -1;
  int64_t begin_ns = 0, end_ns = 0;
  int64_t raise_ns = 0;   // softirq: its raise (0 = none seen)
  std::string_view name;  // hard: the handler; soft: the vector's name
  int32_t ret = -1;       // hard: 0 IRQ_NONE, 1 handled
};

struct Series {
  int32_t number = -1;
  std::string name;  // "virtio1-req.0" (hard, ", "-joined), "RCU" (soft)
  lttng::RunningStats duration;
  lttng::RunningStats raise_latency;  // softirqs
  lttng::Log2Hist hist;               // µs, bcc's -d
  // freq mode: the table over --min/--max or over the series' range from the first pass.
  std::shared_ptr<lttng::LinearFreq> freq;
  // stats --top N: the N longest (a min-heap on duration while counting; name unset).
  std::vector<Interrupt> longest;
};

// What Finish() builds (analyses/common/report.h): the statistics per IRQ number and vector
// (freq mode: each series' table filled), bcc's histograms by handler name, the layout.
struct IrqReport {
  IrqOptions::Mode mode = IrqOptions::Mode::kStats;
  int top = 0;  // stats --top N
  lttng::SeenRange range;
  std::map<int32_t, Series> hard, soft;
  // bcc hardirqs keys by handler name and counts handled exits only.
  std::map<std::string, lttng::Log2Hist> by_name;
  uint64_t unpaired = 0;  // exits without their entry
};

// The log mode streams its rows instead: both print nothing for it.
void WriteText(const IrqReport& r, std::ostream& out);
void WriteJson(const IrqReport& r, std::ostream& out);

class IrqAnalysis final : public EventSink {
 public:
  // Log rows go to `out` as they complete.
  IrqAnalysis(IrqOptions opts, std::ostream& out) : opts_(std::move(opts)), out_(out) {}
  EventMask wants() const override { return kIrqNeeds.kinds; }
  absl::Status OnEvent(const Event& e) override;
  absl::Status Finish() override;

  uint64_t events() const { return events_; }
  const IrqReport& report() const { return report_; }
  const std::map<int32_t, Series>& hard() const { return report_.hard; }
  const std::map<int32_t, Series>& soft() const { return report_.soft; }

 private:
  struct HardSlot {
    int32_t irq = -1;
    int64_t ts = 0;
    bool wanted = false;
  };
  struct SoftSlot {
    int64_t pending = 0;      // first raise not yet run (0 = none)
    int64_t entry = 0;        // the running handler's entry (0 = none)
    int64_t entry_raise = 0;  // the raise that entry consumed
    bool wanted = false;
  };
  void OnIrq(const Event& e, const Irq& q);
  void OnSoftirq(const Event& e, const Softirq& s);
  bool Wanted(const Event& e) const;
  void Complete(const Interrupt& i);
  void LogRow(const Interrupt& i);
  void KeepLongest(Series& s, const Interrupt& i) const;

  IrqOptions opts_;
  Filter filter_{opts_.filter};
  std::ostream& out_;
  std::vector<HardSlot> hard_slots_;                   // per CPU
  absl::flat_hash_map<int64_t, SoftSlot> soft_slots_;  // (cpu << 8) | vec
  absl::flat_hash_map<int32_t, std::vector<std::string>> hard_names_;
  std::vector<std::string> entry_names_;
  uint64_t events_ = 0;
  IrqReport report_;  // filled as interrupts complete
  std::string buf_;
};

}  // namespace tk::irq

#endif  // TK_ANALYSES_IRQ_IRQ_H_
