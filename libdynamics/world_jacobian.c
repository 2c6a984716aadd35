/*
 * world_jacobian.c -- the derivative of a world's last step
 * (dyn_world_step_jacobian, dyn_world.h; docs/gradients.md, "Through a
 * world step").
 *
 * With the contact set, the geometry and every row's rhs of the step held
 * fixed (the step's J, M^-1, A and rhs are constants), a step in maximal
 * coordinates is (world_step.c)
 *     u'   = gyro(u)                      (prepare: angular part only)
 *     z    = u' + h M^-1 f                (the free velocity, u_free)
 *     x    = x(b),  b = J z - rhs         (the solve; A = J M^-1 J^T + cfm)
 *     u+   = z + M^-1 J^T x               (apply)
 * so that, with X = dx/db at the applied x (slv_sensitivity_jvp, each row's
 * mode held),
 *     Z       = du+/dz = I + M^-1 J^T X J,
 *     du+/du  = Z G,     G = diag(I3, dgyro/dw) per body,
 *     du+/df  = Z h M^-1.
 * The positions follow the integrator in tangent coordinates (dr, and the
 * world-frame rotation vector dth with q -> exp(dth) q):
 *     symplectic  r+ = r + h v+,  q+ = exp(h w+) q:
 *                   dr+ = h dv+,  dth+ = h Jl(h w+) dw+
 *     explicit    r+ = r + h v,   q+ = exp(h w) q: dr+ = h dv, dth+ = h Jl(h w) dw
 *     verlet      r+ = r + a v + a v+,  q+ = exp(a w+) exp(a w) q  (a = h/2):
 *                   dr+ = a dv + a dv+,
 *                   dth+ = a Jl(a w+) dw+ + R(a w+) a Jl(a w) dw
 * with Jl the left Jacobian of SO(3)'s exponential map.  The derivative
 * of the gyroscopic update (a smooth 3-vector map of w per body, whose
 * implicit form is a Newton solve) is taken by central differences of
 * dyn_body_update_gyro itself, step 1e-6 (1 + |w|): its error is of order
 * 1e-10 relative.  All of it in the world's buffers of this call: it
 * allocates its scratch and frees it.
 */
#include "world_data.h"
#include "world_reduced.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int dyn_world_step_jacobian_size(const dyn_world *w) {
  return !w ? 0 : w->red ? dyn_redmax_ndof(dyn_reduced_redmax(w)) : 6 * w->nb;
}

int dyn_world_step_jacobian_force_size(const dyn_world *w) { return w ? 6 * w->nb : 0; }

/* Body i at the pose and velocity the step's gyroscopic update started
 * from: the saved state, Verlet's half drift applied. */
static dyn_body_state body_at_prepare(const dyn_world *w, int i) {
  dyn_body_state b = w->bodies.s[i];
  dyn_body_set_state(&b, w->saved.p + DYN_BODY_STATE * (size_t)i);
  if (w->set.integrator == DYN_INT_VERLET)
    dyn_body_update_position(&w->bodies.c[i], &b, 0.5 * w->set.dt, w->set.orient);
  return b;
}

static double v3_at(dyn_v3 v, int k) { return k == 0 ? v.x : k == 1 ? v.y : v.z; }

static void v3_add_at(dyn_v3 *v, int k, double d) {
  if (k == 0)
    v->x += d;
  else if (k == 1)
    v->y += d;
  else
    v->z += d;
}

/* dgyro/dw of body i (3x3 row-major), by central differences of the
 * step's own gyroscopic update; the identity without one. */
static void gyro_jacobian(const dyn_world *w, int i, double G[9]) {
  dyn_body_state b = body_at_prepare(w, i);
  const dyn_body_const *bc = &w->bodies.c[i];
  for (int k = 0; k < 9; k++) G[k] = k % 4 == 0 && !bc->is_static ? 1.0 : 0.0;
  if (bc->is_static || w->set.gyro == DYN_GYRO_NONE) return;
  const double e = 1e-6 * (1.0 + dyn_v3_norm(b.w));
  for (int k = 0; k < 3; k++) {
    dyn_body_state p = b, m = b;
    v3_add_at(&p.w, k, e);
    v3_add_at(&m.w, k, -e);
    dyn_body_update_gyro(bc, &p, w->set.dt, w->set.gyro);
    dyn_body_update_gyro(bc, &m, w->set.dt, w->set.gyro);
    for (int r = 0; r < 3; r++) G[3 * r + k] = (v3_at(p.w, r) - v3_at(m.w, r)) / (2.0 * e);
  }
}

