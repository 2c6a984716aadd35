/* core_roundtrip.c -- how long one cache line takes to go from one core to
 * another and back (`make bench-threads` runs it around every round; not a
 * test).
 *
 *   core_roundtrip [CPU_A CPU_B]
 *
 * Two threads, pinned to CPU_A and CPU_B (default: the first two CPUs this
 * process may run on), hand a counter back and forth in one cache line,
 * ROUNDTRIP_PASSES times per batch.  Prints one JSON object on stdout:
 *   {"cpu_a": A, "cpu_b": B, "round_trip_ns": median over the batches,
 *    "least_ns": ..., "largest_ns": ..., "batches": N, "passes": P}
 *
 * Why: on a virtual machine the host may place the two vCPUs on cores that
 * share a cache or on cores that do not, and move them while a benchmark
 * runs.  Threads that write what the other reads (the world step's stages,
 * the Gauss-Seidel separator) pay for each line that crosses; a lone
 * thread per core does not notice.  The round trip names the placement, so
 * bench_threads.py can say which rounds ran on which
 * (experiments/records/2026-11-24-threads.md).
 *
 * Exit: 0 measured; 2 usage, or fewer than two CPUs to pin to (one line on
 * stderr). */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { ROUNDTRIP_PASSES = 20000, ROUNDTRIP_BATCHES = 15 };

typedef struct {
  _Alignas(64) atomic_long turn; /* odd: the echo thread's move, even: the caller's */
  char pad[64 - sizeof(atomic_long)];
  int cpu;   /* the echo thread's CPU */
  int error; /* pthread_setaffinity_np's result in the echo thread */
} line_pair;

static int pin_to(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

/* The echo side: waits for each odd count and answers with the next even
 * one, for every pass of every batch. */
static void *echo(void *arg) {
  line_pair *lp = arg;
  lp->error = pin_to(lp->cpu);
  long total = (long)ROUNDTRIP_PASSES * ROUNDTRIP_BATCHES;
  for (long i = 0; i < total; i++) {
    while (atomic_load_explicit(&lp->turn, memory_order_acquire) != 2 * i + 1) {}
    atomic_store_explicit(&lp->turn, 2 * i + 2, memory_order_release);
  }
  return NULL;
}

static double seconds_between(const struct timespec *a, const struct timespec *b) {
  return (double)(b->tv_sec - a->tv_sec) + 1e-9 * (double)(b->tv_nsec - a->tv_nsec);
}

/* One batch of passes from count `start`: the mean round trip in ns. */
static double time_batch(line_pair *lp, long start) {
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (long i = start; i < start + ROUNDTRIP_PASSES; i++) {
    atomic_store_explicit(&lp->turn, 2 * i + 1, memory_order_release);
    while (atomic_load_explicit(&lp->turn, memory_order_acquire) != 2 * i + 2) {}
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  return 1e9 * seconds_between(&t0, &t1) / ROUNDTRIP_PASSES;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The first two CPUs of this process's affinity mask, or -1. */
static int default_cpus(int *a, int *b) {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return -1;
  int found = 0;
  for (int c = 0; c < CPU_SETSIZE && found < 2; c++)
    if (CPU_ISSET(c, &set)) *(found++ == 0 ? a : b) = c;
  return found == 2 ? 0 : -1;
}

/* 1 if this process may run on cpu (a thread pinned elsewhere would share
 * the other's CPU, and the spinning pair would take a time slice a pass). */
static int cpu_allowed(int cpu) {
  cpu_set_t set;
  return sched_getaffinity(0, sizeof set, &set) == 0 && CPU_ISSET(cpu, &set);
}

static int parse_cpu(const char *s, int *cpu) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno || end == s || *end || v < 0 || v >= CPU_SETSIZE) return -1;
  *cpu = (int)v;
  return 0;
}

int main(int argc, char **argv) {
  int a, b;
  if (argc == 3) {
    if (parse_cpu(argv[1], &a) || parse_cpu(argv[2], &b) || a == b) {
      fprintf(stderr,
              "core_roundtrip: CPU_A and CPU_B must be two different CPU numbers, got '%s' '%s'\n",
              argv[1], argv[2]);
      return 2;
    }
  } else if (argc == 1) {
    if (default_cpus(&a, &b)) {
      fprintf(stderr, "core_roundtrip: this process may run on fewer than two CPUs\n");
      return 2;
    }
  } else {
    fprintf(stderr, "usage: core_roundtrip [CPU_A CPU_B]\n");
    return 2;
  }
  if (!cpu_allowed(a) || !cpu_allowed(b)) {
    fprintf(stderr, "core_roundtrip: CPU %d is not one this process may run on\n",
            cpu_allowed(a) ? b : a);
    return 2;
  }
  static line_pair lp;
  atomic_store(&lp.turn, 0);
  lp.cpu = b;
  if (pin_to(a) != 0) {
    fprintf(stderr, "core_roundtrip: cannot pin to CPU %d\n", a);
    return 2;
  }
  pthread_t t;
  if (pthread_create(&t, NULL, echo, &lp) != 0) {
    fprintf(stderr, "core_roundtrip: cannot start the second thread\n");
    return 2;
  }
  double ns[ROUNDTRIP_BATCHES];
  for (int k = 0; k < ROUNDTRIP_BATCHES; k++) ns[k] = time_batch(&lp, (long)k * ROUNDTRIP_PASSES);
  pthread_join(t, NULL);
  if (lp.error != 0) {
    fprintf(stderr, "core_roundtrip: cannot pin the second thread to CPU %d\n", b);
    return 2;
  }
  qsort(ns, ROUNDTRIP_BATCHES, sizeof *ns, cmp_double);
  printf("{\"cpu_a\": %d, \"cpu_b\": %d, \"round_trip_ns\": %.1f, \"least_ns\": %.1f, "
         "\"largest_ns\": %.1f, \"batches\": %d, \"passes\": %d}\n",
         a, b, ns[ROUNDTRIP_BATCHES / 2], ns[0], ns[ROUNDTRIP_BATCHES - 1], ROUNDTRIP_BATCHES,
         ROUNDTRIP_PASSES);
  return 0;
}
