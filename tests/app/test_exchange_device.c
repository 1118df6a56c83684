/** Sums and exchanges queued on a GPU (porta/exchange_device.h). Everywhere: a device
 *  communicator is refused alike on every rank with the reason (no NCCL in the build, not a GPU,
 *  ranks sharing a GPU), and the queued calls refuse what they cannot do. With GPUs of their
 *  own (NCCL): a recorded loop of PASSES passes whose body fills two 2D fields with values of
 *  the pass, queues their depth-1 halo exchange and the sums of two doubles, and checks on the
 *  device every ghost cell against the owner's value and the sums against the exact totals;
 *  the loop runs twice (a replay), and a queued exchange outside a loop gives the ghost values
 *  of the host exchange (porta_halo2d_exchange). The transport is the one PORTA_DEVICE_COMM
 *  asks for ("nccl", "peer": porta_device_comm_transport says which served), and a peer sum
 *  adds in its documented order, bit for bit. A ring plan whose lists change between queued
 *  exchanges (porta_exchange_update, as a simulation's swaps after re-neighbouring: fewer,
 *  none, then more values than its buffers held) stays prepared and moves each round's values.
 *  On the peer transport an unknown or a mixed PORTA_PEER_EXCHANGE is refused on every rank. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_common.h"

#define PASSES 25
#define H 1

static int failures = 0;

#define EXPECT(cond, ...)                                                                          \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "rank %d: %s:%d: ", rank, __FILE__, __LINE__);                               \
      fprintf(stderr, __VA_ARGS__);                                                                \
      fputc('\n', stderr);                                                                         \
      ++failures;                                                                                  \
    }                                                                                              \
  } while (0)

static int rank = 0;

/** What the body's kernels read and write. st: [0] the pass, [1] errors found. */
typedef struct {
  porta_view_f64 f, g, sums;
  porta_view_i64 st;
  porta_loop_handle loop;
  int64_t ox, oy, nx, ny, gx, gy;
  int rank, nranks;
} body_args;

PORTA_INLINE_FUNCTION double value(int64_t pass, int64_t x, int64_t y) {
  return 1.0e6 * (double)pass + 1000.0 * (double)x + (double)y;
}

/** One thread: the next pass, and the values this rank adds to the sums. */
PORTA_FOR(begin_k, body_args, a, i) {
  (void)i;
  const int64_t pass = ++PORTA_AT1(a->st, 0);
  PORTA_AT1(a->sums, 0) = (double)(a->rank + 1);
  PORTA_AT1(a->sums, 1) = 0.5 * (double)pass * (double)(a->rank + 1);
}

/** The owned cells (fields are (y, x) with one ghost layer); the ghosts get -1. */
PORTA_MDFOR2(fill_k, body_args, a, y, x) {
  const int64_t pass = PORTA_AT1(a->st, 0);
  const int own = y >= H && y < a->ny + H && x >= H && x < a->nx + H;
  const double v = own ? value(pass, a->ox + x - H, a->oy + y - H) : -1.0;
  PORTA_AT2(a->f, y, x) = v;
  PORTA_AT2(a->g, y, x) = -v;
}

/** Every ghost cell inside the domain holds its owner's value; one thread checks the sums and
 *  decides whether another pass runs. */
PORTA_MDFOR2(check_k, body_args, a, y, x) {
  const int64_t pass = PORTA_AT1(a->st, 0);
  const int64_t gx = a->ox + x - H, gy = a->oy + y - H;
  const int inside = gx >= 0 && gx < a->gx && gy >= 0 && gy < a->gy;
  const double want = inside ? value(pass, gx, gy) : -1.0;
  if (PORTA_AT2(a->f, y, x) != want || PORTA_AT2(a->g, y, x) != -want)
    porta_atomic_fetch_add_i64(&PORTA_AT1(a->st, 1), 1);
  if (x == 0 && y == 0) {
    const double n = (double)a->nranks, total = n * (n + 1.0) / 2.0;
    if (PORTA_AT1(a->sums, 0) != total || PORTA_AT1(a->sums, 1) != 0.5 * (double)pass * total)
      porta_atomic_fetch_add_i64(&PORTA_AT1(a->st, 1), 1000000);
    porta_loop_decide(&a->loop, pass % PASSES != 0); /* PASSES a run */
  }
}

