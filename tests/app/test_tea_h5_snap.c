/** Reads the visit_frequency snapshots of a TeaLeaf result file and its XDMF time series:
 *
 *    test_tea_h5_snap FILE.h5 FILE.xmf RANKS GX GY STEPS VISIT
 *
 *  (the run had GX x GY cells, STEPS steps and visit_frequency VISIT). Checks that
 *  /snapshots holds steps 0, VISIT, 2 VISIT, ... and the last step, each a group
 *  /snapshots/step_NNNNNN with attributes step and time and datasets u, energy, density of
 *  shape [GY][GX]; that each snapshot is its own step's state (its U = sum(vol*density*u)
 *  equals the per-step table's U of that step, density is the constant field, energy*density
 *  = u); that the last snapshot equals /fields exactly; and that FILE.xmf is a temporal
 *  collection with one grid per snapshot, at its time, reading its datasets. */
#include <hdf5.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tea_h5_read.h"

/** A 2D field of the expected shape, or exit. */
static double *read_field(hid_t f, const char *path, hsize_t gy, hsize_t gx) {
  int rank;
  hsize_t dims[2] = {0, 0};
  double *v = (double *)read_ds(f, path, 0, &rank, dims);
  if (rank != 2 || dims[0] != gy || dims[1] != gx) {
    printf("FAIL: %s has shape %d: %llu x %llu, want [%llu][%llu]\n", path, rank,
           (unsigned long long)dims[0], (unsigned long long)dims[1], (unsigned long long)gy,
           (unsigned long long)gx);
    exit(1);
  }
  return v;
}

static int count_of(const char *text, const char *what) {
  int n = 0;
  for (const char *p = strstr(text, what); p; p = strstr(p + 1, what)) ++n;
  return n;
}

