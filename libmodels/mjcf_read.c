/*
 * mjcf_read.c -- mdl_read_mjcf (mdl.h): an MJCF file through MuJoCo's own
 * compiler, mapped onto a scene model (docs/models.md, "The mapping").
 *
 * The file is compiled by mj_loadXML (MuJoCo's parser and compiler: no XML
 * is parsed here), the kinematics run at qpos0 (mj_kinematics: world poses
 * of bodies, geoms and joint axes), and the compiled arrays are mapped
 * record by record (mjcf_read_map.c, mjcf_read_joints.c); lcplab's custom
 * data, where the file has it, restores the exact values
 * (mjcf_read_lcplab.c).  Every libmujoco call runs inside a guard
 * (mujoco_guard.c), after the file got through a first compilation in a
 * child process (mujoco_probe.c: a crash of libmujoco is the file's error).  What this reader does not map is refused, never
 * dropped: mdl_map_features below is the table of the features refused,
 * and the mapping functions refuse the values they cannot take (a joint
 * layout, a geom type, a zero mass), with the file, the element and the
 * feature named.  A file that does not load gives MuJoCo's own message
 * (with its line), on one line.
 */
#include "mjcf_read.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *mdl_mj_name(const mjModel *mj, mjtObj type, int i) {
  const char *s = mdl_mujoco_id2name(mj, type, i);
  return s ? s : "";
}

void mdl_mj_label(char *buf, size_t cap, const mjModel *mj, mjtObj type, int i) {
  static const char *const what[] = {
    [mjOBJ_BODY] = "body",       [mjOBJ_JOINT] = "joint",       [mjOBJ_GEOM] = "geom",
    [mjOBJ_SITE] = "site",       [mjOBJ_EQUALITY] = "equality", [mjOBJ_MESH] = "mesh",
    [mjOBJ_EXCLUDE] = "exclude", [mjOBJ_TENDON] = "tendon",     [mjOBJ_ACTUATOR] = "actuator",
    [mjOBJ_SENSOR] = "sensor",   [mjOBJ_PAIR] = "pair",         [mjOBJ_KEY] = "key"
  };
  const char *w =
      (size_t)type < sizeof what / sizeof what[0] && what[type] ? what[type] : "element";
  const char *n = mdl_mj_name(mj, type, i);
  if (n[0])
    snprintf(buf, cap, "%s '%s'", w, n);
  else
    snprintf(buf, cap, "%s %d", w, i);
}

mdl_err mdl_refuse(mdl_map *p, const char *fmt, ...) {
  if (!p->msg || p->cap == 0) return MDL_ERR_REFUSED;
  int k = snprintf(p->msg, p->cap, "%s: ", p->path);
  if (k >= 0 && (size_t)k < p->cap) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->msg + k, p->cap - (size_t)k, fmt, ap);
    va_end(ap);
  }
  return MDL_ERR_REFUSED;
}

mdl_err mdl_nomem(mdl_map *p) {
  mdl_msg(p->msg, p->cap, "%s: out of memory", p->path);
  return MDL_ERR_NOMEM;
}

/* ---- notes and approximations ---------------------------------------------------- */

static void note_v(mdl_map *p, const char *fmt, va_list ap) {
  size_t k = strlen(p->notes);
  if (k + 3 >= sizeof p->notes) return;
  if (k) {
    strcpy(p->notes + k, "; ");
    k += 2;
  }
  vsnprintf(p->notes + k, sizeof p->notes - k, fmt, ap);
}

void mdl_note(mdl_map *p, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  note_v(p, fmt, ap);
  va_end(ap);
}

const char *mdl_word(const char *given, const char *cli) { return given ? given : cli; }

mdl_err mdl_approx(mdl_map *p, const char *how, const char *fmt, ...) {
  char text[280];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  if (!p->opt_read.approximate)
    return mdl_refuse(p, "%s; rerun with %s to %s", text,
                      mdl_word(p->opt_read.words.approximate, "--approximate"), how);
  int k = 0;
  while (k < p->nap && p->ap_fmt[k] != fmt) k++;
  if (k < p->nap) {
    p->ap_count[k]++;
  } else if (k < (int)(sizeof p->ap_fmt / sizeof p->ap_fmt[0])) {
    p->ap_fmt[k] = fmt;
    p->ap_count[k] = 0;
    snprintf(p->ap_first[k], sizeof p->ap_first[k], "%s: %s", text, how);
    p->nap++;
  } else {
    mdl_note(p, "%s: %s", text, how);
  }
  return MDL_OK;
}

