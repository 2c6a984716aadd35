/*
 * mjcf_coordinates.c -- the representation a file is read in when its
 * reader did not choose one (mdl_read_options.reduced = MDL_COORDINATES_FILE;
 * docs/models.md, "Third-party models: the representation"): reduced
 * coordinates for a file with a kinematic tree, maximal for the others.
 *
 * A file has a kinematic tree when a joint other than a free joint moves a
 * body in its parent's frame or a body is nested in another (welded to it):
 * a robot, a pendulum, a door.  Maximal stays the file's representation
 * where reduced coordinates could not hold the file as written (an
 * equality constraint, connect or weld, closes a loop, which reduced
 * coordinates hold as rows in joint space: world_reduced.c, so a file with
 * equalities is reduced too):
 *   - the file carries lcplab's custom data: lcplab wrote it from a model
 *     in maximal coordinates (built-in scenes, --save-model), whose joint
 *     softness, motors and restitution it keeps; it is read back as it was
 *     written, so a saved scene runs as the scene;
 *   - a hinge's or slide's spring at rest away from the initial pose
 *     (springref): the tree's stiffness has no rest offset (a reduced
 *     world refuses it);
 *   - only free bodies (a pile): nothing to reduce, and maximal's problem
 *     is sparse.
 */
#include "mjcf_read.h"

/* 1: a joint other than free, or a body nested in another than the world */
static int has_tree(const mjModel *mj) {
  for (int j = 0; j < mj->njnt; j++)
    if (mj->jnt_type[j] != mjJNT_FREE) return 1;
  for (int b = 1; b < mj->nbody; b++)
    if (mj->body_parentid[b] != 0) return 1;
  return 0;
}

/* 1: a hinge's or slide's spring (or damper) at rest away from qpos0, as
 * the joint mapping reads it (mjcf_read_joints.c) */
static int has_offset_spring(const mjModel *mj) {
  for (int j = 0; j < mj->njnt; j++) {
    int t = mj->jnt_type[j], qa = mj->jnt_qposadr[j], dof = mj->jnt_dofadr[j];
    if (t != mjJNT_HINGE && t != mjJNT_SLIDE) continue;
    if ((mj->jnt_stiffness[j] > 0.0 || mj->dof_damping[dof] > 0.0) &&
        mj->qpos_spring[qa] != mj->qpos0[qa])
      return 1;
  }
  return 0;
}

int mdl_file_coordinates(const mjModel *mj) {
  if (mdl_lcplab_present(mj) || has_offset_spring(mj)) return 0;
  return has_tree(mj);
}
