/* module.c -- the module lcplab._lcplab: its function table, the array and
 * dict helpers of lcplab_ext.h, the log bridge, and the tables the package
 * builds its enums from (statuses, solvers, formats), read from the
 * library so that nothing is listed twice.
 */
#define LCPLAB_EXT_MODULE_C
#include "lcplab_ext.h"

#include "dyn_model.h"
#include "io.h"

/* ---- arrays and dicts ----------------------------------------------------- */

static const char *dtype_name(int typenum) {
  return typenum == NPY_DOUBLE ? "float64" : typenum == NPY_INT32 ? "int32" : "?";
}

void *lx_array_data(PyObject *obj, int typenum, npy_intp size, int fortran, int none_ok,
                    const char *field) {
  if (obj == Py_None && none_ok) return NULL;
  if (!PyArray_Check(obj)) {
    PyErr_Format(PyExc_TypeError, "%s must be a numpy array, got %s", field, Py_TYPE(obj)->tp_name);
    return NULL;
  }
  PyArrayObject *a = (PyArrayObject *)obj;
  if (PyArray_TYPE(a) != typenum) {
    PyErr_Format(PyExc_TypeError, "%s must have dtype %s", field, dtype_name(typenum));
    return NULL;
  }
  int contiguous = fortran ? PyArray_IS_F_CONTIGUOUS(a) : PyArray_IS_C_CONTIGUOUS(a);
  if (!contiguous || !PyArray_ISALIGNED(a)) {
    PyErr_Format(PyExc_ValueError, "%s must be %s-contiguous and aligned", field,
                 fortran ? "Fortran" : "C");
    return NULL;
  }
  if (PyArray_SIZE(a) != size) {
    PyErr_Format(PyExc_ValueError, "%s has %zd values, %zd expected", field,
                 (Py_ssize_t)PyArray_SIZE(a), (Py_ssize_t)size);
    return NULL;
  }
  return PyArray_DATA(a);
}

PyObject *lx_vector(npy_intp n, const double *v) {
  PyObject *a = PyArray_ZEROS(1, &n, NPY_DOUBLE, 0);
  if (a && v && n > 0) memcpy(PyArray_DATA((PyArrayObject *)a), v, (size_t)n * sizeof *v);
  return a;
}

PyObject *lx_ivector(npy_intp n, const int *v) {
  PyObject *a = PyArray_ZEROS(1, &n, NPY_INT32, 0);
  if (a && v && n > 0) memcpy(PyArray_DATA((PyArrayObject *)a), v, (size_t)n * sizeof *v);
  return a;
}

int lx_set_steal(PyObject *d, const char *key, PyObject *v) {
  if (!v) return -1;
  int r = PyDict_SetItemString(d, key, v);
  Py_DECREF(v);
  return r;
}

int lx_set_float(PyObject *d, const char *key, double v) {
  return lx_set_steal(d, key, PyFloat_FromDouble(v));
}

int lx_set_int(PyObject *d, const char *key, long v) {
  return lx_set_steal(d, key, PyLong_FromLong(v));
}

/* ---- the log bridge --------------------------------------------------------- */

void lx_log_line(void *ctx, slv_log_level level, const char *line) {
  lx_log *log = ctx;
  PyGILState_STATE g = PyGILState_Ensure();
  if (!log->exc_type) {
    PyObject *r = PyObject_CallFunction(log->fn, "is", (int)level, line);
    if (r)
      Py_DECREF(r);
    else
      PyErr_Fetch(&log->exc_type, &log->exc_value, &log->exc_tb);
  }
  PyGILState_Release(g);
}

int lx_log_start(lx_log *log, PyObject *fn, int level, slv_options *opt) {
  memset(log, 0, sizeof *log);
  if (fn == Py_None) return 0;
  if (!PyCallable_Check(fn)) {
    PyErr_SetString(PyExc_TypeError, "the log function must be callable");
    return -1;
  }
  if (level < SLV_LOG_ERROR || level > SLV_LOG_DEBUG) {
    PyErr_Format(PyExc_ValueError, "log level %d out of range", level);
    return -1;
  }
  log->fn = fn;
  opt->log_level_fn = lx_log_line;
  opt->log_ctx = log;
  opt->log_level = level;
  return 0;
}

int lx_log_finish(lx_log *log) {
  if (!log->exc_type) return 0;
  PyErr_Restore(log->exc_type, log->exc_value, log->exc_tb);
  log->exc_type = log->exc_value = log->exc_tb = NULL;
  return -1;
}

/* ---- tables ----------------------------------------------------------------- */

/* [(value, name)] of every status slv_status_str knows (the enum's range
 * with margin: an unknown value names itself "unknown_status"). */
static PyObject *lx_statuses(PyObject *self, PyObject *args) {
  (void)self;
  (void)args;
  PyObject *list = PyList_New(0);
  for (int s = -32; list && s <= 32; s++) {
    const char *name = slv_status_str((slv_status)s);
    if (strcmp(name, "unknown_status") == 0) continue;
    PyObject *t = Py_BuildValue("(is)", s, name);
    if (!t || PyList_Append(list, t) < 0) Py_CLEAR(list);
    Py_XDECREF(t);
  }
  return list;
}

