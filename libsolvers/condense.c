/* condense.c -- the local problem of a global frictional-contact problem
 * (slv_condense, slv.h; docs/problem.md, "Global problems"):
 *
 *     W = H' M^-1 H,   q = w + H' M^-1 f.
 *
 * M is split into its diagonal blocks: the connected parts of its pattern
 * (a non-zero M(i,j), i != j, links dofs i and j), in practice one per body
 * or per mesh.  Per block k with dofs R_k and the columns C_k of H that its
 * rows touch:
 *
 *     M_k = M(R_k, R_k) factored (linsys.h: dense LAPACK up to
 *           SLV_LS_DENSE_MAX dofs, CHOLMOD above),
 *     X_k = M_k^-1 H(R_k, C_k),   g_k = M_k^-1 f(R_k),
 *     W(C_k, C_k) += H(R_k, C_k)' X_k   (its symmetric part),
 *     q(C_k)      += H(R_k, C_k)' g_k.
 *
 * W is gathered from these |C_k|^2 contributions as triplets and then
 * compressed to CSR (rows sorted, duplicates added), so the memory is
 * sum_k |C_k|^2 entries, never n^2 (a contact touches two bodies: W has
 * the block sparsity of the contact graph).  Each contribution is made
 * symmetric ((S + S') / 2) before it is added, so W is exactly symmetric.
 *
 * Symmetry of M is checked on the merged entries (duplicates added) of M
 * against those of M': |M(i,j) - M(j,i)| <= 1e-10 max|M| over the block,
 * far above rounding and below any modelling asymmetry (io_fclib.c used
 * the same bound).  An M stored as one triangle must be mirrored by the
 * caller (the readers do, docs/io.md).
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

typedef struct cnd {
  int ndof, n, ncomp, kmax, njmax;
  int *comp, *cptr, *dofs, *loc; /* the blocks: dof -> block, block -> dofs */
  int *nj;                       /* columns of H touched per block */
  int *colmark, *cols;           /* scratch: column -> position in the block's list */
  double *amax;                  /* largest |M| entry per block */
  long ntrip;
  int *ti, *tj; /* W's contributions */
  double *tv;
  double *Hk, *Xk, *Sk, *gk; /* one block's H, M^-1 H, H' M^-1 H, M^-1 f */
  int *bp, *bj;              /* one block's M as local CSR */
  double *bx;
} cnd;

static void cnd_free(cnd *c) {
  free(c->comp);
  free(c->cptr);
  free(c->dofs);
  free(c->loc);
  free(c->nj);
  free(c->colmark);
  free(c->cols);
  free(c->amax);
  free(c->ti);
  free(c->tj);
  free(c->tv);
  free(c->Hk);
  free(c->Xk);
  free(c->Sk);
  free(c->gk);
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
  double km = c->kmax, jm = c->njmax;
  /* triplets, W (at most as many entries), the merged M and M' of the
   * symmetry check, one block's dense arrays and its factor */
  *bytes = 16.0 * t + 12.0 * t + 8.0 * (c->n + 1.0) + 2.0 * 12.0 * (double)nnzM +
           8.0 * (2.0 * km * jm + jm * jm + km) + 12.0 * (double)nnzM + 8.0 * km * km;
  c->ntrip = 0;
  return t > (double)LONG_MAX / 32 ? SLV_ERR_DIM : SLV_OK;
}

static slv_status work_alloc(cnd *c, double ntrip) {
  size_t t = (size_t)ntrip + 1, km = (size_t)c->kmax + 1, jm = (size_t)c->njmax + 1;
  c->ti = malloc(t * sizeof(int));
  c->tj = malloc(t * sizeof(int));
  c->tv = malloc(t * sizeof(double));
  c->Hk = malloc(km * jm * sizeof(double));
  c->Xk = malloc(km * jm * sizeof(double));
  c->Sk = malloc(jm * jm * sizeof(double));
  c->gk = malloc(km * sizeof(double));
  c->bp = malloc((km + 1) * sizeof(int));
  return c->ti && c->tj && c->tv && c->Hk && c->Xk && c->Sk && c->gk && c->bp ? SLV_OK
                                                                              : SLV_ERR_NOMEM;
}

