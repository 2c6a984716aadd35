/*
 * world.c -- dyn_world: bodies, settings and the time step that ties
 * collision, contact rows, assembly, a libsolvers solve and integration
 * together (seed 002's simulation loop).
 *
 * State per body: s = (r, q), u = (v, w) (world frame, dyn.h).  One step of
 * h = settings.dt, with g the gravity and f = (f_ext + m g, t_ext):
 *
 *   0. Verlet only: s <- s + h/2 S(u)                      (half drift)
 *   1. gyroscopic term on w (seed 001; integrate.c's dyn_body_update_velocity
 *      with zero loads): w <- w + dw_gyro(w), before the solve, as
 *      dyn_constraint.h asks ("updates w beforehand")
 *   2. collide at s: SAP pairs (dyn_broadphase_sap), in the broad phase's
 *      order or, settings.contact_order = DYN_ORDER_TOP_DOWN, highest pair
 *      first (below), narrow phase (dyn_collide_pair, margin =
 *      settings.margin); a pair of bodies tied by a joint is skipped (a
 *      sorted array of pair keys, binary search)
 *   3. joint rows first (dyn_joint_fill: equality rows lo = -inf, hi = +inf,
 *      limit and motor rows; room from dyn_joint_max_rows), then the
 *      contact rows (dyn_contact_fill, settings.contact), assembled into
 *          w = A x + b,  A = J M^-1 J^T + cfm,  b = J (u + h M^-1 f) - rhs
 *      (dyn_assemble; seed 000's unified boxed LCP), dense or CSR
 *   4. slv_solve with the named solver; x = impulses
 *   4b. a failed solve is judged before its x is applied: if its status is
 *      not converged, and not an iterative solver's budget stop (below),
 *      x must do no worse than no impulse at all,
 *          res_nat_inf(x) <= res_nat_inf(x0),  x0 = P(0) = mid(lo, hi, 0)
 *      (the library residual, slv_residual; x0 is 0 for every row the
 *      scenes write, and then w = A x0 + b = b costs O(rows)); else the
 *      step fails (Errors, below) and no impulse is applied
 *   5. u+ = u + M^-1 (J^T x + h f)   (dyn_apply_impulse; a body without
 *      rows gets u + h M^-1 f, which is dyn_body_update_velocity)
 *   6. position update with the integrator:
 *        symplectic Euler  s+ = s + h S(u+)
 *        explicit Euler    s+ = s + h S(u)     (the velocity before 1.)
 *        Verlet            s+ = s' + h/2 S(u+) (second half drift)
 *      where S(u) advances r by v and q by w (exponential map or the
 *      linear L(q) form, settings.orient).
 *   Without contacts this is dyn_body_step_free (integrate.c) for every
 *   body, up to the order of the floating-point additions.
 *
 * Energy (metrics): T = sum m |v|^2/2 + w.(I_w w)/2, V = -sum m g.r (zero at
 * z = 0 for g along -z), E = T + V.
 *
 * Storage: DYN_STORAGE_AUTO gives a dense A up to settings.dense_max_rows
 * rows; above, the matrix-free factored form (J and M^-1 J^T per row, slv.h
 * SLV_FACTORED: nothing O(nnz(A)) is formed, a pgs sweep costs 24 flops a
 * row) when the solver takes it and the friction model is not the pyramid,
 * else CSR (a dense A never exists for a large scene: each storage has its
 * own dyn_system), or dense at any size when the solver takes no CSR (then
 * at most DYN_WORLD_DENSE_LIMIT rows).  The CSR
 * capacity is an upper bound on nnz(A) counted in O(rows) from the row
 * count deg(beta) of each body: row i has at most deg(b0) + deg(b1) + 2
 * (+ the pyramid's eta + 1) entries.  Nothing per step is O(bodies^2) or
 * O(rows^2) on the CSR path.
 *
 * Warm start (Catto 2005, "Iterative dynamics with temporal coherence";
 * ODE quickstep and Bullet keep the last step's impulses the same way):
 * after each solve the contacts and x are kept; in the next step a contact
 * of the body pair (a, b) takes the impulses of the previous contact of the
 * same pair whose point is nearest (pairs found through an open-addressing
 * hash on (a, b), so O(contacts)).  The normal impulse is copied; a
 * friction impulse of the box or cone model is carried as the world vector
 * F = x_t1 t1 + x_t2 t2 and re-projected on the new tangents (the basis of
 * dyn_contact_basis turns with the normal); the pyramid's beta and lambda
 * are copied.  The kept impulses are scaled by settings.warm_factor
 * (default 0.7; Bullet uses 0.85): with pgs stopped at 50 sweeps, a full
 * warm start (1) left a 10-cube stack jittering (mean kinetic energy 0.34 J
 * over steps 120-600 of the stack scene, margin 0) where 0.7 gave 0.007 J.
 * A change of friction model drops the kept data.  Joint rows (rows
 * 0 .. joint_rows - 1) are kept per joint: joint i starts from its last
 * impulses, unscaled, when it wrote as many rows then (Catto's accumulated
 * joint impulses; a limit or motor row that appeared or went away changes
 * the count and drops them); the contact rows' slots follow the joint rows.
 *
 * Contact order: the contact rows follow the pairs, and a Gauss-Seidel
 * solver visits them in that order.  Sweep and prune reports pairs along x,
 * which on the peers' box pyramid interleaves the layers; top-down sorts
 * the pairs by the height of their dynamic bodies' mean centre along -g
 * (a stable radix sort, O(pairs), into a reserved buffer).  On
 * those pyramids at 50 warm-started pgs sweeps it leaves less penetration
 * (50 layers: 0.47 against 1.12 mm) and puts whole layers side by side,
 * which fills pgs_wide's lanes (10 layers: 30 batches of 4 groups instead
 * of 37), but the 30- and 40-layer pyramids creep further from their rest
 * place, and a 10-cube stack at the world's defaults settles less well
 * (experiments/README.md); so the default stays the broad phase's order.
 *
 * Joint error (metrics.joint_error): max over joints of
 * dyn_joint_anchor_error after the position update, the drift the next
 * step's Baumgarte term (erp / h) Phi corrects.
 *
 * Memory: every buffer grows geometrically (x 1.5) inside functions named
 * *_reserve, and only when a step needs more than any earlier one; the
 * solver workspace grows by x 1.25 (pgs sizes a packed copy of a dense A by
 * n_max^2 / 4).  A step of a settled scene allocates nothing.
 *
 * Errors: a solver that refuses the problem (slv_solve < 0), a storage the
 * solver cannot take, a contact dyn_contact_fill rejects, non-finite
 * impulses, a failed solve whose x is worse than no impulse (4b) and failed
 * growth end the step with an error and a message; the bodies are restored
 * to their state before the step (r, q, v, w saved at its start), the step
 * count and time do not advance, and the last step's problem is dropped
 * (dyn_world_last_problem gives n = 0) while the warm-start impulses of
 * the last successful step are kept.
 *
 * The rule of 4b (DYN_ERR_NUMERIC, message "step K: solver S ended in
 * STATUS with res_nat_inf R, worse than applying no impulse (res_nat_inf
 * of x = 0: R0); impulses not applied").  A pivoting solver that ends on a
 * ray, a singular pivot or a breakdown may return any x: lemke on the
 * 4-layer pyramid (verlet, 1/120 s) ended step 391 on a secondary ray with
 * res_nat_inf 2.6e6, and applying it sent the energy from 1e2 to 1e13 J.
 * Applying x0 instead would hide the failure (a step without any
 * constraint force), so the step fails and the run stops there with the
 * solver, its status and both residuals named.  Judged: every positive
 * status except max_iter with iterations > 0, i.e. an iterative method
 * stopped by its budget (pgs, pjacobi, the cone solvers, dantzig's outer
 * passes), whose x is its last or best iterate and is applied as before:
 * that is the normal mode of a fixed-sweep simulation, and there the
 * natural map in the inf-norm is no measure of harm.  pgs at 50 sweeps
 * has res_nat_inf 0.72 against 0.08 for x0 on the first step of the
 * pendulum scene and 0.37 against 0.095 on step 3 of slider_crank, yet the
 * pendulum keeps its period within 0.5 % (test_articulated) and
 * slider_crank its joints within 0.9 mm over 600 steps, while x0 would let
 * the joints come apart.  A pivoting solver's max_iter (its pivot limit;
 * iterations 0) is judged.  Non-finite x always fails.  Equal
 * residuals pass (a solver that returns x0 itself).
 *
 * Limitations: no islands, no sleeping; warm-start matching is by nearest
 * point, not by collision feature; the gyroscopic update precedes the
 * contact solve (so a contact impulse does not enter the implicit
 * gyroscopic Newton step).
 */
