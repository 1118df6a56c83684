/** @file _launch_pieces.c
 *  Running a launch (_launch.c packs it): whole, or on the host in pieces between which
 *  Ctrl-C gets in, the kernels' time per unit that decides which, and the CUDA waits' check
 *  (Ctrl-C during a wait for the GPU). Limited API.
 */
#include "_launch_private.h"

#include <stdlib.h>

/* Launches of at least this many iterations release the GIL (others are too short to gain). */
#define GIL_RELEASE_ITERS 32768

/** Wait for a CUDA launch's kernel without the GIL (its error record is read next). */
int porta_py_wait_kernel(porta_exec exec, const char *label) {
  PyThreadState *ts = PyEval_SaveThread();
  int rc = porta_exec_fence(exec, label);
  PyEval_RestoreThread(ts);
  return rc;
}

/* Whole, or in pieces that let Ctrl-C in: a host launch from the main thread that may run long goes
 * in pieces of about PIECE_SECONDS: sub-ranges of a range, rows of a box's first dimension, blocks
 * of a league's ranks, each a launch of the core (porta_launch_piece_: a reduction or scan
 * continues from the value of the pieces before it, joined in order). Between pieces the GIL is
 * taken for PyErr_CheckSignals, so Ctrl-C raises KeyboardInterrupt within about PIECE_SECONDS (a
 * parallel_for's arrays then hold the pieces that ran). Whether a launch may run long is told by
 * the kernel's time per unit (an index, a point of a box, a league rank) measured on its earlier
 * launches of at least RELIABLE_SECONDS (SAMPLE_EVERY says which are timed); a kernel not yet
 * measured is probed over large launches, in pieces that grow 8 times while they are short. A
 * launch predicted shorter than WHOLE_SECONDS runs whole, as before. In the deterministic mode only
 * parallel_for is cut: the bits of a reduction or scan would depend on the cuts. On CUDA a launch
 * is queued whole; its waits poll and ask wait_check. Other threads never cut: Python runs signal
 * handlers in the main thread only. PORTA_PY_PIECES=0 (read at the first launch) runs every launch
 * whole, and the CUDA waits block. */
#define PIECE_SECONDS 0.1
#define WHOLE_SECONDS 0.25
#define RELIABLE_SECONDS 1e-3
/* Units from which a kernel not yet measured is probed: a parallel_for (which pieces do not
   change), a reduction or scan (whose last bits they may change, as another thread count does). */
#define PROBE_UNITS_FOR 32768.0
#define PROBE_UNITS_VALUE 1048576.0
#define PROBE_FIRST_UNITS 64.0

/** Seconds per unit of a specialisation on a back end (0: not measured yet); a small
 *  direct-mapped table, used by the main thread only. */
typedef struct rate_entry {
  const porta_py_kernel *k;
  int backend;
  unsigned count; /* launches run whole: every SAMPLE_EVERY-th is timed */
  double seconds;
} rate_entry;
/* A launch run whole is timed (two clock reads, ~80 ns) when its kernel may be slow: predicted
   to take RELIABLE_SECONDS or more, or one in SAMPLE_EVERY (the first included), so that a
   kernel whose few indices each take long is found out, and short launches pay ~5 ns. */
#define SAMPLE_EVERY 16u
#define NRATES 256
static rate_entry rates[NRATES];

static rate_entry *rate_of(const porta_py_kernel *k, int backend) {
  rate_entry *e = &rates[(((uintptr_t)k >> 4) ^ ((uintptr_t)backend * 61u)) & (NRATES - 1)];
  if (e->k != k || e->backend != backend) {
    e->k = k;
    e->backend = backend;
    e->count = 0;
    e->seconds = 0.0;
  }
  return e;
}

static unsigned long main_ident = 0;
static int main_known = 0; /* 1: main_ident is the main thread's; -1: it could not be read */
static int pieces_on = 1;  /* PORTA_PY_PIECES=0: every launch whole (Ctrl-C waits for it) */

