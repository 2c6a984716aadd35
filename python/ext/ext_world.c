/* ext_world.c -- the World type: a libdynamics world built from a named
 * scene (dyn_scene_new), stepped with the GIL released by libdynamics' one
 * step loop (dyn_world_run), with numpy arrays of the per-step metrics (the
 * columns DYN_METRICS_ARRAYS of libdynamics' one metric table, dyn_run.h:
 * those of `lcplab simulate`'s CSV plus the step's other times, the
 * failure policy's record and ContactBench's criteria of each step's
 * solve, docs/problem.md, "Contact metrics") and of the trace of the
 * dynamic bodies.  It needs libdynamics and libsolvers only.
 *
 *   World(scene, params, settings)   params: ["key=value", ...] as the
 *       scene reads them; settings: {name: value} over
 *       dyn_world_settings_default() (the names of the table below; the
 *       package turns enum names into their values).
 *   run(steps, trace, log, log_level) -> dict: the metric columns over the
 *       steps done (with "stage_time_s", steps x DYN_WORLD_STAGES), "trace" (steps x dynamic bodies x 13: r, q, v, w) or
 *       None, "done", "error" (0 or the dyn_err of the step that failed)
 *       and "message".
 *   bodies(), last_problem(), energy(), and time, step_count, body_count.
 *
 * A signal handler that raises during run() (Ctrl-C: KeyboardInterrupt)
 * stops it at the next poll of a solve or before the next step: the
 * interrupted step is undone (DYN_ERR_INTERRUPTED), the steps before it
 * stay done, and the exception is raised instead of the metrics.
 *
 * A world is stepped by one thread at a time: a call made while another
 * thread is inside run() raises RuntimeError rather than wait or race.
 */
#include "lcplab_ext.h"

#include "dyn_run.h"
#include "dyn_world.h"
#include "exp.h"
#include "io.h"

#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  PyObject_HEAD dyn_world *w;
  int busy; /* set while run() steps without the GIL */
} lx_world;

/* ---- settings by name ----------------------------------------------------------- */

/* The settings over dyn_world_settings_default(): dict {name: text}, each
 * set by the library's one parser (dyn_world_settings_set, libdynamics/
 * world_settings_names.c;
 * the package turns its values into text).  An unknown name raises
 * KeyError, a refused value ValueError("NAME must be ..."); 0 or -1. */
static int settings_from(PyObject *dict, dyn_world_settings *s) {
  *s = dyn_world_settings_default();
  if (dict == Py_None) return 0;
  if (!PyDict_Check(dict)) {
    PyErr_SetString(PyExc_TypeError, "settings must be a dict");
    return -1;
  }
  PyObject *key, *value;
  Py_ssize_t pos = 0;
  while (PyDict_Next(dict, &pos, &key, &value)) {
    const char *name = PyUnicode_Check(key) ? PyUnicode_AsUTF8(key) : NULL;
    const char *text = PyUnicode_Check(value) ? PyUnicode_AsUTF8(value) : NULL;
    if (!name || !text) {
      if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "settings must be {name: text}");
      return -1;
    }
    char err[640] = "";
    int r = dyn_world_settings_set(s, name, text, err, sizeof err);
    if (r == 0) {
      PyErr_Format(PyExc_KeyError, "unknown setting '%s'", name);
      return -1;
    }
    if (r < 0) {
      PyErr_Format(PyExc_ValueError, "%s %s", name, err);
      return -1;
    }
  }
  return 0;
}

/* keys() -> the settings' names (dyn_world_settings_key). */
PyObject *lx_setting_names(PyObject *self, PyObject *args) {
  (void)self;
  (void)args;
  PyObject *out = PyList_New(0);
  for (int i = 0; out && dyn_world_settings_key(i); i++) {
    PyObject *u = PyUnicode_FromString(dyn_world_settings_key(i));
    if (!u || PyList_Append(out, u) < 0) Py_CLEAR(out);
    Py_XDECREF(u);
  }
  return out;
}

const char **lx_param_list(PyObject *params, Py_ssize_t *np) {
  *np = 0;
  if (params != Py_None) {
    if (!PyList_Check(params)) {
      PyErr_SetString(PyExc_TypeError, "params must be a list of 'key=value' strings");
      return NULL;
    }
    *np = PyList_GET_SIZE(params);
  }
  const char **pv = PyMem_Calloc(*np > 0 ? (size_t)*np : 1, sizeof *pv);
  if (!pv) {
    PyErr_NoMemory();
    return NULL;
  }
  for (Py_ssize_t i = 0; i < *np; i++) {
    PyObject *it = PyList_GET_ITEM(params, i);
    pv[i] = PyUnicode_Check(it) ? PyUnicode_AsUTF8(it) : NULL;
    if (!pv[i]) {
      if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "params must be strings");
      PyMem_Free(pv);
      return NULL;
    }
  }
  return pv;
}

/* ---- the type ------------------------------------------------------------------------ */

static int ready(lx_world *self) {
  if (!self->w) {
    PyErr_SetString(PyExc_RuntimeError, "the World was not built");
    return 0;
  }
  if (self->busy) {
    PyErr_SetString(PyExc_RuntimeError, "the World is stepping in another thread");
    return 0;
  }
  return 1;
}

static void world_dealloc(lx_world *self) {
  dyn_world_free(self->w);
  Py_TYPE(self)->tp_free((PyObject *)self);
}

/* World(scene, params, settings, timestep): scene a name or a Model
 * (ext_model.c, built with dyn_world_new_from_model at the settings
 * dyn_world_settings_for_model gives with timestep, a loaded file's
 * <option timestep> or 0; params ignored); (status, message) of a refusal
 * go into ValueError("...") with the library's message; the package
 * re-raises it as its own error type. */
