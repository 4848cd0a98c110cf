// The parser: perf script text → tk::Event, with diagnostics.
#include "parsers/perf_script/perf_script_parser.h"

#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace tk::parsers::perf_script {
namespace {

// What a test checks of an event, copied out of the borrowed views.
struct Seen {
  EventKind kind;
  int64_t ts;
  int32_t cpu, pid, tid;
  std::string comm, name;
  uint64_t period;
  bool has_period;
  std::vector<std::string> frames;  // "symbol|dso|ip"
  uint64_t lost = 0;
};

class Recorder : public EventSink {
 public:
  explicit Recorder(EventMask m = EventMask::All()) : mask_(m) {}
  EventMask wants() const override { return mask_; }
  absl::Status OnEvent(const Event& e) override {
    Seen s{e.kind(), e.ts_ns, e.cpu, e.pid, e.tid, std::string(e.comm), std::string(e.name),
           e.period, e.has_period, {}};
    for (const Frame& f : e.stack) {
      s.frames.push_back(std::string(f.symbol) + "|" + std::string(f.dso) + "|" +
                         std::to_string(f.ip));
    }
    if (auto* l = std::get_if<Lost>(&e.body)) s.lost = l->count;
    seen.push_back(s);
    if (stop_after && seen.size() == stop_after) return absl::CancelledError("stop");
    return absl::OkStatus();
  }
  absl::Status Finish() override {
    finished = true;
    return absl::OkStatus();
  }
  std::vector<Seen> seen;
  bool finished = false;
  size_t stop_after = 0;

