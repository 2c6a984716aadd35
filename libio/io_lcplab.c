/* io_lcplab.c -- lcplab's own self-describing text format (.lcp).
 *
 * One problem per file, keyword headers, '#' comments to the end of a line,
 * free white space (the layout below is what the writer produces):
 *
 *     lcplab-problem 1          magic word and format version (first token)
 *     kind blcp                 optional; checked against the data
 *     n 3                       required, before any sized section
 *     storage dense             optional: dense (default), csr or factored
 *     A                         dense: n*n numbers, COLUMN-major
 *     4 1 0                       (the writer puts column j on line j+1)
 *     1 4 1
 *     0 1 4
 *     Ap / Aj / Ax              csr instead of A: Ap = n+1 row pointers from
 *                               0, non-decreasing; Aj = Ap[n] column indices
 *                               in [0, n); Ax = Ap[n] values
 *     b                         required, n finite numbers; w = A x + b
 *     lo                        optional (default 0), n numbers, -inf allowed
 *     hi                        optional (default inf), n numbers, hi >= lo
 *     findex                    optional, n integers in [-1, n), not i
 *     mu                        n numbers >= 0; required with friction rows
 *     cones K                   optional, then K pairs "first-row mu"
 *     cone_law L                optional: coulomb (default; De Saxce, FCLIB)
 *                               or associated (CCP, the convex QP), slv.h
 *     x_ref                     optional reference solution, n numbers
 *     nblk / fblk / fJ / fK / fd  factored instead of A (slv.h SLV_FACTORED):
 *                               nblk blocks; fblk = 2n block indices in
 *                               [-1, nblk); fJ, fK = 12n numbers each (row
 *                               i's two slots of 6); fd = n numbers, optional
 *     solver NAME               optional: the solver this problem was solved
 *                               with (where it came from, e.g. a world step)
 *     options K                 optional, then K pairs "name value" of that
 *                               solve's slv_options (io_option_name), each
 *                               value read by slv_options_set
 *     end                       required; nothing but comments after it
 *
 * Sections other than n may come in any order, each at most once; storage
 * comes before A / Ap / nblk, Ap before Aj and Ax, nblk before fblk, fJ,
 * fK and fd.  Without a lo section, cone
 * rows get lo = -inf (the cone replaces their bounds; files written before
 * cone_law existed always have lo and hi, so they read as before).  Every
 * size is checked against what is left of the file before allocation.  Errors: "FILE:LINE: expected
 * ..., found '...'" with SLV_ERR_INVALID (SLV_ERR_DIM for a size out of
 * range); io_read then runs slv_problem_validate.
 *
 * Writing: every section the instance has, %.17g and inf/-inf, so that a
 * round trip is bit-identical (A, b, lo, hi, findex, mu, cones, cone_law
 * (written with cones, or without them when it is not the default), x_ref,
 * and CSR arrays as they are).
 */
#include "io_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const KEYWORDS =
    "kind, n, storage, A, Ap, Aj, Ax, b, lo, hi, findex, mu, cones, cone_law, x_ref, nblk, "
    "fblk, fJ, fK, fd, solver, options or end";

enum {
  S_KIND,
  S_N,
  S_STORAGE,
  S_A,
  S_AP,
  S_AJ,
  S_AX,
  S_B,
  S_LO,
  S_HI,
  S_FINDEX,
  S_MU,
  S_CONES,
  S_CONE_LAW,
  S_XREF,
  S_NBLK,
  S_FBLK,
  S_FJ,
  S_FK,
  S_FD,
  S_SOLVER,
  S_OPTIONS,
  S_END,
  S_COUNT
};
static const char *const SECTION[S_COUNT] = { "kind",   "n",       "storage", "A",        "Ap",
                                              "Aj",     "Ax",      "b",       "lo",       "hi",
                                              "findex", "mu",      "cones",   "cone_law", "x_ref",
                                              "nblk",   "fblk",    "fJ",      "fK",       "fd",
                                              "solver", "options", "end" };

