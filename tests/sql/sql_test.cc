// tk sql through the real binary: SQL over the tables reproduces tk fold, tk info, tk sched,
// tk iolat, tk irq, tk syscalls and tk fold --off-cpu on committed fixtures, the sqlite3 CLI reads the database, CSV/JSONL exports, and a failed or
// interrupted run leaves no file behind.
#include <dirent.h>
#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/support/golden.h"

namespace tk::testing {
namespace {

std::string TempDir() {
  std::string t = ::testing::TempDir() + "tk_sql_XXXXXX";
  return mkdtemp(t.data());
}

std::vector<std::string> ListDir(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      std::string n = e->d_name;
      if (n != "." && n != "..") names.push_back(n);
    }
    closedir(d);
  }
  std::sort(names.begin(), names.end());
  return names;
}

// tk fold's output rebuilt in SQL: each sample's leaf call site walked up to the root,
// joining the frames' fold names; stacks whose frames fold skips all are dropped, as fold
// drops them; the weight is the period (1 when none); only the first event type (fold's
// default; fixtures whose types differ only by modifiers would need SameEventType's rule).
// The CTE that walks every call site up to the root: path(leaf, parent, s) ends, for each
// leaf call site, in a row with parent NULL and s the frames' fold names root first (frames
// fold skips left out).
#define TK_SQL_PATH_CTE                                                                        \
  "WITH RECURSIVE path(leaf, parent, s) AS (\n"                                               \
  "  SELECT st.id, st.parent_id, f.name FROM stacks st JOIN frames f ON f.id = st.frame_id\n" \
  "  UNION ALL\n"                                                                             \
  "  SELECT p.leaf, st.parent_id,\n"                                                          \
  "         CASE WHEN f.name = '' THEN p.s WHEN p.s = '' THEN f.name\n"                       \
  "              ELSE f.name || ';' || p.s END\n"                                             \
  "  FROM path p JOIN stacks st ON st.id = p.parent JOIN frames f ON f.id = st.frame_id)\n"

// tk fold's output rebuilt in SQL: each sample's leaf call site walked up to the root,
// joining the frames' fold names; stacks whose frames fold skips all are dropped, as fold
// drops them; the weight is the period (1 when none); only the first event type (fold's
// default; fixtures whose types differ only by modifiers would need SameEventType's rule).
constexpr const char* kFoldQuery = TK_SQL_PATH_CTE R"sql(
SELECT stack || ' ' || count AS folded FROM (
  SELECT replace(samples.comm, ' ', '_') || ';' || path.s AS stack,
         sum(coalesce(nullif(period, 0), 1)) AS count
  FROM samples JOIN path ON path.leaf = samples.stack_id AND path.parent IS NULL
  WHERE path.s != ''
    AND samples.type_id = (SELECT type_id FROM samples ORDER BY event_id LIMIT 1)
  GROUP BY 1 ORDER BY 1);
)sql";

// tk fold --off-cpu rebuilt from the intervals: each interval's switch-out stack (root: the
// comm of its sched_switch sample), floor(duration / 1 µs) added per stack, intervals of at
// least 1 µs with a stack (tk fold --off-cpu's defaults).
constexpr const char* kOffCpuIntervalQuery = TK_SQL_PATH_CTE R"sql(
SELECT stack || ' ' || us AS folded FROM (
  SELECT replace(s.comm, ' ', '_') || ';' || path.s AS stack, sum(i.duration_ns / 1000) AS us
  FROM off_cpu_intervals i JOIN samples s ON s.event_id = i.switch_out_id
  JOIN path ON path.leaf = i.stack_id AND path.parent IS NULL
  WHERE i.duration_ns >= 1000
  GROUP BY 1 ORDER BY 1);
)sql";

const std::vector<std::string> kPerfDataFlags = {
    "--no-buildid-cache", "--no-host-kallsyms", "--kallsyms",
    SourcePath("testdata/perf_data/kallsyms")};

