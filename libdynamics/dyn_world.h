/*
 * dyn_world.h -- public header of libdynamics, part 3: a world of rigid
 * bodies stepped through contact problems solved by any registered
 * libsolvers solver, and the named scenes of the lcplab command line.
 *
 * A world is built on a scene model (dyn_world_new_from_model, the only
 * constructor; the model, dyn_model.h, says what the scene is:
 * docs/scenes.md), as MuJoCo's mjData on an mjModel: the model is shared
 * and only read (several worlds may run on one), the world holds its data
 * -- the state (poses, velocities, loads, warm start, time, step count:
 * dyn_world_save_state), every buffer and workspace a step needs -- and
 * its numerical settings (dyn_world_settings, from
 * dyn_world_settings_default).  One step (dyn_world_step, world_step.c;
 * docs/dynamics.md, "The world step") is a pipeline of named stages:
 *
 *   prepare (state saved; Verlet's half drift; gyroscopic term)
 *   -> collide (broad phase SAP over the shapes, narrow phase; pairs of one
 *   body, filtered, excluded or tied by a joint skipped; each contact's
 *   combined material)
 *   -> build rows (dyn_joint_fill, joints in the order they were added,
 *   then contact rows of the settings' friction model with each contact's
 *   material) -> assemble
 *   (dense, CSR or factored; the warm start from the previous step's
 *   impulses) -> solve (the named solver) -> judge (a failed solve goes to
 *   the failure policy, dyn_failure_policy) -> apply (dyn_apply_impulse)
 *   -> integrate (the settings' integrator) -> metrics,
 *
 * and fills a dyn_world_metrics record.  Buffers grow (geometrically) only
 * when a step needs more than any earlier step; a step of a scene whose
 * contact count has settled allocates nothing.
 *
 * Errors: functions return dyn_err (dyn.h) and leave a one-line message
 * (dyn_world_message, or the caller's msg buffer for constructors).  A
 * solver that runs but does not converge is not an error: the failure
 * policy (settings.on_failure) decides what the step applies, and the
 * metrics say which candidate it was.  A solver that refuses the problem
 * (SLV_ERR_UNSUPPORTED, e.g. a cone solver given the friction pyramid) is:
 * dyn_world_step then returns DYN_ERR_INPUT with the library's message and
 * the world is left as it was before the step.  So is a failed solve under
 * the policies keep (x worse than no impulse) and stop (DYN_ERR_NUMERIC,
 * see dyn_world_step).
 */
#ifndef DYN_WORLD_H
#define DYN_WORLD_H

#include <stddef.h>

#include "dyn.h"
#include "dyn_constraint.h"
#include "dyn_joint.h"
#include "dyn_model.h"
#include "slv.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- settings ------------------------------------------------------------ */

typedef enum dyn_storage {
  DYN_STORAGE_AUTO = 0, /* dense up to dense_max_rows rows (or whenever the solver
                           takes dense storage only); above, factored (matrix-free) when
                           the solver takes it and there are no friction-pyramid rows,
                           else CSR */
  DYN_STORAGE_DENSE,    /* always dense (column-major n x n) */
  DYN_STORAGE_CSR,      /* always CSR (the solver must accept SLV_CAP_SPARSE) */
  DYN_STORAGE_FACTORED  /* always matrix-free J, M^-1 J^T (slv.h SLV_FACTORED; the solver
                           must accept SLV_CAP_FACTORED; no friction pyramid) */
} dyn_storage;

/* Contact islands (docs/dynamics.md, "Contact islands"): the step's rows
 * split into groups that share no moving body (maximal coordinates) or no
 * tree (reduced coordinates), each solved alone on a block of the dense A. */
typedef enum dyn_islands_mode {
  DYN_ISLANDS_AUTO = 0, /* on in reduced coordinates, off in maximal coordinates */
  DYN_ISLANDS_OFF,      /* one problem per step, as before islands */
  DYN_ISLANDS_ON        /* split whenever the problem is dense (and not a condensed one) */
} dyn_islands_mode;

/* The order of the contact pairs, hence of their rows in the problem: a
 * Gauss-Seidel solver (pgs, pgs_wide, nsgs) visits the rows in this order. */
typedef enum dyn_contact_order {
  DYN_ORDER_BROADPHASE = 0, /* as the broad phase reports them: by the lower x of the pair's
                               boxes (sweep-and-prune) */
  DYN_ORDER_TOP_DOWN        /* by height along -gravity, highest pair first (a pair's height:
                               the mean of its dynamic bodies' centres; ties in broad-phase
                               order); what it changes:
                               experiments/records/2026-11-26-dynamics.md */
} dyn_contact_order;

#define DYN_WORLD_SOLVER_NAME_MAX 32
#define DYN_COARSE_MAX            64 /* the most coarse_corrections */

/* What a step does when its solve failed (docs/dynamics.md, "The world
 * step").  A solve has failed when its status is not converged, except the
 * budget stop (max_iter after iterations > 0 and no pivot, finite x) of any
 * iterative solver, under every policy: one rule for every solver, the usual mode of
 * a fixed-budget simulation, and its own x is applied (world_judge.c
 * says why).  Candidates are compared by the library's res_nat_inf
 * (slv_residual); a non-finite x is never applied.
 *   FALLBACK  (default) the fallback chain: the step is solved again by the
 *             fallback solver (settings.fallback_solver; "" picks direct
 *             when the problem has equality rows only and the solver was
 *             not direct, nsgs when it has Coulomb cones, else pgs) started from the
 *             better of the solver's x and the warm start, with
 *             fallback_max_iter iterations; then the candidate with the
 *             smallest res_nat_inf among the fallback's x, the solver's x,
 *             the warm start and P(0) = mid(lo, hi, 0) is applied (ties go
 *             in that order).  So the step never applies an impulse worse
 *             than any candidate.
 *   BEST      no second solve: the best of the solver's x, the warm start
 *             and P(0).
 *   KEEP      the solver's x if it is finite and no worse than P(0); else
 *             the step fails with DYN_ERR_NUMERIC (the behaviour before
 *             the policy).
 *   STOP      the step fails with DYN_ERR_NUMERIC, naming the step, the
 *             solver, its status and residual. */
