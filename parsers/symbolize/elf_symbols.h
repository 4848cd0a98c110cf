// Function symbols of an ELF file (executable, shared library, vdso image), read once with
// libelf into a SymbolTable in *file-offset* space — the space of perf's map_ip
// (ip − map.start + map.pgoff), which is also the address `perf script` prints for user
// frames. Which symbols count is perf's dso__load_sym: .symtab when present, else .dynsym;
// STT_FUNC / STT_GNU_IFUNC / STT_OBJECT with a name and a section, STT_NOTYPE labels only in
// sections whose name contains "text"; C++ names demangled (demangle.h).
#ifndef TK_PARSERS_SYMBOLIZE_ELF_SYMBOLS_H_
#define TK_PARSERS_SYMBOLIZE_ELF_SYMBOLS_H_

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "parsers/symbolize/symbol_table.h"

namespace tk::parsers::symbolize {

class ElfFile;

// The ELF files opened last, kept open. Loading one DSO opens the same file up to five times
// (its build id, .gnu_debuglink, the candidate scan, the runtime segments, the symbols), and
// every elf_begin maps it and reads its section headers again (then elf_end unmaps it: a TLB
// shootdown per open once tk runs a second thread). Owned by one Machine (one parse), so a
// file rewritten between parses is read afresh.
class ElfFiles {
 public:
  ElfFiles();
  ~ElfFiles();
  // The open file at `path` (invalid, get() == nullptr, when it cannot be opened as ELF).
  std::shared_ptr<ElfFile> Open(const std::string& path);

 private:
  static constexpr size_t kKeep = 4;
  std::vector<std::pair<std::string, std::shared_ptr<ElfFile>>> recent_;  // newest last
};

struct ElfImage {
  std::string build_id;  // lowercase hex, empty when the file has none
  std::string path;      // the file the symbols came from
  SymbolTable symbols;
};

// The GNU build id of the ELF file at `path` (hex), or nullopt when it cannot be read.
// `files` (may be null) shares opened files between these calls.
std::optional<std::string> ReadElfBuildId(const std::string& path, ElfFiles* files = nullptr);

// Loads symbols from the first of `candidates` (perf's search order: debuglink, build-id
// cache elf/debug, /usr/lib/debug, the DSO itself) that has a .symtab, else the .dynsym of
// the first that has one. Files whose build id differs from a non-empty `want_build_id` are
// skipped, as perf does (another build of the file would give wrong symbols).
std::optional<ElfImage> LoadElf(const std::vector<std::string>& candidates,
                                const std::string& want_build_id, ElfFiles* files = nullptr);

// The file name in .gnu_debuglink ("libc.so.6.debug"), if any.
std::optional<std::string> ReadDebugLink(const std::string& path, ElfFiles* files = nullptr);

}  // namespace tk::parsers::symbolize

#endif  // TK_PARSERS_SYMBOLIZE_ELF_SYMBOLS_H_