std::vector<std::string> With(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

class SqlFold : public ::testing::TestWithParam<const char*> {};

TEST_P(SqlFold, StackCountsEqualTkFold) {
  std::string in = SourcePath(GetParam());
  std::vector<std::string> flags;
  if (std::string(GetParam()).ends_with(".data")) flags = kPerfDataFlags;
  RunResult fold = RunTk(With({"fold", in}, flags));
  ASSERT_EQ(fold.exit_code, 0) << fold.err;
  ASSERT_FALSE(fold.out.empty());
  RunResult sql = RunTk(With({"sql", in, "-e", kFoldQuery}, flags));
  ASSERT_EQ(sql.exit_code, 0) << sql.err;
  ASSERT_TRUE(sql.out.starts_with("folded\n")) << sql.out.substr(0, 200);
  std::string rows = sql.out.substr(7);
  EXPECT_EQ(rows, fold.out) << UnifiedDiff(fold.out, rows);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, SqlFold,
                         ::testing::Values("testdata/fold/system-wide-g.txt",
                                           "testdata/fold/proc-g.txt",
                                           "testdata/perf_data/g.data",
                                           "testdata/perf_data/multi.data"));

TEST(Sql, EventCountsPerNameEqualTkInfo) {
  std::string in = SourcePath("testdata/trace_dat/sched_block.v7.dat");
  RunResult info = RunTk({"info", "--json", in});
  ASSERT_EQ(info.exit_code, 0) << info.err;
  nlohmann::json expected = nlohmann::json::parse(info.out)["events"];
  RunResult sql = RunTk({"sql", "--json", in, "-e",
                         "SELECT name, count(*) AS n FROM events GROUP BY name ORDER BY name"});
  ASSERT_EQ(sql.exit_code, 0) << sql.err;
  nlohmann::json got = nlohmann::json::object();
  std::istringstream rows(sql.out);
  for (std::string line; std::getline(rows, line);) {
    nlohmann::json r = nlohmann::json::parse(line);
    got[r["name"].get<std::string>()] = r["n"];
  }
  EXPECT_EQ(got, expected);
  // Typed tables hold one row per event of their kind.
  RunResult typed = RunTk({"sql", in, "-e",
                           "SELECT (SELECT count(*) FROM sched_switch),"
                           " (SELECT count(*) FROM events WHERE kind = 'block_rq'),"
                           " (SELECT count(*) FROM block_rq)"});
  std::string counts = typed.out.substr(typed.out.find('\n') + 1);
  EXPECT_EQ(counts, std::to_string(expected["sched:sched_switch"].get<int>()) + "|443|443\n");
}

// A time of tk sched top --json in nanoseconds: "KEY_ns" (integer), or "KEY" as seconds text
// ("1045.986612741", the older report).
int64_t Nanos(const nlohmann::json& row, const std::string& key) {
  if (row.contains(key + "_ns")) return row.at(key + "_ns").get<int64_t>();
  std::string s = row.at(key).get<std::string>();
  size_t dot = s.find('.');
  return std::stoll(s.substr(0, dot)) * 1000000000 + std::stoll(s.substr(dot + 1));
}

// tk iolat --json's latency statistic `k` (count, avg, min, max) of `span`, in µs:
// latency.SPAN.K_us, or latency_us.SPAN.K in the older report.
double IolatStat(const nlohmann::json& dev, const std::string& span, const std::string& k) {
  if (dev.contains("latency")) {
    const nlohmann::json& s = dev.at("latency").at(span);
    return s.at(k == "count" ? k : k + "_us").get<double>();
  }
  return dev.at("latency_us").at(span).at(k).get<double>();
}

TEST(Sql, SchedDelayRowsAreTkSchedTopsDelays) {
  std::string in = SourcePath("testdata/trace_dat/sched_block.v7.dat");
  RunResult top = RunTk({"sched", "top", "-n", "1000000", "--json", in});
  ASSERT_EQ(top.exit_code, 0) << top.err;
  std::vector<std::string> expected;
  const nlohmann::json doc = nlohmann::json::parse(top.out);
  for (const nlohmann::json& r : doc.at("top")) {
    expected.push_back(std::to_string(Nanos(r, "wakeup")) + " " +
                       std::to_string(Nanos(r, "switch")) + " " +
                       r.at("comm").get<std::string>() +
                       " " + std::to_string(r.at("tid").get<int>()) + " " +
                       std::to_string(r.at("cpu").get<int>()) + " " +
                       std::to_string(r.at("waker_tid").get<int>()) + " " +
                       std::to_string(r.at("preempted").get<bool>()));
  }
  ASSERT_GT(expected.size(), 50u);
  std::sort(expected.begin(), expected.end());
  RunResult sql = RunTk({"sql", in, "-e",
                         "SELECT ready_ts || ' ' || run_ts || ' ' || comm || ' ' || tid || ' ' ||"
                         " cpu || ' ' || waker_tid || ' ' || preempted FROM sched_delay"
                         " WHERE delay_ns = run_ts - ready_ts"});
  ASSERT_EQ(sql.exit_code, 0) << sql.err;
  std::vector<std::string> got;
  std::istringstream rows(sql.out);
  std::string line;
  std::getline(rows, line);  // header
  while (std::getline(rows, line)) got.push_back(line);
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, expected);
}

