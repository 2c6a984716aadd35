/*
 * dyn_constraint.h -- constraint rows and their assembly into a libsolvers
 * problem (public header of libdynamics, part 2).
 *
 * Every constraint kind gives max_rows() (a cheap bound, for reservation)
 * and fill() (ODE's getSureMaxInfo / getInfo2 split).  fill
 * writes one dyn_rows record per row; dyn_assemble turns an array of them
 * into the unified boxed LCP of docs/dynamics.md, "The world step":
 *
 *     w = A x + b,   A = J M^-1 J^T + diag(cfm) (+ the pyramid's auxiliary
 *                        entries, below),
 *                    b = J (u + h M^-1 (f_ext + m g, t_ext)) - rhs,
 *
 * x the impulses (h times the constraint forces), lo <= x <= hi, findex
 * friction rows, Coulomb cones.  A row asks for J u+ >= rhs when x sits at
 * lo = 0 (contacts): rhs is b_error (k_cor times the error, docs/contact.md, "CFM and ERP";
 * restitution, speculative gap).  After the solve, dyn_apply_impulse gives
 *     u+ = u + M^-1 (J^T x + h f_ext) + h g
 * so that w = J u+ - rhs.
 *
 * u is the body velocity stack (v, w) per body, world frame; M^-1 per
 * dynamic body is diag(inv_mass I3, R inv_I_b R^T).  Static bodies (and the
 * world) appear as body index -1 in the rows and contribute nothing.
 *
 * Gyroscopic terms are not handled here: the caller puts -w x (I w) into
 * t_ext (explicit) or updates w beforehand (implicit; docs/dynamics.md,
 * "Rotation and the gyroscopic term").
 *
 * Errors: functions return dyn_err (dyn.h); dyn_assemble, dyn_system_reserve
 * and dyn_system_csr_nnz leave a one-line message in the system
 * (dyn_system_message).  Only dyn_system_new and dyn_system_reserve
 * allocate.
 */
#ifndef DYN_CONSTRAINT_H
#define DYN_CONSTRAINT_H

#include <stddef.h>

#include "dyn.h"
#include "slv.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- rows ---------------------------------------------------------------- */

typedef enum dyn_row_kind {
  DYN_ROW_PLAIN = 0, /* bounds lo..hi, or +-mu x[findex] when findex >= 0 */
  DYN_ROW_CONE_N,    /* first (normal) row of a Coulomb cone (n, t1, t2); mu = cone mu */
  DYN_ROW_CONE_T,    /* the two tangent rows following a DYN_ROW_CONE_N row */
  DYN_ROW_AUX        /* friction pyramid's auxiliary row lambda (docs/contact.md): J = 0 and
                        A(aux, n) = mu, A(aux, beta_h) = -1, A(beta_h, aux) = +1 for the
                        aux_count rows beta_h starting at local row aux_first; n = findex */
} dyn_row_kind;

/* One constraint row, as fill() writes it.  Local indices (findex,
 * aux_first) count from the first row of the same constraint, whose global
 * index is base; dyn_assemble adds base. */
typedef struct dyn_rows {
  int body[2];    /* body indices (into the bodies array) or -1 (world, static body) */
  double J[2][6]; /* J[k] = (linear 3, angular 3) on body[k], world frame */
  double rhs;     /* velocity target (m/s or rad/s): w = J u+ - rhs */
  double cfm;     /* >= 0, added to A(i,i) */
  double lo, hi;  /* bounds on x_i (impulse); ignored for findex and cone rows */
  int findex;     /* local index of the normal row, or -1 (PLAIN: friction; AUX: its n) */
  double mu;      /* friction coefficient of a findex row, the cone's mu (CONE_N),
                        the contact's mu (AUX); 0 otherwise */
  dyn_row_kind kind;
  int aux_first; /* AUX: local index of beta_1 */
  int aux_count; /* AUX: number of beta rows (eta) */
  int base;      /* global index of the constraint's first row (fill's row0) */
} dyn_rows;

/* ---- contacts ------------------------------------------------------------ */

typedef enum dyn_friction {
  DYN_FRICTION_NONE = 0, /* one row: the normal */
  DYN_FRICTION_BOX,      /* n, t1, t2; t rows findex'ed to n with mu: ODE's dContactApprox1,
                            box friction (-mu x_n <= x_t <= mu x_n) */
  DYN_FRICTION_PYRAMID,  /* n, beta_1..beta_eta >= 0, one auxiliary lambda >= 0
                            (docs/contact.md, "Friction models"):
                            a pure LCP of size (eta+2) per contact, not symmetric */
  DYN_FRICTION_CONE      /* n, t1, t2 as one Coulomb cone with mu (cone solvers) */
} dyn_friction;

