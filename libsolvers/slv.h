/* slv.h -- the public interface of libsolvers, lcplab's solver library.
 *
 * One problem type for every solver: the boxed (mixed) linear complementarity
 * problem with optional friction coupling, sign convention fixed once:
 *
 *     w = A x + b,   and for every row i
 *         x_i = lo_i          =>  w_i >= 0
 *         x_i = hi_i          =>  w_i <= 0
 *         lo_i < x_i < hi_i   =>  w_i  = 0
 *
 * i.e. x = mid(lo, hi, x - w).  The standard LCP (x >= 0, w >= 0, x.w = 0)
 * is lo = 0, hi = +inf; an equality (joint) row is lo = -inf, hi = +inf.
 * A friction row i with findex[i] = j >= 0 has the bounds
 * -mu_i |x_j| .. +mu_i |x_j| taken at the current x (ODE's findex); its own
 * lo_i / hi_i are then ignored.
 *
 * Call sequence:
 *     const slv_solver *s = slv_solver_find("pgs");
 *     slv_options opt = slv_options_default();
 *     slv_workspace *ws;  slv_workspace_new(s, n_max, &opt, &ws);
 *     slv_result res;     slv_solve(ws, &prob, &opt, x, w, &res);   (repeatable)
 *     slv_workspace_free(ws);
 *
 * slv_solve validates the problem, checks the solver's capabilities, builds
 * the operator over the problem's storage (the few products of A the
 * solvers use, in the workspace's buffers), runs the solver, then
 * recomputes the accuracy measures from (A, b, lo, hi, x) alone
 * (slv_residual) and downgrades any "converged" that those measures do not
 * confirm.  Only slv_workspace_new allocates; the problem is only read, so
 * one problem may be solved on several threads, one workspace each.
 * docs/README.md follows one solve through the library.
 */
#ifndef SLV_H
#define SLV_H

#include <stddef.h>

/* SLV_API marks the functions of the public interface (this header and
 * io.h).  The libraries are compiled with -fvisibility=hidden, so a
 * shared library exports exactly the functions so marked (Makefile.am, "the
 * libraries"; tests/test_exports.sh checks it); consumers may ignore it. */
#ifndef SLV_API
#if defined(__GNUC__) && __GNUC__ >= 4
#define SLV_API __attribute__((visibility("default")))
#else
#define SLV_API
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define SLV_VERSION "0.1.0"

/* ---- status: one enum for every solver --------------------------------- */
/* 0 success (converged, for a solve); > 0 ran but did not converge; < 0
 * refused to run (docs/problem.md, "Status codes"). */
typedef enum slv_status {
  SLV_ERR_OPTIONS = -5,     /* options not from slv_options_default, or out of range */
  SLV_ERR_NOMEM = -4,       /* allocation failed (only in *_new) */
  SLV_ERR_DIM = -3,         /* n > n_max of the workspace, or n < 0 */
  SLV_ERR_UNSUPPORTED = -2, /* the solver cannot take this problem kind */
  SLV_ERR_INVALID = -1,     /* the problem data is invalid (NaN, lo > hi, ...) */
  SLV_OK = 0,               /* success of a function that is not a solve (validation,
                               slv_workspace_new, ...) */
  SLV_CONVERGED = 0,        /* a solve: res_rel <= tol, recomputed by the library */
  SLV_MAX_ITER = 1,         /* iteration or pivot limit reached */
  SLV_STAGNATED = 2,        /* stopped on its own test, library residual disagrees */
  SLV_RAY_TERMINATION = 3,  /* pivoting ended on a secondary ray */
  SLV_SINGULAR_PIVOT = 4,   /* a (near-)zero pivot or singular factorization */
  SLV_NOT_FINITE = 5,       /* NaN or Inf appeared in the iterate */
  SLV_BREAKDOWN = 6,        /* principal pivoting broke down: a pivot s <= 0 on the
                               clamped set (A not positive semidefinite there, or
                               rounding); ODE's "LCP internal error, s <= 0" */
  SLV_NO_SOLUTION = 7,      /* proved that no solution exists (exhaustive enumeration) */
  SLV_TIME_LIMIT = 8,       /* opt.time_limit passed: stopped at the next poll */
  SLV_INTERRUPTED = 9,      /* opt.cancel asked to stop: stopped at that poll */
  SLV_ERROR = 10            /* (the last: counts by status are sized by it) a solver gave
                               no answer: its code failed (a Python callable raised,
                               returned no array or one of the wrong length; x is the
                               start), or it wrote its read-only input (the problem's
                               arrays changed during the solve: slv_result.input_written,
                               nothing measured); the message says what happened */
} slv_status;

/* Short lower-case name ("converged", "max_iter", ...; 0 is "converged");
 * never NULL. */
SLV_API const char *slv_status_str(slv_status s);

/* ---- numbers from text: the toolkit's one strict parser (parse.c) -------- */
/* Every number lcplab reads from text goes through these: instance files
 * (the I/O library), options by name (below), world settings, scene
 * parameters, .exp files and command-line flags.  Strict: the whole text is
 * one number, no white space before it, NaN never, infinities only with
 * SLV_PARSE_INF, integers in base 10 within their type; the details are in
 * parse.c's header.  0 (SLV_PARSE_OK) on success; otherwise the reason, and
 * *out is left as it was. */
typedef enum slv_parse_error {
  SLV_PARSE_OK = 0,
  SLV_PARSE_EMPTY = 1,    /* "" (or NULL) */
  SLV_PARSE_BLANK = 2,    /* white space before the number: " 1" */
  SLV_PARSE_SYNTAX = 3,   /* not a number: "abc", "-", "0x10" as an integer */
  SLV_PARSE_TRAILING = 4, /* a number followed by more: "1e-8x", "1 2" */
  SLV_PARSE_NAN = 5,      /* "nan" */
  SLV_PARSE_INFINITE = 6, /* "inf" without SLV_PARSE_INF */
  SLV_PARSE_RANGE = 7     /* beyond the type: "1e999" (a double without SLV_PARSE_INF), an
                             integer beyond long, int or unsigned long, "-1" as unsigned */
} slv_parse_error;

/* Flags of slv_parse_double: finite only (0), or +-inf accepted (spelled
 * "inf", "-inf", "infinity", or a double beyond DBL_MAX, which IEEE 754
 * rounds to one). */
enum { SLV_PARSE_FINITE = 0, SLV_PARSE_INF = 1 };

SLV_API slv_parse_error slv_parse_double(const char *s, unsigned flags, double *out);
SLV_API slv_parse_error slv_parse_long(const char *s, long *out);
SLV_API slv_parse_error slv_parse_int(const char *s, int *out);
SLV_API slv_parse_error slv_parse_ulong(const char *s, unsigned long *out);
/* The same for the token s[0..len) inside a longer NUL-terminated text
 * (a reader's buffer): the number must end exactly at s + len. */
SLV_API slv_parse_error slv_parse_double_n(const char *s, size_t len, unsigned flags, double *out);
SLV_API slv_parse_error slv_parse_long_n(const char *s, size_t len, long *out);
/* What went wrong, for a message: "characters after the number", "out of
 * range", ...; never NULL. */
SLV_API const char *slv_parse_error_str(slv_parse_error e);

/* ---- memory for large arrays (memory.c) --------------------------------- */
/* The size from which slv_alloc_large asks for huge pages. */
enum { SLV_LARGE_BYTES = 1 << 20 };

/* Uninitialised memory for an array of `bytes` that a solve or a world
 * step walks over repeatedly, freed with free(): aligned to 64 bytes and,
 * from SLV_LARGE_BYTES on, to 2 MiB with transparent huge pages asked of
 * the kernel (Linux; ordinary pages where refused: the same memory, no
 * result changes).  NULL when memory is short. */
SLV_API void *slv_alloc_large(size_t bytes);

/* ---- the problem (borrowed: the library never writes through it) ------- */
typedef enum slv_storage {
  SLV_DENSE = 0,   /* A[i + j*lda], column-major (LAPACK), lda >= n */
  SLV_CSR = 1,     /* Ap[n+1] row pointers, Aj[nnz] column indices, Ax[nnz] */
  SLV_FACTORED = 2 /* matrix-free: A = J K^T + diag(fd), below; never formed */
} slv_storage;

