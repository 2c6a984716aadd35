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
 * With a covering vector d > 0 (opt->covering, default all ones) and the
 * artificial variable z0, find a complementary point of
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
 * MEASUREMENTS.md, "Measurements: lemke and dantzig on world steps"); an SPD A
 * of condition 1e14 needs the small threshold (test_lemke.c), which the
 * last path keeps.  Siconos lexicolemke compares tableau entries with
 * max|M_ij| * DBL_EPSILON; the tableau column's own scale is used here
 * because y = B^-1 a_e has the units of B^-1 (1/|M|) for an entering mu and
 * of 1 for an entering z, and the rule is then invariant under scaling of
 * A, b and d.  Ratios within a relative 1e-12 of the minimum are tied.  In
 * the lexicographic comparison, entries below 1e-13 times the larger row
 * norm count as zero and differences below 1e-9 relative as equal; if every
 * entry ties, the larger pivot wins.
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
 * ---- the factorized basis -------------------------------------------------
 * Sort the basic variables into the core K (basic z_j and z0, k of them) and
 * the basic mu_i.  R = the rows whose mu is nonbasic; |R| = k.  With
 * S = B(R, K) (k x k), solving B y = a splits into
 *     y_K = S^-1 a_R,        y_i = a_i - B(i, K) y_K   for the basic mu_i,
 * so only the core matrix S needs a factorization.  It is kept as the
 * explicit inverse H = S^-1 (k x k, column-major, leading dimension N), and
 * a pivot changes S by one row and/or one column:
 *   z_j enters, mu_r leaves:  S grows by row r and column j (bordering with
 *                             the Schur complement sigma = y_r);
 *   z_j enters, core var out: column replacement (eta update of H);
 *   mu_i enters, mu_r leaves: row replacement (Sherman-Morrison);
 *   mu_i enters, core var out: S loses row i and the column (the inverse of
 *                             a matrix with a row and column deleted).
 * Each update is one dger on H (plus one dgemv with H^T for the first and
 * third): a pivot costs
 *     y_K = H a_R            2 k^2      (dgemv)
 *     B(W, K) y_K            2 N k      (dgemv on the core columns)
 *     H update               2-4 k^2    (dger, dgemv)
 *     ratio test, values     O(N)
 * against 2N(2N+2) for a full tableau sweep (Siconos lexicolemke).  For a
 * plain LCP the core columns of A are kept as a compact copy (N x k, in
 * H's buffer behind the inverse) so that B(W, K) y_K is one dgemv; when A
 * is mostly zeros (n >= 64 and at most n^2/4 nonzeros: contact matrices
 * J M^-1 J^T stored dense), the operator's packed copy of its columns
 * (operator.h) is read instead, and the product costs the nonzeros of the
 * core columns instead of 2 N k.  The columns themselves are the
 * operator's dense view of A.
 * Rounding in H accumulates like in any product-form update: a drift check
 * every LEMKE_CHECK pivots recomputes B x_B - q (one more product) and,
 * when it exceeds LEMKE_DRIFT relative to ||q|| and also LEMKE_DRIFT_FLOOR
 * max|[M, d]| max|x_B| (the rounding floor of that product: on the contact
 * matrices with a 1e-6 cfm, |x| reaches 1e5 for |b| ~ 1, and without the
 * floor the check refactorized every few pivots in vain; experiments/
 * MEASUREMENTS.md, "Measurements: solvers"), refactorizes S by LU
 * (LAPACKE dgetrf + dgetri, 2k^3 flops) and recomputes x_B from it; after
 * a refactorization the check period is halved (down to LEMKE_CHECK_MIN),
 * after a clean check doubled back.  At the end, up to LEMKE_REFINE steps
 * of iterative refinement on the final basis (x_K += H (q_R - S x_K),
 * while the residual halves) bring x to rounding level; if the library
 * residual still misses opt->tol, S is refactorized once, x recomputed and
 * refined, and the residual judged again.
 *
 * ---- boxed and free rows: the standard reformulation as an LCP ------------
 * Each row i of the boxed problem becomes one or two LCP variables:
 *   lo finite, hi = +inf:  x_i = lo_i + u_i,  mu_i = w_i        (u_i >= 0)
 *   lo = -inf, hi finite:  x_i = hi_i - u_i,  mu_i = -w_i
 *   both finite:           x_i = lo_i + u_i,  mu_i = w_i + v_i, and an extra
 *                          pair s_i = (hi_i - lo_i) - u_i >= 0 _|_ v_i >= 0
 *                          (v_i is the multiplier of the upper bound:
 *                          w_i = mu_i - v_i <= 0 when x_i = hi_i);
 *   free (-inf, +inf):     x_i = u_i - u'_i, mu_i = w_i, and an extra pair
 *                          -w_i >= 0 _|_ u'_i >= 0 (so w_i = 0 when either
 *                          part is positive).
 * In block form, with sigma_i = +-1, o the shift (lo, hi or 0) and the
 * extras last:  [mu; s; mu'] = M [u; v; u'] + q,
 *     M = [[ G A G, J, -G A E ], [ -J^T, 0, 0 ], [ -E^T A G, 0, E^T A E ]],
 *     q = [ G (A o + b); hi - lo; -E^T (A o + b) ],
 * G = diag(sigma), J / E the unit columns of the box / free rows.  M is
 * positive semidefinite whenever A is (the box blocks are skew), so Lemke
 * processes it.  M is never formed: the entries that come from A are read
 * through sign and index maps (LCP row / variable t reads row / column
 * ao[t] of A with sign af[t]); the others (the +-1 of the box pairs, and
 * of the friction rows below) form a small sparse matrix E, kept by rows
 * and by columns.  The covering entry of an extra row is that of its
 * original row.  A problem with every lo = 0 and hi = +inf and no findex
 * rows is solved directly (M = A, q = b): it pays nothing for any of this.
 *
 * ---- findex friction rows: the friction LCP --------------------------------
 * A friction row i with normal row j = findex[i] has the bounds
 * -h .. h, h = mu_i |x_j|.  Its normal row must be an LCP row (lo_j = 0,
 * hi_j = +inf, so x_j >= 0 and h = mu_i x_j); any other normal row is
 * refused (SLV_ERR_UNSUPPORTED: the bounds would not be linear in the LCP
 * variables).  Split x_i = p_i - m_i (p_i, m_i >= 0) and add lambda_i >= 0:
 *     p_i      >= 0  _|_  lambda_i + w_i          >= 0
 *     m_i      >= 0  _|_  lambda_i - w_i          >= 0
 *     lambda_i >= 0  _|_  mu_i x_j - p_i - m_i    >= 0
 * with w_i = A(i,:) x + b_i, x_i = p_i - m_i (p_i is the main variable of
 * row i, m_i reads A like the u'_i of a free row, lambda_i reads no A).
 * A solution gives the box conditions at the final bounds.  Let
 * s = h - p_i - m_i >= 0, so |x_i| <= p_i + m_i <= h: x_i is in the box.
 *   lambda_i = 0:  w_i >= 0 and -w_i >= 0, so w_i = 0: right anywhere in
 *                  the box.
 *   lambda_i > 0:  s = 0, p_i + m_i = h.  p_i, m_i > 0 together would give
 *                  lambda_i = -w_i = w_i, i.e. lambda_i = 0: so at most one
 *                  is positive.  p_i = h > 0: x_i = h, w_i = -lambda_i < 0
 *                  (at hi, w <= 0: right).  m_i = h > 0: x_i = -h,
 *                  w_i = lambda_i > 0 (at lo, w >= 0: right).  p_i = m_i =
 *                  0: h = 0 and x_i = 0 = lo = hi, where any w_i is right.
 *   x_j = 0 (a separating contact): h = 0 forces p_i = m_i = 0, x_i = 0.
 * Conversely a solution x of the findex problem lifts to one of this LCP:
 * p_i = max(x_i, 0), m_i = max(-x_i, 0), lambda_i = |w_i|.  p_i > 0 means
 * x_i > -h, so w_i <= 0 and lambda_i + w_i = 0; m_i > 0 likewise gives
 * lambda_i - w_i = 0; lambda_i > 0 means w_i != 0, so x_i is at a bound:
 * p_i + m_i = |x_i| = h and s = 0 (h = 0 included).  So the LCP's
 * solutions are exactly the findex problem's, and Lemke's method solves
 * it exactly, where bound-freezing methods (ODE's dLCP) do not and
 * dantzig's outer passes may stagnate.
 * The LCP rows of row i: q = r_i, -r_i (r = A o + b) and 0; the entries of
 * E: M(p_i, lambda_i) = M(m_i, lambda_i) = 1, M(lambda_i, p_i) =
 * M(lambda_i, m_i) = -1, M(lambda_i, x_j) = mu_i.  The +-1 pairs are skew,
 * so z^T M z = y^T A y + sum_i mu_i lambda_i x_j >= 0 on z >= 0 (y = x - o,
 * the unshifted x): M is
 * copositive when A is positive semidefinite, but not copositive-plus
 * (z = e_lambda gives z^T M z = 0 with (M + M^T) z = mu_i e_j != 0).
 * Lemke may then end on a secondary ray even when the problem has a
 * solution; that is reported as SLV_RAY_TERMINATION, and the message says
 * the ray proves nothing.  On the peers' contact-box instances (rank
 * ~n/2 plus a 1e-6 cfm) no ray has been met (experiments/MEASUREMENTS.md,
 * "Measurements: solvers").
 * Sizes: N = n + #box + #free + 2 #friction < 3n.
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
#include "slv_internal.h"

#include <cblas.h>
#include <float.h>
#include <lapacke.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

enum {
  LEMKE_CHECK = 50,      /* pivots between two drift checks (at most) */
  LEMKE_CHECK_MIN = 4,   /* ... and at least, after refactorizations */
  LEMKE_REFINE = 3,      /* refinement steps at the end, at most */
  LEMKE_LWORK_COLS = 32, /* dgetri work space: N_max * this */
  LEMKE_E_ROW = 5        /* entries of E per row of A: 2 for a box row, 5 for a friction row */
};
#define LEMKE_DRIFT         1e-9  /* relative drift of B x_B = q that triggers a refactorization */
#define LEMKE_DRIFT_FLOOR   1e-12 /* ... if also above this * max|M| max|x_B| */
#define LEMKE_PIVOT_FLOOR   1e-9  /* tableau entries below this * ||y||_inf are not pivots */
#define LEMKE_TIE_REL       1e-12 /* ratios within this relative distance are tied */
#define LEMKE_FEAS          1e-13 /* z0 leaves if that costs no row more than this * ||q|| */
#define LEMKE_TRIAL         1e-9  /* ... or no more than this * max|x_B| and its point meets tol */
#define LEMKE_Z0_NEGLIGIBLE (1e3 * DBL_EPSILON) /* z0 d below this * ||q||: stop */
#define LEMKE_LEX_ZERO      1e-13 /* lexicographic entries below this * row norm are 0 */
#define LEMKE_LEX_DIFF      1e-9 /* lexicographic entries within this relative distance are equal */

typedef struct {
  int n_max, N_max;
  /* the core inverse and its refactorization */
  double *H;        /* N_max^2: H = S^-1, k x k used, leading dimension N */
  lapack_int *ipiv; /* N_max */
  double *work;     /* N_max * LEMKE_LWORK_COLS */
  /* basis: K = core variables (0..N-1 = u_j, N = z0), R = rows of nonbasic mu */
  int *K, *R;          /* N_max each */
  int *posK;           /* N_max + 1: position of u_j / z0 in K, or -1 */
  int *posR;           /* N_max: position of row i in R, or -1 (mu_i basic) */
  double *xK;          /* N_max: values of the core variables */
  double *wv;          /* N_max: values of the basic mu_i (by row) */
  double *yK, *yW;     /* N_max: tableau column, core part / mu part (by row) */
  double *u, *g, *t;   /* N_max: products and scratch */
  double *lexa, *lexb; /* N_max: two lexicographic rows */
  double *zs, *ws;     /* N_max + 1 / N_max: values saved by a tentative exit */
  int *ties;           /* N_max + 1 */
  /* the reformulated LCP (general case) */
  double *qv, *dv; /* N_max: q and d of the LCP solved */
  int *ao;         /* N_max: A index of LCP variable/row t, or -1 */
  double *af;      /* N_max: sign of that A index (0 if none) */
  /* E: the entries of M that are not read from A (box and friction
   * couplings), by row and by column, at most LEMKE_E_ROW per row of A */
  int *erp, *ecp;    /* N_max + 1: row / column pointers */
  int *erj, *eci;    /* ecap: column index (by row) / row index (by column) */
  double *erv, *ecv; /* ecap: values */
  int *ti, *tj;      /* ecap: the entries as triplets, before sorting */
  double *tv;        /* ecap */
  size_t ecap;       /* LEMKE_E_ROW n_max */
  double *o, *sg;    /* n_max: shift and sign of x_i = o_i + sg_i u_i */
  int *xtra;         /* n_max: first extra LCP variable of row i (box v, free u',
                        friction m; a friction row's lambda is xtra + 1), or -1 */
  int *mrow;         /* n_max: the extra that reads row i of A (free u', friction m), or -1 */
  double *c, *an;    /* n_max: a combination of A's columns and its product */
  double *xfirst;    /* n_max: the best x of the paths so far */
} lemke_state;

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
  double **vN[] = { &s->xK,   &s->wv,   &s->yK, &s->yW, &s->u,  &s->g, &s->t,
                    &s->lexa, &s->lexb, &s->qv, &s->dv, &s->af, &s->ws };
  for (size_t k = 0; k < sizeof vN / sizeof *vN; k++) *vN[k] = malloc(N * sizeof **vN[k]);
  double **vn[] = { &s->o, &s->sg, &s->c, &s->an, &s->xfirst };
  for (size_t k = 0; k < sizeof vn / sizeof *vn; k++) *vn[k] = calloc(n, sizeof **vn[k]);
  int ok = s->H && s->ipiv && s->work && s->K && s->R && s->posK && s->posR && s->ties && s->zs &&
           s->ao && s->erp && s->ecp && s->erj && s->eci && s->ti && s->tj && s->erv && s->ecv &&
           s->tv && s->xtra && s->mrow;
  for (size_t k = 0; k < sizeof vN / sizeof *vN; k++) ok = ok && *vN[k];
  for (size_t k = 0; k < sizeof vn / sizeof *vn; k++) ok = ok && *vn[k];
  if (!ok) {
    lemke_free(s);
    return SLV_ERR_NOMEM;
  }
  return SLV_OK;
}

