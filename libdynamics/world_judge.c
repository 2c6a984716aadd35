/*
 * world_judge.c -- the judge stage of a world step (world_step.c's stage
 * "judge"): what is applied when the step's solve failed
 * (dyn_failure_policy, dyn_world.h; docs/dynamics.md, "The world step").
 *
 * A failed solve: any status but converged, except the budget stop
 * (max_iter after iterations > 0 and no pivot, finite res_nat_inf) of any
 * iterative solver: one rule for every solver (docs/dynamics.md, "Judging a failed
 * solve"), the normal mode of a fixed-budget simulation.  The solver's own
 * truncated iterate is applied, whatever the solver, so that a scene run
 * shows what the solver under test did with its budget: a Gauss-Seidel
 * sweep's x is a consistent set of sequential impulses (Catto 2005,
 * "Iterative dynamics with temporal coherence"), a gradient method's
 * (pjacobi cut short; apgd before its steps took the metric diag(A))
 * moves every row a fraction of the way and can let the pendulum's energy
 * grow by orders of magnitude (test_failure.c): that is the solver's own
 * result, reported as its own,
 * not carried by another solver's answer.  (Before issue 65 only the
 * Gauss-Seidel family -- pgs, pgs_wide, pgs_color, pgs_part, nsgs -- was
 * exempt and every other solver's budget stop was carried by the fallback,
 * so apgd was credited with direct's energy.)  A pivoting solver's max_iter
 * (its pivot limit: pivots > 0, or iterations 0) leaves no iterate of the
 * method and is judged; dantzig counts its boxed passes as iterations, so
 * the pivots tell it apart.  A time limit's stop (SLV_TIME_LIMIT) is a failed solve
 * like any other; an interrupted one (SLV_INTERRUPTED: the caller's cancel
 * callback) fails the step at once (DYN_ERR_INTERRUPTED), whatever the policy,
 * and so does a solver that wrote its read-only input (slv_result's
 * input_written: the step's arrays are no longer its problem, so neither
 * a fallback's answer nor any candidate can be judged on them;
 * DYN_ERR_NUMERIC, the message naming the array).
 *
 * The candidates, compared by the library's res_nat_inf (slv_residual):
 *   solver    the solver's x (only if its residual is finite);
 *   fallback  the fallback solve's x (FALLBACK only);
 *   warm      the start the solver got, when it was warm-started;
 *   zero      P(0) = mid(lo, hi, 0), the projection of 0 on the bounds
 *             rather than 0 itself: a row whose box excludes 0 (no scene
 *             row does, slv_problem allows it) would make x = 0 infeasible,
 *             a yardstick no solver could be blamed for missing; P(0) is
 *             where slv_solve starts without a warm start.  A findex row's
 *             bounds at P(0) are 0 .. 0 and a cone's apex 0 is in the cone,
 *             so both take 0.  When P(0) = 0, w = b exactly and its
 *             residual costs O(n): no product of A.
 *
 * The fallback chain (FALLBACK): the fallback solver (settings.fallback_solver;
 * else direct when the problem has equality rows only and the failed solver
 * was not direct, nsgs when it has Coulomb cones, pgs otherwise) is started from
 * the better of the solver's x and the warm start and given
 * fallback_max_iter iterations; then the best of the four candidates is
 * applied.  Why pgs: it takes every problem a scene writes (free, box,
 * findex and pyramid rows; dense, CSR and factored storage), it never
 * pivots (no singular pivot, no ray), and each of its sweeps minimises the
 * QP objective 1/2 x'Ax + b'x row by row, so from a good start it cannot
 * run away; nsgs is the same over contacts for the cone.  Why the final
 * pick: whatever the fallback does, the step never applies an impulse
 * worse than a candidate it had.
 *
 * The energy rule (docs/dynamics.md, "Judging a failed solve"): a budget
 * stop whose impulses would put the run's excess energy (gained beyond
 * gravity, loads, motors and springs, kept in w->excess) above the run's
 * drift scale is failed, its x never a candidate.  The candidate a failed
 * step would apply instead is judged by the same rule (judge_applied_energy)
 * unless it is the fallback's converged answer; one that breaks it fails
 * the step.
 *
 * The per-step energy bound (docs/dynamics.md, "The per-step energy
 * bound"; issue 80): every x that would be applied as the solver's
 * (converged, or a budget stop the energy rule passed) is judged in its
 * own step's scale: D, the kinetic energy its impulses add beyond the
 * stabilisation's work, is <= 0 for an exact answer, and D > tol S fails
 * the step (its x never a candidate), S the step's energy scale
 * (step_excess).  The candidate applied instead is judged by the energy
 * rule only.  The step's convergence floor (dyn_world_floor), which the
 * solve stage and the fallback give their workspaces, is here too.
 *
 * Both rules measure the impulses alone; the free motion's energy (the
 * integrator's) is judged after the integrate stage, in every step, rows or
 * none (world_judge_integrator.c), from the applied impulses' own gain kept
 * here (keep_excess: s->imp_gain).
 *
 * Nothing here allocates except the fallback's workspace, created at the
 * first failed step that needs it (and grown like the solver's).
 */
