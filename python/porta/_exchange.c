/** @file _exchange.c
 *  porta._exchange: the exchange library (libporta_exchange, porta/exchange.h) from Python, for
 *  porta.exchange (exchange.py; docs/python.md, "MPI and the exchange plan"). A second
 *  extension, so that importing porta alone does not load MPI. Communicators come from mpi4py
 *  (or anything with py2f()) as Fortran handles, converted by MPI_Comm_f2c: no mpi4py headers.
 *  Fields are read by porta._core's array code (the capsule of _array_api.h), so a porta.View
 *  and every array a kernel accepts work here too. Limited API (3.11).
 *
 *  The types are handles that exchange.py wraps: Decomp (porta_decomp), Halo2D (porta_halo2d)
 *  and Plan (porta_exchange). Every failure is an exception carrying Porta's message; a plan
 *  started holds its fields (their Python objects and buffers) until it is finished.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "_array_api.h"
#include "porta/exchange.h"

static const porta_py_array_api *api;

/* ---- helpers ---- */

/** An exception for a failed Porta call: bad arguments are ValueErrors, the rest
 *  porta.PortaError; the message is Porta's. */
static PyObject *raise_rc(int rc, const char *what) {
  const char *msg = porta_last_error_message();
  PyObject *type = (rc == PORTA_ERROR_INCOMPATIBLE || rc == PORTA_ERROR_INVALID_ARGUMENT)
                       ? PyExc_ValueError
                       : api->error;
  PyErr_Format(type, "%s: %s", what, (msg && msg[0]) ? msg : porta_error_name(rc));
  return NULL;
}

/** MPI is initialised and not finalised (*fin: it was finalised). */
static int mpi_usable(int *fin) {
  int init = 0;
  *fin = 0;
  MPI_Initialized(&init);
  MPI_Finalized(fin);
  return init && !*fin;
}

/** 0 when MPI is initialised and not finalised, else -1 with an exception. */
static int check_mpi(const char *what) {
  int fin;
  if (mpi_usable(&fin)) return 0;
  PyErr_Format(PyExc_RuntimeError,
               "%s: MPI is %s; porta.exchange needs MPI initialised (from mpi4py import MPI "
               "first)",
               what, fin ? "already finalised" : "not initialised");
  return -1;
}

/** 0 when MPI is initialised and not finalised and Porta is initialised, else -1 with an
 *  exception. */
static int check_ready(const char *what) {
  if (check_mpi(what) < 0) return -1;
  if (!porta_is_initialized()) {
    PyErr_Format(PyExc_RuntimeError, "%s: Porta is not initialised (porta.init())", what);
    return -1;
  }
  return 0;
}

/** MPI and Porta can still be called (for destructors, which may run after either ends). */
static int can_free(void) {
  int fin;
  return mpi_usable(&fin) && porta_is_initialized();
}

/** The communicator of an mpi4py Comm (its py2f()) or of a Fortran handle (an int). */
static int comm_from(PyObject *o, MPI_Comm *comm) {
  PyObject *f = NULL;
  if (PyLong_Check(o)) {
    f = o;
    Py_INCREF(f);
  } else {
    f = PyObject_CallMethod(o, "py2f", NULL);
    if (!f) {
      PyErr_Clear();
      PyObject *tn = PyType_GetName(Py_TYPE(o));
      PyErr_Format(PyExc_TypeError, "comm must be an mpi4py communicator (with py2f()), not %S",
                   tn ? tn : Py_None);
      Py_XDECREF(tn);
      return -1;
    }
  }
  long h = PyLong_AsLong(f);
  Py_DECREF(f);
  if (h == -1 && PyErr_Occurred()) return -1;
  *comm = MPI_Comm_f2c((MPI_Fint)h);
  if (*comm == MPI_COMM_NULL) {
    PyErr_SetString(PyExc_ValueError, "comm is MPI.COMM_NULL");
    return -1;
  }
  return 0;
}

/** n int64 values from a bytes object (exchange.py packs the lists); NULL with an exception. */
static const int64_t *i64_bytes(PyObject *o, const char *what, Py_ssize_t *n) {
  char *p = NULL;
  Py_ssize_t len = 0;
  if (!PyBytes_Check(o) || PyBytes_AsStringAndSize(o, &p, &len) < 0 || len % 8) {
    if (!PyErr_Occurred()) PyErr_Format(PyExc_TypeError, "%s: expected packed int64 values", what);
    return NULL;
  }
  *n = len / 8;
  return (const int64_t *)p;
}

/** Fields read through porta._core: views, their holds and the Python objects, held while
 *  a plan's exchange is in progress. */
