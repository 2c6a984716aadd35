/*
 * redmax_forest.c -- the forest of a dyn_redmax (docs/redmax.md, "Dynamics
 * and time stepping"): the bodies hanging from one root are a tree, no
 * tree's joint moves another tree's body, so Mr and the step's matrix are
 * block diagonal, one n_t x n_t block per tree over its dofs (a list: a
 * tree's dofs need not be contiguous in u).  Each block is factored by
 * LAPACKE dpotrf and solved by forward and back substitution on the tree's
 * rows.  Also each body's ancestor dofs, the columns of J that can be
 * nonzero in its rows (redmax.c sums over them).
 */
#include "dyn_internal.h"
#include "redmax_internal.h"

#include <lapacke.h>
#include <stdlib.h>
#include <string.h>

/* The root of body i's tree. */
static int root_of(const dyn_redmax *rm, int i) {
  while (rm->parent[i] >= 0) i = rm->parent[i];
  return i;
}

/* The forest (struct dyn_redmax): the trees, their dofs and blocks, and
 * each body's ancestor dofs.  -1: out of memory. */
int dyn_rm_forest_init(dyn_redmax *rm) {
  const int nb = rm->nb, ndof = rm->ndof;
  int *tree_of_root = dyn_rm_calloc((size_t)nb, sizeof(int));
  rm->tdof_off = dyn_rm_calloc((size_t)nb + 1, sizeof(int));
  rm->tdof = dyn_rm_calloc((size_t)ndof, sizeof(int));
  rm->dof_tree = dyn_rm_calloc((size_t)ndof, sizeof(int));
  rm->dof_loc = dyn_rm_calloc((size_t)ndof, sizeof(int));
  rm->blk_off = dyn_rm_calloc((size_t)nb + 1, sizeof(size_t));
  rm->adof_off = dyn_rm_calloc((size_t)nb + 1, sizeof(int));
  if (!tree_of_root || !rm->tdof_off || !rm->tdof || !rm->dof_tree || !rm->dof_loc ||
      !rm->blk_off || !rm->adof_off) {
    free(tree_of_root);
    return -1;
  }
  /* trees numbered by their roots' order; a dof's tree is its body's */
  rm->ntree = 0;
  for (int i = 0; i < nb; i++) tree_of_root[i] = rm->parent[i] < 0 ? rm->ntree++ : -1;
  for (int i = 0; i < nb; i++)
    for (int c = 0; c < rm->nd[i]; c++)
      rm->dof_tree[rm->uoff[i] + c] = tree_of_root[root_of(rm, i)];
  free(tree_of_root);
  for (int c = 0; c < ndof; c++) rm->tdof_off[rm->dof_tree[c] + 1]++;
  for (int t = 0; t < rm->ntree; t++) {
    int n = rm->tdof_off[t + 1];
    rm->tdof_off[t + 1] += rm->tdof_off[t];
    rm->blk_off[t + 1] = rm->blk_off[t] + (size_t)n * (size_t)n;
  }
  for (int c = 0, *fill = rm->adof_off; c < ndof; c++) { /* adof_off as a cursor, reset below */
    int t = rm->dof_tree[c];
    rm->dof_loc[c] = fill[t];
    rm->tdof[rm->tdof_off[t] + fill[t]++] = c;
  }
  /* each body's path to its root: the dofs of its joints, ascending */
  memset(rm->adof_off, 0, ((size_t)nb + 1) * sizeof(int));
  for (int i = 0; i < nb; i++) {
    int n = 0;
    for (int a = i; a >= 0; a = rm->parent[a]) n += rm->nd[a];
    rm->adof_off[i + 1] = rm->adof_off[i] + n;
  }
  rm->adof = dyn_rm_calloc((size_t)rm->adof_off[nb], sizeof(int));
  if (!rm->adof) return -1;
  for (int i = 0; i < nb; i++) {
    int *d = rm->adof + rm->adof_off[i], n = 0;
    for (int a = i; a >= 0; a = rm->parent[a])
      for (int c = 0; c < rm->nd[a]; c++) {
        int v = rm->uoff[a] + c, k = n++; /* insertion, ascending */
        for (; k > 0 && d[k - 1] > v; k--) d[k] = d[k - 1];
        d[k] = v;
      }
  }
  return 0;
}

/* Tree t's dofs and the size of its block. */
static const int *tree_dofs(const dyn_redmax *rm, int t, int *n) {
  *n = rm->tdof_off[t + 1] - rm->tdof_off[t];
  return rm->tdof + rm->tdof_off[t];
}

