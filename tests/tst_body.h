/* tst_body.h -- a body of the tests as one record (header only).
 *
 * The library keeps a body's constants and its state apart (dyn.h:
 * dyn_body_const, dyn_body_state, two arrays in a dyn_bodies; a world's
 * constants are its model's).  Tests that place bodies by hand are clearer
 * with one record per body: tst_body holds both, and the tst_ functions
 * below call the library's on the two arrays split from an array of them
 * (and copy the state back where the library writes it).  Nothing here
 * computes: every number is the library's.
 */
#ifndef TST_BODY_H
#define TST_BODY_H

#include <stdlib.h>
#include <string.h>

#include "dyn.h"
#include "dyn_constraint.h"
#include "dyn_joint.h"
#include "dyn_redmax.h"

typedef struct tst_body {
  /* constants (dyn_body_const) */
  double mass, inv_mass;
  dyn_m3 I_b, inv_I_b;
  dyn_shape shape;
  int is_static;
  /* state (dyn_body_state) */
  dyn_v3 r;
  dyn_quat q;
  dyn_v3 v, w, f_ext, t_ext;
} tst_body;

static inline dyn_body_const tst_body_c(const tst_body *b) {
  dyn_body_const c = { b->mass, b->inv_mass, b->I_b, b->inv_I_b, b->shape, b->is_static };
  return c;
}

static inline dyn_body_state tst_body_s(const tst_body *b) {
  dyn_body_state s = { b->r, b->q, b->v, b->w, b->f_ext, b->t_ext };
  return s;
}

static inline void tst_body_join(tst_body *b, const dyn_body_const *c, const dyn_body_state *s) {
  b->mass = c->mass, b->inv_mass = c->inv_mass, b->I_b = c->I_b, b->inv_I_b = c->inv_I_b;
  b->shape = c->shape, b->is_static = c->is_static;
  b->r = s->r, b->q = s->q, b->v = s->v, b->w = s->w, b->f_ext = s->f_ext, b->t_ext = s->t_ext;
}

/* n bodies split into two malloc'd arrays (free with tst_bodies_free);
 * NULL arrays for n <= 0 or b NULL. */
static inline dyn_bodies tst_bodies_split(const tst_body *b, int n) {
  dyn_bodies v = { NULL, NULL };
  if (!b || n <= 0) return v;
  dyn_body_const *c = malloc((size_t)n * sizeof *c);
  dyn_body_state *s = malloc((size_t)n * sizeof *s);
  for (int i = 0; c && s && i < n; i++) c[i] = tst_body_c(&b[i]), s[i] = tst_body_s(&b[i]);
  v.c = c, v.s = s;
  return v;
}

/* The states of v written back into b (the constants never change). */
static inline void tst_bodies_put_state(tst_body *b, dyn_bodies v, int n) {
  for (int i = 0; v.s && i < n; i++) tst_body_join(&b[i], &v.c[i], &v.s[i]);
}

static inline void tst_bodies_free(dyn_bodies v) {
  free((void *)v.c);
  free(v.s);
}

/* ---- one body -------------------------------------------------------------------- */

static inline dyn_err tst_body_init(tst_body *b, double mass, dyn_m3 I_b, dyn_shape shape, dyn_v3 r,
                                    dyn_quat q, char *msg, size_t msgcap) {
  dyn_body_const c;
  dyn_body_state s;
  if (!b) return dyn_body_init(NULL, NULL, mass, I_b, shape, r, q, msg, msgcap);
  dyn_err e = dyn_body_init(&c, &s, mass, I_b, shape, r, q, msg, msgcap);
  if (e == DYN_OK) tst_body_join(b, &c, &s); /* a refused init leaves *b alone */
  return e;
}

static inline void tst_body_init_static(tst_body *b, dyn_shape shape, dyn_v3 r, dyn_quat q) {
  dyn_body_const c;
  dyn_body_state s;
  dyn_body_init_static(&c, &s, shape, r, q);
  tst_body_join(b, &c, &s);
}

static inline void tst_body_get_state(const tst_body *b, double st[DYN_BODY_STATE]) {
  dyn_body_state s = tst_body_s(b);
  dyn_body_get_state(&s, st);
}

