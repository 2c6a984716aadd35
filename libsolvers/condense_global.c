/* condense_global.c -- a global problem's rows outside a kept set
 * eliminated at an answer (slv_condense_rows_global, slv.h; docs/problem.md,
 * "Rows condensed at an answer, global form"): the global form of a robot's
 * step with its joint rows condensed, consistent with slv_condense_rows'
 * local problem (docs/models.md, "Joint rows condensed").
 *
 * The problem holds rows of every kind (docs/contact.md, sign convention):
 *     M v = f + J' x,     w_row = J v + w + cfm x,     H = J'.
 * With the rows split at the answer x as slv_condense_rows splits them (K
 * kept, E strictly inside their bounds, B at a bound; slv_rows_classify):
 *   B:  x_B held, its force moved into f:     f1 = f + J_B' x_B;
 *   E, cfm c > 0 (a spring, a soft row):  J_s v + w_s + c x_s = 0 gives
 *       x_s = -C^-1 (J_s v + w_s), folded into M and f:
 *       M' = M + J_s' C^-1 J_s,     f' = f1 - J_s' C^-1 w_s;
 *   E, cfm = 0 (a hard row):  J_h v + w_h = 0 holds for every x_K; its x_h
 *       is a multiplier.  v = N z + v0, N an orthonormal basis of ker J_h
 *       and v0 = -J_h^+ w_h (the SVD of J_h, [golub2013]), so that
 *       N' M' N z = N'(f' - M' v0) + N' J_K' x_K.
 * The condensed global problem in the coordinates z:
 *     M_r = N' M' N,   H_r = N' J_K',   f_r = N'(f' - M' v0),
 *     w_r = w_K + J_K v0,
 * and H_r' M_r^-1 H_r, w_r + H_r' M_r^-1 f_r are slv_condense_rows' A' and
 * b' of the local problem A = J M^-1 J' + diag(cfm), b = w + J M^-1 f (the
 * Schur complement of the KKT system; for soft rows the Woodbury identity).
 *
 * Done by diagonal blocks: the dofs coupled by M's pattern or by a row of
 * E form one block (a free body is a block of its own, its coordinates its
 * velocities, N = I); each block is dense.  A block's hard rows are
 * rank-revealed by the SVD (rank: singular values above max(h, d) eps
 * s_max): dependent rows are counted (info->redundant) and accepted when
 * consistent (w_h in the range of J_h to sqrt(eps)), refused otherwise.
 * A kept row with cfm != 0 is refused (FCLIB's global problem has no term
 * for it).
 */
#include "slv_internal.h"

#include <cblas.h>
#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One diagonal block of the condensed problem. */
typedef struct gc_block {
  int d, k;   /* its dofs, its coordinates z */
  int *dofs;  /* d: the dofs, increasing */
  int *krows; /* nkr: the kept rows touching it (their K positions), increasing */
  int nkr;
  double *Mr; /* k x k */
  double *Hr; /* k x nkr, column-major */
  double *fr; /* k */
  double *v0; /* d */
} gc_block;

/* The scratch of one condensation. */
typedef struct gc_work {
  int ndof, n;
  char *cls;    /* n: 'K', 'E', 'B' */
  int *kpos;    /* n: a kept row's position in K, else -1 */
  int *krow_of; /* n: a K position's row */
  int *Jp, *Jj; /* J = H' (n x ndof CSR) */
  double *Jx;
  int *root;  /* ndof: union-find, then the block of each dof */
  int *loc;   /* ndof: a dof's place in its block */
  double *f1; /* ndof: f' */
  int nblocks;
  gc_block *blocks;
} gc_work;

static void gc_free(gc_work *g) {
  for (int b = 0; g->blocks && b < g->nblocks; b++) {
    gc_block *k = &g->blocks[b];
    free(k->dofs), free(k->krows), free(k->Mr), free(k->Hr), free(k->fr), free(k->v0);
  }
  free(g->blocks), free(g->cls), free(g->kpos), free(g->krow_of), free(g->Jp), free(g->Jj),
      free(g->Jx);
  free(g->root), free(g->loc), free(g->f1);
}

