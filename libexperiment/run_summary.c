/* run_summary.c -- the summary of a scene run: what `lcplab simulate`
 * prints as its JSON and what a `scenes` section's row holds for lcplab's
 * own runs (exp.h, "run summaries"; experiments/README.md, "scenes"),
 * computed once here.  Its fields and rules are those of the scene peers
 * (experiments/README.md, "What each kind writes", scenes; experiments/
 * CAMPAIGNS.md, "Scene peers"), so that a peer's summary line and
 * lcplab's are the same measures: step
 * times over the last 80 % of the steps (median and mean), contacts per
 * step (mean over all steps and over the timed ones, maximum), the energy
 * at the start and the end, the deepest penetration after one extra
 * collision pass on the final state, and the largest displacement of a
 * body.
 *
 * exp_run_stats_init allocates the per-step arrays for K steps before the
 * run; exp_run_stats_add records one applied step (from an exp_run_steps
 * callback) without allocating; exp_run_stats_summary reads the final
 * world.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dyn_world.h"
#include "exp.h"

void exp_run_stats_free(exp_run_stats *s) {
  free(s->tstep);
  free(s->tcol);
  free(s->tsolve);
  free(s->tstage);
  free(s->contacts);
  free(s->r0);
  free(s->rrest);
  memset(s, 0, sizeof *s);
}

static int stats_alloc(exp_run_stats *s, long K, int nbod) {
  size_t k = (size_t)(K > 0 ? K : 1), b = 3 * (size_t)(nbod > 0 ? nbod : 1);
  s->tstep = calloc(k, sizeof *s->tstep);
  s->tcol = calloc(k, sizeof *s->tcol);
  s->tsolve = calloc(k, sizeof *s->tsolve);
  s->tstage = calloc(k * DYN_WORLD_STAGES, sizeof *s->tstage);
  s->contacts = calloc(k, sizeof *s->contacts);
  s->r0 = calloc(b, sizeof *s->r0);
  s->rrest = calloc(b, sizeof *s->rrest);
  return s->tstep && s->tcol && s->tsolve && s->tstage && s->contacts && s->r0 && s->rrest ? 0 : -1;
}

int exp_run_stats_init(exp_run_stats *s, dyn_world *w, const char *scene, long K, char *err,
                       size_t len) {
  memset(s, 0, sizeof *s);
  int nbod = dyn_world_body_count(w);
  s->K = K;
  s->nbod = nbod;
  if (K < 1 || stats_alloc(s, K, nbod) != 0) {
    exp_fmt(err, len, "out of memory for %ld steps", K);
    exp_run_stats_free(s);
    return -1;
  }
  /* the rest positions are the world's model's (the scene's start gaps closed) */
  if (dyn_model_rest_positions(dyn_world_model(w), s->rrest, nbod) != DYN_OK) {
    exp_fmt(err, len, "scene '%s': no rest positions for its %d bodies", scene ? scene : "?", nbod);
    exp_run_stats_free(s);
    return -1;
  }
  const dyn_body *b = dyn_world_bodies(w);
  for (int i = 0; i < nbod; i++) {
    s->r0[3 * i] = b[i].r.x;
    s->r0[3 * i + 1] = b[i].r.y;
    s->r0[3 * i + 2] = b[i].r.z;
  }
  s->E0 = dyn_world_energy(w, NULL, NULL);
  return 0;
}

void exp_run_stats_add(exp_run_stats *s, const dyn_world_metrics *m) {
  if (s->n >= s->K) return;
  long k = s->n++;
  s->tstep[k] = m->step_time_s;
  s->tcol[k] = m->collide_time_s;
  s->tsolve[k] = m->solve_time_s;
  memcpy(s->tstage + (size_t)DYN_WORLD_STAGES * (size_t)k, m->stage_time_s,
         sizeof(double) * DYN_WORLD_STAGES);
  s->contacts[k] = m->contacts;
  s->not_converged += m->status != SLV_CONVERGED;
  s->fallback_steps += m->applied == DYN_APPLIED_FALLBACK;
  if (!(m->joint_error <= s->joint_error_max) && !isnan(s->joint_error_max)) /* NaN sticks */
    s->joint_error_max = m->joint_error;
}

