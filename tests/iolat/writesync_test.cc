#include "analyses/iolat/writesync.h"

#include <functional>
#include <sstream>

#include "analyses/iolat/iolat.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/iolat/events.h"

namespace tk::iolat {
namespace {

using testing::Block;
using testing::Switch;
using testing::Wakeup;
using S = BlockStage;

constexpr char kMounts[] =
    "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n"
    "44 27 7:0 / /mnt/sync rw,relatime - ext4 /dev/loop0 rw,sync\n"
    "45 27 7:1 / /mnt/async rw,relatime - ext4 /dev/loop1 rw\n";

// One 64 KiB write's request life on `minor`, queued by `comm`.
void Write(WriteSyncAnalysis& a, int64_t t, uint32_t minor, const char* rwbs, uint64_t sector,
           const char* comm, int32_t pid) {
  for (const Event& e : {Block(t, S::kBioQueue, 7, minor, rwbs, sector, 128, comm, pid),
                         Block(t + 100, S::kGetRq, 7, minor, rwbs, sector, 128, comm, pid),
                         Block(t + 200, S::kIssue, 7, minor, rwbs, sector, 128, comm, pid),
                         Block(t + 50000, S::kComplete, 7, minor, rwbs, sector, 128, "", 0)}) {
    ASSERT_TRUE(a.OnEvent(e).ok());
  }
}

nlohmann::json Analyze(const std::function<void(WriteSyncAnalysis&)>& feed, bool with_mounts) {
  auto mounts = MountTable::Parse(kMounts, "m");
  WriteSyncOptions o;
  o.mounts = with_mounts ? &*mounts : nullptr;
  std::ostringstream out;
  WriteSyncAnalysis a(o);
  feed(a);
  EXPECT_TRUE(a.Finish().ok());
  WriteJson(a.report(), out);
  return nlohmann::json::parse(out.str());
}

const nlohmann::json& Dev(const nlohmann::json& j, const std::string& dev) {
  for (const auto& d : j["devices"])
    if (d["dev"] == dev) return d;
  static nlohmann::json none;
  ADD_FAILURE() << "no device " << dev << " in " << j.dump();
  return none;
}

void SyncMountDd(WriteSyncAnalysis& a) {
  for (int i = 0; i < 16; ++i) {
    int64_t t = 1000000 + i * 100000;
    Write(a, t, 0, "WS", 1000 + i * 128, "dd", 42);
    ASSERT_TRUE(a.OnEvent(Switch(t + 300, "dd", 42, "D", "swapper/0", 0)).ok());
    ASSERT_TRUE(a.OnEvent(Wakeup(t + 50100, "dd", 42)).ok());
    Write(a, t + 60000, 0, "WSM", 8 + i * 8, "jbd2/loop0-8", 7);
  }
}

void AsyncDd(WriteSyncAnalysis& a) {
  for (int i = 0; i < 16; ++i) Write(a, 1000000 + i * 100000, 1, "W", 1000 + i * 128, "kworker/u8:1", 33);
  Write(a, 3000000, 1, "WSM", 8, "jbd2/loop1-8", 8);
}

void DsyncDd(WriteSyncAnalysis& a) {
  for (int i = 0; i < 16; ++i) Write(a, 1000000 + i * 100000, 1, "WS", 1000 + i * 128, "dd", 43);
  Write(a, 3000000, 1, "W", 8, "kworker/u8:1", 33);
}

TEST(WriteSync, SyncMountIsWriteSyncCausedByTheMount) {
  nlohmann::json j = Analyze(SyncMountDd, true);
  const auto& d = Dev(j, "7,0");
  EXPECT_EQ(d["verdict"], "write-sync");
  EXPECT_EQ(d["cause"], "mount");
  EXPECT_EQ(d["mount"], "/mnt/sync");
  EXPECT_EQ(d["fstype"], "ext4");
  EXPECT_EQ(d["mount_options"], "rw,relatime,sync");
  EXPECT_EQ(d["writes"], 32);
  EXPECT_EQ(d["write_bytes"], 32 * 65536);
  EXPECT_EQ(d["sync_write_bytes"], 32 * 65536);
  EXPECT_DOUBLE_EQ(d["sync_write_ratio"].get<double>(), 1.0);
  ASSERT_FALSE(d["top_writers"].empty());
  EXPECT_EQ(d["top_writers"][0]["comm"], "dd");
  EXPECT_EQ(d["top_writers"][0]["issuer"], "writer");
  EXPECT_EQ(d["top_writers"][0]["d_sleeps"], 16);
  EXPECT_DOUBLE_EQ(d["top_writers"][0]["d_sleep_ms"].get<double>(), 16 * 0.0498);
  EXPECT_EQ(d["top_writers"][1]["issuer"], "journal");
  EXPECT_EQ(d["latency"]["d2c"]["count"], 32);
  EXPECT_DOUBLE_EQ(d["latency"]["d2c"]["max_us"].get<double>(), 49.8);
  EXPECT_DOUBLE_EQ(d["latency"]["q2c"]["max_us"].get<double>(), 50.0);
}

TEST(WriteSync, WithoutMountinfoTheCauseIsUnknown) {
  nlohmann::json j = Analyze(SyncMountDd, false);
  EXPECT_EQ(Dev(j, "7,0")["verdict"], "write-sync");
  EXPECT_EQ(Dev(j, "7,0")["cause"], "unknown");
  EXPECT_TRUE(Dev(j, "7,0")["mount"].is_null());
}

TEST(WriteSync, FlusherWritesAreAsync) {
  nlohmann::json j = Analyze(AsyncDd, true);
  EXPECT_EQ(Dev(j, "7,1")["verdict"], "async");
  EXPECT_TRUE(Dev(j, "7,1")["cause"].is_null());
  EXPECT_EQ(Dev(j, "7,1")["top_writers"][0]["issuer"], "flusher");
}

TEST(WriteSync, DsyncWriterOnADefaultMountIsTheApplication) {
  nlohmann::json j = Analyze(DsyncDd, true);
  EXPECT_EQ(Dev(j, "7,1")["verdict"], "write-sync");
  EXPECT_EQ(Dev(j, "7,1")["cause"], "application");
  EXPECT_EQ(Dev(j, "7,1")["mount_sync"], false);
}

TEST(WriteSync, HalfSyncIsMixedAndReadsOnlyIsNoWrites) {
  nlohmann::json j = Analyze(
      [](WriteSyncAnalysis& a) {
        for (int i = 0; i < 8; ++i) Write(a, 1000 + i * 100000, 1, "WS", 1000 + i * 128, "dd", 43);
        for (int i = 0; i < 8; ++i)
          Write(a, 2000000 + i * 100000, 1, "W", 9000 + i * 128, "kworker/u8:1", 33);
        Write(a, 5000000, 0, "R", 1000, "cat", 50);
      },
      true);
  EXPECT_EQ(Dev(j, "7,1")["verdict"], "mixed");
  EXPECT_EQ(Dev(j, "7,1")["cause"], "application");
  EXPECT_EQ(Dev(j, "7,0")["verdict"], "no-writes");
  EXPECT_EQ(Dev(j, "7,0")["reads"], 1);
}

TEST(WriteSync, StackedTrafficIsShownNotBlamed) {
  nlohmann::json j = Analyze(
      [](WriteSyncAnalysis& a) {
        for (int i = 0; i < 4; ++i) {
          int64_t t = 1000 + i * 10000;
          ASSERT_TRUE(a.OnEvent(Block(t, S::kBioQueue, 252, 2, "WS", 488 + i * 8, 8, "dd", 9615)).ok());
          ASSERT_TRUE(a.OnEvent(testing::Remap(t + 5, 7, 1, "WS", 2536 + i * 8, 8, 252, 2,
                                               488 + i * 8, "dd", 9615)).ok());
          ASSERT_TRUE(a.OnEvent(Block(t + 10, S::kBioQueue, 7, 1, "WS", 2536 + i * 8, 8, "dd", 9615)).ok());
          ASSERT_TRUE(a.OnEvent(Block(t + 100, S::kBioQueue, 252, 0, "WS", 5546280 + i * 8, 8, "loop1", 2464)).ok());
        }
      },
      false);
  EXPECT_EQ(Dev(j, "252,2")["verdict"], "write-sync");
  EXPECT_EQ(Dev(j, "252,2")["cause"], "unknown");
  EXPECT_EQ(Dev(j, "7,1")["verdict"], "stacked");
  EXPECT_EQ(Dev(j, "7,1")["cause"], "stacked");
  EXPECT_EQ(Dev(j, "7,1")["stacked"][0]["from"], "252,2");
  EXPECT_EQ(Dev(j, "252,0")["cause"], "stacked");
  EXPECT_EQ(Dev(j, "252,0")["stacked"][0]["from"], "7,1");
  EXPECT_EQ(Dev(j, "252,0")["stacked"][0]["root"], "252,2");
}

// Issue 10's measurement: a backing disk carrying 5.75 MiB of a loop's sync writes (passed
// down by the loop1 thread) plus one 24 KiB async write of an unrelated process. The stray
// write must not make the disk "async": the loop's traffic dominates, the verdict is stacked.
TEST(WriteSync, OneStrayWriteDoesNotFlipAStackedBackingDisk) {
  nlohmann::json j = Analyze(
      [](WriteSyncAnalysis& a) {
        for (int i = 0; i < 92; ++i) {
          int64_t t = 1000000 + i * 100000;
          Write(a, t, 1, "WS", 1000 + i * 128, "dd", 43);
          for (const Event& e :
               {Block(t + 1000, S::kBioQueue, 252, 0, "WS", 5546280 + i * 128, 128, "loop1", 2464),
                Block(t + 1100, S::kIssue, 252, 0, "WS", 5546280 + i * 128, 128, "loop1", 2464),
                Block(t + 9000, S::kComplete, 252, 0, "WS", 5546280 + i * 128, 128, "", 0)})
            ASSERT_TRUE(a.OnEvent(e).ok());
        }
        for (const Event& e : {Block(50000000, S::kBioQueue, 252, 0, "W", 900000, 48, "rsyslogd", 500),
                               Block(50000100, S::kIssue, 252, 0, "W", 900000, 48, "rsyslogd", 500),
                               Block(50009000, S::kComplete, 252, 0, "W", 900000, 48, "", 0)})
          ASSERT_TRUE(a.OnEvent(e).ok());
      },
      true);
  const nlohmann::json& disk = Dev(j, "252,0");
  EXPECT_EQ(disk["by_issuer"]["stacked"]["bytes"], 92 * 65536);
  EXPECT_EQ(disk["by_issuer"]["writer"]["bytes"], 24576);
  EXPECT_EQ(disk["verdict"], "stacked") << disk.dump();
  EXPECT_EQ(disk["cause"], "stacked");
  EXPECT_EQ(Dev(j, "7,1")["verdict"], "write-sync");  // the loop's own verdict stands
  // The disk's own writes, when they outweigh the stacked ones, get their own verdict.
  nlohmann::json own = Analyze(
      [](WriteSyncAnalysis& a) {
        ASSERT_TRUE(a.OnEvent(Block(1000, S::kBioQueue, 252, 0, "WS", 8, 8, "loop1", 2464)).ok());
        for (int i = 0; i < 4; ++i)
          ASSERT_TRUE(a.OnEvent(Block(2000 + i, S::kBioQueue, 252, 0, "W", 900 + i * 8, 8,
                                      "kworker/u8:1", 33)).ok());
      },
      true);
  EXPECT_EQ(Dev(own, "252,0")["verdict"], "async");
}

}  // namespace
}  // namespace tk::iolat