/* What a Coulomb cone row triple (normal n, tangents t1, t2) means, with
 * K_mu = { |x_t| <= mu x_n } and its dual cone K* = K_{1/mu}:
 *   SLV_CONE_COULOMB: Coulomb's law in De Saxce's form (FCLIB, Siconos FC3D):
 *       K_mu ∋ x_c  ⊥  w^_c ∈ K*,  w^_c = w_c + (mu |w_t|, 0, 0)
 *   SLV_CONE_ASSOCIATED: the associated cone (Anitescu, Tasora: CCP), the
 *       KKT conditions of min 1/2 x'Ax + b'x over x_c in K_mu:
 *       K_mu ∋ x_c  ⊥  w_c ∈ K*
 * The residuals and every cone solver's result refer to p->cone_law. */
typedef enum slv_cone_law { SLV_CONE_COULOMB = 0, SLV_CONE_ASSOCIATED = 1 } slv_cone_law;

/* "coulomb" or "associated". */
SLV_API const char *slv_cone_law_str(slv_cone_law law);

typedef struct slv_problem {
  int n; /* number of rows = unknowns, n >= 0 */
  slv_storage storage;
  const double *A;  /* dense: n x n, column-major */
  int lda;          /* dense: leading dimension, >= max(1, n) */
  const int *Ap;    /* CSR: row pointers, size n+1, Ap[0] = 0 */
  const int *Aj;    /* CSR: column indices, size Ap[n], each in [0, n) */
  const double *Ax; /* CSR: values, size Ap[n] */
  /* Factored (matrix-free) storage, the form of a contact problem
   * A = J M^-1 J^T + diag(cfm) kept as its factors J and K = J M^-1
   * (ODE quickstep, Box2D): J and K are n x 6 nblk, and each row i is
   * nonzero on at most two blocks of 6 columns, fblk[2i] and fblk[2i+1]
   * (a block index in [0, nblk), or -1 for an unused slot), with the values
   * fJ[12i + 6k + c] and fK[12i + 6k + c] for slot k, column c.
   *     A(i,j) = sum over slots k, l with fblk[2i+k] = fblk[2j+l] >= 0 of
   *              fJ_i,k . fK_j,l,   plus fd[i] when i = j.
   * The library never writes through these arrays (its scratch for
   * K^T x lives in the workspace, or on the stack in slv_problem_w), so
   * one problem may be solved by several workspaces on several threads at
   * once.  Solvers take it only with SLV_CAP_FACTORED; symmetry is not
   * checked (A is symmetric when K = J W with W symmetric, as for M^-1).
   * pgs_wide recognises rigid bodies itself (K's linear columns a scalar
   * times J's on every row of a block: docs/solvers.md, "pgs_wide"). */
  int nblk;              /* factored: number of column blocks (bodies) */
  const int *fblk;       /* factored: size 2n */
  const double *fJ, *fK; /* factored: size 12n each */
  const double *fd;      /* factored: size n (diagonal term, e.g. CFM), or NULL = 0 */
  const double *b;       /* size n */
  const double *lo, *hi; /* size n, +-INFINITY allowed; NULL = 0 / +INFINITY */
  const int *findex;     /* size n or NULL; -1 = none, else the normal row */
  const double *mu;      /* size n, friction coefficient of findex rows */
  int ncones;            /* Coulomb cones (3 rows each), 0 if none */
  const int *cone_rows;  /* size ncones: first (normal) row of each cone */
  const double *cone_mu; /* size ncones */
  slv_cone_law cone_law; /* meaning of the cone rows (default 0: Coulomb, De Saxce) */
  int condensed;         /* 1: A and b are the W = H' M^-1 H and q = w + H' M^-1 f of a global
                            problem (slv_condense; every row in a cone): converged then also
                            needs res_global <= tol (docs/convergence.md, "Global problems");
                            default 0 */
} slv_problem;

/* A problem with every pointer NULL and n = 0 (dense). */
SLV_API slv_problem slv_problem_empty(void);

/* Cone rows ignore lo/hi (the cone is their constraint); findex must be -1
 * on them.
 * Check the problem: sizes, finiteness of A and b, lo <= hi, lo < +inf,
 * hi > -inf, findex in range / not self- or chain-referencing, mu finite and
 * >= 0, CSR structure.  Returns SLV_OK (0) when valid, else
 * SLV_ERR_INVALID or SLV_ERR_DIM with msg (if non-NULL, size msglen) naming
 * the index and the values, e.g. "lo[3]=2 > hi[3]=1". */
SLV_API slv_status slv_problem_validate(const slv_problem *p, char *msg, size_t msglen);

/* w = A x + b  (x, w: size n; w must not alias x).  Needs no scratch and
 * never allocates: a factored problem's K^T x is formed on the stack, a
 * slice of blocks at a time (one pass over the rows per 128 blocks). */
SLV_API void slv_problem_w(const slv_problem *p, const double *x, double *w);
/* The same with the caller's scratch t of 6 tblocks doubles: a factored
 * problem with nblk <= tblocks takes one pass over the rows (the same bits
 * as slv_problem_w). */
SLV_API void slv_problem_w_t(const slv_problem *p, const double *x, double *w, double *t,
                             int tblocks);

/* x = P(0), where slv_solve starts without a warm start: 0 projected on
 * [lo_i, hi_i]; findex rows (bounds -mu |x_j| .. mu |x_j| = 0 .. 0 there)
 * and cone rows (the apex; their lo, hi are ignored) at 0.  Returns 1 if
 * any x_i != 0 (else w = A x + b = b exactly). */
SLV_API int slv_start_point(const slv_problem *p, double *x);

/* The explicit A of a factored problem in CSR (columns sorted in each row,
 * every diagonal entry stored), for the tools and solvers that need one:
 * *Ap (n+1), *Aj, *Ax newly allocated (free() each).  SLV_ERR_INVALID if p
 * does not validate or is not factored, SLV_ERR_NOMEM; msg says which. */
SLV_API slv_status slv_factored_csr_new(const slv_problem *p, int **Ap, int **Aj, double **Ax,
                                        char *msg, size_t msglen);

/* An estimate of A's 1-norm condition number kappa_1(A) = ||A||_1 ||A^-1||_1
 * (docs/solver-machinery.md, "Linear systems"): ||A||_1 exact, ||A^-1||_1 by Hager's
 * estimator refined by Higham (LAPACK dlacn2, as dgecon) over the LU of A
 * from the linear-system interface.  It is the condition of A alone, not
 * of the complementarity problem.  p: any storage (a factored A is formed);
 * only n and A are read.  *cond (out): the estimate, +inf when A is
 * singular.  0 on success; -1 (and *cond = NaN) when n < 1, A is missing
 * or memory runs out, msg (msglen bytes, may be NULL) saying which. */
SLV_API int slv_condition_estimate(const slv_problem *p, double *cond, char *msg, size_t msglen);

/* ---- accuracy measures (docs/problem.md, "Residuals"): the same code for
 * every solver ------------------------------------------------------------ */

/* ContactBench's physical criteria [lelidec2024] for the cone rows, with,
 * per cone c, the impulse l = x_c and the velocity v = w_c (normal first),
 * K = K_mu, K* = K_{1/mu} and the De Saxce velocity v^ = v + (mu |v_t|, 0, 0);
 * each is the largest over the cones (docs/problem.md, "Residuals",
 * "Contact metrics").  NaN without cones, and when x or w is not finite.
 * They judge any solution by Coulomb's law, whatever p->cone_law. */
typedef struct slv_contact_metrics {
  double signorini;   /* |l_n v_n|: Signorini complementarity */
  double conic_compl; /* |l . v|: conic complementarity */
  double ncp_compl;   /* |l . v^|: NCP complementarity with De Saxce's correction */
  double dual_feas;   /* ||v^ - P_K*(v^)||_inf: dual feasibility */
  double primal_feas; /* ||l - P_K(l)||_inf: primal feasibility */
  double mdp_gap;     /* |l_t . v_t + mu l_n |v_t||: the maximum-dissipation gap, the power
                         friction could dissipate at most (mu l_n |v_t|) minus what it does */
} slv_contact_metrics;