 private:
  EventMask mask_;
};

struct Result {
  absl::Status status;
  std::vector<Seen> seen;
  std::string err;
};

Result Parse(std::string_view text, size_t chunk = 0, EventMask mask = EventMask::All(),
             PerfScriptOptions ps = {}) {
  auto in = chunk ? Input::StreamFromString(text, chunk, "t.txt") : Input::FromString(text, "t.txt");
  std::ostringstream err;
  Diagnostics diag("t.txt", &err);
  Recorder rec(mask);
  Result r;
  r.status = NewPerfScriptParser(ParseOptions{}, ps)->Parse(*in, rec, diag);
  diag.PrintSummary();
  r.seen = rec.seen;
  r.err = err.str();
  return r;
}

constexpr std::string_view kTwo =
    "swapper     0 [000]   267.436250:      50000 cpu-clock:pppH:\n"
    "\tffffffff821f2c2b pv_native_safe_halt+0xb ([kernel.kallsyms])\n"
    "\tffffffff81e8c9e5 default_idle+0x5 ([kernel.kallsyms])\n"
    "\n"
    "V8 WorkerThread 24636/25607 [001]   267.436300: cpu-clock:pppH:\n"
    "\t           f8090 __GI___libc_open+0xd0 (/usr/lib/x86_64-linux-gnu/libc.so.6)\n"
    "\n";

TEST(Parser, EventsAndFrames) {
  Result r = Parse(kTwo);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ASSERT_EQ(r.seen.size(), 2u);
  const Seen& a = r.seen[0];
  EXPECT_EQ(a.kind, EventKind::kSample);
  EXPECT_EQ(a.comm, "swapper");
  EXPECT_EQ(a.tid, 0);
  EXPECT_EQ(a.pid, -1);
  EXPECT_EQ(a.cpu, 0);
  EXPECT_EQ(a.ts, 267436250000);
  EXPECT_EQ(a.name, "cpu-clock:pppH");
  EXPECT_EQ(a.period, 50000u);
  ASSERT_EQ(a.frames.size(), 2u);
  EXPECT_EQ(a.frames[0], "pv_native_safe_halt|[kernel.kallsyms]|" +
                             std::to_string(0xffffffff821f2c2bull));
  const Seen& b = r.seen[1];
  EXPECT_EQ(b.comm, "V8 WorkerThread");
  EXPECT_EQ(b.pid, 24636);
  EXPECT_EQ(b.tid, 25607);
  EXPECT_FALSE(b.has_period);
  ASSERT_EQ(b.frames.size(), 1u);
  EXPECT_EQ(b.frames[0], "__GI___libc_open|/usr/lib/x86_64-linux-gnu/libc.so.6|" +
                             std::to_string(0xf8090));
  EXPECT_EQ(r.err, "");
}

TEST(Parser, StreamedEqualsMapped) {
  Result m = Parse(kTwo);
  for (size_t chunk : {1, 5, 13}) {
    Result s = Parse(kTwo, chunk);
    ASSERT_EQ(s.seen.size(), m.seen.size());
    for (size_t i = 0; i < m.seen.size(); ++i) {
      EXPECT_EQ(s.seen[i].frames, m.seen[i].frames) << chunk;
      EXPECT_EQ(s.seen[i].comm, m.seen[i].comm) << chunk;
      EXPECT_EQ(s.seen[i].name, m.seen[i].name) << chunk;
    }
  }
}

TEST(Parser, CrlfLikeLf) {
  std::string crlf;
  for (char c : kTwo) {
    if (c == '\n') crlf += '\r';
    crlf += c;
  }
  Result a = Parse(kTwo), b = Parse(crlf);
  ASSERT_EQ(a.seen.size(), b.seen.size());
  for (size_t i = 0; i < a.seen.size(); ++i) EXPECT_EQ(a.seen[i].frames, b.seen[i].frames);
}

TEST(Parser, MissingBlankLinesAndInlineStacks) {
  Result r = Parse(
      "           false 39654 19115.489713:          1 cycles:u:  ffffffff9b201293 [unknown] "
      "([unknown])\n"
      "           false 39654 19115.489719:          1 cycles:      7fa68b1f2d84 _dl_start+0x4 "
      "(/usr/lib/ld-2.31.so)\n"
      "java 19983 cycles:\n"
      "ffffffff8103d0ca native_write_msr_safe ([kernel.kallsyms])\n"
      "java 19983 cycles:\n"
      "ffffffff810275f1 intel_pmu_enable_all ([kernel.kallsyms])\n"
      "\n");
  ASSERT_EQ(r.seen.size(), 4u);
  EXPECT_EQ(r.seen[0].frames, std::vector<std::string>{"[unknown]|[unknown]|" +
                                                      std::to_string(0xffffffff9b201293ull)});
  EXPECT_EQ(r.seen[1].name, "cycles");
  EXPECT_EQ(r.seen[1].frames.size(), 1u);
  EXPECT_EQ(r.seen[2].frames.size(), 1u);
  EXPECT_EQ(r.seen[3].frames.size(), 1u);
  EXPECT_EQ(r.err, "");
}

TEST(Parser, TracepointsGoThroughTheTextDecoder) {
  Result r = Parse(
      "dd 9615 [001] 3378.902848: sched:sched_switch: prev_comm=dd prev_pid=9615 prev_prio=120 "
      "prev_state=D ==> next_comm=swapper/1 next_pid=0 next_prio=120\n"
      "\tffffffff821f7f58 __schedule+0x618 ([kernel.kallsyms])\n"
      "\n"
      "dd 9615 [001] 3378.902900: foo:bar: x=1 y=2\n");
  ASSERT_EQ(r.seen.size(), 2u);
  EXPECT_EQ(r.seen[0].name, "sched:sched_switch");
  EXPECT_NE(r.seen[0].kind, EventKind::kSample);
  EXPECT_EQ(r.seen[0].frames.size(), 1u);
  EXPECT_EQ(r.seen[1].kind, EventKind::kGeneric);
  EXPECT_EQ(r.seen[1].name, "foo:bar");
}

TEST(Parser, SideBandAndLost) {
  Result r = Parse(
      "sh  9292   762.349658: PERF_RECORD_COMM exec: sh:9292/9292\n"
      "sh  9292   762.349698: PERF_RECORD_MMAP2 9292/9292: [0x5(0x1) @ 0x4 fe:00 1 0]: r-xp /x\n"
      "perf 1 [002] 762.35: PERF_RECORD_LOST lost 25\n"
      "CPU 3: 12 events lost\n"
      "sh  9292   762.351300: PERF_RECORD_FORK(9294:9294):(9292:9292)\n");
  ASSERT_EQ(r.seen.size(), 4u);
  EXPECT_EQ(r.seen[0].kind, EventKind::kComm);
  EXPECT_EQ(r.seen[1].kind, EventKind::kLost);
  EXPECT_EQ(r.seen[1].lost, 25u);
  EXPECT_EQ(r.seen[2].lost, 12u);
  EXPECT_EQ(r.seen[3].kind, EventKind::kFork);
  EXPECT_EQ(r.err, "tk: t.txt: line 3: perf lost 25 events (more may follow)\n") << r.err;
}

TEST(Parser, MalformedLinesReportedOnceWithSummary) {
  Result r = Parse(
      "inline-counter 26037  8801.193547:     250000 cpu-clock:uhH:\n"
      "\t          401b97 main+0x1f (./inline-counter)\n"
      "\t          THIS_IS_A_WEIRD_LINE\n"
      "\n"
      "\t          401b94 main+0x1c (./inline-counter)\n"
      "garbage\n"
      "\n");
  ASSERT_TRUE(r.status.ok());
  ASSERT_EQ(r.seen.size(), 1u);
  EXPECT_EQ(r.seen[0].frames.size(), 1u);
  EXPECT_EQ(r.err,
            "tk: t.txt: line 3: unrecognized stack line: \"\t          THIS_IS_A_WEIRD_LINE\"\n"
            "tk: t.txt: 3 malformed lines skipped (first at line 3)\n");
}

TEST(Parser, OutOfOrderCounted) {
  Result r = Parse(
      "a 1 [000] 2.000000: cycles:\n\n"
      "a 1 [000] 1.000000: cycles:\n\n"
      "a 1 [000] 3.000000: cycles:\n\n"
      "a 1 [000] 2.500000: cycles:\n\n");
  EXPECT_EQ(r.seen.size(), 4u);
  EXPECT_NE(r.err.find("line 3: event at 1.000000000 is earlier"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1);
}

// inferno's rule (perl drops it): the cut last stack is passed on, with a note.
TEST(Parser, TruncatedLastStackKept) {
  Result r = Parse("a 1 [000] 2.000000: cycles:\n\tffff foo ([k])\n\na 1 [000] 3.0: cycles:\n"
                   "\tffff bar ([k])\n");
  ASSERT_EQ(r.seen.size(), 2u);
  EXPECT_EQ(r.seen[1].frames.size(), 1u);
  EXPECT_NE(r.err.find("line 4: the last event's stack is not followed by a blank line (input "
                       "cut short?); kept as it is"),
            std::string::npos);
  // A last event with no stack lines is whole, unless the text's stacks end with blank lines:
  // then it was cut before its stack and is kept as a recorded (empty) stack.
  Result s = Parse("a 1 [000] 2.000000: cycles:\n");
  EXPECT_EQ(s.seen.size(), 1u);
  EXPECT_EQ(s.err, "");
  Result h = Parse("a 1 [000] 2.000000: cycles:\n\tffff foo ([k])\n\na 1 [000] 3.0: cycles:\n");
  ASSERT_EQ(h.seen.size(), 2u);
  EXPECT_NE(h.err.find("line 4: the last event's stack is not followed"), std::string::npos);
}

TEST(Parser, FirstLineOffsetsMessages) {
  PerfScriptOptions ps;
  ps.first_line = 1001;
  Result r = Parse("stray\na 1 [000] 2.000000: cycles:\n", 0, EventMask::All(), ps);
  EXPECT_EQ(r.err, "tk: t.txt: line 1001: line outside an event: \"stray\"\n");
}

// Text in which no line is an event is refused in one line (no per-line reports): not a trace,
// or already folded stacks. Stray lines before the first event are reported once one is seen.
TEST(Parser, NoEventLineIsUnknownFormat) {
  Result r = Parse("22 1 8:1 / / rw - ext4 /dev/sda1 rw\nmore\n");
  EXPECT_FALSE(r.status.ok());
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(std::string(r.status.message()),
            "t.txt: line 1: unknown input format: no line is a perf script event (not perf.data, "
            "trace.dat, perf script or ftrace text); first line \"22 1 8:1 / / rw - ext4 "
            "/dev/sda1 rw\"");
  Result f = Parse("main;foo;bar 12\nmain;foo 3\n");
  EXPECT_NE(std::string(f.status.message()).find("line 1: already folded stacks"),
            std::string::npos);
  Result late = Parse("x\ny\na 1 [000] 2.000000: cycles:\n");
  EXPECT_TRUE(late.status.ok());
  EXPECT_EQ(late.err,
            "tk: t.txt: line 1: line outside an event: \"x\"\n"
            "tk: t.txt: 2 malformed lines skipped (first at line 1)\n");
  Result comments = Parse("# perf script --header of an empty recording\n");
  EXPECT_TRUE(comments.status.ok());
}

TEST(Parser, MaskWithoutStacksSkipsFrames) {
  Result r = Parse(kTwo, 0, EventMask().Add(EventKind::kSample));
  ASSERT_EQ(r.seen.size(), 2u);
  EXPECT_TRUE(r.seen[0].frames.empty());
  Result none = Parse(kTwo, 0, EventMask().Add(EventKind::kSchedSwitch));
  EXPECT_TRUE(none.seen.empty());
}

// Keeps every event's views (not copies) to check them after the parse.
class ViewKeeper : public EventSink {
 public:
  explicit ViewKeeper(EventMask m) : mask_(m) {}
  EventMask wants() const override { return mask_; }
  absl::Status OnEvent(const Event& e) override {
    stable.push_back(e.stable_views);
    comms.push_back(e.comm);
    for (const Frame& f : e.stack) frames.push_back(f);
    return absl::OkStatus();
  }
  std::vector<bool> stable;
  std::vector<std::string_view> comms;
  std::vector<Frame> frames;

 private:
  EventMask mask_;
};

// Event::stable_views for text: a sink that wants stacks gets interned comms and frame
// names, valid until the parser goes (the input's buffer is gone by then) and equal names
// as equal views; whether the input is mapped or streamed.
TEST(Parser, StacksWantedGiveStableViews) {
  const std::string text = std::string(kTwo) + std::string(kTwo);
  for (size_t chunk : {size_t{0}, size_t{7}}) {
    ViewKeeper keep(EventMask::All());
    auto parser = NewPerfScriptParser(ParseOptions{});
    {
      std::string copy = text;  // freed before the views are read
      auto in = chunk ? Input::StreamFromString(copy, chunk, "t.txt")
                      : Input::FromString(copy, "t.txt");
      std::ostringstream err;
      Diagnostics diag("t.txt", &err);
      ASSERT_TRUE(parser->Parse(*in, keep, diag).ok());
      copy.assign(copy.size(), 'x');
    }
    ASSERT_EQ(keep.stable.size(), 4u);
    for (bool s : keep.stable) EXPECT_TRUE(s);
    EXPECT_EQ(keep.comms[0], "swapper");
    EXPECT_EQ(keep.comms[1], "V8 WorkerThread");
    EXPECT_EQ(keep.comms[0].data(), keep.comms[2].data());
    ASSERT_EQ(keep.frames.size(), 6u);
    EXPECT_EQ(keep.frames[0].symbol, "pv_native_safe_halt");
    EXPECT_EQ(keep.frames[2].dso, "/usr/lib/x86_64-linux-gnu/libc.so.6");
    for (size_t i = 0; i < 3; ++i) {
      EXPECT_EQ(keep.frames[i].symbol.data(), keep.frames[i + 3].symbol.data());
      EXPECT_EQ(keep.frames[i].dso.data(), keep.frames[i + 3].dso.data());
      EXPECT_EQ(keep.frames[i].ip, keep.frames[i + 3].ip);
    }
    EXPECT_EQ(keep.frames[0].dso.data(), keep.frames[1].dso.data());
  }
  // No stacks wanted: nothing interned, the views are the line's.
  ViewKeeper plain(EventMask().Add(EventKind::kSample));
  auto in = Input::FromString(text, "t.txt");
  std::ostringstream err;
  Diagnostics diag("t.txt", &err);
  ASSERT_TRUE(NewPerfScriptParser(ParseOptions{})->Parse(*in, plain, diag).ok());
  ASSERT_EQ(plain.stable.size(), 4u);
  EXPECT_FALSE(plain.stable[0]);
  EXPECT_EQ(plain.comms[0].data(), text.data());
}

TEST(Parser, SinkErrorStopsTheParse) {
  auto in = Input::FromString(kTwo, "t.txt");
  std::ostringstream err;
  Diagnostics diag("t.txt", &err);
  Recorder rec;
  rec.stop_after = 1;
  absl::Status st = NewPerfScriptParser(ParseOptions{})->Parse(*in, rec, diag);
  EXPECT_TRUE(absl::IsCancelled(st));
  EXPECT_EQ(rec.seen.size(), 1u);
  EXPECT_FALSE(rec.finished);
}

TEST(Parser, EmptyInput) {
  Result r = Parse("");
  EXPECT_TRUE(r.status.ok());
  EXPECT_TRUE(r.seen.empty());
}

TEST(Parser, HugeLineStreamed) {
  std::string sym(200000, 'x');
  std::string text = "a 1 [000] 2.000000: cycles:\n\tffff " + sym + " ([k])\n\n";
  Result r = Parse(text, 4096);
  ASSERT_EQ(r.seen.size(), 1u);
  ASSERT_EQ(r.seen[0].frames.size(), 1u);
  EXPECT_EQ(r.seen[0].frames[0], sym + "|[k]|65535");
}

}  // namespace
}  // namespace tk::parsers::perf_script
