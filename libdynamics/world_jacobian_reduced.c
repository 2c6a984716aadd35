/*
 * world_jacobian_reduced.c -- the derivative of the last step of a world
 * in reduced coordinates (dyn_world_step_jacobian, dyn_world.h;
 * docs/gradients.md, "Through a world step").
 *
 * With the contact set, the geometry and every row's rhs held fixed, the
 * step (world_reduced.c) is, in the tree's joint velocities u (ndof),
 *     z  = u_free(u, f) = u + A_r^-1 h (f_r(q, u, f) - D u - h K u)
 *     x  = x(b),  b = G z - rhs          (the solve; A = G A_r^-1 G^T + cfm)
 *     u+ = z + Y x,  Y = A_r^-1 G^T      (apply)
 * so that, with X = dx/db at the applied x (slv_sensitivity, each row's
 * mode held),
 *     Z      = du+/dz = I + Y X G,
 *     du+/du = Z du_free/du,   du+/df = Z du_free/df,
 * f the bodies' loads (f_ext, t_ext: 6 per body, static and tree-less
 * bodies' columns zero).  du_free/du (Coriolis terms: nonlinear in u) and
 * du_free/df (linear) are taken by central differences, step 1e-6 (1 +
 * |u|_inf) and 1e-6 (1 + |f|_inf), of dyn_redmax_free_velocity itself, on a
 * scratch copy of the tree set to the step's starting state: the world is
 * not touched.  The positions follow the tree's integrator
 * (dyn_redmax_advance) in tangent coordinates, one per dof: a hinge's or a
 * slide's q+ = q + h u+ (dq+ = h du+), a ball's Q+ = Q exp(h u+) in the
 * child frame (dth with Q+ -> Q+ exp(dth): dth = h Jr(h u+) du+, Jr(phi) =
 * Jl(-phi) the right Jacobian of SO(3)'s exponential map).  The controls
 * (dyn_world_step_jacobian_ctrl): du+/dctrl = Z du_free/dctrl, du_free/dctrl
 * by central differences of the controls' forces (dyn_ctrl_apply) likewise.
 */
#include "world_data.h"
#include "world_reduced.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The scratch of one call: ndof nd, rows n, loads' columns nf. */
typedef struct rjac {
  int nd, n, nf;
  double *Z, *Fu, *Ff; /* nd x nd, nd x nd, nd x nf, row-major */
  double *V;           /* nd x max(nd, nf): Z Fu or Z Ff */
  double *up, *um, *u, *db, *dx;
  dyn_v3 *fx, *tx; /* per tree body: the step's loads, moved one at a time */
  dyn_redmax *rm;  /* the scratch tree */
} rjac;

static void rjac_free(rjac *k) {
  free(k->Z), free(k->Fu), free(k->Ff), free(k->V), free(k->up), free(k->um), free(k->u);
  free(k->db), free(k->dx), free(k->fx), free(k->tx);
  dyn_redmax_free(k->rm);
}

