/* linsys.c -- dense LAPACK, CHOLMOD, UMFPACK and KLU behind one interface
 * (linsys.h; docs/solver-machinery.md, "Linear systems").
 *
 * The CSR pattern of A read as compressed columns is the pattern of A'.
 * For the SPD back ends (A = A') that is A itself, of which CHOLMOD reads
 * the upper triangle (the CSR lower one) and LAPACK's 'L' factor the lower
 * one of the scattered array (the same entries); the LU back ends factor
 * A' and solve with the transpose (UMFPACK_At, klu_tsolve), which is A.
 * The dense back end scatters the entries into a column-major n x n array,
 * or the caller writes that array itself (a dense-input system).  The
 * pattern always holds the diagonal (the shift goes there); a pattern whose
 * rows are sorted and hold their diagonal is kept as given, its values
 * copied (or read in place by CHOLMOD) instead of scattered.  CHOLMOD
 * chooses its own supernodal LL' or simplicial LDL'; an LDL' with a pivot
 * D_jj <= 0 is refused as not positive definite.  An empty system (n = 0)
 * calls no back end.  All allocation happens in analyse, factor and
 * reserve (CHOLMOD's solve workspace by one solve of a zero right-hand side
 * after the first factor), so solve allocates nothing.  LAPACK's _work
 * entry points are used, which do not allocate either.
 */
#include "linsys.h"

#include "chol.h"

#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <suitesparse/klu.h>
#include <suitesparse/umfpack.h>

struct slv_linsys {
  slv_ls_kind kind;
  slv_ls_backend backend;
  int n, nnz, nin; /* nnz: the merged pattern's entries; nin: the caller's */
  int *Ap, *Aj;    /* the pattern, columns sorted, duplicates merged */
  int *map;        /* nin: the caller's entry k adds to Ax[map[k]] */
  int same;        /* the caller's pattern is kept as given: no map */
  int *dpos;       /* n: row i's diagonal entry is Ax[dpos[i]] (always stored) */
  double *Ax;      /* the values (copy; CHOLMOD, UMFPACK, KLU read them in place) */
  int factored, failed_col;
  int n_cap;        /* a dense-input system: the largest n (slv_linsys_dense_reserve) */
  double pivot_min; /* the dense factor's smallest pivot (NaN: not known) */
  int pivot_at;     /* and its row (-1) */
  double lu_flops;  /* UMFPACK's estimate of one LU's flops (NaN: not UMFPACK) */
  /* dense */
  double *F;
  lapack_int *ipiv;
  /* CHOLMOD */
  cholmod_common cm;
  int cm_started;
  cholmod_sparse As;
  cholmod_factor *L;
  cholmod_dense *X, *Y, *E;
  /* UMFPACK */
  void *symbolic, *numeric;
  double control[UMFPACK_CONTROL];
  int *Wi;
  double *W, *xin; /* xin: UMFPACK's right-hand side; CHOLMOD's zero */
  /* KLU */
  klu_common kc;
  klu_symbolic *ksym;
  klu_numeric *knum;
};

/* The one rule (docs/solver-machinery.md, "Linear systems"). */
slv_ls_backend slv_linsys_choose(slv_ls_kind kind, int n, int sparse_form) {
  if (!sparse_form || n <= SLV_LS_DENSE_MAX) return SLV_LS_DENSE;
  return kind == SLV_LS_SPD ? SLV_LS_CHOLMOD : SLV_LS_UMFPACK;
}

static slv_ls_backend choose_backend(slv_ls_kind kind, slv_ls_backend be, int n) {
  return be != SLV_LS_AUTO ? be : slv_linsys_choose(kind, n, 1);
}

static int backend_takes(slv_ls_backend be, slv_ls_kind kind) {
  if (be == SLV_LS_CHOLMOD) return kind == SLV_LS_SPD;
  if (be == SLV_LS_UMFPACK || be == SLV_LS_KLU) return kind == SLV_LS_GENERAL;
  return be == SLV_LS_DENSE;
}

