/* test_assemble.c -- contact rows (contact.c) and the assembly of the
 * libsolvers problem (assemble.c):
 *   - every contact row's J against central finite differences of its
 *     position-level gap, for all four friction models;
 *   - the tangent basis rule;
 *   - A = J M^-1 J^T + diag(cfm) against an independent dense product,
 *     symmetric PSD (LAPACKE dsyev), dense = CSR entry by entry, the
 *     pyramid's auxiliary entries, b and the velocity update recomputed;
 *   - the same for rows alone with a diagonal M^-1 (dyn_assemble_rows,
 *     dyn_jmjt_dense: the generated contact families), the dense A exactly
 *     symmetric, and their input errors;
 *   - hand-solved scenes through libsolvers: a sphere at rest on a plane, a
 *     box on an incline (stick at 20 deg, slide at 40 deg) with box, cone
 *     and pyramid friction, restitution, Baumgarte, speculative gap;
 *   - size and input errors.
 * Bodies are filled by hand (no body.c): inertia of a box of half extents
 * (a, b, c) is m/3 diag(b^2 + c^2, a^2 + c^2, a^2 + b^2), of a sphere 2/5 m R^2. */
#include "dyn_constraint.h"
#include "slv.h"
#include "tst_dyn.h"
#include "tst_util.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_rng.h>
#include <lapacke.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const double GRAV = 9.81;
static const double PI = 3.14159265358979323846;

static tst_body plane(dyn_v3 n, double d) {
  tst_body b;
  memset(&b, 0, sizeof b);
  b.is_static = 1;
  b.shape.kind = DYN_SHAPE_PLANE;
  b.shape.normal = n;
  b.shape.offset = d;
  b.q = dyn_quat_identity();
  return b;
}

/* A contact of bodies a and b at world point p along normal n, depth
 * deep, naming no shapes (as dyn_collide_pair leaves it; material 0). */
static dyn_contact contact_between(int a, int b, dyn_v3 p, dyn_v3 n, double depth) {
  dyn_contact c = { .a = a, .b = b, .p = p, .normal = n, .depth = depth, .sa = -1, .sb = -1 };
  return c;
}


/* ---- finite differences of the position-level gap ------------------------ */

/* Directions of the rows of one contact, as the models define them (the
 * pyramid's d_h of docs/contact.md, "Friction models"); nd directions, aux
 * rows excluded. */
static int model_dirs(const dyn_contact_params *p, dyn_v3 n, dyn_v3 *d) {
  dyn_v3 t1, t2;
  dyn_contact_basis(n, &t1, &t2);
  d[0] = n;
  if (p->friction == DYN_FRICTION_NONE) return 1;
  if (p->friction != DYN_FRICTION_PYRAMID) {
    d[1] = t1;
    d[2] = t2;
    return 3;
  }
  for (int h = 1; h <= p->eta; h++) {
    double th = 2 * PI * (h - 1) / p->eta;
    d[h] = dyn_v3_add(dyn_v3_scale(t1, cos(th)), dyn_v3_scale(t2, sin(th)));
  }
  return 1 + p->eta;
}

static void test_jacobian_fd(void) {
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(rng, 2024);
  dyn_friction models[4] = { DYN_FRICTION_NONE, DYN_FRICTION_BOX, DYN_FRICTION_PYRAMID,
                             DYN_FRICTION_CONE };
  dyn_rows rows[16];
  dyn_v3 dirs[16];
  int checked = 0;
  for (int trial = 0; trial < 40; trial++) {
    tst_body B[2];
    B[0] = tst_box_body(tst_urand(rng, 0.5, 3), dyn_v3_make(0.3, 0.5, 0.2), tst_rvec(rng, 1),
                        tst_rquat(rng));
    B[1] = tst_box_body(tst_urand(rng, 0.5, 3), dyn_v3_make(0.4, 0.2, 0.6), tst_rvec(rng, 1),
                        tst_rquat(rng));
    int a_static = trial % 4 == 3; /* a is the world in a quarter of the trials */
    if (a_static) B[0].is_static = 1;
    dyn_contact c;
    c.a = 0;
    c.b = 1;
    c.p = tst_rvec(rng, 1.5);
    c.normal = tst_runit(rng);
    c.depth = tst_urand(rng, -0.01, 0.02);
    /* witness points fixed in each body, both at p now */
    dyn_v3 pa = dyn_quat_rotate_inv(B[0].q, dyn_v3_sub(c.p, B[0].r));
    dyn_v3 pb = dyn_quat_rotate_inv(B[1].q, dyn_v3_sub(c.p, B[1].r));
    /* a direction of motion (v_a, w_a, v_b, w_b) */
    dyn_v3 va = a_static ? dyn_v3_make(0, 0, 0) : tst_rvec(rng, 1),
           wa = a_static ? dyn_v3_make(0, 0, 0) : tst_rvec(rng, 2), vb = tst_rvec(rng, 1),
           wb = tst_rvec(rng, 2);
    dyn_contact_params prm = dyn_contact_params_default();
    prm.mu = 0.7;
    prm.eta = 5 + trial % 3;
    prm.friction = models[trial % 4];
    int m = tst_contact_fill(B, 2, &c, &prm, 0.01, rows, 0);
    CU_ASSERT_EQUAL_FATAL(m, dyn_contact_max_rows(&prm));
    int nd = model_dirs(&prm, c.normal, dirs);
    CU_ASSERT_EQUAL(m, prm.friction == DYN_FRICTION_PYRAMID ? nd + 1 : nd);
    for (int r = 0; r < nd; r++) {
      dyn_v3 e = dirs[r];
      /* g(eps) = e . (P_b(s(eps)) - P_a(s(eps))), s(eps) = (r + eps v, exp(eps w) q) */
      double eps = 1e-6, gpm[2];
      for (int sgn = 0; sgn < 2; sgn++) {
        double t = sgn ? -eps : eps;
        dyn_v3 ra = dyn_v3_axpy(B[0].r, t, va), rb = dyn_v3_axpy(B[1].r, t, vb);
        dyn_quat qa = tst_rotate_by(B[0].q, dyn_v3_scale(wa, t)),
                 qb = tst_rotate_by(B[1].q, dyn_v3_scale(wb, t));
        dyn_v3 Pa = dyn_v3_add(ra, dyn_quat_rotate(qa, pa)),
               Pb = dyn_v3_add(rb, dyn_quat_rotate(qb, pb));
        gpm[sgn] = dyn_v3_dot(e, dyn_v3_sub(Pb, Pa));
      }
      double fd = (gpm[0] - gpm[1]) / (2 * eps);
      const double *Ja = rows[r].J[0], *Jb = rows[r].J[1];
      double ua[6] = { va.x, va.y, va.z, wa.x, wa.y, wa.z },
             ub[6] = { vb.x, vb.y, vb.z, wb.x, wb.y, wb.z };
      double Jv = 0;
      for (int k = 0; k < 6; k++) Jv += Ja[k] * ua[k] + Jb[k] * ub[k];
      /* central differences: O(eps^2 |g'''|) ~ 1e-12, rounding ~ 1e-16 / eps ~ 1e-10 */
      TST_CLOSE(Jv, fd, 1e-7, 1e-7);
      CU_ASSERT_EQUAL(rows[r].body[0], a_static ? -1 : 0);
      CU_ASSERT_EQUAL(rows[r].body[1], 1);
      checked++;
    }
    if (prm.friction == DYN_FRICTION_PYRAMID) {
      const dyn_rows *x = &rows[m - 1];
      CU_ASSERT_EQUAL(x->kind, DYN_ROW_AUX);
      CU_ASSERT_EQUAL(x->body[0], -1);
      CU_ASSERT_EQUAL(x->body[1], -1);
      CU_ASSERT_EQUAL(x->findex, 0);
      CU_ASSERT_EQUAL(x->aux_first, 1);
      CU_ASSERT_EQUAL(x->aux_count, prm.eta);
    }
  }
  CU_ASSERT(checked > 100);
  gsl_rng_free(rng);
}

static void test_basis(void) {
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(rng, 7);
  for (int k = 0; k < 200; k++) {
    dyn_v3 n = tst_runit(rng), t1, t2;
    dyn_contact_basis(n, &t1, &t2);
    TST_CLOSE(dyn_v3_dot(t1, t1), 1, 1e-14, 0);
    TST_CLOSE(dyn_v3_dot(t2, t2), 1, 1e-14, 0);
    TST_CLOSE(dyn_v3_dot(t1, n), 0, 1e-14, 0);
    TST_CLOSE(dyn_v3_dot(t2, n), 0, 1e-14, 0);
    TST_CLOSE(dyn_v3_dot(t1, t2), 0, 1e-14, 0);
    /* (t1, t2, n) right-handed: t1 x t2 = n */
    dyn_v3 c = dyn_v3_cross(t1, t2);
    double cv[3] = { c.x, c.y, c.z }, nv[3] = { n.x, n.y, n.z };
    TST_VEC_CLOSE(cv, nv, 3, 1e-14, 0);
  }
  /* the incline rule, by hand: n = (sin a, 0, cos a) has smallest |n_y|, so
   * e = y and t1 = y x n = (cos a, 0, -sin a), the downhill direction */
  double a = 0.3;
  dyn_v3 t1, t2;
  dyn_contact_basis(dyn_v3_make(sin(a), 0, cos(a)), &t1, &t2);
  double got[3] = { t1.x, t1.y, t1.z }, want[3] = { cos(a), 0, -sin(a) };
  TST_VEC_CLOSE(got, want, 3, 1e-15, 0);
  /* n = z: ties x/y broken to x: t1 = x x z = -y, t2 = z x (-y) = x */
  dyn_contact_basis(dyn_v3_make(0, 0, 1), &t1, &t2);
  double g1[3] = { t1.x, t1.y, t1.z }, w1[3] = { 0, -1, 0 }, g2[3] = { t2.x, t2.y, t2.z },
         w2[3] = { 1, 0, 0 };
  TST_VEC_CLOSE(g1, w1, 3, 0, 0);
  TST_VEC_CLOSE(g2, w2, 3, 0, 0);
  gsl_rng_free(rng);
}

