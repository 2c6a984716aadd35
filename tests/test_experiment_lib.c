/* test_experiment_lib.c -- libexperiment's calculations that
 * test_experiment_profile.c (statistics, tables), test_run_summary.c (a
 * peer's summary line) and test_generate_lib.c do not check (a world's run,
 * settings and metric columns are libdynamics': test_world_run.c,
 * test_world_settings.c, test_world_metrics.c):
 *
 *   - the JSON of one solve (solve_json.c): strings escaped as RFC 8259
 *     asks (quote, backslash, control characters, invalid UTF-8 as U+FFFD),
 *     NaN as null; the options from a file's record under the flags; the
 *     repeated timed solve of a 2x2 LCP whose answer is (1/3, 1/3) by hand;
 *     the object's fields in the documented order;
 *   - the classes (config.c): one class for each kind libio's
 *     io_instance_classify gives, the cone law splitting cones, names that
 *     read back;
 *   - the judge (task.c, exp_judge): the hand answer converged, zero not;
 *     an external solver (external.c, run through a plan's task) that writes
 *     the hand answer converges, one that writes zeros does not;
 *   - CSV fields (shell.c): exp_csv_put then exp_csv_split gives the fields
 *     back, commas, quotes and newlines included;
 *   - provenance (prov.c): the fields a result file records are filled;
 *     exp_prov_write gives them as '#' lines;
 *   - result files (result.c): commit then read gives the header and rows
 *     back; one byte changed is a checksum error, a cut file truncated, no
 *     file "missing";
 *   - problem metadata (prepare.c): a generated problem's label, family,
 *     kind, class, n, nnz, origin and file hash; the 1-norm condition
 *     estimate of the 2x2 LCP, 3 by hand; the friction coefficients' range
 *     (mu_min, mu_max) of a written FC3D .dat (0.2 and 0.7), a findex
 *     problem (0.5 .. 0.9), an LCP (none: NaN), a scene's pyramid LCP (the
 *     world's 0.5, in A), a frictionless chain (NaN) and Siconos'
 *     FrictionContact3D_1c.dat (0.1, the file's last line; LCPLAB_SHARED),
 *     as problems.tsv gives them back;
 *   - plan, task (plan.c, task.c, campaign.c): a planned .exp read back
 *     gives tasks.tsv's lines and plan.info's id; one task run writes a
 *     result that matches its task and is intact; jobs (jobs.c) on two
 *     forked workers run all four tasks, a second run none; collect
 *     (collect.c) merges them into 8 CSV rows and the winners table;
 *   - figure options (figure.c): the CSV preamble's last "# figure:" line,
 *     then the --set words; a value that is not data, a line too long, no
 *     file: refused with the message;
 *   - the exported step (export.c): the format names, --global's refusal,
 *     a step's problem read back with its n, an existing file (and a
 *     MatrixMarket sidecar) refused;
 *   - a folder's record of lcplab's files (owned.c): names recorded twice
 *     are kept once and sorted, "../x", "/x", "a//b" and the record itself
 *     refused; removing the picked ones removes them and their writers'
 *     temporaries (io_outfile's and result.c's names) and nothing else (a
 *     file never recorded, a temporary of an unrecorded name, a folder
 *     recorded by name, the target of a recorded link), and the record
 *     keeps the names not picked;
 *   - removing inside a folder (beneath.c): a name through a link (last
 *     or middle component) is left alone, "..", "sub/../x" and absolute
 *     names refused, a recorded link removed and not its target; a new
 *     file is made beside a link or a hard link planted at its name
 *     (NAME.1, NAME.3), the linked file unchanged.
 */
#define _XOPEN_SOURCE 700

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CUnit/Basic.h>
#include <CUnit/CUnit.h>

#include "exp_internal.h"
#include "exp_task.h"
#include "tst_util.h"

static char tmp[256];

/* ---- helpers ------------------------------------------------------------------------ */

/* What fn wrote to a FILE, as a string (static buffer). */
static const char *captured(void (*fn)(FILE *f, void *ctx), void *ctx) {
  static char buf[4096];
  FILE *f = tmpfile();
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  fn(f, ctx);
  rewind(f);
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = '\0';
  fclose(f);
  return buf;
}

/* The messages of the library, kept. */
typedef struct said {
  char last[1024];
  int errors;
} said;

static void keep_line(void *ctx, exp_say_kind kind, const char *line) {
  said *s = ctx;
  snprintf(s->last, sizeof s->last, "%s", line);
  if (kind == EXP_SAY_ERROR) s->errors++;
}

/* The 2x2 LCP A = [2 1; 1 2], b = (-1, -1): x = (1/3, 1/3), w = 0. */
static double A2[4] = { 2, 1, 1, 2 }, b2[2] = { -1, -1 }, lo2[2] = { 0, 0 },
              hi2[2] = { INFINITY, INFINITY };

static slv_problem two_by_two(void) {
  slv_problem p = slv_problem_empty();
  p.n = 2;
  p.storage = SLV_DENSE;
  p.A = A2;
  p.lda = 2;
  p.b = b2;
  p.lo = lo2;
  p.hi = hi2;
  return p;
}

/* ---- JSON --------------------------------------------------------------------------- */

static void put_tricky(FILE *f, void *ctx) {
  (void)ctx;
  exp_json_string(f, "a\"b\\c\n\t\x01\x7f\xc3\xa9\xff\xed\xa0\x80z");
  fputc(' ', f);
  exp_json_string(f, NULL);
  fputc(' ', f);
  exp_json_number(f, NAN, 17);
  fputc(' ', f);
  exp_json_number(f, -INFINITY, 6);
  fputc(' ', f);
  exp_json_number(f, 0.1, 17);
  fputc(' ', f);
  exp_json_number(f, 1.0 / 3.0, 6);
}

static void test_json_values(void) {
  const char *want = "\"a\\\"b\\\\c\\n\\t\\u0001\\u007f\xc3\xa9\\ufffd\\ufffd\\ufffd\\ufffdz\" "
                     "\"\" null null 0.10000000000000001 0.333333";
  CU_ASSERT_STRING_EQUAL(captured(put_tricky, NULL), want);
}

static void test_options_from_file(void) {
  slv_problem p = two_by_two();
  io_instance *inst = io_instance_of_problem(&p, "two", NULL, 0);
  CU_ASSERT_PTR_NOT_NULL_FATAL(inst);
  inst->opt.tol = 1e-3;
  inst->opt.omega = 1.25;
  inst->opt.max_iter = 77;
  inst->opt_given = IO_OPT_TOL | IO_OPT_OMEGA | IO_OPT_MAX_ITER;
  exp_solve_flags fl;
  memset(&fl, 0, sizeof fl);
  fl.have_tol = 1;
  fl.tol = 1e-9;
  fl.threads = 2;
  slv_options opt = exp_solve_options(&fl, inst);
  CU_ASSERT_DOUBLE_EQUAL(opt.tol, 1e-9, 0);   /* the flag over the file */
  CU_ASSERT_DOUBLE_EQUAL(opt.omega, 1.25, 0); /* the file's */
  CU_ASSERT_EQUAL(opt.max_iter, 77);          /* the file's */
  CU_ASSERT_EQUAL(opt.threads, 2);
  CU_ASSERT_EQUAL(opt.norm, slv_options_default().norm); /* neither: the default */
  CU_ASSERT_EQUAL(exp_solve_from_file(&fl, inst, IO_OPT_TOL), 0);
  CU_ASSERT_EQUAL(exp_solve_from_file(&fl, inst, IO_OPT_OMEGA), 1);
  CU_ASSERT_EQUAL(exp_solve_from_file(&fl, inst, IO_OPT_NORM), 0);
  fl.have_max_iter = 1;
  fl.max_iter = 5;
  opt = exp_solve_options(&fl, inst);
  CU_ASSERT_EQUAL(opt.max_iter, 5);
  CU_ASSERT_EQUAL(opt.max_pivots, 5); /* --max-iter bounds pivots too */
  io_instance_free(inst);
}

typedef struct solved {
  io_instance *inst;
  slv_options opt;
  slv_result res;
  exp_solve_flags fl;
  exp_solve_report rep;
  double x[2], w[2], times[3];
  slv_workspace *ws;
} solved;

