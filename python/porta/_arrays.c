/** @file _arrays.c
 *  Arrays in porta._core (docs/python.md, "Arrays"):
 *
 *  - pyarr_get: any array a kernel or deep_copy is given, read in C into one description with
 *    its memory space: a porta.View (its struct, no protocol), the buffer protocol (host
 *    memory: NumPy ...), __cuda_array_interface__ v3 (CUDA device memory: CuPy, Numba, ...) or
 *    DLPack (__dlpack__: the device in the tensor says where the data is);
 *  - porta._core.View: a Porta view (porta_view_create in a memory space) owned by a Python
 *    object. Views the host can read export the buffer protocol (numpy.asarray(view) is no
 *    copy); views a GPU can read export __cuda_array_interface__ v3; every view exports DLPack
 *    (__dlpack__, __dlpack_device__);
 *  - deep_copy, create_mirror, create_mirror_view: Porta's own calls (porta_view_deep_copy ...),
 *    on views or on any other array, which is wrapped as an unmanaged view of its space.
 *  Written against Python's limited API (3.11), like _core.c.
 */
#include "_arrays.h"

#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

PyObject *porta_py_error = NULL;

/* ---- dtypes ---- */

/** The element types arrays may have: kind ('f', 'i', 'u', 'b'), size, porta_py_dtype (-1 if
 *  kernels do not take it), porta_type and NumPy name. */
static const struct {
  char kind;
  int size, dtype, ptype;
  const char *name;
} dtypes[] = {{'f', 8, PORTA_PY_F64, PORTA_TYPE_F64, "float64"},
              {'f', 4, PORTA_PY_F32, PORTA_TYPE_F32, "float32"},
              {'i', 8, PORTA_PY_I64, PORTA_TYPE_I64, "int64"},
              {'i', 4, PORTA_PY_I32, PORTA_TYPE_I32, "int32"},
              {'u', 1, PORTA_PY_U8, PORTA_TYPE_U8, "uint8"},
              {'u', 8, -1, PORTA_TYPE_U64, "uint64"},
              {'u', 4, -1, PORTA_TYPE_U32, "uint32"},
              {'b', 1, -1, PORTA_TYPE_USER, "bool"}};

/** The row of `dtypes` of a kind and size, or -1. */
static int dtype_row(char kind, int size) {
  for (int k = 0; k < (int)(sizeof dtypes / sizeof dtypes[0]); ++k)
    if (dtypes[k].kind == kind && dtypes[k].size == size) return k;
  return -1;
}

/** A dtype from its kind and size: the porta_py_dtype (-1 if kernels do not take it),
 *  *ptype its porta_type (PORTA_TYPE_USER if unknown). On the launch path: no name. */
static int dtype_code(char kind, int size, int *ptype) {
  const int k = dtype_row(kind, size);
  *ptype = k < 0 ? PORTA_TYPE_USER : dtypes[k].ptype;
  return k < 0 ? -1 : dtypes[k].dtype;
}

/** dtype_code, and `name` its NumPy name (or kind and size). */
static int dtype_of(char kind, int size, int *ptype, char *name, size_t cap) {
  const int k = dtype_row(kind, size);
  if (k >= 0)
    snprintf(name, cap, "%s", dtypes[k].name);
  else
    snprintf(name, cap, "%c%d", kind ? kind : '?', size);
  return dtype_code(kind, size, ptype);
}

const char *pyarr_dtype_name(const pyarr *a, char *buf, size_t cap) {
  const int k = dtype_row(a->kind, (int)a->itemsize);
  if (k >= 0) return dtypes[k].name;
  if (a->format)
    snprintf(buf, cap, "'%s'", a->format);
  else
    snprintf(buf, cap, "%c%d", a->kind ? a->kind : '?', (int)a->itemsize);
  return buf;
}

/** kind and size of a buffer format ("d", "<f", "q" ...); 0 if unknown. */
static char format_kind(const char *f, Py_ssize_t itemsize) {
  if (!f) return 'u'; /* no format: unsigned bytes */
  if (*f == '@' || *f == '=' || *f == '<' || *f == '|') ++f;
  if (f[0] == 0 || f[1] != 0) return 0;
  switch (f[0]) {
  case 'd':
  case 'f':
  case 'e': return 'f';
  case 'b':
  case 'h':
  case 'i':
  case 'l':
  case 'q': return 'i';
  case 'B':
  case 'H':
  case 'I':
  case 'L':
  case 'Q': return 'u';
  case '?': return 'b';
  }
  (void)itemsize;
  return 0;
}

