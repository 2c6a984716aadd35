/* admm.c -- ADMM on the cone problem, both laws, with adaptive rho
 * (docs/cone-solvers.md, "ADMM"; [boyd2011]; the FC3D_ADMM of Siconos and
 * ContactBench's ADMM [acary2018]).
 *
 * Problem: w = A x + b with A positive semidefinite (x'Ax >= 0), cone
 * rows in triples (either law, slv.h) and box / free rows.  The associated law
 * is the QP  min 1/2 x'Ax + q'x  over x in C (C: the cones K_mu times the
 * boxes), q = b; the Coulomb law is that QP's fixed point with the De
 * Saxce shift q = b + s(w), s_c = (mu_c |w_t,c|, 0, 0), updated every
 * iteration (as Siconos' ADMM and the fixed-point methods of [acary2018
 * sec. 5] do) at the velocity of the x-update, w = A x + b = r - rho x + b
 * with r the right-hand side below (no product needed).
 *
 * Splitting x = z, x free and z in C, scaled dual u, penalty rho D (D the
 * diagonal metric of slv_op_metric: A_ii, one mean per cone;
 * docs/cone-solvers.md, "Scaling" and "ADMM"), relaxation alpha (ADMM_ALPHA):
 *     x    = (A + rho D)^-1 (rho D (z - u) - q)
 *     xh   = alpha x + (1 - alpha) z
 *     z'   = P_C(xh + u)
 *     u'   = u + xh - z'
 * alpha = 1: over-relaxation (1.6) took 41 iterations on KaplasTower where
 * the plain step takes 16 (experiments/records/2026-11-23-admm-auto-rule.md).
 * The system is solved as S (S A S + rho I)^-1 S r, S = D^-1/2: the matrix
 * factored is A scaled to a unit diagonal (before, with rho I, rows whose
 * diagonal spans 0.5 .. 7.8e3 -- MuJoCo's humanoid -- got one rho fit for
 * the heavy ones).  P_C is the projection in the metric D too (one value
 * per cone).
 * Residuals: primal ||x - z'||_2, dual rho ||D (z' - z)||_2.  The start:
 * rho = ADMM_RHO0 (1e-2) times the mean diagonal of S A S: on stacked,
 * mostly sticking contacts the x-update is then nearly the equilibrium
 * solve and ADMM converges in tens of iterations (rho = the mean diagonal
 * took 61 on KaplasTower).  Adaptive rho [stellato2020 sec. 5.2]: every
 * ADMM_ADAPT iterations, rho times sqrt(scaled primal / scaled dual
 * residual), within ADMM_RHO_RANGE of the mean diagonal, taken when it
 * moves rho by more than ADMM_JUMP, at most ADMM_MAX_CHANGES times; each
 * change refactors S A S + rho I and rescales u.  Cold: z = P_C(0), u = 0;
 * warm (opt->warm_start): z = P_C(x) and u = -D^-1 (A z + q) / rho (the
 * multiplier at z = x), so that a converged warm start stays put.
 *
 * A nonsymmetric A (RockPile_tob1: |A - A'| / |A| = 7e-4 with a PSD
 * symmetric part) makes the x-update the resolvent of the monotone map
 * x -> A x + q, and the iteration Douglas-Rachford on the monotone
 * inclusion 0 in A x + q + N_C(x) [boyd2011 sec. 3.5; the FC3D_ADMM of
 * Siconos factors the same matrix by LU]; x'Ax >= 0 is what it needs, as
 * the symmetric case needs A PSD.  It is not checked: an A with negative
 * curvature makes the iterates grow (SLV_NOT_FINITE or SLV_MAX_ITER).
 *
 * Linear algebra: through the linear-system interface (linsys.h), which
 * chooses the back end (docs/solver-machinery.md, "Linear systems"): with a packed
 * copy of A, its CSR form, so that above SLV_LS_DENSE_MAX rows the sparse
 * back ends take it; else the dense form.  A symmetric A makes A + rho I
 * positive definite: Cholesky (CHOLMOD's with its own diagonal shift
 * [chen2008], analysed once per problem and factored per rho; or LAPACK's
 * on the dense matrix).  A nonsymmetric A gets an LU instead (UMFPACK
 * [davis2004], no iterative refinement: ADMM's next iteration corrects a
 * step; or LAPACK's dgetrf).  The packed copy, read by columns, is the CSR
 * form of A', so the LU solves with the transpose.  The sparse system is
 * made once per problem; the dense one, for n_max rows, at init; the
 * iterations only solve, which allocates nothing.  CHOLMOD opens OpenMP
 * teams of its own; on any opt->threads they are kept to the idle cores
 * (chol.h).
 *
 * Stopping test: the library's on z (which is in C) with w = A z + b,
 * computed every iteration, confirmed on the library's exact product.
 * With a stall window (slv_admm_set_stall, auto's hand-over to
 * nsgs_newton), SLV_STAGNATED after that many iterations without halving
 * the test's measure (slv_test_measure: res_scaled, or with the 2-norm test
 * the larger of it and res_rel_2).
 * Statuses: SLV_CONVERGED, SLV_MAX_ITER, SLV_STAGNATED,
 * SLV_NOT_FINITE, SLV_BREAKDOWN (A + rho I not positive definite, or
 * singular for an LU: A not PSD), SLV_ERR_NOMEM (no memory for the factor).  Reads max_iter, tol,
 * norm, warm_start, threads, record_history.
 */
