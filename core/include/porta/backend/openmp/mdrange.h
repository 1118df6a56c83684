/** @file backend/openmp/mdrange.h
 *  OpenMP launchers for boxes of rank 2 to 6: the outer ranks flattened and split into one
 *  contiguous block per thread (OpenMP's collapse with a static schedule), the last
 *  (contiguous) rank an inner simd loop (host/mdrange.h). No tiling on the host: rows are
 *  already cache-friendly. */
#ifndef PORTA_BACKEND_OPENMP_MDRANGE_H
#define PORTA_BACKEND_OPENMP_MDRANGE_H

#if defined(_OPENMP)

/** This thread's block [LO_, HI_) of the box's outer points. */
#define PORTA_OPENMP_MD_BLOCK_(P, RANK)                                                            \
  int64_t lo_, hi_;                                                                                \
  porta_partition_(0, porta_mdrange_outer_size_((P), RANK), omp_get_thread_num(),                  \
                   omp_get_num_threads(), &lo_, &hi_);

#define PORTA_OPENMP_MDFOR_(NAME, ARGS_T, RANK)                                                    \
  static void NAME##_porta_openmp_part_(const porta_mdrange_policy *p_, const ARGS_T *ap_) {       \
    const ARGS_T a_ = *ap_;                                                                        \
    PORTA_OPENMP_MD_BLOCK_(p_, RANK)                                                               \
    PORTA_HOST_MD_LOOP_(p_, RANK, lo_, hi_, ix_, in_, PORTA_OMP(simd),                             \
                        NAME##_porta_body_(&a_, PORTA_MD_ARGS_(RANK, ix_, in_)))                   \
  }                                                                                                \
  static int NAME##_porta_openmp_(const porta_launch *launch_, const void *args_, void *result_) { \
    (void)result_;                                                                                 \
    const ARGS_T *ap_ = (const ARGS_T *)args_;                                                     \
    PORTA_OPENMP_RUN_(launch_->num_threads, NAME##_porta_openmp_part_(&launch_->md, ap_))          \
    return 0;                                                                                      \
  }

/** Deterministic: the box's tile partials (backend/launch.h), then the fixed tree. Default: one
 * slot per thread, joined in thread order (range.h's parts, over a box). */
#define PORTA_OPENMP_MDREDUCE_(NAME, ARGS_T, RANK, R)                                              \
  static void NAME##_porta_openmp_det_(const ARGS_T *ap_, const porta_mdrange_policy *p_,          \
                                       int64_t nc_, R##_value *q_) {                               \
    const ARGS_T a_ = *ap_;                                                                        \
    int64_t clo_, chi_;                                                                            \
    porta_partition_(0, nc_, omp_get_thread_num(), omp_get_num_threads(), &clo_, &chi_);           \
    PORTA_HOST_MD_DET_CHUNKS_(NAME, &a_, p_, nc_, clo_, chi_, q_)                                  \
  }                                                                                                \
  static void NAME##_porta_openmp_part_(const ARGS_T *ap_, const porta_mdrange_policy *p_,         \
                                        char *slots_, size_t st_, int *used_) {                    \
    const ARGS_T a_ = *ap_;                                                                        \
    R##_value mine_;                                                                               \
    R##_init(&mine_);                                                                              \
    if (omp_get_thread_num() == 0) *used_ = omp_get_num_threads();                                 \
    PORTA_OPENMP_MD_BLOCK_(p_, RANK)                                                               \
    PORTA_HOST_MD_LOOP_(p_, RANK, lo_, hi_, ix_, in_, ,                                            \
                        NAME##_porta_body_(&a_, PORTA_MD_ARGS_(RANK, ix_, in_), &mine_))           \
    memcpy(slots_ + (size_t)omp_get_thread_num() * st_, &mine_, sizeof(R##_value));                \
  }                                                                                                \
  static int NAME##_porta_openmp_(const porta_launch *launch_, const void *args_, void *result_) { \
    const ARGS_T *ap_ = (const ARGS_T *)args_;                                                     \
    const porta_mdrange_policy *p_ = &launch_->md;                                                 \
    const int nt_ = launch_->num_threads;                                                          \
    R##_value acc_;                                                                                \
    PORTA_HOST_ACC_START_(R, acc_, launch_)                                                        \
    if (launch_->deterministic) {                                                                  \
      const int64_t nc_ = porta_md_det_tiles_(p_);                                                 \
      R##_value *q_ = (R##_value *)porta_host_workspace_((size_t)nc_ * sizeof(R##_value));         \
      if (nc_ > 0 && !q_) return PORTA_ERROR_OUT_OF_MEMORY;                                        \
      PORTA_OPENMP_RUN_(nt_, NAME##_porta_openmp_det_(ap_, p_, nc_, q_))                           \
      NAME##_porta_det_tree_(q_, nc_);                                                             \
      if (nc_ > 0) PORTA_HOST_ACC_SET_(R, acc_, q_[0], launch_)                                    \
    } else {                                                                                       \
      const size_t st_ = PORTA_SLOT_STRIDE_(R##_value);                                            \
      char *slots_ = (char *)porta_host_workspace_((size_t)nt_ * st_);                             \
      if (!slots_) return PORTA_ERROR_OUT_OF_MEMORY;                                               \
      int used_ = 1;                                                                               \
      PORTA_OPENMP_RUN_(nt_, NAME##_porta_openmp_part_(ap_, p_, slots_, st_, &used_))              \
      PORTA_OPENMP_JOIN_SLOTS_(R, acc_, slots_, st_, used_)                                        \
    }                                                                                              \
    memcpy(result_, &acc_, sizeof(R##_value));                                                     \
    return 0;                                                                                      \
  }

#endif

#endif
