/** @file xsum.h
 *  porta_xsum_f64: an exact (order-independent) sum of doubles, usable as a reducer.
 *
 *  Two tiers (the floating-point expansions of Collange, Defour, Graillat and Iakymchuk's
 *  ExBLAS in front of a long fixed-point accumulator):
 *  - A short floating-point expansion, PORTA_XSUM_TERMS doubles in registers. A term is added
 *    by a cascade of error-free additions (TwoSum): the first double takes the rounded sum, the
 *    next one the rounding error, and so on; the cascade stops as soon as an error is exactly 0,
 *    after one or two steps for most terms. Only a rest that the last double cannot take goes on
 *    to the second tier. A memory-bound loop leaves the arithmetic units idle, so this costs
 *    about what a plain double sum costs.
 *  - A fixed-point superaccumulator: PORTA_XSUM_LIMBS signed 64-bit limbs, limb i holding a
 *    32-bit digit of weight 2^(PORTA_XSUM_MIN_EXP + 32 i) plus 31 bits of headroom for carries.
 *    A double goes in split exactly over at most three limbs; two values join limb by limb.
 *  On the host, an accumulator whose terms often leave the expansion's first two doubles adds
 *  the rest of its terms straight into the limbs instead (porta_xsum_f64_add_flat_): a CPU
 *  mispredicts that branch, a GPU does not.
 *  The value represented is the expansion's doubles plus the limbs, always exactly the sum of
 *  the terms added. Integer addition is associative and commutative, so the sum does not depend
 *  on the order of the additions, the thread count, the back end or the number of MPI ranks
 *  whose accumulators are merged (normalise each, which empties the expansion into the limbs,
 *  then add the limbs, e.g. MPI_Allreduce(MPI_INT64_T, MPI_SUM)); porta_xsum_f64_round() rounds
 *  the exact sum to the nearest double (ties to even) once.
 *
 *  The window. With the defaults (20 limbs, PORTA_XSUM_MIN_EXP = -304) addends in
 *  [2^-304, 2^336) (about 3e-92 .. 1.4e101) are summed exactly. The macros may be defined
 *  before including porta.h (the same everywhere in a program; PORTA_XSUM_MIN_EXP >= -1022, or
 *  -1074): PORTA_XSUM_MIN_EXP -1074 and 66 limbs take every finite double, subnormals included
 *  (a 536-byte value). Outside the window,
 *  the result is never silently wrong:
 *  - an addend with bits below 2^PORTA_XSUM_MIN_EXP has those bits dropped (its magnitude
 *    truncated to the window's grid) before it is added. This is a function of the addend
 *    alone, so the sum stays bitwise order-independent; it is no longer exact and
 *    porta_xsum_f64_status() reports PORTA_XSUM_INEXACT. (Solvers meet such addends: Krylov
 *    vectors have far-field entries of 1e-150 whose squares are far below anything that
 *    matters.) Every double of the expansion is then a multiple of 2^PORTA_XSUM_MIN_EXP too,
 *    so it goes into the limbs exactly.
 *  - an addend >= 2^(PORTA_XSUM_MIN_EXP + 32 PORTA_XSUM_LIMBS), an Inf or a NaN, or a sum that
 *    outgrows the top limb, sets PORTA_XSUM_OVERFLOW / PORTA_XSUM_NONFINITE and
 *    porta_xsum_f64_round() returns NaN.
 *  Carries are propagated (normalised) automatically before any limb can overflow: every 2^29
 *  units of additions into the limbs (a digit below 2^32 is one unit; the host's flat add,
 *  which puts up to 2^52 into a limb, counts 2^20), and when a join would pass that bound.
 *
 *  The limbs are live only once something went into them (count > 0): a GPU thread whose
 *  expansion never overflows never touches them (porta_xsum_f64_init_lazy_).
 *
 *  Use: PORTA_REDUCE / PORTA_MDREDUCE* with reducer porta_xsum_f64; the body calls
 *  porta_xsum_f64_add(acc, term). Not for team collectives (the value exceeds
 *  PORTA_TEAM_SLOT_BYTES; no PORTA_REDUCER_TEAM_OPS). */
