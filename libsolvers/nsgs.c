/* nsgs.c -- nonsmooth Gauss-Seidel over contacts with an exact one-contact solve
 * (docs/cone-solvers.md, "NSGS").
 *
 * Problem (slv.h): w = A x + b.  Cone rows come in triples c = (n, t1, t2)
 * with K = K_mu = { |x_t| <= mu x_n } and K* = K_{1/mu}:
 *     Coulomb (De Saxce):  K ∋ x_c ⊥ w^_c ∈ K*,  w^_c = w_c + (mu |w_t|, 0, 0)
 *     associated (CCP):    K ∋ x_c ⊥ w_c  ∈ K*
 * every other row is a box row, lo <= x_i <= hi_i with the sign conditions of
 * slv.h (free rows: lo = -inf, hi = +inf).  findex rows are not taken.
 *
 * Method: the nonsmooth Gauss-Seidel of Jean and Moreau ([jean1999];
 * Siconos' FC3D_NSGS, acary2018 sec. 5): sweep the contacts in row order and
 * solve each one-contact problem exactly with the others frozen.  With
 * W = A(c, c) the 3x3 diagonal block (cached) and w current,
 *     q = w_c - W x_c        (the contact's free velocity: w_c = W x_c' + q)
 * and x_c' solves the one-contact problem below; box rows get the projected
 * Gauss-Seidel step x_i <- mid(lo_i, hi_i, x_i - w_i / A_ii) (pgs.c).  The
 * new x_c' is over-relaxed, x_c <- x_c + omega (x_c' - x_c) (omega = 1:
 * plain Gauss-Seidel; omega > 1 is projected back on K).  As in pgs.c, w is
 * kept current by column updates: a move d of x_c adds A(:, c..c+2) d to w.
 * The updates run over the operator's packed copy of A (operator.h): for a
 * pure contact problem (n = 3 ncones, Siconos/FCLIB files) its nonzero 3x3
 * blocks (one index and 9 multiply-adds per block), otherwise the
 * nonzeros of each column (a mostly-zero dense A, or the CSR matrix
 * transposed); a dense A with too many nonzeros is updated over the three
 * dense columns.  A sweep costs O(nnz) and its natural-map residual O(n).
 * When a CSR matrix has more nonzeros than the packed copy holds, the row
 * form is used instead (each w_i from its row, then w recomputed for the
 * residual: two O(nnz) passes per sweep).
 *
 * One-contact problem (W with positive definite symmetric part, q, mu,
 * law).  Let a = 0 (Coulomb) or 1 (associated).  The cases, tried in order:
 *  0. mu = 0: K = { x_t = 0, x_n >= 0 }, K* = { w_n >= 0 }:
 *         x = (max(0, -q_n / W_nn), 0, 0).
 *  1. x = 0 (take-off): w = q must satisfy w^ ∈ K*.  Coulomb: mu|q_t| <=
 *     q_n + mu|q_t|, i.e. q_n >= 0 (the De Saxce shift cancels the
 *     tangential part).  Associated: mu |q_t| <= q_n.
 *  2. x inside K (sticking): w^ = 0, hence w = 0 for both laws, so
 *     x = -W^-1 q (cached inverse); accepted if |x_t| <= mu x_n.
 *  3. x on the boundary of K, x != 0 (sliding).  x = r (1, mu d) with
 *     r > 0 and d = (cos th, sin th) a unit vector.  The boundary rays of
 *     K* orthogonal to x are w^ = s (mu, -d), s >= 0, so
 *         Coulomb:    w_n = 0,     w_t = -s d   (friction opposes sliding)
 *         associated: w_n = mu s,  w_t = -s d
 *     i.e. w = s v(th) with v = (a mu, -cos th, -sin th).  With
 *     u(th) = W (1, mu cos th, mu sin th), the conditions read
 *         r u(th) - s v(th) = -q,
 *     three linear equations in (r, s): solvable iff q lies in the plane of
 *     u and v:
 *         F(th) = q . (u(th) x v(th)) = 0.
 *     u and v are affine in (cos th, sin th), so F is a trigonometric
 *     polynomial of degree 2,
 *         F = k0 + k1 cos th + k2 sin th + k3 cos 2th + k4 sin 2th,
 *     with at most 4 roots on the circle (the quartic in tan(th/2) of
 *     Siconos' ONECONTACT_QUARTIC and of Bonnefon-Daviet).  At a root,
 *         Coulomb:    r = -q_n / u_n                   (normal row)
 *         associated: r = -(q_n + mu q_t.d) / (u_n + mu u_t.d)
 *         s = -w_t . d  with  w_t = r u_t + q_t,
 *     and the root is a solution iff r > 0, s >= 0 and w_t x d = 0 (the
 *     last fails only at spurious roots where u is parallel to v).  Roots
 *     are found to machine precision without the quartic's conditioning
 *     problems: first by Newton from the contact's last sliding angle (in
 *     this solve), then by Newton from the angle of the sticking impulse's
 *     tangential part -W^-1 q (exact for an isotropic W); a Newton result
 *     counts only if it converged (a step, or the error it leaves, under
 *     4 eps) and passes the test above.  Else a certified isolation on the circle: F on a grid of 32
 *     angles; an interval on which F' provably keeps its sign
 *     (|F'(t)| >= |F'(end)| - M2 |t - end| over each half, with
 *     M2 = |k1| + |k2| + 4(|k3| + |k4|) >= |F''|) holds at most one root,
 *     solved by safeguarded Newton-bisection if F changes sign; an
 *     interval without a sign change is excluded by the Taylor bound
 *     |F(th_a + t)| >= |F(th_a)| - |F'(th_a)| t - M2 t^2/2 from both ends;
 *     any other interval is halved (close roots: a pair, or three with a
 *     sign change; a double root is taken at the depth
 *     limit when |F| is at rounding level).  Among several solutions
 *     (possible for the Coulomb law with a large mu) the isolation takes
 *     the one nearest the current x_c; the Newton paths take the one
 *     continuing the contact's previous sliding, or the sticking direction.
 *  For the associated law the one-contact problem is a strictly convex QP
 *  (strongly monotone for a nonsymmetric W), so exactly one case holds.  If
 *  no case yields a solution (the Coulomb problem, in rounding-level
 *  degenerate cases), the contact takes 50 steps of the projected fixed
 *  point x <- P_K(x - W^ / tr W) from x_c instead; such fallbacks are
 *  counted and reported in the message.
 *
 * Convergence: for an SPD A and the associated law, Gauss-Seidel on the
 * QP's blocks converges (block coordinate descent); for the Coulomb law no
 * guarantee exists (acary2018 sec. 5), and the solver may end at
 * SLV_MAX_ITER.  The stopping test is the library's (slv_met_norms on
 * res_scaled), confirmed on w = A x + b recomputed exactly
 * (slv_residual) before returning SLV_CONVERGED; the per-sweep measure is
 * slv_natmap_norms on the maintained w, taken on a schedule (nsgs_schedule:
 * every sweep near the tol or with a history, else every few); w is also
 * recomputed every opt->check_every sweeps to drop the rounding drift of
 * the updates.
 *
 * Needs A(i,i) > 0 on box rows (SLV_CAP_NEEDS_POS_DIAG) and a positive
 * definite symmetric part of every cone block (checked by Cholesky, with
 * pivots above 1e-12 of the block's largest entry): else SLV_ERR_UNSUPPORTED
 * naming the cone.  Statuses: SLV_CONVERGED, SLV_MAX_ITER, SLV_NOT_FINITE,
 * SLV_ERR_UNSUPPORTED, SLV_TIME_LIMIT, SLV_INTERRUPTED (polled before each
 * sweep; the last iterate).  Reads opt->max_iter (sweeps), tol, omega,
 * check_every, record_history.
 */
