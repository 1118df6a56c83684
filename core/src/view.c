/** @file view.c
 *  View allocation, reference counting, wrapping, subviews, resize and mirrors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profiling_private.h"
#include "runtime_private.h"

/** Shared by a managed view and every copy, subview and retained handle of it. */
struct porta_view_record {
  int64_t count;
  porta_memory_space space;
  void *base;
  size_t bytes;
  char label[128];
};

static void set_label(porta_view_meta *m, const char *label) {
  snprintf(m->label, sizeof m->label, "%s", label ? label : "");
}

int64_t porta_view_meta_size(const porta_view_meta *m) {
  int64_t n = 1;
  for (int r = 0; r < m->rank; ++r) n *= m->extent[r];
  return n;
}

int64_t porta_view_meta_span_bytes(const porta_view_meta *m) {
  if (porta_view_meta_size(m) == 0) return 0;
  int64_t last = 0;
  for (int r = 0; r < m->rank; ++r) last += (m->extent[r] - 1) * m->stride[r];
  return (last + 1) * (int64_t)m->value_size;
}

int porta_view_meta_contiguous(const porta_view_meta *m) {
  int64_t n = porta_view_meta_size(m);
  return n == 0 || porta_view_meta_span_bytes(m) == n * (int64_t)m->value_size;
}

/** Non-zero if the bytes spanned by `m` (extents, strides, value size) do not fit in int64_t:
 *  padding and explicit strides can overflow where the element count alone does not. */
static int span_overflows(const porta_view_meta *m) {
  int64_t last = 0, t;
  for (int r = 0; r < m->rank; ++r)
    if (m->extent[r] == 0) return 0;
  for (int r = 0; r < m->rank; ++r)
    if (__builtin_mul_overflow(m->extent[r] - 1, m->stride[r], &t) ||
        __builtin_add_overflow(last, t, &last))
      return 1;
  return __builtin_add_overflow(last, 1, &last) ||
         __builtin_mul_overflow(last, (int64_t)m->value_size, &t);
}

/** Fill extents and strides for `layout`; `pad` rounds the contiguous extent's stride. */
static int shape(porta_view_meta *m, const char *op, const char *label, int rank,
                 const int64_t *extents, porta_layout layout, int pad, const int64_t *strides) {
  if (rank < 0 || rank > PORTA_MAX_RANK)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, label, "rank %d is outside 0..%d", rank,
                       PORTA_MAX_RANK);
  if (rank > 0 && !extents)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, label, "no extents for rank %d", rank);
  int64_t total = 1;
  for (int r = 0; r < PORTA_MAX_RANK; ++r) {
    m->extent[r] = 1;
    m->stride[r] = 0;
  }
  for (int r = 0; r < rank; ++r) {
    if (extents[r] < 0)
      return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, label, "extent %d is negative (%lld)", r,
                         (long long)extents[r]);
    if (extents[r] > 0 && total > INT64_MAX / 2 / extents[r] / (int64_t)m->value_size)
      return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, label,
                         "extents overflow a 64-bit byte count");
    m->extent[r] = extents[r];
    total *= extents[r];
  }
  m->rank = rank;
  m->layout = layout;
  if (layout == PORTA_LAYOUT_STRIDE) {
    if (rank > 0 && !strides)
      return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, label, "layout Stride needs strides");
    for (int r = 0; r < rank; ++r) {
      if (strides[r] < 0)
        return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, label, "stride %d is negative", r);
      m->stride[r] = strides[r];
    }
    if (span_overflows(m))
      return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, label,
                         "extents and strides overflow a 64-bit byte count");
    return PORTA_SUCCESS;
  }
  int64_t align = pad && rank >= 2 ? (64 + (int64_t)m->value_size - 1) / (int64_t)m->value_size : 1;
  int64_t s = 1;
  int overflow = 0;
  if (layout == PORTA_LAYOUT_RIGHT) {
    for (int r = rank - 1; r >= 0; --r) {
      m->stride[r] = s;
      int64_t e = m->extent[r];
      if (r == rank - 1 && align > 1) e = (e + align - 1) / align * align;
      overflow |= __builtin_mul_overflow(s, e, &s);
    }
  } else {
    for (int r = 0; r < rank; ++r) {
      m->stride[r] = s;
      int64_t e = m->extent[r];
      if (r == 0 && align > 1) e = (e + align - 1) / align * align;
      overflow |= __builtin_mul_overflow(s, e, &s);
    }
  }
  if (overflow || span_overflows(m))
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, label,
                       "extents with padding overflow a 64-bit byte count");
  return PORTA_SUCCESS;
}

