/* pivot_factor.c -- benchmark (not a test): the pivoting solvers against one
 * factorisation of the same A, in one process (`make bench-pivot-factor`
 * runs it through experiments/bench_pivot_factor.sh; issue 66, item 1).
 *
 *   pivot_factor FILE potrf|getrf [ROUNDS]
 *
 * Reads FILE (any format lcplab reads; A stored dense), then repeats
 * ROUNDS times (default 7), interleaved so that the machine's load falls on
 * every figure alike:
 *   factor   one LAPACK factorisation of a fresh copy of A (the copy is not
 *            timed): dpotrf ('L') for "potrf", dgetrf for "getrf";
 *   lemke    slv_solve with "lemke", default options, from x = 0;
 *   dantzig  slv_solve with "dantzig", default options, from x = 0;
 *   oracle   the least an active-set method spends once it knows the
 *            answer's active set C (the rows the first dantzig solve left
 *            strictly inside their bounds): gather A_CC, factor it by the
 *            same routine, solve A_CC x_C = -b_C once.
 * Each figure is timed around its call alone (a solve around slv_solve, as
 * `lcplab solve` times it), by two clocks at once: the wall clock
 * (CLOCK_MONOTONIC) and the process's CPU time (CLOCK_PROCESS_CPUTIME_ID,
 * which the other loads of a shared machine touch less).  Threads:
 * whatever OPENBLAS_NUM_THREADS says (the script sets 1).
 *
 * Prints one JSON object on stdout: the file, n, |C|, the routine, the
 * medians over the rounds (t_factor, t_lemke, t_dantzig, t_oracle: wall,
 * seconds; c_...: CPU), the ratios to the factorisation (r_...: wall,
 * rc_...: CPU), and each solver's status, pivots and res_rel in its last
 * round.
 *
 * Exit: 0 measured (whatever the solvers' statuses), 1 a read or a
 * workspace failed, 2 usage.  An experiment never asserts. */
#define _POSIX_C_SOURCE 200809L
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "io.h"
#include "slv.h"

enum { ROUNDS_DEFAULT = 7, ROUNDS_MAX = 1000 };
enum { F_FACTOR, F_LEMKE, F_DANTZIG, F_ORACLE, NFIG };
static const char *const fig_name[NFIG] = { "factor", "lemke", "dantzig", "oracle" };

/* Both clocks. */
typedef struct {
  double wall, cpu;
} stamp;

static stamp now(void) {
  struct timespec w, c;
  clock_gettime(CLOCK_MONOTONIC, &w);
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c);
  stamp s = { (double)w.tv_sec + 1e-9 * (double)w.tv_nsec,
              (double)c.tv_sec + 1e-9 * (double)c.tv_nsec };
  return s;
}

/* The times of every figure and round: t[figure][0 wall, 1 cpu][round]. */
typedef struct {
  double *t[NFIG][2];
  volatile double sink; /* read_through's sums, kept so that the reads are made */
} times;

static void record(times *T, int f, int r, stamp a, stamp b) {
  T->t[f][0][r] = b.wall - a.wall;
  T->t[f][1][r] = b.cpu - a.cpu;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *t, int r) {
  qsort(t, (size_t)r, sizeof *t, cmp_double);
  return r % 2 ? t[r / 2] : 0.5 * (t[r / 2 - 1] + t[r / 2]);
}

/* One factorisation of the k x k matrix F (leading dimension k) in place. */
static void factor(int lu, int k, double *F, lapack_int *ipiv) {
  if (lu)
    LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, k, k, F, k, ipiv);
  else
    LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', k, F, k);
}

/* The oracle: gather A_CC for the rows C[0..k), factor, solve once. */
static void oracle(int lu, const slv_problem *p, const int *C, int k, double *F, double *rhs,
                   lapack_int *ipiv) {
  for (int c = 0; c < k; c++) {
    const double *a = p->A + (size_t)C[c] * (size_t)p->lda;
    for (int r = 0; r < k; r++) F[r + (size_t)c * k] = a[C[r]];
  }
  for (int r = 0; r < k; r++) rhs[r] = -p->b[C[r]];
  if (k == 0) return;
  factor(lu, k, F, ipiv);
  if (lu)
    LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, 'N', k, 1, F, k, ipiv, rhs, k);
  else
    LAPACKE_dpotrs_work(LAPACK_COL_MAJOR, 'L', k, 1, F, k, rhs, k);
}

/* A solver's workspace and the result of its last round. */
typedef struct {
  const char *name;
  slv_workspace *ws;
  slv_result res;
} solver_run;

/* A read through A and b, untimed, before each timed figure: each then
 * starts from the same caches (A as warm as they hold it, no other
 * figure's writes still to be written back).  Without it the figure after
 * the factorisation paid for the factor's dirty n x n copy: lemke, 1.5
 * times dantzig's time at n = 500 (experiments/records/
 * 2026-11-29-pivot-caches.md). */
static double read_through(const slv_problem *p) {
  double s[4] = { 0.0, 0.0, 0.0, 0.0 }; /* four sums: not one chain of adds */
  for (int j = 0; j < p->n; j++) {
    const double *a = p->A + (size_t)j * (size_t)p->lda;
    for (int i = 0; i < p->n; i++) s[i & 3] += a[i];
    s[j & 3] += p->b[j];
  }
  return s[0] + s[1] + s[2] + s[3];
}

