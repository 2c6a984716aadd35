/* test_mjcf_mujoco.c -- the MJCF lcplab writes is the same scene in MuJoCo
 * (docs/models.md, "The same scene in MuJoCo"): MuJoCo's compiled model of
 * a written file holds lcplab's bodies, masses, shapes, joints and
 * friction, and MuJoCo's own step runs it.
 *
 * For every built-in scene, and for MuJoCo's humanoid sample read with
 * approximate and written back out, the file is compiled by mj_loadXML and
 * compared record by record (each MuJoCo body and geom carries its lcplab
 * index in its user numbers: libmodels/mdl_internal.h):
 *   - a dynamic body's mass is MuJoCo's body_mass, the trace of its inertia
 *     the sum of MuJoCo's principal moments (a rotation keeps the trace);
 *     a static body is welded to MuJoCo's world;
 *   - every shape but NONE is one geom of the same type (a hull a mesh), on
 *     its body, its friction its material's mu (the default material's:
 *     the writer's default_mu), its contype and conaffinity;
 *   - joints: where no joint closes a loop, MuJoCo's degrees of freedom are
 *     lcplab's, 6 per dynamic body less each joint's equality rows
 *     (dyn_joint_base_rows): a joint mapped to the wrong kind, or lost,
 *     changes the count;
 * then 24 steps of mj_step from the keyframe `lcplab` leave every
 * coordinate finite, and after one step each free body that touches
 * nothing, is tied to nothing and carries nothing has gained g dt of
 * velocity (semi-implicit Euler: what falling means in MuJoCo's step).
 */
#include "dyn_joint.h"
#include "dyn_model.h"
#include "dyn_redmax.h"
#include "dyn_tendon.h"
#include "dyn_world.h"
#include "mdl.h"
#include "mdl_internal.h"
#include "tst_util.h"
#include "world_data.h"
#include "world_reduced.h"

#include <mujoco/mujoco.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char dir[256];
static char warned[256]; /* MuJoCo's last warning (its default handler writes MUJOCO_LOG.TXT) */

static void on_warning(const char *msg) { snprintf(warned, sizeof warned, "%s", msg); }
static const double default_mu = 0.5; /* mdl_write_options_default's */

