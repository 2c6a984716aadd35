/*
 * world_islands.c -- contact islands (docs/dynamics.md, "Contact
 * islands"): the step's rows split into groups that share no moving body
 * (maximal coordinates: a row's two bodies, static ones not counted) or no
 * tree of the forest (reduced coordinates: a row's trees, world_reduced.c's
 * rtree), a friction row joined to its normal row (findex) and a cone's
 * three rows to one another.  Rows of two islands couple through no mass
 * matrix, so A(i,j) = 0 between them: the dense A is block diagonal up to
 * a permutation, and the step's problem is exactly its islands' problems
 * side by side.  Each island is gathered into a dense problem of its own
 * (its block of A, its b, bounds, findex, mu, cones) and solved with the
 * step's solver and options (the whole problem's sweep budget, each);
 * x and w are scattered back.
 *
 * The step's result: the worst island's status (refused over failed over
 * budget-stopped over converged; the first island of that class), the most
 * sweeps of any island, the sum of the pivots, and the residuals measured
 * on the whole problem (slv_residual_floor) with its x and w.  Every island
 * converged implies the whole problem converged: res_scaled, per row, only
 * shrinks when ||x||_inf and the rows' scales grow to the whole problem's.
 *
 * Threads (settings.opt.threads): the islands cut into runs, one run per
 * thread, each island solved single-threaded in its thread's workspace:
 * the same bits on any thread count.  The workspaces and scratch are
 * reserved for the largest island before the solves (no allocation in the
 * solve loop).  Used only on a dense problem (not CSR, factored or a
 * condensed global problem) with two or more islands, one round (no
 * coarse correction), when settings.islands asks (auto: reduced
 * coordinates only).
 */
#include "world_data.h"
#include "world_reduced.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- the split ------------------------------------------------------------------- */

static int uf_find(int *link, int i) {
  while (link[i] != i) {
    link[i] = link[link[i]];
    i = link[i];
  }
  return i;
}

/* The two sets joined under the smaller root (the split does not depend on
 * the order of the joins). */
static void uf_join(int *link, int a, int b) {
  a = uf_find(link, a);
  b = uf_find(link, b);
  if (a < b)
    link[b] = a;
  else if (b < a)
    link[a] = b;
}

/* Each row joined to its nodes, its normal row and its cone's rows. */
static void join_rows(int *link, int nnodes, const int *rnode, const slv_problem *p) {
  for (int i = 0; i < nnodes + p->n; i++) link[i] = i;
  for (int i = 0; i < p->n; i++) {
    for (int k = 0; k < 2; k++)
      if (rnode[2 * i + k] >= 0 && rnode[2 * i + k] < nnodes)
        uf_join(link, nnodes + i, rnode[2 * i + k]);
    if (p->findex && p->findex[i] >= 0 && p->findex[i] < p->n)
      uf_join(link, nnodes + i, nnodes + p->findex[i]);
  }
  for (int c = 0; c < p->ncones; c++)
    for (int k = 1; k < 3; k++)
      uf_join(link, nnodes + p->cone_rows[c], nnodes + p->cone_rows[c] + k);
}

static int reserve_split(dyn_islands *is, int nnodes, int n, int nc, long *grows) {
  size_t nl = (size_t)nnodes + (size_t)n + 1, m = (size_t)n + 2;
  return dyn_buf_reserve(&is->link, nl, grows) | dyn_buf_reserve(&is->rid, nl, grows) |
         dyn_buf_reserve(&is->local, m, grows) | dyn_buf_reserve(&is->of, m, grows) |
         dyn_buf_reserve(&is->off, m, grows) | dyn_buf_reserve(&is->rows, m, grows) |
         dyn_buf_reserve(&is->coff, m, grows) | dyn_buf_reserve(&is->cones, (size_t)nc + 1, grows) |
         dyn_buf_reserve(&is->res, m, grows);
}

