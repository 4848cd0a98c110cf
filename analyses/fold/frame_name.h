// How one stack frame is named in folded output (stackcollapse-perf.pl's rules, with
// inferno's bracket-aware parameter stripping).
//
//   ffffffff821f2c2b pv_native_safe_halt+0xb ([kernel.kallsyms])  → pv_native_safe_halt
//   7f7241fbe6d8 arrayOopDesc::base(BasicType) const (libjvm.so)   → arrayOopDesc::base
//   7f722d119786 Ljava/io/FileOutputStream;::writeBytes (/tmp/perf-19982.map)
//                          → java/io/FileOutputStream:::writeBytes      (comm "java...")
//   ... std::_Function_handler<int (int, int), main::{lambda(int, int)#1}>::_M_invoke
//                          → kept whole: the "(" is inside <...>
//   ... net/http.(*Client).Do (/usr/bin/app)                        → kept: Go method
//   ... (anonymous namespace)::myBar() (/usr/bin/app)               → (anonymous namespace)::myBar
//   7f53389994d0 [unknown] (/usr/lib/libc.so.6)                     → [libc.so.6]
//   ffffffff9aa3c8de [unknown] ([unknown])                          → [unknown]
//   7f722d142778 Lfoo;::a->Lbar;::b (/tmp/perf-1.map)               → foo:::a;bar:::b_[i] (Java
//                                                                      inlining, root first)
#ifndef TK_ANALYSES_FOLD_FRAME_NAME_H_
#define TK_ANALYSES_FOLD_FRAME_NAME_H_

#include <string>
#include <string_view>

#include "core/event.h"

namespace tk::analyses::fold {

struct FrameNameOptions {
  bool annotate_kernel = false;  // "_[k]" on kernel frames (--kernel)
  bool annotate_jit = false;     // "_[j]" on JIT frames (--jit)
  bool include_addrs = false;    // "[dso <addr>]" for unknown symbols (--addrs)
  bool java = false;             // the root is "java": drop the "L" of "Lcom/foo;..."
};

// A kernel DSO: "[kernel.kallsyms]", "[nf_conntrack_ipv4]", ".../vmlinux-5.4.14-foo", "x.ko";
// not "[unknown]".
bool IsKernelDso(std::string_view dso);
// A JIT map: "/tmp/perf-19982.map" or ".../jitted-123-45.so".
bool IsJitDso(std::string_view dso);

// Strips the parameter list: from the first top-level "(" (outside <> {} []) unless it is
// Go's ".(" or "(anonymous namespace)". Also turns ';' into ':' and drops quotes.
// Works in place on `s` from `from` on.
void TidyInPlace(std::string* s, size_t from);

// Appends ";NAME" for each function of `f` (several with Java "->" inlining, root first),
// or nothing when the frame is skipped (symbol starting with "("). Returns the count appended.
int AppendFrame(const Frame& f, const FrameNameOptions& opt, std::string* out);

}  // namespace tk::analyses::fold

#endif  // TK_ANALYSES_FOLD_FRAME_NAME_H_