typedef enum dyn_failure_policy {
  DYN_ON_FAILURE_FALLBACK = 0,
  DYN_ON_FAILURE_BEST,
  DYN_ON_FAILURE_KEEP,
  DYN_ON_FAILURE_STOP
} dyn_failure_policy;

/* "fallback", "best", "keep", "stop"; "?" out of range. */
DYN_API const char *dyn_failure_policy_str(dyn_failure_policy p);

/* Which impulses a step applied. */
typedef enum dyn_applied {
  DYN_APPLIED_NONE = 0, /* none: the step had no rows */
  DYN_APPLIED_SOLVER,   /* the solver's x */
  DYN_APPLIED_FALLBACK, /* the fallback solve's x */
  DYN_APPLIED_WARM,     /* the warm start the solver was given */
  DYN_APPLIED_ZERO      /* P(0) = mid(lo, hi, 0): no impulse (0 on every scene row) */
} dyn_applied;

/* "none", "solver", "fallback", "warm", "zero"; "?" out of range. */
DYN_API const char *dyn_applied_str(dyn_applied a);

/* The coordinates of a world's state (docs/models.md, "Third-party models:
 * the representation"). */
typedef enum dyn_coordinates {
  DYN_COORDINATES_MAXIMAL = 0, /* every body its six velocities, joints as rows */
  DYN_COORDINATES_REDUCED      /* the joint coordinates of the model's tree
                                  (dyn_world_new_from_model) */
} dyn_coordinates;

typedef struct dyn_world_settings {
  double dt;                              /* time step (s), finite, > 0; default 1/120 */
  dyn_v3 gravity;                         /* m/s^2, finite; default (0, 0, -9.81) */
  dyn_integrator integrator;              /* default DYN_INT_SYMPLECTIC_EULER */
  dyn_gyro gyro;                          /* default DYN_GYRO_IMPLICIT */
  dyn_orient orient;                      /* default DYN_ORIENT_EXP */
  dyn_contact_params contact;             /* default dyn_contact_params_default() with friction
                                DYN_FRICTION_BOX, mu 0.5 and slop 0.0005 m (penetration
                                up to 0.5 mm gets no Baumgarte push) */
  double margin;                          /* collision margin (m), >= 0: pairs closer than this give
                                speculative contacts (dyn_contact_fill: rhs = gap / h, with
                                restitution only when the approach closes the gap within
                                the step); default 0.002; 0 = penetrating points only, as
                                ODE */
  char solver[DYN_WORLD_SOLVER_NAME_MAX]; /* registry name; default "pgs" */
  slv_options opt;                        /* default slv_options_default() with max_iter 50 and
                                omega 0.8 (pgs, pgs_wide: under-relaxed); opt.threads is
                                also the step's: its loops over bodies, pairs, contacts
                                and rows split from 1024 of them, with the same results
                                on any count (docs/dynamics.md, "Threads") */
  int warm_start;                         /* 1: start each solve from the previous step's impulses,
                                matched by body pair and nearest contact point; default 1 */
  double warm_factor;              /* the kept impulses are scaled by this, in [0, 1] (Bullet's
                                warmstartingFactor is 0.85); default 1.  The stacking
                                defaults (slop, margin, omega, warm_factor) are chosen
                                together: docs/dynamics.md, "Stacking defaults"; measured
                                in experiments/records/2026-11-23-stacking-defaults.md */
  dyn_storage storage;             /* default DYN_STORAGE_AUTO */
  int dense_max_rows;              /* AUTO: dense up to this many rows, >= 0; default 256 */
  slv_cone_law cone_law;           /* meaning of the cone rows (friction CONE); default
                                SLV_CONE_COULOMB */
  dyn_contact_order contact_order; /* default DYN_ORDER_BROADPHASE */
  dyn_failure_policy on_failure;   /* default DYN_ON_FAILURE_FALLBACK */
  char fallback_solver[DYN_WORLD_SOLVER_NAME_MAX]; /* FALLBACK's solver, a registry name;
                                default "": pgs, or nsgs for problems with cones */
  int fallback_max_iter;                           /* FALLBACK's iterations, >= 1; default 200 */
  int coarse_corrections;      /* Gauss-Seidel solvers (pgs, pgs_wide, pgs_color, pgs_part) with
                             friction box or none: the max_iter sweeps split into
                             coarse_corrections + 1 rounds with a level coarse correction of
                             the impulses between rounds, on steps whose contact levels are
                             more than 3/4 of max_iter (docs/dynamics.md, "Coarse
                             correction"); 0 = off, in [0, 64]; default 2 */
  unsigned given;              /* DYN_GIVEN_* bits: the settings a scene model also holds that
                             the user gave (dyn_world_settings_set marks dt and gravity);
                             over a model a given one overrides the model's value for the
                             run (dyn_world_settings_for_model); default 0 */
  dyn_coordinates coordinates; /* the state's representation, fixed when the world is
                                  built (dyn_world_new_from_model; dyn_world_set_settings
                                  refuses a change); default DYN_COORDINATES_MAXIMAL */
  dyn_islands_mode islands;    /* contact islands; default DYN_ISLANDS_AUTO */
} dyn_world_settings;

/* The settings a scene model also holds (docs/dynamics.md, "Settings a
 * model also holds"): the time step (a model file's <option timestep>) and
 * gravity.  The materials are the model's alone (contact.mu and
 * contact.restitution apply only to shapes of DYN_MATERIAL_DEFAULT in a
 * model without materials: dyn_model.h), and
 * contact.rest_threshold is always derived (dyn_world_settings_for_model). */