/* Island ids by first row (of), the rows by island (off, rows, local). */
static void number_islands(dyn_islands *is, int nnodes, int n) {
  int *link = is->link.p, *rid = is->rid.p, *of = is->of.p, *off = is->off.p;
  for (int i = 0; i < nnodes + n; i++) rid[i] = -1;
  is->count = 0;
  for (int i = 0; i < n; i++) {
    int root = uf_find(link, nnodes + i);
    if (rid[root] < 0) rid[root] = is->count++;
    of[i] = rid[root];
  }
  memset(off, 0, ((size_t)is->count + 1) * sizeof *off);
  for (int i = 0; i < n; i++) off[of[i] + 1]++;
  is->maxm = 0;
  for (int k = 0; k < is->count; k++) {
    if (off[k + 1] > is->maxm) is->maxm = off[k + 1];
    off[k + 1] += off[k];
  }
  /* rid reused as each island's cursor */
  for (int k = 0; k < is->count; k++) rid[k] = off[k];
  for (int i = 0; i < n; i++) {
    is->local.p[i] = rid[of[i]] - off[of[i]];
    is->rows.p[rid[of[i]]++] = i;
  }
}

/* The cones by island (coff, cones), in cone order. */
static void number_cones(dyn_islands *is, const slv_problem *p) {
  int *coff = is->coff.p, *cur = is->rid.p;
  memset(coff, 0, ((size_t)is->count + 1) * sizeof *coff);
  for (int c = 0; c < p->ncones; c++) coff[is->of.p[p->cone_rows[c]] + 1]++;
  for (int k = 0; k < is->count; k++) coff[k + 1] += coff[k], cur[k] = coff[k];
  for (int c = 0; c < p->ncones; c++) is->cones.p[cur[is->of.p[p->cone_rows[c]]]++] = c;
}

dyn_err dyn_islands_split(dyn_islands *is, int nnodes, const int *rnode, const slv_problem *p,
                          long *grows) {
  is->count = is->maxm = 0;
  if (reserve_split(is, nnodes, p->n, p->ncones, grows) != 0) return DYN_ERR_NOMEM;
  join_rows(is->link.p, nnodes, rnode, p);
  number_islands(is, nnodes, p->n);
  number_cones(is, p);
  return DYN_OK;
}

/* ---- an island's problem --------------------------------------------------------- */

void dyn_island_problem(const dyn_islands *is, int k, const slv_problem *p, const double *x,
                        dyn_island_thread *t, slv_problem *out, double **xk, double **wk) {
  const int *R = is->rows.p + is->off.p[k], m = is->off.p[k + 1] - is->off.p[k];
  double *A = t->d.p, *b = A + (size_t)m * m, *lo = b + m, *hi = lo + m, *mu = hi + m;
  double *xs = mu + m, *ws = xs + m, *cmu = ws + m;
  int *fi = t->iv.p, *cr = fi + m;
  for (int jj = 0; jj < m; jj++) {
    const double *col = p->A + (size_t)R[jj] * (size_t)p->lda;
    for (int ii = 0; ii < m; ii++) A[(size_t)jj * m + ii] = col[R[ii]];
  }
  for (int ii = 0; ii < m; ii++) {
    const int i = R[ii];
    b[ii] = p->b[i];
    lo[ii] = p->lo ? p->lo[i] : 0.0;
    hi[ii] = p->hi ? p->hi[i] : INFINITY;
    mu[ii] = p->mu ? p->mu[i] : 0.0;
    fi[ii] = p->findex && p->findex[i] >= 0 ? is->local.p[p->findex[i]] : -1;
    xs[ii] = x[i];
  }
  const int c0 = is->coff.p[k], nc = is->coff.p[k + 1] - c0;
  for (int c = 0; c < nc; c++) {
    const int g = is->cones.p[c0 + c];
    cr[c] = is->local.p[p->cone_rows[g]];
    cmu[c] = p->cone_mu[g];
  }
  *out = *p;
  out->n = m;
  out->A = A;
  out->lda = m > 1 ? m : 1;
  out->b = b;
  out->lo = lo;
  out->hi = hi;
  out->mu = p->mu ? mu : NULL;
  out->findex = p->findex ? fi : NULL;
  out->ncones = nc;
  out->cone_rows = nc ? cr : NULL;
  out->cone_mu = nc ? cmu : NULL;
  *xk = xs;
  *wk = ws;
}

