/*
 * mjcf_read_approx.c -- what the reader adds for third-party files
 * (mjcf_read.h; docs/models.md, "The mapping"):
 *
 *   hulls       cylinders and ellipsoids (only with approximate) as the
 *               convex hull of points on their surface: a cylinder by two
 *               rings of HULL_RING points, an ellipsoid by HULL_LAT rings of
 *               HULL_RING points and its two poles.  The hull is inscribed
 *               (it lies inside the true surface, within r (1 - cos(pi /
 *               HULL_RING)) of it, 0.85% of r); the body's mass and inertia
 *               stay MuJoCo's, computed from the true shape.
 *   exclusions  MuJoCo's own rule (filterparent, on by default): geoms of
 *               bodies welded together never touch, nor those of a body
 *               and its parent (weld bodies: a body welded to its parent is
 *               one body with it), unless the parent is the world.  lcplab
 *               keeps jointed bodies apart itself; a body whose parent is
 *               several joints away (a joint chain) or welded on needs the
 *               pair excluded.  Files lcplab wrote carry their exclusions.
 */
#include "mjcf_read.h"

#include <math.h>
#include <stdlib.h>

#define HULL_RING 24
#define HULL_LAT  11
#define HULL_PI   3.14159265358979323846

mdl_err mdl_hull_of_geom(mdl_map *p, int g, dyn_shape_def *x, dyn_v3 **verts) {
  const mjModel *mj = p->mj;
  const mjtNum *sz = mj->geom_size + 3 * g;
  int cyl = mj->geom_type[g] == mjGEOM_CYLINDER;
  int n = cyl ? 2 * HULL_RING : HULL_LAT * HULL_RING + 2;
  *verts = malloc((size_t)n * sizeof **verts);
  if (!*verts) return mdl_nomem(p);
  int k = 0;
  if (cyl) {
    for (int s = -1; s <= 1; s += 2)
      for (int i = 0; i < HULL_RING; i++) {
        double a = 2.0 * HULL_PI * i / HULL_RING;
        (*verts)[k++] = dyn_v3_make(sz[0] * cos(a), sz[0] * sin(a), s * sz[1]);
      }
  } else {
    (*verts)[k++] = dyn_v3_make(0.0, 0.0, sz[2]);
    (*verts)[k++] = dyn_v3_make(0.0, 0.0, -sz[2]);
    for (int l = 1; l <= HULL_LAT; l++) {
      double t = HULL_PI * l / (HULL_LAT + 1); /* polar angle */
      for (int i = 0; i < HULL_RING; i++) {
        double a = 2.0 * HULL_PI * i / HULL_RING;
        (*verts)[k++] =
            dyn_v3_make(sz[0] * sin(t) * cos(a), sz[1] * sin(t) * sin(a), sz[2] * cos(t));
      }
    }
  }
  x->geom.kind = DYN_SHAPE_HULL;
  x->geom.verts = *verts;
  x->geom.nverts = k;
  return MDL_OK;
}

/* MuJoCo's weld body of b's parent's weld body (0: the world). */
static int weld_parent(const mjModel *mj, int b) {
  return mj->body_weldid[mj->body_parentid[mj->body_weldid[b]]];
}

static int excluded_by_mujoco(const mjModel *mj, int b1, int b2) {
  int w1 = mj->body_weldid[b1], w2 = mj->body_weldid[b2];
  if (w1 == 0 || w2 == 0) return w1 == w2;
  return w1 == w2 || w1 == weld_parent(mj, b2) || w2 == weld_parent(mj, b1);
}

mdl_err mdl_map_parent_exclusions(mdl_map *p) {
  const mjModel *mj = p->mj;
  int n = 0;
  for (int b1 = 1; b1 < mj->nbody; b1++)
    for (int b2 = b1 + 1; b2 < mj->nbody; b2++)
      n += mj->body_geomnum[b1] > 0 && mj->body_geomnum[b2] > 0 && excluded_by_mujoco(mj, b1, b2);
  int *ex = realloc(p->ex, 2 * ((size_t)p->nex + (size_t)n + 1) * sizeof *ex);
  if (!ex) return mdl_nomem(p);
  p->ex = ex;
  for (int b1 = 1; b1 < mj->nbody; b1++)
    for (int b2 = b1 + 1; b2 < mj->nbody; b2++) {
      if (!(mj->body_geomnum[b1] > 0 && mj->body_geomnum[b2] > 0 && excluded_by_mujoco(mj, b1, b2)))
        continue;
      int l1 = p->lc_body[b1], l2 = p->lc_body[b2];
      if (l1 < 0 || l2 < 0 || l1 == l2) continue;
      if (p->body[l1].is_static && p->body[l2].is_static) continue;
      p->ex[2 * p->nex] = l1 < l2 ? l1 : l2;
      p->ex[2 * p->nex + 1] = l1 < l2 ? l2 : l1;
      p->nex++;
    }
  return MDL_OK;
}