porta_layout porta_memory_space_default_layout(porta_memory_space space) {
  const porta_space_info *info = porta_space_info_(space);
  return info ? info->default_layout : PORTA_LAYOUT_RIGHT;
}

int porta_view_create(porta_view *v, const char *label, porta_type type, size_t value_size,
                      int rank, const int64_t *extents, const porta_view_options *opt) {
  const char *op = "porta_view_create";
  memset(v, 0, sizeof *v);
  set_label(&v->m, label);
  if (!porta_state_.initialized)
    return porta_error(PORTA_ERROR_NOT_INITIALIZED, op, label,
                       "porta_initialize has not been called");
  if (value_size == 0 || value_size > UINT32_MAX)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, label, "value size %zu", value_size);
  /* Like Kokkos, views live by default where the default execution space runs. */
  porta_memory_space space = opt ? opt->space : porta_default_memory_space();
  porta_layout layout = opt && opt->layout != PORTA_LAYOUT_DEFAULT
                            ? opt->layout
                            : porta_memory_space_default_layout(space);
  uint32_t flags = opt ? opt->flags : 0;
  if (flags & ~(uint32_t)PORTA_VIEW_FLAGS_KNOWN_)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, label, "unknown flag bits 0x%x",
                       (unsigned)(flags & ~(uint32_t)PORTA_VIEW_FLAGS_KNOWN_));
  v->m.type = type;
  v->m.value_size = (uint32_t)value_size;
  v->m.space = space;
  v->m.traits = flags & ~(uint32_t)(PORTA_VIEW_UNINITIALIZED | PORTA_VIEW_UNMANAGED);
  int rc = shape(&v->m, op, label, rank, extents, layout, (flags & PORTA_VIEW_PADDED) != 0,
                 opt ? opt->stride : NULL);
  if (rc) return rc;
  size_t bytes = (size_t)porta_view_meta_span_bytes(&v->m);
  struct porta_view_record *rec = (struct porta_view_record *)calloc(1, sizeof *rec);
  if (!rec) return porta_error(PORTA_ERROR_OUT_OF_MEMORY, op, label, "no memory for the record");
  rc = porta_space_alloc_(space, bytes, label, &rec->base);
  if (rc) {
    free(rec);
    return rc;
  }
  if (!(flags & PORTA_VIEW_UNINITIALIZED) && bytes) {
    rc = porta_space_zero_(space, rec->base, bytes);
    if (rc) {
      porta_space_free_(space, rec->base);
      free(rec);
      return rc;
    }
  }
  rec->count = 1;
  rec->space = space;
  rec->bytes = bytes;
  snprintf(rec->label, sizeof rec->label, "%s", label ? label : "");
  v->data = rec->base;
  v->m.record = rec;
  if (flags & PORTA_VIEW_UNINITIALIZED) v->m.traits |= PORTA_VIEW_UNINITIALIZED;
  return PORTA_SUCCESS;
}

int porta_view_wrap(porta_view *v, void *ptr, const char *label, porta_type type, size_t value_size,
                    int rank, const int64_t *extents, const porta_view_options *opt) {
  const char *op = "porta_view_wrap";
  memset(v, 0, sizeof *v);
  set_label(&v->m, label);
  if (value_size == 0 || value_size > UINT32_MAX)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, label, "value size %zu", value_size);
  porta_memory_space space = opt ? opt->space : PORTA_HOST_SPACE;
  porta_layout layout = opt && opt->layout != PORTA_LAYOUT_DEFAULT
                            ? opt->layout
                            : porta_memory_space_default_layout(space);
  v->m.type = type;
  v->m.value_size = (uint32_t)value_size;
  v->m.space = space;
  if (opt && (opt->flags & ~(uint32_t)PORTA_VIEW_FLAGS_KNOWN_))
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, label, "unknown flag bits 0x%x",
                       (unsigned)(opt->flags & ~(uint32_t)PORTA_VIEW_FLAGS_KNOWN_));
  v->m.traits = (opt ? opt->flags : 0) | PORTA_VIEW_UNMANAGED;
  PORTA_CHECK(shape(&v->m, op, label, rank, extents, layout, 0, opt ? opt->stride : NULL));
  if (!ptr && porta_view_meta_size(&v->m) > 0)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, label, "NULL pointer for %lld elements",
                       (long long)porta_view_meta_size(&v->m));
  v->data = ptr;
  return PORTA_SUCCESS;
}

