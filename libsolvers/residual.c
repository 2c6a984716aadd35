/* residual.c -- the accuracy measures every solver is judged by
 * (docs/problem.md, "Residuals").
 *
 * Computed from (A, b, lo, hi, findex, mu, cones, x) alone, never taken
 * from a solver.  With w = A x + b:
 *
 *   natural map, per box row:   r_i = mid(x_i - hi_i, w_i, x_i - lo_i)
 *                                   = max(x_i - hi_i, min(w_i, x_i - lo_i))
 *     which equals x_i - mid(lo_i, hi_i, x_i - w_i) in exact arithmetic but
 *     does not cancel to 0 for a wrong x of size 1e16.  findex rows use the
 *     bounds -mu_i |x_j| .. mu_i |x_j| at the final x.
 *   per cone (rows c, c+1, c+2: normal, t1, t2):
 *     r_c = x_c - P_K(x_c - w^_c), measured by its largest component, with
 *     w^_c = w_c + (mu |w_t|, 0, 0) for Coulomb's law (De Saxce) and
 *     w^_c = w_c for the associated cone (slv.h, slv_cone_law).
 *   merit_fclib (cones only) = sqrt(sum_c |x_c - P_K(x_c - w^_c)|^2) with the
 *     De Saxce w^ always, / (1 + sqrt(||b||_2)): FCLIB's MERIT_1.
 *   res_nat_inf = ||r||_inf,   res_rel = res_nat_inf / max(1, ||b||_inf)
 *   res_rel_2 = ||r||_2 / max(1, ||b||_2) (r over every row, cone rows by
 *            their three components for the problem's law)
 *   compl  = sum_i |w_i^+ (x_i - lo_i)| (lo finite) + |w_i^- (hi_i - x_i)| (hi finite);
 *            cones add |x_c . w_c|
 *   infeas = max_i max(0, lo_i - x_i, x_i - hi_i); cones: max(0, |x_t| - mu x_n)
 *   contact (cones only, else NaN): ContactBench's criteria, metrics.c
 *   res_contact (cones only) = max_c ||F_c||_2 / ||(b_c, (A x)_c)||_2, F the
 *            natural map of the problem's law ([acary2018]'s per-contact
 *            measure); res_global = max(res_rel_1q, res_contact) on a
 *            condensed global problem (docs/convergence.md, "Global problems")
 * A NaN or Inf anywhere in x or w makes every measure NaN, so no comparison
 * with a tolerance can pass.  Without w, w is recomputed a slice of rows at
 * a time on the stack (never splitting a cone), so no scratch is needed; a
 * factored problem's K^T x once for all its blocks where they fit on the
 * stack (RES_BLOCKS) or in the solve's buffer (slv_residual_op), else a
 * slice of blocks per slice of rows (a pass over every row each: callers
 * of slv_residual on large factored problems pass w, slv_problem_w_t).
 * The sums go by chunks of rows (below: "The sums ..."), so the measures
 * are the same bits on any number of threads (slv_residual_threads).
 */
#include "slv_internal.h"
#include "par.h"

static int first_cone_from(const slv_problem *p, int i);

static int in_cone_rows(const slv_problem *p, int i, int *k) {
  /* cones are sorted (validated): advance *k monotonically */
  while (*k < p->ncones && p->cone_rows[*k] + 2 < i) (*k)++;
  return *k < p->ncones && p->cone_rows[*k] <= i;
}

/* The running sums of the measures over the rows seen so far. */
typedef struct {
  double res, compl, infeas, merit2, ss;
  double scaled;               /* the largest scale-invariant row or cone residual */
  double percontact;           /* the largest res_contact ratio of a cone */
  int percontact_at1;          /* that cone's index + 1 (0: none yet) */
  double xx, ww;               /* sum x_i^2, sum w_i^2 (Siconos' scale of the cone error) */
  int k;                       /* the next cone, or the cone of the current row */
  slv_contact_metrics contact; /* maxima over the cones */
} racc;

/* sum_j |A_ij| (a factored row: the bound sum over its live slots of
 * |J| . |K|, plus |d_i|). */