/* ---- symmetry -------------------------------------------------------------------- */

typedef struct centry {
  int j;
  double v;
} centry;

static int by_col(const void *a, const void *b) {
  int x = ((const centry *)a)->j, y = ((const centry *)b)->j;
  return (x > y) - (x < y);
}

/* Rows of an nr-row CSR (transposed when tr) sorted by column, duplicates
 * added: *P (nr + 1) and *E. */
static slv_status merged_alloc(int nr, const int *p, const int *jj, const double *x, int tr,
                               int **P, centry **E) {
  int nnz = p[nr];
  *P = calloc((size_t)nr + 2, sizeof(int));
  *E = malloc(((size_t)nnz + 1) * sizeof(centry));
  int *pos = malloc(((size_t)nr + 1) * sizeof(int));
  if (!*P || !*E || !pos) {
    free(pos);
    return SLV_ERR_NOMEM;
  }
  int *q = *P;
  for (int i = 0; i < nr; i++)
    for (int k = p[i]; k < p[i + 1]; k++) q[(tr ? jj[k] : i) + 1]++;
  for (int i = 0; i < nr; i++) q[i + 1] += q[i];
  memcpy(pos, q, (size_t)nr * sizeof(int));
  for (int i = 0; i < nr; i++)
    for (int k = p[i]; k < p[i + 1]; k++)
      (*E)[pos[tr ? jj[k] : i]++] = (centry){ tr ? i : jj[k], x[k] };
  int out = 0;
  for (int i = 0; i < nr; i++) {
    int start = out;
    qsort(*E + q[i], (size_t)(q[i + 1] - q[i]), sizeof(centry), by_col);
    for (int k = q[i]; k < q[i + 1]; k++) {
      if (out > start && (*E)[out - 1].j == (*E)[k].j)
        (*E)[out - 1].v += (*E)[k].v;
      else
        (*E)[out++] = (*E)[k];
    }
    q[i] = start;
  }
  q[nr] = out;
  free(pos);
  return SLV_OK;
}

/* Row i of S against row i of T (both merged): the first pair that differs
 * by more than the block's tolerance, into info. */