/* ---- A against an independent dense product ------------------------------ */

typedef struct scene {
  int nb, nc, nrows;
  tst_body B[8];
  dyn_contact C[12];
  dyn_rows rows[12 * 9];
  int base[12];
} scene;

/* nb - 1 dynamic random boxes and one static plane (index 0), nc contacts
 * between random pairs with random points and normals. */
static void random_scene(gsl_rng *rng, scene *s, int nb, int nc, const dyn_contact_params *prm) {
  s->nb = nb;
  s->nc = nc;
  s->B[0] = plane(dyn_v3_make(0, 0, 1), 0);
  for (int i = 1; i < nb; i++) {
    s->B[i] = tst_box_body(
        tst_urand(rng, 0.5, 4),
        dyn_v3_make(tst_urand(rng, 0.1, 0.5), tst_urand(rng, 0.1, 0.5), tst_urand(rng, 0.1, 0.5)),
        tst_rvec(rng, 2), tst_rquat(rng));
    s->B[i].v = tst_rvec(rng, 1);
    s->B[i].w = tst_rvec(rng, 1);
    s->B[i].f_ext = tst_rvec(rng, 3);
    s->B[i].t_ext = tst_rvec(rng, 3);
  }
  int row = 0;
  for (int k = 0; k < nc; k++) {
    int a = (int)gsl_rng_uniform_int(rng, (unsigned long)nb), b;
    do b = (int)gsl_rng_uniform_int(rng, (unsigned long)nb);
    while (b == a);
    dyn_contact *c = &s->C[k];
    c->a = a;
    c->b = b;
    c->p = tst_rvec(rng, 2);
    c->normal = tst_runit(rng);
    c->depth = tst_urand(rng, -0.01, 0.03);
    s->base[k] = row;
    int m = tst_contact_fill(s->B, nb, c, prm, 0.01, s->rows, row);
    CU_ASSERT_EQUAL_FATAL(m, dyn_contact_max_rows(prm));
    row += m;
  }
  s->nrows = row;
}

/* M^-1 (6nb x 6nb, column-major) computed here: R inv_I_b R^T by loops */
static void dense_minv(const scene *s, double *Mi) {
  int N = 6 * s->nb;
  memset(Mi, 0, sizeof(double) * N * N);
  for (int b = 0; b < s->nb; b++) {
    if (s->B[b].is_static) continue;
    dyn_m3 R = dyn_quat_to_m3(s->B[b].q);
    for (int k = 0; k < 3; k++) Mi[(6 * b + k) + N * (6 * b + k)] = s->B[b].inv_mass;
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) {
        double v = 0;
        for (int k = 0; k < 3; k++)
          for (int l = 0; l < 3; l++)
            v += R.m[3 * i + k] * s->B[b].inv_I_b.m[3 * k + l] * R.m[3 * j + l];
        Mi[(6 * b + 3 + i) + N * (6 * b + 3 + j)] = v;
      }
  }
}

/* dyn_system_velocity_form after a dense assembly (the view lcplab export
 * --global builds FCLIB's global problem from): every row's cfm (kept for
 * every storage, not only the factored one), J on the dynamic bodies (J
 * and Mi, uf: the test's own n x N, N x N, N), each dynamic body's M^-1
 * block and free velocity. */
static void check_velocity_form(const dyn_system *sys, const scene *s, int n, int N,
                                const double *J, const double *Mi, const double *uf) {
  dyn_velocity_form vf;
  CU_ASSERT_EQUAL_FATAL(dyn_system_velocity_form(sys, &vf), 1);
  CU_ASSERT_FATAL(vf.nrows == n && vf.nb == s->nb);
  for (int i = 0; i < n; i++) {
    TST_CLOSE(vf.cfm[i], s->rows[i].cfm, 0, 0);
    for (int k = 0; k < 2; k++) {
      int b = vf.rbody[2 * i + k];
      for (int c = 0; b >= 0 && c < 6; c++)
        TST_CLOSE(vf.J[12 * i + 6 * k + c], J[i + (size_t)n * (6 * b + c)], 0, 0);
    }
  }
  for (int b = 0; b < s->nb; b++) {
    if (s->B[b].is_static) continue;
    const double *m = vf.Minv + 10 * b;
    TST_CLOSE(m[0], Mi[6 * b + (size_t)N * (6 * b)], 0, 0);
    for (int r = 0; r < 3; r++)
      for (int c = 0; c < 3; c++)
        TST_CLOSE(m[1 + 3 * r + c], Mi[(6 * b + 3 + r) + (size_t)N * (6 * b + 3 + c)], 1e-14,
                  1e-14);
    for (int r = 0; r < 6; r++) TST_CLOSE(vf.ufree[6 * b + r], uf[6 * b + r], 1e-12, 1e-12);
  }
  dyn_velocity_form none;
  CU_ASSERT_EQUAL(dyn_system_velocity_form(NULL, &none), 0);
  CU_ASSERT_EQUAL(none.nrows, 0);
}

/* J (nrows x 6nb, column-major) from the rows */
static void dense_J(const scene *s, double *J) {
  int n = s->nrows, N = 6 * s->nb;
  memset(J, 0, sizeof(double) * n * N);
  for (int i = 0; i < n; i++)
    for (int k = 0; k < 2; k++) {
      int b = s->rows[i].body[k];
      if (b < 0) continue;
      for (int c = 0; c < 6; c++) J[i + n * (6 * b + c)] += s->rows[i].J[k][c];
    }
}

/* The test's own dense reference of a scene: J (n x N), M^-1 (N x N),
 * M^-1 J^T (N x n), A = J M^-1 J^T + diag(cfm) (+ the pyramid's blocks),
 * the free velocities u_free (N) and max |A_ij|. */
typedef struct refs {
  int n, N;
  double *J, *Mi, *MJt, *Aref, *uf;
  double amax;
} refs;

static void refs_free(refs *r) {
  free(r->J);
  free(r->Mi);
  free(r->MJt);
  free(r->Aref);
  free(r->uf);
}

/* The pyramid's E, -E^T, mu blocks (docs/contact.md, "Friction models"),
 * placed by the known row layout (n, beta_1..beta_eta, aux) of each contact. */
static void pyramid_blocks(const scene *s, double *A) {
  int n = s->nrows;
  for (int k = 0; k < s->nc; k++) {
    int b0 = s->base[k], eta = 0;
    while (s->rows[b0 + 1 + eta].kind != DYN_ROW_AUX) eta++;
    int l = b0 + 1 + eta;
    A[l + n * b0] += s->rows[l].mu;
    for (int hh = b0 + 1; hh < l; hh++) {
      A[l + n * hh] -= 1;
      A[hh + n * l] += 1;
    }
  }
}

/* u_free = u + h M^-1 (f_ext + m g, t_ext) per dynamic body, 0 for static. */
static void free_velocity(const scene *s, dyn_v3 g, double h, const double *Mi, double *uf) {
  int N = 6 * s->nb;
  for (int b = 0; b < s->nb; b++) {
    const tst_body *B = &s->B[b];
    double f[6] = { B->f_ext.x + B->mass * g.x,
                    B->f_ext.y + B->mass * g.y,
                    B->f_ext.z + B->mass * g.z,
                    B->t_ext.x,
                    B->t_ext.y,
                    B->t_ext.z };
    double u[6] = { B->v.x, B->v.y, B->v.z, B->w.x, B->w.y, B->w.z };
    for (int r = 0; r < 6; r++) {
      double v = 0;
      for (int c = 0; c < 6; c++) v += Mi[(6 * b + r) + N * (6 * b + c)] * f[c];
      uf[6 * b + r] = B->is_static ? 0 : u[r] + h * v;
    }
  }
}

static void scene_refs(const scene *s, dyn_friction fr, dyn_v3 g, double h, refs *r) {
  int n = s->nrows, N = 6 * s->nb;
  r->n = n;
  r->N = N;
  r->J = malloc(sizeof(double) * n * N);
  r->Mi = malloc(sizeof(double) * N * N);
  r->Aref = calloc((size_t)n * n, sizeof(double));
  r->MJt = calloc((size_t)N * n, sizeof(double));
  r->uf = malloc(sizeof(double) * N);
  dense_J(s, r->J);
  dense_minv(s, r->Mi);
  /* MJt = M^-1 J^T, Aref = J MJt + diag(cfm) */
  for (int c = 0; c < n; c++)
    for (int q = 0; q < N; q++) {
      double v = 0;
      for (int k = 0; k < N; k++) v += r->Mi[q + N * k] * r->J[c + n * k];
      r->MJt[q + N * c] = v;
    }
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      double v = 0;
      for (int k = 0; k < N; k++) v += r->J[i + n * k] * r->MJt[k + N * j];
      r->Aref[i + n * j] = v + (i == j ? s->rows[i].cfm : 0);
    }
  if (fr == DYN_FRICTION_PYRAMID) pyramid_blocks(s, r->Aref);
  r->amax = 0;
  for (int i = 0; i < n * n; i++) r->amax = fmax(r->amax, fabs(r->Aref[i]));
  free_velocity(s, g, h, r->Mi, r->uf);
}

