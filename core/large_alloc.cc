#include "core/large_alloc.h"

#include <sys/mman.h>

#include <cstdint>

#include "core/sanitizers.h"

namespace tk {
namespace {

constexpr bool kMapLarge = !kAddressOrMemorySanitizer && !kThreadSanitizer;

constexpr size_t kHuge = size_t{2} << 20;  // x86-64's (and arm64's 4 KiB-page) PMD size

// The mapped size of a large block: whole huge pages, so that the kernel aligns the mapping
// to one (anonymous mappings of a multiple of the PMD size are, since Linux 6.7) and no
// block's tail shares a huge page with anything else.
size_t Mapped(size_t bytes) { return (bytes + kHuge - 1) & ~(kHuge - 1); }

}  // namespace

void* AllocLarge(size_t bytes) {
  if (!kMapLarge || bytes < kHuge) return ::operator new(bytes);
  void* p = ::mmap(nullptr, Mapped(bytes), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                   -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
  ::madvise(p, Mapped(bytes), MADV_HUGEPAGE);  // a hint: without THP, 4 KiB pages as before
#endif
  return p;
}

void FreeLarge(void* p, size_t bytes) noexcept {
  if (!p) return;
  if (!kMapLarge || bytes < kHuge) {
    ::operator delete(p);
    return;
  }
  ::munmap(p, Mapped(bytes));
}

}  // namespace tk
