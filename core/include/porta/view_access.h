/** @file view_access.h
 *  Element accessors whose layout is fixed at compile time.
 *
 *  PORTA_R<n>(v, i...) row-major (LayoutRight: last index contiguous),
 *  PORTA_L<n>(v, i...) column-major (LayoutLeft: first index contiguous),
 *  PORTA_S<n>(v, i...) any strides, and PORTA_AT<n> the memory space's default:
 *  Right in host passes, Left in the CUDA device pass (porta/backend/cuda/view_access.h). The index
 * math is one multiply-add per dimension with the unit stride known to the compiler. PORTA_RA<n>
 * reads through the GPU's read-only cache (plain read on the host). With PORTA_ENABLE_DEBUG the
 * accessors check rank, layout and bounds and report the label, the indices and the extents: on the
 * host by aborting, on the GPU by recording the failure for the host (porta_cuda_check_record),
 *  printing it and stopping the kernel with a trap; the launch (or the next
 *  fence) then returns PORTA_ERROR_BOUNDS naming the kernel.
 *  (Generated once by hand from a script; edit in place.)
 */
#ifndef PORTA_VIEW_ACCESS_H
#define PORTA_VIEW_ACCESS_H

#include "porta/view.h"

#define PORTA_CHECK_RANK_ 1
#define PORTA_CHECK_LAYOUT_ 2

#ifdef PORTA_DEVICE_VIEW_ACCESS_H
#include PORTA_DEVICE_VIEW_ACCESS_H /* the device pass's checks and default layout */
#endif

/** Verify rank, layout and bounds; report and stop on failure. Layout 0 = any. */
PORTA_INLINE_FUNCTION int64_t porta_view_checked_offset_(const porta_view_meta *m, int layout,
                                                         int n, const int64_t *idx,
                                                         const char *file, int line) {
  const char *what = NULL;
  int64_t off = 0;
  if (m->rank != n)
    what = "rank mismatch";
  else if (layout != 0 && m->layout != layout &&
           !(n <= 1 && m->layout != PORTA_LAYOUT_STRIDE && layout != PORTA_LAYOUT_STRIDE))
    what = "layout mismatch";
  else
    for (int r = 0; r < n; ++r)
      if (idx[r] < 0 || idx[r] >= m->extent[r]) what = "index out of bounds";
#if !PORTA_DEVICE_PASS
  /* Memory that no code of the host pass may touch is the finding to report, whatever else
   * is wrong (the space's back end says; host memory needs no question). */
  if (m->space != PORTA_HOST_SPACE) {
    const char *refusal = porta_view_host_refusal_(m->space);
    if (refusal) what = refusal;
  }
#endif
  if (what) {
#if PORTA_DEVICE_PASS
    PORTA_DEVICE_VIEW_CHECK_FAIL_(m, what, n, idx, file, line);
#else
    porta_view_check_failure_(m, what, n, idx, file, line);
#endif
  }
  for (int r = 0; r < n; ++r) off += idx[r] * m->stride[r];
  return off;
}

