/*
 * world_reduced.h -- private to libdynamics: the reduced-coordinate
 * representation of a world (world_reduced.c; docs/redmax.md, "Contacts";
 * docs/models.md, "Third-party models: the representation").
 *
 *   redmax_model.c   dyn_rm_tree_of_model: a scene model's tree for a
 *                    world (free roots, welds, frames, limits, motors,
 *                    springs, armature), or a refusal naming the record
 *   world_reduced.c  the world built on it and the stages of its step
 */
#ifndef DYN_WORLD_REDUCED_H
#define DYN_WORLD_REDUCED_H

#include "dyn_redmax.h"
#include "model_internal.h"

/* A model's tree: tree body k < nd is the model's k-th dynamic body
 * (frames, mass 0, included); a free root adds three massless frames
 * (slides along world x, y, z), tree bodies nd, nd + 1, ..., and hangs the
 * body from the last by a ball at its centre of mass: six dofs. */
typedef struct dyn_rm_tree {
  int nt;                /* tree bodies */
  dyn_rm_body_def *defs; /* nt */
  int *tree_of;          /* per model body: its tree body, -1 for a static body */
  int *jbody;            /* per model joint: the tree body it moves (-1: none) */
  int *jsign;            /* per model joint: +1 when the model's coordinate (b
                            relative to a) is the tree's, -1 when opposite (every
                            joint of a tree is +1: the tree's axis is flipped
                            where the joint's a is the child) */
  int *root;             /* per tree body: 1 for the ball of a free root */
  int *cut;              /* per model joint: 1 when it closes a loop (a joint whose
                            bodies earlier joints tie already: MJCF's connect and
                            weld), 0 for the tree's; a cut joint is the world's
                            joint rows in joint space (world_reduced.c) */
  int ncut;
} dyn_rm_tree;

/* The tree of model m for a world in reduced coordinates (refusals,
 * DYN_ERR_INPUT, name the record and end "use maximal coordinates"): a
 * joint kind other than hinge, slider, ball or fixed; soft rows; a spring
 * with a rest position other than the initial pose; armature on a loop's
 * cut joint; a body other than a free root that does not start at rest.
 * DYN_ERR_NOMEM. */
dyn_err dyn_rm_tree_of_model(const dyn_model *m, dyn_rm_tree *t, char *msg, size_t cap);
void dyn_rm_tree_free(dyn_rm_tree *t);
struct dyn_world;
/* The tree of a world in reduced coordinates, or NULL (maximal). */
const dyn_rm_tree *dyn_reduced_tree(const struct dyn_world *w);

/* The tree's state in a saved world state (world_state.c): its q and u,
 * then, when the model has a muscle, every actuator's activation
 * (dyn_world_act) (nq + ndof (+ actuators) doubles; 0 for a world in
 * maximal coordinates), read into out,
 * and written back from in with the bodies exported from it (DYN_ERR_INPUT,
 * the world's message naming the entry, for a non-finite one or a zero
 * quaternion). */
struct dyn_world;
int dyn_reduced_state_count(const struct dyn_world *w);
void dyn_reduced_state_get(const struct dyn_world *w, double *out);
dyn_err dyn_reduced_state_set(struct dyn_world *w, const double *in);

/* What the derivative of a reduced world's last step reads
 * (world_jacobian_reduced.c), valid until the next step: the tree's
 * state before the step (q0, u0) and after it (unew), the step's loads per
 * tree body (fx, tx), its rows in joint space (Gt: ndof x n, row i of G
 * contiguous) and Y = A_r^-1 G^T (the same layout, set only on the dofs
 * of row i's trees rtree[2i], rtree[2i + 1]: -1 for none, the rest of Y
 * stale); 0 when the world is maximal or its last step had no rows. */
typedef struct dyn_reduced_view {
  int ndof, nq, n;
  const double *q0, *u0, *unew, *Gt, *Y;
  const int *rtree;
  const dyn_v3 *fx, *tx;
  const dyn_rm_tree *tree;
  const dyn_redmax *rm;
} dyn_reduced_view;
int dyn_reduced_view_of(const struct dyn_world *w, dyn_reduced_view *v);

/* dyn_world_step_jacobian of a world in reduced coordinates
 * (world_jacobian_reduced.c), and what it shares with maximal's
 * (world_jacobian.c): SO(3)'s left Jacobian, and the sensitivity of the
 * step's answer (regularised where its free block is singular). */
struct dyn_step_jacobian_info;
dyn_err dyn_reduced_step_jacobian(const struct dyn_world *w, double *dv_du, double *dv_df,
                                  double *dq_du, double *dq_df, struct dyn_step_jacobian_info *info,
                                  char *msg, size_t cap);
dyn_err dyn_reduced_step_jacobian_ctrl(const struct dyn_world *w, double *dv_dc, double *dq_dc,
                                       char *msg, size_t cap);
dyn_m3 dyn_so3_left_jacobian(dyn_v3 phi);
slv_status dyn_jac_answer_sensitivity(const struct dyn_world *w, const slv_problem *p,
                                      const double *x, slv_problem *q, void **keep, double *delta,
                                      slv_sensitivity **s, char *msg, size_t cap);

/* The integrator's energy rule (world_judge_integrator.c): the work of the
 * free motion's sources over the step just integrated, h f.(v0 + v1) / 2
 * for the actuators' efforts on the joints and the loads on the tree's
 * bodies (their f_ext, t_ext and the tendons' forces), into *work; 0 (and
 * *work 0) when the tree has forces whose work it does not measure
 * (slider-cranks, the tendons' springs).  restore_state puts the tree's q
 * and u back to the step's start (a step failed after its integrate stage). */
int dyn_reduced_free_work(const struct dyn_world *w, double h, double *work);
void dyn_reduced_restore_state(struct dyn_world *w);

/* The rows' trees of the last assembly (2 per row, -1 none: row_trees) and
 * the forest's tree count into *ntree; NULL in maximal coordinates. */
const int *dyn_reduced_row_trees(const struct dyn_world *w, int *ntree);

/* The actuators' controls on a tree (world_ctrl.c): model m's slider-cranks
 * into rm (tree t; DYN_OK with none, DYN_ERR_NOMEM, DYN_ERR_INPUT for a
 * crank not in the tree), and ctrl's forces onto rm: each joint's effort
 * (effort[joint count], written) and each slider-crank's control force;
 * -1, or the index of an actuator whose joint (*joint, may be NULL) takes
 * no force. */
dyn_err dyn_ctrl_cranks_init(const dyn_model *m, const dyn_rm_tree *t, dyn_redmax *rm);
/* The muscles' activations of w (one per actuator; NULL: no actuators). */
double *dyn_world_act(const struct dyn_world *w);
int dyn_ctrl_apply(const dyn_model *m, const dyn_rm_tree *t, dyn_redmax *rm, const double *ctrl,
                   double *effort, int *joint);

#endif /* DYN_WORLD_REDUCED_H */