static double row_norm1(const slv_problem *p, int i) {
  double m = 0;
  if (p->storage == SLV_DENSE) {
    for (int j = 0; j < p->n; j++) m += fabs(p->A[i + (size_t)j * p->lda]);
  } else if (p->storage == SLV_CSR) {
    for (int k = p->Ap[i]; k < p->Ap[i + 1]; k++) m += fabs(p->Ax[k]);
  } else {
    slv_fac f = slv_fac_of(p);
    const double *J = f.J + 12 * (size_t)i, *K = f.K + 12 * (size_t)i;
    for (int slot = 0; slot < 2; slot++) /* a static slot (-1) holds junk: never read */
      if (f.blk[2 * i + slot] >= 0)
        for (int k = 6 * slot; k < 6 * slot + 6; k++) m += fabs(J[k]) * fabs(K[k]);
    if (f.d) m += fabs(f.d[i]);
  }
  return m;
}

/* A_ii, read as slv_diag does (the same bits), with f the factors of a
 * factored p (slv_fac_of: found once per pass, not per row). */
static inline double diag_of(const slv_problem *p, const slv_fac *f, int i) {
  return p->storage == SLV_FACTORED ? slv_fac_diag(f, i) : slv_diag(p, i);
}

/* |A_ii| (d), or the row's 1-norm where A_ii = 0 (slv_reaction). */
static inline double row_size(const slv_problem *p, int i, double d) {
  return d != 0.0 ? fabs(d) : row_norm1(p, i);
}

/* The reaction's factor min(xs, xd), taken once per measure: libm's fmin
 * is a call, and every row's reaction uses it; then the physical floor xf
 * on xs and on that factor (slv_xscale_floor: none at xf = 0). */
static slv_xscale xscale_make(double xs, double xd, const double *a, double xf) {
  slv_xscale sc = { xs, xd, a, fmin(xs, xd) };
  slv_xscale_floor(&sc.xs, &sc.cap, xf);
  return sc;
}

static inline double reaction_of(const slv_problem *p, int i, const slv_xscale *sc) {
  return (sc->a ? sc->a[i] : row_size(p, i, slv_diag(p, i))) * sc->cap;
}

double slv_reaction(const slv_problem *p, int i, const slv_xscale *sc) {
  return reaction_of(p, i, sc);
}

/* One row's own answer from 0, alone (slv_xscale.xd), d = A_ii: slv_alone;
 * a row with d = 0, |b_i| / sum_j |A_ij|. */
static inline double alone_row(const slv_problem *p, int i, double d) {
  if (d == 0.0) {
    double r = row_norm1(p, i);
    return r > 0 ? fabs(p->b[i]) / r : 0.0;
  }
  return slv_alone(p->b[i], d, slv_lo_of(p, i), slv_hi_of(p, i), p->findex && p->findex[i] >= 0);
}

/* Cone k's (rows i..i+2, diagonal d) own answer from 0, alone: P_K(-b_c /
 * a_c) with a_c its rows' largest |A_rr|; its largest component. */
static double alone_cone(const slv_problem *p, int i, int k, const double *d) {
  double a = fmax(fabs(d[0]), fmax(fabs(d[1]), fabs(d[2])));
  if (!(a > 0)) return 0.0;
  double v[3] = { -p->b[i] / a, -p->b[i + 1] / a, -p->b[i + 2] / a }, pr[3];
  slv_cone_project(p->cone_mu[k], v, pr);
  return fmax(fabs(pr[0]), fmax(fabs(pr[1]), fabs(pr[2])));
}

/* xd (slv_xscale), and with a non-NULL a each row's size a[i]
 * (slv_rowscale): one pass, A_ii read once a row. */
static double rowscale_pass(const slv_problem *p, double *a) {
  slv_fac f = p->storage == SLV_FACTORED ? slv_fac_of(p) : (slv_fac){ 0 };
  double xd = 0;
  for (int i = 0, k = 0; i < p->n; i++) {
    double d[3], t;
    if (k < p->ncones && p->cone_rows[k] == i) {
      for (int r = 0; r < 3; r++) d[r] = diag_of(p, &f, i + r);
      for (int r = 0; r < 3 && a; r++) a[i + r] = row_size(p, i + r, d[r]);
      t = alone_cone(p, i, k++, d);
      i += 2;
    } else {
      d[0] = diag_of(p, &f, i);
      if (a) a[i] = row_size(p, i, d[0]);
      t = alone_row(p, i, d[0]);
    }
    if (t > xd) xd = t;
  }
  return xd;
}

double slv_rowscale_xd(const slv_problem *p) { return rowscale_pass(p, NULL); }

