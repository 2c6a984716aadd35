/* io_siconos.c -- Siconos numerics text instances (.dat): LCP, MLCP, relay.
 *
 * The layouts are those of Siconos' readers (linearComplementarity_newFromFile,
 * mixedLinearComplementarity_newFromFile, relay_newFromFile), as documented
 * in datasets/README.md section 4.  Numbers are white-space separated; line
 * breaks do not matter.  After the last number of an LCP or relay file a remark may
 * follow (words: lcp_CPS_1..5 and lcp_exp_murty carry one), but not another
 * number: that would be data the format does not hold, and is refused
 * (no_extra_number).  MLCP files are not checked there: 12 of Siconos' MLCP
 * files end with a line of further numbers (a reference solution, in
 * Siconos' test collection), which is ignored.
 *
 *   M, A, B, C, D: NumericsMatrix (io_nm.c), read dense here.
 *   LCP:    n, M (n x n), q[n].            w = M z + q, 0 <= z _|_ w >= 0
 *           -> A = M, b = q, lo = 0, hi = +inf.
 *   relay:  n, M, q[n], lb[n], ub[n].       -> lo = lb, hi = ub.
 *   MLCP:   isStorageType1 isStorageType2 n m
 *           [st1: blocksRows (ints up to n+m), blocksIsComp (one per block),
 *                 M, q[size1 of M]]
 *           [st2: A (n x n), B (m x m), C (n x m), D (m x n), each ROW-major,
 *                 then a[n], b[m]]
 *           -> the first n unknowns free (lo = -inf, hi = +inf), the last m
 *              complementarity (lo = 0, hi = +inf); A = M, b = q when M is
 *              (n+m) x (n+m), else (Rectangular_mlcp.dat has a 3 x 2 M) the
 *              storage-2 blocks [[A, C], [D, B]] and [a; b].
 *
 * Which variant a .dat holds is decided from the content (io_read with
 * IO_FMT_AUTO), never from its folder:
 *   - MLCP when the file opens with two 0/1 flags (not both 0), n, m and,
 *     if the first flag is 1, a block-row list 0 <= ... <= n+m ending at
 *     n+m, one 0/1 per block and a storage type 0..2;
 *   - frictional contact (io_fc3d.c) when it opens "d nc storage d*nc d*nc"
 *     with d in {2, 3} and not like an LCP "n storage n n" (the two cannot
 *     both hold for d = 3: an LCP with n = 3 has 3, not a storage type, as
 *     its third number); d = 2 is then refused as 2-D friction;
 *   - otherwise it is read as an LCP; if after q there follow at least 2n
 *     numbers with lb[i] <= ub[i] for all i, they are read as relay bounds.
 *     (An LCP whose trailing remark starts with 2n such numbers would be
 *     taken for a relay problem; none of the Siconos files does.)
 *
 * Writing (dense, %.17g, column-major, one column per line, the layout of
 * Siconos' own writers): siconos-lcp needs lo = 0, hi = +inf; siconos-mlcp
 * needs the free rows first, then LCP rows, and writes isStorageType1 = 1
 * (M, q) and isStorageType2 = 1 (the blocks, row-major, and a, b);
 * siconos-relay holds any bounds.  None holds findex or cones: those give
 * SLV_ERR_UNSUPPORTED naming the row or the first cone, and nothing is
 * written (cone instances go to siconos-fc3d, io_fc3d.c).  x_ref is not
 * written.
 */
#include "io_internal.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The dense column-major copy of a matrix read as dense (for the LCP, relay
 * and MLCP readers, which ask for dense storage): takes a over. */
static double *nm_take_dense(io_nm *m) {
  double *a = m->a;
  m->a = NULL;
  return a;
}

/* ---- LCP and relay -------------------------------------------------------- */

/* After the last number a format holds: a remark (words, as in lcp_CPS_1's
 * "Remark ...") may follow, another number may not (it would be data the
 * format does not hold, read as nothing). */
static slv_status no_extra_number(io_reader *r, const char *after) {
  io_reader look = *r;
  io_token t;
  double v;
  io_rd_peek(r, &t);
  if (!io_rd_try_double(&look, &v)) return SLV_OK;
  return io_rd_fail(r, &t, SLV_ERR_INVALID, "the end of the file or a remark after %s", after);
}

