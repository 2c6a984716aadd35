/*
 * world_step.c -- dyn_world_step: one step of a world as a pipeline of
 * named stages over a step context (dyn_step, world_internal.h), after
 * Box2D v3's b2SolverStage / b2StepContext.  docs/dynamics.md, "The world
 * step", derives each stage; in short, for state s = (r, q), u = (v, w)
 * (world frame, dyn.h), h = settings.dt, g the gravity and
 * f = (f_ext + m g, t_ext):
 *
 *   prepare     r, q, v, w saved (a failed step restores them); Verlet
 *               only: s <- s + h/2 S(u) (half drift); the gyroscopic term
 *               on w (integrate.c's dyn_body_update_gyro: the velocity
 *               update with zero loads): w <- w + dw_gyro(w), before the
 *               solve, as dyn_constraint.h asks
 *   collide     the contacts of s (collision_pass.c)
 *   build rows  joint rows first (dyn_joint_fill), then contact rows
 *               (dyn_contact_fill_material: settings.contact with each
 *               contact's material); the assembly begun here and each
 *               few contacts' rows passed as soon as written (begin_pass:
 *               not for CSR storage nor reduced coordinates)
 *   assemble    w = A x + b,  A = J M^-1 J^T + cfm,  b = J (u + h M^-1 f)
 *               - rhs (dyn_assemble, or its end after that pass) in the
 *               storage of world_storage.c; x = the warm start (warmstart.c)
 *   solve       slv_solve with the named solver
 *   judge       a failed solve: the failure policy (world_judge.c)
 *   apply       u+ = u + M^-1 (J^T x + h f) (dyn_apply_impulse; a step
 *               without rows: u + h M^-1 f); the warm-start cache keeps x
 *   integrate   symplectic Euler  s+ = s + h S(u+)
 *               explicit Euler    s+ = s + h S(u)   (u before prepare)
 *               Verlet            s+ = s' + h/2 S(u+)
 *               where S(u) advances r by v and q by w (exponential map or
 *               the linear L(q) form, settings.orient)
 *   metrics     the step's record (dyn_world_metrics)
 *
 * Without contacts or joints this is dyn_body_step_free (integrate.c) for
 * every body, up to the order of the floating-point additions.  Energy
 * (metrics): T = sum m |v|^2/2 + w.(I_w w)/2, V = -sum m g.r.  Joint error:
 * max over joints of dyn_joint_anchor_error after the position update, the
 * drift the next step's Baumgarte term (erp / h) Phi corrects.
 *
 * Errors: a stage that fails ends the step with its dyn_err and a message
 * naming the step; the bodies are restored to their state before the step,
 * the step count and time do not advance, and the step's problem is
 * dropped (dyn_world_last_problem gives n = 0) while the warm-start
 * impulses of the last successful step are kept.
 *
 * Solve: on a dense problem of two or more contact islands (rows that
 * share no moving body or tree), when settings.islands asks, each island
 * alone (world_islands.c).
 *
 * Limitations: no sleeping; the gyroscopic update precedes the
 * contact solve (so a contact impulse does not enter the implicit
 * gyroscopic Newton step).
 */
#define _POSIX_C_SOURCE 200809L

#include "dyn_assemble_internal.h"
#include "world_data.h"
#include "world_reduced.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}


/* The pipeline: one named function per stage, run in this order. */
static const struct {
  const char *name;
  dyn_stage_fn run;
} pipeline[DYN_WORLD_STAGES] = {
  { "prepare", dyn_stage_prepare },       { "collide", dyn_stage_collide },
  { "build rows", dyn_stage_build_rows }, { "assemble", dyn_stage_assemble },
  { "solve", dyn_stage_solve },           { "judge", dyn_stage_judge },
  { "apply", dyn_stage_apply },           { "integrate", dyn_stage_integrate },
  { "metrics", dyn_stage_metrics },
};

const char *dyn_world_stage_name(int i) {
  return i >= 0 && i < DYN_WORLD_STAGES ? pipeline[i].name : NULL;
}

/* ---- prepare ------------------------------------------------------------------------- */