void slv_rowscale_fill(const slv_problem *p, double *a, slv_rowscale *rs) {
  rs->xd = rowscale_pass(p, a);
  rs->a = a;
}

/* xs = ||x||_inf */
static double x_scale(int n, const double *x) {
  double xs = 0;
  for (int i = 0; i < n; i++) {
    double v = fabs(x[i]);
    xs = xs > v ? xs : v; /* v where !(v <= xs), NaN too: one maxsd, no branch */
  }
  return xs;
}

slv_xscale slv_xscale_of(const slv_problem *p, const double *x) {
  return xscale_make(x_scale(p->n, x), slv_rowscale_xd(p), NULL, 0.0);
}

slv_xscale slv_xscale_floored(const slv_problem *p, const double *x, double xf) {
  return xscale_make(x_scale(p->n, x), slv_rowscale_xd(p), NULL, xf);
}

slv_xscale slv_xscale_rows(const slv_rowscale *rs, int n, const double *x, double xf) {
  return xscale_make(x_scale(n, x), rs->xd, rs->a, xf);
}

/* One cone's scale-invariant residual (slv_internal.h, slv_scaled_row):
 * the natural map of the problem's law on x_c / xs and w_c / s_c, with
 * s_c = ||b_c||_2 + ||w_c - b_c||_2 + max_r slv_reaction (r: its rows),
 * by its largest component.  The De Saxce shift is positively homogeneous,
 * so shifting w_c / s_c is shifting w_c and dividing. */
static double cone_scaled(const slv_problem *p, int k, const double *xc, const double *wc,
                          const double *bc, const slv_xscale *sc) {
  double mu = p->cone_mu[k], d[3], h[3], v[3], pr[3];
  for (int r = 0; r < 3; r++) d[r] = wc[r] - bc[r];
  int i = p->cone_rows[k];
  double react =
      fmax(reaction_of(p, i, sc), fmax(reaction_of(p, i + 1, sc), reaction_of(p, i + 2, sc)));
  double xs = sc->xs;
  double s = sqrt(bc[0] * bc[0] + bc[1] * bc[1] + bc[2] * bc[2]) +
             sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) + react;
  for (int r = 0; r < 3; r++) h[r] = slv_quot(wc[r], s);
  if (p->cone_law != SLV_CONE_ASSOCIATED) h[0] += slv_desaxce_shift(mu, h[1], h[2]);
  for (int r = 0; r < 3; r++) v[r] = slv_quot(xc[r], xs) - h[r];
  slv_cone_project(mu, v, pr);
  double m = 0;
  for (int r = 0; r < 3; r++) {
    double e = fabs(slv_quot(xc[r], xs) - pr[r]);
    if (e > m) m = e;
  }
  return m;
}

double slv_cone_scaled_residual(const slv_problem *p, int k, const double *x, const double *w,
                                const slv_xscale *sc) {
  int i = p->cone_rows[k];
  return cone_scaled(p, k, x + i, w + i, p->b + i, sc);
}

/* [acary2018]'s per-contact ratio ||F_c||_2 / ||(b_c, w_c - b_c)||_2 of a
 * cone with ff = ||F_c||_2^2: 0 where F_c = 0, Inf over a zero scale. */
static double contact_ratio(double ff, const double *wc, const double *bc) {
  double ss = 0;
  for (int r = 0; r < 3; r++) {
    double d = wc[r] - bc[r];
    ss += bc[r] * bc[r] + d * d;
  }
  return ff == 0.0 ? 0.0 : (ss > 0.0 ? sqrt(ff / ss) : INFINITY);
}

