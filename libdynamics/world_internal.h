/*
 * world_internal.h -- the records a world is made of (the collider, the
 * warm-start cache, the coarse correction's scratch, the solver slots, the
 * step context) and the functions between its files; never installed.
 * struct dyn_world itself is in world_data.h, which only the files that
 * read or write its members include (the list is there).
 *
 *   world.c           settings, construction, accessors
 *   world_model.c     a world built on a scene model (dyn_model.h); the
 *                     collision records of its shapes
 *   world_step.c      dyn_world_step: the step as named stages over a
 *                     dyn_step context (the pipeline is at its top)
 *   world_storage.c   the storage of a step's problem, its assembly system
 *                     and the solver workspaces
 *   world_judge.c   the judge of a failed solve and the failure policy
 *                     (fallback chain, candidates)
 *   collision_pass.c  broad phase, contact order, narrow phase
 *   warmstart.c       the warm-start cache: last step's impulses by shape
 *                     pair and nearest point, and per joint
 *   world_state.c     the state saved and restored
 *   buf.c             dyn_buf, the growable array every buffer is
 *   coarse.c          the level coarse correction between sweep rounds
 *
 * The step and its stages are described in docs/dynamics.md, "The world
 * step"; warm starting in "Warm starting", the collision pass in
 * "Collision".
 */
#ifndef DYN_WORLD_INTERNAL_H
#define DYN_WORLD_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "dyn_assemble_internal.h"
#include "dyn_internal.h"
#include "dyn_world.h"
#include "model_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

struct dyn_reduced; /* reduced coordinates (world_reduced.c) */

/* ---- body pairs ---------------------------------------------------------------- */

/* The key of the body pair (a, b), a < b for an unordered pair. */
static inline uint64_t dyn_pair_key(int a, int b) {
  return ((uint64_t)(uint32_t)a << 32) | (uint32_t)b;
}

/* 1 iff key is in the sorted keys[0 .. n-1] (binary search). */
static inline int dyn_pair_sorted_has(const uint64_t *keys, int n, uint64_t key) {
  int lo = 0, hi = n;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (keys[mid] < key)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < n && keys[lo] == key;
}

/* ---- the collision pass (collision_pass.c) ---------------------------------------- */

/* A broad-phase pair's height quantised and its bodies: the top-down
 * sort's record (DYN_ORDER_TOP_DOWN), 12 bytes. */
typedef struct dyn_pair_sort {
  uint32_t q;
  int a, b;
} dyn_pair_sort;

/* What one thread's run of a split phase found. */
typedef struct dyn_run {
  long start; /* where its stretch of the buffer starts (items) */
  long count; /* pairs or contacts written */
  long fail;  /* narrow phase: the first pair rejected, or -1 */
  int code;   /* and what dyn_collide_pair returned for it */
  double pen; /* narrow phase: the deepest contact (>= 0) */
} dyn_run;

typedef struct dyn_collider {
  DYN_BUF(unsigned char) sap;   /* the broad phase's workspace (bytes) */
  DYN_BUF(int) pairs;           /* 2 ints per pair */
  DYN_BUF(dyn_pair_sort) psort; /* top-down: 2 per pair (records, radix scratch) */
  DYN_BUF(double) pheight;      /* top-down: each pair's height */
  DYN_BUF(dyn_contact) con;     /* the contacts of the pass */
  DYN_BUF(dyn_run) runs;        /* a pass on T threads: one per thread */
} dyn_collider;

/* What a pass reads besides the collision records' poses. */
typedef struct dyn_collide_in {
  double margin;             /* settings.margin */
  dyn_v3 gravity;            /* for the top-down height */
  int top_down;              /* 1: sort the pairs highest first */
  const uint64_t *nocontact; /* sorted keys of the body pairs that never touch: tied
                                by a joint, or excluded by the model */
  int nnocontact;
  const dyn_shape_rt *shapes; /* one per collision record */
  int filtered;               /* 1: some shapes' filters keep them apart (else every
                                 pair passes the filter test, which is skipped) */
  int threads;                /* settings.opt.threads */
  int margins;                /* 1: some shape has a margin or gap: each pair's own
                                 (collide_margins in collision_pass.c) */
  double margin_max;          /* the largest shape margin: the boxes grow by margin + it */
} dyn_collide_in;

