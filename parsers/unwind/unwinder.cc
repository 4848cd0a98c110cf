#include "parsers/unwind/unwinder.h"

#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <deque>

#include "core/byte_reader.h"
#include "parsers/symbolize/demangle.h"

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

// A reported module's files (its Dwfl userdata).
struct ModuleFiles {
  std::string elf, debug;
  bool debug_for_cfi = false;  // the runtime ELF has no .eh_frame: .debug_frame is the CFI
};

// libdw asks for separate debuginfo when a frame's .eh_frame lookup fails. Only modules
// without .eh_frame get it: loading a distro debug file (decompressing its DWARF) for every
// process would cost more than the whole unwinding, for no CFI. Inline frames read the debug
// files through Unwinder::DwarfFor, once per file.
int FindDebuginfo(Dwfl_Module*, void** userdata, const char*, Dwarf_Addr, const char*,
                  const char*, GElf_Word, char** debuginfo_file_name) {
  const ModuleFiles* files = userdata ? static_cast<const ModuleFiles*>(*userdata) : nullptr;
  if (!files || !files->debug_for_cfi || files->debug.empty()) return -1;
  int fd = ::open(files->debug.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd >= 0) *debuginfo_file_name = ::strdup(files->debug.c_str());
  return fd;
}

bool HasSection(Elf* elf, const char* name) {
  size_t shstrndx = 0;
  if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0) return false;
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS) continue;
    const char* n = elf_strptr(elf, shstrndx, sh.sh_name);
    if (n && std::strcmp(n, name) == 0) return true;
  }
  return false;
}

const Dwfl_Callbacks kDwflCallbacks = {
    nullptr,  // find_elf: every module is reported with its file
    FindDebuginfo,
    dwfl_offline_section_address,
    nullptr,
};

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

struct Unwinder::Proc {
  Unwinder* owner = nullptr;
  int32_t pid = -1;
  int max_frames = 127;
  Dwfl* dwfl = nullptr;
  bool attached = false;
  std::vector<std::pair<uint64_t, uint64_t>> reported;  // module ranges, also files not found
  std::deque<ModuleFiles> files;                        // module userdata
  // The sample being unwound.
  const UserSample* s = nullptr;
  Dwarf_Word regs[17] = {};
  unsigned nregs = 0, sp_reg = 0;
  uint64_t sp = 0, ip = 0, last_sp = 0;
  uint64_t prev_lookup = 0;  // the previous frame's lookup address
  bool edge_failed = false;
  std::optional<StopReason> stop;
  std::vector<UnwoundFrame>* out = nullptr;

  ~Proc() {
    if (dwfl) dwfl_end(dwfl);
  }

  bool Reported(uint64_t addr) const {
    for (const auto& [lo, hi] : reported) {
      if (addr >= lo && addr < hi) return true;
    }
    return false;
  }

  // Reports the module holding `addr` to the Dwfl, once.
  void ReportAt(uint64_t addr) {
    if (Reported(addr)) return;
    std::optional<Module> m = owner->source_.FindModule(pid, addr);
    if (!m) return;
    reported.emplace_back(m->start, m->end);
    if (m->elf.empty()) return;
    dwfl_report_begin_add(dwfl);
    Dwfl_Module* mod = dwfl_report_elf(dwfl, m->elf.c_str(), m->elf.c_str(), -1,
                                       m->start - m->pgoff, false);
    dwfl_report_end(dwfl, nullptr, nullptr);
    if (!mod) return;
    void** userdata = nullptr;
    dwfl_module_info(mod, &userdata, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr);
    if (!userdata) return;
    Dwarf_Addr bias = 0;
    files.push_back(ModuleFiles{m->elf, m->debug,
                                !HasSection(dwfl_module_getelf(mod, &bias), ".eh_frame")});
    *userdata = &files.back();
  }

  // Whether the CFI at `addr` is a signal frame's (augmentation "S": __restore_rt).
  bool IsSignalFrame(uint64_t addr) {
    Dwfl_Module* mod = dwfl_addrmodule(dwfl, addr);
    if (!mod) return false;
    bool signal = false;
    for (int pass = 0; pass < 2 && !signal; ++pass) {
      Dwarf_Addr bias = 0;
      Dwarf_CFI* cfi = pass == 0 ? dwfl_module_eh_cfi(mod, &bias) : dwfl_module_dwarf_cfi(mod, &bias);
      Dwarf_Frame* frame = nullptr;
      if (!cfi || dwarf_cfi_addrframe(cfi, addr - bias, &frame) != 0) continue;
      Dwarf_Addr start, end;
      bool sig = false;
      dwarf_frame_info(frame, &start, &end, &sig);
      std::free(frame);
      signal = sig;
      break;
    }
    return signal;
  }