/* Solves the 2x2 LCP three times with lemke and fills the report. */
static void solve_two(solved *s) {
  memset(s, 0, sizeof *s);
  slv_problem p = two_by_two();
  s->inst = io_instance_of_problem(&p, "two", NULL, 0);
  CU_ASSERT_PTR_NOT_NULL_FATAL(s->inst);
  const slv_solver *sv = slv_solver_find("lemke");
  CU_ASSERT_PTR_NOT_NULL_FATAL(sv);
  s->opt = exp_solve_options(&s->fl, s->inst);
  CU_ASSERT_EQUAL_FATAL(slv_workspace_new(sv, 2, &s->opt, &s->ws), SLV_OK);
  double x0[2] = { 0, 0 };
  exp_tsum sum;
  slv_status st = exp_solve_repeat(s->ws, &p, &s->opt, x0, s->x, s->w, 3, s->times, &s->res, &sum);
  CU_ASSERT_EQUAL(st, SLV_CONVERGED);
  CU_ASSERT_DOUBLE_EQUAL(s->x[0], 1.0 / 3.0, 1e-14);
  CU_ASSERT_DOUBLE_EQUAL(s->x[1], 1.0 / 3.0, 1e-14);
  for (int r = 0; r < 3; r++) CU_ASSERT(s->times[r] >= 0);
  CU_ASSERT(sum.min <= sum.median);
  exp_solve_report rep = { .instance = "two.lcp",
                           .solver = sv,
                           .inst = s->inst,
                           .opt = &s->opt,
                           .res = &s->res,
                           .flags = &s->fl,
                           .t_median = sum.median,
                           .t_min = sum.min,
                           .read_s = 0.5,
                           .repeat = 3 };
  s->rep = rep;
  CU_ASSERT_EQUAL(exp_solve_global(s->inst, s->x, &s->rep), 0);
  CU_ASSERT_EQUAL(s->rep.ndof, 0); /* not a global problem: no velocities */
}

static void put_report(FILE *f, void *ctx) { exp_solve_json(f, ctx); }

/* Position of "\"key\":" in js, or -1. */
static long at(const char *js, const char *key) {
  char k[64];
  snprintf(k, sizeof k, "\"%s\":", key);
  const char *p = strstr(js, k);
  return p ? p - js : -1;
}

static void test_solve_json(void) {
  solved s;
  solve_two(&s);
  const char *js = captured(put_report, &s.rep);
  const char *head = "{\"instance\":\"two.lcp\",\"solver\":\"lemke\",\"kind\":\"lcp\",\"n\":2,"
                     "\"status\":\"converged\",\"iterations\":";
  CU_ASSERT_EQUAL(strncmp(js, head, strlen(head)), 0);
  const char *order[] = { "time_s",          "res_nat_inf", "res_rel",     "compl",      "infeas",
                          "res_rel_2",       "res_scaled",  "siconos_err", "res_global", "pivots",
                          "solver_residual", "time_min_s",  "repeat",      "tol",        "norm",
                          "max_iter",        "omega",       "threads",     "warm_start", "format" };
  for (size_t k = 1; k < sizeof order / sizeof order[0]; k++)
    CU_ASSERT(at(js, order[k - 1]) >= 0 && at(js, order[k - 1]) < at(js, order[k]));
  CU_ASSERT(strstr(js, "\"repeat\":3,") != NULL);
  CU_ASSERT(at(js, "cone_law") < 0 && at(js, "message") < 0 && at(js, "ndof") < 0);
  CU_ASSERT(at(js, "history") < 0 && at(js, "options_from_file") < 0);
  CU_ASSERT(strcmp(js + strlen(js) - 2, "}\n") == 0);
  /* unconverged: the message; --history: the list */
  s.res.status = SLV_MAX_ITER;
  snprintf(s.res.message, sizeof s.res.message, "budget \"spent\"");
  s.fl.history = 1;
  js = captured(put_report, &s.rep);
  CU_ASSERT(strstr(js, ",\"message\":\"budget \\\"spent\\\"\",\"history\":[") != NULL);
  slv_workspace_free(s.ws);
  io_instance_free(s.inst);
}

/* ---- classes and the judge -------------------------------------------------------- */

/* The class of the 2x2 problem with rows shaped by lo, hi, findex, cones. */
static int class_of(double lo1, double hi1, int findex, int cones, slv_cone_law law, char *kind) {
  double lo[2] = { 0, lo1 }, hi[2] = { INFINITY, hi1 }, mu[2] = { 0.5, 0.5 };
  int fi[2] = { -1, findex }, rows[1] = { 0 };
  double cmu[1] = { 0.5 };
  slv_problem p = two_by_two();
  p.lo = lo;
  p.hi = hi;
  if (findex >= 0) {
    p.findex = fi;
    p.mu = mu;
  }
  if (cones) {
    p.ncones = 1;
    p.cone_rows = rows;
    p.cone_mu = cmu;
    p.cone_law = law;
  }
  io_instance *inst = io_instance_of_problem(&p, "c", NULL, 0);
  CU_ASSERT_PTR_NOT_NULL_FATAL(inst);
  strcpy(kind, inst->kind);
  int c = exp_class_of(inst);
  io_instance_free(inst);
  return c;
}

static void test_classes(void) {
  char kind[32];
  CU_ASSERT_EQUAL(class_of(0, INFINITY, -1, 0, 0, kind), EXP_CLASS_LCP);
  CU_ASSERT_STRING_EQUAL(kind, "lcp");
  CU_ASSERT_EQUAL(class_of(-INFINITY, INFINITY, -1, 0, 0, kind), EXP_CLASS_MLCP);
  CU_ASSERT_STRING_EQUAL(kind, "mlcp");
  CU_ASSERT_EQUAL(class_of(-1, 1, -1, 0, 0, kind), EXP_CLASS_BOX);
  CU_ASSERT_STRING_EQUAL(kind, "blcp");
  CU_ASSERT_EQUAL(class_of(-1, 1, 0, 0, 0, kind), EXP_CLASS_BOX);
  CU_ASSERT_STRING_EQUAL(kind, "findex");
  CU_ASSERT_EQUAL(class_of(0, INFINITY, -1, 1, SLV_CONE_COULOMB, kind), EXP_CLASS_FC3D);
  CU_ASSERT_STRING_EQUAL(kind, "cone");
  CU_ASSERT_EQUAL(class_of(0, INFINITY, -1, 1, SLV_CONE_ASSOCIATED, kind), EXP_CLASS_CONE_ASSOC);
  for (int c = 0; c < EXP_CLASS_COUNT; c++)
    CU_ASSERT_EQUAL(exp_class_from_str(exp_class_str(c)), c);
  CU_ASSERT_EQUAL(exp_class_from_str("cone"), -1); /* a kind, not a class */
  CU_ASSERT_STRING_EQUAL(exp_class_str(EXP_CLASS_COUNT), "?");
}

static void test_judge(void) {
  slv_problem p = two_by_two();
  double x[2] = { 1.0 / 3.0, 1.0 / 3.0 }, zero[2] = { 0, 0 };
  slv_residuals r = slv_residual(&p, x, NULL);
  CU_ASSERT_EQUAL(exp_judge(&p, &r, 1e-10), 1);
  r = slv_residual(&p, zero, NULL);
  CU_ASSERT_EQUAL(exp_judge(&p, &r, 1e-10), 0);
  CU_ASSERT_EQUAL(exp_judge(&p, &r, 10.0), 1); /* a loose enough tolerance takes it */
}

/* ---- CSV, provenance, result files ------------------------------------------------ */

static const char *const fields[] = { "plain", "a,b", "say \"hi\"", "two\nlines", "", "x\r" };
enum { NFIELDS = 6 };

static void put_fields(FILE *f, void *ctx) {
  (void)ctx;
  for (int k = 0; k < NFIELDS; k++) {
    if (k) fputc(',', f);
    exp_csv_put(f, fields[k]);
  }
}

