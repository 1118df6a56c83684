/** Exchange plans (porta/exchange.h) on any number of ranks: an irregular pattern built from one
 *  table of rank pairs that every rank derives alike - a ring both ways (on 2 ranks the other
 *  rank is a neighbour twice), a skip-two pattern with zero counts in one direction, an entry
 *  with nothing either way, and every rank as its own neighbour (the only neighbour on 1 rank).
 *  Counts vary per entry; send offsets are random (repeats allowed), receive offsets are
 *  distinct. Three plans share the lists: 8-byte values (three doubles fields in one
 *  exchange), 4-byte (two int32 fields) and 12-byte (two fields of a struct of three int32).
 *  Every exchange runs twice or three times (alternate receive buffers), once as start, a
 *  kernel on the first field, finish. Each received value must be the one its sender held at
 *  start; every other value keeps its own (the kernel's update included). Then bad input is
 *  refused with a message naming the plan. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "porta/exchange.h"
#include "app_mpi.h"

static int failures = 0;
static int me = 0, nranks = 1;

/** A fixed-seed 64-bit LCG: the next value in [0, n). */
static int64_t lcg(uint64_t *state, int64_t n) {
  *state = *state * 6364136223846793005ull + 1442695040888963407ull;
  return (int64_t)((*state >> 17) % (uint64_t)n);
}

/* ---- the pair table ---------------------------------------------------------------------- */

/** Pair p: rank x sends cxy values to y and receives cyx from it. x == y needs cxy == cyx. */
typedef struct pair {
  int x, y;
  int64_t cxy, cyx;
} pair;

enum { MAX_PAIRS = 64 };
static pair pairs[MAX_PAIRS];
static int npairs = 0;

static void add_pair(int x, int y, int64_t cxy, int64_t cyx) {
  if (x == y) cyx = cxy;
  pair p = {x, y, cxy, cyx};
  pairs[npairs++] = p;
}

static void make_pairs(int P) {
  npairs = 0;
  for (int r = 0; r < P; ++r) add_pair(r, (r + 1) % P, 1 + (7 * r + 3) % 13, 2 + (5 * r) % 11);
  add_pair(0, P - 1, 0, 0); /* an entry with nothing either way */
  for (int r = 0; r < P; ++r) add_pair(r, r, 3 + r, 3 + r);
  for (int r = 0; r < P; ++r) add_pair(r, (r + 2) % P, r % 2 ? 0 : 4 + r, 6 + 2 * r);
}

/** Rank r's list entries: the pairs it is in, in table order. */
typedef struct entry {
  int pair, sender_is_x; /* the values r sends: direction x->y when r is x */
  int rank;
  int64_t send, recv;
} entry;

static int entries_of(int r, entry *e) {
  int n = 0;
  for (int p = 0; p < npairs; ++p) {
    const pair *q = &pairs[p];
    if (q->x == r) {
      entry t = {p, 1, q->y, q->cxy, q->cyx};
      e[n++] = t;
    } else if (q->y == r) {
      entry t = {p, 0, q->x, q->cyx, q->cxy};
      e[n++] = t;
    }
  }
  return n;
}

static int64_t recv_total_of(int r) {
  entry e[MAX_PAIRS];
  int n = entries_of(r, e);
  int64_t t = 0;
  for (int k = 0; k < n; ++k) t += e[k].recv;
  return t;
}

/** Field length on rank r: room for every received value and some that are never touched. */
static int64_t size_of(int r) { return recv_total_of(r) + 17 + 5 * r; }

/** The offsets rank `from` sends in pair p (direction from -> the other), count n. */
static void send_offsets(int p, int from, int64_t n, int64_t *out) {
  uint64_t s = 0x9e3779b97f4a7c15ull * (uint64_t)(p + 1) + (uint64_t)from * 1000003u;
  for (int64_t i = 0; i < n; ++i) out[i] = lcg(&s, size_of(from));
}

