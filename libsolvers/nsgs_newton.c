/* nsgs_newton.c -- NSGS sweeps, switching to the Alart-Curnier nonsmooth
 * Newton (nsn_ac.c) when the sweeps converge too slowly to pay.
 *
 * Problem: the Coulomb friction problem of nsgs.c / nsn_ac.c (w = A x + b,
 * cone rows with the De Saxce law, box rows).
 *
 * Why: nonsmooth Gauss-Seidel (nsgs.c) is the fastest method on most FCLIB
 * problems at a loose tolerance, but converges linearly and sometimes very
 * slowly (acary2018 sec. 6: stacks, many contacts on one body); the
 * semismooth Newton converges superlinearly near a solution but costs
 * (2/3) n^3 per iteration for its dense LU and is only locally convergent.
 * Each family fails where the other is good, so this solver runs NSGS first
 * and hands its iterate to Newton as a warm start (the strategy of hybrid
 * solvers in acary2018 sec. 7, and of Siconos' "NSGS then local Newton"
 * polishing).
 *
 * A dense A of NSGSN_CSR_MIN_N rows or more is copied to CSR once per solve
 * (below that, nsgs's own packing per chunk is cheaper than the copy).
 * Schedule: NSGS in chunks of max(NSGSN_CHUNK, sweeps so far / 2) sweeps
 * (nsgs.c itself, warm-started; a restart costs about ten sweeps, so the
 * chunks grow geometrically and the restarts cost O(log) sweeps).  After
 * each chunk but the first, the observed contraction per sweep
 *     q = (r_now / r_before)^(1 / sweeps),  r = res_rel,
 * predicts the sweeps still needed, k = log(tol / r_now) / log(q) (infinite
 * when q >= 1).  Newton is tried when their cost exceeds that of
 * NSGSN_NEWTON_GUESS Newton iterations, in a flop model:
 *     sweep  ~ 2 nnz(A) + 60 ncones        (column updates + one-contact solves)
 *     Newton ~ (2/3) m^3 / 8 + 2 n m + 4 sweeps   (LU of the m rows Newton
 *              keeps, at ~8x the flop rate of the sparse sweep, measured
 *              on this machine; assembly; products)
 * with m estimated from the current x (contacts with x_n > 0, box rows
 * strictly inside their bounds: nsn_ac.c eliminates the others).
 * A Newton phase runs at most NSGSN_NEWTON_IT iterations; if it does not
 * converge, the best iterate (Newton's or the last NSGS one, by res_rel) is
 * kept, NSGS resumes, and the next attempt waits until the sweeps since
 * the failed one have cost as much as it did, and needs a 4x larger
 * predicted saving (so failed attempts cost at most about as much as the
 * sweeps).  Problems larger than NSGSN_NEWTON_MAX_N rows never
 * switch (the dense Newton matrix is not allocated): this solver is then
 * NSGS.
 *
 * Counts: result.iterations = sweeps + Newton iterations; the message says
 * how many of each.  Statuses: those of nsgs and nsn_ac (SLV_CONVERGED,
 * SLV_MAX_ITER when the sum reaches opt->max_iter, SLV_NOT_FINITE,
 * SLV_ERR_UNSUPPORTED).  Reads the options nsgs reads, and tol / norm.
 */
#include "slv_internal.h"

#include <stdlib.h>
#include <string.h>

extern const slv_solver slv_solver_nsgs;

enum {
  NSGSN_CHUNK = 30,         /* sweeps between two decisions (at least) */
  NSGSN_CSR_MIN_N = 300,    /* rows: from here a dense A is copied to CSR once */
  NSGSN_NEWTON_IT = 30,     /* Newton iterations per attempt */
  NSGSN_NEWTON_MAX_N = 4000 /* rows: above, no Newton (its matrix is n^2 doubles) */
};
#define NSGSN_NEWTON_GUESS 6.0 /* Newton iterations an attempt is expected to need */
#define NSGSN_CSR_MAX ((size_t)1 << 22) /* CSR copy: at most 4M entries (48 MB) */

typedef struct {
  void *gs;        /* nsgs state (slv_solver_nsgs.state_size bytes) */
  slv_nsn nsn;     /* Newton core, NULL buffers when n_max > NSGSN_NEWTON_MAX_N */
  int has_newton;
  double *xs;      /* size n_max: iterate saved before a Newton attempt */
  int *Ap, *Aj;    /* CSR copy of a mostly-zero dense A: n_max + 1, cap */
  double *Ax;      /* cap */
  size_t cap;
} nsgsn_state;

static void nsgsn_free(void *st) {
  nsgsn_state *s = st;
  if (s->gs) {
    slv_solver_nsgs.free(s->gs);
    free(s->gs);
  }
  if (s->has_newton) slv_nsn_free(&s->nsn);
  free(s->xs);
  free(s->Ap);
  free(s->Aj);
  free(s->Ax);
  memset(s, 0, sizeof *s);
}