static dyn_err rjac_alloc(rjac *k, const dyn_reduced_view *v, int nf, char *msg, size_t cap) {
  memset(k, 0, sizeof *k);
  const size_t nd = (size_t)v->ndof, nt = (size_t)v->tree->nt, n1 = (size_t)v->n + 1;
  k->nd = v->ndof, k->n = v->n, k->nf = nf;
  k->Z = malloc(nd * nd * sizeof(double) + 8), k->Fu = malloc(nd * nd * sizeof(double) + 8);
  k->Ff = malloc(nd * (size_t)nf * sizeof(double) + 8);
  k->V = malloc(nd * (size_t)(nf > v->ndof ? nf : v->ndof) * sizeof(double) + 8);
  k->up = malloc(nd * sizeof(double) + 8), k->um = malloc(nd * sizeof(double) + 8);
  k->u = malloc(nd * sizeof(double) + 8);
  k->db = malloc(n1 * sizeof(double)), k->dx = malloc(n1 * sizeof(double));
  k->fx = malloc(nt * sizeof(dyn_v3) + 8), k->tx = malloc(nt * sizeof(dyn_v3) + 8);
  if (!(k->Z && k->Fu && k->Ff && k->V && k->up && k->um && k->u && k->db && k->dx && k->fx &&
        k->tx)) {
    rjac_free(k);
    memset(k, 0, sizeof *k);
    dyn_msgf(msg, cap, "step_jacobian: out of memory for %d joint velocities", v->ndof);
    return DYN_ERR_NOMEM;
  }
  memcpy(k->fx, v->fx, nt * sizeof(dyn_v3));
  memcpy(k->tx, v->tx, nt * sizeof(dyn_v3));
  char m2[160] = "";
  dyn_err e = dyn_redmax_new(v->tree->defs, v->tree->nt, &k->rm, m2, sizeof m2);
  if (e != DYN_OK) {
    rjac_free(k);
    memset(k, 0, sizeof *k);
    dyn_msgf(msg, cap, "step_jacobian: the scratch tree: %s", m2);
  }
  return e;
}

/* u_free of the scratch tree from (q0, u) with the loads in k, into out. */
static dyn_err free_velocity(const dyn_world *w, rjac *k, const dyn_reduced_view *v,
                             const double *u, double *out, char *msg, size_t cap) {
  char m2[160] = "";
  dyn_err e = dyn_redmax_set_state(k->rm, v->q0, u, m2, sizeof m2);
  if (e == DYN_OK)
    e = dyn_redmax_free_velocity(k->rm, w->set.dt, w->set.gravity, k->fx, k->tx, out, m2,
                                 sizeof m2);
  if (e != DYN_OK) dyn_msgf(msg, cap, "step_jacobian: the free velocity: %s", m2);
  return e;
}

/* Column c of F (nd rows, ld columns) = (up - um) / (2 e). */
static void fd_column(rjac *k, double *F, int ld, int c, double e) {
  for (int r = 0; r < k->nd; r++) F[(size_t)r * ld + c] = (k->up[r] - k->um[r]) / (2.0 * e);
}

/* Fu = du_free/du by central differences. */
static dyn_err free_velocity_du(const dyn_world *w, rjac *k, const dyn_reduced_view *v, char *msg,
                                size_t cap) {
  double big = 0.0;
  for (int c = 0; c < k->nd; c++) big = fmax(big, fabs(v->u0[c]));
  const double e = 1e-6 * (1.0 + big);
  dyn_err err = DYN_OK;
  for (int c = 0; err == DYN_OK && c < k->nd; c++) {
    memcpy(k->u, v->u0, (size_t)k->nd * sizeof(double));
    k->u[c] = v->u0[c] + e;
    err = free_velocity(w, k, v, k->u, k->up, msg, cap);
    k->u[c] = v->u0[c] - e;
    if (err == DYN_OK) err = free_velocity(w, k, v, k->u, k->um, msg, cap);
    if (err == DYN_OK) fd_column(k, k->Fu, k->nd, c, e);
  }
  return err;
}

static double *load_slot(rjac *k, int t, int d) {
  dyn_v3 *a = d < 3 ? &k->fx[t] : &k->tx[t];
  return d % 3 == 0 ? &a->x : d % 3 == 1 ? &a->y : &a->z;
}

/* Ff = du_free/d(f_ext, t_ext) of every body by central differences (a
 * linear map: exact to rounding). */
