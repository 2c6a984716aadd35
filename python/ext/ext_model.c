/* ext_model.c -- the Model type: a scene model (libdynamics' dyn_model,
 * dyn_model.h; docs/scenes.md) owned by a Python object, and its files
 * (libmodels, mdl.h; docs/models.md).  The package's lcplab.Model wraps it
 * (python/lcplab/_model.py).
 *
 *   scene_model(name, params) -> Model   a built-in scene's model
 *       (dyn_scene_model; params ["key=value", ...])
 *   load_model(path, approximate, max_memory, reduced, friction) -> (Model,
 *       timestep, warnings, notes, reduced)   an MJCF or URDF file through MuJoCo's compiler
 *       (mdl_read_model)
 *   Model.save(path, dt, default_mu, name)   MJCF (mdl_write_mjcf), written
 *       under a temporary name and renamed when complete (io_outfile)
 *   Model() -> an empty model; Model.counts() -> dict,
 *   Model.default_steps(dt) -> int, Model.copy(); the records by name:
 *   ext_builder.c
 * A refusal raises ValueError("<the library's message>") carrying the code
 * ("input", "file", "refused", ...) as its second argument; the package
 * re-raises it as its own error type.
 */
#include "lcplab_ext.h"

#include "dyn_world.h"
#include "io.h"
#include "mdl.h"

#include <stdio.h>
#include <string.h>


/* Model() -> an empty model (dyn_model_new) */
static PyObject *model_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
  if (PyTuple_GET_SIZE(args) > 0 || (kwargs && PyDict_Size(kwargs) > 0)) {
    PyErr_SetString(PyExc_TypeError, "Model() takes no arguments");
    return NULL;
  }
  lx_model *o = (lx_model *)type->tp_alloc(type, 0);
  if (!o) return NULL;
  if (dyn_model_new(&o->m) != DYN_OK) {
    Py_DECREF(o);
    return PyErr_NoMemory();
  }
  return (PyObject *)o;
}

static void model_dealloc(lx_model *self) {
  dyn_model_free(self->m);
  Py_TYPE(self)->tp_free((PyObject *)self);
}

/* A new Model owning m (freed on failure). */
static PyObject *wrap(dyn_model *m) {
  lx_model *o = PyObject_New(lx_model, &lx_model_type);
  if (!o) {
    dyn_model_free(m);
    return NULL;
  }
  o->m = m;
  o->reduced = 0;
  return (PyObject *)o;
}

static PyObject *refused(const char *code, const char *msg) {
  PyObject *v = Py_BuildValue("(ss)", msg, code);
  if (v) PyErr_SetObject(PyExc_ValueError, v);
  Py_XDECREF(v);
  return NULL;
}

static const char *code_of(mdl_err e) {
  switch (e) {
  case MDL_ERR_FILE: return "file";
  case MDL_ERR_REFUSED: return "refused";
  case MDL_ERR_IO: return "io";
  case MDL_ERR_MUJOCO: return "mujoco";
  default: return "input";
  }
}

/* scene_model(name, params) */
PyObject *lx_scene_model(PyObject *self, PyObject *args) {
  (void)self;
  const char *name;
  PyObject *params;
  if (!PyArg_ParseTuple(args, "sO", &name, &params)) return NULL;
  Py_ssize_t np = 0;
  const char **pv = lx_param_list(params, &np);
  if (!pv) return NULL;
  char msg[512] = "";
  dyn_model *m = NULL;
  dyn_err e = dyn_scene_model(name, pv, (int)np, &m, msg, sizeof msg);
  PyMem_Free(pv);
  if (e == DYN_ERR_NOMEM) return PyErr_NoMemory();
  if (e != DYN_OK) return refused("input", msg[0] ? msg : "cannot build the scene");
  return wrap(m);
}

/* The friction model name (None: any) as mdl_read_options.friction, by
 * libdynamics' settings parser; -2 with a ValueError set. */