PORTA_FORCEINLINE_FUNCTION int64_t porta_offset_r0_(const porta_view_meta *m) {
  (void)m;
  return 0;
}
PORTA_FORCEINLINE_FUNCTION int64_t porta_offset_l0_(const porta_view_meta *m) {
  (void)m;
  return 0;
}
PORTA_FORCEINLINE_FUNCTION int64_t porta_offset_s0_(const porta_view_meta *m) {
  (void)m;
  return 0;
}
PORTA_FORCEINLINE_FUNCTION int64_t porta_offset_r1_(const porta_view_meta *m, int64_t i0) {
  (void)m;
  return i0;
}
PORTA_FORCEINLINE_FUNCTION int64_t porta_offset_l1_(const porta_view_meta *m, int64_t i0) {
  (void)m;
  return i0;
}
PORTA_FORCEINLINE_FUNCTION int64_t porta_offset_s1_(const porta_view_meta *m, int64_t i0) {
  return i0 * m->stride[0];
}
PORTA_FORCEINLINE_FUNCTION int64_t porta_offset_r2_(const porta_view_meta *m, int64_t i0,
                                                    int64_t i1) {
  return i0 * m->stride[0] + i1;
}
PORTA_FORCEINLINE_FUNCTION int64_t porta_offset_l2_(const porta_view_meta *m, int64_t i0,
                                                    int64_t i1) {
  return i0 + i1 * m->stride[1];
}
PORTA_FORCEINLINE_FUNCTION int64_t porta_offset_s2_(const porta_view_meta *m, int64_t i0,
                                                    int64_t i1) {
  return i0 * m->stride[0] + i1 * m->stride[1];
}
PORTA_FORCEINLINE_FUNCTION int64_t porta_offset_r3_(const porta_view_meta *m, int64_t i0,
                                                    int64_t i1, int64_t i2) {
  return i0 * m->stride[0] + i1 * m->stride[1] + i2;
}
PORTA_FORCEINLINE_FUNCTION int64_t porta_offset_l3_(const porta_view_meta *m, int64_t i0,
                                                    int64_t i1, int64_t i2) {
  return i0 + i1 * m->stride[1] + i2 * m->stride[2];
}
PORTA_FORCEINLINE_FUNCTION int64_t porta_offset_s3_(const porta_view_meta *m, int64_t i0,
                                                    int64_t i1, int64_t i2) {
  return i0 * m->stride[0] + i1 * m->stride[1] + i2 * m->stride[2];
}
PORTA_FORCEINLINE_FUNCTION int64_t porta_offset_r4_(const porta_view_meta *m, int64_t i0,
                                                    int64_t i1, int64_t i2, int64_t i3) {
  return i0 * m->stride[0] + i1 * m->stride[1] + i2 * m->stride[2] + i3;
}
PORTA_FORCEINLINE_FUNCTION int64_t porta_offset_l4_(const porta_view_meta *m, int64_t i0,
                                                    int64_t i1, int64_t i2, int64_t i3) {
  return i0 + i1 * m->stride[1] + i2 * m->stride[2] + i3 * m->stride[3];
}
PORTA_FORCEINLINE_FUNCTION int64_t porta_offset_s4_(const porta_view_meta *m, int64_t i0,
                                                    int64_t i1, int64_t i2, int64_t i3) {
  return i0 * m->stride[0] + i1 * m->stride[1] + i2 * m->stride[2] + i3 * m->stride[3];
}
PORTA_FORCEINLINE_FUNCTION int64_t porta_offset_r5_(const porta_view_meta *m, int64_t i0,
                                                    int64_t i1, int64_t i2, int64_t i3,
                                                    int64_t i4) {
  return i0 * m->stride[0] + i1 * m->stride[1] + i2 * m->stride[2] + i3 * m->stride[3] + i4;
}
PORTA_FORCEINLINE_FUNCTION int64_t porta_offset_l5_(const porta_view_meta *m, int64_t i0,
                                                    int64_t i1, int64_t i2, int64_t i3,
                                                    int64_t i4) {
  return i0 + i1 * m->stride[1] + i2 * m->stride[2] + i3 * m->stride[3] + i4 * m->stride[4];
}
PORTA_FORCEINLINE_FUNCTION int64_t porta_offset_s5_(const porta_view_meta *m, int64_t i0,
                                                    int64_t i1, int64_t i2, int64_t i3,
                                                    int64_t i4) {
  return i0 * m->stride[0] + i1 * m->stride[1] + i2 * m->stride[2] + i3 * m->stride[3] +
         i4 * m->stride[4];
}
PORTA_FORCEINLINE_FUNCTION int64_t porta_offset_r6_(const porta_view_meta *m, int64_t i0,
                                                    int64_t i1, int64_t i2, int64_t i3, int64_t i4,
                                                    int64_t i5) {
  return i0 * m->stride[0] + i1 * m->stride[1] + i2 * m->stride[2] + i3 * m->stride[3] +
         i4 * m->stride[4] + i5;
}
PORTA_FORCEINLINE_FUNCTION int64_t porta_offset_l6_(const porta_view_meta *m, int64_t i0,
                                                    int64_t i1, int64_t i2, int64_t i3, int64_t i4,
                                                    int64_t i5) {
  return i0 + i1 * m->stride[1] + i2 * m->stride[2] + i3 * m->stride[3] + i4 * m->stride[4] +
         i5 * m->stride[5];
}
PORTA_FORCEINLINE_FUNCTION int64_t porta_offset_s6_(const porta_view_meta *m, int64_t i0,
                                                    int64_t i1, int64_t i2, int64_t i3, int64_t i4,
                                                    int64_t i5) {
  return i0 * m->stride[0] + i1 * m->stride[1] + i2 * m->stride[2] + i3 * m->stride[3] +
         i4 * m->stride[4] + i5 * m->stride[5];
}
PORTA_FORCEINLINE_FUNCTION int64_t porta_offset_r7_(const porta_view_meta *m, int64_t i0,
                                                    int64_t i1, int64_t i2, int64_t i3, int64_t i4,
                                                    int64_t i5, int64_t i6) {
  return i0 * m->stride[0] + i1 * m->stride[1] + i2 * m->stride[2] + i3 * m->stride[3] +
         i4 * m->stride[4] + i5 * m->stride[5] + i6;
}
PORTA_FORCEINLINE_FUNCTION int64_t porta_offset_l7_(const porta_view_meta *m, int64_t i0,
                                                    int64_t i1, int64_t i2, int64_t i3, int64_t i4,
                                                    int64_t i5, int64_t i6) {
  return i0 + i1 * m->stride[1] + i2 * m->stride[2] + i3 * m->stride[3] + i4 * m->stride[4] +
         i5 * m->stride[5] + i6 * m->stride[6];
}
PORTA_FORCEINLINE_FUNCTION int64_t porta_offset_s7_(const porta_view_meta *m, int64_t i0,
                                                    int64_t i1, int64_t i2, int64_t i3, int64_t i4,
                                                    int64_t i5, int64_t i6) {
  return i0 * m->stride[0] + i1 * m->stride[1] + i2 * m->stride[2] + i3 * m->stride[3] +
         i4 * m->stride[4] + i5 * m->stride[5] + i6 * m->stride[6];
}
PORTA_FORCEINLINE_FUNCTION int64_t porta_offset_r8_(const porta_view_meta *m, int64_t i0,
                                                    int64_t i1, int64_t i2, int64_t i3, int64_t i4,
                                                    int64_t i5, int64_t i6, int64_t i7) {
  return i0 * m->stride[0] + i1 * m->stride[1] + i2 * m->stride[2] + i3 * m->stride[3] +
         i4 * m->stride[4] + i5 * m->stride[5] + i6 * m->stride[6] + i7;
}
PORTA_FORCEINLINE_FUNCTION int64_t porta_offset_l8_(const porta_view_meta *m, int64_t i0,
                                                    int64_t i1, int64_t i2, int64_t i3, int64_t i4,
                                                    int64_t i5, int64_t i6, int64_t i7) {
  return i0 + i1 * m->stride[1] + i2 * m->stride[2] + i3 * m->stride[3] + i4 * m->stride[4] +
         i5 * m->stride[5] + i6 * m->stride[6] + i7 * m->stride[7];
}
PORTA_FORCEINLINE_FUNCTION int64_t porta_offset_s8_(const porta_view_meta *m, int64_t i0,
                                                    int64_t i1, int64_t i2, int64_t i3, int64_t i4,
                                                    int64_t i5, int64_t i6, int64_t i7) {
  return i0 * m->stride[0] + i1 * m->stride[1] + i2 * m->stride[2] + i3 * m->stride[3] +
         i4 * m->stride[4] + i5 * m->stride[5] + i6 * m->stride[6] + i7 * m->stride[7];
}