/* After q: are there 2n numbers with lb[i] <= ub[i]?  (Look-ahead only.) */
static int relay_bounds_follow(const io_reader *r0, int n, double *scratch) {
  io_reader r = *r0;
  if (n == 0) return 0;
  for (int i = 0; i < n; i++)
    if (!io_rd_try_double(&r, &scratch[i])) return 0;
  for (int i = 0; i < n; i++) {
    double ub;
    if (!io_rd_try_double(&r, &ub) || ub < scratch[i]) return 0;
  }
  return 1;
}

static slv_status read_lcp_relay(io_reader *r, io_format fmt, io_instance **out, io_format *found) {
  int n;
  long line;
  slv_status st;
  char why[48];
  if ((st = io_rd_size(r, IO_MAX_N, &n, &line, "the size n"))) return st;
  /* q, lo, hi here, M (n x n, dense) in io_read_nm, both before any
   * allocation */
  if ((st = io_rd_reserve(r, line, io_instance_bytes(n, 0), "n = %d: q, lo, hi", n))) return st;
  snprintf(why, sizeof why, "n = %d", n);
  io_nm nm;
  if ((st = io_read_nm(r, "M", n, n, why, INT_MAX, 1, &nm, &line))) return st;
  /* q was counted with M's payload before M was allocated (io_read_nm's
   * vec_after); its n numbers are checked here once more, now from q */
  if ((st = io_rd_need(r, n, "q (n = %d)", n))) {
    io_nm_free(&nm);
    return st;
  }
  io_instance *inst = io_instance_alloc(n);
  if (!inst) {
    io_nm_free(&nm);
    return io_rd_failf(r, r->line, SLV_ERR_NOMEM, "out of memory for n = %d", n);
  }
  inst->A = nm_take_dense(&nm);
  if ((st = io_rd_doubles(r, (size_t)n, IO_RD_FINITE, inst->b, "q"))) goto fail;
  int relay = fmt == IO_FMT_SICONOS_RELAY;
  if (fmt == IO_FMT_AUTO) relay = relay_bounds_follow(r, n, inst->lo);
  for (int i = 0; i < n; i++) inst->lo[i] = 0.0; /* scratch of the look-ahead */
  if (relay) {
    if ((st = io_rd_need(r, 2.0 * n, "lb and ub (n = %d)", n))) goto fail;
    if ((st = io_rd_doubles(r, (size_t)n, IO_RD_INF_OK, inst->lo, "lb"))) goto fail;
    if ((st = io_rd_upper(r, n, inst->lo, inst->hi, "ub", "lb"))) goto fail;
  }
  if ((st = no_extra_number(r, relay ? "ub" : "q"))) goto fail;
  *found = relay ? IO_FMT_SICONOS_RELAY : IO_FMT_SICONOS_LCP;
  *out = inst;
  return SLV_OK;
fail:
  io_instance_free(inst);
  return st;
}

/* ---- MLCP --------------------------------------------------------------- */

static int looks_like_mlcp(const io_reader *r0) {
  io_reader r = *r0;
  long st1, st2, n, m, v, prev = 0;
  if (!io_rd_try_long(&r, &st1) || !io_rd_try_long(&r, &st2) || !io_rd_try_long(&r, &n) ||
      !io_rd_try_long(&r, &m))
    return 0;
  if (st1 < 0 || st1 > 1 || st2 < 0 || st2 > 1 || !(st1 || st2) || n < 0 || m < 0) return 0;
  if (!st1) return 1; /* "0 1 n m": as an LCP this would be n = 0 with an n x m matrix */
  long N = n + m, nb = -1;
  for (long k = 0; k <= N + 1; k++) {
    if (!io_rd_try_long(&r, &v) || v < prev || v > N || (k == 0 && v != 0)) return 0;
    prev = v;
    if (v == N) {
      nb = k;
      break;
    }
  }
  if (nb < 0) return 0;
  for (long k = 0; k < nb; k++)
    if (!io_rd_try_long(&r, &v) || (v != 0 && v != 1)) return 0;
  return io_rd_try_long(&r, &v) && v >= 0 && v <= 2;
}