static dyn_err free_velocity_df(const dyn_world *w, rjac *k, const dyn_reduced_view *v, char *msg,
                                size_t cap) {
  memset(k->Ff, 0, (size_t)k->nd * (size_t)k->nf * sizeof(double));
  dyn_err err = DYN_OK;
  for (int i = 0; err == DYN_OK && i < w->nb; i++) {
    const int t = v->tree->tree_of[i];
    if (t < 0 || w->bodies.c[i].is_static) continue;
    for (int d = 0; err == DYN_OK && d < 6; d++) {
      double *f = load_slot(k, t, d), f0 = *f, e = 1e-6 * (1.0 + fabs(f0));
      *f = f0 + e;
      err = free_velocity(w, k, v, v->u0, k->up, msg, cap);
      *f = f0 - e;
      if (err == DYN_OK) err = free_velocity(w, k, v, v->u0, k->um, msg, cap);
      *f = f0;
      if (err == DYN_OK) fd_column(k, k->Ff, k->nf, 6 * i + d, e);
    }
  }
  return err;
}

/* Z e_c += Y_i dx_i over row i's trees' dofs (Y is stale elsewhere). */
static void add_row_column(rjac *k, const dyn_reduced_view *v, int i, int c) {
  const int t0 = v->rtree[2 * i], t1 = v->rtree[2 * i + 1];
  if (k->dx[i] == 0.0) return;
  for (int s = 0; s < 2; s++) {
    const int t = s ? t1 : t0, *d;
    if (t < 0 || (s && t1 == t0)) continue;
    const int m = dyn_redmax_tree_dofs(v->rm, t, &d);
    for (int j = 0; j < m; j++)
      k->Z[(size_t)d[j] * k->nd + c] += v->Y[(size_t)i * k->nd + d[j]] * k->dx[i];
  }
}

/* Z = I + Y X G, column by column: db = G e_c, dx = X db, Z e_c = e_c + Y dx. */
static slv_status z_of(rjac *k, const dyn_reduced_view *v, slv_sensitivity *s, char *msg,
                       size_t cap) {
  const int nd = k->nd;
  for (int c = 0; c < nd; c++) {
    int touched = 0;
    for (int i = 0; i < k->n; i++) {
      k->db[i] = v->Gt[(size_t)i * nd + c];
      touched |= k->db[i] != 0.0;
    }
    for (int r = 0; r < nd; r++) k->Z[(size_t)r * nd + c] = r == c ? 1.0 : 0.0;
    if (!touched) continue;
    slv_status st = slv_sensitivity_jvp(s, k->n, NULL, k->db, NULL, NULL, NULL, k->dx, msg, cap);
    if (st != SLV_OK) return st;
    for (int i = 0; i < k->n; i++) add_row_column(k, v, i, c);
  }
  return SLV_OK;
}

/* Z from the sensitivity of the step's answer (regularised where its free
 * block is singular), *info its modes. */
static dyn_err z_matrix(const dyn_world *w, rjac *k, const dyn_reduced_view *v,
                        dyn_step_jacobian_info *info, char *msg, size_t cap) {
  slv_problem p, q;
  const double *x = NULL;
  dyn_world_last_problem(w, &p, &x);
  if (!x) {
    dyn_msgf(msg, cap, "step_jacobian: the last step applied no impulses (it failed)");
    return DYN_ERR_INPUT;
  }
  slv_sensitivity *s = NULL;
  void *keep = NULL;
  double delta = 0.0;
  char m2[400] = "";
  slv_status st = dyn_jac_answer_sensitivity(w, &p, x, &q, &keep, &delta, &s, m2, sizeof m2);
  if (st == SLV_OK) st = z_of(k, v, s, m2, sizeof m2);
  if (st == SLV_OK && info) {
    slv_sensitivity_counts c = slv_sensitivity_count(s);
    *info =
        (dyn_step_jacobian_info){ p.n, c.free, c.lower, c.upper, c.sliding, c.degenerate, delta };
  }
  slv_sensitivity_free(s);
  free(keep);
  if (st == SLV_OK) return DYN_OK;
  dyn_msgf(msg, cap, "step_jacobian: the step's answer (step %ld): %s", w->step, m2);
  return st == SLV_ERR_NOMEM ? DYN_ERR_NOMEM : DYN_ERR_NUMERIC;
}

