/* ext_io.c -- read(path, format) and write(problem, path, format, name,
 * x_ref) through the I/O library (io.h).  The GIL stays held: the
 * FCLIB reader and writer switch HDF5's process-global error printer off
 * and on (io.h), so two of them must not run at once, and holding the
 * GIL serialises them.  The package checks "the file exists" (force) before
 * calling write.
 */
#include "lcplab_ext.h"

#include "io.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

/* The global problem g as the tuple (ndof, M indptr, M indices, M data,
 * H indptr, H indices, H data, f, w): int32 / float64 copies, CSR. */
PyObject *lx_global_tuple(const slv_global_form *g) {
  int mnz = g->Mp[g->ndof], hnz = g->Hp[g->ndof];
  return Py_BuildValue("(iNNNNNNNN)", g->ndof, lx_ivector(g->ndof + 1, g->Mp),
                       lx_ivector(mnz, g->Mj), lx_vector(mnz, g->Mx),
                       lx_ivector(g->ndof + 1, g->Hp), lx_ivector(hnz, g->Hj),
                       lx_vector(hnz, g->Hx), lx_vector(g->ndof, g->f), lx_vector(g->n, g->w));
}

/* read(path, format) -> dict(problem, name, kind, format, x_ref, global:
 * None or global_tuple), or (status, message) when the library refuses the
 * file */
PyObject *lx_read(PyObject *self, PyObject *args) {
  (void)self;
  const char *path;
  int fmt;
  if (!PyArg_ParseTuple(args, "si", &path, &fmt)) return NULL;
  if (fmt < IO_FMT_AUTO || fmt > IO_FMT_LAST) {
    PyErr_Format(PyExc_ValueError, "format %d out of range", fmt);
    return NULL;
  }
  io_instance *inst = NULL;
  char err[512] = "";
  slv_status st = io_read(path, (io_format)fmt, &inst, err, sizeof err);
  if (st != SLV_OK || !inst) {
    io_instance_free(inst);
    return Py_BuildValue("(is)", (int)st, err[0] ? err : slv_status_str(st));
  }
  slv_problem p = io_instance_problem(inst);
  PyObject *d = PyDict_New();
  if (!d || lx_set_steal(d, "problem", lx_problem_tuple(&p)) < 0 ||
      lx_set_steal(d, "name",
                   PyUnicode_DecodeUTF8(inst->name, (Py_ssize_t)strlen(inst->name), "replace")) <
          0 ||
      lx_set_steal(d, "kind", PyUnicode_FromString(inst->kind)) < 0 ||
      lx_set_int(d, "format", inst->format) < 0 ||
      lx_set_steal(d, "x_ref", inst->x_ref ? lx_vector(inst->n, inst->x_ref) : Py_NewRef(Py_None)) <
          0 ||
      lx_set_steal(d, "global", inst->global ? lx_global_tuple(inst->global) : Py_NewRef(Py_None)) <
          0)
    Py_CLEAR(d);
  io_instance_free(inst);
  return d;
}

/* A view of the caller's arrays as an instance: io_write only reads them
 * (a const instance) and io_instance_classify writes kind[] only. */
static void instance_view(const slv_problem *p, const char *name, int fmt, const double *x_ref,
                          io_instance *inst) {
  memset(inst, 0, sizeof *inst);
  snprintf(inst->name, sizeof inst->name, "%s", name);
  inst->format = (io_format)fmt;
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
 * library's classification, io.h) */
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
  io_instance inst;
  instance_view(&p, "", IO_FMT_AUTO, NULL, &inst);
  io_instance_classify(&inst);
  return PyUnicode_FromString(inst.kind);
}

/* 1 if the CSR rows p[0..rows] of indices j (each < cols) are well formed;
 * else 0 with a ValueError naming what. */
static int csr_ok(const int *p, const int *j, int rows, int cols, npy_intp nnz, const char *what) {
  int ok = p[0] == 0 && p[rows] == nnz;
  for (int r = 0; ok && r < rows; r++) ok = p[r] <= p[r + 1];
  for (npy_intp k = 0; ok && k < nnz; k++) ok = j[k] >= 0 && j[k] < cols;
  if (!ok) PyErr_Format(PyExc_ValueError, "global problem: %s is not a valid CSR matrix", what);
  return ok;
}

/* *g over the arrays of a global tuple (global_tuple's layout) for an
 * instance of n rows; 0, or -1 with an exception. */