typedef struct slv_residuals {
  double res_nat_inf; /* || mid(x - hi, w, x - lo) ||_inf, findex bounds at x; cone rows:
                         x_c - P_K(x_c - w^_c) for p->cone_law (w^ = w for associated) */
  double res_rel;     /* res_nat_inf / max(1, ||b||_inf) */
  double res_rel_2;   /* the same natural map in the 2-norm: ||r||_2 / max(1, ||b||_2) (the
                         measure of Siconos' solvers and of acary2018's profiles) */
#ifndef __cplusplus
  double compl ; /* sum_i w_i^+ (x_i - lo_i) + w_i^- (hi_i - x_i), finite bounds;
                         cones: + sum_c |x_c . w^_c| */
#else
  double compl_; /* the same field: in C++ 'compl' is an operator name (~) */
#endif
  double infeas;      /* max_i max(0, lo_i - x_i, x_i - hi_i); cones: max(0, |x_t| - mu x_n) */
  double b_inf;       /* ||b||_inf */
  double merit_fclib; /* cones only (else NaN): FCLIB's MERIT_1, the 2-norm of the De Saxce
                         natural map over the cone rows / (1 + sqrt(||b||_2)) */
  slv_contact_metrics contact; /* cones only (else NaN): ContactBench's criteria, above */
  double res_scaled;  /* the convergence test's measure, invariant under positive scalings of
                         the problem, of its rows and of its contacts: per row |mid((x-hi)/xs,
                         w/s_i, (x-lo)/xs)|, xs = ||x||_inf, s_i = |b_i| + |(A x)_i| + a_i
                         min(xs, xd) with a_i = |A_ii| (the row's 1-norm where A_ii = 0) and
                         xd the largest impulse a row or cone takes alone from 0; per cone
                         the natural map of its law on x_c/xs, w_c/s_c (s_c from the 2-norms
                         of its b and A x blocks and its rows' largest reaction); the largest
                         (docs/convergence.md) */
  double siconos_err; /* no cones (else NaN): Siconos' lcp_compute_error,
                         ||x - mid(lo, hi, x - w)||_2 / ||b||_2 (||.||_2 alone if b = 0) */
  double err_siconos; /* cones only (else NaN): Siconos' fc3d_compute_error, ||F||_2 /
                         max(||b||_2, ||x||_2, ||w||_2), F the natural map (De Saxce for
                         Coulomb's law) over every row (1 if that max is 0) */
  double res_rel_1q;  /* cones only (else NaN): [acary2018]'s ||F||_2 / (1 + ||b||_2) */
  double res_contact; /* cones only (else NaN): [acary2018]'s per-contact measure, max_c
                         ||F_c||_2 / ||(b_c, (A x)_c)||_2 (0/0 = 0, F_c != 0 over 0: Inf);
                         peer_gfc3d's res_contact_max */
  double res_global;  /* a condensed problem (slv_problem.condensed): max(res_rel_1q,
                         res_contact), the clause converged adds there; NaN elsewhere */
  /* the cone (index into cone_rows) at which res_contact is taken, the first
   * such; -1 without cones or where every F_c is 0 (pointer-sized: no padding
   * in the struct, which callers may compare bit for bit) */
  ptrdiff_t res_contact_at;
} slv_residuals;

/* Computes the measures at x with w = A x + b given (w may be NULL: then it
 * is recomputed as slv_problem_w does, a slice of rows at a time on the
 * stack: no allocation, one product; a factored problem with more than 256
 * blocks: one pass over the rows per slice of 512 rows and of 256 blocks,
 * so pass w from slv_problem_w_t there).  Any NaN in x or w gives NaN
 * measures. */
SLV_API slv_residuals slv_residual(const slv_problem *p, const double *x, const double *w);
/* The same measures with the physical floor xf (slv_workspace_set_floor):
 * res_scaled as a solve on a workspace with that floor takes it; the
 * other measures do not depend on it.  An xf that is negative or not
 * finite is taken as 0 (slv_residual's measures, bit for bit). */
SLV_API slv_residuals slv_residual_floor(const slv_problem *p, const double *x, const double *w,
                                         double xf);

/* The library's convergence test on measures from slv_residual: res_scaled
 * <= tol, with norm SLV_NORM_2 also res_rel_2 <= tol, and on a condensed
 * global problem also res_global <= tol (slv_options.tol, .norm;
 * docs/convergence.md).  1 or 0; 0 on NaN.  Every solver stops by
 * it and slv_solve's verdict is it; a program judging an x from elsewhere
 * (an external solver's) calls it too. */
SLV_API int slv_residuals_met(const slv_residuals *r, double tol, int norm);

/* ---- logging: the library's only output --------------------------------- */
/* The library never prints.  It hands one-line messages (no newline) to the
 * caller's callback, if the options carry one, each with a level:
 *   SLV_LOG_ERROR    slv_solve refused its input (a negative status), with
 *                    the message of res.message;
 *   SLV_LOG_WARNING  a solve ran and did not converge (a positive status);
 *   SLV_LOG_INFO     one line per converged solve: solver, status,
 *                    iterations, pivots, res_rel;
 *   SLV_LOG_DEBUG    solver internals: pgs_wide's, pgs_color's, pgs_part's plans, lemke's tentative
 *                    exits, the outer iterations of the cone QP solvers...
 * A line is delivered only if its level <= opt.log_level (default
 * SLV_LOG_DEBUG: everything), to opt.log_level_fn with its level or, if
 * that is NULL, to opt.log_fn without it (the callback of lcplab 0.1, which
 * keeps working unchanged).  Both NULL (the default): silent.  The callbacks
 * run on the thread that called slv_solve, during the call. */
typedef enum slv_log_level {
  SLV_LOG_ERROR = 0,
  SLV_LOG_WARNING = 1,
  SLV_LOG_INFO = 2,
  SLV_LOG_DEBUG = 3
} slv_log_level;

/* "error", "warning", "info", "debug"; never NULL. */
SLV_API const char *slv_log_level_str(slv_log_level level);

typedef void (*slv_log_fn)(void *ctx, const char *line);
typedef void (*slv_log_level_fn)(void *ctx, slv_log_level level, const char *line);

/* ---- stopping a solve from outside: a deadline and a cancel check -------- */
/* Every solver polls both in its outer loop and in its long inner ones (a
 * sweep over many contacts, between factorizations), reading the clock
 * and calling opt.cancel once per about SLV_POLL_WORK multiply-adds of
 * work and at its first poll (docs/solver-machinery.md, "Time limits and
 * interruption").  A stopped solve returns SLV_TIME_LIMIT or
 * SLV_INTERRUPTED with the iterate its solver keeps on SLV_MAX_ITER and
 * the library's residuals of it; never SLV_CONVERGED.  The callback runs
 * on the thread that called slv_solve, during the call; nonzero means stop
 * (e.g. a signal flag set by the caller's handler). */
typedef int (*slv_cancel_fn)(void *ctx);
#define SLV_POLL_WORK 1048576.0 /* 2^20 */
/* A time_limit from this on (about 32 years) is no limit. */
#define SLV_TIME_LIMIT_MAX 1e9

/* ---- options: named fields, only from slv_options_default() ------------- */

enum { SLV_NORM_INF = 0, SLV_NORM_2 = 2 };
enum { SLV_SIMD_AUTO = 0, SLV_SIMD_OFF = 1, SLV_SIMD_AVX2 = 2 };

/* The largest opt.threads slv_options_validate accepts. */
#define SLV_THREADS_MAX 256

