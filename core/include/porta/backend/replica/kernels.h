/** @file backend/replica/kernels.h
 *  The test-only back end `replica` (PORTA_ENABLE_REPLICA): a copy of Serial under its own
 *  name, whose launchers are its own (NAME_porta_replica_). It exists to show that a back end
 *  is its folders and one line of cmake/PortaBackends.cmake's list: every unit and app test
 *  runs on it. */
#ifndef PORTA_BACKEND_REPLICA_KERNELS_H
#define PORTA_BACKEND_REPLICA_KERNELS_H

#include "porta/backend/serial/kernels.h"

#define PORTA_REPLICA_REF_(NAME) NAME##_porta_replica_
#define PORTA_REPLICA_FOR_(NAME, ARGS_T) PORTA_SERIAL_FOR_AS_(replica, NAME, ARGS_T)
#define PORTA_REPLICA_REDUCE_(NAME, ARGS_T, R) PORTA_SERIAL_REDUCE_AS_(replica, NAME, ARGS_T, R)
#define PORTA_REPLICA_SCAN_(NAME, ARGS_T, R) PORTA_SERIAL_SCAN_AS_(replica, NAME, ARGS_T, R)
#define PORTA_REPLICA_MDFOR_(NAME, ARGS_T, RANK) PORTA_SERIAL_MDFOR_AS_(replica, NAME, ARGS_T, RANK)
#define PORTA_REPLICA_MDREDUCE_(NAME, ARGS_T, RANK, R)                                             \
  PORTA_SERIAL_MDREDUCE_AS_(replica, NAME, ARGS_T, RANK, R)
#define PORTA_REPLICA_TEAM_FOR_(NAME, ARGS_T) PORTA_SERIAL_TEAM_FOR_AS_(replica, NAME, ARGS_T)
#define PORTA_REPLICA_TEAM_REDUCE_(NAME, ARGS_T, R)                                                \
  PORTA_SERIAL_TEAM_REDUCE_AS_(replica, NAME, ARGS_T, R)

#endif
