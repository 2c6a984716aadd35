/* prepare.c -- the problems of an experiment, materialised as
 * files with their metadata (experiments/README.md, "Problems").
 *
 * Every problem a task solves is a file, so that a task is a process that
 * needs nothing but the plan folder and the files it names:
 *   - instances: files read in place (a folder: its instance files, sorted,
 *     not recursive; a pattern with * ? [: glob(3), sorted);
 *   - generate FAMILY N seed=S: DATADIR/FAMILY_N_sS.lcp, written by
 *     exp_generate_file (generate.c) when missing (reused otherwise);
 *   - scene NAME ... (problem kinds): the scene is simulated with its world
 *     solver, and the problem of its last step, or of every E-th step with
 *     every=E, is written to DATADIR/scene-LABEL.lcp (a model line's
 *     scene-LABEL.TAG.lcp, TAG a hash of the model file's path: two files
 *     of one name never share one; CSR above 256 rows: a factored problem
 *     is turned into its explicit A) with a .meta beside it (the world's contact count and, for a model line, the
 *     digest of the files it was written from, exp_source_digest).
 *     Existing files are reused: a model line's only when written from
 *     the same files (an edited model is exported again).
 * Each file is read once here for its metadata:
 *   class      exp_class_of: lcp, box, mlcp, fc3d, cone-assoc
 *   n, nnz     rows; stored nonzeros (dense: entries != 0)
 *   contacts   cones, else findex normal rows (distinct findex targets),
 *              else the world's contact count (scene exports), else 0
 *   cond       slv_condition_estimate: a 1-norm condition estimate of A
 *              alone (inf: singular; NaN: not computed)
 *   mu_min, mu_max  the friction coefficients' range: the cones' mu, else
 *              the findex rows' mu, else for a scene's pyramid LCP (mu in
 *              A) the range its world's contacts take (the model's
 *              materials: dyn_world_material_range); NaN both: no friction
 *   sha256     the SHA-256 of the file's bytes (every run: the content key
 *              of its tasks, experiments/README.md, "Result files")
 * The metadata are cached in DATADIR/problem-meta.tsv, keyed by path, size,
 * modification time and SHA-256, so a second run, or a resumed one, does
 * not read the problems again, and an edited file is read again even when
 * its size and time stayed.  A file of that name that is not the cache
 * (its first line is not the cache's header) is somebody else's: refused
 * without force, replaced with it.  Only the sections' classes are kept (`classes`).
 */
#define _GNU_SOURCE

#include "exp_internal.h"
#include "exp_strmap.h"
#include "exp_task.h" /* exp_source_default_steps */

#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <math.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dyn_world.h"

extern char **environ;