#define DYN_GIVEN_DT      1u
#define DYN_GIVEN_GRAVITY 2u
/* gyro given by name (dyn_world_settings_set): not a setting a model holds,
 * but in reduced coordinates a gyro given other than the tree's step's
 * (explicit) is refused, while the default is not (docs/dynamics.md,
 * "Integrators"); dyn_world_settings_overrides does not list it */
#define DYN_GIVEN_GYRO 4u
/* the bits of the settings a model also holds */
#define DYN_GIVEN_MODEL (DYN_GIVEN_DT | DYN_GIVEN_GRAVITY)

/* The one rule of the settings a model also holds: the settings a world
 * built from model m runs with, s's with
 *   dt       timestep (a model file's <option timestep>, s; > 0 and finite)
 *            unless s->given has DYN_GIVEN_DT or timestep is 0;
 *   gravity  the model's unless s->given has DYN_GIVEN_GRAVITY;
 *   contact.rest_threshold  the model's restitution threshold at that dt
 *            and that gravity (dyn_model_rest_threshold's formula).
 * The world builders (dyn_world_new_from_model, dyn_scene_new) apply it with timestep 0; a front end that reads a model
 * file calls it with the file's timestep before building, and records the
 * overrides (dyn_world_settings_overrides).  m NULL: *s unchanged. */
DYN_API dyn_world_settings dyn_world_settings_for_model(const dyn_world_settings *s,
                                                        const dyn_model *m, double timestep);
/* 1 when key (a setting's name, dyn_world_settings_key) names a setting the
 * model also holds that s->given marks as the user's, else 0: the run's
 * overrides, for its summary (`lcplab simulate`'s "overrides"). */
DYN_API int dyn_world_settings_overrides(const dyn_world_settings *s, const char *key);
/* The model as a run under the settings s (dyn_world_settings_for_model's)
 * uses it: its gravity s's (--save-model does this to the model it writes;
 * a world never writes its model). */
DYN_API void dyn_model_run_as(dyn_model *m, const dyn_world_settings *s);

DYN_API dyn_world_settings dyn_world_settings_default(void);

/* The solver a world gets when its user names none (docs/models.md,
 * "The default solver in reduced coordinates"): "nsgs" for friction cone;
 * "lemke" for the friction pyramid (its auxiliary rows have A_ii = 0, which
 * pgs and dantzig refuse); in reduced coordinates with friction none or
 * box "dantzig" (a tree's
 * contacts couple through its joint-space mass matrix, where pgs at 50
 * sweeps ends most contact steps unconverged: experiments/records/
 * 2026-11-28-robot2.md); else "pgs".  One rule for `lcplab simulate`,
 * `export`, an experiment file's scene lines (built-in or model=) and
 * Python's World of a Model. */
DYN_API const char *dyn_world_default_solver(dyn_coordinates c, dyn_friction f);

/* DYN_OK, or DYN_ERR_INPUT with a message (msg of size msgcap, may be NULL)
 * naming the field: dt <= 0 or not finite, gravity not finite, an enum out
 * of range, contact parameters (dyn_contact_params_validate: mu < 0, ...),
 * margin < 0, an unknown solver name, options slv_options_validate rejects,
 * dense_max_rows < 0, an unknown fallback solver, fallback_max_iter < 1. */
DYN_API dyn_err dyn_world_settings_validate(const dyn_world_settings *s, char *msg, size_t msgcap);

/* ---- settings by name (world_settings_names.c) -------------------------- */

/* The one parser of settings by name, behind `lcplab simulate --KEY VALUE`,
 * the KEY=VALUE words of an experiment file's scene lines and Python's
 * World(**settings) (docs/dynamics.md, "Settings by name").  Sets the field
 * of s named key from the text value: dt (a number > 0 or A/B), gravity
 * (X,Y,Z), integrator, gyro, orient, friction, eta, k_erp, slop, cfm,
 * max_correct_vel, margin, solver, max_iter, max_pivots, tol, time_limit
 * (seconds per solve), omega, threads, warm_start (on/off), warm_factor,
 * storage, dense_max_rows, cone_law, contact_order, on_failure,
 * fallback_solver, fallback_max_iter, coarse_corrections, islands; a dash matches an underscore
 * (max-iter); an enum takes its name (or its number).  Numbers are read by
 * libsolvers' strict parser (slv_parse_double, slv_parse_long), the solver
 * options among the keys by libsolvers' options by name (slv_options_set).
 * Setting dt or gravity also marks it given (s->given: DYN_GIVEN_DT,
 * DYN_GIVEN_GRAVITY), so that it overrides a scene model's; setting gyro
 * marks DYN_GIVEN_GYRO (reduced coordinates refuse a given gyro they do
 * not run).
 * 1 when set; 0 when key is no setting (s untouched); -1 with err "must be
 * ..., got 'VALUE'" (or "unknown solver ...") when value is not one.
 * dyn_world_settings_validate judges the whole later. */
DYN_API int dyn_world_settings_set(dyn_world_settings *s, const char *key, const char *value,
                                   char *err, size_t len);
/* The name of an enum setting's value (dyn_world_settings_enum_name(
 * "friction", 3) is "cone"), or NULL. */
DYN_API const char *dyn_world_settings_enum_name(const char *key, int value);
/* 1 when key names a setting (dashes for underscores too), else 0. */
DYN_API int dyn_world_settings_is_key(const char *key);
/* The i-th setting's name (0, 1, ...), NULL past the last. */
DYN_API const char *dyn_world_settings_key(int i);

/* ---- per-step metrics ---------------------------------------------------- */

/* The stages of a step (world_step.c), for stage_time_s: prepare, collide,
 * build rows, assemble, solve, judge, apply, integrate, metrics. */
#define DYN_WORLD_STAGES 9
/* The name of stage i ("collide", ...); NULL out of range. */
DYN_API const char *dyn_world_stage_name(int i);

