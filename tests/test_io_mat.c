/* test_io_mat.c -- MATLAB MAT-files (libio/io_mat.c).
 *
 * Files written here with libmatio, as version 5 and 7.3, hold the LCP
 * w = M z + q of docs/problem.md (A = M, b = q) with, by hand,
 *     M = [2 1 0; 1 3 0; 0.5 0 1],  q = (-3, -4, 1):
 * z3 = 0 leaves [2 1; 1 3] z = (3, 4), so z = (1, 1, 0), w = (0, 0, 1.5).
 * M(3, 1) = 0.5 and M(1, 3) = 0 tell the orientation.  Dense and sparse
 * (CSC) M, names M/q and A/b, bounds lo/hi: A and b read back exactly,
 * lemke solves to (1, 1, 0).
 *
 * Bad input: each refusal is a negative status, no instance, one line
 * naming the file and the variable.  Writing a .mat is refused.  With
 * ../shared: the four DCA-BL benchmark files (MATLAB 7.3, sparse M of
 * n = 100) read, and lemke (dantzig on lcp6) converges on each.
 */
#define _POSIX_C_SOURCE 200809L
#include "slv.h"
#include "io.h"
#include "tst_util.h"

#include <CUnit/CUnit.h>
#include <math.h>
#include <matio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char tmpdir[256];

static int suite_init(void) { return tst_tmpdir_make(tmpdir, sizeof tmpdir, "test_io_mat"); }

static int suite_clean(void) { return tst_tmpdir_remove(tmpdir); }

/* M column-major, and its CSC */
static const double M_DENSE[9] = { 2, 1, 0.5, 1, 3, 0, 0, 0, 1 };
static const double Q[3] = { -3, -4, 1 };
static const double Z[3] = { 1, 1, 0 };

/* ---- writing MAT-files with libmatio ------------------------------------------ */

/* how put_var writes a version 5 variable (test_tags sets zlib) */
static enum matio_compression compression = MAT_COMPRESSION_NONE;

/* One variable to write: a dense double (rows x cols values), a sparse
 * (CSC) or another class. */
typedef struct var {
  const char *name;
  size_t rows, cols;
  const double *v;             /* dense values, column-major; or the sparse values */
  const mat_uint32_t *ir, *jc; /* sparse when jc != NULL */
  mat_uint32_t nnz;
  enum matio_classes cls; /* 0: double */
  int complex_;
} var;

static void put_var(mat_t *m, const var *v) {
  size_t dims[2] = { v->rows, v->cols };
  matvar_t *mv = NULL;
  if (v->jc) {
    mat_sparse_t s = {
      v->nnz, (mat_uint32_t *)v->ir, v->nnz, (mat_uint32_t *)v->jc, (mat_uint32_t)v->cols + 1,
      v->nnz, (void *)v->v
    };
    mv = Mat_VarCreate(v->name, MAT_C_SPARSE, MAT_T_DOUBLE, 2, dims, &s, 0);
  } else if (v->complex_) {
    mat_complex_split_t c = { (void *)v->v, (void *)v->v };
    mv = Mat_VarCreate(v->name, MAT_C_DOUBLE, MAT_T_DOUBLE, 2, dims, &c, MAT_F_COMPLEX);
  } else if (v->cls == MAT_C_INT32) {
    int32_t iv[9] = { 0 };
    for (size_t k = 0; k < v->rows * v->cols && k < 9; k++) iv[k] = (int32_t)v->v[k];
    mv = Mat_VarCreate(v->name, MAT_C_INT32, MAT_T_INT32, 2, dims, iv, 0);
  } else {
    mv = Mat_VarCreate(v->name, MAT_C_DOUBLE, MAT_T_DOUBLE, 2, dims, (void *)v->v, 0);
  }
  CU_ASSERT_PTR_NOT_NULL_FATAL(mv);
  CU_ASSERT_EQUAL(Mat_VarWrite(m, mv, compression), 0);
  Mat_VarFree(mv);
}

/* Writes vars (a NULL name ends them) into tmpdir/name as version ver;
 * the path in buf. */
static void write_mat(char *buf, size_t len, const char *name, enum mat_ft ver, const var *vars) {
  tst_tmp_path(buf, len, tmpdir, name);
  mat_t *m = Mat_CreateVer(buf, NULL, ver);
  CU_ASSERT_PTR_NOT_NULL_FATAL(m);
  for (const var *v = vars; v->name; v++) put_var(m, v);
  Mat_Close(m);
}

