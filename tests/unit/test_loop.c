/** @file test_loop.c
 *  Recorded loops (porta/loop.h) and reductions into memory of the execution space: a loop whose
 *  kernels decide on the device when to stop makes the passes and the bits of a host loop over
 *  the same launches, run after run (a value the kernels read changed between runs); a loop
 *  without a repeat flag replays its sequence once per run; max_passes ends a loop that never
 *  stops; a loop whose own kernel decides (porta_loop_decide) matches the host loop too, and
 *  stops at max_passes when it always asks for another pass; reduce_into gives the bits of the
 *  blocking reduction for range, box and team policies; and what a body may not do (a blocking
 *  reduction, a scan, a fence, a nested loop, a fill, a new instance, a launch on another
 *  instance) fails naming the loop (when it is recorded on CUDA, at its run on the host), leaving
 *  Porta usable; a body may fork work onto another instance and join it (porta_exec_wait),
 *  giving a host loop's bits, and a fork it does not join fails naming the loop. */
#include "harness.h"

#define N 10007 /* a prime: no thread count divides it */

typedef struct {
  porta_view_f64 x;
} grow_args;

/** x grows each pass by a factor and a pattern, so every pass changes every bit. */
PORTA_FOR(grow_k, grow_args, a, i) {
  PORTA_AT1(a->x, i) = PORTA_AT1(a->x, i) * 1.0625 + 0.25 * (double)(i % 7);
}

PORTA_REDUCE(sum_k, grow_args, a, i, porta_sum_f64, acc) { *acc += PORTA_AT1(a->x, i); }

/** A reduction whose value is not a double (a cross-rank sum refuses it). */
PORTA_REDUCE(count_k, grow_args, a, i, porta_sum_i32, acc) {
  (void)a;
  (void)i;
  *acc += 1;
}

PORTA_FOR(reset_k, grow_args, a, i) { PORTA_AT1(a->x, i) = 1.0 / (double)(1 + i % 13); }

/** The device scalars: [0] this pass's sum, [1] the target. */
typedef struct {
  porta_view_f64 scalars;
  porta_view_i64 count;
  porta_view_i32 repeat;
  int32_t always; /**< repeat whatever the sum (the max_passes test) */
} decide_args;

/** One thread: count the pass, and repeat while the sum is below the target. */
PORTA_FOR(decide_k, decide_args, a, i) {
  (void)i;
  PORTA_AT1(a->count, 0) += 1;
  PORTA_AT1(a->repeat, 0) =
      a->always || PORTA_AT1(a->scalars, 0) < PORTA_AT1(a->scalars, 1) ? 1 : 0;
}

typedef struct {
  grow_args g;
  decide_args d;
} pass_ctx;

/** A pass's work: grow, the sum into scalars[0] (no wait). */
static int grow_and_sum(porta_exec exec, grow_args *g, porta_view_f64 scalars) {
  PORTA_CHECK(PORTA_PARALLEL_FOR(grow_k, exec, porta_range(0, N), g));
  return PORTA_PARALLEL_REDUCE_INTO(sum_k, exec, porta_range(0, N), g, &PORTA_AT1(scalars, 0));
}

/** One pass: grow and sum, decide. */
static int pass(porta_exec exec, void *ctx) {
  pass_ctx *c = (pass_ctx *)ctx;
  PORTA_CHECK(grow_and_sum(exec, &c->g, c->d.scalars));
  return PORTA_PARALLEL_FOR(decide_k, exec, porta_range(0, 1), &c->d);
}

/** The same passes from the host: blocking sums, the decision on the host. x and the count
 *  after the loop. */
static void host_loop(grow_args *g, double target, int64_t *passes) {
  const porta_exec ex = porta_exec_default();
  double s = 0.0;
  *passes = 0;
  do {
    PT_OK(PORTA_PARALLEL_FOR(grow_k, ex, porta_range(0, N), g));
    PT_OK(PORTA_PARALLEL_REDUCE(sum_k, ex, porta_range(0, N), g, &s));
    ++*passes;
  } while (s < target);
}

static int64_t differing(porta_view_f64 a, porta_view_f64 b) {
  int64_t bad = 0;
  for (int64_t i = 0; i < N; ++i) bad += memcmp(&a.data[i], &b.data[i], sizeof(double)) != 0;
  return bad;
}

static void make_ctx(pass_ctx *c) {
  PT_OK(porta_view_f64_create1(&c->g.x, "x", N));
  PT_OK(porta_view_f64_create1(&c->d.scalars, "scalars", 2));
  PT_OK(porta_view_i64_create1(&c->d.count, "count", 1));
  PT_OK(porta_view_i32_create1(&c->d.repeat, "repeat", 1));
  c->d.always = 0;
}

static void free_ctx(pass_ctx *c) {
  porta_view_f64_release(&c->g.x);
  porta_view_f64_release(&c->d.scalars);
  porta_view_i64_release(&c->d.count);
  porta_view_i32_release(&c->d.repeat);
}

