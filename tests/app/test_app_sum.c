/** @file test_app_sum.c
 *  apps/common's exact global sums (app_sum.h, --reproducible): terms spread over the ranks,
 *  reduced by an APP_SUM_KERNEL into two slots and merged by app_sum_allreduce, give the
 *  correctly rounded exact sum of all the terms on every rank and rank count: the bits of one
 *  porta_xsum_f64 over every term; so does the device loop's way (accumulators reduced into
 *  memory, packed, their wires summed as doubles, unpacked), and a solver's scalars
 *  (app_scalars.h) summed from the host, plain and exact, the ranks' first passes gathered as
 *  words and as limbs. Each exact way runs with the first
 *  pass deciding where its bound does and with the second pass forced on every sum; a third
 *  sum is an exact tie (1 + 2^-53 over the ranks), which the first pass never decides, so its
 *  second pass runs either way. The stack is filled with non-zero
 * bytes before each merge, so a merged accumulator that reads anything it did not set shows up as a
 * wrong sum.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "app_common.h"
#include "app_scalars.h"
#include "app_sum.h"
#include "app_sum_comm.h"
#include "porta/exchange_device.h"

#include "app_expect.h"

#define TS_N 100003

typedef struct ts_args {
  int64_t offset; /**< this rank's first global index */
  int square;     /**< 1: the terms' squares; 2: 1 and 2^-53 at the ends, zeros between */
} ts_args;

/** Term i of the global sum: magnitudes from 2^-30 to 2^10 of both signs, cancelling (a sum
 *  whose last bits see any stray addend of the dirty stack's size, about 5e-4). */
PORTA_INLINE_FUNCTION double ts_term(int64_t i) {
  const double m = ldexp(1.0 + (double)((i * 2654435761u) % 1000003u) / 1000003.0,
                         (int)((i * 40503u) % 40u) - 30);
  return (i % 3 == 0 ? -1.0 : 1.0) * m;
}

APP_SUM_KERNEL(ts_sum, ts_args, a, i) {
  const int64_t g = a->offset + i;
  if (a->square == 2) return g == 0 ? 1.0 : (g == TS_N - 1 ? ldexp(1.0, -53) : 0.0);
  const double t = ts_term(g);
  return a->square ? t * t : t;
}

/** Fills this much of the stack below the caller with non-zero bytes. */
static __attribute__((noinline)) void ts_dirty_stack(void) {
  volatile unsigned char junk[16384];
  for (size_t k = 0; k < sizeof junk; ++k) junk[k] = 0x3f;
}

/** On GPUs (PORTA_BACKEND=cuda, a GPU a rank): a solver's scalars summed by a device
 *  communicator, one sum at a time (on the peer transport the settle kernel gathers the ranks'
 *  words and decides, or adds the limbs of its own second pass, itself) and three at a time
 *  (packed words, a queued sum and a conditional step), each deciding and forced, words and
 *  limbs: every way the exact sums' bits on every rank, and (PORTA_PROFILE=1) on 2 ranks or
 *  more the kernels that say which way ran. 77: no such communicator here. */
