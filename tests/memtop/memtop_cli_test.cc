// tk memtop on testdata/lttng/recorded (made by testdata/recorded/record-lttng.sh):
// - --compat perf-kmem on kmem.perf.data (perf kmem --page record) = kmem.stat.txt, perf 6.1's
//   `perf kmem --page stat` of the same file, byte for byte;
// - perf.data = its perf script text; trace.dat = trace-cmd report = the tracefs text;
// - the text report against tk's golden; a file without kmem events → one line, exit 1.
#include <map>

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

TEST(MemtopCli, NoKmemEventsNamesWhatToRecord) {
  RunResult r = RunTk({"memtop", SourcePath("testdata/recorded/sched/sched.perf.data")});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("perf kmem --page record"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(RunTk({"help", "memtop"}).exit_code, 0);
}

}  // namespace
}  // namespace tk::testing
