/*
 * dyn_internal.h -- private declarations shared by libdynamics' own files
 * and its tests.  Never installed.
 */
#ifndef DYN_INTERNAL_H
#define DYN_INTERNAL_H

#include "dyn.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Format a message into msg[cap] when the caller gave a buffer (msg may
 * be NULL, cap 0): every libdynamics error path reports through these. */
static inline void dyn_vmsgf(char *msg, size_t cap, const char *fmt, va_list ap) {
  if (msg && cap > 0) vsnprintf(msg, cap, fmt, ap);
}
static inline void dyn_msgf(char *msg, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static inline void dyn_msgf(char *msg, size_t cap, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  dyn_vmsgf(msg, cap, fmt, ap);
  va_end(ap);
}

/* ---- dyn_buf: a growable array ----------------------------------------------- */

/* An array of T: p holds cap elements (p = NULL, cap = 0 before the first
 * reserve).  Every buffer of a world and of a model
 * (model_internal.h) is one; dyn_buf_reserve is the only
 * place they grow. */
#define DYN_BUF(T)                                                                                 \
  struct {                                                                                         \
    T *p;                                                                                          \
    size_t cap;                                                                                    \
  }

/* Grows the buffer whose pointer is at pp (a T **, passed as void *) to
 * hold at least need elements of elem bytes: cap steps x 1.5 from 16, the
 * contents kept (realloc).  Counts a growth in *grows.  Returns 0, or -1
 * (buffer unchanged) when the size overflows or memory is short.  A
 * reserve always leaves p non-NULL, even for need = 0. */
int dyn_buf_raw_reserve(void *pp, size_t *cap, size_t need, size_t elem, long *grows);

#define dyn_buf_reserve(b, need, grows)                                                            \
  dyn_buf_raw_reserve(&(b)->p, &(b)->cap, (need), sizeof *(b)->p, (grows))

#define dyn_buf_free(b)                                                                            \
  do {                                                                                             \
    free((b)->p);                                                                                  \
    (b)->p = NULL;                                                                                 \
    (b)->cap = 0;                                                                                  \
  } while (0)

typedef DYN_BUF(double) dyn_buf_double;
typedef DYN_BUF(int) dyn_buf_int;

/* splitmix64's finalizer: every bit of z reaches every bit of the result
 * (the scenes' random numbers, scenes_internal.h; the warm-start cache's hash
 * slots, warmstart.c). */
static inline uint64_t dyn_mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

/* The step's loops over bodies, pairs, contacts and rows run on
 * settings.opt.threads OpenMP threads from DYN_PAR_MIN items
 * (docs/dynamics.md, "Threads").  Each item is computed by the same code
 * whichever thread runs it, and the results are placed in the order of
 * one thread, so a step gives the same bits on any thread count. */
enum {
  DYN_PAR_MIN = 1024, /* items from which a loop splits */
  DYN_PAR_MAX = 256   /* threads at most (slv.h's SLV_THREADS_MAX, which the settings check) */
};

static inline int dyn_par_threads(int threads, long n) {
#ifdef _OPENMP
  if (threads > DYN_PAR_MAX) threads = DYN_PAR_MAX;
  return threads > 1 && n >= DYN_PAR_MIN ? threads : 1;
#else
  (void)threads;
  (void)n;
  return 1;
#endif
}

/* The item where part t of T starts when n items are cut into T runs. */
static inline long dyn_par_cut(long n, int t, int T) { return n * (long)t / T; }

/* The least of the T runs' first[t] (each run's first failing item, or
 * none).  A loop that looks for its first failure keeps one slot per run
 * and takes the least after, rather than an OpenMP reduction clause, which
 * clang implements with a lock symbol the shared library would export
 * (tests/test_exports.sh). */
static inline int dyn_par_least(const int *first, int T, int none) {
  int m = none;
  for (int t = 0; t < T; t++) m = first[t] < m ? first[t] : m;
  return m;
}

/* ---- shapes as the collision sees them --------------------------------------------- */

/* A shape of a body as the broad and narrow phase iterate it (Box2D's
 * b2Shape beside its b2Body): whose it is, its geometry and its pose in its
 * body's frame, its filter and its material.  The world compiles one per
 * model shape from its read-only model (world_model.c), once; nothing of
 * it is written by a step.  geom NULL: the body's own shape (its
 * dyn_body_const's shape, at the body's pose: every body with at most one
 * shape at the identity pose, where the records are the bodies). */
typedef struct dyn_shape_rt {
  int body;                      /* its body (the contact's a or b) */
  int shape;                     /* its index in the world's model; -1: none */
  uint32_t contype, conaffinity; /* the filter (dyn_shape_def) */
  double mu, e;                  /* its material's mu and restitution: the model's, or
                                    for DYN_MATERIAL_DEFAULT the settings' contact.mu and
                                    contact.restitution */
  double mt;                     /* its material's mu_torsion (0: the settings' default) */
  double mr;                     /* its material's mu_rolling (0: the settings' default) */
  int cd;                        /* its material's condim, 0 counted as 3 (dyn_condim_of) */
  const dyn_shape *geom;         /* the model's geometry; NULL: the body's own shape */
  int local;                     /* 1: at pos, rot in its body's frame; 0: at the body's pose */
  dyn_v3 pos;
  dyn_quat rot;
  double margin, gap; /* MuJoCo's geom margin and gap (dyn_shape_def); 0 for a body's own */
} dyn_shape_rt;

/* A shape placed in the world for one test: its geometry (borrowed), its
 * world pose and whether it never moves.  Made on the stack from a body
 * and a shape record (dyn_shape_place) where a phase needs it; never
 * stored. */
typedef struct dyn_geom {
  const dyn_shape *shape;
  dyn_v3 r;
  dyn_quat q;
  int is_static;
} dyn_geom;

/* Body b with its own shape at its pose. */
static inline dyn_geom dyn_body_geom(const dyn_body_const *bc, const dyn_body_state *b) {
  dyn_geom g = { &bc->shape, b->r, b->q, bc->is_static };
  return g;
}

/* Shape record s of bodies[s->body], placed at
 *     r_s = r_b + R(q_b) pos,   q_s = q_b rot
 * (a shape at the identity pose takes the body's r and q as they are). */
static inline dyn_geom dyn_shape_place(dyn_bodies bodies, const dyn_shape_rt *s) {
  const dyn_body_const *bc = &bodies.c[s->body];
  const dyn_body_state *b = &bodies.s[s->body];
  dyn_geom g = { s->geom ? s->geom : &bc->shape, b->r, b->q, bc->is_static };
  if (s->local) {
    g.r = dyn_v3_add(b->r, dyn_quat_rotate(b->q, s->pos));
    g.q = dyn_quat_mul(b->q, s->rot);
  }
  return g;
}

/* Where shape record s of bodies[s->body] is centred: dyn_shape_place's r
 * alone (the top-down sort's heights). */
static inline dyn_v3 dyn_shape_centre(dyn_bodies bodies, const dyn_shape_rt *s) {
  const dyn_body_state *b = &bodies.s[s->body];
  return s->local ? dyn_v3_add(b->r, dyn_quat_rotate(b->q, s->pos)) : b->r;
}

/* Record i of a collision: shape record shapes[i] placed, or body i with
 * its own shape when shapes is NULL (the public entries on bodies). */
static inline dyn_geom dyn_geom_at(dyn_bodies bodies, const dyn_shape_rt *shapes, int i) {
  return shapes ? dyn_shape_place(bodies, &shapes[i]) : dyn_body_geom(&bodies.c[i], &bodies.s[i]);
}

/* g's world bounding box grown by margin (broadphase.c; dyn_body_aabb on
 * a body). */
void dyn_geom_aabb(const dyn_geom *g, double margin, dyn_v3 *lo, dyn_v3 *hi);

/* The two halves of dyn_broadphase_sap (broadphase.c), for a sweep split
 * over threads: dyn_sap_sort computes and sorts the boxes in ws and
 * returns how many are usable (n); dyn_sap_sweep reports the pairs of the
 * sorted boxes i0 <= i < i1 (against every later box), as
 * dyn_broadphase_sap does (at most maxpairs written, the count returned).
 * Sweeps of consecutive ranges, put end to end, are the pairs of one
 * dyn_broadphase_sap call in its order.  simd: 1 tests four candidates at
 * a time in AVX2 where the CPU has it, 0 one at a time (the same pairs in
 * the same order; the tests compare them).  The sweep only reads ws. */
size_t dyn_sap_sort(dyn_bodies bodies, const dyn_shape_rt *shapes, int n, double margin, void *ws);
long dyn_sap_sweep(void *ws, size_t i0, size_t i1, int *pairs, long maxpairs, int simd);
/* dyn_broadphase_sap on the n shape records of bodies (shapes NULL: body
 * i with its own shape is record i). */
long dyn_broadphase_shapes(dyn_bodies bodies, const dyn_shape_rt *shapes, int n, double margin,
                           void *ws, int *pairs, long maxpairs);
/* dyn_broadphase_sap's grid (broadphase.c) over the n sorted boxes of ws
 * (after dyn_sap_sort): the pairs of dyn_sap_sweep over [0, n), in its
 * order, at most maxpairs written, the count returned; -1 where
 * dyn_broadphase_sap would sweep instead (no grid for this scene). */
long dyn_sap_grid(void *ws, size_t n, int *pairs, long maxpairs);

/* One unconstrained step of a single body (integrate.c): gravity g (m/s^2),
 * the body's f_ext / t_ext (held constant over the step, not cleared), the
 * gyroscopic option `gyro` and the orientation update `orient`, advanced by
 * the scheme `integ`:
 *   DYN_INT_SYMPLECTIC_EULER  velocity update (h), then position update (h);
 *   DYN_INT_EXPLICIT_EULER    position update (h) with the old v, w, and
 *                             velocity update (h) evaluated at the old state;
 *   DYN_INT_VERLET            position (h/2), velocity (h), position (h/2).
 * b: in/out.  h: step (s).  Static bodies are left unchanged. */
void dyn_body_step_free(const dyn_body_const *bc, dyn_body_state *b, double h, dyn_v3 g,
                        dyn_integrator integ, dyn_gyro gyro, dyn_orient orient);

/* The gyroscopic update alone (the world step's prepare stage):
 * dyn_body_update_velocity(b, h, 0, gyro) as if f_ext and t_ext were zero,
 * bit for bit, the loads left as they are.  For the implicit term on an
 * isotropic body (I_b = I 1: spheres, cubes), where w x I w vanishes but for
 * rounding, it skips the matrices that are exactly I 1 and J^-1 F's products
 * that are exactly +-0 (integrate.c, gyro_isotropic); wherever that is not
 * provably the same bits (a zero component, a non-finite number, a singular
 * J) it takes the general update. */
void dyn_body_update_gyro(const dyn_body_const *bc, dyn_body_state *b, double h, dyn_gyro gyro);

/* s if the 3x3 matrix m (row-major) is s 1 exactly: its three diagonal
 * entries equal and finite, the six others +-0; else NaN.  An isotropic
 * inertia (I_b = I 1, its inverse s 1: spheres, cubes) is the same in every
 * frame, R (s 1) R^T = s 1, which the world inertias then are exactly, not
 * up to the rounding of the products (body.c, dyn_ai_inv_inertia_world;
 * docs/dynamics.md, "World inertia and energy"). */
static inline double dyn_m3_scalar(const double *m) {
  double off = fabs(m[1]) + fabs(m[2]) + fabs(m[3]) + fabs(m[5]) + fabs(m[6]) + fabs(m[7]);
  return off == 0.0 && m[4] == m[0] && m[8] == m[0] && isfinite(m[0]) ? m[0] : NAN;
}

/* 1 iff the body's pose is finite and its shape parameters are in their
 * domain (sizes >= 0 and finite, a plane normal nonzero, a hull with
 * vertices): the input check of the narrow phase (collide.c). */
int dyn_geom_valid(const dyn_geom *g);

/* dyn_collide_pair on placed shapes A, B (records ia, ib); _valid: on
 * arguments already checked: out not NULL,
 * 0 <= ia != ib (the records' indices: the order of a pair of one kind,
 * and the contacts' a and b), margin finite and >= 0, both shapes
 * dyn_geom_valid (the world's collision pass checks each record once a
 * pass, not once per pair). */
int dyn_collide_geoms(const dyn_geom *A, const dyn_geom *B, int ia, int ib, double margin,
                      dyn_contact *out);
int dyn_collide_valid_geoms(const dyn_geom *A, const dyn_geom *B, int ia, int ib, double margin,
                            dyn_contact *out);
/* dyn_collide_gjk_epa on placed shapes already checked; the contact's a,
 * b are ia, ib. */
int dyn_gjk_epa_geoms(const dyn_geom *A, const dyn_geom *B, int ia, int ib, double margin,
                      dyn_contact *out);

/* Box narrow-phase routines of collide_box.c, called by collide.c's
 * dispatch with the shapes in this order (first argument's shape kind as
 * named); each writes up to DYN_MAX_MANIFOLD contacts with the normal from
 * the first body to the second and returns their number. */
int dyn_cb_plane_box(const dyn_geom *P, const dyn_geom *B, double margin, dyn_contact *out);
int dyn_cb_plane_hull(const dyn_geom *P, const dyn_geom *H, double margin, dyn_contact *out);
int dyn_cb_box_sphere(const dyn_geom *B, const dyn_geom *S, double margin, dyn_contact *out);
int dyn_cb_box_box(const dyn_geom *A, const dyn_geom *B, double margin, dyn_contact *out);
int dyn_cb_box_capsule(const dyn_geom *B, const dyn_geom *C, double margin, dyn_contact *out);

/* The curved convex shapes (shape_support.c): s an ELLIPSOID or a
 * CYLINDER.  Its support point in body-frame direction d (body frame); the
 * largest distance of a point from its centre; the half extents of its
 * world bounding box at rotation R; 1 iff its sizes are >= 0 and finite;
 * a plane P against cylinder C: up to DYN_MAX_MANIFOLD points, the normal
 * from P to C. */
dyn_v3 dyn_shape_curved_support(const dyn_shape *s, dyn_v3 d);
double dyn_shape_curved_extent(const dyn_shape *s);
dyn_v3 dyn_shape_curved_half_box(const dyn_shape *s, dyn_m3 R);
int dyn_shape_curved_valid(const dyn_shape *s);
int dyn_cs_plane_cylinder(const dyn_geom *P, const dyn_geom *C, double margin, dyn_contact *out);
static inline int dyn_shape_is_curved(dyn_shape_kind k) {
  return k == DYN_SHAPE_ELLIPSOID || k == DYN_SHAPE_CYLINDER;
}

/* The limit and motor rows of a joint coordinate at value cv and rate vel
 * (joint.c, "Limits"; docs/contact.md, "Limits and motors"): the rows'
 * rhs, bounds and cfm written into R[0 ..] (at most 2 records, which the
 * caller made with lo = -inf, hi = inf, its J and bodies), their number
 * returned; R NULL: only counted.  Both representations use it: the
 * world's joints (dyn_joint_fill) and the joint-space rows of the reduced
 * step (world_reduced.c). */
struct dyn_joint_limit;
struct dyn_joint_motor;
struct dyn_rows;
int dyn_joint_coord_rows(const struct dyn_joint_limit *L, const struct dyn_joint_motor *M,
                         double cv, double vel, double h, struct dyn_rows *R);

#ifdef __cplusplus
}
#endif

#endif /* DYN_INTERNAL_H */
