/** @file app_env.h
 *  The environment switches the apps read (a path forced for tests or tuning, such as
 *  TEA_HALO_BESIDE=0): checked on every rank at start-up, so that a misspelt value is refused
 *  with the variable's name instead of silently meaning the default (or, for
 *  APP_EXCHANGE_TRANSPORT, the pinned-host path). */
#ifndef APP_ENV_H
#define APP_ENV_H

#include <mpi.h>
#include <stdio.h>

#include "porta/porta.h"

PORTA_EXTERN_C_BEGIN

/** One environment variable and the values it takes. */
typedef struct app_env_switch {
  const char *name;   /**< "TEA_HALO_BESIDE" */
  const char *values; /**< the values it takes, '|' between them: "0|1" */
  const char *help;   /**< what it does, one line of --help */
} app_env_switch;

/** The switches of apps/common (APP_EXCHANGE_TRANSPORT), which every app reads. */
extern const app_env_switch app_env_common[];
extern const int app_env_ncommon;

/** PORTA_ERROR_INVALID_ARGUMENT, naming the variable, its value and the values it takes, when
 *  a variable of `list` is set, not empty, and none of its values; PORTA_SUCCESS otherwise. */
int app_env_check(const app_env_switch *list, int n);

/** Collective over comm: every switch of `list` must have the same value on every rank (unset
 *  and empty alike: the default). A switch changes what a rank does, and ranks that differ
 *  wait for each other in different collectives (MINIMD_DEVICE_RENEIGHBOR=1 on rank 0 and 0 on
 *  rank 1 had hung the job). PORTA_ERROR_INVALID_ARGUMENT on every rank, naming the variable
 *  and each rank's value (the first 8 ranks), when they differ; PORTA_SUCCESS otherwise. Values
 *  were checked first (app_env_check): they are short words. */
int app_env_agree(const app_env_switch *list, int n, MPI_Comm comm);

/** app_env_agree for one setting: `value` (NULL or empty: unset, at most 31 bytes compared)
 *  must be the same on every rank of comm, else PORTA_ERROR_INVALID_ARGUMENT on every rank
 *  naming `name` and the ranks' values. */
int app_env_agree_value(const char *name, const char *value, MPI_Comm comm);

/** Collective over comm: Porta's settings that change what a rank computes - the back end
 *  asked for (PORTA_BACKEND or --porta-backend, by name, "unset" where none is) and
 *  deterministic reductions (PORTA_DETERMINISTIC or --porta-deterministic, 0 or 1) - must be
 *  the same on every rank, as app_env_agree. `s`: this rank's, from porta_settings_read. */
int app_env_agree_porta(const porta_settings *s, MPI_Comm comm);

/** A switch that is "0" or "1" (checked at start-up by app_env_check): 0 or 1, else
 *  `otherwise` (unset, empty or another value: the app's default). */
int app_env_flag(const char *name, int otherwise);

/** The switches of `list` for --help, one line each. */
void app_env_usage(FILE *out, const app_env_switch *list, int n);

PORTA_EXTERN_C_END

#endif /* APP_ENV_H */
