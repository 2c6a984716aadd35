/* test_npz.c -- ContactBench .npz problems (libio/io_npz.c).
 *
 * The permutation, by hand: members written here with libzip hold
 * G(r, s) = 100 r + s, g(r) = r + 0.5 (every value tells its row and
 * column) for nc = 2, with each contact (t1, t2, n) in the file.  lcplab's
 * row i = 3c + k takes the file's row P(i): P(3c) = 3c + 2 (the normal),
 * P(3c + 1) = 3c, P(3c + 2) = 3c + 1, so A(i, j) must be exactly
 * 100 P(i) + P(j) and b(i) = P(i) + 0.5; e.g. A(0, 0) = G(2, 2) = 202,
 * A(0, 1) = G(2, 0) = 200, A(3, 4) = G(5, 3) = 503.  The same values stored
 * in Fortran order and big-endian, with g as (n,) and (n, 1) and (1, n),
 * in .npy versions 1.0 and 2.0, as float64, float32 and float16 (each
 * value is exact in all three), give the same instance.
 *
 * Round trips: an FC3D instance with wild values (-0.0, denormals,
 * 1e+-300) written as .npz and read back is the same bit for bit (A, b,
 * cones), by extension and by content (a zip under another extension);
 * the writer's members are G (n, n) C order, g (n, 1), mus (nc,), stored,
 * numpy's 64-byte aligned header.  A warm start from lam0.npy is permuted
 * the same way.  Refusals: instances that are not all cones, the
 * associated law.
 *
 * Bad input: not a zip, a missing member, dtype <i8, a 3-D G, shapes that
 * disagree, a header that lies about the size (truncated data), NaN in G,
 * mu < 0, a broken header: a negative status, no instance, one line
 * naming the file and the member.  numpy itself (foreign files) is
 * tests/test_npz.sh.
 */
#define _POSIX_C_SOURCE 200809L
#include "slv.h"
#include "io.h"
#include "tst_util.h"

#include <CUnit/CUnit.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zip.h>

static char tmpdir[256];

static int suite_init(void) { return tst_tmpdir_make(tmpdir, sizeof tmpdir, "test_npz"); }

static int suite_clean(void) { return tst_tmpdir_remove(tmpdir); }

static void tpath(char *buf, size_t len, const char *name) { tst_tmp_path(buf, len, tmpdir, name); }

/* ---- writing .npz members by hand ------------------------------------------- */

typedef struct member {
  const char *name;  /* "G.npy" */
  const char *descr; /* "<f8" */
  int fortran;
  const char *shape; /* "(6, 6)" */
  const double *v;   /* values in the order the file stores them */
  size_t count;
  int version;        /* 1 or 2 */
  long size_lie;      /* added to the member's data (bytes): a truncated or padded member */
  const char *header; /* if non-NULL, the whole dict text instead */
} member;

/* The bits of the float16 equal to v: 0, or a normal value whose
 * significand fits 11 bits (the test's values). */
static uint16_t half_bits(double v) {
  if (v == 0) return 0;
  int e;
  double m = frexp(fabs(v), &e); /* |v| = m 2^e, m in [0.5, 1) */
  unsigned frac = (unsigned)((2 * m - 1) * 1024);
  return (uint16_t)((v < 0 ? 0x8000u : 0u) | (unsigned)(e - 1 + 15) << 10 | frac);
}

/* The element size of a descr "<f8", ">f4", "<f2" (8 for any other). */
static size_t descr_size(const char *descr) {
  if (!descr || descr[1] != 'f') return 8;
  return descr[2] == '4' ? 4 : descr[2] == '2' ? 2 : 8;
}