#include "slv_internal.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

enum {
  NSGS_GRID = 32,        /* angles of the root isolation grid */
  NSGS_MAX_DEPTH = 40,   /* halvings of a grid interval (2pi/32 / 2^40 ~ 1.8e-13 rad) */
  NSGS_MAX_ROOTS = 16,   /* candidate roots kept (F has at most 4, ties may repeat) */
  NSGS_MAX_EVALS = 2000, /* evaluations of F in one isolation (typically < 100) */
  NSGS_FALLBACK_IT = 50, /* projected fixed-point steps when no case applies */
  NSGS_CHECK_MAX = 8,    /* sweeps between two measures, at most (nsgs_schedule) */
  NSGS_CHECK_NEAR = 4    /* a measure within this factor of the tol: every sweep */
};
#define TWO_PI 6.283185307179586476925286766559

typedef struct {
  int n_max;
  double *blk;  /* per cone: W (9, column-major) then W^-1 (9); size 18 * n_max / 3 */
  double *dir;  /* per cone: (cos, sin) of the last sliding angle in this solve, NAN if none */
  double *invd; /* per row: 1 / A(i,i) (box rows) */
  double *grid; /* cos, sin of 2 pi k / NSGS_GRID: 2 * NSGS_GRID */
} nsgs_state;

static void nsgs_free(void *st) {
  nsgs_state *s = st;
  free(s->blk);
  free(s->dir);
  free(s->invd);
  free(s->grid);
  memset(s, 0, sizeof *s);
}

