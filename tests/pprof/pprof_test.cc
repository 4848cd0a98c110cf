// tk pprof checked by independent readers: Go's pprof (Debian golang-1.19-go ships it as
// `go tool pprof`; TK_GO_PPROF overrides the path) and protoc, plus the profile's structure
// decoded with the generated classes. The Go checks skip with a reason where Go is not
// installed (and fail under CI=true, where install-deps.sh installs it).
//   pprof -raw     sample totals = tk fold's stacks with frames (period-weighted)
//   pprof -top     flat/cum by function = tk report --format top, row for row
//   pprof -traces  stacks and values = tk fold's stacks (without the comm root)
//   protoc         --decode then --encode gives back the same bytes
#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "analyses/pprof/profile.pb.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/report/fixture_args.h"
#include "tests/support/golden.h"
#include "zlib.h"

namespace tk::testing {
namespace {

struct Fixture {
  std::string name, dir;
};
const Fixture kFixtures[] = {{"cxx", "report"},      {"g", "perf_data"}, {"a", "perf_data"},
                             {"multi", "perf_data"}, {"z", "perf_data"}, {"pipe", "perf_data"}};

// The fixture's symbol switches (FixtureArgs without a command).
std::vector<std::string> SymbolArgs(const Fixture& f) {
  std::vector<std::string> a = FixtureArgs("", f.dir);
  a.erase(a.begin());
  return a;
}

std::string Data(const Fixture& f) {
  return SourcePath("testdata/" + f.dir + "/" + f.name + ".data");
}

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TMPDIR");
  return std::string(dir ? dir : "/tmp") + "/tk-pprof-test-" + std::to_string(getpid()) + "-" +
         name;
}

// Runs a shell command; returns stdout (empty on failure, `ok` false).
std::string Shell(const std::string& cmd, bool* ok = nullptr) {
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) {
    if (ok) *ok = false;
    return out;
  }
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  int rc = pclose(p);
  if (ok) *ok = rc == 0;
  return out;
}

std::string GoPprof() {
  const char* env = std::getenv("TK_GO_PPROF");
  std::string p = env ? env : "/usr/lib/go-1.19/pkg/tool/linux_amd64/pprof";
  return FileExists(p) ? p : "";
}

#define REQUIRE_GO_PPROF()                                                              \
  if (GoPprof().empty()) {                                                              \
    if (std::getenv("CI")) FAIL() << "go tool pprof missing (golang-1.19-go) under CI"; \
    GTEST_SKIP() << "go tool pprof not installed (Debian golang-1.19-go)";              \
  }

// Writes the profile of `f` and returns its path.
std::string Export(const Fixture& f, const std::vector<std::string>& extra = {}) {
  std::string out = TempPath(f.name + ".pb.gz");
  std::vector<std::string> a = {"pprof"};
  for (const std::string& s : SymbolArgs(f)) a.push_back(s);
  a.insert(a.end(), extra.begin(), extra.end());
  a.push_back(Data(f));
  a.push_back("-o");
  a.push_back(out);
  RunResult r = RunTk(a);
  EXPECT_EQ(r.exit_code, 0) << f.name << r.err;
  return out;
}

std::string Gunzip(const std::string& gz) {
  z_stream z{};
  EXPECT_EQ(inflateInit2(&z, 16 + MAX_WBITS), Z_OK);
  std::string out;
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data()));
  z.avail_in = static_cast<uInt>(gz.size());
  char buf[1 << 16];
  int rc;
  do {
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof buf;
    rc = inflate(&z, Z_NO_FLUSH);
    out.append(buf, sizeof buf - z.avail_out);
  } while (rc == Z_OK);
  EXPECT_EQ(rc, Z_STREAM_END);
  inflateEnd(&z);
  return out;
}

perftools::profiles::Profile Decode(const std::string& path) {
  perftools::profiles::Profile p;
  EXPECT_TRUE(p.ParseFromString(Gunzip(ReadFile(path))));
  return p;
}

std::map<std::string, uint64_t> ParseFold(const std::string& out);

// "root;...;leaf N" lines of tk fold without the comm root, summed per stack.
std::map<std::string, uint64_t> FoldStacks(const Fixture& f) {
  std::vector<std::string> a = {"fold"};
  for (const std::string& s : SymbolArgs(f)) a.push_back(s);
  a.push_back(Data(f));
  RunResult r = RunTk(a);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return ParseFold(r.out);
}

