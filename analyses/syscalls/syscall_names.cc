#include "analyses/syscalls/syscall_names.h"

#include <string.h>

#include <algorithm>

namespace tk::syscalls {
namespace {

#include "syscall_tables.inc"

}  // namespace

SyscallTable SyscallTable::ForArch(std::string_view arch) {
  SyscallTable t;
  if (arch == "x86_64" || arch == "amd64") {
    t.table_ = kX86_64Calls;
    t.size_ = std::size(kX86_64Calls);
    t.arch_ = "x86_64";
  } else if (arch == "x86" || (arch.size() == 4 && arch[0] == 'i' && arch.substr(2) == "86")) {
    t.table_ = kI386Calls;
    t.size_ = std::size(kI386Calls);
    t.arch_ = "i386";
  }
  return t;
}

std::string_view SyscallTable::Name(int64_t nr) const {
  // The headers list numbers in ascending order, almost without gaps.
  if (nr < 0 || size_ == 0) return {};
  if (static_cast<size_t>(nr) < size_ && table_[nr].nr == nr) return table_[nr].name;
  const SyscallName* end = table_ + size_;
  const SyscallName* it =
      std::lower_bound(table_, end, nr, [](const SyscallName& s, int64_t n) { return s.nr < n; });
  return it != end && it->nr == nr ? std::string_view(it->name) : std::string_view();
}

std::string ErrnoName(int64_t err) {
  if (err > 0 && err < 4096) {
    if (const char* n = strerrorname_np(static_cast<int>(err))) return n;
  }
  return "E" + std::to_string(err);
}

}  // namespace tk::syscalls