static mjModel *write_and_load(const dyn_model *m, const char *name) {
  char path[600], err[1000] = "", msg[512] = "";
  snprintf(path, sizeof path, "%s/%s.xml", dir, name);
  FILE *f = fopen(path, "w");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  mdl_err e = mdl_write_mjcf(m, NULL, f, msg, sizeof msg);
  if (e != MDL_OK) printf("\n    write %s: %s\n", name, msg);
  CU_ASSERT_EQUAL_FATAL(e, MDL_OK);
  CU_ASSERT_EQUAL(fclose(f), 0);
  mjModel *mj = mj_loadXML(path, NULL, err, sizeof err);
  if (!mj) printf("\n    MuJoCo on %s: %s\n", name, err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(mj);
  return mj;
}

static void same_bodies(const dyn_model *m, const mjModel *mj, const char *name) {
  const dyn_body_def *B = dyn_model_bodies(m);
  int seen = 0;
  CU_ASSERT_EQUAL_FATAL(mj->nuser_body, MDL_BU_N);
  for (int b = 1; b < mj->nbody; b++) {
    int i = (int)mj->body_user[b * MDL_BU_N + MDL_BU_INDEX];
    CU_ASSERT_FATAL(i >= 0 && i < dyn_model_body_count(m));
    seen++;
    if (B[i].is_static) {
      CU_ASSERT_EQUAL(mj->body_weldid[b], 0);
      continue;
    }
    double tr = B[i].I_b.m[0] + B[i].I_b.m[4] + B[i].I_b.m[8];
    double sum =
        mj->body_inertia[3 * b] + mj->body_inertia[3 * b + 1] + mj->body_inertia[3 * b + 2];
    if (fabs(mj->body_mass[b] - B[i].mass) > 1e-12 * B[i].mass || fabs(sum - tr) > 1e-9 * tr)
      printf("\n    %s: body %d '%s': mass %.17g / %.17g, trace %.17g / %.17g\n", name, i,
             B[i].name, mj->body_mass[b], B[i].mass, sum, tr);
    TST_CLOSE(mj->body_mass[b], B[i].mass, 0, 1e-12);
    TST_CLOSE(sum, tr, 0, 1e-9);
    CU_ASSERT(mj->body_weldid[b] != 0);
  }
  CU_ASSERT_EQUAL(seen, dyn_model_body_count(m));
}

static int geom_type(const dyn_shape *g) {
  switch (g->kind) {
  case DYN_SHAPE_SPHERE: return mjGEOM_SPHERE;
  case DYN_SHAPE_BOX: return mjGEOM_BOX;
  case DYN_SHAPE_CAPSULE: return g->half_length > 0 ? mjGEOM_CAPSULE : mjGEOM_SPHERE;
  case DYN_SHAPE_PLANE: return mjGEOM_PLANE;
  case DYN_SHAPE_HULL: return mjGEOM_MESH;
  default: return -1;
  }
}

static void same_geoms(const dyn_model *m, const mjModel *mj, const char *name) {
  const dyn_shape_def *S = dyn_model_shapes(m);
  int geoms = 0;
  for (int s = 0; s < dyn_model_shape_count(m); s++) geoms += S[s].geom.kind != DYN_SHAPE_NONE;
  CU_ASSERT_EQUAL_FATAL(mj->ngeom, geoms);
  CU_ASSERT_EQUAL_FATAL(mj->nuser_geom, MDL_GU_N);
  for (int g = 0; g < mj->ngeom; g++) {
    int s = (int)mj->geom_user[g * MDL_GU_N + MDL_GU_INDEX];
    CU_ASSERT_FATAL(s >= 0 && s < dyn_model_shape_count(m));
    int mat = S[s].material;
    double mu = mat == DYN_MATERIAL_DEFAULT ? default_mu : dyn_model_materials(m)[mat].mu;
    int b = mj->geom_bodyid[g];
    if (mj->geom_type[g] != geom_type(&S[s].geom) || mj->geom_friction[3 * g] != mu)
      printf("\n    %s: shape %d: type %d / %d, friction %g / %g\n", name, s, mj->geom_type[g],
             geom_type(&S[s].geom), mj->geom_friction[3 * g], mu);
    CU_ASSERT_EQUAL(mj->geom_type[g], geom_type(&S[s].geom));
    CU_ASSERT_EQUAL(mj->geom_friction[3 * g], mu);
    CU_ASSERT_EQUAL((int)mj->body_user[b * MDL_BU_N + MDL_BU_INDEX], S[s].body);
    CU_ASSERT_EQUAL((uint32_t)mj->geom_contype[g], S[s].contype);
    CU_ASSERT_EQUAL((uint32_t)mj->geom_conaffinity[g], S[s].conaffinity);
  }
}

/* Degrees of freedom: MuJoCo's nv against 6 per dynamic body less the
 * joints' rows (only where no joint closes a loop: equalities then). */
static void same_freedom(const dyn_model *m, const mjModel *mj, const char *name) {
  if (mj->neq > 0) return;
  int dof = 0;
  for (int i = 0; i < dyn_model_body_count(m); i++) dof += dyn_model_bodies(m)[i].is_static ? 0 : 6;
  for (int j = 0; j < dyn_model_joint_count(m); j++)
    dof -= dyn_joint_base_rows(dyn_model_joints(m)[j].kind);
  if (mj->nv != dof) printf("\n    %s: MuJoCo nv %d, lcplab %d\n", name, mj->nv, dof);
  CU_ASSERT_EQUAL(mj->nv, dof);
}

/* The free bodies (a free joint, no child, in no equality, touching
 * nothing in d's contacts): 1 each in out[], of mj->nbody. */
static int untouched_free_bodies(const mjModel *mj, const mjData *d, int *out) {
  int n = 0;
  for (int b = 0; b < mj->nbody; b++) {
    int j = mj->body_jntadr[b];
    out[b] = mj->body_jntnum[b] == 1 && mj->jnt_type[j] == mjJNT_FREE;
  }
  for (int b = 1; b < mj->nbody; b++) out[mj->body_parentid[b]] = 0;
  for (int e = 0; e < mj->neq; e++) out[mj->eq_obj1id[e]] = out[mj->eq_obj2id[e]] = 0;
  for (int c = 0; c < d->ncon; c++) {
    out[mj->geom_bodyid[d->contact[c].geom1]] = 0;
    out[mj->geom_bodyid[d->contact[c].geom2]] = 0;
  }
  for (int b = 0; b < mj->nbody; b++) n += out[b];
  return n;
}

/* Steps from the keyframe `lcplab`: the first one checked for free fall,
 * then 23 more, every coordinate finite. */
static int mujoco_steps(const mjModel *mj, const char *name) {
  mjData *d = mj_makeData(mj);
  CU_ASSERT_PTR_NOT_NULL_FATAL(d);
  if (mj->nkey > 0) mj_resetDataKeyframe(mj, d, 0);
  mj_forward(mj, d);
  double *v0 = malloc((size_t)mj->nv * sizeof *v0);
  int *freeb = malloc((size_t)mj->nbody * sizeof *freeb);
  CU_ASSERT_FATAL(v0 && freeb);
  memcpy(v0, d->qvel, (size_t)mj->nv * sizeof *v0);
  mj_step(mj, d);
  int nfree = untouched_free_bodies(mj, d, freeb);
  for (int b = 0; b < mj->nbody; b++) {
    if (!freeb[b]) continue;
    int a = mj->jnt_dofadr[mj->body_jntadr[b]]; /* v (world), then w (body) */
    for (int k = 0; k < 3; k++) {
      double dv = d->qvel[a + k] - v0[a + k], want = mj->opt.gravity[k] * mj->opt.timestep;
      if (fabs(dv - want) > 1e-12) printf("\n    %s: body %d: dv[%d] %.17g\n", name, b, k, dv);
      TST_CLOSE(dv, want, 1e-12, 0);
    }
  }
  warned[0] = '\0';
  for (int k = 1; k < 24; k++) mj_step(mj, d);
  if (warned[0]) printf("\n    note: %s: MuJoCo warned: %s", name, warned);
  int finite = 1;
  for (int i = 0; i < mj->nq; i++) finite = finite && isfinite(d->qpos[i]);
  CU_ASSERT(finite);
  CU_ASSERT_EQUAL(d->warning[mjWARN_BADQACC].number, 0);
  free(v0);
  free(freeb);
  mj_deleteData(d);
  return nfree;
}

/* The checks on one model; the free bodies found falling. */
static int same_scene(const dyn_model *m, const char *name) {
  mjModel *mj = write_and_load(m, name);
  same_bodies(m, mj, name);
  same_geoms(m, mj, name);
  same_freedom(m, mj, name);
  int falling = mujoco_steps(mj, name);
  mj_deleteModel(mj);
  return falling;
}

static void test_every_scene(void) {
  int falling = 0;
  for (int i = 0; i < dyn_scene_count(); i++) {
    dyn_model *m = NULL;
    char msg[512] = "";
    CU_ASSERT_EQUAL_FATAL(dyn_scene_model(dyn_scene_name(i), NULL, 0, &m, msg, sizeof msg), DYN_OK);
    falling += same_scene(m, dyn_scene_name(i));
    dyn_model_free(m);
  }
  CU_ASSERT(falling > 0); /* the free-fall check checked something */
}

/* A copy of the file at src without its <actuator> block, in dir: 0 when
 * written. */
static int copy_without_actuators(const char *src, const char *name, char *out, size_t len) {
  snprintf(out, len, "%s/%s", dir, name);
  FILE *in = fopen(src, "r"), *f = in ? fopen(out, "w") : NULL;
  char line[1024];
  int skip = 0;
  while (f && fgets(line, sizeof line, in)) {
    if (strstr(line, "<actuator>")) skip = 1;
    if (!skip) fputs(line, f);
    if (strstr(line, "</actuator>")) skip = 0;
  }
  int rc = f && fclose(f) == 0 ? 0 : -1;
  if (in) fclose(in);
  return rc;
}

/* MuJoCo's humanoid read with approximate (chain bodies, armature dropped)
 * and written back: MuJoCo runs the model lcplab runs.  Its 21 motors are
 * refused by the writer, which has no actuators (nothing lost); the bodies,
 * joints and shapes are written from a copy without the actuator block. */
static void test_humanoid_written_back(void) {
  const char *path = "/usr/share/mujoco/model/humanoid/humanoid.xml";
  FILE *f = fopen(path, "r");
  if (!f) {
    printf("\n    %s absent (libmujoco-samples): skipped\n", path);
    return;
  }
  fclose(f);
  mdl_read_options o = mdl_read_options_default();
  o.approximate = 1;
  dyn_model *m = NULL;
  char msg[2048] = "", body_only[600];
  mdl_err e = mdl_read_model(path, &o, &m, NULL, msg, sizeof msg);
  CU_ASSERT_EQUAL_FATAL(e, MDL_OK);
  FILE *sink = tmpfile();
  CU_ASSERT_PTR_NOT_NULL_FATAL(sink);
  CU_ASSERT_EQUAL(mdl_write_mjcf(m, NULL, sink, msg, sizeof msg), MDL_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "actuator 'abdomen_y': actuators are not written"));
  CU_ASSERT_EQUAL(ftell(sink), 0L); /* nothing half-written */
  fclose(sink);
  dyn_model_free(m);
  m = NULL;
  CU_ASSERT_EQUAL_FATAL(
      copy_without_actuators(path, "humanoid_body.xml", body_only, sizeof body_only), 0);
  e = mdl_read_model(body_only, &o, &m, NULL, msg, sizeof msg);
  if (e != MDL_OK) printf("\n    %s\n", msg);
  CU_ASSERT_EQUAL_FATAL(e, MDL_OK);
  CU_ASSERT_EQUAL(dyn_model_body_count(m), 16 + 9 + 1); /* + 9 chain bodies, + the floor's */
  same_scene(m, "humanoid_back");
  dyn_model_free(m);
}

