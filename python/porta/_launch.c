/** @file _launch.c
 *  The launch fast path of porta._core: parallel_for / parallel_reduce / parallel_scan(policy,
 *  kernel, *args, **kwargs) on range, mdrange and team policies. Each argument is read in C
 *  (the buffer protocol and the other array protocols for arrays), its layout picks the
 *  specialisation, its dtype, rank, writability and memory space are checked against it
 *  (TypeError or ValueError naming the argument), the argument struct is packed on the stack
 *  at the offsets the generated C exported, the launch range is checked against the arrays
 *  (_launch_checks.c), and Porta's dispatcher runs it (_launch_pieces.c: whole, or in pieces
 *  that let Ctrl-C in); an error the kernel recorded is raised after it. Limited API.
 */
#include "_launch_private.h"

#include <string.h>

#define MAX_ARGS 32
#define ARGS_BYTES 2048
#define VALUE_BYTES 256

/* ---- the launch ---- */

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

/** Parse the policy: an int n (the range [0, n)) or an object with _spec, a tuple
 *  (0, backend, begin, end), (1, backend, rank, lower, upper) or
 *  (2, backend, league_size, team_size, vector_length) (team sizes: -1 is PORTA_AUTO). */
static int parse_policy(PyObject *p, int *kind, porta_exec *exec, porta_range_policy *rp,
                        porta_mdrange_policy *mp, porta_team_policy *tp) {
  if (PyLong_Check(p) || (!PyFloat_Check(p) && PyIndex_Check(p))) {
    /* an int, or an integer of another type (NumPy's): its __index__ */
    PyObject *i = PyNumber_Index(p);
    long long n = i ? PyLong_AsLongLong(i) : -1;
    Py_XDECREF(i);
    if (n == -1 && PyErr_Occurred()) return -1;
    *kind = PORTA_POLICY_RANGE;
    *exec = porta_exec_default();
    *rp = porta_range(0, n);
    return 0;
  }
  PyObject *spec = PyObject_GetAttrString(p, "_spec");
  if (!spec || !PyTuple_Check(spec) || PyTuple_Size(spec) < 4) {
    Py_XDECREF(spec);
    PyErr_SetString(PyExc_TypeError, "policy: expected an int, porta.RangePolicy or "
                                     "porta.MDRangePolicy");
    return -1;
  }
  long k = PyLong_AsLong(PyTuple_GetItem(spec, 0));
  long be = PyLong_AsLong(PyTuple_GetItem(spec, 1));
  *exec = be < 0 ? porta_exec_default() : porta_exec_backend((porta_backend)be);
  int rc = 0;
  if (k == 0) {
    *kind = PORTA_POLICY_RANGE;
    long long b = PyLong_AsLongLong(PyTuple_GetItem(spec, 2));
    long long e = PyLong_AsLongLong(PyTuple_GetItem(spec, 3));
    *rp = porta_range(b, e);
  } else if (k == 2) {
    *kind = PORTA_POLICY_TEAM;
    PyObject *ts = PyTuple_Size(spec) >= 5 ? PyTuple_GetItem(spec, 3) : NULL;
    long long league = PyLong_AsLongLong(PyTuple_GetItem(spec, 2));
    long t = ts ? PyLong_AsLong(ts) : -1;
    long v = ts ? PyLong_AsLong(PyTuple_GetItem(spec, 4)) : -1;
    *tp = porta_team_policy_make(league, (int)t, (int)v);
  } else {
    *kind = PORTA_POLICY_MDRANGE;
    long rank = PyLong_AsLong(PyTuple_GetItem(spec, 2));
    PyObject *lo = PyTuple_GetItem(spec, 3), *up = PyTuple_GetItem(spec, 4);
    int64_t l[PORTA_MDRANGE_MAX_RANK], u[PORTA_MDRANGE_MAX_RANK];
    if (rank < 2 || rank > PORTA_MDRANGE_MAX_RANK || !lo || !up) {
      PyErr_SetString(PyExc_ValueError, "policy: bad MDRangePolicy");
      rc = -1;
    } else {
      for (long r = 0; r < rank; ++r) {
        l[r] = PyLong_AsLongLong(PyTuple_GetItem(lo, r));
        u[r] = PyLong_AsLongLong(PyTuple_GetItem(up, r));
      }
      *mp = porta_mdrange((int)rank, l, u, NULL);
    }
  }
  Py_DECREF(spec);
  if (PyErr_Occurred()) return -1;
  return rc;
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

/** The value of a reduction or scan: a number, (val, loc) for minloc / maxloc, or a custom
 *  reducer's fields given to the kernel's _porta_result (its class). */
static PyObject *value_to_py(PyObject *ko, const porta_py_kernel *k, const char *v) {
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

static const char *const MODE_NAMES[3] = {"parallel_for", "parallel_reduce", "parallel_scan"};
static const int MODE_PATTERN[3] = {PORTA_PATTERN_FOR, PORTA_PATTERN_REDUCE, PORTA_PATTERN_SCAN};

static PyObject *launch(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, int mode);

/** A kernel method of a @porta.workload object (obj.method): its _porta_launch gives the
 *  kernel and the object's fields, launched as the kernel's arguments. */
static PyObject *launch_bound(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                              int mode) {
  PyObject *ko = args[1];
  PyObject *b = PyObject_GetAttrString(ko, "_porta_launch");
  if (!b) {
    if (!PyErr_ExceptionMatches(PyExc_AttributeError)) return NULL;
    PyErr_Clear();
    PyErr_Format(PyExc_TypeError, "the second argument of %s must be a @porta.kernel",
                 MODE_NAMES[mode]);
    return NULL;
  }
  PyObject *result = NULL;
  if (!PyTuple_Check(b) || PyTuple_Size(b) != 2 || !PyTuple_Check(PyTuple_GetItem(b, 1))) {
    PyErr_SetString(PyExc_TypeError, "_porta_launch: expected (kernel, fields)");
  } else if (nargs != 2 || (kwnames && PyTuple_Size(kwnames))) {
    PyErr_Format(PyExc_TypeError,
                 "%s(policy, obj.kernel) takes no other arguments: the "
                 "kernel's arguments are the object's fields",
                 MODE_NAMES[mode]);
  } else {
    PyObject *fields = PyTuple_GetItem(b, 1);
    Py_ssize_t nf = PyTuple_Size(fields);
    PyObject *av[MAX_ARGS + 2];
    if (nf > MAX_ARGS) {
      PyErr_Format(PyExc_TypeError, "at most %d fields", MAX_ARGS);
    } else {
      av[0] = args[0];
      av[1] = PyTuple_GetItem(b, 0);
      for (Py_ssize_t j = 0; j < nf; ++j) av[2 + j] = PyTuple_GetItem(fields, j);
      if (Py_TYPE(av[1]) == porta_py_dispatcher_type ||
          PyType_IsSubtype(Py_TYPE(av[1]), porta_py_dispatcher_type))
        result = launch(av, nf + 2, NULL, mode);
      else
        PyErr_SetString(PyExc_TypeError, "_porta_launch: not a kernel");
    }
  }
  Py_DECREF(b);
  return result;
}

static PyObject *launch(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, int mode) {
  if (nargs < 2) {
    PyErr_Format(PyExc_TypeError, "%s(policy, kernel, *args)", MODE_NAMES[mode]);
    return NULL;
  }
  PyObject *ko = args[1];
  if (!(Py_TYPE(ko) == porta_py_dispatcher_type ||
        PyType_IsSubtype(Py_TYPE(ko), porta_py_dispatcher_type)))
    return launch_bound(args, nargs, kwnames, mode);
  Dispatcher *d = (Dispatcher *)ko;
  const char *label = d->label ? d->label : "kernel";

  /* The kernel's arguments in order: positional, then keywords by name. */
  PyObject *av[MAX_ARGS];
  Py_ssize_t npos = nargs - 2, nkw = kwnames ? PyTuple_Size(kwnames) : 0;
  Py_ssize_t n = npos;
  if (nkw) {
    if (!d->names) {
      PyErr_SetString(PyExc_TypeError, "kernel has no argument names");
      return NULL;
    }
    n = PyTuple_Size(d->names);
    if (n > MAX_ARGS || npos > n) {
      PyErr_Format(PyExc_TypeError, "%s: takes %zd arguments, got %zd", label, n, npos + nkw);
      return NULL;
    }
    for (Py_ssize_t k = 0; k < n; ++k) av[k] = k < npos ? args[2 + k] : NULL;
    for (Py_ssize_t j = 0; j < nkw; ++j) {
      PyObject *key = PyTuple_GetItem(kwnames, j);
      Py_ssize_t k = 0;
      for (; k < n; ++k)
        if (PyUnicode_Compare(key, PyTuple_GetItem(d->names, k)) == 0) break;
      if (k == n) {
        PyErr_Format(PyExc_TypeError, "%s: no argument named '%U'", label, key);
        return NULL;
      }
      if (av[k]) {
        PyErr_Format(PyExc_TypeError, "%s: argument '%U' given twice", label, key);
        return NULL;
      }
      av[k] = args[2 + npos + j];
    }
    for (Py_ssize_t k = 0; k < n; ++k)
      if (!av[k]) {
        PyErr_Format(PyExc_TypeError, "%s: missing argument '%U'", label,
                     PyTuple_GetItem(d->names, k));
        return NULL;
      }
  } else {
    if (n > MAX_ARGS) {
      PyErr_Format(PyExc_TypeError, "%s: at most %d arguments", label, MAX_ARGS);
      return NULL;
    }
    for (Py_ssize_t k = 0; k < n; ++k) av[k] = args[2 + k];
  }

  int kind = 0;
  porta_exec exec;
  porta_range_policy rp;
  porta_mdrange_policy mp;
  porta_team_policy tp;
  if (parse_policy(args[0], &kind, &exec, &rp, &mp, &tp) < 0) return NULL;

  /* Arrays (porta.View, buffer, __cuda_array_interface__, DLPack), each in a memory space the
     launch's back end must reach, and the layout signature (4 bits an argument). The CUDA back
     end runs the specialisations nvcc compiled (variant). */
  const int variant = exec.backend == PORTA_BACKEND_CUDA ? VARIANT_CUDA : VARIANT_HOST;
  pyarr bufs[MAX_ARGS];
  char isbuf[MAX_ARGS];
  porta_py_sig sig = {{0, 0}};
  PyObject *result = NULL;
  porta_py_error_record *cuda_rec = NULL; /* a CUDA launch's error record, given back at the end */
  int launch_rc = PORTA_SUCCESS;
  Py_ssize_t got = 0;
  for (; got < n; ++got) {
    PyObject *o = av[got];
    int code = PORTA_PY_SIG_SCALAR;
    isbuf[got] = 0;
    int r = pyarr_get(o, &bufs[got]);
    if (r < 0) goto done;
    if (r) {
      isbuf[got] = 1;
      code = pyarr_layout(&bufs[got]);
      if (porta_py_check_space(d, got, o, &bufs[got], exec, label) < 0) {
        ++got;
        goto done;
      }
    }
    porta_py_sig_set(&sig, (int)got, code);
  }

  const porta_py_kernel *k = NULL;
  for (int attempt = 0; attempt < 2 && !k; ++attempt) {
    for (Py_ssize_t s = 0; s < d->nspecs; ++s)
      if (porta_py_sig_equal(d->specs[s].sig, sig) && d->specs[s].variant == variant) {
        k = d->specs[s].k;
        break;
      }
    if (k || attempt) break;
    /* A miss: Python translates, compiles and registers the specialisation. */
    PyObject *codes = PyTuple_New(n);
    PyObject *argt = PyTuple_New(n);
    if (!codes || !argt) {
      Py_XDECREF(codes);
      Py_XDECREF(argt);
      goto done;
    }
    for (Py_ssize_t j = 0; j < n; ++j) {
      PyTuple_SetItem(codes, j, PyLong_FromLong(porta_py_sig_code(sig, (int)j)));
      Py_INCREF(av[j]);
      PyTuple_SetItem(argt, j, av[j]);
    }
    PyObject *sigo =
        Py_BuildValue("(KK)", (unsigned long long)sig.w[0], (unsigned long long)sig.w[1]);
    PyObject *r =
        variant == VARIANT_HOST
            ? PyObject_CallMethod(ko, "_specialize", "(NNN)", sigo, codes, argt)
            : PyObject_CallMethod(ko, "_specialize", "(NNNi)", sigo, codes, argt, variant);
    if (!r) goto done;
    Py_DECREF(r);
    label = d->label ? d->label : label;
  }
  if (!k) {
    PyErr_Format(PyExc_RuntimeError, "%s: no specialisation was registered", label);
    goto done;
  }
  if (n != k->nfields) {
    PyErr_Format(PyExc_TypeError, "%s: takes %d arguments, got %zd", label, (int)k->nfields, n);
    goto done;
  }
  if (MODE_PATTERN[mode] != k->pattern) {
    const char *kn = k->pattern == PORTA_PATTERN_SCAN     ? "parallel_scan"
                     : k->pattern == PORTA_PATTERN_REDUCE ? "parallel_reduce"
                                                          : "parallel_for";
    PyErr_Format(PyExc_TypeError, "%s is a %s kernel: launch it with porta.%s, not porta.%s", label,
                 kn, kn, MODE_NAMES[mode]);
    goto done;
  }
  if (k->policy == PORTA_POLICY_TEAM && kind != PORTA_POLICY_TEAM) {
    PyErr_Format(PyExc_TypeError, "%s takes a team member: launch it with a porta.TeamPolicy",
                 label);
    goto done;
  }
  if (k->policy != kind || (kind == PORTA_POLICY_MDRANGE && k->rank != mp.rank)) {
    PyErr_Format(PyExc_TypeError, "%s takes %d index(es): launch it with %s", label, (int)k->rank,
                 k->rank == 1 ? "an int or porta.RangePolicy"
                              : "a porta.MDRangePolicy of the same rank");
    goto done;
  }

  /* Pack the argument struct at the generated offsets. */
  union {
    char c[ARGS_BYTES];
    double align_;
  } packed;
  if (k->args_size > ARGS_BYTES) {
    PyErr_Format(PyExc_RuntimeError, "%s: argument struct too large", label);
    goto done;
  }
  memset(packed.c, 0, (size_t)k->args_size);
  /* The ranges of the launch indices, for the arrays they index directly (check_direct). */
  int nidx = 0;
  int64_t lo[PORTA_MDRANGE_MAX_RANK], hi[PORTA_MDRANGE_MAX_RANK];
  if (kind == PORTA_POLICY_RANGE && rp.end > rp.begin) {
    nidx = 1;
    lo[0] = rp.begin;
    hi[0] = rp.end;
  } else if (kind == PORTA_POLICY_MDRANGE) {
    nidx = mp.rank;
    for (int r = 0; r < mp.rank; ++r) {
      lo[r] = mp.lower[r];
      hi[r] = mp.upper[r];
      if (hi[r] <= lo[r]) nidx = 0; /* an empty box runs nothing */
    }
  }
  for (Py_ssize_t j = 0; j < n; ++j) {
    const porta_py_field *f = &k->fields[j];
    char nb[32];
    const char *name = arg_name(d, f, j, nb);
    int bad;
    if (f->kind == PORTA_PY_ARRAY) {
      if (!isbuf[j]) {
        PyErr_Format(PyExc_TypeError,
                     "%s: argument '%s' must be an array (%s, %d dimension(s)), got a scalar",
                     label, name, dtype_name(f->dtype), (int)f->rank);
        goto done;
      }
      bad = pack_array(f, &bufs[j], packed.c, label, name);
      if (!bad && f->direct && nidx)
        bad = porta_py_check_direct(k, f,
                                    (const int64_t *)(const void *)(packed.c + f->extent_offset),
                                    nidx, lo, hi, label, name);
    } else {
      if (isbuf[j]) {
        PyErr_Format(PyExc_TypeError, "%s: argument '%s' must be a scalar (%s), got an array",
                     label, name, dtype_name(f->dtype));
        goto done;
      }
      bad = pack_scalar(f, av[j], packed.c, label, name);
    }
    if (bad) goto done;
  }

  /* The launch's error record (porta_py.h): on the host the stack; on CUDA, for a kernel that
     may raise, pinned memory the GPU writes (the launch then waits for its kernel). */
  porta_py_error_record host_rec;
  porta_py_error_record *rec = NULL;
  host_rec.claimed = host_rec.ready = 0;
  host_rec.dclaim = NULL;
  if (exec.backend != PORTA_BACKEND_CUDA)
    rec = &host_rec;
  else if (k->flags & PORTA_PY_MAY_RAISE) {
    rec = cuda_rec = porta_py_err_take();
    if (!rec) goto done;
  }
  {
    porta_py_error_record *p = k->scratch ? &host_rec : rec; /* the scratch sizes run on the host */
    memcpy(packed.c + k->err_offset, &p, sizeof p);
  }

  union {
    char c[VALUE_BYTES];
    double align_;
  } value;
  int rc;
  int64_t iters = kind == PORTA_POLICY_RANGE ? rp.end - rp.begin : 1;
  if (kind == PORTA_POLICY_MDRANGE)
    for (int r = 0; r < mp.rank; ++r) iters *= mp.upper[r] - mp.lower[r];
  if (kind == PORTA_POLICY_TEAM) {
    iters = tp.league_size * 64; /* a team's work is unknown: count a league rank as 64 */
    if (k->scratch) {            /* the kernel's scratch, sized from this launch's arguments */
      size_t req[4] = {0, 0, 0, 0};
      k->scratch(packed.c, req);
      for (int l = 0; l < 2; ++l)
        tp = porta_team_scratch_request(tp, l, tp.scratch_team[l] + req[l],
                                        tp.scratch_thread[l] + req[2 + l]);
      if (host_rec.ready) { /* a scratch extent divided by zero */
        porta_py_raise_recorded(k, &host_rec);
        goto done;
      }
      memcpy(packed.c + k->err_offset, &rec, sizeof rec);
    }
  }
  const launch_desc ld = {k, mode, kind, exec, &rp, &mp, &tp, packed.c, value.c};
  rc = porta_py_run_launch(&ld, iters, rec ? &rec->ready : NULL);
  if (rc < 0) cuda_rec = NULL; /* its kernel may still run on the GPU: the record is not reused */
  if (rc < 0) goto done;       /* KeyboardInterrupt (or another exception) between pieces */
  /* An error the kernel recorded: on CUDA a parallel_for (range, mdrange, team) is asynchronous,
     so wait for the kernel first (reductions and scans have waited). */
  if (cuda_rec && mode == MODE_FOR && rc == PORTA_SUCCESS) rc = porta_py_wait_kernel(exec, k->name);
  launch_rc = rc;
  if (rec && rec->ready) {
    porta_py_raise_recorded(k, rec);
    goto done;
  }
  if (rc != PORTA_SUCCESS) {
    if (!PyErr_Occurred()) /* else Ctrl-C ended a wait for the GPU (wait_check) */
      porta_py_failure(rc, k->name);
    goto done;
  }
  if (mode != MODE_FOR)
    result = value_to_py(ko, k, value.c);
  else {
    Py_INCREF(Py_None);
    result = Py_None;
  }
done:
  if (cuda_rec) porta_py_err_give(cuda_rec, launch_rc != PORTA_SUCCESS);
  for (Py_ssize_t j = 0; j < got; ++j)
    if (isbuf[j]) pyarr_release(&bufs[j]);
  return result;
}

PyObject *porta_py_parallel_for(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                PyObject *kwnames) {
  (void)self;
  return launch(args, nargs, kwnames, MODE_FOR);
}

PyObject *porta_py_parallel_reduce(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                   PyObject *kwnames) {
  (void)self;
  return launch(args, nargs, kwnames, MODE_REDUCE);
}

PyObject *porta_py_parallel_scan(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                 PyObject *kwnames) {
  (void)self;
  return launch(args, nargs, kwnames, MODE_SCAN);
}
