/*
 * mjcf_read_approx.c -- what the reader adds for third-party files
 * (mjcf_read.h; docs/models.md, "The mapping"):
 *
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
