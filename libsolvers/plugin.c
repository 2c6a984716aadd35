/* plugin.c -- loading C plugins: shared libraries that register solvers
 * when loaded (docs/plugins.md, "C plugins").  Any program linking
 * libsolvers can load one; lcplab's engine (libexperiment) calls this too
 * and keys tasks by the plugin's content on top.
 *
 * A plugin defines SLV_PLUGIN_ABI_DEFINE (the int slv_plugin_abi, the
 * SLV_SOLVER_ABI it was compiled with) and the function slv_plugin_init,
 * which calls slv_solver_register for each of its solvers.  Loading one:
 *   1. its path, links resolved (realpath);
 *   2. dlopen by that absolute path (RTLD_NOW: a missing symbol fails
 *      here, not in a solve; no search path, no shell: a name with
 *      ' " $( ) ` ; in it is only a file name);
 *   3. slv_plugin_abi read and compared with this library's before any of
 *      its code is called (a mismatch names both versions);
 *   4. slv_plugin_init(real path) registers its solvers (slv_solver_register
 *      refuses a name taken, naming the plugin that has it); registering
 *      none is an error (a plugin linked against another copy of
 *      libsolvers fills that copy's table).
 * A plugin loaded is never unloaded (its functions are in the solver
 * table), and loading the same file again is nothing.  The table of loaded
 * plugins mirrors what dlopen holds for the whole process: process-wide,
 * append-only, guarded by a mutex, as the table of registered solvers
 * (register.c; docs/plugins.md, "Where registered solvers live").
 */
#define _GNU_SOURCE

#include "slv_internal.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

static pthread_mutex_t plugin_lock = PTHREAD_MUTEX_INITIALIZER;
static char plugin_paths[SLV_MAX_PLUGINS][PATH_MAX]; /* real paths, in load order */
static int nplugins;

static void say(char *err, size_t len, const char *fmt, ...) {
  if (!err || len == 0) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, len, fmt, ap);
  va_end(ap);
}

static int loaded_index(const char *real) {
  for (int k = 0; k < nplugins; k++)
    if (strcmp(plugin_paths[k], real) == 0) return k;
  return -1;
}

/* The plugin's two symbols, checked (steps 2-3): its init function, or
 * NULL with err (the library closed). */
static slv_plugin_init_fn open_checked(const char *path, const char *real, char *err, size_t len) {
  dlerror();
  void *h = dlopen(real, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char *why = dlerror();
    say(err, len, "plugin %s: not a shared library lcplab can load (%s)", path,
        why ? why : "dlopen failed");
    return NULL;
  }
  const int *abi = (const int *)dlsym(h, "slv_plugin_abi");
  slv_plugin_init_fn init = NULL;
  *(void **)&init = dlsym(h, "slv_plugin_init");
  if (!abi || !init) {
    say(err, len,
        "plugin %s: no %s: not an lcplab plugin (it must define SLV_PLUGIN_ABI_DEFINE and "
        "slv_plugin_init; docs/plugins.md)",
        path, !abi ? "slv_plugin_abi" : "slv_plugin_init function");
    dlclose(h);
    return NULL;
  }
  if (*abi != SLV_SOLVER_ABI) {
    say(err, len,
        "plugin %s: built for solver ABI %d, this lcplab has solver ABI %d: rebuild it "
        "against this lcplab's slv.h",
        path, *abi, SLV_SOLVER_ABI);
    dlclose(h);
    return NULL;
  }
  return init;
}

/* Steps 2-4 on the real path (the lock held): SLV_OK, or SLV_ERR_INVALID
 * with err. */
static slv_status open_and_init(const char *path, const char *real, char *err, size_t len) {
  slv_plugin_init_fn init = open_checked(path, real, err, len);
  if (!init) return SLV_ERR_INVALID;
  char msg[512] = "";
  int before = slv_solver_count();
  slv_status st = init(real, msg, sizeof msg);
  if (st != SLV_OK) { /* never unloaded: a solver it registered before failing stays */
    say(err, len, "plugin %s: registration failed: %s", path, msg[0] ? msg : slv_status_str(st));
    return SLV_ERR_INVALID;
  }
  /* a plugin linked against another copy of libsolvers registers there */
  if (slv_solver_count() == before) {
    say(err, len,
        "plugin %s: registered no solver here (is it linked against another libsolvers "
        "than this lcplab's? build it with pkg-config --libs lcplab-solvers)",
        path);
    return SLV_ERR_INVALID;
  }
  return SLV_OK;
}

slv_status slv_plugin_load(const char *path, char *err, size_t len) {
  char real[PATH_MAX];
  if (!path || !path[0]) {
    say(err, len, "plugin: an empty path");
    return SLV_ERR_INVALID;
  }
  if (!realpath(path, real)) {
    say(err, len, "plugin %s: not found", path);
    return SLV_ERR_INVALID;
  }
  pthread_mutex_lock(&plugin_lock);
  slv_status st = SLV_OK;
  if (loaded_index(real) < 0) {
    if (nplugins == SLV_MAX_PLUGINS) {
      say(err, len, "plugin %s: more than %d plugins", path, SLV_MAX_PLUGINS);
      st = SLV_ERR_INVALID;
    } else if ((st = open_and_init(path, real, err, len)) == SLV_OK) {
      snprintf(plugin_paths[nplugins], sizeof plugin_paths[nplugins], "%s", real);
      nplugins++;
    }
  }
  pthread_mutex_unlock(&plugin_lock);
  return st;
}

slv_status slv_plugins_load_list(const char *list, char *err, size_t len) {
  if (!list) return SLV_OK;
  for (const char *p = list; *p;) {
    const char *e = strchr(p, ':');
    size_t n = e ? (size_t)(e - p) : strlen(p);
    if (n > 0) {
      char path[PATH_MAX];
      if (n >= sizeof path) {
        say(err, len, "plugin path of %zu characters: too long", n);
        return SLV_ERR_INVALID;
      }
      memcpy(path, p, n);
      path[n] = 0;
      if (slv_plugin_load(path, err, len) != SLV_OK) return SLV_ERR_INVALID;
    }
    p += n + (e ? 1 : 0);
  }
  return SLV_OK;
}

int slv_plugin_count(void) {
  pthread_mutex_lock(&plugin_lock);
  int n = nplugins;
  pthread_mutex_unlock(&plugin_lock);
  return n;
}

const char *slv_plugin_path(int i) {
  /* an entry, once written, never changes: read without the lock */
  return i >= 0 && i < slv_plugin_count() ? plugin_paths[i] : NULL;
}
