/* cli_model.c -- scene models as files on the command line (cli.h;
 * docs/models.md, docs/usage.md "Scene files"):
 *
 *     lcplab simulate --scene NAME [--param k=v ...] --save-model FILE.xml [--force]
 *     lcplab simulate --model FILE [options]
 *     lcplab export   --model FILE [options]
 *
 * --save-model writes the scene's model as MJCF (libmodels' writer, at the
 * run's --dt and --gravity, and with the settings' mu for shapes of the
 * default material), prints one JSON line and exits: no step is run.  --model
 * reads an MJCF file through libmodels (MuJoCo's compiler, mapped onto a
 * scene model) and runs it as a scene: the file's timestep is the dt
 * unless --dt is given, its gravity the gravity unless --gravity is
 * (dyn_world_settings_for_model, the one rule of the settings a model also
 * holds).  A file that does not load or holds a feature
 * lcplab does not simulate is exit 2, with the file, the element and the
 * feature named.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "dyn_world.h"
#include "io.h"
#include "mdl.h"

const char *cli_world_name(const cli_world_args *a) {
  return a->scene ? a->scene : a->model ? a->model_name : "";
}

/* --ctrl against model m read for reduced (1) or maximal coordinates,
 * before any note (a refused control is one line): 0, or -1 after the
 * message naming the file and the item. */
static int check_ctrl(const char *cmd, const cli_world_args *a, const dyn_model *m, int reduced) {
  if (!a->ctrl) return 0;
  int n = dyn_model_actuator_count(m);
  double *ctrl = calloc((size_t)n + 1, sizeof *ctrl);
  char msg[512] = "out of memory";
  int bad = !ctrl || dyn_model_parse_ctrl(m, a->ctrl, ctrl, msg, sizeof msg) != DYN_OK ||
            dyn_model_check_ctrl(m, reduced, ctrl, n, msg, sizeof msg) != DYN_OK;
  free(ctrl);
  if (bad) cli_error("%s: %s: --ctrl: %s", cmd, a->model, msg);
  return bad ? -1 : 0;
}

int cli_world_model(const char *cmd, const cli_world_args *a, dyn_model **m, dyn_world_settings *s,
                    int *reduced) {
  *m = NULL;
  if (reduced) *reduced = a->reduced == 1;
  *s = a->set;
  char msg[1024] = "";
  if (a->scene && a->model) {
    cli_error("%s: --scene and --model both given: one scene at a time", cmd);
    return CLI_EXIT_USAGE;
  }
  if (a->scene) {
    if (dyn_scene_model(a->scene, a->params, a->nparams, m, msg, sizeof msg) != DYN_OK) {
      cli_error("%s: %s", cmd, msg[0] ? msg : "cannot build the scene");
      return CLI_EXIT_USAGE;
    }
    *s = dyn_world_settings_for_model(&a->set, *m, 0.0);
    return -1;
  }
  if (!a->model) {
    cli_error("%s: missing --scene NAME or --model FILE (see 'lcplab %s --help')", cmd, cmd);
    return CLI_EXIT_USAGE;
  }
  if (a->nparams > 0) {
    cli_error("%s: --param sets a built-in scene's parameters; a --model file has none", cmd);
    return CLI_EXIT_USAGE;
  }
  mdl_read_info info;
  mdl_read_options ro = mdl_read_options_default();
  ro.approximate = a->approximate;
  /* condim 4 and 6 as the world's friction model simulates them */
  ro.friction = (int)a->set.contact.friction;
  ro.reduced = a->reduced >= 0 ? a->reduced : reduced ? MDL_COORDINATES_FILE : 0;
  if (a->max_memory > 0) ro.max_memory = a->max_memory;
  if (mdl_read_model(a->model, &ro, m, &info, msg, sizeof msg) != MDL_OK) {
    cli_error("%s: %s", cmd, msg);
    return CLI_EXIT_USAGE;
  }
  if (check_ctrl(cmd, a, *m, info.reduced) != 0) {
    dyn_model_free(*m);
    *m = NULL;
    return CLI_EXIT_USAGE;
  }
  if (info.warnings[0]) cli_error("note: %s: %s: MuJoCo says: %s", cmd, a->model, info.warnings);
  if (info.notes[0]) cli_error("note: %s: %s: %s", cmd, a->model, info.notes);
  /* the file's timestep and gravity unless --dt and --gravity say otherwise */
  *s = dyn_world_settings_for_model(&a->set, *m, info.timestep);
  if (reduced) *reduced = info.reduced;
  return -1;
}

