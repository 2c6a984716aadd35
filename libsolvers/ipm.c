/* ipm.c -- primal-dual interior point on the cone problem, both laws
 * (docs/cone-solvers.md, "Interior point").
 *
 * Problem (cone_qp.h): w = A x + bq with A positive semidefinite (x'Ax >= 0),
 *     cones:     K_mu ∋ x_c  ⊥  w_c ∈ K* = K_{1/mu}
 *     box rows:  lo_i <= x_i <= hi_i with the sign conditions of slv.h
 * (free rows: w_i = 0; rows with lo_i = hi_i: x_i fixed).  bq = b for the
 * associated law; for Coulomb's law bq = b + s with the De Saxce shift
 * s_c = (mu |w_t|, 0, 0), fixed during one interior-point solve and
 * updated between them (the fixed point of cone_qp.h; below).  For a
 * symmetric A this is the convex QP's KKT system; for a nonsymmetric one
 * the monotone complementarity problem.
 *
 * The interior point.  A cone is mapped to the standard second-order cone
 * L = { z_0 >= |z_1| } by D = diag(mu, 1, 1): xh = D x ∈ L and wh = D^-1 w
 * ∈ L (xh'wh = x'w).  A box row has one scalar pair per finite bound,
 * (s1, z1) = (x - lo, w+) and (s2, z2) = (hi - x, w-), w = z1 - z2.  The
 * iterates keep every pair strictly inside its cone; the dual variable w is
 * an unknown of its own, tied to A x + bq by the residual rd = A x + bq - w
 * (an infeasible start from the centre of the cones, in the problem's own
 * units of x and w: set_units, so that the iterates scale with A and b and
 * the work does not).  Each iteration is
 * one Mehrotra predictor-corrector step [mehrotra1992] on the central path
 * x o w = mu e, with the Nesterov-Todd scaling of each cone [nesterov1997;
 * the formulas of the CVXOPT cone QP solver, vandenberghe2010]: W with
 * W xh = W^-1 wh = lambda, W = beta (2 v v' - J), J = diag(1, -1, -1).
 * Eliminating dw leaves
 *     (A + blockdiag(D W^2 D) + diag(z1/s1 + z2/s2)) dx = rhs,
 * positive definite for A positive semidefinite (a free row adds
 * IPM_FREE_REG max |A_ii| to its diagonal).  A symmetric A: CHOLMOD [chen2008] on the
 * pattern of A's upper triangle with every diagonal block added; a
 * nonsymmetric one: UMFPACK's LU [davis2004] on the whole pattern; either
 * analysed once per solve, factored numerically once per iteration, the
 * predictor and the corrector solved with the same factor.  The pyramid
 * exports of 10 to 30 layers (1200 to 10,800 rows, W of rank far below n,
 * many contacts with x_c and w_c both tending to zero) take 10 to 12
 * iterations: that degeneracy is what interior points ignore and what
 * projections, ADMM and the Newton methods on the natural map do not.
 *
 * The polish.  Where a pair tends to zero on both sides the natural map of
 * the iterates falls only as the square root of the path parameter, and the
 * interior point stalls near 1e-6 on the largest exports.  When it stops
 * gaining (IPM_STALL_RUN iterations without halving it, counted from
 * IPM_STALL_FROM) or after IPM_MAX_RUN, nsgs sweeps the same QP from its
 * best iterate for up to IPM_POLISH_SWEEPS sweeps, kept if better: from that
 * close the sweeps remove the small complementarity errors left (40-layer
 * pyramid, associated law: about 3e-7 to 2.1e-8).
 *
 * Coulomb's law: the De Saxce fixed point of [acary2011], each QP solved by
 * an interior point and the polish, to half the tolerance: the first from
 * the centre, each later one warm from the last QP's iterate (start_warm)
 * while the test's measure is above IPM_WARM_ABOVE x tol, redone from the
 * centre when that start fails; near the tolerance from the centre again
 * (warm answers met the library's test where a per-contact judge did not:
 * tests/test_scaling.c, the whole problem x 1e-9).  The first
 * QP has s = 0 from a cold start (the associated problem: on a stack of
 * boxes already the Coulomb solution), then s = F at the best iterate, or
 * at the last one when that shift was tried; the best iterate is returned,
 * and the loop ends at SLV_STAGNATED after IPM_OUTER_STALL outer iterations
 * without a 1 % gain, or below the accuracy floor IPM_FLOOR (where a 1 %
 * change is rounding) after IPM_FLOOR_STALL without halving the measure.
 * On a condensed problem's tightened run the caller's full test
 * (slv_caller_met) is checked at each outer iteration too: the run ends
 * converged there, before its own tighter tol (docs/cone-solvers.md,
 * "Interior point", "Near the accuracy floor").  The status is decided on
 * the returned iterate: one that meets the test is converged, after a
 * failed QP too.  Where contacts slide the fixed point contracts
 * slowly or stalls (docs/solvers.md has the numbers).
 *
 * Warm start: a start that meets the test is returned; else nsgs sweeps the
 * problem itself from it first (a start near the answer needs no
 * factorization); the first interior point starts from the centre.
 * opt->max_iter counts interior-point iterations (factorizations) over the
 * whole solve; result.iterations is that count, the message adds the
 * outer iterations and the polish sweeps.  The history holds, per
 * interior-point iteration, res_rel of the problem's law; its last entry is
 * the returned iterate's.
 *
 * Linear algebra and allocation: the Newton matrix is a system of the
 * linear-system interface (linsys.h) on its sparse back ends at every size
 * (docs/solver-machinery.md, "Linear systems": CHOLMOD, or UMFPACK's LU for a
 * nonsymmetric A); the pattern and its analysis are made once per solve
 * (ipm_pattern_reserve); CHOLMOD's numeric factorization reuses its factor
 * and cholmod_solve2 its workspace; UMFPACK's numeric object is made per
 * factorization, as in nsn_ac's large LUs.  CHOLMOD's own OpenMP teams
 * are kept to the idle cores on any opt->threads (chol.h).  x'Ax >= 0 is
 * not checked: a
 * factorization that fails after IPM_REG_TRIES regularizations is
 * SLV_BREAKDOWN.  Statuses: SLV_CONVERGED, SLV_MAX_ITER, SLV_STAGNATED,
 * SLV_NOT_FINITE, SLV_BREAKDOWN, SLV_ERR_NOMEM, SLV_ERR_UNSUPPORTED (a
 * nonsymmetric CSR A with more nonzeros than the packed copy holds).
 */
