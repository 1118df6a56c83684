/** Decomposition helpers: uneven splits (first parts get the extra cell), rank grids like
 *  MPI_Dims_create, coverage and neighbour symmetry in 2D and 3D for 1..12 ranks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "porta/exchange_decomp.h"
#include "porta/porta.h"

#include "app_expect.h"

static void check_grid(int ndims, const int64_t *g, int nranks) {
  porta_decomp d[16];
  int64_t cells = 0;
  for (int r = 0; r < nranks; ++r) {
    int rc = porta_decomp_for_rank(r, nranks, ndims, g, NULL, &d[r]);
    EXPECT(rc == 0, "rank %d of %d: %s", r, nranks, porta_last_error_message());
    if (rc) return;
    int64_t n = 1;
    for (int i = 0; i < ndims; ++i) n *= d[r].local[i];
    cells += n;
  }
  int64_t total = 1;
  for (int i = 0; i < ndims; ++i) total *= g[i];
  EXPECT(cells == total, "%d ranks cover %lld of %lld cells", nranks, (long long)cells,
         (long long)total);
  for (int r = 0; r < nranks; ++r)
    for (int i = 0; i < ndims; ++i) {
      int64_t q = g[i] / d[r].dims[i], rem = g[i] % d[r].dims[i];
      int c = d[r].coords[i];
      EXPECT(d[r].local[i] == q + (c < rem), "rank %d dim %d local %lld", r, i,
             (long long)d[r].local[i]);
      EXPECT(d[r].offset[i] == q * c + (c < rem ? c : rem), "rank %d dim %d offset", r, i);
      for (int s = 0; s < 2; ++s) {
        int nb = d[r].neighbour[i][s];
        if (nb == MPI_PROC_NULL) {
          EXPECT(c == (s == 0 ? 0 : d[r].dims[i] - 1), "rank %d dim %d side %d boundary", r, i, s);
        } else {
          EXPECT(d[nb].neighbour[i][1 - s] == r, "rank %d dim %d side %d not symmetric", r, i, s);
          EXPECT(d[nb].offset[i] ==
                     (s == 0 ? d[r].offset[i] - d[nb].local[i] : d[r].offset[i] + d[r].local[i]),
                 "rank %d dim %d side %d neighbour not adjacent", r, i, s);
          for (int k = 0; k < ndims; ++k)
            if (k != i) EXPECT(d[nb].coords[k] == c * 0 + d[r].coords[k], "coords");
        }
      }
    }
  /* x fastest rank numbering */
  if (nranks > 1) EXPECT(d[1].coords[0] == (d[0].dims[0] > 1 ? 1 : 0), "x is not fastest");
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  /* porta_split: 10 over 3 -> 4 3 3; 7 over 7; 2 over 4 leaves parts empty */
  int64_t off, cnt;
  porta_split(10, 3, 0, &off, &cnt);
  EXPECT(off == 0 && cnt == 4, "10/3 part 0: %lld+%lld", (long long)off, (long long)cnt);
  porta_split(10, 3, 1, &off, &cnt);
  EXPECT(off == 4 && cnt == 3, "10/3 part 1: %lld+%lld", (long long)off, (long long)cnt);
  porta_split(10, 3, 2, &off, &cnt);
  EXPECT(off == 7 && cnt == 3, "10/3 part 2: %lld+%lld", (long long)off, (long long)cnt);
  porta_split(11, 4, 3, &off, &cnt);
  EXPECT(off == 9 && cnt == 2, "11/4 part 3: %lld+%lld", (long long)off, (long long)cnt);

  /* rank grids: MPI_Dims_create; 2 ranks on a square split in x (TeaLeaf: 2 x 1) */
  int dims[3];
  porta_dims_create(2, 2, dims);
  EXPECT(dims[0] == 2 && dims[1] == 1, "2 ranks: %d x %d", dims[0], dims[1]);
  porta_dims_create(4, 2, dims);
  EXPECT(dims[0] == 2 && dims[1] == 2, "4 ranks: %d x %d", dims[0], dims[1]);
  porta_dims_create(6, 2, dims);
  EXPECT(dims[0] == 3 && dims[1] == 2, "6 ranks: %d x %d", dims[0], dims[1]);
  porta_dims_create(12, 3, dims);
  EXPECT(dims[0] * dims[1] * dims[2] == 12 && dims[0] >= dims[1] && dims[1] >= dims[2],
         "12 ranks 3D: %d x %d x %d", dims[0], dims[1], dims[2]);

  /* grids from the cell counts: the fewest cells on the faces between ranks, MPI_Dims_create's
     grid where it is as good */
  const int64_t thin[2] = {2, 100}, wide[2] = {1000, 10}, sq[2] = {64, 64}, box3[3] = {4, 4, 400};
  EXPECT(porta_dims_for_cells(3, 2, thin, dims) == 0 && dims[0] == 1 && dims[1] == 3,
         "3 ranks on 2 x 100: %d x %d", dims[0], dims[1]);
  EXPECT(porta_dims_for_cells(4, 2, wide, dims) == 0 && dims[0] == 4 && dims[1] == 1,
         "4 ranks on 1000 x 10: %d x %d", dims[0], dims[1]);
  EXPECT(porta_dims_for_cells(4, 2, sq, dims) == 0 && dims[0] == 2 && dims[1] == 2,
         "4 ranks on 64 x 64: %d x %d", dims[0], dims[1]);
  EXPECT(porta_dims_for_cells(2, 2, sq, dims) == 0 && dims[0] == 2 && dims[1] == 1,
         "2 ranks on 64 x 64: %d x %d (MPI_Dims_create's)", dims[0], dims[1]);
  EXPECT(porta_dims_for_cells(8, 3, box3, dims) == 0 && dims[0] == 1 && dims[1] == 1 &&
             dims[2] == 8,
         "8 ranks on 4 x 4 x 400: %d x %d x %d", dims[0], dims[1], dims[2]);
  EXPECT(porta_dims_for_cells(5, 2, (const int64_t[2]){2, 2}, dims) != 0, "5 ranks on 2 x 2");
  porta_decomp dt;
  EXPECT(porta_decomp_for_rank(2, 3, 2, thin, NULL, &dt) == 0 && dt.local[0] == 2 &&
             dt.offset[1] == 67 && dt.local[1] == 33,
         "3 ranks on 2 x 100, rank 2: %s", porta_last_error_message());

  const int64_t g2[2] = {11, 7}, g3[3] = {9, 5, 7};
  for (int n = 1; n <= 12; ++n) check_grid(2, g2, n);
  for (int n = 1; n <= 12; ++n)
    if (n != 11) check_grid(3, g3, n); /* 11 x 1 x 1 does not fit 9 cells */

  /* a rank with no cells is an error, with a message */
  porta_decomp d;
  const int64_t tiny[2] = {1, 1};
  porta_error_clear();
  EXPECT(porta_decomp_for_rank(0, 2, 2, tiny, NULL, &d) != 0 &&
             strstr(porta_last_error_message(), "decomposition: "),
         "1x1 cells on 2 ranks accepted, or no reason: '%s'", porta_last_error_message());
  const int grid[2] = {3, 1};
  porta_error_clear();
  EXPECT(porta_decomp_for_rank(0, 2, 2, g2, grid, &d) != 0 &&
             strstr(porta_last_error_message(), "rank grid has 3 ranks, the job has 2"),
         "3x1 grid on 2 ranks: '%s'", porta_last_error_message());

  printf("%s (%d failures)\n", fails ? "FAILED" : "PASSED", fails);
  MPI_Finalize();
  return fails ? 1 : 0;
}