static void test_csv_round_trip(void) {
  char line[4096];
  snprintf(line, sizeof line, "%s", captured(put_fields, NULL));
  CU_ASSERT_EQUAL(exp_csv_needs_quotes("plain"), 0);
  CU_ASSERT_EQUAL(exp_csv_needs_quotes("a,b"), 1);
  const char *quoted = "plain,\"a,b\",\"say \"\"hi\"\"\",";
  CU_ASSERT(strncmp(line, quoted, strlen(quoted)) == 0);
  char *f[8];
  CU_ASSERT_EQUAL_FATAL(exp_csv_split(line, f, 8), NFIELDS);
  for (int k = 0; k < NFIELDS; k++) CU_ASSERT_STRING_EQUAL(f[k], fields[k]);
}

static void test_provenance(void) {
  exp_prov p;
  memset(&p, 0, sizeof p);
  exp_prov_gather(&p);
  CU_ASSERT(p.cores >= 1);
  CU_ASSERT(p.cpu[0] && p.governor[0] && p.compiler[0] && p.blas[0] && p.host[0]);
  CU_ASSERT_STRING_EQUAL(p.precision, "double (binary64)");
  CU_ASSERT_EQUAL(strlen(p.binary), 16); /* FNV-1a, 64 bits in hex */
  CU_ASSERT(p.load_start >= 0);
}

static void put_prov(FILE *f, void *ctx) { exp_prov_write(f, ctx, "abc123"); }

static void test_provenance_lines(void) {
  exp_prov p;
  memset(&p, 0, sizeof p);
  snprintf(p.cpu, sizeof p.cpu, "Some CPU");
  p.cores = 3;
  snprintf(p.blas_threads, sizeof p.blas_threads, "1");
  snprintf(p.host, sizeof p.host, "h 6.1 x86_64");
  const char *out = captured(put_prov, &p);
  CU_ASSERT(strncmp(out, "# cpu: Some CPU\n# cores: 3\n", 27) == 0);
  CU_ASSERT(strstr(out, "\n# threads: OpenBLAS threads 1\n") != NULL);
  CU_ASSERT(strstr(out, "\n# host: h 6.1 x86_64\n# rev: abc123\n") != NULL);
  for (const char *c = out; *c; c = strchr(c, '\n') + 1) CU_ASSERT(strncmp(c, "# ", 2) == 0);
}

/* A result header as a task writes it. */
static void sample_result(exp_result *h) {
  memset(h, 0, sizeof *h);
  h->task = 7;
  snprintf(h->plan, sizeof h->plan, "0123456789abcdef");
  memset(h->key, 'a', 64);
  snprintf(h->spec, sizeof h->spec, "7 prof profile 0 pgs - - p");
  snprintf(h->task_status, sizeof h->task_status, "ok");
  snprintf(h->rev, sizeof h->rev, "abc123");
  h->time_limit = 60;
  h->elapsed = 0.25;
  exp_prov_gather(&h->prov);
}

static void test_result_round_trip(void) {
  char path[300], why[256];
  snprintf(path, sizeof path, "%s/t.res", tmp);
  exp_result h, r;
  sample_result(&h);
  long speed[4] = { 41, 7, 1234, 56 };
  memcpy(h.speed, speed, sizeof speed);
  exp_rbuf rows = { 0 };
  CU_ASSERT_EQUAL_FATAL(exp_rbuf_add(&rows, "p,lcp,2,pgs,1e-06,converged\n"), 0);
  CU_ASSERT_EQUAL_FATAL(exp_rbuf_add(&rows, "p,lcp,2,pgs,1e-10,\"a,b\"\n"), 0);
  rows.nrows = 2; /* the caller counts its rows (task.c) */
  CU_ASSERT_EQUAL_FATAL(exp_result_commit(path, &h, &rows, 1, "p,lcp,2,pgs,1e-12,time_limit\n"), 0);
  exp_rbuf_free(&rows);
  int rc = exp_result_read(path, &r, why, sizeof why);
  if (rc) fprintf(stderr, "%s: %s\n", path, why);
  CU_ASSERT_EQUAL_FATAL(rc, 0);
  CU_ASSERT_EQUAL(r.task, 7);
  CU_ASSERT_STRING_EQUAL(r.plan, h.plan);
  CU_ASSERT_STRING_EQUAL(r.key, h.key);
  CU_ASSERT_STRING_EQUAL(r.spec, h.spec);
  CU_ASSERT_STRING_EQUAL(r.prov.cpu, h.prov.cpu);
  CU_ASSERT_STRING_EQUAL(r.prov.binary, h.prov.binary);
  CU_ASSERT_EQUAL(memcmp(r.speed, speed, sizeof speed), 0); /* the speed checks' counts */
  CU_ASSERT_EQUAL_FATAL(r.nrows, 3);
  CU_ASSERT(strstr(r.rows[1], "\"a,b\"") != NULL);
  CU_ASSERT(strstr(r.rows[2], "time_limit") != NULL);
  exp_result_free(&r);
  /* one byte changed: the checksum; cut short: truncated; none: missing */
  FILE *f = fopen(path, "r+");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  fseek(f, 20, SEEK_SET);
  fputc('#', f);
  fclose(f);
  CU_ASSERT_EQUAL(exp_result_read(path, &r, why, sizeof why), -1);
  exp_result_free(&r);
  CU_ASSERT_EQUAL(truncate(path, 100), 0);
  CU_ASSERT_EQUAL(exp_result_read(path, &r, why, sizeof why), -1);
  exp_result_free(&r);
  unlink(path);
  CU_ASSERT_EQUAL(exp_result_read(path, &r, why, sizeof why), 1);
}

/* The speed check (speed.c): a reference much faster than any probe can
 * be finds the CPU slow, starts a spell that is waited out while it is
 * young and not once it is older than EXP_SPEED_SPELL_S; a reference
 * slower than every probe finds it at speed, lowers the fastest to the
 * probe's time and ends the spell. */
static void test_speed_check(void) {
  exp_speed *sp = calloc(1, sizeof *sp);
  CU_ASSERT_PTR_NOT_NULL_FATAL(sp);
  exp_speed_check(sp); /* the first check: its buffer and the fastest (at speed or not) */
  CU_ASSERT_PTR_NOT_NULL_FATAL(sp->buf);
  CU_ASSERT(sp->best_s > 0.0);
  sp->checks = sp->slow = 0;
  sp->slow_since = 0.0;
  double probe = exp_speed_probe(sp, 20);
  CU_ASSERT(probe > 0.0);
  sp->best_s = 1e-12; /* planted: no probe runs this fast */
  CU_ASSERT_EQUAL(exp_speed_check(sp), 0);
  CU_ASSERT_EQUAL(sp->checks, 1);
  CU_ASSERT_EQUAL(sp->slow, 1);
  CU_ASSERT(sp->slow_since > 0.0);
  CU_ASSERT_EQUAL(exp_speed_waits(sp), 1);
  sp->slow_since = exp_now_s() - 2.0 * EXP_SPEED_SPELL_S; /* an old spell */
  CU_ASSERT_EQUAL(exp_speed_waits(sp), 0);
  double since = sp->slow_since;
  CU_ASSERT_EQUAL(exp_speed_check(sp), 0); /* still slow: the spell keeps its start */
  CU_ASSERT_EQUAL(sp->slow_since, since);
  sp->best_s = 1.0; /* planted: every probe beats it */
  CU_ASSERT_EQUAL(exp_speed_check(sp), 1);
  CU_ASSERT(sp->best_s < 1.0); /* lowered to the probe's time */
  CU_ASSERT_EQUAL(sp->slow_since, 0.0);
  CU_ASSERT_EQUAL(exp_speed_waits(sp), 0);
  CU_ASSERT_EQUAL(sp->checks, 3);
  CU_ASSERT_EQUAL(sp->slow, 2);
  free(sp->buf);
  free(sp);
}

/* Slow as the worker's usual (speed.c): a young spell is waited out while
 * the worker has made fewer than EXP_SPEED_NORM_CHECKS checks or at most
 * half of them were slow, and not once more than half of at least that
 * many were. */
