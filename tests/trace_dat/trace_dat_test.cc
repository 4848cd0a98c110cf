// The trace.dat reader on files recorded on this machine (testdata/trace_dat/record.sh):
// golden dumps, `trace-cmd report` as oracle, v6 == v7 == v7-uncompressed, overruns, and
// truncated / corrupted copies.
#include "parsers/trace_dat/trace_dat_parser.h"

#include <zstd.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <regex>
#include <sstream>

#include "core/timestamp.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "parsers/trace_dat/cpu_stream.h"
#include "parsers/trace_dat/trace_dat_file.h"
#include "tests/support/golden.h"

namespace tk::parsers::trace_dat {
namespace {

using tk::testing::ReadFile;
using tk::testing::SourcePath;

std::string Fixture(const std::string& name) {
  std::string data = ReadFile(SourcePath("testdata/trace_dat/" + name));
  if (name.size() > 4 && name.substr(name.size() - 4) == ".zst") {
    unsigned long long n = ZSTD_getFrameContentSize(data.data(), data.size());
    std::string out(n, '\0');
    size_t got = ZSTD_decompress(out.data(), out.size(), data.data(), data.size());
    EXPECT_EQ(got, n);
    return out;
  }
  return data;
}

// One line per event: "TS CPU TID COMM NAME | body".
std::string Body(const Event& e) {
  std::ostringstream o;
  if (const auto* sw = std::get_if<SchedSwitch>(&e.body)) {
    o << sw->prev_comm << "/" << sw->prev_pid << "/" << sw->prev_prio << " "
      << sw->prev_state.ToString() << " ==> " << sw->next_comm << "/" << sw->next_pid << "/"
      << sw->next_prio;
  } else if (const auto* w = std::get_if<SchedWakeup>(&e.body)) {
    o << "kind=" << int(w->kind) << " " << w->comm << "/" << w->pid << " prio=" << w->prio
      << " target=" << w->target_cpu;
  } else if (const auto* m = std::get_if<SchedMigrate>(&e.body)) {
    o << m->comm << "/" << m->pid << " " << m->orig_cpu << "->" << m->dest_cpu;
  } else if (const auto* s = std::get_if<SchedStat>(&e.body)) {
    o << s->comm << "/" << s->pid << " " << s->delay_ns;
  } else if (const auto* f = std::get_if<SchedFork>(&e.body)) {
    o << f->parent_comm << "/" << f->parent_pid << " -> " << f->child_comm << "/" << f->child_pid;
  } else if (const auto* x = std::get_if<SchedExit>(&e.body)) {
    o << x->comm << "/" << x->pid << " prio=" << x->prio;
  } else if (const auto* b = std::get_if<BlockRq>(&e.body)) {
    o << b->major << "," << b->minor << " " << b->rwbs.ToString() << " " << b->sector << " + "
      << b->nr_sector << " bytes=" << b->bytes << " err=" << b->error << " ioprio=" << b->ioprio
      << " [" << b->comm << "] nr_rq=" << b->nr_rq;
  } else if (const auto* l = std::get_if<Lost>(&e.body)) {
    o << "kind=" << int(l->kind) << " count=" << l->count;
  } else if (const auto* g = std::get_if<Generic>(&e.body)) {
    for (const Field& fl : g->fields) o << fl.name << "=" << fl.value << (fl.numeric ? "#" : "") << " ";
  }
  return o.str();
}

class DumpSink : public EventSink {
 public:
  EventMask wants() const override { return EventMask::All(); }
  absl::Status OnEvent(const Event& e) override {
    out += FormatTimestamp(e.ts_ns, 9) + " " + std::to_string(e.cpu) + " " +
           std::to_string(e.tid) + " " + std::string(e.comm) + " " + std::string(e.name) +
           " | " + Body(e) + "\n";
    events.push_back({e.ts_ns, e.cpu, e.tid, std::string(e.name), std::string(e.comm), ""});
    if (const auto* sw = std::get_if<SchedSwitch>(&e.body)) {
      events.back().state = sw->prev_state.ToString();
    }
    if (const auto* l = std::get_if<Lost>(&e.body)) lost[e.cpu] += l->count;
    return absl::OkStatus();
  }
  absl::Status Finish() override {
    finished = true;
    return absl::OkStatus();
  }
  struct Ev {
    int64_t ts;
    int cpu, tid;
    std::string name, comm;
    std::string state;  // sched_switch prev_state letters
  };
  std::string out;
  std::vector<Ev> events;
  std::map<int, uint64_t> lost;
  bool finished = false;
};

struct Result {
  absl::Status status;
  DumpSink sink;
  std::string err;
};

std::unique_ptr<Result> ParseDat(std::string_view data, bool stream = false) {
  auto r = std::make_unique<Result>();
  std::ostringstream err;
  Diagnostics diag("t.dat", &err);
  auto in = stream ? Input::StreamFromString(data, 1000, "t.dat") : Input::FromString(data, "t.dat");
  r->status = NewTraceDatParser({})->Parse(*in, r->sink, diag);
  diag.PrintSummary();
  r->err = err.str();
  return r;
}

TEST(TraceDat, V7ZstdGolden) {
  auto r = ParseDat(Fixture("sched_block.v7.dat"));
  ASSERT_TRUE(r->status.ok()) << r->status;
  EXPECT_TRUE(r->sink.finished);
  EXPECT_EQ(r->err, "");
  EXPECT_EQ(r->sink.events.size(), 1115u);
  tk::testing::ExpectGolden(r->sink.out, "testdata/trace_dat/sched_block.golden.txt");
}

TEST(TraceDat, V6AndUncompressedV7GiveTheSameEvents) {
  auto v7 = ParseDat(Fixture("sched_block.v7.dat"));
  auto v6 = ParseDat(Fixture("sched_block.v6.dat.zst"));
  auto none = ParseDat(Fixture("sched_block.v7none.dat.zst"));
  ASSERT_TRUE(v6->status.ok()) << v6->status;
  ASSERT_TRUE(none->status.ok()) << none->status;
  EXPECT_EQ(v6->sink.out, v7->sink.out);
  EXPECT_EQ(none->sink.out, v7->sink.out);
}

TEST(TraceDat, StdinIsSpooled) {
  std::string data = Fixture("sched_block.v7.dat");
  auto a = ParseDat(data), b = ParseDat(data, /*stream=*/true);
  ASSERT_TRUE(b->status.ok()) << b->status;
  EXPECT_EQ(a->sink.out, b->sink.out);
}

// `trace-cmd report -N` lines: "  comm-TID [CPU] SECS.USECS: event_name: ..." and
// "CPU:0 [207 EVENTS DROPPED]". -N: no plugins, so sched_switch prints prev_state with the
// event's own print fmt (the plugin has 3.x letters: W for 6.x's I, X for Z, no "+").
struct Oracle {
  std::vector<DumpSink::Ev> events;  // ts in µs
  std::map<int, uint64_t> dropped;
};
Oracle ParseReport(const std::string& text) {
  Oracle o;
  static const std::regex line(R"(^\s*(.*)-(\d+)\s+\[(\d+)\]\s+(\d+\.\d+):\s+([^:\s]+):)");
  static const std::regex drop(R"(^CPU:(\d+) \[(\d+) EVENTS DROPPED\])");
  static const std::regex state(R"(prev_state=(\S+) ==>)");
  std::istringstream in(text);
  std::string l;
  std::smatch m;
  while (std::getline(in, l)) {
    if (std::regex_search(l, m, drop)) {
      o.dropped[std::stoi(m[1])] += std::stoull(m[2]);
    } else if (std::regex_search(l, m, line)) {
      o.events.push_back({*ParseTimestampNs(m[4].str()), std::stoi(m[3]), std::stoi(m[2]),
                          m[5].str(), m[1].str(), ""});
      std::smatch sm;
      if (std::regex_search(l, sm, state)) o.events.back().state = sm[1].str();
    }
  }
  return o;
}

void ExpectMatchesReport(const std::string& fixture, const std::string& report,
                         std::string data = "") {
  auto r = ParseDat(data.empty() ? Fixture(fixture) : data);
  ASSERT_TRUE(r->status.ok()) << r->status;
  Oracle o = ParseReport(report);
  std::vector<DumpSink::Ev> mine;
  for (const auto& e : r->sink.events) {
    if (e.name != "lost") mine.push_back(e);
  }
  ASSERT_EQ(mine.size(), o.events.size());
  for (size_t i = 0; i < mine.size(); ++i) {
    const auto& a = mine[i];
    const auto& b = o.events[i];
    SCOPED_TRACE(i);
    EXPECT_EQ((a.ts + 500) / 1000, b.ts / 1000);  // report rounds to the nearest µs
    EXPECT_EQ(a.cpu, b.cpu);
    EXPECT_EQ(a.tid, b.tid);
    EXPECT_EQ(a.name.substr(a.name.find(':') + 1), b.name);
    if (!b.state.empty()) EXPECT_EQ(a.state, b.state);
    if (b.comm == "<idle>") {
      EXPECT_EQ(a.comm, "swapper");
    } else if (b.comm != "<...>") {
      EXPECT_EQ(a.comm, b.comm);
    }
    if (::testing::Test::HasFailure()) break;
  }
  EXPECT_EQ(r->sink.lost, o.dropped);
}

// Against the report committed next to the fixture (made by record.sh with trace-cmd 3.1.6).
TEST(TraceDat, MatchesSavedTraceCmdReport) {
  ExpectMatchesReport("sched_block.v7.dat", Fixture("sched_block.report.txt"));
  ExpectMatchesReport("overrun.v7.dat", Fixture("overrun.report.txt"));
}

// Against trace-cmd on this machine, when it is installed.
TEST(TraceDat, MatchesLiveTraceCmdReport) {
  if (std::system("trace-cmd -h >/dev/null 2>&1") == 127 ||
      std::system("command -v trace-cmd >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "trace-cmd not installed";
  }
  for (const char* f : {"sched_block.v7.dat", "overrun.v7.dat"}) {
    std::string cmd = "trace-cmd report -N " + SourcePath(std::string("testdata/trace_dat/") + f) +
                      " 2>/dev/null";
    FILE* p = popen(cmd.c_str(), "r");
    ASSERT_NE(p, nullptr);
    std::string text;
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0) text.append(buf, n);
    pclose(p);
    ExpectMatchesReport(f, text);
  }
}

// The committed recordings of testdata/recorded/: v7 == v6, and the same events as the
// `trace-cmd report -R` saved with them. A missing fixture fails.
TEST(TraceDat, SharedRecordedFixtures) {
  int found = 0;
  for (const char* base : {"testdata/recorded/sched/sched", "testdata/recorded/iolat/writesync"}) {
    std::string v7 = SourcePath(std::string(base) + ".trace.dat");
    std::string v6 = SourcePath(std::string(base) + ".v6.trace.dat");
    std::string raw = SourcePath(std::string(base) + ".report-raw.txt");
    ASSERT_TRUE(tk::testing::FileExists(v7)) << v7;
    ASSERT_TRUE(tk::testing::FileExists(raw)) << raw;
    ASSERT_TRUE(tk::testing::FileExists(v6)) << v6;
    ++found;
    SCOPED_TRACE(base);
    ExpectMatchesReport(base, ReadFile(raw), ReadFile(v7));
    EXPECT_EQ(ParseDat(ReadFile(v6))->sink.out, ParseDat(ReadFile(v7))->sink.out);
    // The kernel's own text of the same buffer (`cat trace`): prev_state letters as the
    // kernel printed them, switch by switch.
    std::string ftrace = SourcePath(std::string(base) + ".ftrace.txt");
    ASSERT_TRUE(tk::testing::FileExists(ftrace)) << ftrace;
    {
      std::vector<std::string> kernel, mine;
      std::istringstream in(ReadFile(ftrace));
      for (std::string l; std::getline(in, l);) {
        size_t p = l.find("sched_switch: ");
        size_t q = p == std::string::npos ? p : l.find("prev_state=", p);
        if (q == std::string::npos) continue;
        kernel.push_back(l.substr(q + 11, l.find(' ', q) - q - 11));
      }
      auto r = ParseDat(ReadFile(v7));
      for (const auto& e : r->sink.events) {
        if (e.name == "sched:sched_switch") mine.push_back(e.state);
      }
      EXPECT_EQ(mine, kernel);
    }
  }
  EXPECT_EQ(found, 2);
}

TEST(TraceDat, OverrunBecomesLostEvents) {
  auto r = ParseDat(Fixture("overrun.v7.dat"));
  ASSERT_TRUE(r->status.ok()) << r->status;
  ASSERT_FALSE(r->sink.lost.empty());
  EXPECT_NE(r->err.find("events lost (ring buffer overrun)"), std::string::npos) << r->err;
  // Lost events precede the first event of their page, on the same CPU.
  for (size_t i = 0; i + 1 < r->sink.events.size(); ++i) {
    if (r->sink.events[i].name == "lost") {
      EXPECT_EQ(r->sink.events[i].ts, r->sink.events[i + 1].ts);
      EXPECT_EQ(r->sink.events[i].cpu, r->sink.events[i + 1].cpu);
    }
  }
}

// v6 puts the CPU table before the data: a cut inside the data keeps every whole page. (v7
// files from trace-cmd keep the BUFFER option, which locates the CPU data, in an options
// section after the data: a truncated v7 has nothing to decode, as for trace-cmd.)
TEST(TraceDat, TruncatedV6KeepsWholePages) {
  std::string full = Fixture("sched_block.v6.dat.zst");
  auto all = ParseDat(full);
  absl::StatusOr<std::unique_ptr<TraceDatFile>> f = ReadTraceDat(full);
  ASSERT_TRUE(f.ok());
  const CpuData last = f.value()->TopBuffer()->cpus.back();
  // Cut inside the last CPU's data, 100 bytes into its third page.
  size_t cut = last.offset + 2 * 4096 + 100;
  auto r = ParseDat(std::string_view(full).substr(0, cut));
  ASSERT_FALSE(r->status.ok());
  std::string msg(r->status.message());
  EXPECT_EQ(msg, "t.dat: offset " + std::to_string(last.offset + 2 * 4096) + ": CPU " +
                     std::to_string(last.cpu) + " data truncated: 8292 of " +
                     std::to_string(last.size) + " bytes present");
  EXPECT_FALSE(r->sink.finished);
  EXPECT_GT(r->sink.events.size(), 100u);
  EXPECT_LT(r->sink.events.size(), all->sink.events.size());
  // Every event decoded from the cut file is in the full file's stream.
  std::multiset<std::string> full_lines;
  std::istringstream a(all->sink.out);
  for (std::string l; std::getline(a, l);) full_lines.insert(l);
  std::istringstream b(r->sink.out);
  for (std::string l; std::getline(b, l);) EXPECT_TRUE(full_lines.count(l)) << l;
}

TEST(TraceDat, TruncatedEverywhereNeverCrashes) {
  for (const char* name : {"sched_block.v7.dat", "sched_block.v6.dat.zst", "overrun.v7.dat"}) {
    std::string full = Fixture(name);
    for (size_t cut = 0; cut < full.size(); cut += 1 + full.size() / 97) {
      auto r = ParseDat(std::string_view(full).substr(0, cut));
      EXPECT_FALSE(r->status.ok()) << name << " cut at " << cut;
      std::string msg(r->status.message());
      EXPECT_EQ(msg.rfind("t.dat: offset ", 0), 0u) << msg;
    }
  }
}

TEST(TraceDat, CorruptPagesAreSkippedAndCounted) {
  std::string data = Fixture("sched_block.v7none.dat.zst");
  auto f = ReadTraceDat(data);
  ASSERT_TRUE(f.ok());
  const CpuData c = f.value()->TopBuffer()->cpus.back();
  // Page 1's commit word: absurd size. Page 2: a record with length 0 (kbuffer would loop).
  std::string bad = data;
  bad[c.offset + 4096 + 8] = '\xff';
  bad[c.offset + 4096 + 9] = '\x0f';
  size_t rec = c.offset + 2 * 4096 + 16;
  std::memset(bad.data() + rec, 0, 8);
  auto r = ParseDat(bad);
  EXPECT_TRUE(r->status.ok()) << r->status;
  EXPECT_NE(r->err.find("offset " + std::to_string(c.offset + 4096) + ": CPU " +
                        std::to_string(c.cpu) + ": "),
            std::string::npos)
      << r->err;
  EXPECT_NE(r->err.find("2 corrupt ring-buffer pages skipped"), std::string::npos) << r->err;
  EXPECT_GT(r->sink.events.size(), 500u);
}

TEST(TraceDat, RandomByteFlipsNeverCrash) {
  std::mt19937 rng(42);
  for (const char* name : {"sched_block.v7.dat", "overrun.v7.dat"}) {
    std::string base = Fixture(name);
    for (int i = 0; i < 60; ++i) {
      std::string d = base;
      for (int k = 0; k < 8; ++k) d[rng() % d.size()] = static_cast<char>(rng());
      auto r = ParseDat(d);  // any status; must not crash, hang or read out of bounds
      if (!r->status.ok()) {
        EXPECT_EQ(std::string(r->status.message()).rfind("t.dat: ", 0), 0u) << r->status;
      }
    }
  }
}

TEST(TraceDat, CheckPageWalksLengths) {
  std::string page(4096, '\0');
  auto put32 = [&](size_t off, uint32_t v) { std::memcpy(page.data() + off, &v, 4); };
  uint64_t commit = 24 | (uint64_t{1} << 31) | (uint64_t{1} << 30);
  std::memcpy(page.data() + 8, &commit, 8);
  put32(16, 2);          // type_len 2: 8 bytes data
  put32(28, 30);         // time extend
  put32(36, 0);          // type_len 0 ...
  put32(40, 4 + 0);      //   ... no data: ends at 24? (36-16=20, +8 = 28 > 24: runs past)
  PageCheck c = CheckPage(page, false, 8);
  EXPECT_EQ(c.commit, 24u);
  EXPECT_EQ(c.valid, 20u);
  EXPECT_NE(c.problem.find("crosses the commit"), std::string::npos) << c.problem;
  uint64_t lost = 77;
  std::memcpy(page.data() + 16 + 24, &lost, 8);
  EXPECT_EQ(CheckPage(page, false, 8).missed, 77);
}

// Timestamp options, on the tiny v6 seed whose one option (TRACECLOCK, 23 bytes) is rewritten
// in place: OFFSET "1000000000" adds 1 s; DATE "0x3e8" adds 1000 µs; TSC2NSEC {mult 3,
// shift 1} scales by 1.5 (as trace-cmd's mul_u64_u32_shr).
TEST(TraceDat, TimestampOptions) {
  std::string base = ReadFile(SourcePath("fuzz/corpus/trace_dat/tiny.v6.dat"));
  size_t opt = base.find(std::string("options  \0", 10));
  ASSERT_NE(opt, std::string::npos);
  opt += 10;  // {u16 id, u32 size = 23, data}
  auto with = [&](uint16_t id, std::string data) {
    std::string d = base;
    data.resize(23, '\0');
    std::memcpy(d.data() + opt, &id, 2);
    d.replace(opt + 6, 23, data);
    return d;
  };
  auto plain = ParseDat(base);
  ASSERT_TRUE(plain->status.ok()) << plain->status;
  ASSERT_GT(plain->sink.events.size(), 10u);
  auto off = ParseDat(with(7, "1000000000"));
  auto date = ParseDat(with(1, "0x3e8"));
  std::string tsc(16, '\0');
  uint32_t mult = 3, shift = 1;
  std::memcpy(tsc.data(), &mult, 4);
  std::memcpy(tsc.data() + 4, &shift, 4);
  auto scaled = ParseDat(with(14, tsc));
  for (auto* r : {off.get(), date.get(), scaled.get()}) {
    ASSERT_TRUE(r->status.ok()) << r->status;
    ASSERT_EQ(r->sink.events.size(), plain->sink.events.size());
  }
  for (size_t i = 0; i < plain->sink.events.size(); ++i) {
    int64_t t = plain->sink.events[i].ts;
    EXPECT_EQ(off->sink.events[i].ts, t + 1000000000);
    EXPECT_EQ(date->sink.events[i].ts, t + 1000000);
    EXPECT_EQ(scaled->sink.events[i].ts, t + t / 2) << i;
  }
}

// Every one of the 2,305 formats of a real file passes tk's pre-checks and libtraceevent.
TEST(TraceDat, AllRealFormatsParse) {
  auto f = ReadTraceDat(Fixture("sched_block.v7.dat"));
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_GT((*f)->events->format_count(), 2000u);
  EXPECT_EQ((*f)->events->ParseAll(), 0);
}

TEST(TraceDat, Describe) {
  std::string data = Fixture("sched_block.v7.dat");
  auto in = Input::FromString(data, "t.dat");
  auto jt = DescribeTraceDat(*in);
  ASSERT_TRUE(jt.ok()) << jt.status();
  auto j = std::optional(nlohmann::json::parse(*jt));
  EXPECT_EQ((*j)["trace_dat_version"], 7);
  EXPECT_EQ((*j)["compression"], "zstd 1.5.4");
  EXPECT_EQ((*j)["page_size"], 4096);
  EXPECT_EQ((*j)["clock"], "local");
  EXPECT_EQ((*j)["cpus"], 2);
  EXPECT_EQ((*j)["buffers"].size(), 1u);
  EXPECT_EQ((*j)["buffers"][0]["compressed"], true);
  EXPECT_EQ((*j)["event_formats"].get<int>() > 100, true);
  std::string v6 = Fixture("sched_block.v6.dat.zst");
  auto in6 = Input::FromString(v6, "t6.dat");
  auto j6t = DescribeTraceDat(*in6);
  ASSERT_TRUE(j6t.ok()) << j6t.status();
  auto j6 = std::optional(nlohmann::json::parse(*j6t));
  EXPECT_EQ((*j6)["trace_dat_version"], 6);
  EXPECT_EQ((*j6)["compression"], "none");
  EXPECT_EQ((*j6)["event_formats"], (*j)["event_formats"]);
  auto bad = Input::FromString("\x17\x08\x44tracing9\0", "x.dat");
  auto jb = DescribeTraceDat(*bad);
  ASSERT_FALSE(jb.ok());
  EXPECT_EQ(std::string(jb.status().message()).rfind("x.dat: offset 10: ", 0), 0u);
}

// Through the real binary, from a file and from stdin; a truncated file exits 1 with
// "tk: FILE: offset N: ..." after the intact pages.
TEST(TraceDatCli, InfoFromFileAndStdin) {
  std::string path = SourcePath("testdata/trace_dat/sched_block.v7.dat");
  for (bool from_stdin : {false, true}) {
    tk::testing::RunResult r = from_stdin ? tk::testing::RunTk({"info", "--json", "-"}, path)
                                          : tk::testing::RunTk({"info", "--json", path});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    nlohmann::json j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["format"], "trace.dat");
    EXPECT_EQ(j["trace_dat_version"], 7);
    EXPECT_EQ(j["compression"], "zstd 1.5.4");
    EXPECT_EQ(j["events"]["sched:sched_switch"], 149);
    EXPECT_EQ(j["events"]["block:block_rq_issue"], 51);
  }
  std::string v6 = Fixture("sched_block.v6.dat.zst");
  std::string cut = ::testing::TempDir() + "/tk_trace_dat_cut.dat";
  {
    std::ofstream o(cut, std::ios::binary);
    o.write(v6.data(), static_cast<std::streamsize>(v6.size() - 5000));
  }
  tk::testing::RunResult r = tk::testing::RunTk({"info", cut});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("tk: " + cut + ": offset "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("data truncated"), std::string::npos) << r.err;
  std::remove(cut.c_str());
}

}  // namespace
}  // namespace tk::parsers::trace_dat
