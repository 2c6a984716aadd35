/* gradients.c -- how good is a solver's gradient (issue 83 item 4;
 * docs/gradients.md, "How good is a gradient"): the one calculation of
 * `make bench-gradients` (experiments/bench_gradients.py, through the
 * Python extension) and of a `gradients` section of an experiment file
 * (gradients_task.c).
 *
 * For a problem p:
 * 1. the reference (exp_grad_reference_new): an exact solver (lemke, else
 *    dantzig, else enum; nsn_ac, ppa_nsn, nsgs with cones) at tol 1e-12;
 *    its rows' modes (slv_sensitivity_new at 1e-12) sorted into classes
 *    (exp_grad_mode_names: free and at a bound for plain rows, separated,
 *    sticking and sliding for cones and findex rows, degenerate where
 *    flagged);
 * 2. one random direction d on b and, per class present, a random
 *    cotangent gx on that class's rows (0 elsewhere; a seeded generator of
 *    its own, normal deviates by Box-Muller); the reference derivative
 *    fd = <gx, (x(b + e d) - x(b - e d)) / 2e>, e = k (1 + |b|_inf) /
 *    |d|_inf, from reference solves; "stable" when the modes at b +- e d
 *    are those at b; k the largest of 1e-3, 1e-4, 1e-5, 1e-6 that is
 *    stable for a problem without cones (x(b) is affine there while the
 *    modes hold: no truncation error, the least rounding noise), 1e-6
 *    with cones; when the reference has no answer at b +- e d, d = A z
 *    instead (z normal deviates: a move of b within A's range, which a
 *    singular A keeps solvable -- the pyramid's Delassus operator; the
 *    rows' note says "d = A z"); a singular free block at the reference
 *    answer is status not_unique (the derivative is not unique);
 * 3. per solver (exp_grad_solver_rows): its solve at tol 1e-10 (the
 *    fastest of `repeat`, the solve alone timed), then at its own answer,
 *    per class, the VJP (slv_sensitivity_new at 1e-10 and one
 *    slv_sensitivity_vjp: the modes read, the free block factored, one
 *    solve; the fastest of `repeat`) and the relative error
 *    |<gb, d> - fd| / max(|fd|, 1e-6 |gx| |dx|); a budget-stopped answer's
 *    gradient is measured too (its status says so); an answer more than
 *    1e-6 (1 + |x_ref|_inf) from the reference's is not stable (note
 *    "another answer": a problem with several answers).
 * The library never prints; it allocates (this is no solve loop).
 */
#include "exp_grad.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const exp_grad_mode_names[EXP_GRAD_MODES] = { "free",     "at a bound", "separated",
                                                          "sticking", "sliding",    "degenerate" };

/* ---- a seeded generator of its own (splitmix64; normal by Box-Muller) ---- */

