/** @file ddsum.h
 *  porta_ddsum_f64: a double-double sum that carries a bound on its own error, usable as a
 *  reducer, and a test of whether that bound decides the exact sum's rounding.
 *
 *  The exact sum (porta_xsum_f64, xsum.h) costs each term a cascade of error-free additions
 *  ending in a test, or, on a CPU, a split into integer limbs. This one costs each term a
 *  TwoSum, two additions and a maximum, with no branch: a term x goes into hi by TwoSum, the
 *  error e into lo by an ordinary addition (lo = fl(lo + e)), whose rounding error is at most
 *  2^-53 |lo| afterwards, and |lo| into err. Then
 *
 *      |(sum of the terms) - (hi + lo)|  <=  2^-53 err (1 + 2^-20)
 *
 *  whatever the order of the additions and joins. porta_ddsum_f64_round() returns the exact
 *  sum's rounding (ties to even) when every value within that bound (widened by the exact
 *  sum's truncation of tiny terms, xsum.h) rounds to one double, the same bits as
 *  porta_xsum_f64_round() of the same terms; otherwise it says so, and the caller sums the
 *  terms again exactly. The bound grows with the length of a thread's chain of additions
 *  (estimated, not counted: some 2^-95 of a dot product's sum for chains a few hundred long, so
 *  the test would fail about once in 2^40 sums; on the host a chain is a lane's share of a row,
 *  porta_ddsum_f64_lanes). It
 *  always fails for an exact tie, for a sum of magnitude below about
 *  2^(PORTA_XSUM_MIN_EXP + 115) other than an exact zero of zero terms, and for a non-finite or
 *  huge term (|x| >= 2^PORTA_XSUM_MAX_EXP), where the exact sum reports a status.
 *
 *  The terms must be the ones the exact sum would be given: nothing may fuse a term's last
 *  multiplication into the addition (C11's ISO mode does not contract; on CUDA the additions
 *  here are __dadd_rn, which never contract). */
#ifndef PORTA_DDSUM_H
#define PORTA_DDSUM_H

#include "porta/xsum.h"

/** The accumulator: an approximation hi + lo of the sum, the sum of |lo| after each of its
 *  roundings (err), and the largest |term| (amax). */
typedef struct porta_ddsum_f64_value {
  double hi, lo, err, amax;
} porta_ddsum_f64_value;

#if PORTA_DEVICE_PASS
#define PORTA_DDSUM_ADD_(a, b) __dadd_rn((a), (b))
#define PORTA_DDSUM_SUB_(a, b) __dsub_rn((a), (b))
#else
#define PORTA_DDSUM_ADD_(a, b) ((a) + (b))
#define PORTA_DDSUM_SUB_(a, b) ((a) - (b))
#endif

PORTA_FORCEINLINE_FUNCTION void porta_ddsum_f64_init(porta_ddsum_f64_value *v) {
  v->hi = v->lo = v->err = v->amax = 0.0;
}

/** TwoSum (Knuth), with additions that never contract: *s = fl(a + b), returns the e with
 *  a + b = *s + e exactly. */
PORTA_FORCEINLINE_FUNCTION double porta_ddsum_two_sum_(double a, double b, double *s) {
  const double t = PORTA_DDSUM_ADD_(a, b), bb = PORTA_DDSUM_SUB_(t, a);
  *s = t;
  return PORTA_DDSUM_ADD_(PORTA_DDSUM_SUB_(a, PORTA_DDSUM_SUB_(t, bb)), PORTA_DDSUM_SUB_(b, bb));
}

/** lo += e, and its rounding counted in err. */
PORTA_FORCEINLINE_FUNCTION void porta_ddsum_f64_lo_(porta_ddsum_f64_value *v, double e) {
  v->lo = PORTA_DDSUM_ADD_(v->lo, e);
  v->err = PORTA_DDSUM_ADD_(v->err, fabs(v->lo));
}

/** One term into an accumulator held as four doubles (a value's, or a lane's of
 *  porta_ddsum_f64_lanes): hi + e' = hi + x exactly (TwoSum, no branch), e' into lo, the
 *  rounding of lo counted in err. */
