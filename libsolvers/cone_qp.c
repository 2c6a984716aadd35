/* cone_qp.c -- the convex QP on Coulomb cones and boxes, shared by the cone
 * QP solvers (pcg_cone.c, apgd.c): the constraint set Omega as blocks, its
 * projection, the natural maps, feasible step lengths, the products with A,
 * the ||A|| estimate, and the De Saxce fixed point that turns a QP solver
 * into a Coulomb-law solver.  cone_qp.h states the problem and the outer
 * loop; the pieces below carry their own math.
 */
#include "cone_qp.h"
#include "par.h"

#include <cblas.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* A cone block is "free" (x in the interior of K_mu) when
 * |x_t| < (1 - CONE_FREE_RTOL) mu x_n.  Projections and boundary snaps put
 * x on the boundary only up to rounding (a few ulps of mu x_n); this margin
 * keeps such points active instead of "free with a feasible step of 1e-16". */
#define CONE_FREE_RTOL 1e-12

enum { CQP_POWER_MAXIT = 50 };

void slv_cqp_free(slv_cqp *q) {
  free(q->blk_row);
  free(q->blk_mu);
  free(q->lo);
  free(q->hi);
  free(q->bq);
  free(q->shift);
  free(q->tmp1);
  free(q->tmp2);
  free(q->sc);
  free(q->olo);
  free(q->ohi);
  free(q->s1);
  free(q->s2);
  memset(q, 0, sizeof *q);
}

slv_status slv_cqp_alloc(slv_cqp *q, int n_max) {
  memset(q, 0, sizeof *q);
  size_t m = (size_t)(n_max > 0 ? n_max : 1);
  q->n_max = n_max;
  q->blk_row = malloc(m * sizeof *q->blk_row);
  q->blk_mu = malloc(m * sizeof *q->blk_mu);
  q->lo = malloc(m * sizeof *q->lo);
  q->hi = malloc(m * sizeof *q->hi);
  q->bq = malloc(m * sizeof *q->bq);
  q->shift = malloc(m * sizeof *q->shift);
  q->tmp1 = malloc(m * sizeof *q->tmp1);
  q->tmp2 = malloc(m * sizeof *q->tmp2);
  q->sc = malloc(m * sizeof *q->sc);
  q->olo = malloc(m * sizeof *q->olo);
  q->ohi = malloc(m * sizeof *q->ohi);
  q->s1 = malloc(m * sizeof *q->s1);
  q->s2 = malloc(m * sizeof *q->s2);
  if (!q->blk_row || !q->blk_mu || !q->lo || !q->hi || !q->bq || !q->shift || !q->tmp1 ||
      !q->tmp2 || !q->sc || !q->olo || !q->ohi || !q->s1 || !q->s2)
    goto fail;
  return SLV_OK;
fail:
  slv_cqp_free(q);
  return SLV_ERR_NOMEM;
}

void slv_cqp_matvec(const slv_cqp *q, const double *v, double *y) {
  int n = q->op->n;
  if (n <= 0) return;
  if (!q->scaled) {
    slv_op_matvec(q->op, v, NULL, y);
    return;
  }
  double *sv = q->s1, *sc = q->sc;
  for (int i = 0; i < n; i++) sv[i] = sc[i] * v[i];
  slv_op_matvec(q->op, sv, NULL, y);
  for (int i = 0; i < n; i++) y[i] *= sc[i];
}

void slv_cqp_metric(const slv_cqp *q, double *dg) { slv_op_metric(q->op, dg); }

/* CQP_SCALE: sc = D^-1/2, the bounds and bq of the scaled problem (the
 * problem's own bounds kept in olo, ohi). */
static void set_scaling(slv_cqp *q) {
  int n = q->p->n;
  memcpy(q->olo, q->lo, (size_t)n * sizeof *q->olo);
  memcpy(q->ohi, q->hi, (size_t)n * sizeof *q->ohi);
  if (!q->scaled) {
    for (int i = 0; i < n; i++) q->sc[i] = 1;
    return;
  }
  slv_cqp_metric(q, q->sc);
  for (int i = 0; i < n; i++) {
    q->sc[i] = 1 / sqrt(q->sc[i]);
    q->lo[i] /= q->sc[i];
    q->hi[i] /= q->sc[i];
    q->bq[i] *= q->sc[i];
  }
}

