/* operator.h -- private: the operator of one solve, A as the solvers see it.
 * Never installed.  docs/solver-machinery.md, "The operator layer", has the design.
 *
 * A problem stores A one of three ways (slv.h): dense column-major, CSR
 * rows, or factored, A = J K^T + diag(d) over blocks of 6 columns.  The
 * solvers need only a few things of A, and the operator gives each of them
 * once, for every storage, so that no solver reads the storage itself:
 *
 *   slv_op_diag       A(i,i)
 *   slv_op_entry      A(i,j)
 *   slv_op_row_dot    A(i,:) x                (factored: t = K^T x current)
 *   slv_op_col_axpy   y += a A(:,j)           (the Gauss-Seidel update of w)
 *   slv_op_col3_axpy  y += A(:,j..j+2) d      (a contact's update of w)
 *   slv_op_matvec     y = A x (+ b)           (the fastest form at hand)
 *   slv_op_w          w = A x + b             (the library's own product, the
 *                                              one slv_solve judges by)
 *   slv_op_block3     A(i..i+2, i..i+2)       (a contact's 3x3 block)
 *   slv_op_col        A(:,j) as a dense vector
 *   slv_op_to_dense   A copied into a dense array (the direct solvers)
 * and three views for the solvers whose inner loops are built on one
 * layout (pivoting factorizations, the factored sweeps):
 *   op->A, op->lda    the dense matrix itself (dense storage only): the
 *                     columns lemke and dantzig pivot on;
 *   slv_op_pack       the one packed copy: A's nonzeros by column (CSC:
 *                     colptr, rowind, val), or by 3x3 blocks of a pure
 *                     contact problem (n = 3 ncones: block column J holds
 *                     block rows rowind[k] with 9 values, column-major, at
 *                     val + 9k), formed at most once per solve;
 *   slv_op_pack_rows  the same blocks by block rows instead (block row I
 *                     holds block columns rowind[k], k in colptr[I] ..
 *                     colptr[I+1]), for the solvers that use A only
 *                     through slv_op_matvec: that product is a gather,
 *                     and it splits over threads (docs/solver-machinery.md,
 *                     "Threads"); other problems get the columns;
 *   op->f, op->t      the factored factors and the scratch t = K^T x.
 *
 * The packed copy (slv_op_pack): a dense A with n >= 64 whose nonzeros fit
 * in a quarter of it (contact matrices J M^-1 J^T stored dense: a sweep
 * then costs O(nnz), not O(n^2)), or a CSR A transposed (a column update
 * needs columns); a pure contact problem by its nonzero 3x3 blocks first
 * (one index and 9 multiply-adds per block).  At most SLV_OP_PACK_MAX
 * entries; else the solve goes on unpacked.
 *
 * Factored blocks: a problem's block ids index t directly when nblk fits
 * the workspace (2 n_max blocks, every world with contacts on most of its
 * bodies); otherwise they are renumbered in order of first use (a hash of
 * the ids, O(n) a solve), so t never needs more than 2 n blocks.  Either
 * way the sums of K^T x are the same, in the same order.
 *
 * Everything lives in the workspace's slv_op_buf, allocated once by
 * slv_workspace_new (slv_op_buf_alloc); building the operator
 * (slv_op_begin) and packing never allocate.  The problem is only read.
 */
#ifndef SLV_OPERATOR_H
#define SLV_OPERATOR_H

#include "slv.h"

#include <stddef.h>

enum {
  SLV_OP_PACK_MIN_N = 64 /* a dense A is packed from this size on */
};
#define SLV_OP_PACK_MAX ((size_t)1 << 22) /* packed entries at most (48 MB) */

/* The factored form A = J K^T + diag(d) over nb blocks; row i's slots are
 * on blocks blk[2i], blk[2i+1] (-1: unused) with J, K at 12 i (slv.h). */
typedef struct slv_fac {
  int n, nb;
  const int *blk;
  const double *J, *K, *d; /* d may be NULL (0) */
} slv_fac;

