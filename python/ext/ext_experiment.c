/* ext_experiment.c -- the comparison engine (libexperiment, exp.h) for the
 * package's run_experiment, compare and profile (python/lcplab/_experiment.py).
 *
 *   run_experiment(config, out, jobs, vars, time_limit, force, no_plot,
 *                  scripts, data, program, max_memory)
 *       -> {"status": int, "messages": [(kind, line)], "outputs": [path]}
 *   profile_csv(text) -> text
 *   profile_figure(text, base, figure, scripts) -> (status, [(kind, line)])
 *   quantile(x, q) -> the engine's quantile of the sorted float64 array x
 *
 * The campaign runs with the GIL released (other Python threads go on);
 * the library's callbacks take it back for a moment: the messages are
 * collected into lists, never printed, and the parent's loop polls the stop
 * callback, which runs the interpreter's signal handlers
 * (PyErr_CheckSignals): a KeyboardInterrupt finishes the running tasks (a
 * second one stops them now), the CSVs of the tasks done are written, and
 * the exception is raised after the campaign returns.  The workers are
 * forked with the GIL held and the interpreter told (fork hooks, below):
 * a worker's Python solver (ext_pysolver.c) runs in that worker's own
 * interpreter; the library's callbacks called there (a task's message)
 * are dropped.
 */
#include <limits.h>
#include <signal.h>
#include <unistd.h>

#include "lcplab_ext.h"

#include "exp.h"

typedef struct campaign_ctx {
  PyThreadState *ts;            /* the thread's state while the GIL is released */
  pid_t pid;                    /* the process that holds the interpreter */
  PyObject *messages, *outputs; /* lists */
  int failed;                   /* a list append failed (memory) */
  int interrupts;               /* KeyboardInterrupts seen */
  PyObject *exc_type, *exc_value, *exc_tb;
} campaign_ctx;

static void collect_line(void *arg, exp_say_kind kind, const char *line) {
  campaign_ctx *c = arg;
  if (getpid() != c->pid) return;
  PyEval_RestoreThread(c->ts);
  PyObject *item = kind == EXP_SAY_OUTPUT ? PyUnicode_DecodeFSDefault(line)
                                          : Py_BuildValue("(is)", (int)kind, line);
  if (!item || PyList_Append(kind == EXP_SAY_OUTPUT ? c->outputs : c->messages, item) < 0) {
    PyErr_Clear();
    c->failed = 1;
  }
  Py_XDECREF(item);
  c->ts = PyEval_SaveThread();
}

/* The stop callback: the interpreter's signal handlers run here; an
 * exception they raise is kept (the first) and turns into a stop. */
static int python_stop(void *arg, int *sig) {
  campaign_ctx *c = arg;
  *sig = 0;
  if (getpid() != c->pid) return EXP_STOP_NONE;
  PyEval_RestoreThread(c->ts);
  if (PyErr_CheckSignals() < 0) {
    c->interrupts++;
    if (!c->exc_type)
      PyErr_Fetch(&c->exc_type, &c->exc_value, &c->exc_tb);
    else
      PyErr_Clear();
  }
  c->ts = PyEval_SaveThread();
  *sig = c->interrupts ? SIGINT : 0;
  return c->interrupts >= 2 ? EXP_STOP_NOW : c->interrupts ? EXP_STOP_FINISH : EXP_STOP_NONE;
}

/* vars: a list of "NAME=VALUE" strings, borrowed into v (valid while the
 * list lives); 0, or -1 with an exception. */
static int vars_from(PyObject *list, exp_vars *v) {
  memset(v, 0, sizeof *v);
  if (list == Py_None) return 0;
  if (!PyList_Check(list) || PyList_GET_SIZE(list) > EXP_MAX_VARS) {
    PyErr_Format(PyExc_ValueError, "vars must be a list of at most %d 'NAME=VALUE' strings",
                 EXP_MAX_VARS);
    return -1;
  }
  for (Py_ssize_t k = 0; k < PyList_GET_SIZE(list); k++) {
    const char *s = PyUnicode_Check(PyList_GET_ITEM(list, k))
                        ? PyUnicode_AsUTF8(PyList_GET_ITEM(list, k))
                        : NULL;
    if (!s) {
      if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "vars must be strings");
      return -1;
    }
    v->def[v->ndef++] = s;
  }
  return 0;
}

/* Around each worker's fork (exp_fork_hooks): the GIL taken and the
 * interpreter told (PyOS_BeforeFork), so that the worker starts with a
 * consistent interpreter of its own (PyOS_AfterFork_Child) in which a
 * Python solver may run (ext_pysolver.c); each side then releases the GIL
 * again, as the campaign runs without it. */
static void fork_before(void *arg) {
  campaign_ctx *c = arg;
  PyEval_RestoreThread(c->ts);
  PyOS_BeforeFork();
}

static void fork_parent(void *arg) {
  campaign_ctx *c = arg;
  PyOS_AfterFork_Parent();
  c->ts = PyEval_SaveThread();
}

static void fork_child(void *arg) {
  campaign_ctx *c = arg;
  PyOS_AfterFork_Child();
  c->ts = PyEval_SaveThread();
}