/* the passes and the bits of the host loop, twice, the target changed in device memory */
static void test_loop_matches_host_loop(void) {
  const porta_exec ex = porta_exec_default();
  pass_ctx c;
  make_ctx(&c);
  grow_args ref;
  PT_OK(porta_view_f64_create1(&ref.x, "ref", N));
  porta_loop *loop = NULL;
  PT_OK(porta_loop_create("grow until", ex, pass, &c, &PORTA_AT1(c.d.repeat, 0), 0, &loop));
  const double targets[2] = {1.0e5, 3.0e6};
  for (int run = 0; run < 2; ++run) {
    PT_OK(PORTA_PARALLEL_FOR(reset_k, ex, porta_range(0, N), &c.g));
    PT_OK(PORTA_PARALLEL_FOR(reset_k, ex, porta_range(0, N), &ref));
    PT_OK(porta_fence("set-up"));
    c.d.count.data[0] = 0;
    c.d.scalars.data[1] = targets[run]; /* read by the recorded kernels at their run */
    int64_t want = 0, got = -1;
    host_loop(&ref, targets[run], &want);
    PT_OK(porta_loop_run(loop));
    PT_OK(porta_exec_fence(ex, "loop"));
    PT_OK(porta_loop_passes(loop, &got));
    PT_CHECK(want > 3);
    PT_EQ_I64(got, want);
    PT_EQ_I64(c.d.count.data[0], want);
    PT_EQ_I64(c.d.repeat.data[0], 0);
    PT_EQ_I64(differing(c.g.x, ref.x), 0);
  }
  PT_OK(porta_loop_destroy(loop));
  porta_view_f64_release(&ref.x);
  free_ctx(&c);
}

typedef struct {
  porta_view_f64 scalars;
  porta_view_i64 count;
  porta_loop_handle loop;
  int by_sum; /**< 1: another pass while the sum is below the target; 0: always another */
} decides_args;

/** One thread: count the pass and decide (by the sum, or always for another pass). */
PORTA_FOR(decides_k, decides_args, a, i) {
  (void)i;
  PORTA_AT1(a->count, 0) += 1;
  porta_loop_decide(&a->loop,
                    !a->by_sum || PORTA_AT1(a->scalars, 0) < PORTA_AT1(a->scalars, 1) ? 1 : 0);
}

typedef struct {
  grow_args g;
  decides_args d;
} deciding_ctx;

/** A deciding loop's pass: its last kernel decides (the handle taken while recorded). */
static int deciding_pass(porta_exec exec, void *ctx) {
  deciding_ctx *c = (deciding_ctx *)ctx;
  c->d.loop = porta_loop_decider();
  PORTA_CHECK(grow_and_sum(exec, &c->g, c->d.scalars));
  return PORTA_PARALLEL_FOR(decides_k, exec, porta_range(0, 1), &c->d);
}

/* a loop whose kernel decides: the host loop's passes and bits; one that always asks for
   another pass stops at max_passes (porta_loop_decide counts); the decider outside a deciding
   body is an error */
static void test_deciding_loop(void) {
  const porta_exec ex = porta_exec_default();
  deciding_ctx c;
  grow_args ref;
  PT_OK(porta_view_f64_create1(&c.g.x, "x", N));
  PT_OK(porta_view_f64_create1(&ref.x, "ref", N));
  PT_OK(porta_view_f64_create1(&c.d.scalars, "scalars", 2));
  PT_OK(porta_view_i64_create1(&c.d.count, "count", 1));
  for (c.d.by_sum = 1; c.d.by_sum >= 0; --c.d.by_sum) {
    porta_loop *loop = NULL;
    PT_OK(porta_loop_create_deciding("decides", ex, deciding_pass, &c, 40, &loop));
    PT_OK(PORTA_PARALLEL_FOR(reset_k, ex, porta_range(0, N), &c.g));
    PT_OK(PORTA_PARALLEL_FOR(reset_k, ex, porta_range(0, N), &ref));
    PT_OK(porta_fence("set-up"));
    c.d.count.data[0] = 0;
    c.d.scalars.data[1] = 2.0e5;
    int64_t want = 0, got = -1;
    if (c.d.by_sum) host_loop(&ref, 2.0e5, &want);
    PT_OK(porta_loop_run(loop));
    PT_OK(porta_loop_passes(loop, &got));
    PT_OK(porta_fence("runs"));
    if (c.d.by_sum) {
      PT_CHECK(want > 3 && want < 40);
      PT_EQ_I64(differing(c.g.x, ref.x), 0);
    } else {
      want = 40;
    }
    PT_EQ_I64(got, want);
    PT_EQ_I64(c.d.count.data[0], want);
    PT_OK(porta_loop_destroy(loop));
  }
  porta_loop_handle h = porta_loop_decider();
  PT_CHECK(h.repeat == NULL && h.passes == NULL);
  PT_MSG_HAS("outside the body of a deciding loop");
  porta_view_f64_release(&c.g.x);
  porta_view_f64_release(&ref.x);
  porta_view_f64_release(&c.d.scalars);
  porta_view_i64_release(&c.d.count);
}