static int world_init(lx_world *self, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = { "scene", "params", "settings", "timestep", NULL };
  PyObject *sceneobj, *params = Py_None, *settings = Py_None;
  double timestep = 0.0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|OOd", kwlist, &sceneobj, &params, &settings,
                                   &timestep))
    return -1;
  if (self->busy) {
    PyErr_SetString(PyExc_RuntimeError, "the World is stepping in another thread");
    return -1;
  }
  dyn_world_settings s;
  if (settings_from(settings, &s) < 0) return -1;
  char mmsg[512] = "";
  dyn_world *mw = NULL;
  /* a Model (ext_model.c) */
  int solver_given = PyDict_Check(settings) && PyDict_GetItemString(settings, "solver") != NULL;
  int r = lx_model_world(sceneobj, &s, timestep, solver_given, &mw, mmsg, sizeof mmsg);
  if (r <= 0) {
    if (r == DYN_ERR_NOMEM) {
      PyErr_NoMemory();
      return -1;
    }
    if (r < 0) {
      PyErr_SetString(PyExc_ValueError, mmsg[0] ? mmsg : "cannot build the model's world");
      return -1;
    }
    dyn_world_free(self->w);
    self->w = mw;
    return 0;
  }
  const char *scene = PyUnicode_Check(sceneobj) ? PyUnicode_AsUTF8(sceneobj) : NULL;
  if (!scene) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "scene must be a name or a Model");
    return -1;
  }
  Py_ssize_t np = 0;
  const char **pv = lx_param_list(params, &np);
  if (!pv) return -1;
  char msg[512] = "";
  dyn_world *w = NULL;
  dyn_err e = dyn_scene_new(scene, pv, (int)np, &s, &w, msg, sizeof msg);
  PyMem_Free(pv);
  if (e != DYN_OK) {
    if (e == DYN_ERR_NOMEM)
      PyErr_NoMemory();
    else
      PyErr_SetString(PyExc_ValueError, msg[0] ? msg : "cannot build the scene");
    return -1;
  }
  dyn_world_free(self->w);
  self->w = w;
  return 0;
}

/* ---- run ------------------------------------------------------------------------------ */

/* The arrays of World.run: one per column of DYN_METRICS_ARRAYS, int64 for
 * integers, statuses and applied indices, float64 for numbers and times,
 * steps x DYN_WORLD_STAGES for the stage times. */
typedef struct {
  dyn_metric_set cols;
  double *f[DYN_METRIC_SET_MAX];
  long long *i[DYN_METRIC_SET_MAX];
} columns;

static int type_is_int(dyn_metric_type t) {
  return t == DYN_METRIC_INT || t == DYN_METRIC_STATUS || t == DYN_METRIC_APPLIED;
}

/* The step's row of every column (dyn_metric_values). */
static void record(dyn_world *w, const dyn_run_step *st, columns *c, long k) {
  dyn_metric_value v[DYN_METRIC_SET_MAX];
  dyn_metric_values(&c->cols, w, st, v);
  for (int col = 0; col < c->cols.n; col++) {
    dyn_metric_type t = dyn_metric_at(c->cols.col[col])->type;
    if (t == DYN_METRIC_STAGES)
      memcpy(c->f[col] + (size_t)k * DYN_WORLD_STAGES, v[col].stages,
             DYN_WORLD_STAGES * sizeof(double));
    else if (type_is_int(t))
      c->i[col][k] = (long long)v[col].x;
    else
      c->f[col][k] = v[col].none ? NAN : v[col].x;
  }
}

static void trace_step(dyn_world *w, const int *dyn, int nd, double *tr) {
  const dyn_body_state *b = dyn_world_body_states(w);
  for (int j = 0; j < nd; j++) dyn_body_get_state(&b[dyn[j]], tr + DYN_BODY_STATE * (size_t)j);
}

/* The world's settings with the log callback (or none) installed. */
/* The call's callbacks (the log's, the cancel check's) from `from` into the
 * options of the world's solves. */
static int install_callbacks(dyn_world *w, const slv_options *from) {
  dyn_world_settings s = *dyn_world_get_settings(w);
  s.opt.log_level_fn = from->log_level_fn;
  s.opt.log_ctx = from->log_ctx;
  s.opt.log_level = from->log_level;
  s.opt.cancel = from->cancel;
  s.opt.cancel_ctx = from->cancel_ctx;
  if (dyn_world_set_settings(w, &s) != DYN_OK) {
    PyErr_Format(PyExc_RuntimeError, "cannot set the callbacks: %s", dyn_world_message(w));
    return -1;
  }
  return 0;
}

static PyObject *make_columns(npy_intp K, columns *c) {
  PyObject *d = PyDict_New();
  if (dyn_metric_set_init(&c->cols, DYN_METRICS_ARRAYS, NULL, 0) != DYN_OK) Py_CLEAR(d);
  for (int col = 0; d && col < c->cols.n; col++) {
    const dyn_metric_column *mc = dyn_metric_at(c->cols.col[col]);
    npy_intp dims[2] = { K, DYN_WORLD_STAGES };
    int stages = mc->type == DYN_METRIC_STAGES, ints = type_is_int(mc->type);
    PyObject *a = PyArray_ZEROS(stages ? 2 : 1, dims, ints ? NPY_INT64 : NPY_DOUBLE, 0);
    if (!a || PyDict_SetItemString(d, mc->name, a) < 0) Py_CLEAR(d);
    if (a && ints) c->i[col] = PyArray_DATA((PyArrayObject *)a);
    if (a && !ints) c->f[col] = PyArray_DATA((PyArrayObject *)a);
    Py_XDECREF(a);
  }
  return d;
}

/* The dynamic bodies' indices, in world order. */
static int dynamic_bodies(dyn_world *w, int **out) {
  int nb = dyn_world_body_count(w), nd = 0;
  *out = PyMem_Calloc(nb > 0 ? (size_t)nb : 1, sizeof **out);
  if (!*out) return -1;
  for (int i = 0; i < nb; i++)
    if (!dyn_world_body_consts(w)[i].is_static) (*out)[nd++] = i;
  return nd;
}