static int device_sums(const double *want) {
  const int rank = app_mpi_rank(), size = app_mpi_size();
  const porta_exec ex = porta_exec_default();
  porta_device_comm *dc = NULL;
  if (porta_device_comm_create(MPI_COMM_WORLD, ex, &dc) != PORTA_SUCCESS) {
    if (rank == 0) printf("skipped: %s\n", porta_last_error_message());
    return 77;
  }
  if (rank == 0) printf("device communicator: %s\n", porta_device_comm_transport(dc));
  app_sum *sum = NULL;
  APP_CHECK(app_sum_create(&sum, MPI_COMM_WORLD, 1, NULL));
  const int64_t lo = TS_N * rank / size, hi = TS_N * (rank + 1) / size;
  for (int way = 0; way < 8; ++way) { /* force x limbs x one at a time or three */
    const int force = way & 1, limbs = way >> 1 & 1, set = way >> 2 ? 3 : 1;
    app_sum_force_second_pass(force);
    app_sum_gather_by_limbs(limbs);
    app_scalars sc;
    APP_CHECK(app_scalars_create(&sc, "test scalars", ex, 5, 2, 1));
    for (int s = 0; s < 3; ++s) {
      ts_args a = {lo, s};
      EXPECT(APP_SUM_REDUCE_INTO(ts_sum, "ts_sum", ex, porta_range(0, hi - lo), &a,
                                 app_scalars_to(&sc, 1 + s)) == PORTA_SUCCESS,
             "rank %d: %s", rank, porta_last_error_message());
      if (set == 1)
        EXPECT(app_scalars_sum(&sc, ex, sum, dc, size, 1 + s, 1) == PORTA_SUCCESS, "%s",
               porta_last_error_message());
    }
    if (set == 3)
      EXPECT(app_scalars_sum(&sc, ex, sum, dc, size, 1, 3) == PORTA_SUCCESS, "%s",
             porta_last_error_message());
    APP_CHECK(app_scalars_read(&sc, ex));
    for (int s = 0; s < 3; ++s)
      EXPECT(memcmp(&sc.scal.data[1 + s], &want[s], sizeof want[s]) == 0,
             "device sums (%d at a time, %s, %s), rank %d of %d, slot %d: %.17g (%a), want %.17g "
             "(%a)",
             set, limbs ? "limbs" : "words", force ? "forced" : "deciding", rank, size, s,
             sc.scal.data[1 + s], sc.scal.data[1 + s], want[s], want[s]);
    app_scalars_release(&sc);
  }
  app_sum_force_second_pass(0);
  app_sum_gather_by_limbs(0);
  if (size > 1 && porta_profiling_table_enabled()) { /* which way ran (PORTA_PROFILE=1) */
    const int peer = !strcmp(porta_device_comm_transport(dc), "gpu-peer");
    int64_t settles = 0, packs = 0;
    porta_set_error_mode(PORTA_ERROR_MODE_RETURN, NULL, NULL); /* a label never run: 0 */
    (void)porta_profile_table_entry("app_sum_settle", &settles, NULL);
    (void)porta_profile_table_entry("app_sum_pack_words", &packs, NULL);
    /* peer: the 6 single sums by words settle by themselves, the 2 sets of 3 pack; NCCL: all 8
       by words pack */
    EXPECT(settles == (peer ? 6 : 0) && packs == (peer ? 2 : 8),
           "rank %d, %s: %lld settle kernels and %lld packs of words", rank,
           porta_device_comm_transport(dc), (long long)settles, (long long)packs);
  }
  app_sum_destroy(sum);
  porta_device_comm_destroy(dc);
  return fails != 0;
}

