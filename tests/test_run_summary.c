/* test_run_summary.c -- what the comparison engine adds to a run's summary
 * (the summary itself is libdynamics': tests/test_world_summary.c): a scene
 * peer's summary line (libexperiment/summary_parse.c), the time per
 * contact, and the fit of a scenes section (tables.c,
 * exp_scene_slopes_write), against hand-worked values.
 *
 * A peer's line: nested keys (params.steps, engine_info.time_step_median_s)
 * are not the top level's; null is NaN; a missing required field is an
 * error naming it; the drift is left to the caller (NaN: it needs the
 * scene's scale).
 *
 * Slopes: rows t = 1e-6 c at c = 100, 1000, 10000 (status ok) and one
 * failed row: slope 1, intercept log(1e-6), r2 1, 3 points, median time per
 * contact 1e-6; a second solver with one point: no fit.
 */
#define _GNU_SOURCE

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>
#include <CUnit/CUnit.h>

#include "exp_internal.h"
#include "tst_util.h"

/* The text of the source file rel (under LCPLAB_SRCDIR, else ".."), or
 * NULL; the caller frees it. */
static char *source_text(const char *rel) {
  const char *top = getenv("LCPLAB_SRCDIR");
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", top && top[0] ? top : "..", rel);
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char *buf = malloc(1 << 20);
  size_t n = buf ? fread(buf, 1, (1 << 20) - 1, f) : 0;
  fclose(f);
  if (buf) buf[n] = '\0';
  return buf;
}

/* The text of text from the first "from" to the next "to" (in place). */
static char *between(char *text, const char *from, const char *to) {
  char *a = text ? strstr(text, from) : NULL, *b = a ? strstr(a, to) : NULL;
  if (b) *b = '\0';
  return a;
}

/* The run summary's fields are one table (summary_parse.c): what lcplab
 * simulate writes (exp_run_summary_put) reads back field for field
 * (exp_run_summary_parse: a planted value of each, from 1.5, 2.5, ...), and
 * every field is named where the others list them: simulate's header,
 * the scene peers' rule (experiments/CAMPAIGNS.md) and, for the required
 * ones, the MuJoCo peer's summary line (experiments/peers/mujoco_model.c)
 * and the fake peer of experiments/experiment_outputs.sh. */
static void test_one_field_list(void) {
  int n;
  const exp_summary_field *t = exp_run_summary_fields(&n);
  dyn_run_summary in, out;
  memset(&in, 0, sizeof in);
  for (int k = 0; k < n; k++) {
    char *at = (char *)&in + t[k].offset;
    if (t[k].type == 'd') *(double *)(void *)at = k + 1.5;
    if (t[k].type == 'l') *(long *)(void *)at = k + 1;
    if (t[k].type == 'i') *(int *)(void *)at = k + 1;
  }
  char *json = NULL, err[256] = "";
  size_t len = 0;
  FILE *f = open_memstream(&json, &len);
  fprintf(f, "{\"steps\":%ld,\"timed_steps\":%ld", in.steps, in.timed_steps);
  exp_run_summary_put(f, &in, 7);
  fputs("}\n", f);
  fclose(f);
  CU_ASSERT_PTR_NOT_NULL(strstr(json, ",\"joints\":7,"));
  CU_ASSERT_EQUAL_FATAL(exp_run_summary_parse(json, &out, err, sizeof err), 0);
  for (int k = 0; k < n; k++) {
    if (t[k].type == 'j') continue;
    int same = memcmp((char *)&in + t[k].offset, (char *)&out + t[k].offset,
                      t[k].type == 'd'   ? sizeof(double)
                      : t[k].type == 'l' ? sizeof(long)
                                         : sizeof(int)) == 0;
    CU_ASSERT(same);
    if (!same) fprintf(stderr, "%s: not read back from %s", t[k].name, json);
  }
  free(json);
  char *sim = source_text("cli/cmd_simulate.c"), *camp = source_text("experiments/CAMPAIGNS.md"),
       *mj = source_text("experiments/peers/mujoco_model.c"),
       *fake = source_text("experiments/experiment_outputs.sh");
  CU_ASSERT_FATAL(sim && camp && mj && fake);
  char *head = between(sim, "/*", "*/"),
       *rule = between(camp, "Standard output's last line", ".\n");
  for (int k = 0; k < n; k++) {
    char q[80], b[80]; /* q: the C source's escaped JSON key */
    snprintf(q, sizeof q, "\\\"%s\\\"", t[k].name);
    snprintf(b, sizeof b, "`%s`", t[k].name);
    char plain[80]; /* the shell's JSON, unescaped */
    snprintf(plain, sizeof plain, "\"%s\"", t[k].name);
    int written = (t[k].flags & (EXP_SUM_BLOCK | EXP_SUM_REQUIRED)) != 0;
    int req = (t[k].flags & EXP_SUM_REQUIRED) != 0;
    const char *miss[4] = {
      !written || (head && strstr(head, t[k].name)) ? NULL : "cli/cmd_simulate.c's header",
      t[k].type == 'j' || (rule && strstr(rule, b)) ? NULL : "experiments/CAMPAIGNS.md",
      !req || strstr(mj, q) ? NULL : "mujoco_model.c's line",
      !req || strstr(fake, plain) ? NULL : "experiment_outputs.sh's peer"
    };
    for (int m = 0; m < 4; m++) {
      CU_ASSERT_PTR_NULL(miss[m]);
      if (miss[m]) fprintf(stderr, "the run summary's field %s is not in %s\n", t[k].name, miss[m]);
    }
  }
  free(sim);
  free(camp);
  free(mj);
  free(fake);
}

