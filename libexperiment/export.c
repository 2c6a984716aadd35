/* export.c -- the files of one exported step (`lcplab export`, docs/lcplab.1,
 * "export"): the problem a scene's step solved, through libio's writer, to
 * DIR/SCENE_stepKKKKKK.EXT, the impulses the world applied to .x beside it,
 * with --global its form in the bodies' velocities (dyn_world_global_new), and one
 * JSON line naming them.  With --condense-joints the problem is the
 * contact rows' alone, the joint rows (the first joint_rows) condensed at
 * the step's answer (slv_condense_rows; docs/models.md, "Joint rows
 * condensed"), its global form too (dyn_world_global_condensed_new: the
 * same W and q, v in null-space coordinates), and .x the contact rows'
 * impulses.  Every error is one line to the caller's exp_log.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exp_internal.h"

typedef struct fmt_def {
  const char *name, *ext;
  io_format fmt;
} fmt_def;

/* The end of a reduced run's titles: its rows are in joint space
 * (docs/models.md, "Exports"). */
static const char reduced_title[] = ": reduced coordinates (joint-space rows)";

static const fmt_def formats[] = {
  { "dat", "dat", IO_FMT_AUTO }, /* the writer picks the Siconos layout from the problem */
  { "blcp", "blcp", IO_FMT_BLCP }, { "hdf5", "hdf5", IO_FMT_FCLIB },
  { "mtx", "mtx", IO_FMT_MTX },    { "lcplab", "lcp", IO_FMT_LCPLAB },
};
enum { NFORMATS = (int)(sizeof formats / sizeof formats[0]) };

/* The suffix of the global file beside a step's file of format fd, or
 * NULL when fd has no global form. */
static const char *global_sfx(const fmt_def *fd) {
  if (fd->fmt == IO_FMT_FCLIB) return "global.hdf5";
  return strcmp(fd->name, "dat") == 0 ? "global.dat" : NULL;
}

int exp_export_format(const exp_log *log, const char *name, int global) {
  int f = 0;
  while (f < NFORMATS && (!name || strcmp(formats[f].name, name) != 0)) f++;
  if (!name) {
    exp_say(log, EXP_SAY_ERROR, "export: missing --format (dat, blcp, hdf5, mtx or lcplab)");
  } else if (f == NFORMATS) {
    exp_say(log, EXP_SAY_ERROR,
            "export: --format must be one of dat, blcp, hdf5, mtx, lcplab, got '%s'", name);
  } else if (global && !global_sfx(&formats[f])) {
    exp_say(log, EXP_SAY_ERROR,
            "export: --global needs --format hdf5 (FCLIB) or dat (Siconos gfc3d), got --format %s",
            name);
  } else {
    return f;
  }
  return -1;
}

/* What of the export's format cannot take joint rows with w's contact
 * rows, or NULL when it can: FCLIB holds cones alone; a global form
 * (FCLIB's or Siconos gfc3d) contacts alone; a Siconos .dat is an LCP or
 * MLCP (no friction rows) or FC3D (every row in a cone). */
static const char *joint_rows_unheld(const exp_export *e, const dyn_world *w) {
  const fmt_def *fd = &formats[e->format];
  if (fd->fmt == IO_FMT_FCLIB)
    return "FCLIB (hdf5) holds frictional-contact problems alone (a Coulomb cone on every row)";
  if (e->global) return "the global form holds contact rows alone";
  if (strcmp(fd->name, "dat") == 0 &&
      dyn_world_get_settings(w)->contact.friction != DYN_FRICTION_NONE)
    return "a Siconos .dat holds joint rows only without friction rows (an LCP or MLCP), and "
           "friction only with every row in a cone (FC3D)";
  return NULL;
}

int exp_export_joint_rows_refused(const exp_export *e, const dyn_world *w) {
  if (e->condense || !dyn_world_joint_rows_possible(w)) return 0;
  const char *why = joint_rows_unheld(e, w);
  if (!why) return 0;
  exp_say(e->log, EXP_SAY_ERROR,
          "export: scene %s has joint rows (%s) and %s: nothing written; rerun with "
          "--condense-joints (the contact rows alone, the joint rows condensed), or "
          "--format mtx or lcplab, which hold every row",
          e->scene,
          dyn_world_is_reduced(w) ? "limits or motors in reduced coordinates" : "its joints", why);
  return 1;
}

const char *exp_export_format_name(int f) {
  return f >= 0 && f < NFORMATS ? formats[f].name : NULL;
}

/* DIR/SCENE_stepKKKKKK.SUFFIX into buf; 0 if too long (after the message). */
static int out_name(const exp_export *e, long k, const char *suffix, char *buf, size_t len) {
  int r = snprintf(buf, len, "%s/%s_step%06ld.%s", e->dir, e->scene, k, suffix);
  if (r < 0 || (size_t)r >= len) {
    exp_say(e->log, EXP_SAY_ERROR, "export: output path for step %ld is too long", k);
    return 0;
  }
  return 1;
}