/* ---- factored storage and the recorded solve -------------------------------- */

/* Option bit 1 << k is row k of libsolvers' table of options by name
 * (slv.h, "options by name": its first IO_OPT_COUNT rows, in this order). */
const char *io_option_name(int k) {
  return k >= 0 && k < IO_OPT_COUNT ? slv_option_at(k)->name : NULL;
}

/* The option names a .lcp file takes, for a message: "max_iter, tol, ...". */
static void option_list(char *buf, size_t len) {
  size_t used = 0;
  buf[0] = '\0';
  for (int k = 0; k < IO_OPT_COUNT; k++) {
    int r = snprintf(buf + used, len - used, "%s%s", k ? ", " : "", io_option_name(k));
    if (r < 0 || (size_t)r >= len - used) return;
    used += (size_t)r;
  }
}

/* The value of option k into inst->opt, by slv_options_set (its type; the
 * range is judged when a solve uses it). */
static slv_status read_option_value(io_reader *r, io_instance *inst, int k) {
  io_token v = { NULL, 0, 0 };
  char value[128];
  int have = io_rd_next(r, &v);
  if (have && v.len < sizeof value) {
    memcpy(value, v.s, v.len);
    value[v.len] = '\0';
    if (slv_options_set(&inst->opt, io_option_name(k), value, NULL, 0) == SLV_OK) return SLV_OK;
  }
  return io_rd_fail(r, have ? &v : NULL, SLV_ERR_INVALID, "%s for %s", slv_option_at(k)->values,
                    io_option_name(k));
}

/* One "name value" pair of an options section into inst->opt. */
static slv_status read_option(io_reader *r, io_instance *inst) {
  io_token t = { NULL, 0, 0 };
  int k = 0;
  char names[160];
  if (io_rd_next(r, &t))
    while (k < IO_OPT_COUNT && !io_tok_is(&t, io_option_name(k))) k++;
  if (!t.len || k == IO_OPT_COUNT) {
    option_list(names, sizeof names);
    return io_rd_fail(r, t.len ? &t : NULL, SLV_ERR_INVALID, "an option name (%s)", names);
  }
  if (inst->opt_given & (1u << k))
    return io_rd_fail(r, &t, SLV_ERR_INVALID, "each option once, '%s' already given",
                      io_option_name(k));
  inst->opt_given |= 1u << k;
  return read_option_value(r, inst, k);
}

/* The sections of factored storage (nblk, fblk, fJ, fK, fd) and of the
 * recorded solve (solver, options); t is the section keyword. */