static void test_speed_slow_usual(void) {
  exp_speed sp;
  memset(&sp, 0, sizeof sp);
  sp.slow_since = exp_now_s(); /* a spell just begun */
  static const struct {
    long checks, slow;
    int usual;
  } cases[] = {
    { 0, 0, 0 },                                                 /* the first check */
    { EXP_SPEED_NORM_CHECKS - 1, EXP_SPEED_NORM_CHECKS - 1, 0 }, /* too few to judge */
    { EXP_SPEED_NORM_CHECKS, EXP_SPEED_NORM_CHECKS / 2, 0 },     /* half: not more */
    { EXP_SPEED_NORM_CHECKS, EXP_SPEED_NORM_CHECKS / 2 + 1, 1 }, /* more than half */
    { 7895, 435, 0 },    /* the quiet machine of 2026-11-28-timing.md */
    { 55510, 48783, 1 }, /* the VM of 2026-11-30-speed-guard.md */
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    sp.checks = cases[k].checks;
    sp.slow = cases[k].slow;
    CU_ASSERT_EQUAL(exp_speed_slow_usual(&sp), cases[k].usual);
    CU_ASSERT_EQUAL(exp_speed_waits(&sp), !cases[k].usual);
  }
}

/* ---- plan and task ---------------------------------------------------------------- */

/* The lines of path without the comment lines, into lines (size max). */
static int read_lines(const char *path, char lines[][256], int max) {
  FILE *f = fopen(path, "r");
  int n = 0;
  if (!f) return -1;
  char buf[256];
  while (fgets(buf, sizeof buf, f) && n < max) {
    if (buf[0] == '#') continue;
    buf[strcspn(buf, "\n")] = '\0';
    snprintf(lines[n++], 256, "%s", buf);
  }
  fclose(f);
  return n;
}

/* Plans the campaign of config file cfg into folder dir with jobs jobs:
 * exp_campaign_plan's status. */
static int plan_config(const char *cfg, const char *dir, int jobs, exp_log *log) {
  exp_campaign_opts o;
  memset(&o, 0, sizeof o);
  o.config = cfg;
  o.plan = dir;
  o.jobs = jobs;
  return exp_campaign_plan(&o, log);
}

/* An experiment file at path holding text. */
static void write_config(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  fputs(text, f);
  fclose(f);
}

/* pgs and lemke on two spd problems at two tolerances. */
static const char two_tols_config[] =
    "experiment profile prof\nsolvers pgs lemke\ngenerate spd 8 seeds=1-2\n"
    "tol 1e-6 1e-10\nmin_runs 1\nmin_time 0\n";

/* solvers.tsv: the registered solvers of every section, once each in the
 * order the sections name them, with the sections that use them and the
 * registry's summary, params and cite. */
static void test_plan_solvers(void) {
  char cfg[300], dir[300], path[400];
  snprintf(cfg, sizeof cfg, "%s/sections.exp", tmp);
  snprintf(dir, sizeof dir, "%s/plan_solvers", tmp);
  write_config(cfg, "experiment profile first\nsolvers pgs lemke\ngenerate spd 4 seeds=1\n"
                    "experiment profile second\nsolvers lemke dantzig\ngenerate spd 4 seeds=1\n");
  said s = { "", 0 };
  exp_log log = { keep_line, &s };
  CU_ASSERT_EQUAL_FATAL(plan_config(cfg, dir, 1, &log), EXP_EXIT_OK);
  static const char *const want[][2] = { { "pgs", "first" },
                                         { "lemke", "first, second" },
                                         { "dantzig", "second" } };
  snprintf(path, sizeof path, "%s/solvers.tsv", dir);
  FILE *f = fopen(path, "r");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  char line[2048], expect[2048];
  CU_ASSERT_PTR_NOT_NULL(fgets(line, sizeof line, f));
  CU_ASSERT_STRING_EQUAL(line, "# solver\tsections\tsummary\tparams\tcite\n");
  for (int k = 0; k < 3; k++) {
    const slv_solver *sv = slv_solver_find(want[k][0]);
    CU_ASSERT_PTR_NOT_NULL_FATAL(sv);
    snprintf(expect, sizeof expect, "%s\t%s\t%s\t%s\t%s\n", sv->name, want[k][1], sv->summary,
             sv->params, sv->cite);
    CU_ASSERT_PTR_NOT_NULL_FATAL(fgets(line, sizeof line, f));
    CU_ASSERT_STRING_EQUAL(line, expect);
  }
  CU_ASSERT_PTR_NULL(fgets(line, sizeof line, f)); /* nothing else */
  fclose(f);
  CU_ASSERT_EQUAL(s.errors, 0);
}

static void test_plan_and_task(void) {
  char cfg[300], dir[300], path[400], id[24], why[256];
  snprintf(cfg, sizeof cfg, "%s/small.exp", tmp);
  snprintf(dir, sizeof dir, "%s/plan", tmp);
  write_config(cfg, two_tols_config);
  said s = { "", 0 };
  exp_log log = { keep_line, &s };
  CU_ASSERT_EQUAL_FATAL(plan_config(cfg, dir, 1, &log), EXP_EXIT_OK);
  exp_plan pl;
  memset(&pl, 0, sizeof pl);
  CU_ASSERT_EQUAL_FATAL(exp_plan_read(dir, &log, &pl), -1);
  CU_ASSERT_EQUAL(pl.ntasks, 4); /* 2 generated problems x 2 solvers */
  CU_ASSERT_EQUAL(pl.nprobs, 2);
  /* the metadata prepare.c records for the first problem */
  const exp_prob *p0 = &pl.probs[0];
  char sha[65];
  CU_ASSERT_STRING_EQUAL(p0->label, "spd_8_s1");
  CU_ASSERT_STRING_EQUAL(p0->family, "spd");
  CU_ASSERT_STRING_EQUAL(p0->kind, "lcp");
  CU_ASSERT_STRING_EQUAL(p0->origin, "generated");
  CU_ASSERT_EQUAL(p0->cls, EXP_CLASS_LCP);
  CU_ASSERT_EQUAL(p0->n, 8);
  CU_ASSERT_EQUAL(p0->nnz, 64); /* a dense SPD matrix */
  CU_ASSERT_EQUAL(p0->contacts, 0);
  CU_ASSERT(p0->cond >= 1 && isfinite(p0->cond));
  CU_ASSERT_EQUAL(exp_sha256_file(p0->path, sha, why, sizeof why), 0);
  CU_ASSERT_STRING_EQUAL(sha, p0->sha256);
  CU_ASSERT_EQUAL(exp_plan_peek_id(dir, id), 0);
  CU_ASSERT_STRING_EQUAL(pl.id, id);
  char lines[8][256], spec[256];
  snprintf(path, sizeof path, "%s/tasks.tsv", dir);
  CU_ASSERT_EQUAL_FATAL(read_lines(path, lines, 8), 4);
  for (int i = 0; i < 4; i++) {
    exp_task_spec(&pl, i, spec, sizeof spec);
    CU_ASSERT_STRING_EQUAL(spec, lines[i]);
  }
  /* task 1 (lemke on the first problem): its result matches it, intact */
  CU_ASSERT_EQUAL(exp_campaign_task(dir, 1, 0, NULL, 0, &log), EXP_EXIT_OK);
  exp_result r;
  exp_result_path(&pl, 1, path, sizeof path);
  CU_ASSERT_EQUAL_FATAL(exp_result_read(path, &r, why, sizeof why), 0);
  CU_ASSERT_EQUAL(exp_result_matches(&pl, 1, &r, why, sizeof why), 1);
  CU_ASSERT_EQUAL(exp_result_matches(&pl, 2, &r, why, sizeof why), 0);
  CU_ASSERT_STRING_EQUAL(r.task_status, "ok");
  CU_ASSERT_EQUAL(r.nrows, 2); /* one row per tol */
  for (int k = 0; k < r.nrows; k++) CU_ASSERT(strstr(r.rows[k], ",lemke,") != NULL);
  exp_result_free(&r);
  exp_plan_free(&pl);
  CU_ASSERT_EQUAL(s.errors, 0);
}

/* A timed task of a worker whose every check finds the CPU slow (its
 * fastest reference planted below any probe): after 1000 checks of which
 * 900 were slow (slow is its usual), no block is made again and every run
 * is kept and counted slow; the result's speed counts say so.  Before
 * speed.c's rule the blocks were made again until the row's 1 s ran out
 * (the counts, not the clock, are asserted). */
