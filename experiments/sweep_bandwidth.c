/* sweep_bandwidth.c -- benchmark (not a test): pgs_wide's sweep against the
 * machine's stream bandwidth, in one process (`make bench-sweep` runs it
 * through experiments/bench_sweep.sh; issue 66, item 2;
 * experiments/BENCHMARKS.md, "Benchmark: make bench-sweep").
 *
 *   sweep_bandwidth [--scene NAME] [--param KEY=VALUE]... [--set KEY=VALUE]...
 *                   [--steps K] [--sweeps N] [--rounds R]
 *
 * Runs the scene (default pile, n=3000) K steps (default 240) with the
 * world's defaults, solver pgs_wide and the settings --set gives (names as
 * `lcplab simulate`'s, dyn_world_settings_set; default contact_order=top-down, as
 * `make bench-scenes`), then takes that step's problem (factored, as the
 * world hands it to the solver) and the start the world gave the solver, and
 * times, interleaved over R rounds (default 9) so that the machine's load
 * falls on every figure alike:
 *   sweeps   slv_solve with pgs_wide from the start, N sweeps (default 50)
 *            and 2N sweeps, no check inside (tol 1e-300, check_every past
 *            2N): the difference over N is the time of one sweep, the plan,
 *            the start measure and the final measures cancelling out; in
 *            the lanes the CPU has (opt.simd auto: eight wide with
 *            AVX-512), and again in the AVX2 lanes (opt.simd avx2: the same
 *            where the CPU has no AVX-512; left out, null in the JSON, by a
 *            library without that option);
 *   solve    the world's solve: the same problem, start and options (its
 *            tol and check_every), max_iter N: N sweeps, the plan and the
 *            measures (the N-sweep run above less N sweeps) and the checks
 *            (this less that run);
 *   triad    a[i] = b[i] + s c[i] (STREAM's triad, 24 bytes an element)
 *            over three arrays that together hold one sweep's bytes (below),
 *            N passes: the bandwidth of the memory level where the sweep's
 *            data lives (the sweep's rows are in the caches when it starts
 *            again);
 *   dram     the same triad, one pass over three arrays of 4x the last
 *            cache level each (STREAM's rule), at least 64 MB: main memory.
 * Each figure is timed by the wall clock (CLOCK_MONOTONIC); of the rounds
 * the least is kept (STREAM's rule: the other loads of a shared machine
 * only ever slow a run down) and the median is printed beside it.
 *
 * The bytes a sweep must move (the count: what it must read and
 * write once, not what a layout streams), per row i with s_i of its two
 * slots on a body:
 *   8 (3 + 6 s_i)   A's blocks: J_i's linear columns once (a rigid pair's
 *                   are equal and opposite) and, per body, J_i's and
 *                   M^-1 J_i^T's angular columns (M^-1's linear part is one
 *                   scalar a body, 8 bytes a body once); when the plan is
 *                   the isotropic rigid-body one, 8 (3 + 3 s_i): J_i's
 *                   angular columns alone (M^-1's angular part is one
 *                   scalar a body too, 16 bytes a body once for both);
 *                   when it is neither, 8 (12 s_i): the full J_i and
 *                   M^-1 J_i^T blocks;
 *   + 8 + 8 + 8     b_i read, x_i read, x_i written.
 * The bodies' t = M^-1 J^T x (48 bytes a body) are not counted: they stay
 * in the first caches.  Bandwidth = bytes / time of a sweep; the fraction
 * is that over the triad's; the goal is 0.5, the limit 1 (a sweep cannot
 * move its bytes faster than the triad moves the same bytes).
 *
 * Prints one JSON object on stdout.  Exit: 0 measured, 1 the scene or a
 * solve could not run, 2 usage.  An experiment never asserts. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dyn_world.h"
#include "slv.h"

enum { ROUNDS_DEFAULT = 9, ROUNDS_MAX = 1000, SWEEPS_DEFAULT = 50, STEPS_DEFAULT = 240 };
enum { MAX_ARGS = 32 };
enum { F_SWEEP_N, F_SWEEP_2N, F_AVX2_N, F_AVX2_2N, F_SOLVE, F_TRIAD, F_DRAM, NFIG };
static const char *const fig_name[NFIG] = { "sweeps_n", "sweeps_2n", "avx2_n", "avx2_2n",
                                            "solve",    "triad",     "dram" };

/* Both clocks: the wall clock and the thread's CPU time (which the other
 * loads of a shared machine touch less: a time slice given away is not
 * counted, the caches it left cold are). */