#ifndef PORTA_XSUM_H
#define PORTA_XSUM_H

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "porta/macros.h"

#ifndef PORTA_XSUM_LIMBS
#define PORTA_XSUM_LIMBS 20
#endif
#ifndef PORTA_XSUM_MIN_EXP
#define PORTA_XSUM_MIN_EXP (-304)
#endif
/** Doubles in the expansion that takes the terms before the limbs (2 to 8). */
#ifndef PORTA_XSUM_TERMS
#define PORTA_XSUM_TERMS 4
#endif
/** Addends must be smaller than 2^PORTA_XSUM_MAX_EXP in magnitude. */
#define PORTA_XSUM_MAX_EXP (PORTA_XSUM_MIN_EXP + 32 * PORTA_XSUM_LIMBS)

/* compile-time checks in the common subset of C11 and C++17 */
/* the grid's step a normal double (its truncation by powers of two is exact), or the smallest
   subnormal (nothing to truncate) */
typedef char porta_xsum_check_min_exp_[(PORTA_XSUM_MIN_EXP >= -1022 || PORTA_XSUM_MIN_EXP == -1074)
                                           ? 1
                                           : -1];
typedef char porta_xsum_check_max_exp_[(PORTA_XSUM_MAX_EXP <= 1088) ? 1 : -1];
typedef char porta_xsum_check_limbs_[(PORTA_XSUM_LIMBS >= 3) ? 1 : -1];
typedef char porta_xsum_check_terms_[(PORTA_XSUM_TERMS >= 2 && PORTA_XSUM_TERMS <= 8) ? 1 : -1];

/** Status bits (porta_xsum_f64_status). */
#define PORTA_XSUM_INEXACT 1   /**< an addend had bits below the window (dropped) */
#define PORTA_XSUM_OVERFLOW 2  /**< an addend or the sum exceeded the window: round gives NaN */
#define PORTA_XSUM_NONFINITE 4 /**< an Inf or NaN was added: round gives NaN */
/** The status bits among flags' (the host keeps its choice of add above them). */
#define PORTA_XSUM_STATUS_BITS_ 7

/** Units of additions into the limbs between normalisations (each unit adds < 2^32 to a
 *  limb; two joined values stay below 2^63). */
#define PORTA_XSUM_NORM_EVERY_ (1 << 29)

/** The accumulator: value = sum term[k] + sum limb[i] * 2^(PORTA_XSUM_MIN_EXP + 32 i). */
typedef struct porta_xsum_f64_value {
  double term[PORTA_XSUM_TERMS]; /**< the expansion (multiples of 2^PORTA_XSUM_MIN_EXP) */
  int32_t count; /**< additions into the limbs since the last normalisation; 0: limbs unused */
  int32_t flags; /**< PORTA_XSUM_* bits */
  int64_t limb[PORTA_XSUM_LIMBS];
} porta_xsum_f64_value;

/** 2^e as a double, for -1022 <= e <= 1023 (folded to a constant for a constant e). */
PORTA_FORCEINLINE_FUNCTION double porta_xsum_pow2_(int e) {
  const uint64_t bits = (uint64_t)(1023 + e) << 52;
  double x;
  memcpy(&x, &bits, sizeof x);
  return x;
}

/** |x| is below the window's top (every finite double where the window reaches past 2^1023). */
#if PORTA_XSUM_MAX_EXP > 1023
#define PORTA_XSUM_BELOW_TOP_(ax) ((ax) <= DBL_MAX)
#else
#define PORTA_XSUM_BELOW_TOP_(ax) ((ax) < porta_xsum_pow2_(PORTA_XSUM_MAX_EXP))
#endif

/** Terms below 2^PORTA_XSUM_FAST_EXP_ go into the expansion, larger ones straight into the
 *  limbs: below 2^960 no sum of fewer than 2^63 terms makes the expansion's doubles overflow. */
#define PORTA_XSUM_FAST_EXP_ (PORTA_XSUM_MAX_EXP < 960 ? PORTA_XSUM_MAX_EXP : 960)

