/** @file app_scalars.c
 *  A solver's scalars in its space's memory and their host side (app_scalars.h). Host code. */
#include <string.h>

#include "app_scalars.h"
#include "app_sum_comm.h"
#include "porta/exchange_device.h"

/** The host side: the views themselves (retained) on a host back end, else views in the back
 *  end's staging space (pinned memory), which copies reach on an instance without a global
 *  fence. */
static int host_side(app_scalars *a, porta_exec exec, int nscal, int nints) {
  const porta_exec_traits t = porta_exec_query(exec);
  if (!t.on_device) {
    a->scal = a->scal_v;
    a->ints = a->ints_v;
    a->wire = a->wire_v;
    porta_view_f64_retain(&a->scal);
    porta_view_i64_retain(&a->ints);
    if (a->wire.data) porta_view_f64_retain(&a->wire);
    return PORTA_SUCCESS;
  }
  porta_view_options o;
  memset(&o, 0, sizeof o);
  o.space = t.staging_space;
  const int64_t ns = nscal, ni = nints, nw = nscal * (int64_t)APP_SUM_WIRE;
  PORTA_CHECK(porta_view_f64_create(&a->scal, "solver scalars (host)", 1, &ns, &o));
  PORTA_CHECK(porta_view_i64_create(&a->ints, "solver counts (host)", 1, &ni, &o));
  if (!a->wire_v.data) return PORTA_SUCCESS;
  return porta_view_f64_create(&a->wire, "solver sums' wire (host)", 1, &nw, &o);
}

int app_scalars_create(app_scalars *a, const char *label, porta_exec exec, int nscal, int nints,
                       int exact) {
  memset(a, 0, sizeof *a);
  PORTA_CHECK(porta_view_f64_create1(&a->scal_v, label, nscal));
  PORTA_CHECK(porta_view_i64_create1(&a->ints_v, label, nints));
  if (exact) {
    PORTA_CHECK(
        porta_view_u8_create1(&a->exact_v, label, nscal * (int64_t)sizeof(porta_xsum_f64_value)));
    PORTA_CHECK(porta_view_f64_create1(&a->wire_v, label, nscal * (int64_t)APP_SUM_WIRE));
  }
  return host_side(a, exec, nscal, nints);
}

void app_scalars_release(app_scalars *a) {
  porta_view_f64 *f[] = {&a->scal_v, &a->wire_v, &a->scal, &a->wire};
  for (size_t i = 0; i < sizeof f / sizeof f[0]; ++i)
    if (f[i]->data) porta_view_f64_release(f[i]);
  if (a->ints_v.data) porta_view_i64_release(&a->ints_v);
  if (a->ints.data) porta_view_i64_release(&a->ints);
  if (a->exact_v.data) porta_view_u8_release(&a->exact_v);
}

app_sum_to app_scalars_to(const app_scalars *a, int slot) {
  app_sum_to to;
  to.value = &a->scal_v.data[slot];
  to.exact = a->exact_v.data ? (porta_xsum_f64_value *)(void *)a->exact_v.data + slot : NULL;
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
  PORTA_CHECK(copy_on(exec, PORTA_VIEW_ERASE(a->scal), PORTA_VIEW_ERASE(a->scal_v), 0));
  return copy_on(exec, PORTA_VIEW_ERASE(a->ints), PORTA_VIEW_ERASE(a->ints_v), 1);
}

int app_scalars_write(const app_scalars *a, porta_exec exec) {
  PORTA_CHECK(copy_on(exec, PORTA_VIEW_ERASE(a->scal_v), PORTA_VIEW_ERASE(a->scal), 0));
  return copy_on(exec, PORTA_VIEW_ERASE(a->ints_v), PORTA_VIEW_ERASE(a->ints), 0);
}

int app_scalars_sum(const app_scalars *a, porta_exec exec, app_sum *sum,
                    struct porta_device_comm *queued, int nranks, int slot, int n) {
  const app_sum_to to = app_scalars_to(a, slot);
  if (nranks < 2) /* this rank's alone */
    return to.exact ? app_sum_round_on(exec, to.exact, to.value, n) : PORTA_SUCCESS;
  if (queued) { /* queued on the GPUs (the device communicator) */
    if (to.exact)
      return app_sum_finish_on(exec, queued, nranks, to.exact, a->wire_v.data, to.value, n);
    return porta_device_comm_sum(queued, exec, to.value, n);
  }
  /* driven from the host: the values (packed accumulators) through host memory and MPI */
  if (to.exact) {
    PORTA_CHECK(app_sum_pack_on(exec, to.exact, a->wire_v.data, n));
    PORTA_CHECK(copy_on(exec, PORTA_VIEW_ERASE(a->wire), PORTA_VIEW_ERASE(a->wire_v), 1));
    PORTA_CHECK(app_sum_allreduce_wire(sum, a->wire.data, APP_SUM_WIRE * n));
    PORTA_CHECK(copy_on(exec, PORTA_VIEW_ERASE(a->wire_v), PORTA_VIEW_ERASE(a->wire), 0));
    return app_sum_unpack_on(exec, a->wire_v.data, to.value, n, nranks);
  }
  PORTA_CHECK(copy_on(exec, PORTA_VIEW_ERASE(a->scal), PORTA_VIEW_ERASE(a->scal_v), 1));
  PORTA_CHECK(app_sum_allreduce(sum, &a->scal.data[slot], n));
  return copy_on(exec, PORTA_VIEW_ERASE(a->scal_v), PORTA_VIEW_ERASE(a->scal), 0);
}
