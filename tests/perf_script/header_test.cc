// The header-line decoder: every header shape of docs/inputs.md and perf's side-band lines.
#include "parsers/perf_script/header.h"

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "core/strings.h"
#include "gtest/gtest.h"
#include "tests/support/golden.h"

namespace tk::parsers::perf_script {
namespace {

TEST(Header, CpuPeriodModifiers) {
  auto h = ParseHeader("swapper     0 [000]   267.436250:      50000 cpu-clock:pppH:");
  ASSERT_TRUE(h);
  EXPECT_EQ(h->comm, "swapper");
  EXPECT_EQ(h->pid, -1);
  EXPECT_EQ(h->tid, 0);
  EXPECT_EQ(h->cpu, 0);
  EXPECT_EQ(h->ts_ns, 267436250000);
  EXPECT_TRUE(h->has_period);
  EXPECT_EQ(h->period, 50000u);
  EXPECT_EQ(h->event, "cpu-clock:pppH");
  EXPECT_EQ(h->rest, "");
}

TEST(Header, NoCpuNoPeriod) {
  auto h = ParseHeader("java 25607 4794564.109216: cycles:");
  ASSERT_TRUE(h);
  EXPECT_EQ(h->comm, "java");
  EXPECT_EQ(h->tid, 25607);
  EXPECT_EQ(h->cpu, -1);
  EXPECT_EQ(h->ts_ns, 4794564109216000);
  EXPECT_FALSE(h->has_period);
  EXPECT_EQ(h->period, 1u);
  EXPECT_EQ(h->event, "cycles");
}

TEST(Header, NanosecondTimestamp) {
  auto h = ParseHeader("bash 1234 [003] 4794564.109216123: 1 cycles:u:");
  ASSERT_TRUE(h);
  EXPECT_EQ(h->ts_ns, 4794564109216123);
  EXPECT_EQ(h->event, "cycles:u");
}

TEST(Header, CommWithSpacesAndPidTid) {
  auto h = ParseHeader("V8 WorkerThread 24636/25607 [000] 94564.109216: 100 cycles:");
  ASSERT_TRUE(h);
  EXPECT_EQ(h->comm, "V8 WorkerThread");
  EXPECT_EQ(h->pid, 24636);
  EXPECT_EQ(h->tid, 25607);
  EXPECT_EQ(h->period, 100u);
}

TEST(Header, CommHoldingANumber) {
  // The first all-digit word is not the PID when the rest does not fit a header.
  auto h = ParseHeader("GC Thread 2 1234 [001] 10.000001: cycles:");
  ASSERT_TRUE(h);
  EXPECT_EQ(h->comm, "GC Thread 2");
  EXPECT_EQ(h->tid, 1234);
}

TEST(Header, OneCharacterComm) {
  auto h = ParseHeader("a 77 [001] 1.5: 3 cycles:");
  ASSERT_TRUE(h);
  EXPECT_EQ(h->comm, "a");
  EXPECT_EQ(h->tid, 77);
  EXPECT_EQ(h->ts_ns, 1500000000);
}

TEST(Header, UnknownTaskMinusOne) {
  auto h = ParseHeader(":-1    -1 [000]   267.889726:      50000 cpu-clock:pppH:");
  ASSERT_TRUE(h);
  EXPECT_EQ(h->comm, ":-1");
  EXPECT_EQ(h->tid, -1);
  EXPECT_EQ(h->pid, -1);
  EXPECT_EQ(h->period, 50000u);
  EXPECT_EQ(h->cpu, 0);
}

TEST(Header, RightAlignedComm) {
  auto h = ParseHeader("             :-1    -1 [012] 7371180.979822:       sched:sched_waking: "
                       "comm=migration/2 pid=25 prio=0 target_cpu=002");
  ASSERT_TRUE(h);
  EXPECT_EQ(h->comm, ":-1");
  EXPECT_EQ(h->event, "sched:sched_waking");
  EXPECT_EQ(h->rest, "comm=migration/2 pid=25 prio=0 target_cpu=002");
}

TEST(Header, NoTimestamp) {
  auto h = ParseHeader("java 19983 cycles:");
  ASSERT_TRUE(h);
  EXPECT_EQ(h->ts_ns, -1);
  EXPECT_EQ(h->event, "cycles");
}

TEST(Header, StackOnHeaderLine) {
  auto h = ParseHeader(
      "false 64414 20110.539270:      34467 cycles:u:  ffffffff9aa3c8de [unknown] ([unknown])");
  ASSERT_TRUE(h);
  EXPECT_EQ(h->event, "cycles:u");
  EXPECT_EQ(h->rest, "ffffffff9aa3c8de [unknown] ([unknown])");
  EXPECT_EQ(h->period, 34467u);
}

TEST(Header, TracepointFields) {
  auto h = ParseHeader(
      "perf 123 [000] 1.000000: sched:sched_switch: prev_comm=perf prev_pid=123 prev_prio=120 "
      "prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120");
  ASSERT_TRUE(h);
  EXPECT_EQ(h->event, "sched:sched_switch");
  EXPECT_TRUE(h->rest.starts_with("prev_comm=perf"));
  EXPECT_FALSE(h->has_period);
}

TEST(Header, TrailingSpaceAndCr) {
  auto h = ParseHeader("dd 29776 666709.771979:   10101010 cpu-clock: \r");
  ASSERT_TRUE(h);
  EXPECT_EQ(h->event, "cpu-clock");
  EXPECT_EQ(h->rest, "");
}

TEST(Header, SideBand) {
  auto c = ParseHeader("sh  9292   762.349658: PERF_RECORD_COMM exec: sh:9292/9292");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->side, SideBand::kComm);
  EXPECT_TRUE(c->exec);
  EXPECT_EQ(c->side_comm, "sh");
  EXPECT_EQ(c->other_tid, 9292);
  auto f = ParseHeader("sh  9292   762.351300: PERF_RECORD_FORK(9294:9294):(9292:9292)");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->side, SideBand::kFork);
  EXPECT_EQ(f->pid, 9294);
  EXPECT_EQ(f->other_pid, 9292);
  auto l = ParseHeader("perf 1 [002] 5.000000: PERF_RECORD_LOST lost 25");
  ASSERT_TRUE(l);
  EXPECT_EQ(l->side, SideBand::kLost);
  EXPECT_EQ(l->lost, 25u);
  auto m = ParseHeader("sh  9292   762.349698: PERF_RECORD_MMAP2 9292/9292: [0x5(0x1) @ 0x4]: r-xp /x");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->side, SideBand::kOther);
  auto cpu = ParseHeader("CPU 3: 12 events lost");
  ASSERT_TRUE(cpu);
  EXPECT_EQ(cpu->side, SideBand::kLost);
  EXPECT_EQ(cpu->cpu, 3);
  EXPECT_EQ(cpu->lost, 12u);
}