/* What an MLCP file holds: its storage flags and sizes (N = n + m), and,
 * read so far, the storage-1 M (rows x cols, dense) with q, the
 * storage-2 blocks (blk, N x N dense). */
typedef struct mlcp {
  int st1, st2, n, m, N, rows, cols;
  long line, mline; /* the lines of n and of M */
  double *M, *q, *blk;
} mlcp;

/* isStorageType1, isStorageType2 (not both 0), n, m, within the limits and
 * the memory cap. */
static slv_status mlcp_header(io_reader *r, mlcp *c) {
  io_token t;
  slv_status st;
  if ((st = io_rd_int(r, 0, 1, &c->st1, "isStorageType1"))) return st;
  io_rd_peek(r, &t);
  if ((st = io_rd_int(r, 0, 1, &c->st2, "isStorageType2"))) return st;
  if (!c->st1 && !c->st2)
    return io_rd_fail(r, &t, SLV_ERR_INVALID, "isStorageType1 or isStorageType2 to be 1");
  if ((st = io_rd_size(r, IO_MAX_N, &c->n, &c->line, "n, the number of free rows"))) return st;
  if ((st = io_rd_size(r, IO_MAX_N, &c->m, NULL, "m, the number of complementarity rows")))
    return st;
  double N = (double)c->n + c->m;
  if (N > IO_MAX_N || N * N > (double)IO_MAX_NNZ)
    return io_rd_failf(r, c->line, SLV_ERR_DIM,
                       "expected n + m <= %d with (n+m)^2 <= %ld, found n = %d, m = %d", IO_MAX_N,
                       (long)IO_MAX_NNZ, c->n, c->m);
  c->N = c->n + c->m;
  /* the instance, and the storage-2 blocks (built dense) */
  return io_rd_reserve(r, c->line, io_instance_bytes(c->N, 1) + (c->st2 ? 8.0 * N * N : 0.0),
                       "n + m = %d: A, b, lo, hi%s", c->N,
                       c->st2 ? " and the storage-2 blocks" : "");
}

/* blocksRows: 0 <= ... up to n+m; then one 0/1 flag per block. */
static slv_status mlcp_blocks(io_reader *r, int N) {
  int nb = 0, v, prev = 0;
  slv_status st;
  for (int k = 0;; k++) {
    if (k > N + 1)
      return io_rd_failf(r, r->line, SLV_ERR_INVALID,
                         "expected blocksRows to reach n+m = %d within %d values", N, N + 2);
    if ((st = io_rd_int(r, k ? prev : 0, k ? N : 0, &v,
                        "blocksRows[%d], non-decreasing from 0 up to n+m = %d", k, N)))
      return st;
    prev = v;
    if (v == N) {
      nb = k;
      break;
    }
  }
  for (int k = 0; k < nb; k++)
    if ((st = io_rd_int(r, 0, 1, &v, "blocksIsComp[%d]", k))) return st;
  return SLV_OK;
}

/* Storage 1: the blocks, M (any size: Rectangular_mlcp.dat has 3 x 2) and
 * q of M's columns. */
static slv_status mlcp_storage1(io_reader *r, mlcp *c) {
  io_token t;
  slv_status st = mlcp_blocks(r, c->N);
  if (st) return st;
  io_rd_peek(r, &t);
  c->mline = t.line;
  io_nm nm;
  if ((st = io_read_nm(r, "M", -1, -1, "", INT_MAX, 1, &nm, &c->line))) return st;
  c->rows = nm.rows;
  c->cols = nm.cols;
  c->M = nm_take_dense(&nm);
  int cols = c->cols;
  if ((st = io_rd_need(r, cols, "q (the %d columns of M)", cols)) ||
      (st = io_rd_reserve(r, r->line, 8.0 * cols, "q (the %d columns of M)", cols)))
    return st;
  c->q = malloc((cols > 0 ? (size_t)cols : 1) * sizeof(double));
  if (!c->q) return io_rd_failf(r, r->line, SLV_ERR_NOMEM, "out of memory for q");
  return io_rd_doubles(r, (size_t)cols, IO_RD_FINITE, c->q, "q");
}

