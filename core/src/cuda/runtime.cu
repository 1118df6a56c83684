/** @file cuda/runtime.cu
 *  The CUDA back end's run time: device selection, memory spaces (device,
 *  managed, pinned), streams, fences, the launch buffers (one set per host
 *  thread), fault reports that name the last kernel launched, and the record through which debug
 *  builds report a failed view check on the GPU. */
#include <cuda_runtime.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_private.h"

static int cuda_usable = 0;
#define PORTA_CUDA_MAX_INSTANCES 64
static cudaStream_t streams[PORTA_CUDA_MAX_INSTANCES];
static cudaDeviceProp props;
static int64_t grid_limit = 0; /* PORTA_CUDA_GRID_LIMIT, 0 = the GPU's own limit */
/* The last kernel this host thread launched, for fault reports. */
static thread_local char last_label[128] = "(none)";

/* A host thread's launch buffers: the device workspace (partials, scan tiles, level-1 team
   scratch), the last-block counter and the pinned buffer a reduction's value comes back in.
   Each thread that launches has its own, so launches from several threads at once (Python
   threads) never share them; all are listed (under `bufs_lock`) so that finalize frees every
   thread's, and a thread's are freed when it exits (the key's destructor). */
typedef struct thread_bufs {
  void *workspace;
  size_t workspace_bytes;
  unsigned *counter;
  void *result;
  size_t result_bytes;
  struct thread_bufs *prev, *next;
} thread_bufs;
static thread_local thread_bufs *my_bufs = NULL;
static thread_bufs *all_bufs = NULL;
static pthread_mutex_t bufs_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_key_t bufs_key;
static pthread_once_t bufs_once = PTHREAD_ONCE_INIT;
static int bufs_key_ok = 0;

/* Recorded loops alive, and the workspace buffers they may still hold: freed when the last loop
   goes (after a wait), or at finalize. Under bufs_lock. */
static int loops_alive = 0;
static void **retired = NULL;
static int nretired = 0, retired_cap = 0;

static void free_retired(void) {
  for (int k = 0; k < nretired; ++k) cudaFree(retired[k]);
  free(retired);
  retired = NULL;
  nretired = retired_cap = 0;
}

/** Keep `p` until no recorded loop may use it (bufs_lock held); 0 if there was no room. */
static int retire(void *p) {
  if (nretired == retired_cap) {
    const int cap = retired_cap ? 2 * retired_cap : 16;
    void **r = (void **)realloc(retired, (size_t)cap * sizeof *r);
    if (!r) return 0;
    retired = r;
    retired_cap = cap;
  }
  retired[nretired++] = p;
  return 1;
}

/** Free one thread's buffers (bufs_lock held): after a wait, or kept while loops may use them. */
static void release_bufs(thread_bufs *b) {
  if (cuda_usable && (b->workspace || b->counter || b->result)) {
    cudaDeviceSynchronize(); /* its launches may still be running */
    if (b->workspace && !(loops_alive > 0 && retire(b->workspace))) cudaFree(b->workspace);
    if (b->counter && !(loops_alive > 0 && retire(b->counter))) cudaFree(b->counter);
    cudaFreeHost(b->result);
  }
  b->workspace = NULL;
  b->workspace_bytes = 0;
  b->counter = NULL;
  b->result = NULL;
  b->result_bytes = 0;
}

/** At a thread's exit: its buffers go. */
static void bufs_destroy(void *p) {
  thread_bufs *b = (thread_bufs *)p;
  pthread_mutex_lock(&bufs_lock);
  release_bufs(b);
  if (b->prev) b->prev->next = b->next;
  if (b->next) b->next->prev = b->prev;
  if (all_bufs == b) all_bufs = b->next;
  pthread_mutex_unlock(&bufs_lock);
  free(b);
}

static void bufs_key_make(void) { bufs_key_ok = pthread_key_create(&bufs_key, bufs_destroy) == 0; }

/** This thread's buffers, made on its first launch (NULL if out of memory). */
static thread_bufs *bufs(void) {
  thread_bufs *b = my_bufs;
  if (b) return b;
  b = (thread_bufs *)calloc(1, sizeof *b);
  if (!b) return NULL;
  pthread_once(&bufs_once, bufs_key_make);
  pthread_mutex_lock(&bufs_lock);
  b->next = all_bufs;
  if (all_bufs) all_bufs->prev = b;
  all_bufs = b;
  pthread_mutex_unlock(&bufs_lock);
  if (bufs_key_ok) pthread_setspecific(bufs_key, b);
  my_bufs = b;
  return b;
}

