/** @file atomic.h
 *  Atomic operations callable from kernel bodies on every backend (like Kokkos' atomics).
 *
 *  For each type suffix i32, i64, u32, u64 (int32_t ... uint64_t), f32 (float) and f64 (double):
 *
 *    T    porta_atomic_fetch_<op>_<s>(T *p, T v)   returns the old value     (op: add sub min max)
 *    T    porta_atomic_<op>_fetch_<s>(T *p, T v)   returns the new value
 *    void porta_atomic_<op>_<s>(T *p, T v)         returns nothing
 *    T    porta_atomic_exchange_<s>(T *p, T v)     stores v, returns the old value
 *    T    porta_atomic_compare_exchange_<s>(T *p, T expected, T desired)
 *         stores desired if *p equals expected; returns the old value either way (Kokkos semantics)
 *    int  porta_atomic_compare_exchange_strong_<s>(T *p, T *expected, T desired)
 *         returns 1 on success; on failure writes the value found into *expected (C11 semantics)
 *    T    porta_atomic_load_<s>(const T *p),  void porta_atomic_store_<s>(T *p, T v)
 *
 *  and for the integer types also the bitwise ops `and` and `or` in the three forms above.
 *
 *  Semantics, the same on every backend:
 *  - Read-modify-write operations, loads and stores are relaxed (atomic, no ordering), as Kokkos'
 *    atomic_add; exchange and compare-exchange are sequentially consistent on the host and
 *    device-scope on the GPU. porta_atomic_fence() orders everything else.
 *  - Integer arithmetic wraps (two's complement, no undefined behaviour on overflow).
 *  - min/max store `v < old ? v : old` (resp. `old < v`): a NaN argument leaves *p unchanged and a
 *    NaN already in *p stays. Floating-point compare-exchange compares bit patterns, so NaN
 *    matches the same NaN and -0.0 does not match +0.0 (this also keeps CAS loops from spinning).
 *  - Floating-point add/sub/min/max, and the integer min/max on the host, are compare-exchange
 *    loops on the bit pattern where the hardware has no instruction for them. On the GPU, float
 *    and double add/sub use the hardware's atomic add, which flushes subnormal results to zero
 *    for float (as CUDA's atomicAdd does); the host loops keep subnormals.
 *
 *  Objects of any other size or type are updated under a lock: PORTA_ATOMIC_UPDATE(ptr, stmt...)
 *  takes the lock that `ptr` hashes to in a table of PORTA_ATOMIC_LOCK_COUNT spinlocks, runs the
 *  statements and releases it (host table in core/src/atomic_lock.c; the device's table is the
 *  device back end's, e.g. porta/backend/cuda/atomic_lock.h).
 *
 *  The type list is the X-macro PORTA_ATOMIC_TYPES(X); X receives (suffix, T, U, DT, DU): U is the
 *  unsigned integer type of T's size, DT and DU the CUDA intrinsics' operand types.
 */
#ifndef PORTA_ATOMIC_H
#define PORTA_ATOMIC_H

#include <string.h>

#include "porta/macros.h"

/* ------------------------------------------------------------------------------------------ */
/* Type lists                                                                                  */
/* ------------------------------------------------------------------------------------------ */

/** Integer types: (suffix, T, unsigned of T's size, CUDA min/max type, CUDA bits type). */
#define PORTA_ATOMIC_INT_TYPES(X)                                                                  \
  X(i32, int32_t, uint32_t, int, unsigned int)                                                     \
  X(i64, int64_t, uint64_t, long long, unsigned long long)                                         \
  X(u32, uint32_t, uint32_t, unsigned int, unsigned int)                                           \
  X(u64, uint64_t, uint64_t, unsigned long long, unsigned long long)

/** Floating-point types: (suffix, T, bits type, CUDA add type, CUDA bits type). */
#define PORTA_ATOMIC_FLOAT_TYPES(X)                                                                \
  X(f32, float, uint32_t, float, unsigned int)                                                     \
  X(f64, double, uint64_t, double, unsigned long long)

/** Every type with atomics. */
#define PORTA_ATOMIC_TYPES(X) PORTA_ATOMIC_INT_TYPES(X) PORTA_ATOMIC_FLOAT_TYPES(X)

