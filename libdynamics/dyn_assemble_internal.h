/*
 * dyn_assemble_internal.h -- private helpers of contact.c and assemble.c
 * (never installed).
 */
#ifndef DYN_ASSEMBLE_INTERNAL_H
#define DYN_ASSEMBLE_INTERNAL_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#include "dyn_constraint.h"
#include "dyn_internal.h"

/* World inverse inertia R inv_I_b R^T, R = R(q): the angular block of
 * M^-1 (world frame, since J's angular parts are world vectors).  The
 * entries of dyn_m3_mul(dyn_m3_mul(R, inv_I_b), dyn_m3_transpose(R)),
 * each summed in the same order, without the products' 72-byte copies
 * and the transpose (R^T's column j is R's row j); for an isotropic body
 * (inv_I_b = s 1: dyn_m3_scalar) s 1 itself, which it is exactly. */
static inline dyn_m3 dyn_ai_inv_inertia_world(const dyn_body_const *bc, const dyn_body_state *b) {
  const double s = dyn_m3_scalar(bc->inv_I_b.m);
  if (!isnan(s)) return dyn_m3_diag(s, s, s);
  const dyn_m3 R = dyn_quat_to_m3(b->q);
  const double *r = R.m, *I = bc->inv_I_b.m;
  double P[9]; /* R inv_I_b */
  dyn_m3 W;
#pragma GCC unroll 9
  for (int i = 0; i < 3; i++)
#pragma GCC unroll 3
    for (int j = 0; j < 3; j++)
      P[3 * i + j] = r[3 * i] * I[j] + r[3 * i + 1] * I[3 + j] + r[3 * i + 2] * I[6 + j];
#pragma GCC unroll 9
  for (int i = 0; i < 3; i++)
#pragma GCC unroll 3
    for (int j = 0; j < 3; j++)
      W.m[3 * i + j] =
          P[3 * i] * r[3 * j] + P[3 * i + 1] * r[3 * j + 1] + P[3 * i + 2] * r[3 * j + 2];
  return W;
}

/* The threads dyn_assemble and dyn_apply_impulse run their per-body and
 * per-row loops on (the world sets settings.opt.threads before each
 * assembly; a new or regrown system has one), with room for the row lists'
 * counts of that many threads.  DYN_ERR_NOMEM (the system on one thread,
 * message in dyn_system_message) if that room cannot be had. */
dyn_err dyn_system_threads_reserve(dyn_system *s, int threads);

/* dyn_contact_fill_material with prm already through
 * dyn_contact_params_validate (the world checks its contact parameters
 * once a step, not once a contact); every other check is made.  The rows
 * go to o[0 ..] (not out[row0 ..]), row0 their global index (base). */
int dyn_contact_fill_checked(dyn_bodies bodies, int nb, const dyn_contact *c,
                             const dyn_contact_params *prm, double h, dyn_rows *o, int row0);

/* dyn_assemble in three parts, for a caller that passes each row while
 * it is in the caches, just written (the world step, world_step.c):
 *   dyn_assemble_begin  its argument checks (rows: the whole array, which
 *                       may not be written yet), then each body's M^-1
 *                       block and free velocity;
 *   dyn_assemble_pass   rows [i0, i1) of the nrows, whose records are
 *                       r0[0 .. i1 - i0 - 1] (a cone's three rows in one
 *                       range), checked and turned into the system's
 *                       rbody, J, G, b, rhs, bounds and cfm; a refused
 *                       row's message into msg[cap] (msg may be NULL).
 *                       Any number of times on disjoint ranges
 *                       (concurrently too) that together cover every row,
 *                       their dyn_row_pass joined by dyn_row_pass_join
 *                       from { nrows, nrows, 0, 0 };
 *   dyn_assemble_end    the refusals, as dyn_assemble makes them (a
 *                       refused row's message: bad_msg, or made again
 *                       from rows when bad_msg is NULL), and the
 *                       storage's A and *out.  It reads the records of
 *                       rows (the array) only for a refused row without
 *                       bad_msg, cones, the pyramid's auxiliary rows and
 *                       dense and CSR storage: a caller that passed
 *                       factored rows of neither kind need not keep them.
 * dyn_assemble is these with the pass on the system's threads. */
typedef struct dyn_row_pass {
  int bad_row;      /* the first row check_row refuses (a run stops there), or nrows */
  int bad_b;        /* the first row whose b is not finite, or nrows */
  int naux, ncones; /* DYN_ROW_AUX rows, cones (DYN_ROW_CONE_N rows) */
} dyn_row_pass;

dyn_err dyn_assemble_begin(dyn_system *s, dyn_bodies bodies, int nb, const dyn_rows *rows,
                           int nrows, double h, dyn_v3 g, slv_storage storage);
dyn_row_pass dyn_assemble_pass(dyn_system *s, const dyn_rows *r0, int nrows, int nb, int i0, int i1,
                               char *msg, size_t cap);
static inline void dyn_row_pass_join(dyn_row_pass *all, dyn_row_pass o) {
  if (o.bad_row < all->bad_row) all->bad_row = o.bad_row;
  if (o.bad_b < all->bad_b) all->bad_b = o.bad_b;
  all->naux += o.naux;
  all->ncones += o.ncones;
}
dyn_err dyn_assemble_end(dyn_system *s, const dyn_rows *rows, int nrows, int nb,
                         slv_storage storage, dyn_row_pass pass, const char *bad_msg,
                         slv_problem *out);

/* A dense problem whose A and b are not J M^-1 J^T and J u_free - rhs of
 * the bodies (the reduced step, world_reduced.c): the rows checked as
 * dyn_assemble checks them (the pyramid's auxiliary rows refused: they
 * have no joint-space form here), their bounds, findex, mu and cones into
 * the system, and *out the dense view whose A (nrows x nrows, column-major)
 * and b the caller fills through *A and *b.  Nothing is kept for
 * dyn_apply_impulse or dyn_system_velocity_form.  Errors: DYN_ERR_INPUT
 * (message in dyn_system_message). */
dyn_err dyn_assemble_bounds(dyn_system *s, const dyn_rows *rows, int nrows, int nb, double **A,
                            double **b, slv_problem *out);

/* The energy rule's rows of the last dyn_assemble (world_judge.c;
 * docs/dynamics.md, "The energy rule"): each row's rhs, copied by the
 * row pass, which reads it for b anyway, so that the rule need not read
 * the 168-byte row records; a borrowed view, valid as
 * dyn_system_velocity_form's. */
typedef struct dyn_energy_form {
  int nrows;
  const double *rhs; /* 1 per row */
} dyn_energy_form;

/* *out from the last dyn_assemble of s: 1, or 0 (and *out zeroed) when
 * there is none. */
int dyn_system_energy_form(const dyn_system *s, dyn_energy_form *out);

/* dyn_apply_impulse, with M^-1 J^T x taken from ws's last solve where it
 * holds K^T x of exactly this x for p, the factored view of this system's
 * last assembly (slv_workspace_ktx; the same bits as the rows' pass,
 * which it saves), else by the rows.  ws and p may be NULL (the rows). */
dyn_err dyn_apply_impulse_ws(const dyn_system *s, dyn_bodies bodies, int nb, const double *x,
                             const slv_workspace *ws, const slv_problem *p, double h, dyn_v3 g);

static inline int dyn_ai_v3_finite(dyn_v3 a) {
  return isfinite(a.x) && isfinite(a.y) && isfinite(a.z);
}

#endif /* DYN_ASSEMBLE_INTERNAL_H */
