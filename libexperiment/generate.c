/* generate.c -- the seeded generator of lcplab's instance families
 * (datasets/README.md, "Generated instances"): `lcplab generate` and the
 * `generate` lines of experiment files (prepare.c) call it in-process.
 *
 * exp_generate builds one problem; exp_generate_file writes it in lcplab's
 * own text format (IO_FMT_LCPLAB, through io_write) with the reference
 * solution x_ref where one is planted.  Sign convention (slv.h): w = A x + b,
 * lo <= x <= hi, x_i = lo_i => w_i >= 0, x_i = hi_i => w_i <= 0, inside =>
 * w_i = 0.  All randomness comes from one GSL mt19937 generator seeded with
 * S, drawn in a fixed order, so (family, n, seed) fixes the random draws;
 * the file is bit-identical for the same libm and OpenBLAS kernel (another
 * CPU's kernel may round the products differently).  Products use OpenBLAS
 * (cblas_dsyrk, cblas_dgemv; the contact families' A through libdynamics).
 * The generator's state lives in the caller's
 * frame (no gsl_rng_alloc, whose failure would call GSL's error handler):
 * nothing here touches global state.
 *
 * Families ("datasets/INSTANCES.md, Bundled instances" is the user-facing copy):
 *
 *   spd           A = B B^T / n + 1e-2 I, B n x n with N(0,1) entries.
 *                 Planted: a random half of the rows (exactly floor(n/2),
 *                 chosen by shuffling) has x*_i ~ U(0,1), w*_i = 0; the other
 *                 rows have x*_i = 0, w*_i ~ U(0,1).  b = w* - A x*.  A is
 *                 positive definite, so x* is the unique solution: x_ref = x*.
 *
 *   contact       "contact-like" A = J M^-1 J^T + eps I.  nb = ceil(nc/4)
 *                 free rigid bodies with 6 DOF (mass m ~ U(0.5, 2), principal
 *                 inertia m * U(0.1, 1) per axis; M^-1 is diagonal).  One
 *                 normal row per contact (nc = n contacts); a contact joins
 *                 body a to body b != a with probability 0.7, else body a to
 *                 the ground (always the ground when nb = 1).  Normal nrm:
 *                 random unit vector; lever arms r_a, r_b ~ U(-1,1)^3; row
 *                 J_c = [ nrm, r_a x nrm ] on body a, [ -nrm, -(r_b x nrm) ]
 *                 on body b.  eps = 1e-6 * mean(diag(J M^-1 J^T)) (CFM-like).
 *                 b = J v - |N(0, 0.5)| per row, v ~ N(0,1)^(6 nb): the
 *                 velocity after an unconstrained step, approaching contacts.
 *                 Standard LCP (lo = 0, hi = inf), not planted: no x_ref.
 *
 *   boxed-findex  the friction pyramid as a boxed LCP with ODE's findex:
 *                 nc = floor(n/3) contacts, rows (normal, t1, t2) per contact
 *                 (so the written n is 3 floor(n/3)), (t1, t2) an orthonormal
 *                 tangent basis of nrm; the same body model and A as contact.
 *                 Normal rows: lo = 0, hi = inf, b = J v - |N(0, 0.5)|.
 *                 Tangent rows: findex = their normal row, mu = 0.5, bounds
 *                 -mu x_n .. mu x_n (lo/hi stored as -mu / mu), b = J v.
 *                 Not planted: no x_ref.
 *
 *   box           A as in spd; lo_i = -U(0.1, 1), hi_i = U(0.1, 1).  Planted:
 *                 the rows are shuffled into three groups of about n/3: at lo
 *                 (x* = lo, w* ~ U(0,1)), at hi (x* = hi, w* ~ -U(0,1)),
 *                 inside (x* = lo + U(0,1)(hi - lo), w* = 0).  b = w* - A x*;
 *                 x_ref = x* (unique since A is positive definite).
 *
 *   joints        A as in spd, every row an equality (lo = -inf, hi = +inf:
 *                 pure joints, the problems the `direct` solver takes).
 *                 Planted: x*_i = 2 U(0,1) - 1, w* = 0, b = -A x*; x_ref = x*.
 *
 *   scaled-spd    A = D S D, S as in spd, D_i = 10^e_i with e_i ~ U(-3.5, 3.5)
 *                 drawn after S: row scalings over 7 decades, condition
 *                 number 1e14-1e15 by numpy (the badly scaled matrices on which
 *                 pivoting codes must pick tolerances relative to each row).
 *                 Planted as spd in the scaled variables: x*_i = U(0,1) / D_i
 *                 or w*_i = D_i U(0,1); x_ref = x*.
 *
 *   sparse-contact, sparse-box, sparse-findex: the contact construction
 *                 above with neighbouring bodies and A stored as CSR, for
 *                 sizes up to 10^6 rows (a dense A of n = 10^4 is 800 MB).
 *                 nb = nc bodies (one contact per body on average: with
 *                 four, as in contact, the local clusters are so over-
 *                 constrained that pgs stalls on most sparse-findex
 *                 instances, measured at n = 999); they stand in a row; a
 *                 contact joins body a
 *                 (uniform) to body b = a + d, d uniform in {-3..-1, 1..3}
 *                 (the ground when b falls outside) with probability 0.7,
 *                 else to the ground; so each row couples to the few rows
 *                 on its two bodies (about 30 nonzeros a row), and a sparse
 *                 LU of A fills little.  A = (J M^-1/2)(J M^-1/2)^T + eps I
 *                 entry by entry, the bodies of a pair in ascending order,
 *                 so A is exactly symmetric; eps as in contact.
 *                   sparse-contact  one normal row per contact, lo = 0,
 *                                   hi = inf (LCP);
 *                   sparse-box      the same rows with lo_i = -U(0.1, 1),
 *                                   hi_i = U(0.1, 1), drawn after b
 *                                   (boxed, as bounded motor rows);
 *                   sparse-findex   rows (normal, t1, t2) per contact,
 *                                   findex friction with mu = 0.5, as
 *                                   boxed-findex (n rounded down to 3 nc).
 *                 b as in contact.  Not planted: no x_ref.
 *
 * The contact rows are those of docs/contact.md, "Contact Jacobian", and
 * their A = J M^-1 J^T is libdynamics' (dyn_jmjt_dense for the dense
 * families, dyn_assemble_rows for the sparse ones): the generator draws the
 * bodies, the contacts and b, and adds eps.  How the contact family relates
 * to the peers' generated problems: datasets/INSTANCES.md, "Bundled
 * instances".
 */