typedef struct col_entry {
  int col, k;
} col_entry;

static int by_column(const void *a, const void *b) {
  const col_entry *x = a, *y = b;
  return x->col != y->col ? (x->col > y->col) - (x->col < y->col) : (x->k > y->k) - (x->k < y->k);
}

/* Row i's entries into e, by column, with its diagonal as an extra entry
 * (k = -1) before any stored one: in one pass when the row's columns are
 * increasing (a packed copy's are), else sorted.  Returns their count. */
static int row_entries(const int *Ap, const int *Aj, int i, col_entry *e) {
  int m = 0, sorted = 1, diag = 0;
  for (int k = Ap[i]; k < Ap[i + 1]; k++) {
    if (k > Ap[i] && Aj[k] <= Aj[k - 1]) sorted = 0;
    if (!diag && Aj[k] >= i) {
      e[m++] = (col_entry){ i, -1 };
      diag = 1;
    }
    e[m++] = (col_entry){ Aj[k], k };
  }
  if (!diag) e[m++] = (col_entry){ i, -1 };
  if (!sorted) qsort(e, (size_t)m, sizeof *e, by_column);
  return m;
}

/* The pattern with each row's columns sorted and duplicates merged (UMFPACK
 * and KLU need that), and map[k]: where input entry k adds its value. */
static slv_ls_status pattern_alloc(slv_linsys *ls, const int *Ap, const int *Aj, int nin) {
  int n = ls->n;
  size_t cap = (size_t)nin + (size_t)n + 1; /* a diagonal entry may be added per row */
  col_entry *e = malloc(cap * sizeof *e);
  ls->Ap = malloc(((size_t)n + 1) * sizeof(int));
  ls->Aj = malloc(cap * sizeof(int));
  ls->map = malloc(((size_t)nin + 1) * sizeof(int));
  ls->Ax = calloc(cap, sizeof(double));
  if (!e || !ls->Ap || !ls->Aj || !ls->map || !ls->dpos || !ls->Ax) {
    free(e);
    return SLV_LS_NOMEM;
  }
  int q = 0;
  ls->Ap[0] = 0;
  for (int i = 0; i < n; i++) {
    int m = row_entries(Ap, Aj, i, e);
    for (int t = 0; t < m; t++) {
      if (t == 0 || e[t].col != e[t - 1].col) ls->Aj[q++] = e[t].col;
      if (e[t].k >= 0) ls->map[e[t].k] = q - 1;
      if (e[t].col == i) ls->dpos[i] = q - 1;
    }
    ls->Ap[i + 1] = q;
  }
  ls->nnz = q;
  ls->nin = nin;
  free(e);
  return SLV_LS_OK;
}

/* 1 when every row's columns increase and include the diagonal (dpos[i]
 * then its position). */
static int pattern_is_canonical(int n, const int *Ap, const int *Aj, int *dpos) {
  for (int i = 0; i < n; i++) {
    dpos[i] = -1;
    for (int k = Ap[i]; k < Ap[i + 1]; k++) {
      if (k > Ap[i] && Aj[k] <= Aj[k - 1]) return 0;
      if (Aj[k] == i) dpos[i] = k;
    }
    if (dpos[i] < 0) return 0;
  }
  return 1;
}

/* For a pattern said to be sorted: every row's columns in range (its first
 * and last suffice) and its diagonal found by bisection; 0 when one is
 * missing. */
static int sorted_has_diagonal(int n, const int *Ap, const int *Aj, int *dpos) {
  for (int i = 0; i < n; i++) {
    int lo = Ap[i], hi = Ap[i + 1] - 1;
    if (lo > hi || Aj[lo] < 0 || Aj[hi] >= n) return 0;
    while (lo < hi) {
      int mid = lo + (hi - lo) / 2;
      if (Aj[mid] < i)
        lo = mid + 1;
      else
        hi = mid;
    }
    if (Aj[lo] != i) return 0;
    dpos[i] = lo;
  }
  return 1;
}