/** Rank r's receive offsets: the first recv_total_of(r) entries of a permutation of its field. */
static void recv_offsets(int r, int64_t *out) {
  const int64_t n = size_of(r);
  int64_t *perm = (int64_t *)malloc((size_t)n * sizeof(int64_t));
  for (int64_t i = 0; i < n; ++i) perm[i] = i;
  uint64_t s = 12345u + 77u * (uint64_t)r;
  for (int64_t i = n - 1; i > 0; --i) {
    int64_t j = lcg(&s, i + 1);
    int64_t t = perm[i];
    perm[i] = perm[j];
    perm[j] = t;
  }
  memcpy(out, perm, (size_t)recv_total_of(r) * sizeof(int64_t));
  free(perm);
}

/* ---- values ------------------------------------------------------------------------------- */

/** Value kinds: 8-byte double, 4-byte int32, 12-byte struct of three int32. */
typedef struct s12 {
  int32_t a, b, c;
} s12;

static double val8(int r, int f, int it, int64_t off) {
  return r * 1e6 + f * 1e5 + it * 1e4 + (double)off + 0.25;
}
static int32_t val4(int r, int f, int it, int64_t off) {
  return (int32_t)(r * 1000000 + f * 100000 + it * 10000 + off);
}
static s12 val12(int r, int f, int it, int64_t off) {
  s12 v = {(int32_t)r, (int32_t)off, -val4(r, f, it, off) - 1};
  return v;
}

/** Write the value of (rank r, field f, iteration it, offset off) of kind vs at p. */
static void put(void *p, size_t vs, int r, int f, int it, int64_t off, double add) {
  if (vs == 8) {
    const double v = val8(r, f, it, off) + add;
    memcpy(p, &v, 8);
  } else if (vs == 4) {
    const int32_t v = val4(r, f, it, off);
    memcpy(p, &v, 4);
  } else {
    const s12 v = val12(r, f, it, off);
    memcpy(p, &v, 12);
  }
}

/* ---- the kernel run between start and finish ---------------------------------------------- */

typedef struct {
  porta_view_f64 v;
} add_args;

PORTA_FOR(add_half, add_args, a, i) { PORTA_AT1(a->v, i) += 0.5; }

/* ---- this rank's lists ------------------------------------------------------------------ */

static porta_exchange_lists lists;
static int ranks_[MAX_PAIRS];
static int64_t scount[MAX_PAIRS], rcount[MAX_PAIRS], *send_idx, *recv_idx;
static int64_t max_offset = -1; /* largest offset in either list */
/** Per local offset: the rank whose value arrives there (-1: none) and its offset there. */
static int *origin_rank;
static int64_t *origin_off;

static void build_lists(void) {
  entry my[MAX_PAIRS];
  const int nmy = entries_of(me, my);
  int64_t st = 0;
  for (int k = 0; k < nmy; ++k) st += my[k].send;
  const int64_t rt = recv_total_of(me), len = size_of(me);
  send_idx = (int64_t *)malloc((size_t)(st + 1) * sizeof(int64_t));
  recv_idx = (int64_t *)malloc((size_t)(rt + 1) * sizeof(int64_t));
  origin_rank = (int *)malloc((size_t)len * sizeof(int));
  origin_off = (int64_t *)malloc((size_t)len * sizeof(int64_t));
  for (int64_t i = 0; i < len; ++i) origin_rank[i] = -1;
  recv_offsets(me, recv_idx);
  int64_t so = 0, ro = 0;
  for (int k = 0; k < nmy; ++k) {
    ranks_[k] = my[k].rank;
    scount[k] = my[k].send;
    rcount[k] = my[k].recv;
    send_offsets(my[k].pair, me, my[k].send, send_idx + so);
    so += my[k].send;
    /* what arrives: the sender's offsets of this pair and direction, in order */
    int64_t *from = (int64_t *)malloc((size_t)(my[k].recv + 1) * sizeof(int64_t));
    send_offsets(my[k].pair, my[k].rank, my[k].recv, from);
    for (int64_t i = 0; i < my[k].recv; ++i) {
      origin_rank[recv_idx[ro + i]] = my[k].rank;
      origin_off[recv_idx[ro + i]] = from[i];
    }
    free(from);
    ro += my[k].recv;
  }
  for (int64_t i = 0; i < st; ++i)
    if (send_idx[i] > max_offset) max_offset = send_idx[i];
  for (int64_t i = 0; i < rt; ++i)
    if (recv_idx[i] > max_offset) max_offset = recv_idx[i];
  lists.nneighbours = nmy;
  lists.ranks = ranks_;
  lists.send_count = scount;
  lists.send_index = send_idx;
  lists.recv_count = rcount;
  lists.recv_index = recv_idx;
}