/* ---- spatial tendons and muscles against MuJoCo's own (issue 80, item 5) ----------
 * A model with spatial tendons read into a reduced world; at joint
 * positions spread over the joints' ranges, each actuator's tendon length
 * (dyn_tendon_path) is MuJoCo's ten_length (mj_fwdPosition), its moment
 * arms (dyn_tendon_velocity at a unit joint velocity) MuJoCo's ten_J (dense)
 * and central differences of its own length, and its force at rest
 * (dyn_tendon_actuator_force: a muscle's passive force) MuJoCo's
 * actuator_force (mj_forward, activation 0). */

typedef struct tendon_case {
  mjModel *mj;
  mjData *d;
  dyn_model *m;
  dyn_world *w;
  dyn_redmax *rm;
  const dyn_rm_tree *t;
} tendon_case;

static int tendon_case_open(tendon_case *c, const char *path) {
  char err[1000] = "", msg[2048] = "";
  memset(c, 0, sizeof *c);
  c->mj = mj_loadXML(path, NULL, err, sizeof err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(c->mj);
  c->d = mj_makeData(c->mj);
  mdl_read_options o = mdl_read_options_default();
  o.reduced = 1;
  mdl_err e = mdl_read_model(path, &o, &c->m, NULL, msg, sizeof msg);
  if (e != MDL_OK) printf("\n    %s\n", msg);
  CU_ASSERT_EQUAL_FATAL(e, MDL_OK);
  dyn_world_settings s = dyn_world_settings_default();
  s.coordinates = DYN_COORDINATES_REDUCED;
  s.dt = c->mj->opt.timestep; /* the file's, as the front ends take it */
  if (dyn_world_new_from_model(c->m, &s, &c->w, msg, sizeof msg) != DYN_OK)
    printf("\n    %s\n", msg);
  CU_ASSERT_PTR_NOT_NULL_FATAL(c->w);
  c->rm = dyn_reduced_redmax(c->w);
  c->t = dyn_reduced_tree(c->w);
  /* hinges only: MuJoCo's joint j is lcplab's joint j */
  CU_ASSERT_EQUAL_FATAL(dyn_redmax_ndof(c->rm), c->mj->nv);
  CU_ASSERT_EQUAL_FATAL(dyn_model_joint_count(c->m), c->mj->njnt);
  return 1;
}

static void tendon_case_close(tendon_case *c) {
  dyn_world_free(c->w);
  dyn_model_free(c->m);
  mj_deleteData(c->d);
  mj_deleteModel(c->mj);
}

/* Both at MuJoCo's joint positions qpos and joint velocity e_vdof (-1:
 * none): MuJoCo's forward pass, lcplab's bodies posed. */
static void tendon_case_set(tendon_case *c, const double *qpos, int vdof) {
  double q[64] = { 0 }, u[64] = { 0 };
  for (int j = 0; j < c->mj->njnt; j++) {
    int qo, uo, b = c->t->jbody[j];
    dyn_redmax_offsets(c->rm, b, &qo, &uo);
    q[qo] = c->t->jsign[j] * qpos[j];
    if (vdof == j) u[uo] = c->t->jsign[j];
    c->d->qpos[c->mj->jnt_qposadr[j]] = qpos[j];
  }
  CU_ASSERT_EQUAL(dyn_redmax_set_state(c->rm, q, u, NULL, 0), DYN_OK);
  dyn_reduced_export_bodies(c->w);
  mj_forward(c->mj, c->d);
}

/* Actuator i's tendon length (and *dldt at the bodies' velocities). */
static double tendon_length(tendon_case *c, int i, double *dldt) {
  dyn_path_point pt[DYN_TENDON_MAX_POINTS];
  int n;
  const dyn_actuator_def *a = &dyn_model_actuators(c->m)[i];
  double L = dyn_tendon_path(a, dyn_world_body_states(c->w), pt, &n);
  if (dldt) *dldt = dyn_tendon_velocity(pt, n, dyn_world_body_states(c->w));
  return L;
}

/* Actuator i at qpos: length, moment arms, force against MuJoCo's; the
 * largest errors into err[0..2], the largest force into err[3]. */
static void tendon_compare(tendon_case *c, int i, double *qpos, double *err) {
  const mjModel *mj = c->mj;
  int t = mj->actuator_trnid[2 * i], nv = mj->nv;
  const dyn_actuator_def *a = &dyn_model_actuators(c->m)[i];
  tendon_case_set(c, qpos, -1);
  double L = tendon_length(c, i, NULL), dl;
  err[0] = fmax(err[0], fabs(L - c->d->ten_length[t]));
  double f = dyn_tendon_actuator_force(a, 0.0, 0.0, a->gear * L, 0.0);
  err[2] = fmax(err[2], fabs(f - c->d->actuator_force[i]) / fmax(1.0, fabs(f)));
  err[3] = fmax(err[3], fabs(f));
  for (int j = 0; j < mj->njnt; j++) {
    double mom = c->d->ten_J[t * nv + mj->jnt_dofadr[j]], q0 = qpos[j], h = 1e-6;
    tendon_case_set(c, qpos, j);
    tendon_length(c, i, &dl);
    err[1] = fmax(err[1], fabs(dl - mom));
    qpos[j] = q0 + h, tendon_case_set(c, qpos, -1);
    double Lp = tendon_length(c, i, NULL);
    qpos[j] = q0 - h, tendon_case_set(c, qpos, -1);
    double Lm = tendon_length(c, i, NULL);
    qpos[j] = q0;
    err[1] = fmax(err[1], fabs((Lp - Lm) / (2 * h) - dl) > 1e-6 ? 1.0 : 0.0);
  }
}

/* Every spatial-tendon actuator of the case at 7 x 7 joint positions over
 * the ranges (two hinges): the errors against MuJoCo's.  Not at a range's
 * middle: there tendon_wrap.xml's sphere has its sites opposite, the plane
 * of the wrap is any, and MuJoCo's choice (lcplab's too) is not the side
 * site's, so the moment arm is not the derivative of the length. */
static double tendons_like_mujoco(tendon_case *cp) {
  tendon_case c = *cp;
  double err[4] = { 0, 0, 0, 0 }, qpos[8] = { 0 };
  int nact = 0;
  const int g = tst_short_runs() ? 3 : 7; /* a g x g grid (3 x 3 under memcheck) */
  for (int k = 0; k < g * g; k++) {
    for (int j = 0; j < c.mj->njnt && j < 2; j++) {
      const mjtNum *r = c.mj->jnt_range + 2 * j;
      qpos[j] = r[0] + (r[1] - r[0]) * ((j == 0 ? k % g : k / g) + 0.4) / g;
    }
    nact = 0;
    for (int i = 0; i < c.mj->nu; i++)
      if (dyn_model_actuators(c.m)[i].npath > 0) tendon_compare(&c, i, qpos, err), nact++;
  }
  CU_ASSERT_EQUAL(nact, c.mj->nu);
  if (!(err[0] < 1e-12 && err[1] < 1e-9 && err[2] < 1e-9))
    printf("\n    |L - MuJoCo's| %.3g, moment arms %.3g, forces %.3g\n", err[0], err[1], err[2]);
  CU_ASSERT(err[0] < 1e-12);
  CU_ASSERT(err[1] < 1e-9);
  CU_ASSERT(err[2] < 1e-9);
  return err[3];
}

/* arm26.xml's muscles driven (SE=0.5, BF=1, EF=0.2): after 40 steps of
 * the world and of mj_step, every activation MuJoCo's (MuJoCo 2.2's
 * explicit Euler of its activation dynamics); a saved state restored
 * steps to the same activations and positions; the step's derivative
 * through an active muscle refused by name. */
static void muscles_driven(tendon_case *c) {
  double ctrl[6] = { 0, 0.5, 0.2, 0, 1, 0 };
  CU_ASSERT_EQUAL_FATAL(dyn_world_set_ctrl(c->w, ctrl, 6), DYN_OK);
  double q0[2] = { 0, 0 };
  tendon_case_set(c, q0, -1);
  for (int i = 0; i < 6; i++) c->d->ctrl[i] = ctrl[i];
  for (int k = 0; k < 40; k++) {
    CU_ASSERT_EQUAL_FATAL(dyn_world_step(c->w, NULL), DYN_OK);
    mj_step(c->mj, c->d);
  }
  const double *act = dyn_world_act(c->w);
  double err = 0;
  for (int i = 0; i < 6; i++) err = fmax(err, fabs(act[i] - c->d->act[i]));
  if (err > 1e-12) printf("\n    activations: %.3g from MuJoCo's\n", err);
  CU_ASSERT(err < 1e-12 && act[4] > 0.5 && act[1] > 0.2 && act[0] == 0);
  size_t n = dyn_world_state_size(c->w);
  void *saved = malloc(n);
  CU_ASSERT_EQUAL_FATAL(dyn_world_save_state(c->w, saved, n), DYN_OK);
  double a1[6], q1[2], q2[2];
  for (int k = 0; k < 10; k++) dyn_world_step(c->w, NULL);
  memcpy(a1, act, sizeof a1);
  dyn_redmax_get_state(c->rm, q1, NULL);
  CU_ASSERT_EQUAL(dyn_world_restore_state(c->w, saved, n), DYN_OK);
  for (int k = 0; k < 10; k++) dyn_world_step(c->w, NULL);
  dyn_redmax_get_state(c->rm, q2, NULL);
  CU_ASSERT(memcmp(a1, act, sizeof a1) == 0 && memcmp(q1, q2, sizeof q1) == 0);
  free(saved);
  char msg[256] = "";
  CU_ASSERT_EQUAL(dyn_world_step_jacobian(c->w, NULL, NULL, NULL, NULL, NULL, msg, sizeof msg),
                  DYN_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "actuator 'SE': the derivative through a muscle's active "
                                     "force"));
}