typedef struct dyn_contact_params {
  dyn_friction friction;
  double mu;          /* friction coefficient, >= 0 */
  int eta;            /* PYRAMID: number of directions, >= 3 (the derivation takes eta even >= 4) */
  double restitution; /* e in [0, 1] */
  double rest_threshold;  /* m/s >= 0: restitution only when approaching faster than this */
  double k_erp;           /* error reduction in [0, 1]; k_cor = k_erp / h (docs/contact.md,
                         "CFM and ERP") */
  double slop;            /* m >= 0: penetration left uncorrected */
  double cfm;             /* >= 0, on every contact row except the pyramid's auxiliary one */
  double max_correct_vel; /* m/s > 0: cap of the Baumgarte velocity; INFINITY = none */
  int torsion;            /* BOX only: 1 adds a fourth row per contact, the two bodies'
                             relative spin about the normal, |x_s| <= mu_torsion x_n of the
                             contact (dyn_contact.mu_torsion; a world sets it when its
                             model has a material of condim 4); 0: none (the default) */
  int rolling;            /* BOX with torsion only: 1 adds two rows more per contact, the
                             two bodies' relative angular velocity about the tangents t1
                             and t2, |x_r| <= mu_rolling x_n of the contact
                             (dyn_contact.mu_rolling; a world sets it when its model has a
                             material of condim 6); 0: none (the default) */
} dyn_contact_params;

/* friction NONE, mu 0, eta 4, restitution 0, rest_threshold 0, k_erp 0.2,
 * slop 0, cfm 0, max_correct_vel INFINITY, torsion 0, rolling 0. */
DYN_API dyn_contact_params dyn_contact_params_default(void);

/* DYN_OK, or DYN_ERR_INPUT with msg (if non-NULL, size msgcap) naming the field. */
DYN_API dyn_err dyn_contact_params_validate(const dyn_contact_params *prm, char *msg,
                                            size_t msgcap);

/* The largest MuJoCo condim (docs/models.md, "<geom condim>") a world of
 * friction model f simulates as it is: 6 under box friction (its rows of
 * torsion and rolling: dyn_contact_params.torsion, rolling) and with no
 * friction (no friction row at all, by the settings' choice); 3 under the
 * cone and the pyramid (sliding friction only); 0 for an unknown f.  The
 * one rule: a world refuses a material above it (dyn_world_new_from_model)
 * and libmodels' reader reads a geom above it as 3 under approximate. */
DYN_API int dyn_friction_max_condim(int f);

/* Rows one contact produces: NONE 1, BOX 3 (4 with torsion, 6 with
 * rolling), PYRAMID eta + 2, CONE 3 (0 for parameters that do not
 * validate). */
DYN_API int dyn_contact_max_rows(const dyn_contact_params *prm);

/* Tangent basis of a unit normal n (deterministic, documented in contact.c):
 * e = the world axis with the smallest |n_i| (first one on ties),
 * t1 = (e x n) / |e x n|, t2 = n x t1; (t1, t2, n) is right-handed. */
DYN_API void dyn_contact_basis(dyn_v3 n, dyn_v3 *t1, dyn_v3 *t2);

/* Writes the rows of contact c into out[row0 .. row0 + m - 1] and returns m
 * (= dyn_contact_max_rows(prm)), or a negative dyn_err:
 *   bodies  in, size nb: positions r, velocities v, w (pre-step, for
 *           restitution), is_static;
 *   c       in: a != b in [0, nb), not both static, |normal| = 1 to 1e-6
 *           (normal from a to b), depth (> 0 penetration, < 0 gap);
 *   prm     in: validated here;
 *   h       in: time step (s), > 0;
 *   out     out: array with at least row0 + m records.
 * Row order: NONE n; BOX n, t1, t2 (then s, the spin about n, with torsion,
 * then r1, r2, the rolling about t1 and t2, with rolling);
 * PYRAMID n, beta_1..beta_eta, aux; CONE n, t1, t2. */