/* ------------------------------------------------------------------------------------------ */
/* Combining functions, shared by the CAS loops and the op_fetch forms                         */
/* ------------------------------------------------------------------------------------------ */

/* Bit pattern of a value and back: memcpy is the type pun without undefined behaviour (it is a
 * register move after optimisation, on the host and on the device). */
#define PORTA_ATOMIC_BITS_(s, T, U, DT, DU)                                                        \
  PORTA_INLINE_FUNCTION DU porta_atomic_to_bits_##s##_(T v) {                                      \
    DU b;                                                                                          \
    memcpy(&b, &v, sizeof b);                                                                      \
    return b;                                                                                      \
  }                                                                                                \
  PORTA_INLINE_FUNCTION T porta_atomic_from_bits_##s##_(DU b) {                                    \
    T v;                                                                                           \
    memcpy(&v, &b, sizeof v);                                                                      \
    return v;                                                                                      \
  }                                                                                                \
  PORTA_INLINE_FUNCTION T porta_atomic_min_op_##s##_(T old, T v) { return v < old ? v : old; }     \
  PORTA_INLINE_FUNCTION T porta_atomic_max_op_##s##_(T old, T v) { return old < v ? v : old; }

/* Integer add/sub wrap: computed in the unsigned type, converted back (modulo, as gcc and nvcc
 * define it). */
#define PORTA_ATOMIC_INT_OPS_(s, T, U, DT, DU)                                                     \
  PORTA_INLINE_FUNCTION T porta_atomic_add_op_##s##_(T old, T v) { return (T)((U)old + (U)v); }    \
  PORTA_INLINE_FUNCTION T porta_atomic_sub_op_##s##_(T old, T v) { return (T)((U)old - (U)v); }    \
  PORTA_INLINE_FUNCTION T porta_atomic_and_op_##s##_(T old, T v) { return (T)(old & v); }          \
  PORTA_INLINE_FUNCTION T porta_atomic_or_op_##s##_(T old, T v) { return (T)(old | v); }

#define PORTA_ATOMIC_FLOAT_OPS_(s, T, U, DT, DU)                                                   \
  PORTA_INLINE_FUNCTION T porta_atomic_add_op_##s##_(T old, T v) { return old + v; }               \
  PORTA_INLINE_FUNCTION T porta_atomic_sub_op_##s##_(T old, T v) { return old - v; }

PORTA_ATOMIC_TYPES(PORTA_ATOMIC_BITS_)
PORTA_ATOMIC_INT_TYPES(PORTA_ATOMIC_INT_OPS_)
PORTA_ATOMIC_FLOAT_TYPES(PORTA_ATOMIC_FLOAT_OPS_)

#if PORTA_DEVICE_PASS
#include PORTA_DEVICE_ATOMIC_H /* the device's atomics (the device back end's hooks) */
#else                          /* host pass */
/* ------------------------------------------------------------------------------------------ */
/* Host pass (gcc, g++, clang, nvcc's host compiler): GCC __atomic builtins                    */
/* ------------------------------------------------------------------------------------------ */

/* A fetch-op as a compare-exchange loop. The generic (non-_n) builtins work on float and double
 * directly and compare bit patterns, so there is no pointer cast and NaN cannot make the loop
 * spin. Returns at once, without writing, when the operation would not change the value. */
#define PORTA_ATOMIC_CAS_LOOP_(s, T, DU, op)                                                       \
  PORTA_INLINE_FUNCTION T porta_atomic_cas_##op##_##s##_(T *p, T v) {                              \
    T old, next;                                                                                   \
    __atomic_load(p, &old, __ATOMIC_RELAXED);                                                      \
    do {                                                                                           \
      next = porta_atomic_##op##_op_##s##_(old, v);                                                \
      if (porta_atomic_to_bits_##s##_(next) == porta_atomic_to_bits_##s##_(old)) break;            \
    } while (!__atomic_compare_exchange(p, &old, &next, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED));   \
    return old;                                                                                    \
  }