static void test_task_slow_usual(void) {
  char cfg[300], dir[300], path[400], why[256];
  snprintf(cfg, sizeof cfg, "%s/slow.exp", tmp);
  snprintf(dir, sizeof dir, "%s/plan_slow", tmp);
  write_config(cfg, "experiment profile prof\nsolvers pgs\ngenerate spd 8 seeds=1\ntol 1e-6\n"
                    "min_runs 5\nmin_time 0.02\nmax_time 0.05\n");
  said s = { "", 0 };
  exp_log log = { keep_line, &s };
  CU_ASSERT_EQUAL_FATAL(plan_config(cfg, dir, 1, &log), EXP_EXIT_OK);
  exp_plan pl;
  memset(&pl, 0, sizeof pl);
  CU_ASSERT_EQUAL_FATAL(exp_plan_read(dir, &log, &pl), -1);
  exp_cache cache;
  memset(&cache, 0, sizeof cache);
  cache.prob = -1;
  cache.speed.best_s = 1e-12; /* planted: every check slow */
  cache.speed.checks = 1000;
  cache.speed.slow = 900;
  CU_ASSERT_EQUAL(exp_task_run(&pl, 0, &cache, NULL), 0);
  exp_result r;
  exp_result_path(&pl, 0, path, sizeof path);
  CU_ASSERT_EQUAL_FATAL(exp_result_read(path, &r, why, sizeof why), 0);
  CU_ASSERT(r.speed[0] > 0);               /* checks made */
  CU_ASSERT_EQUAL(r.speed[1], r.speed[0]); /* every one slow */
  CU_ASSERT_EQUAL(r.speed[2], 0);          /* no run made again */
  CU_ASSERT(r.speed[3] > 0);               /* runs kept though slow */
  exp_result_free(&r);
  exp_cache_free(&cache);
  free(cache.speed.buf);
  exp_plan_free(&pl);
  CU_ASSERT_EQUAL(s.errors, 0);
}

/* The rows of a CSV (lines not starting with '#', the header left out);
 * -1 when it cannot be read. */
static int csv_rows(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  char *line = NULL;
  size_t cap = 0;
  int n = 0;
  while (getline(&line, &cap, f) > 0) n += line[0] != '#';
  free(line);
  fclose(f);
  return n - 1;
}

static void test_jobs_and_collect(void) {
  char cfg[300], dir[300], out[300], path[400];
  snprintf(cfg, sizeof cfg, "%s/small.exp", tmp);
  snprintf(dir, sizeof dir, "%s/plan2", tmp);
  snprintf(out, sizeof out, "%s/out2", tmp);
  write_config(cfg, two_tols_config);
  said s = { "", 0 };
  exp_log log = { keep_line, &s };
  CU_ASSERT_EQUAL_FATAL(plan_config(cfg, dir, 2, &log), EXP_EXIT_OK);
  exp_plan pl;
  memset(&pl, 0, sizeof pl);
  CU_ASSERT_EQUAL_FATAL(exp_plan_read(dir, &log, &pl), -1);
  exp_jobs_opts jo = { 2, 0, NULL, NULL, NULL };
  exp_jobs_report rep;
  memset(&rep, 0, sizeof rep);
  CU_ASSERT_EQUAL(exp_jobs_run(&pl, &jo, &rep), 0);
  CU_ASSERT_EQUAL(rep.total, 4);
  CU_ASSERT_EQUAL(rep.done, 4);
  CU_ASSERT_EQUAL(rep.left, 0);
  for (int i = 0; i < 4; i++) CU_ASSERT_EQUAL(exp_task_done(&pl, i), 1);
  /* a second run finds every result and runs nothing */
  CU_ASSERT_EQUAL(exp_jobs_run(&pl, &jo, &rep), 0);
  CU_ASSERT_EQUAL(rep.skipped, 4);
  CU_ASSERT_EQUAL(rep.done, 0);
  exp_collect_opts co = { out, NULL, NULL, 0, 1, 1, 0 };
  int rc = exp_campaign_collect(dir, &co, 0, &log);
  if (rc) fprintf(stderr, "collect: %s\n", s.last);
  CU_ASSERT_EQUAL(rc, EXP_EXIT_OK);
  snprintf(path, sizeof path, "%s/prof.csv", out);
  CU_ASSERT_EQUAL(csv_rows(path), 8); /* 2 problems x 2 solvers x 2 tols */
  snprintf(path, sizeof path, "%s/prof_winners.csv", out);
  CU_ASSERT_EQUAL(csv_rows(path), 4); /* 1 class x 2 tols x 2 solvers */
  exp_plan_free(&pl);
}

/* An external solver that writes `answer` to {out}, as a script in tmp. */
static void write_external(const char *name, const char *answer) {
  char path[300];
  snprintf(path, sizeof path, "%s/%s.sh", tmp, name);
  FILE *f = fopen(path, "w");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  fprintf(f, "printf '%s' >\"$1\"\n", answer);
  fclose(f);
}

/* Task `task`'s result row in the plan at dir, into row. */
static void result_row(const char *dir, int task, char *row, size_t len) {
  said s = { "", 0 };
  exp_log log = { keep_line, &s };
  exp_plan pl;
  exp_result r;
  char path[EXP_PATH_MAX], why[256];
  memset(&pl, 0, sizeof pl);
  row[0] = '\0';
  CU_ASSERT_EQUAL_FATAL(exp_plan_read(dir, &log, &pl), -1);
  CU_ASSERT_EQUAL(exp_campaign_task(dir, task, 0, NULL, 0, &log), EXP_EXIT_OK);
  exp_result_path(&pl, task, path, sizeof path);
  if (exp_result_read(path, &r, why, sizeof why) == 0 && r.nrows == 1)
    snprintf(row, len, "%s", r.rows[0]);
  exp_result_free(&r);
  exp_plan_free(&pl);
}

static void test_external_judged(void) {
  char cfg[300], dir[300], path[300], err[256] = "", row[1024];
  slv_problem p = two_by_two();
  io_instance *inst = io_instance_of_problem(&p, "two", NULL, 0);
  snprintf(path, sizeof path, "%s/two.lcp", tmp);
  CU_ASSERT_EQUAL_FATAL(io_write(path, IO_FMT_LCPLAB, inst, err, sizeof err), SLV_OK);
  io_instance_free(inst);
  write_external("right", "0.33333333333333331\\n0.33333333333333331\\n");
  write_external("wrong", "0\\n0\\n");
  snprintf(cfg, sizeof cfg, "%s/ext.exp", tmp);
  snprintf(dir, sizeof dir, "%s/extplan", tmp);
  FILE *f = fopen(cfg, "w");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  fprintf(f, "external right command sh %s/right.sh {out} {in}\n", tmp);
  fprintf(f, "external wrong command sh %s/wrong.sh {out} {in}\n", tmp);
  fputs("experiment profile ext\nsolvers right wrong\ninstances two.lcp\ntol 1e-8\n"
        "min_runs 1\nmin_time 0\n",
        f);
  fclose(f);
  said s = { "", 0 };
  exp_log log = { keep_line, &s };
  int rc = plan_config(cfg, dir, 1, &log);
  if (rc) fprintf(stderr, "%s\n", s.last);
  CU_ASSERT_EQUAL_FATAL(rc, EXP_EXIT_OK);
  /* the right answer converges by the library's residual, zero does not */
  exp_plan pl;
  memset(&pl, 0, sizeof pl);
  CU_ASSERT_EQUAL_FATAL(exp_plan_read(dir, &log, &pl), -1);
  /* cond_1(A) = ||A||_1 ||A^-1||_1 = 3 * 1 */
  CU_ASSERT_DOUBLE_EQUAL(pl.probs[0].cond, 3.0, 1e-12);
  CU_ASSERT_EQUAL(pl.probs[0].cls, EXP_CLASS_LCP);
  exp_plan_free(&pl);
  result_row(dir, 0, row, sizeof row);
  CU_ASSERT(strstr(row, "two,lcp,2,right,1e-08,converged,") == row);
  result_row(dir, 1, row, sizeof row);
  CU_ASSERT(strstr(row, "two,lcp,2,wrong,1e-08,unconverged,") == row);
}

/* The problems of a plan of the files paths (one profile section, pgs):
 * its catalogue read back from problems.tsv into *pl. */