#include "dyn_assemble_internal.h"
#include "dyn_run.h"
#include "world_data.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- the energy rule ------------------------------------------------------------------ */

/* 1 iff joint row i is an energy source: a motor (both bounds finite: a
 * velocity target under a force cap) or a soft row (cfm > 0: a spring,
 * whose potential energy the world's energy does not hold). */
static int source_row(const dyn_world *w, int i) {
  const dyn_rows *r = &w->rows.p[i];
  return i < w->njrows && r->kind == DYN_ROW_PLAIN && r->findex < 0 &&
         ((isfinite(r->lo) && isfinite(r->hi)) || r->cfm > 0.0);
}

/* The sum below over rows 0..n-1, in its order, as a function of its own
 * (not inlined) so that the sum, h and g stay in registers: inlined into
 * the judge, the sum lived on the stack and every term waited on a store
 * and a load.  The rows' rhs from the assembly's compact copy
 * (dyn_system_energy_form), not from the 168-byte row records. */
__attribute__((noinline)) static double
rows_impulse_energy(int n, const double *x, const double *wv, const double *b, const double *rhs,
                    const dyn_velocity_form *vf, double h, dyn_v3 g) {
  const double *cfm = vf->cfm, *J = vf->J;
  const int *rbody = vf->rbody;
  double gain = 0.0;
  for (int i = 0; i < n; i++) {
    double xi = x[i];
    gain += xi * (b[i] + rhs[i]) + 0.5 * (xi * (wv[i] - b[i]) - cfm[i] * xi * xi);
    const double *Ji = J + 12 * (size_t)i;
    for (int k = 0; k < 2; k++) /* V's share of the impulse: -h g . J_lin x on each moving side */
      if (rbody[2 * i + k] >= 0)
        gain -= h * xi * (g.x * Ji[6 * k] + g.y * Ji[6 * k + 1] + g.z * Ji[6 * k + 2]);
  }
  return gain;
}

/* The energy the step's impulses x (with wv = A x + b) would add (before
 * their sources are taken off), predicted from the assembly's velocity form without
 * touching the bodies (docs/dynamics.md, "The energy rule"): the change
 * between the free velocities u_free and u+ = u_free + M^-1 J' x,
 *   T+ - T(u_free) = x'(b + rhs) + (x'(w - b) - sum cfm x^2) / 2
 *                    (b = J u_free - rhs, w - b = A x, A = J M^-1 J' + cfm),
 *   V+ - V(u_free) = -h g.(J_lin' x)        (symplectic Euler's V+ = V - h m g.v+).
 * One pass over the rows: the
 * free motion (gravity, loads, gyroscopic terms) is the integrator's, not
 * the solve's, and is left out. */