static slv_status read_extension(io_reader *r, io_instance *inst, int s, const io_token *t,
                                 int fact, int nblk_seen) {
  int n = inst->n, k;
  io_token v = { NULL, 0, 0 };
  slv_status st = SLV_OK;
  if (s >= S_NBLK && s <= S_FD && !fact)
    return io_rd_fail(r, t, SLV_ERR_INVALID, "'storage factored' before '%s'", SECTION[s]);
  if (s > S_NBLK && s <= S_FD && !nblk_seen)
    return io_rd_fail(r, t, SLV_ERR_INVALID, "section 'nblk' before '%s'", SECTION[s]);
  switch (s) {
  case S_NBLK:
    if ((st = io_rd_size(r, IO_MAX_N, &k, NULL, "the number of blocks nblk"))) return st;
    if ((st = io_rd_need(r, 26.0 * n, "fblk, fJ and fK (n = %d)", n))) return st;
    if ((st = io_rd_reserve(r, t->line, 8.0 * n + 192.0 * n, "fblk, fJ, fK (n = %d)", n)))
      return st;
    if ((st = io_alloc_factored(inst, k, 0)))
      return io_rd_failf(r, t->line, st, "out of memory for factored storage (n = %d)", n);
    return st;
  case S_FBLK:
    for (long i = 0; i < 2L * n; i++)
      if ((st = io_rd_int(r, -1, inst->nblk - 1, &inst->fblk[i], "the block fblk[%ld]", i)))
        return st;
    return st;
  case S_FJ: return io_rd_doubles(r, 12 * (size_t)n, IO_RD_FINITE, inst->fJ, "fJ");
  case S_FK: return io_rd_doubles(r, 12 * (size_t)n, IO_RD_FINITE, inst->fK, "fK");
  case S_FD:
    if ((st = io_rd_need(r, n, "fd (n = %d)", n))) return st;
    if ((st = io_rd_reserve(r, t->line, 8.0 * n, "fd (n = %d)", n))) return st;
    if (!(inst->fd = calloc(n > 0 ? (size_t)n : 1, sizeof(double))))
      return io_rd_failf(r, t->line, SLV_ERR_NOMEM, "out of memory for fd");
    return io_rd_doubles(r, (size_t)n, IO_RD_FINITE, inst->fd, "fd");
  case S_SOLVER:
    if (!io_rd_next(r, &v) || v.len >= sizeof inst->solver)
      return io_rd_fail(r, v.len ? &v : NULL, SLV_ERR_INVALID, "a solver name (< %d chars)",
                        (int)sizeof inst->solver);
    memcpy(inst->solver, v.s, v.len);
    inst->solver[v.len] = '\0';
    return st;
  default: /* S_OPTIONS */
    if ((st = io_rd_size(r, IO_OPT_COUNT, &k, NULL, "the number of options"))) return st;
    for (int i = 0; i < k && !st; i++) st = read_option(r, inst);
    return st;
  }
}

/* ---- the reader: one function per section ------------------------------------ */

/* What the sections read so far have set. */
typedef struct lcp_parse {
  io_instance *inst; /* allocated by section n */
  int seen[S_COUNT];
  int csr, fact, n;
  slv_cone_law law;
  long nnz;          /* Ap[n] of a CSR matrix */
  io_token kind_tok; /* the kind section's word (len 0: none) */
} lcp_parse;

static slv_status sec_kind(io_reader *r, lcp_parse *ps) {
  io_token *k = &ps->kind_tok;
  if (!io_rd_next(r, k) || !(io_tok_is(k, "lcp") || io_tok_is(k, "mlcp") || io_tok_is(k, "blcp") ||
                             io_tok_is(k, "findex") || io_tok_is(k, "cone")))
    return io_rd_fail(r, k, SLV_ERR_INVALID, "a kind (lcp, mlcp, blcp, findex, cone)");
  return SLV_OK;
}

static slv_status sec_n(io_reader *r, lcp_parse *ps) {
  long line;
  slv_status st;
  int n;
  if ((st = io_rd_size(r, IO_MAX_N, &n, &line, "the size n"))) return st;
  if ((st = io_rd_need(r, n, "b (n = %d)", n))) return st;
  if ((st = io_rd_reserve(r, line, io_instance_bytes(n, 0), "n = %d: b, lo, hi", n))) return st;
  if (!(ps->inst = io_instance_alloc(n)))
    return io_rd_failf(r, line, SLV_ERR_NOMEM, "out of memory for n = %d", n);
  ps->n = n;
  return SLV_OK;
}

static slv_status sec_storage(io_reader *r, lcp_parse *ps, io_token *t) {
  if (ps->seen[S_A] || ps->seen[S_AP])
    return io_rd_fail(r, t, SLV_ERR_INVALID, "'storage' before the matrix");
  if (io_rd_next(r, t) && io_tok_is(t, "dense"))
    ps->csr = 0;
  else if (t->len && io_tok_is(t, "csr"))
    ps->csr = 1;
  else if (t->len && io_tok_is(t, "factored"))
    ps->fact = 1;
  else
    return io_rd_fail(r, t, SLV_ERR_INVALID, "a storage 'dense', 'csr' or 'factored'");
  return SLV_OK;
}

