/** @file macros.h
 *  Compiler portability macros shared by every Porta header.
 *
 *  Headers are written in the common subset of C11 and C++17 so that a kernel
 *  file can be compiled by gcc as C, by g++ as C++ and by nvcc as CUDA.
 */
#ifndef PORTA_MACROS_H
#define PORTA_MACROS_H

#include <stddef.h>
#include <stdint.h>

#include "porta/config.h"

#ifdef __cplusplus
#define PORTA_EXTERN_C_BEGIN extern "C" {
#define PORTA_EXTERN_C_END }
#define PORTA_RESTRICT __restrict__
#define PORTA_STATIC_ASSERT_(COND, MSG) static_assert(COND, MSG)
#else
#define PORTA_EXTERN_C_BEGIN
#define PORTA_EXTERN_C_END
#define PORTA_RESTRICT restrict
#define PORTA_STATIC_ASSERT_(COND, MSG) _Static_assert(COND, MSG)
#endif

/* The device back end's hooks (PORTA_DEVICE_HOOKS_H, named by porta/config.h when a back end
 * with a device compiler is built): they define what follows for its compiler's passes. */
#ifdef PORTA_DEVICE_HOOKS_H
#include PORTA_DEVICE_HOOKS_H
#endif

/** 1 while a device compiler compiles the device pass of a kernel file. */
#ifndef PORTA_DEVICE_PASS
#define PORTA_DEVICE_PASS 0
#endif

/** Functions callable from kernel bodies on every backend. */
#ifndef PORTA_INLINE_FUNCTION
#define PORTA_INLINE_FUNCTION static inline
#define PORTA_FORCEINLINE_FUNCTION static inline __attribute__((always_inline))
#define PORTA_HOST_DEVICE
#endif

/** Marks a function of the library's interface (the user API and what generated launchers
 *  call): exported from a shared libporta, which is built with every other symbol hidden. */
#if defined(__GNUC__)
#define PORTA_API __attribute__((visibility("default")))
#else
#define PORTA_API
#endif

#define PORTA_STRINGIFY_(x) #x
#define PORTA_STRINGIFY(x) PORTA_STRINGIFY_(x)
#define PORTA_CONCAT_(a, b) a##b
#define PORTA_CONCAT(a, b) PORTA_CONCAT_(a, b)

#if defined(__GNUC__)
#define PORTA_LIKELY(x) __builtin_expect(!!(x), 1)
#define PORTA_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define PORTA_UNUSED __attribute__((unused))
#define PORTA_PRINTF_FORMAT(f, a) __attribute__((format(printf, f, a)))
#else
#define PORTA_LIKELY(x) (x)
#define PORTA_UNLIKELY(x) (x)
#define PORTA_UNUSED
#define PORTA_PRINTF_FORMAT(f, a)
#endif

/** OpenMP pragmas expand to nothing when OpenMP is not compiled in. */
#if defined(_OPENMP)
#define PORTA_PRAGMA(x) _Pragma(#x)
#define PORTA_OMP(x) _Pragma(PORTA_STRINGIFY(omp x))
#else
#define PORTA_PRAGMA(x) _Pragma(#x)
#define PORTA_OMP(x)
#endif

/** PORTA_SIMD(clauses) before a loop inside a kernel body: the host passes vectorise the loop
 *  (OpenMP's `omp simd` with those clauses, e.g. `reduction(+ : fx, fy)`); a device pass, whose
 *  threads each run the loop as written, and a build without OpenMP ignore it. A kernel says
 *  what its loop allows and the back ends decide what to make of it. */
#if defined(_OPENMP) && !PORTA_DEVICE_PASS
#define PORTA_SIMD_PRAGMA_(...) _Pragma(#__VA_ARGS__)
#define PORTA_SIMD(...) PORTA_SIMD_PRAGMA_(omp simd __VA_ARGS__)
#else
#define PORTA_SIMD(...)
#endif

/** PORTA_IVDEP before a host loop over a kernel's points: the loop's iterations touch no
 *  memory another one touches, as a parallel pattern's points may not (GCC's `ivdep`: no
 *  run-time alias checks, which a loop of 16 points pays again at each entry); nothing for
 *  other compilers and in a device pass. */
#if defined(__GNUC__) && !defined(__clang__) && !PORTA_DEVICE_PASS
#define PORTA_IVDEP _Pragma("GCC ivdep")
#else
#define PORTA_IVDEP
#endif

#endif /* PORTA_MACROS_H */
