/* ppa_nsn.c -- proximal point with an Alart-Curnier Newton inner solve
 * (PPA-NSN-AC of [acary2018], sec. 5.3; Siconos' FC3D_PROX with
 * FC3D_NSN_AC inside; docs/solvers.md, "Proximal point Newton").
 *
 * Problem (slv.h): w = A x + b, Coulomb cones with the De Saxce shift, box
 * and free rows, as nsn_ac.  Outer iteration k, from the centre x_k: the
 * proximal problem
 *     w^p = (A + S) x + b - S x_k,   S = diag(sigma_i),  sigma_i = alpha_k / rho_i,
 * whose matrix A + S is positive definite where A = H M^-1 H' is only
 * semidefinite (more contact rows than degrees of freedom), is solved by the
 * Alart-Curnier Newton of nsn_ac.c (the same Phi, Newton matrix Ar + Bu (A
 * + S), Armijo search; its Newton matrix is sparse above NSN_DENSE_MAX
 * rows); its solution is the next centre.  A solution of the original
 * problem is a fixed point (x = x_k makes w^p = w).  rho_i = 1 / (the
 * contact's Gershgorin bound), nsn_ac's scaling, so sigma_i = alpha times
 * the contact's own stiffness: the same steps for a problem whose contacts
 * are rescaled (docs/convergence.md, "What must not change the verdict");
 * [acary2018] adds one scalar alpha to every diagonal.
 *
 * The proximal parameter ([acary2018], sec. 5.3, as Siconos [acary2019siconos] sets it):
 * alpha_k = PPA_SIGMA e_k^PPA_NU with e_k the error at the centre, the
 * library's measure here (slv_test_measure), so alpha -> 0 and the outer
 * iteration becomes Newton's as e_k -> 0.  nu = 1 as Siconos; Siconos'
 * sigma = 5 adds to W in W's units and divides by its error's larger
 * scale: here alpha multiplies each contact's stiffness and e_k is the
 * worst contact's, so sigma is 0.05 (docs/cone-solvers.md, "Proximal point
 * Newton", and the measurements it cites).  sigma, nu, the growth
 * factor and the budgets are options (opt->prox_*, slv.h).  When the inner
 * solve fails (opt->prox_inner_max Newton iterations without reaching its
 * tolerance) alpha is multiplied by opt->prox_grow instead, and x goes
 * back to the centre if it is worse there; a Newton step that breaks
 * down (singular, not finite) sends x back to the centre with alpha
 * grown as well, and ends the solve only at the largest alpha.  Inner tolerance: e_k / PPA_INNER_RATIO
 * (Siconos' adaptive strategy), measured by the library's measure on (x,
 * w^p), the proximal problem's natural map, floored at tol / PPA_INNER_RATIO.
 *
 * Stopping test: the library's (slv_met_norms on the De Saxce natural map
 * of the original problem, at w = w^p - S (x - x_k)) after every Newton
 * iteration, confirmed on w = A x + b recomputed exactly, then slv_snap as
 * nsn_ac.  After PPA_MAX_STALL outer iterations without a new best
 * measure: SLV_STAGNATED with the best iterate; opt->prox_outer_max outer
 * iterations (0: none) or opt->max_iter Newton iterations: SLV_MAX_ITER.
 * Statuses: SLV_CONVERGED, SLV_MAX_ITER, SLV_STAGNATED, SLV_BREAKDOWN,
 * SLV_NOT_FINITE, SLV_ERR_UNSUPPORTED (associated law), SLV_ERR_NOMEM.
 * Reads opt->max_iter (Newton iterations in all), prox_*, tol, norm,
 * record_history.  All vectors are allocated at init (the Newton core's,
 * plus the centre and w^p); the sparse Newton pattern once per problem by
 * slv_nsn_begin, before the iterations; above KLU's size UMFPACK allocates
 * its numeric LU at each factorization, as in nsn_ac (docs/solvers.md,
 * "Alart-Curnier Newton").
 */
#include "slv_internal.h"

#include <stdlib.h>
#include <string.h>

enum {
  PPA_MAX_STALL = 200 /* outer iterations without a new best measure */
};
/* how an outer iteration ended: the inner budget ran out, the inner
 * tolerance was met, the library's test holds, or the Newton step broke
 * down (a singular matrix, a non-finite iterate: back to the centre) */
enum { PPA_INNER_FAILED, PPA_INNER_MET, PPA_DONE, PPA_INNER_BROKE };
#define PPA_INNER_RATIO 10.0 /* inner tolerance e / PPA_INNER_RATIO */
#define PPA_ALPHA_MAX   1e8  /* alpha's growth after failed inner solves stops here */

