/*
 * mjcf_write.c -- a scene model (dyn_model.h) as an MJCF document that
 * MuJoCo 2.2 loads unchanged (mdl.h, mdl_write_mjcf; docs/models.md has
 * the element by element table).  This file writes the document around the
 * bodies: <compiler>, <option>, <size>, lcplab's <custom> data, the hull
 * meshes, <contact> exclusions, <equality> constraints and the
 * <keyframe> of the initial state (mjcf_write_key.c);
 * mjcf_write_body.c writes <worldbody>.
 *
 * Numbers are written with %.17g, which MuJoCo's reader (a C++ stream,
 * i.e. strtod) reads back to the same double.  Angles are radians
 * (<compiler angle="radian">), and no inertia is taken from geoms
 * (inertiafromgeom="false"): every dynamic body carries its <inertial>.
 * Refused (MDL_ERR_INPUT, the record named): a model dyn_model_validate
 * refuses; a name with a control character (XML cannot hold it) or a body
 * named "world" (MuJoCo's world body); an inertia whose principal moments
 * break A + B >= C (MuJoCo refuses it); a slider, hinge-2 or universal
 * joint that closes a loop (mjcf_tree.c); a fixed tendon or an actuator (not
 * written).
 */
#include "mjcf_write.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

mdl_write_options mdl_write_options_default(void) {
  mdl_write_options o;
  memset(&o, 0, sizeof o);
  o.dt = 1.0 / 120.0;
  o.default_mu = 0.5;
  return o;
}

const char *mdl_joint_kind_name(dyn_joint_kind k) {
  switch (k) {
  case DYN_JOINT_BALL: return "ball";
  case DYN_JOINT_HINGE: return "hinge";
  case DYN_JOINT_SLIDER: return "slider";
  case DYN_JOINT_HINGE2: return "hinge-2";
  case DYN_JOINT_UNIVERSAL: return "universal";
  case DYN_JOINT_FIXED: return "fixed";
  }
  return "unknown";
}

/* ---- output ------------------------------------------------------------------------ */

void mdl_w_printf(mdl_writer *w, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (vfprintf(w->f, fmt, ap) < 0) w->failed = 1;
  va_end(ap);
}

void mdl_w_num(mdl_writer *w, double x) { mdl_w_printf(w, "%.17g", x); }

void mdl_w_nums(mdl_writer *w, const double *x, int n) {
  for (int i = 0; i < n; i++) {
    if (i) mdl_w_printf(w, " ");
    mdl_w_num(w, x[i]);
  }
}

void mdl_w_attr_nums(mdl_writer *w, const char *attr, const double *x, int n) {
  mdl_w_printf(w, " %s=\"", attr);
  mdl_w_nums(w, x, n);
  mdl_w_printf(w, "\"");
}

void mdl_w_attr_text(mdl_writer *w, const char *attr, const char *text) {
  mdl_w_printf(w, " %s=\"", attr);
  for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
    switch (*c) {
    case '&': mdl_w_printf(w, "&amp;"); break;
    case '<': mdl_w_printf(w, "&lt;"); break;
    case '>': mdl_w_printf(w, "&gt;"); break;
    case '"': mdl_w_printf(w, "&quot;"); break;
    case '\'': mdl_w_printf(w, "&apos;"); break;
    default:
      if (fputc(*c, w->f) == EOF) w->failed = 1;
    }
  }
  mdl_w_printf(w, "\"");
}

/* ---- checks ------------------------------------------------------------------------ */

/* 1 if name holds a control character (no XML 1.0 attribute holds it). */
static int name_unwritable(const char *name) {
  for (const unsigned char *c = (const unsigned char *)name; *c; c++)
    if (*c < 0x20 || *c == 0x7f) return 1;
  return 0;
}

