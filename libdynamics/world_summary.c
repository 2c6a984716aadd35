/* world_summary.c -- the summary of a world's run and the energy drift
 * (dyn_run.h; docs/dynamics.md, "Runs" and "Energy drift"): what `lcplab
 * simulate` prints as its JSON and what a `scenes` section's row holds for
 * lcplab's own runs (experiments/README.md, "scenes"), computed once here.
 * Its fields and rules are those of the scene peers (experiments/
 * CAMPAIGNS.md, "Scene peers"), so that a peer's summary line and lcplab's
 * are the same measures: step times over the last 80 % of the steps
 * (median and mean), contacts per step (mean over all steps and over the
 * timed ones, maximum), the energy at the start and the end and its drift,
 * the deepest penetration after one extra collision pass on the final
 * state, and the largest displacement of a body.
 *
 * dyn_run_stats_init allocates the per-step arrays for K steps before the
 * run; dyn_run_stats_add records one applied step (from a dyn_world_run
 * callback) without allocating; dyn_run_stats_summary reads the final
 * world.
 *
 * The energy drift is (E - E0) / S with S = max(|E0|, M |g| D) fixed at
 * the start (dyn_run.h): the one definition, used by the drift rows, the
 * summaries and the peers' rows alike.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dyn_run.h"
#include "world_data.h"

/* ---- energy drift ---------------------------------------------------------------------- */

/* The extent of the dynamic bodies' centres: their total mass and the box
 * around them, body by body (drift_add), then S (drift_finish). */
typedef struct drift_box {
  double M, lo[3], hi[3];
} drift_box;

static drift_box drift_box_empty(void) {
  drift_box b = { 0, { INFINITY, INFINITY, INFINITY }, { -INFINITY, -INFINITY, -INFINITY } };
  return b;
}

static void drift_add(drift_box *b, double mass, dyn_v3 r) {
  double c[3] = { r.x, r.y, r.z };
  b->M += mass;
  for (int a = 0; a < 3; a++) {
    b->lo[a] = fmin(b->lo[a], c[a]);
    b->hi[a] = fmax(b->hi[a], c[a]);
  }
}

/* S = max(|E0|, M |g| D), D the box's diagonal; |E0| without mass. */
static double drift_finish(const drift_box *b, dyn_v3 g, double E0) {
  if (!(b->M > 0)) return fabs(E0);
  double d0 = b->hi[0] - b->lo[0], d1 = b->hi[1] - b->lo[1], d2 = b->hi[2] - b->lo[2];
  double D = sqrt(d0 * d0 + d1 * d1 + d2 * d2);
  return fmax(fabs(E0), b->M * sqrt(g.x * g.x + g.y * g.y + g.z * g.z) * D);
}

double dyn_world_drift_scale(const dyn_world *w, double E0) {
  const dyn_body_const *bc = w->bodies.c;
  const dyn_body_state *bd = w->bodies.s;
  drift_box b = drift_box_empty();
  for (int i = 0; i < w->nb; i++)
    if (!bc[i].is_static) drift_add(&b, bc[i].mass, bd[i].r);
  return drift_finish(&b, w->set.gravity, E0);
}

double dyn_model_drift_scale(const dyn_model *m, double E0) {
  const dyn_body_def *bd = dyn_model_bodies(m);
  drift_box b = drift_box_empty();
  for (int i = 0; i < dyn_model_body_count(m); i++)
    if (!bd[i].is_static) drift_add(&b, bd[i].mass, bd[i].r);
  return drift_finish(&b, dyn_model_get_options(m).gravity, E0);
}

double dyn_energy_drift(double E, double E0, double S) { return S > 0 ? (E - E0) / S : NAN; }

/* ---- the run's record ------------------------------------------------------------------ */

void dyn_run_stats_free(dyn_run_stats *s) {
  free(s->tstep);
  free(s->tcol);
  free(s->tsolve);
  free(s->tstage);
  free(s->contacts);
  free(s->r0);
  free(s->rrest);
  memset(s, 0, sizeof *s);
}