/* The pattern kept as given when its rows' columns increase and include
 * the diagonal (ls->same: factor then reads or copies the values instead
 * of scattering them); else 1.  sorted: the caller says the columns do not
 * decrease (a packed copy of A), so only the diagonal is looked for; a
 * duplicate then reaches the back end as given (linsys.h). */
static int same_pattern_alloc(slv_linsys *ls, const int *Ap, const int *Aj, int sorted) {
  int n = ls->n, nnz = Ap[n];
  ls->dpos = malloc(((size_t)n + 1) * sizeof(int));
  if (!ls->dpos) return SLV_LS_NOMEM;
  if (sorted ? !sorted_has_diagonal(n, Ap, Aj, ls->dpos)
             : !pattern_is_canonical(n, Ap, Aj, ls->dpos))
    return 1;
  ls->Ap = malloc(((size_t)n + 1) * sizeof(int));
  ls->Aj = malloc(((size_t)nnz + 1) * sizeof(int));
  ls->Ax = calloc((size_t)nnz + 1, sizeof(double));
  if (!ls->Ap || !ls->Aj || !ls->Ax) return SLV_LS_NOMEM;
  memcpy(ls->Ap, Ap, ((size_t)n + 1) * sizeof(int));
  memcpy(ls->Aj, Aj, (size_t)nnz * sizeof(int));
  ls->nnz = ls->nin = nnz;
  ls->same = 1;
  return SLV_LS_OK;
}

static int indices_in_range(int n, const int *Ap, const int *Aj) {
  for (int k = 0; k < Ap[n]; k++)
    if (Aj[k] < 0 || Aj[k] >= n) return 0;
  return 1;
}

static slv_ls_status copy_pattern(slv_linsys *ls, const int *Ap, const int *Aj, int sorted) {
  int n = ls->n;
  if (Ap[0] != 0 || Ap[n] < 0) return SLV_LS_BAD_INPUT;
  for (int i = 0; i < n; i++)
    if (Ap[i + 1] < Ap[i]) return SLV_LS_BAD_INPUT;
  if (!sorted && !indices_in_range(n, Ap, Aj)) return SLV_LS_BAD_INPUT;
  int st = same_pattern_alloc(ls, Ap, Aj, sorted);
  if (st != 1) return (slv_ls_status)st;
  if (sorted && !indices_in_range(n, Ap, Aj)) return SLV_LS_BAD_INPUT;
  return pattern_alloc(ls, Ap, Aj, Ap[n]);
}

/* ---- analysis --------------------------------------------------------------------- */

static slv_ls_status dense_alloc(slv_linsys *ls) {
  size_t n = (size_t)ls->n;
  ls->F = malloc((n > 0 ? n * n : 1) * sizeof(double));
  if (ls->kind == SLV_LS_GENERAL) ls->ipiv = malloc((n ? n : 1) * sizeof(lapack_int));
  return ls->F && (ls->kind == SLV_LS_SPD || ls->ipiv) ? SLV_LS_OK : SLV_LS_NOMEM;
}

static slv_ls_status cholmod_alloc(slv_linsys *ls) {
  cholmod_start(&ls->cm);
  ls->cm_started = 1;
  ls->cm.print = 0; /* the library never prints */
  /* CHOLMOD's own choice of a supernodal LL' or a simplicial LDL' (what
   * admm and ipm used before they moved here); an LDL' whose D is not
   * positive is refused after the factor (factor_cholmod) */
  ls->As =
      (cholmod_sparse){ .nrow = (size_t)ls->n,
                        .ncol = (size_t)ls->n,
                        .nzmax = (size_t)ls->nnz,
                        .p = ls->Ap,
                        .i = ls->Aj,
                        .x = ls->Ax,
                        .stype =
                            1, /* the upper triangle of what CHOLMOD reads: the CSR lower one */
                        .itype = CHOLMOD_INT,
                        .xtype = CHOLMOD_REAL,
                        .dtype = CHOLMOD_DOUBLE,
                        .sorted = 0,
                        .packed = 1 };
  ls->L = slv_chol_analyze(&ls->As, &ls->cm);
  ls->xin = calloc((size_t)ls->n + 1, sizeof(double)); /* the zero of factor_cholmod */
  return ls->L && ls->xin ? SLV_LS_OK : SLV_LS_NOMEM;
}