void slv_global_form_free(slv_global_form *g) {
  if (!g) return;
  free(g->Mp), free(g->Mj), free(g->Mx), free(g->Hp), free(g->Hj), free(g->Hx);
  free(g->f), free(g->w);
  memset(g, 0, sizeof *g);
}

/* The CSR arrays of g valid: sizes, pointers, indices in range.  0, or -1
 * with the message. */
static int check_input(const slv_global_rows *g, const double *x, const unsigned char *keep,
                       char *err, size_t len) {
  if (!g || !x || !keep || g->ndof < 0 || g->n < 0 || !g->Mp || !g->Mj || !g->Mx || !g->Hp ||
      !g->Hj || !g->Hx || !g->f || !g->w || !g->cfm || !g->lo || !g->hi) {
    slv_msgf(err, len, "slv_condense_rows_global: a NULL argument or a bad size");
    return -1;
  }
  const int *ptr[2] = { g->Mp, g->Hp }, *idx[2] = { g->Mj, g->Hj };
  int cols[2] = { g->ndof, g->n };
  for (int m = 0; m < 2; m++) {
    if (ptr[m][0] != 0) goto bad;
    for (int r = 0; r < g->ndof; r++) {
      if (ptr[m][r + 1] < ptr[m][r]) goto bad;
      for (int k = ptr[m][r]; k < ptr[m][r + 1]; k++)
        if (idx[m][k] < 0 || idx[m][k] >= cols[m]) goto bad;
    }
  }
  return 0;
bad:
  slv_msgf(err, len, "slv_condense_rows_global: M or H is not a valid CSR matrix");
  return -1;
}

/* J = H' into g (CSR by row, entries by increasing dof). */
static int jrows_alloc(const slv_global_rows *in, gc_work *g) {
  int n = in->n, nnz = in->Hp[in->ndof];
  g->Jp = calloc((size_t)n + 1, sizeof *g->Jp);
  g->Jj = malloc(((size_t)nnz + 1) * sizeof *g->Jj);
  g->Jx = malloc(((size_t)nnz + 1) * sizeof *g->Jx);
  if (!g->Jp || !g->Jj || !g->Jx) return -1;
  for (int k = 0; k < nnz; k++) g->Jp[in->Hj[k] + 1]++;
  for (int i = 0; i < n; i++) g->Jp[i + 1] += g->Jp[i];
  for (int d = 0; d < in->ndof; d++)
    for (int k = in->Hp[d]; k < in->Hp[d + 1]; k++) {
      int at = g->Jp[in->Hj[k]]++;
      g->Jj[at] = d, g->Jx[at] = in->Hx[k];
    }
  for (int i = n; i > 0; i--) g->Jp[i] = g->Jp[i - 1];
  g->Jp[0] = 0;
  return 0;
}

static int uf_find(int *root, int a) {
  while (root[a] != a) a = root[a] = root[root[a]];
  return a;
}

static void uf_join(int *root, int a, int b) {
  a = uf_find(root, a), b = uf_find(root, b);
  if (a != b) root[a > b ? a : b] = a < b ? a : b;
}

/* The blocks: dofs joined by M's pattern and by the rows of E; g->root[d]
 * becomes d's block, g->loc[d] its place there, each block's dofs listed.
 * 0, or -1 out of memory. */
static int blocks_alloc(const slv_global_rows *in, gc_work *g) {
  int nd = in->ndof;
  for (int d = 0; d < nd; d++) g->root[d] = d;
  for (int d = 0; d < nd; d++)
    for (int k = in->Mp[d]; k < in->Mp[d + 1]; k++) uf_join(g->root, d, in->Mj[k]);
  for (int i = 0; i < in->n; i++)
    for (int k = g->Jp[i] + 1; g->cls[i] == 'E' && k < g->Jp[i + 1]; k++)
      uf_join(g->root, g->Jj[g->Jp[i]], g->Jj[k]);
  /* each block's root is its smallest dof (uf_join): numbered in dof order */
  for (int d = 0; d < nd; d++) g->root[d] = uf_find(g->root, d);
  int nb = 0;
  for (int d = 0; d < nd; d++) g->root[d] = g->root[d] == d ? nb++ : g->root[g->root[d]];
  g->nblocks = nb;
  g->blocks = calloc((size_t)nb + 1, sizeof *g->blocks);
  if (!g->blocks) return -1;
  for (int d = 0; d < nd; d++) g->loc[d] = g->blocks[g->root[d]].d++;
  for (int b = 0; b < nb; b++) {
    g->blocks[b].dofs = malloc(((size_t)g->blocks[b].d + 1) * sizeof(int));
    if (!g->blocks[b].dofs) return -1;
  }
  for (int d = 0; d < nd; d++) g->blocks[g->root[d]].dofs[g->loc[d]] = d;
  return 0;
}

