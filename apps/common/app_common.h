/** @file app_common.h
 *  The application layer shared by the Porta mini-apps (TeaLeaf, miniFE, miniMD).
 *
 *  Error convention of apps/common: a fallible function returns a Porta code (PORTA_SUCCESS is
 *  0; PORTA_ERROR_INVALID_ARGUMENT for bad arguments, options, decks and shapes, PORTA_ERROR_IO
 *  for files and HDF5, PORTA_ERROR_OUT_OF_MEMORY, PORTA_ERROR_BACKEND for MPI) and, before
 *  returning a failure, records it with porta_error(code, "function_name", object, reason): the
 *  message in porta_last_error_message() names the function, the object (file, dataset or
 *  option) and the reason, with HDF5's error stack and the OS's strerror(errno) where they gave
 *  one. Callers pass codes up (PORTA_CHECK) or stop with the message (APP_CHECK, app_exit_all).
 *  The error policy is set once, in app_begin: Porta's PORTA_ERROR_MODE_RETURN for the whole run,
 *  so every failure travels up as a code (code with something to undo, such as the HDF5 writer's
 *  temporary file or a GPU channel falling back to the host, does it on the way) to the run's
 *  step that cannot go on, which stops the job with APP_CHECK or app_exit_all and one of the
 *  exit statuses of enum app_exit_status. Functions that cannot fail return void. */
#ifndef APP_COMMON_H
#define APP_COMMON_H

#include "app_begin.h"
#include "app_cli.h"
#include "app_deck.h"
#include "porta/exchange_decomp.h"
#include "app_field.h"
#include "app_file.h"
#include "app_h5.h"
#include "porta/exchange_halo2d.h"
#include "app_mpi.h"
#include "app_report.h"
#include "app_summary.h"

#endif /* APP_COMMON_H */
