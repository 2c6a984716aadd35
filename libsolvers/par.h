/* par.h -- private: loops split over OpenMP threads whose results do not
 * depend on the thread count (docs/solvers.md, "Threads").
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

#endif /* SLV_PAR_H */
