/** Channels (porta/exchange_channel.h) on any number of ranks. Every rank makes the same sequence
 * of calls, each a pattern every rank derives alike:
 *  - a ring one way, then the other (on 2 ranks `to` and `from` are one rank);
 *  - one packed message sent to both neighbours, as miniMD's migration does;
 *  - a message to this rank itself;
 *  sizes change from call to call, with empty messages and jumps that make the receivers'
 *  buffers grow (and over CUDA IPC be mapped again), after a reserve that makes room for some.
 *  Each received message is copied by a kernel queued right after the call and checked only
 *  at the end, so a sender overwriting a buffer still being read would show. The
 * messages are packed by a kernel; each received value must be the one its sender wrote (rank, call
 * and index in the value), and the count the sender's. Then bad sizes are refused naming the
 * channel. On a GPU the test checks the transport TEST_EXCHANGE_TRANSPORT names. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "porta/exchange_channel.h"
#include "app_expect_mpi.h"
#include "app_mpi.h"

static int me = 0, nranks = 1;

/** The size of the message `sender` sends at call `call`: varied, empty at times, and much
 *  larger from call 12 on (the receivers' buffers grow). */
static int64_t size_of(int sender, int call) {
  if ((sender + call) % 5 == 3) return 0;
  const int64_t base = 1 + (37 * call + 11 * sender) % 97;
  return call >= 12 ? 40000 + 1000 * call + base : base;
}

static double value(int sender, int call, int64_t k) {
  return (double)sender * 1e9 + (double)call * 1e6 + (double)k + 0.5;
}

typedef struct {
  porta_view_f64 buf;
  int sender, call;
} fill_args;

PORTA_FOR(channel_fill, fill_args, a, k) {
  PORTA_AT1(a->buf, k) = (double)a->sender * 1e9 + (double)a->call * 1e6 + (double)k + 0.5;
}

/** Pack this rank's message of `call` into the channel's send buffer; its size. */
static int64_t pack(porta_channel *ch, int call) {
  const int64_t n = size_of(me, call);
  fill_args a;
  APP_CHECK(porta_channel_send_buffer(ch, n, &a.buf));
  a.sender = me;
  a.call = call;
  if (n > 0)
    APP_CHECK(porta_parallel_for("channel_fill", porta_exec_default(), porta_range(0, n),
                                 &channel_fill, &a));
  return n;
}

/** A received message, copied by a kernel queued before the next call (which must fence
 *  before the sender may overwrite the buffer), checked at the end. */
typedef struct {
  porta_view_f64 src, dst;
} copy_args;

PORTA_FOR(channel_copy, copy_args, a, k) { PORTA_AT1(a->dst, k) = PORTA_AT1(a->src, k); }

enum { MAX_KEPT = 64 };
static struct kept {
  porta_view_f64 copy;
  int64_t nr;
  int from, call;
  const char *what;
} kept[MAX_KEPT];
static int nkept = 0;

static void keep(porta_view_f64 recv, int64_t nr, int from, int call, const char *what) {
  struct kept *k = &kept[nkept++];
  APP_CHECK(porta_view_f64_create1(&k->copy, "kept", nr > 0 ? nr : 1));
  k->nr = nr;
  k->from = from;
  k->call = call;
  k->what = what;
  copy_args a = {recv, k->copy};
  if (nr > 0)
    APP_CHECK(porta_parallel_for("channel_copy", porta_exec_default(), porta_range(0, nr),
                                 &channel_copy, &a));
}

/** The message from `from` of `call`, checked on the host. */
static void check(porta_view_f64 recv, int64_t nr, int from, int call, const char *what) {
  const int64_t want = size_of(from, call);
  EXPECT(nr == want, "%s, call %d: %lld doubles from rank %d, want %lld", what, call, (long long)nr,
         from, (long long)want);
  if (nr != want || nr == 0) return;
  double *h = (double *)malloc((size_t)nr * sizeof(double));
  porta_view_f64 hv;
  porta_view_options opt = {PORTA_HOST_SPACE, PORTA_LAYOUT_DEFAULT, PORTA_VIEW_UNMANAGED, NULL};
  APP_CHECK(porta_view_f64_wrap(&hv, h, "check", 1, &nr, &opt));
  APP_CHECK(porta_deep_copy(hv, recv));
  int64_t bad = 0, first = -1;
  for (int64_t k = 0; k < nr; ++k)
    if (h[k] != value(from, call, k)) {
      if (first < 0) first = k;
      ++bad;
    }
  EXPECT(bad == 0, "%s, call %d: %lld wrong values from rank %d (first at %lld: %g, want %g)", what,
         call, (long long)bad, from, (long long)first, first >= 0 ? h[first] : 0.0,
         first >= 0 ? value(from, call, first) : 0.0);
  porta_view_f64_release(&hv);
  free(h);
}

