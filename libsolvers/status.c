/* status.c -- slv_status to string (a switch, so no table to keep in sync),
 * and the message, log and history helpers of slv_internal.h. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "slv_internal.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define SLV_FINITE_AVX2 1
#endif

const char *slv_status_str(slv_status s) {
  switch (s) {
  case SLV_ERR_OPTIONS: return "invalid_options";
  case SLV_ERR_NOMEM: return "out_of_memory";
  case SLV_ERR_DIM: return "bad_dimension";
  case SLV_ERR_UNSUPPORTED: return "unsupported";
  case SLV_ERR_INVALID: return "invalid_problem";
  case SLV_CONVERGED: return "converged";
  case SLV_MAX_ITER: return "max_iter";
  case SLV_STAGNATED: return "stagnated";
  case SLV_RAY_TERMINATION: return "ray_termination";
  case SLV_SINGULAR_PIVOT: return "singular_pivot";
  case SLV_NOT_FINITE: return "not_finite";
  case SLV_BREAKDOWN: return "breakdown";
  case SLV_NO_SOLUTION: return "no_solution";
  case SLV_TIME_LIMIT: return "time_limit";
  case SLV_INTERRUPTED: return "interrupted";
  case SLV_ERROR: return "error";
  }
  return "unknown_status";
}

const char *slv_cone_law_str(slv_cone_law law) {
  switch (law) {
  case SLV_CONE_COULOMB: return "coulomb";
  case SLV_CONE_ASSOCIATED: return "associated";
  }
  return "unknown_cone_law";
}

void slv_msgf(char *msg, size_t len, const char *fmt, ...) {
  if (!msg || len == 0) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, len, fmt, ap);
  va_end(ap);
}

const char *slv_log_level_str(slv_log_level level) {
  switch (level) {
  case SLV_LOG_ERROR: return "error";
  case SLV_LOG_WARNING: return "warning";
  case SLV_LOG_INFO: return "info";
  case SLV_LOG_DEBUG: return "debug";
  }
  return "unknown_log_level";
}

/* The one place a line leaves the library (slv.h, "logging"): to the
 * leveled callback if set, else to the plain one; only options that pass
 * validation, so that a garbage struct's pointers are never called. */
static void log_vline(const slv_options *opt, slv_log_level level, const char *fmt, va_list ap) {
  if (!opt || (!opt->log_fn && !opt->log_level_fn) || (int)level > opt->log_level) return;
  if (slv_options_validate(opt, NULL, 0) != SLV_OK) return;
  char line[256];
  vsnprintf(line, sizeof line, fmt, ap);
  if (opt->log_level_fn)
    opt->log_level_fn(opt->log_ctx, level, line);
  else
    opt->log_fn(opt->log_ctx, line);
}

void slv_log(const slv_options *opt, slv_log_level level, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  log_vline(opt, level, fmt, ap);
  va_end(ap);
}

void slv_logf(const slv_options *opt, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  log_vline(opt, SLV_LOG_DEBUG, fmt, ap);
  va_end(ap);
}

void slv_history_push(slv_hist *h, slv_result *res, double v) {
  if (res->history_len >= h->cap) return;
  /* the time of this entry, measured now (only a recorded history pays
   * for the clock: cap is 0 otherwise) */
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  h->val[res->history_len] = v;
  h->time[res->history_len] =
      (double)(now.tv_sec - h->t0.tv_sec) + 1e-9 * (double)(now.tv_nsec - h->t0.tv_nsec);
  res->history_len++;
}

/* The time `seconds` (>= 0) after t. */
static struct timespec time_after(const struct timespec *t, double seconds) {
  double whole = floor(seconds);
  long ns = t->tv_nsec + (long)((seconds - whole) * 1e9);
  struct timespec d = { .tv_sec = t->tv_sec + (time_t)whole + ns / 1000000000L,
                        .tv_nsec = ns % 1000000000L };
  return d;
}

void slv_poll_begin(slv_poll *q, const slv_options *opt, const struct timespec *t0) {
  q->timed = opt->time_limit > 0 && opt->time_limit < SLV_TIME_LIMIT_MAX;
  q->cancel = opt->cancel;
  q->cancel_ctx = opt->cancel_ctx;
  q->stop = SLV_CONVERGED;
  q->every = q->timed || q->cancel ? SLV_POLL_WORK : INFINITY;
  q->work = q->timed || q->cancel ? SLV_POLL_WORK : 0.0; /* the first poll is a slow one */
  if (!q->timed) return;
  q->deadline = time_after(t0, opt->time_limit);
}

static int deadline_passed(const struct timespec *deadline) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return now.tv_sec > deadline->tv_sec ||
         (now.tv_sec == deadline->tv_sec && now.tv_nsec >= deadline->tv_nsec);
}

/* A share f (0 <= f < 1) of the time left for the next stretch of a solve
 * (auto's portfolio): the deadline moves to now + f (deadline - now), the
 * whole one into *whole, and the next poll is a slow one.  0, nothing
 * changed, without a deadline, once a stop is seen or the deadline passed. */
