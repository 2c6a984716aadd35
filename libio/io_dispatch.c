/* io_dispatch.c -- the formats' readers, checks and writers, and io_read /
 * io_write over them.
 *
 * One row per format (io_internal.h, io_format_entry): reader, "can it
 * hold this instance" check, writer, and for a family of variants that
 * share an extension (the Siconos .dat) the variant that holds a given
 * instance.  Its name, extensions and sniff are its row of io_format.c.
 * Everything that depends on the format goes through the two tables: the
 * names and the extension map (io_format.c), the choice of reader, the
 * check and the writer (here).  Adding a format is one row in each and one
 * io_*.c file.  The top of the I/O library: this file calls every format's
 * reader and writer, and none of them calls back (docs/io.md, "The files").
 *
 * Format choice when reading with IO_FMT_AUTO:
 *   1. by extension (case-insensitive): the row that lists it; .dat is the
 *      siconos-lcp row, whose reader decides the variant (LCP, MLCP, relay
 *      or FC3D) from the content (io_siconos.c);
 *   2. any other extension: by the first bytes of the file, the first row
 *      whose sniff recognises them (the HDF5 signature: fclib; a zip local
 *      header "PK\3\4": npz; "MATLAB 5.0 MAT-file" or "MATLAB 7.3
 *      MAT-file", checked before the HDF5 signature: mat; first word "lcplab-problem": lcplab;
 *      "%%MatrixMarket": mtx);
 *   3. else SLV_ERR_INVALID with a message listing the supported formats.
 * After a successful parse the problem view goes through
 * slv_problem_validate (lo <= hi, finite A and b, findex structure, ...);
 * its message is returned as "FILE: <message>".  Then the instance gets its
 * name (base name without extension), format and kind.
 *
 * Writing with IO_FMT_AUTO takes the format from the extension, and for a
 * family (.dat) the variant that holds the instance (fc3d for cones, else
 * lcp, else mlcp, else relay).  An invalid problem is refused (the status of
 * slv_problem_validate), then the row's check refuses an instance the format
 * cannot hold (SLV_ERR_UNSUPPORTED, naming the row): nothing is written in
 * either case.
 */
#define _POSIX_C_SOURCE 200809L /* fdopen */

#include "io_internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- the table ----------------------------------------------------------- */

static const io_format_entry FORMATS[] = {
  { IO_FMT_SICONOS_LCP, io_read_siconos, io_holds_siconos, io_write_siconos, io_siconos_choose },
  { IO_FMT_SICONOS_MLCP, io_read_siconos, io_holds_siconos, io_write_siconos, NULL },
  { IO_FMT_SICONOS_RELAY, io_read_siconos, io_holds_siconos, io_write_siconos, NULL },
  { IO_FMT_BLCP, io_read_blcp, io_holds_no_cones, io_write_blcp, NULL },
  { IO_FMT_MTX, io_read_mtx, io_holds_no_cones, io_write_mtx, NULL },
  { IO_FMT_LCPLAB, io_read_lcplab, NULL, io_write_lcplab, NULL },
  { IO_FMT_SICONOS_FC3D, io_read_siconos, io_holds_fc3d, io_write_fc3d, NULL },
  { IO_FMT_FCLIB, io_read_fclib, io_holds_fc3d, io_write_fclib, NULL },
  { IO_FMT_SICONOS_GFC3D, io_read_siconos, io_holds_gfc3d, io_write_fc3d, NULL },
  { IO_FMT_NPZ, io_read_npz, io_holds_fc3d, io_write_npz, NULL },
  { IO_FMT_MAT, io_read_mat, NULL, io_write_mat, NULL },
};
enum { NFORMATS = sizeof FORMATS / sizeof FORMATS[0] };
_Static_assert((int)NFORMATS == (int)IO_FMT_LAST, "one row per format");

/* Every supported format, for the message of a file nothing recognises. */
static const char *const SUPPORTED =
    ".dat (Siconos LCP, MLCP, relay, FC3D or GFC3D), .blcp, .mtx (MatrixMarket), .lcp (lcplab), "
    ".hdf5 (FCLIB), .npz (ContactBench), .mat (MATLAB, read only), or a file whose first word is "
    "'lcplab-problem' or "
    "'%%MatrixMarket'";

