/** @file _core.c
 *  porta._core: the C side of Porta's Python package (docs/python.md), written against
 *  Python's limited API (one abi3 binary for every Python >= 3.11) and Porta's C API, with no
 *  C++ framework.
 *
 *  - init / finalize / fence / back-end queries: porta_initialize with argv-style options, so
 *    porta.init(backend=..., threads=..., deterministic=...) and the PORTA_* environment work
 *    as in C;
 *  - load_module(path): dlopen a module generated from Python kernels (porta/translate.py)
 *    and hand back its kernel specialisations (porta_py.h) as capsules;
 *  - Dispatcher (_dispatcher.c): a kernel's table of specialisations, keyed by its arguments'
 *    layouts;
 *  - parallel_for / parallel_reduce / parallel_scan(policy, kernel, *args, **kwargs)
 *    (_launch.c): the launch fast path (range, mdrange and team policies; a team kernel's
 *    scratch is sized from the launch's arguments by the generated module). On a miss the
 *    Python method kernel._specialize(sig, codes, args) translates and compiles (and calls
 *    kernel._register(sig, capsule)); the launch then goes on;
 *  - the arrays (_arrays.c, _view.c, _view_functions.c).
 */
#include "_core_private.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

PyTypeObject *porta_py_dispatcher_type;
const char *const porta_py_capsule_name = "porta_py_kernel";

/* ---- run time ---- */

PyObject *porta_py_failure(int rc, const char *what) {
  if (PyErr_Occurred()) return NULL; /* raised while Porta waited (Ctrl-C: KeyboardInterrupt) */
  const char *msg = porta_last_error_message();
  PyErr_Format(porta_py_error, "%s failed (%s): %s", what, porta_error_name(rc),
               (msg && msg[0]) ? msg : "no message");
  return NULL;
}

static PyObject *core_init(PyObject *self, PyObject *arg) {
  (void)self;
  if (!PyList_Check(arg) && !PyTuple_Check(arg)) {
    PyErr_SetString(PyExc_TypeError, "init: expected a list of options");
    return NULL;
  }
  Py_ssize_t n = PySequence_Size(arg);
  if (n < 0) return NULL;
  /* argv persists: Porta may keep pointers into it. */
  char **argv = (char **)calloc((size_t)n + 2, sizeof(char *));
  if (!argv) return PyErr_NoMemory();
  argv[0] = strdup("python");
  for (Py_ssize_t k = 0; k < n; ++k) {
    PyObject *item = PySequence_GetItem(arg, k);
    if (!item) return NULL;
    const char *s = PyUnicode_AsUTF8AndSize(item, NULL);
    if (!s) {
      Py_DECREF(item);
      return NULL;
    }
    argv[k + 1] = strdup(s);
    Py_DECREF(item);
  }
  int argc = (int)n + 1;
  int rc = porta_initialize(&argc, &argv);
  if (rc != PORTA_SUCCESS) return porta_py_failure(rc, "porta_initialize");
  Py_RETURN_NONE;
}

/* ---- the error records of CUDA launches ---- */

/* A CUDA launch of a kernel that may raise (porta_py.h, PORTA_PY_MAY_RAISE) takes a record in
   pinned, device-mapped host memory, with its claim flag in device memory, and gives it back
   once it has read it: one per launch in flight, so that launches from several Python threads
   each get their own. Records come in chunks, kept until porta.finalize. Taken and given back
   with the GIL held. */
enum { ERR_CHUNK = 16 };
typedef struct err_chunk {
  porta_view recs, claims;
  struct err_chunk *next;
} err_chunk;
static err_chunk *err_chunks = NULL;
static porta_py_error_record **err_free = NULL;
static int err_nfree = 0, err_cap = 0;

static int err_grow(void) {
  err_chunk *c = (err_chunk *)calloc(1, sizeof *c);
  porta_py_error_record **f = (porta_py_error_record **)realloc(
      err_free, (size_t)(err_cap + ERR_CHUNK) * sizeof(porta_py_error_record *));
  if (!c || !f) {
    free(c);
    if (f) err_free = f;
    PyErr_NoMemory();
    return -1;
  }
  err_free = f;
  const int64_t bytes = (int64_t)(ERR_CHUNK * sizeof(porta_py_error_record)), n = ERR_CHUNK;
  porta_view_options pinned = {PORTA_CUDA_HOST_PINNED_SPACE, PORTA_LAYOUT_RIGHT, 0, NULL};
  porta_view_options dev = {PORTA_CUDA_SPACE, PORTA_LAYOUT_RIGHT, 0, NULL};
  int rc = porta_view_create(&c->recs, "porta_py errors", PORTA_TYPE_U8, 1, 1, &bytes, &pinned);
  if (rc == PORTA_SUCCESS) {
    rc = porta_view_create(&c->claims, "porta_py claims", PORTA_TYPE_I32, 4, 1, &n, &dev);
    if (rc != PORTA_SUCCESS) porta_view_release(&c->recs);
  }
  if (rc != PORTA_SUCCESS) {
    free(c);
    porta_py_failure(rc, "allocating the error records of CUDA launches");
    return -1;
  }
  c->next = err_chunks;
  err_chunks = c;
  err_cap += ERR_CHUNK;
  for (int k = 0; k < ERR_CHUNK; ++k) {
    porta_py_error_record *e = (porta_py_error_record *)c->recs.data + k;
    e->dclaim = (int32_t *)c->claims.data + k; /* zero-filled by porta_view_create */
    err_free[err_nfree++] = e;
  }
  return 0;
}