void mdl_notes_finish(mdl_map *p) {
  for (int k = 0; k < p->nap; k++) {
    if (p->ap_count[k] > 0)
      mdl_note(p, "%s (and %d more like it)", p->ap_first[k], p->ap_count[k]);
    else
      mdl_note(p, "%s", p->ap_first[k]);
  }
  p->nap = 0;
}

/* ---- the table of features refused ---------------------------------------------- */

/* Elements of a kind lcplab does not simulate: each is named; approximate
 * drops them (said in the notes). */
typedef struct mdl_refused_kind {
  int mjModel_count_offset; /* offsetof(mjModel, count) */
  mjtObj type;
  const char *feature, *how;
} mdl_refused_kind;

static const mdl_refused_kind refused_kinds[] = {
  { offsetof(mjModel, npair), mjOBJ_PAIR, "explicit contact pairs are not simulated",
    "drop it (geoms then touch by contype and conaffinity)" },
};

/* Elements that do not act on the bodies: listed in the notes. */
static const struct {
  int mjModel_count_offset;
  mjtObj type;
  const char *what;
} listed_kinds[] = {
  { offsetof(mjModel, nsensor), mjOBJ_SENSOR, "sensor (measures, does not act; not computed)" },
  { offsetof(mjModel, nskin), mjOBJ_SKIN, "skin (drawing only)" },
};

/* The option flags lcplab's step has no switch for. */
static const struct {
  int bit;
  const char *name;
} refused_flags[] = {
  { mjDSBL_CONSTRAINT, "constraint" }, { mjDSBL_EQUALITY, "equality" },
  { mjDSBL_LIMIT, "limit" },           { mjDSBL_CONTACT, "contact" },
  { mjDSBL_GRAVITY, "gravity" },       { mjDSBL_FILTERPARENT, "filterparent" },
};

/* A geom's margin and gap are mapped (mjcf_read_map.c; the shape's, as
 * MuJoCo 2.2.2 reads them: docs/models.md) unless negative: a negative gap
 * makes a contact active before it is detected (MuJoCo's appears inside
 * margin - gap and vanishes above the margin, so a body hovers in the band
 * between, which no hard contact holds), and a negative margin finds
 * contacts only past a penetration, which the narrow phase does not.
 * --approximate drops both (map_geom). */
static mdl_err refuse_geom_margin(mdl_map *p, int g, const char *lab) {
  const char *drop = "ignore the geom's margin and gap";
  if (p->mj->geom_margin[g] < 0.0)
    return mdl_approx(p, drop, "%s: margin %g < 0 (contacts only past a penetration) is not mapped",
                      lab, p->mj->geom_margin[g]);
  if (p->mj->geom_gap[g] < 0.0)
    return mdl_approx(p, drop, "%s: gap %g < 0 (active before detected) is not mapped", lab,
                      p->mj->geom_gap[g]);
  return MDL_OK;
}

/* Condim 1, 3, 4 and 6 are mapped (geom_material, mjcf_read_map.c); 4
 * and 6 only where the worlds have their rows (mdl_condim_kept), else
 * refused, or as 3 under approximate. */
static mdl_err refuse_condim(mdl_map *p, int g, const char *lab) {
  int cd = p->mj->geom_condim[g];
  if (cd <= mdl_condim_kept(&p->opt_read)) return MDL_OK;
  return mdl_approx(p, "use condim 3 (sliding friction only)",
                    "%s: condim %d (%s friction) is simulated with box friction only "
                    "(the cone and the pyramid have no rows of angular velocity)",
                    lab, cd, cd == 6 ? "torsional and rolling" : "torsional");
}

