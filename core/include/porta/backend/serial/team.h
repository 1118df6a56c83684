/** @file backend/serial/team.h
 *  Serial team launchers, and the host team set-up shared with OpenMP.
 *  A host team's workspace block holds, each 64-byte aligned: the exchange slots,
 *  level-0 team scratch, level-0 per-thread scratch, level-1 team, level-1 per-thread. */
#ifndef PORTA_BACKEND_SERIAL_TEAM_H
#define PORTA_BACKEND_SERIAL_TEAM_H

PORTA_FORCEINLINE_FUNCTION size_t porta_align64_(size_t n) { return (n + 63) & ~(size_t)63; }

/** Bytes of one host team's workspace block. */
PORTA_FORCEINLINE_FUNCTION size_t porta_host_team_block_bytes_(const porta_team_policy *p) {
  size_t ts = (size_t)p->team_size, n = porta_align64_(ts * PORTA_TEAM_SLOT_BYTES);
  for (int l = 0; l < 2; ++l)
    n += porta_align64_(p->scratch_team[l]) + ts * porta_align64_(p->scratch_thread[l]);
  return n;
}

/** Point `t` at league rank `lr`, member `tr`, sharing `sh` and the block `blk`. */
PORTA_FORCEINLINE_FUNCTION void porta_host_team_setup_(porta_team *t, const porta_team_policy *p,
                                                       int64_t lr, int tr, porta_team_shared *sh,
                                                       char *blk) {
  size_t ts = (size_t)p->team_size, off = porta_align64_(ts * PORTA_TEAM_SLOT_BYTES);
  t->league_rank = lr;
  t->league_size = p->league_size;
  t->team_rank = tr;
  t->team_size = p->team_size;
  t->vector_length = 1;
  t->vector_lane = 0;
  sh->slots = blk;
  t->shared = sh;
  for (int l = 0; l < 2; ++l) {
    size_t tb = porta_align64_(p->scratch_team[l]), pb = porta_align64_(p->scratch_thread[l]);
    t->scratch[l] = blk + off;
    t->scratch_size[l] = p->scratch_team[l];
    t->scratch_used[l] = 0;
    t->thread_scratch[l] = blk + off + tb + (size_t)tr * pb;
    t->thread_scratch_size[l] = p->scratch_thread[l];
    t->thread_scratch_used[l] = 0;
    off += tb + ts * pb;
  }
}

#define PORTA_SERIAL_TEAM_FOR_(NAME, ARGS_T)                                                       \
  static int NAME##_porta_serial_(const porta_launch *L, const void *args, void *result) {         \
    (void)result;                                                                                  \
    const ARGS_T a_ = *(const ARGS_T *)args;                                                       \
    porta_team_shared sh_;                                                                         \
    porta_team t_;                                                                                 \
    char *blk_ = (char *)porta_host_workspace_(porta_host_team_block_bytes_(&L->team));            \
    if (!blk_) return PORTA_ERROR_OUT_OF_MEMORY;                                                   \
    memset(&sh_, 0, sizeof sh_);                                                                   \
    for (int64_t lr_ = 0; lr_ < L->team.league_size; ++lr_) {                                      \
      porta_host_team_setup_(&t_, &L->team, lr_, 0, &sh_, blk_);                                   \
      NAME##_porta_body_(&a_, &t_);                                                                \
    }                                                                                              \
    return 0;                                                                                      \
  }

#define PORTA_SERIAL_TEAM_REDUCE_(NAME, ARGS_T, R)                                                 \
  PORTA_DET_TREE_(NAME, R)                                                                         \
  static int NAME##_porta_serial_(const porta_launch *L, const void *args, void *result) {         \
    const ARGS_T a_ = *(const ARGS_T *)args;                                                       \
    const int64_t nl_ = L->team.league_size;                                                       \
    porta_team_shared sh_;                                                                         \
    porta_team t_;                                                                                 \
    size_t bb_ = porta_align64_(porta_host_team_block_bytes_(&L->team));                           \
    char *blk_ = (char *)porta_host_workspace_(bb_ + (size_t)nl_ * sizeof(R##_value));             \
    if (!blk_) return PORTA_ERROR_OUT_OF_MEMORY;                                                   \
    R##_value *part_ = (R##_value *)(blk_ + bb_);                                                  \
    R##_value acc_;                                                                                \
    R##_init(&acc_);                                                                               \
    memset(&sh_, 0, sizeof sh_);                                                                   \
    for (int64_t lr_ = 0; lr_ < nl_; ++lr_) {                                                      \
      porta_host_team_setup_(&t_, &L->team, lr_, 0, &sh_, blk_);                                   \
      if (L->deterministic) {                                                                      \
        R##_init(&part_[lr_]);                                                                     \
        NAME##_porta_body_(&a_, &t_, &part_[lr_]);                                                 \
      } else {                                                                                     \
        NAME##_porta_body_(&a_, &t_, &acc_);                                                       \
      }                                                                                            \
    }                                                                                              \
    if (L->deterministic && nl_ > 0) {                                                             \
      NAME##_porta_det_tree_(part_, nl_);                                                          \
      acc_ = part_[0];                                                                             \
    }                                                                                              \
    memcpy(result, &acc_, sizeof(R##_value));                                                      \
    return 0;                                                                                      \
  }

#endif
