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
#include <stdint.h>
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

/** mpi4py.MPI.Comm, looked up once mpi4py.MPI is loaded (a strong reference, kept). */
static PyObject *comm_type;

/** Whether `o` is an mpi4py communicator (mpi4py.MPI.Comm or a subclass): 1, 0, or -1 with an
 *  exception. mpi4py is not imported here: a program that has not loaded it has none. */
static int is_mpi4py_comm(PyObject *o) {
  if (!comm_type) {
    PyObject *mods = PyImport_GetModuleDict(); /* borrowed */
    PyObject *mod = mods ? PyDict_GetItemString(mods, "mpi4py.MPI") : NULL;
    if (!mod) return 0;
    PyObject *t = PyObject_GetAttrString(mod, "Comm");
    if (!t) {
      PyErr_Clear();
      return 0;
    }
    if (!PyType_Check(t)) {
      Py_DECREF(t);
      return 0;
    }
    comm_type = t;
  }
  return PyObject_IsInstance(o, comm_type);
}

/** The communicator of an mpi4py communicator `o`, by its Fortran handle (py2f(),
 *  MPI_Comm_f2c). Anything else is a TypeError: a plain int is refused, since the same number
 *  names another communicator, or none, in another MPI library. `intra`: an
 *  intercommunicator is refused too (the collectives of Decomp, Halo2D and Plan combine the
 *  ranks of one group). */
static int comm_from(PyObject *o, const char *who, int intra, MPI_Comm *comm) {
  const int ok = is_mpi4py_comm(o);
  if (ok < 0) return -1;
  if (!ok) {
    PyObject *tn = PyType_GetName(Py_TYPE(o));
    PyErr_Format(PyExc_TypeError,
                 "%s: comm must be an mpi4py communicator (mpi4py.MPI.Comm, such as "
                 "MPI.COMM_WORLD), not %S",
                 who, tn ? tn : Py_None);
    Py_XDECREF(tn);
    return -1;
  }
  PyObject *f = PyObject_CallMethod(o, "py2f", NULL);
  if (!f) return -1;
  long h = PyLong_AsLong(f);
  Py_DECREF(f);
  if (h == -1 && PyErr_Occurred()) return -1;
  *comm = MPI_Comm_f2c((MPI_Fint)h);
  if (*comm == MPI_COMM_NULL) {
    PyErr_Format(PyExc_ValueError, "%s: comm is MPI.COMM_NULL", who);
    return -1;
  }
  int inter = 0;
  if (intra && MPI_Comm_test_inter(*comm, &inter) == MPI_SUCCESS && inter) {
    PyErr_Format(PyExc_ValueError,
                 "%s: comm is an intercommunicator; pass an intracommunicator (the ranks of one "
                 "group)",
                 who);
    return -1;
  }
  return 0;
}

/* ---- agreement between ranks ---- */

/* Arguments every rank must give alike (a Decomp's cells and rank grid, a halo's depth, a
 * plan's tag) are compared at construction, and for a Halo2D exchange at the first use of
 * each depth and field count: one MPI_Allreduce(MAX) of a fixed-size record and of its
 * negation gives every rank the largest and smallest value of each entry. Where they differ,
 * or a rank refused its arguments, an MPI_Allgather of the records (on that path only) lets
 * every rank raise an exception naming the argument and the value on each rank, instead of
 * hanging in mismatched messages or running on inconsistent domains. */

#define AGREE_MAX_ARGS 8
#define AGREE_MAX_VALUES 4 /* a tuple's entries compared (global_cells and dims have 1..3) */
#define AGREE_WIDTH (2 + AGREE_MAX_VALUES) /* per argument: form, count, values */
#define AGREE_HEAD 2 /* [0]: this rank refused (0 or 1); [1]: which call (a hash of its name) */
#define AGREE_LEN (AGREE_HEAD + AGREE_MAX_ARGS * AGREE_WIDTH)

enum { AGREE_INT = 1, AGREE_TUPLE = 2, AGREE_NONE = 3 };

typedef struct agreement {
  int nargs;
  const char *name[AGREE_MAX_ARGS];
  int64_t rec[AGREE_LEN]; /**< the same length on every rank, whatever nargs */
} agreement;

static void agree_init(agreement *a) { memset(a, 0, sizeof *a); }

/** One more argument: n values (form AGREE_INT: one; AGREE_NONE: none). */
static void agree_add(agreement *a, const char *name, int form, const int64_t *v, int n) {
  if (a->nargs >= AGREE_MAX_ARGS) return;
  int64_t *r = a->rec + AGREE_HEAD + a->nargs * AGREE_WIDTH;
  a->name[a->nargs++] = name;
  r[0] = form;
  r[1] = n;
  for (int k = 0; k < n && k < AGREE_MAX_VALUES; ++k)
    r[2 + k] = v[k] == INT64_MIN ? INT64_MIN + 1 : v[k]; /* negated below */
}

static void agree_int(agreement *a, const char *name, int64_t v) {
  agree_add(a, name, AGREE_INT, &v, 1);
}

/** Append to `buf` the argument at `r` (form, count, values) as Python would print it. */
static void agree_format(char *buf, size_t size, const int64_t *r) {
  size_t len = strlen(buf);
  const int64_t form = r[0], n = r[1];
  if (form == AGREE_NONE) {
    snprintf(buf + len, size - len, "None");
    return;
  }
  if (form == AGREE_INT) {
    snprintf(buf + len, size - len, "%lld", (long long)r[2]);
    return;
  }
  snprintf(buf + len, size - len, "(");
  for (int64_t k = 0; k < n && k < AGREE_MAX_VALUES; ++k) {
    len = strlen(buf);
    snprintf(buf + len, size - len, "%s%lld", k ? ", " : "", (long long)r[2 + k]);
  }
  len = strlen(buf);
  snprintf(buf + len, size - len, "%s)", n == 1 ? "," : n > AGREE_MAX_VALUES ? ", ..." : "");
}

