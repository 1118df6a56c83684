/** @file cuda/cuda_backend.c
 *  The CUDA back end's execution interface: a table of the run time in runtime.cu (device
 *  selection, streams as instances, fences, team limits from the device's properties, IPC).
 *  The launchers are generated in the user's files (porta/backend/cuda/). In a build without
 *  CUDA only the back end's name and memory spaces are kept. */
#include "../backend_private.h"

/** Device, managed and pinned host memory (their hooks: runtime.cu). Device and managed
 *  memory default to LayoutLeft, so a warp's threads read consecutive addresses. */
static const porta_space_info cuda_spaces[] = {
    {PORTA_CUDA_SPACE, "Cuda", 0, PORTA_LAYOUT_LEFT},
    {PORTA_CUDA_UVM_SPACE, "CudaUVM", 1, PORTA_LAYOUT_LEFT},
    {PORTA_CUDA_HOST_PINNED_SPACE, "CudaHostPinned", 1, PORTA_LAYOUT_RIGHT}};

/** What every table of the back end holds, compiled in or not. */
#define CUDA_BACKEND_DATA_                                                                         \
  .id = PORTA_BACKEND_CUDA, .name = "cuda", .memory_space = PORTA_CUDA_SPACE, .on_device = 1,      \
  .spaces = cuda_spaces, .num_spaces = 3,                                                          \
  .spaces_unavailable_why = "CUDA is not compiled in or no GPU"

#if PORTA_ENABLE_CUDA
#include "cuda_private.h"

static int cuda_initialize(const porta_backend_init_args *a) {
  return porta_cuda_initialize_(a->device_id, a->device_given, a->required);
}

static int cuda_team_thread_limit(int vector_length) {
  int threads;
  size_t shared;
  porta_cuda_team_limits_(&threads, &shared);
  return threads / vector_length;
}

static size_t cuda_team_level0_limit(void) {
  int threads;
  size_t shared;
  porta_cuda_team_limits_(&threads, &shared);
  return shared;
}

/** 256 threads (vector lanes included) or as many as fit, rounded down to whole warps when
 *  that leaves at least one. */
static int cuda_team_recommended(int vector_length, int fit) {
  const int v = vector_length, warp = 32 / v;
  int ts = 256 / v < fit ? 256 / v : fit;
  if (ts >= warp) ts -= ts % warp;
  return ts;
}

const porta_backend_ops porta_cuda_backend_ops_ = {
    CUDA_BACKEND_DATA_,
    .unavailable_why = "usable (no GPU found)",
    .available = porta_cuda_available_,
    .initialize = cuda_initialize,
    .finalize = porta_cuda_finalize_,
    .fence = porta_cuda_sync_,
    .fence_all = porta_cuda_device_sync_,
    .instance_create = porta_cuda_instance_create_,
    .instance_destroy = porta_cuda_instance_destroy_,
    .order = porta_cuda_order_,
    .copy_async = porta_cuda_copy_async_,
    .native_queue = porta_cuda_stream_,
    .device_name = porta_cuda_device_name_,
    .device_memory_bytes = porta_cuda_device_memory_bytes_,
    .staging_space = PORTA_CUDA_HOST_PINNED_SPACE,
    .cheap_atomics = 1,
    .team_thread_limit = cuda_team_thread_limit,
    .team_level0_limit = cuda_team_level0_limit,
    .team_level0_what = " (the GPU's shared memory per block, with the opt-in)",
    .max_vector_length = 32,
    .team_recommended = cuda_team_recommended,
    .ipc_alloc = porta_cuda_ipc_alloc_,
    .ipc_free = porta_cuda_ipc_free_,
    .ipc_open = porta_cuda_ipc_open_,
    .ipc_close = porta_cuda_ipc_close_,
    .loop_record = porta_cuda_loop_record_,
    .loop_run = porta_cuda_loop_run_,
    .exec_if = porta_cuda_exec_if_,
    .exec_cond = porta_cuda_exec_cond_,
    .exec_if_cond = porta_cuda_exec_if_cond_,
    .loop_passes = porta_cuda_loop_passes_,
    .loop_release = porta_cuda_loop_release_,
};
#else
const porta_backend_ops porta_cuda_backend_ops_ = {CUDA_BACKEND_DATA_};
#endif