/** An empty accumulator whose limbs are not written (read only once count > 0). */
PORTA_FORCEINLINE_FUNCTION void porta_xsum_f64_init_lazy_(porta_xsum_f64_value *v) {
  for (int k = 0; k < PORTA_XSUM_TERMS; ++k) v->term[k] = 0.0;
  v->count = 0;
  v->flags = 0;
}

PORTA_INLINE_FUNCTION void porta_xsum_f64_init(porta_xsum_f64_value *v) {
  porta_xsum_f64_init_lazy_(v);
  for (int i = 0; i < PORTA_XSUM_LIMBS; ++i) v->limb[i] = 0;
}

/** The limbs made live (zeroed) before the first addition into them. */
PORTA_INLINE_FUNCTION void porta_xsum_f64_open_(porta_xsum_f64_value *v) {
  if (v->count == 0) {
    for (int i = 0; i < PORTA_XSUM_LIMBS; ++i) v->limb[i] = 0;
    v->count = 1;
  }
}

/** Add the digit d (< 2^32) of weight 2^(PORTA_XSUM_MIN_EXP + 32 j) to the limbs, negated
 *  when neg; a digit above the top limb goes into it while that keeps it below 2^61. */
PORTA_INLINE_FUNCTION void porta_xsum_f64_digit_(porta_xsum_f64_value *v, int j, uint64_t d,
                                                 int neg) {
  if (d == 0) return;
  if (j >= PORTA_XSUM_LIMBS) {
    const int64_t top = v->limb[PORTA_XSUM_LIMBS - 1];
    if (j > PORTA_XSUM_LIMBS || d >= (1ull << 29) || top >= ((int64_t)1 << 61) ||
        top <= -((int64_t)1 << 61)) {
      v->flags |= PORTA_XSUM_OVERFLOW;
      return;
    }
    d <<= 32;
    j = PORTA_XSUM_LIMBS - 1;
  }
  v->limb[j] += neg ? -(int64_t)d : (int64_t)d;
}

/** Propagate the live limbs' carries: limbs 0..N-2 in [0, 2^32), the top limb signed (flagged
 *  PORTA_XSUM_OVERFLOW when it nears the end of its range); the value is unchanged. */
PORTA_INLINE_FUNCTION void porta_xsum_f64_carry_(porta_xsum_f64_value *v) {
  for (int i = 0; i < PORTA_XSUM_LIMBS - 1; ++i) {
    const int64_t low = (int64_t)((uint64_t)v->limb[i] & 0xFFFFFFFFull);
    v->limb[i + 1] += (v->limb[i] - low) / ((int64_t)1 << 32); /* exact: a multiple */
    v->limb[i] = low;
  }
  const int64_t top = v->limb[PORTA_XSUM_LIMBS - 1];
  if (top >= ((int64_t)1 << 61) || top <= -((int64_t)1 << 61)) v->flags |= PORTA_XSUM_OVERFLOW;
  v->count = 1;
}

/** Add x, a finite double whose bits below 2^PORTA_XSUM_MIN_EXP are dropped (flagged), into
 *  the limbs. */
PORTA_INLINE_FUNCTION void porta_xsum_f64_add_limbs_(porta_xsum_f64_value *v, double x) {
  uint64_t bits;
  memcpy(&bits, &x, sizeof bits);
  const int neg = (int)(bits >> 63);
  const int bexp = (int)((bits >> 52) & 0x7FF);
  uint64_t m = bits & 0xFFFFFFFFFFFFFull;
  if (bexp == 0) {
    if (m == 0) return; /* +-0 */
  } else {
    m |= 0x10000000000000ull;
  }
  /* x = +-m * 2^e, e = max(bexp, 1) - 1075; shift = e - MIN_EXP */
  int shift = (bexp == 0 ? 1 : bexp) - 1075 - PORTA_XSUM_MIN_EXP;
  if (shift < 0) {
    const uint64_t lost = shift <= -64 ? m : (m & ((1ull << -shift) - 1ull));
    m = shift <= -64 ? 0 : (m >> -shift);
    if (lost) v->flags |= PORTA_XSUM_INEXACT;
    if (m == 0) return;
    shift = 0;
  }
  porta_xsum_f64_open_(v);
  const int idx = shift >> 5, off = shift & 31;
  const uint64_t hi = off ? (m >> (32 - off)) : (m >> 32); /* (m << off) >> 32, < 2^53 */
  porta_xsum_f64_digit_(v, idx, (m << off) & 0xFFFFFFFFull, neg);
  porta_xsum_f64_digit_(v, idx + 1, hi & 0xFFFFFFFFull, neg);
  porta_xsum_f64_digit_(v, idx + 2, hi >> 32, neg);
  if (++v->count >= PORTA_XSUM_NORM_EVERY_) porta_xsum_f64_carry_(v); /* the limbs only */
}