int main(int argc, char **argv) {
  app_mpi_init(&argc, &argv, "test_app_sum");
  APP_CHECK(porta_initialize(&argc, &argv));
  const int rank = app_mpi_rank(), size = app_mpi_size();
  /* the whole sum, one accumulator, in index order */
  porta_xsum_f64_value all[2];
  for (int s = 0; s < 2; ++s) {
    porta_xsum_f64_init(&all[s]);
    for (int64_t i = 0; i < TS_N; ++i) {
      const double t = ts_term(i);
      porta_xsum_f64_add(&all[s], s ? t * t : t);
    }
  }
  const double want[3] = {porta_xsum_f64_round(&all[0]), porta_xsum_f64_round(&all[1]), 1.0};
  if (porta_exec_query(porta_exec_default()).on_device) { /* the rest reads host memory */
    const int rc = device_sums(want);
    porta_finalize();
    app_mpi_finalize();
    return rc;
  }
  app_sum *sum = NULL;
  APP_CHECK(app_sum_create(&sum, MPI_COMM_WORLD, 1, NULL));
  for (int force = 0; force < 2; ++force) {
    app_sum_force_second_pass(force);
    for (int round = 0; round < 3; ++round) {
      const int64_t lo = TS_N * rank / size, hi = TS_N * (rank + 1) / size;
      double got[3];
      for (int s = 0; s < 3; ++s) {
        ts_args a = {lo, s};
        EXPECT(APP_SUM_REDUCE(ts_sum, sum, "ts_sum", porta_exec_default(), porta_range(0, hi - lo),
                              &a, s, &got[s]) == PORTA_SUCCESS,
               "rank %d: %s", rank, porta_last_error_message());
      }
      ts_dirty_stack();
      EXPECT(app_sum_allreduce(sum, got, 3) == PORTA_SUCCESS, "rank %d: %s", rank,
             porta_last_error_message());
      for (int s = 0; s < 3; ++s)
        EXPECT(memcmp(&got[s], &want[s], sizeof(double)) == 0,
               "rank %d of %d, slot %d (second pass %s): merged %.17g (%a), exact sum %.17g (%a)",
               rank, size, s, force ? "forced" : "where needed", got[s], got[s], want[s], want[s]);
    }
    /* the device loop's way (app_sum_finish_on's pieces, on this back end): the accumulators
       left in memory by APP_SUM_REDUCE_INTO, packed, their wires added over the ranks as doubles
       (as a device communicator does, in its own order), unpacked and rounded: the same bits; a
       rank's Inf in a third slot travels as its flag and rounds to NaN */
    {
      const porta_exec ex = porta_exec_default();
      const int64_t lo = TS_N * rank / size, hi = TS_N * (rank + 1) / size;
      porta_xsum_f64_value acc[3];
      app_sum_rerun rerun;
      double wire[3 * APP_SUM_WIRE], got[3], local[2];
      for (int s = 0; s < 2; ++s) { /* a first pass, then its record's second pass */
        ts_args a = {lo, s};
        app_sum_to to = {&got[s], &acc[s], &rerun};
        EXPECT(APP_SUM_REDUCE_INTO(ts_sum, "ts_sum", ex, porta_range(0, hi - lo), &a, to) ==
                   PORTA_SUCCESS,
               "rank %d: %s", rank, porta_last_error_message());
        a.square = 7; /* the record holds its own copy of the arguments */
        porta_xsum_f64_init(&acc[s]);
        EXPECT(rerun.run(&rerun, ex, &acc[s], 1) == PORTA_SUCCESS, "rank %d: %s", rank,
               porta_last_error_message());
      }
      porta_xsum_f64_init(&acc[2]);
      porta_xsum_f64_add(&acc[2], rank == size - 1 ? INFINITY : 1.0);
      APP_CHECK(porta_exec_fence(ex, "test_app_sum"));
      /* one rank's sums rounded where they are: this rank's exact partial sums */
      EXPECT(app_sum_finish_on(ex, NULL, 1, acc, wire, local, 2) == PORTA_SUCCESS, "%s",
             porta_last_error_message());
      APP_CHECK(porta_exec_fence(ex, "test_app_sum"));
      for (int s = 0; s < 2; ++s) {
        const double mine = porta_xsum_f64_round(&acc[s]);
        EXPECT(memcmp(&local[s], &mine, sizeof mine) == 0, "rank %d slot %d: rounded %.17g, %.17g",
               rank, s, local[s], mine);
      }
      EXPECT(app_sum_pack_on(ex, acc, wire, 3) == PORTA_SUCCESS, "%s", porta_last_error_message());
      APP_CHECK(porta_exec_fence(ex, "test_app_sum"));
      APP_CHECK(MPI_Allreduce(MPI_IN_PLACE, wire, 3 * APP_SUM_WIRE, MPI_DOUBLE, MPI_SUM,
                              MPI_COMM_WORLD) == MPI_SUCCESS
                    ? PORTA_SUCCESS
                    : PORTA_ERROR_BACKEND);
      ts_dirty_stack();
      EXPECT(app_sum_unpack_on(ex, wire, got, 3, size) == PORTA_SUCCESS, "%s",
             porta_last_error_message());
      APP_CHECK(porta_exec_fence(ex, "test_app_sum"));
      for (int s = 0; s < 2; ++s)
        EXPECT(memcmp(&got[s], &want[s], sizeof(double)) == 0,
               "device way, rank %d of %d, slot %d: %.17g (%a), exact sum %.17g (%a)", rank, size,
               s, got[s], got[s], want[s], want[s]);
      EXPECT(isnan(got[2]), "device way, rank %d: a rank's Inf summed to %g, not NaN", rank,
             got[2]);
    }
    /* a solver's scalars (app_scalars.h), summed from the host over the ranks: exact, the exact
       sums' bits; plain, app_sum_allreduce's of the same local sums; the integers and the other
       doubles as the host side wrote them */
    for (int exact = 0; exact < 3; ++exact) { /* plain, exact by words, exact by limbs */
      app_sum_force_second_pass(force);
      app_sum_gather_by_limbs(exact == 2);
      const porta_exec ex = porta_exec_default();
      const int64_t lo = TS_N * rank / size, hi = TS_N * (rank + 1) / size;
      app_sum *plain = NULL;
      APP_CHECK(app_sum_create(&plain, MPI_COMM_WORLD, 0, NULL));
      app_scalars sc;
      APP_CHECK(app_scalars_create(&sc, "test scalars", ex, 5, 2, exact));
      sc.scal.data[0] = 7.5;
      sc.ints.data[1] = 42 + rank;
      APP_CHECK(app_scalars_write(&sc, ex));
      double local[3];
      for (int s = 0; s < 3; ++s) {
        ts_args a = {lo, s};
        EXPECT(APP_SUM_REDUCE_INTO(ts_sum, "ts_sum", ex, porta_range(0, hi - lo), &a,
                                   app_scalars_to(&sc, 1 + s)) == PORTA_SUCCESS,
               "rank %d: %s", rank, porta_last_error_message());
        if (!exact) {
          EXPECT(APP_SUM_REDUCE(ts_sum, plain, "ts_sum", ex, porta_range(0, hi - lo), &a, s,
                                &local[s]) == PORTA_SUCCESS,
                 "rank %d: %s", rank, porta_last_error_message());
        }
      }
      if (!exact) APP_CHECK(app_sum_allreduce(plain, local, 3));
      ts_dirty_stack();
      EXPECT(app_scalars_sum(&sc, ex, exact ? sum : plain, NULL, size, 1, 3) == PORTA_SUCCESS, "%s",
             porta_last_error_message());
      APP_CHECK(app_scalars_read(&sc, ex));
      for (int s = 0; s < 3; ++s) {
        const double w = exact ? want[s] : local[s];
        EXPECT(memcmp(&sc.scal.data[1 + s], &w, sizeof w) == 0,
               "scalars (%s), rank %d of %d, slot %d: %.17g (%a), want %.17g (%a)",
               exact == 2 ? "exact, limbs"
               : exact    ? "exact"
                          : "plain",
               rank, size, s, sc.scal.data[1 + s], sc.scal.data[1 + s], w, w);
      }
      EXPECT(sc.scal.data[0] == 7.5 && sc.scal.data[4] == 0.0 && sc.ints.data[0] == 0 &&
                 sc.ints.data[1] == 42 + rank,
             "scalars (%s), rank %d: the others changed: %g %g %lld %lld",
             exact ? "exact" : "plain", rank, sc.scal.data[0], sc.scal.data[4],
             (long long)sc.ints.data[0], (long long)sc.ints.data[1]);
      app_scalars_release(&sc);
      app_sum_destroy(plain);
    }
  }
  app_sum_force_second_pass(0);
  app_sum_gather_by_limbs(0);
  { /* a settle kernel over several ranks on a host back end: refused, naming the back end */
    porta_set_error_mode(PORTA_ERROR_MODE_RETURN, NULL, NULL);
    ts_args a = {0, 0};
    porta_xsum_f64_value acc;
    app_sum_rerun rerun;
    double v = 2.0;
    app_sum_to to = {&v, &acc, &rerun};
    APP_CHECK(
        APP_SUM_REDUCE_INTO(ts_sum, "ts_sum", porta_exec_default(), porta_range(0, 10), &a, to));
    porta_reduce_end ranks;
    memset(&ranks, 0, sizeof ranks);
    ranks.nranks = 2;
    const int rc = rerun.settle(&rerun, porta_exec_default(), &acc, &v, 0, &ranks);
    EXPECT(rc == PORTA_ERROR_UNSUPPORTED && strstr(porta_last_error_message(), "GPU") && v == 2.0,
           "rank %d: a settle kernel over 2 ranks on the host gave %d (%s), value %g", rank, rc,
           porta_last_error_message(), v);
    ranks.nranks = 1; /* one rank: this rank's exact sum */
    EXPECT(rerun.settle(&rerun, porta_exec_default(), &acc, &v, 0, &ranks) == PORTA_SUCCESS,
           "rank %d: %s", rank, porta_last_error_message());
    porta_xsum_f64_value ten;
    porta_xsum_f64_init(&ten);
    for (int64_t i = 0; i < 10; ++i) porta_xsum_f64_add(&ten, ts_term(i));
    const double w = porta_xsum_f64_round(&ten);
    EXPECT(memcmp(&v, &w, sizeof w) == 0, "rank %d: settled %.17g, exact %.17g", rank, v, w);
  }
  { /* a range the launch refuses is refused by the host's first pass too, not summed as empty */
    porta_set_error_mode(PORTA_ERROR_MODE_RETURN, NULL, NULL);
    ts_args a = {0, 0};
    double v = 1.0;
    const int rc =
        APP_SUM_REDUCE(ts_sum, sum, "ts_sum", porta_exec_default(), porta_range(5, 2), &a, 0, &v);
    EXPECT(rc == PORTA_ERROR_INVALID_ARGUMENT && v == 1.0,
           "rank %d: an exact sum over the range [5, 2) gave %d (%s), value %g", rank, rc,
           porta_last_error_message(), v);
  }
  app_sum_destroy(sum);
  porta_finalize();
  app_mpi_finalize();
  return fails != 0;
}