/* The .npy bytes of m (caller frees). */
static unsigned char *npy_bytes(const member *m, size_t *len) {
  char dict[256];
  if (m->header)
    snprintf(dict, sizeof dict, "%s", m->header);
  else
    snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }", m->descr,
             m->fortran ? "True" : "False", m->shape);
  size_t pre = m->version == 1 ? 10 : 12, d = strlen(dict) + 1;
  size_t pad = (64 - (pre + d) % 64) % 64, hlen = d + pad;
  int big = m->descr && m->descr[0] == '>';
  size_t esz = descr_size(m->descr);
  long data = (long)(esz * m->count) + m->size_lie;
  if (data < 0) data = 0;
  *len = pre + hlen + (size_t)data;
  unsigned char *b = calloc(*len + 8, 1);
  memcpy(b, "\x93NUMPY", 6);
  b[6] = (unsigned char)m->version;
  b[7] = 0;
  for (size_t k = 0; k < (m->version == 1 ? 2u : 4u); k++)
    b[8 + k] = (unsigned char)(hlen >> (8 * k));
  memcpy(b + pre, dict, d - 1);
  memset(b + pre + d - 1, ' ', pad);
  b[pre + hlen - 1] = '\n';
  unsigned char *out = b + pre + hlen;
  for (size_t k = 0; k < m->count && (long)((k + 1) * esz) <= data; k++) {
    unsigned char x[8];
    if (esz == 4) {
      float f = (float)m->v[k];
      memcpy(x, &f, 4);
    } else if (esz == 2) {
      uint16_t h = half_bits(m->v[k]);
      memcpy(x, &h, 2);
    } else {
      memcpy(x, &m->v[k], 8);
    }
    for (size_t i = 0; i < esz; i++) out[esz * k + i] = big ? x[esz - 1 - i] : x[i];
  }
  return b;
}

/* Writes the members into NAME with libzip (stored); returns its path. */
static void write_npz(const char *name, const member *ms, int count, char *path, size_t plen) {
  tpath(path, plen, name);
  remove(path);
  int code = 0;
  zip_t *za = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &code);
  CU_ASSERT_PTR_NOT_NULL_FATAL(za);
  unsigned char *bufs[8];
  for (int k = 0; k < count; k++) {
    size_t len;
    bufs[k] = npy_bytes(&ms[k], &len);
    zip_source_t *src = zip_source_buffer(za, bufs[k], len, 0);
    zip_int64_t idx = zip_file_add(za, ms[k].name, src, 0);
    CU_ASSERT(idx >= 0);
    zip_set_file_compression(za, (zip_uint64_t)idx, ZIP_CM_STORE, 0);
  }
  CU_ASSERT_EQUAL(zip_close(za), 0);
  for (int k = 0; k < count; k++) free(bufs[k]);
}

/* ---- the permutation ------------------------------------------------------------ */

enum { NC = 2, N = 6 };
static double G_c[N * N], G_f[N * N], g_v[N], mus_v[NC] = { 0.5, 0.75 };

static void fill_values(void) {
  for (int r = 0; r < N; r++) {
    for (int s = 0; s < N; s++) {
      G_c[r * N + s] = 100.0 * r + s; /* C order: row r, column s */
      G_f[r + s * N] = 100.0 * r + s; /* Fortran order */
    }
    g_v[r] = r + 0.5;
  }
}

static int P(int i) {
  int c = i / 3, k = i % 3;
  return 3 * c + (k == 0 ? 2 : k - 1);
}

static io_instance *read_ok(const char *path) {
  char err[512];
  io_instance *inst = NULL;
  slv_status st = io_read(path, IO_FMT_AUTO, &inst, err, sizeof err);
  if (st) printf("\n  %s", err);
  CU_ASSERT_EQUAL(st, SLV_CONVERGED);
  return inst;
}

