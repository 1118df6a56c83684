/** @file test_memory_space.c
 *  Memory spaces are their back ends' data: the host's space and the ones each back end
 *  registers answer their names, whether the host can read them, which back ends' kernels
 *  reach them and their default layouts, in every build (a back end that is not compiled in
 *  keeps its spaces' names and refuses allocations in them). In a build with the test-only
 *  back end `replica`, its own space ReplicaSpace (host memory the core must treat as memory
 *  the host cannot read) holds views that only replica kernels and the space's hooks touch:
 *  zeroed at creation, deep copies both ways, fills, staged copies of non-contiguous
 *  subviews, mirrors and resizes through the host.
 */
#include <stdint.h>

#include "harness.h"

/** The host's space and CUDA's, which every build lists (CUDA is never test-only). */
static void test_spaces_answer(void) {
  PT_CHECK(strcmp(porta_memory_space_name(PORTA_HOST_SPACE), "Host") == 0);
  PT_CHECK(strcmp(porta_memory_space_name(PORTA_CUDA_SPACE), "Cuda") == 0);
  PT_CHECK(strcmp(porta_memory_space_name(PORTA_CUDA_UVM_SPACE), "CudaUVM") == 0);
  PT_CHECK(strcmp(porta_memory_space_name(PORTA_CUDA_HOST_PINNED_SPACE), "CudaHostPinned") == 0);
  PT_CHECK(strcmp(porta_memory_space_name(PORTA_NUM_MEMORY_SPACES), "unknown") == 0);

  PT_EQ_I64(porta_memory_space_host_accessible(PORTA_HOST_SPACE), 1);
  PT_EQ_I64(porta_memory_space_host_accessible(PORTA_CUDA_SPACE), 0);
  PT_EQ_I64(porta_memory_space_host_accessible(PORTA_CUDA_UVM_SPACE), 1);
  PT_EQ_I64(porta_memory_space_host_accessible(PORTA_CUDA_HOST_PINNED_SPACE), 1);
  PT_EQ_I64(porta_memory_space_host_accessible(PORTA_NUM_MEMORY_SPACES), 0);
  PT_EQ_I64(porta_memory_space_host_accessible((porta_memory_space)-1), 0);

  PT_EQ_I64(porta_memory_space_default_layout(PORTA_HOST_SPACE), PORTA_LAYOUT_RIGHT);
  PT_EQ_I64(porta_memory_space_default_layout(PORTA_CUDA_SPACE), PORTA_LAYOUT_LEFT);
  PT_EQ_I64(porta_memory_space_default_layout(PORTA_CUDA_UVM_SPACE), PORTA_LAYOUT_LEFT);
  PT_EQ_I64(porta_memory_space_default_layout(PORTA_CUDA_HOST_PINNED_SPACE), PORTA_LAYOUT_RIGHT);
}

/** Host back ends reach what the host reads; CUDA's kernels reach CUDA's spaces only. */
static void test_spaces_reach(void) {
  static const porta_backend host_backends[] = {PORTA_BACKEND_SERIAL, PORTA_BACKEND_OPENMP};
  for (int k = 0; k < 2; ++k) {
    const porta_backend b = host_backends[k];
    PT_EQ_I64(porta_space_accessible(b, PORTA_HOST_SPACE), 1);
    PT_EQ_I64(porta_space_accessible(b, PORTA_CUDA_SPACE), 0);
    PT_EQ_I64(porta_space_accessible(b, PORTA_CUDA_UVM_SPACE), 1);
    PT_EQ_I64(porta_space_accessible(b, PORTA_CUDA_HOST_PINNED_SPACE), 1);
  }
  PT_EQ_I64(porta_space_accessible(PORTA_BACKEND_CUDA, PORTA_HOST_SPACE), 0);
  PT_EQ_I64(porta_space_accessible(PORTA_BACKEND_CUDA, PORTA_CUDA_SPACE), 1);
  PT_EQ_I64(porta_space_accessible(PORTA_BACKEND_CUDA, PORTA_CUDA_UVM_SPACE), 1);
  PT_EQ_I64(porta_space_accessible(PORTA_BACKEND_CUDA, PORTA_CUDA_HOST_PINNED_SPACE), 1);
  /* a value that is no back end: what the host reaches */
  PT_EQ_I64(porta_space_accessible(PORTA_NUM_BACKENDS, PORTA_HOST_SPACE), 1);
  PT_EQ_I64(porta_space_accessible(PORTA_NUM_BACKENDS, PORTA_CUDA_SPACE), 0);

  /* the accessors' debug check refuses, in host code, only memory of a device's kernels */
  PT_CHECK(porta_view_host_refusal_(PORTA_HOST_SPACE) == NULL);
  PT_CHECK(porta_view_host_refusal_(PORTA_CUDA_UVM_SPACE) == NULL);
  const char *refusal = porta_view_host_refusal_(PORTA_CUDA_SPACE);
  PT_CHECK(refusal && strcmp(refusal, "host access to device memory (CudaSpace)") == 0);
}