TEST(Header, NotHeaders) {
  EXPECT_FALSE(ParseHeader(""));
  EXPECT_FALSE(ParseHeader("   "));
  EXPECT_FALSE(ParseHeader("# cmdline : /usr/bin/perf record -g"));
  EXPECT_FALSE(ParseHeader("\tffffffff821f2c2b pv_native_safe_halt+0xb ([kernel.kallsyms])"));
  EXPECT_FALSE(ParseHeader("ffffffff8103d0ca native_write_msr_safe ([kernel.kallsyms])"));
  EXPECT_FALSE(ParseHeader("          400530 main 12 (/tmp/a.out)"));
  EXPECT_FALSE(ParseHeader("THIS_IS_A_WEIRD_LINE"));
  EXPECT_FALSE(ParseHeader("java 123"));                       // neither time nor event
  EXPECT_FALSE(ParseHeader("java 123 [000] 1.x: cycles:"));    // bad time
  EXPECT_FALSE(ParseHeader("java 99999999999 1.0: cycles:"));  // tid overflows
}


std::string Fields(const Header& h) {
  std::ostringstream o;
  o << "[" << h.comm << "] " << h.pid << "/" << h.tid << " cpu " << h.cpu << " ts " << h.ts_ns
    << " period " << h.period << h.has_period << " [" << h.event << "] [" << h.rest << "] side "
    << static_cast<int>(h.side) << " " << h.lost << " " << h.other_pid << "/" << h.other_tid
    << h.exec << " [" << h.side_comm << "]";
  return o.str();
}

// ParseHeaderInto's one-pass parse of perf's usual layout gives what the general parse
// gives, on lines near that layout's limits and on every line of the text fixtures.
void ExpectSameAsGeneral(std::string_view line) {
  Header fast, general;
  bool a = ParseHeaderInto(line, &fast);
  bool b = ParseHeaderGeneral(line, &general);
  ASSERT_EQ(a, b) << line;
  if (a) EXPECT_EQ(Fields(fast), Fields(general)) << line;
}