/* b = J u_free - rhs */
static void check_b(const scene *s, const refs *r, const double *b) {
  double *bref = malloc(sizeof(double) * r->n);
  for (int i = 0; i < r->n; i++) {
    double v = 0;
    for (int k = 0; k < r->N; k++) v += r->J[i + r->n * k] * r->uf[k];
    bref[i] = v - s->rows[i].rhs;
  }
  TST_VEC_CLOSE(b, bref, r->n, 1e-12, 1e-12);
  free(bref);
}

/* Symmetric (|A - A^T| <= asym_tol max|A|), PSD: eigenvalues >= -1e-12
 * max|lambda| (LAPACKE dsyev). */
static void check_sym_psd(const double *A, int n, double amax, double asym_tol) {
  double asym = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) asym = fmax(asym, fabs(A[i + n * j] - A[j + n * i]));
  CU_ASSERT(asym <= asym_tol * amax);
  double *ev = malloc(sizeof(double) * n), *W = malloc(sizeof(double) * n * n);
  memcpy(W, A, sizeof(double) * n * n);
  CU_ASSERT_EQUAL(LAPACKE_dsyev(LAPACK_COL_MAJOR, 'N', 'U', n, W, n, ev), 0);
  double emax = 0;
  for (int i = 0; i < n; i++) emax = fmax(emax, fabs(ev[i]));
  CU_ASSERT(ev[0] >= -1e-12 * emax);
  free(ev);
  free(W);
}

/* The velocity update with a random x, u+ = u + M^-1 (J^T x + h f), and
 * w = J u+ - rhs equal to A x + b (the definition of the problem). */
static void check_update(const dyn_system *sys, const scene *s, dyn_friction fr, dyn_v3 g, double h,
                         const refs *r, const slv_problem *pd) {
  int n = r->n, N = r->N;
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(rng, 99);
  double *x = malloc(sizeof(double) * n), *up = malloc(sizeof(double) * N),
         *got = malloc(sizeof(double) * N), *w = malloc(sizeof(double) * n);
  for (int i = 0; i < n; i++) x[i] = tst_urand(rng, -1, 1);
  for (int q = 0; q < N; q++) {
    double v = 0;
    for (int i = 0; i < n; i++) v += r->MJt[q + N * i] * x[i];
    up[q] = r->uf[q] + v;
  }
  tst_body B2[8];
  memcpy(B2, s->B, sizeof(tst_body) * s->nb);
  CU_ASSERT_EQUAL(tst_apply_impulse(sys, B2, s->nb, x, h, g), DYN_OK);
  for (int b = 0; b < s->nb; b++) {
    double u[6] = { B2[b].v.x, B2[b].v.y, B2[b].v.z, B2[b].w.x, B2[b].w.y, B2[b].w.z };
    memcpy(got + 6 * b, u, sizeof u);
    if (s->B[b].is_static) memcpy(up + 6 * b, u, sizeof u); /* untouched, checked below */
  }
  TST_VEC_CLOSE(got, up, N, 1e-12, 1e-12);
  CU_ASSERT(memcmp(&B2[0], &s->B[0], sizeof(tst_body)) == 0);
  slv_problem_w(pd, x, w);
  for (int i = 0; i < n; i++) {
    if (s->rows[i].kind == DYN_ROW_AUX) continue; /* lambda's w is mu x_n - sum x_h, not J u */
    double v = 0;
    for (int k = 0; k < N; k++) v += r->J[i + n * k] * up[k];
    double cfm_x = s->rows[i].cfm * x[i];
    double pyr = 0; /* beta rows add lambda (the E block) */
    if (fr == DYN_FRICTION_PYRAMID)
      for (int l = i + 1; l < n; l++)
        if (s->rows[l].kind == DYN_ROW_AUX) {
          if (s->rows[l].base == s->rows[i].base && i != s->rows[i].base) pyr = x[l];
          break;
        }
    TST_CLOSE(w[i], v - s->rows[i].rhs + cfm_x + pyr, 1e-11, 1e-11);
  }
  gsl_rng_free(rng);
  free(x);
  free(up);
  free(got);
  free(w);
}

/* A CSR problem pc against the dense Ad: entry by entry (within tol),
 * columns sorted, nnz as dyn_system_csr_nnz counts it (every body
 * dynamic: an upper bound when a fixed body is in the rows, fixed). */
static void check_csr_dense(dyn_system *sys, const scene *s, const slv_problem *pc,
                            const double *Ad, double tol, int fixed) {
  int n = s->nrows;
  double *Ac = calloc((size_t)n * n, sizeof(double));
  CU_ASSERT_EQUAL(pc->storage, SLV_CSR);
  CU_ASSERT_EQUAL(pc->Ap[0], 0);
  long count = dyn_system_csr_nnz(sys, s->rows, n);
  CU_ASSERT(fixed ? count >= pc->Ap[n] : count == pc->Ap[n]);
  int sorted = 1;
  for (int i = 0; i < n; i++)
    for (int p = pc->Ap[i]; p < pc->Ap[i + 1]; p++) {
      if (p > pc->Ap[i] && pc->Aj[p] <= pc->Aj[p - 1]) sorted = 0;
      Ac[i + n * pc->Aj[p]] += pc->Ax[p];
    }
  CU_ASSERT(sorted);
  TST_VEC_CLOSE(Ac, Ad, n * n, tol, 0);
  free(Ac);
}

/* The bounds, findex and cones of p against the rows. */
static void check_couplings(const scene *s, dyn_friction fr, const slv_problem *p) {
  int ncone = 0;
  for (int i = 0; i < s->nrows; i++) {
    const dyn_rows *r = &s->rows[i];
    if (fr == DYN_FRICTION_BOX && r->findex >= 0) {
      CU_ASSERT_EQUAL(p->findex[i], r->base);
      TST_CLOSE(p->mu[i], r->mu, 0, 0);
    } else {
      CU_ASSERT_EQUAL(p->findex[i], -1);
    }
    if (r->kind == DYN_ROW_CONE_N) {
      CU_ASSERT_EQUAL(p->cone_rows[ncone], i);
      TST_CLOSE(p->cone_mu[ncone], r->mu, 0, 0);
      ncone++;
    }
  }
  CU_ASSERT_EQUAL(p->ncones, ncone);
}

static void check_scene(const scene *s, dyn_friction fr) {
  int n = s->nrows, N = 6 * s->nb;
  dyn_v3 g = dyn_v3_make(0.3, -0.2, -GRAV);
  double h = 0.01;
  refs r;
  scene_refs(s, fr, g, h, &r);
  dyn_system *sys = NULL;
  char msg[200];
  CU_ASSERT_EQUAL_FATAL(
      dyn_system_new(n, s->nb, DYN_SYS_DENSE | DYN_SYS_CSR, (long)n * n, &sys, msg, sizeof msg),
      DYN_OK);
  slv_problem pd, pc;
  CU_ASSERT_EQUAL_FATAL(tst_assemble(sys, s->B, s->nb, s->rows, n, h, g, SLV_DENSE, &pd), DYN_OK);
  CU_ASSERT_EQUAL(pd.n, n);
  CU_ASSERT_EQUAL(pd.lda, n);
  double *Ad = malloc(sizeof(double) * n * n);
  memcpy(Ad, pd.A, sizeof(double) * n * n);
  /* two orderings of the same sums of a few products: 1e-13 relative */
  TST_VEC_CLOSE(Ad, r.Aref, n * n, 1e-13 * r.amax, 0);
  check_b(s, &r, pd.b);
  check_velocity_form(sys, s, n, N, r.J, r.Mi, r.uf);
  if (fr != DYN_FRICTION_PYRAMID) check_sym_psd(Ad, n, r.amax, 1e-14);
  check_update(sys, s, fr, g, h, &r, &pd);
  /* CSR: entry by entry equal to dense, no entry outside the structure */
  CU_ASSERT_EQUAL_FATAL(tst_assemble(sys, s->B, s->nb, s->rows, n, h, g, SLV_CSR, &pc), DYN_OK);
  check_csr_dense(sys, s, &pc, Ad, 1e-14 * r.amax, 0);
  TST_VEC_CLOSE(pc.b, pd.b, n, 0, 0);
  check_couplings(s, fr, &pc);
  char vmsg[160];
  CU_ASSERT_EQUAL(slv_problem_validate(&pd, vmsg, sizeof vmsg), SLV_OK);
  CU_ASSERT_EQUAL(slv_problem_validate(&pc, vmsg, sizeof vmsg), SLV_OK);
  dyn_system_free(sys);
  free(Ad);
  refs_free(&r);
}

static void test_A_random(void) {
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(rng, 12345);
  dyn_friction models[4] = { DYN_FRICTION_NONE, DYN_FRICTION_BOX, DYN_FRICTION_CONE,
                             DYN_FRICTION_PYRAMID };
  scene *s = malloc(sizeof *s);
  for (int trial = 0; trial < 24; trial++) {
    dyn_contact_params prm = dyn_contact_params_default();
    prm.friction = models[trial % 4];
    prm.mu = tst_urand(rng, 0, 1);
    prm.eta = 4 + trial % 3;
    prm.restitution = 0.5;
    prm.k_erp = 0.3;
    prm.cfm = trial % 2 ? 1e-6 : 0;
    random_scene(rng, s, 3 + trial % 6, 2 + trial % 11, &prm);
    check_scene(s, prm.friction);
  }
  free(s);
  gsl_rng_free(rng);
}

/* ---- isotropic bodies: the world I^-1 and K exactly ---------------------- */