/* The state of World.run between its steps (dyn_world_run, the library's
 * one step loop): the columns and the trace filled row by row. */
typedef struct run_ctx {
  columns *c;
  double *tr;
  const int *dyn;
  int nd;
  lx_cancel *cancel;
  long k;    /* rows recorded */
  dyn_err e; /* why the world rejected a step (DYN_OK: none) */
} run_ctx;

static int run_step(void *arg, dyn_world *w, const dyn_run_step *st) {
  run_ctx *r = arg;
  if (st->err != DYN_OK) {
    r->e = st->err;
    return 0;
  }
  record(w, st, r->c, r->k);
  if (r->tr) trace_step(w, r->dyn, r->nd, r->tr + (size_t)r->k * DYN_BODY_STATE * (size_t)r->nd);
  r->k++;
  return lx_cancel_check(r->cancel) ? 1 : 0;
}

static PyObject *world_run(lx_world *self, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = { "steps", "trace", "log", "log_level", NULL };
  long K;
  int want_trace = 0, level = SLV_LOG_DEBUG;
  PyObject *logfn = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "l|pOi", kwlist, &K, &want_trace, &logfn, &level))
    return NULL;
  if (!ready(self)) return NULL;
  if (K < 0) {
    PyErr_Format(PyExc_ValueError, "steps=%ld < 0", K);
    return NULL;
  }
  slv_options scratch = slv_options_default(), none = slv_options_default();
  lx_log log;
  lx_cancel cancel;
  if (lx_log_start(&log, logfn, level, &scratch) < 0) return NULL;
  lx_cancel_start(&cancel, &log, &scratch);
  int *dyn = NULL, nd = dynamic_bodies(self->w, &dyn);
  if (nd < 0) return PyErr_NoMemory();
  columns c;
  memset(&c, 0, sizeof c);
  PyObject *cols = make_columns((npy_intp)K, &c), *trace = Py_NewRef(Py_None), *out = NULL;
  if (cols && want_trace) {
    npy_intp dims[3] = { K, nd, DYN_BODY_STATE };
    Py_DECREF(trace);
    trace = PyArray_ZEROS(3, dims, NPY_DOUBLE, 0);
  }
  if (!cols || !trace || install_callbacks(self->w, &scratch) < 0) goto done;
  double *tr = want_trace ? PyArray_DATA((PyArrayObject *)trace) : NULL;
  run_ctx rc = { &c, tr, dyn, nd, &cancel, 0, DYN_OK };
  self->busy = 1;
  Py_BEGIN_ALLOW_THREADS
      /* between steps too: a step without rows solves nothing */
      if (K > 0 && !lx_cancel_check(&cancel)) dyn_world_run(self->w, K, run_step, &rc, NULL);
  Py_END_ALLOW_THREADS self->busy = 0;
  long k = rc.k;
  dyn_err e = rc.e;
  if (install_callbacks(self->w, &none) < 0 || cancel.exc_type) goto done;
  out = Py_BuildValue("{s:O,s:O,s:l,s:i,s:s}", "metrics", cols, "trace", trace, "done", k, "error",
                      (int)e, "message", e == DYN_OK ? "" : dyn_world_message(self->w));
done:
  PyMem_Free(dyn);
  Py_XDECREF(cols);
  Py_XDECREF(trace);
  if (lx_log_finish(&log) < 0) Py_CLEAR(out);
  if (lx_cancel_finish(&cancel) < 0) Py_CLEAR(out); /* KeyboardInterrupt wins */
  return out;
}

/* ---- state ------------------------------------------------------------------------------ */

static PyObject *world_bodies(lx_world *self, PyObject *noargs) {
  (void)noargs;
  if (!ready(self)) return NULL;
  int nb = dyn_world_body_count(self->w);
  npy_intp n = nb, d3[2] = { nb, 3 }, d4[2] = { nb, 4 };
  PyObject *r = PyArray_ZEROS(2, d3, NPY_DOUBLE, 0), *q = PyArray_ZEROS(2, d4, NPY_DOUBLE, 0);
  PyObject *v = PyArray_ZEROS(2, d3, NPY_DOUBLE, 0), *w = PyArray_ZEROS(2, d3, NPY_DOUBLE, 0);
  PyObject *m = PyArray_ZEROS(1, &n, NPY_DOUBLE, 0), *st = PyArray_ZEROS(1, &n, NPY_BOOL, 0);
  PyObject *out = NULL;
  if (r && q && v && w && m && st) {
    const dyn_body_state *b = dyn_world_body_states(self->w);
    const dyn_body_const *bc = dyn_world_body_consts(self->w);
    double *rd = PyArray_DATA((PyArrayObject *)r), *qd = PyArray_DATA((PyArrayObject *)q);
    double *vd = PyArray_DATA((PyArrayObject *)v), *wd = PyArray_DATA((PyArrayObject *)w);
    double *md = PyArray_DATA((PyArrayObject *)m);
    npy_bool *sd = PyArray_DATA((PyArrayObject *)st);
    for (int i = 0; i < nb; i++) {
      double s[DYN_BODY_STATE]; /* r, q, v, w: dyn_body_get_state's layout */
      dyn_body_get_state(&b[i], s);
      memcpy(rd + 3 * (size_t)i, s, 3 * sizeof *s);
      memcpy(qd + 4 * (size_t)i, s + 3, 4 * sizeof *s);
      memcpy(vd + 3 * (size_t)i, s + 7, 3 * sizeof *s);
      memcpy(wd + 3 * (size_t)i, s + 10, 3 * sizeof *s);
      md[i] = bc[i].mass;
      sd[i] = (npy_bool)(bc[i].is_static != 0);
    }
    out = Py_BuildValue("{s:O,s:O,s:O,s:O,s:O,s:O}", "r", r, "q", q, "v", v, "w", w, "mass", m,
                        "is_static", st);
  }
  Py_XDECREF(r);
  Py_XDECREF(q);
  Py_XDECREF(v);
  Py_XDECREF(w);
  Py_XDECREF(m);
  Py_XDECREF(st);
  return out;
}

