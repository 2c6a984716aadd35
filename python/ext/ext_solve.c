/* ext_solve.c -- solve(problem, solver, options, x0, history, log,
 * log_level): one slv_solve in a workspace of its own, with the GIL
 * released from the workspace's creation to its release.  The steps are
 * those of `lcplab solve` (cli/cmd_solve.c), so that the two give the same
 * x bit for bit: the options from slv_options_default with the named
 * fields changed by libsolvers' options by name (slv_options_set, each
 * value as its text), the start from x0 (warm) or the library's P(0), only
 * slv_solve timed (CLOCK_MONOTONIC): the same timed solve,
 * exp_solve_repeat (libexperiment/solve_repeat.c), run once.
 *
 * Returns a dict: status, message, method (result.method: the algorithm
 * that ran), choice (auto's reason, else empty), x, w, iterations, pivots, residuals (lx_residuals_dict),
 * solver_residual, solver_status (the solver's own status, slv_result), history
 * and history_time (float64 arrays of the same length, or None unless
 * asked), time (s).  A refusal is a status < 0 with the library's
 * message, not an exception: the package raises the exception that fits.
 * A signal handler that raises during the solve (Ctrl-C: KeyboardInterrupt)
 * stops it at the solver's next poll (lx_cancel_check, lcplab_ext.h) and
 * its exception is raised instead of a result.
 */
#include "lcplab_ext.h"

#include "exp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* value as the text slv_options_set reads: a str as it is, an int in base
 * 10 (a bool as 0 or 1), a float by its shortest repr (which reads back to
 * the same double); NULL with TypeError otherwise. */
static PyObject *option_text(const char *name, PyObject *value) {
  if (PyUnicode_Check(value)) return Py_NewRef(value);
  if (PyLong_Check(value)) {
    PyObject *i = PyNumber_Long(value), *text = i ? PyObject_Str(i) : NULL;
    Py_XDECREF(i);
    return text;
  }
  if (PyFloat_Check(value)) {
    char *r = PyOS_double_to_string(PyFloat_AsDouble(value), 'r', 0, 0, NULL);
    PyObject *text = r ? PyUnicode_FromString(r) : NULL;
    PyMem_Free(r);
    return text;
  }
  PyErr_Format(PyExc_TypeError, "option %s must be a number", name);
  return NULL;
}

/* The options of dict (name: value) into opt by libsolvers' options by name
 * (slv_options_set): 0, with *st SLV_OK or SLV_ERR_OPTIONS and the
 * library's message in msg (a value its option refuses: the package raises
 * OptionsError); or -1 with a Python exception (not a dict, a name or a
 * value of the wrong type). */
static int options_from(PyObject *dict, slv_options *opt, slv_status *st, char *msg, size_t len) {
  *st = SLV_OK;
  if (dict == Py_None) return 0;
  if (!PyDict_Check(dict)) {
    PyErr_SetString(PyExc_TypeError, "options must be a dict");
    return -1;
  }
  PyObject *key, *value;
  Py_ssize_t pos = 0;
  while (PyDict_Next(dict, &pos, &key, &value)) {
    const char *name = PyUnicode_Check(key) ? PyUnicode_AsUTF8(key) : NULL;
    if (!name) {
      if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "option names must be strings");
      return -1;
    }
    PyObject *text = option_text(name, value);
    const char *t = text ? PyUnicode_AsUTF8(text) : NULL;
    if (t) *st = slv_options_set(opt, name, t, msg, len);
    Py_XDECREF(text);
    if (!t) return -1;
    if (*st != SLV_OK) return 0;
  }
  /* max_iter is the pivots' budget too, unless max_pivots is given: the
   * library's rule, as `lcplab solve --max-iter` */
  if (PyDict_GetItemString(dict, "max_iter"))
    exp_options_budget(opt, opt->max_iter,
                       PyDict_GetItemString(dict, "max_pivots") ? opt->max_pivots : 0);
  return 0;
}