/* A rotated ball and a rotated cube (I_b = I 1) on a plane and on each
 * other, and an anisotropic box: for the isotropic bodies R (s 1) R^T is
 * s 1 exactly (dyn_body_inv_inertia_world, the assembly's M^-1 block:
 * s on the diagonal, +0 off it), and K's angular half of each of their
 * rows is fl(s J_ang) to the bit, signs of zero too (pgs_wide's
 * isotropic layout forms it so: pgs_wide.c, "Layout"); the anisotropic
 * box's is R I_b^-1 R^T J_ang up to rounding. */
static void test_isotropic_exact(void) {
  dyn_quat q1 = dyn_quat_normalize(dyn_quat_make(0.3, -0.5, 0.7, 0.2));
  dyn_quat q2 = dyn_quat_normalize(dyn_quat_make(-0.8, 0.1, 0.35, -0.4));
  tst_body B[4] = { plane(dyn_v3_make(0, 0, 1), 0), tst_ball_body(2, 0.5, dyn_v3_make(-1, 0, 0.5)),
                    tst_box_body(3, dyn_v3_make(0.3, 0.3, 0.3), dyn_v3_make(1, 0, 0.3), q2),
                    tst_box_body(5, dyn_v3_make(0.4, 0.3, 0.2), dyn_v3_make(3, 0, 0.2), q1) };
  B[1].q = q1;
  /* contacts: ball and plane, cube corners and plane, ball and cube, box
   * and plane (points off the centres, normals along axes and not) */
  dyn_contact C[5] = { contact_between(0, 1, dyn_v3_make(-1.1, 0.2, 0), dyn_v3_make(0, 0, 1), 0.0),
                       contact_between(0, 2, dyn_v3_make(0.8, 0.25, 0), dyn_v3_make(0, 0, 1), 0.0),
                       contact_between(0, 2, dyn_v3_make(1.2, -0.3, 0), dyn_v3_make(0, 0, 1), 0.0),
                       contact_between(1, 2, dyn_v3_make(0.0, 0.1, 0.45), dyn_v3_make(0.8, 0, 0.6),
                                       0.0),
                       contact_between(0, 3, dyn_v3_make(3.3, 0.2, 0), dyn_v3_make(0, 0, 1), 0.0) };
  dyn_contact_params prm = dyn_contact_params_default();
  prm.friction = DYN_FRICTION_BOX;
  prm.mu = 0.5;
  dyn_rows rows[32];
  int n = 0;
  for (int k = 0; k < 5; k++) n += tst_contact_fill(B, 4, &C[k], &prm, 0.01, rows, n);
  CU_ASSERT_FATAL(n == 15);
  for (int b = 1; b <= 2; b++) {
    double si = B[b].inv_I_b.m[0];
    dyn_m3 W = tst_body_inv_inertia_world(&B[b]), S = dyn_m3_diag(si, si, si);
    CU_ASSERT(memcmp(W.m, S.m, sizeof W.m) == 0);
    dyn_m3 Iw = tst_body_inertia_world(&B[b]);
    CU_ASSERT(memcmp(Iw.m, B[b].I_b.m, sizeof Iw.m) == 0);
  }
  dyn_system *sys = NULL;
  CU_ASSERT_EQUAL_FATAL(dyn_system_new(n, 4, DYN_SYS_FACTORED, 0, &sys, NULL, 0), DYN_OK);
  slv_problem p;
  CU_ASSERT_EQUAL_FATAL(
      tst_assemble(sys, B, 4, rows, n, 0.01, dyn_v3_make(0, 0, -GRAV), SLV_FACTORED, &p), DYN_OK);
  dyn_velocity_form vf;
  CU_ASSERT_EQUAL_FATAL(dyn_system_velocity_form(sys, &vf), 1);
  int negzero = 0, iso = 0;
  for (int i = 0; i < n; i++)
    for (int k = 0; k < 2; k++) {
      int b = p.fblk[2 * i + k];
      if (b < 0) continue;
      const double *J = p.fJ + 12 * i + 6 * k, *K = p.fK + 12 * i + 6 * k;
      const double *Mi = vf.Minv + 10 * b;
      if (b == 3) { /* anisotropic: the general product */
        dyn_m3 W = tst_body_inv_inertia_world(&B[3]);
        dyn_v3 ref = dyn_m3_mulv(W, dyn_v3_make(J[3], J[4], J[5]));
        double r[3] = { ref.x, ref.y, ref.z };
        TST_VEC_CLOSE(K + 3, r, 3, 1e-14 * W.m[8], 1e-14);
        continue;
      }
      double si = B[b].inv_I_b.m[0], S[9] = { si, 0, 0, 0, si, 0, 0, 0, si };
      CU_ASSERT(memcmp(Mi + 1, S, sizeof S) == 0);
      for (int c = 3; c < 6; c++) {
        double want = si * J[c];
        CU_ASSERT(memcmp(&K[c], &want, sizeof want) == 0);
        negzero += J[c] == 0.0 && signbit(J[c]);
      }
      iso++;
    }
  CU_ASSERT(iso == 15);   /* 5 rows on the ball, 10 on the cube (the ball-cube contact twice) */
  CU_ASSERT(negzero > 0); /* a -0 of J_ang kept in K */
  dyn_system_free(sys);
}

/* ---- rows without a world: dyn_assemble_rows, dyn_jmjt_dense ------------ */

/* A = J diag(minv) J^T + diag(cfm) (+ the pyramid's blocks) by the test's
 * own loops, into A (n x n); J dense from the rows. */
static void diag_ref(const scene *s, dyn_friction fr, const double *minv, const double *J,
                     double *A) {
  int n = s->nrows, N = 6 * s->nb;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      double v = 0;
      for (int k = 0; k < N; k++) v += J[i + n * k] * minv[k] * J[j + n * k];
      A[i + n * j] = v + (i == j ? s->rows[i].cfm : 0);
    }
  if (fr == DYN_FRICTION_PYRAMID) pyramid_blocks(s, A);
}

/* dyn_assemble_rows, dense and CSR, against diag_ref; the dense A exactly
 * symmetric without the pyramid (the same products, bodies in the same
 * order); b = -rhs; dyn_jmjt_dense against the same product without cfm. */
static void check_rows_alone(const scene *s, dyn_friction fr, const double *minv, int fixed) {
  int n = s->nrows, N = 6 * s->nb;
  double *J = malloc(sizeof(double) * n * N), *Aref = malloc(sizeof(double) * n * n);
  double *Ad = malloc(sizeof(double) * n * n), *G = malloc(sizeof(double) * n * n);
  dense_J(s, J);
  diag_ref(s, fr, minv, J, Aref);
  double amax = 0;
  for (int i = 0; i < n * n; i++) amax = fmax(amax, fabs(Aref[i]));
  dyn_system *sys = NULL;
  CU_ASSERT_EQUAL_FATAL(
      dyn_system_new(n, s->nb, DYN_SYS_DENSE | DYN_SYS_CSR, (long)n * n, &sys, NULL, 0), DYN_OK);
  slv_problem pd, pc;
  CU_ASSERT_EQUAL_FATAL(dyn_assemble_rows(sys, s->rows, n, s->nb, minv, SLV_DENSE, &pd), DYN_OK);
  memcpy(Ad, pd.A, sizeof(double) * n * n);
  TST_VEC_CLOSE(Ad, Aref, n * n, 1e-13 * amax, 0);
  if (fr != DYN_FRICTION_PYRAMID) check_sym_psd(Ad, n, amax, 0.0);
  for (int i = 0; i < n; i++) TST_CLOSE(pd.b[i], -s->rows[i].rhs, 0, 0);
  dyn_velocity_form vf;
  CU_ASSERT_EQUAL(dyn_system_velocity_form(sys, &vf), 0); /* no bodies' state to apply to */
  CU_ASSERT_EQUAL_FATAL(dyn_assemble_rows(sys, s->rows, n, s->nb, minv, SLV_CSR, &pc), DYN_OK);
  check_csr_dense(sys, s, &pc, Ad, 1e-14 * amax, fixed);
  check_couplings(s, fr, &pc);
  /* the dense form by BLAS, without the cfm and the pyramid's entries */
  if (fr != DYN_FRICTION_PYRAMID) {
    for (int i = 0; i < n; i++) Aref[i + n * i] -= s->rows[i].cfm;
    dyn_jmjt_dense(n, N, J, minv, G);
    TST_VEC_CLOSE(G, Aref, n * n, 1e-13 * amax, 0);
    check_sym_psd(G, n, amax, 0.0);
  }
  dyn_system_free(sys);
  free(J);
  free(Aref);
  free(Ad);
  free(G);
}

