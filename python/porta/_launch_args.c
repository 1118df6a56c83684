/** @file _launch_args.c
 *  A launch's arguments between Python and the generated C: ordered as the kernel's parameters
 *  (positional, then keywords by name), the arrays among them read by their protocol (the
 *  buffer protocol, __cuda_array_interface__, DLPack, porta.View) and checked against the
 *  memory the back end reaches, packed into the argument struct at the offsets the generated C
 *  exported (each checked against the kernel's field: TypeError, ValueError or OverflowError
 *  naming it; the launch range against the arrays it indexes directly), and a reduction's or
 *  scan's value read back. Limited API.
 */
#include "_launch_private.h"

#include <string.h>

static const char *dtype_name(int32_t dt) {
  switch (dt) {
  case PORTA_PY_F64: return "float64";
  case PORTA_PY_F32: return "float32";
  case PORTA_PY_I64: return "int64";
  case PORTA_PY_I32: return "int32";
  case PORTA_PY_U8: return "uint8";
  case PORTA_PY_BOOL: return "bool";
  }
  return "?";
}

static const char *arg_name(Dispatcher *d, const porta_py_field *f, Py_ssize_t k, char *buf) {
  (void)d;
  if (f && f->name) return f->name;
  snprintf(buf, 32, "#%d", (int)k);
  return buf;
}

static PyObject *scalar_to_py(int32_t dtype, const void *v) {
  switch (dtype) {
  case PORTA_PY_F64: return PyFloat_FromDouble(*(const double *)v);
  case PORTA_PY_F32: return PyFloat_FromDouble((double)*(const float *)v);
  case PORTA_PY_I64: return PyLong_FromLongLong((long long)*(const int64_t *)v);
  case PORTA_PY_I32: return PyLong_FromLong((long)*(const int32_t *)v);
  }
  PyErr_SetString(PyExc_TypeError, "reduction value of an unsupported type");
  return NULL;
}

/** The value of a reduction or scan: a number (the exact sum's rounded by the kernel's finish),
 *  (val, loc) for minloc / maxloc, or a custom reducer's fields given to the kernel's
 *  _porta_result (its class). */
PyObject *porta_py_value_to_py(PyObject *ko, const porta_py_kernel *k, const char *v) {
  if (k->finish) {
    union {
      char c[8];
      double align_;
    } out;
    k->finish(v, out.c);
    return scalar_to_py(k->result_dtype, out.c);
  }
  if (k->result_kind != PORTA_PY_RESULT_LOC && k->result_kind != PORTA_PY_RESULT_STRUCT)
    return scalar_to_py(k->result_dtype, v);
  PyObject *t = PyTuple_New(k->nresult);
  if (!t) return NULL;
  for (int32_t j = 0; j < k->nresult; ++j) {
    const porta_py_field *f = &k->result_fields[j];
    char tmp[8];
    memcpy(tmp, v + f->offset, f->dtype == PORTA_PY_F32 || f->dtype == PORTA_PY_I32 ? 4 : 8);
    PyObject *x = scalar_to_py(f->dtype, tmp);
    if (!x) {
      Py_DECREF(t);
      return NULL;
    }
    PyTuple_SetItem(t, j, x);
  }
  if (k->result_kind == PORTA_PY_RESULT_LOC) return t;
  PyObject *make = PyObject_GetAttrString(ko, "_porta_result");
  if (!make) {
    Py_DECREF(t);
    return NULL;
  }
  PyObject *r = PyObject_CallFunctionObjArgs(make, t, NULL);
  Py_DECREF(make);
  Py_DECREF(t);
  return r;
}

/** Pack one scalar argument. */
static int pack_scalar(const porta_py_field *f, PyObject *o, char *args, const char *label,
                       const char *name) {
  char *p = args + f->offset;
  switch (f->dtype) {
  case PORTA_PY_F64:
  case PORTA_PY_F32: {
    double v = PyFloat_AsDouble(o);
    if (v == -1.0 && PyErr_Occurred()) {
      PyErr_Clear();
      PyObject *tn = PyType_GetName(Py_TYPE(o));
      PyErr_Format(PyExc_TypeError, "%s: argument '%s' must be a number (float), not %S", label,
                   name, tn ? tn : Py_None);
      Py_XDECREF(tn);
      return -1;
    }
    if (f->dtype == PORTA_PY_F64)
      memcpy(p, &v, sizeof v);
    else {
      float x = (float)v;
      memcpy(p, &x, sizeof x);
    }
    return 0;
  }
  default: {
    if (PyFloat_Check(o)) {
      PyErr_Format(PyExc_TypeError, "%s: argument '%s' is an integer (%s): got a float", label,
                   name, dtype_name(f->dtype));
      return -1;
    }
    long long v = PyLong_AsLongLong(o);
    if (v == -1 && PyErr_Occurred()) {
      PyErr_Clear();
      PyErr_Format(PyExc_TypeError, "%s: argument '%s' must be an integer (%s)", label, name,
                   dtype_name(f->dtype));
      return -1;
    }
    if (f->dtype == PORTA_PY_I64) {
      int64_t x = (int64_t)v;
      memcpy(p, &x, sizeof x);
    } else if (f->dtype == PORTA_PY_I32 || f->dtype == PORTA_PY_BOOL) {
      int32_t x = (int32_t)v;
      if ((long long)x != v) {
        PyErr_Format(PyExc_OverflowError, "%s: argument '%s' = %lld does not fit int32", label,
                     name, v);
        return -1;
      }
      memcpy(p, &x, sizeof x);
    } else {
      uint8_t x = (uint8_t)v;
      memcpy(p, &x, sizeof x);
    }
    return 0;
  }
  }
}

