/** @file backend/serial/team.h
 *  Serial team launchers (TAG as in serial/range.h): the league in order, teams of one. */
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
    for (int64_t lr_ = 0; lr_ < launch_->team.league_size; ++lr_) {                                \
      porta_host_team_setup_(&t_, &launch_->team, lr_, 0, &sh_, blk_);                             \
      NAME##_porta_body_(&a_, &t_);                                                                \
    }                                                                                              \
    return 0;                                                                                      \
  }

#define PORTA_SERIAL_TEAM_REDUCE_AS_(TAG, NAME, ARGS_T, R)                                         \
  static int NAME##_porta_##TAG##_(const porta_launch *launch_, const void *args_,                 \
                                   void *result_) {                                                \
    const ARGS_T a_ = *(const ARGS_T *)args_;                                                      \
    const int64_t nl_ = launch_->team.league_size;                                                 \
    porta_team_shared sh_;                                                                         \
    porta_team t_;                                                                                 \
    size_t bb_ = porta_align64_(porta_host_team_block_bytes_(&launch_->team));                     \
    char *blk_ = (char *)porta_host_workspace_(bb_ + (size_t)nl_ * sizeof(R##_value));             \
    if (!blk_) return PORTA_ERROR_OUT_OF_MEMORY;                                                   \
    R##_value *part_ = (R##_value *)(blk_ + bb_);                                                  \
    R##_value acc_;                                                                                \
    R##_init(&acc_);                                                                               \
    memset(&sh_, 0, sizeof sh_);                                                                   \
    for (int64_t lr_ = 0; lr_ < nl_; ++lr_) {                                                      \
      porta_host_team_setup_(&t_, &launch_->team, lr_, 0, &sh_, blk_);                             \
      if (launch_->deterministic) {                                                                \
        R##_init(&part_[lr_]);                                                                     \
        NAME##_porta_body_(&a_, &t_, &part_[lr_]);                                                 \
      } else {                                                                                     \
        NAME##_porta_body_(&a_, &t_, &acc_);                                                       \
      }                                                                                            \
    }                                                                                              \
    if (launch_->deterministic && nl_ > 0) {                                                       \
      NAME##_porta_det_tree_(part_, nl_);                                                          \
      acc_ = part_[0];                                                                             \
    }                                                                                              \
    memcpy(result_, &acc_, sizeof(R##_value));                                                     \
    return 0;                                                                                      \
  }

#endif
