/* lemke.c -- Lemke's complementary pivoting method with the lexicographic
 * ratio test, on a factorized (bordered explicit-inverse) basis.
 *
 * Problem (slv.h): w = A x + b, x = mid(lo, hi, x - w).  The standard LCP
 * (lo = 0, hi = +inf) is solved as it stands; other bounds and findex
 * friction rows go through the reformulations below.  Dense storage only,
 * no cones.
 *
 * ---- Lemke's method (Cottle-Pang-Stone 1992, ch. 4: Lemke's method and
 * the lexicographic resolution of degeneracy [cottle1992]; docs/solvers.md,
 * "Lexicographic Lemke") ----------------------------------------------------
 * With a covering vector d > 0 (opt->covering, default all ones, except
 * on a plain LCP whose start ties: see "Degeneracy") and the artificial
 * variable z0, find a complementary point of
 *
 *     mu = M z + q + d z0,   z >= 0, mu >= 0, z0 >= 0,  z.mu = 0,
 *
 * written as the equations  I mu - M z - d z0 = q.  A basis B holds N of the
 * 2N+1 columns (e_i for mu_i, -M(:,j) for z_j, -d for z0); basic values
 * x_B = B^-1 q, nonbasic ones are 0.  Start: z0 = max_i(-q_i / d_i) makes
 * mu = q + d z0 >= 0, and the blocking mu_r leaves.  Then repeat: the
 * complement of the variable that just left enters; its tableau column
 * y = B^-1 a_e gives x_B(t) = x_B - t y; the minimum-ratio test picks the
 * leaving variable l = argmin { x_l / y_l : y_l > tau }.  When z0 leaves,
 * the basis is complementary and (z, mu) solves the LCP.  If no y_l > tau,
 * the path runs off along a secondary ray: SLV_RAY_TERMINATION.  That
 * happens when the LCP is infeasible, and may happen when M is outside the
 * classes where Lemke is guaranteed to process it (P-matrices,
 * copositive-plus matrices such as positive semidefinite ones, for which a
 * ray proves the LCP infeasible: CPS ch. 4).
 *
 * Degeneracy: ties in the ratio test are broken lexicographically, i.e. as
 * if q were perturbed to q + (eps, eps^2, ..., eps^N): among the tied rows
 * the leaving one minimizes the row (B^-1)_l / y_l lexicographically
 * (columns in natural order), which rules out cycling (CPS ch. 4).  The
 * start is the same rule on the rows (q_i, e_i)/d_i: among tied minima of
 * q_i/d_i the largest index i leaves.  z0 leaves whenever it is among the
 * tied rows (it ends the path at once).  The lexicographic test needs whole
 * rows of B^-1, but only for tied candidates, which are rare: they are
 * formed on demand (O(k) for a core row, O(k^2) for a mu row, see below),
 * never the full tableau.
 * A start that ties does more than that: with d = 1 and q = -1 every mu_i
 * is 0 at the start and the path turns at that one point, so the
 * lexicographic rule alone solves the LCP, and its hierarchic
 * perturbation is exponential on Fathi's matrix (no cycling: test_fathi).
 * The default d of a plain LCP therefore splits a tied start
 * (lemke_reform.c, default_covering): the same first row, ratios apart.
 *
 * Tolerances.  tau = t * ||y||_inf: an entry of the tableau column counts
 * as positive only if it exceeds t times the largest entry of that column.
 * The first path takes t = max(pivot_tol, 1e-9) (LEMKE_PIVOT_FLOOR); if it
 * fails (ray, singular basis, stagnation, pivot budget) after passing over
 * an entry above pivot_tol ||y||, the path is run again from the start with
 * t = 1e-6, then 1e-4, then pivot_tol itself, sharing one pivot budget,
 * and the best x by the library residual is kept.  On the world's friction
 * LCPs (pyramid steps: rank-deficient A, many exact ties) pivot_tol = 1e-13
 * alone takes entries at rounding level as pivots: 0 of 275 failing steps
 * of the 3-layer pyramid solved, 240 with the sequence (experiments/
 * experiments/records/2026-11-23-lemke-dantzig-world-steps.md); an SPD A
 * of condition 1e14 needs the small threshold (test_lemke.c), which the
 * last path keeps.  Siconos lexicolemke compares tableau entries with
 * max|M_ij| * DBL_EPSILON; the tableau column's own scale is used here,
 * each entry in q's units (see "Units" below).  Ratios within a relative
 * 1e-12 of the minimum are tied.  In the lexicographic comparison,
 * entries below 1e-13 times the larger row norm count as zero and
 * differences below 1e-9 relative as equal; if every entry ties, the
 * larger pivot wins.
 *
 * Ending the path in floating point.  Exact ties of z0 are taken (above);
 * z0 also leaves when its own ratio exceeds the minimum by so little that
 * no basic variable would end more than LEMKE_FEAS ||q||_inf below zero (a
 * Harris-type test, Harris 1973): ties split by rounding, or a blocking row
 * whose pivot is so small it barely moves.  On rank-deficient positive
 * semidefinite A these are common, and passing them by carries on with
 * z0 ~ 1e-14 over near-singular bases, cycling or ending on a useless basis
 * (the peers' "psd" family; see test_lemke.c).  As a last safety net the
 * path also stops when |z0| d is below LEMKE_Z0_NEGLIGIBLE ||q||_inf: the
 * point is complementary and solves w = A x + b up to z0 d.  When z0's
 * step would put a basic variable below zero by more than the Harris
 * tolerance but by at most LEMKE_TRIAL max|x_B| (as of the last drift
 * check; rounding of a long,
 * ill-conditioned path splits exact ties by that much: the friction LCP
 * below has exact ties of z0 with every contact at rest, see there), z0's
 * exit is tried (try_exit): the exchange is made, the complementary basis
 * refined, and its point kept if the library residual meets opt->tol;
 * otherwise the exchange is undone (the inverse update: z0 re-enters) and
 * the path goes on.  Without this rule 5 of the 40 contact-box-like
 * problems of test_lemke.c wander on with z0 ~ 1e-12 into a singular
 * basis or a ray.  In every case
 * the final x is judged by the library residual, never by the path.
 *
 * Units (docs/solvers.md, "Lexicographic Lemke", "Units").  A basic mu_i
 * is in q's units, a z_j in q's over those of M's column j, z0 in q's over
 * d's; d = 1 by default does not scale with A.  Every threshold above
 * (tau, the Harris and trial tests of z0's exit, the drift floor, the LU
 * pivot test) judges a basic variable in q's units: a core value or
 * tableau entry times its column's scale cs_j = max_i |[M, d]_ij|
 * (slv_lemke_col_scales), a mu as it is.  The path is then the same when
 * A, b and d are scaled together, when A alone is (x's units change), or
 * when A and b are and d is not: mixing the units (max(|q|, |w|, |z|)
 * and ||y|| over z and mu entries together) made lemke stagnate on a
 * well-conditioned SPD LCP scaled by 1e12 (test_lemke.c, "units").
 *
 * A first basis.  A plain LCP of 64 rows or more with no covering vector
 * given starts from a crash basis instead (lemke_crash.c; docs/solvers.md,
 * "Lexicographic Lemke", "A first basis"): the rounds of block principal
 * pivoting (block_pivot.c) guess the positive set, and the path runs from
 * its complementary basis with a covering vector of that basis; when it
 * does not end at a solution, the classical paths below run, and only
 * their rays are reported.
 *
 * The files: this one holds the state, the path (its start, each pivot, the
 * drift check, the end) and the sequence of paths; lemke_crash.c the path
 * from a crash basis; lemke_ratio.c the lexicographic ratio test and z0's
 * exit; lemke_basis.c the factorized basis and its updates; lemke_view.c
 * the products with M read through A; lemke_reform.c the reformulation of
 * boxed, free and friction rows.  lemke.h is their shared state.
 *
 * Notation: the paper's z, q, M are u, q, M here; x and w stay the problem's.
 * Memory (all in init): H (and the compact core columns) for
 * N_max = 3 n_max, i.e. 9 n_max^2 doubles (of which a plain LCP touches
 * 2 n^2, a boxed one 4 n^2), E (LEMKE_E_ROW n_max entries, twice) and
 * O(n_max) vectors; solve never allocates.
 * warm_start is ignored (Lemke starts from its own basis).
 * res->pivots counts every basis change, the first (z0 in) and the last
 * (z0 out) included; res->iterations is 0.  The pivot limit is
 * slv_pivot_limit(opt, N) -> SLV_MAX_ITER.
 * Statuses: SLV_CONVERGED, SLV_RAY_TERMINATION, SLV_MAX_ITER,
 * SLV_SINGULAR_PIVOT (refactorization found S singular), SLV_NOT_FINITE,
 * SLV_STAGNATED (complementary basis found, but the residual misses tol),
 * SLV_ERR_INVALID (covering vector not finite and > 0), SLV_ERR_UNSUPPORTED
 * (a friction row whose normal row is not lo = 0, hi = +inf), SLV_TIME_LIMIT,
 * SLV_INTERRUPTED (polled before each pivot: the best path's point).
 */
