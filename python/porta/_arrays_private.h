/** @file _arrays_private.h
 *  What the array files of porta._core share (_arrays.c: reading arrays; _view.c: the View
 *  type; _view_functions.c: deep_copy, mirrors, views from Python): the DLPack structs, the
 *  View object and the helpers each of them uses. Private to the extension. */
#ifndef PORTA_PY_ARRAYS_PRIVATE_H
#define PORTA_PY_ARRAYS_PRIVATE_H

#include "_arrays.h" /* first: Python.h before any system header */

#include <stdint.h>

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

/** The Porta memory space of a DLPack device type, or -1. */
static inline int pyarr_dl_space(int device_type) {
  switch (device_type) {
  case DL_CPU: return PORTA_HOST_SPACE;
  case DL_CUDA: return PORTA_CUDA_SPACE;
  case DL_CUDA_HOST: return PORTA_CUDA_HOST_PINNED_SPACE;
  case DL_CUDA_MANAGED: return PORTA_CUDA_UVM_SPACE;
  }
  return -1;
}

/** The DLPack device type of a Porta memory space. */
static inline int pyarr_space_dl(int space) {
  switch (space) {
  case PORTA_CUDA_SPACE: return DL_CUDA;
  case PORTA_CUDA_HOST_PINNED_SPACE: return DL_CUDA_HOST;
  case PORTA_CUDA_UVM_SPACE: return DL_CUDA_MANAGED;
  }
  return DL_CPU;
}

/** A porta._core.View: a Porta view owned by a Python object. */
typedef struct ViewObject {
  PyObject_HEAD porta_view v;
  Py_ssize_t shape[PORTA_MAX_RANK];
  Py_ssize_t strides[PORTA_MAX_RANK]; /* bytes, for the buffer protocol */
} ViewObject;

extern PyTypeObject *porta_py_view_type;  /**< porta._core.View */
extern PyTypeObject *porta_py_view_class; /**< the class mirrors are made of (porta.View) */
extern PyType_Spec porta_py_view_spec;

static inline int pyarr_is_view(PyObject *o) {
  return Py_TYPE(o) == porta_py_view_class || PyObject_TypeCheck(o, porta_py_view_type);
}

static inline int pyarr_host_accessible(int space) {
  return porta_memory_space_host_accessible((porta_memory_space)space);
}

static inline int pyarr_device_accessible(int space) {
  return porta_space_accessible(PORTA_BACKEND_CUDA, (porta_memory_space)space);
}

/** The porta_py_dtype of a kind and size (-1 if kernels do not take it), its porta_type in
 *  *ptype and its NumPy name in name; -1 and no row when the type is unknown. */
int pyarr_dtype_of(char kind, int size, int *ptype, char *name, size_t cap);
/** The kind, buffer format and __cuda_array_interface__ typestr of a porta_type: 0, or -1. */
int pyarr_ptype_info(int ptype, char *kind, const char **format, const char **typestr);
/** The NumPy name of a porta_type. */
void pyarr_type_name(int ptype, char *name, size_t cap);

/** Map a failed Porta call to an exception: incompatible views and bad arguments are
 *  ValueErrors (a mismatch the caller made), the rest porta.PortaError. */
PyObject *porta_py_raise(int rc, const char *what);
/** A View object of class `cls` owning `*v` (the reference moves into it). */
PyObject *porta_py_view_wrap_owned(PyTypeObject *cls, porta_view *v);

#endif /* PORTA_PY_ARRAYS_PRIVATE_H */
