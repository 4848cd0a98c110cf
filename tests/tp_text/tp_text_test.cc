// TracepointTextDecoder over real lines: perf script 3.8 (kernel 3.8.13), perf script and
// tracefs on kernel 6.18, trace-cmd report's plugin forms and `trace-cmd report -R`.
#include <fstream>
#include <string>

#include "gtest/gtest.h"
#include "parsers/tp_text/block_text.h"
#include "parsers/tp_text/sched_text.h"
#include "parsers/tp_text/text_fields.h"
#include "parsers/tp_text/tp_text.h"
#include "tests/support/golden.h"

namespace tk::parsers::tp_text {
namespace {

Event Decode(TracepointTextDecoder& d, std::string_view name, std::string_view text,
             bool expect_ok = true) {
  Event e;
  EXPECT_EQ(d.Decode(name, text, e), expect_ok) << name << ": " << text;
  return e;
}

TEST(TextFields, Integers) {
  EXPECT_EQ(ParseInt("-12"), -12);
  EXPECT_EQ(ParseInt("001"), 1);
  EXPECT_EQ(ParseInt("0x1f"), 31);
  EXPECT_EQ(ParseUint("18446744073709486080"), 18446744073709486080ull);
  EXPECT_FALSE(ParseInt(""));
  EXPECT_FALSE(ParseInt("-"));
  EXPECT_FALSE(ParseInt("12x"));
  EXPECT_FALSE(ParseInt("99999999999999999999"));
  EXPECT_FALSE(ParseInt32("4294967296"));
  EXPECT_FALSE(ParseUint("-1"));
}

TEST(TextFields, StringValueEndsAtNextKey) {
  KvCursor c("comm=Web Content pid=3100 prio=120");
  EXPECT_EQ(c.String("comm", "pid"), "Web Content");
  EXPECT_EQ(c.Int("pid"), 3100);
  EXPECT_EQ(c.Int("prio"), 120);
  EXPECT_TRUE(c.AtEnd());
  KvCursor empty("comm= pid=1");
  EXPECT_EQ(empty.String("comm", "pid"), "");
  EXPECT_EQ(empty.Int("pid"), 1);
  KvCursor missing("comm=x");
  EXPECT_FALSE(missing.String("comm", "pid"));
  // A comm that itself looks like "key=" stops at the first " pid=".
  KvCursor eq("comm=a=b pid=2");
  EXPECT_EQ(eq.String("comm", "pid"), "a=b");
}

TEST(SchedSwitch, KernelFormat3x) {
  TracepointTextDecoder d;
  Event e = Decode(d, "sched:sched_switch",
                   "prev_comm=dd prev_pid=9615 prev_prio=120 prev_state=D ==> "
                   "next_comm=swapper/1 next_pid=0 next_prio=120");
  EXPECT_EQ(e.name, "sched:sched_switch");
  const auto& s = std::get<SchedSwitch>(e.body);
  EXPECT_EQ(s.prev_comm, "dd");
  EXPECT_EQ(s.prev_pid, 9615);
  EXPECT_EQ(s.prev_prio, 120);
  EXPECT_TRUE(s.prev_state.disk_sleep());
  EXPECT_EQ(s.next_comm, "swapper/1");
  EXPECT_EQ(s.next_pid, 0);
  EXPECT_EQ(s.next_prio, 120);
}

TEST(SchedSwitch, CommWithSpacesAndPreempted) {
  TracepointTextDecoder d;
  Event e = Decode(d, "sched_switch",
                   "prev_comm=kworker/u4:2 H prev_pid=77 prev_prio=120 prev_state=R+ ==> "
                   "next_comm=Web Content next_pid=3100 next_prio=120");
  EXPECT_EQ(e.name, "sched:sched_switch");
  const auto& s = std::get<SchedSwitch>(e.body);
  EXPECT_EQ(s.prev_comm, "kworker/u4:2 H");
  EXPECT_EQ(s.prev_pid, 77);
  EXPECT_TRUE(s.prev_state.runnable());
  EXPECT_TRUE(s.prev_state.preempted);
  EXPECT_EQ(s.next_comm, "Web Content");
  EXPECT_EQ(s.next_pid, 3100);
}

TEST(SchedSwitch, CommWithBracketsAndArrow) {
  TracepointTextDecoder d;
  Event e = Decode(d, "sched_switch",
                   "prev_comm=[x] ==> y prev_pid=5 prev_prio=120 prev_state=S|K ==> "
                   "next_comm=<idle> next_pid=0 next_prio=120");
  const auto& s = std::get<SchedSwitch>(e.body);
  EXPECT_EQ(s.prev_comm, "[x] ==> y");
  EXPECT_EQ(s.prev_state.ToString(), "S|K");
  EXPECT_EQ(s.next_comm, "<idle>");
}

TEST(SchedSwitch, RawNumericState) {
  TracepointTextDecoder d;
  // trace-cmd report -R: no "==>", prev_state (a long on 6.x) in hex.
  Event e = Decode(d, "sched_switch",
                   "prev_comm=bash prev_pid=8912 prev_prio=120 prev_state=0x1 "
                   "next_comm=swapper/0 next_pid=0 next_prio=120");
  EXPECT_EQ(std::get<SchedSwitch>(e.body).prev_state.ToString(), "S");
  e = Decode(d, "sched_switch",
             "prev_comm=a prev_pid=1 prev_prio=120 prev_state=0x100 next_comm=b next_pid=2 "
             "next_prio=120");
  EXPECT_EQ(std::get<SchedSwitch>(e.body).prev_state.ToString(), "R+");
  e = Decode(d, "sched_switch",
             "prev_comm=a prev_pid=1 prev_prio=120 prev_state=128 next_comm=b next_pid=2 "
             "next_prio=120");
  EXPECT_EQ(std::get<SchedSwitch>(e.body).prev_state.ToString(), "I");
}

TEST(SchedSwitch, TraceCmdPlugin) {
  TracepointTextDecoder d;
  Event e = Decode(d, "sched_switch", "bash:8912 [120] S ==> swapper/0:0 [120]");
  auto s = std::get<SchedSwitch>(e.body);
  EXPECT_EQ(s.prev_comm, "bash");
  EXPECT_EQ(s.prev_pid, 8912);
  EXPECT_EQ(s.prev_prio, 120);
  EXPECT_EQ(s.prev_state.ToString(), "S");
  EXPECT_EQ(s.next_comm, "swapper/0");
  EXPECT_EQ(s.next_pid, 0);
  EXPECT_EQ(s.next_prio, 120);
  e = Decode(d, "sched_switch", "kworker/0:1H:44 [100] W ==> Web Content:3100 [120]");
  s = std::get<SchedSwitch>(e.body);
  EXPECT_EQ(s.prev_comm, "kworker/0:1H");
  EXPECT_EQ(s.prev_pid, 44);
  EXPECT_EQ(s.prev_state.ToString(), "I");  // the plugin's 'W' is bit 7: I on 4.14+
  EXPECT_EQ(s.next_comm, "Web Content");
  e = Decode(d, "sched_switch", "dd:1 [120] Z ==> x:2 [120]");
  EXPECT_EQ(std::get<SchedSwitch>(e.body).prev_state.ToString(), "X");
  e = Decode(d, "sched_switch", "dd:1 [120] D|W ==> x:2 [120]");
  EXPECT_EQ(std::get<SchedSwitch>(e.body).prev_state.ToString(), "D|I");
}

TEST(SchedSwitch, MalformedIsGenericAndFalse) {
  TracepointTextDecoder d;
  Event e = Decode(d, "sched_switch", "prev_comm=dd prev_pid=x", false);
  EXPECT_EQ(e.name, "sched:sched_switch");
  EXPECT_EQ(std::get<Generic>(e.body).text, "prev_comm=dd prev_pid=x");
  Decode(d, "sched_switch", "", false);
  Decode(d, "sched_switch", "garbage ==> more", false);
}

TEST(SchedWakeup, AllForms) {
  TracepointTextDecoder d;
  Event e = Decode(d, "sched:sched_wakeup",
                   "comm=loop1 pid=2464 prio=100 success=1 target_cpu=000");
  auto w = std::get<SchedWakeup>(e.body);
  EXPECT_EQ(w.kind, SchedWakeup::Kind::kWakeup);
  EXPECT_EQ(w.comm, "loop1");
  EXPECT_EQ(w.pid, 2464);
  EXPECT_EQ(w.prio, 100);
  EXPECT_EQ(w.success, 1);
  EXPECT_EQ(w.target_cpu, 0);
  e = Decode(d, "sched_waking", "comm=migration/0 pid=18 prio=0 target_cpu=001");
  w = std::get<SchedWakeup>(e.body);
  EXPECT_EQ(e.name, "sched:sched_waking");
  EXPECT_EQ(w.kind, SchedWakeup::Kind::kWaking);
  EXPECT_EQ(w.target_cpu, 1);
  e = Decode(d, "sched_wakeup_new", "comm=foo pid=1 prio=120 success=0");
  w = std::get<SchedWakeup>(e.body);
  EXPECT_EQ(w.kind, SchedWakeup::Kind::kWakeupNew);
  EXPECT_EQ(w.success, 0);
  EXPECT_EQ(w.target_cpu, -1);
  // trace-cmd plugin forms.
  e = Decode(d, "sched_wakeup", "kworker/0:1H:44 [100] CPU:000");
  w = std::get<SchedWakeup>(e.body);
  EXPECT_EQ(w.comm, "kworker/0:1H");
  EXPECT_EQ(w.pid, 44);
  EXPECT_EQ(w.prio, 100);
  EXPECT_EQ(w.target_cpu, 0);
  e = Decode(d, "sched_wakeup", "Web Content:3100 [120] success=1 CPU:003");
  w = std::get<SchedWakeup>(e.body);
  EXPECT_EQ(w.comm, "Web Content");
  EXPECT_EQ(w.target_cpu, 3);
  Decode(d, "sched_wakeup", "comm=x pid=1 prio=120 target_cpu=zz", false);
}

TEST(SchedOther, MigrateStatForkExit) {
  TracepointTextDecoder d;
  Event e = Decode(d, "sched_migrate_task", "comm=perf pid=8773 prio=120 orig_cpu=0 dest_cpu=1");
  auto m = std::get<SchedMigrate>(e.body);
  EXPECT_EQ(m.comm, "perf");
  EXPECT_EQ(m.orig_cpu, 0);
  EXPECT_EQ(m.dest_cpu, 1);
  e = Decode(d, "sched_stat_runtime", "comm=perf pid=8773 runtime=454031 [ns]");
  auto s = std::get<SchedStat>(e.body);
  EXPECT_EQ(s.which, SchedStat::Which::kRuntime);
  EXPECT_EQ(s.delay_ns, 454031u);
  EXPECT_EQ(s.vruntime, 0u);
  e = Decode(d, "sched_stat_runtime",
             "comm=Thread-103 pid=3979 runtime=5014167 [ns] vruntime=244334517704 [ns]");
  s = std::get<SchedStat>(e.body);
  EXPECT_EQ(s.comm, "Thread-103");
  EXPECT_EQ(s.vruntime, 244334517704u);
  e = Decode(d, "sched_stat_iowait", "comm=dd pid=9615 delay=1234 [ns]");
  s = std::get<SchedStat>(e.body);
  EXPECT_EQ(s.which, SchedStat::Which::kIowait);
  EXPECT_EQ(s.delay_ns, 1234u);
  e = Decode(d, "sched_process_fork", "comm=sh pid=8774 child_comm=sh child_pid=8776");
  auto f = std::get<SchedFork>(e.body);
  EXPECT_EQ(f.parent_pid, 8774);
  EXPECT_EQ(f.child_pid, 8776);
  e = Decode(d, "sched_process_fork",
             "parent_comm=a b parent_pid=1 child_comm=c d child_pid=2");
  f = std::get<SchedFork>(e.body);
  EXPECT_EQ(f.parent_comm, "a b");
  EXPECT_EQ(f.child_comm, "c d");
  e = Decode(d, "sched_process_exit", "comm=dd pid=8776 prio=120 group_dead=true");
  EXPECT_EQ(std::get<SchedExit>(e.body).pid, 8776);
  e = Decode(d, "sched:sched_process_free", "comm=dd pid=8776 prio=120");
  EXPECT_EQ(std::get<SchedExit>(e.body).comm, "dd");
}

TEST(Block, Kernel3xForms) {
  TracepointTextDecoder d;
  Event e = Decode(d, "block:block_rq_insert", "8,0 WS 0 () 7827752 + 8 [loop1]");
  auto b = std::get<BlockRq>(e.body);
  EXPECT_EQ(b.stage, BlockStage::kInsert);
  EXPECT_EQ(b.major, 8u);
  EXPECT_EQ(b.minor, 0u);
  EXPECT_EQ(b.rwbs.ToString(), "WS");
  EXPECT_EQ(b.bytes, 0u);
  EXPECT_EQ(b.sector, 7827752u);
  EXPECT_EQ(b.nr_sector, 8u);
  EXPECT_EQ(b.comm, "loop1");
  EXPECT_EQ(b.ioprio, -1);
  e = Decode(d, "block:block_bio_remap", "7,1 WS 2536 + 8 <- (252,2) 488");
  b = std::get<BlockRq>(e.body);
  EXPECT_EQ(b.stage, BlockStage::kBioRemap);
  EXPECT_EQ(b.sector, 2536u);
  EXPECT_EQ(b.old_major, 252u);
  EXPECT_EQ(b.old_minor, 2u);
  EXPECT_EQ(b.old_sector, 488u);
  e = Decode(d, "block:block_bio_queue", "252,2 WS 488 + 8 [dd]");
  b = std::get<BlockRq>(e.body);
  EXPECT_EQ(b.stage, BlockStage::kBioQueue);
  EXPECT_EQ(b.sector, 488u);
  EXPECT_EQ(b.comm, "dd");
  e = Decode(d, "block:block_rq_complete", "8,0 WS () 7827752 + 8 [0]");
  b = std::get<BlockRq>(e.body);
  EXPECT_EQ(b.stage, BlockStage::kComplete);
  EXPECT_EQ(b.error, 0);
  EXPECT_EQ(b.comm, "");
  e = Decode(d, "block:block_rq_complete", "8,0 R () 100 + 8 [-5]");
  EXPECT_EQ(std::get<BlockRq>(e.body).error, -5);
  e = Decode(d, "block:block_plug", "[loop1]");
  EXPECT_EQ(std::get<BlockRq>(e.body).comm, "loop1");
  e = Decode(d, "block:block_unplug", "[loop1] 1");
  b = std::get<BlockRq>(e.body);
  EXPECT_EQ(b.stage, BlockStage::kUnplug);
  EXPECT_EQ(b.comm, "loop1");
  EXPECT_EQ(b.nr_rq, 1u);
  // 3.x BLOCK_PC requests print the SCSI CDB inside the parentheses.
  e = Decode(d, "block_rq_issue", "8,0 N 36 (12 00 00 00 24 00) 0 + 0 [scsi_id]");
  b = std::get<BlockRq>(e.body);
  EXPECT_EQ(b.bytes, 36u);
  EXPECT_EQ(b.comm, "scsi_id");
}

TEST(Block, Kernel6Forms) {
  TracepointTextDecoder d;
  Event e = Decode(d, "block_rq_issue",
                   "254,0 DS 262144 () 33851392 + 512 be,0,4 [kworker/0:1H]");
  EXPECT_EQ(e.name, "block:block_rq_issue");
  auto b = std::get<BlockRq>(e.body);
  EXPECT_EQ(b.major, 254u);
  EXPECT_EQ(b.rwbs.ToString(), "DS");
  EXPECT_EQ(b.bytes, 262144u);
  EXPECT_EQ(b.sector, 33851392u);
  EXPECT_EQ(b.nr_sector, 512u);
  EXPECT_EQ(b.ioprio, 2 << 13 | 4);
  EXPECT_EQ(b.comm, "kworker/0:1H");
  // libtraceevent cannot resolve IOPRIO_CLASS_BE and prints the number.
  e = Decode(d, "block:block_rq_issue", "7,0 WSM 1024 () 229378 + 2 0x2,0,3 [jbd2/loop0-8]");
  b = std::get<BlockRq>(e.body);
  EXPECT_EQ(b.ioprio, 2 << 13 | 3);
  EXPECT_EQ(b.comm, "jbd2/loop0-8");
  EXPECT_TRUE(b.rwbs.has(Rwbs::kMeta));
  e = Decode(d, "block:block_rq_complete", "7,0 WS () 229378 + 2 be,0,4 [0]");
  b = std::get<BlockRq>(e.body);
  EXPECT_EQ(b.error, 0);
  EXPECT_EQ(b.ioprio, 2 << 13 | 4);
  e = Decode(d, "block:block_rq_complete", "254,0 RA () 12654408 + 32 0x2,0,4 [0]");
  EXPECT_EQ(std::get<BlockRq>(e.body).nr_sector, 32u);
  e = Decode(d, "block:block_io_done", "254,0 RM 0 () 20377144 + 0 0x0,0,0 [perf]");
  b = std::get<BlockRq>(e.body);
  EXPECT_EQ(b.stage, BlockStage::kIoDone);
  EXPECT_EQ(b.ioprio, 0);
  EXPECT_EQ(b.comm, "perf");
  e = Decode(d, "block:block_rq_remap", "8,0 W 2536 + 8 <- (8,2) 488 1");
  b = std::get<BlockRq>(e.body);
  EXPECT_EQ(b.stage, BlockStage::kRqRemap);
  EXPECT_EQ(b.old_sector, 488u);
  e = Decode(d, "block:block_split", "8,0 W 1000 / 1008 [dd]");
  b = std::get<BlockRq>(e.body);
  EXPECT_EQ(b.sector, 1000u);
  EXPECT_EQ(b.old_sector, 1008u);
  EXPECT_EQ(b.comm, "dd");
  e = Decode(d, "block:block_dirty_buffer", "254,0 sector=18446744073709486080 size=4096");
  b = std::get<BlockRq>(e.body);
  EXPECT_EQ(b.stage, BlockStage::kDirtyBuffer);
  EXPECT_EQ(b.sector, 18446744073709486080ull);
  EXPECT_EQ(b.bytes, 4096u);
  e = Decode(d, "block:block_bio_queue", "8,0 W 1 + 8 [comm with ] and [x]]");
  EXPECT_EQ(std::get<BlockRq>(e.body).comm, "comm with ] and [x]");
}

TEST(Block, RawFields) {
  TracepointTextDecoder d;
  Event e = Decode(d, "block_rq_issue",
                   "dev=265289728 sector=33851392 nr_sector=512 bytes=262144 ioprio=16388 "
                   "rwbs=DS comm=kworker/0:1H cmd=");
  auto b = std::get<BlockRq>(e.body);
  EXPECT_EQ(b.major, 253u);
  EXPECT_EQ(b.minor, 0u);
  EXPECT_EQ(b.sector, 33851392u);
  EXPECT_EQ(b.ioprio, 16388);
  EXPECT_EQ(b.rwbs.ToString(), "DS");
  EXPECT_EQ(b.comm, "kworker/0:1H");
}

TEST(Block, Malformed) {
  TracepointTextDecoder d;
  for (const char* t : {"", "8,0", "8,0 WS", "8,0 WS 12", "8,0 WS 12 + ", "x,0 WS 1 + 8 [a]",
                        "8,0 WS 1 + 8 [a", "8,0 WS 1 + 8 zz [a]", "8,0 WS () 1 + 8 [x]",
                        "99999999,0 W 1 + 1 [a]", "8,0 W 1 + 8 <- (8,1"}) {
    Event e;
    EXPECT_FALSE(d.Decode(std::string_view(t).empty() ? "block_rq_complete" : "block_rq_complete",
                          t, e))
        << t;
  }
  Event e;
  EXPECT_FALSE(d.Decode("block_unplug", "[x]", e));
  EXPECT_FALSE(d.Decode("block_plug", "x", e));
}

TEST(Generic, KeyValuesAndNames) {
  TracepointTextDecoder d;
  Event e = Decode(d, "sched_prepare_exec",
                   "interp=/usr/bin/sh filename=/usr/bin/sh pid=8774 comm=perf-exec");
  EXPECT_EQ(e.name, "sched:sched_prepare_exec");
  const auto& g = std::get<Generic>(e.body);
  ASSERT_EQ(g.fields.size(), 4u);
  EXPECT_EQ(g.fields[0].name, "interp");
  EXPECT_EQ(g.fields[0].value, "/usr/bin/sh");
  EXPECT_FALSE(g.fields[0].numeric);
  EXPECT_EQ(g.fields[2].name, "pid");
  EXPECT_TRUE(g.fields[2].numeric);
  e = Decode(d, "sched_process_wait", "comm=Web Content pid=0 prio=120");
  EXPECT_EQ(std::get<Generic>(e.body).fields[0].value, "Web Content");
  e = Decode(d, "hrtimer_start", "hrtimer=0xffff function=tick_sched_timer expires=1");
  EXPECT_EQ(e.name, "timer:hrtimer_start");
  EXPECT_FALSE(std::get<Generic>(e.body).fields[0].numeric);
  e = Decode(d, "my_event", "free text here");
  EXPECT_EQ(e.name, "my_event");
  EXPECT_TRUE(std::get<Generic>(e.body).fields.empty());
  EXPECT_EQ(std::get<Generic>(e.body).text, "free text here");
  e = Decode(d, "tracing_mark_write", "hello from user space");
  EXPECT_EQ(e.name, "ftrace:print");
  EXPECT_EQ(std::get<Generic>(e.body).text, "hello from user space");
  e = Decode(d, "probe:foo", "(ffffffff8100) arg1=1");
  EXPECT_EQ(e.name, "probe:foo");
  EXPECT_EQ(TracepointTextDecoder::KindOf("sched_switch"), EventKind::kSchedSwitch);
  EXPECT_EQ(TracepointTextDecoder::KindOf("block:block_rq_issue"), EventKind::kBlockRq);
  EXPECT_EQ(TracepointTextDecoder::KindOf("cpu_idle"), EventKind::kGeneric);
}

// Every tracepoint line of the shared 3.8 perf script corpus decodes to a typed event.
TEST(Corpus, PerfScript38AllTyped) {
  auto shared = tk::testing::SharedDir();
  if (!shared) GTEST_SKIP() << "no /work/shared";
  std::ifstream in(*shared + "/corpus/text/perf-script-dd-sync-mount-linux-3.8.txt");
  ASSERT_TRUE(in);
  TracepointTextDecoder d;
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    size_t colon = line.find(": ");  // after the timestamp
    ASSERT_NE(colon, std::string::npos);
    std::string_view rest = std::string_view(line).substr(colon + 2);
    size_t name_end = rest.find(": ");
    if (name_end == std::string_view::npos) name_end = rest.size() - 1;  // "block_plug: [x]"
    std::string_view name = rest.substr(0, name_end);
    std::string_view text = name_end + 2 <= rest.size() ? rest.substr(name_end + 2) : "";
    Event e;
    EXPECT_TRUE(d.Decode(name, text, e)) << line;
    EXPECT_NE(e.kind(), EventKind::kGeneric) << line;
    ++n;
  }
  EXPECT_EQ(n, 32);
}

}  // namespace
}  // namespace tk::parsers::tp_text

