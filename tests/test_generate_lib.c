/* test_generate_lib.c -- the generator of the seeded families
 * (libexperiment/generate.c; datasets/INSTANCES.md, "Bundled instances"):
 *   - every family: its kind and row count (the findex families rounded
 *     down to a multiple of 3), the default name FAMILY_N_sSEED;
 *   - the planted families (spd, box, joints, scaled-spd) satisfy their
 *     conditions at x_ref: w = A x_ref + b is >= 0 where x_ref = lo, <= 0
 *     where x_ref = hi, 0 inside, to rounding (|w_i| <= 1e-10 (1 + |b|_inf));
 *   - A is exactly symmetric (dense and CSR);
 *   - the same seed gives the same numbers, another seed others;
 *   - bad arguments: EXP_EXIT_USAGE, *out NULL, the reason in err.
 */
#include "exp_internal.h"
#include "tst_util.h"

#include <math.h>
#include <string.h>

static io_instance *gen(const char *family, long n, unsigned long seed) {
  io_instance *inst = NULL;
  char err[256] = "";
  int rc = exp_generate(family, n, seed, NULL, &inst, err, sizeof err);
  CU_ASSERT_EQUAL(rc, EXP_EXIT_OK);
  CU_ASSERT_PTR_NOT_NULL(inst);
  return inst;
}

static double entry(const io_instance *p, int i, int j) {
  if (p->storage == SLV_DENSE) return p->A[i + (size_t)j * p->n];
  for (int k = p->Ap[i]; k < p->Ap[i + 1]; k++)
    if (p->Aj[k] == j) return p->Ax[k];
  return 0.0;
}

static void test_kinds(void) {
  static const struct {
    const char *family, *kind;
    int n;
  } want[] = {
    { "spd", "lcp", 7 },         { "contact", "lcp", 7 },          { "boxed-findex", "findex", 6 },
    { "box", "blcp", 7 },        { "joints", "mlcp", 7 },          { "sparse-contact", "lcp", 7 },
    { "sparse-box", "blcp", 7 }, { "sparse-findex", "findex", 6 }, { "scaled-spd", "lcp", 7 }
  };
  int count = 0;
  for (const char *const *f = exp_generate_families(); *f; f++) count++;
  CU_ASSERT_EQUAL(count, (int)(sizeof want / sizeof want[0]));
  for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
    io_instance *p = gen(want[k].family, 7, 2);
    if (!p) continue;
    CU_ASSERT_EQUAL(p->n, want[k].n);
    CU_ASSERT_STRING_EQUAL(p->kind, want[k].kind);
    char name[64];
    snprintf(name, sizeof name, "%s_%d_s2", want[k].family, want[k].n);
    CU_ASSERT_STRING_EQUAL(p->name, name);
    int sym = 1;
    for (int i = 0; i < p->n; i++)
      for (int j = 0; j < p->n; j++) sym &= entry(p, i, j) == entry(p, j, i);
    CU_ASSERT(sym);
    io_instance_free(p);
  }
}

/* max over rows of the violation of row i's condition at x_ref */
static double planted_violation(const io_instance *p) {
  double worst = 0.0, bmax = 0.0;
  for (int i = 0; i < p->n; i++) bmax = fmax(bmax, fabs(p->b[i]));
  for (int i = 0; i < p->n; i++) {
    double w = p->b[i], x = p->x_ref[i];
    for (int j = 0; j < p->n; j++) w += entry(p, i, j) * p->x_ref[j];
    double v = x == p->lo[i] ? fmax(-w, 0.0) : x == p->hi[i] ? fmax(w, 0.0) : fabs(w);
    if (x < p->lo[i] || x > p->hi[i]) v = INFINITY;
    worst = fmax(worst, v / (1.0 + bmax));
  }
  return worst;
}

static void test_planted(void) {
  const char *planted[] = { "spd", "box", "joints", "scaled-spd" };
  for (size_t k = 0; k < sizeof planted / sizeof planted[0]; k++) {
    io_instance *p = gen(planted[k], 30, 5);
    if (!p) continue;
    CU_ASSERT_PTR_NOT_NULL_FATAL(p->x_ref);
    CU_ASSERT(planted_violation(p) <= 1e-10);
    io_instance_free(p);
  }
  io_instance *c = gen("contact", 9, 1);
  if (c) CU_ASSERT_PTR_NULL(c->x_ref); /* not planted */
  io_instance_free(c);
}

static void test_seeds(void) {
  io_instance *a = gen("sparse-box", 40, 3), *b = gen("sparse-box", 40, 3);
  io_instance *c = gen("sparse-box", 40, 4);
  if (a && b && c) {
    CU_ASSERT_EQUAL(a->Ap[a->n], b->Ap[b->n]);
    CU_ASSERT(memcmp(a->b, b->b, (size_t)a->n * sizeof *a->b) == 0);
    CU_ASSERT(memcmp(a->Ax, b->Ax, (size_t)a->Ap[a->n] * sizeof *a->Ax) == 0);
    CU_ASSERT(memcmp(a->b, c->b, (size_t)a->n * sizeof *a->b) != 0);
  }
  io_instance_free(a);
  io_instance_free(b);
  io_instance_free(c);
}

static void expect_usage(const char *family, long n, const char *msg) {
  io_instance *p = (io_instance *)&p; /* must come back NULL */
  char err[256] = "";
  CU_ASSERT_EQUAL(exp_generate(family, n, 1, NULL, &p, err, sizeof err), EXP_EXIT_USAGE);
  CU_ASSERT_PTR_NULL(p);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, msg));
}

static void test_bad_arguments(void) {
  expect_usage("spdx", 5, "unknown family 'spdx' (known: spd, contact, boxed-findex");
  expect_usage("spd", 0, "n = 0: the family spd takes n in 1..10000");
  expect_usage("joints", EXP_GEN_MAX_N + 1, "n = 10001: the family joints takes n in 1..10000");
  expect_usage("boxed-findex", 2, "n = 2: the family boxed-findex takes n in 3..10000");
  expect_usage("sparse-contact", EXP_GEN_MAX_N_SPARSE + 1, "takes n in 1..1000000");
  long rows = 0;
  char err[64];
  CU_ASSERT_EQUAL(exp_generate_check("sparse-findex", 100, &rows, err, sizeof err), EXP_EXIT_OK);
  CU_ASSERT_EQUAL(rows, 99);
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return 1;
  CU_pSuite s = CU_add_suite("generated families", NULL, NULL);
  CU_add_test(s, "kinds, rows, names, symmetry", test_kinds);
  CU_add_test(s, "planted solutions", test_planted);
  CU_add_test(s, "seeds", test_seeds);
  CU_add_test(s, "bad arguments", test_bad_arguments);
  return tst_run();
}