/** This thread's last-block counter, made and zeroed on first use (NULL if that fails). */
static unsigned *thread_counter(thread_bufs *b) {
  if (!b->counter) { /* zeroed once: atomicInc wraps it back to 0 after each use */
    if (cudaMalloc((void **)&b->counter, sizeof(unsigned)) != cudaSuccess) {
      b->counter = NULL;
      return NULL;
    }
    if (cudaMemset(b->counter, 0, sizeof(unsigned)) != cudaSuccess) {
      cudaFree(b->counter);
      b->counter = NULL;
    }
  }
  return b->counter;
}

/* Device view checks (debug builds): the record (pinned host memory, so it can still be read
 * after the trap that stops the failing kernel), the claim flag (device memory), the epoch that
 * tells kernel files their copy of the sink is stale, and whether launches wait for their
 * kernel (set once a debug kernel file attaches). */
static porta_cuda_check_record *check_rec = NULL;
static porta_cuda_check_record *check_rec_dev = NULL;
static int32_t *check_claim = NULL;
static unsigned check_epoch = 0; /* counts initialisations: per-kernel set-ups go stale */
static int check_sync = 0;
static int check_reported = 0;
static char check_kernel[128];

/** A failed device view check, as PORTA_ERROR_BOUNDS naming the kernel, the view, the
 *  indices and the extents; PORTA_SUCCESS when there is none. */
static int check_report(void) {
  if (!check_rec || !*(volatile int32_t *)&check_rec->ready) return PORTA_SUCCESS;
  const porta_cuda_check_record *r = check_rec;
  if (!check_reported) { /* launches wait for their kernel: the last one is the culprit */
    snprintf(check_kernel, sizeof check_kernel, "%s", last_label);
    check_reported = 1;
  }
  char idx[256], ext[256];
  int ni = 0, ne = 0;
  idx[0] = ext[0] = '\0';
  for (int k = 0; k < r->nidx && k < 8 && ni < (int)sizeof idx; ++k)
    ni +=
        snprintf(idx + ni, sizeof idx - (size_t)ni, "%s%lld", k ? ", " : "", (long long)r->idx[k]);
  for (int k = 0; k < r->rank && k < 8 && ne < (int)sizeof ext; ++k)
    ne += snprintf(ext + ne, sizeof ext - (size_t)ne, "%s%lld", k ? ", " : "",
                   (long long)r->extent[k]);
  return porta_error(
      PORTA_ERROR_BOUNDS, "kernel", check_kernel,
      "view '%.*s': %.*s at %.*s:%d; index (%s) of rank %d, view extents (%s) rank %d "
      "layout %d; GPU block (%d, %d, %d) thread (%d, %d, %d); the kernel was "
      "stopped and the CUDA context is no longer usable",
      (int)sizeof r->label, r->label, (int)sizeof r->what, r->what, (int)sizeof r->file, r->file,
      r->line, idx, (int)r->nidx, ext, (int)r->rank, (int)r->layout, r->block[0], r->block[1],
      r->block[2], r->thread[0], r->thread[1], r->thread[2]);
}

/** Report a failed CUDA call of operation `op` (a failed device view check explains it best). */
static int fail(cudaError_t err, const char *op, const char *label) {
  int rc = check_report();
  if (rc) return rc;
  return porta_error(PORTA_ERROR_BACKEND, op, label,
                     "CUDA error %s: %s (last kernel launched: '%s')", cudaGetErrorName(err),
                     cudaGetErrorString(err), last_label);
}

#define CUDA_TRY(call, op, label)                                                                  \
  do {                                                                                             \
    cudaError_t e_ = (call);                                                                       \
    if (e_ != cudaSuccess) return fail(e_, op, label);                                             \
  } while (0)