/* threading.current_thread() is threading.main_thread(); 0 on any error. */
static int on_main_thread(void) {
  PyObject *th = PyImport_ImportModule("threading");
  PyObject *main = th ? PyObject_CallMethod(th, "main_thread", NULL) : NULL;
  PyObject *cur = th ? PyObject_CallMethod(th, "current_thread", NULL) : NULL;
  int r = main && cur && main == cur;
  Py_XDECREF(th);
  Py_XDECREF(main);
  Py_XDECREF(cur);
  PyErr_Clear();
  return r;
}

void lx_cancel_start(lx_cancel *c, const lx_log *log, slv_options *opt) {
  memset(c, 0, sizeof *c);
  c->log = log;
  c->main = on_main_thread();
  opt->cancel = lx_cancel_check;
  opt->cancel_ctx = c;
}

static double seconds(const struct timespec *a, const struct timespec *b);

int lx_cancel_check(void *ctx) {
  lx_cancel *c = ctx;
  if (c->exc_type || c->log->exc_type) return 1;
  if (!c->main) return 0;
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  if ((c->last.tv_sec || c->last.tv_nsec) && seconds(&c->last, &now) < LX_CANCEL_PERIOD) return 0;
  c->last = now;
  PyGILState_STATE g = PyGILState_Ensure();
  if (PyErr_CheckSignals() < 0) PyErr_Fetch(&c->exc_type, &c->exc_value, &c->exc_tb);
  PyGILState_Release(g);
  return c->exc_type != NULL;
}

int lx_cancel_finish(lx_cancel *c) {
  if (!c->exc_type) return 0;
  PyErr_Restore(c->exc_type, c->exc_value, c->exc_tb);
  c->exc_type = c->exc_value = c->exc_tb = NULL;
  return -1;
}

static double seconds(const struct timespec *a, const struct timespec *b) {
  return (double)(b->tv_sec - a->tv_sec) + 1e-9 * (double)(b->tv_nsec - a->tv_nsec);
}

static PyObject *result_dict(const slv_result *res, PyObject *x, PyObject *w, double t) {
  PyObject *d = PyDict_New();
  if (!d) return NULL;
  int asked = res->history && res->history_cap > 0;
  PyObject *hist = asked ? lx_vector(res->history_len, res->history) : Py_NewRef(Py_None);
  PyObject *htime = asked && res->history_time ? lx_vector(res->history_len, res->history_time)
                                               : Py_NewRef(Py_None);
  int bad = lx_set_steal(d, "history", hist) < 0;
  if (bad) Py_XDECREF(htime); /* each lx_set_steal takes its reference */
  if (bad || lx_set_steal(d, "history_time", htime) < 0 ||
      lx_set_steal(d, "method", PyUnicode_FromString(res->method ? res->method : "")) < 0 ||
      lx_set_steal(d, "choice", PyUnicode_FromString(res->choice)) < 0 ||
      lx_set_steal(d, "diagnosis", PyUnicode_FromString(res->diagnosis)) < 0 ||
      lx_set_int(d, "status", res->status) < 0 ||
      lx_set_int(d, "solver_status", res->solver_status) < 0 ||
      lx_set_steal(
          d, "message",
          PyUnicode_DecodeUTF8(res->message, (Py_ssize_t)strlen(res->message), "replace")) < 0 ||
      PyDict_SetItemString(d, "x", x) < 0 || PyDict_SetItemString(d, "w", w) < 0 ||
      lx_set_int(d, "iterations", res->iterations) < 0 ||
      lx_set_int(d, "pivots", res->pivots) < 0 ||
      lx_set_steal(d, "residuals", lx_residuals_dict(&res->res)) < 0 ||
      lx_set_float(d, "solver_residual", res->solver_residual) < 0 ||
      lx_set_float(d, "time", t) < 0) {
    Py_DECREF(d);
    return NULL;
  }
  return d;
}

/* A refusal before any solve (options, workspace): the same dict shape. */
static PyObject *refusal(slv_status st, const char *msg, PyObject *x, PyObject *w) {
  slv_result res;
  memset(&res, 0, sizeof res);
  snprintf(res.message, sizeof res.message, "%s", msg);
  slv_result_refuse(&res, st);
  return result_dict(&res, x, w, 0.0);
}