/* [dict(name, summary, cite, caps, max_n)] in registry order. */
static PyObject *lx_solvers(PyObject *self, PyObject *args) {
  (void)self;
  (void)args;
  PyObject *list = PyList_New(0);
  for (int i = 0; list && i < slv_solver_count(); i++) {
    const slv_solver *s = slv_solver_at(i);
    char caps[256];
    slv_solver_caps_str(s, caps, sizeof caps);
    PyObject *d =
        Py_BuildValue("{s:s,s:s,s:s,s:s,s:i,s:I,s:s}", "name", s->name, "summary",
                      s->summary ? s->summary : "", "cite", s->cite ? s->cite : "", "caps", caps,
                      "max_n", s->max_n, "cap_bits", s->caps, "params", s->params ? s->params : "");
    if (!d || PyList_Append(list, d) < 0) Py_CLEAR(list);
    Py_XDECREF(d);
  }
  return list;
}

/* [(value, name)] of the file formats, IO_FMT_AUTO first. */
static PyObject *lx_formats(PyObject *self, PyObject *args) {
  (void)self;
  (void)args;
  PyObject *list = PyList_New(0);
  for (int f = IO_FMT_AUTO; list && f <= IO_FMT_LAST; f++) {
    PyObject *t = Py_BuildValue("(is)", f, io_format_str((io_format)f));
    if (!t || PyList_Append(list, t) < 0) Py_CLEAR(list);
    Py_XDECREF(t);
  }
  return list;
}

/* libsolvers' options by name (slv.h): [dict(name, type, values, range,
 * meaning, default)], type "int", "ulong", "double", "bool" or "choice",
 * default the text of slv_options_default()'s value. */
static PyObject *lx_options(PyObject *self, PyObject *args) {
  (void)self;
  (void)args;
  static const char *const types[] = { "int", "ulong", "double", "bool", "choice" };
  slv_options o = slv_options_default();
  PyObject *list = PyList_New(0);
  for (int i = 0; list && i < slv_option_count(); i++) {
    const slv_option_info *d = slv_option_at(i);
    char def[64];
    slv_options_get(&o, d->name, def, sizeof def);
    PyObject *t = Py_BuildValue("{s:s,s:s,s:s,s:s,s:s,s:s}", "name", d->name, "type",
                                types[d->type], "values", d->values, "range", d->range, "meaning",
                                d->meaning, "default", def);
    if (!t || PyList_Append(list, t) < 0) Py_CLEAR(list);
    Py_XDECREF(t);
  }
  return list;
}

/* Where the figure scripts are (Makefile.am): installed, and in the
 * source tree this module was built from; where the lcplab program is
 * installed ($(bindir)), and the build tree this module was built in
 * (python/lcplab/_program.py). */
#ifndef LCPLAB_PKGDATADIR
#define LCPLAB_PKGDATADIR ""
#endif
#ifndef LCPLAB_SRC_EXPERIMENTS
#define LCPLAB_SRC_EXPERIMENTS ""
#endif
#ifndef LCPLAB_BINDIR
#define LCPLAB_BINDIR ""
#endif
#ifndef LCPLAB_BUILDDIR
#define LCPLAB_BUILDDIR ""
#endif

