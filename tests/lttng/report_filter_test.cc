// The LTTng-style reports take the shared filter flags (cli/filter_options.h, as fold, sched,
// iolat and script): each report run with a filter equals its unfiltered output restricted in
// the test to what the filter selects; LTTng-analyses' spellings (--procname, --limit) are
// aliases.
#include <cmath>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/support/golden.h"

namespace tk::testing {
namespace {

const std::string kTrace = "testdata/lttng/recorded/lttng.trace.dat";

nlohmann::json Json(std::vector<std::string> args) {
  args.push_back("--json");
  args.push_back(SourcePath(kTrace));
  RunResult r = RunTk(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.exit_code == 0 ? nlohmann::json::parse(r.out) : nlohmann::json();
}

// The rows of `list` whose `key` is `value`.
nlohmann::json Where(const nlohmann::json& list, const char* key, const nlohmann::json& value) {
  nlohmann::json out = nlohmann::json::array();
  for (const nlohmann::json& row : list) {
    if (row[key] == value) out.push_back(row);
  }
  return out;
}

// A thread with rows in `list` (the first one).
int FirstTid(const nlohmann::json& list) {
  EXPECT_FALSE(list.empty());
  return list.empty() ? -1 : list[0]["tid"].get<int>();
}

TEST(ReportFilter, SyscallsByTidAndProcname) {
  nlohmann::json all = Json({"syscalls"})["threads"];
  int tid = FirstTid(all);
  for (const char* flag : {"--tid", "-t"}) {
    EXPECT_EQ(Json({"syscalls", flag, std::to_string(tid)})["threads"], Where(all, "tid", tid))
        << flag;
  }
  std::string comm = all[0]["comm"];
  nlohmann::json want = Where(all, "comm", comm);
  EXPECT_EQ(Json({"syscalls", "--comm", comm})["threads"], want);
  EXPECT_EQ(Json({"syscalls", "--procname", comm})["threads"], want);  // lttng's name
}

TEST(ReportFilter, CputopByTidAndLimit) {
  nlohmann::json all = Json({"cputop", "--top", "0"})["tasks"];
  ASSERT_GT(all.size(), 3u);
  int tid = FirstTid(all);
  EXPECT_EQ(Json({"cputop", "--top", "0", "--tid", std::to_string(tid)})["tasks"],
            Where(all, "tid", tid));
  nlohmann::json two = Json({"cputop", "--limit", "2"})["tasks"];
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[0], all[0]);
  EXPECT_EQ(two[1], all[1]);
  RunResult bad = RunTk({"cputop", "--time", "1,2 3,4", SourcePath(kTrace)});
  EXPECT_EQ(bad.exit_code, 2);
}

TEST(ReportFilter, MemtopByTid) {
  nlohmann::json all = Json({"memtop", "--top", "0"})["tasks"];
  int tid = FirstTid(all);
  EXPECT_EQ(Json({"memtop", "--top", "0", "-t", std::to_string(tid)})["tasks"],
            Where(all, "tid", tid));
}

// tk irq -C / --time against the unfiltered `tk irq log --json` rows selected here.
TEST(ReportFilter, IrqByCpuAndTime) {
  RunResult log = RunTk({"irq", "log", "--json", SourcePath(kTrace)});
  ASSERT_EQ(log.exit_code, 0) << log.err;
  std::vector<nlohmann::json> rows;
  std::istringstream in(log.out);
  for (std::string line; std::getline(in, line);) rows.push_back(nlohmann::json::parse(line));
  ASSERT_GT(rows.size(), 50u);
  const int64_t mid = rows[rows.size() / 2]["begin_ns"].get<int64_t>();
  // "SECONDS.NNNNNNNNN" (--time's form): the window starts at the middle interrupt's entry.
  const std::string at = std::to_string(mid / 1000000000) + "." +
                         std::string(9 - std::to_string(mid % 1000000000).size(), '0') +
                         std::to_string(mid % 1000000000);
  struct Case {
    std::vector<std::string> flags;
    std::function<bool(const nlohmann::json&)> keep;
  } cases[] = {
      {{"-C", "0"}, [](const nlohmann::json& r) { return r["cpu"] == 0; }},
      {{"--cpu", "1"}, [](const nlohmann::json& r) { return r["cpu"] == 1; }},
      {{"--time", at + ","}, [&](const nlohmann::json& r) { return r["begin_ns"] >= mid; }},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.flags[0] + " " + c.flags[1]);
    std::map<std::pair<bool, int>, std::pair<uint64_t, int64_t>> want;  // count, total ns
    for (const nlohmann::json& r : rows) {
      if (!c.keep(r)) continue;
      auto& w = want[{r["type"] == "softirq", r["number"].get<int>()}];
      ++w.first;
      w.second += r["end_ns"].get<int64_t>() - r["begin_ns"].get<int64_t>();
    }
    std::vector<std::string> args = {"irq"};
    args.insert(args.end(), c.flags.begin(), c.flags.end());
    nlohmann::json got = Json(args);
    std::map<std::pair<bool, int>, std::pair<uint64_t, int64_t>> have;
    for (bool soft : {false, true}) {
      for (const nlohmann::json& s : got[soft ? "soft" : "hard"]) {
        const nlohmann::json& d = s["duration"];
        if (d["count"] == 0) continue;
        have[{soft, s[soft ? "vec" : "irq"].get<int>()}] = {
            d["count"].get<uint64_t>(),
            static_cast<int64_t>(std::llround(d["total_us"].get<double>() * 1000))};
      }
    }
    EXPECT_EQ(have, want);
    EXPECT_LT(want.size() + 0u, rows.size());
  }
}

}  // namespace
}  // namespace tk::testing
