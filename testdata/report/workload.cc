// A self-contained workload for tk report's fixtures: no libc (-nostdlib -static), so every
// user frame resolves from this one binary and perf report's children mode has no unresolved
// frames (perf 6.1 counts an unresolved leaf twice there). C++ names (namespaces, templates,
// a lambda) check demangling without parameters; `recurse` checks that recursion counts once
// per sample in Children.
#include <cstdint>

namespace {

long Syscall(long n, long a = 0, long b = 0, long c = 0) {
  long ret;
  asm volatile("syscall" : "=a"(ret) : "a"(n), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
  return ret;
}

}  // namespace

namespace work {

template <typename T>
struct Mixer {
  __attribute__((noinline)) T Mix(T x, int rounds) {
    for (int i = 0; i < rounds; ++i) x = x * 6364136223846793005ull + 1442695040888963407ull;
    asm volatile("" : "+r"(x));
    return x;
  }
};

__attribute__((noinline)) uint64_t recurse(int depth, uint64_t x) {
  if (depth == 0) return Mixer<uint64_t>().Mix(x, 20000);
  uint64_t r = recurse(depth - 1, x + 1);
  asm volatile("" : "+r"(r));
  return r;
}

__attribute__((noinline)) long ask_kernel(int n) {
  long s = 0;
  for (int i = 0; i < n; ++i) s += Syscall(110);  // getppid
  return s;
}

}  // namespace work

extern "C" [[noreturn]] void _start() {
  uint64_t acc = 0;
  auto spin = [&](int n) __attribute__((noinline)) {
    for (int i = 0; i < n; ++i) acc += work::recurse(4, acc);
  };
  for (int round = 0; round < 200; ++round) {
    spin(20);
    acc += static_cast<uint64_t>(work::ask_kernel(3000));
    acc += work::Mixer<uint32_t>().Mix(static_cast<uint32_t>(acc), 50000);
  }
  Syscall(60, static_cast<long>(acc & 1));  // exit
  __builtin_unreachable();
}
