// core/filter: perf's --time syntax, the id/comm/device lists, the predicates, FilterSink, and
// the filter inside fold's two-thread text path.
#include "core/filter.h"

#include <sstream>

#include "analyses/fold/fold.h"
#include "parsers/perf_script/split_parse.h"
#include "gtest/gtest.h"
#include "tests/support/golden.h"

namespace tk {
namespace {

constexpr int64_t kSec = 1000000000;

TEST(ParseTimeRanges, PerfForms) {
  using V = std::vector<TimeRange>;
  EXPECT_EQ(*ParseTimeRanges("1.5,2"), (V{{1500000000, 2 * kSec}}));
  EXPECT_EQ(*ParseTimeRanges("661.245333,"), (V{{661245333000, 0}}));
  EXPECT_EQ(*ParseTimeRanges(",661.000000001"), (V{{0, 661 * kSec + 1}}));
  EXPECT_EQ(*ParseTimeRanges("5.,6"), (V{{5 * kSec, 6 * kSec}}));  // perf: "5." is 5 s
  EXPECT_EQ(*ParseTimeRanges(".5,1"), (V{{kSec / 2, kSec}}));
  // perf sched timehist reads a lone START as START, (perf script refuses it).
  EXPECT_EQ(*ParseTimeRanges("987.49"), (V{{987490000000, 0}}));
  // Several ranges separated by spaces, as perf script's --time "a,b c,d".
  EXPECT_EQ(*ParseTimeRanges("1,2 3,4"), (V{{kSec, 2 * kSec}, {3 * kSec, 4 * kSec}}));
  EXPECT_EQ(*ParseTimeRanges("1,1"), (V{{kSec, kSec}}));
}

TEST(ParseTimeRanges, RefusesWhatPerfRefuses) {
  for (const char* bad :
       {"", " ", "abc", "1.0000000001,", "2,1", "1,x", "-1,2", "1..2,", "1,2,3"}) {
    EXPECT_FALSE(ParseTimeRanges(bad).ok()) << bad;
  }
  absl::StatusOr<std::vector<TimeRange>> pct = ParseTimeRanges("10%/2");
  ASSERT_FALSE(pct.ok());
  EXPECT_NE(pct.status().message().find("percent"), absl::string_view::npos);
  EXPECT_FALSE(ParseTimeRanges("0%-10%,30%-40%").ok());
}

TEST(ParseTimeRanges, SeveralRangesInOrderAsPerf) {
  EXPECT_TRUE(ParseTimeRanges("1, 3,4").ok());    // an open end before a later range passes
  EXPECT_FALSE(ParseTimeRanges("3,4 1,2").ok());  // out of order
  EXPECT_FALSE(ParseTimeRanges("1,3 2,4").ok());  // overlapping
  EXPECT_FALSE(ParseTimeRanges("1,2 2,3").ok());  // touching (perf: end >= next start)
}

TEST(ParsePercentRanges, SlicesOfTheSampleSpan) {
  using V = std::vector<TimeRange>;
  // span 1000..2000: a slice ends 1 ns before the next starts, except at the end.
  EXPECT_EQ(*ParsePercentRanges("10%/2", 1000, 2000), (V{{1100, 1199}}));
  EXPECT_EQ(*ParsePercentRanges("10%/1,10%/3", 1000, 2000), (V{{1000, 1099}, {1200, 1299}}));
  EXPECT_EQ(*ParsePercentRanges("0%-10%,30%-40%", 1000, 2000), (V{{1000, 1099}, {1300, 1399}}));
  EXPECT_EQ(*ParsePercentRanges("25%", 1000, 2000), (V{{1000, 1249}}));
  EXPECT_EQ(*ParsePercentRanges("50%/2", 1000, 2000), (V{{1500, 2000}}));
  EXPECT_EQ(*ParsePercentRanges("12.5%-12.5%", 1000, 2000), (V{{1125, 1125}}));
  for (const char* bad : {"10%/0", "10%/11", "0%/1", "x%/1", "10%/1,0%-5%", "10%,20%", "-5%-10%",
                          "10%-110%", "10", "5%x"})
    EXPECT_FALSE(ParsePercentRanges(bad, 1000, 2000).ok()) << bad;
  EXPECT_FALSE(ParsePercentRanges("10%/1", 0, 0).ok());  // no span recorded
}

TEST(ParseLists, IdsCommsDevices) {
  EXPECT_EQ(*ParseIdList("1,3-5"), (std::vector<int32_t>{1, 3, 4, 5}));
  EXPECT_EQ(*ParseIdList("7"), (std::vector<int32_t>{7}));
  for (const char* bad : {"", ",", "x", "5-3", "1-", "-1", "99999999999", "0-70000"})
    EXPECT_FALSE(ParseIdList(bad).ok()) << bad;
  EXPECT_EQ(ParseCommList("grep,sh"), (std::vector<std::string>{"grep", "sh"}));
  EXPECT_EQ(ParseCommList("Web Content"), (std::vector<std::string>{"Web Content"}));
  using D = std::vector<BlockDevice>;
  EXPECT_EQ(*ParseDeviceList("8:0"), (D{{8, 0}}));
  EXPECT_EQ(*ParseDeviceList("8:0,253:2"), (D{{8, 0}, {253, 2}}));
  EXPECT_EQ(*ParseDeviceList("8,16"), (D{{8, 16}}));  // blkparse's spelling
  for (const char* bad : {"", "8", "8,0,1", "sda", "8:", ":0", "8:0,8"})
    EXPECT_FALSE(ParseDeviceList(bad).ok()) << bad;
}

TEST(Filter, EmptyAcceptsEverything) {
  Filter f;
  Event e;
  EXPECT_TRUE(f.empty());
  EXPECT_TRUE(f.Accepts(e));
  EXPECT_TRUE(f.TimeOk(5));
  EXPECT_TRUE(f.CpuOk(-1));
  EXPECT_TRUE(f.TaskOk(-1, -1, ""));
  EXPECT_EQ(f.TimeOverlapNs(10, 25), 15u);
}

TEST(Filter, TimeIsInclusiveAndUntimedEventsPass) {
  FilterOptions o;
  o.time = {{10, 20}, {30, 0}};
  Filter f(o);
  EXPECT_FALSE(f.TimeOk(9));
  EXPECT_TRUE(f.TimeOk(10));
  EXPECT_TRUE(f.TimeOk(20));
  EXPECT_FALSE(f.TimeOk(21));
  EXPECT_TRUE(f.TimeOk(30));
  EXPECT_TRUE(f.TimeOk(INT64_MAX));
  EXPECT_TRUE(f.TimeOk(0));   // perf: a sample without a time is never dropped
  EXPECT_TRUE(f.TimeOk(-1));  // tk's "no time"
  EXPECT_EQ(f.TimeOverlapNs(0, 100), 10u + 70u);
  EXPECT_EQ(f.TimeOverlapNs(15, 35), 5u + 5u);
  EXPECT_EQ(f.TimeOverlapNs(21, 29), 0u);
  EXPECT_EQ(f.TimeOverlapNs(40, 40), 0u);
}

TEST(Filter, TaskCpuAndDevice) {
  FilterOptions o;
  o.pids = {100};
  Filter by_pid(o);
  EXPECT_TRUE(by_pid.TaskOk(100, 101, "x"));
  EXPECT_FALSE(by_pid.TaskOk(101, 100, "x"));
  EXPECT_TRUE(by_pid.TaskOk(-1, 100, "x"));  // no pid in the input: the tid stands in
  o = {};
  o.tids = {101};
  o.comms = {"sh", "Web Content"};
  Filter tc(o);
  EXPECT_TRUE(tc.TaskOk(100, 101, "sh"));
  EXPECT_TRUE(tc.TaskOk(100, 101, "Web Content"));
  EXPECT_FALSE(tc.TaskOk(100, 101, "bash"));  // both must match
  EXPECT_FALSE(tc.TaskOk(100, 102, "sh"));
  o = {};
  o.cpus = {0, 2};
  o.devices = {{8, 0}};
  Filter cd(o);
  EXPECT_TRUE(cd.CpuOk(2));
  EXPECT_FALSE(cd.CpuOk(1));
  EXPECT_FALSE(cd.CpuOk(-1));  // unknown CPU
  EXPECT_TRUE(cd.DeviceOk(8, 0));
  EXPECT_FALSE(cd.DeviceOk(8, 1));
  Event e;
  e.cpu = 0;
  EXPECT_FALSE(cd.Accepts(e));  // a device filter passes block events only
  BlockRq b;
  b.major = 8;
  e.body = b;
  EXPECT_TRUE(cd.Accepts(e));
}

// Records what reaches it.
class Collect final : public EventSink {
 public:
  EventMask wants() const override { return EventMask::All(); }
  absl::Status OnEvent(const Event& e) override {
    seen.push_back(e.tid);
    return absl::OkStatus();
  }
  absl::Status Finish() override {
    finished = true;
    return absl::OkStatus();
  }
  std::vector<int32_t> seen;
  bool finished = false;
};

TEST(FilterSink, SideBandIsFilteredByCpuOnly) {
  FilterOptions o;
  o.pids = {5};
  o.cpus = {1};
  o.time = {{100, 200}};
  Filter f(o);
  Collect c;
  FilterSink s(f, c);
  auto ev = [](int32_t pid, int32_t cpu, int64_t ts, Body body) {
    Event e;
    e.pid = e.tid = pid;
    e.cpu = cpu;
    e.ts_ns = ts;
    e.body = body;
    return e;
  };
  ASSERT_TRUE(s.OnEvent(ev(5, 1, 150, Sample{})).ok());  // kept
  ASSERT_TRUE(s.OnEvent(ev(6, 1, 150, Sample{})).ok());  // pid
  ASSERT_TRUE(s.OnEvent(ev(5, 0, 150, Sample{})).ok());  // cpu
  ASSERT_TRUE(s.OnEvent(ev(5, 1, 250, Sample{})).ok());  // time
  ASSERT_TRUE(s.OnEvent(ev(7, 1, 999, Comm{})).ok());    // side band: CPU only -> kept
  ASSERT_TRUE(s.OnEvent(ev(8, 0, 150, Fork{})).ok());    // side band on another CPU
  ASSERT_TRUE(s.Finish().ok());
  EXPECT_EQ(c.seen, (std::vector<int32_t>{5, 7}));
  EXPECT_EQ(s.dropped(), 4u);
  EXPECT_TRUE(c.finished);
}

// The time of a `perf script` event block: its header's "SEC.USEC:" word.
int64_t BlockTime(std::string_view block) {
  std::istringstream header(std::string(block.substr(0, block.find('\n'))));
  for (std::string w; header >> w;) {
    if (w.size() < 2 || w.back() != ':' || w.find('.') == std::string::npos) continue;
    absl::StatusOr<std::vector<TimeRange>> t = ParseTimeRanges(w.substr(0, w.size() - 1));
    if (t.ok()) return t->front().start_ns;
  }
  return -1;
}

std::string Fold(std::string_view text, int threads, const Filter* f,
                 parsers::perf_script::SplitStats* stats) {
  parsers::perf_script::SplitOptions to;
  to.threads = threads;
  to.parallel_min_bytes = 0;
  analyses::fold::FoldOptions fo;
  fo.include_tid = true;
  analyses::fold::FoldSink sink(fo);
  analyses::fold::FoldParts parts(sink, f);
  std::ostringstream err, out;
  Diagnostics diag("t.txt", &err);
  EXPECT_TRUE(parsers::perf_script::ParseSplit(text, "t.txt", to, parts, diag, stats).ok());
  diag.PrintSummary();
  sink.Write(out);
  return out.str() + err.str();
}

// fold's two-thread text path filters each half, the first-type scan and a refold: the same
// output as one thread, and as folding the text with the unwanted events cut out.
TEST(TextFoldFilter, TwoThreadsEqualOneAndThePreFilteredText) {
  std::string text = testing::ReadFile(testing::SourcePath("testdata/fold/proc-pidtid-g.txt")) +
                     testing::ReadFile(testing::SourcePath("testdata/fold/system-wide-g.txt"));
  ASSERT_GT(text.size(), 100000u);
  // A window that takes the end of the first file and the start of the second (both halves).
  const int64_t lo = 1520500000000, hi = 1523500000000;
  std::string cut;
  size_t blocks = 0, kept = 0;
  for (size_t at = 0; at < text.size();) {
    size_t end = text.find("\n\n", at);
    end = end == std::string::npos ? text.size() : end + 2;
    std::string_view block(text.data() + at, end - at);
    at = end;
    ++blocks;
    int64_t t = BlockTime(block);
    ASSERT_GT(t, 0) << block;
    if (t >= lo && t <= hi) {
      cut += block;
      ++kept;
    }
  }
  ASSERT_GT(kept, 10u);
  ASSERT_LT(kept, blocks - 10);
  FilterOptions o;
  o.time = {{lo, hi}};
  Filter window(o);
  parsers::perf_script::SplitStats s1, s2, s3;
  std::string one = Fold(text, 1, &window, &s1);
  std::string two = Fold(text, 2, &window, &s2);
  EXPECT_EQ(s2.parts, 2);
  EXPECT_FALSE(s2.reparsed) << two;
  EXPECT_EQ(one, two);
  EXPECT_EQ(one, Fold(cut, 1, nullptr, &s3));
  EXPECT_NE(one, Fold(text, 1, nullptr, &s3));
}

}  // namespace
}  // namespace tk