void porta_view_retain(const porta_view *v) {
  if (v->m.record) __atomic_add_fetch(&v->m.record->count, 1, __ATOMIC_RELAXED);
}

int64_t porta_view_use_count(const porta_view *v) {
  return v->m.record ? __atomic_load_n(&v->m.record->count, __ATOMIC_RELAXED) : 0;
}

void porta_view_release(porta_view *v) {
  struct porta_view_record *rec = v->m.record;
  if (rec && __atomic_sub_fetch(&rec->count, 1, __ATOMIC_ACQ_REL) == 0) {
    if (PORTA_UNLIKELY(porta_profiling_active_))
      porta_profile_deallocate_((int)rec->space, rec->label, rec->base, (uint64_t)rec->bytes);
    porta_space_free_(rec->space, rec->base);
    free(rec);
  }
  memset(v, 0, sizeof *v);
}

int porta_view_subview(porta_view *out, const porta_view *src, const porta_slice *slices) {
  const char *op = "porta_view_subview";
  porta_view s = *src;
  int rank = 0, contiguous_right = 1, contiguous_left = 1, rc;
  int64_t ext[PORTA_MAX_RANK], str[PORTA_MAX_RANK];
  char *base = (char *)s.data;
  if (!slices && s.m.rank > 0) {
    rc = porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, s.m.label, "no slices");
    goto fail;
  }
  for (int r = 0; r < s.m.rank; ++r) {
    porta_slice sl = slices[r];
    int64_t b = sl.kind == PORTA_SLICE_ALL ? 0 : sl.begin;
    int64_t e = sl.kind == PORTA_SLICE_ALL ? s.m.extent[r] : sl.end;
    if (b < 0 || e < b || e > s.m.extent[r] || (sl.kind == PORTA_SLICE_INDEX && b >= e)) {
      rc = porta_error(PORTA_ERROR_BOUNDS, op, s.m.label,
                       "slice %d [%lld, %lld) is outside the extent %lld", r, (long long)b,
                       (long long)e, (long long)s.m.extent[r]);
      goto fail;
    }
    if (s.m.extent[r] > 0) base += b * s.m.stride[r] * (int64_t)s.m.value_size;
    if (sl.kind == PORTA_SLICE_INDEX) continue;
    ext[rank] = e - b;
    str[rank] = s.m.stride[r];
    ++rank;
  }
  porta_view_meta m = s.m;
  for (int r = 0; r < PORTA_MAX_RANK; ++r) {
    m.extent[r] = r < rank ? ext[r] : 1;
    m.stride[r] = r < rank ? str[r] : 0;
  }
  m.rank = rank;
  /* Keep Left/Right only when the subview is still that layout with unit inner stride. */
  for (int r = 0; r < rank; ++r) {
    int64_t right_expect = 1, left_expect = 1;
    for (int q = r + 1; q < rank; ++q) right_expect *= m.extent[q];
    for (int q = 0; q < r; ++q) left_expect *= m.extent[q];
    if (m.extent[r] > 1 && m.stride[r] != right_expect) contiguous_right = 0;
    if (m.extent[r] > 1 && m.stride[r] != left_expect) contiguous_left = 0;
  }
  if (rank == 0)
    m.layout = s.m.layout;
  else if (s.m.layout == PORTA_LAYOUT_RIGHT && contiguous_right)
    m.layout = PORTA_LAYOUT_RIGHT;
  else if (s.m.layout == PORTA_LAYOUT_LEFT && contiguous_left)
    m.layout = PORTA_LAYOUT_LEFT;
  else if (rank == 1 && m.stride[0] == 1)
    m.layout = s.m.layout;
  else if (rank >= 2 && s.m.layout == PORTA_LAYOUT_RIGHT && m.stride[rank - 1] == 1) {
    m.layout = PORTA_LAYOUT_RIGHT; /* padded rows: still row-major with unit inner stride */
    for (int r = 0; r + 1 < rank; ++r)
      if (m.stride[r] < m.stride[r + 1] * m.extent[r + 1]) m.layout = PORTA_LAYOUT_STRIDE;
  } else if (rank >= 2 && s.m.layout == PORTA_LAYOUT_LEFT && m.stride[0] == 1) {
    m.layout = PORTA_LAYOUT_LEFT;
    for (int r = 1; r < rank; ++r)
      if (m.stride[r] < m.stride[r - 1] * m.extent[r - 1]) m.layout = PORTA_LAYOUT_STRIDE;
  } else
    m.layout = PORTA_LAYOUT_STRIDE;
  /* Unit-extent dimensions have no meaningful stride; give them a consistent one. */
  for (int r = 0; r < rank; ++r)
    if (m.extent[r] == 1 && m.layout != PORTA_LAYOUT_STRIDE) {
      int64_t st = 1;
      if (m.layout == PORTA_LAYOUT_RIGHT)
        st = r + 1 < rank ? m.stride[r + 1] * m.extent[r + 1] : 1;
      else
        st = r > 0 ? m.stride[r - 1] * m.extent[r - 1] : 1;
      m.stride[r] = st;
    }
  out->data = base;
  out->m = m;
  porta_view_retain(out);
  return PORTA_SUCCESS;
