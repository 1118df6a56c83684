/** @file memory_space.c
 *  Allocation, zeroing and copies per memory space, and the host workspace.
 *  Host memory is aligned to PORTA_ALLOC_ALIGN_BYTES (256, as cudaMalloc's) so that padded
 *  fields put their interiors on the same boundaries on every space; large zeroes and copies
 *  are spread over the host threads
 *  (porta_backend_ops.host_zero / host_copy) so pages are first touched by the threads that
 *  will use them. The workspace of launches is one buffer per calling thread. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "profiling_private.h"
#include "runtime_private.h"

/** Large host zeroes and copies go to the back end that owns the host threads, if it spreads
 *  them (the OpenMP back end does), when more than one thread is asked for. */
static const porta_backend_ops *host_spreader(size_t bytes) {
  if (bytes < ((size_t)1 << 20) || porta_state_.num_threads <= 1) return NULL;
  return porta_backend_threads_();
}

static int host_alloc(void **ptr, size_t bytes) {
  const size_t a = PORTA_ALLOC_ALIGN_BYTES;
  size_t rounded = (bytes + a - 1) & ~(a - 1);
  *ptr = aligned_alloc(a, rounded ? rounded : a);
  return *ptr ? PORTA_SUCCESS : PORTA_ERROR_OUT_OF_MEMORY;
}

static void host_free(void *ptr) { free(ptr); }

static int host_zero(void *ptr, size_t bytes) {
  const porta_backend_ops *t = host_spreader(bytes);
  if (t && t->host_zero) return t->host_zero(ptr, bytes, porta_state_.num_threads);
  memset(ptr, 0, bytes);
  return PORTA_SUCCESS;
}

static int host_copy(void *dst, porta_memory_space dst_space, const void *src,
                     porta_memory_space src_space, size_t bytes) {
  (void)dst_space;
  (void)src_space;
  const porta_backend_ops *t = host_spreader(bytes);
  if (t && t->host_copy) return t->host_copy(dst, src, bytes, porta_state_.num_threads);
  memcpy(dst, src, bytes);
  return PORTA_SUCCESS;
}

/** The host's hooks; a back end's initialize hook fills in those of its spaces. */
porta_space_ops porta_space_ops_[PORTA_NUM_MEMORY_SPACES] = {
    {host_alloc, host_free, host_zero, host_copy}};

static int space_check(porta_memory_space space, const char *op, const char *label) {
  if ((int)space < 0 || space >= PORTA_NUM_MEMORY_SPACES)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, label, "unknown memory space %d",
                       (int)space);
  if (!porta_space_ops_[space].alloc) {
    const porta_backend_ops *owner = porta_space_backend_(space);
    return porta_error(PORTA_ERROR_UNSUPPORTED, op, label, "memory space %s is not available (%s)",
                       porta_memory_space_name(space),
                       owner && owner->spaces_unavailable_why ? owner->spaces_unavailable_why
                                                              : "its back end is not usable");
  }
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

/* ---- host workspace ----
 * One buffer per calling thread: launches from several threads at once (Python threads, a C
 * program's own threads) must not share reduction slots, partials or team blocks. A thread's
 * buffer is freed when the thread exits (the key's destructor) or, for the thread that calls
 * porta_finalize, there. A launch costs one thread-local load on the fast path. */

/* one struct: one thread-local lookup */
static _Thread_local struct {
  void *ptr;
  size_t bytes;
} ws = {NULL, 0};
static pthread_key_t workspace_key;
static pthread_once_t workspace_once = PTHREAD_ONCE_INIT;
static int workspace_key_ok = 0;

static void workspace_key_make(void) {
  workspace_key_ok = pthread_key_create(&workspace_key, free) == 0;
}

void *porta_host_workspace_(size_t bytes) {
  if (PORTA_LIKELY(bytes <= ws.bytes && ws.ptr)) return ws.ptr;
  size_t want = bytes < 4096 ? 4096 : bytes + bytes / 2;
  void *p = NULL;
  if (host_alloc(&p, want) != PORTA_SUCCESS) return NULL;
  pthread_once(&workspace_once, workspace_key_make);
  free(ws.ptr);
  ws.ptr = p;
  ws.bytes = want;
  /* the destructor frees whatever the key holds when the thread exits */
  if (workspace_key_ok) pthread_setspecific(workspace_key, p);
  return p;
}

void porta_host_workspace_free_(void) {
  free(ws.ptr);
  ws.ptr = NULL;
  ws.bytes = 0;
  if (workspace_key_ok) pthread_setspecific(workspace_key, NULL);
}
