/** Exercise 01, solution: y = a*x + y with views and PORTA_PARALLEL_FOR.
 *
 *  The serial original:
 *
 *    double *x = malloc(n * sizeof(double)), *y = malloc(n * sizeof(double));
 *    for (int64_t i = 0; i < n; ++i) { x[i] = i; y[i] = 2; }
 *    for (int64_t i = 0; i < n; ++i) y[i] += a * x[i];
 *
 *  Ported: x and y are views in the default execution space's memory (device memory on a
 *  CUDA run), filled on the host through host mirrors and porta_deep_copy, updated by a
 *  PORTA_FOR kernel, and copied back to the host mirror for the check.
 *  Answer: y(i) = 3 i + 2 for every i, and sum(y) = 1500000500000 (exact in doubles).
 */
#include <stdint.h>
#include <stdio.h>

#include "tutorial.h"

/* The kernel's whole state (Kokkos: the lambda's captures or the functor's members). It is
 * passed by value: the views in it are non-owning handles. */
typedef struct {
  porta_view_f64 x, y;
  double a;
} axpy_args;

/* Kokkos: parallel_for("axpy", n, KOKKOS_LAMBDA(int64_t i) { y(i) += a * x(i); });
 * PORTA_AT1 indexes with the memory space's default layout (any layout is the same in 1D). */
PORTA_FOR(axpy, axpy_args, args, i) { PORTA_AT1(args->y, i) += args->a * PORTA_AT1(args->x, i); }

int main(int argc, char **argv) {
  TUT_CHECK(porta_initialize(&argc, &argv)); /* --porta-backend=serial|openmp|cuda, ... */
  const int64_t n = 1000000;
  const porta_exec space = porta_exec_default();

  axpy_args args;
  args.a = 3.0;
  /* Views in the default memory space (Kokkos: View<double *> x("x", n)), zero-filled. */
  TUT_CHECK(porta_view_f64_create1(&args.x, "x", n));
  TUT_CHECK(porta_view_f64_create1(&args.y, "y", n));

  /* Host mirrors (Kokkos: create_mirror_view): the view itself when the host can read it,
   * else a new host allocation of the same shape and layout. */
  porta_mirror_f64 hx;
  porta_mirror_f64 hy;
  TUT_CHECK(porta_view_f64_create_mirror_view(&hx, &args.x));
  TUT_CHECK(porta_view_f64_create_mirror_view(&hy, &args.y));
  for (int64_t i = 0; i < n; ++i) {
    PORTA_S1(hx, i) = (double)i; /* host code: PORTA_S<n> works with any layout */
    PORTA_S1(hy, i) = 2.0;
  }
  TUT_CHECK(porta_deep_copy(args.x, hx)); /* host -> default space (no-op when the same) */
  TUT_CHECK(porta_deep_copy(args.y, hy));

  TUT_CHECK(PORTA_PARALLEL_FOR(axpy, space, porta_range(0, n), &args));

  /* deep_copy fences first, so the kernel has finished when the copy starts. */
  TUT_CHECK(porta_deep_copy(hy, args.y));

  int64_t errors = 0;
  double sum = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    const double want = 3.0 * (double)i + 2.0;
    if (PORTA_S1(hy, i) != want) {
      if (errors < 3)
        fprintf(stderr, "y(%lld) = %.17g, want %.17g\n", (long long)i, PORTA_S1(hy, i), want);
      ++errors;
    }
    sum += PORTA_S1(hy, i);
  }
  const int ok = errors == 0 && sum == 1500000500000.0;
  printf("01_views_parallel_for: backend=%s n=%lld sum(y)=%.0f errors=%lld %s\n",
         porta_backend_name(space.backend), (long long)n, sum, (long long)errors,
         ok ? "PASS" : "FAIL");

  porta_mirror_f64_release(&hx); /* a mirror holds a reference too */
  porta_mirror_f64_release(&hy);
  porta_view_f64_release(&args.x);
  porta_view_f64_release(&args.y);
  TUT_CHECK(porta_finalize());
  return ok ? 0 : 1;
}
