/* wedge.c -- why a cone solve failed, when a wedge is the reason
 * (docs/cone-solvers.md, "A wedge").
 *
 * At the end of a solve that ended unconverged on a problem with Coulomb
 * cones (slv_solve, workspace.c), the WEDGE_MAX contacts with the largest
 * natural map ||F_c||_2 at the x returned are taken, and A's block on
 * their rows read (slv_op_entry; 12 x 12 at most).  Each set S of them
 * that holds the largest, the smaller sets first (a corner's two contacts
 * before three), is tested: the smallest eigenpair of the symmetric part
 * of A_SS (cyclic Jacobi), its vector d (|d| = 1, the sum of its normal
 * parts positive), is a wedge when
 *   - lambda_min <= WEDGE_NULL lambda_max (d is a null direction of the block);
 *   - d lies in each contact's cone: |d_t| <= mu d_n (to WEDGE_CONE_SLACK);
 *   - beta = d.b < 0, and |beta| >= WEDGE_SHARE ||F_S||_2 (the wedge is the
 *     size of the residual it leaves, not a rounding beside it);
 *   - and then, confirmed on the whole problem: A = A^T (to 1e-12) and
 *     ||A d||_inf <= WEDGE_NULL max |A_SS| over every row (one product), so
 *     that d^T A = 0 and d.w = d.b for every x.
  * Then no x puts those contacts' velocities w in their dual cones K*
 * (d in K gives d.w >= 0 there, while d.w = beta < 0): the strict
 * feasibility of [acary2011]'s existence result fails.  Under the
 * associated law an answer needs w in K* on every contact, so none exists,
 * and every x has ||F_S||_2 >= |beta| (F = x - P_K(x - w) gives w - F in K*,
 * so d.F <= d.w = beta).  Under the Coulomb law (De Saxce's shift) that
 * bound is not proven; the solvers stop with a residual about |beta|.
 * Only the contacts carrying the most residual are looked at: a wedge
 * elsewhere, or one whose contacts a solver left with little residual
 * (nsgs solves the last contact of its sweep exactly), may go unnamed.
 *
 * The diagnosis goes to res->diagnosis, never a status.  A failed solve
 * with no wedge candidate costs one pass over the cones and the block's
 * entries; a candidate one allocation of 2n doubles (at the end of the
 * failed solve, never inside a solver's loop) and one product; without
 * memory nothing is said. */
#include "slv_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
  WEDGE_MAX = 4,    /* contacts: a corner holds two, a box in a groove four */
  WEDGE_ROWS = 12,  /* 3 WEDGE_MAX */
  WEDGE_SWEEPS = 60 /* Jacobi sweeps on a 12 x 12 block, far more than needed */
};
#define WEDGE_SHARE      0.1
#define WEDGE_NULL       1e-9
#define WEDGE_CONE_SLACK 1e-9

/* ||F_c||_2 of cone k (the problem's law) at x, w. */
static double cone_natmap(const slv_problem *p, int k, const double *x, const double *w) {
  int i = p->cone_rows[k];
  double mu = p->cone_mu[k], pr[3];
  double sh = p->cone_law == SLV_CONE_ASSOCIATED ? 0.0 : slv_desaxce_shift(mu, w[i + 1], w[i + 2]);
  double v[3] = { x[i] - (w[i] + sh), x[i + 1] - w[i + 1], x[i + 2] - w[i + 2] };
  slv_cone_project(mu, v, pr);
  double ss = 0;
  for (int r = 0; r < 3; r++) ss += (x[i + r] - pr[r]) * (x[i + r] - pr[r]);
  return sqrt(ss);
}

/* The WEDGE_MAX contacts with the largest scale-invariant residual (the
 * judge's, slv_cone_scaled_residual), largest first, into cones, and their
 * ||F_c||_2 into fc: their count (0 when x is an answer or not finite).
 * ||F_c||_2 mixes x's and w's units: ranked by it, at A x 1e-12 the
 * wedge's pair fell out of the four (python/tests/test_highmu.py). */