/* ---- the LCP solved: M, q, d, read through A ------------------------------ */

typedef enum {
  VIEW_GENERAL = 0, /* reformulated: M read through sign and index maps and E */
  VIEW_DENSE,       /* plain LCP (M = A, q = b), core columns copied to C */
  VIEW_PACKED       /* plain LCP, A's nonzero entries packed by column */
} view_kind;

typedef struct {
  int n, N;     /* original size, LCP size */
  int plain;    /* 1: M = A, q = b (every lo = 0, hi = +inf, no findex) */
  int friction; /* 1: findex rows present (M not copositive-plus in general) */
  view_kind kind;
  const double *A; /* the operator's dense view */
  size_t lda;
  double *C;                  /* VIEW_DENSE: [M, d](:, K), N x k, leading dimension N */
  const int *colptr, *rowind; /* A packed by column (VIEW_PACKED, or GENERAL), else NULL */
  const double *val;
  const double *q, *d;
  const int *ao, *mrow;
  const double *af;
  const int *erp, *erj, *ecp, *eci; /* E by row / by column */
  const double *erv, *ecv;
  double *c, *an; /* n scratch (c kept zero between calls) */
} lcp_view;

/* M(i, v) for i, v < N. */
static inline double m_entry(const lcp_view *L, int i, int v) {
  if (L->plain) return L->A[i + (size_t)v * L->lda];
  double m = 0;
  if (L->ao[i] >= 0 && L->ao[v] >= 0)
    m = L->af[i] * L->af[v] * L->A[L->ao[i] + (size_t)L->ao[v] * L->lda];
  for (int e = L->erp[i]; e < L->erp[i + 1]; e++)
    if (L->erj[e] == v) m += L->erv[e];
  return m;
}

