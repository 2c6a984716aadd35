/* ext_pysolver.c -- Python solvers and C plugins from Python
 * (docs/plugins.md, "Python solvers"; python/lcplab/_plugins.py).
 *
 *   register_solver(name, solver, adapter, caps) -> None
 *   load_plugin(path) -> None, or raises ValueError with the loader's message
 *   call_overhead(problem, adapter, repeats) -> seconds
 *
 * A Python solver is registered in libsolvers' table (slv_solver_register)
 * as a solver whose def's ctx is one of this file's slots: its callable and
 * the package's adapter (_plugins._call), which builds the Problem, calls
 * the callable and checks what it returns.  From then on slv_solve runs it
 * as any solver: validation, caps, the library's residuals and verdict.
 * Registering a name that is a Python solver already binds that name to
 * the new callable and caps (the slot is this file's; libsolvers' entry
 * stays, its caps set anew: slv_solver_set_caps).
 *
 * The GIL: slv_solve may run with it released (a campaign, a world's
 * step, lcplab.solve); py_solve takes it (PyGILState_Ensure) for the call
 * and gives it back.  A campaign's workers are forked with the GIL held
 * and PyOS_AfterFork_Child run in them (ext_experiment.c's fork hooks), so
 * each worker has an interpreter of its own: jobs > 1 run Python solvers
 * in parallel processes, one interpreter each, never two threads in one.
 *
 * What the call costs: py_call measures the whole crossing (building the
 * Problem's arrays, the call, the checks, copying x back) and the adapter
 * reports the callable's own time; call_overhead runs that path with a
 * callable that returns x0 at once, which is the overhead compare reports.
 */
#include "lcplab_ext.h"

#include "exp.h"

#include <math.h>
#include <string.h>

typedef struct py_slot {
  char name[SLV_SOLVER_NAME_MAX + 1];
  PyObject *solver;  /* the callable or object with solve (strong reference) */
  PyObject *adapter; /* lcplab._plugins._call (strong reference) */
} py_slot;

static py_slot slots[SLV_REGISTER_MAX];
static int nslots;

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The options the callable gets. */
static PyObject *options_dict(const slv_options *opt) {
  int limited = opt->time_limit > 0 && opt->time_limit < SLV_TIME_LIMIT_MAX;
  PyObject *tl = limited ? PyFloat_FromDouble(opt->time_limit) : Py_NewRef(Py_None);
  if (!tl) return NULL;
  PyObject *d = Py_BuildValue("{s:d,s:i,s:N,s:i}", "tol", opt->tol, "max_iter", opt->max_iter,
                              "time_limit", tl, "warm_start", opt->warm_start);
  return d;
}

/* "NAME raised TYPE: MESSAGE" from the exception set, which is cleared (a
 * KeyboardInterrupt is raised again at the interpreter's next check). */
static void exception_text(const char *name, char *msg, size_t len) {
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  PyErr_NormalizeException(&type, &value, &tb);
  int interrupt = type && PyErr_GivenExceptionMatches(type, PyExc_KeyboardInterrupt);
  const char *tname = type ? ((PyTypeObject *)type)->tp_name : "an exception";
  PyObject *s = value ? PyObject_Str(value) : NULL;
  const char *text = s ? PyUnicode_AsUTF8(s) : NULL;
  snprintf(msg, len, "%s raised %s: %s", name, tname, text ? text : "(no message)");
  PyErr_Clear();
  Py_XDECREF(s);
  Py_XDECREF(type);
  Py_XDECREF(value);
  Py_XDECREF(tb);
  if (interrupt) PyErr_SetInterrupt();
}

/* One call of the adapter with the GIL held: x (n) in and out, *iters,
 * *own the callable's seconds.  Returns the status the callable claims,
 * SLV_NOT_FINITE (x copied, a value not finite), or SLV_ERROR (x left as
 * it was) with msg. */
static slv_status py_call(PyObject *adapter, PyObject *solver, const char *name,
                          const slv_problem *p, const slv_options *opt, double *x, int *iters,
                          double *own, char *msg, size_t len) {
  PyObject *t = lx_problem_tuple(p), *x0 = lx_vector(p->n, x), *o = options_dict(opt), *r = NULL;
  if (t && x0 && o) r = PyObject_CallFunctionObjArgs(adapter, solver, t, x0, o, NULL);
  Py_XDECREF(t);
  Py_XDECREF(x0);
  Py_XDECREF(o);
  int st = SLV_ERROR;
  PyObject *xa = NULL;
  if (!r || !PyArg_ParseTuple(r, "Oiid", &xa, iters, &st, own)) {
    exception_text(name, msg, len);
    Py_XDECREF(r);
    return SLV_ERROR;
  }
  const double *v = lx_array_data(xa, NPY_DOUBLE, p->n, 0, 0, "x");
  if (!v) { /* the adapter checks: this is its own failure */
    exception_text(name, msg, len);
    Py_DECREF(r);
    return SLV_ERROR;
  }
  int bad = -1;
  for (int i = 0; i < p->n && bad < 0; i++)
    if (!isfinite(v[i])) bad = i;
  memcpy(x, v, (size_t)p->n * sizeof *x);
  Py_DECREF(r);
  if (bad >= 0) {
    snprintf(msg, len, "%s returned a non-finite x (x[%d] = %g)", name, bad, x[bad]);
    return SLV_NOT_FINITE;
  }
  return (slv_status)st;
}

