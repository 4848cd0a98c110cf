// Nothing dropped: every sample of an input is folded (an empty callchain as the bare comm, a
// last stack with no blank line after it), and a perf.data header feature that cannot be read
// is a warning. Fixtures: testdata/inputs (README.md there; made by make.sh).
#include <filesystem>
#include <string>
#include <vector>

#include "gtest/gtest-spi.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/support/golden.h"

namespace tk::testing {
namespace {

const std::string kDir = "testdata/inputs/";

std::vector<std::string> SymArgs() {
  return {"--symfs", SourcePath("testdata/perf_data/symfs"), "--kallsyms",
          SourcePath("testdata/perf_data/kallsyms"), "--no-buildid-cache", "--no-host-kallsyms"};
}

RunResult Fold(const std::string& file, std::vector<std::string> flags = {}) {
  std::vector<std::string> args = {"fold"};
  args.insert(args.end(), flags.begin(), flags.end());
  for (const std::string& a : SymArgs()) args.push_back(a);
  args.push_back(file);
  return RunTk(args);
}

// Three samples of a real `perf record -g` file had their callchain emptied (nr = 0, as the
// kernel writes when it walks no frame): perf script prints them with no frame line and
// stackcollapse-perf.pl folds them as "workload 750000". tk folds the file and perf's text of it
// the same way, and counts every sample.
TEST(NothingDropped, EmptyCallchainFoldsAsTheComm) {
  const std::string want = ReadFile(SourcePath(kDir + "reference/empty-callchain.folded"));
  ASSERT_EQ(want.rfind("workload 750000\n", 0), 0u) << "reference changed?";
  RunResult data = Fold(SourcePath(kDir + "empty-callchain.data"));
  EXPECT_EQ(data.exit_code, 0) << data.err;
  EXPECT_EQ(data.out, want) << UnifiedDiff(want, data.out);
  RunResult text = Fold(SourcePath(kDir + "reference/empty-callchain.script.txt"));
  EXPECT_EQ(text.exit_code, 0) << text.err;
  EXPECT_EQ(text.out, want) << UnifiedDiff(want, text.out);
  RunResult stdin_text = RunTk({"fold", "-"}, SourcePath(kDir + "reference/empty-callchain.script.txt"));
  EXPECT_EQ(stdin_text.out, want);
}

// inferno's rule, not perl's: a last stack without the blank line after it is folded (with a
// warning that the input looks cut short). cut-last-stack.txt is g.script minus its last
// newline, so its fold is perl's fold of the whole text.
TEST(NothingDropped, LastStackWithoutBlankLineIsFolded) {
  const std::string want = ReadFile(SourcePath("testdata/perf_data/g.folded"));
  for (bool from_stdin : {false, true}) {
    std::string in = SourcePath(kDir + "cut-last-stack.txt");
    RunResult r = from_stdin ? RunTk({"fold", "-"}, in) : RunTk({"fold", in});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, want) << UnifiedDiff(want, r.out);
    EXPECT_NE(r.err.find("line 3047: the last event's stack is not followed by a blank line"),
              std::string::npos)
        << r.err;
  }
}

// Cut right after a header: the event's stack never came; it counts, as its bare comm.
TEST(NothingDropped, LastHeaderWithoutItsStackIsCounted) {
  std::string f = ::testing::TempDir() + "/tk-cut-after-header.txt";
  FILE* out = std::fopen(f.c_str(), "w");
  std::fputs("a 1 [000] 2.000000: 1 cycles:\n\tffff foo ([k])\n\na 1 [000] 3.000000: 1 cycles:\n",
             out);
  std::fclose(out);
  RunResult r = RunTk({"fold", f});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "a 1\na;foo 1\n");
}

// perf reads a file whose cpudesc section is 0 bytes (perf 3.14 on armv7 wrote such files); tk
// warns once and reads it like the unedited file.
TEST(NothingDropped, UnreadableFeatureSectionIsAWarning) {
  const std::string file = SourcePath(kDir + "zero-cpudesc.data");
  RunResult f = Fold(file);
  EXPECT_EQ(f.exit_code, 0) << f.err;
  EXPECT_EQ(f.out, ReadFile(SourcePath("testdata/perf_data/g.folded")));
  EXPECT_NE(f.err.find("malformed cpudesc feature section (0 bytes); ignored"), std::string::npos)
      << f.err;
  RunResult info = RunTk({"info", "--json", file});
  ASSERT_EQ(info.exit_code, 0) << info.err;
  EXPECT_EQ(nlohmann::json::parse(info.out)["samples"],
            nlohmann::json::parse(RunTk({"info", "--json", SourcePath("testdata/perf_data/g.data")}).out)["samples"]);
}