#define _POSIX_C_SOURCE 200809L

/* OpenBLAS's cblas.h first; gsl_randist.h pulls in gsl_cblas.h (through
 * gsl_matrix.h), which redeclares the same enums.  Marking gsl_cblas.h as
 * already included lets GSL's blas types use OpenBLAS's identical enums. */
#include <cblas.h>
#define __GSL_CBLAS_H__
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exp_internal.h"

#include "dyn_constraint.h"
#include "dyn_math.h"

#define GEN_MU 0.5 /* friction coefficient of the findex families */

typedef enum gen_family {
  GEN_SPD,
  GEN_CONTACT,
  GEN_BOXED_FINDEX,
  GEN_BOX,
  GEN_JOINTS,
  GEN_SPARSE_CONTACT,
  GEN_SPARSE_BOX,
  GEN_SPARSE_FINDEX,
  GEN_SCALED_SPD,
  GEN_NFAMILIES
} gen_family;

/* The names, in gen_family's order (exp_generate_families). */
static const char *const family_names[GEN_NFAMILIES + 1] = {
  "spd",        "contact",       "boxed-findex", "box", "joints", "sparse-contact",
  "sparse-box", "sparse-findex", "scaled-spd",   NULL
};

const char *const *exp_generate_families(void) { return family_names; }

static int is_sparse(gen_family f) {
  return f == GEN_SPARSE_CONTACT || f == GEN_SPARSE_BOX || f == GEN_SPARSE_FINDEX;
}

static int has_findex(gen_family f) { return f == GEN_BOXED_FINDEX || f == GEN_SPARSE_FINDEX; }

/* ---- small helpers --------------------------------------------------------- */

/* A uniformly distributed unit vector (normalised Gaussian; retried if
 * tiny).  The components are drawn x, y, z, one statement each: the
 * generated files depend on the order. */
static dyn_v3 unit3(gsl_rng *r) {
  dyn_v3 v;
  double s;
  do {
    v.x = gsl_ran_gaussian(r, 1.0);
    v.y = gsl_ran_gaussian(r, 1.0);
    v.z = gsl_ran_gaussian(r, 1.0);
    s = dyn_v3_norm(v);
  } while (s < 1e-6);
  return dyn_v3_make(v.x / s, v.y / s, v.z / s);
}

/* Copies the lower triangle of the n x n column-major A onto the upper one,
 * so A is exactly symmetric (dsyrk fills one triangle). */
static void symmetrize_from_lower(int n, double *A) {
  for (int j = 0; j < n; j++)
    for (int i = j + 1; i < n; i++) A[j + (size_t)i * n] = A[i + (size_t)j * n];
}