#include "linsys.h"
#include "slv_internal.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

enum {
  ADMM_ADAPT = 10,      /* iterations between two rho decisions */
  ADMM_MAX_CHANGES = 40 /* rho changes per solve at most */
};
#define ADMM_ALPHA     1.0  /* relaxation: the plain step (header; boyd2011 sec. 3.4.3) */
#define ADMM_JUMP      5.0  /* rho changes only by more than this factor [stellato2020: 5] */
#define ADMM_RHO0      1e-2 /* the start: rho = ADMM_RHO0 x the mean diagonal of D^-1 A */
#define ADMM_RHO_RANGE 1e6  /* rho within the mean diagonal times / over this */

/* A's packed copy as scalar CSC arrays (the CSR form of A'): the packed
 * copy itself (SLV_OP_COLS), or its 3x3 blocks expanded into cp/ci/cx. */
typedef struct {
  const int *p, *i;
  const double *x;
  int *cp, *ci; /* the expansion's own arrays, n_cap + 1 and nz_cap */
  double *cx;
  size_t n_cap, nz_cap;
} admm_csc;

typedef struct {
  int n_max;
  double *buf; /* 10 n_max */
  double *z, *u, *xs, *q, *w, *zold, *rhs, *diag;
  double *dm, *sc;   /* the metric D (slv_op_metric) and sc = D^-1/2 */
  int lu;            /* this problem's A is not symmetric: LU, not Cholesky */
  int sparse;        /* this problem's system is s->ls, not s->dense */
  slv_linsys *dense; /* the dense system (n_max rows, or a larger unpacked A) */
  slv_linsys *ls;    /* this problem's sparse-form system */
  admm_csc C;        /* its CSR arrays (A' read by rows) */
  int stall;         /* 0, or: SLV_STAGNATED after this many iterations without
                          halving the residual (slv_admm_set_stall) */
} admm_state;

void slv_admm_set_stall(void *state, int iterations) {
  ((admm_state *)state)->stall = iterations > 0 ? iterations : 0;
}

static void admm_free(void *st) {
  admm_state *s = st;
  slv_linsys_free(s->ls);
  slv_linsys_free(s->dense);
  free(s->C.cp), free(s->C.ci), free(s->C.cx);
  free(s->buf);
  memset(s, 0, sizeof *s);
}