PyObject *lx_tol_check(PyObject *self, PyObject *args) {
  (void)self;
  double tol;
  int allow = 0;
  if (!PyArg_ParseTuple(args, "dp", &tol, &allow)) return NULL;
  char msg[256];
  if (slv_tol_check(tol, allow, msg, sizeof msg) == SLV_OK) Py_RETURN_NONE;
  return PyUnicode_FromString(msg);
}

PyObject *lx_solve(PyObject *self, PyObject *args, PyObject *kwargs) {
  (void)self;
  static char *kwlist[] = { "problem", "solver", "options",   "x0",
                            "history", "log",    "log_level", NULL };
  PyObject *t, *odict = Py_None, *x0o = Py_None, *logfn = Py_None;
  const char *name;
  int history = 0, level = SLV_LOG_DEBUG;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "Os|OOpOi", kwlist, &t, &name, &odict, &x0o,
                                   &history, &logfn, &level))
    return NULL;
  slv_problem p;
  if (lx_problem_from(t, &p) < 0) return NULL;
  const slv_solver *solver = slv_solver_find(name);
  if (!solver) {
    PyErr_Format(PyExc_ValueError, "unknown solver '%s'", name);
    return NULL;
  }
  const double *x0 = lx_array_data(x0o, NPY_DOUBLE, p.n, 0, 1, "warm");
  if (PyErr_Occurred()) return NULL;
  slv_options opt = slv_options_default();
  lx_log log;
  lx_cancel cancel;
  char msg[256] = "";
  slv_status st;
  if (options_from(odict, &opt, &st, msg, sizeof msg) < 0 ||
      lx_log_start(&log, logfn, level, &opt) < 0)
    return NULL;
  lx_cancel_start(&cancel, &log, &opt);
  opt.warm_start = x0 != NULL;
  opt.record_history = history;

  PyObject *x = lx_vector(p.n, x0), *w = lx_vector(p.n, NULL), *out = NULL;
  if (!x || !w) goto done;
  if (st == SLV_OK) st = slv_options_validate(&opt, msg, sizeof msg);
  if (st != SLV_OK) {
    out = refusal(st, msg, x, w);
    goto done;
  }
  slv_result res;
  memset(&res, 0, sizeof res);
  slv_workspace *ws = NULL;
  double tsolve = 0.0;
  double *xd = PyArray_DATA((PyArrayObject *)x), *wd = PyArray_DATA((PyArrayObject *)w);
  exp_copy own = { 0 };
  Py_BEGIN_ALLOW_THREADS st = slv_workspace_new(solver, p.n > 0 ? p.n : 1, &opt, &ws);
  /* a C plugin solves its own copy: the Problem's read-only arrays stay as they are */
  const slv_problem *q = st == SLV_OK ? exp_problem_for(solver, &p, &own) : NULL;
  if (st == SLV_OK && !q) st = SLV_ERR_NOMEM;
  if (st == SLV_OK) {
    /* lcplab solve's timed solve, once, from x as it is (x0's copy or zeros) */
    exp_tsum sum;
    exp_solve_repeat(ws, q, &opt, NULL, xd, wd, 1, &tsolve, &res, &sum);
  }
  Py_END_ALLOW_THREADS if (st != SLV_OK) {
    snprintf(msg, sizeof msg, "cannot create the workspace of %s for n=%d: %s", name, p.n,
             slv_status_str(st));
    out = st == SLV_ERR_NOMEM ? PyErr_NoMemory() : refusal(st, msg, x, w);
  }
  else {
    out = result_dict(&res, x, w, tsolve); /* copies the history before the free */
  }
  slv_workspace_free(ws);
  exp_copy_free(&own); /* after the workspace: a solver's free may still write it */
done:
  Py_XDECREF(x);
  Py_XDECREF(w);
  if (lx_log_finish(&log) < 0) Py_CLEAR(out);
  if (lx_cancel_finish(&cancel) < 0) Py_CLEAR(out); /* KeyboardInterrupt wins */
  return out;
}