/* The kept rows touching each block (K positions, increasing). */
static int kept_rows_alloc(gc_work *g) {
  int *last = malloc(((size_t)g->nblocks + 1) * sizeof *last);
  if (!last) return -1;
  for (int pass = 0; pass < 2; pass++) {
    for (int b = 0; b < g->nblocks; b++) last[b] = -1, g->blocks[b].nkr = 0;
    for (int i = 0; i < g->n; i++)
      for (int k = g->Jp[i]; g->kpos[i] >= 0 && k < g->Jp[i + 1]; k++) {
        int b = g->root[g->Jj[k]];
        if (last[b] == i) continue;
        last[b] = i;
        if (pass == 1) g->blocks[b].krows[g->blocks[b].nkr] = g->kpos[i];
        g->blocks[b].nkr++;
      }
    for (int b = 0; pass == 0 && b < g->nblocks; b++) {
      g->blocks[b].krows = malloc(((size_t)g->blocks[b].nkr + 1) * sizeof(int));
      if (!g->blocks[b].krows) {
        free(last);
        return -1;
      }
    }
  }
  free(last);
  return 0;
}

/* f' = f + J_B' x_B - J_s' C^-1 w_s (the held and the soft rows' forces). */
static void moved_forces(const slv_global_rows *in, const double *x, gc_work *g) {
  memcpy(g->f1, in->f, (size_t)in->ndof * sizeof *g->f1);
  for (int i = 0; i < in->n; i++) {
    double s = 0.0;
    if (g->cls[i] == 'B')
      s = x[i];
    else if (g->cls[i] == 'E' && in->cfm[i] > 0.0)
      s = -in->w[i] / in->cfm[i];
    for (int k = g->Jp[i]; s != 0.0 && k < g->Jp[i + 1]; k++) g->f1[g->Jj[k]] += g->Jx[k] * s;
  }
}

/* Block b's M' (d x d, column-major): M's entries and the soft rows'
 * J_s' C^-1 J_s. */
static void block_mass(const slv_global_rows *in, const gc_work *g, int b, double *Mc) {
  const gc_block *k = &g->blocks[b];
  int d = k->d;
  memset(Mc, 0, (size_t)d * (size_t)d * sizeof *Mc);
  for (int a = 0; a < d; a++) {
    int r = k->dofs[a];
    for (int e = in->Mp[r]; e < in->Mp[r + 1]; e++)
      Mc[(size_t)g->loc[in->Mj[e]] * d + a] += in->Mx[e];
  }
  for (int i = 0; i < in->n; i++) {
    if (g->cls[i] != 'E' || !(in->cfm[i] > 0.0) || g->Jp[i] == g->Jp[i + 1] ||
        g->root[g->Jj[g->Jp[i]]] != b)
      continue;
    for (int p = g->Jp[i]; p < g->Jp[i + 1]; p++)
      for (int q = g->Jp[i]; q < g->Jp[i + 1]; q++)
        Mc[(size_t)g->loc[g->Jj[q]] * d + g->loc[g->Jj[p]]] += g->Jx[p] * g->Jx[q] / in->cfm[i];
  }
}

/* 1 when row i is one of block b's hard rows (E, cfm 0). */
static int hard_in(const slv_global_rows *in, const gc_work *g, int i, int b) {
  return g->cls[i] == 'E' && in->cfm[i] == 0.0 && g->Jp[i] < g->Jp[i + 1] &&
         g->root[g->Jj[g->Jp[i]]] == b;
}

/* Block b's h hard rows as a dense h x d matrix Jh (column-major, ld h)
 * and their w into wh. */
