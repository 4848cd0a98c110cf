#include "parsers/unwind/unwinder.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "core/byte_reader.h"
#include "parsers/symbolize/demangle.h"
#include "parsers/unwind/elf_file.h"
#include "parsers/unwind/frame_step.h"

namespace tk::parsers::unwind {
namespace {

// perf's x86 register numbers (arch/x86/include/uapi/asm/perf_regs.h).
constexpr int kPerfAx = 0, kPerfBx = 1, kPerfCx = 2, kPerfDx = 3, kPerfSi = 4, kPerfDi = 5,
              kPerfBp = 6, kPerfSp = 7, kPerfIp = 8, kPerfR8 = 16;
// DWARF register n (x86_64 psABI: rax rdx rcx rbx rsi rdi rbp rsp r8..r15 rip) is perf's
// register kDwarfToPerf64[n]; i386 (eax ecx edx ebx esp ebp esi edi eip) likewise.
constexpr int kDwarfToPerf64[17] = {kPerfAx,     kPerfDx,     kPerfCx,     kPerfBx,     kPerfSi,
                                    kPerfDi,     kPerfBp,     kPerfSp,     kPerfR8,     kPerfR8 + 1,
                                    kPerfR8 + 2, kPerfR8 + 3, kPerfR8 + 4, kPerfR8 + 5, kPerfR8 + 6,
                                    kPerfR8 + 7, kPerfIp};
constexpr int kDwarfToPerf32[9] = {kPerfAx, kPerfCx, kPerfDx, kPerfBx, kPerfSp,
                                   kPerfBp, kPerfSi, kPerfDi, kPerfIp};
constexpr unsigned kDwarfSp64 = 7, kDwarfSp32 = 4;
// Reads past the dump this far above SP are taken as stack reads that the dump cut off.
constexpr uint64_t kStackSpan = 64ull << 20;

bool PerfReg(const UserSample& s, int bit, uint64_t* v) {
  if (!((s.regs_mask >> bit) & 1)) return false;
  size_t i = static_cast<size_t>(__builtin_popcountll(s.regs_mask & ((1ull << bit) - 1)));
  if ((i + 1) * 8 > s.regs.size()) return false;
  *v = Load<uint64_t>(s.regs.data() + i * 8, s.swap);
  return true;
}

// A DIE's function name as binutils' addr2line prints it: the linkage name (demangled, as perf
// then does) when DWARF has one, else DW_AT_name; both through abstract origins.
std::string DieName(Dwarf_Die* die) {
  Dwarf_Attribute a;
  for (int at : {DW_AT_linkage_name, DW_AT_MIPS_linkage_name}) {
    if (dwarf_attr_integrate(die, at, &a)) {
      if (const char* s = dwarf_formstring(&a)) return symbolize::Demangle(s);
    }
  }
  if (dwarf_attr_integrate(die, DW_AT_name, &a)) {
    if (const char* s = dwarf_formstring(&a)) return s;
  }
  return "??";
}

// Assembler CUs (glibc's string functions) describe aliases as sibling subprograms with the
// same range; binutils' addr2line names the last of them, libdw finds the first.
Dwarf_Die* LastAlias(Dwarf_Die* cu, Dwarf_Die* sub) {
  Dwarf_Word lang = 0;
  Dwarf_Attribute a;
  if (!dwarf_attr(cu, DW_AT_language, &a) || dwarf_formudata(&a, &lang) != 0 ||
      lang != DW_LANG_Mips_Assembler) {
    return sub;
  }
  Dwarf_Addr lo, hi;
  if (dwarf_lowpc(sub, &lo) != 0 || dwarf_highpc(sub, &hi) != 0) return sub;
  static thread_local Dwarf_Die last;
  Dwarf_Die cur = *sub, next;
  last = *sub;
  while (dwarf_siblingof(&cur, &next) == 0) {
    cur = next;
    Dwarf_Addr l2, h2;
    if (dwarf_tag(&cur) == DW_TAG_subprogram && dwarf_lowpc(&cur, &l2) == 0 &&
        dwarf_highpc(&cur, &h2) == 0 && l2 == lo && h2 == hi) {
      last = cur;
    }
  }
  return &last;
}

}  // namespace

// A process: the modules reported so far, and the sample being unwound (memory reads).
struct Unwinder::Proc final : StepContext {
  struct Mod {
    uint64_t lo, hi, bias;
    ElfFile* file;
  };
  Unwinder* owner = nullptr;
  int32_t pid = -1;
  bool attached = false;  // a sample's pc fell into a module (libdwfl: dwfl_attach_state)
  std::vector<std::pair<uint64_t, uint64_t>> reported;  // executable maps, also files not found
  std::vector<Mod> mods;
  // The sample being unwound.
  const UserSample* s = nullptr;
  uint64_t sp = 0;
  bool is32 = false;
  bool edge_failed = false;  // a stack read past the dump's end

