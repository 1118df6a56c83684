/** @file app_sum.c
 *  Plain and exact global sums (see app_sum.h). */
#include <stdlib.h>
#include <string.h>

#include "app_sum_comm.h"
#include "porta/exchange_device.h"

struct app_sum {
  MPI_Comm comm; /**< MPI_COMM_NULL: a single process */
  int exact;
  int pending; /**< exact mode: slots 0..pending-1 hold this set's sums */
  porta_ddsum_f64_value dd[APP_SUM_MAX_SLOTS]; /**< the first passes */
  porta_xsum_f64_value acc[APP_SUM_MAX_SLOTS]; /**< the second passes, where they ran */
  int second[APP_SUM_MAX_SLOTS];               /**< 1: acc holds the slot's exact sum */
  double local[APP_SUM_MAX_SLOTS];             /**< this rank's sums, as claimed */
  app_sum_rerun *rerun;                        /**< APP_SUM_MAX_SLOTS records */
  app_timers *timers;
  int t_reduce;
  int64_t count;
};

/** *flag, read from the environment's `name` (set when it is `on`) the first time (-1). */
static int env_switch(int *flag, const char *name, const char *on) {
  if (*flag < 0) {
    const char *e = getenv(name);
    *flag = e && strcmp(e, on) == 0;
  }
  return *flag;
}

/** -1: not read yet from the environment (APP_SUMS_SECOND_PASS). */
static int force_second = -1;

void app_sum_force_second_pass(int force) { force_second = force != 0; }

int app_sum_second_pass_forced(void) {
  return env_switch(&force_second, "APP_SUMS_SECOND_PASS", "1");
}

/** The settle kernel's scratch for a team of `size`: its flag and an accumulator a thread. */
static size_t settle_scratch(int size) {
  return porta_scratch_size(sizeof(int32_t)) +
         porta_scratch_size((size_t)size * sizeof(porta_xsum_f64_value));
}

porta_team_policy app_sum_settle_policy(porta_exec exec) {
  enum { MOST = 64 };
  porta_team_policy p = porta_team_policy_make(1, MOST, 1);
  p = porta_team_scratch_request(p, 0, settle_scratch(MOST), 0);
  const int fit = porta_team_size_max(exec, p);
  if (fit > 0 && fit < MOST) {
    p = porta_team_policy_make(1, fit, 1);
    p = porta_team_scratch_request(p, 0, settle_scratch(fit), 0);
  }
  return p;
}

int app_sum_settle_ranks_(porta_exec exec, const porta_reduce_end *ranks, porta_reduce_end *out) {
  memset(out, 0, sizeof *out);
  if (!ranks || ranks->nranks < 2) return PORTA_SUCCESS;
  if (!porta_exec_query(exec).on_device || ranks->nranks > PORTA_REDUCE_END_RANKS)
    return porta_error(PORTA_ERROR_UNSUPPORTED, "app_sum_settle", "sum",
                       "a settle kernel sums over %d ranks only on a GPU back end (here %s, at "
                       "most %d ranks)",
                       ranks->nranks, porta_backend_name(exec.backend), PORTA_REDUCE_END_RANKS);
  *out = *ranks;
  out->nsteps = 0; /* its sum alone */
  return PORTA_SUCCESS;
}

int app_sum_create(app_sum **out, MPI_Comm comm, int exact, app_timers *timers) {
  app_sum *s = (app_sum *)calloc(1, sizeof *s);
  if (s) s->rerun = (app_sum_rerun *)calloc(APP_SUM_MAX_SLOTS, sizeof *s->rerun);
  if (!s || !s->rerun) {
    free(s);
    return porta_error(PORTA_ERROR_OUT_OF_MEMORY, "app_sum_create", "sum", "calloc failed");
  }
  s->comm = comm;
  s->exact = exact != 0;
  s->timers = timers;
  s->t_reduce = timers ? app_timer_id(timers, "MPI reductions") : -1;
  *out = s;
  return PORTA_SUCCESS;
}

