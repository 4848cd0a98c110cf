// SchedFastDecoder (parsers/tep/sched_decode.h): the constant-offset decoding of the common
// sched layouts, checked against TepDecoder's generic reads on the committed 6.18 formats.
#include <string>
#include <variant>

#include "gtest/gtest.h"
#include "parsers/tep/sched_decode.h"
#include "parsers/tep/tep_decoder.h"
#include "tests/tep/format_payload.h"

namespace tk::parsers::tep {
namespace {

// SchedFastDecoder's fixed layouts (the 6.18 formats here) engage, and give the bodies the
// TepDecoder's generic reads give; a big-endian file takes the generic path.
TEST(SchedFastDecoder, FixedLayoutsMatchTheGenericReads) {
  auto ev = Load({{"sched", "sched_switch.format"}, {"sched", "sched_waking.format"},
                  {"sched", "sched_stat_runtime.format"}});
  TepDecoder dec(ev.get());
  SchedFastDecoder fast(/*big_endian=*/false);
  auto add = [&](int id) {
    SchedLayout l;
    EXPECT_TRUE(dec.SchedLayoutOf(id, &l)) << id;
    int h = fast.Add(l);
    EXPECT_GE(h, 0) << id;
    EXPECT_TRUE(fast.fixed(h)) << id;
    return h;
  };
  Payload sw(*ev, 372);
  sw.PutStr("prev_comm", "kworker/0:1 x").Put("prev_pid", 17).Put("prev_prio", 120);
  sw.Put("prev_state", 0x100).PutStr("next_comm", "0123456789abcdef").Put("next_pid", 0xfffffffe);
  Payload wk(*ev, FormatId("sched_waking.format"));
  wk.PutStr("comm", "bash").Put("pid", 99).Put("prio", 120).Put("target_cpu", 3);
  Payload rt(*ev, FormatId("sched_stat_runtime.format"));
  rt.PutStr("comm", "stress-ng-cpu").Put("pid", 1234).Put("runtime", 5000000000ull);
  const int hsw = add(372), hwk = add(FormatId("sched_waking.format"));
  const int hrt = add(FormatId("sched_stat_runtime.format"));
  Event e;
  Body b;
  ASSERT_TRUE(dec.Decode(sw.raw(), e));
  fast.Decode(hsw, sw.raw(), &b);
  const auto& s1 = std::get<SchedSwitch>(e.body);
  const auto& s2 = std::get<SchedSwitch>(b);
  EXPECT_EQ(s2.prev_comm, s1.prev_comm);
  EXPECT_EQ(s2.next_comm, "0123456789abcdef");  // a full comm[16] without its NUL
  EXPECT_EQ(s2.next_comm, s1.next_comm);
  EXPECT_EQ(s2.prev_pid, 17);
  EXPECT_EQ(s2.next_pid, -2);  // pid_t is signed
  EXPECT_EQ(s2.next_pid, s1.next_pid);
  EXPECT_EQ(s2.prev_prio, s1.prev_prio);
  EXPECT_EQ(s2.next_prio, s1.next_prio);
  EXPECT_EQ(s2.prev_state.ToString(), "R+");
  EXPECT_EQ(s2.prev_state.ToString(), s1.prev_state.ToString());
  // The same body object takes the next kinds (the alternative is replaced or reset).
  for (int pass = 0; pass < 2; ++pass) {
    ASSERT_TRUE(dec.Decode(wk.raw(), e));
    fast.Decode(hwk, wk.raw(), &b);
    const auto& w1 = std::get<SchedWakeup>(e.body);
    const auto& w2 = std::get<SchedWakeup>(b);
    EXPECT_EQ(w2.kind, SchedWakeup::Kind::kWaking);
    EXPECT_EQ(w2.comm, w1.comm);
    EXPECT_EQ(w2.pid, w1.pid);
    EXPECT_EQ(w2.prio, w1.prio);
    EXPECT_EQ(w2.target_cpu, 3);
    EXPECT_EQ(w2.success, w1.success);
  }
  ASSERT_TRUE(dec.Decode(rt.raw(), e));
  fast.Decode(hrt, rt.raw(), &b);
  const auto& r1 = std::get<SchedStat>(e.body);
  const auto& r2 = std::get<SchedStat>(b);
  EXPECT_EQ(r2.comm, "stress-ng-cpu");  // __data_loc
  EXPECT_EQ(r2.comm, r1.comm);
  EXPECT_EQ(r2.pid, r1.pid);
  EXPECT_EQ(r2.delay_ns, 5000000000ull);
  EXPECT_EQ(r2.vruntime, r1.vruntime);

  SchedFastDecoder swapped(/*big_endian=*/true);
  SchedLayout l;
  ASSERT_TRUE(dec.SchedLayoutOf(372, &l));
  int h = swapped.Add(l);
  ASSERT_GE(h, 0);
  EXPECT_FALSE(swapped.fixed(h));
}

}  // namespace
}  // namespace tk::parsers::tep
