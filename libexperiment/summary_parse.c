/* summary_parse.c -- a scene peer's summary line, read into the run
 * summary lcplab's own runs make (dyn_run_summary, libdynamics' dyn_run.h),
 * so that a peer's row of a `scenes` section and lcplab's are the same
 * measures (experiments/README.md, "scenes"; experiments/CAMPAIGNS.md,
 * "Scene peers"); and the time per contact of a scenes row.  The energy
 * drift of a peer's row is computed by the caller with the scene's drift
 * scale (dyn_model_drift_scale: scene_peer.c), as for lcplab's runs.
 */
#include <math.h>
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

int exp_run_summary_parse(const char *text, dyn_run_summary *o, char *err, size_t len) {
  static const char *const need[] = {
    "steps",        "contacts_mean_timed", "time_step_median_s",   "time_step_mean_s",
    "energy_start", "energy_end",          "max_body_displacement"
  };
  memset(o, 0, sizeof *o);
  const char *json = NULL;
  /* the last line that opens an object: a program may print other lines first */
  for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
    if (*l == '{') json = l;
  if (!json) {
    exp_fmt(err, len, "no summary line (a JSON object) on its standard output");
    return -1;
  }
  double v[7];
  for (int k = 0; k < 7; k++)
    if (!top_number(json, need[k], &v[k])) {
      exp_fmt(err, len, "its summary line has no number \"%s\"", need[k]);
      return -1;
    }
  double pen = NAN, x;
  if (!top_number(json, "max_penetration", &pen)) top_number(json, "max_penetration_end", &pen);
  o->steps = (long)v[0];
  o->contacts_mean_timed = v[1];
  o->time_step_median_s = v[2];
  o->time_step_mean_s = v[3];
  o->energy_start = v[4];
  o->energy_end = v[5];
  o->max_body_displacement = v[6];
  o->max_penetration_end = pen;
  o->energy_drift = NAN; /* the caller's, with the scene's scale */
  o->timed_steps = top_number(json, "timed_steps", &x) ? (long)x : o->steps - o->steps / 5;
  o->contacts_mean = top_number(json, "contacts_mean", &x) ? x : NAN;
  o->contacts_max = top_number(json, "contacts_max", &x) ? (long)x : -1;
  o->kinetic_end = top_number(json, "kinetic_end", &x) ? x : NAN;
  o->max_settled_displacement = top_number(json, "max_settled_displacement", &x) ? x : NAN;
  o->not_converged = top_number(json, "not_converged", &x) ? (long)x : -1;
  o->fallback_steps = -1;
  o->time_collide_mean_s = top_number(json, "time_collide_mean_s", &x) ? x : NAN;
  o->time_solve_mean_s = top_number(json, "time_solve_mean_s", &x) ? x : NAN;
  o->bodies = top_number(json, "bodies", &x) ? (int)x : -1;
  o->joint_error_max = top_number(json, "joint_error_max", &x) ? x : NAN;
  for (int i = 0; i < DYN_WORLD_STAGES; i++) o->time_stage_mean_s[i] = NAN;
  return 0;
}