/* One cone (rows i..i+2, cone k) with its w (ww) into the sums. */
static void cone_rows(const slv_problem *p, const double *x, int i, int k, const double *ww,
                      const slv_xscale *xsc, racc *a) {
  double mu = p->cone_mu[k], v[3], pr[3];
  /* De Saxce: w^ = w + (mu |w_t|, 0, 0) */
  double shift = slv_desaxce_shift(mu, ww[1], ww[2]);
  double m2 = 0;
  for (int law = 0; law < 2; law++) {
    /* law 0: the De Saxce map (merit_fclib, and res for Coulomb);
     * law 1: the associated map, only when that is the problem's law */
    if (law == 1 && p->cone_law != SLV_CONE_ASSOCIATED) break;
    double s0 = law == 0 ? shift : 0.0;
    v[0] = x[i] - (ww[0] + s0);
    v[1] = x[i + 1] - ww[1];
    v[2] = x[i + 2] - ww[2];
    slv_cone_project(mu, v, pr);
    double d0 = x[i] - pr[0], d1 = x[i + 1] - pr[1], d2 = x[i + 2] - pr[2];
    if (law == 0) m2 = d0 * d0 + d1 * d1 + d2 * d2;
    /* plain comparisons, as in rows_into (x and w are finite here; libm's
     * fmax is a call) */
    double ri = fabs(d0);
    if (fabs(d1) > ri) ri = fabs(d1);
    if (fabs(d2) > ri) ri = fabs(d2);
    if (p->cone_law == (law == 0 ? SLV_CONE_COULOMB : SLV_CONE_ASSOCIATED)) {
      if (ri > a->res) a->res = ri;
      double ff = d0 * d0 + d1 * d1 + d2 * d2, pc = contact_ratio(ff, ww, p->b + i);
      if (!(pc <= a->percontact)) {
        a->percontact = pc;
        a->percontact_at1 = k + 1;
      }
      a->ss += ff;
      a->compl += fabs(x[i] * (ww[0] + s0) + x[i + 1] * ww[1] + x[i + 2] * ww[2]);
    }
  }
  a->merit2 += m2;
  double sc = cone_scaled(p, k, x + i, ww, p->b + i, xsc);
  if (!(sc <= a->scaled)) a->scaled = sc;
  for (int r = 0; r < 3; r++) {
    a->xx += x[i + r] * x[i + r];
    a->ww += ww[r] * ww[r];
  }
  slv_contact_metrics_add(&a->contact, mu, x + i, ww);
  double out = sqrt(x[i + 1] * x[i + 1] + x[i + 2] * x[i + 2]) - mu * x[i];
  if (out > a->infeas) a->infeas = out;
}

/* Box rows [i0, i1) into the sums, with w_i at w[i - i0] (rows_into's
 * full).  The sums and the scales are kept in locals across the rows:
 * stored through a at each row, they made the compiler read p's arrays
 * and sc again at every row (a store through a may change them, for all
 * it knows). */
static void box_rows(const slv_problem *p, const double *x, const double *w, int i0, int i1,
                     const slv_xscale *sc_in, int full, racc *a) {
  const slv_xscale sc = *sc_in; /* in registers, not read again at every row */
  double res = a->res, ss = a->ss, scaled = a->scaled, xx = a->xx, ww = a->ww;
  double cpl = a->compl, infeas = a->infeas;
  for (int i = i0; i < i1; i++) {
    double lo, hi, wi = w[i - i0];
    slv_bounds_at(p, x, i, &lo, &hi);
    /* x and w are finite here, so plain comparisons are exact (and much
     * cheaper than fmax/fmin, which this loop runs once per sweep) */
    double ri = slv_mid_res(x[i], wi, lo, hi);
    if (ri > res) res = ri;
    ss += ri * ri;
    double si = slv_scaled_row(x[i], wi, p->b[i], reaction_of(p, i, &sc), lo, hi, sc.xs);
    if (!(si <= scaled)) scaled = si;
    if (!full) continue;
    xx += x[i] * x[i];
    ww += wi * wi;
    /* |w_i (x_i - lo_i)| where w_i > 0 and lo_i finite, |w_i (hi_i - x_i)|
     * where w_i < 0 and hi_i finite (0 for w_i = 0: the gap is finite): as
     * selects, since the sign of w_i is a coin toss on friction rows (a
     * branch here mispredicted every other row) */
    double gl = lo > -INFINITY ? x[i] - lo : 0.0, gh = hi < INFINITY ? hi - x[i] : 0.0;
    cpl += fabs(wi * (wi > 0 ? gl : gh));
    if (lo - x[i] > infeas) infeas = lo - x[i];
    if (x[i] - hi > infeas) infeas = x[i] - hi;
  }
  a->res = res, a->ss = ss, a->scaled = scaled, a->xx = xx, a->ww = ww;
  a->compl = cpl, a->infeas = infeas;
}

/* Rows [i0, i1) into the sums, with w_i at w[i - i0]; no cone straddles
 * i0 or i1; sc: the scales of the scale-invariant measure.  full = 0: the
 * box rows' share of the convergence test alone (res, ss, scaled), what a
 * solver's check needs (slv_residual_test_op). */
