#include "tests/support/golden.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"

namespace tk::testing {

std::string SourcePath(const std::string& rel) { return std::string(TK_SOURCE_DIR) + "/" + rel; }

bool InCi() {
  const char* ci = std::getenv("CI");
  return ci && std::string(ci) == "true";
}

std::optional<std::string> SharedDir() {
  const char* env = std::getenv("TK_SHARED_DIR");  // a worktree elsewhere than the repository
  std::string p = env && *env ? std::string(env) : std::string(TK_SOURCE_DIR) + "/../shared";
  if (std::filesystem::is_directory(p)) return std::filesystem::canonical(p).string();
  if (InCi()) ADD_FAILURE() << p << " is absent and CI=true: the peer corpora are required";
  return std::nullopt;
}

std::string ReadFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

bool FileExists(const std::string& path) { return std::filesystem::exists(path); }

RunResult RunTk(const std::vector<std::string>& args, const std::string& stdin_path) {
  // stdout and stderr go to temporary files: no pipe deadlock on large outputs.
  char out_t[] = "/tmp/tk_test_outXXXXXX";
  char err_t[] = "/tmp/tk_test_errXXXXXX";
  int out_fd = mkstemp(out_t), err_fd = mkstemp(err_t);
  RunResult r;
  pid_t pid = fork();
  if (pid == 0) {
    if (!stdin_path.empty()) {
      if (!freopen(stdin_path.c_str(), "rb", stdin)) _exit(127);
    } else {
      if (!freopen("/dev/null", "rb", stdin)) _exit(127);
    }
    dup2(out_fd, 1);
    dup2(err_fd, 2);
    std::vector<char*> argv;
    std::string bin = TK_BINARY;
    argv.push_back(bin.data());
    std::vector<std::string> copy = args;
    for (std::string& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(bin.c_str(), argv.data());
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  close(out_fd);
  close(err_fd);
  r.out = ReadFile(out_t);
  r.err = ReadFile(err_t);
  unlink(out_t);
  unlink(err_t);
  return r;
}

std::string UnifiedDiff(const std::string& expected, const std::string& actual,
                        size_t max_lines) {
  char a[] = "/tmp/tk_expXXXXXX", b[] = "/tmp/tk_actXXXXXX";
  int fa = mkstemp(a), fb = mkstemp(b);
  (void)!write(fa, expected.data(), expected.size());
  (void)!write(fb, actual.data(), actual.size());
  close(fa);
  close(fb);
  std::string cmd = absl::StrCat("diff -u --label expected --label actual ", a, " ", b);
  std::string out;
  if (FILE* p = popen(cmd.c_str(), "r")) {
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
    pclose(p);
  }
  unlink(a);
  unlink(b);
  std::vector<std::string> lines = absl::StrSplit(out, '\n');
  if (lines.size() > max_lines) {
    size_t more = lines.size() - max_lines;
    lines.resize(max_lines);
    lines.push_back(absl::StrCat("... (", more, " more diff lines)"));
  }
  return absl::StrJoin(lines, "\n");
}

bool IsReferenceOutput(const std::string& rel) {
  std::string name = std::filesystem::path(rel).filename().string();
  std::string dir = std::filesystem::path(rel).parent_path().string();
  return rel.find("reference/") != std::string::npos ||          // any reference/ folder
         rel.rfind("testdata/recorded/", 0) == 0 ||              // recordings and their anchors
         (dir == "testdata/sched" && name.rfind("perf.", 0) == 0) ||     // perf sched
         (dir == "testdata/perf_data" && (name.ends_with(".script") ||   // perf script
                                          name.ends_with(".folded"))) ||  // | stackcollapse
         (dir == "testdata/trace_dat" && name.ends_with(".report.txt"));  // trace-cmd report
}

bool ExpectGolden(const std::string& actual, const std::string& rel) {
  if (IsReferenceOutput(rel)) {
    // Made by perl, perf or trace-cmd: tk must never write it, bless or not.
    ADD_FAILURE() << rel << " is a reference output (made by the reference tool), not a golden: "
                  << "compare with its contents (ReadFile)";
    return false;
  }
  std::string path = SourcePath(rel);
  const char* bless = std::getenv("TK_BLESS");
  if (bless && std::string(bless) == "1") {
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    std::ofstream(path, std::ios::binary) << actual;
    return true;
  }
  if (!FileExists(path)) {
    ADD_FAILURE() << "golden file " << rel << " is missing; run with TK_BLESS=1 to create it";
    return false;
  }
  std::string expected = ReadFile(path);
  if (expected == actual) return true;
  ADD_FAILURE() << "output differs from " << rel << " (TK_BLESS=1 regenerates):\n"
                << UnifiedDiff(expected, actual);
  return false;
}

}  // namespace tk::testing
