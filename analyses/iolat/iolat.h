// tk iolat: one analysis per report, all over the same request matching (RequestTracker)
// of block and scheduler events:
//   - WriteSyncAnalysis (the default): per device, request mix, throughput, verdict, evidence;
//   - StageLatencyAnalysis: btt-style stage latencies per device (Q2G G2I I2D D2C Q2C);
//   - HistAnalysis: bcc biolatency log2 histograms (all, per device, per flag set, per process);
//   - TopAnalysis: the N slowest requests;
//   - LogAnalysis: a biosnoop-like chronological log (streamed).
// Each builds its report in Finish() and has one text and one JSON writer
// (analyses/common/report.h). Consumes BlockRq, SchedSwitch, SchedWakeup and Lost events only.
#ifndef TK_ANALYSES_IOLAT_IOLAT_H_
#define TK_ANALYSES_IOLAT_IOLAT_H_

#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "analyses/iolat/histogram.h"
#include "analyses/iolat/mountinfo.h"
#include "analyses/iolat/request_tracker.h"
#include "analyses/iolat/writesync.h"
#include "core/filter.h"
#include "core/intern.h"
#include "core/sink.h"

namespace tk::iolat {

// What every iolat analysis takes.
struct Options {
  RequestTracker::Options tracker;
  // Which requests count, in every report: their submitter (pid/tid/comm), the CPU of their
  // first event, their device (as reported, or the queue it lived on) and the time of the
  // stage counted — completion for latency/hist/top/log, queue/issue for the report's bytes
  // (docs/filters.md). Every event still drives the request matching. Default: all.
  FilterOptions filter;
};

// Stage latencies of one device (ns).
struct DevLatency {
  LatencyStats q2g, g2i, i2d, d2c, q2c, q2d;
  uint64_t completed = 0, errors = 0;
};

// Per device: the stage latencies of the wanted completed requests and the tracker's counts.
struct StageLatencyReport {
  std::map<DevId, DevLatency> latency;
  std::map<DevId, TrackerCounts> counts;
};

// The event counts of the input (the write-sync report's first line).
struct InputCounts {
  uint64_t block_events = 0, switch_events = 0, d_switches = 0, wakeup_events = 0, lost = 0;
  int64_t first_ts = -1, last_ts = -1;
};

// The request matching every iolat analysis is built on: hands the wanted requests (the
// filter's verdict) and the scheduler events to the subclass' hooks, and keeps the stage
// latencies and the input's event counts.
class IoAnalysis : public EventSink, public IoListener {
 public:
  EventMask wants() const override;
  absl::Status OnEvent(const Event& e) override;
  absl::Status Finish() override;

  void OnQueued(const IoRecord& r) final;
  void OnIssued(const IoRecord& r, std::string_view issuer, int32_t tid) final;
  void OnDone(const IoRecord& r) final;

  const InputCounts& input_counts() const { return input_; }
  const StageLatencyReport& stages() const { return stages_; }

 protected:
  explicit IoAnalysis(const Options& opts);
  const Filter& filter() const { return filter_; }
  // A wanted request queued / issued / completed.
  virtual void Queued(const IoRecord& r) { (void)r; }
  virtual void Issued(const IoRecord& r, std::string_view issuer, int32_t tid) {
    (void)r, (void)issuer, (void)tid;
  }
  virtual void Done(const IoRecord& r) { (void)r; }
  virtual void Switch(const Event& e, const SchedSwitch& s) { (void)e, (void)s; }
  virtual void Wakeup(const Event& e, const SchedWakeup& w) { (void)e, (void)w; }
  // After the tracker finished and the stage report is complete.
  virtual void Complete() {}

 private:
  bool Wanted(const IoRecord& r, int64_t ts) const;

  Filter filter_;
  Interner interner_;
  RequestTracker tracker_;
  InputCounts input_;
  StageLatencyReport stages_;
};

// `tk iolat` (the default report).
struct WriteSyncOptions {
  Options io;
  WriteSyncDetector::Options verdict;
  const MountTable* mounts = nullptr;  // --mountinfo; null = mounts unknown
  std::string input_name;              // shown in the header
  size_t top_writers = 5;              // writers listed per device
};

struct WriteSyncReport {
  std::string input_name;
  bool mounts_known = false;
  size_t mount_entries = 0;
  size_t top_writers = 5;
  InputCounts input;
  std::vector<DeviceSummary> devices;  // mounts point into the MountTable passed in
  StageLatencyReport stages;
};

class WriteSyncAnalysis final : public IoAnalysis {
 public:
  explicit WriteSyncAnalysis(WriteSyncOptions opts);
  const WriteSyncReport& report() const { return report_; }

