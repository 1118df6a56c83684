/** @file backend/cuda/atomic.h
 *  The device pass of porta/atomic.h (nvcc): CUDA atomic intrinsics, CAS loops where there is no
 *  instruction. Included by atomic.h through PORTA_DEVICE_ATOMIC_H, after the combining
 *  functions and before the derived forms. */
#ifndef PORTA_BACKEND_CUDA_ATOMIC_H
#define PORTA_BACKEND_CUDA_ATOMIC_H

/* A fetch-op as an atomicCAS loop on the bit pattern. Returns at once, without writing, when the
 * operation would not change the value (min/max that do not apply). */
#define PORTA_ATOMIC_CAS_LOOP_(s, T, DU, op)                                                       \
  PORTA_INLINE_FUNCTION T porta_atomic_cas_##op##_##s##_(T *p, T v) {                              \
    DU *bp = (DU *)p;                                                                              \
    DU old = *(volatile DU *)bp, assumed;                                                          \
    do {                                                                                           \
      assumed = old;                                                                               \
      DU next = porta_atomic_to_bits_##s##_(                                                       \
          porta_atomic_##op##_op_##s##_(porta_atomic_from_bits_##s##_(assumed), v));               \
      if (next == assumed) break;                                                                  \
      old = atomicCAS(bp, assumed, next);                                                          \
    } while (old != assumed);                                                                      \
    return porta_atomic_from_bits_##s##_(old);                                                     \
  }

/* Operations every type shares: load, store, exchange, compare-exchange and the CAS loops. */
#define PORTA_ATOMIC_COMMON_(s, T, U, DT, DU)                                                      \
  PORTA_INLINE_FUNCTION T porta_atomic_load_##s(const T *p) { return *(const volatile T *)p; }     \
  PORTA_INLINE_FUNCTION void porta_atomic_store_##s(T *p, T v) { *(volatile T *)p = v; }           \
  PORTA_INLINE_FUNCTION T porta_atomic_exchange_##s(T *p, T v) {                                   \
    return porta_atomic_from_bits_##s##_(atomicExch((DU *)p, porta_atomic_to_bits_##s##_(v)));     \
  }                                                                                                \
  PORTA_INLINE_FUNCTION T porta_atomic_compare_exchange_##s(T *p, T expected, T desired) {         \
    return porta_atomic_from_bits_##s##_(atomicCAS((DU *)p, porta_atomic_to_bits_##s##_(expected), \
                                                   porta_atomic_to_bits_##s##_(desired)));         \
  }                                                                                                \
  PORTA_ATOMIC_CAS_LOOP_(s, T, DU, add)                                                            \
  PORTA_ATOMIC_CAS_LOOP_(s, T, DU, min)                                                            \
  PORTA_ATOMIC_CAS_LOOP_(s, T, DU, max)

PORTA_ATOMIC_TYPES(PORTA_ATOMIC_COMMON_)

/* Integers: add, and, or and exchange have instructions for 32 and 64 bits; sub is the add of the
 * two's complement negation (exact in modular arithmetic, so no CAS loop). 64-bit min/max need
 * sm_35; before that they are CAS loops. */
#if __CUDA_ARCH__ >= 350
#define PORTA_ATOMIC_DEV_INT_MINMAX_(s, T, DT)                                                     \
  PORTA_INLINE_FUNCTION T porta_atomic_fetch_min_##s(T *p, T v) {                                  \
    return (T)atomicMin((DT *)p, (DT)v);                                                           \
  }                                                                                                \
  PORTA_INLINE_FUNCTION T porta_atomic_fetch_max_##s(T *p, T v) {                                  \
    return (T)atomicMax((DT *)p, (DT)v);                                                           \
  }
#else
#define PORTA_ATOMIC_DEV_INT_MINMAX_(s, T, DT)                                                     \
  PORTA_INLINE_FUNCTION T porta_atomic_fetch_min_##s(T *p, T v) {                                  \
    return porta_atomic_cas_min_##s##_(p, v);                                                      \
  }                                                                                                \
  PORTA_INLINE_FUNCTION T porta_atomic_fetch_max_##s(T *p, T v) {                                  \
    return porta_atomic_cas_max_##s##_(p, v);                                                      \
  }
#endif

#define PORTA_ATOMIC_ARITH_INT_(s, T, U, DT, DU)                                                   \
  PORTA_INLINE_FUNCTION T porta_atomic_fetch_add_##s(T *p, T v) {                                  \
    return (T)atomicAdd((DU *)p, (DU)v);                                                           \
  }                                                                                                \
  PORTA_INLINE_FUNCTION T porta_atomic_fetch_sub_##s(T *p, T v) {                                  \
    return (T)atomicAdd((DU *)p, (DU)0 - (DU)v);                                                   \
  }                                                                                                \
  PORTA_INLINE_FUNCTION T porta_atomic_fetch_and_##s(T *p, T v) {                                  \
    return (T)atomicAnd((DU *)p, (DU)v);                                                           \
  }                                                                                                \
  PORTA_INLINE_FUNCTION T porta_atomic_fetch_or_##s(T *p, T v) {                                   \
    return (T)atomicOr((DU *)p, (DU)v);                                                            \
  }                                                                                                \
  PORTA_ATOMIC_DEV_INT_MINMAX_(s, T, DT)

/* Floating point: add has an instruction (double from sm_60; before that a CAS loop); sub adds the
 * negation (x - y is exactly x + (-y) in IEEE arithmetic); min/max are CAS loops. */
#if __CUDA_ARCH__ >= 600
#define PORTA_ATOMIC_DEV_FLOAT_ADD_(s, T, DT)                                                      \
  PORTA_INLINE_FUNCTION T porta_atomic_fetch_add_##s(T *p, T v) { return atomicAdd((DT *)p, v); }
#else
#define PORTA_ATOMIC_DEV_FLOAT_ADD_(s, T, DT)                                                      \
  PORTA_INLINE_FUNCTION T porta_atomic_fetch_add_##s(T *p, T v) {                                  \
    return porta_atomic_cas_add_##s##_(p, v);                                                      \
  }
#endif

#define PORTA_ATOMIC_ARITH_FLOAT_(s, T, U, DT, DU)                                                 \
  PORTA_ATOMIC_DEV_FLOAT_ADD_(s, T, DT)                                                            \
  PORTA_INLINE_FUNCTION T porta_atomic_fetch_sub_##s(T *p, T v) {                                  \
    return porta_atomic_fetch_add_##s(p, -v);                                                      \
  }                                                                                                \
  PORTA_INLINE_FUNCTION T porta_atomic_fetch_min_##s(T *p, T v) {                                  \
    return porta_atomic_cas_min_##s##_(p, v);                                                      \
  }                                                                                                \
  PORTA_INLINE_FUNCTION T porta_atomic_fetch_max_##s(T *p, T v) {                                  \
    return porta_atomic_cas_max_##s##_(p, v);                                                      \
  }

PORTA_ATOMIC_INT_TYPES(PORTA_ATOMIC_ARITH_INT_)
PORTA_ATOMIC_FLOAT_TYPES(PORTA_ATOMIC_ARITH_FLOAT_)

/** Sequentially consistent fence (device scope on the GPU). */
PORTA_INLINE_FUNCTION void porta_atomic_fence(void) { __threadfence(); }

#endif
