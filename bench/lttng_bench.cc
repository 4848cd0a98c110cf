// tk irq / syscalls / cputop / memtop against their anchors, measured in the same run.
//
// Inputs (bench/make-lttng-inputs.sh; not committed): $TK_LTTNG_BENCH_DAT (default
// bench-inputs/lttng.trace.dat: 3 s of sched + irq + raw_syscalls + kmem events from tracefs)
// and $TK_LTTNG_BENCH_TRACE (default bench-inputs/trace-big.perf.data: perf trace record of 300k
// syscall samples, ~65 MB). When absent, the committed fixtures of testdata/lttng/recorded are
// used (CI's brief run; those numbers are not figures).
//
//   BM_TraceCmdReport            `trace-cmd report -i DAT > /dev/null` (the anchor, ≥ 5× slower)
//   BM_TkIrq / BM_TkSyscalls / BM_TkCputop / BM_TkMemtop   `tk CMD DAT > /dev/null`
//   BM_PerfTraceSummary          `perf trace -s -i TRACE > /dev/null` (the anchor, ≥ 2× slower)
//   BM_TkSyscallsPerfTrace       `tk syscalls --compat perf-trace TRACE > /dev/null`
#include <filesystem>
#include <string>

#include "bench/bench_inputs.h"
#include "benchmark/benchmark.h"

namespace {

std::string Input(const char* env, const char* name, const char* fixture) {
  std::string p = tk::bench::BenchInput(env, name);
  if (std::filesystem::exists(p)) return p;
  return std::string(TK_SOURCE_DIR) + "/testdata/lttng/recorded/" + fixture;
}

std::string Dat() { return Input("TK_LTTNG_BENCH_DAT", "lttng.trace.dat", "lttng.trace.dat"); }
std::string Trace() {
  return Input("TK_LTTNG_BENCH_TRACE", "trace-big.perf.data", "trace.perf.data");
}

void Tk(benchmark::State& state, const std::string& args, const std::string& file) {
  if (!tk::bench::RequireInput(state, file)) return;
  tk::bench::RunShell(state, tk::bench::TkBinary() + " " + args + " '" + file + "' > /dev/null");
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(std::filesystem::file_size(file)));
}

void BM_TraceCmdReport(benchmark::State& state) {
  if (!tk::bench::RequireTool(state, "trace-cmd") || !tk::bench::RequireInput(state, Dat())) return;
  tk::bench::RunShell(state, "trace-cmd report -i '" + Dat() + "' > /dev/null 2>&1");
}
void BM_TkIrq(benchmark::State& state) { Tk(state, "irq", Dat()); }
void BM_TkSyscalls(benchmark::State& state) { Tk(state, "syscalls", Dat()); }
void BM_TkCputop(benchmark::State& state) { Tk(state, "cputop", Dat()); }
void BM_TkMemtop(benchmark::State& state) { Tk(state, "memtop", Dat()); }

void BM_PerfTraceSummary(benchmark::State& state) {
  if (!tk::bench::RequireTool(state, "perf") || !tk::bench::RequireInput(state, Trace())) return;
  tk::bench::RunShell(state, "perf trace -s -i '" + Trace() + "' > /dev/null 2>&1");
}
void BM_TkSyscallsPerfTrace(benchmark::State& state) {
  Tk(state, "syscalls --compat perf-trace", Trace());
}

BENCHMARK(BM_TraceCmdReport)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_TkIrq)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_TkSyscalls)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_TkCputop)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_TkMemtop)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_PerfTraceSummary)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_TkSyscallsPerfTrace)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
