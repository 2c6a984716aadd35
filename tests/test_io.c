/* test_io.c -- instance I/O (io.h): round trips, the Siconos files, bad
 * input.
 *
 * Round trips: a random dense problem with every kind of bound (LCP, free,
 * boxed, half-bounded, fixed, lo = -0.0) and entries from 1e-300 to 1e300,
 * -0.0 and a denormal, is written and read back in every format that can
 * hold it; A, b, lo, hi, findex and mu must be bit-identical (memcmp).  The
 * same for a friction (findex) problem, an MLCP, a cone problem and a CSR
 * problem; formats that cannot hold an instance must refuse with
 * SLV_ERR_UNSUPPORTED, name the row, and write nothing.
 *
 * Siconos files (the shared datasets siconos/{lcp,mlcp,relay}, SKIP when
 * absent): every file reads, its variant is recognised from the content, its
 * sizes match the tables of the datasets README (section 4), and known
 * values hold: lcp_exp_murty is Murty's upper-triangular matrix (1 on the
 * diagonal, 2 above), the SBM twins equal the dense files, relay bounds,
 * MLCP free/LCP rows, Rectangular_mlcp built from its blocks.  Our Siconos
 * writer reproduces the shared files' layout (murty's first 12 lines byte
 * for byte, deudeu_mlcp's numbers token for token).
 *
 * Bad input: one test per class (empty, truncated, sizes that disagree,
 * NaN/Inf, non-numeric, negative size, n = 10^12, binary garbage, lo > hi,
 * findex out of range / self / chained, missing file, unknown format): exact
 * status, *out == NULL, and ONE line starting with the path, with
 * "PATH:LINE:" where a line applies.  Files are made in a mkdtemp directory.
 *
 * Frictional contact (Siconos FC3D .dat, lcplab cones; FCLIB .hdf5 is
 * test_fclib.c): hand-written files (dense; SBM kept dense up to 300 rows;
 * SBM beyond as CSR with +0.0 dropped, -0.0 kept, columns sorted), the
 * content decides FC3D vs LCP, write then read bit for bit (dense with wild
 * values, CSR n = 303, lcplab with both cone laws), the writer's layout,
 * refusals (a non-cone instance, the associated law, rows outside cones,
 * cone instances in the LCP formats), lcplab files without cone_law, and every
 * bad-input class of the FC3D reader (d = 2, d = 4, nc < 0, nc = 10^12,
 * nc larger than the file, truncated, NaN, negative mu, M of the wrong
 * size, a global problem, CSparse storage).
 */
#define _POSIX_C_SOURCE 200809L
#include "slv.h"
#include "io.h"
#include "tst_util.h"

#include <CUnit/CUnit.h>
#include <dirent.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmpdir[256];

static int suite_init(void) { return tst_tmpdir_make(tmpdir, sizeof tmpdir, "test_io"); }

static int suite_clean(void) { return tst_tmpdir_remove(tmpdir); }

static void tpath(char *buf, size_t len, const char *name) { tst_tmp_path(buf, len, tmpdir, name); }

static int file_exists(const char *p) {
  struct stat st;
  return stat(p, &st) == 0;
}

static void put_file(const char *name, const void *data, size_t len) {
  char p[512];
  tpath(p, sizeof p, name);
  FILE *f = fopen(p, "wb");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  if (len) fwrite(data, 1, len, f);
  fclose(f);
}

static void put_text(const char *name, const char *text) { put_file(name, text, strlen(text)); }

static int slv_io_is_pos_zero_test(double x) { return x == 0.0 && !signbit(x); }

static int same_bits(const void *a, const void *b, size_t bytes) {
  if (!a || !b) return a == b;
  return memcmp(a, b, bytes) == 0;
}

/* ---- instances for the round trips ---------------------------------------- */

/* A value from 1e-300 .. 1e300 with random sign, or one of the special
 * bit patterns (-0.0, a denormal, exact small integers). */
static double wild(gsl_rng *r) {
  unsigned k = (unsigned)gsl_rng_uniform_int(r, 10);
  if (k == 0) return -0.0;
  if (k == 1) return 4.9406564584124654e-324;
  if (k == 2) return (double)gsl_rng_uniform_int(r, 7) - 3.0;
  double e = (gsl_rng_uniform(r) * 2 - 1) * 300;
  return (gsl_rng_uniform(r) - 0.5) * pow(10.0, e);
}

/* Mixed bounds by row i mod 7: LCP, free, boxed, lo only, hi only,
 * lo = -0.0 (LCP), fixed lo = hi. */
static io_instance *mixed_instance(int n, unsigned long seed) {
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(r, seed);
  io_instance *inst = io_instance_new_dense(n);
  for (int k = 0; k < n * n; k++) inst->A[k] = wild(r);
  for (int i = 0; i < n; i++) {
    inst->A[i + i * n] = 1.0 + gsl_rng_uniform(r); /* (irrelevant to I/O, keeps it tame) */
    inst->b[i] = wild(r);
    double u = gsl_rng_uniform(r) + 0.1, v = gsl_rng_uniform(r) + 0.1;
    switch (i % 7) {
    case 0:
      inst->lo[i] = 0.0;
      inst->hi[i] = INFINITY;
      break;
    case 1:
      inst->lo[i] = -INFINITY;
      inst->hi[i] = INFINITY;
      break;
    case 2:
      inst->lo[i] = -u;
      inst->hi[i] = v;
      break;
    case 3:
      inst->lo[i] = -u;
      inst->hi[i] = INFINITY;
      break;
    case 4:
      inst->lo[i] = -INFINITY;
      inst->hi[i] = v;
      break;
    case 5:
      inst->lo[i] = -0.0;
      inst->hi[i] = INFINITY;
      break;
    default: inst->lo[i] = inst->hi[i] = u / 3; break;
    }
  }
  gsl_rng_free(r);
  io_instance_classify(inst);
  return inst;
}

/* 3 contacts: rows 3c normal (LCP), 3c+1 and 3c+2 friction coupled to 3c
 * with mu = 0.5 + 0.1 c, stored as lo = -mu, hi = mu. */
static io_instance *findex_instance(unsigned long seed) {
  int n = 9;
  io_instance *inst = mixed_instance(n, seed);
  inst->findex = malloc((size_t)n * sizeof(int));
  inst->mu = calloc((size_t)n, sizeof(double));
  for (int i = 0; i < n; i++) {
    int c = i / 3;
    if (i % 3 == 0) {
      inst->findex[i] = -1;
      inst->lo[i] = 0.0;
      inst->hi[i] = INFINITY;
    } else {
      inst->findex[i] = 3 * c;
      inst->mu[i] = 0.5 + 0.1 * c;
      inst->lo[i] = -inst->mu[i];
      inst->hi[i] = inst->mu[i];
    }
  }
  io_instance_classify(inst);
  return inst;
}

static io_instance *lcp_instance(int n, unsigned long seed) {
  io_instance *inst = mixed_instance(n, seed);
  for (int i = 0; i < n; i++) {
    inst->lo[i] = 0.0;
    inst->hi[i] = INFINITY;
  }
  io_instance_classify(inst);
  return inst;
}

/* nfree free rows first, then LCP rows */
static io_instance *mlcp_instance(int n, int nfree, unsigned long seed) {
  io_instance *inst = lcp_instance(n, seed);
  for (int i = 0; i < nfree; i++) inst->lo[i] = -INFINITY;
  io_instance_classify(inst);
  return inst;
}

static void check_same(const io_instance *a, const io_instance *b) {
  CU_ASSERT_EQUAL_FATAL(a->n, b->n);
  size_t n = (size_t)a->n;
  CU_ASSERT_EQUAL(a->storage, b->storage);
  if (a->storage == SLV_DENSE && b->storage == SLV_DENSE) {
    CU_ASSERT(same_bits(a->A, b->A, n * n * sizeof(double)));
  }
  CU_ASSERT(same_bits(a->b, b->b, n * sizeof(double)));
  CU_ASSERT(same_bits(a->lo, b->lo, n * sizeof(double)));
  CU_ASSERT(same_bits(a->hi, b->hi, n * sizeof(double)));
  CU_ASSERT(same_bits(a->findex, b->findex, n * sizeof(int)));
  CU_ASSERT(same_bits(a->mu, b->mu, n * sizeof(double)));
  CU_ASSERT_EQUAL(a->cone_law, b->cone_law);
  CU_ASSERT_STRING_EQUAL(a->kind, b->kind);
}

/* Write inst as fmt into NAME, read it back (by extension and content, and
 * with the format named), compare bit for bit. */
static void round_trip(const io_instance *inst, io_format fmt, const char *name) {
  char p[512], err[512];
  tpath(p, sizeof p, name);
  slv_status st = io_write(p, fmt, inst, err, sizeof err);
  if (st) printf("\n  write %s: %s\n", name, err);
  CU_ASSERT_EQUAL_FATAL(st, SLV_CONVERGED);
  for (int pass = 0; pass < 2; pass++) {
    io_instance *back = NULL;
    st = io_read(p, pass ? fmt : IO_FMT_AUTO, &back, err, sizeof err);
    if (st) printf("\n  read %s: %s\n", name, err);
    CU_ASSERT_EQUAL_FATAL(st, SLV_CONVERGED);
    CU_ASSERT_EQUAL(back->format, fmt);
    check_same(inst, back);
    io_instance_free(back);
  }
}

/* Writing must be refused: UNSUPPORTED, message naming `must`, no file. */
static void refuse(const io_instance *inst, io_format fmt, const char *name, const char *must) {
  char p[512], err[512];
  tpath(p, sizeof p, name);
  remove(p);
  slv_status st = io_write(p, fmt, inst, err, sizeof err);
  printf("\n  refused as expected: %s", err);
  CU_ASSERT_EQUAL(st, SLV_ERR_UNSUPPORTED);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, must));
  CU_ASSERT_EQUAL(strncmp(err, p, strlen(p)), 0);
  CU_ASSERT_FALSE(file_exists(p));
}

/* ---- API basics ----------------------------------------------------------- */

static void test_format_names(void) {
  for (int f = IO_FMT_AUTO; f <= IO_FMT_LAST; f++)
    CU_ASSERT_EQUAL(io_format_from_str(io_format_str((io_format)f)), f);
  CU_ASSERT_STRING_EQUAL(io_format_str(IO_FMT_SICONOS_FC3D), "siconos-fc3d");
  CU_ASSERT_STRING_EQUAL(io_format_str(IO_FMT_FCLIB), "fclib");
  CU_ASSERT_EQUAL(io_format_for_path("a/x.hdf5"), IO_FMT_FCLIB);
  CU_ASSERT_EQUAL(io_format_for_path("x.H5"), IO_FMT_FCLIB);
  CU_ASSERT_STRING_EQUAL(io_format_str(IO_FMT_SICONOS_MLCP), "siconos-mlcp");
  CU_ASSERT_EQUAL(io_format_from_str("nope"), -1);
  CU_ASSERT_EQUAL(io_format_from_str(NULL), -1);
  CU_ASSERT_EQUAL(io_format_for_path("a/b/x.dat"), IO_FMT_SICONOS_LCP);
  CU_ASSERT_EQUAL(io_format_for_path("x.blcp"), IO_FMT_BLCP);
  CU_ASSERT_EQUAL(io_format_for_path("x.MTX"), IO_FMT_MTX);
  CU_ASSERT_EQUAL(io_format_for_path("x.lcp"), IO_FMT_LCPLAB);
  CU_ASSERT_EQUAL(io_format_for_path("x.txt"), IO_FMT_AUTO);
  CU_ASSERT_EQUAL(io_format_for_path("dir.dat/noext"), IO_FMT_AUTO);
}

static void test_new_and_classify(void) {
  io_instance *inst = io_instance_new_dense(3);
  CU_ASSERT_PTR_NOT_NULL_FATAL(inst);
  CU_ASSERT_EQUAL(inst->n, 3);
  CU_ASSERT_EQUAL(inst->storage, SLV_DENSE);
  for (int i = 0; i < 3; i++) {
    CU_ASSERT_EQUAL(inst->b[i], 0.0);
    CU_ASSERT_EQUAL(inst->lo[i], 0.0);
    CU_ASSERT_EQUAL(inst->hi[i], INFINITY);
  }
  for (int k = 0; k < 9; k++) CU_ASSERT_EQUAL(inst->A[k], 0.0);
  CU_ASSERT_PTR_NULL(inst->findex);
  io_instance_classify(inst);
  CU_ASSERT_STRING_EQUAL(inst->kind, "lcp");
  inst->lo[1] = -INFINITY;
  io_instance_classify(inst);
  CU_ASSERT_STRING_EQUAL(inst->kind, "mlcp");
  inst->hi[2] = 1.0;
  io_instance_classify(inst);
  CU_ASSERT_STRING_EQUAL(inst->kind, "blcp");
  inst->hi[2] = INFINITY;
  inst->lo[2] = -1.0;
  io_instance_classify(inst);
  CU_ASSERT_STRING_EQUAL(inst->kind, "blcp");
  inst->findex = malloc(3 * sizeof(int));
  inst->mu = calloc(3, sizeof(double));
  inst->findex[0] = inst->findex[1] = inst->findex[2] = -1;
  io_instance_classify(inst);
  CU_ASSERT_STRING_EQUAL(inst->kind, "blcp"); /* findex array, no friction row */
  inst->findex[2] = 0;
  io_instance_classify(inst);
  CU_ASSERT_STRING_EQUAL(inst->kind, "findex");
  inst->ncones = 1;
  inst->cone_rows = calloc(1, sizeof(int));
  inst->cone_mu = calloc(1, sizeof(double));
  io_instance_classify(inst);
  CU_ASSERT_STRING_EQUAL(inst->kind, "cone");
  slv_problem p = io_instance_problem(inst);
  CU_ASSERT_EQUAL(p.n, 3);
  CU_ASSERT_EQUAL(p.lda, 3);
  CU_ASSERT_PTR_EQUAL(p.A, inst->A);
  CU_ASSERT_PTR_EQUAL(p.findex, inst->findex);
  CU_ASSERT_EQUAL(p.ncones, 1);
  io_instance_free(inst);
  io_instance_free(NULL);
  CU_ASSERT_PTR_NULL(io_instance_new_dense(-1));
  CU_ASSERT_PTR_NULL(io_instance_new_dense(IO_MAX_N + 1));
  CU_ASSERT_PTR_NULL(io_instance_new_dense(40000)); /* 1.6e9 > IO_MAX_NNZ entries */
  io_instance *e = io_instance_new_dense(0);
  CU_ASSERT_PTR_NOT_NULL(e);
  io_instance_free(e);
}