  bool Reported(uint64_t addr) const {
    for (const auto& [lo, hi] : reported) {
      if (addr >= lo && addr < hi) return true;
    }
    return false;
  }

  // Reports the module holding `addr`, once.
  void ReportAt(uint64_t addr) {
    if (Reported(addr)) return;
    std::optional<Module> m = owner->source_.FindModule(pid, addr);
    if (!m) return;
    reported.emplace_back(m->start, m->end);
    if (m->elf.empty()) return;
    ElfFile* f = owner->FileFor(*m);
    Mod mod{0, 0, 0, f};
    if (f && f->Layout(m->start, m->pgoff, &mod.bias, &mod.lo, &mod.hi)) mods.push_back(mod);
  }

  bool ModuleAt(uint64_t addr, ElfFile** file, uint64_t* bias) override {
    for (const Mod& m : mods) {
      if (addr >= m.lo && addr < m.hi) {
        *file = m.file;
        *bias = m.bias;
        return true;
      }
    }
    return false;
  }

  // A word of the copied stack, else of the ELF file mapped at addr.
  bool Read(uint64_t addr, uint64_t* result) override {
    const uint64_t end = sp + std::min<uint64_t>(s->dyn_size, s->stack.size());
    // As perf 6.1 (libunwind's access_mem): the last word of the dump is never read. (perf
    // 6.1 does not unwind the i386 ABI at all; there, every whole word of the dump is read.)
    if (addr >= sp && addr < end && (is32 ? end - addr >= 4 : end - addr > 8)) {
      const char* p = s->stack.data() + (addr - sp);
      *result = is32 ? Load<uint32_t>(p, s->swap) : Load<uint64_t>(p, s->swap);
      return true;
    }
    if (addr >= sp && addr - sp < kStackSpan) {
      edge_failed = true;
      return false;
    }
    ReportAt(addr);
    ElfFile* file = nullptr;
    uint64_t bias = 0;
    return ModuleAt(addr, &file, &bias) && file->Read(addr - bias, is32 ? 4 : 8, result);
  }