const io_format_entry *io_format_row(io_format f) {
  for (int k = 0; k < NFORMATS; k++)
    if (FORMATS[k].id == f) return &FORMATS[k];
  return NULL;
}

/* ---- reading -------------------------------------------------------------- */

/* The row whose sniff recognises the first bytes of a file of unknown
 * extension: the head read is enough for every sniff (the HDF5 signature
 * may follow a user block of up to 1 MiB). */
#define SNIFF_BYTES ((size_t)(1u << 20) + 8)

static slv_status sniff_file(const io_req *rq, const io_format_entry **row) {
  *row = NULL;
  int fd;
  slv_status st = io_open_regular(rq->path, &fd, NULL, rq->err, rq->errlen);
  if (st) return st;
  FILE *f = fdopen(fd, "rb");
  char *head = f ? malloc(SNIFF_BYTES) : NULL;
  size_t len = head ? fread(head, 1, SNIFF_BYTES, f) : 0;
  if (f)
    fclose(f);
  else
    close(fd);
  if (!head) {
    io_msgf(rq->err, rq->errlen, "%s: out of memory reading the file", rq->path);
    return SLV_ERR_NOMEM;
  }
  *row = io_format_row(io_format_sniff(head, len));
  free(head);
  if (*row) return SLV_OK;
  /* the first word, named in the message as the text reader shows it */
  io_reader r;
  st = io_rd_open_req(&r, rq, 0);
  if (st) return st;
  io_token t;
  io_rd_next(&r, &t);
  st = io_rd_fail(&r, &t, SLV_ERR_INVALID, "a supported format: %s (extension '%s')", SUPPORTED,
                  io_extension(rq->path));
  io_rd_close(&r);
  return st;
}

static void set_name(io_instance *inst, const char *path) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  size_t n = strlen(base), e = strlen(io_extension(path));
  n -= e;
  if (n >= sizeof inst->name) n = sizeof inst->name - 1;
  memcpy(inst->name, base, n);
  inst->name[n] = '\0';
}

/* The row that reads path as fmt; rq->fmt is set to what the reader is
 * asked (IO_FMT_AUTO when chosen by extension or content). */
static slv_status reader_row(io_req *rq, io_format fmt, const io_format_entry **row) {
  rq->fmt = fmt;
  if (fmt != IO_FMT_AUTO) {
    *row = io_format_row(fmt);
    if (*row) return SLV_OK;
    io_msgf(rq->err, rq->errlen, "%s: expected a format in [0, %d], found %d", rq->path,
            (int)IO_FMT_LAST, (int)fmt);
    return SLV_ERR_INVALID;
  }
  *row = io_format_row(io_format_for_path(rq->path));
  return *row ? SLV_OK : sniff_file(rq, row);
}

/* After a parse: validate, then name, format and kind. */
static slv_status finish_read(const io_req *rq, const io_format_entry *row, io_instance *inst) {
  slv_problem p = io_instance_problem(inst);
  char msg[256];
  slv_status st = slv_problem_validate(&p, msg, sizeof msg);
  if (st) {
    io_msgf(rq->err, rq->errlen, "%s: %s", rq->path, msg);
    return st;
  }
  if (inst->format == IO_FMT_AUTO) inst->format = row->id;
  set_name(inst, rq->path);
  io_instance_classify(inst);
  return SLV_OK;
}

#define IO_READ_OPTIONS_MAGIC 0x10ca7e5du

io_read_options io_read_options_default(void) {
  io_read_options o;
  memset(&o, 0, sizeof o);
  o.max_memory = IO_DEFAULT_MAX_MEMORY;
  o.magic = IO_READ_OPTIONS_MAGIC;
  return o;
}