static const char *tendon_model(void) {
  static char path[600];
  const char *src = getenv("LCPLAB_SRCDIR"); /* the tests' environment (Makefile.am) */
  snprintf(path, sizeof path, "%s/tests/models/tendon_wrap.xml", src ? src : "..");
  return path;
}

static void test_tendons_mujoco(void) {
  tendon_case c;
  tendon_case_open(&c, tendon_model());
  tendons_like_mujoco(&c);
  tendon_case_close(&c);
  const char *arm26 = "/usr/share/mujoco/model/tendon_arm/arm26.xml";
  FILE *f = fopen(arm26, "r");
  if (!f) {
    printf("\n    %s absent (libmujoco-samples): skipped\n", arm26);
    return;
  }
  fclose(f);
  tendon_case_open(&c, arm26);
  double fmax_seen = tendons_like_mujoco(&c);
  CU_ASSERT(fmax_seen > 0.1); /* the passive forces compared were not all 0 (0.56 N on 3 x 3) */
  printf("\n    arm26.xml: largest passive muscle force compared %.4g N\n", fmax_seen);
  muscles_driven(&c);
  tendon_case_close(&c);
}

/* tendon_wrap.xml's hand-derived lengths and moment arms (its header) at
 * q = 0.3 and -0.2 rad, and a muscle's passive force by hand. */