/* last_problem() -> (problem tuple, x applied), or None before any step
 * with rows */
static PyObject *world_last_problem(lx_world *self, PyObject *noargs) {
  (void)noargs;
  if (!ready(self)) return NULL;
  slv_problem p;
  const double *x = NULL;
  dyn_world_last_problem(self->w, &p, &x);
  if (p.n == 0 || !x) Py_RETURN_NONE;
  PyObject *t = lx_problem_tuple(&p), *xa = t ? lx_vector(p.n, x) : NULL, *out = NULL;
  if (t && xa) out = PyTuple_Pack(2, t, xa);
  Py_XDECREF(t);
  Py_XDECREF(xa);
  return out;
}

/* ---- queries of the last step (docs/scenes.md, "Queries") ----------------------------- */

/* An (n, k) float64 array of the numbers get(c, out) writes per contact. */
typedef void (*contact_part)(const dyn_contact *c, double *out);
static void part_point(const dyn_contact *c, double *o) {
  o[0] = c->p.x, o[1] = c->p.y, o[2] = c->p.z;
}
static void part_normal(const dyn_contact *c, double *o) {
  o[0] = c->normal.x, o[1] = c->normal.y, o[2] = c->normal.z;
}

static PyObject *contact_array(const dyn_contact *c, int n, int k, contact_part get) {
  npy_intp dims[2] = { n, k };
  PyObject *a = PyArray_ZEROS(2, dims, NPY_DOUBLE, 0);
  for (int i = 0; a && i < n; i++) get(&c[i], (double *)PyArray_DATA((PyArrayObject *)a) + k * i);
  return a;
}

/* contacts() -> {"body": (nc, 2) int32, "shape": (nc, 2) int32, "point",
 * "normal": (nc, 3), "depth", "mu", "restitution", "mu_torsion",
 * "mu_rolling": (nc,)} of the last step (dyn_world_contacts) */
static void put_coef(PyObject *d, const dyn_contact *c, int nc, const char *key, int rolling) {
  npy_intp d1 = nc;
  PyObject *a = PyArray_ZEROS(1, &d1, NPY_DOUBLE, 0);
  if (!a) return;
  double *t = PyArray_DATA((PyArrayObject *)a);
  for (int i = 0; i < nc; i++) t[i] = rolling ? c[i].mu_rolling : c[i].mu_torsion;
  PyDict_SetItemString(d, key, a);
  Py_DECREF(a);
}

static PyObject *world_contacts(lx_world *self, PyObject *noargs) {
  (void)noargs;
  if (!ready(self)) return NULL;
  int nc = 0;
  const dyn_contact *c = dyn_world_contacts(self->w, &nc);
  if (dyn_world_step_count(self->w) == 0) nc = 0;
  npy_intp d2[2] = { nc, 2 }, d1 = nc;
  PyObject *body = PyArray_ZEROS(2, d2, NPY_INT32, 0), *shape = PyArray_ZEROS(2, d2, NPY_INT32, 0);
  PyObject *depth = PyArray_ZEROS(1, &d1, NPY_DOUBLE, 0),
           *mu = PyArray_ZEROS(1, &d1, NPY_DOUBLE, 0);
  PyObject *rest = PyArray_ZEROS(1, &d1, NPY_DOUBLE, 0), *out = NULL;
  if (body && shape && depth && mu && rest) {
    npy_int32 *bd = PyArray_DATA((PyArrayObject *)body), *sd = PyArray_DATA((PyArrayObject *)shape);
    double *dd = PyArray_DATA((PyArrayObject *)depth), *md = PyArray_DATA((PyArrayObject *)mu);
    double *rd = PyArray_DATA((PyArrayObject *)rest);
    for (int i = 0; i < nc; i++) {
      bd[2 * i] = c[i].a, bd[2 * i + 1] = c[i].b;
      sd[2 * i] = c[i].sa, sd[2 * i + 1] = c[i].sb;
      dd[i] = c[i].depth, md[i] = c[i].mu, rd[i] = c[i].restitution;
    }
    out = Py_BuildValue("{s:O,s:O,s:N,s:N,s:O,s:O,s:O}", "body", body, "shape", shape, "point",
                        contact_array(c, nc, 3, part_point), "normal",
                        contact_array(c, nc, 3, part_normal), "depth", depth, "mu", mu,
                        "restitution", rest);
    if (out) put_coef(out, c, nc, "mu_torsion", 0);
    if (out) put_coef(out, c, nc, "mu_rolling", 1);
  }
  Py_XDECREF(body);
  Py_XDECREF(shape);
  Py_XDECREF(depth);
  Py_XDECREF(mu);
  Py_XDECREF(rest);
  return out;
}

/* (nb, 6, 6) float64 of the blocks b[36 nb] */
static PyObject *blocks(int nb, const double *b) {
  npy_intp dims[3] = { nb, 6, 6 };
  PyObject *a = PyArray_SimpleNew(3, dims, NPY_DOUBLE);
  if (a && nb > 0) memcpy(PyArray_DATA((PyArrayObject *)a), b, 36 * (size_t)nb * sizeof *b);
  return a;
}

/* step_matrices() -> {"J": (indptr, indices, data, (n, 6 nb)), "M",
 * "Minv": (nb, 6, 6), "cfm", "joint_rows", "rows_per_contact"}
 * (dyn_world_step_matrices_new), or a str: why there is none */
