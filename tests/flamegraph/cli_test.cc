// tk flamegraph and tk diff through the real binary: files and stdin, traces folded first,
// bad input, --json, the deliberate fixes (escaping, control characters, invalid UTF-8), and
// xmllint on every kind of SVG tk writes.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/flamegraph/svg_parts.h"
#include "tests/support/golden.h"

namespace tk::testing {
namespace {

std::string Input(const std::string& name) {
  return SourcePath("testdata/flamegraph/input/" + name);
}

std::string TempFile(const std::string& content) {
  char path[] = "/tmp/tk_fg_testXXXXXX";
  int fd = mkstemp(path);
  (void)!write(fd, content.data(), content.size());
  close(fd);
  return path;
}

// xmllint --noout on `svg`: "" when well-formed, else its complaint. Skipped (nullopt) when
// xmllint is not installed.
std::optional<std::string> XmlLint(const std::string& svg) {
  if (std::system("command -v xmllint >/dev/null 2>&1") != 0) return std::nullopt;
  std::string path = TempFile(svg);
  std::string cmd = "xmllint --noout --nonet " + path + " 2>&1";
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  char buf[512];
  while (size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  int rc = pclose(p);
  unlink(path.c_str());
  return rc == 0 ? "" : out.empty() ? "xmllint failed" : out;
}

void ExpectWellFormed(const std::string& svg, const std::string& what) {
  std::optional<std::string> lint = XmlLint(svg);
  if (!lint) {
    if (InCi()) ADD_FAILURE() << "xmllint is missing under CI=true";
    return;
  }
  EXPECT_EQ(*lint, "") << what;
}

TEST(FlamegraphCli, Help) {
  for (const char* cmd : {"flamegraph", "diff"}) {
    RunResult h = RunTk({"help", cmd});
    EXPECT_EQ(h.exit_code, 0) << h.err;
    EXPECT_NE(h.out.find(std::string("tk ") + cmd), std::string::npos);
    EXPECT_NE(h.out.find("--json"), std::string::npos) << cmd;
    EXPECT_EQ(RunTk({cmd, "--help"}).out, h.out);
  }
  RunResult h = RunTk({"help", "flamegraph"});
  for (const char* o : {"--title", "--subtitle", "--width", "--height", "--minwidth", "--fonttype",
                        "--fontsize", "--fontwidth", "--countname", "--nametype", "--colors",
                        "--bgcolors", "--hash", "--random", "--cp", "--reverse", "--inverted",
                        "--flamechart", "--negate", "--notes", "--total", "--factor", "--pid",
                        "--kernel"}) {
    EXPECT_NE(h.out.find(o), std::string::npos) << o;
  }
}

TEST(FlamegraphCli, StdinEqualsFile) {
  RunResult f = RunTk({"flamegraph", Input("quirks.folded")});
  RunResult s = RunTk({"flamegraph", "-"}, Input("quirks.folded"));
  RunResult d = RunTk({"flamegraph"}, Input("quirks.folded"));
  EXPECT_EQ(f.exit_code, 0) << f.err;
  EXPECT_EQ(s.out, f.out);
  EXPECT_EQ(d.out, f.out);
  ExpectWellFormed(f.out, "quirks");
  RunResult a = RunTk({"diff", Input("before.folded"), "-"}, Input("after.folded"));
  EXPECT_EQ(a.out, ReadFile(SourcePath("testdata/flamegraph/reference/diff.txt")));
}

// Several inputs are read one after the other, as flamegraph.pl reads several files.
TEST(FlamegraphCli, SeveralInputsAreConcatenated) {
  std::string cat = TempFile(ReadFile(Input("before.folded")) + ReadFile(Input("after.folded")));
  RunResult one = RunTk({"flamegraph", cat});
  RunResult two = RunTk({"flamegraph", Input("before.folded"), Input("after.folded")});
  unlink(cat.c_str());
  EXPECT_EQ(two.exit_code, 0) << two.err;
  EXPECT_EQ(two.out, one.out);
  EXPECT_NE(two.out.find("<title>all (103 samples, 100%)</title>"), std::string::npos);
}

// A trace is folded first, as tk fold folds it: the same picture as from tk fold's output.
TEST(FlamegraphCli, TraceIsFoldedFirst) {
  for (std::string trace : {"testdata/perf_data/a.data", "testdata/perf_data/a.script"}) {
    std::string path = SourcePath(trace);
    if (!FileExists(path)) continue;
    RunResult fold = RunTk({"fold", "--no-buildid-cache", "--no-host-kallsyms", "--kernel", path});
    ASSERT_EQ(fold.exit_code, 0) << fold.err;
    std::string folded = TempFile(fold.out);
    RunResult want = RunTk({"flamegraph", "--colors", "java", folded});
    RunResult got = RunTk({"flamegraph", "--colors", "java", "--no-buildid-cache",
                           "--no-host-kallsyms", "--kernel", path});
    unlink(folded.c_str());
    EXPECT_EQ(got.exit_code, 0) << got.err;
    EXPECT_EQ(got.out, want.out) << trace;
    EXPECT_NE(got.out.find("<g >"), std::string::npos);
    RunResult from_stdin = RunTk({"flamegraph", "--colors", "java", "--no-buildid-cache",
                                  "--no-host-kallsyms", "--kernel", "-"},
                                 path);
    EXPECT_EQ(from_stdin.out, want.out) << trace;
  }
}

// tk fold's filter flags pass through too: `tk flamegraph F --comm X` is
// `tk fold F --comm X | tk flamegraph`, and differs from the unfiltered picture.
TEST(FlamegraphCli, FilterFlagsPassThroughToFold) {
  std::string trace = SourcePath("testdata/perf_data/a.data");
  if (!FileExists(trace)) GTEST_SKIP() << "no perf.data fixture";
  const std::vector<std::string> host = {"--no-buildid-cache", "--no-host-kallsyms"};
  RunResult all = RunTk({"flamegraph", "--no-buildid-cache", "--no-host-kallsyms", trace});
  ASSERT_EQ(all.exit_code, 0) << all.err;
  for (std::vector<std::string> filter : std::vector<std::vector<std::string>>{
           {"--comm", "grep"}, {"--comms", "grep,sh"}, {"-C", "1"}, {"--cpu", "0"},
           {"-p", "1,2-60000"}, {"-t", "1-60000"}, {"--time", "0,"}}) {
    std::vector<std::string> fold = {"fold"};
    fold.insert(fold.end(), host.begin(), host.end());
    fold.insert(fold.end(), filter.begin(), filter.end());
    fold.push_back(trace);
    RunResult folded = RunTk(fold);
    ASSERT_EQ(folded.exit_code, 0) << folded.err;
    std::string piped = TempFile(folded.out);
    RunResult want = RunTk({"flamegraph", "-"}, piped);  // tk fold ... | tk flamegraph
    unlink(piped.c_str());
    ASSERT_EQ(want.exit_code, 0) << want.err;
    std::vector<std::string> fg = {"flamegraph"};
    fg.insert(fg.end(), host.begin(), host.end());
    fg.insert(fg.end(), filter.begin(), filter.end());
    fg.push_back(trace);
    RunResult got = RunTk(fg);
    EXPECT_EQ(got.exit_code, 0) << got.err;
    EXPECT_EQ(got.out, want.out) << filter[0] << " " << filter[1];
    if (filter[0] == "--comm") EXPECT_NE(got.out, all.out);
  }
  // Folded stacks have nothing to filter by: a usage error, not a silently unfiltered picture.
  std::string folded = TempFile("a;b 1\n");
  RunResult bad = RunTk({"flamegraph", "--comm", "a", folded});
  unlink(folded.c_str());
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("filter flags apply to a trace input"), std::string::npos) << bad.err;
}

// tk fold's off-CPU mode is one of the fold flags: the same picture as folding first.
TEST(FlamegraphCli, OffCpuFoldFirst) {
  std::string trace = SourcePath("testdata/offcpu/offcpu.data");
  if (!FileExists(trace)) GTEST_SKIP() << "no off-CPU fixture";
  std::vector<std::string> host = {"--no-buildid-cache", "--no-host-kallsyms",
                                   "--kallsyms", SourcePath("testdata/offcpu/kallsyms")};
  std::vector<std::string> fold = {"fold", "--off-cpu"};
  fold.insert(fold.end(), host.begin(), host.end());
  fold.push_back(trace);
  RunResult folded = RunTk(fold);
  ASSERT_EQ(folded.exit_code, 0) << folded.err;
  std::string path = TempFile(folded.out);
  RunResult want = RunTk({"flamegraph", "--countname", "us", path});
  unlink(path.c_str());
  std::vector<std::string> fg = {"flamegraph", "--off-cpu", "--countname", "us"};
  fg.insert(fg.end(), host.begin(), host.end());
  fg.push_back(trace);
  RunResult got = RunTk(fg);
  EXPECT_EQ(got.exit_code, 0) << got.err;
  EXPECT_EQ(got.out, want.out);
  EXPECT_NE(got.out.find(" us, "), std::string::npos);
  EXPECT_EQ(RunTk({"flamegraph", "--state", "D", trace}).exit_code, 2);
}

TEST(FlamegraphCli, NoValidLineIsADataError) {
  for (std::string content : {std::string(""), std::string("no counts here\nnor here\n"),
                              std::string("a;b 0\n")}) {
    std::string path = TempFile(content);
    RunResult r = RunTk({"flamegraph", "--folded", path});
    unlink(path.c_str());
    EXPECT_EQ(r.exit_code, 1) << content;
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.find("no stack counts found"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.back(), '\n');
  }
}

TEST(FlamegraphCli, MalformedLinesCountedAndReportedOnce) {
  std::string path =
      TempFile("a;b 3\nbad line\na;c 2\n\nalso bad x\na;d 1.5.3\na;e 0\na;f 0\na;g 0\n");
  RunResult r = RunTk({"flamegraph", path});
  unlink(path.c_str());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("line 2: not a folded"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("4 malformed lines skipped (first at line 2)"), std::string::npos)
      << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 2) << r.err;
  EXPECT_NE(r.out.find("<title>all (5 samples, 100%)</title>"), std::string::npos);
}

// Deliberate fixes: invalid UTF-8 is kept (U+FFFD), CRLF lines are read, XML-invalid
// characters are dropped, title/subtitle/countname/nametype are escaped.
TEST(FlamegraphCli, DeliberateFixes) {
  std::string path = TempFile("main;bad\xff\xfe name 3\r\nmain;ok 1\r\n");
  RunResult r = RunTk({"flamegraph", "--title", "a<b & \"c\"", "--subtitle", "x>y",
                       "--countname", "<us>", "--nametype", "</script>]]>", path});
  unlink(path.c_str());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("bad\xEF\xBF\xBD\xEF\xBF\xBD name (3 &lt;us&gt;, 75.00%)"),
            std::string::npos);
  EXPECT_NE(r.err.find("invalid UTF-8 kept"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find(">a&lt;b &amp; \"c\"</text>"), std::string::npos);
  EXPECT_NE(r.out.find(">x&gt;y</text>"), std::string::npos);
  ExpectWellFormed(r.out, "escaped texts");

  RunResult x = RunTk({"flamegraph", Input("xml.folded")});
  EXPECT_EQ(x.exit_code, 0) << x.err;
  EXPECT_NE(x.out.find("ctlchar[0m"), std::string::npos);
  EXPECT_NE(x.out.find("operator&lt;&lt;(std::ostream&amp;, char const*)"), std::string::npos);
  EXPECT_NE(x.out.find("a &quot;quoted&quot; name"), std::string::npos);
  ExpectWellFormed(x.out, "xml.folded");
  // flamegraph.pl writes the control characters: its SVG is not XML.
  std::string ref = ReadFile(SourcePath("testdata/flamegraph/reference/xml--default.svg"));
  EXPECT_NE(ref.find('\x01'), std::string::npos);
  if (std::optional<std::string> lint = XmlLint(ref)) {
    EXPECT_NE(*lint, "");
  }
}

TEST(FlamegraphCli, EverySvgIsWellFormed) {
  std::vector<std::vector<std::string>> runs = {
      {Input("quirks.folded")},
      {"--inverted", "--subtitle", "s", Input("quirks.folded")},
      {"--colors", "chain", Input("chain.folded")},
      {"--hash", "--reverse", Input("quirks.folded")},
      {"--flamechart", "--notes", "a--b", Input("quirks.folded")},
      {"--minwidth", "0", Input("xml.folded")},
      {"--negate", SourcePath("testdata/flamegraph/reference/diff-n.txt")},
      {"--random", Input("quirks.folded")},
  };
  for (auto& args : runs) {
    args.insert(args.begin(), "flamegraph");
    RunResult r = RunTk(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    ExpectWellFormed(r.out, args[1]);
  }
}

TEST(FlamegraphCli, UsageErrors) {
  std::string in = Input("quirks.folded");
  for (std::vector<std::string> bad : {std::vector<std::string>{"--minwidth", "abc"},
                                       {"--notes", "a<b"},
                                       {"--bgcolors", "pink"},
                                       {"--width", "10"},
                                       {"--no-such-option"}}) {
    bad.insert(bad.begin(), "flamegraph");
    bad.push_back(in);
    RunResult r = RunTk(bad);
    EXPECT_EQ(r.exit_code, 2) << bad[1];
    EXPECT_EQ(r.out, "");
  }
  EXPECT_EQ(RunTk({"flamegraph", "/nonexistent.folded"}).exit_code, 2);
  EXPECT_EQ(RunTk({"diff", in}).exit_code, 2);
}

// --nameattr: flamegraph.pl pastes its title and href raw; tk escapes them.
TEST(FlamegraphCli, NameAttrIsEscaped) {
  std::string attrs = TempFile("main\ttitle=The <main> thing\thref=http://x/?a=1&b=2\n");
  RunResult r = RunTk({"flamegraph", "--nameattr", attrs, Input("quirks.folded")});
  unlink(attrs.c_str());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("<a xlink:href=\"http://x/?a=1&amp;b=2\" target=\"_top\">\n"
                       "<title>The &lt;main&gt; thing</title>"),
            std::string::npos);
  ExpectWellFormed(r.out, "nameattr");
  std::string bad = TempFile("no tab here\n");
  EXPECT_EQ(RunTk({"flamegraph", "--nameattr", bad, Input("quirks.folded")}).exit_code, 2);
  unlink(bad.c_str());
}

// A chain graph of a stack without "--" gets no "--" frame (flamegraph.pl adds one).
TEST(FlamegraphCli, ChainWithoutWaker) {
  RunResult r = RunTk({"flamegraph", "--colors", "chain", Input("chain-nodash.folded")});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("<title>-- (40 "), std::string::npos);
  EXPECT_NE(r.out.find("<title>hrtimer_wakeup (1,000 samples, 96.15%)</title>"),
            std::string::npos);
  EXPECT_NE(r.out.find("<title>-- (1,000 samples"), std::string::npos);
}