TEST(Sql, IoRequestLatenciesAreTkIolats) {
  std::string in = SourcePath("testdata/trace_dat/sched_block.v7.dat");
  RunResult iolat = RunTk({"iolat", "--json", in});
  ASSERT_EQ(iolat.exit_code, 0) << iolat.err;
  nlohmann::json devices = nlohmann::json::parse(iolat.out)["devices"];
  ASSERT_FALSE(devices.empty());
  for (const auto& dev : devices) {
    std::string d = dev["dev"];
    std::string major = d.substr(0, d.find(',')), minor = d.substr(d.find(',') + 1);
    for (const char* span : {"d2c", "q2c"}) {
      std::string from = std::string(span) == "d2c" ? "d_ts" : "q_ts";
      RunResult sql = RunTk(
          {"sql", "--json", in, "-e",
           "SELECT count(*) AS count, avg(c_ts - " + from + ") / 1000.0 AS avg, min(c_ts - " +
               from + ") / 1000.0 AS min, max(c_ts - " + from + ") / 1000.0 AS max" +
               " FROM io_request WHERE major = " + major + " AND minor = " + minor + " AND " +
               from + " IS NOT NULL AND c_ts >= " + from});
      ASSERT_EQ(sql.exit_code, 0) << sql.err;
      nlohmann::json got = nlohmann::json::parse(sql.out);
      SCOPED_TRACE(d + " " + span);
      EXPECT_EQ(got.at("count").get<double>(), IolatStat(dev, span, "count"));
      for (const char* k : {"avg", "min", "max"}) {
        EXPECT_NEAR(got.at(k).get<double>(), IolatStat(dev, span, k), 0.0005) << k;
      }
    }
  }
}

// Rows of a `tk sql -e QUERY --json` run (one JSON object per row, or one object).
nlohmann::json SqlRows(const std::vector<std::string>& args) {
  RunResult r = RunTk(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json rows = nlohmann::json::array();
  std::istringstream in(r.out);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty()) rows.push_back(nlohmann::json::parse(line));
  }
  return rows;
}

constexpr const char* kLttngTrace = "testdata/lttng/recorded/lttng.trace.dat";