static void sendrecv_checked(porta_channel *ch, int64_t ns, int to, int from, int call,
                             const char *what) {
  porta_view_f64 recv;
  int64_t nr = -1;
  APP_CHECK(porta_channel_sendrecv(ch, ns, to, from, &recv, &nr));
  if (nkept < MAX_KEPT)
    keep(recv, nr, from, call, what);
  else
    check(recv, nr, from, call, what);
}

int main(int argc, char **argv) {
  app_mpi_init(&argc, &argv, "test_exchange_channel");
  APP_CHECK(porta_initialize(&argc, &argv));
  porta_set_error_mode(PORTA_ERROR_MODE_RETURN, NULL, NULL);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  porta_channel *ch;
  APP_CHECK(porta_channel_create(&ch, "test_channel", MPI_COMM_WORLD, porta_exec_default(), 500));
  const int right = (me + 1) % nranks, left = (me + nranks - 1) % nranks;
  /* room for some of the later messages at once (the larger ones grow the buffers again) */
  APP_CHECK(porta_channel_reserve(ch, 50000, right, left));
  int call = 0;
  for (int round = 0; round < 6; ++round) {
    int64_t n = pack(ch, call);
    sendrecv_checked(ch, n, right, left, call, "ring right");
    ++call;
    n = pack(ch, call);
    sendrecv_checked(ch, n, left, right, call, "ring left");
    ++call;
    /* one message to both sides (the send buffer keeps it) */
    n = pack(ch, call);
    sendrecv_checked(ch, n, right, left, call, "both sides, right");
    sendrecv_checked(ch, n, left, right, call, "both sides, left");
    ++call;
  }
  for (int round = 0; round < 3; ++round, ++call) {
    const int64_t n = pack(ch, call);
    sendrecv_checked(ch, n, me, me, call, "itself");
  }

  for (int k = 0; k < nkept; ++k) {
    check(kept[k].copy, kept[k].nr, kept[k].from, kept[k].call, kept[k].what);
    porta_view_f64_release(&kept[k].copy);
  }

  char used[128];
  porta_channel_transports(ch, used, sizeof used);
  const char *want = getenv("TEST_EXCHANGE_TRANSPORT");
  if (want && *want && nranks > 1)
    EXPECT(strstr(used, want) != NULL, "rank %d: messages went by '%s', want '%s'", me, used, want);
  if (me == 0) printf("transports: %s\n", used);

  /* refusals: a negative size, more than the send buffer holds (every rank fails before
     any message, so nothing is left waiting) */
  porta_view_f64 recv, buf;
  int64_t nr = 0;
  int rc = porta_channel_sendrecv(ch, -1, right, left, &recv, &nr);
  expect_failed_everywhere(rc, "negative size");
  expect_message("test_channel", "negative size");
  APP_CHECK(porta_channel_send_buffer(ch, 10, &buf));
  rc = porta_channel_sendrecv(ch, porta_extent(buf, 0) + 1, right, left, &recv, &nr);
  expect_failed_everywhere(rc, "size beyond the send buffer");
  expect_message("send buffer holds", "size beyond the send buffer");
  rc = porta_channel_reserve(ch, -3, right, left);
  expect_failed_everywhere(rc, "negative reserve");
  expect_message("negative size", "negative reserve");
  rc = porta_channel_send_buffer(ch, -5, &buf);
  expect_failed_everywhere(rc, "negative buffer");
  expect_message("negative size", "negative buffer");

  porta_channel_destroy(ch);
  int total = 0;
  MPI_Allreduce(&fails, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0)
    printf("channels on %d ranks (%d calls, %s back end): %s (%d failures)\n", nranks, call,
           porta_backend_name(porta_exec_default().backend), total ? "FAILED" : "PASSED", total);
  app_mpi_finalize();
  return total ? 1 : 0;
}