static int friction_of(const char *name) {
  if (!name) return MDL_FRICTION_ANY;
  dyn_world_settings s = dyn_world_settings_default();
  char err[256] = "";
  if (dyn_world_settings_set(&s, "friction", name, err, sizeof err) != 1) {
    PyErr_Format(PyExc_ValueError, "load_model: friction %s", err);
    return -2;
  }
  return (int)s.contact.friction;
}

/* load_model(path, approximate, max_memory, reduced, friction) -> (Model, timestep,
 * warnings, notes, reduced); max_memory 0: libmodels' default cap; reduced
 * 1: read for reduced coordinates, and the Model's worlds are in them; 0:
 * maximal; -1 (the default): the file's own (MDL_COORDINATES_FILE); the
 * returned reduced is the representation read */
PyObject *lx_load_model(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *pathobj;
  int approximate = 0, reduced = MDL_COORDINATES_FILE;
  unsigned long long max_memory = 0;
  const char *friction = NULL;
  if (!PyArg_ParseTuple(args, "O&|pKiz", PyUnicode_FSConverter, &pathobj, &approximate, &max_memory,
                        &reduced, &friction))
    return NULL;
  int fr = friction_of(friction);
  if (fr == -2) {
    Py_DECREF(pathobj);
    return NULL;
  }
  if (reduced != 0 && reduced != 1 && reduced != MDL_COORDINATES_FILE) {
    Py_DECREF(pathobj);
    PyErr_Format(PyExc_ValueError, "load_model: reduced=%d is not 0, 1 or -1", reduced);
    return NULL;
  }
  char msg[2048] = "";
  dyn_model *m = NULL;
  mdl_read_info info;
  mdl_read_options ro = mdl_read_options_default();
  ro.approximate = approximate;
  ro.reduced = reduced;
  ro.friction = fr;
  if (max_memory > 0) ro.max_memory = max_memory > SIZE_MAX ? SIZE_MAX : (size_t)max_memory;
  /* a refusal names load_model's arguments, not the program's options */
  ro.words = (mdl_option_words){ "approximate=True", "coordinates=\"reduced\"",
                                 "coordinates=\"maximal\"", "max_memory=" };
  mdl_err e;
  Py_BEGIN_ALLOW_THREADS e =
      mdl_read_model(PyBytes_AS_STRING(pathobj), &ro, &m, &info, msg, sizeof msg);
  Py_END_ALLOW_THREADS Py_DECREF(pathobj);
  if (e == MDL_ERR_NOMEM) return PyErr_NoMemory();
  if (e != MDL_OK) return refused(code_of(e), msg);
  PyObject *o = wrap(m);
  if (!o) return NULL;
  ((lx_model *)o)->reduced = info.reduced;
  return Py_BuildValue("(Ndssi)", o, info.timestep, info.warnings, info.notes, info.reduced);
}

/* Model.save(path, dt, default_mu, name) */
static PyObject *model_save(lx_model *self, PyObject *args) {
  PyObject *pathobj;
  mdl_write_options o = mdl_write_options_default();
  const char *name = NULL;
  if (!PyArg_ParseTuple(args, "O&dd|z", PyUnicode_FSConverter, &pathobj, &o.dt, &o.default_mu,
                        &name))
    return NULL;
  o.model_name = name;
  char msg[1024] = "";
  io_outfile *out = io_outfile_open(PyBytes_AS_STRING(pathobj), msg, sizeof msg);
  Py_DECREF(pathobj);
  if (!out) return refused("io", msg);
  mdl_err e = mdl_write_mjcf(self->m, &o, io_outfile_stream(out), msg, sizeof msg);
  if (e != MDL_OK) {
    io_outfile_discard(out);
    return refused(code_of(e), msg);
  }
  if (io_outfile_publish(out, msg, sizeof msg) != SLV_OK) return refused("io", msg);
  Py_RETURN_NONE;
}

static PyObject *model_counts(lx_model *self, PyObject *noargs) {
  (void)noargs;
  const dyn_model *m = self->m;
  return Py_BuildValue("{sisisisisi}", "bodies", dyn_model_body_count(m), "shapes",
                       dyn_model_shape_count(m), "materials", dyn_model_material_count(m), "joints",
                       dyn_model_joint_count(m), "exclusions", dyn_model_exclusion_count(m));
}