/* The left Jacobian of SO(3)'s exponential map at phi (3x3 row-major):
 * exp(phi + d) = exp(Jl d) exp(phi) to first order. */
dyn_m3 dyn_so3_left_jacobian(dyn_v3 phi) {
  double t = dyn_v3_norm(phi), a, c;
  if (t < 1e-4) {
    a = 0.5 - t * t / 24.0;
    c = 1.0 / 6.0 - t * t / 120.0;
  } else {
    a = (1.0 - cos(t)) / (t * t);
    c = (t - sin(t)) / (t * t * t);
  }
  dyn_m3 S = dyn_m3_skew(phi);
  return dyn_m3_add(dyn_m3_add(dyn_m3_identity(), dyn_m3_scale(S, a)),
                    dyn_m3_scale(dyn_m3_mul(S, S), c));
}

/* The rotation matrix of exp(phi) (Rodrigues). */
static dyn_m3 rotation_of(dyn_v3 phi) {
  double t = dyn_v3_norm(phi), s, c;
  if (t < 1e-4) {
    s = 1.0 - t * t / 6.0;
    c = 0.5 - t * t / 24.0;
  } else {
    s = sin(t) / t;
    c = (1.0 - cos(t)) / (t * t);
  }
  dyn_m3 S = dyn_m3_skew(phi);
  return dyn_m3_add(dyn_m3_add(dyn_m3_identity(), dyn_m3_scale(S, s)),
                    dyn_m3_scale(dyn_m3_mul(S, S), c));
}

/* The scratch of one call. */
typedef struct jac_work {
  int nv, n;
  double *Z;  /* nv x nv row-major: du+/dz */
  double *db; /* n */
  double *dx; /* n */
  double *g;  /* nv: J^T dx */
} jac_work;

static void work_free(jac_work *k) {
  free(k->Z);
  free(k->db);
  free(k->dx);
  free(k->g);
}

static int work_alloc(jac_work *k, int nv, int n) {
  memset(k, 0, sizeof *k);
  k->nv = nv, k->n = n;
  k->Z = malloc((size_t)nv * (size_t)nv * sizeof(double));
  k->db = malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
  k->dx = malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
  k->g = malloc((size_t)(nv > 0 ? nv : 1) * sizeof(double));
  if (k->Z && k->db && k->dx && k->g) return 1;
  work_free(k);
  return 0;
}

/* y (6) = Minv block of body b (10 numbers) times g (6). */
static void minv_times(const double *m10, const double *g, double *y) {
  for (int r = 0; r < 3; r++) {
    y[r] = m10[0] * g[r];
    y[3 + r] = m10[1 + 3 * r] * g[3] + m10[2 + 3 * r] * g[4] + m10[3 + 3 * r] * g[5];
  }
}

/* Column k of Z = I + M^-1 J^T X J: db = J e_k, dx = X db, the velocity
 * change M^-1 J^T dx added to e_k. */