static void rows_into(const slv_problem *p, const double *x, const double *w, int i0, int i1,
                      const slv_xscale *sc, int full, racc *a) {
  for (int i = i0; i < i1;) {
    if (p->ncones > 0 && in_cone_rows(p, i, &a->k)) {
      if (i == p->cone_rows[a->k]) cone_rows(p, x, i, a->k, w + (i - i0), sc, a);
      i++; /* the other two rows were handled with the normal row */
      continue;
    }
    /* the box rows up to the next cone (in_cone_rows left a->k on it) */
    int e = a->k < p->ncones && p->cone_rows[a->k] < i1 ? p->cone_rows[a->k] : i1;
    box_rows(p, x, w + (i - i0), i, e, sc, full, a);
    i = e;
  }
}

/* Rows and blocks of the stack slices of a residual without w. */
enum { RES_ROWS = 512, RES_BLOCKS = 256 };

/* The end of the slice of rows that starts at i0: RES_ROWS rows, cut
 * before a cone that would straddle the end (*k: the cone search's
 * position, advanced with i0). */
static int slice_end(const slv_problem *p, int i0, int *k) {
  int i1 = p->n - i0 > RES_ROWS ? i0 + RES_ROWS : p->n;
  while (*k < p->ncones && p->cone_rows[*k] + 3 <= i0) (*k)++;
  for (int c = *k; c < p->ncones && p->cone_rows[c] < i1; c++)
    if (p->cone_rows[c] + 3 > i1) return p->cone_rows[c];
  return i1;
}

/* Where a residual without w forms w = A x + b of a factored problem: f,
 * and t of tcap blocks.  With tcap >= f.nb, K^T x is formed once (done);
 * else slv_fac_w_rows forms it slice by slice for every slice of rows, a
 * pass over all the rows for each tcap blocks: the fallback when no
 * buffer for all the blocks is at hand (RES_BLOCKS on the stack). */
typedef struct res_fac {
  slv_fac f;
  double *t;
  int tcap, done;
} res_fac;

/* Rows [i0, i1) of w = A x + b into wb[0 ..) (rf: a factored problem's). */
static void slice_w(const slv_problem *p, const double *x, int i0, int i1, double *wb,
                    res_fac *rf) {
  if (p->storage != SLV_FACTORED) {
    for (int i = i0; i < i1; i++) {
      double s = 0;
      if (p->storage == SLV_DENSE) {
        const double *a = p->A + i;
        for (int j = 0; j < p->n; j++) s += a[(size_t)j * p->lda] * x[j];
      } else {
        for (int k = p->Ap[i]; k < p->Ap[i + 1]; k++) s += p->Ax[k] * x[p->Aj[k]];
      }
      wb[i - i0] = s + p->b[i];
    }
    return;
  }
  const slv_fac *f = &rf->f;
  if (f->nb > rf->tcap) {
    slv_fac_w_rows(f, x, p->b, i0, i1, wb, rf->t, rf->tcap);
    return;
  }
  if (!rf->done) {
    slv_fac_ktx(f, x, rf->t, 0, f->nb);
    rf->done = 1;
  }
  for (int i = i0; i < i1; i++) wb[i - i0] = slv_fac_row(f, i, rf->t, x[i]) + p->b[i];
}

/* The sums (ss, compl, merit2, ||b||_2^2) are taken in chunks of rows that
 * depend on n and the cones alone: at most RES_CHUNKS of them, at least
 * RES_CHUNK_MIN rows each (the last one shorter), a chunk's start moved past
 * a cone it would split.  Each chunk sums its rows in row order, then the
 * chunks' sums are added in chunk order, so the measures are the same bits
 * whether the chunks run on one thread or several (par.h); the maxima are
 * exact in any order. */
enum { RES_CHUNKS = 64, RES_CHUNK_MIN = 2048 };

/* One chunk's share: its rows' sums and maxima, max |b_i|, sum b_i^2, and
 * whether its x and w were finite; each on cache lines of its own (the
 * threads fill neighbouring chunks at once, a row at a time). */
typedef struct {
  _Alignas(64) racc a;
  double bmax, bn2;
  int finite;
} rchunk;

static int chunk_rows(int n) {
  int r = (int)(((long long)n + RES_CHUNKS - 1) / RES_CHUNKS);
  return r < RES_CHUNK_MIN ? RES_CHUNK_MIN : r;
}

