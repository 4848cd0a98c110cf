// The ftrace text reader: line splitting (line_parser) and the whole parser over real lines of
// /sys/kernel/tracing/trace (kernel 6.18, every column option) and trace-cmd report 3.1.6.
#include <sstream>
#include <string>
#include <vector>

#include "core/input.h"
#include "gtest/gtest.h"
#include "parsers/ftrace_text/ftrace_text_parser.h"
#include "parsers/ftrace_text/line_parser.h"
#include "tests/support/golden.h"

namespace tk::parsers::ftrace_text {
namespace {

TEST(EventLine, TraceFileDefaultColumns) {
  auto ev = ParseEventLine(
      "            bash-8912    [000] d..2.   715.924552: sched_switch: prev_comm=bash "
      "prev_pid=8912 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120");
  ASSERT_TRUE(ev);
  EXPECT_EQ(ev->comm, "bash");
  EXPECT_EQ(ev->tid, 8912);
  EXPECT_EQ(ev->tgid, -1);
  EXPECT_EQ(ev->cpu, 0);
  EXPECT_EQ(ev->flags, "d..2.");
  EXPECT_EQ(ev->ts_ns, 715924552000);
  EXPECT_EQ(ev->name, "sched_switch");
  EXPECT_EQ(ev->text.substr(0, 14), "prev_comm=bash");
}

TEST(EventLine, TgidAndNoIrqColumns) {
  auto ev = ParseEventLine(
      " record-sched.sh-17589   (  17589) [000] .....   987.332282: sched_process_fork: "
      "comm=record-sched.sh pid=17589 child_comm=record-sched.sh child_pid=17713");
  ASSERT_TRUE(ev);
  EXPECT_EQ(ev->comm, "record-sched.sh");
  EXPECT_EQ(ev->tid, 17589);
  EXPECT_EQ(ev->tgid, 17589);
  ev = ParseEventLine(
      "            bash-8912    (-------) [000] ...1.   715.919128: sched_wake_idle_without_ipi: "
      "cpu=1");
  ASSERT_TRUE(ev);
  EXPECT_EQ(ev->tgid, -1);
  EXPECT_EQ(ev->text, "cpu=1");
  ev = ParseEventLine("            bash-8912    [001]    715.919128: sched_wake_idle_without_ipi: cpu=1");
  ASSERT_TRUE(ev);
  EXPECT_EQ(ev->flags, "");
  EXPECT_EQ(ev->cpu, 1);
  ev = ParseEventLine("            bash-8912    (   8912) [000]    715.919128: x: y=1");
  ASSERT_TRUE(ev);
  EXPECT_EQ(ev->tgid, 8912);
}

TEST(EventLine, CommsWithSpacesDashesBrackets) {
  auto ev = ParseEventLine(
      "     Web Content-3100  [001] d..3  1234.000001: sched_switch: prev_comm=Web Content");
  ASSERT_TRUE(ev);
  EXPECT_EQ(ev->comm, "Web Content");
  EXPECT_EQ(ev->tid, 3100);
  EXPECT_EQ(ev->flags, "d..3");
  ev = ParseEventLine("          <idle>-0       [001] dNh2.   715.925448: sched_wakeup: comm=sh");
  ASSERT_TRUE(ev);
  EXPECT_EQ(ev->comm, "<idle>");
  EXPECT_EQ(ev->tid, 0);
  ev = ParseEventLine("           <...>-3979  [007]   217.975284: sched_stat_runtime:   comm=T");
  ASSERT_TRUE(ev);
  EXPECT_EQ(ev->comm, "<...>");
  EXPECT_EQ(ev->text, "comm=T");
  ev = ParseEventLine("  kworker/u8:1-ev-33    [001]   910.167783: sched_switch:         a:1 [1] R ==> b:2 [1]");
  ASSERT_TRUE(ev);
  EXPECT_EQ(ev->comm, "kworker/u8:1-ev");
  EXPECT_EQ(ev->tid, 33);
  EXPECT_EQ(ev->text, "a:1 [1] R ==> b:2 [1]");
  ev = ParseEventLine("  a [x] b-5 [000] 1.5: block_plug: [a [x] b]");
  ASSERT_TRUE(ev);
  EXPECT_EQ(ev->comm, "a [x] b");
  EXPECT_EQ(ev->text, "[a [x] b]");
}

TEST(EventLine, TraceCmdReportLatencyFormat) {
  // trace-cmd report -l: comm cut to 8 characters, the CPU number runs into the flags.
  auto ev = ParseEventLine(
      "record-i-14172   0dNs4.   910.166639: sched_wakeup:         rcu_preempt:15 [120] CPU:000");
  ASSERT_TRUE(ev);
  EXPECT_EQ(ev->comm, "record-i");
  EXPECT_EQ(ev->tid, 14172);
  EXPECT_EQ(ev->cpu, 0);
  EXPECT_EQ(ev->flags, "dNs4.");
  EXPECT_EQ(ev->name, "sched_wakeup");
  ev = ParseEventLine("rcu_pree-15     12d..2.   910.166689: sched_switch: a:1 [1] W ==> b:2 [1]");
  ASSERT_TRUE(ev);
  EXPECT_EQ(ev->cpu, 12);
  EXPECT_FALSE(ParseEventLine("rcu_pree-15      d..2.   910.166689: sched_switch: x"));
}

TEST(EventLine, FunctionTracerAndNanoseconds) {
  auto ev = ParseEventLine("firefox-bin-4072 [000] 946.722298: mutex_unlock <-unix_stream_recvmsg");
  ASSERT_TRUE(ev);
  EXPECT_EQ(ev->comm, "firefox-bin");
  EXPECT_EQ(ev->name, "");
  EXPECT_EQ(ev->text, "mutex_unlock <-unix_stream_recvmsg");
  ev = ParseEventLine("  dd-1 [000] 12.123456789: block_plug: [dd]");
  ASSERT_TRUE(ev);
  EXPECT_EQ(ev->ts_ns, 12123456789);
}

TEST(EventLine, Rejects) {
  for (const char* l : {"", "garbage", "cpus=2", "CPU:0 [LOST 3 EVENTS]", "  dd-1 [000] x: a: b",
                        "  dd [000] 1.0: a: b", "  dd-x [000] 1.0: a: b", "  dd-1 [0a0] 1.0: a: b",
                        "  dd-1 000] 1.0: a: b", "  dd-1 (12 [000] 1.0: a: b", "1.0: a: b",
                        "  dd-1 [000] 1.0:", "  dd-1 (abc) [000] 1.0: a: b"}) {
    EXPECT_FALSE(ParseEventLine(l)) << l;
  }
}

TEST(LostLine, AllForms) {
  auto l = ParseLostLine("CPU:0 [LOST 204 EVENTS]");
  ASSERT_TRUE(l);
  EXPECT_EQ(l->cpu, 0);
  EXPECT_EQ(l->count, 204u);
  l = ParseLostLine("CPU:4 [LOST EVENTS]");
  ASSERT_TRUE(l);
  EXPECT_EQ(l->count, 0u);
  l = ParseLostLine("CPU:7 [204600 EVENTS DROPPED]");
  ASSERT_TRUE(l);
  EXPECT_EQ(l->cpu, 7);
  EXPECT_EQ(l->count, 204600u);
  EXPECT_TRUE(ParseLostLine("CPU:1 [EVENTS DROPPED]"));
  EXPECT_FALSE(ParseLostLine("CPU:1 [LOST x EVENTS]"));
  EXPECT_FALSE(ParseLostLine("CPU:x [LOST 1 EVENTS]"));
  EXPECT_FALSE(ParseLostLine("CPU:1 [FOO]"));
}

TEST(HeaderLine, Forms) {
  auto h = ParseHeaderLine("# entries-in-buffer/entries-written: 1000/1500   #P:2");
  ASSERT_TRUE(h);
  EXPECT_EQ(h->kind, HeaderLine::Kind::kEntries);
  EXPECT_EQ(h->a, 1000u);
  EXPECT_EQ(h->b, 1500u);
  EXPECT_EQ(ParseHeaderLine("cpus=2")->a, 2u);
  EXPECT_EQ(ParseHeaderLine("version = 6")->kind, HeaderLine::Kind::kVersion);
  EXPECT_EQ(ParseHeaderLine("CPU 3 is empty")->a, 3u);
  EXPECT_EQ(ParseHeaderLine("# tracer: nop")->kind, HeaderLine::Kind::kComment);
  EXPECT_EQ(ParseHeaderLine("##### CPU 1 buffer started ####")->kind,
            HeaderLine::Kind::kBufferStarted);
  EXPECT_FALSE(ParseHeaderLine("cpus=x"));
  EXPECT_FALSE(ParseHeaderLine("hello"));
}

// Collects what the parser pushes.
class Collect final : public EventSink {
 public:
  explicit Collect(EventMask m = EventMask::All()) : mask_(m) {}
  EventMask wants() const override { return mask_; }
  absl::Status OnEvent(const Event& e) override {
    kinds.push_back(e.kind());
    names.emplace_back(e.name);
    ts.push_back(e.ts_ns);
    if (const auto* l = std::get_if<Lost>(&e.body)) lost += l->count;
    if (const auto* s = std::get_if<SchedSwitch>(&e.body)) prev_comms.emplace_back(s->prev_comm);
    return absl::OkStatus();
  }
  absl::Status Finish() override {
    finished = true;
    return absl::OkStatus();
  }
  EventMask mask_;
  std::vector<EventKind> kinds;
  std::vector<std::string> names, prev_comms;
  std::vector<int64_t> ts;
  uint64_t lost = 0;
  bool finished = false;
};

constexpr char kTrace[] =
    "# tracer: nop\n"
    "#\n"
    "# entries-in-buffer/entries-written: 6/9   #P:2\n"
    "#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
    "#              | |         |   |||||     |         |\n"
    "            bash-8912    [000] d..2.   715.924552: sched_switch: prev_comm=bash prev_pid=8912 "
    "prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120\n"
    "CPU:1 [LOST 3 EVENTS]\n"
    "          <idle>-0       [001] dNh2.   715.925448: sched_wakeup: comm=sh pid=8915 prio=120 "
    "target_cpu=001\n"
    "    kworker/0:1H-44      [000] .....   715.926220: block_rq_issue: 254,0 DS 262144 () "
    "33851392 + 512 be,0,4 [kworker/0:1H]\n"
    "this line is garbage\n"
    "              dd-1       [000] .....   715.926000: sched_switch: prev_comm=broken\n"
    "              dd-1       [000] .....   715.926300: cpu_idle: state=1 cpu_id=0\n"
    "              dd-1       [000] .....   715.926400: mutex_unlock <-foo\r\n";

TEST(Parser, WholeTraceFile) {
  for (size_t chunk : {size_t{0}, size_t{1}, size_t{7}, size_t{64}}) {
    std::unique_ptr<Input> in = chunk ? Input::StreamFromString(kTrace, chunk)
                                      : Input::FromString(kTrace);
    std::ostringstream err;
    Diagnostics diag(in->name(), &err);
    Collect sink;
    ASSERT_TRUE(NewFtraceTextParser({})->Parse(*in, sink, diag).ok());
    EXPECT_TRUE(sink.finished);
    ASSERT_EQ(sink.names.size(), 7u) << chunk;
    EXPECT_EQ(sink.kinds[0], EventKind::kLost);  // 9 written, 6 in buffer: 3 overwritten
    EXPECT_EQ(sink.names[1], "sched:sched_switch");
    EXPECT_EQ(sink.kinds[2], EventKind::kLost);
    EXPECT_EQ(sink.lost, 6u);
    EXPECT_EQ(sink.names[3], "sched:sched_wakeup");
    EXPECT_EQ(sink.names[4], "block:block_rq_issue");
    EXPECT_EQ(sink.names[5], "power:cpu_idle");
    EXPECT_EQ(sink.kinds[5], EventKind::kGeneric);
    EXPECT_EQ(sink.names[6], "ftrace:function");
    EXPECT_EQ(diag.count(Stat::kMalformedLines), 1u);
    EXPECT_EQ(diag.count(Stat::kUndecodableEventTexts), 1u);
    // 715.926000 < 715.926220: one line out of order.
    EXPECT_EQ(diag.count(Stat::kOutOfOrder), 1u);
    EXPECT_NE(err.str().find("line 10: not an ftrace event line"), std::string::npos) << err.str();
  }
}

TEST(Parser, NothingButGarbageIsAnError) {
  std::unique_ptr<Input> in = Input::FromString("# tracer: nop\nnot a line\nnor this\n", "t.txt");
  std::ostringstream err;
  Diagnostics diag(in->name(), &err);
  Collect sink;
  absl::Status st = NewFtraceTextParser({})->Parse(*in, sink, diag);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(std::string(st.message()).find("t.txt: line 2: unknown input format: no line is an "
                                           "ftrace event"),
            std::string::npos)
      << st.message();
  EXPECT_EQ(err.str(), "");  // one line: the unreadable lines are not reported one by one
  // A header-only trace (nothing recorded) is fine.
  in = Input::FromString("# tracer: nop\n#\n# entries-in-buffer/entries-written: 0/0   #P:2\n");
  Collect empty;
  EXPECT_TRUE(NewFtraceTextParser({})->Parse(*in, empty, diag).ok());
  EXPECT_TRUE(empty.names.empty());
}

TEST(Parser, MaskSkipsDecoding) {
  std::unique_ptr<Input> in = Input::FromString(kTrace);
  std::ostringstream err;
  Diagnostics diag(in->name(), &err);
  Collect sink(EventMask().Add(EventKind::kSchedWakeup));
  ASSERT_TRUE(NewFtraceTextParser({})->Parse(*in, sink, diag).ok());
  ASSERT_EQ(sink.names.size(), 1u);
  EXPECT_EQ(sink.names[0], "sched:sched_wakeup");
  // The broken sched_switch was not wanted, so not decoded, so not counted.
  EXPECT_EQ(diag.count(Stat::kUndecodableEventTexts), 0u);
}

TEST(Parser, TraceCmdReport) {
  constexpr char kReport[] =
      "version = 6\n"
      "cpus=2\n"
      "CPU 1 is empty\n"
      " record-iolat.sh-14172 [000]   910.166684: sched_switch:         record-iolat.sh:14172 "
      "[120] R ==> rcu_preempt:15 [120]\n"
      "     rcu_preempt-15    [000]   910.166689: sched_switch:         rcu_preempt:15 [120] W "
      "==> Web Content:3100 [120]\n"
      "CPU:0 [12 EVENTS DROPPED]\n"
      "              dd-14380 [001]   910.167743: block_rq_issue:       7,0 RM 4096 () 80 + 8 "
      "0x2,0,4 [dd]\n";
  std::unique_ptr<Input> in = Input::FromString(kReport);
  std::ostringstream err;
  Diagnostics diag(in->name(), &err);
  Collect sink;
  ASSERT_TRUE(NewFtraceTextParser({})->Parse(*in, sink, diag).ok());
  ASSERT_EQ(sink.names.size(), 4u);
  EXPECT_EQ(sink.prev_comms, (std::vector<std::string>{"record-iolat.sh", "rcu_preempt"}));
  EXPECT_EQ(sink.lost, 12u);
  EXPECT_EQ(diag.total_malformed(), 0u) << err.str();
}

// Every line of the recorded fixtures (tracefs text in three column layouts, trace-cmd report
// and report -R) is an event or a header: nothing malformed, nothing undecodable.
TEST(Parser, RecordedFixturesParseCleanly) {
  for (const char* rel :
       {"testdata/recorded/sched/sched.ftrace.txt", "testdata/recorded/sched/sched.ftrace-tgid.txt",
        "testdata/recorded/sched/sched.ftrace-noirq.txt", "testdata/recorded/sched/sched.report.txt",
        "testdata/recorded/sched/sched.report-raw.txt",
        "testdata/recorded/iolat/writesync.report.txt",
        "testdata/recorded/iolat/writesync.ftrace.txt"}) {
    std::string path = tk::testing::SourcePath(rel);
    if (!tk::testing::FileExists(path)) continue;
    auto in = Input::Open(path);
    ASSERT_TRUE(in.ok());
    std::ostringstream err;
    Diagnostics diag((*in)->name(), &err);
    Collect sink;
    ASSERT_TRUE(NewFtraceTextParser({})->Parse(**in, sink, diag).ok()) << rel;
    EXPECT_EQ(diag.total_malformed(), 0u) << rel << ": " << err.str();
    EXPECT_EQ(diag.count(Stat::kOutOfOrder), 0u) << rel;
    EXPECT_GT(sink.names.size(), 1000u) << rel;
    for (size_t i = 0; i < sink.kinds.size(); ++i) {
      if (sink.names[i] == "sched:sched_switch" || sink.names[i] == "block:block_rq_issue") {
        ASSERT_NE(sink.kinds[i], EventKind::kGeneric) << rel;
      }
    }
  }
}

}  // namespace
}  // namespace tk::parsers::ftrace_text
