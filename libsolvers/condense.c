/* condense.c -- the local problem of a global frictional-contact problem
 * (slv_condense, slv.h; docs/problem.md, "Global problems"):
 *
 *     W = H' M^-1 H,   q = w + H' M^-1 f.
 *
 * M is split into its diagonal blocks: the connected parts of its pattern
 * (a non-zero M(i,j), i != j, links dofs i and j), in practice one per body
 * or per mesh, one per dof when M is diagonal.  Per block k with dofs R_k
 * and the columns C_k of H that its rows touch:
 *
 *     M_k = M(R_k, R_k) factored: a single dof by l = sqrt(M(i,i)) (the
 *           arithmetic of dpotrf and dpotrs on a 1 x 1 matrix: x = b / l / l),
 *           larger blocks through linsys.h (dense LAPACK up to
 *           SLV_LS_DENSE_MAX dofs, CHOLMOD above),
 *     [X_k g_k] = M_k^-1 [H(R_k, C_k) f(R_k)]   (one multi-column solve),
 *     W(C_k, C_k) += H(R_k, C_k)' X_k   (its symmetric part),
 *     q(C_k)      += H(R_k, C_k)' g_k.
 *
 * W is gathered from these |C_k|^2 contributions as triplets and then
 * compressed to CSR by two counting sorts (by column, then stably by row:
 * rows sorted, duplicates added in the order they came), so the memory is
 * sum_k |C_k|^2 entries, never n^2 (a contact touches two bodies: W has
 * the block sparsity of the contact graph).  Each contribution is made
 * symmetric ((S + S') / 2) before it is added, so W is exactly symmetric.
 * The small products H_k' X_k are plain loops: a BLAS call costs more
 * than they do (docs/problem.md, "Global problems").
 *
 * Symmetry of M is checked on the merged entries (duplicates added) of M
 * against those of M': |M(i,j) - M(j,i)| <= 1e-10 max|M| over the block,
 * far above rounding and below any modelling asymmetry (the FCLIB reader,
 * libio/io_fclib_read.c, used the same bound).  Both are made by counting-sort transposes (M' of M,
 * then M of M': rows sorted without a comparison sort), and the merged M
 * is what the blocks are taken from.  An M stored as one triangle must be
 * mirrored by the caller (the readers do, docs/io.md).
 *
 * All memory is counted before it is allocated (info->bytes) and refused
 * above max_bytes.
 *
 * slv_global_velocities (slv.h) factors the same blocks the same way to
 * give v = M^-1 (H r + f) and u = H' v + w from an answer r.
 */
#include "linsys.h"
#include "slv.h"

#include <cblas.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CND_ASYM_TOL 1e-10
/* products H_k' X_k of up to this many multiply-adds by a loop */
#define CND_LOOP_MAX 4096

/* A CSR matrix (rows: p[rows + 1]). */
typedef struct cnd_csr {
  int *p, *j;
  double *x;
} cnd_csr;

typedef struct cnd {
  int ndof, n, ncomp, kmax, njmax;
  int *comp, *cptr, *dofs, *loc; /* the blocks: dof -> block, block -> dofs */
  int *nj;                       /* columns of H touched per block */
  int *colmark, *cols;           /* scratch: column -> position in the block's list */
  double *amax;                  /* largest |M| entry per block */
  cnd_csr S;                     /* M merged: rows sorted, duplicates added */
  long ntrip;
  int *ti, *tj; /* W's contributions */
  double *tv;
  double *Hk, *Xk, *Sk; /* one block's [H f], M^-1 [H f], H' M^-1 H */
  int *bp, *bj;         /* one block's M as local CSR */
  double *bx;
} cnd;

/* One diagonal block of M factored: a single dof by l = sqrt(M(i,i)), a
 * larger block by ls. */
typedef struct cnd_factor {
  double l;
  slv_linsys *ls;
} cnd_factor;

static void csr_free(cnd_csr *a) {
  free(a->p);
  free(a->j);
  free(a->x);
  a->p = a->j = NULL;
  a->x = NULL;
}