#include "ipm.h"

#include <stdlib.h>
#include <string.h>

extern const slv_solver slv_solver_nsgs;


static void ipm_free(void *st) {
  ipm_state *s = st;
  slv_cqp_free(&s->q);
  slv_linsys_free(s->ls);
  if (s->nsgs) {
    slv_solver_nsgs.impl->free(s->nsgs);
    free(s->nsgs);
  }
  free(s->buf);
  free(s->kind);
  free(s->cone_of);
  free(s->stamp);
  free(s->Kp);
  free(s->Ki);
  free(s->Kx);
  free(s->Ka);
  free(s->bpos);
  free(s->dpos);
  free(s->sk);
  memset(s, 0, sizeof *s);
}

static slv_status ipm_init(void *st, int n_max, const slv_options *opt) {
  ipm_state *s = st;
  size_t m = (size_t)(n_max > 0 ? n_max : 1);
  s->n_max = n_max;
  if (slv_cqp_alloc(&s->q, n_max)) return SLV_ERR_NOMEM;
  enum { NVEC = 24 };
  s->buf = malloc(NVEC * m * sizeof *s->buf);
  s->kind = malloc(m * sizeof *s->kind);
  s->cone_of = malloc(m * sizeof *s->cone_of);
  s->stamp = malloc(m * sizeof *s->stamp);
  s->Kp = malloc((m + 1) * sizeof *s->Kp);
  s->bpos = malloc(3 * m * sizeof *s->bpos); /* 9 per cone of 3 rows */
  s->dpos = malloc(m * sizeof *s->dpos);
  s->nsgs = calloc(1, slv_solver_nsgs.impl->state_size);
  s->sk = malloc(m * sizeof *s->sk);
  if (!s->sk || !s->buf || !s->kind || !s->cone_of || !s->stamp || !s->Kp || !s->bpos || !s->dpos ||
      !s->nsgs || slv_solver_nsgs.impl->init(s->nsgs, n_max, opt) != SLV_OK) {
    ipm_free(s);
    return SLV_ERR_NOMEM;
  }
  double *b = s->buf;
  double **vec[NVEC] = { &s->x,   &s->w,   &s->z1,  &s->z2,   &s->g,   &s->rd,  &s->dx, &s->dw,
                         &s->dz1, &s->dz2, &s->ax,  &s->aw,   &s->az1, &s->az2, &s->v,  &s->beta,
                         &s->lam, &s->c,   &s->rhs, &s->best, &s->wt,  &s->px,  &s->pw, NULL };
  for (int k = 0; k < NVEC && vec[k]; k++) *vec[k] = b + (size_t)k * m;
  return SLV_OK;
}