static slv_status nsgs_init(void *st, int n_max, const slv_options *opt) {
  (void)opt;
  nsgs_state *s = st;
  size_t m = (size_t)(n_max > 0 ? n_max : 1), nc = m / 3 + 1;
  s->n_max = n_max;
  s->blk = malloc(18 * nc * sizeof *s->blk);
  s->dir = malloc(2 * nc * sizeof *s->dir);
  s->invd = malloc(m * sizeof *s->invd);
  s->grid = malloc(2 * NSGS_GRID * sizeof *s->grid);
  if (!s->blk || !s->dir || !s->invd || !s->grid) {
    nsgs_free(s);
    return SLV_ERR_NOMEM;
  }
  for (int k = 0; k < NSGS_GRID; k++) {
    double t = TWO_PI * k / NSGS_GRID;
    s->grid[2 * k] = cos(t);
    s->grid[2 * k + 1] = sin(t);
  }
  return SLV_OK;
}

/* ---- the one-contact problem ---------------------------------------------- */

/* |(a, b)| without hypot's overflow guard (hypot was half of a sweep's time;
 * contact impulses and velocities are far from 1e150). */
static inline double norm2(double a, double b) { return sqrt(a * a + b * b); }

typedef struct {
  const double *W; /* 3x3 column-major */
  const double *q;
  double mu;
  int assoc;
  double k[5];   /* F = k0 + k1 cos + k2 sin + k3 cos 2th + k4 sin 2th */
  double m2;     /* bound on |F''| */
  double fscale; /* bound on |F| */
} contact;

/* The coefficients of F(th) = q . (u(th) x v(th)) with u = u0 + c U1 + s U2,
 * v = v0 + c V1 + s V2 (c = cos th, s = sin th):
 *   F = T(u0,v0) + c [T(u0,V1) + T(U1,v0)] + s [T(u0,V2) + T(U2,v0)]
 *       + c^2 T(U1,V1) + c s [T(U1,V2) + T(U2,V1)] + s^2 T(U2,V2),
 * then c^2 = (1 + cos 2th)/2, s^2 = (1 - cos 2th)/2, c s = sin 2th / 2.
 * T(X, Y) = q . (X x Y) with the constant v0 = (a mu, 0, 0), V1 = (0, -1,
 * 0), V2 = (0, 0, -1) written out (the compiler may not drop products by
 * zero; the terms dropped are exact zeros, but the sums associate
 * differently from the general product, so the last bits of k can move):
 *   T(X, v0) = a mu (q1 X2 - q2 X1),  T(X, V1) = q0 X2 - q2 X0,
 *   T(X, V2) = q1 X0 - q0 X1. */
static void contact_setup(contact *ct) {
  const double *W = ct->W, mu = ct->mu, *q = ct->q;
  const double *u0 = W;                               /* W e_n */
  double U1[3] = { mu * W[3], mu * W[4], mu * W[5] }; /* mu W e_t1 */
  double U2[3] = { mu * W[6], mu * W[7], mu * W[8] }; /* mu W e_t2 */
  double am = ct->assoc ? mu : 0.0;
#define T_V0(X) (am * (q[1] * (X)[2] - q[2] * (X)[1]))
#define T_V1(X) (q[0] * (X)[2] - q[2] * (X)[0])
#define T_V2(X) (q[1] * (X)[0] - q[0] * (X)[1])
  double c00 = T_V0(u0);
  double cc = T_V1(u0) + T_V0(U1);
  double cs = T_V2(u0) + T_V0(U2);
  double ccc = T_V1(U1), css = T_V2(U2);
  double ccs = T_V2(U1) + T_V1(U2);
#undef T_V0
#undef T_V1
#undef T_V2
  ct->k[0] = c00 + 0.5 * (ccc + css);
  ct->k[1] = cc;
  ct->k[2] = cs;
  ct->k[3] = 0.5 * (ccc - css);
  ct->k[4] = 0.5 * ccs;
  double a1 = fabs(ct->k[1]) + fabs(ct->k[2]), a2 = fabs(ct->k[3]) + fabs(ct->k[4]);
  ct->m2 = a1 + 4 * a2;
  ct->fscale = fabs(ct->k[0]) + a1 + a2;
}

/* F and F' at the angle whose cos/sin are (c, s). */
static void feval(const contact *ct, double c, double s, double *f, double *fp) {
  double c2 = c * c - s * s, s2 = 2 * s * c;
  const double *k = ct->k;
  *f = k[0] + k[1] * c + k[2] * s + k[3] * c2 + k[4] * s2;
  *fp = -k[1] * s + k[2] * c - 2 * k[3] * s2 + 2 * k[4] * c2;
}