/* The threads of the step's loops over n items (dyn_internal.h). */
static int step_threads(const dyn_world *w, long n) {
  return dyn_par_threads(w->set.opt.threads, n);
}

static void restore_state(dyn_world *w) {
  for (int i = 0; i < w->nb; i++)
    dyn_body_set_state(&w->bodies.s[i], w->saved.p + DYN_BODY_STATE * (size_t)i);
}

/* Each body's state saved (a failed step restores it), then, Verlet only,
 * its half drift, then its w advanced by the gyroscopic term alone
 * (dyn_body_update_gyro: the velocity update with no load and no gravity
 * changes w by dw_gyro only): one pass over the bodies, each alone. */
dyn_err dyn_stage_prepare(dyn_step *s) {
  dyn_world *w = s->w;
  const dyn_world_settings *S = &w->set;
  const int verlet = S->integrator == DYN_INT_VERLET;
  w->have_prob = 0;
  w->have_solve = 0;
#pragma omp parallel for num_threads(step_threads(w, w->nb)) schedule(static)
  for (int i = 0; i < w->nb; i++) {
    dyn_body_state *b = &w->bodies.s[i];
    const dyn_body_const *bc = &w->bodies.c[i];
    dyn_body_get_state(b, w->saved.p + DYN_BODY_STATE * (size_t)i);
    if (verlet) dyn_body_update_position(bc, b, 0.5 * s->h, S->orient);
    if (S->gyro != DYN_GYRO_NONE) dyn_body_update_gyro(bc, b, s->h, S->gyro);
  }
  return DYN_OK;
}

/* ---- collide ------------------------------------------------------------------------- */

dyn_err dyn_stage_collide(dyn_step *s) {
  dyn_world *w = s->w;
  dyn_collide_in in = dyn_world_collide_in(w, w->set.contact_order == DYN_ORDER_TOP_DOWN);
  dyn_err e = dyn_collision_pass(&w->col, w->bodies, w->nsr, &in, 0, &s->nc, &s->maxpen, w->msg,
                                 sizeof w->msg, &w->grows);
  if (e != DYN_OK) {
    size_t l = strlen(w->msg);
    snprintf(w->msg + l, sizeof w->msg - l, " (step %ld)", s->k);
    return e;
  }
  w->nc = s->nc;
  return DYN_OK;
}

/* ---- build rows ---------------------------------------------------------------------- */

/* The joint rows from row 0 (room reserved by the caller). */
static dyn_err fill_joint_rows(dyn_step *s) {
  dyn_world *w = s->w;
  int jr = 0;
  for (int j = 0; j < w->nj; j++) {
    int r = dyn_joint_fill(w->bodies, w->nb, &w->joints.p[j], s->h, w->rows.p, jr);
    if (r < 0) {
      char jm[200] = "";
      dyn_joint_validate(&w->joints.p[j], w->nb, jm, sizeof jm);
      return dyn_world_fail(w, DYN_ERR_INPUT,
                            "step %ld: joint %d between bodies %d and %d "
                            "rejected by the rows code: %s",
                            s->k, j, w->joints.p[j].a, w->joints.p[j].b,
                            jm[0] ? jm : "a non-finite pose");
    }
    w->jcnt.p[j] = r;
    jr += r;
  }
  w->njrows = jr;
  return DYN_OK;
}

/* Contact c's tangents t1, t2 (its rows 1 and 2, just written) into tan. */
static void keep_tangents(const dyn_rows *row, double *tan) {
  dyn_v3 t1 = dyn_row_dir(row + 1), t2 = dyn_row_dir(row + 2);
  tan[0] = t1.x, tan[1] = t1.y, tan[2] = t1.z, tan[3] = t2.x, tan[4] = t2.y, tan[5] = t2.z;
}

/* The system of the step's storage reserved for w->nrows rows, with
 * room for the threads' counts (the assemble stage, or begin_pass). */
