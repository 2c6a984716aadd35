/*
 * mdl_internal.h -- private to libmodels: the layout of lcplab's custom data
 * in an MJCF file (written by mjcf_write*.c, read by mjcf_lcplab.c: one
 * definition for both; docs/models.md, "lcplab's custom data"), the guard
 * around libmujoco calls (mujoco_guard.c) and small helpers.
 *
 * The custom data (format 1), where MuJoCo keeps it and ignores it:
 *   <custom><numeric name="lcplab:format">   MDL_F_* below
 *   <custom><numeric name="lcplab:options">  MDL_O_*
 *   <custom><numeric name="lcplab:material:I"> mu, restitution (material I)
 *   <custom><text    name="lcplab:material:I"> its name (when it has one)
 *   <custom><numeric name="lcplab:joint:I">  MDL_J_* (joint I)
 *   <custom><text    name="lcplab:joint:I">  its name (when it has one)
 *   <custom><numeric name="lcplab:hull:S:K"> vertices of shape S, chunk K
 *                                            (MDL_HULL_CHUNK numbers each)
 *   body user= (nuser_body = MDL_BU_N)       MDL_BU_*: body I's exact record
 *   geom / site user= (MDL_GU_N)             MDL_GU_*: shape S's exact record
 * Indices are the model's (dyn_model.h); element ids are MuJoCo's, in the
 * order of the document (the writer knows them: MuJoCo numbers bodies,
 * joints, geoms and sites in document order, depth first).
 */
#ifndef MDL_INTERNAL_H
#define MDL_INTERNAL_H

#include <mujoco/mujoco.h>
#include <setjmp.h>
#include <stddef.h>

#include "mdl.h"

#define MDL_FORMAT 1
#define MDL_PREFIX "lcplab:"

/* lcplab:format */
enum { MDL_F_VERSION, MDL_F_BODIES, MDL_F_SHAPES, MDL_F_MATERIALS, MDL_F_JOINTS, MDL_F_N };

/* lcplab:options */
enum { MDL_O_REST_THRESHOLD, MDL_O_REST_STEPS, MDL_O_STEPS, MDL_O_DURATION, MDL_O_N };

/* body user (every MuJoCo body has these numbers; the world body's are 0) */
enum {
  MDL_BU_TAG,        /* MDL_FORMAT: the record below is lcplab's; 0: none */
  MDL_BU_INDEX,      /* the body's index in the model */
  MDL_BU_NAMED,      /* 1: the element's name is the body's; 0: made up for a
                        reference (<exclude>, <connect>): the body has none */
  MDL_BU_STATIC,     /* is_static */
  MDL_BU_MASS,       /* mass as given (static bodies too) */
  MDL_BU_R,          /* r (3) */
  MDL_BU_Q = 8,      /* q as given (w, x, y, z) */
  MDL_BU_V = 12,     /* v (3) */
  MDL_BU_W = 15,     /* w (3) */
  MDL_BU_REST = 18,  /* rest_given */
  MDL_BU_RREST = 19, /* r_rest (3) */
  MDL_BU_I = 22,     /* I_b, its 9 entries row by row (as given: symmetric to
                        rounding) */
  MDL_BU_N = 31
};

/* geom and site user: a shape (sites are the shapes of kind NONE) */
enum {
  MDL_GU_TAG,
  MDL_GU_INDEX,       /* the shape's index in the model */
  MDL_GU_MATERIAL,    /* its material index, or DYN_MATERIAL_DEFAULT */
  MDL_GU_KIND,        /* dyn_shape_kind */
  MDL_GU_RADIUS,      /* geom.radius */
  MDL_GU_HALFLEN,     /* geom.half_length */
  MDL_GU_HALF,        /* geom.half (3) */
  MDL_GU_NORMAL = 9,  /* geom.normal (3) */
  MDL_GU_OFFSET = 12, /* geom.offset */
  MDL_GU_POS = 13,    /* pos (3) */
  MDL_GU_ROT = 16,    /* rot (w, x, y, z) */
  MDL_GU_NVERTS = 20, /* geom.nverts (hulls) */
  MDL_GU_CONTYPE,     /* contype and conaffinity (sites: MuJoCo has none) */
  MDL_GU_CONAFFINITY,
  MDL_GU_N
};

/* lcplab:joint:I.  How the joint is written (MDL_J_AS): */
enum {
  MDL_AS_TREE = 0, /* the child body's own joints (none for fixed: welded) */
  MDL_AS_CONNECT,  /* one <connect> (a ball closing a loop) */
  MDL_AS_WELD,     /* one <weld> (a fixed joint closing a loop) */
  MDL_AS_CONNECT2  /* two <connect> on the axis (a hinge closing a loop) */
};
enum {
  MDL_J_KIND,            /* dyn_joint_kind */
  MDL_J_A,               /* body a */
  MDL_J_B,               /* body b (-1 the world) */
  MDL_J_ANCHOR,          /* anchor (3) */
  MDL_J_AXIS1 = 6,       /* axis1 (3) */
  MDL_J_AXIS2 = 9,       /* axis2 (3) */
  MDL_J_ERP = 12,        /* erp (6) */
  MDL_J_CFM = 18,        /* cfm (6) */
  MDL_J_LIMIT = 24,      /* limit: enabled, lo, hi, erp, cfm, restitution */
  MDL_J_MOTOR = 30,      /* motor: enabled, target_vel, max_force, cfm */
  MDL_J_AS = 34,         /* MDL_AS_* */
  MDL_J_ELEM = 35,       /* tree: the child body's element id; else the first
                        equality's id */
  MDL_J_N_NOSPRING = 36, /* the length of records written before springs */
  MDL_J_SPRING = 36,     /* spring: enabled, stiffness, damping, ref */
  MDL_J_N = 40
};