  // Whether the CFI row at `addr` is a signal frame's (augmentation "S": __restore_rt).
  bool IsSignalFrame(uint64_t addr) {
    ElfFile* file = nullptr;
    uint64_t bias = 0;
    if (!ModuleAt(addr, &file, &bias)) return false;
    for (bool debug_frame : {false, true}) {
      if (const FrameRules* r = file->Rules(addr - bias, debug_frame)) return r->signal;
    }
    return false;
  }
};

Unwinder::Unwinder(ModuleSource& source, int max_frames)
    : source_(source), max_frames_(max_frames < 1 ? 1 : max_frames) {}

Unwinder::~Unwinder() = default;

Unwinder::Proc* Unwinder::GetProc(int32_t pid) {
  std::unique_ptr<Proc>& p = procs_[pid];
  if (!p) {
    p = std::make_unique<Proc>();
    p->owner = this;
    p->pid = pid;
  }
  return p.get();
}

ElfFile* Unwinder::FileFor(const Module& m) {
  auto [it, inserted] = elf_files_.try_emplace(m.elf);
  if (inserted) it->second = ElfFile::Open(m.elf, m.debug);
  return it->second.get();
}

void Unwinder::OnMmap(int32_t pid, uint64_t start, uint64_t end) {
  auto it = procs_.find(pid);
  if (it == procs_.end()) return;
  for (const auto& [lo, hi] : it->second->reported) {
    if (start < hi && lo < end) {
      procs_.erase(it);
      return;
    }
  }
}

void Unwinder::Forget(int32_t pid) { procs_.erase(pid); }

void Unwinder::DropFiles() {
  procs_.clear();
  inline_cache_.clear();
  dwarf_files_.clear();
  elf_files_.clear();
}

// The frames from the sample's registers, leaf first, as tk's libdwfl callback took them
// from dwfl_getthread_frames: a frame's module is reported before the step from it; asking
// whether a frame is an activation (for its lookup address) takes the step to its caller
// first, so a stack read failing there belongs to the frame and counts as the dump edge
// when no caller comes.
StopReason Unwinder::Walk(Proc* p, const UserSample& s, std::vector<UnwoundFrame>* out) {
  const unsigned sp_reg = p->is32 ? kDwarfSp32 : kDwarfSp64;
  FrameState cur, next;
  cur.initial = true;
  uint64_t ip = 0;
  PerfReg(s, kPerfIp, &ip);
  const int* map = p->is32 ? kDwarfToPerf32 : kDwarfToPerf64;
  for (unsigned i = 0, n = p->is32 ? 9 : 17; i < n; ++i) {
    uint64_t v = 0;
    PerfReg(s, map[i], &v);  // registers not sampled are 0
    cur.regs.Set(i, p->is32 ? (v & 0xffffffffu) : v);
  }
  cur.pc = ip;
  uint64_t last_sp = p->sp, prev_lookup = 0;
  for (;;) {
    p->ReportAt(cur.pc);
    p->edge_failed = false;
    bool stepped = false, have_next = false, activation = cur.initial || cur.signal;
    if (!activation) {
      have_next = Step(*p, p->is32, cur, &next);
      stepped = true;
      activation = have_next && next.pc_state == FrameState::Pc::kSet && next.signal;
    }
    if (cur.pc == 0) return StopReason::kComplete;
    uint64_t sp = 0;
    if (!out->empty() && cur.regs.Get(sp_reg, &sp)) {
      if (sp <= last_sp) return StopReason::kNoInfo;  // a CFI loop or garbage: SP must grow
      last_sp = sp;
    }
    // Both a signal trampoline's frame and the frame it interrupted are activations; perf 6.1
    // (libunwind) looks up only the interrupted one at its exact pc, and the trampoline's at
    // return address − 1 (glibc puts a nop before __restore_rt for this).
    const bool exact = out->empty() || (activation && p->IsSignalFrame(prev_lookup));
    prev_lookup = exact ? cur.pc : cur.pc - 1;
    out->push_back(UnwoundFrame{cur.pc, exact});
    if (static_cast<int>(out->size()) >= max_frames_) return StopReason::kMaxDepth;
    if (!stepped) have_next = Step(*p, p->is32, cur, &next);
    if (!have_next || next.pc_state != FrameState::Pc::kSet) {
      if (p->edge_failed) return StopReason::kDumpEdge;
      return have_next && next.pc_state == FrameState::Pc::kUndefined ? StopReason::kComplete
                                                                       : StopReason::kNoInfo;
    }
    cur = next;
  }
}

StopReason Unwinder::Unwind(const UserSample& s, std::vector<UnwoundFrame>* out) {
  out->clear();
  const bool is32 = s.abi == kAbi32;
  uint64_t ip = 0, sp = 0;
  if ((s.abi != kAbi64 && !is32) || !PerfReg(s, kPerfIp, &ip) || !PerfReg(s, kPerfSp, &sp)) {
    stats_.Add(StopReason::kNoRegs);
    return StopReason::kNoRegs;
  }
  Proc* p = GetProc(s.pid);
  p->s = &s;
  p->is32 = is32;
  p->sp = is32 ? (sp & 0xffffffffu) : sp;
  p->edge_failed = false;
  StopReason r = StopReason::kNoInfo;
  p->ReportAt(ip);
  ElfFile* file = nullptr;
  uint64_t bias = 0;
  if (!p->attached) p->attached = p->ModuleAt(ip, &file, &bias);
  if (p->attached) r = Walk(p, s, out);
  if (out->empty()) out->push_back(UnwoundFrame{ip, true});  // perf prints the leaf always
  p->s = nullptr;
  stats_.Add(r);
  return r;
}

struct Unwinder::DwarfFile {
  int fd = -1;
  Elf* elf = nullptr;
  Dwarf* dwarf = nullptr;
  ~DwarfFile() {
    if (dwarf) dwarf_end(dwarf);
    if (elf) elf_end(elf);
    if (fd >= 0) ::close(fd);
  }
};

// The DWARF of a module for inline frames: the separate debug file, else the ELF itself;
// opened once per file for all processes.
Dwarf* Unwinder::DwarfFor(const std::string& path) {
  std::unique_ptr<DwarfFile>& f = dwarf_files_[path];
  if (!f) {
    f = std::make_unique<DwarfFile>();
    f->fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (f->fd >= 0) f->elf = elf_begin(f->fd, ELF_C_READ_MMAP, nullptr);
    if (f->elf) f->dwarf = dwarf_begin_elf(f->elf, DWARF_C_READ, nullptr);
  }
  return f->dwarf;
}

const std::vector<std::string_view>& Unwinder::InlineNames(int32_t pid, uint64_t addr) {
  auto pit = procs_.find(pid);
  ElfFile* file = nullptr;
  uint64_t bias = 0;
  if (pit == procs_.end() || !pit->second->ModuleAt(addr, &file, &bias)) return no_names_;
  const std::string& path = file->debug_path().empty() ? file->path() : file->debug_path();
  const uint64_t vaddr = addr - bias;  // a debug file shares the ELF's link addresses
  auto& per_file = inline_cache_[file];
  auto [it, inserted] = per_file.try_emplace(vaddr);
  if (!inserted) return it->second;
  Dwarf* dw = DwarfFor(path);
  Dwarf_Die cu_die;
  if (!dw || !dwarf_addrdie(dw, vaddr, &cu_die)) return it->second;
  Dwarf_Die* cu = &cu_die;
  // dwarf_getscopes gives the scopes around addr, innermost first, but continues from an
  // inlined subroutine into its abstract definition; the caller of an inlined instance is
  // found by dwarf_getscopes_die on the instance (its concrete parents).
  Dwarf_Die* scopes = nullptr;
  int n = dwarf_getscopes(cu, vaddr, &scopes);
  for (int depth = 0; n > 0 && depth < 64; ++depth) {
    int i = 0;
    while (i < n && dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine &&
           dwarf_tag(&scopes[i]) != DW_TAG_subprogram) {
      ++i;
    }
    if (i == n) break;
    if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram) {
      it->second.push_back(names_.Intern(DieName(LastAlias(cu, &scopes[i]))));
      break;
    }
    it->second.push_back(names_.Intern(DieName(&scopes[i])));
    Dwarf_Die inlined = scopes[i];
    std::free(scopes);
    scopes = nullptr;
    n = dwarf_getscopes_die(&inlined, &scopes);  // [inlined, its parents..., CU]
    if (n > 0) {
      // Skip the instance itself.
      std::memmove(&scopes[0], &scopes[1], sizeof(Dwarf_Die) * static_cast<size_t>(n - 1));
      --n;
    }
  }
  std::free(scopes);
  return it->second;
}

}  // namespace tk::parsers::unwind
