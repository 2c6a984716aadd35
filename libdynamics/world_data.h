/*
 * world_data.h -- struct dyn_world: a pointer to its model (shared, only
 * read: the bodies' constants are its records), its data (the bodies'
 * state, the joints,
 * the collision records, the step's buffers, the warm start, the solver
 * workspaces) and its numerical settings.  Included only by the files
 * that read or write its members:
 *
 *   world.c, world_model.c, world_reduced.c, world_step.c, world_storage.c,
 *   world_judge.c, world_state.c, world_global.c, world_run.c,
 *   world_query.c, world_summary.c, world_islands.c
 *
 * and a few tests; the collision pass, the warm-start cache, the coarse
 * correction and the scenes work on their own records (world_internal.h)
 * and do not see it.
 */
#ifndef DYN_WORLD_DATA_H
#define DYN_WORLD_DATA_H

#include "world_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

struct dyn_world {
  dyn_world_settings set;
  const slv_solver *solver;
  int rpc; /* rows per contact of set.contact */

  DYN_BUF(dyn_body_state) state; /* the bodies' state: the world's own */
  dyn_bodies bodies;             /* c: the model's constants (dyn_model_body_consts), only
                        read; s: state.p (dyn_world_reserve_bodies) */
  int nb;
  dyn_buf_double saved; /* 13 per body: r, q, v, w at the start of the step */
  dyn_buf_int deg;      /* rows per body (CSR bound) */

  /* joints (dyn_joint.h), their rows first in every step's problem */
  DYN_BUF(dyn_joint) joints;
  int nj;
  DYN_BUF(uint64_t)
  jpairs; /* sorted dyn_pair_key(min, max) of the body pairs that never
                               touch: jointed, or excluded by the model */
  int njp;

  /* the model and the collision records of its shapes (world_model.c) */
  const dyn_model *model; /* what the scene is: shared, only read (dyn_model_share);
                             the bodies' constants above are its records */
  int direct;             /* 1: every body has at most one shape, at the identity
                                pose: record i is body i with its own shape */
  DYN_BUF(dyn_shape_rt)
  srt;              /* one per collision record: a shape with its body index
                                and its pose in the body's frame (body i's when direct) */
  int nsr;          /* collision records */
  int filtered;     /* some shape has a filter other than 1 / 1 */
  dyn_buf_int jcnt; /* rows each joint wrote in this step */
  int njrows;       /* rows of the joints in this step */

  int margins;       /* some shape has a margin or gap (MuJoCo's; dyn_shape_def) */
  double margin_max; /* the largest shape margin (0 when none) */

  dyn_collider col; /* the contacts of the step are col.con.p[0 .. nc-1] */
  int nc;
  DYN_BUF(dyn_rows)
  rows;                   /* the joint rows, then the contact rows unless not kept
                             (dyn_step's ring: their records only passing in ring) */
  DYN_BUF(dyn_rows) ring; /* PASS_CONTACTS contacts' rows a thread (world_step.c) */
  int nrows;
  dyn_buf_double x;       /* the impulses applied (in: the solver's start) */
  dyn_buf_double wv;      /* w = A x + b of the solve */
  dyn_buf_double xstart;  /* the start the solver got (the warm-start candidate) */
  dyn_buf_double xsolver; /* the solver's x when another candidate was applied */
  dyn_buf_double xalt;    /* the fallback's x, P(0), scratch of the judge */
  dyn_buf_double res_w;   /* dyn_world_last_residual of a factored problem: w = A x + b */
  dyn_buf_double res_t;   /* ... and its scratch t (6 per block) */

  dyn_sys_slot dense, csr, fact;
  dyn_system *sys_last;
  slv_problem prob;
  int have_prob;  /* prob and x are the last step's (dyn_world_last_problem) */
  int have_solve; /* last is the last solve's record (dyn_world_last_solve) */
  dyn_world_solve last;

  dyn_solver_slot main, fallback;
  dyn_warm_cache warm;
  dyn_coarse coarse;
  dyn_islands islands; /* the step's contact islands (world_islands.c) */

  struct dyn_reduced *red; /* reduced coordinates (world_reduced.c), or NULL:
                              maximal coordinates */

  long step;
  double t;
  long grows; /* buffer growths, workspace and system (re)creations */
  /* the energy the run gained beyond its sources (world_judge.c, "The
   * energy rule"): excess >= 0 in J, against excess_scale (0: not yet set) */
  double excess, excess_scale;
  /* the energy the run's free motion gained beyond its sources
   * (world_judge_integrator.c, "The integrator's energy rule"): int_excess >= 0
   * in J, against int_scale (the run's drift scale at its first step; 0: not
   * yet set or none) */
  double int_excess, int_scale;
  int int_scale_set;
  double *ctrl; /* the actuators' controls (dyn_world_set_ctrl), then the
                   joints' efforts: na + nj, or NULL for a model without actuators */
  char msg[256];
};

#ifdef __cplusplus
}
#endif
#endif /* DYN_WORLD_DATA_H */
