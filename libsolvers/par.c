/* par.c -- sums whose value does not depend on the thread count (par.h). */
#include "par.h"

/* The chunk sums in chunk order. */
static double sum_in_order(size_t nc, const double *partial) {
  double s = 0;
  for (size_t c = 0; c < nc; c++) s += partial[c];
  return s;
}

double slv_par_dot(int n, const double *a, const double *b, double *partial, int threads) {
  long nc = (long)slv_par_chunks(n);
#pragma omp parallel for num_threads(slv_par_threads(threads, n)) schedule(static)
  for (long c = 0; c < nc; c++) {
    int i0 = (int)(c * SLV_PAR_CHUNK), i1 = i0 + SLV_PAR_CHUNK < n ? i0 + SLV_PAR_CHUNK : n;
    double s = 0;
    for (int i = i0; i < i1; i++) s += a[i] * b[i];
    partial[c] = s;
  }
  return sum_in_order((size_t)nc, partial);
}

double slv_par_dot_diff(int n, const double *g, const double *a, const double *b, double *partial,
                        int threads) {
  long nc = (long)slv_par_chunks(n);
#pragma omp parallel for num_threads(slv_par_threads(threads, n)) schedule(static)
  for (long c = 0; c < nc; c++) {
    int i0 = (int)(c * SLV_PAR_CHUNK), i1 = i0 + SLV_PAR_CHUNK < n ? i0 + SLV_PAR_CHUNK : n;
    double s = 0;
    for (int i = i0; i < i1; i++) s += g[i] * (a[i] - b[i]);
    partial[c] = s;
  }
  return sum_in_order((size_t)nc, partial);
}