void app_sum_destroy(app_sum *s) {
  if (s) free(s->rerun);
  free(s);
}

/** -1: not read yet from the environment (APP_SUMS_WIRE). */
static int wire_limbs = -1;

void app_sum_gather_by_limbs(int limbs) { wire_limbs = limbs != 0; }

int app_sum_gathers_by_limbs(void) { return env_switch(&wire_limbs, "APP_SUMS_WIRE", "limbs"); }

int app_sum_rank(const app_sum *s) {
  int rank = 0;
  if (s && s->comm != MPI_COMM_NULL) MPI_Comm_rank(s->comm, &rank);
  return rank;
}

int app_sum_ranks(const app_sum *s) {
  int size = 1;
  if (s && s->comm != MPI_COMM_NULL) MPI_Comm_size(s->comm, &size);
  return size;
}

int app_sum_is_exact(const app_sum *s) { return s->exact; }
int64_t app_sum_count(const app_sum *s) { return s->count; }

porta_ddsum_f64_value *app_sum_claim_(app_sum *s, const char *label, int slot,
                                      app_sum_rerun **rerun) {
  if (slot == 0) s->pending = 0;
  if (slot != s->pending || slot >= APP_SUM_MAX_SLOTS) {
    porta_error(PORTA_ERROR_INVALID_ARGUMENT, "APP_SUM_REDUCE", label,
                "exact accumulator slot %d out of order (%d pending, at most %d)", slot, s->pending,
                APP_SUM_MAX_SLOTS);
    return NULL;
  }
  s->second[slot] = 0;
  *rerun = &s->rerun[slot];
  return &s->dd[slot];
}

/** Slot `slot`'s second pass (once): its terms again, exactly, into acc[slot]. */
static int second_pass(app_sum *s, int slot) {
  if (s->second[slot]) return PORTA_SUCCESS;
  const app_sum_rerun *r = &s->rerun[slot];
  porta_xsum_f64_init(&s->acc[slot]);
  PORTA_CHECK(r->run(r, r->exec, &s->acc[slot], 0));
  s->second[slot] = 1;
  return PORTA_SUCCESS;
}

int app_sum_claimed_(app_sum *s, int slot, double *local) {
  s->pending = slot + 1;
  double r = 0.0;
  if (app_sum_second_pass_forced() || !porta_ddsum_f64_round(&s->dd[slot], &r)) {
    const int rc = second_pass(s, slot);
    if (rc != PORTA_SUCCESS) {
      s->pending = 0;
      return rc;
    }
    r = porta_xsum_f64_round(&s->acc[slot]);
  }
  s->local[slot] = *local = r;
  return PORTA_SUCCESS;
}

/** v's limbs (normalised) and its status bits as counts (20 bits a flag) into W words. */
static void put_value(porta_xsum_f64_value v, int64_t *w) {
  porta_xsum_f64_normalize(&v);
  memcpy(w, v.limb, sizeof v.limb);
  w[PORTA_XSUM_LIMBS] = (int64_t)((v.flags & PORTA_XSUM_INEXACT) != 0) +
                        ((int64_t)((v.flags & PORTA_XSUM_OVERFLOW) != 0) << 20) +
                        ((int64_t)((v.flags & PORTA_XSUM_NONFINITE) != 0) << 40);
}

/** The sum of `nranks` values put_value wrote, added word by word. */
static porta_xsum_f64_value get_value(const int64_t *w, int nranks) {
  porta_xsum_f64_value v;
  porta_xsum_f64_init(&v); /* an empty expansion: round reads it */
  memcpy(v.limb, w, sizeof v.limb);
  const int64_t f = w[PORTA_XSUM_LIMBS];
  v.flags = ((f & 0xFFFFF) ? PORTA_XSUM_INEXACT : 0) |
            (((f >> 20) & 0xFFFFF) ? PORTA_XSUM_OVERFLOW : 0) |
            ((f >> 40) ? PORTA_XSUM_NONFINITE : 0);
  v.count = nranks; /* each limb holds at most nranks normalised digits */
  return v;
}