/** The view's porta_type as kind and size, and its buffer format and CAI typestr. */
static int ptype_info(int ptype, char *kind, const char **format, const char **typestr) {
  switch (ptype) {
  case PORTA_TYPE_F64: *kind = 'f', *format = "d", *typestr = "<f8"; return 8;
  case PORTA_TYPE_F32: *kind = 'f', *format = "f", *typestr = "<f4"; return 4;
  case PORTA_TYPE_I64: *kind = 'i', *format = "q", *typestr = "<i8"; return 8;
  case PORTA_TYPE_I32: *kind = 'i', *format = "i", *typestr = "<i4"; return 4;
  case PORTA_TYPE_U64: *kind = 'u', *format = "Q", *typestr = "<u8"; return 8;
  case PORTA_TYPE_U32: *kind = 'u', *format = "I", *typestr = "<u4"; return 4;
  case PORTA_TYPE_U8: *kind = 'u', *format = "B", *typestr = "|u1"; return 1;
  }
  *kind = 'b', *format = "?", *typestr = "|b1"; /* PORTA_TYPE_USER of 1 byte: bool */
  return 1;
}

/** The NumPy name of a porta_type. */
static void type_name(int ptype, char *name, size_t cap) {
  char kind;
  const char *format, *typestr;
  int pt;
  const int size = ptype_info(ptype, &kind, &format, &typestr);
  dtype_of(kind, size, &pt, name, cap);
}

const char *pyarr_space_name(int space) {
  switch (space) {
  case PORTA_HOST_SPACE: return "host memory";
  case PORTA_CUDA_SPACE: return "CUDA device memory";
  case PORTA_CUDA_UVM_SPACE: return "CUDA managed memory";
  case PORTA_CUDA_HOST_PINNED_SPACE: return "CUDA pinned host memory";
  }
  return "unknown memory";
}

int pyarr_porta_device(void) {
  int d = porta_device_id();
  return d >= 0 ? d : 0;
}

/* ---- DLPack (dlpack.h, v1.0: the ABI is fixed, so its structs are spelled here) ---- */

enum { DL_CPU = 1, DL_CUDA = 2, DL_CUDA_HOST = 3, DL_CUDA_MANAGED = 13 };
enum { DL_INT = 0, DL_UINT = 1, DL_FLOAT = 2, DL_BOOL = 6 };
#define DL_FLAG_READ_ONLY 1u

typedef struct {
  int32_t device_type, device_id;
} DLDevice;
typedef struct {
  uint8_t code, bits;
  uint16_t lanes;
} DLDataType;
typedef struct {
  void *data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t *shape, *strides;
  uint64_t byte_offset;
} DLTensor;
typedef struct DLManagedTensor {
  DLTensor dl_tensor;
  void *manager_ctx;
  void (*deleter)(struct DLManagedTensor *self);
} DLManagedTensor;
typedef struct {
  uint32_t major, minor;
} DLPackVersion;
typedef struct DLManagedTensorVersioned {
  DLPackVersion version;
  void *manager_ctx;
  void (*deleter)(struct DLManagedTensorVersioned *self);
  uint64_t flags;
  DLTensor dl_tensor;
} DLManagedTensorVersioned;

static int dl_space(int device_type) {
  switch (device_type) {
  case DL_CPU: return PORTA_HOST_SPACE;
  case DL_CUDA: return PORTA_CUDA_SPACE;
  case DL_CUDA_HOST: return PORTA_CUDA_HOST_PINNED_SPACE;
  case DL_CUDA_MANAGED: return PORTA_CUDA_UVM_SPACE;
  }
  return -1;
}

static int space_dl(int space) {
  switch (space) {
  case PORTA_CUDA_SPACE: return DL_CUDA;
  case PORTA_CUDA_HOST_PINNED_SPACE: return DL_CUDA_HOST;
  case PORTA_CUDA_UVM_SPACE: return DL_CUDA_MANAGED;
  }
  return DL_CPU;
}

/* ---- the View type ---- */

typedef struct ViewObject {
  PyObject_HEAD porta_view v;
  Py_ssize_t shape[PORTA_MAX_RANK];
  Py_ssize_t strides[PORTA_MAX_RANK]; /* bytes, for the buffer protocol */
} ViewObject;

static PyTypeObject *ViewType;  /* porta._core.View */
static PyTypeObject *ViewClass; /* the class mirrors are made of (porta.View) */

static int is_view(PyObject *o) {
  return Py_TYPE(o) == ViewClass || PyObject_TypeCheck(o, ViewType);
}

static int host_accessible(int space) {
  return porta_space_accessible(PORTA_BACKEND_SERIAL, (porta_memory_space)space);
}

static int device_accessible(int space) {
  return space == PORTA_CUDA_SPACE || space == PORTA_CUDA_UVM_SPACE ||
         space == PORTA_CUDA_HOST_PINNED_SPACE;
}

/** Map a failed Porta call to an exception: incompatible views and bad arguments are
 *  ValueErrors (a mismatch the caller made), the rest porta.PortaError. */
