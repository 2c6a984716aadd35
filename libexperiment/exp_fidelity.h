/* exp_fidelity.h -- the physical-fidelity benchmark (issue 84, item 4;
 * experiments/README.md, "fidelity"): scenes with analytic answers
 * (fidelity.c builds them), the judges that hold a run against its answer
 * (fidelity_judge.c) and a fidelity section's tasks (fidelity_task.c).
 *
 * A scene is built in C with libdynamics' model records, not read from a
 * file: two scenes need a constant load on a body (a push, the jaws' press),
 * which no model file lcplab reads carries, and the engines' runs come from
 * the scene peers' own builders (../shared/peers/scenes, peer_scene: the
 * incline and the stack, defined there body for body as here).
 */
#ifndef LIBEXPERIMENT_EXP_FIDELITY_H
#define LIBEXPERIMENT_EXP_FIDELITY_H

#include <stddef.h>

#include "dyn_model.h"

/* What a judge measures (exp_fid_judges[k] its name, tolerance and unit). */
typedef enum exp_fid_judge_kind {
  EXP_FID_CREEP = 0,   /* a held body's speed along the free direction: 0 */
  EXP_FID_ACCEL,       /* a sliding body's acceleration: the analytic one (relative error) */
  EXP_FID_STAND,       /* the largest displacement of a body after settling: 0 */
  EXP_FID_SETTLE,      /* the largest displacement from the start: the start gaps closed */
  EXP_FID_JOINT,       /* the largest joint error: 0 */
  EXP_FID_BOUNCE,      /* the rise after the first contact: 0 */
  EXP_FID_PENETRATION, /* the largest penetration at rest: 0 */
  EXP_FID_NJUDGES
} exp_fid_judge_kind;

typedef struct exp_fid_judge_def {
  const char *name;
  double tol;       /* a run passes when its error is at most this */
  const char *unit; /* of measured, analytic and (unless relative) error */
  int relative;     /* 1: error = |measured - analytic| / |analytic| */
  const char *what; /* one line: what is measured */
} exp_fid_judge_def;

extern const exp_fid_judge_def exp_fid_judges[EXP_FID_NJUDGES];

/* A scene of the benchmark. */
typedef struct exp_fid_scene {
  const char *name;
  int judge;             /* exp_fid_judge_kind */
  long steps;            /* of dt = 1/120 s */
  const char *peer;      /* the scene peers' scene that is this one (peer_scene), NULL: none */
  const char *peer_args; /* its words (--KEY VALUE ...), blank-separated */
  const char *summary;
} exp_fid_scene;

int exp_fid_scene_count(void);
const exp_fid_scene *exp_fid_scene_at(int i);
/* The index of the scene named name, or -1. */
int exp_fid_scene_find(const char *name);
/* The scenes' names, ", "-separated, into buf. */
void exp_fid_scene_list(char *buf, size_t len);

#define EXP_FID_MAX_LOADS 2

/* A built scene: its model, the constant loads on its bodies (world
 * forces, N), the free direction of a held or sliding body (body 0 of
 * the dynamic ones: the model's first dynamic body), the analytic
 * acceleration (accel judge) and the displacement the start gaps' closing
 * allows (settle judge). */
typedef struct exp_fid_setup {
  dyn_model *model;
  int nloads;
  int load_body[EXP_FID_MAX_LOADS]; /* model body indices */
  dyn_v3 load[EXP_FID_MAX_LOADS];
  dyn_v3 along;
  double analytic;
  double allowance;
} exp_fid_setup;

/* Builds scene i into *out: 0, or -1 with err (out of memory; a record the
 * model refused, which is a defect here).  exp_fid_setup_free frees it. */
int exp_fid_build(int i, exp_fid_setup *out, char *err, size_t len);
void exp_fid_setup_free(exp_fid_setup *s);

/* A run's record: after each step, each traced body's position and
 * velocity (world), the step's contact count, penetration and joint
 * error; p0 the positions before the first step.  Allocated before the
 * run for its steps (no allocation while it steps). */
typedef struct exp_fid_trace {
  int nsteps, nbodies, cap; /* steps recorded, bodies traced, steps room */
  double dt;
  double *p, *v; /* [step][body][3] */
  double *p0;    /* [body][3] */
  double *pen, *joint;
  int *contacts;
} exp_fid_trace;

/* Room for steps steps of nbodies bodies: 0, or -1 out of memory. */
int exp_fid_trace_alloc(exp_fid_trace *tr, int steps, int nbodies, double dt);
void exp_fid_trace_free(exp_fid_trace *tr);

/* A judged run. */
typedef struct exp_fid_verdict {
  double measured, analytic, error, tol;
  int pass;
} exp_fid_verdict;

/* Judges a run's trace by judge (exp_fid_judge_kind): along the free
 * direction (creep, accel), against analytic (accel) and allowance
 * (settle).  A trace without steps, or a bounce without a landing, is
 * measured NaN and fails. */
void exp_fid_judge(int judge, const exp_fid_trace *tr, dyn_v3 along, double analytic,
                   double allowance, exp_fid_verdict *out);
/* The settle judge on a measured displacement (the scene peers report
 * their own largest displacement from the start). */
void exp_fid_judge_settle(double displacement, double allowance, exp_fid_verdict *out);
/* The least-squares slope of y[0..n) against t[0..n) (n >= 2; else NaN). */
double exp_fid_slope(const double *t, const double *y, int n);

#endif
