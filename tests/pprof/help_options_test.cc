// Every option `tk help CMD` lists is one CMD accepts, for the commands that share tk fold's
// flags (fold, pprof, report, flamegraph, diff): each listed option, given a valid value where
// it takes one, runs on a perf.data fixture without a usage error (exit 2) other than one
// naming a missing partner option ("--state needs --off-cpu"). tk pprof used to list tk fold's
// --wakeup and then reject it.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/support/golden.h"

namespace tk {
namespace {

using testing::RunResult;
using testing::RunTk;
using testing::SourcePath;

struct Listed {
  std::string name;  // the long name when there is one
  bool takes_value = false;
};

// The option lines of `tk help CMD`: "  -o,--output TEXT REQUIRED   text", "  --kernel   text".
std::vector<Listed> ListedOptions(const std::string& help) {
  std::vector<Listed> out;
  std::istringstream in(help);
  std::string line;
  while (std::getline(in, line)) {
    if (line.size() < 3 || line.compare(0, 3, "  -") != 0) continue;
    std::istringstream words(line);
    std::string names, type;
    words >> names >> type;
    if (size_t brace = names.find('{'); brace != std::string::npos) names.resize(brace);
    std::string name = names.substr(names.rfind(',') + 1);
    if (name == "--help") continue;
    // CLI11 prints the value's type in capitals (TEXT, UINT, INT:POSITIVE,
    // TEXT:{perf,top}); a flag's description follows its name instead.
    const std::string kind = type.substr(0, type.find(':'));
    const bool value = !kind.empty() && kind.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ") ==
                                            std::string::npos;
    out.push_back({name, value});
  }
  return out;
}

// flamegraph.pl's --nameattr file: FUNCTION<TAB>KEY=VALUE lines.
std::string NameAttrFile() {
  const std::string path = ::testing::TempDir() + "/tk-help-options.nameattr";
  std::ofstream(path) << "main\ttitle=x\n";
  return path;
}

// A valid value for options that check theirs; anything else gets "1".
std::string ValueFor(const std::string& cmd, const std::string& opt) {
  const std::string td = SourcePath("testdata/perf_data");
  const std::map<std::string, std::string> values = {
      {"--event-filter", "cpu-clock"}, {"--symfs", td + "/symfs"},
      {"--kallsyms", td + "/kallsyms"}, {"--state", "S"},
      {"--time", "0,"}, {"--comm", "workload"},
      {"--comms", "workload"}, {"--sort", "comm,dso,sym"},
      {"--percentage", "relative"}, {"--fields", "overhead,sym"},
      {"--format", cmd == "report" ? "top" : "1"}, {"--call-graph", "none"},
      {"--width", "1200"}, {"--bgcolors", "yellow"},
      {"--nameattr", NameAttrFile()},
  };
  auto it = values.find(opt);
  return it == values.end() ? "1" : it->second;
}

TEST(HelpOptions, EveryListedOptionIsAccepted) {
  const std::string data = SourcePath("testdata/perf_data/a.data");
  const std::string out = ::testing::TempDir() + "/tk-help-options.out";
  const std::map<std::string, std::vector<std::string>> base = {
      {"fold", {data}},
      {"pprof", {data, "-o", out}},
      {"report", {data}},
      {"flamegraph", {data}},
      {"diff", {data, data}},
  };
  // flamegraph's --cp writes palette.map into the working directory: a scratch one.
  char* was = getcwd(nullptr, 0);
  ASSERT_EQ(chdir(::testing::TempDir().c_str()), 0);
  for (const auto& [cmd, args] : base) {
    RunResult help = RunTk({"help", cmd});
    ASSERT_EQ(help.exit_code, 0) << cmd;
    std::vector<Listed> listed = ListedOptions(help.out);
    EXPECT_GT(listed.size(), 5u) << cmd;
    for (const Listed& o : listed) {
      std::vector<std::string> a = {cmd};
      a.insert(a.end(), args.begin(), args.end());
      if (o.name == "--output" || o.name == "-o") continue;  // in the base arguments already
      a.push_back(o.name);
      if (o.takes_value) a.push_back(ValueFor(cmd, o.name));
      RunResult r = RunTk(a);
      // Accepted but needing a partner option ("--max needs --min"): only this option's own
      // "needs" line excuses a usage exit, so a rejected listed option cannot hide behind it.
      const bool partner = r.err.find(o.name + " needs ") != std::string::npos;
      EXPECT_TRUE(r.exit_code != 2 || partner)
          << "tk help " << cmd << " lists " << o.name << ", which tk " << cmd
          << " rejects: " << r.err;
    }
  }
  std::remove(out.c_str());
  std::remove((::testing::TempDir() + "/palette.map").c_str());
  EXPECT_EQ(chdir(was), 0);
  free(was);
}

}  // namespace
}  // namespace tk
