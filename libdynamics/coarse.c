/*
 * coarse.c -- the level coarse correction of a step's contact impulses
 * (docs/dynamics.md, "Coarse correction").
 *
 * A Gauss-Seidel sweep moves an impulse change one contact further per
 * sweep, so the weight of a tall stack reaches its bottom only after as
 * many sweeps as it has layers; with a fixed budget the lower contacts
 * carry too little and the stack sinks and creeps.  The correction is the
 * coarse level of a two-level method [trottenberg2001]: the bodies are
 * grouped by their contact distance from the static bodies (level 1 rests
 * on a static body, level l on level l-1), each level taken as one rigid
 * aggregate, and the impulses of the contacts between level l-1 and
 * level l change only as a wrench y_l on aggregate l, row i by
 * dx_i = p_i . y_l with p_i row i's Jacobian on its upper body expressed at
 * the aggregate's centre.  The y minimise the problem's quadratic over
 * that subspace of the active rows (Galerkin: (P^T A P) y = -P^T w, w =
 * A x + b), a banded system of 6 unknowns per level; then x is projected
 * back onto its bounds.  Contacts within one level, bodies no contact
 * path joins to a static body, and bodies with joint rows (as upper
 * bodies) are left to the sweeps.
 */
#include "dyn_assemble_internal.h"
#include "world_internal.h"

#include <lapacke.h>
#include <limits.h>
#include <math.h>
#include <string.h>

#define COARSE_KD 11 /* the coarse matrix's half bandwidth: 6 unknowns, next level's 6 */

/* The contacts' adjacency (ptr, adj: contacts of each body) and each
 * body's level: 0 static, l >= 1 its contact distance from one, INT_MAX
 * none.  Returns the highest level. */
static int body_levels(dyn_coarse *c, const dyn_coarse_in *in) {
  int nb = in->nb, nc = in->nc, *ptr = c->ptr.p, *adj = c->adj.p, *q = c->queue.p, *lev = c->lev.p;
  memset(ptr, 0, ((size_t)nb + 1) * sizeof *ptr);
  for (int k = 0; k < nc; k++) {
    ptr[in->con[k].a + 1]++;
    ptr[in->con[k].b + 1]++;
  }
  for (int i = 0; i < nb; i++) ptr[i + 1] += ptr[i];
  for (int i = 0; i < nb; i++) q[i] = ptr[i];
  for (int k = 0; k < nc; k++) {
    adj[q[in->con[k].a]++] = k;
    adj[q[in->con[k].b]++] = k;
  }
  int head = 0, tail = 0, top = 0;
  for (int i = 0; i < nb; i++) {
    lev[i] = in->bodies[i].is_static ? 0 : INT_MAX;
    if (in->bodies[i].is_static) q[tail++] = i;
  }
  while (head < tail) {
    int i = q[head++];
    if (lev[i] > top) top = lev[i];
    for (int p = ptr[i]; p < ptr[i + 1]; p++) {
      const dyn_contact *k = &in->con[adj[p]];
      int o = k->a == i ? k->b : k->a;
      if (lev[o] == INT_MAX && !in->bodies[o].is_static) {
        lev[o] = lev[i] + 1;
        q[tail++] = o;
      }
    }
  }
  c->nlev = top;
  return top;
}

/* The upper body of contact k (the higher level), or -1 when k joins two
 * bodies of one level or a body without a level. */
static int upper_body(const dyn_coarse *c, const dyn_contact *k) {
  int la = c->lev.p[k->a], lb = c->lev.p[k->b];
  if (la == INT_MAX || lb == INT_MAX || la == lb) return -1;
  return la > lb ? k->a : k->b;
}

/* movable (dynamic, with a level, without joint rows), the aggregates'
 * centres (4 per level: sum of centres, count; then the mean) and each
 * contact's interface (0-based: the upper level - 1), -1 for none. */
