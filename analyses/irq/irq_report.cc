// tk irq's reports. Stats (lttng-irqstats' tables, in µs, "?" for a stdev of fewer than two):
//
//   Hard IRQ                    Duration (us)
//                             count          min          avg          max        stdev
//   ------------------------------------------------------------------------------------|
//    36: <virtio1-req.0>          8        5.231       13.870       27.114        7.450  |
//
// Soft IRQs add "| Raise latency (us)" with the same five columns. hist: bcc hardirqs -d
// (one histogram per handler name, handled exits only) and softirqs -d (per vector, lowercase
// name). freq: one lttng-irqfreq linear table per IRQ and vector. log: one row per interrupt.
#include <algorithm>
#include <cctype>
#include <ostream>

#include "analyses/irq/irq.h"
#include "analyses/sched/perf_format.h"

namespace tk::irq {
namespace {

using sched::AppendF;

void AppendStats(const lttng::RunningStats& s, std::string* out) {
  std::string stdev = s.count() >= 2 ? lttng::Us(s.Stdev()) : "?";
  AppendF(out, " %8lu %12s %12s %12s %12s", static_cast<unsigned long>(s.count()),
          lttng::Us(s.min()).c_str(), lttng::Us(s.mean()).c_str(), lttng::Us(s.max()).c_str(),
          stdev.c_str());
}

lttng::Json StatsJson(const lttng::RunningStats& s) {
  lttng::Json j = {{"count", s.count()}, {"total_us", s.total() / 1000.0}};
  if (s.count()) {
    j["min_us"] = s.min() / 1000.0;
    j["avg_us"] = s.mean() / 1000.0;
    j["max_us"] = s.max() / 1000.0;
  }
  if (s.count() >= 2)
    j["stdev_us"] = s.Stdev() / 1000.0;
  else
    j["stdev_us"] = nullptr;
  return j;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

const char* kHeader = "%-28s %8s %12s %12s %12s %12s";

// lttng-irqlog's row: "[begin, end] duration CPU IRQ|SoftIRQ number name (raised at t)".
void AppendLogRow(const Interrupt& i, std::string_view name, std::string* out) {
  AppendF(out, "[%s, %s] %10s %3d  %-7s %3d  %s", sched::UsecTimestamp(i.begin_ns).c_str(),
          sched::UsecTimestamp(i.end_ns).c_str(),
          lttng::Us(static_cast<uint64_t>(i.end_ns - i.begin_ns)).c_str(), i.cpu,
          i.soft ? "SoftIRQ" : "IRQ", i.number, std::string(name).c_str());
  if (i.soft && i.raise_ns)
    AppendF(out, " (raised at %s)", sched::UsecTimestamp(i.raise_ns).c_str());
  *out += '\n';
}

lttng::Json LongestJson(const Series& s) {
  lttng::Json a = lttng::Json::array();
  for (const Interrupt& i : s.longest) {
    lttng::Json j = {{"cpu", i.cpu},
                     {"begin_ns", i.begin_ns},
                     {"end_ns", i.end_ns},
                     {"duration_us", (i.end_ns - i.begin_ns) / 1000.0}};
    if (i.soft) j["raised_ns"] = i.raise_ns ? lttng::Json(i.raise_ns) : lttng::Json(nullptr);
    a.push_back(std::move(j));
  }
  return a;
}

void AppendLongest(const IrqReport& r, std::string* s) {
  AppendF(s, "\nLongest handlers (top %d per IRQ and vector)\n", r.top);
  for (bool soft : {false, true}) {
    for (const auto& [n, ser] : soft ? r.soft : r.hard) {
      AppendF(s, "%d: <%s>\n", n, ser.name.c_str());
      for (const Interrupt& i : ser.longest) AppendLogRow(i, ser.name, s);
    }
  }
}

}  // namespace

void IrqAnalysis::LogRow(const Interrupt& i) {
  if (opts_.json) {
    lttng::Json j = {{"type", i.soft ? "softirq" : "irq"},
                     {"number", i.number},
                     {"name", i.name},
                     {"cpu", i.cpu},
                     {"begin_ns", i.begin_ns},
                     {"end_ns", i.end_ns},
                     {"duration_us", (i.end_ns - i.begin_ns) / 1000.0}};
    if (i.soft)
      j["raised_ns"] = i.raise_ns ? lttng::Json(i.raise_ns) : lttng::Json(nullptr);
    else
      j["handled"] = i.ret != 0;
    buf_ += j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    buf_ += '\n';
  } else {
    AppendLogRow(i, i.name, &buf_);
  }
  sched::FlushIfBig(&buf_, out_);
}

void WriteText(const IrqReport& r, std::ostream& out) {
  std::string s;
  switch (r.mode) {
    case IrqOptions::Mode::kLog:
      return;
    case IrqOptions::Mode::kHist:
      for (const auto& [name, h] : r.by_name) {
        AppendF(&s, "\nhardirq = %s\n", name.c_str());
        h.Write("usecs", &s);
      }
      for (const auto& [vec, ser] : r.soft) {
        AppendF(&s, "\nsoftirq = %s\n",
                Lower(ser.name.empty() ? std::to_string(vec) : ser.name).c_str());
        ser.hist.Write("usecs", &s);
      }
      out << s;
      return;
    case IrqOptions::Mode::kFreq:
      for (bool soft : {false, true}) {
        for (const auto& [n, ser] : soft ? r.soft : r.hard) {
          const lttng::LinearFreq& f = *ser.freq;
          AppendF(&s, "%s duration frequency distribution %s (%d) (usec)\n",
                  soft ? "SoftIRQ" : "Handler", ser.name.c_str(), n);
          if (f.empty())
            AppendF(&s, "  (every duration %s: no range to divide)\n",
                    lttng::Us(ser.duration.min()).c_str());
          else
            f.Write(&s);
          s += "\n";
        }
      }
      out << s;
      return;
    case IrqOptions::Mode::kStats:
      break;
  }
  s += r.range.Text();
  const std::string rule(90, '-');
  AppendF(&s, "%-28s %s\n", "Hard IRQ", "Duration (us)");
  AppendF(&s, kHeader, "", "count", "min", "avg", "max", "stdev");
  s += "\n" + rule + "|\n";
  for (const auto& [irq, ser] : r.hard) {
    std::string label = std::to_string(irq) + ": <" + ser.name + ">";
    AppendF(&s, "%-28s", label.c_str());
    AppendStats(ser.duration, &s);
    s += "  |\n";
  }
  AppendF(&s, "\n%-28s %-60s   %s\n", "Soft IRQ", "Duration (us)", "Raise latency (us)");
  AppendF(&s, kHeader, "", "count", "min", "avg", "max", "stdev");
  s += "  |";
  AppendF(&s, " %8s %12s %12s %12s %12s", "count", "min", "avg", "max", "stdev");
  s += "\n" + rule + "|" + std::string(62, '-') + "\n";
  for (const auto& [vec, ser] : r.soft) {
    std::string label = std::to_string(vec) + ": <" + ser.name + ">";
    AppendF(&s, "%-28s", label.c_str());
    AppendStats(ser.duration, &s);
    s += "  |";
    AppendStats(ser.raise_latency, &s);
    s += "\n";
  }
  if (r.top > 0) AppendLongest(r, &s);
  if (r.unpaired)
    AppendF(&s, "\n%lu exits without their entry (not counted)\n",
            static_cast<unsigned long>(r.unpaired));
  out << s;
}

void WriteJson(const IrqReport& r, std::ostream& out) {
  lttng::Json j;
  if (r.mode == IrqOptions::Mode::kLog) return;
  j["time_range"] = r.range.ToJson();
  if (r.mode == IrqOptions::Mode::kHist) {
    lttng::Json h = lttng::Json::array(), so = lttng::Json::array();
    for (const auto& [name, hist] : r.by_name)
      h.push_back({{"name", name}, {"count", hist.count()}, {"buckets", hist.ToJson()}});
    for (const auto& [vec, ser] : r.soft)
      so.push_back({{"vec", vec},
                    {"name", Lower(ser.name)},
                    {"count", ser.hist.count()},
                    {"buckets", ser.hist.ToJson()}});
    j["unit"] = "usecs";
    j["hardirqs"] = std::move(h);
    j["softirqs"] = std::move(so);
  } else {
    lttng::Json h = lttng::Json::array(), so = lttng::Json::array();
    for (bool soft : {false, true}) {
      for (const auto& [n, ser] : soft ? r.soft : r.hard) {
        lttng::Json row = {
            {soft ? "vec" : "irq", n}, {"name", ser.name}, {"duration", StatsJson(ser.duration)}};
        if (soft) row["raise_latency"] = StatsJson(ser.raise_latency);
        if (r.top > 0) row["longest"] = LongestJson(ser);
        if (r.mode == IrqOptions::Mode::kFreq) {
          row["freq"] = ser.freq->ToJson();
        }
        (soft ? so : h).push_back(std::move(row));
      }
    }
    j["hard"] = std::move(h);
    j["soft"] = std::move(so);
    j["unpaired_exits"] = r.unpaired;
  }
  out << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

}  // namespace tk::irq
