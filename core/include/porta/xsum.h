/** @file xsum.h
 *  porta_xsum_f64: an exact (order-independent) sum of doubles, usable as a reducer.
 *
 *  The value is a fixed-point superaccumulator: PORTA_XSUM_LIMBS signed 64-bit limbs, limb i
 *  holding a 32-bit digit of weight 2^(PORTA_XSUM_MIN_EXP + 32 i) plus 31 bits of headroom for
 *  carries. Adding a double splits its 53-bit significand exactly over at most three limbs;
 *  joining two values adds them limb by limb. Integer addition is associative and commutative,
 *  so the sum does not depend on the order of the additions, the thread count, the back end or
 *  the number of MPI ranks whose accumulators are merged (add the limbs of normalised values,
 *  e.g. MPI_Allreduce(MPI_INT64_T, MPI_SUM)); porta_xsum_f64_round() then rounds the exact sum
 *  to the nearest double (ties to even) once.
 *
 *  The window. With the defaults (20 limbs, PORTA_XSUM_MIN_EXP = -304) addends in
 *  [2^-304, 2^336) (about 3e-92 .. 1.4e101) are summed exactly; the value is 168 bytes, so a
 *  CUDA block tail (256 values in static shared memory) takes 42 KB of the 48 KB allowed. Both
 * macros may be defined before including porta.h (the same everywhere in a program;
 * PORTA_XSUM_MIN_EXP >= -1022 so that the rounded result is never subnormal and is rounded once).
 *  Outside the window, the result is never silently wrong:
 *  - an addend with bits below 2^PORTA_XSUM_MIN_EXP has those bits dropped (its magnitude
 *    truncated to the window's grid). This is a function of the addend alone, so the sum stays
 *    bitwise order-independent; it is no longer exact and porta_xsum_f64_status() reports
 *    PORTA_XSUM_INEXACT. (Solvers meet such addends: Krylov vectors have far-field entries of
 *    1e-150 whose squares are far below anything that matters.)
 *  - an addend >= 2^(PORTA_XSUM_MIN_EXP + 32 PORTA_XSUM_LIMBS), an Inf or a NaN, or a sum that
 *    outgrows the top limb, sets PORTA_XSUM_OVERFLOW / PORTA_XSUM_NONFINITE and
 *    porta_xsum_f64_round() returns NaN.
 *  Carries are propagated (normalised) automatically before any limb can overflow: every 2^29
 *  additions into one value, and when a join would pass that bound.
 *
 *  Use: PORTA_REDUCE / PORTA_MDREDUCE* with reducer porta_xsum_f64; the body calls
 *  porta_xsum_f64_add(acc, term). Not for team collectives (the value exceeds
 *  PORTA_TEAM_SLOT_BYTES; no PORTA_REDUCER_TEAM_OPS). */
#ifndef PORTA_XSUM_H
#define PORTA_XSUM_H

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
/** Addends must be smaller than 2^PORTA_XSUM_MAX_EXP in magnitude. */
#define PORTA_XSUM_MAX_EXP (PORTA_XSUM_MIN_EXP + 32 * PORTA_XSUM_LIMBS)

/* compile-time checks in the common subset of C11 and C++17 */
typedef char porta_xsum_check_min_exp_[(PORTA_XSUM_MIN_EXP >= -1022) ? 1 : -1];
typedef char porta_xsum_check_max_exp_[(PORTA_XSUM_MAX_EXP <= 1088) ? 1 : -1];
typedef char porta_xsum_check_limbs_[(PORTA_XSUM_LIMBS >= 3) ? 1 : -1];

/** Status bits (porta_xsum_f64_status). */
#define PORTA_XSUM_INEXACT 1   /**< an addend had bits below the window (dropped) */
#define PORTA_XSUM_OVERFLOW 2  /**< an addend or the sum exceeded the window: round gives NaN */
#define PORTA_XSUM_NONFINITE 4 /**< an Inf or NaN was added: round gives NaN */

/** Additions between normalisations (each adds < 2^32 to a limb; two joined values stay
 *  below 2^63). */
#define PORTA_XSUM_NORM_EVERY_ (1 << 29)

/** The accumulator: value = sum limb[i] * 2^(PORTA_XSUM_MIN_EXP + 32 i). */
typedef struct porta_xsum_f64_value {
  int64_t limb[PORTA_XSUM_LIMBS];
  int32_t count; /**< contributions of < 2^32 per limb since the last normalisation */
  int32_t flags; /**< PORTA_XSUM_* bits */
} porta_xsum_f64_value;