static PyObject *world_step_matrices(lx_world *self, PyObject *noargs) {
  (void)noargs;
  if (!ready(self)) return NULL;
  char msg[512] = "";
  dyn_step_matrices *q = NULL;
  dyn_err e = dyn_world_step_matrices_new(self->w, &q, msg, sizeof msg);
  if (e == DYN_ERR_NOMEM) return PyErr_NoMemory();
  if (e != DYN_OK) return PyUnicode_FromString(msg);
  int nnz = q->Jp[q->n];
  PyObject *out = Py_BuildValue(
      "{s:(NNN(ii)),s:N,s:N,s:N,s:i,s:i}", "J", lx_ivector(q->n + 1, q->Jp), lx_ivector(nnz, q->Jj),
      lx_vector(nnz, q->Jx), q->n, 6 * q->nb, "M", blocks(q->nb, q->M), "Minv",
      blocks(q->nb, q->Minv), "cfm", lx_vector(q->n, q->cfm), "joint_rows", q->joint_rows,
      "rows_per_contact", q->rows_per_contact);
  dyn_step_matrices_free(q);
  return out;
}

/* The last step's global form into *g (exp_world_global) and its
 * contacts' mu into *mu: with condense and joint rows, those rows
 * condensed at the impulses applied (as export --condense-joints), *jr and
 * *ci saying what was condensed. */
static dyn_err global_of(const dyn_world *w, int condense, slv_global_form *g, double **mu, int *jr,
                         slv_condense_global_info *ci, char *msg, size_t len) {
  slv_problem p;
  const double *x = NULL;
  dyn_world_last_problem(w, &p, &x);
  *jr = condense ? dyn_world_last_joint_rows(w) : 0;
  if (*jr > 0 && *jr >= p.n) {
    snprintf(msg, len, "the step has %d joint rows and no contact row: nothing to keep", *jr);
    return DYN_ERR_INPUT;
  }
  return exp_world_global(w, *jr, x, g, mu, ci, msg, len);
}

/* global_form(condense) -> (global tuple (ndof, M indptr, M indices, M
 * data, H indptr, H indices, H data, f, w), n, mu, joint rows condensed,
 * of them eliminated, at a bound) of the last step, or a str: why it has
 * none (with the step's joint rows, which condense would condense) */
static PyObject *world_global_form(lx_world *self, PyObject *args) {
  int condense = 0, jr = 0;
  if (!PyArg_ParseTuple(args, "|p", &condense) || !ready(self)) return NULL;
  char msg[512] = "";
  slv_global_form g;
  double *mu = NULL;
  slv_condense_global_info ci;
  dyn_err e = global_of(self->w, condense, &g, &mu, &jr, &ci, msg, sizeof msg);
  if (e == DYN_ERR_NOMEM) return PyErr_NoMemory();
  if (e != DYN_OK) return Py_BuildValue("(si)", msg, dyn_world_last_joint_rows(self->w));
  PyObject *out = Py_BuildValue("(NiNiii)", lx_global_tuple(&g), g.n, lx_vector(g.n / 3, mu), jr,
                                ci.neliminated, ci.nbound);
  slv_global_form_free(&g);
  free(mu);
  return out;
}

static PyObject *world_energy(lx_world *self, PyObject *noargs) {
  (void)noargs;
  if (!ready(self)) return NULL;
  double ke = 0, pe = 0;
  dyn_world_energy(self->w, &ke, &pe);
  return Py_BuildValue("(dd)", ke, pe);
}

static PyObject *world_get_time(lx_world *self, void *closure) {
  (void)closure;
  return ready(self) ? PyFloat_FromDouble(dyn_world_time(self->w)) : NULL;
}
static PyObject *world_get_steps(lx_world *self, void *closure) {
  (void)closure;
  return ready(self) ? PyLong_FromLong(dyn_world_step_count(self->w)) : NULL;
}
static PyObject *world_get_nbodies(lx_world *self, void *closure) {
  (void)closure;
  return ready(self) ? PyLong_FromLong(dyn_world_body_count(self->w)) : NULL;
}
static PyObject *world_get_solver(lx_world *self, void *closure) {
  (void)closure;
  return ready(self) ? PyUnicode_FromString(dyn_world_get_settings(self->w)->solver) : NULL;
}
static PyObject *world_get_dt(lx_world *self, void *closure) {
  (void)closure;
  return ready(self) ? PyFloat_FromDouble(dyn_world_get_settings(self->w)->dt) : NULL;
}
static PyObject *world_get_gravity(lx_world *self, void *closure) {
  (void)closure;
  if (!ready(self)) return NULL;
  dyn_v3 g = dyn_world_get_settings(self->w)->gravity;
  return Py_BuildValue("(ddd)", g.x, g.y, g.z);
}
/* The settings a model also holds that the World was given over the
 * model's (dyn_world_settings_overrides), in the settings' order. */
static PyObject *world_get_overrides(lx_world *self, void *closure) {
  (void)closure;
  if (!ready(self)) return NULL;
  PyObject *out = PyList_New(0);
  const char *key;
  for (int i = 0; out && (key = dyn_world_settings_key(i)) != NULL; i++) {
    if (!dyn_world_settings_overrides(dyn_world_get_settings(self->w), key)) continue;
    PyObject *u = PyUnicode_FromString(key);
    if (!u || PyList_Append(out, u) < 0) Py_CLEAR(out);
    Py_XDECREF(u);
  }
  if (!out) return NULL;
  PyObject *t = PyList_AsTuple(out);
  Py_DECREF(out);
  return t;
}


/* ---- state and the derivative of a step ------------------------------------------ */

/* (nb, 19) float64: each body's r, q, v, w, f_ext, t_ext. */
static PyObject *body_rows(dyn_world *w) {
  const int nb = dyn_world_body_count(w);
  npy_intp dims[2] = { nb, DYN_BODY_STATE + 6 };
  PyObject *a = PyArray_ZEROS(2, dims, NPY_DOUBLE, 0);
  if (!a) return NULL;
  double *o = PyArray_DATA((PyArrayObject *)a);
  const dyn_body_state *b = dyn_world_body_states(w);
  for (int i = 0; i < nb; i++, o += DYN_BODY_STATE + 6) {
    dyn_body_get_state(&b[i], o);
    double *l = o + DYN_BODY_STATE;
    l[0] = b[i].f_ext.x, l[1] = b[i].f_ext.y, l[2] = b[i].f_ext.z;
    l[3] = b[i].t_ext.x, l[4] = b[i].t_ext.y, l[5] = b[i].t_ext.z;
  }
  return a;
}