PORTA_INLINE_FUNCTION int64_t porta_checked_offset0_(const porta_view_meta *m, int layout,
                                                     const char *file, int line) {
  int64_t idx[1] = {0};
  return porta_view_checked_offset_(m, layout, 0, idx, file, line);
}
PORTA_INLINE_FUNCTION int64_t porta_checked_offset1_(const porta_view_meta *m, int layout,
                                                     const char *file, int line, int64_t i0) {
  int64_t idx[1] = {i0};
  return porta_view_checked_offset_(m, layout, 1, idx, file, line);
}
PORTA_INLINE_FUNCTION int64_t porta_checked_offset2_(const porta_view_meta *m, int layout,
                                                     const char *file, int line, int64_t i0,
                                                     int64_t i1) {
  int64_t idx[2] = {i0, i1};
  return porta_view_checked_offset_(m, layout, 2, idx, file, line);
}
PORTA_INLINE_FUNCTION int64_t porta_checked_offset3_(const porta_view_meta *m, int layout,
                                                     const char *file, int line, int64_t i0,
                                                     int64_t i1, int64_t i2) {
  int64_t idx[3] = {i0, i1, i2};
  return porta_view_checked_offset_(m, layout, 3, idx, file, line);
}
PORTA_INLINE_FUNCTION int64_t porta_checked_offset4_(const porta_view_meta *m, int layout,
                                                     const char *file, int line, int64_t i0,
                                                     int64_t i1, int64_t i2, int64_t i3) {
  int64_t idx[4] = {i0, i1, i2, i3};
  return porta_view_checked_offset_(m, layout, 4, idx, file, line);
}
PORTA_INLINE_FUNCTION int64_t porta_checked_offset5_(const porta_view_meta *m, int layout,
                                                     const char *file, int line, int64_t i0,
                                                     int64_t i1, int64_t i2, int64_t i3,
                                                     int64_t i4) {
  int64_t idx[5] = {i0, i1, i2, i3, i4};
  return porta_view_checked_offset_(m, layout, 5, idx, file, line);
}
PORTA_INLINE_FUNCTION int64_t porta_checked_offset6_(const porta_view_meta *m, int layout,
                                                     const char *file, int line, int64_t i0,
                                                     int64_t i1, int64_t i2, int64_t i3, int64_t i4,
                                                     int64_t i5) {
  int64_t idx[6] = {i0, i1, i2, i3, i4, i5};
  return porta_view_checked_offset_(m, layout, 6, idx, file, line);
}
PORTA_INLINE_FUNCTION int64_t porta_checked_offset7_(const porta_view_meta *m, int layout,
                                                     const char *file, int line, int64_t i0,
                                                     int64_t i1, int64_t i2, int64_t i3, int64_t i4,
                                                     int64_t i5, int64_t i6) {
  int64_t idx[7] = {i0, i1, i2, i3, i4, i5, i6};
  return porta_view_checked_offset_(m, layout, 7, idx, file, line);
}
PORTA_INLINE_FUNCTION int64_t porta_checked_offset8_(const porta_view_meta *m, int layout,
                                                     const char *file, int line, int64_t i0,
                                                     int64_t i1, int64_t i2, int64_t i3, int64_t i4,
                                                     int64_t i5, int64_t i6, int64_t i7) {
  int64_t idx[8] = {i0, i1, i2, i3, i4, i5, i6, i7};
  return porta_view_checked_offset_(m, layout, 8, idx, file, line);
}

