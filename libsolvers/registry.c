/* registry.c -- the solvers, by name.
 *
 * One static const NULL-terminated table of the built-in solvers: no
 * constructor-time self-registration (global state, and static linking can
 * drop it).  Adding a built-in solver takes its .c file, one line here, one
 * line in Makefile.am and a test.  Solvers registered at run time (plugins,
 * Python callables) follow the built-in ones in slv_solver_at's order and
 * live in register.c's table (docs/plugins.md).  Also: what a solver accepts (slv_solver_accepts), checked by
 * slv_solve before dispatch.
 */
#include "slv_internal.h"
#include "par.h"

#include <string.h>

extern const slv_solver slv_solver_admm;
extern const slv_solver slv_solver_auto;
extern const slv_solver slv_solver_apgd;
extern const slv_solver slv_solver_dantzig;
extern const slv_solver slv_solver_direct;
extern const slv_solver slv_solver_enum;
extern const slv_solver slv_solver_ipm;
extern const slv_solver slv_solver_lemke;
extern const slv_solver slv_solver_nsgs;
extern const slv_solver slv_solver_nsgs_newton;
extern const slv_solver slv_solver_nsn_ac;
extern const slv_solver slv_solver_pcg_cone;
extern const slv_solver slv_solver_pgs;
extern const slv_solver slv_solver_pgs_color;
extern const slv_solver slv_solver_pgs_part;
extern const slv_solver slv_solver_pgs_wide;
extern const slv_solver slv_solver_pjacobi;
extern const slv_solver slv_solver_pjacobi_cone;
extern const slv_solver slv_solver_ppa_nsn;

static const slv_solver *const registry[] = {
  &slv_solver_pgs,
  &slv_solver_pgs_wide,
  &slv_solver_pgs_color,
  &slv_solver_pgs_part,
  &slv_solver_pjacobi,
  &slv_solver_direct,
  &slv_solver_lemke,
  &slv_solver_dantzig,
  &slv_solver_enum,
  &slv_solver_nsgs,
  &slv_solver_nsgs_newton,
  &slv_solver_nsn_ac,
  &slv_solver_ppa_nsn, /* nsn_ac's Newton inside a proximal point */
  &slv_solver_pjacobi_cone,
  &slv_solver_pcg_cone,
  &slv_solver_apgd,
  &slv_solver_admm,
  &slv_solver_ipm,
  &slv_solver_auto,
  NULL,
};

/* The solvers whose sweeps stop at slv_solve_paused's pauses (pgs.c,
 * pgs_lanes.c: slv_pause_due). */
int slv_solver_takes_pauses(const slv_solver *s) {
  return s == &slv_solver_pgs || s == &slv_solver_pgs_wide;
}

int slv_solver_count_builtin(void) {
  int k = 0;
  while (registry[k]) k++;
  return k;
}

const slv_solver *slv_solver_builtin_at(int i) {
  return i >= 0 && i < slv_solver_count_builtin() ? registry[i] : NULL;
}

/* The built-in solvers, then the registered ones (register.c). */
int slv_solver_count(void) { return slv_solver_count_builtin() + slv_registered_count(); }

const slv_solver *slv_solver_at(int i) {
  int nb = slv_solver_count_builtin();
  return i < nb ? slv_solver_builtin_at(i) : slv_registered_at(i - nb);
}

const slv_solver *slv_solver_find(const char *name) {
  if (!name) return NULL;
  for (int k = 0; registry[k]; k++)
    if (strcmp(registry[k]->name, name) == 0) return registry[k];
  for (int k = 0, n = slv_registered_count(); k < n; k++)
    if (strcmp(slv_registered_at(k)->name, name) == 0) return slv_registered_at(k);
  return NULL;
}

void slv_solver_caps_str(const slv_solver *s, char *buf, size_t len) {
  unsigned c = s->caps;
  slv_msgf(buf, len, "%s%s%s%s%s%s%s%s", (c & SLV_CAP_ONLY_FREE) ? "equality-rows-only" : "lcp",
           (c & SLV_CAP_BOX) ? " box" : "",
           ((c & SLV_CAP_FREE) && !(c & SLV_CAP_ONLY_FREE)) ? " free" : "",
           (c & SLV_CAP_FINDEX) ? " findex" : "", (c & SLV_CAP_CONE) ? " cone" : "", " dense",
           (c & SLV_CAP_SPARSE)    ? " csr"
           : (c & SLV_CAP_DENSIFY) ? " csr-as-dense"
                                   : "",
           (c & SLV_CAP_FACTORED) ? " factored" : "");
}

/* Rows [i0, i1) against the solver's row kinds (free, box, findex,
 * equality only); cone rows are their cones' business.  The first row
 * refused names itself in msg. */