/* A = B B^T / n + 1e-2 I, B n x n with N(0,1) entries drawn column by column. */
static int fill_spd(gsl_rng *r, int n, double *A) {
  double *B = malloc((size_t)n * n * sizeof *B);
  if (!B) return -1;
  for (size_t k = 0; k < (size_t)n * n; k++) B[k] = gsl_ran_gaussian(r, 1.0);
  cblas_dsyrk(CblasColMajor, CblasLower, CblasNoTrans, n, n, 1.0 / n, B, n, 0.0, A, n);
  symmetrize_from_lower(n, A);
  for (int i = 0; i < n; i++) A[i + (size_t)i * n] += 1e-2;
  free(B);
  return 0;
}

/* b = w - A x (A n x n column-major). */
static void planted_b(int n, const double *A, const double *x, const double *w, double *b) {
  memcpy(b, w, (size_t)n * sizeof *b);
  cblas_dgemv(CblasColMajor, CblasNoTrans, n, n, -1.0, A, n, x, 1, 1.0, b, 1);
}

/* perm = a uniformly random permutation of 0..n-1. */
static void random_perm(gsl_rng *r, int n, int *perm) {
  for (int i = 0; i < n; i++) perm[i] = i;
  if (n > 1) gsl_ran_shuffle(r, perm, (size_t)n, sizeof *perm);
}

/* ---- families --------------------------------------------------------------- */

static int gen_spd(gsl_rng *r, io_instance *inst) {
  int n = inst->n, rc = -1;
  double *w = calloc((size_t)n, sizeof *w);
  int *perm = malloc((size_t)n * sizeof *perm);
  inst->x_ref = calloc((size_t)n, sizeof *inst->x_ref);
  if (!w || !perm || !inst->x_ref || fill_spd(r, n, inst->A)) goto done;
  random_perm(r, n, perm);
  for (int k = 0; k < n; k++) {
    int i = perm[k];
    if (k < n / 2)
      inst->x_ref[i] = gsl_rng_uniform_pos(r); /* x* > 0, w* = 0 */
    else
      w[i] = gsl_rng_uniform_pos(r); /* x* = 0, w* > 0 */
  }
  planted_b(n, inst->A, inst->x_ref, w, inst->b);
  /* lo = 0, hi = +inf: as allocated by io_instance_new_dense */
  rc = 0;
done:
  free(w);
  free(perm);
  return rc;
}

/* scaled-spd: A = D S D with S as in spd and D_i = 10^e_i, e_i ~ U(-GEN_SCALE_DEC,
 * GEN_SCALE_DEC); A_ij = S_ij (D_i D_j), so A is exactly symmetric.  The
 * planted solution is the spd one in the scaled variables: x*_i = U(0,1) / D_i
 * on a random half, w*_i = D_i U(0,1) on the other. */
#define GEN_SCALE_DEC 3.5
static int gen_scaled_spd(gsl_rng *r, io_instance *inst) {
  int n = inst->n, rc = -1;
  double *w = calloc((size_t)n, sizeof *w), *D = malloc((size_t)n * sizeof *D);
  int *perm = malloc((size_t)n * sizeof *perm);
  inst->x_ref = calloc((size_t)n, sizeof *inst->x_ref);
  if (!w || !D || !perm || !inst->x_ref || fill_spd(r, n, inst->A)) goto done;
  for (int i = 0; i < n; i++) D[i] = pow(10.0, GEN_SCALE_DEC * (2 * gsl_rng_uniform(r) - 1));
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++) inst->A[i + (size_t)j * n] *= D[i] * D[j];
  random_perm(r, n, perm);
  for (int k = 0; k < n; k++) {
    int i = perm[k];
    if (k < n / 2)
      inst->x_ref[i] = gsl_rng_uniform_pos(r) / D[i]; /* x* > 0, w* = 0 */
    else
      w[i] = gsl_rng_uniform_pos(r) * D[i]; /* x* = 0, w* > 0 */
  }
  planted_b(n, inst->A, inst->x_ref, w, inst->b);
  rc = 0;
done:
  free(w);
  free(D);
  free(perm);
  return rc;
}

