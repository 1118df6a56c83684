/** @file _core_private.h
 *  What the files of porta._core share (_core.c: run time, generated modules, the module;
 *  _dispatcher.c: a kernel's table of specialisations; _launch.c, _launch_checks.c and
 *  _launch_pieces.c: the launch fast path, over _launch_private.h).
 *  Private to the extension. */
#ifndef PORTA_PY_CORE_PRIVATE_H
#define PORTA_PY_CORE_PRIVATE_H

#include "_arrays.h" /* first: Python.h before any system header */
#include "porta_py.h"

/** The layout signature of a launch's arguments: a code of 4 bits each (a porta_py_layout, or
 *  PORTA_PY_SIG_SCALAR), arguments 0-15 in w[0], 16-31 in w[1]. Python sees it as the tuple
 *  (w[0], w[1]). */
typedef struct porta_py_sig {
  uint64_t w[2];
} porta_py_sig;

enum { PORTA_PY_SIG_BITS = 4, PORTA_PY_SIG_PER_WORD = 16, PORTA_PY_SIG_SCALAR = 15 };

static inline void porta_py_sig_set(porta_py_sig *s, int arg, int code) {
  s->w[arg / PORTA_PY_SIG_PER_WORD] |= (uint64_t)code
                                       << (PORTA_PY_SIG_BITS * (arg % PORTA_PY_SIG_PER_WORD));
}

static inline int porta_py_sig_code(porta_py_sig s, int arg) {
  return (int)((s.w[arg / PORTA_PY_SIG_PER_WORD] >>
                (PORTA_PY_SIG_BITS * (arg % PORTA_PY_SIG_PER_WORD))) &
               PORTA_PY_SIG_SCALAR);
}

static inline int porta_py_sig_equal(porta_py_sig a, porta_py_sig b) {
  return a.w[0] == b.w[0] && a.w[1] == b.w[1];
}

/** A specialisation: the arguments' layouts (sig) and the compiler of its module (variant:
 *  VARIANT_HOST for the C compiler's, VARIANT_CUDA for nvcc's, used on the CUDA back end). */
typedef struct spec_entry {
  porta_py_sig sig;
  const porta_py_kernel *k;
  int variant;
} spec_entry;

enum { VARIANT_HOST = 0, VARIANT_CUDA = 1 };

typedef struct Dispatcher {
  PyObject_HEAD spec_entry *specs;
  Py_ssize_t nspecs, cap;
  PyObject *names; /* tuple of the argument names (kwargs) */
  const char *label;
} Dispatcher;

extern PyTypeObject *porta_py_dispatcher_type; /**< porta._core.Dispatcher */
extern PyType_Spec porta_py_dispatcher_spec;
/** The name of the capsules that carry a generated kernel (porta_py_kernel). */
extern const char *const porta_py_capsule_name;

/** Raise porta.PortaError for a failed Porta call `what` with Porta's message; NULL. */
PyObject *porta_py_failure(int rc, const char *what);

/** An error record for a CUDA launch (pinned memory, claim flag on the device; _core.c), or NULL
 *  with an exception set; and giving it back after the launch (`dirty`: the launch failed, so a
 *  kernel may have claimed it). With the GIL held. */
porta_py_error_record *porta_py_err_take(void);
void porta_py_err_give(porta_py_error_record *e, int dirty);

/** parallel_for / parallel_reduce / parallel_scan(policy, kernel, *args, **kwargs). */
PyObject *porta_py_parallel_for(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                PyObject *kwnames);
PyObject *porta_py_parallel_reduce(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                   PyObject *kwnames);
PyObject *porta_py_parallel_scan(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                 PyObject *kwnames);

#endif /* PORTA_PY_CORE_PRIVATE_H */