static dyn_err reserve_system(dyn_step *s) {
  dyn_world *w = s->w;
  dyn_err e = dyn_world_reserve_system(w, s->storage, &s->sys);
  if (e == DYN_OK && dyn_system_threads_reserve(s->sys, w->set.opt.threads) != DYN_OK)
    e = dyn_world_fail(w, DYN_ERR_NOMEM, "step %ld: %s", s->k, dyn_system_message(s->sys));
  return e;
}

/* Contacts whose rows are written, then passed together (16 contacts of
 * three rows: 8 KB of records, in the first-level cache). */
enum { PASS_CONTACTS = 16 };

/* The assembly begun before the contact rows are written, so that each
 * few contacts' rows are passed (dyn_assemble_pass) just written, in the
 * caches, not read back from memory by the assemble stage: the storage
 * and system (reserve_system), the bodies' blocks (dyn_assemble_begin)
 * and the joint rows' pass; s->passed = 1.  Not for CSR storage, whose
 * capacity is counted from the rows, nor in reduced coordinates (whose
 * rows move after this stage), nor when any of it fails: the assemble
 * stage then does it all and reports the failure.  In factored storage
 * with friction box or none (no cones, no auxiliary rows) nothing reads
 * the contact rows' records after their pass (the coarse correction
 * reads the assembly's arrays), so they are written into a ring of
 * PASS_CONTACTS contacts a thread (w->ring; s->ring = 1), not into
 * w->rows: 4 MB a step fewer written on the pile of 3000. */
static void begin_pass(dyn_step *s) {
  dyn_world *w = s->w;
  dyn_friction f = w->set.contact.friction;
  s->passed = s->ring = 0;
  s->bad_msg[0] = '\0';
  if (w->red || w->nrows == 0 || dyn_world_pick_storage(w, &s->storage) != DYN_OK ||
      s->storage == SLV_CSR || reserve_system(s) != DYN_OK ||
      dyn_assemble_begin(s->sys, w->bodies, w->nb, w->rows.p, w->nrows, s->h, s->g, s->storage) !=
          DYN_OK)
    return;
  s->ring =
      s->storage == SLV_FACTORED && (f == DYN_FRICTION_BOX || f == DYN_FRICTION_NONE) &&
      dyn_buf_reserve(&w->ring, (size_t)step_threads(w, s->nc) * PASS_CONTACTS * (size_t)w->rpc,
                      &w->grows) == 0;
  s->pass = dyn_assemble_pass(s->sys, w->rows.p, w->nrows, w->nb, 0, w->njrows, NULL, 0);
  s->passed = 1;
}

/* Contact c's rows into o[0 ..] (dyn_contact_fill_checked when the
 * parameters are valid) and, box and cone friction, its tangents; 1 iff
 * the rows code took it. */
static int contact_rows(dyn_step *s, int c, int checked, dyn_rows *o) {
  dyn_world *w = s->w;
  const dyn_contact *cc = &w->col.con.p[c];
  int row0 = w->njrows + c * w->rpc;
  /* unchecked: parameters that do not validate, which dyn_contact_fill_material refuses */
  int r = checked ? dyn_contact_fill_checked(w->bodies, w->nb, cc, &w->set.contact, s->h, o, row0)
                  : DYN_ERR_INPUT;
  if (r != w->rpc) return 0;
  if (dyn_has_tangent_rows(w->set.contact.friction))
    keep_tangents(o, w->warm.tan_step.p + 6 * (size_t)c);
  return 1;
}

/* The contacts [c0, c1), PASS_CONTACTS at a time: their rows written
 * (into ring, s->ring, else w->rows), then (s->passed) passed; *first
 * the first one the rows code rejects (the rest are written, none
 * passed), else s->nc. */
