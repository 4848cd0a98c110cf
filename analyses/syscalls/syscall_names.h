// System call numbers → names for the architecture a trace was recorded on (the machine from
// perf.data's HEADER_ARCH or trace.dat's uname: "x86_64", "i686", ...). Tables come from
// linux-libc-dev's UAPI headers at build time.
#ifndef TK_ANALYSES_SYSCALLS_SYSCALL_NAMES_H_
#define TK_ANALYSES_SYSCALLS_SYSCALL_NAMES_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace tk::syscalls {

struct SyscallName {
  int32_t nr;
  const char* name;
};

class SyscallTable {
 public:
  // "x86_64"/"amd64" and "i386".."i686"/"x86" are known; other machines give no names.
  static SyscallTable ForArch(std::string_view arch);
  bool known() const { return size_ > 0; }
  std::string_view arch() const { return arch_; }
  // The name, or "" when the number is not in the table.
  std::string_view Name(int64_t nr) const;

 private:
  const SyscallName* table_ = nullptr;
  size_t size_ = 0;
  std::string_view arch_;
};

// "ENOENT" for 2 (glibc's strerrorname_np); "E<n>" when unnamed.
std::string ErrnoName(int64_t err);

}  // namespace tk::syscalls

#endif  // TK_ANALYSES_SYSCALLS_SYSCALL_NAMES_H_