static void cnd_free(cnd *c) {
  free(c->comp);
  free(c->cptr);
  free(c->dofs);
  free(c->loc);
  free(c->nj);
  free(c->colmark);
  free(c->cols);
  free(c->amax);
  csr_free(&c->S);
  free(c->ti);
  free(c->tj);
  free(c->tv);
  free(c->Hk);
  free(c->Xk);
  free(c->Sk);
  free(c->bp);
  free(c->bj);
  free(c->bx);
}

static int uf_find(int *parent, int a) {
  while (parent[a] != a) {
    parent[a] = parent[parent[a]];
    a = parent[a];
  }
  return a;
}

/* ---- the blocks of M ------------------------------------------------------------- */

static slv_status blocks_alloc(cnd *c, const int *Mp, const int *Mj, const double *Mx) {
  int nd = c->ndof;
  size_t m = (size_t)nd + 1;
  c->comp = malloc(m * sizeof(int));
  c->cptr = calloc(m + 1, sizeof(int));
  c->dofs = malloc(m * sizeof(int));
  c->loc = malloc(m * sizeof(int));
  int *parent = malloc(m * sizeof(int));
  if (!c->comp || !c->cptr || !c->dofs || !c->loc || !parent) {
    free(parent);
    return SLV_ERR_NOMEM;
  }
  for (int i = 0; i < nd; i++) parent[i] = i;
  for (int i = 0; i < nd; i++)
    for (int k = Mp[i]; k < Mp[i + 1]; k++)
      if (Mj[k] != i && Mx[k] != 0.0) {
        int a = uf_find(parent, i), b = uf_find(parent, Mj[k]);
        if (a != b) parent[a < b ? b : a] = a < b ? a : b;
      }
  c->ncomp = 0;
  for (int i = 0; i < nd; i++) { /* roots are the smallest dof, seen first */
    int r = uf_find(parent, i);
    c->comp[i] = r == i ? c->ncomp++ : c->comp[r];
    c->cptr[c->comp[i] + 1]++;
  }
  c->kmax = 0;
  for (int k = 0; k < c->ncomp; k++) {
    if (c->cptr[k + 1] > c->kmax) c->kmax = c->cptr[k + 1];
    c->cptr[k + 1] += c->cptr[k];
  }
  for (int k = 0; k < c->ncomp; k++) parent[k] = c->cptr[k];
  for (int i = 0; i < nd; i++) {
    c->loc[i] = parent[c->comp[i]] - c->cptr[c->comp[i]];
    c->dofs[parent[c->comp[i]]++] = i;
  }
  free(parent);
  return SLV_OK;
}

/* The columns of H touched by block k's rows into c->cols; their count. */
static int block_columns(cnd *c, int k, const int *Hp, const int *Hj) {
  int nj = 0;
  for (int a = c->cptr[k]; a < c->cptr[k + 1]; a++)
    for (int e = Hp[c->dofs[a]]; e < Hp[c->dofs[a] + 1]; e++)
      if (c->colmark[Hj[e]] < 0) {
        c->colmark[Hj[e]] = nj;
        c->cols[nj++] = Hj[e];
      }
  return nj;
}

/* nj per block, the total of W's contributions, and the bytes of the
 * condensation (before its big arrays are allocated). */
