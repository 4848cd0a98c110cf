// tk merge through the real binary: folds of parts merged = the fold of the whole, any
// --threads, any order of inputs, stdin, --json, malformed lines, usage errors; histogram
// reports of parts merged = the report of the whole.
#include <fstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/support/golden.h"

namespace tk::testing {
namespace {

std::string TempDir() {
  std::string t = ::testing::TempDir() + "tk_merge_XXXXXX";
  return mkdtemp(t.data());
}

void Write(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// Splits `perf script` text into `n` parts at event boundaries (blank lines).
std::vector<std::string> SplitEvents(const std::string& text, size_t n) {
  std::vector<size_t> cuts;  // offsets just after a blank line ("\n\n" or "\r\n\r\n")
  for (size_t p = text.find('\n'); p != std::string::npos; p = text.find('\n', p + 1)) {
    size_t q = p + 1;
    if (q < text.size() && text[q] == '\r') ++q;
    if (q < text.size() && text[q] == '\n') cuts.push_back(q + 1);
  }
  EXPECT_GE(cuts.size(), n);
  if (cuts.size() < n) return {text};
  std::vector<std::string> parts;
  size_t from = 0;
  for (size_t i = 1; i < n; ++i) {
    size_t to = cuts[cuts.size() * i / n];
    parts.push_back(text.substr(from, to - from));
    from = to;
  }
  parts.push_back(text.substr(from));
  return parts;
}

struct Case {
  const char* file;
  // Inputs with several event types: each part would otherwise keep its own first type
  // (tk fold's default, as stackcollapse's), so a split fold names the type explicitly.
  std::vector<std::string> fold_args;
};

class MergeOfParts : public ::testing::TestWithParam<Case> {};

TEST_P(MergeOfParts, EqualsTheFoldOfTheWhole) {
  std::string whole_path = SourcePath(std::string("testdata/fold/") + GetParam().file);
  std::vector<std::string> args = {"fold"};
  args.insert(args.end(), GetParam().fold_args.begin(), GetParam().fold_args.end());
  std::vector<std::string> whole_args = args;
  whole_args.push_back(whole_path);
  RunResult whole = RunTk(whole_args);
  ASSERT_EQ(whole.exit_code, 0) << whole.err;
  ASSERT_FALSE(whole.out.empty());
  std::string dir = TempDir();
  std::vector<std::string> parts = SplitEvents(ReadFile(whole_path), 3);
  ASSERT_EQ(parts.size(), 3u);
  std::vector<std::string> folded;
  for (size_t i = 0; i < parts.size(); ++i) {
    std::string part = dir + "/part" + std::to_string(i) + ".txt";
    Write(part, parts[i]);
    // Alternate --threads: the folds are the same either way.
    std::vector<std::string> part_args = args;
    part_args.insert(part_args.end(), {"--threads", i % 2 ? "2" : "1", part});
    RunResult f = RunTk(part_args);
    ASSERT_EQ(f.exit_code, 0) << f.err;
    folded.push_back(dir + "/part" + std::to_string(i) + ".folded");
    Write(folded.back(), f.out);
  }
  RunResult m = RunTk({"merge", folded[0], folded[1], folded[2]});
  ASSERT_EQ(m.exit_code, 0) << m.err;
  EXPECT_EQ(m.out, whole.out) << UnifiedDiff(whole.out, m.out);
  RunResult reversed = RunTk({"merge", folded[2], folded[1], "-"}, folded[0]);
  EXPECT_EQ(reversed.out, whole.out) << UnifiedDiff(whole.out, reversed.out);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, MergeOfParts,
                         ::testing::Values(Case{"system-wide-g.txt", {}},
                                           Case{"proc-pidtid-g.txt", {"--tid"}},
                                           Case{"two-events-g.txt", {"--event-filter=cpu-clock"}},
                                           Case{"crlf-g.txt", {"--event-filter=task-clock"}}));

TEST(MergeCli, JsonTotalsAndInputs) {
  std::string dir = TempDir();
  Write(dir + "/a", "x;y 2\nz 1\n");
  Write(dir + "/b", "z 4\nbad line\n");
  RunResult r = RunTk({"merge", "--json", dir + "/a", dir + "/b"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["total"], 7);
  ASSERT_EQ(j["stacks"].size(), 2u);
  EXPECT_EQ(j["stacks"][0]["frames"], nlohmann::json({"x", "y"}));
  EXPECT_EQ(j["stacks"][1]["count"], 5);
  EXPECT_EQ(j["inputs"][1]["malformed_lines"], 1);
  EXPECT_NE(r.err.find("line 2: not \"STACK COUNT\""), std::string::npos) << r.err;
}

// --json histogram reports of parts of a recording (split by CPU or by time) merged = the
// report of the whole: every bucket, count, max and the time range exactly; sched hist's
// percentiles recomputed from the buckets (the bucket of the whole's exact percentile) and
// marked approximate.
struct ReportCase {
  const char* name;
  std::vector<std::string> args;  // the report command, ending before --json FILE
  const char* file;
  std::vector<std::string> part_a, part_b;  // the filters of the two parts
};

class ReportMergeOfParts : public ::testing::TestWithParam<ReportCase> {};

// The log2 slot of a value in ns for a histogram in µs: the slot whose [low, high] holds it.
int SlotOfNs(uint64_t ns) {
  uint64_t us = ns / 1000;
  int slot = 1;
  while (slot < 64 && us > (uint64_t{1} << slot) - 1) ++slot;
  return slot;
}

void ExpectSchedMerged(nlohmann::json whole, nlohmann::json merged) {
  for (const char* p : {"p50_ns", "p90_ns", "p99_ns"}) {
    EXPECT_EQ(SlotOfNs(merged[p].get<uint64_t>()), SlotOfNs(whole[p].get<uint64_t>())) << p;
    EXPECT_LE(merged[p].get<uint64_t>(), whole["max_ns"].get<uint64_t>()) << p;
    whole.erase(p);
    merged.erase(p);
  }
  EXPECT_EQ(merged["percentiles_exact"], false);
  whole.erase("percentiles_exact");
  merged.erase("percentiles_exact");
  whole.erase("sections");
  merged.erase("sections");
  EXPECT_EQ(merged, whole);
}

TEST_P(ReportMergeOfParts, EqualsTheReportOfTheWhole) {
  const ReportCase& c = GetParam();
  std::string file = SourcePath(c.file), dir = TempDir();
  auto run = [&](const std::vector<std::string>& filter) {
    std::vector<std::string> args = c.args;
    args.insert(args.end(), filter.begin(), filter.end());
    args.insert(args.end(), {"--json", file});
    RunResult r = RunTk(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.out;
  };
  std::string whole = run({}), a = run(c.part_a), b = run(c.part_b);
  Write(dir + "/a.json", a);
  Write(dir + "/b.json", b);
  RunResult m = RunTk({"merge", dir + "/a.json", "-"}, dir + "/b.json");  // b from stdin
  ASSERT_EQ(m.exit_code, 0) << m.err;
  ASSERT_NE(a, whole);  // each part is a part
  nlohmann::json w = nlohmann::json::parse(whole), j = nlohmann::json::parse(m.out);
  if (c.args[0] != "sched") {
    EXPECT_EQ(m.out, whole) << UnifiedDiff(whole, m.out);
    return;
  }
  ExpectSchedMerged(w, j);
  ASSERT_EQ(j.contains("sections"), w.contains("sections"));
  if (!w.contains("sections")) return;
  ASSERT_EQ(j["sections"].size(), w["sections"].size());
  for (size_t i = 0; i < w["sections"].size(); ++i) {
    const nlohmann::json& ws = w["sections"][i];
    const nlohmann::json& js = j["sections"][i];
    EXPECT_EQ(js["key"], ws["key"]);
    EXPECT_EQ(js["buckets"], ws["buckets"]);
    EXPECT_EQ(js["count"], ws["count"]);
    EXPECT_EQ(js["max_ns"], ws["max_ns"]);
  }
}

constexpr const char* kSched = "testdata/recorded/sched/sched.perf.data";
constexpr const char* kIolat = "testdata/recorded/iolat/writesync.perf.data";
constexpr const char* kIrq = "testdata/lttng/recorded/lttng.trace.dat";

INSTANTIATE_TEST_SUITE_P(
    Reports, ReportMergeOfParts,
    ::testing::Values(
        ReportCase{"SchedByCpu", {"sched", "hist"}, kSched, {"-C", "0"}, {"-C", "1"}},
        ReportCase{"SchedByTime", {"sched", "hist"}, kSched, {"--time", ",987.43"},
                   {"--time", "987.43,"}},
        ReportCase{"SchedPerProcess", {"sched", "hist", "-P"}, kSched, {"-C", "0"}, {"-C", "1"}},
        ReportCase{"Iolat", {"iolat", "hist"}, kIolat, {"-C", "0"}, {"-C", "1"}},
        ReportCase{"IolatPerDisk", {"iolat", "hist", "-D"}, kIolat, {"-C", "0"}, {"-C", "1"}},
        ReportCase{"Irq", {"irq", "hist"}, kIrq, {"-C", "0"}, {"-C", "1"}}),
    [](const ::testing::TestParamInfo<ReportCase>& i) { return std::string(i.param.name); });

// Drops avg_us and stdev_us from every STATS object of a tk irq --json report, checking them
// against `other`'s (the same report shape) to 1e-12 relative.
void ExpectIrqMoments(nlohmann::json* j, nlohmann::json* other) {
  for (const char* list : {"hard", "soft"}) {
    ASSERT_EQ((*j)[list].size(), (*other)[list].size());
    for (size_t i = 0; i < (*j)[list].size(); ++i) {
      for (const char* stats : {"duration", "raise_latency"}) {
        nlohmann::json& a = (*j)[list][i][stats];
        nlohmann::json& b = (*other)[list][i][stats];
        if (a.is_null()) continue;
        for (const char* k : {"avg_us", "stdev_us"}) {
          if (a[k].is_number()) {
            EXPECT_NEAR(a[k].get<double>(), b[k].get<double>(), 1e-12 * b[k].get<double>()) << k;
          } else {
            EXPECT_EQ(a[k], b[k]) << k;
          }
          a.erase(k);
          b.erase(k);
        }
      }
    }
  }
}

// tk irq --json of each CPU merged = tk irq --json of both: counts, totals, extremes, time
// range and unpaired exits byte for byte; avg and stdev to rounding, marked.
TEST(MergeCli, IrqStatsOfPartsEqualTheWhole) {
  std::string dir = TempDir(), file = SourcePath(kIrq);
  RunResult whole = RunTk({"irq", "--json", file});
  ASSERT_EQ(whole.exit_code, 0) << whole.err;
  Write(dir + "/a.json", RunTk({"irq", "--json", "-C", "0", file}).out);
  Write(dir + "/b.json", RunTk({"irq", "--json", "-C", "1", file}).out);
  RunResult m = RunTk({"merge", dir + "/a.json", "-"}, dir + "/b.json");
  ASSERT_EQ(m.exit_code, 0) << m.err;
  nlohmann::ordered_json w = nlohmann::ordered_json::parse(whole.out);
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(m.out);
  EXPECT_EQ(j["avg_stdev_exact"], false);
  j.erase("avg_stdev_exact");
  nlohmann::json wj = nlohmann::json::parse(w.dump()), jj = nlohmann::json::parse(j.dump());
  ExpectIrqMoments(&jj, &wj);
  EXPECT_EQ(jj.dump(1), wj.dump(1)) << UnifiedDiff(wj.dump(1), jj.dump(1));
  // Key order and number formatting as tk irq's: the merge of one report is that report.
  RunResult one = RunTk({"merge", dir + "/a.json"});
  EXPECT_EQ(one.out, ReadFile(dir + "/a.json")) << UnifiedDiff(ReadFile(dir + "/a.json"), one.out);
}

// Reports no merge can make exact are refused in one line naming the input.
TEST(MergeCli, UnmergeableReportsAreRefused) {
  std::string dir = TempDir();
  Write(dir + "/iolat.json", RunTk({"iolat", "--json", SourcePath(kIolat)}).out);
  Write(dir + "/lat.json", RunTk({"sched", "latency", "--json", SourcePath(kSched)}).out);
  Write(dir + "/top.json", RunTk({"irq", "--json", "--top", "2", SourcePath(kIrq)}).out);
  for (const char* f : {"iolat.json", "lat.json", "top.json"}) {
    RunResult m = RunTk({"merge", dir + "/" + f, dir + "/" + f});
    EXPECT_EQ(m.exit_code, 1) << f;
    EXPECT_EQ(std::count(m.err.begin(), m.err.end(), '\n'), 1) << m.err;
    EXPECT_TRUE(m.err.starts_with("tk: " + dir + "/" + f + ": ")) << m.err;
    EXPECT_NE(m.err.find("merge"), std::string::npos) << m.err;
  }
}

TEST(MergeCli, OneReportIsItself) {
  std::string dir = TempDir();
  RunResult r = RunTk({"sched", "hist", "-L", "--json", SourcePath(kSched)});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Write(dir + "/r.json", r.out);
  RunResult m = RunTk({"merge", dir + "/r.json"});
  EXPECT_EQ(m.out, r.out) << UnifiedDiff(r.out, m.out);
}

TEST(MergeCli, ReportErrors) {
  std::string dir = TempDir();
  Write(dir + "/s.json", RunTk({"sched", "hist", "--json", SourcePath(kSched)}).out);
  Write(dir + "/ms.json", RunTk({"sched", "hist", "-m", "--json", SourcePath(kSched)}).out);
  Write(dir + "/i.json", RunTk({"iolat", "hist", "--json", SourcePath(kIolat)}).out);
  Write(dir + "/x.json", "{\"a\": 1}");
  Write(dir + "/bad.json", "{\"buckets\": [");
  Write(dir + "/odd.json",
        "{\"buckets\": [{\"low_us\": 0, \"high_us\": 2, \"count\": 1}], "
        "\"percentiles_exact\": true}");
  for (const char* other : {"ms.json", "i.json", "x.json", "bad.json", "odd.json"}) {
    RunResult m = RunTk({"merge", dir + "/s.json", dir + "/" + other});
    EXPECT_EQ(m.exit_code, 1) << other;
    EXPECT_NE(m.err.find(other), std::string::npos) << m.err;
  }
  EXPECT_EQ(RunTk({"merge", "--normalize", dir + "/s.json"}).exit_code, 2);
}

TEST(MergeCli, UsageErrors) {
  EXPECT_EQ(RunTk({"merge"}).exit_code, 2);
  EXPECT_EQ(RunTk({"merge", "/nonexistent/x.folded"}).exit_code, 2);
  EXPECT_EQ(RunTk({"merge", "-", "-"}).exit_code, 2);
  RunResult h = RunTk({"help", "merge"});
  EXPECT_EQ(h.exit_code, 0);
  EXPECT_NE(h.out.find("--normalize"), std::string::npos);
}

}  // namespace
}  // namespace tk::testing
