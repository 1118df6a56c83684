/** @file test_app_field.c
 *  Fields with ghost layers (app_field2d_create) in the default back end's memory and layout:
 *  for halos 0 to 33 and extents that are and are not multiples of the alignment, the first
 *  interior element of every line sits on an APP_FIELD_ALIGN_BYTES boundary, the extents are
 *  the ones asked for, lines are padded to whole aligned blocks, and every value is zero; too
 *  many ghost layers for the extents are refused with a message naming the field.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "app_common.h"
#include "app_field.h"

#include "app_expect.h"

static void check_field(int64_t e0, int64_t e1, int64_t halo) {
  porta_view_f64 v;
  int rc = app_field2d_create(&v, "test_field", e0, e1, halo);
  EXPECT(rc == PORTA_SUCCESS, "%lld x %lld halo %lld: %s", (long long)e0, (long long)e1,
         (long long)halo, porta_last_error_message());
  if (rc != PORTA_SUCCESS) return;
  const int c = v.m.layout == PORTA_LAYOUT_LEFT ? 0 : 1; /* the contiguous dimension */
  const int64_t align = APP_FIELD_ALIGN_BYTES / (int64_t)sizeof(double);
  EXPECT(porta_extent(v, 0) == e0 && porta_extent(v, 1) == e1, "extents %lld x %lld",
         (long long)porta_extent(v, 0), (long long)porta_extent(v, 1));
  const int one_line = (c ? e0 : e1) == 1; /* nothing to stride over */
  EXPECT(one_line || (v.m.stride[c] == 1 && v.m.stride[1 - c] % align == 0 &&
                      v.m.stride[1 - c] >= (c ? e1 : e0)),
         "strides %lld, %lld (contiguous dimension %d)", (long long)v.m.stride[0],
         (long long)v.m.stride[1], c);
  int64_t misaligned = 0;
  const int64_t lines = c ? e0 : e1;
  for (int64_t l = 0; l < lines; ++l) {
    const double *first = v.data + l * v.m.stride[1 - c] + halo;
    misaligned += (uintptr_t)first % APP_FIELD_ALIGN_BYTES != 0;
  }
  EXPECT(misaligned == 0,
         "%lld x %lld halo %lld: %lld of %lld lines' first interior elements "
         "are not on a %d-byte boundary",
         (long long)e0, (long long)e1, (long long)halo, (long long)misaligned, (long long)lines,
         APP_FIELD_ALIGN_BYTES);
  porta_mirror_f64 m;
  EXPECT(porta_view_f64_create_mirror(&m, &v) == PORTA_SUCCESS && porta_deep_copy(m, v) == 0,
         "mirror: %s", porta_last_error_message());
  int64_t nonzero = 0;
  for (int64_t i = 0; i < e0; ++i)
    for (int64_t j = 0; j < e1; ++j) nonzero += PORTA_S2(m, i, j) != 0.0;
  EXPECT(nonzero == 0, "%lld x %lld halo %lld: %lld values not zero", (long long)e0, (long long)e1,
         (long long)halo, (long long)nonzero);
  porta_mirror_f64_release(&m);
  porta_view_f64_release(&v);
}

int main(int argc, char **argv) {
  app_mpi_init(&argc, &argv, "test_app_field");
  APP_CHECK(porta_initialize(&argc, &argv));
  porta_set_error_mode(PORTA_ERROR_MODE_RETURN, NULL, NULL);
  const int64_t halos[] = {0, 1, 2, 3, 5, 31, 32, 33};
  for (size_t h = 0; h < sizeof halos / sizeof halos[0]; ++h) {
    const int64_t g = 2 * halos[h];
    check_field(g + 1, g + 1, halos[h]);
    check_field(g + 10, g + 7, halos[h]);
    check_field(g + 64, g + 32, halos[h]);
    check_field(g + 1000, g + 501, halos[h]);
  }
  porta_view_f64 v;
  int rc = app_field2d_create(&v, "too_thin", 5, 100, 3);
  EXPECT(rc == PORTA_ERROR_INVALID_ARGUMENT && strstr(porta_last_error_message(), "too_thin"),
         "5 x 100 with 3 ghost layers: rc %d: %s", rc, porta_last_error_message());
  printf("app_field2d_create in %s memory: %s\n",
         porta_memory_space_name(porta_default_memory_space()), fails ? "FAILED" : "PASSED");
  app_mpi_finalize();
  return fails ? 1 : 0;
}