static slv_status z_column(jac_work *k, const dyn_velocity_form *vf, slv_sensitivity *s, int col,
                           char *msg, size_t cap) {
  const int nv = k->nv, body = col / 6, dof = col % 6;
  int touched = 0;
  for (int i = 0; i < k->n; i++) {
    k->db[i] = 0.0;
    for (int sd = 0; sd < 2; sd++)
      if (vf->rbody[2 * i + sd] == body) k->db[i] += vf->J[12 * i + 6 * sd + dof], touched = 1;
  }
  for (int r = 0; r < nv; r++) k->Z[(size_t)r * nv + col] = r == col ? 1.0 : 0.0;
  if (!touched) return SLV_OK;
  slv_status st = slv_sensitivity_jvp(s, k->n, NULL, k->db, NULL, NULL, NULL, k->dx, msg, cap);
  if (st != SLV_OK) return st;
  memset(k->g, 0, (size_t)nv * sizeof(double));
  for (int i = 0; i < k->n; i++)
    for (int sd = 0; sd < 2; sd++) {
      int b = vf->rbody[2 * i + sd];
      if (b < 0) continue;
      for (int d = 0; d < 6; d++) k->g[6 * b + d] += vf->J[12 * i + 6 * sd + d] * k->dx[i];
    }
  for (int b = 0; b < vf->nb; b++) {
    double y[6];
    minv_times(vf->Minv + 10 * (size_t)b, k->g + 6 * b, y);
    for (int d = 0; d < 6; d++) k->Z[(size_t)(6 * b + d) * nv + col] += y[d];
  }
  return SLV_OK;
}

/* out (nv x nv) = Z times the block diagonal of 6x6 blocks B (36 per body,
 * row-major). */
static void times_blocks(const double *Z, int nv, const double *B, double *out) {
  for (int r = 0; r < nv; r++)
    for (int b = 0; b < nv / 6; b++)
      for (int c = 0; c < 6; c++) {
        double s = 0.0;
        for (int d = 0; d < 6; d++) s += Z[(size_t)r * nv + 6 * b + d] * B[36 * b + 6 * d + c];
        out[(size_t)r * nv + 6 * b + c] = s;
      }
}

/* B (36) = diag(L, A) for 3x3 L = l I3 and A. */
static void block_of(double l, dyn_m3 A, double *B) {
  memset(B, 0, 36 * sizeof *B);
  for (int r = 0; r < 3; r++) {
    B[6 * r + r] = l;
    for (int c = 0; c < 3; c++) B[6 * (3 + r) + 3 + c] = A.m[3 * r + c];
  }
}

/* The right factors of du+/du (G: the gyroscopic derivative) and du+/df
 * (h M^-1), per body into Bu and Bf (36 each). */
static void input_blocks(const dyn_world *w, const double *Minv, double *Bu, double *Bf) {
  const double h = w->set.dt;
  for (int b = 0; b < w->nb; b++) {
    double G[9];
    gyro_jacobian(w, b, G);
    dyn_m3 g, m;
    memcpy(g.m, G, sizeof G);
    memcpy(m.m, Minv + 10 * (size_t)b + 1, 9 * sizeof(double));
    block_of(w->bodies.c[b].is_static ? 0.0 : 1.0, g, Bu + 36 * b); /* no velocity: zero */
    block_of(h * Minv[10 * (size_t)b], dyn_m3_scale(m, h), Bf + 36 * b);
  }
}

/* The integrator's maps of body b in tangent coordinates: T (36) from dv+
 * to the position change, D (36) from du directly (explicit Euler and
 * Verlet's first half drift); zero for a static body. */
static void position_blocks(const dyn_world *w, int b, double *T, double *D) {
  const dyn_body_state *bd = &w->bodies.s[b];
  const dyn_body_const *bdc = &w->bodies.c[b];
  const double *sv = w->saved.p + DYN_BODY_STATE * (size_t)b;
  const dyn_v3 w0 = dyn_v3_make(sv[10], sv[11], sv[12]);
  const double h = w->set.dt, a = 0.5 * h;
  dyn_m3 Z = dyn_m3_zero();
  block_of(0.0, Z, T);
  block_of(0.0, Z, D);
  if (bdc->is_static) return;
  switch (w->set.integrator) {
  case DYN_INT_EXPLICIT_EULER:
    block_of(h, dyn_m3_scale(dyn_so3_left_jacobian(dyn_v3_scale(w0, h)), h), D);
    break;
  case DYN_INT_VERLET:
    block_of(a, dyn_m3_scale(dyn_so3_left_jacobian(dyn_v3_scale(bd->w, a)), a), T);
    block_of(a,
             dyn_m3_mul(rotation_of(dyn_v3_scale(bd->w, a)),
                        dyn_m3_scale(dyn_so3_left_jacobian(dyn_v3_scale(w0, a)), a)),
             D);
    break;
  default: block_of(h, dyn_m3_scale(dyn_so3_left_jacobian(dyn_v3_scale(bd->w, h)), h), T); break;
  }
}