typedef struct {
  porta_halo2d *halo;
  porta_device_comm *dc;
  body_args a;
  porta_mdrange_policy all;
} body_ctx;

static int body(porta_exec exec, void *vctx) {
  body_ctx *c = (body_ctx *)vctx;
  c->a.loop = porta_loop_decider();
  const porta_view_f64 fields[2] = {c->a.f, c->a.g};
  PORTA_CHECK(PORTA_PARALLEL_FOR(begin_k, exec, porta_range(0, 1), &c->a));
  PORTA_CHECK(PORTA_PARALLEL_FOR(fill_k, exec, c->all, &c->a));
  PORTA_CHECK(porta_halo2d_queue(c->halo, c->dc, exec, fields, 2, 1));
  PORTA_CHECK(porta_device_comm_sum(c->dc, exec, c->a.sums.data, 2));
  return PORTA_PARALLEL_FOR(check_k, exec, c->all, &c->a);
}

/** The refusals every build and back end gives. */
static void refusals(porta_device_comm *dc) {
  EXPECT(porta_device_comm_create(MPI_COMM_WORLD, porta_exec_default(), NULL) ==
             PORTA_ERROR_INVALID_ARGUMENT,
         "NULL out accepted");
  EXPECT(porta_device_comm_sum(NULL, porta_exec_default(), NULL, 1) != PORTA_SUCCESS,
         "a sum without a communicator accepted");
  if (!dc) return;
  EXPECT(porta_device_comm_sum(dc, porta_exec_default(), NULL, 1) == PORTA_ERROR_INVALID_ARGUMENT,
         "a sum of 1 value at NULL accepted");
  EXPECT(strstr(porta_last_error_message(), "values at") != NULL, "message: %s",
         porta_last_error_message());
  EXPECT(porta_device_comm_sum(dc, porta_exec_backend(PORTA_BACKEND_SERIAL), NULL, 0) ==
             PORTA_SUCCESS,
         "an empty sum refused");
}