/* Room for the broad phase of nb bodies; a new workspace is initialised
 * ("no order kept"). */
dyn_err dyn_collider_reserve(dyn_collider *c, int nb, long *grows);
void dyn_collider_free(dyn_collider *c);

/* Broad and narrow phase on the n shape records in->shapes of the bodies
 * (dyn_shape_rt: each shape with its body index and its pose in the
 * body's frame, placed where a phase reads it; nothing copied a pass):
 * contacts written to con.p[offset ..] with a, b their bodies, sa, sb their
 * model shapes and the pair's combined material, *nout of them, *maxpen
 * the deepest (>= 0).  Pairs of one body, pairs the filters keep apart
 * and body pairs in in->nocontact are skipped.  Errors (message in msg):
 * DYN_ERR_INPUT (a phase rejected the records), DYN_ERR_NOMEM. */
dyn_err dyn_collision_pass(dyn_collider *c, dyn_bodies bodies, int n, const dyn_collide_in *in,
                           int offset, int *nout, double *maxpen, char *msg, size_t msgcap,
                           long *grows);

/* ---- the warm-start cache (warmstart.c) ------------------------------------------- */

/* A slot of the warm-start cache's hash: a pair key (UINT64_MAX: empty),
 * its first kept contact and how many; one record, so that a look-up
 * reads one cache line. */
typedef struct dyn_warm_slot {
  uint64_t key;
  int first, count;
} dyn_warm_slot;

typedef struct dyn_warm_cache {
  DYN_BUF(dyn_contact) con; /* the kept contacts */
  int nc;                   /* 0: nothing kept */
  dyn_buf_double x;         /* their impulses, rpc per contact */
  dyn_buf_double tan;       /* box and cone friction: t1, t2 of each (6 doubles) */
  dyn_buf_double tan_step;  /* ... and of each contact of the step under way, which the
                               world writes (dyn_warm_step_tangents) and keep takes in place
                               of tan (the two swapped, no copy) */
  int rpc;
  dyn_friction fric;
  DYN_BUF(dyn_warm_slot) hash; /* open addressing on the pair key */
  size_t hcap;
  dyn_buf_int jrows; /* rows each joint wrote in the kept step (-1: none) */
  dyn_buf_double jx; /* the joints' kept impulses */
  int j_valid;
} dyn_warm_cache;

/* The unit direction e of a contact row (dyn_contact_fill's put_row:
 * J_b = (e, ..) on a moving body b, else J_a = (-e, ..)); negation is
 * exact, so these are dyn_contact_basis's vectors bit for bit.  The
 * world takes a contact's tangents t1, t2 from its rows 1 and 2 as it
 * writes them (world_step.c), so that the warm start need not read the
 * 168-byte row records again. */
static inline dyn_v3 dyn_row_dir(const dyn_rows *r) {
  if (r->body[1] >= 0) return dyn_v3_make(r->J[1][0], r->J[1][1], r->J[1][2]);
  return dyn_v3_make(-r->J[0][0], -r->J[0][1], -r->J[0][2]);
}

/* 1 iff the friction model writes two tangent rows after each normal row
 * (box and cone): the warm start carries their impulses. */
static inline int dyn_has_tangent_rows(dyn_friction f) {
  return f == DYN_FRICTION_BOX || f == DYN_FRICTION_CONE;
}

/* The rows of one step that the cache reads or keeps. */
typedef struct dyn_warm_rows {
  const dyn_contact *con; /* the step's contacts */
  int nc;
  const double *tan; /* box and cone friction: t1, t2 of each contact (6 doubles, from
                        its rows: dyn_row_dir), the cache's dyn_warm_step_tangents */
  int rpc;
  dyn_friction fric;
  const int *jrows; /* rows of each joint in this step */
  int nj;
  int njrows;  /* their sum: the joint rows come first in x */
  int threads; /* settings.opt.threads */
} dyn_warm_rows;

/* What the cache keeps, as a world's saved state holds it
 * (world_state.c): the contacts, their impulses (rpc each) and tangents
 * (6 each, box and cone friction; else NULL), the joints' row counts
 * (nj, -1: none) and impulses (njx). */
