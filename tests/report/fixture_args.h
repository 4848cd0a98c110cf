// Command lines for tk on the recorded fixtures, with the switches that make a run independent
// of this host (the fixture's own symfs and kallsyms, no build-id cache, no host kernel).
#ifndef TK_TESTS_REPORT_FIXTURE_ARGS_H_
#define TK_TESTS_REPORT_FIXTURE_ARGS_H_

#include <string>
#include <vector>

#include "tests/support/golden.h"

namespace tk::testing {

// {cmd, --symfs testdata/DIR/symfs, --kallsyms testdata/DIR/kallsyms, --no-buildid-cache,
//  --no-host-kallsyms, extra...}; DIR is "report" or "perf_data".
inline std::vector<std::string> FixtureArgs(const std::string& cmd, const std::string& dir,
                                            const std::vector<std::string>& extra = {}) {
  std::string d = "testdata/" + dir + "/";
  std::vector<std::string> a = {cmd,
                                "--symfs",
                                SourcePath(d + "symfs"),
                                "--kallsyms",
                                SourcePath(d + "kallsyms"),
                                "--no-buildid-cache",
                                "--no-host-kallsyms"};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

}  // namespace tk::testing

#endif  // TK_TESTS_REPORT_FIXTURE_ARGS_H_
