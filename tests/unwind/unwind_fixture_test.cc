// --call-graph dwarf unwinding on the recordings of testdata/dwarf (record.sh) against perf
// 6.1's own output of the same files (`perf script [--no-inline] | stackcollapse-perf.pl`,
// made by record.sh and never rewritten by tk). tk reads only the shipped files: HOME points
// at the fixture's build-id cache, --symfs at its copies, --kallsyms at its trimmed kallsyms.
//
// Known deviations, applied here explicitly (docs/dwarf-unwinding.md):
//  - perf 6.1 names the fixture binary's PLT entries "_init" (its rb-tree lookup meets the
//    _init symbol, extended over .plt, first); tk names them "clock_gettime@plt".
//  - z.data and pipe.data carry no build ids; perf used this host's vdso for them, tk (run
//    with --no-host-kallsyms) has no vdso image: vdso lines are left out of that comparison.
//  - sys.data: only the fixture's processes and the kernel-only idle task are compared; the
//    other processes' ELFs are not shipped (perf read them from the recording host).
#include <cstdlib>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/absl_compat.h"
#include "gtest/gtest.h"
#include "tests/support/golden.h"

namespace tk::testing {
namespace {

std::string Dir() { return SourcePath("testdata/dwarf"); }

RunResult Fold(const std::vector<std::string>& extra, const std::string& stdin_path = "") {
  ::setenv("HOME", (Dir() + "/home").c_str(), 1);  // the shipped build-id cache
  std::vector<std::string> args = {"fold", "--symfs", Dir() + "/symfs", "--kallsyms",
                                   Dir() + "/kallsyms", "--no-host-kallsyms"};
  args.insert(args.end(), extra.begin(), extra.end());
  return RunTk(args, stdin_path);
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  for (absl::string_view l : absl::StrSplit(text, '\n', absl::SkipEmpty())) out.emplace_back(l);
  return out;
}

std::string Join(std::vector<std::string> lines) {
  std::sort(lines.begin(), lines.end());
  return absl::StrJoin(lines, "\n") + "\n";
}

// tk's PLT names as perf 6.1 prints them for this binary.
std::string PltAsPerf(const std::string& folded) {
  std::vector<std::string> out;
  for (std::string l : Lines(folded)) {
    size_t at = l.find(";clock_gettime@plt");
    if (at != std::string::npos) l.replace(at, 18, ";_init");
    out.push_back(l);
  }
  return Join(out);
}

std::string Without(const std::string& folded, const std::string& needle) {
  std::vector<std::string> out;
  for (const std::string& l : Lines(folded)) {
    if (l.find(needle) == std::string::npos) out.push_back(l);
  }
  return Join(out);
}

std::string OnlyComms(const std::string& folded, const std::set<std::string>& comms) {
  std::vector<std::string> out;
  for (const std::string& l : Lines(folded)) {
    if (comms.count(l.substr(0, l.find(';')))) out.push_back(l);
  }
  return Join(out);
}

void ExpectSame(const std::string& want, const std::string& got, const std::string& what) {
  EXPECT_EQ(want, got) << what << "\n" << UnifiedDiff(want, got);
}

class Oracle : public ::testing::TestWithParam<bool> {  // inline frames on?
 protected:
  // tk fold's output for F.data and perf's folded output for the same mode.
  std::pair<std::string, std::string> FoldAndOracle(const std::string& f) {
    std::vector<std::string> args = {Dir() + "/" + f + ".data"};
    if (!GetParam()) args.push_back("--no-inline");
    RunResult r = Fold(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return {r.out, ReadFile(Dir() + "/" + f + (GetParam() ? ".folded" : ".noinline.folded"))};
  }
};

TEST_P(Oracle, DwarfAndTruncatedMatchPerf) {
  for (std::string f : {"dwarf", "trunc"}) {
    auto [got, want] = FoldAndOracle(f);
    ExpectSame(Join(Lines(want)), PltAsPerf(got), f);
  }
}

TEST_P(Oracle, CompressedAndPipeMatchPerfOutsideTheVdso) {
  for (std::string f : {"z", "pipe"}) {
    auto [got, want] = FoldAndOracle(f);
    ExpectSame(Without(want, "vdso"), Without(PltAsPerf(got), "vdso"), f);
  }
}

TEST_P(Oracle, SystemWideMatchesPerfForShippedProcesses) {
  auto [out, want] = FoldAndOracle("sys");
  std::set<std::string> comms = {"unwind_fixture", "swapper"};
  std::string got = OnlyComms(PltAsPerf(out), comms);
  EXPECT_NE(got.find("unwind_fixture;_start;"), std::string::npos);
  ExpectSame(OnlyComms(want, comms), got, "sys");
}

INSTANTIATE_TEST_SUITE_P(Inline, Oracle, ::testing::Bool());

// The inline frames of the fixture: mix inlined into its three callers, qsort's merge sort
// inlined into __qsort_r, DWARF names replacing ELF aliases.
TEST(Unwind, InlineFramesAsPerfNamesThem) {
  RunResult r = Fold({Dir() + "/dwarf.data"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* s : {";main;inl_caller;mix ", ";cmp;mix ", ";rec;mix ", "_start;__libc_start_main_impl;",
                        ";__GI___qsort_r;msort_with_tmp;", ";__GI_raise;__pthread_kill_implementation;[libc.so.6];on_signal;inl_caller;mix "}) {
    EXPECT_NE(r.out.find(s), std::string::npos) << s;
  }
  RunResult plain = Fold({Dir() + "/dwarf.data", "--no-inline"});
  EXPECT_EQ(plain.out.find(";mix"), std::string::npos);
}

// Sample weight by leaf function.
std::map<std::string, uint64_t> Leaves(const std::string& folded) {
  std::map<std::string, uint64_t> out;
  for (const std::string& l : Lines(folded)) {
    size_t sp = l.rfind(' ');
    std::string stack = l.substr(0, sp);
    out[stack.substr(stack.rfind(';') + 1)] += std::stoull(l.substr(sp + 1));
  }
  return out;
}

// perf 6.1 shows only the leaf of a static executable (no .eh_frame_hdr); tk unwinds it
// (libdw reads .eh_frame): every stack reaches _start, and the samples' leaves are perf's.
TEST(Unwind, StaticExecutableUnwoundToStart) {
  RunResult r = Fold({Dir() + "/static.data", "--no-inline"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const std::string& l : Lines(r.out)) {
    EXPECT_TRUE(l.starts_with("unwind_static;_start;__libc_start_main_impl;__libc_start_call_main;main;")) << l;
  }
  EXPECT_EQ(Leaves(r.out), Leaves(ReadFile(Dir() + "/static.noinline.folded")));
  // The program's own frames are those of the frame-pointer build (recorded with -g).
  for (const char* s : {";main;rec;rec", ";__clock_gettime;__vdso_clock_gettime"}) {
    EXPECT_NE(ReadFile(Dir() + "/fpstatic.noinline.folded").find(s), std::string::npos) << s;
    EXPECT_NE(r.out.find(s), std::string::npos) << s;
  }
}

// perf 6.1 does not read .debug_frame (no unwinding past the program's own functions);
// libdw does: every stack reaches _start, the leaves are perf's, the program's frames are
// those of the frame-pointer build.
TEST(Unwind, DebugFrameOnlyCodeUnwoundToStart) {
  RunResult r = Fold({Dir() + "/dbgframe.data", "--no-inline"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const std::string& l : Lines(r.out)) {
    EXPECT_TRUE(l.starts_with("unwind_dbgframe;_start;__libc_start_main@@GLIBC_2.34;__libc_start_call_main;main;")) << l;
  }
  std::map<std::string, uint64_t> perf = Leaves(ReadFile(Dir() + "/dbgframe.noinline.folded"));
  perf["clock_gettime@plt"] += perf["_init"];  // the PLT deviation (see the top)
  perf.erase("_init");
  EXPECT_EQ(Leaves(r.out), perf);
  EXPECT_NE(r.out.find(";main;rec;rec;rec "), std::string::npos);
  EXPECT_NE(ReadFile(Dir() + "/fp.noinline.folded").find(";main;rec;rec"), std::string::npos);
}

// The i386 ABI (record32.sh): perf 6.1 does not unwind it at all (Debian's perf has no
// libunwind-x86: "target platform=x86 is not supported"), its stacks are empty. tk unwinds
// with the i386 CFI (9 registers, 4-byte words): the program's frames are those the kernel
// walks in the frame-pointer build (fp32.data, -g), and the sample weights are perf's.
TEST(Unwind, I386AbiUnwound) {
  RunResult r = Fold({Dir() + "/m32.data", "--no-inline"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("229 user stacks: 187 unwound to the end, 0 cut at the end of the stack "
                       "dump, 42 stopped for missing CFI or ELF"), std::string::npos) << r.err;
  const std::string perf = ReadFile(Dir() + "/m32.noinline.folded");
  uint64_t total = 0, rooted = 0;
  for (const std::string& l : Lines(r.out)) {
    uint64_t n = std::stoull(l.substr(l.rfind(' ') + 1));
    total += n;
    if (l.starts_with("unwind_m32;_start;__libc_start_main;[libc.so.6];main;")) rooted += n;
  }
  EXPECT_EQ(perf, absl::StrCat("unwind_m32 ", total, "\n"));  // perf: no frames at all
  EXPECT_GT(rooted * 10, total * 8) << r.out;                   // 82% reach _start
  for (const char* s : {";main;rec;rec;rec;rec;rec", ";main;inl_caller ", ";cmp ",
                        ";on_signal;inl_caller ", ";__clock_gettime64 "}) {
    EXPECT_NE(ReadFile(Dir() + "/fp32.noinline.folded").find(s), std::string::npos) << s;
    EXPECT_NE(r.out.find(s), std::string::npos) << s;
  }
  // The compat vdso is perf's [vdso32] (its build id is recorded under that name). Its C
  // functions have no CFI: their samples stop at the leaf.
  EXPECT_NE(r.out.find("\nunwind_m32;__vdso_clock_gettime64 "), std::string::npos) << r.out;
}

TEST(Unwind, CountersOnStderr) {
  RunResult r = Fold({Dir() + "/trunc.data", "--no-inline"});
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_NE(r.err.find("--call-graph dwarf: 43 user stacks: 25 unwound to the end, 18 cut at the "
                       "end of the stack dump, 0 stopped for missing CFI or ELF"),
            std::string::npos)
      << r.err;
}

TEST(Unwind, InfoShowsTheCounters) {
  ::setenv("HOME", (Dir() + "/home").c_str(), 1);
  RunResult r = RunTk({"info", "--json", Dir() + "/trunc.data"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* s : {"\"unwound_to_end\": 25", "\"cut_at_dump_end\": 18",
                        "\"stopped_no_cfi_or_elf\": 0"}) {
    EXPECT_NE(r.out.find(s), std::string::npos) << s << "\n" << r.out;
  }
}

// tk script prints the unwound callchain as perf script does (here without the +0x offsets:
// -F without symoff):
//   13c6 mix (inlined)
//   13c6 rec (/tmp/tk-dwarf/unwind_fixture)
//   13a4 rec (/tmp/tk-dwarf/unwind_fixture)
TEST(Unwind, ScriptPrintsTheUnwoundCallchain) {
  ::setenv("HOME", (Dir() + "/home").c_str(), 1);
  RunResult r = RunTk({"script", "--no-host-kallsyms", "-F", "comm,tid,time,period,event,ip,sym,dso",
                       Dir() + "/dwarf.data"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* s : {"\t            13c6 mix (inlined)\n\t            13c6 rec (/tmp/tk-dwarf/unwind_fixture)\n\t            13a4 rec (/tmp/tk-dwarf/unwind_fixture)\n",
                        " 3c04f [unknown] (/usr/lib/x86_64-linux-gnu/libc.so.6)\n",
                        " 11a0 _start (/tmp/tk-dwarf/unwind_fixture)\n"}) {
    EXPECT_NE(r.out.find(s), std::string::npos) << s;
  }
}

// The user stacks are unwound on the reading thread with --threads 2 and on the only thread
// with --threads 1 (parsers/perf_data/unwind_ahead.h): the same folded stacks, counters and
// `tk script` callchains either way, from a file and from stdin, inline frames on and off.
TEST(Unwind, StdinAndThreadsGiveTheSameStacks) {
  RunResult file = Fold({Dir() + "/pipe.data"});
  RunResult in = Fold({"-"}, Dir() + "/pipe.data");
  RunResult in1 = Fold({"-", "--threads", "1"}, Dir() + "/pipe.data");
  RunResult one = Fold({Dir() + "/pipe.data", "--threads", "1"});
  ASSERT_EQ(file.exit_code, 0);
  EXPECT_EQ(file.out, in.out);
  EXPECT_EQ(file.out, in1.out);
  EXPECT_EQ(file.out, one.out);
  EXPECT_NE(file.out.find("main;"), std::string::npos) << file.out;
  // Every fixture: many processes (system-wide), the i386 ABI, cut stacks, static and
  // .debug_frame-only code, signal frames.
  for (const char* f : {"/sys.data", "/m32.data", "/dwarf.data", "/trunc.data", "/static.data",
                        "/dbgframe.data", "/z.data"}) {
    for (bool inl : {true, false}) {
      std::vector<std::string> a = {Dir() + f, "--threads", "1"};
      if (!inl) a.push_back("--no-inline");
      RunResult t1 = Fold(a);
      a[2] = "2";
      RunResult t2 = Fold(a);
      ASSERT_EQ(t1.exit_code, 0) << t1.err;
      EXPECT_EQ(t1.out, t2.out) << f;
      EXPECT_EQ(t1.err, t2.err) << f;  // the unwinding counters
      EXPECT_NE(t1.err.find("--call-graph dwarf: "), std::string::npos) << f << t1.err;
      EXPECT_FALSE(t1.out.empty()) << f;
    }
    std::vector<std::string> script = {"script", "--symfs", Dir() + "/symfs", "--kallsyms",
                                       Dir() + "/kallsyms", "--no-host-kallsyms", Dir() + f,
                                       "--threads", "1"};
    RunResult s1 = RunTk(script);
    script.back() = "2";
    RunResult s2 = RunTk(script);
    ASSERT_EQ(s1.exit_code, 0) << s1.err;
    EXPECT_EQ(s1.out, s2.out) << f;
  }
}

// Without the cache and symfs, nothing is found: every stack is its leaf, as perf prints it.
TEST(Unwind, MissingElfGivesTheLeafOnly) {
  ::setenv("HOME", "/nonexistent", 1);
  RunResult r = RunTk({"fold", "--no-buildid-cache", "--no-host-kallsyms", "--no-inline",
                       "--symfs", "/nonexistent", Dir() + "/dwarf.data"});
  ASSERT_EQ(r.exit_code, 0);
  for (const std::string& l : Lines(r.out)) {
    EXPECT_EQ(std::count(l.begin(), l.end(), ';'), 1) << l;
  }
  EXPECT_NE(r.err.find("219 stopped for missing CFI or ELF"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace tk::testing
