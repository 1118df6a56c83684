/** @file app_scalars.c
 *  A solver's scalars in its space's memory and their host side (app_scalars.h). Host code. */
#include <stdlib.h>
#include <string.h>

#include "app_scalars.h"
#include "app_sum_comm.h"
#include "porta/exchange_device.h"

/** The doubles and integers of `block` (nscal + nints doubles) as views of their own. */
static int split(const porta_view_f64 *block, int nscal, int nints, porta_view_f64 *scal,
                 porta_view_i64 *ints) {
  porta_view_options o;
  memset(&o, 0, sizeof o);
  o.space = (porta_memory_space)block->m.space;
  const int64_t ns = nscal, ni = nints;
  PORTA_CHECK(porta_view_f64_wrap(scal, block->data, block->m.label, 1, &ns, &o));
  return porta_view_i64_wrap(ints, (int64_t *)(void *)(block->data + nscal), block->m.label, 1, &ni,
                             &o);
}

/** The host side: the views themselves on a host back end, else views in the back end's
 *  staging space (pinned memory), which copies reach on an instance without a global fence. */
static int host_side(app_scalars *a, porta_exec exec, int nscal, int nints) {
  const porta_exec_traits t = porta_exec_query(exec);
  if (!t.on_device) {
    a->block = a->block_v;
    a->wire = a->wire_v;
    porta_view_f64_retain(&a->block);
    if (a->wire.data) porta_view_f64_retain(&a->wire);
  } else {
    porta_view_options o;
    memset(&o, 0, sizeof o);
    o.space = t.staging_space;
    const int64_t nb = (int64_t)nscal + nints, nw = 2 * nscal * (int64_t)APP_SUM_WIRE;
    PORTA_CHECK(porta_view_f64_create(&a->block, "solver scalars (host)", 1, &nb, &o));
    if (a->wire_v.data)
      PORTA_CHECK(porta_view_f64_create(&a->wire, "solver sums' wire (host)", 1, &nw, &o));
  }
  return split(&a->block, nscal, nints, &a->scal, &a->ints);
}

int app_scalars_create(app_scalars *a, const char *label, porta_exec exec, int nscal, int nints,
                       int exact) {
  memset(a, 0, sizeof *a);
  PORTA_CHECK(porta_view_f64_create1(&a->block_v, label, (int64_t)nscal + nints));
  PORTA_CHECK(split(&a->block_v, nscal, nints, &a->scal_v, &a->ints_v));
  if (exact) {
    PORTA_CHECK(
        porta_view_u8_create1(&a->exact_v, label, nscal * (int64_t)sizeof(porta_xsum_f64_value)));
    PORTA_CHECK(porta_view_f64_create1(&a->wire_v, label, 2 * nscal * (int64_t)APP_SUM_WIRE));
    PORTA_CHECK(porta_view_i32_create1(&a->again_v, label, 1));
    a->rerun = (app_sum_rerun *)calloc((size_t)nscal, sizeof *a->rerun);
    if (!a->rerun)
      return porta_error(PORTA_ERROR_OUT_OF_MEMORY, "app_scalars_create", label,
                         "no memory for %d exact sums' records", nscal);
  }
  return host_side(a, exec, nscal, nints);
}

void app_scalars_release(app_scalars *a) {
  porta_view_f64 *f[] = {&a->block_v, &a->wire_v, &a->block, &a->wire};
  for (size_t i = 0; i < sizeof f / sizeof f[0]; ++i)
    if (f[i]->data) porta_view_f64_release(f[i]);
  if (a->exact_v.data) porta_view_u8_release(&a->exact_v);
  if (a->again_v.data) porta_view_i32_release(&a->again_v);
  free(a->rerun);
  memset(a, 0, sizeof *a);
}

app_sum_to app_scalars_to(const app_scalars *a, int slot) {
  app_sum_to to;
  to.value = &a->scal_v.data[slot];
  to.exact = a->exact_v.data ? (porta_xsum_f64_value *)(void *)a->exact_v.data + slot : NULL;
  to.rerun = a->rerun ? a->rerun + slot : NULL;
  return to;
}