static slv_ls_status umfpack_alloc(slv_linsys *ls) {
  size_t n = (size_t)ls->n + 1;
  umfpack_di_defaults(ls->control);
  ls->Wi = malloc(n * sizeof(int));
  ls->W = malloc(5 * n * sizeof(double));
  ls->xin = malloc(n * sizeof(double));
  if (!ls->Wi || !ls->W || !ls->xin) return SLV_LS_NOMEM;
  double info[UMFPACK_INFO];
  int st =
      umfpack_di_symbolic(ls->n, ls->n, ls->Ap, ls->Aj, NULL, &ls->symbolic, ls->control, info);
  ls->lu_flops = st == UMFPACK_OK ? info[UMFPACK_FLOPS_ESTIMATE] : NAN;
  return st == UMFPACK_OK                    ? SLV_LS_OK
         : st == UMFPACK_ERROR_out_of_memory ? SLV_LS_NOMEM
                                             : SLV_LS_BAD_INPUT;
}

static slv_ls_status analyse_klu(slv_linsys *ls) {
  klu_defaults(&ls->kc);
  ls->kc.halt_if_singular = 1;
  ls->ksym = klu_analyze(ls->n, ls->Ap, ls->Aj, &ls->kc);
  return ls->ksym ? SLV_LS_OK : SLV_LS_NOMEM;
}

static slv_linsys *linsys_alloc(void) { return calloc(1, sizeof(slv_linsys)); }

static slv_linsys *analyse(slv_ls_kind kind, slv_ls_backend backend, int n, const int *Ap,
                           const int *Aj, int sorted, slv_ls_status *status) {
  slv_ls_backend be = choose_backend(kind, backend, n);
  *status = SLV_LS_BAD_INPUT;
  if (n < 0 || !Ap || (n > 0 && !Aj) || !backend_takes(be, kind)) return NULL;
  slv_linsys *ls = linsys_alloc();
  *status = SLV_LS_NOMEM;
  if (!ls) return NULL;
  ls->kind = kind;
  ls->backend = be;
  ls->n = n;
  ls->failed_col = -1;
  ls->pivot_min = NAN;
  ls->lu_flops = NAN;
  slv_ls_status st = copy_pattern(ls, Ap, Aj, sorted);
  if (!st && n > 0) {
    if (be == SLV_LS_DENSE)
      st = dense_alloc(ls);
    else if (be == SLV_LS_CHOLMOD)
      st = cholmod_alloc(ls);
    else if (be == SLV_LS_UMFPACK)
      st = umfpack_alloc(ls);
    else
      st = analyse_klu(ls);
  }
  *status = st;
  if (st) {
    slv_linsys_free(ls);
    return NULL;
  }
  return ls;
}

slv_linsys *slv_linsys_analyse(slv_ls_kind kind, slv_ls_backend backend, int n, const int *Ap,
                               const int *Aj, slv_ls_status *status) {
  return analyse(kind, backend, n, Ap, Aj, 0, status);
}

slv_linsys *slv_linsys_analyse_sorted(slv_ls_kind kind, slv_ls_backend backend, int n,
                                      const int *Ap, const int *Aj, slv_ls_status *status) {
  return analyse(kind, backend, n, Ap, Aj, 1, status);
}

/* ---- factoring -------------------------------------------------------------------- */

