// Machine's internals shared by its two files: machine.cc (processes, maps, resolving an
// address) and machine_symbols.cc (finding and loading the symbol files a map names).
// Not for other users: machine.h is the interface.
#ifndef TK_PARSERS_SYMBOLIZE_MACHINE_INTERNAL_H_
#define TK_PARSERS_SYMBOLIZE_MACHINE_INTERNAL_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parsers/symbolize/kallsyms.h"
#include "parsers/symbolize/machine.h"
#include "parsers/symbolize/symbol_table.h"

namespace tk::parsers::symbolize {

enum DsoKind { kElf, kKernel, kModule, kJit, kKsym, kVdso };

struct Dso {
  std::string name;  // as perf script prints it in parentheses
  int kind = kElf;
  bool loaded = false;
  SymbolTable own;
  const SymbolTable* syms = nullptr;
  // Files for DWARF unwinding (FindUnwindFiles), resolved on first use.
  bool unwind_resolved = false;
  std::string unwind_elf, unwind_debug;

  const Symbol* Lookup(uint64_t addr) const { return syms ? syms->Find(addr) : nullptr; }
};

struct Machine::KernelState {
  KernelSymbols ks;
};

struct Machine::KernelLoad {
  std::optional<KernelSymbols> ks;
  std::vector<std::string> notes;
};

namespace machine_internal {

constexpr std::string_view kUnknown = "[unknown]";
constexpr std::string_view kKernelName = "[kernel.kallsyms]";

inline bool IsAnon(std::string_view f) {
  return f == "//anon" || f.starts_with("/dev/zero") || f.starts_with("/anon_hugepage");
}

}  // namespace machine_internal
}  // namespace tk::parsers::symbolize

#endif  // TK_PARSERS_SYMBOLIZE_MACHINE_INTERNAL_H_
