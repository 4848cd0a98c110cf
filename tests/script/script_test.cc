// tk script: the Event → fields mapping, the print-format text, the JSON writer, and the real
// binary on files and stdin (goldens under testdata/script/).
#include <sstream>
#include <string>

#include "analyses/script/event_fields.h"
#include "analyses/script/event_text.h"
#include "analyses/common/json.h"
#include "analyses/script/script.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/support/golden.h"

namespace tk::analyses::script {
namespace {

using common::AppendJsonNumberText;
using common::AppendJsonString;
using tk::testing::ExpectGolden;
using tk::testing::RunTk;
using tk::testing::SourcePath;

TEST(JsonWriter, EscapesAndReplacesInvalidUtf8) {
  std::string out;
  AppendJsonString("a\"b\\c\n\t\x01 é \xff z", &out);
  EXPECT_EQ(out, "\"a\\\"b\\\\c\\n\\t\\u0001 é \xef\xbf\xbd z\"");
  EXPECT_NO_THROW(nlohmann::json::parse(out));
  out.clear();
  AppendJsonString("\xe0\x80\x80\xed\xa0\x80\xf4\x90\x80\x80\xc3", &out);  // overlong, surrogate, >U+10FFFF, cut
  EXPECT_NO_THROW(nlohmann::json::parse(out));
  out.clear();
  AppendJsonNumberText("007", &out);
  out += ' ';
  AppendJsonNumberText("-0", &out);
  out += ' ';
  AppendJsonNumberText("0x1f", &out);
  EXPECT_EQ(out, "7 0 \"0x1f\"");
}

TEST(EventFields, SchedSwitchKeysAndCanonicalState) {
  Event e;
  SchedSwitch s;
  s.prev_comm = "Web Content";
  s.prev_pid = 3100;
  s.prev_prio = 120;
  s.prev_state = TaskState::FromLetters("R+");
  s.next_comm = "swapper/0";
  s.next_pid = 0;
  s.next_prio = 120;
  e.body = s;
  EventFields f;
  f.Fill(e);
  ASSERT_EQ(f.fields().size(), 7u);
  EXPECT_EQ(f.fields()[0].name, "prev_comm");
  EXPECT_EQ(f.fields()[3].name, "prev_state");
  EXPECT_EQ(f.fields()[3].s, "R+");
  EXPECT_EQ(f.fields()[6].name, "next_prio");
}

TEST(EventFields, BlockShapesFollowFormatFiles) {
  Event e;
  BlockRq b;
  b.stage = BlockStage::kIssue;
  b.major = 254;
  b.minor = 0;
  b.sector = 33851392;
  b.nr_sector = 512;
  b.bytes = 262144;
  b.ioprio = 16388;
  b.rwbs = Rwbs::Parse("DS");
  b.comm = "kworker/0:1H";
  e.body = b;
  EventFields f;
  f.Fill(e);
  std::string keys;
  for (const auto& v : f.fields()) keys += std::string(v.name) + " ";
  EXPECT_EQ(keys, "dev sector nr_sector bytes ioprio rwbs comm ");
  EXPECT_EQ(f.fields()[0].s, "254,0");
  std::string text;
  AppendEventText(e, &text);
  EXPECT_EQ(text, "254,0 DS 262144 () 33851392 + 512 0x2,0,4 [kworker/0:1H]");

  b.stage = BlockStage::kComplete;
  b.ioprio = -1;  // a 3.x source: no ioprio
  b.error = -5;
  e.body = b;
  f.Fill(e);
  keys.clear();
  for (const auto& v : f.fields()) keys += std::string(v.name) + " ";
  EXPECT_EQ(keys, "dev sector nr_sector error rwbs ");
  text.clear();
  AppendEventText(e, &text);
  EXPECT_EQ(text, "254,0 DS () 33851392 + 512 [-5]");

  b.stage = BlockStage::kBioRemap;
  b.old_major = 252;
  b.old_minor = 2;
  b.old_sector = 488;
  e.body = b;
  f.Fill(e);
  EXPECT_EQ(f.fields()[3].name, "old_dev");
  EXPECT_EQ(f.fields()[3].s, "252,2");
  text.clear();
  AppendEventText(e, &text);
  EXPECT_EQ(text, "254,0 DS 33851392 + 512 <- (252,2) 488");
}

TEST(ScriptSink, TextAndJsonShapes) {
  Event e;
  e.ts_ns = 707455929123;
  e.cpu = 0;
  e.pid = 8773;
  e.tid = 8773;
  e.comm = "perf";
  e.name = "sched:sched_wakeup";
  SchedWakeup w;
  w.comm = "migration/0";
  w.pid = 18;
  w.prio = 0;
  w.target_cpu = 0;
  e.body = w;
  std::ostringstream text, json, ns;
  ScriptSink t({}, text), j({true, 6, false}, json), n({false, 9, false}, ns);
  ASSERT_TRUE(t.OnEvent(e).ok());
  ASSERT_TRUE(j.OnEvent(e).ok());
  ASSERT_TRUE(n.OnEvent(e).ok());
  ASSERT_TRUE(t.Finish().ok() && j.Finish().ok() && n.Finish().ok());
  EXPECT_EQ(text.str(),
            "            perf  8773 [000]   707.455929: sched:sched_wakeup: comm=migration/0 pid=18 "
            "prio=0 target_cpu=000\n");
  EXPECT_EQ(ns.str().substr(0, 44), "            perf  8773 [000]   707.455929123");
  EXPECT_EQ(json.str(),
            "{\"ts_ns\":707455929123,\"cpu\":0,\"pid\":8773,\"tid\":8773,\"comm\":\"perf\","
            "\"event\":\"sched:sched_wakeup\",\"fields\":{\"comm\":\"migration/0\",\"pid\":18,"
            "\"prio\":0,\"target_cpu\":0}}\n");
}

TEST(ScriptSink, SampleWithStack) {
  Frame frames[2] = {{0xffffffff821f2c2b, "pv_native_safe_halt", "[kernel.kallsyms]"},
                     {0xf8090, "__GI___libc_open", "/usr/lib/x86_64-linux-gnu/libc.so.6"}};
  Event e;
  e.ts_ns = 267436250000;
  e.cpu = 0;
  e.pid = 0;
  e.tid = 0;
  e.comm = "swapper";
  e.name = "cpu-clock:pppH";
  e.period = 50000;
  e.has_period = true;
  frames[0].sym_offset = 0xb;
  e.stack = absl::MakeConstSpan(frames);
  e.callchain = true;
  e.body = Sample{};
  std::ostringstream text, json, one;
  ScriptSink t({}, text), j({true, 6, false}, json), o({}, one);
  ASSERT_TRUE(t.OnEvent(e).ok() && t.Finish().ok());
  ASSERT_TRUE(j.OnEvent(e).ok() && j.Finish().ok());
  // perf script: no comm padding before a callchain, "name: " then one line per frame.
  EXPECT_EQ(text.str(),
            "swapper     0 [000]   267.436250:      50000 cpu-clock:pppH: \n"
            "\tffffffff821f2c2b pv_native_safe_halt+0xb ([kernel.kallsyms])\n"
            "\t           f8090 __GI___libc_open (/usr/lib/x86_64-linux-gnu/libc.so.6)\n\n");
  // Without a recorded callchain: the sample IP on the line.
  e.callchain = false;
  e.stack = absl::MakeConstSpan(frames, 1);
  ASSERT_TRUE(o.OnEvent(e).ok() && o.Finish().ok());
  EXPECT_EQ(one.str(),
            "         swapper     0 [000]   267.436250:      50000 cpu-clock:pppH:  "
            "ffffffff821f2c2b pv_native_safe_halt+0xb ([kernel.kallsyms])\n");
  e.callchain = true;
  e.stack = absl::MakeConstSpan(frames);
  nlohmann::json parsed = nlohmann::json::parse(json.str());
  EXPECT_EQ(parsed["period"], 50000);
  EXPECT_EQ(parsed["stack"][0]["ip"], "ffffffff821f2c2b");
  EXPECT_EQ(parsed["stack"][1]["dso"], "/usr/lib/x86_64-linux-gnu/libc.so.6");
}

// Goldens through the real binary, once from a file and once from stdin.
struct GoldenCase {
  const char* input;
  std::vector<std::string> flags;
  const char* golden;
};

TEST(Golden, FilesAndStdin) {
  const GoldenCase cases[] = {
      {"testdata/script/mixed.ftrace.txt", {}, "testdata/script/mixed.ftrace.script.txt"},
      {"testdata/script/mixed.ftrace.txt", {"--json"}, "testdata/script/mixed.ftrace.json.txt"},
      {"testdata/script/mixed.ftrace.txt", {"--ns"}, "testdata/script/mixed.ftrace.ns.txt"},
      {"testdata/script/report.txt", {}, "testdata/script/report.script.txt"},
      {"testdata/script/report.txt", {"--json"}, "testdata/script/report.json.txt"},
  };
  for (const GoldenCase& c : cases) {
    std::vector<std::string> args = {"script"};
    args.insert(args.end(), c.flags.begin(), c.flags.end());
    args.push_back(SourcePath(c.input));
    testing::RunResult file = RunTk(args);
    EXPECT_EQ(file.exit_code, 0) << c.input << ": " << file.err;
    ExpectGolden(file.out, c.golden);
    args.back() = "-";
    testing::RunResult in = RunTk(args, SourcePath(c.input));
    EXPECT_EQ(in.exit_code, 0) << in.err;
    EXPECT_EQ(in.out, file.out) << c.input << " from stdin";
  }
}

TEST(Golden, JsonLinesAreValidJson) {
  testing::RunResult r = RunTk({"script", "--json", SourcePath("testdata/script/mixed.ftrace.txt")});
  ASSERT_EQ(r.exit_code, 0);
  std::istringstream in(r.out);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    nlohmann::json j = nlohmann::json::parse(line);
    EXPECT_TRUE(j.contains("ts_ns") && j.contains("cpu") && j.contains("pid") && j.contains("tid") &&
                j.contains("comm") && j.contains("event") && j.contains("fields"))
        << line;
    ++n;
  }
  EXPECT_GT(n, 40);
}

TEST(Golden, LostEventsAreShownAndBadInputFails) {
  testing::RunResult r = RunTk({"script", SourcePath("testdata/script/mixed.ftrace.txt")});
  EXPECT_NE(r.out.find("lost: kind=lost count=17"), std::string::npos);
  EXPECT_NE(r.err.find("17 events lost"), std::string::npos) << r.err;
  r = RunTk({"script", "/nonexistent/x"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("tk: "), std::string::npos);
}

// Where perf script printed a tracepoint, tk script's text of the same line (read back from
// that perf script output) is identical after the event name. Kernel 6.18 (recorded) and
// 3.8 (shared corpus; its sched_wakeup "success=1" is not kept: the event model cannot tell
// it from a format without the field, so only failed wakeups print it).
int CompareWithPerfScript(const std::string& path) {
  testing::RunResult r = RunTk({"script", path});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::istringstream ours(r.out);
  std::istringstream theirs(tk::testing::ReadFile(path));
  std::string a, b;
  int compared = 0;
  auto tail = [](std::string l) {
    size_t p = l.find(": ");  // after the time
    size_t q = l.find(": ", p + 2);  // after the event name
    l = q == std::string::npos ? std::string() : l.substr(q + 2);
    if (size_t s = l.find(" success=1"); s != std::string::npos) l.erase(s, 10);
    return l;
  };
  while (std::getline(ours, a) && std::getline(theirs, b)) {
    if (b.find("sched_process_exit") != std::string::npos) continue;  // group_dead not modelled
    EXPECT_EQ(tail(a), tail(b)) << b;
    if (++compared > 20000) break;
  }
  return compared;
}

TEST(PerfScriptText, SameFieldTextAsPerfScript618) {
  for (const char* rel : {"testdata/recorded/sched/sched.perf-script.txt",
                          "testdata/recorded/iolat/writesync.perf-script.txt"}) {
    ASSERT_TRUE(tk::testing::FileExists(SourcePath(rel))) << "committed fixture missing: " << rel;
    EXPECT_GT(CompareWithPerfScript(SourcePath(rel)), 1000) << rel;
  }
}

TEST(PerfScriptText, SameFieldTextAsPerfScript38) {
  auto shared = tk::testing::SharedDir();
  if (!shared) GTEST_SKIP() << "no /work/shared";
  EXPECT_EQ(CompareWithPerfScript(*shared + "/corpus/text/perf-script-dd-sync-mount-linux-3.8.txt"),
            32);
}

}  // namespace
}  // namespace tk::analyses::script
