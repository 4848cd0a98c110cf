#include "analyses/iolat/iolat.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"

namespace tk::iolat {

IolatAnalysis::IolatAnalysis(Options opts, std::ostream* out)
    : opts_(std::move(opts)),
      filter_(opts_.filter),
      out_(out),
      tracker_(this, &interner_, opts_.tracker),
      detector_(opts_.verdict) {
  results_.opts = &opts_;
}

EventMask IolatAnalysis::wants() const {
  return EventMask()
      .Add(EventKind::kBlockRq)
      .Add(EventKind::kSchedSwitch)
      .Add(EventKind::kSchedWakeup)
      .Add(EventKind::kLost);
}

absl::Status IolatAnalysis::OnEvent(const Event& e) {
  if (e.ts_ns >= 0) {
    if (results_.first_ts < 0) results_.first_ts = e.ts_ns;
    if (e.ts_ns > results_.last_ts) results_.last_ts = e.ts_ns;
  }
  switch (e.kind()) {
    case EventKind::kBlockRq:
      ++results_.block_events;
      tracker_.OnBlock(e, std::get<BlockRq>(e.body));
      break;
    case EventKind::kSchedSwitch: {
      const auto& s = std::get<SchedSwitch>(e.body);
      ++results_.switch_events;
      if (s.prev_state.disk_sleep()) ++results_.d_switches;
      detector_.OnSwitch(e, s);
      break;
    }
    case EventKind::kSchedWakeup: {
      const auto& w = std::get<SchedWakeup>(e.body);
      ++results_.wakeup_events;
      detector_.OnWakeup(e, w);
      break;
    }
    case EventKind::kLost:
      results_.lost += std::get<Lost>(e.body).count;
      tracker_.OnLost();
      break;
    default:
      break;
  }
  return absl::OkStatus();
}

bool IolatAnalysis::Wanted(const IoRecord& r, int64_t ts) const {
  if (filter_.empty()) return true;
  return filter_.TimeOk(ts) && filter_.CpuOk(r.cpu) && filter_.TaskOk(r.pid, r.tid, r.comm) &&
         (filter_.DeviceOk(DevMajor(r.stat_dev), DevMinor(r.stat_dev)) ||
          filter_.DeviceOk(DevMajor(r.dev), DevMinor(r.dev)));
}

void IolatAnalysis::OnQueued(const IoRecord& r) {
  if (Wanted(r, r.q)) detector_.OnQueued(r);
}

void IolatAnalysis::OnIssued(const IoRecord& r, std::string_view issuer, int32_t tid) {
  if (Wanted(r, r.d)) detector_.OnIssued(r, issuer, tid);
}

void IolatAnalysis::OnDone(const IoRecord& r) {
  if (!Wanted(r, r.c)) return;
  DevLatency& l = results_.latency[r.stat_dev];
  ++l.completed;
  if (r.error != 0) ++l.errors;
  auto add = [](LatencyStats& s, int64_t from, int64_t to) {
    if (from >= 0 && to >= from) s.Add(static_cast<uint64_t>(to - from));
  };
  add(l.q2g, r.q, r.g);
  add(l.g2i, r.g, r.i);
  // Without an insert (blk-mq, no scheduler) the queue wait runs from the getrq.
  add(l.i2d, r.i >= 0 ? r.i : r.g, r.d);
  add(l.d2c, r.d, r.c);
  add(l.q2c, r.q, r.c);
  add(l.q2d, r.q, r.d);
  switch (opts_.mode) {
    case Options::Mode::kHist: AddHist(r); break;
    case Options::Mode::kTop: AddTop(r); break;
    case Options::Mode::kLog: LogLine(r); break;
    default: break;
  }
}

void IolatAnalysis::AddHist(const IoRecord& r) {
  int64_t from = opts_.hist_queued ? r.q : r.d;
  if (from < 0 || r.c < from) return;
  uint64_t v = static_cast<uint64_t>(r.c - from) / (opts_.hist_millis ? 1000000 : 1000);
  std::string key;
  switch (opts_.hist_by) {
    case Options::HistBy::kAll: break;
    case Options::HistBy::kDevice: key = DevName(r.stat_dev); break;
    case Options::HistBy::kFlags: key = BccFlagsName(r.rwbs); break;
    case Options::HistBy::kProcess: key = absl::StrCat(AV(r.comm), " ", r.pid); break;
  }
  results_.hists[key].Add(v);
}

// Keeps the N largest in a min-heap.
void IolatAnalysis::AddTop(const IoRecord& r) {
  if (opts_.top_n == 0 || r.c < 0) return;
  int64_t from = (!opts_.top_by_d2c && r.q >= 0) ? r.q : r.d;
  if (from < 0 || r.c < from) return;
  TopEntry t{static_cast<uint64_t>(r.c - from), r};
  auto greater = [](const TopEntry& a, const TopEntry& b) {
    return a.latency_ns != b.latency_ns ? a.latency_ns > b.latency_ns : a.rec.c < b.rec.c;
  };
  std::vector<TopEntry>& h = results_.top;
  if (h.size() < opts_.top_n) {
    h.push_back(t);
    std::push_heap(h.begin(), h.end(), greater);
  } else if (greater(t, h.front())) {
    std::pop_heap(h.begin(), h.end(), greater);
    h.back() = t;
    std::push_heap(h.begin(), h.end(), greater);
  }
}

void IolatAnalysis::LogLine(const IoRecord& r) {
  if (opts_.json) {
    WriteLogLineJson(r, *out_);
    return;
  }
  if (!log_header_done_) {
    WriteLogHeaderText(*out_);
    log_header_done_ = true;
  }
  WriteLogLineText(r, *out_);
}

absl::Status IolatAnalysis::Finish() {
  tracker_.Finish();
  for (const auto& [dev, c] : tracker_.counts())
    if (filter_.DeviceOk(DevMajor(dev), DevMinor(dev))) results_.counts[dev] = c;
  results_.devices = detector_.Summarize(opts_.mounts);
  std::erase_if(results_.devices, [this](const DeviceSummary& d) {
    return !filter_.DeviceOk(DevMajor(d.dev), DevMinor(d.dev));
  });
  std::sort(results_.top.begin(), results_.top.end(), [](const TopEntry& a, const TopEntry& b) {
    return a.latency_ns != b.latency_ns ? a.latency_ns > b.latency_ns : a.rec.c < b.rec.c;
  });
  std::ostream& out = *out_;
  const bool j = opts_.json;
  switch (opts_.mode) {
    case Options::Mode::kReport: j ? WriteReportJson(results_, out) : WriteReportText(results_, out); break;
    case Options::Mode::kLatency: j ? WriteLatencyJson(results_, out) : WriteLatencyText(results_, out); break;
    case Options::Mode::kHist: j ? WriteHistJson(results_, out) : WriteHistText(results_, out); break;
    case Options::Mode::kTop: j ? WriteTopJson(results_, out) : WriteTopText(results_, out); break;
    case Options::Mode::kLog:
      if (!j && !log_header_done_) WriteLogHeaderText(out);
      break;
  }
  return absl::OkStatus();
}

}  // namespace tk::iolat
