/** @file backend/host/mdrange.h
 *  Rank-generic loops over a box for the host back ends: the outer ranks 0 .. RANK-2 flattened
 *  in row-major order (a thread takes a contiguous block of them, as OpenMP's collapse with a
 *  static schedule does), the last rank the innermost loop; and the deterministic tile of a
 *  box. One body serves ranks 2 to 6 (PORTA_MDRANGE_MAX_RANK). */
#ifndef PORTA_BACKEND_HOST_MDRANGE_H
#define PORTA_BACKEND_HOST_MDRANGE_H

/** The body's index arguments of a rank-RANK kernel: X[0], ..., X[RANK-2], LAST. */
#define PORTA_MD_ARGS_(RANK, X, LAST) PORTA_MD_ARGS_##RANK##_(X, LAST)
#define PORTA_MD_ARGS_2_(X, LAST) X[0], LAST
#define PORTA_MD_ARGS_3_(X, LAST) X[0], X[1], LAST
#define PORTA_MD_ARGS_4_(X, LAST) X[0], X[1], X[2], LAST
#define PORTA_MD_ARGS_5_(X, LAST) X[0], X[1], X[2], X[3], LAST
#define PORTA_MD_ARGS_6_(X, LAST) X[0], X[1], X[2], X[3], X[4], LAST

/** Number of points in a box (0 if any extent is empty). */
PORTA_FORCEINLINE_FUNCTION int64_t porta_mdrange_size_(const porta_mdrange_policy *p) {
  int64_t n = 1;
  for (int r = 0; r < p->rank; ++r) n *= p->upper[r] > p->lower[r] ? p->upper[r] - p->lower[r] : 0;
  return n;
}

/** Number of points of the box's outer ranks 0 .. rank-2 (0 if any is empty). */
PORTA_FORCEINLINE_FUNCTION int64_t porta_mdrange_outer_size_(const porta_mdrange_policy *p,
                                                             int rank) {
  int64_t n = 1;
  for (int r = 0; r < rank - 1; ++r) n *= p->upper[r] > p->lower[r] ? p->upper[r] - p->lower[r] : 0;
  return n;
}

/** Outer points [LO, HI) of box P (flattened ranks 0 .. RANK-2): STMT runs for every point with
 *  X[0 .. RANK-2] its outer indices and IN the innermost index, which INNER (a pragma, or
 *  nothing) annotates. LO < HI implies every outer extent is positive. */
#define PORTA_HOST_MD_LOOP_(P, RANK, LO, HI, X, IN, INNER, STMT)                                   \
  {                                                                                                \
    int64_t X[(RANK)-1], rem_ = (LO);                                                              \
    for (int r_ = (RANK)-2; r_ >= 0; --r_) {                                                       \
      const int64_t ext_ = (P)->upper[r_] - (P)->lower[r_];                                        \
      X[r_] = (P)->lower[r_] + (ext_ > 0 ? rem_ % ext_ : 0);                                       \
      rem_ = ext_ > 0 ? rem_ / ext_ : 0;                                                           \
    }                                                                                              \
    const int64_t inl_ = (P)->lower[(RANK)-1], inu_ = (P)->upper[(RANK)-1];                        \
    for (int64_t k_ = (LO); k_ < (HI); ++k_) {                                                     \
      INNER for (int64_t IN = inl_; IN < inu_; ++IN) STMT;                                         \
      for (int r_ = (RANK)-2; r_ >= 0; --r_) {                                                     \
        if (++X[r_] < (P)->upper[r_]) break;                                                       \
        X[r_] = (P)->lower[r_];                                                                    \
      }                                                                                            \
    }                                                                                              \
  }

/** Tiles of a deterministic reduction over box P (backend/launch.h): index 0 in blocks of
 *  PORTA_DET_LANES, the other indices (flattened row-major) in blocks of PORTA_DET_TILE_REST. */
PORTA_FORCEINLINE_FUNCTION int64_t porta_md_det_tiles_(const porta_mdrange_policy *p) {
  const int64_t n0 = p->upper[0] > p->lower[0] ? p->upper[0] - p->lower[0] : 0;
  if (n0 == 0) return 0;
  const int64_t rest = porta_mdrange_size_(p) / n0;
  return (n0 + PORTA_DET_LANES - 1) / PORTA_DET_LANES *
         ((rest + PORTA_DET_TILE_REST - 1) / PORTA_DET_TILE_REST);
}

/** The point after IX[0 .. RANK) in the row-major order of box P's indices 1 .. RANK-1 (index
 *  0 stays). */
#define PORTA_HOST_MD_NEXT_(P, RANK, IX)                                                           \
  for (int r_ = (RANK)-1; r_ >= 1; --r_) {                                                         \
    if (++(IX)[r_] < (P)->upper[r_] || r_ == 1) break;                                             \
    (IX)[r_] = (P)->lower[r_];                                                                     \
  }

/** Strips (blocks of the other indices) a host lane runs through at once in a deterministic box
 *  reduction: as many as 64 KB of its tiles' lane partials hold (a row of 4096 doubles). */
#define PORTA_HOST_DET_STRIPS_(T)                                                                  \
  (65536 / (PORTA_DET_LANES * sizeof(T)) > 0 ? 65536 / (PORTA_DET_LANES * sizeof(T)) : 1)

/** Deterministic reduction of box BOX of NC tiles (backend/launch.h): the partials of the
 *  tiles visited C0-th to C1-th, each in its own place of Q (tile t: block t % nb0 of index 0,
 *  strip t / nb0 of the other indices). They are visited a block of index 0 at a time, across
 *  the strips, so that a host lane reads its row of the box in order. */
