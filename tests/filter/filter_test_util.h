// Helpers of the filter tests that run the real binary.
#ifndef TK_TESTS_FILTER_FILTER_TEST_UTIL_H_
#define TK_TESTS_FILTER_FILTER_TEST_UTIL_H_

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/support/golden.h"

namespace tk::testing {

using Args = std::vector<std::string>;

// Filter flags and the file (under testdata/filter/perf/) perf wrote under the same filter.
struct RefCase {
  Args filter;
  const char* reference;
};

inline Args Cat(Args a, const Args& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

inline std::vector<std::string> Lines(const std::string& s) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at < s.size()) {
    size_t nl = s.find('\n', at);
    if (nl == std::string::npos) nl = s.size();
    out.push_back(s.substr(at, nl - at));
    at = nl + 1;
  }
  return out;
}

// Runs tk with `args` + `file`, expecting success; also runs it on the file as standard input
// ("-") and expects the same output.
inline std::string RunOk(const Args& args, const std::string& file, bool also_stdin = true) {
  RunResult r = RunTk(Cat(args, {file}));
  EXPECT_EQ(r.exit_code, 0) << ::testing::PrintToString(args) << ": " << r.err;
  if (also_stdin) {
    RunResult s = RunTk(Cat(args, {"-"}), file);
    EXPECT_EQ(s.exit_code, 0) << "stdin " << ::testing::PrintToString(args) << ": " << s.err;
    EXPECT_EQ(s.out, r.out) << "stdin differs: " << ::testing::PrintToString(args);
  }
  return r.out;
}

inline std::string Fixture(const std::string& rel) {
  std::string p = SourcePath(rel);
  EXPECT_TRUE(FileExists(p)) << p;
  return p;
}

inline std::string PerfReference(const std::string& name) {
  return Fixture("testdata/filter/perf/" + name);
}

}  // namespace tk::testing

#endif  // TK_TESTS_FILTER_FILTER_TEST_UTIL_H_