/* The operator's buffers, owned by the workspace. */
typedef struct slv_op_buf {
  int n_max;
  size_t cap;           /* packed entries */
  int *colptr, *rowind; /* n_max + 1, cap */
  double *val;          /* cap */
  int *scratch;         /* n_max: packing scratch */
  int nb_cap;           /* blocks t holds: 2 n_max (at least 1) */
  double *t;            /* 6 nb_cap: K^T x */
  double *tres;         /* 6 nb_cap: the residual's own K^T x (slv_residual_op without w) */
  int *blk;             /* 2 n_max: renumbered blocks of the slots */
  int *hkey, *hval;     /* hcap: block id -> renumbered block (open addressing) */
  int hcap;             /* a power of two >= 4 n_max */
  double *rowsize;      /* n_max: slv_op_rowscale's row sizes */
  /* n_max: A_ii of diag_of's rows, left by slv_solve's validation when it
   * found every A_ii > 0 on its pass (slv_problem_validate_pos; then
   * diag_of is the problem, else NULL): slv_op_begin of that problem
   * makes them op->aii, so the solve does not form them again */
  double *diag;
  const slv_problem *diag_of;
  /* n_max each: the last w = A x + b of the explicit product (dense or
   * CSR storage) and its x (slv_op_w; op->wx_of says for which problem) */
  double *wx_x, *wx_w;
} slv_op_buf;

enum { SLV_OP_UNPACKED = 0, SLV_OP_COLS = 1, SLV_OP_BLOCKS = 2, SLV_OP_BLOCK_ROWS = 3 };

/* What of the convergence measure depends on the problem only, found once
 * per solve instead of at every sweep (slv_op_rowscale; residual.c): a[i] =
 * |A_ii|, or the row's 1-norm where A_ii = 0, and xd, the largest impulse a
 * row or cone takes alone from 0 (slv_xscale). */
typedef struct {
  const double *a;
  double xd;
  double xf; /* the physical floor of the solve (slv_workspace_set_floor), 0: none; kept
                when a and xd are found again */
} slv_rowscale;

typedef struct slv_op {
  const slv_problem *p;
  int n;
  /* dense storage: A and its leading dimension (else A = NULL) */
  const double *A;
  size_t lda;
  /* CSR storage: the rows (else Ap = NULL) */
  const int *Ap, *Aj;
  const double *Ax;
  /* the packed copy: SLV_OP_COLS or SLV_OP_BLOCKS (slv_op_pack), or
   * SLV_OP_BLOCK_ROWS (slv_op_pack_rows; colptr then points to block rows,
   * rowind holds block columns), else 0 */
  int packed, pack_tried;
  const int *colptr, *rowind;
  const double *val;
  /* factored storage (fac = 1): the factors and t = K^T x (6 f.nb) */
  int fac;
  slv_fac f;
  double *t;
  /* A_ii of every row (slv_fac_diag's bits) when slv_solve's validation
   * formed them (slv_op_buf's diag; slv_op_begin), else NULL */
  const double *aii;
  slv_op_buf *buf;
  int threads; /* opt.threads for the CSR product (slv_solve sets it; 1 after slv_op_begin) */
  struct slv_poll *poll; /* the solve's stop conditions (slv_should_stop); NULL: none */
  int condensed;         /* the caller's problem is condensed from a global one, solved here on its
                    local view (p->condensed = 0; workspace.c): for auto's rules */
  /* a condensed problem's tightened run (workspace.c, global_solve): the
   * caller's problem (with the global clause) and options, whose test a
   * solver may take at its checkpoints to end before its own tighter tol
   * (slv_caller_met); NULL otherwise */
  const slv_problem *caller_p;
  const slv_options *caller_opt;
  /* slv_op_is_symmetric's answer for this solve: sym 0 not asked yet, 1
   * symmetric, -1 not (A(sym_i, sym_j) the pair found), at sym_rtol */
  int sym, sym_i, sym_j;
  double sym_rtol;
  /* the problem whose w = A x + b the buffers' wx_w holds for wx_x,
   * NULL: none this solve.  A product asked again for the same x (bit for
   * bit: a solver's final w, then slv_solve's for the verdict) is that
   * copy, the same bits as computing it again, not a second pass over A */
  const slv_problem *wx_of;
  /* slv_solve's first pass over a dense A (scan.c), NULL: none; its
   * maxima answer slv_op_is_symmetric at any rtol */
  const struct slv_scan *scan;
  /* the convergence measure's row sizes and xd for rs_of (slv_op_rowscale) */
  slv_rowscale rs;
  const slv_problem *rs_of;
  /* slv_solve_paused's pauses (slv_pause_due), NULL: none */
  const slv_pauses *pauses;
  /* Set by a factored solver as it returns (slv_solve clears it before
   * the call): t holds K^T x of the x it returns, with slv_op_ktx's bits
   * (pgs_wide after an exact check that x has not moved since), so
   * slv_solve's w = A x + b forms only the rows (slv_op_w_rows). */
  int t_current;
} slv_op;

