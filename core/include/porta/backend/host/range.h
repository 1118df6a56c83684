/** @file backend/host/range.h
 *  What the host back ends' launchers share over a range: the deterministic decomposition
 *  (chunks of PORTA_DET_CHUNK indices, each PORTA_DET_LANES interleaved lanes, combined by
 *  fixed halving trees, the GPU's order), whose lanes the default mode's sums use too. The kernel
 *  macros stamp these helpers once per kernel, before any back end's generator. */
#ifndef PORTA_BACKEND_HOST_RANGE_H
#define PORTA_BACKEND_HOST_RANGE_H

/** NAME_porta_det_tree_ combines n partials by halving strides (the GPU's shuffle order). */
#define PORTA_HOST_DET_TREE_(NAME, R)                                                              \
  PORTA_UNUSED static void NAME##_porta_det_tree_(R##_value *p, int64_t n) {                       \
    int64_t s = 1;                                                                                 \
    while (s < n) s <<= 1;                                                                         \
    for (s >>= 1; s > 0; s >>= 1)                                                                  \
      for (int64_t l = 0; l < s; ++l)                                                              \
        if (l + s < n) R##_join(&p[l], &p[l + s]);                                                 \
  }

/** NAME_porta_det_chunk_ reduces [lo, hi) of a range into *out: PORTA_DET_LANES interleaved
 *  lanes, then the lanes' tree. A deterministic chunk, and the default mode's loop over a
 *  thread's whole block. */
#define PORTA_HOST_RANGE_CHUNK_(NAME, ARGS_T, R)                                                   \
  PORTA_UNUSED static void NAME##_porta_det_chunk_(const ARGS_T *a, int64_t lo, int64_t hi,        \
                                                   R##_value *out) {                               \
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

/** The helpers of a range reduction, a box reduction and a team reduction. */
#define PORTA_HOST_REDUCE_HELPERS_(NAME, ARGS_T, R)                                                \
  PORTA_HOST_DET_TREE_(NAME, R)                                                                    \
  PORTA_HOST_RANGE_CHUNK_(NAME, ARGS_T, R)
#define PORTA_HOST_MDREDUCE_HELPERS_(NAME, ARGS_T, RANK, R)                                        \
  PORTA_HOST_DET_TREE_(NAME, R)                                                                    \
  PORTA_HOST_MD_CHUNK_(NAME, ARGS_T, RANK, R)
#define PORTA_HOST_TEAM_REDUCE_HELPERS_(NAME, ARGS_T, R) PORTA_HOST_DET_TREE_(NAME, R)

/** Deterministic range reduction of [B, E) into ACC on a host: the chunk partials (chunks
 *  [C0, C1) of them here; all of them with C0 = 0, C1 = NC), then the tree. */
#define PORTA_HOST_DET_CHUNKS_(NAME, A, B, E, C0, C1, P)                                           \
  for (int64_t c_ = (C0); c_ < (C1); ++c_) {                                                       \
    const int64_t lo_ = (B) + c_ * PORTA_DET_CHUNK;                                                \
    const int64_t hi_ = lo_ + PORTA_DET_CHUNK < (E) ? lo_ + PORTA_DET_CHUNK : (E);                 \
    NAME##_porta_det_chunk_((A), lo_, hi_, &(P)[c_]);                                              \
  }

/** ACC (a reducer R's value) at the start of a launch: the identity, or for a piece of a longer
 *  launch the value it continues from (porta_launch.initial). */
#define PORTA_HOST_ACC_START_(R, ACC, L)                                                           \
  {                                                                                                \
    if ((L)->initial)                                                                              \
      memcpy(&(ACC), (L)->initial, sizeof(R##_value));                                             \
    else                                                                                           \
      R##_init(&(ACC));                                                                            \
  }

/** ACC (set by PORTA_HOST_ACC_START_) becomes the launch's value: X itself, or for a piece the
 *  value it continues from joined with X (in that order). */
#define PORTA_HOST_ACC_SET_(R, ACC, X, L)                                                          \
  {                                                                                                \
    if ((L)->initial)                                                                              \
      R##_join(&(ACC), &(X));                                                                      \
    else                                                                                           \
      (ACC) = (X);                                                                                 \
  }

/** Chunks of a deterministic reduction over n points. */
PORTA_FORCEINLINE_FUNCTION int64_t porta_det_chunks_(int64_t n) {
  return n > 0 ? (n + PORTA_DET_CHUNK - 1) / PORTA_DET_CHUNK : 0;
}

#endif