/** Empty the expansion into the limbs (the represented value is unchanged). */
PORTA_INLINE_FUNCTION void porta_xsum_f64_settle_(porta_xsum_f64_value *v) {
  for (int k = 0; k < PORTA_XSUM_TERMS; ++k) {
    if (v->term[k] != 0.0) porta_xsum_f64_add_limbs_(v, v->term[k]);
    v->term[k] = 0.0;
  }
}

#if PORTA_DEVICE_PASS && PORTA_CUDA_XSUM_BATCH > 1
PORTA_FORCEINLINE_FUNCTION void porta_xsum_f64_uncapture_(porta_xsum_f64_value *v);
#endif

/** Propagate carries after emptying the expansion: limbs 0..N-2 in [0, 2^32), the top limb
 *  signed, the expansion all zero. The represented value is unchanged. Flags
 *  PORTA_XSUM_OVERFLOW when the top limb nears the end of its range. */
PORTA_INLINE_FUNCTION void porta_xsum_f64_normalize(porta_xsum_f64_value *v) {
#if PORTA_DEVICE_PASS && PORTA_CUDA_XSUM_BATCH > 1
  porta_xsum_f64_uncapture_(v);
#endif
  porta_xsum_f64_open_(v);
  porta_xsum_f64_settle_(v);
  porta_xsum_f64_carry_(v);
}

/** x with its bits below 2^PORTA_XSUM_MIN_EXP dropped (its magnitude truncated to the window's
 *  grid), for |x| < 2^(1024 + PORTA_XSUM_MIN_EXP): scaling by powers of two is exact there.
 *  Only where the grid's step is a normal double (PORTA_XSUM_MIN_EXP >= -1022). */
PORTA_FORCEINLINE_FUNCTION double porta_xsum_to_grid_(double x) {
  return trunc(x * porta_xsum_pow2_(-PORTA_XSUM_MIN_EXP)) * porta_xsum_pow2_(PORTA_XSUM_MIN_EXP);
}

/** An addend outside [2^(MIN_EXP + 52), 2^FAST_EXP_) (0, tiny, huge, Inf or NaN): 0 when nothing
 *  is left to add, else x with its bits below the window dropped. */
PORTA_INLINE_FUNCTION double porta_xsum_f64_edge_(porta_xsum_f64_value *v, double x) {
  if (x == 0.0) return 0.0;
  if (!(PORTA_XSUM_BELOW_TOP_(fabs(x)))) { /* huge, Inf or NaN */
    v->flags |= isfinite(x) ? PORTA_XSUM_OVERFLOW : PORTA_XSUM_NONFINITE;
    return 0.0;
  }
  if (fabs(x) >= porta_xsum_pow2_(PORTA_XSUM_FAST_EXP_)) { /* a window past 2^960 */
    porta_xsum_f64_add_limbs_(v, x);
    return 0.0;
  }
#if PORTA_XSUM_MIN_EXP >= -1022
  const double t = porta_xsum_to_grid_(x); /* |x| < 2^(MIN_EXP + 52) here */
  if (t != x) v->flags |= PORTA_XSUM_INEXACT;
  return t;
#else
  return x; /* the window reaches the smallest subnormal: every double is on its grid */
#endif
}

/** TwoSum (Knuth): *s = fl(a + b) and the return value e with a + b = *s + e exactly, for any
 *  order of magnitudes and no branch. */