static slv_status sec_dense(io_reader *r, lcp_parse *ps, const io_token *t) {
  int n = ps->n;
  slv_status st;
  if (ps->csr || ps->fact)
    return io_rd_fail(r, t, SLV_ERR_INVALID, "the storage's sections, not 'A'");
  if ((double)n * n > (double)IO_MAX_NNZ)
    return io_rd_failf(r, t->line, SLV_ERR_DIM, "expected n*n <= %ld for a dense A, found n = %d",
                       (long)IO_MAX_NNZ, n);
  if ((st = io_rd_need(r, (double)n * n, "the dense %d x %d A", n, n))) return st;
  if ((st = io_rd_reserve(r, t->line, 8.0 * n * n, "A, %d x %d dense", n, n))) return st;
  if ((st = io_alloc_dense(ps->inst)))
    return io_rd_failf(r, t->line, st, "out of memory for A (n = %d)", n);
  return io_rd_matrix(r, n, n, 1, ps->inst->A, n > 0 ? (size_t)n : 1, IO_RD_FINITE, "A");
}

/* Ap, then the room for Aj and Ax. */
static slv_status sec_row_pointers(io_reader *r, lcp_parse *ps, const io_token *t) {
  int n = ps->n;
  io_instance *inst = ps->inst;
  slv_status st;
  if (!ps->csr) return io_rd_fail(r, t, SLV_ERR_INVALID, "'A' (storage dense), not 'Ap'");
  if ((st = io_rd_need(r, n + 1.0, "Ap (n + 1 = %d row pointers)", n + 1))) return st;
  if ((st = io_rd_reserve(r, t->line, 4.0 * (n + 1.0), "Ap (n + 1 = %d)", n + 1))) return st;
  if ((st = io_alloc_csr_rows(inst))) return io_rd_failf(r, t->line, st, "out of memory for Ap");
  for (int i = 0; i <= n; i++)
    if ((st = io_rd_int(r, i ? inst->Ap[i - 1] : 0, i ? IO_MAX_NNZ : 0, &inst->Ap[i],
                        "the row pointer Ap[%d], non-decreasing from 0", i)))
      return st;
  long nnz = ps->nnz = inst->Ap[n];
  if ((st = io_rd_need(r, 2.0 * nnz, "Aj and Ax (Ap[n] = %ld entries)", nnz))) return st;
  if ((st = io_rd_reserve(r, r->line, 12.0 * nnz, "Aj and Ax (Ap[n] = %ld entries)", nnz)))
    return st;
  if ((st = io_alloc_csr_entries(inst, nnz)))
    return io_rd_failf(r, t->line, st, "out of memory for %ld entries", nnz);
  return SLV_OK;
}

static slv_status sec_columns_or_values(io_reader *r, lcp_parse *ps, int s, const io_token *t) {
  slv_status st = SLV_OK;
  if (!ps->seen[S_AP])
    return io_rd_fail(r, t, SLV_ERR_INVALID, "section 'Ap' before '%s'", SECTION[s]);
  if (s == S_AX) return io_rd_doubles(r, (size_t)ps->nnz, IO_RD_FINITE, ps->inst->Ax, "Ax");
  for (long k = 0; k < ps->nnz && !st; k++)
    st = io_rd_int(r, 0, ps->n - 1, &ps->inst->Aj[k], "the column Aj[%ld]", k);
  return st;
}

static slv_status sec_findex(io_reader *r, lcp_parse *ps, const io_token *t) {
  int n = ps->n;
  io_instance *inst = ps->inst;
  slv_status st;
  if ((st = io_rd_need(r, n, "findex (n = %d)", n))) return st;
  if ((st = io_rd_reserve(r, t->line, 4.0 * n, "findex (n = %d)", n))) return st;
  if ((st = io_alloc_findex(inst))) return io_rd_failf(r, t->line, st, "out of memory for findex");
  for (int i = 0; i < n; i++) {
    io_token v;
    io_rd_peek(r, &v);
    if ((st = io_rd_int(r, -1, n - 1, &inst->findex[i], "findex[%d]", i))) return st;
    if (inst->findex[i] == i)
      return io_rd_fail(r, &v, SLV_ERR_INVALID,
                        "findex[%d] != %d (a friction row couples to another, normal row)", i, i);
  }
  return SLV_OK;
}

