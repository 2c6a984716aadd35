/* ext_sensitivity.c -- the derivatives of an answer for the package
 * (lcplab.jvp, lcplab.vjp; libsolvers' slv_sensitivity_*, docs/gradients.md).
 *
 *   sensitivity_jvp(problem, x, tol, dA, db, dlo, dhi, dmu) -> dict
 *   sensitivity_vjp(problem, x, tol, gx) -> dict
 *   gradient_rows(problem, solvers, seed, time_limit, repeat) -> (rows, why, status)
 *   gradient_quality(csv_text) -> str (its quality table)
 *   gradient_vjp_goal(csv_text) -> str (its VJP goal per problem)
 *
 * dA: None, or float64 on A's layout (dense: n x n in Fortran order; CSR:
 * nnz values on the problem's pattern); the vectors None or float64 n.
 * The dict: dx (jvp) or A, b, lo, hi, mu (vjp; A as dA), and modes (uint8
 * n, SLV_ROW_*), degenerate (int).  A refusal of the library is (status,
 * message), not an exception: the package raises the exception that fits.
 * The GIL is released around the library's calls.
 */
#include "exp_grad.h"
#include "lcplab_ext.h"

#include <stdlib.h>
#include <string.h>

/* Entries of A's layout: n^2 dense, nnz CSR. */
static npy_intp a_len(const slv_problem *p) {
  return p->storage == SLV_DENSE ? (npy_intp)p->n * p->n : (npy_intp)p->Ap[p->n];
}

/* The sensitivity of (problem, x) at tol, or NULL with *refusal set to
 * (status, message) or an exception. */
static slv_sensitivity *sens_open(PyObject *t, PyObject *xo, double tol, slv_problem *p,
                                  PyObject **refusal) {
  *refusal = NULL;
  if (lx_problem_from(t, p) < 0) return NULL;
  const double *x = lx_array_data(xo, NPY_DOUBLE, p->n, 0, 0, "x");
  if (!x) return NULL;
  slv_sensitivity *s = NULL;
  char msg[256] = "";
  PyThreadState *ts = PyEval_SaveThread();
  slv_status st = slv_sensitivity_new(p, x, tol, &s, msg, sizeof msg);
  PyEval_RestoreThread(ts);
  if (st != SLV_OK) *refusal = Py_BuildValue("(is)", (int)st, msg);
  return s;
}

/* The modes and the degenerate count into d; 0, or -1 with an exception. */
static int modes_into(PyObject *d, const slv_sensitivity *s, int n) {
  npy_intp dims[1] = { n };
  PyObject *m = PyArray_SimpleNew(1, dims, NPY_UINT8);
  if (!m) return -1;
  if (n > 0) memcpy(PyArray_DATA((PyArrayObject *)m), slv_sensitivity_modes(s), (size_t)n);
  if (lx_set_steal(d, "modes", m) < 0) return -1;
  return lx_set_int(d, "degenerate", slv_sensitivity_count(s).degenerate);
}

/* A new float64 array shaped as A's layout (n x n Fortran, or nnz). */
static PyObject *a_shaped(const slv_problem *p) {
  if (p->storage == SLV_DENSE) {
    npy_intp dims[2] = { p->n, p->n };
    return PyArray_ZEROS(2, dims, NPY_DOUBLE, 1);
  }
  npy_intp dims[1] = { a_len(p) };
  return PyArray_ZEROS(1, dims, NPY_DOUBLE, 0);
}