/* Each tree's block of rm->A (lower) by its Cholesky factor, in place. */
dyn_err dyn_rm_factor_blocks(dyn_redmax *rm, char *msg, size_t msgcap) {
  for (int t = 0; t < rm->ntree; t++) {
    int n;
    const int *d = tree_dofs(rm, t, &n);
    if (n == 0) continue;
    lapack_int info = LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', n, rm->A + rm->blk_off[t], n);
    if (info != 0) {
      dyn_msgf(msg, msgcap,
               "reduced mass matrix not positive definite (u[%d], dpotrf info = %d in its tree)",
               info > 0 && info <= n ? d[info - 1] : -1, (int)info);
      return DYN_ERR_NUMERIC;
    }
  }
  return DYN_OK;
}

/* Tree t's rows of b (ndof) overwritten by A_t^-1 b_t with its factored
 * block (L y = b_t, then L^T x = y); rows of b of other trees untouched. */
static void solve_tree(const dyn_redmax *rm, int t, double *b) {
  int n;
  const int *d = tree_dofs(rm, t, &n);
  const double *L = rm->A + rm->blk_off[t];
  for (int k = 0; k < n; k++) {
    const double y = b[d[k]] / L[(size_t)k * n + k];
    b[d[k]] = y;
    for (int i = k + 1; i < n; i++) b[d[i]] -= L[(size_t)k * n + i] * y;
  }
  for (int k = n - 1; k >= 0; k--) {
    double x = b[d[k]];
    for (int i = k + 1; i < n; i++) x -= L[(size_t)k * n + i] * b[d[i]];
    b[d[k]] = x / L[(size_t)k * n + k];
  }
}

/* b (ndof) overwritten by A^-1 b, tree by tree; a tree's rows where b is 0
 * stay 0. */
void dyn_rm_solve_blocks(const dyn_redmax *rm, double *b) {
  for (int t = 0; t < rm->ntree; t++) {
    int n, k = 0;
    const int *d = tree_dofs(rm, t, &n);
    while (k < n && b[d[k]] == 0.0) k++;
    if (k < n) solve_tree(rm, t, b);
  }
}

/* The trees' blocks (rm->Mr's layout) into the dense ndof x ndof out
 * (leading dimension ld); the entries between trees are not written. */
void dyn_rm_scatter_blocks(const dyn_redmax *rm, const double *blocks, double *out, int ld) {
  for (int t = 0; t < rm->ntree; t++) {
    int n;
    const int *d = tree_dofs(rm, t, &n);
    const double *B = blocks + rm->blk_off[t];
    for (int c = 0; c < n; c++)
      for (int a = 0; a < n; a++) out[(size_t)d[c] * ld + d[a]] = B[(size_t)c * n + a];
  }
}

/* The step's matrix: the blocks of Mr plus the diagonal diag[ndof], into
 * rm->A. */
void dyn_rm_step_blocks(dyn_redmax *rm, const double *diag) {
  memcpy(rm->A, rm->Mr, rm->blk_off[rm->ntree] * sizeof(double));
  for (int c = 0; c < rm->ndof; c++) {
    const int t = rm->dof_tree[c], n = rm->tdof_off[t + 1] - rm->tdof_off[t], l = rm->dof_loc[c];
    rm->A[rm->blk_off[t] + (size_t)l * n + l] += diag[c];
  }
}

dyn_err dyn_redmax_solve_tree(const dyn_redmax *rm, int t, double *b) {
  if (t < 0 || t >= rm->ntree) return DYN_ERR_INPUT;
  solve_tree(rm, t, b);
  return DYN_OK;
}

int dyn_redmax_tree_count(const dyn_redmax *rm) { return rm->ntree; }

int dyn_redmax_tree_dofs(const dyn_redmax *rm, int t, const int **dofs) {
  int n = 0;
  *dofs = t >= 0 && t < rm->ntree ? tree_dofs(rm, t, &n) : NULL;
  return n;
}

int dyn_redmax_body_tree(const dyn_redmax *rm, int i) {
  if (i < 0 || i >= rm->nb || rm->adof_off[i + 1] == rm->adof_off[i]) return -1;
  return rm->dof_tree[rm->adof[rm->adof_off[i]]];
}

int dyn_redmax_body_dofs(const dyn_redmax *rm, int i, const int **dofs) {
  if (i < 0 || i >= rm->nb) {
    *dofs = NULL;
    return 0;
  }
  *dofs = rm->adof + rm->adof_off[i];
  return rm->adof_off[i + 1] - rm->adof_off[i];
}