#include "lemke.h"

#include <cblas.h>
#include <stdlib.h>
#include <string.h>

static void lemke_free(void *st) {
  lemke_state *s = st;
  free(s->H);
  free(s->ipiv);
  free(s->work);
  free(s->K);
  free(s->R);
  free(s->posK);
  free(s->posR);
  free(s->xK);
  free(s->wv);
  free(s->yK);
  free(s->yW);
  free(s->u);
  free(s->g);
  free(s->t);
  free(s->lexa);
  free(s->lexb);
  free(s->zs);
  free(s->cs);
  free(s->ws);
  free(s->ties);
  free(s->qv);
  free(s->dv);
  free(s->ao);
  free(s->af);
  free(s->erp);
  free(s->ecp);
  free(s->erj);
  free(s->eci);
  free(s->erv);
  free(s->ecv);
  free(s->ti);
  free(s->tj);
  free(s->tv);
  free(s->o);
  free(s->sg);
  free(s->xtra);
  free(s->mrow);
  free(s->c);
  free(s->an);
  free(s->xfirst);
  free(s->dc);
  free(s->inC);
  memset(s, 0, sizeof *s);
}

static slv_status lemke_init(void *st, int n_max, const slv_options *opt) {
  (void)opt;
  lemke_state *s = st;
  /* N <= n + 2 (n - 1): every friction row adds m_i and lambda_i, and at
   * least one row is its normal; box and free rows add one extra each */
  size_t n = (size_t)(n_max > 0 ? n_max : 1), N = 3 * n;
  s->n_max = (int)n;
  s->N_max = (int)N;
  s->H = malloc(N * N * sizeof *s->H);
  s->ipiv = malloc(N * sizeof *s->ipiv);
  s->work = malloc(N * LEMKE_LWORK_COLS * sizeof *s->work);
  s->K = malloc(N * sizeof *s->K);
  s->R = malloc(N * sizeof *s->R);
  s->posK = malloc((N + 1) * sizeof *s->posK);
  s->posR = malloc(N * sizeof *s->posR);
  s->ties = malloc((N + 1) * sizeof *s->ties);
  s->zs = malloc((N + 1) * sizeof *s->zs);
  s->cs = malloc((N + 1) * sizeof *s->cs);
  s->ao = malloc(N * sizeof *s->ao);
  s->ecap = LEMKE_E_ROW * n;
  s->erp = malloc((N + 1) * sizeof *s->erp);
  s->ecp = malloc((N + 1) * sizeof *s->ecp);
  s->erj = malloc(s->ecap * sizeof *s->erj);
  s->eci = malloc(s->ecap * sizeof *s->eci);
  s->ti = malloc(s->ecap * sizeof *s->ti);
  s->tj = malloc(s->ecap * sizeof *s->tj);
  s->erv = malloc(s->ecap * sizeof *s->erv);
  s->ecv = malloc(s->ecap * sizeof *s->ecv);
  s->tv = malloc(s->ecap * sizeof *s->tv);
  s->xtra = malloc(n * sizeof *s->xtra);
  s->mrow = malloc(n * sizeof *s->mrow);
  s->inC = malloc(n * sizeof *s->inC);
  double **vN[] = { &s->xK,   &s->wv,   &s->yK, &s->yW, &s->u,  &s->g, &s->t,
                    &s->lexa, &s->lexb, &s->qv, &s->dv, &s->af, &s->ws };
  for (size_t k = 0; k < sizeof vN / sizeof *vN; k++) *vN[k] = malloc(N * sizeof **vN[k]);
  double **vn[] = { &s->o, &s->sg, &s->c, &s->an, &s->xfirst, &s->dc };
  for (size_t k = 0; k < sizeof vn / sizeof *vn; k++) *vn[k] = calloc(n, sizeof **vn[k]);
  int ok = s->H && s->ipiv && s->work && s->K && s->R && s->posK && s->posR && s->ties && s->zs &&
           s->cs && s->ao && s->erp && s->ecp && s->erj && s->eci && s->ti && s->tj && s->erv &&
           s->ecv && s->tv && s->xtra && s->mrow && s->inC;
  for (size_t k = 0; k < sizeof vN / sizeof *vN; k++) ok = ok && *vN[k];
  for (size_t k = 0; k < sizeof vn / sizeof *vn; k++) ok = ok && *vn[k];
  if (!ok) {
    lemke_free(s);
    return SLV_ERR_NOMEM;
  }
  return SLV_OK;
}