PORTA_FORCEINLINE_FUNCTION double porta_xsum_two_sum_(double a, double b, double *s) {
  const double t = a + b, bb = t - a;
  *s = t;
  return (a - (t - bb)) + (b - bb);
}

/** The expansion's doubles from the third on, then the limbs: what the first two could not
 *  take (a few per cent of a solver's terms). */
PORTA_INLINE_FUNCTION void porta_xsum_f64_deeper_(porta_xsum_f64_value *v, double x) {
  for (int k = 2; k < PORTA_XSUM_TERMS; ++k) {
    x = porta_xsum_two_sum_(v->term[k], x, &v->term[k]);
    if (x == 0.0) return;
  }
  porta_xsum_f64_add_limbs_(v, x);
}

/** Add x, a multiple of 2^PORTA_XSUM_MIN_EXP below 2^PORTA_XSUM_MAX_EXP, to the expansion.
 *  The first two steps always run (no branch to mispredict: most terms need both and stop
 *  there); the rest only when the second leaves an error. */
PORTA_FORCEINLINE_FUNCTION void porta_xsum_f64_cascade_(porta_xsum_f64_value *v, double x) {
  const double e0 = porta_xsum_two_sum_(v->term[0], x, &v->term[0]);
  const double e1 = porta_xsum_two_sum_(v->term[1], e0, &v->term[1]);
  if (PORTA_UNLIKELY(e1 != 0.0)) porta_xsum_f64_deeper_(v, e1);
}

#if !PORTA_DEVICE_PASS
/** Count of additions a flat one stands for: its larger piece is below 2^52 = 2^20 digits of
 *  32 bits, so the limbs' headroom (porta_xsum_f64_add_limbs_) holds as it is. */
#define PORTA_XSUM_FLAT_COUNT_ (1 << 20)

/** Add x, a finite double below 2^PORTA_XSUM_FAST_EXP_ (zeros, subnormals and terms below the
 *  window too: their bits below it dropped, flagged), into the limbs with no branch on its value:
 *  its bits shifted onto the window's grid, in two pieces (below 2^32 and below 2^52) added to
 *  two adjacent limbs. The host's add: a CPU's branch predictor fails on a solver's terms, which
 *  leave the expansion's first two doubles for its rare path about half the time (TeaLeaf). */
PORTA_FORCEINLINE_FUNCTION void porta_xsum_f64_add_flat_(porta_xsum_f64_value *v, double x) {
  uint64_t bits;
  memcpy(&bits, &x, sizeof bits);
  const int bexp = (int)((bits >> 52) & 0x7FF);
  const uint64_t m = (bits & 0xFFFFFFFFFFFFFull) | ((uint64_t)(bexp != 0) << 52);
  /* x = +-m 2^(max(bexp, 1) - 1075): shift it onto the grid of 2^PORTA_XSUM_MIN_EXP */
  int shift = (bexp | (bexp == 0)) - 1075 - PORTA_XSUM_MIN_EXP;
  int drop = shift < 0 ? -shift : 0;
  drop = drop > 63 ? 63 : drop;
  const uint64_t kept = m >> drop; /* the magnitude truncated to the grid */
  v->flags |= (kept << drop) != m ? PORTA_XSUM_INEXACT : 0;
  shift = shift < 0 ? 0 : shift;
  const int idx = shift >> 5, off = shift & 31;
  const uint64_t low = (kept << off) & 0xFFFFFFFFull, high = (kept >> 1) >> (31 - off);
  /* below 2^PORTA_XSUM_MAX_EXP, high is 0 where idx is the top limb */
  const int up = idx + 1 < PORTA_XSUM_LIMBS ? idx + 1 : PORTA_XSUM_LIMBS - 1;
  const int64_t neg = -(int64_t)(bits >> 63); /* 0 or -1: (d ^ neg) - neg is d or -d */
  porta_xsum_f64_open_(v);
  v->limb[idx] += ((int64_t)low ^ neg) - neg;
  v->limb[up] += ((int64_t)high ^ neg) - neg;
  v->count += PORTA_XSUM_FLAT_COUNT_;
  if (PORTA_UNLIKELY(v->count >= PORTA_XSUM_NORM_EVERY_)) porta_xsum_f64_carry_(v);
}