static mdl_err refuse_geom(mdl_map *p, int g) {
  const mjModel *mj = p->mj;
  char lab[200], g1[96], b1[96];
  mdl_mj_label(g1, sizeof g1, mj, mjOBJ_GEOM, g);
  mdl_mj_label(b1, sizeof b1, mj, mjOBJ_BODY, mj->geom_bodyid[g]);
  if (mdl_mj_name(mj, mjOBJ_GEOM, g)[0]) /* a geom without a name: its body too */
    snprintf(lab, sizeof lab, "%s", g1);
  else
    snprintf(lab, sizeof lab, "%s (%s)", g1, b1);
  int t = mj->geom_type[g];
  if (t == mjGEOM_HFIELD)
    return mdl_refuse(p, "%s: type hfield (height fields) is not simulated", lab);
  if (t < 0 || t > mjGEOM_MESH) return mdl_refuse(p, "%s: geom type %d is not simulated", lab, t);
  mdl_err e = refuse_condim(p, g, lab);
  if (e != MDL_OK) return e;
  e = refuse_geom_margin(p, g, lab);
  if (e != MDL_OK) return e;
  if (mj->geom_priority[g] != 0)
    return mdl_approx(p, "ignore it (materials combine by the maximum)",
                      "%s: priority is not mapped", lab);
  return MDL_OK;
}

/* What a joint's own parameters need (stiffness, damping, frictionloss,
 * ref and range map on hinges and slides: mjcf_read_joints.c). */
static mdl_err refuse_joint(mdl_map *p, int j) {
  const mjModel *mj = p->mj;
  char lab[96];
  mdl_mj_label(lab, sizeof lab, mj, mjOBJ_JOINT, j);
  int dof = mj->jnt_dofadr[j], t = mj->jnt_type[j];
  int coord = t == mjJNT_HINGE || t == mjJNT_SLIDE;
  mdl_err e = MDL_OK;
  if (!coord && (mj->jnt_stiffness[j] != 0.0 || mj->dof_damping[dof] != 0.0 ||
                 mj->dof_frictionloss[dof] != 0.0))
    e = mdl_approx(p, "drop them",
                   "%s: stiffness, damping and frictionloss of a %s joint are not mapped (of "
                   "hinges and slides they are)",
                   lab, t == mjJNT_BALL ? "ball" : "free");
  if (e == MDL_OK && mj->dof_armature[dof] != 0.0 && !(p->opt_read.reduced && t != mjJNT_FREE))
    e = mdl_approx(p, "drop it",
                   p->opt_read.reduced
                       ? "%s: a free joint's armature is not mapped (a hinge's, slide's or ball's "
                         "is)"
                       : "%s: armature (a joint-space inertia) has no place in maximal "
                         "coordinates (rerun with %s to map it)",
                   lab, mdl_word(p->opt_read.words.reduced, "--coordinates reduced"));
  /* a hinge's or slide's limit margin is mapped (the range less it:
   * mjcf_read_joints.c); without a limit it does nothing */
  const mjtNum *r = mj->jnt_range + 2 * j;
  if (e == MDL_OK && mj->jnt_margin[j] != 0.0 && mj->jnt_limited[j] &&
      (t == mjJNT_BALL || mj->jnt_margin[j] < 0 ||
       r[0] + mj->jnt_margin[j] > r[1] - mj->jnt_margin[j]))
    e = mdl_approx(p, "ignore it",
                   "%s: a limit's margin on a ball joint, negative, or wider than half the "
                   "range is not mapped",
                   lab);
  if (e == MDL_OK && t == mjJNT_BALL && mj->jnt_limited[j])
    e = mdl_approx(p, "drop the limit", "%s: a ball joint's limit is not simulated", lab);
  return e;
}

static mdl_err map_option_features(mdl_map *p) {
  const mjModel *mj = p->mj;
  for (size_t k = 0; k < sizeof refused_flags / sizeof refused_flags[0]; k++)
    if (mj->opt.disableflags & refused_flags[k].bit)
      return mdl_refuse(p, "option flag %s=\"disable\" is not mapped", refused_flags[k].name);
  if (mj->opt.density != 0.0 || mj->opt.viscosity != 0.0 || mj->opt.wind[0] != 0.0 ||
      mj->opt.wind[1] != 0.0 || mj->opt.wind[2] != 0.0) {
    mdl_err e = mdl_approx(p, "drop them",
                           "option density, viscosity and wind (a medium's forces) are not "
                           "simulated");
    if (e != MDL_OK) return e;
  }
  if (mj->opt.enableflags)
    return mdl_refuse(p, "option flags override, energy, fwdinv, sensornoise and multiccd are "
                         "not mapped");
  return MDL_OK;
}