/** The GPU part: the recorded loop, twice, then a queued exchange against the host's. */
static void on_gpus(const porta_decomp *d, porta_device_comm *dc) {
  porta_halo2d halo;
  APP_CHECK(porta_halo2d_create(&halo, d, H, 1, 2, porta_exec_default()));
  body_ctx c;
  memset(&c, 0, sizeof c);
  c.halo = &halo;
  c.dc = dc;
  const int64_t ex = d->local[0] + 2 * H, ey = d->local[1] + 2 * H;
  APP_CHECK(porta_view_f64_create2(&c.a.f, "f", ey, ex));
  APP_CHECK(porta_view_f64_create2(&c.a.g, "g", ey, ex));
  APP_CHECK(porta_view_f64_create1(&c.a.sums, "sums", 2));
  APP_CHECK(porta_view_i64_create1(&c.a.st, "state", 2));
  c.a.ox = d->offset[0];
  c.a.oy = d->offset[1];
  c.a.nx = d->local[0];
  c.a.ny = d->local[1];
  c.a.gx = d->global[0];
  c.a.gy = d->global[1];
  c.a.rank = d->rank;
  c.a.nranks = d->nranks;
  c.all = porta_mdrange2(0, ey, 0, ex);

  /* a queued exchange of a plan not prepared for the communicator is refused */
  const porta_view_f64 fields[2] = {c.a.f, c.a.g};
  EXPECT(porta_halo2d_queue(&halo, dc, porta_exec_default(), fields, 2, 1) != PORTA_SUCCESS ||
             d->nranks == 1,
         "a queued exchange before porta_halo2d_prepare_queue accepted");
  APP_CHECK(porta_halo2d_prepare_queue(&halo, dc, &c.a.f));

  porta_loop *loop = NULL;
  APP_CHECK(porta_loop_create_deciding("exchange_device", porta_exec_default(), body, &c,
                                       10 * PASSES, &loop));
  porta_mirror_i64 st;
  APP_CHECK(porta_view_i64_create_mirror_view(&st, &c.a.st));
  for (int run = 0; run < 2; ++run) {
    APP_CHECK(porta_loop_run(loop));
    int64_t passes = 0;
    APP_CHECK(porta_loop_passes(loop, &passes));
    APP_CHECK(porta_deep_copy(st, c.a.st));
    EXPECT(passes == PASSES && st.data[0] == (run + 1) * PASSES, "run %d: %lld passes, pass %lld",
           run, (long long)passes, (long long)st.data[0]);
    EXPECT(st.data[1] == 0, "run %d: %lld wrong ghost cells, %lld wrong sums", run,
           (long long)(st.data[1] % 1000000), (long long)(st.data[1] / 1000000));
  }
  APP_CHECK(porta_loop_destroy(loop));

  /* outside a loop: a queued exchange leaves the host exchange's ghost values */
  porta_mirror_f64 queued[2], host[2];
  for (int k = 0; k < 2; ++k) {
    APP_CHECK(porta_view_f64_create_mirror_view(&queued[k], &fields[k]));
    APP_CHECK(porta_view_f64_create_mirror_view(&host[k], &fields[k]));
  }
  APP_CHECK(PORTA_PARALLEL_FOR(fill_k, porta_exec_default(), c.all, &c.a));
  APP_CHECK(porta_halo2d_queue(&halo, dc, porta_exec_default(), fields, 2, 1));
  for (int k = 0; k < 2; ++k) APP_CHECK(porta_deep_copy(queued[k], fields[k]));
  APP_CHECK(PORTA_PARALLEL_FOR(fill_k, porta_exec_default(), c.all, &c.a));
  APP_CHECK(porta_halo2d_exchange(&halo, fields, 2, 1));
  APP_CHECK(porta_fence("host exchange"));
  for (int k = 0; k < 2; ++k) APP_CHECK(porta_deep_copy(host[k], fields[k]));
  int64_t differ = 0, ghosts = -d->local[0] * d->local[1]; /* filled cells past the owned */
  for (int64_t i = 0; i < ey * ex; ++i) {
    differ += (queued[0].data[i] != host[0].data[i]) + (queued[1].data[i] != host[1].data[i]);
    ghosts += host[0].data[i] >= 0.0;
  }
  EXPECT(differ == 0, "%lld cells differ between the queued and the host exchange",
         (long long)differ);
  EXPECT(d->nranks == 1 || ghosts > 0, "no ghost cell was filled");
  /* the faces alone: every face ghost as the host exchange's, every corner kept (-1) */
  APP_CHECK(PORTA_PARALLEL_FOR(fill_k, porta_exec_default(), c.all, &c.a));
  APP_CHECK(porta_halo2d_queue_faces(&halo, dc, porta_exec_default(), fields, 2));
  for (int k = 0; k < 2; ++k) APP_CHECK(porta_deep_copy(queued[k], fields[k]));
  int64_t faces_differ = 0;
  for (int64_t y = 0; y < ey; ++y)
    for (int64_t x = 0; x < ex; ++x) {
      const int corner = (x == 0 || x == ex - 1) && (y == 0 || y == ey - 1);
      const double q = PORTA_S2(queued[0], y, x), want = corner ? -1.0 : PORTA_S2(host[0], y, x);
      faces_differ += q != want || PORTA_S2(queued[1], y, x) != -want;
    }
  EXPECT(faces_differ == 0, "%lld cells wrong after the faces' exchange", (long long)faces_differ);
  for (int k = 0; k < 2; ++k) {
    porta_mirror_f64_release(&queued[k]);
    porta_mirror_f64_release(&host[k]);
  }
  porta_mirror_i64_release(&st);
  porta_view_f64_release(&c.a.f);
  porta_view_f64_release(&c.a.g);
  porta_view_f64_release(&c.a.sums);
  porta_view_i64_release(&c.a.st);
  porta_halo2d_destroy(&halo);
}

typedef struct {
  porta_view_f64 v;
} terms_args;

