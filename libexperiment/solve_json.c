/* solve_json.c -- one solve as the JSON object of `lcplab solve`
 * (docs/lcplab.1, "solve"; cli/cmd_solve.c lists the fields): the
 * velocities of a global problem the object reports, and the JSON writer
 * with its string and number rules (RFC 8259: control characters escaped, invalid UTF-8 as
 * U+FFFD; NaN and infinities as null).  The writer writes to the caller's
 * stream only; it prints no message.
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "exp_internal.h"

/* ---- JSON values ----------------------------------------------------------------- */

/* Length of the valid UTF-8 sequence at s, or 0 if the bytes there are not
 * one (overlong forms, surrogates and code points above U+10FFFF rejected). */
static size_t utf8_len(const unsigned char *s) {
  unsigned c = s[0];
  if (c < 0x80) return 1;
  size_t n;
  unsigned cp;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
    cp = c & 0x1F;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    cp = c & 0x0F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    cp = c & 0x07;
  } else {
    return 0;
  }
  for (size_t k = 1; k < n; k++) {
    if ((s[k] & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (s[k] & 0x3F);
  }
  if ((n == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
      (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
    return 0;
  return n;
}

/* The escape of byte c inside a JSON string, or NULL when c needs none or
 * the \u form. */
static const char *json_escape(unsigned c) {
  switch (c) {
  case '"': return "\\\"";
  case '\\': return "\\\\";
  case '\b': return "\\b";
  case '\f': return "\\f";
  case '\n': return "\\n";
  case '\r': return "\\r";
  case '\t': return "\\t";
  default: return NULL;
  }
}

void exp_json_string(FILE *f, const char *s) {
  const unsigned char *p = (const unsigned char *)(s ? s : "");
  fputc('"', f);
  while (*p) {
    const char *esc = json_escape(*p);
    size_t n = esc || *p < 0x20 || *p == 0x7F ? 1 : utf8_len(p);
    if (esc)
      fputs(esc, f);
    else if (*p < 0x20 || *p == 0x7F)
      fprintf(f, "\\u%04x", *p);
    else if (n == 0)
      fputs("\\ufffd", f);
    else
      fwrite(p, 1, n, f);
    p += n ? n : 1;
  }
  fputc('"', f);
}

void exp_json_number(FILE *f, double v, int digits) {
  if (isfinite(v))
    fprintf(f, "%.*g", digits, v);
  else
    fputs("null", f);
}

/* ---- a global problem's velocities ----------------------------------------------- */

static double norm2(int n, const double *x) {
  double s = 0;
  for (int i = 0; i < n; i++) s += x[i] * x[i];
  return sqrt(s);
}

int exp_solve_global(const io_instance *inst, const double *x, exp_solve_report *r) {
  const slv_global_form *gl = inst->global;
  r->ndof = 0;
  if (!gl) return 0;
  int n = inst->n;
  double *v = malloc(((size_t)gl->ndof + 1) * sizeof(double));
  double *u = malloc(((size_t)n + 1) * sizeof(double));
  double *scratch = malloc((2 * (size_t)n + 1) * sizeof(double));
  slv_status st = v && u && scratch
                      ? slv_global_velocities(gl->ndof, n, gl->Mp, gl->Mj, gl->Mx, gl->Hp, gl->Hj,
                                              gl->Hx, gl->f, gl->w, x, v, u)
                      : SLV_ERR_NOMEM;
  if (!st) {
    slv_problem p = io_instance_problem(inst);
    r->ndof = gl->ndof;
    r->v_norm_2 = norm2(gl->ndof, v);
    r->u_norm_2 = norm2(n, u);
    r->res_vel = slv_velocity_residual(&p, x, scratch);
    r->condense_s = inst->condense_s;
  }
  free(v);
  free(u);
  free(scratch);
  return st ? -1 : 0;
}

/* ---- the JSON object ------------------------------------------------------------- */

/* ,"name[k]":v[k] for k < count, every number with 17 digits. */
static void put_numbers(FILE *f, const char *const *name, const double *v, int count) {
  for (int k = 0; k < count; k++) {
    fprintf(f, ",\"%s\":", name[k]);
    exp_json_number(f, v[k], 17);
  }
}

/* ,"name":"value" */
static void put_string(FILE *f, const char *name, const char *value) {
  fprintf(f, ",\"%s\":", name);
  exp_json_string(f, value);
}

/* ,"name":value with `digits` digits */
static void put_number(FILE *f, const char *name, double v, int digits) {
  fprintf(f, ",\"%s\":", name);
  exp_json_number(f, v, digits);
}

/* ContactBench's criteria (slv.h, slv_contact_metrics; docs/problem.md,
 * "Contact metrics"), cone problems only. */
static void put_cone(FILE *f, const io_instance *inst, const slv_residuals *r) {
  const slv_contact_metrics *m = &r->contact;
  const char *const name[6] = { "signorini", "conic_compl", "ncp_compl",
                                "dual_feas", "primal_feas", "mdp_gap" };
  double v[6] = { m->signorini, m->conic_compl, m->ncp_compl,
                  m->dual_feas, m->primal_feas, m->mdp_gap };
  if (inst->ncones <= 0) return;
  put_string(f, "cone_law", slv_cone_law_str(inst->cone_law));
  put_number(f, "merit_fclib", r->merit_fclib, 17);
  put_numbers(f, name, v, 6);
}

/* The test's measure and the literature's (docs/convergence.md). */
static void put_measures(FILE *f, const slv_residuals *r) {
  const char *const name[6] = { "res_scaled", "siconos_err", "err_siconos",
                                "res_rel_1q", "res_contact", "res_global" };
  double v[6] = { r->res_scaled, r->siconos_err, r->err_siconos,
                  r->res_rel_1q, r->res_contact, r->res_global };
  put_numbers(f, name, v, 6);
  if (r->res_contact_at >= 0)
    fprintf(f, ",\"res_contact_at\":%td", r->res_contact_at);
  else
    fputs(",\"res_contact_at\":null", f);
}

/* The velocities of a problem read from a global one (docs/problem.md,
 * "Global problems"). */
static void put_global(FILE *f, const exp_solve_report *r) {
  if (!r->ndof) return;
  const char *const name[3] = { "v_norm_2", "u_norm_2", "res_vel" };
  double v[3] = { r->v_norm_2, r->u_norm_2, r->res_vel };
  fprintf(f, ",\"ndof\":%d", r->ndof);
  put_numbers(f, name, v, 3);
  put_number(f, "read_s", r->read_s, 6);
  put_number(f, "condense_s", r->condense_s, 6);
}

/* "options_from_file":[...]: what the file's record gave. */
static void put_from_file(FILE *f, const exp_solve_report *r) {
  const io_instance *inst = r->inst;
  if (!inst->solver[0] && !inst->opt_given) return;
  int first = r->flags->have_solver || !inst->solver[0];
  fprintf(f, ",\"options_from_file\":[%s", first ? "" : "\"solver\"");
  for (int k = 0; k < IO_OPT_COUNT; k++)
    if (exp_solve_from_file(r->flags, inst, 1u << k)) {
      fprintf(f, "%s\"%s\"", first ? "" : ",", io_option_name(k));
      first = 0;
    }
  fputc(']', f);
}

/* The solve's result: status, residuals, measures, velocities, counts. */
static void put_result(FILE *f, const exp_solve_report *r) {
  const slv_result *res = r->res;
  fprintf(f, ",\"n\":%d", r->inst->n);
  put_string(f, "status", slv_status_str(res->status));
  fprintf(f, ",\"iterations\":%d", res->iterations);
  put_number(f, "time_s", r->t_median, 6);
  const char *const name[4] = { "res_nat_inf", "res_rel", "compl", "infeas" };
  double v[4] = { res->res.res_nat_inf, res->res.res_rel, res->res.compl, res->res.infeas };
  put_numbers(f, name, v, 4);
  put_cone(f, r->inst, &res->res);
  put_number(f, "res_rel_2", res->res.res_rel_2, 17);
  put_measures(f, &res->res);
  put_global(f, r);
  fprintf(f, ",\"pivots\":%d", res->pivots);
  put_number(f, "solver_residual", res->solver_residual, 17);
  /* the solver's own status, where the verdict on its x differs */
  if (res->solver_status != res->status)
    put_string(f, "solver_status", slv_status_str(res->solver_status));
  put_number(f, "time_min_s", r->t_min, 6);
}

/* The options the solve ran with, and where they came from. */
static void put_options(FILE *f, const exp_solve_report *r) {
  const slv_options *opt = r->opt;
  fprintf(f, ",\"repeat\":%ld", r->repeat);
  put_number(f, "tol", opt->tol, 17);
  fprintf(f, ",\"norm\":\"%s\"", opt->norm == SLV_NORM_2 ? "2" : "inf");
  fprintf(f, ",\"max_iter\":%d", opt->max_iter);
  put_number(f, "omega", opt->omega, 17);
  fprintf(f, ",\"threads\":%d", opt->threads);
  fprintf(f, ",\"warm_start\":%s", opt->warm_start ? "true" : "false");
  put_string(f, "format", io_format_str(r->inst->format));
  put_from_file(f, r);
}

int exp_solve_json(FILE *f, const exp_solve_report *r) {
  const slv_result *res = r->res;
  fputs("{\"instance\":", f);
  exp_json_string(f, r->instance);
  put_string(f, "solver", r->solver->name);
  if (res->choice[0]) { /* solver auto: which one ran, and why */
    put_string(f, "chosen", res->method);
    put_string(f, "choice", res->choice);
  }
  put_string(f, "kind", r->inst->kind);
  put_result(f, r);
  put_options(f, r);
  if (res->status != SLV_CONVERGED || res->solver_status != res->status)
    put_string(f, "message", res->message);
  if (res->diagnosis[0]) /* why it could not converge, where the library tells (a wedge) */
    put_string(f, "diagnosis", res->diagnosis);
  if (r->flags->history) {
    fputs(",\"history\":[", f);
    for (int k = 0; res->history && k < res->history_len; k++) {
      if (k) fputc(',', f);
      exp_json_number(f, res->history[k], 17);
    }
    fputc(']', f);
  }
  fputs("}\n", f);
  return ferror(f) ? -1 : 0;
}
