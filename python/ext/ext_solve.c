/* ext_solve.c -- solve(problem, solver, options, x0, history, log,
 * log_level): one slv_solve in a workspace of its own, with the GIL
 * released from the workspace's creation to its release.  The steps are
 * those of `lcplab solve` (cli/cmd_solve.c), so that the two give the same
 * x bit for bit: the options from slv_options_default with the named
 * fields changed, the start from x0 (warm) or the library's P(0), only
 * slv_solve timed (CLOCK_MONOTONIC): the same timed solve,
 * exp_solve_repeat (libexperiment/solve_repeat.c), run once.
 *
 * Returns a dict: status, message, method (result.method: the algorithm
 * that ran), choice (auto's reason, else empty), x, w, iterations, pivots, residuals (lx_residuals_dict),
 * solver_residual, history and history_time (float64 arrays of the same
 * length, or None unless asked), time (s).  A refusal is a status < 0 with the library's
 * message, not an exception: the package raises the exception that fits.
 * A signal handler that raises during the solve (Ctrl-C: KeyboardInterrupt)
 * stops it at the solver's next poll (lx_cancel_check, lcplab_ext.h) and
 * its exception is raised instead of a result.
 */
#include "lcplab_ext.h"

#include "exp.h"

#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The slv_options fields the package may set by name. */
typedef enum { OPT_INT, OPT_DOUBLE, OPT_ULONG } opt_kind;
typedef struct {
  const char *name;
  opt_kind kind;
  size_t offset;
} opt_field;

static const opt_field fields[] = {
  { "max_iter", OPT_INT, offsetof(slv_options, max_iter) },
  { "tol", OPT_DOUBLE, offsetof(slv_options, tol) },
  { "norm", OPT_INT, offsetof(slv_options, norm) },
  { "omega", OPT_DOUBLE, offsetof(slv_options, omega) },
  { "damping", OPT_DOUBLE, offsetof(slv_options, damping) },
  { "pivot_tol", OPT_DOUBLE, offsetof(slv_options, pivot_tol) },
  { "check_every", OPT_INT, offsetof(slv_options, check_every) },
  { "max_pivots", OPT_INT, offsetof(slv_options, max_pivots) },
  { "seed", OPT_ULONG, offsetof(slv_options, seed) },
  { "simd", OPT_INT, offsetof(slv_options, simd) },
  { "threads", OPT_INT, offsetof(slv_options, threads) },
  { "time_limit", OPT_DOUBLE, offsetof(slv_options, time_limit) },
};

/* opt's field `name` = value; 0, or -1 with KeyError / TypeError /
 * OverflowError naming the option. */
static int set_option(slv_options *opt, const char *name, PyObject *value) {
  for (size_t k = 0; k < sizeof fields / sizeof fields[0]; k++) {
    if (strcmp(fields[k].name, name) != 0) continue;
    char *at = (char *)opt + fields[k].offset;
    if (fields[k].kind == OPT_DOUBLE) {
      if (!PyFloat_Check(value) && !PyLong_Check(value)) {
        PyErr_Format(PyExc_TypeError, "option %s must be a number", name);
        return -1;
      }
      double v = PyFloat_AsDouble(value);
      if (v == -1.0 && PyErr_Occurred()) return -1;
      memcpy(at, &v, sizeof v);
      return 0;
    }
    if (!PyLong_Check(value)) {
      PyErr_Format(PyExc_TypeError, "option %s must be an integer", name);
      return -1;
    }
    if (fields[k].kind == OPT_ULONG) {
      unsigned long v = PyLong_AsUnsignedLong(value);
      if (v == (unsigned long)-1 && PyErr_Occurred()) return -1;
      memcpy(at, &v, sizeof v);
      return 0;
    }
    long v = PyLong_AsLong(value);
    if (v == -1 && PyErr_Occurred()) return -1;
    if (v < INT_MIN || v > INT_MAX) {
      PyErr_Format(PyExc_OverflowError, "option %s=%ld does not fit an int", name, v);
      return -1;
    }
    int iv = (int)v;
    memcpy(at, &iv, sizeof iv);
    return 0;
  }
  PyErr_Format(PyExc_KeyError, "unknown option '%s'", name);
  return -1;
}

static int options_from(PyObject *dict, slv_options *opt) {
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
    if (set_option(opt, name, value) < 0) return -1;
  }
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
      lx_set_int(d, "status", res->status) < 0 ||
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
  res.status = st;
  snprintf(res.message, sizeof res.message, "%s", msg);
  res.res.res_nat_inf = res.res.res_rel = res.res.res_rel_2 = res.res.compl = NAN;
  res.res.infeas = res.res.b_inf = res.res.merit_fclib = NAN;
  res.res.res_scaled = res.res.siconos_err = res.res.err_siconos = res.res.res_rel_1q = NAN;
  res.res.res_contact = res.res.res_global = NAN;
  res.res.res_contact_at = -1;
  res.res.contact.signorini = res.res.contact.conic_compl = res.res.contact.ncp_compl = NAN;
  res.res.contact.dual_feas = res.res.contact.primal_feas = res.res.contact.mdp_gap = NAN;
  res.solver_residual = NAN;
  return result_dict(&res, x, w, 0.0);
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
  if (options_from(odict, &opt) < 0 || lx_log_start(&log, logfn, level, &opt) < 0) return NULL;
  lx_cancel_start(&cancel, &log, &opt);
  opt.warm_start = x0 != NULL;
  opt.record_history = history;

  PyObject *x = lx_vector(p.n, x0), *w = lx_vector(p.n, NULL), *out = NULL;
  if (!x || !w) goto done;
  char msg[256] = "";
  slv_status st = slv_options_validate(&opt, msg, sizeof msg);
  if (st != SLV_OK) {
    out = refusal(st, msg, x, w);
    goto done;
  }
  slv_result res;
  memset(&res, 0, sizeof res);
  slv_workspace *ws = NULL;
  double tsolve = 0.0;
  double *xd = PyArray_DATA((PyArrayObject *)x), *wd = PyArray_DATA((PyArrayObject *)w);
  Py_BEGIN_ALLOW_THREADS st = slv_workspace_new(solver, p.n > 0 ? p.n : 1, &opt, &ws);
  if (st == SLV_OK) {
    /* lcplab solve's timed solve, once, from x as it is (x0's copy or zeros) */
    exp_tsum sum;
    exp_solve_repeat(ws, &p, &opt, NULL, xd, wd, 1, &tsolve, &res, &sum);
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
done:
  Py_XDECREF(x);
  Py_XDECREF(w);
  if (lx_log_finish(&log) < 0) Py_CLEAR(out);
  if (lx_cancel_finish(&cancel) < 0) Py_CLEAR(out); /* KeyboardInterrupt wins */
  return out;
}