typedef struct dyn_warm_saved {
  const dyn_contact *con;
  int nc;
  const double *x;
  const double *tan;
  int rpc;
  dyn_friction fric;
  const int *jrows;
  int nj;
  const double *jx;
  int njx;
  int j_valid;
} dyn_warm_saved;

/* The cache's contents (views into it; nj the world's joints). */
dyn_warm_saved dyn_warm_get(const dyn_warm_cache *c, int nj);
/* The cache set to k (room for nj joints reserved already): the same
 * matches as the cache k was taken from.  DYN_ERR_NOMEM drops it all. */
dyn_err dyn_warm_set(dyn_warm_cache *c, const dyn_warm_saved *k, long *grows);

/* Room for this step's nc contacts' tangents (6 each, box and cone
 * friction; dyn_warm_rows' tan), or NULL (DYN_ERR_NOMEM). */
double *dyn_warm_step_tangents(dyn_warm_cache *c, int nc, long *grows);

/* Room for nj joints' counts (a new joint starts with none kept). */
dyn_err dyn_warm_reserve_joints(dyn_warm_cache *c, int nj, long *grows);
void dyn_warm_add_joint(dyn_warm_cache *c, int i);
/* Keep the step's contacts, their impulses x[njrows ..] and the joints'
 * x[0 .. njrows - 1] for the next step.  DYN_ERR_NOMEM drops what could not
 * be kept. */
dyn_err dyn_warm_keep(dyn_warm_cache *c, const dyn_warm_rows *r, const double *x, long *grows);
/* Forget the contacts (friction model changed, a step without rows). */
void dyn_warm_drop_contacts(dyn_warm_cache *c);
/* x (size njrows + nc rpc) from the kept impulses, zeros where nothing
 * matches; contact impulses scaled by factor. */
void dyn_warm_fill(const dyn_warm_cache *c, const dyn_warm_rows *r, double factor, double *x);
void dyn_warm_free(dyn_warm_cache *c);

/* ---- the coarse correction (coarse.c) ------------------------------------------------ */

/* Its scratch (docs/dynamics.md, "Coarse correction"). */
typedef struct dyn_coarse {
  dyn_buf_int lev, ptr, adj, queue; /* body levels; the contacts of each body */
  dyn_buf_int movable, iface;       /* per body; per contact: its interface or -1 */
  dyn_buf_double P;                 /* 6 per row: the prolongation */
  dyn_buf_double S;                 /* 72 per body: sum p p^T, as upper and as lower body */
  dyn_buf_double ctr;               /* 4 per level: the aggregate's centre, count */
  dyn_buf_double ab, g;             /* the banded coarse matrix; its right side, then y */
  int nlev;                         /* the highest level dyn_coarse_levels found */
  int top;                          /* the prepared highest level (0: nothing to correct) */
} dyn_coarse;

/* What the correction reads of a step. */
typedef struct dyn_coarse_in {
  dyn_bodies bodies;
  int nb;
  const dyn_contact *con; /* the step's contacts: contact k at rows njrows + k rpc .. */
  int nc;
  const dyn_rows *rows; /* the joint rows' records (the contact rows' may not be kept) */
  int nrows, njrows, rpc;
  dyn_friction friction;
  const dyn_velocity_form *vf; /* the assembly's M^-1, and each row's bodies, J and cfm */
  const slv_problem *prob;     /* the assembled problem: each row's bounds, findex and mu */
} dyn_coarse_in;

/* The step's levels (the bodies' contact distance from a static body):
 * *levels the highest, 0 when there is nothing to correct (no contacts,
 * friction other than box or none, no body resting on a static one).
 * Nothing is prepared for a correction yet (dyn_coarse_interfaces).
 * Errors: DYN_ERR_NOMEM. */
dyn_err dyn_coarse_levels(dyn_coarse *c, const dyn_coarse_in *in, int *levels, long *grows);
/* The gate (docs/dynamics.md, "Coarse correction"): 1 iff a stack of
 * levels contact levels is deep for max_iter sweeps, levels > NUM/DEN of
 * max_iter. */