typedef struct {
  double wall, cpu;
} stamp;

static stamp now(void) {
  struct timespec w, c;
  clock_gettime(CLOCK_MONOTONIC, &w);
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c);
  stamp s = { (double)w.tv_sec + 1e-9 * (double)w.tv_nsec,
              (double)c.tv_sec + 1e-9 * (double)c.tv_nsec };
  return s;
}

static stamp since(stamp a) {
  stamp b = now();
  return (stamp){ b.wall - a.wall, b.cpu - a.cpu };
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The least and the median of t[0..r) (sorted in place). */
static void least_median(double *t, int r, double *least, double *med) {
  qsort(t, (size_t)r, sizeof *t, cmp_double);
  *least = t[0];
  *med = r % 2 ? t[r / 2] : 0.5 * (t[r / 2 - 1] + t[r / 2]);
}

/* The command line. */
typedef struct {
  const char *scene;
  const char *params[MAX_ARGS];
  int nparams;
  const char *sets[MAX_ARGS]; /* "key=value" */
  int nsets;
  int steps, sweeps, rounds;
} args;

static int usage(void) {
  fprintf(stderr, "usage: sweep_bandwidth [--scene NAME] [--param KEY=VALUE]... "
                  "[--set KEY=VALUE]... [--steps K] [--sweeps N] [--rounds R]\n");
  return 2;
}

static int parse_int(const char *v, int lo, int hi, int *out) {
  char *end;
  long n = strtol(v, &end, 10);
  if (*v == '\0' || *end != '\0' || n < lo || n > hi) return 0;
  *out = (int)n;
  return 1;
}

static int parse_args(int argc, char **argv, args *a) {
  *a = (args){
    .scene = "pile", .steps = STEPS_DEFAULT, .sweeps = SWEEPS_DEFAULT, .rounds = ROUNDS_DEFAULT
  };
  int own_params = 0, own_sets = 0;
  for (int i = 1; i < argc; i++) {
    const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!v) return 0;
    i++;
    if (!strcmp(k, "--scene"))
      a->scene = v;
    else if (!strcmp(k, "--param") && a->nparams < MAX_ARGS)
      a->params[a->nparams++] = v, own_params = 1;
    else if (!strcmp(k, "--set") && a->nsets < MAX_ARGS && strchr(v, '='))
      a->sets[a->nsets++] = v, own_sets = 1;
    else if (!strcmp(k, "--steps")) {
      if (!parse_int(v, 1, 1000000, &a->steps)) return 0;
    } else if (!strcmp(k, "--sweeps")) {
      if (!parse_int(v, 1, 100000, &a->sweeps)) return 0;
    } else if (!strcmp(k, "--rounds")) {
      if (!parse_int(v, 1, ROUNDS_MAX, &a->rounds)) return 0;
    } else
      return 0;
  }
  if (!own_params && !strcmp(a->scene, "pile")) a->params[a->nparams++] = "n=3000";
  if (!own_sets) a->sets[a->nsets++] = "contact_order=top-down";
  return 1;
}

/* The world after the run; NULL (and a message) if it could not run. */
static dyn_world *run_scene(const args *a) {
  dyn_world_settings set = dyn_world_settings_default();
  char err[256];
  snprintf(set.solver, sizeof set.solver, "%s", "pgs_wide");
  for (int i = 0; i < a->nsets; i++) {
    char key[64];
    const char *eq = strchr(a->sets[i], '=');
    snprintf(key, sizeof key, "%.*s", (int)(eq - a->sets[i]), a->sets[i]);
    int r = dyn_world_settings_set(&set, key, eq + 1, err, sizeof err);
    if (r != 1) {
      if (r == 0) snprintf(err, sizeof err, "no such setting");
      fprintf(stderr, "sweep_bandwidth: --set %s: %s\n", a->sets[i], err);
      return NULL;
    }
  }
  dyn_world *w = NULL;
  if (dyn_scene_new(a->scene, a->params, a->nparams, &set, &w, err, sizeof err) != DYN_OK) {
    fprintf(stderr, "sweep_bandwidth: scene %s: %s\n", a->scene, err);
    return NULL;
  }
  for (int k = 0; k < a->steps; k++) {
    dyn_world_metrics m;
    if (dyn_world_step(w, &m) != DYN_OK) {
      fprintf(stderr, "sweep_bandwidth: step %d: %s\n", k + 1, dyn_world_message(w));
      dyn_world_free(w);
      return NULL;
    }
  }
  return w;
}