static int grow_once(porta_exec exec, void *ctx) {
  return PORTA_PARALLEL_FOR(grow_k, exec, porta_range(0, N), (grow_args *)ctx);
}

/* no repeat flag: one pass per run, the recorded sequence replayed */
static void test_sequence_replayed(void) {
  const porta_exec ex = porta_exec_default();
  grow_args g, ref;
  PT_OK(porta_view_f64_create1(&g.x, "x", N));
  PT_OK(porta_view_f64_create1(&ref.x, "ref", N));
  PT_OK(PORTA_PARALLEL_FOR(reset_k, ex, porta_range(0, N), &g));
  PT_OK(PORTA_PARALLEL_FOR(reset_k, ex, porta_range(0, N), &ref));
  porta_loop *seq = NULL;
  PT_OK(porta_loop_create("grow", ex, grow_once, &g, NULL, 0, &seq));
  int64_t before = -1;
  PT_OK(porta_loop_passes(seq, &before)); /* no run yet */
  PT_EQ_I64(before, 0);
  for (int k = 0; k < 3; ++k) {
    PT_OK(porta_loop_run(seq));
    PT_OK(PORTA_PARALLEL_FOR(grow_k, ex, porta_range(0, N), &ref));
  }
  PT_OK(porta_fence("runs"));
  int64_t passes = -1;
  PT_OK(porta_loop_passes(seq, &passes));
  PT_EQ_I64(passes, 1);
  PT_EQ_I64(differing(g.x, ref.x), 0);
  PT_OK(porta_loop_destroy(seq));
  porta_view_f64_release(&g.x);
  porta_view_f64_release(&ref.x);
}

/* a body that always asks for another pass stops at max_passes */
static void test_max_passes(void) {
  const porta_exec ex = porta_exec_default();
  pass_ctx c;
  make_ctx(&c);
  c.d.always = 1;
  PT_OK(PORTA_PARALLEL_FOR(reset_k, ex, porta_range(0, N), &c.g));
  PT_OK(porta_fence("set-up"));
  c.d.count.data[0] = 0;
  porta_loop *loop = NULL;
  PT_OK(porta_loop_create("forever", ex, pass, &c, &PORTA_AT1(c.d.repeat, 0), 5, &loop));
  PT_OK(porta_loop_run(loop));
  int64_t passes = -1;
  PT_OK(porta_loop_passes(loop, &passes));
  PT_EQ_I64(passes, 5);
  PT_EQ_I64(c.d.count.data[0], 5);
  PT_EQ_I64(c.d.repeat.data[0], 1);
  PT_OK(porta_loop_destroy(loop));
  free_ctx(&c);
}

typedef struct {
  porta_view_f64 x;
  int64_t m; /**< columns (box) or indices per team */
} part_args;

PORTA_MDREDUCE2(sum2_k, part_args, a, i, j, porta_sum_f64, acc) {
  *acc += PORTA_AT1(a->x, i * a->m + j);
}

PORTA_TEAM_REDUCE(sumt_k, part_args, a, t, porta_sum_f64, acc) {
  PORTA_TEAM_THREAD_RANGE(t, i, 0, a->m) { *acc += PORTA_AT1(a->x, t->league_rank * a->m + i); }
}

/* reduce_into: the blocking reduction's bits, in memory of the execution space */
static void test_reduce_into(void) {
  const porta_exec ex = porta_exec_default();
  grow_args g;
  PT_OK(porta_view_f64_create1(&g.x, "x", N));
  PT_OK(PORTA_PARALLEL_FOR(reset_k, ex, porta_range(0, N), &g));
  for (int k = 0; k < 3; ++k) PT_OK(PORTA_PARALLEL_FOR(grow_k, ex, porta_range(0, N), &g));
  porta_view_f64 out;
  PT_OK(porta_view_f64_create1(&out, "out", 3));
  part_args p = {g.x, 73}; /* 137 x 73 = 10001 of the N values */
  double want[3];
  PT_OK(PORTA_PARALLEL_REDUCE(sum_k, ex, porta_range(0, N), &g, &want[0]));
  PT_OK(PORTA_PARALLEL_REDUCE(sum2_k, ex, porta_mdrange2(0, 137, 0, 73), &p, &want[1]));
  PT_OK(
      PORTA_PARALLEL_REDUCE(sumt_k, ex, porta_team_policy_make(137, PORTA_AUTO, 1), &p, &want[2]));
  PT_OK(PORTA_PARALLEL_REDUCE_INTO(sum_k, ex, porta_range(0, N), &g, &PORTA_AT1(out, 0)));
  PT_OK(PORTA_PARALLEL_REDUCE_INTO(sum2_k, ex, porta_mdrange2(0, 137, 0, 73), &p,
                                   &PORTA_AT1(out, 1)));
  PT_OK(PORTA_PARALLEL_REDUCE_INTO(sumt_k, ex, porta_team_policy_make(137, PORTA_AUTO, 1), &p,
                                   &PORTA_AT1(out, 2)));
  PT_OK(porta_exec_fence(ex, "into"));
  for (int k = 0; k < 3; ++k) PT_CHECK(memcmp(&out.data[k], &want[k], sizeof(double)) == 0);
  PT_CHECK(want[0] > 0.0);
  PT_EXPECT_CODE(porta_parallel_reduce_into("none", ex, porta_range(0, N), &sum_k, &g, NULL),
                 PORTA_ERROR_INVALID_ARGUMENT);
  PT_MSG_HAS("no result pointer");
  porta_view_f64_release(&out);
  porta_view_f64_release(&g.x);
}

