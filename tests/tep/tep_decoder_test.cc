// TepDecoder and tracing-data loading, on real format files copied from this machine's tracefs
// (kernel 6.18, testdata/tep/*.format) plus 3.10 and 4.9 sched_switch formats, with payloads
// synthesized field by field from the formats' own offsets (tests/tep/format_payload.h).
// SchedFastDecoder's fixed layouts: sched_fast_decoder_test.cc.
#include "parsers/tep/tep_decoder.h"

#include <cstring>
#include <string>

#include "gtest/gtest.h"
#include "parsers/tep/fields.h"
#include "parsers/tep/prev_state.h"
#include "parsers/tep/state_layout.h"
#include "parsers/tep/tracing_data.h"
#include "tests/support/golden.h"
#include "tests/tep/format_payload.h"

extern "C" {
#include <traceevent/event-parse.h>
}

namespace tk::parsers::tep {
namespace {

TEST(TepDecoder, SchedSwitch618) {
  auto ev = Load({{"sched", "sched_switch.format"}});
  TepDecoder dec(ev.get());
  struct Case {
    uint64_t state;
    const char* letters;
  } cases[] = {{0, "R"}, {0x100, "R+"}, {1, "S"}, {2, "D"}, {4, "T"}, {8, "t"},
               {0x10, "X"}, {0x20, "Z"}, {0x40, "P"}, {0x80, "I"}, {0x3, "S|D"}};
  for (const Case& c : cases) {
    Payload p(*ev, 372);
    p.PutStr("prev_comm", "kworker/0:1 x").Put("prev_pid", 17).Put("prev_prio", 120);
    p.Put("prev_state", c.state).PutStr("next_comm", "swapper/0").Put("next_pid", 0);
    p.Put("next_prio", 120);
    Event e;
    ASSERT_TRUE(dec.Decode(p.raw(), e));
    EXPECT_EQ(e.name, "sched:sched_switch");
    EXPECT_EQ(e.tid, 4242);
    EXPECT_EQ(e.pid, -1);
    const auto& sw = std::get<SchedSwitch>(e.body);
    EXPECT_EQ(sw.prev_comm, "kworker/0:1 x");
    EXPECT_EQ(sw.prev_pid, 17);
    EXPECT_EQ(sw.prev_prio, 120);
    EXPECT_EQ(sw.next_comm, "swapper/0");
    EXPECT_EQ(sw.next_pid, 0);
    EXPECT_EQ(sw.prev_state.ToString(), c.letters) << c.state;
  }
}

TEST(TepDecoder, SchedSwitchOldKernelLayouts) {
  // 3.10: 16 = Z, 32 = X, 128 = K (wakekill), 1024 = preempted.
  // 4.9 : 16 = X, 32 = Z, 1024 = N, 4096 = preempted.
  struct Case {
    const char* file;
    int id;
    uint64_t state;
    const char* letters;
  } cases[] = {
      {"sched_switch_3.10.format", 263, 16, "Z"},  {"sched_switch_3.10.format", 263, 130, "D|K"},
      {"sched_switch_3.10.format", 263, 1024, "R+"}, {"sched_switch_3.10.format", 263, 0, "R"},
      {"sched_switch_3.10.format", 263, 256, "W"},   {"sched_switch_4.9.format", 273, 16, "X"},
      {"sched_switch_4.9.format", 273, 32, "Z"},     {"sched_switch_4.9.format", 273, 4096, "R+"},
      {"sched_switch_4.9.format", 273, 1026, "D|N"},
  };
  for (const Case& c : cases) {
    auto ev = Load({{"sched", c.file}});
    TepDecoder dec(ev.get());
    Payload p(*ev, c.id);
    p.Put("prev_state", c.state).PutStr("prev_comm", "a");
    Event e;
    ASSERT_TRUE(dec.Decode(p.raw(), e));
    EXPECT_EQ(std::get<SchedSwitch>(e.body).prev_state.ToString(), c.letters)
        << c.file << " " << c.state;
  }
}

// A corrupt file can cut a print fmt mid-expression; libtraceevent 1.7 crashes parsing that
// (found by fuzz/trace_dat_fuzz.cc). It is dropped, prev_state falls back to the 6.x bits.
TEST(TepDecoder, MalformedPrintFormatFallsBackToReportBits) {
  std::string fmt = Fixture("sched_switch.format");
  std::string cut = fmt.substr(0, fmt.find("0x00000002 |") + 12) + "\n";
  auto ev = std::make_unique<TraceEvents>(false, 8, 4096);
  ASSERT_TRUE(ev->LoadHeaderPage(Fixture("header_page")).ok());
  ev->AddFormat("sched", cut);
  TepDecoder dec(ev.get());
  for (auto [state, letters] : {std::pair<uint64_t, const char*>{0x100, "R+"}, {2, "D"}}) {
    Payload p(*ev, 372);
    p.Put("prev_state", state).Put("next_pid", 7);
    Event e;
    ASSERT_TRUE(dec.Decode(p.raw(), e));
    EXPECT_EQ(std::get<SchedSwitch>(e.body).prev_state.ToString(), letters);
    EXPECT_EQ(std::get<SchedSwitch>(e.body).next_pid, 7);
  }
}

TEST(StateLayout, EvaluatesKernelExpressions) {
  EXPECT_EQ(EvalConstant("((((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | "
                         "0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) - 1)"),
            0xffu);
  EXPECT_EQ(EvalConstant("(4096-1)"), 4095u);
  EXPECT_EQ(EvalConstant("1UL << 3 | 1"), 9u);
  EXPECT_EQ(EvalConstant("R%C"), std::nullopt);
  EXPECT_EQ(EvalConstant("1 << 64"), std::nullopt);
  EXPECT_EQ(EvalConstant("(1 |"), std::nullopt);
  EXPECT_EQ(EvalConstant(std::string(500, '(') + "1" + std::string(500, ')')), std::nullopt);
  std::string fmt = Fixture("sched_switch.format");
  auto l = ParseStateLayout(fmt.substr(fmt.find("print fmt: ") + 11));
  ASSERT_TRUE(l.has_value());
  EXPECT_EQ(l->mask, 0xffu);
  EXPECT_EQ(l->preempt_bit, 0x100u);
  ASSERT_EQ(l->flags.size(), 8u);
  EXPECT_EQ(FormatState(*l, 0x100), "R+");
  EXPECT_EQ(FormatState(*l, 0x82), "D|I");
  EXPECT_EQ(FormatState(*l, 0x400), "R");  // outside mask and preempt bit: plain R
  std::string f49 = Fixture("sched_switch_4.9.format");
  auto l49 = ParseStateLayout(f49.substr(f49.find("print fmt: ") + 11));
  ASSERT_TRUE(l49.has_value());
  EXPECT_EQ(l49->preempt_bit, 4096u);
  EXPECT_EQ(FormatState(*l49, 2048), "0x800");  // TASK_NEW: no letter in 4.9's table
  std::string old = "\"prev_state=%s ==>\", REC->prev_state ? __print_flags(REC->prev_state, "
                    "\"|\", { 1, \"S\"} , { 2, \"D\" }, { 128, \"W\" }) : \"R\", REC->next_comm";
  auto l3 = ParseStateLayout(old);
  ASSERT_TRUE(l3.has_value());
  EXPECT_EQ(l3->preempt_bit, 0u);
  EXPECT_EQ(FormatState(*l3, 129), "S|W");
}

// Without the format text (a tep_handle the caller parsed), libtraceevent's printer decides.
TEST(TepDecoder, PreparsedHandleUsesTheLibraryPrinter) {
  auto tep = tep_alloc();
  std::string fmt = Fixture("sched_switch_3.10.format");
  ASSERT_EQ(tep_parse_event(tep, fmt.data(), fmt.size(), "sched"), 0);
  TepDecoder dec(tep);
  std::string raw(64, '\0');
  uint16_t id = 263;
  uint64_t state = 130;
  std::memcpy(raw.data(), &id, 2);
  std::memcpy(raw.data() + 32, &state, 8);
  Event e;
  ASSERT_TRUE(dec.Decode(raw, e));
  EXPECT_EQ(std::get<SchedSwitch>(e.body).prev_state.ToString(), "D|K");
  tep_free(tep);
}

TEST(TepDecoder, PrintedLettersAndReportBits) {
  EXPECT_EQ(TaskStateFromPrinted("S|0x400").ToString(), "S|?");
  EXPECT_EQ(TaskStateFromPrinted("R+").ToString(), "R+");
  EXPECT_EQ(TaskStateFromPrinted("D|K").ToString(), "D|K");
  EXPECT_EQ(TaskStateFromReportBits(0x100).ToString(), "R+");
  EXPECT_EQ(TaskStateFromReportBits(0x2).ToString(), "D");
  EXPECT_EQ(TaskStateFromReportBits(0x1000).ToString(), "?");
}

TEST(TepDecoder, WakeupMigrateStatForkExit) {
  auto ev = Load({{"sched", "sched_wakeup.format"}, {"sched", "sched_waking.format"},
                  {"sched", "sched_migrate_task.format"}, {"sched", "sched_stat_runtime.format"},
                  {"sched", "sched_process_fork.format"}, {"sched", "sched_process_exit.format"}});
  TepDecoder dec(ev.get());
  Event e;
  Payload w(*ev, 374);
  w.PutStr("comm", "bash").Put("pid", 99).Put("prio", 120).Put("target_cpu", 3);
  ASSERT_TRUE(dec.Decode(w.raw(), e));
  const auto& wk = std::get<SchedWakeup>(e.body);
  EXPECT_EQ(wk.kind, SchedWakeup::Kind::kWakeup);
  EXPECT_EQ(wk.comm, "bash");
  EXPECT_EQ(wk.pid, 99);
  EXPECT_EQ(wk.target_cpu, 3);
  EXPECT_EQ(wk.success, 1);

  std::string waking_fmt = Fixture("sched_waking.format");
  int wid = std::stoi(waking_fmt.substr(waking_fmt.find("ID: ") + 4));
  Payload wg(*ev, wid);
  wg.PutStr("comm", "x").Put("pid", 5);
  Event e2;
  ASSERT_TRUE(dec.Decode(wg.raw(), e2));
  EXPECT_EQ(std::get<SchedWakeup>(e2.body).kind, SchedWakeup::Kind::kWaking);
  EXPECT_EQ(e2.name, "sched:sched_waking");

  std::string rt_fmt = Fixture("sched_stat_runtime.format");
  Payload rt(*ev, std::stoi(rt_fmt.substr(rt_fmt.find("ID: ") + 4)));
  rt.PutStr("comm", "stress-ng-cpu").Put("pid", 1234).Put("runtime", 5000000000ull);
  Event e3;
  ASSERT_TRUE(dec.Decode(rt.raw(), e3));
  const auto& st = std::get<SchedStat>(e3.body);
  EXPECT_EQ(st.comm, "stress-ng-cpu");  // __data_loc on 6.18
  EXPECT_EQ(st.pid, 1234);
  EXPECT_EQ(st.delay_ns, 5000000000ull);
  EXPECT_EQ(st.vruntime, 0u);

  std::string fk_fmt = Fixture("sched_process_fork.format");
  Payload fk(*ev, std::stoi(fk_fmt.substr(fk_fmt.find("ID: ") + 4)));
  fk.PutStr("parent_comm", "bash").Put("parent_pid", 10).PutStr("child_comm", "bash");
  fk.Put("child_pid", 11);
  Event e4;
  ASSERT_TRUE(dec.Decode(fk.raw(), e4));
  const auto& f = std::get<SchedFork>(e4.body);
  EXPECT_EQ(f.parent_pid, 10);
  EXPECT_EQ(f.child_pid, 11);
  EXPECT_EQ(f.child_comm, "bash");
}

TEST(TepDecoder, BlockEvents) {
  auto ev = Load({{"block", "block_rq_issue.format"}, {"block", "block_rq_complete.format"},
                  {"block", "block_bio_remap.format"}, {"block", "block_unplug.format"}});
  TepDecoder dec(ev.get());
  auto id_of = [](const char* file) {
    std::string t = Fixture(file);
    return std::stoi(t.substr(t.find("ID: ") + 4));
  };
  Payload is(*ev, id_of("block_rq_issue.format"));
  is.Put("dev", (uint64_t{259} << 20) | 1).Put("sector", 123456789012ull).Put("nr_sector", 8);
  is.Put("bytes", 4096).Put("ioprio", (2 << 13) | 4).PutStr("rwbs", "WSM").PutStr("comm", "jbd2/x");
  Event e;
  ASSERT_TRUE(dec.Decode(is.raw(), e));
  auto b = std::get<BlockRq>(e.body);
  EXPECT_EQ(b.stage, BlockStage::kIssue);
  EXPECT_EQ(b.major, 259u);
  EXPECT_EQ(b.minor, 1u);
  EXPECT_EQ(b.sector, 123456789012ull);
  EXPECT_EQ(b.nr_sector, 8u);
  EXPECT_EQ(b.bytes, 4096u);
  EXPECT_EQ(b.ioprio, (2 << 13) | 4);
  EXPECT_EQ(b.rwbs.ToString(), "WSM");
  EXPECT_EQ(b.comm, "jbd2/x");

  Payload co(*ev, id_of("block_rq_complete.format"));
  co.Put("dev", (uint64_t{8} << 20) | 16).Put("error", static_cast<uint32_t>(-5));
  co.PutStr("rwbs", "R");
  ASSERT_TRUE(dec.Decode(co.raw(), e));
  b = std::get<BlockRq>(e.body);
  EXPECT_EQ(b.stage, BlockStage::kComplete);
  EXPECT_EQ(b.error, -5);  // signed:1, sign-extended
  EXPECT_EQ(b.major, 8u);
  EXPECT_EQ(b.minor, 16u);
  EXPECT_TRUE(b.rwbs.is_read());

  Payload rm(*ev, id_of("block_bio_remap.format"));
  rm.Put("dev", (uint64_t{7} << 20) | 1).Put("old_dev", (uint64_t{252} << 20) | 2);
  rm.Put("old_sector", 488).Put("sector", 2536).PutStr("rwbs", "WS");
  ASSERT_TRUE(dec.Decode(rm.raw(), e));
  b = std::get<BlockRq>(e.body);
  EXPECT_EQ(b.stage, BlockStage::kBioRemap);
  EXPECT_EQ(b.old_major, 252u);
  EXPECT_EQ(b.old_minor, 2u);
  EXPECT_EQ(b.old_sector, 488u);
  EXPECT_EQ(b.ioprio, -1);  // the format has none

  Payload un(*ev, id_of("block_unplug.format"));
  un.Put("nr_rq", 3).PutStr("comm", "fio");
  ASSERT_TRUE(dec.Decode(un.raw(), e));
  b = std::get<BlockRq>(e.body);
  EXPECT_EQ(b.stage, BlockStage::kUnplug);
  EXPECT_EQ(b.nr_rq, 3u);
  EXPECT_EQ(b.comm, "fio");
}

TEST(TepDecoder, GenericKeepsEveryField) {
  auto ev = Load({{"irq", "irq_handler_entry.format"}, {"block", "block_rq_issue.format"}});
  TepDecoder dec(ev.get());
  dec.SetWanted(EventMask::All());  // families (irq, ...) not asked for by kind: Generic
  Payload p(*ev, 225);
  p.Put("irq", static_cast<uint32_t>(-3)).PutStr("name", "nvme0q1");
  Event e;
  ASSERT_TRUE(dec.Decode(p.raw(), e));
  EXPECT_EQ(e.name, "irq:irq_handler_entry");
  const auto& g = std::get<Generic>(e.body);
  ASSERT_EQ(g.fields.size(), 2u);
  EXPECT_EQ(g.fields[0].name, "irq");
  EXPECT_EQ(g.fields[0].value, "-3");
  EXPECT_TRUE(g.fields[0].numeric);
  EXPECT_EQ(g.fields[1].name, "name");
  EXPECT_EQ(g.fields[1].value, "nvme0q1");
  EXPECT_FALSE(g.fields[1].numeric);
  EventKind kind;
  ASSERT_TRUE(dec.Classify(p.raw(), &kind));
  EXPECT_EQ(kind, EventKind::kGeneric);
  EXPECT_EQ(dec.Name(p.raw()), "irq:irq_handler_entry");
}

TEST(TepDecoder, MalformedPayloadsAreRejectedNotRead) {
  auto ev = Load({{"irq", "irq_handler_entry.format"}, {"sched", "sched_switch.format"}});
  TepDecoder dec(ev.get());
  dec.SetWanted(EventMask::All());
  Event e;
  EXPECT_FALSE(dec.Decode("", e));
  EXPECT_FALSE(dec.Decode(std::string_view("\x01", 1), e));
  EXPECT_FALSE(dec.Decode(std::string("\xff\x7f\0\0\0\0\0\0", 8), e));  // unknown id
  Payload sw(*ev, 372);
  EXPECT_FALSE(dec.Decode(sw.raw().substr(0, sw.raw().size() - 1), e));  // short
  // __data_loc pointing past the end: an empty string, not an out-of-bounds read.
  Payload p(*ev, 225);
  p.Put("name", (uint64_t{200} << 16) | 10);
  ASSERT_TRUE(dec.Decode(p.raw(), e));
  EXPECT_EQ(std::get<Generic>(e.body).fields[1].value, "");
}

TEST(TepDecoder, BigEndianFile) {
  auto ev = Load({{"sched", "sched_wakeup.format"}}, /*big_endian=*/true);
  TepDecoder dec(ev.get());
  Payload p(*ev, 374, /*big_endian=*/true);
  p.PutStr("comm", "ls").Put("pid", 77).Put("target_cpu", 2);
  Event e;
  ASSERT_TRUE(dec.Decode(p.raw(), e));
  EXPECT_EQ(std::get<SchedWakeup>(e.body).pid, 77);
  EXPECT_EQ(std::get<SchedWakeup>(e.body).target_cpu, 2);
  EXPECT_EQ(e.tid, 4242);
}

TEST(TepDecoder, WorksOnAPreparsedTepHandle) {
  auto ev = Load({{"sched", "sched_wakeup.format"}});
  ASSERT_NE(ev->Find(374), nullptr);
  TepDecoder dec(ev->tep());
  Payload p(*ev, 374);
  p.Put("pid", 3);
  Event e;
  e.tid = 9;  // set by the caller: kept
  ASSERT_TRUE(dec.Decode(p.raw(), e));
  EXPECT_EQ(e.tid, 9);
  EXPECT_EQ(std::get<SchedWakeup>(e.body).pid, 3);
}

// Serializes formats into perf's HEADER_TRACING_DATA layout.
std::string TracingDataBlob() {
  auto u32 = [](std::string& s, uint32_t v) { s.append(reinterpret_cast<char*>(&v), 4); };
  auto u64 = [](std::string& s, uint64_t v) { s.append(reinterpret_cast<char*>(&v), 8); };
  std::string s("\x17\x08\x44tracing", 10);
  s.append("0.6", 4);
  s.push_back(0);  // little endian
  s.push_back(8);
  u32(s, 4096);
  std::string hp = Fixture("header_page"), he = Fixture("header_event");
  s.append("header_page", 12);
  u64(s, hp.size());
  s += hp;
  s.append("header_event", 13);
  u64(s, he.size());
  s += he;
  u32(s, 0);  // ftrace formats
  u32(s, 2);  // systems
  s.append("sched", 6);
  u32(s, 2);
  for (const char* f : {"sched_switch.format", "sched_wakeup.format"}) {
    std::string t = Fixture(f);
    u64(s, t.size());
    s += t;
  }
  s.append("irq", 4);
  u32(s, 1);
  std::string t = Fixture("irq_handler_entry.format");
  u64(s, t.size());
  s += t;
  u32(s, 0);  // kallsyms
  u32(s, 0);  // printk
  std::string cmd = "1 systemd\n42 bash\n";
  u64(s, cmd.size());
  s += cmd;
  return s;
}

TEST(TracingData, ParsesPerfLayoutLazily) {
  std::string blob = TracingDataBlob();
  TracingDataInfo info;
  auto ev = ParseTracingData(blob, 1000, &info);
  ASSERT_TRUE(ev.ok()) << ev.status();
  EXPECT_EQ(info.version, "0.6");
  EXPECT_EQ(info.page_size, 4096u);
  EXPECT_EQ(info.event_formats, 3u);
  EXPECT_EQ(info.cmdlines, "1 systemd\n42 bash\n");
  EXPECT_EQ(info.end, blob.size());
  EXPECT_EQ((*ev)->kernel_long_size(), 8);
  EXPECT_EQ(tep_get_events_count((*ev)->tep()), 0);  // nothing parsed yet
  ASSERT_NE((*ev)->Find(374), nullptr);
  EXPECT_EQ(tep_get_events_count((*ev)->tep()), 1);
  EXPECT_EQ((*ev)->Find(9999), nullptr);
  EXPECT_EQ((*ev)->ParseAll(), 0);
  EXPECT_EQ(tep_get_events_count((*ev)->tep()), 3);
}

TEST(TracingData, TruncationGivesFileOffsets) {
  std::string blob = TracingDataBlob();
  for (size_t n : {0ul, 5ul, 20ul, 40ul, blob.size() / 2, blob.size() - 3}) {
    auto ev = ParseTracingData(std::string_view(blob).substr(0, n), 1000);
    ASSERT_FALSE(ev.ok()) << n;
    std::string msg(ev.status().message());
    ASSERT_EQ(msg.rfind("offset ", 0), 0u) << msg;
    EXPECT_GE(std::stoul(msg.substr(7)), 1000u) << msg;
  }
}

// The TRACING_DATA feature of a real perf.data (kernel 6.18, perf 6.1): every format parses.
TEST(TracingData, RealPerfDataFeatureSection) {
  std::optional<std::string> shared = tk::testing::SharedDir();
  if (!shared) GTEST_SKIP() << "no /work/shared";
  std::string path = *shared + "/corpus/perf-data/linuxtracepoints/perf.data";
  if (!tk::testing::FileExists(path)) GTEST_SKIP() << "no " << path;
  std::string f = tk::testing::ReadFile(path);
  auto u64at = [&](size_t off) {
    uint64_t v;
    std::memcpy(&v, f.data() + off, 8);
    return v;
  };
  // Header: data section {offset,size} at 40; feature bitmap at 72; the feature table
  // ({offset,size} per set bit, ascending) follows the data section. Bit 1 = TRACING_DATA.
  ASSERT_TRUE(f[72] & 2) << "no TRACING_DATA feature";
  uint64_t table = u64at(40) + u64at(48);
  uint64_t off = u64at(table), size = u64at(table + 8);  // bit 0 is never set: first entry
  ASSERT_LE(off + size, f.size());
  TracingDataInfo info;
  auto ev = ParseTracingData(std::string_view(f).substr(off, size), off, &info);
  ASSERT_TRUE(ev.ok()) << ev.status();
  EXPECT_GT(info.event_formats, 0u);
  EXPECT_EQ((*ev)->ParseAll(), 0);
}

// The families of core/kernel_events.h, decoded typed when the mask asks for them.
TEST(TepDecoder, FamiliesTyped) {
  auto ev = Load({{"irq", "irq_handler_entry.format"}, {"kmem", "mm_page_alloc.format"},
                  {"raw_syscalls", "sys_enter.format"}, {"syscalls", "sys_enter_read.format"},
                  {"syscalls", "sys_exit_read.format"}});
  TepDecoder dec(ev.get());
  Event e;
  Payload irq(*ev, 225);
  irq.Put("irq", 36).PutStr("name", "virtio1-req.0");
  ASSERT_TRUE(dec.Decode(irq.raw(), e));
  ASSERT_TRUE(std::holds_alternative<Irq>(e.body));
  EXPECT_EQ(std::get<Irq>(e.body).irq, 36);
  EXPECT_EQ(std::get<Irq>(e.body).name, "virtio1-req.0");

  Payload page(*ev, 653);
  page.Put("pfn", 0x1d83db).Put("order", 3).Put("gfp_flags", 0x440dc0).Put("migratetype", 1);
  ASSERT_TRUE(dec.Decode(page.raw(), e));
  const auto& p = std::get<PageEvent>(e.body);
  EXPECT_EQ(p.pfn, 0x1d83dbu);
  EXPECT_FALSE(p.is_page_ptr);
  EXPECT_FALSE(p.failed);
  EXPECT_EQ(p.order, 3u);
  EXPECT_EQ(p.gfp_flags, 0x440dc0u);
  EXPECT_EQ(p.migratetype, 1);
  page.Put("pfn", ~uint64_t{0});
  ASSERT_TRUE(dec.Decode(page.raw(), e));
  EXPECT_TRUE(std::get<PageEvent>(e.body).failed);

  Payload raw(*ev, 443);
  raw.Put("id", 257);
  for (int i = 0; i < 6; ++i)  // args[6]: 8 bytes each from offset 16
    for (int b = 0; b < 8; ++b) raw.buf()[16 + 8 * i + b] = static_cast<char>(b == 0 ? i + 1 : 0);
  ASSERT_TRUE(dec.Decode(raw.raw(), e));
  const auto& c = std::get<Syscall>(e.body);
  EXPECT_EQ(c.id, 257);
  EXPECT_TRUE(c.name.empty());
  ASSERT_EQ(c.nargs, 6);
  EXPECT_EQ(c.args[5], 6u);

  Payload rd(*ev, 842);
  rd.Put("__syscall_nr", 0).Put("fd", 3).Put("count", 8192);
  ASSERT_TRUE(dec.Decode(rd.raw(), e));
  const auto& r = std::get<Syscall>(e.body);
  EXPECT_EQ(r.name, "read");
  EXPECT_EQ(r.id, 0);
  ASSERT_EQ(r.nargs, 3);
  EXPECT_EQ(r.args[0], 3u);
  EXPECT_EQ(r.args[2], 8192u);
  Payload rx(*ev, 841);
  rx.Put("__syscall_nr", 0).Put("ret", static_cast<uint64_t>(-11));
  ASSERT_TRUE(dec.Decode(rx.raw(), e));
  EXPECT_TRUE(std::get<Syscall>(e.body).exit);
  EXPECT_EQ(std::get<Syscall>(e.body).ret, -11);
  EventKind kind;
  ASSERT_TRUE(dec.Classify(rx.raw(), &kind));
  EXPECT_EQ(kind, EventKind::kSyscall);
  dec.SetWanted(EventMask().Add(EventKind::kIrq));
  ASSERT_TRUE(dec.Classify(rx.raw(), &kind));
  EXPECT_EQ(kind, EventKind::kGeneric);
}

// Before 4.1 mm_page_alloc recorded a struct page pointer (layout of 3.10's format).
TEST(TepDecoder, PagePointerEra) {
  auto ev = Load({{"kmem", "mm_page_alloc_3.10.format"}});
  TepDecoder dec(ev.get());
  Payload page(*ev, 301);
  page.Put("page", 0xffffea0004bd6f40).Put("order", 1).Put("migratetype", 2);
  Event e;
  ASSERT_TRUE(dec.Decode(page.raw(), e));
  const auto& p = std::get<PageEvent>(e.body);
  EXPECT_TRUE(p.is_page_ptr);
  EXPECT_EQ(p.pfn, 0xffffea0004bd6f40u);
  EXPECT_EQ(p.order, 1u);
  EXPECT_FALSE(p.failed);
  page.Put("page", 0);
  ASSERT_TRUE(dec.Decode(page.raw(), e));
  EXPECT_TRUE(std::get<PageEvent>(e.body).failed);
}

}  // namespace
}  // namespace tk::parsers::tep
