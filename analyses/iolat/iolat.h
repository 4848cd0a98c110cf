// tk iolat: one pass over block and scheduler events producing
//   - the write-sync report (default): per device, request mix, throughput, verdict, evidence;
//   - btt-style stage latencies per device (Q2G G2I I2D D2C Q2C);
//   - bcc biolatency log2 histograms (all, per device, per flag set, per process);
//   - the N slowest requests, and a biosnoop-like chronological log.
// Consumes BlockRq, SchedSwitch, SchedWakeup and Lost events only.
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

struct Options {
  enum class Mode { kReport, kLatency, kHist, kTop, kLog };
  Mode mode = Mode::kReport;       // what Finish() writes
  bool json = false;               // JSON instead of text
  const MountTable* mounts = nullptr;  // --mountinfo; null = mounts unknown
  std::string input_name;          // shown in headers
  // hist: one histogram per device (-D), per rwbs flag set (-F), per process (-P); default one.
  enum class HistBy { kAll, kDevice, kFlags, kProcess };
  HistBy hist_by = HistBy::kAll;
  bool hist_queued = false;        // Q2C (bcc -Q: "include OS queued time") instead of D2C
  bool hist_millis = false;        // msecs instead of usecs (bcc -m)
  size_t top_n = 10;               // top: how many requests
  bool top_by_d2c = false;         // top: rank by device time instead of Q2C (D2C when no Q)
  size_t top_writers = 5;          // report: writers listed per device
  WriteSyncDetector::Options verdict;
  RequestTracker::Options tracker;
  // Which requests count, in every mode: their submitter (pid/tid/comm), the CPU of their
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

struct TopEntry {
  uint64_t latency_ns = 0;
  IoRecord rec;  // comm interned: valid while the analysis lives
};

// Everything the report writers need.
struct Results {
  const Options* opts = nullptr;
  std::vector<DeviceSummary> devices;
  std::map<DevId, DevLatency> latency;
  std::map<DevId, TrackerCounts> counts;
  std::map<std::string, Log2Histogram> hists;
  std::vector<TopEntry> top;  // slowest first
  uint64_t block_events = 0, switch_events = 0, d_switches = 0, wakeup_events = 0, lost = 0;
  int64_t first_ts = -1, last_ts = -1;
};

class IolatAnalysis final : public EventSink, public IoListener {
 public:
  IolatAnalysis(Options opts, std::ostream* out);

  EventMask wants() const override;
  absl::Status OnEvent(const Event& e) override;
  absl::Status Finish() override;

  void OnQueued(const IoRecord& r) override;
  void OnIssued(const IoRecord& r, std::string_view issuer, int32_t tid) override;
  void OnDone(const IoRecord& r) override;

  const Results& results() const { return results_; }

 private:
  bool Wanted(const IoRecord& r, int64_t ts) const;  // the filter's verdict on a request
  void AddHist(const IoRecord& r);
  void AddTop(const IoRecord& r);
  void LogLine(const IoRecord& r);

  Options opts_;
  Filter filter_;
  std::ostream* out_;
  Interner interner_;
  RequestTracker tracker_;
  WriteSyncDetector detector_;
  Results results_;
  bool log_header_done_ = false;
};

// Report writers (report_text.cc, report_json.cc).
void WriteReportText(const Results& r, std::ostream& out);
void WriteLatencyText(const Results& r, std::ostream& out);
void WriteHistText(const Results& r, std::ostream& out);
void WriteTopText(const Results& r, std::ostream& out);
void WriteLogHeaderText(std::ostream& out);
void WriteLogLineText(const IoRecord& rec, std::ostream& out);
void WriteReportJson(const Results& r, std::ostream& out);
void WriteLatencyJson(const Results& r, std::ostream& out);
void WriteHistJson(const Results& r, std::ostream& out);
void WriteTopJson(const Results& r, std::ostream& out);
void WriteLogLineJson(const IoRecord& rec, std::ostream& out);

}  // namespace tk::iolat

#endif  // TK_ANALYSES_IOLAT_IOLAT_H_