/** A space whose back end is not usable refuses views, naming the space and why. */
static void test_spaces_unavailable(void) {
  if (porta_backend_available(PORTA_BACKEND_CUDA)) return;
  porta_view_f64 v;
  const int64_t n = 8;
  const porta_view_options o = {PORTA_CUDA_SPACE, PORTA_LAYOUT_DEFAULT, 0, NULL};
  PT_EXPECT_CODE(porta_view_f64_create(&v, "nowhere", 1, &n, &o), PORTA_ERROR_UNSUPPORTED);
  PT_MSG_HAS("memory space Cuda is not available (CUDA is not compiled in or no GPU)");
  PT_EXPECT_CODE(porta_set_default_memory_space(PORTA_CUDA_SPACE), PORTA_ERROR_UNSUPPORTED);
}

#if defined(PORTA_ENABLE_REPLICA) && PORTA_ENABLE_REPLICA

typedef struct {
  porta_view_f64 v;
} ms_args;

/** v(i) = 2 v(i) + 1, run by the replica back end on its own space. */
PORTA_FOR(ms_twice_plus_one_k, ms_args, a, i) { PORTA_S1(a->v, i) = 2.0 * PORTA_S1(a->v, i) + 1.0; }

static const porta_view_options replica_options = {PORTA_REPLICA_SPACE, PORTA_LAYOUT_DEFAULT, 0,
                                                   NULL};

/** ReplicaSpace's properties, as the replica back end registered them. */
static void test_replica_space_answers(void) {
  PT_CHECK(strcmp(porta_memory_space_name(PORTA_REPLICA_SPACE), "Replica") == 0);
  PT_EQ_I64(porta_memory_space_host_accessible(PORTA_REPLICA_SPACE), 0);
  PT_EQ_I64(porta_memory_space_default_layout(PORTA_REPLICA_SPACE), PORTA_LAYOUT_RIGHT);
  PT_EQ_I64(porta_space_accessible(PORTA_BACKEND_REPLICA, PORTA_REPLICA_SPACE), 1);
  PT_EQ_I64(porta_space_accessible(PORTA_BACKEND_REPLICA, PORTA_HOST_SPACE), 1);
  PT_EQ_I64(porta_space_accessible(PORTA_BACKEND_REPLICA, PORTA_CUDA_SPACE), 0);
  PT_EQ_I64(porta_space_accessible(PORTA_BACKEND_SERIAL, PORTA_REPLICA_SPACE), 0);
  PT_EQ_I64(porta_space_accessible(PORTA_BACKEND_OPENMP, PORTA_REPLICA_SPACE), 0);
  PT_EQ_I64(porta_space_accessible(PORTA_BACKEND_CUDA, PORTA_REPLICA_SPACE), 0);
  /* its kernels run in the host pass: the debug check lets them through */
  PT_CHECK(porta_view_host_refusal_(PORTA_REPLICA_SPACE) == NULL);
}

/** A view in ReplicaSpace: zeroed, filled from the host, updated by a replica kernel, read
 *  back; a fill and a non-contiguous subview go through the space's hooks. */