fail:
  /* A failed subview is an empty handle (safe to release), unless it was asked in place. */
  if (out != src) memset(out, 0, sizeof *out);
  return rc;
}

void porta_view_copy_overlap_(porta_view dst, porta_view src) {
  int rank = dst.m.rank;
  int64_t ext[PORTA_MAX_RANK], idx[PORTA_MAX_RANK] = {0}, n = 1;
  size_t vs = dst.m.value_size;
  for (int r = 0; r < rank; ++r) {
    ext[r] = dst.m.extent[r] < src.m.extent[r] ? dst.m.extent[r] : src.m.extent[r];
    n *= ext[r];
  }
  for (int64_t k = 0; k < n; ++k) {
    int64_t od = 0, os = 0;
    for (int r = 0; r < rank; ++r) {
      od += idx[r] * dst.m.stride[r];
      os += idx[r] * src.m.stride[r];
    }
    memcpy((char *)dst.data + od * (int64_t)vs, (const char *)src.data + os * (int64_t)vs, vs);
    for (int r = rank - 1; r >= 0; --r) {
      if (++idx[r] < ext[r]) break;
      idx[r] = 0;
    }
  }
}

/** A host-readable stand-in for `v`: v itself when the host can reach its memory, else a host
 *  copy of its span (gaps included, one contiguous copy) in *buf, which the caller frees. */
static int host_shadow(porta_view v, porta_view *out, void **buf, const char *op) {
  *buf = NULL;
  *out = v;
  const porta_memory_space space = (porta_memory_space)v.m.space;
  if (porta_memory_space_host_accessible(space)) return PORTA_SUCCESS;
  const size_t span = (size_t)porta_view_meta_span_bytes(&v.m);
  *buf = malloc(span ? span : 1);
  if (!*buf)
    return porta_error(PORTA_ERROR_OUT_OF_MEMORY, op, v.m.label,
                       "no host memory to stage %zu bytes of %s memory", span,
                       porta_memory_space_name(space));
  const int rc = porta_space_copy_(*buf, PORTA_HOST_SPACE, v.data, space, span);
  if (rc != PORTA_SUCCESS) {
    free(*buf);
    *buf = NULL;
    return rc;
  }
  out->data = *buf;
  out->m.space = PORTA_HOST_SPACE;
  return PORTA_SUCCESS;
}

int porta_view_copy_overlap_staged_(porta_view dst, porta_view src, const char *op) {
  porta_view hd, hs;
  void *bd, *bs;
  PORTA_CHECK(host_shadow(src, &hs, &bs, op));
  int rc = host_shadow(dst, &hd, &bd, op);
  if (rc == PORTA_SUCCESS) {
    porta_view_copy_overlap_(hd, hs);
    if (bd)
      rc = porta_space_copy_(dst.data, (porta_memory_space)dst.m.space, bd, PORTA_HOST_SPACE,
                             (size_t)porta_view_meta_span_bytes(&dst.m));
  }
  free(bd);
  free(bs);
  return rc;
}