/* ---- round trips ---------------------------------------------------------- */

static void test_roundtrip_mixed(void) {
  io_instance *inst = mixed_instance(23, 7);
  CU_ASSERT_STRING_EQUAL(inst->kind, "blcp");
  round_trip(inst, IO_FMT_SICONOS_RELAY, "mixed.dat");
  round_trip(inst, IO_FMT_BLCP, "mixed.blcp");
  round_trip(inst, IO_FMT_MTX, "mixed.mtx");
  round_trip(inst, IO_FMT_LCPLAB, "mixed.lcp");
  /* row 1 is free, row 2 boxed: neither format holds it */
  refuse(inst, IO_FMT_SICONOS_LCP, "mixed_lcp.dat", "row 1 has lo=-inf, hi=inf");
  refuse(inst, IO_FMT_SICONOS_MLCP, "mixed_mlcp.dat", "row 1 is free but follows LCP row 0");
  inst->lo[1] = 0.0; /* now row 2 (boxed) is the first row siconos-mlcp cannot hold */
  io_instance_classify(inst);
  refuse(inst, IO_FMT_SICONOS_MLCP, "mixed_mlcp.dat", "row 2 has lo=-");
  io_instance_free(inst);
}

static void test_roundtrip_lcp_mlcp(void) {
  io_instance *inst = lcp_instance(17, 11);
  CU_ASSERT_STRING_EQUAL(inst->kind, "lcp");
  round_trip(inst, IO_FMT_SICONOS_LCP, "lcp.dat");
  round_trip(inst, IO_FMT_SICONOS_RELAY, "lcp_relay.dat");
  round_trip(inst, IO_FMT_BLCP, "lcp.blcp");
  round_trip(inst, IO_FMT_MTX, "lcp.mtx");
  round_trip(inst, IO_FMT_LCPLAB, "lcp.lcp");
  io_instance_free(inst);
  for (int nfree = 0; nfree <= 5; nfree += 5) {
    inst = mlcp_instance(5 + nfree, nfree, 13);
    round_trip(inst, IO_FMT_SICONOS_MLCP, "mlcp.dat");
    round_trip(inst, IO_FMT_LCPLAB, "mlcp.lcp");
    io_instance_free(inst);
  }
  inst = mlcp_instance(4, 4, 3); /* all rows free: m = 0 */
  round_trip(inst, IO_FMT_SICONOS_MLCP, "allfree.dat");
  /* a free row after an LCP row: siconos-mlcp cannot order it */
  inst->lo[2] = 0.0;
  io_instance_classify(inst);
  refuse(inst, IO_FMT_SICONOS_MLCP, "unordered.dat", "row 3 is free but follows LCP row 2");
  io_instance_free(inst);
  inst = lcp_instance(0, 1); /* n = 0 everywhere */
  round_trip(inst, IO_FMT_SICONOS_LCP, "empty0.dat");
  round_trip(inst, IO_FMT_SICONOS_MLCP, "empty0m.dat");
  round_trip(inst, IO_FMT_BLCP, "empty0.blcp");
  round_trip(inst, IO_FMT_MTX, "empty0.mtx");
  round_trip(inst, IO_FMT_LCPLAB, "empty0.lcp");
  io_instance_free(inst);
}

static void test_roundtrip_findex(void) {
  io_instance *inst = findex_instance(5);
  CU_ASSERT_STRING_EQUAL(inst->kind, "findex");
  round_trip(inst, IO_FMT_BLCP, "fr.blcp");
  round_trip(inst, IO_FMT_MTX, "fr.mtx");
  round_trip(inst, IO_FMT_LCPLAB, "fr.lcp");
  refuse(inst, IO_FMT_SICONOS_LCP, "fr_lcp.dat", "row 1 has findex 0");
  refuse(inst, IO_FMT_SICONOS_MLCP, "fr_mlcp.dat", "row 1 has findex 0");
  refuse(inst, IO_FMT_SICONOS_RELAY, "fr_relay.dat", "row 1 has findex 0");
  refuse(inst, IO_FMT_AUTO, "fr_auto.dat", "cannot hold friction rows");
  /* the blcp file itself: ODE sign and mu as hi */
  char p[512], line[4096];
  tpath(p, sizeof p, "fr.blcp");
  FILE *f = fopen(p, "r");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  int seen_findex = 0;
  while (fgets(line, sizeof line, f))
    if (strcmp(line, "# findex\n") == 0) {
      CU_ASSERT_PTR_NOT_NULL(fgets(line, sizeof line, f));
      CU_ASSERT_STRING_EQUAL(line, "-1 0 0 -1 3 3 -1 6 6\n");
      seen_findex = 1;
    }
  fclose(f);
  CU_ASSERT(seen_findex);
  io_instance_free(inst);
}

static void test_roundtrip_cone_csr_xref(void) {
  /* cones and x_ref: only lcplab holds them */
  io_instance *inst = lcp_instance(6, 21);
  inst->ncones = 2;
  inst->cone_rows = malloc(2 * sizeof(int));
  inst->cone_mu = malloc(2 * sizeof(double));
  inst->cone_rows[0] = 0;
  inst->cone_rows[1] = 3;
  inst->cone_mu[0] = 0.3;
  inst->cone_mu[1] = 1.0 / 3.0;
  inst->x_ref = malloc(6 * sizeof(double));
  for (int i = 0; i < 6; i++) inst->x_ref[i] = 1.0 / (i + 3.0);
  io_instance_classify(inst);
  CU_ASSERT_STRING_EQUAL(inst->kind, "cone");
  char p[512], err[512];
  tpath(p, sizeof p, "cone.lcp");
  CU_ASSERT_EQUAL_FATAL(io_write(p, IO_FMT_AUTO, inst, err, sizeof err), SLV_CONVERGED);
  io_instance *back = NULL;
  CU_ASSERT_EQUAL_FATAL(io_read(p, IO_FMT_AUTO, &back, err, sizeof err), SLV_CONVERGED);
  check_same(inst, back);
  CU_ASSERT_EQUAL(back->ncones, 2);
  CU_ASSERT(same_bits(back->cone_rows, inst->cone_rows, 2 * sizeof(int)));
  CU_ASSERT(same_bits(back->cone_mu, inst->cone_mu, 2 * sizeof(double)));
  CU_ASSERT(same_bits(back->x_ref, inst->x_ref, 6 * sizeof(double)));
  CU_ASSERT_STRING_EQUAL(back->name, "cone");
  io_instance_free(back);
  refuse(inst, IO_FMT_BLCP, "cone.blcp", "cones");
  refuse(inst, IO_FMT_MTX, "cone.mtx", "cones");
  refuse(inst, IO_FMT_SICONOS_RELAY, "cone.dat", "cones");
  io_instance_free(inst);

  /* CSR: 4 x 4 with a -0.0 entry and an empty row; lcplab keeps CSR, mtx
   * and blcp give the dense equivalent */
  inst = io_instance_new_dense(4);
  free(inst->A);
  inst->A = NULL;
  inst->storage = SLV_CSR;
  static const int Ap[5] = { 0, 2, 2, 5, 6 };
  static const int Aj[6] = { 0, 3, 0, 1, 2, 3 };
  static const double Ax[6] = { 4.0, -0.0, 0.1, 1e-300, 7.0, -2.5 };
  inst->Ap = malloc(sizeof Ap);
  inst->Aj = malloc(sizeof Aj);
  inst->Ax = malloc(sizeof Ax);
  memcpy(inst->Ap, Ap, sizeof Ap);
  memcpy(inst->Aj, Aj, sizeof Aj);
  memcpy(inst->Ax, Ax, sizeof Ax);
  inst->b[0] = -1;
  inst->b[3] = 0.125;
  io_instance_classify(inst);
  tpath(p, sizeof p, "csr.lcp");
  CU_ASSERT_EQUAL_FATAL(io_write(p, IO_FMT_AUTO, inst, err, sizeof err), SLV_CONVERGED);
  CU_ASSERT_EQUAL_FATAL(io_read(p, IO_FMT_AUTO, &back, err, sizeof err), SLV_CONVERGED);
  CU_ASSERT_EQUAL(back->storage, SLV_CSR);
  CU_ASSERT(same_bits(back->Ap, Ap, sizeof Ap));
  CU_ASSERT(same_bits(back->Aj, Aj, sizeof Aj));
  CU_ASSERT(same_bits(back->Ax, Ax, sizeof Ax));
  check_same(inst, back);
  io_instance_free(back);
  double dense[16] = { 0 };
  for (int i = 0; i < 4; i++)
    for (int k = Ap[i]; k < Ap[i + 1]; k++) dense[i + 4 * Aj[k]] = Ax[k];
  const char *names[2] = { "csr.mtx", "csr.blcp" };
  for (int k = 0; k < 2; k++) {
    tpath(p, sizeof p, names[k]);
    CU_ASSERT_EQUAL_FATAL(io_write(p, IO_FMT_AUTO, inst, err, sizeof err), SLV_CONVERGED);
    CU_ASSERT_EQUAL_FATAL(io_read(p, IO_FMT_AUTO, &back, err, sizeof err), SLV_CONVERGED);
    CU_ASSERT_EQUAL(back->storage, SLV_DENSE);
    CU_ASSERT(same_bits(back->A, dense, sizeof dense)); /* including A(0,3) = -0.0 */
    CU_ASSERT(same_bits(back->b, inst->b, 4 * sizeof(double)));
    io_instance_free(back);
  }
  io_instance_free(inst);
}

/* A larger problem through every general format (n = 120). */
static void test_roundtrip_larger(void) {
  io_instance *inst = mixed_instance(120, 99);
  round_trip(inst, IO_FMT_LCPLAB, "big.lcp");
  round_trip(inst, IO_FMT_BLCP, "big.blcp");
  round_trip(inst, IO_FMT_MTX, "big.mtx");
  round_trip(inst, IO_FMT_SICONOS_RELAY, "big.dat");
  io_instance_free(inst);
}

/* io_write with IO_FMT_AUTO: the extension, and for .dat the variant that
 * holds the instance; unknown extension refused. */
static void test_write_auto(void) {
  char p[512], err[512];
  io_instance *back = NULL;
  struct {
    io_instance *inst;
    io_format want;
  } cases[3] = { { lcp_instance(4, 1), IO_FMT_SICONOS_LCP },
                 { mlcp_instance(4, 2, 1), IO_FMT_SICONOS_MLCP },
                 { mixed_instance(4, 1), IO_FMT_SICONOS_RELAY } };
  for (int k = 0; k < 3; k++) {
    tpath(p, sizeof p, "auto.dat");
    CU_ASSERT_EQUAL_FATAL(io_write(p, IO_FMT_AUTO, cases[k].inst, err, sizeof err), SLV_CONVERGED);
    CU_ASSERT_EQUAL_FATAL(io_read(p, IO_FMT_AUTO, &back, err, sizeof err), SLV_CONVERGED);
    CU_ASSERT_EQUAL(back->format, cases[k].want);
    check_same(cases[k].inst, back);
    CU_ASSERT_STRING_EQUAL(back->name, "auto");
    io_instance_free(back);
  }
  refuse(cases[0].inst, IO_FMT_AUTO, "auto.xyz", "'.xyz'");
  /* an invalid problem is not written */
  cases[0].inst->A[1] = NAN;
  tpath(p, sizeof p, "nan.lcp");
  CU_ASSERT_EQUAL(io_write(p, IO_FMT_AUTO, cases[0].inst, err, sizeof err), SLV_ERR_INVALID);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "A(1,0)"));
  CU_ASSERT_FALSE(file_exists(p));
  for (int k = 0; k < 3; k++) io_instance_free(cases[k].inst);
}

/* mtx: a stale sidecar from an earlier write must not be read back */
static void test_mtx_stale_sidecars(void) {
  char p[512], lo[512], err[512];
  io_instance *box = mixed_instance(5, 3), *lcp = lcp_instance(5, 3), *back = NULL;
  tpath(p, sizeof p, "stale.mtx");
  tpath(lo, sizeof lo, "stale.lo");
  CU_ASSERT_EQUAL_FATAL(io_write(p, IO_FMT_MTX, box, err, sizeof err), SLV_CONVERGED);
  CU_ASSERT(file_exists(lo));
  CU_ASSERT_EQUAL_FATAL(io_write(p, IO_FMT_MTX, lcp, err, sizeof err), SLV_CONVERGED);
  CU_ASSERT_FALSE(file_exists(lo));
  CU_ASSERT_EQUAL_FATAL(io_read(p, IO_FMT_AUTO, &back, err, sizeof err), SLV_CONVERGED);
  check_same(lcp, back);
  io_instance_free(back);
  io_instance_free(box);
  io_instance_free(lcp);
}

/* ---- hand-written files of each format (the README's examples) ------------ */

static io_instance *read_ok(const char *name, const char *text) {
  char p[512], err[512];
  put_text(name, text);
  tpath(p, sizeof p, name);
  io_instance *inst = NULL;
  slv_status st = io_read(p, IO_FMT_AUTO, &inst, err, sizeof err);
  if (st) printf("\n  %s\n", err);
  CU_ASSERT_EQUAL(st, SLV_CONVERGED);
  return inst;
}

/* The lcplab format: the README's dense and CSR examples, sections in
 * another order, an unknown extension sniffed. */