/* ||A||_2 of the symmetric positive semidefinite A (= lambda_max) by power
 * iteration from a seeded pseudo-random start; the estimate is from below
 * (each |A v| / |v| <= lambda_max); the solvers guard against that. */
static double norm_estimate(slv_cqp *q, unsigned long seed) {
  int n = q->p->n;
  double *v = q->tmp1, *y = q->tmp2;
  unsigned long long r = (unsigned long long)seed * 0x9E3779B97F4A7C15ULL + 12345;
  double nv = 0;
  for (int i = 0; i < n; i++) {
    r = r * 6364136223846793005ULL + 1442695040888963407ULL;
    v[i] = (double)(r >> 11) / 9007199254740992.0 * 2 - 1; /* uniform in [-1, 1) */
    nv += v[i] * v[i];
  }
  if (!(nv > 0)) return 1.0;
  cblas_dscal(n, 1 / sqrt(nv), v, 1);
  double lam = 0;
  for (int it = 0; it < CQP_POWER_MAXIT; it++) {
    slv_cqp_matvec(q, v, y);
    double ny = cblas_dnrm2(n, y, 1);
    if (!(ny > 0) || !isfinite(ny)) break;
    double prev = lam;
    lam = ny;
    for (int i = 0; i < n; i++) v[i] = y[i] / ny;
    if (it > 2 && fabs(lam - prev) <= 1e-3 * lam) break;
  }
  return lam > 0 && isfinite(lam) ? lam : 1.0;
}

void slv_cqp_setup(slv_cqp *q, slv_op *op, const slv_options *opt, int flags) {
  const slv_problem *p = op->p;
  int n = p->n, nb = 0, k = 0;
  q->p = p;
  q->op = op;
  for (int i = 0; i < n;) {
    if (k < p->ncones && p->cone_rows[k] == i) {
      double mu = p->cone_mu[k++];
      if (mu > 0) {
        q->blk_row[nb] = i;
        q->blk_mu[nb++] = mu;
      } else {
        /* mu = 0: the ray {t = 0, n >= 0} as three scalar rows */
        for (int c = 0; c < 3; c++) {
          q->blk_row[nb] = i + c;
          q->blk_mu[nb++] = -1;
          q->lo[i + c] = 0;
          q->hi[i + c] = c == 0 ? INFINITY : 0;
        }
      }
      i += 3;
      continue;
    }
    q->blk_row[nb] = i;
    q->blk_mu[nb++] = -1;
    q->lo[i] = slv_lo_of(p, i);
    q->hi[i] = slv_hi_of(p, i);
    i++;
  }
  q->nblk = nb;
  memcpy(q->bq, p->b, (size_t)n * sizeof *q->bq);
  double binf = 0;
  for (int i = 0; i < n; i++) binf = fmax(binf, fabs(p->b[i]));
  q->hist_scale = 1 / fmax(1.0, binf);
  memset(q->shift, 0, (size_t)n * sizeof *q->shift);
  q->coulomb = p->ncones > 0 && p->cone_law == SLV_CONE_COULOMB;
  slv_op_pack_rows(op);
  q->poll_work = slv_op_nnz(op); /* once: O(nnz) for the packed blocks */
  q->scaled = (flags & CQP_SCALE) != 0;
  set_scaling(q);
  q->lam = flags & CQP_NORM ? norm_estimate(q, opt->seed) : 1.0;
  q->gam = 1;
}

/* x <- P(x) on Omega with the scalar rows' bounds lo, hi; each block
 * alone, so on op->threads threads for large problems (par.h). */
