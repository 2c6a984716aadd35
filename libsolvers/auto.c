/* auto.c -- the automatic solver: picks one of the registered solvers by
 * the problem's features and hands it the solve (docs/solver-machinery.md,
 * "auto").  The rule, first match:
 *
 *   cones, Coulomb law,     admm (ADMM: one factorization couples every
 *   n > 600, >= 12 blocks   contact at once; Cholesky, or LU for a
 *   a contact               nonsymmetric A), nsgs_newton if it stalls.  Each
 *                           contact coupled to 12 or more (stacks of boxes,
 *                           4 contact points a face: KaplasTower 23, the
 *                           pyramid exports 23-26) is where Gauss-Seidel
 *                           crawls; the piles, RockPile and Capsules (5-9)
 *                           go to nsgs_newton, 10x faster than ADMM on
 *                           Capsules
 *                           (experiments/records/2026-11-23-auto-coupling-admm-lu-2-norm.md).
 *   cones, Coulomb law,     nsgs_newton: 5 to 17 times faster than the
 *   condensed from a        interior point (next rule) on the shared
 *   global problem,         global set (condensed_rule below).
 *   n > 600, fewer than
 *   12 blocks a contact
 *   cones, n > 600,         ipm (its rule below; the table of
 *   symmetric A             docs/solver-machinery.md); Coulomb from
 *                           AUTO_SWEEP_HANDOVER_MIN rows: under a time
 *                           limit ipm gets AUTO_IPM_SHARE of it
 *                           (AUTO_IPM_ITERS_WEAK interior-point
 *                           iterations, within AUTO_IPM_SHARE_WEAK of
 *                           it, where the contacts are weakly coupled),
 *                           then
 *                           (or when its fixed point stalls) nsgs from
 *                           its best iterate (ipm_then_sweeps).
 *   cones, Coulomb law      nsgs_newton: NSGS sweeps, and the Alart-Curnier
 *                           Newton (dense LU up to 600 rows, else sparse:
 *                           KLU or UMFPACK) when the sweeps stall; the
 *                           fastest on the FC3D sets at 1e-8
 *                           (experiments/records/2026-11-23-sparse-newton.md).
 *                           nsgs if A has a
 *                           nonpositive diagonal entry.
 *   cones, associated law   admm when A is symmetric (a convex QP over the
 *                           cones: ADMM's Cholesky steps converge where
 *                           first-order projections crawl), else nsgs.
 *   factored storage        pgs_wide (the matrix-free sweep of world steps;
 *                           its AVX2 lanes).
 *   dense, symmetric, no    dantzig (principal pivoting: exact, finite) for
 *   more than 300 rows      n <= AUTO_PIVOT_MAX rows.
 *   dense, no more than     lemke (lexicographic complementary pivoting:
 *   300 rows, otherwise     finite, no symmetry or positive diagonal needed).
 *   anything else           pgs.
 *
 * A candidate is taken only if slv_solver_accepts it (symmetry, diagonal,
 * storage); the next rule applies otherwise, and the last one (pgs) too:
 * when pgs refuses, the first fallback that accepts runs, and when none
 * does auto refuses the problem (SLV_ERR_UNSUPPORTED, every refusal in the
 * message).  The status is decided on the iterate: an x that meets the
 * test (on a condensed problem's tightened run, the caller's: slv_caller_met)
 * ends the solve converged whatever its solver returned.  When the chosen
 * solver's x does not (max_iter, stagnated, ray, singular pivot, not
 * finite, breakdown, or "converged" that the library's measures do not
 * confirm), the fallbacks run from the caller's start, in order, until
 * one's x meets it: nsgs_newton, ppa_nsn, nsn_ac, ipm, admm for cones (the
 * Newton methods where NSGS and the hybrid stall at high friction: issue
 * 80); ipm, lemke, admm
 * otherwise (docs/solver-machinery.md, "auto", "Fallbacks"); none on a
 * tightened run, which refines an answer the chosen solver found.  Without
 * success the iterate with the smallest test measure is returned.
 * res->method names the solver whose x is returned and res->choice says
 * why, then what each fallback ended with.  Every candidate's state is
 * allocated at init (the pivoting ones' only for n_max <= AUTO_PIVOT_MAX), so a
 * solve allocates no more than the chosen solver does.
 */
#include "slv_internal.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

extern const slv_solver slv_solver_admm, slv_solver_dantzig, slv_solver_ipm, slv_solver_lemke,
    slv_solver_nsgs, slv_solver_nsgs_newton, slv_solver_nsn_ac, slv_solver_pgs, slv_solver_pgs_wide,
    slv_solver_ppa_nsn;