/* out (nv x nv) = T V + D0 (D0: the direct blocks when direct, else 0),
 * T and D block diagonal per body. */
static void positions_of(const dyn_world *w, const double *V, int direct, double *out) {
  const int nv = 6 * w->nb;
  memset(out, 0, (size_t)nv * nv * sizeof *out);
  for (int b = 0; b < w->nb; b++) {
    double T[36], D[36];
    position_blocks(w, b, T, D);
    for (int r = 0; r < 6; r++) {
      double *o = out + (size_t)(6 * b + r) * nv;
      for (int d = 0; d < 6; d++) {
        const double t = T[6 * r + d], *v = V + (size_t)(6 * b + d) * nv;
        if (t != 0.0)
          for (int c = 0; c < nv; c++) o[c] += t * v[c];
        if (direct) o[6 * b + d] += D[6 * r + d];
      }
    }
  }
}

/* Why the last step has no Jacobian here, or 0 (with *p, *vf, *x). */
static int refused(const dyn_world *w, slv_problem *p, dyn_velocity_form *vf, const double **x,
                   char *msg, size_t cap) {
  if (!dyn_world_last_form(w, p, vf)) {
    dyn_msgf(msg, cap,
             "step_jacobian: no step with rows since the world was built or restored "
             "(a step without rows is the free motion)");
    return 1;
  }
  dyn_world_last_problem(w, p, x);
  if (!*x) {
    dyn_msgf(msg, cap, "step_jacobian: the last step applied no impulses (it failed)");
    return 1;
  }
  return 0;
}

/* A copy of p with delta added to A's diagonal (dense, or CSR: a factored
 * A made explicit first), in buffers *keep (free() it); NULL with
 * SLV_ERR_NOMEM, or SLV_ERR_INVALID when a row's diagonal is not stored. */
static slv_status regularized_alloc(const slv_problem *p, double delta, slv_problem *q, void **keep,
                                    char *msg, size_t cap) {
  const int n = p->n;
  *q = *p;
  *keep = NULL;
  if (p->storage == SLV_DENSE) {
    double *A = malloc((size_t)n * n * sizeof *A + sizeof *A);
    if (!A) return SLV_ERR_NOMEM;
    for (int j = 0; j < n; j++)
      for (int i = 0; i < n; i++) A[(size_t)j * n + i] = p->A[(size_t)j * p->lda + i];
    for (int i = 0; i < n; i++) A[(size_t)i * n + i] += delta;
    q->A = A, q->lda = n > 0 ? n : 1, *keep = A;
    return SLV_OK;
  }
  int *Ap = NULL, *Aj = NULL;
  double *Ax = NULL;
  slv_status st = SLV_OK;
  if (p->storage == SLV_FACTORED) {
    if ((st = slv_factored_csr_new(p, &Ap, &Aj, &Ax, msg, cap)) != SLV_OK) return st;
  } else {
    size_t nnz = (size_t)p->Ap[n];
    Ap = malloc(((size_t)n + 1) * sizeof *Ap), Aj = malloc(nnz * sizeof *Aj + sizeof *Aj);
    Ax = malloc(nnz * sizeof *Ax + sizeof *Ax);
    if (!Ap || !Aj || !Ax)
      st = SLV_ERR_NOMEM;
    else {
      memcpy(Ap, p->Ap, ((size_t)n + 1) * sizeof *Ap);
      memcpy(Aj, p->Aj, nnz * sizeof *Aj);
      memcpy(Ax, p->Ax, nnz * sizeof *Ax);
    }
  }
  for (int i = 0; st == SLV_OK && i < n; i++) {
    int k = Ap[i];
    while (k < Ap[i + 1] && Aj[k] != i) k++;
    if (k == Ap[i + 1]) {
      snprintf(msg, cap, "row %d's diagonal is not stored", i);
      st = SLV_ERR_INVALID;
    } else
      Ax[k] += delta;
  }
  /* one block: the arrays freed together by the caller */
  size_t a = ((size_t)n + 1) * sizeof(int), b = (size_t)Ap[n] * sizeof(int);
  char *blk = st == SLV_OK ? malloc(a + b + (size_t)Ap[n] * sizeof(double) + 16) : NULL;
  if (st == SLV_OK && !blk) st = SLV_ERR_NOMEM;
  if (st == SLV_OK) {
    double *X = (double *)(void *)blk;
    memcpy(X, Ax, (size_t)Ap[n] * sizeof(double));
    int *P = (int *)(void *)(blk + (size_t)Ap[n] * sizeof(double)), *J = P + n + 1;
    memcpy(P, Ap, a);
    memcpy(J, Aj, b);
    *q = *p;
    q->storage = SLV_CSR, q->Ap = P, q->Aj = J, q->Ax = X, q->A = NULL;
    *keep = blk;
  }
  free(Ap), free(Aj), free(Ax);
  return st;
}

