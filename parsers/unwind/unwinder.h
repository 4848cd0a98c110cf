// Offline DWARF unwinding of `perf record --call-graph dwarf` user stacks with elfutils libdw.
//
// A sample carries the user registers at the interrupt (PERF_SAMPLE_REGS_USER: {u64 abi,
// u64 regs[popcount(mask)]}, packed in mask-bit order of perf's x86 numbering AX BX CX DX SI
// DI BP SP IP FLAGS CS SS DS ES FS GS R8..R15) and a copy of the stack from SP upward
// (PERF_SAMPLE_STACK_USER: {u64 size, u8 data[size], u64 dyn_size}, dyn_size bytes valid).
// The frames are walked with the CFI (.eh_frame, else .debug_frame) of the modules mapped in
// the process, read with libdw (frame_step.h: the step libdwfl's dwfl_getthread_frames takes);
// memory reads come from the copied stack, else from the bytes of the ELF mapped at the
// address.
//
// Per process: the modules reported so far (lazily, when a pc or a read first falls into
// one); an MMAP over a reported range or an exec drops them. Per ELF file, shared by every
// process that maps it: the mapped file and its CFI rows, cached per address (elf_file.h).
// Unwinding stops after `max_frames` frames, when the stack pointer does not grow, at a pc of
// 0, and where CFI, an ELF or stack bytes are missing.
#ifndef TK_PARSERS_UNWIND_UNWINDER_H_
#define TK_PARSERS_UNWIND_UNWINDER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "core/intern.h"

typedef struct Dwarf Dwarf;

namespace tk::parsers::unwind {

class ElfFile;

// An executable map of a process and the files describing it.
struct Module {
  uint64_t start = 0, end = 0, pgoff = 0;
  std::string elf;    // the runtime ELF (loadable bytes, .eh_frame); empty: none found
  std::string debug;  // separate debuginfo (.debug_frame, DWARF); empty: none
};

// Where modules come from (the symbolizer's maps and file search).
class ModuleSource {
 public:
  virtual ~ModuleSource() = default;
  // The executable map of process `pid` that holds `addr`.
  virtual std::optional<Module> FindModule(int32_t pid, uint64_t addr) = 0;
};

// PERF_SAMPLE_REGS_USER ABI values.
inline constexpr uint64_t kAbiNone = 0, kAbi32 = 1, kAbi64 = 2;

struct UserSample {
  int32_t pid = -1, tid = -1;
  uint64_t abi = kAbiNone;
  uint64_t regs_mask = 0;
  std::string_view regs;   // popcount(mask) u64 values, file byte order
  std::string_view stack;  // the dump; the first dyn_size bytes are valid
  uint64_t dyn_size = 0;
  bool swap = false;
};

struct UnwoundFrame {
  uint64_t pc = 0;
  bool exact = false;  // the leaf or a frame interrupted by a signal: look up pc, not pc - 1
};

enum class StopReason {
  kComplete,   // the CFI says the stack ends here (_start, clone3)
  kDumpEdge,   // a return address lies past the copied stack
  kNoInfo,     // no CFI, no ELF, or no map for a pc
  kMaxDepth,   // max_frames reached
  kNoRegs,     // no user registers (abi 0, SP or IP not sampled, record truncated)
};

struct UnwindStats {
  uint64_t complete = 0, dump_edge = 0, no_info = 0, max_depth = 0, no_regs = 0;
  uint64_t total() const { return complete + dump_edge + no_info + max_depth + no_regs; }
  void Add(StopReason r) {
    switch (r) {
      case StopReason::kComplete: ++complete; break;
      case StopReason::kDumpEdge: ++dump_edge; break;
      case StopReason::kNoInfo: ++no_info; break;
      case StopReason::kMaxDepth: ++max_depth; break;
      case StopReason::kNoRegs: ++no_regs; break;
    }
  }
};

class Unwinder {
 public:
  explicit Unwinder(ModuleSource& source, int max_frames = 127);
  ~Unwinder();
  Unwinder(const Unwinder&) = delete;
  Unwinder& operator=(const Unwinder&) = delete;

  // Unwinds one sample's user stack into `out` (leaf first, cleared first).
  StopReason Unwind(const UserSample& s, std::vector<UnwoundFrame>* out);

  // The functions at code address `addr` of process `pid` as DWARF describes them, innermost
  // first: the inlined subroutines around addr, then the subprogram holding them. Empty when
  // no DWARF covers addr. The names live as long as the Unwinder.
  const std::vector<std::string_view>& InlineNames(int32_t pid, uint64_t addr);

  // A map was added to `pid` (its Dwfl is dropped when the range overlaps a reported module).
  void OnMmap(int32_t pid, uint64_t start, uint64_t end);
  // `pid` exec'd or is gone: its Dwfl is dropped.
  void Forget(int32_t pid);

  const UnwindStats& stats() const { return stats_; }

  // Frees the files, CFI rows and processes (no more Unwind or InlineNames calls follow);
  // the names InlineNames returned stay valid.
  void DropFiles();

  struct Proc;

 private:
  struct DwarfFile;
  Proc* GetProc(int32_t pid);
  ElfFile* FileFor(const Module& m);
  Dwarf* DwarfFor(const std::string& path);
  StopReason Walk(Proc* p, const UserSample& s, std::vector<UnwoundFrame>* out);

  ModuleSource& source_;
  int max_frames_;
  absl::flat_hash_map<int32_t, std::unique_ptr<Proc>> procs_;
  // Inline names by (module file, link address), across processes.
  absl::flat_hash_map<const ElfFile*, absl::flat_hash_map<uint64_t, std::vector<std::string_view>>>
      inline_cache_;
  std::vector<std::string_view> no_names_;
  Interner names_;
  absl::flat_hash_map<std::string, std::unique_ptr<DwarfFile>> dwarf_files_;
  absl::flat_hash_map<std::string, std::unique_ptr<ElfFile>> elf_files_;  // null: not an ELF
  UnwindStats stats_;
};

}  // namespace tk::parsers::unwind

#endif  // TK_PARSERS_UNWIND_UNWINDER_H_
