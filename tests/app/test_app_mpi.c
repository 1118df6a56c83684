/** @file test_app_mpi.c
 *  apps/common's MPI start-up and agreement (app_mpi.h): app_mpi_init excludes hwloc's OpenCL
 *  component unless the user chose the components; app_mpi_agree gives every rank the verdict
 *  of all of them, the largest failing code, with the failing rank's own message kept and the
 *  others' naming what failed elsewhere (so no rank goes on into a collective alone).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_common.h"

#include "app_expect.h"

/* Rank `who` (or every rank for -1) fails with `code` and the message "mine"; all agree. */
static void check_agree(int who, int code, int expect) {
  const int rank = app_mpi_rank();
  porta_error_clear();
  int rc = PORTA_SUCCESS;
  if (who == -1 || who == rank) rc = porta_error(code, "test_app_mpi", NULL, "mine");
  const int got = app_mpi_agree(rc, "test_app_mpi", "no memory for the test", MPI_COMM_WORLD);
  EXPECT(got == expect, "rank %d: rank %d failing with %d gave %d, not %d", rank, who, code, got,
         expect);
  const char *msg = porta_last_error_message();
  if (expect == PORTA_SUCCESS)
    EXPECT(msg[0] == '\0', "rank %d: a message on success: %s", rank, msg);
  else if (rc != PORTA_SUCCESS)
    EXPECT(strstr(msg, "mine") != NULL, "rank %d: its own message lost: %s", rank, msg);
  else
    EXPECT(strstr(msg, "no memory for the test on another rank") != NULL,
           "rank %d: the message does not say another rank failed: %s", rank, msg);
}

int main(int argc, char **argv) {
  const int user_set = getenv("HWLOC_COMPONENTS") != NULL;
  app_mpi_init(&argc, &argv, "test_app_mpi");
  APP_CHECK(porta_initialize(&argc, &argv));
  const char *hwloc = getenv("HWLOC_COMPONENTS");
  if (!user_set)
    EXPECT(hwloc && !strcmp(hwloc, "-opencl"), "HWLOC_COMPONENTS is '%s', not '-opencl'",
           hwloc ? hwloc : "(unset)");
  const int last = app_mpi_size() - 1;
  check_agree(-2, PORTA_ERROR_OUT_OF_MEMORY, PORTA_SUCCESS); /* nobody fails */
  check_agree(last, PORTA_ERROR_OUT_OF_MEMORY, PORTA_ERROR_OUT_OF_MEMORY);
  check_agree(0, PORTA_ERROR_INVALID_ARGUMENT, PORTA_ERROR_INVALID_ARGUMENT);
  check_agree(-1, PORTA_ERROR_IO, PORTA_ERROR_IO);
  if (last > 0) { /* two codes: the larger wins everywhere */
    porta_error_clear();
    const int rank = app_mpi_rank();
    const int code = rank == 0      ? PORTA_ERROR_INVALID_ARGUMENT
                     : rank == last ? PORTA_ERROR_OUT_OF_MEMORY
                                    : PORTA_SUCCESS;
    const int rc = code ? porta_error(code, "test_app_mpi", NULL, "mine") : PORTA_SUCCESS;
    const int got = app_mpi_agree(rc, "test_app_mpi", "a failure", MPI_COMM_WORLD);
    EXPECT(got == PORTA_ERROR_OUT_OF_MEMORY, "rank %d: two codes gave %d", rank, got);
  }
  int all = 0;
  MPI_Allreduce(&fails, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (app_mpi_rank() == 0) printf(all ? "FAILED\n" : "PASSED\n");
  porta_finalize();
  app_mpi_finalize();
  return all ? 1 : 0;
}