static inline void tst_body_set_state(tst_body *b, const double st[DYN_BODY_STATE]) {
  dyn_body_const c = tst_body_c(b);
  dyn_body_state s = tst_body_s(b);
  dyn_body_set_state(&s, st);
  tst_body_join(b, &c, &s);
}

#define TST_BODY_READ(type, name, lib)                                                             \
  static inline type name(const tst_body *b) {                                                     \
    dyn_body_const c = tst_body_c(b);                                                              \
    dyn_body_state s = tst_body_s(b);                                                              \
    return lib(&c, &s);                                                                            \
  }
TST_BODY_READ(dyn_m3, tst_body_inertia_world, dyn_body_inertia_world)
TST_BODY_READ(dyn_m3, tst_body_inv_inertia_world, dyn_body_inv_inertia_world)
TST_BODY_READ(double, tst_body_kinetic, dyn_body_kinetic)
TST_BODY_READ(dyn_v3, tst_body_linear_momentum, dyn_body_linear_momentum)
TST_BODY_READ(dyn_v3, tst_body_angular_momentum, dyn_body_angular_momentum)

static inline void tst_body_update_velocity(tst_body *b, double h, dyn_v3 g, dyn_gyro gyro) {
  dyn_body_const c = tst_body_c(b);
  dyn_body_state s = tst_body_s(b);
  dyn_body_update_velocity(&c, &s, h, g, gyro);
  tst_body_join(b, &c, &s);
}

static inline void tst_body_update_position(tst_body *b, double h, dyn_orient orient) {
  dyn_body_const c = tst_body_c(b);
  dyn_body_state s = tst_body_s(b);
  dyn_body_update_position(&c, &s, h, orient);
  tst_body_join(b, &c, &s);
}

static inline void tst_body_aabb(const tst_body *b, double margin, dyn_v3 *lo, dyn_v3 *hi) {
  dyn_body_const c = tst_body_c(b);
  dyn_body_state s = tst_body_s(b);
  dyn_body_aabb(&c, &s, margin, lo, hi);
}

/* ---- arrays of bodies: split, call, (state back), free ----------------------------- */

/* The pair functions on bodies ia, ib alone: copied in index order to
 * slots 0 and 1 of two 2-arrays (ia and ib valid and apart; else the
 * whole array up to the larger index goes, for the library's refusal),
 * and the contacts' a, b named back. */
typedef int (*tst_pair_fn)(dyn_bodies, int, int, double, dyn_contact *);

static inline int tst_pair_call(tst_pair_fn fn, const tst_body *bodies, int ia, int ib,
                                double margin, dyn_contact *out) {
  if (!bodies || ia < 0 || ib < 0 || ia == ib) {
    int n = (ia > ib ? ia : ib) + 1;
    dyn_bodies v = tst_bodies_split(bodies, n > 0 ? n : 1);
    int r = fn(v, ia, ib, margin, out);
    tst_bodies_free(v);
    return r;
  }
  int lo = ia < ib ? ia : ib, hi = ia < ib ? ib : ia;
  dyn_body_const c[2] = { tst_body_c(&bodies[lo]), tst_body_c(&bodies[hi]) };
  dyn_body_state s[2] = { tst_body_s(&bodies[lo]), tst_body_s(&bodies[hi]) };
  int r = fn((dyn_bodies){ c, s }, ia < ib ? 0 : 1, ia < ib ? 1 : 0, margin, out);
  for (int k = 0; out && k < r; k++) {
    out[k].a = out[k].a == 0 ? lo : hi;
    out[k].b = out[k].b == 0 ? lo : hi;
  }
  return r;
}

static inline int tst_collide_pair(const tst_body *bodies, int ia, int ib, double margin,
                                   dyn_contact *out) {
  return tst_pair_call(dyn_collide_pair, bodies, ia, ib, margin, out);
}

static inline int tst_collide_gjk_epa(const tst_body *bodies, int ia, int ib, double margin,
                                      dyn_contact *out) {
  return tst_pair_call(dyn_collide_gjk_epa, bodies, ia, ib, margin, out);
}

static inline long tst_broadphase_sap(const tst_body *bodies, int nb, double margin, void *ws,
                                      int *pairs, long maxpairs) {
  dyn_bodies v = tst_bodies_split(bodies, nb);
  long r = dyn_broadphase_sap(v, nb, margin, ws, pairs, maxpairs);
  tst_bodies_free(v);
  return r;
}