static slv_status count_alloc(cnd *c, const int *Hp, const int *Hj, long nnzM, double *bytes) {
  c->nj = malloc(((size_t)c->ncomp + 1) * sizeof(int));
  c->colmark = malloc(((size_t)c->n + 1) * sizeof(int));
  c->cols = malloc(((size_t)c->n + 1) * sizeof(int));
  c->amax = calloc((size_t)c->ncomp + 1, sizeof(double));
  if (!c->nj || !c->colmark || !c->cols || !c->amax) return SLV_ERR_NOMEM;
  for (int j = 0; j < c->n; j++) c->colmark[j] = -1;
  double t = 0;
  c->njmax = 0;
  for (int k = 0; k < c->ncomp; k++) {
    int nj = block_columns(c, k, Hp, Hj);
    for (int a = 0; a < nj; a++) c->colmark[c->cols[a]] = -1;
    c->nj[k] = nj;
    if (nj > c->njmax) c->njmax = nj;
    t += (double)nj * nj;
  }
  double km = c->kmax, jm = c->njmax, nd = c->ndof;
  /* triplets, their sort (a permutation, then W's entries), the row and
   * column counts, the merged M and M' of the symmetry check, one block's
   * dense arrays, its CSR and its factor */
  *bytes = 16.0 * t + 16.0 * t + 8.0 * (c->n + 2.0) + 2.0 * (12.0 * (double)nnzM + 4.0 * nd) +
           8.0 * (2.0 * km * (jm + 1) + jm * jm) + 12.0 * (double)nnzM + 8.0 * km * km;
  c->ntrip = 0;
  return t > (double)LONG_MAX / 32 ? SLV_ERR_DIM : SLV_OK;
}

static slv_status work_alloc(cnd *c, double ntrip) {
  size_t t = (size_t)ntrip + 1, km = (size_t)c->kmax + 1, jm = (size_t)c->njmax + 1;
  c->ti = malloc(t * sizeof(int));
  c->tj = malloc(t * sizeof(int));
  c->tv = malloc(t * sizeof(double));
  c->Hk = malloc(km * (jm + 1) * sizeof(double));
  c->Xk = malloc(km * (jm + 1) * sizeof(double));
  c->Sk = malloc(jm * jm * sizeof(double));
  c->bp = malloc((km + 1) * sizeof(int));
  return c->ti && c->tj && c->tv && c->Hk && c->Xk && c->Sk && c->bp ? SLV_OK : SLV_ERR_NOMEM;
}

/* ---- sorting by counting --------------------------------------------------------- */

/* The transpose (nc x nr) of an nr x nc CSR into *T by a counting sort:
 * row j of T holds the entries of column j in the order of the rows
 * (sorted by column when read as T's columns), the entries of one (i, j)
 * in their order in A. */
static slv_status csr_transpose_alloc(int nr, int nc, const int *p, const int *jj, const double *x,
                                      cnd_csr *T) {
  int nnz = p[nr];
  T->p = calloc((size_t)nc + 2, sizeof(int));
  T->j = malloc(((size_t)nnz + 1) * sizeof(int));
  T->x = malloc(((size_t)nnz + 1) * sizeof(double));
  if (!T->p || !T->j || !T->x) return SLV_ERR_NOMEM;
  int *q = T->p;
  for (int k = 0; k < nnz; k++) q[jj[k] + 2]++;
  for (int j = 0; j < nc; j++) q[j + 2] += q[j + 1];
  for (int i = 0; i < nr; i++) /* q[j + 1]: the next free place of row j */
    for (int k = p[i]; k < p[i + 1]; k++) {
      int e = q[jj[k] + 1]++;
      T->j[e] = i;
      T->x[e] = x[k];
    }
  return SLV_OK;
}

/* Adjacent entries of a row with the same column added, in place. */
static void csr_merge(int nr, cnd_csr *A) {
  int out = 0;
  for (int i = 0; i < nr; i++) {
    int start = out, end = A->p[i + 1];
    for (int k = A->p[i]; k < end; k++) {
      if (out > start && A->j[out - 1] == A->j[k])
        A->x[out - 1] += A->x[k];
      else {
        A->j[out] = A->j[k];
        A->x[out++] = A->x[k];
      }
    }
    A->p[i] = start;
  }
  A->p[nr] = out;
}

/* ---- symmetry -------------------------------------------------------------------- */

/* Row i of S against row i of T (both merged): the first pair that differs
 * by more than the block's tolerance, into info. */
static int row_asymmetric(const cnd *c, int i, const cnd_csr *S, const cnd_csr *T,
                          slv_condense_info *info) {
  double tol = CND_ASYM_TOL * c->amax[c->comp[i]];
  int a = S->p[i], ae = S->p[i + 1], b = T->p[i], be = T->p[i + 1];
  while (a < ae || b < be) {
    int js = a < ae ? S->j[a] : INT_MAX, jt = b < be ? T->j[b] : INT_MAX, j = js < jt ? js : jt;
    double vs = js == j ? S->x[a++] : 0.0, vt = jt == j ? T->x[b++] : 0.0;
    if (fabs(vs - vt) > tol) {
      info->asym_i = i;
      info->asym_j = j;
      info->asym_ij = vs;
      info->asym_ji = vt;
      return 1;
    }
  }
  return 0;
}