/* state() -> (bytes: dyn_world_save_state's, (nb, 19) body rows) */
static PyObject *world_state(lx_world *self, PyObject *noargs) {
  (void)noargs;
  if (!ready(self)) return NULL;
  size_t n = dyn_world_state_size(self->w);
  PyObject *blob = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)n);
  if (!blob) return NULL;
  if (dyn_world_save_state(self->w, PyBytes_AS_STRING(blob), n) != DYN_OK) {
    Py_DECREF(blob);
    PyErr_Format(PyExc_RuntimeError, "cannot save the state: %s", dyn_world_message(self->w));
    return NULL;
  }
  return Py_BuildValue("(NN)", blob, body_rows(self->w));
}

/* Body i's r, q, v, w, f_ext, t_ext from row o (19 finite numbers; q
 * normalised); 0, or -1 with ValueError naming the body. */
static int set_body_row(const dyn_body_const *bc, dyn_body_state *b, int i, const double *o) {
  for (int k = 0; k < DYN_BODY_STATE + 6; k++)
    if (!isfinite(o[k])) {
      PyErr_Format(PyExc_ValueError, "state: body %d, entry %d is %g (not finite)", i, k, o[k]);
      return -1;
    }
  double qn = sqrt(o[3] * o[3] + o[4] * o[4] + o[5] * o[5] + o[6] * o[6]);
  if (qn == 0.0) {
    PyErr_Format(PyExc_ValueError, "state: body %d has a zero quaternion", i);
    return -1;
  }
  if (bc->is_static) return 0;
  double s[DYN_BODY_STATE];
  memcpy(s, o, sizeof s);
  for (int k = 3; k < 7; k++) s[k] /= qn;
  dyn_body_set_state(b, s);
  b->f_ext = dyn_v3_make(o[13], o[14], o[15]);
  b->t_ext = dyn_v3_make(o[16], o[17], o[18]);
  return 0;
}

/* set_state(bytes, rows): the saved state restored
 * (dyn_world_restore_state), then each dynamic body's row written over it */
static PyObject *world_set_state(lx_world *self, PyObject *args) {
  const char *buf;
  Py_ssize_t len;
  PyObject *rows;
  if (!PyArg_ParseTuple(args, "y#O", &buf, &len, &rows) || !ready(self)) return NULL;
  const int nb = dyn_world_body_count(self->w);
  const double *o =
      lx_array_data(rows, NPY_DOUBLE, (npy_intp)nb * (DYN_BODY_STATE + 6), 0, 0, "state bodies");
  if (!o) return NULL;
  for (int i = 0; i < nb; i++) { /* checked on a copy before anything is changed */
    dyn_body_state tmp = dyn_world_body_states(self->w)[i];
    if (set_body_row(&dyn_world_body_consts(self->w)[i], &tmp, i,
                     o + (size_t)i * (DYN_BODY_STATE + 6)) < 0)
      return NULL;
  }
  if (dyn_world_restore_state(self->w, buf, (size_t)len) != DYN_OK) {
    PyErr_Format(PyExc_ValueError, "state: %s", dyn_world_message(self->w));
    return NULL;
  }
  for (int i = 0; i < nb; i++)
    set_body_row(&dyn_world_body_consts(self->w)[i], &dyn_world_body_states(self->w)[i], i,
                 o + (size_t)i * (DYN_BODY_STATE + 6));
  Py_RETURN_NONE;
}

/* (nr, nc) float64 taking over nothing: a copy of J. */
static PyObject *matrix(int nr, int nc, const double *J) {
  npy_intp dims[2] = { nr, nc };
  PyObject *a = PyArray_SimpleNew(2, dims, NPY_DOUBLE);
  if (a && nr > 0 && nc > 0)
    memcpy(PyArray_DATA((PyArrayObject *)a), J, (size_t)nr * nc * sizeof *J);
  return a;
}

/* A step Jacobian's failure e with msg: MemoryError when out of memory,
 * else (reason str, dyn_err) for the Python side to raise. */
static PyObject *jacobian_failure(dyn_err e, const char *msg) {
  if (e == DYN_ERR_NOMEM) return PyErr_NoMemory();
  return Py_BuildValue("(si)", msg, (int)e);
}

/* step_jacobian() -> (dv_du, dv_df, dq_du, dq_df, {rows by mode}) or
 * (reason str, dyn_err) */
static PyObject *world_step_jacobian(lx_world *self, PyObject *noargs) {
  (void)noargs;
  if (!ready(self)) return NULL;
  const int nv = dyn_world_step_jacobian_size(self->w);
  const int nf = dyn_world_step_jacobian_force_size(self->w);
  const size_t q = (size_t)nv * nv, r = (size_t)nv * nf;
  double *M = PyMem_Malloc((2 * q + 2 * r) * sizeof(double) + sizeof(double));
  if (!M) return PyErr_NoMemory();
  char msg[600] = "";
  dyn_step_jacobian_info in;
  memset(&in, 0, sizeof in);
  dyn_err e =
      dyn_world_step_jacobian(self->w, M, M + q, M + q + r, M + 2 * q + r, &in, msg, sizeof msg);
  PyObject *out;
  if (e != DYN_OK)
    out = jacobian_failure(e, msg);
  else
    out = Py_BuildValue("(NNNN{s:i,s:i,s:i,s:i,s:i,s:i,s:d})", matrix(nv, nv, M),
                        matrix(nv, nf, M + q), matrix(nv, nv, M + q + r),
                        matrix(nv, nf, M + 2 * q + r), "rows", in.rows, "free", in.free, "lower",
                        in.lower, "upper", in.upper, "sliding", in.sliding, "degenerate",
                        in.degenerate, "regularized", in.regularized);
  PyMem_Free(M);
  return out;
}