/* What the plan's log line says: its layout (compact: either rigid-body
 * one; isotropic: the isotropic one) and its lanes' fill. */
typedef struct {
  int compact, isotropic, busy, slots;
  char line[512];
} plan_info;

static void on_log(void *ctx, const char *line) {
  plan_info *pi = ctx;
  const char *at = strstr(line, " lane slots busy");
  if (!at || strncmp(line, "pgs_wide:", 9)) return;
  snprintf(pi->line, sizeof pi->line, "%s", line);
  pi->isotropic = strstr(line, "isotropic rigid-body rows") != NULL;
  pi->compact = pi->isotropic || strstr(line, "compact rigid-body rows") != NULL;
  const char *p = strstr(line, "batches, ");
  if (p) sscanf(p, "batches, %d of %d", &pi->busy, &pi->slots);
}

/* The bytes one sweep must move (the header's count). */
static double sweep_bytes(const slv_problem *p, const plan_info *pi) {
  double bytes = pi->isotropic ? 16.0 * p->nblk : pi->compact ? 8.0 * p->nblk : 0.0;
  for (int i = 0; i < p->n; i++) {
    int s = (p->fblk[2 * i] >= 0) + (p->fblk[2 * i + 1] >= 0);
    bytes += (pi->isotropic ? 8.0 * (3 + 3 * s)
              : pi->compact ? 8.0 * (3 + 6 * s)
                            : 8.0 * 12 * s) +
             24.0;
  }
  return bytes;
}

/* passes triads over a, b, c of m doubles; the time. */
static stamp triad(double *a, const double *b, const double *c, size_t m, int passes) {
  const double s = 3.0;
  stamp t0 = now();
  for (int k = 0; k < passes; k++) {
    for (size_t i = 0; i < m; i++) a[i] = b[i] + s * c[i];
    __asm__ __volatile__("" : : "r"(a) : "memory"); /* each pass is stored */
  }
  return since(t0);
}

typedef struct {
  double *a, *b, *c;
  size_t m;
} arrays;

static int arrays_new(arrays *v, size_t m) {
  size_t bytes = ((m * sizeof(double) + 63) / 64) * 64;
  v->m = m;
  v->a = aligned_alloc(64, bytes);
  v->b = aligned_alloc(64, bytes);
  v->c = aligned_alloc(64, bytes);
  if (!v->a || !v->b || !v->c) return 0;
  for (size_t i = 0; i < m; i++) v->a[i] = 0.0, v->b[i] = 1.0, v->c[i] = 2.0;
  return 1;
}

static void arrays_free(arrays *v) {
  free(v->a);
  free(v->b);
  free(v->c);
}

/* One timed solve of pgs_wide from x0. */
static stamp timed_solve(slv_workspace *ws, const slv_problem *p, const slv_options *opt,
                         const double *x0, double *x, slv_result *res) {
  memcpy(x, x0, (size_t)p->n * sizeof *x);
  stamp t0 = now();
  slv_solve(ws, p, opt, x, NULL, res);
  return since(t0);
}

static size_t dram_doubles(void) {
  long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
  size_t bytes = 4 * (size_t)(l3 > 0 ? l3 : 32L << 20);
  if (bytes < ((size_t)64 << 20)) bytes = (size_t)64 << 20;
  return bytes / sizeof(double);
}

/* The figures of one clock: each one's least and median over the rounds. */
typedef struct {
  double least[NFIG], median[NFIG];
} figures;

