/*
 * model_mass.c -- what a dyn_model derives from its records: a body's mass
 * and inertia from its shapes and a density, the default run, the
 * restitution threshold at a step size, the rest positions (dyn_model.h).
 * docs/scenes.md, "Bodies".
 *
 * Mass from density rho: each shape k of volume V_k (sphere 4/3 pi r^3;
 * box 8 a b c for half extents a, b, c; capsule pi r^2 2 h + 4/3 pi r^3)
 * has mass m_k = rho V_k and, about its own centre and in its own axes,
 * the inertia I_k of the uniform solid (dyn_inertia_sphere, _box, _capsule,
 * body.c).  At pose (p_k, R_k) in the body frame, about the common centre
 * of mass c = sum m_k p_k / M (M = sum m_k), by the parallel-axis theorem:
 *     I = sum_k  R_k I_k R_k^T + m_k (|d_k|^2 E - d_k d_k^T),  d_k = p_k - c.
 * The body frame's origin must be the centre of mass (dyn_body_def), so
 * when c != 0 it moves there (r += R(q) c, pos_k -= c): the shapes keep
 * their place in the world.  Shapes overlapping count twice (no boolean
 * union): a body of overlapping shapes is heavier than its solid.
 */
#include "model_internal.h"

#include <math.h>
#include <string.h>

#define MM_PI 3.14159265358979323846 /* M_PI, which strict C11 does not define */

/* Mass, inertia (own axes, about its centre) of shape s at density rho;
 * 0 for a shape without volume; -1 for a hull. */
static int shape_mass(const dyn_shape *s, double rho, double *mk, dyn_m3 *Ik) {
  double r = s->radius, V;
  switch (s->kind) {
  case DYN_SHAPE_SPHERE:
    V = 4.0 / 3.0 * MM_PI * r * r * r;
    *mk = rho * V;
    *Ik = dyn_inertia_sphere(*mk, r);
    return 1;
  case DYN_SHAPE_BOX:
    V = 8.0 * s->half.x * s->half.y * s->half.z;
    *mk = rho * V;
    *Ik = dyn_inertia_box(*mk, s->half);
    return 1;
  case DYN_SHAPE_CAPSULE:
    V = MM_PI * r * r * 2.0 * s->half_length + 4.0 / 3.0 * MM_PI * r * r * r;
    *mk = rho * V;
    *Ik = dyn_inertia_capsule(*mk, r, s->half_length);
    return 1;
  case DYN_SHAPE_ELLIPSOID:
    V = 4.0 / 3.0 * MM_PI * s->half.x * s->half.y * s->half.z;
    *mk = rho * V;
    *Ik = dyn_inertia_ellipsoid(*mk, s->half);
    return 1;
  case DYN_SHAPE_CYLINDER:
    V = MM_PI * r * r * 2.0 * s->half_length;
    *mk = rho * V;
    *Ik = dyn_inertia_cylinder(*mk, r, s->half_length);
    return 1;
  case DYN_SHAPE_HULL: return -1;
  default: return 0;
  }
}

/* m (|d|^2 E - d d^T): the parallel-axis term of mass m at offset d. */
static dyn_m3 parallel_axis(double m, dyn_v3 d) {
  double dd = dyn_v3_dot(d, d), v[3] = { d.x, d.y, d.z };
  dyn_m3 P;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) P.m[3 * i + j] = m * ((i == j ? dd : 0.0) - v[i] * v[j]);
  return P;
}