static void check_permuted(const io_instance *inst) {
  CU_ASSERT_PTR_NOT_NULL_FATAL(inst);
  CU_ASSERT_EQUAL_FATAL(inst->n, N);
  CU_ASSERT_EQUAL(inst->storage, SLV_DENSE);
  CU_ASSERT_EQUAL(inst->format, IO_FMT_NPZ);
  CU_ASSERT_STRING_EQUAL(inst->kind, "cone");
  int bad = 0;
  for (int i = 0; i < N; i++) {
    for (int j = 0; j < N; j++) bad += inst->A[i + j * N] != 100.0 * P(i) + P(j);
    bad += inst->b[i] != P(i) + 0.5;
    bad += inst->lo[i] != -INFINITY || inst->hi[i] != INFINITY;
  }
  CU_ASSERT_EQUAL(bad, 0);
  CU_ASSERT_EQUAL(inst->A[0], 202.0);         /* A(0,0) = G(2,2) */
  CU_ASSERT_EQUAL(inst->A[0 + 1 * N], 200.0); /* A(0,1) = G(2,0) */
  CU_ASSERT_EQUAL(inst->A[3 + 4 * N], 503.0); /* A(3,4) = G(5,3) */
  CU_ASSERT_EQUAL(inst->ncones, NC);
  for (int c = 0; c < NC; c++) {
    CU_ASSERT_EQUAL(inst->cone_rows[c], 3 * c);
    CU_ASSERT_EQUAL(inst->cone_mu[c], mus_v[c]);
  }
  CU_ASSERT_EQUAL(inst->cone_law, SLV_CONE_COULOMB);
  CU_ASSERT_PTR_NULL(inst->findex);
}

static void test_permutation(void) {
  char p[512];
  /* the map itself: file row (t1, t2, n) of contact c -> lcplab's (n, t1, t2) */
  static const size_t lab[6] = { 1, 2, 0, 4, 5, 3 };
  for (size_t r = 0; r < 6; r++) CU_ASSERT_EQUAL(io_contactbench_row(r), lab[r]);
  fill_values();
  struct {
    const char *name, *descr, *gshape;
    int fortran, version;
  } cases[] = {
    { "c.npz", "<f8", "(6, 1)", 0, 1 },  { "f.npz", "<f8", "(6,)", 1, 1 },
    { "be.npz", ">f8", "(1, 6)", 0, 2 }, { "bef.npz", ">f8", "(6, 1)", 1, 1 },
    { "f4.npz", "<f4", "(6, 1)", 0, 1 }, { "f4bef.npz", ">f4", "(6,)", 1, 2 },
    { "f2.npz", "<f2", "(6, 1)", 0, 1 }, { "f2bef.npz", ">f2", "(6,)", 1, 1 },
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    member ms[3] = {
      { "G.npy", cases[k].descr, cases[k].fortran, "(6, 6)", cases[k].fortran ? G_f : G_c, N * N,
        cases[k].version, 0, NULL },
      { "g.npy", cases[k].descr, 0, cases[k].gshape, g_v, N, cases[k].version, 0, NULL },
      { "mus.npy", cases[k].descr, 0, "(2,)", mus_v, NC, cases[k].version, 0, NULL },
    };
    write_npz(cases[k].name, ms, 3, p, sizeof p);
    io_instance *inst = read_ok(p);
    check_permuted(inst);
    io_instance_free(inst);
  }
}

/* ---- round trips ---------------------------------------------------------------- */

static double wild(unsigned long *s) {
  *s = *s * 6364136223846793005ul + 1442695040888963407ul;
  unsigned k = (unsigned)(*s >> 60);
  if (k == 0) return -0.0;
  if (k == 1) return 4.9406564584124654e-324;
  double u = (double)(*s >> 11) / 9007199254740992.0;
  return (u - 0.5) * pow(10.0, (double)(int)((*s >> 33) % 601) - 300);
}

static io_instance *fc_instance(int nc, unsigned long seed) {
  int n = 3 * nc;
  io_instance *inst = io_instance_new_dense(n);
  for (int k = 0; k < n * n; k++) inst->A[k] = wild(&seed);
  for (int i = 0; i < n; i++) {
    inst->b[i] = wild(&seed);
    inst->lo[i] = -INFINITY;
  }
  inst->ncones = nc;
  inst->cone_rows = malloc((size_t)nc * sizeof(int));
  inst->cone_mu = malloc((size_t)nc * sizeof(double));
  for (int c = 0; c < nc; c++) {
    inst->cone_rows[c] = 3 * c;
    inst->cone_mu[c] = 0.1 * (c % 9);
  }
  io_instance_classify(inst);
  return inst;
}

