/*
 * mjcf_read.h -- private to libmodels' MJCF reader: a compiled mjModel
 * (and its kinematics at qpos0) mapped onto the records of a dyn_model.
 *
 *   mjcf_read.c         mdl_read_mjcf: load (mj_loadXML, guarded), the
 *                       table of features refused, the model assembled
 *   mjcf_read_map.c     bodies, shapes, materials, exclusions, options
 *   mjcf_read_joints.c  joints (a body's joints to its parent, equality
 *                       constraints)
 *   mjcf_read_lcplab.c  lcplab's custom data: the exact values, checked
 *                       against what MuJoCo compiled
 * The mapping first reads what MuJoCo compiled, as for any file (the
 * general path); lcplab's custom data, where present, then replaces values
 * by their exact originals where the two agree to a tight tolerance, puts
 * the records back in the model's order and adds what MJCF cannot say.
 */
#ifndef MJCF_READ_H
#define MJCF_READ_H

#include <mujoco/mujoco.h>

#include "mdl_internal.h"

/* How a joint record was found: the element that holds it. */
enum { MDL_KEY_TREE, MDL_KEY_EQ };

typedef struct mdl_map {
  const char *path;
  mdl_read_options opt_read; /* approximate, chain_mass */
  char notes[2048];          /* what was approximated or left out */
  int nact, nchain;          /* actuators listed; chain bodies added */
  /* approximations, one entry per kind (its format): the first element's
   * text and how many more (mdl_approx; mdl_notes_finish) */
  const char *ap_fmt[24];
  int ap_count[24], nap;
  char ap_first[24][320];
  const mjModel *mj;
  const mjData *d;
  char *msg;
  size_t cap;
  /* bodies: per lcplab body its MuJoCo body; per MuJoCo body its lcplab
   * body (-1: the world body when it holds no geom) */
  int nb;
  dyn_body_def *body;
  int *body_elem;
  int *lc_body;
  /* shapes: geoms first, then sites; per shape its element (geom or site
   * id) and whether it is a site; hull vertices owned here */
  int ns;
  dyn_shape_def *shape;
  int *shape_elem, *shape_site;
  dyn_v3 **verts;
  double *shape_mu; /* the friction MuJoCo compiled for the shape */
  int nm;
  dyn_material *mat;
  int nj, jcap;
  dyn_joint_def *joint;
  int *jkey_kind, *jkey_id; /* MDL_KEY_TREE: the child's body id; EQ: the equality id */
  int *jnt_lc;              /* per MuJoCo joint: its lcplab joint (hinge, slide, ball of
                               the tree), or -1 (free, or merged into a hinge-2) */
  int nex;
  int *ex;
  dyn_model_options opt;
} mdl_map;

/* Each returns MDL_OK or a refusal (MDL_ERR_REFUSED, the message naming the
 * file and the element) or MDL_ERR_NOMEM. */
mdl_err mdl_map_features(mdl_map *p); /* the table of refusals (mjcf_read.c) */
mdl_err mdl_map_bodies(mdl_map *p);   /* mjcf_read_map.c */
mdl_err mdl_map_shapes(mdl_map *p);
mdl_err mdl_map_materials(mdl_map *p);
mdl_err mdl_map_exclusions(mdl_map *p);
void mdl_map_options(mdl_map *p);
mdl_err mdl_map_joints(mdl_map *p); /* mjcf_read_joints.c */
/* 1 if the file carries lcplab's custom data (lcplab:format). */
int mdl_lcplab_present(const mjModel *mj);
mdl_err mdl_lcplab_apply(mdl_map *p); /* mjcf_read_lcplab.c */
/* The file's own representation (mjcf_coordinates.c): 1 reduced (a
 * kinematic tree), 0 maximal. */
int mdl_file_coordinates(const mjModel *mj);
/* MuJoCo's actuators at zero control (mjcf_actuators.c): the ones that are
 * not joint springs refused or dropped by name, the others listed. */
