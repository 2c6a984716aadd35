/*
 * world_reduced.c -- a world in reduced coordinates (docs/redmax.md,
 * "Contacts"; docs/models.md, "Third-party models: the representation"):
 * the state is the joint coordinates q and velocities u of the model's
 * tree (dyn_redmax, redmax_model.c's dyn_rm_tree_of_model), the bodies'
 * poses and velocities are exported after every step, so that collision,
 * the contact rows, the metrics, the output and the failure policy are the
 * world's own.  The step differs in five stages:
 *
 *   prepare     the state saved (the bodies, for a failed step)
 *   build rows  the world's joint rows of the loops' cut joints (world
 *               joints on the bodies: dyn_rm_tree.cut; docs/redmax.md,
 *               "Loops"), then one row per joint limit or motor or fixed
 *               tendon limit in joint space (joint.c's dyn_joint_coord_rows:
 *               the rhs, bounds and cfm of the world's own limit and motor
 *               rows), all where the world puts its joint rows (the step's
 *               joint_rows), then the world's contact rows on the bodies
 *   assemble    u_free = u + A_r^-1 h (f_r - D u - h K u) (dyn_redmax_free_velocity,
 *               A_r = Mr + armature + h D + h^2 K); each row mapped to joint
 *               space, G_i = sum over its sides of (R^T J_ang, R^T J_lin) Phi_b
 *               (Phi_b: body b's rows of the tree's Jacobian, body-frame
 *               twists (omega, v), so the world-frame row is rotated into
 *               the body frame; a cut joint's row the same), or sum_k c_k
 *               e_k for a coordinate row (a joint's +-e_k, a tendon's
 *               coefficients); a tendon's spring and damper add
 *               h A_r^-1 G^T f to u_free (tendon_springs);
 *                   A = G A_r^-1 G^T + diag(cfm),  b = G u_free - rhs
 *               dense (every solver takes it), formed tree by tree, only its
 *               blocks written and cleared (clear_dense_a) (A_r is
 *               block diagonal, one block per tree of the forest; a row moves
 *               one tree or two: row_trees), bounds, findex and cones from
 *               assemble.c (dyn_assemble_bounds); a still row, one that moves
 *               no dof (G_i A_r^-1 G_i^T ~ 0: a hinge chain has no velocity
 *               across its plane), decoupled with a unit-scale diagonal
 *               (decouple_still_rows)
 *   apply       u+ = u_free + A_r^-1 G^T x
 *   integrate   q+ from u+ (dyn_redmax_advance: hinge and slide additive,
 *               balls by the exponential map), the bodies' poses and
 *               velocities exported
 * Collide, solve, judge and metrics are the world's.  The joint error is
 * the cut joints' (0 without a loop: the tree's joints hold by
 * construction); the tree's step is semi-implicit Euler with the
 * Coriolis terms of f_r explicit, so the settings' integrator, orientation
 * update and a given gyroscopic choice other than that are refused
 * (world.c, validate_reduced); the coarse
 * correction is in the bodies' velocities and is skipped; the failure
 * policy's energy rule is measured in joint space
 * (dyn_reduced_impulse_energy); the friction pyramid is refused.
 */
#include "dyn_assemble_internal.h"
#include "dyn_tendon.h"
#include "redmax_internal.h"
#include "world_data.h"
#include "world_reduced.h"

