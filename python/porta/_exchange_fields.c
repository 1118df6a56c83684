/** @file _exchange_fields.c
 *  porta._exchange: the fields of an exchange, read through porta._core's array API (a
 *  porta.View or any array a kernel accepts) and checked for what the exchange needs
 *  (_exchange_private.h).
 */
#include "_exchange_private.h"

#include <stdio.h>

void pyex_fields_release(fieldset *fs) {
  for (int k = 0; k < fs->n; ++k) {
    pyex_api->release(fs->hold[k]);
    Py_XDECREF(fs->obj[k]);
  }
  memset(fs, 0, sizeof *fs);
}

/** Put "who: " before the message of the exception being raised (same type). */
static void prefix_error(const char *who) {
  PyObject *t, *v, *tb;
  PyErr_Fetch(&t, &v, &tb);
  PyErr_NormalizeException(&t, &v, &tb);
  PyObject *msg = v ? PyObject_Str(v) : NULL;
  if (msg) {
    PyErr_Format(t, "%s: %U", who, msg);
    Py_DECREF(msg);
    Py_XDECREF(t);
    Py_XDECREF(v);
    Py_XDECREF(tb);
  } else {
    PyErr_Restore(t, v, tb);
  }
}

/** Read the sequence `seq` into fs: every field of `value_size`-byte elements (f64_2d: 2D
 *  float64), writable when `writes` (the exchange stores into it), in memory `exec` reaches.
 *  0, or -1 with an exception. */
int pyex_fields_get(PyObject *seq, int max, size_t value_size, int f64_2d, int writes,
                    porta_exec exec, const char *who, fieldset *fs) {
  memset(fs, 0, sizeof *fs);
  if (!PyList_Check(seq) && !PyTuple_Check(seq)) {
    PyErr_Format(PyExc_TypeError, "%s: fields must be a list or tuple of arrays or views", who);
    return -1;
  }
  const Py_ssize_t n = PySequence_Size(seq);
  if (n < 0) return -1;
  if (n < 1 || n > max) {
    PyErr_Format(PyExc_ValueError, "%s: %zd fields given; it takes 1 to %d (max_fields)", who, n,
                 max);
    return -1;
  }
  for (Py_ssize_t k = 0; k < n; ++k) {
    PyObject *o = PySequence_GetItem(seq, k); /* a new reference, kept in fs->obj */
    if (!o) goto fail;
    char what[64];
    snprintf(what, sizeof what, "field %zd", k);
    porta_view v;
    void *hold = NULL;
    if (pyex_api->as_view(o, what, &v, &hold) < 0) {
      Py_DECREF(o);
      prefix_error(who);
      goto fail;
    }
    fs->v[fs->n] = v;
    fs->hold[fs->n] = hold;
    fs->obj[fs->n] = o;
    fs->n++;
    if (f64_2d && (v.m.type != PORTA_TYPE_F64 || v.m.rank != 2)) {
      PyErr_Format(PyExc_TypeError,
                   "%s: field %zd must be a 2D float64 array or view (it has rank %d and "
                   "%u-byte elements%s)",
                   who, k, (int)v.m.rank, (unsigned)v.m.value_size,
                   v.m.type == PORTA_TYPE_F64 ? ", float64" : ", not float64");
      goto fail;
    }
    if (!f64_2d && v.m.value_size != value_size) {
      PyErr_Format(PyExc_TypeError,
                   "%s: field %zd has %u-byte elements; the plan's value_size is %zu", who, k,
                   (unsigned)v.m.value_size, value_size);
      goto fail;
    }
    if (writes && (v.m.traits & PORTA_VIEW_CONST)) {
      PyErr_Format(PyExc_ValueError,
                   "%s: field %zd is read-only; the exchange writes the values it receives "
                   "into it",
                   who, k);
      goto fail;
    }
    if (!porta_space_accessible(exec.backend, (porta_memory_space)v.m.space)) {
      PyErr_Format(PyExc_TypeError,
                   "%s: field %zd is in memory the %s back end cannot read (space %s): pass a "
                   "view of that back end's space",
                   who, k, porta_backend_name(exec.backend),
                   porta_memory_space_name((porta_memory_space)v.m.space));
      goto fail;
    }
  }
  return 0;
fail:
  pyex_fields_release(fs);
  return -1;
}