typedef struct dyn_world_metrics {
  long step;                   /* steps done, counting this one (1, 2, ...) */
  double t;                    /* time after the step (s) */
  double kinetic;              /* sum m |v|^2/2 + w.(I w)/2 after the step (J) */
  double potential;            /* sum -m g.r after the step (J): m |g| z for g = (0,0,-|g|),
                             zero at z = 0 (the scenes' floor / slope origin) */
  double energy;               /* kinetic + potential */
  double max_penetration;      /* deepest contact (m, >= 0) found by this step's collision pass,
                             i.e. of the state at the start of the step */
  int contacts;                /* contact points of the step */
  int rows;                    /* rows of the step's problem (n) */
  int iterations;              /* the solver's iterations (0 when rows = 0) */
  double res_nat_inf;          /* the library's natural-map residual of the step's solve */
  double solve_time_s;         /* wall time of slv_solve alone */
  double collide_time_s;       /* wall time of the broad and narrow phases */
  double step_time_s;          /* wall time of the whole dyn_world_step */
  slv_status status;           /* of the solve; SLV_CONVERGED when rows = 0 */
  int dense;                   /* 1 if the step's A was dense, 0 if not (or no rows) */
  slv_storage storage;         /* the step's problem storage (SLV_DENSE when no rows) */
  int joint_rows;              /* of rows, those of the joints (the first joint_rows rows) */
  double joint_error;          /* max over joints of dyn_joint_anchor_error after the step
                             (m; 0 without joints) */
  int failed;                  /* 1 iff the step failed: its solve (dyn_failure_policy), or
                                  the integrator's energy rule (failed_integrator) */
  dyn_applied applied;         /* which impulses were applied (NONE without rows) */
  const char *fallback_solver; /* the fallback's registry name if one ran, else NULL */
  slv_status fallback_status;  /* its status (SLV_CONVERGED if none ran) */
  double res_applied;          /* res_nat_inf of the applied impulses (0 without rows) */
  double stage_time_s[DYN_WORLD_STAGES]; /* wall time of each stage */
  int failed_energy;      /* 1 iff failed by the energy rule: a budget stop whose impulses would add
                        more than the run's drift scale of energy (docs/dynamics.md, "Judging a
                        failed solve") */
  int failed_step_energy; /* 1 iff failed by the per-step energy bound: the solver's impulses
                             add more kinetic energy beyond the stabilisation's work than tol
                             times the step's scale (docs/dynamics.md, "The per-step energy
                             bound") */
  double energy_excess;   /* that excess D of the solver's impulses (J; <= 0 for an exact
                             answer; 0 without rows) */
  double energy_excess_scale; /* the step's scale S of the bound (J; 0 without rows) */
  int failed_integrator;      /* 1 iff failed by the integrator's energy rule: the run's free
                                 motion gained more than the run's drift scale beyond its
                                 sources (docs/dynamics.md, "The integrator's energy rule");
                                 failed is 1 too */
  double integrator_excess;   /* that run's gain after the step (J, >= 0; NaN where the rule
                                 does not judge: no scale, or sources it does not measure) */
} dyn_world_metrics;

/* The last solve of a world (dyn_world_last_solve): enough to write the
 * step's problem to a file and solve it again bit for bit. */
typedef struct dyn_world_solve {
  long step;               /* the step it belongs to (1, 2, ...) */
  slv_problem prob;        /* the problem as the solver got it (borrowed) */
  const char *solver;      /* its registry name */
  slv_options opt;         /* the options it got (opt.warm_start as used) */
  const double *x_start;   /* size n: the start the solver got (the warm start when
                              opt.warm_start; else slv_solve started from P(0)) */
  const double *x_solver;  /* size n: the solver's x */
  const double *x_applied; /* size n: the impulses applied; NULL if the step failed */
  slv_status status;       /* the solver's */
  int iterations;
  double res_nat_inf; /* of x_solver */
  int failed;         /* as in the metrics */
  dyn_applied applied;
  int input_written; /* 1: the solver wrote prob's arrays (slv_result's input_written;
                        the step failed): prob is no longer the step's problem, so
                        --dump-failures writes nothing for it */
} dyn_world_solve;

/* ---- the world ------------------------------------------------------------- */

typedef struct dyn_world dyn_world;

/* A world on the scene model m (dyn_model.h; docs/scenes.md) -- the only
 * way to build one.  The model is what the scene is (bodies' mass and
 * inertia, shapes, materials, joints, gravity) and the world only reads
 * it: it shares m (dyn_model_free lets go of it; the last holder frees
 * it), and several worlds may share one model, each stepping on its own,
 * as MuJoCo's mjData on its mjModel.  m must not change while a world
 * holds it.  The world holds where the scene is now -- its data: the
 * state (poses, velocities, loads, the warm-start impulses, time, step
 * count), scratch and workspaces -- and the numerical settings.  The
 * settings s are taken as dyn_world_settings_for_model(s, m, 0) makes them
 * (the model's gravity unless s gives one, its restitution threshold);
 * contacts take their shapes' materials (DYN_MATERIAL_DEFAULT:
 * dyn_model_default_material).  Bodies, shapes and joints keep the model's
 * indices; the bodies start at the model's initial state.
 *
 * s->coordinates says the state's representation.  DYN_COORDINATES_REDUCED
 * (docs/models.md, "Third-party models: the representation"; docs/redmax.md,
 * "Contacts"): the state is the joint coordinates of the model's tree
 * (hinges, sliders, balls, fixed joints; a body with no joint path to the
 * world hangs from a free joint; dynamic bodies of mass 0 are massless
 * frames, so several joints on one body are a chain of frames; springs,
 * dampers and armature in joint space; limits and motors as rows in joint
 * space), and the contact rows are mapped to joint space; the bodies hold
 * the poses and velocities of the tree after every step.  Refused
 * (DYN_ERR_INPUT, the record named, "use maximal coordinates"): another
 * joint kind, a loop, soft rows, a spring at rest away from the initial
 * pose, a jointed body not at rest, the friction pyramid.  A saved state is
 * not supported in this representation.
 *
 * *out = NULL and DYN_ERR_INPUT (the settings or dyn_model_validate
 * refused, message in msg) or DYN_ERR_NOMEM on failure. */