/* 1 iff a Gauss-Seidel solver pauses after sweep it of max_iter
 * (slv_solve_paused): a multiple of every, at most count of them, not the
 * last sweep. */
static inline int slv_pause_due(const slv_op *op, int it, int max_iter) {
  const slv_pauses *pz = op->pauses;
  return pz && it < max_iter && it % pz->every == 0 && it / pz->every <= pz->count;
}

/* Allocate the buffers for problems of up to n_max rows (SLV_OK or
 * SLV_ERR_NOMEM); free accepts a zeroed or partially allocated buffer. */
slv_status slv_op_buf_alloc(slv_op_buf *b, int n_max);
void slv_op_buf_free(slv_op_buf *b);

/* The row sizes and xd of op->p (slv_rowscale), in b's rowsize: found at
 * the first call of a solve, and again when op->p is another problem (ipm's
 * QPs, whose b moves); O(n) sweeps' measures read them (slv_natmap_of). */
const slv_rowscale *slv_op_rowscale(slv_op *op);
/* The same from a solver that has formed them (pgs_wide: A_ii for its step,
 * which are the row sizes where A_ii > 0): the row sizes in
 * slv_op_rowsize_buf(op) (n doubles), then xd. */
double *slv_op_rowsize_buf(slv_op *op);
void slv_op_rowscale_set(slv_op *op, double xd);
/* Or with row sizes held elsewhere for the rest of the solve (n doubles:
 * op->aii, the row sizes where every A_ii > 0). */
void slv_op_rowscale_use(slv_op *op, const double *a, double xd);

/* The operator of p (validated, n <= b->n_max) over b's buffers: the
 * views, and the factored blocks (renumbered if they do not fit).  No
 * packing yet. */
void slv_op_begin(slv_op *op, const slv_problem *p, slv_op_buf *b);

/* Form the packed copy (see the header) if A is worth packing and fits;
 * returns op->packed.  Only the first call of a solve does the work. */
int slv_op_pack(slv_op *op);

/* The packed copy by block rows (a pure contact problem; others get
 * slv_op_pack's columns); returns op->packed.  For a solver that reads A
 * only through slv_op_matvec (and the diagonal, slv_op_w): the column
 * primitives (slv_op_col_axpy, slv_op_col3_axpy) need the columns. */
int slv_op_pack_rows(slv_op *op);

/* Whether A is symmetric: slv_is_symmetric's test (|A_ij - A_ji| <= rtol
 * max |A_kl|; *ii, *jj an offending pair when not), by the packed copy's
 * nonzeros when slv_op_pack formed one (O(nnz log) against a pass over a
 * dense n^2 array), else by the storage.  The answer is kept for the
 * rest of the solve, so auto and the solver it picks test A once. */
int slv_op_is_symmetric(slv_op *op, double rtol, int *ii, int *jj);

/* Stored entries of A as the products see them: the packed copy's, n^2
 * for a dense A, CSR's, or the factored rows' 24 per row. */
double slv_op_nnz(const slv_op *op);

/* ---- the factored kernels (factored.c) ------------------------------------ */

/* The factored form of p with its own block ids. */
slv_fac slv_fac_of(const slv_problem *p);