/* a reduction's end (porta/reduce_end.h): its steps after the value, in the same launch, on
   every back end, inside a recorded loop too; what it is refused with */
typedef struct {
  grow_args g;
  porta_view_f64 out; /**< [0] the sum, [1] a copy of it, [2] the copy / [3] */
} end_ctx;

static porta_reduce_end end_of(porta_view_f64 out) {
  porta_reduce_end e;
  memset(&e, 0, sizeof e);
  double *o = out.data;
  PT_OK(porta_reduce_end_step(&e, PORTA_SCALAR_COPY, &o[1], &o[0], NULL));
  PT_OK(porta_reduce_end_step(&e, PORTA_SCALAR_DIV, &o[2], &o[1], &o[3]));
  return e;
}

static int grow_and_end(porta_exec exec, void *ctx) {
  end_ctx *c = (end_ctx *)ctx;
  PORTA_CHECK(PORTA_PARALLEL_FOR(grow_k, exec, porta_range(0, N), &c->g));
  const porta_reduce_end e = end_of(c->out);
  PORTA_CHECK(porta_exec_end_next_reduction(exec, &e));
  return PORTA_PARALLEL_REDUCE_INTO(sum_k, exec, porta_range(0, N), &c->g, &PORTA_AT1(c->out, 0));
}

/** A body that sets an end and launches no reduction. */
static int set_end_only(porta_exec exec, void *ctx) {
  end_ctx *c = (end_ctx *)ctx;
  const porta_reduce_end e = end_of(c->out);
  return porta_exec_end_next_reduction(exec, &e);
}

/** out[0 .. 2] are want, want and want / 3 to the bit; out[3] is still 3. */
static void check_end(porta_view_f64 out, double want) {
  const double third = want / 3.0;
  PT_CHECK(want > 0.0);
  PT_CHECK(memcmp(&out.data[0], &want, sizeof want) == 0);
  PT_CHECK(memcmp(&out.data[1], &want, sizeof want) == 0);
  PT_CHECK(memcmp(&out.data[2], &third, sizeof third) == 0);
  PT_CHECK(out.data[3] == 3.0);
}