/* M merged into c->S (kept: the blocks are taken from it) and checked
 * against M' merged. */
static slv_status check_symmetric(cnd *c, const int *Mp, const int *Mj, const double *Mx,
                                  slv_condense_info *info) {
  int nd = c->ndof;
  cnd_csr T = { NULL, NULL, NULL };
  slv_status st = csr_transpose_alloc(nd, nd, Mp, Mj, Mx, &T);
  if (!st) st = csr_transpose_alloc(nd, nd, T.p, T.j, T.x, &c->S);
  if (!st) {
    csr_merge(nd, &T);
    csr_merge(nd, &c->S);
  }
  for (int i = 0; !st && i < nd; i++)
    for (int k = c->S.p[i]; k < c->S.p[i + 1]; k++)
      c->amax[c->comp[i]] = fmax(c->amax[c->comp[i]], fabs(c->S.x[k]));
  for (int i = 0; !st && i < nd; i++)
    if (row_asymmetric(c, i, &c->S, &T, info)) st = SLV_ERR_UNSUPPORTED;
  csr_free(&T);
  return st;
}

/* ---- one block ------------------------------------------------------------------- */

static slv_status ls_status(slv_ls_status st) {
  switch (st) {
  case SLV_LS_OK: return SLV_OK;
  case SLV_LS_NOT_SPD: return SLV_ERR_UNSUPPORTED;
  case SLV_LS_NOMEM: return SLV_ERR_NOMEM;
  default: return SLV_ERR_INVALID;
  }
}

/* Block k of M as a local CSR in c->bp, bj, bx (entries linking to other
 * blocks are explicit zeros and left out). */
static slv_status block_csr_alloc(cnd *c, int k, const cnd_csr *M) {
  int nk = c->cptr[k + 1] - c->cptr[k], nnz = 0;
  for (int a = 0; a < nk; a++) {
    int i = c->dofs[c->cptr[k] + a];
    nnz += M->p[i + 1] - M->p[i];
  }
  free(c->bj);
  free(c->bx);
  c->bj = malloc(((size_t)nnz + 1) * sizeof(int));
  c->bx = malloc(((size_t)nnz + 1) * sizeof(double));
  if (!c->bj || !c->bx) return SLV_ERR_NOMEM;
  int q = 0;
  c->bp[0] = 0;
  for (int a = 0; a < nk; a++) {
    int i = c->dofs[c->cptr[k] + a];
    for (int e = M->p[i]; e < M->p[i + 1]; e++)
      if (c->comp[M->j[e]] == k) {
        c->bj[q] = c->loc[M->j[e]];
        c->bx[q++] = M->x[e];
      }
    c->bp[a + 1] = q;
  }
  return SLV_OK;
}

/* A single dof i: the Cholesky factor l = sqrt(M(i,i)) of its pivot
 * (duplicates added), which must be > 0 (dpotrf's test). */
static slv_status pivot_factor(const cnd_csr *M, int i, cnd_factor *fa, slv_condense_info *info) {
  double m = 0;
  for (int e = M->p[i]; e < M->p[i + 1]; e++) m += M->j[e] == i ? M->x[e] : 0.0;
  fa->l = sqrt(m);
  if (m > 0) return SLV_OK;
  info->bad_dof = i;
  return SLV_ERR_UNSUPPORTED;
}

/* Block k of M factored into *fa (a single dof by its pivot; else dense
 * LAPACK up to SLV_LS_DENSE_MAX dofs, CHOLMOD above); not positive
 * definite: info->bad_dof. */