static void block_hard_rows(const slv_global_rows *in, const gc_work *g, int b, int h, double *Jh,
                            double *wh) {
  int d = g->blocks[b].d;
  memset(Jh, 0, (size_t)h * (size_t)d * sizeof *Jh);
  for (int i = 0, r = 0; i < in->n && r < h; i++) {
    if (!hard_in(in, g, i, b)) continue;
    for (int p = g->Jp[i]; p < g->Jp[i + 1]; p++) Jh[(size_t)g->loc[g->Jj[p]] * h + r] += g->Jx[p];
    wh[r++] = in->w[i];
  }
}

/* The scratch of one block's null space. */
typedef struct gc_svd {
  double *J, *Jc, *s, *U, *VT, *sup; /* h x d, its copy, min(h,d), h x min, d x d, min */
} gc_svd;

/* N (d x k, column-major: an orthonormal basis of ker Jh) and v0 = -Jh^+ wh
 * from the SVD of Jh (h x d, ld h; destroyed; Jc its copy); *k, *rank.
 * 0; -1 when the SVD fails; -2 when dependent rows are inconsistent (wh not
 * in the range of Jh to sqrt(eps) of its scale: *resid said). */
static int null_space(gc_svd *sv, int h, int d, const double *wh, double *N, double *v0, int *k,
                      int *rank, double *resid) {
  int mn = h < d ? h : d;
  if (LAPACKE_dgesvd(LAPACK_COL_MAJOR, 'S', 'A', h, d, sv->J, h, sv->s, sv->U, h, sv->VT, d,
                     sv->sup) != 0)
    return -1;
  /* rank: singular values above LAPACK's usual max(h, d) eps s_max */
  double tol = (h > d ? h : d) * DBL_EPSILON * (mn > 0 ? sv->s[0] : 0.0);
  int r = 0;
  while (r < mn && sv->s[r] > tol) r++;
  *rank = r, *k = d - r;
  for (int a = 0; a < d - r; a++)
    for (int j = 0; j < d; j++) N[(size_t)a * d + j] = sv->VT[(size_t)j * d + r + a];
  /* v0 = -sum_t V_t (U_t' wh) / s_t over the rank's singular triples */
  memset(v0, 0, (size_t)d * sizeof *v0);
  for (int t = 0; t < r; t++) {
    double c = -cblas_ddot(h, sv->U + (size_t)t * h, 1, wh, 1) / sv->s[t];
    for (int j = 0; j < d; j++) v0[j] += c * sv->VT[(size_t)j * d + t];
  }
  /* the hard rows hold at v0: Jh v0 + wh = 0, to sqrt(eps) of the scale */
  double rmax = 0.0, scale = 0.0, vmax = 0.0;
  for (int j = 0; j < d; j++) vmax = fmax(vmax, fabs(v0[j]));
  for (int i = 0; i < h; i++) {
    double ri = wh[i], ai = 0.0;
    for (int j = 0; j < d; j++)
      ri += sv->Jc[(size_t)j * h + i] * v0[j], ai += fabs(sv->Jc[(size_t)j * h + i]);
    rmax = fmax(rmax, fabs(ri));
    scale = fmax(scale, fabs(wh[i]) + ai * vmax);
  }
  *resid = scale > 0.0 ? rmax / scale : 0.0;
  return *resid > sqrt(DBL_EPSILON) ? -2 : 0;
}

/* Block b's hard rows eliminated: N (d x *k) and v0 into bk->v0; N NULL
 * (identity, *k = d) without hard rows.  SLV_OK, or SLV_ERR_NOMEM /
 * SLV_ERR_UNSUPPORTED with the message. */