// Per IRQ and vector, count/min/max/total of the irq rows = tk irq --json's durations, and the
// softirq raise latencies = its raise_latency.
TEST(Sql, IrqRowsAreTkIrqs) {
  std::string in = SourcePath(kLttngTrace);
  RunResult irq = RunTk({"irq", "--json", in});
  ASSERT_EQ(irq.exit_code, 0) << irq.err;
  nlohmann::json doc = nlohmann::json::parse(irq.out);
  nlohmann::json rows = SqlRows(
      {"sql", "--json", in, "-e",
       "SELECT type, number, count(*) AS count, min(duration_ns) AS min, max(duration_ns) AS max,"
       " sum(duration_ns) AS total, sum(begin_ts - raise_ts) AS raise_total,"
       " count(raise_ts) AS raised FROM irq GROUP BY type, number ORDER BY type, number"});
  size_t i = 0;
  for (const char* type : {"irq", "softirq"}) {
    for (const nlohmann::json& want : doc[std::string(type) == "irq" ? "hard" : "soft"]) {
      ASSERT_LT(i, rows.size());
      const nlohmann::json& got = rows[i++];
      SCOPED_TRACE(got.dump());
      EXPECT_EQ(got["type"], type);
      EXPECT_EQ(got["number"], want[std::string(type) == "irq" ? "irq" : "vec"]);
      const nlohmann::json& d = want["duration"];
      EXPECT_EQ(got["count"], d["count"]);
      EXPECT_DOUBLE_EQ(got["min"].get<double>() / 1000, d["min_us"].get<double>());
      EXPECT_DOUBLE_EQ(got["max"].get<double>() / 1000, d["max_us"].get<double>());
      EXPECT_DOUBLE_EQ(got["total"].get<double>() / 1000, d["total_us"].get<double>());
      if (std::string(type) == "softirq") {
        EXPECT_EQ(got["raised"], want["raise_latency"]["count"]);
        EXPECT_DOUBLE_EQ(got["raise_total"].get<double>() / 1000,
                         want["raise_latency"]["total_us"].get<double>());
      }
    }
  }
  EXPECT_EQ(i, rows.size());
  EXPECT_GE(rows.size(), 4u);
}

// Per thread and syscall, count/errors/min/max/total of the syscalls rows = tk syscalls --json.
TEST(Sql, SyscallRowsAreTkSyscalls) {
  std::string in = SourcePath(kLttngTrace);
  RunResult sc = RunTk({"syscalls", "--json", in});
  ASSERT_EQ(sc.exit_code, 0) << sc.err;
  std::map<std::string, nlohmann::json> want;
  const nlohmann::json doc = nlohmann::json::parse(sc.out);
  for (const nlohmann::json& t : doc["threads"]) {
    for (const nlohmann::json& c : t["calls"]) {
      if (c["count"] == 0) continue;  // only exits or enters without their pair
      want[std::to_string(t["tid"].get<int>()) + " " + c["name"].get<std::string>()] = c;
    }
  }
  ASSERT_GT(want.size(), 20u);
  nlohmann::json rows = SqlRows(
      {"sql", "--json", in, "-e",
       "SELECT tid || ' ' || name AS k, count(*) AS count, sum(error) AS errors,"
       " min(duration_ns) AS min, max(duration_ns) AS max, sum(duration_ns) AS total"
       " FROM syscalls GROUP BY tid, name"});
  ASSERT_EQ(rows.size(), want.size());
  for (const nlohmann::json& got : rows) {
    SCOPED_TRACE(got.dump());
    ASSERT_TRUE(want.contains(got["k"]));
    const nlohmann::json& c = want[got["k"]];
    EXPECT_EQ(got["count"], c["count"]);
    EXPECT_EQ(got["errors"], c["errors"]);
    EXPECT_NEAR(got["min"].get<double>() / 1000, c["min_us"].get<double>(), 5e-4);
    EXPECT_NEAR(got["max"].get<double>() / 1000, c["max_us"].get<double>(), 5e-4);
    EXPECT_NEAR(got["total"].get<double>() / 1000, c["total_us"].get<double>(), 5e-4);
  }
}

// The off-CPU fixture (sched_switch and sched_waking with callchains) and the flags it needs.
std::vector<std::string> OffCpuFixture() {
  std::string dir = "testdata/offcpu/";
  return {"--no-buildid-cache", "--no-host-kallsyms", "--symfs", SourcePath(dir + "symfs"),
          "--kallsyms", SourcePath(dir + "kallsyms"), SourcePath(dir + "offcpu.data")};
}

// The off_cpu rows, as folded lines, are tk fold --off-cpu's output.
TEST(Sql, OffCpuRowsAreTkFoldOffCpu) {
  const std::vector<std::string> flags = OffCpuFixture();
  RunResult fold = RunTk(With({"fold", "--off-cpu"}, flags));
  ASSERT_EQ(fold.exit_code, 0) << fold.err;
  ASSERT_GT(fold.out.size(), 1000u);
  RunResult sql = RunTk(With(
      {"sql", "-e", "SELECT stack || ' ' || us AS folded FROM off_cpu ORDER BY stack"}, flags));
  ASSERT_EQ(sql.exit_code, 0) << sql.err;
  ASSERT_TRUE(sql.out.starts_with("folded\n"));
  std::string rows = sql.out.substr(7);
  EXPECT_EQ(rows, fold.out) << UnifiedDiff(fold.out, rows);
}

