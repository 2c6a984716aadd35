/*
 * mdl.h -- public header of libmodels (pkg-config lcplab-models): scene
 * models (dyn_model.h) as files, in MuJoCo's MJCF.  The library sits above
 * libdynamics and is the only one that links libmujoco: libdynamics knows
 * nothing of files.
 *
 *   writer  mdl_write_mjcf: any dyn_model as an MJCF document that MuJoCo
 *           loads unchanged (bodies, inertials, geoms, friction, filters,
 *           excluded pairs, gravity and the time step in <option>, joints as
 *           MuJoCo's kinematic tree, loop-closing joints as equality
 *           constraints), with what MuJoCo has no element for (restitution,
 *           motors, softness, rest positions, default steps, the exact
 *           initial state) as lcplab's custom data, which MuJoCo keeps and
 *           ignores, so that the file reads back to the same model bit for
 *           bit;
 *   reader  mdl_read_mjcf: a file through MuJoCo's own compiler
 *           (mj_loadXML), the compiled mjModel mapped onto a dyn_model, one
 *           table of MuJoCo features (mapped or refused); lcplab's custom
 *           data, where present, restores the exact values.
 * docs/models.md has the mapping table, the custom data and why MuJoCo's
 * error handler cannot end the process here (a handler that jumps back to
 * the caller around every libmujoco call).
 *
 * Nothing here prints, aborts or keeps state of its own between calls;
 * functions return an mdl_err and write one line into the caller's
 * msg[msgcap] (msg may be NULL): "FILE: geom 'foot' (body 'leg'): type
 * cylinder is not simulated".
 */
#ifndef MDL_H
#define MDL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "dyn_model.h"

#ifndef MDL_API
#if defined(__GNUC__) && __GNUC__ >= 4
#define MDL_API __attribute__((visibility("default")))
#else
#define MDL_API
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef enum mdl_err {
  MDL_OK = 0,
  MDL_ERR_INPUT = -1,   /* a bad argument, or a model the writer cannot express */
  MDL_ERR_NOMEM = -2,   /* out of memory */
  MDL_ERR_IO = -3,      /* the stream could not be written */
  MDL_ERR_FILE = -4,    /* the file does not load: MuJoCo's message, with its line */
  MDL_ERR_REFUSED = -5, /* it loads, but holds a feature lcplab does not simulate
                            (the message names the element and the feature) */
  MDL_ERR_MUJOCO = -6   /* libmujoco stopped with an error of its own (its text), or
                            crashed on the file (compiled first in a child process:
                            "libmujoco crashed reading FILE (..., signal 11, ...)") */
} mdl_err;

/* "ok", "input", ... for messages and tests. */
MDL_API const char *mdl_err_str(mdl_err e);

/* ---- the writer ------------------------------------------------------------------- */

typedef struct mdl_write_options {
  double dt;              /* s > 0: <option timestep>, the step the file suggests */
  double default_mu;      /* friction written for the shapes of the default material
                         in a model without materials (DYN_MATERIAL_DEFAULT: the
                         world settings' contact.mu; with materials such a shape
                         takes the first: dyn_model_default_material), finite >= 0 */
  const char *model_name; /* <mujoco model="...">; NULL or "": "lcplab" */
} mdl_write_options;

/* dt = 1/120 (the world settings' default), default_mu = 0.5, no name. */
MDL_API mdl_write_options mdl_write_options_default(void);

/* Writes m (checked first by dyn_model_validate) as an MJCF document to f.
 * MDL_ERR_INPUT for a model that does not validate, a name that XML cannot
 * hold (a control character), bad options; MDL_ERR_IO for a failed write
 * (nothing is said about what reached f then); MDL_ERR_NOMEM. */
MDL_API mdl_err mdl_write_mjcf(const dyn_model *m, const mdl_write_options *o, FILE *f, char *msg,
                               size_t msgcap);

/* ---- the reader ------------------------------------------------------------------- */

/* What a file holds besides the model. */
typedef struct mdl_read_info {
  double timestep;    /* <option timestep> (s) */
  int lcplab_data;    /* 1: the file carries lcplab's custom data (written by
                         mdl_write_mjcf), whose exact values the model took */
  char warnings[512]; /* MuJoCo's warnings, one a line ("" for none) */
  int actuators;      /* MuJoCo's actuators, listed in notes, each a record of
                         the model (dyn_actuator_def: driven by the world's
                         controls, 0 unless set; dyn_world_set_ctrl) */
  int chain_bodies;   /* intermediate bodies added for bodies with several
                         joints (with approximate: of chain_mass; reduced:
                         massless frames) */
  int reduced;        /* the representation read: 1 reduced coordinates
                         (DYN_COORDINATES_REDUCED), 0 maximal
                         (dyn_world_new_from_model); with
                         MDL_COORDINATES_FILE, the file's own */
  char notes[2048];   /* what was left out or approximated, "; " between
                         items ("" for none): nothing is dropped unsaid */
} mdl_read_info;

/* How the front end that reads a file spells the options a refusal names
 * ("rerun with --approximate to ..."): a NULL field is the command line's
 * spelling (in brackets).  Python's load_model, for example, says
 * approximate=True, so that its users are told the argument they pass. */
typedef struct mdl_option_words {
  const char *approximate; /* [--approximate] */
  const char *reduced;     /* [--coordinates reduced] */
  const char *maximal;     /* [--coordinates maximal] */
  const char *max_memory;  /* [--max-memory] */
} mdl_option_words;

/* mdl_read_options.reduced: the representation the file's content
 * chooses (docs/models.md, "Third-party models: the representation"). */