/* the candidates, in the order of auto_init's table */
enum {
  AUTO_NSGS_NEWTON,
  AUTO_NSGS,
  AUTO_ADMM,
  AUTO_IPM,
  AUTO_PGS_WIDE,
  AUTO_PGS,
  AUTO_DANTZIG,
  AUTO_LEMKE,
  AUTO_PPA_NSN,
  AUTO_NSN_AC,
  AUTO_NSUB
};
enum {
  AUTO_MAX_FALLBACKS = 5,
  AUTO_PPA_BUDGET = 4 /* ppa_nsn's Newton iterations as a fallback: this times max_iter */
};
enum {
  AUTO_PIVOT_MAX = 300, /* rows: the pivoting solvers up to here */
  /* ADMM iterations without halving the test's measure before nsgs_newton
   * takes over: ADMM's longest such run on a problem it then solves was
   * 270 (the 30-layer pyramid export, 2-norm; docs/solver-machinery.md, "auto") */
  AUTO_ADMM_STALL = 400,
  AUTO_ADMM_COUPLING = 12, /* 3x3 blocks a contact (its own included) from which ADMM goes first */
  /* rows from which the interior point takes a coupled symmetric problem
   * (ADMM below: KaplasTower, 1710 rows, 6 ms against ipm's 16; the
   * pyramid-20 export, 4800 rows, ipm 0.07 s against ADMM's 0.10) */
  AUTO_IPM_COUPLED_MIN = 4000,
  /* rows from which a stalled De Saxce fixed point of ipm hands its best
   * iterate to nsgs (ipm_then_sweeps): the 10^4-contact piles, 24,477 to
   * 40,956 rows, where the Newton fallbacks' sparse LUs take seconds
   * each and plain sweeps gain most in the time left
   * (experiments/records/2026-11-28-states2.md) */
  AUTO_SWEEP_HANDOVER_MIN = 20000
};
/* Under a time limit, the share of it ipm takes on such a problem before
 * nsgs goes on from its best iterate, by how strongly the contacts are
 * coupled (contact_coupling, AUTO_ADMM_COUPLING): where each is coupled
 * to 12 blocks or more (the 50-layer pyramid) the sweeps crawl and ipm's
 * answer is most of the result; where fewer (the piles) ipm's first QPs
 * (the associated problem's answer) are the start the sweeps need, and
 * its later fixed point costs them the time they gain most in
 * (experiments/records/2026-11-28-states2.md, 2026-11-29-states5.md) */
#define AUTO_IPM_SHARE      0.6
#define AUTO_IPM_SHARE_WEAK 0.3
/* On weakly coupled contacts ipm's part ends by its work, not the clock:
 * after AUTO_IPM_ITERS_WEAK interior-point iterations (its first QP and
 * the start of the second on the piles), AUTO_IPM_SHARE_WEAK of the limit
 * bounding them on a slow machine.  The sweeps' answer depends on their
 * start, and a start set by the clock (a share of the limit alone) gave
 * the same file a different verdict under another load
 * (experiments/records/2026-11-30-states6.md, 2026-11-30-states7.md). */
enum { AUTO_IPM_ITERS_WEAK = 30 };
/* nsgs's sweeps a chunk after ipm: the best chunk's end is kept, as the
 * sweeps' measure wanders on the piles (5.7e-4 at 30 s, 6.4e-4 at 100 s);
 * a restart costs about ten sweeps (nsgs_newton.c) */
enum { AUTO_SWEEP_CHUNK = 500 };

typedef struct {
  const slv_solver *sub[AUTO_NSUB];
  void *state[AUTO_NSUB];
  double *x0;       /* n_max: the caller's start, for nsgs_newton after a stalled ADMM */
  double *xa;       /* n_max: ADMM's iterate, kept if nsgs_newton ends worse */
  int admm_stall;   /* AUTO_ADMM_STALL, or a test's value (slv_auto_set_admm_stall) */
  int sweep_min;    /* AUTO_SWEEP_HANDOVER_MIN, or a test's (slv_auto_set_ipm_share) */
  double ipm_share; /* a test's share, or -1: by the coupling (ipm_share_of) */
  int ipm_iters;    /* AUTO_IPM_ITERS_WEAK, or a test's (slv_auto_set_ipm_iters) */
  int sweep_chunk;  /* AUTO_SWEEP_CHUNK, or a test's */
  /* the message of the iterate fall_back keeps */
  char msg[sizeof(((slv_result *)0)->message)];
} auto_state;

void slv_auto_set_ipm_share(void *state, int rows_min, double share, int chunk) {
  auto_state *s = state;
  s->sweep_min = rows_min >= 0 ? rows_min : AUTO_SWEEP_HANDOVER_MIN;
  s->ipm_share = share >= 0 && share < 1 ? share : -1;
  s->sweep_chunk = chunk > 0 ? chunk : AUTO_SWEEP_CHUNK;
}

void slv_auto_set_ipm_iters(void *state, int iterations) {
  ((auto_state *)state)->ipm_iters = iterations > 0 ? iterations : AUTO_IPM_ITERS_WEAK;
}

void slv_auto_set_admm_stall(void *state, int iterations) {
  ((auto_state *)state)->admm_stall = iterations > 0 ? iterations : AUTO_ADMM_STALL;
}

static void auto_free(void *st) {
  auto_state *s = st;
  for (int k = 0; k < AUTO_NSUB; k++)
    if (s->state[k]) {
      s->sub[k]->impl->free(s->state[k]);
      free(s->state[k]);
    }
  free(s->x0);
  free(s->xa);
  memset(s, 0, sizeof *s);
}