/* The smallest pivot of the dense factor in F, L_ii^2 (Cholesky) or |U_ii|
 * (LU), into ls->pivot_min and its row into ls->pivot_at. */
static void dense_pivot_min(slv_linsys *ls) {
  size_t n = (size_t)ls->n;
  ls->pivot_min = INFINITY;
  ls->pivot_at = -1;
  for (size_t i = 0; i < n; i++) {
    double d = ls->F[i + i * n], p = ls->kind == SLV_LS_SPD ? d * d : fabs(d);
    if (p < ls->pivot_min) {
      ls->pivot_min = p;
      ls->pivot_at = (int)i;
    }
  }
}

/* After a dense factor: its pivots are known when it completed (an LU
 * completes on a singular matrix too; a Cholesky stops at the failure). */
static void dense_pivots_after(slv_linsys *ls, slv_ls_status st) {
  ls->pivot_min = NAN;
  ls->pivot_at = -1;
  if (ls->n > 0 && (st == SLV_LS_OK || st == SLV_LS_SINGULAR)) dense_pivot_min(ls);
}

/* LAPACK's factor of the n x n matrix in F (ld n), in place. */
static slv_ls_status factor_dense_in_place(slv_linsys *ls) {
  lapack_int info;
  if (ls->n == 0) return SLV_LS_OK;
  if (ls->kind == SLV_LS_SPD) {
    info = LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', ls->n, ls->F, ls->n);
    if (info > 0) ls->failed_col = (int)info - 1;
    return info == 0 ? SLV_LS_OK : info > 0 ? SLV_LS_NOT_SPD : SLV_LS_BAD_INPUT;
  }
  info = LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, ls->n, ls->n, ls->F, ls->n, ls->ipiv);
  if (info > 0) ls->failed_col = (int)info - 1;
  return info == 0 ? SLV_LS_OK : info > 0 ? SLV_LS_SINGULAR : SLV_LS_BAD_INPUT;
}

/* The CSR values scattered into F (the shift is in Ax's diagonal), then
 * factored. */
static slv_ls_status factor_dense(slv_linsys *ls) {
  size_t n = (size_t)ls->n;
  memset(ls->F, 0, n * n * sizeof(double));
  for (size_t i = 0; i < n; i++)
    for (int k = ls->Ap[i]; k < ls->Ap[i + 1]; k++) ls->F[i + n * (size_t)ls->Aj[k]] += ls->Ax[k];
  return factor_dense_in_place(ls);
}

/* The first column whose pivot D_jj of a simplicial LDL' is not positive
 * (an indefinite matrix, which LDL' factors without complaint), or -1;
 * D_jj is the first entry of column j of L. */
static int ldl_not_positive(const cholmod_factor *L) {
  if (L->is_super || L->is_ll) return -1;
  const int *Lp = L->p;
  const double *Lx = L->x;
  for (size_t j = 0; j < L->n; j++)
    if (!(Lx[Lp[j]] > 0)) return (int)j;
  return -1;
}

static slv_ls_status factor_cholmod(slv_linsys *ls, double shift) {
  if (!slv_chol_factorize(&ls->As, shift, ls->L, &ls->cm)) return SLV_LS_NOMEM;
  if (ls->cm.status == CHOLMOD_NOT_POSDEF || ls->L->minor < (size_t)ls->n) {
    ls->failed_col = (int)ls->L->minor;
    return SLV_LS_NOT_SPD;
  }
  int bad = ldl_not_positive(ls->L);
  if (bad >= 0) {
    ls->failed_col = bad;
    return SLV_LS_NOT_SPD;
  }
  if (ls->cm.status < CHOLMOD_OK) return SLV_LS_NOMEM;
  /* one solve after the first factor, so that cholmod_solve2's workspace
   * exists before slv_linsys_solve (which then allocates nothing; a new
   * factor on the same pattern keeps the workspace's sizes) */
  if (ls->X) return SLV_LS_OK;
  memset(ls->xin, 0, (size_t)ls->n * sizeof(double));
  return slv_chol_solve(ls->L, ls->n, ls->xin, &ls->X, &ls->Y, &ls->E, &ls->cm) ? SLV_LS_NOMEM
                                                                                : SLV_LS_OK;
}