static void interfaces(dyn_coarse *c, const dyn_coarse_in *in, int top) {
  int *mov = c->movable.p, *lev = c->lev.p;
  for (int i = 0; i < in->nb; i++) mov[i] = !in->bodies[i].is_static && lev[i] != INT_MAX;
  for (int i = 0; i < in->njrows; i++)
    for (int k = 0; k < 2; k++)
      if (in->rows[i].body[k] >= 0) mov[in->rows[i].body[k]] = 0;
  double *ctr = c->ctr.p;
  memset(ctr, 0, 4 * ((size_t)top + 1) * sizeof *ctr);
  for (int i = 0; i < in->nb; i++) {
    if (!mov[i]) continue;
    double *m = ctr + 4 * lev[i];
    m[0] += in->bodies[i].r.x, m[1] += in->bodies[i].r.y, m[2] += in->bodies[i].r.z, m[3] += 1;
  }
  for (int l = 1; l <= top; l++)
    if (ctr[4 * l + 3] > 0)
      for (int a = 0; a < 3; a++) ctr[4 * l + a] /= ctr[4 * l + 3];
  for (int k = 0; k < in->nc; k++) {
    int up = upper_body(c, &in->con[k]);
    c->iface.p[k] = up >= 0 && mov[up] ? lev[up] - 1 : -1;
  }
}

/* 1 iff row i is strictly inside its bounds (a findex row: inside the
 * friction box of a positive normal impulse). */
static int row_active(const dyn_rows *r, const double *x, int i) {
  if (r->findex < 0) return x[i] > r->lo && x[i] < r->hi;
  double xn = x[r->base + r->findex];
  return xn > 0 && fabs(x[i]) < r->mu * xn;
}

/* p (6) of a row whose Jacobian on the upper body is J: that Jacobian as
 * a twist of the aggregate at its centre, d = upper body's centre - the
 * aggregate's. */
static void prolongation_row(const double *J, dyn_v3 d, double *p) {
  dyn_v3 t = dyn_v3_cross(d, dyn_v3_make(J[0], J[1], J[2]));
  p[0] = J[0], p[1] = J[1], p[2] = J[2];
  p[3] = t.x + J[3], p[4] = t.y + J[4], p[5] = t.z + J[5];
}

/* K += J^T p^T: a body's wrench from a unit y, by one row. */
static void outer_add(double *restrict K, const double *restrict J, const double *restrict p) {
  for (int a = 0; a < 6; a++) {
    double ja = J[a];
    for (int j = 0; j < 6; j++) K[6 * a + j] += ja * p[j];
  }
}

/* The rows of interface contact k: P's rows (zero for an inactive row),
 * g -= P^T w, the cfm part of P^T A P, and K of its two bodies. */
static void restrict_contact(dyn_coarse *c, const dyn_coarse_in *in, const double *x,
                             const double *w, int k) {
  int ifc = c->iface.p[k], up = upper_body(c, &in->con[k]), ldab = COARSE_KD + 1;
  const double *m = c->ctr.p + 4 * (ifc + 1);
  dyn_v3 d =
      dyn_v3_make(in->bodies[up].r.x - m[0], in->bodies[up].r.y - m[1], in->bodies[up].r.z - m[2]);
  double *g = c->g.p + 6 * ifc;
  for (int r = 0; r < in->rpc; r++) {
    int i = in->njrows + k * in->rpc + r;
    const dyn_rows *R = &in->rows[i];
    double *p = c->P.p + 6 * (size_t)i;
    if (!row_active(R, x, i)) {
      memset(p, 0, 6 * sizeof *p);
      continue;
    }
    prolongation_row(R->J[R->body[0] == up ? 0 : 1], d, p);
    for (int a = 0; a < 6; a++) g[a] -= p[a] * w[i];
    if (R->cfm != 0)
      for (int a = 0; a < 6; a++)
        for (int j = 0; j <= a; j++)
          c->ab.p[(a - j) + ldab * (6 * ifc + j)] += R->cfm * p[a] * p[j];
    for (int s = 0; s < 2; s++) {
      int b = R->body[s];
      if (b < 0 || in->bodies[b].is_static) continue;
      outer_add(c->K.p + 72 * (size_t)b + 36 * (c->lev.p[b] == ifc + 1 ? 0 : 1), R->J[s], p);
    }
  }
}