// The off_cpu_intervals rows, summed per switch-out stack, are tk fold --off-cpu's output;
// every closed interval is a row (those without a stack too), and each names its sched_switch.
TEST(Sql, OffCpuIntervalsSumToTkFoldOffCpu) {
  const std::vector<std::string> flags = OffCpuFixture();
  RunResult fold = RunTk(With({"fold", "--off-cpu"}, flags));
  ASSERT_EQ(fold.exit_code, 0) << fold.err;
  ASSERT_FALSE(fold.out.empty()) << "the fixture must have off-CPU stacks";
  RunResult sql = RunTk(With({"sql", "-e", kOffCpuIntervalQuery}, flags));
  ASSERT_EQ(sql.exit_code, 0) << sql.err;
  ASSERT_TRUE(sql.out.starts_with("folded\n"));
  std::string rows = sql.out.substr(7);
  EXPECT_EQ(rows, fold.out) << UnifiedDiff(fold.out, rows);
  RunResult json = RunTk(With({"fold", "--off-cpu", "--json"}, flags));
  ASSERT_EQ(json.exit_code, 0) << json.err;
  nlohmann::json intervals = nlohmann::json::parse(json.out)["intervals"];
  ASSERT_GT(intervals["closed"].get<int64_t>(), 0);
  nlohmann::json got = SqlRows(With(
      {"sql", "--json", "-e",
       "SELECT count(stack_id) AS closed, count(*) - count(stack_id) AS no_stack,"
       " sum(i.tid = w.prev_pid AND i.start_ts = w.ts) AS at_switch_out,"
       " sum(end_ts - start_ts = duration_ns) AS durations FROM off_cpu_intervals i"
       " LEFT JOIN sched_switch w ON w.event_id = i.switch_out_id"},
      flags))[0];
  EXPECT_EQ(got["closed"], intervals["closed"]);
  EXPECT_EQ(got["no_stack"], intervals["no_stack"]);
  const int64_t all = intervals["closed"].get<int64_t>() + intervals["no_stack"].get<int64_t>();
  EXPECT_EQ(got["at_switch_out"], all);
  EXPECT_EQ(got["durations"], all);
}

// One event is one row: the event tables together hold every event once (the events view),
// events with a callchain also a samples row; the load on two threads writes the same tables
// as on one.
TEST(Sql, OneRowPerEventAndThreadsAgree) {
  std::string in = SourcePath("testdata/trace_dat/sched_block.v7.dat");
  nlohmann::json got = SqlRows(
      {"sql", "--json", in, "-e",
       "SELECT (SELECT count(*) FROM events) AS events,"
       " (SELECT count(DISTINCT id) FROM events) AS ids,"
       " (SELECT max(id) FROM events) AS max_id,"
       " (SELECT value FROM meta WHERE key = 'events') AS meta"})[0];
  EXPECT_EQ(got["events"], got["ids"]);
  EXPECT_EQ(got["events"], got["max_id"]);
  EXPECT_EQ(got["meta"].get<std::string>(), got["events"].dump());
  // trace.dat, and perf.data with its reading thread and stacks.
  for (const std::string& file : {in, SourcePath("testdata/perf_data/g.data")}) {
    std::string dir = TempDir();
    for (const char* t : {"1", "2"}) {
      std::vector<std::string> args = {"sql", "--threads", t, file, "--format", "csv",
                                       "-o", dir + "/t" + t};
      if (file.ends_with(".data")) args = With(args, kPerfDataFlags);
      RunResult r = RunTk(args);
      ASSERT_EQ(r.exit_code, 0) << r.err;
    }
    std::vector<std::string> files = ListDir(dir + "/t1");
    ASSERT_EQ(files, ListDir(dir + "/t2"));
    for (const std::string& f : files) {
      EXPECT_EQ(ReadFile(dir + "/t1/" + f), ReadFile(dir + "/t2/" + f)) << file << " " << f;
    }
  }
}

