// The filters of `tk sched` (every mode) and `tk iolat` (every mode) through the real binary,
// from a file and from stdin. timehist against perf sched timehist's own output
// (testdata/filter/perf/); the others, which perf has no filter for, by what a filter must
// keep: a task filter gives the unfiltered report's rows of that task, unchanged (the state
// machines still see every event), and CPU/time filters split the counts (CPU 0 + CPU 1 =
// all; [,T] + [T+1ns,] = all).
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/filter/filter_test_util.h"

namespace tk::testing {
namespace {

using nlohmann::json;

std::string Sched() { return Fixture("testdata/recorded/sched/sched.perf.data"); }
std::string Iolat() { return Fixture("testdata/recorded/iolat/writesync.trace.dat"); }

TEST(SchedFilter, TimehistIsPerfSchedTimehist) {
  const RefCase cases[] = {
      {{"-t", "17714"}, "sched.timehist-t17714.txt"},
      {{"--tid", "17714"}, "sched.timehist-t17714.txt"},
      {{"-p", "17713,17714", "-w"}, "sched.timehist-p-list-w.txt"},
      {{"-p", "17713", "--pid", "17714", "-w"}, "sched.timehist-p-list-w.txt"},
      {{"-C", "1", "--time", "987.3,987.31"}, "sched.timehist-C1-time.txt"},
      {{"-s", "-p", "17714"}, "sched.timehist-s-p17714.txt"},
      {{"--time", ",987.32"}, "sched.timehist-time-end.txt"},
      {{"--time", "987.49"}, "sched.timehist-start-only.txt"},
  };
  for (const RefCase& c : cases) {
    SCOPED_TRACE(::testing::PrintToString(c.filter));
    std::string want = ReadFile(PerfReference(c.reference));
    ASSERT_FALSE(want.empty());
    EXPECT_EQ(RunOk(Cat({"sched", "timehist", "--compat", "perf-6.1"}, c.filter), Sched()), want);
  }
  // --comm (perf's timehist has none) selects the same rows as the task's tid.
  EXPECT_EQ(RunOk({"sched", "timehist", "--comm", "busy2"}, Sched()),
            RunOk({"sched", "timehist", "-t", "17714"}, Sched(), false));
}

// The table rows (between the header and TOTAL) of `tk sched latency` text.
std::vector<std::string> LatencyRows(const std::string& out) {
  std::vector<std::string> rows;
  for (const std::string& l : Lines(out))
    if (l.rfind("  ", 0) == 0 && l.find(" ms |") != std::string::npos &&
        l.find("TOTAL:") == std::string::npos)
      rows.push_back(l);
  return rows;
}

TEST(SchedFilter, LatencyTaskFilterKeepsThatTasksRows) {
  std::vector<std::string> per_thread = LatencyRows(RunOk({"sched", "latency", "-p"}, Sched()));
  std::vector<std::string> per_comm = LatencyRows(RunOk({"sched", "latency"}, Sched()));
  ASSERT_GT(per_thread.size(), 5u);
  for (const std::string& row : per_thread) {
    if (row.find("busy") == std::string::npos) continue;
    std::string task = row.substr(2, row.find(' ', 2) - 2);  // "busy2:17714"
    std::string tid = task.substr(task.find(':') + 1);
    EXPECT_EQ(LatencyRows(RunOk({"sched", "latency", "-p", "--tid", tid}, Sched())),
              std::vector<std::string>{row});
    EXPECT_EQ(LatencyRows(RunOk({"sched", "latency", "-p", "--pid", tid}, Sched(), false)),
              std::vector<std::string>{row});  // single-threaded processes
  }
  for (const std::string& row : per_comm) {
    std::string task = row.substr(2, row.find(" |") - 2);  // "comm:(N)" or "comm:tid"
    task.erase(task.find_last_not_of(' ') + 1);
    std::string comm = task.substr(0, task.rfind(':'));
    if (comm.find(' ') != std::string::npos) continue;
    EXPECT_EQ(LatencyRows(RunOk({"sched", "latency", "--comm", comm}, Sched(), false)),
              std::vector<std::string>{row});
  }
}

uint64_t LatencyCount(const Args& filter) {
  json j = json::parse(RunOk(Cat({"sched", "latency", "--json"}, filter), Sched(), false));
  return j["total"]["count"].get<uint64_t>();
}

TEST(SchedFilter, LatencyCpuAndTimeSplitTheDelays) {
  uint64_t all = LatencyCount({});
  ASSERT_GT(all, 100u);
  uint64_t c0 = LatencyCount({"--cpu", "0"}), c1 = LatencyCount({"--cpu", "1"});
  EXPECT_GT(c0, 0u);
  EXPECT_GT(c1, 0u);
  EXPECT_EQ(c0 + c1, all);
  uint64_t early = LatencyCount({"--time", ",987.4"});
  uint64_t late = LatencyCount({"--time", "987.400000001,"});
  EXPECT_GT(early, 0u);
  EXPECT_GT(late, 0u);
  EXPECT_EQ(early + late, all);
}

uint64_t HistCount(const std::string& out) {
  const json j = json::parse(out);
  uint64_t n = 0;
  for (const json& b : j["buckets"]) n += b["count"].get<uint64_t>();
  return n;
}

TEST(SchedFilter, HistAndTopKeepThatTasksDelays) {
  // hist --pid X is hist -P's section of X.
  std::string one = RunOk({"sched", "hist", "--json", "--pid", "17714"}, Sched());
  std::string text_one = RunOk({"sched", "hist", "--pid", "17714"}, Sched(), false);
  std::string text_all = RunOk({"sched", "hist", "-P"}, Sched(), false);
  // The -P text has "pid = 17714 busy2" then that histogram: the filtered one is inside it.
  size_t at = text_all.find("pid = 17714 ");
  ASSERT_NE(at, std::string::npos) << text_all;
  size_t body = text_all.find('\n', at) + 1;
  EXPECT_EQ(text_all.compare(body, text_one.size(), text_one), 0)
      << text_one << "\n----\n"
      << text_all.substr(body, text_one.size());
  EXPECT_EQ(HistCount(RunOk({"sched", "hist", "--json", "-C", "0"}, Sched(), false)) +
                HistCount(RunOk({"sched", "hist", "--json", "-C", "1"}, Sched(), false)),
            HistCount(RunOk({"sched", "hist", "--json"}, Sched(), false)));
  EXPECT_GT(HistCount(one), 10u);

  // top --tid T is top's entries of T, in order.
  json all = json::parse(RunOk({"sched", "top", "-n", "100000", "--json"}, Sched()));
  json want = json::array();
  for (const json& e : all["top"])
    if (e["tid"] == 17714) want.push_back(e);
  ASSERT_GT(want.size(), 10u);
  json got =
      json::parse(RunOk({"sched", "top", "-n", "100000", "--json", "--tid", "17714"}, Sched()));
  EXPECT_EQ(got["top"], want);
}

TEST(SchedFilter, UtilRowsAndWindow) {
  json all = json::parse(RunOk({"sched", "util", "--json"}, Sched()));
  json c1 = json::parse(RunOk({"sched", "util", "--json", "-C", "1"}, Sched()));
  ASSERT_EQ(c1["cpus"].size(), 1u);
  EXPECT_EQ(c1["cpus"][0], all["cpus"][1]);
  auto busy = [](const json& j) { return j["total"]["busy_ms"].get<double>(); };
  auto window = [](const json& j) { return j["total"]["window_ms"].get<double>(); };
  json early = json::parse(RunOk({"sched", "util", "--json", "--time", ",987.4"}, Sched()));
  json late = json::parse(RunOk({"sched", "util", "--json", "--time", "987.4,"}, Sched(), false));
  EXPECT_NEAR(busy(early) + busy(late), busy(all), 1e-5);
  EXPECT_NEAR(window(early) + window(late), window(all), 1e-5);
  EXPECT_LT(window(early), window(all));
}

// ---- iolat ----

json LogLines(const Args& filter) {
  json out = json::array();
  for (const std::string& l : Lines(RunOk(Cat({"iolat", "log", "--json"}, filter), Iolat())))
    out.push_back(json::parse(l));
  return out;
}

TEST(IolatFilter, LogIsThePostFilterOfTheLog) {
  json all = LogLines({});
  ASSERT_GT(all.size(), 500u);
  auto keep = [&all](const std::function<bool(const json&)>& f) {
    json out = json::array();
    for (const json& r : all)
      if (f(r)) out.push_back(r);
    EXPECT_GT(out.size(), 0u);
    EXPECT_LT(out.size(), all.size());
    return out;
  };
  EXPECT_EQ(LogLines({"--tid", "14294"}), keep([](const json& r) { return r["tid"] == 14294; }));
  EXPECT_EQ(LogLines({"--pid", "14294"}), keep([](const json& r) { return r["tid"] == 14294; }));
  EXPECT_EQ(LogLines({"--comm", "dd"}), keep([](const json& r) { return r["comm"] == "dd"; }));
  EXPECT_EQ(LogLines({"-d", "7,1"}), keep([](const json& r) { return r["dev"] == "7,1"; }));
  EXPECT_EQ(LogLines({"--device", "7:0,7:1"}),
            keep([](const json& r) { return r["dev"] == "7,0" || r["dev"] == "7,1"; }));
  int64_t mid = all[all.size() / 2]["complete_ns"];
  std::string t = std::to_string(mid / 1000000000) + "." +
                  std::to_string(1000000000 + mid % 1000000000).substr(1);
  EXPECT_EQ(LogLines({"--time", t + ","}),
            keep([mid](const json& r) { return r["complete_ns"].get<int64_t>() >= mid; }));
}

uint64_t Completed(const Args& filter) {
  json j = json::parse(RunOk(Cat({"iolat", "latency", "--json"}, filter), Iolat(), false));
  uint64_t n = 0;
  for (const json& d : j["devices"]) n += d["completed"].get<uint64_t>();
  return n;
}

TEST(IolatFilter, CpuSplitsTheRequestsInEveryMode) {
  uint64_t all = Completed({});
  uint64_t c0 = Completed({"-C", "0"}), c1 = Completed({"-C", "1"});
  EXPECT_GT(c0, 0u);
  EXPECT_GT(c1, 0u);
  EXPECT_EQ(c0 + c1, all);
  // hist and top see the same requests; the default report only the device asked for.
  std::string hist = RunOk({"iolat", "hist", "-P", "--comm", "dd"}, Iolat());
  EXPECT_NE(hist.find("dd "), std::string::npos) << hist;
  EXPECT_EQ(hist.find("kworker"), std::string::npos) << hist;
  json top = json::parse(RunOk({"iolat", "top", "-n", "1000", "--json", "-d", "7,0"}, Iolat()));
  ASSERT_FALSE(top.empty());
  std::string report = RunOk({"iolat", "--json", "-d", "7,0"}, Iolat(), false);  // names input
  json r = json::parse(report);
  ASSERT_TRUE(r.contains("devices")) << report;
  ASSERT_EQ(r["devices"].size(), 1u) << report;
  EXPECT_EQ(r["devices"][0]["dev"], "7,0");
}

}  // namespace
}  // namespace tk::testing