/* P, g = -P^T w, the cfm part of P^T A P and K (per body, two 6x6: as
 * the upper body of its level's interface, as the lower of the next;
 * K[6 a + j] the body's wrench a from a unit y_j), all from scratch. */
static void restriction(dyn_coarse *c, const dyn_coarse_in *in, const double *x, const double *w,
                        int nC) {
  memset(c->K.p, 0, 72 * (size_t)in->nb * sizeof *c->K.p);
  memset(c->ab.p, 0, (size_t)(COARSE_KD + 1) * nC * sizeof *c->ab.p);
  memset(c->g.p, 0, (size_t)nC * sizeof *c->g.p);
  for (int k = 0; k < in->nc; k++)
    if (c->iface.p[k] >= 0) restrict_contact(c, in, x, w, k);
}

/* MK = M^-1 K for one body (Minv: m^-1, then the world I^-1 row-major). */
static void minv_times(const double *Minv, const double *K, double *MK) {
  for (int j = 0; j < 6; j++) {
    for (int a = 0; a < 3; a++) MK[6 * a + j] = Minv[0] * K[6 * a + j];
    for (int a = 0; a < 3; a++)
      MK[6 * (3 + a) + j] =
          Minv[1 + 3 * a] * K[18 + j] + Minv[2 + 3 * a] * K[24 + j] + Minv[3 + 3 * a] * K[30 + j];
  }
}

/* The mass part of P^T A P: sum over bodies of K_s^T M^-1 K_t, into the
 * lower band (ab[(i - j) + ldab j] = A(i, j), i >= j). */
static void coarse_matrix(dyn_coarse *c, const dyn_coarse_in *in, int top) {
  int ldab = COARSE_KD + 1;
  for (int b = 0; b < in->nb; b++) {
    int l = c->lev.p[b];
    if (in->bodies[b].is_static || l == INT_MAX) continue;
    const double *Minv = in->vf->Minv + 10 * (size_t)b;
    double MK[2][36];
    for (int s = 0; s < 2; s++) minv_times(Minv, c->K.p + 72 * (size_t)b + 36 * s, MK[s]);
    for (int s = 0; s < 2; s++)
      for (int t = 0; t < 2; t++) {
        int I1 = s == 0 ? l - 1 : l, I2 = t == 0 ? l - 1 : l;
        if (I1 >= top || I2 >= top) continue;
        const double *K1 = c->K.p + 72 * (size_t)b + 36 * s;
        for (int a = 0; a < 6; a++)
          for (int j = 0; j < 6; j++) {
            int gi = 6 * I1 + a, gj = 6 * I2 + j;
            if (gi < gj) continue;
            double v = 0;
            for (int q = 0; q < 6; q++) v += K1[6 * q + a] * MK[t][6 * q + j];
            c->ab.p[(gi - gj) + ldab * gj] += v;
          }
      }
  }
}

/* x += P y on the interface contacts, then each of them back on its
 * bounds (the normal first, then its friction rows' box). */
static void prolong_and_project(const dyn_coarse *c, const dyn_coarse_in *in, double *x) {
  for (int k = 0; k < in->nc; k++) {
    int ifc = c->iface.p[k], i0 = in->njrows + k * in->rpc;
    if (ifc < 0) continue;
    for (int r = 0; r < in->rpc; r++) {
      const double *p = c->P.p + 6 * (size_t)(i0 + r), *y = c->g.p + 6 * ifc;
      x[i0 + r] +=
          p[0] * y[0] + p[1] * y[1] + p[2] * y[2] + p[3] * y[3] + p[4] * y[4] + p[5] * y[5];
    }
    for (int r = 0; r < in->rpc; r++) {
      const dyn_rows *R = &in->rows[i0 + r];
      double lo = R->lo, hi = R->hi;
      if (R->findex >= 0) {
        hi = R->mu * fabs(x[R->base + R->findex]);
        lo = -hi;
      }
      x[i0 + r] = x[i0 + r] < lo ? lo : x[i0 + r] > hi ? hi : x[i0 + r];
    }
  }
}