static void test_roundtrip(void) {
  char p[512], q[512], err[512];
  io_instance *inst = fc_instance(7, 99);
  tpath(p, sizeof p, "rt.npz");
  CU_ASSERT_EQUAL_FATAL(io_write(p, IO_FMT_AUTO, inst, err, sizeof err), SLV_CONVERGED);
  for (int pass = 0; pass < 2; pass++) {
    if (pass) { /* the same bytes under another extension: recognised by content */
      tpath(q, sizeof q, "rt.bin");
      CU_ASSERT_EQUAL(rename(p, q), 0);
    }
    io_instance *back = read_ok(pass ? q : p);
    CU_ASSERT_PTR_NOT_NULL_FATAL(back);
    size_t n = (size_t)inst->n;
    CU_ASSERT_EQUAL(back->format, IO_FMT_NPZ);
    CU_ASSERT(memcmp(back->A, inst->A, n * n * sizeof(double)) == 0);
    CU_ASSERT(memcmp(back->b, inst->b, n * sizeof(double)) == 0);
    CU_ASSERT(memcmp(back->cone_mu, inst->cone_mu, 7 * sizeof(double)) == 0);
    CU_ASSERT(memcmp(back->cone_rows, inst->cone_rows, 7 * sizeof(int)) == 0);
    io_instance_free(back);
  }
  /* the writer's members: names, shapes, stored, 64-byte aligned v1.0 headers */
  int code = 0;
  zip_t *za = zip_open(q, ZIP_RDONLY, &code);
  CU_ASSERT_PTR_NOT_NULL_FATAL(za);
  CU_ASSERT_EQUAL(zip_get_num_entries(za, 0), 3);
  static const char *const names[3] = { "G.npy", "g.npy", "mus.npy" };
  static const char *const shapes[3] = { "'shape': (21, 21)", "'shape': (21, 1)", "'shape': (7,)" };
  for (int k = 0; k < 3; k++) {
    zip_stat_t zs;
    CU_ASSERT_EQUAL_FATAL(zip_stat(za, names[k], 0, &zs), 0);
    CU_ASSERT_EQUAL(zs.comp_method, ZIP_CM_STORE);
    zip_file_t *zf = zip_fopen(za, names[k], 0);
    char head[129] = "";
    CU_ASSERT_EQUAL(zip_fread(zf, head, 128), 128);
    zip_fclose(zf);
    CU_ASSERT_EQUAL(memcmp(head, "\x93NUMPY\x01\x00", 8), 0);
    size_t hlen = (unsigned char)head[8] | (size_t)(unsigned char)head[9] << 8;
    CU_ASSERT_EQUAL((10 + hlen) % 64, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(head + 10, "'descr': '<f8', 'fortran_order': False"));
    CU_ASSERT_PTR_NOT_NULL(strstr(head + 10, shapes[k]));
  }
  zip_close(za);
  /* refusals: nothing written */
  inst->cone_law = SLV_CONE_ASSOCIATED;
  tpath(p, sizeof p, "assoc.npz");
  CU_ASSERT_EQUAL(io_write(p, IO_FMT_AUTO, inst, err, sizeof err), SLV_ERR_UNSUPPORTED);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "npz holds Coulomb's law"));
  CU_ASSERT_EQUAL(access(p, F_OK), -1);
  io_instance_free(inst);
  io_instance *lcp = io_instance_new_dense(3);
  for (int i = 0; i < 3; i++) lcp->A[i * 4] = 1.0;
  tpath(p, sizeof p, "lcp.npz");
  CU_ASSERT_EQUAL(io_write(p, IO_FMT_AUTO, lcp, err, sizeof err), SLV_ERR_UNSUPPORTED);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "npz holds only frictional-contact problems"));
  CU_ASSERT_EQUAL(access(p, F_OK), -1);
  io_instance_free(lcp);
}