mdl_err mdl_map_features(mdl_map *p) {
  const mjModel *mj = p->mj;
  char lab[96];
  for (size_t k = 0; k < sizeof refused_kinds / sizeof refused_kinds[0]; k++) {
    int n = *(const int *)((const char *)mj + refused_kinds[k].mjModel_count_offset);
    for (int i = 0; i < n; i++) {
      mdl_mj_label(lab, sizeof lab, mj, refused_kinds[k].type, i);
      mdl_err e = mdl_approx(p, refused_kinds[k].how, "%s: %s", lab, refused_kinds[k].feature);
      if (e != MDL_OK) return e;
    }
  }
  for (size_t k = 0; k < sizeof listed_kinds / sizeof listed_kinds[0]; k++) {
    int n = *(const int *)((const char *)mj + listed_kinds[k].mjModel_count_offset);
    if (n > 0) mdl_note(p, "%d %s left out", n, listed_kinds[k].what);
  }
  mdl_err e = map_option_features(p);
  if (e == MDL_OK) e = mdl_map_tendons(p);
  if (e == MDL_OK) e = mdl_map_actuators(p);
  if (e != MDL_OK) return e;
  if (mj->nhfield > 0) {
    mdl_mj_label(lab, sizeof lab, mj, mjOBJ_HFIELD, 0);
    return mdl_refuse(p, "%s: height fields are not simulated", lab);
  }
  for (int b = 0; b < mj->nbody; b++)
    if (mj->body_mocapid[b] >= 0) {
      mdl_mj_label(lab, sizeof lab, mj, mjOBJ_BODY, b);
      return mdl_refuse(p, "%s: mocap bodies are not simulated", lab);
    }
  for (int g = 0; g < mj->ngeom; g++) {
    e = refuse_geom(p, g);
    if (e != MDL_OK) return e;
  }
  for (int j = 0; j < mj->njnt; j++) {
    e = refuse_joint(p, j);
    if (e != MDL_OK) return e;
  }
  for (int q = 0; q < mj->neq; q++) {
    mdl_mj_label(lab, sizeof lab, mj, mjOBJ_EQUALITY, q);
    if (mj->eq_type[q] != mjEQ_CONNECT && mj->eq_type[q] != mjEQ_WELD)
      return mdl_refuse(p,
                        "%s: joint, tendon and distance equalities are not simulated "
                        "(connect and weld are)",
                        lab);
    if (!mj->eq_active[q]) return mdl_refuse(p, "%s: an inactive equality is not mapped", lab);
  }
  return MDL_OK;
}

/* ---- the model ------------------------------------------------------------------- */

void mdl_map_free(mdl_map *p) {
  for (int s = 0; p->verts && s < p->ns; s++) free(p->verts[s]);
  free(p->verts);
  free(p->body);
  free(p->body_elem);
  free(p->lc_body);
  free(p->shape);
  free(p->shape_elem);
  free(p->shape_site);
  free(p->shape_mu);
  free(p->mat);
  free(p->joint);
  free(p->jkey_kind);
  free(p->jkey_id);
  free(p->jnt_lc);
  free(p->ex);
}

/* "PATH: body 'x': " + the model's refusal of record i of a kind. */
static mdl_err model_refused(mdl_map *p, mjtObj type, int elem, const char *m2) {
  char lab[96];
  if (elem >= 0)
    mdl_mj_label(lab, sizeof lab, p->mj, type, elem);
  else
    snprintf(lab, sizeof lab, "lcplab's custom data");
  return mdl_refuse(p, "%s: %s", lab, m2);
}

/* The records into a new model, in order: materials, bodies, shapes,
 * joints, actuators, tendons, exclusions, options. */
