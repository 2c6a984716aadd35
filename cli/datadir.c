/* datadir.c -- where the program finds the figure scripts exp_KIND.gp
 * (experiments/README.md, "Figures"): --scripts DIR when given, else
 * $LCPLAB_EXPERIMENTS, else the scripts that belong to this program: the
 * source tree's experiments/ for the build tree's lcplab, $(pkgdatadir)
 * (`make install` puts them there) for an installed one.  The three paths
 * are fixed when the program is compiled (Makefile.am, cli_lcplab_CPPFLAGS);
 * a DESTDIR or moved installation names its folder with LCPLAB_EXPERIMENTS.
 */
#define _DEFAULT_SOURCE

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

#ifndef LCPLAB_PKGDATADIR
#define LCPLAB_PKGDATADIR ""
#endif
#ifndef LCPLAB_BUILDDIR
#define LCPLAB_BUILDDIR ""
#endif
#ifndef LCPLAB_SRC_EXPERIMENTS
#define LCPLAB_SRC_EXPERIMENTS ""
#endif

/* 1 if dir (resolved) is the build tree's folder sub. */
static int is_build_folder(const char *dir, const char *sub) {
  char want[PATH_MAX];
  return realpath(sub, want) && strcmp(dir, want) == 0;
}

/* 1 if this process runs the build tree's program: BUILDDIR/cli/lcplab, or
 * the binary libtool's wrapper runs, BUILDDIR/cli/.libs/lcplab (lt-lcplab). */
static int in_build_tree(void) {
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0 || !LCPLAB_BUILDDIR[0]) return 0;
  exe[n] = '\0';
  char *slash = strrchr(exe, '/');
  if (!slash) return 0;
  *slash = '\0';
  return is_build_folder(exe, LCPLAB_BUILDDIR "/cli") ||
         is_build_folder(exe, LCPLAB_BUILDDIR "/cli/.libs");
}

const char *cli_scripts_default(void) {
  return in_build_tree() ? LCPLAB_SRC_EXPERIMENTS : LCPLAB_PKGDATADIR;
}

const char *cli_scripts_dir(const char *given) {
  const char *env = getenv("LCPLAB_EXPERIMENTS");
  return given ? given : (env && env[0]) ? env : cli_scripts_default();
}