static mdl_err check_names(const dyn_model *m, char *msg, size_t cap) {
  static const char *const kind[4] = { "body", "shape", "material", "joint" };
  for (int k = 0; k < 4; k++) {
    int n = k == 0   ? dyn_model_body_count(m)
            : k == 1 ? dyn_model_shape_count(m)
            : k == 2 ? dyn_model_material_count(m)
                     : dyn_model_joint_count(m);
    for (int i = 0; i < n; i++) {
      const char *nm = k == 0   ? dyn_model_bodies(m)[i].name
                       : k == 1 ? dyn_model_shapes(m)[i].name
                       : k == 2 ? dyn_model_materials(m)[i].name
                                : dyn_model_joints(m)[i].name;
      if (name_unwritable(nm)) {
        mdl_msg(msg, cap, "%s %d: its name holds a control character, which XML cannot hold",
                kind[k], i);
        return MDL_ERR_INPUT;
      }
      if (k == 0 && strcmp(nm, "world") == 0) {
        mdl_msg(msg, cap, "body %d 'world': MJCF reserves the name 'world' for its world body", i);
        return MDL_ERR_INPUT;
      }
    }
  }
  return MDL_OK;
}

/* The eigenvalues of the symmetric 3x3 I (the principal moments), by the
 * trigonometric solution of the characteristic cubic. */
static void sym_eigenvalues(const dyn_m3 *I, double e[3]) {
  const double *a = I->m;
  double p1 = a[1] * a[1] + a[2] * a[2] + a[5] * a[5];
  double q = (a[0] + a[4] + a[8]) / 3.0;
  if (p1 == 0.0) {
    e[0] = a[0];
    e[1] = a[4];
    e[2] = a[8];
    return;
  }
  double p2 = (a[0] - q) * (a[0] - q) + (a[4] - q) * (a[4] - q) + (a[8] - q) * (a[8] - q) + 2 * p1;
  double p = sqrt(p2 / 6.0);
  dyn_m3 Bm;
  for (int k = 0; k < 9; k++) Bm.m[k] = (a[k] - (k % 4 == 0 ? q : 0.0)) / p;
  double r = dyn_m3_det(Bm) / 2.0;
  const double pi = 3.14159265358979323846;
  double phi = r <= -1 ? pi / 3 : r >= 1 ? 0.0 : acos(r) / 3.0;
  e[0] = q + 2 * p * cos(phi);
  e[2] = q + 2 * p * cos(phi + 2 * pi / 3);
  e[1] = 3 * q - e[0] - e[2];
}

int mdl_is_diagonal(const dyn_m3 *I) {
  const double *a = I->m;
  return a[1] == 0.0 && a[2] == 0.0 && a[3] == 0.0 && a[5] == 0.0 && a[6] == 0.0 && a[7] == 0.0;
}

/* MuJoCo refuses principal moments with A + B < C (mjCBody::Compile). */
static mdl_err check_inertias(const dyn_model *m, char *msg, size_t cap) {
  const dyn_body_def *B = dyn_model_bodies(m);
  for (int i = 0; i < dyn_model_body_count(m); i++) {
    if (B[i].is_static) continue;
    double e[3];
    sym_eigenvalues(&B[i].I_b, e);
    double s = e[0] + e[1] + e[2], big = fmax(e[0], fmax(e[1], e[2]));
    /* diagonal: MuJoCo's own test on the numbers written (read back
     * exactly); full: MuJoCo diagonalises it to about 1e-9 (mju_eig3), so
     * a moment within 1e-6 of the bound is refused too, to be sure */
    const double *d = B[i].I_b.m;
    int bad = mdl_is_diagonal(&B[i].I_b)
                  ? d[0] + d[4] < d[8] || d[0] + d[8] < d[4] || d[4] + d[8] < d[0]
                  : s - 2 * big < 1e-6 * s;
    if (bad) {
      mdl_msg(msg, cap,
              "body %d '%s': principal moments of inertia %g, %g, %g break A + B >= C, "
              "which MuJoCo refuses",
              i, B[i].name, e[0], e[1], e[2]);
      return MDL_ERR_INPUT;
    }
  }
  return MDL_OK;
}