static int stats_alloc(dyn_run_stats *s, long K, int nbod) {
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

dyn_err dyn_run_stats_init(dyn_run_stats *s, dyn_world *w, long K, char *err, size_t len) {
  memset(s, 0, sizeof *s);
  int nbod = dyn_world_body_count(w);
  s->K = K;
  s->nbod = nbod;
  if (K < 1) {
    dyn_msgf(err, len, "a run of %ld steps: at least 1 is needed", K);
    return DYN_ERR_INPUT;
  }
  if (stats_alloc(s, K, nbod) != 0) {
    dyn_msgf(err, len, "out of memory for %ld steps", K);
    dyn_run_stats_free(s);
    return DYN_ERR_NOMEM;
  }
  /* the rest positions are the world's model's (the scene's start gaps closed) */
  if (dyn_model_rest_positions(dyn_world_model(w), s->rrest, nbod) != DYN_OK) {
    dyn_msgf(err, len, "no rest positions for the world's %d bodies", nbod);
    dyn_run_stats_free(s);
    return DYN_ERR_INPUT;
  }
  const dyn_body_state *b = dyn_world_body_states(w);
  for (int i = 0; i < nbod; i++) {
    s->r0[3 * i] = b[i].r.x;
    s->r0[3 * i + 1] = b[i].r.y;
    s->r0[3 * i + 2] = b[i].r.z;
  }
  s->E0 = dyn_world_energy(w, NULL, NULL);
  s->S = dyn_world_drift_scale(w, s->E0);
  return DYN_OK;
}

void dyn_run_stats_add(dyn_run_stats *s, const dyn_world_metrics *m) {
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
  const dyn_body_state *b = dyn_world_body_states(w);
  const dyn_body_const *bc = dyn_world_body_consts(w);
  for (int i = 0; i < nbod; i++) {
    if (dynamic_only && bc[i].is_static) continue;
    double dx = b[i].r.x - ref[3 * i], dy = b[i].r.y - ref[3 * i + 1],
           dz = b[i].r.z - ref[3 * i + 2];
    double d = sqrt(dx * dx + dy * dy + dz * dz);
    if (!(d <= m) && !isnan(m)) m = d;
  }
  return m;
}

static int cmp_double(const void *pa, const void *pb) {
  double x = *(const double *)pa, y = *(const double *)pb;
  return (x > y) - (x < y);
}

/* The median of x[0 .. k-1] (k >= 1), sorted here. */
static double median(double *x, long k) {
  qsort(x, (size_t)k, sizeof *x, cmp_double);
  return k % 2 ? x[k / 2] : x[k / 2 - 1] + 0.5 * (x[k / 2] - x[k / 2 - 1]);
}

/* Contacts and times over the n recorded steps: the peers' rule, the last
 * 80 % timed (the first n / 5 steps left out).  Sorts s->tstep's timed part. */
static void step_figures(dyn_run_stats *s, dyn_run_summary *o) {
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
  o->time_step_median_s = median(s->tstep + k0, nt);
}

int dyn_run_stats_summary(dyn_run_stats *s, dyn_world *w, dyn_run_summary *o) {
  memset(o, 0, sizeof *o);
  if (s->n < 1) return -1;
  step_figures(s, o);
  o->bodies = s->nbod;
  o->not_converged = s->not_converged;
  o->fallback_steps = s->fallback_steps;
  o->joint_error_max = s->joint_error_max;
  o->energy_start = s->E0;
  o->energy_end = dyn_world_energy(w, &o->kinetic_end, NULL);
  o->energy_drift = dyn_energy_drift(o->energy_end, o->energy_start, s->S);
  if (dyn_world_penetration(w, &o->max_penetration_end, NULL) != DYN_OK)
    o->max_penetration_end = NAN;
  o->max_body_displacement = max_distance(w, s->r0, s->nbod, 0);
  o->max_settled_displacement = max_distance(w, s->rrest, s->nbod, 1);
  return 0;
}
