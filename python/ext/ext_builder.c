/* ext_builder.c -- the records of a Model (libdynamics' dyn_model,
 * dyn_model.h; docs/scenes.md) to and from Python dicts: what
 * lcplab.Model's add_body, add_shape, add_material, add_joint, set_*, the
 * readers body(i), shape(i), ... and the options go through.  The C model
 * checks every record (its add and set functions, model_check.c) and
 * leaves the model as it was when it refuses: there is no second scene
 * implementation here, only the conversion of fields by name.
 *
 *   Model.add(kind, fields) -> index      kind "body", "shape", "material",
 *       "joint"; fields {key: value} over the record's _default()
 *   Model.set(kind, i, fields)            fields over record i as it is
 *   Model.get(kind, i) -> dict            every field of record i
 *   Model.find(kind, name) -> index or -1
 *   Model.exclude(a, b), Model.exclusions() -> [(a, b)]
 *   Model.options() -> dict, Model.set_options(fields)
 *   Model.mass_from_density(i, density)
 * Values: floats, ints, bools, strings (names), sequences of floats (a
 * vector of 3, a quaternion w, x, y, z, an inertia of 9 row-major, 6 erp
 * or cfm), and a hull's points as a C-contiguous float64 (n, 3) array;
 * the package converts the user's arguments into these.  A key the record
 * has not is a KeyError; a refused record a ValueError(message, "input")
 * with the library's message, which names the record.
 */
#include "lcplab_ext.h"

#include "dyn_model.h"

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef enum { F_DOUBLE, F_INT, F_BOOL, F_U32, F_LONG, F_V3, F_QUAT, F_M3, F_D6, F_NAME } ftype;

typedef struct field {
  const char *key;
  ftype t;
  size_t off;
} field;

_Static_assert(sizeof(dyn_shape_kind) == sizeof(int), "enum fields are read as int");
_Static_assert(sizeof(dyn_joint_kind) == sizeof(int), "enum fields are read as int");

#define BF(k, t, f)                                                                                \
  { k, t, offsetof(dyn_body_def, f) }
static const field body_fields[] = { BF("name", F_NAME, name),
                                     BF("static", F_BOOL, is_static),
                                     BF("mass", F_DOUBLE, mass),
                                     BF("inertia", F_M3, I_b),
                                     BF("position", F_V3, r),
                                     BF("orientation", F_QUAT, q),
                                     BF("velocity", F_V3, v),
                                     BF("angular_velocity", F_V3, w),
                                     BF("rest_given", F_BOOL, rest_given),
                                     BF("rest_position", F_V3, r_rest),
                                     { NULL, F_INT, 0 } };
#define SF(k, t, f)                                                                                \
  { k, t, offsetof(dyn_shape_def, f) }
static const field shape_fields[] = { SF("name", F_NAME, name),
                                      SF("body", F_INT, body),
                                      SF("kind", F_INT, geom.kind),
                                      SF("radius", F_DOUBLE, geom.radius),
                                      SF("half_length", F_DOUBLE, geom.half_length),
                                      SF("half_extents", F_V3, geom.half),
                                      SF("normal", F_V3, geom.normal),
                                      SF("offset", F_DOUBLE, geom.offset),
                                      SF("position", F_V3, pos),
                                      SF("orientation", F_QUAT, rot),
                                      SF("material", F_INT, material),
                                      SF("contype", F_U32, contype),
                                      SF("conaffinity", F_U32, conaffinity),
                                      { NULL, F_INT, 0 } };
#define MF(k, t, f)                                                                                \
  { k, t, offsetof(dyn_material, f) }
static const field material_fields[] = { MF("name", F_NAME, name),
                                         MF("mu", F_DOUBLE, mu),
                                         MF("restitution", F_DOUBLE, restitution),
                                         { NULL, F_INT, 0 } };
#define JF(k, t, f)                                                                                \
  { k, t, offsetof(dyn_joint_def, f) }