static void test_reduce_end(void) {
  const porta_exec ex = porta_exec_default();
  end_ctx c;
  PT_OK(porta_view_f64_create1(&c.g.x, "x", N));
  PT_OK(porta_view_f64_create1(&c.out, "out", 4));
  PT_OK(PORTA_PARALLEL_FOR(reset_k, ex, porta_range(0, N), &c.g));
  const double three = 3.0;
  PT_OK(porta_view_fill(PORTA_VIEW_ERASE(c.out), &three));
  /* a range reduction, launched now */
  double want = 0.0;
  PT_OK(grow_and_end(ex, &c));
  PT_OK(PORTA_PARALLEL_REDUCE(sum_k, ex, porta_range(0, N), &c.g, &want));
  check_end(c.out, want);
  /* an mdrange reduction */
  part_args p = {c.g.x, 73};
  PT_OK(PORTA_PARALLEL_REDUCE(sum2_k, ex, porta_mdrange2(0, 137, 0, 73), &p, &want));
  porta_reduce_end e = end_of(c.out);
  PT_OK(porta_exec_end_next_reduction(ex, &e));
  PT_OK(PORTA_PARALLEL_REDUCE_INTO(sum2_k, ex, porta_mdrange2(0, 137, 0, 73), &p,
                                   &PORTA_AT1(c.out, 0)));
  PT_OK(porta_exec_fence(ex, "end"));
  check_end(c.out, want);
  /* recorded: each run's end follows that run's sum */
  porta_loop *loop = NULL;
  PT_OK(porta_loop_create("end", ex, grow_and_end, &c, NULL, 0, &loop));
  for (int run = 0; run < 2; ++run) {
    PT_OK(porta_loop_run(loop));
    PT_OK(porta_exec_fence(ex, "end loop"));
    PT_OK(PORTA_PARALLEL_REDUCE(sum_k, ex, porta_range(0, N), &c.g, &want));
    check_end(c.out, want);
  }
  PT_OK(porta_loop_destroy(loop));
  int rc;
  /* deterministic reductions run it too (their tree's kernel, or the host) */
  porta_set_deterministic(1);
  PT_OK(grow_and_end(ex, &c));
  PT_OK(PORTA_PARALLEL_REDUCE(sum_k, ex, porta_range(0, N), &c.g, &want));
  check_end(c.out, want);
  porta_set_deterministic(0);
  /* a launch that fails drops it; so does a loop's body that leaves it untaken (refused) */
  const double seven = 7.0;
  PT_OK(porta_exec_end_next_reduction(ex, &e));
  PT_EXPECT_CODE(porta_parallel_reduce_into("none", ex, porta_range(0, N), &sum_k, &c.g, NULL),
                 PORTA_ERROR_INVALID_ARGUMENT);
  loop = NULL; /* refused where the body runs: at creation (recorded) or at the run */
  rc = porta_loop_create("end left", ex, set_end_only, &c, NULL, 0, &loop);
  if (rc == PORTA_SUCCESS) {
    rc = porta_loop_run(loop);
    PT_OK(porta_loop_destroy(loop));
  }
  PT_EXPECT_CODE(rc, PORTA_ERROR_INVALID_ARGUMENT);
  PT_MSG_HAS("that no reduction of the body took");
  PT_OK(porta_exec_fence(ex, "end"));
  c.out.data[1] = seven; /* host-reachable, as the checks' reads */
  PT_OK(PORTA_PARALLEL_REDUCE_INTO(sum_k, ex, porta_range(0, N), &c.g, &PORTA_AT1(c.out, 0)));
  PT_OK(porta_exec_fence(ex, "end"));
  PT_CHECK(c.out.data[1] == 7.0);
  /* a blocking reduction does not take it; a team reduction into memory is refused */
  PT_OK(porta_exec_end_next_reduction(ex, &e));
  PT_OK(PORTA_PARALLEL_REDUCE(sum_k, ex, porta_range(0, N), &c.g, &want));
  rc = PORTA_PARALLEL_REDUCE_INTO(sumt_k, ex, porta_team_policy_make(137, PORTA_AUTO, 1), &p,
                                  &PORTA_AT1(c.out, 0));
  PT_EXPECT_CODE(rc, PORTA_ERROR_UNSUPPORTED);
  PT_MSG_HAS("for range and mdrange reductions");
  /* a fifth step; a cross-rank sum without a GPU, or of more ranks than an end reaches */
  porta_reduce_end full = end_of(c.out);
  for (int k = 2; k < PORTA_REDUCE_END_STEPS; ++k)
    PT_OK(porta_reduce_end_step(&full, PORTA_SCALAR_COPY, &c.out.data[1], &c.out.data[0], NULL));
  PT_EXPECT_CODE(
      porta_reduce_end_step(&full, PORTA_SCALAR_COPY, &c.out.data[1], &c.out.data[0], NULL),
      PORTA_ERROR_INVALID_ARGUMENT);
  PT_MSG_HAS("at most 4 steps");
  porta_reduce_end cross;
  memset(&cross, 0, sizeof cross);
  unsigned long long runs = 0;
  cross.nranks = PORTA_REDUCE_END_RANKS + 1;
  cross.runs = &runs;
  PT_EXPECT_CODE(porta_exec_end_next_reduction(ex, &cross), PORTA_ERROR_INVALID_ARGUMENT);
  PT_MSG_HAS("cross-rank sum of 17 ranks");
  cross.nranks = 2;
  if (!porta_exec_query(ex).on_device) {
    PT_EXPECT_CODE(porta_exec_end_next_reduction(ex, &cross), PORTA_ERROR_UNSUPPORTED);
    PT_MSG_HAS("needs a GPU back end");
  } else { /* refused before the launch: a value of 4 bytes */
    porta_view_i32 n32;
    PT_OK(porta_view_i32_create1(&n32, "n32", 1));
    PT_OK(porta_exec_end_next_reduction(ex, &cross));
    rc = PORTA_PARALLEL_REDUCE_INTO(count_k, ex, porta_range(0, N), &c.g, n32.data);
    PT_EXPECT_CODE(rc, PORTA_ERROR_INVALID_ARGUMENT);
    PT_MSG_HAS("not one double");
    porta_view_i32_release(&n32);
  }
  /* nothing left pending: the next reduction into memory has no end */
  PT_OK(PORTA_PARALLEL_REDUCE_INTO(sum_k, ex, porta_range(0, N), &c.g, &PORTA_AT1(c.out, 0)));
  PT_OK(porta_exec_fence(ex, "end"));
  PT_CHECK(c.out.data[1] == 7.0); /* no copy step ran */
  porta_view_f64_release(&c.out);
  porta_view_f64_release(&c.g.x);
}

/** A scan (refused inside a body). */
PORTA_SCAN(scan_k, grow_args, a, i, porta_sum_f64, up, final) {
  *up += PORTA_AT1(a->x, i);
  (void) final;
}