static int gen_box(gsl_rng *r, io_instance *inst) {
  int n = inst->n, rc = -1;
  double *w = calloc((size_t)n, sizeof *w);
  int *perm = malloc((size_t)n * sizeof *perm);
  inst->x_ref = calloc((size_t)n, sizeof *inst->x_ref);
  if (!w || !perm || !inst->x_ref || fill_spd(r, n, inst->A)) goto done;
  for (int i = 0; i < n; i++) {
    inst->lo[i] = -(0.1 + 0.9 * gsl_rng_uniform(r));
    inst->hi[i] = 0.1 + 0.9 * gsl_rng_uniform(r);
  }
  random_perm(r, n, perm);
  for (int k = 0; k < n; k++) {
    int i = perm[k];
    if (k % 3 == 0) { /* at lo, pushed up by w > 0 */
      inst->x_ref[i] = inst->lo[i];
      w[i] = gsl_rng_uniform_pos(r);
    } else if (k % 3 == 1) { /* at hi, pushed down by w < 0 */
      inst->x_ref[i] = inst->hi[i];
      w[i] = -gsl_rng_uniform_pos(r);
    } else { /* strictly inside, w = 0 */
      inst->x_ref[i] = inst->lo[i] + gsl_rng_uniform_pos(r) * (inst->hi[i] - inst->lo[i]);
    }
  }
  planted_b(n, inst->A, inst->x_ref, w, inst->b);
  rc = 0;
done:
  free(w);
  free(perm);
  return rc;
}

static int gen_joints(gsl_rng *r, io_instance *inst) {
  int n = inst->n;
  double *w = calloc((size_t)n, sizeof *w); /* w* = 0 */
  inst->x_ref = calloc((size_t)n, sizeof *inst->x_ref);
  if (!w || !inst->x_ref || fill_spd(r, n, inst->A)) {
    free(w);
    return -1;
  }
  for (int i = 0; i < n; i++) {
    inst->lo[i] = -INFINITY;
    inst->hi[i] = INFINITY;
    inst->x_ref[i] = 2 * gsl_rng_uniform(r) - 1;
  }
  planted_b(n, inst->A, inst->x_ref, w, inst->b);
  free(w);
  return 0;
}

/* ---- contact rows (contact, boxed-findex and the sparse families) ------------ */

/* The diagonal of M^-1 of nb free bodies, 6 values each: mass m ~ U(0.5, 2),
 * principal inertia m U(0.1, 1) per axis. */
static void draw_bodies(gsl_rng *r, int nb, double *minv) {
  for (int k = 0; k < nb; k++) {
    double m = 0.5 + 1.5 * gsl_rng_uniform(r);
    for (int d = 0; d < 3; d++) minv[6 * k + d] = 1.0 / m;
    for (int d = 0; d < 3; d++) minv[6 * k + 3 + d] = 1.0 / (m * (0.1 + 0.9 * gsl_rng_uniform(r)));
  }
}

/* One contact: body a, body b (-1: the ground), its frame (normal, t1, t2)
 * and the lever arms on a and b. */
typedef struct contact {
  int a, b;
  dyn_v3 dir[3], ra, rb;
} contact;

/* The dense families' pair: b any body other than a (uniform) with
 * probability 0.7, else the ground (always when nb = 1). */
static void pair_any(gsl_rng *r, int nb, contact *c) {
  c->a = (int)gsl_rng_uniform_int(r, (unsigned long)nb);
  c->b = -1;
  if (nb > 1 && gsl_rng_uniform(r) < 0.7) {
    c->b = (int)gsl_rng_uniform_int(r, (unsigned long)(nb - 1));
    if (c->b >= c->a) c->b++; /* uniform over the bodies other than a */
  }
}

/* The sparse families' pair: b = a + d, d uniform in {-3..-1, 1..3}, with
 * probability 0.7 (the ground when b falls outside), else the ground. */
static void pair_near(gsl_rng *r, int nb, contact *c) {
  c->a = (int)gsl_rng_uniform_int(r, (unsigned long)nb);
  c->b = -1;
  if (nb > 1 && gsl_rng_uniform(r) < 0.7) {
    int d = 1 + (int)gsl_rng_uniform_int(r, 3);
    c->b = gsl_rng_uniform(r) < 0.5 ? c->a - d : c->a + d;
    if (c->b < 0 || c->b >= nb) c->b = -1;
  }
}

/* After the pair: a random orthonormal frame -- the normal uniform on the
 * sphere, t1 a random direction orthogonal to it, t2 = nrm x t1 -- then the
 * lever arms r_a, r_b ~ U(-1,1)^3 (the draws in this order: the generated
 * files depend on it). */
