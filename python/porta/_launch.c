/** @file _launch.c
 *  The launch fast path of porta._core: parallel_for / parallel_reduce / parallel_scan(policy,
 *  kernel, *args, **kwargs) on range, mdrange and team policies. The policy is parsed, the
 *  arguments are read (_launch_args.c), their layouts pick the specialisation (made by the
 *  kernel's Python side on a miss), which is checked against the launch, the argument struct is
 *  packed on the stack (_launch_args.c, with the checks of _launch_checks.c), the kernel gets
 *  its error record, and Porta's dispatcher runs it (_launch_pieces.c: whole, or in pieces that
 *  let Ctrl-C in); an error the kernel recorded is raised after it. Limited API.
 */
#include "_launch_private.h"

#include <string.h>

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

static const char *const MODE_NAMES[3] = {"parallel_for", "parallel_reduce", "parallel_scan"};
static const int MODE_PATTERN[3] = {PORTA_PATTERN_FOR, PORTA_PATTERN_REDUCE, PORTA_PATTERN_SCAN};

/** Where the kernel records an error (porta_py.h): on the host `host`, on the stack; on CUDA,
 *  for a kernel that may raise, pinned memory the GPU writes (`cuda`, given back to the pool
 *  after the launch, marked dirty when the launch failed: rc). `rec`: the kernel's, or NULL. */
typedef struct launch_record {
  porta_py_error_record host;
  porta_py_error_record *rec, *cuda;
  int rc;
} launch_record;

static int is_kernel(PyObject *o) {
  return Py_TYPE(o) == porta_py_dispatcher_type ||
         PyType_IsSubtype(Py_TYPE(o), porta_py_dispatcher_type);
}

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
      if (is_kernel(av[1]))
        result = launch(av, nf + 2, NULL, mode);
      else
        PyErr_SetString(PyExc_TypeError, "_porta_launch: not a kernel");
    }
  }
  Py_DECREF(b);
  return result;
}

/** The specialisation the kernel has registered for this signature and variant, or NULL. */
static const porta_py_kernel *find_spec(const Dispatcher *d, porta_py_sig sig, int variant) {
  for (Py_ssize_t s = 0; s < d->nspecs; ++s)
    if (porta_py_sig_equal(d->specs[s].sig, sig) && d->specs[s].variant == variant)
      return d->specs[s].k;
  return NULL;
}

/** A miss: the kernel's Python side (_specialize) translates, compiles and registers the
 *  specialisation of these arguments' layouts; -1 with its exception. */
static int request_spec(PyObject *ko, const launch_args *a, int variant) {
  PyObject *codes = PyTuple_New(a->n);
  PyObject *argt = PyTuple_New(a->n);
  if (!codes || !argt) {
    Py_XDECREF(codes);
    Py_XDECREF(argt);
    return -1;
  }
  for (Py_ssize_t j = 0; j < a->n; ++j) {
    PyTuple_SetItem(codes, j, PyLong_FromLong(porta_py_sig_code(a->sig, (int)j)));
    Py_INCREF(a->av[j]);
    PyTuple_SetItem(argt, j, a->av[j]);
  }
  PyObject *sigo =
      Py_BuildValue("(KK)", (unsigned long long)a->sig.w[0], (unsigned long long)a->sig.w[1]);
  PyObject *r = variant == VARIANT_HOST
                    ? PyObject_CallMethod(ko, "_specialize", "(NNN)", sigo, codes, argt)
                    : PyObject_CallMethod(ko, "_specialize", "(NNNi)", sigo, codes, argt, variant);
  if (!r) return -1;
  Py_DECREF(r);
  return 0;
}

/** The specialisation for these arguments on this back end (the CUDA back end runs those nvcc
 *  compiled), made on a miss (the kernel's label may then change); NULL with the exception. */
static const porta_py_kernel *specialisation(PyObject *ko, Dispatcher *d, const launch_args *a,
                                             porta_exec exec, const char **label) {
  const int variant = exec.backend == PORTA_BACKEND_CUDA ? VARIANT_CUDA : VARIANT_HOST;
  const porta_py_kernel *k = find_spec(d, a->sig, variant);
  if (k) return k;
  if (request_spec(ko, a, variant) < 0) return NULL;
  *label = d->label ? d->label : *label;
  k = find_spec(d, a->sig, variant);
  if (!k) PyErr_Format(PyExc_RuntimeError, "%s: no specialisation was registered", *label);
  return k;
}