/* The derived figures of one clock, as JSON fields with suffix sfx. */
static void print_clock(const char *sfx, const figures *F, int N, double bytes, int avx2) {
  double t_avx2 = (F->least[F_AVX2_2N] - F->least[F_AVX2_N]) / N;
  double t_sweep = (F->least[F_SWEEP_2N] - F->least[F_SWEEP_N]) / N;
  double t_sweep_med = (F->median[F_SWEEP_2N] - F->median[F_SWEEP_N]) / N;
  double bw = bytes / t_sweep, bw_med = bytes / t_sweep_med;
  double triad_bw = bytes * N / F->least[F_TRIAD], triad_med = bytes * N / F->median[F_TRIAD];
  double dram_bw = 24.0 * (double)dram_doubles() / F->least[F_DRAM];
  for (int f = 0; f < NFIG; f++)
    printf(",\"t_%s%s\":%.6g,\"t_%s%s_median\":%.6g", fig_name[f], sfx, F->least[f], fig_name[f],
           sfx, F->median[f]);
  printf(",\"t_sweep%s\":%.6g,\"t_sweep%s_median\":%.6g,\"sweep_gbs%s\":%.4g,"
         "\"sweep_gbs%s_median\":%.4g,\"triad_gbs%s\":%.4g,\"triad_gbs%s_median\":%.4g,"
         "\"dram_gbs%s\":%.4g,\"fraction%s\":%.4g,\"fraction%s_median\":%.4g,"
         "\"fraction_dram%s\":%.4g,\"sweeps_share%s\":%.4g,\"t_plan_measures%s\":%.6g,"
         "\"t_checks%s\":%.6g",
         sfx, t_sweep, sfx, t_sweep_med, sfx, 1e-9 * bw, sfx, 1e-9 * bw_med, sfx, 1e-9 * triad_bw,
         sfx, 1e-9 * triad_med, sfx, 1e-9 * dram_bw, sfx, bw / triad_bw, sfx, bw_med / triad_med,
         sfx, bw / dram_bw, sfx, N * t_sweep / F->least[F_SOLVE], sfx,
         F->least[F_SWEEP_N] - N * t_sweep, sfx, F->least[F_SOLVE] - F->least[F_SWEEP_N]);
  if (avx2)
    printf(",\"t_sweep_avx2%s\":%.6g,\"fraction_avx2%s\":%.4g", sfx, t_avx2, sfx,
           bytes / t_avx2 / triad_bw);
  else
    printf(",\"t_sweep_avx2%s\":null,\"fraction_avx2%s\":null", sfx, sfx);
}

static void print_json(const args *a, const slv_problem *p, const plan_info *pi, double bytes,
                       const figures F[2], const slv_result *res, int avx2) {
  printf("{\"scene\":\"%s\"", a->scene);
  for (int i = 0; i < a->nparams; i++) printf(",\"param%d\":\"%s\"", i, a->params[i]);
  for (int i = 0; i < a->nsets; i++) printf(",\"set%d\":\"%s\"", i, a->sets[i]);
  printf(",\"step\":%d,\"rows\":%d,\"bodies\":%d,\"compact\":%d,\"isotropic\":%d,"
         "\"lane_slots\":%d,\"lane_slots_busy\":%d,\"sweeps\":%d,\"rounds\":%d,"
         "\"bytes_per_sweep\":%.0f",
         a->steps, p->n, p->nblk, pi->compact, pi->isotropic, pi->slots, pi->busy, a->sweeps,
         a->rounds, bytes);
  print_clock("", &F[0], a->sweeps, bytes, avx2);
  print_clock("_cpu", &F[1], a->sweeps, bytes, avx2);
  printf(",\"plan\":\"%s\"", pi->line);
  printf(",\"solve_status\":\"%s\",\"solve_iterations\":%d}\n", slv_status_str(res->status),
         res->iterations);
}