/* The sliding point at the angle with cos/sin (c, s): x = r (1, mu d).
 * Returns 1 if it solves the one-contact problem (r > 0, s >= 0, w_t
 * parallel to -d), 0 if not. */
static int sliding_point(const contact *ct, double c, double s, double x[3]) {
  const double *W = ct->W, *q = ct->q, mu = ct->mu;
  double u[3];
  for (int i = 0; i < 3; i++) u[i] = W[i] + mu * (c * W[3 + i] + s * W[6 + i]);
  double r;
  if (ct->assoc) /* w_n + mu w_t.d = 0 */
    r = -(q[0] + mu * (q[1] * c + q[2] * s)) / (u[0] + mu * (u[1] * c + u[2] * s));
  else /* w_n = 0 */
    r = -q[0] / u[0];
  if (!(r > 0) || !isfinite(r)) return 0;
  double wt1 = r * u[1] + q[1], wt2 = r * u[2] + q[2];
  double sl = -(wt1 * c + wt2 * s), cross = wt1 * s - wt2 * c;
  /* scale of the terms that cancel: spurious roots leave O(scale) here,
   * genuine ones rounding (times the conditioning of W) */
  double scale = fmax(fabs(q[0]), fmax(fabs(q[1]), fabs(q[2]))) +
                 r * fmax(fabs(u[0]), fmax(fabs(u[1]), fabs(u[2])));
  if (sl < -1e-9 * scale || fabs(cross) > 1e-7 * scale) return 0;
  x[0] = r;
  x[1] = r * mu * c;
  x[2] = r * mu * s;
  return 1;
}

/* Safeguarded Newton-bisection on [a, b] with fa * fb < 0. */
static double bracket_root(const contact *ct, double a, double fa, double b) {
  double lo = a, hi = b, flo = fa;
  double t = 0.5 * (a + b);
  for (int it = 0; it < 200; it++) {
    double f, fp;
    feval(ct, cos(t), sin(t), &f, &fp);
    if (f == 0) return t;
    if ((f < 0) == (flo < 0)) {
      lo = t;
      flo = f;
    } else {
      hi = t;
    }
    double tn = fp != 0 ? t - f / fp : lo;
    if (!(tn > lo && tn < hi)) tn = 0.5 * (lo + hi);
    if (fabs(tn - t) <= 2 * DBL_EPSILON * fabs(t) + 1e-300 ||
        hi - lo <= 4 * DBL_EPSILON * fmax(fabs(lo), fabs(hi)))
      return tn;
    t = tn;
  }
  return t;
}

typedef struct {
  double th[NSGS_MAX_ROOTS];
  int n;
  int evals; /* budget against pathological splitting */
} rootlist;

static void add_root(rootlist *rl, double th) {
  if (rl->n < NSGS_MAX_ROOTS) rl->th[rl->n++] = th;
}

/* Roots of F in [a, b): a root at a is recorded only if own_a (the right
 * end belongs to the next interval).  An interval on which F is certified
 * monotone (F' keeps one sign: |F'| >= |F'(end)| - M2 t over each half)
 * holds at most one root, found by bracketing if F changes sign; one
 * without a sign change is excluded by the Taylor bound on |F| from each
 * end; any other interval is halved (close roots: two, or three with a sign
 * change). */
static void isolate(const contact *ct, double a, double fa, double fpa, int own_a, double b,
                    double fb, double fpb, int depth, rootlist *rl) {
  if (fa == 0 && own_a) add_root(rl, a);
  int change = (fa < 0 && fb > 0) || (fa > 0 && fb < 0);
  double h2 = 0.5 * (b - a), g = ct->m2 * h2;
  if (fabs(fpa) > g && fabs(fpb) > g && (fpa > 0) == (fpb > 0)) { /* monotone */
    if (change) add_root(rl, bracket_root(ct, a, fa, b));
    return;
  }
  if (!change && fa != 0) {
    double bound = 0.5 * g * h2;
    if (fabs(fa) - fabs(fpa) * h2 - bound > 0 && fabs(fb) - fabs(fpb) * h2 - bound > 0) return;
  }
  if (depth >= NSGS_MAX_DEPTH || rl->evals >= NSGS_MAX_EVALS) {
    /* roots closer than the resolution: one of a sign change, or a double
     * root at rounding level */
    if (change)
      add_root(rl, bracket_root(ct, a, fa, b));
    else if (fa != 0 && fmin(fabs(fa), fabs(fb)) <= 1e-12 * ct->fscale)
      add_root(rl, fabs(fa) < fabs(fb) ? a : b);
    return;
  }
  double m = a + h2, fm, fpm;
  feval(ct, cos(m), sin(m), &fm, &fpm);
  rl->evals++;
  isolate(ct, a, fa, fpa, own_a, m, fm, fpm, depth + 1, rl);
  isolate(ct, m, fm, fpm, 1, b, fb, fpb, depth + 1, rl);
}