#if PORTA_ENABLE_DEBUG
#define PORTA_R0(v)                                                                                \
  ((v).data[porta_checked_offset0_(&(v).m, PORTA_LAYOUT_RIGHT, __FILE__, __LINE__)])
#define PORTA_L0(v)                                                                                \
  ((v).data[porta_checked_offset0_(&(v).m, PORTA_LAYOUT_LEFT, __FILE__, __LINE__)])
#define PORTA_S0(v) ((v).data[porta_checked_offset0_(&(v).m, 0, __FILE__, __LINE__)])
#define PORTA_R1(v, i0)                                                                            \
  ((v).data[porta_checked_offset1_(&(v).m, PORTA_LAYOUT_RIGHT, __FILE__, __LINE__, (int64_t)(i0))])
#define PORTA_L1(v, i0)                                                                            \
  ((v).data[porta_checked_offset1_(&(v).m, PORTA_LAYOUT_LEFT, __FILE__, __LINE__, (int64_t)(i0))])
#define PORTA_S1(v, i0)                                                                            \
  ((v).data[porta_checked_offset1_(&(v).m, 0, __FILE__, __LINE__, (int64_t)(i0))])
#define PORTA_R2(v, i0, i1)                                                                        \
  ((v).data[porta_checked_offset2_(&(v).m, PORTA_LAYOUT_RIGHT, __FILE__, __LINE__, (int64_t)(i0),  \
                                   (int64_t)(i1))])
