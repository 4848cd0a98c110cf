// Kernel symbols from a kallsyms file (a copy of /proc/kallsyms, perf's build-id cache entry
// ~/.debug/[kernel.kallsyms]/<build-id>/kallsyms, or /proc/kallsyms itself):
//   ffffffff81000000 T _text
//   ffffffff81001000 T __pfx_xen_hypercall_page
//   ffffffffc0a01000 t veth_open	[veth]
// As perf's dso__load_kallsyms: only types T/t W/w D/d B/b; every symbol gets size 0 and
// extends to the next (symbol_table.h); module symbols go to one table per module.
#ifndef TK_PARSERS_SYMBOLIZE_KALLSYMS_H_
#define TK_PARSERS_SYMBOLIZE_KALLSYMS_H_

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "parsers/symbolize/symbol_table.h"

namespace tk::parsers::symbolize {

struct KernelSymbols {
  SymbolTable kernel;
  std::map<std::string, SymbolTable, std::less<>> modules;  // "veth" -> its symbols
  // Where this kallsyms puts the symbols perf records as the kernel map's reference
  // ("[kernel.kallsyms]_text" MMAP, pgoff = its address then): "_text", "_stext".
  std::map<std::string, uint64_t, std::less<>> ref_symbols;
};

absl::StatusOr<KernelSymbols> LoadKallsyms(const std::string& path);
// The same from kallsyms text (trace.dat's saved copy); the symbols are views into `text`,
// which `keep` owns. `name` prefixes errors.
absl::StatusOr<KernelSymbols> ParseKallsyms(std::string_view text, std::shared_ptr<const void> keep,
                                            std::string_view name);

// Whether `copy` (perf's build-id cache copy of this host's kallsyms) holds what
// /proc/kallsyms holds now, so tk may map it instead of making the kernel format 120k+ lines
// (~35 ms of system time, most of a small input's run): written since this boot (mtime at or
// after /proc/stat's btime), the same first page (same KASLR offset and core kernel), and no
// loadable modules (/proc/modules absent or empty: their symbols come and go with them). BPF
// programs loaded since the copy are not in it; perf.data names them by KSYMBOL records.
// `proc` is where the host's stat, modules and kallsyms are read ("/proc"; tests give a
// directory of fakes).
bool IsCurrentKallsymsCopy(const std::string& copy, const std::string& proc = "/proc");

// One line of a kallsyms file, "ffffffff81000000 T _text": the address (1 to 16 hex digits),
// one space, the type letter, one space, the name (with "\t[module]" for a module's symbol;
// may be empty). nullopt for a line of another shape.
struct KallsymsLine {
  uint64_t addr = 0;
  char type = 0;
  std::string_view name;
};
std::optional<KallsymsLine> ParseKallsymsLine(std::string_view line);

}  // namespace tk::parsers::symbolize

#endif  // TK_PARSERS_SYMBOLIZE_KALLSYMS_H_
