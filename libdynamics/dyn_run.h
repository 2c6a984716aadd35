/*
 * dyn_run.h -- public header of libdynamics, part 4: runs of a world.  The
 * step loop every caller shares, the one table of per-step metric columns
 * from which every per-step output is generated, the one definition of
 * energy drift, and the summary of a run (docs/dynamics.md, "Runs").
 *
 * `lcplab simulate` (its CSV and its JSON summary), `lcplab export`,
 * Python's World (its numpy arrays) and the experiment engine's scene
 * tasks (drift and accuracy rows, scenes rows) all step a world through
 * dyn_world_run and take their per-step columns from the table below: a
 * column's name, type, unit and meaning exist here once, and each output
 * is a list of column names (DYN_METRICS_*) resolved against it.
 *
 * Nothing here prints or keeps global state.  dyn_run_stats_init is the
 * only function that allocates (the per-step arrays of a run summary,
 * before the run).
 */
#ifndef DYN_RUN_H
#define DYN_RUN_H

#include <stddef.h>

#include "dyn_world.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the step loop (world_run.c) -------------------------------------------------- */

/* One step of a run, as every caller records it. */
typedef struct dyn_run_step {
  long k;              /* the step's number (1, 2, ... over the world's life) */
  dyn_err err;         /* DYN_OK, or why the world rejected the step (the run ends) */
  dyn_world_metrics m; /* the step's metrics (err == DYN_OK) */
  char applied[48];    /* what entered the step (dyn_applied_label); "none" when rejected */
  const char *status;  /* the step's solve status (slv_status_str); a rejected step: its
                          failed solve's status, else "failed" (numerical) or "refused" */
  double energy0;      /* the energy before the run's first step (J) */
  double drift_scale;  /* the run's drift scale S (dyn_world_drift_scale at its start) */
} dyn_run_step;

/* Called after each step (a rejected one too); 0 goes on, any other value
 * ends the run and is returned by dyn_world_run. */
typedef int (*dyn_run_fn)(void *ctx, dyn_world *w, const dyn_run_step *st);

/* Steps w K times from its current state, calling on_step after each (may
 * be NULL).  The run's energy E0 and drift scale are taken before the first
 * step.  Returns 0 after K steps, on_step's nonzero value, or -1 after a
 * step the world rejected (the record said it).  *done (may be NULL): the
 * steps taken without rejection. */
DYN_API int dyn_world_run(dyn_world *w, long K, dyn_run_fn on_step, void *ctx, long *done);

/* The applied label of a step: the dyn_applied_str name (solver, warm,
 * zero, none), or fallback:NAME with the fallback solver's name. */
DYN_API void dyn_applied_label(const dyn_world_metrics *m, char *buf, size_t len);

/* ---- energy drift (world_summary.c; docs/dynamics.md, "Energy drift") -------------- */

/* The drift of a run whose energy went from E0 (before its first step) to
 * E:  (E - E0) / S,  with the scale  S = max(|E0|, M |g| D)  fixed at the
 * run's start: M the dynamic bodies' total mass, D the diagonal of the box
 * around their centres, |g| gravity's norm.  M |g| D is the energy a fall
 * across the scene's own extent releases: |E0| alone is no scale when a
 * scene starts at E0 = 0 or near it (a pile or a chain at rest at z = 0),
 * and a fixed S keeps a blow-up visible.  NaN when S is not > 0. */
DYN_API double dyn_energy_drift(double E, double E0, double S);
/* S for the world's current state (its bodies, its settings' gravity). */
DYN_API double dyn_world_drift_scale(const dyn_world *w, double E0);
/* S for the model's initial state (its bodies' r, its gravity): the same
 * number as a world freshly built from it gives. */
DYN_API double dyn_model_drift_scale(const dyn_model *m, double E0);

/* ---- the per-step metric columns (world_metrics.c) -------------------------------- */