path slv_lemke_path_new(double piv_tol, double lu_tol, int limit) {
  path P = { .piv_tol = piv_tol,
             .lu_tol = lu_tol,
             .limit = limit,
             .notrial = -1,
             .period = LEMKE_CHECK,
             .to_check = LEMKE_CHECK };
  return P;
}

void slv_lemke_path_scales(basis *B, path *P) {
  const lcp_view *L = B->L;
  P->qscale = P->dmax = 0;
  for (int i = 0; i < B->N; i++) {
    /* the rows that read A (w units; not a bound's gap, which may be huge
     * on a row that a problem's own scale says nothing about) */
    if (L->plain || L->ao[i] >= 0) P->qscale = fmax(P->qscale, fabs(L->q[i]));
    P->dmax = fmax(P->dmax, fabs(L->d[i]));
  }
  /* ||q||_inf itself, no floor of 1: the thresholds below are then
   * relative to the problem's own scale (docs/convergence.md) */
  if (!(P->qscale > 0)) P->qscale = 1.0;
  /* the column scales, once per solve; z0's: this path's d (the crash
   * path's is its own) */
  if (!B->s->cs_ready) slv_lemke_col_scales(L, B->s->cs);
  B->s->cs_ready = 1;
  B->s->cs[B->N] = P->dmax;
  /* scale of the basic values for the tentative-exit test, refreshed at
   * every drift check (a heuristic trigger: the trial itself is judged by
   * the library residual) */
  P->vscale = slv_lemke_basic_scale(B, P->qscale);
}