static const field joint_fields[] = { JF("name", F_NAME, name),
                                      JF("kind", F_INT, kind),
                                      JF("a", F_INT, a),
                                      JF("b", F_INT, b),
                                      JF("anchor", F_V3, anchor),
                                      JF("axis1", F_V3, axis1),
                                      JF("axis2", F_V3, axis2),
                                      JF("erp", F_D6, erp),
                                      JF("cfm", F_D6, cfm),
                                      JF("limit_enabled", F_BOOL, limit.enabled),
                                      JF("limit_lo", F_DOUBLE, limit.lo),
                                      JF("limit_hi", F_DOUBLE, limit.hi),
                                      JF("limit_erp", F_DOUBLE, limit.erp),
                                      JF("limit_cfm", F_DOUBLE, limit.cfm),
                                      JF("limit_restitution", F_DOUBLE, limit.restitution),
                                      JF("motor_enabled", F_BOOL, motor.enabled),
                                      JF("motor_velocity", F_DOUBLE, motor.target_vel),
                                      JF("motor_max_force", F_DOUBLE, motor.max_force),
                                      JF("motor_cfm", F_DOUBLE, motor.cfm),
                                      JF("spring_enabled", F_BOOL, spring.enabled),
                                      JF("spring_stiffness", F_DOUBLE, spring.stiffness),
                                      JF("spring_damping", F_DOUBLE, spring.damping),
                                      JF("spring_ref", F_DOUBLE, spring.ref),
                                      { NULL, F_INT, 0 } };
#define OF(k, t, f)                                                                                \
  { k, t, offsetof(dyn_model_options, f) }
static const field option_fields[] = { OF("gravity", F_V3, gravity),
                                       OF("rest_threshold", F_DOUBLE, rest_threshold),
                                       OF("rest_threshold_steps", F_DOUBLE, rest_threshold_steps),
                                       OF("steps", F_LONG, steps),
                                       OF("duration", F_DOUBLE, duration),
                                       { NULL, F_INT, 0 } };

/* The count of doubles of a vector field type. */
static int width(ftype t) {
  switch (t) {
  case F_V3: return 3;
  case F_QUAT: return 4;
  case F_M3: return 9;
  case F_D6: return DYN_JOINT_MAX_BASE;
  default: return 1;
  }
}

/* rec's field f as a Python value. */
static PyObject *field_get(const char *rec, const field *f) {
  const char *p = rec + f->off;
  switch (f->t) {
  case F_DOUBLE: return PyFloat_FromDouble(*(const double *)p);
  case F_INT: return PyLong_FromLong(*(const int *)p);
  case F_BOOL: return PyBool_FromLong(*(const int *)p != 0);
  case F_U32: return PyLong_FromUnsignedLong(*(const uint32_t *)p);
  case F_LONG: return PyLong_FromLong(*(const long *)p);
  case F_NAME: return PyUnicode_DecodeUTF8(p, (Py_ssize_t)strlen(p), "replace");
  default: break;
  }
  int n = width(f->t);
  PyObject *t = PyTuple_New(n);
  for (int k = 0; t && k < n; k++) {
    PyObject *v = PyFloat_FromDouble(((const double *)p)[k]);
    if (!v)
      Py_CLEAR(t);
    else
      PyTuple_SET_ITEM(t, k, v);
  }
  return t;
}

/* Field f of rec from the Python value v: 0, or -1 with an exception
 * naming what (the record) and the key. */
static int field_set(char *rec, const field *f, PyObject *v, const char *what) {
  char *p = rec + f->off;
  switch (f->t) {
  case F_DOUBLE: {
    double x = PyFloat_AsDouble(v);
    if (x == -1.0 && PyErr_Occurred()) break;
    *(double *)p = x;
    return 0;
  }
  case F_INT:
  case F_BOOL: {
    long x = PyLong_AsLong(v);
    if (x == -1 && PyErr_Occurred()) break;
    if (x < INT_MIN || x > INT_MAX) {
      PyErr_Format(PyExc_ValueError, "%s: %s=%ld out of range", what, f->key, x);
      return -1;
    }
    *(int *)p = (int)x;
    return 0;
  }
  case F_U32: {
    unsigned long x = PyLong_AsUnsignedLong(v);
    if (x == (unsigned long)-1 && PyErr_Occurred()) break;
    if (x > UINT32_MAX) {
      PyErr_Format(PyExc_ValueError, "%s: %s=%lu must fit 32 bits", what, f->key, x);
      return -1;
    }
    *(uint32_t *)p = (uint32_t)x;
    return 0;
  }
  case F_LONG: {
    long x = PyLong_AsLong(v);
    if (x == -1 && PyErr_Occurred()) break;
    *(long *)p = x;
    return 0;
  }
  case F_NAME: {
    Py_ssize_t len = 0;
    const char *s = PyUnicode_Check(v) ? PyUnicode_AsUTF8AndSize(v, &len) : NULL;
    if (!s) break;
    if (len >= DYN_NAME_MAX || (Py_ssize_t)strlen(s) != len) {
      PyErr_Format(PyExc_ValueError, "%s: name '%.40s...' must be 1 to %d characters (no NUL)",
                   what, s, DYN_NAME_MAX - 1);
      return -1;
    }
    memcpy(p, s, (size_t)len + 1);
    return 0;
  }
  default: {
    int n = width(f->t);
    PyObject *seq = PySequence_Fast(v, "a sequence of numbers");
    if (!seq) break;
    int ok = PySequence_Fast_GET_SIZE(seq) == n;
    double x[9];
    for (int k = 0; ok && k < n; k++) {
      x[k] = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(seq, k));
      ok = !(x[k] == -1.0 && PyErr_Occurred());
    }
    Py_DECREF(seq);
    if (!ok) {
      PyErr_Clear();
      PyErr_Format(PyExc_ValueError, "%s: %s must be %d numbers", what, f->key, n);
      return -1;
    }
    memcpy(p, x, (size_t)n * sizeof(double));
    return 0;
  }
  }
  PyErr_Clear();
  PyErr_Format(PyExc_TypeError, "%s: %s has the wrong type (%s)", what, f->key,
               Py_TYPE(v)->tp_name);
  return -1;
}

