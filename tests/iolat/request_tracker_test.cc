#include "analyses/iolat/request_tracker.h"

#include <vector>

#include "gtest/gtest.h"
#include "tests/iolat/events.h"

namespace tk::iolat {
namespace {

using testing::Block;
using testing::Remap;
using S = BlockStage;

struct Recorder : IoListener {
  std::vector<IoRecord> queued, issued, done;
  void OnQueued(const IoRecord& r) override { queued.push_back(r); }
  void OnIssued(const IoRecord& r, std::string_view, int32_t) override { issued.push_back(r); }
  void OnDone(const IoRecord& r) override { done.push_back(r); }
};

class TrackerTest : public ::testing::Test {
 protected:
  void Feed(const Event& e) { tracker_.OnBlock(e, std::get<BlockRq>(e.body)); }
  Recorder rec_;
  Interner interner_;
  RequestTracker tracker_{&rec_, &interner_};
};

TEST_F(TrackerTest, FullLifecycle) {
  Feed(Block(1000, S::kBioQueue, 7, 0, "WS", 1056, 8, "dd"));
  Feed(Block(2000, S::kGetRq, 7, 0, "WS", 1056, 8, "dd"));
  Feed(Block(3000, S::kInsert, 7, 0, "WS", 1056, 8, "dd"));
  Feed(Block(5000, S::kIssue, 7, 0, "WS", 1056, 8, "dd"));
  Feed(Block(9000, S::kComplete, 7, 0, "WS", 1056, 8, ""));
  ASSERT_EQ(rec_.done.size(), 1u);
  const IoRecord& r = rec_.done[0];
  EXPECT_EQ(r.q, 1000);
  EXPECT_EQ(r.g, 2000);
  EXPECT_EQ(r.i, 3000);
  EXPECT_EQ(r.d, 5000);
  EXPECT_EQ(r.c, 9000);
  EXPECT_EQ(r.comm, "dd");
  EXPECT_EQ(r.bytes(), 4096u);
  EXPECT_EQ(tracker_.inflight(), 0u);
}

TEST_F(TrackerTest, MissingStagesAndUnmatchedCompletion) {
  // blk-mq without scheduler: no insert; a request issued before the trace: only C.
  Feed(Block(1000, S::kBioQueue, 8, 0, "R", 64, 8, "cat"));
  Feed(Block(1500, S::kGetRq, 8, 0, "R", 64, 8, "cat"));
  Feed(Block(2000, S::kIssue, 8, 0, "R", 64, 8, "cat"));
  Feed(Block(2500, S::kComplete, 8, 0, "W", 999, 8, ""));
  Feed(Block(4000, S::kComplete, 8, 0, "R", 64, 8, ""));
  ASSERT_EQ(rec_.done.size(), 1u);
  EXPECT_EQ(rec_.done[0].i, -1);
  EXPECT_EQ(tracker_.counts().at(MakeDev(8, 0)).unmatched_completions, 1u);
  // Issue-only recording (-e block:block_rq_issue -e block:block_rq_complete).
  Feed(Block(5000, S::kIssue, 8, 0, "W", 128, 16, "kworker/u8:1"));
  Feed(Block(6000, S::kComplete, 8, 0, "W", 128, 16, ""));
  ASSERT_EQ(rec_.done.size(), 2u);
  EXPECT_EQ(rec_.done[1].q, -1);
  EXPECT_EQ(rec_.done[1].d, 5000);
  EXPECT_EQ(rec_.done[1].comm, "kworker/u8:1");
}

TEST_F(TrackerTest, BackMergeClosesTheBioFrontMergeMovesTheRequest) {
  Feed(Block(1000, S::kBioQueue, 8, 0, "W", 100, 8, "dd"));
  Feed(Block(1100, S::kGetRq, 8, 0, "W", 100, 8, "dd"));
  Feed(Block(1200, S::kBioQueue, 8, 0, "W", 108, 8, "dd"));
  Feed(Block(1300, S::kBackMerge, 8, 0, "W", 108, 8, "dd"));
  Feed(Block(1400, S::kBioQueue, 8, 0, "W", 92, 8, "dd"));
  Feed(Block(1500, S::kFrontMerge, 8, 0, "W", 92, 8, "dd"));
  Feed(Block(2000, S::kIssue, 8, 0, "W", 92, 24, "dd"));
  Feed(Block(3000, S::kComplete, 8, 0, "W", 92, 24, ""));
  ASSERT_EQ(rec_.done.size(), 1u);
  EXPECT_EQ(rec_.done[0].q, 1000);
  EXPECT_EQ(rec_.done[0].nr_sector, 24u);
  EXPECT_EQ(tracker_.counts().at(MakeDev(8, 0)).merges, 2u);
  EXPECT_EQ(tracker_.inflight(), 0u);
  EXPECT_EQ(rec_.queued.size(), 3u);  // every bio is accounted
}

TEST_F(TrackerTest, RequeueAndPartialCompletion) {
  Feed(Block(1000, S::kIssue, 8, 0, "R", 0, 16, "fio"));
  Feed(Block(1500, S::kRequeue, 8, 0, "R", 0, 16, "fio"));
  Feed(Block(2000, S::kIssue, 8, 0, "R", 0, 16, "fio"));
  Feed(Block(3000, S::kComplete, 8, 0, "R", 0, 8, ""));
  EXPECT_TRUE(rec_.done.empty());
  Feed(Block(4000, S::kComplete, 8, 0, "R", 8, 8, ""));
  ASSERT_EQ(rec_.done.size(), 1u);
  EXPECT_EQ(rec_.done[0].d, 2000);
  EXPECT_EQ(rec_.done[0].c, 4000);
  const TrackerCounts& c = tracker_.counts().at(MakeDev(8, 0));
  EXPECT_EQ(c.requeues, 1u);
  EXPECT_EQ(c.partial_completions, 1u);
}

// 6.x: "FF 0 () 0 + 0" issued, "FF () 18446744073709551615 + 0" completed; the empty preflush
// bio "FWS 0 + 0" then completes its own request as "WS () 0 + 0".
TEST_F(TrackerTest, FlushesPairAcrossSectorMinusOne) {
  Feed(Block(1000, S::kBioQueue, 254, 0, "FWS", 0, 0, "kworker/u8:1"));
  Feed(Block(1100, S::kGetRq, 254, 0, "FWS", 0, 0, "kworker/u8:1"));
  Feed(Block(1200, S::kIssue, 254, 0, "FF", 0, 0, "kworker/1:1H"));
  Feed(Block(1300, S::kComplete, 254, 0, "FF", UINT64_MAX, 0, ""));
  Feed(Block(1301, S::kComplete, 254, 0, "WS", 0, 0, ""));
  ASSERT_EQ(rec_.done.size(), 1u);
  EXPECT_EQ(rec_.done[0].q, 1000);
  const TrackerCounts& c = tracker_.counts().at(MakeDev(254, 0));
  EXPECT_EQ(c.unmatched_completions, 0u);
  EXPECT_EQ(c.flush_seq_completions, 1u);
}

// 3.8: dm 252,2 → loop 7,1; loop1 thread → dm 252,0 → partition 8,2 → disk 8,0.
TEST_F(TrackerTest, RemapsCarryTheOriginAndPartitionsKeepTheirStats) {
  Feed(Block(1000, S::kBioQueue, 252, 2, "WS", 488, 8, "dd"));
  Feed(Remap(1010, 7, 1, "WS", 2536, 8, 252, 2, 488, "dd"));
  Feed(Block(1020, S::kBioQueue, 7, 1, "WS", 2536, 8, "dd"));
  ASSERT_EQ(rec_.queued.size(), 2u);
  EXPECT_EQ(rec_.queued[1].from_dev, MakeDev(252, 2));
  EXPECT_EQ(rec_.queued[1].stat_dev, MakeDev(7, 1));
  Feed(Block(2000, S::kBioQueue, 252, 0, "WS", 5546280, 8, "loop1", 2464));
  Feed(Remap(2010, 8, 2, "WS", 6801704, 8, 252, 0, 5546280, "loop1", 2464));
  Feed(Remap(2020, 8, 0, "WS", 7827752, 8, 8, 2, 6801704, "loop1", 2464));
  Feed(Block(2030, S::kBioQueue, 8, 0, "WS", 7827752, 8, "loop1", 2464));
  Feed(Block(2040, S::kGetRq, 8, 0, "WS", 7827752, 8, "loop1", 2464));
  Feed(Block(2050, S::kInsert, 8, 0, "WS", 7827752, 8, "loop1", 2464));
  Feed(Block(2060, S::kIssue, 8, 0, "WS", 7827752, 8, "loop1", 2464));
  Feed(Block(2500, S::kComplete, 8, 0, "WS", 7827752, 8, ""));
  ASSERT_EQ(rec_.done.size(), 1u);
  EXPECT_EQ(rec_.done[0].stat_dev, MakeDev(8, 2));  // the partition
  EXPECT_EQ(rec_.done[0].from_dev, MakeDev(252, 0));
  EXPECT_EQ(rec_.done[0].q, 2030);
  // The dm bio completes through bio_complete (queue-only record).
  Feed(Block(3000, S::kBioComplete, 252, 2, "WS", 488, 8, ""));
  ASSERT_EQ(rec_.done.size(), 2u);
  EXPECT_EQ(rec_.done[1].stat_dev, MakeDev(252, 2));
  EXPECT_EQ(rec_.done[1].c - rec_.done[1].q, 2000);
}

TEST_F(TrackerTest, LoopWorkerKworkerIsStackedWhileALoopRequestIsInFlight) {
  Feed(Block(1000, S::kIssue, 7, 0, "FF", 0, 0, "kworker/0:1H"));
  Feed(Block(1100, S::kBioQueue, 254, 0, "WS", 4096, 8, "kworker/u8:1"));
  Feed(Block(1200, S::kComplete, 7, 0, "FF", UINT64_MAX, 0, ""));
  Feed(Block(1300, S::kBioQueue, 254, 0, "W", 8192, 8, "kworker/u8:1"));
  Feed(Block(1400, S::kBioQueue, 254, 0, "WS", 9000, 8, "git"));
  ASSERT_EQ(rec_.queued.size(), 3u);
  EXPECT_EQ(rec_.queued[0].from_dev, MakeDev(7, 0));
  EXPECT_EQ(rec_.queued[1].from_dev, 0u);  // no loop request in flight any more
  EXPECT_EQ(rec_.queued[2].from_dev, 0u);  // not a kworker
}

// block_split: 7,1 W 16520 / 19080: the tail keeps the head's Q (6.18 recording).
TEST_F(TrackerTest, SplitTailKeepsTheQueueTime) {
  Feed(Block(1000, S::kBioQueue, 7, 1, "W", 16520, 8192, "kworker/u8:1", 33));
  Event split = Block(1003, S::kSplit, 7, 1, "W", 16520, 0, "kworker/u8:1", 33);
  std::get<BlockRq>(split.body).old_sector = 19080;
  Feed(split);
  Feed(Block(1006, S::kGetRq, 7, 1, "W", 16520, 2560, "kworker/u8:1", 33));
  Feed(Block(1008, S::kGetRq, 7, 1, "W", 19080, 5632, "kworker/u8:1", 33));
  Feed(Block(1010, S::kIssue, 7, 1, "W", 16520, 2560, "kworker/u8:1", 33));
  Feed(Block(1012, S::kIssue, 7, 1, "W", 19080, 5632, "kworker/u8:1", 33));
  Feed(Block(2000, S::kComplete, 7, 1, "W", 16520, 2560, ""));
  Feed(Block(2001, S::kComplete, 7, 1, "W", 19080, 5632, ""));
  ASSERT_EQ(rec_.done.size(), 2u);
  EXPECT_EQ(rec_.done[1].q, 1000);
  EXPECT_EQ(rec_.done[1].nr_sector, 5632u);
  EXPECT_EQ(rec_.queued.size(), 1u);  // bytes are counted once, at the Q
  EXPECT_EQ(tracker_.inflight(), 0u);
}

// A journal block reused after its first write's completion was lost (overrun): the second
// write must not pair with the first one's issue.
TEST_F(TrackerTest, StaleIssuedRequestIsReplacedNotPaired) {
  Feed(Block(1000, S::kIssue, 7, 0, "WSM", 285592, 32, "jbd2/loop0-8"));
  Feed(Block(9000000000, S::kBioQueue, 7, 0, "WSM", 285592, 32, "jbd2/loop0-8"));
  Feed(Block(9000000100, S::kIssue, 7, 0, "WSM", 285592, 32, "jbd2/loop0-8"));
  Feed(Block(9000050000, S::kComplete, 7, 0, "WSM", 285592, 32, ""));
  ASSERT_EQ(rec_.done.size(), 1u);
  EXPECT_EQ(rec_.done[0].c - rec_.done[0].d, 49900);
  EXPECT_EQ(tracker_.counts().at(MakeDev(7, 0)).stale_issued, 1u);
  // Flushes overlap legitimately: both stay in flight and complete in order.
  Feed(Block(1, S::kIssue, 7, 0, "FF", 0, 0, "kworker/0:1H"));
  Feed(Block(2, S::kIssue, 7, 0, "FF", 0, 0, "kworker/0:1H"));
  Feed(Block(3, S::kComplete, 7, 0, "FF", UINT64_MAX, 0, ""));
  Feed(Block(4, S::kComplete, 7, 0, "FF", UINT64_MAX, 0, ""));
  ASSERT_EQ(rec_.done.size(), 3u);
  EXPECT_EQ(rec_.done[1].d, 1);
  EXPECT_EQ(rec_.done[2].d, 2);
}

TEST_F(TrackerTest, LostEventsDropWhatIsInFlight) {
  Feed(Block(1000, S::kIssue, 8, 0, "W", 64, 8, "kworker/u8:1"));
  tracker_.OnLost();
  Feed(Block(5000, S::kComplete, 8, 0, "W", 64, 8, ""));
  EXPECT_TRUE(rec_.done.empty());
  const TrackerCounts& c = tracker_.counts().at(MakeDev(8, 0));
  EXPECT_EQ(c.lost_inflight, 1u);
  EXPECT_EQ(c.unmatched_completions, 1u);
  EXPECT_EQ(tracker_.inflight(), 0u);
}

TEST(Tracker, MemoryIsBoundedByMaxInflight) {
  Recorder rec;
  Interner interner;
  RequestTracker t(&rec, &interner, RequestTracker::Options{.max_inflight = 64});
  for (int i = 0; i < 10000; ++i) {
    Event e = Block(i, S::kBioQueue, 252, 0, "W", uint64_t(i) * 8, 8, "dd");
    t.OnBlock(e, std::get<BlockRq>(e.body));
    ASSERT_LE(t.inflight(), 64u);
  }
  t.Finish();
  EXPECT_EQ(t.counts().at(MakeDev(252, 0)).never_completed, 10000u);
  EXPECT_EQ(rec.queued.size(), 10000u);
}

}  // namespace
}  // namespace tk::iolat