/** Pack one array argument (any protocol, read by pyarr_get), checking it against the field. */
static int pack_array(const porta_py_field *f, const pyarr *b, char *args, const char *label,
                      const char *name) {
  if (b->dtype != f->dtype) {
    char buf[24];
    PyErr_Format(PyExc_TypeError, "%s: argument '%s' has dtype %s (itemsize %d), expected %s",
                 label, name, pyarr_dtype_name(b, buf, sizeof buf), (int)b->itemsize,
                 dtype_name(f->dtype));
    return -1;
  }
  if (b->ndim != f->rank) {
    PyErr_Format(PyExc_TypeError, "%s: argument '%s' has %d dimension(s), expected %d", label, name,
                 (int)b->ndim, (int)f->rank);
    return -1;
  }
  for (int r = 0; f->fixed && r < b->ndim; ++r)
    if (f->fixed[r] && b->shape[r] != f->fixed[r]) {
      PyErr_Format(PyExc_TypeError,
                   "%s: argument '%s' has extent %lld in dimension %d, where the kernel's "
                   "annotation fixes %lld",
                   label, name, (long long)b->shape[r], r, (long long)f->fixed[r]);
      return -1;
    }
  if ((f->flags & PORTA_PY_WRITTEN) && b->readonly) {
    PyErr_Format(PyExc_ValueError, "%s: argument '%s' is read-only, but the kernel writes to it",
                 label, name);
    return -1;
  }
  void *data = b->data;
  memcpy(args + f->offset, &data, sizeof data);
  int64_t *ext = (int64_t *)(void *)(args + f->extent_offset);
  int64_t *str = (int64_t *)(void *)(args + f->stride_offset);
  for (int r = 0; r < b->ndim; ++r) {
    if (b->strides[r] % b->itemsize != 0) {
      PyErr_Format(PyExc_ValueError,
                   "%s: argument '%s' has a stride of %lld bytes in dimension %d, not a multiple "
                   "of its itemsize %zd",
                   label, name, (long long)b->strides[r], r, b->itemsize);
      return -1;
    }
    ext[r] = b->shape[r];
    str[r] = b->strides[r] / b->itemsize;
  }
  return 0;
}

/** The kernel's arguments given with keywords (kwnames, after the npos positional ones in
 *  args): all of them in the order of the kernel's parameters (d->names) into a->av; a
 *  TypeError naming an unknown, repeated or missing argument (-1). */
static int order_keywords(Dispatcher *d, PyObject *const *args, Py_ssize_t npos, PyObject *kwnames,
                          const char *label, launch_args *a) {
  if (!d->names) {
    PyErr_SetString(PyExc_TypeError, "kernel has no argument names");
    return -1;
  }
  const Py_ssize_t nkw = PyTuple_Size(kwnames), n = PyTuple_Size(d->names);
  if (n > MAX_ARGS || npos > n) {
    PyErr_Format(PyExc_TypeError, "%s: takes %zd arguments, got %zd", label, n, npos + nkw);
    return -1;
  }
  for (Py_ssize_t k = 0; k < n; ++k) a->av[k] = k < npos ? args[k] : NULL;
  for (Py_ssize_t j = 0; j < nkw; ++j) {
    PyObject *key = PyTuple_GetItem(kwnames, j);
    Py_ssize_t k = 0;
    for (; k < n; ++k)
      if (PyUnicode_Compare(key, PyTuple_GetItem(d->names, k)) == 0) break;
    if (k == n) {
      PyErr_Format(PyExc_TypeError, "%s: no argument named '%U'", label, key);
      return -1;
    }
    if (a->av[k]) {
      PyErr_Format(PyExc_TypeError, "%s: argument '%U' given twice", label, key);
      return -1;
    }
    a->av[k] = args[npos + j];
  }
  for (Py_ssize_t k = 0; k < n; ++k)
    if (!a->av[k]) {
      PyErr_Format(PyExc_TypeError, "%s: missing argument '%U'", label,
                   PyTuple_GetItem(d->names, k));
      return -1;
    }
  a->n = n;
  return 0;
}

/** The kernel's arguments (args, nargs of them, then the keywords kwnames) in the order of its
 *  parameters into a->av (a->n); -1 with a TypeError. */
