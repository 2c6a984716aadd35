/*
 * scene_source.c -- the scene model and the world of a scene source
 * (exp_task.h): a named scene with the line's parameters (libdynamics'
 * dyn_scene_model / dyn_scene_new), or the model file of a line
 * `scene model=FILE` (experiments/README.md, "Keys"), read through
 * libmodels (mdl_read_model, with the line's approximate=; docs/models.md).
 * The file's timestep is the world's dt unless the line sets dt=, its
 * gravity the gravity unless the line sets gravity= (libdynamics' one rule,
 * dyn_world_settings_for_model: for lcplab's runs and the scene peers' {dt}
 * alike, exp_source_settings); the contacts take the model's materials.
 */
#include "exp_task.h"

#include "mdl.h"

/* The friction model a read of src's file is for when no world's is
 * given: the line's friction=, or any (the section's groups). */
static int line_friction(const exp_source *src) {
  return src->friction >= 0 ? src->friction : MDL_FRICTION_ANY;
}

/* The model of src read for worlds of friction model fr (MDL_FRICTION_ANY:
 * not known) and the representation it was read in (*reduced). */
static dyn_err source_model(const exp_source *src, int fr, dyn_model **m, double *timestep,
                            int *reduced, char *msg, size_t len) {
  *m = NULL;
  *reduced = src->reduced == 1;
  if (timestep) *timestep = 0.0;
  if (!src->model) {
    const char *params[EXP_MAX_PARAMS];
    for (int k = 0; k < src->nparams; k++) params[k] = src->params[k];
    return dyn_scene_model(src->scene, params, src->nparams, m, msg, len);
  }
  mdl_read_info info;
  mdl_read_options o = mdl_read_options_default();
  o.approximate = src->approximate;
  /* condim 4 and 6 as the world's friction model simulates them: a
   * line's model serves every friction group of the section (nsgs's cone,
   * pgs's box), read for each world with its own (as the command line's
   * --friction and Python's load_model(friction=) do) */
  o.friction = fr;
  o.reduced = src->reduced;
  /* a refusal names the scene line's keys, not the command line's options */
  o.words = (mdl_option_words){ "approximate=yes (on the scene line)",
                                "coordinates=reduced (on the scene line)",
                                "coordinates=maximal (on the scene line)", NULL };
  mdl_err e = mdl_read_model(src->model, &o, m, &info, msg, len);
  if (e != MDL_OK) return e == MDL_ERR_NOMEM ? DYN_ERR_NOMEM : DYN_ERR_INPUT;
  if (timestep) *timestep = info.timestep;
  *reduced = info.reduced;
  return DYN_OK;
}

dyn_err exp_source_model(const exp_source *src, dyn_model **m, double *timestep, char *msg,
                         size_t len) {
  int reduced;
  return source_model(src, line_friction(src), m, timestep, &reduced, msg, len);
}

dyn_coordinates exp_source_coordinates(const exp_source *src) {
  if (!src->model || src->reduced >= 0)
    return src->reduced == 1 ? DYN_COORDINATES_REDUCED : DYN_COORDINATES_MAXIMAL;
  dyn_model *m = NULL;
  int reduced = 0;
  dyn_err e =
      source_model(src, line_friction(src), &m, NULL, &reduced, NULL, 0); /* the file's own */
  dyn_model_free(m);
  return e == DYN_OK && reduced ? DYN_COORDINATES_REDUCED : DYN_COORDINATES_MAXIMAL;
}

dyn_world_settings exp_source_settings(const exp_source *src, const dyn_world_settings *set) {
  dyn_model *m = NULL;
  double timestep = 0.0;
  dyn_world_settings s = *set;
  if (exp_source_model(src, &m, &timestep, NULL, 0) == DYN_OK)
    s = dyn_world_settings_for_model(set, m, timestep);
  dyn_model_free(m);
  return s;
}

dyn_err exp_source_new_world(const exp_source *src, const dyn_world_settings *set, dyn_world **w,
                             char *msg, size_t len) {
  *w = NULL;
  if (!src->model) {
    const char *params[EXP_MAX_PARAMS];
    for (int k = 0; k < src->nparams; k++) params[k] = src->params[k];
    return dyn_scene_new(src->scene, params, src->nparams, set, w, msg, len);
  }
  dyn_model *m = NULL;
  double timestep = 0.0;
  int reduced = 0;
  dyn_err e = source_model(src, (int)set->contact.friction, &m, &timestep, &reduced, msg, len);
  if (e != DYN_OK) return e;
  dyn_world_settings s = dyn_world_settings_for_model(set, m, timestep);
  if (reduced) s.coordinates = DYN_COORDINATES_REDUCED;
  e = dyn_world_new_from_model(m, &s, w, msg, len);
  dyn_model_free(m);
  return e;
}
