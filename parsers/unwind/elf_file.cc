#include "parsers/unwind/elf_file.h"

#include <fcntl.h>
#include <gelf.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

namespace tk::parsers::unwind {
namespace {

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

Elf* OpenElf(const std::string& path, int* fd) {
  static const bool version_set = elf_version(EV_CURRENT) != EV_NONE;  // before any elf_begin
  if (!version_set) return nullptr;
  *fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (*fd < 0) return nullptr;
  Elf* elf = elf_begin(*fd, ELF_C_READ_MMAP, nullptr);
  if (elf && elf_kind(elf) != ELF_K_ELF) {
    elf_end(elf);
    elf = nullptr;
  }
  return elf;
}

}  // namespace

std::unique_ptr<ElfFile> ElfFile::Open(const std::string& elf, const std::string& debug) {
  std::unique_ptr<ElfFile> f(new ElfFile());
  f->path_ = elf;
  f->debug_ = debug;
  f->elf_ = OpenElf(elf, &f->fd_);
  GElf_Ehdr eh;
  size_t phnum = 0;
  if (!f->elf_ || !gelf_getehdr(f->elf_, &eh) || elf_getphdrnum(f->elf_, &phnum) != 0) {
    return nullptr;
  }
  if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) return nullptr;
  f->exec_ = eh.e_type == ET_EXEC;
  f->is32_ = eh.e_ident[EI_CLASS] == ELFCLASS32;
  for (size_t i = 0; i < phnum; ++i) {
    GElf_Phdr ph;
    if (!gelf_getphdr(f->elf_, static_cast<int>(i), &ph)) return nullptr;
    if (ph.p_type == PT_LOAD) {
      f->loads_.push_back(Load{ph.p_vaddr, ph.p_memsz, ph.p_offset, ph.p_filesz, ph.p_align});
    }
  }
  if (f->loads_.empty()) return nullptr;
  f->raw_ = elf_rawfile(f->elf_, &f->raw_size_);
  f->has_eh_frame_ = HasSection(f->elf_, ".eh_frame");
  return f;
}

ElfFile::~ElfFile() {
  if (eh_.cfi) dwarf_cfi_end(eh_.cfi);  // debug_frame_.cfi belongs to dwarf_
  if (dwarf_) dwarf_end(dwarf_);
  if (debug_elf_) elf_end(debug_elf_);
  if (elf_) elf_end(elf_);
  if (debug_fd_ >= 0) ::close(debug_fd_);
  if (fd_ >= 0) ::close(fd_);
}

// As libdwfl's dwfl_report_elf(base = map_start - pgoff, add_p_vaddr = false): an ET_DYN
// module's first PT_LOAD (page-aligned) lands at base; an ET_EXEC one is at its link address.
bool ElfFile::Layout(uint64_t map_start, uint64_t pgoff, uint64_t* bias, uint64_t* lo,
                     uint64_t* hi) const {
  const Load& first = loads_.front();
  const uint64_t vaddr = first.vaddr & (0 - first.align);
  const Load* last = nullptr;
  for (size_t i = loads_.size(); i-- > 0;) {
    if (loads_[i].vaddr + loads_[i].memsz > 0) {
      last = &loads_[i];
      break;
    }
  }
  if (!last) return false;
  if (exec_) {
    *bias = 0;
    *lo = vaddr;
  } else {
    *lo = map_start - pgoff;
    *bias = *lo - vaddr;
  }
  *hi = *bias + last->vaddr + last->memsz;
  return *lo < *hi;
}

bool ElfFile::Read(uint64_t vaddr, unsigned size, uint64_t* out) const {
  if (!raw_) return false;
  for (const Load& l : loads_) {
    if (vaddr < l.vaddr || vaddr - l.vaddr >= l.filesz) continue;
    uint64_t off = l.offset + (vaddr - l.vaddr);
    if (off > raw_size_ || raw_size_ - off < size) return false;
    *out = 0;
    std::memcpy(out, raw_ + off, size);
    return true;
  }
  return false;
}