static inline long tst_broadphase_all(const tst_body *bodies, int nb, double margin, int *pairs,
                                      long maxpairs) {
  dyn_bodies v = tst_bodies_split(bodies, nb);
  long r = dyn_broadphase_all(v, nb, margin, pairs, maxpairs);
  tst_bodies_free(v);
  return r;
}

static inline int tst_contact_fill(const tst_body *bodies, int nb, const dyn_contact *c,
                                   const dyn_contact_params *prm, double h, dyn_rows *out,
                                   int row0) {
  dyn_bodies v = tst_bodies_split(bodies, nb);
  int r = dyn_contact_fill(v, nb, c, prm, h, out, row0);
  tst_bodies_free(v);
  return r;
}

static inline int tst_contact_fill_material(const tst_body *bodies, int nb, const dyn_contact *c,
                                            const dyn_contact_params *prm, double h, dyn_rows *out,
                                            int row0) {
  dyn_bodies v = tst_bodies_split(bodies, nb);
  int r = dyn_contact_fill_material(v, nb, c, prm, h, out, row0);
  tst_bodies_free(v);
  return r;
}

static inline dyn_err tst_assemble(dyn_system *sys, const tst_body *bodies, int nb,
                                   const dyn_rows *rows, int nrows, double h, dyn_v3 g,
                                   slv_storage storage, slv_problem *out) {
  dyn_bodies v = tst_bodies_split(bodies, nb);
  dyn_err e = dyn_assemble(sys, v, nb, rows, nrows, h, g, storage, out);
  tst_bodies_free(v);
  return e;
}

static inline dyn_err tst_apply_impulse(const dyn_system *sys, tst_body *bodies, int nb,
                                        const double *x, double h, dyn_v3 g) {
  dyn_bodies v = tst_bodies_split(bodies, nb);
  dyn_err e = dyn_apply_impulse(sys, v, nb, x, h, g);
  tst_bodies_put_state(bodies, v, nb);
  tst_bodies_free(v);
  return e;
}

static inline dyn_err tst_joint_init(dyn_joint *j, dyn_joint_kind kind, const tst_body *bodies,
                                     int nb, int a, int b, dyn_v3 anchor, dyn_v3 axis1,
                                     dyn_v3 axis2, char *msg, size_t cap) {
  dyn_bodies v = tst_bodies_split(bodies, nb);
  dyn_err e = dyn_joint_init(j, kind, v, nb, a, b, anchor, axis1, axis2, msg, cap);
  tst_bodies_free(v);
  return e;
}

static inline int tst_joint_fill(const tst_body *bodies, int nb, const dyn_joint *j, double h,
                                 dyn_rows *out, int row0) {
  dyn_bodies v = tst_bodies_split(bodies, nb);
  int r = dyn_joint_fill(v, nb, j, h, out, row0);
  tst_bodies_free(v);
  return r;
}

static inline int tst_joint_phi(const tst_body *bodies, int nb, const dyn_joint *j, double *phi) {
  dyn_bodies v = tst_bodies_split(bodies, nb);
  int r = dyn_joint_phi(v, nb, j, phi);
  tst_bodies_free(v);
  return r;
}

static inline dyn_err tst_joint_coord(const tst_body *bodies, int nb, const dyn_joint *j,
                                      double *coord) {
  dyn_bodies v = tst_bodies_split(bodies, nb);
  dyn_err e = dyn_joint_coord(v, nb, j, coord);
  tst_bodies_free(v);
  return e;
}

static inline double tst_joint_anchor_error(const tst_body *bodies, int nb, const dyn_joint *j) {
  dyn_bodies v = tst_bodies_split(bodies, nb);
  double e = dyn_joint_anchor_error(v, nb, j);
  tst_bodies_free(v);
  return e;
}

static inline dyn_err tst_redmax_export_bodies(dyn_redmax *rm, tst_body *bodies, char *msg,
                                               size_t cap) {
  int nb = bodies ? dyn_redmax_nbodies(rm) : 0;
  dyn_bodies v = tst_bodies_split(bodies, nb);
  dyn_err e = dyn_redmax_export_bodies(rm, (dyn_body_const *)v.c, v.s, msg, cap);
  tst_bodies_put_state(bodies, v, nb);
  tst_bodies_free(v);
  return e;
}

#endif /* TST_BODY_H */
