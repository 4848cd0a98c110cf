// tk report against perf report 6.1 (the reference outputs in testdata/report/perf/, made by
// testdata/report/record.sh with PERF_CONFIG=/dev/null perf report --stdio) on the recorded
// fixtures. Rows are compared by their values as integers (Samples, Period) and their keys;
// the whole text is compared where perf 6.1 has no quirk. The known differences, each pinned
// here and listed in docs/report.md:
//   * children mode, an unresolved leaf: perf 6.1 counts it twice, at its DSO-relative
//     address (Self) and again at its absolute address (Children only); tk keeps one row.
//   (a.data has one sample whose callchain holds a context marker perf does not know: perf
//   script drops its stack, perf report counts its IP, and so does tk, from
//   Event::dropped_stack_ip.)
//   * pipe mode: perf 6.1 never shows Children (it decides before the stream's attrs arrive).
#include <algorithm>
#include <ostream>
#include <regex>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/report/fixture_args.h"
#include "tests/support/golden.h"

namespace tk::testing {
namespace {

struct Row {
  std::string children, self;  // percent text ("" when absent)
  uint64_t samples = 0, period = 0;
  std::string keys;  // the key columns, spaces squeezed
  bool operator<(const Row& o) const {
    return std::tie(keys, samples, period, self, children) <
           std::tie(o.keys, o.samples, o.period, o.self, o.children);
  }
  bool operator==(const Row& o) const {
    return keys == o.keys && samples == o.samples && period == o.period && self == o.self &&
           children == o.children;
  }
};

void PrintTo(const Row& r, std::ostream* os) {
  *os << "{" << r.children << " " << r.self << " " << r.samples << " " << r.period << " " << r.keys
      << "}";
}

std::vector<Row> ParseRows(const std::string& text, bool children) {
  static const std::regex kFlat(R"(^\s+([\d.]+%)\s+(\d+)\s+(\d+)\s+(.*?)\s*$)");
  static const std::regex kChildren(R"(^\s+([\d.]+%)\s+([\d.]+%)\s+(\d+)\s+(\d+)\s+(.*?)\s*$)");
  std::vector<Row> rows;
  size_t at = 0;
  int block = 0;  // rows are keyed by their block (event): "0|comm  dso  sym"
  while (at < text.size()) {
    if (text.compare(at, 2, "\n\n") == 0) {
      ++block;
      at += 2;
      continue;
    }
    size_t nl = text.find('\n', at);
    std::string line = text.substr(at, nl - at);
    at = nl == std::string::npos ? text.size() : nl + 1;
    std::smatch m;
    Row r;
    if (children && std::regex_match(line, m, kChildren)) {
      r.children = m[1];
      r.self = m[2];
      r.samples = std::stoull(m[3]);
      r.period = std::stoull(m[4]);
      r.keys = m[5];
    } else if (!children && std::regex_match(line, m, kFlat)) {
      r.self = m[1];
      r.samples = std::stoull(m[2]);
      r.period = std::stoull(m[3]);
      r.keys = m[4];
    } else {
      continue;
    }
    r.keys =
        std::to_string(block) + "|" + std::regex_replace(r.keys, std::regex(R"(\s{2,})"), "  ");
    rows.push_back(r);
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

bool Unresolved(const Row& r) {
  return std::regex_search(r.keys, std::regex(R"(\[[.k]\] (0x[0-9a-f]{16}|0{16})$)"));
}

struct Fixture {
  std::string name, dir;
};

const Fixture kFixtures[] = {{"cxx", "report"},    {"cxx.nocg", "report"}, {"g", "perf_data"},
                             {"a", "perf_data"},   {"multi", "perf_data"}, {"z", "perf_data"},
                             {"pipe", "perf_data"}};

std::vector<std::string> Args(const Fixture& f, bool children, const std::string& file) {
  return FixtureArgs("report", f.dir,
                     {"-q", children ? "--children" : "--no-children", "-g", "none", "--sort",
                      "comm,dso,sym", "-n", "--show-total-period", "--percent-limit", "0", file});
}

std::string Oracle(const std::string& name, const std::string& mode) {
  return ReadFile(SourcePath("testdata/report/perf/" + name + "." + mode + ".txt"));
}

TEST(ReportParity, NoChildrenEqualsPerfReport) {
  for (const Fixture& f : kFixtures) {
    std::string data = SourcePath("testdata/" + f.dir + "/" + f.name + ".data");
    for (bool stdin_input : {false, true}) {
      RunResult r = stdin_input ? RunTk(Args(f, false, "-"), data) : RunTk(Args(f, false, data));
      ASSERT_EQ(r.exit_code, 0) << f.name << r.err;
      EXPECT_EQ(r.out, Oracle(f.name, "flat")) << f.name << (stdin_input ? " (stdin)" : "");
    }
  }
}

TEST(ReportParity, ChildrenEqualsPerfReport) {
  for (const Fixture& f : kFixtures) {
    if (f.name == "pipe") continue;  // perf 6.1 shows no Children in pipe mode
    std::string data = SourcePath("testdata/" + f.dir + "/" + f.name + ".data");
    RunResult r = RunTk(Args(f, true, data));
    ASSERT_EQ(r.exit_code, 0) << f.name << r.err;
    std::string want = Oracle(f.name, "children");
    if (f.dir == "report") {  // every user frame resolves: byte for byte
      EXPECT_EQ(r.out, want) << f.name;
      continue;
    }
    // Resolved rows equal perf's; an unresolved row of tk equals perf's row at the same
    // (relative) address in Self, and perf's Children there is what tk adds to it from
    // callchains minus perf's absolute-address duplicate.
    std::vector<Row> got = ParseRows(r.out, true), exp = ParseRows(want, true);
    std::vector<Row> got_resolved, exp_resolved;
    for (const Row& g : got)
      if (!Unresolved(g)) got_resolved.push_back(g);
    for (const Row& e : exp)
      if (!Unresolved(e)) exp_resolved.push_back(e);
    std::vector<Row> only_tk, only_perf;
    std::set_difference(got_resolved.begin(), got_resolved.end(), exp_resolved.begin(),
                        exp_resolved.end(), std::back_inserter(only_tk));
    std::set_difference(exp_resolved.begin(), exp_resolved.end(), got_resolved.begin(),
                        got_resolved.end(), std::back_inserter(only_perf));
    EXPECT_TRUE(only_tk.empty() && only_perf.empty())
        << f.name << "\nonly tk: " << ::testing::PrintToString(only_tk)
        << "\nonly perf: " << ::testing::PrintToString(only_perf);
    for (const Row& g : got) {
      if (!Unresolved(g) || g.samples == 0) continue;
      auto it =
          std::find_if(exp.begin(), exp.end(), [&](const Row& e) { return e.keys == g.keys; });
      ASSERT_NE(it, exp.end()) << f.name << " " << g.keys;
      EXPECT_EQ(it->samples, g.samples) << g.keys;
      EXPECT_EQ(it->period, g.period) << g.keys;
    }
  }
}

// Other options against perf's outputs (testdata/report/record.sh has the command lines).
TEST(ReportParity, OptionsEqualPerfReport) {
  std::string d = "testdata/perf_data/";
  std::vector<std::string> common =
      FixtureArgs("report", "perf_data", {"-g", "none", "--no-children"});
  struct Case {
    std::string oracle;
    std::vector<std::string> args;
  } cases[] = {
      {"a.pid-cpu", {"-q", "--sort", "pid,cpu", "-n"}},
      {"a.relative", {"--comms", "workload", "--percentage", "relative"}},
      {"a.filters",
       {"-q", "--sort", "dso,sym", "--dsos", "workload,libc.so.6", "--percent-limit", "0.5"}},
      {"a.fields", {"-q", "-F", "sample,period,overhead,sym"}},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = common;
    args.insert(args.end(), c.args.begin(), c.args.end());
    args.push_back(SourcePath(d + "a.data"));
    RunResult r = RunTk(args);
    ASSERT_EQ(r.exit_code, 0) << c.oracle << r.err;
    std::string want = ReadFile(SourcePath("testdata/report/perf/" + c.oracle + ".txt"));
    // perf ends with a random "# (Tip: ...)" block that tk does not print.
    size_t tip = want.find("#\n# (Tip:");
    if (tip != std::string::npos) want.resize(tip);
    EXPECT_EQ(r.out, want) << c.oracle;
  }
}

}  // namespace
}  // namespace tk::testing