#define PORTA_L2(v, i0, i1)                                                                        \
  ((v).data[porta_checked_offset2_(&(v).m, PORTA_LAYOUT_LEFT, __FILE__, __LINE__, (int64_t)(i0),   \
                                   (int64_t)(i1))])
#define PORTA_S2(v, i0, i1)                                                                        \
  ((v).data[porta_checked_offset2_(&(v).m, 0, __FILE__, __LINE__, (int64_t)(i0), (int64_t)(i1))])
#define PORTA_R3(v, i0, i1, i2)                                                                    \
  ((v).data[porta_checked_offset3_(&(v).m, PORTA_LAYOUT_RIGHT, __FILE__, __LINE__, (int64_t)(i0),  \
                                   (int64_t)(i1), (int64_t)(i2))])
#define PORTA_L3(v, i0, i1, i2)                                                                    \
  ((v).data[porta_checked_offset3_(&(v).m, PORTA_LAYOUT_LEFT, __FILE__, __LINE__, (int64_t)(i0),   \
                                   (int64_t)(i1), (int64_t)(i2))])
#define PORTA_S3(v, i0, i1, i2)                                                                    \
  ((v).data[porta_checked_offset3_(&(v).m, 0, __FILE__, __LINE__, (int64_t)(i0), (int64_t)(i1),    \
                                   (int64_t)(i2))])
#define PORTA_R4(v, i0, i1, i2, i3)                                                                \
  ((v).data[porta_checked_offset4_(&(v).m, PORTA_LAYOUT_RIGHT, __FILE__, __LINE__, (int64_t)(i0),  \
                                   (int64_t)(i1), (int64_t)(i2), (int64_t)(i3))])
#define PORTA_L4(v, i0, i1, i2, i3)                                                                \
  ((v).data[porta_checked_offset4_(&(v).m, PORTA_LAYOUT_LEFT, __FILE__, __LINE__, (int64_t)(i0),   \
                                   (int64_t)(i1), (int64_t)(i2), (int64_t)(i3))])
#define PORTA_S4(v, i0, i1, i2, i3)                                                                \
  ((v).data[porta_checked_offset4_(&(v).m, 0, __FILE__, __LINE__, (int64_t)(i0), (int64_t)(i1),    \
                                   (int64_t)(i2), (int64_t)(i3))])
#define PORTA_R5(v, i0, i1, i2, i3, i4)                                                            \
  ((v).data[porta_checked_offset5_(&(v).m, PORTA_LAYOUT_RIGHT, __FILE__, __LINE__, (int64_t)(i0),  \
                                   (int64_t)(i1), (int64_t)(i2), (int64_t)(i3), (int64_t)(i4))])
#define PORTA_L5(v, i0, i1, i2, i3, i4)                                                            \
  ((v).data[porta_checked_offset5_(&(v).m, PORTA_LAYOUT_LEFT, __FILE__, __LINE__, (int64_t)(i0),   \
                                   (int64_t)(i1), (int64_t)(i2), (int64_t)(i3), (int64_t)(i4))])
#define PORTA_S5(v, i0, i1, i2, i3, i4)                                                            \
  ((v).data[porta_checked_offset5_(&(v).m, 0, __FILE__, __LINE__, (int64_t)(i0), (int64_t)(i1),    \
                                   (int64_t)(i2), (int64_t)(i3), (int64_t)(i4))])
#define PORTA_R6(v, i0, i1, i2, i3, i4, i5)                                                        \
  ((v).data[porta_checked_offset6_(&(v).m, PORTA_LAYOUT_RIGHT, __FILE__, __LINE__, (int64_t)(i0),  \
                                   (int64_t)(i1), (int64_t)(i2), (int64_t)(i3), (int64_t)(i4),     \
                                   (int64_t)(i5))])
#define PORTA_L6(v, i0, i1, i2, i3, i4, i5)                                                        \
  ((v).data[porta_checked_offset6_(&(v).m, PORTA_LAYOUT_LEFT, __FILE__, __LINE__, (int64_t)(i0),   \
                                   (int64_t)(i1), (int64_t)(i2), (int64_t)(i3), (int64_t)(i4),     \
                                   (int64_t)(i5))])
