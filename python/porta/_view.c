/** @file _view.c
 *  porta._core.View (docs/python.md, "Arrays"): a Porta view (porta_view_create in a memory
 *  space) owned by a Python object. Views the host can read export the buffer protocol
 *  (numpy.asarray(view) is no copy); views a GPU can read export __cuda_array_interface__ v3;
 *  every view exports DLPack (__dlpack__, __dlpack_device__). Limited API (3.11).
 */
#include "_arrays_private.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

PyTypeObject *porta_py_view_type;
PyTypeObject *porta_py_view_class;

/** Map a failed Porta call to an exception: incompatible views and bad arguments are
 *  ValueErrors (a mismatch the caller made), the rest porta.PortaError. */
PyObject *porta_py_raise(int rc, const char *what) {
  const char *msg = porta_last_error_message();
  PyObject *type = (rc == PORTA_ERROR_INCOMPATIBLE || rc == PORTA_ERROR_INVALID_ARGUMENT)
                       ? PyExc_ValueError
                       : porta_py_error;
  PyErr_Format(type, "%s: %s", what, (msg && msg[0]) ? msg : porta_error_name(rc));
  return NULL;
}

/** A View object of class `cls` owning `*v` (the reference moves into it). */
PyObject *porta_py_view_wrap_owned(PyTypeObject *cls, porta_view *v) {
  allocfunc alloc = (allocfunc)PyType_GetSlot(cls, Py_tp_alloc);
  ViewObject *o = (ViewObject *)(alloc ? alloc(cls, 0) : NULL);
  if (!o) {
    porta_view_release(v);
    return NULL;
  }
  o->v = *v;
  for (int r = 0; r < v->m.rank; ++r) {
    o->shape[r] = (Py_ssize_t)v->m.extent[r];
    o->strides[r] = (Py_ssize_t)(v->m.stride[r] * (int64_t)v->m.value_size);
  }
  memset(v, 0, sizeof *v);
  return (PyObject *)o;
}

static void View_dealloc(PyObject *self) {
  ViewObject *o = (ViewObject *)self;
  PyTypeObject *tp = Py_TYPE(self);
  porta_view_release(&o->v);
  freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
  f(self);
  Py_DECREF(tp);
}

static int View_getbuffer(PyObject *self, Py_buffer *b, int flags) {
  ViewObject *o = (ViewObject *)self;
  const porta_view_meta *m = &o->v.m;
  b->obj = NULL;
  if (!pyarr_host_accessible(m->space)) {
    PyErr_Format(PyExc_BufferError,
                 "view '%s' is in %s, which the host cannot read: copy it to the host with "
                 "porta.create_mirror_view_and_copy(view)",
                 m->label, pyarr_space_name(m->space));
    return -1;
  }
  const int readonly = (m->traits & PORTA_VIEW_CONST) != 0;
  if ((flags & PyBUF_WRITABLE) == PyBUF_WRITABLE && readonly) {
    PyErr_Format(PyExc_BufferError, "view '%s' is read-only", m->label);
    return -1;
  }
  char kind;
  const char *format, *typestr;
  const int itemsize = pyarr_ptype_info(m->type, &kind, &format, &typestr);
  (void)typestr;
  int c_contig = 1;
  int64_t want = itemsize;
  for (int r = m->rank - 1; r >= 0; --r) {
    if (o->shape[r] > 1 && o->strides[r] != want) c_contig = 0;
    want *= o->shape[r];
  }
  if ((flags & PyBUF_STRIDES) != PyBUF_STRIDES && !c_contig) {
    PyErr_Format(PyExc_BufferError,
                 "view '%s' is not C-contiguous: the consumer must accept strides", m->label);
    return -1;
  }
  b->buf = o->v.data;
  b->len = (Py_ssize_t)porta_view_meta_size(m) * itemsize;
  b->readonly = readonly;
  b->itemsize = itemsize;
  b->format = (flags & PyBUF_FORMAT) == PyBUF_FORMAT ? (char *)format : NULL;
  b->ndim = m->rank;
  b->shape = (flags & PyBUF_ND) == PyBUF_ND ? o->shape : NULL;
  b->strides = (flags & PyBUF_STRIDES) == PyBUF_STRIDES ? o->strides : NULL;
  b->suboffsets = NULL;
  b->internal = NULL;
  Py_INCREF(self);
  b->obj = self;
  return 0;
}