/* The first pivot: z0 = max_i(-q_i / d_i); among ties (lexicographic rule
 * on (q_i, e_i) / d_i) the largest index leaves, and its complement enters
 * next.  Returns 0 when q >= 0 (u = 0 solves the LCP), else 1. */
static int path_start(basis *B, path *P) {
  lemke_state *s = B->s;
  const lcp_view *L = B->L;
  int N = B->N;
  double best = 0;
  for (int i = 0; i < N; i++) best = fmax(best, -L->q[i] / L->d[i]);
  int r = -1;
  if (best > 0)
    for (int i = 0; i < N; i++)
      if (-L->q[i] / L->d[i] >= best * (1 - LEMKE_TIE_REL)) r = i;
  for (int i = 0; i <= N; i++) s->posK[i] = -1;
  for (int i = 0; i < N; i++) s->posR[i] = -1;
  if (r < 0) return 0;
  /* z0 in at z0 = -q_r / d_r, mu_r out; S = [-d_r] */
  for (int i = 0; i < N; i++) s->wv[i] = L->q[i] + L->d[i] * best;
  s->K[0] = N;
  s->R[0] = r;
  s->posK[N] = 0;
  s->posR[r] = 0;
  s->xK[0] = best;
  s->H[0] = -1.0 / L->d[r];
  slv_lemke_set_core_col(L, 0, N);
  B->k = 1;
  P->pivots = 1;
  P->ent = r; /* u_r enters next */
  slv_lemke_path_scales(B, P);
  return 1;
}