DYN_API dyn_err dyn_world_new_from_model(const dyn_model *m, const dyn_world_settings *s,
                                         dyn_world **out, char *msg, size_t msgcap);

/* 1 for a world in reduced coordinates, 0 for maximal (or NULL). */
DYN_API int dyn_world_is_reduced(const dyn_world *w);
/* 1 when a step of w can have joint rows (dyn_run_step's joint_rows > 0):
 * in maximal coordinates, any joint (its rows are in every step); in
 * reduced coordinates, a joint with a limit or a motor (its rows appear
 * when the limit is reached or the motor drives); 0 otherwise (or NULL).
 * An export decides by it, before writing, whether a format that cannot
 * hold joint rows can take the run (cli/cmd_export.c). */
DYN_API int dyn_world_joint_rows_possible(const dyn_world *w);

DYN_API void dyn_world_free(dyn_world *w); /* NULL is fine */

/* The model the world runs on (shared, dyn_world_new_from_model): the one
 * it was built on, or with a gravity given other than that model's a copy
 * of it that says the given gravity; its gravity is always the world's.
 * Valid while the world is. */
DYN_API const dyn_model *dyn_world_model(const dyn_world *w);

/* The friction coefficients and restitutions the world's contacts take:
 * range = {mu_min, mu_max, e_min, e_max} over its shapes that have a
 * geometry, each its material's (DYN_MATERIAL_DEFAULT:
 * dyn_model_default_material); NaN with no such shape. */
DYN_API void dyn_world_material_range(const dyn_world *w, double range[4]);

/* Replace the settings between steps (validated as above).  A change of
 * friction model (or eta) drops the warm-start data; a change of solver
 * drops its workspace.  A gravity other than the world's model's
 * (dyn_world_model: the model's own, or the one given when the world was
 * built) is refused, as a change of coordinates: DYN_ERR_INPUT, named in
 * dyn_world_message.  On error the old settings stay. */
DYN_API dyn_err dyn_world_set_settings(dyn_world *w, const dyn_world_settings *s);
DYN_API const dyn_world_settings *dyn_world_get_settings(const dyn_world *w);

DYN_API int dyn_world_body_count(const dyn_world *w);

/* Joint rows come first in every step's problem (rows 0 .. joint_rows - 1,
 * joints in the model's order, each in dyn_joint_fill's order), the
 * contact rows after them; contacts between the two bodies of a joint are
 * skipped (the joint, not the collision, says how they touch). */
DYN_API int dyn_world_joint_count(const dyn_world *w);
/* The joint array (size dyn_world_joint_count), the world's compiled
 * copies of the model's joints; valid while the world is.  Changing a
 * joint's motor, limit or softness between steps is allowed (a step re-validates every joint: an invalid one makes it
 * fail with DYN_ERR_INPUT); its bodies a, b must not change. */
DYN_API dyn_joint *dyn_world_joints(dyn_world *w);
/* max over joints of dyn_joint_anchor_error at the current state (m); 0
 * without joints. */
DYN_API double dyn_world_joint_error(const dyn_world *w);
/* The bodies' state (size dyn_world_body_count): the world's own array
 * (r, q, v, w, f_ext, t_ext), valid while the world is.  Writing state or
 * loads between steps is allowed; f_ext and t_ext are held over each step
 * and never cleared. */
DYN_API dyn_body_state *dyn_world_body_states(dyn_world *w);
/* The bodies' constants (size dyn_world_body_count: mass, inertia, their
 * inverses, shape, static flag): the model's records
 * (dyn_model_body_consts), shared with every world on the model, read
 * only, valid while the world is. */
DYN_API const dyn_body_const *dyn_world_body_consts(const dyn_world *w);
/* Both arrays as one dyn_bodies (constants: the model's; state: the
 * world's), for dyn_joint_* and dyn_contact_fill on the world's bodies. */
DYN_API dyn_bodies dyn_world_bodies(dyn_world *w);

/* The controls of the model's actuators (dyn_actuator_def; MuJoCo's ctrl):
 * 0 until set; n must be the model's actuator count.  Each actuator's
 * force (dyn_actuator_def: clampF(gain * clampC(ctrl)) on its joints with
 * moment arms gear * coef, or a slider-crank's) acts at every step until
 * set again (reduced coordinates: exactly, in f_r; docs/redmax.md).  DYN_ERR_INPUT, the world's message naming the index and the
 * actuator, for a wrong length, a non-finite entry, a nonzero control of
 * an actuator that drives nothing, or of any actuator in a world in maximal
 * coordinates (they have no generalized force term); nothing set then.
 * The controls are not part of a saved state (dyn_world_save_state): a
 * restored world keeps the controls it has. */
DYN_API dyn_err dyn_world_set_ctrl(dyn_world *w, const double *ctrl, int n);
/* The controls (dyn_world_ctrl_count entries: the model's actuators), or
 * NULL for none. */
DYN_API const double *dyn_world_ctrl(const dyn_world *w);
DYN_API int dyn_world_ctrl_count(const dyn_world *w);
/* A control list "NAME=VALUE,NAME=VALUE,..." (NAME an actuator's name or
 * its index; the command line's --ctrl) into ctrl[dyn_model_actuator_count]
 * (the actuators not named 0).  DYN_ERR_INPUT with the message naming the
 * item: an unknown actuator, a value that is not a finite number, an item
 * without '=', any list for a model without actuators ("" and NULL: all 0);
 * ctrl's entries are unspecified then. */
DYN_API dyn_err dyn_model_parse_ctrl(const dyn_model *m, const char *spec, double *ctrl, char *msg,
                                     size_t msgcap);
/* dyn_world_set_ctrl's check of ctrl[n] for model m in a world in reduced
 * (reduced = 1) or maximal coordinates, without a world: DYN_OK, or
 * DYN_ERR_INPUT with the message naming the index and the actuator. */