static mdl_err assemble(mdl_map *p, dyn_model **out) {
  dyn_model *m = NULL;
  if (dyn_model_new(&m) != DYN_OK) return MDL_ERR_NOMEM;
  char m2[400] = "";
  mdl_err e = MDL_OK;
  for (int i = 0; e == MDL_OK && i < p->nm; i++)
    if (dyn_model_add_material(m, &p->mat[i], m2, sizeof m2) < 0) {
      /* named by its first geom (a material is the friction of geoms) */
      int s = 0;
      while (s < p->ns && (p->shape[s].material != i || p->shape_site[s])) s++;
      e = model_refused(p, mjOBJ_GEOM, s < p->ns ? p->shape_elem[s] : -1, m2);
    }
  for (int i = 0; e == MDL_OK && i < p->nb; i++)
    if (dyn_model_add_body(m, &p->body[i], m2, sizeof m2) < 0)
      e = model_refused(p, mjOBJ_BODY, p->body_elem[i], m2);
  for (int s = 0; e == MDL_OK && s < p->ns; s++)
    if (dyn_model_add_shape(m, &p->shape[s], m2, sizeof m2) < 0)
      e = model_refused(p, p->shape_site[s] ? mjOBJ_SITE : mjOBJ_GEOM, p->shape_elem[s], m2);
  for (int j = 0; e == MDL_OK && j < p->nj; j++)
    if (dyn_model_add_joint(m, &p->joint[j], m2, sizeof m2) < 0)
      e = model_refused(p, p->jkey_kind[j] == MDL_KEY_EQ ? mjOBJ_EQUALITY : mjOBJ_BODY,
                        p->jkey_id[j], m2);
  for (int u = 0; e == MDL_OK && u < p->mj->nu; u++) {
    dyn_actuator_def a = mdl_actuator_def(p, u);
    if (dyn_model_add_actuator(m, &a, m2, sizeof m2) < 0)
      e = model_refused(p, mjOBJ_ACTUATOR, u, m2);
  }
  for (int t = 0; e == MDL_OK && t < p->mj->ntendon; t++) {
    dyn_tendon_def d;
    if (mdl_tendon_def(p, t, &d) && dyn_model_add_tendon(m, &d, m2, sizeof m2) < 0)
      e = model_refused(p, mjOBJ_TENDON, t, m2);
  }
  for (int k = 0; e == MDL_OK && k < p->nex; k++)
    if (dyn_model_exclude(m, p->ex[2 * k], p->ex[2 * k + 1], m2, sizeof m2) != DYN_OK)
      e = mdl_refuse(p, "exclude %d: %s", k, m2);
  if (e == MDL_OK && dyn_model_set_options(m, &p->opt, m2, sizeof m2) != DYN_OK)
    e = mdl_refuse(p, "option: %s", m2);
  if (e == MDL_OK && (p->opt_read.reduced ? dyn_model_validate_reduced(m, m2, sizeof m2)
                                          : dyn_model_validate(m, m2, sizeof m2)) != DYN_OK)
    e = mdl_refuse(p, "%s", m2);
  if (e != MDL_OK) {
    dyn_model_free(m);
    return e;
  }
  *out = m;
  return MDL_OK;
}

static mdl_err map_all(mdl_map *p) {
  mdl_err e = mdl_map_features(p);
  if (e == MDL_OK) e = mdl_map_bodies(p);
  if (e == MDL_OK) e = mdl_map_materials(p);
  if (e == MDL_OK) e = mdl_map_shapes(p);
  if (e == MDL_OK) e = mdl_map_joints(p);
  if (e == MDL_OK) e = mdl_map_exclusions(p);
  if (e == MDL_OK) mdl_map_options(p);
  if (e == MDL_OK && mdl_lcplab_present(p->mj))
    e = mdl_lcplab_apply(p);
  else if (e == MDL_OK)
    e = mdl_map_parent_exclusions(p);
  return e;
}

/* mj_loadXML of path, or NULL with "PATH: " and MuJoCo's message on one
 * line in msg (MDL_ERR_FILE); its warnings (a model that loads) into warn. */
static mjModel *load_file(const mdl_mujoco *api, const char *path, char *warn, size_t wcap,
                          char *msg, size_t cap) {
  char err[1000] = "";
  mjModel *mj = mdl_load_xml(api, path, err, sizeof err);
  char one[900];
  mdl_one_line(one, sizeof one, err);
  if (!mj)
    mdl_msg(msg, cap, "%s: %s", path, one[0] ? one : "MuJoCo could not load it");
  else if (warn)
    mdl_one_line(warn, wcap, err);
  return mj;
}

/* The bytes a compiled model takes once lcplab reads it: MuJoCo's model,
 * its data (the stack's numbers are most of it), and lcplab's records,
 * counting each body and joint twice (a joint chain's intermediate body
 * and joint), each geom and site once, and the mesh vertices as doubles;
 * counted in double, without overflow. */
double mdl_model_bytes(const mjModel *mj) {
  return (double)mj->nbuffer + 8.0 * (double)mj->nstack +
         2.0 * (double)mj->nbody * (double)sizeof(dyn_body_def) +
         (double)(mj->ngeom + mj->nsite) * (double)sizeof(dyn_shape_def) +
         2.0 * (double)mj->njnt * (double)sizeof(dyn_joint_def) + 24.0 * (double)mj->nmeshvert;
}

