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
 * bodies) are left to the sweeps.  The mass part of P^T A P is formed
 * from one 6x6 sum of p p^T per body and side (wrench_of: a contact row's
 * J on either body is its p moved to the body's centre), so a contact
 * costs one such sum, not a 6x6 product per row and body.
 */
#include "dyn_assemble_internal.h"
#include "world_internal.h"

#include <lapacke.h>
#include <limits.h>
#include <math.h>
#include <string.h>

#define COARSE_KD 11 /* the coarse matrix's half bandwidth: 6 unknowns, next level's 6 */

/* The contacts' adjacency (ptr, adj: the other body of each contact of
 * each body) and each
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
    int a = in->con[k].a, b = in->con[k].b;
    adj[q[a]++] = b;
    adj[q[b]++] = a;
  }
  int head = 0, tail = 0, top = 0;
  for (int i = 0; i < nb; i++) {
    lev[i] = in->bodies.c[i].is_static ? 0 : INT_MAX;
    if (in->bodies.c[i].is_static) q[tail++] = i;
  }
  while (head < tail) {
    int i = q[head++];
    if (lev[i] > top) top = lev[i];
    for (int p = ptr[i]; p < ptr[i + 1]; p++) {
      int o = adj[p]; /* a static body has level 0 */
      if (lev[o] == INT_MAX) {
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
  for (int i = 0; i < in->nb; i++) mov[i] = !in->bodies.c[i].is_static && lev[i] != INT_MAX;
  for (int i = 0; i < in->njrows; i++)
    for (int k = 0; k < 2; k++)
      if (in->rows[i].body[k] >= 0) mov[in->rows[i].body[k]] = 0;
  double *ctr = c->ctr.p;
  memset(ctr, 0, 4 * ((size_t)top + 1) * sizeof *ctr);
  for (int i = 0; i < in->nb; i++) {
    if (!mov[i]) continue;
    double *m = ctr + 4 * lev[i];
    m[0] += in->bodies.s[i].r.x, m[1] += in->bodies.s[i].r.y, m[2] += in->bodies.s[i].r.z,
        m[3] += 1;
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
static int row_active(const slv_problem *p, const double *x, int i) {
  if (p->findex[i] < 0) return x[i] > p->lo[i] && x[i] < p->hi[i];
  double xn = x[p->findex[i]];
  return xn > 0 && fabs(x[i]) < p->mu[i] * xn;
}

/* p (6) of a row whose Jacobian on the upper body is J: that Jacobian as
 * a twist of the aggregate at its centre, d = upper body's centre - the
 * aggregate's. */
static void prolongation_row(const double *J, dyn_v3 d, double *p) {
  dyn_v3 t = dyn_v3_cross(d, dyn_v3_make(J[0], J[1], J[2]));
  p[0] = J[0], p[1] = J[1], p[2] = J[2];
  p[3] = t.x + J[3], p[4] = t.y + J[4], p[5] = t.z + J[5];
}

/* S_up += S_k and S_lo += S_k (the lower triangles), S_k = sum over the
 * contact's rows of p p^T (a row that is not active has p = 0): one sum per
 * entry, added to both bodies' S (S_lo is scratch for a static body). */
static void add_outer(double *restrict S_up, double *restrict S_lo, const double (*p)[6]) {
  for (int a = 0; a < 6; a++)
    for (int j = 0; j <= a; j++) {
      double v = p[0][a] * p[0][j] + p[1][a] * p[1][j] + p[2][a] * p[2][j] + p[3][a] * p[3][j] +
                 p[4][a] * p[4][j] + p[5][a] * p[5][j];
      S_up[6 * a + j] += v;
      S_lo[6 * a + j] += v;
    }
}

/* The rows of interface contact k (friction box: 3 rows, 4 with torsion, 6 with rolling;
 * none: 1): P's
 * rows (zero for an inactive row), g -= P^T w, the cfm part of P^T A P,
 * and S_k = sum of p p^T over its rows added to its upper body's S (as
 * upper) and its lower body's (as lower). */
static void restrict_contact(dyn_coarse *c, const dyn_coarse_in *in, const double *x,
                             const double *w, int k) {
  int ifc = c->iface.p[k], up = upper_body(c, &in->con[k]), ldab = COARSE_KD + 1;
  const double *m = c->ctr.p + 4 * (ifc + 1);
  dyn_v3 d = dyn_v3_make(in->bodies.s[up].r.x - m[0], in->bodies.s[up].r.y - m[1],
                         in->bodies.s[up].r.z - m[2]);
  double *g = c->g.p + 6 * ifc, pa[6][6] = { { 0 } }, scratch[36];
  int i0 = in->njrows + k * in->rpc, na = 0;
  for (int r = 0; r < in->rpc; r++) {
    int i = i0 + r;
    const double *J = in->vf->J + 12 * (size_t)i, cfm = in->vf->cfm[i];
    double *p = c->P.p + 6 * (size_t)i;
    if (!row_active(in->prob, x, i)) {
      memset(p, 0, 6 * sizeof *p);
      continue;
    }
    na++;
    prolongation_row(in->vf->rbody[2 * i] == up ? J : J + 6, d, p);
    memcpy(pa[r], p, sizeof pa[r]);
    for (int a = 0; a < 6; a++) g[a] -= p[a] * w[i];
    if (cfm != 0)
      for (int a = 0; a < 6; a++)
        for (int j = 0; j <= a; j++) c->ab.p[(a - j) + ldab * (6 * ifc + j)] += cfm * p[a] * p[j];
  }
  if (na == 0) return;
  const dyn_contact *ck = &in->con[k];
  int lo = ck->a == up ? ck->b : ck->a;
  double *S_lo = c->S.p + 72 * (size_t)lo + 36;
  if (in->bodies.c[lo].is_static) S_lo = memset(scratch, 0, sizeof scratch);
  add_outer(c->S.p + 72 * (size_t)up, S_lo, (const double(*)[6])pa);
}

/* P, g = -P^T w, the cfm part of P^T A P and S (per body, two 6x6: as
 * the upper body of its level's interface, as the lower of the next), all
 * from scratch. */
static void restriction(dyn_coarse *c, const dyn_coarse_in *in, const double *x, const double *w,
                        int nC) {
  memset(c->S.p, 0, 72 * (size_t)in->nb * sizeof *c->S.p);
  memset(c->ab.p, 0, (size_t)(COARSE_KD + 1) * nC * sizeof *c->ab.p);
  memset(c->g.p, 0, (size_t)nC * sizeof *c->g.p);
  for (int k = 0; k < in->nc; k++)
    if (c->iface.p[k] >= 0) restrict_contact(c, in, x, w, k);
}

/* K = sign T(e) S for one body, from S's lower triangle, by columns:
 * K[6 j + a] the body's wrench a from a unit y_j.  A contact row's
 * Jacobian on either body is its direction n at the contact point c,
 * (n, (c - r) x n) up to its sign (libdynamics/contact.c), and its P row
 * is (n, (c - m) x n) on the upper body's sign, so J_r = T(r - m) p_r on
 * the upper body and -T(r - m) p_r on the lower, with T(e) = [I 0; -[e]x
 * I]: K = sum J_r p_r^T = +-T(r - m) S.  e = r - m, the body's centre
 * from its aggregate's. */
static void wrench_of(const double *S, dyn_v3 e, double sign, double *K) {
  for (int a = 0; a < 6; a++)
    for (int j = 0; j <= a; j++) K[6 * j + a] = K[6 * a + j] = sign * S[6 * a + j];
  for (int j = 0; j < 6; j++) {
    double *k = K + 6 * j;
    dyn_v3 t = dyn_v3_cross(e, dyn_v3_make(k[0], k[1], k[2]));
    k[3] -= t.x, k[4] -= t.y, k[5] -= t.z;
  }
}

/* MK = M^-1 K for one body, by columns (Minv: m^-1, then the world I^-1
 * row-major). */
static void minv_times(const double *Minv, const double *K, double *MK) {
  for (int j = 0; j < 6; j++) {
    const double *k = K + 6 * j;
    double *o = MK + 6 * j;
    o[0] = Minv[0] * k[0], o[1] = Minv[0] * k[1], o[2] = Minv[0] * k[2];
    for (int a = 0; a < 3; a++)
      o[3 + a] = Minv[1 + 3 * a] * k[3] + Minv[2 + 3 * a] * k[4] + Minv[3 + 3 * a] * k[5];
  }
}

/* ab's block (I1, I2), I1 >= I2, += K1^T MK2 (6x6, both by columns; of a
 * diagonal block its lower triangle): ab[(i - j) + ldab j] = A(i, j),
 * i >= j. */
static void add_block(double *ab, int I1, int I2, const double *K1, const double *MK2) {
  int ldab = COARSE_KD + 1;
  for (int j = 0; j < 6; j++) {
    double *col = ab + ldab * (6 * (size_t)I2 + j) + 6 * (I1 - I2) - j;
    const double *m = MK2 + 6 * j;
    for (int a = I1 == I2 ? j : 0; a < 6; a++) {
      const double *k = K1 + 6 * a;
      col[a] +=
          ((k[0] * m[0] + k[1] * m[1]) + (k[2] * m[2] + k[3] * m[3])) + (k[4] * m[4] + k[5] * m[5]);
    }
  }
}

/* The mass part of P^T A P: sum over bodies of K_s^T M^-1 K_t.  A body of
 * level l has K_0 towards y_l (unknown l - 1, as the upper body of its
 * interface) and, below the top, K_1 towards y_(l+1) (unknown l): the
 * blocks (l-1, l-1), (l, l) and (l, l-1). */
static void coarse_matrix(dyn_coarse *c, const dyn_coarse_in *in, int top) {
  for (int b = 0; b < in->nb; b++) {
    int l = c->lev.p[b];
    if (in->bodies.c[b].is_static || l == INT_MAX) continue;
    const double *Minv = in->vf->Minv + 10 * (size_t)b, *S = c->S.p + 72 * (size_t)b;
    const double *m0 = c->ctr.p + 4 * l;
    double K[2][36], MK[2][36];
    dyn_v3 r = in->bodies.s[b].r;
    wrench_of(S, dyn_v3_make(r.x - m0[0], r.y - m0[1], r.z - m0[2]), 1.0, K[0]);
    minv_times(Minv, K[0], MK[0]);
    add_block(c->ab.p, l - 1, l - 1, K[0], MK[0]);
    if (l >= top) continue;
    const double *m1 = c->ctr.p + 4 * (l + 1);
    wrench_of(S + 36, dyn_v3_make(r.x - m1[0], r.y - m1[1], r.z - m1[2]), -1.0, K[1]);
    minv_times(Minv, K[1], MK[1]);
    add_block(c->ab.p, l, l, K[1], MK[1]);
    add_block(c->ab.p, l, l - 1, K[1], MK[0]);
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
    for (int i = i0; i < i0 + in->rpc; i++) {
      const slv_problem *P = in->prob;
      double lo = P->lo[i], hi = P->hi[i];
      if (P->findex[i] >= 0) {
        hi = P->mu[i] * fabs(x[P->findex[i]]);
        lo = -hi;
      }
      x[i] = x[i] < lo ? lo : x[i] > hi ? hi : x[i];
    }
  }
}

static dyn_err reserve(dyn_coarse *c, const dyn_coarse_in *in, long *grows) {
  size_t nb = (size_t)in->nb, nc = (size_t)in->nc;
  if (dyn_buf_reserve(&c->lev, nb, grows) || dyn_buf_reserve(&c->ptr, nb + 1, grows) ||
      dyn_buf_reserve(&c->adj, 2 * nc, grows) || dyn_buf_reserve(&c->queue, nb, grows) ||
      dyn_buf_reserve(&c->movable, nb, grows) || dyn_buf_reserve(&c->iface, nc, grows) ||
      dyn_buf_reserve(&c->P, 6 * (size_t)in->nrows, grows) ||
      dyn_buf_reserve(&c->S, 72 * nb, grows) || dyn_buf_reserve(&c->ctr, 4 * nb + 4, grows) ||
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
  dyn_buf_free(&c->S);
  dyn_buf_free(&c->ctr);
  dyn_buf_free(&c->ab);
  dyn_buf_free(&c->g);
}