static void test_hand_lcplab(void) {
  /* lcplab, the README example (datasets/README.md section 7), verbatim:
   * A = [[4,1,0],[1,4,1],[0,1,4]] column-major; row 0 LCP, row 1 free, row 2
   * friction on row 0 with mu = 0.5; x_ref = (0.5, -0.25, 0.125) solves it:
   * w = A x + b = (2 - 0.25 - 1.75, 0.5 - 1 + 0.125 + 0.375, -0.25 + 0.5 - 0.25)
   *   = 0, and |x_2| = 0.125 < mu x_0 = 0.25 (strictly inside, so w_2 = 0 is
   * right), x_0 = 0.5 > 0 with w_0 = 0, x_1 free with w_1 = 0. */
  io_instance *inst = read_ok("hand.lcp", "lcplab-problem 1\n"
                                          "# a friction problem\n"
                                          "kind findex\n"
                                          "n 3\n"
                                          "storage dense\n"
                                          "A\n"
                                          "4 1 0\n"
                                          "1 4 1\n"
                                          "0 1 4\n"
                                          "b\n"
                                          "-1.75 0.375 -0.25\n"
                                          "lo\n"
                                          "0 -inf 0\n"
                                          "hi\n"
                                          "inf inf 0\n"
                                          "findex\n"
                                          "-1 -1 0\n"
                                          "mu\n"
                                          "0 0 0.5\n"
                                          "x_ref\n"
                                          "0.5 -0.25 0.125\n"
                                          "end\n");
  if (inst) {
    static const double A[9] = { 4, 1, 0, 1, 4, 1, 0, 1, 4 };
    CU_ASSERT(same_bits(inst->A, A, sizeof A));
    CU_ASSERT_EQUAL(inst->b[0], -1.75);
    CU_ASSERT_EQUAL(inst->lo[1], -INFINITY);
    CU_ASSERT_EQUAL(inst->findex[2], 0);
    CU_ASSERT_EQUAL(inst->mu[2], 0.5);
    CU_ASSERT_STRING_EQUAL(inst->kind, "findex");
    CU_ASSERT_EQUAL(inst->format, IO_FMT_LCPLAB);
    /* x_ref solves it: w = A x + b (exact in binary) and the box conditions
     * with the findex bounds -mu_2 |x_0| .. mu_2 |x_0| */
    const double *x = inst->x_ref;
    for (int i = 0; i < 3; i++) {
      double w = inst->b[i];
      for (int j = 0; j < 3; j++) w += inst->A[i + 3 * j] * x[j];
      CU_ASSERT_EQUAL(w, 0.0);
    }
    CU_ASSERT(x[0] > 0);
    CU_ASSERT(fabs(x[2]) < inst->mu[2] * fabs(x[0]));
  }
  io_instance_free(inst);
  /* the README's CSR variant of the same problem: the same A */
  inst = read_ok("hand_csr3.lcp",
                 "lcplab-problem 1\nkind findex\nn 3\n"
                 "storage csr\nAp\n0 2 5 7\nAj\n0 1\n0 1 2\n1 2\nAx\n4 1\n1 4 1\n1 4\n"
                 "b\n-1.75 0.375 -0.25\nlo\n0 -inf 0\nhi\ninf inf 0\nfindex\n-1 -1 0\n"
                 "mu\n0 0 0.5\nx_ref\n0.5 -0.25 0.125\nend\n");
  if (inst) {
    CU_ASSERT_EQUAL(inst->storage, SLV_CSR);
    double dense[9] = { 0 };
    for (int i = 0; i < 3; i++)
      for (int k = inst->Ap[i]; k < inst->Ap[i + 1]; k++) dense[i + 3 * inst->Aj[k]] += inst->Ax[k];
    static const double A[9] = { 4, 1, 0, 1, 4, 1, 0, 1, 4 };
    CU_ASSERT(same_bits(dense, A, sizeof A));
  }
  io_instance_free(inst);
  /* lcplab csr, sections in another order, no storage/kind defaults */
  inst = read_ok("hand_csr.lcp",
                 "lcplab-problem 1\nn 2\nb 1 2\nstorage csr\nAp 0 1 3\nAx 2 -1 3\nAj 0 0 1\nend\n");
  if (inst) {
    CU_ASSERT_EQUAL(inst->storage, SLV_CSR);
    CU_ASSERT_EQUAL(inst->Ap[2], 3);
    CU_ASSERT_EQUAL(inst->Aj[1], 0);
    CU_ASSERT_EQUAL(inst->Ax[1], -1.0);
    CU_ASSERT_EQUAL(inst->b[1], 2.0);
    CU_ASSERT_STRING_EQUAL(inst->kind, "lcp");
  }
  io_instance_free(inst);
  /* unknown extension, sniffed from the first token */
  inst = read_ok("sniff.txt", "lcplab-problem 1\nn 1\nA 2\nb -1\nend\n");
  if (inst) CU_ASSERT_EQUAL(inst->format, IO_FMT_LCPLAB);
  io_instance_free(inst);
}

/* MatrixMarket: the README's example, symmetric coordinate with
 * duplicates and sidecars, arrays, a path without .mtx sniffed. */