/* numbers per lcplab:hull:S:K chunk (MuJoCo's custom numerics hold 500) */
#define MDL_HULL_CHUNK 498

/* ---- libmujoco on first use (mujoco_api.c) ---------------------------------------- */

/* The functions and handler variables of libmujoco that libmodels uses,
 * looked up in the library opened on first use (every MuJoCo call of
 * libmodels goes through this table, which the guard hands out). */
typedef struct mdl_mujoco {
  mjModel *(*loadXML)(const char *filename, const mjVFS *vfs, char *error, int error_sz);
  void (*deleteModel)(mjModel *m);
  mjData *(*makeData)(const mjModel *m);
  void (*deleteData)(mjData *d);
  void (*step)(const mjModel *m, mjData *d);
  void (*kinematics)(const mjModel *m, mjData *d);
  int (*version)(void);
  const char *(*id2name)(const mjModel *m, int type, int id);
  int (*name2id)(const mjModel *m, int type, const char *name);
  const char *(*versionString)(void);
  void (*error)(const char *msg);
  void (**user_error)(const char *);   /* MuJoCo's mju_user_error */
  void (**user_warning)(const char *); /* mju_user_warning */
} mdl_mujoco;

/* The table, libmujoco loaded on the first call (the soname of the headers'
 * version, the version checked); NULL with the reason in err[len] when it
 * cannot be loaded. */
const mdl_mujoco *mdl_mujoco_load(char *err, size_t len);

/* mj_id2name and mj_name2id of a model the loaded library compiled. */
const char *mdl_mujoco_id2name(const mjModel *m, int type, int id);
int mdl_mujoco_name2id(const mjModel *m, int type, const char *name);

/* ---- the guard around libmujoco calls (mujoco_guard.c) --------------------------- */

/* While a guard is entered on a thread, a MuJoCo error on that thread
 * (mju_error, which must not return) jumps back to the guard's setjmp
 * point, and MuJoCo's warnings are appended to the guard's text instead of
 * being printed.  Use:
 *     mdl_guard g;
 *     if (mdl_guard_enter(&g) != 0) { ... g.error: libmujoco not loaded ... }
 *     if (setjmp(g.jb) == 0) { ... libmujoco calls through g.mj ... }
 *     else { ... g.error holds MuJoCo's message ... }
 *     mdl_guard_leave(&g);
 * Every local the jumped-to code reads must be volatile or set before
 * setjmp.  Guards nest (the innermost receives). */
typedef struct mdl_guard {
  jmp_buf jb;
  const mdl_mujoco *mj; /* libmujoco's functions (mdl_mujoco_load) */
  char error[512];      /* MuJoCo's error text, when it jumped */
  char warnings[512];   /* MuJoCo's warnings, one a line */
  struct mdl_guard *outer;
} mdl_guard;

int mdl_guard_enter(mdl_guard *g);
void mdl_guard_leave(mdl_guard *g);

/* ---- the probe: a file compiled first in a child process (mujoco_probe.c) -------- */

/* mj_loadXML of path (no VFS), one compilation of libmodels at a time (a
 * fork of the probe never copies MuJoCo's lock held). */
mjModel *mdl_load_xml(const mdl_mujoco *mj, const char *path, char *err, int errsz);

/* Compiles path in a child process (mj_loadXML, then, for a model within
 * max_bytes (mdl_model_bytes), mj_makeData and mj_kinematics), inside the
 * entered guard g.  MDL_OK when the child got through (the file loaded, or
 * MuJoCo refused it with a message the caller's own load will give);
 * MDL_ERR_MUJOCO when libmujoco crashed on it ("libmujoco crashed reading
 * PATH (MuJoCo 2.2.2; signal 11, Segmentation fault, ...)") or no child
 * could be started. */
mdl_err mdl_probe_load(mdl_guard *g, const char *path, size_t max_bytes, char *msg, size_t cap);

/* The bytes a compiled model takes once lcplab reads it (mjcf_read.c). */
double mdl_model_bytes(const mjModel *mj);

/* ---- helpers (mdl_util.c) --------------------------------------------------------- */

/* msg[cap] = prefix (may be NULL) then the formatted text; NULL msg: nothing. */
void mdl_msg(char *msg, size_t cap, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Lines of MuJoCo's text joined by "; " (its own words, on one line). */
void mdl_one_line(char *dst, size_t cap, const char *src);

/* MuJoCo's own run of a file (the tests compare lcplab's reading with it):
 * loads path with mj_loadXML and takes `steps` steps of mj_step from its
 * initial state; the bodies' world positions after them in xpos (3 per
 * MuJoCo body, world body first; NULL: not wanted) of room xcap numbers,
 * their number in *nbody (may be NULL).  MDL_ERR_FILE, MDL_ERR_MUJOCO
 * (an error in the steps), MDL_ERR_INPUT (steps < 0, xpos too small). */
mdl_err mdl_mujoco_run(const char *path, long steps, double *xpos, size_t xcap, int *nbody,
                       char *msg, size_t msgcap);

#endif /* MDL_INTERNAL_H */
