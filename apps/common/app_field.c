/** @file app_field.c
 *  Aligned fields with ghost layers (see app_field.h). */
#include "app_field.h"

/* the allocation's start is the boundary the lead padding counts from */
typedef char
    app_field_align_divides_alloc_align[PORTA_ALLOC_ALIGN_BYTES % APP_FIELD_ALIGN_BYTES == 0 ? 1
                                                                                             : -1];

int app_field2d_create(porta_view_f64 *v, const char *label, int64_t e0, int64_t e1, int64_t halo) {
  if (e0 < 0 || e1 < 0 || halo < 0 || 2 * halo > e0 || 2 * halo > e1)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "app_field2d_create", label,
                       "extents %lld x %lld cannot hold %lld ghost layers on each side",
                       (long long)e0, (long long)e1, (long long)halo);
  porta_view_options opt;
  opt.space = porta_default_memory_space();
  opt.layout = porta_memory_space_default_layout(opt.space);
  opt.flags = 0;
  opt.stride = NULL;
  const int c = opt.layout == PORTA_LAYOUT_LEFT ? 0 : 1; /* the contiguous dimension */
  const int64_t a = APP_FIELD_ALIGN_BYTES / (int64_t)sizeof(double);
  const int64_t lead = (a - halo % a) % a; /* elements before index 0 of each line */
  int64_t ext[2] = {e0, e1}, padded[2] = {e0, e1};
  padded[c] = (ext[c] + lead + a - 1) / a * a;
  porta_view_f64 base;
  PORTA_CHECK(porta_view_f64_create(&base, label, 2, padded, &opt));
  porta_slice s[2];
  s[c] = porta_slice_range(lead, lead + ext[c]);
  s[1 - c] = porta_slice_all();
  int rc = porta_view_f64_subview(v, &base, s);
  porta_view_f64_release(&base);
  return rc;
}
