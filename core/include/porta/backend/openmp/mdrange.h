/** @file backend/openmp/mdrange.h
 *  OpenMP launchers for multi-dimensional ranges: the outer ranks are collapsed
 *  and split statically among threads; the last (contiguous) rank is an inner
 *  simd loop. No tiling on the host: rows are already cache-friendly. */
#ifndef PORTA_BACKEND_OPENMP_MDRANGE_H
#define PORTA_BACKEND_OPENMP_MDRANGE_H

#if defined(_OPENMP)

#define PORTA_OPENMP_MDFOR2_(NAME, ARGS_T)                                                         \
  static int NAME##_porta_openmp_(const porta_launch *L, const void *args, void *result) {         \
    (void)result;                                                                                  \
    const ARGS_T *ap_ = (const ARGS_T *)args;                                                      \
    const porta_mdrange_policy *p_ = &L->md;                                                       \
    const int64_t l0_ = p_->lower[0], u0_ = p_->upper[0];                                          \
    const int64_t l1_ = p_->lower[1], u1_ = p_->upper[1];                                          \
    PORTA_OMP(parallel num_threads(L->num_threads)) {                                              \
      const ARGS_T a_ = *ap_;                                                                      \
      PORTA_OMP(for schedule(static))                                                              \
      for (int64_t i0_ = l0_; i0_ < u0_; ++i0_) PORTA_OMP(simd)                                    \
      for (int64_t i1_ = l1_; i1_ < u1_; ++i1_) NAME##_porta_body_(&a_, i0_, i1_);                 \
    }                                                                                              \
    return 0;                                                                                      \
  }

#define PORTA_OPENMP_MDFOR3_(NAME, ARGS_T)                                                         \
  static int NAME##_porta_openmp_(const porta_launch *L, const void *args, void *result) {         \
    (void)result;                                                                                  \
    const ARGS_T *ap_ = (const ARGS_T *)args;                                                      \
    const porta_mdrange_policy *p_ = &L->md;                                                       \
    const int64_t l0_ = p_->lower[0], u0_ = p_->upper[0];                                          \
    const int64_t l1_ = p_->lower[1], u1_ = p_->upper[1];                                          \
    const int64_t l2_ = p_->lower[2], u2_ = p_->upper[2];                                          \
    PORTA_OMP(parallel num_threads(L->num_threads)) {                                              \
      const ARGS_T a_ = *ap_;                                                                      \
      PORTA_OMP(for collapse(2) schedule(static))                                                  \
      for (int64_t i0_ = l0_; i0_ < u0_; ++i0_)                                                    \
        for (int64_t i1_ = l1_; i1_ < u1_; ++i1_) PORTA_OMP(simd)                                  \
      for (int64_t i2_ = l2_; i2_ < u2_; ++i2_) NAME##_porta_body_(&a_, i0_, i1_, i2_);            \
    }                                                                                              \
    return 0;                                                                                      \
  }

#define PORTA_OPENMP_MDFOR4_(NAME, ARGS_T)                                                         \
  static int NAME##_porta_openmp_(const porta_launch *L, const void *args, void *result) {         \
    (void)result;                                                                                  \
    const ARGS_T *ap_ = (const ARGS_T *)args;                                                      \
    const porta_mdrange_policy *p_ = &L->md;                                                       \
    const int64_t l0_ = p_->lower[0], u0_ = p_->upper[0];                                          \
    const int64_t l1_ = p_->lower[1], u1_ = p_->upper[1];                                          \
    const int64_t l2_ = p_->lower[2], u2_ = p_->upper[2];                                          \
    const int64_t l3_ = p_->lower[3], u3_ = p_->upper[3];                                          \
    PORTA_OMP(parallel num_threads(L->num_threads)) {                                              \
      const ARGS_T a_ = *ap_;                                                                      \
      PORTA_OMP(for collapse(3) schedule(static))                                                  \
      for (int64_t i0_ = l0_; i0_ < u0_; ++i0_)                                                    \
        for (int64_t i1_ = l1_; i1_ < u1_; ++i1_)                                                  \
          for (int64_t i2_ = l2_; i2_ < u2_; ++i2_) PORTA_OMP(simd)                                \
      for (int64_t i3_ = l3_; i3_ < u3_; ++i3_) NAME##_porta_body_(&a_, i0_, i1_, i2_, i3_);       \
    }                                                                                              \
    return 0;                                                                                      \
  }