/* fields of d over rec (table tab): 0, or -1 with an exception (KeyError
 * for a key not in tab; keys in skip are left to the caller). */
static int fields_set(char *rec, const field *tab, PyObject *d, const char *what,
                      const char *skip) {
  if (!PyDict_Check(d)) {
    PyErr_SetString(PyExc_TypeError, "fields must be a dict");
    return -1;
  }
  PyObject *key, *val;
  Py_ssize_t pos = 0;
  while (PyDict_Next(d, &pos, &key, &val)) {
    const char *k = PyUnicode_Check(key) ? PyUnicode_AsUTF8(key) : NULL;
    if (!k) {
      PyErr_SetString(PyExc_TypeError, "field names must be str");
      return -1;
    }
    if (skip && strcmp(k, skip) == 0) continue;
    const field *f = tab;
    while (f->key && strcmp(f->key, k) != 0) f++;
    if (!f->key) {
      PyErr_Format(PyExc_KeyError, "%s has no field '%s'", what, k);
      return -1;
    }
    if (field_set(rec, f, val, what) < 0) return -1;
  }
  return 0;
}

static PyObject *fields_get(const char *rec, const field *tab) {
  PyObject *d = PyDict_New();
  for (const field *f = tab; d && f->key; f++)
    if (lx_set_steal(d, f->key, field_get(rec, f)) < 0) Py_CLEAR(d);
  return d;
}

/* ---- the four kinds of record -------------------------------------------------------- */

typedef enum { K_BODY, K_SHAPE, K_MATERIAL, K_JOINT, K_NONE } rkind;
static const char *const kind_names[] = { "body", "shape", "material", "joint" };
static const field *const kind_fields[] = { body_fields, shape_fields, material_fields,
                                            joint_fields };

static rkind kind_of(const char *s) {
  for (int k = 0; k < K_NONE; k++)
    if (strcmp(s, kind_names[k]) == 0) return (rkind)k;
  PyErr_Format(PyExc_ValueError, "unknown record kind '%s'", s);
  return K_NONE;
}

/* Any record, large enough for each kind. */
typedef union {
  dyn_body_def body;
  dyn_shape_def shape;
  dyn_material material;
  dyn_joint_def joint;
} record;

static int count_of(const dyn_model *m, rkind k) {
  switch (k) {
  case K_BODY: return dyn_model_body_count(m);
  case K_SHAPE: return dyn_model_shape_count(m);
  case K_MATERIAL: return dyn_model_material_count(m);
  default: return dyn_model_joint_count(m);
  }
}

/* Record i of kind k (checked against its count) into *r. */
static int record_at(const dyn_model *m, rkind k, Py_ssize_t i, record *r) {
  if (i < 0 || i >= count_of(m, k)) {
    PyErr_Format(PyExc_IndexError, "no %s %zd (the model has %d)", kind_names[k], i,
                 count_of(m, k));
    return -1;
  }
  switch (k) {
  case K_BODY: r->body = dyn_model_bodies(m)[i]; break;
  case K_SHAPE: r->shape = dyn_model_shapes(m)[i]; break;
  case K_MATERIAL: r->material = dyn_model_materials(m)[i]; break;
  default: r->joint = dyn_model_joints(m)[i]; break;
  }
  return 0;
}

