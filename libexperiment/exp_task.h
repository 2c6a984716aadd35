/* exp_task.h -- private to the task runner: task.c (a task, and the
 * problem tasks of built-in solvers), rows.c (the rows a task writes),
 * watchdog.c (the time limit), judge.c (the verdict on an answer),
 * scratch.c (an attempt's scratch folder), external.c (external solvers),
 * scene_task.c (scene runs) and scene_peer.c (scene peers); prepare.c
 * reads a scene source's default run.
 *
 * A task appends its CSV rows through exp_tctx_row (under the watchdog's
 * lock), and arms the watchdog around each solve with the rows to add if
 * the time limit passes first (exp_wd_arm): the watchdog thread then writes
 * the result itself -- the rows so far and those -- and ends the process
 * (_exit), since a solver in the middle of a solve cannot be stopped any
 * other way.  An external solver's process group is killed first.
 */
#ifndef CLI_EXPERIMENT_TASK_H
#define CLI_EXPERIMENT_TASK_H

#include <sys/types.h>

#include "exp_internal.h"

typedef struct exp_wd exp_wd;

/* One CSV row being built: fields joined by ','. */
typedef struct exp_line {
  char s[4096];
  size_t len;
  int nf;
} exp_line;

/* The fields of a row (rows.c): a text (quoted when it holds ',' or '"', RFC
 * 4180; CR, LF and tab as blanks), a number (%.6e, nan, inf, -inf), an
 * integer, an empty field, a tolerance (%g). */
void exp_line_str(exp_line *l, const char *v);
void exp_line_num(exp_line *l, double v);
void exp_line_int(exp_line *l, long v);
void exp_line_empty(exp_line *l);
void exp_line_tol(exp_line *l, double tol);

typedef struct exp_tctx {
  const exp_plan *pl;
  int index;
  const exp_task *t;
  const exp_section *s;
  const exp_prob *prob; /* problem tasks */
  exp_wd *wd;
  exp_result *head;           /* task_status and message of the result */
  int nonconv;                /* a solve did not converge */
  char scratch[EXP_PATH_MAX]; /* this attempt's scratch folder (external solvers;
                                 "" until exp_tctx_scratch made it) */
  int cache_written;          /* a solve wrote the cache's problem (slv_result's
                                 input_written): the worker reads it again */
  exp_speed *speed;           /* the worker's (exp_cache), NULL: runs unchecked */
} exp_tctx;

/* Makes c->scratch, the attempt's own new folder PLAN/scratch/tNNNNNN.XXXXXX
 * (mkdtemp), once (scratch.c); exp_task_run removes it when the task ends
 * (exp_tctx_scratch_remove: the folder and what the solvers left in it,
 * links not followed).  0, or -1 with errno set. */
int exp_tctx_scratch(exp_tctx *c);
void exp_tctx_scratch_remove(const exp_tctx *c);

/* Appends a row (a '\n' is added) to the rows the watchdog keeps (watchdog.c). */
void exp_tctx_row(exp_tctx *c, const exp_line *l);

/* The watchdog of the task whose result goes to path with head (watchdog.c):
 * its thread started, disarmed; NULL with errno set (ENOMEM: out of memory;
 * else the thread could not start).  exp_wd_commit writes the result -- head,
 * with its load at the end and the elapsed time, and the rows added -- after
 * disarming it: 0, or nonzero with errno on a write error.  exp_wd_stop ends
 * the thread and frees the watchdog (NULL: nothing). */
exp_wd *exp_wd_start(const char *path, exp_result *head);
int exp_wd_commit(exp_wd *wd);
void exp_wd_stop(exp_wd *wd);

/* Arms the watchdog for `seconds` from now; extra (nextra rows, each ending
 * in '\n') is what the result gets if it fires.  Disarm after the solve. */
void exp_wd_arm(exp_wd *wd, double seconds, const char *extra, int nextra);
void exp_wd_disarm(exp_wd *wd);
/* The process group of a running external solver (0: none): killed when
 * the watchdog fires. */
void exp_wd_set_child(exp_wd *wd, pid_t pgid);