typedef struct fieldset {
  int n;
  porta_view v[PORTA_EXCHANGE_MAX_FIELDS];
  void *hold[PORTA_EXCHANGE_MAX_FIELDS];
  PyObject *obj[PORTA_EXCHANGE_MAX_FIELDS];
} fieldset;

static void fields_release(fieldset *fs) {
  for (int k = 0; k < fs->n; ++k) {
    api->release(fs->hold[k]);
    Py_XDECREF(fs->obj[k]);
  }
  memset(fs, 0, sizeof *fs);
}

/** Read the sequence `seq` into fs: every field writable, of `value_size`-byte elements
 *  (f64_2d: 2D float64), in memory `exec` reaches. 0, or -1 with an exception. */
static int fields_get(PyObject *seq, int max, size_t value_size, int f64_2d, porta_exec exec,
                      const char *who, fieldset *fs) {
  memset(fs, 0, sizeof *fs);
  if (!PyList_Check(seq) && !PyTuple_Check(seq)) {
    PyErr_Format(PyExc_TypeError, "%s: fields must be a list or tuple of arrays or views", who);
    return -1;
  }
  const Py_ssize_t n = PySequence_Size(seq);
  if (n < 0) return -1;
  if (n < 1 || n > max) {
    PyErr_Format(PyExc_ValueError, "%s: %zd fields given; it takes 1 to %d (max_fields)", who, n,
                 max);
    return -1;
  }
  for (Py_ssize_t k = 0; k < n; ++k) {
    PyObject *o = PySequence_GetItem(seq, k); /* a new reference, kept in fs->obj */
    if (!o) goto fail;
    char what[64];
    snprintf(what, sizeof what, "field %zd", k);
    porta_view v;
    void *hold = NULL;
    if (api->as_view(o, what, &v, &hold) < 0) {
      Py_DECREF(o);
      goto fail;
    }
    fs->v[fs->n] = v;
    fs->hold[fs->n] = hold;
    fs->obj[fs->n] = o;
    fs->n++;
    if (f64_2d && (v.m.type != PORTA_TYPE_F64 || v.m.rank != 2)) {
      PyErr_Format(PyExc_TypeError,
                   "%s: field %zd must be a 2D float64 array or view (it has rank %d and "
                   "%u-byte elements%s)",
                   who, k, (int)v.m.rank, (unsigned)v.m.value_size,
                   v.m.type == PORTA_TYPE_F64 ? ", float64" : ", not float64");
      goto fail;
    }
    if (!f64_2d && v.m.value_size != value_size) {
      PyErr_Format(PyExc_TypeError,
                   "%s: field %zd has %u-byte elements; the plan's value_size is %zu", who, k,
                   (unsigned)v.m.value_size, value_size);
      goto fail;
    }
    if (v.m.traits & PORTA_VIEW_CONST) {
      PyErr_Format(PyExc_ValueError, "%s: field %zd is read-only; an exchange writes into it", who,
                   k);
      goto fail;
    }
    if (!porta_space_accessible(exec.backend, (porta_memory_space)v.m.space)) {
      PyErr_Format(PyExc_TypeError,
                   "%s: field %zd is in memory the %s back end cannot read (space %s): pass a "
                   "view of that back end's space",
                   who, k, porta_backend_name(exec.backend),
                   porta_memory_space_name((porta_memory_space)v.m.space));
      goto fail;
    }
  }
  return 0;
fail:
  fields_release(fs);
  return -1;
}

/* ---- Decomp ---- */

typedef struct DecompObject {
  PyObject_HEAD porta_decomp d;
} DecompObject;

static PyTypeObject *decomp_type;

static int read_ints(PyObject *o, const char *what, int64_t *out, int max, int *n) {
  if (!PyList_Check(o) && !PyTuple_Check(o)) {
    PyErr_Format(PyExc_TypeError, "%s must be a tuple or list of integers", what);
    return -1;
  }
  const Py_ssize_t len = PySequence_Size(o);
  if (len < 1 || len > max) {
    PyErr_Format(PyExc_ValueError, "%s has %zd entries; 1 to %d are allowed", what, len, max);
    return -1;
  }
  for (Py_ssize_t k = 0; k < len; ++k) {
    PyObject *v = PySequence_GetItem(o, k);
    if (!v) return -1;
    out[k] = PyLong_AsLongLong(v);
    Py_DECREF(v);
    if (out[k] == -1 && PyErr_Occurred()) return -1;
  }
  *n = (int)len;
  return 0;
}