static const mat_uint32_t JC[4] = { 0, 3, 5, 6 };
static const mat_uint32_t IR6[6] = { 0, 1, 2, 0, 1, 2 };
static const double SV[6] = { 2, 1, 0.5, 1, 3, 1 };

/* ---- reading them back ---------------------------------------------------- */

/* inst's A as dense column-major n x n in A (dense or CSR, duplicates
 * summed). */
static void dense_copy(const io_instance *inst, double *A) {
  int n = inst->n;
  if (inst->storage == SLV_DENSE) {
    memcpy(A, inst->A, (size_t)n * (size_t)n * sizeof *A);
    return;
  }
  memset(A, 0, (size_t)n * (size_t)n * sizeof *A);
  for (int i = 0; i < n; i++)
    for (int k = inst->Ap[i]; k < inst->Ap[i + 1]; k++)
      A[(size_t)inst->Aj[k] * n + i] += inst->Ax[k];
}

/* inst holds M and q exactly (dense or CSR) with bounds 0, +inf. */
static void check_problem(const io_instance *inst) {
  CU_ASSERT_EQUAL_FATAL(inst->n, 3);
  CU_ASSERT_EQUAL(inst->format, IO_FMT_MAT);
  slv_problem p = io_instance_problem(inst);
  double A[9];
  dense_copy(inst, A);
  for (int k = 0; k < 9; k++) CU_ASSERT_EQUAL(A[k], M_DENSE[k]);
  for (int i = 0; i < 3; i++) CU_ASSERT_EQUAL(inst->b[i], Q[i]);
  const slv_solver *sv = slv_solver_find("lemke");
  slv_options o = slv_options_default();
  double x[3] = { 0 };
  slv_result res;
  slv_workspace *ws = NULL;
  CU_ASSERT_EQUAL_FATAL(slv_workspace_new(sv, 3, &o, &ws), SLV_OK);
  CU_ASSERT_EQUAL(slv_solve(ws, &p, &o, x, NULL, &res), SLV_CONVERGED);
  for (int i = 0; i < 3; i++) CU_ASSERT_DOUBLE_EQUAL(x[i], Z[i], 1e-12);
  slv_workspace_free(ws);
}

static void read_ok(const char *path, int storage) {
  io_instance *inst = NULL;
  char err[512];
  slv_status st = io_read(path, IO_FMT_AUTO, &inst, err, sizeof err);
  if (st) fprintf(stderr, "\n%s\n", err);
  CU_ASSERT_EQUAL_FATAL(st, SLV_OK);
  CU_ASSERT_EQUAL(inst->storage, storage);
  check_problem(inst);
  io_instance_free(inst);
}

static void test_dense_sparse(void) {
  char path[512];
  const var dense[] = { { "M", 3, 3, M_DENSE, NULL, NULL, 0, 0, 0 },
                        { "q", 1, 3, Q, NULL, NULL, 0, 0, 0 },
                        { NULL, 0, 0, NULL, NULL, NULL, 0, 0, 0 } };
  const var sparse[] = { { "A", 3, 3, SV, IR6, JC, 6, 0, 0 },
                         { "n", 1, 1, Q, NULL, NULL, 0, 0, 0 },
                         { "b", 3, 1, Q, NULL, NULL, 0, 0, 0 },
                         { NULL, 0, 0, NULL, NULL, NULL, 0, 0, 0 } };
  static const enum mat_ft vers[2] = { MAT_FT_MAT5, MAT_FT_MAT73 };
  for (int k = 0; k < 2; k++) {
    write_mat(path, sizeof path, k ? "dense73.mat" : "dense5.mat", vers[k], dense);
    read_ok(path, SLV_DENSE);
    write_mat(path, sizeof path, k ? "sparse73.mat" : "sparse5.mat", vers[k], sparse);
    read_ok(path, SLV_CSR);
  }
  /* by content under another extension: the MATLAB header before HDF5's */
  write_mat(path, sizeof path, "dense73.bin", MAT_FT_MAT73, dense);
  read_ok(path, SLV_DENSE);
  write_mat(path, sizeof path, "dense5.dat5", MAT_FT_MAT5, dense);
  read_ok(path, SLV_DENSE);
}

