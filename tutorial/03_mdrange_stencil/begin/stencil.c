/** Exercise 03, begin: port a 2D heat (Jacobi) stencil to a multi-dimensional range.
 *
 *  The serial original (u, unew: nx x ny arrays, row-major; the border is fixed):
 *
 *    for (step = 0; step < nsteps; ++step) {
 *      for (i = 1; i < nx - 1; ++i)
 *        for (j = 1; j < ny - 1; ++j)
 *          unew[i][j] = u[i][j] + r * (u[i-1][j] + u[i+1][j] + u[i][j-1] + u[i][j+1] - 4 u[i][j]);
 *      swap(u, unew);
 *    }
 *
 *  Ported: u and unew are 2D views in the default memory space and layout (LayoutRight on the
 *  host, LayoutLeft on a GPU: PORTA_AT2 indexes with that same layout inside kernels), the
 *  double loop is one PORTA_MDFOR2 kernel over the box [1, nx-1) x [1, ny-1), and the host
 *  fills and reads the fields through a host view of the same layout, with PORTA_S2 (any
 *  layout).
 *  Complete the parts marked TODO(tutorial): until then the field never changes, which
 *  passes check (1) (a fixed point does not move) but fails (2), and the program prints FAIL.
 *  Answers: (1) a linear field u = 1 + 2 i + 3 j is a fixed point: unchanged, bit for bit,
 *  after any number of steps; (2) a plate heated along its i = 0 edge, after 200 steps,
 *  agrees with the serial loop above run on the host (to 1e-13; bitwise on the host back
 *  ends), and its total heat is printed: sum(u)=937.281497.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "tutorial.h"

typedef struct {
  porta_view_f64 u, unew;
  double r;
} heat_args;

/* Kokkos: parallel_for(MDRangePolicy<Rank<2>>({1, 1}, {nx - 1, ny - 1}),
 *                      KOKKOS_LAMBDA(int i, int j) { unew(i, j) = ...; }); */
/* TODO(tutorial): the body of the serial loop for one point (i, j): read a->u and write
 * a->unew with PORTA_AT2(view, i, j), the accessor with the execution space's layout. */
PORTA_MDFOR2(heat_step, heat_args, a, i, j) {
  (void)i;
  (void)j;
}

/** Run `nsteps` steps from the field in the host view `h0` (border included) and leave the
 *  result in `h0`. */
static void run_heat(porta_exec space, porta_view_f64 h0, double r, int nsteps) {
  const int64_t nx = porta_extent(h0, 0), ny = porta_extent(h0, 1);
  heat_args a;
  a.r = r;
  /* 2D views (Kokkos: View<double **> u("u", nx, ny)). The options spell out the defaults:
   * the space's memory and its natural layout. */
  porta_view_options opt;
  opt.space = porta_exec_memory_space(space);
  opt.layout = PORTA_LAYOUT_DEFAULT;
  opt.flags = 0;
  opt.stride = NULL;
  const int64_t ext[2] = {nx, ny};
  TUT_CHECK(porta_view_f64_create(&a.u, "u", 2, ext, &opt));
  TUT_CHECK(porta_view_f64_create(&a.unew, "unew", 2, ext, &opt));
  /* deep_copy needs equal layouts from rank 2 on: h0 was made with this layout. */
  TUT_CHECK(porta_deep_copy(a.u, h0));
  TUT_CHECK(porta_deep_copy(a.unew, h0)); /* the fixed border in both */

  for (int step = 0; step < nsteps; ++step) {
    /* TODO(tutorial): run heat_step over the interior box [1, nx-1) x [1, ny-1) (the first
     * index is i, dimension 0): the policy is porta_mdrange2(lower0, upper0, lower1, upper1),
     * the call PORTA_PARALLEL_FOR(kernel, space, policy, &args). */
    const porta_view_f64 t = a.u; /* swap the handles, not the data */
    a.u = a.unew;
    a.unew = t;
  }
  TUT_CHECK(porta_deep_copy(h0, a.u));
  porta_view_f64_release(&a.u);
  porta_view_f64_release(&a.unew);
}