#define _POSIX_C_SOURCE 200809L

#include "dyn_world.h"
#include "dyn_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A dense A of n rows holds n^2 doubles: 8192 rows are 512 MiB. */
#define DYN_WORLD_DENSE_LIMIT 8192

/* A broad-phase pair, its height and that height quantised
 * (DYN_ORDER_TOP_DOWN). */
struct pair_key_s {
  double h;
  unsigned q;
  int a, b;
};

struct dyn_world {
  dyn_world_settings set;
  const slv_solver *solver;
  int rpc; /* rows per contact of set.contact */

  dyn_body *bodies;
  int nb;
  size_t cap_b;
  double *saved; /* 13 per body: r, q, v, w at the start of the step */
  size_t cap_saved;
  int *deg; /* rows per body (CSR bound) */
  size_t cap_deg;

  void *sap; /* SAP workspace, bytes */
  size_t cap_sap;
  int *pairs; /* 2 per pair */
  size_t cap_pairs;
  struct pair_key_s *psort; /* DYN_ORDER_TOP_DOWN: 2 per pair (keys, radix sort scratch) */
  size_t cap_psort;

  /* joints (dyn_joint.h), their rows first in every step's problem */
  dyn_joint *joints;
  int nj;
  size_t cap_j;
  uint64_t *jpairs; /* sorted pair_key(min, max) of the jointed body pairs: no contact */
  int njp;
  size_t cap_jpairs;
  int *jcnt; /* rows each joint wrote in this step */
  size_t cap_jcnt;
  int njrows; /* rows of the joints in this step */
  int *pjcnt; /* rows of each joint in the step kept for warm start (-1: none) */
  size_t cap_pjcnt;
  double *pjx; /* their impulses */
  size_t cap_pjx;
  int pj_valid;

  dyn_contact *con;
  int nc;
  size_t cap_con;
  dyn_rows *rows;
  int nrows;
  size_t cap_rows;
  double *x, *wv;
  size_t cap_x, cap_wv;
  double *x0; /* the reference impulses of a failed solve: P(0) (step 4b) */
  size_t cap_x0;

  dyn_system *sys_dense, *sys_csr, *sys_fact, *sys_last;
  int dense_rows, dense_nb, csr_rows, csr_nb, fact_rows, fact_nb;
  long csr_nnz;
  slv_problem prob;
  int have_prob;

  slv_workspace *ws;
  int ws_n;

  /* warm start: the previous step's contacts and impulses */
  dyn_contact *pcon;
  int pnc;
  size_t cap_pcon;
  double *px;
  size_t cap_px;
  double *ptan; /* box and cone friction: t1, t2 of each kept contact (6 doubles) */
  size_t cap_ptan;
  int prpc;
  dyn_friction pfric;
  uint64_t *hkey; /* open addressing; UINT64_MAX = empty */
  int *hfirst, *hcount;
  size_t hcap, cap_hkey, cap_hfirst, cap_hcount;

  long step;
  double t;
  long grows; /* buffer growths, workspace and system (re)creations */
  char msg[256];
};

