// ProfileBuilder's stack memo (Event::stack_id): a stream with stack ids serializes to the same
// profile as the same stream with the ids zeroed.
#include <set>
#include <utility>

#include "analyses/pprof/profile_builder.h"
#include "gtest/gtest.h"

namespace tk::analyses::pprof {
namespace {

// `hits`: the samples the memo answered; `keys`: the distinct {stack_id, java} it saw.
std::string Build(bool with_ids, uint64_t* hits = nullptr, size_t* keys = nullptr) {
  // Two stacks (one with recursion and an inline frame), under two comms (java changes how
  // frames are named) and two threads.
  std::vector<std::vector<Frame>> stacks = {
      {{0x10, "f", "/bin/a", 0}, {0x10, "g", "inlined", -1}, {0x30, "main", "/bin/a", 0}},
      {{0x10, "f", "/bin/a", 0}, {0x20, "f", "/bin/a", 0}, {0x30, "main", "/bin/a", 0}},
      {{0xffffffff81000010ull, "do_syscall_64", "[kernel.kallsyms]", 0x10},
       {0x7f0000001000ull, "Lfoo;::bar", "/tmp/perf-7.map", 0}},
  };
  const char* comms[] = {"a", "java"};
  ProfileBuilder b(PprofOptions{});
  std::set<std::pair<size_t, bool>> seen;
  for (int i = 0; i < 40; ++i) {
    const size_t s = (i * 5) % stacks.size();
    Event e;
    e.pid = 7;
    e.tid = 7 + i % 2;
    e.cpu = 0;
    e.comm = comms[(i / 4) % 2];
    seen.insert({(i * 5) % stacks.size(), (i / 4) % 2 == 1});
    e.name = "cpu-clock";
    e.period = 1000 + i;
    e.has_period = true;
    e.ts_ns = 1000 * i;
    e.stack = absl::MakeConstSpan(stacks[s]);
    e.stack_id = with_ids ? s + 1 : 0;
    e.stable_views = true;
    e.body = tk::Sample{};
    EXPECT_TRUE(b.OnEvent(e).ok());
  }
  EXPECT_EQ(b.samples(), 40u);
  if (hits) *hits = b.stack_memo_hits();
  if (keys) *keys = seen.size();
  return b.Serialize(ProfileMeta{});
}

TEST(PprofStackMemo, SameProfileAsWithoutIds) {
  uint64_t hits = 0;
  size_t keys = 0;
  const std::string want = Build(false, &hits);
  EXPECT_GT(want.size(), 100u);
  EXPECT_EQ(hits, 0u);
  EXPECT_EQ(Build(true, &hits, &keys), want);
  // The memo is used: every sample but the first of each {stack, java} takes its locations.
  EXPECT_EQ(keys, 6u);
  EXPECT_EQ(hits, 40u - keys);
}

}  // namespace
}  // namespace tk::analyses::pprof