static PyMethodDef methods[] = {
  { "statuses", lx_statuses, METH_NOARGS, "[(value, name)] of the library's statuses." },
  { "solvers", lx_solvers, METH_NOARGS, "The solver registry, in order, as dicts." },
  { "formats", lx_formats, METH_NOARGS, "[(value, name)] of the file formats." },
  { "options", lx_options, METH_NOARGS, "The solver options by name, as dicts." },
  { "scenes", lx_scenes, METH_NOARGS, "[(name, summary)] of the named scenes." },
  { "default_steps", lx_default_steps, METH_VARARGS, "default_steps(scene, dt) -> steps." },
  { "world_names", lx_world_names, METH_NOARGS, "The names of the world's stages and enums." },
  { "validate", lx_validate, METH_VARARGS, "validate(problem) -> (status, message)." },
  { "residual", lx_residual, METH_VARARGS, "residual(problem, x, w) -> dict." },
  { "solve", (PyCFunction)(void (*)(void))lx_solve, METH_VARARGS | METH_KEYWORDS,
    "solve(problem, solver, options, x0, history, log, log_level) -> dict." },
  { "tol_check", lx_tol_check, METH_VARARGS,
    "tol_check(tol, allow) -> None, or why a tol >= 1 is refused." },
  { "read", lx_read, METH_VARARGS, "read(path, format) -> dict or (status, message)." },
  { "kind", lx_kind, METH_VARARGS, "kind(problem) -> the I/O library's classification." },
  { "contactbench_rows", lx_contactbench_rows, METH_VARARGS,
    "contactbench_rows(nc) -> P: lcplab's row i is ContactBench's row P[i]." },
  { "velocities", lx_velocities, METH_VARARGS,
    "velocities(problem, global, x) -> (v, u, res_vel) or (status, message)." },
  { "global_vjp", lx_global_vjp, METH_VARARGS,
    "global_vjp(global, n, x, gq) -> (gM, gH, gf, gw) or (status, message)." },
  { "from_global", lx_from_global, METH_VARARGS,
    "from_global(global, n, mu, name) -> (problem, global) or (status, message)." },
  { "write", lx_write, METH_VARARGS,
    "write(problem, path, format, name, x_ref[, global]) -> (status, message)." },
  { "setting_names", lx_setting_names, METH_NOARGS, "The world settings' names." },
  { "scene_model", lx_scene_model, METH_VARARGS, "scene_model(name, params) -> Model." },
  { "load_model", lx_load_model, METH_VARARGS,
    "load_model(path, approximate=0, max_memory=0, reduced=-1, friction=None) -> (Model, timestep, "
    "warnings, notes, reduced)." },
  { "run_experiment", (PyCFunction)(void (*)(void))lx_run_experiment, METH_VARARGS | METH_KEYWORDS,
    "run_experiment(config, out, ...) -> {status, messages, outputs}." },
  { "profile_csv", lx_profile_csv, METH_VARARGS, "profile_csv(text) -> the profile curves." },
  { "profile_figure", lx_profile_figure, METH_VARARGS,
    "profile_figure(text, base, figure, scripts) -> (status, [(kind, line)])." },
  { "quantile", lx_quantile, METH_VARARGS, "quantile(sorted float64 array, q) -> float." },
  { "register_solver", lx_register_solver, METH_VARARGS,
    "register_solver(name, solver, adapter, caps): a Python solver in the library's table." },
  { "load_plugin", lx_load_plugin, METH_VARARGS, "load_plugin(path): a C plugin's solvers." },
  { "call_overhead", lx_call_overhead, METH_VARARGS,
    "call_overhead(problem, adapter, noop, repeats) -> [seconds of each crossing]." },
  { "sensitivity_jvp", lx_sensitivity_jvp, METH_VARARGS,
    "sensitivity_jvp(problem, x, tol, dA, db, dlo, dhi, dmu) -> dict or (status, message)." },
  { "sensitivity_vjp", lx_sensitivity_vjp, METH_VARARGS,
    "sensitivity_vjp(problem, x, tol, gx) -> dict or (status, message)." },
  { "gradient_rows", lx_gradient_rows, METH_VARARGS,
    "gradient_rows(problem, solvers, seed, time_limit, repeat) -> (rows, skipped)." },
  { "gradient_quality", lx_gradient_quality, METH_VARARGS,
    "gradient_quality(csv_text) -> the quality table's CSV text." },
  { "gradient_vjp_goal", lx_gradient_vjp_goal, METH_VARARGS,
    "gradient_vjp_goal(csv_text) -> the VJP goal per problem, CSV text." },
  { NULL, NULL, 0, NULL }
};

static struct PyModuleDef module = { PyModuleDef_HEAD_INIT,
                                     "_lcplab",
                                     "The C layer of the lcplab package (private).",
                                     -1,
                                     methods,
                                     NULL,
                                     NULL,
                                     NULL,
                                     NULL };

PyMODINIT_FUNC PyInit__lcplab(void);
PyMODINIT_FUNC PyInit__lcplab(void) {
  if (_import_array() < 0) return NULL; /* not import_array(): it prints */
  if (PyType_Ready(&lx_world_type) < 0 || PyType_Ready(&lx_model_type) < 0) return NULL;
  PyObject *m = PyModule_Create(&module);
  if (!m) return NULL;
  Py_INCREF(&lx_world_type);
  Py_INCREF(&lx_model_type);
  if (PyModule_AddObject(m, "World", (PyObject *)&lx_world_type) < 0 ||
      PyModule_AddObject(m, "Model", (PyObject *)&lx_model_type) < 0 ||
      PyModule_AddStringConstant(m, "VERSION", LCPLAB_VERSION) < 0 ||
      PyModule_AddStringConstant(m, "PKGDATADIR", LCPLAB_PKGDATADIR) < 0 ||
      PyModule_AddStringConstant(m, "SRC_EXPERIMENTS", LCPLAB_SRC_EXPERIMENTS) < 0 ||
      PyModule_AddStringConstant(m, "BINDIR", LCPLAB_BINDIR) < 0 ||
      PyModule_AddStringConstant(m, "BUILDDIR", LCPLAB_BUILDDIR) < 0 ||
      PyModule_AddIntConstant(m, "MODEL_MAX_BYTES", (long)DYN_MODEL_MAX_BYTES) < 0 ||
      PyModule_AddIntConstant(m, "LOG_ERROR", SLV_LOG_ERROR) < 0 ||
      PyModule_AddIntConstant(m, "LOG_WARNING", SLV_LOG_WARNING) < 0 ||
      PyModule_AddIntConstant(m, "LOG_INFO", SLV_LOG_INFO) < 0 ||
      PyModule_AddIntConstant(m, "LOG_DEBUG", SLV_LOG_DEBUG) < 0) {
    Py_DECREF(&lx_world_type);
    Py_DECREF(&lx_model_type);
    Py_DECREF(m);
    return NULL;
  }
  return m;
}