static slv_status sec_mu(io_reader *r, lcp_parse *ps, const io_token *t) {
  int n = ps->n;
  io_instance *inst = ps->inst;
  slv_status st;
  if ((st = io_rd_need(r, n, "mu (n = %d)", n))) return st;
  if ((st = io_rd_reserve(r, t->line, 8.0 * n, "mu (n = %d)", n))) return st;
  if ((st = io_alloc_mu(inst))) return io_rd_failf(r, t->line, st, "out of memory for mu");
  for (int i = 0; i < n; i++) {
    io_token v;
    io_rd_peek(r, &v);
    if ((st = io_rd_double(r, IO_RD_FINITE, &inst->mu[i], "mu[%d]", i))) return st;
    if (inst->mu[i] < 0) return io_rd_fail(r, &v, SLV_ERR_INVALID, "mu[%d] >= 0", i);
  }
  return SLV_OK;
}

static slv_status sec_cones(io_reader *r, lcp_parse *ps, const io_token *t) {
  int n = ps->n, k;
  io_instance *inst = ps->inst;
  slv_status st;
  if ((st = io_rd_size(r, n / 3, &k, NULL, "the number of cones, 3 rows each in n = %d", n)))
    return st;
  if ((st = io_rd_need(r, 2.0 * k, "%d cones 'first-row mu'", k))) return st;
  if ((st = io_rd_reserve(r, t->line, 12.0 * k, "%d cones", k))) return st;
  if ((st = io_alloc_cones(inst, k)))
    return io_rd_failf(r, t->line, st, "out of memory for %d cones", k);
  for (int c = 0; c < k; c++) {
    if ((st = io_rd_int(r, c ? inst->cone_rows[c - 1] + 3 : 0, n - 3, &inst->cone_rows[c],
                        "the first row of cone %d, 3 or more after the previous cone's", c)))
      return st;
    io_token v;
    io_rd_peek(r, &v);
    if ((st = io_rd_double(r, IO_RD_FINITE, &inst->cone_mu[c], "mu of cone %d", c))) return st;
    if (inst->cone_mu[c] < 0) return io_rd_fail(r, &v, SLV_ERR_INVALID, "mu of cone %d >= 0", c);
  }
  return SLV_OK;
}

static slv_status sec_cone_law(io_reader *r, lcp_parse *ps, io_token *t) {
  if (io_rd_next(r, t) && io_tok_is(t, "coulomb"))
    ps->law = SLV_CONE_COULOMB;
  else if (t->len && io_tok_is(t, "associated"))
    ps->law = SLV_CONE_ASSOCIATED;
  else
    return io_rd_fail(r, t, SLV_ERR_INVALID, "a cone law 'coulomb' or 'associated'");
  return SLV_OK;
}

static slv_status sec_xref(io_reader *r, lcp_parse *ps, const io_token *t) {
  int n = ps->n;
  slv_status st;
  if ((st = io_rd_need(r, n, "x_ref (n = %d)", n))) return st;
  if ((st = io_rd_reserve(r, t->line, 8.0 * n, "x_ref (n = %d)", n))) return st;
  if ((st = io_alloc_xref(ps->inst))) return io_rd_failf(r, t->line, st, "out of memory for x_ref");
  return io_rd_doubles(r, (size_t)n, IO_RD_FINITE, ps->inst->x_ref, "x_ref");
}