/* The drift check after a pivot; a period that needed a refactorization is
 * halved (ill-conditioned bases lose digits fast), one that did not is
 * doubled back towards LEMKE_CHECK.  SLV_SINGULAR_PIVOT if the
 * refactorization finds S singular. */
static slv_status drift_check(basis *B, path *P) {
  double dft = slv_lemke_drift(B);
  P->vscale = slv_lemke_basic_scale(B, P->qscale);
  /* the rounding floor of B x_B - q is ~ eps k max_j cs_j |x_j| (each
   * basic variable in q's units, docs/solvers.md, "Lexicographic Lemke",
   * "Units"): when the solution is large (|x| ~ 1e5 for |b| ~ 1 on the
   * contact matrices with a 1e-6 cfm), refactorizing cannot bring the
   * drift under LEMKE_DRIFT ||q||; judge it against that floor too */
  int refac = dft > LEMKE_DRIFT * P->qscale && dft > LEMKE_DRIFT_FLOOR * P->vscale;
  if (refac) {
    slv_status stt = slv_lemke_refactor(B, P->lu_tol);
    if (stt) return stt;
    P->period = P->period / 2 > LEMKE_CHECK_MIN ? P->period / 2 : LEMKE_CHECK_MIN;
  } else {
    P->period = 2 * P->period < LEMKE_CHECK ? 2 * P->period : LEMKE_CHECK;
  }
  P->to_check = P->period;
  return SLV_OK;
}

/* The secondary ray's message; SLV_RAY_TERMINATION. */
static slv_status ray(basis *B, const path *P, slv_result *res) {
  lemke_state *s = B->s;
  int ent = P->ent, e = ent >= 0 ? ent : -ent - 1;
  double z0 = s->xK[s->posK[B->N]];
  if (B->L->friction)
    slv_msgf(res->message, sizeof res->message,
             "lemke: secondary ray at pivot %d (%s%d entering, z0=%.3g); the friction LCP "
             "matrix is not copositive-plus, so this proves no infeasibility",
             P->pivots, ent >= 0 ? "x" : "w", e, z0);
  else
    slv_msgf(res->message, sizeof res->message,
             "lemke: secondary ray at pivot %d (%s%d entering, z0=%.3g): the LCP is "
             "infeasible or A is outside the class Lemke is guaranteed for",
             P->pivots, ent >= 0 ? "x" : "w", e, z0);
  return SLV_RAY_TERMINATION;
}

/* One pivot of the path.  Returns 1 to go on, else 0 with *end =
 * SLV_CONVERGED when the path ended (z0 left, or the safety net; x and w
 * hold the point of a taken tentative exit), or a failure status with its
 * message.  (A status alone cannot say "go on": SLV_OK is SLV_CONVERGED.) */