/* The first cone whose last row is at or after row i (ncones if none). */
static int first_cone_from(const slv_problem *p, int i) {
  int lo = 0, hi = p->ncones;
  while (lo < hi) {
    int m = lo + (hi - lo) / 2;
    if (p->cone_rows[m] + 2 < i)
      lo = m + 1;
    else
      hi = m;
  }
  return lo;
}

/* Where chunk c starts: c * rows, or just after the cone that row is inside
 * of (not its first row); n from the last chunk on. */
static int chunk_start(const slv_problem *p, int c, int rows) {
  long long s = (long long)c * rows;
  if (s >= p->n) return p->n;
  int i = (int)s, k = first_cone_from(p, i);
  if (k < p->ncones && p->cone_rows[k] < i) i = p->cone_rows[k] + 3;
  return i < p->n ? i : p->n;
}

/* Rows [i0, i1) into *c (full: rows_into's).  With w NULL, w is formed
 * slice by slice on the stack (rf: see slice_w; on one thread, unless
 * rf's t is formed: then it is only read). */
static void chunk_into(const slv_problem *p, const double *x, const double *w, int i0, int i1,
                       const slv_xscale *xsc, res_fac *rf, int full, rchunk *c) {
  c->a = (racc){ .k = first_cone_from(p, i0), .contact = slv_contact_metrics_zero() };
  double bmax = 0, bn2 = 0;
  for (int i = i0; i < i1; i++) {
    if (fabs(p->b[i]) > bmax) bmax = fabs(p->b[i]);
    bn2 += p->b[i] * p->b[i];
  }
  c->bmax = bmax;
  c->bn2 = bn2;
  c->finite = slv_all_finite(i1 - i0, x + i0);
  if (w) {
    c->finite = c->finite && slv_all_finite(i1 - i0, w + i0);
    if (c->finite) rows_into(p, x, w + i0, i0, i1, xsc, full, &c->a);
    return;
  }
  double wb[RES_ROWS];
  int kc = c->a.k;
  for (int s0 = i0, s1; c->finite && s0 < i1; s0 = s1) {
    s1 = slice_end(p, s0, &kc);
    if (s1 > i1) s1 = i1; /* chunks end between cones: no cone is cut here */
    slice_w(p, x, s0, s1, wb, rf);
    c->finite = slv_all_finite(s1 - s0, wb);
    if (c->finite) rows_into(p, x, wb, s0, s1, xsc, full, &c->a);
  }
}

/* The measures of no rows: 0, NaN for those that need cones or a
 * condensed problem. */
static slv_residuals residuals_zero(void) {
  return (slv_residuals){ .merit_fclib = NAN,
                          .contact = slv_contact_metrics_nan(),
                          .siconos_err = NAN,
                          .err_siconos = NAN,
                          .res_rel_1q = NAN,
                          .res_contact = NAN,
                          .res_global = NAN,
                          .res_contact_at = -1 };
}

/* The literature's 2-norm measures (slv.h): ss = ||F||_2^2, bn2 = ||b||_2^2. */
static void literature_measures(const slv_problem *p, const racc *a, double bn2, slv_residuals *r) {
  double f = sqrt(a->ss), nb = sqrt(bn2);
  if (p->ncones == 0) {
    r->siconos_err = nb > 0 ? f / nb : f;
    return;
  }
  double sc = fmax(nb, fmax(sqrt(a->xx), sqrt(a->ww)));
  r->err_siconos = sc > 0 ? f / sc : f;
  r->res_rel_1q = f / (1.0 + nb);
  r->res_contact = a->percontact;
  r->res_contact_at = a->percontact_at1 - 1;
  if (p->condensed) r->res_global = slv_max_nan(r->res_rel_1q, r->res_contact);
}

slv_residuals slv_residuals_test(double res, double scaled, double b_inf) {
  slv_residuals r = residuals_zero();
  r.b_inf = b_inf;
  if (!isfinite(res)) res = NAN;
  r.res_nat_inf = res;
  r.res_rel = res / fmax(1.0, b_inf);
  r.res_rel_2 = r.compl = r.infeas = NAN;
  r.res_scaled = isnan(res) || !(scaled <= INFINITY) ? NAN : scaled;
  return r;
}

