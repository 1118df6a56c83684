/** @file tutorial.h
 *  The little the tutorial programs share: checking a Porta call, and the rule for the answer
 *  line. Every program prints one line to stdout, "NN_name: <answer> PASS" (or "... FAIL"),
 *  and exits 0 only when its answer is right (1 when it is wrong, 2 when a call fails).
 *  Kept in the common subset of C11 and C++17, like every file with kernels.
 */
#ifndef PORTA_TUTORIAL_H
#define PORTA_TUTORIAL_H

#include <stdio.h>
#include <stdlib.h>

#include "porta/porta.h"

/** Run a Porta call; on failure print the call and Porta's message (operation, label, reason)
 *  and exit with status 2. (Kokkos throws or aborts; Porta returns an error code.) */
#define TUT_CHECK(call)                                                                            \
  do {                                                                                             \
    int tut_rc_ = (call);                                                                          \
    if (tut_rc_ != PORTA_SUCCESS) {                                                                \
      fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,                         \
              porta_last_error_message());                                                         \
      exit(2);                                                                                     \
    }                                                                                              \
  } while (0)

#endif /* PORTA_TUTORIAL_H */