static PyObject *tuple_of(const Py_ssize_t *v, int n) {
  PyObject *t = PyTuple_New(n);
  if (!t) return NULL;
  for (int r = 0; r < n; ++r) {
    PyObject *x = PyLong_FromSsize_t(v[r]);
    if (!x) {
      Py_DECREF(t);
      return NULL;
    }
    PyTuple_SetItem(t, r, x);
  }
  return t;
}

static PyObject *View_get_shape(PyObject *self, void *c) {
  (void)c;
  ViewObject *o = (ViewObject *)self;
  return tuple_of(o->shape, o->v.m.rank);
}

static PyObject *View_get_strides(PyObject *self, void *c) {
  (void)c;
  ViewObject *o = (ViewObject *)self;
  return tuple_of(o->strides, o->v.m.rank);
}

static PyObject *View_get_ndim(PyObject *self, void *c) {
  (void)c;
  return PyLong_FromLong(((ViewObject *)self)->v.m.rank);
}

static PyObject *View_get_size(PyObject *self, void *c) {
  (void)c;
  return PyLong_FromLongLong((long long)porta_view_meta_size(&((ViewObject *)self)->v.m));
}

static PyObject *View_get_itemsize(PyObject *self, void *c) {
  (void)c;
  return PyLong_FromLong((long)((ViewObject *)self)->v.m.value_size);
}

static PyObject *View_get_dtype_name(PyObject *self, void *c) {
  (void)c;
  char name[16];
  pyarr_type_name(((ViewObject *)self)->v.m.type, name, sizeof name);
  return PyUnicode_FromString(name);
}

static PyObject *View_get_space(PyObject *self, void *c) {
  (void)c;
  return PyLong_FromLong(((ViewObject *)self)->v.m.space);
}

static PyObject *View_get_layout(PyObject *self, void *c) {
  (void)c;
  switch (((ViewObject *)self)->v.m.layout) {
  case PORTA_LAYOUT_RIGHT: return PyUnicode_FromString("C");
  case PORTA_LAYOUT_LEFT: return PyUnicode_FromString("F");
  }
  return PyUnicode_FromString("strided");
}

static PyObject *View_get_label(PyObject *self, void *c) {
  (void)c;
  return PyUnicode_FromString(((ViewObject *)self)->v.m.label);
}

static PyObject *View_get_data_ptr(PyObject *self, void *c) {
  (void)c;
  return PyLong_FromVoidPtr(((ViewObject *)self)->v.data);
}

static PyObject *View_get_use_count(PyObject *self, void *c) {
  (void)c;
  return PyLong_FromLongLong((long long)porta_view_use_count(&((ViewObject *)self)->v));
}

static PyObject *View_get_readonly(PyObject *self, void *c) {
  (void)c;
  return PyBool_FromLong((((ViewObject *)self)->v.m.traits & PORTA_VIEW_CONST) != 0);
}

/** __cuda_array_interface__ v3: views a GPU can read (device, managed and pinned memory). */
static PyObject *View_get_cai(PyObject *self, void *c) {
  (void)c;
  ViewObject *o = (ViewObject *)self;
  const porta_view_meta *m = &o->v.m;
  if (!pyarr_device_accessible(m->space)) {
    PyErr_Format(PyExc_AttributeError,
                 "view '%s' is in %s: __cuda_array_interface__ is for views a GPU can read "
                 "(numpy.asarray(view) reads this one)",
                 m->label, pyarr_space_name(m->space));
    return NULL;
  }
  char kind;
  const char *format, *typestr;
  const int itemsize = pyarr_ptype_info(m->type, &kind, &format, &typestr);
  int c_contig = 1;
  int64_t want = itemsize;
  for (int r = m->rank - 1; r >= 0; --r) {
    if (o->shape[r] > 1 && o->strides[r] != want) c_contig = 0;
    want *= o->shape[r];
  }
  PyObject *shape = tuple_of(o->shape, m->rank);
  PyObject *strides = c_contig ? (Py_INCREF(Py_None), Py_None) : tuple_of(o->strides, m->rank);
  /* Porta's kernels and copies run on the legacy default stream (instance 0): stream 1. */
  PyObject *d = shape && strides
                    ? Py_BuildValue("{s:N,s:s,s:(N,O),s:N,s:i,s:i}", "shape", shape, "typestr",
                                    typestr, "data", PyLong_FromVoidPtr(o->v.data),
                                    (m->traits & PORTA_VIEW_CONST) ? Py_True : Py_False, "strides",
                                    strides, "version", 3, "stream", 1)
                    : NULL;
  if (!d) {
    Py_XDECREF(shape);
    Py_XDECREF(strides);
  }
  return d;
}

