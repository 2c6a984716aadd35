/* lcplab_ext.h -- private header of the C extension lcplab._lcplab, the thin
 * layer between the Python package (python/lcplab/) and the public C
 * interface of libsolvers (slv.h), libio (io.h), libdynamics
 * (dyn_world.h) and libexperiment (exp.h): only SLV_API / DYN_API / EXP_API
 * functions, the ones the shared libraries export.
 *
 * The Python package checks and converts its arguments (shapes, dtypes,
 * names) and raises its own exceptions; this layer checks them again where
 * a wrong one would be undefined behaviour (a NULL, a short array, the
 * wrong dtype), raising TypeError or ValueError naming the field, and
 * otherwise hands back the library's status and one-line message so that
 * the package can raise the right exception with it.  Nothing here calls
 * exit or abort, and nothing prints.
 *
 * The GIL is released around slv_solve and dyn_world_step.  While it is
 * released no Python object is touched: the arrays read or written are
 * owned by objects this layer holds a reference to.  The log callback
 * (slv.h, "logging") takes the GIL back to call the package's logging
 * bridge; an exception there is kept and raised after the call.
 *
 * Files: module.c (the module, helpers, status and solver tables),
 * ext_problem.c (a problem from the package's arrays, validation,
 * residuals), ext_solve.c (solve), ext_io.c (read, write), ext_world.c
 * (the World type and its queries), ext_model.c (the Model type, its files),
 * ext_builder.c (its records by name), ext_experiment.c (campaigns and
 * profiles: libexperiment), ext_pysolver.c (Python solvers registered in
 * libsolvers, C plugins).
 */
#ifndef LCPLAB_EXT_H
#define LCPLAB_EXT_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define NPY_NO_DEPRECATED_API  NPY_1_7_API_VERSION
#define PY_ARRAY_UNIQUE_SYMBOL lcplab_ARRAY_API
#ifndef LCPLAB_EXT_MODULE_C
#define NO_IMPORT_ARRAY
#endif
#include <numpy/arrayobject.h>

#include "slv.h"

#include <time.h>

#if PY_VERSION_HEX < 0x030A0000
static inline PyObject *Py_NewRef(PyObject *o) {
  Py_INCREF(o);
  return o;
}
#endif

/* ---- arrays -------------------------------------------------------------- */

/* The data of obj if it is a numpy array of dtype typenum (NPY_DOUBLE,
 * NPY_INT32), aligned, contiguous (C order, or Fortran order when fortran)
 * with exactly size elements; else NULL with TypeError / ValueError naming
 * field.  none_ok: None gives NULL without an error (check PyErr_Occurred). */
void *lx_array_data(PyObject *obj, int typenum, npy_intp size, int fortran, int none_ok,
                    const char *field);

/* A new 1-D float64 array of n values copied from v (NULL: zeros). */
PyObject *lx_vector(npy_intp n, const double *v);
/* A new 1-D int32 array of n values copied from v. */
PyObject *lx_ivector(npy_intp n, const int *v);

/* d[key] = PyFloat(v) / PyLong(v); 0 on success, -1 with an exception. */
int lx_set_float(PyObject *d, const char *key, double v);
int lx_set_int(PyObject *d, const char *key, long v);
/* d[key] = v, stealing the reference to v (NULL: -1, the error is set). */
int lx_set_steal(PyObject *d, const char *key, PyObject *v);

/* ---- problems (ext_problem.c) ------------------------------------------- */

/* The package's problem tuple (lcplab.Problem._c):
 *   (n, storage, A, indptr, indices, data, b, lo, hi, findex, mu,
 *    cone_rows, cone_mu, cone_law[, condensed])
 * storage 0 (dense: A an n x n float64 array in Fortran order) or 1 (CSR:
 * indptr int32 n+1, indices int32, data float64); lo, hi float64 n;
 * findex int32 n and mu float64 n, or both None; cone_rows int32 and
 * cone_mu float64 of the same length, or both None; cone_law 0 / 1;
 * condensed (default 0): 1 for a problem condensed from a global one
 * (slv_problem.condensed: the convergence test's global clause).
 * Fills *p with borrowed pointers into the arrays (valid while the tuple
 * lives); 0, or -1 with an exception naming the field. */