/* ---- element names of the bodies ----------------------------------------------------- */

/* The body's own name, or one made up ("lcplab_body_I", with "_" added
 * until no body has it) where an element must name it. */
static void make_body_name(mdl_writer *w, int i) {
  const dyn_body_def *B = dyn_model_bodies(w->m);
  if (B[i].name[0] || w->bname[i][0]) return;
  char nm[DYN_NAME_MAX + 16];
  snprintf(nm, sizeof nm, "lcplab_body_%d", i);
  while (dyn_model_find_body(w->m, nm) >= 0 && strlen(nm) + 1 < sizeof nm) strcat(nm, "_");
  snprintf(w->bname[i], sizeof w->bname[i], "%s", nm);
}

static int body_names(mdl_writer *w) {
  int nb = dyn_model_body_count(w->m);
  w->bname = calloc((size_t)nb + 1, sizeof *w->bname);
  w->bnamed = calloc((size_t)nb + 1, sizeof *w->bnamed);
  if (!w->bname || !w->bnamed) return -1;
  const dyn_body_def *B = dyn_model_bodies(w->m);
  for (int i = 0; i < nb; i++) {
    w->bnamed[i] = B[i].name[0] != '\0';
    snprintf(w->bname[i], sizeof w->bname[i], "%s", B[i].name);
  }
  const int *ex = dyn_model_exclusions(w->m);
  for (int k = 0; k < dyn_model_exclusion_count(w->m); k++) {
    make_body_name(w, ex[2 * k]);
    make_body_name(w, ex[2 * k + 1]);
  }
  const dyn_joint_def *J = dyn_model_joints(w->m);
  for (int j = 0; j < dyn_model_joint_count(w->m); j++)
    if (w->t.as[j] != MDL_AS_TREE) {
      make_body_name(w, J[j].a);
      if (J[j].b >= 0) make_body_name(w, J[j].b);
    }
  return 0;
}

/* ---- the document ------------------------------------------------------------------ */

static void write_custom_joint(mdl_writer *w, int j) {
  const dyn_joint_def *d = &dyn_model_joints(w->m)[j];
  double x[MDL_J_N];
  x[MDL_J_KIND] = (double)d->kind;
  x[MDL_J_A] = d->a;
  x[MDL_J_B] = d->b;
  const dyn_v3 *v3[3] = { &d->anchor, &d->axis1, &d->axis2 };
  for (int k = 0; k < 3; k++) {
    x[MDL_J_ANCHOR + 3 * k] = v3[k]->x;
    x[MDL_J_ANCHOR + 3 * k + 1] = v3[k]->y;
    x[MDL_J_ANCHOR + 3 * k + 2] = v3[k]->z;
  }
  for (int r = 0; r < DYN_JOINT_MAX_BASE; r++) {
    x[MDL_J_ERP + r] = d->erp[r];
    x[MDL_J_CFM + r] = d->cfm[r];
  }
  const dyn_joint_limit *L = &d->limit;
  double lim[6] = { L->enabled, L->lo, L->hi, L->erp, L->cfm, L->restitution };
  memcpy(x + MDL_J_LIMIT, lim, sizeof lim);
  const dyn_joint_motor *M = &d->motor;
  double mot[4] = { M->enabled, M->target_vel, M->max_force, M->cfm };
  memcpy(x + MDL_J_MOTOR, mot, sizeof mot);
  const dyn_joint_springdamper *S = &d->spring;
  double spr[4] = { S->enabled, S->stiffness, S->damping, S->ref };
  memcpy(x + MDL_J_SPRING, spr, sizeof spr);
  x[MDL_J_AS] = w->t.as[j];
  x[MDL_J_ELEM] = w->t.elem[j];
  mdl_w_printf(w, "    <numeric name=\"lcplab:joint:%d\"", j);
  mdl_w_attr_nums(w, "data", x, MDL_J_N);
  mdl_w_printf(w, "/>\n");
  if (d->name[0]) {
    mdl_w_printf(w, "    <text name=\"lcplab:joint:%d\"", j);
    mdl_w_attr_text(w, "data", d->name);
    mdl_w_printf(w, "/>\n");
  }
}