static int plan_of_files(const char *name, const char *const *paths, int n, const char *more,
                         exp_plan *pl) {
  char cfg[300], dir[300];
  snprintf(cfg, sizeof cfg, "%s/%s.exp", tmp, name);
  snprintf(dir, sizeof dir, "%s/%s", tmp, name);
  FILE *f = fopen(cfg, "w");
  if (!f) return -1;
  fputs("experiment profile mu\nsolvers pgs\ninstances", f);
  for (int i = 0; i < n; i++) fprintf(f, " %s", paths[i]);
  fprintf(f, "\n%stol 1e-6\nmin_runs 1\nmin_time 0\n", more);
  fclose(f);
  said s = { "", 0 };
  exp_log log = { keep_line, &s };
  int rc = plan_config(cfg, dir, 1, &log);
  if (rc != EXP_EXIT_OK) {
    fprintf(stderr, "%s\n", s.last);
    return -1;
  }
  memset(pl, 0, sizeof *pl);
  return exp_plan_read(dir, &log, pl) == -1 ? 0 : -1;
}

static void test_mu_range(void) {
  char fc[300], fx[300], lcp[300], err[512];
  /* a Siconos FC3D .dat: 2 contacts, M = 2 I (dense), q = -1, mu 0.7 and 0.2 */
  snprintf(fc, sizeof fc, "%s/two_contacts.dat", tmp);
  FILE *f = fopen(fc, "w");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  fputs("3\n2\n0\n6\n6\n6\n6\n", f);
  for (int j = 0; j < 6; j++)
    for (int i = 0; i < 6; i++) fprintf(f, "%g\n", i == j ? 2.0 : 0.0);
  fputs("-1\n-1\n-1\n-1\n-1\n-1\n0.7\n0.2\n", f);
  fclose(f);
  /* a findex problem: normal rows 0 and 3, friction rows 1, 2 (mu 0.5) and
   * 4, 5 (mu 0.9) */
  static double A[36], b[6] = { -1, 0, 0, -1, 0, 0 }, lo[6], hi[6],
                       mu[6] = { 0, 0.5, 0.5, 0, 0.9, 0.9 };
  static int findex[6] = { -1, 0, 0, -1, 3, 3 };
  for (int i = 0; i < 6; i++) {
    A[i * 6 + i] = 2;
    lo[i] = findex[i] < 0 ? 0 : -INFINITY;
    hi[i] = INFINITY;
  }
  slv_problem p = slv_problem_empty();
  p.n = 6;
  p.storage = SLV_DENSE;
  p.A = A;
  p.lda = 6;
  p.b = b;
  p.lo = lo;
  p.hi = hi;
  p.findex = findex;
  p.mu = mu;
  io_instance *inst = io_instance_of_problem(&p, "friction", NULL, 0);
  CU_ASSERT_PTR_NOT_NULL_FATAL(inst);
  snprintf(fx, sizeof fx, "%s/friction.lcp", tmp);
  CU_ASSERT_EQUAL_FATAL(io_write(fx, IO_FMT_LCPLAB, inst, err, sizeof err), SLV_OK);
  io_instance_free(inst);
  p = two_by_two();
  inst = io_instance_of_problem(&p, "plain", NULL, 0);
  snprintf(lcp, sizeof lcp, "%s/plain.lcp", tmp);
  CU_ASSERT_EQUAL_FATAL(io_write(lcp, IO_FMT_LCPLAB, inst, err, sizeof err), SLV_OK);
  io_instance_free(inst);

  const char *paths[] = { fc, fx, lcp };
  exp_plan pl;
  /* a scene's pyramid LCP holds its mu (the world's, 0.5 by default) in A;
   * a scene without friction has none */
  CU_ASSERT_EQUAL_FATAL(plan_of_files("mu", paths, 3,
                                      "scene stack n=2 steps=5 friction=pyramid\n"
                                      "scene chain n=3 steps=5 friction=none\n",
                                      &pl),
                        0);
  CU_ASSERT_EQUAL_FATAL(pl.nprobs, 5);
  for (int i = 0; i < pl.nprobs; i++) {
    const exp_prob *q = &pl.probs[i];
    if (strcmp(q->label, "two_contacts") == 0) {
      CU_ASSERT_EQUAL(q->cls, EXP_CLASS_FC3D);
      CU_ASSERT_EQUAL(q->contacts, 2);
      CU_ASSERT_DOUBLE_EQUAL(q->mu_min, 0.2, 1e-12);
      CU_ASSERT_DOUBLE_EQUAL(q->mu_max, 0.7, 1e-12);
    } else if (strcmp(q->label, "friction") == 0) {
      CU_ASSERT_EQUAL(q->contacts, 2);
      CU_ASSERT_DOUBLE_EQUAL(q->mu_min, 0.5, 1e-12);
      CU_ASSERT_DOUBLE_EQUAL(q->mu_max, 0.9, 1e-12);
    } else if (strcmp(q->origin, "scene") == 0 && strcmp(q->family, "stack") == 0) {
      CU_ASSERT_EQUAL(q->cls, EXP_CLASS_LCP);
      CU_ASSERT(q->contacts > 0);
      CU_ASSERT_DOUBLE_EQUAL(q->mu_min, 0.5, 1e-12);
      CU_ASSERT_DOUBLE_EQUAL(q->mu_max, 0.5, 1e-12);
    } else {
      CU_ASSERT(strcmp(q->label, "plain") == 0 || strcmp(q->family, "chain") == 0);
      CU_ASSERT(isnan(q->mu_min) && isnan(q->mu_max));
    }
  }
  exp_plan_free(&pl);

  /* Siconos' own file: one contact, mu = 0.1 (its last line) */
  char dir[4096], path[4200];
  if (!tst_shared_path("datasets/siconos/fc3d", dir, sizeof dir)) {
    printf("\n    SKIP: ../shared/datasets not found (set LCPLAB_SHARED)");
    return;
  }
  snprintf(path, sizeof path, "%s/FrictionContact3D_1c.dat", dir);
  const char *one[] = { path };
  CU_ASSERT_EQUAL_FATAL(plan_of_files("mu_siconos", one, 1, "", &pl), 0);
  CU_ASSERT_EQUAL_FATAL(pl.nprobs, 1);
  CU_ASSERT_EQUAL(pl.probs[0].contacts, 1);
  CU_ASSERT_DOUBLE_EQUAL(pl.probs[0].mu_min, 0.1, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(pl.probs[0].mu_max, 0.1, 1e-12);
  exp_plan_free(&pl);
}

/* ---- figure options --------------------------------------------------------------- */

static void test_figure_options(void) {
  said s = { "", 0 };
  exp_log log = { keep_line, &s };
  char csv[300], out[64];
  snprintf(csv, sizeof csv, "%s/fig.csv", tmp);
  FILE *f = fopen(csv, "w");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  fputs("# a section\n# figure: logy=1 title=A b\n# figure: ymax=2\nx,y\n# figure: no=1\n", f);
  fclose(f);
  /* the preamble's last figure line, then the --set words */
  CU_ASSERT_EQUAL(exp_figure_options(&log, csv, "xmin=0.5", out, sizeof out), EXP_EXIT_OK);
  CU_ASSERT_STRING_EQUAL(out, "ymax=2 xmin=0.5");
  CU_ASSERT_EQUAL(exp_figure_options(&log, csv, NULL, out, sizeof out), EXP_EXIT_OK);
  CU_ASSERT_STRING_EQUAL(out, "ymax=2");
  CU_ASSERT_EQUAL(s.errors, 0);
  /* a value that could reach a command; too long; no file */
  CU_ASSERT_EQUAL(exp_figure_options(&log, csv, "ymin=$(x)", out, sizeof out), EXP_EXIT_USAGE);
  CU_ASSERT(strstr(s.last, "option 'ymin=$(x)'") != NULL);
  CU_ASSERT_EQUAL(exp_figure_options(
                      &log, csv,
                      "title=this one is far too long for a buffer of sixty-four characters, truly",
                      out, sizeof out),
                  EXP_EXIT_USAGE);
  CU_ASSERT(strstr(s.last, "longer than 63") != NULL);
  unlink(csv);
  CU_ASSERT_EQUAL(exp_figure_options(&log, csv, NULL, out, sizeof out), EXP_EXIT_USAGE);
  CU_ASSERT(strstr(s.last, "cannot read") != NULL);
  CU_ASSERT_EQUAL(s.errors, 3);
}

/* ---- exported steps --------------------------------------------------------------- */

typedef struct exporting {
  exp_export e;
  FILE *json;
  int written;
} exporting;

static int export_one(void *ctx, dyn_world *w, const dyn_run_step *st) {
  exporting *x = ctx;
  slv_problem p;
  const double *sol = NULL;
  dyn_world_last_problem(w, &p, &sol);
  if (p.n == 0) return 0;
  if (!exp_export_step(&x->e, w, st, &p, sol, x->json)) return 1;
  x->written++;
  return 0;
}

static void test_export_formats(void) {
  said s = { "", 0 };
  exp_log log = { keep_line, &s };
  CU_ASSERT_EQUAL(exp_export_format(&log, "lcplab", 0), 4);
  CU_ASSERT_STRING_EQUAL(exp_export_format_name(4), "lcplab");
  CU_ASSERT_EQUAL(exp_export_format(&log, "dat", 1), 0);
  CU_ASSERT_EQUAL(s.errors, 0);
  CU_ASSERT_EQUAL(exp_export_format(&log, "blcp", 1), -1);
  CU_ASSERT(strstr(s.last, "--global needs") != NULL);
  CU_ASSERT_EQUAL(exp_export_format(&log, "csv", 0), -1);
  CU_ASSERT(strstr(s.last, "got 'csv'") != NULL);
  CU_ASSERT_EQUAL(exp_export_format(&log, NULL, 0), -1);
  CU_ASSERT_EQUAL(s.errors, 3);
}

static void test_export_step(void) {
  said s = { "", 0 };
  exp_log log = { keep_line, &s };
  dyn_world_settings set = dyn_world_settings_default();
  snprintf(set.solver, sizeof set.solver, "lemke");
  const char *params[1] = { "layers=2" };
  dyn_world *w = NULL;
  char msg[256] = "", path[400], err[256] = "";
  CU_ASSERT_EQUAL_FATAL(dyn_scene_new("pyramid", params, 1, &set, &w, msg, sizeof msg), DYN_OK);
  exporting x = { { tmp, "pyr", 4, 0, &log, 0 }, tmpfile(), 0 };
  CU_ASSERT_EQUAL(dyn_world_run(w, 20, export_one, &x, NULL), 0);
  CU_ASSERT(x.written > 0); /* the pyramid touches down within 20 steps */
  snprintf(path, sizeof path, "%s/pyr_step000020.lcp", tmp);
  io_instance *inst = NULL;
  CU_ASSERT_EQUAL_FATAL(io_read(path, IO_FMT_AUTO, &inst, err, sizeof err), SLV_OK);
  slv_problem p;
  const double *sol = NULL;
  dyn_world_last_problem(w, &p, &sol);
  CU_ASSERT_EQUAL(inst->n, p.n);
  CU_ASSERT_STRING_EQUAL(inst->kind, "findex"); /* the default friction: box rows */
  io_instance_free(inst);
  rewind(x.json);
  char line[1024] = "";
  while (fgets(line, sizeof line, x.json)) continue; /* the last line: step 20 */
  CU_ASSERT(strstr(line, "\"step\":20,") != NULL);
  CU_ASSERT(strstr(line, "pyr_step000020.x\"") != NULL);
  fclose(x.json);
  CU_ASSERT_EQUAL(exp_export_step_exists(&x.e, 20), 1);
  CU_ASSERT(strstr(s.last, "pyr_step000020.lcp exists") != NULL);
  CU_ASSERT_EQUAL(exp_export_step_exists(&x.e, 21), 0);
  /* MatrixMarket: a sidecar the writer would replace is refused too */
  exp_export m = { tmp, "pyr", exp_export_format(&log, "mtx", 0), 0, &log, 0 };
  snprintf(path, sizeof path, "%s/pyr_step000021.findex", tmp);
  FILE *f = fopen(path, "w");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  fclose(f);
  CU_ASSERT_EQUAL(exp_export_step_exists(&m, 21), 1);
  CU_ASSERT(strstr(s.last, "pyr_step000021.findex exists") != NULL);
  CU_ASSERT_EQUAL(exp_export_step_exists(&x.e, 21), 0); /* the lcplab format has none */
  dyn_world_free(w);
}

static int remove_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
  (void)sb;
  (void)flag;
  (void)ftw;
  return remove(path);
}