int lx_problem_from(PyObject *tuple, slv_problem *p);

/* The residual measures as a dict (slv_residuals and its contact metrics). */
PyObject *lx_residuals_dict(const slv_residuals *r);

/* A new problem tuple (as above) with copies of p's arrays; factored
 * storage is converted to CSR (slv_factored_csr_new).  NULL with an
 * exception on failure. */
PyObject *lx_problem_tuple(const slv_problem *p);

/* ---- logging (module.c) -------------------------------------------------- */

/* The log context of one call: fn(level, line) is called with the GIL
 * taken back; the first exception it raises is kept in exc_* (and later
 * lines are dropped), to be restored by lx_log_finish. */
typedef struct lx_log {
  PyObject *fn;
  PyObject *exc_type, *exc_value, *exc_tb;
} lx_log;

/* Sets opt's leveled callback to fn (None: silent) at level; 0, or -1
 * with ValueError for a level out of range. */
int lx_log_start(lx_log *log, PyObject *fn, int level, slv_options *opt);
/* With the GIL held: 0, or -1 with the exception the callback raised. */
int lx_log_finish(lx_log *log);

/* Ctrl-C during a solve or a World.run, which run without the GIL: the
 * solve's cancel check (slv_options.cancel) takes the GIL back for a moment
 * and runs Python's pending signal handlers (PyErr_CheckSignals); a handler
 * that raises (SIGINT's KeyboardInterrupt) stops the solve at that poll,
 * its exception kept here until lx_cancel_finish restores it
 * (ext_solve.c).  Only on the main thread, the one where Python runs signal
 * handlers; and at most once per LX_CANCEL_PERIOD seconds (a clock read
 * between), so that a solve does not queue for the GIL behind a busy Python
 * thread at every poll.  The log callback runs Python code, where the
 * interpreter may run a pending handler too: an exception the log kept
 * stops the solve at the next poll as well, on any thread. */
#define LX_CANCEL_PERIOD 0.05
typedef struct lx_cancel {
  PyObject *exc_type, *exc_value, *exc_tb;
  const lx_log *log;    /* the call's log context: an exception kept there stops */
  int main;             /* called on the main thread: signals are checked */
  struct timespec last; /* the last check's time */
} lx_cancel;
/* With the GIL held: c ready for the call whose log context is log, and
 * opt's cancel check set. */
void lx_cancel_start(lx_cancel *c, const lx_log *log, slv_options *opt);
int lx_cancel_check(void *ctx);     /* slv_cancel_fn: nonzero once a handler raised */
int lx_cancel_finish(lx_cancel *c); /* -1 with the handler's exception set, else 0 */
void lx_log_line(void *ctx, slv_log_level level, const char *line);

/* ---- the functions and the type of the module --------------------------- */

PyObject *lx_validate(PyObject *self, PyObject *args);
PyObject *lx_residual(PyObject *self, PyObject *args);
PyObject *lx_solve(PyObject *self, PyObject *args, PyObject *kwargs);
/* tol_check(tol, allow) -> None, or why a tol >= 1 is refused
 * (slv_tol_check: the package's tol= and compare(tol=)). */
PyObject *lx_tol_check(PyObject *self, PyObject *args);
PyObject *lx_read(PyObject *self, PyObject *args);
PyObject *lx_write(PyObject *self, PyObject *args);
PyObject *lx_velocities(PyObject *self, PyObject *args);
PyObject *lx_global_vjp(PyObject *self, PyObject *args);
/* The global problem g as the tuple (ndof, M indptr, M indices, M data,
 * H indptr, H indices, H data, f, w): int32 / float64 copies, CSR
 * (ext_io.c). */
