// tk's JavaScript in a real browser: headless Chromium loads the SVG with the URL state
// flamegraph.pl's users share (?s=REGEX, ?x=..&y=..) and --dump-dom prints the document after
// the script ran. tk's SVG must show what flamegraph.pl's SVG (the shared corpus) shows: the
// same highlighted frames and "Matched:" text, the same hidden and dimmed frames when zoomed,
// and the zoomed frame at full width. Skipped, with the reason, only where Chromium cannot
// start; under CI=true a missing corpus or browser fails. Keyboard and mouse (Ctrl-F with its
// prompt, Ctrl-I, hover, click, Reset Zoom) are driven over the DevTools protocol by
// interact.js (Node).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <regex>
#include <set>
#include <tuple>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/flamegraph/svg_parts.h"
#include "tests/support/golden.h"

namespace tk::testing {
namespace {

std::string Shell(const std::string& cmd) {
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return out;
  char buf[65536];
  while (size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  pclose(p);
  return out;
}

class Browser {
 public:
  Browser() {
    char dir[] = "/tmp/tk_fg_chromeXXXXXX";
    profile_ = mkdtemp(dir);
  }
  ~Browser() { std::system(("rm -rf '" + profile_ + "'").c_str()); }
  // The DOM of file://path?query after load.
  std::string DumpDom(const std::string& path, const std::string& query) {
    return Shell("timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic "
               "--no-first-run --disable-background-networking --disable-component-update "
               "--disable-sync --user-data-dir='" + profile_ + "' --dump-dom 'file://" + path +
               query + "' 2>/dev/null");
  }

 private:
  std::string profile_;
};

struct DomFrame {
  std::string cls, title, y, fill, x, width;
  bool operator<(const DomFrame& o) const {
    return std::tie(title, y, cls, fill) < std::tie(o.title, o.y, o.cls, o.fill);
  }
};

std::vector<DomFrame> Frames(const std::string& dom) {
  static const std::regex g(
      "<g(?: class=\"([^\"]*)\")? ?>\\s*<title>([^<]*)</title><rect ([^>]*)>");
  static const std::regex attr("([a-z_]+)=\"([^\"]*)\"");
  std::vector<DomFrame> out;
  for (std::sregex_iterator it(dom.begin(), dom.end(), g), end; it != end; ++it) {
    DomFrame f{(*it)[1], (*it)[2], "", "", "", ""};
    std::string attrs = (*it)[3];
    for (std::sregex_iterator a(attrs.begin(), attrs.end(), attr); a != end; ++a) {
      if ((*a)[1] == "y") f.y = (*a)[2];
      if ((*a)[1] == "fill") f.fill = (*a)[2];
      if ((*a)[1] == "x") f.x = (*a)[2];
      if ((*a)[1] == "width") f.width = (*a)[2];
    }
    out.push_back(f);
  }
  return out;
}

std::string Matched(const std::string& dom) {
  std::smatch m;
  static const std::regex re("id=\"matched\"[^>]*>([^<]*)<");
  return std::regex_search(dom, m, re) ? std::string(m[1]) : "(none)";
}

// Highlighted frames (title, y) and the class of every frame (title, y, class).
std::set<std::pair<std::string, std::string>> Highlighted(const std::vector<DomFrame>& fs) {
  std::set<std::pair<std::string, std::string>> out;
  for (const DomFrame& f : fs)
    if (f.fill == "rgb(230,0,230)") out.insert({f.title, f.y});
  return out;
}
std::multiset<std::tuple<std::string, std::string, std::string>> Classes(
    const std::vector<DomFrame>& fs) {
  std::multiset<std::tuple<std::string, std::string, std::string>> out;
  for (const DomFrame& f : fs) out.insert({f.title, f.y, f.cls});
  return out;
}

class FlamegraphBrowser : public ::testing::Test {
 protected:
  void SetUp() override {
    corpus_ = FlamegraphCorpus();
    if (!corpus_) {
      if (InCi()) FAIL() << "../shared/conformance/flamegraph is absent under CI=true";
      GTEST_SKIP() << "../shared/conformance/flamegraph is absent";
    }
    if (std::system("command -v chromium >/dev/null 2>&1") != 0) {
      if (InCi()) FAIL() << "chromium is not installed (scripts/install-deps.sh installs it)";
      GTEST_SKIP() << "chromium is not installed";
    }
    // A trivial document tells whether the browser can start here at all.
    probe_ = TempSvg("<svg xmlns=\"http://www.w3.org/2000/svg\"><text id=\"p\">ok</text></svg>");
    if (browser_.DumpDom(probe_, "").find("id=\"p\"") == std::string::npos) {
      GTEST_SKIP() << "chromium cannot start here (--dump-dom of a trivial SVG printed nothing)";
    }
  }
  void TearDown() override {
    for (const std::string& f : temps_) unlink(f.c_str());
  }
  std::string TempSvg(const std::string& content) {
    char path[] = "/tmp/tk_fg_browserXXXXXX.svg";
    int fd = mkstemps(path, 4);
    (void)!write(fd, content.data(), content.size());
    close(fd);
    temps_.push_back(path);
    return path;
  }
  // tk's SVG and flamegraph.pl's for a corpus case (input name, options part).
  std::pair<std::string, std::string> Pair(const std::string& input, const std::string& opts) {
    std::vector<std::string> args = {"flamegraph"};
    for (std::string& a : CorpusArgs(opts)) args.push_back(a);
    args.push_back(*corpus_ + "/input/" + input + ".folded");
    RunResult r = RunTk(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return {TempSvg(r.out), *corpus_ + "/expected/" + input + "--" + opts + ".svg"};
  }

  std::optional<std::string> corpus_;
  std::string probe_;
  Browser browser_;
  std::vector<std::string> temps_;
};

TEST_F(FlamegraphBrowser, SearchFromUrlMatchesFlamegraphPl) {
  struct Case {
    const char* input;
    const char* opts;
    const char* query;
  } cases[] = {
      {"perf-iperf-stacks-pidtid-01-collapsed-tid", "default", "?s=%5Etcp_"},
      {"perf-iperf-stacks-pidtid-01-collapsed-tid", "inverted", "?s=sys_"},
      {"perf-java-stacks-01-collapsed-all", "default", "?s=java%2F"},
      {"perf-java-stacks-01-collapsed-all", "default", "?s=%5Eall"},
      {"go-stacks-collapsed-default", "default", "?s=runtime%5C.m"},
      {"java02-diff", "negate", "?s=write"},
  };
  for (const Case& c : cases) {
    auto [tk, pl] = Pair(c.input, c.opts);
    std::string tk_dom = browser_.DumpDom(tk, c.query), pl_dom = browser_.DumpDom(pl, c.query);
    std::vector<DomFrame> tf = Frames(tk_dom), pf = Frames(pl_dom);
    ASSERT_FALSE(pf.empty()) << c.input << c.query;
    EXPECT_EQ(tf.size(), pf.size()) << c.input;
    auto th = Highlighted(tf);
    EXPECT_FALSE(th.empty()) << c.input << c.query;
    EXPECT_EQ(th, Highlighted(pf)) << c.input << c.query;
    auto count = [](const std::vector<DomFrame>& fs) {
      return std::count_if(fs.begin(), fs.end(),
                           [](const DomFrame& f) { return f.fill == "rgb(230,0,230)"; });
    };
    EXPECT_EQ(count(tf), count(pf)) << c.input << c.query;
    EXPECT_EQ(Matched(tk_dom), Matched(pl_dom)) << c.input << c.query;
    EXPECT_NE(tk_dom.find(">Reset Search<"), std::string::npos) << c.query;
  }
}

TEST_F(FlamegraphBrowser, ZoomFromUrlMatchesFlamegraphPl) {
  struct Case {
    const char* input;
    const char* opts;
    const char* frame;  // the title prefix of the frame to zoom
  } cases[] = {
      {"perf-iperf-stacks-pidtid-01-collapsed-tid", "default", "tcp_sendmsg ("},
      {"perf-iperf-stacks-pidtid-01-collapsed-tid", "inverted", "tcp_sendmsg ("},
      {"perf-java-stacks-01-collapsed-all", "default", "start_thread ("},
  };
  for (const Case& c : cases) {
    auto [tk, pl] = Pair(c.input, c.opts);
    std::vector<DomFrame> before = Frames(ReadFile(tk));
    const DomFrame* pick = nullptr;
    for (const DomFrame& f : before)
      if (f.title.rfind(c.frame, 0) == 0 && (!pick || std::stod(f.width) > std::stod(pick->width)))
        pick = &f;
    ASSERT_TRUE(pick) << c.frame;
    std::string query = "?x=" + pick->x + "&y=" + pick->y;
    std::string tk_dom = browser_.DumpDom(tk, query), pl_dom = browser_.DumpDom(pl, query);
    std::vector<DomFrame> tf = Frames(tk_dom), pf = Frames(pl_dom);
    EXPECT_EQ(Classes(tf), Classes(pf)) << c.input << query;
    int hidden = 0, parents = 0, full = 0;
    for (const DomFrame& f : tf) {
      hidden += f.cls == "hide";
      parents += f.cls == "parent";
      if (f.title == pick->title && f.y == pick->y) {
        EXPECT_EQ(f.width, "1180") << query;
        EXPECT_EQ(f.x, "10") << query;
        ++full;
      }
    }
    EXPECT_EQ(full, 1);
    EXPECT_GT(hidden, 0);
    EXPECT_GT(parents, 0);
    EXPECT_EQ(tk_dom.find("id=\"unzoom\" x=\"10.00\" y=\"24\" class=\"hide\""), std::string::npos);
    // Zoom and search together, as a shared link carries both.
    std::string both = browser_.DumpDom(tk, query + "&s=%5Etcp_");
    EXPECT_NE(Matched(both), "(none)");
  }
}

// The interactive path: keys, prompt, hover, clicks, and the URL they write.
TEST_F(FlamegraphBrowser, KeyboardAndMouse) {
  if (std::system("command -v node >/dev/null 2>&1") != 0) {
    if (InCi()) FAIL() << "node is not installed (scripts/install-deps.sh installs nodejs)";
    GTEST_SKIP() << "node is not installed";
  }
  auto [tk, pl] = Pair("perf-iperf-stacks-pidtid-01-collapsed-tid", "default");
  std::string pl_dom = browser_.DumpDom(pl, "?s=%5Etcp_");
  std::string out = Shell("timeout 120 node --experimental-websocket '" +
                        SourcePath("tests/flamegraph/interact.js") + "' '" + tk +
                        "' '^TCP_' 'tcp_sendmsg (' 2>/dev/null");
  nlohmann::json j = nlohmann::json::parse(out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << out;
  ASSERT_FALSE(j.contains("error")) << out;
  EXPECT_EQ(j["prompt"], "prompt");
  // Case-sensitive "^TCP_" matches nothing; after Ctrl-I it matches what "^tcp_" matches in
  // flamegraph.pl's SVG.
  EXPECT_EQ(j["afterSearch"]["highlighted"], 0);
  EXPECT_EQ(j["afterCase"]["icShown"], true);
  EXPECT_EQ(j["afterCase"]["matched"], Matched(pl_dom));
  int pl_highlighted = 0;
  for (const DomFrame& f : Frames(pl_dom)) pl_highlighted += f.fill == "rgb(230,0,230)";
  EXPECT_EQ(j["afterCase"]["highlighted"], pl_highlighted);
  EXPECT_EQ(j["afterCase"]["search"], "?s=%5ETCP_");
  EXPECT_EQ(j["afterCase"]["searchText"], "Reset Search");
  EXPECT_EQ(j["afterHover"]["details"].get<std::string>().rfind("Function: tcp_sendmsg (", 0), 0u);
  std::string box_x = j["box"]["rx"], box_y = j["box"]["ry"];
  EXPECT_EQ(j["afterClick"]["search"], "?s=%5ETCP_&x=" + box_x + "&y=" + box_y);
  EXPECT_EQ(j["afterClick"]["unzoomHidden"], false);
  EXPECT_GT(j["afterClick"]["hidden"].get<int>(), 0);
  EXPECT_GT(j["afterClick"]["parents"].get<int>(), 0);
  EXPECT_EQ(j["clickedWidth"], true);
  EXPECT_EQ(j["afterUnzoom"]["search"], "?s=%5ETCP_");
  EXPECT_EQ(j["afterUnzoom"]["hidden"], 0);
  EXPECT_EQ(j["afterUnzoom"]["unzoomHidden"], true);
  EXPECT_EQ(j["afterUnzoom"]["matched"], j["afterCase"]["matched"]);
  EXPECT_EQ(j["afterReset"]["search"], "");
  EXPECT_EQ(j["afterReset"]["highlighted"], 0);
  EXPECT_EQ(j["afterReset"]["matchedHidden"], true);
  EXPECT_EQ(j["afterReset"]["searchText"], "Search");
}

}  // namespace
}  // namespace tk::testing
