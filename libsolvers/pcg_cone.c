/* pcg_cone.c -- the conjugate-gradient QP on the Coulomb cone: MPGP
 * (docs/cone-solvers.md, "MPGP (pcg_cone)").
 *
 * Problem (cone_qp.h): minimize f(x) = 1/2 x'Ax + bq'x over
 * Omega = prod_c K_mu(c) x prod_i [lo_i, hi_i], A symmetric positive
 * semidefinite, bq = b (associated law: the KKT conditions are
 * K_mu ∋ x_c ⊥ w_c ∈ K*, w = A x + b) or bq = b + s with the De Saxce shift
 * s_c = (mu |w_t|, 0, 0) updated by the outer fixed point of cone_qp.c
 * (Coulomb's law, the problem's default).  Box rows and free rows
 * (lo = -inf, hi = +inf) are separable convex sets too and go through the
 * same code, so pcg_cone is also MPRGP on a bound-constrained QP.
 *
 * Algorithm: MPGP, modified proportioning with gradient projections
 * (Dostal & Kozubek, Math. Program. 135 (2012) 195-220, "An optimal
 * algorithm and superrelaxation for minimization of a quadratic function
 * subject to separable convex constraints with applications", [dostal2012];
 * Kucera, SIAM J. Optim. 19 (2008) 846-862, [kucera2008]), the
 * extension of MPRGP (Dostal & Schoberl 2005) from bounds to separable
 * convex sets.  g = A x + bq, fixed step alpha = 1.9 / ||A|| (||A|| by a
 * power iteration, cone_qp.c).  Each block (a cone, or a row) is split by
 * the face of Omega that holds x:
 *   interior (|x_t| < mu x_n, or lo < x_i < hi): the whole block is free;
 *   a cone's boundary, x_n > 0 (a sliding contact): its face is the ray
 *       through x, unit vector u; the free part is the motion along u;
 *   the apex, or a row at a bound: nothing is free.
 * free gradient phi = g on interior blocks, (g.u) u on rays, 0 elsewhere;
 * reduced free gradient phit (the free step a box/ray bound allows with
 * step alpha); chopped gradient beta = (x - P(x - alpha g)) / alpha on the
 * non-interior blocks (the projected-gradient chord), 0 on interior ones,
 * whose part off the ray (orthogonal to u) is what the test below weighs.
 * x is stationary iff phi = 0 and beta = 0.  Each iteration is one of:
 *   - proportional (||beta_off||^2 <= Gamma^2 phit'phi): conjugate
 *     gradients on the faces, p = phi after every non-CG step, else
 *     p <- phi - (phi'Ap / p'Ap) p.  alpha_cg = g'p / p'Ap, alpha_f = the
 *     largest feasible step along -p (an interior cone: a root of a
 *     quadratic; a ray: the apex; cone_qp.c).  CG step if alpha_cg <=
 *     alpha_f; otherwise an EXPANSION step: x <- x - alpha_f p (the block
 *     that blocks is put exactly on its boundary or apex), then the
 *     projected gradient step x <- P_Omega(x - alpha g) (the cone
 *     projection, slv_cone_project), g recomputed;
 *   - PROPORTIONING (||beta_off||^2 > Gamma^2 phit'phi): exact line search
 *     along -beta, capped by the feasible step, which is at least alpha
 *     since x - alpha beta = P(x - alpha g) on the blocks beta moves.
 * Two departures from the paper, both chosen by measurement on the FC3D
 * files and on planted rank-deficient problems
 * (experiments/records/2026-11-26-solvers.md):
 *   1. Faces.  Dostal-Kozubek split by blocks: a cone on its boundary is
 *      wholly active, so a sliding contact moves only in proportioning
 *      steps, each of which restarts CG.  With many sliding contacts MPGP
 *      then alternates one CG step and one proportioning step, i.e. it is
 *      steepest descent.  Letting the ray of a sliding contact into the CG
 *      subspace (the minimal face of K_mu at x, as MPRGP's free set is the
 *      minimal face of a box) restores the conjugate gradient.
 *   2. The expansion projects with the full gradient g, not the free
 *      gradient phi (PERMON's MPGP offers both, "g" and "gf"): the
 *      projection then also turns and releases the sliding contacts.
 * The proportioning step is capped by feasibility (Dostal-Kozubek take the
 * full alpha_cg; -beta need not stay feasible for cones and two-sided
 * boxes).  Gamma = 1 (Dostal's usual choice; slv_options has no field for
 * it).  f decreases at every step: CG and the capped line search exactly,
 * the projected gradient step for alpha <= 2/||A||.  As the power
 * iteration estimates ||A|| from below, that step checks the decrease and,
 * if f went up, doubles the estimate and redoes the step (a safeguard that
 * never fires with a good estimate).  Degenerate directions (p'Ap <= 0 and
 * no feasibility limit: A only semidefinite) fall back to a projected
 * gradient step.
 *
 * Cost: one product with A per CG or proportioning step, two per
 * expansion (the step and the recomputed gradient); the rest is O(n).  The
 * gradient is updated by g -= t A p between exact recomputations every
 * opt->check_every iterations and before any convergence claim; x is then
 * also projected again (rays drift off by rounding).
 *
 * Scaling (docs/cone-solvers.md, "Scaling"): the driver hands MPGP the QP
 * in z = D^1/2 x (cone_qp.h, CQP_SCALE; D = diag(A), one value per cone),
 * so CG, alpha = 1.9 / ||D^-1/2 A D^-1/2|| and the projections all work on
 * the Jacobi-scaled matrix, while the inner stopping test stays the
 * problem's own natural map.  MuJoCo's humanoid's joint rows: condition
 * 3.3e5 as given, 405 scaled.
 *
 * Stopping, laws, history: cone_qp.c's driver (slv_cqp_drive).  Each QP is
 * solved until the natural map ||x - P(x - g)||_inf <= its inner tolerance
 * on an exact g; "converged" is the library's residual of the problem's own
 * law.  opt->max_iter counts MPGP iterations over all outer iterations;
 * result.iterations is that count; the history holds, per MPGP iteration,
 * res_rel of the problem's law (De Saxce map for Coulomb) at the iterate,
 * from the updated gradient.  result.message names the law solved and the
 * outer iteration count, also on success.
 *
 * Warm start: x is projected on Omega first.  Needs A symmetric
 * (SLV_CAP_NEEDS_SYMMETRIC) and positive semidefinite (not checked: on an
 * indefinite A the iteration still decreases f along each step but may run
 * to max_iter).  Statuses: SLV_CONVERGED, SLV_MAX_ITER, SLV_NOT_FINITE,
 * SLV_STAGNATED (the Coulomb fixed point stopped improving), SLV_TIME_LIMIT,
 * SLV_INTERRUPTED (polled each MPGP iteration: the last iterate).
 */
