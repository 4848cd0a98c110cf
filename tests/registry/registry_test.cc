// The registry's format detection: each parser's sniffer, asked in order.
#include <string_view>

#include "gtest/gtest.h"
#include "parsers/parser.h"

namespace tk {
namespace {

TEST(Format, Detects) {
  EXPECT_EQ(DetectFormat(std::string_view("PERFILE2\x68\0\0\0\0\0\0\0", 16)), Format::kPerfData);
  EXPECT_EQ(DetectFormat(std::string_view("PERFILE2\x10\0\0\0\0\0\0\0", 16)),
            Format::kPerfDataPipe);
  EXPECT_EQ(DetectFormat("PERFFILE........"), Format::kPerfDataV1);
  EXPECT_EQ(DetectFormat(std::string_view("\x17\x08\x44tracing\x36\0", 12)), Format::kTraceDat);
  EXPECT_EQ(DetectFormat("swapper     0 [000]   267.436250:      50000 cpu-clock:pppH:\n"),
            Format::kPerfScriptText);
  EXPECT_EQ(DetectFormat("V8 WorkerThread 25607 4794564.109216: cycles:\n"),
            Format::kPerfScriptText);
  EXPECT_EQ(DetectFormat("# tracer: nop\n#\n"), Format::kFtraceText);
  EXPECT_EQ(DetectFormat("cpus=2\n          <idle>-0     [000]   123.456789: sched_switch: x\n"),
            Format::kFtraceText);
  EXPECT_EQ(DetectFormat("            bash-1234    [001] d..2.  1234.567890: sched_switch: x\n"),
            Format::kFtraceText);
  EXPECT_EQ(DetectFormat("            bash-1234    (   1234) [001] d..2.  1.5: x: y\n"),
            Format::kFtraceText);
  // perf script pads comms, so a tracepoint-only text starts every line with spaces; an exited
  // thread's ":-1    -1 [000]" ends in "-1" like ftrace's "comm-PID" (a fresh live recording
  // was read as ftrace text before the perf script header was checked first).
  EXPECT_EQ(DetectFormat("            perf 14376 [000]   910.086195:        sched:sched_wakeup: "
                         "comm=migration/0 pid=18\n"
                         "             :-1    -1 [001]   910.086201:        sched:sched_switch: x\n"),
            Format::kPerfScriptText);
  EXPECT_EQ(DetectFormat("             :-1    -1 [001]   910.086201:        sched:sched_switch: x\n"),
            Format::kPerfScriptText);
  EXPECT_EQ(DetectFormat(""), Format::kEmpty);  // refused: "empty input"
  EXPECT_EQ(DetectFormat("# only a comment\n"), Format::kPerfScriptText);
  EXPECT_EQ(DetectFormat(std::string_view("\x01\x02\x03", 3)), Format::kUnknown);
}

}  // namespace
}  // namespace tk