/* t[6 (b - B0) ..] = (K^T x) of the blocks b in [B0, B1), t of size
 * 6 (B1 - B0).  Consecutive rows on one block pair are summed in
 * registers first and added once per run. */
void slv_fac_ktx(const slv_fac *f, const double *x, double *t, int B0, int B1);
/* t = K^T x of all f->nb blocks, the blocks cut into `threads` ranges, each
 * thread a slv_fac_ktx of its range (a pass over the rows that reads K only
 * for the runs on its blocks): every block's sum in row order, so the same
 * bits as slv_fac_ktx for every thread count. */
void slv_fac_ktx_threads(const slv_fac *f, const double *x, double *t, int threads);

/* w = A x + b (b NULL: A x) with t (tcap blocks) as scratch: in one pass
 * when f->nb <= tcap, else a slice of tcap blocks at a time (the same
 * sums, each slice a pass over the rows).  _rows: rows [i0, i1) only, into
 * w[0 .. i1 - i0). */
void slv_fac_w(const slv_fac *f, const double *x, const double *b, double *w, double *t, int tcap);
/* slv_fac_w with t holding all f->nb blocks: t = K^T x
 * (slv_fac_ktx_threads), then the rows on up to `threads` threads (each row alone: the same bits as
 * slv_fac_w for every thread count). */
void slv_fac_w_threads(const slv_fac *f, const double *x, const double *b, double *w, double *t,
                       int threads);
/* Its rows alone, t = K^T x given. */
void slv_fac_rows_threads(const slv_fac *f, const double *x, const double *b, double *w,
                          const double *t, int threads);
void slv_fac_w_rows(const slv_fac *f, const double *x, const double *b, int i0, int i1, double *w,
                    double *t, int tcap);

/* (A x)_i = J_i . t + d_i x_i given t = K^T x.  The sums are pairwise: in
 * a sweep this dot product is on the dependency chain from one row to the
 * next, and a tree of additions shortens it (-O2 does not reassociate a
 * serial sum). */
static inline double slv_dot6(const double *a, const double *b) {
  return ((a[0] * b[0] + a[1] * b[1]) + (a[2] * b[2] + a[3] * b[3])) + (a[4] * b[4] + a[5] * b[5]);
}
/* J_i . t over the live slots, slot 0's six products plus slot 1's. */
static inline double slv_fac_dots(const slv_fac *f, int i, const double *t) {
  const double *J = f->J + 12 * (size_t)i;
  int b0 = f->blk[2 * i], b1 = f->blk[2 * i + 1];
  double s0 = b0 >= 0 ? slv_dot6(J, t + 6 * (size_t)b0) : 0.0;
  double s1 = b1 >= 0 ? slv_dot6(J + 6, t + 6 * (size_t)b1) : 0.0;
  return s0 + s1;
}
static inline double slv_fac_row(const slv_fac *f, int i, const double *t, double xi) {
  return (f->d ? f->d[i] * xi : 0.0) + slv_fac_dots(f, i, t);
}
/* A(i,i) = d_i + sum over the live slots of J . K (the two slots are
 * different blocks, validated), summed pairwise as slv_fac_row (a serial
 * sum of 12 products was a chain of 12 dependent additions per row). */
static inline double slv_fac_diag(const slv_fac *f, int i) {
  const double *J = f->J + 12 * (size_t)i, *K = f->K + 12 * (size_t)i;
  double s0 = f->blk[2 * i] >= 0 ? slv_dot6(J, K) : 0.0;
  double s1 = f->blk[2 * i + 1] >= 0 ? slv_dot6(J + 6, K + 6) : 0.0;
  return (f->d ? f->d[i] : 0.0) + (s0 + s1);
}

/* op->t = K^T x. */
static inline void slv_op_ktx(slv_op *op, const double *x) {
  slv_fac_ktx(&op->f, x, op->t, 0, op->f.nb);
}

/* ---- the primitives --------------------------------------------------------- */

double slv_op_diag(const slv_op *op, int i);
/* A(i,j) (a search of row i for CSR; the matching slots for factored). */
double slv_op_entry(const slv_op *op, int i, int j);

