/*
 * model_consts.c -- the bodies' compiled constants of a dyn_model
 * (dyn_model_body_consts): mass, inertia and their inverses, the static
 * flag and the body's own shape, as every world on the model reads them.
 * The model keeps them current: each add or set of a body or a shape and
 * each mass from density recompiles the bodies it touched (model.c,
 * model_mass.c), so that a world never writes its model.
 *
 * Body b's constants are dyn_body_compile's (model_check.c) with its shape
 * when it has exactly one, at the identity pose, else NONE; a dynamic body
 * of mass 0 is a massless frame: static constants, shape NONE (a reduced
 * world poses it by its tree; a maximal world refuses it when built).
 */
#include "model_internal.h"

#include <string.h>

/* Body b's constants with `one` its only shape (NULL: none, or several). */
static void compile_body(dyn_model *m, int b, const dyn_shape_def *one) {
  const dyn_body_def *d = &m->bodies.p[b];
  dyn_body_const *c = &m->consts.p[b];
  dyn_body_state initial; /* the world's to compile (world_model.c) */
  dyn_shape none;
  memset(&none, 0, sizeof none);
  if (!d->is_static && d->mass == 0.0) {
    dyn_body_init_static(c, &initial, none, d->r, dyn_quat_normalize(d->q));
    return;
  }
  dyn_shape sh = one && dyn_shape_def_at_identity(one) ? one->geom : none;
  if (dyn_body_compile(d, sh, c, &initial, NULL, 0) != DYN_OK)
    memset(c, 0, sizeof *c); /* not a body a world can be built on: it says why */
}

/* Body b's only shape, or NULL (no shape, or several). */
static const dyn_shape_def *only_shape(const dyn_model *m, int b) {
  if (m->nshape.p[b] != 1) return NULL;
  for (int k = 0; k < m->ns; k++)
    if (m->shapes.p[k].body == b) return &m->shapes.p[k];
  return NULL;
}

void dyn_model_compile_body(dyn_model *m, int b) { compile_body(m, b, only_shape(m, b)); }

void dyn_model_compile_shape_added(dyn_model *m, int k) {
  int b = m->shapes.p[k].body;
  m->nshape.p[b]++;
  compile_body(m, b, m->nshape.p[b] == 1 ? &m->shapes.p[k] : NULL);
}

void dyn_model_compile_all(dyn_model *m) {
  for (int b = 0; b < m->nb; b++) m->nshape.p[b] = 0;
  for (int k = 0; k < m->ns; k++) m->nshape.p[m->shapes.p[k].body]++;
  for (int b = 0; b < m->nb; b++) compile_body(m, b, NULL);
  for (int k = 0; k < m->ns; k++) {
    int b = m->shapes.p[k].body;
    if (m->nshape.p[b] == 1) compile_body(m, b, &m->shapes.p[k]);
  }
}

const dyn_body_const *dyn_model_body_consts(const dyn_model *m) { return m ? m->consts.p : NULL; }