static int dev_alloc(void **p, size_t bytes) {
  return cudaMalloc(p, bytes ? bytes : 1) == cudaSuccess ? PORTA_SUCCESS
                                                         : PORTA_ERROR_OUT_OF_MEMORY;
}
static int uvm_alloc(void **p, size_t bytes) {
  return cudaMallocManaged(p, bytes ? bytes : 1, cudaMemAttachGlobal) == cudaSuccess
             ? PORTA_SUCCESS
             : PORTA_ERROR_OUT_OF_MEMORY;
}
static int pinned_alloc(void **p, size_t bytes) {
  return cudaHostAlloc(p, bytes ? bytes : 1, cudaHostAllocMapped) == cudaSuccess
             ? PORTA_SUCCESS
             : PORTA_ERROR_OUT_OF_MEMORY;
}
static void dev_free(void *p) { cudaFree(p); }
static void pinned_free(void *p) { cudaFreeHost(p); }
static int any_zero(void *p, size_t bytes) {
  CUDA_TRY(cudaMemset(p, 0, bytes), "zero", NULL);
  CUDA_TRY(cudaDeviceSynchronize(), "zero", NULL);
  return PORTA_SUCCESS;
}
static int any_copy(void *dst, porta_memory_space ds, const void *src, porta_memory_space ss,
                    size_t bytes) {
  (void)ds;
  (void)ss;
  CUDA_TRY(cudaMemcpy(dst, src, bytes, cudaMemcpyDefault), "deep_copy", NULL);
  return PORTA_SUCCESS;
}

/** Local rank on the node from the MPI launcher's environment, or -1. */
static int local_rank(void) {
  const char *names[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "MV2_COMM_WORLD_LOCAL_RANK",
                         "MPI_LOCALRANKID", "SLURM_LOCALID"};
  for (unsigned k = 0; k < sizeof names / sizeof names[0]; ++k) {
    const char *v = getenv(names[k]);
    if (v && *v) return atoi(v);
  }
  return -1;
}

/** PORTA_CUDA_GRID_LIMIT: at most this many blocks per grid-stride launch. Tests set it small
 *  so the grid-stride loops and chunked team launches run, which a GPU's 2^31 - 1 never needs. */
static int read_grid_limit(void) {
  const char *v = getenv("PORTA_CUDA_GRID_LIMIT");
  grid_limit = 0;
  if (!v || !*v) return PORTA_SUCCESS;
  char *end = NULL;
  errno = 0;
  const long long g = strtoll(v, &end, 10);
  if (errno || *end || g < 1 || g > INT32_MAX)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "porta_initialize", NULL,
                       "PORTA_CUDA_GRID_LIMIT='%s' is not a block count in [1, 2147483647]", v);
  grid_limit = g;
  return PORTA_SUCCESS;
}

extern "C" int porta_cuda_initialize_(int device_id, int device_given, int required) {
  PORTA_CHECK(read_grid_limit());
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    cudaGetLastError();
    cuda_usable = 0;
    if (required)
      return porta_error(PORTA_ERROR_UNSUPPORTED, "porta_initialize", NULL,
                         "back end 'cuda' was asked for, but no GPU is usable (%s)",
                         err != cudaSuccess ? cudaGetErrorString(err) : "no device found");
    return PORTA_SUCCESS;
  }
  int dev = device_given ? device_id : (local_rank() >= 0 ? local_rank() % count : 0);
  if (dev < 0 || dev >= count)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "porta_initialize", NULL,
                       "GPU %d asked for, but this node has %d", dev, count);
  CUDA_TRY(cudaSetDevice(dev), "porta_initialize", NULL);
  CUDA_TRY(cudaGetDeviceProperties(&props, dev), "porta_initialize", NULL);
  /* the initialising thread's counter now, outside any recording (other threads: on first use) */
  thread_bufs *mine = bufs();
  if (!mine || !thread_counter(mine))
    return porta_error(PORTA_ERROR_OUT_OF_MEMORY, "porta_initialize", NULL,
                       "cannot allocate the CUDA launch counter");
  CUDA_TRY(cudaHostAlloc((void **)&check_rec, sizeof *check_rec, cudaHostAllocMapped),
           "porta_initialize", NULL);
  memset(check_rec, 0, sizeof *check_rec);
  CUDA_TRY(cudaHostGetDevicePointer((void **)&check_rec_dev, check_rec, 0), "porta_initialize",
           NULL);
  CUDA_TRY(cudaMalloc((void **)&check_claim, sizeof *check_claim), "porta_initialize", NULL);
  CUDA_TRY(cudaMemset(check_claim, 0, sizeof *check_claim), "porta_initialize", NULL);
  ++check_epoch; /* kernel files attached before a re-initialisation attach again */
  check_reported = 0;
  porta_space_ops ops_dev = {dev_alloc, dev_free, any_zero, any_copy};
  porta_space_ops ops_uvm = {uvm_alloc, dev_free, any_zero, any_copy};
  porta_space_ops ops_pin = {pinned_alloc, pinned_free, any_zero, any_copy};
  porta_space_ops_[PORTA_CUDA_SPACE] = ops_dev;
  porta_space_ops_[PORTA_CUDA_UVM_SPACE] = ops_uvm;
  porta_space_ops_[PORTA_CUDA_HOST_PINNED_SPACE] = ops_pin;
  porta_state_.device_id = dev;
  cuda_usable = 1;
  return PORTA_SUCCESS;
}