/* lam0.npy as a warm start: the same permutation as g. */
static void test_warm_start(void) {
  char p[512], err[512];
  fill_values();
  member ms[4] = {
    { "G.npy", "<f8", 0, "(6, 6)", G_c, N * N, 1, 0, NULL },
    { "g.npy", "<f8", 0, "(6, 1)", g_v, N, 1, 0, NULL },
    { "mus.npy", "<f8", 0, "(2,)", mus_v, NC, 1, 0, NULL },
    { "lam0.npy", "<f8", 0, "(6, 1)", g_v, N, 1, 0, NULL },
  };
  write_npz("warm.npz", ms, 4, p, sizeof p);
  double x[N];
  CU_ASSERT_EQUAL(io_read_start(p, N, x, err, sizeof err), SLV_CONVERGED);
  for (int i = 0; i < N; i++) CU_ASSERT_EQUAL(x[i], P(i) + 0.5);
  CU_ASSERT_EQUAL(io_read_start(p, 9, x, err, sizeof err), SLV_ERR_INVALID);
  CU_ASSERT_PTR_NOT_NULL(
      strstr(err, "expected lam0.npy to be a vector of n = 9 values, found 6 x 1"));
  write_npz("nowarm.npz", ms, 3, p, sizeof p);
  CU_ASSERT_EQUAL(io_read_start(p, N, x, err, sizeof err), SLV_ERR_INVALID);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "expected the array lam0.npy in the npz"));
}

/* ---- bad input ------------------------------------------------------------------ */

static void bad(const char *name, slv_status want, const char *must) {
  char p[512], err[512];
  tpath(p, sizeof p, name);
  io_instance *inst = (io_instance *)&inst;
  slv_status st = io_read(p, IO_FMT_AUTO, &inst, err, sizeof err);
  printf("\n  %-14s %s", slv_status_str(st), err);
  CU_ASSERT_EQUAL(st, want);
  CU_ASSERT_PTR_NULL(inst);
  CU_ASSERT_PTR_NULL(strchr(err, '\n'));
  CU_ASSERT_EQUAL(strncmp(err, p, strlen(p)), 0);
  if (!strstr(err, must)) printf("\n  (wanted '%s')", must);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, must));
}