/** The specialisation against the launch: its argument count, its pattern (the mode), its
 *  policy and rank; -1 with a TypeError saying how to launch it. */
static int check_launch_fits(const porta_py_kernel *k, Py_ssize_t n, int mode,
                             const launch_policy *p, const char *label) {
  if (n != k->nfields) {
    PyErr_Format(PyExc_TypeError, "%s: takes %d arguments, got %zd", label, (int)k->nfields, n);
    return -1;
  }
  if (MODE_PATTERN[mode] != k->pattern) {
    const char *kn = k->pattern == PORTA_PATTERN_SCAN     ? "parallel_scan"
                     : k->pattern == PORTA_PATTERN_REDUCE ? "parallel_reduce"
                                                          : "parallel_for";
    PyErr_Format(PyExc_TypeError, "%s is a %s kernel: launch it with porta.%s, not porta.%s", label,
                 kn, kn, MODE_NAMES[mode]);
    return -1;
  }
  if (k->kernel->value_size > VALUE_BYTES) {
    PyErr_Format(PyExc_TypeError,
                 "%s: its reduction's value takes %u bytes, more than the %d a "
                 "launch from Python holds",
                 label, (unsigned)k->kernel->value_size, VALUE_BYTES);
    return -1;
  }
  if (k->policy == PORTA_POLICY_TEAM && p->kind != PORTA_POLICY_TEAM) {
    PyErr_Format(PyExc_TypeError, "%s takes a team member: launch it with a porta.TeamPolicy",
                 label);
    return -1;
  }
  if (k->policy != p->kind || (p->kind == PORTA_POLICY_MDRANGE && k->rank != p->mp.rank)) {
    PyErr_Format(PyExc_TypeError, "%s takes %d index(es): launch it with %s", label, (int)k->rank,
                 k->rank == 1 ? "an int or porta.RangePolicy"
                              : "a porta.MDRangePolicy of the same rank");
    return -1;
  }
  return 0;
}

/** Give the kernel its error record (the pointer in the argument struct): on the host the
 *  stack's; on CUDA, for a kernel that may raise, pinned memory from the pool (none for one
 *  that cannot). A kernel's scratch sizes run on the host first: they get the host's record.
 *  -1 when the pool cannot grow (with its exception). */
static int attach_record(const porta_py_kernel *k, porta_exec exec, char *packed,
                         launch_record *r) {
  r->host.claimed = r->host.ready = 0;
  r->host.dclaim = NULL;
  r->rec = r->cuda = NULL;
  r->rc = PORTA_SUCCESS;
  if (exec.backend != PORTA_BACKEND_CUDA)
    r->rec = &r->host;
  else if (k->flags & PORTA_PY_MAY_RAISE) {
    r->rec = r->cuda = porta_py_err_take();
    if (!r->rec) return -1;
  }
  porta_py_error_record *p = k->scratch ? &r->host : r->rec;
  memcpy(packed + k->err_offset, &p, sizeof p);
  return 0;
}

/** Add the kernel's scratch, sized from this launch's arguments by its host function, to the
 *  team policy, then give the kernel its own error record; -1 with the error the sizes
 *  recorded (a scratch extent divided by zero). */
static int request_scratch(const porta_py_kernel *k, char *packed, porta_team_policy *tp,
                           launch_record *r) {
  size_t req[4] = {0, 0, 0, 0};
  k->scratch(packed, req);
  for (int l = 0; l < 2; ++l)
    *tp = porta_team_scratch_request(*tp, l, tp->scratch_team[l] + req[l],
                                     tp->scratch_thread[l] + req[2 + l]);
  if (r->host.ready) {
    porta_py_raise_recorded(k, &r->host);
    return -1;
  }
  memcpy(packed + k->err_offset, &r->rec, sizeof r->rec);
  return 0;
}

/** The launch's iterations, for porta_py_run_launch's choice of whole or pieces (a team's work
 *  is unknown: a league rank counts 64). */
