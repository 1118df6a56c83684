/** @file runtime.h
 *  Initialisation, execution spaces, memory spaces, fences and timers.
 */
#ifndef PORTA_RUNTIME_H
#define PORTA_RUNTIME_H

#include <stdio.h>

#include "porta/error.h"

PORTA_EXTERN_C_BEGIN

/** Back ends a kernel can run on: PORTA_BACKEND_<ID> for each of PORTA_BACKEND_LIST
 *  (porta/config.h), in its order. Each kernel descriptor holds one launcher per back end. */
#define PORTA_BACKEND_ENUM_(ID, name, on, A) PORTA_BACKEND_##ID,
typedef enum porta_backend {
  PORTA_BACKEND_LIST(PORTA_BACKEND_ENUM_, ~) PORTA_NUM_BACKENDS
} porta_backend;
#undef PORTA_BACKEND_ENUM_

/** Memory spaces: host memory (the core's own, what every host back end uses), then the
 *  spaces the back ends bring, PORTA_<ID>_SPACE for each of PORTA_MEMORY_SPACE_LIST
 *  (porta/config.h), in its order; a back end that is not compiled in keeps its spaces (their
 *  names answer, allocations are refused). Code that must know what a space allows asks
 *  (porta_memory_space_host_accessible, porta_space_accessible) instead of naming it. */
#define PORTA_MEMORY_SPACE_ENUM_(ID, backend, A) PORTA_##ID##_SPACE,
typedef enum porta_memory_space {
  PORTA_HOST_SPACE = 0,
  PORTA_MEMORY_SPACE_LIST(PORTA_MEMORY_SPACE_ENUM_, ~) PORTA_NUM_MEMORY_SPACES
} porta_memory_space;
#undef PORTA_MEMORY_SPACE_ENUM_

/** An execution space instance: a back end plus an instance id (a CUDA stream
 *  later; host back ends have a single instance 0). Passed by value. */
typedef struct porta_exec {
  porta_backend backend;
  int instance;
} porta_exec;

/** Start Porta. Consumes the `--porta-*` options from argc/argv (argc/argv may be NULL);
 *  also reads PORTA_BACKEND, PORTA_NUM_THREADS, PORTA_DETERMINISTIC, PORTA_PROFILE and
 *  KOKKOS_TOOLS_LIBS. Command-line options win over the environment. Unknown `--porta-`
 *  options and bad values are errors. Calling it twice is an error. */
PORTA_API int porta_initialize(int *argc, char ***argv);
/** Fence, print the profile table if one was asked for, unload tools, free pools. */
PORTA_API int porta_finalize(void);
PORTA_API int porta_is_initialized(void);

/** The default execution space (chosen by --porta-backend / PORTA_BACKEND). */
PORTA_API porta_exec porta_exec_default(void);
/** The instance 0 of a given back end. */
PORTA_API porta_exec porta_exec_backend(porta_backend backend);
/** A new instance of `backend` for asynchronous work: a CUDA stream of its own, ordered
 *  independently of other instances and fenced by porta_exec_fence. Host back ends complete
 *  each launch before it returns, so they hand back instance 0. */
PORTA_API int porta_exec_create_instance(porta_backend backend, porta_exec *out);
/** How soon a GPU runs an instance's kernels beside other instances' (CUDA stream
 *  priorities). */
typedef enum porta_exec_priority {
  PORTA_PRIORITY_NORMAL = 0, /**< porta_exec_create_instance's, and instance 0's */
  PORTA_PRIORITY_HIGH = 1    /**< its waiting blocks are started before NORMAL ones */
} porta_exec_priority;
/** porta_exec_create_instance with a priority: the small kernels of a HIGH instance (a halo
 *  exchange's pack and unpack) start as soon as the GPU has room, instead of after every
 *  block of a large kernel already running on another instance. Host back ends have one
 *  instance and no priorities: they hand back instance 0. */
