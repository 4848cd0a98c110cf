// tk syscalls' reports. Default, lttng-syscallstats' columns (µs; threads by calls, rows by
// count):
//
//   Per-TID syscalls statistics (usec)
//   dd (21703, TID: 21703)                Count   Errors          Min      Average          Max
//   Stdev
//    - write                                 35
//    0        3.210       16.514       67.006       14.221
//   Total:                                  256
//   ------------------------------------------------------------------------------------------------------
//   Total syscalls: 2345
//
// --errno adds "Return values" ({'success': 33, 'ENOENT': 2}); calls open at either end are
// listed under the thread ("+ 1 open at the end: exit_group"). --summary: bcc syscount -L's
// table (SYSCALL COUNT TIME (us), by total time).
#include <algorithm>
#include <ostream>

#include "analyses/sched/perf_format.h"
#include "analyses/syscalls/syscalls.h"

namespace tk::syscalls {
namespace {

using sched::AppendF;

std::string Returns(const CallStats& s) {
  std::string out = "{";
  bool first = true;
  auto add = [&](const std::string& k, uint64_t n) {
    AppendF(&out, "%s'%s': %lu", first ? "" : ", ", k.c_str(), static_cast<unsigned long>(n));
    first = false;
  };
  if (auto it = s.returns.find(0); it != s.returns.end()) add("success", it->second);
  for (const auto& [err, n] : s.returns)
    if (err != 0) add(ErrnoName(err), n);
  return out + "}";
}

lttng::Json CallJson(const std::string& name, const CallStats& s, bool errno_names) {
  const lttng::RunningStats& d = s.duration;
  lttng::Json j = {
      {"name", name}, {"count", d.count()}, {"errors", s.errors}, {"total_us", d.total() / 1000.0}};
  j["min_us"] = d.count() ? lttng::Json(d.min() / 1000.0) : lttng::Json(nullptr);
  j["avg_us"] = d.count() ? lttng::Json(d.mean() / 1000.0) : lttng::Json(nullptr);
  j["max_us"] = d.count() ? lttng::Json(d.max() / 1000.0) : lttng::Json(nullptr);
  j["stdev_us"] = d.count() >= 2 ? lttng::Json(d.Stdev() / 1000.0) : lttng::Json(nullptr);
  j["exit_only"] = s.exit_only;
  j["enter_only"] = s.enter_only;
  if (errno_names) {
    lttng::Json r = lttng::Json::object();
    for (const auto& [err, n] : s.returns) r[err ? ErrnoName(err) : "success"] = n;
    j["returns"] = std::move(r);
  }
  return j;
}

// Per syscall over every thread.
std::map<std::string, CallStats> Merge(
    const std::vector<const std::map<std::string, CallStats, std::less<>>*>& all) {
  std::map<std::string, CallStats> out;
  for (const auto* calls : all) {
    for (const auto& [name, s] : *calls) {
      CallStats& m = out[name];
      m.errors += s.errors;
      m.exit_only += s.exit_only;
      m.enter_only += s.enter_only;
      m.duration = lttng::RunningStats::Merge(m.duration, s.duration);
    }
  }
  return out;
}

}  // namespace

void SyscallsAnalysis::WriteSummaryText(std::string* s) const {
  std::vector<const std::map<std::string, CallStats, std::less<>>*> all;
  for (const auto& [tid, t] : threads_) all.push_back(&t.calls);
  std::map<std::string, CallStats> merged = Merge(all);
  std::vector<std::pair<std::string, const CallStats*>> rows;
  for (const auto& [name, c] : merged)
    if (c.duration.count()) rows.emplace_back(name, &c);
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    uint64_t x = a.second->duration.total(), y = b.second->duration.total();
    return x != y ? x > y : a.first < b.first;
  });
  if (opts_.top > 0 && rows.size() > static_cast<size_t>(opts_.top)) rows.resize(opts_.top);
  AppendF(s, "%-22s %8s %16s\n", "SYSCALL", "COUNT", "TIME (us)");
  for (const auto& [name, c] : rows)
    AppendF(s, "%-22s %8lu %16.3f\n", name.c_str(), static_cast<unsigned long>(c->duration.count()),
            c->duration.total() / 1000.0);
}

