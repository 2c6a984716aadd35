/* fuzz_scene.c -- libFuzzer harness: scene parameters, from the command
 * line's options (cli_world_option: --scene, --param KEY=VALUE, --dt,
 * --friction, ...) to the scene API (dyn_scene_new, libdynamics/
 * dyn_world.h; tests/fuzz/README.md).
 *
 * The input is a command line: its words (split at white space) are the
 * arguments of `lcplab simulate`; words that are not world options are
 * skipped.  Then:
 *   - dyn_scene_new(scene, params) with the default settings must give a
 *     world, or DYN_ERR_INPUT with one non-empty line naming the problem;
 *   - cli_world_build (the settings from the options, then dyn_scene_new)
 *     must give a world or exit status 2;
 *   - every world built has finite body states: mass and inverse mass
 *     (> 0 for dynamic bodies), inertia, position, unit orientation,
 *     velocities.
 * Sizes are capped: an input with n > 200 or layers > 20 (210 cubes) is
 * skipped.  The builders are linear in the body count; a pyramid of 340
 * layers (57970 cubes) is legal, took 1 s per build here and 10 s under
 * load, and says nothing about parsing. */
#define _POSIX_C_SOURCE 200809L /* strtok_r */
#include "fuzz_util.h"
#include "cli.h"
#include "dyn_world.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_WORDS 128

static int too_big(const cli_world_args *a) {
  for (int k = 0; k < a->nparams; k++) {
    const char *p = a->params[k];
    const char *eq = strchr(p, '=');
    if (!eq) continue; /* not key=value: dyn_scene_new refuses it */
    double v = strtod(eq + 1, NULL);
    if (strncmp(p, "n=", 2) == 0 && !(v <= 200.0)) return 1;
    if (strncmp(p, "layers=", 7) == 0 && !(v <= 20.0)) return 1;
  }
  return 0;
}

static int finite3(dyn_v3 v) { return isfinite(v.x) && isfinite(v.y) && isfinite(v.z); }

static void check_world(dyn_world *w, const char *scene) {
  int nb = dyn_world_body_count(w);
  const dyn_body_state *b = dyn_world_body_states(w);
  const dyn_body_const *c = dyn_world_body_consts(w);
  for (int i = 0; i < nb; i++) {
    const dyn_body_state *bi = &b[i];
    const dyn_body_const *ci = &c[i];
    double qn = bi->q.w * bi->q.w + bi->q.x * bi->q.x + bi->q.y * bi->q.y + bi->q.z * bi->q.z;
    int ok = isfinite(ci->mass) && isfinite(ci->inv_mass) && finite3(bi->r) && finite3(bi->v) &&
             finite3(bi->w) && fabs(qn - 1.0) < 1e-9;
    for (int k = 0; k < 9; k++) ok = ok && isfinite(ci->I_b.m[k]) && isfinite(ci->inv_I_b.m[k]);
    if (!ci->is_static) ok = ok && ci->mass > 0 && ci->inv_mass > 0;
    if (!ok) fz_fail("scene %s: body %d of %d has a state that is not finite", scene, i, nb);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = malloc(size + 1);
  char *argv[MAX_WORDS + 1];
  int argc = 0;
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  argv[argc++] = "simulate";
  char *save = NULL;
  for (char *t = strtok_r(text, " \t\n\r\v\f", &save); t && argc < MAX_WORDS;
       t = strtok_r(NULL, " \t\n\r\v\f", &save))
    argv[argc++] = t;
  argv[argc] = NULL;
  cli_world_args a;
  cli_world_args_init(&a);
  int bad = 0;
  for (int i = 1; i < argc && !bad; i++) bad = cli_world_option("simulate", argc, argv, &i, &a) < 0;
  if (!bad && a.scene && !too_big(&a)) {
    dyn_world *w = NULL;
    char msg[512] = "";
    dyn_err e = dyn_scene_new(a.scene, a.params, a.nparams, NULL, &w, msg, sizeof msg);
    if (e == DYN_OK) {
      if (!w) fz_fail("dyn_scene_new: success without a world");
      check_world(w, a.scene);
    } else if (e != DYN_ERR_INPUT || w || !msg[0] || strchr(msg, '\n')) {
      fz_fail("dyn_scene_new: error %d, world %p, message '%s'", (int)e, (void *)w, msg);
    }
    dyn_world_free(w);
    long steps = 0;
    int rc = cli_world_build("simulate", &a, &w, &steps);
    if (rc == -1) {
      if (!w || steps < 1)
        fz_fail("cli_world_build: success with world %p, %ld steps", (void *)w, steps);
      check_world(w, a.scene);
    } else if (rc != CLI_EXIT_USAGE || w) {
      fz_fail("cli_world_build returned %d", rc);
    }
    dyn_world_free(w);
  }
  free(text);
  return 0;
}