namespace tk::parsers::tp_text {
namespace {

// One table of kernel events (core/kernel_events.h): the text decoder knows every entry by
// its full and its bare name, with the entry's kind; every block stage is named by it.
TEST(KernelEvents, TheTextDecoderGoesByTheCoreTable) {
  for (const KernelEvent& k : KernelEvents()) {
    std::string full(k.name), bare = full.substr(full.find(':') + 1);
    if (k.prefix) {
      full += "read";
      bare += "read";
    }
    EXPECT_EQ(TracepointTextDecoder::KindOf(full), k.kind) << full;
    EXPECT_EQ(TracepointTextDecoder::KindOf(bare), k.kind) << bare;
    EXPECT_EQ(FindKernelEvent(full), &k) << full;
    TracepointTextDecoder d;
    EXPECT_EQ(d.FullName(bare), full) << bare;
  }
  for (int s = 0; s <= static_cast<int>(BlockStage::kDirtyBuffer); ++s) {
    std::string name = "block:" + std::string(BlockStageName(static_cast<BlockStage>(s)));
    const KernelEvent* k = FindKernelEvent(name);
    ASSERT_NE(k, nullptr) << name;
    EXPECT_EQ(k->kind, EventKind::kBlockRq);
    EXPECT_EQ(k->variant, s) << name;
  }
  // A family is asked for by its kind alone, without every generic event.
  TracepointTextDecoder d;
  d.SetWanted(EventMask().Add(EventKind::kIrq));
  EXPECT_EQ(d.Kind("irq_handler_entry"), EventKind::kIrq);
  EXPECT_EQ(d.Kind("softirq_entry"), EventKind::kGeneric);
}

}  // namespace
}  // namespace tk::parsers::tp_text
