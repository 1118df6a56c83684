/** @file app_scalars.h
 *  A solver's scalars (its sums, coefficients and counts) in memory of its execution space, so
 *  that one body of an iteration runs as it is on a host back end and is recorded into a device
 *  loop on a GPU: reductions land in them (APP_SUM_REDUCE_INTO), kernels read them, and the host
 *  reads them back after a pass it drives. With a host side: the views themselves on a host
 *  back end, pinned copies on a GPU, copied on the solver's instance without a global fence. */
#ifndef APP_SCALARS_H
#define APP_SCALARS_H

#include "app_sum.h"

PORTA_EXTERN_C_BEGIN

struct porta_device_comm;

/** nscal doubles and nints integers in memory of the solver's space, and their host side. The
 *  doubles and the integers are one allocation each side, so that a read is one copy. */
typedef struct app_scalars {
  porta_view_f64 scal_v;  /**< the doubles where kernels read and reduce into them */
  porta_view_i64 ints_v;  /**< the integers, after them in the same allocation */
  porta_view_u8 exact_v;  /**< exact sums: an accumulator per double; else empty */
  porta_view_f64 wire_v;  /**< ... their scratch for the sum over the ranks, */
  porta_view_i32 again_v; /**< ... whether a set of them takes its second pass, */
  app_sum_rerun *rerun;   /**< ... and the records of those second passes (host memory) */
  porta_view_f64 scal;    /**< the host side of scal_v, ints_v and wire_v */
  porta_view_i64 ints;
  porta_view_f64 wire;
  porta_view_f64 block_v, block; /**< the allocations of scal_v and ints_v, scal and ints */
} app_scalars;

/** The views (zeroed) on exec's space and their host side; `exact`: with accumulators. */
int app_scalars_create(app_scalars *a, const char *label, porta_exec exec, int nscal, int nints,
                       int exact);
void app_scalars_release(app_scalars *a);

/** Where a reduction into double `slot` lands (its accumulator with exact sums). */
app_sum_to app_scalars_to(const app_scalars *a, int slot);

/** The host side from the space's memory: queued on exec, then a wait for it (and for what
 *  exec ran before). Nothing to copy on a host back end. */
int app_scalars_read(const app_scalars *a, porta_exec exec);
/** The host side to the space's memory, queued on exec (no wait). */
int app_scalars_write(const app_scalars *a, porta_exec exec);

/** The reductions into doubles [slot, slot + n) summed over `nranks` ranks: on one, this rank's
 *  (exact ones rounded); with `queued` (a device communicator, while a loop records) queued on
 *  the GPUs; else by MPI through the host side (exact sums as packed limbs:
 *  app_sum_allreduce_wire). The same bits every way. Exact sums: their first passes decided
 *  where their bounds do, and where not, a second pass of all n (porta_exec_if: on a GPU a
 *  conditional step of the device loop, not taken at all on almost every pass); one sum (n 1)
 *  on a transport a kernel reaches (the peer one) is its settle kernel's alone, the ranks'
 *  first passes gathered and the second pass's limbs added by that kernel. */
int app_scalars_sum(const app_scalars *a, porta_exec exec, app_sum *sum,
                    struct porta_device_comm *queued, int nranks, int slot, int n);

PORTA_EXTERN_C_END

#endif /* APP_SCALARS_H */