static void contact_geometry(gsl_rng *r, contact *c) {
  dyn_v3 t1;
  double s;
  c->dir[0] = unit3(r);
  do {
    t1 = dyn_v3_cross(c->dir[0], unit3(r));
    s = dyn_v3_norm(t1);
  } while (s < 1e-3);
  c->dir[1] = dyn_v3_make(t1.x / s, t1.y / s, t1.z / s);
  c->dir[2] = dyn_v3_cross(c->dir[0], c->dir[1]);
  double ra[3], rb[3];
  for (int d = 0; d < 3; d++) {
    ra[d] = 2.0 * gsl_rng_uniform(r) - 1.0;
    rb[d] = 2.0 * gsl_rng_uniform(r) - 1.0;
  }
  c->ra = dyn_v3_make(ra[0], ra[1], ra[2]);
  c->rb = dyn_v3_make(rb[0], rb[1], rb[2]);
}

/* One side of a row: J = s (d, r x d), s = +-1. */
static void row_side(double *J, dyn_v3 d, dyn_v3 r, int negate) {
  dyn_v3 ang = dyn_v3_cross(r, d);
  const double v[6] = { d.x, d.y, d.z, ang.x, ang.y, ang.z };
  for (int k = 0; k < 6; k++) J[k] = negate ? -v[k] : v[k];
}

/* Row q (0: the normal, 1, 2: t1, t2) of contact c as libdynamics' row i:
 * J = (d, r_a x d) on a, (-d, -(r_b x d)) on b, the lower body index in
 * slot 0, so that A's sums run over the bodies in order.  Only J and the
 * bodies count for A; the instance has its own bounds. */
static void contact_row(const contact *c, int q, int i, dyn_rows *row) {
  memset(row, 0, sizeof *row);
  row->kind = DYN_ROW_PLAIN;
  row->findex = -1;
  row->hi = INFINITY;
  row->base = i;
  int sa = c->b < 0 || c->a < c->b ? 0 : 1, sb = 1 - sa;
  row->body[sa] = c->a;
  row->body[sb] = c->b;
  row_side(row->J[sa], c->dir[q], c->ra, 0);
  if (c->b >= 0) row_side(row->J[sb], c->dir[q], c->rb, 1);
}

/* Row i, the q-th of its contact (first row i - q), in ODE's findex form:
 * the normal lo = 0, hi = inf; a tangent coupled to it with mu = GEN_MU. */
static void findex_bounds(io_instance *inst, int i, int q) {
  inst->findex[i] = q == 0 ? -1 : i - q;
  inst->mu[i] = q == 0 ? 0.0 : GEN_MU;
  inst->lo[i] = q == 0 ? 0.0 : -GEN_MU;
  inst->hi[i] = q == 0 ? INFINITY : GEN_MU;
}

/* A_ii += eps = 1e-6 mean(diag A) (CFM-like) of the dense n x n A. */
static void dense_eps(int n, double *A) {
  double tr = 0.0;
  for (int i = 0; i < n; i++) tr += A[i + (size_t)i * n];
  double eps = 1e-6 * tr / n;
  for (int i = 0; i < n; i++) A[i + (size_t)i * n] += eps;
}

/* contact (friction = 0: one normal row per contact, nc = n) and
 * boxed-findex (friction = 1: rows n, t1, t2 per contact, nc = n / 3):
 * J dense (n x 6 nb), b = J v - |N(0, 0.5)| on normal rows (J v on
 * tangent rows), A = J M^-1 J^T by libdynamics (dyn_jmjt_dense) + eps I. */
static int gen_contact(gsl_rng *r, io_instance *inst, int friction) {
  int n = inst->n, rows_per = friction ? 3 : 1, nc = n / rows_per;
  int nb = (nc + 3) / 4, nd = 6 * nb, rc = -1;
  double *minv = malloc((size_t)nd * sizeof *minv); /* diagonal of M^-1 */
  double *J = calloc((size_t)n * nd, sizeof *J);    /* n x nd, column-major */
  double *v = malloc((size_t)nd * sizeof *v);
  if (!minv || !J || !v) goto done;
  if (friction) {
    inst->findex = malloc((size_t)n * sizeof *inst->findex);
    inst->mu = calloc((size_t)n, sizeof *inst->mu);
    if (!inst->findex || !inst->mu) goto done;
  }
  draw_bodies(r, nb, minv);
  for (int ci = 0; ci < nc; ci++) {
    contact c;
    pair_any(r, nb, &c);
    contact_geometry(r, &c);
    for (int q = 0; q < rows_per; q++) {
      int i = rows_per * ci + q;
      dyn_rows row;
      contact_row(&c, q, i, &row);
      for (int k = 0; k < 2; k++)
        for (int d = 0; row.body[k] >= 0 && d < 6; d++)
          J[i + (size_t)(6 * row.body[k] + d) * n] = row.J[k][d];
      if (friction) findex_bounds(inst, i, q);
    }
  }
  /* b = J v - |N(0, 0.5)| on normal rows, J v on tangent rows (J unscaled) */
  for (int k = 0; k < nd; k++) v[k] = gsl_ran_gaussian(r, 1.0);
  cblas_dgemv(CblasColMajor, CblasNoTrans, n, nd, 1.0, J, n, v, 1, 0.0, inst->b, 1);
  for (int i = 0; i < n; i++)
    if (i % rows_per == 0) inst->b[i] -= fabs(gsl_ran_gaussian(r, 0.5));
  dyn_jmjt_dense(n, nd, J, minv, inst->A); /* J scaled in place */
  dense_eps(n, inst->A);
  rc = 0;
done:
  free(minv);
  free(J);
  free(v);
  return rc;
}

