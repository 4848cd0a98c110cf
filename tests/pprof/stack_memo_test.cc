// ProfileBuilder's stack memo (Event::stack_id): a stream with stack ids serializes to the same
// profile as the same stream with the ids zeroed.
#include "analyses/pprof/profile_builder.h"
#include "gtest/gtest.h"

namespace tk::analyses::pprof {
namespace {

std::string Build(bool with_ids) {
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
  for (int i = 0; i < 40; ++i) {
    const size_t s = (i * 5) % stacks.size();
    Event e;
    e.pid = 7;
    e.tid = 7 + i % 2;
    e.cpu = 0;
    e.comm = comms[(i / 4) % 2];
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
  return b.Serialize(ProfileMeta{});
}

TEST(PprofStackMemo, SameProfileAsWithoutIds) {
  const std::string want = Build(false);
  EXPECT_GT(want.size(), 100u);
  EXPECT_EQ(Build(true), want);
}

}  // namespace
}  // namespace tk::analyses::pprof
