/** Reads a tealeaf.h5 written from tea_bm_1.in (10 x 10 cells, 10 steps) and checks shapes,
 *  values, global ordering and attributes.   test_tea_h5 FILE.h5 RANKS */
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tea_h5_read.h"

static void attr_string(hid_t f, const char *name, char *buf, size_t len) {
  hid_t a = H5Aopen_by_name(f, "/", name, H5P_DEFAULT, H5P_DEFAULT);
  buf[0] = '\0';
  if (a < 0) return;
  hid_t t = H5Aget_type(a);
  size_t n = H5Tget_size(t);
  char *tmp = (char *)calloc(n + 1, 1);
  H5Aread(a, t, tmp);
  snprintf(buf, len, "%s", tmp);
  free(tmp);
  H5Tclose(t);
  H5Aclose(a);
}

int main(int argc, char **argv) {
  if (argc < 3) return 2;
  hid_t f = H5Fopen(argv[1], H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) {
    printf("FAIL: cannot open %s\n", argv[1]);
    return 1;
  }
  int rank;
  hsize_t dims[2];
  double *u = (double *)read_ds(f, "/fields/u", 0, &rank, dims);
  EXPECT(rank == 2 && dims[0] == 10 && dims[1] == 10, "u shape %d: %llu x %llu", rank,
         (unsigned long long)dims[0], (unsigned long long)dims[1]);
  double *den = (double *)read_ds(f, "/fields/density", 0, &rank, dims);
  EXPECT(rank == 2 && dims[0] == 10 && dims[1] == 10, "density shape");
  double *en = (double *)read_ds(f, "/fields/energy", 0, &rank, dims);
  EXPECT(rank == 2 && dims[0] == 10 && dims[1] == 10, "energy shape");
  hsize_t sd[2];
  double *su = (double *)read_ds(f, "/steps/u", 0, &rank, sd);
  EXPECT(rank == 1 && sd[0] == 11, "steps/u has %llu rows (want 11: step 0..10)",
         (unsigned long long)sd[0]);
  double *smass = (double *)read_ds(f, "/steps/mass", 0, &rank, sd);
  double *sstep = (double *)read_ds(f, "/steps/step", 0, &rank, sd);
  double *sit = (double *)read_ds(f, "/steps/iterations", 0, &rank, sd);
  EXPECT(sstep[10] == 10 && sit[1] == 10 && sit[10] == 10, "step/iterations columns");
  /* the reference's answer */
  EXPECT(fabs(su[10] / 157.55084183279294 - 1) < 1e-10, "final U %.17g", su[10]);
  EXPECT(fabs(su[0] - 84.265) < 1e-9, "initial U %.17g", su[0]);
  /* global ordering, dataset [y][x]: cell (x 0, y 1) is state 2, (x 5..9, y 7) state 5 */
  EXPECT(den[0 * 10 + 0] == 100.0, "density(x0,y0) %g", den[0]);
  EXPECT(den[1 * 10 + 0] == 0.1, "density(x0,y1) %g", den[10]);
  EXPECT(den[7 * 10 + 9] == 0.1 && den[8 * 10 + 9] == 100.0, "density(x9,y7/8)");
  EXPECT(den[5 * 10 + 5] == 0.1 && den[5 * 10 + 4] == 100.0, "density(x5/x4,y5)");
  /* the fields agree with the per-step table */
  double dx = attr_num(f, "/fields", "dx", H5T_NATIVE_DOUBLE),
         dy = attr_num(f, "/fields", "dy", H5T_NATIVE_DOUBLE);
  double U = 0, M = 0, E = 0;
  for (int i = 0; i < 100; ++i) {
    U += dx * dy * den[i] * u[i];
    M += dx * dy * den[i];
    E += dx * dy * den[i] * en[i];
  }
  EXPECT(fabs(U / su[10] - 1) < 1e-12, "sum vol*density*u %.17g vs table %.17g", U, su[10]);
  EXPECT(fabs(M / smass[10] - 1) < 1e-12, "mass %.17g vs %.17g", M, smass[10]);
  EXPECT(fabs(E - 3.49) < 1e-9, "energy %.17g", E);
  char s[4096];
  attr_string(f, "verdict", s, sizeof s);
  EXPECT(!strcmp(s, "PASSED"), "verdict '%s'", s);
  attr_string(f, "application", s, sizeof s);
  EXPECT(!strcmp(s, "tealeaf"), "application '%s'", s);
  attr_string(f, "deck", s, sizeof s);
  EXPECT(strstr(s, "*tea") && strstr(s, "tl_use_cg"), "deck attribute");
  attr_string(f, "solver", s, sizeof s);
  EXPECT(!strcmp(s, "cg"), "solver '%s'", s);
  attr_string(f, "backend", s, sizeof s);
  EXPECT(s[0], "backend empty");
  int64_t ranks = 0;
  hid_t a = H5Aopen_by_name(f, "/", "ranks", H5P_DEFAULT, H5P_DEFAULT);
  H5Aread(a, H5T_NATIVE_INT64, &ranks);
  H5Aclose(a);
  EXPECT(ranks == atoi(argv[2]), "ranks %lld", (long long)ranks);
  EXPECT(attr_num(f, "/timings", "wall_seconds", H5T_NATIVE_DOUBLE) > 0, "timings");
  free(u);
  free(den);
  free(en);
  free(su);
  free(smass);
  free(sstep);
  free(sit);
  H5Fclose(f);
  printf("%s (%d failures)\n", fails ? "FAILED" : "PASSED", fails);
  return fails ? 1 : 0;
}