static void project_on(const slv_cqp *q, double *x, const double *lo, const double *hi) {
#pragma omp parallel for num_threads(slv_par_threads(q->op->threads, q->p->n)) schedule(static)
  for (int k = 0; k < q->nblk; k++) {
    int i = q->blk_row[k];
    if (q->blk_mu[k] > 0) {
      slv_cone_project(q->blk_mu[k], x + i, x + i);
    } else {
      if (x[i] < lo[i]) x[i] = lo[i];
      if (x[i] > hi[i]) x[i] = hi[i];
    }
  }
}

void slv_cqp_project(const slv_cqp *q, double *x) { project_on(q, x, q->lo, q->hi); }

/* ||x - P(x - g)||_inf over blocks [k0, k1), g given by rows or, for
 * cones, with the De Saxce shift added to the normal row when dsx is set
 * and the block is a cone (mu > 0) -- w^ = g + (mu |g_t|, 0, 0).  *m gets
 * the maximum, *poison 0 or NaN (NaN iff an x or w entry is NaN or Inf). */
static void natres_blocks(const slv_cqp *q, const double *x, const double *g, const double *sub,
                          int dsx, int k0, int k1, double *m_out, double *poison_out) {
  const double *lo = q->scaled ? q->olo : q->lo, *hi = q->scaled ? q->ohi : q->hi;
  double m = 0, poison = 0, gam = q->gam;
  for (int k = k0; k < k1; k++) {
    int i = q->blk_row[k];
    double mu = q->blk_mu[k];
    if (mu > 0) {
      double w0 = gam * (g[i] - (sub ? sub[i] : 0)), w1 = gam * g[i + 1], w2 = gam * g[i + 2];
      if (dsx) w0 += slv_desaxce_shift(mu, w1, w2);
      double v[3] = { x[i] - w0, x[i + 1] - w1, x[i + 2] - w2 }, pr[3];
      slv_cone_project(mu, v, pr);
      double d0 = fabs(x[i] - pr[0]), d1 = fabs(x[i + 1] - pr[1]), d2 = fabs(x[i + 2] - pr[2]);
      /* NaN iff one of them is NaN or Inf (each product alone, so that no
       * sum of large finite values can overflow) */
      poison += x[i] * 0.0 + x[i + 1] * 0.0 + x[i + 2] * 0.0 + w0 * 0.0 + w1 * 0.0 + w2 * 0.0;
      if (d0 > m) m = d0;
      if (d1 > m) m = d1;
      if (d2 > m) m = d2;
    } else {
      /* scalar rows carry no shift (mu = 0 cones included: mu |w_t| = 0) */
      poison += x[i] * 0.0 + g[i] * 0.0;
      double r = slv_mid_res(x[i], gam * g[i], lo[i], hi[i]);
      if (r > m) m = r;
    }
  }
  *m_out = m;
  *poison_out = poison;
}

/* natres_blocks over all blocks, on op->threads threads for large problems:
 * each thread a contiguous range into its own slot, the slots combined
 * after (a maximum is exact in any order, and poison only tells 0 from
 * NaN), so the value is the same for every thread count.  Not an OpenMP
 * reduction clause: clang implements those with a lock symbol that the
 * shared library would export (tests/test_exports.sh). */
static double natres(const slv_cqp *q, const double *x, const double *g, const double *sub,
                     int dsx) {
  double m = 0, poison = 0;
#ifdef _OPENMP
  int th = slv_par_threads(q->op->threads, q->p->n);
  if (th > 1) {
    double ms[SLV_THREADS_MAX], ps[SLV_THREADS_MAX];
    int used = 1;
#pragma omp parallel num_threads(th)
    {
      int t = omp_get_thread_num(), nt = omp_get_num_threads();
      if (t == 0) used = nt;
      natres_blocks(q, x, g, sub, dsx, (int)((long long)q->nblk * t / nt),
                    (int)((long long)q->nblk * (t + 1) / nt), &ms[t], &ps[t]);
    }
    for (int t = 0; t < used; t++) {
      if (ms[t] > m) m = ms[t];
      poison += ps[t];
    }
    return poison == 0.0 ? m : NAN;
  }
#endif
  natres_blocks(q, x, g, sub, dsx, 0, q->nblk, &m, &poison);
  return poison == 0.0 ? m : NAN;
}