static slv_status admm_init(void *st, int n_max, const slv_options *opt) {
  (void)opt;
  admm_state *s = st;
  size_t m = (size_t)(n_max > 0 ? n_max : 1);
  s->n_max = n_max;
  s->buf = malloc(10 * m * sizeof *s->buf);
  /* the dense system up front when the rule factors n_max rows dense */
  int dense_ok = slv_linsys_choose(SLV_LS_SPD, n_max, 1) != SLV_LS_DENSE ||
                 slv_linsys_dense_reserve(&s->dense, n_max) == SLV_LS_OK;
  if (!s->buf || !dense_ok) {
    admm_free(s);
    return SLV_ERR_NOMEM;
  }
  double *b = s->buf;
  s->z = b, s->u = b + m, s->xs = b + 2 * m, s->q = b + 3 * m;
  s->w = b + 4 * m, s->zold = b + 5 * m, s->rhs = b + 6 * m, s->diag = b + 7 * m;
  s->dm = b + 8 * m, s->sc = b + 9 * m;
  return SLV_OK;
}

/* ---- the linear system (A + rho D) x = r -------------------------------------- */

/* C's own arrays for n columns and nz entries, grown when too small.  0 or
 * -1 (no memory). */
static int csc_reserve(admm_csc *C, int n, size_t nz) {
  if ((size_t)n + 1 > C->n_cap) {
    free(C->cp);
    C->cp = malloc(((size_t)n + 1) * sizeof *C->cp);
    C->n_cap = C->cp ? (size_t)n + 1 : 0;
  }
  if (nz > C->nz_cap) {
    free(C->ci), free(C->cx);
    C->ci = malloc(nz * sizeof *C->ci);
    C->cx = malloc(nz * sizeof *C->cx);
    C->nz_cap = C->ci && C->cx ? nz : 0;
  }
  if (!C->n_cap || (nz && !C->nz_cap)) return -1;
  return 0;
}

/* The 3x3 blocks of the packed copy expanded to scalar columns (own
 * arrays, grown when too small).  0 or -1 (no memory). */
static int csc_of_blocks_reserve(admm_csc *C, const slv_op *op) {
  int n = op->n;
  size_t nz = 9 * (size_t)op->colptr[n / 3];
  if (csc_reserve(C, n, nz)) return -1;
  size_t q = 0;
  C->cp[0] = 0;
  for (int j = 0; j < n; j++) {
    int J = j / 3, c = j - 3 * J;
    for (int k = op->colptr[J]; k < op->colptr[J + 1]; k++)
      for (int r = 0; r < 3; r++) {
        C->ci[q] = 3 * op->rowind[k] + r;
        C->cx[q++] = op->val[9 * (size_t)k + 3 * c + r];
      }
    C->cp[j + 1] = (int)q;
  }
  C->p = C->cp, C->i = C->ci, C->x = C->cx;
  return 0;
}

/* The scalar columns of a column-packed copy in own arrays (their values
 * are scaled, scale_csc).  0 or -1 (no memory). */
static int csc_of_cols_reserve(admm_csc *C, const slv_op *op) {
  int n = op->n;
  size_t nz = (size_t)op->colptr[n];
  if (csc_reserve(C, n, nz)) return -1;
  memcpy(C->cp, op->colptr, ((size_t)n + 1) * sizeof *C->cp);
  memcpy(C->ci, op->rowind, nz * sizeof *C->ci);
  memcpy(C->cx, op->val, nz * sizeof *C->cx);
  C->p = C->cp, C->i = C->ci, C->x = C->cx;
  return 0;
}

/* The system's matrix S A S, S = diag(sc) (docs/cone-solvers.md, "ADMM"). */
static void scale_csc(admm_csc *C, int n, const double *sc) {
  for (int j = 0; j < n; j++)
    for (int k = C->cp[j]; k < C->cp[j + 1]; k++) C->cx[k] *= sc[C->ci[k]] * sc[j];
}

/* This problem's system: its sparse form analysed when the rule wants it
 * (a packed copy, above SLV_LS_DENSE_MAX rows), else the dense system
 * (grown for a large A without a packed copy).  0 or -1. */
