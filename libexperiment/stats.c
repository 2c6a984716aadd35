/* stats.c -- the pure computations of the experiment engine:
 * Dolan-More performance profiles (with identical algorithms and ties),
 * quantiles of run times, the repetition rule, least-squares lines with a
 * confidence interval of the slope, the failure table's status columns,
 * LaTeX escaping and refusal keys.
 * No I/O, no allocation: tests/test_experiment_profile.c checks each
 * against hand-worked examples.
 *
 * Performance profile (Dolan and More 2002, "Benchmarking optimization
 * software with performance profiles", Math. Program. 91:201-213, eq. 1-2; as
 * used by Acary, Bremond and Huber 2018 for FCLIB):
 *
 *     r_ps = t_ps / min_s' t_ps'          (t_ps = +inf when s fails on p)
 *     rho_s(tau) = #{ p : r_ps <= tau } / n_p
 *
 * A problem that no solver solves keeps every r_ps = +inf and stays in the
 * denominator n_p, so rho_s(inf) is the share of problems s solves.
 * Identical algorithms: when a solver ran another solver's algorithm on p
 * (slv_result.method: pgs_wide on a dense problem is pgs's loop), its time
 * is that algorithm's time plus noise; it is left out of the minimum and of
 * the winners, and its ratio is the other solver's (one algorithm, one run).
 * Ties: at tau = 1, every solver within a factor 1 + tie of the fastest is
 * "fastest (tied)"; a sole fastest is a win.
 *
 * Least squares (scaling slopes): for log t = a + b log n,
 *     b = Sxy / Sxx,  a = ybar - b xbar,  r2 = 1 - SSres / SStot,
 * centred sums (no cancellation of the normal equations); the slope's 95 %
 * interval b +- t_{0.975, k-2} sqrt(SSres / (k - 2) / Sxx) (Student's t,
 * GSL's gsl_cdf_tdist_Pinv), the textbook interval for normal residuals.
 *
 * Quantiles: type 7 of Hyndman and Fan (1996), R's and numpy's default.
 */
#include "exp_internal.h"

#include <ctype.h>
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int solved(double t) { return isfinite(t) && t > 0.0; }

void exp_profile_ratios(int np, int ns, const double *t, double *r) {
  exp_profile_ratios_alias(np, ns, t, NULL, r);
}

void exp_profile_ratios_alias(int np, int ns, const double *t, const int *alias, double *r) {
  for (int p = 0; p < np; p++) {
    const double *tp = t + (size_t)p * ns;
    const int *ap = alias ? alias + (size_t)p * ns : NULL;
    double *rp = r + (size_t)p * ns;
    /* an alias counts as its own run only when the algorithm it ran failed
     * under its own name (or is not in the comparison) */
    double best = INFINITY;
    for (int s = 0; s < ns; s++) {
      int a = ap ? ap[s] : -1;
      int own = a < 0 || a >= ns || !solved(tp[a]);
      if (own && solved(tp[s]) && tp[s] < best) best = tp[s];
    }
    for (int s = 0; s < ns; s++)
      rp[s] = (solved(tp[s]) && isfinite(best)) ? tp[s] / best : INFINITY;
    for (int s = 0; s < ns; s++) {
      int a = ap ? ap[s] : -1;
      if (a >= 0 && a < ns && solved(tp[a]) && solved(tp[s])) rp[s] = rp[a];
    }
  }
}

double exp_profile_rho(int np, int ns, const double *r, int s, double tau) {
  if (np <= 0) return 0.0;
  int k = 0;
  for (int p = 0; p < np; p++)
    if (r[(size_t)p * ns + s] <= tau) k++;
  return (double)k / (double)np;
}

double exp_profile_rho_of(int np, int ns, const double *r, const unsigned char *refused, int s,
                          double tau) {
  int k = 0, acc = exp_profile_accepted(np, ns, refused, s);
  if (acc <= 0) return 0.0;
  for (int p = 0; p < np; p++)
    if ((!refused || !refused[(size_t)p * ns + s]) && r[(size_t)p * ns + s] <= tau) k++;
  return (double)k / (double)acc;
}

