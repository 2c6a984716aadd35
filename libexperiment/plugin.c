/* plugin.c -- C plugins: shared libraries that register solvers when
 * loaded (docs/plugins.md, "C plugins").
 *
 * A plugin defines SLV_PLUGIN_ABI_DEFINE (the int slv_plugin_abi, the
 * SLV_SOLVER_ABI it was compiled with) and the function slv_plugin_init,
 * which calls slv_solver_register for each of its solvers.  Loading one:
 *   1. its path, links resolved (realpath), and the SHA-256 of its bytes
 *      (exp_program_hash: the content that keys its tasks, as an external's
 *      program does; experiments/CAMPAIGNS.md, "Results keyed by content");
 *   2. dlopen by that absolute path (RTLD_NOW: a missing symbol fails
 *      here, not in a solve; no search path, no shell: a name with
 *      ' " $( ) ` ; in it is only a file name);
 *   3. slv_plugin_abi read and compared with this library's before any of
 *      its code is called (a mismatch names both versions);
 *   4. slv_plugin_init(real path) registers its solvers (libsolvers refuses
 *      a name taken, naming the plugin that has it); registering none is
 *      an error (a plugin linked against another copy of libsolvers fills
 *      that copy's table).
 * A plugin loaded is never unloaded (its functions are in the solver
 * table), and loading the same file again is nothing.  The table of loaded
 * plugins mirrors what dlopen holds for the whole process: process-wide,
 * append-only, guarded by a mutex, as libsolvers' table of registered
 * solvers (docs/plugins.md, "Where registered solvers live").
 */
#define _GNU_SOURCE

#include "exp_internal.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct loaded_plugin {
  char path[EXP_PATH_MAX]; /* real path */
  char sha256[65];
} loaded_plugin;

static pthread_mutex_t plugin_lock = PTHREAD_MUTEX_INITIALIZER;
static loaded_plugin plugins[EXP_MAX_PLUGINS];
static int nplugins;

static int loaded_index(const char *real) {
  for (int k = 0; k < nplugins; k++)
    if (strcmp(plugins[k].path, real) == 0) return k;
  return -1;
}

/* Steps 2-4 on the real path (the lock held): 0, or -1 with err. */
static int open_and_init(const char *path, const char *real, char *err, size_t len) {
  dlerror();
  void *h = dlopen(real, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char *why = dlerror();
    exp_fmt(err, len, "plugin %s: not a shared library lcplab can load (%s)", path,
            why ? why : "dlopen failed");
    return -1;
  }
  const int *abi = (const int *)dlsym(h, "slv_plugin_abi");
  slv_plugin_init_fn init = NULL;
  *(void **)&init = dlsym(h, "slv_plugin_init");
  if (!abi || !init) {
    exp_fmt(err, len,
            "plugin %s: no %s: not an lcplab plugin (it must define SLV_PLUGIN_ABI_DEFINE and "
            "slv_plugin_init; docs/plugins.md)",
            path, !abi ? "slv_plugin_abi" : "slv_plugin_init function");
    dlclose(h);
    return -1;
  }
  if (*abi != SLV_SOLVER_ABI) {
    exp_fmt(err, len,
            "plugin %s: built for solver ABI %d, this lcplab has solver ABI %d: rebuild it "
            "against this lcplab's slv.h",
            path, *abi, SLV_SOLVER_ABI);
    dlclose(h);
    return -1;
  }
  char msg[512] = "";
  int before = slv_solver_count();
  slv_status st = init(real, msg, sizeof msg);
  if (st != SLV_OK) { /* never unloaded: a solver it registered before failing stays */
    exp_fmt(err, len, "plugin %s: registration failed: %s", path,
            msg[0] ? msg : slv_status_str(st));
    return -1;
  }
  /* a plugin linked against another copy of libsolvers registers there */
  if (slv_solver_count() == before) {
    exp_fmt(err, len,
            "plugin %s: registered no solver here (is it linked against another libsolvers "
            "than this lcplab's? build it with pkg-config --libs lcplab-solvers)",
            path);
    return -1;
  }
  return 0;
}

int exp_plugin_load(const char *path, char *err, size_t len) {
  char real[EXP_PATH_MAX], sha[65];
  if (!path || !path[0]) {
    exp_fmt(err, len, "plugin: an empty path");
    return -1;
  }
  if (exp_program_hash(path, real, sizeof real, sha, err, len) != 0) {
    char why[EXP_PATH_MAX + 64];
    exp_fmt(why, sizeof why, "%s", err);
    exp_fmt(err, len, "plugin %s", why);
    return -1;
  }
  pthread_mutex_lock(&plugin_lock);
  int rc = 0;
  if (loaded_index(real) < 0) {
    if (nplugins == EXP_MAX_PLUGINS) {
      exp_fmt(err, len, "plugin %s: more than %d plugins", path, EXP_MAX_PLUGINS);
      rc = -1;
    } else if ((rc = open_and_init(path, real, err, len)) == 0) {
      exp_fmt(plugins[nplugins].path, sizeof plugins[nplugins].path, "%s", real);
      memcpy(plugins[nplugins].sha256, sha, sizeof sha);
      nplugins++;
    }
  }
  pthread_mutex_unlock(&plugin_lock);
  return rc;
}

int exp_plugins_load_list(const char *list, char *err, size_t len) {
  if (!list) return 0;
  for (const char *p = list; *p;) {
    const char *e = strchr(p, ':');
    size_t n = e ? (size_t)(e - p) : strlen(p);
    if (n > 0) {
      char path[EXP_PATH_MAX];
      if (n >= sizeof path) {
        exp_fmt(err, len, "plugin path of %zu characters: too long", n);
        return -1;
      }
      memcpy(path, p, n);
      path[n] = 0;
      if (exp_plugin_load(path, err, len) != 0) return -1;
    }
    p += n + (e ? 1 : 0);
  }
  return 0;
}

int exp_plugin_count(void) {
  pthread_mutex_lock(&plugin_lock);
  int n = nplugins;
  pthread_mutex_unlock(&plugin_lock);
  return n;
}

const char *exp_plugin_path(int i) {
  return i >= 0 && i < exp_plugin_count() ? plugins[i].path : NULL;
}

const char *exp_plugin_sha256_of(const char *real) {
  for (int k = 0, n = exp_plugin_count(); real && k < n; k++)
    if (strcmp(plugins[k].path, real) == 0) return plugins[k].sha256;
  return NULL;
}