  // A word of the copied stack, else of the ELF file mapped at addr.
  bool Read(uint64_t addr, Dwarf_Word* result) {
    uint64_t end = sp + std::min<uint64_t>(s->dyn_size, s->stack.size());
    // As perf 6.1 (libunwind's access_mem): the last word of the dump is never read.
    if (addr >= sp && addr < end && end - addr > 8) {
      *result = Load<uint64_t>(s->stack.data() + (addr - sp), s->swap);
      return true;
    }
    if (addr >= sp && addr - sp < kStackSpan) {
      edge_failed = true;
      return false;
    }
    ReportAt(addr);
    Dwfl_Module* mod = dwfl_addrmodule(dwfl, addr);
    Dwarf_Addr bias = 0;
    Elf* elf = mod ? dwfl_module_getelf(mod, &bias) : nullptr;
    size_t phnum = 0, size = 0;
    const char* raw = elf ? elf_rawfile(elf, &size) : nullptr;
    if (!raw || elf_getphdrnum(elf, &phnum) != 0) return false;
    uint64_t vaddr = addr - bias;
    for (size_t i = 0; i < phnum; ++i) {
      GElf_Phdr ph;
      if (!gelf_getphdr(elf, static_cast<int>(i), &ph) || ph.p_type != PT_LOAD) continue;
      if (vaddr < ph.p_vaddr || vaddr - ph.p_vaddr >= ph.p_filesz) continue;
      uint64_t off = ph.p_offset + (vaddr - ph.p_vaddr);
      if (off > size || size - off < 8) return false;
      std::memcpy(result, raw + off, 8);
      return true;
    }
    return false;
  }
};

namespace {

using Proc = Unwinder::Proc;

pid_t NextThread(Dwfl*, void* arg, void** thread_argp) {
  if (*thread_argp) return 0;
  Proc* p = static_cast<Proc*>(arg);
  *thread_argp = p;
  return p->s && p->s->tid > 0 ? p->s->tid : 1;
}

bool GetThread(Dwfl*, pid_t, void* arg, void** thread_argp) {
  *thread_argp = arg;
  return true;
}

bool MemoryRead(Dwfl*, Dwarf_Addr addr, Dwarf_Word* result, void* arg) {
  return static_cast<Proc*>(arg)->Read(addr, result);
}

bool SetInitialRegisters(Dwfl_Thread* thread, void* arg) {
  Proc* p = static_cast<Proc*>(arg);
  if (!dwfl_thread_state_registers(thread, 0, p->nregs, p->regs)) return false;
  dwfl_thread_state_register_pc(thread, p->ip);
  return true;
}

const Dwfl_Thread_Callbacks kThreadCallbacks = {
    NextThread, GetThread, MemoryRead, SetInitialRegisters, nullptr, nullptr,
};

int OnFrame(Dwfl_Frame* frame, void* arg) {
  Proc* p = static_cast<Proc*>(arg);
  Dwarf_Addr pc = 0;
  bool activation = false;
  // The module is reported before isactivation is asked: answering it may look at the CFI.
  if (!dwfl_frame_pc(frame, &pc, nullptr)) return DWARF_CB_ABORT;
  p->ReportAt(pc);
  // Asking isactivation unwinds one step further: a stack read failing there belongs to the
  // caller's frame, and counts when no further frame comes.
  p->edge_failed = false;
  if (!dwfl_frame_pc(frame, &pc, &activation)) return DWARF_CB_ABORT;
  if (pc == 0) {
    p->stop = StopReason::kComplete;
    return DWARF_CB_ABORT;
  }
  if (!p->out->empty()) {
    Dwarf_Word sp = 0;
    if (dwfl_frame_reg(frame, p->sp_reg, &sp) == 0) {
      if (sp <= p->last_sp) {  // a CFI loop, or garbage: the stack must grow toward callers
        p->stop = StopReason::kNoInfo;
        return DWARF_CB_ABORT;
      }
      p->last_sp = sp;
    }
  }
  // libdw calls both a signal trampoline's frame and the frame it interrupted activations;
  // perf 6.1 (libunwind) looks up only the interrupted one at its exact pc, and the
  // trampoline's at return address − 1 (glibc puts a nop before __restore_rt for this).
  bool exact = p->out->empty() || (activation && p->IsSignalFrame(p->prev_lookup));
  p->prev_lookup = exact ? pc : pc - 1;
  p->out->push_back(UnwoundFrame{pc, exact});
  if (static_cast<int>(p->out->size()) >= p->max_frames) {
    p->stop = StopReason::kMaxDepth;
    return DWARF_CB_ABORT;
  }
  return DWARF_CB_OK;
}

}  // namespace