static void write_custom_hulls(mdl_writer *w) {
  const dyn_shape_def *S = dyn_model_shapes(w->m);
  for (int s = 0; s < dyn_model_shape_count(w->m); s++) {
    if (S[s].geom.kind != DYN_SHAPE_HULL) continue;
    const double *v = &S[s].geom.verts[0].x;
    int n = 3 * S[s].geom.nverts;
    for (int k = 0, c = 0; k < n; k += MDL_HULL_CHUNK, c++) {
      mdl_w_printf(w, "    <numeric name=\"lcplab:hull:%d:%d\"", s, c);
      mdl_w_attr_nums(w, "data", v + k, n - k < MDL_HULL_CHUNK ? n - k : MDL_HULL_CHUNK);
      mdl_w_printf(w, "/>\n");
    }
  }
}

static void write_custom(mdl_writer *w) {
  const dyn_model *m = w->m;
  double f[MDL_F_N] = { MDL_FORMAT, dyn_model_body_count(m), dyn_model_shape_count(m),
                        dyn_model_material_count(m), dyn_model_joint_count(m) };
  dyn_model_options op = dyn_model_get_options(m);
  double o[MDL_O_N] = { op.rest_threshold, op.rest_threshold_steps, (double)op.steps, op.duration };
  mdl_w_printf(w, "  <custom>\n    <numeric name=\"lcplab:format\"");
  mdl_w_attr_nums(w, "data", f, MDL_F_N);
  mdl_w_printf(w, "/>\n    <numeric name=\"lcplab:options\"");
  mdl_w_attr_nums(w, "data", o, MDL_O_N);
  mdl_w_printf(w, "/>\n");
  const dyn_material *M = dyn_model_materials(m);
  for (int i = 0; i < dyn_model_material_count(m); i++) {
    double x[2] = { M[i].mu, M[i].restitution };
    mdl_w_printf(w, "    <numeric name=\"lcplab:material:%d\"", i);
    mdl_w_attr_nums(w, "data", x, 2);
    mdl_w_printf(w, "/>\n");
    if (M[i].name[0]) {
      mdl_w_printf(w, "    <text name=\"lcplab:material:%d\"", i);
      mdl_w_attr_text(w, "data", M[i].name);
      mdl_w_printf(w, "/>\n");
    }
  }
  for (int j = 0; j < dyn_model_joint_count(m); j++) write_custom_joint(w, j);
  write_custom_hulls(w);
  mdl_w_printf(w, "  </custom>\n");
}

static void write_assets(mdl_writer *w) {
  const dyn_shape_def *S = dyn_model_shapes(w->m);
  int any = 0;
  for (int s = 0; s < dyn_model_shape_count(w->m); s++) {
    if (S[s].geom.kind != DYN_SHAPE_HULL) continue;
    if (!any++) mdl_w_printf(w, "  <asset>\n");
    mdl_w_printf(w, "    <mesh name=\"lcplab_hull_%d\"", s);
    mdl_w_attr_nums(w, "vertex", &S[s].geom.verts[0].x, 3 * S[s].geom.nverts);
    mdl_w_printf(w, "/>\n");
  }
  if (any) mdl_w_printf(w, "  </asset>\n");
}

/* <exclude> of the model's pairs, then of the pairs a loop joint ties (two
 * bodies tied by a joint never touch in lcplab; MuJoCo leaves only a
 * parent and its child apart by itself), named "lcplab:joint:J" so that the
 * reader knows them for the joint's. */
