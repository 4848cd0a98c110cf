// The program recorded for testdata/dwarf (record.sh): every kind of frame a DWARF unwinder
// meets. Built -O2 -g -fomit-frame-pointer (and -static, and -fno-omit-frame-pointer for the
// frame-pointer reference), run as `unwind_fixture ROUNDS`.
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile uint64_t sink;

// A static inline function: its code lives inside its caller (DW_TAG_inlined_subroutine).
static inline uint64_t mix(uint64_t x) {
  for (int i = 0; i < 64; ++i) x = x * 6364136223846793005ull + (x >> 7);
  return x;
}

__attribute__((noinline)) uint64_t inl_caller(uint64_t seed) {
  uint64_t acc = 0;
  for (int i = 0; i < 2000; ++i) acc += mix(seed + (uint64_t)i);
  return acc;
}

// Recursion: every level keeps a frame (mix runs on the callee's result).
__attribute__((noinline)) uint64_t rec(int depth, uint64_t x) {
  if (depth == 0) return mix(x);
  return mix(rec(depth - 1, x * 3 + 1)) + (uint64_t)depth;
}

// A callback through libc: qsort calls cmp.
static int cmp(const void* a, const void* b) {
  uint64_t x = mix(*(const uint64_t*)a & 0xff), y = mix(*(const uint64_t*)b & 0xff);
  return x < y ? -1 : x > y;
}

__attribute__((noinline)) void do_sort(void) {
  uint64_t v[64];  // small: the whole stack fits the 4 KiB dump
  for (int i = 0; i < 64; ++i) v[i] = (uint64_t)(i * 7919 % 64);
  qsort(v, 64, sizeof v[0], cmp);
  sink += v[0];
}

// A signal handler: its caller is the kernel's signal frame (glibc's __restore_rt).
static void on_signal(int sig) {
  (void)sig;
  sink += inl_caller(sink);
}

__attribute__((noinline)) void do_signal(void) { raise(SIGUSR1); }

// The vdso: clock_gettime does not enter the kernel.
__attribute__((noinline)) void do_clock(void) {
  struct timespec ts;
  for (int i = 0; i < 10000; ++i) {
    clock_gettime(CLOCK_MONOTONIC, &ts);
    sink += (uint64_t)ts.tv_nsec;
  }
}

int main(int argc, char** argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 100;
  signal(SIGUSR1, on_signal);
  for (int r = 0; r < rounds; ++r) {
    sink += inl_caller((uint64_t)r);
    for (int k = 0; k < 60; ++k) sink += rec(30, (uint64_t)k);
    for (int k = 0; k < 8; ++k) do_sort();
    do_signal();
    do_clock();
  }
  return sink == 42;  // 0: perf record passes the exit status on
}
