/* ext_problem.c -- between the package's problem tuple (lcplab_ext.h) and
 * slv_problem: the borrowed view for a solve, its validation, the
 * library's residual measures, and copies of a library-owned problem (a
 * world's last step, a file's instance) back into numpy arrays.
 */
#include "lcplab_ext.h"

#include <math.h>
#include <stdlib.h>

/* The CSR arrays are read by the library up to indptr[n]: every pointer
 * must lie in [0, nnz] and the last one be nnz before it may look. */
static int check_csr(int n, const int *Ap, npy_intp nnz) {
  for (int i = 0; i <= n; i++)
    if (Ap[i] < 0 || Ap[i] > nnz) {
      PyErr_Format(PyExc_ValueError, "indptr[%d]=%d is outside [0, %zd] (nnz)", i, Ap[i],
                   (Py_ssize_t)nnz);
      return -1;
    }
  if (Ap[n] != nnz) {
    PyErr_Format(PyExc_ValueError, "indptr[%d]=%d, but indices and data have %zd values", n, Ap[n],
                 (Py_ssize_t)nnz);
    return -1;
  }
  return 0;
}

static npy_intp length_of(PyObject *obj) {
  return PyArray_Check(obj) ? PyArray_SIZE((PyArrayObject *)obj) : -1;
}

static int matrix_from(PyObject *t, int n, int storage, slv_problem *p) {
  if (storage == SLV_DENSE) {
    p->storage = SLV_DENSE;
    p->A = lx_array_data(PyTuple_GET_ITEM(t, 2), NPY_DOUBLE, (npy_intp)n * n, 1, 0, "A");
    p->lda = n > 0 ? n : 1;
    return PyErr_Occurred() ? -1 : 0;
  }
  if (storage != SLV_CSR) {
    PyErr_Format(PyExc_ValueError, "storage=%d is neither dense (0) nor CSR (1)", storage);
    return -1;
  }
  p->storage = SLV_CSR;
  npy_intp nnz = length_of(PyTuple_GET_ITEM(t, 4));
  p->Ap = lx_array_data(PyTuple_GET_ITEM(t, 3), NPY_INT32, (npy_intp)n + 1, 0, 0, "indptr");
  if (!p->Ap) return -1;
  p->Aj = lx_array_data(PyTuple_GET_ITEM(t, 4), NPY_INT32, nnz, 0, 0, "indices");
  if (!p->Aj && PyErr_Occurred()) return -1;
  p->Ax = lx_array_data(PyTuple_GET_ITEM(t, 5), NPY_DOUBLE, nnz, 0, 0, "data");
  if (!p->Ax && PyErr_Occurred()) return -1;
  return check_csr(n, p->Ap, nnz);
}

int lx_problem_from(PyObject *t, slv_problem *p) {
  *p = slv_problem_empty();
  if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) < 14 || PyTuple_GET_SIZE(t) > 15) {
    PyErr_SetString(PyExc_TypeError, "expected the 14- or 15-tuple of lcplab.Problem._c");
    return -1;
  }
  int n = (int)PyLong_AsLong(PyTuple_GET_ITEM(t, 0));
  int storage = (int)PyLong_AsLong(PyTuple_GET_ITEM(t, 1));
  int law = (int)PyLong_AsLong(PyTuple_GET_ITEM(t, 13));
  int condensed = PyTuple_GET_SIZE(t) == 15 ? PyObject_IsTrue(PyTuple_GET_ITEM(t, 14)) : 0;
  if (PyErr_Occurred() || condensed < 0) return -1;
  p->condensed = condensed;
  if (n < 0) {
    PyErr_Format(PyExc_ValueError, "n=%d < 0", n);
    return -1;
  }
  p->n = n;
  if (matrix_from(t, n, storage, p) < 0) return -1;
  p->b = lx_array_data(PyTuple_GET_ITEM(t, 6), NPY_DOUBLE, n, 0, 0, "b");
  p->lo = lx_array_data(PyTuple_GET_ITEM(t, 7), NPY_DOUBLE, n, 0, 1, "lo");
  p->hi = lx_array_data(PyTuple_GET_ITEM(t, 8), NPY_DOUBLE, n, 0, 1, "hi");
  p->findex = lx_array_data(PyTuple_GET_ITEM(t, 9), NPY_INT32, n, 0, 1, "findex");
  p->mu = lx_array_data(PyTuple_GET_ITEM(t, 10), NPY_DOUBLE, n, 0, 1, "mu");
  if (PyErr_Occurred()) return -1;
  if (!!p->findex != !!p->mu) {
    PyErr_SetString(PyExc_ValueError, "findex and mu come together");
    return -1;
  }
  npy_intp nc = length_of(PyTuple_GET_ITEM(t, 11));
  p->cone_rows = lx_array_data(PyTuple_GET_ITEM(t, 11), NPY_INT32, nc, 0, 1, "cone_rows");
  p->cone_mu = lx_array_data(PyTuple_GET_ITEM(t, 12), NPY_DOUBLE, nc, 0, 1, "cone_mu");
  if (PyErr_Occurred()) return -1;
  if (!!p->cone_rows != !!p->cone_mu || nc > n) {
    PyErr_SetString(PyExc_ValueError, "cone_rows and cone_mu come together, one per cone");
    return -1;
  }
  p->ncones = p->cone_rows ? (int)nc : 0;
  p->cone_law = (slv_cone_law)law;
  return 0;
}

