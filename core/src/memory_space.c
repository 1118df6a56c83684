/** @file memory_space.c
 *  Allocation, zeroing and copies per memory space, and the host workspace.
 *  Host memory is 64-byte aligned and zeroed in parallel so pages are first
 *  touched by the threads that will use them. */
#include <stdlib.h>
#include <string.h>
#if defined(_OPENMP)
#include <omp.h>
#endif

#include "profiling_private.h"
#include "runtime_private.h"

static int host_alloc(void **ptr, size_t bytes) {
  size_t rounded = (bytes + 63) & ~(size_t)63;
  *ptr = aligned_alloc(64, rounded ? rounded : 64);
  return *ptr ? PORTA_SUCCESS : PORTA_ERROR_OUT_OF_MEMORY;
}

static void host_free(void *ptr) { free(ptr); }

static int host_zero(void *ptr, size_t bytes) {
  char *p = (char *)ptr;
#if defined(_OPENMP)
  if (bytes >= ((size_t)1 << 20) && porta_state_.num_threads > 1) {
    PORTA_OMP(parallel num_threads(porta_state_.num_threads)) {
      int64_t lo, hi;
      porta_partition_(0, (int64_t)bytes, omp_get_thread_num(), omp_get_num_threads(), &lo, &hi);
      memset(p + lo, 0, (size_t)(hi - lo));
    }
    return PORTA_SUCCESS;
  }
#endif
  memset(p, 0, bytes);
  return PORTA_SUCCESS;
}

static int host_copy(void *dst, porta_memory_space dst_space, const void *src,
                     porta_memory_space src_space, size_t bytes) {
  (void)dst_space;
  (void)src_space;
  char *d = (char *)dst;
  const char *s = (const char *)src;
#if defined(_OPENMP)
  if (bytes >= ((size_t)1 << 20) && porta_state_.num_threads > 1) {
    PORTA_OMP(parallel num_threads(porta_state_.num_threads)) {
      int64_t lo, hi;
      porta_partition_(0, (int64_t)bytes, omp_get_thread_num(), omp_get_num_threads(), &lo, &hi);
      memcpy(d + lo, s + lo, (size_t)(hi - lo));
    }
    return PORTA_SUCCESS;
  }
#endif
  memcpy(d, s, bytes);
  return PORTA_SUCCESS;
}

porta_space_ops porta_space_ops_[PORTA_NUM_MEMORY_SPACES] = {
    {host_alloc, host_free, host_zero, host_copy},
    {NULL, NULL, NULL, NULL},
    {NULL, NULL, NULL, NULL},
    {NULL, NULL, NULL, NULL}};

static int space_check(porta_memory_space space, const char *op, const char *label) {
  if ((int)space < 0 || space >= PORTA_NUM_MEMORY_SPACES)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, label, "unknown memory space %d",
                       (int)space);
  if (!porta_space_ops_[space].alloc)
    return porta_error(PORTA_ERROR_UNSUPPORTED, op, label,
                       "memory space %s is not available (CUDA is not compiled in or no GPU)",
                       porta_memory_space_name(space));
  return PORTA_SUCCESS;
}

int porta_space_alloc_(porta_memory_space space, size_t bytes, const char *label, void **ptr) {
  PORTA_CHECK(space_check(space, "allocate", label));
  if (porta_space_ops_[space].alloc(ptr, bytes) != PORTA_SUCCESS)
    return porta_error(PORTA_ERROR_OUT_OF_MEMORY, "allocate", label,
                       "could not allocate %zu bytes in %s", bytes, porta_memory_space_name(space));
  if (PORTA_UNLIKELY(porta_profiling_active_))
    porta_profile_allocate_((int)space, label, *ptr, (uint64_t)bytes);
  return PORTA_SUCCESS;
}

void porta_space_free_(porta_memory_space space, void *ptr) {
  if (ptr && (int)space >= 0 && space < PORTA_NUM_MEMORY_SPACES && porta_space_ops_[space].free)
    porta_space_ops_[space].free(ptr);
}

int porta_space_zero_(porta_memory_space space, void *ptr, size_t bytes) {
  PORTA_CHECK(space_check(space, "zero", NULL));
  return porta_space_ops_[space].zero(ptr, bytes);
}

int porta_space_copy_(void *dst, porta_memory_space dst_space, const void *src,
                      porta_memory_space src_space, size_t bytes) {
  PORTA_CHECK(space_check(dst_space, "deep_copy", NULL));
  PORTA_CHECK(space_check(src_space, "deep_copy", NULL));
  /* A device space's copy routine handles any pair involving it. */
  porta_memory_space owner = dst_space != PORTA_HOST_SPACE ? dst_space : src_space;
  return porta_space_ops_[owner].copy(dst, dst_space, src, src_space, bytes);
}

/* ---- host workspace ---- */

static void *workspace = NULL;
static size_t workspace_bytes = 0;

void *porta_host_workspace_(size_t bytes) {
  if (bytes <= workspace_bytes && workspace) return workspace;
  size_t want = bytes < 4096 ? 4096 : bytes + bytes / 2;
  void *p = NULL;
  if (host_alloc(&p, want) != PORTA_SUCCESS) return NULL;
  free(workspace);
  workspace = p;
  workspace_bytes = want;
  return workspace;
}

void porta_host_workspace_free_(void) {
  free(workspace);
  workspace = NULL;
  workspace_bytes = 0;
}
