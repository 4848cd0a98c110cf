// tk memtop's counting and reports. Text:
//
//   Timerange: [2021.362315, 2021.412693]
//   Per-TID memory allocations                 pages        KiB  events  process
//   ████████████████████████████████████████    1864       7456    1864  cc1plus (18913)
//   ...
//   Total: 6886 allocations, 7032 pages (28128 KiB); 9847 frees, 9990 pages (39960 KiB); 0 failed
#include "analyses/memtop/memtop.h"

#include <algorithm>
#include <ostream>
#include <variant>
#include <vector>

#include "analyses/sched/perf_format.h"

namespace tk::memtop {
namespace {

using sched::AppendF;

uint64_t Pages(uint32_t order) { return order < 63 ? uint64_t{1} << order : 0; }

}  // namespace

absl::Status MemtopAnalysis::OnEvent(const Event& e) {
  const auto* p = std::get_if<PageEvent>(&e.body);
  if (!p) return absl::OkStatus();
  ++events_;
  if (!filter_.Accepts(e)) return absl::OkStatus();
  range_.Add(e.ts_ns);
  Task& t = tasks_[e.tid];
  t.Learn(e);
  if (p->op == PageEvent::Op::kAlloc) {
    if (p->failed) {
      ++t.failed;
    } else {
      ++t.allocs;
      t.alloc_pages += Pages(p->order);
    }
  } else {
    ++t.frees;
    t.free_pages += Pages(p->order);
  }
  if (p->op != PageEvent::Op::kFreeBatched) PerfKmem(*p);
  return absl::OkStatus();
}

// perf kmem's evsel__process_page_alloc_event / _free_event.
void MemtopAnalysis::PerfKmem(const PageEvent& p) {
  const uint64_t bytes = p.order < 52 ? kPageSize << p.order : 0;
  if (p.op == PageEvent::Op::kAlloc) {
    ++sum_.allocs;
    sum_.alloc_bytes += bytes;
    if (p.failed) {
      ++sum_.fails;
      sum_.fail_bytes += bytes;
      return;
    }
    ++live_[p.pfn];
    if (p.order < sum_.order_migrate.size() && p.migratetype >= 0 && p.migratetype < 5)
      ++sum_.order_migrate[p.order][p.migratetype];
    return;
  }
  ++sum_.frees;
  sum_.free_bytes += bytes;
  auto it = live_.find(p.pfn);
  if (it == live_.end()) {
    ++sum_.nomatch;
    sum_.nomatch_bytes += bytes;
    return;
  }
  live_.erase(it);
}

absl::Status MemtopAnalysis::Finish() {
  report_.top = opts_.top;
  report_.perf_kmem = opts_.perf_kmem;
  report_.range = range_;
  report_.summary = sum_;
  for (const auto& [tid, t] : tasks_) {
    report_.tasks.push_back(MemtopTask{tid, t.pid, t.comm, t.allocs, t.alloc_pages, t.frees,
                                       t.free_pages, t.failed});
  }
  std::sort(report_.tasks.begin(), report_.tasks.end(),
            [](const MemtopTask& a, const MemtopTask& b) { return a.tid < b.tid; });
  return absl::OkStatus();
}

namespace {

void WritePerfKmem(const PageSummary& s, std::ostream& out) {
  const uint64_t freed = s.frees - s.nomatch, freed_bytes = s.free_bytes - s.nomatch_bytes;
  std::string b = "\nSUMMARY (page allocator)\n========================\n";
  auto line = [&b](const char* what, uint64_t n, uint64_t bytes) {
    AppendF(&b, "%-30s: %16lu   [ %16lu KB ]\n", what, static_cast<unsigned long>(n),
            static_cast<unsigned long>(bytes / 1024));
  };
  line("Total allocation requests", s.allocs, s.alloc_bytes);
  line("Total free requests", s.frees, s.free_bytes);
  b += "\n";
  line("Total alloc+freed requests", freed, freed_bytes);
  line("Total alloc-only requests", s.allocs - freed, s.alloc_bytes - freed_bytes);
  line("Total free-only requests", s.nomatch, s.nomatch_bytes);
  b += "\n";
  line("Total allocation failures", s.fails, s.fail_bytes);
  b += "\n";
  AppendF(&b, "%5s  %12s  %12s  %12s  %12s  %12s\n", "Order", "Unmovable", "Reclaimable", "Movable",
          "Reserved", "CMA/Isolated");
  b += "-----  ------------  ------------  ------------  ------------  ------------\n";
  for (size_t o = 0; o < s.order_migrate.size(); ++o) {
    AppendF(&b, "%5zu", o);
    for (uint64_t n : s.order_migrate[o]) {
      if (n)
        AppendF(&b, "  %12lu", static_cast<unsigned long>(n));
      else
        AppendF(&b, "  %12c", '.');
    }
    b += "\n";
  }
  out << b;
}

}  // namespace

void WriteText(const MemtopReport& r, std::ostream& out) {
  if (r.perf_kmem) return WritePerfKmem(r.summary, out);
  std::string s = r.range.Text();
  std::vector<std::pair<int32_t, const MemtopTask*>> v;
  uint64_t allocs = 0, apages = 0, frees = 0, fpages = 0, failed = 0;
  for (const MemtopTask& t : r.tasks) {
    v.emplace_back(t.tid, &t);
    allocs += t.allocs;
    apages += t.alloc_pages;
    frees += t.frees;
    fpages += t.free_pages;
    failed += t.failed;
  }
  for (bool alloc : {true, false}) {
    auto pages = [alloc](const MemtopTask* t) { return alloc ? t->alloc_pages : t->free_pages; };
    std::sort(v.begin(), v.end(), [&](const auto& a, const auto& b) {
      return pages(a.second) != pages(b.second) ? pages(a.second) > pages(b.second)
                                                : a.first < b.first;
    });
    AppendF(&s, "%s%-40s %8s %10s %8s  %s\n", alloc ? "" : "\n",
            alloc ? "Per-TID memory allocations" : "Per-TID memory deallocations", "pages", "KiB",
            "events", "process");
    size_t n = 0;
    const double top = v.empty() ? 0 : static_cast<double>(pages(v.front().second));
    for (const auto& [tid, t] : v) {
      if (pages(t) == 0 || (r.top > 0 && n == static_cast<size_t>(r.top))) break;
      ++n;
      AppendF(&s, "%s %8lu %10lu %8lu  %s (%d)\n",
              lttng::Bar(static_cast<double>(pages(t)), top, 40).c_str(),
              static_cast<unsigned long>(pages(t)),
              static_cast<unsigned long>(pages(t) * kPageSize / 1024),
              static_cast<unsigned long>(alloc ? t->allocs : t->frees), t->comm.c_str(), tid);
    }
  }
  AppendF(
      &s,
      "\nTotal: %lu allocations, %lu pages (%lu KiB); %lu frees, %lu pages (%lu KiB); %lu failed\n",
      static_cast<unsigned long>(allocs), static_cast<unsigned long>(apages),
      static_cast<unsigned long>(apages * kPageSize / 1024), static_cast<unsigned long>(frees),
      static_cast<unsigned long>(fpages), static_cast<unsigned long>(fpages * kPageSize / 1024),
      static_cast<unsigned long>(failed));
  out << s;
}

void WriteJson(const MemtopReport& r, std::ostream& out) {
  lttng::Json j;
  j["time_range"] = r.range.ToJson();
  j["page_size"] = kPageSize;
  lttng::Json tasks = lttng::Json::array();
  for (const MemtopTask& t : r.tasks) {
    tasks.push_back({{"tid", t.tid},
                     {"pid", t.pid},
                     {"comm", t.comm},
                     {"allocs", t.allocs},
                     {"alloc_pages", t.alloc_pages},
                     {"frees", t.frees},
                     {"free_pages", t.free_pages},
                     {"failed", t.failed}});
  }
  j["tasks"] = std::move(tasks);
  const PageSummary& s = r.summary;
  j["perf_kmem"] = {{"allocs", s.allocs},
                    {"alloc_bytes", s.alloc_bytes},
                    {"frees", s.frees},
                    {"free_bytes", s.free_bytes},
                    {"alloc_freed", s.frees - s.nomatch},
                    {"alloc_only", s.allocs - (s.frees - s.nomatch)},
                    {"free_only", s.nomatch},
                    {"failures", s.fails},
                    {"order_migratetype", s.order_migrate}};
  out << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

}  // namespace tk::memtop
