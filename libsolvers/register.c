/* register.c -- solvers added at run time (slv.h, "solvers added at run
 * time"; docs/plugins.md).
 *
 * A registered solver is a slv_solver like a built-in one: its descriptor
 * points to an slv_impl whose functions (reg_init, reg_free, reg_solve)
 * hand the call on to the def's public functions, so slv_solve validates,
 * checks capabilities, starts, polls, measures and judges it through the
 * same code as pgs.  The only difference is what the solver sees: the
 * validated slv_problem instead of the private operator, and an slv_call
 * (its poll, counts and message) instead of the history recorder.
 *
 * Where the table lives (docs/plugins.md, "Where registered solvers
 * live"): one process-wide array of SLV_REGISTER_MAX entries, the
 * library's one piece of mutable state.  Every lookup by name
 * (slv_solver_find: world settings, experiment files, the command line,
 * Python) would otherwise need a registry object passed through each
 * layer.  The table is append-only: an entry is filled completely, then
 * published by raising the count, both under one mutex; no entry is ever
 * removed or moved, so a descriptor pointer stays valid for the life of
 * the process and readers hold the lock only to read the count.  The one
 * field that changes is an entry's caps, by its registrant
 * (slv_solver_set_caps: Python's register_solver again with other caps),
 * under the same mutex.  No allocation: names and texts are copied into
 * the entry's arrays.
 */
#include "slv_internal.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define REG_TEXT   160
#define REG_PARAMS 480
#define REG_ORIGIN 1024

typedef struct reg_entry {
  slv_solver desc;
  slv_impl impl;
  slv_solver_def def;
  char name[SLV_SOLVER_NAME_MAX + 1];
  char summary[REG_TEXT], cite[64], params[REG_PARAMS], origin[REG_ORIGIN];
} reg_entry;

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static reg_entry reg_table[SLV_REGISTER_MAX];
static int reg_count;

/* The state of a registered solver's workspace: its def, then the def's
 * own state_size bytes, aligned as malloc aligns. */
typedef struct reg_state {
  const slv_solver_def *def;
} reg_state;

#define REG_ALIGN 16
#define REG_HEAD  ((sizeof(reg_state) + REG_ALIGN - 1) / REG_ALIGN * REG_ALIGN)

static void *user_state(void *state) { return (char *)state + REG_HEAD; }

void slv_registered_bind(void *state, const slv_solver_def *def) {
  ((reg_state *)state)->def = def;
}

static slv_status reg_init(void *state, int n_max, const slv_options *opt) {
  const slv_solver_def *d = ((reg_state *)state)->def;
  return d->init ? d->init(user_state(state), n_max, opt, d->ctx) : SLV_OK;
}

static void reg_free(void *state) {
  const slv_solver_def *d = ((reg_state *)state)->def;
  if (d && d->free) d->free(user_state(state), d->ctx);
}

/* The call a registered solver gets (slv.h, slv_call). */
struct slv_call {
  slv_op *op;
  slv_result *res;
  slv_hist *h;
};

slv_status slv_call_poll(slv_call *c, double work) {
  return c ? slv_should_stop(c->op, work > 0 ? work : 0) : SLV_CONVERGED;
}

void slv_call_iteration(slv_call *c, int iterations, double own_residual) {
  if (!c) return;
  c->res->iterations = iterations;
  c->res->solver_residual = own_residual;
  if (!isnan(own_residual)) slv_history_push(c->h, c->res, own_residual);
}

void slv_call_pivots(slv_call *c, int pivots) {
  if (c) c->res->pivots = pivots;
}

void slv_call_message(slv_call *c, const char *fmt, ...) {
  if (!c || !fmt) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(c->res->message, sizeof c->res->message, fmt, ap);
  va_end(ap);
}

/* One of slv_status's values? */
static int known_status(int st) { return st >= SLV_ERR_OPTIONS && st <= SLV_ERROR; }

