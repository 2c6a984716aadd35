/* test_model_files.c -- mdl_model_files (libmodels, mdl.h): the files a
 * read of a model file opens, the content a campaign keys a model line's
 * tasks on (experiments/CAMPAIGNS.md, "Results keyed by content").
 *
 * Hand-made files with a known answer:
 *   - MJCF: an <include> whose name is written with an entity (a&amp;b.xml),
 *     an include of an include (named relative to the model's folder, as
 *     MuJoCo resolves them), an include loop (followed once), a mesh in
 *     <compiler meshdir>, a cube texture's fileright in texturedir, a mesh
 *     by absolute path: all listed, each once; an include in a comment and
 *     one in a CDATA section, and a mesh that does not exist: not listed;
 *   - URDF: a mesh filename package://robot/meshes/leg.stl with the
 *     <mujoco><compiler meshdir="meshes"/> extension: meshes/leg.stl (the
 *     name stripped of its folders, as a URDF's strippath default);
 *   - a missing model file: MDL_ERR_FILE, its name in the message.
 */
#define _GNU_SOURCE

#include "mdl.h"
#include "tst_util.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[256], real_dir[PATH_MAX];

/* dir/name (made with its text). */
static void put(const char *name, const char *text) {
  char path[PATH_MAX];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  fputs(text, f);
  CU_ASSERT_EQUAL(fclose(f), 0);
}

static void sub(const char *name) {
  char path[PATH_MAX];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  CU_ASSERT_EQUAL(mkdir(path, 0777), 0);
}

/* 1 when files holds real_dir/name. */
static int listed(char **files, int n, const char *name) {
  char want[PATH_MAX + 64];
  snprintf(want, sizeof want, "%s/%s", real_dir, name);
  for (int k = 0; k < n; k++)
    if (strcmp(files[k], want) == 0) return 1;
  return 0;
}

static void test_mjcf(void) {
  sub("meshes");
  sub("tex");
  sub("parts");
  char abs_mesh[PATH_MAX + 32], top[PATH_MAX + 1024];
  snprintf(abs_mesh, sizeof abs_mesh, "%s/abs.stl", dir);
  put("abs.stl", "solid x\nendsolid x\n");
  put("meshes/m.stl", "solid m\nendsolid m\n");
  put("tex/r.png", "png");
  put("a&b.xml", "<mujocoinclude><include file='parts/inner.xml'/></mujocoinclude>\n");
  put("parts/inner.xml", "<mujocoinclude>\n<include file=\"top.xml\"/>\n</mujocoinclude>\n");
  put("commented.xml", "<mujocoinclude/>\n");
  put("cdata.xml", "<mujocoinclude/>\n");
  snprintf(top, sizeof top,
           "<?xml version=\"1.0\"?>\n<mujoco model=\"t\">\n"
           "  <!-- <include file=\"commented.xml\"/> -->\n"
           "  <compiler meshdir=\"meshes\" texturedir='tex/'/>\n"
           "  <![CDATA[ <include file=\"cdata.xml\"/> ]]>\n"
           "  <asset>\n    <mesh name=\"m\" file=\"m.stl\"/>\n"
           "    <mesh name=\"gone\" file=\"missing.stl\"/>\n"
           "    <mesh name=\"abs\" file=\"%s\"/>\n"
           "    <texture name=\"sky\" type=\"cube\" fileright=\"r.png\"/>\n  </asset>\n"
           "  <include file=\"a&amp;b.xml\"/>\n</mujoco>\n",
           abs_mesh);
  put("top.xml", top);
  char path[PATH_MAX], msg[512] = "", **files = NULL;
  int n = 0;
  snprintf(path, sizeof path, "%s/top.xml", dir);
  mdl_err e = mdl_model_files(path, &files, &n, msg, sizeof msg);
  if (e != MDL_OK) printf("\n    %s\n", msg);
  CU_ASSERT_EQUAL_FATAL(e, MDL_OK);
  CU_ASSERT_EQUAL(n, 6);
  CU_ASSERT(n > 0 && listed(files, 1, "top.xml")); /* the model first */
  CU_ASSERT(listed(files, n, "a&b.xml"));
  CU_ASSERT(listed(files, n, "parts/inner.xml"));
  CU_ASSERT(listed(files, n, "meshes/m.stl"));
  CU_ASSERT(listed(files, n, "tex/r.png"));
  CU_ASSERT(listed(files, n, "abs.stl"));
  CU_ASSERT(!listed(files, n, "commented.xml"));
  CU_ASSERT(!listed(files, n, "cdata.xml"));
  mdl_model_files_free(files, n);
}

static void test_urdf(void) {
  sub("robot");
  sub("robot/meshes");
  put("robot/meshes/leg.stl", "solid l\nendsolid l\n");
  put("robot/r.urdf", "<robot name=\"r\">\n"
                      "  <mujoco><compiler meshdir=\"meshes\" discardvisual=\"false\"/></mujoco>\n"
                      "  <link name=\"leg\"><collision><geometry>\n"
                      "    <mesh filename=\"package://robot/meshes/leg.stl\"/>\n"
                      "  </geometry></collision></link>\n</robot>\n");
  char path[PATH_MAX], msg[512] = "", **files = NULL;
  int n = 0;
  snprintf(path, sizeof path, "%s/robot/r.urdf", dir);
  CU_ASSERT_EQUAL_FATAL(mdl_model_files(path, &files, &n, msg, sizeof msg), MDL_OK);
  CU_ASSERT_EQUAL(n, 2);
  CU_ASSERT(listed(files, n, "robot/r.urdf"));
  CU_ASSERT(listed(files, n, "robot/meshes/leg.stl"));
  mdl_model_files_free(files, n);
}

static void test_missing(void) {
  char path[PATH_MAX], msg[512] = "", **files = NULL;
  int n = 7;
  snprintf(path, sizeof path, "%s/nothere.xml", dir);
  CU_ASSERT_EQUAL(mdl_model_files(path, &files, &n, msg, sizeof msg), MDL_ERR_FILE);
  CU_ASSERT_PTR_NULL(files);
  CU_ASSERT_EQUAL(n, 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "nothere.xml"));
}

/* The files and folders the tests made (tst_tmpdir_remove is not recursive). */
static void clean(void) {
  static const char *const files[] = { "robot/meshes/leg.stl", "robot/r.urdf",
                                       "meshes/m.stl",         "tex/r.png",
                                       "parts/inner.xml",      NULL };
  static const char *const dirs[] = { "robot/meshes", "robot", "meshes", "tex", "parts", NULL };
  char path[PATH_MAX];
  for (int k = 0; files[k]; k++) {
    snprintf(path, sizeof path, "%s/%s", dir, files[k]);
    unlink(path);
  }
  for (int k = 0; dirs[k]; k++) {
    snprintf(path, sizeof path, "%s/%s", dir, dirs[k]);
    rmdir(path);
  }
}

int main(void) {
  if (tst_tmpdir_make(dir, sizeof dir, "test_model_files") != 0 || !realpath(dir, real_dir))
    return 1;
  CU_initialize_registry();
  CU_pSuite s = CU_add_suite("model files", NULL, NULL);
  CU_add_test(s, "MJCF: includes, meshdir, texturedir, absolute; not comments, CDATA", test_mjcf);
  CU_add_test(s, "URDF: a package:// mesh found in meshdir", test_urdf);
  CU_add_test(s, "a missing model file: MDL_ERR_FILE naming it", test_missing);
  int rc = tst_run();
  clean();
  tst_tmpdir_remove(dir);
  return rc;
}
