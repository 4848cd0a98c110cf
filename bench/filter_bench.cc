// The filters as a user runs them, tk against perf in the same run, whole processes with the
// output discarded, on bench/make-inputs.sh's sched.data (perf sched record of perf bench
// sched pipe; $TK_SCHED_BENCH_DATA overrides it):
//   tk script -C 0 --time ,T      vs  perf script -C 0 --time ,T
//   tk sched timehist -C 0         vs  perf sched timehist -C 0
// T is a time after the whole trace (the range selects CPU 0's events, the time test runs on
// every one of them).
#include <sys/stat.h>

#include <string>

#include "bench/bench_inputs.h"

namespace {

std::string Input() { return tk::bench::BenchInput("TK_SCHED_BENCH_DATA", "sched.data"); }

void Process(benchmark::State& state, const std::string& cmd, bool perf) {
  if (perf && !tk::bench::RequireTool(state, "perf")) return;
  if (!tk::bench::RequireInput(state, Input())) return;
  tk::bench::RunShell(state, cmd + " > /dev/null 2>&1");
  struct stat st {};
  if (stat(Input().c_str(), &st) == 0) state.SetBytesProcessed(state.iterations() * st.st_size);
}

const char* kWindow = " -C 0 --time ,99999999 ";

void BM_TkScriptCpuTime(benchmark::State& state) {
  Process(state, tk::bench::TkBinary() + " script" + kWindow + Input(), false);
}
BENCHMARK(BM_TkScriptCpuTime)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_PerfScriptCpuTime(benchmark::State& state) {
  Process(state, std::string("perf script") + kWindow + "-i " + Input(), true);
}
BENCHMARK(BM_PerfScriptCpuTime)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_TkTimehistCpu(benchmark::State& state) {
  Process(state, tk::bench::TkBinary() + " sched timehist -C 0 " + Input(), false);
}
BENCHMARK(BM_TkTimehistCpu)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_PerfTimehistCpu(benchmark::State& state) {
  Process(state, "perf sched timehist -C 0 -i " + Input(), true);
}
BENCHMARK(BM_PerfTimehistCpu)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