/* ---- one QP solve ----------------------------------------------------------------- */

/* The centre of the cones in the problem's units (set_units): cones x =
 * (xs/mu, 0, 0), w = (ws mu, 0, 0) (xh = xs e, wh = ws e); box rows at
 * distance xs from each finite bound (the middle of a narrower box) with
 * z = ws; free rows x = 0; fixed rows x = lo. */
static void start_point(ipm_state *s) {
  const slv_cqp *q = &s->q;
  double xs = s->xs, ws = s->ws;
  for (int k = 0; k < q->nblk; k++) {
    int i = q->blk_row[k];
    double lo = q->lo[i], hi = q->hi[i];
    if (q->blk_mu[k] > 0) {
      s->x[i] = xs / q->blk_mu[k], s->x[i + 1] = s->x[i + 2] = 0;
      s->w[i] = ws * q->blk_mu[k], s->w[i + 1] = s->w[i + 2] = 0;
      continue;
    }
    s->z1[i] = s->z2[i] = 0;
    if (s->kind[i] == ROW_FIXED) {
      s->x[i] = lo;
    } else if (s->kind[i] == ROW_FREE) {
      s->x[i] = 0;
    } else {
      if (lo > -INFINITY && hi < INFINITY)
        s->x[i] = hi - lo > 2 * xs ? lo + xs : 0.5 * (lo + hi);
      else
        s->x[i] = lo > -INFINITY ? lo + xs : hi - xs;
      if (lo > -INFINITY) s->z1[i] = ws;
      if (hi < INFINITY) s->z2[i] = ws;
    }
    s->w[i] = s->z1[i] - s->z2[i];
  }
}

/* A warm start for the next QP of the fixed point: the cones' pairs at
 * the previous QP's iterate x0, x0 and A x0 + bq (the new shift), each
 * pushed into L by IPM_WARM_PUSH beyond its boundary (xh0 = max(xh0,
 * |xh_t|) + push: the pair's direction kept; in the units of the centre
 * start_point uses, xh = xs e, wh = ws e; a push of 1e-3 times the pair's
 * own norm took more iterations:
 * experiments/records/2026-11-25-ipm-time-1e4-exports.md); free
 * rows, and box rows strictly inside their bounds, at x0; the box
 * multipliers and the other rows as start_point.  The shifts of
 * successive QPs differ little, so the path starts near its end. */
static void start_warm(ipm_state *s, const double *x0) {
  const slv_cqp *q = &s->q;
  start_point(s);
  slv_cqp_matvec(&s->q, x0, s->g);
  for (int k = 0; k < q->nblk; k++) {
    int i = q->blk_row[k];
    if (s->kind[i] == ROW_FREE || (s->kind[i] == ROW_BOX && x0[i] > q->lo[i] && x0[i] < q->hi[i]))
      s->x[i] = x0[i];
    if (!(q->blk_mu[k] > 0)) continue;
    double mu = q->blk_mu[k], g[3], xh[3], wh[3];
    for (int e = 0; e < 3; e++) g[e] = s->g[i + e] + q->bq[i + e];
    slv_ipm_to_hat(mu, x0 + i, g, xh, wh);
    if (!slv_all_finite(3, xh) || !slv_all_finite(3, wh)) continue; /* this cone: the centre */
    xh[0] = fmax(xh[0], hypot(xh[1], xh[2])) + IPM_WARM_PUSH * s->xs;
    wh[0] = fmax(wh[0], hypot(wh[1], wh[2])) + IPM_WARM_PUSH * s->ws;
    s->x[i] = xh[0] / mu, s->x[i + 1] = xh[1], s->x[i + 2] = xh[2];
    s->w[i] = wh[0] * mu, s->w[i + 1] = wh[1], s->w[i + 2] = wh[2];
  }
}

