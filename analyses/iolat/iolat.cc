#include "analyses/iolat/iolat.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"
#include "core/kernel_events.h"
#include "core/visit.h"

namespace tk::iolat {

IoAnalysis::IoAnalysis(const Options& opts)
    : filter_(opts.filter), tracker_(this, &interner_, opts.tracker) {}

EventMask IoAnalysis::wants() const {
  return kIolatNeeds.kinds;
}

absl::Status IoAnalysis::OnEvent(const Event& e) {
  if (e.ts_ns >= 0) {
    if (input_.first_ts < 0) input_.first_ts = e.ts_ns;
    if (e.ts_ns > input_.last_ts) input_.last_ts = e.ts_ns;
  }
  VisitBody(
      e,
      [&](const BlockRq& b) {
        ++input_.block_events;
        tracker_.OnBlock(e, b);
      },
      [&](const SchedSwitch& s) {
        ++input_.switch_events;
        if (s.prev_state.disk_sleep()) ++input_.d_switches;
        Switch(e, s);
      },
      [&](const SchedWakeup& w) {
        ++input_.wakeup_events;
        Wakeup(e, w);
      },
      [&](const Lost& l) {
        input_.lost += l.count;
        tracker_.OnLost();
      });
  return absl::OkStatus();
}

bool IoAnalysis::Wanted(const IoRecord& r, int64_t ts) const {
  if (filter_.empty()) return true;
  return filter_.TimeOk(ts) && filter_.CpuOk(r.cpu) && filter_.TaskOk(r.pid, r.tid, r.comm) &&
         (filter_.DeviceOk(DevMajor(r.stat_dev), DevMinor(r.stat_dev)) ||
          filter_.DeviceOk(DevMajor(r.dev), DevMinor(r.dev)));
}

void IoAnalysis::OnQueued(const IoRecord& r) {
  if (Wanted(r, r.q)) Queued(r);
}

void IoAnalysis::OnIssued(const IoRecord& r, std::string_view issuer, int32_t tid) {
  if (Wanted(r, r.d)) Issued(r, issuer, tid);
}

void IoAnalysis::OnDone(const IoRecord& r) {
  if (!Wanted(r, r.c)) return;
  DevLatency& l = stages_.latency[r.stat_dev];
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
  Done(r);
}

absl::Status IoAnalysis::Finish() {
  tracker_.Finish();
  for (const auto& [dev, c] : tracker_.counts())
    if (filter_.DeviceOk(DevMajor(dev), DevMinor(dev))) stages_.counts[dev] = c;
  Complete();
  return absl::OkStatus();
}

WriteSyncAnalysis::WriteSyncAnalysis(WriteSyncOptions opts)
    : IoAnalysis(opts.io), opts_(std::move(opts)), detector_(opts_.verdict) {}

void WriteSyncAnalysis::Complete() {
  WriteSyncReport& r = report_;
  r.input_name = opts_.input_name;
  r.mounts_known = opts_.mounts != nullptr;
  r.mount_entries = opts_.mounts ? opts_.mounts->size() : 0;
  r.top_writers = opts_.top_writers;
  r.input = input_counts();
  r.stages = stages();
  r.devices = detector_.Summarize(opts_.mounts);
  std::erase_if(r.devices, [this](const DeviceSummary& d) {
    return !filter().DeviceOk(DevMajor(d.dev), DevMinor(d.dev));
  });
}

HistAnalysis::HistAnalysis(const HistOptions& opts) : IoAnalysis(opts.io), opts_(opts) {
  report_.by = opts_.by;
  report_.millis = opts_.millis;
}

void HistAnalysis::Done(const IoRecord& r) {
  int64_t from = opts_.queued ? r.q : r.d;
  if (from < 0 || r.c < from) return;
  uint64_t v = static_cast<uint64_t>(r.c - from) / (opts_.millis ? 1000000 : 1000);
  std::string key;
  switch (opts_.by) {
    case HistOptions::By::kAll: break;
    case HistOptions::By::kDevice: key = DevName(r.stat_dev); break;
    case HistOptions::By::kFlags: key = BccFlagsName(r.rwbs); break;
    case HistOptions::By::kProcess: key = absl::StrCat(AV(r.comm), " ", r.pid); break;
  }
  report_.hists[key].Add(v);
}

namespace {

bool Slower(const TopEntry& a, const TopEntry& b) {
  return a.latency_ns != b.latency_ns ? a.latency_ns > b.latency_ns : a.rec.c < b.rec.c;
}

}  // namespace

void TopAnalysis::Done(const IoRecord& r) {
  if (opts_.n == 0 || r.c < 0) return;
  int64_t from = (!opts_.by_d2c && r.q >= 0) ? r.q : r.d;
  if (from < 0 || r.c < from) return;
  TopEntry t{static_cast<uint64_t>(r.c - from), r};
  std::vector<TopEntry>& h = report_.top;
  if (h.size() < opts_.n) {
    h.push_back(t);
    std::push_heap(h.begin(), h.end(), Slower);
  } else if (Slower(t, h.front())) {
    std::pop_heap(h.begin(), h.end(), Slower);
    h.back() = t;
    std::push_heap(h.begin(), h.end(), Slower);
  }
}

void TopAnalysis::Complete() { std::sort(report_.top.begin(), report_.top.end(), Slower); }

void LogAnalysis::Done(const IoRecord& r) {
  if (json_) {
    WriteLogLineJson(r, *out_);
    return;
  }
  if (!header_done_) {
    WriteLogHeaderText(*out_);
    header_done_ = true;
  }
  WriteLogLineText(r, *out_);
}

void LogAnalysis::WriteRest() {
  if (!json_ && !header_done_) WriteLogHeaderText(*out_);
  header_done_ = true;
}

}  // namespace tk::iolat