slv_status io_read_with(const char *path, io_format fmt, const io_read_options *opt,
                        io_instance **out, char *err, size_t errlen) {
  io_msgf(err, errlen, "%s", "");
  if (out) *out = NULL;
  if (!path || !out) {
    io_msgf(err, errlen, "io_read: path and out must not be NULL");
    return SLV_ERR_INVALID;
  }
  io_read_options def = io_read_options_default();
  if (!opt) opt = &def;
  if (opt->magic != IO_READ_OPTIONS_MAGIC) {
    io_msgf(err, errlen, "%s: read options not from io_read_options_default", path);
    return SLV_ERR_OPTIONS;
  }
  io_req rq = { path, IO_FMT_AUTO, opt->max_memory, err, errlen };
  const io_format_entry *row;
  slv_status st = reader_row(&rq, fmt, &row);
  if (st) return st;
  io_instance *inst = NULL;
  st = row->read(&rq, &inst);
  if (!st) st = finish_read(&rq, row, inst);
  if (st) {
    io_instance_free(inst);
    return st;
  }
  *out = inst;
  return SLV_OK;
}

slv_status io_read(const char *path, io_format fmt, io_instance **out, char *err, size_t errlen) {
  return io_read_with(path, fmt, NULL, out, err, errlen);
}

/* ---- writing -------------------------------------------------------------- */

/* The row that writes the standard output ("-") as fmt: lcplab for
 * IO_FMT_AUTO; the text formats that are one stream (not FCLIB, npz, nor
 * MatrixMarket with its sidecar files). */
static slv_status stdout_row(io_format fmt, char *err, size_t errlen, const io_format_entry **row) {
  if (fmt == IO_FMT_FCLIB || fmt == IO_FMT_NPZ || fmt == IO_FMT_MTX) {
    io_msgf(err, errlen,
            "-: the standard output takes one text stream: %s is not one (give a file name)",
            io_format_str(fmt));
    return SLV_ERR_UNSUPPORTED;
  }
  *row = io_format_row(fmt == IO_FMT_AUTO ? IO_FMT_LCPLAB : fmt);
  return *row ? SLV_OK : SLV_ERR_INVALID;
}

/* The row that writes path as fmt for inst (by extension and variant for
 * IO_FMT_AUTO). */
static slv_status writer_row(const char *path, io_format fmt, const io_instance *inst, char *err,
                             size_t errlen, const io_format_entry **row) {
  if (strcmp(path, "-") == 0) return stdout_row(fmt, err, errlen, row);
  if (fmt == IO_FMT_AUTO) {
    *row = io_format_row(io_format_for_path(path));
    if (!*row) {
      io_msgf(err, errlen,
              "%s: expected an extension .dat, .blcp, .mtx, .lcp, .hdf5 or "
              ".npz to choose the format, found '%s'",
              path, io_extension(path));
      return SLV_ERR_UNSUPPORTED;
    }
    if ((*row)->variant) *row = io_format_row((*row)->variant(inst));
    return SLV_OK;
  }
  *row = io_format_row(fmt);
  if (*row) return SLV_OK;
  io_msgf(err, errlen, "%s: expected a format in [1, %d], found %d", path, (int)IO_FMT_LAST,
          (int)fmt);
  return SLV_ERR_INVALID;
}

slv_status io_write(const char *path, io_format fmt, const io_instance *inst, char *err,
                    size_t errlen) {
  io_msgf(err, errlen, "%s", "");
  if (!path || !inst) {
    io_msgf(err, errlen, "io_write: path and instance must not be NULL");
    return SLV_ERR_INVALID;
  }
  slv_problem p = io_instance_problem(inst);
  char msg[256];
  slv_status st = slv_problem_validate(&p, msg, sizeof msg);
  if (st) {
    io_msgf(err, errlen, "%s: cannot write an invalid problem: %s", path, msg);
    return st;
  }
  const io_format_entry *row;
  if ((st = writer_row(path, fmt, inst, err, errlen, &row))) return st;
  if (inst->storage == SLV_FACTORED && row->id != IO_FMT_LCPLAB) {
    io_msgf(err, errlen, "%s: only the lcplab format (.lcp) holds factored storage", path);
    return SLV_ERR_UNSUPPORTED;
  }
  io_req rq = { path, row->id, SIZE_MAX, err, errlen };
  if (row->holds && (st = row->holds(&rq, inst))) return st;
  return row->write(&rq, inst);
}