static void test_hand_mtx(void) {
  /* the README's MatrixMarket example (section 6) */
  put_text("FOO.b", "-1\n2\n");
  put_text("FOO.hi", "inf\n1\n");
  io_instance *inst = read_ok(
      "FOO.mtx", "%%MatrixMarket matrix coordinate real symmetric\n2 2 3\n1 1 4\n2 1 -1\n2 2 4\n");
  if (inst) {
    static const double A[4] = { 4, -1, -1, 4 };
    CU_ASSERT(same_bits(inst->A, A, sizeof A));
    CU_ASSERT_EQUAL(inst->b[0], -1.0);
    CU_ASSERT_EQUAL(inst->hi[1], 1.0);
    CU_ASSERT_EQUAL(inst->lo[1], 0.0);
  }
  io_instance_free(inst);
  /* mtx: symmetric coordinate, duplicates summed, sidecars */
  put_text("hand.b", "# b\n1\n2\n3\n");
  put_text("hand.hi", "inf\n1\n2\n");
  inst = read_ok("hand.mtx", "%%MatrixMarket matrix coordinate real symmetric\n"
                             "% a comment\n"
                             "3 3 4\n"
                             "1 1 4\n"
                             "2 1 -1\n"
                             "3 3 2.5\n"
                             "3 3 0.5\n");
  if (inst) {
    static const double A[9] = { 4, -1, 0, -1, 0, 0, 0, 0, 3 };
    CU_ASSERT(same_bits(inst->A, A, sizeof A));
    CU_ASSERT_EQUAL(inst->b[2], 3.0);
    CU_ASSERT_EQUAL(inst->lo[1], 0.0);
    CU_ASSERT_EQUAL(inst->hi[0], INFINITY);
    CU_ASSERT_EQUAL(inst->hi[2], 2.0);
    CU_ASSERT_STRING_EQUAL(inst->kind, "blcp");
  }
  io_instance_free(inst);
  /* mtx array general (column-major) and skew-symmetric array */
  put_text("harr.b", "0\n0\n");
  inst = read_ok("harr.mtx", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n");
  if (inst) {
    static const double A[4] = { 1, 2, 3, 4 };
    CU_ASSERT(same_bits(inst->A, A, sizeof A));
  }
  io_instance_free(inst);
  put_text("hskew.b", "0\n0\n0\n");
  inst = read_ok("hskew.mtx", "%%MatrixMarket matrix array real skew-symmetric\n3 3\n1\n2\n3\n");
  if (inst) {
    static const double A[9] = { 0, 1, 2, -1, 0, 3, -2, -3, 0 };
    CU_ASSERT(same_bits(inst->A, A, sizeof A));
  }
  io_instance_free(inst);
  put_text("sniff2.data.b", "1\n"); /* PATH.b: the path has no .mtx */
  inst = read_ok("sniff2.data", "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 5\n");
  if (inst) {
    CU_ASSERT_EQUAL(inst->format, IO_FMT_MTX);
    CU_ASSERT_EQUAL(inst->A[0], 5.0);
    CU_ASSERT_EQUAL(inst->b[0], 1.0); /* sidecar PATH.b for a path without .mtx */
  }
  io_instance_free(inst);
}

/* Siconos: the README's LCP example, an MLCP with storage 2 only. */
static void test_hand_siconos(void) {
  /* the README's Siconos LCP example (section 4.2) */
  io_instance *inst = read_ok("readme.dat", "2\n0\n2\n2\n2\t2\n2 1\n1 2\n-5 -6\n");
  if (inst) {
    static const double A[4] = { 2, 1, 1, 2 };
    CU_ASSERT(same_bits(inst->A, A, sizeof A));
    CU_ASSERT_EQUAL(inst->b[1], -6.0);
    CU_ASSERT_EQUAL(inst->format, IO_FMT_SICONOS_LCP);
  }
  io_instance_free(inst);
  /* Siconos MLCP with storage 2 only: the blocks */
  inst = read_ok("st2.dat", "0 1 1 1\n1\n2\n3\n4\n5\n6\n");
  if (inst) {
    static const double A[4] = { 1, 4, 3, 2 }; /* [[A, C], [D, B]] = [[1, 3], [4, 2]] */
    CU_ASSERT(same_bits(inst->A, A, sizeof A));
    CU_ASSERT_EQUAL(inst->b[0], 5.0);
    CU_ASSERT_EQUAL(inst->b[1], 6.0);
    CU_ASSERT_EQUAL(inst->lo[0], -INFINITY);
    CU_ASSERT_EQUAL(inst->lo[1], 0.0);
    CU_ASSERT_EQUAL(inst->format, IO_FMT_SICONOS_MLCP);
  }
  io_instance_free(inst);
}

/* blcp: the README's example. */
static void test_hand_blcp(void) {
  /* blcp, the README example (section 5) verbatim: A row-major, b = -b_ode,
   * mu = hi on friction rows */
  io_instance *inst = read_ok("hand.blcp", "# boxed LCP: A x = b + w\n"
                                           "3\n"
                                           "2 1 0\n"
                                           "0 2 0\n"
                                           "0 0 2\n"
                                           "1 -2 0          # b_ode: lcplab's b = (-1, 2, 0)\n"
                                           "0 -0.4 -inf     # lo\n"
                                           "inf 0.4 inf     # hi\n"
                                           "-1 0 -1         # findex\n");
  if (inst) {
    CU_ASSERT_EQUAL(inst->A[0 + 1 * 3], 1.0); /* A(0,1) = 1: row-major in the file */
    CU_ASSERT_EQUAL(inst->A[1 + 0 * 3], 0.0);
    CU_ASSERT_EQUAL(inst->b[0], -1.0);
    CU_ASSERT_EQUAL(inst->b[1], 2.0);
    CU_ASSERT_EQUAL(inst->findex[1], 0);
    CU_ASSERT_EQUAL(inst->mu[1], 0.4);
    CU_ASSERT_EQUAL(inst->mu[0], 0.0);
    CU_ASSERT_EQUAL(inst->lo[2], -INFINITY);
    CU_ASSERT_STRING_EQUAL(inst->kind, "findex");
  }
  io_instance_free(inst);
}

/* ---- the Siconos files ------------------------------------------------------ */

typedef struct {
  const char *file;
  int n, m;      /* lcp/relay: n (m unused); mlcp: n free rows, m LCP rows */
  double lb, ub; /* relay */
} known;

static const known LCP_FILES[] = { { "lcp_mmc.dat", 26, 0, 0, 0 },
                                   { "lcp_deudeu.dat", 2, 0, 0, 0 },
                                   { "lcp_trivial.dat", 9, 0, 0, 0 },
                                   { "lcp_ortiz.dat", 4, 0, 0, 0 },
                                   { "lcp_exp_murty.dat", 6, 0, 0, 0 },
                                   { "lcp_exp_murty2.dat", 6, 0, 0, 0 },
                                   { "lcp_enum_fails.dat", 9, 0, 0, 0 },
                                   { "lcp_CPS_1.dat", 2, 0, 0, 0 },
                                   { "lcp_CPS_2.dat", 3, 0, 0, 0 },
                                   { "lcp_CPS_3.dat", 4, 0, 0, 0 },
                                   { "lcp_CPS_4.dat", 4, 0, 0, 0 },
                                   { "lcp_CPS_4bis.dat", 4, 0, 0, 0 },
                                   { "lcp_CPS_5.dat", 2, 0, 0, 0 },
                                   { "lcp_deudeu_block.dat", 2, 0, 0, 0 },
                                   { "lcp_Pang_isolated_sol.dat", 3, 0, 0, 0 },
                                   { "lcp_Pang_isolated_sol_perturbed.dat", 3, 0, 0, 0 },
                                   { "lcp_inf_sol_perturbed.dat", 3, 0, 0, 0 },
                                   { "lcp_tobenna.dat", 40, 0, 0, 0 },
                                   { "lcp_ortiz_block.dat", 4, 0, 0, 0 },
                                   { "lcp_trivial_block.dat", 9, 0, 0, 0 } };

static const known MLCP_FILES[] = { { "deudeu_mlcp.dat", 1, 1, 0, 0 },
                                    { "RCD_mlcp.dat", 2, 1, 0, 0 },
                                    { "m2n1_mlcp.dat", 1, 2, 0, 0 },
                                    { "m3n2_mlcp.dat", 2, 3, 0, 0 },
                                    { "relay2_mlcp.dat", 4, 2, 0, 0 },
                                    { "relay3_mlcp.dat", 4, 2, 0, 0 },
                                    { "RLCD_mlcp.dat", 6, 2, 0, 0 },
                                    { "PD_mlcp.dat", 3, 4, 0, 0 },
                                    { "PDSym_mlcp.dat", 3, 4, 0, 0 },
                                    { "diodeBridge_mlcp.dat", 3, 4, 0, 0 },
                                    { "diodeBridge20_mlcp.dat", 11, 20, 0, 0 },
                                    { "diodeBridge40_mlcp.dat", 21, 40, 0, 0 },
                                    { "Buck2_mlcp.dat", 20, 12, 0, 0 },
                                    { "BuckFirstStep_mlcp.dat", 20, 12, 0, 0 },
                                    { "BuckConverter_mlcp.dat", 20, 12, 0, 0 },
                                    { "deltasigma_mlcp.dat", 65, 156, 0, 0 },
                                    { "deltasigma2_mlcp.dat", 65, 156, 0, 0 },
                                    { "Rectangular_mlcp.dat", 1, 1, 0, 0 } };

static const known RELAY_FILES[] = {
  { "step_1x1.dat", 1, 0, 0, 1 },       { "relay_2x2.dat", 2, 0, -1, 1 },
  { "relay_simple2.dat", 2, 0, -1, 1 }, { "step_2x2.dat", 2, 0, 0, 1 },
  { "relay_4x4.dat", 4, 0, -1, 1 },     { "step_4x4.dat", 4, 0, 0.1, 1 },
  { "relay1.dat", 15, 0, -0.1, 0.1 }
};

static const known *find_known(const known *t, size_t cnt, const char *file) {
  for (size_t k = 0; k < cnt; k++)
    if (strcmp(t[k].file, file) == 0) return &t[k];
  return NULL;
}

static io_instance *read_shared(const char *rel) {
  char p[4096], err[512];
  tst_shared_path(rel, p, sizeof p);
  io_instance *inst = NULL;
  slv_status st = io_read(p, IO_FMT_AUTO, &inst, err, sizeof err);
  if (st) printf("\n  %s\n", err);
  CU_ASSERT_EQUAL(st, SLV_CONVERGED);
  return inst;
}

/* Every file of one folder: reads, is recognised as fmt, has the sizes of
 * the table, and survives a round trip through our writer of that variant. */
static void check_folder(const char *folder, io_format fmt, const known *table, size_t cnt) {
  char dir[4096];
  tst_shared_path(folder, dir, sizeof dir);
  DIR *d = opendir(dir);
  CU_ASSERT_PTR_NOT_NULL_FATAL(d);
  struct dirent *e;
  size_t seen = 0;
  while ((e = readdir(d))) {
    size_t len = strlen(e->d_name);
    if (len < 4 || strcmp(e->d_name + len - 4, ".dat") != 0) continue;
    char rel[512];
    snprintf(rel, sizeof rel, "%s/%s", folder, e->d_name);
    io_instance *inst = read_shared(rel);
    if (!inst) continue;
    seen++;
    const known *k = find_known(table, cnt, e->d_name);
    if (!k) printf("\n  %s: not in the test's table\n", rel);
    CU_ASSERT_PTR_NOT_NULL(k);
    CU_ASSERT_EQUAL(inst->format, fmt);
    if (k && fmt == IO_FMT_SICONOS_MLCP) {
      CU_ASSERT_EQUAL(inst->n, k->n + k->m);
      for (int i = 0; i < inst->n; i++) {
        CU_ASSERT_EQUAL(inst->lo[i], i < k->n ? -INFINITY : 0.0);
        CU_ASSERT_EQUAL(inst->hi[i], INFINITY);
      }
      CU_ASSERT_STRING_EQUAL(inst->kind, "mlcp");
    } else if (k) {
      CU_ASSERT_EQUAL(inst->n, k->n);
      for (int i = 0; i < inst->n; i++) {
        CU_ASSERT_EQUAL(inst->lo[i], fmt == IO_FMT_SICONOS_RELAY ? k->lb : 0.0);
        CU_ASSERT_EQUAL(inst->hi[i], fmt == IO_FMT_SICONOS_RELAY ? k->ub : INFINITY);
      }
      CU_ASSERT_STRING_EQUAL(inst->kind, fmt == IO_FMT_SICONOS_RELAY ? "blcp" : "lcp");
    }
    round_trip(inst, fmt, "shared_rt.dat");
    io_instance_free(inst);
  }
  closedir(d);
  CU_ASSERT_EQUAL(seen, cnt);
}

static int shared_present(void) {
  char p[4096];
  if (tst_shared_path("datasets/siconos", p, sizeof p)) return 1;
  printf("\n  SKIP: ../shared/datasets not found (set LCPLAB_SHARED)");
  return 0;
}

static void test_siconos_folders(void) {
  if (!shared_present()) return;
  check_folder("datasets/siconos/lcp", IO_FMT_SICONOS_LCP, LCP_FILES,
               sizeof LCP_FILES / sizeof LCP_FILES[0]);
  check_folder("datasets/siconos/mlcp", IO_FMT_SICONOS_MLCP, MLCP_FILES,
               sizeof MLCP_FILES / sizeof MLCP_FILES[0]);
  check_folder("datasets/siconos/relay", IO_FMT_SICONOS_RELAY, RELAY_FILES,
               sizeof RELAY_FILES / sizeof RELAY_FILES[0]);
}

static void test_siconos_values(void) {
  if (!shared_present()) return;
  /* Murty: the text lines look lower-triangular; column-major it is upper
   * triangular, 1 on the diagonal, 2 above; q = -1 */
  io_instance *m = read_shared("datasets/siconos/lcp/lcp_exp_murty.dat");
  CU_ASSERT_PTR_NOT_NULL_FATAL(m);
  for (int i = 0; i < 6; i++) {
    for (int j = 0; j < 6; j++) CU_ASSERT_EQUAL(m->A[i + 6 * j], i == j ? 1.0 : i < j ? 2.0 : 0.0);
    CU_ASSERT_EQUAL(m->b[i], -1.0);
  }
  CU_ASSERT_STRING_EQUAL(m->name, "lcp_exp_murty");
  io_instance_free(m);
  /* deudeu: M = [[2,1],[1,2]], q = (-5,-6) */
  io_instance *d = read_shared("datasets/siconos/lcp/lcp_deudeu.dat");
  CU_ASSERT_PTR_NOT_NULL_FATAL(d);
  static const double deudeu[4] = { 2, 1, 1, 2 };
  CU_ASSERT(same_bits(d->A, deudeu, sizeof deudeu));
  CU_ASSERT_EQUAL(d->b[0], -5.0);
  CU_ASSERT_EQUAL(d->b[1], -6.0);
  io_instance_free(d);
  /* the SBM twins equal the dense files */
  static const char *twins[3][2] = { { "lcp_deudeu.dat", "lcp_deudeu_block.dat" },
                                     { "lcp_ortiz.dat", "lcp_ortiz_block.dat" },
                                     { "lcp_trivial.dat", "lcp_trivial_block.dat" } };
  for (int k = 0; k < 3; k++) {
    char a[256], b[256];
    snprintf(a, sizeof a, "datasets/siconos/lcp/%s", twins[k][0]);
    snprintf(b, sizeof b, "datasets/siconos/lcp/%s", twins[k][1]);
    io_instance *x = read_shared(a), *y = read_shared(b);
    CU_ASSERT_PTR_NOT_NULL_FATAL(x);
    CU_ASSERT_PTR_NOT_NULL_FATAL(y);
    CU_ASSERT_EQUAL_FATAL(x->n, y->n);
    CU_ASSERT(same_bits(x->A, y->A, (size_t)x->n * x->n * sizeof(double)));
    CU_ASSERT(same_bits(x->b, y->b, (size_t)x->n * sizeof(double)));
    io_instance_free(x);
    io_instance_free(y);
  }
  /* ortiz: A(2,3) = -1, A(3,2) = 1 (column-major reading) */
  io_instance *o = read_shared("datasets/siconos/lcp/lcp_ortiz.dat");
  CU_ASSERT_PTR_NOT_NULL_FATAL(o);
  CU_ASSERT_EQUAL(o->A[2 + 4 * 3], -1.0);
  CU_ASSERT_EQUAL(o->A[3 + 4 * 2], 1.0);
  CU_ASSERT_EQUAL(o->A[0 + 4 * 1], 1.0);
  CU_ASSERT_EQUAL(o->A[1 + 4 * 0], -1.0);
  io_instance_free(o);
  /* relay_2x2: M = I, q = (-0.5, 0.5), bounds -1 / 1 */
  io_instance *r = read_shared("datasets/siconos/relay/relay_2x2.dat");
  CU_ASSERT_PTR_NOT_NULL_FATAL(r);
  CU_ASSERT_EQUAL(r->format, IO_FMT_SICONOS_RELAY);
  CU_ASSERT_EQUAL(r->b[0], -0.5);
  CU_ASSERT_EQUAL(r->b[1], 0.5);
  CU_ASSERT_EQUAL(r->lo[0], -1.0);
  CU_ASSERT_EQUAL(r->lo[1], -1.0);
  CU_ASSERT_EQUAL(r->hi[0], 1.0);
  CU_ASSERT_EQUAL(r->hi[1], 1.0);
  io_instance_free(r);
  /* MLCP deudeu: 1 free row then 1 LCP row, M = [[1,-1],[0,1]], q = (-1, 1) */
  io_instance *ml = read_shared("datasets/siconos/mlcp/deudeu_mlcp.dat");
  CU_ASSERT_PTR_NOT_NULL_FATAL(ml);
  static const double mM[4] = { 1, 0, -1, 1 };
  CU_ASSERT(same_bits(ml->A, mM, sizeof mM));
  CU_ASSERT_EQUAL(ml->b[0], -1.0);
  CU_ASSERT_EQUAL(ml->b[1], 1.0);
  CU_ASSERT_EQUAL(ml->lo[0], -INFINITY);
  CU_ASSERT_EQUAL(ml->hi[0], INFINITY);
  CU_ASSERT_EQUAL(ml->lo[1], 0.0);
  CU_ASSERT_EQUAL(ml->hi[1], INFINITY);
  io_instance_free(ml);
  /* Rectangular: M is 3 x 2, so the storage-2 blocks A=1, B=1, C=-1, D=1,
   * a = 0, b = -1 give [[1,-1],[1,1]], q = (0, -1) */
  io_instance *re = read_shared("datasets/siconos/mlcp/Rectangular_mlcp.dat");
  CU_ASSERT_PTR_NOT_NULL_FATAL(re);
  static const double rM[4] = { 1, 1, -1, 1 };
  CU_ASSERT(same_bits(re->A, rM, sizeof rM));
  CU_ASSERT_EQUAL(re->b[0], 0.0);
  CU_ASSERT_EQUAL(re->b[1], -1.0);
  io_instance_free(re);
}

/* Our Siconos writer against the shared files' layout. */
static void test_siconos_layout(void) {
  if (!shared_present()) return;
  char src[4096], p[512], err[512], a[256], b[256];
  /* murty: the first 12 lines (n, storage, sizes, "6<TAB>6", 6 columns, q)
   * byte for byte */
  io_instance *m = read_shared("datasets/siconos/lcp/lcp_exp_murty.dat");
  CU_ASSERT_PTR_NOT_NULL_FATAL(m);
  tpath(p, sizeof p, "murty.dat");
  CU_ASSERT_EQUAL_FATAL(io_write(p, IO_FMT_AUTO, m, err, sizeof err), SLV_CONVERGED);
  io_instance_free(m);
  tst_shared_path("datasets/siconos/lcp/lcp_exp_murty.dat", src, sizeof src);
  FILE *fa = fopen(src, "r"), *fb = fopen(p, "r");
  CU_ASSERT_PTR_NOT_NULL_FATAL(fa);
  CU_ASSERT_PTR_NOT_NULL_FATAL(fb);
  for (int line = 0; line < 12; line++) {
    CU_ASSERT_PTR_NOT_NULL(fgets(a, sizeof a, fa));
    CU_ASSERT_PTR_NOT_NULL(fgets(b, sizeof b, fb));
    if (strcmp(a, b) != 0) printf("\n  line %d: shared '%s', ours '%s'", line + 1, a, b);
    CU_ASSERT_STRING_EQUAL(a, b);
  }
  fclose(fa);
  fclose(fb);
  /* deudeu_mlcp: the same numbers, token for token, up to the end of the
   * storage-2 data (4 header + 3 blocksRows + 2 flags + 5 NM header + 4 M +
   * 2 q + 4 blocks + 2 a,b = 26 tokens) */
  io_instance *ml = read_shared("datasets/siconos/mlcp/deudeu_mlcp.dat");
  CU_ASSERT_PTR_NOT_NULL_FATAL(ml);
  tpath(p, sizeof p, "deudeu_mlcp.dat");
  CU_ASSERT_EQUAL_FATAL(io_write(p, IO_FMT_SICONOS_MLCP, ml, err, sizeof err), SLV_CONVERGED);
  io_instance_free(ml);
  tst_shared_path("datasets/siconos/mlcp/deudeu_mlcp.dat", src, sizeof src);
  fa = fopen(src, "r");
  fb = fopen(p, "r");
  CU_ASSERT_PTR_NOT_NULL_FATAL(fa);
  CU_ASSERT_PTR_NOT_NULL_FATAL(fb);
  for (int k = 0; k < 26; k++) {
    double x = NAN, y = NAN;
    CU_ASSERT_EQUAL(fscanf(fa, "%lf", &x), 1);
    CU_ASSERT_EQUAL(fscanf(fb, "%lf", &y), 1);
    if (x != y) printf("\n  token %d: shared %g, ours %g", k, x, y);
    CU_ASSERT_EQUAL(x, y);
  }
  double extra;
  CU_ASSERT_EQUAL(fscanf(fb, "%lf", &extra), EOF); /* we write nothing after b */
  fclose(fa);
  fclose(fb);
}

/* ---- bad input ---------------------------------------------------------------- */

/* Writes the file, reads it; exact status, *out NULL, one line starting with
 * the path and, if line > 0, "PATH:LINE: expected "; line < 0: the message
 * names a sidecar (checked through `must`); must (if non-NULL) in the text. */
static void bad(const char *name, const void *data, size_t len, io_format fmt, slv_status want,
                int line, const char *must) {
  char p[512], err[512], prefix[600];
  if (data) put_file(name, data, len);
  tpath(p, sizeof p, name);
  io_instance *inst = (io_instance *)&inst; /* must be set to NULL */
  slv_status st = io_read(p, fmt, &inst, err, sizeof err);
  printf("\n  %-14s %s", slv_status_str(st), err);
  CU_ASSERT_EQUAL(st, want);
  CU_ASSERT_PTR_NULL(inst);
  CU_ASSERT_PTR_NULL(strchr(err, '\n'));
  if (line > 0)
    snprintf(prefix, sizeof prefix, "%s:%d: expected ", p, line);
  else if (line == 0)
    snprintf(prefix, sizeof prefix, "%s", p);
  else /* a sidecar's message: it names the sidecar, in the same directory */
    snprintf(prefix, sizeof prefix, "%s/", tmpdir);
  if (strncmp(err, prefix, strlen(prefix)) != 0) printf("\n  (wanted the prefix '%s')", prefix);
  CU_ASSERT_EQUAL(strncmp(err, prefix, strlen(prefix)), 0);
  if (must) {
    if (!strstr(err, must)) printf("\n  (wanted '%s' in the message)", must);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, must));
  }
}