/** v[0] + ... + v[n - 1]: a reduction to end with a sum over the ranks. */
PORTA_REDUCE(terms_k, terms_args, a, i, porta_sum_f64, acc) { *acc += PORTA_AT1(a->v, i); }

/** The same sum as the end of a reduction (porta_device_comm_end_sum), then a step copying it:
 *  the same bits as the sum's own kernel, twice (both of the inboxes' buffers), between sums
 *  of that kernel (they share the counter). By NCCL the end is not taken. */
static void end_sum(porta_device_comm *dc, int nranks, double x, double want) {
  const porta_exec ex = porta_exec_default();
  terms_args t;
  porta_view_f64 out;
  APP_CHECK(porta_view_f64_create1(&t.v, "terms", 1));
  APP_CHECK(porta_view_f64_create1(&out, "ended", 2));
  porta_mirror_f64 h, o;
  APP_CHECK(porta_view_f64_create_mirror_view(&h, &t.v));
  APP_CHECK(porta_view_f64_create_mirror_view(&o, &out));
  h.data[0] = x;
  APP_CHECK(porta_deep_copy(t.v, h));
  const int peer = !strcmp(porta_device_comm_transport(dc), "gpu-peer") || nranks == 1;
  for (int round = 0; round < 3; ++round) {
    porta_reduce_end e;
    memset(&e, 0, sizeof e);
    int fused = -1;
    APP_CHECK(porta_device_comm_end_sum(dc, &e, &fused));
    EXPECT(fused == peer, "end sum fused %d by %s", fused, porta_device_comm_transport(dc));
    if (!fused) break;
    APP_CHECK(porta_reduce_end_step(&e, PORTA_SCALAR_COPY, &out.data[1], &out.data[0], NULL));
    APP_CHECK(porta_exec_end_next_reduction(ex, &e));
    APP_CHECK(PORTA_PARALLEL_REDUCE_INTO(terms_k, ex, porta_range(0, 1), &t, &out.data[0]));
    APP_CHECK(porta_deep_copy(o, out));
    EXPECT(o.data[0] == want && o.data[1] == want,
           "round %d: sum in a reduction's end %.17g (copied %.17g), the documented order "
           "gives %.17g",
           round, o.data[0], o.data[1], want);
    if (round == 1) { /* the sum's own kernel between two ends */
      APP_CHECK(porta_deep_copy(out, o));
      APP_CHECK(porta_device_comm_sum(dc, ex, out.data, 1));
      APP_CHECK(porta_deep_copy(o, out));
      double all = want; /* every rank's term is `want` now: the same fold */
      for (int r = 2; r < nranks; ++r) all += want;
      if (nranks > 1) all += want;
      EXPECT(o.data[0] == all, "the sum's kernel between ends: %.17g, not %.17g", o.data[0], all);
    }
  }
  porta_mirror_f64_release(&h);
  porta_mirror_f64_release(&o);
  porta_view_f64_release(&t.v);
  porta_view_f64_release(&out);
}

/** A sum whose bits depend on the order of its terms: the peer transport's must be the fold
 *  ((x1 + x2) + ...) + x0 computed here from every rank's term, by its kernel and in a
 *  reduction's end (NCCL's sum is not checked: its order is NCCL's). */
static void sum_order(porta_device_comm *dc, int nranks) {
  const double x = (rank % 2 ? -1.0 : 1.0) * (1.0 + 0.1 * rank) * (rank % 3 == 0 ? 1e16 : 3.0);
  double *all = (double *)malloc((size_t)nranks * sizeof *all);
  MPI_Allgather(&x, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, MPI_COMM_WORLD);
  double want = nranks > 1 ? all[1] : all[0];
  for (int r = 2; r < nranks; ++r) want += all[r];
  if (nranks > 1) want += all[0];
  free(all);
  porta_view_f64 v;
  APP_CHECK(porta_view_f64_create1(&v, "order", 1));
  porta_mirror_f64 h;
  APP_CHECK(porta_view_f64_create_mirror_view(&h, &v));
  h.data[0] = x;
  APP_CHECK(porta_deep_copy(v, h));
  APP_CHECK(porta_device_comm_sum(dc, porta_exec_default(), v.data, 1));
  APP_CHECK(porta_deep_copy(h, v));
  const int peer = !strcmp(porta_device_comm_transport(dc), "gpu-peer");
  EXPECT(!peer || h.data[0] == want, "peer sum %.17g, the documented order gives %.17g", h.data[0],
         want);
  porta_mirror_f64_release(&h);
  porta_view_f64_release(&v);
  end_sum(dc, nranks, x, want);
}