/* The chunks' shares in chunk order into the measures; full = 0: the box
 * rows summed the test's share alone (rows_into), so compl, infeas and
 * err_siconos are NaN. */
static slv_residuals merge_chunks(const slv_problem *p, const rchunk *ch, int nc, int full) {
  slv_residuals r = residuals_zero();
  racc a = { .contact = slv_contact_metrics_zero() };
  double bn2 = 0;
  int finite = 1;
  for (int c = 0; c < nc; c++) {
    if (ch[c].bmax > r.b_inf) r.b_inf = ch[c].bmax;
    bn2 += ch[c].bn2;
    finite = finite && ch[c].finite;
    if (!finite) continue;
    if (ch[c].a.res > a.res) a.res = ch[c].a.res;
    if (ch[c].a.infeas > a.infeas) a.infeas = ch[c].a.infeas;
    a.compl += ch[c].a.compl ;
    a.merit2 += ch[c].a.merit2;
    a.ss += ch[c].a.ss;
    a.xx += ch[c].a.xx;
    a.ww += ch[c].a.ww;
    if (!(ch[c].a.scaled <= a.scaled)) a.scaled = ch[c].a.scaled;
    if (!(ch[c].a.percontact <= a.percontact)) {
      a.percontact = ch[c].a.percontact;
      a.percontact_at1 = ch[c].a.percontact_at1;
    }
    slv_contact_metrics_merge(&a.contact, &ch[c].a.contact);
  }
  if (!finite) {
    r.res_nat_inf = r.res_rel = r.res_rel_2 = r.compl = r.infeas = r.res_scaled = NAN;
    return r;
  }
  r = slv_residuals_test(a.res, a.scaled, r.b_inf);
  double res = r.res_nat_inf;
  r.res_rel_2 = isnan(res) ? NAN : sqrt(a.ss) / fmax(1.0, sqrt(bn2));
  if (!isnan(res)) literature_measures(p, &a, bn2, &r);
  r.compl = a.compl ;
  r.infeas = fmax(0.0, a.infeas);
  if (p->ncones > 0) {
    r.merit_fclib = sqrt(a.merit2) / (1.0 + sqrt(sqrt(bn2)));
    r.contact = a.contact;
  }
  if (!full) r.compl = r.infeas = r.err_siconos = NAN;
  return r;
}

/* The measures with the scales xsc (slv_xscale); full = 0: the test's
 * alone (merge_chunks).  Without w, a factored problem's w is formed with
 * rf's f and t (all of its blocks at once when rf->tcap holds them; NULL:
 * the stack's RES_BLOCKS), on threads only if rf's t is formed already. */
static slv_residuals residual_with(const slv_problem *p, const double *x, const double *w,
                                   int threads, slv_xscale xsc, res_fac *rf, int full) {
  int n = p->n;
  if (n == 0) return residuals_zero();
  rchunk ch[RES_CHUNKS];
  int rows = chunk_rows(n), nc = (int)(((long long)n + rows - 1) / rows);
  int shared = w || (rf && rf->done && rf->f.nb <= rf->tcap); /* nothing written but ch */
  int nt = shared ? slv_par_threads(threads, n) : 1;
  if (nt > 1) {
#pragma omp parallel for num_threads(nt) schedule(static)
    for (int c = 0; c < nc; c++)
      chunk_into(p, x, w, chunk_start(p, c, rows), chunk_start(p, c + 1, rows), &xsc, rf, full,
                 &ch[c]);
  } else { /* no team at all: solvers measure small problems in their loops */
    double t[6 * RES_BLOCKS];
    res_fac stack = { p->storage == SLV_FACTORED ? slv_fac_of(p) : (slv_fac){ 0 }, t, RES_BLOCKS,
                      0 };
    if (!rf) rf = &stack;
    for (int c = 0; c < nc; c++)
      chunk_into(p, x, w, chunk_start(p, c, rows), chunk_start(p, c + 1, rows), &xsc, rf, full,
                 &ch[c]);
  }
  return merge_chunks(p, ch, nc, full);
}

slv_residuals slv_residual_threads(const slv_problem *p, const double *x, const double *w,
                                   int threads) {
  return residual_with(p, x, w, threads, slv_xscale_of(p, x), NULL, 1);
}

/* slv_residual_op and slv_residual_test_op: op's row sizes; without w, a
 * factored problem's w from op->t where it holds K^T x (t_formed), else
 * from K^T x formed in the solve's buffer tres (op->f: renumbered to at
 * most nb_cap blocks when the problem names more). */
