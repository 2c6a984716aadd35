/* block_pivot.h -- private to libsolvers: a first active set for the
 * pivoting solvers (dantzig, lemke) by block principal pivoting
 * (docs/solvers.md, "A first active set").  Never installed.
 *
 * The boxed problem w = A x + b, lo <= x <= hi (slv.h) with a guess C of
 * the rows whose w is 0 at the solution (the clamped set).  One round:
 *
 *   factor A_CC (Cholesky for a symmetric A, else LU), solve
 *   A_CC dx_C = -w_C, x_C += dx_C, w += A(:, C) dx_C (so w_C = 0);
 *   count the rows that break their conditions: a clamped x_r outside
 *   [lo_r, hi_r], or a row outside C whose w_r has the wrong sign for
 *   where x_r is (at lo: w_r < 0; at hi: w_r > 0; inside: w_r != 0);
 *   flip all of them at once: a clamped row to its nearer bound, the
 *   others into C.
 *
 * For a P-matrix the rounds end at the solution in a few rounds on the
 * problems measured
 * (experiments/records/2026-11-26-pivoting-against-factorisation.md), but they
 * may cycle [cottle1992 sec. 4.2]: the rounds stop when no row is broken,
 * when the count of broken rows has not fallen to 3/4 of its least for
 * SLV_BPP_PATIENCE rounds, after SLV_BPP_ROUNDS rounds, or before a round
 * whose flips would take the pivots past q->budget.  The caller's exact
 * method (dantzig's single pivots, lemke's path) then starts from the set
 * and its factor: the rounds are a guess, never the answer's judge.
 *
 * Pivots: each row that enters or leaves C is one principal pivot, as in
 * the single-pivot methods: the guess's rows after its first q->given
 * (the free rows and a warm set, which the methods take without a
 * pivot), then every flip.
 *
 * A pivot of the Cholesky factor counts as zero below
 * max(prel, 16 (j + 1) eps) A_rr (A_rr <= 0: below zero_abs), the test of
 * dantzig's own factor; such a row and the rows after it leave C (a
 * singular or indefinite A_CC), and the rounds go on with the rest.  The
 * factor is updated from round to round rather than formed anew
 * (block_pivot.c says how).
 *
 * With q->pend and q->watch on a dense symmetric A, a round after the
 * first judges the rows of C and a few watched rows outside C alone where
 * some of them broke, and w += A(:, C) dx_C waits for a round that judges
 * every row (block_pivot.c; docs/solvers.md, "Rounds between passes over
 * A"); the last round judges every row, and w = A x + b on return.
 *
 * No allocation: every array is the caller's.  Polls op before each
 * factorization.
 */
#ifndef LCPLAB_SLV_BLOCK_PIVOT_H
#define LCPLAB_SLV_BLOCK_PIVOT_H

#include "slv_internal.h"

#include <lapacke.h>

enum {
  SLV_BPP_ROUNDS = 16,     /* rounds at most */
  SLV_BPP_PATIENCE = 2,    /* rounds without a new least count of broken rows */
  SLV_BPP_SWEEPS = 5,      /* sweeps of slv_bpp_sweep_guess */
  SLV_BPP_SWEEP_MIN = 200, /* ... from this many rows on */
};