TEST(Header, UsualLayoutParsesAsTheGeneralParse) {
  for (std::string_view line : {
           "perf-exec 29542 [000]   918.805789:     250000 cpu-clock:pppH: ",
           "cc1plus 29526 [001]   918.805857:     250000 cpu-clock:pppH:",
           "java 24636/25607 [000] 4794564.109216: 1 cycles:",
           "java 0024636/025607 [000] 4794564.109216: cycles:u:  ffffffff9aa3c8de x ([k])",
           "dd 9615 [001] 3378.902848: sched:sched_switch: prev_comm=dd prev_pid=9615 ==> x",
           "sh 9292 [000] 762.351300: PERF_RECORD_FORK(9294:9294):(9292:9292)",
           "sh 9292 [000] 762.351300: 12 PERF_RECORD_X:",
           "a 1 [0] 1.1: 1 e:",
           "a 1 [0] 1.1: e",
           "a 1 [0] 1.1:",
           "a 1 [0] 1.1: 1",
           "a 1 [0] 1.1: 1 :",
           "a 999999999 [999999999] 99999999.999999999: 999999999999999999 e: r",
           "a 1234567890 [0] 1.1: 1 e:",
           "a 1 [1234567890] 1.1: 1 e:",
           "a 1 [0] 123456789.1: 1 e:",
           "a 1 [0] 922337203.1: 1 e:",
           "a 1 [0] 1.1234567890: 1 e:",
           "a 1 [0] 1.: 1 e:",
           "a 1 [0] .1: 1 e:",
           "a 1 [0] 1.1.1: 1 e:",
           "a 1 [0] 1x1: 1 e:",
           "a 1 [0] 1.1: 1234567890123456789 e:",
           "a 1 [0] 1.1: 12x e:",
           "a 1 [-1] 1.1: 1 e:",
           "a 1 [] 1.1: 1 e:",
           "a 1/ [0] 1.1: 1 e:",
           "a /1 [0] 1.1: 1 e:",
           "a 1/2/3 [0] 1.1: 1 e:",
           "a -1 [0] 1.1: 1 e:",
           "a 1 2 [0] 1.1: 1 e:",
           "a 1 [0]\t1.1:\t1 e:\tr ",
           "GC Thread 2 1234 [000] 1.000000: 1 cycles:",
           "V8 WorkerThread 25607 [000] 4794564.109216: cycles:",
           "CPU 3: 12 events lost",
           "CPU 0 [000] 1.000000: 1 cycles:",
           "Chrome 1 [000] 1.000000: 1 cycles:",
           ":-1    -1 [000]   267.889726:      50000 cpu-clock:pppH:",
           "  swapper     0 [000]   267.436250:      50000 cpu-clock:pppH:\r",
           "# comment 1 [0] 1.1: 1 e:",
           "",
       }) {
    ExpectSameAsGeneral(line);
  }
  int files = 0;
  for (const char* dir : {"testdata/fold", "testdata/inputs", "testdata/offcpu"}) {
    for (const auto& f : std::filesystem::directory_iterator(tk::testing::SourcePath(dir))) {
      if (f.path().extension() != ".txt") continue;
      ++files;
      std::istringstream text(tk::testing::ReadFile(f.path().string()));
      for (std::string line; std::getline(text, line);) ExpectSameAsGeneral(line);
    }
  }
  EXPECT_GT(files, 5);
}

// HeaderParser's memo of the last two lines gives what ParseHeaderInto gives, line after
// line: the fixtures in order, and lines that differ from the ones before only in their
// time (digits, non-digits, a moved or missing '.', more digits) or elsewhere.
void ExpectParserAsInto(HeaderParser& parser, std::string_view line) {
  Header memo, into;
  bool a = parser.Parse(line, &memo);
  bool b = ParseHeaderInto(line, &into);
  ASSERT_EQ(a, b) << line;
  if (!a) return;
  EXPECT_EQ(Fields(memo), Fields(into)) << line;
  // Views into the line given, not into a remembered one.
  EXPECT_TRUE(memo.comm.data() >= line.data() && memo.comm.data() < line.data() + line.size())
      << line;
  EXPECT_TRUE(memo.event.empty() || (memo.event.data() >= line.data() &&
                                     memo.event.data() < line.data() + line.size()))
      << line;
}