static void test_bad(void) {
  char p[512];
  fill_values();
  double nan_G[N * N], neg_mu[NC] = { 0.5, -0.25 };
  memcpy(nan_G, G_c, sizeof nan_G);
  nan_G[1 * N + 4] = NAN;
  member good[3] = {
    { "G.npy", "<f8", 0, "(6, 6)", G_c, N * N, 1, 0, NULL },
    { "g.npy", "<f8", 0, "(6,)", g_v, N, 1, 0, NULL },
    { "mus.npy", "<f8", 0, "(2,)", mus_v, NC, 1, 0, NULL },
  };
  member m[3];
  tpath(p, sizeof p, "text.npz");
  FILE *f = fopen(p, "w");
  fputs("not a zip archive\n", f);
  fclose(f);
  bad("text.npz", SLV_ERR_INVALID, "expected a numpy .npz (a zip archive), found");
  write_npz("nomus.npz", good, 2, p, sizeof p);
  bad("nomus.npz", SLV_ERR_INVALID, "expected the array mus.npy in the npz");
  memcpy(m, good, sizeof m);
  m[0].descr = "<i8";
  write_npz("i8.npz", m, 3, p, sizeof p);
  bad("i8.npz", SLV_ERR_UNSUPPORTED,
      "expected G.npy to hold float64, float32 or float16 ('<f8', '<f4', '<f2'; '>' "
      "big-endian), found dtype '<i8'");
  memcpy(m, good, sizeof m);
  m[0].descr = "<f4";
  m[0].size_lie = 4 * N * N; /* float64's size under a float32 header */
  write_npz("f4big.npz", m, 3, p, sizeof p);
  bad("f4big.npz", SLV_ERR_INVALID,
      "expected G.npy to hold 272 bytes (a 128-byte header and 36 float32), found 416");
  memcpy(m, good, sizeof m);
  m[0].shape = "(6, 3, 2)";
  write_npz("g3d.npz", m, 3, p, sizeof p);
  bad("g3d.npz", SLV_ERR_INVALID, "'shape': a tuple of at most 2 sizes in G.npy's header");
  memcpy(m, good, sizeof m);
  m[0].shape = "(6, 5)";
  m[0].count = 30;
  write_npz("g65.npz", m, 3, p, sizeof p);
  bad("g65.npz", SLV_ERR_INVALID,
      "expected G.npy to be 3 nc x 3 nc = 6 x 6 (mus.npy has nc = 2), found 6 x 5");
  memcpy(m, good, sizeof m);
  m[1].shape = "(5,)";
  m[1].count = 5;
  write_npz("g5.npz", m, 3, p, sizeof p);
  bad("g5.npz", SLV_ERR_INVALID, "expected g.npy to be a vector of 3 nc = 6 values");
  memcpy(m, good, sizeof m);
  m[0].size_lie = -8;
  write_npz("short.npz", m, 3, p, sizeof p);
  bad("short.npz", SLV_ERR_INVALID,
      "expected G.npy to hold 416 bytes (a 128-byte header and 36 float64), found 408");
  memcpy(m, good, sizeof m);
  m[0].v = nan_G;
  write_npz("nan.npz", m, 3, p, sizeof p);
  bad("nan.npz", SLV_ERR_INVALID, "expected finite values in G.npy, found [1, 4] = nan");
  memcpy(m, good, sizeof m);
  m[2].v = neg_mu;
  write_npz("negmu.npz", m, 3, p, sizeof p);
  bad("negmu.npz", SLV_ERR_INVALID, "expected finite values >= 0 in mus.npy, found [1] = -0.25");
  memcpy(m, good, sizeof m);
  m[1].header = "{'descr': '<f8', 'fortran_order': Maybe, 'shape': (6,), }";
  write_npz("hdr.npz", m, 3, p, sizeof p);
  bad("hdr.npz", SLV_ERR_INVALID, "'fortran_order': True or False");
  memcpy(m, good, sizeof m);
  m[1].header = "{'descr': '<f8', 'shape': (6,), }";
  write_npz("nofo.npz", m, 3, p, sizeof p);
  bad("nofo.npz", SLV_ERR_INVALID,
      "expected 'descr', 'fortran_order' and 'shape' in g.npy's header");
  /* a truncated archive: the first 200 bytes of a good one */
  write_npz("good.npz", good, 3, p, sizeof p);
  io_instance *ok = read_ok(p);
  io_instance_free(ok);
  FILE *a = fopen(p, "rb");
  char buf[200];
  size_t got = fread(buf, 1, sizeof buf, a);
  fclose(a);
  tpath(p, sizeof p, "trunc.npz");
  f = fopen(p, "wb");
  fwrite(buf, 1, got, f);
  fclose(f);
  bad("trunc.npz", SLV_ERR_INVALID, "expected a numpy .npz (a zip archive), found");
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return 2;
  CU_pSuite s = CU_add_suite("npz", suite_init, suite_clean);
  CU_add_test(s, "the (t1, t2, n) -> (n, t1, t2) permutation, by hand", test_permutation);
  CU_add_test(s, "round trips, the writer's members, refusals", test_roundtrip);
  CU_add_test(s, "lam0.npy as a warm start", test_warm_start);
  CU_add_test(s, "bad input", test_bad);
  return tst_run();
}
