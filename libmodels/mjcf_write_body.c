/*
 * mjcf_write_body.c -- <worldbody> of the MJCF writer (mjcf_write.c): the
 * bodies nested as the kinematic tree of mjcf_tree.c, each with its pose
 * in its parent's frame, its joints, its <inertial> and its shapes
 * (docs/models.md, "The mapping").
 *
 *   static body   <body pos quat> under <worldbody>, no joint (MuJoCo's
 *                 static bodies: planes are allowed there), no inertial
 *   free body     <body pos quat><freejoint/><inertial .../> under <worldbody>
 *   tree child    <body> inside its parent, pos and quat in the parent's
 *                 frame, its joint in its own frame:
 *                   hinge  <joint type="hinge" pos axis [limited range]>
 *                   slider <joint type="slide" pos axis [limited range]>
 *                   ball   <joint type="ball" pos>
 *                   fixed  no joint (welded to its parent)
 *                   hinge-2, universal: two hinges at the anchor, the
 *                     parent's axis first (MuJoCo turns a body by its
 *                     joints in order, so the first axis stays fixed in
 *                     the parent and the second in the child)
 *                 A joint coordinate (limit) is the child's motion relative
 *                 to the parent; lcplab's is b's relative to a, so where the
 *                 child is a the axis is written negated (the range stays).
 *   inertial      pos 0 (the body frame's origin is the centre of mass),
 *                 diaginertia when I_b is diagonal, else fullinertia
 *   shapes        sphere, box, capsule (half_length 0: a sphere), plane
 *                 (its frame: z the normal, origin d n), hull (a mesh of
 *                 its vertices), none (a <site>); friction "mu mu_torsion
 *                 mu_rolling" of the shape's material (its condim 4, 6 or 1; else
 *                 condim 1 when mu = 0: frictionless, as
 *                 MuJoCo combines condim and friction by the maximum, like
 *                 lcplab's materials), contype, conaffinity.
 * Every body, geom and site carries its exact record as user numbers
 * (mdl_internal.h).
 */
#include "mjcf_write.h"

#include <stdlib.h>
#include <string.h>

static dyn_quat unit(dyn_quat q) { return dyn_quat_normalize(q); }

/* The indentation of an element inside `depth` open bodies, plus `more`. */
static void indent(mdl_writer *w, int more) { mdl_w_printf(w, "%*s", 4 + 2 * w->depth + more, ""); }

static void w_v3(mdl_writer *w, const char *attr, dyn_v3 v) {
  double x[3] = { v.x, v.y, v.z };
  mdl_w_attr_nums(w, attr, x, 3);
}

static void w_quat(mdl_writer *w, const char *attr, dyn_quat q) {
  double x[4] = { q.w, q.x, q.y, q.z };
  mdl_w_attr_nums(w, attr, x, 4);
}

void mdl_plane_frame(dyn_v3 n, double d, dyn_v3 *pos, dyn_quat *rot) {
  *pos = dyn_v3_scale(n, d);
  /* the rotation taking z to n: about z x n by the angle between them */
  dyn_v3 z = dyn_v3_make(0.0, 0.0, 1.0), u = dyn_v3_cross(z, n);
  double s = dyn_v3_norm(u), c = dyn_v3_dot(z, n);
  if (s == 0.0) {
    *rot = c > 0 ? dyn_quat_identity() : dyn_quat_make(0.0, 1.0, 0.0, 0.0);
    return;
  }
  *rot = dyn_quat_axis_angle(dyn_v3_scale(u, 1.0 / s), atan2(s, c));
}

/* ---- user records ------------------------------------------------------------------ */

static void w_body_user(mdl_writer *w, int i) {
  const dyn_body_def *b = &dyn_model_bodies(w->m)[i];
  double x[MDL_BU_N];
  x[MDL_BU_TAG] = MDL_FORMAT;
  x[MDL_BU_INDEX] = i;
  x[MDL_BU_NAMED] = w->bnamed[i];
  x[MDL_BU_STATIC] = b->is_static;
  x[MDL_BU_MASS] = b->mass;
  const dyn_v3 *v3[5] = { &b->r, NULL, &b->v, &b->w, NULL };
  int at[5] = { MDL_BU_R, 0, MDL_BU_V, MDL_BU_W, 0 };
  for (int k = 0; k < 5; k++)
    if (v3[k]) {
      x[at[k]] = v3[k]->x;
      x[at[k] + 1] = v3[k]->y;
      x[at[k] + 2] = v3[k]->z;
    }
  x[MDL_BU_Q] = b->q.w;
  x[MDL_BU_Q + 1] = b->q.x;
  x[MDL_BU_Q + 2] = b->q.y;
  x[MDL_BU_Q + 3] = b->q.z;
  x[MDL_BU_REST] = b->rest_given;
  x[MDL_BU_RREST] = b->r_rest.x;
  x[MDL_BU_RREST + 1] = b->r_rest.y;
  x[MDL_BU_RREST + 2] = b->r_rest.z;
  memcpy(x + MDL_BU_I, b->I_b.m, sizeof b->I_b.m);
  mdl_w_attr_nums(w, "user", x, MDL_BU_N);
}