/* out (nd x nc) = Z F (F nd x nc). */
static void z_times(const rjac *k, const double *F, int nc, double *out) {
  const int nd = k->nd;
  for (int r = 0; r < nd; r++)
    for (int c = 0; c < nc; c++) {
      double s = 0.0;
      for (int j = 0; j < nd; j++) s += k->Z[(size_t)r * nd + j] * F[(size_t)j * nc + c];
      out[(size_t)r * nc + c] = s;
    }
}

/* out (nd x nc) = T V, T the integrator's tangent map of u+ (the header):
 * h on a hinge's or a slide's dof, h Jr(h u+) on a ball's three. */
static void positions_of(const dyn_world *w, const dyn_reduced_view *v, const double *V, int nc,
                         double *out) {
  const double h = w->set.dt;
  for (size_t i = 0; i < (size_t)v->ndof * nc; i++) out[i] = h * V[i];
  for (int b = 0; b < dyn_redmax_nbodies(v->rm); b++) {
    int uo;
    if (dyn_redmax_joint_kind(v->rm, b) != DYN_RM_BALL) continue;
    dyn_redmax_offsets(v->rm, b, NULL, &uo);
    const double *un = v->unew + uo;
    dyn_m3 Jr = dyn_so3_left_jacobian(dyn_v3_make(-h * un[0], -h * un[1], -h * un[2]));
    for (int c = 0; c < nc; c++)
      for (int r = 0; r < 3; r++) {
        double s = 0.0;
        for (int d = 0; d < 3; d++) s += Jr.m[3 * r + d] * V[(size_t)(uo + d) * nc + c];
        out[(size_t)(uo + r) * nc + c] = h * s;
      }
  }
}

/* The view of w's last step, or 0 with msg saying why there is none. */
/* A fixed tendon with a spring or damper: its forces on u_free
 * (world_reduced.c, tendon_springs) are not in the scratch tree's. */
static int tendon_spring(const dyn_model *m) {
  const dyn_tendon_def *t = dyn_model_tendons(m);
  for (int i = 0; i < dyn_model_tendon_count(m); i++)
    if (t[i].stiffness > 0.0 || t[i].damping > 0.0) return i;
  return -1;
}

static int view_of(const dyn_world *w, dyn_reduced_view *v, char *msg, size_t cap) {
  int t = tendon_spring(w->model);
  if (t >= 0) {
    dyn_msgf(msg, cap,
             "step_jacobian: tendon '%s': a fixed tendon's spring and damper are not "
             "differentiated",
             dyn_model_tendons(w->model)[t].name);
    return 0;
  }
  if (dyn_reduced_view_of(w, v)) return 1;
  dyn_msgf(msg, cap,
           "step_jacobian: no step with rows since the world was built or restored "
           "(a step without rows is the free motion)");
  return 0;
}

/* u_free of the scratch tree at the step's start under controls c. */
static dyn_err free_velocity_at(const dyn_world *w, rjac *k, const dyn_reduced_view *v,
                                const double *c, double *effort, double *out, char *msg,
                                size_t cap) {
  int j = -1, i = dyn_ctrl_apply(w->model, v->tree, k->rm, c, effort, &j);
  if (i >= 0) {
    dyn_msgf(msg, cap, "step_jacobian: ctrl[%d]: its joint %d takes no force", i, j);
    return DYN_ERR_INPUT;
  }
  return free_velocity(w, k, v, v->u0, out, msg, cap);
}

/* The controls' scratch of a ctrl derivative: nc controls, then one effort
 * per joint of w's model (NULL when out of memory). */
static double *ctrl_scratch_alloc(const dyn_world *w, int nc) {
  return malloc(((size_t)nc + (size_t)dyn_model_joint_count(w->model)) * sizeof(double) + 8);
}

/* Ff = du_free/dctrl (nd x nc) by central differences, step 1e-6 (1 +
 * |ctrl_i|), of the controls' forces on the scratch tree (its
 * slider-cranks the world's). */
