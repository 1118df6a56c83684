/** @file _arrays.h
 *  The array side of porta._core (docs/python.md, "Arrays"): reading any array a kernel is
 *  given (a porta.View, the buffer protocol, __cuda_array_interface__ v3, DLPack) into one
 *  description with its memory space, and the porta.View type (Porta views from Python: the
 *  buffer protocol on the host, __cuda_array_interface__ and DLPack on the GPU, deep_copy and
 *  mirrors). Private to the extension (_core.c and _arrays.c). */
#ifndef PORTA_PY_ARRAYS_H
#define PORTA_PY_ARRAYS_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "porta/porta.h"
#include "porta_py.h"

/** porta.PortaError (defined in _core.c). */
extern PyObject *porta_py_error;

/** An array argument, whatever protocol it came through. */
typedef struct pyarr {
  void *data;
  int ndim;
  int dtype;    /**< porta_py_dtype, or -1 (a dtype kernels do not take) */
  int ptype;    /**< porta_type (PORTA_TYPE_USER for bool) */
  int space;    /**< porta_memory_space of the data */
  int readonly; /**< the producer marked it read-only */
  int device;   /**< the GPU it lives on (DLPack, porta.View), or -1 if not known */
  Py_ssize_t itemsize;
  int64_t shape[PORTA_MAX_RANK];
  int64_t strides[PORTA_MAX_RANK]; /**< in bytes */
  const char *via;                 /**< the protocol, for messages */
  char kind;                       /**< 'f', 'i', 'u', 'b' (0: unknown) */
  const char *format;              /**< the buffer's format (while it is held), or NULL */
  /* what to give back */
  int has_buffer;
  Py_buffer buf;
  void *dl;   /**< a consumed DLPack tensor, whose deleter runs on release */
  int dl_ver; /**< it is a DLManagedTensorVersioned */
} pyarr;

/** Read `o` as an array: 1 (an array, *a filled), 0 (not an array: a scalar) or -1 (an
 *  exception is set). Python floats and ints return 0 at once. */
int pyarr_get(PyObject *o, pyarr *a);
/** The dtype's NumPy name (or the buffer's format), for messages; buf holds an unknown one. */
const char *pyarr_dtype_name(const pyarr *a, char *buf, size_t cap);
/** Give back what pyarr_get took (buffer, DLPack tensor). */
void pyarr_release(pyarr *a);
/** PORTA_PY_LAYOUT_C, _F, _C_PADDED, _F_PADDED or _STRIDED from the shape and byte strides. */
int pyarr_layout(const pyarr *a);
/** "host memory", "CUDA device memory" ... */
const char *pyarr_space_name(int space);
/** The GPU Porta's CUDA back end uses (porta_device_id, or 0 when CUDA is not the default). */
int pyarr_porta_device(void);

/** Add porta._core.View and the array functions to the module. */
int porta_py_arrays_init(PyObject *m);
/** The array functions, for core_methods. */
extern PyMethodDef porta_py_array_methods[];

#endif