#define PORTA_S6(v, i0, i1, i2, i3, i4, i5)                                                        \
  ((v).data[porta_checked_offset6_(&(v).m, 0, __FILE__, __LINE__, (int64_t)(i0), (int64_t)(i1),    \
                                   (int64_t)(i2), (int64_t)(i3), (int64_t)(i4), (int64_t)(i5))])
#define PORTA_R7(v, i0, i1, i2, i3, i4, i5, i6)                                                    \
  ((v).data[porta_checked_offset7_(&(v).m, PORTA_LAYOUT_RIGHT, __FILE__, __LINE__, (int64_t)(i0),  \
                                   (int64_t)(i1), (int64_t)(i2), (int64_t)(i3), (int64_t)(i4),     \
                                   (int64_t)(i5), (int64_t)(i6))])
#define PORTA_L7(v, i0, i1, i2, i3, i4, i5, i6)                                                    \
  ((v).data[porta_checked_offset7_(&(v).m, PORTA_LAYOUT_LEFT, __FILE__, __LINE__, (int64_t)(i0),   \
                                   (int64_t)(i1), (int64_t)(i2), (int64_t)(i3), (int64_t)(i4),     \
                                   (int64_t)(i5), (int64_t)(i6))])
#define PORTA_S7(v, i0, i1, i2, i3, i4, i5, i6)                                                    \
  ((v).data[porta_checked_offset7_(&(v).m, 0, __FILE__, __LINE__, (int64_t)(i0), (int64_t)(i1),    \
                                   (int64_t)(i2), (int64_t)(i3), (int64_t)(i4), (int64_t)(i5),     \
                                   (int64_t)(i6))])
#define PORTA_R8(v, i0, i1, i2, i3, i4, i5, i6, i7)                                                \
  ((v).data[porta_checked_offset8_(&(v).m, PORTA_LAYOUT_RIGHT, __FILE__, __LINE__, (int64_t)(i0),  \
                                   (int64_t)(i1), (int64_t)(i2), (int64_t)(i3), (int64_t)(i4),     \
                                   (int64_t)(i5), (int64_t)(i6), (int64_t)(i7))])
#define PORTA_L8(v, i0, i1, i2, i3, i4, i5, i6, i7)                                                \
  ((v).data[porta_checked_offset8_(&(v).m, PORTA_LAYOUT_LEFT, __FILE__, __LINE__, (int64_t)(i0),   \
                                   (int64_t)(i1), (int64_t)(i2), (int64_t)(i3), (int64_t)(i4),     \
                                   (int64_t)(i5), (int64_t)(i6), (int64_t)(i7))])
#define PORTA_S8(v, i0, i1, i2, i3, i4, i5, i6, i7)                                                \
  ((v).data[porta_checked_offset8_(&(v).m, 0, __FILE__, __LINE__, (int64_t)(i0), (int64_t)(i1),    \
                                   (int64_t)(i2), (int64_t)(i3), (int64_t)(i4), (int64_t)(i5),     \
                                   (int64_t)(i6), (int64_t)(i7))])
#else
#define PORTA_R0(v) ((v).data[porta_offset_r0_(&(v).m)])
#define PORTA_L0(v) ((v).data[porta_offset_l0_(&(v).m)])
#define PORTA_S0(v) ((v).data[porta_offset_s0_(&(v).m)])
#define PORTA_R1(v, i0) ((v).data[porta_offset_r1_(&(v).m, (int64_t)(i0))])
#define PORTA_L1(v, i0) ((v).data[porta_offset_l1_(&(v).m, (int64_t)(i0))])
#define PORTA_S1(v, i0) ((v).data[porta_offset_s1_(&(v).m, (int64_t)(i0))])
#define PORTA_R2(v, i0, i1) ((v).data[porta_offset_r2_(&(v).m, (int64_t)(i0), (int64_t)(i1))])
#define PORTA_L2(v, i0, i1) ((v).data[porta_offset_l2_(&(v).m, (int64_t)(i0), (int64_t)(i1))])
#define PORTA_S2(v, i0, i1) ((v).data[porta_offset_s2_(&(v).m, (int64_t)(i0), (int64_t)(i1))])
#define PORTA_R3(v, i0, i1, i2)                                                                    \
  ((v).data[porta_offset_r3_(&(v).m, (int64_t)(i0), (int64_t)(i1), (int64_t)(i2))])
