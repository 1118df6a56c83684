/** @file _arrays.c
 *  Reading arrays in porta._core (docs/python.md, "Arrays"): pyarr_get reads any array a kernel
 *  or deep_copy is given, in C, into one description with its memory space: a porta.View (its
 *  struct, no protocol), the buffer protocol (host memory: NumPy ...), __cuda_array_interface__
 *  v3 (CUDA device memory: CuPy, Numba, ...) or DLPack (__dlpack__: the device in the tensor
 *  says where the data is); and the dtypes arrays may have. The View type is _view.c, deep_copy
 *  and mirrors _view_functions.c. Written against Python's limited API (3.11), like _core.c.
 */
#include "_arrays_private.h"

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
int pyarr_dtype_of(char kind, int size, int *ptype, char *name, size_t cap) {
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
int pyarr_ptype_info(int ptype, char *kind, const char **format, const char **typestr) {
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
void pyarr_type_name(int ptype, char *name, size_t cap) {
  char kind;
  const char *format, *typestr;
  int pt;
  const int size = pyarr_ptype_info(ptype, &kind, &format, &typestr);
  pyarr_dtype_of(kind, size, &pt, name, cap);
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
  a->space = pyarr_dl_space(t->device.device_type);
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
  if (pyarr_is_view(o)) {
    const porta_view_meta *m = &((ViewObject *)o)->v.m;
    char kind;
    const char *format, *typestr;
    const int size = pyarr_ptype_info(m->type, &kind, &format, &typestr);
    a->data = ((ViewObject *)o)->v.data;
    a->ndim = m->rank;
    a->kind = kind;
    a->format = NULL;
    a->dtype = dtype_code(kind, size, &a->ptype);
    a->itemsize = size;
    a->space = m->space;
    a->readonly = (m->traits & PORTA_VIEW_CONST) != 0;
    a->device = pyarr_device_accessible(m->space) ? pyarr_porta_device() : -1;
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
  /* Not contiguous: is one end's stride still 1 (padded lines)? A real unit stride first; an
     extent of 1 (only index 0, any stride) next. */
  const int last = a->ndim - 1;
  if (a->ndim < 2) return PORTA_PY_LAYOUT_STRIDED;
  if (a->shape[last] > 1 && a->strides[last] == a->itemsize) return PORTA_PY_LAYOUT_C_PADDED;
  if (a->shape[0] > 1 && a->strides[0] == a->itemsize) return PORTA_PY_LAYOUT_F_PADDED;
  if (a->shape[last] <= 1) return PORTA_PY_LAYOUT_C_PADDED;
  if (a->shape[0] <= 1) return PORTA_PY_LAYOUT_F_PADDED;
  return PORTA_PY_LAYOUT_STRIDED;
}