static slv_ls_status factor_umfpack(slv_linsys *ls) {
  if (ls->numeric) umfpack_di_free_numeric(&ls->numeric);
  int st =
      umfpack_di_numeric(ls->Ap, ls->Aj, ls->Ax, ls->symbolic, &ls->numeric, ls->control, NULL);
  if (st == UMFPACK_OK) return SLV_LS_OK;
  if (st == UMFPACK_WARNING_singular_matrix) return SLV_LS_SINGULAR;
  return st == UMFPACK_ERROR_out_of_memory ? SLV_LS_NOMEM : SLV_LS_BAD_INPUT;
}

/* KLU's refactorization in the pivot order of its last factor (no
 * allocation, no pivot search), kept when the refactored U's crude
 * reciprocal condition min |U_ii| / max |U_ii| (klu_rcond) is above
 * SLV_LS_KLU_RCOND: 1, else 0 (the numeric object then dropped). */
static int refactor_klu(slv_linsys *ls, const double *Ax) {
  if (!ls->knum) return 0;
  if (klu_refactor(ls->Ap, ls->Aj, (double *)Ax, ls->ksym, ls->knum, &ls->kc) &&
      klu_rcond(ls->ksym, ls->knum, &ls->kc) && ls->kc.rcond > SLV_LS_KLU_RCOND)
    return 1;
  klu_free_numeric(&ls->knum, &ls->kc);
  return 0;
}

/* A refactorization when it holds (above), else a factor with its own
 * pivot search. */
static slv_ls_status factor_klu(slv_linsys *ls, const double *Ax) {
  if (refactor_klu(ls, Ax)) return SLV_LS_OK;
  ls->knum = klu_factor(ls->Ap, ls->Aj, (double *)Ax, ls->ksym, &ls->kc);
  if (ls->kc.status == KLU_SINGULAR) {
    ls->failed_col = ls->kc.numerical_rank >= 0 ? ls->kc.numerical_rank : -1;
    return SLV_LS_SINGULAR;
  }
  if (!ls->knum) return ls->kc.status == KLU_OUT_OF_MEMORY ? SLV_LS_NOMEM : SLV_LS_BAD_INPUT;
  return SLV_LS_OK;
}

/* The values to factor: the caller's Ax itself for a kept pattern that
 * CHOLMOD or KLU reads (their factors keep no pointer to A; CHOLMOD adds
 * the shift itself), else ls->Ax: copied or scattered, plus the shift on
 * the diagonal. */
static const double *load_values(slv_linsys *ls, const double *Ax, double shift) {
  int in_place =
      ls->same && (ls->backend == SLV_LS_CHOLMOD || (ls->backend == SLV_LS_KLU && shift == 0.0));
  ls->As.x = in_place ? (double *)Ax : ls->Ax;
  if (in_place) return Ax;
  if (ls->same) {
    memcpy(ls->Ax, Ax, (size_t)ls->nnz * sizeof(double));
  } else {
    memset(ls->Ax, 0, (size_t)ls->nnz * sizeof(double));
    for (int k = 0; k < ls->nin; k++) ls->Ax[ls->map[k]] += Ax[k];
  }
  if (shift != 0.0 && ls->backend != SLV_LS_CHOLMOD)
    for (int i = 0; i < ls->n; i++) ls->Ax[ls->dpos[i]] += shift;
  return ls->Ax;
}

