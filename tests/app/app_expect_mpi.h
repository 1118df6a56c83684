/** @file app_expect_mpi.h
 *  Checks of collective failures for the apps/common tests that run on several ranks. */
#ifndef APP_EXPECT_MPI_H
#define APP_EXPECT_MPI_H

#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "app_expect.h"
#include "porta/porta.h"

/** The message of the last failure must name `what`; rank 0 prints it for the log. */
static void expect_message(const char *what, const char *context) {
  const char *m = porta_last_error_message();
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  EXPECT(strstr(m, what) != NULL, "%s: message '%s' does not name '%s'", context, m, what);
  if (r == 0) printf("  %s -> %s\n", context, m);
}

/** Every rank's rc must be non-zero (a collective failure returns on all of them). */
static void expect_failed_everywhere(int rc, const char *context) {
  int ok = rc != PORTA_SUCCESS, all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  EXPECT(all == 1, "%s: some rank returned PORTA_SUCCESS", context);
}

#endif /* APP_EXPECT_MPI_H */