/** The CUDA waits' check (porta_set_wait_check_): waits of the main thread may be cut short;
 *  polled, it runs Python's signal handlers and says stop when one raised (KeyboardInterrupt
 *  stays set for the launch or fence to raise). */
static int wait_check(int poll) {
  if (main_known != 1 || PyThread_get_thread_ident() != main_ident) return 0;
  if (!poll) return 1;
  PyGILState_STATE g = PyGILState_Ensure();
  const int r = PyErr_CheckSignals();
  PyGILState_Release(g);
  return r < 0;
}

/** The first launch: which thread is the main one (threading.main_thread()), whether launches
 *  may go in pieces (PORTA_PY_PIECES), and the CUDA waits' check. GIL held. */
static void launch_setup(void) {
  if (PORTA_LIKELY(main_known != 0)) return;
  main_known = -1;
  const char *v = getenv("PORTA_PY_PIECES");
  pieces_on = !(v && v[0] == '0' && !v[1]);
  PyObject *th = PyImport_ImportModule("threading");
  PyObject *m = th ? PyObject_CallMethod(th, "main_thread", NULL) : NULL;
  PyObject *id = m ? PyObject_GetAttrString(m, "ident") : NULL;
  if (id && PyLong_Check(id)) {
    main_ident = PyLong_AsUnsignedLong(id);
    if (!PyErr_Occurred()) main_known = 1;
  }
  Py_XDECREF(id);
  Py_XDECREF(m);
  Py_XDECREF(th);
  PyErr_Clear();
  if (pieces_on) porta_set_wait_check_(wait_check);
}

/** Whether this is the main thread, where Python runs signal handlers (after launch_setup). */
static int in_main_thread(void) {
  return main_known == 1 && PyThread_get_thread_ident() == main_ident;
}

/** The launch whole, through the porta_parallel_* call of its pattern and policy. */
static int run_whole(const launch_desc *l) {
  const porta_py_kernel *k = l->k;
  if (l->mode == MODE_SCAN)
    return porta_parallel_scan(k->name, l->exec, *l->rp, k->kernel, l->args, l->value);
  if (l->mode == MODE_REDUCE)
    return l->kind == PORTA_POLICY_RANGE
               ? porta_parallel_reduce(k->name, l->exec, *l->rp, k->kernel, l->args, l->value)
           : l->kind == PORTA_POLICY_TEAM
               ? porta_parallel_reduce_team(k->name, l->exec, *l->tp, k->kernel, l->args, l->value)
               : porta_parallel_reduce_md(k->name, l->exec, *l->mp, k->kernel, l->args, l->value);
  return l->kind == PORTA_POLICY_RANGE
             ? porta_parallel_for(k->name, l->exec, *l->rp, k->kernel, l->args)
         : l->kind == PORTA_POLICY_TEAM
             ? porta_parallel_for_team(k->name, l->exec, *l->tp, k->kernel, l->args)
             : porta_parallel_for_md(k->name, l->exec, *l->mp, k->kernel, l->args);
}

/** The piece [lo, hi) of the cut dimension; `acc`: continue from the value in l->value. */
static int run_piece(const launch_desc *l, int64_t lo, int64_t hi, int acc) {
  const porta_py_kernel *k = l->k;
  void *v = l->mode == MODE_FOR ? NULL : l->value;
  if (l->kind == PORTA_POLICY_RANGE) {
    porta_range_policy p = *l->rp;
    p.begin = lo;
    p.end = hi;
    return porta_launch_piece_(k->name, l->exec, k->kernel, &p, 0, 0, l->args, v, acc);
  }
  if (l->kind == PORTA_POLICY_MDRANGE) {
    porta_mdrange_policy p = *l->mp;
    p.lower[0] = lo;
    p.upper[0] = hi;
    return porta_launch_piece_(k->name, l->exec, k->kernel, &p, 0, 0, l->args, v, acc);
  }
  return porta_launch_piece_(k->name, l->exec, k->kernel, l->tp, lo, hi, l->args, v, acc);
}