/** A copy between the host side and the space's memory on exec (nothing where they are one
 *  memory); `wait`: then a wait for it and for the launches before it. */
static int copy_on(porta_exec exec, porta_view dst, porta_view src, int wait) {
  if (dst.data == src.data) return PORTA_SUCCESS;
  PORTA_CHECK(porta_view_deep_copy_async(exec, dst, src));
  return wait ? porta_exec_fence(exec, "app_scalars") : PORTA_SUCCESS;
}

int app_scalars_read(const app_scalars *a, porta_exec exec) {
  return copy_on(exec, PORTA_VIEW_ERASE(a->block), PORTA_VIEW_ERASE(a->block_v), 1);
}

int app_scalars_write(const app_scalars *a, porta_exec exec) {
  return copy_on(exec, PORTA_VIEW_ERASE(a->block_v), PORTA_VIEW_ERASE(a->block), 0);
}

/** The first `words` doubles of `wire` summed over the ranks through the host side by MPI (the
 *  launches before it done first). */
static int wire_by_host(const app_scalars *a, porta_exec exec, app_sum *sum, int words) {
  PORTA_CHECK(copy_on(exec, PORTA_VIEW_ERASE(a->wire), PORTA_VIEW_ERASE(a->wire_v), 1));
  PORTA_CHECK(app_sum_allreduce_wire(sum, a->wire.data, words));
  return copy_on(exec, PORTA_VIEW_ERASE(a->wire_v), PORTA_VIEW_ERASE(a->wire), 0);
}

/** One rank's exact sum on a host back end, as its settle kernel does (app_sum_rerun.settle):
 *  the first pass's rounding where its bound decides it, else the terms again, exactly. A host
 *  back end runs a loop's body on every pass and finishes each launch before returning, so the
 *  accumulator is there to read (into memory, as a loop's body must reduce). */
static int settle_here(const app_sum_rerun *r, porta_exec exec, porta_xsum_f64_value *acc,
                       double *value, int force) {
  if (!force && porta_ddsum_f64_round(app_sum_dd_of_c(acc), value)) return PORTA_SUCCESS;
  PORTA_CHECK(r->run(r, exec, acc, 1));
  *value = porta_xsum_f64_round(acc);
  return PORTA_SUCCESS;
}

/** An exact set's second pass (app_scalars_sum's porta_exec_if). */
typedef struct {
  const app_scalars *a;
  app_sum *sum;
  struct porta_device_comm *queued;
  int nranks, slot, n;
} second_ctx;

static int second_pass(porta_exec exec, void *ctx) {
  const second_ctx *c = (const second_ctx *)ctx;
  const app_sum_to to = app_scalars_to(c->a, c->slot);
  for (int k = 0; k < c->n; ++k) { /* the terms again, exactly, on the space given */
    const app_sum_rerun *r = &to.rerun[k];
    if (!r->run)
      return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "app_scalars_sum", "sum",
                         "exact sum %d of %d has no record of its terms", c->slot + k, c->n);
    PORTA_CHECK(r->run(r, exec, &to.exact[k], 1));
  }
  if (c->queued)
    return app_sum_finish_on(exec, c->queued, c->nranks, to.exact, c->a->wire_v.data, to.value,
                             c->n);
  PORTA_CHECK(app_sum_pack_on(exec, to.exact, c->a->wire_v.data, c->n));
  PORTA_CHECK(wire_by_host(c->a, exec, c->sum, APP_SUM_WIRE * c->n));
  return app_sum_unpack_on(exec, c->a->wire_v.data, to.value, c->n, c->nranks);
}

