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

void WriteSummaryText(const SyscallsReport& r, std::string* s) {
  std::vector<std::pair<std::string, const CallStats*>> rows;
  for (const auto& [name, c] : r.merged)
    if (c.duration.count()) rows.emplace_back(name, &c);
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    uint64_t x = a.second->duration.total(), y = b.second->duration.total();
    return x != y ? x > y : a.first < b.first;
  });
  if (r.top > 0 && rows.size() > static_cast<size_t>(r.top)) rows.resize(r.top);
  AppendF(s, "%-22s %8s %16s\n", "SYSCALL", "COUNT", "TIME (us)");
  for (const auto& [name, c] : rows)
    AppendF(s, "%-22s %8lu %16.3f\n", name.c_str(), static_cast<unsigned long>(c->duration.count()),
            c->duration.total() / 1000.0);
}

}  // namespace

void WriteText(const SyscallsReport& r, std::ostream& out) {
  std::string s;
  if (r.summary) {
    WriteSummaryText(r, &s);
    out << s;
    return;
  }
  s += r.range.Text();
  s += "Per-TID syscalls statistics (usec)\n";
  const std::string rule(r.errno_names ? 130 : 104, '-');
  const std::vector<SyscallThread>& threads = r.threads;
  size_t shown = 0;
  for (const SyscallThread& th : threads) {
    const SyscallThread* t = &th;
    const int32_t tid = th.tid;
    if (r.top > 0 && shown == static_cast<size_t>(r.top)) break;
    ++shown;
    std::string head =
        t->comm + " (" + std::to_string(t->pid) + ", TID: " + std::to_string(tid) + ")";
    AppendF(&s, "%-38s %5s %8s %12s %12s %12s %12s%s\n", head.c_str(), "Count", "Errors", "Min",
            "Average", "Max", "Stdev", r.errno_names ? "  Return values" : "");
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
      if (r.errno_names) s += "  " + Returns(*c);
      s += "\n";
    }
    s += open;
    AppendF(&s, "%-38s %5lu\n", "Total:", static_cast<unsigned long>(total));
    s += rule + "\n";
  }
  if (shown < threads.size())
    AppendF(&s, "(%zu more threads; --top 0 shows all)\n", threads.size() - shown);
  uint64_t grand = 0;
  for (const SyscallThread& t : threads)
    for (const auto& [name, c] : t.calls) grand += c.duration.count();
  AppendF(&s, "Total syscalls: %lu\n", static_cast<unsigned long>(grand));
  if (r.unnumbered_exits)
    AppendF(&s, "(%lu sys_exit without a syscall number, rt_sigreturn: not counted)\n",
            static_cast<unsigned long>(r.unnumbered_exits));
  out << s;
}

void WriteJson(const SyscallsReport& r, std::ostream& out) {
  lttng::Json j;
  j["time_range"] = r.range.ToJson();
  j["arch"] = r.arch;
  if (r.summary) {
    lttng::Json rows = lttng::Json::array();
    for (const auto& [name, c] : r.merged) rows.push_back(CallJson(name, c, false));
    j["syscalls"] = std::move(rows);
  } else {
    lttng::Json threads = lttng::Json::array();
    for (const SyscallThread& t : r.threads) {
      lttng::Json calls = lttng::Json::array();
      for (const auto& [name, c] : t.calls) calls.push_back(CallJson(name, c, r.errno_names));
      threads.push_back(
          {{"tid", t.tid}, {"pid", t.pid}, {"comm", t.comm}, {"calls", std::move(calls)}});
    }
    j["threads"] = std::move(threads);
  }
  j["unnumbered_exits"] = r.unnumbered_exits;
  out << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

}  // namespace tk::syscalls