mdl_err mdl_map_actuators(mdl_map *p);
/* Tendons: fixed ones on hinges and slides without limit, spring or
 * friction are mapped (the transmissions of the actuators on them); the
 * others refused or dropped by name (mjcf_actuators.c). */
mdl_err mdl_map_tendons(mdl_map *p);
/* Spatial tendons (mjcf_tendon_spatial.c): 1 if tendon t is spatial;
 * what keeps it (or muscle u on it) from being mapped, or NULL; a mapped
 * motor's or muscle's path and parameters into a (nothing for others). */
int mdl_tendon_is_spatial(const mjModel *mj, int t);
const char *mdl_spatial_unmapped(const mjModel *mj, int t, int reduced);
const char *mdl_muscle_unmapped(const mjModel *mj, int u, int reduced);
void mdl_spatial_actuator(const mdl_map *p, int u, dyn_actuator_def *a);
/* Fixed tendon t's limit and spring as a record (mjcf_actuators.c): 1 and
 * *d filled for a mapped tendon with a limit, a stiffness or a damping
 * whose joints are mapped (reduced coordinates); 0 for the others. */
int mdl_tendon_def(const mdl_map *p, int t, dyn_tendon_def *d);
/* The spring of the servos on joint j at zero control: stiffness *k,
 * damping *c, and *kr = k times the rest position (MuJoCo's qpos). */
void mdl_actuator_spring(const mjModel *mj, int j, double *k, double *c, double *kr);

/* Actuator u as a record of the model (dyn_actuator_def): joint -1 for one
 * that no control drives here (a transmission other than a hinge's or
 * slide's, activation dynamics, a gain other than a constant, a servo
 * refused and dropped). */
dyn_actuator_def mdl_actuator_def(const mdl_map *p, int u);
void mdl_map_free(mdl_map *p);

/* The name of MuJoCo element i of a type ("" for none). */
const char *mdl_mj_name(const mjModel *mj, mjtObj type, int i);
/* "body 'NAME'" or "body 3" (MuJoCo's id) into buf. */
void mdl_mj_label(char *buf, size_t cap, const mjModel *mj, mjtObj type, int i);
/* The caller's spelling of an option (mdl_option_words' field given), else
 * the command line's (cli). */
const char *mdl_word(const char *given, const char *cli);
/* msg = "PATH: " + the formatted text; returns MDL_ERR_REFUSED. */
mdl_err mdl_refuse(mdl_map *p, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* A refusal that --approximate lifts: refused ("PATH: " + the text + ";
 * rerun with --approximate to HOW", the option as opt_read.words spells
 * it) without it, else the text and HOW appended to the notes and MDL_OK. */
/* The largest condim the read keeps (options o): the worlds' friction
 * model's (dyn_friction_max_condim), 6 for MDL_FRICTION_ANY; a geom above
 * it is refused or, under approximate, read as 3 (mjcf_read.c,
 * mjcf_read_map.c). */
static inline int mdl_condim_kept(const mdl_read_options *o) {
  return o->friction == MDL_FRICTION_ANY ? 6 : dyn_friction_max_condim(o->friction);
}

mdl_err mdl_approx(mdl_map *p, const char *how, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* The formatted text appended to the notes ("; " between items). */
void mdl_note(mdl_map *p, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* The approximations into the notes, one line per kind ("..., and N more"). */
void mdl_notes_finish(mdl_map *p);
/* MuJoCo's filterparent and weld exclusions (third-party files). */
mdl_err mdl_map_parent_exclusions(mdl_map *p);

/* msg = "PATH: out of memory"; returns MDL_ERR_NOMEM. */
mdl_err mdl_nomem(mdl_map *p);

/* Vectors and quaternions out of MuJoCo's arrays. */
static inline dyn_v3 mdl_v3(const mjtNum *x) { return dyn_v3_make(x[0], x[1], x[2]); }
static inline dyn_quat mdl_quat(const mjtNum *x) { return dyn_quat_make(x[0], x[1], x[2], x[3]); }

#endif /* MJCF_READ_H */
