// The one pipeline (cli/common.h RunPipeline) runs the command's analysis and the counter of
// its key events as two sinks of one pass (core/sink.h Fanout), and Fanout itself: each event
// to every sink that wants its kind, the recording's machine to all, the first error stops.
#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/common.h"
#include "core/sink.h"
#include "gtest/gtest.h"
#include "tests/support/golden.h"

namespace tk {
namespace {

class Recorder final : public EventSink {
 public:
  explicit Recorder(EventMask m, absl::Status fail_with = absl::OkStatus())
      : mask_(m), fail_with_(std::move(fail_with)) {}
  EventMask wants() const override { return mask_; }
  void OnTraceInfo(const TraceInfo& info) override { arch = std::string(info.arch); }
  absl::Status OnEvent(const Event& e) override {
    kinds.push_back(e.kind());
    return fail_with_;
  }
  absl::Status Finish() override {
    ++finished;
    return absl::OkStatus();
  }
  std::vector<EventKind> kinds;
  std::string arch;
  int finished = 0;

 private:
  EventMask mask_;
  absl::Status fail_with_;
};

Event Of(Body b) {
  Event e;
  e.body = b;
  return e;
}

TEST(Fanout, EachSinkGetsItsKindsAndAllFinish) {
  Recorder sched(EventMask().Add(EventKind::kSchedSwitch));
  Recorder block(EventMask().Add(EventKind::kBlockRq).Add(EventKind::kSchedSwitch));
  Fanout both({&sched, &block});
  EXPECT_TRUE(both.wants().Has(EventKind::kBlockRq));
  EXPECT_FALSE(both.wants().Has(EventKind::kSample));
  both.OnTraceInfo(TraceInfo{"aarch64"});
  ASSERT_TRUE(both.OnEvent(Of(SchedSwitch{})).ok());
  ASSERT_TRUE(both.OnEvent(Of(BlockRq{})).ok());
  ASSERT_TRUE(both.Finish().ok());
  EXPECT_EQ(sched.kinds, std::vector<EventKind>{EventKind::kSchedSwitch});
  EXPECT_EQ(block.kinds, (std::vector<EventKind>{EventKind::kSchedSwitch, EventKind::kBlockRq}));
  EXPECT_EQ(sched.arch, "aarch64");
  EXPECT_EQ(block.arch, "aarch64");
  EXPECT_EQ(sched.finished + block.finished, 2);
}

TEST(Fanout, FirstErrorStops) {
  Recorder failing(EventMask().Add(EventKind::kSample), absl::CancelledError("out"));
  Recorder next(EventMask().Add(EventKind::kSample));
  Fanout both({&failing, &next});
  EXPECT_TRUE(absl::IsCancelled(both.OnEvent(Of(Sample{}))));
  EXPECT_TRUE(next.kinds.empty());
}

// The analysis gets the recording's machine through the pipeline (the forwarder that counted
// key events before the Fanout did not pass it on, so tk syscalls never saw the recorded
// arch), and an input without its key events is a data error, with it ok.
TEST(Pipeline, AnalysisAndKeyCounterInOnePass) {
  const std::string f = testing::SourcePath("testdata/recorded/sched/sched.perf.data");
  ParseOptions opts;
  opts.use_buildid_cache = opts.use_host_kallsyms = false;
  Recorder sched(EventMask().Add(EventKind::kSchedSwitch).Add(EventKind::kComm));
  EXPECT_EQ(cli::RunPipeline(f, opts, sched), cli::kExitOk);
  EXPECT_EQ(sched.arch, "x86_64");
  EXPECT_EQ(sched.finished, 1);
  EXPECT_GT(sched.kinds.size(), 100u);
  Recorder pages(EventMask().Add(EventKind::kPage).Add(EventKind::kComm));
  EXPECT_EQ(cli::RunPipeline(f, opts, pages), cli::kExitData);  // no kmem events
  EXPECT_FALSE(pages.kinds.empty());                            // the COMM records came
}

// tk sql runs five analyses (sched delays, iolat's requests, irq, syscalls, off-CPU) over one
// pass: they are fed beside the loader by a Fanout (analyses/sql/sql_sink.h). Standard input
// can be read once, so the same rows from stdin as from the file show that one read fed them
// all. (tk irq freq without --min/--max is the one command that reads its input twice: its
// second pass needs the ranges the first found; it spools stdin for that.)
TEST(Pipeline, SqlFeedsItsAnalysesFromOnePass) {
  const std::string f = testing::SourcePath("testdata/lttng/recorded/lttng.trace.dat");
  const std::vector<std::string> args = {
      "sql", "", "-e",
      "SELECT (SELECT count(*) FROM sched_delay), (SELECT count(*) FROM irq), "
      "(SELECT count(*) FROM syscalls), (SELECT count(*) FROM off_cpu_intervals), "
      "(SELECT count(*) FROM events)"};
  std::vector<std::string> from_file = args, from_stdin = args;
  from_file[1] = f;
  from_stdin[1] = "-";
  testing::RunResult file = testing::RunTk(from_file);
  testing::RunResult in = testing::RunTk(from_stdin, f);
  ASSERT_EQ(file.exit_code, 0) << file.err;
  ASSERT_EQ(in.exit_code, 0) << in.err;
  EXPECT_EQ(in.out, file.out);
  // Every analysis found something in this recording.
  const std::string row = file.out.substr(file.out.find('\n') + 1);
  EXPECT_EQ(row.find("|0|"), std::string::npos) << row;
  EXPECT_FALSE(row.starts_with("0|")) << row;
}

// Runs a command in this process with its stdout captured and `stdin_path` (when given) as
// standard input; returns the exit code and how many format detections the run made.
struct InProcess {
  int rc = -1;
  uint64_t detections = 0;
  std::string out;
};
InProcess RunHere(int (*run)(int, char**), std::vector<std::string> args,
                  const std::string& stdin_path = "") {
  if (!stdin_path.empty()) EXPECT_NE(std::freopen(stdin_path.c_str(), "rb", stdin), nullptr);
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  std::ostringstream os;
  std::streambuf* saved = std::cout.rdbuf(os.rdbuf());
  const uint64_t before = FormatDetections();
  InProcess r;
  r.rc = run(static_cast<int>(argv.size()), argv.data());
  r.detections = FormatDetections() - before;
  std::cout.rdbuf(saved);
  r.out = std::move(os).str();
  return r;
}

// tk flamegraph on a trace (folded stacks or a trace?) and a percent --time (the perf.data
// header's sample span) look at the input before the pipeline; the pipeline then parses that
// same opening with the registry's one answer: one detection per run, from a file and from
// stdin (read once: tk flamegraph no longer spools it for a second tk fold opening).
TEST(Pipeline, InputLookedAtBeforeThePipelineIsDetectedOnce) {
  const std::string f = testing::SourcePath("testdata/perf_data/a.data");
  const std::vector<std::string> sym = {"--no-buildid-cache", "--no-host-kallsyms"};
  struct Case {
    int (*run)(int, char**);
    std::vector<std::string> args;
  };
  const Case cases[] = {
      {cli::RunFlamegraph, {"tk flamegraph", "--time", "10%-60%"}},
      {cli::RunFlamegraph, {"tk flamegraph"}},
      {cli::RunScript, {"tk script", "--time", "10%/2"}},
      {cli::RunFold, {"tk fold", "--time", "0%-50%"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(::testing::PrintToString(c.args));
    std::vector<std::string> args = c.args;
    args.insert(args.end(), sym.begin(), sym.end());
    std::vector<std::string> from_file = args, from_stdin = args;
    from_file.push_back(f);
    from_stdin.push_back("-");
    InProcess file = RunHere(c.run, from_file);
    InProcess in = RunHere(c.run, from_stdin, f);
    ASSERT_EQ(file.rc, 0);
    ASSERT_EQ(in.rc, 0);
    EXPECT_EQ(file.detections, 1u);
    EXPECT_EQ(in.detections, 1u);
    EXPECT_FALSE(file.out.empty());
    EXPECT_EQ(in.out, file.out);
  }
}

}  // namespace
}  // namespace tk