/* The largest |r_i - ref_i| over the bodies of w (only the dynamic ones if
 * dynamic_only).  A non-finite distance wins and stays: NaN is not <= m,
 * so it is taken, and once m is NaN no later d replaces it. */
static double max_distance(dyn_world *w, const double *ref, int nbod, int dynamic_only) {
  double m = 0.0;
  const dyn_body *b = dyn_world_bodies(w);
  for (int i = 0; i < nbod; i++) {
    if (dynamic_only && b[i].is_static) continue;
    double dx = b[i].r.x - ref[3 * i], dy = b[i].r.y - ref[3 * i + 1],
           dz = b[i].r.z - ref[3 * i + 2];
    double d = sqrt(dx * dx + dy * dy + dz * dz);
    if (!(d <= m) && !isnan(m)) m = d;
  }
  return m;
}

/* Contacts and times over the n recorded steps: the peers' rule, the last
 * 80 % timed (the first n / 5 steps left out).  Sorts s->tstep's timed part. */
static void step_figures(exp_run_stats *s, exp_run_summary *o) {
  long n = s->n, k0 = n / 5, nt = n - k0;
  double csum = 0.0, ct = 0.0;
  o->steps = n;
  o->timed_steps = nt;
  for (long k = 0; k < n; k++) {
    csum += s->contacts[k];
    if (s->contacts[k] > o->contacts_max) o->contacts_max = s->contacts[k];
  }
  for (long k = k0; k < n; k++) {
    ct += s->contacts[k];
    o->time_step_mean_s += s->tstep[k];
    o->time_collide_mean_s += s->tcol[k];
    o->time_solve_mean_s += s->tsolve[k];
    for (int i = 0; i < DYN_WORLD_STAGES; i++)
      o->time_stage_mean_s[i] += s->tstage[(size_t)DYN_WORLD_STAGES * (size_t)k + (size_t)i];
  }
  o->contacts_mean = csum / (double)n;
  o->contacts_mean_timed = ct / (double)nt;
  o->time_step_mean_s /= (double)nt;
  o->time_collide_mean_s /= (double)nt;
  o->time_solve_mean_s /= (double)nt;
  for (int i = 0; i < DYN_WORLD_STAGES; i++) o->time_stage_mean_s[i] /= (double)nt;
  qsort(s->tstep + k0, (size_t)nt, sizeof *s->tstep, exp_cmp_double);
  o->time_step_median_s = exp_quantile(s->tstep + k0, (int)nt, 0.5);
}

int exp_run_stats_summary(exp_run_stats *s, dyn_world *w, exp_run_summary *o) {
  memset(o, 0, sizeof *o);
  if (s->n < 1) return -1;
  step_figures(s, o);
  o->bodies = s->nbod;
  o->not_converged = s->not_converged;
  o->fallback_steps = s->fallback_steps;
  o->joint_error_max = s->joint_error_max;
  o->energy_start = s->E0;
  o->energy_end = dyn_world_energy(w, &o->kinetic_end, NULL);
  o->energy_drift = exp_energy_drift(o->energy_start, o->energy_end);
  if (dyn_world_penetration(w, &o->max_penetration_end, NULL) != DYN_OK)
    o->max_penetration_end = NAN;
  o->max_body_displacement = max_distance(w, s->r0, s->nbod, 0);
  o->max_settled_displacement = max_distance(w, s->rrest, s->nbod, 1);
  return 0;
}

double exp_energy_drift(double e_start, double e_end) {
  if (!(fabs(e_start) > 0) || !isfinite(e_start)) return NAN;
  return (e_end - e_start) / fabs(e_start);
}

double exp_time_per_contact(double step_s, double contacts) {
  return contacts > 0 && isfinite(step_s) ? step_s / contacts : NAN;
}

/* ---- a peer's summary line ------------------------------------------------------------- */

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

int exp_run_summary_parse(const char *text, exp_run_summary *o, char *err, size_t len) {
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
  o->energy_drift = exp_energy_drift(o->energy_start, o->energy_end);
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
  o->joint_error_max = NAN;
  for (int i = 0; i < DYN_WORLD_STAGES; i++) o->time_stage_mean_s[i] = NAN;
  return 0;
}