static slv_status null_space_new(const slv_global_rows *in, const gc_work *g, int b, double **N,
                                 int *k, slv_condense_global_info *info, char *err, size_t len) {
  gc_block *bk = &g->blocks[b];
  int d = bk->d, h = 0;
  for (int i = 0; i < in->n; i++) h += hard_in(in, g, i, b);
  *N = NULL, *k = d;
  if (h == 0) return SLV_OK;
  int mn = h < d ? h : d;
  gc_svd sv = {
    malloc((size_t)h * d * sizeof(double) + 1),   malloc((size_t)h * d * sizeof(double) + 1),
    malloc(((size_t)mn + 1) * sizeof(double)),    malloc(((size_t)h * mn + 1) * sizeof(double)),
    malloc(((size_t)d * d + 1) * sizeof(double)), malloc(((size_t)mn + 1) * sizeof(double))
  };
  double *wh = malloc(((size_t)h + 1) * sizeof *wh);
  *N = malloc(((size_t)d * d + 1) * sizeof **N);
  int rc = -3, rank = 0;
  double resid = 0.0;
  if (!sv.J || !sv.Jc || !sv.s || !sv.U || !sv.VT || !sv.sup || !wh || !*N) {
    slv_msgf(err, len, "out of memory for the null space of %d hard rows on %d dofs", h, d);
  } else {
    block_hard_rows(in, g, b, h, sv.J, wh);
    memcpy(sv.Jc, sv.J, (size_t)h * d * sizeof(double));
    rc = null_space(&sv, h, d, wh, *N, bk->v0, k, &rank, &resid);
    if (rc == -1)
      slv_msgf(err, len, "the SVD of %d hard rows on %d dofs failed", h, d);
    else if (rc == -2)
      slv_msgf(err, len,
               "%d of the %d hard rows on dofs %d.. are dependent on the others (rank %d) and "
               "not consistent with them (residual %.3g of their scale): no velocity satisfies "
               "them",
               h - rank, h, bk->dofs[0], rank, resid);
    info->nhard += h;
    info->redundant += h - rank;
  }
  free(sv.J), free(sv.Jc), free(sv.s), free(sv.U), free(sv.VT), free(sv.sup), free(wh);
  return rc == 0 ? SLV_OK : rc == -3 ? SLV_ERR_NOMEM : SLV_ERR_UNSUPPORTED;
}

/* Block b's condensed M_r, f_r, H_r and its part of w_r (wr, by K
 * position; krow_of: a K position's row).  SLV_OK, or as null_space_new
 * with the message. */
static slv_status block_new(const slv_global_rows *in, gc_work *g, int b, const int *krow_of,
                            double *wr, slv_condense_global_info *info, char *err, size_t len) {
  gc_block *bk = &g->blocks[b];
  int d = bk->d, nkr = bk->nkr, k = d;
  double *N = NULL;
  bk->v0 = calloc((size_t)d + 1, sizeof *bk->v0);
  double *Mc = malloc(((size_t)d * d + 1) * sizeof *Mc);
  double *T = malloc(((size_t)d * d + 1) * sizeof *T);
  double *Jk = calloc((size_t)nkr * d + 1, sizeof *Jk);
  double *fc = malloc(((size_t)d + 1) * sizeof *fc);
  slv_status rc = SLV_ERR_NOMEM;
  if (!bk->v0 || !Mc || !T || !Jk || !fc) {
    slv_msgf(err, len, "out of memory for a block of %d dofs", d);
    goto done;
  }
  block_mass(in, g, b, Mc);
  if ((rc = null_space_new(in, g, b, &N, &k, info, err, len)) != SLV_OK) goto done;
  rc = SLV_ERR_NOMEM;
  bk->k = k;
  bk->Mr = malloc(((size_t)k * k + 1) * sizeof *bk->Mr);
  bk->Hr = malloc(((size_t)k * nkr + 1) * sizeof *bk->Hr);
  bk->fr = malloc(((size_t)k + 1) * sizeof *bk->fr);
  if (!bk->Mr || !bk->Hr || !bk->fr) {
    slv_msgf(err, len, "out of memory for a block of %d coordinates", k);
    goto done;
  }
  /* fc = f' - M' v0 on the block; Jk: its kept rows (nkr x d) */
  for (int a = 0; a < d; a++) fc[a] = g->f1[bk->dofs[a]];
  cblas_dgemv(CblasColMajor, CblasNoTrans, d, d, -1.0, Mc, d, bk->v0, 1, 1.0, fc, 1);
  for (int c = 0; c < nkr; c++) {
    int i = krow_of[bk->krows[c]];
    for (int p = g->Jp[i]; p < g->Jp[i + 1]; p++)
      if (g->root[g->Jj[p]] == b) Jk[(size_t)g->loc[g->Jj[p]] * nkr + c] += g->Jx[p];
    wr[bk->krows[c]] += cblas_ddot(d, Jk + c, nkr, bk->v0, 1);
  }
  if (!N) { /* no hard rows: z = v */
    memcpy(bk->Mr, Mc, (size_t)d * d * sizeof *Mc);
    memcpy(bk->fr, fc, (size_t)d * sizeof *fc);
    for (int c = 0; c < nkr; c++)
      for (int a = 0; a < d; a++) bk->Hr[(size_t)c * d + a] = Jk[(size_t)a * nkr + c];
  } else { /* M_r = N' M' N, f_r = N' fc, H_r = N' Jk' */
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, d, k, d, 1.0, Mc, d, N, d, 0.0, T, d);
    cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, k, k, d, 1.0, N, d, T, d, 0.0, bk->Mr, k);
    cblas_dgemv(CblasColMajor, CblasTrans, d, k, 1.0, N, d, fc, 1, 0.0, bk->fr, 1);
    if (nkr > 0)
      cblas_dgemm(CblasColMajor, CblasTrans, CblasTrans, k, nkr, d, 1.0, N, d, Jk, nkr, 0.0, bk->Hr,
                  k);
  }
  /* M_r exactly symmetric (the product's rounding) */
  for (int c = 0; c < k; c++)
    for (int a = c + 1; a < k; a++) {
      double m = 0.5 * (bk->Mr[(size_t)c * k + a] + bk->Mr[(size_t)a * k + c]);
      bk->Mr[(size_t)c * k + a] = bk->Mr[(size_t)a * k + c] = m;
    }
  rc = SLV_OK;
