/* rows.c -- the CSV of each section kind: its columns (exp_csv_header,
 * the second CSV's, exp_col; a drift or accuracy row's metric columns are
 * libdynamics' table's, DYN_METRICS_DRIFT and DYN_METRICS_ACCURACY,
 * dyn_run.h) and the rows a task builds field by field
 * (exp_line_*, exp_problem_row: a problem task's row, built-in or
 * external solver alike).  experiments/README.md, "CSV format", gives the
 * columns' meaning; a field holding ',' or '"' is quoted (RFC 4180).
 */
#include "exp_grad.h"
#include "exp_task.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- CSV layout ---------------------------------------------------------------------- */

/* The last columns of profile and scaling rows: the test's measure and the
 * literature's (slv.h, slv_residuals; docs/convergence.md). */
#define EXP_MEASURE_COLS "res_scaled,siconos_err,err_siconos,res_rel_1q"

static void measure_cols(exp_line *l, const slv_residuals *r) {
  const double v[4] = { r ? r->res_scaled : NAN, r ? r->siconos_err : NAN, r ? r->err_siconos : NAN,
                        r ? r->res_rel_1q : NAN };
  for (int k = 0; k < 4; k++) {
    if (isnan(v[k]))
      exp_line_empty(l);
    else
      exp_line_num(l, v[k]);
  }
}

const char *exp_csv_header(exp_kind k) {
  switch (k) {
  case EXP_CONVERGENCE:
    return "problem,kind,n,solver,status,iteration,time_s,res_scaled,final,class,method,"
           "time_source,tol,note";
  case EXP_PROFILE:
    return "problem,kind,n,solver,tol,status,iterations,pivots,time_s,time_min_s,repeats,"
           "res_rel,res_nat_inf,solved,class,nnz,contacts,cond_est,method,time_q1_s,time_q3_s,"
           "time_source,note,time_total_s," EXP_MEASURE_COLS
           ",x_digest,reported_solved,time_runs_s,replicate,peer_tol";
  case EXP_SCALING:
    return "family,problem,kind,n,solver,status,iterations,pivots,time_s,time_min_s,repeats,"
           "res_rel,class,nnz,method,time_q1_s,time_q3_s,solved,tol,note,time_total_"
           "s," EXP_MEASURE_COLS ",time_runs_s";
  case EXP_DRIFT: return "scene,solver,integrator,friction," DYN_METRICS_DRIFT ",note";
  case EXP_ACCURACY: return "scene,solver,integrator,friction," DYN_METRICS_ACCURACY ",note";
  case EXP_SCENES:
    return "scene,params,settings,solver,friction,steps,contacts_mean_timed,contacts_max,"
           "time_step_median_s,time_step_mean_s,time_per_contact_s,energy_start,energy_end,"
           "energy_drift,max_penetration_end,max_body_displacement,max_settled_displacement,"
           "not_converged,fallback_steps,status,note,joint_error_max";
  case EXP_GRADIENTS:
    return "problem,n,solver,status,mode,stable,rel_err,solve_s,vjp_s,note,fd_step";
  case EXP_FIDELITY:
    return "scene,judge,solver,friction,budget,steps,measured,analytic,error,tol,unit,pass,"
           "step_time_mean_s,converged_steps,solved_steps,converged_share,version,status,note";
  default: return "";
  }
}

const char *exp_csv2_suffix(exp_kind k) {
  return k == EXP_PROFILE                      ? "_profile"
         : k == EXP_SCALING || k == EXP_SCENES ? "_slopes"
         : k == EXP_GRADIENTS                  ? "_quality"
                                               : NULL;
}

const char *exp_csv2_header(exp_kind k) {
  if (k == EXP_PROFILE)
    return "tol,solver,tau,log2_tau,rho,solved_share,problems,class,refused,rho_all,"
           "solved_share_all,problems_all";
  if (k == EXP_SCALING) return "family,solver,points,slope,intercept,r2,slope_lo,slope_hi,class";
  if (k == EXP_GRADIENTS) return exp_grad_quality_header;
  if (k == EXP_SCENES)
    return "scene,settings,solver,points,slope,intercept,r2,slope_lo,slope_hi,"
           "time_per_contact_median_s";
  return NULL;
}

int exp_col(exp_kind k, const char *name) {
  const char *h = exp_csv_header(k);
  size_t nl = strlen(name);
  int col = 0;
  for (const char *c = h; *c; col++) {
    const char *e = strchr(c, ',');
    size_t fl = e ? (size_t)(e - c) : strlen(c);
    if (fl == nl && strncmp(c, name, nl) == 0) return col;
    if (!e) break;
    c = e + 1;
  }
  return -1;
}

/* ---- rows ------------------------------------------------------------------------------ */

/* Appends field v: in double quotes, " doubled, when it holds , or "
 * (RFC 4180, experiments/README.md "CSV format"); CR, LF and tab become
 * blanks (a result file holds one row a line). */
static void line_raw(exp_line *l, const char *v) {
  if (l->nf++ > 0 && l->len + 1 < sizeof l->s) l->s[l->len++] = ',';
  int q = exp_csv_needs_quotes(v);
  if (q && l->len + 2 < sizeof l->s) l->s[l->len++] = '"';
  for (; *v && l->len + 2 + (size_t)q < sizeof l->s; v++) {
    char ch = *v;
    if (ch == '\n' || ch == '\r' || ch == '\t') ch = ' ';
    if (ch == '"') l->s[l->len++] = '"';
    l->s[l->len++] = ch;
  }
  if (q) l->s[l->len++] = '"';
  l->s[l->len] = '\0';
}

