/* my_jacobi.c -- a template solver plugin for lcplab: projected Jacobi for
 * the boxed LCP (docs/plugins.md; the tutorial, "Compare your own solver").
 *
 * Problem (slv.h): w = A x + b, x = mid(lo, hi, x - w).
 * Iteration (Cottle-Pang-Stone [cottle1992] sec. 5.2; docs/solvers.md,
 * "Projected Jacobi"), all rows at once:
 *     x_i <- mid(lo_i, hi_i, x_i - theta w_i / A_ii)
 * which is projected gradient in the metric D = diag(A): for symmetric
 * positive semidefinite A it converges for 0 < theta < 2 / lambda_max(
 * D^-1/2 A D^-1/2).  theta = options.damping, or when that is 0 one over
 * the largest Gershgorin row sum of D^-1/2 A D^-1/2 (>= lambda_max, so
 * theta <= 1 / lambda_max: safe).  Dense or CSR storage; box and free
 * rows; no cones (caps below: slv_solve refuses those for it).
 *
 * Friction rows (findex[i] = j >= 0: row i is coupled to normal row j, its
 * bounds +-mu_i |x_j| (slv.h), which move with x_j): a problem with such rows is
 * swept by projected Gauss-Seidel instead, row after row with the current
 * x, so that a friction row is projected on the bounds of its normal
 * row's impulse of the same sweep (ODE's quickstep; [cottle1992] sec. 5.2,
 * the SOR variant with omega = 1):
 *     x_i <- mid(lo_i(x), hi_i(x), x_i - ((A x)_i + b_i) / A_ii).
 * Its convergence is not guaranteed (the bounds depend on x: not an LCP
 * but a quasi-variational problem); slv_residual judges each iterate.
 *
 * Build against the installed lcplab (Makefile: pkg-config only), then
 *     lcplab --plugin ./my_jacobi.so solvers
 *     lcplab --plugin ./my_jacobi.so solve problem.lcp --solver my_jacobi
 */
#include <slv.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

SLV_PLUGIN_ABI_DEFINE;

typedef struct {
  double *dinv, *xo; /* 1 / A_ii; the previous x */
} jacobi_state;

static slv_status jacobi_init(void *st, int n_max, const slv_options *opt, void *ctx) {
  (void)opt, (void)ctx;
  jacobi_state *s = st; /* the only allocation: here, once per workspace */
  size_t m = (size_t)(n_max > 0 ? n_max : 1) * sizeof(double);
  s->dinv = malloc(m);
  s->xo = malloc(m);
  return s->dinv && s->xo ? SLV_OK : SLV_ERR_NOMEM;
}

static void jacobi_free(void *st, void *ctx) {
  (void)ctx;
  jacobi_state *s = st;
  free(s->dinv);
  free(s->xo);
}

/* |A_ij| over row i of A, scaled by dinv, summed (the Gershgorin row sum);
 * dense or CSR.  *diag gets A_ii. */
static double row_sum(const slv_problem *p, const double *dinv, int i, double *diag) {
  double sum = 0;
  *diag = 0;
  if (p->storage == SLV_CSR) {
    for (int k = p->Ap[i]; k < p->Ap[i + 1]; k++) {
      if (p->Aj[k] == i) *diag += p->Ax[k];
      if (dinv) sum += fabs(p->Ax[k]) * sqrt(dinv[i] * dinv[p->Aj[k]]);
    }
    return sum;
  }
  for (int j = 0; j < p->n; j++) {
    double a = p->A[i + (size_t)j * p->lda];
    if (j == i) *diag = a;
    if (dinv) sum += fabs(a) * sqrt(dinv[i] * dinv[j]);
  }
  return sum;
}

/* The bounds of row i at x: a friction row's +-mu_i |x_j| (j = findex[i]),
 * else lo_i, hi_i. */
static void row_bounds(const slv_problem *p, const double *x, int i, double *lo, double *hi) {
  if (p->findex && p->findex[i] >= 0) {
    double f = p->mu[i] * fabs(x[p->findex[i]]);
    *lo = -f;
    *hi = f;
    return;
  }
  *lo = p->lo ? p->lo[i] : 0;
  *hi = p->hi ? p->hi[i] : INFINITY;
}