static slv_status auto_init(void *st, int n_max, const slv_options *opt) {
  auto_state *s = st;
  const slv_solver *subs[AUTO_NSUB] = { &slv_solver_nsgs_newton, &slv_solver_nsgs,
                                        &slv_solver_admm,        &slv_solver_ipm,
                                        &slv_solver_pgs_wide,    &slv_solver_pgs,
                                        &slv_solver_dantzig,     &slv_solver_lemke,
                                        &slv_solver_ppa_nsn,     &slv_solver_nsn_ac };
  size_t m = (size_t)(n_max > 0 ? n_max : 1);
  s->admm_stall = AUTO_ADMM_STALL;
  s->sweep_min = AUTO_SWEEP_HANDOVER_MIN;
  s->ipm_share = -1;
  s->ipm_iters = AUTO_IPM_ITERS_WEAK;
  s->sweep_chunk = AUTO_SWEEP_CHUNK;
  s->x0 = malloc(m * sizeof *s->x0);
  s->xa = malloc(m * sizeof *s->xa);
  if (!s->x0 || !s->xa) {
    auto_free(s);
    return SLV_ERR_NOMEM;
  }
  for (int k = 0; k < AUTO_NSUB; k++) {
    s->sub[k] = subs[k];
    if ((k == AUTO_DANTZIG || k == AUTO_LEMKE) && n_max > AUTO_PIVOT_MAX) continue;
    s->state[k] = calloc(1, subs[k]->impl->state_size);
    slv_status r = s->state[k] ? subs[k]->impl->init(s->state[k], n_max, opt) : SLV_ERR_NOMEM;
    if (r != SLV_OK) {
      auto_free(s);
      return r;
    }
  }
  return SLV_OK;
}

/* Whether candidate k may run on p: its state exists and slv_solver_accepts
 * it (its refusal into msg).  Asked only for the candidates a rule reaches,
 * so a Coulomb problem pays for one check, not for every candidate's. */
static int takes(const auto_state *s, int k, const slv_problem *p, char *msg, size_t len) {
  /* a candidate runs on auto's own operator: no dense copy of a CSR problem */
  if (p->storage == SLV_CSR && !(s->sub[k]->caps & SLV_CAP_SPARSE)) {
    slv_msgf(msg, len, "%s needs dense storage (the problem is CSR)", s->sub[k]->name);
    return 0;
  }
  return s->state[k] && slv_solver_accepts(s->sub[k], p, msg, len) == SLV_OK;
}

/* why = text, cut to len. */
static void copy_why(char *why, size_t len, const char *text) {
  size_t k = strlen(text);
  if (len == 0) return;
  if (k >= len) k = len - 1;
  memcpy(why, text, k);
  why[k] = 0;
}

/* The 3x3 blocks of A per contact, its own included: how many contacts
 * each one is coupled to (by A's packed copy; nnz / 3n for a column
 * packing, whose blocks store only their nonzeros). */
static double contact_coupling(slv_op *op) {
  int n = op->n;
  slv_op_pack(op);
  if (op->packed == SLV_OP_BLOCKS) return (double)op->colptr[n / 3] / (n / 3);
  return slv_op_nnz(op) / (3.0 * n);
}

/* Whether A is symmetric, by the packed copy (formed here; the solver
 * picked uses it, and admm asks the same question of the same op). */
static int symmetric(slv_op *op) {
  int i, j;
  slv_op_pack(op);
  return slv_op_is_symmetric(op, 1e-12, &i, &j);
}

/* The test's measure of x (w = A x + b into w); *met: the library's
 * convergence test passes, as slv_solve will judge it. */
static double measure(slv_op *op, const slv_options *opt, const double *x, double *w, int *met) {
  slv_op_w(op, x, w);
  slv_residuals r = slv_residual_op(op, x, w);
  *met = slv_met(op->p, opt, &r);
  double m = slv_test_measure(opt, &r);
  return isnan(m) ? INFINITY : m;
}

/* Whether x (w = A x + b into w) meets the test, or on a condensed
 * problem's tightened run the caller's (slv_caller_met): then auto keeps
 * it and stops, whatever the solver that made it said. */
static int meets(slv_op *op, const slv_options *opt, const double *x, double *w) {
  int met;
  measure(op, opt, x, w, &met);
  return met || slv_caller_met(op, x, w);
}

/* The ADMM-first rule: a large Coulomb problem whose contacts are
 * strongly coupled; its reason into why.  1 if it applies. */
static int admm_first(const auto_state *s, slv_op *op, char *why, size_t len) {
  const slv_problem *p = op->p;
  char msg[160];
  if (!(p->ncones > 0 && p->cone_law == SLV_CONE_COULOMB && p->n > NSN_DENSE_MAX &&
        takes(s, AUTO_ADMM, p, msg, sizeof msg)))
    return 0;
  double coupling = contact_coupling(op);
  if (coupling < AUTO_ADMM_COUPLING) return 0;
  int sym = symmetric(op);
  if (sym && p->n >= AUTO_IPM_COUPLED_MIN && takes(s, AUTO_IPM, p, msg, sizeof msg)) return 0;
  slv_msgf(why, len,
           "%d Coulomb cones, n=%d > %d, %.1f blocks a contact >= %d: ADMM (one %s per rho), "
           "%s if it stalls",
           p->ncones, p->n, NSN_DENSE_MAX, coupling, AUTO_ADMM_COUPLING,
           sym ? "Cholesky" : "LU (A not symmetric)", sym ? "ipm" : "nsgs_newton");
  return 1;
}

/* The condensed rule: a global problem's W (p->condensed) whose contacts
 * are weakly coupled goes to nsgs_newton, not the interior point: on the
 * shared global set ipm took 0.29 s on Spheres-i099 and 0.63 s on
 * spheres-in-a-box where nsgs_newton from the start takes 17 ms and 0.12 s
 * (experiments/records/2026-11-25-bench-global-condensation-timed.md).
 * Its reason into why; 1 if it applies. */