/** Decomp(comm, global_cells, dims=None): porta_decomp_create. */
static PyObject *Decomp_new(PyTypeObject *tp, PyObject *args, PyObject *kw) {
  static char *names[] = {"comm", "global_cells", "dims", NULL};
  PyObject *comm_o, *glob_o, *dims_o = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|O", names, &comm_o, &glob_o, &dims_o)) return NULL;
  if (check_ready("Decomp") < 0) return NULL;
  MPI_Comm comm;
  if (comm_from(comm_o, &comm) < 0) return NULL;
  int64_t glob[PORTA_DECOMP_MAX_DIMS], d64[PORTA_DECOMP_MAX_DIMS];
  int nd = 0, ndd = 0, dims[PORTA_DECOMP_MAX_DIMS];
  if (read_ints(glob_o, "global_cells", glob, PORTA_DECOMP_MAX_DIMS, &nd) < 0) return NULL;
  if (dims_o != Py_None) {
    if (read_ints(dims_o, "dims", d64, PORTA_DECOMP_MAX_DIMS, &ndd) < 0) return NULL;
    if (ndd != nd) {
      PyErr_Format(PyExc_ValueError, "dims has %d entries, global_cells %d", ndd, nd);
      return NULL;
    }
    for (int k = 0; k < nd; ++k) {
      if (d64[k] < 1 || d64[k] > 1 << 30) {
        PyErr_Format(PyExc_ValueError, "dims[%d] is %lld; it must be positive", k,
                     (long long)d64[k]);
        return NULL;
      }
      dims[k] = (int)d64[k];
    }
  }
  allocfunc alloc = (allocfunc)PyType_GetSlot(tp, Py_tp_alloc);
  DecompObject *self = (DecompObject *)alloc(tp, 0);
  if (!self) return NULL;
  const int rc = porta_decomp_create(comm, nd, glob, dims_o == Py_None ? NULL : dims, &self->d);
  if (rc != PORTA_SUCCESS) {
    Py_DECREF(self);
    return raise_rc(rc, "Decomp");
  }
  return (PyObject *)self;
}

static PyObject *tuple_i64(const int64_t *v, int n) {
  PyObject *t = PyTuple_New(n);
  for (int k = 0; t && k < n; ++k) PyTuple_SetItem(t, k, PyLong_FromLongLong(v[k]));
  return t;
}
static PyObject *tuple_int(const int *v, int n) {
  PyObject *t = PyTuple_New(n);
  for (int k = 0; t && k < n; ++k) PyTuple_SetItem(t, k, PyLong_FromLong(v[k]));
  return t;
}

/** info(): (rank, nranks, dims, coords, global_cells, offset, local, neighbour). */
static PyObject *Decomp_info(PyObject *self, PyObject *unused) {
  (void)unused;
  const porta_decomp *d = &((DecompObject *)self)->d;
  PyObject *nb = PyTuple_New(d->ndims);
  for (int k = 0; nb && k < d->ndims; ++k)
    PyTuple_SetItem(nb, k,
                    Py_BuildValue("(ii)", d->neighbour[k][PORTA_LOW], d->neighbour[k][PORTA_HIGH]));
  if (!nb) return NULL;
  return Py_BuildValue("(iiNNNNNN)", d->rank, d->nranks, tuple_int(d->dims, d->ndims),
                       tuple_int(d->coords, d->ndims), tuple_i64(d->global, d->ndims),
                       tuple_i64(d->offset, d->ndims), tuple_i64(d->local, d->ndims), nb);
}

static PyMethodDef decomp_methods[] = {{"info", Decomp_info, METH_NOARGS,
                                        "(rank, nranks, dims, coords, global, offset, local, "
                                        "neighbour)."},
                                       {NULL, NULL, 0, NULL}};

static PyType_Slot decomp_slots[] = {{Py_tp_new, Decomp_new},
                                     {Py_tp_methods, decomp_methods},
                                     {Py_tp_doc, "porta_decomp (a handle for porta.exchange)."},
                                     {0, NULL}};
static PyType_Spec decomp_spec = {"porta._exchange.Decomp", sizeof(DecompObject), 0,
                                  Py_TPFLAGS_DEFAULT, decomp_slots};

/* ---- Halo2D ---- */

typedef struct HaloObject {
  PyObject_HEAD porta_halo2d h;
  int live;
} HaloObject;

/** Halo2D(decomp, halo, x_dim, max_fields, tag): porta_halo2d_create on the default space. */
static PyObject *Halo_new(PyTypeObject *tp, PyObject *args, PyObject *kw) {
  static char *names[] = {"decomp", "halo", "x_dim", "max_fields", "tag", NULL};
  PyObject *d_o;
  int halo = 1, x_dim = 1, max_fields = 1, tag = 1000;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "O!|iiii", names, decomp_type, &d_o, &halo, &x_dim,
                                   &max_fields, &tag))
    return NULL;
  if (check_ready("Halo2D") < 0) return NULL;
  if (tag < 0) {
    PyErr_Format(PyExc_ValueError, "Halo2D: tag %d is negative", tag);
    return NULL;
  }
  allocfunc alloc = (allocfunc)PyType_GetSlot(tp, Py_tp_alloc);
  HaloObject *self = (HaloObject *)alloc(tp, 0);
  if (!self) return NULL;
  const int rc = porta_halo2d_create(&self->h, &((DecompObject *)d_o)->d, halo, x_dim, max_fields,
                                     porta_exec_default());
  if (rc != PORTA_SUCCESS) {
    Py_DECREF(self);
    return raise_rc(rc, "Halo2D");
  }
  self->h.tag = tag;
  self->live = 1;
  return (PyObject *)self;
}