// tk fold's output as {stack without the comm root: summed count}.
std::map<std::string, uint64_t> ParseFold(const std::string& out) {
  std::map<std::string, uint64_t> stacks;
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    size_t sp = line.rfind(' '), semi = line.find(';');
    if (sp == std::string::npos || semi == std::string::npos || semi > sp) continue;
    stacks[line.substr(semi + 1, sp - semi - 1)] += std::stoull(line.substr(sp + 1));
  }
  return stacks;
}

// pprof -traces marks a Line other than a Location's last "NAME (inline)".
std::string WithoutInlineMark(std::string name) {
  if (name.ends_with(" (inline)")) name.resize(name.size() - 9);
  return name;
}

// pprof -traces: per sample its value line "   27.50ms   leaf" then callers; summed per
// stack (root first, as fold prints it). Values in ns from pprof's scaled labels.
std::map<std::string, uint64_t> PprofTraces(const std::string& profile) {
  std::string out = Shell(GoPprof() + " -symbolize=none -traces " + profile + " 2>/dev/null");
  std::map<std::string, uint64_t> stacks;
  static const std::regex kValue(R"(^\s*([0-9.]+)(ns|us|ms|s|hrs)?\s{3}(.*)$)");
  static const std::regex kCaller(R"(^\s{13}(.*)$)");
  std::istringstream in(out);
  std::string line;
  std::vector<std::string> frames;
  double value = -1;
  auto flush = [&] {
    if (value < 0) return;
    std::string key;
    for (size_t i = frames.size(); i-- > 0;) key += (key.empty() ? "" : ";") + frames[i];
    stacks[key] += static_cast<uint64_t>(value + 0.5);
    frames.clear();
    value = -1;
  };
  while (std::getline(in, line)) {
    std::smatch m;
    if (line.starts_with("-----------+")) {
      flush();
    } else if (value < 0 && std::regex_match(line, m, kValue)) {
      std::map<std::string, double> unit = {{"", 1},     {"ns", 1},  {"us", 1e3},
                                            {"ms", 1e6}, {"s", 1e9}, {"hrs", 3600e9}};
      value = std::stod(m[1]) * unit[m[2]];
      frames.push_back(WithoutInlineMark(m[3]));
    } else if (value >= 0 && std::regex_match(line, m, kCaller)) {
      frames.push_back(WithoutInlineMark(m[1]));
    }
  }
  flush();
  return stacks;
}

TEST(PprofGo, RawTotalsEqualTkFold) {
  REQUIRE_GO_PPROF();
  for (const Fixture& f : kFixtures) {
    std::string profile = Export(f);
    std::string raw = Shell(GoPprof() + " -symbolize=none -raw " + profile + " 2>/dev/null");
    ASSERT_NE(raw.find("samples/count cpu/nanoseconds"), std::string::npos) << raw;
    uint64_t count = 0, value = 0;
    static const std::regex kSample(R"(^\s+(\d+)\s+(\d+): [\d ]+$)");
    std::istringstream in(raw);
    std::string line;
    while (std::getline(in, line)) {
      std::smatch m;
      if (std::regex_match(line, m, kSample)) {
        count += std::stoull(m[1]);
        value += std::stoull(m[2]);
      }
    }
    // tk fold's stacks with at least one frame: a sample whose stack perf drops folds as its
    // bare comm, and has no frame to export.
    uint64_t fold_total = 0;
    for (const auto& [stack, n] : FoldStacks(f)) fold_total += n;
    EXPECT_EQ(value, fold_total) << f.name;
    perftools::profiles::Profile p = Decode(profile);
    uint64_t decoded = 0;
    for (const auto& s : p.sample()) decoded += static_cast<uint64_t>(s.value(0));
    EXPECT_EQ(count, decoded) << f.name;
    std::remove(profile.c_str());
  }
}

TEST(PprofGo, TopEqualsTkReportFormatTop) {
  REQUIRE_GO_PPROF();
  for (const Fixture& f : kFixtures) {
    std::string profile = Export(f);
    std::string top = Shell(GoPprof() + " -symbolize=none -top -nodecount=0 -nodefraction=0 " +
                            profile + " 2>/dev/null");
    std::vector<std::string> a = {"report", "--format", "top"};
    for (const std::string& s : SymbolArgs(f)) a.push_back(s);
    a.push_back(Data(f));
    RunResult r = RunTk(a);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    size_t pt = top.find("      flat  flat%"), tt = r.out.find("      flat  flat%");
    ASSERT_NE(pt, std::string::npos) << top;
    ASSERT_NE(tt, std::string::npos) << r.out;
    EXPECT_EQ(r.out.substr(tt), top.substr(pt)) << f.name;
    // The legend line too ("Showing nodes accounting for 184ms, 100% of 184ms total").
    std::regex legend(R"(Showing nodes accounting for [^\n]*\n)");
    std::smatch mp, mt;
    ASSERT_TRUE(std::regex_search(top, mp, legend));
    ASSERT_TRUE(std::regex_search(r.out, mt, legend));
    EXPECT_EQ(mt.str(), mp.str()) << f.name;
    std::remove(profile.c_str());
  }
}