/* g = A x + bq, rd = g - w (0 on fixed rows, whose w is g), the measures
 * of the QP's natural map at x, and the complementarity mu (the mean over
 * the pairs). */
static slv_natmap evaluate(ipm_state *s, const slv_problem *pq, double *mu) {
  slv_cqp *q = &s->q;
  int n = pq->n;
  slv_cqp_matvec(q, s->x, s->g);
  for (int i = 0; i < n; i++) s->g[i] += q->bq[i];
  for (int i = 0; i < n; i++) {
    if (s->kind[i] == ROW_FIXED) s->w[i] = s->g[i];
    s->rd[i] = s->g[i] - s->w[i];
  }
  int deg;
  double gap = slv_ipm_gap(s, 0, NULL, NULL, NULL, NULL, &deg);
  *mu = deg > 0 ? gap / deg : 0;
  return slv_natmap_of(pq, s->x, s->g, &s->rq);
}

typedef struct {
  int iters;  /* interior-point iterations of this solve so far (all QPs) */
  int budget; /* opt->max_iter */
  double b2;  /* max(1, ||b||_2): res_rel_2's scale */
} ipm_count;

/* Whether the QP's measures meet tol_in by the library's test. */
static int qp_met(const slv_options *opt, const ipm_count *k, double tol_in, slv_natmap r) {
  slv_options o = *opt;
  o.tol = tol_in;
  return slv_met_norms(&o, r.scaled, r.n2 / k->b2);
}

/* The QP of q->bq by the interior point, from the centre (x0 NULL) or
 * warm from x0 (start_warm), until its
 * natural map meets tol_in (in the test's norm), or it stops gaining
 * (IPM_STALL_RUN iterations without halving it), or IPM_MAX_RUN iterations, or the
 * budget.  s->best gets the iterate of least residual (in the test's norm);
 * returns SLV_CONVERGED, SLV_MAX_ITER (stalled or out of iterations), or a
 * failure of slv_ipm_iterate(). */
static slv_status qp_interior(ipm_state *s, const slv_problem *pq, const slv_options *opt,
                              double tol_in, ipm_count *k, slv_result *res, slv_hist *h,
                              double *rbest, const double *x0) {
  int n = pq->n;
  if (x0)
    start_warm(s, x0);
  else
    start_point(s);
  *rbest = INFINITY;
  double mark = INFINITY;
  int since = 0;
  for (int it = 0;; it++) {
    double mu;
    slv_natmap r = evaluate(s, pq, &mu);
    if (isnan(r.inf)) return *rbest < INFINITY ? SLV_MAX_ITER : SLV_NOT_FINITE; /* keep the best */
    double m = slv_test_measure_norms(opt, r.scaled, r.n2 / k->b2);
    if (it > 0 && h->cap > 0)
      slv_history_push(h, res, slv_cqp_lawres(&s->q, s->x, s->g) * s->q.hist_scale);
    if (m < *rbest) {
      *rbest = m;
      memcpy(s->best, s->x, (size_t)n * sizeof *s->best);
    }
    if (qp_met(opt, k, tol_in, r)) return SLV_CONVERGED;
    if (m < 0.5 * mark) {
      mark = m;
      since = 0;
    } else if (it >= IPM_STALL_FROM && ++since >= IPM_STALL_RUN) {
      return SLV_MAX_ITER;
    }
    if (it >= IPM_MAX_RUN || k->iters >= k->budget) return SLV_MAX_ITER;
    if (slv_should_stop(s->q.op, SLV_POLL_WORK)) return SLV_MAX_ITER; /* before a factorization */
    double step;
    slv_status st = slv_ipm_iterate(s, mu, &step);
    if (st == SLV_NOT_FINITE && *rbest < INFINITY) return SLV_MAX_ITER; /* rounding at the end */
    if (st != SLV_OK) return st;
    k->iters++;
  }
}

