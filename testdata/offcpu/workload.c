// The recorded workload of testdata/offcpu (see record.sh): threads that go off-CPU in each
// way tk tells apart, named so the fixtures can be filtered by comm ("oc-*").
//   oc-sleep  nanosleep 2 ms, 15 times                  (S, woken by a timer interrupt)
//   oc-ping / oc-pong  30 round trips over two pipes    (S, woken by each other)
//   oc-spin1 / oc-spin2  spin 40 ms each on CPU 0       (R+: preempted by each other)
//   oc-main   vfork + _exit 10 times, then joins        (D: vfork waits killable)
//   oc-idle0 / oc-idle1  SCHED_IDLE spinners on CPU 0 and 1, forever: the CPUs never go
//             idle, because on the recording VM perf.data misses tracepoints hit by the idle
//             task (its switch-outs, wakeups from interrupts)
// Then every thread blocks in pause() until record.sh kills the process after perf stopped:
// no thread exits inside the recording. (A thread's last switch-out, in do_task_dead, is
// recorded with sample pid/tid -1 once the thread is reaped, and perf sched timehist then
// books that row's wait time to ":-1" instead of the thread.)
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int ab[2], ba[2];

static void Name(const char* n) { pthread_setname_np(pthread_self(), n); }

static pthread_barrier_t finished;

// Tells main this thread is done, then blocks until the process is killed.
static void* Park(void* a) {
  pthread_barrier_wait(&finished);
  for (;;) pause();
  return a;
}

static void* Sleeper(void* a) {
  Name("oc-sleep");
  struct timespec ts = {0, 2000000};
  for (int i = 0; i < 15; ++i) nanosleep(&ts, 0);
  return Park(a);
}

static void* Ping(void* a) {
  Name("oc-ping");
  char c = 'x';
  for (int i = 0; i < 30; ++i) {
    if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1) abort();
  }
  return Park(a);
}

static void* Pong(void* a) {
  Name("oc-pong");
  char c;
  for (int i = 0; i < 30; ++i) {
    if (read(ab[0], &c, 1) != 1 || write(ba[1], &c, 1) != 1) abort();
  }
  return Park(a);
}

static double Now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void* Spin(void* a) {
  Name(a ? "oc-spin2" : "oc-spin1");
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(0, &set);
  sched_setaffinity(0, sizeof(set), &set);
  volatile unsigned long n = 0;
  for (double end = Now() + 0.04; Now() < end;) ++n;
  return Park(a);
}

static void* Idle(void* a) {
  Name(a ? "oc-idle1" : "oc-idle0");
  struct sched_param p = {0};
  sched_setscheduler(0, SCHED_IDLE, &p);
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(a ? 1 : 0, &set);
  sched_setaffinity(0, sizeof(set), &set);
  for (;;) {
  }
  return 0;
}

int main(void) {
  Name("oc-main");
  if (pipe(ab) || pipe(ba)) return 1;
  pthread_t idle[2];
  pthread_create(&idle[0], 0, Idle, 0);
  pthread_create(&idle[1], 0, Idle, (void*)1);
  usleep(20000);  // the spinners are in place
  pthread_barrier_init(&finished, 0, 6);
  pthread_t t[5];
  pthread_create(&t[0], 0, Sleeper, 0);
  pthread_create(&t[1], 0, Ping, 0);
  pthread_create(&t[2], 0, Pong, 0);
  pthread_create(&t[3], 0, Spin, 0);
  pthread_create(&t[4], 0, Spin, (void*)1);
  for (int i = 0; i < 10; ++i) {
    if (vfork() == 0) _exit(0);
  }
  pthread_barrier_wait(&finished);
  write(1, "done\n", 5);
  for (;;) pause();
  return 0;
}