/* The host's choice between the expansion and the flat add, kept in flags above the status
 * bits; it only picks a speed, never a value. A term that leaves the expansion's first two
 * doubles (or is tiny or huge; a zero is skipped) adds PORTA_XSUM_RARE_STEP_ units to a count that
 * every other term takes one from; at PORTA_XSUM_RARE_FLAT_ the accumulator adds flat from then on.
 * So terms that mostly stay in the expansion (miniFE's: 2 % leave it) stay there, and terms
 * that leave it about half the time (TeaLeaf's) go flat after some 70. In a stand-alone loop on
 * this machine, ns a term: uniform terms 3.5 (2.2 without this choice), TeaLeaf-like ones 7.1
 * (17.4 in the expansion alone, 4.3 flat alone: design-notes). */
#define PORTA_XSUM_RARE_UNIT_ (1 << 8)
#define PORTA_XSUM_RARE_MASK_ (0xFFFF << 8)
#define PORTA_XSUM_RARE_STEP_ 8
#define PORTA_XSUM_RARE_FLAT_ (256 << 8)
#define PORTA_XSUM_FLAT_ (1 << 24)

/** The rare count up by PORTA_XSUM_RARE_STEP_, and the accumulator flat once it is high. */
PORTA_FORCEINLINE_FUNCTION void porta_xsum_f64_rare_count_(porta_xsum_f64_value *v) {
  const int32_t rare =
      (v->flags & PORTA_XSUM_RARE_MASK_) + PORTA_XSUM_RARE_STEP_ * PORTA_XSUM_RARE_UNIT_;
  v->flags = (v->flags & ~PORTA_XSUM_RARE_MASK_) |
             (rare >= PORTA_XSUM_RARE_FLAT_ ? PORTA_XSUM_FLAT_ : rare);
}

/** x flat below the expansion's fast range's top; above it (huge, Inf, NaN) flagged or put in
 *  the limbs by porta_xsum_f64_edge_, which leaves nothing for the expansion there. */
PORTA_FORCEINLINE_FUNCTION void porta_xsum_f64_flat_or_edge_(porta_xsum_f64_value *v, double x) {
  if (PORTA_LIKELY(fabs(x) < porta_xsum_pow2_(PORTA_XSUM_FAST_EXP_)))
    porta_xsum_f64_add_flat_(v, x);
  else
    (void)porta_xsum_f64_edge_(v, x);
}
#endif

/** Add x exactly, one term at a time (see the window rules above): on a GPU through the
 *  expansion; on the host through it or flat (porta_xsum_f64_add_flat_), as its terms have
 *  fared (PORTA_XSUM_RARE_*). */
PORTA_FORCEINLINE_FUNCTION void porta_xsum_f64_add_one_(porta_xsum_f64_value *v, double x) {
#if !PORTA_DEVICE_PASS
  if (v->flags & PORTA_XSUM_FLAT_) {
    porta_xsum_f64_flat_or_edge_(v, x);
    return;
  }
  if (PORTA_UNLIKELY(!(fabs(x) >= porta_xsum_pow2_(PORTA_XSUM_MIN_EXP + 52) &&
                       fabs(x) < porta_xsum_pow2_(PORTA_XSUM_FAST_EXP_)))) {
    if (x != 0.0) {
      porta_xsum_f64_flat_or_edge_(v, x);
      porta_xsum_f64_rare_count_(v);
    }
    return;
  }
  const double e0 = porta_xsum_two_sum_(v->term[0], x, &v->term[0]);
  const double e1 = porta_xsum_two_sum_(v->term[1], e0, &v->term[1]);
  if (PORTA_UNLIKELY(e1 != 0.0)) {
    porta_xsum_f64_deeper_(v, e1);
    porta_xsum_f64_rare_count_(v);
  } else { /* the rare count down */
    v->flags -= (v->flags & PORTA_XSUM_RARE_MASK_) != 0 ? PORTA_XSUM_RARE_UNIT_ : 0;
  }
#else
  if (PORTA_UNLIKELY(!(fabs(x) >= porta_xsum_pow2_(PORTA_XSUM_MIN_EXP + 52) &&
                       fabs(x) < porta_xsum_pow2_(PORTA_XSUM_FAST_EXP_)))) {
    x = porta_xsum_f64_edge_(v, x);
    if (x == 0.0) return;
  }
  porta_xsum_f64_cascade_(v, x);
#endif
}