/* Column v of [M, d] (v = N: d), entry i. */
static inline double mcol_entry(const lcp_view *L, int i, int v) {
  return v == L->N ? L->d[i] : m_entry(L, i, v);
}

/* out[p] = [M, d](R[p], v), p < k. */
static void gather_col(const lcp_view *L, int v, const int *R, int k, double *out) {
  if (v == L->N) {
    for (int p = 0; p < k; p++) out[p] = L->d[R[p]];
  } else if (L->plain) {
    const double *a = L->A + (size_t)v * L->lda;
    for (int p = 0; p < k; p++) out[p] = a[R[p]];
  } else {
    for (int p = 0; p < k; p++) out[p] = m_entry(L, R[p], v);
  }
}

/* out[q] = [M, d](r, K[q]), q < k: row r of the core columns. */
static void gather_row(const lcp_view *L, int r, const int *K, int k, double *out) {
  for (int q = 0; q < k; q++) out[q] = mcol_entry(L, r, K[q]);
}

/* General view: u[i] += alpha af[i] a_{ao[i]} for every LCP row i that
 * reads row ao[i] of A, with a = A(:, j): the rows of A's column j spread
 * to their main row (ao = the row itself) and their A-reading extra (mrow). */
static void spread_acol(const lcp_view *L, int j, double alpha, double *u) {
  if (L->colptr) {
    for (int e = L->colptr[j]; e < L->colptr[j + 1]; e++) {
      int r = L->rowind[e];
      double a = alpha * L->val[e];
      u[r] += L->af[r] * a;
      if (L->mrow[r] >= 0) u[L->mrow[r]] += L->af[L->mrow[r]] * a;
    }
    return;
  }
  const double *a = L->A + (size_t)j * L->lda;
  for (int i = 0; i < L->N; i++)
    if (L->ao[i] >= 0) u[i] += alpha * L->af[i] * a[L->ao[i]];
}

/* u = sum_q y[q] [M, d](:, K[q])  (size N). */
static void cols_times(const lcp_view *L, const int *K, int k, const double *y, double *u) {
  int N = L->N;
  memset(u, 0, (size_t)N * sizeof *u);
  double yz0 = 0;
  if (L->kind == VIEW_DENSE) {
    /* the compact copy holds d for z0 too: one dgemv */
    if (k > 0) cblas_dgemv(CblasColMajor, CblasNoTrans, N, k, 1.0, L->C, N, y, 1, 0.0, u, 1);
    return;
  }
  if (L->kind == VIEW_PACKED) {
    for (int q = 0; q < k; q++) {
      int v = K[q];
      double yq = y[q];
      if (v == N) {
        yz0 = yq;
        continue;
      }
      if (yq == 0.0) continue;
      for (int e = L->colptr[v]; e < L->colptr[v + 1]; e++) u[L->rowind[e]] += yq * L->val[e];
    }
  } else {
    /* combine the A columns first (u_j and u'_j of a free row, p_i and m_i
     * of a friction row share one), one pass per distinct column, then
     * expand to the LCP rows */
    int n = L->n;
    double *c = L->c, *an = L->an;
    for (int q = 0; q < k; q++) {
      int v = K[q];
      if (v == N) {
        yz0 = y[q];
        continue;
      }
      if (L->ao[v] >= 0) c[L->ao[v]] += L->af[v] * y[q];
    }
    if (L->colptr) {
      /* sparse A: spread each combined column straight to the LCP rows */
      for (int q = 0; q < k; q++) {
        int v = K[q];
        if (v == N || L->ao[v] < 0) continue;
        int j = L->ao[v];
        if (c[j] != 0.0) spread_acol(L, j, c[j], u);
        c[j] = 0.0; /* done, and c is zero again for the next call */
      }
    } else {
      memset(an, 0, (size_t)n * sizeof *an);
      for (int q = 0; q < k; q++) {
        int v = K[q];
        if (v == N || L->ao[v] < 0) continue;
        int j = L->ao[v];
        if (c[j] != 0.0) cblas_daxpy(n, c[j], L->A + (size_t)j * L->lda, 1, an, 1);
        c[j] = 0.0;
      }
      for (int i = 0; i < N; i++) u[i] = L->ao[i] >= 0 ? L->af[i] * an[L->ao[i]] : 0.0;
    }
    for (int q = 0; q < k; q++) {
      int v = K[q];
      if (v == N) continue;
      for (int e = L->ecp[v]; e < L->ecp[v + 1]; e++) u[L->eci[e]] += L->ecv[e] * y[q];
    }
  }
  if (yz0 != 0.0) cblas_daxpy(N, yz0, L->d, 1, u, 1);
}

/* u += alpha [M, d](:, v), v <= N. */
static void col_axpy(const lcp_view *L, int v, double alpha, double *u) {
  int N = L->N;
  if (v == N) {
    cblas_daxpy(N, alpha, L->d, 1, u, 1);
    return;
  }
  if (L->kind == VIEW_PACKED) {
    for (int e = L->colptr[v]; e < L->colptr[v + 1]; e++) u[L->rowind[e]] += alpha * L->val[e];
    return;
  }
  if (L->plain) {
    cblas_daxpy(N, alpha, L->A + (size_t)v * L->lda, 1, u, 1);
    return;
  }
  if (L->ao[v] >= 0) spread_acol(L, L->ao[v], alpha * L->af[v], u);
  for (int e = L->ecp[v]; e < L->ecp[v + 1]; e++) u[L->eci[e]] += alpha * L->ecv[e];
}

/* VIEW_DENSE: core column q of C becomes [M, d](:, v). */
static void set_core_col(const lcp_view *L, int q, int v) {
  if (L->kind != VIEW_DENSE) return;
  const double *src = v == L->N ? L->d : L->A + (size_t)v * L->lda;
  memcpy(L->C + (size_t)q * L->N, src, (size_t)L->N * sizeof *L->C);
}

/* A's nonzeros by column from the operator's packed copy (a mostly-zero
 * A: contact matrices), if it formed one; returns 1 if so. */
static int packed_columns(slv_op *op, lcp_view *L) {
  if (slv_op_pack(op) != SLV_OP_COLS) return 0;
  L->colptr = op->colptr;
  L->rowind = op->rowind;
  L->val = op->val;
  return 1;
}

/* max |[M, d]_ij|: A's entries, 1 (the couplings of E) and d; a scale for
 * rounding errors. */
static double a_max(const lcp_view *L) {
  double m = 0;
  if (L->colptr) {
    for (int e = 0; e < L->colptr[L->n]; e++) {
      double a = fabs(L->val[e]);
      if (a > m) m = a;
    }
  } else {
    for (int j = 0; j < L->n; j++) {
      const double *col = L->A + (size_t)j * L->lda;
      for (int i = 0; i < L->n; i++) {
        double a = fabs(col[i]);
        if (a > m) m = a;
      }
    }
  }
  if (!L->plain) m = fmax(m, 1.0);
  for (int i = 0; i < L->N; i++) m = fmax(m, L->d[i]);
  return m;
}

/* ---- set-up: covering vector, reformulation -------------------------------- */

static int is_friction(const slv_problem *p, int i) { return p->findex && p->findex[i] >= 0; }

/* One entry M(r, c) += v of E, as a triplet. */
static void e_add(lemke_state *s, int *ne, int r, int c, double v) {
  s->ti[*ne] = r;
  s->tj[*ne] = c;
  s->tv[*ne] = v;
  (*ne)++;
}