static int halo_live(HaloObject *o) {
  if (o->live) return 0;
  PyErr_SetString(PyExc_ValueError, "Halo2D: closed");
  return -1;
}

static void Halo_close_(HaloObject *o) {
  if (o->live && can_free()) porta_halo2d_destroy(&o->h);
  o->live = 0;
}

static PyObject *Halo_close(PyObject *self, PyObject *unused) {
  (void)unused;
  Halo_close_((HaloObject *)self);
  Py_RETURN_NONE;
}

/** exchange(fields, depth) */
static PyObject *Halo_exchange(PyObject *self, PyObject *args) {
  HaloObject *o = (HaloObject *)self;
  PyObject *seq;
  int depth = 1;
  if (!PyArg_ParseTuple(args, "O|i", &seq, &depth)) return NULL;
  if (halo_live(o) < 0 || check_ready("Halo2D.exchange") < 0) return NULL;
  fieldset fs;
  if (fields_get(seq, o->h.max_fields, 8, 1, o->h.exec, "Halo2D.exchange", &fs) < 0) return NULL;
  porta_view_f64 f[PORTA_EXCHANGE_MAX_FIELDS];
  for (int k = 0; k < fs.n; ++k) {
    f[k].data = (double *)fs.v[k].data;
    f[k].m = fs.v[k].m;
  }
  int rc;
  Py_BEGIN_ALLOW_THREADS;
  rc = porta_halo2d_exchange(&o->h, f, fs.n, depth);
  /* The host sees the ghost layers on return; with no neighbour nothing was queued (one
     rank: no device sync per call). */
  int queued = 0;
  for (int dim = 0; dim < 2; ++dim)
    for (int side = 0; side < 2; ++side) queued |= o->h.d.neighbour[dim][side] != MPI_PROC_NULL;
  if (rc == PORTA_SUCCESS && queued) rc = porta_exec_fence(o->h.exec, "Halo2D.exchange");
  Py_END_ALLOW_THREADS;
  fields_release(&fs);
  if (rc != PORTA_SUCCESS) return raise_rc(rc, "Halo2D.exchange");
  Py_RETURN_NONE;
}

/** prepare(field) */
static PyObject *Halo_prepare(PyObject *self, PyObject *field) {
  HaloObject *o = (HaloObject *)self;
  if (halo_live(o) < 0 || check_ready("Halo2D.prepare") < 0) return NULL;
  PyObject *one = PyTuple_Pack(1, field);
  if (!one) return NULL;
  fieldset fs;
  const int r = fields_get(one, 1, 8, 1, o->h.exec, "Halo2D.prepare", &fs);
  Py_DECREF(one);
  if (r < 0) return NULL;
  porta_view_f64 f;
  f.data = (double *)fs.v[0].data;
  f.m = fs.v[0].m;
  int rc;
  Py_BEGIN_ALLOW_THREADS;
  rc = porta_halo2d_prepare(&o->h, &f);
  Py_END_ALLOW_THREADS;
  fields_release(&fs);
  if (rc != PORTA_SUCCESS) return raise_rc(rc, "Halo2D.prepare");
  Py_RETURN_NONE;
}

/** counters(): (messages, bytes) */
static PyObject *Halo_counters(PyObject *self, PyObject *unused) {
  (void)unused;
  const HaloObject *o = (const HaloObject *)self;
  return Py_BuildValue("(LL)", (long long)o->h.messages, (long long)o->h.bytes);
}

static void Halo_dealloc(PyObject *self) {
  Halo_close_((HaloObject *)self);
  PyTypeObject *tp = Py_TYPE(self);
  freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
  f(self);
  Py_DECREF(tp);
}

static PyMethodDef halo_methods[] = {
    {"exchange", Halo_exchange, METH_VARARGS, "exchange(fields, depth): porta_halo2d_exchange."},
    {"prepare", Halo_prepare, METH_O, "prepare(field): porta_halo2d_prepare."},
    {"counters", Halo_counters, METH_NOARGS, "(messages, bytes) sent so far."},
    {"close", Halo_close, METH_NOARGS, "porta_halo2d_destroy."},
    {NULL, NULL, 0, NULL}};