DYN_API dyn_err dyn_model_check_ctrl(const dyn_model *m, int reduced, const double *ctrl, int n,
                                     char *msg, size_t msgcap);

/* One step of settings.dt; m (may be NULL) receives the metrics.  Errors
 * (the world is then restored to its state before the step):
 *   DYN_ERR_INPUT   the solver refused the problem (e.g. joint rows, which are
 *                   free, lo = -inf and hi = +inf, given to a solver without
 *                   SLV_CAP_FREE), storage impossible for the solver, a
 *                   contact or joint the rows code rejects;
 *   DYN_ERR_NOMEM   a buffer could not grow;
 *   DYN_ERR_NUMERIC its solve failed (dyn_failure_policy) and the policy
 *                   is stop, or keep with an x that is not finite or worse
 *                   than no impulse: res_nat_inf(x) > res_nat_inf(x0), x0
 *                   = mid(lo, hi, 0) (0 for the rows of every scene); or
 *                   no candidate is finite.  The impulses are not applied;
 *                   the message names the step, the solver, its status and
 *                   residual, e.g. "step 32: solver lemke ended in
 *                   singular_pivot with res_nat_inf 3.32e+00, worse than
 *                   applying no impulse (res_nat_inf of x = 0: 2.68e+00);
 *                   impulses not applied" (keep) or "step 89: solver lemke
 *                   ended in singular_pivot with res_nat_inf 5.64e-04;
 *                   impulses not applied (failure policy stop)"; the solve
 *                   stays readable through dyn_world_last_solve.
 * The message names the step and the cause.  A failed step does not
 * advance the step count or the time; the last step's problem is dropped
 * (dyn_world_last_problem: n = 0). */
DYN_API dyn_err dyn_world_step(dyn_world *w, dyn_world_metrics *m);

/* The message of the last failed call (empty string if none); never NULL. */
DYN_API const char *dyn_world_message(const dyn_world *w);

DYN_API long dyn_world_step_count(const dyn_world *w);
/* How many times the world's buffers grew, or its solver workspace or
 * assembly systems were (re)created, since the world was built: the only
 * allocations a step makes.  Constant over the steps of a settled scene. */
DYN_API long dyn_world_grow_count(const dyn_world *w);
DYN_API double dyn_world_time(const dyn_world *w);

/* Kinetic and potential energy of the current state, as in the metrics
 * (either pointer may be NULL); returns their sum. */
DYN_API double dyn_world_energy(const dyn_world *w, double *kinetic, double *potential);

/* An extra collision pass on the current state (the peers' end-of-run
 * penetration): *max_pen = deepest contact (>= 0), *ncontacts = points (both
 * may be NULL).  Uses the step's buffers (grows them if needed); the last
 * step's problem and contacts stay valid. */
DYN_API dyn_err dyn_world_penetration(dyn_world *w, double *max_pen, int *ncontacts);

/* The problem of the last step and the impulses x that were applied (its
 * solution), as borrowed views valid until the next step / free.  n = 0 (and
 * *x = NULL) if the last step had no rows or there was no step yet. */
DYN_API void dyn_world_last_problem(const dyn_world *w, slv_problem *p, const double **x);
/* Of that problem's rows, those of the joints (the first ones: the step's
 * metrics' joint_rows); 0 when there is no last problem.  What
 * dyn_world_global_condensed_new condenses (export --condense-joints,
 * Python's global_problem(condense_joints=True)). */
DYN_API int dyn_world_last_joint_rows(const dyn_world *w);

/* The system that assembled that problem (dyn_system_velocity_form gives
 * its J, M^-1 and free velocities), or NULL when there is none. */
DYN_API const dyn_system *dyn_world_last_system(const dyn_world *w);

/* The measures (slv_residual) of the last step's problem at the impulses
 * it applied (dyn_world_last_problem); an empty problem's are zero.  A
 * factored problem has w = A x + b formed first, one pass over its rows
 * (slv_problem_w_t; slv_residual alone makes one per slice of rows above
 * 256 blocks), in scratch of the world's that grows like its step buffers
 * (dyn_world_grow_count counts it).  For the per-step rows of a run
 * (dyn_run.h, dyn_metric_values). */
DYN_API slv_residuals dyn_world_last_residual(dyn_world *w);

/* The global (velocity) form of the last step's problem (FCLIB's global
 * problem, Siconos' GlobalFrictionContactProblem; docs/problem.md, "Global
 * problems"):
 *     M v = H r + f,      u = H' v + w,      (u, r) on the Coulomb cones
 * v holds the six velocities (linear, angular, world frame) of each
 * dynamic body a row touches, in body order: libsolvers' slv_global_form
 * (slv.h), ndof = 6 per body (rows of M and of H), n = the problem's rows
 * (3 per contact, columns of H), M with both triangles.
 *
 * The global form of w's last step (world_global.c) into *out, its arrays
 * malloc'd (slv_global_form_free), and into *mu (unless mu is NULL) each
 * contact's friction coefficient (n / 3: the problem's cone_mu), malloc'd
 * (free()).  Refused (DYN_ERR_INPUT, *out zeroed, *mu NULL, msg names it):
 * no kept assembly of the last problem, a row outside the cones (joint
 * rows, box friction: FCLIB's global problem holds contacts only), a row
 * with cfm > 0 (it has no term for it), a body whose mass block is not
 * invertible; DYN_ERR_NOMEM. */
DYN_API dyn_err dyn_world_global_new(const dyn_world *w, slv_global_form *out, double **mu,
                                     char *msg, size_t msgcap);

/* The global form of w's last step with its first jr rows (the joints')
 * condensed at the answer x (p->n values, the impulses the step's
 * condensation is taken at: slv_condense_rows_global; docs/models.md,
 * "Joint rows condensed"): the contact rows' global problem, whose W and q
 * are those of slv_condense_rows on the same rows.  v there holds
 * coordinates of a null-space basis of the hard joint rows per coupled
 * block, not the bodies' velocities (a body without joint rows keeps its
 * six).  *out and *mu as dyn_world_global_new's.  *info (may be NULL)
 * says what was condensed.  Refused (DYN_ERR_INPUT, *out zeroed, *mu NULL,
 * msg names it): no kept assembly, rows from jr on that are not the
 * contacts' cones in order, a contact row with cfm > 0, hard joint rows
 * dependent and inconsistent, a body whose mass block is not invertible;
 * DYN_ERR_NOMEM. */