/* Under CQP_SCALE the inner solver's z and gradient S g back in the
 * problem's own units: x = S z into s1, g into s2 (else z and g as given). */
static void unscale(const slv_cqp *q, const double **x, const double **g) {
  if (!q->scaled) return;
  int n = q->p->n;
  for (int i = 0; i < n; i++) {
    q->s1[i] = q->sc[i] * (*x)[i];
    q->s2[i] = (*g)[i] / q->sc[i];
  }
  *x = q->s1;
  *g = q->s2;
}

double slv_cqp_natres(const slv_cqp *q, const double *x, const double *g) {
  unscale(q, &x, &g);
  return natres(q, x, g, NULL, 0);
}

double slv_cqp_lawres(const slv_cqp *q, const double *x, const double *g) {
  /* w = g - shift (the shift sits on the normal rows of mu > 0 cones only) */
  unscale(q, &x, &g);
  return natres(q, x, g, q->shift, q->coulomb);
}

/* Feasible step of one cone block: largest t with a - s d in K_mu for s in
 * [0, t], a in K_mu.  With u(t) = a - t d,
 *   h(t) = mu^2 u_n^2 - |u_t|^2 = A2 t^2 + 2 B t + C,
 *   A2 = mu^2 d_n^2 - |d_t|^2,  B = -(mu^2 a_n d_n - a_t.d_t),  C = mu^2 a_n^2 - |a_t|^2 >= 0,
 * and K = {h >= 0, u_n >= 0}: the first positive root of h, capped where
 * u_n reaches 0 (a line through the apex has a double root there).  Roots
 * in the cancellation-free forms (-B - sqrt D)/A2 = C / (sqrt D - B). */
static double cone_step(double mu, const double *a, const double *d) {
  double m2 = mu * mu;
  double A2 = m2 * d[0] * d[0] - d[1] * d[1] - d[2] * d[2];
  double B = -(m2 * a[0] * d[0] - a[1] * d[1] - a[2] * d[2]);
  double C = m2 * a[0] * a[0] - a[1] * a[1] - a[2] * a[2];
  if (C < 0) C = 0; /* a on the boundary up to rounding */
  double D = B * B - A2 * C, t;
  if (A2 < 0) {
    double sd = sqrt(fmax(D, 0));
    t = B >= 0 ? (B + sd) / -A2 : C / (sd - B);
  } else if (B >= 0 || D < 0) {
    t = INFINITY;
  } else {
    t = C / (sqrt(D) - B);
  }
  if (d[0] > 0) {
    double tn = a[0] / d[0];
    if (tn < t) t = tn;
  }
  return t > 0 ? t : 0;
}

double slv_cqp_feasible_step(const slv_cqp *q, const double *x, const double *d, int face,
                             int *blocking, int *to_apex) {
  double tmin = INFINITY;
  int kb = -1, apex = 0;
  for (int k = 0; k < q->nblk; k++) {
    int i = q->blk_row[k];
    double t;
    int ap = 0;
    if (q->blk_mu[k] > 0) {
      if (d[i] == 0.0 && d[i + 1] == 0.0 && d[i + 2] == 0.0) continue;
      if (face && !slv_cqp_cone_free(q->blk_mu[k], x + i)) {
        /* a boundary block moving along its own ray: it stops at the apex
         * (h(t) = 0 identically there, so no quadratic) */
        t = d[i] > 0 ? x[i] / d[i] : INFINITY;
        ap = 1;
      } else {
        t = cone_step(q->blk_mu[k], x + i, d + i);
      }
    } else if (d[i] > 0) {
      t = q->lo[i] == -INFINITY ? INFINITY : (x[i] - q->lo[i]) / d[i];
    } else if (d[i] < 0) {
      t = q->hi[i] == INFINITY ? INFINITY : (x[i] - q->hi[i]) / d[i];
    } else {
      continue;
    }
    if (t < tmin) {
      tmin = t;
      kb = k;
      apex = ap;
    }
  }
  if (tmin < 0) tmin = 0;
  if (blocking) *blocking = kb;
  if (to_apex) *to_apex = apex;
  return tmin;
}