int exp_profile_accepted(int np, int ns, const unsigned char *refused, int s) {
  int k = 0;
  for (int p = 0; p < np; p++) k += !refused || !refused[(size_t)p * ns + s];
  return k;
}

void exp_profile_vbest(int np, int ns, const double *t, const unsigned char *refused, int s,
                       exp_vbest *out) {
  memset(out, 0, sizeof *out);
  for (int p = 0; p < np; p++) {
    const double *row = t + (size_t)p * ns;
    int other = 0, mine = solved(row[s]);
    for (int o = 0; o < ns && !other; o++) other = o != s && solved(row[o]);
    if (!other) {
      out->alone += mine;
      continue;
    }
    out->others++;
    out->accepted += !refused || !refused[(size_t)p * ns + s];
    out->solved += mine;
  }
}

void exp_profile_same(int np, int ns, const char *const *key, int *alias) {
  for (int p = 0; p < np; p++)
    for (int s = 0; s < ns; s++) {
      const char *ks = key[(size_t)p * ns + s];
      int *as = &alias[(size_t)p * ns + s];
      for (int o = 0; o < s && *as < 0 && ks && ks[0]; o++) {
        const char *ko = key[(size_t)p * ns + o];
        int rep = alias[(size_t)p * ns + o] >= 0 ? alias[(size_t)p * ns + o] : o;
        /* o ran s's algorithm (auto's res.method = s, listed first): s is the
         * algorithm itself, never an alias of itself */
        if (ko && strcmp(ko, ks) == 0 && rep != s) *as = rep;
      }
    }
}

int exp_profile_breaks(int np, int ns, const double *r, int s, double *taus) {
  int k = 0;
  for (int p = 0; p < np; p++) {
    double v = r[(size_t)p * ns + s];
    if (!isfinite(v)) continue;
    /* insertion into the sorted distinct list */
    int j = 0;
    while (j < k && taus[j] < v) j++;
    if (j < k && taus[j] == v) continue;
    for (int m = k; m > j; m--) taus[m] = taus[m - 1];
    taus[j] = v;
    k++;
  }
  return k;
}

void exp_profile_winners(int np, int ns, const double *r, const int *alias, double tie, int *wins,
                         int *ties) {
  for (int s = 0; s < ns; s++) wins[s] = ties[s] = 0;
  for (int p = 0; p < np; p++) {
    const double *rp = r + (size_t)p * ns;
    int nfast = 0, last = -1;
    for (int s = 0; s < ns; s++)
      if ((!alias || alias[(size_t)p * ns + s] < 0) && rp[s] <= 1.0 + tie) {
        nfast++;
        last = s;
      }
    if (nfast == 1) {
      wins[last]++;
    } else if (nfast > 1) {
      for (int s = 0; s < ns; s++)
        if ((!alias || alias[(size_t)p * ns + s] < 0) && rp[s] <= 1.0 + tie) ties[s]++;
    }
  }
}

void exp_profile_leaders(int ns, const int *wins, const int *ties, const int *solved,
                         const int *counted, const int *external, exp_leaders *out) {
  *out = (exp_leaders){ -1, 0, 0, -1, -1 };
  for (int s = 0; s < ns; s++) {
    if (solved[s] > out->most_solved) out->most_solved = solved[s];
    int *best = external[s] ? &out->best_external : &out->best_builtin;
    if (*best < 0 || solved[s] > solved[*best]) *best = s;
    if (!counted[s]) continue;
    out->ties += ties[s];
    int f = out->fastest;
    if (f < 0 || wins[s] > wins[f] || (wins[s] == wins[f] && solved[s] > solved[f]))
      out->fastest = s;
  }
}