/* Storage 2: [[A, C], [D, B]], each block row-major in the file, into the
 * dense column-major (n+m) x (n+m) c->blk; then [a; b] into b. */
static slv_status mlcp_storage2(io_reader *r, mlcp *c, double *b) {
  int n = c->n, m = c->m;
  size_t ld = c->N > 0 ? (size_t)c->N : 1;
  c->blk = calloc(ld * ld, sizeof(double));
  if (!c->blk) return io_rd_failf(r, r->line, SLV_ERR_NOMEM, "out of memory for the blocks");
  slv_status st;
  if ((st = io_rd_matrix(r, n, n, 0, c->blk, ld, IO_RD_FINITE, "A")) ||
      (st = io_rd_matrix(r, m, m, 0, c->blk + n + n * ld, ld, IO_RD_FINITE, "B")) ||
      (st = io_rd_matrix(r, n, m, 0, c->blk + n * ld, ld, IO_RD_FINITE, "C")) ||
      (st = io_rd_matrix(r, m, n, 0, c->blk + n, ld, IO_RD_FINITE, "D")) ||
      (st = io_rd_doubles(r, (size_t)n, IO_RD_FINITE, b, "a")))
    return st;
  return io_rd_doubles(r, (size_t)m, IO_RD_FINITE, b + n, "b");
}

/* The dense (n+m)^2 instance, once the data to fill it is there: M of that
 * size already read, or the storage-2 blocks in what is left. */
static slv_status mlcp_instance(io_reader *r, mlcp *c, io_instance **out) {
  int N = c->N;
  slv_status st;
  if (!c->st2 && !(c->rows == N && c->cols == N))
    return io_rd_failf(r, c->mline, SLV_ERR_INVALID,
                       "expected M to be (n+m) x (n+m) = %d x %d, found %d x %d (and no "
                       "storage-2 blocks to use instead)",
                       N, N, c->rows, c->cols);
  if (c->st2 &&
      (st = io_rd_need(r, (double)N * N + N, "the storage-2 blocks (n = %d, m = %d)", c->n, c->m)))
    return st;
  io_instance *inst = io_instance_alloc(N);
  if (!inst || io_alloc_dense(inst)) {
    io_instance_free(inst);
    return io_rd_failf(r, r->line, SLV_ERR_NOMEM, "out of memory for n + m = %d", N);
  }
  if (c->st2 && (st = mlcp_storage2(r, c, inst->b))) {
    io_instance_free(inst);
    return st;
  }
  if (c->st1 && c->rows == N && c->cols == N) {
    memcpy(inst->A, c->M, (size_t)N * N * sizeof(double));
    memcpy(inst->b, c->q, (size_t)N * sizeof(double));
  } else {
    memcpy(inst->A, c->blk, (size_t)N * N * sizeof(double));
  }
  for (int i = 0; i < c->n; i++) inst->lo[i] = -INFINITY; /* free rows; the last m keep 0, +inf */
  *out = inst;
  return SLV_OK;
}

static slv_status read_mlcp(io_reader *r, io_instance **out) {
  mlcp c;
  memset(&c, 0, sizeof c);
  slv_status st = mlcp_header(r, &c);
  if (!st && c.st1) st = mlcp_storage1(r, &c);
  if (!st) st = mlcp_instance(r, &c, out);
  free(c.M);
  free(c.q);
  free(c.blk);
  return st;
}

/* The variant fmt (IO_FMT_AUTO: decided from the content); *found gets
 * the variant read. */
