/** @file app_sum_comm.h
 *  Creating an app_sum (app_sum.h) over a communicator: the part of the interface with MPI. */
#ifndef APP_SUM_COMM_H
#define APP_SUM_COMM_H

#include <mpi.h>

#include "app_report.h"
#include "app_sum.h"

PORTA_EXTERN_C_BEGIN

/** A summation state over `comm` (MPI_COMM_NULL: one process, no MPI), exact when `exact`.
 *  With `timers` the allreduces are timed under "MPI reductions". */
int app_sum_create(app_sum **out, MPI_Comm comm, int exact, app_timers *timers);

PORTA_EXTERN_C_END

#endif /* APP_SUM_COMM_H */