static dyn_err reserve(dyn_coarse *c, const dyn_coarse_in *in, long *grows) {
  size_t nb = (size_t)in->nb, nc = (size_t)in->nc;
  if (dyn_buf_reserve(&c->lev, nb, grows) || dyn_buf_reserve(&c->ptr, nb + 1, grows) ||
      dyn_buf_reserve(&c->adj, 2 * nc, grows) || dyn_buf_reserve(&c->queue, nb, grows) ||
      dyn_buf_reserve(&c->movable, nb, grows) || dyn_buf_reserve(&c->iface, nc, grows) ||
      dyn_buf_reserve(&c->P, 6 * (size_t)in->nrows, grows) ||
      dyn_buf_reserve(&c->K, 72 * nb, grows) || dyn_buf_reserve(&c->ctr, 4 * nb + 4, grows) ||
      dyn_buf_reserve(&c->ab, (COARSE_KD + 1) * 6 * nb, grows) ||
      dyn_buf_reserve(&c->g, 6 * nb, grows))
    return DYN_ERR_NOMEM;
  return DYN_OK;
}

dyn_err dyn_coarse_levels(dyn_coarse *c, const dyn_coarse_in *in, int *levels, long *grows) {
  *levels = c->top = 0;
  if (in->nc == 0 || (in->friction != DYN_FRICTION_BOX && in->friction != DYN_FRICTION_NONE))
    return DYN_OK;
  if (reserve(c, in, grows) != DYN_OK) return DYN_ERR_NOMEM;
  *levels = body_levels(c, in);
  return DYN_OK;
}

/* The gate: levels more than 3/4 of the sweeps (docs/dynamics.md, "Coarse
 * correction", "The gate": as measured at 50 sweeps, the pyramid stands
 * uncorrected to 40 layers and not from 45). */
int dyn_coarse_deep(int levels, int max_iter) {
  return (long)levels * DYN_COARSE_DEPTH_DEN > (long)max_iter * DYN_COARSE_DEPTH_NUM;
}

void dyn_coarse_interfaces(dyn_coarse *c, const dyn_coarse_in *in) {
  c->top = c->nlev;
  if (c->top > 0) interfaces(c, in, c->top);
}

int dyn_coarse_pause(void *ctx, double *x, const double *w) {
  const dyn_coarse_pause_ctx *p = ctx;
  return dyn_coarse_correct(p->c, p->in, x, w);
}

int dyn_coarse_correct(dyn_coarse *c, const dyn_coarse_in *in, double *x, const double *w) {
  if (c->top == 0) return 0;
  int nC = 6 * c->top, ldab = COARSE_KD + 1;
  restriction(c, in, x, w, nC);
  coarse_matrix(c, in, c->top);
  /* An unknown without active rows stays 0 (a unit diagonal, a zero right
   * side); the others get 1e-10 of their own diagonal, which keeps a
   * level of fewer than 6 independent rows solvable (scale-free). */
  double dmax = 0;
  for (int j = 0; j < nC; j++) dmax = fmax(dmax, c->ab.p[ldab * j]);
  if (!(dmax > 0) || !isfinite(dmax)) return 0;
  for (int j = 0; j < nC; j++) {
    double *d = &c->ab.p[ldab * j];
    *d += *d > 0 ? 1e-10 * *d : 1.0;
  }
  if (LAPACKE_dpbsv(LAPACK_COL_MAJOR, 'L', nC, COARSE_KD, 1, c->ab.p, ldab, c->g.p, nC) != 0)
    return 0;
  for (int j = 0; j < nC; j++)
    if (!isfinite(c->g.p[j])) return 0;
  prolong_and_project(c, in, x);
  return 1;
}

void dyn_coarse_free(dyn_coarse *c) {
  dyn_buf_free(&c->lev);
  dyn_buf_free(&c->ptr);
  dyn_buf_free(&c->adj);
  dyn_buf_free(&c->queue);
  dyn_buf_free(&c->movable);
  dyn_buf_free(&c->iface);
  dyn_buf_free(&c->P);
  dyn_buf_free(&c->K);
  dyn_buf_free(&c->ctr);
  dyn_buf_free(&c->ab);
  dyn_buf_free(&c->g);
}
