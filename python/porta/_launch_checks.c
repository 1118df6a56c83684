/** @file _launch_checks.c
 *  A launch's checks against its arrays, and their errors: an array's memory against the
 *  launch's back end (TypeError), the launch range against the arrays a launch index reaches
 *  directly (IndexError before the kernel runs), and the errors a kernel recorded while it ran
 *  (porta_py_error_record: ZeroDivisionError, or the IndexError of the checked mode), raised
 *  naming the kernel's Python file and line. The checks that run at every launch are inline in
 *  _launch_private.h; the messages are here. Limited API.
 */
#include "_launch_private.h"

/** An array the launch's back end cannot reach (a NumPy array given to a CUDA kernel, a CuPy
 *  array to an OpenMP one): a TypeError naming the argument, its memory and what to do; -1 (0
 *  where it can reach it). */
int porta_py_raise_space(Dispatcher *d, Py_ssize_t j, PyObject *o, const pyarr *a, porta_exec exec,
                         const char *label) {
  const int dev = exec.backend == PORTA_BACKEND_CUDA;
  if (porta_space_accessible(exec.backend, (porta_memory_space)a->space) &&
      (!dev || a->device < 0 || a->device == pyarr_porta_device()))
    return 0;
  char nb[32];
  const char *name = nb;
  PyObject *no = d->names && j < PyTuple_Size(d->names) ? PyTuple_GetItem(d->names, j) : NULL;
  if (no)
    name = PyUnicode_AsUTF8AndSize(no, NULL);
  else
    snprintf(nb, sizeof nb, "#%d", (int)j);
  PyObject *kn = d->label ? NULL : PyObject_GetAttrString((PyObject *)d, "__name__");
  const char *kl = kn ? PyUnicode_AsUTF8AndSize(kn, NULL) : NULL;
  PyErr_Clear();
  if (kl) label = kl;
  PyObject *tn = PyType_GetName(Py_TYPE(o));
  if (porta_space_accessible(exec.backend, (porta_memory_space)a->space))
    PyErr_Format(PyExc_TypeError,
                 "%s: argument '%s' (%S) is on GPU %d, but Porta runs CUDA "
                 "kernels on GPU %d",
                 label, name ? name : "?", tn ? tn : Py_None, a->device, pyarr_porta_device());
  else if (dev)
    PyErr_Format(PyExc_TypeError,
                 "%s: argument '%s' (%S, read through %s) is in %s, which the %s back end cannot "
                 "read: pass a device array (a porta.View in space 'cuda', a CuPy array ...) or "
                 "copy it with porta.deep_copy",
                 label, name ? name : "?", tn ? tn : Py_None, a->via, pyarr_space_name(a->space),
                 porta_backend_name(exec.backend));
  else
    PyErr_Format(PyExc_TypeError,
                 "%s: argument '%s' (%S, read through %s) is in %s, which the %s back end cannot "
                 "read: launch on space 'cuda', or copy it to the host with "
                 "porta.create_mirror_view_and_copy",
                 label, name ? name : "?", tn ? tn : Py_None, a->via, pyarr_space_name(a->space),
                 porta_backend_name(exec.backend));
  Py_XDECREF(tn);
  Py_XDECREF(kn);
  return -1;
}

/** `a[i, :]`: the access that indexes dimension `dim` of array `a` (of `rank`) with `index`. */
static void access_text(char *buf, size_t cap, const char *a, int rank, int dim,
                        const char *index) {
  int n = snprintf(buf, cap, "%s[", a);
  for (int r = 0; r < rank && n > 0 && (size_t)n < cap; ++r)
    n += snprintf(buf + n, cap - (size_t)n, "%s%s", r ? ", " : "", r == dim ? index : ":");
  if (n > 0 && (size_t)n < cap) snprintf(buf + n, cap - (size_t)n, "]");
}

/** The IndexError of a launch range that does not fit an array the kernel indexes directly
 *  (porta_py_check_direct): it names the kernel, the array, the dimension, the extent and the
 *  range of the first index that does not fit; -1 (0 where every one fits). */
int porta_py_raise_direct(const porta_py_kernel *k, const porta_py_field *f, const int64_t *ext,
                          int nidx, const int64_t *lo, const int64_t *hi, const char *label,
                          const char *name) {
  for (int d = 0; d < f->rank; ++d) {
    unsigned m = f->direct[d];
    for (int r = 0; m && r < nidx; ++r, m >>= 1) {
      if (!(m & 1u) || (lo[r] >= 0 && hi[r] <= ext[d])) continue;
      char ib[16], acc[96];
      const char *iname = k->index_names ? k->index_names[r] : ib;
      snprintf(ib, sizeof ib, "#%d", r);
      access_text(acc, sizeof acc, name, f->rank, d, iname);
      if (lo[r] < 0)
        PyErr_Format(PyExc_IndexError,
                     "%s: the launch range [%lld, %lld) of index '%s' starts below 0, but the "
                     "kernel indexes dimension %d of argument '%s' (extent %lld) with it "
                     "directly (%s): a negative index is outside the array",
                     label, (long long)lo[r], (long long)hi[r], iname, d, name, (long long)ext[d],
                     acc);
      else
        PyErr_Format(PyExc_IndexError,
                     "%s: the launch range [%lld, %lld) of index '%s' does not fit argument "
                     "'%s': the kernel indexes its dimension %d with it directly (%s), and that "
                     "dimension's extent is %lld",
                     label, (long long)lo[r], (long long)hi[r], iname, name, d, acc,
                     (long long)ext[d]);
      return -1;
    }
  }
  return 0;
}

/** Raise the error a kernel recorded (porta_py.h, porta_py_error_record): ZeroDivisionError or
 *  IndexError naming the kernel and the Python file and line, as Python and NumPy word them. */
void porta_py_raise_recorded(const porta_py_kernel *k, const porta_py_error_record *e) {
  if (e->kind == PORTA_PY_ERR_ZERO_DIVISION) {
    PyErr_Format(PyExc_ZeroDivisionError,
                 "integer division or modulo by zero (%lld %s 0) in kernel %s at %s:%d",
                 (long long)e->idx[0], e->what, k->name, e->file, (int)e->line);
    return;
  }
  if (e->kind != PORTA_PY_ERR_INDEX || e->rank < 1 || e->rank > 6) {
    PyErr_Format(porta_py_error, "%s: an unknown error (kind %d) was recorded by the kernel",
                 k->name, (int)e->kind);
    return;
  }
  char idx[160], shape[160];
  int ni = 0, ns = 0;
  for (int r = 0; r < e->rank; ++r) {
    ni +=
        snprintf(idx + ni, sizeof idx - (size_t)ni, "%s%lld", r ? ", " : "", (long long)e->idx[r]);
    ns += snprintf(shape + ns, sizeof shape - (size_t)ns, "%s%lld", r ? ", " : "",
                   (long long)e->extent[r]);
  }
  const int a = e->axis;
  PyErr_Format(PyExc_IndexError,
               "index %lld is out of bounds for axis %d with size %lld: %s[%s] (shape (%s%s)) in "
               "kernel %s at %s:%d",
               (long long)e->idx[a], a, (long long)e->extent[a], e->what, idx, shape,
               e->rank == 1 ? "," : "", k->name, e->file, (int)e->line);
}