/* ---- sparse families ------------------------------------------------------------ */

static double dot6(const double *a, const double *b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] + a[4] * b[4] + a[5] * b[5];
}

/* The instance's CSR A = J M^-1 J^T + eps I of the rows, by libdynamics
 * (dyn_assemble_rows: R = J M^-1/2, A = R R^T entry by entry, the bodies
 * of a pair in ascending order, so exactly symmetric; columns sorted);
 * eps = 1e-6 mean(diag), as in contact.  0, or -1 out of memory. */
static int sparse_matrix(const dyn_rows *rows, int n, int nb, const double *minv,
                         io_instance *inst) {
  dyn_system *sys = NULL;
  slv_problem p;
  long nnz = 0;
  int rc = -1;
  if (dyn_system_new(n, nb, DYN_SYS_CSR, 1, &sys, NULL, 0) != DYN_OK ||
      (nnz = dyn_system_csr_nnz(sys, rows, n)) < 0 ||
      dyn_system_reserve(sys, n, nb, DYN_SYS_CSR, nnz) != DYN_OK ||
      dyn_assemble_rows(sys, rows, n, nb, minv, SLV_CSR, &p) != DYN_OK)
    goto done;
  inst->Ap = malloc(((size_t)n + 1) * sizeof *inst->Ap);
  inst->Aj = malloc(((size_t)nnz + 1) * sizeof *inst->Aj);
  inst->Ax = malloc(((size_t)nnz + 1) * sizeof *inst->Ax);
  if (!inst->Ap || !inst->Aj || !inst->Ax) goto done;
  memcpy(inst->Ap, p.Ap, ((size_t)n + 1) * sizeof *inst->Ap);
  memcpy(inst->Aj, p.Aj, (size_t)nnz * sizeof *inst->Aj);
  memcpy(inst->Ax, p.Ax, (size_t)nnz * sizeof *inst->Ax);
  double tr = 0.0;
  for (int i = 0; i < n; i++)
    for (int t = inst->Ap[i]; t < inst->Ap[i + 1]; t++)
      if (inst->Aj[t] == i) tr += inst->Ax[t];
  double eps = 1e-6 * tr / n;
  for (int i = 0; i < n; i++)
    for (int t = inst->Ap[i]; t < inst->Ap[i + 1]; t++)
      if (inst->Aj[t] == i) inst->Ax[t] += eps;
  rc = 0;
done:
  dyn_system_free(sys);
  return rc;
}

/* The rows of nc contacts between neighbouring bodies (the file's header),
 * rows_per (1 or 3) per contact, into rows; the findex family's bounds, or
 * hi = inf (lo = 0 as allocated). */
static void sparse_rows(gsl_rng *r, int nc, int nb, int rows_per, gen_family family, dyn_rows *rows,
                        io_instance *inst) {
  for (int ci = 0; ci < nc; ci++) {
    contact c;
    pair_near(r, nb, &c);
    contact_geometry(r, &c);
    for (int q = 0; q < rows_per; q++) {
      int i = rows_per * ci + q;
      contact_row(&c, q, i, &rows[i]);
      if (family == GEN_SPARSE_FINDEX)
        findex_bounds(inst, i, q);
      else
        inst->hi[i] = INFINITY;
    }
  }
}

/* b = J v - |N(0, 0.5)| on normal rows, J v on tangent rows (v: 6 nb
 * values), then sparse-box's bounds lo_i = -U(0.1, 1), hi_i = U(0.1, 1). */