static dyn_row_pass contacts_run(dyn_step *s, int c0, int c1, int checked, dyn_rows *ring,
                                 int *first) {
  dyn_world *w = s->w;
  dyn_row_pass p = { w->nrows, w->nrows, 0, 0 };
  int bad = s->nc; /* in a local: first[] is every thread's */
  for (; c0 < c1; c0 += PASS_CONTACTS) {
    const int ce = c0 + PASS_CONTACTS < c1 ? c0 + PASS_CONTACTS : c1, i0 = w->njrows + c0 * w->rpc;
    dyn_rows *o = s->ring ? ring : w->rows.p + i0;
    for (int c = c0; c < ce; c++)
      if (!contact_rows(s, c, checked, o + (size_t)(c - c0) * w->rpc) && bad == s->nc) bad = c;
    if (s->passed && bad == s->nc)
      dyn_row_pass_join(
          &p, dyn_assemble_pass(s->sys, o, w->nrows, w->nb, i0, w->njrows + ce * w->rpc, NULL, 0));
  }
  *first = bad;
  return p;
}

/* A contact row the pass refused, when its record is not kept (s->ring):
 * its contact's rows written again and passed again for the message. */
static void refused_message(dyn_step *s, int checked) {
  dyn_world *w = s->w;
  int c = (s->pass.bad_row - w->njrows) / w->rpc, i0 = w->njrows + c * w->rpc;
  contact_rows(s, c, checked, w->ring.p);
  dyn_assemble_pass(s->sys, w->ring.p, w->nrows, w->nb, i0, i0 + w->rpc, s->bad_msg,
                    sizeof s->bad_msg);
}

/* The contact rows after the joint rows, each contact's alone, with (box
 * and cone friction) its tangents for the warm start and (s->passed) the
 * rows' pass; a contact the rows code rejects fails the step at the first
 * one. */
static dyn_err fill_contact_rows(dyn_step *s) {
  dyn_world *w = s->w;
  int T = step_threads(w, s->nc), first[DYN_PAR_MAX];
  int checked = dyn_contact_params_validate(&w->set.contact, NULL, 0) == DYN_OK;
  dyn_row_pass run[DYN_PAR_MAX];
#pragma omp parallel for num_threads(T) schedule(static, 1)
  for (int t = 0; t < T; t++)
    run[t] = contacts_run(
        s, (int)dyn_par_cut(s->nc, t, T), (int)dyn_par_cut(s->nc, t + 1, T), checked,
        s->ring ? w->ring.p + (size_t)t * PASS_CONTACTS * (size_t)w->rpc : NULL, &first[t]);
  for (int t = 0; s->passed && t < T; t++) dyn_row_pass_join(&s->pass, run[t]);
  int bad = dyn_par_least(first, T, s->nc);
  if (bad == s->nc) {
    if (s->ring && s->pass.bad_row >= w->njrows && s->pass.bad_row < w->nrows)
      refused_message(s, checked);
    return DYN_OK;
  }
  const dyn_contact *cc = &w->col.con.p[bad];
  return dyn_world_fail(w, DYN_ERR_INPUT,
                        "step %ld: contact %d between bodies %d and %d "
                        "rejected by the rows code (|normal| = %.17g, depth = %g)",
                        s->k, bad, cc->a, cc->b, dyn_v3_norm(cc->normal), cc->depth);
}

dyn_err dyn_stage_build_rows(dyn_step *s) {
  dyn_world *w = s->w;
  size_t jmax = 0;
  for (int j = 0; j < w->nj; j++) {
    int mr = dyn_joint_max_rows(&w->joints.p[j]);
    if (mr <= 0) {
      char jm[200] = "";
      dyn_joint_validate(&w->joints.p[j], w->nb, jm, sizeof jm);
      return dyn_world_fail(w, DYN_ERR_INPUT, "step %ld: joint %d: %s", s->k, j,
                            jm[0] ? jm : "invalid");
    }
    jmax += (size_t)mr;
  }
  size_t nrows = jmax + (size_t)s->nc * (size_t)w->rpc;
  if (nrows > (size_t)INT32_MAX / 2)
    return dyn_world_fail(w, DYN_ERR_NOMEM, "step %ld: %zu rows are too many", s->k, nrows);
  dyn_err e = dyn_world_reserve_rows(w, nrows);
  if (e == DYN_OK && dyn_has_tangent_rows(w->set.contact.friction) &&
      !dyn_warm_step_tangents(&w->warm, s->nc, &w->grows))
    e = dyn_world_fail(w, DYN_ERR_NOMEM, "step %ld: out of memory for %d contacts", s->k, s->nc);
  if (e == DYN_OK) e = fill_joint_rows(s);
  if (e != DYN_OK) return e;
  w->nrows = w->njrows + s->nc * w->rpc;
  begin_pass(s);
  return fill_contact_rows(s);
}