static void test_replica_space_views(void) {
  enum { N = 1000 };
  const int64_t n = N;
  porta_view_f64 dev, host;
  PT_OK(porta_view_f64_create(&dev, "replica_dev", 1, &n, &replica_options));
  PT_OK(porta_view_f64_create(&host, "replica_host", 1, &n, NULL));
  PT_EQ_I64(dev.m.space, PORTA_REPLICA_SPACE);
  PT_EQ_I64(dev.m.layout, PORTA_LAYOUT_RIGHT);
  PT_EQ_I64((uintptr_t)dev.data % PORTA_ALLOC_ALIGN_BYTES, 0);

  /* created zeroed: read through a deep copy, never directly */
  for (int64_t i = 0; i < n; ++i) host.data[i] = -1.0;
  PT_OK(porta_deep_copy(host, dev));
  int zeros = 0;
  for (int64_t i = 0; i < n; ++i) zeros += host.data[i] == 0.0;
  PT_EQ_I64(zeros, N);

  /* host -> ReplicaSpace, a replica kernel, ReplicaSpace -> host */
  for (int64_t i = 0; i < n; ++i) host.data[i] = 0.5 * (double)i;
  PT_OK(porta_deep_copy(dev, host));
  ms_args a = {dev};
  PT_OK(PORTA_PARALLEL_FOR(ms_twice_plus_one_k, porta_exec_backend(PORTA_BACKEND_REPLICA),
                           porta_range(0, n), &a));
  for (int64_t i = 0; i < n; ++i) host.data[i] = 0.0;
  PT_OK(porta_deep_copy(host, dev));
  int right = 0;
  for (int64_t i = 0; i < n; ++i) right += host.data[i] == (double)i + 1.0;
  PT_EQ_I64(right, N);

  /* a fill of another value than zero (staged through the host) */
  const double seven = 7.0;
  PT_OK(porta_view_fill(PORTA_VIEW_ERASE(dev), &seven));
  PT_OK(porta_deep_copy(host, dev));
  PT_EQ_F64(host.data[0], 7.0);
  PT_EQ_F64(host.data[N - 1], 7.0);

  porta_view_f64_release(&host);
  porta_view_f64_release(&dev);
}

/** Non-contiguous subviews, mirrors and resizes of a 2D ReplicaSpace view. */
static void test_replica_space_staged(void) {
  const int64_t ext[2] = {6, 5};
  porta_view_f64 dev, host, col_host;
  PT_OK(porta_view_f64_create(&dev, "replica_2d", 2, ext, &replica_options));
  PT_OK(porta_view_f64_create(&host, "host_2d", 2, ext, NULL));
  for (int64_t i = 0; i < 6; ++i)
    for (int64_t j = 0; j < 5; ++j) PORTA_R2(host, i, j) = 10.0 * (double)i + (double)j;
  PT_OK(porta_deep_copy(dev, host));

  /* column 3: a strided subview in ReplicaSpace, copied out through the host */
  porta_view_f64 col;
  const porta_slice s[2] = {porta_slice_all(), porta_slice_index(3)};
  PT_OK(porta_view_f64_subview(&col, &dev, s));
  const int64_t six = 6;
  PT_OK(porta_view_f64_create(&col_host, "col_host", 1, &six, NULL));
  PT_OK(porta_deep_copy(col_host, col));
  for (int64_t i = 0; i < 6; ++i) PT_EQ_F64(col_host.data[i], 10.0 * (double)i + 3.0);

  /* a mirror of memory the host cannot read is a host copy */
  porta_view mirror;
  porta_view g = PORTA_VIEW_ERASE(dev);
  PT_OK(porta_view_create_mirror_view(&mirror, &g));
  PT_EQ_I64(mirror.m.space, PORTA_HOST_SPACE);
  PT_CHECK(mirror.data != (void *)dev.data);
  PT_OK(porta_view_deep_copy(mirror, g));
  PT_EQ_F64(((const double *)mirror.data)[2 * 5 + 4], 24.0);
  porta_view_release(&mirror);

  /* resize keeps the overlap's values, staged through the host */
  const int64_t bigger[2] = {7, 6};
  PT_OK(porta_view_f64_resize(&dev, 2, bigger));
  PT_EQ_I64(dev.m.space, PORTA_REPLICA_SPACE);
  porta_view_f64 host2;
  PT_OK(porta_view_f64_create(&host2, "host_2d_bigger", 2, bigger, NULL));
  PT_OK(porta_deep_copy(host2, dev));
  PT_EQ_F64(PORTA_R2(host2, 5, 4), 54.0);
  PT_EQ_F64(PORTA_R2(host2, 0, 1), 1.0);
  PT_EQ_F64(PORTA_R2(host2, 6, 5), 0.0);

  porta_view_f64_release(&host2);
  porta_view_f64_release(&col);
  porta_view_f64_release(&col_host);
  porta_view_f64_release(&host);
  porta_view_f64_release(&dev);
}

#endif

int main(int argc, char **argv) {
  PT_BEGIN(argc, argv);
  PT_RUN(test_spaces_answer);
  PT_RUN(test_spaces_reach);
  PT_RUN(test_spaces_unavailable);
#if defined(PORTA_ENABLE_REPLICA) && PORTA_ENABLE_REPLICA
  PT_RUN(test_replica_space_answers);
  PT_RUN(test_replica_space_views);
  PT_RUN(test_replica_space_staged);
#endif
  PT_END();
}