/** Terms a thread of a CUDA reduction with the exact sum adds in one batch
 *  (porta_cuda_reduce_strided_, backend/cuda/xsum.h: the rank-2 box kernels); 0 or 1: one at a
 *  time. Batches of 8 took TeaLeaf's exact CG iteration from 1.60x to 1.41x the default's on one
 *  H200, with the same bits (docs/design-notes.md, "Batched exact sums on a GPU"). Build with
 *  -DCMAKE_CUDA_FLAGS=-DPORTA_CUDA_XSUM_BATCH=0 to add one term at a time (the same in every
 *  file of a program, as the other macros here). */
#ifndef PORTA_CUDA_XSUM_BATCH
#define PORTA_CUDA_XSUM_BATCH 8
#endif

/** count of a value that captures its body's term (the CUDA launchers' batches,
 *  backend/cuda/xsum.h); PORTA_XSUM_CAPTURED_ once it holds one, raw, in term[0]. */
#define PORTA_XSUM_CAPTURE_ (-1)
#define PORTA_XSUM_CAPTURED_ (-2)

#if PORTA_DEVICE_PASS && PORTA_CUDA_XSUM_BATCH > 1
/** A capturing value made an ordinary accumulator of what it captured (nothing, or its one
 *  raw term); an ordinary one is left as it is. */
PORTA_FORCEINLINE_FUNCTION void porta_xsum_f64_uncapture_(porta_xsum_f64_value *v) {
  if (v->count >= 0) return;
  const int captured = v->count == PORTA_XSUM_CAPTURED_;
  const double first = v->term[0];
  porta_xsum_f64_init_lazy_(v);
  if (captured) porta_xsum_f64_add_one_(v, first);
}
#endif

/** Add x exactly (see the window rules above). On a GPU, a CUDA launcher built with batches
 *  (PORTA_CUDA_XSUM_BATCH) may hand the body a value that only captures its term, to add a
 *  batch of terms with one branch (a warp's lanes then never wait on each other's rare steps
 *  term by term); anything else done to that value (a second term, a join, a normalisation)
 *  first turns it into an ordinary accumulator of what it holds. */
PORTA_FORCEINLINE_FUNCTION void porta_xsum_f64_add(porta_xsum_f64_value *v, double x) {
#if PORTA_DEVICE_PASS && PORTA_CUDA_XSUM_BATCH > 1
  if (v->count < 0) { /* known at compile time where the launcher set it */
    if (v->count == PORTA_XSUM_CAPTURE_) {
      v->term[0] = x;
      v->count = PORTA_XSUM_CAPTURED_;
      return;
    }
    porta_xsum_f64_uncapture_(v);
  }
#endif
  porta_xsum_f64_add_one_(v, x);
}

/** d += s, exactly (associative and commutative in the represented value). */
PORTA_INLINE_FUNCTION void porta_xsum_f64_join(porta_xsum_f64_value *d,
                                               const porta_xsum_f64_value *s) {
#if PORTA_DEVICE_PASS && PORTA_CUDA_XSUM_BATCH > 1
  porta_xsum_f64_uncapture_(d);
  porta_xsum_f64_value sc;
  if (s->count < 0) { /* a capturing value as the source: its term added as add would */
    sc = *s;
    porta_xsum_f64_uncapture_(&sc);
    s = &sc;
  }
#endif
  for (int k = 0; k < PORTA_XSUM_TERMS; ++k)
    if (s->term[k] != 0.0) porta_xsum_f64_cascade_(d, s->term[k]);
  d->flags |= s->flags & PORTA_XSUM_STATUS_BITS_; /* not the host's choice of add */
  if (s->count > 0) { /* both below 2^29 additions: the limbs' sums stay below 2^63 */
    porta_xsum_f64_open_(d);
    for (int i = 0; i < PORTA_XSUM_LIMBS; ++i) d->limb[i] += s->limb[i];
    d->count += s->count;
    if (d->count >= PORTA_XSUM_NORM_EVERY_) porta_xsum_f64_normalize(d);
  }
}

