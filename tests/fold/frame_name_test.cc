// Frame naming: stackcollapse-perf.pl's tidy rules with inferno's bracket-aware fixes.
#include "analyses/fold/frame_name.h"

#include "gtest/gtest.h"

namespace tk::analyses::fold {
namespace {

std::string Tidy(std::string s) {
  TidyInPlace(&s, 0);
  return s;
}

TEST(Tidy, ParameterLists) {
  EXPECT_EQ(Tidy("arrayOopDesc::base(BasicType) const"), "arrayOopDesc::base");
  EXPECT_EQ(Tidy("go/build.(*importReader).readByte"), "go/build.(*importReader).readByte");
  EXPECT_EQ(Tidy("foo<Vec::<usize>>(Vec<usize>)"), "foo<Vec::<usize>>");
  EXPECT_EQ(Tidy(".run()V"), ".run");
  EXPECT_EQ(Tidy("std::function<void (int, int)>::operator(int, int)"),
            "std::function<void (int, int)>::operator");
  EXPECT_EQ(Tidy("{lambda(int, int)#2}::operator()"), "{lambda(int, int)#2}::operator");
  EXPECT_EQ(Tidy("(anonymous namespace)::myBar()"), "(anonymous namespace)::myBar");
  EXPECT_EQ(Tidy("[(foo)]::bar()"), "[(foo)]::bar");
}

TEST(Tidy, SemicolonsAndQuotes) {
  EXPECT_EQ(Tidy("Lorg/mozilla/javascript/ContextFactory;.call(Lorg/mozilla/C;)V"),
            "Lorg/mozilla/javascript/ContextFactory:.call");
  EXPECT_EQ(Tidy("RegExp:[&<>\\\"\\'] "), "RegExp:[&<>\\\\] ");
  EXPECT_EQ(Tidy("a\"b'c"), "abc");
}

std::string Name(std::string_view sym, std::string_view dso, FrameNameOptions o = {},
                 uint64_t ip = 0x7f53389994d0) {
  std::string out;
  AppendFrame(Frame{ip, sym, dso}, o, &out);
  return out;
}

TEST(FrameName, Unknown) {
  EXPECT_EQ(Name("[unknown]", "/usr/lib/libc.so.6"), ";[libc.so.6]");
  EXPECT_EQ(Name("[unknown]", "[unknown]"), ";[unknown]");
  EXPECT_EQ(Name("[unknown]", ""), ";[unknown]");
  FrameNameOptions addrs;
  addrs.include_addrs = true;
  EXPECT_EQ(Name("[unknown]", "/bin/dd", addrs, 0x31ef), ";[dd <31ef>]");
  EXPECT_EQ(Name("[unknown]", "[unknown]", addrs, 0), ";[unknown <0>]");
  EXPECT_EQ(Name("main", "/bin/dd", addrs), ";main");
}

TEST(FrameName, SkippedAndEmpty) {
  EXPECT_EQ(Name("(foo)", "/x"), "");
  EXPECT_EQ(Name("", "/lib/libc-2.15.so"), "; ");
}

TEST(FrameName, Annotations) {
  FrameNameOptions k;
  k.annotate_kernel = true;
  EXPECT_EQ(Name("native_safe_halt", "[kernel.kallsyms]", k), ";native_safe_halt_[k]");
  EXPECT_EQ(Name("tcp_sendmsg", "/lib/modules/4.3.0/build/vmlinux", k), ";tcp_sendmsg_[k]");
  EXPECT_EQ(Name("net_rx", "/usr/lib/debug/boot/vmlinux-5.4.14-cf-2020.1.11", k), ";net_rx_[k]");
  EXPECT_EQ(Name("mlx5e_poll", "/lib/modules/5.4/mlx5_core.ko", k), ";mlx5e_poll_[k]");
  EXPECT_EQ(Name("[unknown]", "[unknown]", k), ";[unknown]");
  EXPECT_EQ(Name("bpf_prog_x", "bpf_prog_x", k), ";bpf_prog_x");
  FrameNameOptions j;
  j.annotate_jit = true;
  EXPECT_EQ(Name("Ljava/io/PrintStream;::print", "/tmp/perf-19982.map", j),
            ";Ljava/io/PrintStream:::print_[j]");
  EXPECT_EQ(Name("foo", "/home/u/.debug/jit/jitted-123-4.so", j), ";foo_[j]");
  EXPECT_EQ(Name("foo_[j]", "/tmp/perf-1.map", j), ";foo_[j]");
  EXPECT_EQ(Name("foo", "/usr/lib/libc.so.6", j), ";foo");
}

TEST(FrameName, JavaInliningAndTidy) {
  FrameNameOptions java;
  java.java = true;
  java.annotate_kernel = true;
  EXPECT_EQ(Name("Lfoo/A;::a->Lbar/B;::b->c", "/tmp/perf-1.map", java),
            ";foo/A:::a;bar/B:::b_[i];c_[i]");
  EXPECT_EQ(Name("Lfoo/A;::a", "/tmp/perf-1.map"), ";Lfoo/A:::a");
  EXPECT_EQ(Name("LBusy;::main", "/tmp/perf-1.map", java), ";LBusy:::main");  // no '/'
}

TEST(FrameName, DsoPredicates) {
  EXPECT_TRUE(IsKernelDso("[kernel.kallsyms]"));
  EXPECT_TRUE(IsKernelDso("[nf_conntrack_ipv4]"));
  EXPECT_TRUE(IsKernelDso("vmlinux"));
  EXPECT_FALSE(IsKernelDso("[unknown]"));
  EXPECT_FALSE(IsKernelDso("vmlinux-5.4.14)"));
  EXPECT_FALSE(IsKernelDso("/usr/lib/debug/boot/vmlinu"));
  EXPECT_TRUE(IsJitDso("/tmp/perf-19982.map"));
  EXPECT_FALSE(IsJitDso("/tmp/perf-19982.mapx"));
}

}  // namespace
}  // namespace tk::analyses::fold