static PyType_Slot halo_slots[] = {{Py_tp_new, Halo_new},
                                   {Py_tp_dealloc, Halo_dealloc},
                                   {Py_tp_methods, halo_methods},
                                   {Py_tp_doc, "porta_halo2d (a handle for porta.exchange)."},
                                   {0, NULL}};
static PyType_Spec halo_spec = {"porta._exchange.Halo2D", sizeof(HaloObject), 0, Py_TPFLAGS_DEFAULT,
                                halo_slots};

/* ---- Plan ---- */

typedef struct PlanObject {
  PyObject_HEAD porta_exchange *x;
  porta_exec exec;
  size_t value_size;
  int max_fields;
  int started;
  fieldset fs; /**< the exchange in progress */
} PlanObject;

/** The lists from exchange.py's packed bytes: ranks, counts and offsets (int64 each). */
typedef struct lists_buf {
  porta_exchange_lists l;
  int *ranks;
} lists_buf;

static int lists_get(PyObject *ranks_o, PyObject *sc_o, PyObject *si_o, PyObject *rc_o,
                     PyObject *ri_o, lists_buf *b) {
  memset(b, 0, sizeof *b);
  Py_ssize_t nr, nsc, nsi, nrc, nri;
  const int64_t *r = i64_bytes(ranks_o, "ranks", &nr);
  const int64_t *sc = r ? i64_bytes(sc_o, "send_counts", &nsc) : NULL;
  const int64_t *si = sc ? i64_bytes(si_o, "send_index", &nsi) : NULL;
  const int64_t *rcv = si ? i64_bytes(rc_o, "recv_counts", &nrc) : NULL;
  const int64_t *ri = rcv ? i64_bytes(ri_o, "recv_index", &nri) : NULL;
  if (!ri) return -1;
  if (nsc != nr || nrc != nr) {
    PyErr_Format(PyExc_ValueError,
                 "ranks has %zd entries, send_counts %zd and recv_counts %zd: one per neighbour",
                 nr, nsc, nrc);
    return -1;
  }
  int64_t ts = 0, tr = 0;
  for (Py_ssize_t k = 0; k < nr; ++k) {
    if (sc[k] < 0 || rcv[k] < 0) {
      PyErr_Format(PyExc_ValueError, "neighbour %zd has a negative count (send %lld, recv %lld)", k,
                   (long long)sc[k], (long long)rcv[k]);
      return -1;
    }
    ts += sc[k];
    tr += rcv[k];
  }
  if (ts != nsi || tr != nri) {
    PyErr_Format(PyExc_ValueError,
                 "send_index has %zd offsets and recv_index %zd, but the counts add up to %lld "
                 "and %lld",
                 nsi, nri, (long long)ts, (long long)tr);
    return -1;
  }
  b->ranks = (int *)malloc((size_t)(nr > 0 ? nr : 1) * sizeof(int));
  if (!b->ranks) {
    PyErr_NoMemory();
    return -1;
  }
  for (Py_ssize_t k = 0; k < nr; ++k) {
    if (r[k] < 0 || r[k] > 0x7fffffff) {
      PyErr_Format(PyExc_ValueError, "ranks[%zd] is %lld, not a rank", k, (long long)r[k]);
      free(b->ranks);
      b->ranks = NULL;
      return -1;
    }
    b->ranks[k] = (int)r[k];
  }
  b->l.nneighbours = (int)nr;
  b->l.ranks = b->ranks;
  b->l.send_count = sc;
  b->l.send_index = si;
  b->l.recv_count = rcv;
  b->l.recv_index = ri;
  return 0;
}

/** Plan(comm, ranks, send_counts, send_index, recv_counts, recv_index, value_size, max_fields,
 *  tag, label): porta_exchange_create on the default space; the lists are packed int64 bytes
 *  (exchange.py). */
