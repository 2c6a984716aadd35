/* test_condense_global.c -- slv_condense_rows_global (libsolvers/
 * condense_global.c; docs/problem.md, "Rows condensed at an answer, global
 * form"): the global form of a robot's step with its joint rows condensed
 * against slv_condense_rows' local problem on the same rows.
 *
 * A test-built articulated step: bodies 0-1-2 a chain, body 3 free (dofs
 * 6 each, M = diag(m I3, I) with I SPD), rows M v = f + J' x,
 * w_row = J v + w + cfm x:
 *   rows 0-5   hard joint rows (cfm 0, free): bodies 0-1 and 1-2;
 *   row 6      a spring (cfm 0.5, free) on bodies 1-2;
 *   row 7      a limit that pushes (lo 0, x 0.3: eliminated, cfm 0);
 *   row 8      a motor at its bound (|x| <= 0.2, x = 0.2: held);
 *   rows 9-14  two contacts (kept): body 2 on the ground, body 2 on body 3.
 * J's entries come from a fixed sequence.  The local problem A = J M^-1 J'
 * + diag(cfm), b = w + J M^-1 f (M^-1 by the test's own Gaussian
 * elimination) goes through slv_condense_rows; the global one through
 * slv_condense_rows_global and then slv_condense:  W = H_r' M_r^-1 H_r and
 * q = w_r + H_r' M_r^-1 f_r must equal A', b' to 1e-10 of their largest
 * entry (two routes, both backward stable, on a problem of condition
 * ~1e3).  Also: the free body keeps its own M block (z = v); a hard row
 * written twice (consistent) gives the same W and q, counted redundant,
 * while slv_condense_rows refuses it (A_EE singular); written twice with
 * another w it is refused, said; a kept row with cfm > 0 is refused.
 */
#include "slv.h"
#include "tst_pivot.h"
#include "tst_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NB = 4, ND = 6 * NB, NJ = 9, NK = 6, NMAX = NJ + NK + 1 };

static unsigned seed;
static double rnd(void) { /* in [-1, 1] */
  seed = seed * 1103515245u + 12345u;
  return (double)((seed >> 8) % 2001) / 1000.0 - 1.0;
}

/* The test's step: M (dense), J (n x ND dense, row-major), f, w, cfm, lo,
 * hi, x; n rows (a duplicated hard row when dup). */
typedef struct step {
  int n;
  double M[ND * ND], J[NMAX * ND], f[ND], w[NMAX], cfm[NMAX], lo[NMAX], hi[NMAX], x[NMAX];
} step;

/* Row i's entries on body b: six values from the sequence. */
static void row_on(step *s, int i, int b) {
  for (int c = 0; c < 6; c++) s->J[i * ND + 6 * b + c] = rnd();
}

static void build(step *s, int dup, double dup_w) {
  memset(s, 0, sizeof *s);
  seed = 2024u;
  for (int b = 0; b < NB; b++) {
    double m = 1.0 + b, L[9];
    for (int k = 0; k < 9; k++) L[k] = 0.3 * rnd();
    for (int c = 0; c < 3; c++) s->M[(6 * b + c) * ND + 6 * b + c] = m;
    for (int r = 0; r < 3; r++)
      for (int c = 0; c < 3; c++) {
        double v = r == c ? 0.2 * m : 0.0;
        for (int k = 0; k < 3; k++) v += L[3 * r + k] * L[3 * c + k];
        s->M[(6 * b + 3 + c) * ND + 6 * b + 3 + r] = v;
      }
  }
  for (int d = 0; d < ND; d++) s->f[d] = rnd();
  const int b0[NJ + NK / 3] = { 0, 0, 0, 1, 1, 1, 1, 1, 2, 2, 2 };
  const int b1[NJ + NK / 3] = { 1, 1, 1, 2, 2, 2, 2, 2, 2, -1, 3 };
  for (int i = 0; i < NJ; i++) {
    row_on(s, i, b0[i]);
    if (b1[i] != b0[i]) row_on(s, i, b1[i]);
    s->lo[i] = -INFINITY, s->hi[i] = INFINITY, s->x[i] = rnd(), s->w[i] = rnd();
  }
  s->cfm[6] = 0.5;
  s->lo[7] = 0.0, s->x[7] = 0.3;
  s->lo[8] = -0.2, s->hi[8] = 0.2, s->x[8] = 0.2;
  for (int c = 0; c < 2; c++)
    for (int r = 0; r < 3; r++) {
      int i = NJ + 3 * c + r;
      row_on(s, i, 2);
      if (b1[NJ + c] >= 0) row_on(s, i, b1[NJ + c]);
      s->lo[i] = r == 0 ? 0.0 : -INFINITY, s->hi[i] = INFINITY, s->x[i] = 0.1, s->w[i] = rnd();
    }
  s->n = NJ + NK;
  if (dup) { /* row 0 again, after the joint rows' block (a kept row's place is unchanged) */
    memmove(s->J + (NJ + 1) * ND, s->J + NJ * ND, (size_t)NK * ND * sizeof(double));
    memcpy(s->J + NJ * ND, s->J, ND * sizeof(double));
    double *v[5] = { s->w, s->cfm, s->lo, s->hi, s->x };
    for (int a = 0; a < 5; a++) memmove(v[a] + NJ + 1, v[a] + NJ, NK * sizeof(double));
    s->w[NJ] = s->w[0] + dup_w, s->cfm[NJ] = 0.0, s->lo[NJ] = -INFINITY, s->hi[NJ] = INFINITY;
    s->x[NJ] = 0.0;
    s->n++;
  }
}