TEST(Header, ParserRemembersLinesAsParseHeaderIntoParses) {
  int files = 0;
  for (const char* dir : {"testdata/fold", "testdata/inputs", "testdata/offcpu"}) {
    for (const auto& f : std::filesystem::directory_iterator(tk::testing::SourcePath(dir))) {
      if (f.path().extension() != ".txt") continue;
      ++files;
      HeaderParser parser;
      std::istringstream text(tk::testing::ReadFile(f.path().string()));
      for (std::string line; std::getline(text, line);) ExpectParserAsInto(parser, line);
    }
  }
  EXPECT_GT(files, 5);
  const std::vector<std::string> lines = {
      "cc1plus 15867 [000]  1390.881270:     250000 cpu-clock:ppp: ",
      "swapper     0 [001]  1390.881271:     250000 cpu-clock:ppp: ",
      "cc1plus 15867 [000]  1390.881520:     250000 cpu-clock:ppp: ",
      "swapper     0 [001]  1390.881521:     250000 cpu-clock:ppp: ",
      "cc1plus 15867 [000]  1390.881x20:     250000 cpu-clock:ppp: ",
      "cc1plus 15867 [000]  1390.8815200     250000 cpu-clock:ppp: ",
      "cc1plus 15867 [000]  1390:881520:     250000 cpu-clock:ppp: ",
      "cc1plus 15867 [000]  139.0881520:     250000 cpu-clock:ppp: ",
      "cc1plus 15867 [000]  1390.881520:     250000 cpu-clock:ppp: ",
      "cc1plus 15867 [000]  13.0.881520:     250000 cpu-clock:ppp: ",
      "cc1plus 15867 [000]  1391.881520:     250000 cpu-clock:ppp: ",
      "cc1plus 15867 [000]  1390.881520:     250001 cpu-clock:ppp: ",
      "cc1plus 15868 [000]  1390.881520:     250001 cpu-clock:ppp: ",
      "cc1plus 15868 [000] 11390.881520:     250001 cpu-clock:ppp: ",
      "cc1plus 15868 [000] 1139 .881520:     250001 cpu-clock:ppp: ",
      "a 1 [0] 1.1: 1 e:",
      "a 1 [0] 2.2: 1 e:",
      "a 1 [0] 2.: 1 e:",
      "a 1 [0] .22: 1 e:",
      "a 1 [0] 2.2: 1 e:",
      "a 1 [0] 99999999.123456789: 1 e:",
      "a 1 [0] 99999999.987654321: 1 e:",
      "a 1 [0] 99999999.98765432a: 1 e:",
      "a 1 [0] 9999999a.987654321: 1 e:",
      "a 1 [0] 99999999.987654321: 1 e:",
      "java 24636/25607 [000] 4794564.109216: cycles:u:  ffffffff9aa3c8de x ([k])",
      "java 24636/25607 [000] 4794564.109217: cycles:u:  ffffffff9aa3c8de x ([k])",
      "dd 9615 [001] 3378.902848: sched:sched_switch: prev_comm=dd prev_pid=9615 ==> x",
      "dd 9615 [001] 3378.902849: sched:sched_switch: prev_comm=dd prev_pid=9615 ==> x",
      "sh 9292 [000] 762.351300: PERF_RECORD_FORK(9294:9294):(9292:9292)",
      "sh 9292 [000] 762.351301: PERF_RECORD_FORK(9294:9294):(9292:9292)",
      "# comment 1 [0] 1.1: 1 e:",
      "",
  };
  HeaderParser parser;
  for (int round = 0; round < 2; ++round) {
    for (const std::string& line : lines) ExpectParserAsInto(parser, line);
  }
}

// Short lines' numbers are read eight digits at a time: every byte of every number replaced
// by digits, the bytes around '0'-'9' ('/', ':', '?', '@', ...) and high bytes, in lines
// of every length around the 64 bytes that path takes.
TEST(Header, UsualLayoutNumbersByteByByte) {
  const std::string bytes = std::string("09/:;?@.aA -\x80\xff") + '\0';
  for (std::string base : {
           std::string("cc1plus 15867 [000]  1390.881270:     250000 cpu-clock:ppp: "),
           std::string("j 24636/25607 [001] 4794564.109216: 12345678 cycles:u:"),
           std::string("\xc3\xa9t\xc3\xa9 1 [1] 12345678.123456789: 1 e: x"),
       }) {
    for (size_t pad = 0; pad < 12; ++pad) {
      // Padding the comm moves the line across 64 bytes.
      std::string line = base;
      line.insert(1, std::string(pad * 2, 'c'));
      ExpectSameAsGeneral(line);
      const size_t comm_end = line.find(' ');
      for (size_t i = comm_end + 1; i < line.size(); ++i) {
        if (!IsDigit(line[i])) continue;
        for (char b : bytes) {
          std::string changed = line;
          changed[i] = b;
          ExpectSameAsGeneral(changed);
        }
      }
    }
  }
}

}  // namespace
}  // namespace tk::parsers::perf_script