static int pick_contacts(const slv_problem *p, const double *x, const double *w, int *cones,
                         double *fc) {
  enum { CAP = WEDGE_MAX };
  double top[CAP];
  int at[CAP], kept = 0;
  slv_xscale sc = slv_xscale_of(p, x);
  for (int k = 0; k < p->ncones; k++) {
    double f = slv_cone_scaled_residual(p, k, x, w, &sc);
    if (!isfinite(f)) return 0;
    if (kept == CAP && f <= top[CAP - 1]) continue;
    int pos = kept < CAP ? kept++ : CAP - 1; /* the smallest kept gives way */
    for (; pos > 0 && top[pos - 1] < f; pos--) {
      top[pos] = top[pos - 1];
      at[pos] = at[pos - 1];
    }
    top[pos] = f;
    at[pos] = k;
  }
  if (kept == 0 || !(top[0] > 0)) return 0;
  memcpy(cones, at, (size_t)kept * sizeof *cones);
  for (int c = 0; c < kept; c++) fc[c] = cone_natmap(p, at[c], x, w);
  return kept;
}

/* One Jacobi rotation of the symmetric a (m x m, row-major) zeroing
 * a[p][q], applied to the eigenvectors v (columns). */
static void jacobi_rotate(int m, double *a, double *v, int p, int q) {
  double apq = a[p * m + q];
  if (apq == 0.0) return;
  double th = (a[q * m + q] - a[p * m + p]) / (2.0 * apq);
  double t = (th >= 0 ? 1.0 : -1.0) / (fabs(th) + sqrt(th * th + 1.0));
  double c = 1.0 / sqrt(t * t + 1.0), s = t * c;
  for (int k = 0; k < m; k++) {
    double akp = a[k * m + p], akq = a[k * m + q];
    a[k * m + p] = c * akp - s * akq;
    a[k * m + q] = s * akp + c * akq;
  }
  for (int k = 0; k < m; k++) {
    double apk = a[p * m + k], aqk = a[q * m + k];
    a[p * m + k] = c * apk - s * aqk;
    a[q * m + k] = s * apk + c * aqk;
  }
  for (int k = 0; k < m; k++) {
    double vkp = v[k * m + p], vkq = v[k * m + q];
    v[k * m + p] = c * vkp - s * vkq;
    v[k * m + q] = s * vkp + c * vkq;
  }
}

/* The eigenvalues of the symmetric a (m x m, destroyed) on its diagonal,
 * their vectors in v's columns (cyclic Jacobi); the sweeps it made.  It
 * stops when the off-diagonal sum of squares is below 1e-32 of the
 * diagonal's, or no longer falls: each rotation lowers it in exact
 * arithmetic, so a sweep that does not has reached its rounding floor.
 * From about 9 rows on that floor lies above 1e-32, and the first test
 * alone ran every one of the WEDGE_SWEEPS sweeps
 * (experiments/records/2026-11-29-wedge-jacobi.md). */
int slv_jacobi_eigen(int m, double *a, double *v) {
  for (int i = 0; i < m * m; i++) v[i] = 0.0;
  for (int i = 0; i < m; i++) v[i * m + i] = 1.0;
  double last = INFINITY;
  int sweep;
  for (sweep = 0; sweep < WEDGE_SWEEPS; sweep++) {
    double off = 0, dia = 0;
    for (int i = 0; i < m; i++)
      for (int j = 0; j < m; j++) {
        double s = a[i * m + j] * a[i * m + j];
        if (i == j)
          dia += s;
        else
          off += s;
      }
    if (off <= 1e-32 * dia || off >= last) break;
    last = off;
    for (int p = 0; p < m - 1; p++)
      for (int q = p + 1; q < m; q++) jacobi_rotate(m, a, v, p, q);
  }
  return sweep;
}

