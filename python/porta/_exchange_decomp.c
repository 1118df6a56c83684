/** @file _exchange_decomp.c
 *  porta._exchange.Decomp: a rank's share of a Cartesian grid (porta_decomp_create), the
 *  handle exchange.Decomp wraps (_exchange_private.h).
 */
#include "_exchange_private.h"

PyTypeObject *pyex_decomp_type;

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
  if (pyex_check_ready("Decomp") < 0) return NULL;
  MPI_Comm comm;
  if (pyex_comm_from(comm_o, "Decomp", 1, &comm) < 0) return NULL;
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
    return pyex_raise_rc(rc, "Decomp");
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
PyType_Spec pyex_decomp_spec = {"porta._exchange.Decomp", sizeof(DecompObject), 0,
                                Py_TPFLAGS_DEFAULT, decomp_slots};