void exp_line_str(exp_line *l, const char *v) { line_raw(l, v ? v : ""); }

void exp_line_num(exp_line *l, double v) {
  char b[32];
  if (isnan(v))
    snprintf(b, sizeof b, "nan");
  else if (isinf(v))
    snprintf(b, sizeof b, v > 0 ? "inf" : "-inf");
  else
    snprintf(b, sizeof b, "%.6e", v);
  line_raw(l, b);
}

void exp_line_int(exp_line *l, long v) {
  char b[32];
  snprintf(b, sizeof b, "%ld", v);
  line_raw(l, b);
}

void exp_line_empty(exp_line *l) { line_raw(l, ""); }

void exp_line_tol(exp_line *l, double tol) {
  char b[32];
  snprintf(b, sizeof b, "%g", tol);
  line_raw(l, b);
}

/* time_total_s: the seconds the timed runs took in all (external solvers:
 * their processes' wall time), what the repetition rule counted. */
static void row_total(exp_line *l, const exp_prow *r) {
  if (r->have_numbers)
    exp_line_num(l, r->wall_total > 0 ? r->wall_total : r->t.total);
  else
    exp_line_empty(l);
}

/* time_q1_s, time_q3_s: the quartiles of the runs (empty without numbers). */
static void quartile_cols(exp_line *l, const exp_prow *r) {
  if (r->have_numbers) {
    exp_line_num(l, r->t.q1);
    exp_line_num(l, r->t.q3);
  } else {
    exp_line_empty(l);
    exp_line_empty(l);
  }
}

/* time_runs_s: the runs' sample (exp_time_summary), blank-separated, for
 * pooling identical algorithms' runs (empty without numbers). */
static void runs_col(exp_line *l, const exp_prow *r) {
  char b[EXP_TSAMPLE * 16 + 1];
  size_t o = 0;
  b[0] = '\0';
  for (int j = 0; r->have_numbers && j < r->t.nsample && o + 16 < sizeof b; j++)
    o += (size_t)snprintf(b + o, sizeof b - o, "%s%.6e", j ? " " : "", r->t.sample[j]);
  exp_line_str(l, b);
}

void exp_problem_row(const exp_tctx *c, const exp_prow *r, exp_line *l) {
  const exp_prob *p = c->prob;
  const char *solver = exp_solver_name(&c->pl->cfg, &c->t->solver);
  memset(l, 0, sizeof *l);
  int num = r->have_numbers;
  if (c->s->kind == EXP_SCALING) {
    exp_line_str(l, p->family);
    exp_line_str(l, p->label);
    exp_line_str(l, p->kind);
    exp_line_int(l, p->n);
    exp_line_str(l, solver);
    exp_line_str(l, r->status);
  } else {
    exp_line_str(l, p->label);
    exp_line_str(l, p->kind);
    exp_line_int(l, p->n);
    exp_line_str(l, solver);
    exp_line_tol(l, r->tol);
    exp_line_str(l, r->status);
  }
  int res = num && !r->no_residuals;
  if (num) {
    exp_line_int(l, r->iterations);
    exp_line_int(l, r->pivots);
    exp_line_num(l, r->t.median);
    exp_line_num(l, r->t.min);
    exp_line_int(l, r->runs);
  } else {
    for (int k = 0; k < 5; k++) exp_line_empty(l);
  }
  if (res)
    exp_line_num(l, r->res_rel);
  else
    exp_line_empty(l);
  int solved = num && strcmp(r->status, "converged") == 0;
  if (c->s->kind == EXP_SCALING) {
    exp_line_str(l, exp_class_str(p->cls));
    exp_line_int(l, p->nnz);
    exp_line_str(l, num ? r->method : "");
    quartile_cols(l, r);
    exp_line_int(l, solved);
    exp_line_tol(l, r->tol);
    exp_line_str(l, r->note);
    row_total(l, r);
    measure_cols(l, num ? r->res : NULL);
    runs_col(l, r);
    return;
  }
  if (res)
    exp_line_num(l, r->res_nat_inf);
  else
    exp_line_empty(l);
  exp_line_int(l, solved);
  exp_line_str(l, exp_class_str(p->cls));
  exp_line_int(l, p->nnz);
  exp_line_int(l, p->contacts);
  exp_line_num(l, p->cond);
  exp_line_str(l, num ? r->method : "");
  quartile_cols(l, r);
  exp_line_str(l, num ? r->time_source : "");
  exp_line_str(l, r->note);
  row_total(l, r);
  measure_cols(l, num ? r->res : NULL);
  exp_line_str(l, num && r->x_digest ? r->x_digest : "");
  exp_line_str(l, r->reported_solved);
  runs_col(l, r);
  exp_line_int(l, c->t ? c->t->rep : 0); /* replicate: the pass (0: the section's own) */
  if (r->told_tol > 0.0) /* peer_tol: the tolerance an external was told (the ladder) */
    exp_line_tol(l, r->told_tol);
  else
    exp_line_empty(l);
}