static int condensed_rule(const auto_state *s, slv_op *op, char *why, size_t len) {
  const slv_problem *p = op->p;
  char msg[160];
  if (!((p->condensed || op->condensed) && p->cone_law == SLV_CONE_COULOMB &&
        p->n > NSN_DENSE_MAX && takes(s, AUTO_NSGS_NEWTON, p, msg, sizeof msg)))
    return 0;
  double coupling = contact_coupling(op);
  if (coupling >= AUTO_ADMM_COUPLING) return 0;
  slv_msgf(why, len,
           "%d Coulomb cones condensed from a global problem, n=%d > %d, %.1f blocks a contact "
           "< %d: NSGS, then sparse Newton when the sweeps stall",
           p->ncones, p->n, NSN_DENSE_MAX, coupling, AUTO_ADMM_COUPLING);
  return 1;
}

/* A Coulomb problem of at least AUTO_SWEEP_HANDOVER_MIN rows that nsgs
 * takes: ipm shares its time with nsgs on it. */
static int large_coulomb(const auto_state *s, slv_op *op) {
  return op->p->cone_law == SLV_CONE_COULOMB && op->n >= s->sweep_min &&
         takes(s, AUTO_NSGS, op->p, NULL, 0);
}

/* ipm's share of the time limit on op: a test's, else AUTO_IPM_SHARE on
 * strongly coupled contacts and AUTO_IPM_SHARE_WEAK on weakly coupled
 * ones. */
static double ipm_share_of(const auto_state *s, slv_op *op) {
  if (s->ipm_share >= 0) return s->ipm_share;
  return contact_coupling(op) >= AUTO_ADMM_COUPLING ? AUTO_IPM_SHARE : AUTO_IPM_SHARE_WEAK;
}

/* ipm's interior-point iterations under a time limit on op: s->ipm_iters
 * on weakly coupled contacts (AUTO_IPM_ITERS_WEAK), else 0 (no cap). */
static int ipm_iters_of(const auto_state *s, slv_op *op) {
  return contact_coupling(op) < AUTO_ADMM_COUPLING ? s->ipm_iters : 0;
}

/* The interior-point rule: a Coulomb problem over NSN_DENSE_MAX rows, or an
 * associated one, with a symmetric A (after the ADMM rule); its reason into
 * why.  1 if it applies. */
static int ipm_rule(const auto_state *s, slv_op *op, char *why, size_t len) {
  const slv_problem *p = op->p;
  char msg[160];
  if (!(p->ncones > 0 && p->n > NSN_DENSE_MAX && symmetric(op) &&
        takes(s, AUTO_IPM, p, msg, sizeof msg)))
    return 0;
  if (p->cone_law == SLV_CONE_COULOMB && large_coulomb(s, op)) {
    double coupling = contact_coupling(op);
    char iters[64] = "";
    if (ipm_iters_of(s, op) > 0)
      slv_msgf(iters, sizeof iters, "%d interior-point iterations or ", ipm_iters_of(s, op));
    slv_msgf(why, len,
             "%d Coulomb cones, n=%d > %d, symmetric A: interior point (CHOLMOD), De Saxce fixed "
             "point, then nsgs from its best iterate (under a time limit after %s%.0f %% of it: "
             "%.1f blocks a contact %s %d)",
             p->ncones, p->n, NSN_DENSE_MAX, iters, 100 * ipm_share_of(s, op), coupling,
             coupling >= AUTO_ADMM_COUPLING ? ">=" : "<", AUTO_ADMM_COUPLING);
  } else if (p->cone_law == SLV_CONE_COULOMB) {
    slv_msgf(why, len,
             "%d Coulomb cones, n=%d > %d, symmetric A: interior point (CHOLMOD), De Saxce fixed "
             "point",
             p->ncones, p->n, NSN_DENSE_MAX);
  } else {
    slv_msgf(why, len, "%d associated cones, n=%d > %d, symmetric A: interior point (CHOLMOD)",
             p->ncones, p->n, NSN_DENSE_MAX);
  }
  return 1;
}

/* The fallbacks of a problem, in the order they are tried (the header):
 * their count, into k[] (AUTO_MAX_FALLBACKS).  For cones, after NSGS and
 * Newton, the proximal point Newton and the plain Alart-Curnier Newton:
 * the high-friction problems where the sweeps and the hybrid stall (issue
 * 80: docs/solver-machinery.md, "auto"). */
static int fallbacks(const slv_problem *p, int *k) {
  static const int cone[] = { AUTO_NSGS_NEWTON, AUTO_PPA_NSN, AUTO_NSN_AC, AUTO_IPM, AUTO_ADMM };
  static const int other[] = { AUTO_IPM, AUTO_LEMKE, AUTO_ADMM };
  int m = p->ncones > 0 ? 5 : 3;
  const int *f = p->ncones > 0 ? cone : other;
  for (int j = 0; j < m; j++) k[j] = f[j];
  return m;
}

/* When pgs, the last rule, refuses p (its refusal in pgs_msg): the first
 * fallback that takes p, with the reason into why; -1 if none does, with
 * every refusal into why. */