static slv_status nsgsn_init(void *st, int n_max, const slv_options *opt) {
  nsgsn_state *s = st;
  s->gs = calloc(1, slv_solver_nsgs.state_size);
  size_t m = (size_t)(n_max > 0 ? n_max : 1);
  s->cap = m * m / 4 + 16;
  if (s->cap > NSGSN_CSR_MAX) s->cap = NSGSN_CSR_MAX;
  s->xs = malloc(m * sizeof *s->xs);
  s->Ap = malloc((m + 1) * sizeof *s->Ap);
  s->Aj = malloc(s->cap * sizeof *s->Aj);
  s->Ax = malloc(s->cap * sizeof *s->Ax);
  if (!s->gs || !s->xs || !s->Ap || !s->Aj || !s->Ax) {
    nsgsn_free(s);
    return SLV_ERR_NOMEM;
  }
  slv_status r = slv_solver_nsgs.init(s->gs, n_max, opt);
  if (r) {
    nsgsn_free(s);
    return r;
  }
  if (n_max <= NSGSN_NEWTON_MAX_N) {
    r = slv_nsn_init(&s->nsn, n_max);
    if (r) {
      nsgsn_free(s);
      return r;
    }
    s->has_newton = 1;
  }
  return SLV_CONVERGED;
}

/* A mostly-zero dense A as CSR in the state's buffers (rows in order,
 * columns sorted); returns 0 if A has more than cap nonzeros.  Both phases
 * then work in O(nnz): nsgs re-packs its matrix at every chunk, which is an
 * O(n^2) scan for a dense A (0.3 s of a 0.4 s solve on KaplasTower). */
static int dense_to_csr(const slv_problem *p, nsgsn_state *s, slv_problem *q) {
  int n = p->n;
  size_t c = 0;
  for (int i = 0; i < n; i++) s->Ap[i + 1] = 0;
  for (int j = 0; j < n; j++) {
    const double *a = p->A + (size_t)j * p->lda;
    for (int i = 0; i < n; i++)
      if (a[i] != 0.0) {
        s->Ap[i + 1]++;
        if (++c > s->cap) return 0;
      }
  }
  s->Ap[0] = 0;
  for (int i = 0; i < n; i++) s->Ap[i + 1] += s->Ap[i];
  /* fill column by column: every row's entries come out sorted */
  for (int i = 0; i < n; i++) s->xs[i] = s->Ap[i]; /* next slot per row (xs as scratch) */
  for (int j = 0; j < n; j++) {
    const double *a = p->A + (size_t)j * p->lda;
    for (int i = 0; i < n; i++)
      if (a[i] != 0.0) {
        int k = (int)s->xs[i];
        s->Aj[k] = j;
        s->Ax[k] = a[i];
        s->xs[i] = k + 1;
      }
  }
  *q = *p;
  q->storage = SLV_CSR;
  q->A = NULL;
  q->Ap = s->Ap;
  q->Aj = s->Aj;
  q->Ax = s->Ax;
  return 1;
}

/* Rows the Newton system would keep at x: the three rows of each contact
 * with x_n > 0, box rows strictly inside their bounds. */
static double active_rows(const slv_problem *p, const double *x) {
  int k = 0, m = 0;
  for (int i = 0; i < p->n; i++) {
    if (k < p->ncones && p->cone_rows[k] == i) {
      if (x[i] > 0) m += 3;
      i += 2;
      k++;
      continue;
    }
    m += x[i] > slv_lo_of(p, i) && x[i] < slv_hi_of(p, i);
  }
  return m;
}