/* Writes text to dir/name. */
static void put_file(const char *dir, const char *name, const char *text) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  fputs(text, f);
  fclose(f);
}

static int there(const char *dir, const char *name) {
  char path[512];
  if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path) return 0;
  struct stat st;
  return lstat(path, &st) == 0;
}

/* The names starting with "a" (a pick of exp_owned_remove). */
static int pick_a(void *ctx, const char *name) {
  (void)ctx;
  return name[0] == 'a';
}

static void test_owned_record(void) {
  char dir[300], err[600] = "", path[600];
  snprintf(dir, sizeof dir, "%s/owned", tmp);
  snprintf(path, sizeof path, "%s/sub", dir);
  CU_ASSERT_EQUAL_FATAL(mkdir(dir, 0777), 0);
  CU_ASSERT_EQUAL_FATAL(mkdir(path, 0777), 0);
  exp_owned o;
  CU_ASSERT_EQUAL(exp_owned_load(dir, &o, err, sizeof err), 0);
  CU_ASSERT_EQUAL(o.exists, 0);
  CU_ASSERT_EQUAL(o.n, 0);
  const char *first[] = { "b.csv", "a.csv", "sub/t1.res", "../up",        "/abs",
                          "a//b",  "./x",   "sub/..",     EXP_OWNED_FILE, "keepdir" };
  const char *again[] = { "a.csv", "link", "b.csv", "ax.csv" };
  CU_ASSERT_EQUAL(exp_owned_record(dir, first, 10, err, sizeof err), 0);
  CU_ASSERT_EQUAL(exp_owned_record(dir, again, 4, err, sizeof err), 0);
  CU_ASSERT_EQUAL_FATAL(exp_owned_load(dir, &o, err, sizeof err), 0);
  const char *want[] = { "a.csv", "ax.csv", "b.csv", "keepdir", "link", "sub/t1.res" };
  CU_ASSERT_EQUAL_FATAL(o.n, 6);
  for (int i = 0; i < 6; i++) CU_ASSERT_STRING_EQUAL(o.name[i], want[i]);
  CU_ASSERT(exp_owned_has(&o, "sub/t1.res") && !exp_owned_has(&o, "../up"));
  exp_owned_free(&o);
  /* the files: recorded ones, their temporaries, a user's, a folder, a link */
  put_file(dir, "a.csv", "1");
  put_file(dir, ".a.csv.123-0.tmp", "partial");
  put_file(dir, ".ax.csv.tmp.77.78", "partial");
  put_file(dir, "b.csv", "1");
  put_file(dir, ".b.csv.9-1.tmp", "b's");
  put_file(dir, ".c.csv.9-1.tmp", "not recorded");
  put_file(dir, "analysis.txt", "the user's");
  put_file(path, "t1.res", "1");
  put_file(path, ".t1.res.tmp.5.6", "partial");
  put_file(path, "analysis.txt", "the user's");
  snprintf(path, sizeof path, "%s/keepdir", dir);
  CU_ASSERT_EQUAL(mkdir(path, 0777), 0);
  snprintf(path, sizeof path, "%s/b.csv", dir);
  CU_ASSERT_EQUAL(symlink(path, strcat(strcpy(err, dir), "/link")), 0);
  /* the "a" names: a.csv and its temporary, ax.csv's (the file is absent) */
  CU_ASSERT_EQUAL(exp_owned_remove(dir, pick_a, NULL, err, sizeof err), 1);
  CU_ASSERT(!there(dir, "a.csv") && !there(dir, ".a.csv.123-0.tmp"));
  CU_ASSERT(!there(dir, ".ax.csv.tmp.77.78"));
  CU_ASSERT(there(dir, "b.csv") && there(dir, ".b.csv.9-1.tmp") && there(dir, "link"));
  CU_ASSERT_EQUAL_FATAL(exp_owned_load(dir, &o, err, sizeof err), 0);
  CU_ASSERT_EQUAL(o.n, 4);
  CU_ASSERT(!exp_owned_has(&o, "a.csv") && exp_owned_has(&o, "b.csv"));
  exp_owned_free(&o);
  /* all: the link goes, not what it names; a recorded folder and every
   * unrecorded file stay */
  CU_ASSERT_EQUAL(exp_owned_remove(dir, NULL, NULL, err, sizeof err), 3);
  CU_ASSERT(!there(dir, "b.csv") && !there(dir, ".b.csv.9-1.tmp") && !there(dir, "link"));
  CU_ASSERT(!there(dir, "sub/t1.res") && !there(dir, "sub/.t1.res.tmp.5.6"));
  CU_ASSERT(there(dir, "keepdir") && there(dir, "analysis.txt") && there(dir, "sub/analysis.txt"));
  CU_ASSERT(there(dir, ".c.csv.9-1.tmp"));
  CU_ASSERT_EQUAL_FATAL(exp_owned_load(dir, &o, err, sizeof err), 0);
  CU_ASSERT(o.exists && o.n == 0);
  exp_owned_free(&o);
  /* a file that is not a record: nothing is lcplab's */
  put_file(dir, EXP_OWNED_FILE, "analysis.txt\n");
  CU_ASSERT_EQUAL(exp_owned_remove(dir, NULL, NULL, err, sizeof err), -1);
  CU_ASSERT(there(dir, "analysis.txt") && strstr(err, "not a record") != NULL);
}

