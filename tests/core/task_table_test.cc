// core/task_table.h: TidMap's cache in front of its index, and TaskTable's naming rules.
#include "core/task_table.h"

#include <gtest/gtest.h>

#include <string>

namespace tk {
namespace {

TEST(TidMap, CachedAndIndexedLookupsAgree) {
  TidMap<int> m;
  // Ids that share a cache slot (equal mod 256), negative and large ones.
  const int32_t ids[] = {0, 1, 257, 513, -1, -255, 4194303, 1 << 30, 7};
  int v = 0;
  for (int32_t id : ids) m[id] = ++v;
  EXPECT_EQ(m.size(), std::size(ids));
  for (int round = 0; round < 3; ++round) {  // each lookup evicts another id's slot
    v = 0;
    for (int32_t id : ids) {
      ++v;
      ASSERT_NE(m.Find(id), nullptr) << id;
      EXPECT_EQ(*m.Find(id), v) << id;
      EXPECT_EQ(m[id], v) << id;
    }
  }
  EXPECT_EQ(m.Find(2), nullptr);
  EXPECT_EQ(m.Find(769), nullptr);  // the slot of 1, 257 and 513, never inserted
  EXPECT_EQ(m.size(), std::size(ids));
  // entries(): first-lookup order.
  ASSERT_EQ(m.entries().size(), std::size(ids));
  for (size_t i = 0; i < std::size(ids); ++i) EXPECT_EQ(m.entries()[i].first, ids[i]);
}

TEST(TidMap, ReferencesStayRightAcrossGrowth) {
  TidMap<std::string> m;
  for (int32_t tid = 0; tid < 5000; ++tid) m[tid * 256] = std::to_string(tid);  // one slot
  for (int32_t tid = 0; tid < 5000; ++tid) {
    ASSERT_NE(m.Find(tid * 256), nullptr);
    EXPECT_EQ(*m.Find(tid * 256), std::to_string(tid));
  }
}

Event Switch(int32_t tid, std::string_view comm, int32_t prev, std::string_view prev_comm,
             int32_t next, std::string_view next_comm) {
  Event e;
  e.tid = tid;
  e.pid = tid;
  e.comm = comm;
  SchedSwitch& s = e.body.emplace<SchedSwitch>();
  s.prev_pid = prev;
  s.prev_comm = prev_comm;
  s.next_pid = next;
  s.next_comm = next_comm;
  return e;
}

TEST(TaskTable, RecordCommsWinOverTracepointComms) {
  TaskTable t;
  t.Observe(Switch(10, "a", 10, "a", 11, "b"));
  EXPECT_EQ(t.Comm(10), "a");
  EXPECT_EQ(t.Comm(11), "b");
  EXPECT_EQ(t.Find(10)->pid, 10);
  Event c;
  c.tid = 11;
  c.body = tk::Comm{11, 11, "named", false};
  t.Observe(c);
  t.Observe(Switch(11, "x", 11, "y", 12, "z"));  // a tracepoint's comm no longer renames 11
  EXPECT_EQ(t.Comm(11), "named");
  EXPECT_EQ(t.Comm(12), "z");
  // The sample's own comm and a different prev_comm of the same thread: the later wins.
  t.Observe(Switch(12, "z", 12, "w", 0, "swapper/0"));
  EXPECT_EQ(t.Comm(12), "w");
  EXPECT_EQ(t.Comm(0), "swapper");
  EXPECT_EQ(t.Comm(99), ":99");
  EXPECT_EQ(t.Known(99), "");
}

}  // namespace
}  // namespace tk