static PyObject *Plan_new(PyTypeObject *tp, PyObject *args, PyObject *kw) {
  static char *names[] = {"comm",        "ranks",      "send_counts", "send_index",
                          "recv_counts", "recv_index", "value_size",  "max_fields",
                          "tag",         "label",      NULL};
  PyObject *comm_o, *r_o, *sc_o, *si_o, *rc_o, *ri_o;
  Py_ssize_t value_size = 8;
  int max_fields = 1, tag = 0;
  const char *label = "plan";
  if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOOOO|niis", names, &comm_o, &r_o, &sc_o, &si_o,
                                   &rc_o, &ri_o, &value_size, &max_fields, &tag, &label))
    return NULL;
  if (check_ready("Plan") < 0) return NULL;
  MPI_Comm comm;
  if (comm_from(comm_o, &comm) < 0) return NULL;
  if (value_size < 4 || value_size % 4) {
    PyErr_Format(PyExc_ValueError, "Plan %s: value_size %zd is not a positive multiple of 4", label,
                 value_size);
    return NULL;
  }
  if (max_fields < 1 || max_fields > PORTA_EXCHANGE_MAX_FIELDS) {
    PyErr_Format(PyExc_ValueError, "Plan %s: max_fields %d is outside 1..%d", label, max_fields,
                 PORTA_EXCHANGE_MAX_FIELDS);
    return NULL;
  }
  if (tag < 0) {
    PyErr_Format(PyExc_ValueError, "Plan %s: tag %d is negative", label, tag);
    return NULL;
  }
  lists_buf b;
  if (lists_get(r_o, sc_o, si_o, rc_o, ri_o, &b) < 0) return NULL;
  int nranks = 0;
  MPI_Comm_size(comm, &nranks);
  for (int k = 0; k < b.l.nneighbours; ++k)
    if (b.ranks[k] >= nranks) {
      PyErr_Format(PyExc_ValueError, "Plan %s: ranks[%d] is %d, but the communicator has %d ranks",
                   label, k, b.ranks[k], nranks);
      free(b.ranks);
      return NULL;
    }
  allocfunc alloc = (allocfunc)PyType_GetSlot(tp, Py_tp_alloc);
  PlanObject *self = (PlanObject *)alloc(tp, 0);
  if (!self) {
    free(b.ranks);
    return NULL;
  }
  self->exec = porta_exec_default();
  self->value_size = (size_t)value_size;
  self->max_fields = max_fields;
  int rc;
  Py_BEGIN_ALLOW_THREADS;
  rc = porta_exchange_create(&self->x, label, comm, &b.l, (size_t)value_size, max_fields,
                             self->exec, tag);
  Py_END_ALLOW_THREADS;
  free(b.ranks);
  if (rc != PORTA_SUCCESS) {
    self->x = NULL;
    Py_DECREF(self);
    return raise_rc(rc, "Plan");
  }
  return (PyObject *)self;
}

static int plan_live(PlanObject *o) {
  if (o->x) return 0;
  PyErr_SetString(PyExc_ValueError, "Plan: closed");
  return -1;
}

static PyObject *Plan_start(PyObject *self, PyObject *seq) {
  PlanObject *o = (PlanObject *)self;
  if (plan_live(o) < 0 || check_ready("Plan.start") < 0) return NULL;
  if (o->started) {
    PyErr_SetString(PyExc_RuntimeError, "Plan.start: an exchange is in progress (finish() it)");
    return NULL;
  }
  fieldset fs;
  if (fields_get(seq, o->max_fields, o->value_size, 0, o->exec, "Plan.start", &fs) < 0) return NULL;
  int rc;
  Py_BEGIN_ALLOW_THREADS;
  rc = porta_exchange_start(o->x, fs.v, fs.n);
  Py_END_ALLOW_THREADS;
  if (rc != PORTA_SUCCESS) {
    fields_release(&fs);
    return raise_rc(rc, "Plan.start");
  }
  o->fs = fs; /* held until finish */
  o->started = 1;
  Py_RETURN_NONE;
}

static PyObject *Plan_finish(PyObject *self, PyObject *unused) {
  (void)unused;
  PlanObject *o = (PlanObject *)self;
  if (plan_live(o) < 0 || check_ready("Plan.finish") < 0) return NULL;
  if (!o->started) {
    PyErr_SetString(PyExc_RuntimeError, "Plan.finish: no exchange in progress (start() first)");
    return NULL;
  }
  int rc;
  Py_BEGIN_ALLOW_THREADS;
  rc = porta_exchange_finish(o->x);
  if (rc == PORTA_SUCCESS) rc = porta_exec_fence(o->exec, "Plan.finish");
  Py_END_ALLOW_THREADS;
  o->started = 0;
  fields_release(&o->fs);
  if (rc != PORTA_SUCCESS) return raise_rc(rc, "Plan.finish");
  Py_RETURN_NONE;
}

static PyObject *Plan_run(PyObject *self, PyObject *seq) {
  PyObject *r = Plan_start(self, seq);
  if (!r) return NULL;
  Py_DECREF(r);
  return Plan_finish(self, NULL);
}

static PyObject *Plan_set_accumulate(PyObject *self, PyObject *on) {
  PlanObject *o = (PlanObject *)self;
  if (plan_live(o) < 0) return NULL;
  const int t = PyObject_IsTrue(on);
  if (t < 0) return NULL;
  const int rc = porta_exchange_set_accumulate(o->x, t);
  if (rc != PORTA_SUCCESS) return raise_rc(rc, "Plan.set_accumulate");
  Py_RETURN_NONE;
}