static void sparse_b(gsl_rng *r, int n, int nb, int rows_per, gen_family family,
                     const dyn_rows *rows, double *v, io_instance *inst) {
  for (int k = 0; k < 6 * nb; k++) v[k] = gsl_ran_gaussian(r, 1.0);
  for (int i = 0; i < n; i++) {
    for (int k = 0; k < 2; k++)
      if (rows[i].body[k] >= 0) inst->b[i] += dot6(rows[i].J[k], v + 6 * rows[i].body[k]);
    if (i % rows_per == 0) inst->b[i] -= fabs(gsl_ran_gaussian(r, 0.5));
  }
  if (family == GEN_SPARSE_BOX)
    for (int i = 0; i < n; i++) {
      inst->lo[i] = -(0.1 + 0.9 * gsl_rng_uniform(r));
      inst->hi[i] = 0.1 + 0.9 * gsl_rng_uniform(r);
    }
}

/* The sparse families (the file's header): sparse-contact, -box, -findex. */
static int gen_sparse(gsl_rng *r, int n, gen_family family, io_instance *inst) {
  int rows_per = family == GEN_SPARSE_FINDEX ? 3 : 1, nc = n / rows_per;
  int nb = nc, rc = -1;
  double *minv = malloc((size_t)6 * nb * sizeof *minv), *v = malloc((size_t)6 * nb * sizeof *v);
  dyn_rows *rows = malloc((size_t)n * sizeof *rows);
  inst->b = calloc((size_t)n, sizeof *inst->b);
  inst->lo = calloc((size_t)n, sizeof *inst->lo);
  inst->hi = malloc((size_t)n * sizeof *inst->hi);
  if (family == GEN_SPARSE_FINDEX) {
    inst->findex = malloc((size_t)n * sizeof *inst->findex);
    inst->mu = calloc((size_t)n, sizeof *inst->mu);
  }
  if (!minv || !v || !rows || !inst->b || !inst->lo || !inst->hi ||
      (family == GEN_SPARSE_FINDEX && (!inst->findex || !inst->mu)))
    goto done;
  draw_bodies(r, nb, minv);
  sparse_rows(r, nc, nb, rows_per, family, rows, inst);
  sparse_b(r, n, nb, rows_per, family, rows, v, inst);
  rc = sparse_matrix(rows, n, nb, minv, inst);
done:
  free(minv);
  free(v);
  free(rows);
  return rc;
}

/* ---- the interface (exp.h) ---------------------------------------------------- */

static int family_of(const char *name) {
  for (int f = 0; f < GEN_NFAMILIES; f++)
    if (strcmp(name, family_names[f]) == 0) return f;
  return -1;
}

static void family_list(char *out, size_t len) {
  size_t used = 0;
  out[0] = '\0';
  for (int f = 0; f < GEN_NFAMILIES && used < len; f++)
    used += (size_t)snprintf(out + used, len - used, "%s%s", f ? ", " : "", family_names[f]);
}

int exp_generate_check(const char *family, long n, long *rows, char *err, size_t errlen) {
  int f = family ? family_of(family) : -1;
  if (f < 0) {
    char list[256];
    family_list(list, sizeof list);
    snprintf(err, errlen, "unknown family '%s' (known: %s)", family ? family : "", list);
    return EXP_EXIT_USAGE;
  }
  long lo = has_findex((gen_family)f) ? 3 : 1;
  long hi = is_sparse((gen_family)f) ? EXP_GEN_MAX_N_SPARSE : EXP_GEN_MAX_N;
  if (n < lo || n > hi) {
    snprintf(err, errlen, "n = %ld: the family %s takes n in %ld..%ld%s", n, family, lo, hi,
             is_sparse((gen_family)f) ? "" : " (the sparse-* families go further)");
    return EXP_EXIT_USAGE;
  }
  if (rows) *rows = has_findex((gen_family)f) ? n - n % 3 : n;
  return EXP_EXIT_OK;
}

/* A new instance of n rows with no entries yet: dense A (zeros, lo = 0,
 * hi = inf) or an empty CSR one that gen_sparse fills. */
static io_instance *new_instance(gen_family f, int n) {
  if (!is_sparse(f)) return io_instance_new_dense(n);
  io_instance *inst = calloc(1, sizeof *inst);
  if (inst) {
    inst->n = n;
    inst->storage = SLV_CSR;
  }
  return inst;
}

static int fill_family(gen_family f, gsl_rng *r, io_instance *inst) {
  switch (f) {
  case GEN_SPD: return gen_spd(r, inst);
  case GEN_CONTACT: return gen_contact(r, inst, 0);
  case GEN_BOXED_FINDEX: return gen_contact(r, inst, 1);
  case GEN_BOX: return gen_box(r, inst);
  case GEN_JOINTS: return gen_joints(r, inst);
  case GEN_SCALED_SPD: return gen_scaled_spd(r, inst);
  default: return gen_sparse(r, inst->n, f, inst);
  }
}

