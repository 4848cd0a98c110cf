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
//   BM_IrqFreqHeap/N             tk irq freq's analysis fed N synthetic interrupts in-process:
//                                heap_kb, its heap growth, is the same for 100k and 1M
//                                (tables of series × buckets; no duration kept)
#include <atomic>
#include <cstdlib>
#include <new>
#include <filesystem>
#include <ostream>
#include <string>

#include "analyses/irq/irq.h"
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

}  // namespace

// Bytes live on the heap through operator new (this binary only): each block carries its size
// in a 16-byte header.
static std::atomic<int64_t> g_live_bytes{0};
void* operator new(size_t n) {
  void* p = std::malloc(n + 16);
  if (!p) throw std::bad_alloc();
  *static_cast<size_t*>(p) = n;
  g_live_bytes += static_cast<int64_t>(n);
  return static_cast<char*>(p) + 16;
}
void operator delete(void* p) noexcept {
  if (!p) return;
  char* b = static_cast<char*>(p) - 16;
  g_live_bytes -= static_cast<int64_t>(*reinterpret_cast<size_t*>(b));
  std::free(b);
}
void operator delete(void* p, size_t) noexcept { operator delete(p); }

namespace {

// IrqAnalysis in freq mode (the second pass of `tk irq freq`, ranges known) fed N synthetic
// interrupt pairs (4 IRQs, 2 CPUs, 1..1000 µs); heap_kb = bytes allocated by new and still
// live after the last event, minus before the first: it must not grow with N.
void BM_IrqFreqHeap(benchmark::State& state) {
  const int64_t n = state.range(0);
  int64_t heap = 0;
  for (auto _ : state) {
    tk::irq::IrqOptions o;
    o.mode = tk::irq::IrqOptions::Mode::kFreq;
    for (int32_t irq = 30; irq < 34; ++irq) o.freq_ranges[{false, irq}] = {1.0, 1000.0};
    std::ostream null_out(nullptr);
    const int64_t before = g_live_bytes;
    tk::irq::IrqAnalysis a(o, null_out);
    tk::Event e;
    int64_t t = 1'000'000'000;
    for (int64_t i = 0; i < n; ++i) {
      const int32_t irq = 30 + static_cast<int32_t>(i % 4);
      e.cpu = static_cast<int32_t>(i % 2);
      e.ts_ns = t;
      e.body = tk::Irq{.exit = false, .irq = irq, .name = "dev"};
      (void)a.OnEvent(e);
      t += 1000 * (1 + (i * 7919) % 1000);
      e.ts_ns = t;
      e.body = tk::Irq{.exit = true, .irq = irq, .ret = 1};
      (void)a.OnEvent(e);
      t += 3000;
    }
    heap = g_live_bytes - before;
    if (a.hard().size() != 4 || a.hard().begin()->second.duration.count() != static_cast<uint64_t>(n / 4)) {
      state.SkipWithError("interrupts not counted");
      return;
    }
    benchmark::DoNotOptimize(a.hard().size());
  }
  state.counters["heap_kb"] = static_cast<double>(heap) / 1024;
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * n);
}

BENCHMARK(BM_TraceCmdReport)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_TkIrq)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_TkSyscalls)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_TkCputop)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_TkMemtop)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_PerfTraceSummary)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_TkSyscallsPerfTrace)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_IrqFreqHeap)->Arg(100000)->Arg(1000000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