PORTA_API int porta_exec_create_instance_with_priority(porta_backend backend,
                                                       porta_exec_priority priority,
                                                       porta_exec *out);
/** Order two instances of one back end without waiting on the host: work queued on `exec`
 *  from now on starts after the work queued on `after` so far (a CUDA event between the two
 *  streams). Inside a loop's body this is an edge of the recording, so a body can fork work
 *  onto a second instance and join it again (porta/loop.h); every fork must be joined before
 *  the body returns. Host back ends finish each launch before it returns: nothing to do. */
PORTA_API int porta_exec_wait(porta_exec exec, porta_exec after);
/** Fence and release an instance made by porta_exec_create_instance (instance 0: no-op). */
PORTA_API int porta_exec_destroy_instance(porta_exec exec);
/** The memory space kernels on `exec` use by default. */
PORTA_API porta_memory_space porta_exec_memory_space(porta_exec exec);
/** The memory space views are created in when no options say otherwise: the default
 *  execution space's, unless porta_set_default_memory_space chose another (for example
 *  CudaUVMSpace, so host code can read device results after a fence). */
PORTA_API porta_memory_space porta_default_memory_space(void);
PORTA_API int porta_set_default_memory_space(porta_memory_space space);
/** What an execution space can do (Kokkos' execution space traits). Code that must behave
 *  differently on a device or on host threads asks for these instead of naming a back end, so
 *  a new back end needs no change there. */
typedef struct porta_exec_traits {
  int on_device;       /**< kernels run on an accelerator with memory of its own (a GPU) */
  int host_threads;    /**< kernels run on several host threads (porta_num_threads of them) */
  int single_threaded; /**< kernels run on one thread now: iterations never race, so an update
                            shared between iterations needs no atomic */
  int async_instances; /**< instances (porta_exec_create_instance) run concurrently with each
                            other and with the host (GPU streams); else launches complete before
                            they return */
  int cheap_atomics;   /**< atomic updates cost about as much as plain ones (hardware atomics
                            of a GPU, or one thread) */
  int ipc;             /**< its memory can be mapped by other processes of the node (ipc.h) */
  porta_memory_space memory_space;  /**< the space its kernels use by default */
  porta_memory_space staging_space; /**< host memory its copies are fastest from and to: where
                                         to keep buffers that MPI sends (pinned memory on a
                                         GPU, plain host memory otherwise) */
  double device_memory_bytes;       /**< the size of the device memory its kernels use (what
                                         an app checks a run's needs against before
                                         allocating); 0 on the host, whose memory is the
                                         node's */
} porta_exec_traits;
/** The traits of `exec` (all zero, host spaces, for an unusable back end). */
PORTA_API porta_exec_traits porta_exec_query(porta_exec exec);

/** Non-zero if `backend` is compiled in and usable on this machine. */
PORTA_API int porta_backend_available(porta_backend backend);
/** Non-zero if code running on `backend` may dereference memory of `space`: the spaces the
 *  back end brings, and for a back end whose kernels run on the host every space the host
 *  can read. */
PORTA_API int porta_space_accessible(porta_backend backend, porta_memory_space space);
/** Non-zero if host code may read and write memory of `space` (Host, CudaUVM, CudaHostPinned;
 *  not Cuda): where it cannot, a view is read on the host through a mirror or deep_copy. A
 *  property its back end registers with the space. */
PORTA_API int porta_memory_space_host_accessible(porta_memory_space space);

PORTA_API const char *porta_backend_name(porta_backend backend);
PORTA_API const char *porta_memory_space_name(porta_memory_space space);
/** Parse "serial" / "openmp" / "cuda" (case-insensitive). */
PORTA_API int porta_backend_parse(const char *name, porta_backend *backend);

/** Threads the OpenMP back end uses (1 for the other back ends' host work). */
PORTA_API int porta_num_threads(void);
/** Change the OpenMP thread count after initialisation: n >= 1 and within --porta-threads'
 *  limit (64 per available processor, at most 4096), else PORTA_ERROR_INVALID_ARGUMENT. */
