#include "analyses/iolat/histogram.h"

#include <sstream>
#include <type_traits>

#include "analyses/iolat/device.h"
#include "gtest/gtest.h"

namespace tk::iolat {
namespace {

TEST(Log2Histogram, SlotsAreBpfLog2l) {
  EXPECT_EQ(Log2Histogram::Slot(0), 1);
  EXPECT_EQ(Log2Histogram::Slot(1), 1);
  EXPECT_EQ(Log2Histogram::Slot(2), 2);
  EXPECT_EQ(Log2Histogram::Slot(3), 2);
  EXPECT_EQ(Log2Histogram::Slot(4), 3);
  EXPECT_EQ(Log2Histogram::Slot(127), 7);
  EXPECT_EQ(Log2Histogram::Slot(128), 8);
  EXPECT_EQ(Log2Histogram::Slot(UINT64_MAX), 64);
}

// Expected text produced by bcc's table.py _print_log2_hist for vals[1..7] = 0 0 0 0 1 3 2
// (stars: floor(40*val/max) = 13, 40, 26).
TEST(Log2Histogram, PrintsLikeBcc) {
  Log2Histogram h;
  h.Add(20);
  for (int i = 0; i < 3; ++i) h.Add(40);
  h.Add(64);
  h.Add(100);
  std::ostringstream out;
  h.Print(out, "usecs");
  EXPECT_EQ(out.str(),
            "     usecs               : count     distribution\n"
            "         0 -> 1          : 0        |                                        |\n"
            "         2 -> 3          : 0        |                                        |\n"
            "         4 -> 7          : 0        |                                        |\n"
            "         8 -> 15         : 0        |                                        |\n"
            "        16 -> 31         : 1        |*************                           |\n"
            "        32 -> 63         : 3        |****************************************|\n"
            "        64 -> 127        : 2        |**************************              |\n");
}

TEST(Log2Histogram, EmptyPrintsNothingAndWideLayoutAbove32) {
  Log2Histogram h;
  std::ostringstream a;
  h.Print(a, "usecs");
  EXPECT_EQ(a.str(), "");
  h.Add(uint64_t{1} << 40);
  std::ostringstream b;
  h.Print(b, "usecs");
  EXPECT_EQ(b.str().substr(0, b.str().find('\n')),
            "               usecs                         : count     distribution");
  EXPECT_NE(b.str().find("       1099511627776 -> 2199023255551        : 1        "
                         "|********************|"),
            std::string::npos)
      << b.str();
  h.Add(UINT64_MAX);  // slot 64: no shift by 64
  std::ostringstream c;
  h.Print(c, "usecs");
  EXPECT_NE(c.str().find(" 9223372036854775808 -> 18446744073709551615 : 1        |"),
            std::string::npos)
      << c.str();
}

TEST(LatencyStats, ExactSmallValuesAndBoundedErrorLarge) {
  LatencyStats s;
  for (uint64_t v = 1; v <= 100; ++v) s.Add(v);
  EXPECT_EQ(s.count(), 100u);
  EXPECT_EQ(s.min(), 1u);
  EXPECT_EQ(s.max(), 100u);
  EXPECT_DOUBLE_EQ(s.avg(), 50.5);
  EXPECT_EQ(s.Percentile(50), 50u);
  EXPECT_EQ(s.Percentile(99), 99u);
  EXPECT_EQ(s.Percentile(100), 100u);
  LatencyStats big;
  for (uint64_t v = 1; v <= 10000; ++v) big.Add(v * 1000);  // 1 µs .. 10 ms
  double p50 = static_cast<double>(big.Percentile(50));
  double p99 = static_cast<double>(big.Percentile(99));
  EXPECT_NEAR(p50, 5000000, 5000000 * 0.004);
  EXPECT_NEAR(p99, 9900000, 9900000 * 0.004);
  EXPECT_EQ(big.Percentile(100), 10000000u);  // clamped to max
}

TEST(BccFlags, NamesInBiolatencyOrder) {
  EXPECT_EQ(BccFlagsName(Rwbs::Parse("WS")), "Sync-Write");
  EXPECT_EQ(BccFlagsName(Rwbs::Parse("WFSM")), "ForcedUnitAccess-Metadata-Sync-Write");
  EXPECT_EQ(BccFlagsName(Rwbs::Parse("RA")), "ReadAhead-Read");
  EXPECT_EQ(BccFlagsName(Rwbs::Parse("W")), "Write");
  EXPECT_EQ(BccFlagsName(Rwbs::Parse("FF")), "Flush");
  EXPECT_EQ(BccFlagsName(Rwbs::Parse("FWFS")), "PreFlush-ForcedUnitAccess-Sync-Write");
  EXPECT_EQ(BccFlagsName(Rwbs::Parse("D")), "Discard");
  EXPECT_EQ(BccFlagsName(Rwbs::Parse("N")), "Unknown");
}

TEST(Issuer, ClassifiesComms) {
  EXPECT_EQ(ClassifyComm("dd"), Issuer::kWriter);
  EXPECT_EQ(ClassifyComm("jbd2/loop0-8"), Issuer::kJournal);
  EXPECT_EQ(ClassifyComm("kworker/u8:1"), Issuer::kFlusher);
  EXPECT_EQ(ClassifyComm("flush-8:0"), Issuer::kFlusher);
  EXPECT_EQ(ClassifyComm("loop1"), Issuer::kStacked);
  EXPECT_EQ(LoopThreadMinor("loop12"), 12);
  EXPECT_EQ(LoopThreadMinor("loopy"), -1);
  EXPECT_EQ(ClassifyComm("loopy"), Issuer::kWriter);
}

}  // namespace
}  // namespace tk::iolat

namespace tk::iolat {
namespace {

// One implementation for sched and iolat (analyses/common/histogram.h).
static_assert(std::is_same_v<LatencyStats, common::Distribution>);
static_assert(std::is_same_v<Log2Histogram, common::Log2Histogram>);

TEST(LatencyStats, ExactPercentilesSayWhenTheyAreBucketMidpoints) {
  LatencyStats s;
  for (uint64_t v : {5000u, 1000u, 3000u, 2000u, 4000u}) s.Add(v * 1001);
  EXPECT_EQ(s.Percentile(50), 3000u * 1001);  // a measured value, not a bucket's
  EXPECT_TRUE(s.At(50).exact);
  LatencyStats big;
  for (uint64_t v = 0; v < LatencyStats::kExactLimit + 1; ++v) big.Add(1000000 + v * 7);
  EXPECT_FALSE(big.exact());
  EXPECT_FALSE(big.At(50).exact);
  EXPECT_TRUE(big.At(100).exact);  // the max is kept exactly
}

}  // namespace
}  // namespace tk::iolat