/* Section s, whose keyword t was just read. */
static slv_status read_section(io_reader *r, lcp_parse *ps, int s, io_token *t) {
  io_instance *inst = ps->inst;
  int n = ps->n;
  slv_status st;
  switch (s) {
  case S_KIND: return sec_kind(r, ps);
  case S_N: return sec_n(r, ps);
  case S_STORAGE: return sec_storage(r, ps, t);
  case S_A: return sec_dense(r, ps, t);
  case S_AP: return sec_row_pointers(r, ps, t);
  case S_AJ:
  case S_AX: return sec_columns_or_values(r, ps, s, t);
  case S_B: return io_rd_doubles(r, (size_t)n, IO_RD_FINITE, inst->b, "b");
  case S_LO:
    if ((st = io_rd_need(r, n, "lo (n = %d)", n))) return st;
    return io_rd_doubles(r, (size_t)n, IO_RD_INF_OK, inst->lo, "lo");
  case S_HI:
    if ((st = io_rd_need(r, n, "hi (n = %d)", n))) return st;
    return io_rd_upper(r, n, inst->lo, inst->hi, "hi", "lo");
  case S_FINDEX: return sec_findex(r, ps, t);
  case S_MU: return sec_mu(r, ps, t);
  case S_CONES: return sec_cones(r, ps, t);
  case S_CONE_LAW: return sec_cone_law(r, ps, t);
  case S_XREF: return sec_xref(r, ps, t);
  default: return read_extension(r, inst, s, t, ps->fact, ps->seen[S_NBLK]);
  }
}

/* The next section keyword into *s (S_END for 'end'), in an order the format
 * allows: each section once, n before any sized one. */
static slv_status next_section(io_reader *r, lcp_parse *ps, io_token *t, int *s) {
  if (!io_rd_next(r, t))
    return io_rd_fail(r, t, SLV_ERR_INVALID, "a section keyword (%s)", KEYWORDS);
  int k = 0;
  while (k < S_COUNT && !io_tok_is(t, SECTION[k])) k++;
  if (k == S_COUNT) return io_rd_fail(r, t, SLV_ERR_INVALID, "a section keyword (%s)", KEYWORDS);
  if (ps->seen[k])
    return io_rd_fail(r, t, SLV_ERR_INVALID, "each section once, '%s' already given", SECTION[k]);
  ps->seen[k] = 1;
  if (k != S_KIND && k != S_N && k != S_END && k != S_CONE_LAW && ps->n < 0)
    return io_rd_fail(r, t, SLV_ERR_INVALID, "section 'n' before '%s'", SECTION[k]);
  *s = k;
  return SLV_OK;
}

/* At 'end' (line end_line): the sections the storage and the data need. */
static slv_status check_complete(io_reader *r, const lcp_parse *ps, long end_line) {
  const int *seen = ps->seen;
  static const int required[] = { S_N, S_B };
  for (size_t k = 0; k < sizeof required / sizeof required[0]; k++)
    if (!seen[required[k]])
      return io_rd_failf(r, end_line, SLV_ERR_INVALID, "expected section '%s' before 'end'",
                         SECTION[required[k]]);
  if (ps->fact && !(seen[S_NBLK] && seen[S_FBLK] && seen[S_FJ] && seen[S_FK]))
    return io_rd_failf(r, end_line, SLV_ERR_INVALID,
                       "expected sections 'nblk', 'fblk', 'fJ' and 'fK' before 'end' (storage "
                       "factored)");
  if (!ps->csr && !ps->fact && !seen[S_A])
    return io_rd_failf(r, end_line, SLV_ERR_INVALID, "expected section 'A' before 'end'");
  if (ps->csr && !(seen[S_AP] && seen[S_AJ] && seen[S_AX]))
    return io_rd_failf(r, end_line, SLV_ERR_INVALID,
                       "expected sections 'Ap', 'Aj' and 'Ax' before 'end' (storage csr)");
  if (io_has_friction(ps->inst) && !seen[S_MU])
    return io_rd_failf(r, end_line, SLV_ERR_INVALID,
                       "expected section 'mu' before 'end' (findex has friction rows)");
  return SLV_OK;
}

