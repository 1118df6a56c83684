/** @file exchange_peer_cuda.cu
 *  The peer transport's kernels (exchange_peer.h): a queued exchange, one kernel that writes
 *  into the readers' mapped inboxes (tagged words, or plain words and a flag) and waits for its
 *  own; and a queued sum, the cross-rank sum of a reduction's end
 *  (porta/backend/cuda/reduce_end.h) alone. */
#include <cuda_runtime.h>

#include "exchange_peer.h"
#include "porta/reduce_end.h" /* and the back end's side, porta/backend/cuda/reduce_end.h */
#include "porta/error.h"

namespace {

typedef unsigned long long u64;

/** Until flags[0 .. n - 1] at the start of `inbox` reach `run` (one thread): a writer that
 *  never comes stops the GPU after PORTA_PEER_TIMEOUT_S. */
__device__ void wait_for_writers(const unsigned char *inbox, int n, u64 run) {
  const u64 *flags = (const u64 *)inbox;
  const u64 start = porta_cuda_now_ns_();
  for (int k = 0; k < n; ++k)
    while (porta_cuda_load_volatile_(&flags[k]) < run)
      if (porta_cuda_now_ns_() - start > (u64)PORTA_PEER_TIMEOUT_S * 1000000000ull) __trap();
  __threadfence();
}

/** Until this rank's one-way readers (`links`) have finished reading run `run` (one thread):
 *  their buffer is the one this run writes again. */
__device__ void wait_for_readers(const unsigned char *inbox, const porta_peer_link *links, int n,
                                 u64 run) {
  const u64 *read = (const u64 *)inbox + PORTA_PEER_MAX;
  const u64 start = porta_cuda_now_ns_();
  for (int k = 0; k < n; ++k)
    if (links[k].one_way)
      while (porta_cuda_load_volatile_(&read[k]) < run)
        if (porta_cuda_now_ns_() - start > (u64)PORTA_PEER_TIMEOUT_S * 1000000000ull) __trap();
  __threadfence();
}

/** Every block: its share of the values of `total` entries of `width` words, element t of the
 *  flattened (entry, word) pairs. */
__device__ u64 *peer_buffer(unsigned char *inbox, int64_t buffer_bytes, u64 run) {
  return (u64 *)(inbox + PORTA_PEER_FLAG_BYTES + (run & 1) * buffer_bytes);
}

__global__ void exchange_kernel(porta_peer_exchange_args a) {
  __shared__ u64 run;
  if (threadIdx.x == 0) {
    run = porta_cuda_load_volatile_(&a.state->runs) + 1;
    if (a.one_way && run > 2) wait_for_readers(a.inbox, a.links, a.nlinks, run - 2);
  }
  __syncthreads();
  const u64 tag = porta_cuda_run_tag_(run);
  const int64_t width = (int64_t)a.nfields * a.words; /* words per entry in a buffer */
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  const int64_t first = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  /* pack straight into the readers' buffers */
  for (int64_t t = first; t < a.send_total * width; t += stride) {
    const int64_t e = t / width, r = t - e * width;
    const int f = (int)(r / a.words), w = (int)(r - (int64_t)f * a.words);
    int k = 0;
    while (k + 1 < a.nlinks && e >= a.links[k].first + a.links[k].count) ++k;
    const porta_peer_link *l = &a.links[k];
    u64 *dst = peer_buffer(l->inbox, l->buffer_bytes, run);
    const int64_t at = (l->at + e - l->first) * width + r;
    const u64 v = ((const u64 *)a.field[f])[a.send_index[e] * a.words + w];
    if (a.tagged)
      porta_cuda_store_tagged_(&dst[2 * at], v, tag);
    else
      dst[at] = v;
  }
  if (!a.tagged) {
    __threadfence_system();
    __syncthreads();
    if (threadIdx.x == 0) {
      /* the last block to arrive raises this rank's flags in its readers' inboxes */
      if (atomicAdd(&a.state->arrived, 1u) == gridDim.x - 1) {
        a.state->arrived = 0;
        __threadfence_system();
        for (int k = 0; k < a.nlinks; ++k)
          porta_cuda_store_volatile_((u64 *)a.links[k].inbox + a.links[k].slot, run);
      }
      wait_for_writers(a.inbox, a.nwriters, run);
    }
    __syncthreads();
  }
  const u64 *src = peer_buffer(a.inbox, a.buffer_bytes, run);
  const u64 start = a.tagged ? porta_cuda_now_ns_() : 0;
  for (int64_t t = first; t < a.recv_total * width; t += stride) {
    const int64_t e = t / width, r = t - e * width;
    const int f = (int)(r / a.words), w = (int)(r - (int64_t)f * a.words);
    u64 *dst = (u64 *)a.field[f] + a.recv_index[e] * a.words + w;
    const u64 v = a.tagged ? porta_cuda_load_tagged_(src + 2 * t, tag, start) : __ldcg(src + t);
    if (a.accumulate)
      *(double *)dst += __longlong_as_double((long long)v);
    else
      *dst = v;
  }
  __syncthreads();
  if (threadIdx.x == 0 && atomicAdd(&a.state->departed, 1u) == gridDim.x - 1) {
    a.state->departed = 0;
    porta_cuda_store_volatile_(&a.state->runs, run);
    /* every writer learns that its buffer of this run is free again */
    for (int k = 0; k < a.nlinks; ++k)
      porta_cuda_store_volatile_((u64 *)a.links[k].inbox + PORTA_PEER_MAX + a.links[k].slot, run);
  }
}

__global__ void sum_kernel(porta_peer_sum_args a) {
  /* the code of a reduction's end, so that a sum fused there gives the same bits */
  porta_cuda_cross_sum_(a.inbox, a.nranks, a.rank, &a.state->runs, a.values, a.count);
}

int cuda_fail(cudaError_t e, const char *op) {
  return porta_error(PORTA_ERROR_BACKEND, op, NULL, "%s", cudaGetErrorString(e));
}

} // namespace

