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

struct porta_device_comm;

/** Exact mode in a device loop: the n accumulators `acc` that APP_SUM_REDUCE_INTO left (memory
 *  of exec's space) summed over the `nranks` ranks of `dc` (NULL or one rank: this rank's
 *  alone) and rounded into values[0..n) there, queued on exec without a wait. The same bits as
 *  app_sum_allreduce: the limbs travel as doubles that are integers below 2^53 (APP_SUM_WIRE
 *  each), so the device communicator's sum of them is exact in any order. `wire` is scratch of
 *  APP_SUM_WIRE n doubles there. */
int app_sum_finish_on(porta_exec exec, struct porta_device_comm *dc, int nranks,
                      const porta_xsum_f64_value *acc, double *wire, double *values, int n);

/** Exact mode driven from the host: the `count` doubles of packed accumulators (app_sum_pack_on,
 *  host memory) summed over the state's ranks in place, by MPI (timed and counted as
 *  app_sum_allreduce). The same exact sum as the device communicator's. */
int app_sum_allreduce_wire(app_sum *s, double *wire, int count);

PORTA_EXTERN_C_END

#endif /* APP_SUM_COMM_H */