DYN_API dyn_err dyn_world_global_condensed_new(const dyn_world *w, const double *x, int jr,
                                               slv_global_form *out, double **mu,
                                               slv_condense_global_info *info, char *msg,
                                               size_t msgcap);

/* The last solve (*out), valid until the next step or dyn_world_free: also
 * after a step that failed in its judge stage (DYN_ON_FAILURE_KEEP or
 * STOP: then x_applied is NULL), so that the failing problem can be
 * written (lcplab simulate --dump-failures).  Returns 0 if there was no
 * solve since the last successful step without rows, or none at all (*out
 * zeroed), else 1. */
DYN_API int dyn_world_last_solve(const dyn_world *w, dyn_world_solve *out);

/* The contacts of the last step (size *n), valid until the next step:
 * bodies a, b, shapes sa, sb (model indices), point, normal (from a to b),
 * depth (> 0 penetration, < 0 a gap within the margin) and the combined
 * material (mu, restitution) of the two shapes: the contacts of the last
 * step's problem (docs/scenes.md, "Queries"). */
DYN_API const dyn_contact *dyn_world_contacts(const dyn_world *w, int *n);

/* The matrices of the last step's problem (world_query.c; docs/scenes.md,
 * "Queries"), over the velocities of all nb bodies of the world: body i's
 * (v, w), world frame, at columns 6 i .. 6 i + 5.  Read from the step's
 * assembly, so that
 *     A = J Minv J' + diag(cfm)
 * on every row but a friction pyramid's auxiliary ones (J = 0 there),
 * and b = J u_free - rhs (dyn_velocity_form).  Owned by the record
 * (dyn_step_matrices_free). */
typedef struct dyn_step_matrices {
  int n;        /* rows of the problem */
  int nb;       /* bodies: J has 6 nb columns */
  int *Jp, *Jj; /* J, n x 6 nb, CSR: each row's nonzero entries, columns increasing */
  double *Jx;
  double *M;            /* 36 per body, row-major 6 x 6: diag(m I3, I_world) at the pose the
                       step assembled at; zeros for a static body (no velocity) */
  double *Minv;         /* 36 per body: diag(m^-1 I3, I_world^-1), the assembly's; zeros
                       for a static body */
  double *cfm;          /* n */
  int joint_rows;       /* the joints' rows come first: rows 0 .. joint_rows - 1 */
  int rows_per_contact; /* contact c (dyn_world_contacts) has rows joint_rows + c
                           rows_per_contact .. + rows_per_contact - 1: (n, t1, t2) for
                           box friction and cones, n alone without friction, (n,
                           beta_1 .. beta_eta, aux) for the pyramid */
} dyn_step_matrices;

/* The matrices of w's last step into *out.  Refused (DYN_ERR_INPUT, *out
 * = NULL, msg names it): no step with rows since the world was built (or
 * restored), a body whose mass block is not invertible; DYN_ERR_NOMEM. */
DYN_API dyn_err dyn_world_step_matrices_new(const dyn_world *w, dyn_step_matrices **out, char *msg,
                                            size_t msgcap);
DYN_API void dyn_step_matrices_free(dyn_step_matrices *m); /* NULL is fine */

/* ---- the state ------------------------------------------------------------------- */

/* A world's state saved in a caller's buffer and restored: every body's r,
 * q, v, w and loads f_ext, t_ext, the warm-start impulses (the kept
 * contacts and joint impulses), the time and the step count.  Restoring
 * then stepping gives the same bits as never having saved.  The settings,
 * the model, the joints' motors and limits and the last step's problem are
 * not state (the last problem is dropped by a restore: dyn_world_last_problem
 * gives n = 0).
 *   dyn_world_state_size   the bytes a save of the world as it is now needs
 *                          (it grows with the contacts kept);
 *   dyn_world_save_state   writes them into buf[size]: DYN_ERR_INPUT when
 *                          size is short or an argument NULL;
 *   dyn_world_restore_state  reads a save of this world (or of one built
 *                          from the same model: bodies and joints must
 *                          match): DYN_ERR_INPUT for another layout or a
 *                          buffer too short, DYN_ERR_NOMEM (the warm start
 *                          then dropped, the bodies restored), the message
 *                          in dyn_world_message. */
DYN_API size_t dyn_world_state_size(const dyn_world *w);
DYN_API dyn_err dyn_world_save_state(const dyn_world *w, void *buf, size_t size);
DYN_API dyn_err dyn_world_restore_state(dyn_world *w, const void *buf, size_t size);

/* A world in reduced coordinates: its tree's joint velocities u (ndof, in
 * dyn_redmax_offsets' order: what dyn_world_step_jacobian's velocities
 * are there), read and written (the bodies exported from them).  0 /
 * DYN_ERR_INPUT for a maximal world (the message names it), a non-finite
 * entry (DYN_ERR_INPUT, named). */
DYN_API int dyn_world_joint_velocity_count(const dyn_world *w);
DYN_API int dyn_world_joint_velocities(const dyn_world *w, double *u);
DYN_API dyn_err dyn_world_set_joint_velocities(dyn_world *w, const double *u);

/* ---- the derivative of a step (world_jacobian.c) ------------------------------ */

/* What the step's answer was differentiated at: its rows by mode
 * (slv_sensitivity_count), and the diagonal delta added to A where its
 * free block was singular (redundant contacts; 0 when it was not). */
typedef struct dyn_step_jacobian_info {
  int rows, free, lower, upper, sliding, degenerate;
  double regularized;
} dyn_step_jacobian_info;

