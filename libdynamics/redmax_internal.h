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

/* A composite rigid body in a body's frame: its mass, its first moment
 * h = m c (c its centre of mass) and its rotational inertia about the
 * frame's origin (redmax.c's assemble_mass). */
typedef struct dyn_rm_inertia {
  double m;
  dyn_v3 h;
  dyn_m3 I;
} dyn_rm_inertia;

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
  double *J;           /* body i's rows over its path: 6 x na at 6 adof_off[i] (dyn_rm_body_rows) */
  double *Adp;         /* 36 per body: Ad(E_p^i), row-major (roots: unused) */
  dyn_v3 *pe;          /* per body: Ad(E_p^i)'s p, the parent's origin in the body's frame */
  dyn_rm_inertia *crb; /* per body: its composite (assemble_mass) */
  double *acc;         /* dJ/dt u, 6 per body */
  double *phi;         /* J u */
  double *fb;          /* body forces (6 nb) */
  /* the forest: Mr is block diagonal, one block per tree (the bodies
   * hanging from one root); a tree's dofs need not be contiguous in u */
  int ntree;
  int *tdof_off, *tdof;    /* tree t's dofs: tdof[tdof_off[t] .. tdof_off[t + 1]), ascending */
  int *torder;             /* the same dofs, each after the dofs on its path to the root */
  int *dof_tree, *dof_loc; /* per dof: its tree and its place in the tree's list */
  int *adof_off, *adof;    /* body i's dofs and its ancestors': adof[adof_off[i] .. ), ascending */
  int *achain;             /* the same, along the path: the body's last dof, then up to the root */
  int *acol;               /* per adof entry: its place in the body's achain (its column of J) */
  /* the sparse joint space (MuJoCo's layout): dof c's row holds the entries
   * (c, a) for the dofs a on its path to the root, c itself first; within a
   * tree every nonzero of Mr is such an entry, and L^T D L keeps the pattern */
  int *dpar;               /* per dof: the next dof up its path (-1: a root's first) */
  int *dlen;               /* per dof: its path's length, itself included */
  int *dbody;              /* per dof: its joint's body */
  size_t *madr;            /* per dof: its row in Ms, As and LD (dlen entries) */
  size_t nM;               /* entries per sparse matrix: the sum of dlen */
  double *Ms;              /* Mr along the paths */
  double *As;              /* the step's matrix along the paths, unfactored */
  double *LD;              /* its factor: D at each row's head, L's entries after it */
  double *Astep;           /* the step's matrix dense (ndof x ndof), made on request only */
  int kin_fresh;           /* 1: the workspace holds the kinematics of the state */
  double *rhs, *du, *qnew; /* ndof, ndof, nq */
};

/* A zeroed array of n elements of size sz (n = 0 still gives a pointer). */
static inline void *dyn_rm_calloc(size_t n, size_t sz) { return calloc(n > 0 ? n : 1, sz); }

/* Body i's rows of J after the kinematics: 6 x na, column-major, column k
 * the dof achain[adof_off[i] + k], na = adof_off[i + 1] - adof_off[i]
 * (J is 0 in the other columns; docs/redmax.md, "Dynamics and time
 * stepping"). */
static inline const double *dyn_rm_body_rows(const dyn_redmax *rm, int i) {
  return rm->J + 6 * (size_t)rm->adof_off[i];
}

/* The first body of defs[nb] whose joint has dofs but moves no mass: no
 * massive body at or below it and no armature (a massless frame at a
 * chain's end), so that Mr + diag(armature) is singular; -1 for none.
 * The parents are valid and acyclic. */
int dyn_rm_massless_joint(const dyn_rm_body_def *defs, int nb);

/* The forest (struct dyn_redmax): the trees, their dofs and blocks, and
 * each body's ancestor dofs, after the joints' offsets are set.  -1: out of
 * memory (what was allocated is freed by dyn_redmax_free). */
int dyn_rm_forest_init(dyn_redmax *rm);
/* As along the paths by L^T D L (L unit lower in a tree's order, D
 * positive), into rm->LD (MuJoCo's mj_factorM is the model: each dof,
 * leaves first, eliminated into the dofs on its path); DYN_ERR_NUMERIC
 * (message naming the dof and its body) for a pivot <= 0 or not finite. */
dyn_err dyn_rm_factor_blocks(dyn_redmax *rm, char *msg, size_t msgcap);
/* b (ndof) overwritten by A^-1 b, tree by tree (after the factor); a
 * tree's rows where b is 0 stay 0. */
void dyn_rm_solve_blocks(const dyn_redmax *rm, double *b);
/* A sparse matrix along the paths (Ms's layout) into the dense ndof x ndof
 * out (leading dimension ld), both triangles; the entries between trees
 * and between dofs on no common path are not written. */
void dyn_rm_scatter_blocks(const dyn_redmax *rm, const double *sp, double *out, int ld);
/* The step's matrix into rm->As: Ms plus diag[ndof]. */
void dyn_rm_step_blocks(dyn_redmax *rm, const double *diag);
/* The sparse layout (dpar, dlen, dbody, madr, torder, achain, acol) after
 * dyn_rm_forest_init and the traversal order; -1: out of memory. */
int dyn_rm_paths_init(dyn_redmax *rm);

#endif /* DYN_REDMAX_INTERNAL_H */