namespace tk::testing {
namespace {

// Every mode with every filter: the same output from the file and from stdin, and not the
// unfiltered output (each filter here selects a part of these recordings).
TEST(FilterMatrix, EveryModeEveryFilterFileAndStdin) {
  struct Input {
    std::string file;
    std::vector<Args> modes;
    std::vector<Args> filters;
  };
  const Input inputs[] = {
      {Sched(),
       {{"sched", "latency"},
        {"sched", "timehist"},
        {"sched", "hist"},
        {"sched", "top", "-n", "100000"},
        {"sched", "util"}},
       {{"--pid", "17714"},
        {"--tid", "17714"},
        {"--comm", "busy2"},
        {"--cpu", "1"},
        {"--time", "987.3,987.4"}}},
      {Iolat(),
       {{"iolat"},
        {"iolat", "latency"},
        {"iolat", "hist"},
        {"iolat", "top", "-n", "100000"},
        {"iolat", "log"}},
       {{"--pid", "14380"},
        {"--tid", "14380"},
        {"--comm", "dd"},
        {"-C", "1"},
        {"-d", "7,1"},
        {"--time", "910.2,"}}},
  };
  for (const Input& in : inputs) {
    for (const Args& mode : in.modes) {
      std::string all = RunTk(Cat(mode, {in.file})).out;
      ASSERT_FALSE(all.empty());
      for (const Args& f : in.filters) {
        const bool util = mode.back() == "util";
        if (util && f[0] != "--cpu" && f[0] != "--time") continue;  // refused: per-CPU table
        SCOPED_TRACE(::testing::PrintToString(Cat(mode, f)));
        RunResult r = RunTk(Cat(Cat(mode, f), {in.file}));
        RunResult s = RunTk(Cat(Cat(mode, f), {"-"}), in.file);
        EXPECT_EQ(r.exit_code, 0) << r.err;
        EXPECT_EQ(s.exit_code, 0) << s.err;
        std::string from_stdin = s.out;  // the iolat report names its input
        for (size_t at; (at = from_stdin.find("<stdin>")) != std::string::npos;)
          from_stdin.replace(at, 7, in.file);
        EXPECT_EQ(from_stdin, r.out);
        EXPECT_NE(r.out, all);
      }
    }
  }
}

}  // namespace
}  // namespace tk::testing