/** porta_exec_wait's event: one serves every call, a wait takes its state when it is queued. */
static cudaEvent_t order_event = NULL;

extern "C" void porta_cuda_finalize_(void) {
  if (!cuda_usable) return;
  cudaDeviceSynchronize();
  if (order_event) cudaEventDestroy(order_event);
  order_event = NULL;
  for (int k = 1; k < PORTA_CUDA_MAX_INSTANCES; ++k)
    if (streams[k]) {
      cudaStreamDestroy(streams[k]);
      streams[k] = NULL;
    }
  pthread_mutex_lock(&bufs_lock); /* every thread's buffers (the threads keep their records) */
  loops_alive = 0;                /* loops destroyed after this free their host memory only */
  for (thread_bufs *b = all_bufs; b; b = b->next) release_bufs(b);
  free_retired();
  pthread_mutex_unlock(&bufs_lock);
  cudaFree(check_claim);
  cudaFreeHost(check_rec);
  check_claim = NULL;
  check_rec = check_rec_dev = NULL;
  check_sync = 0;
  for (int s = PORTA_CUDA_SPACE; s <= PORTA_CUDA_HOST_PINNED_SPACE; ++s)
    memset(&porta_space_ops_[s], 0, sizeof porta_space_ops_[s]);
  cuda_usable = 0;
}

extern "C" int porta_cuda_available_(void) { return cuda_usable; }

extern "C" const char *porta_cuda_device_name_(void) { return cuda_usable ? props.name : "none"; }

extern "C" double porta_cuda_device_memory_bytes_(void) {
  return cuda_usable ? (double)props.totalGlobalMem : 0.0;
}

/* Instance 0 is the legacy default stream; instances 1.. are streams made by
 * porta_exec_create_instance. */

extern "C" void *porta_cuda_stream_(int instance) {
  if (instance <= 0 || instance >= PORTA_CUDA_MAX_INSTANCES) return (void *)0;
  return (void *)streams[instance];
}

extern "C" int porta_cuda_instance_create_(int priority, int *instance) {
  /* CUDA's priorities: lower numbers first; streams are made at the least urgent by default */
  int least = 0, greatest = 0;
  CUDA_TRY(cudaDeviceGetStreamPriorityRange(&least, &greatest), "porta_exec_create_instance", NULL);
  for (int k = 1; k < PORTA_CUDA_MAX_INSTANCES; ++k)
    if (!streams[k]) {
      CUDA_TRY(cudaStreamCreateWithPriority(&streams[k], cudaStreamNonBlocking,
                                            priority == PORTA_PRIORITY_HIGH ? greatest : least),
               "porta_exec_create_instance", NULL);
      *instance = k;
      return PORTA_SUCCESS;
    }
  return porta_error(PORTA_ERROR_OUT_OF_MEMORY, "porta_exec_create_instance", NULL,
                     "all %d CUDA instances are in use", PORTA_CUDA_MAX_INSTANCES - 1);
}

extern "C" int porta_cuda_instance_destroy_(int instance) {
  if (instance <= 0 || instance >= PORTA_CUDA_MAX_INSTANCES || !streams[instance])
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "porta_exec_destroy_instance", NULL,
                       "instance %d was not created", instance);
  CUDA_TRY(cudaStreamSynchronize(streams[instance]), "porta_exec_destroy_instance", NULL);
  CUDA_TRY(cudaStreamDestroy(streams[instance]), "porta_exec_destroy_instance", NULL);
  streams[instance] = NULL;
  return PORTA_SUCCESS;
}