/* Sort the ne triplets of E into rows (erp, erj, erv) and columns (ecp,
 * eci, ecv), counting sort, O(N + ne). */
static void e_sort(lemke_state *s, int N, int ne) {
  int *rp = s->erp, *cp = s->ecp;
  memset(rp, 0, (size_t)(N + 1) * sizeof *rp);
  memset(cp, 0, (size_t)(N + 1) * sizeof *cp);
  for (int e = 0; e < ne; e++) {
    rp[s->ti[e] + 1]++;
    cp[s->tj[e] + 1]++;
  }
  for (int t = 0; t < N; t++) {
    rp[t + 1] += rp[t];
    cp[t + 1] += cp[t];
  }
  /* fill with rp[t] / cp[t] as cursors, then shift them back to the starts */
  for (int e = 0; e < ne; e++) {
    int a = rp[s->ti[e]]++, b = cp[s->tj[e]]++;
    s->erj[a] = s->tj[e];
    s->erv[a] = s->tv[e];
    s->eci[b] = s->ti[e];
    s->ecv[b] = s->tv[e];
  }
  for (int t = N; t > 0; t--) {
    rp[t] = rp[t - 1];
    cp[t] = cp[t - 1];
  }
  rp[0] = cp[0] = 0;
}

/* SLV_OK if the covering vector (if any) is finite and > 0, else
 * SLV_ERR_INVALID with the message. */
static slv_status check_covering(const double *cov, int n, slv_result *res) {
  for (int i = 0; cov && i < n; i++)
    if (!(cov[i] > 0) || !isfinite(cov[i])) {
      slv_msgf(res->message, sizeof res->message,
               "lemke: covering vector d[%d]=%g must be finite and > 0", i, cov[i]);
      return SLV_ERR_INVALID;
    }
  return SLV_OK;
}

/* Whether p has friction rows (*friction), each with an LCP normal row
 * (lo = 0, hi = +inf): SLV_OK, else SLV_ERR_UNSUPPORTED with the message. */
static slv_status check_friction(const slv_problem *p, int *friction, slv_result *res) {
  *friction = 0;
  for (int i = 0; p->findex && i < p->n; i++) {
    if (p->findex[i] < 0) continue;
    int j = p->findex[i];
    double lj = slv_lo_of(p, j), hj = slv_hi_of(p, j);
    if (lj != 0.0 || hj != INFINITY) {
      slv_msgf(res->message, sizeof res->message,
               "lemke: friction row %d has normal row %d with lo=%g, hi=%g; the friction LCP "
               "reformulation needs lo=0, hi=inf there",
               i, j, lj, hj);
      return SLV_ERR_UNSUPPORTED;
    }
    *friction = 1;
  }
  return SLV_OK;
}

/* The plain LCP (M = A, q = b): a mostly-zero A (contact) is read through
 * the operator's packed nonzeros; a dense one through a compact copy of
 * the core columns, kept in H's buffer behind the k x k inverse
 * (N^2 + N^2 <= N_max^2). */
static void setup_plain(lemke_state *s, slv_op *op, const double *cov, lcp_view *L) {
  int n = op->n;
  L->N = n;
  if (packed_columns(op, L)) {
    L->kind = VIEW_PACKED;
  } else {
    L->kind = VIEW_DENSE;
    L->C = s->H + (size_t)n * n;
  }
  L->q = op->p->b;
  if (cov) {
    L->d = cov;
  } else {
    for (int i = 0; i < n; i++) s->dv[i] = 1.0;
    L->d = s->dv;
  }
}

/* General bounds: x_i = o_i + sg_i u_i (- u'_i), extras after the n mains;
 * a friction row is x_i = p_i - m_i (o = 0, sg = 1, m_i = the first extra)
 * with lambda_i the second.  Returns N, the LCP's size. */
static int setup_maps(lemke_state *s, const slv_problem *p) {
  int n = p->n, m = 0;
  for (int i = 0; i < n; i++) {
    s->xtra[i] = -1;
    s->mrow[i] = -1;
    s->ao[i] = i;
    if (is_friction(p, i)) {
      s->o[i] = 0;
      s->sg[i] = 1;
      s->af[i] = 1;
      s->xtra[i] = n + m;
      m += 2;
      continue;
    }
    double lo = slv_lo_of(p, i), hi = slv_hi_of(p, i);
    int flo = lo > -INFINITY, fhi = hi < INFINITY;
    s->o[i] = flo ? lo : (fhi ? hi : 0.0);
    s->sg[i] = !flo && fhi ? -1 : 1;
    s->af[i] = s->sg[i];
    if (flo == fhi) s->xtra[i] = n + m++; /* box (both finite) or free (neither) */
  }
  return n + m;
}

/* The extra LCP rows of row i (its first extra e), given r = A o + b; the
 * entries of E as triplets (ne). */
/* The extra rows in x's units (a bound's gap, a friction cone's slack) are
 * scaled by a = |A_ii| and their multipliers (v_i, lambda_i) by 1 / a, so
 * that every row of the reformulated LCP is in its row's w units and the
 * box blocks stay skew: the path's thresholds, relative to ||q||_inf, then
 * mean the same whatever the problem's scale (docs/convergence.md). */
static double extra_scale(const slv_problem *p, int i) {
  double a = fabs(slv_diag(p, i));
  return a > 0 && isfinite(a) ? a : 1.0;
}

static void setup_extras(lemke_state *s, const slv_problem *p, int i, const double *r, int *ne) {
  int e = s->xtra[i];
  double a = extra_scale(p, i);
  s->dv[e] = s->dv[i];
  if (is_friction(p, i)) {
    /* p_i _|_ lambda_i + w_i,  m_i _|_ lambda_i - w_i,
     * lambda_i _|_ mu_i x_j - p_i - m_i  (x_j = u_j: o_j = 0) */
    int l = e + 1, j = p->findex[i];
    s->ao[e] = i;
    s->af[e] = -1;
    s->qv[e] = -r[i];
    s->mrow[i] = e;
    s->ao[l] = -1;
    s->af[l] = 0;
    s->qv[l] = 0;
    s->dv[l] = s->dv[i];
    e_add(s, ne, i, l, a);
    e_add(s, ne, e, l, a);
    e_add(s, ne, l, j, a * p->mu[i]);
    e_add(s, ne, l, i, -a);
    e_add(s, ne, l, e, -a);
  } else if (slv_lo_of(p, i) > -INFINITY) {
    /* box: s = (hi - lo) - u_i  _|_  v_i;  mu_i = w_i + v_i */
    s->ao[e] = -1;
    s->af[e] = 0;
    s->qv[e] = a * (slv_hi_of(p, i) - slv_lo_of(p, i));
    e_add(s, ne, i, e, a);
    e_add(s, ne, e, i, -a);
  } else {
    /* free: -w_i >= 0  _|_  u'_i, x_i = u_i - u'_i */
    s->ao[e] = i;
    s->af[e] = -1;
    s->qv[e] = -r[i];
    s->mrow[i] = e;
  }
}

/* The reformulated LCP (the header's block form): maps, q, d, E. */
static void setup_general(lemke_state *s, slv_op *op, const double *cov, lcp_view *L) {
  const slv_problem *p = op->p;
  int n = p->n, N = setup_maps(s, p), ne = 0;
  L->N = N;
  /* r = A o + b (the w of x = o) */
  double *r = s->t;
  for (int i = 0; i < n; i++) r[i] = p->b[i];
  for (int j = 0; j < n; j++)
    if (s->o[j] != 0.0) cblas_daxpy(n, s->o[j], op->A + (size_t)j * op->lda, 1, r, 1);
  for (int i = 0; i < n; i++) {
    s->qv[i] = s->sg[i] * r[i];
    s->dv[i] = cov ? cov[i] : 1.0;
    if (s->xtra[i] >= 0) setup_extras(s, p, i, r, &ne);
  }
  e_sort(s, N, ne);
  packed_columns(op, L);
  L->q = s->qv;
  L->d = s->dv;
  L->ao = s->ao;
  L->af = s->af;
  L->mrow = s->mrow;
  L->erp = s->erp;
  L->erj = s->erj;
  L->erv = s->erv;
  L->ecp = s->ecp;
  L->eci = s->eci;
  L->ecv = s->ecv;
}