static void w_shape_user(mdl_writer *w, int s) {
  const dyn_shape_def *d = &dyn_model_shapes(w->m)[s];
  const dyn_shape *g = &d->geom;
  double x[MDL_GU_N] = { 0 };
  x[MDL_GU_TAG] = MDL_FORMAT;
  x[MDL_GU_INDEX] = s;
  x[MDL_GU_MATERIAL] = d->material;
  x[MDL_GU_KIND] = (double)g->kind;
  x[MDL_GU_RADIUS] = g->radius;
  x[MDL_GU_HALFLEN] = g->half_length;
  double v[9] = { g->half.x, g->half.y, g->half.z, g->normal.x, g->normal.y, g->normal.z,
                  g->offset, 0,         0 };
  memcpy(x + MDL_GU_HALF, v, 7 * sizeof v[0]);
  double p[7] = { d->pos.x, d->pos.y, d->pos.z, d->rot.w, d->rot.x, d->rot.y, d->rot.z };
  memcpy(x + MDL_GU_POS, p, sizeof p);
  x[MDL_GU_NVERTS] = g->kind == DYN_SHAPE_HULL ? g->nverts : 0;
  x[MDL_GU_CONTYPE] = d->contype;
  x[MDL_GU_CONAFFINITY] = d->conaffinity;
  mdl_w_attr_nums(w, "user", x, MDL_GU_N);
}

/* ---- shapes ------------------------------------------------------------------------ */

static void w_filter(mdl_writer *w, const char *attr, uint32_t bits) {
  if (bits != 1u) mdl_w_printf(w, " %s=\"%d\"", attr, (int32_t)bits);
}

static void w_shape(mdl_writer *w, int s, int body) {
  const dyn_shape_def *d = &dyn_model_shapes(w->m)[s];
  const dyn_body_def *b = &dyn_model_bodies(w->m)[body];
  const dyn_shape *g = &d->geom;
  int site = g->kind == DYN_SHAPE_NONE;
  indent(w, 2);
  mdl_w_printf(w, "<%s", site ? "site" : "geom");
  if (d->name[0]) mdl_w_attr_text(w, "name", d->name);
  dyn_v3 pos = d->pos;
  dyn_quat rot = d->rot;
  switch (g->kind) {
  case DYN_SHAPE_SPHERE: mdl_w_printf(w, " type=\"sphere\""); break;
  case DYN_SHAPE_BOX: mdl_w_printf(w, " type=\"box\""); break;
  case DYN_SHAPE_CAPSULE:
    mdl_w_printf(w, " type=\"%s\"", g->half_length > 0.0 ? "capsule" : "sphere");
    break;
  case DYN_SHAPE_PLANE: {
    /* the world plane in the body's frame */
    dyn_v3 pw;
    dyn_quat qw;
    mdl_plane_frame(g->normal, g->offset, &pw, &qw);
    dyn_quat qb = unit(b->q);
    pos = dyn_quat_rotate_inv(qb, dyn_v3_sub(pw, b->r));
    rot = dyn_quat_mul(dyn_quat_conj(qb), qw);
    mdl_w_printf(w, " type=\"plane\" size=\"0 0 1\"");
    break;
  }
  case DYN_SHAPE_HULL: mdl_w_printf(w, " type=\"mesh\" mesh=\"lcplab_hull_%d\"", s); break;
  case DYN_SHAPE_ELLIPSOID: mdl_w_printf(w, " type=\"ellipsoid\""); break;
  case DYN_SHAPE_CYLINDER: mdl_w_printf(w, " type=\"cylinder\""); break;
  case DYN_SHAPE_NONE: break;
  }
  if (g->kind == DYN_SHAPE_SPHERE || (g->kind == DYN_SHAPE_CAPSULE && !(g->half_length > 0.0)))
    mdl_w_attr_nums(w, "size", &g->radius, 1);
  else if (g->kind == DYN_SHAPE_CAPSULE || g->kind == DYN_SHAPE_CYLINDER) {
    double x[2] = { g->radius, g->half_length };
    mdl_w_attr_nums(w, "size", x, 2);
  } else if (g->kind == DYN_SHAPE_BOX || g->kind == DYN_SHAPE_ELLIPSOID)
    w_v3(w, "size", g->half);
  w_v3(w, "pos", pos);
  w_quat(w, "quat", rot);
  if (!site) {
    /* the material the world gives the shape (dyn_model_default_material) */
    int mat = d->material >= 0 ? d->material : dyn_model_default_material(w->m);
    double mu = mat >= 0 ? dyn_model_materials(w->m)[mat].mu : w->o->default_mu;
    int cd = mat >= 0 ? dyn_model_materials(w->m)[mat].condim : 0;
    const dyn_material *dm = mat >= 0 ? &dyn_model_materials(w->m)[mat] : NULL;
    double fr[3] = { mu, dm ? dm->mu_torsion : 0.0, dm ? dm->mu_rolling : 0.0 };
    mdl_w_attr_nums(w, "friction", fr, 3);
    if (cd >= 4 || cd == 1)
      mdl_w_printf(w, " condim=\"%d\"", cd);
    else if (mu == 0.0)
      mdl_w_printf(w, " condim=\"1\"");
    w_filter(w, "contype", d->contype);
    w_filter(w, "conaffinity", d->conaffinity);
    if (d->margin != 0.0) mdl_w_attr_nums(w, "margin", &d->margin, 1);
    if (d->gap != 0.0) mdl_w_attr_nums(w, "gap", &d->gap, 1);
  }
  w_shape_user(w, s);
  mdl_w_printf(w, "/>\n");
}