static void test_time_per_contact(void) {
  CU_ASSERT(isnan(exp_time_per_contact(1e-3, 0)));
  CU_ASSERT_DOUBLE_EQUAL(exp_time_per_contact(1e-3, 4), 2.5e-4, 1e-18);
}

static void test_parse(void) {
  const char *line =
      "engine: ode\n{\"engine\":\"ode\",\"params\":{\"steps\":1,\"time_step_median_s\":9},"
      "\"steps\":600,\"timed_steps\":480,\"time_step_median_s\":0.002,"
      "\"time_step_mean_s\":3e-3,\"contacts_mean_timed\":8,\"contacts_max\":9,"
      "\"max_penetration\":null,\"energy_start\":10,\"energy_end\":9,"
      "\"max_body_displacement\":0.01,\"engine_info\":{\"time_step_median_s\":7}}\n";
  dyn_run_summary r;
  char err[256] = "";
  CU_ASSERT_EQUAL_FATAL(exp_run_summary_parse(line, &r, err, sizeof err), 0);
  CU_ASSERT_EQUAL(r.steps, 600);
  CU_ASSERT_EQUAL(r.timed_steps, 480);
  CU_ASSERT_DOUBLE_EQUAL(r.time_step_median_s, 0.002, 1e-18);
  CU_ASSERT_DOUBLE_EQUAL(r.time_step_mean_s, 0.003, 1e-18);
  CU_ASSERT_DOUBLE_EQUAL(r.contacts_mean_timed, 8, 0);
  CU_ASSERT_EQUAL(r.contacts_max, 9);
  CU_ASSERT(isnan(r.max_penetration_end));
  CU_ASSERT(isnan(r.max_settled_displacement)); /* a peer has none */
  CU_ASSERT_EQUAL(r.not_converged, -1);
  CU_ASSERT(isnan(r.energy_drift));
  /* lcplab simulate's own field name */
  const char *own = "{\"steps\":2,\"time_step_median_s\":1,\"time_step_mean_s\":1,"
                    "\"contacts_mean_timed\":1,\"energy_start\":1,\"energy_end\":1,"
                    "\"max_body_displacement\":0,\"max_penetration_end\":0.5}";
  CU_ASSERT_EQUAL(exp_run_summary_parse(own, &r, err, sizeof err), 0);
  CU_ASSERT_DOUBLE_EQUAL(r.max_penetration_end, 0.5, 0);
  /* required field only nested: missing */
  const char *nested = "{\"params\":{\"steps\":1},\"time_step_median_s\":1,\"time_step_mean_s\":1,"
                       "\"contacts_mean_timed\":1,\"energy_start\":1,\"energy_end\":1,"
                       "\"max_body_displacement\":0}";
  CU_ASSERT_EQUAL(exp_run_summary_parse(nested, &r, err, sizeof err), -1);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "\"steps\""));
  CU_ASSERT_EQUAL(exp_run_summary_parse("no json here\n", &r, err, sizeof err), -1);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "no summary line"));
  CU_ASSERT_EQUAL(exp_run_summary_parse("{\"steps\":\"six\"}", &r, err, sizeof err), -1);
}