#define PORTA_L3(v, i0, i1, i2)                                                                    \
  ((v).data[porta_offset_l3_(&(v).m, (int64_t)(i0), (int64_t)(i1), (int64_t)(i2))])
#define PORTA_S3(v, i0, i1, i2)                                                                    \
  ((v).data[porta_offset_s3_(&(v).m, (int64_t)(i0), (int64_t)(i1), (int64_t)(i2))])
#define PORTA_R4(v, i0, i1, i2, i3)                                                                \
  ((v).data[porta_offset_r4_(&(v).m, (int64_t)(i0), (int64_t)(i1), (int64_t)(i2), (int64_t)(i3))])
#define PORTA_L4(v, i0, i1, i2, i3)                                                                \
  ((v).data[porta_offset_l4_(&(v).m, (int64_t)(i0), (int64_t)(i1), (int64_t)(i2), (int64_t)(i3))])
#define PORTA_S4(v, i0, i1, i2, i3)                                                                \
  ((v).data[porta_offset_s4_(&(v).m, (int64_t)(i0), (int64_t)(i1), (int64_t)(i2), (int64_t)(i3))])
#define PORTA_R5(v, i0, i1, i2, i3, i4)                                                            \
  ((v).data[porta_offset_r5_(&(v).m, (int64_t)(i0), (int64_t)(i1), (int64_t)(i2), (int64_t)(i3),   \
                             (int64_t)(i4))])
#define PORTA_L5(v, i0, i1, i2, i3, i4)                                                            \
  ((v).data[porta_offset_l5_(&(v).m, (int64_t)(i0), (int64_t)(i1), (int64_t)(i2), (int64_t)(i3),   \
                             (int64_t)(i4))])
#define PORTA_S5(v, i0, i1, i2, i3, i4)                                                            \
  ((v).data[porta_offset_s5_(&(v).m, (int64_t)(i0), (int64_t)(i1), (int64_t)(i2), (int64_t)(i3),   \
                             (int64_t)(i4))])
#define PORTA_R6(v, i0, i1, i2, i3, i4, i5)                                                        \
  ((v).data[porta_offset_r6_(&(v).m, (int64_t)(i0), (int64_t)(i1), (int64_t)(i2), (int64_t)(i3),   \
                             (int64_t)(i4), (int64_t)(i5))])
#define PORTA_L6(v, i0, i1, i2, i3, i4, i5)                                                        \
  ((v).data[porta_offset_l6_(&(v).m, (int64_t)(i0), (int64_t)(i1), (int64_t)(i2), (int64_t)(i3),   \
                             (int64_t)(i4), (int64_t)(i5))])
#define PORTA_S6(v, i0, i1, i2, i3, i4, i5)                                                        \
  ((v).data[porta_offset_s6_(&(v).m, (int64_t)(i0), (int64_t)(i1), (int64_t)(i2), (int64_t)(i3),   \
                             (int64_t)(i4), (int64_t)(i5))])
#define PORTA_R7(v, i0, i1, i2, i3, i4, i5, i6)                                                    \
  ((v).data[porta_offset_r7_(&(v).m, (int64_t)(i0), (int64_t)(i1), (int64_t)(i2), (int64_t)(i3),   \
                             (int64_t)(i4), (int64_t)(i5), (int64_t)(i6))])
#define PORTA_L7(v, i0, i1, i2, i3, i4, i5, i6)                                                    \
  ((v).data[porta_offset_l7_(&(v).m, (int64_t)(i0), (int64_t)(i1), (int64_t)(i2), (int64_t)(i3),   \
                             (int64_t)(i4), (int64_t)(i5), (int64_t)(i6))])
#define PORTA_S7(v, i0, i1, i2, i3, i4, i5, i6)                                                    \
  ((v).data[porta_offset_s7_(&(v).m, (int64_t)(i0), (int64_t)(i1), (int64_t)(i2), (int64_t)(i3),   \
                             (int64_t)(i4), (int64_t)(i5), (int64_t)(i6))])