/** A number for the call `who` names (its first word: Decomp, Halo2D, Halo2D.exchange,
 *  Plan), so that ranks that meet in different collective calls are told apart. */
static int64_t call_id(const char *who) {
  uint64_t h = 1469598103934665603ull; /* FNV-1a */
  for (const char *c = who; *c && *c != ' '; ++c) h = (h ^ (unsigned char)*c) * 1099511628211ull;
  return (int64_t)(h >> 2); /* positive: negated in the reduction */
}

/** A ValueError naming the first argument whose values differ between the ranks' records
 *  `all` (nranks of them), each value with the ranks that gave it; or saying which ranks
 *  are in another call. */
static void agree_mismatch(const char *who, const agreement *a, const int64_t *all, int nranks) {
  for (int q = 0; q < nranks; ++q)
    if (all[(size_t)q * AGREE_LEN + 1] != a->rec[1]) {
      PyErr_Format(PyExc_ValueError,
                   "%s: rank %d is in another collective call of porta.exchange (every rank of "
                   "the communicator makes the same calls in the same order)",
                   who, q);
      return;
    }
  int j = 0;
  for (; j < a->nargs; ++j) {
    const int64_t *first = all + AGREE_HEAD + j * AGREE_WIDTH;
    int same = 1;
    for (int q = 1; q < nranks && same; ++q)
      same = !memcmp(first, all + (size_t)q * AGREE_LEN + AGREE_HEAD + j * AGREE_WIDTH,
                     AGREE_WIDTH * sizeof(int64_t));
    if (!same) break;
  }
  if (j == a->nargs) { /* cannot be: the reduction saw a difference */
    PyErr_Format(PyExc_ValueError, "%s: the ranks' arguments differ", who);
    return;
  }
  char buf[1024] = "";
  int listed = 0;
  char *done = (char *)calloc((size_t)nranks, 1);
  for (int q = 0; q < nranks && done; ++q) {
    if (done[q]) continue;
    const int64_t *v = all + (size_t)q * AGREE_LEN + AGREE_HEAD + j * AGREE_WIDTH;
    size_t len = strlen(buf);
    if (listed == 4) {
      snprintf(buf + len, sizeof buf - len, "; other values on other ranks");
      break;
    }
    snprintf(buf + len, sizeof buf - len, "%s", listed ? "; " : "");
    agree_format(buf, sizeof buf, v);
    int nq = 0;
    for (int p = q; p < nranks; ++p)
      if (!done[p] && !memcmp(v, all + (size_t)p * AGREE_LEN + AGREE_HEAD + j * AGREE_WIDTH,
                              AGREE_WIDTH * sizeof(int64_t))) {
        done[p] = 1;
        len = strlen(buf);
        if (nq < 4)
          snprintf(buf + len, sizeof buf - len, "%s%d", nq ? ", " : " on rank ", p);
        else if (nq == 4)
          snprintf(buf + len, sizeof buf - len, " ...");
        ++nq;
      }
    ++listed;
  }
  free(done);
  PyErr_Format(PyExc_ValueError,
               "%s: %s is not the same on every rank: %s (every rank of the communicator must "
               "pass the same)",
               who, a->name[j], buf);
}

/** Compare this rank's record with every other rank of `comm` (collective; the GIL is
 *  released while MPI waits). 0: every rank agreed and none refused; 1: this rank refused
 *  (`refused`; its own exception is the caller's to raise, and every other rank raises too);
 *  -1 with an exception: another rank refused, the values differ, or MPI failed. */
static int agree_run(MPI_Comm comm, const char *who, agreement *a, int refused) {
  if (refused) memset(a->rec, 0, sizeof a->rec);
  a->rec[0] = refused ? 1 : 0;
  a->rec[1] = call_id(who);
  int64_t both[2 * AGREE_LEN];
  for (int k = 0; k < AGREE_LEN; ++k) {
    both[k] = a->rec[k];
    both[AGREE_LEN + k] = -a->rec[k];
  }
  int rc;
  Py_BEGIN_ALLOW_THREADS;
  rc = MPI_Allreduce(MPI_IN_PLACE, both, 2 * AGREE_LEN, MPI_INT64_T, MPI_MAX, comm);
  Py_END_ALLOW_THREADS;
  if (rc != MPI_SUCCESS) goto mpi_failed;
  const int any_refused = both[0] > 0, all_refused = -both[AGREE_LEN] > 0;
  int differ = 0;
  for (int k = 1; k < AGREE_LEN; ++k) differ |= both[k] != -both[AGREE_LEN + k];
  if (!any_refused && !differ) return 0;
  if (all_refused) return 1; /* each rank raises its own */
  /* every rank takes this path: the reduction's result is the same everywhere */
  int nranks = 1;
  MPI_Comm_size(comm, &nranks);
  int64_t *all = (int64_t *)malloc((size_t)nranks * AGREE_LEN * sizeof(int64_t));
  if (!all) {
    PyErr_NoMemory();
    return -1;
  }
  Py_BEGIN_ALLOW_THREADS;
  rc = MPI_Allgather(a->rec, AGREE_LEN, MPI_INT64_T, all, AGREE_LEN, MPI_INT64_T, comm);
  Py_END_ALLOW_THREADS;
  if (rc != MPI_SUCCESS) {
    free(all);
    goto mpi_failed;
  }
  if (refused) {
    free(all);
    return 1;
  }
  if (any_refused) {
    char ranks[256] = "";
    int nq = 0;
    for (int q = 0; q < nranks; ++q)
      if (all[(size_t)q * AGREE_LEN]) {
        size_t len = strlen(ranks);
        if (nq < 8) snprintf(ranks + len, sizeof ranks - len, "%s%d", nq ? ", " : "", q);
        if (nq == 8) snprintf(ranks + len, sizeof ranks - len, " ...");
        ++nq;
      }
    PyErr_Format(PyExc_ValueError,
                 "%s: refused on rank%s %s (the exception there says why); every rank raises", who,
                 nq > 1 ? "s" : "", ranks);
  } else {
    agree_mismatch(who, a, all, nranks);
  }
  free(all);
  return -1;
mpi_failed : {
  char msg[MPI_MAX_ERROR_STRING] = "";
  int len = 0;
  MPI_Error_string(rc, msg, &len);
  PyErr_Format(api->error, "%s: comparing the arguments of the ranks failed in MPI: %s", who, msg);
  return -1;
}
}

