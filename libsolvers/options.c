/* options.c -- defaults and validation of slv_options.
 *
 * Options come only from slv_options_default(), which stamps a private cookie
 * [Box2D's def cookie]; slv_solve refuses a struct without it
 * (SLV_ERR_OPTIONS), which catches uninitialised stack structs. */
#include "slv_internal.h"

slv_options slv_options_default(void) {
  /* a designated initializer, so that a field added later and not named here
   * is zero rather than stack garbage (as norm once was) */
  slv_options o = {
    .max_iter = SLV_DEFAULT_MAX_ITER,
    .tol = SLV_DEFAULT_TOL,
    .norm = SLV_NORM_INF,
    .omega = SLV_DEFAULT_OMEGA,
    .damping = 0.0,
    .pivot_tol = SLV_DEFAULT_PIVOT_TOL,
    .warm_start = 0,
    .record_history = 0,
    .check_every = SLV_DEFAULT_CHECK_EVERY,
    .max_pivots = 0,
    .covering = NULL,
    .seed = 1,
    .simd = SLV_SIMD_AUTO,
    .threads = 1,
    .log_fn = NULL,
    .log_ctx = NULL,
    .log_level_fn = NULL,
    .log_level = SLV_LOG_DEBUG,
    .time_limit = 0.0,
    .cancel = NULL,
    .cancel_ctx = NULL,
    .magic = SLV_OPTIONS_MAGIC,
  };
  return o;
}

slv_status slv_options_validate(const slv_options *o, char *msg, size_t len) {
  if (!o || o->magic != SLV_OPTIONS_MAGIC) {
    slv_msgf(msg, len, "options not initialised by slv_options_default()");
    return SLV_ERR_OPTIONS;
  }
  if (o->max_iter < 1) {
    slv_msgf(msg, len, "max_iter=%d must be >= 1", o->max_iter);
    return SLV_ERR_OPTIONS;
  }
  if (!(o->tol > 0) || !isfinite(o->tol)) {
    slv_msgf(msg, len, "tol=%g must be finite and > 0", o->tol);
    return SLV_ERR_OPTIONS;
  }
  if (o->threads < 1 || o->threads > SLV_THREADS_MAX) {
    slv_msgf(msg, len, "threads=%d must be in [1, %d]", o->threads, SLV_THREADS_MAX);
    return SLV_ERR_OPTIONS;
  }
  if (!(o->omega > 0 && o->omega < 2)) {
    slv_msgf(msg, len, "omega=%g must be in (0, 2)", o->omega);
    return SLV_ERR_OPTIONS;
  }
  if (!(o->damping >= 0) || !isfinite(o->damping)) {
    slv_msgf(msg, len, "damping=%g must be finite and >= 0 (0 = automatic)", o->damping);
    return SLV_ERR_OPTIONS;
  }
  if (!(o->pivot_tol >= 0) || !(o->pivot_tol < 1)) {
    slv_msgf(msg, len, "pivot_tol=%g must be in [0, 1)", o->pivot_tol);
    return SLV_ERR_OPTIONS;
  }
  if (o->max_pivots < 0) {
    slv_msgf(msg, len, "max_pivots=%d must be >= 0 (0 = automatic)", o->max_pivots);
    return SLV_ERR_OPTIONS;
  }
  if (o->norm != SLV_NORM_INF && o->norm != SLV_NORM_2) {
    slv_msgf(msg, len, "norm=%d must be SLV_NORM_INF (0) or SLV_NORM_2 (2)", o->norm);
    return SLV_ERR_OPTIONS;
  }
  if (o->check_every < 1) {
    slv_msgf(msg, len, "check_every=%d must be >= 1", o->check_every);
    return SLV_ERR_OPTIONS;
  }
  if (o->log_level < SLV_LOG_ERROR || o->log_level > SLV_LOG_DEBUG) {
    slv_msgf(msg, len, "log_level=%d must be in SLV_LOG_ERROR (0) .. SLV_LOG_DEBUG (3)",
             o->log_level);
    return SLV_ERR_OPTIONS;
  }
  if (!(o->time_limit >= 0)) {
    slv_msgf(msg, len, "time_limit=%g must be >= 0 (0 = none)", o->time_limit);
    return SLV_ERR_OPTIONS;
  }
  if (o->simd != SLV_SIMD_AUTO && o->simd != SLV_SIMD_OFF) {
    slv_msgf(msg, len, "simd=%d must be SLV_SIMD_AUTO (0) or SLV_SIMD_OFF (1)", o->simd);
    return SLV_ERR_OPTIONS;
  }
  return SLV_OK;
}