static void badt(const char *name, const char *text, slv_status want, int line, const char *must) {
  bad(name, text, strlen(text), IO_FMT_AUTO, want, line, must);
}

static void test_bad_empty(void) {
  badt("empty.blcp", "", SLV_ERR_INVALID, 1, "found end of file");
  badt("empty.dat", "", SLV_ERR_INVALID, 1, "found end of file");
  badt("empty.lcp", "", SLV_ERR_INVALID, 1, "'lcplab-problem'");
  badt("empty.mtx", "", SLV_ERR_INVALID, 1, "found end of file");
  badt("empty.txt", "\n\n", SLV_ERR_INVALID, 3, "supported format");
  put_text("emptyb.b", "");
  badt("emptyb.mtx", "%%MatrixMarket matrix coordinate real general\n1 1 0\n", SLV_ERR_INVALID, -1,
       "emptyb.b:1: expected 1 number for b");
}

static void test_bad_truncated(void) {
  /* caught by the size check, before allocation */
  badt("trunc1.blcp", "3\n1 2 3\n4 5 6\n", SLV_ERR_INVALID, 1, "found only 13 bytes left");
  /* the size check passes (comments), the data ends early */
  badt("trunc2.blcp", "2\n# padding padding padding padding\n1 0\n0 1\n1 1\n0 0\n", SLV_ERR_INVALID,
       7, "hi[0], found end of file");
  badt("trunc.dat", "2\n0\n2\n2\n2\t2\n1 0\n0 1\n-1\n", SLV_ERR_INVALID, 9,
       "q[1], found end of file");
  badt("trunc.lcp", "lcplab-problem 1\nn 2\nA\n1 0 0 1\nb\n1 1\n", SLV_ERR_INVALID, 7,
       "a section keyword");
  put_text("trunc.b", "0\n0\n"); /* the sidecars are checked before the matrix is read */
  badt("trunc.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n2 2\n",
       SLV_ERR_INVALID, 5, "entry 2");
}

/* A Siconos LCP or relay file holds exactly its numbers: a remark may
 * follow (words, as lcp_CPS_1's), another number may not. */
static void test_bad_extra_numbers(void) {
  static const char lcp[] = "2\n0\n2\n2\n2\t2\n1 0\n0 1\n-1 -1\n";
  char text[256];
  snprintf(text, sizeof text, "%sRemark: 2 solutions, z = (1, 1)\n", lcp);
  io_instance *inst = read_ok("remark.dat", text);
  CU_ASSERT_PTR_NOT_NULL(inst);
  io_instance_free(inst);
  snprintf(text, sizeof text, "%s7\n", lcp);
  badt("extra.dat", text, SLV_ERR_INVALID, 9,
       "expected the end of the file or a remark after q, found '7'");
  /* relay: n, M, q, lb, ub, then one more number */
  snprintf(text, sizeof text, "%s0 0\n1 1\n3\n", lcp);
  badt("extra_relay.dat", text, SLV_ERR_INVALID, 11,
       "expected the end of the file or a remark after ub, found '3'");
}

static void test_bad_sizes_disagree(void) {
  badt("disagree.dat", "3\n0\n2\n2\n2\t2\n1 0\n0 1\n1 1\n", SLV_ERR_INVALID, 3,
       "M to be 3 x 3 (n = 3), found 2 x 2");
  badt("repeat.dat", "2\n0\n2\n2\n2\t3\n1 0 0 1\n1 1\n", SLV_ERR_INVALID, 5,
       "repeated sizes of M to be 2 2, found 2 3");
  badt("extra.blcp", "1\n2\n-1\n0\ninf\n-1\n7\n", SLV_ERR_INVALID, 7,
       "end of file after the 1 findex values, found '7'");
  badt("square.mtx", "%%MatrixMarket matrix coordinate real general\n2 3 0\n", SLV_ERR_INVALID, 2,
       "square matrix, found 2 x 3");
  badt("nnz.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 5\n", SLV_ERR_DIM, 2,
       "number of entries");
  /* MLCP with only storage 1 and a 3 x 2 M: no blocks to fall back on */
  badt("rect.dat", "1\n0\n1\n1\n0 1 2\n0 1\n0\n3\n2\n3\t2\n1 -1 1 -1 -1 1\n0 1\n", SLV_ERR_INVALID,
       7, "(n+m) x (n+m) = 2 x 2, found 3 x 2");
  badt("sbm.dat", "2\n1\n2\n2\n1\n1 1\n3\n2\n2 1\n0 1\n0\n0\n1 2 3 4\n1 1\n", SLV_ERR_INVALID, 7,
       "cumulative row offset 0 of M, increasing up to 2 rows (an integer in [2, 2]), found '3'");
  badt("mu.lcp", "lcplab-problem 1\nn 2\nA 1 0 0 1\nb 0 0\nfindex -1 0\nend\n", SLV_ERR_INVALID, 6,
       "'mu'");
  badt("kind.lcp", "lcplab-problem 1\nkind lcp\nn 1\nA 1\nb 0\nlo -1\nend\n", SLV_ERR_INVALID, 2,
       "kind 'blcp'");
  badt("dup.lcp", "lcplab-problem 1\nn 1\nA 1\nb 0\nb 0\nend\n", SLV_ERR_INVALID, 5,
       "each section once");
  badt("csr.lcp", "lcplab-problem 1\nn 2\nstorage csr\nAp 0 1 3\nAj 0 2 1\nAx 1 2 3\nend\n",
       SLV_ERR_INVALID, 5, "Aj[1]");
  badt("cs.dat", "2\n2\n2\n2\n", SLV_ERR_UNSUPPORTED, 2, "CSparse");
}

static void test_bad_nan_inf(void) {
  badt("nan.blcp", "2\n1 nan\n0 1\n1 1\n0 0\ninf inf\n", SLV_ERR_INVALID, 2,
       "a finite number for A(0,1) of 2 x 2, row-major, found 'nan'");
  badt("infq.dat", "2\n0\n2\n2\n2\t2\n1 0\n0 1\n-1 inf\n", SLV_ERR_INVALID, 8,
       "a finite number for q[1], found 'inf'");
  badt("infA.lcp", "lcplab-problem 1\nn 1\nA\n-inf\nb\n0\nend\n", SLV_ERR_INVALID, 4,
       "finite number for A(0,0)");
  badt("nanb.lcp", "lcplab-problem 1\nn 1\nA 1\nb NaN\nend\n", SLV_ERR_INVALID, 4, "'NaN'");
  badt("huge.lcp", "lcplab-problem 1\nn 1\nA 1e999\nb 0\nend\n", SLV_ERR_INVALID, 3, "'1e999'");
  badt("nanlo.blcp", "1\n1\n0\nnan\n1\n", SLV_ERR_INVALID, 4, "lo[0], found 'nan'");
  put_text("nanb.b", "nan\n");
  badt("nanb.mtx", "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 2\n", SLV_ERR_INVALID,
       -1, "nanb.b:1: expected a finite number for b[0], found 'nan'");
}

static void test_bad_non_numeric(void) {
  badt("word.blcp", "2\n1 0\n0 one\n0 0\n0 0\n1 1\n", SLV_ERR_INVALID, 3, "found 'one'");
  badt("word.dat", "2\n0\n2\n2\n2\t2\n1 0\n0 1.5x\n1 1\n", SLV_ERR_INVALID, 7, "found '1.5x'");
  put_text("word.b", "0\n0\n"); /* the sidecars are checked before the matrix is read */
  badt("word.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 x 3\n", SLV_ERR_INVALID,
       3, "column of entry 1");
  badt("word.lcp", "lcplab-problem 1\nn 1\nmatrix 1\n", SLV_ERR_INVALID, 3,
       "a section keyword (kind, n,");
  badt("float.blcp", "2.5\n", SLV_ERR_INVALID, 1,
       "expected the size n (a size in [0, 50000000]), found '2.5'");
  badt("banner.mtx", "%%MatrixMarket matrix coordinate complex general\n1 1 0\n",
       SLV_ERR_UNSUPPORTED, 1, "'complex'");
}

static void test_bad_negative_size(void) {
  badt("neg.blcp", "-3\n1 2 3\n", SLV_ERR_DIM, 1, "found '-3'");
  badt("neg.dat", "-3\n0\n-3\n-3\n", SLV_ERR_DIM, 1, "found '-3'");
  badt("negm.dat", "2\n0\n2\n-2\n", SLV_ERR_DIM, 4, "columns of M");
  badt("neg.lcp", "lcplab-problem 1\nn -3\n", SLV_ERR_DIM, 2, "found '-3'");
  badt("neg.mtx", "%%MatrixMarket matrix coordinate real general\n-2 -2 0\n", SLV_ERR_DIM, 2,
       "found '-2'");
}

static void test_bad_huge(void) {
  /* n = 10^12: refused on the header, nothing allocated */
  badt("huge.blcp", "1000000000000\n1 2 3\n", SLV_ERR_DIM, 1, "found '1000000000000'");
  badt("huge.dat", "1000000000000\n0\n1\n1\n", SLV_ERR_DIM, 1, "found '1000000000000'");
  badt("huge2.lcp", "lcplab-problem 1\nn 1000000000000\n", SLV_ERR_DIM, 2, "[0, 50000000]");
  badt("huge.mtx", "%%MatrixMarket matrix coordinate real general\n1000000000000 1000000000000 1\n",
       SLV_ERR_DIM, 2, "rows");
  badt("huge99.dat", "99999999999999999999999999\n", SLV_ERR_DIM, 1, NULL);
  /* n*n beyond IO_MAX_NNZ */
  badt("n40k.blcp", "40000\n1 2 3\n", SLV_ERR_DIM, 1, "n*n <= 500000000");
  /* n = 20000 is a legal size, but 4e8 numbers cannot be in a 20-byte file */
  badt("n20k.blcp", "20000\n1 2 3\n", SLV_ERR_INVALID, 1, "bytes left in the file");
  badt("n20k.dat", "20000\n0\n20000\n20000\n20000 20000\n1 2\n", SLV_ERR_INVALID, 5,
       "bytes left in the file");
  badt("sbm20k.dat", "20000\n1\n20000\n20000\n1\n", SLV_ERR_DIM, 3, "sparse-block M dense");
  badt("n20k.lcp", "lcplab-problem 1\nn 20000\nA 1\n", SLV_ERR_INVALID, 2, "bytes left");
  badt("nnz.lcp", "lcplab-problem 1\nn 1\nb 0\nstorage csr\nAp 0 400000000\n", SLV_ERR_INVALID, 5,
       "bytes left");
}

static void test_bad_garbage(void) {
  unsigned char junk[4096];
  unsigned long s = 12345;
  for (size_t k = 0; k < sizeof junk; k++) {
    s = s * 6364136223846793005UL + 1442695040888963407UL;
    junk[k] = (unsigned char)(s >> 56);
  }
  junk[0] = 0xff; /* never a digit */
  junk[100] = 0;  /* NUL bytes inside */
  static const char *names[] = { "junk.blcp", "junk.dat", "junk.lcp", "junk.mtx", "junk.bin" };
  for (int k = 0; k < 5; k++)
    bad(names[k], junk, sizeof junk, IO_FMT_AUTO, SLV_ERR_INVALID, 0, "expected");
  /* a digit, then a NUL byte: no text holds one, wherever it is */
  static const char nul[] = { '3', '\0', '1', '\n' };
  bad("nul.blcp", nul, sizeof nul, IO_FMT_AUTO, SLV_ERR_INVALID, 0,
      "expected a text file, found a NUL byte at byte 1");
  /* the format named explicitly: same */
  bad("junk.bin", NULL, 0, IO_FMT_SICONOS_RELAY, SLV_ERR_INVALID, 0,
      "expected a text file, found a NUL byte at byte 100");
}

static void test_bad_bounds(void) {
  badt("lohi.blcp", "2\n1 0\n0 1\n0 0\n0 2\ninf 1\n", SLV_ERR_INVALID, 6,
       "hi[1] >= lo[1] = 2, found '1'");
  badt("lohi.lcp", "lcplab-problem 1\nn 1\nA 1\nb 0\nlo 3\nhi\n\n2\nend\n", SLV_ERR_INVALID, 8,
       "hi[0] >= lo[0] = 3");
  static const char lbub[] = "1\n0\n1\n1\n1\t1\n1\n0\n2\n1\n";
  bad("lbub.dat", lbub, strlen(lbub), IO_FMT_SICONOS_RELAY, SLV_ERR_INVALID, 9,
      "ub[0] >= lb[0] = 2");
  /* sidecars: found by validation after reading: "FILE: lo[0]=2 > hi[0]=1" */
  put_text("lohi.b", "0\n");
  put_text("lohi.lo", "2\n");
  put_text("lohi.hi", "1\n");
  badt("lohi.mtx", "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 2\n", SLV_ERR_INVALID,
       0, "lohi.mtx: lo[0]=2 > hi[0]=1");
  /* lo = +inf: an empty box (validation) */
  badt("loinf.blcp", "1\n1\n0\ninf\ninf\n", SLV_ERR_INVALID, 0, "empty box");
}