static slv_status reg_solve(void *state, slv_op *op, const slv_options *opt, double *x, double *w,
                            slv_result *res, slv_hist *h) {
  const slv_solver_def *d = ((reg_state *)state)->def;
  slv_call c = { op, res, h };
  /* the solver gets a copy of the problem's fields: a cast that writes
   * them (n, a pointer) changes nothing the judge reads; its arrays are
   * the caller's, checked by slv_solve (digest.c) */
  slv_problem p = *op->p;
  int st = (int)d->solve(user_state(state), &c, &p, opt, x, w, d->ctx);
  if (known_status(st)) return (slv_status)st;
  slv_msgf(res->message, sizeof res->message,
           "%s returned status %d, which is none of slv.h's; taken as stagnated", d->name, st);
  return SLV_STAGNATED;
}

/* ---- registration ----------------------------------------------------------------------------- */

static int name_ok(const char *name) {
  size_t n = strlen(name);
  if (n == 0 || n > SLV_SOLVER_NAME_MAX || strcmp(name, "all") == 0) return 0;
  for (size_t i = 0; i < n; i++) {
    char ch = name[i];
    int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
             ch == '_' || ch == '.' || ch == '+' || ch == '-';
    if (!ok) return 0;
  }
  return 1;
}

#define KNOWN_CAPS                                                                                 \
  (SLV_CAP_BOX | SLV_CAP_FREE | SLV_CAP_FINDEX | SLV_CAP_CONE | SLV_CAP_SPARSE |                   \
   SLV_CAP_ONLY_FREE | SLV_CAP_NEEDS_POS_DIAG | SLV_CAP_NEEDS_SYMMETRIC | SLV_CAP_FACTORED)

/* The def's fields, before the table is looked at: SLV_OK or the reason. */
static slv_status check_def(const slv_solver_def *d, char *msg, size_t len) {
  if (!d) {
    slv_msgf(msg, len, "no solver definition (NULL)");
    return SLV_ERR_INVALID;
  }
  if (d->abi != SLV_SOLVER_ABI) {
    slv_msgf(msg, len, "solver '%.*s' was built for solver ABI %d; this library has ABI %d",
             SLV_SOLVER_NAME_MAX, d->name ? d->name : "?", d->abi, SLV_SOLVER_ABI);
    return SLV_ERR_INVALID;
  }
  if (!d->name || !name_ok(d->name)) {
    slv_msgf(msg, len, "solver name '%.*s': use 1 to %d letters, digits and _.+- (and not 'all')",
             SLV_SOLVER_NAME_MAX + 1, d->name ? d->name : "(null)", SLV_SOLVER_NAME_MAX);
    return SLV_ERR_INVALID;
  }
  if (!d->solve) {
    slv_msgf(msg, len, "solver '%s' has no solve function", d->name);
    return SLV_ERR_INVALID;
  }
  if (d->caps & ~(unsigned)KNOWN_CAPS) {
    slv_msgf(msg, len, "solver '%s': caps 0x%x has bits no SLV_CAP_* names", d->name, d->caps);
    return SLV_ERR_INVALID;
  }
  if (d->max_n < 0 || d->state_size > ((size_t)1 << 40)) {
    slv_msgf(msg, len, "solver '%s': max_n %d < 0 or state_size %zu too large", d->name, d->max_n,
             d->state_size);
    return SLV_ERR_INVALID;
  }
  return SLV_OK;
}

/* entry e from d (the table's lock held, e not yet published). */
static void fill_entry(reg_entry *e, const slv_solver_def *d, const char *origin) {
  memset(e, 0, sizeof *e);
  slv_msgf(e->name, sizeof e->name, "%s", d->name);
  slv_msgf(e->summary, sizeof e->summary, "%s", d->summary ? d->summary : "");
  slv_msgf(e->cite, sizeof e->cite, "%s", d->cite ? d->cite : "");
  slv_msgf(e->params, sizeof e->params, "%s", d->params ? d->params : "");
  slv_msgf(e->origin, sizeof e->origin, "%s", origin ? origin : "");
  e->def = *d;
  e->def.name = e->name;
  e->def.summary = e->summary;
  e->def.cite = e->cite;
  e->def.params = e->params;
  e->impl = (slv_impl){ .state_size = REG_HEAD + d->state_size,
                        .init = reg_init,
                        .free = reg_free,
                        .solve = reg_solve,
                        .def = &e->def };
  e->desc = (slv_solver){ .name = e->name,
                          .summary = e->summary,
                          .cite = e->cite,
                          .caps = d->caps,
                          .max_n = d->max_n,
                          .impl = &e->impl,
                          .params = e->params };
}