PyObject *lx_residuals_dict(const slv_residuals *r) {
  PyObject *d = PyDict_New();
  if (!d) return NULL;
  const slv_contact_metrics *c = &r->contact;
  if (lx_set_float(d, "res_nat_inf", r->res_nat_inf) < 0 ||
      lx_set_float(d, "res_rel", r->res_rel) < 0 ||
      lx_set_float(d, "res_rel_2", r->res_rel_2) < 0 || lx_set_float(d, "compl", r->compl ) < 0 ||
      lx_set_float(d, "infeas", r->infeas) < 0 || lx_set_float(d, "b_inf", r->b_inf) < 0 ||
      lx_set_float(d, "merit_fclib", r->merit_fclib) < 0 ||
      lx_set_float(d, "res_scaled", r->res_scaled) < 0 ||
      lx_set_float(d, "siconos_err", r->siconos_err) < 0 ||
      lx_set_float(d, "err_siconos", r->err_siconos) < 0 ||
      lx_set_float(d, "res_rel_1q", r->res_rel_1q) < 0 ||
      lx_set_float(d, "res_contact", r->res_contact) < 0 ||
      lx_set_float(d, "res_global", r->res_global) < 0 ||
      lx_set_int(d, "res_contact_at", (long)r->res_contact_at) < 0 ||
      lx_set_float(d, "signorini", c->signorini) < 0 ||
      lx_set_float(d, "conic_compl", c->conic_compl) < 0 ||
      lx_set_float(d, "ncp_compl", c->ncp_compl) < 0 ||
      lx_set_float(d, "dual_feas", c->dual_feas) < 0 ||
      lx_set_float(d, "primal_feas", c->primal_feas) < 0 ||
      lx_set_float(d, "mdp_gap", c->mdp_gap) < 0) {
    Py_DECREF(d);
    return NULL;
  }
  return d;
}

/* validate(problem) -> (status, message) */
PyObject *lx_validate(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *t;
  if (!PyArg_ParseTuple(args, "O", &t)) return NULL;
  slv_problem p;
  if (lx_problem_from(t, &p) < 0) return NULL;
  char msg[256] = "";
  slv_status st = slv_problem_validate(&p, msg, sizeof msg);
  return Py_BuildValue("(is)", (int)st, msg);
}

/* residual(problem, x, w or None) -> dict, or (status, message) if the
 * problem does not validate (the measures assume a valid problem) */
PyObject *lx_residual(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *t, *xo, *wo;
  if (!PyArg_ParseTuple(args, "OOO", &t, &xo, &wo)) return NULL;
  slv_problem p;
  if (lx_problem_from(t, &p) < 0) return NULL;
  const double *x = lx_array_data(xo, NPY_DOUBLE, p.n, 0, 0, "x");
  const double *w = lx_array_data(wo, NPY_DOUBLE, p.n, 0, 1, "w");
  if (PyErr_Occurred()) return NULL;
  char msg[256] = "";
  slv_status st = slv_problem_validate(&p, msg, sizeof msg);
  if (st != SLV_OK) return Py_BuildValue("(is)", (int)st, msg);
  slv_residuals r = slv_residual(&p, x, w);
  return lx_residuals_dict(&r);
}