static void record_default(rkind k, record *r) {
  switch (k) {
  case K_BODY: r->body = dyn_body_def_default(); break;
  case K_SHAPE: r->shape = dyn_shape_def_default(); break;
  case K_MATERIAL: r->material = dyn_material_default(); break;
  default: r->joint = dyn_joint_def_default(); break;
  }
}

/* A hull's points from d["points"] (a C-contiguous float64 (n, 3) array)
 * into the shape, borrowed from the array for the add or set call (the
 * model copies them).  0 (no points given: nothing changed), or -1. */
static int shape_points(dyn_shape_def *s, PyObject *d, const char *what) {
  PyObject *pts = PyDict_GetItemString(d, "points");
  if (!pts) return 0;
  if (!PyArray_Check(pts) || PyArray_NDIM((PyArrayObject *)pts) != 2 ||
      PyArray_DIM((PyArrayObject *)pts, 1) != 3 ||
      PyArray_DIM((PyArrayObject *)pts, 0) > INT_MAX / 3) {
    PyErr_Format(PyExc_ValueError, "%s: points must be an (n, 3) array", what);
    return -1;
  }
  npy_intp n = PyArray_DIM((PyArrayObject *)pts, 0);
  const double *v = lx_array_data(pts, NPY_DOUBLE, 3 * n, 0, 0, "points");
  if (!v) return -1;
  s->geom.verts = (const dyn_v3 *)v;
  s->geom.nverts = (int)n;
  return 0;
}

static PyObject *refused(const char *msg) {
  PyObject *v = Py_BuildValue("(ss)", msg, "input");
  if (v) PyErr_SetObject(PyExc_ValueError, v);
  Py_XDECREF(v);
  return NULL;
}

/* add or set: the record r of kind k, as index i (-1: added). */
static PyObject *store(dyn_model *m, rkind k, int i, const record *r) {
  char msg[512] = "";
  int rc;
  switch (k) {
  case K_BODY:
    rc = i < 0 ? dyn_model_add_body(m, &r->body, msg, sizeof msg)
               : (int)dyn_model_set_body(m, i, &r->body, msg, sizeof msg);
    break;
  case K_SHAPE:
    rc = i < 0 ? dyn_model_add_shape(m, &r->shape, msg, sizeof msg)
               : (int)dyn_model_set_shape(m, i, &r->shape, msg, sizeof msg);
    break;
  case K_MATERIAL:
    rc = i < 0 ? dyn_model_add_material(m, &r->material, msg, sizeof msg)
               : (int)dyn_model_set_material(m, i, &r->material, msg, sizeof msg);
    break;
  default:
    rc = i < 0 ? dyn_model_add_joint(m, &r->joint, msg, sizeof msg)
               : (int)dyn_model_set_joint(m, i, &r->joint, msg, sizeof msg);
    break;
  }
  if (rc == DYN_ERR_NOMEM) return PyErr_NoMemory();
  if (rc < 0) return refused(msg[0] ? msg : "refused");
  return PyLong_FromLong(i < 0 ? rc : i);
}

/* The record's name for messages before the model sees it: "body 3". */
static void describe(char *buf, size_t len, rkind k, int i, PyObject *d) {
  PyObject *name = PyDict_GetItemString(d, "name");
  const char *s = name && PyUnicode_Check(name) ? PyUnicode_AsUTF8(name) : NULL;
  if (!s) PyErr_Clear();
  if (i >= 0)
    snprintf(buf, len, "%s %d%s%.40s%s", kind_names[k], i, s ? " '" : "", s ? s : "", s ? "'" : "");
  else
    snprintf(buf, len, "new %s%s%.40s%s", kind_names[k], s ? " '" : "", s ? s : "", s ? "'" : "");
}

/* Model.add(kind, fields) / Model.set(kind, i, fields) */
static PyObject *add_or_set(dyn_model *m, const char *ks, Py_ssize_t i, PyObject *d) {
  rkind k = kind_of(ks);
  if (k == K_NONE) return NULL;
  record r;
  if (i < 0)
    record_default(k, &r);
  else if (record_at(m, k, i, &r) < 0)
    return NULL;
  char what[96];
  describe(what, sizeof what, k, (int)i, d);
  if (fields_set((char *)&r, kind_fields[k], d, what, k == K_SHAPE ? "points" : NULL) < 0)
    return NULL;
  if (k == K_SHAPE && shape_points(&r.shape, d, what) < 0) return NULL;
  return store(m, k, (int)i, &r);
}

PyObject *lx_model_add(lx_model *self, PyObject *args) {
  const char *ks;
  PyObject *d;
  if (!PyArg_ParseTuple(args, "sO!", &ks, &PyDict_Type, &d)) return NULL;
  return add_or_set(self->m, ks, -1, d);
}

