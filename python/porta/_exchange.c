/** @file _exchange.c
 *  porta._exchange: the exchange library (libporta_exchange, porta/exchange.h) from Python, for
 *  porta.exchange (exchange.py; docs/python.md, "MPI and the exchange plan"). A second
 *  extension, so that importing porta alone does not load MPI. Communicators must be mpi4py's
 *  (mpi4py.MPI.Comm), read as Fortran handles (py2f(), MPI_Comm_f2c): no mpi4py headers.
 *  Fields are read by porta._core's array code (the capsule of _array_api.h), so a porta.View
 *  and every array a kernel accepts work here too. Limited API (3.11).
 *
 *  The types are handles that exchange.py wraps: Decomp (porta_decomp, _exchange_decomp.c),
 *  Halo2D (porta_halo2d, _exchange_halo.c) and Plan (porta_exchange, _exchange_plan.c); the
 *  ranks compare their arguments in _exchange_agree.c (_exchange_private.h has what the files
 *  share). Every failure is an exception carrying Porta's message; a plan started holds its
 *  fields (their Python objects and buffers) until it is finished.
 *
 *  This file: the module, whether MPI and Porta are ready, communicators, global sums.
 */
#include "_exchange_private.h"

const porta_py_array_api *pyex_api;

/* ---- MPI, Porta and communicators ---- */

/** An exception for a failed Porta call: bad arguments are ValueErrors, the rest
 *  porta.PortaError; the message is Porta's. */