Unwinder::Unwinder(ModuleSource& source, int max_frames)
    : source_(source), max_frames_(max_frames < 1 ? 1 : max_frames) {}

Unwinder::~Unwinder() = default;

Unwinder::Proc* Unwinder::GetProc(int32_t pid) {
  std::unique_ptr<Proc>& p = procs_[pid];
  if (!p) {
    p = std::make_unique<Proc>();
    p->owner = this;
    p->pid = pid;
    p->max_frames = max_frames_;
    p->dwfl = dwfl_begin(&kDwflCallbacks);
  }
  return p.get();
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

StopReason Unwinder::Unwind(const UserSample& s, std::vector<UnwoundFrame>* out) {
  out->clear();
  const bool is32 = s.abi == kAbi32;
  uint64_t ip = 0, sp = 0;
  if ((s.abi != kAbi64 && !is32) || !PerfReg(s, kPerfIp, &ip) || !PerfReg(s, kPerfSp, &sp)) {
    ++stats_.no_regs;
    return StopReason::kNoRegs;
  }
  Proc* p = GetProc(s.pid);
  p->s = &s;
  p->ip = ip;
  p->sp = sp;
  p->last_sp = sp;
  p->nregs = is32 ? 9 : 17;
  p->sp_reg = is32 ? kDwarfSp32 : kDwarfSp64;
  const int* map = is32 ? kDwarfToPerf32 : kDwarfToPerf64;
  for (unsigned i = 0; i < p->nregs; ++i) {
    uint64_t v = 0;
    PerfReg(s, map[i], &v);  // registers not sampled stay 0
    p->regs[i] = is32 ? (v & 0xffffffffu) : v;
  }
  p->edge_failed = false;
  p->stop.reset();
  p->out = out;
  StopReason r = StopReason::kNoInfo;
  if (p->dwfl) {
    p->ReportAt(ip);
    if (!p->attached && dwfl_addrmodule(p->dwfl, ip)) {
      // libdw picks the architecture (x86_64 or i386) from the first module's ELF.
      p->attached = dwfl_attach_state(p->dwfl, nullptr, s.pid > 0 ? s.pid : 1, &kThreadCallbacks, p);
    }
    if (p->attached) {
      int rc = dwfl_getthread_frames(p->dwfl, s.tid > 0 ? s.tid : 1, OnFrame, p);
      if (p->stop) {
        r = *p->stop;
      } else if (p->edge_failed) {
        r = StopReason::kDumpEdge;
      } else {
        r = rc == 0 ? StopReason::kComplete : StopReason::kNoInfo;
      }
    }
  }
  if (out->empty()) out->push_back(UnwoundFrame{ip, true});  // perf prints the leaf always
  p->s = nullptr;
  p->out = nullptr;
  switch (r) {
    case StopReason::kComplete: ++stats_.complete; break;
    case StopReason::kDumpEdge: ++stats_.dump_edge; break;
    case StopReason::kNoInfo: ++stats_.no_info; break;
    case StopReason::kMaxDepth: ++stats_.max_depth; break;
    case StopReason::kNoRegs: ++stats_.no_regs; break;
  }
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
  if (pit == procs_.end() || !pit->second->dwfl) return no_names_;
  Dwfl_Module* mod = dwfl_addrmodule(pit->second->dwfl, addr);
  void** userdata = nullptr;
  if (!mod || !dwfl_module_info(mod, &userdata, nullptr, nullptr, nullptr, nullptr, nullptr,
                                nullptr) || !userdata || !*userdata) {
    return no_names_;
  }
  const ModuleFiles& files = *static_cast<const ModuleFiles*>(*userdata);
  Dwarf_Addr bias = 0;
  if (!dwfl_module_getelf(mod, &bias)) return no_names_;
  const std::string& path = files.debug.empty() ? files.elf : files.debug;
  const uint64_t vaddr = addr - bias;  // a debug file shares the ELF's link addresses
  auto& per_file = inline_cache_[path];
  auto [it, inserted] = per_file.try_emplace(vaddr);
  if (!inserted) return it->second;
  Dwarf* dw = DwarfFor(path);
  Dwarf_Die cu_die;
  if (!dw || !dwarf_addrdie(dw, vaddr, &cu_die)) return it->second;
  Dwarf_Die* cu = &cu_die;
  addr = vaddr;
  bias = 0;
  // dwarf_getscopes gives the scopes around addr, innermost first, but continues from an
  // inlined subroutine into its abstract definition; the caller of an inlined instance is
  // found by dwarf_getscopes_die on the instance (its concrete parents).
  Dwarf_Die* scopes = nullptr;
  int n = dwarf_getscopes(cu, addr - bias, &scopes);
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