static void test_bounds(void) {
  char path[512], err[512];
  static const double lo[3] = { -1, 0, -INFINITY }, hi[3] = { 0.5, INFINITY, 2 };
  const var vars[] = { { "M", 3, 3, M_DENSE, NULL, NULL, 0, 0, 0 },
                       { "q", 3, 1, Q, NULL, NULL, 0, 0, 0 },
                       { "lo", 3, 1, lo, NULL, NULL, 0, 0, 0 },
                       { "hi", 1, 3, hi, NULL, NULL, 0, 0, 0 },
                       { NULL, 0, 0, NULL, NULL, NULL, 0, 0, 0 } };
  write_mat(path, sizeof path, "bounds.mat", MAT_FT_MAT5, vars);
  io_instance *inst = NULL;
  CU_ASSERT_EQUAL_FATAL(io_read(path, IO_FMT_MAT, &inst, err, sizeof err), SLV_OK);
  for (int i = 0; i < 3; i++) {
    CU_ASSERT_EQUAL(inst->lo[i], lo[i]);
    CU_ASSERT_EQUAL(inst->hi[i], hi[i]);
  }
  CU_ASSERT_STRING_EQUAL(inst->kind, "blcp");
  /* writing a .mat is refused, nothing written */
  char out[512];
  tst_tmp_path(out, sizeof out, tmpdir, "out.mat");
  CU_ASSERT_EQUAL(io_write(out, IO_FMT_AUTO, inst, err, sizeof err), SLV_ERR_UNSUPPORTED);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "does not write them"));
  FILE *f = fopen(out, "rb");
  CU_ASSERT_PTR_NULL(f);
  if (f) fclose(f);
  io_instance_free(inst);
}

/* ---- refusals ------------------------------------------------------------- */

/* path is refused with a message that names path and each of words. */
static void refused(const char *path, const char *w1, const char *w2) {
  io_instance *inst = NULL;
  char err[512] = "";
  slv_status st = io_read(path, IO_FMT_AUTO, &inst, err, sizeof err);
  CU_ASSERT(st < 0);
  CU_ASSERT_PTR_NULL(inst);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, path));
  CU_ASSERT_PTR_NOT_NULL(strstr(err, w1));
  if (w2) CU_ASSERT_PTR_NOT_NULL(strstr(err, w2));
  if (!strstr(err, w1) || (w2 && !strstr(err, w2))) fprintf(stderr, "\n  message: %s\n", err);
  io_instance_free(inst);
}

typedef struct bad_case {
  const char *file;
  var v[4]; /* ended by a NULL name */
  const char *w1, *w2;
} bad_case;

#define END                                                                                        \
  { NULL, 0, 0, NULL, NULL, NULL, 0, 0, 0 }
#define MVAR                                                                                       \
  { "M", 3, 3, M_DENSE, NULL, NULL, 0, 0, 0 }
#define QVAR                                                                                       \
  { "q", 3, 1, Q, NULL, NULL, 0, 0, 0 }

static const double NANS[9] = { 2, 1, 0.5, 1, NAN, 0, 0, 0, 1 };
static const double QINF[3] = { -3, INFINITY, 1 };
static const double HI_LOW[3] = { 1, -1, 1 };
static const mat_uint32_t IR_OUT[6] = { 0, 1, 7, 0, 1, 2 };
static const mat_uint32_t JC_DOWN[4] = { 0, 3, 2, 6 };

static const bad_case BAD[] = {
  { "no_m.mat", { QVAR, END, END }, "expected a variable M or A", NULL },
  { "no_q.mat", { MVAR, END, END }, "expected a variable q or b", NULL },
  { "rect.mat", { { "M", 3, 2, M_DENSE, NULL, NULL, 0, 0, 0 }, QVAR, END }, "M", "square" },
  { "short_q.mat", { MVAR, { "q", 2, 1, Q, NULL, NULL, 0, 0, 0 }, END }, "q to be 3 x 1", NULL },
  { "complex.mat", { { "M", 3, 3, M_DENSE, NULL, NULL, 0, 0, 1 }, QVAR, END }, "M", "real" },
  { "int32.mat",
    { { "M", 3, 3, M_DENSE, NULL, NULL, 0, MAT_C_INT32, 0 }, QVAR, END },
    "M of class double",
    "int32" },
  { "nan.mat",
    { { "M", 3, 3, NANS, NULL, NULL, 0, 0, 0 }, QVAR, END },
    "finite values in M",
    "(2, 2)" },
  { "qinf.mat",
    { MVAR, { "q", 3, 1, QINF, NULL, NULL, 0, 0, 0 }, END },
    "finite values in q",
    NULL },
  { "lo_hi.mat",
    { MVAR, QVAR, { "hi", 3, 1, HI_LOW, NULL, NULL, 0, 0, 0 } },
    "expected lo <= hi",
    "hi(2) = -1" },
  { "ir.mat", { { "M", 3, 3, SV, IR_OUT, JC, 6, 0, 0 }, QVAR, END }, "M.ir rows in [0, 3)", NULL },
  { "jc.mat", { { "M", 3, 3, SV, IR6, JC_DOWN, 6, 0, 0 }, QVAR, END }, "M.jc nondecreasing", NULL },
};