static slv_status block_factor(cnd *c, int k, const cnd_csr *M, cnd_factor *fa,
                               slv_condense_info *info) {
  int nk = c->cptr[k + 1] - c->cptr[k];
  fa->ls = NULL;
  if (nk == 1) return pivot_factor(M, c->dofs[c->cptr[k]], fa, info);
  slv_status st = block_csr_alloc(c, k, M);
  if (st) return st;
  slv_ls_backend be = nk <= SLV_LS_DENSE_MAX ? SLV_LS_DENSE : SLV_LS_CHOLMOD;
  info->sparse_blocks += be == SLV_LS_CHOLMOD;
  slv_ls_status ls_st;
  fa->ls = slv_linsys_analyse(SLV_LS_SPD, be, nk, c->bp, c->bj, &ls_st);
  if (fa->ls) ls_st = slv_linsys_factor(fa->ls, c->bx);
  if (ls_st == SLV_LS_NOT_SPD) {
    int col = slv_linsys_failed_column(fa->ls);
    info->bad_dof = c->dofs[c->cptr[k] + (col >= 0 && col < nk ? col : 0)];
  }
  return ls_status(ls_st);
}

/* X <- M_k^-1 X for nrhs columns of nk rows (leading dimension nk). */
static slv_status block_solve(const cnd_factor *fa, int nk, int nrhs, double *X) {
  if (fa->ls) return ls_status(slv_linsys_solve_many(fa->ls, nrhs, X, nk));
  for (int b = 0; b < nrhs; b++) X[b] = X[b] / fa->l / fa->l; /* nk = 1: dpotrs' two steps */
  return SLV_OK;
}

/* [H(R_k, C_k) f(R_k)] dense (nk x (nj + 1), column-major) in c->Hk. */
static void block_rhs(cnd *c, int k, int nj, const int *Hp, const int *Hj, const double *Hx,
                      const double *f) {
  int nk = c->cptr[k + 1] - c->cptr[k];
  memset(c->Hk, 0, (size_t)nk * nj * sizeof(double));
  for (int a = 0; a < nk; a++) {
    int i = c->dofs[c->cptr[k] + a];
    c->Hk[a + (size_t)nk * nj] = f[i];
    for (int e = Hp[i]; e < Hp[i + 1]; e++) c->Hk[a + (size_t)nk * c->colmark[Hj[e]]] += Hx[e];
  }
}

/* Sk = Hk' Xk (nj x nj): BLAS for the large products, a loop for the small
 * ones. */
static void block_product(cnd *c, int nk, int nj) {
  if ((double)nk * nj * nj > CND_LOOP_MAX) {
    cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, nj, nj, nk, 1.0, c->Hk, nk, c->Xk, nk, 0.0,
                c->Sk, nj);
    return;
  }
  for (int b = 0; b < nj; b++)
    for (int a = 0; a < nj; a++) {
      const double *h = c->Hk + (size_t)nk * a, *x = c->Xk + (size_t)nk * b;
      double s = 0;
      for (int i = 0; i < nk; i++) s += h[i] * x[i];
      c->Sk[a + (size_t)nj * b] = s;
    }
}

/* W's contributions of block k (symmetric part of H_k' X_k) and q's
 * (H_k' g_k, g_k the last column of Xk). */
static void block_emit(cnd *c, int nk, int nj, double *q) {
  if (nk > 0 && nj > 0) block_product(c, nk, nj);
  const double *g = c->Xk + (size_t)nk * nj;
  for (int b = 0; b < nj; b++) {
    for (int a = 0; a < nj; a++) {
      double s = 0.5 * (c->Sk[a + (size_t)nj * b] + c->Sk[b + (size_t)nj * a]);
      c->ti[c->ntrip] = c->cols[a];
      c->tj[c->ntrip] = c->cols[b];
      c->tv[c->ntrip++] = s;
    }
    const double *h = c->Hk + (size_t)nk * b;
    double s = 0;
    for (int i = 0; i < nk; i++) s += h[i] * g[i];
    q[c->cols[b]] += s;
  }
}

