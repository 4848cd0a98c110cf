#include "analyses/iolat/writesync.h"

#include <algorithm>

namespace tk::iolat {

namespace {
constexpr size_t Idx(Issuer i) { return static_cast<size_t>(i); }
}  // namespace

void WriteSyncDetector::Account(StageAcc& a, DevId dev, const IoRecord& r, int64_t ts) {
  Mix& m = a.mix;
  ++m.requests;
  if (m.first_ts < 0 || ts < m.first_ts) m.first_ts = ts;
  if (ts > m.last_ts) m.last_ts = ts;
  const uint64_t bytes = r.bytes();
  const uint64_t end = r.sector + r.nr_sector;
  if (r.rwbs.is_read()) {
    ++m.reads;
    m.read_bytes += bytes;
    if (r.sector == m.next_read) ++m.sequential;
    m.next_read = end;
    return;
  }
  if (r.rwbs.op == Rwbs::Op::kFlush || (r.rwbs.is_write() && r.nr_sector == 0)) {
    ++m.flushes;
    return;
  }
  if (r.rwbs.op == Rwbs::Op::kDiscard || r.rwbs.op == Rwbs::Op::kSecureErase) {
    ++m.discards;
    return;
  }
  if (!r.rwbs.is_write()) {
    ++m.other;
    return;
  }
  const bool sync = r.rwbs.is_sync_write();
  ++m.writes;
  m.write_bytes += bytes;
  if (r.sector == m.next_write) ++m.sequential;
  m.next_write = end;
  if (sync) {
    ++m.sync_writes;
    m.sync_write_bytes += bytes;
  }
  if (r.rwbs.has(Rwbs::kFua)) ++m.fua;
  if (r.rwbs.has(Rwbs::kPreflush)) ++m.preflush;

  // Who: an upper device's I/O (remap, 3.x "loopN" thread) is stacked; else the comm says.
  Issuer who = ClassifyComm(r.comm);
  DevId from = r.from_dev;
  if (from != 0) {
    who = Issuer::kStacked;
  } else if (who == Issuer::kStacked) {
    from = MakeDev(kLoopMajor, static_cast<uint32_t>(LoopThreadMinor(r.comm)));
  }
  a.bytes_by_issuer[Idx(who)] += bytes;
  if (sync) a.sync_by_issuer[Idx(who)] += bytes;
  if (who == Issuer::kStacked) {
    auto& s = a.stacked[from];
    s.first += bytes;
    if (sync) s.second += bytes;
    uppers_[dev][from] += bytes;
  }
  WriterSummary& w = a.writers[WriterKey{r.comm, r.tid, from}];
  if (w.writes == 0) {
    w.comm = r.comm;
    w.pid = r.pid;
    w.tid = r.tid;
    w.issuer = who;
    w.from_dev = from;
  }
  ++w.writes;
  w.bytes += bytes;
  if (sync) {
    ++w.sync_writes;
    w.sync_bytes += bytes;
  }
}

void WriteSyncDetector::OnQueued(const IoRecord& r) {
  Account(devs_[r.stat_dev].q, r.stat_dev, r, r.q);
}

void WriteSyncDetector::OnIssued(const IoRecord& r, std::string_view, int32_t) {
  // The record's comm is the submitter (Q) when the queue event was recorded, else the task
  // that opened the request (G/I/D): the best "who asked for this write" available.
  Account(devs_[r.stat_dev].d, r.stat_dev, r, r.d);
}

void WriteSyncDetector::OnSwitch(const Event& e, const SchedSwitch& s) {
  if (s.prev_state.disk_sleep()) {
    Sleep& sl = sleeps_[s.prev_pid];
    sl.since = e.ts_ns;
    ++sl.count;
  }
  auto it = sleeps_.find(s.next_pid);
  if (it != sleeps_.end() && it->second.since >= 0) {
    if (e.ts_ns > it->second.since) it->second.total_ns += e.ts_ns - it->second.since;
    it->second.since = -1;
  }
}

void WriteSyncDetector::OnWakeup(const Event& e, const SchedWakeup& w) {
  auto it = sleeps_.find(w.pid);
  if (it != sleeps_.end() && it->second.since >= 0) {
    if (e.ts_ns > it->second.since) it->second.total_ns += e.ts_ns - it->second.since;
    it->second.since = -1;
  }
}

DevId WriteSyncDetector::Root(DevId dev, int depth) const {
  auto it = uppers_.find(dev);
  if (it == uppers_.end() || it->second.empty() || depth > 8) return dev;
  DevId best = 0;
  uint64_t best_bytes = 0;
  for (const auto& [up, bytes] : it->second) {
    if (bytes > best_bytes || (bytes == best_bytes && up < best)) {
      best = up;
      best_bytes = bytes;
    }
  }
  return Root(best, depth + 1);
}

void WriteSyncDetector::Verdict(DeviceSummary& d, const MountTable* mounts) const {
  d.mount = mounts ? mounts->Find(d.dev) : nullptr;
  uint64_t stacked = d.bytes_by_issuer[Idx(Issuer::kStacked)];
  d.own_base = d.bytes_by_issuer[Idx(Issuer::kWriter)] +
               d.bytes_by_issuer[Idx(Issuer::kFlusher)] + d.bytes_by_issuer[Idx(Issuer::kKernel)];
  d.writer_sync = d.sync_by_issuer[Idx(Issuer::kWriter)];
  if (d.mix.write_bytes == 0) {
    d.verdict = "no-writes";
    d.cause = "";
    return;
  }
  // I/O passed down from devices above (dm, loop) outweighs the device's own data writes: the
  // verdict is theirs, named on those devices. (A backing disk carrying 5.7 MiB of a loop's
  // sync writes plus one 24 KiB async write of an unrelated process is not "async".)
  if (stacked > 0 && stacked >= d.own_base) {
    d.verdict = "stacked";
    d.cause = "stacked";
    return;
  }
  const double ratio = d.own_base ? static_cast<double>(d.writer_sync) / d.own_base : 0.0;
  if (ratio >= opts_.write_sync_min) {
    d.verdict = "write-sync";
  } else if (ratio < opts_.async_max) {
    d.verdict = "async";
  } else {
    d.verdict = "mixed";
  }
  if (d.verdict == "async") {
    d.cause = "";
  } else if (d.mount) {
    d.cause = d.mount->sync() ? "mount" : "application";
  } else {
    d.cause = "unknown";
  }
}

std::vector<DeviceSummary> WriteSyncDetector::Summarize(const MountTable* mounts) const {
  std::vector<DeviceSummary> out;
  for (const auto& [dev, acc] : devs_) {
    const bool use_q = acc.q.mix.requests > 0;
    const StageAcc& a = use_q ? acc.q : acc.d;
    DeviceSummary d;
    d.dev = dev;
    d.stage = use_q ? 'Q' : 'D';
    d.mix = a.mix;
    d.bytes_by_issuer = a.bytes_by_issuer;
    d.sync_by_issuer = a.sync_by_issuer;
    for (const auto& [from, bs] : a.stacked) {
      d.stacked.push_back(StackedSummary{from, Root(from), bs.first, bs.second});
    }
    std::sort(d.stacked.begin(), d.stacked.end(),
              [](const StackedSummary& x, const StackedSummary& y) {
                return x.bytes != y.bytes ? x.bytes > y.bytes : x.from_dev < y.from_dev;
              });
    for (const auto& [k, w] : a.writers) {
      WriterSummary s = w;
      if (auto it = sleeps_.find(w.tid); it != sleeps_.end()) {
        s.d_sleeps = it->second.count;
        s.d_sleep_ns = it->second.total_ns;
      }
      d.writers.push_back(s);
    }
    std::sort(d.writers.begin(), d.writers.end(),
              [](const WriterSummary& x, const WriterSummary& y) {
                if (x.bytes != y.bytes) return x.bytes > y.bytes;
                if (x.comm != y.comm) return x.comm < y.comm;
                return x.tid < y.tid;
              });
    Verdict(d, mounts);
    out.push_back(std::move(d));
  }
  std::sort(out.begin(), out.end(),
            [](const DeviceSummary& x, const DeviceSummary& y) { return x.dev < y.dev; });
  return out;
}

}  // namespace tk::iolat
