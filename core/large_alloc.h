// Memory for arrays that grow with the input (the stack memo's slots and frames): blocks of
// 2 MiB or more are mapped on their own and advised for transparent huge pages (THP is
// "madvise" on the machines measured). A `perf record -a -g` fold touches ~10 MB of such
// arrays on its decoding thread, 4 KiB at a time otherwise: ~2000 page faults of that
// thread's ~3300 on cc20k.data (GLIBC_TUNABLES=glibc.malloc.hugetlb=1 showed the same).
// Smaller blocks, and every block in sanitizer builds (their allocators track the memory),
// come from operator new.
#ifndef TK_CORE_LARGE_ALLOC_H_
#define TK_CORE_LARGE_ALLOC_H_

#include <cstddef>
#include <new>

namespace tk {

// `bytes` of memory aligned for any fundamental type; FreeLarge takes the same size back.
void* AllocLarge(size_t bytes);
void FreeLarge(void* p, size_t bytes) noexcept;

// A std::allocator that goes through AllocLarge (for std::vector of large element counts).
template <typename T>
struct LargeAllocator {
  using value_type = T;
  LargeAllocator() = default;
  template <typename U>
  LargeAllocator(const LargeAllocator<U>&) {}  // NOLINT: rebinding, as std::allocator
  T* allocate(size_t n) { return static_cast<T*>(AllocLarge(n * sizeof(T))); }
  void deallocate(T* p, size_t n) noexcept { FreeLarge(p, n * sizeof(T)); }
  template <typename U>
  bool operator==(const LargeAllocator<U>&) const {
    return true;
  }
};

}  // namespace tk

#endif  // TK_CORE_LARGE_ALLOC_H_
