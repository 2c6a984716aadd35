/* ext_io.c -- read(path, format) and write(problem, path, format, name,
 * x_ref) through the I/O library (slv_io.h).  The GIL stays held: the
 * FCLIB reader and writer switch HDF5's process-global error printer off
 * and on (slv_io.h), so two of them must not run at once, and holding the
 * GIL serialises them.  The package checks "the file exists" (force) before
 * calling write.
 */
#include "lcplab_ext.h"

#include "slv_io.h"

#include <stdio.h>
#include <string.h>

/* read(path, format) -> dict(problem, name, kind, format, x_ref), or
 * (status, message) when the library refuses the file */
PyObject *lx_read(PyObject *self, PyObject *args) {
  (void)self;
  const char *path;
  int fmt;
  if (!PyArg_ParseTuple(args, "si", &path, &fmt)) return NULL;
  if (fmt < SLV_FMT_AUTO || fmt > SLV_FMT_LAST) {
    PyErr_Format(PyExc_ValueError, "format %d out of range", fmt);
    return NULL;
  }
  slv_instance *inst = NULL;
  char err[512] = "";
  slv_status st = slv_read(path, (slv_format)fmt, &inst, err, sizeof err);
  if (st != SLV_OK || !inst) {
    slv_instance_free(inst);
    return Py_BuildValue("(is)", (int)st, err[0] ? err : slv_status_str(st));
  }
  slv_problem p = slv_instance_problem(inst);
  PyObject *d = PyDict_New();
  if (!d || lx_set_steal(d, "problem", lx_problem_tuple(&p)) < 0 ||
      lx_set_steal(d, "name",
                   PyUnicode_DecodeUTF8(inst->name, (Py_ssize_t)strlen(inst->name), "replace")) <
          0 ||
      lx_set_steal(d, "kind", PyUnicode_FromString(inst->kind)) < 0 ||
      lx_set_int(d, "format", inst->format) < 0 ||
      lx_set_steal(d, "x_ref", inst->x_ref ? lx_vector(inst->n, inst->x_ref) : Py_NewRef(Py_None)) <
          0)
    Py_CLEAR(d);
  slv_instance_free(inst);
  return d;
}

/* A view of the caller's arrays as an instance: slv_write only reads them
 * (a const instance) and slv_instance_classify writes kind[] only. */
static void instance_view(const slv_problem *p, const char *name, int fmt, const double *x_ref,
                          slv_instance *inst) {
  memset(inst, 0, sizeof *inst);
  snprintf(inst->name, sizeof inst->name, "%s", name);
  inst->format = (slv_format)fmt;
  inst->n = p->n;
  inst->storage = p->storage;
  inst->A = (double *)p->A;
  inst->Ap = (int *)p->Ap;
  inst->Aj = (int *)p->Aj;
  inst->Ax = (double *)p->Ax;
  inst->b = (double *)p->b;
  inst->lo = (double *)p->lo;
  inst->hi = (double *)p->hi;
  inst->findex = (int *)p->findex;
  inst->mu = (double *)p->mu;
  inst->ncones = p->ncones;
  inst->cone_rows = (int *)p->cone_rows;
  inst->cone_mu = (double *)p->cone_mu;
  inst->cone_law = p->cone_law;
  inst->x_ref = (double *)x_ref;
}

/* kind(problem) -> "lcp", "mlcp", "blcp", "findex" or "cone" (the I/O
 * library's classification, slv_io.h) */
PyObject *lx_kind(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *t;
  if (!PyArg_ParseTuple(args, "O", &t)) return NULL;
  slv_problem p;
  if (lx_problem_from(t, &p) < 0) return NULL;
  if (!p.lo || !p.hi) {
    PyErr_SetString(PyExc_ValueError, "lo and hi must be arrays");
    return NULL;
  }
  slv_instance inst;
  instance_view(&p, "", SLV_FMT_AUTO, NULL, &inst);
  slv_instance_classify(&inst);
  return PyUnicode_FromString(inst.kind);
}

/* write(problem, path, format, name, x_ref or None) -> (status, message) */
PyObject *lx_write(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *t, *xo;
  const char *path, *name;
  int fmt;
  if (!PyArg_ParseTuple(args, "OsisO", &t, &path, &fmt, &name, &xo)) return NULL;
  if (fmt < SLV_FMT_AUTO || fmt > SLV_FMT_LAST) {
    PyErr_Format(PyExc_ValueError, "format %d out of range", fmt);
    return NULL;
  }
  slv_problem p;
  if (lx_problem_from(t, &p) < 0) return NULL;
  const double *x_ref = lx_array_data(xo, NPY_DOUBLE, p.n, 0, 1, "x_ref");
  if (PyErr_Occurred()) return NULL;
  if (!p.lo || !p.hi) {
    PyErr_SetString(PyExc_ValueError, "lo and hi must be arrays to write a problem");
    return NULL;
  }
  char err[512] = "";
  slv_status st = slv_problem_validate(&p, err, sizeof err);
  if (st != SLV_OK) return Py_BuildValue("(is)", (int)st, err);
  slv_instance inst;
  instance_view(&p, name, fmt, x_ref, &inst);
  slv_instance_classify(&inst);
  st = slv_write(path, (slv_format)fmt, &inst, err, sizeof err);
  return Py_BuildValue("(is)", (int)st, st == SLV_OK ? "" : (err[0] ? err : slv_status_str(st)));
}
