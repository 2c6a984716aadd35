/* linsys.c -- dense LAPACK, CHOLMOD, UMFPACK and KLU behind one interface
 * (linsys.h; docs/solvers.md, "Linear systems").
 *
 * The CSR pattern of A read as compressed columns is the pattern of A'.
 * For the SPD back ends (A = A') that is A itself; the LU back ends factor
 * A' and solve with the transpose (UMFPACK_At, klu_tsolve), which is A.
 * The dense back end scatters the entries into a column-major n x n array.
 * An empty system (n = 0) calls no back end.  All allocation happens in analyse and factor (CHOLMOD's solve workspace
 * by one solve of a zero right-hand side at the end of factor), so solve
 * allocates nothing.  LAPACK's _work entry points are used, which do not
 * allocate either (direct.c does the same).
 */
#include "linsys.h"

#include "chol.h"

#include <lapacke.h>
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
  double *Ax;      /* the values (copy; CHOLMOD, UMFPACK, KLU read them in place) */
  int factored, failed_col;
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

static slv_ls_backend choose_backend(slv_ls_kind kind, slv_ls_backend be, int n) {
  if (be != SLV_LS_AUTO) return be;
  if (n <= SLV_LS_DENSE_MAX) return SLV_LS_DENSE;
  return kind == SLV_LS_SPD ? SLV_LS_CHOLMOD : SLV_LS_UMFPACK;
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

/* The pattern with each row's columns sorted and duplicates merged (UMFPACK
 * and KLU need that), and map[k]: where input entry k adds its value. */
static slv_ls_status pattern_alloc(slv_linsys *ls, const int *Ap, const int *Aj, int nin) {
  int n = ls->n;
  col_entry *e = malloc(((size_t)nin + 1) * sizeof *e);
  ls->Ap = malloc(((size_t)n + 1) * sizeof(int));
  ls->Aj = malloc(((size_t)nin + 1) * sizeof(int));
  ls->map = malloc(((size_t)nin + 1) * sizeof(int));
  ls->Ax = calloc((size_t)nin + 1, sizeof(double));
  if (!e || !ls->Ap || !ls->Aj || !ls->map || !ls->Ax) {
    free(e);
    return SLV_LS_NOMEM;
  }
  for (int k = 0; k < nin; k++) e[k] = (col_entry){ Aj[k], k };
  int q = 0;
  ls->Ap[0] = 0;
  for (int i = 0; i < n; i++) {
    qsort(e + Ap[i], (size_t)(Ap[i + 1] - Ap[i]), sizeof *e, by_column);
    for (int t = Ap[i]; t < Ap[i + 1]; t++) {
      if (t == Ap[i] || e[t].col != e[t - 1].col) ls->Aj[q++] = e[t].col;
      ls->map[e[t].k] = q - 1;
    }
    ls->Ap[i + 1] = q;
  }
  ls->nnz = q;
  ls->nin = nin;
  free(e);
  return SLV_LS_OK;
}

static slv_ls_status copy_pattern(slv_linsys *ls, const int *Ap, const int *Aj) {
  int n = ls->n;
  if (Ap[0] != 0 || Ap[n] < 0) return SLV_LS_BAD_INPUT;
  for (int i = 0; i < n; i++)
    if (Ap[i + 1] < Ap[i]) return SLV_LS_BAD_INPUT;
  for (int k = 0; k < Ap[n]; k++)
    if (Aj[k] < 0 || Aj[k] >= n) return SLV_LS_BAD_INPUT;
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
  /* LL' always: a simplicial LDL' would factor an indefinite matrix */
  ls->cm.supernodal = CHOLMOD_SUPERNODAL;
  ls->As = (cholmod_sparse){ .nrow = (size_t)ls->n,
                             .ncol = (size_t)ls->n,
                             .nzmax = (size_t)ls->nnz,
                             .p = ls->Ap,
                             .i = ls->Aj,
                             .x = ls->Ax,
                             .stype = -1, /* the lower triangle; both are stored */
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
  int st =
      umfpack_di_symbolic(ls->n, ls->n, ls->Ap, ls->Aj, NULL, &ls->symbolic, ls->control, NULL);
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

slv_linsys *slv_linsys_analyse(slv_ls_kind kind, slv_ls_backend backend, int n, const int *Ap,
                               const int *Aj, slv_ls_status *status) {
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
  slv_ls_status st = copy_pattern(ls, Ap, Aj);
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

/* ---- factoring -------------------------------------------------------------------- */

static slv_ls_status factor_dense(slv_linsys *ls) {
  size_t n = (size_t)ls->n;
  memset(ls->F, 0, n * n * sizeof(double));
  for (size_t i = 0; i < n; i++)
    for (int k = ls->Ap[i]; k < ls->Ap[i + 1]; k++) ls->F[i + n * (size_t)ls->Aj[k]] += ls->Ax[k];
  if (n == 0) return SLV_LS_OK;
  lapack_int info;
  if (ls->kind == SLV_LS_SPD) {
    info = LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', ls->n, ls->F, ls->n);
    if (info > 0) ls->failed_col = (int)info - 1;
    return info == 0 ? SLV_LS_OK : info > 0 ? SLV_LS_NOT_SPD : SLV_LS_BAD_INPUT;
  }
  info = LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, ls->n, ls->n, ls->F, ls->n, ls->ipiv);
  if (info > 0) ls->failed_col = (int)info - 1;
  return info == 0 ? SLV_LS_OK : info > 0 ? SLV_LS_SINGULAR : SLV_LS_BAD_INPUT;
}

static slv_ls_status factor_cholmod(slv_linsys *ls) {
  if (!slv_chol_factorize(&ls->As, 0.0, ls->L, &ls->cm)) return SLV_LS_NOMEM;
  if (ls->cm.status == CHOLMOD_NOT_POSDEF || ls->L->minor < (size_t)ls->n) {
    ls->failed_col = (int)ls->L->minor;
    return SLV_LS_NOT_SPD;
  }
  if (ls->cm.status < CHOLMOD_OK) return SLV_LS_NOMEM;
  /* one solve now, so that cholmod_solve2's workspace exists before
   * slv_linsys_solve (which then allocates nothing) */
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

static slv_ls_status factor_klu(slv_linsys *ls) {
  if (ls->knum) klu_free_numeric(&ls->knum, &ls->kc);
  ls->knum = klu_factor(ls->Ap, ls->Aj, ls->Ax, ls->ksym, &ls->kc);
  if (ls->kc.status == KLU_SINGULAR) {
    ls->failed_col = ls->kc.numerical_rank >= 0 ? ls->kc.numerical_rank : -1;
    return SLV_LS_SINGULAR;
  }
  if (!ls->knum) return ls->kc.status == KLU_OUT_OF_MEMORY ? SLV_LS_NOMEM : SLV_LS_BAD_INPUT;
  return SLV_LS_OK;
}

slv_ls_status slv_linsys_factor(slv_linsys *ls, const double *Ax) {
  if (!ls || (!Ax && ls->nin > 0)) return SLV_LS_BAD_INPUT;
  memset(ls->Ax, 0, (size_t)ls->nnz * sizeof(double));
  for (int k = 0; k < ls->nin; k++) ls->Ax[ls->map[k]] += Ax[k];
  ls->factored = 0;
  ls->failed_col = -1;
  slv_ls_status st = SLV_LS_OK;
  if (ls->n == 0)
    st = SLV_LS_OK;
  else if (ls->backend == SLV_LS_DENSE)
    st = factor_dense(ls);
  else if (ls->backend == SLV_LS_CHOLMOD)
    st = factor_cholmod(ls);
  else if (ls->backend == SLV_LS_UMFPACK)
    st = factor_umfpack(ls);
  else
    st = factor_klu(ls);
  ls->factored = st == SLV_LS_OK;
  return st;
}

/* ---- solving ---------------------------------------------------------------------- */

/* X <- A^-1 X for nrhs columns (leading dimension ldx): one LAPACK call. */
static slv_ls_status dense_solve(slv_linsys *ls, int nrhs, double *X, int ldx) {
  lapack_int info =
      ls->kind == SLV_LS_SPD
          ? LAPACKE_dpotrs_work(LAPACK_COL_MAJOR, 'L', ls->n, nrhs, ls->F, ls->n, X, ldx)
          : LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, 'N', ls->n, nrhs, ls->F, ls->n, ls->ipiv, X, ldx);
  return info == 0 ? SLV_LS_OK : SLV_LS_BAD_INPUT;
}

slv_ls_status slv_linsys_solve(slv_linsys *ls, double *x) {
  if (!ls || !ls->factored) return SLV_LS_NOT_FACTORED;
  if (ls->n == 0) return SLV_LS_OK;
  switch (ls->backend) {
  case SLV_LS_DENSE: return dense_solve(ls, 1, x, ls->n);
  case SLV_LS_CHOLMOD:
    return slv_chol_solve(ls->L, ls->n, x, &ls->X, &ls->Y, &ls->E, &ls->cm) ? SLV_LS_NOMEM
                                                                            : SLV_LS_OK;
  case SLV_LS_UMFPACK: {
    memcpy(ls->xin, x, (size_t)ls->n * sizeof(double));
    int st = umfpack_di_wsolve(UMFPACK_At, ls->Ap, ls->Aj, ls->Ax, x, ls->xin, ls->numeric,
                               ls->control, NULL, ls->Wi, ls->W);
    return st == UMFPACK_OK ? SLV_LS_OK : SLV_LS_SINGULAR;
  }
  default:
    return klu_tsolve(ls->ksym, ls->knum, ls->n, 1, x, &ls->kc) ? SLV_LS_OK : SLV_LS_SINGULAR;
  }
}

slv_ls_status slv_linsys_solve_many(slv_linsys *ls, int nrhs, double *X, int ldx) {
  if (!ls || !ls->factored) return SLV_LS_NOT_FACTORED;
  if (nrhs < 0 || ldx < (ls->n > 1 ? ls->n : 1) || (nrhs > 0 && !X)) return SLV_LS_BAD_INPUT;
  if (ls->n == 0 || nrhs == 0) return SLV_LS_OK;
  if (ls->backend == SLV_LS_DENSE) return dense_solve(ls, nrhs, X, ldx);
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