/* The largest |A_ii| of p (dense or CSR; a factored p: 1). */
static double diag_scale(const slv_problem *p) {
  double m = 0.0;
  for (int i = 0; i < p->n; i++) {
    if (p->storage == SLV_DENSE)
      m = fmax(m, fabs(p->A[(size_t)i * p->lda + i]));
    else if (p->storage == SLV_CSR)
      for (int k = p->Ap[i]; k < p->Ap[i + 1]; k++)
        if (p->Aj[k] == i) m = fmax(m, fabs(p->Ax[k]));
  }
  return m > 0.0 ? m : 1.0;
}

/* The sensitivity of the step's answer; where the free block is singular
 * (redundant contacts: dx is not unique, J^T dx is), that of A + delta I,
 * delta = DYN_JAC_REG max |A_ii|, whose dx tends to the least-norm one
 * (*delta says which; *keep holds the copy's arrays). */
#define DYN_JAC_REG 1e-10
slv_status dyn_jac_answer_sensitivity(const dyn_world *w, const slv_problem *p, const double *x,
                                      slv_problem *q, void **keep, double *delta,
                                      slv_sensitivity **s, char *msg, size_t cap) {
  *delta = 0.0;
  *keep = NULL;
  slv_status st = slv_sensitivity_new(p, x, w->set.opt.tol, s, msg, cap);
  if (st != SLV_SINGULAR_PIVOT) return st;
  *delta = DYN_JAC_REG * diag_scale(p);
  st = regularized_alloc(p, *delta, q, keep, msg, cap);
  return st == SLV_OK ? slv_sensitivity_new(q, x, w->set.opt.tol, s, msg, cap) : st;
}

/* Z = du+/dz for every column, from the step's answer's sensitivity. */
static dyn_err z_matrix(const dyn_world *w, jac_work *k, const slv_problem *p,
                        const dyn_velocity_form *vf, const double *x, dyn_step_jacobian_info *info,
                        char *msg, size_t cap) {
  slv_sensitivity *s = NULL;
  char m2[400] = "";
  slv_problem q;
  void *keep = NULL;
  double delta = 0.0;
  slv_status st = dyn_jac_answer_sensitivity(w, p, x, &q, &keep, &delta, &s, m2, sizeof m2);
  for (int c = 0; st == SLV_OK && c < k->nv; c++) st = z_column(k, vf, s, c, m2, sizeof m2);
  if (st == SLV_OK && info) {
    slv_sensitivity_counts n = slv_sensitivity_count(s);
    *info =
        (dyn_step_jacobian_info){ p->n, n.free, n.lower, n.upper, n.sliding, n.degenerate, delta };
  }
  slv_sensitivity_free(s);
  free(keep);
  if (st == SLV_OK) return DYN_OK;
  dyn_msgf(msg, cap, "step_jacobian: the step's answer (step %ld): %s", w->step, m2);
  return st == SLV_ERR_NOMEM ? DYN_ERR_NOMEM : DYN_ERR_NUMERIC;
}