static int64_t launch_iterations(const launch_policy *p) {
  if (p->kind == PORTA_POLICY_TEAM) return p->tp.league_size * 64;
  int64_t iters = p->kind == PORTA_POLICY_RANGE ? p->rp.end - p->rp.begin : 1;
  if (p->kind == PORTA_POLICY_MDRANGE)
    for (int r = 0; r < p->mp.rank; ++r) iters *= p->mp.upper[r] - p->mp.lower[r];
  return iters;
}

/** Run the packed launch and return its value (None for a parallel_for); NULL with the error
 *  the kernel recorded, Porta's failure, or the KeyboardInterrupt that stopped it. */
static PyObject *run_packed(PyObject *ko, const porta_py_kernel *k, int mode, launch_policy *p,
                            char *packed, launch_record *r) {
  union {
    char c[VALUE_BYTES];
    double align_;
  } value;
  if (p->kind == PORTA_POLICY_TEAM && k->scratch && request_scratch(k, packed, &p->tp, r) < 0)
    return NULL;
  const launch_desc ld = {k, mode, p->kind, p->exec, &p->rp, &p->mp, &p->tp, packed, value.c};
  int rc = porta_py_run_launch(&ld, launch_iterations(p), r->rec ? &r->rec->ready : NULL);
  if (rc < 0) {     /* KeyboardInterrupt (or another exception) between pieces */
    r->cuda = NULL; /* its kernel may still run on the GPU: the record is not reused */
    return NULL;
  }
  /* An error the kernel recorded: on CUDA a parallel_for (range, mdrange, team) is asynchronous,
     so wait for the kernel first (reductions and scans have waited). */
  if (r->cuda && mode == MODE_FOR && rc == PORTA_SUCCESS)
    rc = porta_py_wait_kernel(p->exec, k->name);
  r->rc = rc;
  if (r->rec && r->rec->ready) {
    porta_py_raise_recorded(k, r->rec);
    return NULL;
  }
  if (rc != PORTA_SUCCESS) {
    if (!PyErr_Occurred()) /* else Ctrl-C ended a wait for the GPU (wait_check) */
      porta_py_failure(rc, k->name);
    return NULL;
  }
  if (mode != MODE_FOR) return porta_py_value_to_py(ko, k, value.c);
  Py_INCREF(Py_None);
  return Py_None;
}

/** parallel_for / parallel_reduce / parallel_scan (mode): the arguments ordered, the policy
 *  parsed, the arrays read, the specialisation found (or made) and checked against the launch,
 *  the argument struct packed, the launch run; the arrays and the CUDA error record given back
 *  whatever happened. */
static PyObject *launch(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, int mode) {
  if (nargs < 2) {
    PyErr_Format(PyExc_TypeError, "%s(policy, kernel, *args)", MODE_NAMES[mode]);
    return NULL;
  }
  PyObject *ko = args[1];
  if (!is_kernel(ko)) return launch_bound(args, nargs, kwnames, mode);
  Dispatcher *d = (Dispatcher *)ko;
  const char *label = d->label ? d->label : "kernel";
  launch_args a;
  if (porta_py_order_args(d, args + 2, nargs - 2, kwnames, label, &a) < 0) return NULL;
  launch_policy p;
  if (parse_policy(args[0], &p.kind, &p.exec, &p.rp, &p.mp, &p.tp) < 0) return NULL;

  union {
    char c[ARGS_BYTES];
    double align_;
  } packed;
  launch_record r;
  r.cuda = NULL;
  r.rc = PORTA_SUCCESS;
  PyObject *result = NULL;
  const porta_py_kernel *k;
  if (porta_py_read_arrays(d, &a, p.exec, label) == 0 &&
      (k = specialisation(ko, d, &a, p.exec, &label)) != NULL &&
      check_launch_fits(k, a.n, mode, &p, label) == 0 &&
      porta_py_pack_args(d, k, &a, &p, packed.c, label) == 0 &&
      attach_record(k, p.exec, packed.c, &r) == 0)
    result = run_packed(ko, k, mode, &p, packed.c, &r);
  if (r.cuda) porta_py_err_give(r.cuda, r.rc != PORTA_SUCCESS);
  porta_py_release_arrays(&a);
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
