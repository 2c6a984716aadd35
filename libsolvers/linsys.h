/* linsys.h -- one interface to the library's linear-system back ends
 * (docs/solvers.md, "Linear systems"), private to libsolvers:
 *
 *   dense    LAPACK: dpotrf / dpotrs (SPD), dgetrf / dgetrs (general)
 *   cholmod  CHOLMOD's sparse Cholesky (SPD), through chol.h's thread guard
 *   umfpack  UMFPACK's sparse LU (general)
 *   klu      KLU's sparse LU (general)
 *
 * A matrix is given as n x n CSR (Ap[n + 1], Aj[nnz], Ax[nnz], columns in
 * any order, duplicates added); an SPD matrix with both triangles.  The
 * life of a system:
 *
 *   ls = slv_linsys_analyse(kind, backend, n, Ap, Aj, &st);   pattern only
 *   st = slv_linsys_factor(ls, Ax);       values, in the pattern's order
 *   st = slv_linsys_solve(ls, x);         x: b in, A^-1 b out; no allocation
 *   st = slv_linsys_solve_many(ls, nrhs, X, ldx);   the same for nrhs columns
 *   slv_linsys_free(ls);
 *
 * factor may be called again with new values (same pattern).  Every call
 * returns a status (never prints, never aborts): SLV_LS_NOT_SPD for an SPD
 * system whose matrix is not positive definite (slv_linsys_info gives the
 * failing column), SLV_LS_SINGULAR for a general one that is singular. */
#ifndef SLV_LINSYS_H
#define SLV_LINSYS_H

typedef enum slv_ls_kind {
  SLV_LS_SPD = 0, /* symmetric positive definite: Cholesky */
  SLV_LS_GENERAL  /* any non-singular: LU */
} slv_ls_kind;

typedef enum slv_ls_backend {
  SLV_LS_AUTO = 0, /* dense up to SLV_LS_DENSE_MAX rows; else cholmod (SPD) or umfpack */
  SLV_LS_DENSE,
  SLV_LS_CHOLMOD, /* SPD only */
  SLV_LS_UMFPACK, /* general only */
  SLV_LS_KLU      /* general only */
} slv_ls_backend;

#define SLV_LS_DENSE_MAX 200

typedef enum slv_ls_status {
  SLV_LS_OK = 0,
  SLV_LS_NOMEM = -1,
  SLV_LS_NOT_SPD = -2,   /* SPD system: the matrix is not positive definite */
  SLV_LS_SINGULAR = -3,  /* general system: the matrix is singular */
  SLV_LS_BAD_INPUT = -4, /* n < 0, an index out of range, a kind the backend lacks */
  SLV_LS_NOT_FACTORED = -5
} slv_ls_status;

typedef struct slv_linsys slv_linsys;

/* The symbolic analysis of the pattern (copied: the caller's arrays may
 * go).  NULL on failure, with *status set. */
slv_linsys *slv_linsys_analyse(slv_ls_kind kind, slv_ls_backend backend, int n, const int *Ap,
                               const int *Aj, slv_ls_status *status);
/* The numeric factor for the values Ax (nnz of them, the pattern's order). */
slv_ls_status slv_linsys_factor(slv_linsys *ls, const double *Ax);
/* x <- A^-1 x. */
slv_ls_status slv_linsys_solve(slv_linsys *ls, double *x);
/* X <- A^-1 X for nrhs right-hand sides, column-major with leading
 * dimension ldx >= n (the dense back end in one LAPACK call, the others a
 * column at a time); no allocation. */
slv_ls_status slv_linsys_solve_many(slv_linsys *ls, int nrhs, double *X, int ldx);
void slv_linsys_free(slv_linsys *ls); /* NULL is fine */

/* The back end chosen (never SLV_LS_AUTO). */
slv_ls_backend slv_linsys_backend(const slv_linsys *ls);
/* After SLV_LS_NOT_SPD / SLV_LS_SINGULAR: the column (0-based) where the
 * factorization broke down, or -1 when the back end does not say. */
int slv_linsys_failed_column(const slv_linsys *ls);

#endif /* SLV_LINSYS_H */