DYN_API int dyn_contact_fill(dyn_bodies bodies, int nb, const dyn_contact *c,
                             const dyn_contact_params *prm, double h, dyn_rows *out, int row0);

/* dyn_contact_fill with the contact's own material: its mu and
 * restitution (c->mu >= 0 finite, c->restitution in [0, 1], else
 * DYN_ERR_INPUT) in place of prm's, which gives the rest (friction model,
 * eta, rest_threshold, k_erp, slop, cfm, max_correct_vel).  A world's
 * contacts carry the combined material of their two shapes (dyn_model.h). */
DYN_API int dyn_contact_fill_material(dyn_bodies bodies, int nb, const dyn_contact *c,
                                      const dyn_contact_params *prm, double h, dyn_rows *out,
                                      int row0);

/* ---- assembly ------------------------------------------------------------- */

typedef struct dyn_system dyn_system;

enum {
  DYN_SYS_DENSE = 1u << 0,   /* reserve a dense max_rows x max_rows A */
  DYN_SYS_CSR = 1u << 1,     /* reserve a CSR A of max_nnz entries */
  DYN_SYS_FACTORED = 1u << 2 /* no A at all: factored (matrix-free) problems only */
};

/* Allocates every buffer assembly and dyn_apply_impulse need for up to
 * max_rows rows (>= 0) over nb bodies (>= 0).  storages: any of
 * DYN_SYS_DENSE, DYN_SYS_CSR, DYN_SYS_FACTORED (the last reserves nothing
 * more: factored problems use the per-row buffers every system has).
 * max_nnz: CSR capacity (entries of A); <= 0 means max_rows * min(max_rows, 64).  *out = NULL and DYN_ERR_INPUT /
 * DYN_ERR_NOMEM (message in msg, size msgcap, if msg != NULL) on failure. */
DYN_API dyn_err dyn_system_new(int max_rows, int nb, unsigned storages, long max_nnz,
                               dyn_system **out, char *msg, size_t msgcap);
DYN_API void dyn_system_free(dyn_system *sys); /* NULL is fine */

/* Grows the buffers (never shrinks) to at least max_rows, nb, max_nnz;
 * storages may add DYN_SYS_DENSE / DYN_SYS_CSR.  Allocates: call between
 * steps, not inside one.  On failure the system keeps its old buffers. */
DYN_API dyn_err dyn_system_reserve(dyn_system *sys, int max_rows, int nb, unsigned storages,
                                   long max_nnz);

/* The message of the last failed dyn_assemble / dyn_apply_impulse /
 * dyn_system_reserve (empty string if none); never NULL. */
DYN_API const char *dyn_system_message(const dyn_system *sys);

/* Number of CSR entries dyn_assemble would produce for these rows, counting
 * every body index >= 0 as dynamic (so an upper bound if rows name static
 * bodies; contact rows never do).  No allocation: it uses the system's
 * scratch, so nrows <= max_rows and body indices < the system's nb are
 * required (else -1 and a message), and it ends the last assembly's
 * validity for dyn_apply_impulse: call it before dyn_assemble. */
DYN_API long dyn_system_csr_nnz(dyn_system *sys, const dyn_rows *rows, int nrows);

/* Builds the problem of the rows:
 *   bodies  in, size nb (<= the system's nb): state u = (v, w), r, q, loads
 *           f_ext, t_ext, inv_mass, inv_I_b, is_static;
 *   rows    in, size nrows (<= max_rows), as written by the fill functions;
 *   h       in: time step (s), > 0;  g in: gravity (m/s^2);
 *   storage in: SLV_DENSE (column-major, lda = nrows), SLV_CSR (built per
 *           body pair, never through a dense A; columns sorted in each row)
 *           or SLV_FACTORED (matrix-free: J, K = J M^-1 and the CFM
 *           diagonal, nothing formed; no friction-pyramid rows; needs no
 *           storage flag);
 *   out     out: a view into the system's buffers, valid until the next
 *           dyn_assemble / reserve / free.  cone_law is SLV_CONE_COULOMB; the
 *           caller may change it.  findex is global; mu is set on findex rows.
 * The J rows and M^-1 are kept in the system for dyn_apply_impulse.
 * Returns DYN_OK or DYN_ERR_INPUT (size exceeded, bad body index, a row
 * whose two bodies are the same, findex / aux / cone structure out of
 * range, a non-finite entry; message in dyn_system_message). */
