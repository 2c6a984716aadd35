/* linsys.h -- one interface to the library's linear-system back ends
 * (docs/solver-machinery.md, "Linear systems"), private to libsolvers:
 *
 *   dense    LAPACK: dpotrf / dpotrs (SPD), dgetrf / dgetrs (general)
 *   cholmod  CHOLMOD's sparse Cholesky (SPD), through chol.h's thread guard
 *   umfpack  UMFPACK's sparse LU (general)
 *   klu      KLU's sparse LU (general)
 *
 * The solvers that factor a matrix (direct, admm, ipm, the Newton matrix
 * of nsn_ac and nsgs_newton), the condensation and the condition estimate
 * do it here,
 * and the back end is chosen here, by one rule (slv_linsys_choose): a
 * matrix that the caller has only as a dense array is factored dense; a
 * sparse one (CSR) dense up to SLV_LS_DENSE_MAX rows, else by CHOLMOD
 * (SPD) or UMFPACK (general).  A caller names a back end itself only for a
 * reason docs/solvers.md gives ("Linear systems": ipm).
 *
 * A sparse matrix is given as n x n CSR (Ap[n + 1], Aj[nnz], Ax[nnz],
 * columns in any order, duplicates added); an SPD matrix by both triangles
 * or by its lower one (j <= i) alone, all that CHOLMOD and LAPACK's 'L'
 * factor read.  The life of a system:
 *
 *   ls = slv_linsys_analyse(kind, backend, n, Ap, Aj, &st);   pattern only
 *   st = slv_linsys_factor(ls, Ax);       values, in the pattern's order
 *   st = slv_linsys_solve(ls, x);         x: b in, A^-1 b out; no allocation
 *   (slv_linsys_solve_transposed: A^-T b, as slv_linsys_solve)
 *   st = slv_linsys_solve_many(ls, nrhs, X, ldx);   the same for nrhs columns
 *   slv_linsys_free(ls);
 *
 * factor may be called again with new values (same pattern), and with a
 * shift: slv_linsys_factor_shifted factors A + shift I (ADMM's A + rho I).
 * A dense matrix is written in place into the system's own array:
 *
 *   st = slv_linsys_dense_reserve(&ls, n_max);   once, the n_max^2 array
 *   F = slv_linsys_dense_values(ls, n);          fill F (n x n, ld n)
 *   st = slv_linsys_factor_dense(ls, kind, shift);
 *   st = slv_linsys_solve(ls, x);
 *
 * All allocation happens in analyse, factor and reserve: solves allocate
 * nothing, and a dense factor neither (LAPACK's _work entry points).
 * Every call returns a status (never prints, never aborts): SLV_LS_NOT_SPD
 * for an SPD system whose matrix is not positive definite
 * (slv_linsys_failed_column gives the failing column), SLV_LS_SINGULAR for
 * a general one that is singular. */
#ifndef SLV_LINSYS_H
#define SLV_LINSYS_H

typedef enum slv_ls_kind {
  SLV_LS_SPD = 0, /* symmetric positive definite: Cholesky */
  SLV_LS_GENERAL  /* any non-singular: LU */
} slv_ls_kind;

typedef enum slv_ls_backend {
  SLV_LS_AUTO = 0, /* slv_linsys_choose(kind, n, 1) */
  SLV_LS_DENSE,
  SLV_LS_CHOLMOD, /* SPD only */
  SLV_LS_UMFPACK, /* general only */
  SLV_LS_KLU      /* general only */
} slv_ls_backend;

/* Rows up to which a sparse matrix is factored dense: the switch admm and
 * nsn_ac each made before they moved here (docs/solver-machinery.md, "Linear
 * systems"). */
#define SLV_LS_DENSE_MAX 600
/* KLU refactors in the pivot order of its last factor while the
 * refactored U's min |U_ii| / max |U_ii| stays above this; below, it
 * factors anew with a pivot search. */
#define SLV_LS_KLU_RCOND 1e-12

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
/* As slv_linsys_analyse, for a pattern whose rows' columns the caller
 * knows not to decrease (a packed copy of A, nsn's Newton matrix): it is
 * then neither checked entry by entry nor sorted.  A repeated column is
 * added by the dense scatter, passed to CHOLMOD as given, and refused by
 * the LU back ends (no system). */
slv_linsys *slv_linsys_analyse_sorted(slv_ls_kind kind, slv_ls_backend backend, int n,
                                      const int *Ap, const int *Aj, slv_ls_status *status);
/* The numeric factor for the values Ax (nnz of them, the pattern's order). */
slv_ls_status slv_linsys_factor(slv_linsys *ls, const double *Ax);
/* x <- A^-1 x. */
slv_ls_status slv_linsys_solve(slv_linsys *ls, double *x);
/* x <- A^-T x (an SPD system: the same as slv_linsys_solve). */
slv_ls_status slv_linsys_solve_transposed(slv_linsys *ls, double *x);
/* X <- A^-1 X for nrhs right-hand sides, column-major with leading
 * dimension ldx >= n (the dense back end in one LAPACK call, the others a
 * column at a time); no allocation. */
slv_ls_status slv_linsys_solve_many(slv_linsys *ls, int nrhs, double *X, int ldx);
void slv_linsys_free(slv_linsys *ls); /* NULL is fine */

/* A + shift I for the values Ax (shift 0: slv_linsys_factor). */
slv_ls_status slv_linsys_factor_shifted(slv_linsys *ls, const double *Ax, double shift);

/* The rule: the back end for an n x n matrix of this kind, given as CSR
 * when sparse_form != 0, else only as a dense array. */
slv_ls_backend slv_linsys_choose(slv_ls_kind kind, int n, int sparse_form);

/* A dense-input system for matrices of up to n_max rows in *ls: kept when
 * *ls already holds one that large, else (re)allocated.  SLV_LS_OK or
 * SLV_LS_NOMEM (*ls then NULL). */
slv_ls_status slv_linsys_dense_reserve(slv_linsys **ls, int n_max);
/* The n x n column-major array (ld n) to fill with the next matrix
 * (n <= n_max), or NULL when ls is not a dense-input system or n is too
 * large.  Filling it drops the previous factor. */
double *slv_linsys_dense_values(slv_linsys *ls, int n);
/* The factor of the array filled above plus shift I, in place. */
slv_ls_status slv_linsys_factor_dense(slv_linsys *ls, slv_ls_kind kind, double shift);

/* After a dense factor that completed (OK, or an LU's SLV_LS_SINGULAR):
 * its smallest pivot, L_ii^2 (Cholesky) or |U_ii| (LU), and its row in
 * *row (may be NULL); else, and for the sparse back ends, NaN and -1. */
double slv_linsys_pivot_min(const slv_linsys *ls, int *row);
/* UMFPACK's estimate of one LU's flops, from its symbolic analysis (the
 * UMFPACK back end; NaN for the others). */
double slv_linsys_lu_flops(const slv_linsys *ls);
/* UMFPACK's iterative refinement steps per solve (UMFPACK's default: 2;
 * a solver that corrects its own steps asks for 0); no effect on the
 * other back ends.  Before the factor. */
void slv_linsys_set_refinement(slv_linsys *ls, int steps);

/* The back end chosen (never SLV_LS_AUTO). */
slv_ls_backend slv_linsys_backend(const slv_linsys *ls);
/* After SLV_LS_NOT_SPD / SLV_LS_SINGULAR: the column (0-based) where the
 * factorization broke down, or -1 when the back end does not say. */
int slv_linsys_failed_column(const slv_linsys *ls);

#endif /* SLV_LINSYS_H */