static double maximal_impulse_energy(const dyn_step *s, const double *x, const double *wv) {
  const dyn_world *w = s->w;
  dyn_velocity_form vf;
  dyn_energy_form ef;
  if (!dyn_system_velocity_form(s->sys, &vf) || vf.nb != w->nb || vf.nrows != w->nrows ||
      !dyn_system_energy_form(s->sys, &ef))
    return 0.0;
  return rows_impulse_energy(w->nrows, x, wv, w->prob.b, ef.rhs, &vf, s->h, s->g);
}

/* That gain less sum over source rows max(0, x rhs): in joint space for a world
 * in reduced coordinates (dyn_reduced_impulse_energy), else above; the gain
 * before the sources are taken off into *raw (the integrator's energy rule
 * takes it off the step's change: world_judge_integrator.c). */
static double energy_gain(const dyn_step *s, const double *x, const double *wv, double *raw) {
  const dyn_world *w = s->w;
  double gain = w->red ? dyn_reduced_impulse_energy(s, x) : maximal_impulse_energy(s, x, wv);
  double src = 0.0;
  for (int i = 0; i < w->njrows; i++)
    if (source_row(w, i)) src += fmax(0.0, x[i] * w->rows.p[i].rhs);
  *raw = gain;
  return gain - src;
}

/* The run's excess after this step if x is applied: the energy gained
 * beyond the sources since the start, never below 0; the impulses' own
 * gain into *raw (energy_gain). */
static double excess_after(const dyn_step *s, const double *x, const double *wv, double *raw) {
  double e = s->w->excess + energy_gain(s, x, wv, raw);
  if (!isfinite(e)) return INFINITY; /* an overflowed or NaN gain never passes the rule */
  return e > 0.0 ? e : 0.0;
}

/* The scale of the rule, set at the first step with a positive one: the
 * run's drift scale S = max(|E0|, M |g| D) (dyn_world_drift_scale). */
static void set_excess_scale(dyn_world *w) {
  if (w->excess_scale > 0.0) return;
  w->excess_scale = dyn_world_drift_scale(w, dyn_world_energy(w, NULL, NULL));
}

/* 1 iff applying the solver's budget stop would put the run's excess
 * above its scale: impulses that add more energy than the run's whole
 * scale beyond what gravity, loads, motors and springs gave it.  The
 * excess it measured goes to *after (NAN when the rule has no scale yet),
 * the impulses' own gain to *raw. */
static int energy_fails(const dyn_step *s, double *after, double *raw) {
  const dyn_world *w = s->w;
  *after = w->excess_scale > 0.0 ? excess_after(s, w->x.p, w->wv.p, raw) : NAN;
  return *after > w->excess_scale;
}

/* The excess kept for the next step, from the impulses applied in x, and
 * their own gain (s->imp_gain); after, raw: the solver's own x's excess and
 * gain when energy_fails measured them and x was applied unchanged (one
 * pass over the rows, not two), else NAN. */
static void keep_excess(dyn_step *s, double after, double raw) {
  dyn_world *w = s->w;
  if (s->verdict.applied == DYN_APPLIED_SOLVER && !isnan(after)) {
    w->excess = after;
    s->imp_gain = raw;
    return;
  }
  if (s->verdict.applied != DYN_APPLIED_SOLVER) slv_problem_w(&w->prob, w->x.p, w->wv.p);
  w->excess = excess_after(s, w->x.p, w->wv.p, &s->imp_gain);
}

double dyn_world_floor(const dyn_world *w, double h, dyn_v3 g) {
  double m = INFINITY;
  for (int i = 0; i < w->nb; i++) {
    const dyn_body_const *bc = &w->bodies.c[i];
    if (!bc->is_static && bc->mass > 0.0 && bc->mass < m) m = bc->mass;
  }
  double f = DYN_FLOOR_FACTOR * m * sqrt(dyn_v3_dot(g, g)) * h;
  return isfinite(f) ? f : 0.0; /* no moving body: none */
}

/* ---- the per-step energy bound ------------------------------------------------------ */

/* Row i's rhs and cfm: from the assembly's compact copies in maximal
 * coordinates (the contact rows' records may live in the ring only), from
 * the rows in reduced coordinates (every row kept). */
