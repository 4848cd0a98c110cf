// Human-readable iolat output: the write-sync report, btt-style stage tables, bcc-style
// histograms, the slowest requests and the biosnoop-like log.
#include <ostream>

#include "absl/strings/str_format.h"
#include "analyses/iolat/iolat.h"
#include "analyses/iolat/report_util.h"
#include "core/timestamp.h"

namespace tk::iolat {

namespace {

std::string MountCol(const DeviceSummary& d) {
  if (!d.mount) return "?";
  return d.mount->mount_point;
}

// A percentile in `unit` ns with `decimals`; "~" in front when it is a log-linear bucket's
// midpoint rather than a measured value (more than 65536 requests).
std::string Pct(const LatencyStats& s, double p, double unit, int decimals) {
  LatencyStats::Quantile q = s.At(p);
  return absl::StrFormat("%s%.*f", q.exact ? "" : "~", decimals, q.value / unit);
}

std::string Ms(const LatencyStats& s, double p) {
  if (s.count() == 0) return "-";
  return Pct(s, p, 1e6, 3);
}

void DeviceTable(const WriteSyncReport& r, std::ostream& out) {
  out << absl::StrFormat("%-8s %-20s %-6s %7s %9s %9s %5s %4s %8s %8s %8s  %-10s %s\n", "DEVICE",
                         "MOUNT", "FS", "REQS", "READ", "WRITTEN", "SYNC", "SEQ", "MB/s",
                         "D2Cp50ms", "D2Cp99ms", "VERDICT", "CAUSE");
  for (const DeviceSummary& d : r.devices) {
    const Mix& m = d.mix;
    auto lat = r.stages.latency.find(d.dev);
    static const LatencyStats kNone;
    const LatencyStats& d2c = lat == r.stages.latency.end() ? kNone : lat->second.d2c;
    uint64_t rw = m.reads + m.writes;
    out << absl::StrFormat(
        "%-8s %-20s %-6s %7d %9s %9s %5s %4s %8.1f %8s %8s  %-10s %s\n", DevName(d.dev),
        MountCol(d), d.mount ? d.mount->fstype : "?", m.requests, HumanBytes(m.read_bytes),
        HumanBytes(m.write_bytes), Percent(m.sync_write_bytes, m.write_bytes),
        Percent(m.sequential, rw), ThroughputMBs(d), Ms(d2c, 50), Ms(d2c, 99), d.verdict,
        d.cause.empty() ? "-" : d.cause);
  }
}

std::string CauseText(const DeviceSummary& d) {
  if (d.cause == "mount") {
    return absl::StrFormat("cause: the mount option `sync` (%s on %s, options %s)",
                           d.mount->fstype, d.mount->mount_point, d.mount->options());
  }
  if (d.cause == "application") {
    return absl::StrFormat(
        "cause: the application (O_SYNC/O_DSYNC, fsync/fdatasync or chattr +S); the mount is "
        "not sync (%s on %s, options %s)",
        d.mount->fstype, d.mount->mount_point, d.mount->options());
  }
  if (d.cause == "stacked") {
    std::string from;
    for (const StackedSummary& s : d.stacked) {
      if (!from.empty()) from += ", ";
      from += DevName(s.root_dev);
    }
    return "cause: I/O passed down from " + from +
           " (dm/loop above this device): blamed there, not here";
  }
  if (d.cause == "unknown") {
    return "cause: mount unknown (pass --mountinfo FILE, a copy of /proc/self/mountinfo): a "
           "`sync` mount or O_SYNC/O_DSYNC/fsync in the writers";
  }
  return "";
}

void WriterLine(const WriterSummary& w, std::ostream& out) {
  std::string who = absl::StrFormat("%s[%d]", w.comm.empty() ? "?" : std::string(w.comm), w.tid);
  std::string role(IssuerName(w.issuer));
  if (w.issuer == Issuer::kStacked && w.from_dev) role += " from " + DevName(w.from_dev);
  std::string sleep = w.d_sleeps ? absl::StrFormat(", slept in D %dx for %.3f s", w.d_sleeps,
                                                   w.d_sleep_ns / 1e9)
                                 : "";
  out << absl::StrFormat("      %-24s %-9s %6d writes %9s, %4s sync%s\n", who, role, w.writes,
                         HumanBytes(w.bytes), Percent(w.sync_bytes, w.bytes), sleep);
}

void Evidence(const WriteSyncReport& r, const DeviceSummary& d, std::ostream& out) {
  const Mix& m = d.mix;
  std::string where = d.mount ? absl::StrFormat(" %s (%s, %s)", d.mount->mount_point,
                                                d.mount->fstype, d.mount->options())
                              : "";
  out << absl::StrFormat("\n%s%s: %s\n", DevName(d.dev), where, d.verdict);
  if (d.verdict == "no-writes") {
    out << absl::StrFormat("    %d requests, %s read, nothing written\n", m.requests,
                           HumanBytes(m.read_bytes));
    return;
  }
  if (std::string c = CauseText(d); !c.empty()) out << "    " << c << "\n";
  out << absl::StrFormat(
      "    %s written in %d writes (seen at %s), %s (%s) synchronous (S/FUA/preflush: %d/%d/%d)\n",
      HumanBytes(m.write_bytes), m.writes, d.stage == 'Q' ? "bio_queue" : "rq_issue",
      HumanBytes(m.sync_write_bytes), Percent(m.sync_write_bytes, m.write_bytes), m.sync_writes,
      m.fua, m.preflush);
  auto by = [&](Issuer i) { return d.bytes_by_issuer[static_cast<size_t>(i)]; };
  auto sy = [&](Issuer i) { return d.sync_by_issuer[static_cast<size_t>(i)]; };
  out << absl::StrFormat(
      "    queued by writers %s (%s sync), flushers %s (%s sync), journal %s, stacked %s\n",
      HumanBytes(by(Issuer::kWriter)), HumanBytes(sy(Issuer::kWriter)),
      HumanBytes(by(Issuer::kFlusher)), HumanBytes(sy(Issuer::kFlusher)),
      HumanBytes(by(Issuer::kJournal)), HumanBytes(by(Issuer::kStacked)));
  if (d.own_base > 0) {
    out << absl::StrFormat(
        "    synchronous and queued by the writers themselves: %s of %s own data writes "
        "(journal and stacked I/O excluded)\n",
        Percent(d.writer_sync, d.own_base), HumanBytes(d.own_base));
  }
  for (const StackedSummary& s : d.stacked) {
    out << absl::StrFormat("    passed down from %s%s: %s (%s sync)\n", DevName(s.from_dev),
                           s.root_dev != s.from_dev ? " (top: " + DevName(s.root_dev) + ")" : "",
                           HumanBytes(s.bytes), Percent(s.sync_bytes, s.bytes));
  }
  uint64_t rw = m.reads + m.writes;
  out << absl::StrFormat(
      "    mix: %d reads (%s), %d writes, %d flushes, %d discards; avg size %s, %s sequential, "
      "%.1f MB/s while active\n",
      m.reads, HumanBytes(m.read_bytes), m.writes, m.flushes, m.discards,
      HumanBytes(rw ? (m.read_bytes + m.write_bytes) / rw : 0), Percent(m.sequential, rw),
      ThroughputMBs(d));
  if (auto it = r.stages.latency.find(d.dev); it != r.stages.latency.end()) {
    const DevLatency& l = it->second;
    auto ms = [](const LatencyStats& s) {
      return s.count() ? absl::StrFormat("p50 %s p99 %s max %.3f ms", Pct(s, 50, 1e6, 3),
                                         Pct(s, 99, 1e6, 3), s.max() / 1e6)
                       : std::string("-");
    };
    out << absl::StrFormat("    latency: D2C %s; Q2C %s (%d completed)\n", ms(l.d2c), ms(l.q2c),
                           l.completed);
  }
  if (auto it = r.stages.counts.find(d.dev); it != r.stages.counts.end()) {
    const TrackerCounts& c = it->second;
    uint64_t open = c.never_completed + c.stale_issued + c.lost_inflight;
    if (open > 0) {
      out << absl::StrFormat(
          "    note: %d requests never completed in the recording (completion events missing?)\n",
          open);
    }
  }
  size_t n = std::min(d.writers.size(), r.top_writers);
  if (n) out << "    top writers:\n";
  for (size_t i = 0; i < n; ++i) WriterLine(d.writers[i], out);
}

}  // namespace

void WriteText(const WriteSyncReport& r, std::ostream& out) {
  const InputCounts& in = r.input;
  double secs = in.last_ts > in.first_ts ? (in.last_ts - in.first_ts) / 1e9 : 0;
  out << absl::StrFormat(
      "%s: %.3f s, %d block events, %d context switches (%d into D), %d lost events\n",
      r.input_name, secs, in.block_events, in.switch_events, in.d_switches, in.lost);
  out << (r.mounts_known ? absl::StrFormat("mounts: %d entries from --mountinfo\n", r.mount_entries)
                         : std::string("mounts: unknown (pass --mountinfo FILE)\n"));
  if (in.switch_events == 0) out << "note: no sched_switch events: D sleeps of writers unknown\n";
  if (r.devices.empty()) {
    out << "no block request events (record with -e 'block:*')\n";
    return;
  }
  out << "\n";
  DeviceTable(r, out);
  for (const DeviceSummary& d : r.devices) Evidence(r, d, out);
}

void WriteText(const StageLatencyReport& r, std::ostream& out) {
  if (r.latency.empty()) out << "no completed requests\n";
  for (const auto& [dev, l] : r.latency) {
    out << absl::StrFormat("==================== Device %s ====================\n\n",
                           DevName(dev));
    out << absl::StrFormat("%-5s %13s %13s %13s %13s %13s %11s\n", "ALL", "MIN", "AVG", "P50",
                           "P99", "MAX", "N");
    out << "----- ------------- ------------- ------------- ------------- ------------- "
           "-----------\n";
    auto row = [&](const char* name, const LatencyStats& s) {
      if (s.count() == 0) return;
      out << absl::StrFormat("%-5s %13.9f %13.9f %13s %13s %13.9f %11d\n", name,
                             s.min() / 1e9, s.avg() / 1e9, Pct(s, 50, 1e9, 9), Pct(s, 99, 1e9, 9),
                             s.max() / 1e9, s.count());
    };
    row("Q2G", l.q2g);
    row("G2I", l.g2i);
    row("I2D", l.i2d);
    row("D2C", l.d2c);
    row("Q2C", l.q2c);
    TrackerCounts c;
    if (auto it = r.counts.find(dev); it != r.counts.end()) c = it->second;
    out << absl::StrFormat(
        "\ncompleted %d (errors %d), merges %d, requeues %d, partial completions %d, "
        "unmatched completions %d, never completed %d (%d replaced by a later request at the sector, "
        "%d dropped at lost events)\n\n",
        l.completed, l.errors, c.merges, c.requeues, c.partial_completions,
        c.unmatched_completions, c.never_completed + c.stale_issued + c.lost_inflight,
        c.stale_issued, c.lost_inflight);
  }
}

void WriteText(const HistReport& r, std::ostream& out) {
  const char* section = HistSection(r.by);
  const char* unit = r.millis ? "msecs" : "usecs";
  for (const auto& [key, h] : r.hists) {
    if (section) out << "\n" << section << " = " << key << "\n";
    h.Print(out, unit);
  }
}

void WriteText(const TopReport& r, std::ostream& out) {
  out << absl::StrFormat("%-17s %-16s %7s %-8s %-5s %12s %8s %10s %10s %10s\n", "TIME", "COMM",
                         "PID", "DEVICE", "RWBS", "SECTOR", "BYTES", "Q2D(ms)", "D2C(ms)",
                         "Q2C(ms)");
  auto ms = [](int64_t a, int64_t b) {
    return a >= 0 && b >= a ? absl::StrFormat("%.3f", (b - a) / 1e6) : std::string("-");
  };
  for (const TopEntry& t : r.top) {
    const IoRecord& x = t.rec;
    out << absl::StrFormat("%-17s %-16s %7d %-8s %-5s %12d %8d %10s %10s %10s\n",
                           FormatTimestamp(x.first()), x.comm, x.tid, DevName(x.stat_dev),
                           x.rwbs.ToString(), x.sector, x.bytes(), ms(x.q, x.d), ms(x.d, x.c),
                           ms(x.q, x.c));
  }
}

// biosnoop's columns, with the rwbs letters for T and absolute completion times.
void WriteLogHeaderText(std::ostream& out) {
  out << absl::StrFormat("%-17s %-14s %-7s %-9s %-4s %-12s %-7s %8s %8s\n", "TIME(s)", "COMM",
                         "PID", "DISK", "RWBS", "SECTOR", "BYTES", "QUE(ms)", "LAT(ms)");
}

void WriteLogLineText(const IoRecord& x, std::ostream& out) {
  auto ms = [](int64_t a, int64_t b) {
    return a >= 0 && b >= a ? absl::StrFormat("%.2f", (b - a) / 1e6) : std::string("-");
  };
  out << absl::StrFormat("%-17s %-14.14s %-7d %-9s %-4s %-12d %-7d %8s %8s\n",
                         FormatTimestamp(x.c), x.comm, x.tid, DevName(x.stat_dev),
                         x.rwbs.ToString(), x.sector, x.bytes(), ms(x.q, x.d), ms(x.d, x.c));
}

}  // namespace tk::iolat
