// Kernel stacks in trace.dat: ftrace's kernel_stack records, which tracefs writes right after
// an event on its CPU when options/stacktrace is set (or the event has a `stacktrace`
// trigger):
//
//   name: kernel_stack   (system ftrace, ID 4 on x86_64 6.x)
//   field:int size;                offset:8;   the number of entries
//   field:unsigned long caller[8]; offset:16;  the return addresses, innermost first (the
//                                              array is as long as the record, not 8)
//
// KernelStacks turns one into Frames named from the file's saved kallsyms, as perf names
// kernel frames ([kernel.kallsyms] / the module). Leading frames of the tracing machinery
// itself (trace_event_raw_event_*, __traceiter_*, perf_trace_*, __bpf_trace_*, ftrace_*,
// stack_trace_*) are dropped, so a sched_switch stack starts at __schedule as perf's
// callchain does.
#ifndef TK_PARSERS_TRACE_DAT_KERNEL_STACK_H_
#define TK_PARSERS_TRACE_DAT_KERNEL_STACK_H_

#include <memory>
#include <string_view>
#include <vector>

#include "core/event.h"
#include "parsers/symbolize/kallsyms.h"
#include "parsers/tep/fields.h"
#include "parsers/trace_dat/trace_dat_file.h"

namespace tk::parsers::trace_dat {

class KernelStacks {
 public:
  // `wanted`: the sink wants stacks; otherwise nothing is loaded and available() is false.
  KernelStacks(const TraceDatFile& f, bool wanted);

  // Whether the file has a kernel_stack format (and stacks are wanted).
  bool available() const { return id_ >= 0; }
  // Whether `raw` is a kernel_stack record.
  bool Is(std::string_view raw) const;
  // Its frames, innermost first, into `out` (replaced); views live as long as this.
  void Decode(std::string_view raw, std::vector<Frame>* out) const;

 private:
  Frame Resolve(uint64_t ip) const;

  const TraceDatFile& f_;
  int id_ = -1;
  tep::FieldRef size_, caller_;
  std::unique_ptr<symbolize::KernelSymbols> syms_;
};

}  // namespace tk::parsers::trace_dat

#endif  // TK_PARSERS_TRACE_DAT_KERNEL_STACK_H_
