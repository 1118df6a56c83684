/** @file backend/openmp/range.h
 *  OpenMP launchers for range for / reduce / scan. Static schedules give each
 *  thread one contiguous block (porta_partition_); dynamic ones use omp for. */
#ifndef PORTA_BACKEND_OPENMP_RANGE_H
#define PORTA_BACKEND_OPENMP_RANGE_H

#if defined(_OPENMP)
#include <omp.h>

/** Reduction slots are one cache line apart so threads do not share lines. */
#define PORTA_SLOT_STRIDE_(T) ((sizeof(T) + 63) & ~(size_t)63)

/** ACC joined with the USED per-thread partials in SLOTS (one every ST bytes), in thread order:
 *  the tail of every non-deterministic OpenMP reduction. */
#define PORTA_OPENMP_JOIN_SLOTS_(R, ACC, SLOTS, ST, USED)                                          \
  for (int slot_ = 0; slot_ < (USED); ++slot_) {                                                   \
    R##_value x_;                                                                                  \
    memcpy(&x_, (SLOTS) + (size_t)slot_ * (ST), sizeof(R##_value));                                \
    R##_join(&(ACC), &x_);                                                                         \
  }

/** CALL on NT threads: in a parallel region, or with one thread on the calling thread, where
 *  omp_get_thread_num() is 0 and omp_get_num_threads() 1 as in a region of one. libgomp builds
 *  and frees a team for every region, even of one thread, and wakes a futex: ~0.5 us a launch,
 *  paid by every MPI rank of one thread. */
#define PORTA_OPENMP_RUN_(NT, CALL)                                                                \
  if ((NT) <= 1) {                                                                                 \
    CALL;                                                                                          \
  } else {                                                                                         \
    PORTA_OMP(parallel num_threads(NT)) { CALL; }                                                  \
  }

#define PORTA_OPENMP_FOR_(NAME, ARGS_T)                                                            \
  static void NAME##_porta_openmp_part_(const porta_launch *launch_, const ARGS_T *ap_) {          \
    const ARGS_T a_ = *ap_;                                                                        \
    const int64_t b_ = launch_->range.begin, e_ = launch_->range.end;                              \
    if (launch_->range.schedule == PORTA_SCHEDULE_DYNAMIC) {                                       \
      const int64_t ch_ = launch_->range.chunk > 0 ? launch_->range.chunk : 1;                     \
      (void)ch_; /* used only inside the pragma, which nvcc's front end does not read */           \
      PORTA_OMP(for schedule(dynamic, ch_))                                                        \
      for (int64_t i_ = b_; i_ < e_; ++i_) NAME##_porta_body_(&a_, i_);                            \
    } else {                                                                                       \
      int64_t lo_, hi_;                                                                            \
      porta_partition_(b_, e_, omp_get_thread_num(), omp_get_num_threads(), &lo_, &hi_);           \
      for (int64_t i_ = lo_; i_ < hi_; ++i_) NAME##_porta_body_(&a_, i_);                          \
    }                                                                                              \
  }                                                                                                \
  static int NAME##_porta_openmp_(const porta_launch *launch_, const void *args_, void *result_) { \
    (void)result_;                                                                                 \
    const ARGS_T *ap_ = (const ARGS_T *)args_;                                                     \
    PORTA_OPENMP_RUN_(launch_->num_threads, NAME##_porta_openmp_part_(launch_, ap_))               \
    return 0;                                                                                      \
  }

#define PORTA_OPENMP_REDUCE_(NAME, ARGS_T, R)                                                      \
  /* deterministic: this thread's block of the chunks of [B, E), partials into P */                \
  static void NAME##_porta_openmp_det_(const ARGS_T *ap_, int64_t b_, int64_t e_, int64_t nc_,     \
                                       R##_value *p_) {                                            \
    const ARGS_T a_ = *ap_;                                                                        \
    int64_t clo_, chi_;                                                                            \
    porta_partition_(0, nc_, omp_get_thread_num(), omp_get_num_threads(), &clo_, &chi_);           \
    PORTA_HOST_DET_CHUNKS_(NAME, &a_, b_, e_, clo_, chi_, p_)                                      \
  }                                                                                                \
  /* default: this thread's block of [B, E) into its slot; thread 0 says how many ran */           \
  static void NAME##_porta_openmp_part_(const ARGS_T *ap_, int64_t b_, int64_t e_, char *slots_,   \
                                        size_t st_, int *used_) {                                  \
    const ARGS_T a_ = *ap_;                                                                        \
    R##_value mine_;                                                                               \
    R##_init(&mine_);                                                                              \
    int t_ = omp_get_thread_num();                                                                 \
    if (t_ == 0) *used_ = omp_get_num_threads();                                                   \
    int64_t lo_, hi_;                                                                              \
    porta_partition_(b_, e_, t_, omp_get_num_threads(), &lo_, &hi_);                               \
    if (hi_ > lo_) NAME##_porta_det_chunk_(&a_, lo_, hi_, &mine_);                                 \
    memcpy(slots_ + (size_t)t_ * st_, &mine_, sizeof(R##_value));                                  \
  }                                                                                                \
  static int NAME##_porta_openmp_(const porta_launch *launch_, const void *args_, void *result_) { \
    const ARGS_T *ap_ = (const ARGS_T *)args_;                                                     \
    const int64_t b_ = launch_->range.begin, e_ = launch_->range.end;                              \
    const int nt_ = launch_->num_threads;                                                          \
    R##_value acc_;                                                                                \
    PORTA_HOST_ACC_START_(R, acc_, launch_)                                                        \
    if (launch_->deterministic) {                                                                  \
      const int64_t nc_ = porta_det_chunks_(e_ - b_);                                              \
      R##_value *p_ = (R##_value *)porta_host_workspace_((size_t)nc_ * sizeof(R##_value));         \
      if (nc_ > 0 && !p_) return PORTA_ERROR_OUT_OF_MEMORY;                                        \
      PORTA_OPENMP_RUN_(nt_, NAME##_porta_openmp_det_(ap_, b_, e_, nc_, p_))                       \
      NAME##_porta_det_tree_(p_, nc_);                                                             \
      if (nc_ > 0) PORTA_HOST_ACC_SET_(R, acc_, p_[0], launch_)                                    \
    } else {                                                                                       \
      const size_t st_ = PORTA_SLOT_STRIDE_(R##_value);                                            \
      char *slots_ = (char *)porta_host_workspace_((size_t)nt_ * st_);                             \
      if (!slots_) return PORTA_ERROR_OUT_OF_MEMORY;                                               \
      int used_ = 1;                                                                               \
      PORTA_OPENMP_RUN_(nt_, NAME##_porta_openmp_part_(ap_, b_, e_, slots_, st_, &used_))          \
      PORTA_OPENMP_JOIN_SLOTS_(R, acc_, slots_, st_, used_)                                        \
    }                                                                                              \
    memcpy(result_, &acc_, sizeof(R##_value));                                                     \
    return 0;                                                                                      \
  }

/** Two passes: each thread sums its block, threads' prefixes are combined in order (after the
 *  value a piece of a longer launch continues from, INIT_), then each thread rescans its block
 *  with FINAL set. */
#define PORTA_OPENMP_SCAN_(NAME, ARGS_T, R)                                                        \
  static void NAME##_porta_openmp_part_(const ARGS_T *ap_, int64_t b_, int64_t e_, char *slots_,   \
                                        size_t st_, int nt_, const void *init_) {                  \
    const ARGS_T a_ = *ap_;                                                                        \
    const int t_ = omp_get_thread_num(), n_ = omp_get_num_threads();                               \
    int64_t lo_, hi_;                                                                              \
    R##_value upd_, x_;                                                                            \
    porta_partition_(b_, e_, t_, n_, &lo_, &hi_);                                                  \
    R##_init(&upd_);                                                                               \
    for (int64_t i_ = lo_; i_ < hi_; ++i_) NAME##_porta_body_(&a_, i_, &upd_, 0);                  \
    memcpy(slots_ + (size_t)t_ * st_, &upd_, sizeof(R##_value));                                   \
    PORTA_OMP(barrier)                                                                             \
    if (init_)                                                                                     \
      memcpy(&upd_, init_, sizeof(R##_value));                                                     \
    else                                                                                           \
      R##_init(&upd_);                                                                             \
    for (int s_ = 0; s_ < t_; ++s_) {                                                              \
      memcpy(&x_, slots_ + (size_t)s_ * st_, sizeof(R##_value));                                   \
      R##_join(&upd_, &x_);                                                                        \
    }                                                                                              \
    for (int64_t i_ = lo_; i_ < hi_; ++i_) NAME##_porta_body_(&a_, i_, &upd_, 1);                  \
    if (t_ == n_ - 1) memcpy(slots_ + (size_t)nt_ * st_, &upd_, sizeof(R##_value));                \
  }                                                                                                \
  static int NAME##_porta_openmp_(const porta_launch *launch_, const void *args_, void *total_) {  \
    const ARGS_T *ap_ = (const ARGS_T *)args_;                                                     \
    const int64_t b_ = launch_->range.begin, e_ = launch_->range.end;                              \
    const int nt_ = launch_->num_threads;                                                          \
    const size_t st_ = PORTA_SLOT_STRIDE_(R##_value);                                              \
    char *slots_ = (char *)porta_host_workspace_((size_t)(nt_ + 1) * st_);                         \
    if (!slots_) return PORTA_ERROR_OUT_OF_MEMORY;                                                 \
    PORTA_OPENMP_RUN_(nt_,                                                                         \
                      NAME##_porta_openmp_part_(ap_, b_, e_, slots_, st_, nt_, launch_->initial))  \
    if (total_) memcpy(total_, slots_ + (size_t)nt_ * st_, sizeof(R##_value));                     \
    return 0;                                                                                      \
  }

#endif

#endif