static void test_bad_findex(void) {
  badt("frange.blcp", "2\n1 0\n0 1\n0 0\n0 0\n1 1\n-1 5\n", SLV_ERR_INVALID, 7,
       "findex[1] (an integer in [-1, 1]), found '5'");
  badt("fneg.blcp", "2\n1 0\n0 1\n0 0\n0 0\n1 1\n-2 -1\n", SLV_ERR_INVALID, 7, "found '-2'");
  badt("fself.blcp", "2\n1 0\n0 1\n0 0\n0 0\n1 1\n-1 1\n", SLV_ERR_INVALID, 7, "findex[1] != 1");
  badt("fself.lcp", "lcplab-problem 1\nn 2\nA 1 0 0 1\nb 0 0\nfindex\n0 -1\nmu 1 0\nend\n",
       SLV_ERR_INVALID, 6, "findex[0] != 0");
  /* row 2 couples to row 1, itself a friction row: validation */
  badt("fchain.blcp", "3\n1 0 0\n0 1 0\n0 0 1\n0 0 0\n0 -1 -1\ninf 1 1\n-1 0 1\n", SLV_ERR_INVALID,
       0, "fchain.blcp: findex[2]=1 refers to row 1");
  put_text("fside.b", "0\n0\n");
  put_text("fside.findex", "-1\n# the second\n1\n");
  badt("fside.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 0\n", SLV_ERR_INVALID, -1,
       "fside.findex:3: expected findex[1] != 1");
  put_text("fnomu.b", "0\n0\n");
  put_text("fnomu.findex", "-1\n0\n");
  badt("fnomu.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 0\n", SLV_ERR_INVALID, -1,
       "fnomu.mu: expected a readable file");
  /* a negative friction coefficient, even without friction rows: the .lcp
   * reader refuses it, so a read .mtx must not hold one (fuzz_mtx) */
  put_text("fnegmu.b", "0\n0\n");
  put_text("fnegmu.mu", "0\n-.5\n");
  put_text("fnegmu.findex", "-1\n0\n"); /* a .mu needs its .findex */
  badt("fnegmu.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 0\n", SLV_ERR_INVALID, -1,
       "fnegmu.mu: expected mu[1] >= 0, found -0.5");
}

static void test_bad_missing_and_unknown(void) {
  bad("nope.blcp", NULL, 0, IO_FMT_AUTO, SLV_ERR_INVALID, 0, "No such file");
  bad("nope.dat", NULL, 0, IO_FMT_AUTO, SLV_ERR_INVALID, 0, "No such file");
  bad("nope.xyz", NULL, 0, IO_FMT_AUTO, SLV_ERR_INVALID, 0, "No such file");
  bad("nope.lcp", NULL, 0, IO_FMT_LCPLAB, SLV_ERR_INVALID, 0, "No such file");
  put_text("noside.mtx", "%%MatrixMarket matrix coordinate real general\n1 1 0\n");
  bad("noside.mtx", NULL, 0, IO_FMT_AUTO, SLV_ERR_INVALID, -1,
      "noside.b: expected a readable file");
  badt("hello.txt", "hello world\n", SLV_ERR_INVALID, 1, ".blcp");
  badt("hello2.txt", "hello world\n", SLV_ERR_INVALID, 1, "lcplab-problem");
  /* a directory */
  char p[512], err[512];
  tpath(p, sizeof p, "adir.dat");
  mkdir(p, 0700);
  io_instance *inst = NULL;
  CU_ASSERT_EQUAL(io_read(p, IO_FMT_AUTO, &inst, err, sizeof err), SLV_ERR_INVALID);
  printf("\n  %s", err);
  CU_ASSERT_PTR_NULL(inst);
  CU_ASSERT_EQUAL(strncmp(err, p, strlen(p)), 0);
  rmdir(p);
  /* NULL arguments and a small message buffer */
  CU_ASSERT_EQUAL(io_read(NULL, IO_FMT_AUTO, &inst, err, sizeof err), SLV_ERR_INVALID);
  tpath(p, sizeof p, "nan.blcp");
  char small[8];
  CU_ASSERT_EQUAL(io_read(p, IO_FMT_AUTO, &inst, small, sizeof small), SLV_ERR_INVALID);
  CU_ASSERT_EQUAL(strlen(small), 7);
  CU_ASSERT_EQUAL(io_read(p, IO_FMT_AUTO, &inst, NULL, 0), SLV_ERR_INVALID);
}


/* ---- frictional contact: Siconos FC3D .dat and lcplab cones ------------------ */

/* A cone instance of nc contacts (every row in a cone, cone c at 3c):
 * dense with wild values, or CSR (columns sorted, no +0.0 entry). */
static io_instance *fc_instance(int nc, int csr, unsigned long seed) {
  int n = 3 * nc;
  io_instance *inst = mixed_instance(n, seed);
  inst->ncones = nc;
  inst->cone_rows = malloc((size_t)(nc ? nc : 1) * sizeof(int));
  inst->cone_mu = malloc((size_t)(nc ? nc : 1) * sizeof(double));
  for (int c = 0; c < nc; c++) {
    inst->cone_rows[c] = 3 * c;
    inst->cone_mu[c] = 0.1 + 0.7 * c / (nc + 1.0);
  }
  for (int i = 0; i < n; i++) {
    inst->lo[i] = -INFINITY; /* what the FC3D reader stores */
    inst->hi[i] = INFINITY;
  }
  if (csr) { /* a band of 3x3 blocks plus the last column; wild values */
    inst->storage = SLV_CSR;
    inst->Ap = calloc((size_t)n + 1, sizeof(int));
    inst->Aj = malloc((size_t)n * 8 * sizeof(int));
    inst->Ax = malloc((size_t)n * 8 * sizeof(double));
    int k = 0;
    for (int i = 0; i < n; i++) {
      int c0 = 3 * (i / 3);
      for (int j = c0; j < c0 + 3; j++) {
        double v = inst->A[i + (size_t)j * n];
        if (slv_io_is_pos_zero_test(v)) v = 0.5;
        inst->Aj[k] = j;
        inst->Ax[k++] = v;
      }
      if (c0 + 3 < n - 1) {
        inst->Aj[k] = n - 1;
        inst->Ax[k++] = -0.0;
      }
      inst->Ap[i + 1] = k;
    }
    free(inst->A);
    inst->A = NULL;
  }
  io_instance_classify(inst);
  return inst;
}

static int same_fc(const io_instance *a, const io_instance *b) {
  size_t n = (size_t)a->n;
  if (a->n != b->n || a->storage != b->storage || a->ncones != b->ncones) return 0;
  if (a->cone_law != b->cone_law) return 0;
  if (a->storage == SLV_DENSE) {
    if (!same_bits(a->A, b->A, n * n * sizeof(double))) return 0;
  } else {
    size_t nnz = (size_t)a->Ap[n];
    if (!same_bits(a->Ap, b->Ap, (n + 1) * sizeof(int)) ||
        !same_bits(a->Aj, b->Aj, nnz * sizeof(int)) ||
        !same_bits(a->Ax, b->Ax, nnz * sizeof(double)))
      return 0;
  }
  return same_bits(a->b, b->b, n * sizeof(double)) &&
         same_bits(a->cone_rows, b->cone_rows, (size_t)a->ncones * sizeof(int)) &&
         same_bits(a->cone_mu, b->cone_mu, (size_t)a->ncones * sizeof(double)) &&
         same_bits(a->lo, b->lo, n * sizeof(double)) && same_bits(a->hi, b->hi, n * sizeof(double));
}

static void fc_round_trip(const io_instance *inst, io_format fmt, const char *name) {
  char p[512], err[512];
  tpath(p, sizeof p, name);
  slv_status st = io_write(p, fmt, inst, err, sizeof err);
  if (st) printf("\n  write %s: %s", name, err);
  CU_ASSERT_EQUAL_FATAL(st, SLV_CONVERGED);
  for (int pass = 0; pass < 2; pass++) {
    io_instance *back = NULL;
    io_format named = fmt ? fmt : io_format_for_path(p);
    if (named == IO_FMT_SICONOS_LCP) named = IO_FMT_SICONOS_FC3D; /* a .dat of cones */
    st = io_read(p, pass ? named : IO_FMT_AUTO, &back, err, sizeof err);
    if (st) printf("\n  read %s: %s", name, err);
    CU_ASSERT_EQUAL_FATAL(st, SLV_CONVERGED);
    if (!same_fc(inst, back)) printf("\n  %s: not the same after the round trip", name);
    CU_ASSERT(same_fc(inst, back));
    CU_ASSERT_STRING_EQUAL(back->kind, "cone");
    io_instance_free(back);
  }
}

static void test_fc3d_handwritten(void) {
  /* dense, 2 contacts, column-major: A(i,j) = 10 i + j + 1 on the first
   * block row, identity elsewhere; a trailing "1" as in Siconos' files */
  char text[4096];
  size_t k = 0;
  k += (size_t)snprintf(text + k, sizeof text - k, "3\n2\n0\n6\n6\n6\t6\n");
  double A[36];
  for (int j = 0; j < 6; j++) {
    for (int i = 0; i < 6; i++) {
      A[i + 6 * j] = i < 3 ? 10.0 * i + j + 1 : (i == j ? 1.0 : 0.0);
      k += (size_t)snprintf(text + k, sizeof text - k, "%g ", A[i + 6 * j]);
    }
    text[k++] = '\n';
  }
  k += (size_t)snprintf(text + k, sizeof text - k, "-1 0.5 0.25 -2 0 0\n0.3 0.6\n1\n");
  io_instance *inst = read_ok("fc_dense.dat", text);
  if (inst) {
    CU_ASSERT_EQUAL(inst->format, IO_FMT_SICONOS_FC3D);
    CU_ASSERT_STRING_EQUAL(inst->kind, "cone");
    CU_ASSERT_EQUAL(inst->storage, SLV_DENSE);
    CU_ASSERT(same_bits(inst->A, A, sizeof A));
    CU_ASSERT_EQUAL(inst->A[0 + 6 * 1], 2.0); /* A(0,1): column-major */
    CU_ASSERT_EQUAL(inst->b[0], -1.0);
    CU_ASSERT_EQUAL(inst->b[3], -2.0);
    CU_ASSERT_EQUAL(inst->ncones, 2);
    CU_ASSERT_EQUAL(inst->cone_rows[1], 3);
    CU_ASSERT_EQUAL(inst->cone_mu[0], 0.3);
    CU_ASSERT_EQUAL(inst->cone_mu[1], 0.6);
    CU_ASSERT_EQUAL(inst->cone_law, SLV_CONE_COULOMB);
    CU_ASSERT_PTR_NULL(inst->findex);
    for (int i = 0; i < 6; i++) {
      CU_ASSERT_EQUAL(inst->lo[i], -INFINITY);
      CU_ASSERT_EQUAL(inst->hi[i], INFINITY);
    }
  }
  io_instance_free(inst);
  /* the same problem as SBM (blocks (0,0), (0,1), (1,1)): dense, equal */
  k = 0;
  k += (size_t)snprintf(text + k, sizeof text - k,
                        "3\n2\n1\n6\n6\n3\n2\n2\n3 6\n3 6\n3\n3\n0 2 3\n0 1 1\n");
  static const int blk[3][2] = { { 0, 0 }, { 0, 1 }, { 1, 1 } };
  for (int b = 0; b < 3; b++) {
    k += (size_t)snprintf(text + k, sizeof text - k, "%d\n", b);
    for (int jj = 0; jj < 3; jj++)
      for (int ii = 0; ii < 3; ii++)
        k += (size_t)snprintf(text + k, sizeof text - k, "%g ",
                              A[(3 * blk[b][0] + ii) + 6 * (3 * blk[b][1] + jj)]);
    text[k++] = '\n';
  }
  k += (size_t)snprintf(text + k, sizeof text - k, "-1 0.5 0.25 -2 0 0\n0.3 0.6\n");
  inst = read_ok("fc_sbm.dat", text);
  if (inst) {
    CU_ASSERT_EQUAL(inst->storage, SLV_DENSE);
    CU_ASSERT(same_bits(inst->A, A, sizeof A));
    CU_ASSERT_EQUAL(inst->format, IO_FMT_SICONOS_FC3D);
  }
  io_instance_free(inst);
  /* SBM with 101 contacts (n = 303 > 300): CSR; each diagonal block
   * [[2, -0, 0], [0, 2, 0], [1, 0, 2]] (column-major in the file) and a
   * block (0, 100) = 7 I: the +0.0 entries are dropped, -0.0 kept */
  int nc = 101, n = 303;
  size_t cap = 200000;
  char *big = malloc(cap);
  k = 0;
  k += (size_t)snprintf(big + k, cap - k, "3\n%d\n1\n%d\n%d\n%d\n%d\n%d\n", nc, n, n, nc + 1, nc,
                        nc);
  for (int pass = 0; pass < 2; pass++) {
    for (int c = 0; c < nc; c++) k += (size_t)snprintf(big + k, cap - k, "%d ", 3 * c + 3);
    big[k++] = '\n';
  }
  k += (size_t)snprintf(big + k, cap - k, "%d\n%d\n0 ", nc + 1, nc + 1);
  for (int c = 0; c < nc; c++) k += (size_t)snprintf(big + k, cap - k, "%d ", c == 0 ? 2 : c + 2);
  k += (size_t)snprintf(big + k, cap - k, "\n0 100 ");
  for (int c = 1; c < nc; c++) k += (size_t)snprintf(big + k, cap - k, "%d ", c);
  big[k++] = '\n';
  for (int b = 0; b <= nc; b++) {
    if (b == 1)
      k += (size_t)snprintf(big + k, cap - k, "1\n7 0 0 0 7 0 0 0 7\n");
    else
      k += (size_t)snprintf(big + k, cap - k, "%d\n2 0 1 -0 2 0 0 0 2\n", b);
  }
  for (int i = 0; i < n; i++) k += (size_t)snprintf(big + k, cap - k, "%d ", i % 3 ? 0 : -1);
  k += (size_t)snprintf(big + k, cap - k, "\n");
  for (int c = 0; c < nc; c++) k += (size_t)snprintf(big + k, cap - k, "0.5 ");
  big[k++] = '\n';
  big[k] = '\0';
  inst = read_ok("fc_csr.dat", big);
  free(big);
  if (inst) {
    CU_ASSERT_EQUAL(inst->storage, SLV_CSR);
    CU_ASSERT_EQUAL(inst->n, 303);
    /* row 0: (0,0) = 2, (0,1) = -0.0, (0,300) = 7; row 1: 2; row 2: (2,0) =
     * 1, (2,2) = 2, (2,302) = 7; row 3: 2, -0.0 */
    static const int Ap[6] = { 0, 3, 5, 8, 10, 11 };
    static const int Aj[11] = { 0, 1, 300, 1, 301, 0, 2, 302, 3, 4, 4 };
    static const double Ax[11] = { 2, -0.0, 7, 2, 7, 1, 2, 7, 2, -0.0, 2 };
    CU_ASSERT(same_bits(inst->Ap, Ap, sizeof Ap));
    CU_ASSERT(same_bits(inst->Aj, Aj, sizeof Aj));
    CU_ASSERT(same_bits(inst->Ax, Ax, sizeof Ax));
    CU_ASSERT_EQUAL(inst->Ap[n], 101 * 5 + 3);
    CU_ASSERT_EQUAL(inst->ncones, 101);
    CU_ASSERT_EQUAL(inst->b[300], -1.0);
    /* and back through the SBM writer and lcplab */
    fc_round_trip(inst, IO_FMT_AUTO, "fc_csr_rt.dat");
    fc_round_trip(inst, IO_FMT_LCPLAB, "fc_csr_rt.lcp");
  }
  io_instance_free(inst);
  /* an LCP whose n is 3 stays an LCP (its third number is 3, not a storage
   * type); named explicitly as FC3D it is refused */
  inst = read_ok("lcp3.dat", "3\n0\n3\n3\n3\t3\n1 0 0 0 1 0 0 0 1\n-1 -1 -1\n");
  if (inst) {
    CU_ASSERT_EQUAL(inst->format, IO_FMT_SICONOS_LCP);
    CU_ASSERT_EQUAL(inst->ncones, 0);
  }
  io_instance_free(inst);
}