/* How a column's value is held and written. */
typedef enum dyn_metric_type {
  DYN_METRIC_INT = 0, /* an integer (a count, a step number, a flag) */
  DYN_METRIC_REAL,    /* a real number */
  DYN_METRIC_TIME,    /* a wall time (s): it differs from run to run */
  DYN_METRIC_STATUS,  /* an slv_status: its name as text, its code as a number */
  DYN_METRIC_APPLIED, /* the impulses a step applied: dyn_applied_label as text, the
                         dyn_applied index as a number */
  DYN_METRIC_STAGES   /* DYN_WORLD_STAGES wall times (s), one per stage of the step */
} dyn_metric_type;

/* A column of the table. */
typedef struct dyn_metric_column {
  const char *name; /* the CSV column's and the array's name */
  dyn_metric_type type;
  const char *unit;    /* "m", "J", "s", ... ("" for counts, codes and ratios) */
  const char *meaning; /* one line */
} dyn_metric_column;

/* The number of columns, column i (NULL out of range), the index of the
 * column named name (-1 if none). */
DYN_API int dyn_metric_count(void);
DYN_API const dyn_metric_column *dyn_metric_at(int i);
DYN_API int dyn_metric_find(const char *name);

/* The outputs, as lists of column names:
 *   DYN_METRICS_SIMULATE  the CSV of `lcplab simulate --csv` (its header is
 *                         this text);
 *   DYN_METRICS_ARRAYS    Python's World.run arrays (lcplab.METRICS);
 *   DYN_METRICS_DRIFT     a drift section's step rows (experiments/README.md);
 *   DYN_METRICS_ACCURACY  an accuracy section's step rows. */
#define DYN_METRICS_SIMULATE                                                                       \
  "step,t,kinetic,potential,energy,max_penetration,contacts,rows,iterations,res_nat_inf,"          \
  "solve_time_s,joint_error,status,applied,energy_excess,failed,integrator_excess"
#define DYN_METRICS_ARRAYS                                                                         \
  "step,t,kinetic,potential,energy,max_penetration,contacts,rows,iterations,res_nat_inf,"          \
  "solve_time_s,collide_time_s,step_time_s,status,joint_error,failed,applied,"                     \
  "fallback_status,res_applied,energy_excess,failed_integrator,integrator_excess,signorini,"       \
  "conic_compl,ncp_compl,dual_feas,primal_feas,mdp_gap,stage_time_s"
#define DYN_METRICS_DRIFT                                                                          \
  "step,t,energy,rel_drift,max_penetration,contacts,iterations,res_nat_inf,status,applied"
#define DYN_METRICS_ACCURACY                                                                       \
  "step,t,max_penetration,joint_error,compl,infeas,res_nat_inf,iterations,status,applied"

/* A list of columns resolved against the table, once before a run. */
#define DYN_METRIC_SET_MAX 64
typedef struct dyn_metric_set {
  int n;                       /* columns */
  int col[DYN_METRIC_SET_MAX]; /* their indices in the table */
  unsigned needs;              /* what their values need computed (private) */
} dyn_metric_set;

/* s from names, "a,b,c" (one of DYN_METRICS_*, or the caller's own list).
 * DYN_OK, or DYN_ERR_INPUT with msg naming an unknown column (or too many). */
DYN_API dyn_err dyn_metric_set_init(dyn_metric_set *s, const char *names, char *msg, size_t msgcap);

/* A column's value at one step. */
typedef struct dyn_metric_value {
  double x;             /* the number: INT, REAL, TIME; STATUS the slv_status code;
                           APPLIED the dyn_applied index; NaN for STAGES */
  const char *text;     /* STATUS, APPLIED: the name; else NULL */
  const double *stages; /* STAGES: the stage times (DYN_WORLD_STAGES); else NULL */
  int none;             /* 1: the measure does not exist here (an empty field) */
} dyn_metric_value;