static void test_rows_alone(void) {
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(rng, 777);
  dyn_friction models[4] = { DYN_FRICTION_NONE, DYN_FRICTION_BOX, DYN_FRICTION_CONE,
                             DYN_FRICTION_PYRAMID };
  scene *s = malloc(sizeof *s);
  double minv[6 * 8];
  for (int trial = 0; trial < 12; trial++) {
    dyn_contact_params prm = dyn_contact_params_default();
    prm.friction = models[trial % 4];
    prm.mu = tst_urand(rng, 0, 1);
    prm.cfm = trial % 2 ? 1e-6 : 0;
    random_scene(rng, s, 3 + trial % 6, 2 + trial % 11, &prm);
    for (int k = 0; k < 6 * s->nb; k++) minv[k] = tst_urand(rng, 0.2, 3);
    int fixed = trial % 3 == 0;
    if (fixed) memset(minv + 6, 0, 6 * sizeof *minv); /* body 1 fixed */
    check_rows_alone(s, prm.friction, minv, fixed);
  }
  /* input errors: each refused with a message naming it */
  dyn_system *sys = NULL;
  CU_ASSERT_EQUAL_FATAL(dyn_system_new(s->nrows, s->nb, DYN_SYS_CSR, 0, &sys, NULL, 0), DYN_OK);
  slv_problem p;
  CU_ASSERT_EQUAL(dyn_assemble_rows(sys, s->rows, s->nrows, s->nb, NULL, SLV_CSR, &p),
                  DYN_ERR_INPUT);
  CU_ASSERT(strstr(dyn_system_message(sys), "minv is NULL") != NULL);
  minv[7] = -1;
  CU_ASSERT_EQUAL(dyn_assemble_rows(sys, s->rows, s->nrows, s->nb, minv, SLV_CSR, &p),
                  DYN_ERR_INPUT);
  CU_ASSERT(strstr(dyn_system_message(sys), "minv[7]=-1") != NULL);
  minv[7] = 1;
  CU_ASSERT_EQUAL(dyn_assemble_rows(sys, s->rows, s->nrows, s->nb, minv, SLV_FACTORED, &p),
                  DYN_ERR_INPUT);
  CU_ASSERT(strstr(dyn_system_message(sys), "dense or CSR only") != NULL);
  CU_ASSERT_EQUAL(dyn_assemble_rows(sys, s->rows, s->nrows, s->nb, minv, SLV_DENSE, &p),
                  DYN_ERR_INPUT);
  CU_ASSERT(strstr(dyn_system_message(sys), "not reserved") != NULL);
  dyn_system_free(sys);
  free(s);
  gsl_rng_free(rng);
}

/* ---- solving small scenes ---------------------------------------------- */

static slv_status solve(const char *name, const slv_problem *p, double *x, slv_result *res) {
  const slv_solver *sv = slv_solver_find(name);
  CU_ASSERT_PTR_NOT_NULL_FATAL(sv);
  slv_options o = slv_options_default();
  o.tol = 1e-13;
  o.max_iter = 200000;
  slv_workspace *ws = NULL;
  if (slv_workspace_new(sv, p->n, &o, &ws) != SLV_OK) return SLV_ERR_NOMEM;
  memset(x, 0, sizeof(double) * p->n);
  slv_status st = slv_solve(ws, p, &o, x, NULL, res);
  if (st != SLV_CONVERGED) fprintf(stderr, "%s: %s (%s)\n", name, slv_status_str(st), res->message);
  slv_workspace_free(ws);
  return st;
}

/* one step: fill the contacts, assemble, solve, apply; returns the status */
static slv_status step(tst_body *B, int nb, const dyn_contact *C, int nc,
                       const dyn_contact_params *prm, double h, const char *solver, double *x) {
  dyn_rows rows[64];
  int n = 0;
  for (int k = 0; k < nc; k++) {
    int m = tst_contact_fill(B, nb, &C[k], prm, h, rows, n);
    CU_ASSERT_FATAL(m > 0);
    n += m;
  }
  dyn_system *sys = NULL;
  CU_ASSERT_EQUAL_FATAL(dyn_system_new(n, nb, DYN_SYS_DENSE, 0, &sys, NULL, 0), DYN_OK);
  slv_problem p;
  dyn_v3 g = dyn_v3_make(0, 0, -GRAV);
  CU_ASSERT_EQUAL_FATAL(tst_assemble(sys, B, nb, rows, n, h, g, SLV_DENSE, &p), DYN_OK);
  slv_result res;
  slv_status st = solve(solver, &p, x, &res);
  CU_ASSERT_EQUAL(tst_apply_impulse(sys, B, nb, x, h, g), DYN_OK);
  dyn_system_free(sys);
  return st;
}

static void test_sphere_on_plane(void) {
  /* Plane z = 0 (static, index 0), ball m = 2, R = 0.5 touching it at rest.
   * One normal row, J = (0,0,1 | r_b x n = (0,0,-0.5) x (0,0,1) = 0), so
   * A = 1/m and b = J u_free = -g h: x = m g h, v+ = 0 (by hand). */
  const char *solvers[2] = { "lemke", "pgs" };
  for (int s = 0; s < 2; s++) {
    tst_body B[2] = { plane(dyn_v3_make(0, 0, 1), 0),
                      tst_ball_body(2, 0.5, dyn_v3_make(0, 0, 0.5)) };
    dyn_contact c = contact_between(0, 1, dyn_v3_make(0, 0, 0), dyn_v3_make(0, 0, 1), 0.0);
    dyn_contact_params prm = dyn_contact_params_default();
    double x[1], h = 0.01;
    CU_ASSERT_EQUAL(step(B, 2, &c, 1, &prm, h, solvers[s], x), SLV_CONVERGED);
    TST_CLOSE(x[0], 2 * GRAV * h, 1e-15, 1e-12);
    TST_CLOSE(B[1].v.z, 0, 1e-14, 0);
    TST_CLOSE(B[1].v.x, 0, 0, 0);
    TST_CLOSE(B[1].w.x, 0, 0, 0);
    TST_CLOSE(B[1].w.y, 0, 0, 0);
  }
}

/* Box (half 0.4, 0.3, 0.2; m = 3) resting on the plane through the origin
 * with normal n = (sin a, 0, cos a), its bottom face on the plane: q =
 * rotation by a about y (R e_z = n), centre 0.2 n, corners
 * r + R (+-0.4, +-0.3, -0.2), depth 0.  t1 = (cos a, 0, -sin a) is downhill
 * (test_basis).  Free velocity h g: normal part -h g cos a, downhill part
 * h g sin a.  Sticking (tan a < mu): v+ = 0.  Sliding: the normal impulse
 * sum is m g h cos a, friction mu times that opposes the slide, and a pure
 * translation is consistent (the tipping moment mu hz sum N = 0.1 sum N is
 * balanced by unequal normals, since hx = 0.4 > mu hz): v+ = h g (sin a -
 * mu cos a) t1. */
static void incline(double deg, dyn_friction fr, const char *solver) {
  double a = deg * PI / 180, mu = 0.5, h = 0.01;
  dyn_v3 n = dyn_v3_make(sin(a), 0, cos(a)), t1 = dyn_v3_make(cos(a), 0, -sin(a));
  dyn_v3 half = dyn_v3_make(0.4, 0.3, 0.2);
  dyn_quat q = dyn_quat_axis_angle(dyn_v3_make(0, 1, 0), a);
  tst_body B[2] = { plane(n, 0), tst_box_body(3, half, dyn_v3_scale(n, half.z), q) };
  dyn_contact C[4];
  for (int k = 0; k < 4; k++) {
    dyn_v3 corner = dyn_v3_make(k & 1 ? half.x : -half.x, k & 2 ? half.y : -half.y, -half.z);
    C[k].a = 0;
    C[k].b = 1;
    C[k].p = dyn_v3_add(B[1].r, dyn_quat_rotate(q, corner));
    C[k].normal = n;
    C[k].depth = 0;
  }
  dyn_contact_params prm = dyn_contact_params_default();
  prm.friction = fr;
  prm.mu = mu;
  prm.eta = 4;
  double x[64];
  CU_ASSERT_EQUAL(step(B, 2, C, 4, &prm, h, solver, x), SLV_CONVERGED);
  double vt = dyn_v3_dot(B[1].v, t1), vn = dyn_v3_dot(B[1].v, n), vy = B[1].v.y;
  double wn = dyn_v3_norm(B[1].w);
  double hg = h * GRAV;
  /* the solvers stop at res_rel <= 1e-13 on velocities of size h g ~ 0.1:
   * 1e-9 h g leaves room for the conditioning of 4 coplanar contacts */
  if (tan(a) < mu) {
    TST_CLOSE(vt, 0, 1e-9 * hg, 0);
  } else {
    TST_CLOSE(vt, hg * (sin(a) - mu * cos(a)), 0, 1e-6);
  }
  TST_CLOSE(vn, 0, 1e-9 * hg, 0);
  TST_CLOSE(vy, 0, 1e-9 * hg, 0);
  TST_CLOSE(wn, 0, 1e-8 * hg, 0);
  /* the normal impulses add up to m g h cos a (v_n+ = 0 from -h g cos a) */
  double sn = 0;
  int m = dyn_contact_max_rows(&prm);
  for (int k = 0; k < 4; k++) sn += x[m * k];
  TST_CLOSE(sn, 3 * hg * cos(a), 0, 1e-8);
}

static void test_incline_stick(void) {
  incline(20, DYN_FRICTION_BOX, "pgs");
  incline(20, DYN_FRICTION_CONE, "nsgs");
  incline(20, DYN_FRICTION_PYRAMID, "lemke");
}

static void test_incline_slide(void) {
  incline(40, DYN_FRICTION_BOX, "pgs");
  incline(40, DYN_FRICTION_CONE, "nsgs");
  incline(40, DYN_FRICTION_PYRAMID, "lemke");
}

/* Ball m = 1, R = 0.1 on the plane z = 0, h = 0.01.  With v_n the pre-step
 * normal velocity and u_free = v_n - h g, the single row reads
 * w = (v+) - rhs, v+ = u_free + x / m, so an active contact gives
 * v+ = rhs and x = m (rhs - u_free). */
static void ball_case(double vz, double depth, double e, double thr, double k_erp, double slop,
                      double vmax, double want_v, const char *what) {
  double h = 0.01, m = 1;
  tst_body B[2] = { plane(dyn_v3_make(0, 0, 1), 0),
                    tst_ball_body(m, 0.1, dyn_v3_make(0, 0, 0.1 - depth)) };
  B[1].v = dyn_v3_make(0, 0, vz);
  dyn_contact c = contact_between(0, 1, dyn_v3_make(0, 0, -depth / 2), dyn_v3_make(0, 0, 1), depth);
  dyn_contact_params prm = dyn_contact_params_default();
  prm.restitution = e;
  prm.rest_threshold = thr;
  prm.k_erp = k_erp;
  prm.slop = slop;
  prm.max_correct_vel = vmax;
  double x[1];
  CU_ASSERT_EQUAL(step(B, 2, &c, 1, &prm, h, "lemke", x), SLV_CONVERGED);
  if (!tst_close(B[1].v.z, want_v, 1e-13, 1e-13, what, __FILE__, __LINE__)) CU_FAIL(what);
  TST_CLOSE(x[0], m * (want_v - (vz - h * GRAV)), 1e-13, 1e-12);
}