porta_py_error_record *porta_py_err_take(void) {
  if (err_nfree == 0 && err_grow() < 0) return NULL;
  porta_py_error_record *e = err_free[--err_nfree];
  e->claimed = 0;
  e->ready = 0;
  return e;
}

void porta_py_err_give(porta_py_error_record *e, int dirty) {
  if (dirty || e->ready) { /* a kernel claimed it (or may have): clear the device flag */
    const int64_t one = 1;
    const int32_t zero = 0;
    porta_view_options dev = {PORTA_CUDA_SPACE, PORTA_LAYOUT_RIGHT, 0, NULL};
    porta_view v;
    if (porta_view_wrap(&v, e->dclaim, "porta_py claim", PORTA_TYPE_I32, 4, 1, &one, &dev) !=
            PORTA_SUCCESS ||
        porta_view_fill(v, &zero) != PORTA_SUCCESS)
      return; /* left out of the pool: never claimed again */
  }
  err_free[err_nfree++] = e;
}

/** Free the records (porta.finalize; no launch is in flight then). */
static void err_free_all(void) {
  while (err_chunks) {
    err_chunk *c = err_chunks;
    err_chunks = c->next;
    porta_view_release(&c->recs);
    porta_view_release(&c->claims);
    free(c);
  }
  free(err_free);
  err_free = NULL;
  err_nfree = err_cap = 0;
}

static PyObject *core_finalize(PyObject *self, PyObject *unused) {
  (void)self;
  (void)unused;
  err_free_all();
  if (porta_is_initialized()) {
    int rc = porta_finalize();
    if (rc != PORTA_SUCCESS) return porta_py_failure(rc, "porta_finalize");
  }
  Py_RETURN_NONE;
}

static PyObject *core_is_initialized(PyObject *self, PyObject *unused) {
  (void)self;
  (void)unused;
  return PyBool_FromLong(porta_is_initialized());
}

static PyObject *core_default_backend(PyObject *self, PyObject *unused) {
  (void)self;
  (void)unused;
  return PyUnicode_FromString(porta_backend_name(porta_exec_default().backend));
}

static PyObject *core_backend_id(PyObject *self, PyObject *name) {
  (void)self;
  const char *s = PyUnicode_AsUTF8AndSize(name, NULL);
  if (!s) return NULL;
  porta_backend b;
  if (porta_backend_parse(s, &b) != PORTA_SUCCESS) {
    PyErr_Format(PyExc_ValueError, "unknown back end '%s' (serial, openmp or cuda)", s);
    return NULL;
  }
  if (!porta_backend_available(b)) {
    PyErr_Format(PyExc_ValueError, "back end '%s' is not available in this build or machine", s);
    return NULL;
  }
  return PyLong_FromLong((long)b);
}

static PyObject *core_backend_available(PyObject *self, PyObject *name) {
  (void)self;
  const char *s = PyUnicode_AsUTF8AndSize(name, NULL);
  if (!s) return NULL;
  porta_backend b;
  if (porta_backend_parse(s, &b) != PORTA_SUCCESS) Py_RETURN_FALSE;
  return PyBool_FromLong(porta_backend_available(b));
}

static PyObject *core_fence(PyObject *self, PyObject *unused) {
  (void)self;
  (void)unused;
  int rc = porta_fence("porta.fence");
  if (rc != PORTA_SUCCESS) return porta_py_failure(rc, "porta_fence");
  Py_RETURN_NONE;
}

static PyObject *core_num_threads(PyObject *self, PyObject *unused) {
  (void)self;
  (void)unused;
  return PyLong_FromLong(porta_num_threads());
}

static PyObject *core_set_num_threads(PyObject *self, PyObject *arg) {
  (void)self;
  long n = PyLong_AsLong(arg);
  if (n == -1 && PyErr_Occurred()) return NULL;
  int rc = porta_set_num_threads((int)n);
  if (rc != PORTA_SUCCESS) return porta_py_failure(rc, "porta_set_num_threads");
  Py_RETURN_NONE;
}

static PyObject *core_deterministic(PyObject *self, PyObject *unused) {
  (void)self;
  (void)unused;
  return PyBool_FromLong(porta_deterministic());
}