extern "C" int porta_cuda_order_(int waiter, int after) {
  if (!order_event)
    CUDA_TRY(cudaEventCreateWithFlags(&order_event, cudaEventDisableTiming), "porta_exec_wait",
             NULL);
  CUDA_TRY(cudaEventRecord(order_event, (cudaStream_t)porta_cuda_stream_(after)), "porta_exec_wait",
           NULL);
  CUDA_TRY(cudaStreamWaitEvent((cudaStream_t)porta_cuda_stream_(waiter), order_event, 0),
           "porta_exec_wait", NULL);
  return PORTA_SUCCESS;
}

extern "C" int porta_cuda_copy_async_(void *dst, const void *src, size_t bytes, int instance) {
  CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault,
                           (cudaStream_t)porta_cuda_stream_(instance)),
           "porta_deep_copy_async", NULL);
  return PORTA_SUCCESS;
}

static_assert(sizeof(cudaIpcMemHandle_t) <= 64, "porta_ipc_handle holds a CUDA IPC handle");

extern "C" int porta_cuda_ipc_alloc_(size_t bytes, void **ptr, void *handle64) {
  CUDA_TRY(cudaMalloc(ptr, bytes ? bytes : 1), "porta_ipc_alloc", NULL);
  cudaIpcMemHandle_t h;
  const cudaError_t e = cudaIpcGetMemHandle(&h, *ptr);
  if (e != cudaSuccess) {
    cudaFree(*ptr);
    *ptr = NULL;
    return fail(e, "porta_ipc_alloc", NULL);
  }
  memset(handle64, 0, 64);
  memcpy(handle64, &h, sizeof h);
  return PORTA_SUCCESS;
}

extern "C" void porta_cuda_ipc_free_(void *ptr) { cudaFree(ptr); }

extern "C" int porta_cuda_ipc_open_(const void *handle64, void **ptr) {
  cudaIpcMemHandle_t h;
  memcpy(&h, handle64, sizeof h);
  const cudaError_t e = cudaIpcOpenMemHandle(ptr, h, cudaIpcMemLazyEnablePeerAccess);
  if (e != cudaSuccess) {
    (void)cudaGetLastError(); /* not sticky: the context stays usable */
    *ptr = NULL;
    return porta_error(PORTA_ERROR_BACKEND, "porta_ipc_open", NULL, "CUDA error %s: %s",
                       cudaGetErrorName(e), cudaGetErrorString(e));
  }
  return PORTA_SUCCESS;
}

extern "C" void porta_cuda_ipc_close_(void *ptr) { cudaIpcCloseMemHandle(ptr); }

extern "C" void porta_cuda_loops_alive_(int delta) {
  pthread_mutex_lock(&bufs_lock);
  loops_alive += delta;
  if (loops_alive <= 0 && nretired > 0) { /* no graph holds them any more */
    cudaDeviceSynchronize();
    free_retired();
  }
  pthread_mutex_unlock(&bufs_lock);
}

extern "C" void *porta_cuda_workspace_(size_t bytes) {
  thread_bufs *b = bufs();
  /* the counter too, so that a launcher that got its workspace has its counter */
  if (!b || !thread_counter(b)) return NULL;
  if (bytes <= b->workspace_bytes && b->workspace) return b->workspace;
  pthread_mutex_lock(&bufs_lock);
  int kept = 0;
  if (loops_alive > 0 && b->workspace) /* a graph may hold it: keep it; no wait (a recording
                                          may be on) */
    kept = retire(b->workspace);
  if (b->workspace && !kept) {
    if (loops_alive > 0) { /* no room to keep it: it stays this thread's */
      pthread_mutex_unlock(&bufs_lock);
      return NULL;
    }
    cudaDeviceSynchronize(); /* a launch in flight may still use the old buffer */
    cudaFree(b->workspace);
  }
  pthread_mutex_unlock(&bufs_lock);
  size_t want = bytes < 65536 ? 65536 : bytes + bytes / 2;
  if (cudaMalloc(&b->workspace, want) != cudaSuccess) {
    b->workspace = NULL;
    b->workspace_bytes = 0;
    return NULL;
  }
  b->workspace_bytes = want;
  return b->workspace;
}

