/** @file _dispatcher.c
 *  porta._core.Dispatcher: a kernel's table of specialisations, one per combination of its
 *  array arguments' layouts and per compiler (the C compiler's module, nvcc's on the CUDA back
 *  end), filled by kernel._register and read by the launch (_launch.c). Limited API (3.11).
 */
#include "_core_private.h"

static void Dispatcher_dealloc(PyObject *o) {
  Dispatcher *d = (Dispatcher *)o;
  PyTypeObject *tp = Py_TYPE(o);
  PyMem_Free(d->specs);
  Py_XDECREF(d->names);
  freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
  f(o);
  Py_DECREF(tp);
}

/** _set_names(names: tuple of str): the argument names, in order, for keyword arguments. */
static PyObject *Dispatcher_set_names(PyObject *o, PyObject *names) {
  Dispatcher *d = (Dispatcher *)o;
  if (!PyTuple_Check(names)) {
    PyErr_SetString(PyExc_TypeError, "_set_names: expected a tuple");
    return NULL;
  }
  Py_INCREF(names);
  PyObject *old = d->names;
  d->names = names;
  Py_XDECREF(old);
  Py_RETURN_NONE;
}

/** _register(sig: (int, int), capsule, variant=0): the specialisation for argument signature `sig`
 *  (compiled by nvcc for the CUDA back end when variant is 1). */
static PyObject *Dispatcher_register(PyObject *o, PyObject *const *args, Py_ssize_t nargs) {
  Dispatcher *d = (Dispatcher *)o;
  if (nargs != 2 && nargs != 3) {
    PyErr_SetString(PyExc_TypeError, "_register(sig, capsule, variant=0)");
    return NULL;
  }
  int variant = nargs == 3 ? (int)PyLong_AsLong(args[2]) : VARIANT_HOST;
  if (variant == -1 && PyErr_Occurred()) return NULL;
  porta_py_sig sig;
  unsigned long long w0 = 0, w1 = 0;
  if (!PyArg_Parse(args[0], "(KK)", &w0, &w1)) return NULL;
  sig.w[0] = (uint64_t)w0;
  sig.w[1] = (uint64_t)w1;
  const porta_py_kernel *k =
      (const porta_py_kernel *)PyCapsule_GetPointer(args[1], porta_py_capsule_name);
  if (!k) return NULL;
  for (Py_ssize_t s = 0; s < d->nspecs; ++s)
    if (porta_py_sig_equal(d->specs[s].sig, sig) && d->specs[s].variant == variant) {
      d->specs[s].k = k;
      Py_RETURN_NONE;
    }
  if (d->nspecs == d->cap) {
    Py_ssize_t cap = d->cap ? 2 * d->cap : 4;
    spec_entry *p = (spec_entry *)PyMem_Realloc(d->specs, (size_t)cap * sizeof(spec_entry));
    if (!p) return PyErr_NoMemory();
    d->specs = p;
    d->cap = cap;
  }
  d->specs[d->nspecs].sig = sig;
  d->specs[d->nspecs].k = k;
  d->specs[d->nspecs].variant = variant;
  d->nspecs++;
  d->label = k->name;
  Py_RETURN_NONE;
}

/** _clear(): forget every specialisation (tests: after the cache was emptied). */
static PyObject *Dispatcher_clear(PyObject *o, PyObject *unused) {
  (void)unused;
  ((Dispatcher *)o)->nspecs = 0;
  Py_RETURN_NONE;
}

static PyMethodDef Dispatcher_methods[] = {
    {"_set_names", Dispatcher_set_names, METH_O, "Set the argument names."},
    {"_register", (PyCFunction)(void (*)(void))Dispatcher_register, METH_FASTCALL,
     "Register a specialisation."},
    {"_clear", Dispatcher_clear, METH_NOARGS, "Forget the specialisations."},
    {NULL, NULL, 0, NULL}};

static PyType_Slot Dispatcher_slots[] = {{Py_tp_dealloc, (void *)Dispatcher_dealloc},
                                         {Py_tp_methods, Dispatcher_methods},
                                         {Py_tp_new, (void *)PyType_GenericNew},
                                         {Py_tp_doc, (void *)"A kernel's specialisations."},
                                         {0, NULL}};

PyType_Spec porta_py_dispatcher_spec = {"porta._core.Dispatcher", sizeof(Dispatcher), 0,
                                        Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE, Dispatcher_slots};
