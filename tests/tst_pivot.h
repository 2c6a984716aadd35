/* tst_pivot.h -- test helpers for the pivoting solvers' block start
 * (test_lemke.c, test_dantzig.c; docs/solvers.md, "A first active set"):
 * block-diagonal problems, the small problems on which full-flip block
 * pivoting cycles, and a capture of the solvers' log lines. */
#ifndef TST_PIVOT_H
#define TST_PIVOT_H

#include "slv.h"

#include <stddef.h>

/* A 4 x 4 SPD matrix and b on which block principal pivoting from {i :
 * b_i < 0} cycles: {0} -> {0, 1, 2} -> {1} -> {0} (found by search; its
 * solution, by enumeration, has x_2 = 0 and w_0 = w_1 = w_3 = 0). */
extern const double tst_cyc4_A[16], tst_cyc4_b[4];
/* A 3 x 3 non-symmetric P-matrix (every principal minor > 0) and b on which
 * the rounds cycle ({0, 2} -> {1, 2} -> {} -> {0, 2}); its solution: x =
 * (0, 0, 0.668969...), w_2 = 0. */
extern const double tst_cyc3_A[9], tst_cyc3_b[3];

/* A = diag(A1, A2) (n1 + n2 square, column-major, leading dimension n1 +
 * n2; A1, A2 with leading dimensions n1, n2), b = (b1, b2). */
void tst_block_diag(int n1, const double *A1, const double *b1, int n2, const double *A2,
                    const double *b2, double *A, double *b);

/* K copies of f's dense problem on the diagonal, K = tst_stack_copies(n):
 * at least 64 rows (the block start's threshold) and two copies.  A (N x N,
 * N = K n, leading dimension N), b, and lo, hi when not NULL (f's, or 0 and
 * +inf). */
int tst_stack_copies(int n);
void tst_stack(const slv_problem *f, int K, double *A, double *b, double *lo, double *hi);

/* The dense problem (A, b, lo, hi) of n rows, leading dimension lda. */
/* r := the solution of the m x m system M x = r (M column-major,
 * destroyed), Gaussian elimination with partial pivoting: the tests' own
 * reference, independent of libsolvers' factorizations. */
void tst_gauss(int m, double *M, double *r);

slv_problem tst_dense(int n, const double *A, int lda, const double *b, const double *lo,
                      const double *hi);

/* A CSR problem is copied to dense and solved by solver s (SLV_CAP_DENSIFY,
 * issue 65: a refusal that was an implementation limit): A = [2 1 0; 1 3 1;
 * 0 1 2], b = (-1, 2, -3) has x = (1/2, 0, 3/2) (rows 1 and 3 active:
 * 2 x1 = 1, 2 x3 = 3; w2 = 1/2 + 3/2 + 2 = 4 > 0); asserts converged, that
 * x, the same x bit for bit and the same pivots as the dense problem's. */
void tst_csr_as_dense(const slv_solver *s, const slv_options *o);

/* x of the LCP (A, b) of n <= 16 rows by the exhaustive oracle "enum";
 * its status. */
slv_status tst_enum_solve(int n, const double *A, const double *b, double *x);

/* The solvers' log lines (opt.log_fn = tst_log_line, opt.log_ctx = a
 * tst_log), concatenated with '\n' into a fixed buffer (the end is
 * dropped when it is full). */
typedef struct tst_log {
  char text[8192];
  size_t len;
} tst_log;
void tst_log_line(void *ctx, const char *line);
/* The first logged line that starts with prefix, or NULL. */
const char *tst_log_find(const tst_log *log, const char *prefix);

/* Solve p with the named solver from x = 0 at tolerance tol, the log
 * lines into log (emptied first). */
slv_status tst_solve_logged(const char *solver, const slv_problem *p, double tol, double *x,
                            slv_result *res, tst_log *log);

#endif /* TST_PIVOT_H */