/* step_jacobian_ctrl() -> (dv_dc, dq_dc) or (reason str, dyn_err) */
static PyObject *world_step_jacobian_ctrl(lx_world *self, PyObject *noargs) {
  (void)noargs;
  if (!ready(self)) return NULL;
  const int nv = dyn_world_step_jacobian_size(self->w), nc = dyn_world_ctrl_count(self->w);
  const size_t q = (size_t)nv * nc;
  double *M = PyMem_Malloc(2 * q * sizeof(double) + sizeof(double));
  if (!M) return PyErr_NoMemory();
  char msg[600] = "";
  dyn_err e = dyn_world_step_jacobian_ctrl(self->w, M, M + q, msg, sizeof msg);
  PyObject *out;
  if (e != DYN_OK)
    out = jacobian_failure(e, msg);
  else
    out = Py_BuildValue("(NN)", matrix(nv, nc, M), matrix(nv, nc, M + q));
  PyMem_Free(M);
  return out;
}

/* joint_velocities() -> (ndof,) float64, or None in maximal coordinates */
static PyObject *world_joint_velocities(lx_world *self, PyObject *noargs) {
  (void)noargs;
  if (!ready(self)) return NULL;
  if (!dyn_world_is_reduced(self->w)) Py_RETURN_NONE;
  npy_intp n = dyn_world_joint_velocity_count(self->w);
  PyObject *a = PyArray_ZEROS(1, &n, NPY_DOUBLE, 0);
  if (a) dyn_world_joint_velocities(self->w, PyArray_DATA((PyArrayObject *)a));
  return a;
}

/* set_joint_velocities(u: (ndof,) float64) */
static PyObject *world_set_joint_velocities(lx_world *self, PyObject *args) {
  PyObject *u;
  if (!PyArg_ParseTuple(args, "O", &u) || !ready(self)) return NULL;
  const int n = dyn_world_joint_velocity_count(self->w);
  const double *d = lx_array_data(u, NPY_DOUBLE, n, 0, 0, "joint velocities");
  if (!d) return NULL;
  if (dyn_world_set_joint_velocities(self->w, d) != DYN_OK) {
    PyErr_Format(PyExc_ValueError, "%s", dyn_world_message(self->w));
    return NULL;
  }
  Py_RETURN_NONE;
}

/* ctrl() -> (nu,) float64: the actuators' controls (0 unless set) */
static PyObject *world_ctrl(lx_world *self, PyObject *noargs) {
  (void)noargs;
  if (!ready(self)) return NULL;
  npy_intp n = dyn_world_ctrl_count(self->w);
  PyObject *a = PyArray_ZEROS(1, &n, NPY_DOUBLE, 0);
  if (a && n > 0)
    memcpy(PyArray_DATA((PyArrayObject *)a), dyn_world_ctrl(self->w), (size_t)n * sizeof(double));
  return a;
}

/* set_ctrl(c: 1-D float64, any length): ValueError with the world's message
 * (a wrong length, a non-finite entry: dyn_world_set_ctrl names the index) */
static PyObject *world_set_ctrl(lx_world *self, PyObject *args) {
  PyObject *u;
  if (!PyArg_ParseTuple(args, "O", &u) || !ready(self)) return NULL;
  PyArrayObject *a = (PyArrayObject *)PyArray_FROMANY(u, NPY_DOUBLE, 1, 1, NPY_ARRAY_IN_ARRAY);
  if (!a) return NULL;
  npy_intp n = PyArray_SIZE(a);
  dyn_err e = n > INT32_MAX ? DYN_ERR_INPUT : dyn_world_set_ctrl(self->w, PyArray_DATA(a), (int)n);
  Py_DECREF(a);
  if (e != DYN_OK) {
    PyErr_Format(PyExc_ValueError, "%s",
                 n > INT32_MAX ? "ctrl: too many entries" : dyn_world_message(self->w));
    return NULL;
  }
  Py_RETURN_NONE;
}

static PyMethodDef world_methods[] = {
  { "ctrl", (PyCFunction)world_ctrl, METH_NOARGS, "ctrl() -> (nu,) array" },
  { "set_ctrl", (PyCFunction)world_set_ctrl, METH_VARARGS, "set_ctrl(c)" },
  { "run", (PyCFunction)(void (*)(void))world_run, METH_VARARGS | METH_KEYWORDS,
    "run(steps, trace=False, log=None, log_level=3) -> dict" },
  { "bodies", (PyCFunction)world_bodies, METH_NOARGS, "bodies() -> dict of arrays" },
  { "last_problem", (PyCFunction)world_last_problem, METH_NOARGS,
    "last_problem() -> (problem tuple, x) or None" },
  { "energy", (PyCFunction)world_energy, METH_NOARGS, "energy() -> (kinetic, potential)" },
  { "contacts", (PyCFunction)world_contacts, METH_NOARGS, "contacts() -> dict of arrays" },
  { "step_matrices", (PyCFunction)world_step_matrices, METH_NOARGS,
    "step_matrices() -> dict, or the reason there is none" },
  { "global_form", (PyCFunction)world_global_form, METH_VARARGS,
    "global_form(condense=False) -> (global, n, mu, jr, eliminated, bound), or (reason, jr)" },
  { "state", (PyCFunction)world_state, METH_NOARGS, "state() -> (bytes, (nb, 19) rows)" },
  { "set_state", (PyCFunction)world_set_state, METH_VARARGS, "set_state(bytes, rows)" },
  { "joint_velocities", (PyCFunction)world_joint_velocities, METH_NOARGS,
    "joint_velocities() -> (ndof,) array, or None in maximal coordinates" },
  { "set_joint_velocities", (PyCFunction)world_set_joint_velocities, METH_VARARGS,
    "set_joint_velocities(u)" },
  { "step_jacobian_ctrl", (PyCFunction)world_step_jacobian_ctrl, METH_NOARGS,
    "step_jacobian_ctrl() -> (dv_dc, dq_dc) or (reason, err)" },
  { "step_jacobian", (PyCFunction)world_step_jacobian, METH_NOARGS,
    "step_jacobian() -> (dv_du, dv_df, dq_du, dq_df, modes) or (reason, err)" },
  { NULL, NULL, 0, NULL }
};

