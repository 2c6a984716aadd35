/* io_vector.c -- plain vectors, and solutions and starting points.
 *
 * Plain vectors: one value per line, '#' comments.  Used for --warm /
 * --solution files (io_read_vector, io_write_vector) and for the
 * MatrixMarket sidecars FOO.b, FOO.lo, FOO.hi, FOO.findex, FOO.mu
 * (io_read_vec / io_read_ivec / io_write_vec).
 *
 * Solutions and starting points (io_read_start, io_write_solution) go by
 * the extension: FCLIB's /solution and /guesses in .hdf5 / .h5
 * (io_fclib_read.c), ContactBench's lam0 in .npz (a start only, io_npz.c), else
 * a plain vector.
 *
 * Reading: white space separates the values (one per line is what we write;
 * any layout is read), '#' starts a comment to the end of the line.  Exactly
 * n values: fewer gives "FILE:LINE: expected a finite number for x[k],
 * found end of file", more gives "expected end of file after the n values".
 * io_read_vector wants finite values (a starting point or a solution); the
 * sidecars lo / hi accept inf and -inf.
 *
 * Writing: %.17g, one per line, so that reading gives back the same bits;
 * infinities as "inf" / "-inf".  Statuses: SLV_ERR_INVALID (bad file),
 * SLV_ERR_DIM (n < 0 or n > IO_MAX_N).
 */
#include "io_internal.h"

#include <stdlib.h>
#include <unistd.h>

static slv_status check_n(const char *path, int n, const void *x, char *err, size_t errlen) {
  if (n < 0 || n > IO_MAX_N) {
    io_msgf(err, errlen, "%s: expected a vector size in [0, %d], found %d", path ? path : "(null)",
            IO_MAX_N, n);
    return SLV_ERR_DIM;
  }
  if (!path || (!x && n > 0)) {
    io_msgf(err, errlen, "%s: expected a path and a vector, found NULL", path ? path : "(null)");
    return SLV_ERR_INVALID;
  }
  return SLV_OK;
}

static slv_status expect_end(io_reader *r, int n) {
  io_token t;
  if (io_rd_next(r, &t))
    return io_rd_fail(r, &t, SLV_ERR_INVALID, "end of file after the %d values", n);
  return SLV_OK;
}

slv_status io_read_vec(const char *path, int n, int flags, double *x, const char *name,
                       size_t max_memory, char *err, size_t errlen) {
  slv_status st = check_n(path, n, x, err, errlen);
  if (st) return st;
  io_reader r;
  if ((st = io_rd_open(&r, path, '#', max_memory, err, errlen))) return st;
  if (!(st = io_rd_need(&r, n, "%s (n = %d)", name, n)) &&
      !(st = io_rd_doubles(&r, (size_t)n, flags, x, name)))
    st = expect_end(&r, n);
  io_rd_close(&r);
  return st;
}

slv_status io_read_ivec(const char *path, int n, long lo, long hi, int not_self, int *x,
                        const char *name, size_t max_memory, char *err, size_t errlen) {
  slv_status st = check_n(path, n, x, err, errlen);
  if (st) return st;
  io_reader r;
  if ((st = io_rd_open(&r, path, '#', max_memory, err, errlen))) return st;
  st = io_rd_need(&r, n, "%s (n = %d)", name, n);
  for (int i = 0; i < n && !st; i++) {
    io_token t;
    io_rd_peek(&r, &t);
    st = io_rd_int(&r, lo, hi, &x[i], "%s[%d]", name, i);
    if (!st && not_self && x[i] == i)
      st = io_rd_fail(&r, &t, SLV_ERR_INVALID,
                      "%s[%d] != %d (a friction row couples to another, normal row)", name, i, i);
  }
  if (!st) st = expect_end(&r, n);
  io_rd_close(&r);
  return st;
}

slv_status io_vec_room(const char *path, int n, const char *name, char *err, size_t errlen) {
  int fd;
  double size;
  slv_status st = io_open_regular(path, &fd, &size, err, errlen);
  if (st) return st;
  close(fd);
  if (n <= 0 || size >= 2.0 * n - 1.0) return SLV_OK;
  io_msgf(err, errlen,
          "%s:1: expected %d number%s for %s (n = %d), found only %.0f bytes left in the file",
          path, n, n == 1 ? "" : "s", name, n, size);
  return SLV_ERR_INVALID;
}

slv_status io_write_vec(const char *path, int n, const double *x, char *err, size_t errlen) {
  slv_status st = check_n(path, n, x, err, errlen);
  if (st) return st;
  io_writer w;
  if ((st = io_wr_open(&w, path, err, errlen))) return st;
  io_wr_vec(&w, n, x);
  return io_wr_close(&w);
}

slv_status io_read_vector(const char *path, int n, double *x, char *err, size_t errlen) {
  io_msgf(err, errlen, "%s", "");
  return io_read_vec(path, n, IO_RD_FINITE, x, "x", IO_DEFAULT_MAX_MEMORY, err, errlen);
}

slv_status io_write_vector(const char *path, int n, const double *x, char *err, size_t errlen) {
  io_msgf(err, errlen, "%s", "");
  return io_write_vec(path, n, x, err, errlen);
}

/* ---- solutions and starting points ------------------------------------------ */

slv_status io_read_start(const char *path, int n, double *x, char *err, size_t errlen) {
  io_msgf(err, errlen, "%s", "");
  slv_status st = check_n(path, n, x, err, errlen);
  if (st) return st;
  io_format f = io_format_for_path(path);
  if (f == IO_FMT_FCLIB) return io_fclib_read_start(path, n, x, IO_DEFAULT_MAX_MEMORY, err, errlen);
  if (f == IO_FMT_NPZ) return io_npz_read_guess(path, n, x, IO_DEFAULT_MAX_MEMORY, err, errlen);
  return io_read_vec(path, n, IO_RD_FINITE, x, "x", IO_DEFAULT_MAX_MEMORY, err, errlen);
}

slv_status io_can_write_solution(const char *path, const io_instance *inst, char *err,
                                 size_t errlen) {
  io_msgf(err, errlen, "%s", "");
  if (!path || !inst) {
    io_msgf(err, errlen, "io_write_solution: path and instance must not be NULL");
    return SLV_ERR_INVALID;
  }
  io_format f = io_format_for_path(path);
  if (f == IO_FMT_NPZ) {
    io_msgf(err, errlen,
            "%s: a solution is written as FCLIB (.hdf5, .h5) or as a plain "
            "vector (another extension), not as .npz",
            path);
    return SLV_ERR_UNSUPPORTED;
  }
  if (f != IO_FMT_FCLIB) return SLV_OK;
  io_req rq = { path, IO_FMT_FCLIB, 0, err, errlen };
  return io_holds_fc3d(&rq, inst);
}

slv_status io_write_solution(const char *path, const io_instance *inst, const double *x,
                             const double *x0, char *err, size_t errlen) {
  slv_status st = io_can_write_solution(path, inst, err, errlen);
  if (st) return st;
  if ((st = check_n(path, inst->n, x, err, errlen))) return st;
  if (io_format_for_path(path) == IO_FMT_FCLIB)
    return io_fclib_write_solution(path, inst, x, x0, err, errlen);
  return io_write_vec(path, inst->n, x, err, errlen);
}