/* The values of s's columns at step st of w (an applied step, st->err ==
 * DYN_OK), into v[0 .. s->n - 1].  The residual columns (compl, infeas)
 * are recomputed from the step's problem and the impulses applied
 * (dyn_world_last_residual), once however many are asked for; ContactBench's
 * criteria (signorini ... mdp_gap) only when the problem has Coulomb cones
 * (NaN otherwise).  Pointers in v are valid while st and w's last step are. */
DYN_API void dyn_metric_values(const dyn_metric_set *s, dyn_world *w, const dyn_run_step *st,
                               dyn_metric_value *v);

/* The text of a value in the per-step CSV of `lcplab simulate`: INT as an
 * integer, REAL with 17 significant digits (%.17g: it reads back to the same
 * double), TIME with 6, STATUS and APPLIED their names, a none value "";
 * the stage times joined by ';'.  Into buf (len bytes; truncated). */
DYN_API void dyn_metric_text(const dyn_metric_column *c, const dyn_metric_value *v, char *buf,
                             size_t len);

/* ---- the summary of a run (world_summary.c) ---------------------------------------- */

/* The summary of a run: `lcplab simulate`'s JSON and a `scenes` section's
 * row (experiments/README.md, "scenes"), by the scene peers' rules
 * (experiments/CAMPAIGNS.md, "Scene peers"): times over the last 80 % of
 * the steps (timed_steps), contacts over all steps and the timed ones.
 * Fields a peer does not report are NaN (-1 for counts). */
typedef struct dyn_run_summary {
  long steps, timed_steps;
  int bodies;
  double contacts_mean, contacts_mean_timed;
  long contacts_max;
  long not_converged;  /* steps whose solve did not converge */
  long fallback_steps; /* steps whose impulses came from the fallback solver */
  double energy_start, energy_end, kinetic_end;
  double energy_drift;             /* dyn_energy_drift(energy_end, energy_start, S) */
  double max_penetration_end;      /* one collision pass on the final state */
  double max_body_displacement;    /* largest |r_end - r_start| of a body */
  double max_settled_displacement; /* largest |r_end - r_rest| of a dynamic body
                                      (r_rest: the world's model's,
                                      dyn_model_rest_positions) */
  double joint_error_max;
  double time_step_median_s, time_step_mean_s, time_collide_mean_s, time_solve_mean_s;
  double time_stage_mean_s[DYN_WORLD_STAGES];
} dyn_run_summary;

/* What a run records step by step for its summary (arrays of K steps,
 * allocated by dyn_run_stats_init, before the run). */
typedef struct dyn_run_stats {
  long K, n; /* steps planned, recorded */
  int nbod;
  double *tstep, *tcol, *tsolve, *tstage; /* per step (tstage: DYN_WORLD_STAGES each) */
  int *contacts;
  double *r0, *rrest; /* 3 per body: start and rest positions */
  double E0, S;       /* the start energy and the drift scale */
  long not_converged, fallback_steps;
  double joint_error_max; /* NaN sticks */
} dyn_run_stats;

/* Before a run of K >= 1 steps of w: allocations, the start and rest
 * positions, the start energy and drift scale.  DYN_OK, or DYN_ERR_NOMEM /
 * DYN_ERR_INPUT (K < 1, no rest positions) with the reason in err. */
DYN_API dyn_err dyn_run_stats_init(dyn_run_stats *s, dyn_world *w, long K, char *err, size_t len);
/* One applied step (from a dyn_world_run callback; no allocation; steps
 * past K are not recorded). */
DYN_API void dyn_run_stats_add(dyn_run_stats *s, const dyn_world_metrics *m);
/* The summary of the recorded steps and the final world w (one extra
 * collision pass for the penetration).  Sorts s's timed step times.  0, or
 * -1 when no step was recorded. */
DYN_API int dyn_run_stats_summary(dyn_run_stats *s, dyn_world *w, dyn_run_summary *out);
DYN_API void dyn_run_stats_free(dyn_run_stats *s);

#ifdef __cplusplus
}
#endif
#endif /* DYN_RUN_H */
