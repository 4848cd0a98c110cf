// tk memtop on testdata/lttng/recorded (made by testdata/recorded/record-lttng.sh):
// - --compat perf-kmem on kmem.perf.data (perf kmem --page record) = kmem.stat.txt, perf 6.1's
//   `perf kmem --page stat` of the same file, byte for byte;
// - perf.data = its perf script text; trace.dat = trace-cmd report = the tracefs text;
// - the text report against tk's golden; a file without kmem events → one line, exit 1;
// - pages = 2^order, on a copy of the tracefs text with orders 0-5 written in (the recording
//   has order-0 pages only), against sums made in the test from that text.
#include <cstdio>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/support/golden.h"

namespace tk::testing {
namespace {

const std::string kDir = "testdata/lttng/recorded/";

nlohmann::json TkJson(const std::string& file) {
  RunResult r = RunTk({"memtop", "--json", SourcePath(kDir + file)});
  EXPECT_EQ(r.exit_code, 0) << file << ": " << r.err;
  return r.exit_code == 0 ? nlohmann::json::parse(r.out) : nlohmann::json();
}

TEST(MemtopCli, CompatPerfKmemIsByteForByte) {
  RunResult r = RunTk({"memtop", "--compat", "perf-kmem", SourcePath(kDir + "kmem.perf.data")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string want = ReadFile(SourcePath(kDir + "kmem.stat.txt"));
  EXPECT_EQ(r.out, want) << UnifiedDiff(want, r.out);
}

TEST(MemtopCli, EveryInputSameNumbers) {
  const std::vector<std::vector<std::string>> groups = {
      {"lttng.perf.data", "lttng.perf-script.txt"},
      {"lttng.trace.dat", "lttng.report.txt", "lttng.ftrace.txt"}};
  for (const auto& g : groups) {
    nlohmann::json ref = TkJson(g[0]);
    ASSERT_GT(ref["tasks"].size(), 5u);
    for (size_t i = 1; i < g.size(); ++i) {
      nlohmann::json other = TkJson(g[i]);
      EXPECT_EQ(other["perf_kmem"], ref["perf_kmem"]) << g[i];
      ASSERT_EQ(other["tasks"].size(), ref["tasks"].size()) << g[i];
      for (size_t k = 0; k < ref["tasks"].size(); ++k) {
        const auto& a = ref["tasks"][k];
        const auto& b = other["tasks"][k];
        for (const char* f : {"tid", "allocs", "alloc_pages", "frees", "free_pages", "failed"})
          EXPECT_EQ(a[f], b[f]) << g[i] << " " << f << " tid " << a["tid"];
      }
    }
  }
}

TEST(MemtopCli, TextGoldenAndFilters) {
  const std::string f = SourcePath(kDir + "lttng.trace.dat");
  RunResult r = RunTk({"memtop", "--top", "5", f});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ExpectGolden(r.out, "testdata/lttng/tk.memtop.txt");
  RunResult s = RunTk({"memtop", "--top", "5", "-"}, f);
  EXPECT_EQ(s.out, r.out);
  // Per-CPU filters split the totals.
  nlohmann::json all = TkJson("lttng.trace.dat");
  uint64_t sum = 0;
  for (const char* cpu : {"0", "1"}) {
    RunResult c = RunTk({"memtop", "--json", "-C", cpu, f});
    nlohmann::json j = nlohmann::json::parse(c.out);
    for (const auto& t : j["tasks"]) sum += t["alloc_pages"].get<uint64_t>();
  }
  uint64_t want = 0;
  for (const auto& t : all["tasks"]) want += t["alloc_pages"].get<uint64_t>();
  EXPECT_EQ(sum, want);
}

// The lttng recording's page events are all of order 0 (kmem.perf.data, above, has orders 0
// and 2). A copy of its tracefs text gets orders 0-5 in turn; every number is then summed here
// from the text.
TEST(MemtopCli, PagesAreTwoToTheOrder) {
  std::ifstream src(SourcePath(kDir + "lttng.ftrace.txt"));
  ASSERT_TRUE(src) << "missing fixture";
  const std::string copy = ::testing::TempDir() + "/memtop-orders.txt";
  struct Task {
    uint64_t allocs = 0, alloc_pages = 0, frees = 0, free_pages = 0;
  };
  std::map<int, Task> want;
  uint64_t allocs = 0, alloc_bytes = 0, frees = 0, free_bytes = 0, n = 0;
  std::map<std::pair<int, int>, uint64_t> order_mt;  // (order, migratetype) → allocations
  const std::regex event(R"(-(\d+) +\[\d+\] .* (mm_page_(?:alloc|free|free_batched)): .*order=0)");
  {
    std::ofstream out(copy);
    std::smatch m;
    for (std::string line; std::getline(src, line);) {
      if (std::regex_search(line, m, event)) {
        const int order = static_cast<int>(n++ % 6);
        line.replace(line.find("order=0"), 7, "order=" + std::to_string(order));
        Task& t = want[std::stoi(m[1])];
        const uint64_t pages = uint64_t{1} << order;
        if (m[2] == "mm_page_alloc") {
          ++t.allocs, t.alloc_pages += pages, ++allocs, alloc_bytes += 4096 * pages;
          const size_t at = line.find("migratetype=");
          ASSERT_NE(at, std::string::npos) << line;
          int mt = -1;
          ASSERT_EQ(std::sscanf(line.c_str() + at, "migratetype=%d", &mt), 1) << line;
          ++order_mt[{order, mt}];
        } else {
          ++t.frees, t.free_pages += pages;
          if (m[2] == "mm_page_free") ++frees, free_bytes += 4096 * pages;  // perf's rule
        }
      }
      out << line << "\n";
    }
  }
  ASSERT_EQ(n, 1276u + 1154u + 1015u);  // the README's trace.dat counts
  RunResult r = RunTk({"memtop", "--json", "--top", "0", copy});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  std::map<int, Task> got;
  for (const auto& t : j["tasks"]) {
    got[t["tid"].get<int>()] = {t["allocs"].get<uint64_t>(), t["alloc_pages"].get<uint64_t>(),
                                t["frees"].get<uint64_t>(), t["free_pages"].get<uint64_t>()};
  }
  ASSERT_EQ(got.size(), want.size());
  for (const auto& [tid, w] : want) {
    const Task& g = got[tid];
    EXPECT_EQ(g.allocs, w.allocs) << tid;
    EXPECT_EQ(g.alloc_pages, w.alloc_pages) << tid;
    EXPECT_EQ(g.frees, w.frees) << tid;
    EXPECT_EQ(g.free_pages, w.free_pages) << tid;
  }
  const nlohmann::json& k = j["perf_kmem"];
  EXPECT_EQ(k["allocs"], allocs);
  EXPECT_EQ(k["alloc_bytes"], alloc_bytes);
  EXPECT_EQ(k["frees"], frees);
  EXPECT_EQ(k["free_bytes"], free_bytes);
  for (int order = 0; order < 11; ++order) {
    for (int mt = 0; mt < 5; ++mt) {
      const auto it = order_mt.find({order, mt});
      EXPECT_EQ(k["order_migratetype"][order][mt], it == order_mt.end() ? 0 : it->second)
          << order << " " << mt;
    }
  }
}

TEST(MemtopCli, NoKmemEventsNamesWhatToRecord) {
  RunResult r = RunTk({"memtop", SourcePath("testdata/recorded/sched/sched.perf.data")});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("perf kmem --page record"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(RunTk({"help", "memtop"}).exit_code, 0);
}

}  // namespace
}  // namespace tk::testing