/* 1 (after the message) if something exists at path. */
static int refuse_existing(const exp_export *e, const char *path, const void *ctx) {
  (void)ctx;
  if (!exp_path_exists(path)) return 0;
  exp_say(e->log, EXP_SAY_ERROR, "%s exists (use --force to overwrite)", path);
  return 1;
}

/* 1 (after the message) if path is one of the inputs ctx. */
static int refuse_input(const exp_export *e, const char *path, const void *ctx) {
  return exp_output_is_input(e->log, "export", "--out", path, ctx);
}

/* refuse(e, PATH, ctx) for each file the export of step k would write;
 * 1 at the first it refuses (or a name too long), else 0. */
static int step_files(const exp_export *e, long k,
                      int (*refuse)(const exp_export *, const char *, const void *),
                      const void *ctx) {
  const fmt_def *fd = &formats[e->format];
  const char *sfx[3] = { fd->ext, "x", e->global ? global_sfx(fd) : NULL };
  char path[EXP_PATH_MAX], side[EXP_PATH_MAX];
  for (int j = 0; j < 3 && sfx[j]; j++) {
    if (!out_name(e, k, sfx[j], path, sizeof path) || refuse(e, path, ctx)) return 1;
    /* the files the writer writes beside the problem's (MatrixMarket's sidecars) */
    for (int s = 0; j == 0 && io_write_sidecar(path, fd->fmt, s, side, sizeof side) == 1; s++)
      if (refuse(e, side, ctx)) return 1;
  }
  return 0;
}

int exp_export_step_exists(const exp_export *e, long k) {
  return step_files(e, k, refuse_existing, NULL);
}

int exp_export_step_is_input(const exp_export *e, long k, const exp_inputs *in) {
  return step_files(e, k, refuse_input, in);
}

/* A writer's message err about path, as "path: err" unless err names it. */
static void say_write_error(const exp_log *log, const char *path, const char *err) {
  if (!err[0]) err = "unknown error";
  size_t len = strlen(path);
  if (strncmp(err, path, len) == 0 && err[len] == ':')
    exp_say(log, EXP_SAY_ERROR, "%s", err);
  else
    exp_say(log, EXP_SAY_ERROR, "%s: %s", path, err);
}

dyn_err exp_world_global(const dyn_world *w, int jr, const double *x, slv_global_form *out,
                         double **mu, slv_condense_global_info *ci, char *msg, size_t len) {
  memset(ci, 0, sizeof *ci);
  return jr > 0 ? dyn_world_global_condensed_new(w, x, jr, out, mu, ci, msg, len)
                : dyn_world_global_new(w, out, mu, msg, len);
}

/* The global form of the world's last step (exp_world_global: with its jr
 * > 0 joint rows condensed at x0, the whole step's answer, its title
 * saying so), instance inst, to gpath: 1, or 0 after the message. */
static int write_global(const exp_export *e, const dyn_world *w, io_instance *inst,
                        const char *gpath, long k, int jr, const double *x0) {
  char err[512] = "", name[sizeof inst->name];
  slv_global_form g;
  slv_condense_global_info ci;
  if (exp_world_global(w, jr, x0, &g, NULL, &ci, err, sizeof err) != DYN_OK) {
    exp_say(e->log, EXP_SAY_ERROR, "export: step %ld: %s%s", k,
            jr > 0 ? "--condense-joints --global: " : "", err);
    return 0;
  }
  memcpy(name, inst->name, sizeof name);
  if (jr > 0) { /* v is no body's velocity: docs/models.md, "Joint rows condensed" */
    snprintf(inst->name, sizeof inst->name,
             "%s_step%06ld: joint rows condensed (%d eliminated, %d at a bound); v: null-space "
             "coordinates",
             e->scene, k, ci.neliminated, ci.nbound);
    size_t l = strlen(inst->name);
    if (dyn_world_is_reduced(w)) /* of the joint velocities (FCLIB's 128 characters) */
      snprintf(inst->name + l, sizeof inst->name - l, "%s", "; reduced coordinates");
  }
  inst->global = &g; /* borrowed for the writer */
  slv_status s = io_write(gpath, IO_FMT_AUTO, inst, err, sizeof err);
  inst->global = NULL;
  memcpy(inst->name, name, sizeof name);
  slv_global_form_free(&g);
  if (s != SLV_OK) say_write_error(e->log, gpath, err);
  return s == SLV_OK;
}