/* ---- memory ---------------------------------------------------------------------- */

void dyn_islands_drop_solvers(dyn_islands *is) {
  for (int t = 0; t < is->nth; t++) dyn_solver_slot_free(&is->th[t].slot);
}

void dyn_islands_free(dyn_islands *is) {
  for (int t = 0; t < is->nth; t++) {
    dyn_solver_slot_free(&is->th[t].slot);
    dyn_buf_free(&is->th[t].d);
    dyn_buf_free(&is->th[t].iv);
  }
  free(is->th);
  dyn_buf_free(&is->link);
  dyn_buf_free(&is->rid);
  dyn_buf_free(&is->rnode);
  dyn_buf_free(&is->local);
  dyn_buf_free(&is->of);
  dyn_buf_free(&is->off);
  dyn_buf_free(&is->rows);
  dyn_buf_free(&is->coff);
  dyn_buf_free(&is->cones);
  dyn_buf_free(&is->res);
  memset(is, 0, sizeof *is);
}

/* ---- the world's island solve ---------------------------------------------------- */

/* settings.islands asks for islands on this step's problem: dense, not a
 * condensed global problem, more than one row (the header). */
static int islands_wanted(const dyn_world *w) {
  dyn_islands_mode m = w->set.islands;
  if (m == DYN_ISLANDS_OFF || (m == DYN_ISLANDS_AUTO && !w->red)) return 0;
  return w->prob.storage == SLV_DENSE && !w->prob.condensed && w->nrows > 1;
}

/* The rows' nodes and their count: in reduced coordinates the rows' trees,
 * in maximal coordinates their moving bodies (is->rnode). */
static const int *row_nodes(dyn_world *w, int *nnodes) {
  const int *rt = dyn_reduced_row_trees(w, nnodes);
  if (rt) return rt;
  int *rn = w->islands.rnode.p;
  for (int i = 0; i < w->nrows; i++)
    for (int k = 0; k < 2; k++) {
      int b = w->rows.p[i].body[k];
      rn[2 * i + k] = b >= 0 && b < w->nb && !w->bodies.c[b].is_static ? b : -1;
    }
  *nnodes = w->nb;
  return rn;
}

/* Threads for count islands: settings.opt.threads, at most one an island. */
static int island_threads(const dyn_world *w, int count) {
#ifdef _OPENMP
  int T = w->set.opt.threads < DYN_PAR_MAX ? w->set.opt.threads : DYN_PAR_MAX;
  return T < 1 ? 1 : T < count ? T : count;
#else
  (void)w, (void)count;
  return 1;
#endif
}

/* The island options: the step's, each island solved on one thread. */
static slv_options island_options(const dyn_step *s) {
  slv_options o = s->opt;
  o.threads = 1;
  return o;
}

/* T threads' scratch and workspaces for the largest island. */
static dyn_err threads_reserve(dyn_step *s, int T) {
  dyn_world *w = s->w;
  dyn_islands *is = &w->islands;
  if (is->nth < T) {
    dyn_island_thread *th = realloc(is->th, (size_t)T * sizeof *th);
    if (!th) return dyn_world_fail(w, DYN_ERR_NOMEM, "step %ld: out of memory for islands", s->k);
    memset(th + is->nth, 0, (size_t)(T - is->nth) * sizeof *th);
    is->th = th;
    is->nth = T;
  }
  size_t m = (size_t)is->maxm;
  slv_options o = island_options(s);
  for (int t = 0; t < T; t++) {
    dyn_island_thread *th = &is->th[t];
    if (dyn_buf_reserve(&th->d, m * m + 7 * m + 1, &w->grows) != 0 ||
        dyn_buf_reserve(&th->iv, 2 * m + 1, &w->grows) != 0)
      return dyn_world_fail(w, DYN_ERR_NOMEM, "step %ld: out of memory for an island of %zu rows",
                            s->k, m);
    dyn_err e = dyn_world_reserve_solver(w, &th->slot, w->solver, is->maxm, &o);
    if (e != DYN_OK) return e;
  }
  return DYN_OK;
}

