/** @file test_minife_h5.c
 *  Reads a minife.h5 back and checks what it must hold:
 *    test_minife_h5 FILE NX NY NZ RANKS
 *  /solution has shape (nz+1, ny+1, nx+1); the Dirichlet values hold to 1e-12 (1 on the face
 *  x = 1, 0 on the other faces: CG reaches them through its iterations, not exactly), every
 * interior value lies strictly between them (maximum principle of the discrete Laplacian with a
 * non-negative source); the residual history has iterations + 1 entries, starting at the initial
 * and ending at the final residual; the parameters and sizes are the ones asked for. */
#include <string.h>

#include "tea_h5_read.h"

int main(int argc, char **argv) {
  if (argc != 6) {
    printf("usage: test_minife_h5 FILE NX NY NZ RANKS\n");
    return 2;
  }
  const int64_t nx = atoll(argv[2]), ny = atoll(argv[3]), nz = atoll(argv[4]);
  const int ranks = atoi(argv[5]);
  hid_t f = H5Fopen(argv[1], H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) {
    printf("FAIL: cannot open %s\n", argv[1]);
    return 1;
  }
  EXPECT(attr_num(f, "/parameters", "nx", H5T_NATIVE_INT64) == (double)nx, "nx");
  EXPECT(attr_num(f, "/parameters", "ny", H5T_NATIVE_INT64) == (double)ny, "ny");
  EXPECT(attr_num(f, "/parameters", "nz", H5T_NATIVE_INT64) == (double)nz, "nz");
  EXPECT(attr_num(f, "/", "ranks", H5T_NATIVE_INT64) == (double)ranks, "ranks");
  const double rows = (double)((nx + 1) * (ny + 1) * (nz + 1));
  const double nnz = (double)((3 * nx + 1) * (3 * ny + 1) * (3 * nz + 1));
  EXPECT(attr_num(f, "/matrix", "global_rows", H5T_NATIVE_INT64) == rows, "global rows");
  EXPECT(attr_num(f, "/matrix", "global_nnz", H5T_NATIVE_INT64) == nnz, "global nnz");

  int rank = 0;
  hsize_t dims[4] = {0, 0, 0, 0};
  double *u = (double *)read_ds(f, "/solution", 0, &rank, dims);
  EXPECT(rank == 3 && dims[0] == (hsize_t)nz + 1 && dims[1] == (hsize_t)ny + 1 &&
             dims[2] == (hsize_t)nx + 1,
         "solution shape %d: %llu x %llu x %llu", rank, (unsigned long long)dims[0],
         (unsigned long long)dims[1], (unsigned long long)dims[2]);
  int bad_face = 0, bad_inside = 0;
  for (int64_t z = 0; z <= nz; ++z)
    for (int64_t y = 0; y <= ny; ++y)
      for (int64_t x = 0; x <= nx; ++x) {
        const double v = u[(z * (ny + 1) + y) * (nx + 1) + x];
        if (x == nx)
          bad_face += fabs(v - 1.0) > 1e-12;
        else if (x == 0 || y == 0 || y == ny || z == 0 || z == nz)
          bad_face += fabs(v) > 1e-12;
        else
          bad_inside += !(v > 0.0 && v < 1.0);
      }
  EXPECT(bad_face == 0, "%d boundary values differ from the Dirichlet data", bad_face);
  EXPECT(bad_inside == 0, "%d interior values outside (0, 1)", bad_inside);

  const double iters = attr_num(f, "/cg", "iterations", H5T_NATIVE_INT64);
  double *hist = (double *)read_ds(f, "/cg/residual_history", 0, &rank, dims);
  EXPECT(rank == 1 && (double)dims[0] == iters + 1, "history of %llu for %g iterations",
         (unsigned long long)dims[0], iters);
  if (rank == 1 && dims[0] > 0) {
    EXPECT(hist[0] == attr_num(f, "/cg", "initial_residual", H5T_NATIVE_DOUBLE),
           "history starts at the initial residual");
    EXPECT(hist[dims[0] - 1] == attr_num(f, "/cg", "final_residual", H5T_NATIVE_DOUBLE),
           "history ends at the final residual");
  }
  free(u);
  free(hist);
  H5Fclose(f);
  if (fails == 0) printf("PASS\n");
  return fails ? 1 : 0;
}