PORTA_API int porta_set_num_threads(int n);
/** Deterministic reductions: bitwise-identical results for any thread count. */
PORTA_API int porta_deterministic(void);
PORTA_API void porta_set_deterministic(int on);

/** The settings porta_initialize takes from a command line and the environment, read by its
 *  rules without initialising anything (the apps' start reads them before MPI and OpenMP). */
typedef struct porta_settings {
  /** The back end asked for: --porta-backend, else PORTA_BACKEND (any case), as a
   *  porta_backend; -1 where neither says (porta_initialize's default, the last usable). */
  int backend;
  /** The OpenMP threads porta_initialize would use: --porta-threads, else PORTA_NUM_THREADS
   *  (as strtol reads them: " 4" and "+4" are 4), else OpenMP's own count (OMP_NUM_THREADS as
   *  the OpenMP run time reads it, else one per processor); 1 without OpenMP. */
  int threads;
  /** Whether --porta-threads or PORTA_NUM_THREADS said the count. */
  int threads_asked;
  /** --porta-deterministic, else PORTA_DETERMINISTIC: 0 or 1. */
  int deterministic;
} porta_settings;

/** Read the settings of the `--porta-*` options among argv[1..argc-1] (the last of an option
 *  wins) and, for what they do not say, of PORTA_BACKEND, PORTA_NUM_THREADS and
 *  PORTA_DETERMINISTIC (an empty variable is unset): the rules of porta_initialize, which uses
 *  this parser. argv is left as it is and --porta-help prints nothing. A bad value or an
 *  unknown `--porta-` option: the error porta_initialize would give. */
PORTA_API int porta_settings_read(int argc, char *const *argv, porta_settings *out);

/** The text `--porta-help` prints: Porta's command-line options with their environment
 *  variables (apps include it in their own usage text, so there is one copy). */
PORTA_API const char *porta_help_text(void);

/** Print the build and run configuration (version, back ends, threads, modes). */
PORTA_API void porta_print_configuration(FILE *out);
/** The GPU this process runs CUDA kernels on (chosen by --porta-device / PORTA_DEVICE_ID, else
 *  the node-local MPI rank modulo the GPU count; Kokkos::device_id), or -1 when the default
 *  back end is not CUDA. */
PORTA_API int porta_device_id(void);
/** The model name of porta_device_id()'s GPU ("NVIDIA H100 80GB HBM3"), or "" when the default
 *  back end is not CUDA (run summaries record it). */
PORTA_API const char *porta_device_name(void);

/** The native queue behind `exec`, for a library that queues work of its own in order with
 *  Porta's launches (NCCL, a vendor BLAS; Kokkos::Cuda::cuda_stream()): on CUDA the instance's
 *  cudaStream_t (NULL, the legacy default stream, for instance 0). A host back end has none:
 *  PORTA_ERROR_UNSUPPORTED. Inside a loop's body (porta/loop.h) pass the body's `exec`: work
 *  queued there is recorded with the body's launches. */
PORTA_API int porta_exec_native_queue(porta_exec exec, void **queue);

/** Wait for all outstanding work on every instance. */
PORTA_API int porta_fence(const char *label);
/** Wait for outstanding work on one instance. */
PORTA_API int porta_exec_fence(porta_exec exec, const char *label);

/** Monotonic wall-clock seconds. */
PORTA_API double porta_wtime(void);

/** A wall-clock timer (like Kokkos::Timer). */
typedef struct porta_timer {
  double start;
} porta_timer;
static inline void porta_timer_reset(porta_timer *t) { t->start = porta_wtime(); }
static inline double porta_timer_seconds(const porta_timer *t) { return porta_wtime() - t->start; }

PORTA_EXTERN_C_END

#endif /* PORTA_RUNTIME_H */