#include "cone_qp.h"

#include <cblas.h>
#include <stdlib.h>
#include <string.h>

/* Coulomb's law: each QP of the De Saxce fixed point is solved to 0.3 times
 * the residual it starts from (cone_qp.h).  MPGP's last digits are its
 * dearest (degenerate contacts), so a looser inner solve pays: the factors
 * tried are in experiments/records/2026-11-26-solvers.md. */
#define PCG_INNER_FACTOR 0.3

/* Gamma of the proportioning test, squared. */
static const double MPGP_GAMMA2 = 1.0;

typedef struct {
  slv_cqp q;
  double *g;    /* A x + bq */
  double *p;    /* CG direction */
  double *Ap;   /* A p */
  double *phi;  /* free gradient */
  double *beta; /* chopped gradient */
  double *Ad;   /* A beta */
  double *xs;   /* x before a projected gradient step */
} pcg_state;

static void pcg_free(void *st) {
  pcg_state *s = st;
  slv_cqp_free(&s->q);
  free(s->g);
  free(s->p);
  free(s->Ap);
  free(s->phi);
  free(s->beta);
  free(s->Ad);
  free(s->xs);
  memset(s, 0, sizeof *s);
}

static slv_status pcg_init(void *st, int n_max, const slv_options *opt) {
  (void)opt;
  pcg_state *s = st;
  size_t m = (size_t)(n_max > 0 ? n_max : 1) * sizeof(double);
  if (slv_cqp_alloc(&s->q, n_max)) return SLV_ERR_NOMEM;
  s->g = malloc(m);
  s->p = malloc(m);
  s->Ap = malloc(m);
  s->phi = malloc(m);
  s->beta = malloc(m);
  s->Ad = malloc(m);
  s->xs = malloc(m);
  if (!s->g || !s->p || !s->Ap || !s->phi || !s->beta || !s->Ad || !s->xs) {
    pcg_free(s);
    return SLV_ERR_NOMEM;
  }
  return SLV_OK;
}

