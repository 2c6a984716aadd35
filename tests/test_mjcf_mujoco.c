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
#include "dyn_world.h"
#include "mdl.h"
#include "mdl_internal.h"
#include "tst_util.h"

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

/* MuJoCo's humanoid read with approximate (chain bodies, armature dropped)
 * and written back: MuJoCo runs the model lcplab runs. */
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
  char msg[2048] = "";
  mdl_err e = mdl_read_model(path, &o, &m, NULL, msg, sizeof msg);
  if (e != MDL_OK) printf("\n    %s\n", msg);
  CU_ASSERT_EQUAL_FATAL(e, MDL_OK);
  CU_ASSERT_EQUAL(dyn_model_body_count(m), 16 + 9 + 1); /* + 9 chain bodies, + the floor's */
  same_scene(m, "humanoid_back");
  dyn_model_free(m);
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
  int rc = tst_run();
  mju_user_warning = NULL;
  tst_tmpdir_remove(dir);
  return rc;
}