slv_ls_status slv_linsys_factor_shifted(slv_linsys *ls, const double *Ax, double shift) {
  if (!ls || ls->n_cap > 0 || (!Ax && ls->nin > 0)) return SLV_LS_BAD_INPUT;
  const double *vals = load_values(ls, Ax, shift);
  ls->factored = 0;
  ls->failed_col = -1;
  ls->pivot_min = NAN;
  slv_ls_status st = SLV_LS_OK;
  if (ls->n == 0)
    st = SLV_LS_OK;
  else if (ls->backend == SLV_LS_DENSE)
    st = factor_dense(ls);
  else if (ls->backend == SLV_LS_CHOLMOD)
    st = factor_cholmod(ls, shift);
  else if (ls->backend == SLV_LS_UMFPACK)
    st = factor_umfpack(ls);
  else
    st = factor_klu(ls, vals);
  if (ls->backend == SLV_LS_DENSE) dense_pivots_after(ls, st);
  ls->factored = st == SLV_LS_OK;
  return st;
}

slv_ls_status slv_linsys_factor(slv_linsys *ls, const double *Ax) {
  return slv_linsys_factor_shifted(ls, Ax, 0.0);
}

/* ---- dense-input systems ------------------------------------------------------------- */

slv_ls_status slv_linsys_dense_reserve(slv_linsys **ls, int n_max) {
  if (n_max < 0) return SLV_LS_BAD_INPUT;
  if (*ls && (*ls)->n_cap >= n_max) return SLV_LS_OK;
  slv_linsys_free(*ls);
  *ls = linsys_alloc();
  if (!*ls) return SLV_LS_NOMEM;
  size_t m = (size_t)(n_max > 0 ? n_max : 1);
  (*ls)->backend = SLV_LS_DENSE;
  (*ls)->n_cap = n_max > 0 ? n_max : 1;
  (*ls)->failed_col = -1;
  (*ls)->pivot_min = NAN;
  (*ls)->F = malloc(m * m * sizeof(double));
  (*ls)->ipiv = malloc(m * sizeof(lapack_int));
  if ((*ls)->F && (*ls)->ipiv) return SLV_LS_OK;
  slv_linsys_free(*ls);
  *ls = NULL;
  return SLV_LS_NOMEM;
}

double *slv_linsys_dense_values(slv_linsys *ls, int n) {
  if (!ls || ls->n_cap == 0 || n < 0 || n > ls->n_cap) return NULL;
  ls->n = n;
  ls->factored = 0;
  return ls->F;
}

slv_ls_status slv_linsys_factor_dense(slv_linsys *ls, slv_ls_kind kind, double shift) {
  if (!ls || ls->n_cap == 0) return SLV_LS_BAD_INPUT;
  size_t n = (size_t)ls->n;
  for (size_t i = 0; i < n; i++) ls->F[i + i * n] += shift;
  ls->kind = kind;
  ls->failed_col = -1;
  slv_ls_status st = factor_dense_in_place(ls);
  dense_pivots_after(ls, st);
  ls->factored = st == SLV_LS_OK;
  return st;
}

double slv_linsys_lu_flops(const slv_linsys *ls) { return ls->lu_flops; }

double slv_linsys_pivot_min(const slv_linsys *ls, int *row) {
  if (row) *row = ls->pivot_at;
  return ls->pivot_min;
}

void slv_linsys_set_refinement(slv_linsys *ls, int steps) {
  if (ls && ls->backend == SLV_LS_UMFPACK) ls->control[UMFPACK_IRSTEP] = steps;
}

/* ---- solving ---------------------------------------------------------------------- */

/* X <- A^-1 X (A^-T X when trans) for nrhs columns (leading dimension
 * ldx): one LAPACK call. */
static slv_ls_status dense_solve(slv_linsys *ls, int nrhs, double *X, int ldx, int trans) {
  lapack_int info =
      ls->kind == SLV_LS_SPD
          ? LAPACKE_dpotrs_work(LAPACK_COL_MAJOR, 'L', ls->n, nrhs, ls->F, ls->n, X, ldx)
          : LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, trans ? 'T' : 'N', ls->n, nrhs, ls->F, ls->n,
                                ls->ipiv, X, ldx);
  return info == 0 ? SLV_LS_OK : SLV_LS_BAD_INPUT;
}