/* The row prefix and suffix of a problem task's rows, by kind (rows.c). */
typedef struct exp_prow {
  const char *status;
  double tol;
  int iterations, pivots, runs;
  exp_tsum t;
  const char *time_source; /* library, reported, process */
  const char *method;
  double res_rel, res_nat_inf;
  int have_numbers; /* 0: refused, time_limit, error: empty numbers */
  const char *note;
  double wall_total;           /* external: the runs' process wall time in all (0: t.total) */
  int no_residuals;            /* no solution was read (a failed external): empty res_rel,
                               res_nat_inf */
  const slv_residuals *res;    /* the measures for the last columns (res_scaled and the
                               literature's), NULL: empty */
  const char *x_digest;        /* FNV-1a of x (hex), NULL: empty (external solvers) */
  const char *reported_solved; /* an external's own verdict ("1", "0"; verdict=KEY), NULL:
                                  empty */
  double told_tol;             /* an external told {tol}: the tolerance it was told on the
                                  ladder's last rung (peer_tol); 0: empty */
} exp_prow;
void exp_problem_row(const exp_tctx *c, const exp_prow *r, exp_line *l);

/* The judgement every solver gets (judge.c; slv.h's promise):
 * slv_residuals_met, res_scaled <= tol (docs/convergence.md). */
int exp_judge(const slv_problem *p, const slv_residuals *res, double tol);

/* External solver tasks (external.c): rows for every tol. */
int exp_external_run(exp_tctx *c, const io_instance *inst, const double *tol, int nt);

/* Runs argv (execv of /bin/sh) once in its own process group under the
 * time limit (external.c): stdout captured (its last 64 KiB; into
 * stdout_text when not NULL), stderr to the scratch folder's stderr.txt,
 * the time printed after time_key ("" none: NaN).  0, or -1 when it could
 * not start. */
int exp_ext_exec(exp_tctx *c, char *const *argv, const char *time_key, double limit,
                 char *stdout_text, size_t text_len, int *exit_status, int *timed_out, double *wall,
                 double *reported);

/* Scene peer tasks of scenes sections (scene_peer.c): one summary row. */
int exp_scene_peer_run(exp_tctx *c);

/* One summary row of a scenes section (scene_task.c): r NULL for a row without
 * numbers. */
void exp_scene_summary_row(const exp_tctx *c, const char *solver, const char *friction,
                           const dyn_run_summary *r, const char *status, const char *note,
                           exp_line *l);

/* Scene tasks of drift and accuracy sections (scene_task.c): one row per
 * step.  0, or 3 when the task could not run. */
int exp_scene_run(exp_tctx *c);

/* A built-in solver's task of a scenes section (scene_task.c): one summary
 * row.  0. */
int exp_scene_summary_run(exp_tctx *c);

/* The rows task i of pl gets without numbers, each with status and note
 * (every tolerance of a problem task; a scene task's one row: a summary
 * row, or a drift or accuracy row without a step), appended to out: the
 * rows of a task whose worker died (jobs.c, "crashed").  0, or -1 out of
 * memory. */
int exp_task_bare_rows(const exp_plan *pl, int i, const char *status, const char *note,
                       exp_rbuf *out);
/* The same for a scene task (scene_task.c). */
int exp_scene_bare_rows(const exp_tctx *c, const char *status, const char *note, exp_rbuf *out);

/* A task of a gradients section (gradients_task.c): one row per row
 * class of the problem's reference answer (the reference kept in cache
 * for the next task of the same problem and section).  0, or 3 when it could not run
 * (out of memory). */
int exp_gradients_run(exp_tctx *c, const io_instance *inst, exp_cache *cache);
/* Lets go of the cache's gradients reference (exp_cache_free). */
void exp_gradients_cache_free(exp_cache *cache);
/* Its row without numbers (status, note), to out, or to the task's rows
 * when out is NULL.  0, or -1 out of memory. */
int exp_gradients_bare_rows(const exp_tctx *c, const char *status, const char *note, exp_rbuf *out);

/* A task of a fidelity section (fidelity_task.c): one judged row per
 * budget (a built-in solver) or one (a scene peer).  0, or 3 when it
 * could not run. */
int exp_fidelity_run(exp_tctx *c);
/* Its rows without numbers (status, note), to out, or to the task's rows
 * when out is NULL.  0, or -1 out of memory. */
int exp_fidelity_bare_rows(const exp_tctx *c, const char *status, const char *note, exp_rbuf *out);
/* A fidelity section's CSV preamble lines: budgets, settings, the judges
 * and their tolerances. */
void exp_fidelity_lines(FILE *f, const exp_plan *pl, const exp_section *s);