/* After 'end': nothing but comments; the cone law, the cones' bounds, and the
 * kind checked against what the data holds. */
static slv_status finish(io_reader *r, lcp_parse *ps) {
  io_instance *inst = ps->inst;
  io_token t;
  if (io_rd_next(r, &t)) return io_rd_fail(r, &t, SLV_ERR_INVALID, "end of file after 'end'");
  inst->cone_law = ps->law;
  if (!ps->seen[S_LO]) /* cone rows: the cone replaces the bounds */
    for (int c = 0; c < inst->ncones; c++)
      for (int i = inst->cone_rows[c]; i < inst->cone_rows[c] + 3; i++) inst->lo[i] = -INFINITY;
  if (ps->kind_tok.len) {
    const char *k = io_kind_of(inst);
    if (!io_tok_is(&ps->kind_tok, k))
      return io_rd_fail(r, &ps->kind_tok, SLV_ERR_INVALID, "kind '%s' (what the data holds)", k);
  }
  return SLV_OK;
}

static slv_status read_lcplab(io_reader *r, io_instance **out) {
  io_token t;
  slv_status st;
  int version, s = 0;
  lcp_parse ps;
  memset(&ps, 0, sizeof ps);
  ps.n = -1;
  ps.law = SLV_CONE_COULOMB;
  *out = NULL;
  if (!io_rd_next(r, &t) || !io_tok_is(&t, "lcplab-problem"))
    return io_rd_fail(r, &t, SLV_ERR_INVALID, "'lcplab-problem' as the first word");
  if ((st = io_rd_int(r, 1, 1, &version, "the format version"))) return st;
  while (!(st = next_section(r, &ps, &t, &s)) && s != S_END)
    if ((st = read_section(r, &ps, s, &t))) break;
  if (!st) st = check_complete(r, &ps, t.line); /* t is the 'end' token */
  if (!st) st = finish(r, &ps);
  if (st) {
    io_instance_free(ps.inst);
    return st;
  }
  *out = ps.inst;
  return SLV_OK;
}

slv_status io_read_lcplab(const io_req *rq, io_instance **out) {
  io_reader r;
  slv_status st = io_rd_open_req(&r, rq, '#');
  if (!st) st = read_lcplab(&r, out);
  io_rd_close(&r);
  return st;
}

static void write_vec_line(io_writer *w, const char *name, int n, const double *v) {
  fprintf(w->f, "%s\n", name);
  for (int i = 0; i < n; i++) io_wr_double(w, v[i], i + 1 < n ? ' ' : 0);
  fputc('\n', w->f);
}

/* nblk, then row i's fblk, fJ, fK on a line each, and fd. */
static void write_factored(io_writer *w, const io_instance *inst) {
  int n = inst->n;
  fprintf(w->f, "nblk %d\nfblk\n# row i: its two blocks (-1: none)\n", inst->nblk);
  for (int i = 0; i < n; i++) fprintf(w->f, "%d %d\n", inst->fblk[2 * i], inst->fblk[2 * i + 1]);
  const double *M[2] = { inst->fJ, inst->fK };
  for (int m = 0; m < 2; m++) {
    fprintf(w->f, "%s\n# row i: slot 0's 6 columns, slot 1's 6\n", m ? "fK" : "fJ");
    for (int i = 0; i < n; i++)
      for (int c = 0; c < 12; c++) io_wr_double(w, M[m][12 * (size_t)i + c], c < 11 ? ' ' : '\n');
  }
  if (inst->fd) write_vec_line(w, "fd", n, inst->fd);
}

/* The recorded solver and options, when there are any: each as
 * slv_options_get writes it. */
