// One unwinding step, from a frame's registers to its caller's, with the CFI rows of
// ElfFile. It does what libdwfl's __libdwfl_frame_unwind does (elfutils 0.188, the library
// tk first unwound with, and whose results the fixtures pin), on rows cached across samples
// and processes instead of a libdwfl Dwfl per process:
//   - the row is looked up at the frame's pc, minus 1 unless the frame is the sample's own
//     (initial) or a signal frame's (its pc is not a return address);
//   - .eh_frame first, then .debug_frame; the caller's registers are the rules evaluated on
//     the frame's registers and memory, the caller's pc its return address column (0 or
//     undefined: the outermost frame);
//   - no row at all: the frame-pointer fallback of elfutils' x86_64/i386 backends
//     (pc = [fp + word], sp = fp + 2 words, fp = [fp]).
#ifndef TK_PARSERS_UNWIND_FRAME_STEP_H_
#define TK_PARSERS_UNWIND_FRAME_STEP_H_

#include <cstdint>

#include "parsers/unwind/elf_file.h"

namespace tk::parsers::unwind {

// Registers by DWARF number, with which of them are known.
struct RegSet {
  uint64_t v[kMaxRegs] = {};
  uint32_t known = 0;
  bool Get(unsigned r, uint64_t* out) const {
    if (r >= kMaxRegs || !((known >> r) & 1)) return false;
    *out = v[r];
    return true;
  }
  void Set(unsigned r, uint64_t val) {
    v[r] = val;
    known |= 1u << r;
  }
};

struct FrameState {
  enum class Pc : uint8_t { kSet, kUndefined, kError };
  RegSet regs;
  uint64_t pc = 0;
  Pc pc_state = Pc::kSet;
  bool initial = false;  // the sampled frame
  bool signal = false;   // unwound through a signal frame's row ("S" CIE)
};

// What a step needs of the process.
class StepContext {
 public:
  virtual ~StepContext() = default;
  // The module mapped at `addr` (as reported so far): its file and load bias.
  virtual bool ModuleAt(uint64_t addr, ElfFile** file, uint64_t* bias) = 0;
  // A word of the process's memory (the copied stack, else the mapped ELF's bytes).
  virtual bool Read(uint64_t addr, uint64_t* out) = 0;
};

// Unwinds `cur` into `*next`; false when neither CFI nor the frame-pointer fallback could
// (libdwfl: no unwound state). `is32`: the i386 ABI (9 registers, 32-bit values).
bool Step(StepContext& ctx, bool is32, const FrameState& cur, FrameState* next);

}  // namespace tk::parsers::unwind

#endif  // TK_PARSERS_UNWIND_FRAME_STEP_H_