/** The serial original on a plain row-major array (the reference). */
static void serial_heat(double *u, int64_t nx, int64_t ny, double r, int nsteps) {
  double *unew = (double *)malloc((size_t)(nx * ny) * sizeof(double));
  double *cur = u, *nxt = unew;
  for (int64_t k = 0; k < nx * ny; ++k) unew[k] = u[k];
  for (int step = 0; step < nsteps; ++step) {
    for (int64_t i = 1; i < nx - 1; ++i)
      for (int64_t j = 1; j < ny - 1; ++j) {
        const double c = cur[i * ny + j];
        nxt[i * ny + j] = c + r * (cur[(i - 1) * ny + j] + cur[(i + 1) * ny + j] +
                                   cur[i * ny + j - 1] + cur[i * ny + j + 1] - 4.0 * c);
      }
    double *t = cur;
    cur = nxt;
    nxt = t;
  }
  if (cur != u)
    for (int64_t k = 0; k < nx * ny; ++k) u[k] = cur[k];
  free(unew);
}

int main(int argc, char **argv) {
  TUT_CHECK(porta_initialize(&argc, &argv));
  const porta_exec space = porta_exec_default();
  const int64_t nx = 194, ny = 130; /* not square: i and j mixed up would show */
  int ok = 1;

  /* The host copy of a field. deep_copy never converts layouts (rank >= 2), so it is made in
   * host memory with the layout the fields get in the execution space's memory (Kokkos:
   * View<double **, typename ExecSpace::array_layout, HostSpace>; create_mirror does the same
   * from an existing view). Host code reads it with PORTA_S2, right for any layout. */
  const porta_layout layout = porta_memory_space_default_layout(porta_exec_memory_space(space));
  porta_view_options hopt;
  hopt.space = PORTA_HOST_SPACE;
  hopt.layout = layout;
  hopt.flags = 0;
  hopt.stride = NULL;
  const int64_t ext[2] = {nx, ny};
  porta_view_f64 h;
  TUT_CHECK(porta_view_f64_create(&h, "h", 2, ext, &hopt));

  /* (1) A linear field is a fixed point of the stencil: exactly, in any order. */
  for (int64_t i = 0; i < nx; ++i)
    for (int64_t j = 0; j < ny; ++j) PORTA_S2(h, i, j) = 1.0 + 2.0 * (double)i + 3.0 * (double)j;
  run_heat(space, h, 0.25, 50);
  int64_t moved = 0;
  for (int64_t i = 0; i < nx; ++i)
    for (int64_t j = 0; j < ny; ++j)
      moved += PORTA_S2(h, i, j) != 1.0 + 2.0 * (double)i + 3.0 * (double)j;
  if (moved) {
    fprintf(stderr, "linear field: %lld values changed (a fixed point must not)\n",
            (long long)moved);
    ok = 0;
  }

  /* (2) A plate heated along its i = 0 edge, against the serial loop. */
  const double r = 0.2;
  const int nsteps = 200;
  double *ref = (double *)malloc((size_t)(nx * ny) * sizeof(double));
  for (int64_t i = 0; i < nx; ++i)
    for (int64_t j = 0; j < ny; ++j) {
      const double v = i == 0 ? 1.0 : 0.0;
      PORTA_S2(h, i, j) = v;
      ref[i * ny + j] = v;
    }
  run_heat(space, h, r, nsteps);
  serial_heat(ref, nx, ny, r, nsteps);
  double max_diff = 0.0, sum = 0.0;
  for (int64_t i = 0; i < nx; ++i)
    for (int64_t j = 0; j < ny; ++j) {
      const double d = fabs(PORTA_S2(h, i, j) - ref[i * ny + j]);
      if (!(d <= max_diff)) max_diff = d; /* a NaN sticks */
      sum += PORTA_S2(h, i, j);
    }
  free(ref);
  /* The host back ends give the serial loop's bits; a GPU may fuse multiply-adds (FMA). */
  if (!(max_diff <= 1e-13)) {
    fprintf(stderr, "heated plate: max |u - serial| = %.3g, want <= 1e-13\n", max_diff);
    ok = 0;
  }

  printf("03_mdrange_stencil: backend=%s layout=%s nx=%lld ny=%lld linear_fixed_point=%s "
         "sum(u)=%.6f max_diff_vs_serial=%.3g %s\n",
         porta_backend_name(space.backend), layout == PORTA_LAYOUT_LEFT ? "left" : "right",
         (long long)nx, (long long)ny, moved ? "no" : "exact", sum, max_diff, ok ? "PASS" : "FAIL");
  porta_view_f64_release(&h);
  TUT_CHECK(porta_finalize());
  return ok ? 0 : 1;
}