#define PORTA_ATOMIC_COMMON_(s, T, U, DT, DU)                                                      \
  PORTA_INLINE_FUNCTION T porta_atomic_load_##s(const T *p) {                                      \
    T v;                                                                                           \
    __atomic_load(p, &v, __ATOMIC_RELAXED);                                                        \
    return v;                                                                                      \
  }                                                                                                \
  PORTA_INLINE_FUNCTION void porta_atomic_store_##s(T *p, T v) {                                   \
    __atomic_store(p, &v, __ATOMIC_RELAXED);                                                       \
  }                                                                                                \
  PORTA_INLINE_FUNCTION T porta_atomic_exchange_##s(T *p, T v) {                                   \
    T old;                                                                                         \
    __atomic_exchange(p, &v, &old, __ATOMIC_SEQ_CST);                                              \
    return old;                                                                                    \
  }                                                                                                \
  PORTA_INLINE_FUNCTION T porta_atomic_compare_exchange_##s(T *p, T expected, T desired) {         \
    __atomic_compare_exchange(p, &expected, &desired, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);      \
    return expected; /* unchanged on success (equal to the old value), the old value otherwise */  \
  }                                                                                                \
  PORTA_ATOMIC_CAS_LOOP_(s, T, DU, min)                                                            \
  PORTA_ATOMIC_CAS_LOOP_(s, T, DU, max)                                                            \
  PORTA_INLINE_FUNCTION T porta_atomic_fetch_min_##s(T *p, T v) {                                  \
    return porta_atomic_cas_min_##s##_(p, v);                                                      \
  }                                                                                                \
  PORTA_INLINE_FUNCTION T porta_atomic_fetch_max_##s(T *p, T v) {                                  \
    return porta_atomic_cas_max_##s##_(p, v);                                                      \
  }

PORTA_ATOMIC_TYPES(PORTA_ATOMIC_COMMON_)

/* Integers: native fetch-add/sub/and/or (GCC defines signed overflow in them as wrapping). */
#define PORTA_ATOMIC_ARITH_INT_(s, T, U, DT, DU)                                                   \
  PORTA_INLINE_FUNCTION T porta_atomic_fetch_add_##s(T *p, T v) {                                  \
    return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);                                             \
  }                                                                                                \
  PORTA_INLINE_FUNCTION T porta_atomic_fetch_sub_##s(T *p, T v) {                                  \
    return __atomic_fetch_sub(p, v, __ATOMIC_RELAXED);                                             \
  }                                                                                                \
  PORTA_INLINE_FUNCTION T porta_atomic_fetch_and_##s(T *p, T v) {                                  \
    return __atomic_fetch_and(p, v, __ATOMIC_RELAXED);                                             \
  }                                                                                                \
  PORTA_INLINE_FUNCTION T porta_atomic_fetch_or_##s(T *p, T v) {                                   \
    return __atomic_fetch_or(p, v, __ATOMIC_RELAXED);                                              \
  }

/* Floating point: add and sub are CAS loops. */
#define PORTA_ATOMIC_ARITH_FLOAT_(s, T, U, DT, DU)                                                 \
  PORTA_ATOMIC_CAS_LOOP_(s, T, DU, add)                                                            \
  PORTA_ATOMIC_CAS_LOOP_(s, T, DU, sub)                                                            \
  PORTA_INLINE_FUNCTION T porta_atomic_fetch_add_##s(T *p, T v) {                                  \
    return porta_atomic_cas_add_##s##_(p, v);                                                      \
  }                                                                                                \
  PORTA_INLINE_FUNCTION T porta_atomic_fetch_sub_##s(T *p, T v) {                                  \
    return porta_atomic_cas_sub_##s##_(p, v);                                                      \
  }

PORTA_ATOMIC_INT_TYPES(PORTA_ATOMIC_ARITH_INT_)
PORTA_ATOMIC_FLOAT_TYPES(PORTA_ATOMIC_ARITH_FLOAT_)

/** Sequentially consistent thread fence. */
PORTA_INLINE_FUNCTION void porta_atomic_fence(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

#endif /* host pass */

/* ------------------------------------------------------------------------------------------ */
/* Forms derived from the fetch-ops, the same in every pass                                    */
/* ------------------------------------------------------------------------------------------ */

#define PORTA_ATOMIC_DERIVED_OP_(s, T, op)                                                         \
  PORTA_INLINE_FUNCTION T porta_atomic_##op##_fetch_##s(T *p, T v) {                               \
    return porta_atomic_##op##_op_##s##_(porta_atomic_fetch_##op##_##s(p, v), v);                  \
  }                                                                                                \
  PORTA_INLINE_FUNCTION void porta_atomic_##op##_##s(T *p, T v) {                                  \
    (void)porta_atomic_fetch_##op##_##s(p, v);                                                     \
  }