/* x <- A^-1 x, or A^-T x when trans (the LU back ends hold the factors of
 * A', so their plain solve is A^-T and their transposed one A^-1). */
static slv_ls_status solve_either(slv_linsys *ls, double *x, int trans) {
  if (!ls || !ls->factored) return SLV_LS_NOT_FACTORED;
  if (ls->n == 0) return SLV_LS_OK;
  switch (ls->backend) {
  case SLV_LS_DENSE: return dense_solve(ls, 1, x, ls->n, trans);
  case SLV_LS_CHOLMOD:
    return slv_chol_solve(ls->L, ls->n, x, &ls->X, &ls->Y, &ls->E, &ls->cm) ? SLV_LS_NOMEM
                                                                            : SLV_LS_OK;
  case SLV_LS_UMFPACK: {
    memcpy(ls->xin, x, (size_t)ls->n * sizeof(double));
    int st = umfpack_di_wsolve(trans ? UMFPACK_A : UMFPACK_At, ls->Ap, ls->Aj, ls->Ax, x, ls->xin,
                               ls->numeric, ls->control, NULL, ls->Wi, ls->W);
    return st == UMFPACK_OK ? SLV_LS_OK : SLV_LS_SINGULAR;
  }
  default: {
    int ok = trans ? klu_solve(ls->ksym, ls->knum, ls->n, 1, x, &ls->kc)
                   : klu_tsolve(ls->ksym, ls->knum, ls->n, 1, x, &ls->kc);
    return ok ? SLV_LS_OK : SLV_LS_SINGULAR;
  }
  }
}

slv_ls_status slv_linsys_solve(slv_linsys *ls, double *x) { return solve_either(ls, x, 0); }

slv_ls_status slv_linsys_solve_transposed(slv_linsys *ls, double *x) {
  return solve_either(ls, x, 1);
}

slv_ls_status slv_linsys_solve_many(slv_linsys *ls, int nrhs, double *X, int ldx) {
  if (!ls || !ls->factored) return SLV_LS_NOT_FACTORED;
  if (nrhs < 0 || ldx < (ls->n > 1 ? ls->n : 1) || (nrhs > 0 && !X)) return SLV_LS_BAD_INPUT;
  if (ls->n == 0 || nrhs == 0) return SLV_LS_OK;
  if (ls->backend == SLV_LS_DENSE) return dense_solve(ls, nrhs, X, ldx, 0);
  slv_ls_status st = SLV_LS_OK;
  for (int c = 0; !st && c < nrhs; c++) st = slv_linsys_solve(ls, X + (size_t)ldx * c);
  return st;
}

void slv_linsys_free(slv_linsys *ls) {
  if (!ls) return;
  if (ls->cm_started) {
    cholmod_free_factor(&ls->L, &ls->cm);
    cholmod_free_dense(&ls->X, &ls->cm);
    cholmod_free_dense(&ls->Y, &ls->cm);
    cholmod_free_dense(&ls->E, &ls->cm);
    cholmod_finish(&ls->cm);
  }
  if (ls->numeric) umfpack_di_free_numeric(&ls->numeric);
  if (ls->symbolic) umfpack_di_free_symbolic(&ls->symbolic);
  if (ls->knum) klu_free_numeric(&ls->knum, &ls->kc);
  if (ls->ksym) klu_free_symbolic(&ls->ksym, &ls->kc);
  free(ls->Ap);
  free(ls->Aj);
  free(ls->map);
  free(ls->dpos);
  free(ls->Ax);
  free(ls->F);
  free(ls->ipiv);
  free(ls->Wi);
  free(ls->W);
  free(ls->xin);
  free(ls);
}

slv_ls_backend slv_linsys_backend(const slv_linsys *ls) { return ls->backend; }

int slv_linsys_failed_column(const slv_linsys *ls) { return ls->failed_col; }
