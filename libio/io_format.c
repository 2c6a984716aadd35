/* io_format.c -- what each format is called and how it is recognised: one
 * row per format (io_internal.h, io_format_desc) with its name, the
 * extensions that select it and a sniff of a file's first bytes; the names
 * and the extension map of io.h (io_format_str, io_format_from_str,
 * io_format_for_path).  Its readers and writers are the rows of
 * io_dispatch.c, which reads and writes through both tables.
 *
 * A leaf of the I/O library: any reader or writer may name a format in a
 * message, and this file calls none of them, so the dependencies run one
 * way (docs/io.md, "The files").
 *
 * Recognised by content (a file of unknown extension), the first row whose
 * sniff says yes: "%%MatrixMarket" (mtx), a first word "lcplab-problem"
 * (lcplab), "MATLAB 5.0 / 7.3 MAT-file" (mat, before the HDF5 signature
 * that a version 7.3 file also has), the HDF5 signature (fclib), a zip local header "PK\3\4" (npz).
 */
#include "io_internal.h"

#include <string.h>

/* ---- sniffing: what the first bytes say --------------------------------- */

/* Where the first word of a text file starts: after white space and '#'
 * comment lines. */
static size_t first_word(const char *head, size_t len) {
  size_t p = 0;
  for (;;) {
    while (p < len && (head[p] == ' ' || head[p] == '\t' || head[p] == '\r' || head[p] == '\n'))
      p++;
    if (p >= len || head[p] != '#') return p;
    while (p < len && head[p] != '\n') p++;
  }
}

/* Is the first word `word` (whole: white space or the end after it)? */
static int first_word_is(const char *head, size_t len, const char *word) {
  size_t p = first_word(head, len), k = strlen(word);
  if (len - p < k || memcmp(head + p, word, k) != 0) return 0;
  p += k;
  return p == len || head[p] == ' ' || head[p] == '\t' || head[p] == '\r' || head[p] == '\n';
}

static int sniff_lcplab(const char *head, size_t len) {
  return first_word_is(head, len, "lcplab-problem");
}

/* The banner's first word, "%%MatrixMarket" (the reader checks the rest). */
static int sniff_mtx(const char *head, size_t len) {
  size_t p = first_word(head, len);
  return len - p >= 14 && memcmp(head + p, "%%MatrixMarket", 14) == 0;
}

/* The HDF5 signature \x89HDF\r\n\x1a\n, at 0 or after a user block of
 * 512, 1024, 2048 ... bytes (up to 1 MiB). */
int io_is_hdf5_bytes(const char *buf, size_t len) {
  static const char sig[8] = { '\x89', 'H', 'D', 'F', '\r', '\n', '\x1a', '\n' };
  for (size_t at = 0; at + 8 <= len; at = at ? 2 * at : 512) {
    if (memcmp(buf + at, sig, 8) == 0) return 1;
    if (at > (1u << 20)) break;
  }
  return 0;
}

/* A MAT-file starts with its 116-byte text header, "MATLAB 5.0 MAT-file"
 * or "MATLAB 7.3 MAT-file" (version 7.3 is HDF5 after a 512-byte user
 * block: this sniff must come before the HDF5 one). */
static int sniff_mat(const char *head, size_t len) {
  return len >= 19 && memcmp(head, "MATLAB ", 7) == 0 && memcmp(head + 10, " MAT-file", 9) == 0;
}

/* A zip archive starts with a local file header, "PK\3\4". */
static int sniff_zip(const char *head, size_t len) {
  return len >= 4 && memcmp(head, "PK\x03\x04", 4) == 0;
}

/* ---- the table ----------------------------------------------------------- */

/* The first row that lists an extension is the one reading by extension
 * uses; the Siconos rows after siconos-lcp list none (io_format_for_path
 * gives siconos-lcp for every .dat, whose reader decides the variant). */
static const io_format_desc FORMATS[] = {
  { IO_FMT_SICONOS_LCP, "siconos-lcp", { ".dat", NULL, NULL }, NULL },
  { IO_FMT_SICONOS_MLCP, "siconos-mlcp", { NULL, NULL, NULL }, NULL },
  { IO_FMT_SICONOS_RELAY, "siconos-relay", { NULL, NULL, NULL }, NULL },
  { IO_FMT_BLCP, "blcp", { ".blcp", NULL, NULL }, NULL },
  { IO_FMT_MTX, "mtx", { ".mtx", NULL, NULL }, sniff_mtx },
  { IO_FMT_LCPLAB, "lcplab", { ".lcp", NULL, NULL }, sniff_lcplab },
  { IO_FMT_SICONOS_FC3D, "siconos-fc3d", { NULL, NULL, NULL }, NULL },
  { IO_FMT_MAT, "mat", { ".mat", NULL, NULL }, sniff_mat },
  { IO_FMT_FCLIB, "fclib", { ".hdf5", ".h5", NULL }, io_is_hdf5_bytes },
  { IO_FMT_SICONOS_GFC3D, "siconos-gfc3d", { NULL, NULL, NULL }, NULL },
  { IO_FMT_NPZ, "npz", { ".npz", NULL, NULL }, sniff_zip },
};
enum { NFORMATS = sizeof FORMATS / sizeof FORMATS[0] };

static const io_format_desc *desc_of(io_format f) {
  for (int k = 0; k < NFORMATS; k++)
    if (FORMATS[k].id == f) return &FORMATS[k];
  return NULL;
}

const char *io_extension(const char *path) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  const char *dot = strrchr(base, '.');
  return (dot && dot != base) ? dot : "";
}

static int same_ci(const char *a, const char *b) {
  for (; *a && *b; a++, b++) {
    int ca = (*a >= 'A' && *a <= 'Z') ? *a - 'A' + 'a' : *a;
    int cb = (*b >= 'A' && *b <= 'Z') ? *b - 'A' + 'a' : *b;
    if (ca != cb) return 0;
  }
  return *a == *b;
}

static const io_format_desc *by_ext(const char *path) {
  const char *ext = io_extension(path);
  if (!*ext) return NULL;
  for (int k = 0; k < NFORMATS; k++)
    for (int e = 0; e < 3 && FORMATS[k].ext[e]; e++)
      if (same_ci(ext, FORMATS[k].ext[e])) return &FORMATS[k];
  return NULL;
}

/* ---- names (io.h) ----------------------------------------------------- */

const char *io_format_str(io_format f) {
  if (f == IO_FMT_AUTO) return "auto";
  const io_format_desc *d = desc_of(f);
  return d ? d->name : "unknown";
}

int io_format_from_str(const char *s) {
  if (!s) return -1;
  if (strcmp(s, "auto") == 0) return IO_FMT_AUTO;
  for (int k = 0; k < NFORMATS; k++)
    if (strcmp(s, FORMATS[k].name) == 0) return (int)FORMATS[k].id;
  return -1;
}

io_format io_format_for_path(const char *path) {
  const io_format_desc *d = path ? by_ext(path) : NULL;
  return d ? d->id : IO_FMT_AUTO;
}

io_format io_format_sniff(const char *head, size_t len) {
  for (int k = 0; k < NFORMATS; k++)
    if (FORMATS[k].sniff && FORMATS[k].sniff(head, len)) return FORMATS[k].id;
  return IO_FMT_AUTO;
}
