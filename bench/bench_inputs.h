// Where a benchmark finds its input, and the helpers every bench binary shares.
//
// Inputs are never committed when they are big: bench/make-inputs.sh generates them into one
// directory (default build/bench-inputs, next to the bench binaries' parent; override with
// $TK_BENCH_DIR). `make-inputs.sh --small` makes the same names from committed fixtures in a
// second, which is what CI runs every benchmark on once so none can rot. Each input can still
// be pointed elsewhere by its own environment variable (named in each benchmark's header).
#ifndef TK_BENCH_BENCH_INPUTS_H_
#define TK_BENCH_BENCH_INPUTS_H_

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <streambuf>
#include <string>

#include "benchmark/benchmark.h"

namespace tk::bench {

// build/bench/X_bench -> build
inline std::filesystem::path BuildDir() {
  return std::filesystem::read_symlink("/proc/self/exe").parent_path().parent_path();
}

// The tk binary of this build.
inline std::string TkBinary() { return (BuildDir() / "tk").string(); }

inline std::filesystem::path InputDir() {
  const char* d = std::getenv("TK_BENCH_DIR");
  return d && *d ? std::filesystem::path(d) : BuildDir() / "bench-inputs";
}

// $env if set and non-empty, else InputDir()/name.
inline std::string BenchInput(const char* env, const char* name) {
  const char* p = env ? std::getenv(env) : nullptr;
  return p && *p ? std::string(p) : (InputDir() / name).string();
}

// Marks `state` skipped when `path` is missing. The message starts with "skip:" so that CI's
// brief run (scripts/test.sh) tells a missing optional input from a benchmark that broke.
inline bool RequireInput(benchmark::State& state, const std::string& path) {
  if (std::filesystem::exists(path)) return true;
  state.SkipWithError(("skip: no " + path + " (run bench/make-inputs.sh)").c_str());
  return false;
}

// Runs a shell command once per iteration (anchor tools and the tk binary as whole processes);
// a failing command marks the benchmark as errored.
inline void RunShell(benchmark::State& state, const std::string& cmd) {
  for (auto _ : state) {
    if (std::system(cmd.c_str()) != 0) {
      state.SkipWithError(("failed: " + cmd).c_str());
      return;
    }
  }
}

// Runs `cmd` with /bin/sh once; false when it could not run or exited non-zero. *rss_kb is
// the child's peak resident memory (what an anchor tool costs as a whole process); *cpu_s
// (optional) its user+sys CPU seconds, its own children's included.
inline bool RunMeasured(const std::string& cmd, long* rss_kb, double* cpu_s = nullptr) {
  pid_t pid = fork();
  if (pid == 0) {
    execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  if (pid < 0) return false;
  int status = 0;
  struct rusage ru {};
  if (wait4(pid, &status, 0, &ru) != pid) return false;
  *rss_kb = ru.ru_maxrss;
  if (cpu_s) {
    *cpu_s = static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
             static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

// True when `tool` is on PATH; else marks `state` skipped with a reason.
inline bool RequireTool(benchmark::State& state, const std::string& tool) {
  if (std::system(("command -v " + tool + " >/dev/null 2>&1").c_str()) == 0) return true;
  state.SkipWithError(("skip: " + tool + " not installed").c_str());
  return false;
}

// An ostream target that discards everything (reports written into it cost their formatting).
class NullBuf : public std::streambuf {
 protected:
  int overflow(int c) override { return c; }
  std::streamsize xsputn(const char*, std::streamsize n) override { return n; }
};

}  // namespace tk::bench

#endif  // TK_BENCH_BENCH_INPUTS_H_