static int pivot(basis *B, path *P, slv_op *op, const slv_options *opt, double *x, double *w,
                 slv_result *res, slv_status *end) {
  lemke_state *s = B->s;
  int N = B->N, lz0;
  if ((*end = slv_should_stop(op, (double)N * N))) return 0; /* x: the basis's point */
  if (P->pivots >= P->limit) {
    slv_msgf(res->message, sizeof res->message,
             "lemke: pivot limit %d reached (z0=%.3g still basic)", P->limit,
             s->posK[N] >= 0 ? s->xK[s->posK[N]] : 0.0);
    return *end = SLV_MAX_ITER, 0;
  }
  slv_lemke_tableau_column(B, P->ent);
  if (slv_lemke_ratio_test(B, P) != SLV_OK) {
    slv_msgf(res->message, sizeof res->message, "lemke: tableau column not finite at pivot %d",
             P->pivots);
    return *end = SLV_NOT_FINITE, 0;
  }
  if (P->theta == INFINITY) return *end = ray(B, P, res), 0;
  int nt = slv_lemke_tied_rows(B, P, &lz0);
  if (lz0 < 0) {
    int z = slv_lemke_z0_exit(B, P, op, opt, x, w);
    if (z == Z0_EXITED) return *end = SLV_CONVERGED, 0;
    if (z == Z0_RETRY) return 1;
    if (z == Z0_LEAVES) lz0 = s->posK[N];
  }
  int l = lz0 >= 0 ? lz0 : slv_lemke_lex_choose(B, nt);
  double yl = l >= 0 ? s->yK[l] : s->yW[-l - 1];
  double step = fmax(0.0, l >= 0 ? s->xK[l] : s->wv[-l - 1]) / yl;
  int leaving = l >= 0 ? s->K[l] : -1; /* u_j / z0, or -1 for a mu */
  int lrow = l >= 0 ? -1 : -l - 1;
  slv_lemke_exchange(B, P->ent, l, step);
  P->pivots++;
  if (leaving == N) return *end = SLV_CONVERGED, 0; /* z0 left: complementary basis */
  /* safety net: z0 at rounding level but still basic.  The point is
   * complementary and w = A x + b + d z0, i.e. a solution up to z0 d;
   * pivoting on would only wander among near-singular bases. */
  if (fabs(s->xK[s->posK[N]]) * P->dmax <= LEMKE_Z0_NEGLIGIBLE * P->qscale)
    return *end = SLV_CONVERGED, 0;
  P->ent = leaving >= 0 ? -(leaving + 1) : lrow;
  if (--P->to_check == 0 && drift_check(B, P) != SLV_OK) {
    slv_msgf(res->message, sizeof res->message,
             "lemke: core basis (k=%d) numerically singular at pivot %d", B->k, P->pivots);
    return *end = SLV_SINGULAR_PIVOT, 0;
  }
  return 1;
}

/* The complementary basis: refine, check with the library's measure, and
 * refactorize once if that is not enough; the verdict. */
slv_status slv_lemke_finish(basis *B, const path *P, slv_op *op, const slv_options *opt, double *x,
                            double *w, slv_result *res) {
  lemke_state *s = B->s;
  const slv_problem *p = op->p;
  slv_lemke_refine(B);
  slv_lemke_solution(B, p, x);
  slv_op_w(op, x, w);
  slv_residuals rr = slv_residual(p, x, w);
  if (!(rr.res_scaled <= opt->tol) && slv_lemke_refactor(B, P->lu_tol) == SLV_OK) {
    slv_lemke_refine(B);
    slv_lemke_solution(B, p, x);
    slv_op_w(op, x, w);
    rr = slv_residual(p, x, w);
  }
  res->solver_residual = rr.res_scaled;
  if (!isfinite(rr.res_scaled)) {
    slv_msgf(res->message, sizeof res->message, "lemke: solution not finite after %d pivots",
             P->pivots);
    return SLV_NOT_FINITE;
  }
  if (rr.res_scaled <= opt->tol) return SLV_CONVERGED;
  if (s->posK[B->N] >= 0)
    slv_msgf(res->message, sizeof res->message,
             "lemke: z0=%.3g negligible after %d pivots but res_scaled=%.3g > tol=%.3g "
             "(ill-conditioned basis)",
             s->xK[s->posK[B->N]], P->pivots, rr.res_scaled, opt->tol);
  else
    slv_msgf(res->message, sizeof res->message,
             "lemke: complementary basis after %d pivots but res_scaled=%.3g > tol=%.3g "
             "(ill-conditioned basis)",
             P->pivots, rr.res_scaled, opt->tol);
  return SLV_STAGNATED;
}