/* g = A x + bq */
static void gradient(const slv_cqp *q, const double *x, double *g) {
  int n = q->p->n;
  slv_cqp_matvec(q, x, g);
  for (int i = 0; i < n; i++) g[i] += q->bq[i];
}

/* f(x) = 1/2 x'(g + bq) for g = A x + bq, and its rounding scale
 * sum |x_i| (|g_i| + |bq_i|). */
static double objective(const slv_cqp *q, const double *x, const double *g, double *scale) {
  double f = 0, sc = 0;
  for (int i = 0; i < q->p->n; i++) {
    f += x[i] * (g[i] + q->bq[i]);
    sc += fabs(x[i]) * (fabs(g[i]) + fabs(q->bq[i]));
  }
  *scale = sc;
  return 0.5 * f;
}

/* The MPGP splitting of g at x (header), by block:
 *   interior cone / free row: phi = g, beta = 0, phit = (x - P(x - a g)) / a;
 *   cone on its boundary, x_n > 0 (a sliding contact; its face is the ray
 *   through x, unit vector u): phi = (g.u) u, phit = ((s - max(0, s - a g.u)) / a) u
 *   with s = |x_c| (the reduced free gradient of the bound s >= 0 along the
 *   ray), beta = (x - P(x - a g)) / a, of which only the part orthogonal to
 *   u counts in ||beta||^2 (the part along u is phi's);
 *   apex, or a row at a bound: phi = 0, phit = 0, beta = (x - P(x - a g)) / a.
 * Writes phi always; beta, ||beta||^2 and phit'phi when beta is non-NULL. */
static void split(const slv_cqp *q, const double *x, const double *g, double a, double *phi,
                  double *beta, double *bb, double *pp) {
  double sb = 0, sp = 0;
  for (int k = 0; k < q->nblk; k++) {
    int i = q->blk_row[k];
    double mu = q->blk_mu[k];
    if (mu > 0) {
      const double *xc = x + i, *gc = g + i;
      double *fc = phi + i;
      if (slv_cqp_cone_free(mu, xc)) {
        fc[0] = gc[0];
        fc[1] = gc[1];
        fc[2] = gc[2];
        if (!beta) continue;
        double v[3] = { xc[0] - a * gc[0], xc[1] - a * gc[1], xc[2] - a * gc[2] };
        slv_cone_project(mu, v, v);
        for (int c = 0; c < 3; c++) {
          sp += (xc[c] - v[c]) / a * gc[c];
          beta[i + c] = 0;
        }
        continue;
      }
      double st = hypot(xc[1], xc[2]);
      int ray = xc[0] > 0 && st > 0;
      double u[3] = { 0, 0, 0 }, gu = 0;
      if (ray) {
        double c = 1 / sqrt(1 + mu * mu);
        u[0] = c;
        u[1] = c * mu * xc[1] / st;
        u[2] = c * mu * xc[2] / st;
        gu = gc[0] * u[0] + gc[1] * u[1] + gc[2] * u[2];
      }
      for (int c = 0; c < 3; c++) fc[c] = gu * u[c];
      if (!beta) continue;
      double v[3] = { xc[0] - a * gc[0], xc[1] - a * gc[1], xc[2] - a * gc[2] };
      slv_cone_project(mu, v, v);
      double bu = 0;
      for (int c = 0; c < 3; c++) {
        beta[i + c] = (xc[c] - v[c]) / a;
        bu += beta[i + c] * u[c];
      }
      for (int c = 0; c < 3; c++) {
        double bo = beta[i + c] - bu * u[c];
        sb += bo * bo;
      }
      if (ray) {
        double sn = sqrt(xc[0] * xc[0] + st * st), sm = sn - a * gu;
        sp += (sn - (sm > 0 ? sm : 0)) / a * gu;
      }
    } else {
      double lo = q->lo[i], hi = q->hi[i];
      int fr = lo < x[i] && x[i] < hi;
      if (!beta) {
        phi[i] = fr ? g[i] : 0;
        continue;
      }
      double v = x[i] - a * g[i];
      v = v < lo ? lo : (v > hi ? hi : v);
      double rc = (x[i] - v) / a;
      if (fr) {
        phi[i] = g[i];
        beta[i] = 0;
        sp += rc * g[i];
      } else {
        phi[i] = 0;
        beta[i] = rc;
        sb += rc * rc;
      }
    }
  }
  if (bb) *bb = sb;
  if (pp) *pp = sp;
}