static uint64_t rng_next(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static double rng_normal(uint64_t *s) {
  double u1 = ((double)(rng_next(s) >> 11) + 1.0) / 9007199254740993.0; /* (0, 1] */
  double u2 = (double)(rng_next(s) >> 11) / 9007199254740992.0;
  return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

/* ---- reference solves ---------------------------------------------------- */

static double inf_norm(const double *v, int n) {
  double m = 0.0;
  for (int i = 0; i < n; i++) m = fmax(m, fabs(v[i]));
  return m;
}

/* x of sv's solve of p at tol (max_iter, time_limit); its status. */
static slv_status solve_with(const slv_solver *sv, const slv_problem *p, double tol, int max_iter,
                             double time_limit, double *x, double *w, double *secs) {
  slv_options opt = slv_options_default();
  opt.tol = tol, opt.time_limit = time_limit, opt.warm_start = 0;
  if (max_iter > 0) opt.max_iter = max_iter;
  char msg[160];
  if (slv_solver_accepts(sv, p, msg, sizeof msg) != SLV_OK) return SLV_ERR_INVALID;
  slv_workspace *ws = NULL;
  if (slv_workspace_new(sv, p->n > 0 ? p->n : 1, &opt, &ws) != SLV_OK) return SLV_ERR_NOMEM;
  slv_result res;
  memset(x, 0, (size_t)p->n * sizeof *x);
  double t0 = exp_now_s();
  slv_status st = slv_solve(ws, p, &opt, x, w, &res);
  if (secs) *secs = exp_now_s() - t0;
  slv_workspace_free(ws);
  return st;
}

/* The reference answer of p (at 1e-12) into x: 0, or -1 when no reference
 * solver converged. */
static int reference_solve(const slv_problem *p, double *x, double *w) {
  static const char *const plain[] = { "lemke", "dantzig", "enum", NULL };
  static const char *const cones[] = { "nsn_ac", "ppa_nsn", "nsgs", NULL };
  for (const char *const *s = p->ncones ? cones : plain; *s; s++) {
    const slv_solver *sv = slv_solver_find(*s);
    if (sv && solve_with(sv, p, 1e-12, 100000, 60.0, x, w, NULL) == SLV_CONVERGED) return 0;
  }
  return -1;
}

/* Each row's SLV_ROW_* at x (tol) into modes: 0; -2 with msg when the
 * free block is singular, exactly or to rounding (slv_sensitivity_pivot_ratio
 * at most nf eps: the derivative is not unique), else -1. */
static int modes_at(const slv_problem *p, const double *x, double tol, unsigned char *modes,
                    char *msg, size_t cap) {
  slv_sensitivity *s = NULL;
  char m[256] = "";
  slv_status st = slv_sensitivity_new(p, x, tol, &s, m, sizeof m);
  if (st != SLV_OK) {
    snprintf(msg, cap, "no derivative at the reference answer (%s)", m);
    return st == SLV_SINGULAR_PIVOT ? -2 : -1;
  }
  int row;
  double pr = slv_sensitivity_pivot_ratio(s, &row);
  int nf = slv_sensitivity_count(s).free + slv_sensitivity_count(s).sliding;
  if (pr <= nf * DBL_EPSILON) {
    snprintf(msg, cap,
             "the free block (%d rows) is singular to rounding (pivot / max entry %.1e near row "
             "%d): the answer's derivative is not unique",
             nf, pr, row);
    slv_sensitivity_free(s);
    return -2;
  }
  memcpy(modes, slv_sensitivity_modes(s), (size_t)p->n);
  slv_sensitivity_free(s);
  return 0;
}

/* Row i's class (exp_grad_mode_names index). */
static int row_class(const slv_problem *p, const unsigned char *in_cone, const unsigned char *modes,
                     int i) {
  int m = modes[i] & 3;
  if (modes[i] & SLV_ROW_DEGENERATE) return 5;
  if (in_cone[i]) return m == SLV_ROW_FREE ? 3 : m == SLV_ROW_SLIDING ? 4 : 2;
  if (p->findex && p->findex[i] >= 0) return m == SLV_ROW_FREE ? 3 : 4;
  return m == SLV_ROW_FREE ? 0 : 1;
}

/* ---- the reference derivative -------------------------------------------- */

struct exp_grad_ref {
  int n;
  double *xref, *d, *gx, *bb, *xp, *xm, *w; /* gx: EXP_GRAD_MODES x n */
  unsigned char *modes, *mp, *cls;
  int present[EXP_GRAD_MODES];
  double fd[EXP_GRAD_MODES], size[EXP_GRAD_MODES];
  int stable;
  double step;
  int in_range; /* d = A z: b moved off A's range had no reference answer */
};

void exp_grad_reference_free(exp_grad_ref *r) {
  if (!r) return;
  free(r->xref), free(r->d), free(r->gx), free(r->bb), free(r->xp), free(r->xm), free(r->w);
  free(r->modes), free(r->mp), free(r->cls);
  free(r);
}

static exp_grad_ref *ref_alloc(int n) {
  exp_grad_ref *r = calloc(1, sizeof *r);
  if (!r) return NULL;
  size_t m = (size_t)(n > 0 ? n : 1);
  r->n = n;
  r->xref = malloc(m * sizeof(double)), r->d = malloc(m * sizeof(double));
  r->gx = calloc(EXP_GRAD_MODES * m, sizeof(double)), r->bb = malloc(m * sizeof(double));
  r->xp = malloc(m * sizeof(double)), r->xm = malloc(m * sizeof(double));
  r->w = malloc(m * sizeof(double));
  r->modes = malloc(m), r->mp = malloc(m), r->cls = calloc(m, 1);
  if (r->xref && r->d && r->gx && r->bb && r->xp && r->xm && r->w && r->modes && r->mp && r->cls)
    return r;
  exp_grad_reference_free(r);
  return NULL;
}

/* x(b + sg e d) of the reference into x, and whether its modes (without the
 * degenerate flag) are r->modes': 1 stable, 0 not, -1 no reference there. */
static int moved_solve(const slv_problem *p, exp_grad_ref *r, double e, double *x) {
  slv_problem q = *p;
  for (int i = 0; i < r->n; i++) r->bb[i] = p->b[i] + e * r->d[i];
  q.b = r->bb;
  char msg[64];
  if (reference_solve(&q, x, r->w) != 0 || modes_at(&q, x, 1e-12, r->mp, msg, sizeof msg) != 0)
    return -1;
  for (int i = 0; i < r->n; i++)
    if ((r->mp[i] & 3) != (r->modes[i] & 3)) return 0;
  return 1;
}

/* The central difference along d at step k into r->xp (dx); r->stable. */
static int central_difference(const slv_problem *p, exp_grad_ref *r, double k) {
  const int n = r->n;
  const double e = k * (1.0 + inf_norm(p->b, n)) / fmax(inf_norm(r->d, n), 1e-300);
  int sp = moved_solve(p, r, e, r->xp), sm = sp < 0 ? -1 : moved_solve(p, r, -e, r->xm);
  if (sp < 0 || sm < 0) return -1;
  for (int i = 0; i < n; i++) r->xp[i] = (r->xp[i] - r->xm[i]) / (2.0 * e);
  r->stable = sp && sm, r->step = k;
  return 0;
}

/* The largest FD step whose modes hold (else the smallest), dx in r->xp. */
static int fd_direction(const slv_problem *p, exp_grad_ref *r) {
  static const double affine[] = { 1e-3, 1e-4, 1e-5, 1e-6 }, cone[] = { 1e-6 };
  const double *k = p->ncones ? cone : affine;
  const int nk = p->ncones ? 1 : 4;
  for (int j = 0; j < nk; j++) {
    int rc = central_difference(p, r, k[j]);
    if (rc < 0 && j == nk - 1) return -1;
    if (rc == 0 && (r->stable || j == nk - 1)) return 0;
  }
  return -1;
}

/* Per class present: gx on its rows, fd = <gx, dx>, |gx| |dx|. */
static void class_seeds(exp_grad_ref *r, uint64_t *rng) {
  const int n = r->n;
  double dxn = 0.0;
  for (int i = 0; i < n; i++) dxn += r->xp[i] * r->xp[i];
  for (int c = 0; c < EXP_GRAD_MODES; c++) {
    double *g = r->gx + (size_t)c * n, fd = 0.0, gn = 0.0;
    for (int i = 0; i < n; i++) r->present[c] |= r->cls[i] == c;
    if (!r->present[c]) continue;
    for (int i = 0; i < n; i++) {
      double v = rng_normal(rng);
      g[i] = r->cls[i] == c ? v : 0.0;
      fd += g[i] * r->xp[i], gn += g[i] * g[i];
    }
    r->fd[c] = fd, r->size[c] = sqrt(gn) * sqrt(dxn);
  }
}

/* The direction d: normal deviates, or (in_range) A z of normal deviates z
 * -- a move of b within A's range, the one a singular A (a Delassus
 * operator J M^-1 J' of more rows than the bodies' freedoms) keeps
 * solvable: b = J v + ... moves with the velocities, in range(J). */
static void draw_direction(const slv_problem *p, exp_grad_ref *r, uint64_t *rng, int in_range) {
  for (int i = 0; i < r->n; i++) r->d[i] = rng_normal(rng);
  r->in_range = in_range;
  if (!in_range) return;
  slv_problem_w(p, r->d, r->w);
  for (int i = 0; i < r->n; i++) r->d[i] = r->w[i] - p->b[i];
}

int exp_grad_reference_new(const slv_problem *p, unsigned long seed, exp_grad_ref **out, char *msg,
                           size_t cap) {
  *out = NULL;
  exp_grad_ref *r = ref_alloc(p->n);
  if (!r) {
    snprintf(msg, cap, "out of memory");
    return -1;
  }
  if (reference_solve(p, r->xref, r->w) != 0) {
    snprintf(msg, cap, "no reference answer at 1e-12");
    exp_grad_reference_free(r);
    return 1;
  }
  int m = modes_at(p, r->xref, 1e-12, r->modes, msg, cap);
  if (m != 0) {
    exp_grad_reference_free(r);
    return m == -2 ? 2 : 1;
  }
  unsigned char *in_cone = r->mp; /* scratch until the moved solves */
  memset(in_cone, 0, (size_t)p->n);
  for (int c = 0; c < p->ncones; c++) memset(in_cone + p->cone_rows[c], 1, 3);
  for (int i = 0; i < p->n; i++) r->cls[i] = (unsigned char)row_class(p, in_cone, r->modes, i);
  uint64_t rng = seed;
  draw_direction(p, r, &rng, 0);
  if (fd_direction(p, r) != 0) {
    draw_direction(p, r, &rng, 1);
    if (fd_direction(p, r) != 0) {
      snprintf(msg, cap, "no reference answer at 1e-12 at b +- e d (d random or A z)");
      exp_grad_reference_free(r);
      return 1;
    }
  }
  class_seeds(r, &rng);
  *out = r;
  return 0;
}

const char *exp_grad_reference_status(int rc) {
  return rc == 2 ? "not_unique" : rc < 0 ? "error" : "skipped";
}

/* ---- a solver's gradient --------------------------------------------------- */

/* The VJP of class c at x (tol 1e-10), the fastest of repeat, into *a =
 * <gb, d> and *t; 0, or -1 with note (the library's refusal). */
static int vjp_of(const slv_problem *p, const exp_grad_ref *r, const double *x, int c, int repeat,
                  double *gb, double *a, double *t, char *note, size_t cap) {
  *t = INFINITY;
  for (int k = 0; k < repeat; k++) {
    slv_sensitivity *s = NULL;
    char m[256] = "";
    double t0 = exp_now_s();
    slv_status st = slv_sensitivity_new(p, x, 1e-10, &s, m, sizeof m);
    if (st == SLV_OK)
      st = slv_sensitivity_vjp(s, r->n, r->gx + (size_t)c * r->n, NULL, gb, NULL, NULL, NULL, m,
                               sizeof m);
    *t = fmin(*t, exp_now_s() - t0);
    slv_sensitivity_free(s);
    if (st != SLV_OK) {
      snprintf(note, cap, "%s", slv_status_str(st));
      return -1;
    }
  }
  double s = 0.0;
  for (int i = 0; i < r->n; i++) s += gb[i] * r->d[i];
  *a = s;
  return 0;
}

/* The rows of sv's answer x (status st, solve time ts). */
static int class_rows(const slv_problem *p, const exp_grad_ref *r, const double *x, slv_status st,
                      double ts, int repeat, double *gb, exp_grad_row *rows) {
  const int n = r->n;
  double dev = 0.0;
  for (int i = 0; i < n; i++) dev = fmax(dev, fabs(x[i] - r->xref[i]));
  const int another = dev > 1e-6 * (1.0 + inf_norm(r->xref, n));
  int nr = 0;
  for (int c = 0; c < EXP_GRAD_MODES; c++) {
    if (!r->present[c]) continue;
    exp_grad_row *o = &rows[nr++];
    memset(o, 0, sizeof *o);
    o->mode = exp_grad_mode_names[c];
    o->status = st == SLV_CONVERGED ? "converged" : slv_status_str(st);
    o->solve_s = ts, o->fd_step = r->step;
    double a;
    if (vjp_of(p, r, x, c, repeat, gb, &a, &o->vjp_s, o->note, sizeof o->note) != 0) {
      o->stable = r->stable, o->rel_err = NAN, o->vjp_s = NAN;
      continue;
    }
    const double scale = fmax(fmax(fabs(r->fd[c]), 1e-6 * r->size[c]), 1e-300);
    o->stable = r->stable && !another;
    o->rel_err = fabs(a - r->fd[c]) / scale;
    if (another) snprintf(o->note, sizeof o->note, "another answer");
    if (r->in_range && !o->note[0]) snprintf(o->note, sizeof o->note, "d = A z");
  }
  return nr;
}

int exp_grad_solver_rows(const slv_problem *p, const exp_grad_ref *r, const slv_solver *sv,
                         double time_limit, int repeat, exp_grad_row *rows, char *msg, size_t cap) {
  if (slv_solver_accepts(sv, p, msg, cap) != SLV_OK) return 0;
  const size_t m = (size_t)(p->n > 0 ? p->n : 1);
  double *x = malloc(3 * m * sizeof *x), *w = x ? x + m : NULL, *gb = x ? x + 2 * m : NULL;
  if (!x) {
    snprintf(msg, cap, "out of memory");
    return -1;
  }
  double ts = INFINITY, t;
  slv_status st = SLV_ERR_INVALID;
  for (int k = 0; k < (repeat > 0 ? repeat : 1); k++) {
    st = solve_with(sv, p, 1e-10, 0, time_limit, x, w, &t);
    ts = fmin(ts, t);
  }
  int nr = 0;
  if (st >= 0 && isfinite(inf_norm(x, p->n)))
    nr = class_rows(p, r, x, st, ts, repeat > 0 ? repeat : 1, gb, rows);
  else
    snprintf(msg, cap, "no finite answer (%s)", slv_status_str(st));
  free(x);
  return nr;
}