typedef struct {
  slv_nsn nsn;
  double *buf; /* 2 n_max: */
  double *xc;  /* the centre x_k */
  double *wp;  /* w^p = w + S (x - x_k) */
} ppa_state;

/* What one solve carries between its functions. */
typedef struct {
  ppa_state *st;
  slv_op *op;
  const slv_options *opt;
  const slv_rowscale *rs;
  double b2;    /* max(1, ||b||_2) */
  double alpha; /* the proximal parameter */
  double best;  /* the best measure so far (iterate in nsn.xbest) */
  slv_result *res;
  slv_hist *h;
  int iters, max_it;
  slv_status broke; /* the last inner breakdown (SLV_OK: none) */
  int breakdowns;   /* inner solves ended by a breakdown */
} ppa_run;

static void ppa_free(void *state) {
  ppa_state *s = state;
  slv_nsn_free(&s->nsn);
  free(s->buf);
  memset(s, 0, sizeof *s);
}

static slv_status ppa_init(void *state, int n_max, const slv_options *opt) {
  (void)opt;
  ppa_state *s = state;
  size_t m = (size_t)(n_max > 0 ? n_max : 1);
  memset(s, 0, sizeof *s);
  if (slv_nsn_init(&s->nsn, n_max) != SLV_OK) return SLV_ERR_NOMEM;
  s->buf = malloc(2 * m * sizeof *s->buf);
  if (!s->buf) {
    ppa_free(s);
    return SLV_ERR_NOMEM;
  }
  s->xc = s->buf;
  s->wp = s->buf + m;
  return SLV_OK;
}

/* The library's measure (slv_test_measure) of x with velocity w. */
static double ppa_measure(const ppa_run *r, const double *x, const double *w) {
  slv_natmap m = slv_natmap_of(r->op->p, x, w, r->rs);
  return slv_test_measure_norms(r->opt, m.scaled, m.n2 / r->b2);
}

static int ppa_met(const ppa_run *r, const double *x, const double *w) {
  slv_natmap m = slv_natmap_of(r->op->p, x, w, r->rs);
  return slv_met_norms(r->opt, m.scaled, m.n2 / r->b2);
}

/* sigma_i = alpha / rho_i (the header). */
static double ppa_sigma(const ppa_run *r, int i) { return r->alpha / r->st->nsn.rho[i]; }

/* w^p = w + S (x - x_k). */
static void ppa_prox_w(const ppa_run *r, const double *x, const double *w) {
  const ppa_state *s = r->st;
  for (int i = 0; i < r->op->n; i++) s->wp[i] = w[i] + ppa_sigma(r, i) * (x[i] - s->xc[i]);
}

/* The library's test on the original problem at (x, w); when it holds on
 * the maintained w, on w = A x + b recomputed exactly (which then replaces
 * w and w^p).  1: converged. */
static int ppa_judge(ppa_run *r, double *x, double *w) {
  if (!ppa_met(r, x, w)) return 0;
  slv_op_w(r->op, x, w);
  if (ppa_met(r, x, w)) return 1;
  ppa_prox_w(r, x, w);
  return 0;
}

/* The measure at (x, w): history, solver_residual, best iterate. */
static void ppa_record(ppa_run *r, const double *x, const double *w) {
  double mt = ppa_measure(r, x, w);
  r->res->solver_residual = mt;
  slv_history_push(r->h, r->res, mt);
  if (mt < r->best) {
    slv_nsn *s = &r->st->nsn;
    r->best = mt;
    memcpy(s->xbest, x, (size_t)r->op->n * sizeof *x);
    memcpy(s->wbest, w, (size_t)r->op->n * sizeof *w);
  }
}

/* One Newton iteration on the proximal problem from (x, w^p): x, w^p and
 * w move to the line search's point.  SLV_OK, SLV_NOT_FINITE,
 * SLV_BREAKDOWN (message in res), or the stop a poll found (time limit,
 * interruption; docs/solver-machinery.md, "Time limits and interruption"). */