TEST(PprofGo, TracesEqualTkFold) {
  REQUIRE_GO_PPROF();
  for (const Fixture& f : kFixtures) {
    std::string profile = Export(f);
    std::map<std::string, uint64_t> traces = PprofTraces(profile), fold = FoldStacks(f);
    EXPECT_FALSE(traces.empty()) << f.name;
    std::string diff;
    for (const auto& [k, v] : traces)
      if (!fold.contains(k) || fold[k] != v) diff += "pprof: " + k + " " + std::to_string(v) + "\n";
    for (const auto& [k, v] : fold)
      if (!traces.contains(k) || traces[k] != v)
        diff += "fold:  " + k + " " + std::to_string(v) + "\n";
    EXPECT_EQ(diff, "") << f.name;
    std::remove(profile.c_str());
  }
}

// --call-graph dwarf with inline frames (testdata/dwarf): the functions DWARF places at one
// address are the Lines of one Location, innermost first (profile.proto: "line[i] is inlined
// into line[i+1]"), in the mapping of the function they are inlined into; pprof -traces then
// prints the same stacks as tk fold, inline frames included ("mix (inline)").
TEST(PprofGo, InlineFramesAreLinesOfOneLocation) {
  std::string dir = SourcePath("testdata/dwarf");
  ::setenv("HOME", (dir + "/home").c_str(), 1);  // the fixture's build-id cache
  const std::vector<std::string> sym = {"--symfs", dir + "/symfs", "--kallsyms",
                                        dir + "/kallsyms", "--no-host-kallsyms"};
  std::string out = TempPath("dwarf.pb.gz");
  std::vector<std::string> a = {"pprof"};
  a.insert(a.end(), sym.begin(), sym.end());
  a.insert(a.end(), {dir + "/dwarf.data", "-o", out});
  RunResult r = RunTk(a);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  perftools::profiles::Profile p = Decode(out);
  auto name = [&](const perftools::profiles::Line& l) {
    return p.string_table(p.function(static_cast<int>(l.function_id() - 1)).name());
  };
  bool mix_in_rec = false, libc_start_in_libc = false;
  for (const auto& loc : p.location()) {
    const auto& m = p.mapping(static_cast<int>(loc.mapping_id() - 1));
    if (loc.line_size() == 2 && name(loc.line(0)) == "mix" && name(loc.line(1)) == "rec") {
      mix_in_rec = true;
      EXPECT_TRUE(p.string_table(m.filename()).ends_with("/unwind_fixture"));
    }
    // An inline frame is never a Location of its own (in its own mapping) when the
    // function it is inlined into is known by its ELF symbol.
    if (loc.line_size() == 1 && name(loc.line(0)) == "mix") ADD_FAILURE() << "lone mix";
    // A function DWARF names otherwise than its ELF symbol (__libc_start_main_impl, ELF's
    // __libc_start_main) is a Location in its binary's mapping, not in one named "inlined".
    if (name(loc.line(loc.line_size() - 1)) == "__libc_start_main_impl") {
      libc_start_in_libc = p.string_table(m.filename()).ends_with("/libc.so.6");
    }
  }
  for (const auto& m : p.mapping()) EXPECT_NE(p.string_table(m.filename()), "inlined");
  EXPECT_TRUE(mix_in_rec);
  EXPECT_TRUE(libc_start_in_libc);
  std::vector<std::string> f = {"fold"};
  f.insert(f.end(), sym.begin(), sym.end());
  f.push_back(dir + "/dwarf.data");
  RunResult folded = RunTk(f);
  ASSERT_EQ(folded.exit_code, 0) << folded.err;
  EXPECT_NE(folded.out.find(";rec;mix "), std::string::npos);
  if (!GoPprof().empty()) {
    // The same stacks; values equal up to pprof's rounding ("46.09ms" for 46092184 ns).
    std::map<std::string, uint64_t> traces = PprofTraces(out), fold = ParseFold(folded.out);
    std::string diff;
    for (const auto& [k, v] : fold) {
      auto t = traces.find(k);
      if (t == traces.end() || std::abs(static_cast<double>(t->second) - v) > 5e-3 * v)
        diff += "fold:  " + k + " " + std::to_string(v) + "\n";
    }
    for (const auto& [k, v] : traces)
      if (!fold.contains(k)) diff += "pprof: " + k + " " + std::to_string(v) + "\n";
    EXPECT_EQ(diff, "");
  } else if (std::getenv("CI")) {
    ADD_FAILURE() << "go tool pprof missing (golang-1.19-go) under CI";
  }
  std::remove(out.c_str());
}