extern "C" unsigned *porta_cuda_counter_(void) {
  thread_bufs *b = bufs();
  return b ? thread_counter(b) : NULL;
}

extern "C" void *porta_cuda_result_(size_t bytes) {
  thread_bufs *b = bufs();
  if (!b) return NULL;
  if (bytes <= b->result_bytes && b->result) return b->result;
  if (b->result) {
    cudaDeviceSynchronize();
    cudaFreeHost(b->result);
  }
  size_t want = bytes < 4096 ? 4096 : bytes;
  if (cudaHostAlloc(&b->result, want, cudaHostAllocMapped) != cudaSuccess) {
    b->result = NULL;
    b->result_bytes = 0;
    return NULL;
  }
  b->result_bytes = want;
  return b->result;
}

extern "C" int porta_cuda_launched_(const char *label) {
  snprintf(last_label, sizeof last_label, "%s", label ? label : "");
  cudaError_t err = cudaGetLastError();
  /* debug kernels: wait, so that a failed view check is this launch's error */
  if (err == cudaSuccess && check_sync && !porta_state_.capturing) err = cudaDeviceSynchronize();
  if (err != cudaSuccess) return fail(err, "kernel launch", label);
  return check_report();
}

extern "C" int porta_cuda_check_attach_(const void *symbol, unsigned *epoch) {
  if (!cuda_usable || !check_rec_dev || *epoch == check_epoch) return PORTA_SUCCESS;
  porta_cuda_check_sink sink;
  sink.claim = check_claim;
  sink.rec = check_rec_dev;
  CUDA_TRY(cudaMemcpyToSymbol(symbol, &sink, sizeof sink), "kernel launch",
           "debug view-check setup");
  *epoch = check_epoch;
  check_sync = 1;
  return PORTA_SUCCESS;
}

/** Wait for one stream (`all`: for every stream Porta made, then the device). Without a wait
 *  check, or where it says this thread's waits cannot be cut short, the CUDA runtime's own
 *  blocking wait. Otherwise poll, as the runtime's default wait spins: queries back to back
 *  (yielding the processor between them after the first millisecond), asking the check every
 *  20 ms; cudaErrorNotReady when it says stop (the kernels keep running). */
static cudaError_t wait_for(cudaStream_t stream, int all) {
  int (*check)(int) = porta_wait_check_;
  if (!check || !check(0)) return all ? cudaDeviceSynchronize() : cudaStreamSynchronize(stream);
  const double t0 = porta_wtime();
  double next_check = t0 + 0.02;
  for (;;) {
    cudaError_t e = cudaStreamQuery(stream);
    for (int k = 1; all && e == cudaSuccess && k < PORTA_CUDA_MAX_INSTANCES; ++k)
      if (streams[k]) e = cudaStreamQuery(streams[k]);
    if (e != cudaErrorNotReady) { /* done, or a fault */
      if (!all) return e;         /* the query has said what the stream's wait would say */
      break;
    }
    const double now = porta_wtime();
    if (now >= next_check) {
      if (check(1)) return cudaErrorNotReady;
      next_check = porta_wtime() + 0.02;
    }
    if (now - t0 > 1e-3) sched_yield();
  }
  return cudaDeviceSynchronize(); /* and whatever other streams hold */
}

/** The failure of a wait the check stopped. */
static int interrupted(const char *label) {
  return porta_error(PORTA_ERROR_BACKEND, "fence", label,
                     "interrupted while waiting for the GPU; the kernels queued (the last one "
                     "launched: '%s') keep running, and the next wait waits for them",
                     last_label);
}

extern "C" int porta_cuda_sync_(int instance, const char *label) {
  cudaError_t err = wait_for((cudaStream_t)porta_cuda_stream_(instance), 0);
  if (err == cudaErrorNotReady) return interrupted(label);
  int rc = check_report();
  if (rc) return rc;
  if (err != cudaSuccess)
    return porta_error(PORTA_ERROR_BACKEND, "fence", label,
                       "asynchronous CUDA fault %s: %s; last kernel launched: '%s'",
                       cudaGetErrorName(err), cudaGetErrorString(err), last_label);
  return PORTA_SUCCESS;
}