TEST(Sql, DatabaseReadBySqlite3Cli) {
  if (std::system("command -v sqlite3 >/dev/null 2>&1") != 0) {
    if (std::getenv("CI")) FAIL() << "sqlite3 CLI missing (scripts/install-deps.sh)";
    GTEST_SKIP() << "no sqlite3 CLI";
  }
  std::string dir = TempDir();
  std::string db = dir + "/trace.sqlite";
  RunResult r = RunTk({"sql", SourcePath("testdata/trace_dat/sched_block.v7.dat"), "-o", db});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ListDir(dir), std::vector<std::string>{"trace.sqlite"});
  std::string cmd = "sqlite3 " + db +
                    " 'PRAGMA integrity_check; SELECT count(*) FROM events;"
                    " SELECT value FROM meta WHERE key = \"schema_version\";' > " + dir +
                    "/out.txt";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  RunResult info = RunTk({"info", "--json", SourcePath("testdata/trace_dat/sched_block.v7.dat")});
  nlohmann::json events = nlohmann::json::parse(info.out)["events"];
  uint64_t n = 0;
  for (const auto& v : events) n += v.get<uint64_t>();
  EXPECT_EQ(ReadFile(dir + "/out.txt"), "ok\n" + std::to_string(n) + "\n3\n");
}

// The issue's "indices on ts and tid": built after the load, on every event table; a query
// plan on ts uses one; --no-index leaves only the primary keys.
TEST(Sql, EventTablesHaveTsAndTidIndices) {
  std::string in = SourcePath("testdata/trace_dat/sched_block.v7.dat");
  const char* list =
      "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name;";
  RunResult r = RunTk({"sql", in, "-e", list});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string want = "name\n";
  for (const char* t : {"block_rq", "generic_events", "samples", "sched_switch", "sched_wakeup"}) {
    want += std::string(t) + "_tid\n" + t + "_ts\n";
  }
  EXPECT_EQ(r.out, want);
  RunResult plan = RunTk(
      {"sql", in, "-e", "EXPLAIN QUERY PLAN SELECT * FROM sched_switch WHERE ts > 5;"});
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  EXPECT_NE(plan.out.find("USING INDEX sched_switch_ts"), std::string::npos) << plan.out;
  RunResult none = RunTk({"sql", in, "--no-index", "-e", list});
  ASSERT_EQ(none.exit_code, 0) << none.err;
  EXPECT_EQ(none.out, "name\n");
}

TEST(Sql, CsvAndJsonlHaveEveryTableWithHeaders) {
  std::string in = SourcePath("testdata/fold/proc-g.txt");
  std::string dir = TempDir();
  ASSERT_EQ(RunTk({"sql", in, "--format", "csv", "-o", dir + "/csv"}).exit_code, 0);
  ASSERT_EQ(RunTk({"sql", in, "--format", "jsonl", "-o", dir + "/jsonl"}).exit_code, 0);
  // Every table of the database; not the events view (docs/sql-schema.md gives its SQL).
  const std::vector<std::string> tables = {
      "block_rq", "event_types", "frames",       "generic_events", "io_request",
      "irq",      "meta",        "off_cpu",      "off_cpu_intervals", "samples",
      "sched_delay", "sched_switch", "sched_wakeup", "stacks", "syscalls", "tasks"};
  std::vector<std::string> csv, jsonl;
  for (const std::string& t : tables) {
    csv.push_back(t + ".csv");
    jsonl.push_back(t + ".jsonl");
  }
  EXPECT_EQ(ListDir(dir + "/csv"), csv);
  EXPECT_EQ(ListDir(dir + "/jsonl"), jsonl);
  std::string events = ReadFile(dir + "/csv/samples.csv");  // this input has samples only
  EXPECT_TRUE(events.starts_with("event_id,ts,cpu,pid,tid,type_id,comm,period,stack_id\n"))
      << events.substr(0, 100);
  RunResult n = RunTk({"sql", in, "-e", "SELECT count(*) AS n FROM events"});
  size_t rows = std::count(events.begin(), events.end(), '\n') - 1;
  EXPECT_EQ(n.out, "n\n" + std::to_string(rows) + "\n");
  std::ifstream j(dir + "/jsonl/samples.jsonl");
  std::string first;
  std::getline(j, first);
  nlohmann::json row = nlohmann::json::parse(first);
  EXPECT_EQ(row["event_id"], 1);
  EXPECT_TRUE(row["ts"].is_number_integer());
  EXPECT_EQ(ReadFile(dir + "/jsonl/event_types.jsonl"),
            "{\"id\":1,\"kind\":\"sample\",\"name\":\"cpu-clock:ppp\"}\n");
}