typedef struct {
  const double *rhs, *cfm;
} row_terms;

static int row_terms_of(const dyn_step *s, row_terms *t) {
  const dyn_world *w = s->w;
  dyn_velocity_form vf;
  dyn_energy_form ef;
  t->rhs = t->cfm = NULL;
  if (w->red) return 1;
  if (!dyn_system_velocity_form(s->sys, &vf) || vf.nrows != w->nrows ||
      !dyn_system_energy_form(s->sys, &ef))
    return 0;
  t->rhs = ef.rhs;
  t->cfm = vf.cfm;
  return 1;
}

/* The bound (docs/dynamics.md, "The per-step energy bound"): with
 * w = A x + b, A = J M^-1 J' + diag(cfm), b = J u_free - rhs, the kinetic
 * energy the impulses x add beyond the stabilisation's work x'rhs is
 *   D = T+ - T(u_free) - x'rhs = (x'(w + b) - sum cfm x^2) / 2
 *     = x'w - x'(J M^-1 J')x / 2 - sum cfm x^2  <=  x'w,
 * and x'w <= 0 row by row at an exact answer (x_i w_i <= 0 on every box,
 * findex and free row with lo <= 0 <= hi; -mu x_n |w_t| on a Coulomb cone),
 * so D <= 0 there.  Its scale S = T0 + sum |x_i| (|b_i| + |w_i - b_i| +
 * |rhs_i|): the bodies' kinetic energy at the step's start and the size of
 * each impulse's work against its row's free velocity, its own reaction and
 * its stabilisation target.  D into *excess, S into *scale (NaN, NaN when
 * the assembly left no velocity form). */
static void step_excess(const dyn_step *s, const double *x, const double *wv, double *excess,
                        double *scale) {
  const dyn_world *w = s->w;
  const double *b = w->prob.b;
  row_terms t;
  *excess = *scale = NAN;
  if (!row_terms_of(s, &t)) return;
  double d = 0.0, sc = 0.0;
  for (int i = 0; i < w->nrows; i++) {
    double rhs = t.rhs ? t.rhs[i] : w->rows.p[i].rhs, cfm = t.cfm ? t.cfm[i] : w->rows.p[i].cfm;
    double xi = x[i];
    d += xi * (wv[i] + b[i]) - cfm * xi * xi;
    sc += fabs(xi) * (fabs(b[i]) + fabs(wv[i] - b[i]) + fabs(rhs));
  }
  double T0 = 0.0;
  for (int k = 0; k < w->nb; k++) T0 += dyn_body_kinetic(&w->bodies.c[k], &w->bodies.s[k]);
  *excess = 0.5 * d;
  *scale = T0 + sc;
}

/* 1 iff the solver's x breaks the bound by more than the solve's tol
 * times the scale (an infinite excess always does); D and S into v. */
static int step_energy_fails(dyn_step *s) {
  dyn_step_verdict *v = &s->verdict;
  step_excess(s, s->w->x.p, s->w->wv.p, &v->excess, &v->excess_scale);
  if (isnan(v->excess_scale)) return 0; /* no velocity form: nothing to judge by */
  return !(v->excess <= s->opt.tol * v->excess_scale);
}

int dyn_solve_failed(const dyn_world *w, const slv_result *res) {
  (void)w; /* one rule for every solver and policy (header) */
  if (res->status == SLV_CONVERGED) return 0;
  int budget_stop = res->status == SLV_MAX_ITER && res->iterations > 0 && res->pivots == 0 &&
                    isfinite(res->res.res_nat_inf);
  return !budget_stop;
}

/* The candidates of a failed step: residuals (NaN = not a candidate). */
typedef struct candidates {
  double r[5]; /* indexed by dyn_applied: solver, fallback, warm, zero */
  int moved;   /* P(0) != 0 */
} candidates;