static slv_status ppa_newton_step(ppa_run *r, double *x, double *w) {
  ppa_state *ps = r->st;
  slv_nsn *s = &ps->nsn;
  const slv_problem *p = r->op->p;
  int n = p->n;
  slv_status stop = slv_should_stop(r->op, SLV_POLL_WORK); /* each factorization: a slow poll */
  if (stop) return stop; /* time_limit / interrupted: the best iterate, in ppa_solve */
  double th = slv_nsn_phi(s, p, x, ps->wp, s->phi, 1);
  if (isnan(th)) {
    slv_msgf(r->res->message, sizeof r->res->message, "ppa_nsn: iterate became non-finite");
    return SLV_NOT_FINITE;
  }
  if (slv_nsn_direction(s, r->op, r->alpha) != 0) {
    slv_msgf(r->res->message, sizeof r->res->message,
             "ppa_nsn: Newton matrix singular even regularised (alpha=%.3g)", r->alpha);
    return SLV_BREAKDOWN;
  }
  for (int i = 0; i < n; i++) s->Ad[i] += ppa_sigma(r, i) * s->d[i]; /* (A + S) d */
  slv_nsn_line_search(s, p, x, ps->wp, th);
  for (int i = 0; i < n; i++) {
    x[i] = s->xt[i];
    ps->wp[i] = s->wt[i];
    w[i] = ps->wp[i] - ppa_sigma(r, i) * (x[i] - ps->xc[i]);
  }
  r->iters++;
  if (slv_all_finite(n, x)) return SLV_OK;
  slv_msgf(r->res->message, sizeof r->res->message, "ppa_nsn: iterate became non-finite");
  return SLV_NOT_FINITE;
}

/* Back to the centre x_k (w = A x_k + b) after an inner breakdown st. */
static void ppa_back_to_centre(ppa_run *r, double *x, double *w, slv_status st) {
  memcpy(x, r->st->xc, (size_t)r->op->n * sizeof *x);
  slv_op_w(r->op, x, w);
  r->broke = st;
  r->breakdowns++;
}

/* One outer iteration: the proximal problem centred at x, solved by
 * Newton until its measure is under tol_in, or opt->prox_inner_max
 * iterations.  *state: PPA_DONE (the library's test holds), PPA_INNER_MET
 * (the inner tolerance was reached), PPA_INNER_FAILED, PPA_INNER_BROKE (a
 * singular Newton matrix or a non-finite iterate: x is the centre again).
 * SLV_OK, or a stop from outside (time limit, interruption). */
static slv_status ppa_outer(ppa_run *r, double *x, double *w, double tol_in, int *state) {
  ppa_state *ps = r->st;
  int n = r->op->n;
  memcpy(ps->xc, x, (size_t)n * sizeof *x);
  memcpy(ps->wp, w, (size_t)n * sizeof *w);
  *state = PPA_INNER_FAILED;
  for (int j = 0; j < r->opt->prox_inner_max && r->iters < r->max_it; j++) {
    slv_status st = ppa_newton_step(r, x, w);
    if (st == SLV_BREAKDOWN || st == SLV_NOT_FINITE) {
      ppa_back_to_centre(r, x, w, st);
      *state = PPA_INNER_BROKE;
      return SLV_OK;
    }
    if (st != SLV_OK) return st;
    if (ppa_judge(r, x, w)) {
      *state = PPA_DONE;
      return SLV_OK;
    }
    ppa_record(r, x, w);
    if (ppa_measure(r, x, ps->wp) <= tol_in) {
      *state = PPA_INNER_MET;
      break;
    }
  }
  slv_op_w(r->op, x, w); /* drop the drift of the maintained w */
  return SLV_OK;
}

/* The proximal parameter after an outer iteration that ended in state at
 * the error e: the rule alpha = sigma e^nu after an inner solve that met its
 * tolerance, alpha times prox_grow after one that did not (at most
 * PPA_ALPHA_MAX).  0 when alpha was already at its largest and the inner
 * solve broke down again: nothing is left to try. */
static int ppa_next_alpha(ppa_run *r, int state, double e) {
  const slv_options *o = r->opt;
  if (state == PPA_INNER_MET) {
    r->alpha = fmin(PPA_ALPHA_MAX, o->prox_sigma * pow(e, o->prox_nu));
    return 1;
  }
  if (state == PPA_INNER_BROKE && r->alpha >= PPA_ALPHA_MAX) return 0;
  r->alpha = fmin(PPA_ALPHA_MAX, o->prox_grow * r->alpha);
  return 1;
}

/* The end of a solve that did not converge: its status and message. */
static slv_status ppa_give_up(ppa_run *r, slv_status st, const char *why) {
  slv_msgf(r->res->message, sizeof r->res->message,
           "ppa_nsn: %s; best res_scaled=%.3g > tol=%.3g (%d Newton iterations, %d inner "
           "breakdowns)",
           why, r->best, r->opt->tol, r->iters, r->breakdowns);
  return st;
}

/* The outer loop from x (w = A x + b): the proximal parameter rule of the
 * header, stopping on the library's test, the budgets, or a stall.  An
 * inner breakdown restarts the proximal problem from its centre with a
 * larger alpha. */
