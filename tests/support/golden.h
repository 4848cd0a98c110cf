// Golden-file tests and running the real tk binary.
//
// ExpectGolden compares with a file under testdata/; with TK_BLESS=1 in the environment it
// rewrites the file instead (then review `git diff` against the anchor tool before committing).
// On mismatch it prints a unified diff.
#ifndef TK_TESTS_SUPPORT_GOLDEN_H_
#define TK_TESTS_SUPPORT_GOLDEN_H_

#include <optional>
#include <string>
#include <vector>

namespace tk::testing {

// Absolute path of a file in the source tree ("testdata/fold/x.txt").
std::string SourcePath(const std::string& rel);
// ../shared next to the repository (or $TK_SHARED_DIR), or nullopt when absent: tests then
// GTEST_SKIP, except
// under CI=true, where an absent ../shared is a test failure (added here), never a skip.
std::optional<std::string> SharedDir();

// Under CI=true (scripts/test.sh, .ci/run) nothing a test needs may be missing.
bool InCi();

std::string ReadFile(const std::string& path);
bool FileExists(const std::string& path);

struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};
// Runs build/tk with `args`; `stdin_path` (optional) is fed as standard input.
RunResult RunTk(const std::vector<std::string>& args, const std::string& stdin_path = "");

// Compares `actual` with the golden file `rel` (relative to the source dir). TK_BLESS=1
// rewrites it. Returns true when equal (or blessed); on mismatch adds a gtest failure with a
// unified diff. A reference output (IsReferenceOutput) is refused: it is a failure to pass one.
bool ExpectGolden(const std::string& actual, const std::string& rel);

// Outputs made by the reference tools (perl, perf, trace-cmd), kept apart from tk's goldens:
// anything under a reference/ folder or testdata/recorded/, and by name testdata/sched/perf.*,
// testdata/perf_data/*.script and *.folded, testdata/trace_dat/*.report.txt (each folder's
// README says which tool made them). TK_BLESS=1 never writes them.
bool IsReferenceOutput(const std::string& rel);

// A unified diff of two texts (for failure messages), at most `max_lines` lines.
std::string UnifiedDiff(const std::string& expected, const std::string& actual,
                        size_t max_lines = 60);

}  // namespace tk::testing

#endif  // TK_TESTS_SUPPORT_GOLDEN_H_