PORTA_FORCEINLINE_FUNCTION void porta_ddsum_step_(double *hi, double *lo, double *err, double *amax,
                                                  double x) {
  *lo = PORTA_DDSUM_ADD_(*lo, porta_ddsum_two_sum_(*hi, x, hi));
  *err = PORTA_DDSUM_ADD_(*err, fabs(*lo));
  /* NaN-blind, but a NaN term makes hi NaN */
  *amax = fabs(x) > *amax ? fabs(x) : *amax;
}

PORTA_FORCEINLINE_FUNCTION void porta_ddsum_f64_add(porta_ddsum_f64_value *v, double x) {
  porta_ddsum_step_(&v->hi, &v->lo, &v->err, &v->amax, x);
}

/** d += s. */
PORTA_FORCEINLINE_FUNCTION void porta_ddsum_f64_join(porta_ddsum_f64_value *d,
                                                     const porta_ddsum_f64_value *s) {
  const double e = porta_ddsum_two_sum_(d->hi, s->hi, &d->hi);
  d->err = PORTA_DDSUM_ADD_(d->err, s->err);
  porta_ddsum_f64_lo_(d, s->lo);
  porta_ddsum_f64_lo_(d, e);
  d->amax = s->amax > d->amax ? s->amax : d->amax;
}

/** Lanes of a CPU's loop over terms (apps/common/app_sum.h's host first pass): a single
 *  accumulator's chain of dependent additions keeps the whole loop scalar, while
 *  PORTA_DDSUM_LANES independent ones, held as arrays and added to in an `omp simd` loop
 *  (PORTA_SIMD) over the lanes, are vector registers and leave the term's own arithmetic
 *  vectorised too (GCC 12 keeps them scalar without the pragma: 3x the time a term). Eight
 *  lanes are two AVX2 registers each, two chains to hide an addition's latency. The bound holds
 *  for any order of adds and joins. */
#define PORTA_DDSUM_LANES 8
typedef struct porta_ddsum_f64_lanes {
  double hi[PORTA_DDSUM_LANES], lo[PORTA_DDSUM_LANES], err[PORTA_DDSUM_LANES],
      amax[PORTA_DDSUM_LANES];
} porta_ddsum_f64_lanes;

PORTA_FORCEINLINE_FUNCTION void porta_ddsum_f64_lanes_init(porta_ddsum_f64_lanes *l) {
  for (int j = 0; j < PORTA_DDSUM_LANES; ++j) l->hi[j] = l->lo[j] = l->err[j] = l->amax[j] = 0.0;
}

/** Term x into lane j. */
PORTA_FORCEINLINE_FUNCTION void porta_ddsum_f64_lanes_add(porta_ddsum_f64_lanes *l, int j,
                                                          double x) {
  porta_ddsum_step_(&l->hi[j], &l->lo[j], &l->err[j], &l->amax[j], x);
}

/** Join the lanes into *v (lane 0 first). */
PORTA_FORCEINLINE_FUNCTION void porta_ddsum_f64_lanes_join(porta_ddsum_f64_value *v,
                                                           const porta_ddsum_f64_lanes *l) {
  for (int j = 0; j < PORTA_DDSUM_LANES; ++j) {
    porta_ddsum_f64_value x;
    x.hi = l->hi[j];
    x.lo = l->lo[j];
    x.err = l->err[j];
    x.amax = l->amax[j];
    porta_ddsum_f64_join(v, &x);
  }
}

/** Bound on |exact - (hi + lo)| beyond 2^-53 err: what the exact sum's truncation of terms
 *  below its window may drop (under 2^PORTA_XSUM_MIN_EXP a term, for fewer than 2^62 terms),
 *  and the rounding of err itself (the factor 1 + 2^-20, for fewer than 2^32 additions to a
 *  thread's err along any path). */
#define PORTA_DDSUM_SLACK_EXP_ (PORTA_XSUM_MIN_EXP + 62)