/* The projected gradient step x <- P(x - a g), g recomputed, a = 1.9 / lam.
 * f cannot increase for a <= 2 / ||A||; the power iteration estimates ||A||
 * from below, so if f went up (beyond rounding) the estimate is doubled and
 * the step redone from the same point (s->xs keeps it). */
static void projected_gradient_step(pcg_state *s, slv_cqp *q, double *x, double *g) {
  int n = q->p->n;
  double sc, f0 = objective(q, x, g, &sc);
  memcpy(s->xs, x, (size_t)n * sizeof *x);
  memcpy(s->Ad, g, (size_t)n * sizeof *g);
  for (int tries = 0;; tries++) {
    double a = 1.9 / q->lam;
    for (int i = 0; i < n; i++) x[i] = s->xs[i] - a * s->Ad[i];
    slv_cqp_project(q, x);
    gradient(q, x, g);
    double sn, f1 = objective(q, x, g, &sn);
    if (f1 <= f0 + 1e-12 * (sc + sn) || tries >= 40 || isnan(f1)) break;
    q->lam *= 2;
  }
}

static slv_status mpgp(void *st, slv_cqp *q, const slv_options *opt, double tol_in, int budget,
                       double *x, slv_result *res, slv_hist *h, int *iters) {
  pcg_state *s = st;
  int n = q->p->n;
  double *g = s->g, *p = s->p, *Ap = s->Ap, *phi = s->phi, *beta = s->beta, *Ad = s->Ad;
  gradient(q, x, g);
  int fresh = 1, reset = 1, it = 0;
  int ncg = 0, nexp = 0, nprop = 0, nfall = 0;
  for (;;) {
    double rn = slv_cqp_natres(q, x, g);
    if (isnan(rn)) return SLV_NOT_FINITE;
    if (rn <= tol_in && !fresh) {
      gradient(q, x, g); /* confirm on an exact gradient */
      fresh = 1;
      continue;
    }
    if (rn <= tol_in || it >= budget || slv_should_stop(q->op, q->poll_work)) {
      slv_logf(opt,
               "pcg_cone: QP %s after %d cg, %d expansion, %d proportioning, %d fallback "
               "steps; ||A|| estimate %.3e",
               rn <= tol_in ? "solved" : "stopped", ncg, nexp, nprop, nfall, q->lam);
      return rn <= tol_in ? SLV_CONVERGED : SLV_MAX_ITER;
    }
    it++;
    (*iters)++;
    double a = 1.9 / q->lam, bb, pp;
    split(q, x, g, a, phi, beta, &bb, &pp);
    fresh = 0; /* set again by the steps that recompute g */
    if (bb == 0 && pp <= 0) {
      /* no usable direction although x is not stationary to tol_in: only
       * rounding does this (a step alpha too small for the scale of x) */
      projected_gradient_step(s, q, x, g);
      reset = fresh = 1;
      nfall++;
    } else if (bb <= MPGP_GAMMA2 * pp) {
      if (reset) memcpy(p, phi, (size_t)n * sizeof *p);
      reset = 0;
      slv_cqp_matvec(q, p, Ap);
      double pAp = cblas_ddot(n, p, 1, Ap, 1), gp = cblas_ddot(n, g, 1, p, 1);
      int blk, apex;
      double af = slv_cqp_feasible_step(q, x, p, 1, &blk, &apex);
      double acg = pAp > 0 ? gp / pAp : INFINITY;
      if (acg <= af) {
        /* conjugate gradient step on the faces */
        cblas_daxpy(n, -acg, p, 1, x, 1);
        cblas_daxpy(n, -acg, Ap, 1, g, 1);
        split(q, x, g, a, phi, NULL, NULL, NULL);
        double gam = cblas_ddot(n, phi, 1, Ap, 1) / pAp;
        for (int i = 0; i < n; i++) p[i] = phi[i] - gam * p[i];
        ncg++;
      } else {
        /* expansion: to the blocking boundary (if any), then P(x - alpha g) */
        if (af < INFINITY) {
          cblas_daxpy(n, -af, p, 1, x, 1);
          cblas_daxpy(n, -af, Ap, 1, g, 1);
          slv_cqp_snap(q, x, blk, apex);
          nexp++;
        } else {
          nfall++; /* no curvature and no limit along p: A only semidefinite */
        }
        projected_gradient_step(s, q, x, g);
        reset = fresh = 1;
      }
    } else {
      /* proportioning: exact line search along -beta, capped by feasibility */
      slv_cqp_matvec(q, beta, Ad);
      double dAd = cblas_ddot(n, beta, 1, Ad, 1), gd = cblas_ddot(n, g, 1, beta, 1);
      double tf = slv_cqp_feasible_step(q, x, beta, 0, NULL, NULL);
      if (tf < a) tf = a; /* x - a beta = P(x - a g) on the blocks it moves */
      double t = dAd > 0 ? gd / dAd : INFINITY;
      if (t > tf) t = tf;
      if (t < INFINITY && gd > 0) {
        cblas_daxpy(n, -t, beta, 1, x, 1);
        cblas_daxpy(n, -t, Ad, 1, g, 1);
        slv_cqp_project(q, x); /* rounding only: the step is feasible */
        nprop++;
      } else {
        projected_gradient_step(s, q, x, g);
        fresh = 1;
        nfall++;
      }
      reset = 1;
    }
    if (!fresh && it % opt->check_every == 0) {
      /* drop the drift of the updated gradient, and of x off its faces */
      slv_cqp_project(q, x);
      gradient(q, x, g);
      fresh = 1;
    }
    if (h->cap > 0) slv_history_push(h, res, slv_cqp_lawres(q, x, g) * q->hist_scale);
  }
}

