// The workload of chain.perf.data (record-chain.sh): two processes hand one byte back and
// forth over two pipes N times, so every switch-out has a short, known callchain
// (read -> pipe_read -> schedule in the kernel, ping/pong -> main in user space).
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

__attribute__((noinline)) static void wait_byte(int fd) {
  char c;
  if (read(fd, &c, 1) != 1) _exit(1);
}

__attribute__((noinline)) static void send_byte(int fd) {
  if (write(fd, "x", 1) != 1) _exit(1);
}

__attribute__((noinline)) static void ping(int out, int in, int n) {
  for (int i = 0; i < n; ++i) {
    send_byte(out);
    wait_byte(in);
  }
}

__attribute__((noinline)) static void pong(int in, int out, int n) {
  for (int i = 0; i < n; ++i) {
    wait_byte(in);
    send_byte(out);
  }
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 100;
  int a[2], b[2];
  if (pipe(a) || pipe(b)) return 1;
  pid_t child = fork();
  if (child < 0) return 1;
  if (child == 0) {
    pong(a[0], b[1], n);
    return 0;
  }
  ping(a[1], b[0], n);
  waitpid(child, NULL, 0);
  return 0;
}