typedef struct {
  grow_args g;
  porta_exec other; /**< an instance of its own (CUDA; the host back ends have one) */
  int what;         /**< see bad_body */
} bad_ctx;

static int bad_body(porta_exec exec, void *ctx) {
  bad_ctx *b = (bad_ctx *)ctx;
  double s;
  porta_loop *inner = NULL;
  PORTA_CHECK(PORTA_PARALLEL_FOR(grow_k, exec, porta_range(0, N), &b->g));
  porta_exec made;
  const double zero = 0.0;
  switch (b->what) {
  case 0: return PORTA_PARALLEL_REDUCE(sum_k, exec, porta_range(0, N), &b->g, &s);
  case 1: return porta_exec_fence(exec, "inside");
  case 2: return porta_loop_create("inner", exec, grow_once, &b->g, NULL, 0, &inner);
  case 3: return PORTA_ERROR_INVALID_ARGUMENT; /* a failure of its own, no message */
  case 4: return porta_view_fill(PORTA_VIEW_ERASE(b->g.x), &zero);
  case 5: return porta_exec_create_instance(exec.backend, &made);
  case 6: return PORTA_PARALLEL_SCAN(scan_k, exec, porta_range(0, N), &b->g, NULL);
  default: /* a launch on another instance (only CUDA has one to give) */
    return PORTA_PARALLEL_FOR(grow_k, b->other, porta_range(0, N), &b->g);
  }
}

/* what a body may not do fails at creation, naming the loop; Porta stays usable */
static void test_body_errors(void) {
  const porta_exec ex = porta_exec_default();
  bad_ctx b;
  PT_OK(porta_view_f64_create1(&b.g.x, "x", N));
  const char *says[8] = {"returning its value to the host inside loop 'bad'",
                         "a fence inside the body of loop 'bad'",
                         "a loop created inside the body of loop 'bad'",
                         "the loop's body failed",
                         "porta_view_fill('x'): called inside the body of loop 'bad'",
                         "porta_exec_create_instance",
                         "a parallel_scan inside loop 'bad'",
                         "inside loop 'bad': a loop's body launches on the execution space"};
  PT_OK(porta_exec_create_instance(ex.backend, &b.other));
  const int cases = porta_exec_query(ex).async_instances ? 8 : 7;
  for (b.what = 0; b.what < cases; ++b.what) {
    /* a back end that records (CUDA) calls the body at creation, the host ones at each run */
    porta_loop *loop = (porta_loop *)&b; /* overwritten with NULL on failure */
    int rc = porta_loop_create("bad", ex, bad_body, &b, NULL, 0, &loop);
    if (rc == PORTA_SUCCESS) {
      PT_CHECK(loop != NULL && !porta_exec_query(ex).on_device);
      rc = porta_loop_run(loop);
      PT_OK(porta_loop_destroy(loop));
    } else {
      PT_CHECK(loop == NULL);
    }
    PT_EQ_I64(rc, PORTA_ERROR_INVALID_ARGUMENT);
    PT_MSG_HAS(says[b.what]);
  }
  porta_loop *loop = NULL;
  PT_EXPECT_CODE(porta_loop_create("neg", ex, grow_once, &b.g, NULL, -1, &loop),
                 PORTA_ERROR_INVALID_ARGUMENT);
  PT_MSG_HAS("max_passes is -1");
  PT_EXPECT_CODE(porta_loop_create("nobody", ex, NULL, &b.g, NULL, 0, &loop),
                 PORTA_ERROR_INVALID_ARGUMENT);
  PT_MSG_HAS("no body given");
  PT_EXPECT_CODE(porta_loop_run(NULL), PORTA_ERROR_INVALID_ARGUMENT);
  PT_OK(porta_loop_destroy(NULL));
  PT_OK(porta_exec_destroy_instance(b.other));
  /* still usable: a launch, a fence and a good loop */
  PT_OK(PORTA_PARALLEL_FOR(reset_k, ex, porta_range(0, N), &b.g));
  PT_OK(porta_loop_create("good", ex, grow_once, &b.g, NULL, 0, &loop));
  PT_OK(porta_loop_run(loop));
  PT_OK(porta_fence("after"));
  PT_NEAR(b.g.x.data[8], (1.0 / 9.0) * 1.0625 + 0.25, 1e-15);
  PT_OK(porta_loop_destroy(loop));
  porta_view_f64_release(&b.g.x);
}

typedef struct {
  grow_args a, b; /**< a grows on the body's space, b on the forked instance */
  porta_exec other;
  int join;
} fork_ctx;

/** Per pass: a grows; b grows beside it on `other` (forked after a's growth); joined, a grows
 *  again (each read of the other's view comes after its write). */