PyObject *pyex_raise_rc(int rc, const char *what) {
  const char *msg = porta_last_error_message();
  PyObject *type = (rc == PORTA_ERROR_INCOMPATIBLE || rc == PORTA_ERROR_INVALID_ARGUMENT)
                       ? PyExc_ValueError
                       : pyex_api->error;
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
int pyex_check_mpi(const char *what) {
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
int pyex_check_ready(const char *what) {
  if (pyex_check_mpi(what) < 0) return -1;
  if (!porta_is_initialized()) {
    PyErr_Format(PyExc_RuntimeError, "%s: Porta is not initialised (porta.init())", what);
    return -1;
  }
  return 0;
}

/** MPI and Porta can still be called (for destructors, which may run after either ends). */
int pyex_can_free(void) {
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
int pyex_comm_from(PyObject *o, const char *who, int intra, MPI_Comm *comm) {
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

/* ---- global sums ---- */

/** Most values in one global_sum (a tuple's worth: the field summary sums 4). */
#define GLOBAL_SUM_MAX_VALUES 16

/** The values of a global sum from `args` (nargs of them) into v; n is their number. 0, or -1
 *  with a TypeError (this rank refuses: the other ranks are told at the sum). */
static int global_sum_values(PyObject *const *args, Py_ssize_t nargs, double *v, int *n) {
  *n = 0;
  if (nargs < 1 || nargs > GLOBAL_SUM_MAX_VALUES) {
    PyErr_Format(PyExc_TypeError, "global_sum(comm, value, ...) takes 1 to %d values, got %zd",
                 GLOBAL_SUM_MAX_VALUES, nargs);
    return -1;
  }
  for (int k = 0; k < (int)nargs; ++k) {
    v[k] = PyFloat_AsDouble(args[k]);
    if (v[k] == -1.0 && PyErr_Occurred()) {
      PyErr_Clear();
      PyObject *tn = PyType_GetName(Py_TYPE(args[k]));
      PyErr_Format(PyExc_TypeError, "global_sum: value %d must be a number, not %S", k + 1,
                   tn ? tn : Py_None);
      Py_XDECREF(tn);
      return -1;
    }
  }
  *n = (int)nargs;
  return 0;
}

/** global_sum(comm, *values): the sums over comm's ranks of float values, in one
 *  MPI_Allreduce(MPI_SUM) of doubles, as the C apps' (app_sum_allreduce). One value gives a
 *  float, several a tuple. The GIL is released while MPI waits.
 *
 *  The reduction always has GLOBAL_SUM_MAX_VALUES + 3 doubles (the values, zeros after them,
 *  then n, n * n and whether this rank refused its values), so that ranks passing different
 *  numbers of values meet in one reduction: the ranks' n are all alike exactly when
 *  nranks * sum(n * n) == sum(n)^2, which every rank computes alike from the sums. Where they
 *  differ, or a rank refused, the ranks compare n (_exchange_agree.c: on that path only) and
 *  every rank raises, naming each rank's number of values. */
static PyObject *ex_global_sum(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
  (void)self;
  if (nargs < 1) {
    PyErr_Format(PyExc_TypeError, "global_sum(comm, value, ...) takes 1 to %d values, got 0",
                 GLOBAL_SUM_MAX_VALUES);
    return NULL;
  }
  MPI_Comm comm;
  if (pyex_check_mpi("global_sum") < 0 || pyex_comm_from(args[0], "global_sum", 0, &comm) < 0)
    return NULL;
  enum { N = GLOBAL_SUM_MAX_VALUES, LEN = GLOBAL_SUM_MAX_VALUES + 3 };
  double v[LEN] = {0};
  int n;
  const int refused = global_sum_values(args + 1, nargs - 1, v, &n) < 0;
  v[N] = n;
  v[N + 1] = (double)n * n;
  v[N + 2] = refused;
  int rc, inter = 0, nranks = 1;
  Py_BEGIN_ALLOW_THREADS;
  rc = MPI_Allreduce(MPI_IN_PLACE, v, LEN, MPI_DOUBLE, MPI_SUM, comm);
  Py_END_ALLOW_THREADS;
  if (rc != MPI_SUCCESS) {
    if (refused) return NULL;
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    PyErr_Format(pyex_api->error, "global_sum: MPI_Allreduce of %d value(s) failed: %s", n, msg);
    return NULL;
  }
  MPI_Comm_test_inter(comm, &inter);
  if (inter)
    MPI_Comm_remote_size(comm, &nranks); /* the sums are the other group's */
  else
    MPI_Comm_size(comm, &nranks);
  if (v[N + 2] > 0 || (double)nranks * v[N + 1] != v[N] * v[N]) {
    if (inter) { /* the ranks of the other group differ: this group cannot compare them */
      if (!refused)
        PyErr_SetString(PyExc_ValueError,
                        "global_sum: the number of values is not the same on every rank of the "
                        "intercommunicator's other group, or one refused its values");
      return NULL;
    }
    agreement a;
    pyex_agree_init_small(&a);
    pyex_agree_int(&a, "the number of values", nargs - 1);
    if (pyex_agree_after(comm, "global_sum", &a) < 0) return NULL;
    PyErr_SetString(PyExc_ValueError, "global_sum: the ranks' calls differ"); /* cannot be */
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
  if (pyex_check_ready(who) < 0 || pyex_comm_from(comm_o, who, 1, &comm) < 0) return NULL;
  Py_RETURN_NONE;
}

static PyMethodDef ex_methods[] = {
    {"check_comm", ex_check_comm, METH_VARARGS,
     "check_comm(comm, who): MPI and Porta ready, comm an mpi4py intracommunicator."},
    {"agree", pyex_agree, METH_VARARGS,
     "agree(comm, who, refused, ((name, value), ...)): the ranks compare their arguments "
     "(collective over comm); ValueError on every rank where they differ or a rank refused."},
    {"plan_check", (PyCFunction)(void (*)(void))pyex_plan_check, METH_VARARGS | METH_KEYWORDS,
     "plan_check(...): Plan's argument checks, nothing made."},
    {"transports_used", ex_transports_used, METH_NOARGS, "porta_exchange_transports_used."},
    {"global_sum", (PyCFunction)(void (*)(void))ex_global_sum, METH_FASTCALL,
     "global_sum(comm, value, ...): the sums over the ranks of comm (mpi4py's) of 1 to 16 "
     "numbers, in one MPI_Allreduce(MPI_SUM) of doubles made in C, as the C apps make theirs: a "
     "float for one value, a tuple for several. The same bits as mpi4py's Allreduce of a float64 "
     "buffer, without its buffer round trip (CG waits on two global sums an iteration). Every "
     "rank passes the same number of values: the reduction carries it, and where the ranks' "
     "differ (or one refuses its values) every rank raises a ValueError naming each rank's."},
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
  pyex_api = porta_py_array_api_import();
  if (!pyex_api) return NULL;
  PyObject *m = PyModule_Create(&ex_module);
  if (!m) return NULL;
  if (add_type(m, &pyex_decomp_spec, "Decomp", &pyex_decomp_type) < 0 ||
      add_type(m, &pyex_halo_spec, "Halo2D", NULL) < 0 ||
      add_type(m, &pyex_plan_spec, "Plan", NULL) < 0 ||
      PyModule_AddIntConstant(m, "MAX_FIELDS", PORTA_EXCHANGE_MAX_FIELDS) < 0 ||
      PyModule_AddIntConstant(m, "PROC_NULL", MPI_PROC_NULL) < 0 ||
      PyModule_AddIntConstant(m, "LOW", PORTA_LOW) < 0 ||
      PyModule_AddIntConstant(m, "HIGH", PORTA_HIGH) < 0) {
    Py_DECREF(m);
    return NULL;
  }
  return m;
}