/** The double next to a finite non-zero s, above it (dir 1) or below it (-1). */
PORTA_FORCEINLINE_FUNCTION double porta_ddsum_next_(double s, int dir) {
  uint64_t bits;
  memcpy(&bits, &s, sizeof bits);
  bits += (s > 0.0) == (dir > 0) ? 1 : (uint64_t)-1; /* away from zero, or towards it */
  double n;
  memcpy(&n, &bits, sizeof n);
  return n;
}

/** A bound on |(the exact sum of v's terms, as porta_xsum_f64 takes them) - (hi + lo)|, or -1
 *  where none serves: a non-finite or huge term or sum (the exact sum reports a status there).
 *  0 for a sum of zeros alone. */
PORTA_INLINE_FUNCTION double porta_ddsum_f64_bound(const porta_ddsum_f64_value *v) {
  if (v->amax == 0.0 && v->hi == 0.0 && v->lo == 0.0) return 0.0; /* zeros (or no term) */
  const double top = porta_xsum_pow2_(PORTA_XSUM_MAX_EXP < 1000 ? PORTA_XSUM_MAX_EXP - 8 : 1000);
  if (!(v->amax < top) || !(fabs(v->hi) < top) || !(v->err < top)) return -1.0;
  return v->err * (porta_xsum_pow2_(-53) * (1.0 + porta_xsum_pow2_(-20))) +
         porta_xsum_pow2_(PORTA_DDSUM_SLACK_EXP_);
}

/** The rounding of every value within `bound` of s + e (s = fl(s + e)), if it is one double:
 *  *out = s and 1; else 0 (also for s = 0: the sign of a sum that cancels is the exact sum's
 *  to say). */
PORTA_INLINE_FUNCTION int porta_ddsum_round_near_(double s, double e, double bound, double *out) {
  if (s == 0.0 || !(bound >= 0.0)) return 0;
  /* half the gaps to s's neighbours (powers of two: exact) */
  const double up = (porta_ddsum_next_(s, 1) - s) * 0.5,
               down = (s - porta_ddsum_next_(s, -1)) * 0.5;
  /* s + e + d rounds to s when -down < e + d < up for every |d| <= bound; the differences are
     rounded, so leave them a margin of 2^-40 */
  const double margin = 1.0 - porta_xsum_pow2_(-40);
  if (!(bound < (up - e) * margin) || !(bound < (down + e) * margin)) return 0;
  *out = s;
  return 1;
}

/** The exact sum's rounding, if v's bound decides it: *out = the bits porta_xsum_f64_round()
 *  gives for the same terms, and 1. Otherwise 0 (*out untouched): sum the terms exactly. */
PORTA_INLINE_FUNCTION int porta_ddsum_f64_round(const porta_ddsum_f64_value *v, double *out) {
  const double bound = porta_ddsum_f64_bound(v);
  if (bound == 0.0) {
    *out = 0.0; /* an exact zero is +0.0 */
    return 1;
  }
  if (bound < 0.0) return 0;
  /* s + e = hi + lo exactly; the exact sum is s + e + d with |d| <= bound */
  double s;
  const double e = porta_ddsum_two_sum_(v->hi, v->lo, &s);
  return porta_ddsum_round_near_(s, e, bound, out);
}

/* ---- over several ranks: every rank's first pass gathered by a sum ---- */

/** Doubles a rank's first pass travels as in porta_ddsum_f64_to_words. */
#define PORTA_DDSUM_WORDS 3

/** v as PORTA_DDSUM_WORDS doubles, hi, lo and a bound on |(the exact sum of v's terms) -
 *  (hi + lo)| (+Inf where none serves), for a sum over the ranks that gathers them: each rank
 *  writes its words at a place of its own in a buffer of zeros, so that the sum, in whatever
 *  order, leaves every rank's words in every rank's buffer exactly (x + 0 = x). */
PORTA_INLINE_FUNCTION void porta_ddsum_f64_to_words(const porta_ddsum_f64_value *v, double *w) {
  const double b = porta_ddsum_f64_bound(v);
  w[0] = b < 0.0 ? 0.0 : v->hi;
  w[1] = b < 0.0 ? 0.0 : v->lo;
  w[2] = b < 0.0 ? (double)INFINITY : b;
}

