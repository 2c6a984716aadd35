/* fidelity_judge.c -- the fidelity benchmark's judges (exp_fidelity.h):
 * each holds a run's record against its scene's analytic answer, with a
 * tolerance of its own (experiments/README.md, "fidelity").  Times are
 * t_k = (k + 1) dt after step k; body 0 is the scene's first dynamic body.
 */
#include "exp_fidelity.h"

#include <math.h>
#include <stdlib.h>

const exp_fid_judge_def exp_fid_judges[EXP_FID_NJUDGES] = {
  { "creep", 1e-5, "m/s", 0,
    "a held body's speed along the free direction (the slope of its position over the second "
    "half of the run): 0" },
  { "accel", 0.02, "m/s^2", 1,
    "a sliding body's acceleration along the motion (the slope of its velocity over t in "
    "[T/4, T]): the analytic one, relative error" },
  { "stand", 1e-3, "m", 0,
    "the largest displacement of a body from its position at t = 0.25 s, over the rest of the "
    "run: 0" },
  { "settle", 1e-3, "m", 0,
    "the largest displacement of a body from the start to the end, beyond the start gaps' "
    "closing (the allowance)" },
  { "joint", 1e-3, "m", 0, "the largest joint error over the run: 0" },
  { "bounce", 1e-3, "m", 0,
    "the rise of the dropped body above its final height after its first contact: 0" },
  { "penetration", 1e-3, "m", 0, "the largest penetration over the second half of the run: 0" },
};

double exp_fid_slope(const double *t, const double *y, int n) {
  if (n < 2) return NAN;
  double tm = 0, ym = 0, num = 0, den = 0;
  for (int k = 0; k < n; k++) tm += t[k], ym += y[k];
  tm /= n, ym /= n;
  for (int k = 0; k < n; k++) {
    num += (t[k] - tm) * (y[k] - ym);
    den += (t[k] - tm) * (t[k] - tm);
  }
  return den > 0 ? num / den : NAN;
}

static double dot3(const double *a, dyn_v3 b) { return a[0] * b.x + a[1] * b.y + a[2] * b.z; }

/* The slope along `along` of body 0's positions (vel 0) or velocities
 * (vel 1) from step first on; NaN when fewer than two steps. */
static double slope_along(const exp_fid_trace *tr, int vel, dyn_v3 along, int first) {
  int n = tr->nsteps - first;
  double *t = malloc((size_t)(n > 0 ? n : 1) * sizeof *t);
  double *y = malloc((size_t)(n > 0 ? n : 1) * sizeof *y);
  double s = NAN;
  if (t && y && n >= 2) {
    const double *src = vel ? tr->v : tr->p;
    for (int k = 0; k < n; k++) {
      t[k] = (first + k + 1) * tr->dt;
      y[k] = dot3(src + (size_t)(first + k) * tr->nbodies * 3, along);
    }
    s = exp_fid_slope(t, y, n);
  }
  free(t);
  free(y);
  return s;
}

static double dist3(const double *a, const double *b) {
  return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
              (a[2] - b[2]) * (a[2] - b[2]));
}

/* The largest distance of any body, over steps first.., from its position
 * at step first. */
static double stand_measure(const exp_fid_trace *tr, int first) {
  if (first >= tr->nsteps) return NAN;
  const double *ref = tr->p + (size_t)first * tr->nbodies * 3;
  double d = 0;
  for (int k = first; k < tr->nsteps; k++)
    for (int b = 0; b < tr->nbodies; b++)
      d = fmax(d, dist3(tr->p + ((size_t)k * tr->nbodies + b) * 3, ref + (size_t)b * 3));
  return d;
}

/* The largest distance of any body from its start at the last step. */
static double settle_measure(const exp_fid_trace *tr) {
  if (tr->nsteps < 1) return NAN;
  const double *end = tr->p + (size_t)(tr->nsteps - 1) * tr->nbodies * 3;
  double d = 0;
  for (int b = 0; b < tr->nbodies; b++) d = fmax(d, dist3(end + b * 3, tr->p0 + b * 3));
  return d;
}