PyObject *lx_sensitivity_jvp(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *t, *xo, *ao, *bo, *lo, *ho, *mo, *refusal;
  double tol;
  if (!PyArg_ParseTuple(args, "OOdOOOOO", &t, &xo, &tol, &ao, &bo, &lo, &ho, &mo)) return NULL;
  slv_problem p;
  slv_sensitivity *s = sens_open(t, xo, tol, &p, &refusal);
  if (!s) return refusal;
  int fortran = p.storage == SLV_DENSE;
  const double *dA = lx_array_data(ao, NPY_DOUBLE, a_len(&p), fortran, 1, "dA");
  const double *db = lx_array_data(bo, NPY_DOUBLE, p.n, 0, 1, "db");
  const double *dlo = lx_array_data(lo, NPY_DOUBLE, p.n, 0, 1, "dlo");
  const double *dhi = lx_array_data(ho, NPY_DOUBLE, p.n, 0, 1, "dhi");
  const double *dmu = lx_array_data(mo, NPY_DOUBLE, p.n, 0, 1, "dmu");
  PyObject *dx = PyErr_Occurred() ? NULL : lx_vector(p.n, NULL), *d = NULL;
  if (dx) {
    char msg[256] = "";
    double *out = PyArray_DATA((PyArrayObject *)dx);
    PyThreadState *ts = PyEval_SaveThread();
    slv_status st = slv_sensitivity_jvp(s, p.n, dA, db, dlo, dhi, dmu, out, msg, sizeof msg);
    PyEval_RestoreThread(ts);
    if (st != SLV_OK) {
      d = Py_BuildValue("(is)", (int)st, msg);
    } else if ((d = PyDict_New()) != NULL) {
      if (lx_set_steal(d, "dx", Py_NewRef(dx)) < 0 || modes_into(d, s, p.n) < 0) Py_CLEAR(d);
    }
  }
  Py_XDECREF(dx);
  slv_sensitivity_free(s);
  return d;
}

/* The gradients' arrays into d (A's layout, then four vectors). */
static int grads_new(PyObject *d, const slv_problem *p, double **g) {
  const char *names[5] = { "A", "b", "lo", "hi", "mu" };
  for (int k = 0; k < 5; k++) {
    PyObject *a = k == 0 ? a_shaped(p) : lx_vector(p->n, NULL);
    if (!a) return -1;
    g[k] = PyArray_DATA((PyArrayObject *)a);
    if (lx_set_steal(d, names[k], a) < 0) return -1;
  }
  return 0;
}

PyObject *lx_sensitivity_vjp(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *t, *xo, *go, *refusal;
  double tol;
  if (!PyArg_ParseTuple(args, "OOdO", &t, &xo, &tol, &go)) return NULL;
  slv_problem p;
  slv_sensitivity *s = sens_open(t, xo, tol, &p, &refusal);
  if (!s) return refusal;
  const double *gx = lx_array_data(go, NPY_DOUBLE, p.n, 0, 0, "gx");
  PyObject *d = PyErr_Occurred() ? NULL : PyDict_New();
  double *g[5];
  if (d && grads_new(d, &p, g) == 0) {
    char msg[256] = "";
    PyThreadState *ts = PyEval_SaveThread();
    slv_status st = slv_sensitivity_vjp(s, p.n, gx, g[0], g[1], g[2], g[3], g[4], msg, sizeof msg);
    PyEval_RestoreThread(ts);
    if (st != SLV_OK) {
      Py_DECREF(d);
      d = Py_BuildValue("(is)", (int)st, msg);
    } else if (modes_into(d, s, p.n) < 0) {
      Py_CLEAR(d);
    }
  } else {
    Py_CLEAR(d);
  }
  slv_sensitivity_free(s);
  return d;
}

/* ---- the gradient-quality measure (libexperiment's exp_grad.h) ---------- */

/* One row of gradient_rows: (solver, status, mode, stable, rel_err,
 * solve_s, vjp_s, note, fd_step). */
static PyObject *grad_row_tuple(const char *solver, const exp_grad_row *r) {
  return Py_BuildValue("(sssidddsd)", solver, r->status, r->mode, r->stable, r->rel_err, r->solve_s,
                       r->vjp_s, r->note, r->fd_step);
}