static slv_status read_variant(io_reader *r, io_format fmt, io_instance **out, io_format *found) {
  io_format asked = fmt;
  if (fmt == IO_FMT_AUTO && looks_like_mlcp(r)) fmt = IO_FMT_SICONOS_MLCP;
  if (fmt == IO_FMT_AUTO && io_looks_like_fc(r)) fmt = IO_FMT_SICONOS_FC3D;
  if (fmt == IO_FMT_SICONOS_FC3D || fmt == IO_FMT_SICONOS_GFC3D) {
    slv_status st = io_read_fc3d(r, out);
    if (st) return st;
    *found = (*out)->global ? IO_FMT_SICONOS_GFC3D : IO_FMT_SICONOS_FC3D;
    return io_fc_kind_is(r->path, asked, *found, r->err, r->errlen);
  }
  if (fmt == IO_FMT_SICONOS_MLCP) {
    *found = IO_FMT_SICONOS_MLCP;
    return read_mlcp(r, out);
  }
  return read_lcp_relay(r, fmt, out, found);
}

slv_status io_read_siconos(const io_req *rq, io_instance **out) {
  io_reader r;
  io_format found = rq->fmt;
  *out = NULL;
  slv_status st = io_rd_open_req(&r, rq, 0);
  if (!st) st = read_variant(&r, rq->fmt, out, &found);
  io_rd_close(&r);
  if (!st) (*out)->format = found;
  if (st) {
    io_instance_free(*out);
    *out = NULL;
  }
  return st;
}

/* ---- writing ------------------------------------------------------------- */

io_format io_siconos_choose(const io_instance *inst) {
  int all_lcp = 1, free_first = 1, seen_lcp = 0;
  for (int i = 0; i < inst->n; i++) {
    int lcp = inst->lo[i] == 0.0 && inst->hi[i] == INFINITY;
    int fr = inst->lo[i] == -INFINITY && inst->hi[i] == INFINITY;
    if (!lcp) all_lcp = 0;
    if (lcp) seen_lcp = 1;
    if ((!lcp && !fr) || (fr && seen_lcp)) free_first = 0;
  }
  if (inst->ncones > 0 && inst->global && inst->global->n == inst->n) return IO_FMT_SICONOS_GFC3D;
  if (inst->ncones > 0) return IO_FMT_SICONOS_FC3D;
  if (io_has_friction(inst)) return IO_FMT_SICONOS_RELAY;
  return all_lcp ? IO_FMT_SICONOS_LCP : free_first ? IO_FMT_SICONOS_MLCP : IO_FMT_SICONOS_RELAY;
}

static void fmt_bound(char *buf, size_t len, double v) {
  if (isinf(v))
    snprintf(buf, len, "%s", v > 0 ? "inf" : "-inf");
  else
    snprintf(buf, len, "%.17g", v);
}

/* Can fmt hold inst?  Else SLV_ERR_UNSUPPORTED and a message naming the row.
 * *nfree gets the number of leading free rows (mlcp). */
static slv_status check_siconos(const char *path, io_format fmt, const io_instance *inst,
                                int *nfree, char *err, size_t errlen) {
  const char *name = io_format_str(fmt);
  if (inst->ncones > 0) {
    io_msgf(err, errlen,
            "%s: %s cannot hold Coulomb cones; cone 0 covers rows %d..%d (ncones = "
            "%d; use siconos-fc3d, fclib or lcplab)",
            path, name, inst->cone_rows[0], inst->cone_rows[0] + 2, inst->ncones);
    return SLV_ERR_UNSUPPORTED;
  }
  for (int i = 0; inst->findex && i < inst->n; i++)
    if (inst->findex[i] >= 0) {
      io_msgf(err, errlen, "%s: %s cannot hold friction rows; row %d has findex %d", path, name, i,
              inst->findex[i]);
      return SLV_ERR_UNSUPPORTED;
    }
  *nfree = 0;
  int seen_lcp = -1;
  for (int i = 0; i < inst->n; i++) {
    double lo = inst->lo[i], hi = inst->hi[i];
    int lcp = lo == 0.0 && hi == INFINITY, fr = lo == -INFINITY && hi == INFINITY;
    char l[32], h[32];
    fmt_bound(l, sizeof l, lo);
    fmt_bound(h, sizeof h, hi);
    if (fmt == IO_FMT_SICONOS_LCP && !lcp) {
      io_msgf(err, errlen, "%s: siconos-lcp holds only lo=0, hi=inf; row %d has lo=%s, hi=%s", path,
              i, l, h);
      return SLV_ERR_UNSUPPORTED;
    }
    if (fmt == IO_FMT_SICONOS_MLCP) {
      if (!lcp && !fr) {
        io_msgf(err, errlen,
                "%s: siconos-mlcp holds only free rows (lo=-inf, hi=inf) followed "
                "by LCP rows (lo=0, hi=inf); row %d has lo=%s, hi=%s",
                path, i, l, h);
        return SLV_ERR_UNSUPPORTED;
      }
      if (fr && seen_lcp >= 0) {
        io_msgf(err, errlen,
                "%s: siconos-mlcp needs the free rows first; row %d is free but "
                "follows LCP row %d",
                path, i, seen_lcp);
        return SLV_ERR_UNSUPPORTED;
      }
      if (lcp && seen_lcp < 0) seen_lcp = i;
      if (fr) (*nfree)++;
    }
  }
  return SLV_OK;
}