/* The velocities the Jacobians are over: 6 per body (v, w, world frame, in
 * body order, static bodies included) in maximal coordinates, the tree's
 * joint velocities (ndof: dyn_redmax_offsets' order) in reduced ones; 0
 * for NULL. */
DYN_API int dyn_world_step_jacobian_size(const dyn_world *w);
/* The loads the force Jacobians are over: 6 per body (f_ext, t_ext, world
 * frame, body order, static bodies included: zero columns), either
 * coordinates; 0 for NULL. */
DYN_API int dyn_world_step_jacobian_force_size(const dyn_world *w);

/* The derivative of w's last step (docs/gradients.md, "Through a world
 * step") with its contact set, geometry and rows' rhs held fixed and each
 * row's mode at the applied impulses held (slv_sensitivity): row-major
 * matrices, nv x nv (dv_du, dq_du) and nv x nf (dv_df, dq_df), nv =
 * dyn_world_step_jacobian_size, nf = dyn_world_step_jacobian_force_size
 * (equal in maximal coordinates); any may be NULL:
 *   dv_du  d u+ / d u         (u: the velocities at the start of the step)
 *   dv_df  d u+ / d (f_ext, t_ext)
 *   dq_du, dq_df  the positions' change through the integrator: in maximal
 *          coordinates dr and the world rotation vector dth of q+ ->
 *          exp(dth) q+ (the settings' integrator); in reduced ones one per
 *          dof, a hinge's or slide's dq and a ball's child-frame rotation
 *          vector of Q+ -> Q+ exp(dth) (the tree's semi-implicit step).
 * *info (may be NULL) the rows' modes.  Refused (DYN_ERR_INPUT, msg says
 * why): no step with rows since the world was built or restored, a failed
 * last step; DYN_ERR_NUMERIC when the answer's
 * free block is singular even with 1e-10 max|A_ii| on its diagonal (see
 * info.regularized: the impulses' derivative is then the least-norm one's
 * limit, the velocities' is unique); DYN_ERR_NOMEM. */
DYN_API dyn_err dyn_world_step_jacobian(const dyn_world *w, double *dv_du, double *dv_df,
                                        double *dq_du, double *dq_df, dyn_step_jacobian_info *info,
                                        char *msg, size_t cap);

/* The derivative of w's last step with respect to the actuators' controls
 * (dyn_world_set_ctrl), held fixed as dyn_world_step_jacobian holds them:
 * row-major nv x nc, nv = dyn_world_step_jacobian_size, nc =
 * dyn_world_ctrl_count (either may be NULL; nothing written when nc is 0):
 *   dv_dc  d u+ / d ctrl,   dq_dc  the positions' change (dyn_world_step_jacobian's
 *          tangent coordinates).
 * A clamped control (ctrlrange, forcerange) has derivative 0 beyond its
 * clamp (central differences across it: half the slope at the clamp
 * itself).  Reduced coordinates only (a maximal world's controls are all 0
 * and drive nothing): DYN_ERR_INPUT otherwise, and for what
 * dyn_world_step_jacobian refuses; DYN_ERR_NUMERIC, DYN_ERR_NOMEM as it. */
DYN_API dyn_err dyn_world_step_jacobian_ctrl(const dyn_world *w, double *dv_dc, double *dq_dc,
                                             char *msg, size_t cap);

/* ---- scenes (scenes.c) ------------------------------------------------------ */

/* Number of named scenes, and the i-th one's name and one-line description
 * (keys with their defaults); NULL if i is out of range. */
DYN_API int dyn_scene_count(void);
DYN_API const char *dyn_scene_name(int i);
DYN_API const char *dyn_scene_summary(int i);

/* The named scene's model (dyn_model.h), filled from its parameters:
 * params are nparams strings "key=value" (value a number; integer keys
 * must be whole numbers).  The model holds the scene's bodies (dynamic
 * bodies first, index i = the peers' body i, static half-spaces after
 * them), their shapes, the scene's one material (named after the scene:
 * its mu and restitution), its joints, gravity, restitution threshold, the
 * bodies' rest positions (the stack's and pyramid's start gaps closed) and
 * the default run (dyn_model_default_steps: 600 steps, the incline 1 s).
 * The caller owns *out (dyn_model_free), and may change it before building
 * a world from it.  Errors (DYN_ERR_INPUT, *out = NULL, one line in msg
 * naming it): unknown scene, unknown or repeated key, a value that is not
 * a number, a count out of range, mass or density <= 0, mu < 0,
 * restitution outside [0, 1]. */
DYN_API dyn_err dyn_scene_model(const char *name, const char *const *params, int nparams,
                                dyn_model **out, char *msg, size_t msgcap);

/* The named scene's world: its model (dyn_scene_model) built with the
 * settings base (NULL: dyn_world_settings_default()) as
 * dyn_world_settings_for_model makes them: the scene's gravity unless base
 * gives one (DYN_GIVEN_GRAVITY), its restitution threshold; the contacts
 * take the scene's material (base's contact.mu and contact.restitution are
 * not used: every shape of a scene has a material).
 * Articulated scenes (pendulum, double_pendulum, chain, door, wheel,
 * slider, car, slider_crank, ragdoll; scenes.c documents each) have joints
 * (dyn_world_joints): their rows are free (lo = -inf, hi = +inf) besides
 * any limit or motor rows, so they need a solver with SLV_CAP_FREE (every
 * registered one has it; "direct" takes only free rows, so not the door,
 * wheel, slider, car, slider_crank or ragdoll).  The default run and the
 * rest positions are the model's (dyn_world_model).  Errors
 * (DYN_ERR_INPUT, *out = NULL, one line in msg): those of
 * dyn_scene_model, and any settings error (dt <= 0, ...). */
DYN_API dyn_err dyn_scene_new(const char *name, const char *const *params, int nparams,
                              const dyn_world_settings *base, dyn_world **out, char *msg,
                              size_t msgcap);

#ifdef __cplusplus
}
#endif
#endif /* DYN_WORLD_H */
