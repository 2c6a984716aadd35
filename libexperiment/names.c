/* names.c -- the names of the engine's section kinds (convergence,
 * profile, scaling, drift, accuracy, scenes, gradients) and problem classes (lcp,
 * box, mlcp, fc3d, cone-assoc: exp_class_of, from libio's kind), and a
 * task's solver name (built-in or external).
 */
#include "exp_config.h"

#include <string.h>

const char *const exp_cfg_kind_names[EXP_KIND_COUNT + 1] = { "convergence", "profile",  "scaling",
                                                             "drift",       "accuracy", "scenes",
                                                             "gradients",   "fidelity", NULL };

const char *exp_kind_str(exp_kind k) {
  return (k >= 0 && k < EXP_KIND_COUNT) ? exp_cfg_kind_names[k] : "?";
}

int exp_kind_is_scene(exp_kind k) {
  return k == EXP_DRIFT || k == EXP_ACCURACY || k == EXP_SCENES || k == EXP_FIDELITY;
}

const char *const exp_cfg_class_names[EXP_CLASS_COUNT + 1] = { "lcp",  "box",        "mlcp",
                                                               "fc3d", "cone-assoc", NULL };

const char *exp_class_str(int c) {
  return (c >= 0 && c < EXP_CLASS_COUNT) ? exp_cfg_class_names[c] : "?";
}

int exp_class_from_str(const char *s) {
  for (int k = 0; exp_cfg_class_names[k]; k++)
    if (strcmp(s, exp_cfg_class_names[k]) == 0) return k;
  return -1;
}

int exp_class_of(const io_instance *inst) {
  if (inst->ncones > 0)
    return inst->cone_law == SLV_CONE_ASSOCIATED ? EXP_CLASS_CONE_ASSOC : EXP_CLASS_FC3D;
  if (strcmp(inst->kind, "lcp") == 0) return EXP_CLASS_LCP;
  if (strcmp(inst->kind, "mlcp") == 0) return EXP_CLASS_MLCP;
  return EXP_CLASS_BOX; /* blcp, findex */
}

const char *exp_solver_name(const exp_config *cfg, const exp_solver_ref *r) {
  return r->sv ? r->sv->name : cfg->ext[r->ext].name;
}