/* nsgs on the QP (pq: the problem with bq and the associated law) from x,
 * for up to IPM_POLISH_SWEEPS sweeps to tol_in.  x is replaced only by a
 * better iterate. */
static void polish(ipm_state *s, slv_op *op, const slv_problem *pq, const slv_options *opt,
                   const ipm_count *k, double tol_in, double *x, double rx) {
  int n = pq->n;
  slv_op po = *op;
  po.p = pq;
  slv_options o = *opt;
  o.tol = tol_in;
  o.max_iter = IPM_POLISH_SWEEPS;
  o.warm_start = 1;
  o.record_history = 0;
  slv_result r;
  memset(&r, 0, sizeof r);
  slv_hist none = { 0 };
  memcpy(s->px, x, (size_t)n * sizeof *s->px);
  slv_status st = slv_solver_nsgs.impl->solve(s->nsgs, &po, &o, s->px, s->pw, &r, &none);
  s->polish_sweeps += r.iterations;
  if (st == SLV_NOT_FINITE || !slv_all_finite(n, s->px)) return;
  slv_rowscale rq = *slv_op_rowscale(op); /* A's row sizes; pq's own xd */
  if (pq != op->p) rq.xd = slv_rowscale_xd(pq);
  slv_natmap nm = slv_natmap_of(pq, s->px, s->pw, &rq);
  double m = slv_test_measure_norms(opt, nm.scaled, nm.n2 / k->b2);
  if (m < rx) memcpy(x, s->px, (size_t)n * sizeof *x);
}

/* One QP (q->bq, the associated law): the interior point, then the polish
 * unless it met tol_in; the result in x.  After a first QP of this solve
 * the interior point starts warm from the last QP's best interior-point
 * iterate (s->best, before the polish: strictly inside the cones, where
 * the polished answer sits on their boundaries); a warm
 * start that stops short of tol_in hands its best iterate to the polish,
 * as a cold one does; one that fails (a factorization that breaks down,
 * an iterate not finite) is redone from the centre.  SLV_OK or a failure of the
 * interior point (SLV_BREAKDOWN, SLV_ERR_NOMEM, SLV_NOT_FINITE). */
static slv_status solve_qp(ipm_state *s, slv_op *op, const slv_options *opt, double tol_in,
                           ipm_count *k, double *x, slv_result *res, slv_hist *h, int warm) {
  slv_problem pq = *op->p;
  pq.b = s->q.bq;
  pq.cone_law = SLV_CONE_ASSOCIATED;
  pq.condensed = 0;             /* the QP has its own test; slv_solve judges the clause */
  s->rq = *slv_op_rowscale(op); /* A's row sizes; this QP's own xd */
  s->rq.xd = slv_rowscale_xd(&pq);
  double rbest = INFINITY;
  slv_status st =
      qp_interior(s, &pq, opt, tol_in, k, res, h, &rbest, warm && s->qp_done ? s->best : NULL);
  if (warm && s->qp_done && st != SLV_CONVERGED && st != SLV_MAX_ITER && st != SLV_ERR_NOMEM &&
      k->iters < k->budget && !slv_stopped(op)) {
    s->warm_retries++;
    st = qp_interior(s, &pq, opt, tol_in, k, res, h, &rbest, NULL);
  }
  if (st != SLV_CONVERGED && st != SLV_MAX_ITER) return st;
  s->qp_done = 1;
  memcpy(x, s->best, (size_t)pq.n * sizeof *x);
  if (st != SLV_CONVERGED && k->iters < k->budget) polish(s, op, &pq, opt, k, tol_in, x, rbest);
  return SLV_OK;
}


/* ---- the De Saxce fixed point (Coulomb's law) -------------------------------------- */