/* The JSON line of a written step. */
static void put_step_line(FILE *f, const char *path, const char *xpath, const char *gpath,
                          const dyn_run_step *st, int n, const char *kind, int reduced) {
  fputs("{\"file\":", f);
  exp_json_string(f, path);
  fprintf(f, ",\"step\":%ld,\"n\":%d,\"kind\":", st->k, n);
  exp_json_string(f, kind);
  fputs(",\"status\":", f);
  exp_json_string(f, st->status);
  fputs(",\"applied\":", f);
  exp_json_string(f, st->applied);
  fputs(",\"solution\":", f);
  exp_json_string(f, xpath);
  fputs(reduced ? ",\"coordinates\":\"reduced\"" : ",\"coordinates\":\"maximal\"", f);
  if (gpath) {
    fputs(",\"global\":", f);
    exp_json_string(f, gpath);
  }
  fputs("}\n", f);
}

slv_status exp_step_problem_write(const char *path, io_format fmt, const slv_problem *p,
                                  const char *name, const exp_solve_record *rec, io_instance **keep,
                                  char *err, size_t len) {
  /* a factored A as CSR, unless the solve is recorded: then the storage it got */
  io_instance *inst = io_instance_of_problem(p, name, NULL, rec != NULL);
  if (keep) *keep = inst;
  if (!inst) {
    snprintf(err, len, "out of memory for the problem (n=%d)", p->n);
    return SLV_ERR_NOMEM;
  }
  if (rec) {
    snprintf(inst->solver, sizeof inst->solver, "%s", rec->solver);
    inst->opt = *rec->opt;
    inst->opt_given = (1u << IO_OPT_COUNT) - 1u; /* every option, as the solver got it */
  }
  /* io_write replaces path only once complete (docs/io.md, "Replacing files") */
  slv_status st = io_write(path, fmt, inst, err, len);
  if (!keep) io_instance_free(inst);
  return st;
}

/* The problem p of step st to path (and its global form to gpath when
 * given: with --condense-joints the whole step's answer x0 condensed);
 * its kind into kind.  1, or 0 after the message. */
static int write_problem(const exp_export *e, const dyn_world *w, const slv_problem *p,
                         const dyn_run_step *st, const double *x0, const char *path,
                         const char *gpath, char *kind, size_t klen, const char *name) {
  char err[512] = "";
  long k = st->k;
  int jr = e->condense ? st->m.joint_rows : 0;
  io_instance *inst = NULL;
  slv_status s =
      exp_step_problem_write(path, formats[e->format].fmt, p, name, NULL, &inst, err, sizeof err);
  if (!inst) {
    exp_say(e->log, EXP_SAY_ERROR, "export: out of memory for the problem of step %ld (n=%d)", k,
            p->n);
    return 0;
  }
  snprintf(kind, klen, "%s", inst->kind);
  if (s != SLV_OK) say_write_error(e->log, path, err);
  int ok = s == SLV_OK && (!gpath || write_global(e, w, inst, gpath, k, jr, x0));
  io_instance_free(inst);
  return ok;
}

/* A step's problem with its first jr rows condensed (the contact rows',
 * in order, their findex and cones renumbered) and x's contact part: the
 * arrays owned here. */
typedef struct condensed {
  slv_problem p;
  double *A, *b, *lo, *hi, *mu, *cone_mu, *x;
  int *findex, *cone_rows;
  int ne; /* rows eliminated */
} condensed;

static void condensed_free(condensed *c) {
  free(c->A), free(c->b), free(c->lo), free(c->hi), free(c->mu), free(c->cone_mu), free(c->x);
  free(c->findex), free(c->cone_rows);
}

