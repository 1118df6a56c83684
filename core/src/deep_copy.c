/** @file deep_copy.c
 *  deep_copy and fill. A copy never converts layouts behind the caller's back:
 *  views must agree in type, rank, extents and (for rank >= 2) layout.
 *  Fence rule: deep_copy fences every instance first and is complete on return;
 *  deep_copy_async is ordered on its instance (host instances complete at once). */
#include <string.h>

#include "profiling_private.h"
#include "runtime_private.h"

static const char *layout_name(int layout) {
  switch (layout) {
  case PORTA_LAYOUT_RIGHT: return "Right";
  case PORTA_LAYOUT_LEFT: return "Left";
  case PORTA_LAYOUT_STRIDE: return "Stride";
  default: return "Default";
  }
}

static int incompatible(const porta_view *dst, const porta_view *src, const char *fmt, long long a,
                        long long b) {
  char reason[256];
  snprintf(reason, sizeof reason, fmt, a, b);
  return porta_error(PORTA_ERROR_INCOMPATIBLE, "porta_deep_copy", dst->m.label,
                     "cannot copy from '%s': %s", src->m.label, reason);
}

static int check_compatible(const porta_view *dst, const porta_view *src) {
  if (dst->m.traits & PORTA_VIEW_CONST)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "porta_deep_copy", dst->m.label,
                       "the destination is a const view");
  if (dst->m.value_size != src->m.value_size ||
      (dst->m.type != src->m.type && dst->m.type != PORTA_TYPE_USER &&
       src->m.type != PORTA_TYPE_USER))
    return incompatible(dst, src, "value types differ (type %lld vs %lld)", dst->m.type,
                        src->m.type);
  if (dst->m.rank != src->m.rank)
    return incompatible(dst, src, "ranks differ (%lld vs %lld)", dst->m.rank, src->m.rank);
  for (int r = 0; r < dst->m.rank; ++r)
    if (dst->m.extent[r] != src->m.extent[r]) {
      char fmt[96];
      snprintf(fmt, sizeof fmt, "extent %d differs (%%lld vs %%lld)", r);
      return incompatible(dst, src, fmt, (long long)dst->m.extent[r], (long long)src->m.extent[r]);
    }
  if (dst->m.rank >= 2 && dst->m.layout != src->m.layout) {
    char reason[160];
    snprintf(reason, sizeof reason,
             "layouts differ (%s vs %s); Porta does not convert layouts in deep_copy: create "
             "the destination with the source's layout, or copy with a kernel",
             layout_name(dst->m.layout), layout_name(src->m.layout));
    return porta_error(PORTA_ERROR_INCOMPATIBLE, "porta_deep_copy", dst->m.label,
                       "cannot copy from '%s': %s", src->m.label, reason);
  }
  return PORTA_SUCCESS;
}

/** The copy itself, no fence. */
static int copy_now(porta_view dst, porta_view src) {
  PORTA_CHECK(check_compatible(&dst, &src));
  int64_t n = porta_view_meta_size(&dst.m);
  if (n == 0 || dst.data == src.data) return PORTA_SUCCESS;
  size_t bytes = (size_t)n * dst.m.value_size;
  uint64_t prof = porta_profiling_active_;
  if (PORTA_UNLIKELY(prof))
    porta_profile_begin_deep_copy_(dst.m.space, dst.m.label, dst.data, src.m.space, src.m.label,
                                   src.data, (uint64_t)bytes);
  int rc = PORTA_SUCCESS;
  int same_strides = 1;
  for (int r = 0; r < dst.m.rank; ++r)
    if (dst.m.extent[r] > 1 && dst.m.stride[r] != src.m.stride[r]) same_strides = 0;
  if (porta_view_meta_contiguous(&dst.m) && porta_view_meta_contiguous(&src.m) && same_strides) {
    rc = porta_space_copy_(dst.data, (porta_memory_space)dst.m.space, src.data,
                           (porta_memory_space)src.m.space, bytes);
  } else { /* element by element; device sides staged through host copies of their spans */
    rc = porta_view_copy_overlap_staged_(dst, src, "porta_deep_copy");
  }
  if (PORTA_UNLIKELY(prof)) porta_profile_end_deep_copy_();
  return rc;
}

