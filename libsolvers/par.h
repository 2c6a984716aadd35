/* par.h -- private: loops split over OpenMP threads whose results do not
 * depend on the thread count (docs/solver-machinery.md, "Threads").
 *
 * An elementwise loop (y_i from x_i alone) gives the same bits on any
 * number of threads; a solver writes those with
 *     #pragma omp parallel for num_threads(slv_par_threads(threads, n)) schedule(static)
 * A sum does not: its order would change with the split.  slv_par_dot sums
 * fixed chunks of SLV_PAR_CHUNK entries, each in index order by whichever
 * thread owns it, then the chunk sums in chunk order, on one thread; so
 * the result is the same for 1, 2 or 3 threads (it is not cblas_ddot's,
 * whose order is its own).  A maximum is exact in any order and needs no
 * such care.
 */
#ifndef SLV_PAR_H
#define SLV_PAR_H

#include <stddef.h>
#ifdef _OPENMP
#include <omp.h>
#endif

enum {
  SLV_PAR_CHUNK = 2048, /* entries summed in order by one thread */
  SLV_PAR_MIN_N = 8192  /* below: one thread (starting a team costs more) */
};

/* The threads a loop of n iterations runs on: `threads` from
 * SLV_PAR_MIN_N iterations on, else 1. */
static inline int slv_par_threads(int threads, int n) {
  return threads > 1 && n >= SLV_PAR_MIN_N ? threads : 1;
}

/* The scratch (doubles) slv_par_dot needs for vectors of n entries. */
static inline size_t slv_par_chunks(int n) {
  return n > 0 ? ((size_t)n + SLV_PAR_CHUNK - 1) / SLV_PAR_CHUNK : 1;
}

/* sum_i a_i b_i, and sum_i g_i (a_i - b_i), in chunks (above); partial
 * holds slv_par_chunks(n) doubles. */
double slv_par_dot(int n, const double *a, const double *b, double *partial, int threads);
double slv_par_dot_diff(int n, const double *g, const double *a, const double *b, double *partial,
                        int threads);

/* Libraries that open OpenMP teams of their own, whatever the caller asked
 * for: Debian's CHOLMOD runs its supernodal kernels on
 * num_threads(CHOLMOD_OMP_NUM_THREADS = 4) teams, more threads than
 * opt.threads and than this machine's two cores.  Every call into CHOLMOD
 * sits between slv_par_foreign_begin and slv_par_foreign_end: OpenMP's
 * dynamic adjustment is on for the calling thread (dyn-var is per thread,
 * so no other thread of the program sees it) during the call, which lets
 * the runtime shrink those teams to the cores that are idle; the solver's
 * own teams, of opt.threads threads, are opened outside these calls and
 * keep their size.  The kernels' results do not depend on their team size.
 * On KaplasTower (experiments/records/2026-11-23-admm-auto-rule.md) the
 * 4-thread teams on 2 cores made the admm solve 11.2 ms instead
 * of 7.7; with opt.threads = 2 admm took 8.7-11.9 ms against 4.4-6.0 on one
 * thread, and ipm on the pile-500 export 0.83 s against 0.29 s, until the
 * calls were wrapped for every thread count
 * (experiments/records/2026-11-24-threads.md). */
static inline int slv_par_foreign_begin(void) {
#ifdef _OPENMP
  int saved = omp_get_dynamic();
  omp_set_dynamic(1);
  return saved;
#else
  return -1;
#endif
}

static inline void slv_par_foreign_end(int saved) {
#ifdef _OPENMP
  if (saved >= 0) omp_set_dynamic(saved);
#else
  (void)saved;
#endif
}

#endif /* SLV_PAR_H */
