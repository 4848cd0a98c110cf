// tk iolat speed, with the anchor tool timed in the same run.
//
//   BM_IolatTraceDat        the whole `tk iolat` pipeline (trace.dat reader + analysis + report
//                           into a null stream) on TK_IOLAT_BENCH_TRACE (default: the committed
//                           testdata/recorded/iolat/writesync.trace.dat)
//   BM_AnchorTraceCmdReport `trace-cmd report -i FILE > /dev/null` on the same file
//   BM_IolatAnalysisOnly    the analysis alone on synthesized sync-mount request lives
//
// A bigger input (not committed): record the write-sync workload with more dd traffic under
// `flock /tmp/tk-tracefs.lock` — loop ext4 images mounted -o sync and default, tracefs
// block/* (minus dirty/touch_buffer) + sched_switch + sched_wakeup, 64 MiB/CPU buffer;
// dd bs=4k count=15000 on the sync mount, bs=64k count=2000 and bs=4k count=5000
// oflag=dsync on the default one; `trace-cmd extract`; restore tracefs. Then
//   TK_IOLAT_BENCH_TRACE=/tmp/big.trace.dat build/bench/iolat_bench
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <ostream>
#include <streambuf>
#include <string>
#include <vector>

#include "analyses/iolat/iolat.h"
#include "bench/bench_inputs.h"
#include "core/diag.h"
#include "core/input.h"
#include "parsers/parser.h"

namespace {

std::string BenchTrace() {
  if (const char* p = std::getenv("TK_IOLAT_BENCH_TRACE")) return p;
  return std::string(TK_SOURCE_DIR) + "/testdata/recorded/iolat/writesync.trace.dat";
}

void BM_IolatTraceDat(benchmark::State& state) {
  std::string path = BenchTrace();
  if (!tk::bench::RequireInput(state, path)) return;
  uint64_t events = 0;
  for (auto _ : state) {
    auto in = tk::Input::Open(path);
    if (!in.ok()) {
      state.SkipWithError("cannot open");
      return;
    }
    tk::bench::NullBuf buf;
    std::ostream out(&buf);
    std::ostringstream diag_out;
    tk::Diagnostics diag(path, &diag_out);
    tk::iolat::WriteSyncOptions opts;
    opts.input_name = path;
    tk::iolat::WriteSyncAnalysis a(opts);
    tk::ParseOptions popts;
    popts.use_buildid_cache = false;
    popts.use_host_kallsyms = false;
    absl::Status st = tk::ParseInput(**in, popts, a, diag);
    if (!st.ok()) {
      state.SkipWithError(std::string(st.message()).c_str());
      return;
    }
    tk::iolat::WriteText(a.report(), out);
    const tk::iolat::InputCounts& n = a.input_counts();
    events = n.block_events + n.switch_events + n.wakeup_events;
  }
  state.SetBytesProcessed(state.iterations() * std::filesystem::file_size(path));
  state.SetItemsProcessed(state.iterations() * events);
  state.counters["events"] = static_cast<double>(events);
}
BENCHMARK(BM_IolatTraceDat)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_AnchorTraceCmdReport(benchmark::State& state) {
  std::string path = BenchTrace();
  if (!tk::bench::RequireInput(state, path) || !tk::bench::RequireTool(state, "trace-cmd")) return;
  tk::bench::RunShell(state, "trace-cmd report -i '" + path + "' >/dev/null 2>&1");
  state.SetBytesProcessed(state.iterations() * std::filesystem::file_size(path));
}
BENCHMARK(BM_AnchorTraceCmdReport)->Unit(benchmark::kMillisecond)->UseRealTime();

// 4096 synchronous 4 KiB writes, each Q G I D C plus a D-state switch and wakeup.
std::vector<tk::Event> SyncMountEvents() {
  std::vector<tk::Event> ev;
  const tk::BlockStage stages[] = {tk::BlockStage::kBioQueue, tk::BlockStage::kGetRq,
                                   tk::BlockStage::kInsert, tk::BlockStage::kIssue,
                                   tk::BlockStage::kComplete};
  int64_t t = 1000000;
  for (uint64_t i = 0; i < 4096; ++i) {
    for (tk::BlockStage s : stages) {
      tk::Event e;
      e.ts_ns = t += 1000;
      e.pid = e.tid = 4242;
      e.comm = "dd";
      tk::BlockRq b;
      b.stage = s;
      b.major = 7;
      b.sector = 1000 + i * 8;
      b.nr_sector = 8;
      b.rwbs = tk::Rwbs::Parse("WS");
      b.comm = "dd";
      e.body = b;
      ev.push_back(e);
      if (s == tk::BlockStage::kIssue) {
        tk::Event sw;
        sw.ts_ns = t += 100;
        tk::SchedSwitch x;
        x.prev_comm = "dd";
        x.prev_pid = 4242;
        x.prev_state = tk::TaskState::FromLetters("D");
        x.next_comm = "swapper/0";
        x.next_pid = 0;
        sw.body = x;
        ev.push_back(sw);
      }
    }
  }
  return ev;
}

void BM_IolatAnalysisOnly(benchmark::State& state) {
  std::vector<tk::Event> ev = SyncMountEvents();
  for (auto _ : state) {
    tk::bench::NullBuf buf;
    std::ostream out(&buf);
    tk::iolat::WriteSyncAnalysis a(tk::iolat::WriteSyncOptions{});
    for (const tk::Event& e : ev) benchmark::DoNotOptimize(a.OnEvent(e));
    benchmark::DoNotOptimize(a.Finish());
    tk::iolat::WriteText(a.report(), out);
  }
  state.SetItemsProcessed(state.iterations() * ev.size());
}
BENCHMARK(BM_IolatAnalysisOnly)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