/* The world settings of a scene task (scene_task.c): defaults, the section's
 * keys, the line's settings, then solver (NULL: keep), friction model fr
 * and integrator (< 0: keep). */
dyn_world_settings exp_scene_settings(const exp_section *s, const exp_source *src,
                                      const char *solver, int fr, int integrator);

/* The default run of a scene source under settings set (scene_task.c):
 * its scene model's (dyn_model_default_steps) at the run's dt
 * (exp_source_settings); 0 when the model cannot be built. */
long exp_source_default_steps(const exp_source *src, const dyn_world_settings *set);

/* The energy drift's scale of a scene source whose run starts at energy
 * E0 (scene_task.c): its scene model's (dyn_model_drift_scale), for a
 * peer's summary; NaN when the model cannot be built. */
double exp_source_drift_scale(const exp_source *src, double E0);

/* The scene model of a scene source (scene_source.c): the named scene's with
 * the line's parameters (dyn_scene_model), or the line's model file read
 * through libmodels (mdl_read_model, approximated when the line says
 * approximate=yes; *timestep its <option timestep>, else 0).  DYN_OK, or a refusal with the message (the file, the element). */
dyn_err exp_source_model(const exp_source *src, dyn_model **m, double *timestep, char *msg,
                         size_t len);

/* The settings a scene source's runs take under set (scene_source.c):
 * libdynamics' one rule (dyn_world_settings_for_model) over its scene
 * model, so that a model file's timestep is the dt unless the line sets
 * dt=, the model's gravity the gravity unless the line sets gravity= (for
 * lcplab's runs and the scene peers' {dt} alike); set itself when the
 * model cannot be built. */
dyn_world_settings exp_source_settings(const exp_source *src, const dyn_world_settings *set);

/* The world of a scene source under settings set (scene_source.c): as
 * dyn_scene_new builds a named scene's; a model file's with the settings
 * exp_source_settings gives (its timestep unless the line sets dt=). */
dyn_err exp_source_new_world(const exp_source *src, const dyn_world_settings *set, dyn_world **w,
                             char *msg, size_t len);
/* The representation src's world runs in: the line's coordinates=, else a
 * model file's own (reduced for a kinematic tree: the file is read), else
 * maximal (a built-in scene, or a file that does not load). */
dyn_coordinates exp_source_coordinates(const exp_source *src);

/* The "# world:" preamble line of a scene source (scene_task.c): a scene
 * section's, and a problem section's scene export (the settings of the
 * world that wrote the problems, exp_export_settings, and its solver). */
void exp_scene_world_line(FILE *f, const exp_section *s, const exp_source *src);
void exp_export_world_line(FILE *f, const exp_source *src);

/* The world settings a problem section's scene line exports its problems
 * with (prepare.c): the defaults, the line's own settings and the world
 * solver of its friction model. */
dyn_world_settings exp_export_settings(const exp_source *src, int fr);

/* The most timed runs of one (solver, problem, tol) row: the repetition
 * rule stops there whatever its times (task.c, external.c; the CSV's
 * "# timing:" line states it). */
#define EXP_RUNS_MAX 100000

#define EXP_SPEED_BLOCK_S     0.002 /* s of timed runs between two checks */
#define EXP_SPEED_SLACK       0.03  /* slower than the fastest by more: slow */
#define EXP_SPEED_REPS        3     /* reference runs a check (their fastest) */
#define EXP_SPEED_CALIBRATE   200   /* reference runs of the first check */
#define EXP_SPEED_SPELL_S     1.0   /* s: a slow spell longer is waited out no longer */
#define EXP_SPEED_NORM_CHECKS 256   /* a worker's checks before slow can be its usual */

/* The fastest of reps runs of the reference loop over sp->buf, in seconds. */
double exp_speed_probe(exp_speed *sp, int reps);
/* Probes the CPU (the first call calibrates): 1 at speed, 0 slow; counts. */
int exp_speed_check(exp_speed *sp);
/* 1 when slow is the worker's usual: EXP_SPEED_NORM_CHECKS checks or more,
 * more than half of them slow (speed.c). */
int exp_speed_slow_usual(const exp_speed *sp);
/* 1 while the current slow spell is young enough to wait out (EXP_SPEED_SPELL_S)
 * and slow is not the worker's usual. */
int exp_speed_waits(const exp_speed *sp);

#endif /* CLI_EXPERIMENT_TASK_H */
