/** @file backend/serial/mdrange.h
 *  Serial launchers for boxes of rank 2 to 6: one rank-generic loop (host/mdrange.h), the
 *  last index innermost. */
#ifndef PORTA_BACKEND_SERIAL_MDRANGE_H
#define PORTA_BACKEND_SERIAL_MDRANGE_H

#define PORTA_SERIAL_MDFOR_AS_(TAG, NAME, ARGS_T, RANK)                                            \
  static int NAME##_porta_##TAG##_(const porta_launch *launch_, const void *args_,                 \
                                   void *result_) {                                                \
    (void)result_;                                                                                 \
    const ARGS_T a_ = *(const ARGS_T *)args_;                                                      \
    const porta_mdrange_policy *p_ = &launch_->md;                                                 \
    PORTA_HOST_MD_LOOP_(p_, RANK, 0, porta_mdrange_outer_size_(p_, RANK), ix_, in_, ,              \
                        NAME##_porta_body_(&a_, PORTA_MD_ARGS_(RANK, ix_, in_)))                   \
    return 0;                                                                                      \
  }

/** Deterministic: chunks of the flattened box, then the tree; default: one accumulator (which a
 *  piece of a longer launch starts at the previous pieces' value, so pieces give the bits of
 *  the whole). */
#define PORTA_SERIAL_MDREDUCE_AS_(TAG, NAME, ARGS_T, RANK, R)                                      \
  static int NAME##_porta_##TAG##_(const porta_launch *launch_, const void *args_,                 \
                                   void *result_) {                                                \
    const ARGS_T a_ = *(const ARGS_T *)args_;                                                      \
    const porta_mdrange_policy *p_ = &launch_->md;                                                 \
    R##_value acc_;                                                                                \
    PORTA_HOST_ACC_START_(R, acc_, launch_)                                                        \
    if (launch_->deterministic) {                                                                  \
      const int64_t nc_ = porta_md_det_tiles_(p_);                                                 \
      R##_value *q_ = (R##_value *)porta_host_workspace_((size_t)nc_ * sizeof(R##_value));         \
      if (nc_ > 0 && !q_) return PORTA_ERROR_OUT_OF_MEMORY;                                        \
      PORTA_HOST_MD_DET_CHUNKS_(NAME, &a_, p_, nc_, 0, nc_, q_)                                    \
      NAME##_porta_det_tree_(q_, nc_);                                                             \
      if (nc_ > 0) PORTA_HOST_ACC_SET_(R, acc_, q_[0], launch_)                                    \
    } else {                                                                                       \
      PORTA_HOST_MD_LOOP_(p_, RANK, 0, porta_mdrange_outer_size_(p_, RANK), ix_, in_, ,            \
                          NAME##_porta_body_(&a_, PORTA_MD_ARGS_(RANK, ix_, in_), &acc_))          \
    }                                                                                              \
    memcpy(result_, &acc_, sizeof(R##_value));                                                     \
    return 0;                                                                                      \
  }

#endif