static void write_contact(mdl_writer *w) {
  const int *ex = dyn_model_exclusions(w->m);
  const dyn_joint_def *J = dyn_model_joints(w->m);
  int nex = dyn_model_exclusion_count(w->m), any = 0;
  for (int k = 0; k < nex; k++) {
    if (!any++) mdl_w_printf(w, "  <contact>\n");
    mdl_w_printf(w, "    <exclude");
    mdl_w_attr_text(w, "body1", w->bname[ex[2 * k]]);
    mdl_w_attr_text(w, "body2", w->bname[ex[2 * k + 1]]);
    mdl_w_printf(w, "/>\n");
  }
  for (int j = 0; j < dyn_model_joint_count(w->m); j++) {
    if (w->t.as[j] == MDL_AS_TREE || J[j].b < 0) continue;
    if (!any++) mdl_w_printf(w, "  <contact>\n");
    mdl_w_printf(w, "    <exclude name=\"lcplab:joint:%d\"", j);
    mdl_w_attr_text(w, "body1", w->bname[J[j].a]);
    mdl_w_attr_text(w, "body2", w->bname[J[j].b]);
    mdl_w_printf(w, "/>\n");
  }
  if (any) mdl_w_printf(w, "  </contact>\n");
}

/* One <connect> at the world point p: its anchor is given in body1's frame. */
static void write_connect(mdl_writer *w, int j, dyn_v3 p, int named) {
  const dyn_joint_def *d = &dyn_model_joints(w->m)[j];
  const dyn_body_def *A = &dyn_model_bodies(w->m)[d->a];
  dyn_v3 loc = dyn_quat_rotate_inv(dyn_quat_normalize(A->q), dyn_v3_sub(p, A->r));
  double x[3] = { loc.x, loc.y, loc.z };
  mdl_w_printf(w, "    <connect");
  if (named && d->name[0]) mdl_w_attr_text(w, "name", d->name);
  mdl_w_attr_text(w, "body1", w->bname[d->a]);
  if (d->b >= 0) mdl_w_attr_text(w, "body2", w->bname[d->b]);
  mdl_w_attr_nums(w, "anchor", x, 3);
  mdl_w_printf(w, "/>\n");
}

static void write_equality(mdl_writer *w) {
  const dyn_joint_def *J = dyn_model_joints(w->m);
  int any = 0;
  for (int j = 0; j < dyn_model_joint_count(w->m); j++) {
    int as = w->t.as[j];
    if (as == MDL_AS_TREE) continue;
    if (!any++) mdl_w_printf(w, "  <equality>\n");
    if (as == MDL_AS_WELD) {
      mdl_w_printf(w, "    <weld");
      if (J[j].name[0]) mdl_w_attr_text(w, "name", J[j].name);
      mdl_w_attr_text(w, "body1", w->bname[J[j].a]);
      if (J[j].b >= 0) mdl_w_attr_text(w, "body2", w->bname[J[j].b]);
      mdl_w_printf(w, "/>\n");
    } else {
      write_connect(w, j, J[j].anchor, 1);
      /* a hinge: a second point on its axis, a unit length along it (unnamed:
       * the joint's name is the first one's) */
      if (as == MDL_AS_CONNECT2)
        write_connect(w, j, dyn_v3_add(J[j].anchor, dyn_v3_normalize(J[j].axis1)), 0);
    }
  }
  if (any) mdl_w_printf(w, "  </equality>\n");
}