static int admm_reserve(admm_state *s, slv_op *op) {
  int n = op->n;
  slv_ls_kind kind = s->lu ? SLV_LS_GENERAL : SLV_LS_SPD;
  slv_linsys_free(s->ls);
  s->ls = NULL;
  s->sparse = slv_linsys_choose(kind, n, op->packed != 0) != SLV_LS_DENSE;
  if (!s->sparse) return slv_linsys_dense_reserve(&s->dense, n) == SLV_LS_OK ? 0 : -1;
  admm_csc *C = &s->C;
  if (op->packed == SLV_OP_COLS) {
    if (csc_of_cols_reserve(C, op)) return -1;
  } else if (csc_of_blocks_reserve(C, op))
    return -1;
  scale_csc(C, n, s->sc);
  slv_ls_status st;
  s->ls = slv_linsys_analyse_sorted(kind, SLV_LS_AUTO, n, C->p, C->i, &st);
  slv_linsys_set_refinement(s->ls, 0); /* ADMM's next iteration corrects a step */
  return s->ls ? 0 : -1;
}

/* Factor S A S + rho I, S = D^-1/2 (Cholesky, or LU when s->lu): the
 * system of A + rho D scaled.  0, 1 when not positive definite (Cholesky)
 * or singular (LU), -1 out of memory. */
static int admm_factor(admm_state *s, slv_op *op, double rho) {
  slv_ls_status st;
  if (s->sparse) {
    st = slv_linsys_factor_shifted(s->ls, s->C.x, rho);
  } else {
    int n = op->n;
    double *v = slv_linsys_dense_values(s->dense, n);
    slv_op_to_dense(op, v, n);
    for (int j = 0; j < n; j++)
      for (int i = 0; i < n; i++) v[i + (size_t)n * j] *= s->sc[i] * s->sc[j];
    st = slv_linsys_factor_dense(s->dense, s->lu ? SLV_LS_GENERAL : SLV_LS_SPD, rho);
  }
  if (st == SLV_LS_OK) return 0;
  return st == SLV_LS_NOT_SPD || st == SLV_LS_SINGULAR ? 1 : -1;
}

/* r <- (A + rho D)^-1 r = S (S A S + rho I)^-1 S r (the sparse LU holds
 * the factors of the transpose). */
static int admm_lsolve(admm_state *s, int n, double *r) {
  for (int i = 0; i < n; i++) r[i] *= s->sc[i];
  slv_ls_status st;
  if (!s->sparse)
    st = slv_linsys_solve(s->dense, r);
  else
    st = s->lu ? slv_linsys_solve_transposed(s->ls, r) : slv_linsys_solve(s->ls, r);
  for (int i = 0; i < n; i++) r[i] *= s->sc[i];
  return st != SLV_LS_OK;
}

/* ---- the iteration ------------------------------------------------------------- */

/* z = P_C(v) row by row (cones, boxes, free rows). */
static void project_C(const slv_problem *p, const double *v, double *z) {
  int k = 0;
  for (int i = 0; i < p->n; i++) {
    if (k < p->ncones && p->cone_rows[k] == i) {
      slv_cone_project(p->cone_mu[k], v + i, z + i);
      i += 2;
      k++;
      continue;
    }
    double lo = slv_lo_of(p, i), hi = slv_hi_of(p, i);
    z[i] = v[i] < lo ? lo : (v[i] > hi ? hi : v[i]);
  }
}

/* q = b + s(w): the De Saxce shift on the Coulomb cones (q = b for the
 * associated law). */
static void shifted_q(const slv_problem *p, const double *w, double *q) {
  memcpy(q, p->b, (size_t)p->n * sizeof *q);
  if (p->cone_law != SLV_CONE_COULOMB) return;
  for (int k = 0; k < p->ncones; k++) {
    int i = p->cone_rows[k];
    q[i] += slv_desaxce_shift(p->cone_mu[k], w[i + 1], w[i + 2]);
  }
}