typedef struct slv_options {
  int max_iter;       /* sweeps (iterative) or pivots (pivoting); default 1000 */
  double tol;         /* converged iff res_scaled <= tol (the scale-invariant test,
                          docs/convergence.md); default 1e-8 */
  int norm;           /* SLV_NORM_INF (default): the test above; SLV_NORM_2: also
                          res_rel_2 <= tol (the measure of Siconos and [acary2018]: a run
                          stops where a 2-norm judge agrees as well) */
  double omega;       /* pgs: SOR relaxation in (0, 2); default 1 */
  double damping;     /* pjacobi: step scale; 0 = automatic (1 / lambda_max of D^-1/2 A D^-1/2) */
  double pivot_tol;   /* relative zero-pivot threshold, default 1e-13: direct compares a
                          pivot with pivot_tol * max|A_ij|, lemke with pivot_tol * ||y||_inf
                          of the entering column (scale-invariant); see each solver's header */
  int warm_start;     /* 1: x on entry is the starting point; 0: start at the projection of 0 */
  int record_history; /* 1: res_rel per iteration into result.history */
  int check_every;    /* iterative: exact residual recomputation period; default 20 */
  int max_pivots;     /* pivoting (lemke, dantzig): pivot limit; 0 = automatic: a budget of
                          work, max(2^28 / n^2, 50 n) pivots (a pivot costs O(n^2), so small
                          problems may take exponentially many: Murty's n = 19 fits) */
  const double *covering;        /* lemke: covering vector d, size n, every d_i > 0; NULL = all ones
                             (borrowed, read during slv_solve only) */
  unsigned long seed;            /* randomized solvers; default 1 */
  int simd;                      /* SLV_SIMD_AUTO (default): vector code where the CPU has it
                          (pgs_wide's, pgs_color's, pgs_part's AVX2 lanes, eight wide with
                          AVX-512); SLV_SIMD_OFF: scalar code only, the path of a CPU without
                          it (same iterates), to test and time it; SLV_SIMD_AVX2: the AVX2
                          lanes even where the CPU has AVX-512 (same iterates), the path of a
                          CPU without it, to test and time it */
  int threads;                   /* OpenMP threads, 1..SLV_THREADS_MAX; default 1.  Used where
                          the work splits without changing the arithmetic: the product
                          with a CSR A (row by row) and pjacobi_cone's per-contact step,
                          so x is the same bit for bit for every thread count.  Default 1,
                          not OMP_NUM_THREADS: campaigns run one solve per core
                          (lcplab experiment --jobs), where threads would oversubscribe.
                          Without OpenMP in the build (configure --disable-openmp) any
                          value runs on one thread (docs/solver-machinery.md, "Threads") */
  slv_log_fn log_fn;             /* NULL: silent (see "logging" above) */
  void *log_ctx;                 /* passed to log_fn or log_level_fn */
  slv_log_level_fn log_level_fn; /* with the level; when set, log_fn is not called */
  int log_level;                 /* the most detailed level delivered, SLV_LOG_ERROR..SLV_LOG_DEBUG;
                          default SLV_LOG_DEBUG */
  double time_limit;             /* seconds of wall clock (CLOCK_MONOTONIC) from the start of
                          slv_solve, > 0, or 0 (default) or >= SLV_TIME_LIMIT_MAX: none; then SLV_TIME_LIMIT
                          (see "stopping a solve" above) */
  slv_cancel_fn cancel;          /* NULL (default): none; else polled, nonzero: SLV_INTERRUPTED */
  void *cancel_ctx;              /* passed to cancel */
  /* ppa_nsn's proximal point (docs/cone-solvers.md, "Proximal point Newton"):
   * alpha = prox_sigma e^prox_nu times each contact's stiffness, e the error
   * at the centre */
  double prox_sigma;  /* the proximal parameter's factor, finite and > 0; default 0.05 */
  double prox_nu;     /* its exponent, in (0, 2]; default 1 */
  double prox_grow;   /* alpha's factor after a failed inner solve, finite and > 1;
                          default 10 */
  int prox_inner_max; /* Newton iterations per proximal problem, >= 1; default 20 */
  int prox_outer_max; /* proximal (outer) iterations, >= 0 (0 = no limit but max_iter,
                          which counts Newton iterations in all); default 0 */
  unsigned magic;     /* private: stamped by slv_options_default */
} slv_options;

SLV_API slv_options slv_options_default(void);

/* Checks the cookie and the ranges: SLV_OK, or SLV_ERR_OPTIONS with a
 * message. */
SLV_API slv_status slv_options_validate(const slv_options *opt, char *msg, size_t msglen);

/* A loose tolerance: the front ends' rule, not slv_options_validate's
 * (the library accepts any tol > 0).  At x = 0 a row or cone whose answer
 * needs an impulse scores 1 in res_scaled, so a tol of SLV_TOL_LOOSE or
 * more accepts x = 0 after 0 iterations on every problem
 * (docs/convergence.md, "Loose tolerances").  The command line (`lcplab
 * solve --tol`), the experiment files' `tol` line and Python's
 * solve(tol=) refuse such a tol unless asked to allow it
 * (--allow-loose-tol, `allow_loose_tol yes`, allow_loose_tol=True), by
 * this check: SLV_OK when tol < SLV_TOL_LOOSE or allow is nonzero, else
 * SLV_ERR_OPTIONS with the reason in msg ("tol=1 >= 1 accepts x = 0 ..."),
 * which the caller prefixes with where the tol came from. */
#define SLV_TOL_LOOSE 1.0
SLV_API slv_status slv_tol_check(double tol, int allow, char *msg, size_t msglen);

/* ---- options by name: the one table (options.c) ------------------------- */
/* The fields of slv_options that text may set: an instance file's recorded
 * solve (libio's .lcp "options" section), a world's settings
 * (libdynamics/world_settings_names.c), Python's solve(**options) (through the
 * extension) all set them through slv_options_set, by this table.  The
 * table's first ten rows, in this order, are the options a .lcp file
 * records (io.h, IO_OPT_*): max_iter, tol, norm, omega, damping, pivot_tol,
 * warm_start, check_every, max_pivots, seed; then simd, threads,
 * time_limit. */
typedef enum slv_option_type {
  SLV_OPTION_INT = 0,    /* an int field: a base-10 integer within int */
  SLV_OPTION_ULONG = 1,  /* an unsigned long field (seed): a base-10 integer >= 0 */
  SLV_OPTION_DOUBLE = 2, /* a double field: a finite number */
  SLV_OPTION_BOOL = 3,   /* an int field that is 0 or 1 (warm_start): "0" or "1" */
  SLV_OPTION_CHOICE = 4  /* an int field holding one of a few values (norm, simd): a value's
                            name ("inf", "2"; "auto", "off") or its number */
} slv_option_type;

typedef struct slv_option_info {
  const char *name; /* the field of slv_options, and the option's name */
  slv_option_type type;
  const char *values;  /* what the text may be, e.g. "a finite number", "inf or 2" */
  const char *range;   /* what slv_options_validate accepts, in the words of its
                          message ("in (0, 2)", ">= 1"), or "any" */
  const char *meaning; /* one line */
} slv_option_info;

SLV_API int slv_option_count(void);
SLV_API const slv_option_info *slv_option_at(int i);              /* NULL if out of range */
SLV_API const slv_option_info *slv_option_find(const char *name); /* NULL if unknown */

/* opt's option `name` from its text, parsed strictly by its type (the
 * numbers by slv_parse_*): SLV_OK, or SLV_ERR_OPTIONS with a message
 * naming the option and the text ("max_iter: expected an integer within
 * int, found '2.5' (characters after the number)") and opt unchanged.  An
 * unknown name, or opt not from slv_options_default(), is SLV_ERR_OPTIONS
 * too.  The value's range is slv_options_validate's, judged when the
 * options are used (a world's settings and the .lcp reader set options
 * that a later solve validates), so that a value set by name and the same
 * value set in C meet the same judge. */
SLV_API slv_status slv_options_set(slv_options *opt, const char *name, const char *value, char *err,
                                   size_t errlen);
/* The text of option `name` of opt, which slv_options_set reads back to
 * the same value (integers %d / %lu, doubles %.17g, a bool 0 or 1, a
 * choice its number): SLV_OK, or SLV_ERR_OPTIONS for an unknown name or a
 * buffer too small (buf then empty). */
SLV_API slv_status slv_options_get(const slv_options *opt, const char *name, char *buf, size_t len);

/* Formats one line (at most 255 characters, longer ones are cut) and hands
 * it to opt's callback if level <= opt->log_level (see "logging" above);
 * nothing at all if opt is NULL, has no callback or fails
 * slv_options_validate.  For the libraries built on libsolvers (libdynamics
 * logs through its settings' options). */
