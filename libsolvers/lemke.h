/* lemke.h -- private to libsolvers: the state of Lemke's method (lemke.c)
 * that its files share: lemke_ratio.c, lemke_basis.c, lemke_view.c,
 * lemke_reform.c.  Never installed.
 */
#ifndef LCPLAB_SLV_LEMKE_H
#define LCPLAB_SLV_LEMKE_H

#include "slv_internal.h"

#include <float.h>
#include <lapacke.h>

enum {
  LEMKE_CHECK = 50,       /* pivots between two drift checks (at most) */
  LEMKE_CHECK_MIN = 4,    /* ... and at least, after refactorizations */
  LEMKE_REFINE = 3,       /* refinement steps at the end, at most */
  LEMKE_LWORK_COLS = 32,  /* dgetri work space: N_max * this */
  LEMKE_CRASH_MIN = 64,   /* rows from which a plain LCP's path starts from a crash basis */
  LEMKE_CRASH_PIVOTS = 1, /* ... whose path takes at most this times N pivots */
  LEMKE_CRASH_BROKEN = 8, /* ... if the rounds left at most N / this rows broken */
  LEMKE_E_ROW = 5         /* entries of E per row of A: 2 for a box row, 5 for a friction row */
};
#define LEMKE_DRIFT         1e-9  /* relative drift of B x_B = q that triggers a refactorization */
#define LEMKE_DRIFT_FLOOR   1e-12 /* ... if also above this * max cs_j |x_j| (q's units) */
#define LEMKE_PIVOT_FLOOR   1e-9  /* tableau entries below this * ||y||_inf are not pivots */
#define LEMKE_TIE_REL       1e-12 /* ratios within this relative distance are tied */
#define LEMKE_FEAS          1e-13 /* z0 leaves if that costs no row more than this * ||q|| */
#define LEMKE_TRIAL         1e-9  /* ... or this * max|x_B| (q's units) and its point meets tol */
#define LEMKE_Z0_NEGLIGIBLE (1e3 * DBL_EPSILON) /* z0 d below this * ||q||: stop */
#define LEMKE_LEX_ZERO      1e-13 /* lexicographic entries below this * row norm are 0 */
#define LEMKE_LEX_DIFF      1e-9 /* lexicographic entries within this relative distance are equal */

typedef struct {
  int n_max, N_max;
  /* the core inverse and its refactorization */
  double *H;        /* N_max^2: H = S^-1, k x k used, leading dimension N */
  lapack_int *ipiv; /* N_max */
  double *work;     /* N_max * LEMKE_LWORK_COLS */
  /* basis: K = core variables (0..N-1 = u_j, N = z0), R = rows of nonbasic mu */
  int *K, *R;          /* N_max each */
  int *posK;           /* N_max + 1: position of u_j / z0 in K, or -1 */
  int *posR;           /* N_max: position of row i in R, or -1 (mu_i basic) */
  double *xK;          /* N_max: values of the core variables */
  double *wv;          /* N_max: values of the basic mu_i (by row) */
  double *yK, *yW;     /* N_max: tableau column, core part / mu part (by row) */
  double *u, *g, *t;   /* N_max: products and scratch */
  double *lexa, *lexb; /* N_max: two lexicographic rows */
  double *zs, *ws;     /* N_max + 1 / N_max: values saved by a tentative exit */
  double *cs;          /* N_max + 1: column scales of [M, d] (slv_lemke_col_scales) */
  int cs_ready;        /* cs[0..N-1] formed for this solve (by the first path) */
  int *ties;           /* N_max + 1 */
  /* the reformulated LCP (general case) */
  double *qv, *dv; /* N_max: q and d of the LCP solved */
  int *ao;         /* N_max: A index of LCP variable/row t, or -1 */
  double *af;      /* N_max: sign of that A index (0 if none) */
  /* E: the entries of M that are not read from A (box and friction
   * couplings), by row and by column, at most LEMKE_E_ROW per row of A */
  int *erp, *ecp;    /* N_max + 1: row / column pointers */
  int *erj, *eci;    /* ecap: column index (by row) / row index (by column) */
  double *erv, *ecv; /* ecap: values */
  int *ti, *tj;      /* ecap: the entries as triplets, before sorting */
  double *tv;        /* ecap */
  size_t ecap;       /* LEMKE_E_ROW n_max */
  double *o, *sg;    /* n_max: shift and sign of x_i = o_i + sg_i u_i */
  int *xtra;         /* n_max: first extra LCP variable of row i (box v, free u',
                        friction m; a friction row's lambda is xtra + 1), or -1 */
  int *mrow;         /* n_max: the extra that reads row i of A (free u', friction m), or -1 */
  double *c, *an;    /* n_max: a combination of A's columns and its product */
  double *xfirst;    /* n_max: the best x of the paths so far */
  double *dc;        /* n_max: the covering vector of the crash path (lemke_crash.c) */
  signed char *inC;  /* n_max: the crash's rounds: rows in the set */
} lemke_state;