static void test_restitution_baumgarte(void) {
  /* e = 1 at 2 m/s: rhs = -e v_n = 2, v+ = 2 (the pre-step velocity is
   * reflected, so gravity over the step does not enter), x = 4 + h g */
  ball_case(-2, 0, 1, 0.1, 0.2, 0, INFINITY, 2.0, "e=1");
  /* e = 0: rhs = 0, v+ = 0, x = 2 + h g */
  ball_case(-2, 0, 0, 0.1, 0.2, 0, INFINITY, 0.0, "e=0");
  ball_case(-2, 0, 0.5, 0.1, 0.2, 0, INFINITY, 1.0, "e=0.5");
  /* below the threshold (2 < 3): no bounce */
  ball_case(-2, 0, 1, 3.0, 0.2, 0, INFINITY, 0.0, "threshold");
  /* Baumgarte at rest: depth 0.01, slop 0.002, k_erp 0.2: rhs = 0.2 * 0.008 / 0.01 = 0.16 */
  ball_case(0, 0.01, 0, 0, 0.2, 0.002, INFINITY, 0.16, "baumgarte");
  /* capped at max_correct_vel = 0.1 */
  ball_case(0, 0.01, 0, 0, 0.2, 0.002, 0.1, 0.1, "baumgarte cap");
  /* restitution and Baumgarte together: the larger, max(0.16, 1) = 1 */
  ball_case(-2, 0.01, 0.5, 0.1, 0.2, 0.002, INFINITY, 1.0, "max of the two");
  /* speculative, e = 0: gap 0.005 at 2 m/s: rhs = -0.005 / 0.01 = -0.5, the
   * ball closes the gap exactly (free velocity -2.098 < -0.5), no bounce */
  ball_case(-2, -0.005, 0, 0.1, 0.2, 0, INFINITY, -0.5, "speculative e=0");
  /* e = 1: the approach closes the gap within the step (2 * 0.01 >= 0.005),
   * so the impact is in this step: rhs = max(-0.5, 2) = 2, v+ = 2 */
  ball_case(-2, -0.005, 1, 0.1, 0.2, 0, INFINITY, 2.0, "speculative impact e=1");
  ball_case(-2, -0.005, 0.5, 0.1, 0.2, 0, INFINITY, 1.0, "speculative impact e=0.5");
  /* below the threshold (2 < 3): no bounce, the gap closes */
  ball_case(-2, -0.005, 1, 3.0, 0.2, 0, INFINITY, -0.5, "speculative threshold");
  /* 0.45 * 0.01 < 0.005: the approach alone does not reach the floor, only
   * gravity's h g closes the gap: no bounce, v+ = -0.5 */
  ball_case(-0.45, -0.005, 1, 0.1, 0.2, 0, INFINITY, -0.5, "speculative, not an impact");
  /* a gap it does not close: inactive, v+ = u_free = -0.1 - h g, x = 0 */
  ball_case(-0.1, -0.005, 0, 0, 0.2, 0, INFINITY, -0.1 - 0.01 * GRAV, "gap kept");
}

/* A chain of N boxes (bodies 1..N) on a plane (body 0): ground contacts g_i
 * (plane, i) and chain contacts c_i (i, i+1), cone friction (3 rows each),
 * assembled in CSR with no dense buffer reserved.  By hand, a row of g_i
 * couples with the contacts touching body i: g_i, c_{i-1} (i > 1), c_i
 * (i < N); a row of c_i with those touching i or i+1: g_i, g_{i+1}, c_i,
 * c_{i-1} (i > 1), c_{i+1} (i + 1 < N); 3 columns per contact.  Each entry
 * is checked against sum over shared bodies of J_i^T M^-1 J_j computed
 * here. */
static void test_csr_chain(void) {
  enum { N = 400 };
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(rng, 4242);
  tst_body *B = malloc(sizeof(tst_body) * (N + 1));
  B[0] = plane(dyn_v3_make(0, 0, 1), 0);
  for (int i = 1; i <= N; i++) {
    B[i] = tst_box_body(tst_urand(rng, 1, 2), dyn_v3_make(0.5, 0.5, 0.5), dyn_v3_make(i, 0, 0.5),
                        tst_rquat(rng));
    B[i].v = tst_rvec(rng, 1);
  }
  int nc = 2 * N - 1, maxr = 3 * nc;
  dyn_rows *rows = malloc(sizeof(dyn_rows) * maxr);
  dyn_contact_params prm = dyn_contact_params_default();
  prm.friction = DYN_FRICTION_CONE;
  prm.mu = 0.4;
  prm.cfm = 1e-8;
  int n = 0;
  for (int i = 1; i <= N; i++) {
    dyn_contact g = contact_between(0, i, dyn_v3_make(i, 0, 0), dyn_v3_make(0, 0, 1), 0.001);
    n += tst_contact_fill(B, N + 1, &g, &prm, 0.01, rows, n);
    if (i < N) {
      dyn_contact c =
          contact_between(i, i + 1, dyn_v3_make(i + 0.5, 0, 0.5), dyn_v3_make(1, 0, 0), 0.002);
      n += tst_contact_fill(B, N + 1, &c, &prm, 0.01, rows, n);
    }
  }
  CU_ASSERT_EQUAL_FATAL(n, maxr);
  long want = 0;
  for (int i = 1; i <= N; i++) {
    want += 9 * (1 + (i > 1) + (i < N));                /* g_i */
    if (i < N) want += 9 * (3 + (i > 1) + (i + 1 < N)); /* c_i */
  }
  dyn_system *sys = NULL;
  char msg[200];
  /* capacity 1000: too small; the count tells how much to reserve */
  CU_ASSERT_EQUAL_FATAL(dyn_system_new(n, N + 1, DYN_SYS_CSR, 1000, &sys, msg, sizeof msg), DYN_OK);
  slv_problem p;
  dyn_v3 gv = dyn_v3_make(0, 0, -GRAV);
  CU_ASSERT_EQUAL(tst_assemble(sys, B, N + 1, rows, n, 0.01, gv, SLV_CSR, &p), DYN_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(dyn_system_message(sys), "max_nnz"));
  CU_ASSERT_EQUAL(tst_assemble(sys, B, N + 1, rows, n, 0.01, gv, SLV_DENSE, &p), DYN_ERR_INPUT);
  long nnz = dyn_system_csr_nnz(sys, rows, n);
  CU_ASSERT_EQUAL(nnz, want);
  CU_ASSERT_EQUAL_FATAL(dyn_system_reserve(sys, n, N + 1, DYN_SYS_CSR, nnz), DYN_OK);
  CU_ASSERT_EQUAL_FATAL(tst_assemble(sys, B, N + 1, rows, n, 0.01, gv, SLV_CSR, &p), DYN_OK);
  CU_ASSERT_EQUAL(p.Ap[n], want);
  CU_ASSERT_EQUAL(p.ncones, nc);
  /* M^-1 per body, here */
  dyn_m3 *Iw = malloc(sizeof(dyn_m3) * (N + 1));
  for (int b = 1; b <= N; b++) {
    dyn_m3 R = dyn_quat_to_m3(B[b].q);
    Iw[b] = dyn_m3_mul(dyn_m3_mul(R, B[b].inv_I_b), dyn_m3_transpose(R));
  }
  int bad = 0, unshared = 0;
  double worst = 0;
  for (int i = 0; i < n; i++)
    for (int q = p.Ap[i]; q < p.Ap[i + 1]; q++) {
      int j = p.Aj[q], shared = 0;
      double v = i == j ? prm.cfm : 0;
      for (int k = 0; k < 2; k++)
        for (int l = 0; l < 2; l++) {
          int b = rows[i].body[k];
          if (b < 0 || rows[j].body[l] != b) continue;
          shared = 1;
          const double *a = rows[i].J[k], *c = rows[j].J[l];
          dyn_v3 ca = dyn_m3_mulv(Iw[b], dyn_v3_make(c[3], c[4], c[5]));
          v += B[b].inv_mass * (a[0] * c[0] + a[1] * c[1] + a[2] * c[2]) + a[3] * ca.x +
               a[4] * ca.y + a[5] * ca.z;
        }
      if (!shared) unshared++;
      double d = fabs(p.Ax[q] - v);
      worst = fmax(worst, d);
      if (d > 1e-12 * (1 + fabs(v))) bad++;
    }
  CU_ASSERT_EQUAL(bad, 0);
  CU_ASSERT_EQUAL(unshared, 0);
  if (bad) fprintf(stderr, "chain: %d entries off, worst %g\n", bad, worst);
  char vmsg[160];
  CU_ASSERT_EQUAL(slv_problem_validate(&p, vmsg, sizeof vmsg), SLV_OK);
  /* a cone solver with CSR capability takes it as it is */
  CU_ASSERT_EQUAL(slv_solver_accepts(slv_solver_find("nsgs"), &p, vmsg, sizeof vmsg), SLV_OK);
  free(Iw);
  dyn_system_free(sys);
  free(rows);
  free(B);
  gsl_rng_free(rng);
}

/* ---- errors -------------------------------------------------------------- */