static PyObject *porta_raise(int rc, const char *what) {
  const char *msg = porta_last_error_message();
  PyObject *type = (rc == PORTA_ERROR_INCOMPATIBLE || rc == PORTA_ERROR_INVALID_ARGUMENT)
                       ? PyExc_ValueError
                       : porta_py_error;
  PyErr_Format(type, "%s: %s", what, (msg && msg[0]) ? msg : porta_error_name(rc));
  return NULL;
}

/** A View object of class `cls` owning `*v` (the reference moves into it). */
static PyObject *view_wrap_owned(PyTypeObject *cls, porta_view *v) {
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
  if (!host_accessible(m->space)) {
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
  const int itemsize = ptype_info(m->type, &kind, &format, &typestr);
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
  type_name(((ViewObject *)self)->v.m.type, name, sizeof name);
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
  if (!device_accessible(m->space)) {
    PyErr_Format(PyExc_AttributeError,
                 "view '%s' is in %s: __cuda_array_interface__ is for views a GPU can read "
                 "(numpy.asarray(view) reads this one)",
                 m->label, pyarr_space_name(m->space));
    return NULL;
  }
  char kind;
  const char *format, *typestr;
  const int itemsize = ptype_info(m->type, &kind, &format, &typestr);
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

/** __dlpack__(*, stream=None, max_version=None, dl_device=None, copy=None). */
static PyObject *View_dlpack(PyObject *self, PyObject *args, PyObject *kw) {
  static char *kwlist[] = {"stream", "max_version", "dl_device", "copy", NULL};
  PyObject *stream = Py_None, *max_version = Py_None, *dl_device = Py_None, *copy = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "|$OOOO", kwlist, &stream, &max_version, &dl_device,
                                   &copy))
    return NULL;
  ViewObject *o = (ViewObject *)self;
  const porta_view_meta *m = &o->v.m;
  const int dev_type = space_dl(m->space);
  const int dev_id = dev_type == DL_CUDA || dev_type == DL_CUDA_MANAGED ? pyarr_porta_device() : 0;
  if (copy != Py_None && PyObject_IsTrue(copy) == 1) {
    PyErr_SetString(PyExc_BufferError, "porta.View.__dlpack__: copy=True is not supported "
                                       "(copy with porta.deep_copy first)");
    return NULL;
  }
  if (dl_device != Py_None) {
    int t = -1, i = -1;
    if (!PyArg_ParseTuple(dl_device, "ii", &t, &i)) return NULL;
    if (t != dev_type || i != dev_id) {
      PyErr_Format(PyExc_BufferError,
                   "porta.View.__dlpack__: the view is on device (%d, %d), not (%d, %d)", dev_type,
                   dev_id, t, i);
      return NULL;
    }
  }
  if (stream != Py_None) {
    if (!PyLong_Check(stream)) {
      PyErr_SetString(PyExc_TypeError, "__dlpack__: stream must be an int or None");
      return NULL;
    }
    long long s = PyLong_AsLongLong(stream);
    if (s == -1 && PyErr_Occurred()) return NULL;
    if (dev_type == DL_CPU) {
      PyErr_SetString(PyExc_BufferError, "__dlpack__: a host view takes no stream");
      return NULL;
    }
    /* Porta's work is on the legacy default stream: a consumer on it (1) or asking for no
       synchronisation (-1) waits for nothing; another stream gets the data once it is done. */
    if (s != 1 && s != -1) {
      int rc = porta_fence("porta.View.__dlpack__");
      if (rc != PORTA_SUCCESS) return porta_raise(rc, "__dlpack__");
    }
  }
  int versioned = 0;
  if (max_version != Py_None) {
    long major = 0;
    PyObject *mj = PySequence_GetItem(max_version, 0);
    if (!mj) return NULL;
    major = PyLong_AsLong(mj);
    Py_DECREF(mj);
    if (major == -1 && PyErr_Occurred()) return NULL;
    versioned = major >= 1;
  }
  dl_export *e = (dl_export *)calloc(1, sizeof *e);
  if (!e) return PyErr_NoMemory();
  e->v = o->v;
  porta_view_retain(&e->v);
  char kind;
  const char *format, *typestr;
  const int itemsize = ptype_info(m->type, &kind, &format, &typestr);
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

static PyObject *View_dlpack_device(PyObject *self, PyObject *unused) {
  (void)unused;
  const int space = ((ViewObject *)self)->v.m.space;
  const int t = space_dl(space);
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
  if (rc != PORTA_SUCCESS) return porta_raise(rc, "fill");
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

static PyType_Spec View_spec = {"porta._core.View", sizeof(ViewObject), 0,
                                Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE, View_slots};

/* ---- reading arrays ---- */

/** The stream of a __cuda_array_interface__ other than the legacy (1) and per-thread (2)
 *  default streams is synchronised with cudaStreamSynchronize, found in the CUDA runtime that
 *  libporta loaded (no link to it here: the extension is built without CUDA). */
typedef int (*stream_sync_fn)(void *);
static int find_cudart(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  if (info->dlpi_name && strstr(info->dlpi_name, "libcudart.so")) {
    void *h = dlopen(info->dlpi_name, RTLD_NOW | RTLD_NOLOAD);
    if (h) {
      *(stream_sync_fn *)data = (stream_sync_fn)dlsym(h, "cudaStreamSynchronize");
      return 1;
    }
  }
  return 0;
}

static int sync_stream(uintptr_t stream) {
  static stream_sync_fn fn = NULL;
  if (!fn) dl_iterate_phdr(find_cudart, &fn);
  if (!fn) {
    PyErr_SetString(PyExc_RuntimeError,
                    "__cuda_array_interface__ names a CUDA stream, but this Porta was built "
                    "without CUDA");
    return -1;
  }
  int err = fn((void *)stream);
  if (err != 0) {
    PyErr_Format(porta_py_error, "cudaStreamSynchronize on the array's stream failed (%d)", err);
    return -1;
  }
  return 0;
}

static int dict_int(PyObject *d, const char *k, long long *out, int required) {
  PyObject *v = PyDict_GetItemString(d, k); /* borrowed */
  if (!v || v == Py_None) {
    if (required) PyErr_Format(PyExc_TypeError, "__cuda_array_interface__ has no '%s'", k);
    return required ? -1 : 0;
  }
  *out = PyLong_AsLongLong(v);
  if (*out == -1 && PyErr_Occurred()) return -1;
  return 1;
}

static int read_cai(PyObject *o, PyObject *d, pyarr *a) {
  if (!PyDict_Check(d)) {
    PyErr_SetString(PyExc_TypeError, "__cuda_array_interface__ is not a dict");
    return -1;
  }
  PyObject *shape = PyDict_GetItemString(d, "shape");
  PyObject *typestr = PyDict_GetItemString(d, "typestr");
  PyObject *data = PyDict_GetItemString(d, "data");
  PyObject *strides = PyDict_GetItemString(d, "strides");
  PyObject *mask = PyDict_GetItemString(d, "mask");
  if (!shape || !PyTuple_Check(shape) || !typestr || !data || !PyTuple_Check(data) ||
      PyTuple_Size(data) != 2) {
    PyErr_Format(PyExc_TypeError, "%s's __cuda_array_interface__ lacks shape, typestr or data",
                 "the argument");
    return -1;
  }
  if (mask && mask != Py_None) {
    PyErr_SetString(PyExc_TypeError, "masked arrays (__cuda_array_interface__ 'mask') are not "
                                     "supported");
    return -1;
  }
  long long version = 0;
  if (dict_int(d, "version", &version, 0) < 0) return -1;
  const Py_ssize_t nd = PyTuple_Size(shape);
  if (nd > PORTA_MAX_RANK) {
    PyErr_Format(PyExc_TypeError, "an array of %zd dimensions (at most %d)", nd, PORTA_MAX_RANK);
    return -1;
  }
  const char *ts = PyUnicode_AsUTF8AndSize(typestr, NULL);
  if (!ts) return -1;
  if (strlen(ts) < 3 || ts[0] == '>') {
    PyErr_Format(PyExc_TypeError, "unsupported __cuda_array_interface__ typestr '%s'", ts);
    return -1;
  }
  const int size = atoi(ts + 2);
  a->kind = ts[1];
  a->format = NULL;
  a->dtype = dtype_code(ts[1], size, &a->ptype);
  a->itemsize = size;
  a->ndim = (int)nd;
  a->data = PyLong_AsVoidPtr(PyTuple_GetItem(data, 0));
  if (!a->data && PyErr_Occurred()) return -1;
  a->readonly = PyObject_IsTrue(PyTuple_GetItem(data, 1)) == 1;
  int64_t want = size;
  for (int r = (int)nd - 1; r >= 0; --r) {
    a->shape[r] = PyLong_AsLongLong(PyTuple_GetItem(shape, r));
    a->strides[r] = want;
    want *= a->shape[r];
  }
  if (strides && strides != Py_None) {
    if (!PyTuple_Check(strides) || PyTuple_Size(strides) != nd) {
      PyErr_SetString(PyExc_TypeError, "__cuda_array_interface__ strides of the wrong length");
      return -1;
    }
    for (int r = 0; r < (int)nd; ++r)
      a->strides[r] = PyLong_AsLongLong(PyTuple_GetItem(strides, r));
  }
  if (PyErr_Occurred()) return -1;
  a->space = PORTA_CUDA_SPACE; /* the interface does not say more */
  a->device = -1;
  a->via = "__cuda_array_interface__";
  long long stream = 0;
  int has = version >= 3 ? dict_int(d, "stream", &stream, 0) : 0;
  if (has < 0) return -1;
  if (has && stream == 0) {
    PyErr_SetString(PyExc_ValueError, "__cuda_array_interface__: stream 0 is not allowed");
    return -1;
  }
  if (has && stream != 1 && stream != 2 && sync_stream((uintptr_t)stream) < 0) return -1;
  (void)o;
  return 1;
}

static int read_dlpack(PyObject *o, pyarr *a) {
  PyObject *cap = PyObject_CallMethod(o, "__dlpack__", NULL);
  if (!cap) return -1;
  DLManagedTensor *mt = (DLManagedTensor *)PyCapsule_GetPointer(cap, "dltensor");
  if (!mt) {
    Py_DECREF(cap);
    return -1;
  }
  /* Consumed: the capsule's destructor leaves the tensor to us (deleter on release). */
  if (PyCapsule_SetName(cap, "used_dltensor") < 0) {
    Py_DECREF(cap);
    return -1;
  }
  Py_DECREF(cap);
  a->dl = mt;
  a->dl_ver = 0;
  const DLTensor *t = &mt->dl_tensor;
  if (t->ndim > PORTA_MAX_RANK || t->ndim < 0 || t->dtype.lanes != 1) {
    PyErr_Format(PyExc_TypeError, "a DLPack tensor of %d dimensions and %d lanes is not supported",
                 (int)t->ndim, (int)t->dtype.lanes);
    return -1;
  }
  const char kind = t->dtype.code == DL_FLOAT  ? 'f'
                    : t->dtype.code == DL_INT  ? 'i'
                    : t->dtype.code == DL_UINT ? 'u'
                    : t->dtype.code == DL_BOOL ? 'b'
                                               : '?';
  const int size = t->dtype.bits / 8;
  a->kind = kind;
  a->format = NULL;
  a->dtype = dtype_code(kind, size, &a->ptype);
  a->itemsize = size;
  a->ndim = t->ndim;
  a->data = (char *)t->data + t->byte_offset;
  a->readonly = 0;
  int64_t want = 1;
  for (int r = t->ndim - 1; r >= 0; --r) {
    a->shape[r] = t->shape[r];
    a->strides[r] = (t->strides ? t->strides[r] : want) * size;
    want *= t->shape[r];
  }
  a->space = dl_space(t->device.device_type);
  a->device = t->device.device_type == DL_CPU ? -1 : t->device.device_id;
  a->via = "DLPack";
  if (a->space < 0) {
    PyErr_Format(PyExc_TypeError,
                 "a DLPack tensor on device type %d (Porta reads CPU, CUDA, "
                 "CUDA host and CUDA managed memory)",
                 (int)t->device.device_type);
    return -1;
  }
  return 1;
}

/** __cuda_array_interface__, else DLPack: 1 (read), 0 (neither) or -1 (an error). */
static int device_protocols(PyObject *o, pyarr *a) {
  PyObject *cai = PyObject_GetAttrString(o, "__cuda_array_interface__");
  if (cai) {
    int r = read_cai(o, cai, a);
    Py_DECREF(cai);
    return r;
  }
  if (!PyErr_ExceptionMatches(PyExc_AttributeError)) return -1;
  PyErr_Clear();
  PyObject *dl = PyObject_GetAttrString(o, "__dlpack__");
  if (!dl) {
    if (!PyErr_ExceptionMatches(PyExc_AttributeError)) return -1;
    PyErr_Clear();
    return 0;
  }
  Py_DECREF(dl);
  int r = read_dlpack(o, a);
  if (r < 0) pyarr_release(a);
  return r;
}

int pyarr_get(PyObject *o, pyarr *a) {
  a->has_buffer = 0;
  a->dl = NULL;
  if (PyFloat_Check(o) || PyLong_Check(o)) return 0;
  if (is_view(o)) {
    const porta_view_meta *m = &((ViewObject *)o)->v.m;
    char kind;
    const char *format, *typestr;
    const int size = ptype_info(m->type, &kind, &format, &typestr);
    a->data = ((ViewObject *)o)->v.data;
    a->ndim = m->rank;
    a->kind = kind;
    a->format = NULL;
    a->dtype = dtype_code(kind, size, &a->ptype);
    a->itemsize = size;
    a->space = m->space;
    a->readonly = (m->traits & PORTA_VIEW_CONST) != 0;
    a->device = device_accessible(m->space) ? pyarr_porta_device() : -1;
    for (int r = 0; r < m->rank; ++r) {
      a->shape[r] = m->extent[r];
      a->strides[r] = m->stride[r] * size;
    }
    a->via = "porta.View";
    return 1;
  }
  if (PyObject_CheckBuffer(o)) {
    if (PyObject_GetBuffer(o, &a->buf, PyBUF_RECORDS_RO) < 0) {
      /* A device array may export a buffer that refuses the host (CuPy's): read its
         __cuda_array_interface__ or DLPack instead, else report the buffer's error. */
      PyObject *et, *ev, *tb;
      PyErr_Fetch(&et, &ev, &tb);
      int r = device_protocols(o, a);
      if (r == 0) {
        PyErr_Restore(et, ev, tb);
        return -1;
      }
      Py_XDECREF(et);
      Py_XDECREF(ev);
      Py_XDECREF(tb);
      return r;
    }
    if (a->buf.ndim == 0) { /* a NumPy scalar */
      PyBuffer_Release(&a->buf);
      return 0;
    }
    a->has_buffer = 1;
    if (a->buf.ndim > PORTA_MAX_RANK) {
      PyErr_Format(PyExc_TypeError, "an array of %d dimensions (at most %d)", a->buf.ndim,
                   PORTA_MAX_RANK);
      pyarr_release(a);
      return -1;
    }
    const char kind = format_kind(a->buf.format, a->buf.itemsize);
    a->kind = kind;
    a->format = a->buf.format;
    a->dtype = dtype_code(kind, (int)a->buf.itemsize, &a->ptype);
    a->data = a->buf.buf;
    a->ndim = a->buf.ndim;
    a->itemsize = a->buf.itemsize;
    a->space = PORTA_HOST_SPACE;
    a->readonly = a->buf.readonly;
    a->device = -1;
    for (int r = 0; r < a->ndim; ++r) {
      a->shape[r] = a->buf.shape[r];
      a->strides[r] = a->buf.strides[r];
    }
    a->via = "the buffer protocol";
    return 1;
  }
  return device_protocols(o, a);
}

void pyarr_release(pyarr *a) {
  if (a->has_buffer) PyBuffer_Release(&a->buf);
  a->has_buffer = 0;
  if (a->dl) {
    if (a->dl_ver) {
      DLManagedTensorVersioned *t = (DLManagedTensorVersioned *)a->dl;
      if (t->deleter) t->deleter(t);
    } else {
      DLManagedTensor *t = (DLManagedTensor *)a->dl;
      if (t->deleter) t->deleter(t);
    }
  }
  a->dl = NULL;
}

int pyarr_layout(const pyarr *a) {
  int c = 1, f = 1;
  int64_t want = a->itemsize;
  for (int r = a->ndim - 1; r >= 0; --r) {
    if (a->shape[r] > 1 && a->strides[r] != want) c = 0;
    want *= a->shape[r];
  }
  want = a->itemsize;
  for (int r = 0; r < a->ndim; ++r) {
    if (a->shape[r] > 1 && a->strides[r] != want) f = 0;
    want *= a->shape[r];
  }
  if (c) return PORTA_PY_LAYOUT_C;
  if (f) return PORTA_PY_LAYOUT_F;
  return PORTA_PY_LAYOUT_STRIDED;
}

/* ---- module functions ---- */

/** A porta_view for `o`: a View's own (borrowed, *wrapped = 0), or any other array wrapped as an
 *  unmanaged view of its space (the layout C, F or strided as its strides say; an array that is
 *  both C and F contiguous takes `prefer`). */
static int as_view(PyObject *o, const char *what, porta_layout prefer, porta_view *out, pyarr *a) {
  if (is_view(o)) {
    *out = ((ViewObject *)o)->v;
    a->has_buffer = 0;
    a->dl = NULL;
    return 0;
  }
  int r = pyarr_get(o, a);
  if (r <= 0) {
    if (r == 0) {
      PyObject *tn = PyType_GetName(Py_TYPE(o));
      PyErr_Format(PyExc_TypeError, "%s must be a porta.View or an array, not %S", what,
                   tn ? tn : Py_None);
      Py_XDECREF(tn);
    }
    return -1;
  }
  int64_t st[PORTA_MAX_RANK];
  int c = 1, f = 1;
  int64_t want = 1;
  for (int k = a->ndim - 1; k >= 0; --k) {
    if (a->strides[k] % a->itemsize != 0) {
      PyErr_Format(PyExc_ValueError,
                   "%s has a stride of %lld bytes, not a multiple of its "
                   "itemsize %zd",
                   what, (long long)a->strides[k], a->itemsize);
      pyarr_release(a);
      return -1;
    }
    st[k] = a->strides[k] / a->itemsize;
    if (a->shape[k] > 1 && st[k] != want) c = 0;
    want *= a->shape[k];
  }
  want = 1;
  for (int k = 0; k < a->ndim; ++k) {
    if (a->shape[k] > 1 && st[k] != want) f = 0;
    want *= a->shape[k];
  }
  porta_view_options opt;
  opt.space = (porta_memory_space)a->space;
  opt.layout = c && f && prefer != PORTA_LAYOUT_DEFAULT ? prefer
               : c                                      ? PORTA_LAYOUT_RIGHT
               : f                                      ? PORTA_LAYOUT_LEFT
                                                        : PORTA_LAYOUT_STRIDE;
  opt.flags = a->readonly ? PORTA_VIEW_CONST : 0;
  opt.stride = opt.layout == PORTA_LAYOUT_STRIDE ? st : NULL;
  int rc = porta_view_wrap(out, a->data, what, (porta_type)a->ptype, (size_t)a->itemsize, a->ndim,
                           a->shape, &opt);
  if (rc != PORTA_SUCCESS) {
    pyarr_release(a);
    porta_raise(rc, what);
    return -1;
  }
  return 0;
}

/** deep_copy(dst, src): porta_view_deep_copy; either may be a porta.View or any array. */
static PyObject *core_deep_copy(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
  (void)self;
  if (nargs != 2) {
    PyErr_SetString(PyExc_TypeError, "deep_copy(dst, src)");
    return NULL;
  }
  porta_view dst, src;
  pyarr ad, as;
  porta_layout prefer_d =
      is_view(args[1]) ? (porta_layout)((ViewObject *)args[1])->v.m.layout : PORTA_LAYOUT_DEFAULT;
  if (as_view(args[0], "dst", prefer_d, &dst, &ad) < 0) return NULL;
  if (as_view(args[1], "src", (porta_layout)dst.m.layout, &src, &as) < 0) {
    pyarr_release(&ad);
    return NULL;
  }
  PyObject *result = NULL;
  if (dst.m.type != src.m.type || dst.m.value_size != src.m.value_size) {
    char nd[16], ns[16];
    type_name(dst.m.type, nd, sizeof nd);
    type_name(src.m.type, ns, sizeof ns);
    PyErr_Format(PyExc_ValueError,
                 "deep_copy: dst has dtype %s, src has dtype %s (Porta does not convert "
                 "element types in deep_copy)",
                 nd, ns);
  } else {
    PyThreadState *ts = PyEval_SaveThread();
    int rc = porta_view_deep_copy(dst, src);
    PyEval_RestoreThread(ts);
    if (rc != PORTA_SUCCESS) {
      porta_raise(rc, "deep_copy");
    } else {
      Py_INCREF(Py_None);
      result = Py_None;
    }
  }
  pyarr_release(&ad);
  pyarr_release(&as);
  return result;
}

static PyObject *mirror(PyObject *src, int view_if_host) {
  if (view_if_host) {
    if (is_view(src) && host_accessible(((ViewObject *)src)->v.m.space)) {
      Py_INCREF(src);
      return src;
    }
    if (!is_view(src)) {
      pyarr a;
      int r = pyarr_get(src, &a);
      if (r < 0) return NULL;
      int host = r == 1 && host_accessible(a.space);
      if (r == 1) pyarr_release(&a);
      if (host) {
        Py_INCREF(src);
        return src;
      }
    }
  }
  porta_view s, out;
  pyarr a;
  if (as_view(src, "src", PORTA_LAYOUT_DEFAULT, &s, &a) < 0) return NULL;
  int rc = porta_view_create_mirror(&out, &s);
  pyarr_release(&a);
  if (rc != PORTA_SUCCESS) return porta_raise(rc, "create_mirror");
  return view_wrap_owned(ViewClass, &out);
}

static PyObject *core_create_mirror(PyObject *self, PyObject *src) {
  (void)self;
  return mirror(src, 0);
}

static PyObject *core_create_mirror_view(PyObject *self, PyObject *src) {
  (void)self;
  return mirror(src, 1);
}

/** view_create(cls, shape, dtype, space, layout, label, initialize): a new view. */
static PyObject *core_view_create(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *cls, *shape;
  const char *dtype, *label;
  int space, layout, init;
  if (!PyArg_ParseTuple(args, "OOsiisp", &cls, &shape, &dtype, &space, &layout, &label, &init))
    return NULL;
  if (!PyType_Check(cls) || !PyType_IsSubtype((PyTypeObject *)cls, ViewType)) {
    PyErr_SetString(PyExc_TypeError, "view_create: cls must be a subclass of _core.View");
    return NULL;
  }
  PyObject *t = PySequence_Tuple(shape);
  if (!t) return NULL;
  const Py_ssize_t nd = PyTuple_Size(t);
  int64_t ext[PORTA_MAX_RANK];
  if (nd > PORTA_MAX_RANK) {
    Py_DECREF(t);
    PyErr_Format(PyExc_ValueError, "a view has at most %d dimensions", PORTA_MAX_RANK);
    return NULL;
  }
  for (Py_ssize_t r = 0; r < nd; ++r) {
    ext[r] = PyLong_AsLongLong(PyTuple_GetItem(t, r));
    if (ext[r] < 0 && !PyErr_Occurred())
      PyErr_Format(PyExc_ValueError, "negative extent %lld", (long long)ext[r]);
  }
  Py_DECREF(t);
  if (PyErr_Occurred()) return NULL;
  int pt;
  char name[16];
  const char kind = dtype[0];
  const int size = atoi(dtype + 1);
  dtype_of(kind, size, &pt, name, sizeof name);
  if (pt == PORTA_TYPE_USER && !(kind == 'b' && size == 1)) {
    PyErr_Format(PyExc_TypeError,
                 "views hold float64, float32, int64, int32, uint64, uint32, "
                 "uint8 or bool, not %s",
                 name);
    return NULL;
  }
  if (space < 0) space = porta_default_memory_space();
  if (space >= PORTA_NUM_MEMORY_SPACES) {
    PyErr_Format(PyExc_ValueError, "unknown memory space %d", space);
    return NULL;
  }
  porta_view_options opt;
  opt.space = (porta_memory_space)space;
  opt.layout = (porta_layout)layout;
  opt.flags = init ? 0 : PORTA_VIEW_UNINITIALIZED;
  opt.stride = NULL;
  porta_view v;
  int rc = porta_view_create(&v, label, (porta_type)pt, (size_t)size, (int)nd, ext, &opt);
  if (rc != PORTA_SUCCESS) return porta_raise(rc, "porta.View");
  return view_wrap_owned((PyTypeObject *)cls, &v);
}

static PyObject *core_set_view_class(PyObject *self, PyObject *cls) {
  (void)self;
  if (!PyType_Check(cls) || !PyType_IsSubtype((PyTypeObject *)cls, ViewType)) {
    PyErr_SetString(PyExc_TypeError, "_set_view_class: a subclass of _core.View");
    return NULL;
  }
  Py_INCREF(cls);
  Py_XDECREF((PyObject *)ViewClass);
  ViewClass = (PyTypeObject *)cls;
  Py_RETURN_NONE;
}

/** array_info(obj): None for a scalar, else (ndim, dtype name, space, layout code, via). */
static PyObject *core_array_info(PyObject *self, PyObject *o) {
  (void)self;
  pyarr a;
  int r = pyarr_get(o, &a);
  if (r < 0) return NULL;
  if (r == 0) Py_RETURN_NONE;
  char buf[24];
  PyObject *t = Py_BuildValue("(isiis)", a.ndim, pyarr_dtype_name(&a, buf, sizeof buf), a.space,
                              pyarr_layout(&a), a.via);
  pyarr_release(&a);
  return t;
}

static PyObject *core_space_accessible(PyObject *self, PyObject *args) {
  (void)self;
  int backend, space;
  if (!PyArg_ParseTuple(args, "ii", &backend, &space)) return NULL;
  if (backend < 0 || backend >= PORTA_NUM_BACKENDS || space < 0 || space >= PORTA_NUM_MEMORY_SPACES)
    Py_RETURN_FALSE;
  return PyBool_FromLong(porta_space_accessible((porta_backend)backend, (porta_memory_space)space));
}

PyMethodDef porta_py_array_methods[] = {
    {"deep_copy", (PyCFunction)(void (*)(void))core_deep_copy, METH_FASTCALL,
     "deep_copy(dst, src): porta_view_deep_copy (views or arrays)."},
    {"create_mirror", core_create_mirror, METH_O, "A new host view shaped like src."},
    {"create_mirror_view", core_create_mirror_view, METH_O,
     "src itself when the host can read it, else a new host mirror."},
    {"view_create", core_view_create, METH_VARARGS, "A new view (porta_view_create)."},
    {"_set_view_class", core_set_view_class, METH_O, "The class mirrors are made of."},
    {"array_info", core_array_info, METH_O, "(ndim, dtype, space, layout, via) or None."},
    {"space_accessible", core_space_accessible, METH_VARARGS, "porta_space_accessible."},
    {NULL, NULL, 0, NULL}};

int porta_py_arrays_init(PyObject *m) {
  ViewType = (PyTypeObject *)PyType_FromSpec(&View_spec);
  if (!ViewType) return -1;
  Py_INCREF((PyObject *)ViewType);
  ViewClass = ViewType;
  Py_INCREF((PyObject *)ViewClass);
  if (PyModule_AddObject(m, "View", (PyObject *)ViewType) < 0) return -1;
  if (PyModule_AddIntConstant(m, "HOST_SPACE", PORTA_HOST_SPACE) < 0 ||
      PyModule_AddIntConstant(m, "CUDA_SPACE", PORTA_CUDA_SPACE) < 0 ||
      PyModule_AddIntConstant(m, "CUDA_UVM_SPACE", PORTA_CUDA_UVM_SPACE) < 0 ||
      PyModule_AddIntConstant(m, "CUDA_HOST_PINNED_SPACE", PORTA_CUDA_HOST_PINNED_SPACE) < 0 ||
      PyModule_AddIntConstant(m, "CUDA_BACKEND", PORTA_BACKEND_CUDA) < 0 ||
      PyModule_AddIntConstant(m, "CUDA_BUILT", PORTA_ENABLE_CUDA) < 0)
    return -1;
  return 0;
}