static slv_status rows_accepted(const slv_solver *s, const slv_problem *p, int i0, int i1,
                                char *msg, size_t len) {
  unsigned c = s->caps;
  const unsigned every_kind = SLV_CAP_BOX | SLV_CAP_FREE | SLV_CAP_FINDEX;
  /* a solver of every row kind (box, free, findex) refuses no row,
   * whatever its bounds (the loop below would accept each): no pass */
  if ((c & every_kind) == every_kind && !(c & SLV_CAP_ONLY_FREE)) return SLV_OK;
  int cone = 0; /* cones are sorted and disjoint (validated): walk them with i */
  for (int i = i0; i < i1; i++) {
    while (cone < p->ncones && p->cone_rows[cone] + 2 < i) cone++;
    if (cone < p->ncones && p->cone_rows[cone] <= i) continue; /* the cone is its constraint */
    int fr = p->findex && p->findex[i] >= 0;
    double lo = slv_lo_of(p, i), hi = slv_hi_of(p, i);
    if (c & SLV_CAP_ONLY_FREE) {
      if (fr || lo != -INFINITY || hi != INFINITY) {
        slv_msgf(msg, len, "%s solves only equality rows (lo=-inf, hi=inf); row %d has %s", s->name,
                 i, fr ? "a findex" : (lo != -INFINITY ? "a finite lo" : "a finite hi"));
        return SLV_ERR_UNSUPPORTED;
      }
      continue;
    }
    if (fr) {
      if (!(c & SLV_CAP_FINDEX)) {
        slv_msgf(msg, len, "%s does not handle findex friction rows (row %d has findex %d)",
                 s->name, i, p->findex[i]);
        return SLV_ERR_UNSUPPORTED;
      }
      continue;
    }
    if (lo == -INFINITY && hi == INFINITY) {
      if (!(c & SLV_CAP_FREE)) {
        slv_msgf(msg, len, "%s does not handle free rows (row %d has lo=-inf, hi=inf)", s->name, i);
        return SLV_ERR_UNSUPPORTED;
      }
    } else if (!(lo == 0 && hi == INFINITY) && !(c & SLV_CAP_BOX)) {
      slv_msgf(msg, len, "%s solves only lo=0, hi=inf rows; row %d has lo=%g, hi=%g", s->name, i,
               lo, hi);
      return SLV_ERR_UNSUPPORTED;
    }
  }
  return SLV_OK;
}

slv_status slv_solver_accepts(const slv_solver *s, const slv_problem *p, char *msg, size_t len) {
  return slv_solver_accepts_threads(s, p, 1, msg, len);
}

slv_status slv_solver_accepts_threads(const slv_solver *s, const slv_problem *p, int threads,
                                      char *msg, size_t len) {
  return slv_solver_accepts_pos(s, p, threads, 0, NULL, msg, len);
}

slv_status slv_solver_accepts_pos(const slv_solver *s, const slv_problem *p, int threads,
                                  int diag_pos, const slv_scan *sc, char *msg, size_t len) {
  unsigned c = s->caps;
  if (msg && len > 0) msg[0] = 0;
  if (s->max_n > 0 && p->n > s->max_n) {
    slv_msgf(msg, len, "%s takes n <= %d, an implementation limit (n=%d)", s->name, s->max_n, p->n);
    return SLV_ERR_UNSUPPORTED;
  }
  if (p->storage == SLV_FACTORED && !(c & SLV_CAP_FACTORED)) {
    slv_msgf(msg, len,
             "%s needs an explicit A (dense%s), an implementation limit: the problem is "
             "factored (matrix-free)",
             s->name, (c & SLV_CAP_SPARSE) ? " or CSR" : "");
    return SLV_ERR_UNSUPPORTED;
  }
  double dense_bytes = 8.0 * (double)p->n * (double)p->n;
  if (p->storage == SLV_CSR && !(c & SLV_CAP_SPARSE) &&
      (!(c & SLV_CAP_DENSIFY) || dense_bytes > SLV_DENSIFY_MAX_BYTES)) {
    if (c & SLV_CAP_DENSIFY)
      slv_msgf(msg, len,
               "%s needs dense storage: the CSR problem would take %.0f MB dense, over the %.0f "
               "MB copy, an implementation limit",
               s->name, dense_bytes / 1048576.0, SLV_DENSIFY_MAX_BYTES / 1048576.0);
    else
      slv_msgf(msg, len, "%s needs dense storage (the problem is CSR), an implementation limit",
               s->name);
    return SLV_ERR_UNSUPPORTED;
  }
  if (p->ncones > 0 && !(c & SLV_CAP_CONE)) {
    slv_msgf(msg, len, "%s does not handle Coulomb cones (%d cones)", s->name, p->ncones);
    return SLV_ERR_UNSUPPORTED;
  }
  int nt = slv_par_threads(threads, p->n), all = 1;
  if (nt > 1) { /* a yes or no per range; on a no, the message from one thread */
    int ok[SLV_THREADS_MAX];
#pragma omp parallel for num_threads(nt) schedule(static)
    for (int v = 0; v < nt; v++)
      ok[v] = rows_accepted(s, p, (int)((long long)p->n * v / nt),
                            (int)((long long)p->n * (v + 1) / nt), NULL, 0) == SLV_OK;
    for (int v = 0; v < nt; v++) all = all && ok[v];
  }
  slv_status st = nt > 1 && all ? SLV_OK : rows_accepted(s, p, 0, p->n, msg, len);
  if (st) return st;
  if (c & SLV_CAP_NEEDS_SYMMETRIC) {
    int i, j;
    int sym = slv_scan_of(sc, p) ? slv_scan_symmetric(sc, 1e-12) : -1;
    if (sym == 0) slv_is_symmetric(p, 1e-12, &i, &j); /* the pair, for the message */
    if (sym == 0 || (sym < 0 && !slv_is_symmetric_threads(p, 1e-12, &i, &j, threads))) {
      slv_msgf(msg, len, "%s needs a symmetric A; A(%d,%d) != A(%d,%d)", s->name, i, j, j, i);
      return SLV_ERR_UNSUPPORTED;
    }
  }
  if ((c & SLV_CAP_NEEDS_POS_DIAG) && !diag_pos && !slv_diag_positive(p, threads))
    for (int i = 0; i < p->n; i++) { /* the first one, for the message */
      double d = slv_diag(p, i);
      if (!(d > 0)) {
        slv_msgf(msg, len, "%s needs A(i,i) > 0; A(%d,%d)=%g", s->name, i, i, d);
        return SLV_ERR_UNSUPPORTED;
      }
    }
  return SLV_OK;
}
