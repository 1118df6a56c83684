/** @file backend/serial/range.h
 *  Serial launchers for range for / reduce / scan, and the deterministic
 *  reduction helpers every host back end shares. */
#ifndef PORTA_BACKEND_SERIAL_RANGE_H
#define PORTA_BACKEND_SERIAL_RANGE_H

/** Deterministic helpers for reducer R over any index space, stamped per kernel:
 *  NAME_porta_det_tree_ combines n partials by halving strides (the GPU's shuffle order). */
#define PORTA_DET_TREE_(NAME, R)                                                                   \
  static void NAME##_porta_det_tree_(R##_value *p, int64_t n) {                                    \
    int64_t s = 1;                                                                                 \
    while (s < n) s <<= 1;                                                                         \
    for (s >>= 1; s > 0; s >>= 1)                                                                  \
      for (int64_t l = 0; l < s; ++l)                                                              \
        if (l + s < n) R##_join(&p[l], &p[l + s]);                                                 \
  }

/** One deterministic chunk [lo, hi) of a range: PORTA_DET_LANES interleaved lanes, then a tree. */
#define PORTA_DET_RANGE_CHUNK_(NAME, ARGS_T, R)                                                    \
  static void NAME##_porta_det_chunk_(const ARGS_T *a, int64_t lo, int64_t hi, R##_value *out) {   \
    R##_value lane[PORTA_DET_LANES];                                                               \
    for (int l = 0; l < PORTA_DET_LANES; ++l) R##_init(&lane[l]);                                  \
    int64_t base = lo;                                                                             \
    for (; base + PORTA_DET_LANES <= hi; base += PORTA_DET_LANES)                                  \
      for (int l = 0; l < PORTA_DET_LANES; ++l) NAME##_porta_body_(a, base + l, &lane[l]);         \
    for (int l = 0; base + l < hi; ++l) NAME##_porta_body_(a, base + l, &lane[l]);                 \
    for (int s = PORTA_DET_LANES / 2; s > 0; s >>= 1)                                              \
      for (int l = 0; l < s; ++l) R##_join(&lane[l], &lane[l + s]);                                \
    *out = lane[0];                                                                                \
  }

#define PORTA_SERIAL_FOR_(NAME, ARGS_T)                                                            \
  static int NAME##_porta_serial_(const porta_launch *L, const void *args, void *result) {         \
    (void)result;                                                                                  \
    const ARGS_T a_ = *(const ARGS_T *)args;                                                       \
    const int64_t e_ = L->range.end;                                                               \
    for (int64_t i_ = L->range.begin; i_ < e_; ++i_) NAME##_porta_body_(&a_, i_);                  \
    return 0;                                                                                      \
  }

#define PORTA_SERIAL_REDUCE_(NAME, ARGS_T, R)                                                      \
  PORTA_DET_TREE_(NAME, R)                                                                         \
  PORTA_DET_RANGE_CHUNK_(NAME, ARGS_T, R)                                                          \
  static int NAME##_porta_serial_(const porta_launch *L, const void *args, void *result) {         \
    const ARGS_T a_ = *(const ARGS_T *)args;                                                       \
    const int64_t b_ = L->range.begin, e_ = L->range.end;                                          \
    R##_value acc_;                                                                                \
    R##_init(&acc_);                                                                               \
    if (L->deterministic) {                                                                        \
      const int64_t nc_ = e_ > b_ ? (e_ - b_ + PORTA_DET_CHUNK - 1) / PORTA_DET_CHUNK : 0;         \
      R##_value *p_ = (R##_value *)porta_host_workspace_((size_t)nc_ * sizeof(R##_value));         \
      if (nc_ > 0 && !p_) return PORTA_ERROR_OUT_OF_MEMORY;                                        \
      for (int64_t c_ = 0; c_ < nc_; ++c_) {                                                       \
        int64_t lo_ = b_ + c_ * PORTA_DET_CHUNK;                                                   \
        int64_t hi_ = lo_ + PORTA_DET_CHUNK < e_ ? lo_ + PORTA_DET_CHUNK : e_;                     \
        NAME##_porta_det_chunk_(&a_, lo_, hi_, &p_[c_]);                                           \
      }                                                                                            \
      NAME##_porta_det_tree_(p_, nc_);                                                             \
      if (nc_ > 0) acc_ = p_[0];                                                                   \
    } else {                                                                                       \
      for (int64_t i_ = b_; i_ < e_; ++i_) NAME##_porta_body_(&a_, i_, &acc_);                     \
    }                                                                                              \
    memcpy(result, &acc_, sizeof(R##_value));                                                      \
    return 0;                                                                                      \
  }

#define PORTA_SERIAL_SCAN_(NAME, ARGS_T, R)                                                        \
  static int NAME##_porta_serial_(const porta_launch *L, const void *args, void *total) {          \
    const ARGS_T a_ = *(const ARGS_T *)args;                                                       \
    R##_value upd_;                                                                                \
    R##_init(&upd_);                                                                               \
    for (int64_t i_ = L->range.begin; i_ < L->range.end; ++i_)                                     \
      NAME##_porta_body_(&a_, i_, &upd_, 1);                                                       \
    if (total) memcpy(total, &upd_, sizeof(R##_value));                                            \
    return 0;                                                                                      \
  }

#endif
