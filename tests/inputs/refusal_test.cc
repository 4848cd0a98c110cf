// Wrong input refused, with one line: empty input, text that is no trace, folded stacks,
// compressed files, inputs without the events a command reads, directories, usage errors.
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/support/golden.h"

namespace tk::testing {
namespace {

// One invocation per command and mode that reads an input.
const std::vector<std::vector<std::string>> kCommands = {
    {"fold"},          {"sched", "latency"}, {"sched", "timehist"}, {"sched", "hist"},
    {"sched", "top"},  {"sched", "util"},    {"iolat"},             {"iolat", "latency"},
    {"iolat", "hist"}, {"iolat", "top"},     {"iolat", "log"},      {"script"},
    {"info"}};

std::string Name(const std::vector<std::string>& cmd) {
  std::string s;
  for (const std::string& c : cmd) s += (s.empty() ? "" : " ") + c;
  return s;
}

RunResult RunOn(std::vector<std::string> cmd, const std::string& file,
                const std::string& stdin_path = "") {
  cmd.push_back(file);
  return RunTk(cmd, stdin_path);
}

size_t Lines(const std::string& s) { return std::count(s.begin(), s.end(), '\n'); }

TEST(Refused, EmptyFileAndEmptyStdin) {
  std::string empty = ::testing::TempDir() + "/tk-empty-input";
  { FILE* f = std::fopen(empty.c_str(), "w"); std::fclose(f); }
  for (const auto& cmd : kCommands) {
    RunResult f = RunOn(cmd, empty);
    EXPECT_EQ(f.exit_code, 1) << Name(cmd);
    EXPECT_EQ(f.err, "tk: " + empty + ": empty input\n") << Name(cmd);
    EXPECT_EQ(f.out, "") << Name(cmd);
    RunResult s = RunOn(cmd, "-", empty);
    EXPECT_EQ(s.exit_code, 1) << Name(cmd);
    EXPECT_EQ(s.err, "tk: <stdin>: empty input\n") << Name(cmd);
  }
}

// Text files that are no trace: no line parses as an event.
TEST(Refused, TextThatIsNoTrace) {
  for (const char* rel : {"testdata/recorded/iolat/mountinfo.txt",       // /proc/self/mountinfo
                          "testdata/iolat/writesync.report.json",        // JSON
                          "testdata/perf_data/workload.c",               // C source
                          "testdata/inputs/perf-report.txt",             // perf report --stdio
                          "testdata/sched/perf.latency.txt",             // perf sched latency
                          "testdata/sched/perf.timehist.txt"}) {         // perf sched timehist
    for (const auto& cmd : kCommands) {
      RunResult r = RunOn(cmd, SourcePath(rel));
      EXPECT_EQ(r.exit_code, 1) << Name(cmd) << " " << rel;
      EXPECT_EQ(Lines(r.err), 1u) << Name(cmd) << " " << rel << ": " << r.err;
      EXPECT_NE(r.err.find(": unknown input format"), std::string::npos) << rel << r.err;
    }
  }
  // Procfs files say size 0 and still have content: read, not taken as empty.
  RunResult proc = RunTk({"info", "/proc/self/mountinfo"});
  EXPECT_EQ(proc.exit_code, 1);
  EXPECT_NE(proc.err.find("unknown input format"), std::string::npos) << proc.err;
}

TEST(Refused, FoldedStacksPointToFlamegraph) {
  std::string folded = SourcePath("testdata/fold/expected/proc-g-default.folded");
  for (const auto& cmd : kCommands) {
    RunResult r = RunOn(cmd, folded);
    EXPECT_EQ(r.exit_code, 1) << Name(cmd);
    EXPECT_EQ(Lines(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find("already folded stacks"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("tk flamegraph"), std::string::npos) << r.err;
  }
}

TEST(Refused, CompressedInputNamesItsCompression) {
  for (const char* z : {"gz:gzip", "xz:xz", "zst:zstd", "bz2:bzip2"}) {
    std::string ext(z, std::string_view(z).find(':'));
    std::string name(std::string_view(z).substr(ext.size() + 1));
    std::string file = SourcePath("testdata/inputs/compressed/g.script." + ext);
    for (const auto& cmd : kCommands) {
      RunResult r = RunOn(cmd, file);
      EXPECT_EQ(r.exit_code, 1) << Name(cmd);
      EXPECT_EQ(r.err, "tk: " + file + ": offset 0: " + name + "-compressed input: decompress "
                       "it first (" + (name == "gzip" ? "zcat" : name == "bzip2" ? "bzcat" : name + "cat") +
                       " FILE | tk CMD -)\n")
          << Name(cmd);
      RunResult s = RunOn(cmd, "-", file);
      EXPECT_NE(s.err.find("<stdin>: offset 0: " + name + "-compressed"), std::string::npos) << s.err;
    }
  }
}

// One line naming what is missing and what to record, and nothing on stdout (no column
// header, no empty report), from a file and from stdin.
TEST(Refused, InputWithoutTheEventsACommandReads) {
  std::string cpu_clock = SourcePath("testdata/perf_data/a.data");  // perf record -a, cpu-clock
  for (const char* sub : {"latency", "timehist", "hist", "top", "util"}) {
    for (const std::string& in : {cpu_clock, std::string("-")}) {
      RunResult r = RunOn({"sched", sub}, in, in == "-" ? cpu_clock : "");
      EXPECT_EQ(r.exit_code, 1) << sub;
      EXPECT_EQ(r.out, "") << sub << " " << in;
      EXPECT_NE(r.err.find("no sched:sched_switch events: record with perf sched record"),
                std::string::npos)
          << sub << ": " << r.err;
    }
  }
  for (std::vector<std::string> flags :
       {std::vector<std::string>{"-s"}, {"-S"}, {"-V"}, {"--state", "-w"}, {"--json"}}) {
    std::vector<std::string> cmd = {"sched", "timehist"};
    cmd.insert(cmd.end(), flags.begin(), flags.end());
    RunResult r = RunOn(cmd, cpu_clock);
    EXPECT_EQ(r.exit_code, 1) << flags[0];
    EXPECT_EQ(r.out, "") << flags[0];
  }
  // iolat on a recording of sched events only (perf sched record): every report.
  std::string sched_only = SourcePath("testdata/recorded/sched/sched.perf.data");
  for (const char* sub : {"", "latency", "hist", "top", "log"}) {
    for (bool json : {false, true}) {
      std::vector<std::string> cmd = {"iolat"};
      if (*sub) cmd.push_back(sub);
      if (json) cmd.push_back("--json");
      for (const std::string& in : {sched_only, std::string("-")}) {
        RunResult r = RunOn(cmd, in, in == "-" ? sched_only : "");
        std::string name = in == "-" ? "<stdin>" : sched_only;
        EXPECT_EQ(r.exit_code, 1) << sub;
        EXPECT_EQ(r.out, "") << sub << " json " << json;
        EXPECT_EQ(r.err, "tk: " + name + ": no block request events: record with perf record "
                         "-e 'block:*' -a (tk info lists what the file holds)\n") << sub;
      }
    }
  }
  RunResult nostack = RunTk({"fold", SourcePath("testdata/recorded/sched/sched.trace.dat")});
  EXPECT_EQ(nostack.exit_code, 1);
  EXPECT_EQ(nostack.out, "");
  EXPECT_EQ(nostack.err, "tk: " + SourcePath("testdata/recorded/sched/sched.trace.dat") +
                             ": no stacks: the input's events have no callchain (record with "
                             "perf record -g)\n");
  RunResult nosuch = RunTk({"fold", "--event-filter=nosuch", "--no-buildid-cache",
                            "--no-host-kallsyms", "--kallsyms",
                            SourcePath("testdata/perf_data/kallsyms"), cpu_clock});
  EXPECT_EQ(nosuch.exit_code, 1);
  EXPECT_EQ(nosuch.out, "");
  EXPECT_NE(nosuch.err.find(": no nosuch events (--event-filter); the input has cpu-clock:ppp\n"),
            std::string::npos)
      << nosuch.err;
}

TEST(Refused, DirectoryIsAnIoErrorEverywhere) {
  std::string dir = SourcePath("testdata");
  for (const auto& cmd : kCommands) {
    RunResult r = RunOn(cmd, dir);
    EXPECT_EQ(r.exit_code, 2) << Name(cmd) << r.err;
    EXPECT_EQ(r.err, "tk: " + dir + ": is a directory, not a trace file\n") << Name(cmd);
  }
}

// "tk fold: what (see 'tk fold --help')": one line, no doubled "tk: tk fold:" prefix.
TEST(Refused, UsageErrorIsOneLine) {
  for (const auto& cmd : kCommands) {
    std::vector<std::string> args = cmd;
    args.push_back("--no-such-flag");
    RunResult r = RunTk(args);
    EXPECT_EQ(r.exit_code, 2) << Name(cmd);
    EXPECT_EQ(Lines(r.err), 1u) << Name(cmd) << ": " << r.err;
    EXPECT_EQ(r.err.rfind("tk " + cmd[0] + ": ", 0), 0u) << r.err;
    EXPECT_EQ(r.err.find("tk: tk"), std::string::npos) << r.err;
  }
  RunResult unknown = RunTk({"nosuch"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_EQ(unknown.err, "tk: unknown command 'nosuch' (tk help lists the commands)\n");
  RunResult sort = RunTk({"sched", "latency", "-s", "bogus", "x"});
  EXPECT_EQ(sort.exit_code, 2);
  EXPECT_EQ(sort.err.rfind("tk sched latency: unknown --sort key", 0), 0u) << sort.err;
  for (std::vector<std::string> neg : {std::vector<std::string>{"sched", "top", "-n", "-1", "x"},
                                       {"iolat", "top", "-n", "-3", "x"}}) {
    RunResult r = RunTk(neg);
    EXPECT_EQ(r.exit_code, 2) << Name(neg);
    EXPECT_NE(r.err.find("must not be negative: -"), std::string::npos) << r.err;
    EXPECT_EQ(Lines(r.err), 1u) << r.err;
  }
}

TEST(Refused, WriteErrorCarriesStrerror) {
  std::string err = ::testing::TempDir() + "/tk-write-error.txt";
  std::string cmd = std::string(TK_BINARY) + " fold " + SourcePath("testdata/fold/proc-g.txt") +
                    " > /dev/full 2> " + err;
  int rc = std::system(cmd.c_str());
  EXPECT_EQ(WEXITSTATUS(rc), 2);
  EXPECT_EQ(ReadFile(err), "tk: error writing output: No space left on device\n");
}

TEST(Refused, LossIsReportedOnce) {
  RunResult r = RunTk({"info", SourcePath("testdata/recorded/lost/lost.perf.data")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "tk: " + SourcePath("testdata/recorded/lost/lost.perf.data") +
                       ": 12748 samples lost (LOST_SAMPLES records; LOST records count 10758 "
                       "events: the ring buffer was full)\n");
}

TEST(Help, VersionHelpHelpAndSubcommandHelp) {
  RunResult v = RunTk({"--version"});
  EXPECT_EQ(v.exit_code, 0);
  EXPECT_EQ(v.out.rfind("tk ", 0), 0u) << v.out;
  EXPECT_EQ(Lines(v.out), 1u);
  RunResult hh = RunTk({"help", "help"});
  EXPECT_EQ(hh.exit_code, 0) << hh.err;
  EXPECT_NE(hh.out.find("usage: tk COMMAND"), std::string::npos) << hh.out;
  RunResult sl = RunTk({"help", "sched", "latency"});
  EXPECT_EQ(sl.exit_code, 0) << sl.err;
  EXPECT_EQ(sl.out, RunTk({"sched", "latency", "--help"}).out);
  EXPECT_NE(sl.out.find("--sort"), std::string::npos) << sl.out;
  RunResult it = RunTk({"help", "iolat", "top"});
  EXPECT_NE(it.out.find("--d2c"), std::string::npos) << it.out;
}

}  // namespace
}  // namespace tk::testing