static void write_document(mdl_writer *w) {
  const mdl_write_options *o = w->o;
  dyn_model_options op = dyn_model_get_options(w->m);
  mdl_w_printf(w, "<mujoco");
  mdl_w_attr_text(w, "model", o->model_name && o->model_name[0] ? o->model_name : "lcplab");
  mdl_w_printf(w, ">\n  <!-- written by lcplab (libmodels, docs/models.md): the <custom> "
                  "lcplab:* entries and the user numbers are lcplab's exact model; MuJoCo "
                  "ignores them -->\n");
  mdl_w_printf(w, "  <compiler angle=\"radian\" inertiafromgeom=\"false\"/>\n  <option");
  double g[3] = { op.gravity.x, op.gravity.y, op.gravity.z };
  mdl_w_attr_nums(w, "timestep", &o->dt, 1);
  mdl_w_attr_nums(w, "gravity", g, 3);
  mdl_w_printf(w, "/>\n  <size nuser_body=\"%d\" nuser_geom=\"%d\" nuser_site=\"%d\"/>\n", MDL_BU_N,
               MDL_GU_N, MDL_GU_N);
  write_custom(w);
  write_assets(w);
  mdl_w_printf(w, "  <worldbody>\n");
  mdl_w_bodies(w);
  mdl_w_printf(w, "  </worldbody>\n");
  write_contact(w);
  write_equality(w);
  mdl_w_keyframe(w);
  mdl_w_printf(w, "</mujoco>\n");
}

static mdl_err check_options(const mdl_write_options *o, char *msg, size_t cap) {
  if (!(o->dt > 0.0 && isfinite(o->dt))) {
    mdl_msg(msg, cap, "dt=%g must be finite and > 0", o->dt);
    return MDL_ERR_INPUT;
  }
  if (!(o->default_mu >= 0.0 && isfinite(o->default_mu))) {
    mdl_msg(msg, cap, "default_mu=%g must be finite and >= 0", o->default_mu);
    return MDL_ERR_INPUT;
  }
  return MDL_OK;
}

mdl_err mdl_write_mjcf(const dyn_model *m, const mdl_write_options *o, FILE *f, char *msg,
                       size_t msgcap) {
  mdl_write_options def = mdl_write_options_default();
  if (!o) o = &def;
  if (!m || !f) {
    mdl_msg(msg, msgcap, "mdl_write_mjcf: %s is NULL", m ? "the stream" : "the model");
    return MDL_ERR_INPUT;
  }
  mdl_err e = check_options(o, msg, msgcap);
  if (e != MDL_OK) return e;
  if (dyn_model_validate(m, msg, msgcap) != DYN_OK) return MDL_ERR_INPUT;
  if ((e = check_names(m, msg, msgcap)) != MDL_OK) return e;
  if ((e = check_inertias(m, msg, msgcap)) != MDL_OK) return e;
  if (dyn_model_tendon_count(m) > 0) { /* not written: refused, so none is lost */
    mdl_msg(msg, msgcap, "tendon '%s': fixed tendons are not written to MJCF",
            dyn_model_tendons(m)[0].name);
    return MDL_ERR_INPUT;
  }
  if (dyn_model_actuator_count(m) > 0) { /* not written: refused, so none is lost */
    mdl_msg(msg, msgcap, "actuator '%s': actuators are not written to MJCF",
            dyn_model_actuators(m)[0].name);
    return MDL_ERR_INPUT;
  }
  mdl_writer w;
  memset(&w, 0, sizeof w);
  w.f = f;
  w.m = m;
  w.o = o;
  int rc = mdl_tree_build(m, &w.t, msg, msgcap);
  if (rc != 0) return rc == -2 ? MDL_ERR_NOMEM : MDL_ERR_INPUT;
  if (body_names(&w) != 0) {
    mdl_msg(msg, msgcap, "out of memory for the body names");
    e = MDL_ERR_NOMEM;
  } else {
    write_document(&w);
    if (w.failed || fflush(f) != 0 || ferror(f)) {
      mdl_msg(msg, msgcap, "the MJCF could not be written (a full disk?)");
      e = MDL_ERR_IO;
    }
  }
  free(w.bname);
  free(w.bnamed);
  mdl_tree_free(&w.t);
  return e;
}
