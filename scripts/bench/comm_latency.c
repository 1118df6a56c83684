/** @file comm_latency.c
 *  What one queued sum and one queued halo exchange cost inside a recorded loop on GPUs, by each
 *  transport of the device communicator (porta/exchange_device.h: NCCL, and the peer transport
 *  straight between the GPUs' memories), on every rank count: the figures the apps' iterations
 *  pay per global sum and per exchange (docs/clusters.md). Each loop's time per pass less an
 *  empty loop's, medians over reps. The answers are checked first: every ghost cell against its
 *  owner, every sum against its exact total, and the order in which each transport adds (the
 *  peer transport's documented order; whether NCCL's agrees, over random terms).
 *
 *    mpirun -np N porta-bench-comm [CELLS (2000: a rank's square)] [PASSES (2000)] [REPS (5)]
 *
 *  Kernel file (C++17 compatible). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "porta/exchange.h"
#include "porta/porta.h"

typedef struct {
  porta_view_f64 sum;
  porta_loop_handle loop;
  double mine;
  int64_t passes;
  porta_view_i64 count;
} pass_args;

PORTA_FOR(comm_reset, pass_args, a, i) {
  (void)i;
  PORTA_AT1(a->sum, 0) = a->mine;
}

PORTA_FOR(comm_decide, pass_args, a, i) {
  (void)i;
  porta_loop_decide(&a->loop, ++PORTA_AT1(a->count, 0) % a->passes != 0);
}

typedef struct {
  porta_view_f64 f;
  int64_t ox, oy;
} fill_args;

PORTA_MDFOR2(comm_fill, fill_args, a, y, x) {
  PORTA_AT2(a->f, y, x) = 1.0e5 * (double)(a->oy + y) + (double)(a->ox + x);
}

enum { OP_EMPTY, OP_SUM, OP_HALO, OP_FACES, OP_CG, NOPS };
static const char *op_names[NOPS] = {"empty pass", "sum of 1 double", "halo exchange (depth 1)",
                                     "faces' exchange", "CG's: faces + 2 sums"};

typedef struct {
  int op;
  porta_device_comm *dc;
  porta_halo2d *halo;
  porta_view_f64 field;
  pass_args a;
} body_ctx;

static int body(porta_exec exec, void *vctx) {
  body_ctx *c = (body_ctx *)vctx;
  c->a.loop = porta_loop_decider();
  PORTA_CHECK(PORTA_PARALLEL_FOR(comm_reset, exec, porta_range(0, 1), &c->a));
  if (c->op == OP_HALO) PORTA_CHECK(porta_halo2d_queue(c->halo, c->dc, exec, &c->field, 1, 1));
  if (c->op == OP_FACES || c->op == OP_CG)
    PORTA_CHECK(porta_halo2d_queue_faces(c->halo, c->dc, exec, &c->field, 1));
  for (int k = 0; k < (c->op == OP_SUM ? 1 : c->op == OP_CG ? 2 : 0); ++k) {
    if (k) PORTA_CHECK(PORTA_PARALLEL_FOR(comm_reset, exec, porta_range(0, 1), &c->a));
    PORTA_CHECK(porta_device_comm_sum(c->dc, exec, c->a.sum.data, 1));
  }
  return PORTA_PARALLEL_FOR(comm_decide, exec, porta_range(0, 1), &c->a);
}

static int rank = 0, nranks = 1, bad = 0;

#define CHECK(call)                                                                                \
  do {                                                                                             \
    if ((call) != PORTA_SUCCESS) {                                                                 \
      fprintf(stderr, "porta-bench-comm: rank %d: %s\n", rank, porta_last_error_message());        \
      MPI_Abort(MPI_COMM_WORLD, 2);                                                                \
    }                                                                                              \
  } while (0)

static int cmp(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/** Seconds per pass of `op` (its loop recorded once, run `reps` times), the median. */
static double time_op(body_ctx *c, int op, int64_t passes, int reps) {
  c->op = op;
  c->a.passes = passes;
  porta_loop *loop = NULL;
  CHECK(porta_loop_create_deciding("bench_comm", porta_exec_default(), body, c, passes + 1, &loop));
  double t[64];
  for (int r = 0; r < reps + 1; ++r) { /* the first run warms up */
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    CHECK(porta_loop_run(loop));
    CHECK(porta_fence("bench_comm"));
    double dt = MPI_Wtime() - t0, slowest = 0.0;
    MPI_Allreduce(&dt, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (r) t[r - 1] = slowest / (double)passes;
  }
  CHECK(porta_loop_destroy(loop));
  qsort(t, (size_t)reps, sizeof *t, cmp);
  return t[reps / 2];
}

/** Every ghost cell inside the domain holds its owner's value, every sum its total. */
static void check(body_ctx *c, const porta_decomp *d) {
  porta_mirror_f64 h, s;
  CHECK(porta_view_f64_create_mirror_view(&h, &c->field));
  CHECK(porta_view_f64_create_mirror_view(&s, &c->a.sum));
  CHECK(porta_deep_copy(h, c->field));
  CHECK(porta_deep_copy(s, c->a.sum));
  const int64_t ex = d->local[0] + 2, ey = d->local[1] + 2;
  int64_t wrong = 0;
  for (int64_t y = 0; y < ey; ++y)
    for (int64_t x = 0; x < ex; ++x) {
      const int64_t gx = d->offset[0] + x - 1, gy = d->offset[1] + y - 1;
      const int corner = (x == 0 || x == ex - 1) && (y == 0 || y == ey - 1);
      if (gx < 0 || gy < 0 || gx >= d->global[0] || gy >= d->global[1] || corner) continue;
      wrong += PORTA_S2(h, y, x) != 1.0e5 * (double)(gy + 1) + (double)(gx + 1);
    }
  const double total = 0.5 * nranks * (nranks + 1.0);
  if (wrong || s.data[0] != total) {
    fprintf(stderr, "porta-bench-comm: rank %d (%s): %lld wrong ghost cells, sum %.17g not %g\n",
            rank, porta_device_comm_transport(c->dc), (long long)wrong, s.data[0], total);
    bad = 1;
  }
  porta_mirror_f64_release(&h);
  porta_mirror_f64_release(&s);
}

/** Over `trials` sums of random terms: how many give the peer transport's order's bits. */
static int order_matches(porta_device_comm *dc, int trials) {
  porta_view_f64 v;
  CHECK(porta_view_f64_create1(&v, "order", 1));
  porta_mirror_f64 h;
  CHECK(porta_view_f64_create_mirror_view(&h, &v));
  double *all = (double *)malloc((size_t)nranks * sizeof *all);
  int same = 0;
  srand(12345u + (unsigned)rank);
  for (int t = 0; t < trials; ++t) {
    const double x = ((double)rand() / RAND_MAX - 0.5) * pow(10.0, rand() % 9);
    MPI_Allgather(&x, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, MPI_COMM_WORLD);
    double want = nranks > 1 ? all[1] : all[0];
    for (int r = 2; r < nranks; ++r) want += all[r];
    if (nranks > 1) want += all[0];
    h.data[0] = x;
    CHECK(porta_deep_copy(v, h));
    CHECK(porta_device_comm_sum(dc, porta_exec_default(), v.data, 1));
    CHECK(porta_deep_copy(h, v));
    same += h.data[0] == want;
  }
  free(all);
  porta_mirror_f64_release(&h);
  porta_view_f64_release(&v);
  return same;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  CHECK(porta_initialize(&argc, &argv));
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  const int64_t cells = argc > 1 ? atoll(argv[1]) : 2000;
  const int64_t passes = argc > 2 ? atoll(argv[2]) : 2000;
  const int reps = argc > 3 ? atoi(argv[3]) : 5;
  if (cells < 3 || passes < 1 || reps < 1 || reps > 63) {
    if (rank == 0) fprintf(stderr, "porta-bench-comm: CELLS >= 3, PASSES >= 1, REPS in 1..63\n");
    MPI_Finalize();
    return 2;
  }
  porta_decomp d;
  int64_t dims_cells[2] = {cells, cells};
  { /* a rank's square: the near-square grid of ranks times CELLS */
    int dims[2] = {0, 0};
    MPI_Dims_create(nranks, 2, dims);
    dims_cells[0] = cells * dims[0];
    dims_cells[1] = cells * dims[1];
  }
  CHECK(porta_decomp_create(MPI_COMM_WORLD, 2, dims_cells, NULL, &d));
  const char *names[2] = {"nccl", "peer"};
  double t[2][NOPS];
  int order[2] = {0, 0};
  const int trials = 50;
  for (int k = 0; k < 2; ++k) {
    setenv("PORTA_DEVICE_COMM", names[k], 1);
    body_ctx c;
    memset(&c, 0, sizeof c);
    porta_halo2d halo;
    CHECK(porta_device_comm_create(MPI_COMM_WORLD, porta_exec_default(), &c.dc));
    CHECK(porta_halo2d_create(&halo, &d, 1, 1, 1, porta_exec_default()));
    c.halo = &halo;
    CHECK(porta_view_f64_create2(&c.field, "field", d.local[1] + 2, d.local[0] + 2));
    CHECK(porta_view_f64_create1(&c.a.sum, "sum", 1));
    CHECK(porta_view_i64_create1(&c.a.count, "count", 1));
    c.a.mine = rank + 1.0;
    fill_args f = {c.field, d.offset[0], d.offset[1]};
    CHECK(PORTA_PARALLEL_FOR(comm_fill, porta_exec_default(),
                             porta_mdrange2(1, d.local[1] + 1, 1, d.local[0] + 1), &f));
    CHECK(porta_halo2d_prepare_queue(&halo, c.dc, &c.field));
    for (int op = 0; op < NOPS; ++op) t[k][op] = time_op(&c, op, passes, reps);
    check(&c, &d);
    order[k] = order_matches(c.dc, trials);
    porta_view_f64_release(&c.field);
    porta_view_f64_release(&c.a.sum);
    porta_view_i64_release(&c.a.count);
    porta_halo2d_destroy(&halo);
    porta_device_comm_destroy(c.dc);
  }
  int any = 0;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("Queued communication in a recorded loop: %d ranks (a GPU each), %lld x %lld cells a "
           "rank (%d x %d ranks), %lld passes, median of %d\n",
           nranks, (long long)cells, (long long)cells, d.dims[0], d.dims[1], (long long)passes,
           reps);
    printf("%-26s %12s %12s\n", "per pass (less an empty)", "nccl (us)", "peer (us)");
    for (int op = 0; op < NOPS; ++op) {
      const double b0 = op ? t[0][OP_EMPTY] : 0.0, b1 = op ? t[1][OP_EMPTY] : 0.0;
      printf("%-26s %12.2f %12.2f\n", op_names[op], (t[0][op] - b0) * 1e6, (t[1][op] - b1) * 1e6);
    }
    printf("sums in the peer order ((x1 + x2) + ...) + x0: nccl %d of %d, peer %d of %d\n",
           order[0], trials, order[1], trials);
    printf("answers: %s\n", any ? "WRONG" : "checked (ghost cells, sums)");
  }
  porta_finalize();
  MPI_Finalize();
  return any ? 1 : 0;
}