static PyObject *model_default_steps(lx_model *self, PyObject *args) {
  double dt;
  if (!PyArg_ParseTuple(args, "d", &dt)) return NULL;
  return PyLong_FromLong(dyn_model_default_steps(self->m, dt));
}

static PyObject *model_copy(lx_model *self, PyObject *noargs) {
  (void)noargs;
  dyn_model *c = NULL;
  if (dyn_model_copy(self->m, &c) != DYN_OK) return PyErr_NoMemory();
  PyObject *o = wrap(c);
  if (o) ((lx_model *)o)->reduced = self->reduced;
  return o;
}

int lx_model_world(PyObject *obj, const dyn_world_settings *base, double timestep, int solver_given,
                   dyn_world **w, char *msg, size_t cap) {
  if (!PyObject_TypeCheck(obj, &lx_model_type)) return 1;
  const dyn_model *m = ((lx_model *)obj)->m;
  /* libdynamics' one rule: the file's timestep and the model's gravity
   * unless the settings give them; the contacts take the materials */
  dyn_world_settings s = dyn_world_settings_for_model(base, m, timestep);
  if (((lx_model *)obj)->reduced) s.coordinates = DYN_COORDINATES_REDUCED;
  if (!solver_given) /* libdynamics' one rule, as `lcplab simulate --model` */
    snprintf(s.solver, sizeof s.solver, "%s",
             dyn_world_default_solver(s.coordinates, s.contact.friction));
  /* the world shares the model it runs on, which must not change while
   * it does: it runs on a copy, so that the Python model stays editable */
  dyn_model *c = NULL;
  if (dyn_model_copy(m, &c) != DYN_OK) {
    snprintf(msg, cap, "out of memory for the model's copy");
    return DYN_ERR_NOMEM;
  }
  dyn_err e = dyn_world_new_from_model(c, &s, w, msg, cap);
  dyn_model_free(c); /* the world's now, or freed */
  return e == DYN_OK ? 0 : e;
}

static PyMethodDef model_methods[] = {
  { "save", (PyCFunction)model_save, METH_VARARGS,
    "save(path, dt, default_mu, name) writes the model as MJCF." },
  { "counts", (PyCFunction)model_counts, METH_NOARGS, "The record counts, as a dict." },
  { "default_steps", (PyCFunction)model_default_steps, METH_VARARGS,
    "default_steps(dt) -> the model's default run at step dt." },
  { "copy", (PyCFunction)model_copy, METH_NOARGS, "A deep copy." },
  { "add", (PyCFunction)lx_model_add, METH_VARARGS, "add(kind, fields) -> index" },
  { "set", (PyCFunction)lx_model_set, METH_VARARGS, "set(kind, i, fields)" },
  { "get", (PyCFunction)lx_model_get, METH_VARARGS, "get(kind, i) -> dict" },
  { "find", (PyCFunction)lx_model_find, METH_VARARGS, "find(kind, name) -> index or -1" },
  { "exclude", (PyCFunction)lx_model_exclude, METH_VARARGS, "exclude(a, b)" },
  { "exclusions", (PyCFunction)lx_model_exclusions, METH_NOARGS, "[(a, b)]" },
  { "options", (PyCFunction)lx_model_options, METH_NOARGS, "options() -> dict" },
  { "set_options", (PyCFunction)lx_model_set_options, METH_VARARGS, "set_options(fields)" },
  { "mass_from_density", (PyCFunction)lx_model_mass_from_density, METH_VARARGS,
    "mass_from_density(body, density)" },
  { NULL, NULL, 0, NULL }
};

PyTypeObject lx_model_type = {
  PyVarObject_HEAD_INIT(NULL, 0).tp_name = "lcplab._lcplab.Model",
  .tp_basicsize = sizeof(lx_model),
  .tp_dealloc = (destructor)model_dealloc,
  .tp_flags = Py_TPFLAGS_DEFAULT,
  .tp_doc = "A scene model (private: use lcplab.Model).",
  .tp_methods = model_methods,
  .tp_new = model_new,
};