/* ---- small helpers ----------------------------------------------------------- */

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static dyn_err wfail(dyn_world *w, dyn_err e, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static dyn_err wfail(dyn_world *w, dyn_err e, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  dyn_vmsgf(w->msg, sizeof w->msg, fmt, ap);
  va_end(ap);
  return e;
}


/* Grows p to hold at least need elements of elem bytes (x 1.5 steps),
 * counting the growth in *grows; returns the (possibly moved) buffer, or p
 * unchanged with *fail = 1. */
static void *buf_reserve(void *p, size_t *cap, size_t need, size_t elem, int *fail, long *grows) {
  if (need <= *cap && p)
    return p;
  size_t nc = *cap > 16 ? *cap : 16;
  while (nc < need)
    nc += nc / 2;
  if (nc > SIZE_MAX / elem) {
    *fail = 1;
    return p;
  }
  void *q = realloc(p, nc * elem);
  if (!q) {
    *fail = 1;
    return p;
  }
  *cap = nc;
  (*grows)++;
  return q;
}

static int v3_finite(dyn_v3 a) { return isfinite(a.x) && isfinite(a.y) && isfinite(a.z); }

/* ---- settings ------------------------------------------------------------------ */

dyn_world_settings dyn_world_settings_default(void) {
  dyn_world_settings s;
  memset(&s, 0, sizeof s);
  s.dt = 1.0 / 120.0;
  s.gravity = dyn_v3_make(0.0, 0.0, -9.81);
  s.integrator = DYN_INT_SYMPLECTIC_EULER;
  s.gyro = DYN_GYRO_IMPLICIT;
  s.orient = DYN_ORIENT_EXP;
  s.contact = dyn_contact_params_default();
  s.contact.friction = DYN_FRICTION_BOX;
  s.contact.mu = 0.5;
  s.margin = 0.0;
  snprintf(s.solver, sizeof s.solver, "%s", "pgs");
  s.opt = slv_options_default();
  s.opt.max_iter = 50; /* the peers' I = 50 sweeps */
  s.warm_start = 1;
  s.warm_factor = 0.7;
  s.storage = DYN_STORAGE_AUTO;
  s.dense_max_rows = 256;
  s.cone_law = SLV_CONE_COULOMB;
  s.contact_order = DYN_ORDER_BROADPHASE;
  return s;
}

dyn_err dyn_world_settings_validate(const dyn_world_settings *s, char *msg, size_t cap) {
  if (!s) {
    dyn_msgf(msg, cap, "world settings: NULL");
    return DYN_ERR_INPUT;
  }
  if (!(s->dt > 0.0) || !isfinite(s->dt)) {
    dyn_msgf(msg, cap, "dt=%g must be finite and > 0", s->dt);
    return DYN_ERR_INPUT;
  }
  if (!v3_finite(s->gravity)) {
    dyn_msgf(msg, cap, "gravity (%g, %g, %g) must be finite", s->gravity.x, s->gravity.y,
         s->gravity.z);
    return DYN_ERR_INPUT;
  }
  if (s->integrator < DYN_INT_SYMPLECTIC_EULER || s->integrator > DYN_INT_VERLET) {
    dyn_msgf(msg, cap, "integrator=%d is not a dyn_integrator", (int)s->integrator);
    return DYN_ERR_INPUT;
  }
  if (s->gyro < DYN_GYRO_NONE || s->gyro > DYN_GYRO_IMPLICIT) {
    dyn_msgf(msg, cap, "gyro=%d is not a dyn_gyro", (int)s->gyro);
    return DYN_ERR_INPUT;
  }
  if (s->orient < DYN_ORIENT_EXP || s->orient > DYN_ORIENT_LINEAR) {
    dyn_msgf(msg, cap, "orient=%d is not a dyn_orient", (int)s->orient);
    return DYN_ERR_INPUT;
  }
  char m2[200];
  if (dyn_contact_params_validate(&s->contact, m2, sizeof m2) != DYN_OK) {
    dyn_msgf(msg, cap, "%s", m2);
    return DYN_ERR_INPUT;
  }
  if (!(s->margin >= 0.0) || !isfinite(s->margin)) {
    dyn_msgf(msg, cap, "margin=%g must be finite and >= 0", s->margin);
    return DYN_ERR_INPUT;
  }
  if (!memchr(s->solver, '\0', sizeof s->solver) || !slv_solver_find(s->solver)) {
    dyn_msgf(msg, cap, "unknown solver '%.*s' (see 'lcplab solvers')", (int)sizeof s->solver,
         s->solver);
    return DYN_ERR_INPUT;
  }
  m2[0] = '\0';
  if (slv_options_validate(&s->opt, m2, sizeof m2) != SLV_OK) {
    dyn_msgf(msg, cap, "solver options: %s", m2[0] ? m2 : "rejected");
    return DYN_ERR_INPUT;
  }
  if (!(s->warm_factor >= 0.0 && s->warm_factor <= 1.0)) {
    dyn_msgf(msg, cap, "warm_factor=%g must be in [0, 1]", s->warm_factor);
    return DYN_ERR_INPUT;
  }
  if (s->storage < DYN_STORAGE_AUTO || s->storage > DYN_STORAGE_FACTORED) {
    dyn_msgf(msg, cap, "storage=%d is not a dyn_storage", (int)s->storage);
    return DYN_ERR_INPUT;
  }
  if (s->dense_max_rows < 0) {
    dyn_msgf(msg, cap, "dense_max_rows=%d must be >= 0", s->dense_max_rows);
    return DYN_ERR_INPUT;
  }
  if (s->cone_law != SLV_CONE_COULOMB && s->cone_law != SLV_CONE_ASSOCIATED) {
    dyn_msgf(msg, cap, "cone_law=%d is not a slv_cone_law", (int)s->cone_law);
    return DYN_ERR_INPUT;
  }
  if (s->contact_order != DYN_ORDER_BROADPHASE && s->contact_order != DYN_ORDER_TOP_DOWN) {
    dyn_msgf(msg, cap, "contact_order=%d is not a dyn_contact_order", (int)s->contact_order);
    return DYN_ERR_INPUT;
  }
  return DYN_OK;
}

/* ---- construction ------------------------------------------------------------------ */

void dyn_world_free(dyn_world *w) {
  if (!w)
    return;
  free(w->bodies);
  free(w->saved);
  free(w->deg);
  free(w->sap);
  free(w->pairs);
  free(w->psort);
  free(w->con);
  free(w->rows);
  free(w->x);
  free(w->wv);
  free(w->x0);
  dyn_system_free(w->sys_dense);
  dyn_system_free(w->sys_csr);
  dyn_system_free(w->sys_fact);
  slv_workspace_free(w->ws);
  free(w->pcon);
  free(w->px);
  free(w->ptan);
  free(w->hkey);
  free(w->hfirst);
  free(w->hcount);
  free(w->joints);
  free(w->jpairs);
  free(w->jcnt);
  free(w->pjcnt);
  free(w->pjx);
  free(w);
}

/* Body array and the per-body scratch for nb bodies. */
static dyn_err bodies_reserve(dyn_world *w, size_t nb) {
  int fail = 0;
  w->bodies = buf_reserve(w->bodies, &w->cap_b, nb, sizeof *w->bodies, &fail, &w->grows);
  w->saved = buf_reserve(w->saved, &w->cap_saved, 13 * nb, sizeof *w->saved, &fail, &w->grows);
  w->deg = buf_reserve(w->deg, &w->cap_deg, nb, sizeof *w->deg, &fail, &w->grows);
  size_t sapb = dyn_sap_workspace_size((int)nb), sap_had = w->cap_sap;
  w->sap = buf_reserve(w->sap, &w->cap_sap, sapb > 0 ? sapb : 1, 1, &fail, &w->grows);
  if (fail)
    return wfail(w, DYN_ERR_NOMEM, "out of memory for %zu bodies", nb);
  if (w->cap_sap != sap_had) /* new memory: its tag must be read as "no order kept" */
    dyn_sap_workspace_init(w->sap);
  return DYN_OK;
}

dyn_err dyn_world_new(const dyn_world_settings *s, int body_capacity, dyn_world **out,
                      char *msg, size_t msgcap) {
  if (!out) {
    dyn_msgf(msg, msgcap, "dyn_world_new: out is NULL");
    return DYN_ERR_INPUT;
  }
  *out = NULL;
  if (body_capacity < 0) {
    dyn_msgf(msg, msgcap, "dyn_world_new: body_capacity=%d must be >= 0", body_capacity);
    return DYN_ERR_INPUT;
  }
  dyn_err e = dyn_world_settings_validate(s, msg, msgcap);
  if (e != DYN_OK)
    return e;
  dyn_world *w = calloc(1, sizeof *w);
  if (!w) {
    dyn_msgf(msg, msgcap, "dyn_world_new: out of memory");
    return DYN_ERR_NOMEM;
  }
  w->set = *s;
  w->solver = slv_solver_find(s->solver);
  w->rpc = dyn_contact_max_rows(&s->contact);
  if (bodies_reserve(w, (size_t)body_capacity) != DYN_OK) {
    dyn_msgf(msg, msgcap, "dyn_world_new: %s", w->msg);
    dyn_world_free(w);
    return DYN_ERR_NOMEM;
  }
  *out = w;
  return DYN_OK;
}

dyn_err dyn_world_set_settings(dyn_world *w, const dyn_world_settings *s) {
  if (!w)
    return DYN_ERR_INPUT;
  dyn_err e = dyn_world_settings_validate(s, w->msg, sizeof w->msg);
  if (e != DYN_OK)
    return e;
  if (strcmp(s->solver, w->set.solver) != 0 || s->opt.max_iter != w->set.opt.max_iter
      || s->opt.record_history != w->set.opt.record_history) {
    /* the workspace is sized by the solver and (history) by max_iter */
    slv_workspace_free(w->ws);
    w->ws = NULL;
    w->ws_n = 0;
  }
  if (s->contact.friction != w->set.contact.friction || s->contact.eta != w->set.contact.eta)
    w->pnc = 0;
  w->set = *s;
  w->solver = slv_solver_find(s->solver);
  w->rpc = dyn_contact_max_rows(&s->contact);
  return DYN_OK;
}

const dyn_world_settings *dyn_world_get_settings(const dyn_world *w) { return w ? &w->set : NULL; }

static int m3_finite(const dyn_m3 *M) {
  for (int k = 0; k < 9; k++)
    if (!isfinite(M->m[k]))
      return 0;
  return 1;
}

int dyn_world_add_body(dyn_world *w, const dyn_body *b) {
  if (!w)
    return DYN_ERR_INPUT;
  w->msg[0] = '\0';
  int i = w->nb;
  if (!b)
    return wfail(w, DYN_ERR_INPUT, "body %d: NULL", i);
  if (!v3_finite(b->r) || !v3_finite(b->v) || !v3_finite(b->w) || !v3_finite(b->f_ext)
      || !v3_finite(b->t_ext))
    return wfail(w, DYN_ERR_INPUT, "body %d: r, v, w and the loads must be finite", i);
  double qn = dyn_quat_norm(b->q);
  if (!(qn > 0.0) || !isfinite(qn))
    return wfail(w, DYN_ERR_INPUT, "body %d: the quaternion must be finite and nonzero", i);
  if (!m3_finite(&b->I_b) || !m3_finite(&b->inv_I_b))
    return wfail(w, DYN_ERR_INPUT, "body %d: inertia not finite", i);
  if (b->is_static) {
    int zero = b->inv_mass == 0.0;
    for (int k = 0; k < 9; k++)
      zero = zero && b->inv_I_b.m[k] == 0.0;
    if (!zero)
      return wfail(w, DYN_ERR_INPUT, "body %d: a static body needs inv_mass = 0, inv_I_b = 0", i);
  } else {
    if (!(b->mass > 0.0) || !isfinite(b->mass))
      return wfail(w, DYN_ERR_INPUT, "body %d: mass=%g must be finite and > 0", i, b->mass);
    /* inv_mass must be 1/m (to rounding): assembly and integration read it */
    if (!(fabs(b->inv_mass * b->mass - 1.0) <= 1e-12))
      return wfail(w, DYN_ERR_INPUT, "body %d: inv_mass=%g is not 1/mass (mass=%g)", i,
                   b->inv_mass, b->mass);
    if (b->shape.kind == DYN_SHAPE_PLANE)
      return wfail(w, DYN_ERR_INPUT, "body %d: a PLANE shape only on a static body", i);
  }
  if (w->nb == INT32_MAX)
    return wfail(w, DYN_ERR_INPUT, "too many bodies");
  dyn_err e = bodies_reserve(w, (size_t)w->nb + 1);
  if (e != DYN_OK)
    return e;
  w->bodies[i] = *b;
  w->bodies[i].q = dyn_quat_normalize(b->q);
  w->nb++;
  return i;
}

int dyn_world_body_count(const dyn_world *w) { return w ? w->nb : 0; }

/* ---- joints ------------------------------------------------------------------------ */

static uint64_t pair_key(int a, int b);

/* Room for nj joints and their per-joint data, and njp jointed pairs. */
static dyn_err joints_reserve(dyn_world *w, size_t nj, size_t njp) {
  int fail = 0;
  w->joints = buf_reserve(w->joints, &w->cap_j, nj, sizeof *w->joints, &fail, &w->grows);
  w->jcnt = buf_reserve(w->jcnt, &w->cap_jcnt, nj, sizeof *w->jcnt, &fail, &w->grows);
  w->pjcnt = buf_reserve(w->pjcnt, &w->cap_pjcnt, nj, sizeof *w->pjcnt, &fail, &w->grows);
  w->jpairs = buf_reserve(w->jpairs, &w->cap_jpairs, njp, sizeof *w->jpairs, &fail, &w->grows);
  if (fail)
    return wfail(w, DYN_ERR_NOMEM, "out of memory for %zu joints", nj);
  return DYN_OK;
}

/* 1 iff bodies a < b are tied by a joint (binary search in jpairs). */
static int jointed(const dyn_world *w, int a, int b) {
  uint64_t key = pair_key(a, b);
  int lo = 0, hi = w->njp;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (w->jpairs[mid] < key)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < w->njp && w->jpairs[lo] == key;
}

int dyn_world_add_joint(dyn_world *w, const dyn_joint *j) {
  if (!w)
    return DYN_ERR_INPUT;
  w->msg[0] = '\0';
  int i = w->nj;
  if (!j)
    return wfail(w, DYN_ERR_INPUT, "joint %d: NULL", i);
  char m[200];
  if (dyn_joint_validate(j, w->nb, m, sizeof m) != DYN_OK)
    return wfail(w, DYN_ERR_INPUT, "joint %d: %s", i, m);
  int sa = w->bodies[j->a].is_static, sb = j->b < 0 || w->bodies[j->b].is_static;
  if (sa && sb)
    return wfail(w, DYN_ERR_INPUT, "joint %d: bodies %d and %d are both static", i, j->a, j->b);
  if (w->nj == INT32_MAX)
    return wfail(w, DYN_ERR_INPUT, "too many joints");
  dyn_err e = joints_reserve(w, (size_t)w->nj + 1, (size_t)w->njp + 1);
  if (e != DYN_OK)
    return e;
  w->joints[i] = *j;
  w->pjcnt[i] = -1;
  w->jcnt[i] = 0;
  w->nj++;
  if (j->b >= 0) {
    int a = j->a < j->b ? j->a : j->b, b = j->a < j->b ? j->b : j->a;
    if (!jointed(w, a, b)) {
      /* insertion keeps jpairs sorted */
      uint64_t key = pair_key(a, b);
      int k = w->njp;
      while (k > 0 && w->jpairs[k - 1] > key) {
        w->jpairs[k] = w->jpairs[k - 1];
        k--;
      }
      w->jpairs[k] = key;
      w->njp++;
    }
  }
  return i;
}

int dyn_world_joint_count(const dyn_world *w) { return w ? w->nj : 0; }
dyn_joint *dyn_world_joints(dyn_world *w) { return w ? w->joints : NULL; }

double dyn_world_joint_error(const dyn_world *w) {
  double err = 0.0;
  for (int i = 0; w && i < w->nj; i++) {
    double e = dyn_joint_anchor_error(w->bodies, w->nb, &w->joints[i]);
    if (!(e <= err)) /* NaN wins: a broken joint must show */
      err = e;
  }
  return err;
}
dyn_body *dyn_world_bodies(dyn_world *w) { return w ? w->bodies : NULL; }
const char *dyn_world_message(const dyn_world *w) { return w ? w->msg : "world is NULL"; }
long dyn_world_step_count(const dyn_world *w) { return w ? w->step : 0; }
long dyn_world_grow_count(const dyn_world *w) { return w ? w->grows : 0; }
double dyn_world_time(const dyn_world *w) { return w ? w->t : 0.0; }

double dyn_world_energy(const dyn_world *w, double *kinetic, double *potential) {
  double T = 0.0, V = 0.0;
  for (int i = 0; w && i < w->nb; i++) {
    const dyn_body *b = &w->bodies[i];
    if (b->is_static)
      continue;
    T += dyn_body_kinetic(b);
    V -= b->mass * dyn_v3_dot(w->set.gravity, b->r);
  }
  if (kinetic)
    *kinetic = T;
  if (potential)
    *potential = V;
  return T + V;
}

void dyn_world_last_problem(const dyn_world *w, slv_problem *p, const double **x) {
  if (p)
    *p = (w && w->have_prob) ? w->prob : slv_problem_empty();
  if (x)
    *x = (w && w->have_prob) ? w->x : NULL;
}

const dyn_contact *dyn_world_contacts(const dyn_world *w, int *n) {
  if (n)
    *n = w ? w->nc : 0;
  return w ? w->con : NULL;
}

/* ---- collision ---------------------------------------------------------------------- */

/* The np pairs of w->pairs highest first (DYN_ORDER_TOP_DOWN): height
 * h = -g . c, c the mean centre of the pair's dynamic bodies (of both when
 * neither is), quantised to 22 bits over [min h, max h] and sorted by a
 * stable two-pass radix sort (11 bits a pass) on w->psort (2 np entries,
 * reserved by the caller): O(pairs), no branch on the data (a merge sort's
 * comparisons took 6 % of a 3000-sphere pile's step), nothing allocated.
 * Heights within one quantum (2.4e-7 of the range) keep the broad phase's
 * order, as do all pairs when the range is 0 or not finite. */
static void sort_pairs_top_down(dyn_world *w, long np) {
  enum { BITS = 11, NBUCKET = 1 << BITS };
  struct pair_key_s *k = w->psort, *t = w->psort + np;
  dyn_v3 g = w->set.gravity;
  double hmin = INFINITY, hmax = -INFINITY;
  for (long i = 0; i < np; i++) {
    int a = w->pairs[2 * i], b = w->pairs[2 * i + 1];
    const dyn_body *A = &w->bodies[a], *B = &w->bodies[b];
    dyn_v3 c;
    if (A->is_static == B->is_static)
      c = dyn_v3_scale(dyn_v3_add(A->r, B->r), 0.5);
    else
      c = A->is_static ? B->r : A->r;
    double h = -dyn_v3_dot(g, c);
    k[i] = (struct pair_key_s){ h, 0, a, b };
    hmin = h < hmin ? h : hmin;
    hmax = h > hmax ? h : hmax;
  }
  double range = hmax - hmin;
  if (!(range > 0.0) || !isfinite(range))
    return;
  /* q = 0 for the highest pair: ascending q is descending height */
  const double qend = (double)(1u << (2 * BITS)), scale = (qend - 1.0) / range;
  for (long i = 0; i < np; i++) {
    double q = (hmax - k[i].h) * scale; /* in [0, qend) for finite h */
    k[i].q = q >= 0.0 && q < qend ? (unsigned)q : 0u;
  }
  unsigned cnt[NBUCKET];
  for (int pass = 0; pass < 2; pass++) {
    int shift = pass * BITS;
    memset(cnt, 0, sizeof cnt);
    for (long i = 0; i < np; i++)
      cnt[(k[i].q >> shift) & (NBUCKET - 1)]++;
    for (unsigned d = 0, acc = 0; d < NBUCKET; d++) {
      unsigned c = cnt[d];
      cnt[d] = acc;
      acc += c;
    }
    for (long i = 0; i < np; i++)
      t[cnt[(k[i].q >> shift) & (NBUCKET - 1)]++] = k[i];
    struct pair_key_s *swap = k;
    k = t;
    t = swap;
  }
  for (long i = 0; i < np; i++) {
    w->pairs[2 * i] = k[i].a;
    w->pairs[2 * i + 1] = k[i].b;
  }
}

/* Broad + narrow phase on the current state; contacts written from
 * con[offset]; *nout points, *maxpen the deepest (>= 0).  order: the pairs
 * in settings.contact_order (else as the broad phase gives them). */
static dyn_err collide_reserve(dyn_world *w, int offset, int order, int *nout, double *maxpen) {
  int nb = w->nb, fail = 0;
  double margin = w->set.margin;
  *nout = 0;
  *maxpen = 0.0;
  long np;
  for (;;) {
    np = dyn_broadphase_sap(w->bodies, nb, margin, w->sap, w->pairs, (long)w->cap_pairs);
    if (np < 0)
      return wfail(w, DYN_ERR_INPUT, "broad phase rejected the bodies (%ld)", np);
    if ((size_t)np <= w->cap_pairs && w->pairs)
      break;
    w->pairs = buf_reserve(w->pairs, &w->cap_pairs, (size_t)np, 2 * sizeof *w->pairs, &fail,
                           &w->grows);
    if (fail)
      return wfail(w, DYN_ERR_NOMEM, "out of memory for %ld body pairs", np);
  }
  if (order && w->set.contact_order == DYN_ORDER_TOP_DOWN && np > 1) {
    w->psort = buf_reserve(w->psort, &w->cap_psort, 2 * (size_t)np, sizeof *w->psort, &fail,
                           &w->grows);
    if (fail)
      return wfail(w, DYN_ERR_NOMEM, "out of memory for sorting %ld body pairs", np);
    sort_pairs_top_down(w, np);
  }
  size_t need = (size_t)offset + (size_t)DYN_MAX_MANIFOLD * (size_t)np;
  if (need > (size_t)INT32_MAX)
    return wfail(w, DYN_ERR_NOMEM, "%ld body pairs are too many", np);
  w->con = buf_reserve(w->con, &w->cap_con, need, sizeof *w->con, &fail, &w->grows);
  if (fail)
    return wfail(w, DYN_ERR_NOMEM, "out of memory for %zu contacts", need);
  int nc = 0;
  double pen = 0.0;
  for (long k = 0; k < np; k++) {
    int ia = w->pairs[2 * k], ib = w->pairs[2 * k + 1];
    if (w->njp > 0 && jointed(w, ia < ib ? ia : ib, ia < ib ? ib : ia))
      continue; /* a joint ties them: no contact between them */
    dyn_contact *c = w->con + offset + nc;
    int m = dyn_collide_pair(w->bodies, ia, ib, margin, c);
    if (m < 0)
      return wfail(w, DYN_ERR_INPUT, "narrow phase rejected bodies %d and %d (%d)", ia, ib, m);
    for (int j = 0; j < m; j++)
      if (c[j].depth > pen)
        pen = c[j].depth;
    nc += m;
  }
  *nout = nc;
  *maxpen = pen;
  return DYN_OK;
}

dyn_err dyn_world_penetration(dyn_world *w, double *max_pen, int *ncontacts) {
  if (!w)
    return DYN_ERR_INPUT;
  w->msg[0] = '\0';
  dyn_err e = bodies_reserve(w, (size_t)w->nb);
  if (e != DYN_OK)
    return e;
  int n = 0;
  double pen = 0.0;
  /* after the last step's contacts, so that they stay valid */
  e = collide_reserve(w, w->nc, 0, &n, &pen);
  if (e != DYN_OK)
    return e;
  if (max_pen)
    *max_pen = pen;
  if (ncontacts)
    *ncontacts = n;
  return DYN_OK;
}

/* ---- warm start --------------------------------------------------------------------- */

static uint64_t pair_key(int a, int b) { return ((uint64_t)(uint32_t)a << 32) | (uint32_t)b; }

static size_t hash_slot(uint64_t key, size_t cap) {
  /* Fibonacci hashing; cap is a power of two */
  return (size_t)((key * 0x9E3779B97F4A7C15ULL) >> 17) & (cap - 1);
}

/* The unit direction e of a contact row (dyn_contact_fill's put_row:
 * J_b = (e, ..) on a moving body b, else J_a = (-e, ..)); negation is
 * exact, so these are dyn_contact_basis's vectors bit for bit. */
static dyn_v3 row_dir(const dyn_rows *r) {
  if (r->body[1] >= 0)
    return dyn_v3_make(r->J[1][0], r->J[1][1], r->J[1][2]);
  return dyn_v3_make(-r->J[0][0], -r->J[0][1], -r->J[0][2]);
}

static int has_tangents(dyn_friction fr) {
  return fr == DYN_FRICTION_BOX || fr == DYN_FRICTION_CONE;
}

/* Keep this step's contacts and impulses (and, for box and cone friction,
 * the tangents t1, t2 their friction impulses are along) for the next one. */
static dyn_err warm_reserve(dyn_world *w) {
  int fail = 0, nc = w->nc;
  size_t nr = (size_t)nc * (size_t)w->rpc;
  int tan = has_tangents(w->set.contact.friction);
  w->pcon = buf_reserve(w->pcon, &w->cap_pcon, (size_t)nc, sizeof *w->pcon, &fail, &w->grows);
  w->px = buf_reserve(w->px, &w->cap_px, nr, sizeof *w->px, &fail, &w->grows);
  if (tan)
    w->ptan = buf_reserve(w->ptan, &w->cap_ptan, 6 * (size_t)nc, sizeof *w->ptan, &fail,
                          &w->grows);
  size_t hc = 16;
  while (hc < 2 * (size_t)nc)
    hc *= 2;
  w->hkey = buf_reserve(w->hkey, &w->cap_hkey, hc, sizeof *w->hkey, &fail, &w->grows);
  w->hfirst = buf_reserve(w->hfirst, &w->cap_hfirst, hc, sizeof *w->hfirst, &fail, &w->grows);
  w->hcount = buf_reserve(w->hcount, &w->cap_hcount, hc, sizeof *w->hcount, &fail, &w->grows);
  if (fail) {
    w->pnc = 0;
    return wfail(w, DYN_ERR_NOMEM, "out of memory for the warm-start data of %d contacts", nc);
  }
  if (nc > 0) /* a step with joint rows only may have no contact buffers yet */
    memcpy(w->pcon, w->con, (size_t)nc * sizeof *w->pcon);
  if (nr > 0)
    memcpy(w->px, w->x + w->njrows, nr * sizeof *w->px);
  for (int c = 0; tan && c < nc; c++) {
    const dyn_rows *r = w->rows + w->njrows + (size_t)c * (size_t)w->rpc;
    dyn_v3 t1 = row_dir(r + 1), t2 = row_dir(r + 2);
    double *t = w->ptan + 6 * (size_t)c;
    t[0] = t1.x, t[1] = t1.y, t[2] = t1.z, t[3] = t2.x, t[4] = t2.y, t[5] = t2.z;
  }
  w->pnc = nc;
  w->prpc = w->rpc;
  w->pfric = w->set.contact.friction;
  w->hcap = hc;
  for (size_t s = 0; s < hc; s++)
    w->hkey[s] = UINT64_MAX;
  /* the contacts of one pair are consecutive (one dyn_collide_pair call) */
  size_t last = 0;
  for (int c = 0; c < nc; c++) {
    uint64_t key = pair_key(w->pcon[c].a, w->pcon[c].b);
    if (c > 0 && w->hkey[last] == key) {
      w->hcount[last]++;
      continue;
    }
    size_t s = hash_slot(key, hc);
    while (w->hkey[s] != UINT64_MAX && w->hkey[s] != key)
      s = (s + 1) & (hc - 1);
    if (w->hkey[s] == key) { /* a pair seen twice (not expected): keep the first run */
      last = s;
      continue;
    }
    w->hkey[s] = key;
    w->hfirst[s] = c;
    w->hcount[s] = 1;
    last = s;
  }
  return DYN_OK;
}

/* Keep this step's joint impulses (rows 0 .. njrows - 1) for the next one. */
static dyn_err joint_warm_reserve(dyn_world *w) {
  int fail = 0;
  w->pjx = buf_reserve(w->pjx, &w->cap_pjx, (size_t)w->njrows, sizeof *w->pjx, &fail, &w->grows);
  if (fail) {
    w->pj_valid = 0;
    return wfail(w, DYN_ERR_NOMEM, "out of memory for the warm-start data of %d joint rows",
                 w->njrows);
  }
  /* no joint rows: the buffers may still be NULL (memcpy wants valid
   * pointers even for 0 bytes) */
  if (w->njrows > 0)
    memcpy(w->pjx, w->x, (size_t)w->njrows * sizeof *w->pjx);
  if (w->nj > 0)
    memcpy(w->pjcnt, w->jcnt, (size_t)w->nj * sizeof *w->pjcnt);
  w->pj_valid = 1;
  return DYN_OK;
}

/* Joint rows from the kept impulses: joint i's rows start from its last
 * impulses when it wrote as many rows then (same rows in the same order: a
 * limit or motor row that came or went changes the count and drops them).
 * Joint impulses are persistent (the load a joint carries changes slowly),
 * so they are taken whole, not scaled by warm_factor, which tames the
 * re-matched contact points only. */
static void warm_fill_joints(dyn_world *w) {
  if (!w->set.warm_start || !w->pj_valid)
    return;
  int off = 0, poff = 0;
  for (int i = 0; i < w->nj; i++) {
    int m = w->jcnt[i], pm = w->pjcnt[i];
    if (pm == m)
      memcpy(w->x + off, w->pjx + poff, (size_t)m * sizeof *w->x);
    off += m;
    poff += pm > 0 ? pm : 0;
  }
}

/* x of this step's rows from the kept impulses (zeros where nothing
 * matches); joint rows first, contact c's rows at njrows + c rpc. */
static void warm_fill(dyn_world *w) {
  int rpc = w->rpc;
  memset(w->x, 0, (size_t)w->nrows * sizeof *w->x);
  warm_fill_joints(w);
  if (!w->set.warm_start || w->pnc == 0 || w->prpc != rpc
      || w->pfric != w->set.contact.friction)
    return;
  dyn_friction fr = w->set.contact.friction;
  for (int c = 0; c < w->nc; c++) {
    const dyn_contact *cc = &w->con[c];
    uint64_t key = pair_key(cc->a, cc->b);
    size_t s = hash_slot(key, w->hcap);
    while (w->hkey[s] != UINT64_MAX && w->hkey[s] != key)
      s = (s + 1) & (w->hcap - 1);
    if (w->hkey[s] != key)
      continue;
    int best = -1;
    double dbest = INFINITY;
    for (int k = w->hfirst[s]; k < w->hfirst[s] + w->hcount[s]; k++) {
      dyn_v3 d = dyn_v3_sub(w->pcon[k].p, cc->p);
      double d2 = dyn_v3_dot(d, d);
      if (d2 < dbest) {
        dbest = d2;
        best = k;
      }
    }
    const double *xp = w->px + (size_t)best * (size_t)rpc;
    double *xc = w->x + (size_t)w->njrows + (size_t)c * (size_t)rpc;
    double f = w->set.warm_factor;
    xc[0] = f * xp[0];
    if (has_tangents(fr)) {
      /* the kept tangents and this step's, from the rows: dyn_contact_basis
       * of each contact's normal */
      const double *tp = w->ptan + 6 * (size_t)best;
      dyn_v3 t1p = dyn_v3_make(tp[0], tp[1], tp[2]), t2p = dyn_v3_make(tp[3], tp[4], tp[5]);
      const dyn_rows *r = w->rows + (size_t)w->njrows + (size_t)c * (size_t)rpc;
      dyn_v3 t1 = row_dir(r + 1), t2 = row_dir(r + 2);
      dyn_v3 F = dyn_v3_add(dyn_v3_scale(t1p, f * xp[1]), dyn_v3_scale(t2p, f * xp[2]));
      xc[1] = dyn_v3_dot(F, t1);
      xc[2] = dyn_v3_dot(F, t2);
    } else {
      for (int r = 1; r < rpc; r++)
        xc[r] = f * xp[r];
    }
  }
}

/* ---- assembly storage and solver workspace ------------------------------------------- */

/* An upper bound on nnz(A) of the rows (see the header comment). */
static long csr_bound(dyn_world *w) {
  const dyn_rows *rows = w->rows;
  int n = w->nrows;
  for (int i = 0; i < n; i++)
    for (int k = 0; k < 2; k++)
      if (rows[i].body[k] >= 0)
        w->deg[rows[i].body[k]] = 0;
  for (int i = 0; i < n; i++)
    for (int k = 0; k < 2; k++)
      if (rows[i].body[k] >= 0)
        w->deg[rows[i].body[k]]++;
  long nnz = 0;
  for (int i = 0; i < n; i++) {
    long m = 2;
    for (int k = 0; k < 2; k++)
      if (rows[i].body[k] >= 0)
        m += w->deg[rows[i].body[k]];
    if (rows[i].kind == DYN_ROW_AUX)
      m += 1 + rows[i].aux_count;
    nnz += m;
  }
  return nnz;
}

static dyn_err system_reserve(dyn_world *w, slv_storage storage, dyn_system **out) {
  int n = w->nrows, nb = (int)w->cap_b;
  char m[200];
  m[0] = '\0';
  if (storage == SLV_FACTORED) {
    if (!w->sys_fact || n > w->fact_rows || nb > w->fact_nb) {
      int r = n > w->fact_rows ? n + n / 2 : w->fact_rows;
      dyn_err e;
      if (!w->sys_fact)
        e = dyn_system_new(r, nb, DYN_SYS_FACTORED, 0, &w->sys_fact, m, sizeof m);
      else
        e = dyn_system_reserve(w->sys_fact, r, nb, DYN_SYS_FACTORED, 0);
      if (e != DYN_OK)
        return wfail(w, e, "cannot reserve a factored system of %d rows: %s", r,
                     w->sys_fact ? dyn_system_message(w->sys_fact) : m);
      w->grows++;
      w->fact_rows = r;
      w->fact_nb = nb;
    }
    *out = w->sys_fact;
    return DYN_OK;
  }
  if (storage == SLV_DENSE) {
    if (n > DYN_WORLD_DENSE_LIMIT)
      return wfail(w, DYN_ERR_INPUT,
                   "a dense A of %d rows is too large (limit %d): use a solver that takes CSR",
                   n, DYN_WORLD_DENSE_LIMIT);
    if (!w->sys_dense || n > w->dense_rows || nb > w->dense_nb) {
      int r = n > w->dense_rows ? n + n / 2 : w->dense_rows;
      if (r > DYN_WORLD_DENSE_LIMIT)
        r = DYN_WORLD_DENSE_LIMIT;
      if (w->set.storage == DYN_STORAGE_AUTO && (w->solver->caps & SLV_CAP_SPARSE)
          && r > w->set.dense_max_rows && n <= w->set.dense_max_rows)
        r = w->set.dense_max_rows;
      dyn_err e;
      if (!w->sys_dense)
        e = dyn_system_new(r, nb, DYN_SYS_DENSE, 0, &w->sys_dense, m, sizeof m);
      else
        e = dyn_system_reserve(w->sys_dense, r, nb, DYN_SYS_DENSE, 0);
      if (e != DYN_OK)
        return wfail(w, e, "cannot reserve a dense system of %d rows: %s", r,
                     w->sys_dense ? dyn_system_message(w->sys_dense) : m);
      w->grows++;
      w->dense_rows = r;
      w->dense_nb = nb;
    }
    *out = w->sys_dense;
    return DYN_OK;
  }
  long nnz = csr_bound(w);
  if (!w->sys_csr || n > w->csr_rows || nb > w->csr_nb || nnz > w->csr_nnz) {
    int r = n > w->csr_rows ? n + n / 2 : w->csr_rows;
    long z = nnz > w->csr_nnz ? nnz + nnz / 2 : w->csr_nnz;
    if (z > INT32_MAX)
      z = nnz;
    dyn_err e;
    if (!w->sys_csr)
      e = dyn_system_new(r, nb, DYN_SYS_CSR, z, &w->sys_csr, m, sizeof m);
    else
      e = dyn_system_reserve(w->sys_csr, r, nb, DYN_SYS_CSR, z);
    if (e != DYN_OK)
      return wfail(w, e, "cannot reserve a CSR system of %d rows, %ld entries: %s", r, z,
                   w->sys_csr ? dyn_system_message(w->sys_csr) : m);
    w->grows++;
    w->csr_rows = r;
    w->csr_nb = nb;
    w->csr_nnz = z;
  }
  *out = w->sys_csr;
  return DYN_OK;
}

/* The storage of this step's problem (settings.storage, dyn_world.h). */
static dyn_err pick_storage(dyn_world *w, slv_storage *out) {
  const dyn_world_settings *S = &w->set;
  unsigned caps = w->solver->caps;
  int sparse_ok = (caps & SLV_CAP_SPARSE) != 0, fact_ok = (caps & SLV_CAP_FACTORED) != 0;
  int pyramid = S->contact.friction == DYN_FRICTION_PYRAMID;
  switch (S->storage) {
  case DYN_STORAGE_DENSE:
    *out = SLV_DENSE;
    return DYN_OK;
  case DYN_STORAGE_CSR:
    if (!sparse_ok)
      return wfail(w, DYN_ERR_INPUT, "solver %s takes dense storage only (storage csr asked)",
                   w->solver->name);
    *out = SLV_CSR;
    return DYN_OK;
  case DYN_STORAGE_FACTORED:
    if (!fact_ok)
      return wfail(w, DYN_ERR_INPUT,
                   "solver %s needs an explicit A (storage factored asked; pgs takes it)",
                   w->solver->name);
    if (pyramid)
      return wfail(w, DYN_ERR_INPUT,
                   "the friction pyramid has no factored form (storage factored asked)");
    *out = SLV_FACTORED;
    return DYN_OK;
  case DYN_STORAGE_AUTO:
  default:
    if (!sparse_ok || w->nrows <= S->dense_max_rows)
      *out = SLV_DENSE;
    else
      *out = fact_ok && !pyramid ? SLV_FACTORED : SLV_CSR;
    return DYN_OK;
  }
}

static dyn_err solver_reserve(dyn_world *w) {
  int n = w->nrows;
  if (w->ws && n <= w->ws_n)
    return DYN_OK;
  /* x 1.25: pgs's workspace grows with n_max^2 */
  int nn = n + n / 4 > w->ws_n ? n + n / 4 : w->ws_n;
  slv_workspace_free(w->ws);
  w->ws = NULL;
  w->ws_n = 0;
  slv_status st = slv_workspace_new(w->solver, nn, &w->set.opt, &w->ws);
  if (st != SLV_OK || !w->ws)
    return wfail(w, st == SLV_ERR_NOMEM ? DYN_ERR_NOMEM : DYN_ERR_INPUT,
                 "cannot create the workspace of solver %s for n=%d: %s", w->solver->name, nn,
                 slv_status_str(st));
  w->ws_n = nn;
  w->grows++;
  return DYN_OK;
}

static dyn_err rows_reserve(dyn_world *w, size_t nrows) {
  int fail = 0;
  w->rows = buf_reserve(w->rows, &w->cap_rows, nrows, sizeof *w->rows, &fail, &w->grows);
  w->x = buf_reserve(w->x, &w->cap_x, nrows, sizeof *w->x, &fail, &w->grows);
  w->wv = buf_reserve(w->wv, &w->cap_wv, nrows, sizeof *w->wv, &fail, &w->grows);
  w->x0 = buf_reserve(w->x0, &w->cap_x0, nrows, sizeof *w->x0, &fail, &w->grows);
  if (fail)
    return wfail(w, DYN_ERR_NOMEM, "out of memory for %zu rows", nrows);
  return DYN_OK;
}

/* ---- the step --------------------------------------------------------------------------- */

/* The library residual of applying no impulse: the yardstick a solve that
 * did not converge must beat (step 4b).  The reference is x0 = P(0), the
 * projection of 0 on the bounds, rather than 0 itself: a row whose box
 * excludes 0 (lo > 0 or hi < 0; no contact, joint, limit or motor row
 * writes one today, but slv_problem allows it) would make x = 0
 * infeasible, a yardstick no solver could be blamed for missing; P(0)
 * (slv_start_point) is also where slv_solve starts without a warm start.
 * A findex row's bounds
 * at x0 are -mu |x0_j| .. mu |x0_j| = 0 .. 0, and a cone's apex 0 lies in
 * the cone, so both take 0.  When P(0) = 0 (*moved = 0), w = A 0 + b = b
 * exactly, so the measure costs O(n): no product of A, and the factored
 * form's fwork is not touched.  Otherwise w is recomputed (one product). */
static slv_residuals no_impulse_residual(dyn_world *w, int *moved) {
  const slv_problem *p = &w->prob;
  *moved = slv_start_point(p, w->x0);
  return slv_residual(p, w->x0, *moved ? NULL : p->b);
}

static void save_state(dyn_world *w) {
  for (int i = 0; i < w->nb; i++) {
    const dyn_body *b = &w->bodies[i];
    double *s = w->saved + 13 * (size_t)i;
    s[0] = b->r.x, s[1] = b->r.y, s[2] = b->r.z;
    s[3] = b->q.w, s[4] = b->q.x, s[5] = b->q.y, s[6] = b->q.z;
    s[7] = b->v.x, s[8] = b->v.y, s[9] = b->v.z;
    s[10] = b->w.x, s[11] = b->w.y, s[12] = b->w.z;
  }
}

static void restore_state(dyn_world *w) {
  for (int i = 0; i < w->nb; i++) {
    dyn_body *b = &w->bodies[i];
    const double *s = w->saved + 13 * (size_t)i;
    b->r = dyn_v3_make(s[0], s[1], s[2]);
    b->q = dyn_quat_make(s[3], s[4], s[5], s[6]);
    b->v = dyn_v3_make(s[7], s[8], s[9]);
    b->w = dyn_v3_make(s[10], s[11], s[12]);
  }
}

static dyn_err step_fail(dyn_world *w, dyn_err e) {
  restore_state(w);
  w->have_prob = 0;
  w->nc = 0;
  w->nrows = 0;
  w->njrows = 0;
  return e;
}

dyn_err dyn_world_step(dyn_world *w, dyn_world_metrics *m) {
  if (!w)
    return DYN_ERR_INPUT;
  double t_start = now_s();
  w->msg[0] = '\0';
  const dyn_world_settings *S = &w->set;
  const double h = S->dt;
  const dyn_v3 g = S->gravity, zero = dyn_v3_make(0.0, 0.0, 0.0);
  const int nb = w->nb;
  const long k = w->step + 1;
  dyn_err e = bodies_reserve(w, (size_t)nb);
  if (e != DYN_OK)
    return e;
  save_state(w);
  w->have_prob = 0;

  if (S->integrator == DYN_INT_VERLET)
    for (int i = 0; i < nb; i++)
      dyn_body_update_position(&w->bodies[i], 0.5 * h, S->orient);

  /* 1. gyroscopic term: dyn_body_update_velocity with no load and no gravity
   * changes w by dw_gyro only */
  if (S->gyro != DYN_GYRO_NONE)
    for (int i = 0; i < nb; i++) {
      dyn_body *b = &w->bodies[i];
      if (b->is_static)
        continue;
      dyn_v3 f = b->f_ext, t = b->t_ext;
      b->f_ext = zero;
      b->t_ext = zero;
      dyn_body_update_velocity(b, h, zero, S->gyro);
      b->f_ext = f;
      b->t_ext = t;
    }

  /* 2. collision */
  double tc = now_s(), maxpen = 0.0;
  int nc = 0;
  e = collide_reserve(w, 0, 1, &nc, &maxpen);
  if (e != DYN_OK) {
    snprintf(w->msg + strlen(w->msg), sizeof w->msg - strlen(w->msg), " (step %ld)", k);
    return step_fail(w, e);
  }
  w->nc = nc;
  double collide_time = now_s() - tc;

  /* 3. rows: the joints' (dyn_joint_max_rows reserves them), then the contacts' */
  int rpc = w->rpc;
  size_t jmax = 0;
  for (int j = 0; j < w->nj; j++) {
    int mr = dyn_joint_max_rows(&w->joints[j]);
    if (mr <= 0) {
      char jm[200] = "";
      dyn_joint_validate(&w->joints[j], nb, jm, sizeof jm);
      wfail(w, DYN_ERR_INPUT, "step %ld: joint %d: %s", k, j, jm[0] ? jm : "invalid");
      return step_fail(w, DYN_ERR_INPUT);
    }
    jmax += (size_t)mr;
  }
  size_t nrows = jmax + (size_t)nc * (size_t)rpc;
  if (nrows > (size_t)INT32_MAX / 2) {
    wfail(w, DYN_ERR_NOMEM, "step %ld: %zu rows are too many", k, nrows);
    return step_fail(w, DYN_ERR_NOMEM);
  }
  if ((e = rows_reserve(w, nrows)) != DYN_OK)
    return step_fail(w, e);
  int jr = 0;
  for (int j = 0; j < w->nj; j++) {
    int r = dyn_joint_fill(w->bodies, nb, &w->joints[j], h, w->rows, jr);
    if (r < 0) {
      char jm[200] = "";
      dyn_joint_validate(&w->joints[j], nb, jm, sizeof jm);
      wfail(w, DYN_ERR_INPUT, "step %ld: joint %d between bodies %d and %d rejected by the "
            "rows code: %s", k, j, w->joints[j].a, w->joints[j].b,
            jm[0] ? jm : "a non-finite pose");
      return step_fail(w, DYN_ERR_INPUT);
    }
    w->jcnt[j] = r;
    jr += r;
  }
  w->njrows = jr;
  nrows = (size_t)jr + (size_t)nc * (size_t)rpc;
  w->nrows = (int)nrows;
  for (int c = 0; c < nc; c++) {
    int r = dyn_contact_fill(w->bodies, nb, &w->con[c], &S->contact, h, w->rows, jr + c * rpc);
    if (r != rpc) {
      const dyn_contact *cc = &w->con[c];
      wfail(w, DYN_ERR_INPUT,
            "step %ld: contact %d between bodies %d and %d rejected by the rows code "
            "(|normal| = %.17g, depth = %g)", k, c, cc->a, cc->b, dyn_v3_norm(cc->normal),
            cc->depth);
      return step_fail(w, DYN_ERR_INPUT);
    }
  }

  slv_result res;
  memset(&res, 0, sizeof res);
  res.status = SLV_CONVERGED;
  double solve_time = 0.0;
  slv_storage storage = SLV_DENSE;
  if (nrows == 0) {
    /* 5. without rows: u+ = u + h M^-1 f */
    for (int i = 0; i < nb; i++)
      dyn_body_update_velocity(&w->bodies[i], h, g, DYN_GYRO_NONE);
  } else {
    if ((e = pick_storage(w, &storage)) != DYN_OK)
      return step_fail(w, e);
    dyn_system *sys = NULL;
    if ((e = system_reserve(w, storage, &sys)) != DYN_OK || (e = solver_reserve(w)) != DYN_OK)
      return step_fail(w, e);
    e = dyn_assemble(sys, w->bodies, nb, w->rows, w->nrows, h, g, storage, &w->prob);
    if (e != DYN_OK) {
      wfail(w, e, "step %ld: assembly: %s", k, dyn_system_message(sys));
      return step_fail(w, e);
    }
    w->prob.cone_law = S->cone_law;
    warm_fill(w);
    slv_options opt = S->opt;
    opt.warm_start = S->warm_start ? 1 : 0;
    double ts = now_s();
    slv_status st = slv_solve(w->ws, &w->prob, &opt, w->x, w->wv, &res);
    solve_time = now_s() - ts;
    if (st < 0) {
      wfail(w, DYN_ERR_INPUT, "step %ld: solver %s refused the problem (%s): %s", k,
            w->solver->name, slv_status_str(st), res.message[0] ? res.message : "no detail");
      return step_fail(w, DYN_ERR_INPUT);
    }
    /* 4b. a solve that failed is applied only if its x is no worse than no
     * impulse at all: res_nat_inf(x) <= res_nat_inf(P(0)), x finite.
     * res_nat_inf is the measure slv.h judges "converged" by (res_rel
     * divides it by max(1, ||b||_inf), the same for both points, so the
     * order is the same) and the one the metrics report.  Judged: every
     * status but converged, except an iterative solver stopped by its
     * budget (max_iter with iterations > 0: pgs after 50 sweeps, pjacobi,
     * nsgs, dantzig's outer passes), whose x is its last or best iterate,
     * applied unchanged as before; the reason is in the header comment. */
    int budget_stop = st == SLV_MAX_ITER && res.iterations > 0;
    if (st != SLV_CONVERGED && !(budget_stop && isfinite(res.res.res_nat_inf))) {
      int moved = 0;
      double rx = res.res.res_nat_inf, r0 = no_impulse_residual(w, &moved).res_nat_inf;
      if (!isfinite(rx) || rx > r0) {
        wfail(w, DYN_ERR_NUMERIC,
              "step %ld: solver %s ended in %s with res_nat_inf %.2e, worse than applying no "
              "impulse (res_nat_inf of x = %s: %.2e); impulses not applied", k,
              w->solver->name, slv_status_str(st), rx, moved ? "P(0)" : "0", r0);
        return step_fail(w, DYN_ERR_NUMERIC);
      }
    }
    /* 5. u+ = u + M^-1 (J^T x + h f) */
    e = dyn_apply_impulse(sys, w->bodies, nb, w->x, h, g);
    if (e != DYN_OK) {
      wfail(w, e, "step %ld: solver %s returned %s impulses (status %s)", k, w->solver->name,
            e == DYN_ERR_NUMERIC ? "non-finite" : "unusable", slv_status_str(st));
      return step_fail(w, e);
    }
    w->sys_last = sys;
    w->have_prob = 1;
    if (S->warm_start && ((e = warm_reserve(w)) != DYN_OK || (e = joint_warm_reserve(w)) != DYN_OK))
      return step_fail(w, e);
  }
  if (nrows == 0)
    w->pnc = 0;

  /* 6. positions */
  for (int i = 0; i < nb; i++) {
    dyn_body *b = &w->bodies[i];
    if (b->is_static)
      continue;
    switch (S->integrator) {
    case DYN_INT_EXPLICIT_EULER: {
      /* s+ = s + h S(u) with the velocity of the start of the step */
      const double *s = w->saved + 13 * (size_t)i;
      dyn_v3 v1 = b->v, w1 = b->w;
      b->v = dyn_v3_make(s[7], s[8], s[9]);
      b->w = dyn_v3_make(s[10], s[11], s[12]);
      dyn_body_update_position(b, h, S->orient);
      b->v = v1;
      b->w = w1;
      break;
    }
    case DYN_INT_VERLET:
      dyn_body_update_position(b, 0.5 * h, S->orient);
      break;
    case DYN_INT_SYMPLECTIC_EULER:
    default:
      dyn_body_update_position(b, h, S->orient);
      break;
    }
  }
  w->step = k;
  w->t += h;

  if (m) {
    memset(m, 0, sizeof *m);
    m->step = k;
    m->t = w->t;
    m->energy = dyn_world_energy(w, &m->kinetic, &m->potential);
    m->max_penetration = maxpen;
    m->contacts = nc;
    m->rows = (int)nrows;
    m->iterations = nrows ? res.iterations : 0;
    m->res_nat_inf = nrows ? res.res.res_nat_inf : 0.0;
    m->solve_time_s = solve_time;
    m->collide_time_s = collide_time;
    m->status = res.status;
    m->dense = nrows && storage == SLV_DENSE;
    m->storage = storage;
    m->joint_rows = w->njrows;
    m->joint_error = dyn_world_joint_error(w);
    m->step_time_s = now_s() - t_start;
  }
  return DYN_OK;
}
