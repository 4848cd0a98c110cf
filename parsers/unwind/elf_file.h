// A module's ELF file as the unwinder needs it, opened once for every process that maps it:
// its load layout (PT_LOAD segments, for reads of code and read-only data and for the load
// bias), and its CFI rows, looked up with libdw (dwarf_cfi_addrframe on .eh_frame, else
// .debug_frame) and copied out once per address.
//
// A CFI row gives, at one code address, the rule for the canonical frame address (CFA: a
// DWARF expression, usually "register + offset") and for each register of the caller: undefined
// (the return address column undefined: the outermost frame), same value, or a DWARF
// expression (libdw's dwarf_frame_register turns "saved at CFA+N" into [call_frame_cfa,
// plus_uconst N], a location to read). libdw parses the CFI and runs the CIE/FDE programs on
// every call and keeps its FDE cache per Dwarf_CFI: doing that per frame of every sample, and
// per process (a Dwfl per process), was most of the unwinding time on system-wide recordings.
#ifndef TK_PARSERS_UNWIND_ELF_FILE_H_
#define TK_PARSERS_UNWIND_ELF_FILE_H_

#include <elfutils/libdw.h>

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"

namespace tk::parsers::unwind {

// Registers libdw unwinds: x86_64 has 17 (rax..r15, rip), i386 9 (eax..edi, eip).
inline constexpr unsigned kMaxRegs = 17;

// One CFI row, copied out of libdw's Dwarf_Frame. Ops live in the ElfFile's pool.
struct FrameRules {
  enum Kind : uint8_t {
    kUnset,      // libdw could not give a rule (the register stays unknown in the caller)
    kUndefined,  // DW_CFA_undefined (for the return address column: the outermost frame)
    kSame,       // DW_CFA_same_value
    kOps,        // a DWARF expression: ops [begin, begin + n)
  };
  struct Rule {
    Kind kind = kUnset;
    uint32_t begin = 0, n = 0;
  };
  bool signal = false;  // the CIE's "S" augmentation: a signal trampoline (__restore_rt)
  unsigned ra = 0;      // the return address column
  Rule cfa;             // kOps, or kUnset when the CFA has no rule
  Rule regs[kMaxRegs];
};

class ElfFile {
 public:
  // Opens `elf` (nullptr when it is not a loadable ELF file). `debug`: its separate
  // debuginfo, the .debug_frame source when the ELF has no .eh_frame and no DWARF itself.
  static std::unique_ptr<ElfFile> Open(const std::string& elf, const std::string& debug);
  ~ElfFile();
  ElfFile(const ElfFile&) = delete;
  ElfFile& operator=(const ElfFile&) = delete;

  // Load layout as libdwfl's dwfl_report_elf computes it for a map at `map_start` with file
  // offset `pgoff`: *bias = runtime address − link address, [*lo, *hi) the module's range.
  bool Layout(uint64_t map_start, uint64_t pgoff, uint64_t* bias, uint64_t* lo,
              uint64_t* hi) const;
  // `size` (4 or 8) bytes of the file at link address `vaddr` (PT_LOAD file bytes only).
  bool Read(uint64_t vaddr, unsigned size, uint64_t* out) const;
  // The CFI row at link address `vaddr` from .eh_frame (`debug_frame` false) or
  // .debug_frame; nullptr when that CFI does not cover it. Cached per address.
  const FrameRules* Rules(uint64_t vaddr, bool debug_frame);
  const Dwarf_Op* ops() const { return pool_.data(); }

  const std::string& path() const { return path_; }
  const std::string& debug_path() const { return debug_; }

 private:
  struct Cfi {
    bool opened = false;
    Dwarf_CFI* cfi = nullptr;
    absl::flat_hash_map<uint64_t, uint32_t> by_pc;     // address -> row index or kNone
    uint64_t last_pc = ~uint64_t{0};                   // the previous lookup (recursion)
    uint32_t last_row = 0;
    absl::flat_hash_map<std::pair<uint64_t, uint64_t>, uint32_t> by_start;  // row range -> row index
  };
  static constexpr uint32_t kNone = ~0u;
  ElfFile() = default;
  Dwarf_CFI* CfiFor(bool debug_frame);
  uint32_t Copy(Dwarf_Frame* frame);
  uint32_t AddOps(const Dwarf_Op* ops, size_t n);

  std::string path_, debug_;
  int fd_ = -1, debug_fd_ = -1;
  Elf* elf_ = nullptr;
  Elf* debug_elf_ = nullptr;
  Dwarf* dwarf_ = nullptr;  // the DWARF holding .debug_frame (the ELF's or the debug file's)
  const char* raw_ = nullptr;
  size_t raw_size_ = 0;
  bool exec_ = false, has_eh_frame_ = false, is32_ = false;
  struct Load {
    uint64_t vaddr, memsz, offset, filesz, align;
  };
  std::vector<Load> loads_;
  Cfi eh_, debug_frame_;
  std::deque<FrameRules> rows_;  // stable addresses: Rules' results outlive later lookups
  std::vector<Dwarf_Op> pool_;
};

}  // namespace tk::parsers::unwind

#endif  // TK_PARSERS_UNWIND_ELF_FILE_H_