/* Fill the view for the operator's problem; returns SLV_OK,
 * SLV_ERR_INVALID (covering) or SLV_ERR_UNSUPPORTED (a friction row whose
 * normal row is not lo = 0, hi = +inf).  A problem with every lo = 0 and
 * hi = +inf and no findex rows is solved as it stands. */
static slv_status setup(lemke_state *s, slv_op *op, const slv_options *opt, lcp_view *L,
                        slv_result *res) {
  const slv_problem *p = op->p;
  int n = p->n, friction;
  slv_status st = check_covering(opt->covering, n, res);
  if (st == SLV_OK) st = check_friction(p, &friction, res);
  if (st != SLV_OK) return st;
  memset(L, 0, sizeof *L);
  L->n = n;
  L->A = op->A;
  L->lda = op->lda;
  L->c = s->c;
  L->an = s->an;
  int plain = !friction;
  for (int i = 0; i < n && plain; i++)
    if (slv_lo_of(p, i) != 0.0 || slv_hi_of(p, i) != INFINITY) plain = 0;
  L->plain = plain;
  L->friction = friction;
  if (plain)
    setup_plain(s, op, opt->covering, L);
  else
    setup_general(s, op, opt->covering, L);
  return SLV_OK;
}

/* x from the LCP variables z (size N, dense): x_i = o_i + sg_i z_i - z_i'
 * (free rows), p_i - m_i (friction rows), clamped to the box against
 * rounding: friction rows to -mu_i x_j .. mu_i x_j at the final x_j. */
static void unmap(const lemke_state *s, const slv_problem *p, const lcp_view *L, const double *z,
                  double *x) {
  int n = p->n;
  for (int i = 0; i < n; i++) {
    if (!L->plain && is_friction(p, i)) continue;
    double xi;
    if (L->plain) {
      xi = z[i];
    } else {
      xi = s->o[i] + s->sg[i] * z[i];
      int e = s->xtra[i];
      if (e >= 0 && slv_lo_of(p, i) == -INFINITY) xi -= z[e];
    }
    double lo = slv_lo_of(p, i), hi = slv_hi_of(p, i);
    x[i] = xi < lo ? lo : (xi > hi ? hi : xi);
  }
  if (!L->friction) return;
  for (int i = 0; i < n; i++) {
    if (!is_friction(p, i)) continue;
    double xi = z[i] - z[s->xtra[i]], h = p->mu[i] * fabs(x[p->findex[i]]);
    x[i] = xi < -h ? -h : (xi > h ? h : xi);
  }
}

/* ---- the basis -------------------------------------------------------------- */

typedef struct {
  lemke_state *s;
  const lcp_view *L;
  int N, k, ldh;
} basis;

#define HH(B, q, p) ((B)->s->H[(size_t)(q) + (size_t)(p) * (B)->ldh])

/* Rebuild H = S^-1 from scratch by LU (S(p, q) = -[M, d](R[p], K[q])) and
 * recompute the basic values x_K = H q_R, mu_i = q_i + [M, d](i, K) x_K.
 * Returns 0, or SLV_SINGULAR_PIVOT if S is numerically singular. */
static slv_status refactor(basis *B, double piv_rel) {
  lemke_state *s = B->s;
  const lcp_view *L = B->L;
  int k = B->k;
  if (k == 0) return SLV_CONVERGED;
  double smax = 0;
  for (int q = 0; q < k; q++) {
    double *col = s->H + (size_t)q * B->ldh;
    gather_col(L, s->K[q], s->R, k, col);
    for (int p = 0; p < k; p++) {
      col[p] = -col[p];
      smax = fmax(smax, fabs(col[p]));
    }
  }
  lapack_int info = LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, k, k, s->H, B->ldh, s->ipiv);
  if (info != 0) return SLV_SINGULAR_PIVOT;
  for (int p = 0; p < k; p++)
    if (!(fabs(HH(B, p, p)) > piv_rel * smax)) return SLV_SINGULAR_PIVOT;
  info = LAPACKE_dgetri_work(LAPACK_COL_MAJOR, k, s->H, B->ldh, s->ipiv, s->work,
                             (lapack_int)s->N_max * LEMKE_LWORK_COLS);
  if (info != 0) return SLV_SINGULAR_PIVOT;
  for (int p = 0; p < k; p++) s->g[p] = L->q[s->R[p]];
  cblas_dgemv(CblasColMajor, CblasNoTrans, k, k, 1.0, s->H, B->ldh, s->g, 1, 0.0, s->xK, 1);
  cols_times(L, s->K, k, s->xK, s->u);
  for (int i = 0; i < B->N; i++)
    if (s->posR[i] < 0) s->wv[i] = L->q[i] + s->u[i];
  return SLV_CONVERGED;
}

/* ||B x_B - q||_inf: the rows of R need q_i + [M, d](i, K) x_K = 0, the
 * others mu_i = q_i + [M, d](i, K) x_K. */
static double drift(basis *B) {
  lemke_state *s = B->s;
  cols_times(B->L, s->K, B->k, s->xK, s->u);
  double e = 0;
  for (int i = 0; i < B->N; i++) {
    double r = B->L->q[i] + s->u[i] - (s->posR[i] < 0 ? s->wv[i] : 0.0);
    e = fmax(e, fabs(r));
  }
  return e;
}

/* Row l of B^-1 divided by y_l, into out (size N).  core: l = position in
 * K; else l = -(i+1) for the basic mu_i. */
static void lex_row(basis *B, int l, double y, double *out) {
  lemke_state *s = B->s;
  int N = B->N, k = B->k;
  if (l >= 0) {
    for (int c = 0; c < N; c++) out[c] = s->posR[c] >= 0 ? HH(B, l, s->posR[c]) / y : 0.0;
    return;
  }
  /* mu_i basic: B^-1(i, c) = delta_ic (c not in R), ([M, d](i, K) H)(posR[c]) (c in R) */
  int i = -l - 1;
  gather_row(B->L, i, s->K, k, s->g);
  cblas_dgemv(CblasColMajor, CblasTrans, k, k, 1.0, s->H, B->ldh, s->g, 1, 0.0, s->t, 1);
  for (int c = 0; c < N; c++) out[c] = s->posR[c] >= 0 ? s->t[s->posR[c]] / y : 0.0;
  out[i] = 1.0 / y;
}

/* Lexicographic comparison of two rows: < 0 if a is smaller, > 0 if b is
 * smaller, 0 if they cannot be told apart. */
static int lex_cmp(const double *a, const double *b, int N) {
  double na = 0, nb = 0;
  for (int c = 0; c < N; c++) {
    na = fmax(na, fabs(a[c]));
    nb = fmax(nb, fabs(b[c]));
  }
  double zero = LEMKE_LEX_ZERO * fmax(na, nb);
  for (int c = 0; c < N; c++) {
    double x = fabs(a[c]) <= zero ? 0.0 : a[c], y = fabs(b[c]) <= zero ? 0.0 : b[c];
    if (fabs(x - y) <= LEMKE_LEX_DIFF * fmax(fabs(x), fabs(y))) continue;
    return x < y ? -1 : 1;
  }
  return 0;
}

/* Tableau column of the entering variable: entering u_j (ent >= 0) or mu_i
 * (ent = -(i+1)).  Fills yK (k) and yW (rows with mu basic). */