static void test_tendons_by_hand(void) {
  tendon_case c;
  tendon_case_open(&c, tendon_model());
  for (int s = 0; s < 2; s++) {
    double q = s ? -0.2 : 0.3, qpos[2] = { q, q }, dl;
    double wrapped = 2 * sqrt(0.08) + 0.1 * (3.14159265358979323846 - 2 * acos(1.0 / 3.0) - q);
    double want[5] = { 0.6 * cos(q / 2), wrapped, sqrt(wrapped * wrapped + 0.04), 0, wrapped };
    double arm[5] = { -0.3 * sin(q / 2), -0.1, -0.1 * wrapped / sqrt(wrapped * wrapped + 0.04), 0,
                      -0.1 };
    for (int i = 0; i < 5; i++) {
      if (i == 3) continue; /* through: MuJoCo's check only */
      tendon_case_set(&c, qpos, i == 4 ? 1 : 0);
      double L = tendon_length(&c, i, &dl);
      if (fabs(L - want[i]) > 1e-12 || fabs(dl - arm[i]) > 1e-12)
        printf("\n    tendon %d at q %g: L %.15g (%.15g), dL/dq %.15g (%.15g)\n", i, q, L, want[i],
               dl, arm[i]);
      CU_ASSERT_DOUBLE_EQUAL(L, want[i], 1e-12);
      CU_ASSERT_DOUBLE_EQUAL(dl, arm[i], 1e-12);
    }
  }
  char msg[256] = "";
  CU_ASSERT_EQUAL(dyn_world_step_jacobian_ctrl(c.w, NULL, NULL, msg, sizeof msg), DYN_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "ctrl[0] (actuator 'straight'): the derivative through a "
                                     "spatial tendon is not computed"));
  tendon_case_close(&c);
  /* lengthrange [1, 2], range [0.75, 1.05] (L0 = 1 / 0.3), force 100,
   * lmax 1.6 (b = 1.3), fpmax 1.3: no passive force up to x = 1; at L = 2
   * (x = 1.05) -100 1.3 (0.05 / 0.3)^2 / 2; at x = 1.4 (L = 1 + 0.65 L0)
   * -100 1.3 (0.5 + 0.1 / 0.3) */
  dyn_muscle_prm m = { { 0.75, 1.05 }, 100, 200,  0.5,  1.6, 1.5, 1.3, 1.2,
                       { 1, 2 },       0.5, 0.01, 0.04, 0,   0,   0 };
  CU_ASSERT_DOUBLE_EQUAL(dyn_muscle_force(&m, 1.8, 0, 0), 0.0, 1e-15);
  CU_ASSERT_DOUBLE_EQUAL(dyn_muscle_force(&m, 2.0, 0, 0), -130.0 / 72.0, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(dyn_muscle_force(&m, 1 + 0.65 / 0.3, 0, 0), -130.0 * (0.5 + 1.0 / 3.0),
                         1e-9);
  /* the active curves at activation 1 (no control drives it in a world):
   * at x = 1 (L = 1 + 0.25 L0) FL = FV = 1; at V = -0.5 L0 vmax FV = 1/4 */
  CU_ASSERT_DOUBLE_EQUAL(dyn_muscle_force(&m, 1 + 0.25 / 0.3, 0, 1), -100.0, 1e-9);
  CU_ASSERT_DOUBLE_EQUAL(dyn_muscle_force(&m, 1 + 0.25 / 0.3, -0.5 * 1.5 / 0.3, 1), -25.0, 1e-9);
  m.force = -1; /* scale / acc0 = 400 */
  CU_ASSERT_DOUBLE_EQUAL(dyn_muscle_force(&m, 2.0, 0, 0), -4 * 130.0 / 72.0, 1e-12);
}

