/** @file backend/cuda/view_access.h
 *  The device side of porta/view_access.h (nvcc): where a failed check goes on the GPU, and
 *  the default layout of the device pass (LayoutLeft: consecutive threads take consecutive
 *  first indices, so their loads coalesce). Included by view_access.h through
 *  PORTA_DEVICE_VIEW_ACCESS_H. */
#ifndef PORTA_BACKEND_CUDA_VIEW_ACCESS_H
#define PORTA_BACKEND_CUDA_VIEW_ACCESS_H

#if defined(__CUDA_ARCH__)
#include <stdio.h>
#endif

#if PORTA_ENABLE_DEBUG
#include "porta/backend/cuda/runtime.h"

/** This kernel file's copy of where failed device checks go (porta_cuda_check_attach_ fills
 *  it before a launch; a file-local symbol, so no relocatable device code is needed). */
static __device__ porta_cuda_check_sink porta_cuda_check_sink_d_;

/** Copy a C string into `dst` (`size` bytes, always terminated); keep its end when `tail`. */
static __device__ void porta_cuda_check_copy_(char *dst, int size, const char *src, int tail) {
  int n = 0;
  while (src[n]) ++n;
  const char *from = tail && n >= size ? src + (n - size + 1) : src;
  int k = 0;
  for (; k < size - 1 && from[k]; ++k) dst[k] = from[k];
  dst[k] = '\0';
}

/** A failed device check: the first failing thread of the launch records it for the host
 *  and prints it (device printf reaches stdout at the next synchronisation, if the trap lets
 *  it); every failing thread then stops the kernel, so no out-of-bounds access happens. */
static __device__ __noinline__ void porta_cuda_check_fail_(const porta_view_meta *m,
                                                           const char *what, int n,
                                                           const int64_t *idx, const char *file,
                                                           int line) {
  const porta_cuda_check_sink s = porta_cuda_check_sink_d_;
  if (!s.claim || atomicCAS((int *)s.claim, 0, 1) == 0) {
    porta_cuda_check_record *r = s.rec;
    if (r) {
      r->nidx = n;
      r->rank = m->rank;
      r->layout = m->layout;
      r->line = line;
      r->block[0] = (int32_t)blockIdx.x;
      r->block[1] = (int32_t)blockIdx.y;
      r->block[2] = (int32_t)blockIdx.z;
      r->thread[0] = (int32_t)threadIdx.x;
      r->thread[1] = (int32_t)threadIdx.y;
      r->thread[2] = (int32_t)threadIdx.z;
      for (int k = 0; k < PORTA_MAX_RANK; ++k) {
        r->idx[k] = k < n ? idx[k] : 0;
        r->extent[k] = m->extent[k];
      }
      porta_cuda_check_copy_(r->label, (int)sizeof r->label, m->label, 0);
      porta_cuda_check_copy_(r->what, (int)sizeof r->what, what, 0);
      porta_cuda_check_copy_(r->file, (int)sizeof r->file, file, 1);
      __threadfence_system();
      *(volatile int32_t *)&r->ready = 1;
      __threadfence_system();
    }
    printf("porta: view '%s': %s at %s:%d (rank %d, block %d thread %d)\n", m->label, what, file,
           line, (int)m->rank, (int)blockIdx.x, (int)threadIdx.x);
    for (int r = 0; r < n && r < PORTA_MAX_RANK; ++r)
      printf("porta:   index[%d] = %lld, extent %lld\n", r, (long long)idx[r],
             (long long)m->extent[r]);
  } else if (s.rec) {
    /* Another thread is writing the record (every thread fails a layout check at once): its
       trap must not be pre-empted by this one, or the host finds no record. Bounded wait. */
    for (int spin = 0; spin < (1 << 24) && !*(volatile int32_t *)&s.rec->ready; ++spin) {
    }
  }
  __trap();
}
#endif

#if defined(__CUDA_ARCH__) && PORTA_ENABLE_DEBUG
#define PORTA_DEVICE_VIEW_CHECK_FAIL_(m, what, n, idx, file, line)                                 \
  porta_cuda_check_fail_(m, what, n, idx, file, line)
#elif defined(__CUDA_ARCH__)
#define PORTA_DEVICE_VIEW_CHECK_FAIL_(m, what, n, idx, file, line)                                 \
  do {                                                                                             \
    printf("porta: view '%s': %s at %s:%d (rank %d, block %d thread %d)\n", (m)->label, what,      \
           file, line, (int)(m)->rank, (int)blockIdx.x, (int)threadIdx.x);                         \
    __trap();                                                                                      \
  } while (0)
#endif

#if defined(__CUDA_ARCH__)
#define PORTA_AT_LAYOUT_(RANK) PORTA_L##RANK
#define PORTA_LDG(ref) __ldg(&(ref))
#endif

#endif