/* The metric D and sc = D^-1/2; returns the mean diagonal of S A S (1
 * when every A_ii is positive). */
static double set_metric(admm_state *s, const slv_op *op) {
  double m = 0;
  slv_op_metric(op, s->dm);
  for (int i = 0; i < op->n; i++) {
    s->sc[i] = 1 / sqrt(s->dm[i]);
    m += slv_op_diag(op, i) / s->dm[i];
  }
  return op->n > 0 && m > 0 ? m / op->n : 1.0;
}

typedef struct {
  double rho, rp, rd;      /* penalty; primal ||x - z||, dual rho ||z - z_old|| */
  double scale_p, scale_d; /* max(||x||, ||z||), max(rho ||u||, ||q||) */
  double rho_lo, rho_hi;   /* rho's range, around the mean diagonal of A */
  int changes;
} admm_run;

/* One ADMM iteration.  The De Saxce shift of the next iteration is taken
 * at the x-update's velocity A x + b, which the linear system gives for
 * free: (A + rho I) x = r, so A x = r - rho x.  (Taking it at z instead, as
 * this solver first did, lets a small rho diverge on FC3D problems: the
 * projection moves z off the equilibrium the shift must follow.)  Leaves
 * w = A z + b for the stopping test, the new q, and the primal and dual
 * residuals and their scales in k.  0, or -1 when the linear solve failed. */
static int admm_step(admm_state *s, slv_op *op, admm_run *k, double *x) {
  const slv_problem *p = op->p;
  int n = p->n;
  const double *dm = s->dm;
  for (int i = 0; i < n; i++) s->rhs[i] = x[i] = k->rho * dm[i] * (s->z[i] - s->u[i]) - s->q[i];
  if (admm_lsolve(s, n, x)) return -1;
  for (int i = 0; i < n; i++) s->w[i] = s->rhs[i] - k->rho * dm[i] * x[i] + p->b[i]; /* A x + b */
  shifted_q(p, s->w, s->q);
  memcpy(s->zold, s->z, (size_t)n * sizeof *x);
  for (int i = 0; i < n; i++) {
    double xh = ADMM_ALPHA * x[i] + (1 - ADMM_ALPHA) * s->zold[i];
    s->rhs[i] = xh + s->u[i];
    s->xs[i] = xh;
  }
  project_C(p, s->rhs, s->z);
  double rp = 0, rd = 0, nx = 0, nz = 0, nu = 0, nq = 0;
  for (int i = 0; i < n; i++) {
    s->u[i] += s->xs[i] - s->z[i];
    rp += (x[i] - s->z[i]) * (x[i] - s->z[i]);
    double dz = dm[i] * (s->z[i] - s->zold[i]), du = dm[i] * s->u[i];
    rd += dz * dz;
    nx += x[i] * x[i], nz += s->z[i] * s->z[i], nu += du * du, nq += s->q[i] * s->q[i];
  }
  k->rp = sqrt(rp);
  k->rd = k->rho * sqrt(rd);
  k->scale_p = fmax(sqrt(nx), sqrt(nz));
  k->scale_d = fmax(k->rho * sqrt(nu), sqrt(nq));
  slv_op_matvec(op, s->z, p->b, s->w);
  return 0;
}

/* Residual balancing in one jump [stellato2020 sec. 5.2, OSQP]: the
 * residuals scaled by their own magnitudes, rho times sqrt(primal / dual),
 * within [rho_lo, rho_hi]; taken only when it moves rho by more than
 * ADMM_JUMP (each change refactors A + rho I), and u rescaled.  0, or the
 * factor's error. */