/* The text of dir/name ("" when unreadable) into out. */
static void text_of(const char *dir, const char *name, char *out, size_t len) {
  char path[1100];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "r");
  size_t n = f ? fread(out, 1, len - 1, f) : 0;
  out[n] = '\0';
  if (f) fclose(f);
}

/* beneath.c: removing inside a folder never follows a link out of it, and
 * a new file is never made through a link planted at its name. */
static void test_beneath(void) {
  char dir[512], away[512], path[600], used[640], text[64];
  snprintf(dir, sizeof dir, "%s/beneath", tmp);
  snprintf(away, sizeof away, "%s/away", tmp);
  CU_ASSERT_EQUAL_FATAL(mkdir(dir, 0777), 0);
  CU_ASSERT_EQUAL_FATAL(mkdir(away, 0777), 0);
  put_file(away, "victim.txt", "the user's");
  put_file(dir, "mine.csv", "1");
  snprintf(path, sizeof path, "%s/sub", dir);
  CU_ASSERT_EQUAL(mkdir(path, 0777), 0);
  snprintf(path, sizeof path, "%s/sub/lnk", dir);
  CU_ASSERT_EQUAL(symlink(away, path), 0);
  snprintf(path, sizeof path, "%s/lnk", dir);
  CU_ASSERT_EQUAL(symlink(away, path), 0);
  snprintf(path, sizeof path, "%s/vl", dir);
  snprintf(used, sizeof used, "%s/victim.txt", away);
  CU_ASSERT_EQUAL(symlink(used, path), 0);
  int fd = open(dir, O_RDONLY | O_DIRECTORY);
  CU_ASSERT_FATAL(fd >= 0);
  /* a link on the way: left alone (0); the victim stays */
  CU_ASSERT_EQUAL(exp_beneath_remove(fd, "lnk/victim.txt"), 0);
  CU_ASSERT_EQUAL(exp_beneath_remove(fd, "sub/lnk/victim.txt"), 0);
  CU_ASSERT(there(away, "victim.txt"));
  /* refused names */
  CU_ASSERT_EQUAL(exp_beneath_remove(fd, "../away/victim.txt"), -1);
  CU_ASSERT_EQUAL(exp_beneath_remove(fd, "sub/../mine.csv"), -1);
  CU_ASSERT_EQUAL(exp_beneath_remove(fd, used), -1);
  CU_ASSERT(there(away, "victim.txt") && there(dir, "mine.csv"));
  CU_ASSERT(exp_beneath_open(fd, "lnk") < 0);
  /* a recorded link: the link goes, not its target; a folder stays */
  CU_ASSERT_EQUAL(exp_beneath_remove(fd, "vl"), 1);
  CU_ASSERT(!there(dir, "vl") && there(away, "victim.txt"));
  CU_ASSERT_EQUAL(exp_beneath_remove(fd, "sub"), 0);
  CU_ASSERT_EQUAL(exp_beneath_remove(fd, "mine.csv"), 1);
  CU_ASSERT_EQUAL(exp_beneath_remove(fd, "mine.csv"), 0);
  close(fd);
  /* exp_create_new: a link and a hard link at the name; NAME.1, NAME.2 made */
  snprintf(path, sizeof path, "%s/own", dir);
  CU_ASSERT_EQUAL(symlink(used, path), 0);
  int nfd = exp_create_new(path, 0644, used, sizeof used);
  CU_ASSERT_FATAL(nfd >= 0);
  CU_ASSERT(write(nfd, "x", 1) == 1);
  close(nfd);
  CU_ASSERT(strcmp(used + strlen(used) - 6, "/own.1") == 0);
  char victim[600];
  snprintf(victim, sizeof victim, "%s/victim.txt", away);
  snprintf(path, sizeof path, "%s/own.2", dir);
  CU_ASSERT_EQUAL(link(victim, path), 0);
  snprintf(path, sizeof path, "%s/own", dir);
  nfd = exp_create_new(path, 0644, used, sizeof used);
  CU_ASSERT_FATAL(nfd >= 0);
  CU_ASSERT(write(nfd, "y", 1) == 1);
  close(nfd);
  CU_ASSERT(strcmp(used + strlen(used) - 6, "/own.3") == 0);
  text_of(away, "victim.txt", text, sizeof text);
  CU_ASSERT_STRING_EQUAL(text, "the user's");
}

int main(void) {
  snprintf(tmp, sizeof tmp, "%s/lcplab_explib_XXXXXX",
           getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  if (!mkdtemp(tmp)) return 99;
  if (CU_initialize_registry() != CUE_SUCCESS) return CU_get_error();
  CU_pSuite s = CU_add_suite("experiment library", NULL, NULL);
  CU_add_test(s, "JSON strings and numbers", test_json_values);
  CU_add_test(s, "options: the file's record under the flags", test_options_from_file);
  CU_add_test(s, "the JSON of a timed solve", test_solve_json);
  CU_add_test(s, "one class per kind", test_classes);
  CU_add_test(s, "the judge", test_judge);
  CU_add_test(s, "the speed check of timed runs", test_speed_check);
  CU_add_test(s, "slow as the worker's usual: nothing waited out", test_speed_slow_usual);
  CU_add_test(s, "CSV fields round trip", test_csv_round_trip);
  CU_add_test(s, "provenance fields", test_provenance);
  CU_add_test(s, "provenance as CSV comment lines", test_provenance_lines);
  CU_add_test(s, "result file round trip", test_result_round_trip);
  CU_add_test(s, "plan written and read, one task run", test_plan_and_task);
  CU_add_test(s, "a task of a worker slow as usual keeps its runs", test_task_slow_usual);
  CU_add_test(s, "solvers.tsv: the sections' solvers and their params", test_plan_solvers);
  CU_add_test(s, "jobs run a plan's tasks, collect merges them", test_jobs_and_collect);
  CU_add_test(s, "an external solver's answer judged", test_external_judged);
  CU_add_test(s, "problem metadata: the friction coefficients' range", test_mu_range);
  CU_add_test(s, "figure options: the CSV's, then --set, checked", test_figure_options);
  CU_add_test(s, "export formats", test_export_formats);
  CU_add_test(s, "an exported step", test_export_step);
  CU_add_test(s, "a folder's record of lcplab's files", test_owned_record);
  CU_add_test(s, "removing and creating inside a folder, never through a link", test_beneath);
  CU_basic_set_mode(CU_BRM_VERBOSE);
  CU_basic_run_tests();
  unsigned failed = CU_get_number_of_failures();
  CU_cleanup_registry();
  if (!failed) nftw(tmp, remove_one, 16, FTW_DEPTH | FTW_PHYS);
  return failed ? 1 : 0;
}