static void tableau_column(basis *B, int ent) {
  lemke_state *s = B->s;
  const lcp_view *L = B->L;
  int k = B->k;
  if (ent >= 0) {
    /* a = -M(:, j):  y_K = H a_R,  y_i = a_i + [M, d](i, K) y_K */
    gather_col(L, ent, s->R, k, s->g);
    cblas_dgemv(CblasColMajor, CblasNoTrans, k, k, -1.0, s->H, B->ldh, s->g, 1, 0.0, s->yK, 1);
    cols_times(L, s->K, k, s->yK, s->u);
    col_axpy(L, ent, -1.0, s->u);
  } else {
    /* a = e_i, i in R:  y_K = H(:, posR[i]),  y_i' = [M, d](i', K) y_K */
    int p = s->posR[-ent - 1];
    memcpy(s->yK, s->H + (size_t)p * B->ldh, (size_t)k * sizeof *s->yK);
    cols_times(L, s->K, k, s->yK, s->u);
  }
  memcpy(s->yW, s->u, (size_t)B->N * sizeof *s->yW);
}

/* Basis change: entering ent (as in tableau_column), leaving l (core
 * position, or -(r+1) for mu_r), step theta.  Updates values, lists, H. */
static void exchange(basis *B, int ent, int l, double theta) {
  lemke_state *s = B->s;
  const lcp_view *L = B->L;
  int k = B->k, N = B->N, ldh = B->ldh;
  double *H = s->H;
  /* values: x_B -= theta y */
  cblas_daxpy(k, -theta, s->yK, 1, s->xK, 1);
  for (int i = 0; i < N; i++)
    if (s->posR[i] < 0) s->wv[i] -= theta * s->yW[i];

  if (ent >= 0 && l < 0) {
    /* grow: K += u_j, R += r.  g = [-M, -d](r, K) H, sigma = y_r:
     * H' = [[H + y_K g / sigma, -y_K / sigma], [-g / sigma, 1 / sigma]] */
    int r = -l - 1;
    double sigma = s->yW[r];
    gather_row(L, r, s->K, k, s->t);
    cblas_dgemv(CblasColMajor, CblasTrans, k, k, -1.0, H, ldh, s->t, 1, 0.0, s->g, 1);
    if (k > 0) cblas_dger(CblasColMajor, k, k, 1.0 / sigma, s->yK, 1, s->g, 1, H, ldh);
    for (int q = 0; q < k; q++) H[q + (size_t)k * ldh] = -s->yK[q] / sigma;
    for (int p = 0; p < k; p++) H[k + (size_t)p * ldh] = -s->g[p] / sigma;
    H[k + (size_t)k * ldh] = 1.0 / sigma;
    set_core_col(L, k, ent);
    s->K[k] = ent;
    s->R[k] = r;
    s->posK[ent] = k;
    s->posR[r] = k;
    s->xK[k] = theta;
    B->k = k + 1;
  } else if (ent >= 0) {
    /* column replacement at q: row q / y_q, the others minus y_p times it */
    int q = l;
    double yq = s->yK[q];
    cblas_dcopy(k, H + q, ldh, s->t, 1);
    cblas_dger(CblasColMajor, k, k, -1.0 / yq, s->yK, 1, s->t, 1, H, ldh);
    cblas_daxpy(k, 1.0 / yq, s->t, 1, H + q, ldh); /* row q was zeroed: now t / y_q */
    s->posK[s->K[q]] = -1;
    set_core_col(L, q, ent);
    s->K[q] = ent;
    s->posK[ent] = q;
    s->xK[q] = theta;
  } else if (l < 0) {
    /* row replacement: row i (position p) of S becomes row r.
     * g = [-M, -d](r, K) H, g_p = -y_r:  H' = H - H(:, p) (g - e_p) / g_p */
    int i = -ent - 1, r = -l - 1, p = s->posR[i];
    gather_row(L, r, s->K, k, s->t);
    /* g_p = -y_r is known: each column c in one pass, with yK = H(:, p) */
    cblas_dgemv(CblasColMajor, CblasTrans, k, k, -1.0, H, ldh, s->t, 1, 0.0, s->g, 1);
    double gp = s->g[p];
    s->g[p] -= 1.0;
    cblas_dger(CblasColMajor, k, k, -1.0 / gp, s->yK, 1, s->g, 1, H, ldh);
    s->R[p] = r;
    s->posR[r] = p;
    s->posR[i] = -1;
    s->wv[i] = theta;
  } else {
    /* shrink: delete row p (mu_i enters) and column q (core var leaves) of S;
     * inverse: H - H(:, p) H(q, :) / H(q, p) without row q and column p */
    int i = -ent - 1, q = l, p = s->posR[i], last = k - 1;
    double hqp = s->yK[q];
    cblas_dcopy(k, H + q, ldh, s->t, 1);
    cblas_dger(CblasColMajor, k, k, -1.0 / hqp, s->yK, 1, s->t, 1, H, ldh);
    if (p != last) memcpy(H + (size_t)p * ldh, H + (size_t)last * ldh, (size_t)k * sizeof *H);
    if (q != last) cblas_dcopy(last, H + last, ldh, H + q, ldh);
    s->posK[s->K[q]] = -1;
    s->posR[i] = -1;
    if (q != last) {
      set_core_col(L, q, s->K[last]);
      s->K[q] = s->K[last];
      s->posK[s->K[q]] = q;
      s->xK[q] = s->xK[last];
    }
    if (p != last) {
      s->R[p] = s->R[last];
      s->posR[s->R[p]] = p;
    }
    s->wv[i] = theta;
    B->k = last;
  }
}

/* ---- the solver ---------------------------------------------------------------- */

/* max(qscale, |basic values|). */
static double basic_scale(const basis *B, double qscale) {
  const lemke_state *s = B->s;
  double m = qscale;
  for (int q = 0; q < B->k; q++) {
    double a = s->xK[q] < 0 ? -s->xK[q] : s->xK[q];
    if (a > m) m = a;
  }
  for (int i = 0; i < B->N; i++)
    if (s->posR[i] < 0) {
      double a = s->wv[i] < 0 ? -s->wv[i] : s->wv[i];
      if (a > m) m = a;
    }
  return m;
}

/* The final x from the core values (clamped at 0), written to x. */
static void solution(basis *B, const slv_problem *p, double *x) {
  lemke_state *s = B->s;
  double *z = s->t;
  memset(z, 0, (size_t)B->N * sizeof *z);
  for (int q = 0; q < B->k; q++)
    if (s->K[q] < B->N) z[s->K[q]] = fmax(0.0, s->xK[q]);
  unmap(s, p, B->L, z, x);
}

/* Iterative refinement of x_K on the final complementary basis:
 * x_K += H (q_R - S x_K), while the correction helps. */
static void refine(basis *B) {
  lemke_state *s = B->s;
  int k = B->k;
  double prev = INFINITY;
  for (int it = 0; it < LEMKE_REFINE && k > 0; it++) {
    cols_times(B->L, s->K, k, s->xK, s->u);
    double e = 0;
    for (int p = 0; p < k; p++) {
      s->g[p] = B->L->q[s->R[p]] + s->u[s->R[p]];
      e = fmax(e, fabs(s->g[p]));
    }
    if (!(e < 0.5 * prev) || e == 0.0) break;
    prev = e;
    cblas_dgemv(CblasColMajor, CblasNoTrans, k, k, 1.0, s->H, B->ldh, s->g, 1, 1.0, s->xK, 1);
  }
}

/* Tentative end of the path: z0 (core position qz0) leaves for the
 * entering ent at step t, the complementary basis is refined and its point
 * judged by the library residual.  Returns 1 if it meets opt->tol (the new
 * basis stays; x and w hold its point), else undoes the exchange (z0
 * re-enters, ent leaves: the inverse update) and restores the values, and
 * returns 0; positions in K and R may then be permuted, so the caller
 * recomputes the tableau column. */