/* A = J M^-1 J' + diag(cfm), b = w + J M^-1 f (n x n column-major). */
static void local_problem(const step *s, double *A, double *b) {
  static double Y[ND * (NMAX + 1)], Mc[ND * ND];
  int n = s->n;
  for (int i = 0; i < n; i++)
    for (int d = 0; d < ND; d++) Y[i * ND + d] = s->J[i * ND + d];
  memcpy(Y + n * ND, s->f, sizeof s->f);
  for (int c = 0; c <= n; c++) { /* Y = M^-1 [J' f], one column at a time */
    memcpy(Mc, s->M, sizeof Mc);
    tst_gauss(ND, Mc, Y + c * ND);
  }
  for (int i = 0; i < n; i++) {
    for (int j = 0; j <= n; j++) {
      double v = 0.0;
      for (int d = 0; d < ND; d++) v += s->J[i * ND + d] * Y[j * ND + d];
      if (j < n)
        A[j * n + i] = v + (i == j ? s->cfm[i] : 0.0);
      else
        b[i] = s->w[i] + v;
    }
  }
}

/* The CSR arrays of a dense matrix (rows x cols, column-major, ld rows). */
typedef struct csr {
  int p[ND + 1], j[ND * NMAX];
  double x[ND * NMAX];
} csr;
static void to_csr(const double *D, int rows, int cols, csr *c) {
  int k = 0;
  for (int r = 0; r < rows; r++) {
    c->p[r] = k;
    for (int q = 0; q < cols; q++)
      if (D[q * rows + r] != 0.0) c->j[k] = q, c->x[k++] = D[q * rows + r];
  }
  c->p[rows] = k;
}

/* slv_condense_rows_global of s (kept: the contacts), status; out filled. */
static slv_status global_condensed(const step *s, slv_global_form *out,
                                   slv_condense_global_info *info, char *err, size_t len) {
  static csr Mc, Hc;
  static double Ht[ND * NMAX];
  int n = s->n;
  unsigned char keep[NMAX];
  for (int i = 0; i < n; i++) keep[i] = i >= n - NK;
  for (int i = 0; i < n; i++)
    for (int d = 0; d < ND; d++) Ht[i * ND + d] = s->J[i * ND + d];
  to_csr(s->M, ND, ND, &Mc);
  to_csr(Ht, ND, n, &Hc);
  slv_global_rows in = {
    ND, n, Mc.p, Mc.j, Mc.x, Hc.p, Hc.j, Hc.x, s->f, s->w, s->cfm, s->lo, s->hi
  };
  return slv_condense_rows_global(&in, s->x, keep, out, info, err, len);
}

/* W, q of the condensed global problem g against A', b' (NK rows). */
static void check_against(const slv_global_form *g, const double *Ak, const double *bk) {
  int *Wp = NULL, *Wj = NULL;
  double *Wx = NULL, q[NK], W[NK * NK] = { 0 }, amax = 0.0, bmax = 0.0;
  slv_condense_info ci;
  CU_ASSERT_EQUAL_FATAL(g->n, NK);
  CU_ASSERT_EQUAL_FATAL(slv_condense(g->ndof, NK, g->Mp, g->Mj, g->Mx, g->Hp, g->Hj, g->Hx, g->f,
                                     g->w, 1e9, &Wp, &Wj, &Wx, q, &ci),
                        SLV_OK);
  for (int i = 0; i < NK; i++)
    for (int k = Wp[i]; k < Wp[i + 1]; k++) W[Wj[k] * NK + i] = Wx[k];
  for (int k = 0; k < NK * NK; k++) amax = fmax(amax, fabs(Ak[k]));
  for (int k = 0; k < NK; k++) bmax = fmax(bmax, fabs(bk[k]));
  TST_VEC_CLOSE(W, Ak, NK * NK, 1e-10 * amax, 0);
  TST_VEC_CLOSE(q, bk, NK, 1e-10 * bmax, 0);
  free(Wp), free(Wj), free(Wx);
}