/* One timed solve from x = 0. */
static void solve(solver_run *s, const slv_problem *p, const slv_options *opt, double *x, double *w,
                  times *T, int f, int r) {
  memset(x, 0, (size_t)p->n * sizeof *x);
  T->sink += read_through(p);
  stamp a = now();
  slv_solve(s->ws, p, opt, x, w, &s->res);
  record(T, f, r, a, now());
}

/* The rows strictly inside their bounds at x into C; their number. */
static int inside(const slv_problem *p, const double *x, int *C) {
  int k = 0;
  for (int i = 0; i < p->n; i++)
    if (x[i] > (p->lo ? p->lo[i] : 0.0) && x[i] < (p->hi ? p->hi[i] : INFINITY)) C[k++] = i;
  return k;
}

static void print_json(const char *file, const slv_problem *p, int k, int lu, int rounds, times *T,
                       const solver_run *sv) {
  double m[NFIG][2];
  for (int f = 0; f < NFIG; f++)
    for (int c = 0; c < 2; c++) m[f][c] = median(T->t[f][c], rounds);
  printf("{\"file\":\"%s\",\"n\":%d,\"k\":%d,\"factor\":\"%s\",\"rounds\":%d", file, p->n, k,
         lu ? "dgetrf" : "dpotrf", rounds);
  for (int f = 0; f < NFIG; f++)
    printf(",\"t_%s\":%.6g,\"c_%s\":%.6g", fig_name[f], m[f][0], fig_name[f], m[f][1]);
  for (int f = F_LEMKE; f < NFIG; f++)
    printf(",\"r_%s\":%.4g,\"rc_%s\":%.4g", fig_name[f], m[f][0] / m[F_FACTOR][0], fig_name[f],
           m[f][1] / m[F_FACTOR][1]);
  for (int s = 0; s < 2; s++)
    printf(",\"%s_status\":\"%s\",\"%s_pivots\":%d,\"%s_res_rel\":%.3g", sv[s].name,
           slv_status_str(sv[s].res.status), sv[s].name, sv[s].res.pivots, sv[s].name,
           sv[s].res.res.res_rel);
  printf("}\n");
}

int main(int argc, char **argv) {
  if (argc < 3 || argc > 4 || (strcmp(argv[2], "potrf") && strcmp(argv[2], "getrf"))) {
    fprintf(stderr, "usage: pivot_factor FILE potrf|getrf [ROUNDS]\n");
    return 2;
  }
  int lu = strcmp(argv[2], "getrf") == 0;
  int rounds = argc == 4 ? atoi(argv[3]) : ROUNDS_DEFAULT;
  if (rounds < 1 || rounds > ROUNDS_MAX) {
    fprintf(stderr, "pivot_factor: ROUNDS must be 1..%d, got '%s'\n", ROUNDS_MAX, argv[3]);
    return 2;
  }
  char err[512];
  io_instance *inst = NULL;
  if (io_read(argv[1], IO_FMT_AUTO, &inst, err, sizeof err) != 0) {
    fprintf(stderr, "pivot_factor: %s\n", err);
    return 1;
  }
  slv_problem p = io_instance_problem(inst);
  int n = p.n, rc = 1;
  slv_options opt = slv_options_default();
  solver_run sv[2] = { { .name = "lemke" }, { .name = "dantzig" } };
  times T;
  memset(&T, 0, sizeof T);
  double *F = malloc((size_t)n * n * sizeof *F), *x = malloc((size_t)n * sizeof *x);
  double *w = malloc((size_t)n * sizeof *w), *rhs = malloc((size_t)n * sizeof *rhs);
  int *C = malloc((size_t)n * sizeof *C), ok = F && x && w && rhs && C;
  lapack_int *ipiv = malloc((size_t)n * sizeof *ipiv);
  for (int f = 0; f < NFIG; f++)
    for (int c = 0; c < 2; c++) ok = ok && (T.t[f][c] = malloc((size_t)rounds * sizeof(double)));
  if (!p.A || !ok || !ipiv) {
    fprintf(stderr, "pivot_factor: %s: %s\n", argv[1],
            p.A ? "out of memory" : "A is not stored dense");
    goto done;
  }
  for (int s = 0; s < 2; s++)
    if (slv_workspace_new(slv_solver_find(sv[s].name), n, &opt, &sv[s].ws) != SLV_OK) {
      fprintf(stderr, "pivot_factor: no %s workspace for n = %d\n", sv[s].name, n);
      goto done;
    }
  int k = -1;
  for (int r = 0; r < rounds; r++) {
    for (size_t j = 0; j < (size_t)n; j++)
      memcpy(F + j * n, p.A + j * (size_t)p.lda, (size_t)n * sizeof *F);
    stamp a = now();
    factor(lu, n, F, ipiv);
    record(&T, F_FACTOR, r, a, now());
    solve(&sv[0], &p, &opt, x, w, &T, F_LEMKE, r);
    solve(&sv[1], &p, &opt, x, w, &T, F_DANTZIG, r);
    if (k < 0) k = inside(&p, x, C);
    T.sink += read_through(&p);
    a = now();
    oracle(lu, &p, C, k, F, rhs, ipiv);
    record(&T, F_ORACLE, r, a, now());
  }
  print_json(argv[1], &p, k, lu, rounds, &T, sv);
  rc = 0;
done:
  for (int s = 0; s < 2; s++) slv_workspace_free(sv[s].ws);
  for (int f = 0; f < NFIG; f++)
    for (int c = 0; c < 2; c++) free(T.t[f][c]);
  free(F);
  free(x);
  free(w);
  free(rhs);
  free(C);
  free(ipiv);
  io_instance_free(inst);
  return rc;
}