static void test_fc3d_roundtrip(void) {
  char p[512], err[512], line[256];
  io_instance *d = fc_instance(4, 0, 17), *c = fc_instance(101, 1, 18);
  fc_round_trip(d, IO_FMT_AUTO, "fcd.dat");
  fc_round_trip(d, IO_FMT_SICONOS_FC3D, "fcd2.dat");
  fc_round_trip(d, IO_FMT_LCPLAB, "fcd.lcp");
  fc_round_trip(c, IO_FMT_AUTO, "fcc.dat");
  fc_round_trip(c, IO_FMT_LCPLAB, "fcc.lcp");
  /* the layout of Siconos' writer: d, nc, a dense NumericsMatrix */
  tpath(p, sizeof p, "fcd.dat");
  FILE *f = fopen(p, "r");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  static const char *const head[6] = { "3\n", "4\n", "0\n", "12\n", "12\n", "12\t12\n" };
  for (int k = 0; k < 6; k++) {
    CU_ASSERT_PTR_NOT_NULL(fgets(line, sizeof line, f));
    CU_ASSERT_STRING_EQUAL(line, head[k]);
  }
  fclose(f);
  /* the associated law: lcplab keeps it; siconos-fc3d refuses it */
  d->cone_law = SLV_CONE_ASSOCIATED;
  fc_round_trip(d, IO_FMT_LCPLAB, "fca.lcp");
  tpath(p, sizeof p, "fca.lcp");
  f = fopen(p, "r");
  int seen = 0;
  while (f && fgets(line, sizeof line, f)) seen |= strcmp(line, "cone_law associated\n") == 0;
  if (f) fclose(f);
  CU_ASSERT(seen);
  refuse(d, IO_FMT_SICONOS_FC3D, "fca.dat",
         "siconos-fc3d holds Coulomb's law (De Saxce); this instance's cone_law is associated");
  d->cone_law = SLV_CONE_COULOMB;
  /* cone instances in the LCP formats: refused, naming the first cone */
  refuse(d, IO_FMT_SICONOS_LCP, "fc_lcp.dat",
         "siconos-lcp cannot hold Coulomb cones; cone 0 covers rows 0..2");
  refuse(d, IO_FMT_SICONOS_MLCP, "fc_mlcp.dat", "siconos-mlcp cannot hold Coulomb cones; cone 0");
  refuse(d, IO_FMT_SICONOS_RELAY, "fc_relay.dat",
         "siconos-relay cannot hold Coulomb cones; cone 0");
  refuse(d, IO_FMT_BLCP, "fc.blcp", "cannot hold Coulomb cones");
  refuse(d, IO_FMT_MTX, "fc.mtx", "cannot hold Coulomb cones");
  /* siconos-fc3d: only all-cone instances with cone c at rows 3c */
  io_instance *lcp = lcp_instance(6, 3);
  refuse(lcp, IO_FMT_SICONOS_FC3D, "lcp_fc.dat",
         "siconos-fc3d holds only frictional-contact problems (a Coulomb cone on every row); this "
         "instance has no cones (kind lcp)");
  d->ncones = 3;
  refuse(d, IO_FMT_SICONOS_FC3D, "part.dat",
         "needs every row in a cone: n = 12 rows, but 3 cones cover 9");
  /* to a .dat by extension: siconos-fc3d is chosen, and refuses */
  refuse(d, IO_FMT_AUTO, "part_auto.dat", "siconos-fc3d needs every row in a cone");
  d->ncones = 4;
  io_instance_free(lcp);
  io_instance_free(d);
  io_instance_free(c);
  (void)err;
}

static void test_lcplab_cone_law(void) {
  /* a file without cone_law (written before it existed): coulomb; no lo
   * section, so the cone rows get lo = -inf and the LCP row keeps 0 */
  io_instance *inst =
      read_ok("old_cone.lcp", "lcplab-problem 1\nn 4\nA\n1 0 0 0\n0 1 0 0\n0 0 1 0\n0 0 0 1\n"
                              "b -1 0 0 -2\ncones 1\n1 0.5\nend\n");
  if (inst) {
    CU_ASSERT_EQUAL(inst->cone_law, SLV_CONE_COULOMB);
    CU_ASSERT_EQUAL(inst->lo[0], 0.0);
    CU_ASSERT_EQUAL(inst->lo[1], -INFINITY);
    CU_ASSERT_EQUAL(inst->lo[3], -INFINITY);
    CU_ASSERT_EQUAL(inst->cone_mu[0], 0.5);
    CU_ASSERT_STRING_EQUAL(inst->kind, "cone");
  }
  io_instance_free(inst);
  /* with lo given, it is kept as written; cone_law before n is fine */
  inst = read_ok("law.lcp", "lcplab-problem 1\ncone_law associated\nn 3\nA 1 0 0 0 1 0 0 0 1\n"
                            "b -1 0 0\nlo 0 0 0\ncones 1\n0 0.25\nend\n");
  if (inst) {
    CU_ASSERT_EQUAL(inst->cone_law, SLV_CONE_ASSOCIATED);
    CU_ASSERT_EQUAL(inst->lo[1], 0.0);
  }
  io_instance_free(inst);
  /* the law without cones (found by the fuzzer): written back as read */
  inst = read_ok("law_nocones.lcp", "lcplab-problem 1\ncone_law associated\nn 2\n"
                                    "A 1 0 0 1\nb -1 0\nend\n");
  if (inst) {
    CU_ASSERT_EQUAL(inst->cone_law, SLV_CONE_ASSOCIATED);
    round_trip(inst, IO_FMT_LCPLAB, "law_nocones_back.lcp");
  }
  io_instance_free(inst);
  badt("badlaw.lcp", "lcplab-problem 1\nn 3\ncone_law tresca\n", SLV_ERR_INVALID, 3,
       "a cone law 'coulomb' or 'associated', found 'tresca'");
}

/* The recorded solve (sections solver and options): each value read by
 * libsolvers' options by name (slv_options_set) and written back as
 * slv_options_get writes it; the seed over the whole unsigned long (the
 * reader took an int, so a larger seed written by the writer could not be
 * read back); a value its option's type refuses names the option. */
static void test_lcplab_recorded_solve(void) {
  static const char head[] = "lcplab-problem 1\nn 1\nA 2\nb -1\nsolver pgs\n";
  char text[512];
  snprintf(text, sizeof text,
           "%soptions 5\nseed 18446744073709551615\ntol 1e-10\nnorm 2\nwarm_start 1\n"
           "omega 0x1.8p0\nend\n",
           head);
  io_instance *inst = read_ok("rec.lcp", text);
  if (inst) {
    CU_ASSERT_STRING_EQUAL(inst->solver, "pgs");
    CU_ASSERT_EQUAL(inst->opt_given,
                    IO_OPT_SEED | IO_OPT_TOL | IO_OPT_NORM | IO_OPT_WARM_START | IO_OPT_OMEGA);
    CU_ASSERT(inst->opt.seed == 18446744073709551615UL && inst->opt.tol == 1e-10 &&
              inst->opt.norm == SLV_NORM_2 && inst->opt.warm_start == 1 && inst->opt.omega == 1.5);
    char p[512], err[512];
    tpath(p, sizeof p, "rec_back.lcp");
    CU_ASSERT_EQUAL(io_write(p, IO_FMT_LCPLAB, inst, err, sizeof err), SLV_OK);
    io_instance *back = NULL;
    CU_ASSERT_EQUAL(io_read(p, IO_FMT_AUTO, &back, err, sizeof err), SLV_OK);
    if (back) {
      CU_ASSERT_EQUAL(back->opt_given, inst->opt_given);
      CU_ASSERT(back->opt.seed == inst->opt.seed && back->opt.tol == inst->opt.tol &&
                back->opt.norm == SLV_NORM_2 && back->opt.omega == 1.5);
    }
    io_instance_free(back);
  }
  io_instance_free(inst);
  snprintf(text, sizeof text, "%soptions 1\nmax_iter 2.5\nend\n", head);
  badt("rec_int.lcp", text, SLV_ERR_INVALID, 7, "an integer within int for max_iter, found '2.5'");
  snprintf(text, sizeof text, "%soptions 1\nnorm 1\nend\n", head);
  badt("rec_norm.lcp", text, SLV_ERR_INVALID, 7, "inf or 2 (or their numbers 0, 2) for norm");
  snprintf(text, sizeof text, "%soptions 1\ntol\n", head);
  badt("rec_eof.lcp", text, SLV_ERR_INVALID, 8, "a finite number for tol, found end of file");
  snprintf(text, sizeof text, "%soptions 1\nthreads 2\nend\n", head);
  badt("rec_name.lcp", text, SLV_ERR_INVALID, 7,
       "an option name (max_iter, tol, norm, omega, damping, pivot_tol, warm_start, "
       "check_every, max_pivots, seed), found 'threads'");
}

/* "3 1 0 3 3 3 3" + I (column-major) + q + mu: the prefix of a 1-contact FC3D file */
static void test_bad_fc3d(void) {
  badt("fc2d.dat", "2\n1\n0\n2\n2\n2\t2\n1 0 0 1\n0 0\n0.5\n", SLV_ERR_UNSUPPORTED, 1,
       "the dimension d = 3 of a frictional-contact problem (2-D frictional contact, d = 2, is "
       "not supported), found '2'");
  static const char d4[] = "4\n1\n0\n4\n4\n4\t4\n";
  bad("d4.dat", d4, strlen(d4), IO_FMT_SICONOS_FC3D, SLV_ERR_INVALID, 1,
      "the dimension d = 3 of a frictional-contact problem, found '4'");
  badt("ncneg.dat", "3\n-2\n0\n-6\n-6\n", SLV_ERR_DIM, 2,
       "the number of contacts nc (a size in [0, 16666666]), found '-2'");
  badt("nchuge.dat", "3\n1000000000000\n", SLV_ERR_DIM, 2, "found '1000000000000'");
  /* nc = 10^7 is a legal size, but q and mu cannot be in this file */
  badt("ncbig.dat", "3\n10000000\n0\n30000000\n30000000\n30000000\t30000000\n", SLV_ERR_INVALID, 2,
       "M, q (3 nc = 30000000) and mu (nc = 10000000), found only");
  badt("fctrunc.dat", "3\n1\n0\n3\n3\n3\t3\n1 0 0 0 1 0 0 0 1\n-1 0\n", SLV_ERR_INVALID, 7,
       "q (3 nc = 3) and mu (nc = 1), found only");
  badt("fctrunc2.dat", "3\n1\n0\n3\n3\n3\t3\n1 0 0 0 1 0 0 0 1\n-1 0 0      \n", SLV_ERR_INVALID, 9,
       "mu[0], found end of file");
  badt("fcnan.dat", "3\n1\n0\n3\n3\n3\t3\n1 0 0 0 1 0 0 0 1\n-1 nan 0\n0.5\n", SLV_ERR_INVALID, 8,
       "a finite number for q[1], found 'nan'");
  badt("fcmu.dat",
       "3\n2\n0\n6\n6\n6\t6\n1 0 0 0 0 0 0 1 0 0 0 0 0 0 1 0 0 0 0 0 0 1 0 0 0 0 0 0 1 "
       "0 0 0 0 0 0 1\n-1 0 0 -1 0 0\n0.5 -0.1\n",
       SLV_ERR_INVALID, 9, "mu[1] >= 0, found '-0.1'");
  badt("fcmunan.dat", "3\n1\n0\n3\n3\n3\t3\n1 0 0 0 1 0 0 0 1\n-1 0 0\nnan\n", SLV_ERR_INVALID, 9,
       "a finite number for mu[0], found 'nan'");
  badt("fcM.dat", "3\n1\n0\n3\n6\n3\t6\n0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n", SLV_ERR_INVALID,
       4,
       "expected M square (ndof x ndof, a global problem d nc M H q b mu) or 3 nc x 3 nc = "
       "3 x 3 (a local one), found 3 x 6");
  /* a global problem (io_gfc3d.c) that ends after M */
  badt("fcglobal.dat",
       "3\n1\n0\n9\n9\n9\t9\n1 0 0 0 0 0 0 0 0\n0 1 0 0 0 0 0 0 0\n0 0 1 0 0 0 0 0 0\n"
       "0 0 0 1 0 0 0 0 0\n0 0 0 0 1 0 0 0 0\n0 0 0 0 0 1 0 0 0\n0 0 0 0 0 0 1 0 0\n"
       "0 0 0 0 0 0 0 1 0\n0 0 0 0 0 0 0 0 1\n",
       SLV_ERR_INVALID, 15, "expected 16 numbers for H, q (ndof = 9), b (3 nc = 3), mu (nc = 1)");
  badt("fccs.dat", "3\n1\n2\n3\n3\n0 0 0 0 0 0 0 0 0 0 0 0\n", SLV_ERR_UNSUPPORTED, 3, "CSparse");
}