void SyscallsAnalysis::WriteText(std::ostream& out) const {
  std::string s;
  if (opts_.summary) {
    WriteSummaryText(&s);
    out << s;
    return;
  }
  s += range_.Text();
  s += "Per-TID syscalls statistics (usec)\n";
  const std::string rule(opts_.errno_names ? 130 : 104, '-');
  std::vector<std::pair<int32_t, const Thread*>> threads = SortedThreads();
  size_t shown = 0;
  for (const auto& [tid, t] : threads) {
    if (opts_.top > 0 && shown == static_cast<size_t>(opts_.top)) break;
    ++shown;
    std::string head =
        t->comm + " (" + std::to_string(t->pid) + ", TID: " + std::to_string(tid) + ")";
    AppendF(&s, "%-38s %5s %8s %12s %12s %12s %12s%s\n", head.c_str(), "Count", "Errors", "Min",
            "Average", "Max", "Stdev", opts_.errno_names ? "  Return values" : "");
    std::vector<std::pair<std::string_view, const CallStats*>> rows;
    for (const auto& [name, c] : t->calls) rows.emplace_back(name, &c);
    std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
      uint64_t x = a.second->duration.count(), y = b.second->duration.count();
      return x != y ? x > y : a.first < b.first;
    });
    uint64_t total = 0;
    std::string open;
    for (const auto& [name, c] : rows) {
      const lttng::RunningStats& d = c->duration;
      total += d.count();
      if (c->enter_only)
        AppendF(&open, "   + %lu without exit: %s\n", static_cast<unsigned long>(c->enter_only),
                std::string(name).c_str());
      if (c->exit_only)
        AppendF(&open, "   + %lu without entry: %s\n", static_cast<unsigned long>(c->exit_only),
                std::string(name).c_str());
      if (d.count() == 0) continue;
      std::string label = " - " + std::string(name);
      AppendF(&s, "%-38s %5lu %8lu %12s %12s %12s %12s", label.c_str(),
              static_cast<unsigned long>(d.count()), static_cast<unsigned long>(c->errors),
              lttng::Us(d.min()).c_str(), lttng::Us(d.mean()).c_str(), lttng::Us(d.max()).c_str(),
              d.count() >= 2 ? lttng::Us(d.Stdev()).c_str() : "?");
      if (opts_.errno_names) s += "  " + Returns(*c);
      s += "\n";
    }
    s += open;
    AppendF(&s, "%-38s %5lu\n", "Total:", static_cast<unsigned long>(total));
    s += rule + "\n";
  }
  if (shown < threads.size())
    AppendF(&s, "(%zu more threads; --top 0 shows all)\n", threads.size() - shown);
  uint64_t grand = 0;
  for (const auto& [tid, t] : threads)
    for (const auto& [name, c] : t->calls) grand += c.duration.count();
  AppendF(&s, "Total syscalls: %lu\n", static_cast<unsigned long>(grand));
  if (unnumbered_exits_)
    AppendF(&s, "(%lu sys_exit without a syscall number, rt_sigreturn: not counted)\n",
            static_cast<unsigned long>(unnumbered_exits_));
  out << s;
}

void SyscallsAnalysis::WriteJson(std::ostream& out) const {
  lttng::Json j;
  j["time_range"] = range_.ToJson();
  j["arch"] = table_.arch();
  if (opts_.summary) {
    std::vector<const std::map<std::string, CallStats, std::less<>>*> all;
    for (const auto& [tid, t] : threads_) all.push_back(&t.calls);
    lttng::Json rows = lttng::Json::array();
    for (const auto& [name, c] : Merge(all)) rows.push_back(CallJson(name, c, false));
    j["syscalls"] = std::move(rows);
  } else {
    lttng::Json threads = lttng::Json::array();
    for (const auto& [tid, t] : SortedThreads()) {
      lttng::Json calls = lttng::Json::array();
      for (const auto& [name, c] : t->calls) calls.push_back(CallJson(name, c, opts_.errno_names));
      threads.push_back(
          {{"tid", tid}, {"pid", t->pid}, {"comm", t->comm}, {"calls", std::move(calls)}});
    }
    j["threads"] = std::move(threads);
  }
  j["unnumbered_exits"] = unnumbered_exits_;
  out << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

}  // namespace tk::syscalls