static slv_status ppa_loop(ppa_run *r, double *x, double *w) {
  double e = r->best;
  int stall = 0, outer = 0, outer_max = r->opt->prox_outer_max;
  r->alpha = fmin(PPA_ALPHA_MAX, r->opt->prox_sigma * pow(e, r->opt->prox_nu));
  while (r->iters < r->max_it && (outer_max == 0 || outer < outer_max)) {
    double best0 = r->best;
    int state;
    outer++;
    slv_status st = ppa_outer(r, x, w, fmax(e, r->opt->tol) / PPA_INNER_RATIO, &state);
    if (st != SLV_OK) return st;
    if (state == PPA_DONE) return SLV_CONVERGED;
    double e_centre = e;
    e = ppa_measure(r, x, w);
    if (state == PPA_INNER_FAILED && !(e <= e_centre)) { /* worse than its centre: back there */
      memcpy(x, r->st->xc, (size_t)r->op->n * sizeof *x);
      slv_op_w(r->op, x, w);
      e = e_centre;
    }
    if (!ppa_next_alpha(r, state, e))
      return ppa_give_up(r, r->broke, "the Newton step broke down at the largest alpha");
    stall = r->best < best0 ? 0 : stall + 1;
    if (stall >= PPA_MAX_STALL)
      return ppa_give_up(r, SLV_STAGNATED, "200 proximal steps without a new best");
  }
  return ppa_give_up(r, SLV_MAX_ITER,
                     r->iters >= r->max_it ? "out of max_iter Newton iterations"
                                           : "out of prox_outer_max proximal iterations");
}

static slv_status ppa_solve(void *state, slv_op *op, const slv_options *opt, double *x, double *w,
                            slv_result *res, slv_hist *h) {
  ppa_state *ps = state;
  const slv_problem *p = op->p;
  if (p->cone_law == SLV_CONE_ASSOCIATED && p->ncones > 0) {
    slv_msgf(res->message, sizeof res->message,
             "ppa_nsn: solves the Coulomb law only (Alart-Curnier); the associated cone is a QP: "
             "use pcg_cone or apgd");
    return SLV_ERR_UNSUPPORTED;
  }
  slv_op_w(op, x, w);
  slv_residuals r0 = slv_residual(p, x, w);
  res->solver_residual = slv_test_measure(opt, &r0);
  if (slv_met(p, opt, &r0)) return SLV_CONVERGED;
  slv_status st = slv_nsn_begin(&ps->nsn, op, res);
  if (st != SLV_OK) return st;
  double binf;
  ppa_run r = { .st = ps, .op = op, .opt = opt, .res = res, .h = h, .max_it = opt->max_iter };
  slv_nsn_scales(p, &binf, &r.b2);
  r.rs = slv_op_rowscale(op);
  r.best = ppa_measure(&r, x, w);
  memcpy(ps->nsn.xbest, x, (size_t)p->n * sizeof *x);
  st = ppa_loop(&r, x, w);
  res->iterations = r.iters;
  if (st == SLV_CONVERGED) { /* the library's test held on the exact w */
    slv_snap(op, opt, 1, r.b2, x, w, ps->nsn.xt, ps->nsn.wt); /* snap.c */
    return st;
  }
  memcpy(x, ps->nsn.xbest, (size_t)p->n * sizeof *x); /* the best iterate, its exact w */
  slv_op_w(op, x, w);
  return st;
}

static const slv_impl ppa_impl = {
  .state_size = sizeof(ppa_state),
  .init = ppa_init,
  .free = ppa_free,
  .solve = ppa_solve,
};

/* the params line below quotes these */
_Static_assert(SLV_DEFAULT_PROX_INNER == 20 && PPA_MAX_STALL == 200, "ppa_nsn params");

const slv_solver slv_solver_ppa_nsn = {
  .name = "ppa_nsn",
  .summary = "proximal point, Alart-Curnier Newton inner solve (sparse or dense LU), "
             "proximal parameter of Acary et al. 2018 (Coulomb)",
  .cite = "acary2018",
  .caps = SLV_CAP_CONE | SLV_CAP_BOX | SLV_CAP_FREE | SLV_CAP_SPARSE,
  /* clang-format off */
  .params =
      "alpha = prox_sigma (" SLV_STR(SLV_DEFAULT_PROX_SIGMA) ") e^prox_nu (1) x stiffness, "
      "x prox_grow (" SLV_STR(SLV_DEFAULT_PROX_GROW) ") after a failed inner solve "
      "(prox_inner_max 20 its), <= " SLV_STR(PPA_ALPHA_MAX) "; inner tol e/"
      SLV_STR(PPA_INNER_RATIO) "; stall 200",
  /* clang-format on */
  .impl = &ppa_impl,
};