done:
  free(N), free(Mc), free(T), free(Jk), free(fc);
  return rc;
}

/* out's arrays from the blocks (block diagonal M_r; H_r's columns the K
 * positions).  0, or -1 out of memory. */
static int form_alloc(const gc_work *g, int nk, slv_global_form *out) {
  long mnz = 0, hnz = 0;
  int nd = 0;
  for (int b = 0; b < g->nblocks; b++) {
    const gc_block *bk = &g->blocks[b];
    nd += bk->k;
    mnz += (long)bk->k * bk->k, hnz += (long)bk->k * bk->nkr;
  }
  out->ndof = nd, out->n = nk;
  out->Mp = malloc(((size_t)nd + 1) * sizeof(int));
  out->Mj = malloc(((size_t)mnz + 1) * sizeof(int));
  out->Mx = malloc(((size_t)mnz + 1) * sizeof(double));
  out->Hp = malloc(((size_t)nd + 1) * sizeof(int));
  out->Hj = malloc(((size_t)hnz + 1) * sizeof(int));
  out->Hx = malloc(((size_t)hnz + 1) * sizeof(double));
  out->f = malloc(((size_t)nd + 1) * sizeof(double));
  if (!out->Mp || !out->Mj || !out->Mx || !out->Hp || !out->Hj || !out->Hx || !out->f) return -1;
  int r = 0, m = 0, h = 0;
  out->Mp[0] = out->Hp[0] = 0;
  for (int b = 0, off = 0; b < g->nblocks; off += g->blocks[b++].k) {
    const gc_block *bk = &g->blocks[b];
    for (int a = 0; a < bk->k; a++, r++) {
      for (int c = 0; c < bk->k; c++) {
        double v = bk->Mr[(size_t)c * bk->k + a];
        if (v != 0.0) out->Mj[m] = off + c, out->Mx[m++] = v;
      }
      for (int c = 0; c < bk->nkr; c++) {
        double v = bk->Hr[(size_t)c * bk->k + a];
        if (v != 0.0) out->Hj[h] = bk->krows[c], out->Hx[h++] = v;
      }
      out->f[r] = bk->fr[a];
      out->Mp[r + 1] = m, out->Hp[r + 1] = h;
    }
  }
  return 0;
}

/* The rows classified (slv_rows_classify), the kept rows numbered, and a
 * kept row with cfm != 0 refused.  The number of kept rows, or -1 with the
 * message. */