static int try_exit(basis *B, slv_op *op, const slv_options *opt, int ent, int qz0, double t,
                    double *x, double *w) {
  lemke_state *s = B->s;
  int N = B->N;
  for (int q = 0; q < B->k; q++) s->zs[s->K[q]] = s->xK[q];
  memcpy(s->ws, s->wv, (size_t)N * sizeof *s->ws);
  exchange(B, ent, qz0, t);
  refine(B);
  solution(B, op->p, x);
  slv_op_w(op, x, w);
  if (slv_residual(op->p, x, w).res_scaled <= opt->tol) return 1;
  tableau_column(B, N);
  exchange(B, N, ent >= 0 ? s->posK[ent] : ent, 0.0);
  for (int q = 0; q < B->k; q++) s->xK[q] = s->zs[s->K[q]];
  memcpy(s->wv, s->ws, (size_t)N * sizeof *s->wv);
  return 0;
}

/* The state of the path between pivots. */
typedef struct {
  int pivots, ent;             /* basis changes so far; the variable entering next */
  int trials, notrial, exited; /* tentative exits tried; pivot not to try again; last taken */
  int limit, period, to_check; /* pivot limit; drift check period and countdown */
  double piv_tol;              /* ratio test: max(opt->pivot_tol, LEMKE_PIVOT_FLOOR) */
  double lu_tol;               /* refactorization: opt->pivot_tol */
  int skipped;                 /* an entry in (lu_tol, piv_tol] ||y|| was passed over */
  double qscale, dmax, vscale;
  double amax;       /* max |[M, d]_ij|, computed when first needed (< 0: not yet) */
  double tau, theta; /* this pivot's zero threshold and minimum ratio */
} path;

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
  set_core_col(L, 0, N);
  B->k = 1;
  P->pivots = 1;
  P->ent = r; /* u_r enters next */
  P->qscale = P->dmax = 0;
  for (int i = 0; i < N; i++) {
    /* the rows that read A (w units; not a bound's gap, which may be huge
     * on a row that a problem's own scale says nothing about) */
    if (L->plain || L->ao[i] >= 0) P->qscale = fmax(P->qscale, fabs(L->q[i]));
    P->dmax = fmax(P->dmax, L->d[i]);
  }
  /* ||q||_inf itself, no floor of 1: the thresholds below are then
   * relative to the problem's own scale (docs/convergence.md) */
  if (!(P->qscale > 0)) P->qscale = 1.0;
  /* scale of the basic values for the tentative-exit test, refreshed at
   * every drift check (a heuristic trigger: the trial itself is judged by
   * the library residual) */
  P->vscale = basic_scale(B, P->qscale);
  return 1;
}

/* The minimum ratio over y_l > tau (tau = pivot_tol ||y||_inf) into
 * P->theta, INFINITY on a secondary ray; SLV_NOT_FINITE if the tableau
 * column is not finite. */
static slv_status ratio_test(basis *B, path *P) {
  lemke_state *s = B->s;
  int k = B->k, N = B->N;
  double ymax = 0;
  for (int q = 0; q < k; q++) ymax = fmax(ymax, fabs(s->yK[q]));
  for (int i = 0; i < N; i++)
    if (s->posR[i] < 0) ymax = fmax(ymax, fabs(s->yW[i]));
  if (!isfinite(ymax)) return SLV_NOT_FINITE;
  double tau = P->piv_tol * ymax, theta = INFINITY, low = P->lu_tol * ymax;
  for (int q = 0; q < k; q++) {
    if (s->yK[q] > tau)
      theta = fmin(theta, fmax(0.0, s->xK[q]) / s->yK[q]);
    else if (s->yK[q] > low)
      P->skipped = 1;
  }
  for (int i = 0; i < N; i++) {
    if (s->posR[i] >= 0) continue;
    if (s->yW[i] > tau)
      theta = fmin(theta, fmax(0.0, s->wv[i]) / s->yW[i]);
    else if (s->yW[i] > low)
      P->skipped = 1;
  }
  P->tau = tau;
  P->theta = theta;
  return SLV_OK;
}

/* The rows tied at the minimum ratio into s->ties (core position, or
 * -(i+1) for mu_i); returns their number, *lz0 the core position of z0 if
 * it is among them, else -1. */
static int tied_rows(basis *B, const path *P, int *lz0) {
  lemke_state *s = B->s;
  int N = B->N, nt = 0;
  double thr = P->theta + P->theta * LEMKE_TIE_REL, tau = P->tau;
  *lz0 = -1;
  for (int q = 0; q < B->k; q++)
    if (s->yK[q] > tau && fmax(0.0, s->xK[q]) / s->yK[q] <= thr) {
      if (s->K[q] == N) *lz0 = q;
      s->ties[nt++] = q;
    }
  for (int i = 0; i < N; i++)
    if (s->posR[i] < 0 && s->yW[i] > tau && fmax(0.0, s->wv[i]) / s->yW[i] <= thr)
      s->ties[nt++] = -(i + 1);
  return nt;
}

/* The lowest basic value after z0's own step (core position qz0); the
 * scan stops at the first value below `stop` (the usual case). */
static double z0_worst(basis *B, const path *P, int qz0, double stop) {
  lemke_state *s = B->s;
  double tz0 = fmax(0.0, s->xK[qz0]) / s->yK[qz0], worst = 0, tau = P->tau;
  for (int q = 0; q < B->k && worst >= stop; q++)
    if (q != qz0 && s->yK[q] > tau) {
      double v = (s->xK[q] > 0 ? s->xK[q] : 0.0) - tz0 * s->yK[q];
      if (v < worst) worst = v;
    }
  for (int i = 0; i < B->N && worst >= stop; i++)
    if (s->posR[i] < 0 && s->yW[i] > tau) {
      double v = (s->wv[i] > 0 ? s->wv[i] : 0.0) - tz0 * s->yW[i];
      if (v < worst) worst = v;
    }
  return worst;
}

enum { Z0_STAYS, Z0_LEAVES, Z0_EXITED, Z0_RETRY };

/* z0 also leaves when its own step (beyond theta) would put no basic
 * variable more than LEMKE_FEAS ||q|| below zero: a Harris-type test
 * (Harris 1973) that catches ties split by rounding and blocking rows whose
 * tiny pivot barely moves them.  On rank-deficient positive semidefinite A
 * such near-ties of z0 are common; passing them by carries on with
 * z0 ~ 1e-14 over near-singular bases (cycling or a singular basis: see
 * test_lemke.c).  The final basis is re-solved and the library residual
 * judges the result.  A larger violation, up to LEMKE_TRIAL max|x_B|, gets
 * a tentative exit (try_exit): the friction LCP ties z0 exactly with the
 * slack d z0 of every lambda row whose x_j, p_i, m_i are nonbasic
 * (contacts at rest), and after thousands of pivots on ill-conditioned
 * bases rounding splits such ties by ~1e-12 max|x_B|.  Returns Z0_STAYS,
 * Z0_LEAVES (take it as the leaving row), Z0_EXITED (the trial exit stands:
 * x, w hold its point) or Z0_RETRY (undone: redo this pivot, no trial). */
static int z0_exit(basis *B, path *P, slv_op *op, const slv_options *opt, double *x, double *w) {
  lemke_state *s = B->s;
  int qz0 = s->posK[B->N];
  if (!(s->yK[qz0] > P->tau)) return Z0_STAYS;
  double feas = LEMKE_FEAS * P->qscale, tri = LEMKE_TRIAL * P->vscale;
  double worst = z0_worst(B, P, qz0, -(feas > tri ? feas : tri));
  if (worst >= -feas) return Z0_LEAVES;
  if (worst < -tri || P->notrial == P->pivots) return Z0_STAYS;
  P->trials++;
  double tz0 = fmax(0.0, s->xK[qz0]) / s->yK[qz0];
  if (try_exit(B, op, opt, P->ent, qz0, tz0, x, w)) {
    P->pivots++;
    P->exited = 1;
    return Z0_EXITED;
  }
  /* undone: the positions in K, R changed, so redo this pivot's tableau
   * column and ratio test, without a second trial */
  P->notrial = P->pivots;
  return Z0_RETRY;
}