static slv_status pcg_solve(void *st, slv_op *op, const slv_options *opt, double *x, double *w,
                            slv_result *res, slv_hist *h) {
  pcg_state *s = st;
  return slv_cqp_drive(&s->q, op, opt, "pcg_cone", CQP_NORM | CQP_SCALE, PCG_INNER_FACTOR, mpgp, s,
                       x, w, res, h);
}

static const slv_impl pcg_impl = {
  .state_size = sizeof(pcg_state),
  .init = pcg_init,
  .free = pcg_free,
  .solve = pcg_solve,
};

/* the params line below quotes this */
_Static_assert(CQP_STALL == 25, "pcg_cone params");

const slv_solver slv_solver_pcg_cone = {
  .name = "pcg_cone",
  .summary = "MPGP: CG on the free contacts, cone-projection expansion, proportioning; "
             "Coulomb law by the De Saxce fixed point",
  .cite = "dostal2012",
  .caps = SLV_CAP_CONE | SLV_CAP_BOX | SLV_CAP_FREE | SLV_CAP_SPARSE | SLV_CAP_NEEDS_SYMMETRIC,
  /* clang-format off */
  .params =
      "MPGP, step 1.9 / ||A|| (power iteration), Gamma = 1; Coulomb: De Saxce fixed point, each "
      "QP to " SLV_STR(PCG_INNER_FACTOR) " x its start residual, stop: 25 outer w/o 1 % gain",
  /* clang-format on */
  .impl = &pcg_impl,
};