slv_status slv_solver_register(const slv_solver_def *def, const char *origin, char *msg,
                               size_t len) {
  if (msg && len) msg[0] = 0;
  slv_status st = check_def(def, msg, len);
  if (st) return st;
  pthread_mutex_lock(&reg_lock);
  const slv_solver *had = NULL;
  for (int i = 0; i < slv_solver_count_builtin() && !had; i++)
    if (strcmp(slv_solver_builtin_at(i)->name, def->name) == 0) had = slv_solver_builtin_at(i);
  for (int i = 0; i < reg_count && !had; i++)
    if (strcmp(reg_table[i].name, def->name) == 0) had = &reg_table[i].desc;
  if (had) {
    const char *o = slv_solver_origin(had);
    slv_msgf(msg, len, "solver name '%s' is taken by %s%s%s", def->name,
             o ? "a registered solver" : "a built-in solver", o && o[0] ? " from " : "",
             o ? o : "");
    st = SLV_ERR_INVALID;
  } else if (reg_count == SLV_REGISTER_MAX) {
    slv_msgf(msg, len, "solver '%s': the table of registered solvers is full (%d)", def->name,
             SLV_REGISTER_MAX);
    st = SLV_ERR_INVALID;
  } else {
    fill_entry(&reg_table[reg_count], def, origin);
    reg_count++; /* published: the entry is complete */
  }
  pthread_mutex_unlock(&reg_lock);
  return st;
}

/* The table's entry named name, or NULL (the lock held). */
static reg_entry *entry_named(const char *name) {
  for (int i = 0; i < reg_count; i++)
    if (strcmp(reg_table[i].name, name) == 0) return &reg_table[i];
  return NULL;
}

slv_status slv_solver_set_caps(const char *name, const char *origin, unsigned caps, char *msg,
                               size_t len) {
  if (msg && len) msg[0] = 0;
  if (!name) {
    slv_msgf(msg, len, "no solver name (NULL)");
    return SLV_ERR_INVALID;
  }
  if (caps & ~(unsigned)KNOWN_CAPS) {
    slv_msgf(msg, len, "solver '%.*s': caps 0x%x has bits no SLV_CAP_* names", SLV_SOLVER_NAME_MAX,
             name, caps);
    return SLV_ERR_INVALID;
  }
  pthread_mutex_lock(&reg_lock);
  reg_entry *e = entry_named(name);
  slv_status st = SLV_ERR_INVALID;
  if (!e)
    slv_msgf(msg, len, "solver '%.*s' is not a registered solver (a built-in one keeps its caps)",
             SLV_SOLVER_NAME_MAX, name);
  else if (strcmp(e->origin, origin ? origin : "") != 0)
    slv_msgf(msg, len, "solver '%s' was registered from %s, not from %s: its caps stay", e->name,
             e->origin[0] ? e->origin : "(no origin)",
             origin && origin[0] ? origin : "(no origin)");
  else {
    e->def.caps = caps;
    e->desc.caps = caps;
    st = SLV_OK;
  }
  pthread_mutex_unlock(&reg_lock);
  return st;
}

int slv_registered_count(void) {
  pthread_mutex_lock(&reg_lock);
  int n = reg_count;
  pthread_mutex_unlock(&reg_lock);
  return n;
}

const slv_solver *slv_registered_at(int i) {
  return i >= 0 && i < slv_registered_count() ? &reg_table[i].desc : NULL;
}

const char *slv_solver_origin(const slv_solver *s) {
  if (!s || !s->impl || !s->impl->def) return NULL;
  const reg_entry *e = (const reg_entry *)((const char *)s - offsetof(reg_entry, desc));
  return e->origin;
}