static void scene_row(exp_row *r, char *solver, char *contacts, char *time, char *status) {
  memset(r, 0, sizeof *r);
  static char empty[] = "", scene[] = "pile", settings[] = "margin=0";
  for (int k = 0; k < 21; k++) r->f[k] = empty;
  r->nf = 21;
  r->f[exp_col(EXP_SCENES, "scene")] = scene;
  r->f[exp_col(EXP_SCENES, "settings")] = settings;
  r->f[exp_col(EXP_SCENES, "solver")] = solver;
  r->f[exp_col(EXP_SCENES, "contacts_mean_timed")] = contacts;
  r->f[exp_col(EXP_SCENES, "time_step_median_s")] = time;
  r->f[exp_col(EXP_SCENES, "status")] = status;
}

static void test_scene_slopes(void) {
  exp_row rows[5];
  char a[] = "a", b[] = "b", ok[] = "ok", failed[] = "failed";
  char c1[] = "100", c2[] = "1000", c3[] = "10000", t1[] = "1e-4", t2[] = "1e-3", t3[] = "1e-2",
       t9[] = "5";
  scene_row(&rows[0], a, c1, t1, ok);
  scene_row(&rows[1], a, c2, t2, ok);
  scene_row(&rows[2], b, c2, t2, ok);
  scene_row(&rows[3], a, c3, t3, ok);
  scene_row(&rows[4], a, c3, t9, failed);
  CU_ASSERT_EQUAL_FATAL(exp_col(EXP_SCENES, "note"), 20);
  char *text = NULL;
  size_t len = 0;
  FILE *g = open_memstream(&text, &len);
  CU_ASSERT_PTR_NOT_NULL_FATAL(g);
  CU_ASSERT_EQUAL(exp_scene_slopes_write(g, NULL, rows, 5), 0);
  fclose(g);
  char *l2 = strchr(text, '\n');
  CU_ASSERT_PTR_NOT_NULL_FATAL(l2);
  *l2 = '\0';
  double slope, icpt, r2, lo, hi, tpc;
  int pts = 0;
  CU_ASSERT_EQUAL(sscanf(text, "pile,margin=0,a,%d,%lf,%lf,%lf,%lf,%lf,%lf", &pts, &slope, &icpt,
                         &r2, &lo, &hi, &tpc),
                  7);
  CU_ASSERT_EQUAL(pts, 3);
  CU_ASSERT(lo <= 1.0 + 1e-9 && hi >= 1.0 - 1e-9);
  CU_ASSERT_DOUBLE_EQUAL(tpc, 1e-6, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(slope, 1.0, 1e-6);
  CU_ASSERT_DOUBLE_EQUAL(icpt, log(1e-6), 1e-5);
  CU_ASSERT_DOUBLE_EQUAL(r2, 1.0, 1e-6);
  CU_ASSERT_STRING_EQUAL(l2 + 1, "pile,margin=0,b,1,,,,,,1.000000e-06\n");
  free(text);
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return 1;
  CU_pSuite s = CU_add_suite("scene summaries", NULL, NULL);
  CU_add_test(s, "time per contact", test_time_per_contact);
  CU_add_test(s, "a peer's summary line", test_parse);
  CU_add_test(s, "the run summary's fields: one list", test_one_field_list);
  CU_add_test(s, "scenes: step time against contacts", test_scene_slopes);
  return tst_run();
}