/* DLPack export: the tensor holds a reference on the view's allocation (porta_view_retain), so
 * the memory outlives the Python object as long as the consumer holds the tensor. */
typedef struct dl_export {
  union {
    DLManagedTensor plain;
    DLManagedTensorVersioned ver;
  } t;
  porta_view v;
  int64_t shape[PORTA_MAX_RANK], strides[PORTA_MAX_RANK];
} dl_export;

static void dl_export_free(dl_export *e) {
  porta_view_release(&e->v);
  free(e);
}
static void dl_deleter(DLManagedTensor *t) { dl_export_free((dl_export *)t->manager_ctx); }
static void dl_deleter_ver(DLManagedTensorVersioned *t) {
  dl_export_free((dl_export *)t->manager_ctx);
}

static void dl_capsule_destructor(PyObject *cap) {
  /* Consumed capsules are renamed "used_dltensor[_versioned]": their consumer calls the
     deleter. An unconsumed one is ours to free. */
  if (PyCapsule_IsValid(cap, "dltensor")) {
    DLManagedTensor *t = (DLManagedTensor *)PyCapsule_GetPointer(cap, "dltensor");
    if (t && t->deleter) t->deleter(t);
  } else if (PyCapsule_IsValid(cap, "dltensor_versioned")) {
    DLManagedTensorVersioned *t =
        (DLManagedTensorVersioned *)PyCapsule_GetPointer(cap, "dltensor_versioned");
    if (t && t->deleter) t->deleter(t);
  } else {
    PyErr_Clear();
  }
}

/** The stream a __dlpack__ consumer asked for (None, or an int): a host view takes none;
 *  Porta's work is on the legacy default stream, so a consumer on it (1) or asking for no
 *  synchronisation (-1) waits for nothing, and another stream gets the data once it is done
 *  (a fence). -1 with the exception. */
static int dlpack_stream_sync(PyObject *stream, int dev_type) {
  if (stream == Py_None) return 0;
  if (!PyLong_Check(stream)) {
    PyErr_SetString(PyExc_TypeError, "__dlpack__: stream must be an int or None");
    return -1;
  }
  long long s = PyLong_AsLongLong(stream);
  if (s == -1 && PyErr_Occurred()) return -1;
  if (dev_type == DL_CPU) {
    PyErr_SetString(PyExc_BufferError, "__dlpack__: a host view takes no stream");
    return -1;
  }
  if (s != 1 && s != -1) {
    int rc = porta_fence("porta.View.__dlpack__");
    if (rc != PORTA_SUCCESS) {
      porta_py_raise(rc, "__dlpack__");
      return -1;
    }
  }
  return 0;
}

/** A __dlpack__ request against the view: no copy, the view's own device (dev_type, dev_id),
 *  the consumer's stream synchronised; -1 with a BufferError or TypeError. */
static int dlpack_check_request(PyObject *stream, PyObject *dl_device, PyObject *copy, int dev_type,
                                int dev_id) {
  if (copy != Py_None && PyObject_IsTrue(copy) == 1) {
    PyErr_SetString(PyExc_BufferError, "porta.View.__dlpack__: copy=True is not supported "
                                       "(copy with porta.deep_copy first)");
    return -1;
  }
  if (dl_device != Py_None) {
    int t = -1, i = -1;
    if (!PyArg_ParseTuple(dl_device, "ii", &t, &i)) return -1;
    if (t != dev_type || i != dev_id) {
      PyErr_Format(PyExc_BufferError,
                   "porta.View.__dlpack__: the view is on device (%d, %d), not (%d, %d)", dev_type,
                   dev_id, t, i);
      return -1;
    }
  }
  return dlpack_stream_sync(stream, dev_type);
}