TEST(Sql, FailedRunLeavesNothing) {
  std::string dir = TempDir();
  // A perf.data cut in the middle of its data: a data error after the load began.
  std::string whole = ReadFile(SourcePath("testdata/perf_data/g.data"));
  std::ofstream(dir + "/cut.data", std::ios::binary) << whole.substr(0, whole.size() / 2);
  RunResult r = RunTk({"sql", dir + "/cut.data", "-o", dir + "/out.sqlite"});
  EXPECT_NE(r.exit_code, 0) << r.err;
  EXPECT_EQ(ListDir(dir), std::vector<std::string>{"cut.data"});
}

TEST(Sql, InterruptedRunLeavesNothing) {
  std::string dir = TempDir();
  // tk reads the fixture from a FIFO the shell keeps open, so it is still loading when SIGTERM
  // comes; the temporary database must exist then (polled for up to 20 s: the host may be
  // busy), and nothing after.
  std::string script = "cd " + dir + " && mkfifo in && { " + TK_BINARY +
                       " sql - -o out.sqlite < in & tk=$!; exec 3> in; cat " +
                       SourcePath("testdata/fold/proc-g.txt") + " >&3; " +
                       "for i in $(seq 200); do ls | grep -q tmp && break; sleep 0.1; done; " +
                       "ls > during.txt; kill -TERM $tk; wait $tk; exec 3>&-; rm in; " +
                       "ls > after.txt; }";
  ASSERT_EQ(std::system(("bash -c '" + script + "'").c_str()), 0);
  std::string during = ReadFile(dir + "/during.txt");
  EXPECT_NE(during.find("out.sqlite.tmp."), std::string::npos) << during;
  EXPECT_EQ(ReadFile(dir + "/after.txt"), "after.txt\nduring.txt\n");
}

TEST(Sql, UsageErrors) {
  std::string in = SourcePath("testdata/fold/proc-g.txt");
  EXPECT_EQ(RunTk({"sql", in}).exit_code, 2);
  EXPECT_EQ(RunTk({"sql", in, "-o", "x", "-e", "SELECT 1"}).exit_code, 2);
  EXPECT_EQ(RunTk({"sql", in, "--format", "parquet", "-o", "x"}).exit_code, 2);
  EXPECT_EQ(RunTk({"sql", in, "--json", "-o", "x"}).exit_code, 2);
  EXPECT_EQ(RunTk({"sql", in, "-e", "SELECT nonsense FROM nowhere"}).exit_code, 2);
  EXPECT_EQ(RunTk({"sql", "-", "-e", "SELECT count(*) FROM events"},
                  SourcePath("testdata/fold/system-wide-g.txt")).out,
            "count(*)\n340\n");
  EXPECT_EQ(RunTk({"help", "sql"}).exit_code, 0);
}

TEST(Sql, NonRegularOutputIsRefusedNotReplaced) {
  std::string dir = TempDir(), fifo = dir + "/out.fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  RunResult r = RunTk({"sql", SourcePath("testdata/fold/proc-g.txt"), "-o", fifo});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("not a regular file"), std::string::npos) << r.err;
  struct stat st;
  ASSERT_EQ(stat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  EXPECT_EQ(ListDir(dir), std::vector<std::string>{"out.fifo"});
}

}  // namespace
}  // namespace tk::testing