// tk pprof --off-cpu: tk fold --off-cpu's stacks as an offcpu/microseconds profile
// (testdata/offcpu): the decoded total is the fold's µs total, pprof -raw agrees, and
// pprof -traces prints the fold's stacks (without the root) with their values.
TEST(PprofGo, OffCpuEqualsTkFoldOffCpu) {
  std::string dir = SourcePath("testdata/offcpu");
  const std::vector<std::string> sym = {"--off-cpu", "--no-buildid-cache", "--no-host-kallsyms",
                                        "--kallsyms", dir + "/kallsyms"};
  std::string out = TempPath("offcpu.pb.gz");
  std::vector<std::string> a = {"pprof"};
  a.insert(a.end(), sym.begin(), sym.end());
  a.insert(a.end(), {dir + "/offcpu.data", "-o", out});
  RunResult r = RunTk(a);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> f = {"fold"};
  f.insert(f.end(), sym.begin(), sym.end());
  f.push_back(dir + "/offcpu.data");
  RunResult folded = RunTk(f);
  ASSERT_EQ(folded.exit_code, 0) << folded.err;
  std::map<std::string, uint64_t> fold = ParseFold(folded.out);
  uint64_t fold_us = 0;
  for (const auto& [k, v] : fold) fold_us += v;
  ASSERT_GT(fold_us, 0u);
  perftools::profiles::Profile p = Decode(out);
  ASSERT_EQ(p.sample_type_size(), 1);
  EXPECT_EQ(p.string_table(p.sample_type(0).type()), "offcpu");
  EXPECT_EQ(p.string_table(p.sample_type(0).unit()), "microseconds");
  EXPECT_EQ(p.period(), 1);
  uint64_t total = 0;
  for (const auto& s : p.sample()) total += static_cast<uint64_t>(s.value(0));
  EXPECT_EQ(total, fold_us);
  if (GoPprof().empty()) {
    if (std::getenv("CI")) ADD_FAILURE() << "go tool pprof missing (golang-1.19-go) under CI";
    return;
  }
  std::string raw = Shell(GoPprof() + " -symbolize=none -raw " + out + " 2>/dev/null");
  static const std::regex kSample(R"(^\s+(\d+): [\d ]+$)");
  uint64_t raw_total = 0;
  std::istringstream in(raw);
  std::string line;
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_match(line, m, kSample)) raw_total += std::stoull(m[1]);
  }
  EXPECT_EQ(raw_total, fold_us) << raw;
  std::map<std::string, uint64_t> traces = PprofTraces(out);
  std::string diff;
  for (const auto& [k, v] : fold) {
    auto t = traces.find(k);
    // PprofTraces gives nanoseconds; pprof prints the µs values rounded to its display unit.
    if (t == traces.end() || std::abs(static_cast<double>(t->second) - 1000.0 * v) > 5.0 * v)
      diff += "fold:  " + k + " " + std::to_string(v) + "\n";
  }
  for (const auto& [k, v] : traces)
    if (!fold.contains(k)) diff += "pprof: " + k + " " + std::to_string(v) + "\n";
  EXPECT_EQ(diff, "");
  std::remove(out.c_str());
  EXPECT_EQ(RunTk({"pprof", "--wakeup", dir + "/offcpu.data", "-o", out}).exit_code, 2);
  EXPECT_EQ(RunTk({"pprof", "--state", "D", dir + "/offcpu.data", "-o", out}).exit_code, 2);
  EXPECT_FALSE(FileExists(out));
}

