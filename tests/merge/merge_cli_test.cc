// tk merge through the real binary: folds of parts merged = the fold of the whole, any
// --threads, any order of inputs, stdin, --json, malformed lines, usage errors.
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
