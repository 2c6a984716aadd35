/* summary_parse.c -- a scene peer's summary line, read into the run
 * summary lcplab's own runs make (dyn_run_summary, libdynamics' dyn_run.h),
 * so that a peer's row of a `scenes` section and lcplab's are the same
 * measures (experiments/README.md, "scenes"; experiments/CAMPAIGNS.md,
 * "Scene peers"); and the time per contact of a scenes row.  The energy
 * drift of a peer's row is computed by the caller with the scene's drift
 * scale (dyn_model_drift_scale: scene_peer.c), as for lcplab's runs.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exp_internal.h"

double exp_time_per_contact(double step_s, double contacts) {
  return contacts > 0 && isfinite(step_s) ? step_s / contacts : NAN;
}

/* The text after "key": at the top level of the JSON object json, or NULL:
 * keys of nested objects (a peer's params, engine_info) are not taken. */
static const char *top_value(const char *json, const char *key) {
  size_t kl = strlen(key);
  int depth = 0;
  for (const char *p = json; *p; p++) {
    if (*p == '{' || *p == '[') depth++;
    if (*p == '}' || *p == ']') depth--;
    if (*p != '"') continue;
    const char *start = p + 1, *q = start;
    while (*q && *q != '"') q += (*q == '\\' && q[1]) ? 2 : 1;
    if (!*q) return NULL;
    const char *after = q + 1;
    while (*after == ' ') after++;
    if (depth == 1 && *after == ':' && (size_t)(q - start) == kl && strncmp(start, key, kl) == 0) {
      for (after++; *after == ' '; after++) {}
      return after;
    }
    p = q;
  }
  return NULL;
}

/* The number of key: 1 set (null: NaN), 0 absent or not a number. */
static int top_number(const char *json, const char *key, double *out) {
  const char *v = top_value(json, key);
  if (!v) return 0;
  if (strncmp(v, "null", 4) == 0) {
    *out = NAN;
    return 1;
  }
  char *end;
  double x = strtod(v, &end);
  if (end == v || (*end && *end != ',' && *end != '}' && *end != ' ')) return 0;
  *out = x;
  return 1;
}

/* The run summary's fields, once (issue 81 item 4): `lcplab simulate`'s
 * JSON writes the block (exp_run_summary_put) in this order, a scene peer's
 * line is read by it (exp_run_summary_parse), and tests/test_run_summary.c
 * checks the peers' writers and the documentation against it. */
#define SUM_FIELD(name, type, digits, flags)                                                       \
  { #name, offsetof(dyn_run_summary, name), type, digits, flags }
static const exp_summary_field summary_fields[] = {
  SUM_FIELD(steps, 'l', 0, EXP_SUM_REQUIRED),
  SUM_FIELD(timed_steps, 'l', 0, 0),
  SUM_FIELD(bodies, 'i', 0, EXP_SUM_BLOCK),
  SUM_FIELD(contacts_mean, 'd', 6, EXP_SUM_BLOCK),
  SUM_FIELD(contacts_mean_timed, 'd', 6, EXP_SUM_BLOCK | EXP_SUM_REQUIRED),
  SUM_FIELD(contacts_max, 'l', 0, EXP_SUM_BLOCK),
  SUM_FIELD(not_converged, 'l', 0, EXP_SUM_BLOCK),
  SUM_FIELD(energy_start, 'd', 17, EXP_SUM_BLOCK | EXP_SUM_REQUIRED),
  SUM_FIELD(energy_end, 'd', 17, EXP_SUM_BLOCK | EXP_SUM_REQUIRED),
  SUM_FIELD(kinetic_end, 'd', 17, EXP_SUM_BLOCK),
  SUM_FIELD(max_penetration_end, 'd', 17, EXP_SUM_BLOCK),
  SUM_FIELD(max_body_displacement, 'd', 17, EXP_SUM_BLOCK | EXP_SUM_REQUIRED),
  SUM_FIELD(max_settled_displacement, 'd', 17, EXP_SUM_BLOCK),
  { "joints", 0, 'j', 0, EXP_SUM_BLOCK }, /* the model's, not the summary's */
  SUM_FIELD(joint_error_max, 'd', 17, EXP_SUM_BLOCK),
  SUM_FIELD(time_step_median_s, 'd', 6, EXP_SUM_BLOCK | EXP_SUM_REQUIRED),
  SUM_FIELD(time_step_mean_s, 'd', 6, EXP_SUM_BLOCK | EXP_SUM_REQUIRED),
  SUM_FIELD(time_collide_mean_s, 'd', 6, EXP_SUM_BLOCK),
  SUM_FIELD(time_solve_mean_s, 'd', 6, EXP_SUM_BLOCK),
};
#undef SUM_FIELD

const exp_summary_field *exp_run_summary_fields(int *n) {
  *n = (int)(sizeof summary_fields / sizeof summary_fields[0]);
  return summary_fields;
}

void exp_run_summary_put(FILE *f, const dyn_run_summary *r, int joints) {
  int n;
  const exp_summary_field *t = exp_run_summary_fields(&n);
  for (int k = 0; k < n; k++) {
    if (!(t[k].flags & EXP_SUM_BLOCK)) continue;
    const char *at = (const char *)r + t[k].offset;
    fprintf(f, ",\"%s\":", t[k].name);
    if (t[k].type == 'd') {
      double v;
      memcpy(&v, at, sizeof v);
      exp_json_number(f, v, t[k].digits);
    } else if (t[k].type == 'l') {
      long v;
      memcpy(&v, at, sizeof v);
      fprintf(f, "%ld", v);
    } else {
      int v = joints;
      if (t[k].type == 'i') memcpy(&v, at, sizeof v);
      fprintf(f, "%d", v);
    }
  }
}

/* Field t of o from json, or its absence (NaN; -1 for counts; timed_steps
 * the last 80 % of the steps): 1 given, 0 not. */
static int summary_field_read(const char *json, const exp_summary_field *t, dyn_run_summary *o) {
  char *at = (char *)o + t->offset;
  double x = NAN;
  int given = top_number(json, t->name, &x);
  if (t->type == 'd') {
    memcpy(at, &x, sizeof x);
  } else if (t->type == 'l') {
    long v = given ? (long)x : strcmp(t->name, "timed_steps") == 0 ? o->steps - o->steps / 5 : -1;
    memcpy(at, &v, sizeof v);
  } else if (t->type == 'i') {
    int v = given ? (int)x : -1;
    memcpy(at, &v, sizeof v);
  }
  return given;
}

int exp_run_summary_parse(const char *text, dyn_run_summary *o, char *err, size_t len) {
  memset(o, 0, sizeof *o);
  const char *json = NULL;
  /* the last line that opens an object: a program may print other lines first */
  for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
    if (*l == '{') json = l;
  if (!json) {
    exp_fmt(err, len, "no summary line (a JSON object) on its standard output");
    return -1;
  }
  int n;
  const exp_summary_field *t = exp_run_summary_fields(&n);
  for (int k = 0; k < n; k++)
    if (t[k].type != 'j' && !summary_field_read(json, &t[k], o) &&
        (t[k].flags & EXP_SUM_REQUIRED)) {
      exp_fmt(err, len, "its summary line has no number \"%s\"", t[k].name);
      return -1;
    }
  double pen; /* the peers' name first */
  if (top_number(json, "max_penetration", &pen)) o->max_penetration_end = pen;
  o->energy_drift = NAN; /* the caller's, with the scene's scale */
  o->fallback_steps = -1;
  for (int i = 0; i < DYN_WORLD_STAGES; i++) o->time_stage_mean_s[i] = NAN;
  return 0;
}