/* ---- the LCP solved: M, q, d, read through A ------------------------------ */

typedef enum {
  VIEW_GENERAL = 0, /* reformulated: M read through sign and index maps and E */
  VIEW_DENSE,       /* plain LCP (M = A, q = b), core columns copied to C */
  VIEW_PACKED       /* plain LCP, A's nonzero entries packed by column */
} view_kind;

typedef struct {
  int n, N;     /* original size, LCP size */
  int plain;    /* 1: M = A, q = b (every lo = 0, hi = +inf, no findex) */
  int split;    /* 1: d is default_covering's split of a tied start (lemke_reform.c) */
  int friction; /* 1: findex rows present (M not copositive-plus in general) */
  view_kind kind;
  const double *A; /* the operator's dense view */
  size_t lda;
  double *C;                  /* VIEW_DENSE: [M, d](:, K), N x k, leading dimension N */
  const int *colptr, *rowind; /* A packed by column (VIEW_PACKED, or GENERAL), else NULL */
  const double *val;
  const double *q, *d;
  const int *ao, *mrow;
  const double *af;
  const int *erp, *erj, *ecp, *eci; /* E by row / by column */
  const double *erv, *ecv;
  double *c, *an; /* n scratch (c kept zero between calls) */
} lcp_view;

/* M(i, v) for i, v < N. */
static inline double slv_lemke_m_entry(const lcp_view *L, int i, int v) {
  if (L->plain) return L->A[i + (size_t)v * L->lda];
  double m = 0;
  if (L->ao[i] >= 0 && L->ao[v] >= 0)
    m = L->af[i] * L->af[v] * L->A[L->ao[i] + (size_t)L->ao[v] * L->lda];
  for (int e = L->erp[i]; e < L->erp[i + 1]; e++)
    if (L->erj[e] == v) m += L->erv[e];
  return m;
}

/* Column v of [M, d] (v = N: d), entry i. */
static inline double slv_lemke_mcol_entry(const lcp_view *L, int i, int v) {
  return v == L->N ? L->d[i] : slv_lemke_m_entry(L, i, v);
}

/* ---- the basis -------------------------------------------------------------- */

typedef struct {
  lemke_state *s;
  const lcp_view *L;
  int N, k, ldh;
} basis;

#define LEMKE_HH(B, q, p) ((B)->s->H[(size_t)(q) + (size_t)(p) * (B)->ldh])

/* The state of the path between pivots. */
typedef struct {
  int pivots, ent;             /* basis changes so far; the variable entering next */
  int trials, notrial, exited; /* tentative exits tried; pivot not to try again; last taken */
  int limit, period, to_check; /* pivot limit; drift check period and countdown */
  double piv_tol;              /* ratio test: max(opt->pivot_tol, LEMKE_PIVOT_FLOOR) */
  double lu_tol;               /* refactorization: opt->pivot_tol */
  int skipped;                 /* an entry in (lu_tol, piv_tol] ||y|| was passed over */
  double qscale, dmax, vscale; /* ||q|| (rows reading A), max|d|, slv_lemke_basic_scale */
  double tau, theta;           /* this pivot's zero threshold and minimum ratio */
} path;

enum { Z0_STAYS, Z0_LEAVES, Z0_EXITED, Z0_RETRY };

/* ---- lemke.c: the path ------------------------------------------------------ */

/* A path's state before its start: ratio-test threshold piv_tol,
 * refactorization threshold lu_tol, at most limit pivots. */
path slv_lemke_path_new(double piv_tol, double lu_tol, int limit);
/* qscale, dmax (max |d_i|) and vscale of a path's start. */
void slv_lemke_path_scales(basis *B, path *P);
/* The pivots from P's state until the path ends, then slv_lemke_finish. */
slv_status slv_lemke_run_path(basis *B, path *P, slv_op *op, const slv_options *opt, double *x,
                              double *w, slv_result *res);
