/** @file tea_h5_read.h
 *  What the TeaLeaf result-file checkers share: a failure counter with EXPECT, and readers for
 *  datasets and numeric attributes. Header-only; each checker is one program. */
#ifndef TEA_H5_READ_H
#define TEA_H5_READ_H

#include <hdf5.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int fails = 0;
#define EXPECT(c, ...)                                                                             \
  do {                                                                                             \
    if (!(c)) {                                                                                    \
      printf("FAIL %s: ", #c);                                                                     \
      printf(__VA_ARGS__);                                                                         \
      printf("\n");                                                                                \
      ++fails;                                                                                     \
    }                                                                                              \
  } while (0)

/** Read a dataset as doubles (or int64 when `as_int`); exits when it is missing. */
static void *read_ds(hid_t f, const char *path, int as_int, int *rank, hsize_t *dims) {
  hid_t d = H5Dopen2(f, path, H5P_DEFAULT);
  if (d < 0) {
    printf("FAIL: no dataset %s\n", path);
    exit(1);
  }
  hid_t s = H5Dget_space(d);
  *rank = H5Sget_simple_extent_ndims(s);
  H5Sget_simple_extent_dims(s, dims, NULL);
  hssize_t n = H5Sget_simple_extent_npoints(s);
  void *v = malloc(8 * (size_t)(n > 0 ? n : 1));
  if (!v || H5Dread(d, as_int ? H5T_NATIVE_INT64 : H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                    v) < 0) {
    printf("FAIL: cannot read %s\n", path);
    exit(1);
  }
  H5Sclose(s);
  H5Dclose(d);
  return v;
}

/** A numeric attribute of `obj` read as `type` (H5T_NATIVE_INT64 or H5T_NATIVE_DOUBLE); NAN
 *  when it is missing. */
static double attr_num(hid_t f, const char *obj, const char *name, hid_t type) {
  double d = NAN;
  int64_t i = INT64_MIN;
  hid_t a = H5Aopen_by_name(f, obj, name, H5P_DEFAULT, H5P_DEFAULT);
  if (a < 0) return NAN;
  if (type == H5T_NATIVE_INT64) {
    H5Aread(a, H5T_NATIVE_INT64, &i);
    d = (double)i;
  } else {
    H5Aread(a, H5T_NATIVE_DOUBLE, &d);
  }
  H5Aclose(a);
  return d;
}

#endif