static int global_from(PyObject *t, int n, slv_global_form *g) {
  PyObject *o[9];
  if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) != 9) {
    PyErr_SetString(PyExc_TypeError, "global problem: expected a 9-tuple");
    return -1;
  }
  for (int k = 0; k < 9; k++) o[k] = PyTuple_GET_ITEM(t, k);
  long nd = PyLong_AsLong(o[0]);
  if (PyErr_Occurred() || nd < 1 || nd > INT_MAX - 1) {
    PyErr_SetString(PyExc_ValueError, "global problem: ndof must be a positive int");
    return -1;
  }
  memset(g, 0, sizeof *g);
  g->ndof = (int)nd;
  g->n = n;
  g->Mp = lx_array_data(o[1], NPY_INT32, nd + 1, 0, 0, "M indptr");
  if (!PyErr_Occurred()) g->Hp = lx_array_data(o[4], NPY_INT32, nd + 1, 0, 0, "H indptr");
  if (PyErr_Occurred()) return -1;
  npy_intp mnz = g->Mp[nd], hnz = g->Hp[nd];
  g->Mj = lx_array_data(o[2], NPY_INT32, mnz, 0, 0, "M indices");
  if (!PyErr_Occurred()) g->Mx = lx_array_data(o[3], NPY_DOUBLE, mnz, 0, 0, "M data");
  if (!PyErr_Occurred()) g->Hj = lx_array_data(o[5], NPY_INT32, hnz, 0, 0, "H indices");
  if (!PyErr_Occurred()) g->Hx = lx_array_data(o[6], NPY_DOUBLE, hnz, 0, 0, "H data");
  if (!PyErr_Occurred()) g->f = lx_array_data(o[7], NPY_DOUBLE, nd, 0, 0, "f");
  if (!PyErr_Occurred()) g->w = lx_array_data(o[8], NPY_DOUBLE, n, 0, 0, "w");
  if (PyErr_Occurred()) return -1;
  return csr_ok(g->Mp, g->Mj, g->ndof, g->ndof, mnz, "M") &&
                 csr_ok(g->Hp, g->Hj, g->ndof, n, hnz, "H")
             ? 0
             : -1;
}

/* velocities(problem, global tuple, x) -> (v, u, res_vel): the velocities
 * v = M^-1 (H x + f), u = H' v + w of a global problem at the answer x of
 * its condensed problem (slv_global_velocities) and the velocity-level
 * accuracy (slv_velocity_residual); (status, message) when M cannot be
 * factored. */
PyObject *lx_velocities(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *t, *go, *xo;
  if (!PyArg_ParseTuple(args, "OOO", &t, &go, &xo)) return NULL;
  slv_problem p;
  slv_global_form g;
  if (lx_problem_from(t, &p) < 0 || global_from(go, p.n, &g) < 0) return NULL;
  const double *x = lx_array_data(xo, NPY_DOUBLE, p.n, 0, 0, "x");
  if (!x) return NULL;
  PyObject *v = lx_vector(g.ndof, NULL), *u = lx_vector(p.n, NULL);
  double *scratch = PyMem_Malloc((2 * (size_t)p.n + 1) * sizeof(double));
  PyObject *out = NULL;
  if (v && u && scratch) {
    slv_status st =
        slv_global_velocities(g.ndof, g.n, g.Mp, g.Mj, g.Mx, g.Hp, g.Hj, g.Hx, g.f, g.w, x,
                              PyArray_DATA((PyArrayObject *)v), PyArray_DATA((PyArrayObject *)u));
    if (st)
      out =
          Py_BuildValue("(is)", (int)st, "the velocities v = M^-1 (H r + f) could not be computed");
    else
      out = Py_BuildValue("(OOd)", v, u, slv_velocity_residual(&p, x, scratch));
  } else if (!scratch) {
    PyErr_NoMemory();
  }
  PyMem_Free(scratch);
  Py_XDECREF(v);
  Py_XDECREF(u);
  return out;
}

/* global_vjp(global, n, x, gq) -> (gM, gH, gf, gw) on the stored entries
 * (slv_sensitivity_global_vjp), or (status, message) */