/** Lists of a ring plan for round `n` values: offsets 0..n-1 go to the next rank and arrive at
 *  RING_HALF + q from the previous one (one neighbour entry when both are the same rank). */
#define RING_LEN 8192
#define RING_HALF 4096
static void ring_lists(porta_exchange_lists *l, int nranks, int64_t n, int *ranks, int64_t *scount,
                       int64_t *rcount, int64_t *sidx, int64_t *ridx) {
  const int to = (rank + 1) % nranks, from = (rank + nranks - 1) % nranks;
  for (int64_t q = 0; q < n; ++q) {
    sidx[q] = q;
    ridx[q] = RING_HALF + q;
  }
  l->nneighbours = to == from ? 1 : 2;
  ranks[0] = to;
  ranks[1] = from;
  scount[0] = n;
  scount[1] = 0;
  rcount[0] = to == from ? n : 0;
  rcount[1] = n;
  l->ranks = ranks;
  l->send_count = scount;
  l->recv_count = rcount;
  l->send_index = sidx;
  l->recv_index = ridx;
}

/** How ring_round exchanges: porta_exchange_queue over its device communicator, or the calls
 *  that take the plan as it was prepared (porta_exchange_run_on; porta_exchange_start_on then
 *  porta_exchange_finish_on). */
typedef enum { RING_QUEUE, RING_RUN_ON, RING_START_ON } ring_how;

/** One exchange of ring plan `x` for round `r` of `n` values: each rank sends
 *  1e6 rank + 10 r + i from offset i, and the received half must hold the previous rank's first
 *  n values, the rest untouched (-1). `what` names the round in the failures. */
static void ring_round_by(porta_exchange *x, porta_device_comm *dc, ring_how how, int nranks, int r,
                          int64_t n, const char *what) {
  porta_view_f64 f;
  APP_CHECK(porta_view_f64_create1(&f, "ring_field", RING_LEN));
  porta_mirror_f64 h;
  APP_CHECK(porta_view_f64_create_mirror_view(&h, &f));
  for (int64_t i = 0; i < RING_LEN; ++i)
    h.data[i] = i < RING_HALF ? 1e6 * rank + 10.0 * r + i : -1.0;
  APP_CHECK(porta_deep_copy(f, h));
  const porta_view field = PORTA_VIEW_ERASE(f);
  const porta_exec exec = porta_exec_default();
  int rc = how == RING_QUEUE    ? porta_exchange_queue(x, dc, exec, &field, 1)
           : how == RING_RUN_ON ? porta_exchange_run_on(x, exec, &field, 1)
                                : porta_exchange_start_on(&x, 1, exec, &field, 1);
  if (rc == PORTA_SUCCESS && how == RING_START_ON) rc = porta_exchange_finish_on(&x, 1);
  EXPECT(rc == PORTA_SUCCESS, "%s %d (%lld values, way %d): %s", what, r, (long long)n, (int)how,
         porta_last_error_message());
  APP_CHECK(porta_deep_copy(h, f));
  const int from = (rank + nranks - 1) % nranks;
  int64_t wrong = 0;
  for (int64_t q = 0; q < RING_HALF; ++q)
    wrong += h.data[RING_HALF + q] != (q < n ? 1e6 * from + 10.0 * r + q : -1.0);
  EXPECT(wrong == 0, "%s %d (%lld values): %lld received values wrong", what, r, (long long)n,
         (long long)wrong);
  porta_mirror_f64_release(&h);
  porta_view_f64_release(&f);
}

static void ring_round(porta_exchange *x, porta_device_comm *dc, int nranks, int r, int64_t n,
                       const char *what) {
  ring_round_by(x, dc, RING_QUEUE, nranks, r, n, what);
}