/* F_c = mu_c |w_t,c| for every cone (the fixed point's map at w = A x + b). */
static void shift_map(const slv_problem *p, const double *w, double *f) {
  for (int c = 0; c < p->ncones; c++) {
    int i = p->cone_rows[c];
    f[c] = slv_desaxce_shift_hypot(p->cone_mu[c], w[i + 1], w[i + 2]);
  }
}

/* The shift per cone into q->shift and q->bq. */
static void put_shift(slv_cqp *q, const double *sc) {
  const slv_problem *p = q->p;
  for (int c = 0; c < p->ncones; c++) {
    int i = p->cone_rows[c];
    q->shift[i] = sc[c];
    q->bq[i] = p->b[i] + sc[c];
  }
}

/* The message (the law, the work, the measure; the budget when spent), and
 * the history's last entry set to the returned iterate's test measure (the
 * polish and the choice of the best outer iterate come after the last
 * interior-point iteration).  Returns st. */
static slv_status finish(const ipm_state *s, slv_result *res, slv_hist *h, slv_status st,
                         const char *what, int outer, const ipm_count *k, const slv_residuals *r,
                         const slv_options *opt) {
  char spent[48] = "";
  if (st == SLV_MAX_ITER) slv_msgf(spent, sizeof spent, " (max_iter=%d spent)", opt->max_iter);
  slv_msgf(res->message, sizeof res->message,
           "ipm: %s: %d outer, %d interior-point iterations%s, %d polish sweeps, %d warm QP "
           "start(s) failed and redone cold, %s=%.3g, tol=%.3g",
           what, outer, k->iters, spent, s->polish_sweeps, s->warm_retries,
           opt->norm == SLV_NORM_2 ? "max(res_scaled, res_rel_2)" : "res_scaled",
           slv_test_measure(opt, r), opt->tol);
  if (h->cap > 0 && res->history_len > 0) h->val[res->history_len - 1] = slv_test_measure(opt, r);
  res->iterations = k->iters;
  return st;
}

/* The measure of the test at x (w = A x + b into w, the residuals into *r). */
static double measure(slv_op *op, const slv_options *opt, const double *x, double *w,
                      slv_residuals *r) {
  slv_op_w(op, x, w);
  *r = slv_residual(op->p, x, w);
  return slv_test_measure(opt, r);
}

/* The text of a solve that ends on the caller's test (slv_caller_met) or
 * on a best iterate that meets the test after a failure. */
#define CALLER_MET "the returned iterate meets the test"

/* Whether x (w, r its measures) meets the library's test, or on a
 * condensed problem's tightened run the caller's. */
static int final_met(slv_op *op, const slv_options *opt, const double *x, const double *w,
                     const slv_residuals *r) {
  return slv_met(op->p, opt, r) || slv_caller_met(op, x, w);
}

/* The outer loop's progress rule: a gain is a 1 % fall of the measure m
 * below the mark, or below IPM_FLOOR a halving (there a 1 % fall is
 * rounding); IPM_OUTER_STALL outer iterations without one end the loop,
 * IPM_FLOOR_STALL below the floor.  1 to go on. */
static int outer_gain(double m, double *mark, int *since) {
  int floor = m < IPM_FLOOR;
  if (m < (floor ? 0.5 : 0.99) * *mark) {
    *mark = m;
    *since = 0;
    return 1;
  }
  return ++*since < (floor ? IPM_FLOOR_STALL : IPM_OUTER_STALL);
}

/* The problem's own units (docs/cone-solvers.md, "Interior point",
 * "Units"): ws = ||b||_inf, the size of w, and xs = ws / max |A_ii|, the
 * size of x that A maps to it (1 for a missing one: b = 0 gives ws =
 * max |A_ii|, a zero diagonal xs = 1).  A and b scaled together scale ws
 * and leave xs; b alone scales both; A alone xs.  The centre (start_point),
 * the warm start's push and a free row's regularization are in these
 * units, so the iterates scale with the problem and take the same steps
 * at every scale; the tests (slv_residual's measures) are the library's. */