static int admm_adapt(admm_state *s, slv_op *op, admm_run *k) {
  if (k->changes >= ADMM_MAX_CHANGES || !(k->rp > 0) || !(k->rd > 0)) return 0;
  double p = k->rp / fmax(k->scale_p, DBL_MIN), d = k->rd / fmax(k->scale_d, DBL_MIN);
  double rho = fmin(fmax(k->rho * sqrt(p / d), k->rho_lo), k->rho_hi);
  if (!(rho > ADMM_JUMP * k->rho || rho * ADMM_JUMP < k->rho)) return 0;
  for (int i = 0; i < op->n; i++) s->u[i] *= k->rho / rho;
  k->rho = rho;
  k->changes++;
  return admm_factor(s, op, k->rho);
}

/* The start.  Warm: z = P_C(x) and u = -(A z + q) / rho, the multiplier of
 * x = z there, so that a solution stays put.  Cold: z = P_C(0) and u = 0,
 * as Siconos' FC3D_ADMM starts: with the small start rho, -(A z + q) / rho
 * would be a huge first multiplier far from any solution. */
static void admm_start(admm_state *s, slv_op *op, const slv_options *opt, double rho,
                       const double *x) {
  const slv_problem *p = op->p;
  int n = p->n;
  if (opt->warm_start)
    project_C(p, x, s->z);
  else
    memset(s->z, 0, (size_t)n * sizeof *s->z), project_C(p, s->z, s->z);
  slv_op_matvec(op, s->z, p->b, s->w);
  shifted_q(p, s->w, s->q);
  for (int i = 0; i < n; i++) {
    double g = s->w[i] + (s->q[i] - p->b[i]); /* A z + q */
    s->u[i] = opt->warm_start ? -g / (rho * s->dm[i]) : 0.0;
  }
}

static slv_status admm_fail(const admm_state *s, slv_result *res, int e, double rho) {
  if (e < 0) {
    slv_msgf(res->message, sizeof res->message, "admm: no memory for the factor of A + rho I");
    return SLV_ERR_NOMEM;
  }
  if (s->lu) {
    slv_msgf(res->message, sizeof res->message,
             "admm: A + rho I singular (rho=%.3g): A has eigenvalues near -rho", rho);
    return SLV_BREAKDOWN;
  }
  slv_msgf(res->message, sizeof res->message,
           "admm: A + rho I not positive definite (rho=%.3g): A is not PSD", rho);
  return SLV_BREAKDOWN;
}