static slv_status py_solve(void *state, slv_call *call, const slv_problem *p,
                           const slv_options *opt, double *x, double *w, void *ctx) {
  (void)state, (void)w;
  py_slot *s = ctx;
  char msg[160] = "";
  int iters = 0;
  double own = 0;
  PyGILState_STATE g = PyGILState_Ensure();
  slv_status st = py_call(s->adapter, s->solver, s->name, p, opt, x, &iters, &own, msg, sizeof msg);
  PyGILState_Release(g);
  slv_call_iteration(call, iters, NAN);
  if (msg[0]) slv_call_message(call, "%s", msg);
  return st;
}

PyObject *lx_register_solver(PyObject *self, PyObject *args) {
  (void)self;
  const char *name;
  PyObject *solver, *adapter;
  unsigned caps;
  if (!PyArg_ParseTuple(args, "sOOI", &name, &solver, &adapter, &caps)) return NULL;
  char origin[SLV_SOLVER_NAME_MAX + 16], msg[512] = "";
  snprintf(origin, sizeof origin, "python:%s", name);
  for (int k = 0; k < nslots; k++)
    if (strcmp(slots[k].name, name) == 0) { /* a Python solver's name: bind it anew */
      if (slv_solver_set_caps(name, origin, caps, msg, sizeof msg) != SLV_OK) {
        PyErr_SetString(PyExc_ValueError, msg);
        return NULL;
      }
      Py_SETREF(slots[k].solver, Py_NewRef(solver));
      Py_SETREF(slots[k].adapter, Py_NewRef(adapter));
      Py_RETURN_NONE;
    }
  if (nslots == SLV_REGISTER_MAX) {
    PyErr_Format(PyExc_ValueError, "solver '%s': more than %d Python solvers", name,
                 SLV_REGISTER_MAX);
    return NULL;
  }
  py_slot *s = &slots[nslots];
  slv_solver_def d;
  memset(&d, 0, sizeof d);
  d.abi = SLV_SOLVER_ABI;
  d.name = name;
  d.summary = "a Python solver (lcplab.register_solver)";
  d.params = "the callable's own; it gets the problem and x0, tol, max_iter, time_limit";
  d.caps = caps;
  d.solve = py_solve;
  d.ctx = s;
  snprintf(s->name, sizeof s->name, "%s", name);
  s->solver = Py_NewRef(solver);
  s->adapter = Py_NewRef(adapter);
  if (slv_solver_register(&d, origin, msg, sizeof msg) != SLV_OK) {
    Py_CLEAR(s->solver);
    Py_CLEAR(s->adapter);
    PyErr_SetString(PyExc_ValueError, msg);
    return NULL;
  }
  nslots++;
  Py_RETURN_NONE;
}

PyObject *lx_load_plugin(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *path;
  if (!PyArg_ParseTuple(args, "O&", PyUnicode_FSConverter, &path)) return NULL;
  char err[EXP_PATH_MAX + 512];
  int rc = exp_plugin_load(PyBytes_AS_STRING(path), err, sizeof err);
  Py_DECREF(path);
  if (rc != 0) {
    PyErr_SetString(PyExc_ValueError, err);
    return NULL;
  }
  Py_RETURN_NONE;
}

/* The median over repeats of (a crossing's seconds - the callable's own). */
PyObject *lx_call_overhead(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *t, *adapter, *noop;
  int repeats;
  if (!PyArg_ParseTuple(args, "OOOi", &t, &adapter, &noop, &repeats)) return NULL;
  slv_problem p;
  if (lx_problem_from(t, &p) < 0) return NULL;
  if (repeats < 1 || repeats > 1000) {
    PyErr_SetString(PyExc_ValueError, "repeats must be in 1..1000");
    return NULL;
  }
  PyObject *xs = lx_vector(p.n, NULL);
  PyObject *times = PyList_New(0);
  slv_options opt = slv_options_default();
  for (int k = 0; xs && times && k < repeats; k++) {
    char msg[160] = "";
    int iters;
    double own = 0, t0 = now_s();
    slv_status st = py_call(adapter, noop, "overhead", &p, &opt, PyArray_DATA((PyArrayObject *)xs),
                            &iters, &own, msg, sizeof msg);
    double dt = now_s() - t0 - own;
    if (st == SLV_ERROR) {
      PyErr_SetString(PyExc_RuntimeError, msg);
      Py_CLEAR(times);
      break;
    }
    PyObject *f = PyFloat_FromDouble(dt);
    if (!f || PyList_Append(times, f) < 0) Py_CLEAR(times);
    Py_XDECREF(f);
  }
  Py_XDECREF(xs);
  return times;
}