double exp_quantile(const double *x, int k, double q) {
  if (k <= 0) return NAN;
  if (k == 1 || q <= 0.0) return x[0];
  if (q >= 1.0) return x[k - 1];
  double h = (k - 1) * q;
  int lo = (int)floor(h);
  if (lo >= k - 1) return x[k - 1];
  return x[lo] + (h - lo) * (x[lo + 1] - x[lo]);
}

void exp_time_summary(double *t, int k, exp_tsum *out) {
  out->total = 0.0;
  for (int i = 0; i < k; i++) out->total += t[i];
  qsort(t, (size_t)k, sizeof *t, exp_cmp_double);
  out->min = k > 0 ? t[0] : NAN;
  out->median = exp_quantile(t, k, 0.5);
  out->q1 = exp_quantile(t, k, 0.25);
  out->q3 = exp_quantile(t, k, 0.75);
  out->nsample = k < 0 ? 0 : k <= EXP_TSAMPLE ? k : EXP_TSAMPLE;
  for (int j = 0; j < out->nsample; j++)
    out->sample[j] = k <= EXP_TSAMPLE ? t[j] : exp_quantile(t, k, (j + 0.5) / EXP_TSAMPLE);
}

static int cmp_wpoint(const void *pa, const void *pb) {
  double a = ((const exp_wpoint *)pa)->v, b = ((const exp_wpoint *)pb)->v;
  return (a > b) - (a < b);
}

double exp_weighted_quantile(exp_wpoint *p, int n, double q) {
  if (n <= 0) return NAN;
  qsort(p, (size_t)n, sizeof *p, cmp_wpoint);
  double W = 0.0;
  for (int i = 0; i < n; i++) W += p[i].w;
  double want = q * W, cum = 0.0;
  for (int i = 0; i < n; i++) {
    cum += p[i].w;
    if (fabs(cum - want) <= 1e-12 * W && i + 1 < n) return 0.5 * (p[i].v + p[i + 1].v);
    if (cum >= want) return p[i].v;
  }
  return p[n - 1].v;
}

double exp_noise_median(double *rel, int k) {
  int m = 0;
  for (int i = 0; i < k; i++)
    if (isfinite(rel[i]) && rel[i] >= 0.0) rel[m++] = rel[i];
  if (m == 0) return NAN;
  qsort(rel, (size_t)m, sizeof *rel, exp_cmp_double);
  return exp_quantile(rel, m, 0.5);
}

double exp_rel_spread(double q1, double median, double q3, int runs) {
  if (runs < 2 || !(median > 0.0) || !isfinite(q1) || !isfinite(q3) || !isfinite(median))
    return NAN;
  return (q3 - q1) / median;
}

double exp_tie_of(double set, double noise, double fallback) {
  if (set >= 0.0) return set;
  return isfinite(noise) ? noise : fallback;
}

double exp_tie_of_logs(double *dl, int n, double q) {
  if (n <= 0) return NAN;
  for (int i = 0; i < n; i++) dl[i] = fabs(dl[i]);
  qsort(dl, (size_t)n, sizeof *dl, exp_cmp_double);
  return exp(exp_quantile(dl, n, q)) - 1.0;
}

