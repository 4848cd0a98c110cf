// tk script on perf.data against perf script 6.1's own output of the same files: the default
// shape (testdata/perf_data/*.script from record.sh, the recorded sets' perf-script.txt) and -F
// field lists (testdata/script/perf-fields.sh). Byte for byte: comm padding (none when a
// callchain follows), event names padded to the file's longest, sym+0xoff, no sample-IP line
// under tracepoints recorded without a callchain.
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/support/golden.h"

namespace tk::testing {
namespace {

const std::vector<std::string> kHostFree = {"--no-buildid-cache", "--no-host-kallsyms"};

RunResult Script(const std::string& file, std::vector<std::string> extra = {}, bool symfs = false) {
  std::vector<std::string> args = {"script"};
  args.insert(args.end(), kHostFree.begin(), kHostFree.end());
  if (symfs) {
    args.insert(args.end(), {"--symfs", SourcePath("testdata/perf_data/symfs"), "--kallsyms",
                             SourcePath("testdata/perf_data/kallsyms")});
  }
  args.insert(args.end(), extra.begin(), extra.end());
  args.push_back(SourcePath(file));
  return RunTk(args);
}

void ExpectSame(const RunResult& r, const std::string& expected_file) {
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string want = ReadFile(SourcePath(expected_file));
  ASSERT_FALSE(want.empty()) << expected_file;
  EXPECT_EQ(r.out, want) << expected_file << "\n" << UnifiedDiff(want, r.out);
}

TEST(ScriptPerfShape, DefaultOutputIsPerfScripts) {
  for (const char* f : {"g", "a", "multi", "z", "pipe"}) {
    ExpectSame(Script(std::string("testdata/perf_data/") + f + ".data", {}, true),
               std::string("testdata/perf_data/") + f + ".script");
  }
  // Tracepoints without callchains: padded event names, no IP line.
  ExpectSame(Script("testdata/recorded/sched/sched.perf.data"),
             "testdata/recorded/sched/sched.perf-script.txt");
  ExpectSame(Script("testdata/recorded/iolat/writesync.perf.data"),
             "testdata/recorded/iolat/writesync.perf-script.txt");
}

TEST(ScriptPerfShape, FieldListsArePerfScriptFs) {
  ExpectSame(Script("testdata/perf_data/g.data",
                    {"-F", "comm,pid,tid,time,period,event,ip,sym,symoff"}, true),
             "testdata/script/perf.g.F-comm-pid-tid-time-period-event-ip-sym-symoff.txt");
  ExpectSame(Script("testdata/perf_data/g.data", {"-F", "tid,time,ip,dso"}, true),
             "testdata/script/perf.g.F-tid-time-ip-dso.txt");
  RunResult r = Script("testdata/recorded/sched/sched.perf.data",
                       {"--fields", "comm,pid,tid,cpu,time,event,trace"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream in(r.out);
  std::string line, head;
  for (int i = 0; i < 200 && std::getline(in, line); ++i) head += line + "\n";
  RunResult first{0, head, ""};
  ExpectSame(first, "testdata/script/perf.sched.F-comm-pid-tid-cpu-time-event-trace.head200.txt");
}

TEST(ScriptPerfShape, UnknownFieldIsAUsageError) {
  RunResult r = Script("testdata/perf_data/g.data", {"-F", "comm,bogus"}, true);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("bogus"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace tk::testing