/** PORTA_PEER_EXCHANGE on the peer transport: an unknown value and a choice that differs
 *  between neighbours are refused on every rank, naming the variable; the plan then prepares
 *  and exchanges with the variable as it was. */
static void word_choices(porta_device_comm *dc, int nranks) {
  if (nranks < 2 || strcmp(porta_device_comm_transport(dc), "gpu-peer") != 0) return;
  char was[64] = "";
  const char *env = getenv("PORTA_PEER_EXCHANGE");
  if (env) snprintf(was, sizeof was, "%s", env);
  int ranks[2];
  int64_t scount[2], rcount[2], sidx[5], ridx[5];
  porta_exchange_lists l;
  ring_lists(&l, nranks, 5, ranks, scount, rcount, sidx, ridx);
  porta_exchange *x = NULL;
  APP_CHECK(porta_exchange_create(&x, "choice", MPI_COMM_WORLD, &l, sizeof(double), 1,
                                  porta_exec_default(), 78));
  setenv("PORTA_PEER_EXCHANGE", "words", 1);
  int rc = porta_exchange_prepare_queue(x, dc);
  EXPECT(rc == PORTA_ERROR_INVALID_ARGUMENT &&
             strstr(porta_last_error_message(), "PORTA_PEER_EXCHANGE='words'"),
         "an unknown PORTA_PEER_EXCHANGE: %d, %s", rc, porta_last_error_message());
  /* neighbours in the ring differ in parity (rank 0's successor at least) */
  setenv("PORTA_PEER_EXCHANGE", rank % 2 ? "tagged" : "flags", 1);
  rc = porta_exchange_prepare_queue(x, dc);
  EXPECT(rc == PORTA_ERROR_INCOMPATIBLE &&
             strstr(porta_last_error_message(), "set it alike on every rank"),
         "PORTA_PEER_EXCHANGE differing between ranks: %d, %s", rc, porta_last_error_message());
  if (env)
    setenv("PORTA_PEER_EXCHANGE", was, 1);
  else
    unsetenv("PORTA_PEER_EXCHANGE");
  rc = porta_exchange_prepare_queue(x, dc);
  EXPECT(rc == PORTA_SUCCESS, "prepared after the refusals: %s", porta_last_error_message());
  if (rc == PORTA_SUCCESS)
    ring_round(x, dc, nranks, 0, 5, "the exchange after the refusals, round");
  porta_exchange_destroy(x);
}

/** The ring plan prepared once, its lists updated between queued exchanges, which go by
 *  porta_exchange_queue, porta_exchange_run_on and porta_exchange_start_on / _finish_on in
 *  turn (the plan says it is queued). Then a plan not prepared beside it: porta_exchange_run_on
 *  drives it from the host, and porta_exchange_start_on refuses the two together, starting
 *  neither. */