static void progress(const exp_env *env, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void progress(const exp_env *env, const char *fmt, ...) {
  if (!env->tty) return;
  char line[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  exp_say(&env->log, EXP_SAY_PROGRESS, "experiment: %s", line);
}

/* ---- the metadata cache ------------------------------------------------------------ */

/* A file's metadata as the cache keeps it: p's fields that describe the
 * file (class, kind, n, nnz, contacts, cond, mu, sha256; p.path unused). */
typedef struct meta {
  char *path;
  long long size, mtime;
  exp_prob p;
} meta;

typedef struct meta_cache {
  meta *m;
  int n, cap, dirty;
  exp_strmap by_path; /* path -> its latest entry */
  char file[EXP_PATH_MAX + 32];
} meta_cache;

static int file_stamp(const char *path, long long *size, long long *mtime) {
  struct stat st;
  if (stat(path, &st) != 0) return -1;
  *size = (long long)st.st_size;
  *mtime = (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
  return 0;
}

/* A new entry for path, found by it from now on; NULL out of memory. */
static meta *cache_add(meta_cache *c, const char *path) {
  if (c->n == c->cap) {
    int cap = c->cap ? 2 * c->cap : 64;
    meta *m = realloc(c->m, (size_t)cap * sizeof *m);
    if (!m) return NULL;
    c->m = m;
    c->cap = cap;
  }
  meta *e = &c->m[c->n];
  memset(e, 0, sizeof *e);
  if (!(e->path = strdup(path))) return NULL;
  if (exp_strmap_put(&c->by_path, 0, e->path, c->n) != 0) {
    free(e->path);
    return NULL;
  }
  c->n++;
  return e;
}

static void cache_free(meta_cache *c) {
  for (int k = 0; k < c->n; k++) free(c->m[k].path);
  free(c->m);
  exp_strmap_free(&c->by_path);
}

/* The first words of the cache's first line: what tells lcplab's cache
 * from a file of that name that somebody else wrote. */
#define CACHE_HEAD "# path\tsize\tmtime_ns\t"

/* Whether path, which exists, is lcplab's cache (starts with CACHE_HEAD). */
static int cache_is_ours(const char *path) {
  FILE *f = fopen(path, "r");
  char head[sizeof CACHE_HEAD] = "";
  int ours = f && fread(head, 1, sizeof head - 1, f) == sizeof head - 1 &&
             memcmp(head, CACHE_HEAD, sizeof head - 1) == 0;
  if (f) fclose(f);
  return ours;
}

/* Reads DATADIR/problem-meta.tsv: -1, or EXP_EXIT_USAGE after the message
 * when a file of that name is not lcplab's cache and env->force is not
 * given (with it, the file is replaced by the cache; experiments/README.md,
 * "Experiment files": --data). */
static int cache_load(meta_cache *c, const exp_env *env) {
  struct stat st;
  snprintf(c->file, sizeof c->file, "%s/problem-meta.tsv", env->datadir);
  if (lstat(c->file, &st) != 0) return -1;
  if (!cache_is_ours(c->file)) {
    c->dirty = 1;
    if (env->force) return -1;
    exp_say(&env->log, EXP_SAY_ERROR,
            "experiment: %s exists and is not lcplab's cache of problem metadata: refused, it "
            "would be replaced (use --force to replace it, or another --data)",
            c->file);
    return EXP_EXIT_USAGE;
  }
  FILE *f = fopen(c->file, "r");
  if (!f) return -1;
  char line[EXP_PATH_MAX + 512];
  while (fgets(line, sizeof line, f)) {
    if (line[0] == '#') continue;
    char path[EXP_PATH_MAX], cls[16], kind[16], cond[32], mu0[32], mu1[32];
    meta t;
    memset(&t, 0, sizeof t);
    if (sscanf(line, "%4095[^\t]\t%lld\t%lld\t%15s\t%15s\t%d\t%ld\t%d\t%31s\t%31s\t%31s\t%64s",
               path, &t.size, &t.mtime, cls, kind, &t.p.n, &t.p.nnz, &t.p.contacts, cond, mu0, mu1,
               t.p.sha256) != 12)
      continue; /* also a line of an older cache (no mu): read the file again */
    if (exp_parse_measured(cond, &t.p.cond) != SLV_PARSE_OK ||
        exp_parse_measured(mu0, &t.p.mu_min) != SLV_PARSE_OK ||
        exp_parse_measured(mu1, &t.p.mu_max) != SLV_PARSE_OK)
      continue; /* a damaged line: read the file again */
    meta *e = cache_add(c, path);
    if (!e) break;
    t.path = e->path;
    *e = t;
    e->p.cls = exp_class_from_str(cls);
    snprintf(e->p.kind, sizeof e->p.kind, "%s", kind);
  }
  fclose(f);
  return -1;
}

/* The cache written back: each path's latest entry, once. */
static void cache_save(meta_cache *c) {
  if (!c->dirty) return;
  char err[EXP_PATH_MAX + 256];
  io_outfile *o = io_outfile_open(c->file, err, sizeof err); /* a cache: no message */
  FILE *f = io_outfile_stream(o);
  if (!f) return;
  fprintf(f, CACHE_HEAD
          "class\tkind\tn\tnnz\tcontacts\tcond_est\tmu_min\tmu_max"
          "\tsha256 (lcplab experiment's cache of problem metadata; delete it to recompute)\n");
  for (int k = 0; k < c->n; k++) {
    const meta *e = &c->m[k];
    if (exp_strmap_get(&c->by_path, 0, e->path) != k) continue; /* a later entry replaced it */
    fprintf(f, "%s\t%lld\t%lld\t%s\t%s\t%d\t%ld\t%d\t%.6e\t%.17g\t%.17g\t%s\n", e->path, e->size,
            e->mtime, exp_class_str(e->p.cls), e->p.kind, e->p.n, e->p.nnz, e->p.contacts,
            e->p.cond, e->p.mu_min, e->p.mu_max, e->p.sha256);
  }
  io_outfile_publish(o, err, sizeof err);
}

/* The entry of path when it still describes the file (size, time and
 * SHA-256 as recorded), else NULL. */
static const meta *cache_find(const meta_cache *c, const char *path, const char *sha) {
  long long size, mtime;
  int k = exp_strmap_get(&c->by_path, 0, path);
  if (k < 0 || file_stamp(path, &size, &mtime)) return NULL;
  const meta *e = &c->m[k];
  return e->size == size && e->mtime == mtime && strcmp(e->p.sha256, sha) == 0 ? e : NULL;
}

/* ---- problems ----------------------------------------------------------------------- */

typedef struct plist {
  exp_prob *p;
  int n, cap;
} plist;

static exp_prob *plist_add(plist *l) {
  if (l->n == l->cap) {
    int cap = l->cap ? 2 * l->cap : 64;
    exp_prob *p = realloc(l->p, (size_t)cap * sizeof *p);
    if (!p) return NULL;
    l->p = p;
    l->cap = cap;
  }
  exp_prob *e = &l->p[l->n++];
  memset(e, 0, sizeof *e);
  return e;
}

static int count_contacts(const io_instance *inst) {
  if (inst->ncones > 0) return inst->ncones;
  if (!inst->findex) return 0;
  char *target = calloc((size_t)inst->n + 1, 1);
  if (!target) return 0;
  int k = 0;
  for (int i = 0; i < inst->n; i++) {
    int j = inst->findex[i];
    if (j >= 0 && j < inst->n && !target[j]) {
      target[j] = 1;
      k++;
    }
  }
  free(target);
  return k;
}

/* The friction coefficients' range: the cones' mu, else the mu of the
 * findex (friction) rows; NaN both when the problem has no friction. */
static void mu_range(const io_instance *inst, double *lo, double *hi) {
  *lo = *hi = NAN;
  int k = inst->ncones > 0 ? inst->ncones : (inst->findex && inst->mu ? inst->n : 0);
  for (int i = 0; i < k; i++) {
    double m;
    if (inst->ncones > 0)
      m = inst->cone_mu[i];
    else if (inst->findex[i] >= 0)
      m = inst->mu[i];
    else
      continue;
    if (isnan(*lo) || m < *lo) *lo = m;
    if (isnan(*hi) || m > *hi) *hi = m;
  }
}

static long count_nnz(const io_instance *inst) {
  if (inst->storage == SLV_CSR) return inst->Ap[inst->n];
  long k = 0;
  for (size_t q = 0; q < (size_t)inst->n * (size_t)inst->n; q++) k += inst->A[q] != 0.0;
  return k;
}

/* A problem without cones or findex rows whose mu are in A: their range. */
static void mu_from_a(exp_prob *e, const double *mu_in_a) {
  if (isnan(e->mu_min) && mu_in_a) {
    e->mu_min = mu_in_a[0];
    e->mu_max = mu_in_a[1];
  }
}

/* The metadata of the file at path into *e (from the cache or by reading
 * it).  contacts < 0: count them from the problem.  mu_in_a: the friction
 * coefficients' range {lo, hi} of a problem that holds them in A (a
 * scene's pyramid LCP: no cone, no findex row), else NULL.  -1 ok, else
 * exit 2. */
static int describe(const exp_config *cfg, const exp_env *env, int line, const char *key,
                    meta_cache *mc, const char *path, int contacts, const double *mu_in_a,
                    exp_prob *e) {
  char why[EXP_PATH_MAX + 64];
  if (exp_sha256_file(path, e->sha256, why, sizeof why) != 0) {
    exp_say(&cfg->log, EXP_SAY_ERROR, "%s:%d: %s: %s", cfg->path, line, key, why);
    return EXP_EXIT_USAGE;
  }
  const meta *m = cache_find(mc, path, e->sha256);
  if (m) {
    e->cls = m->p.cls;
    snprintf(e->kind, sizeof e->kind, "%s", m->p.kind);
    e->n = m->p.n;
    e->nnz = m->p.nnz;
    e->contacts = m->p.contacts;
    e->cond = m->p.cond;
    e->mu_min = m->p.mu_min;
    e->mu_max = m->p.mu_max;
    mu_from_a(e, mu_in_a);
    return -1;
  }
  io_instance *inst = NULL;
  char err[512] = "";
  io_read_options ro = io_read_options_default();
  if (env->max_memory > 0) ro.max_memory = env->max_memory;
  slv_status st = io_read_with(path, IO_FMT_AUTO, &ro, &inst, err, sizeof err);
  if (st != SLV_OK) {
    exp_say(&cfg->log, EXP_SAY_ERROR, "%s:%d: %s: %s", cfg->path, line, key,
            err[0] ? err : slv_status_str(st));
    return EXP_EXIT_USAGE;
  }
  e->cls = exp_class_of(inst);
  snprintf(e->kind, sizeof e->kind, "%s", inst->kind);
  e->n = inst->n;
  e->nnz = count_nnz(inst);
  e->contacts = contacts >= 0 ? contacts : count_contacts(inst);
  mu_range(inst, &e->mu_min, &e->mu_max);
  slv_problem p = io_instance_problem(inst);
  slv_condition_estimate(&p, &e->cond, NULL, 0); /* NaN when not computed */
  io_instance_free(inst);
  meta *nm = cache_add(mc, path);
  if (nm) {
    file_stamp(path, &nm->size, &nm->mtime);
    nm->p = *e;
    nm->p.path = NULL; /* the problem's own: the entry has its path */
    mc->dirty = 1;
  }
  mu_from_a(e, mu_in_a); /* after the cache: it keeps the file's own mu, not the world's */
  return -1;
}

static void set_label(exp_prob *e, const char *label, const char *family) {
  snprintf(e->label, sizeof e->label, "%s", label[0] ? label : "unnamed");
  for (char *s = e->label; *s; s++)
    if (*s == ',' || *s == '"' || *s == '\n' || *s == '\r' || *s == ' ' || *s == '\t') *s = '_';
  if (family) {
    snprintf(e->family, sizeof e->family, "%s", family);
  } else {
    size_t fl = strcspn(e->label, "_");
    snprintf(e->family, sizeof e->family, "%.*s", (int)fl, e->label);
  }
}

/* The base name of path without its last extension. */
static void base_label(const char *path, char *out, size_t len) {
  snprintf(out, len, "%s", exp_basename(path));
  char *dot = strrchr(out, '.');
  if (dot && dot != out) *dot = '\0';
}

typedef struct ctx {
  const exp_config *cfg;
  const exp_env *env;
  meta_cache *mc;
  plist *list;
  int section;
} ctx;

static int add_file(const ctx *c, const exp_source *src, const char *path, const char *origin,
                    const char *family, int contacts, const double *mu_in_a) {
  char what[EXP_PATH_MAX + 64];
  snprintf(what, sizeof what, "%s:%d: file", c->cfg->path, src->line);
  if (exp_line_safe(&c->cfg->log, what, path))
    return EXP_EXIT_USAGE; /* problems.tsv: one problem a line */
  exp_prob *e = plist_add(c->list);
  if (!e) {
    exp_say(&c->cfg->log, EXP_SAY_ERROR, "out of memory");
    return EXP_EXIT_USAGE;
  }
  e->section = c->section;
  char full[PATH_MAX];
  if (!(e->path = strdup(realpath(path, full) ? full : path))) {
    exp_say(&c->cfg->log, EXP_SAY_ERROR, "out of memory");
    return EXP_EXIT_USAGE;
  }
  snprintf(e->origin, sizeof e->origin, "%s", origin);
  char label[128];
  base_label(path, label, sizeof label);
  set_label(e, label, family);
  return describe(c->cfg, c->env, src->line, src->kind == EXP_SRC_FILE ? "instances" : "generate",
                  c->mc, e->path, contacts, mu_in_a, e);
}

static int known_ext(const char *name) {
  static const char *const ext[] = { ".dat", ".lcp", ".blcp", ".mtx", ".hdf5", ".h5", NULL };
  size_t n = strlen(name);
  for (int k = 0; ext[k]; k++) {
    size_t e = strlen(ext[k]);
    if (n > e && strcmp(name + n - e, ext[k]) == 0) return 1;
  }
  return 0;
}

/* A file, a folder's instance files or a pattern's matches (glob(3)
 * sorts them).  -1 ok, else exit status. */
static int load_files(const ctx *c, const exp_source *src) {
  struct stat st;
  int pattern = strpbrk(src->path, "*?[") != NULL;
  if (!pattern && stat(src->path, &st) == 0 && !S_ISDIR(st.st_mode))
    return add_file(c, src, src->path, "file", NULL, -1, NULL);
  char pat[EXP_PATH_MAX + 8];
  snprintf(pat, sizeof pat, pattern ? "%s" : "%s/*", src->path);
  glob_t g;
  int r = glob(pat, 0, NULL, &g);
  if (r != 0 && r != GLOB_NOMATCH) {
    exp_say(&c->cfg->log, EXP_SAY_ERROR, "%s:%d: instances: %s: cannot list it", c->cfg->path,
            src->line, src->path);
    return EXP_EXIT_USAGE;
  }
  int rc = -1, added = 0;
  for (size_t k = 0; r == 0 && k < g.gl_pathc && rc < 0; k++) {
    struct stat fs;
    if (stat(g.gl_pathv[k], &fs) != 0 || !S_ISREG(fs.st_mode) ||
        !known_ext(exp_basename(g.gl_pathv[k])))
      continue;
    rc = add_file(c, src, g.gl_pathv[k], "file", NULL, -1, NULL);
    added++;
  }
  if (r == 0) globfree(&g);
  if (rc < 0 && added == 0) {
    exp_say(&c->cfg->log, EXP_SAY_ERROR,
            "%s:%d: instances: %s: no instance file (.dat .lcp .blcp .mtx .hdf5 .h5)", c->cfg->path,
            src->line, src->path);
    rc = EXP_EXIT_USAGE;
  }
  return rc;
}

/* Writes the generated instance of src to path (generate.c).  -1 ok, else
 * the exit status after the message. */
static int generate(const ctx *c, const exp_source *src, const char *path) {
  char err[EXP_PATH_MAX + 256] = "";
  progress(c->env, "generating %s", path);
  int rc = exp_generate_file(src->family, src->n, src->seed, path, 0, err, sizeof err);
  if (rc != EXP_EXIT_OK) {
    exp_say(&c->cfg->log, EXP_SAY_ERROR, "%s:%d: generate %s %ld seed=%lu: %s", c->cfg->path,
            src->line, src->family, src->n, src->seed, err);
    return rc;
  }
  return -1;
}

static int load_generated(const ctx *c, const exp_source *src) {
  char path[EXP_PATH_MAX + 128];
  snprintf(path, sizeof path, "%s/%s_%ld_s%lu.lcp", c->env->datadir, src->family, src->n,
           src->seed);
  if (!exp_path_exists(path)) {
    int rc = generate(c, src, path);
    if (rc >= 0) return rc;
  }
  return add_file(c, src, path, "generated", src->family, -1, NULL);
}

/* ---- scene exports ---------------------------------------------------------------------- */

/* The label of a scene export at step k: the scene, the friction model,
 * -assoc for associated cones, the step, the scene's parameters and the
 * other world settings of its line (so that exports of other settings are
 * other files). */
static void scene_label(const exp_source *src, const dyn_world_settings *set, int fr, long k,
                        char *out, size_t len) {
  int r =
      snprintf(out, len, "%s-%s%s-k%ld", src->scene, dyn_world_settings_enum_name("friction", fr),
               set->cone_law == SLV_CONE_ASSOCIATED ? "-assoc" : "", k);
  for (int q = 0; q < src->nparams && r > 0 && (size_t)r < len; q++)
    r += snprintf(out + r, len - (size_t)r, "-%s", src->params[q]);
  for (int q = 0; q < src->nsettings && r > 0 && (size_t)r < len; q++)
    if (strncmp(src->settings[q], "cone_law=", 9) != 0)
      r += snprintf(out + r, len - (size_t)r, "-%s", src->settings[q]);
}

static int build_world(const exp_source *src, const dyn_world_settings *set, dyn_world **w,
                       char *msg, size_t len) {
  return exp_source_new_world(src, set, w, msg, len) == DYN_OK ? 0 : -1;
}

/* The friction coefficients' range {lo, hi} the contacts of a scene
 * source's world take (dyn_world_material_range: its model's materials,
 * not the settings'), for a pyramid LCP whose mu are in A; NaN when the
 * world cannot be built. */
static void scene_mu(const exp_source *src, const dyn_world_settings *set, double mu[2]) {
  dyn_world *w = NULL;
  double r[4] = { NAN, NAN, NAN, NAN };
  if (build_world(src, set, &w, NULL, 0) == 0) dyn_world_material_range(w, r);
  dyn_world_free(w);
  mu[0] = r[0];
  mu[1] = r[1];
}

/* The world settings of a scene used as a problem source: the defaults,
 * the export's solver (the line's, else dyn_world_default_solver's in the
 * source's representation) and friction model, then the line's own settings
 * (checked when the file was read: exp_source_world cannot fail here). */
dyn_world_settings exp_export_settings(const exp_source *src, int fr) {
  dyn_world_settings set = dyn_world_settings_default();
  char err[256];
  /* libdynamics' one rule, in the representation the source runs in (a
   * model file's own: reduced for a tree), as `lcplab simulate` */
  const char *solver =
      src->solver[0] ? src->solver
                     : dyn_world_default_solver(exp_source_coordinates(src), (dyn_friction)fr);
  exp_fmt(set.solver, sizeof set.solver, "%s", solver);
  set.contact.friction = (dyn_friction)fr;
  exp_source_world(src, &set, err, sizeof err);
  return set;
}

static int write_export(const exp_log *log, const char *path, const slv_problem *p, int contacts,
                        const char *source) {
  char err[EXP_PATH_MAX + 512] = "";
  /* the one writer of a step's problem, export's (a factored A as CSR) */
  slv_status st = exp_step_problem_write(path, IO_FMT_LCPLAB, p, "", NULL, NULL, err, sizeof err);
  if (st != SLV_OK) {
    exp_say(log, EXP_SAY_ERROR, "%s", err);
    return -1;
  }
  char mpath[EXP_PATH_MAX + 16];
  snprintf(mpath, sizeof mpath, "%.*s.meta", (int)(strlen(path) - 4), path);
  io_outfile *o = io_outfile_open(mpath, err, sizeof err); /* optional: no message */
  if (o) {
    fprintf(io_outfile_stream(o), "contacts %d\n", contacts);
    if (source[0]) fprintf(io_outfile_stream(o), "source %s\n", source);
    io_outfile_publish(o, err, sizeof err);
  }
  return 0;
}

/* The contact count an export's .meta records (-1: none), and whether the
 * export was written from the files of digest (the .meta's source line;
 * a named scene's digest is "" and its .meta has none): 1, else 0. */
static int read_meta(const char *path, const char *digest, int *contacts) {
  char mpath[EXP_PATH_MAX + 16], source[80] = "";
  snprintf(mpath, sizeof mpath, "%.*s.meta", (int)(strlen(path) - 4), path);
  FILE *f = fopen(mpath, "r");
  *contacts = -1;
  if (f) {
    if (fscanf(f, "contacts %d", contacts) != 1) *contacts = -1;
    if (fscanf(f, " source %64s", source) != 1) source[0] = '\0';
    fclose(f);
  }
  return strcmp(source, digest) == 0;
}

/* The steps a scene source exports: E, 2E, ... and K; returns the count. */
static int export_steps(const exp_source *src, long K, long *steps, int cap) {
  int k = 0;
  if (src->every > 0)
    for (long s = src->every; s < K && k < cap - 1; s += src->every) steps[k++] = s;
  steps[k++] = K;
  return k;
}

/* The state of a scene source's export run between its steps. */
typedef struct export_run {
  const ctx *c;
  const exp_source *src;
  const long *steps;
  char (*paths)[EXP_PATH_MAX + 192];
  int *contacts;
  unsigned char *fresh; /* the export there is written from these files (set once written) */
  const char *digest;   /* exp_source_digest */
  int next, rc;
} export_run;

/* One step of an export run (dyn_world_run): at an export step, its
 * problem written unless it is there already, written from the same model
 * files (a stale one is replaced); a rejected step ends the
 * trajectory (the problems of the steps before it stay). */
static int export_step(void *arg, dyn_world *w, const dyn_run_step *st) {
  export_run *q = arg;
  const ctx *c = q->c;
  if (st->err != DYN_OK) {
    exp_say(&c->cfg->log, EXP_SAY_NOTE,
            "%s:%d: scene %s stopped at step %ld (%s): the problems of "
            "later steps are not exported",
            c->cfg->path, q->src->line, q->src->scene, st->k, dyn_world_message(w));
    return 0;
  }
  if (st->k != q->steps[q->next]) return 0;
  slv_problem p;
  const double *x;
  dyn_world_last_problem(w, &p, &x);
  q->contacts[q->next] = st->m.contacts;
  if (p.n > 0 && !q->fresh[q->next] &&
      write_export(&c->cfg->log, q->paths[q->next], &p, st->m.contacts, q->digest)) {
    q->rc = EXP_EXIT_USAGE;
    return 1;
  }
  q->fresh[q->next] |= p.n > 0;
  q->next++;
  return 0;
}

/* Simulates the scene and writes the missing exports.  -1 ok, else 2. */
static int simulate_exports(const ctx *c, const exp_source *src, int fr, const long *steps, int ns,
                            char (*paths)[EXP_PATH_MAX + 192], int *contacts, unsigned char *fresh,
                            const char *digest) {
  dyn_world_settings set = exp_export_settings(src, fr);
  dyn_world *w = NULL;
  char msg[512] = "";
  if (build_world(src, &set, &w, msg, sizeof msg)) {
    exp_say(&c->cfg->log, EXP_SAY_ERROR, "%s:%d: scene: %s", c->cfg->path, src->line,
            msg[0] ? msg : "cannot build it");
    return EXP_EXIT_USAGE;
  }
  progress(c->env, "simulating %s for %ld steps to export its problems", src->scene, steps[ns - 1]);
  export_run q = { c, src, steps, paths, contacts, fresh, digest, 0, -1 };
  dyn_world_run(w, steps[ns - 1], export_step, &q, NULL);
  dyn_world_free(w);
  return q.rc;
}

/* The tag of a model line's export names: ".XXXXXXXX", the FNV-1a of the
 * model file's real path (32 bits, hex), so that two model files of one
 * base name never share an export; "" for a named scene. */
#define MODEL_TAG_LEN 9
static void model_tag(const exp_source *src, char tag[MODEL_TAG_LEN + 1]) {
  char real[PATH_MAX];
  tag[0] = '\0';
  if (!src->model) return;
  const char *p = realpath(src->model, real) ? real : src->model;
  snprintf(tag, MODEL_TAG_LEN + 1, ".%08x",
           (unsigned)(exp_fnv1a(EXP_FNV_INIT, p, strlen(p)) & 0xffffffffu));
}

/* The export files of src's steps (DATADIR/scene-LABEL.lcp, a model
 * line's DATADIR/scene-LABEL.TAG.lcp: model_tag) into paths,
 * their .meta's contact counts, and whether each was written from the
 * files of digest (fresh); 1 when one of them is to be written. */
static int export_paths(const ctx *c, const exp_source *src, const dyn_world_settings *set, int fr,
                        const long *steps, int ns, const char *digest,
                        char (*paths)[EXP_PATH_MAX + 192], int *contacts, unsigned char *fresh) {
  int missing = 0;
  char tag[MODEL_TAG_LEN + 1];
  model_tag(src, tag);
  for (int q = 0; q < ns; q++) {
    char label[160];
    scene_label(src, set, fr, steps[q], label, sizeof label);
    for (char *s = label; *s; s++)
      if (*s == '/' || *s == ' ') *s = '_';
    snprintf(paths[q], sizeof paths[q], "%s/scene-%s%s.lcp", c->env->datadir, label, tag);
    int same = read_meta(paths[q], digest, &contacts[q]);
    fresh[q] = same && (exp_path_exists(paths[q]) || contacts[q] >= 0);
    missing |= !fresh[q];
  }
  return missing;
}

/* The exports of src taken as problems: each step's file when it is
 * written from the model's files as they are (fresh: a stale one of a step
 * now without rows is left out).  -1 ok, else 2. */
static int add_exports(const ctx *c, const exp_source *src, int fr, const double *mu, int ns,
                       char (*paths)[EXP_PATH_MAX + 192], const int *contacts,
                       const unsigned char *fresh) {
  int rc = -1, added = 0;
  for (int q = 0; q < ns && rc < 0; q++) {
    if (!fresh[q] || !exp_path_exists(paths[q])) continue; /* no rows at that step */
    rc = add_file(c, src, paths[q], "scene", src->scene, contacts[q],
                  fr == DYN_FRICTION_PYRAMID ? mu : NULL); /* mu is in A */
    if (rc < 0) {
      exp_prob *e = &c->list->p[c->list->n - 1];
      set_label(e, exp_basename(paths[q]) + 6, src->scene); /* LABEL[.TAG].lcp */
      size_t cut = 4 + (src->model ? MODEL_TAG_LEN : 0), len = strlen(e->label);
      e->label[len > cut ? len - cut : 0] = '\0';
      added++;
    }
  }
  if (rc < 0 && added == 0) {
    exp_say(&c->cfg->log, EXP_SAY_ERROR,
            "%s:%d: scene: %s has no contact or joint at the steps taken: no problem (change "
            "steps= or every=)",
            c->cfg->path, src->line, src->scene);
    rc = EXP_EXIT_USAGE;
  }
  return rc;
}

/* A scene line of a problem section: its exports, written where missing
 * or stale (another content of the model's files: exp_source_digest). */
static int load_scene(const ctx *c, const exp_source *src) {
  int fr = src->friction >= 0 ? src->friction : DYN_FRICTION_BOX;
  dyn_world_settings set = exp_export_settings(src, fr);
  char digest[65], err[EXP_PATH_MAX + 256] = "";
  if (exp_source_digest(src, digest, err, sizeof err) != 0) {
    exp_say(&c->cfg->log, EXP_SAY_ERROR, "%s:%d: scene model: %s", c->cfg->path, src->line, err);
    return EXP_EXIT_USAGE;
  }
  long K = src->steps > 0 ? src->steps : exp_source_default_steps(src, &set);
  if (K < 1) {
    exp_say(&c->cfg->log, EXP_SAY_ERROR,
            "%s:%d: scene: no default step count: give steps=", c->cfg->path, src->line);
    return EXP_EXIT_USAGE;
  }
  long steps[256];
  int ns = export_steps(src, K, steps, 256), rc = -1;
  char(*paths)[EXP_PATH_MAX + 192] = malloc((size_t)ns * sizeof *paths);
  int *contacts = malloc((size_t)ns * sizeof *contacts);
  unsigned char *fresh = malloc((size_t)ns);
  if (!paths || !contacts || !fresh) {
    exp_say(&c->cfg->log, EXP_SAY_ERROR, "out of memory");
    rc = EXP_EXIT_USAGE;
  } else if (export_paths(c, src, &set, fr, steps, ns, digest, paths, contacts, fresh)) {
    rc = simulate_exports(c, src, fr, steps, ns, paths, contacts, fresh, digest);
  }
  double mu[2] = { NAN, NAN };
  if (rc < 0 && fr == DYN_FRICTION_PYRAMID) scene_mu(src, &set, mu);
  if (rc < 0) rc = add_exports(c, src, fr, mu, ns, paths, contacts, fresh);
  free(paths);
  free(contacts);
  free(fresh);
  return rc;
}

/* A scene of a drift / accuracy section: built once so that a bad
 * parameter fails before any run. */
static int check_scene(const ctx *c, const exp_source *src) {
  dyn_world_settings set = dyn_world_settings_default();
  char err[256];
  exp_source_world(src, &set, err, sizeof err); /* checked when the file was read */
  dyn_world *w = NULL;
  char msg[512] = "";
  int rc = -1;
  if (build_world(src, &set, &w, msg, sizeof msg)) {
    exp_say(&c->cfg->log, EXP_SAY_ERROR, "%s:%d: scene: %s", c->cfg->path, src->line,
            msg[0] ? msg : "cannot build it");
    rc = EXP_EXIT_USAGE;
  } else if ((src->steps > 0 ? src->steps
                             : dyn_model_default_steps(dyn_world_model(w),
                                                       dyn_world_get_settings(w)->dt)) < 1) {
    exp_say(&c->cfg->log, EXP_SAY_ERROR,
            "%s:%d: scene: no default step count: give steps=", c->cfg->path, src->line);
    rc = EXP_EXIT_USAGE;
  }
  dyn_world_free(w);
  return rc;
}

/* Labels made unique within each section: a repeated label gets "~2", "~3"
 * (its count so far, found by (section, label) in a map: one pass). */
static int unique_labels(plist *l) {
  exp_strmap seen = { 0 };
  char(*orig)[128] = malloc((size_t)(l->n > 0 ? l->n : 1) * sizeof *orig);
  int bad = !orig;
  for (int i = 0; i < l->n && !bad; i++) {
    snprintf(orig[i], sizeof orig[i], "%s", l->p[i].label);
    int dup = exp_strmap_get(&seen, l->p[i].section, orig[i]);
    dup = dup < 0 ? 1 : dup + 1;
    bad = exp_strmap_put(&seen, l->p[i].section, orig[i], dup) != 0;
    if (dup > 1) {
      size_t len = strlen(l->p[i].label);
      exp_fmt(l->p[i].label + (len > 120 ? 120 : len), 8, "~%d", dup);
    }
  }
  exp_strmap_free(&seen);
  free(orig);
  return bad ? -1 : 0;
}

/* Drops the problems whose class the section does not keep, and duplicate
 * files within a section (found by (section, path) in a map). */
static int filter_section(const exp_config *cfg, plist *l) {
  exp_strmap seen = { 0 };
  int m = 0, bad = 0;
  for (int i = 0; i < l->n; i++) {
    const exp_section *s = &cfg->sec[l->p[i].section];
    int keep = !bad && (!s->classes || (s->classes & (1u << l->p[i].cls))) &&
               exp_strmap_get(&seen, l->p[i].section, l->p[i].path) < 0;
    if (keep) bad = exp_strmap_put(&seen, l->p[i].section, l->p[i].path, m) != 0;
    if (keep && !bad)
      l->p[m++] = l->p[i];
    else
      free(l->p[i].path);
  }
  l->n = m;
  exp_strmap_free(&seen);
  return bad ? -1 : 0;
}

void exp_probs_free(exp_prob *probs, int n) {
  for (int i = 0; probs && i < n; i++) free(probs[i].path);
  free(probs);
}

int exp_prepare(const exp_config *cfg, const exp_env *env, exp_prob **probs, int *np) {
  meta_cache mc;
  memset(&mc, 0, sizeof mc);
  int rc = cache_load(&mc, env);
  if (rc >= 0) return rc;
  plist list = { NULL, 0, 0 };
  for (int si = 0; si < cfg->nsec && rc < 0; si++) {
    const exp_section *s = &cfg->sec[si];
    ctx c = { cfg, env, &mc, &list, si };
    int first = list.n; /* this section's problems are list.p[first ..) */
    for (int k = 0; k < s->nsrc && rc < 0; k++) {
      const exp_source *src = &s->src[k];
      if (s->kind == EXP_FIDELITY)
        continue; /* its scenes are the benchmark's own (fidelity.c), named when read */
      if (exp_kind_is_scene(s->kind))
        rc = check_scene(&c, src);
      else if (src->kind == EXP_SRC_FILE)
        rc = load_files(&c, src);
      else if (src->kind == EXP_SRC_GEN)
        rc = load_generated(&c, src);
      else
        rc = load_scene(&c, src);
    }
    if (rc < 0 && !exp_kind_is_scene(s->kind)) {
      int have = 0;
      for (int i = first; i < list.n; i++)
        have += !s->classes || (s->classes & (1u << list.p[i].cls));
      if (!have) {
        exp_say(&cfg->log, EXP_SAY_ERROR,
                "%s:%d: experiment: section '%s' keeps no problem (classes)", cfg->path, s->line,
                s->name);
        rc = EXP_EXIT_USAGE;
      }
    }
  }
  cache_save(&mc);
  cache_free(&mc);
  if (rc < 0 && (filter_section(cfg, &list) != 0 || unique_labels(&list) != 0)) {
    exp_say(&cfg->log, EXP_SAY_ERROR, "out of memory");
    rc = EXP_EXIT_USAGE;
  }
  if (rc >= 0) {
    exp_probs_free(list.p, list.n);
    return rc;
  }
  *probs = list.p;
  *np = list.n;
  return -1;
}