#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* A coordinate of joint space with a limit, a motor or a spring: a joint's
 * (one term, c the model's coordinate's sign against the tree's) or a
 * fixed tendon's length (a term per joint, c its coef times that sign):
 * value sum_k c[k] q[qoff[k]], rate sum_k c[k] u[dof[k]], row G = sum_k
 * c[k] e_dof[k]. */
typedef struct rcoord {
  int n;                             /* terms, 1 .. DYN_ACTUATOR_MAX_JOINTS */
  int dof[DYN_ACTUATOR_MAX_JOINTS];  /* each term's velocity in u */
  int qoff[DYN_ACTUATOR_MAX_JOINTS]; /* and position in q */
  double c[DYN_ACTUATOR_MAX_JOINTS];
  int tree[2]; /* the forest's trees it moves (-1: none) */
  dyn_joint_limit limit;
  dyn_joint_motor motor;
  double k, d, rest; /* a tendon's spring: f = -k (value - rest) - d rate */
} rcoord;

struct dyn_reduced {
  dyn_redmax *rm;
  dyn_rm_tree tree;
  int ndof, nq, ncoord;
  rcoord *coord; /* ncoord rows' coordinates: joints', then tendons' limits */
  int nspring;   /* the tendons' springs */
  rcoord *spring;
  double *tau;          /* ndof: the springs' generalized forces of a step */
  int c0, nlim;         /* the limit and motor rows of this step: rows c0 .. c0 + nlim - 1,
                           after the loops' cut joints' rows 0 .. c0 - 1 */
  int nstill;           /* its still rows (decouple_still_rows) */
  dyn_buf_int crow;     /* per coordinate row: its coordinate */
  int ntree;            /* the forest's trees (dyn_redmax_tree_count) */
  dyn_buf_int rtree;    /* per row: the (up to two) trees it moves, -1 for none */
  int *toff;            /* ntree + 1 offsets into tlist, then ntree cursors */
  dyn_buf_int tlist;    /* tree t's rows: tlist[toff[t] .. toff[t + 1]), ascending */
  dyn_buf_double Gt, Y; /* ndof x nrows: G^T, then A_r^-1 G^T (column i set on its
                           row's trees' dofs only, the rest left as it was: row_trees) */
  int ngt;              /* G^T's columns set by the last assembly (the rest of Gt is 0) */
  const double *abuf;   /* the dense A the last assembly wrote (clear_dense_a) */
  int an;               /* its rows */
  int aclean;           /* 1: abuf is 0 but on the last assembly's blocks (its trees'
                           rows, tlist, and the diagonal), its solve passed the judge */
  dyn_buf_int soff;     /* per row and side: its support's offset into sup (2 nrows + 1) */
  dyn_buf_int sup;      /* row i's support on its tree rtree[2 i + k]: the dofs where G_i
                           is not 0, in the tree's order, at sup[soff[2 i + k] ..
                           soff[2 i + k + 1]): A's products skip G_i's zeros */
  double *ufree, *unew, *q, *u;
  double *du, *gx;             /* ndof: the energy rule's A_r^-1 G^T x and G^T x */
  dyn_v3 *fx, *tx, *r, *v, *w; /* per tree body */
  dyn_quat *qw;
  uint64_t *fpairs; /* the body pairs a frame chain separates (dyn_reduced_frame_pairs) */
  int nfpairs;
};

void dyn_reduced_free(struct dyn_reduced *r) {
  if (!r) return;
  dyn_redmax_free(r->rm);
  dyn_rm_tree_free(&r->tree);
  free(r->coord);
  free(r->spring);
  free(r->tau);
  dyn_buf_free(&r->crow);
  dyn_buf_free(&r->rtree);
  dyn_buf_free(&r->tlist);
  free(r->toff);
  dyn_buf_free(&r->Gt);
  dyn_buf_free(&r->Y);
  dyn_buf_free(&r->soff);
  dyn_buf_free(&r->sup);
  free(r->ufree), free(r->unew), free(r->q), free(r->u), free(r->du), free(r->gx);
  free(r->fx), free(r->tx), free(r->r), free(r->v), free(r->w), free(r->qw);
  free(r->fpairs);
  free(r);
}

/* ---- construction ------------------------------------------------------------------ */

/* Coordinate c's term for model joint j (its tree body t): its dof, its
 * position and coef times the sign of the model's coordinate; its tree
 * into c->tree (0: two already, another refused). */
static int coord_term(struct dyn_reduced *red, rcoord *c, int j, double coef) {
  int t = red->tree.jbody[j], uo, qo, f;
  dyn_redmax_offsets(red->rm, t, &qo, &uo);
  f = dyn_redmax_body_tree(red->rm, t);
  c->dof[c->n] = uo;
  c->qoff[c->n] = qo;
  c->c[c->n++] = coef * (double)red->tree.jsign[j];
  if (f == c->tree[0] || f == c->tree[1]) return 1;
  if (c->tree[1] >= 0) return 0;
  c->tree[c->tree[0] < 0 ? 0 : 1] = f;
  return 1;
}

/* The coordinates with a limit or a motor: the joints'. */
static void joint_coords(struct dyn_reduced *red, const dyn_model *m) {
  for (int j = 0; j < m->nj; j++) {
    const dyn_joint_def *d = &m->joints.p[j];
    if (red->tree.jbody[j] < 0 || !(d->limit.enabled || d->motor.enabled)) continue;
    rcoord *c = &red->coord[red->ncoord++];
    c->tree[0] = c->tree[1] = -1;
    coord_term(red, c, j, 1.0);
    c->limit = d->limit;
    c->motor = d->motor;
  }
}

/* Fixed tendon d as a coordinate into c (its limit, its spring); 0 when
 * its joints are in more than two trees or one is not in the tree. */
static int tendon_coord(struct dyn_reduced *red, const dyn_tendon_def *d, rcoord *c) {
  memset(c, 0, sizeof *c);
  c->tree[0] = c->tree[1] = -1;
  for (int k = 0; k < d->njoints; k++)
    if (red->tree.jbody[d->joint[k]] < 0 || !coord_term(red, c, d->joint[k], d->coef[k])) return 0;
  c->limit = d->limit;
  c->k = d->stiffness, c->d = d->damping, c->rest = d->rest;
  return 1;
}

/* The tendons' limits (after the joints' coordinates) and springs. */
static dyn_err tendon_coords(struct dyn_reduced *red, const dyn_model *m, char *msg, size_t cap) {
  for (int i = 0; i < m->ntd; i++) {
    const dyn_tendon_def *d = &m->tends.p[i];
    rcoord c;
    if (!tendon_coord(red, d, &c)) {
      dyn_msgf(msg, cap,
               "tendon %d '%s': its joints must be joints of the tree, in at most two of its "
               "trees; use maximal coordinates",
               i, d->name);
      return DYN_ERR_INPUT;
    }
    if (d->limit.enabled) red->coord[red->ncoord++] = c;
    if (d->stiffness > 0.0 || d->damping > 0.0) red->spring[red->nspring++] = c;
  }
  return DYN_OK;
}

static dyn_err coords_alloc(struct dyn_reduced *red, const dyn_model *m, char *msg, size_t cap) {
  red->coord = calloc((size_t)m->nj + (size_t)m->ntd + 1, sizeof *red->coord);
  red->spring = calloc((size_t)m->ntd + 1, sizeof *red->spring);
  red->tau = calloc((size_t)red->ndof + 1, sizeof(double));
  if (!red->coord || !red->spring || !red->tau) return DYN_ERR_NOMEM;
  joint_coords(red, m);
  return tendon_coords(red, m, msg, cap);
}

/* The free roots' initial velocities: the slides' u the body's v, the
 * ball's u its w (the joint frame is the world's at q = 0). */
static void root_velocities(struct dyn_reduced *red, const dyn_model *m) {
  for (int i = 0; i < m->nb; i++) {
    int k = red->tree.tree_of[i];
    if (k < 0 || !red->tree.root[k]) continue;
    const dyn_body_def *b = &m->bodies.p[i];
    int f = red->tree.defs[k].parent, uo; /* the z slide; y and x are its parents */
    double vv[3] = { b->v.z, b->v.y, b->v.x };
    for (int s = 0; s < 3; s++, f = red->tree.defs[f].parent) {
      dyn_redmax_offsets(red->rm, f, NULL, &uo);
      red->u[uo] = vv[s];
    }
    dyn_redmax_offsets(red->rm, k, NULL, &uo);
    red->u[uo] = b->w.x, red->u[uo + 1] = b->w.y, red->u[uo + 2] = b->w.z;
  }
}

static int reduced_alloc(struct dyn_reduced *red) {
  int nt = red->tree.nt;
  size_t nd = (size_t)red->ndof + 1, nq = (size_t)red->nq + 1;
  red->ufree = calloc(nd, sizeof(double));
  red->unew = calloc(nd, sizeof(double));
  red->u = calloc(nd, sizeof(double));
  red->du = calloc(nd, sizeof(double));
  red->gx = calloc(nd, sizeof(double));
  red->q = calloc(nq, sizeof(double));
  red->fx = calloc((size_t)nt, sizeof(dyn_v3));
  red->tx = calloc((size_t)nt, sizeof(dyn_v3));
  red->r = calloc((size_t)nt, sizeof(dyn_v3));
  red->v = calloc((size_t)nt, sizeof(dyn_v3));
  red->w = calloc((size_t)nt, sizeof(dyn_v3));
  red->qw = calloc((size_t)nt, sizeof(dyn_quat));
  red->ntree = dyn_redmax_tree_count(red->rm);
  red->toff = calloc(2 * (size_t)red->ntree + 1, sizeof(int));
  return red->ufree && red->unew && red->u && red->du && red->gx && red->q && red->fx && red->tx &&
                 red->r && red->v && red->w && red->qw && red->toff
             ? 0
             : -1;
}

/* The bodies a frame chain separates never touch either: each body with
 * frames between it and its nearest massive ancestor gets that pair kept
 * in red->fpairs, which the world's pairs that never touch take
 * (world_model.c); the model is not written. */
static dyn_err frame_pairs_init(struct dyn_reduced *red, const dyn_model *m) {
  int *model_of = calloc((size_t)red->tree.nt + 1, sizeof(int));
  red->fpairs = calloc((size_t)m->nb + 1, sizeof *red->fpairs);
  if (!model_of || !red->fpairs) {
    free(model_of);
    return DYN_ERR_NOMEM;
  }
  for (int k = 0; k < red->tree.nt; k++) model_of[k] = -1;
  for (int i = 0; i < m->nb; i++)
    if (red->tree.tree_of[i] >= 0) model_of[red->tree.tree_of[i]] = i;
  for (int k = 0; k < red->tree.nt; k++) {
    if (model_of[k] < 0 || red->tree.defs[k].mass == 0.0) continue;
    int p = red->tree.defs[k].parent, hops = 0;
    while (p >= 0 && (model_of[p] < 0 || red->tree.defs[p].mass == 0.0))
      p = red->tree.defs[p].parent, hops++;
    if (p < 0 || hops == 0) continue;
    int a = model_of[k], b = model_of[p];
    red->fpairs[red->nfpairs++] = dyn_pair_key(a < b ? a : b, a < b ? b : a);
  }
  free(model_of);
  return DYN_OK;
}

int dyn_reduced_frame_pairs(const struct dyn_reduced *r, const uint64_t **keys) {
  *keys = r->fpairs;
  return r->nfpairs;
}

/* A body whose joint moves no mass (dyn_rm_massless_joint) refused, named
 * by the model's body (or, for a free root's frame, the body it carries). */
static dyn_err check_massless(const dyn_model *m, const dyn_rm_tree *t, char *msg, size_t cap) {
  int k = dyn_rm_massless_joint(t->defs, t->nt), named = -1;
  if (k < 0) return DYN_OK;
  for (int i = 0; i < m->nb && named < 0; i++)
    if (t->tree_of[i] == k) named = i;
  dyn_msgf(msg, cap,
           "reduced coordinates: body %d \"%s\": its joint moves no mass (mass 0 at the end of a "
           "chain, no armature): the joint-space inertia is singular; give it mass or armature",
           named, named >= 0 ? m->bodies.p[named].name : "?");
  return DYN_ERR_INPUT;
}

/* The reduced state of model m (its tree validated), or a refusal. */
dyn_err dyn_reduced_new(const dyn_model *m, const dyn_world_settings *s, struct dyn_reduced **out,
                        char *msg, size_t cap) {
  *out = NULL;
  if (s->contact.friction == DYN_FRICTION_PYRAMID) {
    dyn_msgf(msg, cap,
             "reduced coordinates: the friction pyramid's auxiliary rows have no joint-space "
             "form here; use box or cone friction, or maximal coordinates");
    return DYN_ERR_INPUT;
  }
  struct dyn_reduced *red = calloc(1, sizeof *red);
  if (!red) return DYN_ERR_NOMEM;
  dyn_err e = dyn_rm_tree_of_model(m, &red->tree, msg, cap);
  if (e == DYN_OK) e = check_massless(m, &red->tree, msg, cap);
  if (e == DYN_OK) e = dyn_redmax_new(red->tree.defs, red->tree.nt, &red->rm, msg, cap);
  if (e == DYN_OK) {
    red->ndof = dyn_redmax_ndof(red->rm);
    red->nq = dyn_redmax_nq(red->rm);
    e = reduced_alloc(red) != 0 ? DYN_ERR_NOMEM : coords_alloc(red, m, msg, cap);
  }
  if (e == DYN_OK) {
    dyn_redmax_get_state(red->rm, red->q, red->u);
    root_velocities(red, m);
    e = dyn_redmax_set_state(red->rm, NULL, red->u, msg, cap);
  }
  if (e == DYN_OK) e = frame_pairs_init(red, m);
  if (e == DYN_ERR_NOMEM) dyn_msgf(msg, cap, "reduced coordinates: out of memory");
  if (e != DYN_OK) {
    dyn_reduced_free(red);
    return e;
  }
  *out = red;
  return DYN_OK;
}

/* The bodies' poses and velocities from the tree's state. */
void dyn_reduced_export_bodies(dyn_world *w) {
  struct dyn_reduced *red = w->red;
  dyn_redmax_kinematics(red->rm);
  dyn_redmax_poses(red->rm, red->r, red->qw, red->v, red->w);
  for (int i = 0; i < w->nb; i++) {
    int k = red->tree.tree_of[i];
    if (k < 0) continue;
    double st[DYN_BODY_STATE] = { red->r[k].x,  red->r[k].y,  red->r[k].z,  red->qw[k].w,
                                  red->qw[k].x, red->qw[k].y, red->qw[k].z, red->v[k].x,
                                  red->v[k].y,  red->v[k].z,  red->w[k].x,  red->w[k].y,
                                  red->w[k].z };
    dyn_body_set_state(&w->bodies.s[i], st);
  }
}

int dyn_world_is_reduced(const dyn_world *w) { return w && w->red ? 1 : 0; }

int dyn_world_joint_rows_possible(const dyn_world *w) {
  if (!w) return 0;
  return w->red ? w->red->ncoord > 0 || dyn_world_joint_count(w) > 0 : dyn_world_joint_count(w) > 0;
}

/* ---- the stages -------------------------------------------------------------------- */

static dyn_err reduced_prepare(dyn_step *s) {
  dyn_world *w = s->w;
  for (int i = 0; i < w->nb; i++)
    dyn_body_get_state(&w->bodies.s[i], w->saved.p + DYN_BODY_STATE * (size_t)i);
  w->have_prob = 0;
  w->have_solve = 0;
  dyn_redmax_get_state(w->red->rm, w->red->q, w->red->u);
  return DYN_OK;
}

/* Coordinate row i (global index row) of coordinate c, before its rhs and
 * bounds: no bodies, a plain row. */
static void coord_row_init(dyn_rows *r, int row) {
  memset(r, 0, sizeof *r);
  r->body[0] = r->body[1] = -1;
  r->lo = -INFINITY;
  r->hi = INFINITY;
  r->findex = -1;
  r->kind = DYN_ROW_PLAIN;
  r->base = row;
}

/* Coordinate c's value and rate at the tree's state q, u. */
static double coord_value(const rcoord *c, const double *q) {
  double v = 0.0;
  for (int k = 0; k < c->n; k++) v += c->c[k] * q[c->qoff[k]];
  return v;
}
static double coord_rate(const rcoord *c, const double *u) {
  double v = 0.0;
  for (int k = 0; k < c->n; k++) v += c->c[k] * u[c->dof[k]];
  return v;
}

/* The limit and motor rows of this step into rows[c0 .. c0 + nlim - 1]
 * (room reserved), each noting its coordinate in crow[row - c0]. */
static int fill_coord_rows(dyn_world *w, double h) {
  struct dyn_reduced *red = w->red;
  int m = 0;
  for (int k = 0; k < red->ncoord; k++) {
    const rcoord *c = &red->coord[k];
    dyn_rows R[2];
    coord_row_init(&R[0], red->c0 + m);
    coord_row_init(&R[1], red->c0 + m + 1);
    int nr = dyn_joint_coord_rows(&c->limit, &c->motor, coord_value(c, red->q),
                                  coord_rate(c, red->u), h, R);
    for (int i = 0; i < nr; i++, m++) {
      w->rows.p[red->c0 + m] = R[i];
      red->crow.p[m] = k;
    }
  }
  return m;
}

/* Row i's coordinate when it is a limit or motor row, else NULL (a cut
 * joint's or a contact's row, on bodies). */
static const rcoord *row_coord(const struct dyn_reduced *red, int i) {
  return i >= red->c0 && i < red->c0 + red->nlim ? &red->coord[red->crow.p[i - red->c0]] : NULL;
}

/* The world's rows (its stage: the loops' cut joints' rows, then the
 * contacts'), then the limit and motor rows put after the cut joints',
 * with the joint rows, as the world's limit rows are: the contact rows
 * move up by their number (their base with them); the step's joint_rows
 * counts both kinds (export --condense-joints condenses them), and the
 * warm start keeps the cut joints' rows by joint (rows 0 .. c0 - 1). */
static dyn_err reduced_build_rows(dyn_step *s) {
  dyn_world *w = s->w;
  struct dyn_reduced *red = w->red;
  dyn_err e = dyn_stage_build_rows(s);
  if (e != DYN_OK) return e;
  int extra = 0, ncr = w->nrows, jr = w->njrows;
  red->c0 = jr;
  for (int k = 0; k < red->ncoord; k++) {
    const rcoord *c = &red->coord[k];
    extra += dyn_joint_coord_rows(&c->limit, &c->motor, coord_value(c, red->q),
                                  coord_rate(c, red->u), s->h, NULL);
  }
  red->nlim = extra;
  if (extra == 0) return DYN_OK;
  size_t n = (size_t)ncr + (size_t)extra;
  if (dyn_world_reserve_rows(w, n) != DYN_OK || dyn_buf_reserve(&red->crow, n, &w->grows) != 0)
    return dyn_world_fail(w, DYN_ERR_NOMEM, "step %ld: out of memory for %zu rows", s->k, n);
  memmove(w->rows.p + jr + extra, w->rows.p + jr, (size_t)(ncr - jr) * sizeof *w->rows.p);
  for (int i = jr + extra; i < extra + ncr; i++) w->rows.p[i].base += extra;
  fill_coord_rows(w, s->h);
  w->njrows = jr + extra;
  w->nrows = ncr + extra;
  return DYN_OK;
}

/* Row i of G into column i of Gt (ndof x nrows), which is 0 on entry
 * (clear_gt): a contact row's sides through the tree's Jacobian (the
 * header; a body's rows over its path, dyn_rm_body_rows), a coordinate row
 * +-e_k; only the row's trees' dofs are written. */
static void joint_space_row(const dyn_world *w, int i, double *g) {
  const struct dyn_reduced *red = w->red;
  const dyn_redmax *rm = red->rm;
  const rcoord *co = row_coord(red, i);
  if (co) {
    for (int k = 0; k < co->n; k++) g[co->dof[k]] += co->c[k];
    return;
  }
  const dyn_rows *r = &w->rows.p[i];
  for (int k = 0; k < 2; k++) {
    int b = r->body[k], t = b >= 0 ? red->tree.tree_of[b] : -1;
    if (t < 0 || w->bodies.c[b].is_static) continue;
    dyn_quat q = w->bodies.s[b].q;
    dyn_v3 l = dyn_quat_rotate_inv(q, dyn_v3_make(r->J[k][0], r->J[k][1], r->J[k][2]));
    dyn_v3 a = dyn_quat_rotate_inv(q, dyn_v3_make(r->J[k][3], r->J[k][4], r->J[k][5]));
    double jb[6] = { a.x, a.y, a.z, l.x, l.y, l.z }; /* (omega, v), body frame */
    const int *ch = rm->achain + rm->adof_off[t], na = rm->adof_off[t + 1] - rm->adof_off[t];
    const double *Phi = dyn_rm_body_rows(rm, t); /* Phi_t's other columns: 0 */
    for (int k2 = 0; k2 < na; k2++) {
      const int c = ch[k2];
      const double *ph = Phi + 6 * k2;
      g[c] += jb[0] * ph[0] + jb[1] * ph[1] + jb[2] * ph[2] + jb[3] * ph[3] + jb[4] * ph[4] +
              jb[5] * ph[5];
    }
  }
}

/* The loads of the tree's bodies: the bodies' f_ext and t_ext (frames none). */
static void tree_loads(dyn_world *w) {
  struct dyn_reduced *red = w->red;
  const dyn_v3 zero = dyn_v3_make(0.0, 0.0, 0.0);
  for (int k = 0; k < red->tree.nt; k++) red->fx[k] = red->tx[k] = zero;
  for (int i = 0; i < w->nb; i++) {
    int k = red->tree.tree_of[i];
    if (k < 0 || w->bodies.c[i].is_static) continue;
    red->fx[k] = w->bodies.s[i].f_ext;
    red->tx[k] = w->bodies.s[i].t_ext;
  }
  dyn_tendon_loads(w->model, w->bodies.s, red->tree.tree_of, w->ctrl, dyn_world_act(w), red->fx,
                   red->tx);
}

/* Rows that move no dof (the header, "still rows"): G_i A_r^-1 G_i^T <=
 * 1e-12 of the largest diagonal.  A tree cannot move every contact point
 * every way (a hinge chain in a plane has no velocity across it), so such a
 * row's impulse does nothing; it is decoupled exactly (its row and column
 * of A and its column of A_r^-1 G^T zero) and given the largest diagonal,
 * so that every solver takes the problem (a Gauss-Seidel sweep divides by
 * A(i,i)) and x_i, which moves nothing, is what its own bounds make it. */
static void decouple_still_rows(struct dyn_reduced *red, double *A, int n) {
  const int nd = red->ndof;
  double dmax = 0.0;
  for (int i = 0; i < n; i++) dmax = fmax(dmax, A[(size_t)i * n + i]);
  double big = dmax > 0.0 ? dmax : 1.0;
  red->nstill = 0;
  for (int i = 0; i < n; i++) {
    if (A[(size_t)i * n + i] > 1e-12 * dmax) continue;
    red->nstill++;
    for (int j = 0; j < n; j++) A[(size_t)i * n + j] = A[(size_t)j * n + i] = 0.0;
    A[(size_t)i * n + i] = big;
    memset(red->Y.p + (size_t)i * nd, 0, (size_t)nd * sizeof(double));
  }
}

/* The trees row i moves into tr[2] (-1: none; tr[1] -1 when one). */
static void row_tree_pair(const dyn_world *w, int i, int *tr) {
  const struct dyn_reduced *red = w->red;
  tr[0] = tr[1] = -1;
  const rcoord *c = row_coord(red, i);
  if (c) {
    tr[0] = c->tree[0], tr[1] = c->tree[1];
    return;
  }
  const dyn_rows *r = &w->rows.p[i];
  for (int k = 0; k < 2; k++) {
    int b = r->body[k], t = b >= 0 ? red->tree.tree_of[b] : -1;
    if (t < 0 || w->bodies.c[b].is_static) continue;
    int f = dyn_redmax_body_tree(red->rm, t);
    if (f >= 0 && f != tr[0]) tr[tr[0] < 0 ? 0 : 1] = f;
  }
}

/* Each row's trees (rtree) and each tree's rows (toff, tlist): the forest's
 * A_r is block diagonal (dyn_redmax.h), so row i's G_i is 0 outside its
 * trees' dofs and A(i,j) = G_i A_r^-1 G_j^T sums over the trees i and j
 * share.  -1: out of memory. */
static int row_trees(dyn_world *w) {
  struct dyn_reduced *red = w->red;
  const int n = w->nrows, nt = red->ntree;
  if (dyn_buf_reserve(&red->rtree, 2 * (size_t)n, &w->grows) != 0 ||
      dyn_buf_reserve(&red->tlist, 2 * (size_t)n, &w->grows) != 0)
    return -1;
  int *off = red->toff, *cur = red->toff + nt + 1;
  memset(off, 0, ((size_t)nt + 1) * sizeof *off);
  for (int i = 0; i < n; i++) {
    int *tr = red->rtree.p + 2 * i;
    row_tree_pair(w, i, tr);
    for (int k = 0; k < 2; k++)
      if (tr[k] >= 0) off[tr[k] + 1]++;
  }
  for (int t = 0; t < nt; t++) off[t + 1] += off[t], cur[t] = off[t];
  for (int i = 0; i < n; i++)
    for (int k = 0; k < 2; k++)
      if (red->rtree.p[2 * i + k] >= 0) red->tlist.p[cur[red->rtree.p[2 * i + k]]++] = i;
  return 0;
}

/* out[ndof] += M x for M (ndof x n, column-major: G^T or A_r^-1 G^T) whose
 * column i is 0 outside row i's trees. */
static void add_columns_times(const struct dyn_reduced *red, int n, const double *M,
                              const double *x, double *out) {
  for (int i = 0; i < n; i++) {
    const double *col = M + (size_t)i * red->ndof;
    for (int k = 0; k < 2; k++) {
      const int *d, nd = dyn_redmax_tree_dofs(red->rm, red->rtree.p[2 * i + k], &d);
      for (int c = 0; c < nd; c++) out[d[c]] += col[d[c]] * x[i];
    }
  }
}


/* Each row's support (soff, sup): the dofs of its trees, in their order,
 * where its column of G^T is not 0; whatever the row (a contact's two
 * paths, a coordinate, a tendon's dofs).  -1: out of memory. */
static int row_supports(dyn_world *w) {
  struct dyn_reduced *red = w->red;
  const int n = w->nrows, nd = red->ndof;
  size_t need = 0;
  const int *d;
  for (int i = 0; i < n; i++)
    for (int k = 0; k < 2; k++)
      need += (size_t)dyn_redmax_tree_dofs(red->rm, red->rtree.p[2 * i + k], &d);
  if (dyn_buf_reserve(&red->soff, 2 * (size_t)n + 1, &w->grows) != 0 ||
      dyn_buf_reserve(&red->sup, need + 1, &w->grows) != 0)
    return -1;
  int m = 0;
  for (int i = 0; i < n; i++) {
    const double *g = red->Gt.p + (size_t)i * nd;
    for (int k = 0; k < 2; k++) {
      const int nt = dyn_redmax_tree_dofs(red->rm, red->rtree.p[2 * i + k], &d);
      red->soff.p[2 * i + k] = m;
      for (int c = 0; c < nt; c++)
        if (g[d[c]] != 0.0) red->sup.p[m++] = d[c];
    }
  }
  red->soff.p[2 * n] = m;
  return 0;
}

/* The dense A all 0 again before an assembly, without clearing all of it
 * (the memset of the n x n array was a tenth of a forest's step): A(i,j)
 * is written only where rows i and j share a tree (rows_times_columns) and
 * on the diagonal (cfm, decouple_still_rows), so those entries of the last
 * assembly (tlist, toff and an still its) are cleared, after a solve the
 * judge passed (a solver that writes its input fails the step: aclean
 * stays 0).  A new system's A is calloc's zeros; any other doubt clears
 * the whole buffer of cap rows. */
static void clear_dense_a(struct dyn_reduced *red, double *A, int cap) {
  if (A == red->abuf && red->aclean && red->an <= cap) {
    const size_t n = (size_t)red->an;
    for (int t = 0; t < red->ntree; t++) {
      const int *R = red->tlist.p + red->toff[t], m = red->toff[t + 1] - red->toff[t];
      for (int jj = 0; jj < m; jj++)
        for (int ii = 0; ii < m; ii++) A[(size_t)R[jj] * n + (size_t)R[ii]] = 0.0;
    }
    for (size_t i = 0; i < n; i++) A[i * n + i] = 0.0;
  } else if (A == red->abuf) {
    memset(A, 0, (size_t)cap * (size_t)cap * sizeof *A);
  }
  red->abuf = A;
  red->aclean = 0;
}

/* g . y over the ns dofs sup[0 .. ns), summed in that order (two terms a
 * turn of the loop: fewer loop tests, the same rounding). */
static double support_dot(const double *g, const double *y, const int *sup, int ns) {
  double s = 0.0;
  int k = 0;
  for (; k + 1 < ns; k += 2) {
    s += g[sup[k]] * y[sup[k]];
    s += g[sup[k + 1]] * y[sup[k + 1]];
  }
  if (k < ns) s += g[sup[k]] * y[sup[k]];
  return s;
}

/* G_i . v over row i's support (both its sides). */
static double row_dot(const struct dyn_reduced *red, int i, const double *g, const double *v) {
  const int k0 = red->soff.p[2 * i];
  return support_dot(g, v, red->sup.p + k0, red->soff.p[2 * i + 2] - k0);
}

/* A += G Y (Y = A_r^-1 G^T), n x n, A 0 on entry (clear_dense_a): for each
 * tree, the products of its rows, each over its support (G_i is 0
 * elsewhere).  G A_r^-1 G^T is symmetric: each pair of a tree's rows is
 * multiplied once, G_i Y_j for i up to j in the tree's list (the lower
 * triangle A(j,i), as before), and the upper triangle A(i,j) is its copy. */
static void rows_times_columns(const struct dyn_reduced *red, int n, double *A) {
  const int nd = red->ndof, *sp = red->sup.p;
  for (int t = 0; t < red->ntree; t++) {
    const int *R = red->tlist.p + red->toff[t], m = red->toff[t + 1] - red->toff[t];
    for (int jj = 0; jj < m; jj++) {
      const int j = R[jj];
      const double *y = red->Y.p + (size_t)j * nd;
      for (int ii = 0; ii <= jj; ii++) {
        const int i = R[ii], side = 2 * i + (red->rtree.p[2 * i] == t ? 0 : 1);
        const double s = support_dot(red->Gt.p + (size_t)i * nd, y, sp + red->soff.p[side],
                                     red->soff.p[side + 1] - red->soff.p[side]);
        A[(size_t)j * n + i] += s;
        if (i != j) A[(size_t)i * n + j] += s;
      }
    }
  }
}

/* G^T (Gt) all 0 again: its part beyond the capacity of before (had
 * elements) zeroed, and the last assembly's columns zeroed on their rows'
 * trees' dofs (rtree, still the last assembly's), the only entries
 * joint_space_row sets; so that no step clears all of the ndof x rows
 * G^T. */
static void clear_gt(struct dyn_reduced *red, size_t had) {
  if (red->Gt.cap > had) memset(red->Gt.p + had, 0, (red->Gt.cap - had) * sizeof(double));
  for (int i = 0; i < red->ngt; i++)
    for (int k = 0; k < 2; k++) {
      const int *d, nt = dyn_redmax_tree_dofs(red->rm, red->rtree.p[2 * i + k], &d);
      double *g = red->Gt.p + (size_t)i * red->ndof;
      for (int c = 0; c < nt; c++) g[d[c]] = 0.0;
    }
  red->ngt = 0;
}

/* A = G A_r^-1 G^T + diag(cfm), b = G u_free - rhs (the header). */
static dyn_err joint_space_problem(dyn_step *s, double *A, double *b) {
  dyn_world *w = s->w;
  struct dyn_reduced *red = w->red;
  const int n = w->nrows, nd = red->ndof;
  size_t sz = (size_t)nd * (size_t)n, had = red->Gt.cap;
  if (dyn_buf_reserve(&red->Gt, sz, &w->grows) != 0)
    return dyn_world_fail(w, DYN_ERR_NOMEM, "step %ld: out of memory for %d rows in joint space",
                          s->k, n);
  clear_gt(red, had);
  clear_dense_a(red, A, w->dense.rows);
  if (dyn_buf_reserve(&red->Y, sz, &w->grows) != 0)
    return dyn_world_fail(w, DYN_ERR_NOMEM, "step %ld: out of memory for %d rows in joint space",
                          s->k, n);
  if (row_trees(w) != 0)
    return dyn_world_fail(w, DYN_ERR_NOMEM, "step %ld: out of memory for %d rows' trees", s->k, n);
  for (int i = 0; i < n; i++) joint_space_row(w, i, red->Gt.p + (size_t)i * nd);
  red->ngt = n;
  if (row_supports(w) != 0)
    return dyn_world_fail(w, DYN_ERR_NOMEM, "step %ld: out of memory for %d rows' supports", s->k,
                          n);
  for (int i = 0; i < n; i++) /* Y = A_r^-1 G^T, column i on its trees' blocks */
    for (int k = 0; k < 2; k++) {
      const int t = red->rtree.p[2 * i + k], *d, nt = dyn_redmax_tree_dofs(red->rm, t, &d);
      const double *g = red->Gt.p + (size_t)i * nd;
      double *y = red->Y.p + (size_t)i * nd;
      for (int c = 0; c < nt; c++) y[d[c]] = g[d[c]];
      if (nt > 0) dyn_redmax_solve_tree(red->rm, t, y);
    }
  rows_times_columns(red, n, A);
  red->an = n;
  decouple_still_rows(red, A, n);
  for (int i = 0; i < n; i++) {
    b[i] = row_dot(red, i, red->Gt.p + (size_t)i * nd, red->ufree) - w->rows.p[i].rhs;
    A[(size_t)i * n + i] += w->rows.p[i].cfm;
    if (!isfinite(b[i]))
      return dyn_world_fail(w, DYN_ERR_NUMERIC, "step %ld: row %d: b = %g is not finite", s->k, i,
                            b[i]);
  }
  return DYN_OK;
}

/* The tendons' springs and dampers on u_free: their generalized forces
 * tau = sum over springs of G^T f, f = -k (L - rest) - d dL/dt at the
 * step's start (explicit, as MuJoCo's Euler step), so that u_free gains
 * h A_r^-1 tau (A_r factored by dyn_redmax_free_velocity). */
static void tendon_springs(struct dyn_reduced *red, double h) {
  if (red->nspring == 0) return;
  memset(red->tau, 0, (size_t)red->ndof * sizeof(double));
  for (int i = 0; i < red->nspring; i++) {
    const rcoord *c = &red->spring[i];
    double f = -c->k * (coord_value(c, red->q) - c->rest) - c->d * coord_rate(c, red->u);
    for (int k = 0; k < c->n; k++) red->tau[c->dof[k]] += h * c->c[k] * f;
  }
  for (int t = 0; t < red->ntree; t++) dyn_redmax_solve_tree(red->rm, t, red->tau);
  for (int i = 0; i < red->ndof; i++) red->ufree[i] += red->tau[i];
}

static dyn_err reduced_assemble(dyn_step *s) {
  dyn_world *w = s->w;
  struct dyn_reduced *red = w->red;
  char m2[160];
  tree_loads(w);
  dyn_err e =
      dyn_redmax_free_velocity(red->rm, s->h, s->g, red->fx, red->tx, red->ufree, m2, sizeof m2);
  if (e != DYN_OK) return dyn_world_fail(w, e, "step %ld: reduced coordinates: %s", s->k, m2);
  tendon_springs(red, s->h);
  if (w->nrows == 0) return DYN_OK;
  s->storage = SLV_DENSE;
  e = dyn_world_reserve_system(w, SLV_DENSE, &s->sys);
  if (e == DYN_OK) e = dyn_world_reserve_solver(w, &w->main, w->solver, w->nrows, &w->set.opt);
  if (e != DYN_OK) return e;
  double *A, *b;
  e = dyn_assemble_bounds(s->sys, w->rows.p, w->nrows, w->nb, &A, &b, &w->prob);
  if (e != DYN_OK)
    return dyn_world_fail(w, e, "step %ld: assembly: %s", s->k, dyn_system_message(s->sys));
  if ((e = joint_space_problem(s, A, b)) != DYN_OK) return e;
  w->prob.cone_law = w->set.cone_law;
  dyn_warm_rows r = dyn_world_warm_rows(w);
  memset(w->x.p, 0, (size_t)w->nrows * sizeof *w->x.p);
  if (w->set.warm_start) dyn_warm_fill(&w->warm, &r, w->set.warm_factor, w->x.p);
  return DYN_OK;
}

static dyn_err reduced_apply(dyn_step *s) {
  dyn_world *w = s->w;
  struct dyn_reduced *red = w->red;
  const int n = w->nrows, nd = red->ndof;
  memcpy(red->unew, red->ufree, (size_t)nd * sizeof(double));
  if (n == 0) {
    dyn_warm_drop_contacts(&w->warm);
    return DYN_OK;
  }
  for (int i = 0; i < n; i++)
    if (!isfinite(w->x.p[i]))
      return dyn_world_fail(w, DYN_ERR_NUMERIC,
                            "step %ld: solver %s returned non-finite impulses (status %s)", s->k,
                            w->solver->name, slv_status_str(s->res.status));
  add_columns_times(red, n, red->Y.p, w->x.p, red->unew); /* u+ = u_free + A_r^-1 G^T x */
  red->aclean = 1; /* the judge passed: the solve left A as assembled */
  return dyn_world_keep_applied(s);
}

/* The energy impulses x would add, in joint space (world_judge.c's
 * energy rule; docs/dynamics.md, "The energy rule"), with du = A_r^-1 G^T x:
 *   T+ - T(u_free) = x'(b + rhs) + (G^T x).du / 2   (b = G u_free - rhs),
 *   V+ - V(u_free) = -h sum_t m_t g.(R_t Phi_t,v du)
 * (symplectic Euler's V+ = V - h m g.v+; Phi_t,v the tree body's centre-of-
 * mass rows, body frame).  T is measured in the step's metric A_r, which
 * holds h D + h^2 K beside Mr and armature: the springs' and dampers' share
 * is of order h.  A still row moves nothing (its column of Y is 0) and adds
 * nothing. */
double dyn_reduced_impulse_energy(const dyn_step *s, const double *x) {
  const dyn_world *w = s->w;
  const struct dyn_reduced *red = w->red;
  const dyn_redmax *rm = red->rm;
  const int n = w->nrows, nd = red->ndof;
  double gain = 0.0;
  for (int i = 0; i < n; i++) gain += x[i] * (w->prob.b[i] + w->rows.p[i].rhs);
  if (nd == 0 || n == 0) return gain;
  memset(red->du, 0, (size_t)nd * sizeof(double));
  memset(red->gx, 0, (size_t)nd * sizeof(double));
  add_columns_times(red, n, red->Y.p, x, red->du);
  add_columns_times(red, n, red->Gt.p, x, red->gx);
  gain += 0.5 * cblas_ddot(nd, red->gx, 1, red->du, 1);
  for (int t = 0; t < red->tree.nt; t++) {
    double m = red->tree.defs[t].mass;
    if (m == 0.0) continue;
    dyn_v3 gb = dyn_quat_rotate_inv(red->qw[t], s->g), dv = dyn_v3_make(0.0, 0.0, 0.0);
    const int off = rm->adof_off[t], na = rm->adof_off[t + 1] - off;
    const double *Phi = dyn_rm_body_rows(rm, t);
    for (int k2 = 0; k2 < na; k2++) { /* ascending dofs, each at its column acol */
      const int c = rm->adof[off + k2];
      const double *ph = Phi + 6 * (size_t)rm->acol[off + k2] + 3;
      dv.x += ph[0] * red->du[c], dv.y += ph[1] * red->du[c], dv.z += ph[2] * red->du[c];
    }
    gain -= s->h * m * dyn_v3_dot(gb, dv);
  }
  return gain;
}

static dyn_err reduced_integrate(dyn_step *s) {
  dyn_world *w = s->w;
  char m2[160];
  dyn_err e = dyn_redmax_advance(w->red->rm, s->h, w->red->unew, m2, sizeof m2);
  if (e != DYN_OK) return dyn_world_fail(w, e, "step %ld: reduced coordinates: %s", s->k, m2);
  if (dyn_world_act(w)) dyn_tendon_activate(w->model, w->ctrl, dyn_world_act(w), s->h);
  dyn_reduced_export_bodies(w);
  w->step = s->k;
  w->t += s->h;
  return DYN_OK;
}

dyn_stage_fn dyn_reduced_stage(int i) {
  switch (i) {
  case DYN_STAGE_PREPARE: return reduced_prepare;
  case DYN_STAGE_BUILD_ROWS: return reduced_build_rows;
  case DYN_STAGE_ASSEMBLE: return reduced_assemble;
  case DYN_STAGE_APPLY: return reduced_apply;
  case DYN_STAGE_INTEGRATE: return reduced_integrate;
  default: return NULL;
  }
}

const int *dyn_reduced_row_trees(const dyn_world *w, int *ntree) {
  if (!w->red) return NULL;
  *ntree = w->red->ntree;
  return w->red->rtree.p;
}

/* ---- for tests (world_internal.h) -------------------------------------------------- */

dyn_redmax *dyn_reduced_redmax(const dyn_world *w) { return w->red ? w->red->rm : NULL; }
const dyn_rm_tree *dyn_reduced_tree(const dyn_world *w) { return w->red ? &w->red->tree : NULL; }

int dyn_reduced_tree_body(const dyn_world *w, int body) {
  return w->red && body >= 0 && body < w->nb ? w->red->tree.tree_of[body] : -1;
}

int dyn_reduced_row(const dyn_world *w, int i, double *g) {
  if (!w->red || !w->have_prob || i < 0 || i >= w->nrows) return -1;
  memcpy(g, w->red->Gt.p + (size_t)i * w->red->ndof, (size_t)w->red->ndof * sizeof *g);
  return w->red->ndof;
}

int dyn_reduced_last_form(const dyn_world *w, dyn_reduced_form *f) {
  memset(f, 0, sizeof *f);
  if (!w->red || !w->have_prob || w->nrows == 0) return 0;
  const struct dyn_reduced *red = w->red;
  const double *M = dyn_redmax_step_matrix(red->rm); /* dense on request only */
  if (!M) return 0;
  *f = (dyn_reduced_form){ red->ndof, w->nrows, red->nstill, red->Gt.p, M, red->ufree };
  return 1;
}

/* ---- saved states and the derivative of a step (world_reduced.h) ------------------ */

/* The activations a saved state holds: every actuator's when the model has
 * a muscle (dyn_world_act), else none. */
static int state_acts(const dyn_world *w) {
  return dyn_tendon_muscle_count(w->model) ? dyn_model_actuator_count(w->model) : 0;
}

int dyn_reduced_state_count(const dyn_world *w) {
  return w && w->red ? w->red->nq + w->red->ndof + state_acts(w) : 0;
}

void dyn_reduced_state_get(const dyn_world *w, double *out) {
  dyn_redmax_get_state(w->red->rm, out, out + w->red->nq);
  if (state_acts(w))
    memcpy(out + w->red->nq + w->red->ndof, dyn_world_act(w), (size_t)state_acts(w) * sizeof *out);
}

dyn_err dyn_reduced_state_set(dyn_world *w, const double *in) {
  char m2[160];
  const double *act = in + w->red->nq + w->red->ndof;
  for (int i = 0; i < state_acts(w); i++)
    if (!isfinite(act[i]))
      return dyn_world_fail(w, DYN_ERR_INPUT, "restore state: activation %d is not finite", i);
  dyn_err e = dyn_redmax_set_state(w->red->rm, in, in + w->red->nq, m2, sizeof m2);
  if (e != DYN_OK) return dyn_world_fail(w, e, "restore state: reduced coordinates: %s", m2);
  if (state_acts(w)) memcpy(dyn_world_act(w), act, (size_t)state_acts(w) * sizeof *act);
  dyn_reduced_export_bodies(w);
  return DYN_OK;
}

int dyn_reduced_view_of(const dyn_world *w, dyn_reduced_view *v) {
  memset(v, 0, sizeof *v);
  if (!w->red || !w->have_prob || w->nrows == 0) return 0;
  const struct dyn_reduced *red = w->red;
  v->ndof = red->ndof, v->nq = red->nq, v->n = w->nrows;
  v->q0 = red->q, v->u0 = red->u, v->unew = red->unew;
  v->Gt = red->Gt.p, v->Y = red->Y.p, v->rtree = red->rtree.p;
  v->fx = red->fx, v->tx = red->tx, v->tree = &red->tree, v->rm = red->rm;
  return 1;
}

int dyn_world_joint_velocity_count(const dyn_world *w) { return w && w->red ? w->red->ndof : 0; }

int dyn_world_joint_velocities(const dyn_world *w, double *u) {
  if (!w || !w->red || !u) return 0;
  dyn_redmax_get_state(w->red->rm, NULL, u);
  return w->red->ndof;
}

dyn_err dyn_world_set_joint_velocities(dyn_world *w, const double *u) {
  if (!w) return DYN_ERR_INPUT;
  w->msg[0] = '\0';
  if (!w->red || !u)
    return dyn_world_fail(w, DYN_ERR_INPUT, "joint velocities: %s",
                          u ? "the world is in maximal coordinates" : "none given");
  char m2[160];
  dyn_err e = dyn_redmax_set_state(w->red->rm, NULL, u, m2, sizeof m2);
  if (e != DYN_OK) return dyn_world_fail(w, e, "joint velocities: %s", m2);
  dyn_reduced_export_bodies(w);
  return DYN_OK;
}

/* ---- the integrator's energy rule (world_judge_integrator.c) ------------------------ */

int dyn_reduced_free_work(const dyn_world *w, double h, double *work) {
  const struct dyn_reduced *red = w->red;
  const dyn_redmax *rm = red->rm;
  *work = 0.0;
  if (rm->ncrank > 0 || red->nspring > 0) return 0; /* forces whose work is not measured here */
  double W = 0.0;
  for (int c = 0; c < red->ndof; c++) W += rm->effort[c] * (red->u[c] + red->unew[c]);
  for (int i = 0; i < w->nb; i++) {
    const int k = red->tree.tree_of[i];
    if (k < 0 || w->bodies.c[i].is_static) continue;
    const double *s0 = w->saved.p + DYN_BODY_STATE * (size_t)i;
    const dyn_body_state *b = &w->bodies.s[i];
    W += dyn_v3_dot(red->fx[k], dyn_v3_make(s0[7] + b->v.x, s0[8] + b->v.y, s0[9] + b->v.z));
    W += dyn_v3_dot(red->tx[k], dyn_v3_make(s0[10] + b->w.x, s0[11] + b->w.y, s0[12] + b->w.z));
  }
  *work = 0.5 * h * W;
  return 1;
}

void dyn_reduced_restore_state(dyn_world *w) {
  struct dyn_reduced *red = w->red;
  memcpy(red->rm->q, red->q, (size_t)red->nq * sizeof(double));
  memcpy(red->rm->u, red->u, (size_t)red->ndof * sizeof(double));
  red->rm->kin_fresh = 0;
}