PyObject *lx_run_experiment(PyObject *self, PyObject *args, PyObject *kwargs) {
  (void)self;
  static char *kwlist[] = { "config",  "out",     "jobs", "vars",    "time_limit", "force",
                            "no_plot", "scripts", "data", "program", "max_memory", NULL };
  exp_campaign_opts o;
  memset(&o, 0, sizeof o);
  PyObject *vars = Py_None;
  unsigned long long max_memory = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "ss|iOdppzzzK", kwlist, &o.config, &o.out, &o.jobs,
                                   &vars, &o.time_limit, &o.force, &o.no_plot, &o.scripts, &o.data,
                                   &o.program, &max_memory))
    return NULL;
  exp_vars v;
  if (vars_from(vars, &v) < 0) return NULL;
  campaign_ctx c = { NULL, getpid(), PyList_New(0), PyList_New(0), 0, 0, NULL, NULL, NULL };
  if (!c.messages || !c.outputs) {
    Py_XDECREF(c.messages);
    Py_XDECREF(c.outputs);
    return NULL;
  }
  o.vars = &v;
  o.max_memory = (size_t)max_memory;
  o.stop = python_stop;
  o.stop_ctx = &c;
  const exp_fork_hooks hooks = { fork_before, fork_parent, fork_child, &c };
  o.fork = &hooks;
  const exp_log log = { collect_line, &c };
  c.ts = PyEval_SaveThread();
  int status = exp_campaign_run(&o, &log);
  PyEval_RestoreThread(c.ts);
  PyObject *out = NULL;
  if (c.exc_type) {
    PyErr_Restore(c.exc_type, c.exc_value, c.exc_tb);
  } else if (c.failed) {
    PyErr_NoMemory();
  } else {
    out = Py_BuildValue("{s:i,s:O,s:O}", "status", status, "messages", c.messages, "outputs",
                        c.outputs);
  }
  Py_DECREF(c.messages);
  Py_DECREF(c.outputs);
  return out;
}

PyObject *lx_profile_csv(PyObject *self, PyObject *args) {
  (void)self;
  const char *text;
  if (!PyArg_ParseTuple(args, "s", &text)) return NULL;
  char *out = NULL, err[512] = "";
  if (exp_profile_of_csv(text, &out, err, sizeof err) != 0) {
    PyErr_SetString(PyExc_ValueError, err);
    return NULL;
  }
  PyObject *r = PyUnicode_FromString(out);
  free(out);
  return r;
}

/* The lines of a call made without the GIL, collected as "K LINE\n" (K the
 * kind's digit) and turned into a list after. */
static void buffer_line(void *arg, exp_say_kind kind, const char *line) {
  exp_rbuf *b = arg;
  (void)exp_rbuf_add(b, "%d %s\n", (int)kind, line);
}

static PyObject *buffered_lines(const exp_rbuf *b) {
  PyObject *list = PyList_New(0);
  for (const char *l = b->buf; list && l && *l;) {
    const char *e = strchr(l, '\n');
    PyObject *item = Py_BuildValue("(is#)", l[0] - '0', l + 2, (Py_ssize_t)(e - l - 2));
    if (!item || PyList_Append(list, item) < 0) Py_CLEAR(list);
    Py_XDECREF(item);
    l = e + 1;
  }
  return list;
}

PyObject *lx_profile_figure(PyObject *self, PyObject *args) {
  (void)self;
  const char *text, *base, *figure, *scripts;
  if (!PyArg_ParseTuple(args, "sszz", &text, &base, &figure, &scripts)) return NULL;
  exp_rbuf b = { 0 };
  const exp_log log = { buffer_line, &b };
  PyThreadState *ts = PyEval_SaveThread();
  int status = exp_profile_figure(&log, text, base, figure, scripts, exp_gnuplot_prog());
  PyEval_RestoreThread(ts);
  PyObject *lines = buffered_lines(&b);
  exp_rbuf_free(&b);
  if (!lines) return NULL;
  PyObject *r = Py_BuildValue("(iO)", status, lines);
  Py_DECREF(lines);
  return r;
}

/* exp_quantile, the one quantile of the engine's medians and quartiles
 * (linear between order statistics), of x: a 1-D float64 array, sorted. */
PyObject *lx_quantile(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *x;
  double q;
  if (!PyArg_ParseTuple(args, "Od", &x, &q)) return NULL;
  if (!PyArray_Check(x) || PyArray_NDIM((PyArrayObject *)x) != 1) {
    PyErr_SetString(PyExc_TypeError, "quantile: x must be a 1-D float64 array");
    return NULL;
  }
  npy_intp n = PyArray_DIM((PyArrayObject *)x, 0);
  const double *v = lx_array_data(x, NPY_DOUBLE, n, 0, 0, "x");
  if (!v) return NULL;
  if (n > INT_MAX) {
    PyErr_SetString(PyExc_ValueError, "quantile: more than INT_MAX values");
    return NULL;
  }
  return PyFloat_FromDouble(exp_quantile(v, (int)n, q));
}