static int fork_body(porta_exec exec, void *ctx) {
  fork_ctx *f = (fork_ctx *)ctx;
  PORTA_CHECK(PORTA_PARALLEL_FOR(grow_k, exec, porta_range(0, N), &f->a));
  PORTA_CHECK(porta_exec_wait(f->other, exec));
  PORTA_CHECK(PORTA_PARALLEL_FOR(grow_k, f->other, porta_range(0, N), &f->b));
  PORTA_CHECK(PORTA_PARALLEL_FOR(grow_k, f->other, porta_range(0, N), &f->b));
  return f->join ? porta_exec_wait(exec, f->other) : PORTA_SUCCESS;
}

/* work forked onto another instance inside a body and joined: the host loop's bits after
   several runs; a fork never joined fails naming the loop */
static void test_fork_join(void) {
  const porta_exec ex = porta_exec_default();
  /* only the CUDA back end records (the host ones call the body each pass) */
  PT_EQ_I64(porta_loop_records(ex), ex.backend == PORTA_BACKEND_CUDA);
  PT_EQ_I64(porta_loop_records(porta_exec_backend(PORTA_BACKEND_SERIAL)), 0);
  fork_ctx f;
  PT_OK(porta_view_f64_create1(&f.a.x, "a", N));
  PT_OK(porta_view_f64_create1(&f.b.x, "b", N));
  PT_OK(porta_exec_create_instance_with_priority(ex.backend, PORTA_PRIORITY_HIGH, &f.other));
  PT_OK(PORTA_PARALLEL_FOR(reset_k, ex, porta_range(0, N), &f.a));
  PT_OK(PORTA_PARALLEL_FOR(reset_k, ex, porta_range(0, N), &f.b));
  f.join = 1;
  porta_loop *loop = NULL;
  PT_OK(porta_loop_create("fork", ex, fork_body, &f, NULL, 0, &loop));
  for (int run = 0; run < 3; ++run) PT_OK(porta_loop_run(loop));
  PT_OK(porta_loop_destroy(loop));
  PT_OK(porta_fence("fork"));
  /* the same launches without a loop, on the default instance: the same bits */
  grow_args ra, rb;
  PT_OK(porta_view_f64_create1(&ra.x, "ref_a", N));
  PT_OK(porta_view_f64_create1(&rb.x, "ref_b", N));
  PT_OK(PORTA_PARALLEL_FOR(reset_k, ex, porta_range(0, N), &ra));
  PT_OK(PORTA_PARALLEL_FOR(reset_k, ex, porta_range(0, N), &rb));
  for (int run = 0; run < 3; ++run) { /* no repeat flag: one pass a run */
    PT_OK(PORTA_PARALLEL_FOR(grow_k, ex, porta_range(0, N), &ra));
    for (int t = 0; t < 2; ++t) PT_OK(PORTA_PARALLEL_FOR(grow_k, ex, porta_range(0, N), &rb));
  }
  porta_mirror_f64 ha, hb, wa, wb;
  PT_OK(porta_view_f64_create_mirror_view(&ha, &f.a.x));
  PT_OK(porta_view_f64_create_mirror_view(&hb, &f.b.x));
  PT_OK(porta_view_f64_create_mirror_view(&wa, &ra.x));
  PT_OK(porta_view_f64_create_mirror_view(&wb, &rb.x));
  PT_OK(porta_deep_copy(ha, f.a.x));
  PT_OK(porta_deep_copy(hb, f.b.x));
  PT_OK(porta_deep_copy(wa, ra.x));
  PT_OK(porta_deep_copy(wb, rb.x));
  int64_t wrong = 0;
  for (int64_t i = 0; i < N; ++i) wrong += ha.data[i] != wa.data[i] || hb.data[i] != wb.data[i];
  PT_CHECK(wa.data[1] != hb.data[1]); /* a and b grew differently */
  porta_mirror_f64_release(&wa);
  porta_mirror_f64_release(&wb);
  porta_view_f64_release(&ra.x);
  porta_view_f64_release(&rb.x);
  PT_EQ_I64(wrong, 0);
  if (porta_exec_query(ex).async_instances) { /* host back ends have one instance: no fork */
    f.join = 0;
    PT_EXPECT_CODE(porta_loop_create("unjoined", ex, fork_body, &f, NULL, 0, &loop),
                   PORTA_ERROR_INVALID_ARGUMENT);
    PT_MSG_HAS("did not join it");
    PT_MSG_HAS("unjoined");
  }
  PT_OK(porta_fence("after"));
  porta_mirror_f64_release(&ha);
  porta_mirror_f64_release(&hb);
  porta_view_f64_release(&f.a.x);
  porta_view_f64_release(&f.b.x);
  PT_OK(porta_exec_destroy_instance(f.other));
}

/** The conditional step's test: ints[0] passes, ints[1] the flag, ints[2] the steps taken. */
typedef struct {
  porta_view_i32 ints;
  grow_args g;
  porta_view_f64 sums;
} when_args;

/** One thread: count the pass, and take the step on every third one. */
PORTA_FOR(when_flag_k, when_args, a, i) {
  (void)i;
  const int32_t n = PORTA_AT1(a->ints, 0) += 1;
  PORTA_AT1(a->ints, 1) = n % 3 == 0;
}
PORTA_FOR(when_count_k, when_args, a, i) {
  (void)i;
  PORTA_AT1(a->ints, 2) += 1;
}