/* The smallest eigenpair of the symmetric part of blk's rows and columns
 * sel[0..m) (blk: WEDGE_ROWS x WEDGE_ROWS) into d (|d| = 1, normal parts
 * summing >= 0), *amax the largest |entry|; 1 if lambda_min <= WEDGE_NULL
 * lambda_max. */
static int null_direction(const double *blk, const int *sel, int m, double *d, double *amax) {
  double a[WEDGE_ROWS * WEDGE_ROWS], v[WEDGE_ROWS * WEDGE_ROWS], top = 0;
  for (int i = 0; i < m; i++)
    for (int j = 0; j < m; j++) {
      double aij = blk[sel[i] * WEDGE_ROWS + sel[j]], aji = blk[sel[j] * WEDGE_ROWS + sel[i]];
      a[i * m + j] = 0.5 * (aij + aji);
      top = fmax(top, fabs(aij));
    }
  *amax = top;
  slv_jacobi_eigen(m, a, v);
  int lo = 0, hi = 0;
  for (int i = 1; i < m; i++) {
    if (a[i * m + i] < a[lo * m + lo]) lo = i;
    if (a[i * m + i] > a[hi * m + hi]) hi = i;
  }
  double sn = 0;
  for (int i = 0; i < m; i += 3) sn += v[i * m + lo];
  for (int i = 0; i < m; i++) d[i] = (sn < 0 ? -1.0 : 1.0) * v[i * m + lo];
  return a[hi * m + hi] > 0 && a[lo * m + lo] <= WEDGE_NULL * a[hi * m + hi];
}

/* 1 if d (3 rows a contact) lies in each contact's cone (mu[c]). */
static int in_cones(const double *mu, int k, const double *d) {
  for (int c = 0; c < k; c++) {
    const double *dc = d + 3 * c;
    if (sqrt(dc[1] * dc[1] + dc[2] * dc[2]) > mu[c] * dc[0] + WEDGE_CONE_SLACK) return 0;
  }
  return 1;
}

/* "3 and 12", "3, 7 and 12": the contacts in increasing order. */
static void contact_list(const int *cones, int k, char *out, size_t len) {
  int s[WEDGE_MAX];
  memcpy(s, cones, (size_t)k * sizeof *s);
  for (int i = 1; i < k; i++)
    for (int j = i; j > 0 && s[j - 1] > s[j]; j--) {
      int t = s[j];
      s[j] = s[j - 1];
      s[j - 1] = t;
    }
  size_t used = 0;
  out[0] = '\0';
  for (int i = 0; i < k && used < len; i++) {
    const char *sep = i == 0 ? "" : " and ";
    if (i > 0 && i + 1 < k) sep = ", ";
    used += (size_t)snprintf(out + used, len - used, "%s%d", sep, s[i]);
  }
}

static void say_wedge(const slv_problem *p, const int *cones, int k, double beta, slv_result *res) {
  char list[64];
  contact_list(cones, k, list, sizeof list);
  const char *what = p->cone_law == SLV_CONE_ASSOCIATED
                         ? "so no x has a residual ||F||_2 below |d.b| there: no answer exists"
                         : "so no x puts their velocities in the dual cones: the existence "
                           "condition fails";
  slv_msgf(res->diagnosis, sizeof res->diagnosis,
           "wedge: contact%s %s (cone indices) carry the residual; A d = 0 for a d in their "
           "cones (|d| = 1) with d.b = %.2g < 0, %s",
           k > 1 ? "s" : "", list, beta, what);
}

/* The set of the picked contacts in mask (bits into cones, fc; rows 3 a
 * contact): their cone numbers into set, rows into sel (block indices),
 * mu; returns the count, *ff = ||F_S||_2^2. */
