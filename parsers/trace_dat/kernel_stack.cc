#include "parsers/trace_dat/kernel_stack.h"

#include <traceevent/event-parse.h>

#include <cstring>

#include "core/byte_reader.h"

namespace tk::parsers::trace_dat {
namespace {

constexpr std::string_view kKernel = "[kernel.kallsyms]";
constexpr std::string_view kUnknown = "[unknown]";

bool TracingFrame(std::string_view name) {
  for (std::string_view p : {"trace_event_raw_event_", "__traceiter_", "perf_trace_",
                             "__bpf_trace_", "ftrace_", "stack_trace_", "__ftrace_trace_stack",
                             "__trace_stack", "trace_buffer_unlock_commit",
                             "trace_event_buffer_commit"}) {
    if (name.starts_with(p)) return true;
  }
  return false;
}

}  // namespace

KernelStacks::KernelStacks(const TraceDatFile& f, bool wanted) : f_(f) {
  if (!wanted || !f.events) return;
  // kernel_stack is one of the ftrace formats; its id is small and fixed per kernel.
  for (int id = 1; id < 64; ++id) {
    struct tep_event* ev = f.events->Find(id);
    if (!ev || !ev->name || std::strcmp(ev->name, "kernel_stack") != 0) continue;
    size_ = tep::ResolveField(ev, "size");
    caller_ = tep::ResolveField(ev, "caller");
    if (size_.present() && caller_.present()) id_ = id;
    break;
  }
  if (id_ < 0 || f.kallsyms.empty()) return;
  absl::StatusOr<symbolize::KernelSymbols> ks =
      symbolize::ParseKallsyms(f.kallsyms, nullptr, "trace.dat kallsyms");
  if (ks.ok()) syms_ = std::make_unique<symbolize::KernelSymbols>(std::move(*ks));
}

bool KernelStacks::Is(std::string_view raw) const {
  return id_ >= 0 && raw.size() >= 2 &&
         static_cast<int>(LoadUnsigned(raw.data(), 2, NeedsSwap(f_.big_endian))) == id_;
}

Frame KernelStacks::Resolve(uint64_t ip) const {
  if (syms_) {
    if (const symbolize::Symbol* s = syms_->kernel.Find(ip)) {
      return Frame{ip, syms_->kernel.NameOf(*s), kKernel, static_cast<int64_t>(ip - s->start)};
    }
    for (const auto& [mod, table] : syms_->modules) {
      if (const symbolize::Symbol* s = table.Find(ip)) {
        return Frame{ip, table.NameOf(*s), kKernel, static_cast<int64_t>(ip - s->start)};
      }
    }
  }
  return Frame{ip, kUnknown, kUnknown};
}

void KernelStacks::Decode(std::string_view raw, std::vector<Frame>* out) const {
  out->clear();
  const bool swap = NeedsSwap(f_.big_endian);
  const int word = f_.events->kernel_long_size() == 4 ? 4 : 8;
  if (raw.size() < static_cast<size_t>(size_.offset + 4)) return;
  int64_t n = tep::SignExtend(LoadUnsigned(raw.data() + size_.offset, 4, swap), 4, true);
  const size_t room = raw.size() > static_cast<size_t>(caller_.offset)
                          ? (raw.size() - static_cast<size_t>(caller_.offset)) / word
                          : 0;
  n = std::min<int64_t>(std::max<int64_t>(n, 0), static_cast<int64_t>(room));
  bool leading = true;
  for (int64_t i = 0; i < n; ++i) {
    uint64_t ip = LoadUnsigned(raw.data() + caller_.offset + i * word, word, swap);
    if (ip == 0 || ip == ~uint64_t{0}) continue;  // end markers of older kernels
    Frame fr = Resolve(ip);
    if (leading && TracingFrame(fr.symbol)) continue;
    leading = false;
    out->push_back(fr);
  }
}

}  // namespace tk::parsers::trace_dat