TEST(FlamegraphCli, RandomColoursAreSeededAndInPalette) {
  std::string in = Input("quirks.folded");
  RunResult a = RunTk({"flamegraph", "--random", "--seed", "7", in});
  RunResult b = RunTk({"flamegraph", "--random", "--seed", "7", in});
  RunResult c = RunTk({"flamegraph", "--random", "--seed", "8", in});
  EXPECT_EQ(a.out, b.out);
  EXPECT_NE(a.out, c.out);
  std::regex fill("fill=\"rgb\\((\\d+),(\\d+),(\\d+)\\)\" rx");
  int n = 0;
  for (std::sregex_iterator it(a.out.begin(), a.out.end(), fill), end; it != end; ++it, ++n) {
    int r = std::stoi((*it)[1]), g = std::stoi((*it)[2]), bl = std::stoi((*it)[3]);
    if (r == 160 || r == 200) continue;  // "--" and "-" frames
    EXPECT_TRUE(r >= 205 && r <= 255 && g <= 230 && bl <= 55) << r << "," << g << "," << bl;
  }
  EXPECT_GT(n, 10);
}

TEST(FlamegraphCli, ConsistentPalette) {
  std::string dir = std::filesystem::temp_directory_path() / ("tk_fg_cp_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::filesystem::path cwd = std::filesystem::current_path();
  std::filesystem::current_path(dir);
  std::string in = Input("quirks.folded");
  {
    std::ofstream("palette.map") << "other->rgb(1,2,3)\n";
  }
  RunResult r = RunTk({"flamegraph", "--cp", in});
  std::string map = ReadFile("palette.map");
  std::filesystem::current_path(cwd);
  std::filesystem::remove_all(dir);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("<title>other (100 samples"), std::string::npos);
  EXPECT_NE(r.out.find("fill=\"rgb(1,2,3)\""), std::string::npos);
  EXPECT_NE(map.find("other->rgb(1,2,3)\n"), std::string::npos);
  EXPECT_NE(map.find("main->rgb("), std::string::npos);
}

TEST(FlamegraphCli, Json) {
  RunResult svg = RunTk({"flamegraph", Input("quirks.folded")});
  RunResult r = RunTk({"flamegraph", "--json", Input("quirks.folded")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["width"], 1200);
  std::optional<SvgParts> parts = SplitSvg(svg.out);
  ASSERT_TRUE(parts);
  size_t blocks = 0;
  for (auto& [b, n] : parts->blocks) blocks += n;
  EXPECT_EQ(j["frames"].size(), blocks);
  bool root = false;
  for (auto& f : j["frames"]) {
    if (f["depth"] == 0) {
      root = true;
      EXPECT_EQ(f["title"].get<std::string>().rfind("all (", 0), 0u);
      EXPECT_EQ(f["w"], 1180.0);
    }
  }
  EXPECT_TRUE(root);
  RunResult d = RunTk({"diff", "--json", Input("before.folded"), Input("after.folded")});
  nlohmann::json dj = nlohmann::json::parse(d.out);
  EXPECT_EQ(dj["before_total"], 49);
  EXPECT_EQ(dj["after_total"], 54);
  EXPECT_EQ(dj["stacks"].size(), 8u);
}

}  // namespace
}  // namespace tk::testing