/** agree_run for a C caller whose own checks may have left an exception: it is kept over
 *  the collective and raised again when this rank refused. 0, or -1 with an exception. */
static int agree_after(MPI_Comm comm, const char *who, agreement *a) {
  PyObject *t = NULL, *v = NULL, *tb = NULL;
  const int refused = PyErr_Occurred() != NULL;
  if (refused) PyErr_Fetch(&t, &v, &tb);
  const int r = agree_run(comm, who, a, refused);
  if (r == 1) {
    PyErr_Restore(t, v, tb);
    return -1;
  }
  Py_XDECREF(t);
  Py_XDECREF(v);
  Py_XDECREF(tb);
  return r;
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

/** Put "who: " before the message of the exception being raised (same type). */
static void prefix_error(const char *who) {
  PyObject *t, *v, *tb;
  PyErr_Fetch(&t, &v, &tb);
  PyErr_NormalizeException(&t, &v, &tb);
  PyObject *msg = v ? PyObject_Str(v) : NULL;
  if (msg) {
    PyErr_Format(t, "%s: %U", who, msg);
    Py_DECREF(msg);
    Py_XDECREF(t);
    Py_XDECREF(v);
    Py_XDECREF(tb);
  } else {
    PyErr_Restore(t, v, tb);
  }
}

/** Read the sequence `seq` into fs: every field of `value_size`-byte elements (f64_2d: 2D
 *  float64), writable when `writes` (the exchange stores into it), in memory `exec` reaches.
 *  0, or -1 with an exception. */
static int fields_get(PyObject *seq, int max, size_t value_size, int f64_2d, int writes,
                      porta_exec exec, const char *who, fieldset *fs) {
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
      prefix_error(who);
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
    if (writes && (v.m.traits & PORTA_VIEW_CONST)) {
      PyErr_Format(PyExc_ValueError,
                   "%s: field %zd is read-only; the exchange writes the values it receives "
                   "into it",
                   who, k);
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
    PyErr_Format(PyExc_TypeError, "Decomp: %s must be a tuple or list of integers", what);
    return -1;
  }
  const Py_ssize_t len = PySequence_Size(o);
  if (len < 1 || len > max) {
    PyErr_Format(PyExc_ValueError, "Decomp: %s has %zd entries; 1 to %d are allowed", what, len,
                 max);
    return -1;
  }
  for (Py_ssize_t k = 0; k < len; ++k) {
    PyObject *v = PySequence_GetItem(o, k);
    if (!v) return -1;
    out[k] = PyLong_AsLongLong(v);
    if (out[k] == -1 && PyErr_Occurred()) {
      PyObject *tn = PyType_GetName(Py_TYPE(v));
      PyErr_Clear();
      PyErr_Format(PyExc_TypeError, "Decomp: %s[%zd] must be an integer, not %S", what, k,
                   tn ? tn : Py_None);
      Py_XDECREF(tn);
      Py_DECREF(v);
      return -1;
    }
    Py_DECREF(v);
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
  if (comm_from(comm_o, "Decomp", 1, &comm) < 0) return NULL;
  int64_t glob[PORTA_DECOMP_MAX_DIMS], d64[PORTA_DECOMP_MAX_DIMS];
  int nd = 0, ndd = 0, dims[PORTA_DECOMP_MAX_DIMS];
  if (read_ints(glob_o, "global_cells", glob, PORTA_DECOMP_MAX_DIMS, &nd) < 0) return NULL;
  if (dims_o != Py_None) {
    if (read_ints(dims_o, "dims", d64, PORTA_DECOMP_MAX_DIMS, &ndd) < 0) return NULL;
    if (ndd != nd) {
      PyErr_Format(PyExc_ValueError, "Decomp: dims has %d entries, global_cells %d", ndd, nd);
      return NULL;
    }
    for (int k = 0; k < nd; ++k) {
      if (d64[k] < 1 || d64[k] > 1 << 30) {
        PyErr_Format(PyExc_ValueError, "Decomp: dims[%d] is %lld; it must be positive", k,
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
  int agreed;     /**< an exchange's arguments were compared between the ranks */
  int every;      /**< compare them at every exchange, not only at the first of each */
  uint16_t *seen; /**< [depth]: bit nfields - 1 for each (depth, field count) compared */
} HaloObject;

/** Halo2D(decomp, halo, x_dim, max_fields, tag, every): porta_halo2d_create on the default
 *  space. Local: exchange.py compares the arguments between the ranks (agree()). */
static PyObject *Halo_new(PyTypeObject *tp, PyObject *args, PyObject *kw) {
  static char *names[] = {"decomp", "halo", "x_dim", "max_fields", "tag", "every", NULL};
  PyObject *d_o;
  int halo = 1, x_dim = 1, max_fields = 1, tag = 1000, every = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "O!|iiiip", names, decomp_type, &d_o, &halo, &x_dim,
                                   &max_fields, &tag, &every))
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
  self->live = 1;
  self->seen = (uint16_t *)calloc((size_t)halo + 1, sizeof(uint16_t));
  if (!self->seen) {
    Py_DECREF(self);
    return PyErr_NoMemory();
  }
  self->h.tag = tag;
  self->every = every;
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
  free(o->seen);
  o->seen = NULL;
}

static PyObject *Halo_close(PyObject *self, PyObject *unused) {
  (void)unused;
  Halo_close_((HaloObject *)self);
  Py_RETURN_NONE;
}

/** The checks porta_halo2d_exchange makes before it sends anything (depth, extents, strides,
 *  the neighbours' shares), made here first so that a refusal can be told to the other ranks
 *  at an agreement: 0, or -1 with an exception. */
static int halo_check(const HaloObject *o, const fieldset *fs, int depth, const char *who) {
  const porta_halo2d *h = &o->h;
  if (depth < 1 || depth > h->halo) {
    PyErr_Format(PyExc_ValueError, "%s: depth %d outside 1..%d (the fields' ghost layers)", who,
                 depth, h->halo);
    return -1;
  }
  const int64_t ex = h->d.local[0] + 2 * h->halo, ey = h->d.local[1] + 2 * h->halo;
  const int64_t e0 = h->x_dim == 0 ? ex : ey, e1 = h->x_dim == 0 ? ey : ex;
  const int64_t *s0 = h->built ? h->stride : fs->v[0].m.stride;
  for (int k = 0; k < fs->n; ++k) {
    const porta_view_meta *m = &fs->v[k].m;
    if (m->extent[0] < e0 || m->extent[1] < e1) {
      PyErr_Format(PyExc_ValueError,
                   "%s: field %d has extents %lld x %lld; this rank's halo needs at least %lld x "
                   "%lld (%lld x %lld cells, %d ghost layers each side, x is dimension %d)",
                   who, k, (long long)m->extent[0], (long long)m->extent[1], (long long)e0,
                   (long long)e1, (long long)h->d.local[0], (long long)h->d.local[1], h->halo,
                   h->x_dim);
      return -1;
    }
    if (m->stride[0] != s0[0] || m->stride[1] != s0[1]) {
      PyErr_Format(PyExc_ValueError,
                   "%s: field %d has strides %lld x %lld (elements), the halo's plans are for "
                   "%lld x %lld: every field of one Halo2D has the layout of the first exchanged",
                   who, k, (long long)m->stride[0], (long long)m->stride[1], (long long)s0[0],
                   (long long)s0[1]);
      return -1;
    }
  }
  for (int dim = 0; dim < 2; ++dim)
    if (h->d.dims[dim] > 1 && h->d.global[dim] / h->d.dims[dim] < depth) {
      PyErr_Format(PyExc_ValueError,
                   "%s: depth %d is more than the %lld cells some rank owns along %c", who, depth,
                   (long long)(h->d.global[dim] / h->d.dims[dim]), "xy"[dim]);
      return -1;
    }
  return 0;
}

/** exchange(fields, depth). The first exchange of each depth and field count compares them
 *  between the ranks of the decomposition (one small collective; later ones make none, unless
 *  `every`). */
static PyObject *Halo_exchange(PyObject *self, PyObject *args) {
  HaloObject *o = (HaloObject *)self;
  PyObject *seq;
  int depth = 1;
  if (!PyArg_ParseTuple(args, "O|i", &seq, &depth)) return NULL;
  if (halo_live(o) < 0 || check_ready("Halo2D.exchange") < 0) return NULL;
  fieldset fs;
  const int got = fields_get(seq, o->h.max_fields, 8, 1, 1, o->h.exec, "Halo2D.exchange", &fs) == 0;
  const int known =
      got && !o->every && depth >= 1 && depth <= o->h.halo && ((o->seen[depth] >> (fs.n - 1)) & 1u);
  if (!known) {
    /* a refusal is told to the other ranks while none has exchanged yet, or at every
       exchange with `every` (they all wait at this agreement then); otherwise a rank refuses
       alone, as before, rather than wait for ranks that are exchanging */
    const int ok = got && halo_check(o, &fs, depth, "Halo2D.exchange") == 0;
    if (!ok && o->agreed && !o->every) {
      if (got) fields_release(&fs);
      return NULL;
    }
    agreement a;
    agree_init(&a);
    agree_int(&a, "depth", depth);
    agree_int(&a, "the number of fields", ok ? fs.n : 0);
    if (agree_after(o->h.d.comm, "Halo2D.exchange", &a) < 0) {
      if (got) fields_release(&fs);
      return NULL;
    }
    o->agreed = 1;
    o->seen[depth] |= (uint16_t)(1u << (fs.n - 1));
  }
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

/** prepare(field): collective, as the first exchange (a refusal raises on every rank). */
static PyObject *Halo_prepare(PyObject *self, PyObject *field) {
  HaloObject *o = (HaloObject *)self;
  if (halo_live(o) < 0 || check_ready("Halo2D.prepare") < 0) return NULL;
  PyObject *one = PyTuple_Pack(1, field);
  if (!one) return NULL;
  fieldset fs;
  const int got = fields_get(one, 1, 8, 1, 1, o->h.exec, "Halo2D.prepare", &fs) == 0;
  Py_DECREF(one);
  if (got) halo_check(o, &fs, 1, "Halo2D.prepare");
  agreement a;
  agree_init(&a);
  if (agree_after(o->h.d.comm, "Halo2D.prepare", &a) < 0) {
    if (got) fields_release(&fs);
    return NULL;
  }
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

/** How a field that is not one gapless block is exchanged: its elements, numbered in layout
 *  order (dimensions from the largest stride to the smallest, each index increasing: for
 *  x[::2] element k is x[k]), are the plan's offsets. The values sent are gathered into a
 *  contiguous staging view of the field's memory space and the plan runs on it; the values
 *  received are scattered back, at their offsets only (the field's other elements may change
 *  between start and finish). The host does both, so the field must be in memory it reads. */
typedef struct layout {
  int n;                          /**< dimensions of more than one element */
  int64_t extent[PORTA_MAX_RANK]; /**< fastest (smallest stride) first */
  int64_t stride[PORTA_MAX_RANK]; /**< element strides */
} layout;

/** The layout of `m` (its dimensions of extent > 1, by increasing stride); 1 when its
 *  elements are one gapless block in that order (an offset is then the element's distance
 *  from the first: no staging), 0 when they are not but lie apart (a slice: staged), -1
 *  when two elements share memory or the dimensions interleave (refused). */
static int layout_of(const porta_view_meta *m, layout *L) {
  L->n = 0;
  for (int r = 0; r < m->rank; ++r) {
    if (m->extent[r] == 0) return 1; /* no elements */
    if (m->extent[r] == 1) continue;
    int j = L->n++;
    for (; j > 0 && L->stride[j - 1] > m->stride[r]; --j) {
      L->extent[j] = L->extent[j - 1];
      L->stride[j] = L->stride[j - 1];
    }
    L->extent[j] = m->extent[r];
    L->stride[j] = m->stride[r];
  }
  int gapless = 1;
  int64_t next = 1, reach = 0; /* reach: the farthest element of the dimensions so far */
  for (int j = 0; j < L->n; ++j) {
    if (L->stride[j] <= reach) return -1;
    gapless = gapless && L->stride[j] == next;
    next *= L->extent[j];
    reach += (L->extent[j] - 1) * L->stride[j];
  }
  return gapless;
}

/** The element distance from the field's first element of its element `k` in layout order. */
static inline int64_t layout_offset(const layout *L, int64_t k) {
  int64_t off = 0;
  for (int j = 0; j < L->n; ++j) {
    off += (k % L->extent[j]) * L->stride[j];
    k /= L->extent[j];
  }
  return off;
}

/** Copy the elements at `n` offsets between a field (laid out as L) and its staging buffer
 *  (contiguous): to_stage, stage[o] = field[o in layout order], else the reverse. */
static void stage_copy(unsigned char *field, const layout *L, unsigned char *stage, size_t vs,
                       const int64_t *offsets, int64_t n, int to_stage) {
  for (int64_t i = 0; i < n; ++i) {
    const int64_t o = offsets[i];
    unsigned char *f = field + (size_t)layout_offset(L, o) * vs, *s = stage + (size_t)o * vs;
    if (to_stage)
      memcpy(s, f, vs);
    else
      memcpy(f, s, vs);
  }
}

typedef struct PlanObject {
  PyObject_HEAD porta_exchange *x;
  porta_exec exec;
  size_t value_size;
  int max_fields;
  int started;
  fieldset fs; /**< the exchange in progress */
  /* the offsets as given, for staging strided fields (copies, updated by update()) */
  int64_t *send_index, *recv_index;
  int64_t nsend, nrecv, max_offset; /**< max_offset: -1 when the lists are empty */
  int accumulate;
  porta_view stage[PORTA_EXCHANGE_MAX_FIELDS]; /**< kept for the next exchange */
  layout staged[PORTA_EXCHANGE_MAX_FIELDS];    /**< this exchange's strided fields */
  int is_staged[PORTA_EXCHANGE_MAX_FIELDS];
} PlanObject;

/** The lists from exchange.py's packed bytes: ranks, counts and offsets (int64 each). */
typedef struct lists_buf {
  porta_exchange_lists l;
  int *ranks;
  int64_t nsend, nrecv, max_offset;
} lists_buf;

/** The lists, checked here whole (so that a refusal comes before any message: a plan on a
 *  GPU shakes hands with its neighbours as it is made): counts, offsets not negative, ranks
 *  in the communicator of `nranks` ranks. 0, or -1 with an exception. */
static int lists_get(PyObject *ranks_o, PyObject *sc_o, PyObject *si_o, PyObject *rc_o,
                     PyObject *ri_o, int nranks, const char *who, lists_buf *b) {
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
                 "%s: ranks has %zd entries, send_counts %zd and recv_counts %zd: one per "
                 "neighbour",
                 who, nr, nsc, nrc);
    return -1;
  }
  int64_t ts = 0, tr = 0;
  for (Py_ssize_t k = 0; k < nr; ++k) {
    if (sc[k] < 0 || rcv[k] < 0) {
      PyErr_Format(PyExc_ValueError,
                   "%s: neighbour %zd has a negative count (send %lld, recv %lld)", who, k,
                   (long long)sc[k], (long long)rcv[k]);
      return -1;
    }
    ts += sc[k];
    tr += rcv[k];
  }
  if (ts != nsi || tr != nri) {
    PyErr_Format(PyExc_ValueError,
                 "%s: send_index has %zd offsets and recv_index %zd, but the counts add up to "
                 "%lld and %lld",
                 who, nsi, nri, (long long)ts, (long long)tr);
    return -1;
  }
  int64_t hi = -1;
  for (int side = 0; side < 2; ++side) {
    const int64_t *o = side ? ri : si;
    const Py_ssize_t n = side ? nri : nsi;
    for (Py_ssize_t k = 0; k < n; ++k) {
      if (o[k] < 0) {
        PyErr_Format(PyExc_ValueError, "%s: %s[%zd] is %lld, a negative offset", who,
                     side ? "recv_index" : "send_index", k, (long long)o[k]);
        return -1;
      }
      if (o[k] > hi) hi = o[k];
    }
  }
  for (Py_ssize_t k = 0; k < nr; ++k)
    if (r[k] < 0 || r[k] >= nranks) {
      PyErr_Format(PyExc_ValueError, "%s: ranks[%zd] is %lld, but the communicator has ranks 0..%d",
                   who, k, (long long)r[k], nranks - 1);
      return -1;
    }
  b->ranks = (int *)malloc((size_t)(nr > 0 ? nr : 1) * sizeof(int));
  if (!b->ranks) {
    PyErr_NoMemory();
    return -1;
  }
  for (Py_ssize_t k = 0; k < nr; ++k) b->ranks[k] = (int)r[k];
  b->l.nneighbours = (int)nr;
  b->l.ranks = b->ranks;
  b->l.send_count = sc;
  b->l.send_index = si;
  b->l.recv_count = rcv;
  b->l.recv_index = ri;
  b->nsend = nsi;
  b->nrecv = nri;
  b->max_offset = hi;
  return 0;
}

/** Copies of the lists' offsets (send, then receive), for staging: NULL with an exception. */
static int64_t *lists_copy(const lists_buf *b) {
  int64_t *s = (int64_t *)malloc((size_t)(b->nsend + b->nrecv + 1) * sizeof(int64_t));
  if (!s) {
    PyErr_NoMemory();
    return NULL;
  }
  if (b->nsend) memcpy(s, b->l.send_index, (size_t)b->nsend * sizeof(int64_t));
  if (b->nrecv) memcpy(s + b->nsend, b->l.recv_index, (size_t)b->nrecv * sizeof(int64_t));
  return s;
}

/** The plan's copies of its lists become `s` (from lists_copy(b)). */
static void plan_keep_lists(PlanObject *o, const lists_buf *b, int64_t *s) {
  free(o->send_index);
  o->send_index = s;
  o->recv_index = s + b->nsend;
  o->nsend = b->nsend;
  o->nrecv = b->nrecv;
  o->max_offset = b->max_offset;
}

/** The arguments of Plan() and plan_check(), checked. 0, or -1 with an exception. */
static int plan_args(PyObject *args, PyObject *kw, MPI_Comm *comm, lists_buf *b,
                     Py_ssize_t *value_size, int *max_fields, int *tag, const char **label) {
  static char *names[] = {"comm",        "ranks",      "send_counts", "send_index",
                          "recv_counts", "recv_index", "value_size",  "max_fields",
                          "tag",         "label",      NULL};
  PyObject *comm_o, *r_o, *sc_o, *si_o, *rc_o, *ri_o;
  *value_size = 8;
  *max_fields = 1;
  *tag = 0;
  *label = "plan";
  if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOOOO|niis", names, &comm_o, &r_o, &sc_o, &si_o,
                                   &rc_o, &ri_o, value_size, max_fields, tag, label))
    return -1;
  if (check_ready("Plan") < 0 || comm_from(comm_o, "Plan", 1, comm) < 0) return -1;
  if (*value_size < 4 || *value_size % 4) {
    PyErr_Format(PyExc_ValueError, "Plan %s: value_size %zd is not a positive multiple of 4",
                 *label, *value_size);
    return -1;
  }
  if (*max_fields < 1 || *max_fields > PORTA_EXCHANGE_MAX_FIELDS) {
    PyErr_Format(PyExc_ValueError, "Plan %s: max_fields %d is outside 1..%d", *label, *max_fields,
                 PORTA_EXCHANGE_MAX_FIELDS);
    return -1;
  }
  if (*tag < 0) {
    PyErr_Format(PyExc_ValueError, "Plan %s: tag %d is negative", *label, *tag);
    return -1;
  }
  int nranks = 0;
  MPI_Comm_size(*comm, &nranks);
  char who[96];
  snprintf(who, sizeof who, "Plan %s", *label);
  return lists_get(r_o, sc_o, si_o, rc_o, ri_o, nranks, who, b);
}

/** plan_check(...): Plan's checks alone, nothing made (exchange.py makes them on every rank
 *  before the ranks compare their arguments, and only then the plan). */
static PyObject *ex_plan_check(PyObject *self, PyObject *args, PyObject *kw) {
  (void)self;
  MPI_Comm comm;
  lists_buf b;
  Py_ssize_t value_size;
  int max_fields, tag;
  const char *label;
  if (plan_args(args, kw, &comm, &b, &value_size, &max_fields, &tag, &label) < 0) return NULL;
  free(b.ranks);
  Py_RETURN_NONE;
}

/** Plan(comm, ranks, send_counts, send_index, recv_counts, recv_index, value_size, max_fields,
 *  tag, label): porta_exchange_create on the default space; the lists are packed int64 bytes
 *  (exchange.py). */
static PyObject *Plan_new(PyTypeObject *tp, PyObject *args, PyObject *kw) {
  MPI_Comm comm;
  lists_buf b;
  Py_ssize_t value_size;
  int max_fields, tag;
  const char *label;
  if (plan_args(args, kw, &comm, &b, &value_size, &max_fields, &tag, &label) < 0) return NULL;
  allocfunc alloc = (allocfunc)PyType_GetSlot(tp, Py_tp_alloc);
  PlanObject *self = (PlanObject *)alloc(tp, 0);
  if (!self) {
    free(b.ranks);
    return NULL;
  }
  self->exec = porta_exec_default();
  self->value_size = (size_t)value_size;
  self->max_fields = max_fields;
  int64_t *copy = lists_copy(&b);
  if (!copy) {
    free(b.ranks);
    Py_DECREF(self);
    return NULL;
  }
  plan_keep_lists(self, &b, copy);
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

/** The view the plan runs on for field k: the field itself when it is one gapless block,
 *  else its staging view (made or grown here), with is_staged[k] and staged[k] set. 0, or -1
 *  with an exception. */
static int plan_field(PlanObject *o, int k, const porta_view *v, porta_view *out) {
  const char *who = "Plan.start";
  o->is_staged[k] = 0;
  *out = *v;
  if (o->max_offset < 0) return 0; /* empty lists: nothing read or written */
  layout *L = &o->staged[k];
  const int kind = layout_of(&v->m, L);
  if (kind == 1) return 0;
  if (kind < 0) {
    PyErr_Format(PyExc_ValueError,
                 "%s: field %d's elements overlap or its dimensions interleave (strides of "
                 "%lld, %lld, ... elements); pass a copy (numpy.ascontiguousarray)",
                 who, k, (long long)v->m.stride[0], (long long)v->m.stride[1]);
    return -1;
  }
  const porta_memory_space space = (porta_memory_space)v->m.space;
  if (!porta_space_accessible(PORTA_BACKEND_SERIAL, space)) {
    PyErr_Format(PyExc_ValueError,
                 "%s: field %d is not contiguous (strides of %lld, %lld, ... elements) and in "
                 "%s memory, which the host cannot read to stage it: pass a contiguous array",
                 who, k, (long long)v->m.stride[0], (long long)v->m.stride[1],
                 porta_memory_space_name(space));
    return -1;
  }
  const int64_t size = porta_view_meta_size(&v->m);
  if (o->max_offset >= size) {
    PyErr_Format(PyExc_ValueError,
                 "%s: field %d has %lld elements; the plan needs offsets up to %lld", who, k,
                 (long long)size, (long long)o->max_offset);
    return -1;
  }
  porta_view *s = &o->stage[k];
  const int64_t need = o->max_offset + 1;
  if (s->data && ((porta_memory_space)s->m.space != space || s->m.extent[0] < need ||
                  s->m.value_size != v->m.value_size))
    porta_view_release(s);
  if (!s->data && need > 0) {
    porta_view_options opt;
    memset(&opt, 0, sizeof opt);
    opt.space = space;
    opt.layout = PORTA_LAYOUT_RIGHT;
    opt.flags = PORTA_VIEW_UNINITIALIZED;
    const int rc =
        porta_view_create(s, "plan_stage", (porta_type)v->m.type, v->m.value_size, 1, &need, &opt);
    if (rc != PORTA_SUCCESS) {
      memset(s, 0, sizeof *s);
      raise_rc(rc, who);
      return -1;
    }
  }
  o->is_staged[k] = 1;
  *out = *s;
  return 0;
}

/** Gather (to_stage) the values at `offsets` of every staged field of the exchange. */
static void plan_stage(PlanObject *o, const int64_t *offsets, int64_t n, int to_stage) {
  for (int k = 0; k < o->fs.n; ++k)
    if (o->is_staged[k])
      stage_copy((unsigned char *)o->fs.v[k].data, &o->staged[k], (unsigned char *)o->stage[k].data,
                 o->value_size, offsets, n, to_stage);
}

static PyObject *Plan_start(PyObject *self, PyObject *seq) {
  PlanObject *o = (PlanObject *)self;
  if (plan_live(o) < 0 || check_ready("Plan.start") < 0) return NULL;
  if (o->started) {
    PyErr_SetString(PyExc_RuntimeError, "Plan.start: an exchange is in progress (finish() it)");
    return NULL;
  }
  fieldset fs;
  if (fields_get(seq, o->max_fields, o->value_size, 0, o->nrecv > 0, o->exec, "Plan.start", &fs) <
      0)
    return NULL;
  porta_view run[PORTA_EXCHANGE_MAX_FIELDS];
  int staging = 0;
  for (int k = 0; k < fs.n; ++k) {
    if (plan_field(o, k, &fs.v[k], &run[k]) < 0) {
      fields_release(&fs);
      return NULL;
    }
    staging |= o->is_staged[k];
  }
  o->fs = fs; /* held until finish */
  int rc = PORTA_SUCCESS;
  Py_BEGIN_ALLOW_THREADS;
  if (staging) { /* kernels that wrote the fields are done before the host reads them */
    rc = porta_exec_fence(o->exec, "Plan.start");
    if (rc == PORTA_SUCCESS) plan_stage(o, o->send_index, o->nsend, 1);
  }
  if (rc == PORTA_SUCCESS) rc = porta_exchange_start(o->x, run, fs.n);
  Py_END_ALLOW_THREADS;
  if (rc != PORTA_SUCCESS) {
    fields_release(&o->fs);
    return raise_rc(rc, "Plan.start");
  }
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
  /* an adding unpack adds to the fields' values as they are now */
  if (o->accumulate) plan_stage(o, o->recv_index, o->nrecv, 1);
  rc = porta_exchange_finish(o->x);
  if (rc == PORTA_SUCCESS) rc = porta_exec_fence(o->exec, "Plan.finish");
  if (rc == PORTA_SUCCESS) plan_stage(o, o->recv_index, o->nrecv, 0);
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
  o->accumulate = t;
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
  /* the plan's communicator: its size bounds the ranks (the core checks them against it) */
  lists_buf b;
  if (lists_get(r_o, sc_o, si_o, rc_o, ri_o, 0x7fffffff, "Plan.update", &b) < 0) return NULL;
  int64_t *copy = lists_copy(&b);
  if (!copy) {
    free(b.ranks);
    return NULL;
  }
  int rc;
  Py_BEGIN_ALLOW_THREADS;
  rc = porta_exchange_update(o->x, &b.l);
  Py_END_ALLOW_THREADS;
  free(b.ranks);
  if (rc != PORTA_SUCCESS) {
    free(copy);
    return raise_rc(rc, "Plan.update");
  }
  plan_keep_lists(o, &b, copy);
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
  const int ok = can_free();
  if (o->x) {
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
  for (int k = 0; k < PORTA_EXCHANGE_MAX_FIELDS; ++k)
    if (o->stage[k].data) {
      if (ok) porta_view_release(&o->stage[k]);
      memset(&o->stage[k], 0, sizeof o->stage[k]);
    }
  free(o->send_index);
  o->send_index = o->recv_index = NULL;
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
  if (check_mpi("global_sum") < 0 || comm_from(args[0], "global_sum", 0, &comm) < 0) return NULL;
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

/** check_comm(comm, who): MPI and Porta are ready and comm is an mpi4py intracommunicator
 *  (the checks a rank makes alone, before it can take part in an agreement). */
static PyObject *ex_check_comm(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *comm_o;
  const char *who;
  if (!PyArg_ParseTuple(args, "Os", &comm_o, &who)) return NULL;
  MPI_Comm comm;
  if (check_ready(who) < 0 || comm_from(comm_o, who, 1, &comm) < 0) return NULL;
  Py_RETURN_NONE;
}

/** One argument of agree()'s list: (name, value), the value an int, a tuple or list of ints,
 *  or None. 0, or -1 with an exception. */
static int agree_pair(agreement *a, PyObject *pair) {
  PyObject *name_o, *v;
  if (!PyTuple_Check(pair) || !PyArg_ParseTuple(pair, "UO", &name_o, &v)) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "agree: (name, value) pairs");
    return -1;
  }
  const char *name = PyUnicode_AsUTF8AndSize(name_o, NULL); /* lives with the pairs */
  if (!name) return -1;
  if (v == Py_None) {
    agree_add(a, name, AGREE_NONE, NULL, 0);
    return 0;
  }
  if (PyList_Check(v) || PyTuple_Check(v)) {
    const Py_ssize_t n = PySequence_Size(v);
    int64_t vals[AGREE_MAX_VALUES];
    for (Py_ssize_t k = 0; k < n && k < AGREE_MAX_VALUES; ++k) {
      PyObject *e = PySequence_GetItem(v, k);
      if (!e) return -1;
      vals[k] = PyLong_AsLongLong(e);
      Py_DECREF(e);
      if (vals[k] == -1 && PyErr_Occurred()) return -1;
    }
    agree_add(a, name, AGREE_TUPLE, vals, (int)n);
    return 0;
  }
  const int64_t x = PyLong_AsLongLong(v);
  if (x == -1 && PyErr_Occurred()) return -1;
  agree_int(a, name, x);
  return 0;
}

/** agree(comm, who, refused, pairs): compare the arguments `pairs` ((name, value), ...; at
 *  most 8) of this rank with every other rank of comm, in one MPI_Allreduce (collective).
 *  Returns None when every rank agreed, and when this rank `refused` (it raises its own
 *  exception; the other ranks raise too); raises ValueError when another rank refused or a
 *  value differs (naming the argument and each rank's value). */
static PyObject *ex_agree(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *comm_o, *pairs;
  const char *who;
  int refused;
  if (!PyArg_ParseTuple(args, "OspO!", &comm_o, &who, &refused, &PyTuple_Type, &pairs)) return NULL;
  MPI_Comm comm;
  if (check_mpi(who) < 0 || comm_from(comm_o, who, 1, &comm) < 0) return NULL;
  agreement a;
  agree_init(&a);
  const Py_ssize_t n = PyTuple_Size(pairs);
  if (n > AGREE_MAX_ARGS) {
    PyErr_Format(PyExc_ValueError, "agree: at most %d arguments", AGREE_MAX_ARGS);
    return NULL;
  }
  if (refused) { /* this rank raises its own exception: only the others are told here */
    if (agree_run(comm, who, &a, 1) < 0) return NULL;
    Py_RETURN_NONE;
  }
  for (Py_ssize_t k = 0; k < n; ++k) /* a value that is no integer: this rank refuses */
    if (agree_pair(&a, PyTuple_GetItem(pairs, k)) < 0) break;
  if (agree_after(comm, who, &a) < 0) return NULL;
  Py_RETURN_NONE;
}

static PyMethodDef ex_methods[] = {
    {"check_comm", ex_check_comm, METH_VARARGS,
     "check_comm(comm, who): MPI and Porta ready, comm an mpi4py intracommunicator."},
    {"agree", ex_agree, METH_VARARGS,
     "agree(comm, who, refused, ((name, value), ...)): the ranks compare their arguments "
     "(collective over comm); ValueError on every rank where they differ or a rank refused."},
    {"plan_check", (PyCFunction)(void (*)(void))ex_plan_check, METH_VARARGS | METH_KEYWORDS,
     "plan_check(...): Plan's argument checks, nothing made."},
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