#define PORTA_OPENMP_MDFOR5_(NAME, ARGS_T)                                                         \
  static int NAME##_porta_openmp_(const porta_launch *L, const void *args, void *result) {         \
    (void)result;                                                                                  \
    const ARGS_T *ap_ = (const ARGS_T *)args;                                                      \
    const porta_mdrange_policy *p_ = &L->md;                                                       \
    const int64_t l0_ = p_->lower[0], u0_ = p_->upper[0];                                          \
    const int64_t l1_ = p_->lower[1], u1_ = p_->upper[1];                                          \
    const int64_t l2_ = p_->lower[2], u2_ = p_->upper[2];                                          \
    const int64_t l3_ = p_->lower[3], u3_ = p_->upper[3];                                          \
    const int64_t l4_ = p_->lower[4], u4_ = p_->upper[4];                                          \
    PORTA_OMP(parallel num_threads(L->num_threads)) {                                              \
      const ARGS_T a_ = *ap_;                                                                      \
      PORTA_OMP(for collapse(4) schedule(static))                                                  \
      for (int64_t i0_ = l0_; i0_ < u0_; ++i0_)                                                    \
        for (int64_t i1_ = l1_; i1_ < u1_; ++i1_)                                                  \
          for (int64_t i2_ = l2_; i2_ < u2_; ++i2_)                                                \
            for (int64_t i3_ = l3_; i3_ < u3_; ++i3_) PORTA_OMP(simd)                              \
      for (int64_t i4_ = l4_; i4_ < u4_; ++i4_) NAME##_porta_body_(&a_, i0_, i1_, i2_, i3_, i4_);  \
    }                                                                                              \
    return 0;                                                                                      \
  }

#define PORTA_OPENMP_MDFOR6_(NAME, ARGS_T)                                                         \
  static int NAME##_porta_openmp_(const porta_launch *L, const void *args, void *result) {         \
    (void)result;                                                                                  \
    const ARGS_T *ap_ = (const ARGS_T *)args;                                                      \
    const porta_mdrange_policy *p_ = &L->md;                                                       \
    const int64_t l0_ = p_->lower[0], u0_ = p_->upper[0];                                          \
    const int64_t l1_ = p_->lower[1], u1_ = p_->upper[1];                                          \
    const int64_t l2_ = p_->lower[2], u2_ = p_->upper[2];                                          \
    const int64_t l3_ = p_->lower[3], u3_ = p_->upper[3];                                          \
    const int64_t l4_ = p_->lower[4], u4_ = p_->upper[4];                                          \
    const int64_t l5_ = p_->lower[5], u5_ = p_->upper[5];                                          \
    PORTA_OMP(parallel num_threads(L->num_threads)) {                                              \
      const ARGS_T a_ = *ap_;                                                                      \
      PORTA_OMP(for collapse(5) schedule(static))                                                  \
      for (int64_t i0_ = l0_; i0_ < u0_; ++i0_)                                                    \
        for (int64_t i1_ = l1_; i1_ < u1_; ++i1_)                                                  \
          for (int64_t i2_ = l2_; i2_ < u2_; ++i2_)                                                \
            for (int64_t i3_ = l3_; i3_ < u3_; ++i3_)                                              \
              for (int64_t i4_ = l4_; i4_ < u4_; ++i4_) PORTA_OMP(simd)                            \
      for (int64_t i5_ = l5_; i5_ < u5_; ++i5_)                                                    \
        NAME##_porta_body_(&a_, i0_, i1_, i2_, i3_, i4_, i5_);                                     \
    }                                                                                              \
    return 0;                                                                                      \
  }

/** The deterministic branch of the OpenMP mdrange reductions (any rank): chunk partials over
 *  the flattened box in the host's order, then the fixed tree, into acc_. Uses the launcher's
 *  ap_, p_ and nt_. */
#define PORTA_OPENMP_MD_DET_(NAME, ARGS_T, R)                                                      \
  const int64_t n_ = porta_mdrange_size_(p_);                                                      \
  const int64_t nc_ = (n_ + PORTA_DET_CHUNK - 1) / PORTA_DET_CHUNK;                                \
  R##_value *q_ = (R##_value *)porta_host_workspace_((size_t)nc_ * sizeof(R##_value));             \
  if (nc_ > 0 && !q_) return PORTA_ERROR_OUT_OF_MEMORY;                                            \
  PORTA_OMP(parallel num_threads(nt_)) {                                                           \
    const ARGS_T a_ = *ap_;                                                                        \
    int64_t clo_, chi_;                                                                            \
    porta_partition_(0, nc_, omp_get_thread_num(), omp_get_num_threads(), &clo_, &chi_);           \
    for (int64_t c_ = clo_; c_ < chi_; ++c_) {                                                     \
      int64_t lo_ = c_ * PORTA_DET_CHUNK,                                                          \
              hi_ = lo_ + PORTA_DET_CHUNK < n_ ? lo_ + PORTA_DET_CHUNK : n_;                       \
      NAME##_porta_det_chunk_(&a_, p_, lo_, hi_, &q_[c_]);                                         \
    }                                                                                              \
  }                                                                                                \
  NAME##_porta_det_tree_(q_, nc_);                                                                 \
  if (nc_ > 0) acc_ = q_[0];