static void set_units(ipm_state *s, const slv_problem *p) {
  double bmax = 0, a = s->adiag;
  for (int i = 0; i < p->n; i++) bmax = fmax(bmax, fabs(p->b[i]));
  s->ws = bmax > 0 ? bmax : (a > 0 ? a : 1);
  s->xs = a > 0 ? s->ws / a : 1;
  s->free_reg = IPM_FREE_REG * s->ws / s->xs; /* = IPM_FREE_REG max |A_ii| */
}

/* Setup of a solve: the blocks and shift (cone_qp.h), the packed columns,
 * Cholesky or LU (A's symmetry, on the packed copy), the row kinds, the
 * Newton matrix's pattern and analysis, the scales.  0, -1 (no memory), or
 * 1 (a nonsymmetric CSR A too large for the packed copy: no columns). */
static int setup(ipm_state *s, slv_op *op, const slv_options *opt, double *x, ipm_count *k) {
  const slv_problem *p = op->p;
  int si, sj;
  slv_cqp_setup(&s->q, op, opt, 0);
  slv_cqp_project(&s->q, x);
  slv_op_pack(op); /* the columns (scalar or 3x3 blocks), when A is worth packing */
  s->lu = !slv_op_is_symmetric(op, 1e-12, &si, &sj);
  if (s->lu && !op->packed && !op->A) return 1;
  slv_ipm_classify_rows(s);
  s->polish_sweeps = 0;
  s->qp_done = 0;
  s->warm_retries = 0;
  double b2 = 0;
  for (int i = 0; i < p->n; i++) b2 += p->b[i] * p->b[i];
  *k = (ipm_count){ .iters = 0, .budget = opt->max_iter, .b2 = fmax(1.0, sqrt(b2)) };
  if (slv_ipm_pattern_reserve(s, op)) return -1;
  set_units(s, p);
  return 0;
}

/* The next QP's De Saxce shift into q->bq: 0 first from a cold start (the
 * associated problem: on stacks of boxes already the Coulomb solution);
 * then F at the best iterate (s->wt), the fixed point's step, unless that
 * shift was tried already (*best_used), when F at the last iterate (w). */
static void next_shift(ipm_state *s, slv_op *op, const double *w, int first_cold, int *best_used) {
  const slv_problem *p = op->p;
  if (first_cold) {
    memset(s->sk, 0, (size_t)p->ncones * sizeof *s->sk);
  } else if (!*best_used) {
    slv_op_w(op, s->wt, s->pw);
    shift_map(p, s->pw, s->sk);
    *best_used = 1;
  } else {
    shift_map(p, w, s->sk);
  }
  put_shift(&s->q, s->sk);
}

