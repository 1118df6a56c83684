/** @file backend/serial/range.h
 *  Serial launchers for range for / reduce / scan. Each generator takes the launcher's TAG
 *  (the launcher is NAME_porta_TAG_), so a copy of this back end under another name reuses
 *  them (the test-only back end `replica`). */
#ifndef PORTA_BACKEND_SERIAL_RANGE_H
#define PORTA_BACKEND_SERIAL_RANGE_H

#define PORTA_SERIAL_FOR_AS_(TAG, NAME, ARGS_T)                                                    \
  static int NAME##_porta_##TAG##_(const porta_launch *launch_, const void *args_,                 \
                                   void *result_) {                                                \
    (void)result_;                                                                                 \
    const ARGS_T a_ = *(const ARGS_T *)args_;                                                      \
    const int64_t e_ = launch_->range.end;                                                         \
    for (int64_t i_ = launch_->range.begin; i_ < e_; ++i_) NAME##_porta_body_(&a_, i_);            \
    return 0;                                                                                      \
  }

/** Deterministic: the chunks' partials, then the tree. Default: the chunk's lanes over the whole
 *  range (independent accumulators, so the adds do not wait on each other; one accumulator ran
 *  a dot product at 0.6 of this speed), without the chunks' partials. */
#define PORTA_SERIAL_REDUCE_AS_(TAG, NAME, ARGS_T, R)                                              \
  static int NAME##_porta_##TAG##_(const porta_launch *launch_, const void *args_,                 \
                                   void *result_) {                                                \
    const ARGS_T a_ = *(const ARGS_T *)args_;                                                      \
    const int64_t b_ = launch_->range.begin, e_ = launch_->range.end;                              \
    R##_value acc_;                                                                                \
    PORTA_HOST_ACC_START_(R, acc_, launch_)                                                        \
    if (launch_->deterministic) {                                                                  \
      const int64_t nc_ = porta_det_chunks_(e_ - b_);                                              \
      R##_value *p_ = (R##_value *)porta_host_workspace_((size_t)nc_ * sizeof(R##_value));         \
      if (nc_ > 0 && !p_) return PORTA_ERROR_OUT_OF_MEMORY;                                        \
      PORTA_HOST_DET_CHUNKS_(NAME, &a_, b_, e_, 0, nc_, p_)                                        \
      NAME##_porta_det_tree_(p_, nc_);                                                             \
      if (nc_ > 0) PORTA_HOST_ACC_SET_(R, acc_, p_[0], launch_)                                    \
    } else if (e_ > b_) {                                                                          \
      R##_value x_;                                                                                \
      NAME##_porta_det_chunk_(&a_, b_, e_, &x_);                                                   \
      PORTA_HOST_ACC_SET_(R, acc_, x_, launch_)                                                    \
    }                                                                                              \
    memcpy(result_, &acc_, sizeof(R##_value));                                                     \
    return 0;                                                                                      \
  }

#define PORTA_SERIAL_SCAN_AS_(TAG, NAME, ARGS_T, R)                                                \
  static int NAME##_porta_##TAG##_(const porta_launch *launch_, const void *args_, void *total_) { \
    const ARGS_T a_ = *(const ARGS_T *)args_;                                                      \
    R##_value upd_;                                                                                \
    PORTA_HOST_ACC_START_(R, upd_, launch_)                                                        \
    for (int64_t i_ = launch_->range.begin; i_ < launch_->range.end; ++i_)                         \
      NAME##_porta_body_(&a_, i_, &upd_, 1);                                                       \
    if (total_) memcpy(total_, &upd_, sizeof(R##_value));                                          \
    return 0;                                                                                      \
  }

#endif