static double max_from(const double *x, int first, int n) {
  double m = first < n ? 0 : NAN;
  for (int k = first; k < n; k++) m = fmax(m, x[k]);
  return m;
}

/* Body 0's rise above its final height after the first step with a
 * contact; NaN when it never touched. */
static double bounce_measure(const exp_fid_trace *tr) {
  int hit = 0;
  while (hit < tr->nsteps && tr->contacts[hit] <= 0) hit++;
  if (hit >= tr->nsteps) return NAN;
  double zend = tr->p[(size_t)(tr->nsteps - 1) * tr->nbodies * 3 + 2], top = zend;
  for (int k = hit; k < tr->nsteps; k++) top = fmax(top, tr->p[(size_t)k * tr->nbodies * 3 + 2]);
  return top - zend;
}

/* measured against analytic by judge's rule into out. */
static void verdict(int judge, double measured, double analytic, exp_fid_verdict *out) {
  const exp_fid_judge_def *d = &exp_fid_judges[judge];
  out->measured = measured;
  out->analytic = analytic;
  out->tol = d->tol;
  out->error = d->relative ? fabs(measured - analytic) / fabs(analytic) : fabs(measured - analytic);
  out->pass = isfinite(out->error) && out->error <= d->tol;
}

void exp_fid_judge_settle(double displacement, double allowance, exp_fid_verdict *out) {
  verdict(EXP_FID_SETTLE, displacement, allowance, out);
  /* closing the start gaps is allowed: only the displacement beyond them is an error */
  out->error = fmax(0.0, displacement - allowance);
  out->pass = isfinite(displacement) && out->error <= out->tol;
}

void exp_fid_judge(int judge, const exp_fid_trace *tr, dyn_v3 along, double analytic,
                   double allowance, exp_fid_verdict *out) {
  int n = tr->nsteps;
  switch (judge) {
  case EXP_FID_CREEP: verdict(judge, fabs(slope_along(tr, 0, along, n / 2)), 0.0, out); break;
  case EXP_FID_ACCEL: verdict(judge, slope_along(tr, 1, along, n / 4), analytic, out); break;
  case EXP_FID_STAND:
    verdict(judge, stand_measure(tr, (int)lround(0.25 / tr->dt)), 0.0, out);
    break;
  case EXP_FID_SETTLE: exp_fid_judge_settle(settle_measure(tr), allowance, out); break;
  case EXP_FID_JOINT: verdict(judge, max_from(tr->joint, 0, n), 0.0, out); break;
  case EXP_FID_BOUNCE: verdict(judge, bounce_measure(tr), 0.0, out); break;
  default: verdict(EXP_FID_PENETRATION, max_from(tr->pen, n / 2, n), 0.0, out); break;
  }
}

int exp_fid_trace_alloc(exp_fid_trace *tr, int steps, int nbodies, double dt) {
  size_t s = (size_t)(steps > 0 ? steps : 1), b = (size_t)(nbodies > 0 ? nbodies : 1);
  tr->nsteps = 0;
  tr->nbodies = nbodies;
  tr->cap = steps;
  tr->dt = dt;
  tr->p = malloc(s * b * 3 * sizeof *tr->p);
  tr->v = malloc(s * b * 3 * sizeof *tr->v);
  tr->p0 = malloc(b * 3 * sizeof *tr->p0);
  tr->pen = malloc(s * sizeof *tr->pen);
  tr->joint = malloc(s * sizeof *tr->joint);
  tr->contacts = malloc(s * sizeof *tr->contacts);
  if (tr->p && tr->v && tr->p0 && tr->pen && tr->joint && tr->contacts) return 0;
  exp_fid_trace_free(tr);
  return -1;
}

void exp_fid_trace_free(exp_fid_trace *tr) {
  free(tr->p);
  free(tr->v);
  free(tr->p0);
  free(tr->pen);
  free(tr->joint);
  free(tr->contacts);
  tr->p = tr->v = tr->p0 = tr->pen = tr->joint = NULL;
  tr->contacts = NULL;
  tr->nsteps = tr->cap = 0;
}