extern "C" int porta_peer_built_(void) { return 1; }

extern "C" int porta_peer_exchange_queue_(const porta_peer_exchange_args *a, void *queue) {
  const int64_t work = (a->send_total > a->recv_total ? a->send_total : a->recv_total) *
                       (int64_t)a->nfields * a->words;
  /* few enough blocks to be resident together (they wait for each other's flags) */
  int64_t blocks = (work + 255) / 256;
  if (blocks < 1) blocks = 1;
  if (blocks > 64) blocks = 64;
  exchange_kernel<<<(unsigned)blocks, 256, 0, (cudaStream_t)queue>>>(*a);
  const cudaError_t e = cudaGetLastError();
  return e == cudaSuccess ? PORTA_SUCCESS : cuda_fail(e, "porta_exchange_queue");
}

extern "C" int porta_peer_sum_queue_(const porta_peer_sum_args *a, void *queue) {
  sum_kernel<<<1, 1, 0, (cudaStream_t)queue>>>(*a);
  const cudaError_t e = cudaGetLastError();
  return e == cudaSuccess ? PORTA_SUCCESS : cuda_fail(e, "porta_device_comm_sum");
}

extern "C" int porta_peer_alloc_(size_t bytes, void **ptr) {
  cudaError_t e = cudaMalloc(ptr, bytes ? bytes : 1);
  if (e == cudaSuccess) e = cudaMemset(*ptr, 0, bytes ? bytes : 1);
  return e == cudaSuccess ? PORTA_SUCCESS : cuda_fail(e, "porta_peer_alloc");
}

extern "C" void porta_peer_free_(void *ptr) {
  if (ptr) cudaFree(ptr);
}

extern "C" int porta_peer_zero_(void *ptr, size_t bytes) {
  const cudaError_t e = cudaMemset(ptr, 0, bytes);
  return e == cudaSuccess ? PORTA_SUCCESS : cuda_fail(e, "porta_peer_zero");
}

extern "C" int porta_peer_copy_(void *dst, const void *src, size_t bytes) {
  const cudaError_t e = cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice);
  return e == cudaSuccess ? PORTA_SUCCESS : cuda_fail(e, "porta_peer_copy");
}

extern "C" int porta_peer_upload_(void *dst, const void *src, size_t bytes) {
  const cudaError_t e = cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice);
  return e == cudaSuccess ? PORTA_SUCCESS : cuda_fail(e, "porta_peer_upload");
}