static void write_solve(io_writer *w, const io_instance *inst) {
  int k = 0;
  char value[64];
  if (inst->solver[0]) fprintf(w->f, "solver %s\n", inst->solver);
  for (int i = 0; i < IO_OPT_COUNT; i++) k += (inst->opt_given >> i) & 1u;
  if (!k) return;
  fprintf(w->f, "options %d\n", k);
  for (int i = 0; i < IO_OPT_COUNT; i++) {
    if (!(inst->opt_given & (1u << i))) continue;
    slv_options_get(&inst->opt, io_option_name(i), value, sizeof value);
    fprintf(w->f, "%s %s\n", io_option_name(i), value);
  }
}

slv_status io_write_lcplab(const io_req *rq, const io_instance *inst) {
  int n = inst->n;
  io_writer w;
  slv_status st = io_wr_open(&w, rq->path, rq->err, rq->errlen);
  if (st) return st;
  FILE *f = w.f;
  fputs("lcplab-problem 1\n"
        "# w = A x + b;  lo <= x <= hi;  x_i = lo_i => w_i >= 0, x_i = hi_i => w_i <= 0,\n"
        "# lo_i < x_i < hi_i => w_i = 0.  findex[i] = j >= 0: bounds -mu_i |x_j| .. mu_i |x_j|.\n"
        "# Format: datasets/README.md of lcplab.\n",
        f);
  fprintf(f, "kind %s\nn %d\nstorage %s\n", io_kind_of(inst), n,
          inst->storage == SLV_CSR        ? "csr"
          : inst->storage == SLV_FACTORED ? "factored"
                                          : "dense");
  if (inst->storage == SLV_FACTORED) {
    write_factored(&w, inst);
  } else if (inst->storage == SLV_CSR) {
    fputs("Ap\n", f);
    for (int i = 0; i <= n; i++) fprintf(f, i < n ? "%d " : "%d\n", inst->Ap[i]);
    fputs("Aj\n# one row per line\n", f);
    for (int i = 0; i < n; i++) {
      for (int k = inst->Ap[i]; k < inst->Ap[i + 1]; k++)
        fprintf(f, k + 1 < inst->Ap[i + 1] ? "%d " : "%d", inst->Aj[k]);
      fputc('\n', f);
    }
    fputs("Ax\n# one row per line\n", f);
    for (int i = 0; i < n; i++) {
      for (int k = inst->Ap[i]; k < inst->Ap[i + 1]; k++)
        io_wr_double(&w, inst->Ax[k], k + 1 < inst->Ap[i + 1] ? ' ' : 0);
      fputc('\n', f);
    }
  } else {
    fputs("A\n# column-major: line j+1 holds column j, A(0,j) .. A(n-1,j)\n", f);
    for (int j = 0; j < n; j++) {
      for (int i = 0; i < n; i++) io_wr_double(&w, inst->A[i + (size_t)j * n], i + 1 < n ? ' ' : 0);
      fputc('\n', f);
    }
  }
  write_vec_line(&w, "b", n, inst->b);
  write_vec_line(&w, "lo", n, inst->lo);
  write_vec_line(&w, "hi", n, inst->hi);
  if (inst->findex) {
    fputs("findex\n", f);
    for (int i = 0; i < n; i++) fprintf(f, i + 1 < n ? "%d " : "%d", inst->findex[i]);
    fputc('\n', f);
  }
  if (inst->mu) write_vec_line(&w, "mu", n, inst->mu);
  if (inst->ncones > 0) {
    fprintf(f, "cones %d\n# first-row mu\n", inst->ncones);
    for (int c = 0; c < inst->ncones; c++) {
      fprintf(f, "%d ", inst->cone_rows[c]);
      io_wr_double(&w, inst->cone_mu[c], '\n');
    }
  }
  /* The law even without cones when it is not the default: what was read is
   * what is written back (a problem may carry its law before its cones). */
  if (inst->ncones > 0 || inst->cone_law != SLV_CONE_COULOMB)
    fprintf(f, "cone_law %s\n", slv_cone_law_str(inst->cone_law));
  if (inst->x_ref) write_vec_line(&w, "x_ref", n, inst->x_ref);
  write_solve(&w, inst);
  fputs("end\n", f);
  return io_wr_close(&w);
}