static slv_status ipm_solve(void *state, slv_op *op, const slv_options *opt, double *x, double *w,
                            slv_result *res, slv_hist *h) {
  ipm_state *s = state;
  const slv_problem *p = op->p;
  int n = p->n;
  slv_cqp *q = &s->q;
  ipm_count k;
  int su = setup(s, op, opt, x, &k);
  if (su) {
    slv_msgf(res->message, sizeof res->message,
             su > 0 ? "ipm: a nonsymmetric CSR A with more nonzeros than the packed copy holds"
                    : "ipm: no memory for the Newton matrix's factor");
    return su > 0 ? SLV_ERR_UNSUPPORTED : SLV_ERR_NOMEM;
  }
  const char *what = p->ncones == 0 ? "box QP"
                     : q->coulomb   ? "coulomb law (De Saxce fixed point)"
                                    : "associated law";
  slv_residuals r;
  double m = measure(op, opt, x, w, &r);
  if (slv_met(p, opt, &r)) return finish(s, res, h, SLV_CONVERGED, what, 0, &k, &r, opt);
  /* a warm start: first nsgs from it on the problem itself (a start near
   * the answer needs no interior point) */
  if (opt->warm_start && isfinite(m)) {
    polish(s, op, p, opt, &k, opt->tol, x, m);
    m = measure(op, opt, x, w, &r);
    if (slv_met(p, opt, &r)) return finish(s, res, h, SLV_CONVERGED, what, 0, &k, &r, opt);
  }
  int outer = 0, since = 0, best_used = 0, cold = !opt->warm_start;
  double best = INFINITY, mark = INFINITY;
  memcpy(s->wt, x, (size_t)n * sizeof *x);
  for (;;) {
    if (outer > 0) m = measure(op, opt, x, w, &r);
    res->solver_residual = m;
    if (!isfinite(m)) {
      if (best < INFINITY) break; /* back to the best iterate */
      return finish(s, res, h, SLV_NOT_FINITE, what, outer, &k, &r, opt);
    }
    if (m < best) {
      best = m;
      memcpy(s->wt, x, (size_t)n * sizeof *x);
      best_used = 0;
    }
    if (slv_met(p, opt, &r)) {
      /* the interior point leaves separated impulses small, not 0 */
      if (slv_snap(op, opt, 0, k.b2, x, w, s->px, s->pw)) measure(op, opt, x, w, &r);
      return finish(s, res, h, SLV_CONVERGED, what, outer, &k, &r, opt);
    }
    if (slv_caller_met(op, x, w)) /* a tightened run: the caller's test holds */
      return finish(s, res, h, SLV_CONVERGED, CALLER_MET, outer, &k, &r, opt);
    if (slv_stopped(op)) break;
    if (outer > 0 && !q->coulomb) break;
    if (!outer_gain(m, &mark, &since)) break;
    if (k.iters >= k.budget) break;
    if (q->coulomb) next_shift(s, op, w, outer == 0 && cold, &best_used);
    outer++;
    slv_status st =
        solve_qp(s, op, opt, 0.5 * opt->tol, &k, x, res, h, m > IPM_WARM_ABOVE * opt->tol);
    slv_logf(opt, "ipm: outer %d: start %.3e, %d interior-point iterations so far", outer, m,
             k.iters);
    if (st != SLV_OK) {
      memcpy(x, s->wt, (size_t)n * sizeof *x);
      measure(op, opt, x, w, &r);
      if (final_met(op, opt, x, w, &r)) /* the best iterate so far */
        return finish(s, res, h, SLV_CONVERGED, CALLER_MET, outer, &k, &r, opt);
      return finish(
          s, res, h, st,
          st == SLV_BREAKDOWN
              ? "the Newton matrix is not positive definite (A not positive semidefinite?)"
              : what,
          outer, &k, &r, opt);
    }
  }
  /* not converged: the best iterate, its status decided on it */
  memcpy(x, s->wt, (size_t)n * sizeof *x);
  measure(op, opt, x, w, &r);
  if (final_met(op, opt, x, w, &r))
    return finish(s, res, h, SLV_CONVERGED, CALLER_MET, outer, &k, &r, opt);
  slv_status end = slv_stopped(op)       ? slv_stopped(op)
                   : k.iters >= k.budget ? SLV_MAX_ITER
                                         : SLV_STAGNATED;
  return finish(s, res, h, end, what, outer, &k, &r, opt);
}

static const slv_impl ipm_impl = {
  .state_size = sizeof(ipm_state),
  .init = ipm_init,
  .free = ipm_free,
  .solve = ipm_solve,
};

/* the params line below quotes these */
_Static_assert(IPM_MAX_RUN == 80 && IPM_STALL_RUN == 5 && IPM_STALL_FROM == 20 &&
                   IPM_POLISH_SWEEPS == 300 && IPM_OUTER_STALL == 6,
               "ipm params");

const slv_solver slv_solver_ipm = {
  .name = "ipm",
  .summary = "primal-dual interior point (Mehrotra, Nesterov-Todd scaling; CHOLMOD, or UMFPACK "
             "for a nonsymmetric A), nsgs polish; Coulomb law by the De Saxce fixed point",
  .cite = "vandenberghe2010",
  .caps = SLV_CAP_CONE | SLV_CAP_BOX | SLV_CAP_FREE | SLV_CAP_SPARSE,
  /* clang-format off */
  .params =
      "sigma = (mu_aff/mu)^3, step " SLV_STR(IPM_STEP_FRACTION) "; QP <= 80 its, 5 w/o halving "
      "from 20: 300 nsgs sweeps; Coulomb: QPs to tol/2, warm while > " SLV_STR(IPM_WARM_ABOVE)
      " tol, 6 outer w/o 1 % gain",
  /* clang-format on */
  .impl = &ipm_impl,
};