PyObject *lx_model_set(lx_model *self, PyObject *args) {
  const char *ks;
  Py_ssize_t i;
  PyObject *d;
  if (!PyArg_ParseTuple(args, "snO!", &ks, &i, &PyDict_Type, &d)) return NULL;
  if (i < 0) {
    PyErr_Format(PyExc_IndexError, "no %s %zd", ks, i);
    return NULL;
  }
  return add_or_set(self->m, ks, i, d);
}

PyObject *lx_model_get(lx_model *self, PyObject *args) {
  const char *ks;
  Py_ssize_t i;
  if (!PyArg_ParseTuple(args, "sn", &ks, &i)) return NULL;
  rkind k = kind_of(ks);
  record r;
  if (k == K_NONE || record_at(self->m, k, i, &r) < 0) return NULL;
  PyObject *d = fields_get((const char *)&r, kind_fields[k]);
  if (d && k == K_SHAPE) {
    npy_intp dims[2] = { r.shape.geom.kind == DYN_SHAPE_HULL ? r.shape.geom.nverts : 0, 3 };
    PyObject *a = PyArray_SimpleNew(2, dims, NPY_DOUBLE);
    if (a && dims[0] > 0)
      memcpy(PyArray_DATA((PyArrayObject *)a), r.shape.geom.verts,
             (size_t)dims[0] * 3 * sizeof(double));
    if (lx_set_steal(d, "points", a) < 0) Py_CLEAR(d);
  }
  return d;
}

PyObject *lx_model_find(lx_model *self, PyObject *args) {
  const char *ks, *name;
  if (!PyArg_ParseTuple(args, "ss", &ks, &name)) return NULL;
  switch (kind_of(ks)) {
  case K_BODY: return PyLong_FromLong(dyn_model_find_body(self->m, name));
  case K_SHAPE: return PyLong_FromLong(dyn_model_find_shape(self->m, name));
  case K_MATERIAL: return PyLong_FromLong(dyn_model_find_material(self->m, name));
  case K_JOINT: return PyLong_FromLong(dyn_model_find_joint(self->m, name));
  default: return NULL;
  }
}

PyObject *lx_model_exclude(lx_model *self, PyObject *args) {
  int a, b;
  if (!PyArg_ParseTuple(args, "ii", &a, &b)) return NULL;
  char msg[512] = "";
  dyn_err e = dyn_model_exclude(self->m, a, b, msg, sizeof msg);
  if (e == DYN_ERR_NOMEM) return PyErr_NoMemory();
  if (e != DYN_OK) return refused(msg);
  Py_RETURN_NONE;
}

PyObject *lx_model_exclusions(lx_model *self, PyObject *noargs) {
  (void)noargs;
  int n = dyn_model_exclusion_count(self->m);
  const int *p = dyn_model_exclusions(self->m);
  PyObject *list = PyList_New(0);
  for (int k = 0; list && k < n; k++) {
    PyObject *t = Py_BuildValue("(ii)", p[2 * k], p[2 * k + 1]);
    if (!t || PyList_Append(list, t) < 0) Py_CLEAR(list);
    Py_XDECREF(t);
  }
  return list;
}

PyObject *lx_model_options(lx_model *self, PyObject *noargs) {
  (void)noargs;
  dyn_model_options o = dyn_model_get_options(self->m);
  return fields_get((const char *)&o, option_fields);
}

PyObject *lx_model_set_options(lx_model *self, PyObject *args) {
  PyObject *d;
  if (!PyArg_ParseTuple(args, "O!", &PyDict_Type, &d)) return NULL;
  dyn_model_options o = dyn_model_get_options(self->m);
  if (fields_set((char *)&o, option_fields, d, "options", NULL) < 0) return NULL;
  char msg[512] = "";
  if (dyn_model_set_options(self->m, &o, msg, sizeof msg) != DYN_OK) return refused(msg);
  Py_RETURN_NONE;
}

PyObject *lx_model_mass_from_density(lx_model *self, PyObject *args) {
  int i;
  double rho;
  if (!PyArg_ParseTuple(args, "id", &i, &rho)) return NULL;
  char msg[512] = "";
  dyn_err e = dyn_model_mass_from_density(self->m, i, rho, msg, sizeof msg);
  if (e == DYN_ERR_NOMEM) return PyErr_NoMemory();
  if (e != DYN_OK) return refused(msg);
  Py_RETURN_NONE;
}