int slv_poll_share(slv_poll *q, double f, struct timespec *whole) {
  if (!q || !q->timed || q->stop) return 0;
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  double left = (double)(q->deadline.tv_sec - now.tv_sec) +
                1e-9 * (double)(q->deadline.tv_nsec - now.tv_nsec);
  if (!(left > 0)) return 0;
  *whole = q->deadline;
  q->deadline = time_after(&now, f * left);
  q->work = q->every;
  return 1;
}

/* Back to the whole deadline after slv_poll_share: a time-limit stop the
 * share's deadline made is lifted while the whole one has not passed. */
void slv_poll_unshare(slv_poll *q, const struct timespec *whole) {
  q->deadline = *whole;
  if (q->stop == SLV_TIME_LIMIT && !deadline_passed(whole)) {
    q->stop = SLV_CONVERGED;
    q->every = SLV_POLL_WORK;
    q->work = SLV_POLL_WORK; /* the next poll is a slow one */
  }
}

slv_status slv_poll_slow(slv_poll *q) {
  q->work = 0.0;
  if (q->stop) return q->stop;
  if (q->cancel && q->cancel(q->cancel_ctx))
    q->stop = SLV_INTERRUPTED;
  else if (q->timed && deadline_passed(&q->deadline))
    q->stop = SLV_TIME_LIMIT;
  if (q->stop) q->every = 0.0;
  return q->stop;
}

#ifdef SLV_FINITE_AVX2
/* slv_all_finite's bulk four doubles per AVX2 operation (four sums deep,
 * 16 doubles an iteration): the same test; the entries [0, *done) are
 * covered by the returned bits (bit 63 set iff one is not finite). */
__attribute__((target("avx2"))) static uint64_t finite_bits_avx2(int n, const double *x,
                                                                 int *done) {
  const __m256i e = _mm256_set1_epi64x((long long)0x7ff0000000000000),
                one = _mm256_set1_epi64x((long long)0x0010000000000000);
  __m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0;
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    a0 = _mm256_or_si256(
        a0,
        _mm256_add_epi64(_mm256_and_si256(_mm256_loadu_si256((const __m256i *)(x + i)), e), one));
    a1 = _mm256_or_si256(
        a1, _mm256_add_epi64(_mm256_and_si256(_mm256_loadu_si256((const __m256i *)(x + i + 4)), e),
                             one));
    a2 = _mm256_or_si256(
        a2, _mm256_add_epi64(_mm256_and_si256(_mm256_loadu_si256((const __m256i *)(x + i + 8)), e),
                             one));
    a3 = _mm256_or_si256(
        a3, _mm256_add_epi64(_mm256_and_si256(_mm256_loadu_si256((const __m256i *)(x + i + 12)), e),
                             one));
  }
  uint64_t lanes[4];
  _mm256_storeu_si256((__m256i *)lanes,
                      _mm256_or_si256(_mm256_or_si256(a0, a1), _mm256_or_si256(a2, a3)));
  *done = i;
  return lanes[0] | lanes[1] | lanes[2] | lanes[3];
}
#endif

int slv_all_finite(int n, const double *x) {
  /* x is Inf or NaN iff its 11 exponent bits are all set, that is iff
   * (bits & EXP) + 2^52 reaches bit 63: integer ands, adds and ors over the
   * whole array, no early exit, no branch.  It checks every entry of a
   * dense A and of the factored J and K at each solve, so it runs four
   * doubles per AVX2 operation where the CPU has it, else two per SSE2
   * operation (four sums deep either way); the tail goes one at a time.
   * (The float form, sum of x * 0.0, ran at half the SSE2 rate.) */
  const uint64_t exp_bits = 0x7ff0000000000000u, low_exp = 0x0010000000000000u;
  uint64_t acc = 0;
  int i = 0;
#ifdef SLV_FINITE_AVX2
  if (n >= 16 && __builtin_cpu_supports("avx2")) acc = finite_bits_avx2(n, x, &i);
#endif
#if defined(__SSE2__)
  const __m128i e = _mm_set1_epi64x((long long)exp_bits), one = _mm_set1_epi64x((long long)low_exp);
  __m128i a0 = _mm_setzero_si128(), a1 = a0, a2 = a0, a3 = a0;
  for (; i + 8 <= n; i += 8) {
    a0 = _mm_or_si128(
        a0, _mm_add_epi64(_mm_and_si128(_mm_loadu_si128((const __m128i *)(x + i)), e), one));
    a1 = _mm_or_si128(
        a1, _mm_add_epi64(_mm_and_si128(_mm_loadu_si128((const __m128i *)(x + i + 2)), e), one));
    a2 = _mm_or_si128(
        a2, _mm_add_epi64(_mm_and_si128(_mm_loadu_si128((const __m128i *)(x + i + 4)), e), one));
    a3 = _mm_or_si128(
        a3, _mm_add_epi64(_mm_and_si128(_mm_loadu_si128((const __m128i *)(x + i + 6)), e), one));
  }
  uint64_t lanes[2];
  _mm_storeu_si128((__m128i *)lanes, _mm_or_si128(_mm_or_si128(a0, a1), _mm_or_si128(a2, a3)));
  acc |= lanes[0] | lanes[1];
#endif
  for (; i < n; i++) {
    uint64_t u;
    memcpy(&u, x + i, sizeof u);
    acc |= (u & exp_bits) + low_exp;
  }
  return !(acc >> 63);
}