slv_status slv_lemke_run_path(basis *B, path *P, slv_op *op, const slv_options *opt, double *x,
                              double *w, slv_result *res) {
  slv_status stt = SLV_CONVERGED;
  while (pivot(B, P, op, opt, x, w, res, &stt)) {}
  res->pivots = P->pivots;
  if (stt != SLV_CONVERGED) {
    slv_lemke_solution(B, op->p, x);
    return stt;
  }
  if (P->trials)
    slv_logf(opt, "lemke: %d tentative exits of z0%s", P->trials,
             P->exited ? ", the last taken" : "");
  return slv_lemke_finish(B, P, op, opt, x, w, res);
}

/* One path from the start with ratio-test threshold piv_tol; its verdict
 * (x, w and res as the header says; res->pivots is this path's count). */
static slv_status one_path(lemke_state *s, lcp_view *L, slv_op *op, const slv_options *opt,
                           double piv_tol, int limit, double *x, double *w, slv_result *res,
                           int *skipped) {
  basis B = { .s = s, .L = L, .N = L->N, .k = 0, .ldh = L->N };
  path P = slv_lemke_path_new(piv_tol, opt->pivot_tol, limit);
  *skipped = 0;
  if (!path_start(&B, &P)) {
    slv_lemke_solution(&B, op->p, x);
    return SLV_CONVERGED;
  }
  slv_status stt = slv_lemke_run_path(&B, &P, op, opt, x, w, res);
  *skipped = P.skipped;
  return stt;
}

/* The library residual of x (w = A x + b into w). */
static double res_of(slv_op *op, const double *x, double *w) {
  slv_op_w(op, x, w);
  return slv_residual(op->p, x, w).res_scaled;
}

/* Up to LEMKE_NPATHS paths (the header's "Tolerances"): with ratio-test
 * thresholds lemke_floors[] (those above pivot_tol), then pivot_tol itself.
 * The next path runs only if this one failed after passing over an entry
 * above pivot_tol (a path that passed over none is the pivot_tol path, and
 * its failure is not one of tiny pivots), with the rest of the pivot budget.
 * The best x by the library residual is returned, with its status and
 * message; res->pivots counts every path. */
#define LEMKE_FLOOR_2 1e-6
#define LEMKE_FLOOR_3 1e-4
static const double lemke_floors[] = { LEMKE_PIVOT_FLOOR, LEMKE_FLOOR_2, LEMKE_FLOOR_3 };
enum { LEMKE_NPATHS = sizeof lemke_floors / sizeof *lemke_floors + 1 };

/* d = 1 in place of default_covering's split (the column scales, which
 * hold d's, made again when a path needs them). */
static void unsplit_covering(lemke_state *s, lcp_view *L) {
  for (int i = 0; i < L->N; i++) s->dv[i] = 1.0;
  L->split = 0;
  s->cs_ready = 0;
}