int main(int argc, char **argv) {
  if (argc != 8) {
    fprintf(stderr, "usage: %s FILE.h5 FILE.xmf RANKS GX GY STEPS VISIT\n", argv[0]);
    return 2;
  }
  const char *h5path = argv[1], *xmfpath = argv[2];
  const int ranks = atoi(argv[3]), steps = atoi(argv[6]), visit = atoi(argv[7]);
  const hsize_t gx = (hsize_t)atoll(argv[4]), gy = (hsize_t)atoll(argv[5]);
  const size_t cells = (size_t)(gx * gy);
  hid_t f = H5Fopen(h5path, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) {
    printf("FAIL: cannot open %s\n", h5path);
    return 1;
  }
  EXPECT(attr_num(f, "/", "ranks", H5T_NATIVE_INT64) == ranks, "ranks attribute");

  /* the snapshot steps the deck asks for: 0, visit, 2 visit, ..., and the last step */
  int want[4096], nwant = 0;
  for (int s = 0; s <= steps && nwant < 4095; s += visit) want[nwant++] = s;
  if (want[nwant - 1] != steps) want[nwant++] = steps;

  int rank;
  hsize_t n1[1];
  int64_t *sstep = (int64_t *)read_ds(f, "/snapshots/step", 1, &rank, n1);
  double *stime = (double *)read_ds(f, "/snapshots/time", 0, &rank, n1);
  const int nsnap = (int)n1[0];
  EXPECT(nsnap == nwant, "%d snapshots, want %d", nsnap, nwant);
  EXPECT(attr_num(f, "/snapshots", "count", H5T_NATIVE_INT64) == nsnap, "/snapshots count");
  EXPECT(attr_num(f, "/snapshots", "visit_frequency", H5T_NATIVE_INT64) == visit,
         "/snapshots visit_frequency");
  for (int i = 0; i < nsnap && i < nwant; ++i)
    EXPECT(sstep[i] == want[i], "snapshot %d is step %lld, want %d", i, (long long)sstep[i],
           want[i]);

  /* per-step table: time and U of every step 0..steps */
  hsize_t nt[1];
  double *tstep = (double *)read_ds(f, "/steps/step", 0, &rank, nt);
  double *ttime = (double *)read_ds(f, "/steps/time", 0, &rank, nt);
  double *tu = (double *)read_ds(f, "/steps/u", 0, &rank, nt);
  EXPECT(nt[0] == (hsize_t)steps + 1, "/steps has %llu rows", (unsigned long long)nt[0]);
  double dx = attr_num(f, "/fields", "dx", H5T_NATIVE_DOUBLE);
  double dy = attr_num(f, "/fields", "dy", H5T_NATIVE_DOUBLE);
  double *fu = read_field(f, "/fields/u", gy, gx);
  double *fe = read_field(f, "/fields/energy", gy, gx);
  double *fd = read_field(f, "/fields/density", gy, gx);

  double *prev_u = NULL;
  for (int i = 0; i < nsnap; ++i) {
    char g[64], p[96];
    snprintf(g, sizeof g, "/snapshots/step_%06lld", (long long)sstep[i]);
    EXPECT(attr_num(f, g, "step", H5T_NATIVE_INT64) == (double)sstep[i], "%s step attribute", g);
    const int64_t s = sstep[i];
    if (s < 0 || s > steps) {
      printf("FAIL: snapshot step %lld outside 0..%d\n", (long long)s, steps);
      return 1;
    }
    EXPECT(tstep[s] == (double)s, "/steps row %lld", (long long)s);
    EXPECT(attr_num(f, g, "time", H5T_NATIVE_DOUBLE) == ttime[s] && stime[i] == ttime[s],
           "%s time %.17g / %.17g, table %.17g", g, attr_num(f, g, "time", H5T_NATIVE_DOUBLE),
           stime[i], ttime[s]);
    snprintf(p, sizeof p, "%s/u", g);
    double *u = read_field(f, p, gy, gx);
    snprintf(p, sizeof p, "%s/energy", g);
    double *e = read_field(f, p, gy, gx);
    snprintf(p, sizeof p, "%s/density", g);
    double *d = read_field(f, p, gy, gx);
    double U = 0;
    int dens_same = 1, ue = 1;
    for (size_t c = 0; c < cells; ++c) {
      U += dx * dy * d[c] * u[c];
      dens_same &= d[c] == fd[c];
      ue &= fabs(u[c] - e[c] * d[c]) <= 1e-14 * fabs(u[c]);
    }
    EXPECT(fabs(U / tu[s] - 1) < 1e-12, "%s: sum vol*density*u %.17g, table U %.17g", g, U, tu[s]);
    EXPECT(dens_same, "%s: density differs from /fields/density", g);
    EXPECT(ue, "%s: energy * density != u", g);
    if (prev_u) {
      int same = 1;
      for (size_t c = 0; c < cells; ++c) same &= u[c] == prev_u[c];
      EXPECT(!same, "%s: u is the previous snapshot's", g);
    }
    if (i == nsnap - 1) {
      EXPECT(!memcmp(u, fu, cells * sizeof *u), "last snapshot u != /fields/u");
      EXPECT(!memcmp(e, fe, cells * sizeof *e), "last snapshot energy != /fields/energy");
      EXPECT(!memcmp(d, fd, cells * sizeof *d), "last snapshot density != /fields/density");
    }
    free(prev_u);
    prev_u = u;
    free(e);
    free(d);
  }
  free(prev_u);
  free(fu);
  free(fe);
  free(fd);
  free(tstep);
  free(tu);
  H5Fclose(f);

  /* XDMF: one temporal collection, a grid per snapshot at its time reading its datasets */
  FILE *x = fopen(xmfpath, "r");
  if (!x) {
    printf("FAIL: cannot open %s\n", xmfpath);
    return 1;
  }
  static char text[1 << 20];
  size_t len = fread(text, 1, sizeof text - 1, x);
  text[len] = '\0';
  fclose(x);
  const char *base = strrchr(h5path, '/');
  base = base ? base + 1 : h5path;
  EXPECT(count_of(text, "CollectionType=\"Temporal\"") == 1, "no temporal collection in %s",
         xmfpath);
  EXPECT(count_of(text, "<Time Value=") == nsnap, "%d Time entries, want %d",
         count_of(text, "<Time Value="), nsnap);
  EXPECT(count_of(text, "GridType=\"Uniform\"") == nsnap, "grids in %s", xmfpath);
  EXPECT(count_of(text, "</Grid>") == nsnap + 1, "unbalanced Grid elements in %s", xmfpath);
  for (int i = 0; i < nsnap; ++i) {
    char want_ds[1200], want_t[64];
    for (int k = 0; k < 3; ++k) {
      const char *name[3] = {"u", "energy", "density"};
      snprintf(want_ds, sizeof want_ds, ">%s:/snapshots/step_%06lld/%s<", base, (long long)sstep[i],
               name[k]);
      EXPECT(strstr(text, want_ds), "%s does not read %s", xmfpath, want_ds);
    }
    snprintf(want_t, sizeof want_t, "<Time Value=\"%.17g\"/>", stime[i]);
    EXPECT(strstr(text, want_t), "%s has no %s", xmfpath, want_t);
  }
  free(sstep);
  free(stime);
  free(ttime);
  printf("%d snapshots checked\n", nsnap);
  printf("%s (%d failures)\n", fails ? "FAILED" : "PASSED", fails);
  return fails ? 1 : 0;
}