static void write_vec(io_writer *w, int n, const double *v) {
  for (int i = 0; i < n; i++) io_wr_double(w, v[i], i + 1 < n ? ' ' : 0);
  fputc('\n', w->f);
}

/* rows x cols block of the column-major n x n A at (r0, c0), row by row. */
static void write_block_rows(io_writer *w, int n, const double *A, int r0, int c0, int rows,
                             int cols) {
  for (int i = 0; i < rows; i++) {
    for (int j = 0; j < cols; j++)
      io_wr_double(w, A[(size_t)(r0 + i) + (size_t)(c0 + j) * n], j + 1 < cols ? ' ' : 0);
    fputc('\n', w->f);
  }
}

slv_status io_holds_siconos(const io_req *rq, const io_instance *inst) {
  int nfree;
  return check_siconos(rq->path, rq->fmt, inst, &nfree, rq->err, rq->errlen);
}

slv_status io_write_siconos(const io_req *rq, const io_instance *inst) {
  const char *path = rq->path;
  io_format fmt = rq->fmt;
  char *err = rq->err;
  size_t errlen = rq->errlen;
  int nfree = 0, owned = 0, n = inst->n;
  slv_status st = check_siconos(path, fmt, inst, &nfree, err, errlen);
  if (st) return st;
  const double *A = io_dense_of(inst, &owned);
  if (!A) {
    io_msgf(err, errlen, "%s: expected a matrix small enough to write dense, found n = %d", path,
            n);
    return SLV_ERR_DIM;
  }
  io_writer w;
  if ((st = io_wr_open(&w, path, err, errlen))) goto done;
  if (fmt == IO_FMT_SICONOS_MLCP) {
    int m = n - nfree;
    fprintf(w.f, "1\n1\n%d\n%d\n", nfree, m);
    /* blocksRows {0, n, n+m} printed as Siconos does: up to the first value
     * that reaches n+m; then one flag per block (0 equality, 1 complementarity) */
    const int rowsb[3] = { 0, nfree, n };
    int nb = 0;
    fprintf(w.f, "%d ", rowsb[0]);
    while (rowsb[nb] < n) fprintf(w.f, "%d ", rowsb[++nb]);
    fputc('\n', w.f);
    for (int k = 0; k < nb; k++) fprintf(w.f, "%d ", k == 0 ? 0 : 1);
    fputc('\n', w.f);
    io_write_dense_nm(&w, n, A);
    write_vec(&w, n, inst->b);
    write_block_rows(&w, n, A, 0, 0, nfree, nfree); /* A */
    write_block_rows(&w, n, A, nfree, nfree, m, m); /* B */
    write_block_rows(&w, n, A, 0, nfree, nfree, m); /* C */
    write_block_rows(&w, n, A, nfree, 0, m, nfree); /* D */
    write_vec(&w, nfree, inst->b);                  /* a */
    write_vec(&w, m, inst->b + nfree);              /* b */
  } else {
    fprintf(w.f, "%d\n", n);
    io_write_dense_nm(&w, n, A);
    write_vec(&w, n, inst->b);
    if (fmt == IO_FMT_SICONOS_RELAY) {
      write_vec(&w, n, inst->lo);
      write_vec(&w, n, inst->hi);
    }
  }
  st = io_wr_close(&w);
done:
  if (owned) free((double *)A);
  return st;
}