/* ---- assemble ------------------------------------------------------------------------ */

dyn_warm_rows dyn_world_warm_rows(const dyn_world *w) {
  dyn_warm_rows r = {
    w->col.con.p, w->nc,     w->warm.tan_step.p, w->rpc, w->set.contact.friction, w->jcnt.p,
    w->nj,        w->njrows, w->set.opt.threads
  };
  return r;
}

dyn_err dyn_stage_assemble(dyn_step *s) {
  dyn_world *w = s->w;
  if (w->nrows == 0) return DYN_OK;
  dyn_err e = DYN_OK;
  if (!s->passed && (e = dyn_world_pick_storage(w, &s->storage)) == DYN_OK) e = reserve_system(s);
  if (e == DYN_OK) e = dyn_world_reserve_solver(w, &w->main, w->solver, w->nrows, &w->set.opt);
  if (e != DYN_OK) return e;
  e = s->passed ? dyn_assemble_end(s->sys, w->rows.p, w->nrows, w->nb, s->storage, s->pass,
                                   s->bad_msg[0] ? s->bad_msg : NULL, &w->prob)
                : dyn_assemble(s->sys, w->bodies, w->nb, w->rows.p, w->nrows, s->h, s->g,
                               s->storage, &w->prob);
  if (e != DYN_OK)
    return dyn_world_fail(w, e, "step %ld: assembly: %s", s->k, dyn_system_message(s->sys));
  w->prob.cone_law = w->set.cone_law;
  dyn_warm_rows r = dyn_world_warm_rows(w);
  if (w->set.warm_start)
    dyn_warm_fill(&w->warm, &r, w->set.warm_factor, w->x.p);
  else
    memset(w->x.p, 0, (size_t)w->nrows * sizeof *w->x.p);
  return DYN_OK;
}

/* ---- solve --------------------------------------------------------------------------- */

/* 1 iff s sweeps the rows one by one in Gauss-Seidel order over box or no
 * friction (pgs and its variants): the solvers the rounds apply to. */
static int takes_coarse_rounds(const slv_solver *s) {
  return strcmp(s->name, "pgs") == 0 || strcmp(s->name, "pgs_wide") == 0 ||
         strcmp(s->name, "pgs_color") == 0 || strcmp(s->name, "pgs_part") == 0;
}

/* The rounds of this step's solve (docs/dynamics.md, "Coarse
 * correction"): settings.coarse_corrections + 1 for a Gauss-Seidel solver
 * (not nsgs) on friction box or none, when the step's stack is deep
 * (dyn_coarse_deep: its contact levels more than 3/4 of the sweeps),
 * else 1.  Only then are the interfaces prepared for the corrections.
 * Errors: DYN_ERR_NOMEM. */
static dyn_err solve_rounds(dyn_step *s, const dyn_coarse_in *in, int *rounds) {
  dyn_world *w = s->w;
  int r = w->set.coarse_corrections + 1, levels = 0;
  *rounds = 1;
  /* the coarse correction is in the bodies' velocities: none in joint space */
  if (r < 2 || w->red || s->opt.max_iter < r || !takes_coarse_rounds(w->solver)) return DYN_OK;
  dyn_err e = dyn_coarse_levels(&w->coarse, in, &levels, &w->grows);
  if (e != DYN_OK || !dyn_coarse_deep(levels, s->opt.max_iter)) return e;
  dyn_coarse_interfaces(&w->coarse, in);
  *rounds = r;
  return DYN_OK;
}

/* The solve with a coarse correction at each of its rounds - 1 pauses
 * (slv_solve_paused: one solve, the solver's sweeps stopped every
 * max_iter / rounds sweeps), for the solvers that take pauses. */
