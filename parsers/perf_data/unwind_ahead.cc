#include "parsers/perf_data/unwind_ahead.h"

#include <algorithm>

#include "core/byte_reader.h"
#include "parsers/perf_data/abi.h"
#include "parsers/perf_data/decoder.h"
#include "parsers/perf_data/side_band.h"

namespace tk::parsers::perf_data {
namespace {

bool HasDwarfStacks(const EventAttr& attr) {
  return attr.exclude_callchain_user() && (attr.sample_type & kSampleStackUser) &&
         (attr.sample_type & kSampleRegsUser);
}

// Whether Decoder::BuildStack keeps the callchain: perf 6.1 drops a whole stack with a
// context marker it does not know (the decoder then unwinds nothing). The same scan.
bool KnownContexts(const ParsedSample& s, bool swap) {
  int n = 0;
  for (uint64_t i = 0; i < s.callchain_nr && n < kMaxStack; ++i) {
    uint64_t ip = Load<uint64_t>(s.callchain.data() + i * 8, swap);
    if (ip < kContextMax) {
      ++n;
    } else if (ip != kContextKernel && ip != kContextUser && ip != kContextHv &&
               ip != kContextGuestKernel && ip != kContextGuestUser) {
      return false;
    }
  }
  return true;
}

}  // namespace

std::optional<unwind::Module> AheadUnwinder::Modules::FindModule(int32_t pid, uint64_t addr) {
  symbolize::Machine::UnwindFiles f;
  if (!machine_->FindUnwindFiles(pid, addr, &f)) return std::nullopt;
  return unwind::Module{f.start, f.end, f.pgoff, *f.elf, *f.debug};
}

AheadUnwinder::AheadUnwinder(const Metadata& meta, const EventTable& table,
                             const ParseOptions& opts, EventMask wants)
    : meta_(meta),
      table_(table),
      stacks_wanted_(wants.stacks()),
      samples_wanted_(wants.Has(EventKind::kSample)),
      inline_frames_(opts.inline_frames),
      machine_(std::make_unique<symbolize::Machine>(SymbolizeOptionsOf(opts))),
      modules_(machine_),
      unwinder_(modules_, kMaxStack) {
  Refresh();
}

// Active once an event has DWARF stacks (a pipe's attrs come before its records); the
// Machine learns the build ids the decoder's learns.
void AheadUnwinder::Refresh() {
  if (!machine_) return;
  for (const BuildIdEntry& b : meta_.build_ids) {
    machine_->AddBuildId(b.filename, b.build_id, b.cpumode == kMiscKernel);
  }
  if (!stacks_wanted_) return;
  for (const EventInfo& ev : meta_.events) active_ = active_ || HasDwarfStacks(ev.attr);
}

int AheadUnwinder::Feed(std::string_view rec, UnwoundStacks* out) {
  if (!active_ || rec.size() < 8) return -1;
  const uint32_t type = Load<uint32_t>(rec.data(), meta_.swap);
  const uint16_t misc = Load<uint16_t>(rec.data() + 4, meta_.swap);
  const std::string_view body = rec.substr(8);
  const bool swap = meta_.swap;
  // The same state changes as the decoder's (user maps only: kernel frames are not unwound).
  switch (type) {
    case kSample:
      return FeedSample(body, out);
    case kMmap:
    case kMmap2: {
      MmapRecord m;
      if (!(type == kMmap ? ParseMmap(misc, body, swap, &m) : ParseMmap2(misc, body, swap, &m)) ||
          !m.code || m.kernel) {
        return -1;
      }
      machine_->OnMmap(m.pid, m.start, m.len, m.pgoff, m.filename, false, m.build_id);
      unwinder_.OnMmap(m.pid, m.start, m.start + m.len);
      return -1;
    }
    case kComm:
      if (std::optional<CommRecord> c = ParseComm(misc, body, swap); c && c->exec) {
        unwinder_.Forget(c->pid);  // a new program
      }
      return -1;
    case kFork:
      if (std::optional<TaskRecord> r = ParseTaskRecord(body, swap)) {
        machine_->OnFork(r->pid, r->tid, r->ppid, r->ptid, (misc & (1 << 13)) != 0);
      }
      return -1;
    case kExit:
      // The process is gone (its main thread exits last): its modules go.
      if (std::optional<TaskRecord> r = ParseTaskRecord(body, swap); r && r->pid == r->tid) {
        unwinder_.Forget(r->pid);
      }
      return -1;
    default:
      return -1;
  }
}

void AheadUnwinder::Finish() {
  active_ = false;
  unwinder_.DropFiles();
  machine_.reset();
}

bool AheadUnwinder::WouldUnwind(const EventAttr& attr, const ParsedSample& s) const {
  if (attr.type != kTypeTracepoint && !samples_wanted_) return false;
  return s.has_callchain && !s.user_stack.empty() && KnownContexts(s, meta_.swap);
}

int AheadUnwinder::FeedSample(std::string_view body, UnwoundStacks* out) {
  int ev = table_.EventOf(kSample, body);
  if (ev < 0 || !HasDwarfStacks(table_.attr(ev))) return -1;
  const EventAttr& attr = table_.attr(ev);
  ParsedSample s;
  if (!ParseSample(body, attr, meta_.swap, &s).ok() || !WouldUnwind(attr, s)) return -1;
  unwind::UserSample u;
  u.pid = s.pid;
  u.tid = s.tid;
  u.abi = s.user_regs_abi;
  u.regs_mask = attr.sample_regs_user;
  u.regs = s.user_regs;
  u.stack = s.user_stack;
  u.dyn_size = std::min<uint64_t>(s.user_stack_dyn_size, s.user_stack.size());
  u.swap = meta_.swap;
  UnwoundStacks::Stack st;
  st.why = unwinder_.Unwind(u, &unwound_);
  st.frames_begin = static_cast<uint32_t>(out->frames.size());
  for (const unwind::UnwoundFrame& uf : unwound_) {
    UnwoundStacks::Frame f{uf.pc, uf.exact, 0, 0};
    f.names_begin = f.names_end = static_cast<uint32_t>(out->names.size());
    if (inline_frames_) {
      // Asked here for every frame; the decoder uses them for frames whose symbol is known.
      const std::vector<std::string_view>& names =
          unwinder_.InlineNames(s.pid, uf.exact ? uf.pc : uf.pc - 1);
      out->names.insert(out->names.end(), names.begin(), names.end());
      f.names_end = static_cast<uint32_t>(out->names.size());
    }
    out->frames.push_back(f);
  }
  st.frames_end = static_cast<uint32_t>(out->frames.size());
  out->stacks.push_back(st);
  return static_cast<int>(out->stacks.size() - 1);
}

}  // namespace tk::parsers::perf_data