/* splitmix64: the bootstrap's draws (a fixed seed, no global state). */
static unsigned long long next_draw(unsigned long long *st) {
  unsigned long long z = (*st += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* One resample of the problems and their times into w->tw, w->aw. */
static void boot_draw(int np, int ns, const double *t, const int *alias, const double *dl, int nd,
                      unsigned long long *st, exp_boot_work *w) {
  for (int q = 0; q < np; q++) {
    int p = (int)(next_draw(st) % (unsigned long long)np);
    for (int s = 0; s < ns; s++) {
      double v = t[(size_t)p * ns + s];
      if (nd > 0 && isfinite(v) && v > 0.0) {
        unsigned long long d = next_draw(st);
        double e = dl[(d >> 1) % (unsigned long long)nd] / sqrt(2.0);
        v *= exp((d & 1) ? e : -e);
      }
      w->tw[(size_t)q * ns + s] = v;
      w->aw[(size_t)q * ns + s] = alias ? alias[(size_t)p * ns + s] : -1;
    }
  }
}

void exp_profile_win_interval(int np, int ns, const double *t, const int *alias, double tie,
                              const double *dl, int nd, int B, unsigned long long seed,
                              exp_boot_work *w, int *lo, int *hi) {
  unsigned long long st = seed;
  for (int b = 0; b < B && np > 0; b++) {
    boot_draw(np, ns, t, alias, dl, nd, &st, w);
    exp_profile_ratios_alias(np, ns, w->tw, w->aw, w->rw);
    exp_profile_winners(np, ns, w->rw, w->aw, tie, w->tmp, w->tmp + ns);
    for (int s = 0; s < ns; s++) w->wins[(size_t)s * B + b] = w->tmp[s];
  }
  for (int s = 0; s < ns; s++) {
    if (np <= 0 || B <= 0) {
      lo[s] = hi[s] = 0;
      continue;
    }
    for (int b = 0; b < B; b++) w->q[b] = w->wins[(size_t)s * B + b];
    qsort(w->q, (size_t)B, sizeof *w->q, exp_cmp_double);
    lo[s] = (int)floor(exp_quantile(w->q, B, 0.025));
    hi[s] = (int)ceil(exp_quantile(w->q, B, 0.975));
  }
}

int exp_repeat_done(int runs, double total, int min_runs, double min_time, double max_time) {
  if (runs >= 1 && total >= max_time) return 1;
  return runs >= min_runs && total >= min_time;
}

double exp_median_precision(const double *t, int k, double *work) {
  if (k < 6) return NAN;
  memcpy(work, t, (size_t)k * sizeof *work);
  qsort(work, (size_t)k, sizeof *work, exp_cmp_double);
  double half = 1.96 * sqrt((double)k);
  int j = (int)floor(((double)k - half) / 2.0), l = (int)ceil(1.0 + ((double)k + half) / 2.0);
  if (j < 1) j = 1;
  if (l > k) l = k;
  double med = exp_quantile(work, k, 0.5);
  if (!(med > 0.0)) return NAN;
  return (work[l - 1] - work[j - 1]) / (2.0 * med);
}

long exp_repeat_count(double t1, int min_runs, double min_time, double max_time, long cap) {
  if (!(t1 > 0.0) || !isfinite(t1)) return min_runs > 1 ? (min_runs < cap ? min_runs : cap) : 1;
  double want = fmax((double)min_runs, ceil(min_time / t1));
  want = fmin(want, floor(max_time / t1));
  want = fmin(want, (double)cap);
  return want >= 1.0 ? (long)want : 1;
}

/* The centred sums of the fit; -1 when k < 2 or all x are equal. */
static int fit_sums(const double *x, const double *y, int k, double *a, double *b, double *r2,
                    double *ssres, double *sxx) {
  if (k < 2) return -1;
  double xbar = 0.0, ybar = 0.0;
  for (int i = 0; i < k; i++) {
    xbar += x[i];
    ybar += y[i];
  }
  xbar /= k;
  ybar /= k;
  double sxy = 0.0, syy = 0.0;
  *sxx = 0.0;
  for (int i = 0; i < k; i++) {
    double dx = x[i] - xbar, dy = y[i] - ybar;
    *sxx += dx * dx;
    sxy += dx * dy;
    syy += dy * dy;
  }
  if (!(*sxx > 0.0)) return -1;
  *b = sxy / *sxx;
  *a = ybar - *b * xbar;
  *ssres = 0.0;
  for (int i = 0; i < k; i++) {
    double e = y[i] - (*a + *b * x[i]);
    *ssres += e * e;
  }
  *r2 = syy > 0.0 ? 1.0 - *ssres / syy : 1.0;
  return 0;
}

int exp_fit_line(const double *x, const double *y, int k, double *a, double *b, double *r2) {
  double ssres, sxx;
  return fit_sums(x, y, k, a, b, r2, &ssres, &sxx);
}

int exp_fit_line_ci(const double *x, const double *y, int k, double *a, double *b, double *r2,
                    double *b_lo, double *b_hi) {
  double ssres, sxx;
  if (fit_sums(x, y, k, a, b, r2, &ssres, &sxx)) return -1;
  if (k < 3) {
    *b_lo = -INFINITY;
    *b_hi = INFINITY;
    return 0;
  }
  double se = sqrt(ssres / (k - 2) / sxx);
  double tq = gsl_cdf_tdist_Pinv(0.975, (double)(k - 2));
  *b_lo = *b - tq * se;
  *b_hi = *b + tq * se;
  return 0;
}

static const char *const status_cols[EXP_NSTATUS] = {
  "converged",      "max_iter",   "stagnated",   "ray_termination",
  "singular_pivot", "breakdown",  "no_solution", "not_finite",
  "refused",        "time_limit", "interrupted", "unconverged",
  "failed",         "error",      "crashed",     "other"
};

const char *exp_status_name(int col) {
  return (col >= 0 && col < EXP_NSTATUS) ? status_cols[col] : "other";
}

int exp_status_column(const char *status) {
  for (int k = 0; k < EXP_NSTATUS - 1; k++)
    if (strcmp(status, status_cols[k]) == 0) return k;
  return EXP_NSTATUS - 1;
}

int exp_tex_escape(const char *s, char *out, size_t len) {
  size_t o = 0;
  if (len == 0) return -1;
  for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
    const char *rep = NULL;
    char one[2] = { (char)*c, '\0' };
    switch (*c) {
    case '\\': rep = "\\textbackslash{}"; break;
    case '_': rep = "\\_"; break;
    case '%': rep = "\\%"; break;
    case '&': rep = "\\&"; break;
    case '#': rep = "\\#"; break;
    case '$': rep = "\\$"; break;
    case '{': rep = "\\{"; break;
    case '}': rep = "\\}"; break;
    case '~': rep = "\\textasciitilde{}"; break;
    case '^': rep = "\\textasciicircum{}"; break;
    case '<': rep = "\\textless{}"; break;
    case '>': rep = "\\textgreater{}"; break;
    case '|': rep = "\\textbar{}"; break;
    default:
      if (*c < 0x20 || *c == 0x7f) continue;
      rep = one;
    }
    size_t rl = strlen(rep);
    if (o + rl >= len) {
      out[o] = '\0';
      return -1;
    }
    memcpy(out + o, rep, rl);
    o += rl;
  }
  out[o] = '\0';
  return 0;
}

void exp_reason_key(const char *solver, const char *msg, char *out, size_t len) {
  if (len == 0) return;
  size_t sl = solver ? strlen(solver) : 0;
  if (sl && strncmp(msg, solver, sl) == 0 && msg[sl] == ' ')
    msg += sl + 1;
  else if (sl && strncmp(msg, solver, sl) == 0 && msg[sl] == ':')
    msg += sl + 1 + (msg[sl + 1] == ' ');
  size_t o = 0;
  int depth = 0;
  for (const char *c = msg; *c && o + 1 < len; c++) {
    if (depth == 0 && (*c == ';' || *c == ':')) break;
    if (*c == '(' && depth == 0) {
      /* a parenthesised group with a digit in it is this problem's detail */
      const char *e = strchr(c, ')');
      const char *d = strpbrk(c, "0123456789");
      if (e && d && d < e) {
        c = e;
        continue;
      }
    }
    depth += (*c == '(') - (*c == ')' && depth > 0);
    out[o++] = *c;
  }
  while (o > 0 && out[o - 1] == ' ') o--;
  out[o] = '\0';
}