PyObject *lx_global_tuple(const slv_global_form *g);
/* from_global(global tuple, n, mu, name) -> (problem tuple, global tuple)
 * or (status, message): ext_io.c. */
PyObject *lx_from_global(PyObject *self, PyObject *args);
PyObject *lx_kind(PyObject *self, PyObject *args);
/* sensitivity_jvp / sensitivity_vjp: the derivatives of an answer
 * (ext_sensitivity.c, docs/gradients.md). */
PyObject *lx_sensitivity_jvp(PyObject *self, PyObject *args);
PyObject *lx_sensitivity_vjp(PyObject *self, PyObject *args);
/* gradient_rows: libexperiment's gradient-quality measure (ext_sensitivity.c). */
PyObject *lx_gradient_rows(PyObject *self, PyObject *args);
PyObject *lx_gradient_quality(PyObject *self, PyObject *args);
PyObject *lx_gradient_vjp_goal(PyObject *self, PyObject *args);
/* contactbench_rows(nc): ext_io.c. */
PyObject *lx_contactbench_rows(PyObject *self, PyObject *args);
PyObject *lx_scenes(PyObject *self, PyObject *args);
PyObject *lx_default_steps(PyObject *self, PyObject *args);
PyObject *lx_world_names(PyObject *self, PyObject *args);
PyObject *lx_setting_names(PyObject *self, PyObject *args);
PyObject *lx_run_experiment(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *lx_profile_csv(PyObject *self, PyObject *args);
PyObject *lx_profile_figure(PyObject *self, PyObject *args);
PyObject *lx_quantile(PyObject *self, PyObject *args);

extern PyTypeObject lx_world_type;
/* A scene's params, a list of "key=value" str (or None: none), as a
 * PyMem array of *np C strings borrowed from it (PyMem_Free it), or NULL
 * with an exception (ext_world.c). */
const char **lx_param_list(PyObject *params, Py_ssize_t *np);

/* ---- scene models (ext_model.c) ------------------------------------------ */

/* A Model object: a scene model it owns (ext_model.c). */
struct dyn_model;
typedef struct {
  PyObject_HEAD struct dyn_model *m;
  int reduced; /* read for reduced coordinates: its worlds are (DYN_COORDINATES_REDUCED) */
} lx_model;

/* The builder's methods of Model (ext_builder.c). */
PyObject *lx_model_add(lx_model *self, PyObject *args);
PyObject *lx_model_set(lx_model *self, PyObject *args);
PyObject *lx_model_get(lx_model *self, PyObject *args);
PyObject *lx_model_find(lx_model *self, PyObject *args);
PyObject *lx_model_exclude(lx_model *self, PyObject *args);
PyObject *lx_model_exclusions(lx_model *self, PyObject *noargs);
PyObject *lx_model_options(lx_model *self, PyObject *noargs);
PyObject *lx_model_set_options(lx_model *self, PyObject *args);
PyObject *lx_model_mass_from_density(lx_model *self, PyObject *args);

PyObject *lx_scene_model(PyObject *self, PyObject *args);
PyObject *lx_load_model(PyObject *self, PyObject *args);
extern PyTypeObject lx_model_type;
/* The world of obj if it is a Model, at the settings base as
 * dyn_world_settings_for_model makes them with timestep (a loaded file's
 * <option timestep>, or 0), and unless solver_given the solver
 * dyn_world_default_solver picks for its coordinates: 0 (*w set), or a
 * dyn_err < 0 with the message; 1 if obj is not a Model. */
struct dyn_world;
struct dyn_world_settings;
int lx_model_world(PyObject *obj, const struct dyn_world_settings *base, double timestep,
                   int solver_given, struct dyn_world **w, char *msg, size_t cap);

/* ---- Python solvers and plugins (ext_pysolver.c) --------------------------- */

PyObject *lx_register_solver(PyObject *self, PyObject *args);
PyObject *lx_load_plugin(PyObject *self, PyObject *args);
PyObject *lx_call_overhead(PyObject *self, PyObject *args);

#endif /* LCPLAB_EXT_H */