#define PORTA_HOST_MD_DET_CHUNKS_(NAME, A, BOX, NC, C0, C1, Q)                                     \
  {                                                                                                \
    const int64_t nb0_ =                                                                           \
        ((BOX)->upper[0] - (BOX)->lower[0] + PORTA_DET_LANES - 1) / PORTA_DET_LANES;               \
    const int64_t ns_ = nb0_ > 0 ? (NC) / nb0_ : 1;                                                \
    for (int64_t c_ = (C0); c_ < (C1);) {                                                          \
      const int64_t s0_ = c_ % ns_, seg_ = PORTA_HOST_DET_STRIPS_(*(Q));                           \
      int64_t s1_ = s0_ + seg_ < ns_ ? s0_ + seg_ : ns_;                                           \
      if (s1_ - s0_ > (C1)-c_) s1_ = s0_ + ((C1)-c_);                                              \
      NAME##_porta_det_strips_((A), (BOX), c_ / ns_, nb0_, s0_, s1_, (Q));                         \
      c_ += s1_ - s0_;                                                                             \
    }                                                                                              \
  }

/** NAME_porta_det_strips_: tiles (B, S0) .. (B, S1) of a box (backend/launch.h), at most
 *  PORTA_HOST_DET_STRIPS_ of them. Lane l takes point l of index 0's block B and, strip by
 *  strip, sums the strip's points of the other indices in row-major order (a lane runs
 *  through its strips in one go, as a row is laid out); each tile's lanes are then combined by
 *  the halving tree. A lane past the box's end adds nothing. The lane's first point is found
 *  once (two divisions a rank), not once a tile. */
#define PORTA_HOST_MD_CHUNK_(NAME, ARGS_T, RANK, R)                                                \
  PORTA_UNUSED static void NAME##_porta_det_strips_(                                               \
      const ARGS_T *a, const porta_mdrange_policy *p, int64_t b, int64_t nb0, int64_t s0,          \
      int64_t s1, R##_value *out) {                                                                \
    R##_value lane[PORTA_HOST_DET_STRIPS_(R##_value)][PORTA_DET_LANES];                            \
    const int64_t n0_ = p->upper[0] - p->lower[0];                                                 \
    const int64_t rest_ = porta_mdrange_size_(p) / n0_;                                            \
    const int64_t k0_ = p->lower[0] + b * PORTA_DET_LANES;                                         \
    int64_t first_[RANK], rem_ = s0 * PORTA_DET_TILE_REST;                                         \
    first_[0] = k0_;                                                                               \
    for (int r = (RANK)-1; r >= 1; --r) {                                                          \
      const int64_t ext_ = p->upper[r] - p->lower[r];                                              \
      first_[r] = p->lower[r] + rem_ % ext_;                                                       \
      rem_ /= ext_;                                                                                \
    }                                                                                              \
    for (int l = 0; l < PORTA_DET_LANES; ++l) {                                                    \
      int64_t ix_[RANK];                                                                           \
      for (int r = 0; r < (RANK); ++r) ix_[r] = first_[r];                                         \
      ix_[0] = k0_ + l;                                                                            \
      const int in_ = k0_ + l < p->upper[0];                                                       \
      for (int64_t s = s0; s < s1; ++s) {                                                          \
        R##_value v_;                                                                              \
        R##_init(&v_);                                                                             \
        if (in_ && (s + 1) * PORTA_DET_TILE_REST <= rest_ &&                                       \
            ix_[(RANK)-1] + PORTA_DET_TILE_REST <= p->upper[(RANK)-1]) {                           \
          /* a whole strip in one row of the last index; a one-word accumulator (a sum, a          \
             minimum) lives in a register, so the points' independence is the loop's */            \
          if (sizeof(R##_value) <= sizeof(double)) {                                               \
            PORTA_IVDEP for (int q_ = 0; q_ < PORTA_DET_TILE_REST; ++q_)                           \
                NAME##_porta_body_(a, PORTA_MD_ARGS_(RANK, ix_, ix_[(RANK)-1] + q_), &v_);         \
          } else {                                                                                 \
            for (int q_ = 0; q_ < PORTA_DET_TILE_REST; ++q_)                                       \
              NAME##_porta_body_(a, PORTA_MD_ARGS_(RANK, ix_, ix_[(RANK)-1] + q_), &v_);           \
          }                                                                                        \
          ix_[(RANK)-1] += PORTA_DET_TILE_REST - 1;                                                \
          PORTA_HOST_MD_NEXT_(p, RANK, ix_)                                                        \
        } else if (in_) {                                                                          \
          const int64_t q1_ =                                                                      \
              (s + 1) * PORTA_DET_TILE_REST < rest_ ? (s + 1) * PORTA_DET_TILE_REST : rest_;       \
          for (int64_t q_ = s * PORTA_DET_TILE_REST; q_ < q1_; ++q_) {                             \
            NAME##_porta_body_(a, PORTA_MD_ARGS_(RANK, ix_, ix_[(RANK)-1]), &v_);                  \
            PORTA_HOST_MD_NEXT_(p, RANK, ix_)                                                      \
          }                                                                                        \
        }                                                                                          \
        lane[s - s0][l] = v_;                                                                      \
      }                                                                                            \
    }                                                                                              \
    for (int64_t s = s0; s < s1; ++s) {                                                            \
      R##_value *t_ = lane[s - s0];                                                                \
      for (int w = PORTA_DET_LANES / 2; w > 0; w >>= 1)                                            \
        for (int l = 0; l < w; ++l) R##_join(&t_[l], &t_[l + w]);                                  \
      out[s * nb0 + b] = t_[0];                                                                    \
    }                                                                                              \
  }

#endif