/* A compiled model over the cap: refused, the file and the counts named. */
static mdl_err over_cap(const char *path, const mjModel *mj, const mdl_read_options *o, char *msg,
                        size_t cap) {
  double need = mdl_model_bytes(mj);
  if (need <= (double)o->max_memory) return MDL_OK;
  mdl_msg(msg, cap,
          "%s: %d bodies, %d geoms, %d joints, %d mesh vertices and a stack of %d numbers need "
          "%.0f bytes, more than the memory cap of %zu bytes (%s)",
          path, mj->nbody, mj->ngeom, mj->njnt, mj->nmeshvert, mj->nstack, need, o->max_memory,
          mdl_word(o->words.max_memory, "--max-memory"));
  return MDL_ERR_REFUSED;
}

/* Compile, run the kinematics and map, all inside the guard g (set up by
 * the caller): MuJoCo's errors return here through g. */
static mdl_err load_and_map(const char *path, const mdl_read_options *o, mdl_guard *g,
                            dyn_model **out, mdl_read_info *info, char *msg, size_t cap) {
  /* what the code after a jump reads is volatile or on the heap */
  mjModel *volatile mj = NULL;
  mjData *volatile d = NULL;
  mdl_map *volatile p = calloc(1, sizeof *p);
  volatile mdl_err e = MDL_OK;
  if (!p) {
    mdl_msg(msg, cap, "%s: out of memory", path);
    return MDL_ERR_NOMEM;
  }
  if (setjmp(g->jb) == 0) {
    mj = load_file(g->mj, path, info ? info->warnings : NULL, sizeof info->warnings, msg, cap);
    if (!mj) {
      e = MDL_ERR_FILE;
    } else if ((e = over_cap(path, mj, o, msg, cap)) == MDL_OK) {
      d = g->mj->makeData(mj);
      g->mj->kinematics(mj, d);
      p->path = path;
      p->opt_read = *o;
      if (o->reduced == MDL_COORDINATES_FILE) p->opt_read.reduced = mdl_file_coordinates(mj);
      p->mj = mj;
      p->d = d;
      p->msg = msg;
      p->cap = cap;
      e = map_all(p);
      if (e == MDL_OK) e = assemble(p, out);
      /* a NaN MuJoCo read and then compiled away (it warns, naming no
       * element: those it kept were refused above, named) */
      if (e == MDL_OK && strstr(g->warnings, "NaN")) {
        dyn_model_free(*out);
        *out = NULL;
        mdl_msg(msg, cap, "%s: MuJoCo: %s (lcplab takes no NaN)", path, g->warnings);
        e = MDL_ERR_FILE;
      }
      if (e == MDL_OK && info) {
        info->timestep = mj->opt.timestep;
        info->lcplab_data = mdl_lcplab_present(mj);
        info->actuators = p->nact;
        info->chain_bodies = p->nchain;
        info->reduced = p->opt_read.reduced;
        mdl_notes_finish(p);
        if (p->nchain > 0)
          mdl_note(p,
                   p->opt_read.reduced ? "%d massless frames of joint chains added (exact)"
                                       : "%d intermediate bodies of joint chains added",
                   p->nchain);
        snprintf(info->notes, sizeof info->notes, "%s", p->notes);
      }
    }
  } else {
    char one[600];
    mdl_one_line(one, sizeof one, g->error);
    mdl_msg(msg, cap, "%s: MuJoCo: %s", path, one);
    e = MDL_ERR_MUJOCO;
  }
  mdl_map_free(p);
  free(p);
  if (d) g->mj->deleteData(d);
  if (mj) g->mj->deleteModel(mj);
  return e;
}

mdl_read_options mdl_read_options_default(void) {
  mdl_read_options o;
  memset(&o, 0, sizeof o);
  o.chain_mass = 0.1;
  o.max_memory = MDL_DEFAULT_MAX_MEMORY;
  o.friction = MDL_FRICTION_ANY;
  return o;
}

mdl_err mdl_read_mjcf(const char *path, dyn_model **out, mdl_read_info *info, char *msg,
                      size_t msgcap) {
  return mdl_read_model(path, NULL, out, info, msg, msgcap);
}