#define DYN_COARSE_DEPTH_NUM 3
#define DYN_COARSE_DEPTH_DEN 4
int dyn_coarse_deep(int levels, int max_iter);
/* The interfaces of the levels dyn_coarse_levels found, for the
 * corrections of this step. */
void dyn_coarse_interfaces(dyn_coarse *c, const dyn_coarse_in *in);
/* One coarse correction of x, whose w = A x + b is given, on the prepared
 * levels: 1 when x changed; 0 and x untouched when there is nothing to
 * correct or the coarse system is singular or gives non-finite values. */
int dyn_coarse_correct(dyn_coarse *c, const dyn_coarse_in *in, double *x, const double *w);
/* dyn_coarse_correct as a pause of slv_solve_paused (ctx: a
 * dyn_coarse_pause_ctx). */
typedef struct dyn_coarse_pause_ctx {
  dyn_coarse *c;
  const dyn_coarse_in *in;
} dyn_coarse_pause_ctx;
int dyn_coarse_pause(void *ctx, double *x, const double *w);
void dyn_coarse_free(dyn_coarse *c);

/* ---- assembly systems and solver workspaces (world_storage.c) ----------------------- */

/* One assembly system and the sizes it was reserved for. */
typedef struct dyn_sys_slot {
  dyn_system *sys;
  int rows, nb;
  long nnz;
} dyn_sys_slot;

/* One solver workspace and the n it was made for. */
typedef struct dyn_solver_slot {
  const slv_solver *solver;
  slv_workspace *ws;
  int n;
} dyn_solver_slot;

/* ---- contact islands (world_islands.c) -------------------------------------------- */

/* One thread's island solves: its solver workspace and its scratch for an
 * island's problem (sized to the step's largest island before the solves). */
typedef struct dyn_island_thread {
  dyn_solver_slot slot;
  dyn_buf_double d; /* A (m x m), then b, lo, hi, mu, x, w, cone_mu (m each) */
  dyn_buf_int iv;   /* findex, cone_rows (m each) */
} dyn_island_thread;

/* The step's islands: rows that share a moving body or tree (or a friction
 * row's normal, or a cone) are in one island; island k's rows are
 * rows[off[k] .. off[k + 1]) in ascending order, its cones
 * cones[coff[k] .. coff[k + 1]); the islands are numbered by their first row. */
typedef struct dyn_islands {
  dyn_buf_int link;        /* union-find over the nodes, then the rows */
  dyn_buf_int rid;         /* per root of link: its island, -1 none */
  dyn_buf_int rnode;       /* 2 per row: its moving bodies (maximal coordinates), -1 none */
  dyn_buf_int local;       /* per row: its place in its island */
  dyn_buf_int of;          /* per row: its island */
  dyn_buf_int off, rows;   /* count + 1 offsets; the rows by island */
  dyn_buf_int coff, cones; /* count + 1 offsets; the cones by island */
  DYN_BUF(slv_result) res; /* per island: its solve's result */
  dyn_island_thread *th;   /* nth threads' workspaces and scratch */
  int nth;
  int count; /* islands of the last split */
  int maxm;  /* rows of its largest island */
} dyn_islands;

/* The rows of a problem of n rows split into islands from their nodes
 * (rnode: 2 per row, each a node in [0, nnodes) or -1) and the problem's
 * findex and cones.  Errors: DYN_ERR_NOMEM. */
dyn_err dyn_islands_split(dyn_islands *is, int nnodes, const int *rnode, const slv_problem *p,
                          long *grows);
/* The problem of island k of p (dense, as split) in the thread's scratch t
 * (reserved for is->maxm rows), its x gathered from x. */
void dyn_island_problem(const dyn_islands *is, int k, const slv_problem *p, const double *x,
                        dyn_island_thread *t, slv_problem *out, double **xk, double **wk);
/* The solvers' workspaces freed (a new solver, max_iter or history). */
void dyn_islands_drop_solvers(dyn_islands *is);
void dyn_islands_free(dyn_islands *is);

/* ---- the world ------------------------------------------------------------------- */

/* struct dyn_world itself: world_data.h, for the files that read or write
 * its members. */