int porta_view_deep_copy(porta_view dst, porta_view src) {
  if (PORTA_UNLIKELY(porta_state_.recording != NULL))
    return porta_refuse_in_loop_("porta_deep_copy", dst.m.label);
  if (!porta_state_.initialized)
    return porta_error(PORTA_ERROR_NOT_INITIALIZED, "porta_deep_copy", dst.m.label,
                       "porta_initialize has not been called");
  PORTA_CHECK(porta_fence("porta_deep_copy: fence before copy"));
  return copy_now(dst, src);
}

int porta_view_deep_copy_async(porta_exec exec, porta_view dst, porta_view src) {
  if (PORTA_UNLIKELY(porta_state_.recording != NULL))
    return porta_refuse_in_loop_("porta_deep_copy_async", dst.m.label);
  /* On a back end with instances of its own, a contiguous copy is queued on the instance;
     anything else (and everything on the host back ends) runs in order at once. */
  const porta_backend_ops *ops = porta_backend_ops_of_(exec.backend);
  if (ops && ops->copy_async && porta_backend_available(exec.backend)) {
    PORTA_CHECK(check_compatible(&dst, &src));
    int64_t n = porta_view_meta_size(&dst.m);
    if (n > 0 && porta_view_meta_contiguous(&dst.m) && porta_view_meta_contiguous(&src.m) &&
        dst.m.layout == src.m.layout)
      return ops->copy_async(dst.data, src.data, (size_t)n * dst.m.value_size, exec.instance);
  }
  return copy_now(dst, src);
}

static int all_zero_bytes(const void *value, size_t n) {
  const unsigned char *b = (const unsigned char *)value;
  for (size_t i = 0; i < n; ++i)
    if (b[i]) return 0;
  return 1;
}

int porta_view_fill(porta_view dst, const void *value) {
  if (PORTA_UNLIKELY(porta_state_.recording != NULL))
    return porta_refuse_in_loop_("porta_view_fill", dst.m.label);
  if (dst.m.traits & PORTA_VIEW_CONST)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "porta_view_fill", dst.m.label,
                       "the destination is a const view");
  if (!porta_memory_space_host_accessible((porta_memory_space)dst.m.space)) {
    if (porta_view_meta_contiguous(&dst.m) && all_zero_bytes(value, dst.m.value_size)) {
      /* Zero (the common fill) in place: the space's memset. Filling a host copy and staging
         it over cost 50 ms per 64 MB vector on an H100 node (a host allocation, its page
         faults and a pageable copy). */
      const int64_t bytes = porta_view_meta_span_bytes(&dst.m);
      return bytes > 0 ? porta_space_zero_((porta_memory_space)dst.m.space, dst.data, (size_t)bytes)
                       : PORTA_SUCCESS;
    }
    /* Device memory: fill a host copy of the span and copy it over (gaps included). */
    if (!porta_view_meta_contiguous(&dst.m))
      return porta_error(PORTA_ERROR_UNSUPPORTED, "porta_view_fill", dst.m.label,
                         "fill of non-contiguous %s memory",
                         porta_memory_space_name((porta_memory_space)dst.m.space));
    porta_view host;
    porta_view_options opt;
    opt.space = PORTA_HOST_SPACE;
    opt.layout = (porta_layout)dst.m.layout;
    opt.flags = PORTA_VIEW_UNINITIALIZED;
    opt.stride = NULL;
    PORTA_CHECK(porta_view_create(&host, dst.m.label, (porta_type)dst.m.type, dst.m.value_size,
                                  dst.m.rank, dst.m.extent, &opt));
    int rc = porta_view_fill(host, value);
    if (rc == PORTA_SUCCESS) rc = porta_view_deep_copy(dst, host);
    porta_view_release(&host);
    return rc;
  }
  int64_t n = porta_view_meta_size(&dst.m);
  size_t vs = dst.m.value_size;
  if (porta_view_meta_contiguous(&dst.m)) {
    char *p = (char *)dst.data;
    for (int64_t k = 0; k < n; ++k) memcpy(p + (size_t)k * vs, value, vs);
    return PORTA_SUCCESS;
  }
  porta_view one = dst;
  one.data = (void *)value;
  for (int r = 0; r < PORTA_MAX_RANK; ++r) one.m.stride[r] = 0;
  porta_view_copy_overlap_(dst, one);
  return PORTA_SUCCESS;
}