void slv_cqp_snap(const slv_cqp *q, double *x, int k, int to_apex) {
  if (k < 0) return;
  int i = q->blk_row[k];
  double mu = q->blk_mu[k];
  if (mu > 0) {
    /* onto the boundary |x_t| = mu x_n, keeping x_n and the direction of
     * x_t; or onto the apex when the block came down its ray */
    double s = hypot(x[i + 1], x[i + 2]);
    if (to_apex || x[i] <= 0) {
      x[i] = x[i + 1] = x[i + 2] = 0;
    } else if (s > 0) {
      double c = mu * x[i] / s;
      x[i + 1] *= c;
      x[i + 2] *= c;
    }
    return;
  }
  /* the scalar row that reached a bound: set it exactly on the nearer one */
  x[i] = fabs(x[i] - q->lo[i]) <= fabs(x[i] - q->hi[i]) ? q->lo[i] : q->hi[i];
}

int slv_cqp_cone_free(double mu, const double *x) {
  return hypot(x[1], x[2]) < (1 - CONE_FREE_RTOL) * mu * x[0];
}

/* ---- the outer loop: the De Saxce fixed point ------------------------------ */

/* The step of the natural maps, gam = 1 / a, a the geometric mean of the
 * rows' sizes a_i (|A_ii|, or the row's 1-norm where A_ii = 0: the
 * convergence measure's, slv_op_rowscale; docs/convergence.md, "The
 * measure"): a row's impulse is of the order of its velocity over a_i, so
 * x and gam g are of one size, and multiplying the problem by any alpha
 * multiplies a by alpha and leaves gam g unchanged.  With gam = 1 the map
 * added x to g as numbers, and on the problem times 1e-12 every g was below
 * the rounding of x: the map was 0 at every iterate and the fixed point
 * stalled (experiments/records/2026-11-26-cone-qp-natural-map.md).  A mean of
 * logarithms, so that one huge or
 * tiny row does not set it; 1 without a row of positive size. */
static void set_step(slv_cqp *q, slv_op *op) {
  const double *a = slv_op_rowscale(op)->a;
  double sl = 0;
  int k = 0;
  for (int i = 0; i < q->p->n; i++)
    if (a[i] > 0 && isfinite(a[i])) sl += log(a[i]), k++;
  double gam = k > 0 ? exp(-sl / k) : 1.0;
  q->gam = gam > 0 && isfinite(gam) ? gam : 1.0;
}

/* The inner solvers stop on the QP's natural map with the step gam: the
 * library's test (res_scaled <= tol, with a global problem's clause, and
 * res_rel_2 under the 2-norm option: slv_test_measure; docs/convergence.md)
 * in those units at the current iterate, tol times u / that measure, u the
 * law's map with the step gam at x (the worst row's own scale).  The
 * outer loop recomputes the verdict and tightens.  *u gets u. */
static double absolute_target(slv_cqp *q, const slv_options *opt, const slv_residuals *r,
                              const double *x, const double *w, double *u) {
  *u = natres(q, x, w, NULL, q->coulomb);
  double s = slv_test_measure(opt, r), units = s > 0 ? *u / s : 1.0;
  return opt->tol * units;
}

