/** @file app_sum.c
 *  Plain and exact global sums (see app_sum.h). */
#include <stdlib.h>
#include <string.h>

#include "app_sum_comm.h"
#include "porta/exchange_device.h"

struct app_sum {
  MPI_Comm comm; /**< MPI_COMM_NULL: a single process */
  int exact;
  int pending; /**< exact mode: slots 0..pending-1 hold this set's accumulators */
  porta_xsum_f64_value acc[APP_SUM_MAX_SLOTS];
  app_timers *timers;
  int t_reduce;
  int64_t count;
};

int app_sum_create(app_sum **out, MPI_Comm comm, int exact, app_timers *timers) {
  app_sum *s = (app_sum *)calloc(1, sizeof *s);
  if (!s) return porta_error(PORTA_ERROR_OUT_OF_MEMORY, "app_sum_create", "sum", "calloc failed");
  s->comm = comm;
  s->exact = exact != 0;
  s->timers = timers;
  s->t_reduce = timers ? app_timer_id(timers, "MPI reductions") : -1;
  *out = s;
  return PORTA_SUCCESS;
}

void app_sum_destroy(app_sum *s) { free(s); }
int app_sum_is_exact(const app_sum *s) { return s->exact; }
int64_t app_sum_count(const app_sum *s) { return s->count; }

/** Exact mode: claim slot `slot` (in order; 0 starts a new set). */
static int claim_slot(app_sum *s, const char *label, int slot) {
  if (slot == 0) s->pending = 0;
  if (slot != s->pending || slot >= APP_SUM_MAX_SLOTS)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "APP_SUM_REDUCE", label,
                       "exact accumulator slot %d out of order (%d pending, at most %d)", slot,
                       s->pending, APP_SUM_MAX_SLOTS);
  return PORTA_SUCCESS;
}

porta_xsum_f64_value *app_sum_claim_(app_sum *s, const char *label, int slot) {
  return claim_slot(s, label, slot) == PORTA_SUCCESS ? &s->acc[slot] : NULL;
}

void app_sum_claimed_(app_sum *s, int slot, double *local) {
  s->pending = slot + 1;
  *local = porta_xsum_f64_round(&s->acc[slot]);
}

/** Exact mode: merge the accumulators of slots 0..n-1 over the ranks and round. Each is
 *  normalised (limbs in [0, 2^32), the top one small), so the integer MPI_SUM of up to 2^31
 *  ranks' limbs cannot overflow and does not depend on MPI's reduction order. The status bits
 *  travel as counts in one extra word per value (20 bits per flag). */