static int classify_rows(const slv_global_rows *in, const double *x, const unsigned char *keep,
                         gc_work *g, slv_condense_global_info *info, char *err, size_t len) {
  int nk = 0, ne = 0;
  slv_rows_classify(in->n, in->lo, in->hi, x, keep, g->cls, &nk, &ne);
  info->neliminated = ne, info->nbound = in->n - nk - ne;
  for (int i = 0, p = 0; i < in->n; i++) {
    g->kpos[i] = g->cls[i] == 'K' ? p++ : -1;
    if (g->cls[i] == 'K' && in->cfm[i] != 0.0) {
      slv_msgf(err, len, "kept row %d has cfm = %g: the global form has no term for it", i,
               in->cfm[i]);
      return -1;
    }
    if (g->cls[i] == 'E' && in->cfm[i] > 0.0) info->nsoft++;
    if (!(in->cfm[i] >= 0.0)) {
      slv_msgf(err, len, "row %d has cfm = %g (must be >= 0)", i, in->cfm[i]);
      return -1;
    }
  }
  return nk;
}

/* The work arrays of g for in (sizes only) and out's w (n at most).  0,
 * or -1 out of memory. */
static int gc_alloc(const slv_global_rows *in, gc_work *g, slv_global_form *out) {
  size_t n = (size_t)in->n, nd = (size_t)in->ndof;
  memset(g, 0, sizeof *g);
  g->ndof = in->ndof, g->n = in->n;
  g->cls = malloc(n + 1);
  g->kpos = malloc((n + 1) * sizeof *g->kpos);
  g->krow_of = malloc((n + 1) * sizeof *g->krow_of);
  out->w = malloc((n + 1) * sizeof *out->w);
  if (!g->krow_of || !out->w) return -1;
  g->root = malloc((nd + 1) * sizeof *g->root);
  g->loc = malloc((nd + 1) * sizeof *g->loc);
  g->f1 = malloc((nd + 1) * sizeof *g->f1);
  if (!g->cls || !g->kpos || !g->root || !g->loc || !g->f1) return -1;
  return jrows_alloc(in, g);
}

slv_status slv_condense_rows_global(const slv_global_rows *in, const double *x,
                                    const unsigned char *keep, slv_global_form *out,
                                    slv_condense_global_info *info, char *err, size_t len) {
  char dummy[8];
  slv_condense_global_info inf0;
  if (!err) err = dummy, len = sizeof dummy;
  if (!info) info = &inf0;
  memset(info, 0, sizeof *info);
  if (!out || check_input(in, x, keep, err, len) != 0) {
    if (!out) slv_msgf(err, len, "slv_condense_rows_global: a NULL argument");
    return SLV_ERR_INVALID;
  }
  memset(out, 0, sizeof *out);
  gc_work g;
  slv_status st = SLV_ERR_NOMEM;
  slv_msgf(err, len, "slv_condense_rows_global: out of memory (%d dofs, %d rows)", in->ndof, in->n);
  if (gc_alloc(in, &g, out) != 0) goto done;
  int nk = classify_rows(in, x, keep, &g, info, err, len);
  if (nk < 0) {
    st = SLV_ERR_INVALID;
    goto done;
  }
  if (blocks_alloc(in, &g) != 0 || kept_rows_alloc(&g) != 0) goto done;
  for (int i = 0; i < in->n; i++)
    if (g.kpos[i] >= 0) g.krow_of[g.kpos[i]] = i, out->w[g.kpos[i]] = in->w[i];
  moved_forces(in, x, &g);
  info->nblocks = g.nblocks;
  for (int b = 0; b < g.nblocks; b++) {
    if ((st = block_new(in, &g, b, g.krow_of, out->w, info, err, len)) != SLV_OK) goto done;
    if (g.blocks[b].k > info->block_max) info->block_max = g.blocks[b].k;
  }
  st = SLV_ERR_NOMEM;
  if (form_alloc(&g, nk, out) != 0) goto done;
  st = SLV_OK;
  err[0] = '\0';
done:
  if (st != SLV_OK) slv_global_form_free(out);
  gc_free(&g);
  return st;
}