/** Whether the consumer takes a versioned tensor (max_version's major >= 1): 1 or 0, -1 with
 *  the exception. */
static int dlpack_versioned(PyObject *max_version) {
  if (max_version == Py_None) return 0;
  PyObject *mj = PySequence_GetItem(max_version, 0);
  if (!mj) return -1;
  long major = PyLong_AsLong(mj);
  Py_DECREF(mj);
  if (major == -1 && PyErr_Occurred()) return -1;
  return major >= 1;
}

/** The view exported as a DLPack capsule ("dltensor_versioned" or "dltensor"), which holds a
 *  reference to the view's data until its consumer's deleter (or the capsule's) runs. */
static PyObject *dlpack_capsule(const ViewObject *o, int versioned, int dev_type, int dev_id) {
  const porta_view_meta *m = &o->v.m;
  dl_export *e = (dl_export *)calloc(1, sizeof *e);
  if (!e) return PyErr_NoMemory();
  e->v = o->v;
  porta_view_retain(&e->v);
  char kind;
  const char *format, *typestr;
  const int itemsize = pyarr_ptype_info(m->type, &kind, &format, &typestr);
  for (int r = 0; r < m->rank; ++r) {
    e->shape[r] = m->extent[r];
    e->strides[r] = m->stride[r];
  }
  DLTensor *t = versioned ? &e->t.ver.dl_tensor : &e->t.plain.dl_tensor;
  t->data = o->v.data;
  t->device.device_type = dev_type;
  t->device.device_id = dev_id;
  t->ndim = m->rank;
  t->dtype.code = kind == 'f' ? DL_FLOAT : kind == 'i' ? DL_INT : kind == 'u' ? DL_UINT : DL_BOOL;
  t->dtype.bits = (uint8_t)(8 * itemsize);
  t->dtype.lanes = 1;
  t->shape = e->shape;
  t->strides = e->strides;
  t->byte_offset = 0;
  PyObject *cap;
  if (versioned) {
    e->t.ver.version.major = 1;
    e->t.ver.version.minor = 0;
    e->t.ver.manager_ctx = e;
    e->t.ver.deleter = dl_deleter_ver;
    e->t.ver.flags = (m->traits & PORTA_VIEW_CONST) ? DL_FLAG_READ_ONLY : 0;
    cap = PyCapsule_New(&e->t.ver, "dltensor_versioned", dl_capsule_destructor);
  } else {
    e->t.plain.manager_ctx = e;
    e->t.plain.deleter = dl_deleter;
    cap = PyCapsule_New(&e->t.plain, "dltensor", dl_capsule_destructor);
  }
  if (!cap) dl_export_free(e);
  return cap;
}

/** __dlpack__(*, stream=None, max_version=None, dl_device=None, copy=None). */
static PyObject *View_dlpack(PyObject *self, PyObject *args, PyObject *kw) {
  static char *kwlist[] = {"stream", "max_version", "dl_device", "copy", NULL};
  PyObject *stream = Py_None, *max_version = Py_None, *dl_device = Py_None, *copy = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "|$OOOO", kwlist, &stream, &max_version, &dl_device,
                                   &copy))
    return NULL;
  const ViewObject *o = (const ViewObject *)self;
  const int dev_type = pyarr_space_dl(o->v.m.space);
  const int dev_id = dev_type == DL_CUDA || dev_type == DL_CUDA_MANAGED ? pyarr_porta_device() : 0;
  if (dlpack_check_request(stream, dl_device, copy, dev_type, dev_id) < 0) return NULL;
  const int versioned = dlpack_versioned(max_version);
  if (versioned < 0) return NULL;
  return dlpack_capsule(o, versioned, dev_type, dev_id);
}

static PyObject *View_dlpack_device(PyObject *self, PyObject *unused) {
  (void)unused;
  const int space = ((ViewObject *)self)->v.m.space;
  const int t = pyarr_space_dl(space);
  return Py_BuildValue("(ii)", t, t == DL_CUDA || t == DL_CUDA_MANAGED ? pyarr_porta_device() : 0);
}

