// The committed recordings (testdata/recorded/*/): tk reads every form of each set, agrees
// with the anchor tools' saved output of the same files, and the numbers in each set's
// README are the ones tk finds. Needs no root: nothing is recorded here.
#include <sstream>
#include <string>

#include "gtest/gtest.h"
#include "tests/live/set_checks.h"
#include "tests/support/golden.h"

namespace tk::testing {
namespace {

// The "| event | perf.data | trace.dat |" table of a README: event -> {perf, trace}.
std::map<std::string, std::pair<uint64_t, uint64_t>> ReadmeTable(const std::string& text) {
  std::map<std::string, std::pair<uint64_t, uint64_t>> t;
  std::istringstream in(text);
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("| event | perf.data | trace.dat |", 0) == 0) {
      inside = true;
      continue;
    }
    if (!inside) continue;
    if (line.empty() || line[0] != '|') break;
    std::istringstream cells(line);
    std::string bar, name, perf, dat;
    cells >> bar >> name >> bar >> perf >> bar >> dat;
    if (name == "---|---|---|" || name.rfind("|-", 0) == 0) continue;
    // "11779 samples" style cells: the number comes first.
    if (perf.empty() || perf[0] < '0' || perf[0] > '9') continue;
    size_t dat_at = line.rfind('|', line.size() - 2);
    std::string dat_cell = line.substr(dat_at + 1);
    std::string num;
    for (char c : dat_cell) {
      if (c >= '0' && c <= '9') num += c;
      else if (!num.empty()) break;
    }
    if (num.empty()) continue;
    t[name] = {std::stoull(perf), std::stoull(num)};
  }
  return t;
}

void CheckSet(const std::string& dir, const std::string& name, Info* perf, Info* dat) {
  std::string prefix = SourcePath("testdata/recorded/" + dir + "/" + name);
  CheckPerfData(prefix, perf);
  CheckTraceDat(prefix, dat);
  CheckTextForms(prefix, *perf, *dat);
  auto table = ReadmeTable(ReadFile(SourcePath("testdata/recorded/" + dir + "/README.md")));
  ASSERT_FALSE(table.empty()) << dir << "/README.md has no count table";
  uint64_t perf_total = 0, dat_total = 0;
  for (const auto& [ev, n] : perf->events) perf_total += n;
  for (const auto& [ev, n] : dat->events) dat_total += n;
  for (const auto& [ev, counts] : table) {
    if (ev == "total") {
      EXPECT_EQ(counts.first, perf_total) << dir << " README total (perf.data)";
      EXPECT_EQ(counts.second, dat_total) << dir << " README total (trace.dat)";
      continue;
    }
    EXPECT_EQ(counts.first, Count(*perf, ev)) << dir << " README, perf.data, " << ev;
    EXPECT_EQ(counts.second, Count(*dat, ev)) << dir << " README, trace.dat, " << ev;
  }
  for (const auto& [ev, n] : dat->events) EXPECT_TRUE(table.count(ev)) << dir << ": " << ev;
}

TEST(RecordedFixtures, IolatWriteSync) {
  Info perf, dat;
  CheckSet("iolat", "writesync", &perf, &dat);
  ExpectSameEventNames(perf, dat);
  EXPECT_EQ(perf.lost, 0u);
  EXPECT_EQ(dat.lost, 0u);
  // The mount table tells the sync mount (7:0) from the default one (7:1).
  std::string mountinfo = ReadFile(SourcePath("testdata/recorded/iolat/mountinfo.txt"));
  EXPECT_NE(mountinfo.find(" 7:0 / /tmp/tk-mnt-sync rw,relatime - ext4 /dev/loop0 rw,sync"),
            std::string::npos) << mountinfo;
  EXPECT_NE(mountinfo.find(" 7:1 / /tmp/tk-mnt-async rw,relatime - ext4 /dev/loop1 rw\n"),
            std::string::npos) << mountinfo;
}

TEST(RecordedFixtures, Sched) {
  Info perf, dat;
  CheckSet("sched", "sched", &perf, &dat);
  ExpectSameEventNames(perf, dat);
  EXPECT_EQ(perf.lost, 0u);
  EXPECT_EQ(dat.lost, 0u);
}

// lost/README.md: trace-cmd report shows 322 + 17056 EVENTS DROPPED; perf has LOST records
// totalling 10758 and LOST_SAMPLES totalling 12748 for the same drops.
TEST(RecordedFixtures, Lost) {
  Info perf, dat;
  CheckSet("lost", "lost", &perf, &dat);
  std::string report = ReadFile(SourcePath("testdata/recorded/lost/lost.report.txt"));
  EXPECT_EQ(SumAfter(report, "[", " EVENTS DROPPED]"), 17378u);
  EXPECT_EQ(dat.lost, 17378u);
  EXPECT_TRUE(perf.lost == 12748 || perf.lost == 10758)
      << "tk reports " << perf.lost << " lost; perf: 12748 lost samples (LOST_SAMPLES), "
      << "10758 in LOST records — the same drops counted twice if summed";
}

}  // namespace
}  // namespace tk::testing