static slv_status condense_block(cnd *c, int k, const int *Hp, const int *Hj, const double *Hx,
                                 const double *f, double *q, slv_condense_info *info) {
  int nk = c->cptr[k + 1] - c->cptr[k];
  cnd_factor fa;
  slv_status st = block_factor(c, k, &c->S, &fa, info);
  int nj = block_columns(c, k, Hp, Hj);
  if (!st) {
    block_rhs(c, k, nj, Hp, Hj, Hx, f);
    memcpy(c->Xk, c->Hk, (size_t)nk * (nj + 1) * sizeof(double));
    st = block_solve(&fa, nk, nj + 1, c->Xk);
  }
  if (!st) block_emit(c, nk, nj, q);
  for (int a = 0; a < nj; a++) c->colmark[c->cols[a]] = -1;
  slv_linsys_free(fa.ls);
  return st;
}

/* ---- W from the contributions ---------------------------------------------------- */

/* The triplets in column order (a counting sort) into perm. */
static void triplets_by_column(const cnd *c, int *count, int *perm) {
  memset(count, 0, ((size_t)c->n + 1) * sizeof(int));
  for (long t = 0; t < c->ntrip; t++) count[c->tj[t] + 1]++;
  for (int j = 0; j < c->n; j++) count[j + 1] += count[j];
  for (long t = 0; t < c->ntrip; t++) perm[count[c->tj[t]]++] = (int)t;
}

/* W in CSR from the triplets: by column, then stably by row (rows sorted by
 * column, the entries of one (i, j) in the order they came), duplicates
 * added. */
static slv_status w_alloc(cnd *c, int **Wp, int **Wj, double **Wx, long *nnz) {
  int n = c->n;
  if (c->ntrip > INT_MAX) return SLV_ERR_DIM;
  size_t t = (size_t)c->ntrip + 1;
  cnd_csr W = { calloc((size_t)n + 2, sizeof(int)), malloc(t * sizeof(int)),
                malloc(t * sizeof(double)) };
  int *perm = malloc(t * sizeof(int)), *count = malloc(((size_t)n + 1) * sizeof(int));
  slv_status st = W.p && W.j && W.x && perm && count ? SLV_OK : SLV_ERR_NOMEM;
  if (!st) {
    triplets_by_column(c, count, perm);
    for (long u = 0; u < c->ntrip; u++) W.p[c->ti[u] + 2]++;
    for (int i = 0; i < n; i++) W.p[i + 2] += W.p[i + 1];
    for (long u = 0; u < c->ntrip; u++) { /* W.p[i + 1]: the next free place of row i */
      int tr = perm[u], e = W.p[c->ti[tr] + 1]++;
      W.j[e] = c->tj[tr];
      W.x[e] = c->tv[tr];
    }
    csr_merge(n, &W);
    *nnz = W.p[n];
  }
  free(perm);
  free(count);
  if (st) csr_free(&W);
  *Wp = W.p;
  *Wj = W.j;
  *Wx = W.x;
  return st;
}

/* ---- entry ----------------------------------------------------------------------- */

static slv_status check_csr(int rows, int cols, const int *p, const int *j) {
  if (!p || p[0] != 0) return SLV_ERR_INVALID;
  for (int i = 0; i < rows; i++)
    if (p[i + 1] < p[i]) return SLV_ERR_INVALID;
  for (int k = 0; k < p[rows]; k++)
    if (j[k] < 0 || j[k] >= cols) return SLV_ERR_INVALID;
  return SLV_OK;
}

static void info_reset(slv_condense_info *info) {
  memset(info, 0, sizeof *info);
  info->bad_dof = info->asym_i = info->asym_j = -1;
}