/** Run the launch (GIL held on entry and exit; released while it runs if it has at least
 *  GIL_RELEASE_ITERS iterations or goes in pieces). `stop`: a flag the kernel sets when it
 *  records an error (no piece runs after it). A porta_error code, or -1 with a Python
 *  exception set (Ctrl-C between pieces). */
int porta_py_run_launch(const launch_desc *l, int64_t iters, const volatile int32_t *stop) {
  /* the cut dimension [b, e) and the units in one step of it */
  int64_t b = 0, e = 0;
  double per = 1.0;
  if (l->kind == PORTA_POLICY_RANGE) {
    b = l->rp->begin;
    e = l->rp->end;
  } else if (l->kind == PORTA_POLICY_MDRANGE) {
    b = l->mp->lower[0];
    e = l->mp->upper[0];
    for (int r = 1; r < l->mp->rank; ++r) per *= (double)(l->mp->upper[r] - l->mp->lower[r]);
  } else {
    e = l->tp->league_size;
  }
  launch_setup();
  rate_entry *re = NULL;
  if (pieces_on && e - b >= 2 && per >= 1.0 && l->exec.backend != PORTA_BACKEND_CUDA &&
      (l->mode == MODE_FOR || !porta_deterministic()) && in_main_thread())
    re = rate_of(l->k, (int)l->exec.backend);
  const double units = (double)(e - b) * per;
  int pieces = 0;
  if (re)
    pieces = re->seconds > 0.0
                 ? re->seconds * units >= WHOLE_SECONDS
                 : units >= (l->mode == MODE_FOR ? PROBE_UNITS_FOR : PROBE_UNITS_VALUE);
  PyThreadState *ts = iters >= GIL_RELEASE_ITERS || pieces ? PyEval_SaveThread() : NULL;
  int rc;
  if (!pieces) {
    const int timed =
        re && (re->count++ % SAMPLE_EVERY == 0 || re->seconds * units >= RELIABLE_SECONDS);
    const double t0 = timed ? porta_wtime() : 0.0;
    rc = run_whole(l);
    if (timed && rc == PORTA_SUCCESS) {
      const double dt = porta_wtime() - t0;
      if (dt >= RELIABLE_SECONDS) re->seconds = dt / units;
    }
  } else {
    /* seconds per step (0: unknown), and the first piece's steps */
    double sps = re->seconds * per;
    const double want = sps > 0.0 ? PIECE_SECONDS / sps : PROBE_FIRST_UNITS / per;
    int64_t c = want < (double)(e - b) ? (int64_t)want : e - b;
    int64_t pos = b;
    rc = PORTA_SUCCESS;
    for (int first = 1; pos < e; first = 0) {
      const int64_t left = e - pos;
      if (c < 1) c = 1;
      if (c >= left || (sps > 0.0 && sps * (double)left <= 1.5 * PIECE_SECONDS)) c = left;
      const double t0 = porta_wtime();
      rc = run_piece(l, pos, pos + c, !first);
      const double dt = porta_wtime() - t0;
      if (rc != PORTA_SUCCESS || (stop && *stop)) break;
      pos += c;
      if (pos >= e) break;
      if (dt >= RELIABLE_SECONDS) re->seconds = dt / ((double)c * per);
      sps = dt / (double)c;
      const int64_t grow = c <= INT64_MAX / 8 ? 8 * c : INT64_MAX;
      c = sps > 0.0 && PIECE_SECONDS / sps < (double)grow ? (int64_t)(PIECE_SECONDS / sps) : grow;
      /* Ctrl-C? (Python runs the handlers; KeyboardInterrupt ends the launch) */
      if (ts) PyEval_RestoreThread(ts);
      const int sig = PyErr_CheckSignals();
      ts = sig == 0 && ts ? PyEval_SaveThread() : NULL;
      if (sig < 0) {
        rc = -1;
        break;
      }
    }
  }
  if (ts) PyEval_RestoreThread(ts);
  return rc;
}
