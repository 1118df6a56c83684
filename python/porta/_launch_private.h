/** @file _launch_private.h
 *  What the files of the launch fast path share (_launch.c: the launch, its policy, its
 *  specialisation and error record; _launch_args.c: its arguments ordered, read, checked and
 *  packed, and its value read back; _launch_checks.c: the arrays' memory and the launch range
 *  against the arrays, and the errors a kernel recorded; _launch_pieces.c: running a launch
 *  whole or in pieces that let Ctrl-C in, and the CUDA waits). Private to the extension.
 */
#ifndef PORTA_PY_LAUNCH_PRIVATE_H
#define PORTA_PY_LAUNCH_PRIVATE_H

#include "_core_private.h" /* first: Python.h before any system header */

/** A launch's pattern: porta.parallel_for, parallel_reduce or parallel_scan. */
enum { MODE_FOR = 0, MODE_REDUCE = 1, MODE_SCAN = 2 };

#define MAX_ARGS 32     /**< a kernel's arguments, at most */
#define ARGS_BYTES 2048 /**< its argument struct, at most */
/** A reduction's or scan's value, at most (the exact sum's is 200 bytes with its default window,
 *  568 with every double's: PORTA_XSUM_MIN_EXP -1074 and 66 limbs in PORTA_CFLAGS). */
#define VALUE_BYTES 1024

/** A launch's arguments: the kernel's, in the order of its parameters (av, n of them), each
 *  array read by its protocol (bufs[j] where isbuf[j]; the first `got` are given back after
 *  the launch) and the layout signature they make (4 bits an argument). */
typedef struct launch_args {
  PyObject *av[MAX_ARGS];
  Py_ssize_t n, got;
  pyarr bufs[MAX_ARGS];
  char isbuf[MAX_ARGS];
  porta_py_sig sig;
} launch_args;

/** A launch's policy as parse_policy reads it: its kind (PORTA_POLICY_*), the back end, and the
 *  range, mdrange or team policy of that kind. */
typedef struct launch_policy {
  int kind;
  porta_exec exec;
  porta_range_policy rp;
  porta_mdrange_policy mp;
  porta_team_policy tp;
} launch_policy;

/* ---- the arguments (_launch_args.c) ---- */

/** The kernel's arguments (args, nargs of them, then the keywords kwnames) in the order of its
 *  parameters into a->av (a->n); -1 with a TypeError. */
int porta_py_order_args(Dispatcher *d, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                        const char *label, launch_args *a);

/** Read the arrays among the arguments, each in a memory space the launch's back end must
 *  reach, and the layout signature; -1 with the exception set. The arrays read (a->got), even
 *  on an error, are given back by porta_py_release_arrays. */
int porta_py_read_arrays(Dispatcher *d, launch_args *a, porta_exec exec, const char *label);

/** Give back the arrays porta_py_read_arrays read. */
void porta_py_release_arrays(launch_args *a);

/** Pack the argument struct (packed: ARGS_BYTES) at the offsets the generated C exported, each
 *  argument checked against the kernel's field and the launch range against the arrays it
 *  indexes directly; -1 with the exception of the first argument that does not fit. */
int porta_py_pack_args(Dispatcher *d, const porta_py_kernel *k, const launch_args *a,
                       const launch_policy *p, char *packed, const char *label);

/** The value of a reduction or scan: a number, (val, loc) for minloc / maxloc, or a custom
 *  reducer's fields given to the kernel's _porta_result (its class). */
PyObject *porta_py_value_to_py(PyObject *ko, const porta_py_kernel *k, const char *v);

/* ---- the checks (_launch_checks.c) ---- */

/** An array the launch's back end cannot reach (a NumPy array given to a CUDA kernel, a CuPy
 *  array to an OpenMP one): a TypeError naming the argument, its memory and what to do; -1 (0
 *  where it can reach it). */
int porta_py_raise_space(Dispatcher *d, Py_ssize_t j, PyObject *o, const pyarr *a, porta_exec exec,
                         const char *label);

/** The array argument j (object o, read as a) against the memory the launch's back end reaches
 *  (on CUDA, Porta's GPU too): 0, else porta_py_raise_space's TypeError (-1). Inline: it runs
 *  for every array of every launch, and only its message is cold. */
static inline int porta_py_check_space(Dispatcher *d, Py_ssize_t j, PyObject *o, const pyarr *a,
                                       porta_exec exec, const char *label) {
  const int dev = exec.backend == PORTA_BACKEND_CUDA;
  if (porta_space_accessible(exec.backend, (porta_memory_space)a->space) &&
      (!dev || a->device < 0 || a->device == pyarr_porta_device()))
    return 0;
  return porta_py_raise_space(d, j, o, a, exec, label);
}

/** The IndexError of a launch range that does not fit an array the kernel indexes directly
 *  (porta_py_check_direct): it names the kernel, the array, the dimension, the extent and the
 *  range of the first index that does not fit; -1 (0 where every one fits). */
int porta_py_raise_direct(const porta_py_kernel *k, const porta_py_field *f, const int64_t *ext,
                          int nidx, const int64_t *lo, const int64_t *hi, const char *label,
                          const char *name);

/** The launch range against an array that the kernel indexes directly with launch indices
 *  (porta_py_field.direct: y[i], a[i, j] in statements every index runs): each such index's
 *  range [lo, hi) must start at 0 or above and end within that dimension's extent, else an
 *  IndexError naming the kernel, the array, the dimension, the extent and the range (-1).
 *  Called for non-empty ranges only (an empty launch runs nothing). Inline: it runs at every
 *  launch, and only its message is cold. */
static inline int porta_py_check_direct(const porta_py_kernel *k, const porta_py_field *f,
                                        const int64_t *ext, int nidx, const int64_t *lo,
                                        const int64_t *hi, const char *label, const char *name) {
  for (int d = 0; d < f->rank; ++d) {
    unsigned m = f->direct[d];
    for (int r = 0; m && r < nidx; ++r, m >>= 1)
      if ((m & 1u) && (lo[r] < 0 || hi[r] > ext[d]))
        return porta_py_raise_direct(k, f, ext, nidx, lo, hi, label, name);
  }
  return 0;
}

/** Raise the error a kernel recorded (porta_py.h, porta_py_error_record): ZeroDivisionError or
 *  IndexError naming the kernel and the Python file and line, as Python and NumPy word them. */
void porta_py_raise_recorded(const porta_py_kernel *k, const porta_py_error_record *e);

/* ---- running a launch (_launch_pieces.c) ---- */

/** A launch, ready to run: the specialisation, the pattern (MODE_*), the policy and the packed
 *  arguments; `value` receives a reduction's or scan's value. */
typedef struct launch_desc {
  const porta_py_kernel *k;
  int mode, kind;
  porta_exec exec;
  const porta_range_policy *rp;
  const porta_mdrange_policy *mp;
  const porta_team_policy *tp;
  const char *args;
  char *value;
} launch_desc;

/** Run the launch, whole or in pieces (GIL held on entry and exit; released while it runs if
 *  it is long or goes in pieces). `iters`: its iterations (a league rank counts 64); `stop`: a
 *  flag the kernel sets when it records an error (no piece runs after it). A porta_error code,
 *  or -1 with a Python exception set (Ctrl-C between pieces). */
int porta_py_run_launch(const launch_desc *l, int64_t iters, const volatile int32_t *stop);

/** Wait for a CUDA launch's kernel without the GIL (its error record is read next). */
int porta_py_wait_kernel(porta_exec exec, const char *label);

#endif /* PORTA_PY_LAUNCH_PRIVATE_H */