static slv_status solve_paused(dyn_step *s, const dyn_coarse_in *in, int rounds) {
  dyn_world *w = s->w;
  dyn_coarse_pause_ctx ctx = { &w->coarse, in };
  slv_pauses pz = { s->opt.max_iter / rounds, rounds - 1, dyn_coarse_pause, &ctx };
  return slv_solve_paused(w->main.ws, &w->prob, &s->opt, &pz, w->x.p, w->wv.p, &s->res);
}

/* The solve as rounds of the sweep budget (round j of R: max_iter / R
 * sweeps, the last one the remainder) with a coarse correction of x
 * between them; a round that ends other than at its budget (converged,
 * refused, failed) ends the solve with its status, which the judge sees
 * as any solve's.  s->res is the last round's, its iterations the sum. */
static slv_status solve_in_rounds(dyn_step *s, const dyn_coarse_in *in, int rounds) {
  dyn_world *w = s->w;
  slv_options o = s->opt;
  slv_status st = SLV_MAX_ITER;
  int sweeps = 0;
  for (int j = 0; j < rounds; j++) {
    o.max_iter = j + 1 < rounds ? s->opt.max_iter / rounds
                                : s->opt.max_iter - (rounds - 1) * (s->opt.max_iter / rounds);
    o.warm_start = j > 0 ? 1 : s->opt.warm_start;
    st = slv_solve(w->main.ws, &w->prob, &o, w->x.p, w->wv.p, &s->res);
    sweeps += s->res.iterations;
    if (st != SLV_MAX_ITER || j + 1 == rounds) break;
    dyn_coarse_correct(&w->coarse, in, w->x.p, w->wv.p);
  }
  s->res.iterations = sweeps;
  return st;
}

dyn_err dyn_stage_solve(dyn_step *s) {
  dyn_world *w = s->w;
  if (w->nrows == 0) return DYN_OK;
  s->opt = w->set.opt;
  s->opt.warm_start = w->set.warm_start ? 1 : 0;
  memcpy(w->xstart.p, w->x.p, (size_t)w->nrows * sizeof *w->x.p);
  double t0 = now_s();
  dyn_velocity_form vf;
  dyn_system_velocity_form(s->sys, &vf);
  dyn_coarse_in in = { w->bodies, w->nb,     w->col.con.p,
                       w->nc,     w->rows.p, w->nrows,
                       w->njrows, w->rpc,    w->set.contact.friction,
                       &vf,       &w->prob };
  int rounds;
  slv_workspace_set_floor(w->main.ws, dyn_world_floor(w, s->h, s->g));
  if (solve_rounds(s, &in, &rounds) != DYN_OK)
    return dyn_world_fail(w, DYN_ERR_NOMEM, "step %ld: out of memory for the coarse correction",
                          s->k);
  int islands = 0;
  if (rounds == 1 && dyn_world_islands_prepare(s, &islands) != DYN_OK) return DYN_ERR_NOMEM;
  slv_status st = islands       ? dyn_world_islands_solve(s)
                  : rounds == 1 ? slv_solve(w->main.ws, &w->prob, &s->opt, w->x.p, w->wv.p, &s->res)
                  : slv_solver_takes_pauses(w->solver) ? solve_paused(s, &in, rounds)
                                                       : solve_in_rounds(s, &in, rounds);
  s->time[DYN_STAGE_SOLVE] = now_s() - t0; /* slv_solve (and the coarse corrections) */
  if (st < 0)
    return dyn_world_fail(w, DYN_ERR_INPUT, "step %ld: solver %s refused the problem (%s): %s",
                          s->k, w->solver->name, slv_status_str(st),
                          s->res.message[0] ? s->res.message : "no detail");
  w->last = (dyn_world_solve){ .step = s->k,
                               .prob = w->prob,
                               .solver = w->solver->name,
                               .opt = s->opt,
                               .x_start = w->xstart.p,
                               .x_solver = w->x.p,
                               .x_applied = NULL,
                               .status = st,
                               .iterations = s->res.iterations,
                               .res_nat_inf = s->res.res.res_nat_inf,
                               .failed = 0,
                               .applied = DYN_APPLIED_NONE,
                               .input_written = s->res.input_written };
  w->have_solve = 1;
  return DYN_OK;
}