/* The errors' case: a ball (body 1) touching a plane (body 0, static) at
 * the origin, box friction with mu 0.5: its three rows into rows. */
static void ball_on_plane(tst_body B[2], dyn_contact *c, dyn_contact_params *prm, dyn_rows *rows) {
  B[0] = plane(dyn_v3_make(0, 0, 1), 0);
  B[1] = tst_ball_body(1, 0.1, dyn_v3_make(0, 0, 0.1));
  *c = contact_between(0, 1, dyn_v3_make(0, 0, 0), dyn_v3_make(0, 0, 1), 0.0);
  *prm = dyn_contact_params_default();
  prm->friction = DYN_FRICTION_BOX;
  prm->mu = 0.5;
  CU_ASSERT_EQUAL_FATAL(tst_contact_fill(B, 2, c, prm, 0.01, rows, 0), 3);
}

/* The rows' refusals in dyn_assemble, field by field: every one of the 15
 * entries checked for finiteness (J on both sides, also the static one;
 * rhs, cfm, mu) refuses its row with the same message for NaN and +-inf,
 * and a refused row is reported before a b that is not finite, even at
 * an earlier row (the checks come first). */
static void test_row_refusals(void) {
  tst_body B[2];
  dyn_contact c;
  dyn_contact_params prm;
  dyn_rows rows[3], bad[3];
  ball_on_plane(B, &c, &prm, rows);
  dyn_v3 g = dyn_v3_make(0, 0, -GRAV);
  slv_problem p;
  dyn_system *sys = NULL;
  char msg[200] = "";
  CU_ASSERT_EQUAL_FATAL(dyn_system_new(3, 2, DYN_SYS_DENSE, 0, &sys, msg, sizeof msg), DYN_OK);
  const double nonfinite[3] = { NAN, INFINITY, -INFINITY };
  for (int f = 0; f < 15; f++)
    for (int v = 0; v < 3; v++) {
      memcpy(bad, rows, sizeof bad);
      double *at = f < 12    ? &bad[2].J[f / 6][f % 6]
                   : f == 12 ? &bad[2].rhs
                   : f == 13 ? &bad[2].cfm
                             : &bad[2].mu;
      *at = nonfinite[v];
      CU_ASSERT_EQUAL(tst_assemble(sys, B, 2, bad, 3, 0.01, g, SLV_DENSE, &p), DYN_ERR_INPUT);
      CU_ASSERT_STRING_EQUAL(dyn_system_message(sys), "row 2: a non-finite J, rhs, cfm or mu");
    }
  /* ... and the finite extremes are not (the test looks at the exponent
   * bits: DBL_MAX's are one short of Inf's), on the plane's side of the
   * rows, which b does not read, and in cfm and mu */
  const double extreme[4] = { DBL_MAX, -DBL_MAX, 4.9e-324, -0.0 };
  for (int f = 0; f < 8; f++) {
    memcpy(bad, rows, sizeof bad);
    double *at = f < 6 ? &bad[f % 3].J[0][f] : f == 6 ? &bad[1].cfm : &bad[1].mu;
    *at = extreme[f % 4];
    CU_ASSERT_EQUAL(tst_assemble(sys, B, 2, bad, 3, 0.01, g, SLV_DENSE, &p), DYN_OK);
  }
  /* a body state that makes every b NaN: refused at row 0 ... */
  tst_body Bn[2] = { B[0], B[1] };
  Bn[1].v.x = NAN;
  CU_ASSERT_EQUAL(tst_assemble(sys, Bn, 2, rows, 3, 0.01, g, SLV_DENSE, &p), DYN_ERR_INPUT);
  CU_ASSERT_STRING_EQUAL(dyn_system_message(sys),
                         "row 0: b=nan is not finite (body state or load)");
  /* ... unless a row is refused, later or not */
  memcpy(bad, rows, sizeof bad);
  bad[2].findex = 5;
  CU_ASSERT_EQUAL(tst_assemble(sys, Bn, 2, bad, 3, 0.01, g, SLV_DENSE, &p), DYN_ERR_INPUT);
  CU_ASSERT_STRING_EQUAL(dyn_system_message(sys),
                         "row 2: findex 5 (global 5) outside the 3 rows or itself");
  CU_ASSERT_EQUAL(tst_apply_impulse(sys, B, 2, (double[3]){ 0, 0, 0 }, 0.01, g), DYN_ERR_INPUT);
  /* and the same rows assemble once the state is finite */
  CU_ASSERT_EQUAL(tst_assemble(sys, B, 2, rows, 3, 0.01, g, SLV_DENSE, &p), DYN_OK);
  CU_ASSERT_STRING_EQUAL(dyn_system_message(sys), "");
  dyn_system_free(sys);
}

static void test_errors(void) {
  tst_body B[2];
  dyn_contact c;
  dyn_contact_params prm;
  dyn_rows rows[8];
  ball_on_plane(B, &c, &prm, rows);
  dyn_v3 g = dyn_v3_make(0, 0, -GRAV);
  slv_problem p;
  dyn_system *sys = NULL;
  char msg[200] = "";

  /* too many rows for the system */
  CU_ASSERT_EQUAL_FATAL(dyn_system_new(2, 2, DYN_SYS_DENSE, 0, &sys, msg, sizeof msg), DYN_OK);
  CU_ASSERT_EQUAL(tst_assemble(sys, B, 2, rows, 3, 0.01, g, SLV_DENSE, &p), DYN_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(dyn_system_message(sys), "max_rows"));
  /* too many bodies */
  tst_body B3[3] = { B[0], B[1], B[1] };
  CU_ASSERT_EQUAL(tst_assemble(sys, B3, 3, rows, 1, 0.01, g, SLV_DENSE, &p), DYN_ERR_INPUT);
  CU_ASSERT(strlen(dyn_system_message(sys)) > 0);
  /* storage not reserved */
  CU_ASSERT_EQUAL(tst_assemble(sys, B, 2, rows, 1, 0.01, g, SLV_CSR, &p), DYN_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(dyn_system_message(sys), "CSR"));
  /* nothing assembled: apply refuses */
  double x[3] = { 0, 0, 0 };
  CU_ASSERT_EQUAL(tst_apply_impulse(sys, B, 2, x, 0.01, g), DYN_ERR_INPUT);
  /* reserve grows it, then it works */
  CU_ASSERT_EQUAL(dyn_system_reserve(sys, 3, 2, DYN_SYS_CSR, 4), DYN_OK);
  CU_ASSERT_EQUAL(tst_assemble(sys, B, 2, rows, 3, 0.01, g, SLV_DENSE, &p), DYN_OK);
  CU_ASSERT_EQUAL(p.n, 3);
  CU_ASSERT_STRING_EQUAL(dyn_system_message(sys), "");
  /* CSR capacity 4 < 9 entries (one body, three rows: a full 3x3 block) */
  CU_ASSERT_EQUAL(dyn_system_csr_nnz(sys, rows, 3), 9);
  CU_ASSERT_EQUAL(tst_assemble(sys, B, 2, rows, 3, 0.01, g, SLV_CSR, &p), DYN_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(dyn_system_message(sys), "max_nnz"));
  CU_ASSERT_EQUAL(dyn_system_reserve(sys, 3, 2, DYN_SYS_CSR, 9), DYN_OK);
  CU_ASSERT_EQUAL(tst_assemble(sys, B, 2, rows, 3, 0.01, g, SLV_CSR, &p), DYN_OK);
  /* a row naming a body outside nb */
  dyn_rows bad[3];
  memcpy(bad, rows, sizeof bad);
  bad[1].body[1] = 7;
  CU_ASSERT_EQUAL(tst_assemble(sys, B, 2, bad, 3, 0.01, g, SLV_DENSE, &p), DYN_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(dyn_system_message(sys), "row 1"));
  /* a findex pointing outside the rows */
  memcpy(bad, rows, sizeof bad);
  bad[2].findex = 5;
  CU_ASSERT_EQUAL(tst_assemble(sys, B, 2, bad, 3, 0.01, g, SLV_DENSE, &p), DYN_ERR_INPUT);
  CU_ASSERT(strlen(dyn_system_message(sys)) > 0);
  /* a NaN in J */
  memcpy(bad, rows, sizeof bad);
  bad[0].J[1][2] = NAN;
  CU_ASSERT_EQUAL(tst_assemble(sys, B, 2, bad, 3, 0.01, g, SLV_DENSE, &p), DYN_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(dyn_system_message(sys), "non-finite"));
  /* h <= 0 */
  CU_ASSERT_EQUAL(tst_assemble(sys, B, 2, rows, 3, 0, g, SLV_DENSE, &p), DYN_ERR_INPUT);
  /* a NaN impulse leaves the bodies alone */
  CU_ASSERT_EQUAL(tst_assemble(sys, B, 2, rows, 3, 0.01, g, SLV_DENSE, &p), DYN_OK);
  double xn[3] = { 0, NAN, 0 };
  tst_body before = B[1];
  CU_ASSERT_EQUAL(tst_apply_impulse(sys, B, 2, xn, 0.01, g), DYN_ERR_NUMERIC);
  CU_ASSERT(memcmp(&before, &B[1], sizeof before) == 0);
  CU_ASSERT_EQUAL(tst_apply_impulse(sys, B, 1, x, 0.01, g), DYN_ERR_INPUT); /* nb differs */
  dyn_system_free(sys);
  dyn_system_free(NULL);

  /* system construction */
  sys = (dyn_system *)&msg; /* overwritten with NULL on failure */
  CU_ASSERT_EQUAL(dyn_system_new(-1, 2, DYN_SYS_DENSE, 0, &sys, msg, sizeof msg), DYN_ERR_INPUT);
  CU_ASSERT_PTR_NULL(sys);
  CU_ASSERT(strlen(msg) > 0);
  CU_ASSERT_EQUAL(dyn_system_new(4, 2, 0, 0, &sys, msg, sizeof msg), DYN_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "storages"));

  /* contact fill and parameter errors */
  CU_ASSERT_EQUAL(tst_contact_fill(B, 1, &c, &prm, 0.01, rows, 0), DYN_ERR_INPUT); /* b = 1 >= nb */
  dyn_contact c2 = c;
  c2.normal = dyn_v3_make(0, 0, 2);
  CU_ASSERT_EQUAL(tst_contact_fill(B, 2, &c2, &prm, 0.01, rows, 0), DYN_ERR_INPUT);
  /* a normal with a NaN or infinite component, or 2e-6 off unit length,
   * is refused; 5e-7 off is within the 1e-6 the rows allow */
  const double odd[3] = { NAN, INFINITY, -INFINITY };
  for (int k = 0; k < 3; k++) {
    c2.normal = dyn_v3_make(0, odd[k], 1);
    CU_ASSERT_EQUAL(tst_contact_fill(B, 2, &c2, &prm, 0.01, rows, 0), DYN_ERR_INPUT);
    c2.normal = dyn_v3_make(odd[k], 0, 0);
    CU_ASSERT_EQUAL(tst_contact_fill(B, 2, &c2, &prm, 0.01, rows, 0), DYN_ERR_INPUT);
  }
  c2.normal = dyn_v3_make(0, 0, 1 + 2e-6);
  CU_ASSERT_EQUAL(tst_contact_fill(B, 2, &c2, &prm, 0.01, rows, 0), DYN_ERR_INPUT);
  c2.normal = dyn_v3_make(0, 0, 1 + 5e-7);
  CU_ASSERT(tst_contact_fill(B, 2, &c2, &prm, 0.01, rows, 0) > 0);
  c2 = c;
  c2.b = 0;
  CU_ASSERT_EQUAL(tst_contact_fill(B, 2, &c2, &prm, 0.01, rows, 0), DYN_ERR_INPUT);
  CU_ASSERT_EQUAL(tst_contact_fill(B, 2, &c, &prm, -0.01, rows, 0), DYN_ERR_INPUT);
  tst_body two_static[2] = { B[0], B[0] };
  CU_ASSERT_EQUAL(tst_contact_fill(two_static, 2, &c, &prm, 0.01, rows, 0), DYN_ERR_INPUT);
  dyn_contact_params bp = prm;
  bp.friction = DYN_FRICTION_PYRAMID;
  bp.eta = 2;
  CU_ASSERT_EQUAL(dyn_contact_params_validate(&bp, msg, sizeof msg), DYN_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "eta"));
  CU_ASSERT_EQUAL(dyn_contact_max_rows(&bp), 0);
  CU_ASSERT_EQUAL(tst_contact_fill(B, 2, &c, &bp, 0.01, rows, 0), DYN_ERR_INPUT);
  bp = prm;
  bp.mu = -1;
  CU_ASSERT_EQUAL(dyn_contact_params_validate(&bp, msg, sizeof msg), DYN_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "mu"));
  bp = prm;
  bp.restitution = 1.5;
  CU_ASSERT_EQUAL(dyn_contact_params_validate(&bp, msg, sizeof msg), DYN_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "restitution"));
  bp = prm;
  bp.k_erp = NAN;
  CU_ASSERT_EQUAL(dyn_contact_params_validate(&bp, msg, sizeof msg), DYN_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "k_erp"));
  /* max_rows of each model */
  bp = prm;
  bp.friction = DYN_FRICTION_NONE;
  CU_ASSERT_EQUAL(dyn_contact_max_rows(&bp), 1);
  bp.friction = DYN_FRICTION_CONE;
  CU_ASSERT_EQUAL(dyn_contact_max_rows(&bp), 3);
  bp.friction = DYN_FRICTION_PYRAMID;
  bp.eta = 6;
  CU_ASSERT_EQUAL(dyn_contact_max_rows(&bp), 8);
}