static slv_status admm_solve(void *st, slv_op *op, const slv_options *opt, double *x, double *w,
                             slv_result *res, slv_hist *h) {
  admm_state *s = st;
  const slv_problem *p = op->p;
  int n = p->n;
  slv_op_pack(op);
  int si, sj;
  s->lu = !slv_op_is_symmetric(op, 1e-12, &si, &sj);
  double md = set_metric(s, op);
  admm_run k = { .rho = ADMM_RHO0 * md,
                 .rho_lo = md / ADMM_RHO_RANGE,
                 .rho_hi = md * ADMM_RHO_RANGE };
  if (admm_reserve(s, op)) return admm_fail(s, res, -1, k.rho);
  int e = admm_factor(s, op, k.rho);
  if (e) return admm_fail(s, res, e, k.rho);
  admm_start(s, op, opt, k.rho, x);
  double b2 = 0;
  for (int i = 0; i < n; i++) b2 += p->b[i] * p->b[i];
  b2 = fmax(1.0, sqrt(b2));
  const char *law = slv_cone_law_str(p->cone_law);
  const slv_rowscale *rs = slv_op_rowscale(op);
  slv_natmap r = slv_natmap_of(p, s->z, s->w, rs);
  if (opt->warm_start && slv_met_norms(opt, r.scaled, r.n2 / b2)) { /* nothing to do */
    memcpy(x, s->z, (size_t)n * sizeof *x);
    slv_msgf(res->message, sizeof res->message, "admm, %s law: the warm start is a solution", law);
    return SLV_CONVERGED;
  }
  double mark_r = INFINITY; /* the stall test: the test's measure at the last halving */
  int mark_it = 0;
  double step_work = 4.0 * slv_op_nnz(op); /* about a step's work, found once */
  for (int it = 1; it <= opt->max_iter; it++) {
    slv_status stop = slv_should_stop(op, step_work);
    if (stop) {
      memcpy(x, s->z, (size_t)n * sizeof *x); /* the last iterate */
      return stop;
    }
    if (admm_step(s, op, &k, x)) return admm_fail(s, res, -1, k.rho);
    res->iterations = it;
    r = slv_natmap_of(p, s->z, s->w, rs);
    if (isnan(r.inf)) {
      slv_msgf(res->message, sizeof res->message, "admm: iterate became non-finite");
      memcpy(x, s->z, (size_t)n * sizeof *x);
      return SLV_NOT_FINITE;
    }
    double rt = slv_test_measure_norms(opt, r.scaled, r.n2 / b2); /* the test's measure */
    res->solver_residual = rt;
    slv_history_push(h, res, rt);
    if (slv_met_norms(opt, r.scaled, r.n2 / b2)) {
      memcpy(x, s->z, (size_t)n * sizeof *x);
      slv_op_w(op, x, w);
      r = slv_natmap_of(p, x, w, rs);
      if (slv_met_norms(opt, r.scaled, r.n2 / b2)) {
        slv_msgf(res->message, sizeof res->message,
                 "admm, %s law: %d iterations (each one outer De Saxce update), rho=%.3g after "
                 "%d changes",
                 law, it, k.rho, k.changes);
        return SLV_CONVERGED;
      }
    }
    if (rt < 0.5 * mark_r) mark_r = rt, mark_it = it;
    if (s->stall > 0 && it - mark_it >= s->stall) {
      memcpy(x, s->z, (size_t)n * sizeof *x);
      slv_op_w(op, x, w);
      slv_msgf(res->message, sizeof res->message,
               "admm, %s law: stalled: %d iterations without halving res_scaled (%.3g > tol=%.3g)",
               law, s->stall, res->solver_residual, opt->tol);
      return SLV_STAGNATED;
    }
    if (it % ADMM_ADAPT == 0 && (e = admm_adapt(s, op, &k)) != 0) {
      memcpy(x, s->z, (size_t)n * sizeof *x);
      return admm_fail(s, res, e, k.rho);
    }
  }
  memcpy(x, s->z, (size_t)n * sizeof *x);
  slv_op_w(op, x, w);
  slv_msgf(res->message, sizeof res->message,
           "admm, %s law: max_iter=%d reached, res_scaled=%.3g > tol=%.3g (rho=%.3g after %d "
           "changes)",
           law, opt->max_iter, res->solver_residual, opt->tol, k.rho, k.changes);
  return SLV_MAX_ITER;
}

static const slv_impl admm_impl = {
  .state_size = sizeof(admm_state),
  .init = admm_init,
  .free = admm_free,
  .solve = admm_solve,
};

/* the params line below quotes these */
_Static_assert(ADMM_ADAPT == 10 && ADMM_MAX_CHANGES == 40, "admm params");

const slv_solver slv_solver_admm = {
  .name = "admm",
  .summary = "ADMM on the cone QP / De Saxce fixed point, adaptive rho "
             "(Cholesky: CHOLMOD or dense; LU for a nonsymmetric A: UMFPACK or dense)",
  .cite = "boyd2011",
  .caps = SLV_CAP_CONE | SLV_CAP_BOX | SLV_CAP_FREE | SLV_CAP_SPARSE,
  /* clang-format off */
  .params =
      "rho D, D = diag(A) (cone: mean), rho0 = " SLV_STR(ADMM_RHO0) "; every 10 its x "
      "sqrt(primal/dual) if > " SLV_STR(ADMM_JUMP) "x, within " SLV_STR(ADMM_RHO_RANGE)
      ", <= 40 changes; alpha = " SLV_STR(ADMM_ALPHA) "; stall: none (auto: 400)",
  /* clang-format on */
  .impl = &admm_impl,
};