#define PORTA_ATOMIC_DERIVED_(s, T, U, DT, DU)                                                     \
  PORTA_ATOMIC_DERIVED_OP_(s, T, add)                                                              \
  PORTA_ATOMIC_DERIVED_OP_(s, T, sub)                                                              \
  PORTA_ATOMIC_DERIVED_OP_(s, T, min)                                                              \
  PORTA_ATOMIC_DERIVED_OP_(s, T, max)                                                              \
  PORTA_INLINE_FUNCTION int porta_atomic_compare_exchange_strong_##s(T *p, T *expected,            \
                                                                     T desired) {                  \
    T old = porta_atomic_compare_exchange_##s(p, *expected, desired);                              \
    if (porta_atomic_to_bits_##s##_(old) == porta_atomic_to_bits_##s##_(*expected)) return 1;      \
    *expected = old;                                                                               \
    return 0;                                                                                      \
  }

#define PORTA_ATOMIC_DERIVED_INT_(s, T, U, DT, DU)                                                 \
  PORTA_ATOMIC_DERIVED_OP_(s, T, and)                                                              \
  PORTA_ATOMIC_DERIVED_OP_(s, T, or)

PORTA_ATOMIC_TYPES(PORTA_ATOMIC_DERIVED_)
PORTA_ATOMIC_INT_TYPES(PORTA_ATOMIC_DERIVED_INT_)

/* ------------------------------------------------------------------------------------------ */
/* Lock table for objects of any other size                                                    */
/* ------------------------------------------------------------------------------------------ */

/** log2 of the number of spinlocks in each lock table. */
#define PORTA_ATOMIC_LOCK_BITS 12
/** Number of spinlocks in each lock table (host and device): a power of two. */
#define PORTA_ATOMIC_LOCK_COUNT (1u << PORTA_ATOMIC_LOCK_BITS)

/** The lock `addr` maps to: Fibonacci hashing of the address, so that neighbouring objects get
 *  unrelated locks. An object must always be locked through the same address (its first byte). */
PORTA_INLINE_FUNCTION uint32_t porta_atomic_lock_index(const void *addr) {
  uint64_t h = (uint64_t)((uintptr_t)addr >> 3) * UINT64_C(0x9E3779B97F4A7C15);
  return (uint32_t)(h >> (64 - PORTA_ATOMIC_LOCK_BITS));
}

PORTA_EXTERN_C_BEGIN

/** Take the host spinlock that `addr` hashes to (acquire). Not reentrant: taking a second lock
 *  while holding one can deadlock, since two addresses may share a lock. */
PORTA_API void porta_atomic_lock(const void *addr);
/** Release the host spinlock that `addr` hashes to (release). */
PORTA_API void porta_atomic_unlock(const void *addr);

PORTA_EXTERN_C_END

#ifdef PORTA_DEVICE_ATOMIC_LOCK_H
#include PORTA_DEVICE_ATOMIC_LOCK_H /* the device's lock table and PORTA_ATOMIC_UPDATE */
#endif

/** Run the statements `...` (they may contain commas) while holding the lock of `ptr`, so that an
 *  object of any size is updated atomically with respect to every other PORTA_ATOMIC_UPDATE on the
 *  same pointer. The statements must not leave the block (return, break, goto) and must not take
 *  another lock. Taking and releasing the lock are fenced (acquire/release on the host,
 *  __threadfence() on the device), so the statements may use plain loads and stores. */
#ifndef PORTA_ATOMIC_UPDATE
#define PORTA_ATOMIC_UPDATE(ptr, ...)                                                              \
  do {                                                                                             \
    const void *porta_au_addr_ = (const void *)(ptr);                                              \
    porta_atomic_lock(porta_au_addr_);                                                             \
    __VA_ARGS__;                                                                                   \
    porta_atomic_unlock(porta_au_addr_);                                                           \
  } while (0)
#endif

#endif /* PORTA_ATOMIC_H */