static void updated_plans(porta_device_comm *dc, int nranks) {
  static const int64_t rounds[] = {3, 1, 0, 200, 3000, 17};
  const int nround = (int)(sizeof rounds / sizeof rounds[0]);
  int ranks[2];
  int64_t scount[2], rcount[2];
  int64_t *sidx = (int64_t *)malloc(RING_HALF * sizeof(int64_t));
  int64_t *ridx = (int64_t *)malloc(RING_HALF * sizeof(int64_t));
  porta_exchange_lists l;
  ring_lists(&l, nranks, rounds[0], ranks, scount, rcount, sidx, ridx);
  porta_exchange *x = NULL;
  APP_CHECK(porta_exchange_create(&x, "ring", MPI_COMM_WORLD, &l, sizeof(double), 1,
                                  porta_exec_default(), 77));
  EXPECT(!porta_exchange_queued(x), "a plan not yet prepared says queued");
  APP_CHECK(porta_exchange_prepare_queue(x, dc));
  for (int r = 0; r < nround; ++r) {
    if (r > 0) {
      ring_lists(&l, nranks, rounds[r], ranks, scount, rcount, sidx, ridx);
      APP_CHECK(porta_exchange_update(x, &l));
    }
    EXPECT(porta_exchange_queued(x), "round %d: the prepared plan says not queued", r);
    ring_round_by(x, dc, (ring_how)(r % 3), nranks, r, rounds[r], "round");
  }
  porta_exchange *h = NULL;
  APP_CHECK(porta_exchange_create(&h, "ring_host", MPI_COMM_WORLD, &l, sizeof(double), 1,
                                  porta_exec_default(), 79));
  ring_round_by(h, dc, RING_RUN_ON, nranks, 0, rounds[nround - 1], "a host plan by run_on, round");
  porta_view_f64 f;
  APP_CHECK(porta_view_f64_create1(&f, "ring_mixed", RING_LEN));
  const porta_view field = PORTA_VIEW_ERASE(f);
  porta_exchange *mixed[2] = {x, h};
  const int rc = porta_exchange_start_on(mixed, 2, porta_exec_default(), &field, 1);
  EXPECT(rc == PORTA_ERROR_INVALID_ARGUMENT && strstr(porta_last_error_message(), "apart"),
         "a queued and a host plan started together: %d, %s", rc, porta_last_error_message());
  porta_error_clear();
  /* neither was started: both run again */
  ring_round_by(x, dc, RING_RUN_ON, nranks, 1, rounds[nround - 1], "queued after the refusal");
  ring_round_by(h, dc, RING_START_ON, nranks, 2, rounds[nround - 1], "host after the refusal");
  porta_view_f64_release(&f);
  porta_exchange_destroy(h);
  porta_exchange_destroy(x);
  free(sidx);
  free(ridx);
}

/** A one-way ring queued BURST_ROUNDS times with no host fence between, each run into a field
 *  of its own: a writer may run ahead of its reader, which sends nothing back, so it must wait
 *  for the reader's finished run before it writes that buffer again. Rank 1's receive of
 *  BURST_VALUES values is scattered (one value a page apart from the next), so that it reads
 *  slower than the others. Every field must hold its own run's values. */
