// Two-thread folding of mapped text (the perf script parser's split parse into FoldParts)
// gives exactly the one-thread output and messages.
#include "parsers/perf_script/split_parse.h"

#include <sstream>

#include "analyses/fold/fold.h"
#include "gtest/gtest.h"
#include "tests/support/golden.h"

namespace tk::analyses::fold {
namespace {

using parsers::perf_script::FindSplit;
using parsers::perf_script::ParseSplit;
using parsers::perf_script::SplitOptions;
using parsers::perf_script::SplitStats;

struct Out {
  std::string folded, err, filtered;
  bool ok;
  SplitStats stats;
};

Out FoldIt(std::string_view text, int threads, FoldOptions fo = {}) {
  SplitOptions to;
  to.threads = threads;
  to.parallel_min_bytes = 0;
  FoldSink sink(fo);
  FoldParts parts(sink, nullptr);
  std::ostringstream err, out;
  Diagnostics diag("t.txt", &err);
  SplitStats stats;
  absl::Status st = ParseSplit(text, "t.txt", to, parts, diag, &stats);
  diag.PrintSummary();
  sink.Write(out);
  return {out.str(), err.str(), sink.first_filtered(), st.ok(), stats};
}

void ExpectSame(std::string_view text, FoldOptions fo = {}) {
  Out one = FoldIt(text, 1, fo), two = FoldIt(text, 2, fo);
  EXPECT_TRUE(one.ok && two.ok);
  EXPECT_EQ(one.stats.parts, 1);
  EXPECT_EQ(two.stats.parts, 2);
  EXPECT_FALSE(two.stats.reparsed) << two.err;
  EXPECT_EQ(one.folded, two.folded);
  EXPECT_EQ(one.err, two.err);
  EXPECT_EQ(one.filtered, two.filtered);
}

std::string Fixture(const char* name) {
  return testing::ReadFile(testing::SourcePath(std::string("testdata/fold/") + name));
}

TEST(TextFold, TwoThreadsEqualOne) {
  std::string text = Fixture("proc-g.txt") + Fixture("system-wide-g.txt");
  ASSERT_GT(text.size(), 100000u);
  ExpectSame(text);
  FoldOptions tid;
  tid.include_tid = true;
  tid.names.annotate_kernel = true;
  ExpectSame(text, tid);
  EXPECT_FALSE(FoldIt(text, 2).folded.empty());
}

TEST(TextFold, DefaultTypeComesFromTheWholeInput) {
  // Two event types; the second half alone would pick the other one first.
  std::string text = Fixture("two-events-g.txt");
  Out one = FoldIt(text, 1), two = FoldIt(text, 2);
  EXPECT_EQ(two.stats.parts, 2);
  EXPECT_FALSE(two.stats.reparsed);
  EXPECT_EQ(one.folded, two.folded);
  EXPECT_EQ(two.filtered, "task-clock");
}

TEST(TextFold, MessagesAsSequential) {
  std::string text = Fixture("proc-g.txt");
  // A malformed line and an unordered event in the second half.
  size_t at = FindSplit(text, text.size() * 3 / 4);
  ASSERT_NE(at, std::string::npos);
  text.insert(at, "bogus line\n\na 1 [000] 1.000000: cpu-clock:ppp:\n\tffff f ([k])\n\n");
  Out one = FoldIt(text, 1), two = FoldIt(text, 2);
  EXPECT_NE(one.err.find("line outside an event: \"bogus line\""), std::string::npos) << one.err;
  EXPECT_NE(one.err.find("earlier than one before it"), std::string::npos) << one.err;
  EXPECT_TRUE(two.stats.reparsed);
  EXPECT_EQ(one.err, two.err);
  EXPECT_EQ(one.folded, two.folded);
}

TEST(TextFold, FindSplit) {
  std::string_view t = "a 1 1.0: c:\n\tffff f ([k])\n\na 1 2.0: c:\n\r\nx";
  EXPECT_EQ(FindSplit(t, 0), 27u);
  EXPECT_EQ(t.substr(25, 2), "\n\n");
  EXPECT_EQ(FindSplit(t, 27), 41u);
  EXPECT_EQ(FindSplit(t, 41), std::string::npos);
  EXPECT_EQ(FindSplit("no blank lines\nhere\n", 0), std::string::npos);
}

}  // namespace
}  // namespace tk::analyses::fold
