/** Execution-space instances: work launched on separate instances (CUDA streams on the GPU,
 *  instance 0 on the host) is complete and correct after each instance's fence, and
 *  deep_copy_async is ordered on its instance; a high-priority instance runs kernels like any
 *  other, and an unknown priority is refused. */
#include "harness.h"

typedef struct {
  porta_view_f64 x;
  double value;
} set_args;

PORTA_FOR(set_k, set_args, a, i) { PORTA_AT1(a->x, i) = a->value + (double)i; }

/** How many elements of x (read through a host mirror) are not value + i. */
static int64_t wrong_values(porta_view_f64 x, double value) {
  porta_mirror_f64 h;
  PT_OK(porta_view_f64_create_mirror_view(&h, &x));
  PT_OK(porta_deep_copy(h, x));
  int64_t bad = 0;
  for (int64_t i = 0; i < porta_extent(h, 0); ++i) bad += h.data[i] != value + (double)i;
  porta_mirror_f64_release(&h);
  return bad;
}

static void test_instances_run_and_fence(void) {
  const int64_t n = 1 << 20;
  porta_exec def = porta_exec_default(), e1, e2;
  PT_OK(porta_exec_create_instance(def.backend, &e1));
  PT_OK(porta_exec_create_instance(def.backend, &e2));
  PT_CHECK(e1.backend == def.backend && e2.backend == def.backend);
  if (def.backend == PORTA_BACKEND_CUDA) PT_CHECK(e1.instance != e2.instance && e1.instance > 0);
  set_args a, b;
  PT_OK(porta_view_f64_create1(&a.x, "a", n));
  PT_OK(porta_view_f64_create1(&b.x, "b", n));
  a.value = 1.0;
  b.value = -5.0;
  PT_OK(porta_parallel_for("set_a", e1, porta_range(0, n), &set_k, &a));
  PT_OK(porta_parallel_for("set_b", e2, porta_range(0, n), &set_k, &b));
  /* a copy of a into c, ordered after set_a on e1 */
  porta_view_f64 c;
  PT_OK(porta_view_f64_create1(&c, "c", n));
  PT_OK(porta_deep_copy_async(e1, c, a.x));
  PT_OK(porta_exec_fence(e1, "e1"));
  PT_OK(porta_exec_fence(e2, "e2"));
  PT_EQ_I64(wrong_values(c, 1.0), 0);
  PT_EQ_I64(wrong_values(b.x, -5.0), 0);
  porta_view_f64_release(&c);
  porta_view_f64_release(&a.x);
  porta_view_f64_release(&b.x);
  PT_OK(porta_exec_destroy_instance(e1));
  PT_OK(porta_exec_destroy_instance(e2));
}

/* a HIGH instance runs kernels like any other (its priority only orders the GPU's blocks):
   a kernel on it beside a kernel on a NORMAL instance, both checked */
static void test_instance_priority(void) {
  const int64_t n = 1 << 18;
  porta_exec def = porta_exec_default(), hi, lo;
  PT_OK(porta_exec_create_instance_with_priority(def.backend, PORTA_PRIORITY_HIGH, &hi));
  PT_OK(porta_exec_create_instance_with_priority(def.backend, PORTA_PRIORITY_NORMAL, &lo));
  PT_CHECK(hi.backend == def.backend);
  if (def.backend == PORTA_BACKEND_CUDA) PT_CHECK(hi.instance > 0 && hi.instance != lo.instance);
  set_args a, b;
  PT_OK(porta_view_f64_create1(&a.x, "hi", n));
  PT_OK(porta_view_f64_create1(&b.x, "lo", n));
  a.value = 7.0;
  b.value = -3.0;
  PT_OK(porta_parallel_for("set_lo", lo, porta_range(0, n), &set_k, &b));
  PT_OK(porta_parallel_for("set_hi", hi, porta_range(0, n), &set_k, &a));
  PT_OK(porta_exec_fence(hi, "hi"));
  PT_OK(porta_exec_fence(lo, "lo"));
  PT_EQ_I64(wrong_values(a.x, 7.0) + wrong_values(b.x, -3.0), 0);
  porta_view_f64_release(&a.x);
  porta_view_f64_release(&b.x);
  PT_OK(porta_exec_destroy_instance(hi));
  PT_OK(porta_exec_destroy_instance(lo));
}

static void test_instance_errors(void) {
  porta_exec bogus = porta_exec_default();
  bogus.instance = 999;
  PT_EXPECT_CODE(porta_exec_destroy_instance(bogus), PORTA_ERROR_INVALID_ARGUMENT);
  porta_exec e;
  PT_EXPECT_CODE(porta_exec_create_instance_with_priority(porta_exec_default().backend,
                                                          (porta_exec_priority)7, &e),
                 PORTA_ERROR_INVALID_ARGUMENT);
  if (!porta_backend_available(PORTA_BACKEND_CUDA))
    PT_EXPECT_CODE(porta_exec_create_instance(PORTA_BACKEND_CUDA, &e), PORTA_ERROR_UNSUPPORTED);
}

int main(int argc, char **argv) {
  PT_BEGIN(argc, argv);
  PT_RUN(test_instances_run_and_fence);
  PT_RUN(test_instance_priority);
  PT_RUN(test_instance_errors);
  PT_END();
}