/* ---- fields ------------------------------------------------------------------------------- */

/** The fields of one plan's test: views in the default memory space and host mirrors. */
typedef struct fields {
  int n;
  size_t vs;
  porta_view dev[4], host[4];
} fields;

static void fields_create(fields *F, int n, size_t vs) {
  const porta_type type = vs == 8 ? PORTA_TYPE_F64 : vs == 4 ? PORTA_TYPE_I32 : PORTA_TYPE_USER;
  const int64_t len = size_of(me);
  F->n = n;
  F->vs = vs;
  for (int f = 0; f < n; ++f) {
    char label[32];
    snprintf(label, sizeof label, "field%zu_%d", vs, f);
    APP_CHECK(porta_view_create(&F->dev[f], label, type, vs, 1, &len, NULL));
    APP_CHECK(porta_view_create_mirror_view(&F->host[f], &F->dev[f]));
  }
}

static void fields_release(fields *F) {
  for (int f = 0; f < F->n; ++f) {
    porta_view_release(&F->host[f]);
    porta_view_release(&F->dev[f]);
  }
}

static void fields_fill(fields *F, int it) {
  for (int f = 0; f < F->n; ++f) {
    unsigned char *h = (unsigned char *)F->host[f].data;
    for (int64_t i = 0; i < size_of(me); ++i) put(h + i * F->vs, F->vs, me, f, it, i, 0.0);
    if (F->host[f].data != F->dev[f].data) APP_CHECK(porta_view_deep_copy(F->dev[f], F->host[f]));
  }
}

/** Check every value after the exchange of iteration `it`: received slots hold the sender's
 *  value, the others their own (field 0 plus `add`, the kernel's update). */
static void fields_check(fields *F, int it, double add, const char *what) {
  APP_CHECK(porta_exec_fence(porta_exec_default(), "check"));
  int bad = 0;
  for (int f = 0; f < F->n; ++f) {
    if (F->host[f].data != F->dev[f].data) APP_CHECK(porta_view_deep_copy(F->host[f], F->dev[f]));
    const unsigned char *h = (const unsigned char *)F->host[f].data;
    for (int64_t i = 0; i < size_of(me); ++i) {
      unsigned char want[16];
      if (origin_rank[i] >= 0)
        put(want, F->vs, origin_rank[i], f, it, origin_off[i], 0.0);
      else
        put(want, F->vs, me, f, it, i, f == 0 ? add : 0.0);
      if (memcmp(want, h + i * F->vs, F->vs) != 0 && bad++ < 8) {
        char from[64] = "", got_s[64], want_s[64];
        if (origin_rank[i] >= 0)
          snprintf(from, sizeof from, " (from rank %d offset %lld)", origin_rank[i],
                   (long long)origin_off[i]);
        if (F->vs == 8) {
          double g, w;
          memcpy(&g, h + i * 8, 8);
          memcpy(&w, want, 8);
          snprintf(got_s, sizeof got_s, "%.17g", g);
          snprintf(want_s, sizeof want_s, "%.17g", w);
        } else {
          int32_t g[3] = {0, 0, 0}, w[3] = {0, 0, 0};
          memcpy(g, h + i * F->vs, F->vs);
          memcpy(w, want, F->vs);
          snprintf(got_s, sizeof got_s, "%d %d %d", (int)g[0], (int)g[1], (int)g[2]);
          snprintf(want_s, sizeof want_s, "%d %d %d", (int)w[0], (int)w[1], (int)w[2]);
        }
        fprintf(stderr,
                "rank %d: %s, %zu-byte field %d, iteration %d, offset %lld%s: got %s want %s\n", me,
                what, F->vs, f, it, (long long)i, from, got_s, want_s);
      }
    }
  }
  failures += bad;
}

/** The plan's neighbours with nothing to send or receive (what an updated plan starts from). */
static int64_t zero_counts[MAX_PAIRS];
static porta_exchange_lists empty_lists(void) {
  porta_exchange_lists l = lists;
  l.send_count = l.recv_count = zero_counts;
  return l;
}

