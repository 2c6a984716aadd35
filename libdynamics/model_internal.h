/*
 * model_internal.h -- the inside of a dyn_model (dyn_model.h), shared by
 * the files that implement it, the world that is built from it and the
 * tests; never installed.
 *
 *   model.c        construction, copy, the add / set functions, accessors
 *   model_check.c  the check of each record, dyn_model_validate
 *   model_names.c  the name index of each kind of record
 *   model_mass.c   mass from density, default steps, rest positions
 *
 * docs/scenes.md describes the model.
 */
#ifndef DYN_MODEL_INTERNAL_H
#define DYN_MODEL_INTERNAL_H

#include <stddef.h>

#include "dyn_internal.h"
#include "dyn_model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The kinds of records, for messages and the name indices. */
typedef enum dyn_rec_kind {
  DYN_REC_BODY = 0,
  DYN_REC_SHAPE,
  DYN_REC_MATERIAL,
  DYN_REC_JOINT,
  DYN_REC_KINDS
} dyn_rec_kind;

/* Names of one kind of record: open addressing on the name's hash, slot
 * -> record index (-1 empty), at most half full.  Every record struct
 * starts with its name, so the name of record i is at base + i stride. */
typedef struct dyn_name_index {
  int *slot;
  size_t cap; /* a power of two, or 0 */
  int count;  /* named records */
} dyn_name_index;

struct dyn_model {
  DYN_BUF(dyn_body_def) bodies;
  int nb;
  DYN_BUF(dyn_body_const) consts; /* per body, compiled (model_consts.c) */
  dyn_buf_int nshape;             /* per body: its shapes' count */
  DYN_BUF(dyn_shape_def) shapes;  /* a HULL's verts: a block of its own, owned */
  int ns;
  DYN_BUF(dyn_material) mats;
  int nm;
  DYN_BUF(dyn_joint_def) joints;
  int nj;
  DYN_BUF(dyn_actuator_def) acts; /* no name index: few, found by a scan */
  int na;
  DYN_BUF(dyn_tendon_def) tends; /* fixed tendons; no name index */
  int ntd;
  dyn_buf_int excl; /* 2 ints a pair, a < b, sorted */
  int nex;
  dyn_model_options opt;
  dyn_name_index names[DYN_REC_KINDS];
  size_t bytes; /* records and hull vertices: the memory cap's count */
  long grows;   /* dyn_buf's growth count (not reported) */
  int shares;   /* the worlds built on it (dyn_model_share): dyn_model_free
                   frees it when it is the last holder */
};

/* m shared by one more holder (a world built on it, which only reads it):
 * dyn_model_free drops one holder, the last frees it. */
const dyn_model *dyn_model_share(const dyn_model *m);

/* The combine rule of materials, one field (dyn_material_combine): the
 * larger of two finite values; inline, as the narrow phase applies it to
 * every contact (fmax is a libm call there). */
static inline double dyn_material_max(double a, double b) { return a > b ? a : b; }

/* A material's condim as the pairing rule counts it: 0 (lcplab's own) is 3. */
static inline int dyn_condim_of(int condim) { return condim == 0 ? 3 : condim; }

/* A material's friction as the pairing rule reads it: mu, mu_torsion,
 * mu_rolling and the condim (dyn_condim_of already applied). */
typedef struct dyn_friction_coef {
  double mu, mt, mr;
  int cd;
} dyn_friction_coef;

/* The pairing rule (dyn_material_combine, dyn_material_contact) on two
 * materials' coefficients: the larger condim; mu the larger unless that
 * is 1; mu_torsion the larger where it is 4 or 6; mu_rolling the larger
 * where it is 6 (MuJoCo's mj_contactParam for two geoms of one priority,
 * docs/models.md, "<geom condim>").  One place: the collision pass and
 * the public functions call it; out's cd is the pair's condim. */
static inline dyn_friction_coef dyn_pair_friction(dyn_friction_coef a, dyn_friction_coef b) {
  dyn_friction_coef c;
  c.cd = a.cd > b.cd ? a.cd : b.cd;
  c.mu = c.cd == 1 ? 0.0 : dyn_material_max(a.mu, b.mu);
  c.mt = c.cd >= 4 ? dyn_material_max(a.mt, b.mt) : 0.0;
  c.mr = c.cd >= 6 ? dyn_material_max(a.mr, b.mr) : 0.0;
  return c;
}

