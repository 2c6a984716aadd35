/*
 * chol.h -- the library's calls into CHOLMOD (admm.c, ipm.c), private to
 * libsolvers.  Each call sits between slv_par_foreign_begin and
 * slv_par_foreign_end (par.h): CHOLMOD opens OpenMP teams of its own, and
 * the runtime shrinks them to the idle cores whatever opt.threads is.
 * Going through these three, no call can be left without it.
 */
#ifndef SLV_CHOL_H
#define SLV_CHOL_H

#include "par.h"

#include <string.h>
#include <suitesparse/cholmod.h>

/* cholmod_analyze of A's pattern: the factor, or NULL (no memory). */
static inline cholmod_factor *slv_chol_analyze(cholmod_sparse *A, cholmod_common *cm) {
  int saved = slv_par_foreign_begin();
  cholmod_factor *L = cholmod_analyze(A, cm);
  slv_par_foreign_end(saved);
  return L;
}

/* The numeric factor of A + shift I into L (cholmod_factorize_p; shift 0
 * is cholmod_factorize).  0 on failure (no memory); a matrix that is not
 * positive definite returns 1 with cm->status == CHOLMOD_NOT_POSDEF. */
static inline int slv_chol_factorize(cholmod_sparse *A, double shift, cholmod_factor *L,
                                     cholmod_common *cm) {
  double beta[2] = { shift, 0 };
  int saved = slv_par_foreign_begin();
  int ok = cholmod_factorize_p(A, beta, NULL, 0, L, cm);
  slv_par_foreign_end(saved);
  return ok;
}

/* r <- (L L')^-1 r for r of n entries, with cholmod_solve2's reused
 * workspace X, Y, E.  0 or -1. */
static inline int slv_chol_solve(cholmod_factor *L, int n, double *r, cholmod_dense **X,
                                 cholmod_dense **Y, cholmod_dense **E, cholmod_common *cm) {
  cholmod_dense B = { .nrow = (size_t)n,
                      .ncol = 1,
                      .nzmax = (size_t)n,
                      .d = (size_t)n,
                      .x = r,
                      .z = NULL,
                      .xtype = CHOLMOD_REAL,
                      .dtype = CHOLMOD_DOUBLE };
  int saved = slv_par_foreign_begin();
  int ok = cholmod_solve2(CHOLMOD_A, L, &B, NULL, X, NULL, Y, E, cm);
  slv_par_foreign_end(saved);
  if (!ok) return -1;
  memcpy(r, (*X)->x, (size_t)n * sizeof *r);
  return 0;
}

#endif /* SLV_CHOL_H */