#define BURST_ROUNDS 20
#define BURST_VALUES 1048576
/** Where value q of a burst arrives on rank `r`: scattered on rank 1 (a bijection: odd factor). */
static int64_t burst_at(int r, int64_t q) {
  return BURST_VALUES + (r == 1 ? (q * 7919) % BURST_VALUES : q);
}
static void ring_burst(porta_device_comm *dc, int nranks) {
  const int to = (rank + 1) % nranks, from = (rank + nranks - 1) % nranks;
  int ranks[2] = {to, from};
  int64_t scount[2] = {BURST_VALUES, 0}, rcount[2] = {to == from ? BURST_VALUES : 0, BURST_VALUES};
  int64_t *sidx = (int64_t *)malloc(BURST_VALUES * sizeof(int64_t));
  int64_t *ridx = (int64_t *)malloc(BURST_VALUES * sizeof(int64_t));
  for (int64_t q = 0; q < BURST_VALUES; ++q) {
    sidx[q] = q;
    ridx[q] = burst_at(rank, q);
  }
  porta_exchange_lists l = {to == from ? 1 : 2, ranks, scount, sidx, rcount, ridx};
  porta_exchange *x = NULL;
  APP_CHECK(porta_exchange_create(&x, "burst", MPI_COMM_WORLD, &l, sizeof(double), 1,
                                  porta_exec_default(), 79));
  APP_CHECK(porta_exchange_prepare_queue(x, dc));
  porta_view_f64 f[BURST_ROUNDS];
  porta_mirror_f64 h;
  for (int r = 0; r < BURST_ROUNDS; ++r) {
    APP_CHECK(porta_view_f64_create1(&f[r], "burst_field", 2 * BURST_VALUES));
    if (r == 0) APP_CHECK(porta_view_f64_create_mirror_view(&h, &f[0]));
    for (int64_t i = 0; i < 2 * BURST_VALUES; ++i)
      h.data[i] = i < BURST_VALUES ? 1e9 * rank + 1e7 * r + i : -1.0;
    APP_CHECK(porta_deep_copy(f[r], h));
  }
  MPI_Barrier(MPI_COMM_WORLD);
  int rc = PORTA_SUCCESS;
  for (int r = 0; r < BURST_ROUNDS && rc == PORTA_SUCCESS; ++r) {
    const porta_view field = PORTA_VIEW_ERASE(f[r]);
    rc = porta_exchange_queue(x, dc, porta_exec_default(), &field, 1);
  }
  EXPECT(rc == PORTA_SUCCESS, "burst: %s", porta_last_error_message());
  for (int r = 0; r < BURST_ROUNDS; ++r) {
    APP_CHECK(porta_deep_copy(h, f[r]));
    int64_t wrong = 0;
    for (int64_t q = 0; q < BURST_VALUES; ++q)
      wrong += h.data[burst_at(rank, q)] != 1e9 * from + 1e7 * r + q;
    EXPECT(wrong == 0, "burst round %d: %lld of %d received values wrong", r, (long long)wrong,
           BURST_VALUES);
    porta_view_f64_release(&f[r]);
  }
  porta_mirror_f64_release(&h);
  porta_exchange_destroy(x);
  free(sidx);
  free(ridx);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  APP_CHECK(porta_initialize(&argc, &argv));
  int nranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  const porta_exec exec = porta_exec_default();
  const int gpu = porta_exec_query(exec).on_device;
  /* two ranks on one GPU (the tests run on one node): NCCL cannot serve them */
  int *devices = (int *)malloc((size_t)nranks * sizeof *devices), shared = 0;
  const int mine = porta_device_id();
  MPI_Allgather(&mine, 1, MPI_INT, devices, 1, MPI_INT, MPI_COMM_WORLD);
  for (int r = 0; r < nranks; ++r)
    for (int q = r + 1; q < nranks; ++q) shared |= devices[r] == devices[q];
  free(devices);

  porta_device_comm *dc = NULL;
  const int rc = porta_device_comm_create(MPI_COMM_WORLD, exec, &dc);
  char msg[512];
  snprintf(msg, sizeof msg, "%s", rc == PORTA_SUCCESS ? "" : porta_last_error_message());
  int got = rc == PORTA_SUCCESS, all = 0;
  MPI_Allreduce(&got, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  EXPECT(all == 0 || all == nranks, "%d of %d ranks got a communicator", all, nranks);
  EXPECT(got || dc == NULL, "a refusal left a communicator");
  /* the reason, the same on every rank */
  const char *why = !porta_device_comm_built() ? "no NCCL"
                    : !gpu                     ? "not a GPU"
                    : shared                   ? "share GPU"
                                               : NULL;
  if (why) {
    EXPECT(rc == PORTA_ERROR_UNSUPPORTED && strstr(msg, why), "expected a refusal with '%s': %s",
           why, msg);
  } else {
    EXPECT(rc == PORTA_SUCCESS, "refused: %s", msg);
  }
  refusals(dc);
  const char *choice = getenv("PORTA_DEVICE_COMM");
  if (dc && choice && (!strcmp(choice, "nccl") || !strcmp(choice, "peer"))) {
    const char *want = !strcmp(choice, "nccl") ? "nccl" : "gpu-peer";
    EXPECT(!strcmp(porta_device_comm_transport(dc), want), "PORTA_DEVICE_COMM=%s: transport %s",
           choice, porta_device_comm_transport(dc));
  }
  if (dc) sum_order(dc, nranks);
  if (dc) {
    porta_decomp d;
    const int64_t cells[2] = {13, 11};
    APP_CHECK(porta_decomp_create(MPI_COMM_WORLD, 2, cells, NULL, &d));
    on_gpus(&d, dc);
    updated_plans(dc, nranks);
    ring_burst(dc, nranks);
    word_choices(dc, nranks);
    porta_device_comm_destroy(dc);
  }
  int bad = 0;
  MPI_Allreduce(&failures, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0)
    printf("exchange_device: %s on %d ranks: %s\n", bad ? "FAILED" : "passed", nranks,
           rc == PORTA_SUCCESS ? "sums and exchanges in a recorded loop" : msg);
  if (rank == 0 && rc == PORTA_SUCCESS)
    printf("exchange_device: transport %s\n", porta_device_comm_transport(dc));
  porta_finalize();
  MPI_Finalize();
  return bad ? 1 : 0;
}