/* "body 3 'torso'" (or "body 3" without a name) into buf. */
void dyn_rec_label(char *buf, size_t cap, dyn_rec_kind kind, int i, const char *name);

/* The record checks of the add and set functions (model_check.c): record
 * i (the index it has or will have) against the model; DYN_OK or
 * DYN_ERR_INPUT with the message naming it. */
dyn_err dyn_check_body(const dyn_model *m, int i, const dyn_body_def *d, char *msg, size_t cap);
/* Existing body i may take d's static flag: no plane shape on it when
 * dynamic, no joint to the world or a static body when static (O(shapes +
 * joints): dyn_model_set_body only). */
dyn_err dyn_check_body_links(const dyn_model *m, int i, const dyn_body_def *d, char *msg,
                             size_t cap);
dyn_err dyn_check_shape(const dyn_model *m, int i, const dyn_shape_def *d, char *msg, size_t cap);
dyn_err dyn_check_material(const dyn_model *m, int i, const dyn_material *d, char *msg, size_t cap);
dyn_err dyn_check_joint(const dyn_model *m, int i, const dyn_joint_def *d, char *msg, size_t cap);
dyn_err dyn_check_options(const dyn_model_options *o, char *msg, size_t cap);

/* The compiled body of body def d, as a world holds it: dyn_body_init (or
 * dyn_body_init_static) with the given shape, then v and w; *b zeroed
 * first.  DYN_ERR_INPUT with dyn_body_init's message (mass 0 included). */
dyn_err dyn_body_compile(const dyn_body_def *d, dyn_shape shape, dyn_body_const *c,
                         dyn_body_state *b, char *msg, size_t cap);

/* 1 iff shape s sits at its body's origin, unturned. */
static inline int dyn_shape_def_at_identity(const dyn_shape_def *s) {
  return s->pos.x == 0.0 && s->pos.y == 0.0 && s->pos.z == 0.0 && s->rot.w == 1.0 &&
         s->rot.x == 0.0 && s->rot.y == 0.0 && s->rot.z == 0.0;
}

/* The bodies' constants kept current (model_consts.c): body b's
 * recompiled from its record and shapes; after shape k was added (its
 * body's shape count grown); all of them, the shape counts recounted
 * (after a copy: the hulls' vertices are the copy's). */
void dyn_model_compile_body(dyn_model *m, int b);
void dyn_model_compile_shape_added(dyn_model *m, int k);
void dyn_model_compile_all(dyn_model *m);

/* The joint of def d on bodies (size nb, compiled) with its softness,
 * limit and motor; DYN_ERR_INPUT with dyn_joint_init's or
 * dyn_joint_validate's message. */
dyn_err dyn_joint_compile(const dyn_joint_def *d, dyn_bodies bodies, int nb, dyn_joint *j,
                          char *msg, size_t cap);

/* The name index (model_names.c). */
int dyn_names_find(const dyn_name_index *x, const void *base, size_t stride, const char *name);
/* Record i named `name` (non-empty) entered; -1 on memory shortage. */
int dyn_names_insert(dyn_name_index *x, const void *base, size_t stride, const char *name, int i);
/* The index rebuilt from the n records (after a rename); -1 on memory shortage. */
int dyn_names_rebuild(dyn_name_index *x, const void *base, size_t stride, int n);
void dyn_names_free(dyn_name_index *x);

/* Store a record as the next of its kind without checking it (for callers
 * that checked it already): its index, or DYN_ERR_NOMEM (nothing added).  A shape's hull
 * vertices are copied as the add does. */
int dyn_model_push_body(dyn_model *m, const dyn_body_def *d, char *msg, size_t cap);
int dyn_model_push_shape(dyn_model *m, const dyn_shape_def *d, char *msg, size_t cap);
int dyn_model_push_joint(dyn_model *m, const dyn_joint_def *d, char *msg, size_t cap);

/* 1 iff bodies a, b (either order) are an excluded pair. */
int dyn_model_excluded(const dyn_model *m, int a, int b);

/* A hull's vertices copied into a block of their own (malloc), or NULL. */
dyn_v3 *dyn_verts_alloc(const dyn_v3 *v, int n);

#ifdef __cplusplus
}
#endif
/* The restitution threshold of m's contacts at step dt under gravity g
 * (dyn_model_rest_threshold's formula, at the run's gravity). */
double dyn_model_rest_threshold_at(const dyn_model *m, dyn_v3 g, double dt);

#endif /* DYN_MODEL_INTERNAL_H */