static double dist2(const double *a, const double *b) {
  double d0 = a[0] - b[0], d1 = a[1] - b[1], d2 = a[2] - b[2];
  return d0 * d0 + d1 * d1 + d2 * d2;
}

/* Newton on F from the angle with cos/sin (c, s); 1 and x, dir = its
 * (cos, sin) if it converges to a solution.  The iterate is carried as
 * (cos t, sin t) and rotated by each step, with the step's cos/sin from
 * their Taylor series below 1e-3 rad (error < 1e-21): no libm call once
 * Newton is close.  A rotation keeps c^2 + s^2 = 1 up to rounding, which
 * the first-order correction 1/sqrt(1 + e) ~ 1 - e/2 removes. */
static int newton_from(const contact *ct, double c, double s, double dir[2], double x[3]) {
  int conv = 0;
  for (int it = 0; it < 12 && !conv; it++) {
    double f, fp;
    feval(ct, c, s, &f, &fp);
    if (f == 0) {
      conv = 1;
      break;
    }
    if (fp == 0) break;
    double step = f / fp, cs, sn;
    int clamped = fabs(step) > 0.3;
    if (step > 0.3) step = 0.3;
    if (step < -0.3) step = -0.3;
    if (fabs(step) < 1e-3) {
      double h2 = step * step;
      cs = 1 - h2 / 2 * (1 - h2 / 12);
      sn = step * (1 - h2 / 6 * (1 - h2 / 20));
    } else {
      cs = cos(step);
      sn = sin(step);
    }
    /* t <- t - step */
    double cn = c * cs + s * sn, snew = s * cs - c * sn;
    double nrm = 1.5 - 0.5 * (cn * cn + snew * snew);
    c = cn * nrm;
    s = snew * nrm;
    /* converged once the error left after this step is of rounding size
     * for an angle in (-pi, pi]: a full Newton step leaves about |F''| /
     * (2 |F'|) step^2, and M2 bounds |F''| (this saves the step that used
     * to confirm convergence; a step itself that small converges too) */
    double after = clamped ? INFINITY : 0.5 * ct->m2 / fabs(fp) * step * step;
    conv = fmin(fabs(step), after) <= 4 * DBL_EPSILON * (1 + 0.5 * TWO_PI);
  }
  if (!conv || !sliding_point(ct, c, s, x)) return 0;
  dir[0] = c;
  dir[1] = s;
  return 1;
}

/* Sliding case: fills x and dir, returns 1; 0 if no sliding solution.
 * (g1, g2): the sticking impulse's tangential part, the second guess. */
static int solve_sliding(contact *ct, const double *grid, const double *xold, double g1, double g2,
                         double dir[2], double x[3]) {
  contact_setup(ct);
  if (!(ct->fscale > 0) || !isfinite(ct->fscale)) return 0;
  /* fast paths: Newton from the contact's last sliding angle, then from the
   * direction of the sticking impulse (exact for an isotropic W) */
  if (!isnan(dir[0]) && newton_from(ct, dir[0], dir[1], dir, x)) return 1;
  double g = norm2(g1, g2), c0 = 1, s0 = 0; /* angle 0 when g = 0, as atan2(0, 0) */
  if (g > 0) c0 = g1 / g, s0 = g2 / g;
  if (isfinite(g) && newton_from(ct, c0, s0, dir, x)) return 1;
  /* certified isolation over the circle */
  rootlist rl = { { 0 }, 0, 0 };
  double f[NSGS_GRID + 1], fp[NSGS_GRID + 1];
  for (int k = 0; k < NSGS_GRID; k++) feval(ct, grid[2 * k], grid[2 * k + 1], &f[k], &fp[k]);
  f[NSGS_GRID] = f[0];
  fp[NSGS_GRID] = fp[0];
  double h = TWO_PI / NSGS_GRID;
  for (int k = 0; k < NSGS_GRID; k++)
    isolate(ct, k * h, f[k], fp[k], 1, (k + 1) * h, f[k + 1], fp[k + 1], 0, &rl);
  int found = 0;
  double best = INFINITY, xc[3];
  for (int i = 0; i < rl.n; i++) {
    double c = cos(rl.th[i]), sn = sin(rl.th[i]);
    if (!sliding_point(ct, c, sn, xc)) continue;
    double d = dist2(xc, xold);
    if (d < best) {
      best = d;
      memcpy(x, xc, sizeof xc);
      dir[0] = c;
      dir[1] = sn;
      found = 1;
    }
  }
  return found;
}

