/* tst_pivot.c -- see tst_pivot.h. */
#include "tst_pivot.h"

#include <CUnit/CUnit.h>

#include <math.h>
#include <string.h>

const double tst_cyc4_A[16] = { 1.1146, -0.7486, -1.2796, -0.123, -0.7486, 0.8244,
                                1.1689, -0.0909, -1.2796, 1.1689, 1.8993,  -0.0844,
                                -0.123, -0.0909, -0.0844, 0.6411 };
const double tst_cyc4_b[4] = { -2.5153, 0.0407, 2.8439, 0.9651 };
/* column-major: A = [[1.498, -1.59, 1.477], [2.708, 0.752, -0.614],
 * [2.365, -1.78, 3.329]] by rows */
const double tst_cyc3_A[9] = { 1.498, 2.708, 2.365, -1.59, 0.752, -1.78, 1.477, -0.614, 3.329 };
const double tst_cyc3_b[3] = { -0.435, 1.903, -2.227 };

void tst_block_diag(int n1, const double *A1, const double *b1, int n2, const double *A2,
                    const double *b2, double *A, double *b) {
  int n = n1 + n2;
  memset(A, 0, (size_t)n * n * sizeof *A);
  for (int j = 0; j < n1; j++) {
    memcpy(A + (size_t)j * n, A1 + (size_t)j * n1, (size_t)n1 * sizeof *A);
    b[j] = b1[j];
  }
  for (int j = 0; j < n2; j++) {
    memcpy(A + (size_t)(n1 + j) * n + n1, A2 + (size_t)j * n2, (size_t)n2 * sizeof *A);
    b[n1 + j] = b2[j];
  }
}

slv_status tst_enum_solve(int n, const double *A, const double *b, double *x) {
  slv_problem p = tst_dense(n, A, n, b, NULL, NULL);
  slv_options o = slv_options_default();
  slv_workspace *ws = NULL;
  slv_result res;
  slv_status st = slv_workspace_new(slv_solver_find("enum"), n, &o, &ws);
  if (st == SLV_OK) st = slv_solve(ws, &p, &o, x, NULL, &res);
  slv_workspace_free(ws);
  return st;
}

int tst_stack_copies(int n) { return 64 / n + 2; }

void tst_stack(const slv_problem *f, int K, double *A, double *b, double *lo, double *hi) {
  int n = f->n, N = K * n;
  memset(A, 0, (size_t)N * N * sizeof *A);
  for (int c = 0; c < K; c++)
    for (int j = 0; j < n; j++) {
      for (int i = 0; i < n; i++)
        A[(c * n + i) + (size_t)(c * n + j) * N] = f->A[i + (size_t)j * f->lda];
      b[c * n + j] = f->b[j];
      if (lo) lo[c * n + j] = f->lo ? f->lo[j] : 0.0;
      if (hi) hi[c * n + j] = f->hi ? f->hi[j] : INFINITY;
    }
}

slv_problem tst_dense(int n, const double *A, int lda, const double *b, const double *lo,
                      const double *hi) {
  slv_problem p = slv_problem_empty();
  p.n = n;
  p.A = A;
  p.lda = lda;
  p.b = b;
  p.lo = lo;
  p.hi = hi;
  return p;
}

slv_status tst_solve_logged(const char *solver, const slv_problem *p, double tol, double *x,
                            slv_result *res, tst_log *log) {
  slv_options o = slv_options_default();
  o.tol = tol;
  o.log_fn = tst_log_line;
  o.log_ctx = log;
  log->len = 0;
  log->text[0] = '\0';
  memset(x, 0, (size_t)p->n * sizeof *x);
  slv_workspace *ws = NULL;
  slv_status st = slv_workspace_new(slv_solver_find(solver), p->n, &o, &ws);
  if (st == SLV_OK) st = slv_solve(ws, p, &o, x, NULL, res);
  slv_workspace_free(ws);
  return st;
}

void tst_log_line(void *ctx, const char *line) {
  tst_log *log = ctx;
  size_t k = strlen(line);
  if (log->len + k + 2 > sizeof log->text) return;
  memcpy(log->text + log->len, line, k);
  log->len += k;
  log->text[log->len++] = '\n';
  log->text[log->len] = '\0';
}

const char *tst_log_find(const tst_log *log, const char *prefix) {
  size_t k = strlen(prefix);
  for (const char *s = log->text; s && *s; s = strchr(s, '\n') ? strchr(s, '\n') + 1 : NULL)
    if (strncmp(s, prefix, k) == 0) return s;
  return NULL;
}

/* The run of solver s on p in a workspace of its own. */
static slv_status run_on(const slv_solver *s, const slv_problem *p, const slv_options *o, double *x,
                         slv_result *res) {
  slv_workspace *ws = NULL;
  if (slv_workspace_new(s, p->n, o, &ws)) return SLV_ERR_NOMEM;
  slv_status st = slv_solve(ws, p, o, x, NULL, res);
  slv_workspace_free(ws);
  return st;
}

void tst_csr_as_dense(const slv_solver *s, const slv_options *o) {
  int Ap[4] = { 0, 2, 5, 7 }, Aj[7] = { 0, 1, 0, 1, 2, 1, 2 };
  double Ax[7] = { 2, 1, 1, 3, 1, 1, 2 }, bc[3] = { -1, 2, -3 };
  double Ad[9] = { 2, 1, 0, 1, 3, 1, 0, 1, 2 }, xc[3], xd[3];
  slv_problem c = slv_problem_empty(), d = slv_problem_empty();
  c.n = d.n = 3;
  c.storage = SLV_CSR;
  c.Ap = Ap;
  c.Aj = Aj;
  c.Ax = Ax;
  c.b = d.b = bc;
  d.A = Ad;
  d.lda = 3;
  slv_result rc, rd;
  CU_ASSERT_EQUAL(run_on(s, &c, o, xc, &rc), SLV_CONVERGED);
  CU_ASSERT_EQUAL(run_on(s, &d, o, xd, &rd), SLV_CONVERGED);
  CU_ASSERT(fabs(xc[0] - 0.5) < 1e-14 && fabs(xc[1]) < 1e-14 && fabs(xc[2] - 1.5) < 1e-14);
  CU_ASSERT(memcmp(xc, xd, sizeof xc) == 0);
  CU_ASSERT_EQUAL(rc.pivots, rd.pivots);
}

void tst_gauss(int m, double *M, double *r) {
  for (int k = 0; k < m; k++) {
    int piv = k;
    for (int i = k + 1; i < m; i++)
      if (fabs(M[k * m + i]) > fabs(M[k * m + piv])) piv = i;
    for (int j = 0; j < m; j++) {
      double t = M[j * m + k];
      M[j * m + k] = M[j * m + piv];
      M[j * m + piv] = t;
    }
    double t = r[k];
    r[k] = r[piv];
    r[piv] = t;
    for (int i = k + 1; i < m; i++) {
      double f = M[k * m + i] / M[k * m + k];
      for (int j = k; j < m; j++) M[j * m + i] -= f * M[j * m + k];
      r[i] -= f * r[k];
    }
  }
  for (int k = m - 1; k >= 0; k--) {
    for (int j = k + 1; j < m; j++) r[k] -= M[j * m + k] * r[j];
    r[k] /= M[k * m + k];
  }
}
