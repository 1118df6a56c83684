/** @file backend/serial/mdrange.h
 *  Serial launchers for multi-dimensional ranges (last index innermost), and the
 *  deterministic chunk over a box flattened in row-major order. */
#ifndef PORTA_BACKEND_SERIAL_MDRANGE_H
#define PORTA_BACKEND_SERIAL_MDRANGE_H

#define PORTA_SERIAL_MDFOR2_(NAME, ARGS_T)                                                         \
  static int NAME##_porta_serial_(const porta_launch *L, const void *args, void *result) {         \
    (void)result;                                                                                  \
    const ARGS_T a_ = *(const ARGS_T *)args;                                                       \
    const porta_mdrange_policy *p_ = &L->md;                                                       \
    for (int64_t i0_ = p_->lower[0]; i0_ < p_->upper[0]; ++i0_)                                    \
      for (int64_t i1_ = p_->lower[1]; i1_ < p_->upper[1]; ++i1_)                                  \
        NAME##_porta_body_(&a_, i0_, i1_);                                                         \
    return 0;                                                                                      \
  }

#define PORTA_SERIAL_MDFOR3_(NAME, ARGS_T)                                                         \
  static int NAME##_porta_serial_(const porta_launch *L, const void *args, void *result) {         \
    (void)result;                                                                                  \
    const ARGS_T a_ = *(const ARGS_T *)args;                                                       \
    const porta_mdrange_policy *p_ = &L->md;                                                       \
    for (int64_t i0_ = p_->lower[0]; i0_ < p_->upper[0]; ++i0_)                                    \
      for (int64_t i1_ = p_->lower[1]; i1_ < p_->upper[1]; ++i1_)                                  \
        for (int64_t i2_ = p_->lower[2]; i2_ < p_->upper[2]; ++i2_)                                \
          NAME##_porta_body_(&a_, i0_, i1_, i2_);                                                  \
    return 0;                                                                                      \
  }

#define PORTA_SERIAL_MDFOR4_(NAME, ARGS_T)                                                         \
  static int NAME##_porta_serial_(const porta_launch *L, const void *args, void *result) {         \
    (void)result;                                                                                  \
    const ARGS_T a_ = *(const ARGS_T *)args;                                                       \
    const porta_mdrange_policy *p_ = &L->md;                                                       \
    for (int64_t i0_ = p_->lower[0]; i0_ < p_->upper[0]; ++i0_)                                    \
      for (int64_t i1_ = p_->lower[1]; i1_ < p_->upper[1]; ++i1_)                                  \
        for (int64_t i2_ = p_->lower[2]; i2_ < p_->upper[2]; ++i2_)                                \
          for (int64_t i3_ = p_->lower[3]; i3_ < p_->upper[3]; ++i3_)                              \
            NAME##_porta_body_(&a_, i0_, i1_, i2_, i3_);                                           \
    return 0;                                                                                      \
  }

#define PORTA_SERIAL_MDFOR5_(NAME, ARGS_T)                                                         \
  static int NAME##_porta_serial_(const porta_launch *L, const void *args, void *result) {         \
    (void)result;                                                                                  \
    const ARGS_T a_ = *(const ARGS_T *)args;                                                       \
    const porta_mdrange_policy *p_ = &L->md;                                                       \
    for (int64_t i0_ = p_->lower[0]; i0_ < p_->upper[0]; ++i0_)                                    \
      for (int64_t i1_ = p_->lower[1]; i1_ < p_->upper[1]; ++i1_)                                  \
        for (int64_t i2_ = p_->lower[2]; i2_ < p_->upper[2]; ++i2_)                                \
          for (int64_t i3_ = p_->lower[3]; i3_ < p_->upper[3]; ++i3_)                              \
            for (int64_t i4_ = p_->lower[4]; i4_ < p_->upper[4]; ++i4_)                            \
              NAME##_porta_body_(&a_, i0_, i1_, i2_, i3_, i4_);                                    \
    return 0;                                                                                      \
  }

#define PORTA_SERIAL_MDFOR6_(NAME, ARGS_T)                                                         \
  static int NAME##_porta_serial_(const porta_launch *L, const void *args, void *result) {         \
    (void)result;                                                                                  \
    const ARGS_T a_ = *(const ARGS_T *)args;                                                       \
    const porta_mdrange_policy *p_ = &L->md;                                                       \
    for (int64_t i0_ = p_->lower[0]; i0_ < p_->upper[0]; ++i0_)                                    \
      for (int64_t i1_ = p_->lower[1]; i1_ < p_->upper[1]; ++i1_)                                  \
        for (int64_t i2_ = p_->lower[2]; i2_ < p_->upper[2]; ++i2_)                                \
          for (int64_t i3_ = p_->lower[3]; i3_ < p_->upper[3]; ++i3_)                              \
            for (int64_t i4_ = p_->lower[4]; i4_ < p_->upper[4]; ++i4_)                            \
              for (int64_t i5_ = p_->lower[5]; i5_ < p_->upper[5]; ++i5_)                          \
                NAME##_porta_body_(&a_, i0_, i1_, i2_, i3_, i4_, i5_);                             \
    return 0;                                                                                      \
  }

#define PORTA_UNPAREN_(...) __VA_ARGS__

/** One deterministic chunk [lo, hi) of a box in the host's row-major order: the points are
 *  dealt to PORTA_DET_LANES lanes in turn, then the lanes are combined by the halving tree.
 *  IX lists the body's indices, (ix_[0], ..., ix_[RANK-1]). */
