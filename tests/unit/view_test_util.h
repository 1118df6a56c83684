/** @file view_test_util.h
 *  Helpers shared by the view tests (test_view_create.c, test_view_layout.c,
 *  test_view_lifetime.c, test_view_copy.c, test_view_launch.c): use counts, checks on the last
 *  error message (PT_MSG_HAS), view options, heap scribbling and a 2D fill. Each test program
 *  includes it once; the functions are static inline, so a program that uses only some of them
 *  gets no unused-function warnings.
 */
#ifndef PORTA_VIEW_TEST_UTIL_H
#define PORTA_VIEW_TEST_UTIL_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static inline int64_t uc(porta_view g) { return porta_view_use_count(&g); }

/** Options in the default execution space's memory, with a layout, flags and strides. */
static inline porta_view_options opts(porta_layout layout, uint32_t flags, const int64_t *stride) {
  porta_view_options o;
  o.space = porta_exec_memory_space(porta_exec_default());
  o.layout = layout;
  o.flags = flags;
  o.stride = stride;
  return o;
}

/** Scribble over freed heap blocks of `bytes`, so that a later allocation that is not
 *  zeroed would show non-zero values. */
static inline void dirty_heap(size_t bytes) {
  void *p[4];
  for (int k = 0; k < 4; ++k) {
    p[k] = aligned_alloc(64, (bytes + 63) / 64 * 64 + 64);
    if (p[k]) memset(p[k], 0xA5, (bytes + 63) / 64 * 64 + 64);
  }
  for (int k = 0; k < 4; ++k) free(p[k]);
}

/** A 2D f64 view with v(i, j) = 100 i + j (through the accessor of its layout). */
static inline void fill_ij(porta_view_f64 v) {
  for (int64_t i = 0; i < porta_extent(v, 0); ++i)
    for (int64_t j = 0; j < porta_extent(v, 1); ++j) PORTA_S2(v, i, j) = 100.0 * i + j;
}

#endif