#define PORTA_R8(v, i0, i1, i2, i3, i4, i5, i6, i7)                                                \
  ((v).data[porta_offset_r8_(&(v).m, (int64_t)(i0), (int64_t)(i1), (int64_t)(i2), (int64_t)(i3),   \
                             (int64_t)(i4), (int64_t)(i5), (int64_t)(i6), (int64_t)(i7))])
#define PORTA_L8(v, i0, i1, i2, i3, i4, i5, i6, i7)                                                \
  ((v).data[porta_offset_l8_(&(v).m, (int64_t)(i0), (int64_t)(i1), (int64_t)(i2), (int64_t)(i3),   \
                             (int64_t)(i4), (int64_t)(i5), (int64_t)(i6), (int64_t)(i7))])
#define PORTA_S8(v, i0, i1, i2, i3, i4, i5, i6, i7)                                                \
  ((v).data[porta_offset_s8_(&(v).m, (int64_t)(i0), (int64_t)(i1), (int64_t)(i2), (int64_t)(i3),   \
                             (int64_t)(i4), (int64_t)(i5), (int64_t)(i6), (int64_t)(i7))])
#endif

/* The index I of view v, and a compile-time check that v is a view, not a mirror: a mirror
 * keeps its source's layout (Left for a GPU view), which PORTA_AT* (the pass's default layout)
 * would read wrongly. Unevaluated and constant-folded: no cost. */
#define PORTA_AT_IX_(v, I)                                                                         \
  ((int64_t)(I) + (int64_t)(0 * sizeof((v).PORTA_AT_is_for_views_use_PORTA_S_on_mirrors)))

/* The memory space's default layout: Right on the host; a device back end's hooks may define
 * these for its device pass (CUDA: Left). Rank 0 and 1 read the same in every layout. */
#ifndef PORTA_AT_LAYOUT_
#define PORTA_AT_LAYOUT_(RANK) PORTA_R##RANK
#endif
#define PORTA_AT0(v) PORTA_AT_LAYOUT_(0)(v)
#define PORTA_AT1(v, i0) PORTA_AT_LAYOUT_(1)(v, i0)
#define PORTA_AT2(v, i0, i1) PORTA_AT_LAYOUT_(2)(v, i0, PORTA_AT_IX_(v, i1))
#define PORTA_AT3(v, i0, i1, i2) PORTA_AT_LAYOUT_(3)(v, i0, i1, PORTA_AT_IX_(v, i2))
#define PORTA_AT4(v, i0, i1, i2, i3) PORTA_AT_LAYOUT_(4)(v, i0, i1, i2, PORTA_AT_IX_(v, i3))
#define PORTA_AT5(v, i0, i1, i2, i3, i4) PORTA_AT_LAYOUT_(5)(v, i0, i1, i2, i3, PORTA_AT_IX_(v, i4))
#define PORTA_AT6(v, i0, i1, i2, i3, i4, i5)                                                       \
  PORTA_AT_LAYOUT_(6)(v, i0, i1, i2, i3, i4, PORTA_AT_IX_(v, i5))
#define PORTA_AT7(v, i0, i1, i2, i3, i4, i5, i6)                                                   \
  PORTA_AT_LAYOUT_(7)(v, i0, i1, i2, i3, i4, i5, PORTA_AT_IX_(v, i6))
#define PORTA_AT8(v, i0, i1, i2, i3, i4, i5, i6, i7)                                               \
  PORTA_AT_LAYOUT_(8)(v, i0, i1, i2, i3, i4, i5, i6, PORTA_AT_IX_(v, i7))
#ifndef PORTA_LDG
#define PORTA_LDG(ref) (ref)
#endif
#define PORTA_RA0(v) PORTA_LDG(PORTA_AT0(v))
#define PORTA_RA1(v, i0) PORTA_LDG(PORTA_AT1(v, i0))
#define PORTA_RA2(v, i0, i1) PORTA_LDG(PORTA_AT2(v, i0, i1))
#define PORTA_RA3(v, i0, i1, i2) PORTA_LDG(PORTA_AT3(v, i0, i1, i2))

#endif /* PORTA_VIEW_ACCESS_H */