static dyn_err free_velocity_dc(const dyn_world *w, rjac *k, const dyn_reduced_view *v, char *msg,
                                size_t cap) {
  const int nc = k->nf;
  double *c = ctrl_scratch_alloc(w, nc);
  dyn_err err = c ? dyn_ctrl_cranks_init(w->model, v->tree, k->rm) : DYN_ERR_NOMEM;
  if (err != DYN_OK) {
    free(c);
    dyn_msgf(msg, cap, "step_jacobian: the scratch tree's slider-cranks (error %d)", (int)err);
    return err;
  }
  memcpy(c, dyn_world_ctrl(w), (size_t)nc * sizeof(double));
  for (int i = 0; err == DYN_OK && i < nc; i++) {
    const double c0 = c[i], e = 1e-6 * (1.0 + fabs(c0));
    c[i] = c0 + e;
    err = free_velocity_at(w, k, v, c, c + nc, k->up, msg, cap);
    c[i] = c0 - e;
    if (err == DYN_OK) err = free_velocity_at(w, k, v, c, c + nc, k->um, msg, cap);
    c[i] = c0;
    if (err == DYN_OK) fd_column(k, k->Ff, nc, i, e);
  }
  free(c);
  return err;
}

dyn_err dyn_reduced_step_jacobian_ctrl(const dyn_world *w, double *dv_dc, double *dq_dc, char *msg,
                                       size_t cap) {
  dyn_reduced_view v;
  if (!view_of(w, &v, msg, cap)) return DYN_ERR_INPUT;
  const int nd = v.ndof, nc = dyn_world_ctrl_count(w);
  rjac k;
  dyn_err e = rjac_alloc(&k, &v, nc, msg, cap);
  if (e != DYN_OK) return e;
  e = z_matrix(w, &k, &v, NULL, msg, cap);
  if (e == DYN_OK) e = free_velocity_dc(w, &k, &v, msg, cap);
  if (e == DYN_OK) {
    z_times(&k, k.Ff, nc, k.V); /* du+/dctrl */
    if (dv_dc) memcpy(dv_dc, k.V, (size_t)nd * nc * sizeof(double));
    if (dq_dc) positions_of(w, &v, k.V, nc, dq_dc);
  }
  rjac_free(&k);
  return e;
}

dyn_err dyn_reduced_step_jacobian(const dyn_world *w, double *dv_du, double *dv_df, double *dq_du,
                                  double *dq_df, dyn_step_jacobian_info *info, char *msg,
                                  size_t cap) {
  dyn_reduced_view v;
  if (!view_of(w, &v, msg, cap)) return DYN_ERR_INPUT;
  const int nd = v.ndof, nf = 6 * w->nb;
  rjac k;
  dyn_err e = rjac_alloc(&k, &v, nf, msg, cap);
  if (e != DYN_OK) return e;
  e = z_matrix(w, &k, &v, info, msg, cap);
  if (e == DYN_OK && (dv_du || dq_du)) e = free_velocity_du(w, &k, &v, msg, cap);
  if (e == DYN_OK && (dv_df || dq_df)) e = free_velocity_df(w, &k, &v, msg, cap);
  if (e == DYN_OK && (dv_du || dq_du)) {
    z_times(&k, k.Fu, nd, k.V); /* du+/du */
    if (dv_du) memcpy(dv_du, k.V, (size_t)nd * nd * sizeof(double));
    if (dq_du) positions_of(w, &v, k.V, nd, dq_du);
  }
  if (e == DYN_OK && (dv_df || dq_df)) {
    z_times(&k, k.Ff, nf, k.V); /* du+/df */
    if (dv_df) memcpy(dv_df, k.V, (size_t)nd * nf * sizeof(double));
    if (dq_df) positions_of(w, &v, k.V, nf, dq_df);
  }
  rjac_free(&k);
  return e;
}