/* The complementary basis: refine, the library's verdict. */
slv_status slv_lemke_finish(basis *B, const path *P, slv_op *op, const slv_options *opt, double *x,
                            double *w, slv_result *res);

/* ---- lemke_crash.c: the path from a crash basis ------------------------------ */

/* The plain LCP's path from the rounds' crash basis, at most limit pivots;
 * its verdict (SLV_CONVERGED, or a failure that lemke.c answers with the
 * classical paths). */
slv_status slv_lemke_crash_path(lemke_state *s, lcp_view *L, slv_op *op, const slv_options *opt,
                                int limit, double *x, double *w, slv_result *res);

/* ---- lemke_view.c: products with [M, d] -------------------------------------- */

/* out[p] = [M, d](R[p], v), p < k. */
void slv_lemke_gather_col(const lcp_view *L, int v, const int *R, int k, double *out);
/* out[q] = [M, d](r, K[q]), q < k. */
void slv_lemke_gather_row(const lcp_view *L, int r, const int *K, int k, double *out);
/* u = sum_q y[q] [M, d](:, K[q]) (size N). */
void slv_lemke_cols_times(const lcp_view *L, const int *K, int k, const double *y, double *u);
/* u += alpha [M, d](:, v), v <= N. */
void slv_lemke_col_axpy(const lcp_view *L, int v, double alpha, double *u);
/* VIEW_DENSE: core column q of C becomes [M, d](:, v). */
void slv_lemke_set_core_col(const lcp_view *L, int q, int v);
/* A's nonzeros by column from the operator's packed copy, if formed; 1 if so. */
int slv_lemke_packed_columns(slv_op *op, lcp_view *L);
/* The units of the basic variables (docs/solvers.md, "Lexicographic
 * Lemke", "Units"): cs[v] = max_i |M(i, v)| for v < N (1 for an empty
 * column), so that cs[v] |u_v| is u_v's contribution to a row of
 * mu = M u + q + d z0 in q's units; a basic mu is in q's units as it is.
 * Formed by the solve's first path (slv_lemke_path_scales: a problem
 * that the crash basis solves outright never pays for it); cs[N] (z0:
 * max|d|) is set by each path. */
void slv_lemke_col_scales(const lcp_view *L, double *cs);

/* ---- lemke_reform.c: the LCP of a boxed, free or friction problem ------------ */

/* Fill the view for the operator's problem: SLV_OK, SLV_ERR_INVALID, SLV_ERR_UNSUPPORTED. */
slv_status slv_lemke_setup(lemke_state *s, slv_op *op, const slv_options *opt, lcp_view *L,
                           slv_result *res);
/* x from the LCP variables z (size N). */
void slv_lemke_unmap(const lemke_state *s, const slv_problem *p, const lcp_view *L, const double *z,
                     double *x);

/* ---- lemke_basis.c: the factorized basis --------------------------------------- */

/* H = S^-1 by LU and the basic values; SLV_SINGULAR_PIVOT if S is singular. */
slv_status slv_lemke_refactor(basis *B, double piv_rel);
/* ||B x_B - q||_inf. */
double slv_lemke_drift(basis *B);
/* The tableau column of the entering variable into yK, yW. */
void slv_lemke_tableau_column(basis *B, int ent);
/* Basis change: ent enters, l leaves, step theta. */
void slv_lemke_exchange(basis *B, int ent, int l, double theta);
/* max(qscale, cs |basic core values|, |basic mu|): in q's units. */
double slv_lemke_basic_scale(const basis *B, double qscale);
/* The final x from the core values, written to x. */
void slv_lemke_solution(basis *B, const slv_problem *p, double *x);
/* Iterative refinement of x_K on the final basis. */
void slv_lemke_refine(basis *B);

/* ---- lemke_ratio.c: the ratio test --------------------------------------------- */

/* The minimum ratio into P->theta (INFINITY: a ray); SLV_NOT_FINITE. */
slv_status slv_lemke_ratio_test(basis *B, path *P);
/* The rows tied at the minimum ratio into s->ties; their number. */
int slv_lemke_tied_rows(basis *B, const path *P, int *lz0);
/* Whether z0 leaves now: Z0_STAYS, Z0_LEAVES, Z0_EXITED or Z0_RETRY. */
int slv_lemke_z0_exit(basis *B, path *P, slv_op *op, const slv_options *opt, double *x, double *w);
/* Among nt tied rows, the lexicographically smallest row of B^-1 / y_l. */
int slv_lemke_lex_choose(basis *B, int nt);

#endif /* LCPLAB_SLV_LEMKE_H */