/** *v: a view in the default memory space holding the n offsets of host array `src`. */
static void device_offsets(porta_view_i64 *v, const int64_t *src, int64_t n) {
  const int64_t len = n > 0 ? n : 1;
  APP_CHECK(porta_view_i64_create1(v, "offsets", len));
  if (n == 0) return;
  porta_view_i64 h, d;
  porta_slice sl = porta_slice_range(0, n);
  porta_view_options opt = {PORTA_HOST_SPACE, PORTA_LAYOUT_DEFAULT, PORTA_VIEW_UNMANAGED, NULL};
  APP_CHECK(porta_view_i64_wrap(&h, (int64_t *)src, "offsets_host", 1, &n, &opt));
  APP_CHECK(porta_view_i64_subview(&d, v, &sl));
  APP_CHECK(porta_deep_copy(d, h));
  porta_view_i64_release(&d);
  porta_view_i64_release(&h);
}

/** porta_exchange_update_device with this rank's lists, copied to the default memory space. */
static int update_device(porta_exchange *x, const porta_exchange_lists *l) {
  int64_t st = 0, rt = 0;
  for (int k = 0; k < l->nneighbours; ++k) {
    st += l->send_count[k];
    rt += l->recv_count[k];
  }
  porta_view_i64 sv, rv;
  device_offsets(&sv, l->send_index, st);
  device_offsets(&rv, l->recv_index, rt);
  const int rc = porta_exchange_update_device(x, l->ranks, l->send_count, sv, l->recv_count, rv);
  porta_view_i64_release(&sv);
  porta_view_i64_release(&rv);
  return rc;
}

/** Exchange `nfields` fields of `vs`-byte values `iters` times; iteration 1 as start, a kernel
 *  on field 0 (8-byte values only), finish. With `updated` the plan is built with empty lists
 *  and then given the real ones by porta_exchange_update (1) or, from views in the default
 *  memory space, porta_exchange_update_device (2) (its buffers must grow). */
static void run_plan(size_t vs, int nfields, int max_fields, int iters, int updated) {
  char label[32];
  snprintf(label, sizeof label, "exchange%zu%s", vs,
           updated == 2 ? "_device"
           : updated    ? "_updated"
                        : "");
  porta_exchange *x = NULL;
  const porta_exchange_lists none = empty_lists();
  APP_CHECK(porta_exchange_create(&x, label, MPI_COMM_WORLD, updated ? &none : &lists, vs,
                                  max_fields, porta_exec_default(), 7));
  if (updated) {
    if (porta_exchange_send_total(x) != 0 || porta_exchange_recv_total(x) != 0) ++failures;
    APP_CHECK(updated == 2 ? update_device(x, &lists) : porta_exchange_update(x, &lists));
  }
  /* the transport the GPU tests ask for (the rank itself, a neighbour of this plan, goes
     through the host: "cuda-ipc+pinned-host" then) */
  const char *want = getenv("TEST_EXCHANGE_TRANSPORT");
  if (want && *want && strncmp(porta_exchange_transport(x), want, strlen(want)) != 0) {
    fprintf(stderr, "rank %d: %s went through '%s', want '%s'\n", me, label,
            porta_exchange_transport(x), want);
    ++failures;
  }
  int64_t st = 0, rt = recv_total_of(me);
  for (int k = 0; k < lists.nneighbours; ++k) st += scount[k];
  if (porta_exchange_send_total(x) != st || porta_exchange_recv_total(x) != rt) {
    fprintf(stderr, "rank %d: %s totals %lld / %lld, want %lld / %lld\n", me, label,
            (long long)porta_exchange_send_total(x), (long long)porta_exchange_recv_total(x),
            (long long)st, (long long)rt);
    ++failures;
  }
  fields F;
  fields_create(&F, nfields, vs);
  for (int it = 0; it < iters; ++it) {
    fields_fill(&F, it);
    double add = 0.0;
    if (it == 1) {
      APP_CHECK(porta_exchange_start(x, F.dev, nfields));
      if (vs == 8) { /* runs while the messages travel: must not reach what was sent */
        add_args a;
        a.v = porta_view_f64_from_(F.dev[0]);
        APP_CHECK(porta_parallel_for("add_half", porta_exec_default(), porta_range(0, size_of(me)),
                                     &add_half, &a));
        add = 0.5;
      }
      APP_CHECK(porta_exchange_finish(x));
    } else {
      APP_CHECK(porta_exchange_run(x, F.dev, nfields));
    }
    fields_check(&F, it, add, it == 1 ? "start/kernel/finish" : "run");
  }
  /* counters: one message per entry with a nonzero send count, per exchange */
  int64_t msgs = 0, bytes = 0, want_msgs = 0;
  for (int k = 0; k < lists.nneighbours; ++k) want_msgs += scount[k] > 0;
  porta_exchange_stats(x, &msgs, &bytes);
  if (msgs != iters * want_msgs || bytes != iters * st * nfields * (int64_t)vs) {
    fprintf(stderr, "rank %d: %s sent %lld messages, %lld bytes; want %lld, %lld\n", me, label,
            (long long)msgs, (long long)bytes, (long long)(iters * want_msgs),
            (long long)(iters * st * nfields * (int64_t)vs));
    ++failures;
  }
  fields_release(&F);
  porta_exchange_destroy(x);
}