static PyGetSetDef world_getset[] = {
  { "time", (getter)world_get_time, NULL, "time (s)", NULL },
  { "step_count", (getter)world_get_steps, NULL, "steps done", NULL },
  { "body_count", (getter)world_get_nbodies, NULL, "bodies", NULL },
  { "solver", (getter)world_get_solver, NULL, "solver name", NULL },
  { "dt", (getter)world_get_dt, NULL, "time step (s)", NULL },
  { "gravity", (getter)world_get_gravity, NULL, "gravity (m/s^2), (x, y, z)", NULL },
  { "overrides", (getter)world_get_overrides, NULL,
    "the settings given over the model's, a tuple of names", NULL },
  { NULL, NULL, NULL, NULL, NULL }
};

PyTypeObject lx_world_type = {
  PyVarObject_HEAD_INIT(NULL, 0).tp_name = "lcplab._lcplab.World",
  .tp_basicsize = sizeof(lx_world),
  .tp_dealloc = (destructor)world_dealloc,
  .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
  .tp_doc = "A libdynamics world built from a named scene (private: use lcplab.World).",
  .tp_methods = world_methods,
  .tp_getset = world_getset,
  .tp_init = (initproc)world_init,
  .tp_new = PyType_GenericNew,
};

/* scenes() -> [(name, summary)] */
PyObject *lx_scenes(PyObject *self, PyObject *args) {
  (void)self;
  (void)args;
  PyObject *list = PyList_New(0);
  for (int i = 0; list && i < dyn_scene_count(); i++) {
    PyObject *t = Py_BuildValue("(ss)", dyn_scene_name(i), dyn_scene_summary(i));
    if (!t || PyList_Append(list, t) < 0) Py_CLEAR(list);
    Py_XDECREF(t);
  }
  return list;
}

/* The columns of World.run's arrays, from libdynamics' metric table
 * (DYN_METRICS_ARRAYS): [(name, type, unit, meaning)], type one of "int",
 * "real", "time", "status", "applied", "stages". */
static PyObject *metric_list(void) {
  static const char *const type_name[] = { "int", "real", "time", "status", "applied", "stages" };
  dyn_metric_set cols;
  if (dyn_metric_set_init(&cols, DYN_METRICS_ARRAYS, NULL, 0) != DYN_OK) {
    PyErr_SetString(PyExc_RuntimeError, "libdynamics' metric table lacks a column of World.run");
    return NULL;
  }
  PyObject *list = PyList_New(0);
  for (int i = 0; list && i < cols.n; i++) {
    const dyn_metric_column *c = dyn_metric_at(cols.col[i]);
    PyObject *t = Py_BuildValue("(ssss)", c->name, type_name[c->type], c->unit, c->meaning);
    if (!t || PyList_Append(list, t) < 0) Py_CLEAR(list);
    Py_XDECREF(t);
  }
  return list;
}

/* names() -> {"stages": [...], "applied": [...], "on_failure": [...],
 * "metrics": [...]}: the world's enum names, read from libdynamics
 * (dyn_world_stage_name, dyn_applied_str, dyn_failure_policy_str), and the
 * columns of World.run (metric_list) */
PyObject *lx_world_names(PyObject *self, PyObject *args) {
  (void)self;
  (void)args;
  PyObject *stages = PyList_New(0), *applied = PyList_New(0), *policies = PyList_New(0);
  PyObject *metrics = metric_list(), *out = NULL;
  int ok = stages && applied && policies && metrics;
  for (int i = 0; ok && i < DYN_WORLD_STAGES; i++) {
    PyObject *u = PyUnicode_FromString(dyn_world_stage_name(i) ? dyn_world_stage_name(i) : "?");
    ok = u && PyList_Append(stages, u) == 0;
    Py_XDECREF(u);
  }
  for (int i = 0; ok && strcmp(dyn_applied_str((dyn_applied)i), "?") != 0; i++) {
    PyObject *u = PyUnicode_FromString(dyn_applied_str((dyn_applied)i));
    ok = u && PyList_Append(applied, u) == 0;
    Py_XDECREF(u);
  }
  for (int i = 0; ok && strcmp(dyn_failure_policy_str((dyn_failure_policy)i), "?") != 0; i++) {
    PyObject *u = PyUnicode_FromString(dyn_failure_policy_str((dyn_failure_policy)i));
    ok = u && PyList_Append(policies, u) == 0;
    Py_XDECREF(u);
  }
  if (ok)
    out = Py_BuildValue("{s:O,s:O,s:O,s:O}", "stages", stages, "applied", applied, "on_failure",
                        policies, "metrics", metrics);
  Py_XDECREF(stages);
  Py_XDECREF(applied);
  Py_XDECREF(policies);
  Py_XDECREF(metrics);
  return out;
}

/* default_steps(scene, dt) -> the steps the scene runs by default: its
 * model's (dyn_model_default_steps; 0 for an unknown scene or dt <= 0) */
PyObject *lx_default_steps(PyObject *self, PyObject *args) {
  (void)self;
  const char *scene;
  double dt;
  if (!PyArg_ParseTuple(args, "sd", &scene, &dt)) return NULL;
  dyn_model *m = NULL;
  long K =
      dyn_scene_model(scene, NULL, 0, &m, NULL, 0) == DYN_OK ? dyn_model_default_steps(m, dt) : 0;
  dyn_model_free(m);
  return PyLong_FromLong(K);
}
