/* auto.c -- the automatic solver: picks one of the registered solvers by
 * the problem's features and hands it the solve (docs/solvers.md,
 * "auto").  The rule, first match:
 *
 *   cones, Coulomb law      nsgs_newton: NSGS sweeps, and the Alart-Curnier
 *                           Newton (dense LU up to 600 rows, else sparse UMFPACK)
 *                           when the sweeps stall; the fastest on the FC3D
 *                           sets at 1e-8 (experiments/README.md,
 *                           "Measurements: sparse Newton").  nsgs if A has a
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
 * storage); the next rule applies otherwise.  res->method names the
 * solver that ran and res->choice says why.  Every candidate's state is
 * allocated at init (the pivoting ones' only for n_max <= AUTO_PIVOT_MAX), so a
 * solve allocates no more than the chosen solver does.
 */
#include "slv_internal.h"

#include <stdlib.h>
#include <string.h>

extern const slv_solver slv_solver_admm, slv_solver_dantzig, slv_solver_lemke, slv_solver_nsgs,
    slv_solver_nsgs_newton, slv_solver_pgs, slv_solver_pgs_wide;

/* the candidates, in the order of auto_init's table */
enum {
  AUTO_NSGS_NEWTON,
  AUTO_NSGS,
  AUTO_ADMM,
  AUTO_PGS_WIDE,
  AUTO_PGS,
  AUTO_DANTZIG,
  AUTO_LEMKE,
  AUTO_NSUB
};
enum { AUTO_PIVOT_MAX = 300 };

typedef struct {
  const slv_solver *sub[AUTO_NSUB];
  void *state[AUTO_NSUB];
} auto_state;

static void auto_free(void *st) {
  auto_state *s = st;
  for (int k = 0; k < AUTO_NSUB; k++)
    if (s->state[k]) {
      s->sub[k]->impl->free(s->state[k]);
      free(s->state[k]);
    }
  memset(s, 0, sizeof *s);
}

static slv_status auto_init(void *st, int n_max, const slv_options *opt) {
  auto_state *s = st;
  const slv_solver *subs[AUTO_NSUB] = { &slv_solver_nsgs_newton, &slv_solver_nsgs,
                                        &slv_solver_admm,        &slv_solver_pgs_wide,
                                        &slv_solver_pgs,         &slv_solver_dantzig,
                                        &slv_solver_lemke };
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

/* Index of the solver to run, and why (into why). */
static int auto_choose(const auto_state *s, const slv_problem *p, char *why, size_t len) {
  char msg[160], refused[96] = ""; /* dantzig's refusal, for lemke's reason */
  int k_of[AUTO_NSUB];
  for (int k = 0; k < AUTO_NSUB; k++)
    k_of[k] = s->state[k] &&
              slv_solver_accepts(s->sub[k], p, k == AUTO_DANTZIG ? refused : msg,
                                 k == AUTO_DANTZIG ? sizeof refused : sizeof msg) == SLV_OK;
  const char *law = p->cone_law == SLV_CONE_COULOMB ? "Coulomb" : "associated";
  if (p->ncones > 0 && p->cone_law == SLV_CONE_COULOMB && k_of[AUTO_NSGS_NEWTON]) {
    slv_msgf(why, len, "%d Coulomb cones, n=%d: NSGS, then %s Newton when the sweeps stall",
             p->ncones, p->n, p->n > NSN_DENSE_MAX ? "sparse (UMFPACK)" : "dense");
    return AUTO_NSGS_NEWTON;
  }
  if (p->ncones > 0 && p->cone_law == SLV_CONE_ASSOCIATED && k_of[AUTO_ADMM]) {
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
  if (p->storage == SLV_FACTORED && k_of[AUTO_PGS_WIDE]) {
    slv_msgf(why, len, "factored (matrix-free) storage, n=%d: the wide PGS sweep", p->n);
    return AUTO_PGS_WIDE;
  }
  if (k_of[AUTO_DANTZIG]) {
    slv_msgf(why, len, "dense symmetric A, n=%d <= %d: exact principal pivoting", p->n,
             AUTO_PIVOT_MAX);
    return AUTO_DANTZIG;
  }
  if (p->storage == SLV_DENSE && k_of[AUTO_LEMKE]) {
    slv_msgf(why, len, "dense A, n=%d <= %d%s%s: lexicographic Lemke", p->n, AUTO_PIVOT_MAX,
             refused[0] ? ", dantzig refuses it: " : "", refused);
    return AUTO_LEMKE;
  }
  slv_msgf(why, len, "n=%d, %s storage%s: PGS", p->n,
           p->storage == SLV_CSR ? "CSR" : (p->storage == SLV_DENSE ? "dense" : "factored"),
           p->findex ? ", friction rows (findex)" : "");
  return AUTO_PGS;
}

static slv_status auto_solve(void *st, slv_op *op, const slv_options *opt, double *x, double *w,
                             slv_result *res, slv_hist *h) {
  auto_state *s = st;
  int k = auto_choose(s, op->p, res->choice, sizeof res->choice);
  res->method = s->sub[k]->name;
  return s->sub[k]->impl->solve(s->state[k], op, opt, x, w, res, h);
}

static const slv_impl auto_impl = {
  .state_size = sizeof(auto_state),
  .init = auto_init,
  .free = auto_free,
  .solve = auto_solve,
};

const slv_solver slv_solver_auto = {
  .name = "auto",
  .summary = "chooses a solver by the problem's features (cone law, storage, size, symmetry)",
  .cite = "acary2018",
  .caps = SLV_CAP_CONE | SLV_CAP_BOX | SLV_CAP_FREE | SLV_CAP_FINDEX | SLV_CAP_SPARSE |
          SLV_CAP_FACTORED,
  .impl = &auto_impl,
};