dyn_err dyn_model_mass_from_density(dyn_model *m, int i, double density, char *msg, size_t cap) {
  if (!m || i < 0 || i >= m->nb) {
    dyn_msgf(msg, cap, "mass from density: body %d does not exist (%d bodies)", i, m ? m->nb : 0);
    return DYN_ERR_INPUT;
  }
  dyn_body_def d = m->bodies.p[i];
  char label[DYN_NAME_MAX + 32];
  dyn_rec_label(label, sizeof label, DYN_REC_BODY, i, d.name);
  if (!(density > 0.0) || !isfinite(density) || d.is_static) {
    dyn_msgf(msg, cap, "%s: mass from density %g: %s", label, density,
             d.is_static ? "the body is static" : "the density must be finite and > 0");
    return DYN_ERR_INPUT;
  }
  double M = 0.0;
  dyn_v3 mp = dyn_v3_make(0.0, 0.0, 0.0);
  for (int k = 0; k < m->ns; k++) {
    const dyn_shape_def *s = &m->shapes.p[k];
    double mk;
    dyn_m3 Ik;
    int r = s->body == i ? shape_mass(&s->geom, density, &mk, &Ik) : 0;
    if (r < 0) {
      dyn_msgf(msg, cap, "%s: mass from density: shape %d is a hull (give its mass and inertia)",
               label, k);
      return DYN_ERR_INPUT;
    }
    if (r == 0) continue;
    M += mk;
    mp = dyn_v3_axpy(mp, mk, s->pos);
  }
  if (!(M > 0.0) || !isfinite(M)) {
    dyn_msgf(msg, cap, "%s: mass from density: its shapes have no volume (mass %g)", label, M);
    return DYN_ERR_INPUT;
  }
  dyn_v3 c = dyn_v3_scale(mp, 1.0 / M);
  dyn_m3 I = dyn_m3_zero();
  for (int k = 0; k < m->ns; k++) {
    const dyn_shape_def *s = &m->shapes.p[k];
    double mk;
    dyn_m3 Ik;
    if (s->body != i || shape_mass(&s->geom, density, &mk, &Ik) <= 0) continue;
    dyn_m3 R = dyn_quat_to_m3(s->rot);
    I = dyn_m3_add(I, dyn_m3_mul(dyn_m3_mul(R, Ik), dyn_m3_transpose(R)));
    I = dyn_m3_add(I, parallel_axis(mk, dyn_v3_sub(s->pos, c)));
  }
  d.mass = M;
  d.I_b = I;
  dyn_v3 shift = dyn_quat_rotate(dyn_quat_normalize(d.q), c);
  d.r = dyn_v3_add(d.r, shift);
  if (d.rest_given) d.r_rest = dyn_v3_add(d.r_rest, shift);
  dyn_err e = dyn_check_body(m, i, &d, msg, cap);
  if (e != DYN_OK) return e;
  m->bodies.p[i] = d; /* same name: the index stands */
  for (int k = 0; k < m->ns; k++)
    if (m->shapes.p[k].body == i) m->shapes.p[k].pos = dyn_v3_sub(m->shapes.p[k].pos, c);
  dyn_model_compile_body(m, i);
  return DYN_OK;
}

long dyn_model_default_steps(const dyn_model *m, double dt) {
  if (!m || !(dt > 0.0) || !isfinite(dt)) return 0;
  if (m->opt.steps > 0) return m->opt.steps;
  double k = floor(m->opt.duration / dt + 0.5); /* round(duration / dt), as the peers */
  return k < 1 ? 1 : (k > 1e15 ? 0 : (long)k);
}

double dyn_model_rest_threshold_at(const dyn_model *m, dyn_v3 g, double dt) {
  if (!m) return 0.0;
  return m->opt.rest_threshold + m->opt.rest_threshold_steps * dyn_v3_norm(g) * dt;
}

double dyn_model_rest_threshold(const dyn_model *m, double dt) {
  return m ? dyn_model_rest_threshold_at(m, m->opt.gravity, dt) : 0.0;
}

dyn_err dyn_model_rest_positions(const dyn_model *m, double *r_rest, int nbodies) {
  if (!m || !r_rest || nbodies != m->nb) return DYN_ERR_INPUT;
  for (int i = 0; i < m->nb; i++) {
    const dyn_body_def *b = &m->bodies.p[i];
    dyn_v3 r = b->rest_given ? b->r_rest : b->r;
    r_rest[3 * i] = r.x;
    r_rest[3 * i + 1] = r.y;
    r_rest[3 * i + 2] = r.z;
  }
  return DYN_OK;
}