/** The step: count it, and sum x into sums[0] (a reduction into memory inside the step). */
static int when_step(porta_exec exec, void *ctx) {
  when_args *w = (when_args *)ctx;
  PORTA_CHECK(PORTA_PARALLEL_FOR(when_count_k, exec, porta_range(0, 1), w));
  return PORTA_PARALLEL_REDUCE_INTO(sum_k, exec, porta_range(0, N), &w->g, &PORTA_AT1(w->sums, 0));
}

static int when_pass(porta_exec exec, void *ctx) {
  when_args *w = (when_args *)ctx;
  PORTA_CHECK(PORTA_PARALLEL_FOR(when_flag_k, exec, porta_range(0, 1), w));
  return porta_exec_if(exec, &PORTA_AT1(w->ints, 1), when_step, w);
}

/** The same decided by the kernel itself (porta_cond_set). */
typedef struct {
  when_args *w;
  porta_view_i32 ints;
  porta_cond cond;
} cond_args;

PORTA_FOR(when_cond_k, cond_args, a, i) {
  (void)i;
  const int32_t n = PORTA_AT1(a->ints, 0) += 1;
  porta_cond_set(&a->cond, n % 3 == 0);
}

static int when_cond_pass(porta_exec exec, void *ctx) {
  when_args *w = (when_args *)ctx;
  cond_args c;
  c.w = w;
  c.ints = w->ints;
  PORTA_CHECK(porta_exec_cond(exec, &PORTA_AT1(w->ints, 1), &c.cond));
  PORTA_CHECK(PORTA_PARALLEL_FOR(when_cond_k, exec, porta_range(0, 1), &c));
  return porta_exec_if_cond(exec, &c.cond, when_step, w);
}

/* porta_exec_if (and porta_exec_if_cond, decided by a kernel): inside a recorded loop the step
   runs on the passes whose flag is set (and its reduction lands); outside a loop the host
   decides; a missing body is an error */
static void test_exec_if(void) {
  const porta_exec ex = porta_exec_default();
  when_args w;
  PT_OK(porta_view_i32_create1(&w.ints, "ints", 3));
  PT_OK(porta_view_f64_create1(&w.g.x, "x", N));
  PT_OK(porta_view_f64_create1(&w.sums, "sums", 1));
  PT_OK(PORTA_PARALLEL_FOR(reset_k, ex, porta_range(0, N), &w.g));
  double want = 0.0;
  PT_OK(PORTA_PARALLEL_REDUCE(sum_k, ex, porta_range(0, N), &w.g, &want));
  for (int by_kernel = 0; by_kernel < 2; ++by_kernel) { /* porta_exec_if, porta_exec_if_cond */
    porta_loop *loop = NULL;
    w.ints.data[0] = w.ints.data[2] = 0;
    w.sums.data[0] = 0.0;
    PT_OK(
        porta_loop_create("when", ex, by_kernel ? when_cond_pass : when_pass, &w, NULL, 0, &loop));
    PT_OK(porta_fence("set-up"));
    for (int run = 1; run <= 7; ++run) {
      PT_OK(porta_loop_run(loop));
      PT_OK(porta_fence("run"));
      PT_EQ_I64(w.ints.data[0], run);
      PT_EQ_I64(w.ints.data[2], run / 3);
      PT_EQ_I64(w.sums.data[0] == (run >= 3 ? want : 0.0), 1);
    }
    PT_OK(porta_loop_destroy(loop));
  }
  /* outside a loop */
  w.ints.data[1] = 0;
  PT_OK(porta_exec_if(ex, &w.ints.data[1], when_step, &w));
  PT_OK(porta_fence("if"));
  PT_EQ_I64(w.ints.data[2], 2);
  w.ints.data[1] = 1;
  PT_OK(porta_exec_if(ex, &w.ints.data[1], when_step, &w));
  PT_OK(porta_fence("if"));
  PT_EQ_I64(w.ints.data[2], 3);
  PT_CHECK(porta_exec_if(ex, &w.ints.data[1], NULL, &w) == PORTA_ERROR_INVALID_ARGUMENT);
  PT_MSG_HAS("no flag or no body");
  porta_view_i32_release(&w.ints);
  porta_view_f64_release(&w.g.x);
  porta_view_f64_release(&w.sums);
}

int main(int argc, char **argv) {
  PT_BEGIN(argc, argv);
  PT_RUN(test_loop_matches_host_loop);
  PT_RUN(test_sequence_replayed);
  PT_RUN(test_max_passes);
  PT_RUN(test_deciding_loop);
  PT_RUN(test_reduce_into);
  PT_RUN(test_reduce_end);
  PT_RUN(test_body_errors);
  PT_RUN(test_fork_join);
  PT_RUN(test_exec_if);
  PT_END();
}
