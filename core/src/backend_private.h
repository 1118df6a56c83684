/** @file backend_private.h
 *  The execution interface of a back end (not installed): each back end fills in one
 *  porta_backend_ops table in its own folder (serial/, openmp/, cuda/, ...) and backends.c lists
 *  them from PORTA_BACKEND_LIST. runtime.c, dispatch.c, deep_copy.c and ipc.c call
 *  through the tables and hold no back-end conditionals. */
#ifndef PORTA_BACKEND_PRIVATE_H
#define PORTA_BACKEND_PRIVATE_H

#include "porta/porta.h"

PORTA_EXTERN_C_BEGIN

/** What porta_initialize hands a back end's initialize hook. */
typedef struct porta_backend_init_args {
  int device_id;    /**< --porta-device / PORTA_DEVICE_ID (0 when not given) */
  int device_given; /**< non-zero if device_id was given */
  int required;     /**< non-zero if this back end was asked for by name: fail if unusable */
} porta_backend_init_args;

/** A memory space a back end brings (porta_backend_ops.spaces): its properties, which the
 *  core asks instead of naming the space. Its allocation hooks are registered at run time in
 *  porta_space_ops_ (runtime_private.h) by the back end's initialize hook. */
typedef struct porta_space_info {
  porta_memory_space id;
  const char *name;            /**< porta_memory_space_name ("CudaUVM") */
  int host_access;             /**< host code may read and write it */
  porta_layout default_layout; /**< what PORTA_LAYOUT_DEFAULT means there */
} porta_space_info;

/** One back end's execution interface. A NULL hook means the default named with it; the host
 *  back ends leave most of them NULL. Only `name`, `memory_space`, `on_device`, `spaces` and
 *  `spaces_unavailable_why` are read for a back end that is not compiled in (its table then has
 *  every hook NULL). */
typedef struct porta_backend_ops {
  porta_backend id;
  const char *name;                /**< what --porta-backend accepts (case-insensitive) */
  porta_memory_space memory_space; /**< the space its kernels use by default */
  /** Its kernels run on an accelerator: they reach its own spaces only. Else they run on the
   *  host and reach every space the host can read, and its own. */
  int on_device;
  /** The memory spaces it brings (PORTA_MEMORY_SPACE_LIST's of this back end), NULL: none. */
  const porta_space_info *spaces;
  int num_spaces;
  /** Ends "memory space X is not available (...)" for its spaces when it is not usable. */
  const char *spaces_unavailable_why;
  /** Ends "back end 'X' was asked for but is not ...": why a compiled-in back end is not
   *  available (NULL: it always is). */
  const char *unavailable_why;

  /* ---- life cycle ---- */
  /** Usable on this machine (after initialize). NULL: not compiled in. */
  int (*available)(void);
  /** Called by porta_initialize before the default back end is chosen. NULL: nothing to do. */
  int (*initialize)(const porta_backend_init_args *args);
  /** Called by porta_finalize after the last fence. NULL: nothing to do. */
  void (*finalize)(void);

  /* ---- host threads (a back end that runs a kernel on several host threads) ---- */
  /** Non-zero: launches get porta_num_threads() threads (porta_launch.num_threads). */
  int uses_host_threads;
  /** Thread count when none is asked for. NULL: this back end does not own the host threads. */
  int (*default_threads)(void);
  /** Processors this process may use (bounds --porta-threads). NULL: sysconf. */
  int (*num_procs)(void);
  /** Zero, or copy, `bytes` of host memory on `nthreads` threads, each taking one contiguous
   *  block, so pages are first touched by the threads whose kernels will use them. Used for
   *  host allocations and copies of 1 MiB and more. NULL: one memset / memcpy. */
  int (*host_zero)(void *ptr, size_t bytes, int nthreads);
  int (*host_copy)(void *dst, const void *src, size_t bytes, int nthreads);

  /* ---- instances and fences ---- */
  /** Wait for one instance (reports asynchronous faults). NULL: launches complete before
   *  they return, a fence has nothing to wait for. */
  int (*fence)(int instance, const char *label);
  /** Wait for every instance (porta_fence). NULL: porta_fence fences the default back end. */
  int (*fence_all)(const char *label);
  /** A new instance (stream) of a porta_exec_priority. NULL: the back end has only
   *  instance 0. */
  int (*instance_create)(int priority, int *instance);
  /** Release an instance made by instance_create (never called for instance 0). */
  int (*instance_destroy)(int instance);
  /** Later work on instance `waiter` starts after the work queued on `after` so far
   *  (porta_exec_wait). NULL: launches complete before they return. */
  int (*order)(int waiter, int after);
  /** Queue a copy of `bytes` on an instance. NULL: copies run at once on the host. */
  int (*copy_async)(void *dst, const void *src, size_t bytes, int instance);
  /** The native queue of an instance (a cudaStream_t; NULL is the legacy default stream of
   *  instance 0). NULL hook: the back end has no queue (porta_exec_native_queue refuses). */
  void *(*native_queue)(int instance);

  /* ---- device ---- */
  /** The device's model name. NULL: the back end runs on the host (porta_device_id() is -1). */
  const char *(*device_name)(void);
  /** Bytes of the device's memory (porta_exec_traits.device_memory_bytes). NULL: 0. */
  double (*device_memory_bytes)(void);
  /** Host memory the device copies fastest from and to (porta_exec_traits.staging_space).
   *  0 (PORTA_HOST_SPACE): plain host memory. */
  porta_memory_space staging_space;
  /** Atomic updates cost about as much as plain ones on its threads (hardware atomics). */
  int cheap_atomics;

  /* ---- capabilities (teams) ---- */
  /** Threads a team may have with `vector_length` lanes each. NULL: 1. */
  int (*team_thread_limit)(int vector_length);
  /** Level-0 (shared) bytes per team. NULL: no limit beyond the scratch cap. */
  size_t (*team_level0_limit)(void);
  /** Ends the message of a team that does not fit team_level0_limit (may be ""). */
  const char *team_level0_what;
  /** Largest vector length (the warp size); 0: no limit. */
  int max_vector_length;
  /** Team size PORTA_AUTO becomes, given the largest that fits (`fit` >= 1). NULL: 1. */
  int (*team_recommended)(int vector_length, int fit);

  /* ---- recorded loops (porta/loop.h; struct porta_loop in loop_private.h) ---- */
  /** Record loop->body once (porta_loop_call_body_) into loop->impl. NULL: the back end runs
   *  the body on every pass (its launches complete before they return). */
  int (*loop_record)(struct porta_loop *loop);
  /** porta_exec_if on this back end (capturing: while a loop records; else the host decides).
   *  NULL: the host reads the flag (launches complete before they return). */
  int (*exec_if)(porta_exec exec, const int32_t *flag, int (*body)(porta_exec, void *), void *ctx,
                 int capturing);
  /** porta_exec_cond's handle while a loop records (*handle 0 otherwise), and porta_exec_if_cond
   *  on it. NULL: no handles (the host reads the flag). */
  int (*exec_cond)(porta_exec exec, unsigned long long *handle);
  int (*exec_if_cond)(porta_exec exec, unsigned long long handle, const int32_t *flag,
                      int (*body)(porta_exec, void *), void *ctx, int capturing);
  /** Queue a run of a recorded loop on loop->exec. */
  int (*loop_run)(struct porta_loop *loop);
  /** The passes of the last run (waits for it). */
  int (*loop_passes)(struct porta_loop *loop, int64_t *passes);
  /** Wait for the loop's runs and release loop->impl; returns the wait's error (a fault of the
   *  last run), having released everything either way. */
  int (*loop_release)(struct porta_loop *loop);

  /* ---- memory shared between the processes of a node (porta/ipc.h) ---- */
  /** NULL: porta_ipc_* report "not available" on this back end. */
  int (*ipc_alloc)(size_t bytes, void **ptr, void *handle64);
  void (*ipc_free)(void *ptr);
  int (*ipc_open)(const void *handle64, void **ptr);
  void (*ipc_close)(void *ptr);
} porta_backend_ops;

