/** @file harness.h
 *  A tiny test harness: every unit test is one program, written once and run by
 *  CTest once per backend (PORTA_BACKEND / PORTA_NUM_THREADS pick it).
 *  A failed check prints the file, line and values, and the program's exit
 *  status is the number of failures.
 */
#ifndef PORTA_TEST_HARNESS_H
#define PORTA_TEST_HARNESS_H

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "porta/porta.h"

/** A fixed-seed 64-bit LCG: the next value in [0, 1) from `*state`. */
static inline double pt_lcg_u01(uint64_t *state) {
  *state = *state * 6364136223846793005ull + 1442695040888963407ull;
  return (double)(*state >> 11) * (1.0 / 9007199254740992.0);
}

/** From the same LCG: random sign, magnitude log-uniform in [10^lo, 10^hi). */
static inline double pt_lcg_signed(uint64_t *state, double lo, double hi) {
  const double mag = pow(10.0, lo + (hi - lo) * pt_lcg_u01(state));
  return pt_lcg_u01(state) < 0.5 ? -mag : mag;
}

static int pt_failures_ = 0;
static const char *pt_current_ = "";

static inline void pt_fail_(const char *file, int line, const char *what) {
  ++pt_failures_;
  fprintf(stderr, "%s:%d: FAILED in %s: %s\n", file, line, pt_current_, what);
}

#define PT_CHECK(cond)                                                                             \
  do {                                                                                             \
    if (!(cond)) pt_fail_(__FILE__, __LINE__, #cond);                                              \
  } while (0)

#define PT_EQ_I64(a, b)                                                                            \
  do {                                                                                             \
    int64_t pt_a_ = (int64_t)(a), pt_b_ = (int64_t)(b);                                            \
    if (pt_a_ != pt_b_) {                                                                          \
      char pt_msg_[256];                                                                           \
      snprintf(pt_msg_, sizeof pt_msg_, "%s == %s (%" PRId64 " vs %" PRId64 ")", #a, #b, pt_a_,    \
               pt_b_);                                                                             \
      pt_fail_(__FILE__, __LINE__, pt_msg_);                                                       \
    }                                                                                              \
  } while (0)

/** Exact floating-point equality (use where the answer is exactly representable). */
#define PT_EQ_F64(a, b)                                                                            \
  do {                                                                                             \
    double pt_a_ = (double)(a), pt_b_ = (double)(b);                                               \
    if (!(pt_a_ == pt_b_)) {                                                                       \
      char pt_msg_[256];                                                                           \
      snprintf(pt_msg_, sizeof pt_msg_, "%s == %s (%.17g vs %.17g)", #a, #b, pt_a_, pt_b_);        \
      pt_fail_(__FILE__, __LINE__, pt_msg_);                                                       \
    }                                                                                              \
  } while (0)

/** Relative closeness: |a-b| <= rel * max(|a|,|b|,1e-300). */
#define PT_NEAR(a, b, rel)                                                                         \
  do {                                                                                             \
    double pt_a_ = (double)(a), pt_b_ = (double)(b);                                               \
    double pt_s_ = fabs(pt_a_) > fabs(pt_b_) ? fabs(pt_a_) : fabs(pt_b_);                          \
    if (!(fabs(pt_a_ - pt_b_) <= (rel) * (pt_s_ > 1e-300 ? pt_s_ : 1e-300))) {                     \
      char pt_msg_[256];                                                                           \
      snprintf(pt_msg_, sizeof pt_msg_, "%s ~ %s (%.17g vs %.17g, rel %g)", #a, #b, pt_a_, pt_b_,  \
               (double)(rel));                                                                     \
      pt_fail_(__FILE__, __LINE__, pt_msg_);                                                       \
    }                                                                                              \
  } while (0)

/** Non-zero if the last error message contains `text`. */
static inline int msg_has(const char *text) {
  return strstr(porta_last_error_message(), text) != NULL;
}

#define PT_MSG_HAS(text)                                                                           \
  do {                                                                                             \
    if (!msg_has(text)) {                                                                          \
      char pt_m_[1200];                                                                            \
      snprintf(pt_m_, sizeof pt_m_, "message lacks \"%s\": %s", (text),                            \
               porta_last_error_message());                                                        \
      pt_fail_(__FILE__, __LINE__, pt_m_);                                                         \
    }                                                                                              \
  } while (0)

/** Check that a Porta call returns `code`. */
#define PT_EXPECT_CODE(call, code) PT_EQ_I64((call), (code))
/** A Porta call that must succeed. A back-end failure (a GPU fault leaves the device unusable,
 *  managed views included) ends the program with the message instead of running on into a
 *  crash. */
#define PT_OK(call)                                                                                \
  do {                                                                                             \
    const int pt_rc_ = (call);                                                                     \
    if (pt_rc_ != PORTA_SUCCESS) {                                                                 \
      char pt_msg_[512];                                                                           \
      snprintf(pt_msg_, sizeof pt_msg_, "%s returned %d: %s", #call, pt_rc_,                       \
               porta_last_error_message());                                                        \
      pt_fail_(__FILE__, __LINE__, pt_msg_);                                                       \
      if (pt_rc_ == PORTA_ERROR_BACKEND) {                                                         \
        fprintf(stderr, "back-end failure: stopping (%d failure(s))\n", pt_failures_);             \
        exit(pt_failures_);                                                                        \
      }                                                                                            \
    }                                                                                              \
  } while (0)

#define PT_BEGIN(argc, argv)                                                                       \
  do {                                                                                             \
    if (porta_initialize(&(argc), &(argv)) != PORTA_SUCCESS) {                                     \
      fprintf(stderr, "porta_initialize failed: %s\n", porta_last_error_message());                \
      return 1;                                                                                    \
    }                                                                                              \
    /* Written once for every back end: on the GPU, views are managed memory so the */             \
    /* checks can read results on the host (CTest sets CUDA_LAUNCH_BLOCKING=1 there). */           \
    if (porta_exec_default().backend == PORTA_BACKEND_CUDA)                                        \
      porta_set_default_memory_space(PORTA_CUDA_UVM_SPACE);                                        \
  } while (0)

#define PT_RUN(fn)                                                                                 \
  do {                                                                                             \
    pt_current_ = #fn;                                                                             \
    int pt_before_ = pt_failures_;                                                                 \
    fn();                                                                                          \
    printf("%-40s %s\n", #fn, pt_failures_ == pt_before_ ? "ok" : "FAILED");                       \
  } while (0)

#define PT_END()                                                                                   \
  do {                                                                                             \
    porta_finalize();                                                                              \
    printf("%d failure(s)\n", pt_failures_);                                                       \
    return pt_failures_ ? 1 : 0;                                                                   \
  } while (0)

#endif