int exp_generate(const char *family, long n, unsigned long seed, const char *name,
                 io_instance **out, char *err, size_t errlen) {
  long rows;
  *out = NULL;
  int rc = exp_generate_check(family, n, &rows, err, errlen);
  if (rc != EXP_EXIT_OK) return rc;
  gen_family f = (gen_family)family_of(family);
  /* the generator's state on this frame: gsl_rng_alloc's failure would go
   * through GSL's (global, aborting) error handler */
  void *state = malloc(gsl_rng_mt19937->size);
  gsl_rng r = { .type = gsl_rng_mt19937, .state = state };
  io_instance *inst = state ? new_instance(f, (int)rows) : NULL;
  if (!inst || (gsl_rng_set(&r, seed), fill_family(f, &r, inst)) != 0) {
    snprintf(err, errlen, "out of memory building %s n = %ld", family, rows);
    io_instance_free(inst);
    free(state);
    return EXP_EXIT_FAILED;
  }
  free(state);
  if (name)
    snprintf(inst->name, sizeof inst->name, "%s", name);
  else
    snprintf(inst->name, sizeof inst->name, "%s_%ld_s%lu", family, rows, seed);
  io_instance_classify(inst);
  *out = inst;
  return EXP_EXIT_OK;
}

/* name = the base name of path without its extension. */
static void name_of_path(const char *path, char *name, size_t len) {
  const char *base = strrchr(path, '/');
  snprintf(name, len, "%s", base ? base + 1 : path);
  char *dot = strrchr(name, '.');
  if (dot && dot != name) *dot = '\0';
}

/* Refuses (EXP_EXIT_USAGE) a path whose folder is missing or not writable,
 * or that exists when force is 0. */
static int check_out(const char *path, int force, char *err, size_t errlen) {
  char dir[PATH_MAX];
  const char *slash = strrchr(path, '/');
  if (!path[0] || snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) + 1 : 1,
                           slash ? path : ".") >= (int)sizeof dir) {
    snprintf(err, errlen, "%s: no file name, or the path is too long", path);
    return EXP_EXIT_USAGE;
  }
  struct stat sb;
  if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode) || access(dir, W_OK) != 0) {
    snprintf(err, errlen, "%s: the folder %s does not exist or is not writable", path, dir);
    return EXP_EXIT_USAGE;
  }
  if (!force && stat(path, &sb) == 0) {
    snprintf(err, errlen, "%s: file exists (use --force to overwrite)", path);
    return EXP_EXIT_USAGE;
  }
  return EXP_EXIT_OK;
}

/* Writes to a temporary file beside path, then links it into place (no
 * force: fails if path appeared meanwhile) or renames over it (force). */
static int write_atomic(const io_instance *inst, const char *path, int force, char *err,
                        size_t errlen) {
  char tmp[PATH_MAX], msg[512] = "";
  if (snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof tmp) {
    snprintf(err, errlen, "%s: path too long", path);
    return EXP_EXIT_USAGE;
  }
  slv_status st = io_write(tmp, IO_FMT_LCPLAB, inst, msg, sizeof msg);
  if (st != SLV_OK) {
    snprintf(err, errlen, "%s: %s", path, msg);
    unlink(tmp);
    return EXP_EXIT_USAGE; /* a write error, as every writer's (docs/lcplab.1, EXIT STATUS) */
  }
  if (!force && link(tmp, path) == 0) {
    unlink(tmp);
    return EXP_EXIT_OK;
  }
  if (!force && errno == EEXIST) {
    snprintf(err, errlen, "%s: file exists (use --force to overwrite)", path);
    unlink(tmp);
    return EXP_EXIT_USAGE;
  }
  /* force, or a file system without hard links */
  if (rename(tmp, path) != 0) {
    snprintf(err, errlen, "%s: cannot move %s into place: %s", path, tmp, strerror(errno));
    unlink(tmp);
    return EXP_EXIT_USAGE;
  }
  return EXP_EXIT_OK;
}

int exp_generate_file(const char *family, long n, unsigned long seed, const char *path, int force,
                      char *err, size_t errlen) {
  int rc = exp_generate_check(family, n, NULL, err, errlen);
  if (rc == EXP_EXIT_OK) rc = check_out(path, force, err, errlen);
  if (rc != EXP_EXIT_OK) return rc;
  char name[sizeof((io_instance *)0)->name];
  name_of_path(path, name, sizeof name);
  io_instance *inst = NULL;
  rc = exp_generate(family, n, seed, name, &inst, err, errlen);
  if (rc == EXP_EXIT_OK) rc = write_atomic(inst, path, force, err, errlen);
  io_instance_free(inst);
  return rc;
}