static int first_taker(const auto_state *s, const slv_problem *p, const char *storage,
                       const char *pgs_msg, char *why, size_t len) {
  int k[AUTO_MAX_FALLBACKS], m = fallbacks(p, k);
  char msg[160];
  for (int j = 0; j < m; j++)
    if (takes(s, k[j], p, msg, sizeof msg)) {
      slv_msgf(why, len, "n=%d, %s storage, pgs refuses it (%s): %s", p->n, storage, pgs_msg,
               s->sub[k[j]]->name);
      return k[j];
    }
  slv_msgf(why, len, "auto: no candidate takes this problem: %s", pgs_msg);
  for (int j = 0; j < m; j++) {
    size_t used = strlen(why);
    if (!s->state[k[j]])
      slv_msgf(why + used, len - used, "; %s: n_max > %d", s->sub[k[j]]->name, AUTO_PIVOT_MAX);
    else if (!takes(s, k[j], p, msg, sizeof msg))
      slv_msgf(why + used, len - used, "; %s", msg);
  }
  return -1;
}

/* Index of the solver to run, and why (into why). */
static int auto_choose(const auto_state *s, slv_op *op, char *why, size_t len) {
  const slv_problem *p = op->p;
  char msg[160], refused[96] = ""; /* dantzig's refusal, for lemke's reason */
  const char *law = p->cone_law == SLV_CONE_COULOMB ? "Coulomb" : "associated";
  if (admm_first(s, op, why, len)) return AUTO_ADMM;
  if (condensed_rule(s, op, why, len)) return AUTO_NSGS_NEWTON;
  if (ipm_rule(s, op, why, len)) return AUTO_IPM;
  if (p->ncones > 0 && p->cone_law == SLV_CONE_COULOMB &&
      takes(s, AUTO_NSGS_NEWTON, p, msg, sizeof msg)) {
    /* a fixed text, no formatting: on the one-to-five-contact problems a
     * solve takes 2-15 us, and vsnprintf was a tenth of that */
    copy_why(why, len,
             p->n > NSN_DENSE_MAX ? "Coulomb cones, fewer than 12 blocks a contact: NSGS, then "
                                    "sparse (KLU/UMFPACK) Newton when the sweeps stall"
                                  : "Coulomb cones, n <= 600: NSGS, then dense Newton when the "
                                    "sweeps stall");
    return AUTO_NSGS_NEWTON;
  }
  if (p->ncones > 0 && p->cone_law == SLV_CONE_ASSOCIATED && symmetric(op) &&
      takes(s, AUTO_ADMM, p, msg, sizeof msg)) {
    slv_msgf(why, len, "%d associated cones, symmetric A, n=%d: a convex QP for ADMM", p->ncones,
             p->n);
    return AUTO_ADMM;
  }
  if (p->ncones > 0) {
    slv_msgf(why, len, "%d %s cones, n=%d, A %s: NSGS", p->ncones, law, p->n,
             p->cone_law == SLV_CONE_COULOMB ? "with a nonpositive diagonal entry"
                                             : "not symmetric");
    return AUTO_NSGS;
  }
  if (p->storage == SLV_FACTORED && takes(s, AUTO_PGS_WIDE, p, msg, sizeof msg)) {
    slv_msgf(why, len, "factored (matrix-free) storage, n=%d: the wide PGS sweep", p->n);
    return AUTO_PGS_WIDE;
  }
  if (takes(s, AUTO_DANTZIG, p, refused, sizeof refused)) {
    slv_msgf(why, len, "dense symmetric A, n=%d <= %d: exact principal pivoting", p->n,
             AUTO_PIVOT_MAX);
    return AUTO_DANTZIG;
  }
  if (p->storage == SLV_DENSE && takes(s, AUTO_LEMKE, p, msg, sizeof msg)) {
    slv_msgf(why, len, "dense A, n=%d <= %d%s%s: lexicographic Lemke", p->n, AUTO_PIVOT_MAX,
             refused[0] ? ", dantzig refuses it: " : "", refused);
    return AUTO_LEMKE;
  }
  const char *storage =
      p->storage == SLV_CSR ? "CSR" : (p->storage == SLV_DENSE ? "dense" : "factored");
  if (takes(s, AUTO_PGS, p, msg, sizeof msg)) {
    slv_msgf(why, len, "n=%d, %s storage%s: PGS", p->n, storage,
             p->findex ? ", friction rows (findex)" : "");
    return AUTO_PGS;
  }
  return first_taker(s, p, storage, msg, why, len);
}

/* ADMM on a large coupled Coulomb problem, with a stall window of
 * admm_stall iterations without halving its residual (piles, where its De
 * Saxce fixed point circles); when it stalls, ipm (a symmetric A) or
 * nsgs_newton from the caller's start, on the iterations ADMM left.  The better of the two iterates, by
 * the test's measure (slv_test_measure: res_rel_2 under the 2-norm test),
 * is returned; res->method names the solver whose iterate it is, the
 * message both.  ADMM ending at max_iter has used the budget: no hand-over. */