/* What the spatial-tendon mapping does not take: refused, the file, the
 * element and the feature named (mjcf_tendon_spatial.c). */
static void refused_as(const char *xml, const char *want) {
  char path[600], msg[2048] = "";
  snprintf(path, sizeof path, "%s/refused.xml", dir);
  FILE *f = fopen(path, "w");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  fputs(xml, f);
  fclose(f);
  mdl_read_options o = mdl_read_options_default();
  o.reduced = 1;
  dyn_model *m = NULL;
  CU_ASSERT_EQUAL(mdl_read_model(path, &o, &m, NULL, msg, sizeof msg), MDL_ERR_REFUSED);
  CU_ASSERT_PTR_NULL(m);
  if (!strstr(msg, want)) printf("\n    %s\n    (wanted: %s)\n", msg, want);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "refused.xml: "));
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, want));
  dyn_model_free(m);
}

static void test_tendons_refused(void) {
  const char *arm =
      "<mujoco><worldbody><site name='a' pos='-0.3 0 0'/><site name='c' pos='-0.3 0.1 0'/>"
      "<body name='arm'><joint name='j' type='hinge' axis='0 0 1'/>"
      "<inertial pos='0.3 0 0' mass='1' diaginertia='0.01 0.01 0.01'/>"
      "<site name='b' pos='0.3 0 0'/></body></worldbody><tendon>";
  char xml[1200];
  snprintf(xml, sizeof xml,
           "%s<spatial name='two'><site site='a'/><site site='b'/><pulley divisor='2'/>"
           "<site site='c'/><site site='b'/></spatial></tendon>"
           "<actuator><motor name='m' tendon='two'/></actuator></mujoco>",
           arm);
  refused_as(xml, "tendon 'two': a spatial tendon's pulley is not simulated");
  snprintf(xml, sizeof xml,
           "%s<spatial name='t' stiffness='5'><site site='a'/><site site='b'/></spatial>"
           "</tendon></mujoco>",
           arm);
  refused_as(xml, "tendon 't': a spatial tendon's stiffness, damping or frictionloss is not "
                  "simulated");
  snprintf(xml, sizeof xml,
           "%s</tendon><actuator><muscle name='mj' joint='j' lengthrange='-1 1'/></actuator>"
           "</mujoco>",
           arm);
  refused_as(xml, "actuator 'mj': a muscle on a joint or fixed tendon is not simulated");
}

int main(void) {
  if (tst_tmpdir_make(dir, sizeof dir, "test_mjcf_mujoco") != 0) return 1;
  CU_initialize_registry();
  mju_user_warning = on_warning;
  CU_pSuite s = CU_add_suite("MJCF in MuJoCo", NULL, NULL);
  CU_add_test(s, "every built-in scene: MuJoCo's bodies, geoms, freedom and step are lcplab's",
              test_every_scene);
  CU_add_test(s, "humanoid read with approximate, written back: the same in MuJoCo",
              test_humanoid_written_back);
  CU_add_test(s, "spatial tendons and muscles: MuJoCo's lengths, moment arms, forces",
              test_tendons_mujoco);
  CU_add_test(s, "spatial tendons: hand-derived lengths and moment arms; a muscle by hand",
              test_tendons_by_hand);
  CU_add_test(s, "spatial tendons: a pulley, a spring, a muscle on a joint refused by name",
              test_tendons_refused);
  int rc = tst_run();
  mju_user_warning = NULL;
  tst_tmpdir_remove(dir);
  return rc;
}