/* c from p, x and jr (>= 0, < p->n): 1, or 0 with the message in err. */
static int condense(const slv_problem *p, const double *x, int jr, condensed *c, char *err,
                    size_t len) {
  int n = p->n, nk = n - jr;
  memset(c, 0, sizeof *c);
  unsigned char *keep = malloc((size_t)n);
  c->A = malloc((size_t)nk * (size_t)nk * sizeof *c->A);
  c->b = malloc((size_t)nk * sizeof *c->b);
  c->lo = malloc((size_t)nk * sizeof *c->lo);
  c->hi = malloc((size_t)nk * sizeof *c->hi);
  c->x = malloc((size_t)nk * sizeof *c->x);
  c->findex = p->findex ? malloc((size_t)nk * sizeof *c->findex) : NULL;
  c->mu = p->mu ? malloc((size_t)nk * sizeof *c->mu) : NULL;
  c->cone_rows = p->ncones ? malloc((size_t)p->ncones * sizeof *c->cone_rows) : NULL;
  c->cone_mu = p->ncones ? malloc((size_t)p->ncones * sizeof *c->cone_mu) : NULL;
  if (!keep || !c->A || !c->b || !c->lo || !c->hi || !c->x || (p->findex && !c->findex) ||
      (p->mu && !c->mu) || (p->ncones && (!c->cone_rows || !c->cone_mu))) {
    free(keep);
    snprintf(err, len, "out of memory for the condensed problem (%d rows)", nk);
    return 0;
  }
  for (int i = 0; i < n; i++) keep[i] = i >= jr;
  slv_status s = slv_condense_rows(p, x, keep, c->A, c->b, &c->ne, err, len);
  free(keep);
  if (s != SLV_OK) return 0;
  for (int i = 0; i < nk; i++) {
    c->lo[i] = p->lo[jr + i], c->hi[i] = p->hi[jr + i], c->x[i] = x[jr + i];
    if (c->mu) c->mu[i] = p->mu[jr + i];
    if (c->findex) c->findex[i] = p->findex[jr + i] >= jr ? p->findex[jr + i] - jr : -1;
  }
  for (int k = 0; k < p->ncones; k++) { /* cone_rows: each cone's first row (slv.h) */
    c->cone_mu[k] = p->cone_mu[k];
    c->cone_rows[k] = p->cone_rows[k] - jr;
  }
  c->p = *p;
  c->p.n = nk;
  c->p.storage = SLV_DENSE;
  c->p.A = c->A, c->p.lda = nk > 0 ? nk : 1;
  c->p.Ap = c->p.Aj = NULL, c->p.Ax = NULL;
  c->p.b = c->b, c->p.lo = c->lo, c->p.hi = c->hi;
  c->p.findex = c->findex, c->p.mu = c->mu;
  c->p.cone_rows = c->cone_rows, c->p.cone_mu = c->cone_mu;
  return 1;
}

/* The step's problem, or its condensed form (c filled, its arrays the
 * caller's to free) with the note in name: 1, or 0 after the message. */
static int step_problem(const exp_export *e, const dyn_run_step *st, const slv_problem *p,
                        const double *x, condensed *c, const slv_problem **out, const double **xo,
                        char *name, size_t nlen) {
  long k = st->k;
  int jr = st->m.joint_rows;
  char err[512] = "";
  snprintf(name, nlen, "%s_step%06ld", e->scene, k);
  *out = p, *xo = x;
  memset(c, 0, sizeof *c);
  if (!e->condense || jr == 0) return 1;
  if (jr >= p->n) {
    exp_say(
        e->log, EXP_SAY_ERROR,
        "export: step %ld: --condense-joints: the step has joint rows but no contact rows (skip "
        "it with --every, or export without --condense-joints)",
        k);
    return 0;
  }
  if (p->storage == SLV_FACTORED || !condense(p, x, jr, c, err, sizeof err)) {
    exp_say(e->log, EXP_SAY_ERROR, "export: step %ld: --condense-joints: %s", k,
            err[0] ? err : "cannot condense");
    condensed_free(c);
    return 0;
  }
  snprintf(name, nlen,
           "%s_step%06ld: joint rows condensed at the step's answer (%d eliminated, %d at a bound)",
           e->scene, k, c->ne, jr - c->ne);
  *out = &c->p, *xo = c->x;
  return 1;
}

int exp_export_step(const exp_export *e, const dyn_world *w, const dyn_run_step *st,
                    const slv_problem *p0, const double *x0, FILE *json) {
  char path[EXP_PATH_MAX], xpath[EXP_PATH_MAX], gpath[EXP_PATH_MAX], err[512] = "";
  char kind[sizeof((io_instance *)0)->kind];
  long k = st->k;
  const fmt_def *fd = &formats[e->format];
  if (!out_name(e, k, fd->ext, path, sizeof path) || !out_name(e, k, "x", xpath, sizeof xpath) ||
      (e->global && !out_name(e, k, global_sfx(fd), gpath, sizeof gpath)))
    return 0;
  condensed c;
  const slv_problem *p;
  const double *x;
  char name[sizeof((io_instance *)0)->name];
  if (!step_problem(e, st, p0, x0, &c, &p, &x, name, sizeof name)) return 0;
  int reduced = dyn_world_is_reduced(w);
  if (reduced) { /* the rows are in joint space (docs/models.md, "Exports") */
    size_t l = strlen(name);
    snprintf(name + l, sizeof name - l, "%s", reduced_title);
  }
  int ok = write_problem(e, w, p, st, x0, path, e->global ? gpath : NULL, kind, sizeof kind, name);
  if (ok && io_write_vector(xpath, p->n, x, err, sizeof err) != SLV_OK) {
    say_write_error(e->log, xpath, err);
    ok = 0;
  }
  if (ok) put_step_line(json, path, xpath, e->global ? gpath : NULL, st, p->n, kind, reduced);
  condensed_free(&c);
  return ok;
}
