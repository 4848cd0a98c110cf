// The frame-line decoder.
#include "parsers/perf_script/frame.h"

#include "gtest/gtest.h"

namespace tk::parsers::perf_script {
namespace {

TEST(Frame, KernelWithOffset) {
  auto f = ParseFrameLine("\tffffffff821f2c2b pv_native_safe_halt+0xb ([kernel.kallsyms])");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->ip, 0xffffffff821f2c2bu);
  EXPECT_EQ(f->symbol, "pv_native_safe_halt");
  EXPECT_EQ(f->dso, "[kernel.kallsyms]");
}

TEST(Frame, UnknownKept) {
  auto f = ParseFrameLine("\t               0 [unknown] ([unknown])");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->ip, 0u);
  EXPECT_EQ(f->symbol, "[unknown]");
  EXPECT_EQ(f->dso, "[unknown]");
}

TEST(Frame, SymbolWithSpacesAndParens) {
  auto f = ParseFrameLine(
      "7f7241fbe6d8 arrayOopDesc::base(BasicType) const (/opt/jdk/lib/server/libjvm.so)");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->symbol, "arrayOopDesc::base(BasicType) const");
  EXPECT_EQ(f->dso, "/opt/jdk/lib/server/libjvm.so");
}

TEST(Frame, DsoWithParens) {
  auto f = ParseFrameLine("\t           c584f [unknown] (/memfd:sealed-9117 (deleted))");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->symbol, "[unknown]");
  EXPECT_EQ(f->dso, "/memfd:sealed-9117 (deleted)");
}

TEST(Frame, NoSymbolNoDso) {
  auto f = ParseFrameLine("7f1e2215d058  (/lib/x86_64-linux-gnu/libc-2.15.so)");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->symbol, "");
  EXPECT_EQ(f->dso, "/lib/x86_64-linux-gnu/libc-2.15.so");
  auto g = ParseFrameLine("ffffffff8103ce3b native_safe_halt");
  ASSERT_TRUE(g);
  EXPECT_EQ(g->symbol, "native_safe_halt");
  EXPECT_EQ(g->dso, "");
  auto h = ParseFrameLine("\t  401b97 foo(int)");  // no blank before "(": not a DSO
  ASSERT_TRUE(h);
  EXPECT_EQ(h->symbol, "foo(int)");
}

TEST(Frame, OffsetStripping) {
  EXPECT_EQ(StripOffset("foo+0x1a"), "foo");
  EXPECT_EQ(StripOffset("foo+0xZZ"), "foo+0xZZ");
  EXPECT_EQ(StripOffset("foo+0x"), "foo+0x");
  EXPECT_EQ(StripOffset("a+0x1+0x2"), "a+0x1");
  EXPECT_EQ(StripOffset("plain"), "plain");
  // stackcollapse-perf.pl's s/\+0x[\da-f]+$//: lowercase digits only, as perf prints them.
  EXPECT_EQ(StripOffset("foo+0x1A"), "foo+0x1A");
  int64_t off = 0;
  EXPECT_EQ(StripOffset("cpu_startup_entry+0x800047c022ec", &off), "cpu_startup_entry");
  EXPECT_EQ(off, 0x800047c022ec);
  EXPECT_EQ(StripOffset("plain", &off), "plain");
  EXPECT_EQ(off, -1);
  EXPECT_EQ(StripOffset("big+0xffffffffffffffff", &off), "big");  // too big to keep
  EXPECT_EQ(off, -1);
}

// The offset is kept (tk script prints "sym+0xoff" again), the symbol is the bare name.
TEST(Frame, KeepsTheOffset) {
  auto f = ParseFrameLine("	ffffffff8225fc27 exc_page_fault+0xd7 ([kernel.kallsyms])");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->symbol, "exc_page_fault");
  EXPECT_EQ(f->sym_offset, 0xd7);
  auto u = ParseFrameLine("	               0 [unknown] ([unknown])");
  ASSERT_TRUE(u);
  EXPECT_EQ(u->sym_offset, -1);
}

TEST(Frame, NotFrames) {
  EXPECT_FALSE(ParseFrameLine("\t          THIS_IS_A_WEIRD_LINE"));
  EXPECT_FALSE(ParseFrameLine(""));
  EXPECT_FALSE(ParseFrameLine("  11112222333344445 foo (bar)"));  // 17 hex digits
}

}  // namespace
}  // namespace tk::parsers::perf_script