/* ---- refusals ----------------------------------------------------------------------------- */

/** `rc` must be a failure whose message names `label` and contains `text`. */
static void expect_refusal(int rc, const char *label, const char *text, const char *what) {
  const char *msg = porta_last_error_message();
  if (rc == PORTA_SUCCESS || !strstr(msg, label) || !strstr(msg, text)) {
    fprintf(stderr, "rank %d: %s: rc %d, message \"%s\" (want the label '%s' and \"%s\")\n", me,
            what, rc, msg, label, text);
    ++failures;
  }
  porta_error_clear();
}

/** A ring without this rank among the neighbours (the pattern above always has it): on a GPU
 *  with CUDA IPC every sending neighbour is mapped, so the pack writes straight into their
 *  buffers. Rank r sends n_r = 5 + r values (offsets 0, 2, 4, ...) to the right and receives the
 *  left neighbour's into offsets 100.., three times (both receive buffers and back). */
static void ring_without_self(void) {
  if (nranks < 2) return;
  const int right = (me + 1) % nranks, left = (me + nranks - 1) % nranks;
  const int64_t ns = 5 + me, nr = 5 + left;
  int64_t sidx[16], ridx[16];
  for (int64_t i = 0; i < ns; ++i) sidx[i] = 2 * i;
  for (int64_t i = 0; i < nr; ++i) ridx[i] = 100 + i;
  int ranks2[2] = {right, left};
  int64_t sc[2] = {ns, 0}, rc[2] = {0, nr};
  if (right == left) rc[0] = nr; /* two ranks: one neighbour both ways */
  porta_exchange_lists l = {right == left ? 1 : 2, ranks2, sc, sidx, rc, ridx};
  porta_exchange *x = NULL;
  APP_CHECK(porta_exchange_create(&x, "ring", MPI_COMM_WORLD, &l, 8, 1, porta_exec_default(), 17));
  const int64_t len = 128;
  porta_view_f64 f;
  porta_mirror_f64 h;
  APP_CHECK(porta_view_f64_create1(&f, "ring_field", len));
  APP_CHECK(porta_view_f64_create_mirror_view(&h, &f));
  for (int it = 0; it < 3; ++it) {
    for (int64_t i = 0; i < len; ++i) h.data[i] = i < 100 ? 1e4 * me + 1e3 * it + i : -1.0;
    APP_CHECK(porta_deep_copy(f, h));
    porta_view v = PORTA_VIEW_ERASE(f);
    APP_CHECK(porta_exchange_run(x, &v, 1));
    APP_CHECK(porta_deep_copy(h, f));
    for (int64_t i = 0; i < nr; ++i)
      if (h.data[100 + i] != 1e4 * left + 1e3 * it + 2 * i) {
        fprintf(stderr, "rank %d: ring, exchange %d, value %lld: %g, want %g\n", me, it,
                (long long)i, h.data[100 + i], 1e4 * left + 1e3 * it + 2 * i);
        ++failures;
        break;
      }
    if (h.data[100 + nr] != -1.0) {
      fprintf(stderr, "rank %d: ring, exchange %d: a value past the received ones changed\n", me,
              it);
      ++failures;
    }
  }
  porta_mirror_f64_release(&h);
  porta_view_f64_release(&f);
  porta_exchange_destroy(x);
}