slv_status slv_condense(int ndof, int n, const int *Mp, const int *Mj, const double *Mx,
                        const int *Hp, const int *Hj, const double *Hx, const double *f,
                        const double *w, double max_bytes, int **Wp, int **Wj, double **Wx,
                        double *q, slv_condense_info *info) {
  slv_condense_info dummy;
  if (!info) info = &dummy;
  info_reset(info);
  *Wp = *Wj = NULL;
  *Wx = NULL;
  if (ndof < 0 || n < 0 || check_csr(ndof, ndof, Mp, Mj) || check_csr(ndof, n, Hp, Hj))
    return SLV_ERR_INVALID;
  cnd c;
  memset(&c, 0, sizeof c);
  c.ndof = ndof;
  c.n = n;
  double bytes = 0;
  slv_status st = blocks_alloc(&c, Mp, Mj, Mx);
  if (!st) st = count_alloc(&c, Hp, Hj, Mp[ndof], &bytes);
  info->nblocks = c.ncomp;
  info->block_max = c.kmax;
  info->bytes = bytes;
  if (!st && bytes > max_bytes) st = SLV_ERR_DIM;
  if (!st) st = check_symmetric(&c, Mp, Mj, Mx, info);
  double ntrip = 0;
  for (int k = 0; !st && k < c.ncomp; k++) ntrip += (double)c.nj[k] * c.nj[k];
  if (!st) st = work_alloc(&c, ntrip);
  if (!st) memcpy(q, w, (size_t)n * sizeof(double));
  for (int k = 0; !st && k < c.ncomp; k++) st = condense_block(&c, k, Hp, Hj, Hx, f, q, info);
  if (!st) st = w_alloc(&c, Wp, Wj, Wx, &info->nnz_W);
  cnd_free(&c);
  if (st) {
    free(*Wp);
    free(*Wj);
    free(*Wx);
    *Wp = *Wj = NULL;
    *Wx = NULL;
  }
  return st;
}

/* ---- velocities (slv.h) ---------------------------------------------------------- */

static slv_status vel_alloc(cnd *c) {
  c->bp = malloc(((size_t)c->kmax + 2) * sizeof(int));
  c->Xk = malloc(((size_t)c->kmax + 1) * sizeof(double));
  return c->bp && c->Xk ? SLV_OK : SLV_ERR_NOMEM;
}

/* v(block k) <- M_k^-1 v(block k). */
static slv_status block_apply_inverse(cnd *c, int k, const cnd_csr *M, double *v,
                                      slv_condense_info *info) {
  int nk = c->cptr[k + 1] - c->cptr[k];
  cnd_factor fa;
  slv_status st = block_factor(c, k, M, &fa, info);
  for (int a = 0; a < nk; a++) c->Xk[a] = v[c->dofs[c->cptr[k] + a]];
  if (!st) st = block_solve(&fa, nk, 1, c->Xk);
  for (int a = 0; !st && a < nk; a++) v[c->dofs[c->cptr[k] + a]] = c->Xk[a];
  slv_linsys_free(fa.ls);
  return st;
}

slv_status slv_global_velocities(int ndof, int n, const int *Mp, const int *Mj, const double *Mx,
                                 const int *Hp, const int *Hj, const double *Hx, const double *f,
                                 const double *w, const double *r, double *v, double *u) {
  if (ndof < 0 || n < 0 || check_csr(ndof, ndof, Mp, Mj) || check_csr(ndof, n, Hp, Hj))
    return SLV_ERR_INVALID;
  cnd c;
  memset(&c, 0, sizeof c);
  c.ndof = ndof;
  c.n = n;
  slv_condense_info info;
  info_reset(&info);
  cnd_csr M = { (int *)Mp, (int *)Mj, (double *)Mx }; /* read only */
  slv_status st = blocks_alloc(&c, Mp, Mj, Mx);
  if (!st) st = vel_alloc(&c);
  for (int i = 0; !st && i < ndof; i++) { /* v = H r + f */
    v[i] = f[i];
    for (int e = Hp[i]; e < Hp[i + 1]; e++) v[i] += Hx[e] * r[Hj[e]];
  }
  for (int k = 0; !st && k < c.ncomp; k++) st = block_apply_inverse(&c, k, &M, v, &info);
  if (!st) { /* u = H' v + w */
    memcpy(u, w, (size_t)n * sizeof(double));
    for (int i = 0; i < ndof; i++)
      for (int e = Hp[i]; e < Hp[i + 1]; e++) u[Hj[e]] += Hx[e] * v[i];
  }
  cnd_free(&c);
  return st;
}