static PyObject *core_set_deterministic(PyObject *self, PyObject *arg) {
  (void)self;
  int on = PyObject_IsTrue(arg);
  if (on < 0) return NULL;
  porta_set_deterministic(on);
  Py_RETURN_NONE;
}

/* ---- generated modules ---- */

static PyObject *core_load_module(PyObject *self, PyObject *arg) {
  (void)self;
  const char *path = PyUnicode_AsUTF8AndSize(arg, NULL);
  if (!path) return NULL;
  /* Never closed: the kernels' descriptors live as long as the process. */
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    PyErr_Format(PyExc_ImportError, "cannot load the compiled kernels %s: %s", path, dlerror());
    return NULL;
  }
  const porta_py_module_info *m = (const porta_py_module_info *)dlsym(h, "porta_py_module");
  if (!m) {
    PyErr_Format(PyExc_ImportError, "%s exports no porta_py_module", path);
    return NULL;
  }
  if (m->abi != PORTA_PY_ABI) {
    PyErr_Format(PyExc_ImportError, "%s was generated for porta_py ABI %d, this is %d", path,
                 (int)m->abi, PORTA_PY_ABI);
    return NULL;
  }
  PyObject *list = PyList_New(m->nkernels);
  if (!list) return NULL;
  for (int32_t k = 0; k < m->nkernels; ++k) {
    const porta_py_kernel *pk = m->kernels[k];
    PyObject *cap = PyCapsule_New((void *)pk, porta_py_capsule_name, NULL);
    PyObject *t = cap ? Py_BuildValue("(ssN)", pk->name, pk->spec, cap) : NULL;
    if (!t) {
      Py_DECREF(list);
      return NULL;
    }
    PyList_SetItem(list, k, t);
  }
  return list;
}

/* ---- the module ---- */

#define FASTKW(f) (PyCFunction)(void (*)(void))(f), METH_FASTCALL | METH_KEYWORDS

static PyMethodDef core_methods[] = {
    {"init", core_init, METH_O, "porta_initialize with a list of --porta-* options."},
    {"finalize", core_finalize, METH_NOARGS, "porta_finalize."},
    {"is_initialized", core_is_initialized, METH_NOARGS, "porta_is_initialized."},
    {"default_backend", core_default_backend, METH_NOARGS, "The default back end's name."},
    {"backend_id", core_backend_id, METH_O, "The id of a back end by name (ValueError if absent)."},
    {"backend_available", core_backend_available, METH_O, "Whether a back end can run here."},
    {"fence", core_fence, METH_NOARGS, "porta_fence."},
    {"num_threads", core_num_threads, METH_NOARGS, "porta_num_threads."},
    {"set_num_threads", core_set_num_threads, METH_O, "porta_set_num_threads."},
    {"deterministic", core_deterministic, METH_NOARGS, "porta_deterministic."},
    {"set_deterministic", core_set_deterministic, METH_O, "porta_set_deterministic."},
    {"load_module", core_load_module, METH_O, "Load a generated module's kernels."},
    {"parallel_for", FASTKW(porta_py_parallel_for), "parallel_for(policy, kernel, *args, **kw)."},
    {"parallel_reduce", FASTKW(porta_py_parallel_reduce),
     "parallel_reduce(policy, kernel, *args, **kw): the reduced value."},
    {"parallel_scan", FASTKW(porta_py_parallel_scan),
     "parallel_scan(policy, kernel, *args, **kw): the scan's total."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef core_module = {PyModuleDef_HEAD_INIT,
                                         "porta._core",
                                         "Porta's C extension (limited API).",
                                         -1,
                                         core_methods,
                                         NULL,
                                         NULL,
                                         NULL,
                                         NULL};

PyMODINIT_FUNC PyInit__core(void) {
  PyObject *m = PyModule_Create(&core_module);
  if (!m) return NULL;
  porta_py_error = PyErr_NewException("porta.PortaError", PyExc_RuntimeError, NULL);
  if (!porta_py_error || PyModule_AddObject(m, "PortaError", porta_py_error) < 0) goto fail;
  Py_INCREF(porta_py_error); /* the array functions (_arrays.c) raise it too */
  porta_py_dispatcher_type = (PyTypeObject *)PyType_FromSpec(&porta_py_dispatcher_spec);
  if (!porta_py_dispatcher_type) goto fail;
  Py_INCREF((PyObject *)porta_py_dispatcher_type);
  if (PyModule_AddObject(m, "Dispatcher", (PyObject *)porta_py_dispatcher_type) < 0) goto fail;
  if (PyModule_AddIntConstant(m, "ABI", PORTA_PY_ABI) < 0) goto fail;
  if (PyModule_AddIntConstant(m, "CODE_SCALAR", PORTA_PY_SIG_SCALAR) < 0) goto fail;
  if (porta_py_arrays_init(m) < 0 || PyModule_AddFunctions(m, porta_py_array_methods) < 0)
    goto fail;
  return m;
fail:
  Py_DECREF(m);
  return NULL;
}