/* ---- joints ------------------------------------------------------------------------ */

/* One <joint> of the child body u (pose (r, q)) at the world anchor p about
 * the world axis a, with the limit and the spring of c (stiffness,
 * springref, damping) when c is not NULL. */
static void w_joint(mdl_writer *w, const char *type, const char *name, const dyn_body_def *u,
                    dyn_v3 p, dyn_v3 a, const dyn_joint_def *c) {
  const dyn_joint_limit *lim = c ? &c->limit : NULL;
  dyn_quat q = unit(u->q);
  indent(w, 2);
  mdl_w_printf(w, "<joint");
  if (name && name[0]) mdl_w_attr_text(w, "name", name);
  mdl_w_printf(w, " type=\"%s\"", type);
  w_v3(w, "pos", dyn_quat_rotate_inv(q, dyn_v3_sub(p, u->r)));
  if (strcmp(type, "ball") != 0) w_v3(w, "axis", dyn_quat_rotate_inv(q, a));
  if (lim && lim->enabled) {
    double r[2] = { lim->lo, lim->hi };
    mdl_w_printf(w, " limited=\"true\"");
    mdl_w_attr_nums(w, "range", r, 2);
  }
  if (c && c->spring.enabled) {
    mdl_w_attr_nums(w, "stiffness", &c->spring.stiffness, 1);
    mdl_w_attr_nums(w, "springref", &c->spring.ref, 1);
    mdl_w_attr_nums(w, "damping", &c->spring.damping, 1);
  }
  mdl_w_printf(w, "/>\n");
}

/* The joints of the tree child u, hung by joint j. */
static void w_tree_joint(mdl_writer *w, int u, int j) {
  const dyn_joint_def *d = &dyn_model_joints(w->m)[j];
  const dyn_body_def *b = &dyn_model_bodies(w->m)[u];
  double sg = d->a == u ? -1.0 : 1.0; /* the child is a: coordinates reversed */
  dyn_v3 a1 = dyn_v3_scale(d->axis1, sg), a2 = dyn_v3_scale(d->axis2, sg);
  const dyn_joint_def *lim = d;
  switch (d->kind) {
  case DYN_JOINT_HINGE: w_joint(w, "hinge", d->name, b, d->anchor, a1, lim); break;
  case DYN_JOINT_SLIDER: w_joint(w, "slide", d->name, b, d->anchor, a1, lim); break;
  case DYN_JOINT_BALL: w_joint(w, "ball", d->name, b, d->anchor, a1, NULL); break;
  case DYN_JOINT_HINGE2:
  case DYN_JOINT_UNIVERSAL:
    /* the axis fixed in the parent first: axis1 is a's, axis2 b's; the
     * limit is on the wheel (axis2) */
    if (sg > 0) {
      w_joint(w, "hinge", d->name, b, d->anchor, a1, NULL);
      w_joint(w, "hinge", NULL, b, d->anchor, a2, lim);
    } else {
      w_joint(w, "hinge", d->name, b, d->anchor, a2, lim);
      w_joint(w, "hinge", NULL, b, d->anchor, a1, NULL);
    }
    break;
  case DYN_JOINT_FIXED: break;
  }
}