SLV_API void slv_log(const slv_options *opt, slv_log_level level, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* ---- result (output only) ----------------------------------------------- */
typedef struct slv_result {
  slv_status status;
  int iterations;             /* sweeps or Newton steps; 0 for direct methods */
  int pivots;                 /* pivoting / factorizing methods */
  slv_residuals res;          /* recomputed by the library after every solve */
  double solver_residual;     /* the solver's own stopping measure (diagnosis) */
  const double *history;      /* res_rel per iteration; valid until next solve/free */
  const double *history_time; /* seconds from the start of slv_solve to each history
                             entry (CLOCK_MONOTONIC, measured when it was recorded);
                             same length and lifetime as history */
  int history_len;
  int history_cap;    /* capacity of the history buffer (set by slv_solve) */
  const char *method; /* the algorithm that ran: the solver's name, or the one it
                              handed the problem to when that computes the same iterates
                              ("pgs" for pgs_wide, pgs_color, pgs_part on dense or CSR storage,
                              and for pgs_wide without the AVX2 lanes in row order);
                              static, never NULL after slv_solve with a workspace */
  char message[160];  /* detail for any status other than converged */
  char choice[320];   /* "auto" only: why it chose res.method, then what each fallback
                       * ended with, and slv_solve's verdict where it differs from
                       * auto's own status (else empty) */
  /* the status the solver itself returned (auto: its own), kept for
   * diagnosis; status is slv_solve's verdict on the x returned
   * (docs/convergence.md, "The verdict on the final iterate"): a
   * max_iter, stagnated, time_limit... whose x meets the test is
   * converged, a converged whose x does not is stagnated or not_finite.
   * Equal to status when the two agree; for a refused solve, status. */
  slv_status solver_status;
  /* 1: the solver wrote its read-only input (an array of the problem
   * changed during the solve; docs/convergence.md, "A solver that writes
   * its input"): status SLV_ERROR, every measure NaN (the arrays are no
   * longer the problem's), the message naming the array; the caller's
   * arrays are as the solver left them, so nothing else may be solved or
   * judged on them.  0 otherwise. */
  int input_written;
  /* Why a failed solve could not converge, where the library can tell
   * (else empty): after a solve that ended unconverged on a problem with
   * cones and a symmetric A, "wedge: ..." names the contacts (cone
   * indices from 0) that carry the residual when a null direction d of
   * A's block on them lies in their friction cones with d.b < 0, and
   * d.b (docs/cone-solvers.md, "A wedge"; wedge.c).  A diagnosis, not a
   * status: status keeps its meaning. */
  char diagnosis[256];
} slv_result;

/* The result of a refused solve (a negative status st): no solver ran to
 * the end, so nothing was measured: every measure of res->res and the
 * solver's own residual NaN (never 0, which would read as an exact
 * answer), res_contact_at -1; the message, method, counts and history are
 * left as they are.  slv_solve's refusals and the Python extension's
 * (options, workspace) are filled by it, and so is a solve whose solver
 * wrote its input (st SLV_ERROR: nothing measured on what it wrote). */
SLV_API void slv_result_refuse(slv_result *res, slv_status st);

/* ---- solvers: descriptors and registry ---------------------------------- */
enum {
  SLV_CAP_BOX = 1u << 0,             /* finite lo/hi other than 0/+inf */
  SLV_CAP_FREE = 1u << 1,            /* rows with lo = -inf, hi = +inf */
  SLV_CAP_FINDEX = 1u << 2,          /* friction rows coupled by findex */
  SLV_CAP_CONE = 1u << 3,            /* Coulomb cones */
  SLV_CAP_SPARSE = 1u << 4,          /* CSR storage */
  SLV_CAP_ONLY_FREE = 1u << 5,       /* refuses any bounded row (direct solvers) */
  SLV_CAP_NEEDS_POS_DIAG = 1u << 6,  /* A(i,i) > 0 required */
  SLV_CAP_NEEDS_SYMMETRIC = 1u << 7, /* A = A^T required (to 1e-12 * max|A_ij|) */
  SLV_CAP_FACTORED = 1u << 8,        /* factored (matrix-free) storage A = J K^T + diag(fd) */
  SLV_CAP_DENSIFY = 1u << 9          /* dense code only, but a CSR problem is taken: slv_solve
                                        copies it to dense in the workspace (allocated with it,
                                        n_max x n_max) when 8 n_max^2 bytes <=
                                        SLV_DENSIFY_MAX_BYTES; past that a refusal, an
                                        implementation limit (docs/solvers.md, "Storage") */
};
#define SLV_DENSIFY_MAX_BYTES (256.0 * 1024 * 1024)

typedef struct slv_solver slv_solver;
struct slv_solver {
  const char *name;            /* "pgs", "pjacobi", "direct", ... */
  const char *summary;         /* one line */
  const char *cite;            /* key in docs/references.bib */
  unsigned caps;               /* SLV_CAP_* */
  int max_n;                   /* largest n accepted (enumeration); 0 = no limit */
  const struct slv_impl *impl; /* private: state size, init, free, solve (slv_internal.h) */
  /* one line: the constants and rules the solver runs with under
   * slv_options_default(), enough to reproduce a run (the values of its .c
   * file; options named with their defaults).  Last, so that the fields
   * above keep their offsets. */
  const char *params;
};

SLV_API int slv_solver_count(void);
SLV_API const slv_solver *slv_solver_at(int i);              /* NULL if out of range */
SLV_API const slv_solver *slv_solver_find(const char *name); /* NULL if unknown */

/* ---- solvers added at run time: the public solver interface ------------- */
/* A solver from outside the library (a C plugin, a Python callable behind
 * the extension, a program's own) is registered once with
 * slv_solver_register and is then a slv_solver like the built-in ones:
 * slv_solver_find finds it, slv_workspace_new and slv_solve run it, and
 * slv_solve's checks, residuals, verdict, time limit and cancel callback
 * apply to it exactly as to pgs (docs/plugins.md).  SLV_SOLVER_ABI is the
 * version of this interface (slv_solver_def, slv_call_*, slv_problem,
 * slv_options, slv_status): a def compiled against another version is
 * refused, naming both. */
#define SLV_SOLVER_ABI 2
/* The longest name (characters, without the NUL) a registered solver may have. */
#define SLV_SOLVER_NAME_MAX 47
/* How many solvers a process may register. */
#define SLV_REGISTER_MAX 64

/* What slv_solve hands a registered solver's solve (opaque): its stop
 * conditions and where its counts and message go.  Valid during that call
 * only. */
typedef struct slv_call slv_call;

typedef struct slv_solver_def {
  int abi;             /* SLV_SOLVER_ABI as the def's code was compiled */
  const char *name;    /* 1..SLV_SOLVER_NAME_MAX of [A-Za-z0-9_.+-], not "all"; copied */
  const char *summary; /* one line, or NULL; copied (first 159 characters) */
  const char *cite;    /* a bibliography key, or NULL; copied */
  const char *params;  /* one line: the constants it runs with (slv_solver.params), or NULL */
  unsigned caps;       /* SLV_CAP_*: what it accepts; slv_solve refuses the rest for it */
  int max_n;           /* largest n accepted; 0 = no limit */
  size_t state_size;   /* bytes of its state, zeroed, allocated by slv_workspace_new */
  /* allocate what problems up to n_max need (SLV_OK or SLV_ERR_NOMEM); may
   * be NULL.  The only place it may allocate. */
  slv_status (*init)(void *state, int n_max, const slv_options *opt, void *ctx);
  /* release; must accept a state whose init failed or never ran; may be NULL */
  void (*free)(void *state, void *ctx);
  /* solve p, validated and accepted by caps (read it only); x: in/out,
   * the start point on entry (opt->warm_start's x or P(0)), the answer on
   * return; w: out, size p->n (scratch: slv_solve recomputes it).  Never
   * allocates, never prints; polls slv_call_poll in its loops and ends
   * with its status on a nonzero answer; reports its iterations and own
   * measure by slv_call_iteration.  Returns one of slv_status's values
   * (another is taken as SLV_STAGNATED, the message saying so); a
   * negative one refuses the problem (with slv_call_message's reason). */
  slv_status (*solve)(void *state, slv_call *call, const slv_problem *p, const slv_options *opt,
                      double *x, double *w, void *ctx);
  void *ctx; /* passed to init, free and solve (a plugin's table, a Python callable) */
} slv_solver_def;

/* Adds the solver def describes to the process's table (copied; def may
 * go after the call, ctx and the functions must stay): SLV_OK, or
 * SLV_ERR_INVALID with msg naming the field (a wrong abi gives both
 * versions; a name taken by a built-in or registered solver says which;
 * the table full).  origin (may be NULL) says where the solver came from,
 * e.g. a plugin's absolute path; slv_solver_origin returns it.
 * The table is process-wide, append-only and guarded by a lock: a solver
 * registered stays registered (its descriptor's address valid) until the
 * process ends, so lookups need no lock held across a solve
 * (docs/plugins.md, "Where registered solvers live").  Register before
 * starting solves on other threads. */
SLV_API slv_status slv_solver_register(const slv_solver_def *def, const char *origin, char *msg,
                                       size_t msglen);
/* Where a registered solver came from (slv_solver_register's origin, ""
 * when none was given); NULL for a built-in one. */
SLV_API const char *slv_solver_origin(const slv_solver *s);
/* The capabilities of the registered solver name set to caps (SLV_CAP_*),
 * for a registrant that registers the same solver again with other caps
 * (Python's register_solver: docs/plugins.md, "Where registered solvers
 * live").  origin must be the one it was registered with (NULL as ""): no
 * one changes another's solver.  SLV_OK, or SLV_ERR_INVALID with msg
 * naming why (unknown name, a built-in, another origin, caps with bits no
 * SLV_CAP_* names).  Under the table's lock; the descriptor stays where it
 * is.  Like registering, do it before starting solves on other threads: a
 * solve running meanwhile may see either caps. */
SLV_API slv_status slv_solver_set_caps(const char *name, const char *origin, unsigned caps,
                                       char *msg, size_t msglen);

/* The solver's poll (slv.h, "stopping a solve") after about `work`
 * multiply-adds since its previous one: 0 to go on, else SLV_TIME_LIMIT
 * or SLV_INTERRUPTED, which it returns with its iterate. */
SLV_API slv_status slv_call_poll(slv_call *call, double work);
/* Records the iterations done so far and the solver's own stopping measure
 * (res.iterations, res.solver_residual, one history entry unless it is
 * NaN: a solver without a measure of its own). */
SLV_API void slv_call_iteration(slv_call *call, int iterations, double own_residual);
/* Records pivots (pivoting methods). */
SLV_API void slv_call_pivots(slv_call *call, int pivots);
/* The result's message (res.message), printf-style: why it failed or refused. */
SLV_API void slv_call_message(slv_call *call, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* ---- C plugins (docs/plugins.md, "C plugins") ---------------------------- */
/* A plugin is a shared library with these two symbols, which
 * slv_plugin_load (below; `lcplab --plugin PATH`, LCPLAB_PLUGINS, an
 * experiment file's `plugin PATH`, Python's load_plugin) looks up:
 *   SLV_PLUGIN_ABI_DEFINE;   at file scope: the SLV_SOLVER_ABI it was
 *                            built with, compared before any of its code runs;
 *   slv_plugin_init          registers its solvers (slv_solver_register,
 *                            with origin as their origin) and returns
 *                            SLV_OK, or a refusal with msg saying why.
 * Both are declared here, so a plugin compiles warning-free and exports
 * them even under -fvisibility=hidden; the library defines neither. */
#if defined(__GNUC__) && __GNUC__ >= 4
#define SLV_PLUGIN_EXPORT __attribute__((visibility("default")))
#else
#define SLV_PLUGIN_EXPORT
#endif
SLV_PLUGIN_EXPORT extern const int slv_plugin_abi;
SLV_PLUGIN_EXPORT slv_status slv_plugin_init(const char *origin, char *msg, size_t msglen);
typedef slv_status (*slv_plugin_init_fn)(const char *origin, char *msg, size_t msglen);
#define SLV_PLUGIN_ABI_DEFINE const int slv_plugin_abi = SLV_SOLVER_ABI

/* How many plugins a process may load. */
#define SLV_MAX_PLUGINS 32
/* Loads the plugin at path (its links resolved: dlopen by the real path,
 * no search path) and registers its solvers: SLV_OK (also when that file
 * is loaded already: nothing is done), or SLV_ERR_INVALID with err (size
 * len) naming the plugin and what was wrong: not found, not a shared
 * library, not an lcplab plugin (no slv_plugin_abi or slv_plugin_init),
 * built for another SLV_SOLVER_ABI (both numbers), a solver name taken,
 * no solver registered here.  A plugin is never unloaded; thread-safe. */
SLV_API slv_status slv_plugin_load(const char *path, char *err, size_t len);
/* Each plugin of a colon-separated list (LCPLAB_PLUGINS; empty entries
 * skipped, NULL: none), in order, up to the first failure: as above. */
SLV_API slv_status slv_plugins_load_list(const char *list, char *err, size_t len);
/* The plugins loaded, in load order: how many, and plugin i's real path
 * (NULL if out of range). */
SLV_API int slv_plugin_count(void);
SLV_API const char *slv_plugin_path(int i);

/* Human-readable list of what the solver accepts, e.g. "lcp box free findex
 * dense csr"; buf of size len. */
SLV_API void slv_solver_caps_str(const slv_solver *s, char *buf, size_t len);

/* Can solver s take problem p?  SLV_OK if yes, else SLV_ERR_UNSUPPORTED and msg.
 * A refusal that is an implementation limit of this library, not a
 * property of the method (a dense-only code on a CSR problem past the
 * densify cap, a dense-only code on factored storage, enum's n or case
 * cap), says so in msg: "an implementation limit". */
SLV_API slv_status slv_solver_accepts(const slv_solver *s, const slv_problem *p, char *msg,
                                      size_t msglen);

/* ---- workspace: generic new / solve / free ------------------------------ */
typedef struct slv_workspace slv_workspace;

/* Allocates the workspace of solver s for problems with n <= n_max: the
 * solver's state, the operator's buffers (one packed copy of A, the
 * factored form's K^T x) and the history (opt->max_iter + 1 entries and
 * their times when record_history).  Returns SLV_OK; on failure *out is
 * NULL and SLV_ERR_NOMEM / SLV_ERR_OPTIONS / SLV_ERR_DIM is returned.
 * Each thread needs its own workspace; the problem may be shared. */
SLV_API slv_status slv_workspace_new(const slv_solver *s, int n_max, const slv_options *opt,
                                     slv_workspace **out);
SLV_API void slv_workspace_free(slv_workspace *ws); /* NULL is fine */
SLV_API const slv_solver *slv_workspace_solver(const slv_workspace *ws);

/* The physical floor of the convergence test for the problems ws solves
 * from now on (docs/convergence.md, "A physical floor"): xf, an impulse in
 * x's units (N s for a world's contact and linear rows) below which the
 * caller cannot tell an impulse from rounding, e.g. a world's impulse of
 * gravity on its lightest body in one step.  Every measure of a solve on
 * ws (the solvers' stopping tests and the verdict) then reads xs as at
 * least xf and each row's reaction a_i min(xs, xd) as at least a_i xf:
 * an x within tol xf of an answer, whose w is within tol a_i xf, is
 * converged, so a problem whose b is rounding (a free fall's joint rows)
 * is converged at the first check.  The floor scales with x, not with A
 * and b, so the scalings the test ignores still change nothing.  xf = 0,
 * a new workspace's, is the test without a floor, bit for bit.  Returns
 * SLV_OK, or SLV_ERR_OPTIONS (ws unchanged) for a NULL ws or an xf that
 * is negative or not finite. */
SLV_API slv_status slv_workspace_set_floor(slv_workspace *ws, double xf);
/* ws's floor (0 for NULL). */
SLV_API double slv_workspace_floor(const slv_workspace *ws);

/* K^T x as the last slv_solve (or slv_solve_paused) on ws left it, for the
 * caller's factored problem p (A = J K^T + diag(d), slv.h's storage) and
 * its x: 6 p->nblk doubles, block b's at 6 b, each run of consecutive rows
 * on one block pair summed from 0 in row order and added into its blocks'
 * zeroed sums in row order (the same bits on any threads) -- or NULL
 * unless that solve was of p (the same slv_problem with the same n, nblk
 * and arrays, checked; the arrays' contents not changed since: the
 * caller's to keep), ended with exactly this x (compared bit
 * for bit with a copy the solve kept), and held K^T x in p's own block
 * numbers (none past 2 n_max blocks, no condensed problem).  Valid until
 * the next call with ws. */
SLV_API const double *slv_workspace_ktx(const slv_workspace *ws, const slv_problem *p,
                                        const double *x);

/* Solve p.  x: in/out, size n (read when opt->warm_start); w: out, size n,
 * or NULL.  res: out.  Returns res->status.  Never allocates; p is only
 * read.  Steps (docs/solver-machinery.md, "The operator layer"): options, size,
 * validation and capabilities; the start point; the operator over p's
 * storage; the solver; w = A x + b and the residuals recomputed; under a
 * time limit or a cancel callback the start returned where it is better
 * than the solver's iterate; the status decided on the x returned
 * (docs/convergence.md, "The verdict on the final iterate"): a "converged"
 * the residuals do not confirm downgraded, a failure whose x meets the
 * test converged (not an interrupted one), res->solver_status the
 * solver's own. */
SLV_API slv_status slv_solve(slv_workspace *ws, const slv_problem *p, const slv_options *opt,
                             double *x, double *w, slv_result *res);

/* Pauses between rounds of sweeps (docs/solver-machinery.md, "Pauses
 * between sweeps"): a Gauss-Seidel solver that takes them
 * (slv_solver_takes_pauses) stops after sweeps every, 2 every, ... (at
 * most count pauses, never after its last sweep) and calls fn with its
 * iterate x, in the problem's row order, and w = A x + b at it.  fn may
 * move x (within the bounds: the sweeps go on from it) and returns
 * nonzero when it did; the solver then takes up its sweeps from the new
 * x.  fn runs on the thread of the call, and must not call the library
 * with the same workspace. */
typedef int (*slv_pause_fn)(void *ctx, double *x, const double *w);
typedef struct slv_pauses {
  int every;       /* sweeps between two pauses, >= 1 */
  int count;       /* the most pauses in one solve, >= 0 */
  slv_pause_fn fn; /* the pause; NULL: none */
  void *ctx;       /* passed to fn */
} slv_pauses;

/* 1 iff solver s stops at slv_solve_paused's pauses (pgs and pgs_wide),
 * else 0 (s then solves as slv_solve does, without them). */
SLV_API int slv_solver_takes_pauses(const slv_solver *s);

/* slv_solve with pauses between rounds of sweeps (above); pz NULL, or a
 * solver that does not take them: slv_solve.  A pz with every < 1 or
 * count < 0 is refused (SLV_ERR_OPTIONS).  The iterations are the sweeps
 * of the one solve; the checks, the verdict and the returned w are
 * slv_solve's. */
SLV_API slv_status slv_solve_paused(slv_workspace *ws, const slv_problem *p, const slv_options *opt,
                                    const slv_pauses *pz, double *x, double *w, slv_result *res);

/* ---- global frictional-contact problems (docs/problem.md, "Global problems") --- */

/* What slv_condense found; set on every return. */
typedef struct slv_condense_info {
  int nblocks, block_max; /* M's diagonal blocks (connected parts of its pattern), largest */
  int sparse_blocks;      /* blocks factored by the sparse Cholesky (CHOLMOD) */
  int bad_dof;            /* M not positive definite: a dof of the failing block; else -1 */
  int asym_i, asym_j;     /* M not symmetric: M(i,j) != M(j,i); else -1 */
  double asym_ij, asym_ji;
  double bytes; /* the memory the condensation needs (before it allocates) */
  long nnz_W;   /* entries of W */
} slv_condense_info;

/* The local problem of the global one  M v = H r + f,  u = H' v + w:
 *     W = H' M^-1 H  (block sparse, CSR: rows sorted, exactly symmetric),
 *     q = w + H' M^-1 f.
 * M: ndof x ndof CSR (both triangles; duplicates add up), symmetric to
 * 1e-10 of its largest entry per diagonal block, positive definite; H:
 * ndof x n CSR; f: ndof; w, q: n.  M is factored by diagonal blocks (the
 * connected parts of its pattern): a single dof by its pivot, larger
 * blocks through libsolvers' linear-system interface, dense LAPACK up to
 * 600 dofs, a sparse Cholesky (CHOLMOD) above; W is never dense.  *Wp (n + 1), *Wj, *Wx are allocated (free()
 * each).  Statuses: SLV_ERR_UNSUPPORTED (M not symmetric, not positive
 * definite: info says where), SLV_ERR_DIM (more than max_bytes needed, or
 * W beyond int indices), SLV_ERR_INVALID (bad sizes or indices),
 * SLV_ERR_NOMEM. */
SLV_API slv_status slv_condense(int ndof, int n, const int *Mp, const int *Mj, const double *Mx,
                                const int *Hp, const int *Hj, const double *Hx, const double *f,
                                const double *w, double max_bytes, int **Wp, int **Wj, double **Wx,
                                double *q, slv_condense_info *info);

/* The problem p with its rows outside keep eliminated at the answer x
 * (docs/problem.md, "Rows condensed at an answer"): a row not kept whose
 * x_i lies strictly inside its bounds (every equality row; an active limit,
 * a motor below its force) has w_i = 0 there and is solved for; one at a
 * bound keeps x_i, its column moved into b.  With K the kept rows (in
 * order), E those eliminated and B those at a bound:
 *     A' = A_KK - A_KE A_EE^-1 A_EK,
 *     b' = b_K + A_KB x_B - A_KE A_EE^-1 (b_E + A_EB x_B),
 * exact at that split (the same x_K gives the same w_K, x_E solved).  Ak:
 * nk x nk column-major (lda nk), bk: nk, nk = the kept rows' number;
 * *neliminated: |E| (may be NULL).  A dense, CSR or factored.  Statuses:
 * SLV_ERR_UNSUPPORTED (A_EE singular), SLV_ERR_INVALID, SLV_ERR_NOMEM;
 * err (may be NULL) says which. */
SLV_API slv_status slv_condense_rows(const slv_problem *p, const double *x,
                                     const unsigned char *keep, double *Ak, double *bk,
                                     int *neliminated, char *err, size_t len);

/* A global problem whose rows are of every kind (joint rows with their
 * cfm and bounds, contacts), for slv_condense_rows_global:
 *     M v = f + J' x,     w_row = J v + w + cfm x,     H = J'.
 * Borrowed arrays, only read. */
typedef struct slv_global_rows {
  int ndof, n;        /* dofs (rows of M and H), rows (columns of H) */
  const int *Mp, *Mj; /* M: ndof x ndof CSR, both triangles, SPD */
  const double *Mx;
  const int *Hp, *Hj; /* H = J': ndof x n CSR */
  const double *Hx;
  const double *f, *w;         /* ndof, n */
  const double *cfm, *lo, *hi; /* n each: the rows' cfm (>= 0) and bounds */
} slv_global_rows;

/* A global problem M v = H r + f, u = H' v + w (FCLIB's form), its arrays
 * malloc'd (slv_global_form_free, or free() each). */
typedef struct slv_global_form {
  int ndof, n;
  int *Mp, *Mj; /* ndof x ndof CSR, both triangles */
  double *Mx;
  int *Hp, *Hj; /* ndof x n CSR */
  double *Hx;
  double *f, *w; /* ndof, n */
} slv_global_form;
SLV_API void slv_global_form_free(slv_global_form *g); /* the arrays; g zeroed; NULL is fine */

/* What slv_condense_rows_global did; set on every return. */
typedef struct slv_condense_global_info {
  int neliminated, nbound; /* rows of E and of B (as slv_condense_rows) */
  int nsoft;               /* rows of E with cfm > 0, folded into M */
  int nhard;               /* rows of E with cfm = 0, eliminated by a null-space basis */
  int redundant;           /* hard rows dependent on the others (rank deficit), consistent */
  int nblocks, block_max;  /* diagonal blocks of M_r, the largest's coordinates */
} slv_condense_global_info;

/* The global form of slv_condense_rows' problem (docs/problem.md, "Rows
 * condensed at an answer, global form"): in's rows outside keep eliminated
 * at the answer x (n values) with slv_condense_rows' split (E strictly
 * inside the bounds, B at a bound, x_B held), E's soft rows (cfm > 0)
 * folded into M' = M + J_s' C^-1 J_s, its hard rows (cfm = 0) by
 * coordinates v = N z + v0 (N an orthonormal basis of their null space,
 * by blocks of coupled dofs, a free block keeping z = v):
 *     M_r = N' M' N,  H_r = N' J_K',  f_r = N'(f' - M' v0),  w_r = w_K + J_K v0,
 * so that H_r' M_r^-1 H_r and w_r + H_r' M_r^-1 f_r are slv_condense_rows'
 * A' and b' of the local problem A = J M^-1 J' + diag(cfm), b = w + J M^-1
 * f.  out: n = the kept rows (in order), z's size out->ndof.  Statuses:
 * SLV_ERR_UNSUPPORTED (hard rows dependent and inconsistent), SLV_ERR_INVALID
 * (bad sizes or indices, a kept row with cfm != 0), SLV_ERR_NOMEM; err (may
 * be NULL) says which; out is zeroed on failure. */
SLV_API slv_status slv_condense_rows_global(const slv_global_rows *in, const double *x,
                                            const unsigned char *keep, slv_global_form *out,
                                            slv_condense_global_info *info, char *err, size_t len);

/* The velocities of a global problem at an answer r (n = 3 nc values):
 * v = M^-1 (H r + f) (ndof values) and u = H' v + w (n values), M
 * factored by diagonal blocks as in slv_condense.  Statuses as there. */
SLV_API slv_status slv_global_velocities(int ndof, int n, const int *Mp, const int *Mj,
                                         const double *Mx, const int *Hp, const int *Hj,
                                         const double *Hx, const double *f, const double *w,
                                         const double *r, double *v, double *u);

/* The velocity-level accuracy of an answer x of a cone problem whose A is
 * a condensed W = H' M^-1 H (docs/problem.md, "Global problems"):
 *     ||A F(x)||_2 / (1 + ||b||_2),
 * F the natural map of the cones (by p->cone_law): the change of the
 * velocities u that the residual asks for; F's part in null(H) = null(W)
 * does not count.  NaN when a row is in no cone.  scratch: 2 n doubles. */
SLV_API double slv_velocity_residual(const slv_problem *p, const double *x, double *scratch);

/* ---- sensitivities: derivatives of an answer (docs/gradients.md) -------- */
/* The derivative of an answer x of p with respect to p's data (A, b, lo,
 * hi, mu), by implicit differentiation of  x = mid(lo, hi, x - (A x + b))
 * at x with each row's mode held: forward (slv_sensitivity_jvp: seeds dA,
 * db, dlo, dhi, dmu -> dx) and reverse (slv_sensitivity_vjp: a cotangent gx
 * -> the gradients of <gx, x> on A, b, lo, hi, mu).  Rows of LCP, box and
 * findex rows and Coulomb cones of either law (dense, CSR or factored A);
 * a cone's mu is seeded and its gradient returned at its first (normal)
 * row of dmu / gmu. */
typedef struct slv_sensitivity slv_sensitivity;

/* A row's mode at the answer (slv_sensitivity_modes): the low two bits
 * are FREE (w_i = 0: lo_i < x_i < hi_i), LOWER or UPPER (x_i held at that
 * bound; a findex row's bounds are -+mu_i |x_j|); SLV_ROW_DEGENERATE is
 * added where the row is weakly active: x_i within tol of a bound and w_i
 * within tol of 0, both in the judge's normalisation (res_scaled's: x over
 * ||x||_inf, w_i over its row scale).  A degenerate row is held at its
 * nearer bound: the one-sided derivative for seeds that keep it there.
 * A cone's three rows share one mode: FREE (sticking: w_c = 0), LOWER
 * (separated: x_c held at the apex) or SLIDING (x_c on the cone's surface,
 * through the derivative of the projection onto it), degenerate within
 * tol of the edge between two of them (held at the apex where x_c is 0,
 * else as read). */
enum {
  SLV_ROW_FREE = 0,
  SLV_ROW_LOWER = 1,
  SLV_ROW_UPPER = 2,
  SLV_ROW_SLIDING = 3,
  SLV_ROW_DEGENERATE = 4
};

typedef struct slv_sensitivity_counts {
  int free, lower, upper; /* rows by mode (degenerate ones counted in lower or upper) */
  int sliding;            /* rows of sliding cones */
  int degenerate;         /* rows with SLV_ROW_DEGENERATE */
} slv_sensitivity_counts;

/* Reads every row's mode at x (n values, finite) with the judge's tol (the
 * solve's opt.tol; >= 0) and factors the reduced system of the free rows
 * (A_FF plus the findex coupling) once, by the linear-system layer: all
 * the allocation (a factored A is converted with slv_factored_csr_new).
 * p is borrowed, x copied: p must stay unchanged while *out lives.
 * SLV_OK; SLV_ERR_INVALID (p does not validate, x not finite, tol bad),
 * SLV_ERR_NOMEM, SLV_SINGULAR_PIVOT (the
 * free block is singular: no unique derivative); msg says which. */
SLV_API slv_status slv_sensitivity_new(const slv_problem *p, const double *x, double tol,
                                       slv_sensitivity **out, char *msg, size_t msglen);
SLV_API void slv_sensitivity_free(slv_sensitivity *s); /* NULL is fine */
/* Each row's SLV_ROW_* (n values, valid while s lives). */
SLV_API const unsigned char *slv_sensitivity_modes(const slv_sensitivity *s);
SLV_API slv_sensitivity_counts slv_sensitivity_count(const slv_sensitivity *s);
/* The free block's smallest pivot over its largest |entry| (L_ii^2 of a
 * Cholesky, |U_ii| of an LU; the row in *row, may be NULL): at most about
 * nf DBL_EPSILON, the block is singular but for rounding and the
 * derivative not unique though the factor completed.  NaN (row -1) when
 * there are no free rows or the back end does not report its pivots
 * (sparse ones, past SLV_LS_DENSE_MAX rows). */
SLV_API double slv_sensitivity_pivot_ratio(const slv_sensitivity *s, int *row);
/* The CSR pattern the seeds and gradients on A follow for a factored p
 * (its explicit A, slv_factored_csr_new's); a CSR p: p's own.  Returns its
 * nnz, or -1 for a dense p (seeds on A are then n x n, leading dimension n). */
SLV_API int slv_sensitivity_pattern(const slv_sensitivity *s, const int **Ap, const int **Aj);

/* dx (n) for the seeds (each may be NULL = 0): dA on A's layout (dense: n x
 * n column-major, leading dimension n; CSR / factored: nnz values on
 * slv_sensitivity_pattern's pattern), db, dlo, dhi, dmu (n each; dlo, dhi
 * read on held non-findex rows, dmu on held findex rows).  n must be the
 * problem's.  No allocation.  SLV_OK; SLV_ERR_DIM (n), SLV_ERR_INVALID (a
 * NaN or inf seed, named with its index). */
SLV_API slv_status slv_sensitivity_jvp(slv_sensitivity *s, int n, const double *dA,
                                       const double *db, const double *dlo, const double *dhi,
                                       const double *dmu, double *dx, char *msg, size_t msglen);
/* The gradients of <gx, x> (gx: n, finite): gA on A's layout (as dA
 * above), gb, glo, ghi, gmu (n each); any output may be NULL (not wanted).
 * One solve with the free block's transposed factor; no allocation.
 * Statuses as slv_sensitivity_jvp's. */
SLV_API slv_status slv_sensitivity_vjp(slv_sensitivity *s, int n, const double *gx, double *gA,
                                       double *gb, double *glo, double *ghi, double *gmu, char *msg,
                                       size_t msglen);

/* The gradients of <gx, x> on a global problem's data (docs/gradients.md,
 * "Global problems"), x an answer of its condensed problem W = H' M^-1 H,
 * q = w + H' M^-1 f, and gq the gradient on q (slv_sensitivity_vjp's gb
 * of that problem): gM (Mp[ndof] values, on M's stored entries), gH
 * (Hp[ndof]), gf (ndof), gw (n); any may be NULL.  scratch: 3 ndof + 3 n
 * doubles.  M is factored by diagonal blocks (slv_global_velocities).
 * SLV_OK; SLV_ERR_INVALID (a NULL input, a NaN or inf in x or gq, named);
 * slv_global_velocities' statuses; msg says which. */
SLV_API slv_status slv_sensitivity_global_vjp(int ndof, int n, const int *Mp, const int *Mj,
                                              const double *Mx, const int *Hp, const int *Hj,
                                              const double *Hx, const double *f, const double *x,
                                              const double *gq, double *gM, double *gH, double *gf,
                                              double *gw, double *scratch, char *msg, size_t len);

#ifdef __cplusplus
}
#endif
#endif /* SLV_H */
