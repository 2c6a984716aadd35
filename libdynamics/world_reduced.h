/*
 * world_reduced.h -- private to libdynamics: the reduced-coordinate
 * representation of a world (world_reduced.c; docs/redmax.md, "Contacts";
 * docs/models.md, "Third-party models: the representation").
 *
 *   redmax_model.c   dyn_rm_tree_of_model: a scene model's tree for a
 *                    world (free roots, welds, frames, limits, motors,
 *                    springs, armature), or a refusal naming the record
 *   world_reduced.c  the world built on it and the stages of its step
 */
#ifndef DYN_WORLD_REDUCED_H
#define DYN_WORLD_REDUCED_H

#include "dyn_redmax.h"
#include "model_internal.h"

/* A model's tree: tree body k < nd is the model's k-th dynamic body
 * (frames, mass 0, included); a free root adds three massless frames
 * (slides along world x, y, z), tree bodies nd, nd + 1, ..., and hangs the
 * body from the last by a ball at its centre of mass: six dofs. */
typedef struct dyn_rm_tree {
  int nt;                /* tree bodies */
  dyn_rm_body_def *defs; /* nt */
  int *tree_of;          /* per model body: its tree body, -1 for a static body */
  int *jbody;            /* per model joint: the tree body it moves (-1: none) */
  int *jsign;            /* per model joint: +1 when the model's coordinate (b
                            relative to a) is the tree's, -1 when opposite */
  int *root;             /* per tree body: 1 for the ball of a free root */
} dyn_rm_tree;

/* The tree of model m for a world in reduced coordinates (refusals,
 * DYN_ERR_INPUT, name the record and end "use maximal coordinates"): a
 * joint kind other than hinge, slider, ball or fixed; soft rows; a spring
 * with a rest position other than the initial pose; a loop; a body other
 * than a free root that does not start at rest.  DYN_ERR_NOMEM. */
dyn_err dyn_rm_tree_of_model(const dyn_model *m, dyn_rm_tree *t, char *msg, size_t cap);
void dyn_rm_tree_free(dyn_rm_tree *t);

#endif /* DYN_WORLD_REDUCED_H */