/** The PORTA_XSUM_* status bits of v (including an overflow found by normalising). */
PORTA_INLINE_FUNCTION int porta_xsum_f64_status(const porta_xsum_f64_value *v) {
  porta_xsum_f64_value t = *v;
  porta_xsum_f64_normalize(&t);
  return t.flags & PORTA_XSUM_STATUS_BITS_;
}

/** The exact sum rounded to the nearest double, ties to even (+0.0 for an exact zero); NaN when
 *  PORTA_XSUM_OVERFLOW or PORTA_XSUM_NONFINITE is set. A function of the represented value
 *  only, so equal sums round to equal bits whatever the order they were formed in. */
PORTA_INLINE_FUNCTION double porta_xsum_f64_round(const porta_xsum_f64_value *v) {
  porta_xsum_f64_value t = *v;
  porta_xsum_f64_normalize(&t);
  if (t.flags & (PORTA_XSUM_OVERFLOW | PORTA_XSUM_NONFINITE)) return nan("");
  const int neg = t.limb[PORTA_XSUM_LIMBS - 1] < 0;
  if (neg) {
    for (int i = 0; i < PORTA_XSUM_LIMBS; ++i) t.limb[i] = -t.limb[i];
    porta_xsum_f64_normalize(&t); /* value > 0 now: top limb >= 0 */
  }
  /* digits D[2 + i] = limb i, the top limb spread over two digits; D[0], D[1] = 0 pads */
  uint32_t D[PORTA_XSUM_LIMBS + 3];
  D[0] = D[1] = 0;
  for (int i = 0; i < PORTA_XSUM_LIMBS - 1; ++i) D[2 + i] = (uint32_t)t.limb[i];
  const uint64_t top = (uint64_t)t.limb[PORTA_XSUM_LIMBS - 1];
  D[PORTA_XSUM_LIMBS + 1] = (uint32_t)(top & 0xFFFFFFFFull);
  D[PORTA_XSUM_LIMBS + 2] = (uint32_t)(top >> 32);
  int h = PORTA_XSUM_LIMBS + 2;
  while (h >= 2 && D[h] == 0) --h;
  if (h < 2) return 0.0;
  int lz = 0;
  while (!(D[h] & (0x80000000u >> lz))) ++lz;
  const uint64_t hi = ((uint64_t)D[h] << 32) | D[h - 1];
  const uint32_t lo = D[h - 2];
  int sticky = 0;
  for (int i = 0; i < h - 2; ++i) sticky |= D[i] != 0;
  /* the top 64 significant bits of hi:lo */
  const uint64_t M = lz ? (hi << lz) | ((uint64_t)lo >> (32 - lz)) : hi;
  if ((lz ? (uint32_t)(lo << lz) : lo) != 0) sticky = 1; /* bits of lo below M */
  /* leading bit of D[h] has weight 2^(MIN_EXP + 32 (h - 2) + 31 - lz); a subnormal result
     keeps only the bits down to 2^-1074 */
  const int lead = PORTA_XSUM_MIN_EXP + 32 * (h - 2) + 31 - lz;
  const int prec = lead < -1022 ? lead + 1075 : 53, drop = 64 - prec;
  uint64_t mant = M >> drop;
  const int round_bit = (int)((M >> (drop - 1)) & 1u);
  if (M & ((1ull << (drop - 1)) - 1ull)) sticky = 1;
  if (round_bit && (sticky || (mant & 1u))) ++mant; /* 2^prec at most: still exact */
  const double r = ldexp((double)mant, lead - prec + 1);
  return neg ? -r : r;
}

#endif /* PORTA_XSUM_H */