/* slv_condense_rows of s's local problem, the contacts kept: A', b' into
 * Ak, bk; the status; *ne the rows eliminated. */
static slv_status local_condensed(const step *s, double *Ak, double *bk, int *ne) {
  static double A[NMAX * NMAX];
  double b[NMAX];
  local_problem(s, A, b);
  slv_problem p = tst_dense(s->n, A, s->n, b, s->lo, s->hi);
  unsigned char keep[NMAX];
  for (int i = 0; i < s->n; i++) keep[i] = i >= s->n - NK;
  char err[400] = "";
  return slv_condense_rows(&p, s->x, keep, Ak, bk, ne, err, sizeof err);
}

static void test_against_local(void) {
  static step s;
  double Ak[NK * NK], bk[NK];
  char err[400] = "";
  int ne = -1;
  build(&s, 0, 0.0);
  CU_ASSERT_EQUAL_FATAL(local_condensed(&s, Ak, bk, &ne), SLV_OK);
  CU_ASSERT_EQUAL(ne, 8);
  slv_global_form g;
  slv_condense_global_info info;
  CU_ASSERT_EQUAL_FATAL(global_condensed(&s, &g, &info, err, sizeof err), SLV_OK);
  CU_ASSERT_EQUAL(info.neliminated, 8);
  CU_ASSERT_EQUAL(info.nbound, 1);
  CU_ASSERT_EQUAL(info.nsoft, 1);
  CU_ASSERT_EQUAL(info.nhard, 7);
  CU_ASSERT_EQUAL(info.redundant, 0);
  CU_ASSERT_EQUAL(info.nblocks, 1 + 4);   /* the chain; the free body: m I3 splits into 3, I */
  CU_ASSERT_EQUAL(g.ndof, 3 * 6 - 7 + 6); /* the chain's null space, the free body's six */
  CU_ASSERT_EQUAL(info.block_max, 18 - 7);
  /* the free body: its own M block and f, as they were (z = v) */
  for (int a = 0; a < 6; a++) {
    int r = g.ndof - 6 + a;
    TST_CLOSE(g.f[r], s.f[18 + a], 0, 0);
    for (int k = g.Mp[r]; k < g.Mp[r + 1]; k++)
      TST_CLOSE(g.Mx[k], s.M[(18 + g.Mj[k] - (g.ndof - 6)) * ND + 18 + a], 0, 0);
  }
  check_against(&g, Ak, bk);
  slv_global_form_free(&g);
}

static void test_redundant(void) {
  static step s;
  double Ak[NK * NK], bk[NK], Ak1[NK * NK], bk1[NK];
  char err[400] = "";
  build(&s, 0, 0.0);
  CU_ASSERT_EQUAL_FATAL(local_condensed(&s, Ak, bk, NULL), SLV_OK);
  /* row 0 twice, consistent: the local Schur complement is singular, the
   * global form's rank-revealing basis is the same */
  build(&s, 1, 0.0);
  CU_ASSERT_EQUAL(local_condensed(&s, Ak1, bk1, NULL), SLV_ERR_UNSUPPORTED);
  slv_global_form g;
  slv_condense_global_info info;
  CU_ASSERT_EQUAL_FATAL(global_condensed(&s, &g, &info, err, sizeof err), SLV_OK);
  CU_ASSERT_EQUAL(info.nhard, 8);
  CU_ASSERT_EQUAL(info.redundant, 1);
  check_against(&g, Ak, bk);
  slv_global_form_free(&g);
  /* row 0 twice with another w: no velocity meets both, refused */
  build(&s, 1, 0.5);
  CU_ASSERT_EQUAL(global_condensed(&s, &g, &info, err, sizeof err), SLV_ERR_UNSUPPORTED);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "not consistent"));
  CU_ASSERT_EQUAL(g.Mp, NULL);
}

static void test_refused(void) {
  static step s;
  build(&s, 0, 0.0);
  s.cfm[NJ + 1] = 1e-3;
  slv_global_form g;
  char err[400] = "";
  CU_ASSERT_EQUAL(global_condensed(&s, &g, NULL, err, sizeof err), SLV_ERR_INVALID);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "cfm"));
  CU_ASSERT_EQUAL(slv_condense_rows_global(NULL, s.x, NULL, &g, NULL, err, sizeof err),
                  SLV_ERR_INVALID);
}

int main(void) {
  CU_initialize_registry();
  CU_pSuite su = CU_add_suite("condense rows, global form", NULL, NULL);
  CU_add_test(su, "a chain with a spring, a pushing limit, a held motor: = the local form",
              test_against_local);
  CU_add_test(su, "a hard row twice: consistent accepted, inconsistent refused", test_redundant);
  CU_add_test(su, "a kept row with cfm, NULL arguments: refused", test_refused);
  return tst_run();
}
