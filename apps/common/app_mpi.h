/** @file app_mpi.h
 *  MPI start-up and shut-down for the Porta mini-apps, and the fatal-error path.
 *
 *  Two ways to stop on an error:
 *  - app_fatal(): something went wrong on *this* rank only (a failed allocation, a Porta error,
 *    an HDF5 failure). It prints one message, prefixed with the program name and the rank,
 *    and calls MPI_Abort, so the other ranks never hang in a collective.
 *  - app_exit_all(): every rank knows the same error (a bad deck, a bad option: the deck text
 *    is broadcast and parsed everywhere). Rank 0 alone prints it, everyone finalises MPI and
 *    exits with the given status, so the job's exit status is reliable.
 */
#ifndef APP_MPI_H
#define APP_MPI_H

#include <mpi.h>
#include <stdarg.h>

#include "porta/porta.h"

PORTA_EXTERN_C_BEGIN

/** Start MPI (MPI_Init_thread, FUNNELED) and remember the program name for messages. */
int app_mpi_init(int *argc, char ***argv, const char *program);
/** Finalise Porta (if initialised) and MPI. Returns 0. */
int app_mpi_finalize(void);
/** MPI_COMM_WORLD rank and size (valid after app_mpi_init). */
int app_mpi_rank(void);
int app_mpi_size(void);
/** The program name given to app_mpi_init ("app" before). */
const char *app_program_name(void);

/** Print "PROGRAM: rank R: message" to stderr and MPI_Abort(MPI_COMM_WORLD, 1). Never returns. */
void app_fatal(const char *fmt, ...) PORTA_PRINTF_FORMAT(1, 2) __attribute__((noreturn));
void app_vfatal(const char *fmt, va_list ap) __attribute__((noreturn));

/** Collective exit: rank 0 prints "PROGRAM: message" (when fmt is not NULL) to stderr, every
 *  rank finalises Porta and MPI and exits with `status`. Call it on every rank. */
void app_exit_all(int status, const char *fmt, ...) PORTA_PRINTF_FORMAT(2, 3)
    __attribute__((noreturn));

/** Route every Porta failure to app_fatal (with Porta's message: operation, label, reason). */
void app_porta_errors_fatal(void);

/** Check a Porta call: on failure, app_fatal with the call's text and Porta's message. */
#define APP_CHECK(call)                                                                            \
  do {                                                                                             \
    int app_check_rc_ = (call);                                                                    \
    if (app_check_rc_ != PORTA_SUCCESS)                                                            \
      app_fatal("%s failed (%s:%d): %s", #call, __FILE__, __LINE__, porta_last_error_message());   \
  } while (0)

/** Check an MPI call: on failure, app_fatal with MPI's error string. */
#define APP_MPI_CHECK(call)                                                                        \
  do {                                                                                             \
    int app_mpi_rc_ = (call);                                                                      \
    if (app_mpi_rc_ != MPI_SUCCESS) app_mpi_fail_(app_mpi_rc_, #call, __FILE__, __LINE__);         \
  } while (0)
void app_mpi_fail_(int rc, const char *call, const char *file, int line) __attribute__((noreturn));

PORTA_EXTERN_C_END

#endif /* APP_MPI_H */