static void measure_candidates(dyn_step *s, candidates *c) {
  dyn_world *w = s->w;
  const slv_problem *p = &w->prob;
  for (int i = 0; i < 5; i++) c->r[i] = NAN;
  c->r[DYN_APPLIED_SOLVER] = s->res.res.res_nat_inf;
  if (s->opt.warm_start && w->set.on_failure != DYN_ON_FAILURE_KEEP)
    c->r[DYN_APPLIED_WARM] = slv_residual(p, w->xstart.p, NULL).res_nat_inf;
  c->moved = slv_start_point(p, w->xalt.p);
  c->r[DYN_APPLIED_ZERO] = slv_residual(p, w->xalt.p, c->moved ? NULL : p->b).res_nat_inf;
}

/* The fallback solver for this problem (the header): the settings' choice;
 * else direct on equality rows only when the failed solver was another (an
 * exact solve, where PGS's truncated sweeps on ill-conditioned joint rows can
 * lose to applying no impulse at all, and the joints then come apart); else
 * nsgs with cones, pgs without. */
static const slv_solver *fallback_solver(const dyn_world *w) {
  if (w->set.fallback_solver[0]) return slv_solver_find(w->set.fallback_solver);
  if (w->prob.ncones > 0) return slv_solver_find("nsgs");
  const slv_solver *direct = slv_solver_find("direct");
  char why[96];
  if (direct && w->solver != direct &&
      slv_solver_accepts(direct, &w->prob, why, sizeof why) == SLV_OK)
    return direct;
  return slv_solver_find("pgs");
}

/* The fallback solve into xalt, from the better of the solver's x and the
 * warm start; its residual into c (NaN if it refused or is not finite). */
static dyn_err run_fallback(dyn_step *s, candidates *c) {
  dyn_world *w = s->w;
  const slv_problem *p = &w->prob;
  const slv_solver *fs = fallback_solver(w);
  slv_options o = slv_options_default();
  o.max_iter = w->set.fallback_max_iter;
  o.tol = w->set.opt.tol;
  o.norm = w->set.opt.norm;
  o.seed = w->set.opt.seed;
  o.simd = w->set.opt.simd;
  o.log_fn = w->set.opt.log_fn; /* the same log callback, at the same level */
  o.log_level_fn = w->set.opt.log_level_fn;
  o.log_level = w->set.opt.log_level;
  o.log_ctx = w->set.opt.log_ctx;
  o.cancel = w->set.opt.cancel; /* the caller's stop, not its time limit: a short solve */
  o.cancel_ctx = w->set.opt.cancel_ctx;
  o.warm_start = 1;
  dyn_err e = dyn_world_reserve_solver(w, &w->fallback, fs, p->n, &o);
  if (e != DYN_OK) return e;
  slv_workspace_set_floor(w->fallback.ws, dyn_world_floor(w, s->h, s->g));
  double rx = c->r[DYN_APPLIED_SOLVER], rw = c->r[DYN_APPLIED_WARM];
  const double *from = isfinite(rx) && !(rw < rx) ? w->x.p : s->opt.warm_start ? w->xstart.p : NULL;
  if (from)
    memcpy(w->xalt.p, from, (size_t)p->n * sizeof *w->xalt.p);
  else
    slv_start_point(p, w->xalt.p);
  slv_result fr;
  slv_status st = slv_solve(w->fallback.ws, p, &o, w->xalt.p, NULL, &fr);
  s->verdict.fallback = fs;
  s->verdict.fallback_status = st;
  c->r[DYN_APPLIED_FALLBACK] = st < 0 ? NAN : fr.res.res_nat_inf;
  return DYN_OK;
}

/* The candidate with the smallest finite residual (ties: the earlier in
 * dyn_applied order), or NONE if none is finite. */
static dyn_applied best_candidate(const candidates *c) {
  dyn_applied best = DYN_APPLIED_NONE;
  for (int i = DYN_APPLIED_SOLVER; i <= DYN_APPLIED_ZERO; i++)
    if (isfinite(c->r[i]) && (best == DYN_APPLIED_NONE || c->r[i] < c->r[best]))
      best = (dyn_applied)i;
  return best;
}