/** One ring plan: rank r sends 5 + r + odd values (offsets odd, odd + 2, ...) to the rank
 *  `step` places on and receives the opposite neighbour's at offsets `first`... (tag `tag`). */
static porta_exchange *ring_plan(int step, int odd, int64_t first, int tag, int64_t *nrecv) {
  const int to = (me + nranks + step) % nranks, from = (me + nranks - step) % nranks;
  const int64_t ns = 5 + me + odd, nr = 5 + from + odd;
  int64_t sidx[16], ridx[16];
  for (int64_t i = 0; i < ns; ++i) sidx[i] = odd + 2 * i;
  for (int64_t i = 0; i < nr; ++i) ridx[i] = first + i;
  int ranks2[2] = {to, from};
  int64_t sc[2] = {ns, 0}, rc[2] = {0, nr};
  if (to == from) rc[0] = nr; /* two ranks: one neighbour both ways */
  porta_exchange_lists l = {to == from ? 1 : 2, ranks2, sc, sidx, rc, ridx};
  porta_exchange *x = NULL;
  APP_CHECK(
      porta_exchange_create(&x, "ring_pair", MPI_COMM_WORLD, &l, 8, 1, porta_exec_default(), tag));
  *nrecv = nr;
  return x;
}

/** Two independent rings, one each way, started together (one fence for both packs) and
 *  finished one after the other, three times, then three times by porta_exchange_start_on /
 *  _finish_on (plans not queued: the same): each receives its neighbour's values. */
static void ring_pair_together(void) {
  if (nranks < 2) return;
  int64_t nr[2];
  porta_exchange *x[2] = {ring_plan(1, 0, 100, 27, &nr[0]), ring_plan(-1, 1, 120, 28, &nr[1])};
  const int from[2] = {(me + nranks - 1) % nranks, (me + 1) % nranks};
  const int64_t len = 160, first[2] = {100, 120};
  porta_view_f64 f;
  porta_mirror_f64 h;
  APP_CHECK(porta_view_f64_create1(&f, "ring_pair_field", len));
  APP_CHECK(porta_view_f64_create_mirror_view(&h, &f));
  /* refusals start nothing: a plan given twice, a plan in progress (plan 0 then runs alone) */
  porta_view v0 = PORTA_VIEW_ERASE(f);
  porta_exchange *twice[2] = {x[0], x[0]};
  expect_refusal(porta_exchange_start_together(twice, 2, &v0, 1), "ring_pair", "again",
                 "a plan twice");
  APP_CHECK(porta_exchange_start(x[1], &v0, 1));
  expect_refusal(porta_exchange_start_together(x, 2, &v0, 1), "ring_pair", "in progress",
                 "a plan in progress");
  APP_CHECK(porta_exchange_run_on(x[0], porta_exec_default(), &v0, 1)); /* not queued: run */
  APP_CHECK(porta_exchange_finish(x[1]));
  porta_exchange *with_null[2] = {x[0], NULL};
  expect_refusal(porta_exchange_start_on(with_null, 2, porta_exec_default(), &v0, 1),
                 "porta_exchange_start_on", "NULL", "a NULL plan");
  if (porta_exchange_queued(x[0]) || porta_exchange_queued(NULL)) {
    fprintf(stderr, "rank %d: a plan not prepared for a device communicator says queued\n", me);
    ++failures;
  }
  /* three exchanges started together and finished one by one, then three by the _on calls,
     which drive plans not prepared for queueing from the host alike */
  for (int it = 0; it < 6; ++it) {
    for (int64_t i = 0; i < len; ++i) h.data[i] = i < 100 ? 1e4 * me + 1e3 * it + i : -1.0;
    APP_CHECK(porta_deep_copy(f, h));
    porta_view v = PORTA_VIEW_ERASE(f);
    if (it < 3) {
      APP_CHECK(porta_exchange_start_together(x, 2, &v, 1));
      APP_CHECK(porta_exchange_finish(x[0]));
      APP_CHECK(porta_exchange_finish(x[1]));
    } else {
      APP_CHECK(porta_exchange_start_on(x, 2, porta_exec_default(), &v, 1));
      APP_CHECK(porta_exchange_finish_on(x, 2));
    }
    APP_CHECK(porta_deep_copy(h, f));
    for (int p = 0; p < 2; ++p)
      for (int64_t i = 0; i < nr[p]; ++i) {
        const double want = 1e4 * from[p] + 1e3 * it + p + 2 * i;
        if (h.data[first[p] + i] != want) {
          fprintf(stderr, "rank %d: ring pair %d, exchange %d, value %lld: %g, want %g\n", me, p,
                  it, (long long)i, h.data[first[p] + i], want);
          ++failures;
          break;
        }
      }
  }
  for (int p = 0; p < 2; ++p) { /* the six together and the one alone, per plan */
    int64_t msgs = 0;
    porta_exchange_stats(x[p], &msgs, NULL);
    if (msgs != 7) {
      fprintf(stderr, "rank %d: ring pair %d sent %lld messages, want 7\n", me, p, (long long)msgs);
      ++failures;
    }
  }
  porta_mirror_f64_release(&h);
  porta_view_f64_release(&f);
  porta_exchange_destroy(x[0]);
  porta_exchange_destroy(x[1]);
}