PyObject *lx_global_vjp(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *go, *xo, *qo;
  int n;
  if (!PyArg_ParseTuple(args, "OiOO", &go, &n, &xo, &qo)) return NULL;
  slv_global_form g;
  if (n < 0 || global_from(go, n, &g) < 0) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "global vjp: n < 0");
    return NULL;
  }
  const double *x = lx_array_data(xo, NPY_DOUBLE, n, 0, 0, "x");
  const double *gq = x ? lx_array_data(qo, NPY_DOUBLE, n, 0, 0, "gq") : NULL;
  if (!x || !gq) return NULL;
  PyObject *gM = lx_vector(g.Mp[g.ndof], NULL), *gH = lx_vector(g.Hp[g.ndof], NULL);
  PyObject *gf = lx_vector(g.ndof, NULL), *gw = lx_vector(n, NULL), *out = NULL;
  double *scratch = PyMem_Malloc((3 * (size_t)g.ndof + 3 * (size_t)n + 1) * sizeof(double));
  char msg[256] = "";
  if (gM && gH && gf && gw && scratch) {
    slv_status st = slv_sensitivity_global_vjp(
        g.ndof, n, g.Mp, g.Mj, g.Mx, g.Hp, g.Hj, g.Hx, g.f, x, gq,
        PyArray_DATA((PyArrayObject *)gM), PyArray_DATA((PyArrayObject *)gH),
        PyArray_DATA((PyArrayObject *)gf), PyArray_DATA((PyArrayObject *)gw), scratch, msg,
        sizeof msg);
    out = st ? Py_BuildValue("(is)", (int)st, msg) : Py_BuildValue("(OOOO)", gM, gH, gf, gw);
  } else if (!scratch) {
    PyErr_NoMemory();
  }
  PyMem_Free(scratch);
  Py_XDECREF(gM);
  Py_XDECREF(gH);
  Py_XDECREF(gf);
  Py_XDECREF(gw);
  return out;
}

/* write(problem, path, format, name, x_ref or None[, global tuple or None])
 * -> (status, message); with a global problem the writers of FCLIB and of
 * Siconos .dat write it (io.h). */
PyObject *lx_write(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *t, *xo, *go = Py_None;
  const char *path, *name;
  int fmt;
  if (!PyArg_ParseTuple(args, "OsisO|O", &t, &path, &fmt, &name, &xo, &go)) return NULL;
  if (fmt < IO_FMT_AUTO || fmt > IO_FMT_LAST) {
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
  slv_global_form g;
  if (go != Py_None && global_from(go, p.n, &g) < 0) return NULL;
  io_instance inst;
  instance_view(&p, name, fmt, x_ref, &inst);
  inst.global = go != Py_None ? &g : NULL;
  io_instance_classify(&inst);
  st = io_write(path, (io_format)fmt, &inst, err, sizeof err);
  return Py_BuildValue("(is)", (int)st, st == SLV_OK ? "" : (err[0] ? err : slv_status_str(st)));
}

/* contactbench_rows(nc) -> P, int64 (3 nc): lcplab's row i is ContactBench's
 * row P[i], the inverse of the I/O library's io_contactbench_row (io.h). */
PyObject *lx_contactbench_rows(PyObject *self, PyObject *args) {
  (void)self;
  Py_ssize_t nc;
  if (!PyArg_ParseTuple(args, "n", &nc)) return NULL;
  if (nc < 0 || nc > IO_MAX_N / 3) {
    PyErr_Format(PyExc_ValueError, "nc = %zd out of [0, %d]", nc, IO_MAX_N / 3);
    return NULL;
  }
  npy_intp n = 3 * (npy_intp)nc;
  PyObject *P = PyArray_SimpleNew(1, &n, NPY_INT64);
  if (!P) return NULL;
  npy_int64 *p = PyArray_DATA((PyArrayObject *)P);
  for (npy_intp r = 0; r < n; r++) p[io_contactbench_row((size_t)r)] = (npy_int64)r;
  return P;
}

/* from_global(global tuple, n, mu, name) -> (problem tuple, global tuple):
 * a global problem a program built, condensed by the readers' own path
 * (io_instance_of_global), its copy kept beside the local problem; or
 * (status, message) when the library refuses it. */
PyObject *lx_from_global(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *go, *muo;
  int n;
  const char *name;
  if (!PyArg_ParseTuple(args, "OiOs", &go, &n, &muo, &name)) return NULL;
  if (n < 0 || n % 3 != 0) {
    PyErr_Format(PyExc_ValueError, "global problem: n = %d must be 3 nc", n);
    return NULL;
  }
  slv_global_form g;
  if (global_from(go, n, &g) < 0) return NULL;
  const double *mu = lx_array_data(muo, NPY_DOUBLE, n / 3, 0, 0, "mu");
  if (!mu) return NULL;
  io_instance *inst = NULL;
  char err[512] = "";
  slv_status st = io_instance_of_global(&g, mu, name, &inst, err, sizeof err);
  if (st != SLV_OK) return Py_BuildValue("(is)", (int)st, err[0] ? err : slv_status_str(st));
  slv_problem p = io_instance_problem(inst);
  PyObject *out = Py_BuildValue("(NN)", lx_problem_tuple(&p), lx_global_tuple(inst->global));
  io_instance_free(inst);
  return out;
}