int porta_py_order_args(Dispatcher *d, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                        const char *label, launch_args *a) {
  a->got = 0;
  if (kwnames && PyTuple_Size(kwnames)) return order_keywords(d, args, nargs, kwnames, label, a);
  if (nargs > MAX_ARGS) {
    PyErr_Format(PyExc_TypeError, "%s: at most %d arguments", label, MAX_ARGS);
    return -1;
  }
  for (Py_ssize_t k = 0; k < nargs; ++k) a->av[k] = args[k];
  a->n = nargs;
  return 0;
}

/** Read the arrays among the arguments (porta.View, buffer, __cuda_array_interface__, DLPack),
 *  each in a memory space the launch's back end must reach, and the layout signature; -1 with
 *  the exception set (the arrays read so far, a->got, are given back by the caller). */
int porta_py_read_arrays(Dispatcher *d, launch_args *a, porta_exec exec, const char *label) {
  const porta_py_sig none = {{0, 0}};
  a->sig = none;
  for (; a->got < a->n; ++a->got) {
    const Py_ssize_t j = a->got;
    int code = PORTA_PY_SIG_SCALAR;
    a->isbuf[j] = 0;
    int r = pyarr_get(a->av[j], &a->bufs[j]);
    if (r < 0) return -1;
    if (r) {
      a->isbuf[j] = 1;
      code = pyarr_layout(&a->bufs[j]);
      if (porta_py_check_space(d, j, a->av[j], &a->bufs[j], exec, label) < 0) {
        ++a->got;
        return -1;
      }
    }
    porta_py_sig_set(&a->sig, (int)j, code);
  }
  return 0;
}

void porta_py_release_arrays(launch_args *a) {
  for (Py_ssize_t j = 0; j < a->got; ++j)
    if (a->isbuf[j]) pyarr_release(&a->bufs[j]);
}

/** The ranges [lo, hi) of the launch indices, for the arrays they index directly
 *  (porta_py_check_direct): their count, 0 for an empty launch (it runs nothing) or a team. */
static int index_ranges(const launch_policy *p, int64_t *lo, int64_t *hi) {
  int nidx = 0;
  if (p->kind == PORTA_POLICY_RANGE && p->rp.end > p->rp.begin) {
    nidx = 1;
    lo[0] = p->rp.begin;
    hi[0] = p->rp.end;
  } else if (p->kind == PORTA_POLICY_MDRANGE) {
    nidx = p->mp.rank;
    for (int r = 0; r < p->mp.rank; ++r) {
      lo[r] = p->mp.lower[r];
      hi[r] = p->mp.upper[r];
      if (hi[r] <= lo[r]) nidx = 0; /* an empty box runs nothing */
    }
  }
  return nidx;
}

/** Pack argument j (an array or a scalar, as the kernel's field says) into the argument struct,
 *  an array's extents checked against the launch indices that index it directly (nidx ranges
 *  lo, hi); -1 with a TypeError, ValueError, OverflowError or IndexError naming it. */
static int pack_arg(Dispatcher *d, const porta_py_kernel *k, const launch_args *a, Py_ssize_t j,
                    char *packed, int nidx, const int64_t *lo, const int64_t *hi,
                    const char *label) {
  const porta_py_field *f = &k->fields[j];
  char nb[32];
  const char *name = arg_name(d, f, j, nb);
  if (f->kind != PORTA_PY_ARRAY) {
    if (a->isbuf[j]) {
      PyErr_Format(PyExc_TypeError, "%s: argument '%s' must be a scalar (%s), got an array", label,
                   name, dtype_name(f->dtype));
      return -1;
    }
    return pack_scalar(f, a->av[j], packed, label, name);
  }
  if (!a->isbuf[j]) {
    PyErr_Format(PyExc_TypeError,
                 "%s: argument '%s' must be an array (%s, %d dimension(s)), got a scalar", label,
                 name, dtype_name(f->dtype), (int)f->rank);
    return -1;
  }
  int bad = pack_array(f, &a->bufs[j], packed, label, name);
  if (!bad && f->direct && nidx)
    bad = porta_py_check_direct(k, f, (const int64_t *)(const void *)(packed + f->extent_offset),
                                nidx, lo, hi, label, name);
  return bad;
}

/** Pack the argument struct at the offsets the generated C exported (packed: ARGS_BYTES); -1
 *  with the exception of the first argument that does not fit the kernel. */
int porta_py_pack_args(Dispatcher *d, const porta_py_kernel *k, const launch_args *a,
                       const launch_policy *p, char *packed, const char *label) {
  if (k->args_size > ARGS_BYTES) {
    PyErr_Format(PyExc_RuntimeError, "%s: argument struct too large", label);
    return -1;
  }
  memset(packed, 0, (size_t)k->args_size);
  int64_t lo[PORTA_MDRANGE_MAX_RANK], hi[PORTA_MDRANGE_MAX_RANK];
  const int nidx = index_ranges(p, lo, hi);
  for (Py_ssize_t j = 0; j < a->n; ++j)
    if (pack_arg(d, k, a, j, packed, nidx, lo, hi, label)) return -1;
  return 0;
}