int app_scalars_sum(const app_scalars *a, porta_exec exec, app_sum *sum,
                    struct porta_device_comm *queued, int nranks, int slot, int n) {
  const app_sum_to to = app_scalars_to(a, slot);
  if (to.exact) { /* the first passes, then a second where they do not decide */
    const int force = app_sum_second_pass_forced();
    if (nranks < 2) { /* each decided, or summed again, by a kernel of its own */
      /* a body run from the host on every pass, each launch done when it returns: read here */
      const int on_host = !porta_exec_query(exec).on_device && !porta_loop_records(exec);
      for (int k = 0; k < n; ++k) {
        const app_sum_rerun *r = &to.rerun[k];
        if (!r->settle)
          return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "app_scalars_sum", "sum",
                             "exact sum %d has no record of its terms", slot + k);
        if (on_host) /* the same, without a launch (a few us each on OpenMP) */
          PORTA_CHECK(settle_here(r, exec, &to.exact[k], &to.value[k], force));
        else
          PORTA_CHECK(r->settle(r, exec, &to.exact[k], &to.value[k], force, NULL));
      }
      return PORTA_SUCCESS;
    }
    const int rank = app_sum_rank(sum);
    const int by_words =
        app_sum_ranks(sum) == nranks && rank < nranks && !app_sum_gathers_by_limbs();
    if (n == 1 && queued && by_words && to.rerun[0].settle) {
      /* a transport a kernel reaches (the peer one): the settle kernel gathers the ranks'
         words and decides, or adds their exact sums' limbs, itself: one kernel, no
         conditional step (the same bits as below) */
      porta_reduce_end ranks;
      memset(&ranks, 0, sizeof ranks);
      int fused = 0;
      PORTA_CHECK(porta_device_comm_end_sum(queued, &ranks, &fused));
      if (fused && ranks.nranks == nranks)
        return to.rerun[0].settle(&to.rerun[0], exec, &to.exact[0], &to.value[0], force, &ranks);
    }
    porta_cond again;
    PORTA_CHECK(porta_exec_cond(exec, a->again_v.data, &again));
    double *wire = a->wire_v.data;
    if (PORTA_DDSUM_WORDS * nranks <= 2 * APP_SUM_WIRE && by_words) {
      /* every rank's first pass gathered by the sum, at its rank's place: 3 doubles a rank (6
         on 2 ranks: a sum the peer transport takes in one kernel), else the limbs */
      const int words = PORTA_DDSUM_WORDS * nranks * n;
      PORTA_CHECK(app_sum_pack_words_on(exec, to.exact, wire, n, rank, nranks));
      if (queued)
        PORTA_CHECK(porta_device_comm_sum(queued, exec, wire, words));
      else
        PORTA_CHECK(wire_by_host(a, exec, sum, words));
      PORTA_CHECK(app_sum_unpack_words_on(exec, wire, to.value, &again, n, nranks, force));
    } else {
      PORTA_CHECK(app_sum_pack_dd_on(exec, to.exact, wire, n));
      if (queued)
        PORTA_CHECK(porta_device_comm_sum(queued, exec, wire, 2 * APP_SUM_WIRE * n));
      else
        PORTA_CHECK(wire_by_host(a, exec, sum, 2 * APP_SUM_WIRE * n));
      PORTA_CHECK(app_sum_unpack_dd_on(exec, wire, to.value, &again, n, nranks, force));
    }
    second_ctx c = {a, sum, queued, nranks, slot, n};
    return porta_exec_if_cond(exec, &again, second_pass, &c);
  }
  if (nranks < 2) return PORTA_SUCCESS; /* this rank's alone */
  if (queued) return porta_device_comm_sum(queued, exec, to.value, n);
  /* driven from the host: the values through host memory and MPI */
  PORTA_CHECK(copy_on(exec, PORTA_VIEW_ERASE(a->scal), PORTA_VIEW_ERASE(a->scal_v), 1));
  PORTA_CHECK(app_sum_allreduce(sum, &a->scal.data[slot], n));
  return copy_on(exec, PORTA_VIEW_ERASE(a->scal_v), PORTA_VIEW_ERASE(a->scal), 0);
}
