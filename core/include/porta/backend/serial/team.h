/** @file backend/serial/team.h
 *  Serial team launchers (TAG as in serial/range.h): the league in order (the launch's league
 *  ranks, porta_launch.league_begin to league_end), teams of one. */
#ifndef PORTA_BACKEND_SERIAL_TEAM_H
#define PORTA_BACKEND_SERIAL_TEAM_H

#define PORTA_SERIAL_TEAM_FOR_AS_(TAG, NAME, ARGS_T)                                               \
  static int NAME##_porta_##TAG##_(const porta_launch *launch_, const void *args_,                 \
                                   void *result_) {                                                \
    (void)result_;                                                                                 \
    const ARGS_T a_ = *(const ARGS_T *)args_;                                                      \
    porta_team_shared sh_;                                                                         \
    porta_team t_;                                                                                 \
    char *blk_ = (char *)porta_host_workspace_(porta_host_team_block_bytes_(&launch_->team));      \
    if (!blk_) return PORTA_ERROR_OUT_OF_MEMORY;                                                   \
    memset(&sh_, 0, sizeof sh_);                                                                   \
    for (int64_t lr_ = launch_->league_begin; lr_ < launch_->league_end; ++lr_) {                  \
      porta_host_team_setup_(&t_, &launch_->team, lr_, 0, &sh_, blk_);                             \
      NAME##_porta_body_(&a_, &t_);                                                                \
    }                                                                                              \
    return 0;                                                                                      \
  }

#define PORTA_SERIAL_TEAM_REDUCE_AS_(TAG, NAME, ARGS_T, R)                                         \
  static int NAME##_porta_##TAG##_(const porta_launch *launch_, const void *args_,                 \
                                   void *result_) {                                                \
    const ARGS_T a_ = *(const ARGS_T *)args_;                                                      \
    const int64_t lb_ = launch_->league_begin, nl_ = launch_->league_end - lb_;                    \
    porta_team_shared sh_;                                                                         \
    porta_team t_;                                                                                 \
    size_t bb_ = porta_align64_(porta_host_team_block_bytes_(&launch_->team));                     \
    char *blk_ = (char *)porta_host_workspace_(bb_ + (size_t)nl_ * sizeof(R##_value));             \
    if (!blk_) return PORTA_ERROR_OUT_OF_MEMORY;                                                   \
    R##_value *part_ = (R##_value *)(blk_ + bb_);                                                  \
    R##_value acc_;                                                                                \
    PORTA_HOST_ACC_START_(R, acc_, launch_)                                                        \
    memset(&sh_, 0, sizeof sh_);                                                                   \
    for (int64_t l_ = 0; l_ < nl_; ++l_) {                                                         \
      porta_host_team_setup_(&t_, &launch_->team, lb_ + l_, 0, &sh_, blk_);                        \
      if (launch_->deterministic) {                                                                \
        R##_init(&part_[l_]);                                                                      \
        NAME##_porta_body_(&a_, &t_, &part_[l_]);                                                  \
      } else {                                                                                     \
        NAME##_porta_body_(&a_, &t_, &acc_);                                                       \
      }                                                                                            \
    }                                                                                              \
    if (launch_->deterministic && nl_ > 0) {                                                       \
      NAME##_porta_det_tree_(part_, nl_);                                                          \
      PORTA_HOST_ACC_SET_(R, acc_, part_[0], launch_)                                              \
    }                                                                                              \
    memcpy(result_, &acc_, sizeof(R##_value));                                                     \
    return 0;                                                                                      \
  }

#endif
