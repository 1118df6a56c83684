/** @file backend/serial/kernels.h
 *  The Serial back end's kernel generators, as kernel.h calls them (docs/backends.md):
 *  one host thread, indices in order. */
#ifndef PORTA_BACKEND_SERIAL_KERNELS_H
#define PORTA_BACKEND_SERIAL_KERNELS_H

#include "porta/backend/serial/mdrange.h"
#include "porta/backend/serial/range.h"
#include "porta/backend/serial/team.h"

#define PORTA_SERIAL_REF_(NAME) NAME##_porta_serial_
#define PORTA_SERIAL_FOR_(NAME, ARGS_T) PORTA_SERIAL_FOR_AS_(serial, NAME, ARGS_T)
#define PORTA_SERIAL_REDUCE_(NAME, ARGS_T, R) PORTA_SERIAL_REDUCE_AS_(serial, NAME, ARGS_T, R)
#define PORTA_SERIAL_SCAN_(NAME, ARGS_T, R) PORTA_SERIAL_SCAN_AS_(serial, NAME, ARGS_T, R)
#define PORTA_SERIAL_MDFOR_(NAME, ARGS_T, RANK) PORTA_SERIAL_MDFOR_AS_(serial, NAME, ARGS_T, RANK)
#define PORTA_SERIAL_MDREDUCE_(NAME, ARGS_T, RANK, R)                                              \
  PORTA_SERIAL_MDREDUCE_AS_(serial, NAME, ARGS_T, RANK, R)
#define PORTA_SERIAL_TEAM_FOR_(NAME, ARGS_T) PORTA_SERIAL_TEAM_FOR_AS_(serial, NAME, ARGS_T)
#define PORTA_SERIAL_TEAM_REDUCE_(NAME, ARGS_T, R)                                                 \
  PORTA_SERIAL_TEAM_REDUCE_AS_(serial, NAME, ARGS_T, R)

#endif
