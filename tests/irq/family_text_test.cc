// The text forms of the event families (core/kernel_events.h) every kernel era and tool prints:
// kernel print formats (ftrace, perf script), trace-cmd report -R raw fields, 2.6.3x names,
// pre-4.1 page pointers; and the mask rule (families not asked for stay Generic).
#include <variant>

#include "gtest/gtest.h"
#include "parsers/tp_text/tp_text.h"

namespace tk::parsers::tp_text {
namespace {

template <typename T>
T Decode(std::string_view name, std::string_view text) {
  TracepointTextDecoder d;
  Event e;
  EXPECT_TRUE(d.Decode(name, text, e)) << name << ": " << text;
  EXPECT_TRUE(std::holds_alternative<T>(e.body)) << name << ": " << text;
  return std::holds_alternative<T>(e.body) ? std::get<T>(e.body) : T();
}

TEST(FamilyText, HardIrq) {
  Irq a = Decode<Irq>("irq_handler_entry", "irq=36 name=virtio1-req.0");
  EXPECT_FALSE(a.exit);
  EXPECT_EQ(a.irq, 36);
  EXPECT_EQ(a.name, "virtio1-req.0");
  EXPECT_EQ(Decode<Irq>("irq:irq_handler_entry", "irq=19 handler=ahci").name, "ahci");  // 2.6.3x
  EXPECT_EQ(Decode<Irq>("irq_handler_entry", "irq=5 name=my dev").name, "my dev");
  EXPECT_EQ(Decode<Irq>("irq_handler_exit", "irq=36 ret=handled").ret, 1);
  EXPECT_EQ(Decode<Irq>("irq_handler_exit", "irq=36 ret=unhandled").ret, 0);
  EXPECT_EQ(Decode<Irq>("irq_handler_exit", "irq=36 ret=1").ret, 1);  // report -R
  EXPECT_EQ(Decode<Irq>("irq_handler_exit", "irq=36 return=handled").ret, 1);
}

TEST(FamilyText, Softirq) {
  Softirq s = Decode<Softirq>("softirq_raise", "vec=9 [action=RCU]");
  EXPECT_EQ(s.phase, Softirq::Phase::kRaise);
  EXPECT_EQ(s.vec, 9);
  EXPECT_EQ(Decode<Softirq>("irq:softirq_entry", "vec=1").vec, 1);  // report -R
  EXPECT_EQ(Decode<Softirq>("softirq_exit", "softirq=3 action=NET_RX").vec, 3);
  EXPECT_EQ(SoftirqName(5), "IRQ_POLL");
  EXPECT_EQ(SoftirqName(10), "");
}

TEST(FamilyText, RawSyscalls) {
  Syscall c = Decode<Syscall>("sys_enter", "NR 33 (b, 1, 5585ff52f9bc, 0, 7, b)");
  EXPECT_FALSE(c.exit);
  EXPECT_EQ(c.id, 33);
  ASSERT_EQ(c.nargs, 6);
  EXPECT_EQ(c.args[2], 0x5585ff52f9bcu);
  Syscall x = Decode<Syscall>("raw_syscalls:sys_exit", "NR 257 = -2");
  EXPECT_TRUE(x.exit);
  EXPECT_EQ(x.id, 257);
  EXPECT_EQ(x.ret, -2);
  EXPECT_EQ(Decode<Syscall>("sys_exit", "id=1 ret=2").ret, 2);  // report -R
  EXPECT_EQ(Decode<Syscall>("sys_enter", "id=33 args=ARRAY[0b, 00]").id, 33);
}

TEST(FamilyText, PerCallSyscalls) {
  Syscall c =
      Decode<Syscall>("sys_enter_read", "fd: 0x00000003, buf: 0x7ffd5e1e8a40, count: 0x00002000");
  EXPECT_EQ(c.name, "read");
  EXPECT_EQ(c.id, -1);
  ASSERT_EQ(c.nargs, 3);
  EXPECT_EQ(c.args[2], 0x2000u);
  Syscall x = Decode<Syscall>("syscalls:sys_exit_openat", "0xfffffffffffffffe");
  EXPECT_EQ(x.name, "openat");
  EXPECT_EQ(x.ret, -2);
}

TEST(FamilyText, Pages) {
  PageEvent a = Decode<PageEvent>(
      "mm_page_alloc", "page=0x1d83db pfn=0x1d83db order=2 migratetype=1 gfp_flags=GFP_KERNEL");
  EXPECT_EQ(a.op, PageEvent::Op::kAlloc);
  EXPECT_EQ(a.pfn, 0x1d83dbu);
  EXPECT_EQ(a.order, 2u);
  EXPECT_EQ(a.migratetype, 1);
  EXPECT_FALSE(a.failed);
  EXPECT_TRUE(Decode<PageEvent>("mm_page_alloc",
                                "page=(nil) pfn=0x0 order=0 migratetype=0 gfp_flags=GFP_ATOMIC")
                  .failed);
  EXPECT_TRUE(
      Decode<PageEvent>("mm_page_alloc", "pfn=-1 order=0 gfp_flags=0x440dc0 migratetype=0").failed);
  EXPECT_EQ(
      Decode<PageEvent>("mm_page_alloc", "pfn=0x1d83db order=0 gfp_flags=0x440dc0 migratetype=0")
          .gfp_flags,
      0x440dc0u);
  // Before 4.1 some tools print only the struct page pointer.
  PageEvent old = Decode<PageEvent>("kmem:mm_page_free_direct", "page=ffffea0004bd6f40 order=1");
  EXPECT_TRUE(old.is_page_ptr);
  EXPECT_EQ(old.pfn, 0xffffea0004bd6f40u);
  EXPECT_EQ(old.op, PageEvent::Op::kFree);
  EXPECT_EQ(
      Decode<PageEvent>("mm_pagevec_free", "page=ffffea0004bd6f40 pfn=1242557 order=0 cold=0").pfn,
      1242557u);
  EXPECT_EQ(Decode<PageEvent>("mm_page_free_batched", "page=0x1e99b9 pfn=0x1e99b9 order=0").op,
            PageEvent::Op::kFreeBatched);
}

TEST(FamilyText, MalformedIsCountedNotTyped) {
  TracepointTextDecoder d;
  Event e;
  EXPECT_FALSE(d.Decode("irq_handler_entry", "irq=x name=a", e));
  EXPECT_TRUE(std::holds_alternative<Generic>(e.body));
  EXPECT_FALSE(d.Decode("sys_exit", "NR 1 = ", e));
  EXPECT_FALSE(d.Decode("mm_page_alloc", "order=0", e));
}

TEST(FamilyText, FamiliesNotAskedForStayGeneric) {
  TracepointTextDecoder d;
  d.SetWanted(EventMask::All());
  EXPECT_EQ(d.Kind("irq_handler_entry"), EventKind::kGeneric);
  EXPECT_EQ(d.Kind("sched_switch"), EventKind::kSchedSwitch);
  Event e;
  EXPECT_TRUE(d.Decode("irq_handler_entry", "irq=36 name=virtio1-req.0", e));
  ASSERT_TRUE(std::holds_alternative<Generic>(e.body));
  EXPECT_EQ(std::get<Generic>(e.body).fields.size(), 2u);
  EXPECT_EQ(e.name, "irq:irq_handler_entry");
  d.SetWanted(EventMask().Add(EventKind::kIrq));
  EXPECT_EQ(d.Kind("irq:irq_handler_exit"), EventKind::kIrq);
  EXPECT_EQ(d.Kind("sys_enter_read"), EventKind::kGeneric);
  EXPECT_EQ(TracepointTextDecoder::KindOf("sys_exit_read"), EventKind::kSyscall);
}

}  // namespace
}  // namespace tk::parsers::tp_text