static slv_residuals residual_op(slv_op *op, const double *x, const double *w, int t_formed,
                                 int full) {
  const slv_rowscale *rs = slv_op_rowscale(op);
  slv_xscale xsc = slv_xscale_rows(rs, op->p->n, x, rs->xf);
  int formed = op->fac && t_formed;
  res_fac own = { op->f,
                  formed    ? op->t
                  : op->buf ? op->buf->tres
                            : NULL,
                  op->buf ? op->buf->nb_cap : 0, formed };
  int fac = op->fac && !w && own.t && op->f.nb <= own.tcap;
  return residual_with(op->p, x, w, op->threads, xsc, fac ? &own : NULL, full);
}

slv_residuals slv_residual_op(slv_op *op, const double *x, const double *w) {
  return residual_op(op, x, w, 0, 1);
}

slv_residuals slv_residual_test_op(slv_op *op, const double *x, const double *w, int t_formed) {
  return residual_op(op, x, w, t_formed, 0);
}

slv_residuals slv_residual(const slv_problem *p, const double *x, const double *w) {
  return slv_residual_threads(p, x, w, 1);
}

slv_residuals slv_residual_floor(const slv_problem *p, const double *x, const double *w,
                                 double xf) {
  if (!(xf >= 0.0) || !isfinite(xf)) xf = 0.0; /* slv.h: a bad floor is no floor */
  return residual_with(p, x, w, 1, slv_xscale_floored(p, x, xf), NULL, 1);
}

slv_natmap slv_natmap_of(const slv_problem *p, const double *x, const double *w,
                         const slv_rowscale *rs) {
  int assoc = p->cone_law == SLV_CONE_ASSOCIATED;
  double m = 0, poison = 0, ss = 0, sc = 0, bb = 0, pc = 0; /* bb, pc: condensed only */
  slv_xscale xsc = rs ? xscale_make(x_scale(p->n, x), rs->xd, rs->a, rs->xf) : slv_xscale_of(p, x);
  int k = 0;
  for (int i = 0; i < p->n; i++) {
    poison += (x[i] + w[i]) * 0.0; /* NaN iff x_i or w_i is NaN or Inf */
    if (k < p->ncones && p->cone_rows[k] == i) {
      double mu = p->cone_mu[k];
      double sh = assoc ? 0.0 : slv_desaxce_shift(mu, w[i + 1], w[i + 2]);
      double v[3] = { x[i] - (w[i] + sh), x[i + 1] - w[i + 1], x[i + 2] - w[i + 2] }, pr[3];
      slv_cone_project(mu, v, pr);
      double ff = 0;
      for (int r = 0; r < 3; r++) {
        double d = fabs(x[i + r] - pr[r]);
        if (d > m) m = d;
        ff += d * d;
        poison += (x[i + r] + w[i + r]) * 0.0;
      }
      ss += ff;
      if (p->condensed) {
        double c = contact_ratio(ff, w + i, p->b + i);
        if (!(c <= pc)) pc = c;
        bb += p->b[i] * p->b[i] + p->b[i + 1] * p->b[i + 1] + p->b[i + 2] * p->b[i + 2];
      }
      double c = cone_scaled(p, k, x + i, w + i, p->b + i, &xsc);
      if (!(c <= sc)) sc = c;
      i += 2;
      k++;
      continue;
    }
    double lo = slv_lo_of(p, i), hi = slv_hi_of(p, i);
    double r = slv_mid_res(x[i], w[i], lo, hi);
    if (r > m) m = r;
    ss += r * r;
    double c = slv_scaled_row(x[i], w[i], p->b[i], reaction_of(p, i, &xsc), lo, hi, xsc.xs);
    if (!(c <= sc)) sc = c;
  }
  int ok = poison == 0.0 && isfinite(m);
  if (p->condensed) sc = slv_max_nan(sc, slv_max_nan(sqrt(ss) / (1.0 + sqrt(bb)), pc));
  return (slv_natmap){ ok ? m : NAN, sqrt(ss), ok ? sc : NAN };
}

int slv_residuals_met(const slv_residuals *r, double tol, int norm) {
  slv_options o = { .tol = tol, .norm = norm };
  return slv_met_norms(&o, slv_scaled_of(r), r->res_rel_2);
}
