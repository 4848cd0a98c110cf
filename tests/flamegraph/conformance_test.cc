// tk flamegraph against flamegraph.pl: the shared corpus (../shared/conformance/flamegraph)
// and the references of testdata/flamegraph/cases.txt (made by make-reference.sh with the
// real flamegraph.pl and difffolded.pl). Equal means: the same header up to <script>, the same
// fixed texts and the same multiset of <g> blocks. The documented deviations (docs/
// flamegraph.md) are pinned here:
//  - XML-invalid characters: tk drops them (flamegraph.pl writes them: invalid XML), so they
//    are deleted from the reference before comparing;
//  - zero-width frames (zero-count lines with --minwidth 0): tk never draws them;
//  - a zero-count line whose frame has the name, depth and end time of a real frame replaces
//    that frame in flamegraph.pl (its hash key collides) and the real frame vanishes; tk
//    keeps it. Cases where this happens list the frames tk keeps in kKeptByTk.
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "gtest/gtest.h"
#include "tests/flamegraph/svg_parts.h"
#include "tests/support/golden.h"

namespace tk::testing {
namespace {

const std::map<std::string, std::set<std::string>> kKeptByTk = {
    // "d;main 22 10" then "gone;main 7 0": both "main" frames at depth 2 end at 40.
    {"diff-n--negate--reverse", {"<title>main (10 samples, 18.52%; +22.22%)</title>"}},
};

// Compares tk's SVG with the reference; returns "" or what differs.
std::string Compare(const std::string& name, const std::string& reference,
                    const std::string& actual) {
  std::optional<SvgParts> want = SplitSvg(DropXmlInvalid(reference)), got = SplitSvg(actual);
  if (!want) return "reference is not a flamegraph.pl SVG";
  if (!got) return "tk's output is not a flamegraph SVG";
  std::string why;
  if (want->header != got->header) why += "header:\n" + UnifiedDiff(want->header, got->header);
  if (want->fixed != got->fixed) why += "fixed texts:\n" + UnifiedDiff(want->fixed, got->fixed);
  for (const std::string& b : Missing(*want, *got)) {
    if (b.find(" width=\"0.0\" ") != std::string::npos) continue;  // zero width: not drawn
    why += "missing: " + b;
  }
  auto kept = kKeptByTk.find(name);
  for (const std::string& b : Missing(*got, *want)) {
    bool allowed = false;
    if (kept != kKeptByTk.end()) {
      for (const std::string& t : kept->second) allowed |= b.find(t) != std::string::npos;
    }
    if (!allowed) why += "extra: " + b;
  }
  return why;
}

TEST(FlamegraphConformance, SharedCorpus) {
  std::optional<std::string> dir = FlamegraphCorpus();
  if (!dir) {
    if (InCi()) FAIL() << "../shared/conformance/flamegraph is absent under CI=true";
    GTEST_SKIP() << "../shared/conformance/flamegraph is absent";
  }
  int cases = 0, pass = 0;
  for (const auto& e : std::filesystem::directory_iterator(*dir + "/expected")) {
    std::string base = e.path().stem().string();
    size_t sep = base.find("--");
    ASSERT_NE(sep, std::string::npos) << base;
    std::vector<std::string> args = {"flamegraph"};
    for (std::string& a : CorpusArgs(base.substr(sep + 2))) args.push_back(a);
    args.push_back(*dir + "/input/" + base.substr(0, sep) + ".folded");
    RunResult r = RunTk(args);
    ++cases;
    ASSERT_EQ(r.exit_code, 0) << base << r.err;
    std::string why = Compare(base, ReadFile(e.path().string()), r.out);
    if (why.empty()) {
      ++pass;
    } else {
      ADD_FAILURE() << base << ":\n" << why;
    }
  }
  EXPECT_GE(cases, 40);
  std::cout << "[ conformance ] " << pass << "/" << cases << " flamegraph.pl SVGs equal\n";
}

TEST(FlamegraphConformance, CommittedReferences) {
  std::ifstream list(SourcePath("testdata/flamegraph/cases.txt"));
  ASSERT_TRUE(list) << "cases.txt";
  int cases = 0, pass = 0;
  for (std::string line; std::getline(list, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream words(line);
    std::string name, input;
    words >> name >> input;
    std::vector<std::string> args = {"flamegraph"};
    for (std::string w; words >> w;) args.push_back(w.rfind("testdata/", 0) == 0 ? SourcePath(w) : w);
    args.push_back(SourcePath(input));
    RunResult r = RunTk(args);
    ++cases;
    ASSERT_EQ(r.exit_code, 0) << name << r.err;
    std::string ref = ReadFile(SourcePath("testdata/flamegraph/reference/" + name + ".svg"));
    std::string why = Compare(name, ref, r.out);
    if (why.empty()) {
      ++pass;
    } else {
      ADD_FAILURE() << name << ":\n" << why;
    }
  }
  EXPECT_EQ(pass, cases);
  EXPECT_GE(cases, 45);
}

// The deviations above are real: the zero-width and collision cases do differ.
TEST(FlamegraphConformance, DeviationsAreExercised) {
  for (const char* name : {"quirks--minwidth_0", "diff-n--negate--reverse"}) {
    std::ifstream list(SourcePath("testdata/flamegraph/cases.txt"));
    for (std::string line; std::getline(list, line);) {
      std::istringstream words(line);
      std::string n, input;
      words >> n >> input;
      if (n != name) continue;
      std::vector<std::string> args = {"flamegraph"};
      for (std::string w; words >> w;) args.push_back(w);
      args.push_back(SourcePath(input));
      RunResult r = RunTk(args);
      std::optional<SvgParts> want =
          SplitSvg(ReadFile(SourcePath("testdata/flamegraph/reference/" + n + ".svg")));
      std::optional<SvgParts> got = SplitSvg(r.out);
      ASSERT_TRUE(want && got) << n;
      EXPECT_FALSE(Missing(*want, *got).empty() && Missing(*got, *want).empty()) << n;
    }
  }
}

// tk diff against difffolded.pl (its output sorted), byte for byte.
TEST(FlamegraphConformance, DiffFolded) {
  std::string before = SourcePath("testdata/flamegraph/input/before.folded");
  std::string after = SourcePath("testdata/flamegraph/input/after.folded");
  for (std::string flags : {"", "-n", "-s", "-ns"}) {
    std::vector<std::string> args = {"diff"};
    if (!flags.empty()) args.push_back(flags);
    args.push_back(before);
    args.push_back(after);
    RunResult r = RunTk(args);
    EXPECT_EQ(r.exit_code, 0) << flags << r.err;
    std::string ref = ReadFile(SourcePath("testdata/flamegraph/reference/diff" + flags + ".txt"));
    EXPECT_EQ(r.out, ref) << flags << "\n" << UnifiedDiff(ref, r.out);
  }
}

// The shared corpus' java02-diff inputs are difffolded.pl's output for java02-before/after.
TEST(FlamegraphConformance, SharedDiffFolded) {
  std::optional<std::string> dir = FlamegraphCorpus();
  if (!dir) {
    if (InCi()) FAIL() << "../shared/conformance/flamegraph is absent under CI=true";
    GTEST_SKIP() << "../shared/conformance/flamegraph is absent";
  }
  for (std::string flags : {"", "-n"}) {
    std::vector<std::string> args = {"diff"};
    if (!flags.empty()) args.push_back(flags);
    args.push_back(*dir + "/input/java02-before.folded");
    args.push_back(*dir + "/input/java02-after.folded");
    RunResult r = RunTk(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::string ref = ReadFile(*dir + "/input/java02-diff" + flags + ".folded");
    EXPECT_EQ(r.out, ref) << flags << "\n" << UnifiedDiff(ref, r.out);
  }
}

}  // namespace
}  // namespace tk::testing
