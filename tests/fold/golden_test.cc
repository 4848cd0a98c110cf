// `tk fold` through the real binary on the recorded fixtures of testdata/fold, from a file and
// from stdin, with every flag: against tk's goldens (expected/, TK_BLESS=1 rewrites them) and
// against stackcollapse-perf.pl's own output (reference/, never rewritten), where every
// difference must be one of the deviations testdata/fold/README.md and docs/fold.md list.
#include <algorithm>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/support/golden.h"

namespace tk::testing {
namespace {

const char* kFixtures[] = {"proc-g",       "proc-pidtid-g", "system-wide-g", "two-events-g",
                           "tracepoint-g", "crlf-g",        "symoff-g"};
const char* kModes[] = {"default", "pid", "tid", "kernel", "jit", "all", "addrs"};

std::vector<std::string> Args(const std::string& mode, const std::string& file) {
  std::vector<std::string> a = {"fold"};
  if (mode != "default") a.push_back("--" + mode);
  a.push_back(file);
  return a;
}

TEST(FoldGolden, FromFileEveryMode) {
  for (const char* f : kFixtures) {
    for (const char* m : kModes) {
      std::string in = SourcePath(std::string("testdata/fold/") + f + ".txt");
      RunResult r = RunTk(Args(m, in));
      EXPECT_EQ(r.exit_code, 0) << f << " " << m << r.err;
      ExpectGolden(r.out, std::string("testdata/fold/expected/") + f + "-" + m + ".folded");
    }
  }
}

TEST(FoldGolden, FromStdinEveryMode) {
  for (const char* f : kFixtures) {
    for (const char* m : {"default", "tid", "all"}) {
      std::string in = SourcePath(std::string("testdata/fold/") + f + ".txt");
      RunResult r = RunTk(Args(m, "-"), in);
      EXPECT_EQ(r.exit_code, 0) << f << " " << m << r.err;
      ExpectGolden(r.out, std::string("testdata/fold/expected/") + f + "-" + m + ".folded");
    }
  }
}

std::set<std::string> LineSet(const std::string& s) {
  std::set<std::string> v;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);) v.insert(l);
  return v;
}

// The deviations from perl, by what the differing lines look like:
//  - ":-1    -1 [000] TIME: PERIOD EVENT:" headers: perl's root is the whole header
//    (":-1____-1_[000]__1523.447953:"), tk's is ":-1";
//  - a DSO with parentheses ("/memfd:sealed-91173221a7ea (deleted)"): perl prints "[unknown] ",
//    tk "[memfd:sealed-91173221a7ea (deleted)]".
bool PerlSideOfADeviation(const std::string& l) {
  return l.rfind(":-1____-1_[", 0) == 0 || l.find("[unknown] ;") != std::string::npos;
}
bool TkSideOfADeviation(const std::string& l) {
  return l.rfind(":-1;", 0) == 0 || l.rfind(":-1 ", 0) == 0 || l.rfind(":--", 0) == 0 ||
         l.rfind(":-1-", 0) == 0 || l.find("[memfd:sealed-") != std::string::npos;
}

TEST(FoldReference, DiffersFromStackcollapseOnlyByTheListedDeviations) {
  int identical = 0;
  for (const char* f : kFixtures) {
    for (const char* m : kModes) {
      std::string base = std::string(f) + "-" + m;
      std::string perl = ReadFile(SourcePath("testdata/fold/reference/" + base + ".folded"));
      ASSERT_FALSE(perl.empty()) << "reference missing: " << base;
      RunResult r = RunTk(Args(m, SourcePath(std::string("testdata/fold/") + f + ".txt")));
      ASSERT_EQ(r.exit_code, 0) << base << r.err;
      if (r.out == perl) {
        ++identical;
        continue;
      }
      std::set<std::string> p = LineSet(perl), t = LineSet(r.out), only_p, only_t;
      std::set_difference(p.begin(), p.end(), t.begin(), t.end(), std::inserter(only_p, only_p.end()));
      std::set_difference(t.begin(), t.end(), p.begin(), p.end(), std::inserter(only_t, only_t.end()));
      for (const std::string& l : only_p) EXPECT_TRUE(PerlSideOfADeviation(l)) << base << ": perl " << l;
      for (const std::string& l : only_t) EXPECT_TRUE(TkSideOfADeviation(l)) << base << ": tk " << l;
    }
  }
  // 35 of 49 byte-identical: system-wide-g (":-1" headers) and tracepoint-g (memfd) differ.
  EXPECT_EQ(identical, 35);
}

TEST(FoldGolden, TwoEventTypesMessage) {
  std::string in = SourcePath("testdata/fold/two-events-g.txt");
  RunResult r = RunTk({"fold", in});
  EXPECT_EQ(r.err, "Filtering for events of type: task-clock\n");
  RunResult f = RunTk({"fold", "--event-filter=task-clock", in});
  EXPECT_EQ(f.err, "");
  EXPECT_NE(f.out, r.out);
  EXPECT_NE(f.out.find("gzip;"), std::string::npos);
  RunResult g = RunTk({"fold", "--event-filter", "cpu-clock", in});
  EXPECT_EQ(g.out, r.out);
}

TEST(FoldGolden, SingleThreadEqualsDefault) {
  std::string in = SourcePath("testdata/fold/proc-g.txt");
  EXPECT_EQ(RunTk({"fold", "--threads", "1", "--tid", in}).out, RunTk({"fold", "--tid", in}).out);
}

TEST(FoldGolden, Errors) {
  RunResult missing = RunTk({"fold", "/nonexistent/perf.data"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("/nonexistent/perf.data"), std::string::npos);
  EXPECT_EQ(RunTk({"fold", "--no-such-flag"}).exit_code, 2);
  RunResult help = RunTk({"fold", "--help"});
  EXPECT_EQ(help.exit_code, 0);
  for (const char* flag : {"--pid", "--tid", "--kernel", "--jit", "--all", "--addrs",
                           "--event-filter", "--symfs", "--kallsyms"}) {
    EXPECT_NE(help.out.find(flag), std::string::npos) << flag;
  }
  RunResult garbage = RunTk({"fold", SourcePath("tests/cli/garbage.bin")});
  EXPECT_EQ(garbage.exit_code, 1);
  EXPECT_NE(garbage.err.find("offset 0: unknown input format"), std::string::npos);
}

}  // namespace
}  // namespace tk::testing