/* Among nt tied rows, the lexicographically smallest row of B^-1 / y_l
 * (ties of that: the larger pivot). */
static int lex_choose(basis *B, int nt) {
  lemke_state *s = B->s;
  int l = s->ties[0];
  if (nt < 2) return l;
  double *ba = s->lexa, *cb = s->lexb;
  double yl = l >= 0 ? s->yK[l] : s->yW[-l - 1];
  lex_row(B, l, yl, ba);
  for (int c = 1; c < nt; c++) {
    int m = s->ties[c];
    double ym = m >= 0 ? s->yK[m] : s->yW[-m - 1];
    lex_row(B, m, ym, cb);
    int cmp = lex_cmp(cb, ba, B->N);
    if (cmp < 0 || (cmp == 0 && ym > yl)) {
      double *tmp = ba;
      ba = cb;
      cb = tmp;
      l = m;
      yl = ym;
    }
  }
  return l;
}

/* The drift check after a pivot; a period that needed a refactorization is
 * halved (ill-conditioned bases lose digits fast), one that did not is
 * doubled back towards LEMKE_CHECK.  SLV_SINGULAR_PIVOT if the
 * refactorization finds S singular. */
static slv_status drift_check(basis *B, path *P) {
  double dft = drift(B);
  int refac = dft > LEMKE_DRIFT * P->qscale;
  P->vscale = basic_scale(B, P->qscale);
  if (refac) {
    /* the rounding floor of B x_B - q is ~ eps k max|M| max|x_B|: when the
     * solution is large (|x| ~ 1e5 for |b| ~ 1 on the contact matrices
     * with a 1e-6 cfm), refactorizing cannot bring the drift under
     * LEMKE_DRIFT ||q||; judge it against that floor too */
    if (P->amax < 0) P->amax = a_max(B->L);
    refac = dft > LEMKE_DRIFT_FLOOR * P->amax * P->vscale;
  }
  if (refac) {
    slv_status stt = refactor(B, P->lu_tol);
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
  tableau_column(B, P->ent);
  if (ratio_test(B, P) != SLV_OK) {
    slv_msgf(res->message, sizeof res->message, "lemke: tableau column not finite at pivot %d",
             P->pivots);
    return *end = SLV_NOT_FINITE, 0;
  }
  if (P->theta == INFINITY) return *end = ray(B, P, res), 0;
  int nt = tied_rows(B, P, &lz0);
  if (lz0 < 0) {
    int z = z0_exit(B, P, op, opt, x, w);
    if (z == Z0_EXITED) return *end = SLV_CONVERGED, 0;
    if (z == Z0_RETRY) return 1;
    if (z == Z0_LEAVES) lz0 = s->posK[N];
  }
  int l = lz0 >= 0 ? lz0 : lex_choose(B, nt);
  double yl = l >= 0 ? s->yK[l] : s->yW[-l - 1];
  double step = fmax(0.0, l >= 0 ? s->xK[l] : s->wv[-l - 1]) / yl;
  int leaving = l >= 0 ? s->K[l] : -1; /* u_j / z0, or -1 for a mu */
  int lrow = l >= 0 ? -1 : -l - 1;
  exchange(B, P->ent, l, step);
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
static slv_status finish(basis *B, const path *P, slv_op *op, const slv_options *opt, double *x,
                         double *w, slv_result *res) {
  lemke_state *s = B->s;
  const slv_problem *p = op->p;
  refine(B);
  solution(B, p, x);
  slv_op_w(op, x, w);
  slv_residuals rr = slv_residual(p, x, w);
  if (!(rr.res_scaled <= opt->tol) && refactor(B, P->lu_tol) == SLV_OK) {
    refine(B);
    solution(B, p, x);
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

/* One path from the start with ratio-test threshold piv_tol; its verdict
 * (x, w and res as the header says; res->pivots is this path's count). */
static slv_status one_path(lemke_state *s, lcp_view *L, slv_op *op, const slv_options *opt,
                           double piv_tol, int limit, double *x, double *w, slv_result *res,
                           int *skipped) {
  basis B = { .s = s, .L = L, .N = L->N, .k = 0, .ldh = L->N };
  path P = { .piv_tol = piv_tol,
             .lu_tol = opt->pivot_tol,
             .limit = limit,
             .notrial = -1,
             .amax = -1,
             .period = LEMKE_CHECK,
             .to_check = LEMKE_CHECK };
  *skipped = 0;
  slv_status stt = SLV_CONVERGED;
  if (!path_start(&B, &P)) {
    solution(&B, op->p, x);
    return SLV_CONVERGED;
  }
  while (pivot(&B, &P, op, opt, x, w, res, &stt)) {}
  res->pivots = P.pivots;
  *skipped = P.skipped;
  if (stt != SLV_CONVERGED) {
    solution(&B, op->p, x);
    return stt;
  }
  if (P.trials)
    slv_logf(opt, "lemke: %d tentative exits of z0%s", P.trials,
             P.exited ? ", the last taken" : "");
  return finish(&B, &P, op, opt, x, w, res);
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

static slv_status lemke_solve(void *st, slv_op *op, const slv_options *opt, double *x, double *w,
                              slv_result *res, slv_hist *h) {
  (void)h;
  lemke_state *s = st;
  lcp_view L;
  slv_status stt = setup(s, op, opt, &L, res);
  if (stt) return stt;
  int n = op->n;
  res->iterations = 0;
  res->pivots = 0;
  res->solver_residual = 0;
  if (L.N == 0) return SLV_CONVERGED;
  int limit = slv_pivot_limit(opt, L.N), used = 0, skipped = 0, have = 0;
  slv_status best_st = SLV_MAX_ITER;
  double best_r = INFINITY;
  char best_msg[sizeof res->message];
  for (int a = 0; a < LEMKE_NPATHS; a++) {
    double tol = a < LEMKE_NPATHS - 1 ? lemke_floors[a] : opt->pivot_tol;
    if (a < LEMKE_NPATHS - 1 && !(tol > opt->pivot_tol)) continue;
    stt = one_path(s, &L, op, opt, tol, limit - used, x, w, res, &skipped);
    used += res->pivots;
    res->pivots = used;
    if (stt == SLV_CONVERGED) return stt;
    double r = res_of(op, x, w);
    if (!have || r < best_r) {
      have = 1;
      best_r = r;
      best_st = stt;
      memcpy(best_msg, res->message, sizeof best_msg);
      memcpy(s->xfirst, x, (size_t)n * sizeof *x);
    }
    if (!skipped || used >= limit || stt == SLV_NOT_FINITE || slv_stopped(op)) break;
  }
  if (slv_stopped(op)) best_st = slv_stopped(op); /* with the best path's x */
  memcpy(x, s->xfirst, (size_t)n * sizeof *x);
  slv_op_w(op, x, w);
  memcpy(res->message, best_msg, sizeof best_msg);
  res->solver_residual = best_r;
  return best_st;
}

static const slv_impl lemke_impl = {
  .state_size = sizeof(lemke_state),
  .init = lemke_init,
  .free = lemke_free,
  .solve = lemke_solve,
};

const slv_solver slv_solver_lemke = {
  .name = "lemke",
  .summary = "Lemke complementary pivoting, lexicographic, factorized basis; box/free rows and "
             "findex friction by LCP reformulation",
  .cite = "cottle1992",
  .caps = SLV_CAP_BOX | SLV_CAP_FREE | SLV_CAP_FINDEX,
  /* clang-format off */
  .params =
      "lexicographic; d = options.covering (ones); pivots > t ||y||_inf, t = "
      SLV_STR(LEMKE_PIVOT_FLOOR) ", " SLV_STR(LEMKE_FLOOR_2) ", " SLV_STR(LEMKE_FLOOR_3) ", then "
      "pivot_tol (" SLV_STR(SLV_DEFAULT_PIVOT_TOL) "); max_pivots 0: max(2^28/n^2, 50n)",
  /* clang-format on */
  .impl = &lemke_impl,
};