static void test_bad(void) {
  char path[512], name[64];
  static const enum mat_ft vers[2] = { MAT_FT_MAT5, MAT_FT_MAT73 };
  for (size_t k = 0; k < sizeof BAD / sizeof BAD[0]; k++)
    for (int v = 0; v < 2; v++) {
      snprintf(name, sizeof name, "%d_%s", v ? 73 : 5, BAD[k].file);
      write_mat(path, sizeof path, name, vers[v], BAD[k].v);
      refused(path, BAD[k].w1, BAD[k].w2);
    }
  /* not a MAT-file, under .mat */
  tst_tmp_path(path, sizeof path, tmpdir, "text.mat");
  FILE *f = fopen(path, "w");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  fputs("lcplab-problem 1\n", f);
  fclose(f);
  refused(path, "expected a MATLAB MAT-file", NULL);
}

/* A good file cut short at several lengths: refused, never read with
 * missing values (libmatio alone reads a version 5 file cut inside q's
 * data with garbage in q), nor a crash nor a print. */
static void test_truncated(void) {
  const var dense[] = { MVAR, QVAR, END };
  static const enum mat_ft vers[2] = { MAT_FT_MAT5, MAT_FT_MAT73 };
  char path[512], cut[512], err[512];
  for (int v = 0; v < 2; v++) {
    write_mat(path, sizeof path, v ? "whole73.mat" : "whole5.mat", vers[v], dense);
    FILE *f = fopen(path, "rb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    static char buf[1 << 16];
    size_t len = fread(buf, 1, sizeof buf, f);
    fclose(f);
    tst_tmp_path(cut, sizeof cut, tmpdir, v ? "cut73.mat" : "cut5.mat");
    for (size_t at = 0; at < len; at += len / 13 + 1) {
      FILE *g = fopen(cut, "wb");
      CU_ASSERT_PTR_NOT_NULL_FATAL(g);
      fwrite(buf, 1, at, g);
      fclose(g);
      io_instance *inst = NULL;
      slv_status st = io_read(cut, IO_FMT_AUTO, &inst, err, sizeof err);
      CU_ASSERT(st < 0 && !inst && strstr(err, cut));
      if (at > 128) CU_ASSERT_PTR_NULL(strstr(err, "found neither"));
      io_instance_free(inst);
    }
  }
}

/* Tags inside a version 5 variable that promise more than the variable
 * holds: refused from the tags, before libmatio allocates what they claim
 * (tests/fuzz/regressions/mat/ holds the fuzzer's case, 3 GB asked).  The
 * first variable's tag is at byte 128; its flags subelement's byte count at
 * 140, its dims' at 156, the dims (rows, cols) at 160, the name "M" in a
 * small element at 168 and the values' byte count at 180 (libmatio writes
 * little-endian here, as this machine). */
static void test_tags(void) {
  const var dense[] = { MVAR, QVAR, END };
  char path[512];
  static const struct {
    const char *file;
    long at;
    uint32_t value;
    const char *want;
  } PATCH[] = {
    { "flags_bytes.mat", 140, 0x40000000u, "expected an array flags subelement of 8 bytes" },
    { "dims_bytes.mat", 156, 10u, "expected a dimensions subelement of 4-byte values" },
    { "real_bytes.mat", 180, 0x40000000u, "expected every subelement inside its variable" },
    { "dims_rows.mat", 160, 100000u, "to hold its 300000 values in its" },
  };
  for (size_t k = 0; k < sizeof PATCH / sizeof PATCH[0]; k++) {
    write_mat(path, sizeof path, PATCH[k].file, MAT_FT_MAT5, dense);
    FILE *f = fopen(path, "r+b");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    unsigned char b[4] = { PATCH[k].value & 0xff, PATCH[k].value >> 8 & 0xff,
                           PATCH[k].value >> 16 & 0xff, PATCH[k].value >> 24 };
    CU_ASSERT_EQUAL(fseek(f, PATCH[k].at, SEEK_SET), 0);
    CU_ASSERT_EQUAL(fwrite(b, 1, 4, f), 4);
    fclose(f);
    refused(path, PATCH[k].want, "at byte 128");
  }
  /* the same good file compressed (miCOMPRESSED, walked inflated) reads */
  compression = MAT_COMPRESSION_ZLIB;
  write_mat(path, sizeof path, "zlib5.mat", MAT_FT_MAT5, dense);
  compression = MAT_COMPRESSION_NONE;
  char err[512];
  io_instance *inst = NULL;
  slv_status st = io_read(path, IO_FMT_AUTO, &inst, err, sizeof err);
  if (st) fprintf(stderr, "\n%s\n", err);
  CU_ASSERT_EQUAL(st, SLV_OK);
  CU_ASSERT(inst && inst->n == 3);
  io_instance_free(inst);
}

/* ---- version 7.3 object headers ------------------------------------------------ */

/* The offset of the first n bytes pat in buf[0..len), or -1. */
static long find_bytes(const unsigned char *buf, size_t len, const void *pat, size_t n) {
  for (size_t k = 0; k + n <= len; k++)
    if (memcmp(buf + k, pat, n) == 0) return (long)k;
  return -1;
}

/* A version 7.3 file (dense M, q) with value written over the w bytes at
 * offset at (little-endian): refused, naming the file and want. */
static void patched73(const char *file, long (*where)(const unsigned char *, size_t),
                      uint64_t value, int w, const char *want) {
  const var dense[] = { MVAR, QVAR, END };
  char path[512];
  static unsigned char buf[1 << 16];
  write_mat(path, sizeof path, file, MAT_FT_MAT73, dense);
  FILE *f = fopen(path, "r+b");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  size_t len = fread(buf, 1, sizeof buf, f);
  long at = where(buf, len);
  CU_ASSERT_FATAL(at > 512);
  unsigned char b[8];
  for (int k = 0; k < w; k++) b[k] = (unsigned char)(value >> (8 * k));
  CU_ASSERT_EQUAL(fseek(f, at, SEEK_SET), 0);
  CU_ASSERT_EQUAL(fwrite(b, 1, (size_t)w, f), (size_t)w);
  fclose(f);
  refused(path, want, NULL);
}

/* Where the first attribute (MATLAB_class, version 1: its name 8 bytes
 * into the message's data, padded to 16; the datatype, whose size is 4
 * bytes in, after it) keeps its datatype's size, and its message header
 * (type, size: 8 bytes before the data) its size. */
static long class_type_size(const unsigned char *buf, size_t len) {
  long at = find_bytes(buf, len, "MATLAB_class", 12);
  return at < 0 ? -1 : at + 16 + 4;
}
static long class_msg_size(const unsigned char *buf, size_t len) {
  long at = find_bytes(buf, len, "MATLAB_class", 12);
  return at < 0 ? -1 : at - 16 + 2;
}
/* The type of the first filter pipeline message (version 1: its data
 * holds the filter's name "deflate" 16 bytes in; the message header, type
 * first, 8 bytes before the data). */
static long filter_msg_type(const unsigned char *buf, size_t len) {
  long at = find_bytes(buf, len, "deflate", 7);
  return at < 0 ? -1 : at - 16 - 8;
}
/* The root group's object header's chunk 0 size: the superblock (version
 * 0, at 512, 8-byte addresses) gives the header's address at its byte
 * 24 + 5 x 8; a version 1 header keeps the size 8 bytes in. */
static long root_chunk_size(const unsigned char *buf, size_t len) {
  if (len < 512 + 72 || buf[512 + 8] != 0 || buf[512 + 13] != 8) return -1;
  uint64_t root = 0;
  for (int k = 7; k >= 0; k--) root = root << 8 | buf[512 + 64 + k];
  return root + 512 + 12 <= len ? (long)root + 512 + 8 : -1;
}
/* M's dataspace message (version 1, rank 2, max dims: HDF5's (3, 3)); its
 * first dim (MATLAB's columns) 8 bytes in. */
static long m_dims(const unsigned char *buf, size_t len) {
  static const unsigned char ds[24] = { 1, 2, 1, 0, 0, 0, 0, 0, 3, 0, 0, 0,
                                        0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0 };
  long at = find_bytes(buf, len, ds, sizeof ds);
  return at < 0 ? -1 : at + 8;
}

/* Damaged object headers in a version 7.3 file are refused from their
 * bytes, before HDF5 loads them (libio/io_hdf5_ohdr.c, io_mat73.c): HDF5
 * 1.10.8 copies an attribute's value past its message (the fuzzer's
 * tests/fuzz/regressions/mat/v73-hdf5-attr-overflow.mat) and allocates a
 * chunk's claimed size; a dataspace promising more than the file stores is
 * refused before the read. */
static void test_v73_headers(void) {
  patched73("attr_value.mat", class_type_size, 0x10000000u, 4,
            "whose value (1 points of 268435456 bytes) runs past its");
  patched73("attr_msg.mat", class_msg_size, 0xfff0u, 2, "running past its chunk's end");
  patched73("m_dims.mat", m_dims, 1000u, 8, "expected /M to hold 24000 bytes of data, found 72");
  /* the root group's header claiming 4 GB: H5Fopen would load it */
  patched73("root_chunk.mat", root_chunk_size, 0xf0000000u, 4,
            "expected a MAT-file 7.3 whose root group HDF5 can load, found chunk 0 of "
            "4026531840 bytes");
  /* compressed (chunked, deflate), its filter message retyped to one HDF5
   * does not know: the deflated chunk taken for a raw one of 72 bytes (as
   * tests/fuzz/regressions/mat/v73-chunk-stored-short.edits) */
  compression = MAT_COMPRESSION_ZLIB;
  patched73("filter_type.mat", filter_msg_type, 0x07ffu, 2,
            "expected /M stored in whole chunks, found a chunk stored in");
  compression = MAT_COMPRESSION_NONE;
}

/* ---- the DCA-BL benchmark (../shared) ------------------------------------------ */

static void test_dca_bl(void) {
  char dir[4096], path[4200], err[512];
  if (!tst_shared_path("datasets/other/dca-bl_benchmark_lcps", dir, sizeof dir)) {
    printf("\n    SKIP: ../shared/datasets not found (set LCPLAB_SHARED)");
    return;
  }
  for (int k = 6; k <= 9; k++) {
    snprintf(path, sizeof path, "%s/lcp%d-n100.mat", dir, k);
    io_instance *inst = NULL;
    slv_status st = io_read(path, IO_FMT_AUTO, &inst, err, sizeof err);
    if (st) fprintf(stderr, "\n%s\n", err);
    CU_ASSERT_EQUAL_FATAL(st, SLV_OK);
    CU_ASSERT_EQUAL(inst->n, 100);
    CU_ASSERT_EQUAL(inst->format, IO_FMT_MAT);
    CU_ASSERT_STRING_EQUAL(inst->kind, "lcp");
    slv_problem p = io_instance_problem(inst);
    /* lcp6's M is symmetric positive definite (a P-matrix) but condition
     * ~3e8: lemke stops at its pivot limit after ~1 s (26843 pivots) and
     * dantzig converges (315 pivots); the other three are lemke's. */
    const slv_solver *sv = slv_solver_find(k == 6 ? "dantzig" : "lemke");
    slv_options o = slv_options_default();
    double x[100] = { 0 };
    slv_result res;
    slv_workspace *ws = NULL;
    CU_ASSERT_EQUAL_FATAL(slv_workspace_new(sv, 100, &o, &ws), SLV_OK);
    st = slv_solve(ws, &p, &o, x, NULL, &res);
    printf("\n    %s lcp%d-n100.mat: %s, res_rel %.2e", sv->name, k, slv_status_str(st),
           res.res.res_rel);
    CU_ASSERT_EQUAL(st, SLV_CONVERGED);
    /* honest: the test's own residual (dense copy of the CSR M) meets tol */
    static double A[100 * 100];
    dense_copy(inst, A);
    CU_ASSERT(tst_scaled_dense(100, A, p.b, p.lo, p.hi, x) <= o.tol * 1.000001);
    slv_workspace_free(ws);
    io_instance_free(inst);
  }
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return 2;
  CU_pSuite s = CU_add_suite("mat", suite_init, suite_clean);
  CU_add_test(s, "dense and sparse M, v5 and v7.3, read exactly and solved", test_dense_sparse);
  CU_add_test(s, "lo and hi; writing refused", test_bounds);
  CU_add_test(s, "bad input: one line naming the variable", test_bad);
  CU_add_test(s, "truncated files", test_truncated);
  CU_add_test(s, "tags promising more than the variable holds", test_tags);
  CU_add_test(s, "version 7.3: damaged object headers", test_v73_headers);
  CU_add_test(s, "the DCA-BL benchmark files (../shared)", test_dca_bl);
  return tst_run();
}
