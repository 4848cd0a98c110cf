// One callchain line of `perf script` output → tk::Frame.
//
//   \t    ffffffff821f2c2b pv_native_safe_halt+0xb ([kernel.kallsyms])
//   \t               0 [unknown] ([unknown])
//   \t           f8090 __GI___libc_open+0xd0 (/usr/lib/x86_64-linux-gnu/libc.so.6)
//   7f7241fbe6d8 arrayOopDesc::base(BasicType) const (/home/x/jdk/lib/server/libjvm.so)
//   7f1e2215d058  (/lib/x86_64-linux-gnu/libc-2.15.so)          (old perf: no symbol)
//   7f0c1b2c3d4e foo+0x1e (/tmp/libfoo.so (deleted))             (dso with parentheses)
//   ffffffff8103ce3b native_safe_halt                            (-F ip,sym: no dso)
#ifndef TK_PARSERS_PERF_SCRIPT_FRAME_H_
#define TK_PARSERS_PERF_SCRIPT_FRAME_H_

#include <cstdint>
#include <optional>
#include <string_view>

#include "core/event.h"

namespace tk::parsers::perf_script {

// "foo+0x1a" → "foo" (the offset perf prints since Linux 4.8, and with -F symoff), as
// stackcollapse-perf.pl strips it (s/\+0x[\da-f]+$//: lowercase hex digits, as perf prints
// them); anything else unchanged. `offset` (optional) receives 0x1a, or -1 when nothing was
// stripped or the offset does not fit.
std::string_view StripOffset(std::string_view symbol, int64_t* offset = nullptr);

// The address is hex without "0x"; the DSO is the last balanced "(...)" preceded by a blank.
// The symbol keeps spaces and parentheses ("base(BasicType) const"), loses its "+0x" offset
// (into Frame::sym_offset, so tk script prints it again), and is empty when perf printed none. Views borrow `line`. nullopt when the line does not
// start with a hex address.
std::optional<Frame> ParseFrameLine(std::string_view line);

}  // namespace tk::parsers::perf_script

#endif  // TK_PARSERS_PERF_SCRIPT_FRAME_H_