DYN_API dyn_err dyn_assemble(dyn_system *sys, dyn_bodies bodies, int nb, const dyn_rows *rows,
                             int nrows, double h, dyn_v3 g, slv_storage storage, slv_problem *out);

/* The problem of rows alone, without a world's bodies: A = J M^-1 J^T +
 * diag(cfm) (+ the pyramid's entries), b = -rhs, the rows' bounds, findex
 * and cones, for a diagonal M^-1 (rigid bodies in their principal frames;
 * libexperiment's generated contact families, datasets/README.md,
 * "Generated instances").
 *   rows    in, size nrows (<= max_rows), as for dyn_assemble;
 *   nb      in: bodies (<= the system's nb);
 *   minv    in, size 6 nb: the diagonal of M^-1 per body, (1/m x3, 1/I
 *           per principal axis x3), finite, >= 0 (a body with all zeros
 *           is fixed: its sides contribute nothing);
 *   storage in: SLV_DENSE or SLV_CSR (reserved in the system; CSR's size
 *           as dyn_system_csr_nnz counts it);
 *   out     out: a view into the system's buffers, as dyn_assemble's.
 * A is formed from each side's R = J M^-1/2, entry by entry as R R^T with
 * the same lists as dyn_assemble (so exactly symmetric; not bit for bit
 * dyn_assemble's J (M^-1 J^T) products).  Nothing is kept for
 * dyn_apply_impulse.  DYN_OK, or DYN_ERR_INPUT (sizes, storage, minv, the
 * rows' structure; message in dyn_system_message). */
DYN_API dyn_err dyn_assemble_rows(dyn_system *sys, const dyn_rows *rows, int nrows, int nb,
                                  const double *minv, slv_storage storage, slv_problem *out);

/* A = J M^-1 J^T for a dense J and a diagonal M^-1, by BLAS:
 *   n, nd   in: rows and columns (degrees of freedom) of J;
 *   J       in/out, n x nd column-major (ld n): scaled in place to
 *           J M^-1/2 (its column k by sqrt(minv[k])), then no longer J;
 *   minv    in, size nd: the diagonal of M^-1, >= 0;
 *   A       out, n x n column-major: (J M^-1/2)(J M^-1/2)^T by cblas_dsyrk,
 *           the lower triangle copied up (exactly symmetric).
 * Allocates nothing; the products are BLAS's, so the bits depend on its
 * kernel. */
DYN_API void dyn_jmjt_dense(int n, int nd, double *J, const double *minv, double *A);

/* u+ = u + M^-1 (J^T x + h (f_ext, t_ext)) + h g for every dynamic body,
 * with the J and M^-1 of the last dyn_assemble (x: in, size of that
 * problem's n).  Static bodies are left alone; gyroscopic terms are the
 * caller's.  DYN_ERR_INPUT if nothing was assembled or nb differs;
 * DYN_ERR_NUMERIC (bodies untouched) if x has a non-finite entry.  The
 * sums go through a buffer of sys (its assembly is left as it was): one
 * call at a time on a system. */
DYN_API dyn_err dyn_apply_impulse(const dyn_system *sys, dyn_bodies bodies, int nb, const double *x,
                                  double h, dyn_v3 g);

/* The last dyn_assemble in the bodies' velocities (docs/dynamics.md, "The
 * world step"; FCLIB's global form, docs/io.md): with M the block-diagonal
 * mass matrix of the dynamic bodies,
 *     A = J M^-1 J^T + diag(cfm),   b = J u_free - rhs,
 * so that M v = J^T x + M u_free,  w = J v - rhs.  Borrowed views into the
 * system, valid as the problem view of that assembly is. */
typedef struct dyn_velocity_form {
  int nrows, nb;
  const int *rbody;    /* 2 per row: the body of each side, -1 for static or none */
  const double *J;     /* 12 per row: (linear, angular) per side, world frame */
  const double *Minv;  /* 10 per body: m^-1, world I^-1 (row-major); zeros if static */
  const double *ufree; /* 6 per body: u + h M^-1 (f_ext + m g, t_ext) */
  const double *cfm;   /* 1 per row */
} dyn_velocity_form;

/* *out from the last dyn_assemble of sys: 1, or 0 (and *out zeroed) when
 * there is none. */
DYN_API int dyn_system_velocity_form(const dyn_system *sys, dyn_velocity_form *out);

#ifdef __cplusplus
}
#endif
#endif /* DYN_CONSTRAINT_H */