/* Put candidate a into x (the solver's x kept in xsolver first). */
static void apply_candidate(dyn_step *s, dyn_applied a) {
  dyn_world *w = s->w;
  size_t bytes = (size_t)w->nrows * sizeof *w->x.p;
  if (a == DYN_APPLIED_SOLVER) return;
  memcpy(w->xsolver.p, w->x.p, bytes);
  w->last.x_solver = w->xsolver.p;
  if (a == DYN_APPLIED_FALLBACK)
    memcpy(w->x.p, w->xalt.p, bytes);
  else if (a == DYN_APPLIED_WARM)
    memcpy(w->x.p, w->xstart.p, bytes);
  else
    slv_start_point(&w->prob, w->x.p);
}

/* KEEP: the solver's x if finite and no worse than P(0), else the step
 * fails (the message names both residuals). */
static dyn_err judge_keep(dyn_step *s, const candidates *c) {
  dyn_world *w = s->w;
  double rx = c->r[DYN_APPLIED_SOLVER], r0 = c->r[DYN_APPLIED_ZERO];
  if (!isfinite(rx) || rx > r0)
    return dyn_world_fail(w, DYN_ERR_NUMERIC,
                          "step %ld: solver %s ended in %s with res_nat_inf %.2e, worse than "
                          "applying no impulse (res_nat_inf of x = %s: %.2e); impulses not "
                          "applied",
                          s->k, w->solver->name, slv_status_str(s->res.status), rx,
                          c->moved ? "P(0)" : "0", r0);
  return DYN_OK;
}

/* The energy rule on the candidate that a failed step would apply instead
 * of the solver's x (docs/dynamics.md, "Judging a failed solve"): the
 * fallback's converged answer is an exact solution of the step's problem
 * and, like any converged solve, not judged; the fallback's budget stop,
 * the warm start and P(0) are.  One that would put the run's excess above
 * its scale fails the step, naming both solvers and the rule: no answer at
 * hand carries the step without making energy, and applying it would hide
 * the growth (issue 62: apgd on humanoid100 reached 6.2e5 J through nsgs's
 * budget stops). */
static dyn_err judge_applied_energy(dyn_step *s) {
  dyn_world *w = s->w;
  dyn_step_verdict *v = &s->verdict;
  if (v->applied == DYN_APPLIED_FALLBACK && v->fallback_status == SLV_CONVERGED) return DYN_OK;
  slv_problem_w(&w->prob, w->x.p, w->wv.p);
  if (!(w->excess_scale > 0.0)) return DYN_OK;
  double raw, e = excess_after(s, w->x.p, w->wv.p, &raw);
  if (e <= w->excess_scale) return DYN_OK;
  char fb[80] = "no fallback ran";
  if (v->fallback)
    snprintf(fb, sizeof fb, "fallback %s ended in %s", v->fallback->name,
             slv_status_str(v->fallback_status));
  return dyn_world_fail(w, DYN_ERR_NUMERIC,
                        "step %ld: solver %s ended in %s%s, %s; the best candidate (%s) breaks "
                        "the energy rule: excess %.3g J > the run's scale %.3g J; impulses "
                        "not applied (failure policy %s)",
                        s->k, w->solver->name, slv_status_str(s->res.status),
                        v->energy ? " (energy rule)" : "", fb, dyn_applied_str(v->applied), e,
                        w->excess_scale, dyn_failure_policy_str(w->set.on_failure));
}