/* Projected fixed point on one contact (fallback). */
static void local_fixed_point(const contact *ct, const double *xold, double x[3]) {
  const double *W = ct->W, *q = ct->q;
  double rho = 1.0 / (W[0] + W[4] + W[8]);
  memcpy(x, xold, 3 * sizeof *x);
  for (int it = 0; it < NSGS_FALLBACK_IT; it++) {
    double w[3], v[3];
    for (int i = 0; i < 3; i++) w[i] = W[i] * x[0] + W[3 + i] * x[1] + W[6 + i] * x[2] + q[i];
    if (!ct->assoc) w[0] += ct->mu * norm2(w[1], w[2]);
    for (int i = 0; i < 3; i++) v[i] = x[i] - rho * w[i];
    slv_cone_project(ct->mu, v, x);
  }
}

/* Solve the one-contact problem; returns 1 if the fallback was used.
 * dir: in/out, (cos, sin) of the contact's last sliding angle (NAN: none yet). */
static int solve_contact(const double *W, const double *Winv, double mu, int assoc, const double *q,
                         const double *xold, double *dir, const double *grid, double x[3]) {
  if (mu == 0) {
    x[0] = q[0] < 0 ? -q[0] / W[0] : 0.0;
    x[1] = x[2] = 0;
    return 0;
  }
  if (assoc ? mu * norm2(q[1], q[2]) <= q[0] : q[0] >= 0) { /* take-off */
    x[0] = x[1] = x[2] = 0;
    return 0;
  }
  for (int i = 0; i < 3; i++) x[i] = -(Winv[i] * q[0] + Winv[3 + i] * q[1] + Winv[6 + i] * q[2]);
  double mxn = mu * x[0]; /* sticking: |x_t| <= mu x_n, squared (no sqrt on the path) */
  if (mxn >= 0 && x[1] * x[1] + x[2] * x[2] <= mxn * mxn) return 0;
  contact ct = { .W = W, .q = q, .mu = mu, .assoc = assoc };
  if (solve_sliding(&ct, grid, xold, x[1], x[2], dir, x)) return 0;
  local_fixed_point(&ct, xold, x);
  return 1;
}

/* ---- matrix access ---------------------------------------------------------- */

/* Cache every cone's block and its inverse; SLV_ERR_UNSUPPORTED if a block's
 * symmetric part is not positive definite. */
static slv_status cache_blocks(const slv_op *op, nsgs_state *s, slv_result *res) {
  const slv_problem *p = op->p;
  for (int k = 0; k < p->ncones; k++) {
    int c = p->cone_rows[k];
    double *W = s->blk + 18 * (size_t)k, *Wi = W + 9;
    double mx = 0;
    slv_op_block3(op, c, W);
    for (int e = 0; e < 9; e++) mx = fmax(mx, fabs(W[e]));
    /* Cholesky of the symmetric part S = (W + W^T)/2 */
    double S[9];
    for (int j = 0; j < 3; j++)
      for (int i = 0; i < 3; i++) S[i + 3 * j] = 0.5 * (W[i + 3 * j] + W[j + 3 * i]);
    double tiny = 1e-12 * mx;
    int pd = S[0] > tiny;
    if (pd) {
      double l00 = sqrt(S[0]), l10 = S[1] / l00, l20 = S[2] / l00;
      double d1 = S[4] - l10 * l10;
      pd = d1 > tiny;
      if (pd) {
        double l11 = sqrt(d1), l21 = (S[5] - l20 * l10) / l11;
        pd = S[8] - l20 * l20 - l21 * l21 > tiny;
      }
    }
    if (!pd) {
      slv_msgf(res->message, sizeof res->message,
               "nsgs: the 3x3 block of cone %d (rows %d..%d) is not positive definite", k, c,
               c + 2);
      return SLV_ERR_UNSUPPORTED;
    }
    /* inverse by cofactors: W^-1 = adj(W) / det(W) */
    double a = W[0], b = W[3], cc = W[6], d = W[1], e = W[4], f = W[7], g = W[2], h = W[5],
           ii = W[8];
    double A0 = e * ii - f * h, B0 = -(d * ii - f * g), C0 = d * h - e * g;
    double det = a * A0 + b * B0 + cc * C0;
    double inv = 1.0 / det;
    Wi[0] = A0 * inv;
    Wi[1] = B0 * inv;
    Wi[2] = C0 * inv;
    Wi[3] = -(b * ii - cc * h) * inv;
    Wi[4] = (a * ii - cc * g) * inv;
    Wi[5] = -(a * h - b * g) * inv;
    Wi[6] = (b * f - cc * e) * inv;
    Wi[7] = -(a * f - cc * d) * inv;
    Wi[8] = (a * e - b * d) * inv;
  }
  return SLV_OK;
}