typedef struct slv_bpp {
  /* the problem: a view, never written through */
  int n;
  const double *A; /* dense, column-major: A(i, j) = A[i + j lda] */
  size_t lda;
  const double *b;
  const double *lo, *hi; /* the bounds of the rounds (+-inf allowed), n each; NULL: 0, +inf */
  slv_op *op;            /* its packed columns when formed; the poll */
  int general;           /* 0: A symmetric (Cholesky, lower triangle); 1: LU */
  const double *sq;      /* n: the row scales sqrt(A_rr) (> 0; the caller's choice where
                            A_rr <= 0): the units of D A D */
  double prel;           /* zero pivot of row r: below max(prel, 16 (j+1) eps) A_rr */
  double zero_abs;       /* ... and below this where A_rr <= 0 */
  int given;             /* the guess's leading rows that are not pivots */
  int keyed;             /* 1: key[] holds the guess's order (slv_bpp_sweep_guess's) */
  int budget;            /* pivots the rounds may take (the guess's included) */
  /* the caller's arrays */
  double *F; /* the factor of A(set, set), leading dimension ldf (>= n) */
  int ldf;
  lapack_int *ipiv; /* n: LU pivots (general) */
  double *dx;       /* n: scratch */
  double *key;      /* n: scratch (the order of C) */
  int *set;         /* n: C in the factor's order (in: the guess) */
  int *flips;       /* n: scratch */
  double *pend;     /* n: scratch, the solves' moves not yet in w; NULL (or watch NULL):
                       w follows each solve, every row judged every round */
  int *watch;       /* n: scratch, the rows outside C judged between passes */
  int watched;      /* out of slv_bpp_sweep_guess: the rows it put in watch[] */
  signed char *in;  /* n: scratch, 1 for the rows of C */
} slv_bpp;

typedef struct slv_bpp_result {
  int m;        /* |C|: set[0..m), factored in F */
  int rounds;   /* factorizations made */
  int broken;   /* rows that break their conditions at the returned x */
  int singular; /* general: the LU of A_CC was singular (F is not a factor) */
  int pivots;   /* principal pivots: the guess's counted rows, then every flip */
  int deleted;  /* rows that left the factor by an update (not refactored) */
  int by_lq;    /* ... of them, by the LQ of all a round's removed rows at once */
  int kept;     /* rows of the factor's head kept from one round to the next, summed */
  int passes;   /* w brought up to date with the solves: a pass over A's columns of C each */
} slv_bpp_result;

/* Sort v[0..len) by key[v[.]], ascending (a heap sort: no allocation). */
void slv_sort_by_key(int *v, int len, const double *key);

/* w += alpha A(:, j) over the operator's storage: its packed nonzeros of
 * column j when it formed them, else the dense column. */
void slv_bpp_add_column(const slv_op *op, int j, double alpha, double *w);

/* A first guess for the rounds where A is symmetric (q->general = 0):
 * SLV_BPP_SWEEPS sweeps of projected Gauss-Seidel (pgs's, omega = 1, rows
 * whose A_rr is not positive left out) from x, w = A x + b, on copies (x
 * and w are not written); the rows strictly inside [lo, hi] at the end
 * that are not among set[0..m) are appended to it, and the rows of the new
 * set get their keys of C's order (block_pivot.c, key_of) at the sweeps'
 * x, which the rounds' first order then takes (q->keyed = 1): the rows
 * nearest a bound there, the likeliest to leave, at the end of the
 * factor.  Returns the new m, or
 * -1 where the sweeps do not apply (set left as it is).  On
 * the spd and contact families at n = 1000 the guess from the rows broken
 * at x = 0 misses the answer's set C by 148 and 260 rows, five sweeps'
 * guess by 5 and 49 (experiments/records/2026-11-28-piv.md).  Scratch: the
 * first three columns of F.  The last sweep updates w only at the rows
 * after each moved row (on a dense A, where every given row is free: no
 * key then reads w), half its columns' bytes; the guess and its keys are
 * those of whole sweeps.  They do not apply below SLV_BPP_SWEEP_MIN
 * rows (where the tests' small blocks on which the rounds cycle keep
 * cycling) nor where q->general.  A guess only: the rounds and the exact method judge. */
int slv_bpp_sweep_guess(slv_bpp *q, const double *x, const double *w, int m);

/* The rounds from the guess set[0..m) at x (in [lo, hi]), w = A x + b on
 * entry; the guess's counted rows m - q->given at most q->budget.  On return x_C is the last round's solution (outside the box
 * where r->broken says so), the other rows keep x but for the flipped
 * ones (at a bound), and w = A x + b (updated, not recomputed).
 * SLV_CONVERGED, or the poll's SLV_TIME_LIMIT / SLV_INTERRUPTED (then r
 * describes the last round). */
slv_status slv_bpp_run(const slv_bpp *q, double *x, double *w, int m, slv_bpp_result *r);

#endif /* LCPLAB_SLV_BLOCK_PIVOT_H */