/* ---- copies of a library-owned problem ---------------------------------------- */

static PyObject *dense_copy(const slv_problem *p) {
  npy_intp dims[2] = { p->n, p->n };
  PyObject *A = PyArray_ZEROS(2, dims, NPY_DOUBLE, 1); /* Fortran order: column-major */
  if (!A) return NULL;
  double *a = PyArray_DATA((PyArrayObject *)A);
  for (int j = 0; j < p->n; j++)
    memcpy(a + (size_t)j * p->n, p->A + (size_t)j * p->lda, (size_t)p->n * sizeof *a);
  return A;
}

static PyObject *bounds_copy(int n, const double *v, double dflt) {
  PyObject *a = lx_vector(n, v);
  if (a && !v)
    for (int i = 0; i < n; i++) ((double *)PyArray_DATA((PyArrayObject *)a))[i] = dflt;
  return a;
}

static PyObject *csr_tuple(const slv_problem *p, const int *Ap, const int *Aj, const double *Ax) {
  int n = p->n, nnz = Ap ? Ap[n] : 0;
  PyObject *lo = bounds_copy(n, p->lo, 0.0), *hi = bounds_copy(n, p->hi, INFINITY);
  PyObject *cr = p->ncones ? lx_ivector(p->ncones, p->cone_rows) : Py_NewRef(Py_None);
  PyObject *cm = p->ncones ? lx_vector(p->ncones, p->cone_mu) : Py_NewRef(Py_None);
  PyObject *fi = p->findex ? lx_ivector(n, p->findex) : Py_NewRef(Py_None);
  PyObject *mu = p->findex ? lx_vector(n, p->mu) : Py_NewRef(Py_None);
  PyObject *A = p->storage == SLV_DENSE ? dense_copy(p) : Py_NewRef(Py_None);
  PyObject *ip = Ap ? lx_ivector(n + 1, Ap) : Py_NewRef(Py_None);
  PyObject *ix = Ap ? lx_ivector(nnz, Aj) : Py_NewRef(Py_None);
  PyObject *dx = Ap ? lx_vector(nnz, Ax) : Py_NewRef(Py_None);
  PyObject *b = lx_vector(n, p->b);
  PyObject *t = NULL;
  if (lo && hi && cr && cm && fi && mu && A && ip && ix && dx && b)
    t = Py_BuildValue("(iiOOOOOOOOOOOi)", n, Ap ? (int)SLV_CSR : (int)SLV_DENSE, A, ip, ix, dx, b,
                      lo, hi, fi, mu, cr, cm, (int)p->cone_law);
  Py_XDECREF(lo);
  Py_XDECREF(hi);
  Py_XDECREF(cr);
  Py_XDECREF(cm);
  Py_XDECREF(fi);
  Py_XDECREF(mu);
  Py_XDECREF(A);
  Py_XDECREF(ip);
  Py_XDECREF(ix);
  Py_XDECREF(dx);
  Py_XDECREF(b);
  return t;
}

PyObject *lx_problem_tuple(const slv_problem *p) {
  if (p->storage == SLV_DENSE) return csr_tuple(p, NULL, NULL, NULL);
  if (p->storage == SLV_CSR) return csr_tuple(p, p->Ap, p->Aj, p->Ax);
  int *Ap = NULL, *Aj = NULL;
  double *Ax = NULL;
  char msg[256] = "";
  slv_status st = slv_factored_csr_new(p, &Ap, &Aj, &Ax, msg, sizeof msg);
  if (st != SLV_OK) {
    if (st == SLV_ERR_NOMEM)
      PyErr_NoMemory();
    else
      PyErr_Format(PyExc_RuntimeError, "the factored problem has no CSR form: %s", msg);
    return NULL;
  }
  PyObject *t = csr_tuple(p, Ap, Aj, Ax);
  free(Ap);
  free(Aj);
  free(Ax);
  return t;
}