dyn_err dyn_world_islands_prepare(dyn_step *s, int *use) {
  dyn_world *w = s->w;
  dyn_islands *is = &w->islands;
  int nnodes = 0;
  *use = 0;
  is->count = 0;
  if (!islands_wanted(w)) return DYN_OK;
  if (!w->red && dyn_buf_reserve(&is->rnode, 2 * (size_t)w->nrows, &w->grows) != 0)
    return dyn_world_fail(w, DYN_ERR_NOMEM, "step %ld: out of memory for islands", s->k);
  const int *rn = row_nodes(w, &nnodes);
  if (nnodes < 2) return DYN_OK; /* one tree (one robot): one island, nothing to split */
  if (dyn_islands_split(is, nnodes, rn, &w->prob, &w->grows) != DYN_OK)
    return dyn_world_fail(w, DYN_ERR_NOMEM, "step %ld: out of memory for islands", s->k);
  if (is->count < 2) return DYN_OK;
  dyn_err e = threads_reserve(s, island_threads(w, is->count));
  *use = e == DYN_OK;
  return e;
}

/* Island k solved in thread scratch t; its x and w scattered into the step's. */
static void solve_island(dyn_world *w, int k, dyn_island_thread *t, const slv_options *o) {
  dyn_islands *is = &w->islands;
  slv_problem q;
  double *x, *wk;
  dyn_island_problem(is, k, &w->prob, w->x.p, t, &q, &x, &wk);
  slv_solve(t->slot.ws, &q, o, x, wk, &is->res.p[k]);
  const int *R = is->rows.p + is->off.p[k];
  for (int ii = 0; ii < q.n; ii++) {
    w->x.p[R[ii]] = x[ii];
    w->wv.p[R[ii]] = wk[ii];
  }
}

/* Refused over failed over stopped at the budget over converged. */
static int severity(slv_status st) {
  return st < 0 ? 3 : st == SLV_CONVERGED ? 0 : st == SLV_MAX_ITER ? 1 : 2;
}

/* The step's result from its islands' (the header). */
static slv_status island_result(dyn_step *s, double floor) {
  dyn_world *w = s->w;
  const dyn_islands *is = &w->islands;
  const slv_result *r = is->res.p;
  int worst = 0, iters = 0, pivots = 0, written = 0;
  double own = 0.0;
  for (int k = 0; k < is->count; k++) {
    if (severity(r[k].status) > severity(r[worst].status)) worst = k;
    iters = r[k].iterations > iters ? r[k].iterations : iters;
    pivots += r[k].pivots;
    written |= r[k].input_written;
    own = fmax(own, r[k].solver_residual);
  }
  s->res = r[worst];
  s->res.iterations = iters;
  s->res.pivots = pivots;
  s->res.input_written = written;
  s->res.solver_residual = own;
  s->res.history = s->res.history_time = NULL;
  s->res.history_len = 0;
  if (r[worst].status != SLV_CONVERGED)
    snprintf(s->res.message, sizeof s->res.message, "island %d of %d (%d rows): %.100s", worst,
             is->count, is->off.p[worst + 1] - is->off.p[worst], r[worst].message);
  if (r[worst].status >= 0) s->res.res = slv_residual_floor(&w->prob, w->x.p, w->wv.p, floor);
  return s->res.status;
}

slv_status dyn_world_islands_solve(dyn_step *s) {
  dyn_world *w = s->w;
  dyn_islands *is = &w->islands;
  const int T = island_threads(w, is->count);
  const slv_options o = island_options(s);
  const double floor = dyn_world_floor(w, s->h, s->g);
  for (int t = 0; t < T; t++) slv_workspace_set_floor(is->th[t].slot.ws, floor);
#pragma omp parallel for num_threads(T) schedule(static, 1)
  for (int t = 0; t < T; t++)
    for (long k = dyn_par_cut(is->count, t, T); k < dyn_par_cut(is->count, t + 1, T); k++)
      solve_island(w, (int)k, &is->th[t], &o);
  return island_result(s, floor);
}

int dyn_world_islands_last(const dyn_world *w) { return w ? w->islands.count : 0; }