/* ---- the sweep ------------------------------------------------------------- */

typedef struct {
  const slv_op *op;
  nsgs_state *s;
  int rowform; /* CSR too large to pack: w_i from the rows */
  int assoc;
  double omega;
  int fallbacks;
} sweeper;

static void sweep(sweeper *sw, double *x, double *w) {
  const slv_op *op = sw->op;
  const slv_problem *p = op->p;
  nsgs_state *s = sw->s;
  int n = p->n, k = 0;
  double omega = sw->omega;
  for (int i = 0; i < n; i++) {
    if (k < p->ncones && p->cone_rows[k] == i) {
      const double *W = s->blk + 18 * (size_t)k;
      double wc[3], q[3], xo[3] = { x[i], x[i + 1], x[i + 2] }, xn[3];
      for (int r = 0; r < 3; r++)
        wc[r] = sw->rowform ? slv_op_row_dot(op, i + r, x) + p->b[i + r] : w[i + r];
      for (int r = 0; r < 3; r++)
        q[r] = wc[r] - (W[r] * xo[0] + W[3 + r] * xo[1] + W[6 + r] * xo[2]);
      double mu = p->cone_mu[k];
      sw->fallbacks += solve_contact(W, W + 9, mu, sw->assoc, q, xo, &s->dir[2 * k], s->grid, xn);
      if (omega != 1.0) {
        for (int r = 0; r < 3; r++) xn[r] = xo[r] + omega * (xn[r] - xo[r]);
        if (omega > 1.0) slv_cone_project(mu, xn, xn);
      }
      double d[3] = { xn[0] - xo[0], xn[1] - xo[1], xn[2] - xo[2] };
      x[i] = xn[0];
      x[i + 1] = xn[1];
      x[i + 2] = xn[2];
      if (!sw->rowform && (d[0] != 0 || d[1] != 0 || d[2] != 0)) slv_op_col3_axpy(op, i, d, w);
      i += 2;
      k++;
      continue;
    }
    double lo = slv_lo_of(p, i), hi = slv_hi_of(p, i);
    double xi = x[i];
    double wi = sw->rowform ? slv_op_row_dot(op, i, x) + p->b[i] : w[i];
    double xn = xi - omega * wi * s->invd[i];
    if (xn < lo) xn = lo;
    if (xn > hi) xn = hi;
    double d = xn - xi;
    if (d == 0.0) continue;
    x[i] = xn;
    if (!sw->rowform) slv_op_col_axpy(op, i, d, w);
  }
}

/* When the next sweep's measure is taken (docs/cone-solvers.md, "NSGS",
 * "The measure's schedule").  The measure (slv_natmap_of: the natural map
 * and the scale-invariant test, a projection and four square roots a
 * contact) cost a third of a sweep on the 10^4-contact states
 * (experiments/records/2026-11-28-states3.md).  Where it is at most
 * NSGS_CHECK_NEAR times the tol, or a history is recorded, every sweep is
 * measured; else the rate of the last two measures, rho a sweep, says how
 * many sweeps reach the tol, log(v / tol) / log(1 / rho), and the next
 * measure comes after half that, at most NSGS_CHECK_MAX sweeps on (a
 * measure that did not fall: NSGS_CHECK_MAX).  A converged iterate is then found at
 * most a few sweeps late, and a non-finite one at most NSGS_CHECK_MAX. */
typedef struct {
  int last;  /* the sweep of the last measure (0: the start's) */
  double v;  /* its value */
  int next;  /* the sweep of the next measure */
  int every; /* 1: every sweep (a history is recorded) */
  double tol;
} nsgs_schedule;

static void schedule_after(nsgs_schedule *sc, int it, double v) {
  int gap = 1;
  if (!sc->every && v > NSGS_CHECK_NEAR * sc->tol && it > sc->last) {
    double rate = log(sc->v / v) / (it - sc->last); /* -log rho: > 0 while falling */
    double ahead = rate > 0 ? 0.5 * log(v / sc->tol) / rate : INFINITY;
    gap = ahead >= NSGS_CHECK_MAX ? NSGS_CHECK_MAX : ahead >= 1 ? (int)ahead : 1;
  }
  sc->last = it;
  sc->v = v;
  sc->next = it + gap;
}

