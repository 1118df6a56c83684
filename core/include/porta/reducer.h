/** @file reducer.h
 *  Reducers: a value type with init (the identity) and join, bound at compile
 *  time by name. A reducer R is the triple R_value, R_init, R_join; built-ins
 *  are porta_<op>_<type> (porta_sum_f64, porta_minloc_i32, ...). A custom reducer
 *  is any such triple, e.g. for reducing several values at once:
 *  @code
 *  typedef struct { double sum; double max; } stats_value;
 *  PORTA_INLINE_FUNCTION void stats_init(stats_value *v) { v->sum = 0; v->max = -INFINITY; }
 *  PORTA_INLINE_FUNCTION void stats_join(stats_value *d, const stats_value *s) { ... }
 *  PORTA_REDUCER_TEAM_OPS(stats)   // team/vector collectives for it (optional)
 *  @endcode
 */
#ifndef PORTA_REDUCER_H
#define PORTA_REDUCER_H

#include <float.h>
#include <math.h>

#include "porta/macros.h"

/** Location reducers carry the value and the (smallest) index where it occurs. */
#define PORTA_DECLARE_LOC_TYPE(NAME, T)                                                            \
  typedef struct porta_##NAME##_loc {                                                              \
    T val;                                                                                         \
    int64_t loc;                                                                                   \
  } porta_##NAME##_loc;

#define PORTA_REDUCER_BINARY_(OP, NAME, T, IDENTITY, JOIN_EXPR)                                    \
  typedef T porta_##OP##_##NAME##_value;                                                           \
  PORTA_FORCEINLINE_FUNCTION void porta_##OP##_##NAME##_init(T *v) { *v = (IDENTITY); }            \
  PORTA_FORCEINLINE_FUNCTION void porta_##OP##_##NAME##_join(T *d, const T *s) {                   \
    T a = *d, b = *s;                                                                              \
    *d = (JOIN_EXPR);                                                                              \
  }

#define PORTA_REDUCERS_ARITH_(NAME, T, LOWEST, HIGHEST)                                            \
  PORTA_REDUCER_BINARY_(sum, NAME, T, (T)0, a + b)                                                 \
  PORTA_REDUCER_BINARY_(prod, NAME, T, (T)1, a *b)                                                 \
  PORTA_REDUCER_BINARY_(min, NAME, T, HIGHEST, (b < a ? b : a))                                    \
  PORTA_REDUCER_BINARY_(max, NAME, T, LOWEST, (b > a ? b : a))                                     \
  PORTA_REDUCER_BINARY_(land, NAME, T, (T)1, (T)(a && b))                                          \
  PORTA_REDUCER_BINARY_(lor, NAME, T, (T)0, (T)(a || b))                                           \
  PORTA_DECLARE_LOC_TYPE(NAME, T)                                                                  \
  typedef porta_##NAME##_loc porta_minloc_##NAME##_value;                                          \
  typedef porta_##NAME##_loc porta_maxloc_##NAME##_value;                                          \
  PORTA_FORCEINLINE_FUNCTION void porta_minloc_##NAME##_init(porta_##NAME##_loc *v) {              \
    v->val = HIGHEST;                                                                              \
    v->loc = INT64_MAX;                                                                            \
  }                                                                                                \
  PORTA_FORCEINLINE_FUNCTION void porta_minloc_##NAME##_join(porta_##NAME##_loc *d,                \
                                                             const porta_##NAME##_loc *s) {        \
    if (s->val < d->val || (s->val == d->val && s->loc < d->loc)) *d = *s;                         \
  }                                                                                                \
  PORTA_FORCEINLINE_FUNCTION void porta_maxloc_##NAME##_init(porta_##NAME##_loc *v) {              \
    v->val = LOWEST;                                                                               \
    v->loc = INT64_MAX;                                                                            \
  }                                                                                                \
  PORTA_FORCEINLINE_FUNCTION void porta_maxloc_##NAME##_join(porta_##NAME##_loc *d,                \
                                                             const porta_##NAME##_loc *s) {        \
    if (s->val > d->val || (s->val == d->val && s->loc < d->loc)) *d = *s;                         \
  }

#define PORTA_REDUCERS_BITS_(NAME, T)                                                              \
  PORTA_REDUCER_BINARY_(band, NAME, T, (T) ~(T)0, (T)(a & b))                                      \
  PORTA_REDUCER_BINARY_(bor, NAME, T, (T)0, (T)(a | b))

PORTA_REDUCERS_ARITH_(f64, double, -HUGE_VAL, HUGE_VAL)
PORTA_REDUCERS_ARITH_(f32, float, -HUGE_VALF, HUGE_VALF)
PORTA_REDUCERS_ARITH_(i64, int64_t, INT64_MIN, INT64_MAX)
PORTA_REDUCERS_ARITH_(i32, int32_t, INT32_MIN, INT32_MAX)
PORTA_REDUCERS_ARITH_(u64, uint64_t, (uint64_t)0, UINT64_MAX)
PORTA_REDUCERS_ARITH_(u32, uint32_t, (uint32_t)0, UINT32_MAX)
PORTA_REDUCERS_ARITH_(u8, uint8_t, (uint8_t)0, (uint8_t)UINT8_MAX)
PORTA_REDUCERS_BITS_(i64, int64_t)
PORTA_REDUCERS_BITS_(i32, int32_t)
PORTA_REDUCERS_BITS_(u64, uint64_t)
PORTA_REDUCERS_BITS_(u32, uint32_t)
PORTA_REDUCERS_BITS_(u8, uint8_t)

/** A reducer summing N values of type T at once: NAME_value has member v[N]. */
#define PORTA_DEFINE_SUM_REDUCER(NAME, T, N)                                                       \
  typedef struct NAME##_value {                                                                    \
    T v[N];                                                                                        \
  } NAME##_value;                                                                                  \
  PORTA_FORCEINLINE_FUNCTION void NAME##_init(NAME##_value *x) {                                   \
    for (int k = 0; k < (N); ++k) x->v[k] = (T)0;                                                  \
  }                                                                                                \
  PORTA_FORCEINLINE_FUNCTION void NAME##_join(NAME##_value *d, const NAME##_value *s) {            \
    for (int k = 0; k < (N); ++k) d->v[k] += s->v[k];                                              \
  }

#endif /* PORTA_REDUCER_H */