/* The policy's decision on a failed solve (the header's candidates). */
static dyn_err judge_failed(dyn_step *s) {
  dyn_world *w = s->w;
  dyn_step_verdict *v = &s->verdict;
  if (s->res.status == SLV_INTERRUPTED) /* the caller asked to stop: no fallback, no policy */
    return dyn_world_fail(w, DYN_ERR_INTERRUPTED,
                          "step %ld: solver %s interrupted by the cancel callback; impulses not "
                          "applied",
                          s->k, w->solver->name);
  if (s->res.input_written) /* the step's arrays are not its problem: no candidate can be judged */
    return dyn_world_fail(w, DYN_ERR_NUMERIC, "step %ld: %s; impulses not applied, no fallback",
                          s->k, s->res.message);
  if (v->step_energy &&
      (w->set.on_failure == DYN_ON_FAILURE_STOP || w->set.on_failure == DYN_ON_FAILURE_KEEP))
    return dyn_world_fail(w, DYN_ERR_NUMERIC,
                          "step %ld: solver %s ended in %s, and its impulses add %.3g J of "
                          "kinetic energy beyond the stabilisation's work, more than tol %.3g "
                          "times the step's scale %.3g J (the per-step energy bound); impulses "
                          "not applied (failure policy %s)",
                          s->k, w->solver->name, slv_status_str(s->res.status), v->excess,
                          s->opt.tol, v->excess_scale,
                          w->set.on_failure == DYN_ON_FAILURE_STOP ? "stop" : "keep");
  if (v->energy &&
      (w->set.on_failure == DYN_ON_FAILURE_STOP || w->set.on_failure == DYN_ON_FAILURE_KEEP))
    return dyn_world_fail(w, DYN_ERR_NUMERIC,
                          "step %ld: solver %s ended in %s, and its impulses would raise the "
                          "run's energy %.3g J beyond what gravity, loads, motors and springs "
                          "gave it (more than the run's scale %.3g J); impulses not applied "
                          "(failure policy %s)",
                          s->k, w->solver->name, slv_status_str(s->res.status),
                          excess_after(s, w->x.p, w->wv.p, &(double){ 0.0 }), w->excess_scale,
                          w->set.on_failure == DYN_ON_FAILURE_STOP ? "stop" : "keep");
  if (w->set.on_failure == DYN_ON_FAILURE_STOP)
    return dyn_world_fail(w, DYN_ERR_NUMERIC,
                          "step %ld: solver %s ended in %s with res_nat_inf %.2e; impulses not "
                          "applied (failure policy stop)",
                          s->k, w->solver->name, slv_status_str(s->res.status),
                          s->res.res.res_nat_inf);
  candidates c;
  measure_candidates(s, &c);
  if (v->energy || v->step_energy)
    c.r[DYN_APPLIED_SOLVER] = NAN; /* never applied, whatever its residual */
  if (w->set.on_failure == DYN_ON_FAILURE_KEEP) return judge_keep(s, &c);
  dyn_err e;
  if (w->set.on_failure == DYN_ON_FAILURE_FALLBACK && (e = run_fallback(s, &c)) != DYN_OK) return e;
  dyn_applied a = best_candidate(&c);
  if (a == DYN_APPLIED_NONE)
    return dyn_world_fail(w, DYN_ERR_NUMERIC,
                          "step %ld: solver %s ended in %s and no "
                          "candidate impulse is finite; impulses not applied",
                          s->k, w->solver->name, slv_status_str(s->res.status));
  apply_candidate(s, a);
  v->applied = a;
  v->res_applied = c.r[a];
  return judge_applied_energy(s);
}

dyn_err dyn_stage_judge(dyn_step *s) {
  dyn_world *w = s->w;
  dyn_step_verdict *v = &s->verdict;
  if (w->nrows == 0) return DYN_OK;
  set_excess_scale(w);
  v->applied = DYN_APPLIED_SOLVER;
  v->res_applied = s->res.res.res_nat_inf;
  v->failed = dyn_solve_failed(w, &s->res);
  double after = NAN, raw = NAN;
  if (!v->failed && s->res.status == SLV_MAX_ITER && energy_fails(s, &after, &raw))
    v->failed = v->energy = 1;
  v->excess = v->excess_scale = 0.0;
  if (!v->failed && step_energy_fails(s)) v->failed = v->step_energy = 1;
  w->last.failed = v->failed;
  dyn_err e = v->failed ? judge_failed(s) : DYN_OK;
  if (e == DYN_OK) keep_excess(s, v->failed ? NAN : after, raw);
  return e;
}
