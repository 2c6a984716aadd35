/*
 * redmax_internal.h -- private to libdynamics: the state of a dyn_redmax
 * (redmax.c) and the forest's block-diagonal matrices (redmax_forest.c;
 * docs/redmax.md, "Dynamics and time stepping").
 */
#ifndef DYN_REDMAX_INTERNAL_H
#define DYN_REDMAX_INTERNAL_H

#include "dyn_redmax.h"

#include <stddef.h>
#include <stdlib.h>

struct dyn_redmax {
  int nb, nq, ndof;
  int *parent, *kind, *qoff, *uoff, *nd, *order;
  double *mass;
  dyn_m3 *I_b;
  dyn_quat *q_jp;      /* rotation of E_j^p */
  dyn_v3 *p_jp;        /* translation of E_j^p */
  dyn_quat *q_ij;      /* rotation of E_i^j' */
  dyn_v3 *p_ij;        /* translation of E_i^j' */
  dyn_v3 *axis;        /* hinge axis in the joint frame (unit) */
  double *JS;          /* 18 per body: Ad(E_j'^i) S, 6 x nd column-major */
  double *kdof, *ddof; /* spring and damper per dof */
  double *arm;         /* armature per dof (added to Mr's diagonal) */
  double *effort;      /* a constant generalized force per dof (actuators) */
  dyn_rm_crank *crank; /* slider-crank actuators (dyn_redmax_cranks_init) */
  int ncrank;
  /* state */
  double *q, *u;
  /* workspace, filled by kinematics */
  dyn_v3 *r;
  dyn_quat *qw;
  double *J, *Jd; /* 6 nb x ndof column-major */
  double *phi;    /* J u */
  double *fb;     /* body forces (6 nb) */
  /* the forest: Mr is block diagonal, one block per tree (the bodies
   * hanging from one root); a tree's dofs need not be contiguous in u */
  int ntree;
  int *tdof_off, *tdof;    /* tree t's dofs: tdof[tdof_off[t] .. tdof_off[t + 1]), ascending */
  int *dof_tree, *dof_loc; /* per dof: its tree and its place in the tree's list */
  size_t *blk_off;         /* tree t's n_t x n_t block at Mr + blk_off[t] (column-major) */
  int *adof_off, *adof;    /* body i's dofs and its ancestors': adof[adof_off[i] .. ), ascending */
  double *Mr, *A;          /* the blocks of Mr, and of the step's matrix (factored) */
  double *Astep;           /* the last step's matrix, unfactored (ndof x ndof) */
  int kin_fresh;           /* 1: the workspace holds the kinematics of the state */
  double *rhs, *du, *qnew; /* ndof, ndof, nq */
};

/* A zeroed array of n elements of size sz (n = 0 still gives a pointer). */
static inline void *dyn_rm_calloc(size_t n, size_t sz) { return calloc(n > 0 ? n : 1, sz); }

/* The forest (struct dyn_redmax): the trees, their dofs and blocks, and
 * each body's ancestor dofs, after the joints' offsets are set.  -1: out of
 * memory (what was allocated is freed by dyn_redmax_free). */
int dyn_rm_forest_init(dyn_redmax *rm);
/* Each tree's block of rm->A (lower) by its Cholesky factor, in place;
 * DYN_ERR_NUMERIC (message) when one is not positive definite. */
dyn_err dyn_rm_factor_blocks(dyn_redmax *rm, char *msg, size_t msgcap);
/* b (ndof) overwritten by A^-1 b, tree by tree (after the factors); a
 * tree's rows where b is 0 stay 0. */
void dyn_rm_solve_blocks(const dyn_redmax *rm, double *b);
/* The trees' blocks (rm->Mr's layout) into the dense ndof x ndof out
 * (leading dimension ld); the entries between trees are not written. */
void dyn_rm_scatter_blocks(const dyn_redmax *rm, const double *blocks, double *out, int ld);
/* The step's matrix into rm->A: the blocks of Mr plus diag[ndof]. */
void dyn_rm_step_blocks(dyn_redmax *rm, const double *diag);

#endif /* DYN_REDMAX_INTERNAL_H */