/* ---- vectors -------------------------------------------------------------- */

static void test_vectors(void) {
  char p[512], err[512];
  double x[5] = { 1.0 / 3.0, -0.0, 1e-310, -1e300, 42 }, y[5];
  tpath(p, sizeof p, "x.txt");
  CU_ASSERT_EQUAL_FATAL(io_write_vector(p, 5, x, err, sizeof err), SLV_CONVERGED);
  CU_ASSERT_EQUAL_FATAL(io_read_vector(p, 5, y, err, sizeof err), SLV_CONVERGED);
  CU_ASSERT(same_bits(x, y, sizeof x));
  /* one per line */
  FILE *f = fopen(p, "r");
  char line[64];
  int lines = 0;
  while (fgets(line, sizeof line, f)) lines++;
  fclose(f);
  CU_ASSERT_EQUAL(lines, 5);
  CU_ASSERT_EQUAL(io_read_vector(p, 6, y, err, sizeof err), SLV_ERR_INVALID);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "x[5], found end of file"));
  CU_ASSERT_EQUAL(io_read_vector(p, 4, y, err, sizeof err), SLV_ERR_INVALID);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, ":5: expected end of file after the 4 values, found '42'"));
  CU_ASSERT_EQUAL(io_read_vector(p, -1, y, err, sizeof err), SLV_ERR_DIM);
  put_text("xc.txt", "# warm start\n1 # first\n\n2\n");
  tpath(p, sizeof p, "xc.txt");
  CU_ASSERT_EQUAL(io_read_vector(p, 2, y, err, sizeof err), SLV_CONVERGED);
  CU_ASSERT_EQUAL(y[0], 1.0);
  CU_ASSERT_EQUAL(y[1], 2.0);
  put_text("xi.txt", "1\ninf\n");
  tpath(p, sizeof p, "xi.txt");
  CU_ASSERT_EQUAL(io_read_vector(p, 2, y, err, sizeof err), SLV_ERR_INVALID);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, ":2: expected a finite number for x[1], found 'inf'"));
  tpath(p, sizeof p, "missing.txt");
  CU_ASSERT_EQUAL(io_read_vector(p, 2, y, err, sizeof err), SLV_ERR_INVALID);
  tpath(p, sizeof p, "nodir/x.txt");
  CU_ASSERT_EQUAL(io_write_vector(p, 2, y, err, sizeof err), SLV_ERR_INVALID);
  CU_ASSERT_EQUAL(strncmp(err, p, strlen(p)), 0);
}

/* ---- the memory cap --------------------------------------------------------- */

/* Reads NAME (TEXT) with the cap `cap`: returns the status; on a refusal
 * checks *out NULL, one line "PATH:LINE: expected sizes that fit the memory
 * cap of CAP bytes (max_memory), found FIELD..." (line 0: "PATH: "). */
static slv_status read_capped(const char *name, const char *text, size_t cap, int line,
                              const char *field) {
  char p[512], err[512], prefix[700];
  if (text) put_text(name, text);
  tpath(p, sizeof p, name);
  io_read_options o = io_read_options_default();
  o.max_memory = cap;
  io_instance *inst = (io_instance *)&inst;
  slv_status st = io_read_with(p, IO_FMT_AUTO, &o, &inst, err, sizeof err);
  if (st == SLV_CONVERGED) {
    io_instance_free(inst);
    return st;
  }
  printf("\n  %-14s %s", slv_status_str(st), err);
  CU_ASSERT_PTR_NULL(inst);
  CU_ASSERT_PTR_NULL(strchr(err, '\n'));
  if (line > 0)
    snprintf(prefix, sizeof prefix,
             "%s:%d: expected sizes that fit the memory cap of %zu bytes "
             "(max_memory), found %s",
             p, line, cap, field);
  else
    snprintf(prefix, sizeof prefix, "%s: expected %s", p, field);
  if (strncmp(err, prefix, strlen(prefix)) != 0) printf("\n  (wanted the prefix '%s')", prefix);
  CU_ASSERT_EQUAL(strncmp(err, prefix, strlen(prefix)), 0);
  return st;
}

/* The accounting, exactly: a read needs the file's bytes + 1 (its buffer)
 * and, per size read, the bytes of the arrays it implies; with cap = that
 * total the read passes, with one byte less it is refused, naming the
 * field whose size crossed the cap (and nothing is allocated for it). */
static void test_memory_cap(void) {
  const double I = (double)sizeof(io_instance);
  /* blcp, n = 2: b, lo, hi (3 n) and A (n^2) at the header; findex + mu (12 n)
   * when the block is there */
  const char *blcp = "2\n4 1 1 4\n1 2\n0 0\ninf inf\n";
  size_t need = strlen(blcp) + 1 + (size_t)(I + 8 * 6 + 8 * 4);
  CU_ASSERT_EQUAL(read_capped("cap.blcp", blcp, need, 1, ""), SLV_CONVERGED);
  CU_ASSERT_EQUAL(read_capped("cap.blcp", NULL, need - 1, 1, "n = 2: A (n x n), b, lo, hi"),
                  SLV_ERR_DIM);
  const char *blcpf = "3\n2 0 0 0 2 0 0 0 2\n-1 0 0\n0 -1 -1\ninf 1 1\n-1 0 0\n";
  need = strlen(blcpf) + 1 + (size_t)(I + 8 * 9 + 8 * 9);
  CU_ASSERT_EQUAL(read_capped("capf.blcp", blcpf, need + 36, 6, ""), SLV_CONVERGED);
  CU_ASSERT_EQUAL(read_capped("capf.blcp", NULL, need + 35, 6, "findex and mu (n = 3)"),
                  SLV_ERR_DIM);
  /* Siconos LCP, n = 2: q, lo, hi at n (line 1), then M at its header (line 3) */
  const char *dat = "2\n0\n2\n2\n2 2\n2 1\n1 2\n-5 -6\n";
  need = strlen(dat) + 1 + (size_t)(I + 8 * 6);
  CU_ASSERT_EQUAL(read_capped("cap.dat", dat, need + 32, 3, ""), SLV_CONVERGED);
  CU_ASSERT_EQUAL(read_capped("cap.dat", NULL, need + 31, 3, "M, 2 x 2 dense"), SLV_ERR_DIM);
  CU_ASSERT_EQUAL(read_capped("cap.dat", NULL, need - 1, 1, "n = 2: q, lo, hi"), SLV_ERR_DIM);
  /* lcplab: n at its line, then A at the line of 'A' */
  const char *lcp = "lcplab-problem 1\nn 2\nA\n2 1\n1 2\nb -5 -6\nend\n";
  need = strlen(lcp) + 1 + (size_t)(I + 8 * 6);
  CU_ASSERT_EQUAL(read_capped("cap.lcp", lcp, need + 32, 3, ""), SLV_CONVERGED);
  CU_ASSERT_EQUAL(read_capped("cap.lcp", NULL, need + 31, 3, "A, 2 x 2 dense"), SLV_ERR_DIM);
  /* MatrixMarket: a coordinate header of n = 1000 with one entry is 2 lines
   * of text, but A is built dense: 8 MB, refused at the size line */
  const char *mtx = "%%MatrixMarket matrix coordinate real general\n1000 1000 1\n1 1 2\n";
  put_text("capbig.b", "1\n");
  CU_ASSERT_EQUAL(read_capped("capbig.mtx", mtx, (size_t)1 << 20, 2,
                              "n = 1000: A (n x n, built dense), b, lo, hi: 8024"),
                  SLV_ERR_DIM);
  /* a Siconos SBM of n = 3000 with one 1x1 block: 72 MB once stored dense */
  const char *sbm = "3000\n1\n3000\n3000\n1\n1\n1\n3000\n3000\n2\n1\n0 1\n0\n0\n5\n";
  CU_ASSERT_EQUAL(
      read_capped("capsbm.dat", sbm, (size_t)16 << 20, 3, "M, 3000 x 3000 sparse-block kept dense"),
      SLV_ERR_DIM);
  /* FC3D: nc at line 2 */
  const char *fc = "3\n1\n0\n3\n3\n3\t3\n1 0 0\n0 1 0\n0 0 1\n-1 0 0\n0.5\n";
  char what[128];
  snprintf(what, sizeof what,
           "a file that fits the memory cap of %zu bytes (max_memory), found "
           "%zu bytes",
           strlen(fc) - 1, strlen(fc));
  CU_ASSERT_EQUAL(read_capped("capfc.dat", fc, strlen(fc) - 1, 0, what), SLV_ERR_DIM);
  need = strlen(fc) + 1 + (size_t)(I + 8 * 9 + 28);
  CU_ASSERT_EQUAL(read_capped("capfc.dat", NULL, need - 1, 2, "nc = 1: q, lo, hi (3 nc)"),
                  SLV_ERR_DIM);
  CU_ASSERT_EQUAL(read_capped("capfc.dat", NULL, need + 72, 0, ""), SLV_CONVERGED);
  /* options not from io_read_options_default */
  char p[512], err[512];
  io_read_options bad;
  memset(&bad, 0, sizeof bad);
  bad.max_memory = SIZE_MAX;
  io_instance *inst = NULL;
  tpath(p, sizeof p, "cap.blcp");
  CU_ASSERT_EQUAL(io_read_with(p, IO_FMT_AUTO, &bad, &inst, err, sizeof err), SLV_ERR_OPTIONS);
  CU_ASSERT_PTR_NULL(inst);
  CU_ASSERT_EQUAL(io_read_options_default().max_memory, IO_DEFAULT_MAX_MEMORY);
  CU_ASSERT_EQUAL(IO_DEFAULT_MAX_MEMORY, (size_t)4 << 30);
}

/* The files a MatrixMarket write puts beside its matrix, and none for other
 * formats (io_write_sidecar). */
static void test_write_sidecars(void) {
  const char *want[5] = { "d/p.b", "d/p.lo", "d/p.hi", "d/p.findex", "d/p.mu" };
  char buf[64];
  int k = 0;
  while (k < 6 && io_write_sidecar("d/p.mtx", IO_FMT_AUTO, k, buf, sizeof buf) == 1) {
    CU_ASSERT_STRING_EQUAL(buf, want[k]);
    k++;
  }
  CU_ASSERT_EQUAL(k, 5);
  CU_ASSERT_EQUAL(io_write_sidecar("d/p", IO_FMT_MTX, 4, buf, sizeof buf), 1);
  CU_ASSERT_STRING_EQUAL(buf, "d/p.mu"); /* no .mtx: the name itself is the stem */
  CU_ASSERT_EQUAL(io_write_sidecar("d/p.lcp", IO_FMT_AUTO, 0, buf, sizeof buf), 0);
  CU_ASSERT_EQUAL(io_write_sidecar("d/p.mtx", IO_FMT_LCPLAB, 0, buf, sizeof buf), 0);
  CU_ASSERT_EQUAL(io_write_sidecar("d/p.mtx", IO_FMT_AUTO, 3, buf, 10), -1); /* d/p.findex */
}

int main(void) {
  gsl_set_error_handler_off();
  if (CU_initialize_registry() != CUE_SUCCESS) return 2;
  CU_pSuite s = CU_add_suite("io", suite_init, suite_clean);
  CU_add_test(s, "format names", test_format_names);
  CU_add_test(s, "new, classify, view", test_new_and_classify);
  CU_add_test(s, "round trip: mixed bounds", test_roundtrip_mixed);
  CU_add_test(s, "round trip: lcp, mlcp, n = 0", test_roundtrip_lcp_mlcp);
  CU_add_test(s, "round trip: findex", test_roundtrip_findex);
  CU_add_test(s, "round trip: cones, csr, x_ref", test_roundtrip_cone_csr_xref);
  CU_add_test(s, "round trip: n = 120", test_roundtrip_larger);
  CU_add_test(s, "write: format from the extension", test_write_auto);
  CU_add_test(s, "mtx: stale sidecars", test_mtx_stale_sidecars);
  CU_add_test(s, "hand-written lcplab files (README examples, sniffing)", test_hand_lcplab);
  CU_add_test(s, "hand-written MatrixMarket files (README example, sidecars)", test_hand_mtx);
  CU_add_test(s, "hand-written Siconos files (README LCP, MLCP storage 2)", test_hand_siconos);
  CU_add_test(s, "hand-written blcp file (README example)", test_hand_blcp);
  CU_add_test(s, "siconos: every file of lcp, mlcp, relay", test_siconos_folders);
  CU_add_test(s, "siconos: known values", test_siconos_values);
  CU_add_test(s, "siconos: writer layout", test_siconos_layout);
  CU_add_test(s, "bad: empty", test_bad_empty);
  CU_add_test(s, "bad: truncated", test_bad_truncated);
  CU_add_test(s, "bad: a number after the last one (LCP, relay)", test_bad_extra_numbers);
  CU_add_test(s, "bad: sizes disagree", test_bad_sizes_disagree);
  CU_add_test(s, "bad: NaN / Inf", test_bad_nan_inf);
  CU_add_test(s, "bad: non-numeric", test_bad_non_numeric);
  CU_add_test(s, "bad: negative size", test_bad_negative_size);
  CU_add_test(s, "bad: huge size", test_bad_huge);
  CU_add_test(s, "bad: binary garbage", test_bad_garbage);
  CU_add_test(s, "bad: lo > hi", test_bad_bounds);
  CU_add_test(s, "bad: findex", test_bad_findex);
  CU_add_test(s, "bad: missing file, unknown format", test_bad_missing_and_unknown);
  CU_add_test(s, "vectors", test_vectors);
  CU_add_test(s, "the memory cap", test_memory_cap);
  CU_add_test(s, "fc3d: hand-written files", test_fc3d_handwritten);
  CU_add_test(s, "fc3d: round trips, layout, refusals", test_fc3d_roundtrip);
  CU_add_test(s, "lcplab: cone_law", test_lcplab_cone_law);
  CU_add_test(s, "lcplab: the recorded solve", test_lcplab_recorded_solve);
  CU_add_test(s, "bad: fc3d", test_bad_fc3d);
  CU_add_test(s, "mtx: the sidecars a write puts beside it", test_write_sidecars);
  return tst_run();
}