static int row_asymmetric(const cnd *c, int i, const centry *s, int ns, const centry *t, int nt,
                          slv_condense_info *info) {
  double tol = CND_ASYM_TOL * c->amax[c->comp[i]];
  int a = 0, b = 0;
  while (a < ns || b < nt) {
    int js = a < ns ? s[a].j : INT_MAX, jt = b < nt ? t[b].j : INT_MAX, j = js < jt ? js : jt;
    double vs = js == j ? s[a++].v : 0.0, vt = jt == j ? t[b++].v : 0.0;
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

static slv_status check_symmetric(cnd *c, const int *Mp, const int *Mj, const double *Mx,
                                  slv_condense_info *info) {
  int *SP = NULL, *TP = NULL;
  centry *S = NULL, *T = NULL;
  slv_status st = merged_alloc(c->ndof, Mp, Mj, Mx, 0, &SP, &S);
  if (!st) st = merged_alloc(c->ndof, Mp, Mj, Mx, 1, &TP, &T);
  for (int i = 0; !st && i < c->ndof; i++)
    for (int k = SP[i]; k < SP[i + 1]; k++)
      c->amax[c->comp[i]] = fmax(c->amax[c->comp[i]], fabs(S[k].v));
  for (int i = 0; !st && i < c->ndof; i++)
    if (row_asymmetric(c, i, S + SP[i], SP[i + 1] - SP[i], T + TP[i], TP[i + 1] - TP[i], info))
      st = SLV_ERR_UNSUPPORTED;
  free(SP);
  free(S);
  free(TP);
  free(T);
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
static slv_status block_csr_alloc(cnd *c, int k, const int *Mp, const int *Mj, const double *Mx) {
  int nk = c->cptr[k + 1] - c->cptr[k], nnz = 0;
  for (int a = 0; a < nk; a++) {
    int i = c->dofs[c->cptr[k] + a];
    nnz += Mp[i + 1] - Mp[i];
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
    for (int e = Mp[i]; e < Mp[i + 1]; e++)
      if (c->comp[Mj[e]] == k) {
        c->bj[q] = c->loc[Mj[e]];
        c->bx[q++] = Mx[e];
      }
    c->bp[a + 1] = q;
  }
  return SLV_OK;
}

/* X_k = M_k^-1 H_k, g_k = M_k^-1 f_k with the block factored by ls. */
static slv_ls_status block_solves(cnd *c, slv_linsys *ls, int nk, int nj) {
  slv_ls_status st = slv_linsys_solve(ls, c->gk);
  memcpy(c->Xk, c->Hk, (size_t)nk * nj * sizeof(double));
  for (int b = 0; !st && b < nj; b++) st = slv_linsys_solve(ls, c->Xk + (size_t)nk * b);
  return st;
}

/* H(R_k, C_k) dense (nk x nj, column-major) and f(R_k). */
static void block_rhs(cnd *c, int k, int nj, const int *Hp, const int *Hj, const double *Hx,
                      const double *f) {
  int nk = c->cptr[k + 1] - c->cptr[k];
  memset(c->Hk, 0, (size_t)nk * nj * sizeof(double));
  for (int a = 0; a < nk; a++) {
    int i = c->dofs[c->cptr[k] + a];
    c->gk[a] = f[i];
    for (int e = Hp[i]; e < Hp[i + 1]; e++) c->Hk[a + (size_t)nk * c->colmark[Hj[e]]] += Hx[e];
  }
}

/* W's contributions of block k (symmetric part of H_k' X_k) and q's. */
static void block_emit(cnd *c, int nk, int nj, double *q) {
  if (nk > 0 && nj > 0)
    cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, nj, nj, nk, 1.0, c->Hk, nk, c->Xk, nk, 0.0,
                c->Sk, nj);
  for (int b = 0; b < nj; b++) {
    for (int a = 0; a < nj; a++) {
      double s = 0.5 * (c->Sk[a + (size_t)nj * b] + c->Sk[b + (size_t)nj * a]);
      c->ti[c->ntrip] = c->cols[a];
      c->tj[c->ntrip] = c->cols[b];
      c->tv[c->ntrip++] = s;
    }
    q[c->cols[b]] += nk > 0 ? cblas_ddot(nk, c->Hk + (size_t)nk * b, 1, c->gk, 1) : 0.0;
  }
}

/* Block k of M factored into *ls (dense LAPACK up to SLV_LS_DENSE_MAX
 * dofs, CHOLMOD above); not positive definite: info->bad_dof. */
static slv_status block_factor(cnd *c, int k, const int *Mp, const int *Mj, const double *Mx,
                               slv_linsys **ls, slv_condense_info *info) {
  int nk = c->cptr[k + 1] - c->cptr[k];
  slv_status st = block_csr_alloc(c, k, Mp, Mj, Mx);
  if (st) return st;
  slv_ls_backend be = nk <= SLV_LS_DENSE_MAX ? SLV_LS_DENSE : SLV_LS_CHOLMOD;
  info->sparse_blocks += be == SLV_LS_CHOLMOD;
  slv_ls_status ls_st;
  *ls = slv_linsys_analyse(SLV_LS_SPD, be, nk, c->bp, c->bj, &ls_st);
  if (*ls) ls_st = slv_linsys_factor(*ls, c->bx);
  if (ls_st == SLV_LS_NOT_SPD) {
    int col = slv_linsys_failed_column(*ls);
    info->bad_dof = c->dofs[c->cptr[k] + (col >= 0 && col < nk ? col : 0)];
  }
  return ls_status(ls_st);
}

static slv_status condense_block(cnd *c, int k, const int *Mp, const int *Mj, const double *Mx,
                                 const int *Hp, const int *Hj, const double *Hx, const double *f,
                                 double *q, slv_condense_info *info) {
  int nk = c->cptr[k + 1] - c->cptr[k];
  slv_linsys *ls = NULL;
  slv_status st = block_factor(c, k, Mp, Mj, Mx, &ls, info);
  int nj = block_columns(c, k, Hp, Hj);
  if (!st) {
    block_rhs(c, k, nj, Hp, Hj, Hx, f);
    st = ls_status(block_solves(c, ls, nk, nj));
  }
  if (!st) block_emit(c, nk, nj, q);
  for (int a = 0; a < nj; a++) c->colmark[c->cols[a]] = -1;
  slv_linsys_free(ls);
  return st;
}

/* ---- W from the contributions ---------------------------------------------------- */

static slv_status w_alloc(cnd *c, int **Wp, int **Wj, double **Wx, long *nnz) {
  int n = c->n;
  *Wp = calloc((size_t)n + 2, sizeof(int));
  centry *e = malloc(((size_t)c->ntrip + 1) * sizeof(centry));
  int *pos = malloc(((size_t)n + 1) * sizeof(int));
  if (!*Wp || !e || !pos || c->ntrip > INT_MAX) {
    free(e);
    free(pos);
    return c->ntrip > INT_MAX ? SLV_ERR_DIM : SLV_ERR_NOMEM;
  }
  int *p = *Wp;
  for (long t = 0; t < c->ntrip; t++) p[c->ti[t] + 1]++;
  for (int i = 0; i < n; i++) p[i + 1] += p[i];
  memcpy(pos, p, (size_t)n * sizeof(int));
  for (long t = 0; t < c->ntrip; t++) e[pos[c->ti[t]]++] = (centry){ c->tj[t], c->tv[t] };
  int out = 0;
  for (int i = 0; i < n; i++) {
    int start = out;
    qsort(e + p[i], (size_t)(p[i + 1] - p[i]), sizeof(centry), by_col);
    for (int k = p[i]; k < p[i + 1]; k++) {
      if (out > start && e[out - 1].j == e[k].j)
        e[out - 1].v += e[k].v;
      else
        e[out++] = e[k];
    }
    p[i] = start;
  }
  p[n] = out;
  *Wj = malloc(((size_t)out + 1) * sizeof(int));
  *Wx = malloc(((size_t)out + 1) * sizeof(double));
  if (*Wj && *Wx)
    for (int k = 0; k < out; k++) {
      (*Wj)[k] = e[k].j;
      (*Wx)[k] = e[k].v;
    }
  free(e);
  free(pos);
  *nnz = out;
  return *Wj && *Wx ? SLV_OK : SLV_ERR_NOMEM;
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
  for (int k = 0; !st && k < c.ncomp; k++)
    st = condense_block(&c, k, Mp, Mj, Mx, Hp, Hj, Hx, f, q, info);
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
  c->gk = malloc(((size_t)c->kmax + 1) * sizeof(double));
  return c->bp && c->gk ? SLV_OK : SLV_ERR_NOMEM;
}

/* v(block k) <- M_k^-1 v(block k). */
static slv_status block_apply_inverse(cnd *c, int k, const int *Mp, const int *Mj, const double *Mx,
                                      double *v, slv_condense_info *info) {
  int nk = c->cptr[k + 1] - c->cptr[k];
  slv_linsys *ls = NULL;
  slv_status st = block_factor(c, k, Mp, Mj, Mx, &ls, info);
  for (int a = 0; a < nk; a++) c->gk[a] = v[c->dofs[c->cptr[k] + a]];
  if (!st) st = ls_status(slv_linsys_solve(ls, c->gk));
  for (int a = 0; !st && a < nk; a++) v[c->dofs[c->cptr[k] + a]] = c->gk[a];
  slv_linsys_free(ls);
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
  slv_status st = blocks_alloc(&c, Mp, Mj, Mx);
  if (!st) st = vel_alloc(&c);
  for (int i = 0; !st && i < ndof; i++) { /* v = H r + f */
    v[i] = f[i];
    for (int e = Hp[i]; e < Hp[i + 1]; e++) v[i] += Hx[e] * r[Hj[e]];
  }
  for (int k = 0; !st && k < c.ncomp; k++) st = block_apply_inverse(&c, k, Mp, Mj, Mx, v, &info);
  if (!st) { /* u = H' v + w */
    memcpy(u, w, (size_t)n * sizeof(double));
    for (int i = 0; i < ndof; i++)
      for (int e = Hp[i]; e < Hp[i + 1]; e++) u[Hj[e]] += Hx[e] * v[i];
  }
  cnd_free(&c);
  return st;
}