TEST(PprofProtoc, DecodeEncodeRoundTrips) {
  std::string protoc = TK_PROTOC;
  if (!FileExists(protoc)) GTEST_SKIP() << "protoc not installed";
  std::string profile = Export(kFixtures[0]);
  std::string raw = TempPath("raw.pb"), text = TempPath("raw.txt"), again = TempPath("again.pb");
  std::ofstream(raw, std::ios::binary) << Gunzip(ReadFile(profile));
  std::string proto = "-I" + SourcePath("") + " " + SourcePath("analyses/pprof/profile.proto");
  bool ok = false;
  Shell(protoc + " --decode=perftools.profiles.Profile " + proto + " < " + raw + " > " + text, &ok);
  ASSERT_TRUE(ok);
  EXPECT_NE(ReadFile(text).find("string_table: \"work::recurse\""), std::string::npos);
  Shell(protoc + " --encode=perftools.profiles.Profile " + proto + " < " + text + " > " + again,
        &ok);
  ASSERT_TRUE(ok);
  EXPECT_EQ(ReadFile(again), ReadFile(raw));
  for (const std::string& p : {profile, raw, text, again}) std::remove(p.c_str());
}

TEST(PprofStructure, WhatConsumersRequire) {
  std::string profile = Export(kFixtures[0]);
  perftools::profiles::Profile p = Decode(profile);
  const auto& s = p.string_table();
  ASSERT_GT(s.size(), 0);
  EXPECT_EQ(s[0], "");
  auto str = [&](int64_t i) { return s.at(static_cast<int>(i)); };
  // Sample types: samples/count, cpu/nanoseconds (preferred, last); period cpu/nanoseconds.
  ASSERT_EQ(p.sample_type_size(), 2);
  EXPECT_EQ(str(p.sample_type(0).type()) + "/" + str(p.sample_type(0).unit()), "samples/count");
  EXPECT_EQ(str(p.sample_type(1).type()) + "/" + str(p.sample_type(1).unit()), "cpu/nanoseconds");
  EXPECT_EQ(str(p.period_type().type()), "cpu");
  EXPECT_EQ(p.period(), 500000);  // perf record -F 2000: 500 us
  // Ids 1..N in order (Parca), every reference resolvable.
  for (int i = 0; i < p.mapping_size(); ++i) EXPECT_EQ(p.mapping(i).id(), uint64_t(i + 1));
  for (int i = 0; i < p.location_size(); ++i) {
    EXPECT_EQ(p.location(i).id(), uint64_t(i + 1));
    EXPECT_GE(p.location(i).mapping_id(), 1u);
    EXPECT_LE(p.location(i).mapping_id(), uint64_t(p.mapping_size()));
    EXPECT_GE(p.location(i).line_size(), 1);
    for (const auto& l : p.location(i).line())
      EXPECT_LE(l.function_id(), uint64_t(p.function_size()));
  }
  for (int i = 0; i < p.function_size(); ++i) EXPECT_EQ(p.function(i).id(), uint64_t(i + 1));
  // The main binary first, with its build id; the kernel named and its functions embedded.
  ASSERT_GE(p.mapping_size(), 2);
  EXPECT_EQ(str(p.mapping(0).filename()), "/tmp/tk-report-fixture/workload");
  EXPECT_EQ(str(p.mapping(0).build_id()).size(), 40u);
  EXPECT_TRUE(p.mapping(0).has_functions());
  bool kernel = false;
  for (const auto& m : p.mapping()) kernel |= str(m.filename()) == "[kernel.kallsyms]";
  EXPECT_TRUE(kernel);
  // Labels: comm/thread_comm strings, pid/tid numbers with their unit.
  ASSERT_GT(p.sample_size(), 0);
  std::map<std::string, std::string> labels;
  for (const auto& l : p.sample(0).label()) {
    labels[str(l.key())] =
        l.str() ? str(l.str()) : std::to_string(l.num()) + " " + str(l.num_unit());
  }
  EXPECT_EQ(labels["comm"], "workload");
  EXPECT_EQ(labels["thread_comm"], "workload");
  EXPECT_TRUE(labels["pid"].ends_with(" pid")) << labels["pid"];
  EXPECT_TRUE(labels["tid"].ends_with(" tid")) << labels["tid"];
  // Comments, duration, wall-clock start.
  ASSERT_EQ(p.comment_size(), 2);
  EXPECT_EQ(str(p.comment(0)), "perf-version:6.1.187");
  EXPECT_TRUE(str(p.comment(1)).starts_with("perf-command:/usr/bin/perf record"));
  EXPECT_GT(p.duration_nanos(), 0);
  EXPECT_GT(p.time_nanos(), 1700000000LL * 1000000000LL);
  std::remove(profile.c_str());
}