#define PORTA_DET_MD_CHUNK_(NAME, ARGS_T, R, RANK, IX)                                             \
  static void NAME##_porta_det_chunk_(const ARGS_T *a, const porta_mdrange_policy *p, int64_t lo,  \
                                      int64_t hi, R##_value *out) {                                \
    R##_value lane[PORTA_DET_LANES];                                                               \
    int64_t ix_[RANK], rem_ = lo;                                                                  \
    for (int l = 0; l < PORTA_DET_LANES; ++l) R##_init(&lane[l]);                                  \
    for (int r = (RANK)-1; r >= 0; --r) {                                                          \
      int64_t ext_ = p->upper[r] - p->lower[r];                                                    \
      ix_[r] = p->lower[r] + rem_ % ext_;                                                          \
      rem_ /= ext_;                                                                                \
    }                                                                                              \
    for (int64_t k_ = lo; k_ < hi; ++k_) {                                                         \
      NAME##_porta_body_(a, PORTA_UNPAREN_ IX, &lane[(k_ - lo) & (PORTA_DET_LANES - 1)]);          \
      for (int r = (RANK)-1; r >= 0; --r) {                                                        \
        if (++ix_[r] < p->upper[r] || r == 0) break;                                               \
        ix_[r] = p->lower[r];                                                                      \
      }                                                                                            \
    }                                                                                              \
    for (int s = PORTA_DET_LANES / 2; s > 0; s >>= 1)                                              \
      for (int l = 0; l < s; ++l) R##_join(&lane[l], &lane[l + s]);                                \
    *out = lane[0];                                                                                \
  }

/** Serial box reduction of rank RANK: deterministic chunks, or the loop nest LOOPS over the
 *  indices IX (i0_, ...). */
#define PORTA_SERIAL_MDREDUCE_(NAME, ARGS_T, R, RANK, DET_IX, LOOPS, IX)                           \
  PORTA_DET_TREE_(NAME, R)                                                                         \
  PORTA_DET_MD_CHUNK_(NAME, ARGS_T, R, RANK, DET_IX)                                               \
  static int NAME##_porta_serial_(const porta_launch *L, const void *args, void *result) {         \
    const ARGS_T a_ = *(const ARGS_T *)args;                                                       \
    const porta_mdrange_policy *p_ = &L->md;                                                       \
    R##_value acc_;                                                                                \
    R##_init(&acc_);                                                                               \
    if (L->deterministic) {                                                                        \
      const int64_t n_ = porta_mdrange_size_(p_);                                                  \
      const int64_t nc_ = (n_ + PORTA_DET_CHUNK - 1) / PORTA_DET_CHUNK;                            \
      R##_value *q_ = (R##_value *)porta_host_workspace_((size_t)nc_ * sizeof(R##_value));         \
      if (nc_ > 0 && !q_) return PORTA_ERROR_OUT_OF_MEMORY;                                        \
      for (int64_t c_ = 0; c_ < nc_; ++c_) {                                                       \
        int64_t lo_ = c_ * PORTA_DET_CHUNK,                                                        \
                hi_ = lo_ + PORTA_DET_CHUNK < n_ ? lo_ + PORTA_DET_CHUNK : n_;                     \
        NAME##_porta_det_chunk_(&a_, p_, lo_, hi_, &q_[c_]);                                       \
      }                                                                                            \
      NAME##_porta_det_tree_(q_, nc_);                                                             \
      if (nc_ > 0) acc_ = q_[0];                                                                   \
    } else {                                                                                       \
      LOOPS NAME##_porta_body_(&a_, PORTA_UNPAREN_ IX, &acc_);                                     \
    }                                                                                              \
    memcpy(result, &acc_, sizeof(R##_value));                                                      \
    return 0;                                                                                      \
  }

#define PORTA_SERIAL_MD_LOOP_(P, I, R) for (int64_t I = (P)->lower[R]; I < (P)->upper[R]; ++I)

#define PORTA_SERIAL_MDREDUCE2_(NAME, ARGS_T, R)                                                   \
  PORTA_SERIAL_MDREDUCE_(NAME, ARGS_T, R, 2, (ix_[0], ix_[1]),                                     \
                         PORTA_SERIAL_MD_LOOP_(p_, i0_, 0) PORTA_SERIAL_MD_LOOP_(p_, i1_, 1),      \
                         (i0_, i1_))

#define PORTA_SERIAL_MDREDUCE3_(NAME, ARGS_T, R)                                                   \
  PORTA_SERIAL_MDREDUCE_(NAME, ARGS_T, R, 3, (ix_[0], ix_[1], ix_[2]),                             \
                         PORTA_SERIAL_MD_LOOP_(p_, i0_, 0) PORTA_SERIAL_MD_LOOP_(p_, i1_, 1)       \
                             PORTA_SERIAL_MD_LOOP_(p_, i2_, 2),                                    \
                         (i0_, i1_, i2_))

/** Number of points in a box (0 if any extent is empty). */
PORTA_FORCEINLINE_FUNCTION int64_t porta_mdrange_size_(const porta_mdrange_policy *p) {
  int64_t n = 1;
  for (int r = 0; r < p->rank; ++r) n *= p->upper[r] > p->lower[r] ? p->upper[r] - p->lower[r] : 0;
  return n;
}

#endif
