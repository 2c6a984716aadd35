/* tst_util.h -- numeric assertions and helpers shared by the CUnit programs.
 *
 * TST_CLOSE(actual, expected, atol, rtol) passes iff
 *     |actual - expected| <= atol + rtol * |expected|
 * and both are finite (or both the same infinity); on failure it prints the
 * observed and expected values.  TST_VEC_CLOSE does the same elementwise and
 * reports the worst index.  NaN never passes.
 */
#ifndef TST_UTIL_H
#define TST_UTIL_H

#include <CUnit/CUnit.h>
#include <stddef.h>

int tst_close(double actual, double expected, double atol, double rtol, const char *expr,
              const char *file, int line);
int tst_vec_close(const double *a, const double *e, int n, double atol, double rtol,
                  const char *expr, const char *file, int line);

#define TST_CLOSE(a, e, atol, rtol)                                                                \
  CU_assertImplementation(tst_close((a), (e), (atol), (rtol), #a, __FILE__, __LINE__), __LINE__,   \
                          "TST_CLOSE(" #a ", " #e ")", __FILE__, "", CU_FALSE)
#define TST_VEC_CLOSE(a, e, n, atol, rtol)                                                         \
  CU_assertImplementation(tst_vec_close((a), (e), (n), (atol), (rtol), #a, __FILE__, __LINE__),    \
                          __LINE__, "TST_VEC_CLOSE(" #a ", " #e ")", __FILE__, "", CU_FALSE)

/* Run all registered suites with the basic interface (verbose), print the
 * summary, clean the registry; returns the exit code for main (0 iff no
 * failure).  Call after adding suites. */
int tst_run(void);

/* 1 when the heavy cases run short: under valgrind's memcheck
 * (tests/valgrind.sh sets LCPLAB_VALGRIND=1), in a build with
 * AddressSanitizer (the sanitizer and fuzz builds), where the memory is
 * what is checked, and with LCPLAB_SHORT_RUNS=1 (a run for the code a
 * second compiler makes, not for the long physics runs); else
 * 0.  There the heavy cases run one instance of each code path they reach
 * (one seed, fewer steps, smaller sizes over the same thresholds), as each
 * case says; the plain build's make check runs every case in full and
 * asserts what the long runs show (settling, energy, convergence counts).
 * Under the sanitizers the long runs took about a fifth of the test
 * command's time (experiments/records/2026-11-28-ci-timeout.md). */
int tst_short_runs(void);
/* 1 under valgrind's memcheck (tests/valgrind.sh sets LCPLAB_VALGRIND=1):
 * for the cases whose size is the point (a dispatch threshold, a block
 * over the dense limit), which memcheck skips and the sanitizer and plain
 * builds run (experiments/records/2026-11-28-test-time-3.md). */
int tst_under_memcheck(void);

/* Path of a file under ../shared (env LCPLAB_SHARED, else "../shared"),
 * written to buf; returns 1 if the shared tree exists, 0 otherwise (tests
 * then print "SKIP: ..." and return). */
int tst_shared_path(const char *rel, char *buf, size_t len);

/* Planted problem generator (GSL mt19937 with the given seed):
 * A = B B^T / n + eps I (dense column-major, n x n, caller's arrays),
 * choose x* and w* satisfying the box conditions for the given lo/hi
 * (x* strictly inside, at lo or at hi with probability 1/3 each when the
 * bounds are finite), and set b = w* - A x*.  lo/hi are read, not written. */
void tst_planted_spd(int n, double eps, unsigned long seed, const double *lo, const double *hi,
                     double *A, double *b, double *xstar);

/* Independent recomputation of ||mid(x - hi, w, x - lo)||_inf for dense A
 * (lo/hi NULL = 0/+inf), no findex: the test's own check of a solution. */
/* The library's convergence measure res_scaled written out again from its
 * definition (docs/convergence.md), for dense column-major A: per row
 * |mid((x - hi)/xs, w/s, (x - lo)/xs)|, xs = ||x||_inf, s = |b_i| +
 * |(A x)_i| + the reaction (A x in long double); the largest.  _findex:
 * rows with findex[i] >= 0 take the bounds +-mu_i |x_findex[i]|.
 * tst_scaled_row: one row, given (A x)_i and its reaction.  tst_reaction:
 * |A_ii| min(xs, xd), or where A_ii = 0 sum_j |A_ij| min(xs, xd); tst_alone: the row's answer alone from 0, -b_i / A_ii
 * clipped to [lo, hi] (|b_i| / sum_j |A_ij| where A_ii = 0); xd is the
 * largest of those. */
double tst_scaled_row(double x, double ax, double b, double react, double lo, double hi, double xs);
double tst_reaction(int n, const double *A, int i, double xs, double xd);
double tst_alone(int n, const double *A, const double *b, double lo, double hi, int i);
double tst_scaled_dense(int n, const double *A, const double *b, const double *lo, const double *hi,
                        const double *x);
double tst_scaled_dense_findex(int n, const double *A, const double *b, const double *lo,
                               const double *hi, const int *findex, const double *mu,
                               const double *x);
double tst_natres_dense(int n, const double *A, const double *b, const double *lo, const double *hi,
                        const double *x);

/* The nonzeros of a dense column-major n x n A as CSR rows, columns
 * increasing (Ap: n + 1; Aj, Ax: room for every nonzero); returns nnz. */
int tst_dense_to_csr(int n, const double *A, int *Ap, int *Aj, double *Ax);

/* A new temporary folder /tmp/lcplab_NAME_XXXXXX (mkdtemp) into dir (size
 * len >= 64); 0 on success, -1 otherwise. */
int tst_tmpdir_make(char *dir, size_t len, const char *name);

/* Removes the files of a folder made by tst_tmpdir_make, then the folder
 * (not recursive: the tests write files only); 0 always, as CUnit's suite
 * cleanup expects. */
int tst_tmpdir_remove(const char *dir);

/* dir/name into buf. */
void tst_tmp_path(char *buf, size_t len, const char *dir, const char *name);

/* A cancel callback for slv_options.cancel (ctx: a tst_counter): counts
 * its calls, asks to stop from call `fire` on (0: never). */
typedef struct {
  int calls, fire;
} tst_counter;
int tst_count_and_fire(void *ctx);

#endif