static int mpi_sum(app_sum *s, int64_t *buf, int count) {
  const int rc = MPI_Allreduce(MPI_IN_PLACE, buf, count, MPI_INT64_T, MPI_SUM, s->comm);
  if (rc != MPI_SUCCESS)
    return porta_error(PORTA_ERROR_BACKEND, "app_sum_allreduce", "sum",
                       "MPI reduction of %d exact words failed (%d)", count, rc);
  return PORTA_SUCCESS;
}

/** Exact mode over the ranks. First the slots' first passes: each rank's hi + lo and its bound
 *  as normalised limbs (a slot whose second pass ran: its exact sum, bound 0), added by one
 *  MPI_SUM on MPI_INT64_T (exact, so MPI's order does not matter; every rank gets the same
 *  words, so all decide alike). Where the summed bound decides the rounding, that is the sum;
 *  the other slots take their second pass on every rank and a second MPI_SUM of their limbs. */
static int allreduce_exact(app_sum *s, double *values, int n) {
  enum { W = PORTA_XSUM_LIMBS + 1 };
  int64_t buf[APP_SUM_MAX_SLOTS * 2 * W];
  if (s->pending != n || n < 1 || n > APP_SUM_MAX_SLOTS) {
    int pending = s->pending;
    s->pending = 0;
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "app_sum_allreduce", "sum",
                       "reproducible mode: %d values to sum but %d exact accumulators pending", n,
                       pending);
  }
  for (int i = 0; i < n; ++i)
    if (memcmp(&s->local[i], &values[i], sizeof values[i]) != 0) { /* a stale sum: refuse */
      s->pending = 0;
      return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "app_sum_allreduce", "sum",
                         "reproducible mode: value %d (%.17g) is not the pending exact "
                         "accumulator's (%.17g): its kernel did not use the exact sum",
                         i, values[i], s->local[i]);
    }
  s->pending = 0;
  if (s->comm == MPI_COMM_NULL) return PORTA_SUCCESS; /* the local sums are the sums */
  int nranks = 1;
  MPI_Comm_size(s->comm, &nranks);
  for (int i = 0; i < n; ++i) {
    porta_xsum_f64_value v, b;
    porta_ddsum_f64_to_limbs(&s->dd[i], &v, &b);
    if (s->second[i]) { /* its exact sum, bound 0 */
      v = s->acc[i];
      porta_xsum_f64_init(&b);
    }
    put_value(v, &buf[2 * W * i]);
    put_value(b, &buf[2 * W * i + W]);
  }
  PORTA_CHECK(mpi_sum(s, buf, 2 * W * n));
  const int force = app_sum_second_pass_forced();
  int again[APP_SUM_MAX_SLOTS], nagain = 0;
  for (int i = 0; i < n; ++i) {
    const porta_xsum_f64_value v = get_value(&buf[2 * W * i], nranks);
    const porta_xsum_f64_value b = get_value(&buf[2 * W * i + W], nranks);
    if (force || !porta_xsum_f64_round_within(&v, &b, &values[i])) again[nagain++] = i;
  }
  if (nagain == 0) return PORTA_SUCCESS;
  for (int k = 0; k < nagain; ++k) { /* the same slots on every rank */
    PORTA_CHECK(second_pass(s, again[k]));
    put_value(s->acc[again[k]], &buf[W * k]);
  }
  PORTA_CHECK(mpi_sum(s, buf, W * nagain));
  for (int k = 0; k < nagain; ++k) {
    const porta_xsum_f64_value v = get_value(&buf[W * k], nranks);
    values[again[k]] = porta_xsum_f64_round(&v);
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
