/** @file backend/cuda/warp.h
 *  Warp-level moves of any trivially copyable value (reducer values of any size):
 *  the value is shuffled as 4-byte words. Only for nvcc's CUDA compilation. */
#ifndef PORTA_BACKEND_CUDA_WARP_H
#define PORTA_BACKEND_CUDA_WARP_H

#if defined(__CUDACC__)

enum { PORTA_SHFL_DOWN_, PORTA_SHFL_UP_, PORTA_SHFL_XOR_, PORTA_SHFL_IDX_ };

/** Shuffle `v` among the lanes in `mask`: down/up by `arg` lanes, xor with `arg`, or from lane
 *  `arg`, within groups of `width` lanes. */
template <typename T>
__device__ __forceinline__ T porta_cuda_shfl_(T v, int kind, int arg, int width, unsigned mask) {
  T out;
  int w[(sizeof(T) + 3) / 4];
  memcpy(w, &v, sizeof(T));
  for (int k = 0; k < (int)((sizeof(T) + 3) / 4); ++k) {
    switch (kind) {
    case PORTA_SHFL_DOWN_: w[k] = __shfl_down_sync(mask, w[k], arg, width); break;
    case PORTA_SHFL_UP_: w[k] = __shfl_up_sync(mask, w[k], arg, width); break;
    case PORTA_SHFL_XOR_: w[k] = __shfl_xor_sync(mask, w[k], arg, width); break;
    default: w[k] = __shfl_sync(mask, w[k], arg, width); break;
    }
  }
  memcpy(&out, w, sizeof(T));
  return out;
}

template <typename T> __device__ __forceinline__ T porta_cuda_shfl_down_(T v, int d, int width) {
  return porta_cuda_shfl_(v, PORTA_SHFL_DOWN_, d, width, 0xffffffffu);
}
template <typename T> __device__ __forceinline__ T porta_cuda_shfl_up_(T v, int d, int width) {
  return porta_cuda_shfl_(v, PORTA_SHFL_UP_, d, width, 0xffffffffu);
}
template <typename T> __device__ __forceinline__ T porta_cuda_shfl_idx_(T v, int src) {
  return porta_cuda_shfl_(v, PORTA_SHFL_IDX_, src, 32, 0xffffffffu);
}

/** The lanes of the calling thread's vector group (blockDim.x = vector length, a power of
 *  two <= 32): team threads whose loops end at different times never wait on each other.
 *  The lane id is read by a volatile instruction so the compiler computes the mask where it
 *  is used (a rarely taken path, team.h) instead of hoisting it into every thread's prologue. */
__device__ __forceinline__ unsigned porta_cuda_vector_mask_(int vector_length) {
  if (vector_length >= 32) return 0xffffffffu;
  unsigned lane;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
  const unsigned base = lane & ~(unsigned)(vector_length - 1);
  return ((1u << vector_length) - 1u) << base;
}

/** Butterfly exchange between the vector lanes of the calling thread's group. */
template <typename T>
__device__ __forceinline__ T porta_cuda_shfl_xor_(T v, int lane_mask, int vector_length) {
  return porta_cuda_shfl_(v, PORTA_SHFL_XOR_, lane_mask, vector_length,
                          porta_cuda_vector_mask_(vector_length));
}

/** The same butterfly when every lane of the warp takes part (width = the group size). */
template <typename T>
__device__ __forceinline__ T porta_cuda_shfl_xor_warp_(T v, int lane_mask, int width) {
  return porta_cuda_shfl_(v, PORTA_SHFL_XOR_, lane_mask, width, 0xffffffffu);
}

/** Load from L2 (bypassing L1): partials written by other blocks of the same kernel.
 *  Whole 4-byte words when the type allows, bytes otherwise. */
template <typename T> __device__ __forceinline__ T porta_cuda_load_cg_(const T *p) {
  T out;
  if (alignof(T) >= 4 && sizeof(T) % 4 == 0) {
    unsigned w[(sizeof(T) + 3) / 4];
    const unsigned *src = (const unsigned *)p;
    for (int k = 0; k < (int)(sizeof(T) / 4); ++k) w[k] = __ldcg(src + k);
    memcpy(&out, w, sizeof(T));
  } else {
    unsigned char b[sizeof(T)];
    const unsigned char *src = (const unsigned char *)p;
    for (int k = 0; k < (int)sizeof(T); ++k) b[k] = __ldcg(src + k);
    memcpy(&out, b, sizeof(T));
  }
  return out;
}

#endif
#endif