/* The diagonal metric D of a cone problem (docs/cone-solvers.md,
 * "Scaling"): A_ii on a row outside the cones and on the rows of a mu = 0
 * cone, the mean of the three diagonal entries on a cone with mu > 0 (d_c I
 * keeps the Euclidean projection on K_mu the projection in the metric); a
 * row whose entry is not positive and finite takes the mean of the positive
 * ones (1 if none), so D scales with A.  dg: size op->n. */
void slv_op_metric(const slv_op *op, double *dg);

/* A(i,:) x: dense (strided), CSR (one row), factored (reads op->t, which
 * must hold K^T x). */
static inline double slv_op_row_dot(const slv_op *op, int i, const double *x) {
  double s = 0;
  if (op->fac) return slv_fac_row(&op->f, i, op->t, x[i]);
  if (op->A) {
    const double *a = op->A + i;
    for (int j = 0; j < op->n; j++) s += a[(size_t)j * op->lda] * x[j];
    return s;
  }
  for (int k = op->Ap[i]; k < op->Ap[i + 1]; k++) s += op->Ax[k] * x[op->Aj[k]];
  return s;
}

/* y += a A(:,j) over the dense column (BLAS daxpy). */
void slv_op_dense_axpy(const slv_op *op, int j, double a, double *y);

/* y += a A(:,j): over the packed copy if formed (scalar columns, or column
 * j of a block column), else the dense column (BLAS daxpy).  Needs the
 * packed columns (slv_op_pack) or dense storage. */
static inline void slv_op_col_axpy(const slv_op *op, int j, double a, double *y) {
  if (op->packed == SLV_OP_COLS) {
    const int *ri = op->rowind;
    const double *v = op->val;
    for (int k = op->colptr[j]; k < op->colptr[j + 1]; k++) y[ri[k]] += a * v[k];
  } else if (op->packed == SLV_OP_BLOCKS) {
    int J = j / 3, c = j - 3 * J;
    for (int k = op->colptr[J]; k < op->colptr[J + 1]; k++) {
      const double *B = op->val + 9 * (size_t)k + 3 * c;
      double *yi = y + 3 * (size_t)op->rowind[k];
      yi[0] += a * B[0];
      yi[1] += a * B[1];
      yi[2] += a * B[2];
    }
  } else {
    slv_op_dense_axpy(op, j, a, y);
  }
}

/* y += A(:, j..j+2) d (a cone's three columns, j = its first row).  Needs
 * the packed columns (slv_op_pack) or dense storage. */
void slv_op_col3_axpy(const slv_op *op, int j, const double d[3], double *y);

/* y = A x + b (b NULL: y = A x), by the packed copy when formed (O(nnz);
 * by columns: columns with x_j = 0 skipped; by block rows: on op->threads
 * threads for large A), else as slv_op_w.  A solver's own
 * products; y must not alias x. */
void slv_op_matvec(slv_op *op, const double *x, const double *b, double *y);

/* w = A x + b exactly as slv_solve recomputes it before judging a solve
 * (dense: dgemv; CSR: the rows; factored: K^T x into op->t, then the
 * rows), so that a solver confirming convergence on it agrees with the
 * library bit for bit.  Leaves op->t = K^T x (factored). */
void slv_op_w(slv_op *op, const double *x, double *w);
/* The same where op->t_current says t holds K^T x of x already (factored
 * storage): the rows alone, the same bits; else slv_op_w. */
void slv_op_w_rows(slv_op *op, const double *x, double *w);

/* W = A(i..i+2, i..i+2), column-major (CSR: by a search of the rows). */
void slv_op_block3(const slv_op *op, int i, double W[9]);

/* A(:,j) as a dense vector: a pointer into A itself (dense storage), else
 * y (size n) filled from the packed copy or the CSR rows (a pass over
 * every row when not packed).  Not for factored storage. */
const double *slv_op_col(const slv_op *op, int j, double *y);

/* F = A (n x n, leading dimension ldf >= n): dense or CSR. */
void slv_op_to_dense(const slv_op *op, double *F, int ldf);

#endif /* SLV_OPERATOR_H */
