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

/** Deterministic reduction of box BOX: the partials Q[C0 .. C1) of its tiles. */
#define PORTA_HOST_MD_DET_CHUNKS_(NAME, A, BOX, C0, C1, Q)                                         \
  for (int64_t c_ = (C0); c_ < (C1); ++c_) NAME##_porta_det_chunk_((A), (BOX), c_, &(Q)[c_]);

/** NAME_porta_det_chunk_: tile t of a box (backend/launch.h): lane l takes point l of the
 *  tile's block of index 0 and sums over the tile's points of the other indices in row-major
 *  order; the lanes are then combined by the halving tree. A lane past the box's end adds
 *  nothing. The tile's first point of the other indices is found once (two divisions a rank),
 *  not once a lane: a lane has only 16 points, and the divisions made the deterministic CG
 *  1.7x slower than the plain one on the host. */
#define PORTA_HOST_MD_CHUNK_(NAME, ARGS_T, RANK, R)                                                \
  PORTA_UNUSED static void NAME##_porta_det_chunk_(const ARGS_T *a, const porta_mdrange_policy *p, \
                                                   int64_t t, R##_value *out) {                    \
    R##_value lane[PORTA_DET_LANES];                                                               \
    const int64_t n0_ = p->upper[0] - p->lower[0];                                                 \
    const int64_t nb0_ = (n0_ + PORTA_DET_LANES - 1) / PORTA_DET_LANES;                            \
    const int64_t rest_ = porta_mdrange_size_(p) / n0_;                                            \
    const int64_t q0_ = t / nb0_ * PORTA_DET_TILE_REST;                                            \
    const int64_t q1_ = q0_ + PORTA_DET_TILE_REST < rest_ ? q0_ + PORTA_DET_TILE_REST : rest_;     \
    const int64_t k0_ = p->lower[0] + t % nb0_ * PORTA_DET_LANES;                                  \
    int64_t first_[RANK], rem_ = q0_;                                                              \
    first_[0] = k0_;                                                                               \
    for (int r = (RANK)-1; r >= 1; --r) {                                                          \
      const int64_t ext_ = p->upper[r] - p->lower[r];                                              \
      first_[r] = p->lower[r] + rem_ % ext_;                                                       \
      rem_ /= ext_;                                                                                \
    }                                                                                              \
    for (int l = 0; l < PORTA_DET_LANES; ++l) {                                                    \
      R##_value v_;                                                                                \
      R##_init(&v_);                                                                               \
      if (k0_ + l < p->upper[0]) {                                                                 \
        int64_t ix_[RANK];                                                                         \
        for (int r = 0; r < (RANK); ++r) ix_[r] = first_[r];                                       \
        ix_[0] = k0_ + l;                                                                          \
        for (int64_t q_ = q0_; q_ < q1_; ++q_) {                                                   \
          NAME##_porta_body_(a, PORTA_MD_ARGS_(RANK, ix_, ix_[(RANK)-1]), &v_);                    \
          for (int r = (RANK)-1; r >= 1; --r) {                                                    \
            if (++ix_[r] < p->upper[r] || r == 1) break;                                           \
            ix_[r] = p->lower[r];                                                                  \
          }                                                                                        \
        }                                                                                          \
      }                                                                                            \
      lane[l] = v_;                                                                                \
    }                                                                                              \
    for (int s = PORTA_DET_LANES / 2; s > 0; s >>= 1)                                              \
      for (int l = 0; l < s; ++l) R##_join(&lane[l], &lane[l + s]);                                \
    *out = lane[0];                                                                                \
  }

#endif
