/*
 * io_dl.c -- HDF5, libfclib and libmatio, opened the first time a file
 * needs them (io_dl_api.h; docs/io.md, "How HDF5, libfclib and libmatio
 * are loaded").
 *
 * HDF5 brings about thirty libraries of its own (curl, TLS, LDAP, Kerberos,
 * ...); linked as a dependency of libio, the dynamic loader mapped and
 * relocated all of them in every process of the toolkit, `lcplab solve` of
 * a 2-variable LCP included, although only FCLIB files and MAT-files need
 * them.  libio opens the three by the sonames configure found
 * (IO_HDF5_SONAME, ...), checks that HDF5's version is the headers' (the
 * headers' macros and types are those of one release), and looks up the
 * table of io_dl_api.h once.
 *
 * The table is filled once per process under pthread_once and only read
 * afterwards: state that no caller can change, as a dynamic linker's.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#define _GNU_SOURCE /* RTLD_DEFAULT */

#include "io_dl_api.h"
#include "io_internal.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static io_dl_api api;                                /* filled by load_libraries, then read only */
static char load_error[512] = "HDF5 was not loaded"; /* "" once loaded */

/* dlopen of one library; its handle, or NULL with the reason. */
static void *open_library(const char *soname) {
  void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
  if (h) return h;
  const char *why = dlerror();
  snprintf(load_error, sizeof load_error,
           "%s cannot be loaded (%s): apt-get install libhdf5-dev libfclib-dev libmatio-dev",
           soname, why ? why : "?");
  return NULL;
}

/* One function of a library into *slot; 0, or -1 with the reason. */
static int find(void *h, const char *soname, const char *name, void **slot) {
  dlerror();
  *slot = dlsym(h, name);
  if (*slot) return 0;
  const char *why = dlerror();
  snprintf(load_error, sizeof load_error, "%s has no %s (%s)", soname, name, why ? why : "NULL");
  return -1;
}

/* One variable of HDF5: the program's copy when the program was linked
 * with HDF5 and names the variable (a copy relocation: HDF5 then reads and
 * writes that copy, not its own), else the library's. */
static int find_variable(void *h, const char *name, void **slot) {
  dlerror();
  *slot = dlsym(RTLD_DEFAULT, name);
  if (*slot) return 0;
  return find(h, IO_HDF5_SONAME, name, slot);
}

/* HDF5's release is the headers' (H5check_version would abort otherwise);
 * 0, or -1 with the reason. */
static int check_hdf5_version(const io_dl_api *a) {
  unsigned maj = 0, min = 0, rel = 0;
  if (a->H5get_libversion(&maj, &min, &rel) >= 0 && maj == H5_VERS_MAJOR && min == H5_VERS_MINOR &&
      rel == H5_VERS_RELEASE)
    return 0;
  snprintf(load_error, sizeof load_error,
           "%s is HDF5 %u.%u.%u, lcplab was built with the headers of %d.%d.%d: rebuild lcplab",
           IO_HDF5_SONAME, maj, min, rel, H5_VERS_MAJOR, H5_VERS_MINOR, H5_VERS_RELEASE);
  return -1;
}

/* POSIX: a function pointer and a void * convert through dlsym's result */
#define FIND_HDF5(name)                                                                            \
  if (find(h5, IO_HDF5_SONAME, #name, (void **)&a.name)) return;
#define FIND_HDF5_VARIABLE(name)                                                                   \
  if (find_variable(h5, #name, (void **)&a.name)) return;
#define FIND_FCLIB(name)                                                                           \
  if (find(fc, IO_FCLIB_SONAME, #name, (void **)&a.name)) return;
#define FIND_MATIO(name)                                                                           \
  if (find(mat, IO_MATIO_SONAME, #name, (void **)&a.name)) return;

static void load_libraries(void) {
  void *h5 = open_library(IO_HDF5_SONAME);
  if (!h5) return;
  io_dl_api a;
  IO_DL_HDF5_FUNCTIONS(FIND_HDF5)
  if (check_hdf5_version(&a)) return;
  IO_DL_HDF5_VARIABLES(FIND_HDF5_VARIABLE)
  void *fc = open_library(IO_FCLIB_SONAME);
  if (!fc) return;
  IO_DL_FCLIB_FUNCTIONS(FIND_FCLIB)
  void *mat = open_library(IO_MATIO_SONAME);
  if (!mat) return;
  IO_DL_MATIO_FUNCTIONS(FIND_MATIO)
  api = a;
  load_error[0] = '\0';
}

slv_status io_dl_ready(const char *path, const char *what, char *err, size_t errlen) {
  pthread_once(&load_once, load_libraries);
  if (!load_error[0]) return SLV_OK;
  io_msgf(err, errlen, "%s: %s needs HDF5, libfclib and libmatio: %s", path ? path : "(no name)",
          what, load_error);
  return SLV_ERR_UNSUPPORTED;
}

const io_dl_api *io_dl(void) { return &api; }