#define PORTA_OPENMP_MDREDUCE2_(NAME, ARGS_T, R)                                                   \
  static int NAME##_porta_openmp_(const porta_launch *L, const void *args, void *result) {         \
    const ARGS_T *ap_ = (const ARGS_T *)args;                                                      \
    const porta_mdrange_policy *p_ = &L->md;                                                       \
    const int nt_ = L->num_threads;                                                                \
    R##_value acc_;                                                                                \
    R##_init(&acc_);                                                                               \
    if (L->deterministic) {                                                                        \
      PORTA_OPENMP_MD_DET_(NAME, ARGS_T, R)                                                        \
    } else {                                                                                       \
      const size_t st_ = PORTA_SLOT_STRIDE_(R##_value);                                            \
      char *slots_ = (char *)porta_host_workspace_((size_t)nt_ * st_);                             \
      if (!slots_) return PORTA_ERROR_OUT_OF_MEMORY;                                               \
      int used_ = 1;                                                                               \
      const int64_t l0_ = p_->lower[0], u0_ = p_->upper[0];                                        \
      const int64_t l1_ = p_->lower[1], u1_ = p_->upper[1];                                        \
      PORTA_OMP(parallel num_threads(nt_)) {                                                       \
        const ARGS_T a_ = *ap_;                                                                    \
        R##_value mine_;                                                                           \
        R##_init(&mine_);                                                                          \
        if (omp_get_thread_num() == 0) used_ = omp_get_num_threads();                              \
        PORTA_OMP(for schedule(static))                                                            \
        for (int64_t i0_ = l0_; i0_ < u0_; ++i0_)                                                  \
          for (int64_t i1_ = l1_; i1_ < u1_; ++i1_) NAME##_porta_body_(&a_, i0_, i1_, &mine_);     \
        memcpy(slots_ + (size_t)omp_get_thread_num() * st_, &mine_, sizeof(R##_value));            \
      }                                                                                            \
      PORTA_OPENMP_JOIN_SLOTS_(R, acc_, slots_, st_, used_)                                        \
    }                                                                                              \
    memcpy(result, &acc_, sizeof(R##_value));                                                      \
    return 0;                                                                                      \
  }

#define PORTA_OPENMP_MDREDUCE3_(NAME, ARGS_T, R)                                                   \
  static int NAME##_porta_openmp_(const porta_launch *L, const void *args, void *result) {         \
    const ARGS_T *ap_ = (const ARGS_T *)args;                                                      \
    const porta_mdrange_policy *p_ = &L->md;                                                       \
    const int nt_ = L->num_threads;                                                                \
    R##_value acc_;                                                                                \
    R##_init(&acc_);                                                                               \
    if (L->deterministic) {                                                                        \
      PORTA_OPENMP_MD_DET_(NAME, ARGS_T, R)                                                        \
    } else {                                                                                       \
      const size_t st_ = PORTA_SLOT_STRIDE_(R##_value);                                            \
      char *slots_ = (char *)porta_host_workspace_((size_t)nt_ * st_);                             \
      if (!slots_) return PORTA_ERROR_OUT_OF_MEMORY;                                               \
      int used_ = 1;                                                                               \
      const int64_t l0_ = p_->lower[0], u0_ = p_->upper[0];                                        \
      const int64_t l1_ = p_->lower[1], u1_ = p_->upper[1];                                        \
      const int64_t l2_ = p_->lower[2], u2_ = p_->upper[2];                                        \
      PORTA_OMP(parallel num_threads(nt_)) {                                                       \
        const ARGS_T a_ = *ap_;                                                                    \
        R##_value mine_;                                                                           \
        R##_init(&mine_);                                                                          \
        if (omp_get_thread_num() == 0) used_ = omp_get_num_threads();                              \
        PORTA_OMP(for collapse(2) schedule(static))                                                \
        for (int64_t i0_ = l0_; i0_ < u0_; ++i0_)                                                  \
          for (int64_t i1_ = l1_; i1_ < u1_; ++i1_)                                                \
            for (int64_t i2_ = l2_; i2_ < u2_; ++i2_)                                              \
              NAME##_porta_body_(&a_, i0_, i1_, i2_, &mine_);                                      \
        memcpy(slots_ + (size_t)omp_get_thread_num() * st_, &mine_, sizeof(R##_value));            \
      }                                                                                            \
      PORTA_OPENMP_JOIN_SLOTS_(R, acc_, slots_, st_, used_)                                        \
    }                                                                                              \
    memcpy(result, &acc_, sizeof(R##_value));                                                      \
    return 0;                                                                                      \
  }

#else
#define PORTA_OPENMP_MDFOR2_(NAME, ARGS_T)
#define PORTA_OPENMP_MDFOR3_(NAME, ARGS_T)
#define PORTA_OPENMP_MDFOR4_(NAME, ARGS_T)
#define PORTA_OPENMP_MDFOR5_(NAME, ARGS_T)
#define PORTA_OPENMP_MDFOR6_(NAME, ARGS_T)
#define PORTA_OPENMP_MDREDUCE2_(NAME, ARGS_T, R)
#define PORTA_OPENMP_MDREDUCE3_(NAME, ARGS_T, R)
#endif

#endif