static PyObject *Plan_update(PyObject *self, PyObject *args) {
  PlanObject *o = (PlanObject *)self;
  PyObject *r_o, *sc_o, *si_o, *rc_o, *ri_o;
  if (!PyArg_ParseTuple(args, "OOOOO", &r_o, &sc_o, &si_o, &rc_o, &ri_o)) return NULL;
  if (plan_live(o) < 0 || check_ready("Plan.update") < 0) return NULL;
  if (o->started) {
    PyErr_SetString(PyExc_RuntimeError, "Plan.update: an exchange is in progress (finish() it)");
    return NULL;
  }
  lists_buf b;
  if (lists_get(r_o, sc_o, si_o, rc_o, ri_o, &b) < 0) return NULL;
  int rc;
  Py_BEGIN_ALLOW_THREADS;
  rc = porta_exchange_update(o->x, &b.l);
  Py_END_ALLOW_THREADS;
  free(b.ranks);
  if (rc != PORTA_SUCCESS) return raise_rc(rc, "Plan.update");
  Py_RETURN_NONE;
}

static PyObject *Plan_transport(PyObject *self, PyObject *unused) {
  (void)unused;
  PlanObject *o = (PlanObject *)self;
  if (plan_live(o) < 0) return NULL;
  return PyUnicode_FromString(porta_exchange_transport(o->x));
}

static PyObject *Plan_stats(PyObject *self, PyObject *unused) {
  (void)unused;
  PlanObject *o = (PlanObject *)self;
  if (plan_live(o) < 0) return NULL;
  int64_t m = 0, b = 0;
  porta_exchange_stats(o->x, &m, &b);
  return Py_BuildValue("(LL)", (long long)m, (long long)b);
}

static PyObject *Plan_totals(PyObject *self, PyObject *unused) {
  (void)unused;
  PlanObject *o = (PlanObject *)self;
  if (plan_live(o) < 0) return NULL;
  return Py_BuildValue("(LL)", (long long)porta_exchange_send_total(o->x),
                       (long long)porta_exchange_recv_total(o->x));
}

static void Plan_close_(PlanObject *o) {
  if (!o->x) return;
  const int ok = can_free();
  if (o->started && ok) {
    Py_BEGIN_ALLOW_THREADS;
    porta_exchange_finish(o->x); /* messages in flight must land before the buffers go */
    porta_exec_fence(o->exec, "Plan.close");
    Py_END_ALLOW_THREADS;
  }
  o->started = 0;
  fields_release(&o->fs);
  if (ok) porta_exchange_destroy(o->x); /* after MPI_Finalize or porta_finalize: left */
  o->x = NULL;
}

static PyObject *Plan_close(PyObject *self, PyObject *unused) {
  (void)unused;
  Plan_close_((PlanObject *)self);
  Py_RETURN_NONE;
}

static void Plan_dealloc(PyObject *self) {
  Plan_close_((PlanObject *)self);
  PyTypeObject *tp = Py_TYPE(self);
  freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
  f(self);
  Py_DECREF(tp);
}

static PyMethodDef plan_methods[] = {
    {"start", Plan_start, METH_O, "start(fields): porta_exchange_start."},
    {"finish", Plan_finish, METH_NOARGS, "porta_exchange_finish, then a fence."},
    {"run", Plan_run, METH_O, "run(fields): start + finish."},
    {"set_accumulate", Plan_set_accumulate, METH_O, "porta_exchange_set_accumulate."},
    {"update", Plan_update, METH_VARARGS, "porta_exchange_update (packed lists)."},
    {"transport", Plan_transport, METH_NOARGS, "porta_exchange_transport."},
    {"stats", Plan_stats, METH_NOARGS, "(messages, bytes): porta_exchange_stats."},
    {"totals", Plan_totals, METH_NOARGS, "(send_total, recv_total) values per field."},
    {"close", Plan_close, METH_NOARGS, "porta_exchange_destroy."},
    {NULL, NULL, 0, NULL}};

static PyType_Slot plan_slots[] = {{Py_tp_new, Plan_new},
                                   {Py_tp_dealloc, Plan_dealloc},
                                   {Py_tp_methods, plan_methods},
                                   {Py_tp_doc, "porta_exchange (a handle for porta.exchange)."},
                                   {0, NULL}};
static PyType_Spec plan_spec = {"porta._exchange.Plan", sizeof(PlanObject), 0, Py_TPFLAGS_DEFAULT,
                                plan_slots};

/* ---- global sums ---- */

/** Most values in one global_sum (a tuple's worth: the field summary sums 4). */
#define GLOBAL_SUM_MAX_VALUES 16

