/*
 * mujoco_api.c -- libmujoco, loaded when a model file is first read or run
 * (mdl_internal.h, "libmujoco on first use"; docs/models.md, "How libmujoco
 * is loaded").
 *
 * libmujoco brings the C++ runtime and four libraries of its own; linked
 * as a dependency, the dynamic loader resolves all of them in every process
 * of the toolkit, `lcplab solve` of a 2-variable LCP and every Python
 * import included (about 9 M instructions at start-up).  Only reading or
 * running a model file needs it, so libmodels opens it then: dlopen of the
 * soname that matches the headers it was compiled with (mjVERSION_HEADER
 * 222: libmujoco.so.2.2.2), its functions and handler variables looked up
 * once, and the library's version checked against the headers' (the
 * structures mjModel and mjData are those of the headers).
 *
 * The table is filled once per process under pthread_once and only read
 * afterwards: state that no caller can change, as a dynamic linker's.
 */
#define _GNU_SOURCE /* RTLD_DEFAULT */

#include "mdl_internal.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static mdl_mujoco api; /* filled by load_library, then read only */
static char load_error[512] = "libmujoco was not loaded"; /* "" once loaded */

/* One symbol of the library into *slot; 0, or -1 with the reason. */
static int find(void *h, const char *name, void **slot) {
  dlerror();
  *slot = dlsym(h, name);
  if (*slot) return 0;
  const char *why = dlerror();
  snprintf(load_error, sizeof load_error, "libmujoco has no %s (%s)", name, why ? why : "NULL");
  return -1;
}

/* One variable of the library: the program's copy when the program was
 * linked with libmujoco and names the variable (a copy relocation: the
 * library then reads and writes that copy, not its own), else the
 * library's. */
static int find_variable(void *h, const char *name, void **slot) {
  dlerror();
  *slot = dlsym(RTLD_DEFAULT, name);
  if (*slot) return 0;
  return find(h, name, slot);
}

static void load_library(void) {
  char soname[64];
  snprintf(soname, sizeof soname, "libmujoco.so.%d.%d.%d", mjVERSION_HEADER / 100,
           mjVERSION_HEADER / 10 % 10, mjVERSION_HEADER % 10);
  void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char *why = dlerror();
    snprintf(load_error, sizeof load_error,
             "%s cannot be loaded (%s): apt-get install libmujoco-dev", soname, why ? why : "?");
    return;
  }
  mdl_mujoco a;
  /* POSIX: a function pointer and a void * convert through dlsym's result */
  if (find(h, "mj_loadXML", (void **)&a.loadXML) ||
      find(h, "mj_deleteModel", (void **)&a.deleteModel) ||
      find(h, "mj_makeData", (void **)&a.makeData) ||
      find(h, "mj_deleteData", (void **)&a.deleteData) || find(h, "mj_step", (void **)&a.step) ||
      find(h, "mj_kinematics", (void **)&a.kinematics) ||
      find(h, "mj_version", (void **)&a.version) || find(h, "mj_id2name", (void **)&a.id2name) ||
      find(h, "mj_name2id", (void **)&a.name2id) ||
      find(h, "mj_versionString", (void **)&a.versionString) ||
      find(h, "mju_error", (void **)&a.error) ||
      find_variable(h, "mju_user_error", (void **)&a.user_error) ||
      find_variable(h, "mju_user_warning", (void **)&a.user_warning))
    return;
  if (a.version() != mjVERSION_HEADER) {
    snprintf(load_error, sizeof load_error,
             "%s is MuJoCo %d, lcplab was built with the headers of %d: rebuild lcplab", soname,
             a.version(), mjVERSION_HEADER);
    return;
  }
  api = a;
  load_error[0] = '\0';
}

const mdl_mujoco *mdl_mujoco_load(char *err, size_t len) {
  pthread_once(&load_once, load_library);
  if (!load_error[0]) return &api;
  if (err && len) snprintf(err, len, "%s", load_error);
  return NULL;
}

/* The two name lookups of the mapping (mjcf_read*.c), which run on a model
 * the table has loaded: the table is there. */
const char *mdl_mujoco_id2name(const mjModel *m, int type, int id) {
  return api.id2name(m, type, id);
}

int mdl_mujoco_name2id(const mjModel *m, int type, const char *name) {
  return api.name2id(m, type, name);
}