/* (A x)_i + b_i, dense or CSR. */
static double row_w(const slv_problem *p, const double *x, int i) {
  double v = p->b[i];
  if (p->storage == SLV_CSR) {
    for (int k = p->Ap[i]; k < p->Ap[i + 1]; k++) v += p->Ax[k] * x[p->Aj[k]];
    return v;
  }
  for (int j = 0; j < p->n; j++) v += p->A[i + (size_t)j * p->lda] * x[j];
  return v;
}

static int has_findex(const slv_problem *p) {
  for (int i = 0; p->findex && i < p->n; i++)
    if (p->findex[i] >= 0) return 1;
  return 0;
}

/* One sweep: projected Jacobi (all rows from the previous x, damped by
 * theta) or, with friction rows, projected Gauss-Seidel (row by row). */
static void sweep(const slv_problem *p, jacobi_state *s, double theta, int gauss_seidel, double *x,
                  const double *w) {
  double lo, hi;
  if (gauss_seidel) {
    for (int i = 0; i < p->n; i++) {
      double v = x[i] - row_w(p, x, i) * s->dinv[i];
      row_bounds(p, x, i, &lo, &hi);
      x[i] = v < lo ? lo : (v > hi ? hi : v);
    }
    return;
  }
  memcpy(s->xo, x, (size_t)p->n * sizeof *x);
  for (int i = 0; i < p->n; i++) {
    double v = s->xo[i] - theta * w[i] * s->dinv[i];
    row_bounds(p, s->xo, i, &lo, &hi);
    x[i] = v < lo ? lo : (v > hi ? hi : v);
  }
}

static slv_status jacobi_solve(void *st, slv_call *call, const slv_problem *p,
                               const slv_options *opt, double *x, double *w, void *ctx) {
  (void)ctx;
  jacobi_state *s = st;
  int n = p->n;
  double d, lam = 0;
  for (int i = 0; i < n; i++) { /* A_ii > 0: the caps ask slv_solve to check */
    row_sum(p, NULL, i, &d);
    s->dinv[i] = 1.0 / d;
  }
  for (int i = 0; i < n; i++) lam = fmax(lam, row_sum(p, s->dinv, i, &d));
  double theta = opt->damping > 0 ? opt->damping : 1.0 / lam;
  int gauss_seidel = has_findex(p);
  for (int it = 0;; it++) {
    slv_problem_w(p, x, w);
    slv_residuals r = slv_residual(p, x, w); /* the library's measure and test */
    slv_call_iteration(call, it, r.res_scaled);
    if (isnan(r.res_scaled)) return SLV_NOT_FINITE;
    if (slv_residuals_met(&r, opt->tol, opt->norm)) return SLV_CONVERGED;
    if (it == opt->max_iter) break;
    slv_status stop = slv_call_poll(call, (double)n * n); /* time limit, cancel */
    if (stop) return stop;
    sweep(p, s, theta, gauss_seidel, x, w);
  }
  if (gauss_seidel)
    slv_call_message(call,
                     "my_jacobi: %d Gauss-Seidel sweeps (friction rows) without meeting "
                     "tol=%g",
                     opt->max_iter, opt->tol);
  else
    slv_call_message(call, "my_jacobi: %d iterations without meeting tol=%g (theta=%.3g)",
                     opt->max_iter, opt->tol, theta);
  return SLV_MAX_ITER;
}

slv_status slv_plugin_init(const char *origin, char *msg, size_t msglen) {
  slv_solver_def d = { 0 };
  d.abi = SLV_SOLVER_ABI;
  d.name = "my_jacobi";
  d.summary = "projected Jacobi, damping from a Gershgorin bound; projected Gauss-Seidel with "
              "friction (findex) rows (the plugin template)";
  d.cite = "cottle1992";
  d.params = "theta = options.damping, or if 0 1 / (largest Gershgorin row sum of "
             "D^-1/2 A D^-1/2); iterations up to options.max_iter; with findex rows "
             "Gauss-Seidel sweeps (no damping)";
  d.caps = SLV_CAP_BOX | SLV_CAP_FREE | SLV_CAP_FINDEX | SLV_CAP_SPARSE | SLV_CAP_NEEDS_POS_DIAG;
  d.state_size = sizeof(jacobi_state);
  d.init = jacobi_init;
  d.free = jacobi_free;
  d.solve = jacobi_solve;
  return slv_solver_register(&d, origin, msg, msglen);
}