#define MDL_COORDINATES_FILE (-1)

/* How a file is read. */
typedef struct mdl_read_options {
  int approximate;        /* 1: features lcplab cannot map exactly are
                        approximated or dropped, each said in
                        mdl_read_info.notes (docs/models.md, the table's
                        "--approximate" column); 0: refused */
  double chain_mass;      /* with approximate: the mass of each intermediate
                        body of a joint chain, as a fraction of the body's
                        mass (> 0, default 0.1: docs/models.md,
                        "Third-party models: the representation") */
  int reduced;            /* 1: read for reduced coordinates (docs/models.md, "Third-
                        party models: the representation"; DYN_COORDINATES_REDUCED):
                        several joints on one body are a chain of massless
                        frames (bodies of mass 0, exact in joint space: no
                        chain_mass), armature is mapped (dyn_joint_def's),
                        equality constraints (loops) are refused; 0: maximal
                        coordinates; MDL_COORDINATES_FILE: the file's own
                        (reduced for a kinematic tree without loops or
                        lcplab's custom data, else maximal: the front ends'
                        default), said in mdl_read_info.reduced */
  size_t max_memory;      /* the memory cap, bytes: a file whose compiled model
                        would need more (MuJoCo's model and data, lcplab's
                        records for its bodies, geoms, joints and mesh
                        vertices: mdl_model_bytes) is refused before its
                        data and lcplab's model are made (MDL_ERR_REFUSED,
                        the counts named); 0: MDL_DEFAULT_MAX_MEMORY */
  int friction;           /* the friction model (dyn_friction) of the worlds the
                             model is read for: a geom's condim above what it
                             simulates (dyn_friction_max_condim: 6 under box
                             friction, its rows of torsion and rolling; 3 under
                             the cone and the pyramid) is refused, the geom
                             named (approximate: read as 3, said in a note);
                             MDL_FRICTION_ANY (the default): condim 4 and 6
                             mapped, and a world of the cone or the pyramid on
                             the model refuses them (docs/models.md) */
  mdl_option_words words; /* the options as the caller's users spell them, in
                             messages (all NULL: the command line's) */
} mdl_read_options;

/* mdl_read_options.friction when the worlds' friction model is not known
 * yet: condim 4 and 6 read as they are. */
#define MDL_FRICTION_ANY (-1)

/* The memory cap of a read when none is given: 4 GiB, as libio's reads
 * (IO_DEFAULT_MAX_MEMORY). */
#define MDL_DEFAULT_MAX_MEMORY ((size_t)(SIZE_MAX / 2 > 0x7fffffffu ? 0x100000000ull : SIZE_MAX))

/* approximate 0, chain_mass 0.1, reduced 0, max_memory MDL_DEFAULT_MAX_MEMORY. */
MDL_API mdl_read_options mdl_read_options_default(void);

/* Reads the MJCF file at path into a new model (*out, the caller's to free
 * with dyn_model_free) and info (may be NULL).  On failure *out = NULL and:
 * MDL_ERR_FILE (not XML, not MJCF, a missing mesh file, ...: "PATH: " and
 * MuJoCo's message with its line), MDL_ERR_REFUSED (a feature that is not
 * mapped, or a value lcplab refuses such as a zero mass: "PATH: ELEMENT
 * 'NAME': ..."), MDL_ERR_MUJOCO, MDL_ERR_NOMEM.  No partial model is left.
 * The file is compiled first in a child process (fork; docs/models.md, "A
 * crash inside libmujoco"): a file on which libmujoco crashes is
 * MDL_ERR_MUJOCO, "libmujoco crashed reading PATH (MuJoCo 2.2.2, signal
 * 11, ...)", and the caller's process goes on. */
MDL_API mdl_err mdl_read_mjcf(const char *path, dyn_model **out, mdl_read_info *info, char *msg,
                              size_t msgcap);

/* mdl_read_mjcf with options (NULL: the defaults, = mdl_read_mjcf).  The
 * same for URDF files, which MuJoCo's compiler reads too.  MDL_ERR_INPUT
 * for bad options. */
MDL_API mdl_err mdl_read_model(const char *path, const mdl_read_options *o, dyn_model **out,
                               mdl_read_info *info, char *msg, size_t msgcap);

/* The files a read of the model file at path opens (model_files.c): path
 * itself, then the files it includes (<include file>, followed) and the
 * asset files its elements name (an attribute file, filename or file... of
 * any element: meshes, skins, height fields, textures; a URDF mesh's
 * filename), each once by its real path, in the order found.  A name is
 * looked for in every place MuJoCo's compiler may look (the model's folder,
 * <compiler meshdir texturedir assetdir>, the naming file's folder, the
 * name stripped of its folders): each candidate that exists is listed, so
 * the list may hold a file MuJoCo does not open but is meant to hold every
 * one it does.  The XML is scanned, not compiled: a file MuJoCo refuses is
 * still listed.  *files (*n of them) is the caller's to free with
 * mdl_model_files_free.  MDL_ERR_FILE: path (or an included file) cannot
 * be read; MDL_ERR_NOMEM. */
MDL_API mdl_err mdl_model_files(const char *path, char ***files, int *n, char *msg, size_t msgcap);
MDL_API void mdl_model_files_free(char **files, int n);

/* ---- libmujoco ------------------------------------------------------------------- */

/* The version of libmujoco this library runs with ("2.2.2"). */
MDL_API const char *mdl_mujoco_version(void);

#ifdef __cplusplus
}
#endif
#endif /* MDL_H */