int main(int argc, char **argv) {
  args a;
  if (!parse_args(argc, argv, &a)) return usage();
  dyn_world *w = run_scene(&a);
  if (!w) return 1;
  dyn_world_solve last;
  if (!dyn_world_last_solve(w, &last)) last.prob.n = 0;
  slv_problem p = last.prob;
  const double *xw = last.x_start;
  if (p.n == 0 || p.storage != SLV_FACTORED) {
    fprintf(stderr, "sweep_bandwidth: step %d's problem is not factored (%d rows)\n", a.steps, p.n);
    dyn_world_free(w);
    return 1;
  }
  const int N = a.sweeps, R = a.rounds;
  slv_options quiet = slv_options_default(); /* the sweeps alone: no check inside */
  quiet.tol = 1e-300;
  quiet.check_every = 2 * N + 1;
  quiet.warm_start = 1;
  quiet.omega = dyn_world_get_settings(w)->opt.omega;
  slv_options world = last.opt; /* the world's solve, as it ran */
  world.max_iter = N;
  plan_info pi = { 0 };
  slv_options logged = quiet;
  logged.max_iter = 1;
  logged.log_fn = on_log;
  logged.log_ctx = &pi;
  const slv_solver *sv = slv_solver_find("pgs_wide");
  slv_workspace *ws = NULL;
  double *x0 = malloc((size_t)p.n * sizeof *x0), *x = malloc((size_t)p.n * sizeof *x);
  double *T = malloc((size_t)(2 * NFIG * R) * sizeof *T); /* [clock][figure][round] */
  int rc = 1;
  arrays fp = { 0 }, dram = { 0 };
  if (!x0 || !x || !T) goto done;
  quiet.max_iter = 2 * N;
  if (slv_workspace_new(sv, p.n, &quiet, &ws) != SLV_OK) goto done;
  memcpy(x0, xw, (size_t)p.n * sizeof *x0);
  slv_result res;
  timed_solve(ws, &p, &logged, x0, x, &res); /* the plan's line; a warm-up */
  /* the AVX2 lanes where the library can be asked for them (by name: a
   * library before SLV_SIMD_AVX2 refuses it) */
  slv_options four = quiet, four_n = quiet;
  int avx2 = slv_options_set(&four, "simd", "avx2", NULL, 0) == SLV_OK &&
             slv_options_set(&four_n, "simd", "avx2", NULL, 0) == SLV_OK;
  four_n.max_iter = N;
  double bytes = sweep_bytes(&p, &pi);
  if (!arrays_new(&fp, (size_t)(bytes / 24.0) + 1) || !arrays_new(&dram, dram_doubles())) {
    fprintf(stderr, "sweep_bandwidth: no memory for the triads\n");
    goto done;
  }
  for (int r = 0; r < R; r++) {
    stamp t[NFIG];
    /* main memory's triad first, then an untimed solve: it evicts the
     * caches, and every timed solve below starts from the same warm ones
     * (after it, the world's solve started cold and its checks took the
     * misses: 1.33 of the pile's 5.41 ms) */
    t[F_DRAM] = triad(dram.a, dram.b, dram.c, dram.m, 1);
    timed_solve(ws, &p, &world, x0, x, &res);
    quiet.max_iter = N;
    t[F_SWEEP_N] = timed_solve(ws, &p, &quiet, x0, x, &res);
    t[F_TRIAD] = triad(fp.a, fp.b, fp.c, fp.m, N);
    quiet.max_iter = 2 * N;
    t[F_SWEEP_2N] = timed_solve(ws, &p, &quiet, x0, x, &res);
    if (avx2) {
      t[F_AVX2_2N] = timed_solve(ws, &p, &four, x0, x, &res);
      t[F_AVX2_N] = timed_solve(ws, &p, &four_n, x0, x, &res);
    } else {
      t[F_AVX2_2N] = t[F_AVX2_N] = (stamp){ 0, 0 };
    }
    t[F_SOLVE] = timed_solve(ws, &p, &world, x0, x, &res);
    for (int f = 0; f < NFIG; f++) {
      T[(size_t)(f * R + r)] = t[f].wall;
      T[(size_t)((NFIG + f) * R + r)] = t[f].cpu;
    }
  }
  figures F[2];
  for (int c = 0; c < 2; c++)
    for (int f = 0; f < NFIG; f++)
      least_median(T + (size_t)((c * NFIG + f) * R), R, &F[c].least[f], &F[c].median[f]);
  print_json(&a, &p, &pi, bytes, F, &res, avx2);
  rc = 0;
done:
  arrays_free(&fp);
  arrays_free(&dram);
  free(T);
  free(x0);
  free(x);
  slv_workspace_free(ws);
  dyn_world_free(w);
  return rc;
}
