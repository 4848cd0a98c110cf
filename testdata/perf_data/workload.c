// The workload recorded into the perf.data fixtures (see record.sh): a few distinct call
// paths, so folded stacks have several leaves and shared prefixes. Built with frame pointers.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile double sink;

__attribute__((noinline)) static double leaf_math(long n) {
  double s = 0;
  for (long i = 1; i < n; i++) s += (double)i / (double)(i + 3);
  return s;
}

__attribute__((noinline)) static void leaf_memory(size_t n) {
  char* buf = malloc(n);
  for (int r = 0; r < 8; r++) memset(buf, r, n);
  sink += buf[n / 2];
  free(buf);
}

__attribute__((noinline)) static void leaf_syscall(int n) {
  for (int i = 0; i < n; i++) sink += (double)getppid();
}

__attribute__((noinline)) void middle(int round) {
  if (round % 3 == 0) sink += leaf_math(400000);
  if (round % 3 == 1) leaf_memory(1 << 20);
  if (round % 3 == 2) leaf_syscall(20000);
}

__attribute__((noinline)) void outer(int rounds) {
  for (int r = 0; r < rounds; r++) middle(r);
}

int main(int argc, char** argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 60;
  outer(rounds);
  printf("%f\n", sink);
  return 0;
}
