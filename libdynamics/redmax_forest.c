/*
 * redmax_forest.c -- the forest of a dyn_redmax (docs/redmax.md, "Dynamics
 * and time stepping"): the bodies hanging from one root are a tree, no
 * tree's joint moves another tree's body, so Mr and the step's matrix are
 * block diagonal, one block per tree over its dofs (a list: a tree's dofs
 * need not be contiguous in u).  Within a tree they are held along the
 * dofs' paths to the root (MuJoCo's layout: dof c's row holds (c, a) for
 * the dofs a on its path, c first), factored as L^T D L leaves first and
 * solved by sparse substitution (MuJoCo's mj_factorM and mj_solveM are
 * the model).  Also each body's ancestor dofs, the columns of J that can
 * be nonzero in its rows (redmax.c sums over them).
 */
#include "dyn_internal.h"
#include "redmax_internal.h"

#include <math.h>
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
  rm->adof_off = dyn_rm_calloc((size_t)nb + 1, sizeof(int));
  if (!tree_of_root || !rm->tdof_off || !rm->tdof || !rm->dof_tree || !rm->dof_loc ||
      !rm->adof_off) {
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
  for (int t = 0; t < rm->ntree; t++) rm->tdof_off[t + 1] += rm->tdof_off[t];
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

/* Body i's acol: for each of its ascending ancestor dofs (adof) its place
 * in its path (achain), found by bisection in adof. */
static void body_columns(dyn_redmax *rm, int i) {
  const int off = rm->adof_off[i], n = rm->adof_off[i + 1] - off;
  const int *d = rm->adof + off, *ch = rm->achain + off;
  for (int k = 0; k < n; k++) {
    int lo = 0, hi = n - 1;
    while (lo < hi) {
      int mid = (lo + hi) / 2;
      if (d[mid] < ch[k])
        lo = mid + 1;
      else
        hi = mid;
    }
    rm->acol[off + lo] = k;
  }
}

/* Per dof, in the traversal order (parents first): the next dof up its
 * path, its path's length and its row; per tree, its dofs in that order. */
static void dof_paths(dyn_redmax *rm, int *cur) {
  for (int t = 0; t < rm->ntree; t++) cur[t] = rm->tdof_off[t];
  size_t nM = 0;
  for (int k = 0; k < rm->nb; k++) {
    const int i = rm->order[k], p = rm->parent[i];
    const int has = p >= 0 && rm->adof_off[p + 1] > rm->adof_off[p];
    int up = has ? rm->achain[rm->adof_off[p]] : -1; /* filled: p precedes i */
    for (int c = 0; c < rm->nd[i]; c++) {
      const int d = rm->uoff[i] + c;
      rm->dpar[d] = up;
      rm->dlen[d] = up < 0 ? 1 : rm->dlen[up] + 1;
      rm->dbody[d] = i;
      rm->madr[d] = nM;
      nM += (size_t)rm->dlen[d];
      rm->torder[cur[rm->dof_tree[d]]++] = d;
      up = d;
    }
    /* body i's path: its last dof (or its parent's path's head), up */
    int *ch = rm->achain + rm->adof_off[i], n = 0;
    for (int a = up; a >= 0; a = rm->dpar[a]) ch[n++] = a;
    body_columns(rm, i);
  }
  rm->nM = nM;
}

int dyn_rm_paths_init(dyn_redmax *rm) {
  const size_t nd = (size_t)rm->ndof;
  rm->dpar = dyn_rm_calloc(nd, sizeof(int));
  rm->dlen = dyn_rm_calloc(nd, sizeof(int));
  rm->dbody = dyn_rm_calloc(nd, sizeof(int));
  rm->madr = dyn_rm_calloc(nd, sizeof(size_t));
  rm->torder = dyn_rm_calloc(nd, sizeof(int));
  rm->achain = dyn_rm_calloc((size_t)rm->adof_off[rm->nb], sizeof(int));
  rm->acol = dyn_rm_calloc((size_t)rm->adof_off[rm->nb], sizeof(int));
  int *cur = dyn_rm_calloc((size_t)rm->ntree, sizeof(int));
  if (!cur || !rm->dpar || !rm->dlen || !rm->dbody || !rm->madr || !rm->torder || !rm->achain ||
      !rm->acol) {
    free(cur);
    return -1;
  }
  dof_paths(rm, cur);
  free(cur);
  rm->Ms = dyn_rm_calloc(rm->nM, sizeof(double));
  rm->As = dyn_rm_calloc(rm->nM, sizeof(double));
  rm->LD = dyn_rm_calloc(rm->nM, sizeof(double));
  return rm->Ms && rm->As && rm->LD ? 0 : -1;
}

/* Tree t's dofs, each after its path's, and their number. */
static const int *tree_order(const dyn_redmax *rm, int t, int *n) {
  *n = rm->tdof_off[t + 1] - rm->tdof_off[t];
  return rm->torder + rm->tdof_off[t];
}

/* Dof k eliminated into the dofs on its path (rows of LD): for each i up
 * the path, L(k,i) = A(k,i) / D_k and row i's entries along i's path (the
 * rest of k's row) lose L(k,i) A(k, .). */
static void eliminate(dyn_redmax *rm, int k) {
  double *Lk = rm->LD + rm->madr[k];
  const double dk = Lk[0];
  int q = 1;
  for (int i = rm->dpar[k]; i >= 0; i = rm->dpar[i], q++) {
    const double tmp = Lk[q] / dk;
    double *Li = rm->LD + rm->madr[i];
    const int n = rm->dlen[i];
    for (int j = 0; j < n; j++) Li[j] -= tmp * Lk[q + j];
    Lk[q] = tmp;
  }
}

/* As by L^T D L into LD, tree by tree, leaves first. */
dyn_err dyn_rm_factor_blocks(dyn_redmax *rm, char *msg, size_t msgcap) {
  memcpy(rm->LD, rm->As, rm->nM * sizeof(double));
  for (int t = 0; t < rm->ntree; t++) {
    int n;
    const int *o = tree_order(rm, t, &n);
    for (int kk = n - 1; kk >= 0; kk--) {
      const int k = o[kk];
      const double dk = rm->LD[rm->madr[k]];
      if (!(dk > 0.0) || !isfinite(dk)) {
        dyn_msgf(msg, msgcap,
                 "joint-space inertia not positive definite at u[%d] (body %d's joint): pivot %g",
                 k, rm->dbody[k], dk);
        return DYN_ERR_NUMERIC;
      }
      eliminate(rm, k);
    }
  }
  return DYN_OK;
}

/* Tree t's rows of b (ndof) overwritten by A_t^-1 b_t with the factor:
 * L^T y = b_t leaves first (a zero is skipped: a row's support is closed
 * up its paths), D z = y, then L x = z roots first; rows of b of other
 * trees untouched. */
static void solve_tree(const dyn_redmax *rm, int t, double *b) {
  int n;
  const int *o = tree_order(rm, t, &n);
  for (int kk = n - 1; kk >= 0; kk--) {
    const int k = o[kk];
    const double xk = b[k];
    if (xk == 0.0) continue;
    const double *Lk = rm->LD + rm->madr[k];
    int q = 1;
    for (int i = rm->dpar[k]; i >= 0; i = rm->dpar[i], q++) b[i] -= Lk[q] * xk;
  }
  for (int kk = 0; kk < n; kk++) {
    const int k = o[kk];
    const double *Lk = rm->LD + rm->madr[k];
    double x = b[k] / Lk[0];
    int q = 1;
    for (int i = rm->dpar[k]; i >= 0; i = rm->dpar[i], q++) x -= Lk[q] * b[i];
    b[k] = x;
  }
}

/* b (ndof) overwritten by A^-1 b, tree by tree; a tree's rows where b is 0
 * stay 0. */
void dyn_rm_solve_blocks(const dyn_redmax *rm, double *b) {
  for (int t = 0; t < rm->ntree; t++) {
    int n, k = 0;
    const int *d = tree_order(rm, t, &n);
    while (k < n && b[d[k]] == 0.0) k++;
    if (k < n) solve_tree(rm, t, b);
  }
}

/* A sparse matrix along the paths into the dense out, both triangles. */
void dyn_rm_scatter_blocks(const dyn_redmax *rm, const double *sp, double *out, int ld) {
  for (int c = 0; c < rm->ndof; c++) {
    const double *row = sp + rm->madr[c];
    int q = 0;
    for (int a = c; a >= 0; a = rm->dpar[a], q++)
      out[(size_t)a * ld + c] = out[(size_t)c * ld + a] = row[q];
  }
}

/* The step's matrix: Ms plus the diagonal diag[ndof], into rm->As. */
void dyn_rm_step_blocks(dyn_redmax *rm, const double *diag) {
  memcpy(rm->As, rm->Ms, rm->nM * sizeof(double));
  for (int c = 0; c < rm->ndof; c++) rm->As[rm->madr[c]] += diag[c];
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