static int allreduce_exact(app_sum *s, double *values, int n) {
  enum { W = PORTA_XSUM_LIMBS + 1 };
  int64_t buf[APP_SUM_MAX_SLOTS * W];
  if (s->pending != n || n < 1 || n > APP_SUM_MAX_SLOTS) {
    int pending = s->pending;
    s->pending = 0;
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "app_sum_allreduce", "sum",
                       "reproducible mode: %d values to sum but %d exact accumulators pending", n,
                       pending);
  }
  for (int i = 0; i < n; ++i) {
    porta_xsum_f64_value v = s->acc[i];
    const double local = porta_xsum_f64_round(&v);
    if (memcmp(&local, &values[i], sizeof local) != 0) { /* a stale accumulator: refuse */
      s->pending = 0;
      return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "app_sum_allreduce", "sum",
                         "reproducible mode: value %d (%.17g) is not the pending exact "
                         "accumulator's (%.17g): its kernel did not use porta_xsum_f64",
                         i, values[i], local);
    }
    porta_xsum_f64_normalize(&v);
    memcpy(&buf[i * W], v.limb, sizeof v.limb);
    buf[i * W + PORTA_XSUM_LIMBS] = (int64_t)((v.flags & PORTA_XSUM_INEXACT) != 0) +
                                    ((int64_t)((v.flags & PORTA_XSUM_OVERFLOW) != 0) << 20) +
                                    ((int64_t)((v.flags & PORTA_XSUM_NONFINITE) != 0) << 40);
  }
  int nranks = 1, rc = MPI_SUCCESS;
  if (s->comm != MPI_COMM_NULL) {
    MPI_Comm_size(s->comm, &nranks);
    rc = MPI_Allreduce(MPI_IN_PLACE, buf, n * W, MPI_INT64_T, MPI_SUM, s->comm);
  }
  s->pending = 0;
  if (rc != MPI_SUCCESS)
    return porta_error(PORTA_ERROR_BACKEND, "app_sum_allreduce", "sum",
                       "MPI reduction of %d exact accumulators failed (%d)", n, rc);
  for (int i = 0; i < n; ++i) {
    porta_xsum_f64_value v;
    porta_xsum_f64_init(&v); /* an empty expansion: round reads it */
    memcpy(v.limb, &buf[i * W], sizeof v.limb);
    const int64_t f = buf[i * W + PORTA_XSUM_LIMBS];
    v.flags = ((f & 0xFFFFF) ? PORTA_XSUM_INEXACT : 0) |
              (((f >> 20) & 0xFFFFF) ? PORTA_XSUM_OVERFLOW : 0) |
              ((f >> 40) ? PORTA_XSUM_NONFINITE : 0);
    v.count = nranks; /* each limb holds at most nranks normalised digits */
    values[i] = porta_xsum_f64_round(&v);
  }
  return PORTA_SUCCESS;
}

int app_sum_allreduce(app_sum *s, double *values, int n) {
  if (!s->exact && s->comm == MPI_COMM_NULL) return PORTA_SUCCESS;
  if (s->timers) app_timer_start(s->timers, s->t_reduce);
  int rc = PORTA_SUCCESS;
  if (s->exact) {
    rc = allreduce_exact(s, values, n);
  } else {
    const int mrc = MPI_Allreduce(MPI_IN_PLACE, values, n, MPI_DOUBLE, MPI_SUM, s->comm);
    if (mrc != MPI_SUCCESS)
      rc = porta_error(PORTA_ERROR_BACKEND, "app_sum_allreduce", "sum",
                       "MPI reduction of %d values failed (%d)", n, mrc);
  }
  if (s->timers) app_timer_stop(s->timers, s->t_reduce);
  s->count++;
  return rc;
}

int app_sum_allreduce_wire(app_sum *s, double *wire, int count) {
  if (s->comm == MPI_COMM_NULL) return PORTA_SUCCESS;
  if (s->timers) app_timer_start(s->timers, s->t_reduce);
  const int mrc = MPI_Allreduce(MPI_IN_PLACE, wire, count, MPI_DOUBLE, MPI_SUM, s->comm);
  if (s->timers) app_timer_stop(s->timers, s->t_reduce);
  s->count++;
  if (mrc != MPI_SUCCESS)
    return porta_error(PORTA_ERROR_BACKEND, "app_sum_allreduce_wire", "sum",
                       "MPI reduction of %d packed words failed (%d)", count, mrc);
  return PORTA_SUCCESS;
}

int app_sum_finish_on(porta_exec exec, struct porta_device_comm *dc, int nranks,
                      const porta_xsum_f64_value *acc, double *wire, double *values, int n) {
  if (n < 1 || n > APP_SUM_MAX_SLOTS || (dc && nranks < 1))
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "app_sum_finish_on", "sum",
                       "%d exact accumulators over %d ranks (1 to %d values)", n, nranks,
                       APP_SUM_MAX_SLOTS);
  if (!dc || nranks == 1) return app_sum_round_on(exec, acc, values, n);
  PORTA_CHECK(app_sum_pack_on(exec, acc, wire, n));
  PORTA_CHECK(porta_device_comm_sum(dc, exec, wire, APP_SUM_WIRE * n));
  return app_sum_unpack_on(exec, wire, values, n, nranks);
}