TEST(PprofCli, OtherEventsCountsStdoutAndText) {
  // perf script text: a profile too; stdout with -o -.
  RunResult r = RunTk({"pprof", SourcePath("testdata/perf_data/g.script"), "-o", "-"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_GE(r.out.size(), 2u);
  EXPECT_EQ(static_cast<unsigned char>(r.out[0]), 0x1f);
  EXPECT_EQ(static_cast<unsigned char>(r.out[1]), 0x8b);
  perftools::profiles::Profile p;
  ASSERT_TRUE(p.ParseFromString(Gunzip(r.out)));
  EXPECT_EQ(p.string_table(static_cast<int>(p.sample_type(1).type())), "cpu");
  // --event-filter picks the second event of multi.data.
  Fixture multi{"multi", "perf_data"};
  std::string path = Export(multi, {"--event-filter", "task-clock"});
  perftools::profiles::Profile m = Decode(path);
  EXPECT_EQ(m.string_table(static_cast<int>(m.sample_type(1).type())), "cpu");
  std::remove(path.c_str());
  // From stdin (a pipe-mode perf.data).
  std::string out = TempPath("stdin.pb.gz");
  RunResult s = RunTk({"pprof", "--no-buildid-cache", "--no-host-kallsyms", "-", "-o", out},
                      SourcePath("testdata/perf_data/pipe.data"));
  EXPECT_EQ(s.exit_code, 0) << s.err;
  EXPECT_GT(Decode(out).sample_size(), 0);
  std::remove(out.c_str());
}

TEST(PprofCli, NonTimeEventsAreCounts) {
  std::string in = TempPath("cycles.script"), out = TempPath("cycles.pb.gz");
  std::ofstream(in) << "a 1 1.000000:    1000 cycles:u: \n\t1 f (/bin/a)\n\n"
                       "a 1 1.100000:    3000 cycles:u: \n\t2 g (/bin/a)\n\n";
  RunResult r = RunTk({"pprof", in, "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  perftools::profiles::Profile p = Decode(out);
  auto str = [&](int64_t i) { return p.string_table(static_cast<int>(i)); };
  EXPECT_EQ(str(p.sample_type(1).type()) + "/" + str(p.sample_type(1).unit()), "cycles/count");
  EXPECT_EQ(str(p.period_type().type()), "cycles");
  int64_t total = 0;
  for (const auto& s : p.sample()) total += s.value(1);
  EXPECT_EQ(total, 4000);
  std::remove(in.c_str());
  std::remove(out.c_str());
}

TEST(PprofCli, BadInputWritesNothing) {
  std::string out = TempPath("bad.pb.gz");
  RunResult r = RunTk({"pprof", SourcePath("tests/cli/garbage.bin"), "-o", out});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(r.err.starts_with("tk: ")) << r.err;
  struct stat st;
  EXPECT_NE(stat(out.c_str(), &st), 0) << "a failed run left " << out;
  RunResult usage = RunTk({"pprof", SourcePath("testdata/perf_data/g.script")});
  EXPECT_EQ(usage.exit_code, 2);  // -o is required
  RunResult help = RunTk({"help", "pprof"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("--event-filter"), std::string::npos);
}

TEST(PprofCli, DeviceOrFifoOutputIsWrittenNotReplaced) {
  // -o naming a FIFO (as -o /dev/null names a device) is written through: the temporary file
  // and rename that protect a regular file would replace the node (tk did that to /dev/null).
  std::string in = SourcePath("testdata/perf_data/g.script");
  std::string fifo = TempPath("out.fifo"), got = TempPath("got.pb.gz");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::string cmd = "timeout 20 cat " + fifo + " > " + got + " & " + TK_BINARY + " pprof " +
                    in + " -o " + fifo + "; rc=$?; wait; exit $rc";
  ASSERT_EQ(std::system(("bash -c '" + cmd + "'").c_str()), 0);
  struct stat st;
  ASSERT_EQ(stat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode)) << fifo << " was replaced";
  RunResult direct = RunTk({"pprof", in, "-o", "-"});
  ASSERT_EQ(direct.exit_code, 0) << direct.err;
  EXPECT_EQ(ReadFile(got), direct.out);
  std::remove(fifo.c_str());
  std::remove(got.c_str());
}

}  // namespace
}  // namespace tk::testing