slv_status slv_cqp_drive(slv_cqp *q, slv_op *op, const slv_options *opt, const char *name,
                         int flags, double inner_factor, slv_cqp_inner_fn inner, void *state,
                         double *x, double *w, slv_result *res, slv_hist *h) {
  const slv_problem *p = op->p;
  slv_cqp_setup(q, op, opt, flags);
  set_step(q, op);
  project_on(q, x, q->olo, q->ohi);
  const char *law = p->ncones == 0 ? "box QP (no cones)"
                    : q->coulomb   ? "coulomb law (De Saxce fixed point)"
                                   : "associated law (cone QP)";
  int total = 0, outer = 0, since = 0;
  double best = INFINITY, tol_in = 0;
  res->iterations = 0;
  for (;;) {
    /* the verdict, exactly as the generic layer will recompute it */
    slv_op_w(op, x, w);
    slv_residuals r = slv_residual_op(op, x, w);
    double m = slv_test_measure(opt, &r);
    res->solver_residual = m;
    if (!isfinite(r.res_rel)) {
      slv_msgf(res->message, sizeof res->message,
               "%s: %s: the iterate became non-finite after %d iterations (%d outer)", name, law,
               total, outer);
      return SLV_NOT_FINITE;
    }
    if (h->cap > 0 && res->history_len > 0) h->val[res->history_len - 1] = m; /* x's own */
    if (slv_met(p, opt, &r)) {
      slv_msgf(res->message, sizeof res->message, "%s: %s: %d outer iterations, %d inner", name,
               law, outer, total);
      return SLV_CONVERGED;
    }
    if (total >= opt->max_iter) {
      slv_msgf(res->message, sizeof res->message,
               "%s: %s: max_iter=%d spent in %d outer iterations, res_nat_inf=%.3g, "
               "res_scaled=%.3g, tol=%.3g",
               name, law, opt->max_iter, outer, r.res_nat_inf, r.res_scaled, opt->tol);
      return SLV_MAX_ITER;
    }
    if (m < 0.99 * best) {
      best = m;
      since = 0;
    } else if (++since >= CQP_STALL) {
      slv_msgf(res->message, sizeof res->message,
               "%s: %s: no 1%% gain in %d outer iterations (%d inner), res_scaled=%.3g", name, law,
               CQP_STALL, total, r.res_scaled);
      return SLV_STAGNATED;
    }
    double u, target = absolute_target(q, opt, &r, x, w, &u);
    q->hist_scale = opt->tol / target; /* the inner histories in res_scaled's units */
    if (q->coulomb) {
      /* s_c = mu |w_t| at the current x; then the QP's natural map at x is
       * the De Saxce map, of size u.  Solve the next QP only to
       * inner_factor times that (an inexact fixed point: early QPs need no
       * accuracy), and to half the target at the end. */
      for (int k = 0; k < p->ncones; k++) {
        int i = p->cone_rows[k];
        double s = slv_desaxce_shift_hypot(p->cone_mu[k], w[i + 1], w[i + 2]);
        q->shift[i] = s;
        q->bq[i] = (p->b[i] + s) * q->sc[i];
      }
      tol_in = fmax(0.5 * target, inner_factor * u);
    } else {
      /* one QP solve; tighter only if the library's recomputation (dgemv
       * instead of the solver's updated gradient) disagrees */
      tol_in = outer == 0 ? 0.5 * target : 0.5 * tol_in;
    }
    outer++;
    int it = 0;
    for (int i = 0; q->scaled && i < p->n; i++) x[i] /= q->sc[i];
    slv_status st = inner(state, q, opt, tol_in, opt->max_iter - total, x, res, h, &it);
    if (q->scaled) { /* back, and on Omega again (the rounding of z * sc) */
      for (int i = 0; i < p->n; i++) x[i] *= q->sc[i];
      project_on(q, x, q->olo, q->ohi);
    }
    total += it;
    res->iterations = total;
    slv_logf(opt,
             "%s: outer %d: start natural map %.3e (step %.3g), inner tol %.3e: %s after %d "
             "iterations",
             name, outer, u, q->gam, tol_in, slv_status_str(st), it);
    if (st == SLV_NOT_FINITE) {
      slv_msgf(res->message, sizeof res->message,
               "%s: %s: non-finite value at inner iteration %d (outer %d)", name, law, total,
               outer);
      return SLV_NOT_FINITE;
    }
    if (slv_stopped(op)) return slv_stopped(op); /* the inner solve's x (apgd: its best) */
  }
}