/* Appends solver sv's rows on (p, ref) to list; 0, or -1 with an exception. */
static int grad_solver_rows(PyObject *list, const slv_problem *p, const exp_grad_ref *ref,
                            const slv_solver *sv, double limit, int repeat) {
  exp_grad_row rows[EXP_GRAD_MODES];
  char msg[256] = "";
  PyThreadState *ts = PyEval_SaveThread();
  int nr = exp_grad_solver_rows(p, ref, sv, limit, repeat, rows, msg, sizeof msg);
  PyEval_RestoreThread(ts);
  if (nr < 0) {
    PyErr_NoMemory();
    return -1;
  }
  for (int k = 0; k < nr; k++) {
    PyObject *t = grad_row_tuple(sv->name, &rows[k]);
    if (!t || PyList_Append(list, t) < 0) {
      Py_XDECREF(t);
      return -1;
    }
    Py_DECREF(t);
  }
  return 0;
}

/* gradient_rows(problem, solvers, seed, time_limit, repeat) -> (rows, None,
 * None) or ([], why, status) when the problem has no reference or its
 * derivative is not unique (exp_grad_reference_new, status
 * exp_grad_reference_status's); an unknown solver name: ValueError. */
PyObject *lx_gradient_rows(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *t, *names;
  unsigned long seed;
  double limit;
  int repeat;
  if (!PyArg_ParseTuple(args, "OO!kdi", &t, &PyList_Type, &names, &seed, &limit, &repeat))
    return NULL;
  slv_problem p;
  if (lx_problem_from(t, &p) < 0) return NULL;
  for (Py_ssize_t k = 0; k < PyList_GET_SIZE(names); k++) {
    const char *nm = PyUnicode_AsUTF8(PyList_GET_ITEM(names, k));
    if (!nm) return NULL;
    if (!slv_solver_find(nm))
      return PyErr_Format(PyExc_ValueError, "solvers: unknown solver '%s'", nm);
  }
  exp_grad_ref *ref = NULL;
  char msg[256] = "";
  PyThreadState *ts = PyEval_SaveThread();
  int rc = exp_grad_reference_new(&p, seed, &ref, msg, sizeof msg);
  PyEval_RestoreThread(ts);
  if (rc < 0) return PyErr_NoMemory();
  PyObject *list = PyList_New(0);
  for (Py_ssize_t k = 0; list && rc == 0 && k < PyList_GET_SIZE(names); k++) {
    const slv_solver *sv = slv_solver_find(PyUnicode_AsUTF8(PyList_GET_ITEM(names, k)));
    if (grad_solver_rows(list, &p, ref, sv, limit, repeat > 0 ? repeat : 1) < 0) Py_CLEAR(list);
  }
  exp_grad_reference_free(ref);
  if (!list) return NULL;
  PyObject *out = rc == 0 ? Py_BuildValue("(NOO)", list, Py_None, Py_None)
                          : Py_BuildValue("(Nss)", list, msg, exp_grad_reference_status(rc));
  return out;
}

/* The table of a gradients CSV text by of_csv (exp.h); not one: ValueError. */
static PyObject *grad_table(PyObject *args, int (*of_csv)(const char *, char **, char *, size_t)) {
  const char *csv;
  if (!PyArg_ParseTuple(args, "s", &csv)) return NULL;
  char *out = NULL, err[256] = "";
  if (of_csv(csv, &out, err, sizeof err) != 0) return PyErr_Format(PyExc_ValueError, "%s", err);
  PyObject *s = PyUnicode_FromString(out);
  free(out);
  return s;
}

/* gradient_vjp_goal(csv_text) -> str: the VJP goal per problem of a
 * gradients CSV (exp_grad_goal_of_csv). */
PyObject *lx_gradient_vjp_goal(PyObject *self, PyObject *args) {
  (void)self;
  return grad_table(args, exp_grad_goal_of_csv);
}

/* gradient_quality(csv_text) -> str: the quality table of a gradients CSV
 * (exp_grad_quality_of_csv); a text that is not one: ValueError. */
PyObject *lx_gradient_quality(PyObject *self, PyObject *args) {
  (void)self;
  return grad_table(args, exp_grad_quality_of_csv);
}