static slv_status nsgsn_solve(void *st, const slv_problem *p0, const slv_options *opt, double *x,
                              double *w, slv_result *res) {
  nsgsn_state *s = st;
  int n = p0->n;
  slv_problem csr;
  const slv_problem *p = p0;
  if (p0->storage == SLV_DENSE && n >= NSGSN_CSR_MIN_N && dense_to_csr(p0, s, &csr)) p = &csr;
  slv_residuals r;
  if (p->cone_law == SLV_CONE_ASSOCIATED && p->ncones > 0) {
    slv_msgf(res->message, sizeof res->message,
             "nsgs_newton: solves the Coulomb law only; for the associated cone use nsgs, "
             "pcg_cone or apgd");
    return SLV_ERR_UNSUPPORTED;
  }
  double nd = n;
  double c_sweep = 2.0 * (p->storage == SLV_CSR ? p->Ap[n] : (double)n * n) + 60.0 * p->ncones;
  double c_newton = 0;
  double need = NSGSN_NEWTON_GUESS; /* grows 4x after each failed attempt */

  slv_options o = *opt;
  o.warm_start = 1;
  int sweeps = 0, newton = 0, attempts = 0;
  double debt = 0; /* cost of the last failed Newton attempt, paid back by sweeps */
  double r_before = NAN; /* no rate before the first chunk (nsgs computes the start) */
  slv_status last = SLV_MAX_ITER;
  while (sweeps + newton < opt->max_iter) {
    slv_result sub = *res;
    sub.history_len = res->history_len;
    sub.iterations = 0;
    /* chunks grow with the sweeps done: a restart of nsgs costs about ten
     * sweeps (its packing, block factorisations and first residual) */
    o.max_iter = sweeps / 2 > NSGSN_CHUNK ? sweeps / 2 : NSGSN_CHUNK;
    if (o.max_iter > opt->max_iter - sweeps - newton) o.max_iter = opt->max_iter - sweeps - newton;
    last = slv_solver_nsgs.solve(s->gs, p, &o, x, w, &sub);
    sweeps += sub.iterations;
    res->history_len = sub.history_len;
    res->solver_residual = sub.solver_residual;
    if (last == SLV_CONVERGED || last < 0 || last == SLV_NOT_FINITE) {
      if (last != SLV_CONVERGED) memcpy(res->message, sub.message, sizeof res->message);
      break;
    }
    double r_now = sub.solver_residual;
    debt -= sub.iterations * c_sweep;
    if (!s->has_newton || sweeps + newton >= opt->max_iter || debt > 0) {
      r_before = r_now;
      continue;
    }
    if (isnan(r_before)) { /* first chunk: rate unknown */
      r_before = r_now;
      continue;
    }
    double q = r_before > 0 && sub.iterations > 0 ? pow(r_now / r_before, 1.0 / sub.iterations)
                                                  : 1.0;
    double k_left = q < 1.0 && q > 0.0 ? log(opt->tol / r_now) / log(q) : INFINITY;
    r_before = r_now;
    /* Newton factors only the rows not at a bound (nsn_ac.c eliminates
     * the rest): estimated from the current x, contacts with x_n > 0 */
    double me = active_rows(p, x);
    c_newton = me * me * me / 12.0 + 2.0 * nd * me + 4.0 * c_sweep;
    if (!(k_left * c_sweep > need * c_newton)) continue;

    /* Newton from the NSGS iterate; keep whichever ends better */
    attempts++;
    memcpy(s->xs, x, (size_t)n * sizeof *x);
    int it_left = opt->max_iter - sweeps - newton;
    int nit = 0;
    slv_status ns = slv_nsn_run(&s->nsn, p, opt, it_left < NSGSN_NEWTON_IT ? it_left :
                                NSGSN_NEWTON_IT, x, w, res, &nit);
    newton += nit;
    if (ns == SLV_CONVERGED) {
      last = SLV_CONVERGED;
      break;
    }
    if (ns < 0) {
      last = ns;
      break;
    }
    slv_residuals rn = slv_residual(p, x, w); /* slv_nsn_run left w = A x + b */
    double r_newton = rn.res_rel; /* at Newton's best iterate, left in x */
    if (!(r_newton < r_now)) { /* Newton did not help: back to the NSGS point */
      memcpy(x, s->xs, (size_t)n * sizeof *x);
      slv_problem_w(p, x, w);
      r_before = r_now;
    } else {
      r_before = r_newton;
    }
    need *= 4.0;
    debt = nit * c_newton;
    last = SLV_MAX_ITER;
  }
  res->iterations = sweeps + newton;
  if (last == SLV_CONVERGED) {
    slv_msgf(res->message, sizeof res->message,
             "nsgs_newton: %d sweeps, %d Newton iterations (%d attempts)", sweeps, newton,
             attempts);
    return SLV_CONVERGED;
  }
  if (last == SLV_MAX_ITER) {
    slv_problem_w(p, x, w);
    r = slv_residual(p, x, w);
    slv_msgf(res->message, sizeof res->message,
             "nsgs_newton: %d sweeps + %d Newton iterations (%d attempts), res_rel=%.3g > "
             "tol=%.3g",
             sweeps, newton, attempts, r.res_rel, opt->tol);
  }
  return last;
}

const slv_solver slv_solver_nsgs_newton = {
    .name = "nsgs_newton",
    .summary = "NSGS sweeps, then Alart-Curnier nonsmooth Newton when sweeps stall (Coulomb)",
    .cite = "acary2018",
    .caps = SLV_CAP_CONE | SLV_CAP_BOX | SLV_CAP_FREE | SLV_CAP_SPARSE | SLV_CAP_NEEDS_POS_DIAG,
    .state_size = sizeof(nsgsn_state),
    .init = nsgsn_init,
    .free = nsgsn_free,
    .solve = nsgsn_solve,
};