static slv_status admm_then_handover(auto_state *s, slv_op *op, const slv_options *opt, double *x,
                                     double *w, slv_result *res, slv_hist *h) {
  int n = op->n;
  slv_admm_set_stall(s->state[AUTO_ADMM], s->admm_stall);
  slv_status st = s->sub[AUTO_ADMM]->impl->solve(s->state[AUTO_ADMM], op, opt, x, w, res, h);
  slv_admm_set_stall(s->state[AUTO_ADMM], 0);
  if (st != SLV_STAGNATED || res->iterations >= opt->max_iter || meets(op, opt, x, w)) return st;
  int k = symmetric(op) && takes(s, AUTO_IPM, op->p, NULL, 0) ? AUTO_IPM
          : takes(s, AUTO_NSGS_NEWTON, op->p, NULL, 0)        ? AUTO_NSGS_NEWTON
                                                              : AUTO_NSGS;
  int it_admm = res->iterations;
  slv_residuals ra = slv_residual(op->p, x, w);
  double r_admm = slv_test_measure(opt, &ra); /* the two iterates ranked by the test's measure */
  char admm_msg[96];
  slv_msgf(admm_msg, sizeof admm_msg, "%s", res->message);
  memcpy(s->xa, x, (size_t)n * sizeof *x);
  memcpy(x, s->x0, (size_t)n * sizeof *x);
  slv_options o = *opt;
  o.max_iter -= it_admm; /* >= 1 (above) */
  res->iterations = 0;
  st = s->sub[k]->impl->solve(s->state[k], op, &o, x, w, res, h);
  res->iterations += it_admm;
  res->method = s->sub[k]->name;
  slv_residuals rn = slv_residual(op->p, x, w);
  if (st != SLV_CONVERGED && !(slv_test_measure(opt, &rn) <= r_admm)) {
    memcpy(x, s->xa, (size_t)n * sizeof *x); /* ADMM's iterate was the better one */
    slv_op_w(op, x, w);
    res->method = s->sub[AUTO_ADMM]->name;
  }
  char tail[160];
  slv_msgf(tail, sizeof tail, "%s", res->message);
  slv_msgf(res->message, sizeof res->message, "%d ADMM iterations (%s), then %s", it_admm, admm_msg,
           tail);
  return st;
}

/* The best so far: its index, status and measure (its x in s->xa). */
typedef struct auto_best {
  int k;
  slv_status r;
  double m;
} auto_best;

/* Whether ipm's end r on op is a stalled De Saxce fixed point that nsgs
 * should take over (ipm_then_sweeps): Coulomb's law, at least
 * AUTO_SWEEP_HANDOVER_MIN rows, budget and time left, x not meeting the test. */
static int sweeps_take_over(const auto_state *s, slv_op *op, const slv_options *opt, slv_status r,
                            const slv_result *res, const double *x, double *w) {
  return r == SLV_STAGNATED && large_coulomb(s, op) && res->iterations < opt->max_iter &&
         !slv_stopped(op) && !meets(op, opt, x, w);
}

/* ipm on a large Coulomb problem under a time limit: its share of it
 * (ipm_share_of) and, on weakly coupled contacts, its interior-point
 * iterations (ipm_iters_of), whichever ends first, then back to the whole
 * limit; the end of either is a stall for sweeps_take_over. */
static slv_status ipm_on_its_share(auto_state *s, slv_op *op, const slv_options *opt, double *x,
                                   double *w, slv_result *res, slv_hist *h) {
  struct timespec whole;
  int shared = large_coulomb(s, op) && slv_poll_share(op->poll, ipm_share_of(s, op), &whole);
  if (!shared) return s->sub[AUTO_IPM]->impl->solve(s->state[AUTO_IPM], op, opt, x, w, res, h);
  int cap = ipm_iters_of(s, op);
  slv_options o = *opt;
  if (cap > 0 && cap < opt->max_iter) o.max_iter = cap;
  slv_status r = s->sub[AUTO_IPM]->impl->solve(s->state[AUTO_IPM], op, &o, x, w, res, h);
  slv_poll_unshare(op->poll, &whole);
  int ended = (r == SLV_TIME_LIMIT && !slv_stopped(op)) ||
              (cap > 0 && r == SLV_MAX_ITER && o.max_iter == cap);
  return ended ? SLV_STAGNATED : r;
}

/* ipm's De Saxce fixed point stalled on a large Coulomb problem (its
 * QPs' answers circle; the 10^4-contact piles), or its share of the time
 * ended: nsgs from ipm's best iterate on the iterations (sweeps) ipm left,
 * in chunks of sweep_chunk sweeps, each from the last one's end, and the
 * iterate of smallest test measure among ipm's and the chunks' ends is
 * returned (res->method names its solver, the message both).  Where the fixed point stalls the
 * sweeps go on gaining, and the Newton fallbacks, from the caller's start,
 * pay a sparse LU of seconds an iteration
 * (experiments/records/2026-11-28-states2.md). */
static slv_status ipm_then_sweeps(auto_state *s, slv_op *op, const slv_options *opt, double *x,
                                  double *w, slv_result *res, slv_hist *h, slv_status r) {
  int n = op->n, it_ipm = res->iterations, left = opt->max_iter - it_ipm, met = 0, chunks = 0;
  auto_best best = { AUTO_IPM, r, measure(op, opt, x, w, &met) };
  char ipm_msg[96];
  slv_msgf(ipm_msg, sizeof ipm_msg, "%s", res->message);
  memcpy(s->xa, x, (size_t)n * sizeof *x);
  slv_options o = *opt; /* the solvers' solve starts from x as given: nsgs goes on from it */
  slv_status st = SLV_MAX_ITER;
  while (left > 0 && st == SLV_MAX_ITER) { /* left >= 1 at first: sweeps_take_over */
    o.max_iter = left < s->sweep_chunk ? left : s->sweep_chunk;
    res->iterations = 0;
    st = s->sub[AUTO_NSGS]->impl->solve(s->state[AUTO_NSGS], op, &o, x, w, res, h);
    left -= res->iterations;
    chunks++;
    double m = measure(op, opt, x, w, &met);
    if (st == SLV_CONVERGED || m < best.m) {
      best = (auto_best){ AUTO_NSGS, st, m };
      memcpy(s->xa, x, (size_t)n * sizeof *x);
    }
  }
  res->iterations = opt->max_iter - left;
  if (st != SLV_CONVERGED) { /* the best chunk's end, or ipm's iterate */
    memcpy(x, s->xa, (size_t)n * sizeof *x);
    slv_op_w(op, x, w);
    st = slv_stopped(op) ? slv_stopped(op) : best.r;
  }
  res->method = s->sub[best.k]->name;
  char tail[160];
  slv_msgf(tail, sizeof tail, "%s", res->message);
  slv_msgf(res->message, sizeof res->message,
           "ipm (%s), then nsgs from its best iterate in %d chunks of up to %d sweeps, %s's x "
           "kept: %s",
           ipm_msg, chunks, s->sweep_chunk, res->method, tail);
  return st;
}