/* Formats the world's message; returns e. */
dyn_err dyn_world_fail(dyn_world *w, dyn_err e, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The body array and per-body scratch for nb bodies (also the broad
 * phase's workspace, for the larger of nb and the collision records). */
dyn_err dyn_world_reserve_bodies(dyn_world *w, size_t nb);

/* ---- the mass matrix of an assembly (world_global.c) ------------------------------ */

/* Body b's 6x6 block of M (row-major into blk) from the velocity form's 10
 * numbers of M^-1 (m^-1, world I^-1; dyn_velocity_form): m I3 and the
 * world inertia, the inverse of the assembly's world I^-1, made
 * symmetric; zeros for a static body (m^-1 = 0).  0 when that block is
 * zero or its inertia is not invertible.  The global form
 * (dyn_world_global_new) and the step's queries
 * (dyn_world_step_matrices_new) take M from here. */
int dyn_mass_block(const double *Minv, double *blk);

/* The last step's problem (*p) and the velocity form of its assembly
 * (*vf): 1, or 0 when there is no step with rows or no kept assembly of
 * it (p->n then says how many rows the last problem has). */
int dyn_world_last_form(const dyn_world *w, slv_problem *p, dyn_velocity_form *vf);

/* ---- the model (world_model.c) ----------------------------------------------------- */

/* A world with the validated settings s on model m (shared:
 * dyn_model_share), no bodies yet: the start of dyn_world_new_from_model
 * (world.c).  DYN_ERR_NOMEM. */
dyn_err dyn_world_alloc(const dyn_world_settings *s, const dyn_model *m, dyn_world **out, char *msg,
                        size_t msgcap);
/* The collision input of the world's settings and shapes (top_down as given). */
dyn_collide_in dyn_world_collide_in(const dyn_world *w, int top_down);
/* Each collision record's mu and restitution from its material (the
 * settings' for DYN_MATERIAL_DEFAULT): after the settings change. */
void dyn_world_resolve_materials(dyn_world *w);
/* Torsional and rolling friction under settings set on model m
 * (world_model.c): with a material of condim 4 or 6 and mu_torsion > 0
 * (or for 6 mu_rolling > 0), box friction takes its spin row
 * (set->contact.torsion = 1), and with one of condim 6 and mu_rolling >
 * 0 its two rolling rows (set->contact.rolling = 1); the cone and the
 * pyramid have none: refused, the material named (DYN_ERR_INPUT). */
dyn_err dyn_world_torsion_rule(const dyn_model *m, dyn_world_settings *set, char *msg, size_t cap);
/* ---- the step (world_step.c) -------------------------------------------------------- */

/* The stages of a step, in order (dyn_world_metrics.stage_time_s). */
typedef enum dyn_stage {
  DYN_STAGE_PREPARE = 0, /* state saved; Verlet's half drift; gyroscopic term */
  DYN_STAGE_COLLIDE,     /* contacts of the current state */
  DYN_STAGE_BUILD_ROWS,  /* joint rows, then contact rows */
  DYN_STAGE_ASSEMBLE,    /* storage, system, w = A x + b; the warm start */
  DYN_STAGE_SOLVE,       /* the named solver */
  DYN_STAGE_JUDGE,       /* a failed solve: the failure policy picks the impulses */
  DYN_STAGE_APPLY,       /* u+ = u + M^-1 (J^T x + h f); the warm-start cache */
  DYN_STAGE_INTEGRATE,   /* positions */
  DYN_STAGE_METRICS      /* the step's record */
} dyn_stage;

/* The judge's verdict on a step's solve (world_judge.c). */
typedef struct dyn_step_verdict {
  int failed;                 /* the solve failed (dyn_failure_policy) */
  dyn_applied applied;        /* the candidate applied */
  const slv_solver *fallback; /* the fallback solver, if one ran */
  slv_status fallback_status;
  double res_applied;  /* res_nat_inf of the applied candidate */
  int energy;          /* failed by the energy rule (world_judge.c) */
  int step_energy;     /* failed by the per-step energy bound (world_judge.c) */
  double excess;       /* that bound's excess D of the solver's x (J; 0 without rows) */
  double excess_scale; /* and its scale S (J) */
} dyn_step_verdict;

/* Everything one step carries from stage to stage. */
typedef struct dyn_step {
  dyn_world *w;
  dyn_world_metrics *m;     /* the caller's record, or NULL */
  long k;                   /* this step's number (the count after it) */
  double h;                 /* settings.dt */
  dyn_v3 g;                 /* settings.gravity */
  double t0;                /* wall clock at the start */
  int nc;                   /* contacts */
  double maxpen;            /* deepest contact */
  slv_storage storage;      /* of the problem (SLV_DENSE without rows) */
  dyn_system *sys;          /* the system it was assembled in (NULL without rows) */
  int passed;               /* the build rows stage began the assembly in sys and passed
                               every row as it wrote it (world_step.c, begin_pass) */
  int ring;                 /* ... the contact rows' records in w->ring only, not kept */
  dyn_row_pass pass;        /* ... what the pass found */
  char bad_msg[200];        /* ... a refused contact row's message (ring) */
  slv_options opt;          /* of the solve */
  slv_result res;           /* of the solve (status converged without rows) */
  dyn_step_verdict verdict; /* the judge's */
  double time[DYN_WORLD_STAGES];
  /* the integrator's energy rule (world_judge_integrator.c) */
  double t_start;  /* w->t at the start (a step failed after integrate puts it back) */
  double e_start;  /* the energy at the start: the bodies' and the tree's joints' (J) */
  double imp_gain; /* the energy the applied impulses add, before their sources (J; 0
                      without rows: world_judge.c) */
  int have_end;    /* kinetic_end and potential_end hold the bodies' energy after the step */
  double kinetic_end, potential_end;
  int int_failed;    /* failed by the integrator's energy rule */
  double int_excess; /* the run's integrator excess after the step (J; NaN: not judged) */
} dyn_step;

typedef dyn_err (*dyn_stage_fn)(dyn_step *s);

/* A step driven stage by stage (dyn_world_step is these two): begin fills
 * the context for the world's next step (m may be NULL) and reserves the
 * per-body buffers; stage runs stage i (dyn_stage order), timed, and on
 * failure restores the world as dyn_world_step does. */
dyn_err dyn_step_begin(dyn_world *w, dyn_step *s, dyn_world_metrics *m);
dyn_err dyn_step_stage(dyn_step *s, int i);

/* The stage functions, each over the step context; the world's pipeline
 * runs them in dyn_stage order (world_step.c).  Exposed for tests. */
dyn_err dyn_stage_prepare(dyn_step *s);
dyn_err dyn_stage_collide(dyn_step *s);
dyn_err dyn_stage_build_rows(dyn_step *s);
dyn_err dyn_stage_assemble(dyn_step *s);
dyn_err dyn_stage_solve(dyn_step *s);
dyn_err dyn_stage_judge(dyn_step *s);
/* The integrator's energy rule and the state bound (world_judge_integrator.c;
 * docs/dynamics.md, "The integrator's energy rule"): begin records the
 * step's starting energy (from dyn_step_begin), judge runs after the
 * integrate stage (from dyn_step_stage).  judge's errors: DYN_ERR_NUMERIC
 * (the state bound, or the rule under the policies stop and keep), with the
 * world's message; the caller restores the world. */
void dyn_integrator_begin(dyn_step *s);
dyn_err dyn_integrator_judge(dyn_step *s);
/* Contact islands (world_islands.c): prepare splits the step's assembled
 * problem when settings.islands asks and reserves the islands' workspaces,
 * *use 1 when it has two islands or more; solve then solves them into
 * w->x, w->wv and s->res (the step's verdict, residuals of the whole).
 * Errors: DYN_ERR_NOMEM, or a workspace's, with the world's message. */
dyn_err dyn_world_islands_prepare(dyn_step *s, int *use);
slv_status dyn_world_islands_solve(dyn_step *s);
/* The islands of the last step's split; 0 or 1: its problem was solved whole
 * (islands off, not dense, one tree, or one island). */
int dyn_world_islands_last(const dyn_world *w);
dyn_err dyn_stage_apply(dyn_step *s);
dyn_err dyn_stage_integrate(dyn_step *s);
dyn_err dyn_stage_metrics(dyn_step *s);
/* The rows the warm-start cache reads and keeps. */
dyn_warm_rows dyn_world_warm_rows(const dyn_world *w);

/* ---- reduced coordinates (world_reduced.c) ----------------------------------------- */

/* The stage function of stage i in a world in reduced coordinates: the
 * reduced stages where the step differs (prepare, build rows, assemble,
 * apply, integrate), the world's own elsewhere. */
dyn_stage_fn dyn_reduced_stage(int i);
/* The apply stage's end, in either representation (world_step.c): the
 * applied impulses kept as the last step's (the problem, x, the verdict)
 * and for the next step's warm start. */
dyn_err dyn_world_keep_applied(dyn_step *s);
void dyn_reduced_free(struct dyn_reduced *r);
/* The reduced state of model m (its tree validated) for a world of
 * settings s, or a refusal (message in msg); the world takes it
 * (world_model.c); dyn_reduced_export_bodies poses its bodies from the
 * tree (after the build and after each step). */
dyn_err dyn_reduced_new(const dyn_model *m, const dyn_world_settings *s, struct dyn_reduced **out,
                        char *msg, size_t cap);
void dyn_reduced_export_bodies(dyn_world *w);
/* The body pairs a chain of massless frames separates, which never touch
 * either: *keys (dyn_pair_key, a < b), their count returned. */
int dyn_reduced_frame_pairs(const struct dyn_reduced *r, const uint64_t **keys);
/* For tests: the tree, a body's tree body (-1: static), and row i of the
 * last step's G (joint space; ndof numbers into g) or -1. */
struct dyn_redmax *dyn_reduced_redmax(const dyn_world *w);
/* The controls of the model's actuators, all 0 (world_ctrl.c): w->ctrl. */
dyn_err dyn_world_ctrl_alloc(dyn_world *w, char *msg, size_t cap);
int dyn_reduced_tree_body(const dyn_world *w, int body);
int dyn_reduced_row(const dyn_world *w, int i, double *g);
/* The last step's problem in joint space (its global form, world_global.c):
 * ndof, n rows, its still rows (decoupled: no global form), G^T (ndof x n),
 * A_r = Mr + armature + h D + h^2 K (ndof x ndof) and u_free; 1, or 0 for
 * a maximal world or no step with rows. */
typedef struct dyn_reduced_form {
  int ndof, n, nstill;
  const double *Gt, *Ar, *ufree;
} dyn_reduced_form;
int dyn_reduced_last_form(const dyn_world *w, dyn_reduced_form *f);
/* The energy the step's impulses x would add in a world in reduced
 * coordinates (the failure policy's energy rule, world_judge.c), before
 * its sources are taken off. */
double dyn_reduced_impulse_energy(const dyn_step *s, const double *x);

/* ---- storage and workspaces (world_storage.c) --------------------------------------- */

/* The storage of this step's problem (settings.storage, dyn_world.h). */
dyn_err dyn_world_pick_storage(dyn_world *w, slv_storage *out);
/* The system for that storage, grown to this step's rows. */
dyn_err dyn_world_reserve_system(dyn_world *w, slv_storage storage, dyn_system **out);
/* The slot's workspace of solver s for n rows (x 1.25 growth). */
dyn_err dyn_world_reserve_solver(dyn_world *w, dyn_solver_slot *slot, const slv_solver *s, int n,
                                 const slv_options *opt);
void dyn_solver_slot_free(dyn_solver_slot *slot);
/* The row buffers (rows, x, w and the candidates') for n rows. */
dyn_err dyn_world_reserve_rows(dyn_world *w, size_t n);

/* ---- the judge (world_judge.c) ----------------------------------------------------- */

/* The physical floor of the step's convergence test (slv_workspace_set_floor;
 * docs/dynamics.md, "The convergence floor"): DYN_FLOOR_FACTOR times the
 * impulse gravity g gives the world's lightest moving body in one step h,
 * m_min |g| h (N s); 0 without gravity or without a moving body. */
#define DYN_FLOOR_FACTOR 1e-2
double dyn_world_floor(const dyn_world *w, double h, dyn_v3 g);

/* 1 iff the solve of this step failed in the sense of the failure policy
 * (dyn_world.h, dyn_failure_policy). */
int dyn_solve_failed(const dyn_world *w, const slv_result *res);

#ifdef __cplusplus
}
#endif
#endif /* DYN_WORLD_INTERNAL_H */