/* The input blocks (72 doubles a body: du/du and du/df) and the product's
 * nv x nv matrix; 0 when either allocation failed (the caller frees both). */
static int blocks_alloc(int nb, int nv, double **B, double **V) {
  *B = malloc(72 * (size_t)nb * sizeof(double) + sizeof(double));
  *V = malloc((size_t)nv * nv * sizeof(double) + sizeof(double));
  return *B && *V;
}

dyn_err dyn_world_step_jacobian(const dyn_world *w, double *dv_du, double *dv_df, double *dq_du,
                                double *dq_df, dyn_step_jacobian_info *info, char *msg,
                                size_t cap) {
  if (msg && cap) msg[0] = '\0';
  if (!w) return DYN_ERR_INPUT;
  const double *act = dyn_world_act(w);
  for (int i = 0; act && i < dyn_world_ctrl_count(w); i++)
    if (act[i] != 0) { /* its force depends on the velocities and its activation is a state */
      dyn_msgf(msg, cap,
               "step_jacobian: actuator '%s': the derivative through a muscle's active force "
               "(activation %g) is not computed",
               dyn_model_actuators(w->model)[i].name, act[i]);
      return DYN_ERR_INPUT;
    }
  if (w->red) return dyn_reduced_step_jacobian(w, dv_du, dv_df, dq_du, dq_df, info, msg, cap);
  slv_problem p;
  dyn_velocity_form vf;
  const double *x = NULL;
  if (refused(w, &p, &vf, &x, msg, cap)) return DYN_ERR_INPUT;
  const int nv = 6 * w->nb;
  jac_work k;
  double *B = NULL, *V = NULL;
  if (!blocks_alloc(w->nb, nv, &B, &V) || !work_alloc(&k, nv, p.n)) {
    free(B), free(V);
    dyn_msgf(msg, cap, "step_jacobian: out of memory for %d velocities", nv);
    return DYN_ERR_NOMEM;
  }
  dyn_err e = z_matrix(w, &k, &p, &vf, x, info, msg, cap);
  if (e == DYN_OK) {
    input_blocks(w, vf.Minv, B, B + 36 * (size_t)w->nb);
    times_blocks(k.Z, nv, B, V); /* du+/du */
    if (dq_du) positions_of(w, V, 1, dq_du);
    if (dv_du) memcpy(dv_du, V, (size_t)nv * nv * sizeof *V);
    times_blocks(k.Z, nv, B + 36 * (size_t)w->nb, V); /* du+/df */
    if (dq_df) positions_of(w, V, 0, dq_df);
    if (dv_df) memcpy(dv_df, V, (size_t)nv * nv * sizeof *V);
  }
  work_free(&k);
  free(B);
  free(V);
  return e;
}

dyn_err dyn_world_step_jacobian_ctrl(const dyn_world *w, double *dv_dc, double *dq_dc, char *msg,
                                     size_t cap) {
  if (msg && cap) msg[0] = '\0';
  if (!w) return DYN_ERR_INPUT;
  if (dyn_world_ctrl_count(w) == 0) return DYN_OK;
  if (!w->red) {
    dyn_msgf(msg, cap,
             "step_jacobian: controls drive actuators in reduced coordinates only; rerun with "
             "--coordinates reduced");
    return DYN_ERR_INPUT;
  }
  const dyn_actuator_def *a = dyn_model_actuators(w->model);
  for (int i = 0; i < dyn_world_ctrl_count(w); i++)
    if (a[i].npath) { /* its force is a load of the step (dyn_tendon_loads), not an effort */
      dyn_msgf(msg, cap,
               "step_jacobian: ctrl[%d] (actuator '%s'): the derivative through a spatial "
               "tendon is not computed",
               i, a[i].name);
      return DYN_ERR_INPUT;
    }
  return dyn_reduced_step_jacobian_ctrl(w, dv_dc, dq_dc, msg, cap);
}