/* The chosen solver k, with the hand-overs of its rule (ADMM's stall,
 * ipm's breakdown, ipm's stalled fixed point on a large problem); x holds
 * the start on entry. */
static slv_status run_choice(auto_state *s, int k, slv_op *op, const slv_options *opt, double *x,
                             double *w, slv_result *res, slv_hist *h) {
  if (k == AUTO_ADMM && op->p->cone_law == SLV_CONE_COULOMB)
    return admm_then_handover(s, op, opt, x, w, res, h);
  slv_status r = k == AUTO_IPM ? ipm_on_its_share(s, op, opt, x, w, res, h)
                               : s->sub[k]->impl->solve(s->state[k], op, opt, x, w, res, h);
  if (k == AUTO_IPM && r == SLV_BREAKDOWN && op->p->cone_law == SLV_CONE_COULOMB &&
      takes(s, AUTO_NSGS_NEWTON, op->p, NULL, 0) && !meets(op, opt, x, w)) {
    /* A symmetric but not positive semidefinite: nsgs_newton from the start */
    char why[96];
    slv_msgf(why, sizeof why, "%s", res->message);
    memcpy(x, s->x0, (size_t)op->n * sizeof *x);
    int it = res->iterations;
    res->iterations = 0;
    r = s->sub[AUTO_NSGS_NEWTON]->impl->solve(s->state[AUTO_NSGS_NEWTON], op, opt, x, w, res, h);
    res->iterations += it;
    res->method = s->sub[AUTO_NSGS_NEWTON]->name;
    char tail[160];
    slv_msgf(tail, sizeof tail, "%s", res->message);
    slv_msgf(res->message, sizeof res->message, "ipm broke down (%s), then %s", why, tail);
  }
  if (k == AUTO_IPM && sweeps_take_over(s, op, opt, r, res, x, w))
    return ipm_then_sweeps(s, op, opt, x, w, res, h, r);
  return r;
}

/* A solve's end worth a fallback: the solver ran and failed numerically
 * (not a refusal, nor a stop the caller asked for). */
static int failed_numerically(slv_status r) {
  switch (r) {
  case SLV_MAX_ITER:
  case SLV_STAGNATED:
  case SLV_RAY_TERMINATION:
  case SLV_SINGULAR_PIVOT:
  case SLV_NOT_FINITE:
  case SLV_BREAKDOWN: return 1;
  default: return 0;
  }
}

/* The options of fallback k: the caller's, but ppa_nsn gets AUTO_PPA_BUDGET
 * times max_iter Newton iterations: on the containers at mu 1..3 it
 * needed 1000-1300 where nsn_ac and the others stall (the one 65-contact
 * container at mu 2: 7.8e-4 after 1000, converged after 1217;
 * experiments/records/2026-11-27-highmu.md).  The time limit still
 * bounds it. */
static slv_options fallback_options(int k, const slv_options *opt) {
  slv_options o = *opt;
  if (k == AUTO_PPA_NSN)
    o.max_iter =
        opt->max_iter > INT_MAX / AUTO_PPA_BUDGET ? INT_MAX : AUTO_PPA_BUDGET * opt->max_iter;
  return o;
}

/* "; NAME ended STATUS" appended to res->choice. */
static void note_try(slv_result *res, const char *name, slv_status r) {
  size_t used = strlen(res->choice);
  slv_msgf(res->choice + used, sizeof res->choice - used, "; %s ended %s", name, slv_status_str(r));
}


/* x, which solver k's run ended at r, meets the test: auto keeps it and
 * stops.  The choice says so ("then NAME converged" for a fallback; a
 * solver that ended otherwise on such an x is named with its status);
 * returns SLV_CONVERGED. */
static slv_status keep_met(const auto_state *s, int k, slv_status r, int fallback,
                           slv_result *res) {
  size_t used = strlen(res->choice);
  const char *name = s->sub[k]->name;
  if (r == SLV_CONVERGED && fallback)
    slv_msgf(res->choice + used, sizeof res->choice - used, "; then %s converged", name);
  else if (r != SLV_CONVERGED)
    slv_msgf(res->choice + used, sizeof res->choice - used, "; %s%s ended %s, its x meets the test",
             fallback ? "then " : "", name, slv_status_str(r));
  res->method = name;
  return SLV_CONVERGED;
}

/* After the chosen solver ended at r (x its iterate, not meeting the
 * test), the fallbacks from the caller's start (s->x0) until one's x meets
 * the test (meets: whatever its status); else the iterate of smallest
 * measure goes back into x, with its solver's message.  A stop from
 * outside (the time limit, the cancel callback) ends the fallbacks: the
 * best iterate so far, with that status (a Ctrl-C in a fallback is an
 * interrupted solve, never a stagnated one).  Returns the status of x. */