static int gather(const slv_problem *p, const int *cones, const double *fc, unsigned mask, int *set,
                  int *sel, double *mu, double *ff) {
  int k = 0;
  *ff = 0;
  for (int c = 0; c < WEDGE_MAX; c++) {
    if (!(mask >> c & 1u)) continue;
    for (int r = 0; r < 3; r++) sel[3 * k + r] = 3 * c + r;
    set[k] = cones[c];
    mu[k++] = p->cone_mu[cones[c]];
    *ff += fc[c] * fc[c];
  }
  return k;
}

/* The whole-problem test's scratch: d spread over the n rows and A d, zeroed
 * (once, at the end of a failed solve, only for a candidate). */
static double *null_test_alloc(int n) { return calloc(2 * (size_t)n, sizeof(double)); }

/* The whole problem's part of the test: A = A^T and ||A d||_inf <= WEDGE_NULL
 * amax, d on rows rows[sel[..]] (one product; 2n doubles allocated). */
static int null_on_all_rows(slv_op *op, const int *rows, const int *sel, int m, const double *d,
                            double amax) {
  int i, j, n = op->n, ok = 0;
  if (!slv_op_is_symmetric(op, 1e-12, &i, &j)) return 0;
  double *dd = null_test_alloc(n);
  if (!dd) return 0;
  for (int r = 0; r < m; r++) dd[rows[sel[r]]] = d[r];
  slv_op_matvec(op, dd, NULL, dd + n);
  double worst = 0;
  for (int r = 0; r < n; r++) worst = fmax(worst, fabs(dd[n + r]));
  ok = worst <= WEDGE_NULL * amax;
  free(dd);
  return ok;
}

/* The wedge test of the header on the picked contacts of mask (blk: A on
 * rows); 1 and the set, its size and beta if they are one.  *used: the
 * whole problem's products ran. */
static int wedge_of(slv_op *op, const int *cones, const double *fc, const int *rows,
                    const double *blk, unsigned mask, int *set, int *ns, double *beta, int *used) {
  const slv_problem *p = op->p;
  int sel[WEDGE_ROWS];
  double mu[WEDGE_MAX], ff, d[WEDGE_ROWS], amax, b = 0;
  int k = gather(p, cones, fc, mask, set, sel, mu, &ff), m = 3 * k;
  if (!null_direction(blk, sel, m, d, &amax) || !in_cones(mu, k, d)) return 0;
  for (int i = 0; i < m; i++) b += d[i] * p->b[rows[sel[i]]];
  if (!(b < 0 && -b >= WEDGE_SHARE * sqrt(ff))) return 0;
  *used = 1;
  if (!null_on_all_rows(op, rows, sel, m, d, amax)) return 0;
  *ns = k;
  *beta = b;
  return 1;
}

/* Bits in mask. */
static int popcount(unsigned mask) {
  int c = 0;
  for (; mask; mask &= mask - 1) c++;
  return c;
}

int slv_wedge_diagnose(slv_op *op, const double *x, const double *w, slv_result *res) {
  const slv_problem *p = op->p;
  int cones[WEDGE_MAX], rows[WEDGE_ROWS], set[WEDGE_MAX], ns, used = 0;
  double fc[WEDGE_MAX], blk[WEDGE_ROWS * WEDGE_ROWS], beta;
  res->diagnosis[0] = '\0';
  if (p->ncones == 0) return 0;
  int k = pick_contacts(p, x, w, cones, fc);
  for (int c = 0; c < k; c++)
    for (int r = 0; r < 3; r++) rows[3 * c + r] = p->cone_rows[cones[c]] + r;
  for (int i = 0; i < 3 * k; i++)
    for (int j = 0; j < 3 * k; j++) blk[i * WEDGE_ROWS + j] = slv_op_entry(op, rows[i], rows[j]);
  /* the sets holding the first, smaller first */
  for (int size = 1; size <= k; size++)
    for (unsigned mask = 1; mask < 1u << k; mask += 2)
      if (popcount(mask) == size &&
          wedge_of(op, cones, fc, rows, blk, mask, set, &ns, &beta, &used)) {
        say_wedge(p, set, ns, beta, res);
        return used;
      }
  return used;
}
