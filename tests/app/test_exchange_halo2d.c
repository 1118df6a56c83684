/** Halo exchange of 2D views on any number of ranks: after an exchange of depth d every ghost
 *  cell within d layers that lies inside the global domain holds the owner's value (corners
 *  included), everything else is untouched. Two fields at once, both index orders (x first
 *  or second), uneven splits (11 x 9 cells), depths 1, 2 (halo 2) and 3 (halo 3); plans built
 *  in advance by porta_halo2d_prepare (which refuses a field too small for its ghost layers)
 *  or by the first exchange. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "app_common.h"

static int failures = 0;

static double value(int f, int64_t gx, int64_t gy) { return 1000.0 * (f + 1) + 31.0 * gx + gy; }

/* view index of local (x, y) including ghosts: x, y in [-H, n + H) */
static double *at(porta_view_f64 v, int x_dim, int H, int64_t x, int64_t y) {
  int64_t i0 = x_dim == 0 ? x + H : y + H, i1 = x_dim == 0 ? y + H : x + H;
  return &v.data[i0 * v.m.stride[0] + i1 * v.m.stride[1]];
}

static void run(const porta_decomp *d, int H, int depth, int x_dim) {
  porta_halo2d h;
  APP_CHECK(porta_halo2d_create(&h, d, H, x_dim, 2, porta_exec_default()));
  porta_view_f64 f[2];
  int64_t ex = d->local[0] + 2 * H, ey = d->local[1] + 2 * H;
  for (int k = 0; k < 2; ++k) {
    APP_CHECK(porta_view_f64_create2(&f[k], k ? "field_b" : "field_a", x_dim == 0 ? ex : ey,
                                     x_dim == 0 ? ey : ex));
    for (int64_t y = -H; y < d->local[1] + H; ++y)
      for (int64_t x = -H; x < d->local[0] + H; ++x) {
        int own = x >= 0 && x < d->local[0] && y >= 0 && y < d->local[1];
        *at(f[k], x_dim, H, x, y) = own ? value(k, d->offset[0] + x, d->offset[1] + y) : -1.0;
      }
  }
  /* the plans built in advance (odd depths) or by the exchange itself (even): the same
     values either way; a field too small for the ghost layers is refused (a longer one is
     padding: tests/python/test_exchange.py) */
  if (depth % 2 == 1) {
    porta_view_f64 wrong;
    APP_CHECK(porta_view_f64_create2(&wrong, "wrong_shape", ex - 1, ey));
    if (porta_halo2d_prepare(&h, &wrong) == PORTA_SUCCESS) {
      fprintf(stderr, "rank %d: prepare with a %lld x %lld field accepted\n", d->rank,
              (long long)(ex - 1), (long long)ey);
      ++failures;
    }
    porta_view_f64_release(&wrong);
    APP_CHECK(porta_halo2d_prepare(&h, &f[0]));
  }
  APP_CHECK(porta_halo2d_exchange(&h, f, 2, depth));
  int bad = 0;
  for (int k = 0; k < 2; ++k)
    for (int64_t y = -H; y < d->local[1] + H; ++y)
      for (int64_t x = -H; x < d->local[0] + H; ++x) {
        int64_t gx = d->offset[0] + x, gy = d->offset[1] + y;
        int own = x >= 0 && x < d->local[0] && y >= 0 && y < d->local[1];
        int filled = x >= -depth && x < d->local[0] + depth && y >= -depth &&
                     y < d->local[1] + depth && gx >= 0 && gx < d->global[0] && gy >= 0 &&
                     gy < d->global[1];
        double want = (own || filled) ? value(k, gx, gy) : -1.0;
        double got = *at(f[k], x_dim, H, x, y);
        if (got != want && bad++ < 10)
          fprintf(stderr,
                  "rank %d: H=%d depth=%d x_dim=%d field %d local (%lld,%lld) global "
                  "(%lld,%lld): got %g want %g\n",
                  d->rank, H, depth, x_dim, k, (long long)x, (long long)y, (long long)gx,
                  (long long)gy, got, want);
      }
  failures += bad;
  /* depth beyond the ghost layers is refused with a message */
  if (porta_halo2d_exchange(&h, f, 2, H + 1) == PORTA_SUCCESS) {
    fprintf(stderr, "rank %d: depth %d > halo %d accepted\n", d->rank, H + 1, H);
    ++failures;
  }
  porta_view_f64_release(&f[0]);
  porta_view_f64_release(&f[1]);
  porta_halo2d_destroy(&h);
}

int main(int argc, char **argv) {
  app_mpi_init(&argc, &argv, "test_exchange_halo2d");
  APP_CHECK(porta_initialize(&argc, &argv));
  porta_set_error_mode(PORTA_ERROR_MODE_RETURN, NULL, NULL);
  const int64_t g[2] = {11, 9};
  porta_decomp d;
  if (porta_decomp_create(MPI_COMM_WORLD, 2, g, NULL, &d))
    app_fatal("%s", porta_last_error_message());
  for (int x_dim = 0; x_dim < 2; ++x_dim) {
    run(&d, 1, 1, x_dim);
    run(&d, 2, 1, x_dim);
    run(&d, 2, 2, x_dim);
    run(&d, 3, 3, x_dim);
  }
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (d.rank == 0)
    printf("halo exchange on %d ranks (%d x %d): %s (%d bad cells)\n", d.nranks, d.dims[0],
           d.dims[1], total ? "FAILED" : "PASSED", total);
  app_mpi_finalize();
  return total ? 1 : 0;
}