static slv_status fall_back(auto_state *s, int k0, slv_status r, slv_op *op, const slv_options *opt,
                            double *x, double *w, slv_result *res, slv_hist *h) {
  int n = op->n, k[AUTO_MAX_FALLBACKS], m = fallbacks(op->p, k), met = 0;
  auto_best best = { k0, r, measure(op, opt, x, w, &met) };
  const char *ran = res->method; /* a hand-over may have run another */
  slv_status stop = 0;
  slv_logf(opt, "auto: %s ended %s: %s", ran, slv_status_str(r), res->message);
  memcpy(s->xa, x, (size_t)n * sizeof *x);
  memcpy(s->msg, res->message, sizeof s->msg);
  note_try(res, ran, r);
  for (int j = 0; j < m && !stop; j++) {
    if (k[j] == k0 || strcmp(s->sub[k[j]]->name, ran) == 0 || !takes(s, k[j], op->p, NULL, 0))
      continue;
    int it = res->iterations, piv = res->pivots;
    memcpy(x, s->x0, (size_t)n * sizeof *x);
    slv_options o = fallback_options(k[j], opt);
    r = s->sub[k[j]]->impl->solve(s->state[k[j]], op, &o, x, w, res, h);
    res->iterations += it;
    res->pivots += piv;
    double mj = measure(op, opt, x, w, &met);
    slv_logf(opt, "auto: %s ended %s: %s", s->sub[k[j]]->name, slv_status_str(r), res->message);
    if (r >= 0 && r != SLV_INTERRUPTED && (met || slv_caller_met(op, x, w)))
      return keep_met(s, k[j], r, 1, res);
    note_try(res, s->sub[k[j]]->name, r);
    if (mj < best.m) {
      best = (auto_best){ k[j], r, mj };
      memcpy(s->xa, x, (size_t)n * sizeof *x);
      memcpy(s->msg, res->message, sizeof s->msg);
    }
    stop = slv_stopped(op);
  }
  memcpy(x, s->xa, (size_t)n * sizeof *x);
  memcpy(res->message, s->msg, sizeof res->message);
  slv_op_w(op, x, w);
  res->method = best.k == k0 ? ran : s->sub[best.k]->name;
  size_t used = strlen(res->choice);
  slv_msgf(res->choice + used, sizeof res->choice - used, "; kept %s's x (smallest residual)",
           res->method);
  return stop ? stop : best.r;
}

static slv_status auto_solve(void *st, slv_op *op, const slv_options *opt, double *x, double *w,
                             slv_result *res, slv_hist *h) {
  auto_state *s = st;
  int k = auto_choose(s, op, res->choice, sizeof res->choice);
  if (k < 0) {
    slv_msgf(res->message, sizeof res->message, "%s", res->choice);
    res->choice[0] = 0;
    return SLV_ERR_UNSUPPORTED;
  }
  res->method = s->sub[k]->name;
  memcpy(s->x0, x, (size_t)op->n * sizeof *x); /* the start, for every fallback */
  slv_status r = run_choice(s, k, op, opt, x, w, res, h);
  if (!(r == SLV_CONVERGED || failed_numerically(r))) return r;
  /* the status decided on the iterate: one that meets the test is kept
   * (whatever its solver said), one that does not goes to the fallbacks */
  if (meets(op, opt, x, w)) {
    if (r == SLV_CONVERGED) return r;
    const char *ran = res->method; /* a hand-over may have run another */
    for (int j = 0; j < AUTO_NSUB; j++)
      if (s->sub[j] && strcmp(s->sub[j]->name, ran) == 0) k = j;
    return keep_met(s, k, r, 0, res);
  }
  if (r == SLV_CONVERGED) r = SLV_STAGNATED; /* as slv_solve would judge it */
  if (op->caller_p) {
    /* a condensed problem's tightened run refines an x that met the local
     * test at the caller's tol: the fallbacks, from that x, only chase the
     * tighter tol (near the accuracy floor: to their limits) */
    note_try(res, res->method, r);
    size_t used = strlen(res->choice);
    slv_msgf(res->choice + used, sizeof res->choice - used, " (a tightened run: no fallbacks)");
    return r;
  }
  return fall_back(s, k, r, op, opt, x, w, res, h);
}

static const slv_impl auto_impl = {
  .state_size = sizeof(auto_state),
  .init = auto_init,
  .free = auto_free,
  .solve = auto_solve,
};

/* the params line below quotes these */
_Static_assert(NSN_DENSE_MAX == 600 && AUTO_ADMM_COUPLING == 12 && AUTO_IPM_COUPLED_MIN == 4000 &&
                   AUTO_ADMM_STALL == 400 && AUTO_PIVOT_MAX == 300,
               "auto params");

const slv_solver slv_solver_auto = {
  .name = "auto",
  .summary = "chooses a solver by the problem's features (cone law, storage, size, symmetry)",
  .cite = "acary2018",
  .caps = SLV_CAP_CONE | SLV_CAP_BOX | SLV_CAP_FREE | SLV_CAP_FINDEX | SLV_CAP_SPARSE |
          SLV_CAP_FACTORED,
  /* clang-format off */
  .params =
      "Coulomb, n > 600, >= 12 blocks a contact: admm (ipm if symmetric, n >= 4000), nsgs_newton "
      "after 400 its w/o halving; dense n <= 300: dantzig, lemke",
  /* clang-format on */
  .impl = &auto_impl,
};