// "cycles" and "cycles:u" are one type for tk fold (analyses/fold: SameEventType).
bool SameType(const std::string& a, const std::string& b) {
  if (a == b) return true;
  const std::string& s = a.size() < b.size() ? a : b;
  const std::string& l = a.size() < b.size() ? b : a;
  return l.rfind(s + ":", 0) == 0 &&
         l.find_first_not_of("ukhIGHpPSDWeb", s.size() + 1) == std::string::npos;
}

// Every committed input: for each event type tk info counts, tk fold --event-filter=TYPE folds
// exactly that many samples, or says the type has no stacks.
TEST(NothingDropped, FoldedSamplesEqualInfoCountsOnEveryFixture) {
  std::vector<std::string> files;
  for (const char* dir : {"testdata/fold", "testdata/perf_data", "testdata/inputs",
                          "testdata/recorded/sched", "testdata/recorded/iolat",
                          "testdata/recorded/lost", "testdata/sched"}) {
    for (const auto& e : std::filesystem::directory_iterator(SourcePath(dir))) {
      std::string p = e.path().string();
      if (p.ends_with("-g.txt") || p.ends_with(".data") || p.ends_with(".perf-script.txt") ||
          p.ends_with("cut-last-stack.txt")) {
        files.push_back(p);
      }
    }
  }
  ASSERT_GE(files.size(), 20u);
  int compared = 0;
  for (const std::string& f : files) {
    RunResult info = RunTk({"info", "--json", f});
    ASSERT_EQ(info.exit_code, 0) << f << info.err;
    nlohmann::json events = nlohmann::json::parse(info.out)["events"];
    ASSERT_FALSE(events.empty()) << f;
    for (auto it = events.begin(); it != events.end(); ++it) {
      uint64_t want = 0;
      for (auto jt = events.begin(); jt != events.end(); ++jt)
        if (SameType(it.key(), jt.key())) want += jt->get<uint64_t>();
      RunResult fold = Fold(f, {"--json", "--event-filter=" + it.key()});
      if (fold.exit_code == 1) {
        EXPECT_NE(fold.err.find("no stacks"), std::string::npos) << f << " " << it.key() << fold.err;
        continue;
      }
      ASSERT_EQ(fold.exit_code, 0) << f << " " << it.key() << fold.err;
      EXPECT_EQ(nlohmann::json::parse(fold.out)["samples"].get<uint64_t>(), want)
          << f << " " << it.key();
      ++compared;
    }
  }
  EXPECT_GE(compared, 20);
}

// Reference outputs (made by perl, perf, trace-cmd) are never written by TK_BLESS=1: the golden
// helper refuses them, bless or not.
TEST(Goldens, ReferenceOutputsAreNeverBlessed) {
  for (const char* rel : {"testdata/fold/reference/proc-g-default.folded",
                          "testdata/inputs/reference/empty-callchain.folded",
                          "testdata/sched/perf.latency.txt", "testdata/perf_data/g.folded",
                          "testdata/perf_data/g.script", "testdata/trace_dat/overrun.report.txt",
                          "testdata/recorded/sched/sched.latency.txt"}) {
    EXPECT_TRUE(IsReferenceOutput(rel)) << rel;
    std::string before = ReadFile(SourcePath(rel));
    ASSERT_FALSE(before.empty()) << rel;
    setenv("TK_BLESS", "1", 1);
    EXPECT_NONFATAL_FAILURE(ExpectGolden("not the reference\n", rel), "is a reference output");
    unsetenv("TK_BLESS");
    EXPECT_EQ(ReadFile(SourcePath(rel)), before) << rel;
  }
  for (const char* rel : {"testdata/fold/expected/proc-g-default.folded",
                          "testdata/sched/tk.latency.txt", "testdata/iolat/writesync.report.txt",
                          "testdata/trace_dat/sched_block.golden.txt"}) {
    EXPECT_FALSE(IsReferenceOutput(rel)) << rel;
  }
}

}  // namespace
}  // namespace tk::testing