/* ---- bodies ------------------------------------------------------------------------ */

static void w_inertial(mdl_writer *w, const dyn_body_def *b) {
  const double *I = b->I_b.m;
  indent(w, 2);
  mdl_w_printf(w, "<inertial pos=\"0 0 0\"");
  mdl_w_attr_nums(w, "mass", &b->mass, 1);
  if (mdl_is_diagonal(&b->I_b)) {
    double d[3] = { I[0], I[4], I[8] };
    mdl_w_attr_nums(w, "diaginertia", d, 3);
  } else {
    double f[6] = { I[0], I[4], I[8], I[1], I[2], I[5] };
    mdl_w_attr_nums(w, "fullinertia", f, 6);
  }
  mdl_w_printf(w, "/>\n");
}

/* Opens body u: its element, pose, joints, inertial and shapes (its
 * shapes are shape_of[start[u] .. start[u + 1])). */
static void w_body_open(mdl_writer *w, int u, const int *start, const int *shape_of) {
  const dyn_body_def *B = dyn_model_bodies(w->m);
  const dyn_body_def *b = &B[u];
  int p = w->t.parent[u];
  indent(w, 0);
  mdl_w_printf(w, "<body");
  if (w->bname[u][0]) mdl_w_attr_text(w, "name", w->bname[u]);
  if (p < 0) {
    w_v3(w, "pos", b->r);
    w_quat(w, "quat", b->q);
  } else {
    dyn_quat qp = unit(B[p].q);
    w_v3(w, "pos", dyn_quat_rotate_inv(qp, dyn_v3_sub(b->r, B[p].r)));
    w_quat(w, "quat", dyn_quat_mul(dyn_quat_conj(qp), unit(b->q)));
  }
  w_body_user(w, u);
  mdl_w_printf(w, ">\n");
  if (w->t.pjoint[u] >= 0)
    w_tree_joint(w, u, w->t.pjoint[u]);
  else if (!b->is_static) {
    indent(w, 2);
    mdl_w_printf(w, "<freejoint/>\n");
  }
  if (!b->is_static) w_inertial(w, b);
  for (int k = start[u]; k < start[u + 1]; k++) w_shape(w, shape_of[k], u);
}

void mdl_w_bodies(mdl_writer *w) {
  int nb = w->t.nb, ns = dyn_model_shape_count(w->m);
  const dyn_shape_def *S = dyn_model_shapes(w->m);
  int *start = calloc((size_t)nb + 2, sizeof *start);
  int *shape_of = malloc(((size_t)ns + 1) * sizeof *shape_of);
  int *open = malloc(((size_t)nb + 1) * sizeof *open);
  if (!start || !shape_of || !open) {
    w->failed = 1;
    free(start);
    free(shape_of);
    free(open);
    return;
  }
  for (int s = 0; s < ns; s++) start[S[s].body + 1]++;
  for (int i = 0; i < nb; i++) start[i + 1] += start[i];
  /* open[] counts each body's shapes placed so far, before it is the stack */
  for (int i = 0; i < nb; i++) open[i] = 0;
  for (int s = 0; s < ns; s++) shape_of[start[S[s].body] + open[S[s].body]++] = s;
  int top = 0;
  for (int k = 0; k < nb; k++) {
    int u = w->t.order[k];
    while (top > 0 && open[top - 1] != w->t.parent[u]) {
      w->depth = --top;
      indent(w, 0);
      mdl_w_printf(w, "</body>\n");
    }
    w->depth = top;
    w_body_open(w, u, start, shape_of);
    open[top++] = u;
  }
  while (top > 0) {
    w->depth = --top;
    indent(w, 0);
    mdl_w_printf(w, "</body>\n");
  }
  free(start);
  free(shape_of);
  free(open);
}
