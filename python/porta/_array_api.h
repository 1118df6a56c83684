/** @file _array_api.h
 *  What porta._core gives other extensions of the package (porta._exchange): reading a
 *  porta.View or any array into a porta_view, through the C functions _core itself uses
 *  (_view_functions.c). Exported as the capsule porta._core._array_api, so that there is one
 *  View type and one copy of the array protocols in the process; the other extension imports
 *  it with porta_py_array_api_import(). Private to the package. */
#ifndef PORTA_PY_ARRAY_API_H
#define PORTA_PY_ARRAY_API_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "porta/porta.h"

#define PORTA_PY_ARRAY_API_NAME "porta._core._array_api"
#define PORTA_PY_ARRAY_API_VERSION 1

typedef struct porta_py_array_api {
  int version; /**< PORTA_PY_ARRAY_API_VERSION */
  /** `o` as a porta_view: a View's own (borrowed), or any other array wrapped as an unmanaged
   *  view of its memory space (C, F or strided, as its strides say). *hold gets what must be
   *  given back to release() once the view is no longer used (NULL for a View, whose Python
   *  object the caller keeps alive). 0, or -1 with an exception naming `what`. */
  int (*as_view)(PyObject *o, const char *what, porta_view *out, void **hold);
  /** Give back what as_view took (a buffer, a DLPack tensor); NULL is a no-op. */
  void (*release)(void *hold);
  /** porta.PortaError. */
  PyObject *error;
} porta_py_array_api;

/** The API of porta._core (imported here), or NULL with an exception set. */
static inline const porta_py_array_api *porta_py_array_api_import(void) {
  const porta_py_array_api *api =
      (const porta_py_array_api *)PyCapsule_Import(PORTA_PY_ARRAY_API_NAME, 0);
  if (api && api->version != PORTA_PY_ARRAY_API_VERSION) {
    PyErr_Format(PyExc_ImportError, "porta._core's array API is version %d, expected %d",
                 api->version, PORTA_PY_ARRAY_API_VERSION);
    return NULL;
  }
  return api;
}

#endif /* PORTA_PY_ARRAY_API_H */
