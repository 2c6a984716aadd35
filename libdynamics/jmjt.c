/*
 * jmjt.c -- A = J M^-1 J^T for a dense J and a diagonal M^-1, by BLAS
 * (dyn_jmjt_dense; docs/contact.md, "Contact Jacobian"):
 *
 *     R = J M^-1/2   (column k of J times sqrt(minv_k)),   A = R R^T
 *
 * by cblas_dsyrk into the lower triangle, copied up, so A is exactly
 * symmetric.  The generated dense contact families (libexperiment/
 * generate.c, datasets/README.md, "Generated instances") are formed so; a
 * world's problem is assemble.c's (dyn_assemble: per body pair, J (M^-1
 * J^T)), and rows without a world with a diagonal M^-1 are assemble.c's
 * too (dyn_assemble_rows).  The bits depend on the BLAS kernel.  Allocates
 * nothing; J is the caller's, scaled in place.
 */
#include <cblas.h>
#include <math.h>
#include <stddef.h>

#include "dyn_constraint.h"

void dyn_jmjt_dense(int n, int nd, double *J, const double *minv, double *A) {
  for (int k = 0; k < nd; k++) {
    double sq = sqrt(minv[k]);
    for (int i = 0; i < n; i++) J[i + (size_t)k * n] *= sq;
  }
  cblas_dsyrk(CblasColMajor, CblasLower, CblasNoTrans, n, nd, 1.0, J, n, 0.0, A, n);
  /* dsyrk fills the lower triangle: copied up, A is exactly symmetric */
  for (int j = 0; j < n; j++)
    for (int i = j + 1; i < n; i++) A[j + (size_t)i * n] = A[i + (size_t)j * n];
}
