/* world_query.c -- the matrices of a world's last step
 * (dyn_world_step_matrices_new, dyn_world.h; docs/scenes.md, "Queries"),
 * read from the step's assembly (dyn_system_velocity_form) over the
 * velocities of every body of the world, body i's (v, w) at columns
 * 6 i .. 6 i + 5:
 *
 *     J     the rows' Jacobian, n x 6 nb, CSR (each row's nonzero entries,
 *           columns increasing);
 *     Minv  per body the 6 x 6 block diag(m^-1 I3, I_world^-1) the
 *           assembly used; zero for a static body;
 *     M     per body its inverse, diag(m I3, I_world), by dyn_mass_block
 *           (world_global.c: the global form's M); zero for a static body;
 *     cfm   per row,
 *
 * so that A = J Minv J' + diag(cfm) on every row but the friction
 * pyramid's auxiliary ones (J = 0 there; docs/contact.md, "Friction
 * models").  And where the contact rows are: contact c of
 * dyn_world_contacts at rows joint_rows + c rows_per_contact.
 */
#include <stdlib.h>
#include <string.h>

#include "dyn_internal.h"
#include "dyn_world.h"
#include "world_data.h"

void dyn_step_matrices_free(dyn_step_matrices *m) {
  if (!m) return;
  free(m->Jp);
  free(m->Jj);
  free(m->Jx);
  free(m->M);
  free(m->Minv);
  free(m->cfm);
  free(m);
}

static dyn_step_matrices *matrices_alloc(int n, int nb, long nnz) {
  dyn_step_matrices *m = calloc(1, sizeof *m);
  if (!m) return NULL;
  m->n = n;
  m->nb = nb;
  m->Jp = malloc(((size_t)n + 1) * sizeof *m->Jp);
  m->Jj = malloc(((size_t)nnz + 1) * sizeof *m->Jj);
  m->Jx = malloc(((size_t)nnz + 1) * sizeof *m->Jx);
  m->M = calloc(36 * (size_t)nb + 1, sizeof *m->M);
  m->Minv = calloc(36 * (size_t)nb + 1, sizeof *m->Minv);
  m->cfm = malloc(((size_t)n + 1) * sizeof *m->cfm);
  if (!m->Jp || !m->Jj || !m->Jx || !m->M || !m->Minv || !m->cfm) {
    dyn_step_matrices_free(m);
    return NULL;
  }
  return m;
}

/* J's row i: both sides' nonzero entries, the lower body's first. */
static int fill_j_row(const dyn_velocity_form *vf, int i, int *Jj, double *Jx) {
  const int *rb = vf->rbody + 2 * i;
  int first = rb[1] >= 0 && (rb[0] < 0 || rb[1] < rb[0]) ? 1 : 0, k = 0;
  for (int s = 0; s < 2; s++) {
    int side = s == 0 ? first : 1 - first, b = rb[side];
    for (int c = 0; b >= 0 && c < 6; c++) {
      double v = vf->J[12 * i + 6 * side + c];
      if (v == 0.0) continue;
      Jj[k] = 6 * b + c;
      Jx[k++] = v;
    }
  }
  return k;
}

/* Body b's blocks of M^-1 and M (row-major 6 x 6) from the velocity
 * form's 10 numbers (m^-1, world I^-1); 0 when M's block is not
 * invertible. */
static int fill_blocks(const double *Minv10, double *Minv, double *M) {
  if (!(Minv10[0] > 0.0)) return 1; /* static: zero blocks */
  for (int c = 0; c < 3; c++) Minv[7 * c] = Minv10[0];
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++) Minv[6 * (3 + r) + 3 + c] = Minv10[1 + 3 * r + c];
  return dyn_mass_block(Minv10, M);
}

dyn_err dyn_world_step_matrices_new(const dyn_world *w, dyn_step_matrices **out, char *err,
                                    size_t errlen) {
  slv_problem p;
  dyn_velocity_form vf;
  if (!out) return DYN_ERR_INPUT;
  *out = NULL;
  if (!w) return DYN_ERR_INPUT;
  if (!dyn_world_last_form(w, &p, &vf)) {
    dyn_msgf(err, errlen, "no step with rows to query (the last step's problem has %d rows)", p.n);
    return DYN_ERR_INPUT;
  }
  dyn_msgf(err, errlen, "%s", "");
  dyn_step_matrices *m = matrices_alloc(p.n, vf.nb, 12L * p.n);
  if (!m) {
    dyn_msgf(err, errlen, "out of memory for the matrices of %d rows and %d bodies", p.n, vf.nb);
    return DYN_ERR_NOMEM;
  }
  m->joint_rows = w->njrows;
  m->rows_per_contact = w->rpc;
  m->Jp[0] = 0;
  for (int i = 0; i < p.n; i++) {
    m->Jp[i + 1] = m->Jp[i] + fill_j_row(&vf, i, m->Jj + m->Jp[i], m->Jx + m->Jp[i]);
    m->cfm[i] = vf.cfm[i];
  }
  for (int b = 0; b < vf.nb; b++)
    if (!fill_blocks(vf.Minv + 10 * b, m->Minv + 36 * b, m->M + 36 * b)) {
      dyn_msgf(err, errlen, "body %d: its mass or world inertia is not invertible", b);
      dyn_step_matrices_free(m);
      return DYN_ERR_INPUT;
    }
  *out = m;
  return DYN_OK;
}
