// Issue 16's startup target: the fixed cost of a tiny input (kallsyms, vdso, ELF opens) at most
// 15 ms. In-process parts, then whole processes on committed fixtures with perf report timed
// in the same run:
//
// BM_LoadKallsyms        a copy of this host's /proc/kallsyms (written to a temporary file at
//                        start: the mapped build-id cache copy is what tk reads at startup)
// BM_LoadKallsymsFind/N  the same, then N lookups at addresses spread over the kernel's
//                        symbols (the index makes a Symbol at its first lookup: a small
//                        input makes a few dozen, a 13 MB `perf record -a -g` ~10k)
// BM_LoadElfSymbols/N    LoadElf of a host library (libstdc++ .dynsym, libc), of tk itself and of
//                        cc1plus (31k .dynsym symbols; skipped where g++ 12 is not installed)
// BM_TkHelp              `tk help` (dynamic linking and static initializers: the floor)
// BM_TkReportFixture     `tk report` on testdata/report/cxx.data with its shipped ELF and
//                        kallsyms (--symfs, --kallsyms, no host files)
// BM_TkReportHost        `tk report` on testdata/perf_data/z.data (no build ids: host kallsyms)
// BM_TkReportHostNoKernel  the same without the host's kernel symbols (--no-host-kallsyms):
//                        the difference is what loading them costs
// BM_PerfReportFixture   anchor: `perf report --stdio` on the same cxx.data and files
// BM_PerfReportHost      anchor: `perf report --stdio` on z.data (perf reads /proc/kallsyms)
// Wall time per process here; bench/startup_measure.sh gives task-clock (CPU of all threads)
// and the host files each symbolizing command reads.
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "bench/bench_inputs.h"
#include "benchmark/benchmark.h"
#include "parsers/symbolize/elf_symbols.h"
#include "parsers/symbolize/kallsyms.h"

namespace {

std::string Src(const std::string& rel) { return std::string(TK_SOURCE_DIR) + "/" + rel; }

// /proc/kallsyms copied once into a regular file (mapped as tk maps perf's cache copy).
const std::string& KallsymsCopy() {
  static const std::string path = [] {
    std::string p = "/tmp/tk-startup-bench-kallsyms." + std::to_string(getpid());
    std::ifstream in("/proc/kallsyms");
    std::ofstream out(p);
    out << in.rdbuf();
    return p;
  }();
  return path;
}

void BM_LoadKallsyms(benchmark::State& state) {
  const std::string& path = KallsymsCopy();
  for (auto _ : state) {
    auto ks = tk::parsers::symbolize::LoadKallsyms(path);
    if (!ks.ok()) {
      state.SkipWithError("skip: /proc/kallsyms unreadable or hidden");
      return;
    }
    benchmark::DoNotOptimize(ks->kernel.size());
  }
}

void BM_LoadKallsymsFind(benchmark::State& state) {
  const std::string& path = KallsymsCopy();
  const auto n = static_cast<size_t>(state.range(0));
  for (auto _ : state) {
    auto ks = tk::parsers::symbolize::LoadKallsyms(path);
    if (!ks.ok() || ks->kernel.size() == 0) {
      state.SkipWithError("skip: /proc/kallsyms unreadable or hidden");
      return;
    }
    const uint64_t first = ks->kernel.front().start, span = ks->kernel.back().start - first;
    size_t found = 0;
    for (size_t i = 0; i < n; ++i) found += ks->kernel.Find(first + span / n * i + 7) != nullptr;
    benchmark::DoNotOptimize(found);
  }
}

const char* const kElfFiles[] = {"/usr/lib/x86_64-linux-gnu/libstdc++.so.6",
                                 "/usr/lib/x86_64-linux-gnu/libc.so.6", TK_BINARY,
                                 // g++'s compiler: the 35 MB DSO a `perf record -a -g` under
                                 // a build waits for at the start (issue 16 row 1)
                                 "/usr/lib/gcc/x86_64-linux-gnu/12/cc1plus"};

void BM_LoadElfSymbols(benchmark::State& state) {
  const std::string path = kElfFiles[state.range(0)];
  if (!tk::bench::RequireInput(state, path)) return;
  state.SetLabel(path);
  for (auto _ : state) {
    auto img = tk::parsers::symbolize::LoadElf({path}, "");
    if (!img) {
      state.SkipWithError(("skip: no symbols in " + path).c_str());
      return;
    }
    benchmark::DoNotOptimize(img->symbols.size());
  }
}

const std::string kFixtureArgs = " --symfs " + Src("testdata/report/symfs") + " --kallsyms " +
                                 Src("testdata/report/kallsyms") + " ";

void BM_TkHelp(benchmark::State& s) {
  tk::bench::RunShell(s, tk::bench::TkBinary() + " help > /dev/null 2>&1");
}
void BM_TkReportFixture(benchmark::State& s) {
  tk::bench::RunShell(s, tk::bench::TkBinary() + " report --no-buildid-cache" + kFixtureArgs +
                             Src("testdata/report/cxx.data") + " > /dev/null 2>&1");
}
void BM_TkReportHost(benchmark::State& s) {
  tk::bench::RunShell(s, tk::bench::TkBinary() + " report " + Src("testdata/perf_data/z.data") +
                             " > /dev/null 2>&1");
}
void BM_TkReportHostNoKernel(benchmark::State& s) {
  tk::bench::RunShell(s, tk::bench::TkBinary() + " report --no-host-kallsyms " +
                             Src("testdata/perf_data/z.data") + " > /dev/null 2>&1");
}
void BM_PerfReportHost(benchmark::State& s) {
  if (!tk::bench::RequireTool(s, "perf")) return;
  tk::bench::RunShell(s, "PERF_CONFIG=/dev/null perf report --stdio -i " +
                             Src("testdata/perf_data/z.data") + " > /dev/null 2>&1");
}
void BM_PerfReportFixture(benchmark::State& s) {
  if (!tk::bench::RequireTool(s, "perf")) return;
  tk::bench::RunShell(s, "PERF_CONFIG=/dev/null perf --buildid-dir /nonexistent report --stdio" +
                             kFixtureArgs + "-i " + Src("testdata/report/cxx.data") +
                             " > /dev/null 2>&1");
}

BENCHMARK(BM_LoadKallsyms)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LoadKallsymsFind)->Arg(50)->Arg(10000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LoadElfSymbols)->DenseRange(0, 3)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TkHelp)->Unit(benchmark::kMillisecond)->Iterations(20);
BENCHMARK(BM_TkReportFixture)->Unit(benchmark::kMillisecond)->Iterations(20);
BENCHMARK(BM_PerfReportFixture)->Unit(benchmark::kMillisecond)->Iterations(20);
BENCHMARK(BM_TkReportHost)->Unit(benchmark::kMillisecond)->Iterations(20);
BENCHMARK(BM_TkReportHostNoKernel)->Unit(benchmark::kMillisecond)->Iterations(20);
BENCHMARK(BM_PerfReportHost)->Unit(benchmark::kMillisecond)->Iterations(20);

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  std::remove(KallsymsCopy().c_str());
  return 0;
}