/** Every back end of the porta_backend enum, indexed by it (backends.c). One that is not
 *  compiled in has a table with its name and memory spaces only. */
extern const porta_backend_ops *const porta_backend_ops_[PORTA_NUM_BACKENDS];

/** The back ends usable in this run, indexed by porta_backend: set by porta_initialize,
 *  NULL for one that is not usable (or before initialisation). The launch path reads it once
 *  per launch instead of calling available(). */
extern const porta_backend_ops *porta_backend_usable_[PORTA_NUM_BACKENDS];

/** The table of back end `b`, or NULL if `b` is out of range. */
static inline const porta_backend_ops *porta_backend_ops_of_(porta_backend b) {
  return (int)b >= 0 && b < PORTA_NUM_BACKENDS ? porta_backend_ops_[b] : NULL;
}

/** The usable table of back end `b` in this run, or NULL (out of range, or not usable). */
static inline const porta_backend_ops *porta_backend_usable_of_(porta_backend b) {
  return (int)b >= 0 && b < PORTA_NUM_BACKENDS ? porta_backend_usable_[b] : NULL;
}

/** The compiled-in back end that owns the host threads (default_threads set), or NULL. */
const porta_backend_ops *porta_backend_threads_(void);

/** The properties of `space` (the host's, or those its back end registered), or NULL for a
 *  value that is no memory space. */
const porta_space_info *porta_space_info_(porta_memory_space space);
/** The back end that brings `space`, or NULL (the host's space, or no space). */
const porta_backend_ops *porta_space_backend_(porta_memory_space space);

/* The back ends' tables, each in its own folder: porta_NAME_backend_ops_ in NAME/NAME_backend.c,
 * compiled in every build (a back end that is switched off fills in id, name and its memory
 * spaces only). */
#define PORTA_BACKEND_OPS_DECLARE_(ID, name, on, A)                                                \
  extern const porta_backend_ops porta_##name##_backend_ops_;
PORTA_BACKEND_LIST(PORTA_BACKEND_OPS_DECLARE_, ~)
#undef PORTA_BACKEND_OPS_DECLARE_

PORTA_EXTERN_C_END

#endif