/** global_sum(comm, *values): the sums over comm's ranks of float values, in one
 *  MPI_Allreduce(MPI_SUM) of doubles, as the C apps' (app_sum_allreduce). One value gives a
 *  float, several a tuple. The GIL is released while MPI waits. */
static PyObject *ex_global_sum(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
  (void)self;
  if (nargs < 2 || nargs - 1 > GLOBAL_SUM_MAX_VALUES) {
    PyErr_Format(PyExc_TypeError, "global_sum(comm, value, ...) takes 1 to %d values, got %zd",
                 GLOBAL_SUM_MAX_VALUES, nargs < 1 ? (Py_ssize_t)0 : nargs - 1);
    return NULL;
  }
  const int n = (int)(nargs - 1);
  double v[GLOBAL_SUM_MAX_VALUES];
  for (int k = 0; k < n; ++k) {
    v[k] = PyFloat_AsDouble(args[1 + k]);
    if (v[k] == -1.0 && PyErr_Occurred()) {
      PyErr_Clear();
      PyObject *tn = PyType_GetName(Py_TYPE(args[1 + k]));
      PyErr_Format(PyExc_TypeError, "global_sum: value %d must be a number, not %S", k + 1,
                   tn ? tn : Py_None);
      Py_XDECREF(tn);
      return NULL;
    }
  }
  MPI_Comm comm;
  if (check_mpi("global_sum") < 0 || comm_from(args[0], &comm) < 0) return NULL;
  int rc;
  Py_BEGIN_ALLOW_THREADS;
  rc = MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_SUM, comm);
  Py_END_ALLOW_THREADS;
  if (rc != MPI_SUCCESS) {
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    PyErr_Format(api->error, "global_sum: MPI_Allreduce of %d value(s) failed: %s", n, msg);
    return NULL;
  }
  if (n == 1) return PyFloat_FromDouble(v[0]);
  PyObject *t = PyTuple_New(n);
  for (int k = 0; t && k < n; ++k) {
    PyObject *f = PyFloat_FromDouble(v[k]);
    if (!f) {
      Py_DECREF(t);
      return NULL;
    }
    PyTuple_SetItem(t, k, f);
  }
  return t;
}

/* ---- module ---- */

static PyObject *ex_transports_used(PyObject *self, PyObject *unused) {
  (void)self;
  (void)unused;
  char buf[256];
  porta_exchange_transports_used(buf, sizeof buf);
  return PyUnicode_FromString(buf);
}

static PyMethodDef ex_methods[] = {
    {"transports_used", ex_transports_used, METH_NOARGS, "porta_exchange_transports_used."},
    {"global_sum", (PyCFunction)(void (*)(void))ex_global_sum, METH_FASTCALL,
     "global_sum(comm, value, ...): the sums over the ranks of comm (mpi4py's) of 1 to 16 "
     "numbers, in one MPI_Allreduce(MPI_SUM) of doubles made in C, as the C apps make theirs: a "
     "float for one value, a tuple for several. The same bits as mpi4py's Allreduce of a float64 "
     "buffer, without its buffer round trip (CG waits on two global sums an iteration)."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef ex_module = {PyModuleDef_HEAD_INIT,
                                       "porta._exchange",
                                       "Porta's exchange library (limited API).",
                                       -1,
                                       ex_methods,
                                       NULL,
                                       NULL,
                                       NULL,
                                       NULL};

static int add_type(PyObject *m, PyType_Spec *spec, const char *name, PyTypeObject **out) {
  PyTypeObject *t = (PyTypeObject *)PyType_FromSpec(spec);
  if (!t) return -1;
  if (out) {
    Py_INCREF((PyObject *)t);
    *out = t;
  }
  if (PyModule_AddObject(m, name, (PyObject *)t) < 0) {
    Py_DECREF((PyObject *)t);
    return -1;
  }
  return 0;
}

PyMODINIT_FUNC PyInit__exchange(void) {
  api = porta_py_array_api_import();
  if (!api) return NULL;
  PyObject *m = PyModule_Create(&ex_module);
  if (!m) return NULL;
  if (add_type(m, &decomp_spec, "Decomp", &decomp_type) < 0 ||
      add_type(m, &halo_spec, "Halo2D", NULL) < 0 || add_type(m, &plan_spec, "Plan", NULL) < 0 ||
      PyModule_AddIntConstant(m, "MAX_FIELDS", PORTA_EXCHANGE_MAX_FIELDS) < 0 ||
      PyModule_AddIntConstant(m, "PROC_NULL", MPI_PROC_NULL) < 0 ||
      PyModule_AddIntConstant(m, "LOW", PORTA_LOW) < 0 ||
      PyModule_AddIntConstant(m, "HIGH", PORTA_HIGH) < 0) {
    Py_DECREF(m);
    return NULL;
  }
  return m;
}