static slv_status nsgs_solve(void *st, slv_op *op, const slv_options *opt, double *x, double *w,
                             slv_result *res, slv_hist *h) {
  nsgs_state *s = st;
  const slv_problem *p = op->p;
  int n = p->n;
  slv_status cs = cache_blocks(op, s, res);
  if (cs) return cs;
  for (int k = 0; k < 2 * p->ncones; k++) s->dir[k] = NAN;
  for (int i = 0; i < n; i++) s->invd[i] = 1.0 / slv_op_diag(op, i);
  sweeper sw = {
    .op = op, .s = s, .assoc = p->cone_law == SLV_CONE_ASSOCIATED, .omega = opt->omega
  };
  /* the packed copy (3x3 blocks of a pure contact problem, else columns);
   * a CSR matrix too large for it is swept by rows */
  slv_op_pack(op);
  sw.rowform = !op->packed && !op->A;

  slv_op_w(op, x, w);
  /* the start's natural map only (the full measures at the end: slv_solve) */
  double scale2 = 0;
  for (int i = 0; i < n; i++) scale2 += p->b[i] * p->b[i];
  scale2 = fmax(1.0, sqrt(scale2));
  const slv_rowscale *rs = slv_op_rowscale(op);
  slv_natmap m = slv_natmap_of(p, x, w, rs);
  res->solver_residual = slv_test_measure_norms(opt, m.scaled, m.n2 / scale2);
  if (slv_met_norms(opt, m.scaled, m.n2 / scale2)) return SLV_CONVERGED;

  double sweep_work = slv_op_nnz(op);
  nsgs_schedule sc = { .every = h->cap > 0, .tol = opt->tol };
  schedule_after(&sc, 0, res->solver_residual);
  for (int it = 1; it <= opt->max_iter; it++) {
    slv_status stop = slv_should_stop(op, sweep_work);
    if (stop) return stop; /* the last iterate */
    sweep(&sw, x, w);
    res->iterations = it;
    int drift = it % opt->check_every == 0;
    if (it < sc.next && !drift && it < opt->max_iter) continue; /* the rows form needs no w */
    if (sw.rowform) slv_op_w(op, x, w);
    m = slv_natmap_of(p, x, w, rs);
    if (isnan(m.inf)) {
      slv_msgf(res->message, sizeof res->message,
               "nsgs: iterate became non-finite by sweep %d (the measure of sweep %d was finite)",
               it, sc.last);
      return SLV_NOT_FINITE;
    }
    int met = slv_met_norms(opt, m.scaled, m.n2 / scale2);
    if (met || drift) {
      /* confirm on (or drop the drift of) w recomputed exactly */
      if (met)
        slv_op_w(op, x, w);
      else
        slv_op_matvec(op, x, p->b, w);
      m = slv_natmap_of(p, x, w, rs);
      met = slv_met_norms(opt, m.scaled, m.n2 / scale2);
    }
    res->solver_residual = slv_test_measure_norms(opt, m.scaled, m.n2 / scale2);
    slv_history_push(h, res, res->solver_residual);
    if (met) return SLV_CONVERGED;
    schedule_after(&sc, it, res->solver_residual);
  }
  slv_msgf(res->message, sizeof res->message,
           "nsgs: %d sweeps, res_nat_inf=%.3g res_scaled=%.3g > tol=%.3g (%d local fallbacks)",
           opt->max_iter, m.inf, m.scaled, opt->tol, sw.fallbacks);
  return SLV_MAX_ITER;
}

static const slv_impl nsgs_impl = {
  .state_size = sizeof(nsgs_state),
  .init = nsgs_init,
  .free = nsgs_free,
  .solve = nsgs_solve,
};

/* the params line below quotes these */
_Static_assert(NSGS_GRID == 32 && NSGS_MAX_DEPTH == 40 && NSGS_FALLBACK_IT == 50, "nsgs params");

const slv_solver slv_solver_nsgs = {
  .name = "nsgs",
  .summary = "nonsmooth Gauss-Seidel over contacts, exact one-contact solve, both cone laws",
  .cite = "jean1999",
  .caps = SLV_CAP_CONE | SLV_CAP_BOX | SLV_CAP_FREE | SLV_CAP_SPARSE | SLV_CAP_NEEDS_POS_DIAG,
  /* clang-format off */
  .params =
      "exact one-contact solve (cases; Newton, then roots isolated on 32 angles, <= 40 "
      "halvings), else 50 fixed-point steps; options.omega (" SLV_STR(SLV_DEFAULT_OMEGA) "), "
      "check_every (" SLV_STR(SLV_DEFAULT_CHECK_EVERY) ")",
  /* clang-format on */
  .impl = &nsgs_impl,
};