/* Box friction with torsion and rolling (MuJoCo's condim 4 and 6,
 * docs/contact.md): six rows, the last three of angular velocity only,
 * J_b = (0, n), (0, t1), (0, t2) and J_a their opposites (0 for a static
 * a), bounded through findex -> n by the contact's mu_torsion and
 * mu_rolling; a row's J u is then the relative angular velocity about its
 * axis. */
static void test_rolling_rows(void) {
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(rng, 77);
  dyn_rows rows[8];
  for (int trial = 0; trial < 8; trial++) {
    tst_body B[2];
    B[0] = tst_box_body(1.0, dyn_v3_make(0.3, 0.5, 0.2), tst_rvec(rng, 1), tst_rquat(rng));
    B[1] = tst_box_body(2.0, dyn_v3_make(0.4, 0.2, 0.6), tst_rvec(rng, 1), tst_rquat(rng));
    int a_static = trial % 2;
    B[0].is_static = a_static;
    dyn_contact c = { 0 };
    c.a = 0, c.b = 1, c.p = tst_rvec(rng, 1.0), c.normal = tst_runit(rng), c.depth = 0.001;
    c.mu_torsion = 0.02, c.mu_rolling = 0.003;
    dyn_contact_params prm = dyn_contact_params_default();
    prm.friction = DYN_FRICTION_BOX, prm.mu = 0.7, prm.torsion = 1, prm.rolling = 1;
    int m = tst_contact_fill(B, 2, &c, &prm, 0.01, rows, 0);
    CU_ASSERT_EQUAL_FATAL(m, 6);
    CU_ASSERT_EQUAL(dyn_contact_max_rows(&prm), 6);
    dyn_v3 t1, t2;
    dyn_contact_basis(c.normal, &t1, &t2);
    const dyn_v3 axis[3] = { c.normal, t1, t2 };
    for (int r = 3; r < 6; r++) {
      const double e[3] = { axis[r - 3].x, axis[r - 3].y, axis[r - 3].z };
      for (int k = 0; k < 3; k++) {
        CU_ASSERT(rows[r].J[0][k] == 0.0 && rows[r].J[1][k] == 0.0);
        CU_ASSERT(rows[r].J[1][3 + k] == e[k]);
        CU_ASSERT(rows[r].J[0][3 + k] == (a_static ? 0.0 : -e[k]));
      }
      CU_ASSERT(rows[r].findex == 0 && rows[r].rhs == 0.0 && rows[r].kind == DYN_ROW_PLAIN);
      CU_ASSERT(rows[r].mu == (r == 3 ? 0.02 : 0.003));
    }
    prm.rolling = 0;
    CU_ASSERT_EQUAL(tst_contact_fill(B, 2, &c, &prm, 0.01, rows, 0), 4);
    prm.rolling = 1, c.mu_rolling = -1.0;
    CU_ASSERT_EQUAL(tst_contact_fill(B, 2, &c, &prm, 0.01, rows, 0), DYN_ERR_INPUT);
  }
  /* rolling needs torsion, and both box friction */
  char msg[256] = "";
  dyn_contact_params bp = dyn_contact_params_default();
  bp.friction = DYN_FRICTION_BOX, bp.rolling = 1;
  CU_ASSERT(dyn_contact_params_validate(&bp, msg, sizeof msg) == DYN_ERR_INPUT &&
            strstr(msg, "rolling"));
  bp.friction = DYN_FRICTION_CONE, bp.torsion = 1;
  CU_ASSERT_EQUAL(dyn_contact_params_validate(&bp, msg, sizeof msg), DYN_ERR_INPUT);
  CU_ASSERT(dyn_friction_max_condim(DYN_FRICTION_BOX) == 6 &&
            dyn_friction_max_condim(DYN_FRICTION_NONE) == 6 &&
            dyn_friction_max_condim(DYN_FRICTION_CONE) == 3 &&
            dyn_friction_max_condim(DYN_FRICTION_PYRAMID) == 3 && dyn_friction_max_condim(7) == 0);
  gsl_rng_free(rng);
}

int main(void) {
  gsl_set_error_handler_off();
  if (CU_initialize_registry() != CUE_SUCCESS) return 1;
  CU_pSuite s = CU_add_suite("assemble", NULL, NULL);
  CU_add_test(s, "contact J = central differences of the gap, 4 models", test_jacobian_fd);
  CU_add_test(s, "tangent basis rule", test_basis);
  CU_add_test(s, "A vs dense J M^-1 J^T, PSD, dense = CSR, b, u+", test_A_random);
  CU_add_test(s, "isotropic bodies: world I^-1 = s 1, K_ang = s J_ang to the bit",
              test_isotropic_exact);
  CU_add_test(s, "CSR of a 400-body chain: nnz by hand, entries, no dense A", test_csr_chain);
  CU_add_test(s, "rows alone, diagonal M^-1: A vs J M^-1 J^T, symmetric, dense = CSR, BLAS",
              test_rows_alone);
  CU_add_test(s, "sphere resting on a plane (lemke, pgs)", test_sphere_on_plane);
  CU_add_test(s, "box on a 20 deg incline sticks (box/pgs, cone/nsgs, pyramid/lemke)",
              test_incline_stick);
  CU_add_test(s, "box on a 40 deg incline slides at h g (sin a - mu cos a)", test_incline_slide);
  CU_add_test(s, "restitution, Baumgarte, cap, speculative gap", test_restitution_baumgarte);
  CU_add_test(s, "size and input errors", test_errors);
  CU_add_test(s, "torsion and rolling rows: angular J, findex bounds", test_rolling_rows);
  CU_add_test(s, "row refusals: every non-finite entry, checks before b", test_row_refusals);
  return tst_run();
}