/* ---- apply --------------------------------------------------------------------------- */

dyn_err dyn_stage_apply(dyn_step *s) {
  dyn_world *w = s->w;
  if (w->nrows == 0) {
    for (int i = 0; i < w->nb; i++)
      dyn_body_update_velocity(&w->bodies.c[i], &w->bodies.s[i], s->h, s->g, DYN_GYRO_NONE);
    dyn_warm_drop_contacts(&w->warm);
    return DYN_OK;
  }
  /* the solver's K^T x where it is of the x applied (not a fallback's,
   * the warm start, zero) */
  dyn_err e =
      dyn_apply_impulse_ws(s->sys, w->bodies, w->nb, w->x.p, w->main.ws, &w->prob, s->h, s->g);
  if (e != DYN_OK)
    return dyn_world_fail(w, e, "step %ld: solver %s returned %s impulses (status %s)", s->k,
                          w->solver->name, e == DYN_ERR_NUMERIC ? "non-finite" : "unusable",
                          slv_status_str(s->res.status));
  return dyn_world_keep_applied(s);
}

dyn_err dyn_world_keep_applied(dyn_step *s) {
  dyn_world *w = s->w;
  w->sys_last = s->sys;
  w->have_prob = 1;
  w->last.x_applied = w->x.p;
  w->last.failed = s->verdict.failed;
  w->last.applied = s->verdict.applied;
  if (!w->set.warm_start) return DYN_OK;
  dyn_warm_rows r = dyn_world_warm_rows(w);
  if (dyn_warm_keep(&w->warm, &r, w->x.p, &w->grows) != DYN_OK)
    return dyn_world_fail(w, DYN_ERR_NOMEM,
                          "out of memory for the warm-start data of %d "
                          "contacts and %d joint rows",
                          w->nc, w->njrows);
  return DYN_OK;
}

/* ---- integrate ----------------------------------------------------------------------- */

dyn_err dyn_stage_integrate(dyn_step *s) {
  dyn_world *w = s->w;
  const dyn_world_settings *S = &w->set;
#pragma omp parallel for num_threads(step_threads(w, w->nb)) schedule(static)
  for (int i = 0; i < w->nb; i++) {
    dyn_body_state *b = &w->bodies.s[i];
    const dyn_body_const *bc = &w->bodies.c[i];
    if (bc->is_static) continue;
    if (S->integrator == DYN_INT_EXPLICIT_EULER) {
      /* s+ = s + h S(u) with the velocity of the start of the step */
      const double *sv = w->saved.p + DYN_BODY_STATE * (size_t)i;
      dyn_v3 v1 = b->v, w1 = b->w;
      b->v = dyn_v3_make(sv[7], sv[8], sv[9]);
      b->w = dyn_v3_make(sv[10], sv[11], sv[12]);
      dyn_body_update_position(bc, b, s->h, S->orient);
      b->v = v1;
      b->w = w1;
    } else {
      dyn_body_update_position(bc, b, S->integrator == DYN_INT_VERLET ? 0.5 * s->h : s->h,
                               S->orient);
    }
  }
  w->step = s->k;
  w->t += s->h;
  return DYN_OK;
}

/* ---- metrics ------------------------------------------------------------------------- */