PORTA_INLINE_FUNCTION void porta_xsum_f64_init(porta_xsum_f64_value *v) {
  for (int i = 0; i < PORTA_XSUM_LIMBS; ++i) v->limb[i] = 0;
  v->count = 0;
  v->flags = 0;
}

/** Propagate carries: limbs 0..N-2 in [0, 2^32), the top limb signed. The represented value is
 *  unchanged. Flags PORTA_XSUM_OVERFLOW when the top limb nears the end of its range. */
PORTA_INLINE_FUNCTION void porta_xsum_f64_normalize(porta_xsum_f64_value *v) {
  for (int i = 0; i < PORTA_XSUM_LIMBS - 1; ++i) {
    const int64_t low = (int64_t)((uint64_t)v->limb[i] & 0xFFFFFFFFull);
    const int64_t carry = (v->limb[i] - low) / ((int64_t)1 << 32); /* exact: a multiple */
    v->limb[i] = low;
    v->limb[i + 1] += carry;
  }
  const int64_t top = v->limb[PORTA_XSUM_LIMBS - 1];
  if (top >= ((int64_t)1 << 61) || top <= -((int64_t)1 << 61)) v->flags |= PORTA_XSUM_OVERFLOW;
  v->count = 1;
}

/** Add x exactly (see the window rules above). */
PORTA_INLINE_FUNCTION void porta_xsum_f64_add(porta_xsum_f64_value *v, double x) {
  uint64_t bits;
  memcpy(&bits, &x, sizeof bits);
  const int neg = (int)(bits >> 63);
  const int bexp = (int)((bits >> 52) & 0x7FF);
  uint64_t m = bits & 0xFFFFFFFFFFFFFull;
  if (bexp == 0x7FF) {
    v->flags |= PORTA_XSUM_NONFINITE;
    return;
  }
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
  const int idx = shift >> 5, off = shift & 31;
  const uint64_t d0 = (m << off) & 0xFFFFFFFFull;
  const uint64_t hi = off ? (m >> (32 - off)) : (m >> 32); /* (m << off) >> 32, < 2^53 */
  const uint64_t d1 = hi & 0xFFFFFFFFull, d2 = hi >> 32;
  if (idx >= PORTA_XSUM_LIMBS || (idx + 1 >= PORTA_XSUM_LIMBS && (d1 | d2)) ||
      (idx + 2 >= PORTA_XSUM_LIMBS && d2)) {
    v->flags |= PORTA_XSUM_OVERFLOW;
    return;
  }
  if (neg) {
    v->limb[idx] -= (int64_t)d0;
    if (idx + 1 < PORTA_XSUM_LIMBS) v->limb[idx + 1] -= (int64_t)d1;
    if (idx + 2 < PORTA_XSUM_LIMBS) v->limb[idx + 2] -= (int64_t)d2;
  } else {
    v->limb[idx] += (int64_t)d0;
    if (idx + 1 < PORTA_XSUM_LIMBS) v->limb[idx + 1] += (int64_t)d1;
    if (idx + 2 < PORTA_XSUM_LIMBS) v->limb[idx + 2] += (int64_t)d2;
  }
  if (++v->count >= PORTA_XSUM_NORM_EVERY_) porta_xsum_f64_normalize(v);
}

/** d += s, exactly (limb-wise; associative and commutative in the represented value). */
PORTA_INLINE_FUNCTION void porta_xsum_f64_join(porta_xsum_f64_value *d,
                                               const porta_xsum_f64_value *s) {
  for (int i = 0; i < PORTA_XSUM_LIMBS; ++i) d->limb[i] += s->limb[i];
  d->flags |= s->flags;
  d->count += s->count;
  if (d->count >= PORTA_XSUM_NORM_EVERY_) porta_xsum_f64_normalize(d);
}

/** The PORTA_XSUM_* status bits of v (including an overflow found by normalising). */
PORTA_INLINE_FUNCTION int porta_xsum_f64_status(const porta_xsum_f64_value *v) {
  porta_xsum_f64_value t = *v;
  porta_xsum_f64_normalize(&t);
  return t.flags;
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
  uint64_t mant = M >> 11;
  const int round_bit = (int)((M >> 10) & 1u);
  if (M & 0x3FFull) sticky = 1;
  if (round_bit && (sticky || (mant & 1u))) ++mant; /* 2^53 at most: still exact */
  /* leading bit of D[h] has weight 2^(MIN_EXP + 32 (h - 2) + 31 - lz) */
  const int lead = PORTA_XSUM_MIN_EXP + 32 * (h - 2) + 31 - lz;
  const double r = ldexp((double)mant, lead - 52);
  return neg ? -r : r;
}

#endif /* PORTA_XSUM_H */