/** fill(value): every element set to value (porta_view_fill). */
static PyObject *View_fill(PyObject *self, PyObject *value) {
  ViewObject *o = (ViewObject *)self;
  union {
    double f64;
    float f32;
    int64_t i64;
    int32_t i32;
    uint64_t u64;
    uint32_t u32;
    uint8_t u8;
  } x;
  memset(&x, 0, sizeof x);
  switch (o->v.m.type) {
  case PORTA_TYPE_F64:
  case PORTA_TYPE_F32: {
    double d = PyFloat_AsDouble(value);
    if (d == -1.0 && PyErr_Occurred()) return NULL;
    if (o->v.m.type == PORTA_TYPE_F64)
      x.f64 = d;
    else
      x.f32 = (float)d;
    break;
  }
  default: {
    long long v = PyLong_AsLongLong(value);
    if (v == -1 && PyErr_Occurred()) return NULL;
    switch (o->v.m.type) {
    case PORTA_TYPE_I64: x.i64 = (int64_t)v; break;
    case PORTA_TYPE_I32: x.i32 = (int32_t)v; break;
    case PORTA_TYPE_U64: x.u64 = (uint64_t)v; break;
    case PORTA_TYPE_U32: x.u32 = (uint32_t)v; break;
    default: x.u8 = (uint8_t)v; break;
    }
  }
  }
  int rc = porta_view_fill(o->v, &x);
  if (rc != PORTA_SUCCESS) return porta_py_raise(rc, "fill");
  Py_RETURN_NONE;
}

static PyGetSetDef View_getset[] = {
    {"shape", View_get_shape, NULL, "The extents.", NULL},
    {"strides", View_get_strides, NULL, "The strides in bytes (as NumPy's).", NULL},
    {"ndim", View_get_ndim, NULL, "The rank.", NULL},
    {"size", View_get_size, NULL, "The number of elements.", NULL},
    {"itemsize", View_get_itemsize, NULL, "Bytes per element.", NULL},
    {"_dtype_name", View_get_dtype_name, NULL, "The NumPy name of the element type.", NULL},
    {"_space", View_get_space, NULL, "The porta_memory_space.", NULL},
    {"layout", View_get_layout, NULL, "'C' (LayoutRight), 'F' (LayoutLeft) or 'strided'.", NULL},
    {"label", View_get_label, NULL, "The view's label.", NULL},
    {"data_ptr", View_get_data_ptr, NULL, "The address of the data (an int).", NULL},
    {"use_count", View_get_use_count, NULL, "References on the allocation.", NULL},
    {"readonly", View_get_readonly, NULL, "A const view.", NULL},
    {"__cuda_array_interface__", View_get_cai, NULL, "CUDA Array Interface v3 (GPU views).", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyMethodDef View_methods[] = {
    {"__dlpack__", (PyCFunction)(void (*)(void))View_dlpack, METH_VARARGS | METH_KEYWORDS,
     "DLPack export (a capsule)."},
    {"__dlpack_device__", View_dlpack_device, METH_NOARGS, "(device type, device id)."},
    {"fill", View_fill, METH_O, "Set every element to a value (porta_view_fill)."},
    {NULL, NULL, 0, NULL}};

/** porta._core.View() itself makes no view (its data would be NULL): porta.View(shape, ...)
 *  does, through view_create. */
static PyObject *View_new(PyTypeObject *tp, PyObject *args, PyObject *kw) {
  (void)tp, (void)args, (void)kw;
  PyErr_SetString(PyExc_TypeError, "views are made by porta.View(shape, dtype=porta.f64, "
                                   "space=None, layout=None, label='')");
  return NULL;
}

static PyType_Slot View_slots[] = {
    {Py_tp_new, (void *)View_new},
    {Py_tp_dealloc, (void *)View_dealloc},
    {Py_tp_getset, View_getset},
    {Py_tp_methods, View_methods},
    {Py_bf_getbuffer, (void *)View_getbuffer},
    {Py_tp_doc, (void *)"A Porta view (porta_view) owned by Python; see porta.View."},
    {0, NULL}};

PyType_Spec porta_py_view_spec = {"porta._core.View", sizeof(ViewObject), 0,
                                  Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE, View_slots};