static void refusals(void) {
  porta_exchange *x = NULL;
  const porta_exec ex = porta_exec_default();
  /* a neighbour outside the communicator, MPI_PROC_NULL as a neighbour */
  int bad_ranks[2] = {nranks, MPI_PROC_NULL};
  for (int b = 0; b < 2; ++b) {
    int r[1] = {bad_ranks[b]};
    int64_t c[1] = {1}, idx[1] = {0};
    porta_exchange_lists l = {1, r, c, idx, c, idx};
    expect_refusal(porta_exchange_create(&x, "plan_bad_rank", MPI_COMM_WORLD, &l, 8, 1, ex, 7),
                   "plan_bad_rank", "rank", "bad neighbour rank");
    if (x) ++failures;
  }
  /* too many fields for any plan; a value size that is not a multiple of 4 */
  expect_refusal(porta_exchange_create(&x, "plan_17_fields", MPI_COMM_WORLD, &lists, 8,
                                       PORTA_EXCHANGE_MAX_FIELDS + 1, ex, 7),
                 "plan_17_fields", "max_fields", "max_fields 17");
  expect_refusal(porta_exchange_create(&x, "plan_6_bytes", MPI_COMM_WORLD, &lists, 6, 1, ex, 7),
                 "plan_6_bytes", "value_size", "value size 6");
  /* a negative offset */
  {
    int r[1] = {me};
    int64_t c[1] = {1}, idx[1] = {-3};
    porta_exchange_lists l = {1, r, c, idx, c, idx};
    expect_refusal(porta_exchange_create(&x, "plan_negative", MPI_COMM_WORLD, &l, 8, 1, ex, 7),
                   "plan_negative", "negative offset", "negative offset");
  }

  /* fields that do not fit the plan (checked before anything is sent: no rank blocks) */
  APP_CHECK(porta_exchange_create(&x, "plan_checks", MPI_COMM_WORLD, &lists, 8, 2, ex, 9));
  porta_view_f64 small, ok[3];
  int64_t n_small = max_offset; /* one short of the largest offset */
  int64_t n_ok = size_of(me);
  APP_CHECK(porta_view_f64_create1(&small, "too_small", n_small > 0 ? n_small : 0));
  for (int f = 0; f < 3; ++f) APP_CHECK(porta_view_f64_create1(&ok[f], "fits", n_ok));
  porta_view f4;
  APP_CHECK(porta_view_create(&f4, "int32_field", PORTA_TYPE_I32, 4, 1, &n_ok, NULL));
  porta_view v[3] = {PORTA_VIEW_ERASE(ok[0]), PORTA_VIEW_ERASE(small), PORTA_VIEW_ERASE(ok[1])};
  if (max_offset >= 0)
    expect_refusal(porta_exchange_start(x, v, 2), "plan_checks", "too_small", "field too small");
  porta_view three[3] = {PORTA_VIEW_ERASE(ok[0]), PORTA_VIEW_ERASE(ok[1]), PORTA_VIEW_ERASE(ok[2])};
  expect_refusal(porta_exchange_start(x, three, 3), "plan_checks", "at most 2", "3 fields of 2");
  expect_refusal(porta_exchange_start(x, &f4, 1), "plan_checks", "4-byte", "4-byte field");
  expect_refusal(porta_exchange_finish(x), "plan_checks", "no exchange in progress",
                 "finish without start");
  /* a second start, or an update, while one is in progress; then the first one completes */
  APP_CHECK(porta_exchange_start(x, three, 2));
  expect_refusal(porta_exchange_start(x, three, 2), "plan_checks", "in progress", "second start");
  expect_refusal(porta_exchange_update(x, &lists), "plan_checks", "in progress",
                 "update in flight");
  APP_CHECK(porta_exchange_finish(x));
  /* an update must keep the neighbours */
  {
    porta_exchange_lists fewer = lists;
    fewer.nneighbours = lists.nneighbours - 1;
    expect_refusal(porta_exchange_update(x, &fewer), "plan_checks", "neighbours",
                   "update with fewer neighbours");
    int other[MAX_PAIRS];
    for (int k = 0; k < lists.nneighbours; ++k) other[k] = (lists.ranks[k] + 1) % nranks;
    porta_exchange_lists moved = lists;
    moved.ranks = other;
    if (nranks > 1)
      expect_refusal(porta_exchange_update(x, &moved), "plan_checks", "not the plan's neighbour",
                     "update with other ranks");
  }
  porta_exchange_destroy(x);
  /* an adding plan refuses an update that receives one offset twice */
  {
    int r[1] = {me};
    int64_t zero[1] = {0}, two[1] = {2}, idx[2] = {1, 1};
    porta_exchange_lists l0 = {1, r, zero, idx, zero, idx}, l2 = {1, r, two, idx, two, idx};
    APP_CHECK(porta_exchange_create(&x, "plan_add", MPI_COMM_WORLD, &l0, 8, 1, ex, 11));
    APP_CHECK(porta_exchange_set_accumulate(x, 1));
    expect_refusal(porta_exchange_update(x, &l2), "plan_add", "more than once", "duplicate adds");
    expect_refusal(update_device(x, &l2), "plan_add", "more than once",
                   "duplicate adds from device lists");
    porta_exchange_destroy(x);
  }
  /* device lists: a negative offset, views shorter than the counts */
  {
    int r[1] = {me};
    int64_t zero[1] = {0}, two[1] = {2}, neg[2] = {0, -4}, idx[2] = {0, 1};
    porta_exchange_lists l0 = {1, r, zero, idx, zero, idx}, ln = {1, r, two, neg, two, idx};
    APP_CHECK(porta_exchange_create(&x, "plan_device", MPI_COMM_WORLD, &l0, 8, 1, ex, 13));
    expect_refusal(update_device(x, &ln), "plan_device", "negative offset",
                   "negative offset from device lists");
    porta_view_i64 one;
    device_offsets(&one, idx, 1);
    expect_refusal(porta_exchange_update_device(x, r, two, one, two, one), "plan_device",
                   "offset views", "device lists shorter than the counts");
    porta_view_i64_release(&one);
    porta_exchange_destroy(x);
  }
  porta_view_f64_release(&small);
  for (int f = 0; f < 3; ++f) porta_view_f64_release(&ok[f]);
  porta_view_release(&f4);
}

int main(int argc, char **argv) {
  app_mpi_init(&argc, &argv, "test_exchange_plan");
  APP_CHECK(porta_initialize(&argc, &argv));
  porta_set_error_mode(PORTA_ERROR_MODE_RETURN, NULL, NULL);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  if (nranks > 8) app_fatal("at most 8 ranks");
  make_pairs(nranks);
  build_lists();
  for (int updated = 0; updated < 3; ++updated) {
    run_plan(8, 3, 4, 3, updated);  /* three doubles fields, room for four */
    run_plan(4, 2, 2, 2, updated);  /* two int32 fields */
    run_plan(12, 2, 3, 3, updated); /* two fields of a 12-byte struct */
  }
  ring_without_self();
  ring_pair_together();
  refusals();
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0)
    printf("exchange plans on %d ranks (%d pairs, %s back end): %s (%d failures)\n", nranks, npairs,
           porta_backend_name(porta_exec_default().backend), total ? "FAILED" : "PASSED", total);
  free(send_idx);
  free(recv_idx);
  free(origin_rank);
  free(origin_off);
  app_mpi_finalize();
  return total ? 1 : 0;
}