int cli_world_inputs(const cli_world_args *a, exp_inputs *in) {
  memset(in, 0, sizeof *in);
  if (exp_inputs_add_model(in, a->model) == 0) return 0;
  cli_error("out of memory listing the input files");
  exp_inputs_free(in);
  return -1;
}

int cli_world_output_is_input(const char *cmd, const cli_world_args *a, int n,
                              const char *const *what, const char *const *out) {
  exp_inputs in;
  if (cli_world_inputs(a, &in) != 0) return 1;
  int hit = 0;
  for (int k = 0; k < n && !hit; k++)
    hit = exp_output_is_input(cli_log(), cmd, what[k], out[k], &in);
  exp_inputs_free(&in);
  return hit;
}

void cli_json_model_settings(FILE *o, const dyn_world_settings *s) {
  double g[3] = { s->gravity.x, s->gravity.y, s->gravity.z };
  fputs(",\"gravity\":[", o);
  for (int k = 0; k < 3; k++) {
    if (k) fputc(',', o);
    cli_json_number(o, g[k], 17);
  }
  fputs("],\"overrides\":[", o);
  const char *key;
  for (int i = 0, n = 0; (key = dyn_world_settings_key(i)) != NULL; i++)
    if (dyn_world_settings_overrides(s, key)) {
      if (n++) fputc(',', o);
      cli_json_string(o, key);
    }
  fputc(']', o);
}

int cli_save_model(const char *cmd, const cli_world_args *a, const char *path, int force) {
  if (!path[0]) {
    cli_error("%s: --save-model needs a file name", cmd);
    return CLI_EXIT_USAGE;
  }
  const char *what = "--save-model";
  if (cli_world_output_is_input(cmd, a, 1, &what, &path) || cli_output_refused(path, force))
    return CLI_EXIT_USAGE;
  dyn_model *m = NULL;
  dyn_world_settings s;
  int rc = cli_world_model(cmd, a, &m, &s, NULL);
  if (rc >= 0) return rc;
  dyn_model_run_as(m, &s); /* --gravity into the file, as --dt */
  mdl_write_options o = mdl_write_options_default();
  o.dt = s.dt;
  o.default_mu = a->set.contact.mu;
  o.model_name = cli_world_name(a);
  char msg[1024] = "";
  /* "-" is the standard output (io_outfile); the JSON then goes to stderr */
  io_outfile *out = io_outfile_open(path, msg, sizeof msg);
  mdl_err e = MDL_ERR_IO;
  if (out) {
    e = mdl_write_mjcf(m, &o, io_outfile_stream(out), msg, sizeof msg);
    if (e != MDL_OK)
      io_outfile_discard(out);
    else if (io_outfile_publish(out, msg, sizeof msg) != SLV_OK) /* frees out */
      e = MDL_ERR_IO;
  }
  if (e != MDL_OK) {
    cli_error("%s: %s: %s", cmd, path, msg);
    dyn_model_free(m);
    return CLI_EXIT_USAGE;
  }
  FILE *j = cli_is_stdout(path) ? stderr : stdout;
  fputs("{\"saved\":", j);
  cli_json_string(j, path);
  fputs(",\"scene\":", j);
  cli_json_string(j, cli_world_name(a));
  fprintf(j, ",\"bodies\":%d,\"shapes\":%d,\"materials\":%d,\"joints\":%d,\"dt\":",
          dyn_model_body_count(m), dyn_model_shape_count(m), dyn_model_material_count(m),
          dyn_model_joint_count(m));
  cli_json_number(j, o.dt, 17);
  fputs("}\n", j);
  dyn_model_free(m);
  if (fflush(j) != 0 || ferror(j)) {
    cli_error("%s: cannot write to standard output", cmd);
    return CLI_EXIT_USAGE;
  }
  return CLI_EXIT_OK;
}