mdl_err mdl_read_model(const char *path, const mdl_read_options *opts, dyn_model **out,
                       mdl_read_info *info, char *msg, size_t msgcap) {
  if (out) *out = NULL;
  if (info) memset(info, 0, sizeof *info);
  if (!path || !out) {
    mdl_msg(msg, msgcap, "mdl_read_model: %s is NULL", path ? "out" : "the path");
    return MDL_ERR_INPUT;
  }
  mdl_read_options o = opts ? *opts : mdl_read_options_default();
  if (o.max_memory == 0) o.max_memory = MDL_DEFAULT_MAX_MEMORY;
  if (!(o.chain_mass > 0.0 && o.chain_mass <= 1.0) || (o.approximate != 0 && o.approximate != 1) ||
      (o.friction != MDL_FRICTION_ANY && dyn_friction_max_condim(o.friction) == 0) ||
      (o.reduced != 0 && o.reduced != 1 && o.reduced != MDL_COORDINATES_FILE)) {
    mdl_msg(msg, msgcap,
            "mdl_read_model: approximate=%d must be 0 or 1, friction=%d a dyn_friction or "
            "MDL_FRICTION_ANY, reduced=%d 0, 1 or MDL_COORDINATES_FILE, chain_mass=%g in (0, 1]",
            o.approximate, o.friction, o.reduced, o.chain_mass);
    return MDL_ERR_INPUT;
  }
  mdl_guard g;
  if (mdl_guard_enter(&g) != 0) {
    mdl_msg(msg, msgcap, "%s: %s", path, g.error);
    return MDL_ERR_MUJOCO;
  }
  mdl_err e = mdl_probe_load(&g, path, o.max_memory, msg, msgcap);
  if (e == MDL_OK) e = load_and_map(path, &o, &g, out, info, msg, msgcap);
  if (info && g.warnings[0]) {
    size_t k = strlen(info->warnings);
    snprintf(info->warnings + k, sizeof info->warnings - k, "%s%s", k ? "\n" : "", g.warnings);
  }
  mdl_guard_leave(&g);
  return e;
}

/* ---- MuJoCo's own run ------------------------------------------------------------- */

static mdl_err run_guarded(const char *path, long steps, double *xpos, size_t xcap, int *nbody,
                           mdl_guard *g, char *msg, size_t cap) {
  mjModel *volatile mj = NULL;
  mjData *volatile d = NULL;
  volatile mdl_err e = MDL_OK;
  if (setjmp(g->jb) == 0) {
    mj = load_file(g->mj, path, NULL, 0, msg, cap);
    if (!mj) {
      e = MDL_ERR_FILE;
    } else {
      d = g->mj->makeData(mj);
      for (long k = 0; k < steps; k++) g->mj->step(mj, d);
      if (nbody) *nbody = mj->nbody;
      if (xpos && (size_t)mj->nbody * 3 > xcap) {
        mdl_msg(msg, cap, "%s: %d bodies need %d numbers, xcap=%zu", path, mj->nbody, 3 * mj->nbody,
                xcap);
        e = MDL_ERR_INPUT;
      } else if (xpos) {
        memcpy(xpos, d->xpos, (size_t)mj->nbody * 3 * sizeof *xpos);
      }
    }
  } else {
    char one[600];
    mdl_one_line(one, sizeof one, g->error);
    mdl_msg(msg, cap, "%s: MuJoCo: %s", path, one);
    e = MDL_ERR_MUJOCO;
  }
  if (d) g->mj->deleteData(d);
  if (mj) g->mj->deleteModel(mj);
  return e;
}

mdl_err mdl_mujoco_run(const char *path, long steps, double *xpos, size_t xcap, int *nbody,
                       char *msg, size_t msgcap) {
  if (!path || steps < 0) {
    mdl_msg(msg, msgcap, "mdl_mujoco_run: %s", path ? "steps < 0" : "the path is NULL");
    return MDL_ERR_INPUT;
  }
  mdl_guard g;
  if (mdl_guard_enter(&g) != 0) {
    mdl_msg(msg, msgcap, "%s: %s", path, g.error);
    return MDL_ERR_MUJOCO;
  }
  mdl_err e = mdl_probe_load(&g, path, MDL_DEFAULT_MAX_MEMORY, msg, msgcap);
  if (e == MDL_OK) e = run_guarded(path, steps, xpos, xcap, nbody, &g, msg, msgcap);
  mdl_guard_leave(&g);
  return e;
}
