/** @file cuda/runtime.cu
 *  The CUDA back end's run time: device selection, memory spaces (device,
 *  managed, pinned), streams, fences, the launch workspace, fault reports
 *  that name the last kernel launched, and the record through which debug
 *  builds report a failed view check on the GPU. */
#include <cuda_runtime.h>
#include <errno.h>
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
static char last_label[128] = "(none)";
static void *workspace = NULL;
static size_t workspace_bytes = 0;
static unsigned *counter = NULL;
static void *result_buffer = NULL;
static size_t result_bytes = 0;
/* Recorded loops alive, and the workspace buffers they may still hold: freed when the last loop
   goes (after a wait), or at finalize. */
static int loops_alive = 0;
static void **retired = NULL;
static int nretired = 0, retired_cap = 0;

static void free_retired(void) {
  for (int k = 0; k < nretired; ++k) cudaFree(retired[k]);
  free(retired);
  retired = NULL;
  nretired = retired_cap = 0;
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
  CUDA_TRY(cudaMalloc((void **)&counter, sizeof(unsigned)), "porta_initialize", NULL);
  CUDA_TRY(cudaMemset(counter, 0, sizeof(unsigned)), "porta_initialize", NULL);
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

extern "C" void porta_cuda_finalize_(void) {
  if (!cuda_usable) return;
  cudaDeviceSynchronize();
  for (int k = 1; k < PORTA_CUDA_MAX_INSTANCES; ++k)
    if (streams[k]) {
      cudaStreamDestroy(streams[k]);
      streams[k] = NULL;
    }
  cudaFree(workspace);
  free_retired();
  loops_alive = 0; /* loops destroyed after this free their host memory only */
  cudaFree(counter);
  cudaFreeHost(result_buffer);
  cudaFree(check_claim);
  cudaFreeHost(check_rec);
  check_claim = NULL;
  check_rec = check_rec_dev = NULL;
  check_sync = 0;
  workspace = NULL;
  workspace_bytes = 0;
  result_buffer = NULL;
  result_bytes = 0;
  counter = NULL;
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
  loops_alive += delta;
  if (loops_alive <= 0 && nretired > 0) { /* no graph holds them any more */
    cudaDeviceSynchronize();
    free_retired();
  }
}

extern "C" void *porta_cuda_workspace_(size_t bytes) {
  if (bytes <= workspace_bytes && workspace) return workspace;
  if (loops_alive > 0 && workspace) { /* a graph may hold it: keep it; no wait (a recording
                                         may be on) */
    if (nretired == retired_cap) {
      const int cap = retired_cap ? 2 * retired_cap : 16;
      void **r = (void **)realloc(retired, (size_t)cap * sizeof *r);
      if (!r) return NULL;
      retired = r;
      retired_cap = cap;
    }
    retired[nretired++] = workspace;
  } else if (workspace) {
    cudaDeviceSynchronize(); /* a launch in flight may still use the old buffer */
    cudaFree(workspace);
  }
  size_t want = bytes < 65536 ? 65536 : bytes + bytes / 2;
  if (cudaMalloc(&workspace, want) != cudaSuccess) {
    workspace = NULL;
    workspace_bytes = 0;
    return NULL;
  }
  workspace_bytes = want;
  return workspace;
}

extern "C" unsigned *porta_cuda_counter_(void) { return counter; }

extern "C" void *porta_cuda_result_(size_t bytes) {
  if (bytes <= result_bytes && result_buffer) return result_buffer;
  cudaDeviceSynchronize();
  cudaFreeHost(result_buffer);
  size_t want = bytes < 4096 ? 4096 : bytes;
  if (cudaHostAlloc(&result_buffer, want, cudaHostAllocMapped) != cudaSuccess) {
    result_buffer = NULL;
    result_bytes = 0;
    return NULL;
  }
  result_bytes = want;
  return result_buffer;
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

extern "C" int porta_cuda_sync_(int instance, const char *label) {
  cudaError_t err = cudaStreamSynchronize((cudaStream_t)porta_cuda_stream_(instance));
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
  cudaError_t err = cudaDeviceSynchronize();
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

extern "C" int porta_cuda_shared_setup_(const void *kernel, size_t bytes, int threads,
                                        const char *label) {
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