// libdwfl's CFI sources: .eh_frame of the ELF (dwfl_module_eh_cfi), then .debug_frame of the
// module's DWARF (dwfl_module_dwarf_cfi): the ELF's own DWARF, else the separate debug file,
// which tk hands libdwfl only for modules without .eh_frame (reading a distro debug file's
// .debug_frame for every module would cost more than the unwinding, for no CFI).
Dwarf_CFI* ElfFile::CfiFor(bool debug_frame) {
  Cfi& c = debug_frame ? debug_frame_ : eh_;
  if (c.opened) return c.cfi;
  c.opened = true;
  if (!debug_frame) {
    c.cfi = dwarf_getcfi_elf(elf_);
    return c.cfi;
  }
  dwarf_ = dwarf_begin_elf(elf_, DWARF_C_READ, nullptr);
  if (!dwarf_ && !has_eh_frame_ && !debug_.empty()) {
    debug_elf_ = OpenElf(debug_, &debug_fd_);
    if (debug_elf_) dwarf_ = dwarf_begin_elf(debug_elf_, DWARF_C_READ, nullptr);
  }
  c.cfi = dwarf_ ? dwarf_getcfi(dwarf_) : nullptr;
  return c.cfi;
}

uint32_t ElfFile::AddOps(const Dwarf_Op* ops, size_t n) {
  uint32_t begin = static_cast<uint32_t>(pool_.size());
  pool_.insert(pool_.end(), ops, ops + n);
  return begin;
}

uint32_t ElfFile::Copy(Dwarf_Frame* frame) {
  FrameRules r;
  Dwarf_Addr start = 0, end = 0;
  int ra = dwarf_frame_info(frame, &start, &end, &r.signal);
  r.ra = ra < 0 ? ~0u : static_cast<unsigned>(ra);
  Dwarf_Op* ops = nullptr;
  size_t n = 0;
  if (dwarf_frame_cfa(frame, &ops, &n) == 0 && n > 0) {
    r.cfa = {FrameRules::kOps, AddOps(ops, n), static_cast<uint32_t>(n)};
  }
  const unsigned nregs = is32_ ? 9 : kMaxRegs;
  for (unsigned i = 0; i < nregs; ++i) {
    Dwarf_Op mem[3];
    if (dwarf_frame_register(frame, static_cast<int>(i), mem, &ops, &n) != 0) continue;
    if (n > 0) {
      r.regs[i] = {FrameRules::kOps, AddOps(ops, n), static_cast<uint32_t>(n)};
    } else if (ops == mem) {
      r.regs[i].kind = FrameRules::kUndefined;
    } else if (ops == nullptr) {
      r.regs[i].kind = FrameRules::kSame;
    }
  }
  rows_.push_back(r);
  return static_cast<uint32_t>(rows_.size() - 1);
}

const FrameRules* ElfFile::Rules(uint64_t vaddr, bool debug_frame) {
  Cfi& c = debug_frame ? debug_frame_ : eh_;
  if (vaddr == c.last_pc) return c.last_row == kNone ? nullptr : &rows_[c.last_row];
  c.last_pc = vaddr;
  c.last_row = kNone;
  auto [it, inserted] = c.by_pc.try_emplace(vaddr, kNone);
  if (!inserted) {
    c.last_row = it->second;
    return it->second == kNone ? nullptr : &rows_[it->second];
  }
  Dwarf_CFI* cfi = CfiFor(debug_frame);
  Dwarf_Frame* frame = nullptr;
  if (!cfi || dwarf_cfi_addrframe(cfi, vaddr, &frame) != 0) return nullptr;
  Dwarf_Addr start = 0, end = 0;
  bool signal = false;
  dwarf_frame_info(frame, &start, &end, &signal);
  auto [row, fresh] = c.by_start.try_emplace(std::pair(start, end), 0);
  if (fresh) row->second = Copy(frame);
  std::free(frame);
  c.by_pc[vaddr] = c.last_row = row->second;
  return &rows_[row->second];
}

}  // namespace tk::parsers::unwind