extern "C" int porta_cuda_device_sync_(const char *label) {
  if (!cuda_usable) return PORTA_SUCCESS;
  cudaError_t err = wait_for((cudaStream_t)0, 1);
  if (err == cudaErrorNotReady) return interrupted(label);
  int rc = check_report();
  if (rc) return rc;
  if (err != cudaSuccess)
    return porta_error(PORTA_ERROR_BACKEND, "fence", label,
                       "asynchronous CUDA fault %s: %s; last kernel launched: '%s'",
                       cudaGetErrorName(err), cudaGetErrorString(err), last_label);
  return PORTA_SUCCESS;
}

extern "C" int64_t porta_cuda_max_grid_(void) {
  return cuda_usable ? (int64_t)props.maxGridSize[0] : 65535;
}

extern "C" int64_t porta_cuda_grid_limit_(void) {
  const int64_t m = porta_cuda_max_grid_();
  return grid_limit > 0 && grid_limit < m ? grid_limit : m;
}

/** What porta_cuda_shared_setup_ last did for a kernel. A small open-addressed table: a kernel
 *  that finds no entry is set up on every launch, which is correct, only slower. */
typedef struct shared_setup {
  const void *kernel;
  unsigned epoch;
  int threads;
  size_t bytes;
} shared_setup;
#define SHARED_SETUPS 512
static shared_setup shared_setups[SHARED_SETUPS];
/* Launches from several host threads look the table up and fill it in at once. */
static pthread_mutex_t shared_setups_lock = PTHREAD_MUTEX_INITIALIZER;

static int shared_setup_locked(const void *kernel, size_t bytes, int threads, const char *label);

extern "C" int porta_cuda_shared_setup_(const void *kernel, size_t bytes, int threads,
                                        const char *label) {
  pthread_mutex_lock(&shared_setups_lock);
  const int rc = shared_setup_locked(kernel, bytes, threads, label);
  pthread_mutex_unlock(&shared_setups_lock);
  return rc;
}

static int shared_setup_locked(const void *kernel, size_t bytes, int threads, const char *label) {
  shared_setup *e = NULL;
  const size_t h = (size_t)((uintptr_t)kernel >> 4);
  for (size_t k = 0; k < 8 && !e; ++k) {
    shared_setup *c = &shared_setups[(h + k) % SHARED_SETUPS];
    if (c->kernel == kernel || !c->kernel) e = c;
  }
  if (e && e->kernel == kernel && e->epoch == check_epoch && e->bytes == bytes &&
      e->threads == threads)
    return PORTA_SUCCESS;
  cudaFuncAttributes fa;
  CUDA_TRY(cudaFuncGetAttributes(&fa, kernel), "kernel launch", label);
  const size_t per_block = bytes + fa.sharedSizeBytes;
  if (bytes > 48 * 1024) {
    const size_t limit = props.sharedMemPerBlockOptin;
    if (per_block > limit)
      return porta_error(
          PORTA_ERROR_INVALID_ARGUMENT, "kernel launch", label,
          "%zu bytes of dynamic shared memory (level-0 scratch and team slots) and "
          "%zu of static shared memory exceed the GPU's limit of %zu bytes per block",
          bytes, (size_t)fa.sharedSizeBytes, limit);
    CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes),
             "kernel launch", label);
  }
  if (per_block > 0) {
    int blocks = props.maxThreadsPerMultiProcessor / (threads > 0 ? threads : 1);
    if (blocks > props.maxBlocksPerMultiProcessor) blocks = props.maxBlocksPerMultiProcessor;
    if (blocks < 1) blocks = 1;
    const size_t need = (size_t)blocks * (per_block + props.reservedSharedMemPerBlock);
    const size_t sm = props.sharedMemPerMultiprocessor;
    const int percent = need >= sm ? 100 : (int)((need * 100 + sm - 1) / sm);
    CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, percent),
             "kernel launch", label);
  }
  if (e) {
    e->kernel = kernel;
    e->epoch = check_epoch;
    e->threads = threads;
    e->bytes = bytes;
  }
  return PORTA_SUCCESS;
}

extern "C" void porta_cuda_team_limits_(int *max_threads, size_t *max_shared) {
  *max_threads = cuda_usable ? props.maxThreadsPerBlock : 1024;
  *max_shared = cuda_usable ? (size_t)props.sharedMemPerBlockOptin : (size_t)48 * 1024;
}