/** The rounding of the exact sum of every rank's terms, from the words of `nranks` ranks
 *  (rank q's at w[PORTA_DDSUM_WORDS q ..]), if their bounds decide it: *out and 1; else 0.
 *  Every rank reads the same words in the same order, so every rank decides alike. */
PORTA_INLINE_FUNCTION int porta_ddsum_f64_round_words(const double *w, int nranks, double *out) {
  porta_ddsum_f64_value d; /* the ranks' hi + lo, with the bound of this sum's own roundings */
  porta_ddsum_f64_init(&d);
  double b = 0.0;
  for (int q = 0; q < nranks; ++q) {
    const double *x = w + PORTA_DDSUM_WORDS * q;
    if (!(x[2] < (double)INFINITY)) return 0;
    porta_ddsum_f64_add(&d, x[0]);
    porta_ddsum_f64_add(&d, x[1]);
    b = PORTA_DDSUM_ADD_(b, x[2]);
  }
  const double bd = porta_ddsum_f64_bound(&d);
  if (bd < 0.0) return 0;
  if (bd == 0.0 && b == 0.0) { /* zeros alone on every rank */
    *out = 0.0;
    return 1;
  }
  /* the ranks' bounds and d's, b's roundings (under nranks 2^-53 of it) allowed for */
  const double bound = (bd + b) * (1.0 + (double)(nranks + 2) * porta_xsum_pow2_(-52));
  double s;
  const double e = porta_ddsum_two_sum_(d.hi, d.lo, &s);
  return porta_ddsum_round_near_(s, e, bound, out);
}

/* ---- over several ranks: sums and bounds as limbs, added exactly in any order ---- */

/** v's hi + lo into *sum and twice its bound into *bound (exact sums, for limbs that travel
 *  between ranks: twice, since hi's and lo's bits below the exact sum's window are dropped
 *  there, under the bound's slack); where no bound serves, *sum flagged PORTA_XSUM_OVERFLOW, so
 *  that the ranks' sum of them decides nothing. */
PORTA_INLINE_FUNCTION void porta_ddsum_f64_to_limbs(const porta_ddsum_f64_value *v,
                                                    porta_xsum_f64_value *sum,
                                                    porta_xsum_f64_value *bound) {
  porta_xsum_f64_init(sum);
  porta_xsum_f64_init(bound);
  const double b = porta_ddsum_f64_bound(v);
  if (b < 0.0) {
    sum->flags |= PORTA_XSUM_OVERFLOW;
    return;
  }
  porta_xsum_f64_add(sum, v->hi);
  porta_xsum_f64_add(sum, v->lo);
  porta_xsum_f64_add(bound, 2.0 * b);
}

/** The rounding of every value within `bound` of `sum` (the ranks' porta_ddsum_f64_to_limbs
 *  added up), if it is one double: then *out = it and 1; else (or a status set on sum) 0. The
 *  exact sum lies between sum - bound and sum + bound, and rounding is monotone. */
PORTA_INLINE_FUNCTION int porta_xsum_f64_round_within(const porta_xsum_f64_value *sum,
                                                      const porta_xsum_f64_value *bound,
                                                      double *out) {
  if (sum->flags & (PORTA_XSUM_OVERFLOW | PORTA_XSUM_NONFINITE)) return 0;
  porta_xsum_f64_value t = *sum, b = *bound;
  porta_xsum_f64_join(&t, &b);
  const double hi = porta_xsum_f64_round(&t);
  for (int k = 0; k < PORTA_XSUM_LIMBS; ++k) b.limb[k] = -b.limb[k];
  t = *sum;
  porta_xsum_f64_join(&t, &b);
  const double lo = porta_xsum_f64_round(&t);
  uint64_t lo_bits, hi_bits;
  memcpy(&lo_bits, &lo, sizeof lo);
  memcpy(&hi_bits, &hi, sizeof hi);
  if (isnan(lo) || lo_bits != hi_bits) return 0;
  *out = lo;
  return 1;
}

#endif /* PORTA_DDSUM_H */
