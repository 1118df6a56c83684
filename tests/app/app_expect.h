/** @file app_expect.h
 *  The apps/common tests' check: EXPECT(cond, fmt, ...) prints the failed condition with its
 *  place and a message to stderr and counts it in `fails` (the test's exit status). */
#ifndef APP_EXPECT_H
#define APP_EXPECT_H

#include <stdio.h>

static int fails = 0;
#define EXPECT(cond, ...)                                                                          \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                              \
      fprintf(stderr, __VA_ARGS__);                                                                \
      fprintf(stderr, "\n");                                                                       \
      ++fails;                                                                                     \
    }                                                                                              \
  } while (0)

#endif /* APP_EXPECT_H */