static slv_status lemke_solve(void *st, slv_op *op, const slv_options *opt, double *x, double *w,
                              slv_result *res, slv_hist *h) {
  (void)h;
  lemke_state *s = st;
  lcp_view L;
  slv_status stt = slv_lemke_setup(s, op, opt, &L, res);
  if (stt) return stt;
  int n = op->n;
  res->iterations = 0;
  res->pivots = 0;
  res->solver_residual = 0;
  if (L.N == 0) return SLV_CONVERGED;
  int limit = slv_pivot_limit(opt, L.N), used = 0, skipped = 0, have = 0, xhave = 0;
  slv_status best_st = SLV_MAX_ITER;
  double best_r = INFINITY, x_r = INFINITY; /* the best classical path's; the best x's */
  char best_msg[sizeof res->message];
  if (L.plain && !opt->covering && L.N >= LEMKE_CRASH_MIN) {
    stt = slv_lemke_crash_path(s, &L, op, opt, limit, x, w, res);
    used = res->pivots;
    if (stt == SLV_CONVERGED) return stt;
    x_r = res_of(op, x, w);
    xhave = 1;
    memcpy(s->xfirst, x, (size_t)n * sizeof *x);
    if (slv_stopped(op)) return res->solver_residual = x_r, slv_stopped(op);
    res->message[0] = '\0'; /* the classical paths' verdict, not the crash's */
  }
  /* a split tied start (lemke_reform.c, default_covering) first, with
   * half the budget left, then, unless it ended on a ray, d = 1 with the
   * rest */
  int cap = L.split ? used + (limit - used) / 2 : limit;
  for (int a = 0; a < LEMKE_NPATHS; a++) {
    double tol = a < LEMKE_NPATHS - 1 ? lemke_floors[a] : opt->pivot_tol;
    if (a < LEMKE_NPATHS - 1 && !(tol > opt->pivot_tol)) continue;
    stt = one_path(s, &L, op, opt, tol, cap - used, x, w, res, &skipped);
    used += res->pivots;
    res->pivots = used;
    if (stt == SLV_CONVERGED) return stt;
    double r = res_of(op, x, w);
    if (!have || r < best_r) {
      have = 1;
      best_r = r;
      best_st = stt;
      memcpy(best_msg, res->message, sizeof best_msg);
    }
    if (!xhave || r < x_r) {
      xhave = 1;
      x_r = r;
      memcpy(s->xfirst, x, (size_t)n * sizeof *x);
    }
    if (stt == SLV_NOT_FINITE || slv_stopped(op)) break;
    if ((!skipped || used >= cap) && L.split && used < limit && stt != SLV_RAY_TERMINATION) {
      unsplit_covering(s, &L); /* the paths again from d = 1 (a ray: any d > 0 ends so) */
      cap = limit;
      a = -1;
      continue;
    }
    if (!skipped || used >= cap) break;
  }
  if (slv_stopped(op)) best_st = slv_stopped(op); /* with the best path's x */
  memcpy(x, s->xfirst, (size_t)n * sizeof *x);
  slv_op_w(op, x, w);
  memcpy(res->message, best_msg, sizeof best_msg);
  res->solver_residual = x_r;
  return best_st;
}

static const slv_impl lemke_impl = {
  .state_size = sizeof(lemke_state),
  .init = lemke_init,
  .free = lemke_free,
  .solve = lemke_solve,
  .asks_symmetry = 1, /* the crash (lemke_crash.c, symmetric_for) */
};

const slv_solver slv_solver_lemke = {
  .name = "lemke",
  .summary = "Lemke complementary pivoting, lexicographic, factorized basis; box/free rows and "
             "findex friction by LCP reformulation",
  .cite = "cottle1992",
  .caps = SLV_CAP_BOX | SLV_CAP_FREE | SLV_CAP_FINDEX | SLV_CAP_DENSIFY,
  /* clang-format off */
  .params =
      "lexicographic; d = options.covering (ones); pivots > t ||y||_inf, t = "
      SLV_STR(LEMKE_PIVOT_FLOOR) ", " SLV_STR(LEMKE_FLOOR_2) ", " SLV_STR(LEMKE_FLOOR_3) ", then "
      "pivot_tol (" SLV_STR(SLV_DEFAULT_PIVOT_TOL) "); max_pivots 0: max(2^28/n^2, 50n)",
  /* clang-format on */
  .impl = &lemke_impl,
};