static int reshape(porta_view *v, int rank, const int64_t *extents, int keep, const char *op) {
  if (v->m.traits & PORTA_VIEW_UNMANAGED)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, v->m.label,
                       "an unmanaged view cannot be resized");
  if (v->m.layout == PORTA_LAYOUT_STRIDE)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, v->m.label,
                       "a Stride-layout view cannot be resized");
  if (keep && v->data && rank != v->m.rank)
    return porta_error(PORTA_ERROR_INCOMPATIBLE, op, v->m.label,
                       "resize keeps the rank (%d), asked for %d", v->m.rank, rank);
  porta_view_options opt;
  opt.space = (porta_memory_space)v->m.space;
  opt.layout = (porta_layout)v->m.layout;
  opt.flags = v->m.traits & (PORTA_VIEW_UNINITIALIZED | PORTA_VIEW_PADDED | PORTA_VIEW_CONST);
  opt.stride = NULL;
  porta_view fresh;
  PORTA_CHECK(porta_view_create(&fresh, v->m.label, (porta_type)v->m.type, v->m.value_size, rank,
                                extents, &opt));
  if (keep && v->data) {
    /* after a fence: kernels may still be writing the old view; what resize leaves outside the
       common box is exactly what porta_view_create put there */
    int rc = porta_fence(op);
    if (rc == PORTA_SUCCESS) rc = porta_view_copy_overlap_staged_(fresh, *v, op);
    if (rc != PORTA_SUCCESS) {
      porta_view_release(&fresh);
      return rc;
    }
  }
  porta_view_release(v);
  *v = fresh;
  return PORTA_SUCCESS;
}

int porta_view_resize(porta_view *v, int rank, const int64_t *extents) {
  return reshape(v, rank, extents, 1, "porta_view_resize");
}

int porta_view_realloc(porta_view *v, int rank, const int64_t *extents) {
  return reshape(v, rank, extents, 0, "porta_view_realloc");
}

int porta_view_create_mirror(porta_view *out, const porta_view *src) {
  porta_view_options opt;
  char label[PORTA_LABEL_MAX + 8];
  int64_t compact[PORTA_MAX_RANK];
  opt.space = PORTA_HOST_SPACE;
  opt.layout =
      src->m.layout == PORTA_LAYOUT_STRIDE ? PORTA_LAYOUT_DEFAULT : (porta_layout)src->m.layout;
  opt.flags = PORTA_VIEW_UNINITIALIZED;
  opt.stride = NULL;
  if (src->m.layout == PORTA_LAYOUT_STRIDE && src->m.rank >= 2) {
    /* deep_copy wants equal layouts from rank 2 on: stay Stride, with compact row-major strides */
    int64_t st = 1;
    for (int r = src->m.rank - 1; r >= 0; --r) {
      compact[r] = st;
      st *= src->m.extent[r] > 0 ? src->m.extent[r] : 1;
    }
    opt.layout = PORTA_LAYOUT_STRIDE;
    opt.stride = compact;
  }
  snprintf(label, sizeof label, "%s_mirror", src->m.label);
  return porta_view_create(out, label, (porta_type)src->m.type, src->m.value_size, src->m.rank,
                           src->m.extent, &opt);
}

int porta_view_create_mirror_view(porta_view *out, const porta_view *src) {
  if (porta_memory_space_host_accessible((porta_memory_space)src->m.space)) {
    *out = *src;
    porta_view_retain(out);
    return PORTA_SUCCESS;
  }
  return porta_view_create_mirror(out, src);
}

const char *porta_view_host_refusal_(int space) {
  static _Thread_local char text[96];
  const porta_backend_ops *owner = porta_space_backend_((porta_memory_space)space);
  if (porta_memory_space_host_accessible((porta_memory_space)space) || !owner || !owner->on_device)
    return NULL;
  snprintf(text, sizeof text, "host access to device memory (%sSpace)",
           porta_memory_space_name((porta_memory_space)space));
  return text;
}

void porta_view_check_failure_(const porta_view_meta *m, const char *what, int nidx,
                               const int64_t *idx, const char *file, int line) {
  char text[512];
  int len = snprintf(text, sizeof text, "%s at %s:%d; index (", what, file, line);
  for (int r = 0; r < nidx && len < (int)sizeof text; ++r)
    len +=
        snprintf(text + len, sizeof text - (size_t)len, "%s%lld", r ? ", " : "", (long long)idx[r]);
  if (len < (int)sizeof text)
    len += snprintf(text + len, sizeof text - (size_t)len, ") of rank %d, view extents (", nidx);
  for (int r = 0; r < m->rank && len < (int)sizeof text; ++r)
    len += snprintf(text + len, sizeof text - (size_t)len, "%s%lld", r ? ", " : "",
                    (long long)m->extent[r]);
  if (len < (int)sizeof text)
    snprintf(text + len, sizeof text - (size_t)len, ") rank %d layout %d", (int)m->rank,
             (int)m->layout);
  porta_error(PORTA_ERROR_BOUNDS, "view access", m->label, "%s", text);
  fprintf(stderr, "%s\n", porta_last_error_message());
  fflush(stderr);
  abort();
}
