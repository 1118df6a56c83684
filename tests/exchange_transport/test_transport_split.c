/** @file test_transport_split.c
 *  exchange.transport_split: a transport added as a file and a line (split_transport.c, in the
 *  library variant porta_exchange_split) serves plans like the others. With
 *  PORTA_EXCHANGE_TRANSPORT=test-split a ring plan (each rank sends 1 + 3 r values, an odd count
 *  on every other rank, to the next one; with one rank to itself) reports the transport
 *  "test-split", and each of its exchanges, alone, together with a second plan, and by
 *  porta_exchange_run_on, delivers the previous rank's values with every other value kept; its
 *  statistics count one message an exchange. Without the variable the same plan takes "host". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "porta/exchange.h"

static int failures = 0, me = 0, nranks = 1;

#define EXPECT(cond, ...)                                                                          \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "rank %d: %s:%d: ", me, __FILE__, __LINE__);                                 \
      fprintf(stderr, __VA_ARGS__);                                                                \
      fputc('\n', stderr);                                                                         \
      ++failures;                                                                                  \
    }                                                                                              \
  } while (0)

#define CHECK(call)                                                                                \
  do {                                                                                             \
    const int rc_ = (call);                                                                        \
    if (rc_ != PORTA_SUCCESS) {                                                                    \
      fprintf(stderr, "rank %d: %s failed: %s\n", me, #call, porta_last_error_message());          \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                                \
    }                                                                                              \
  } while (0)

#define LEN 64
#define FIRST_RECV 32

static int64_t count_of(int r) { return 1 + 3 * r; }

/** A ring plan: rank r's count_of(r) values from offset 2 i + odd to the next rank, arriving at
 *  FIRST_RECV + odd + i there (tag `tag`). */
static porta_exchange *ring(int odd, int tag) {
  const int to = (me + 1) % nranks, from = (me + nranks - 1) % nranks;
  const int64_t ns = count_of(me), nr = count_of(from);
  int64_t sidx[16], ridx[16];
  for (int64_t i = 0; i < ns; ++i) sidx[i] = 2 * i + odd;
  for (int64_t i = 0; i < nr; ++i) ridx[i] = FIRST_RECV + odd + i;
  int ranks[2] = {to, from};
  int64_t sc[2] = {ns, 0}, rc[2] = {0, nr};
  if (to == from) rc[0] = nr;
  porta_exchange_lists l = {to == from ? 1 : 2, ranks, sc, sidx, rc, ridx};
  porta_exchange *x = NULL;
  CHECK(porta_exchange_create(&x, "ring_split", MPI_COMM_WORLD, &l, sizeof(double), 1,
                              porta_exec_default(), tag));
  return x;
}

/** Exchange `way` (0 alone, 1 two plans together, 2 run_on) of round `it`, checked. */
static void round_of(porta_exchange *x, porta_exchange *y, int way, int it) {
  porta_view_f64 f;
  CHECK(porta_view_f64_create1(&f, "split_field", LEN));
  porta_mirror_f64 h;
  CHECK(porta_view_f64_create_mirror_view(&h, &f));
  for (int64_t i = 0; i < LEN; ++i) h.data[i] = i < FIRST_RECV ? 1e4 * me + 100 * it + i : -1.0;
  CHECK(porta_deep_copy(f, h));
  const porta_view v = PORTA_VIEW_ERASE(f);
  porta_exchange *both[2] = {x, y};
  if (way == 0) CHECK(porta_exchange_run(x, &v, 1));
  if (way == 1) CHECK(porta_exchange_run_together(both, 2, &v, 1));
  if (way == 2) CHECK(porta_exchange_run_on(x, porta_exec_default(), &v, 1));
  CHECK(porta_deep_copy(h, f));
  const int from = (me + nranks - 1) % nranks;
  const int64_t nr = count_of(from);
  int64_t wrong = 0;
  for (int64_t i = FIRST_RECV; i < LEN; ++i) {
    const int64_t q = i - FIRST_RECV; /* x fills [0, nr), y [1, nr + 1) (y after x) */
    double want = -1.0;
    if (way == 1 && q >= 1 && q <= nr)
      want = 1e4 * from + 100 * it + 2 * (q - 1) + 1;
    else if (q < nr)
      want = 1e4 * from + 100 * it + 2 * q;
    wrong += h.data[i] != want;
  }
  for (int64_t i = 0; i < FIRST_RECV; ++i) wrong += h.data[i] != 1e4 * me + 100 * it + i;
  EXPECT(wrong == 0, "exchange %d (way %d): %lld values wrong", it, way, (long long)wrong);
  porta_mirror_f64_release(&h);
  porta_view_f64_release(&f);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  CHECK(porta_initialize(&argc, &argv));
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  setenv("PORTA_EXCHANGE_TRANSPORT", "test-split", 1);
  porta_exchange *x = ring(0, 11), *y = ring(1, 12);
  EXPECT(!strcmp(porta_exchange_transport(x), "test-split"), "transport %s, want test-split",
         porta_exchange_transport(x));
  for (int it = 0; it < 6; ++it) round_of(x, y, it % 3, it);
  int64_t msgs = 0, bytes = 0;
  porta_exchange_stats(x, &msgs, &bytes);
  EXPECT(msgs == 6 && bytes == 6 * count_of(me) * (int64_t)sizeof(double),
         "%lld messages of %lld bytes in all, want 6 of %lld", (long long)msgs, (long long)bytes,
         (long long)(6 * count_of(me) * (int64_t)sizeof(double)));
  porta_exchange_destroy(x);
  porta_exchange_destroy(y);
  unsetenv("PORTA_EXCHANGE_TRANSPORT");
  x = ring(0, 13);
  EXPECT(!strcmp(porta_exchange_transport(x), "host"), "without the variable: %s, want host",
         porta_exchange_transport(x));
  round_of(x, NULL, 0, 7);
  porta_exchange_destroy(x);
  int bad = 0;
  MPI_Allreduce(&failures, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0) printf("transport_split: %s on %d ranks\n", bad ? "FAILED" : "passed", nranks);
  porta_finalize();
  MPI_Finalize();
  return bad ? 1 : 0;
}