 private:
  void Queued(const IoRecord& r) override { detector_.OnQueued(r); }
  void Issued(const IoRecord& r, std::string_view issuer, int32_t tid) override {
    detector_.OnIssued(r, issuer, tid);
  }
  void Switch(const Event& e, const SchedSwitch& s) override { detector_.OnSwitch(e, s); }
  void Wakeup(const Event& e, const SchedWakeup& w) override { detector_.OnWakeup(e, w); }
  void Complete() override;

  WriteSyncOptions opts_;
  WriteSyncDetector detector_;
  WriteSyncReport report_;
};

// `tk iolat latency`.
class StageLatencyAnalysis final : public IoAnalysis {
 public:
  explicit StageLatencyAnalysis(const Options& opts) : IoAnalysis(opts) {}
  const StageLatencyReport& report() const { return stages(); }
};

// `tk iolat hist`.
struct HistOptions {
  Options io;
  // One histogram per device (-D), per rwbs flag set (-F), per process (-P); default one.
  enum class By { kAll, kDevice, kFlags, kProcess };
  By by = By::kAll;
  bool queued = false;  // Q2C (bcc -Q: "include OS queued time") instead of D2C
  bool millis = false;  // msecs instead of usecs (bcc -m)
};

struct HistReport {
  HistOptions::By by = HistOptions::By::kAll;
  bool millis = false;
  std::map<std::string, Log2Histogram> hists;  // by key ("" for By::kAll)
};

class HistAnalysis final : public IoAnalysis {
 public:
  explicit HistAnalysis(const HistOptions& opts);
  const HistReport& report() const { return report_; }

 private:
  void Done(const IoRecord& r) override;

  HistOptions opts_;
  HistReport report_;
};

// `tk iolat top`.
struct TopOptions {
  Options io;
  size_t n = 10;         // how many requests
  bool by_d2c = false;   // rank by device time instead of Q2C (D2C when no Q)
};

struct TopEntry {
  uint64_t latency_ns = 0;
  IoRecord rec;  // comm interned: valid while the analysis lives
};

struct TopReport {
  std::vector<TopEntry> top;  // slowest first
};

class TopAnalysis final : public IoAnalysis {
 public:
  explicit TopAnalysis(const TopOptions& opts) : IoAnalysis(opts.io), opts_(opts) {}
  const TopReport& report() const { return report_; }

 private:
  void Done(const IoRecord& r) override;  // keeps the N largest in a min-heap
  void Complete() override;

  TopOptions opts_;
  TopReport report_;
};

// `tk iolat log`: streams one line per completed request to `out` (text or JSON Lines), the
// text header with the first line; WriteRest() writes the header when no line came.
class LogAnalysis final : public IoAnalysis {
 public:
  LogAnalysis(const Options& opts, bool json, std::ostream* out)
      : IoAnalysis(opts), json_(json), out_(out) {}
  void WriteRest();

 private:
  void Done(const IoRecord& r) override;

  bool json_;
  std::ostream* out_;
  bool header_done_ = false;
};

// The writers (report_text.cc, report_json.cc).
void WriteText(const WriteSyncReport& r, std::ostream& out);
void WriteJson(const WriteSyncReport& r, std::ostream& out);
void WriteText(const StageLatencyReport& r, std::ostream& out);
void WriteJson(const StageLatencyReport& r, std::ostream& out);
void WriteText(const HistReport& r, std::ostream& out);
void WriteJson(const HistReport& r, std::ostream& out);
void WriteText(const TopReport& r, std::ostream& out);
void WriteJson(const TopReport& r, std::ostream& out);
void WriteLogHeaderText(std::ostream& out);
void WriteLogLineText(const IoRecord& rec, std::ostream& out);
void WriteLogLineJson(const IoRecord& rec, std::ostream& out);

}  // namespace tk::iolat

#endif  // TK_ANALYSES_IOLAT_IOLAT_H_