dyn_err dyn_stage_metrics(dyn_step *s) {
  dyn_world *w = s->w;
  dyn_world_metrics *m = s->m;
  if (!m) return DYN_OK;
  int rows = w->nrows;
  memset(m, 0, sizeof *m);
  m->step = s->k;
  m->t = w->t;
  if (s->have_end) { /* the integrator's judge measured it (world_judge_integrator.c) */
    m->kinetic = s->kinetic_end;
    m->potential = s->potential_end;
    m->energy = m->kinetic + m->potential;
  } else {
    m->energy = dyn_world_energy(w, &m->kinetic, &m->potential);
  }
  m->max_penetration = s->maxpen;
  m->contacts = s->nc;
  m->rows = rows;
  m->iterations = rows ? s->res.iterations : 0;
  m->res_nat_inf = rows ? s->res.res.res_nat_inf : 0.0;
  m->solve_time_s = s->time[DYN_STAGE_SOLVE];
  m->collide_time_s = s->time[DYN_STAGE_COLLIDE];
  m->status = s->res.status;
  m->dense = rows && s->storage == SLV_DENSE;
  m->storage = s->storage;
  m->joint_rows = w->njrows;
  m->joint_error = dyn_world_joint_error(w);
  m->failed = s->verdict.failed || s->int_failed;
  m->failed_integrator = s->int_failed;
  m->integrator_excess = s->int_excess;
  m->failed_energy = s->verdict.energy;
  m->failed_step_energy = s->verdict.step_energy;
  m->energy_excess = s->verdict.excess;
  m->energy_excess_scale = s->verdict.excess_scale;
  m->applied = rows ? s->verdict.applied : DYN_APPLIED_NONE;
  m->fallback_solver = s->verdict.fallback ? s->verdict.fallback->name : NULL;
  m->fallback_status = s->verdict.fallback ? s->verdict.fallback_status : SLV_CONVERGED;
  m->res_applied = rows ? s->verdict.res_applied : 0.0;
  memcpy(m->stage_time_s, s->time, sizeof m->stage_time_s);
  return DYN_OK;
}

/* ---- the step ------------------------------------------------------------------------ */

/* A failed stage: the bodies as they were, no problem kept. */
static dyn_err step_fail(dyn_world *w, dyn_err e) {
  restore_state(w);
  w->have_prob = 0;
  w->nc = 0;
  w->nrows = 0;
  w->njrows = 0;
  return e;
}

dyn_err dyn_step_begin(dyn_world *w, dyn_step *s, dyn_world_metrics *m) {
  memset(s, 0, sizeof *s);
  s->t0 = now_s();
  s->w = w;
  s->m = m;
  s->k = w->step + 1;
  s->h = w->set.dt;
  s->g = w->set.gravity;
  s->storage = SLV_DENSE;
  s->res.status = SLV_CONVERGED;
  w->msg[0] = '\0';
  dyn_err e = dyn_world_reserve_bodies(w, (size_t)w->nb);
  if (e == DYN_OK) dyn_integrator_begin(s);
  return e;
}

/* The reduced representation's stage i (world_reduced.c), or NULL. */
static dyn_stage_fn w_reduced_stage(const dyn_world *w, int i) {
  return w->red ? dyn_reduced_stage(i) : NULL;
}

/* A step failed after its integrate stage: the tree's state, the step
 * count and the time as they were too. */
static dyn_err integrated_step_fail(dyn_step *s, dyn_err e) {
  dyn_world *w = s->w;
  if (w->red) dyn_reduced_restore_state(w);
  w->step = s->k - 1;
  w->t = s->t_start;
  return step_fail(w, e);
}

dyn_err dyn_step_stage(dyn_step *s, int i) {
  double t = now_s();
  dyn_err e = w_reduced_stage(s->w, i) ? w_reduced_stage(s->w, i)(s) : pipeline[i].run(s);
  if (e != DYN_OK) return step_fail(s->w, e);
  if (i == DYN_STAGE_INTEGRATE && (e = dyn_integrator_judge(s)) != DYN_OK)
    return integrated_step_fail(s, e);
  if (i != DYN_STAGE_SOLVE) s->time[i] = now_s() - t;
  return DYN_OK;
}

dyn_err dyn_world_step(dyn_world *w, dyn_world_metrics *m) {
  if (!w) return DYN_ERR_INPUT;
  dyn_step s;
  dyn_err e = dyn_step_begin(w, &s, m);
  for (int i = 0; i < DYN_WORLD_STAGES && e == DYN_OK; i++) e = dyn_step_stage(&s, i);
  if (e != DYN_OK) return e;
  if (m) {
    m->stage_time_s[DYN_STAGE_METRICS] = s.time[DYN_STAGE_METRICS];
    m->step_time_s = now_s() - s.t0;
  }
  return DYN_OK;
}
