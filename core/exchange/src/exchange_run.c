/** @file exchange_run.c
 *  The exchange of a plan (see porta/exchange.h), alone or several plans together: the checks,
 *  the receives and the pack, one fence, the messages, the wait and the unpack, each step
 *  through the plan's transport (transport/). The plan itself is made in exchange.c. */
#include "porta/exchange.h"

#include <string.h>

#include "exchange_kernels.h"
#include "exchange_private.h"
#include "transport/transport.h"

/** The pack into `buf` (to_buffer) or the unpack from it, over the plan's lists, on `exec`;
 *  `a` holds the segments of a direct pack (zeroed: none). */
static int launch_copy(porta_exchange *x, porta_exec exec, const porta_view *fields, int nfields,
                       int to_buffer, void *buf, porta_exchange_pack_args *a) {
  const int64_t total = to_buffer ? x->send_total : x->recv_total;
  if (total == 0) return PORTA_SUCCESS;
  a->index = to_buffer ? x->send_index : x->recv_index;
  for (int f = 0; f < nfields; ++f) a->field[f] = fields[f].data;
  a->buf = buf;
  a->nfields = nfields;
  a->words = x->words;
  const porta_kernel *k = x->word_bytes == 8
                              ? (to_buffer ? &porta_exchange_pack_w8 : &porta_exchange_unpack_w8)
                              : (to_buffer ? &porta_exchange_pack_w4 : &porta_exchange_unpack_w4);
  if (!to_buffer && x->accumulate) k = &porta_exchange_unpack_add_f64;
  return porta_parallel_for(to_buffer ? "porta_exchange_pack" : "porta_exchange_unpack", exec,
                            porta_range(0, total), k, a);
}

int porta_exchange_copy_(porta_exchange *x, porta_exec exec, const porta_view *fields, int nfields,
                         int to_buffer, void *buf) {
  porta_exchange_pack_args a;
  memset(&a, 0, sizeof a);
  return launch_copy(x, exec, fields, nfields, to_buffer, buf, &a);
}

int porta_exchange_pack_segments_(porta_exchange *x, const porta_view *fields, int nfields,
                                  int nseg, const int64_t *first, unsigned char *const *seg) {
  porta_exchange_pack_args a;
  memset(&a, 0, sizeof a);
  for (int s = 0; s < nseg; ++s) {
    a.seg_first[s] = first[s];
    a.seg_buf[s] = seg[s];
  }
  a.nseg = nseg;
  return launch_copy(x, x->exec, fields, nfields, 1, x->send_buf.data, &a);
}

int porta_exchange_check_fields_(const porta_exchange *x, const char *op, const porta_view *fields,
                                 int nfields) {
  if (x->active)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, x->label,
                       "an exchange is already in progress (finish it first)");
  if (nfields < 0 || nfields > x->max_fields)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, x->label,
                       "%d fields, the plan was built for at most %d", nfields, x->max_fields);
  for (int f = 0; f < nfields; ++f) {
    const porta_view_meta *m = &fields[f].m;
    const int64_t span = porta_view_meta_span_bytes(m) / (int64_t)x->value_size;
    if (m->value_size != x->value_size || x->max_offset >= span)
      return porta_error(PORTA_ERROR_INCOMPATIBLE, op, x->label,
                         "field %d '%s' has %u-byte values and spans %lld; the plan needs "
                         "%zu-byte values and offsets up to %lld",
                         f, m->label, m->value_size, (long long)span, x->value_size,
                         (long long)x->max_offset);
  }
  return PORTA_SUCCESS;
}

/** The first half of a start (after porta_exchange_check_fields_): the receives and the pack,
 *  queued without waiting. *fence says whether the pack must be waited for before
 *  post_sends(). */
static int post_receives_and_pack(porta_exchange *x, const porta_view *fields, int nfields,
                                  int *fence) {
  *fence = 0;
  x->nfields = nfields;
  for (int f = 0; f < nfields; ++f) x->fields[f] = fields[f];
  x->nreq = 0;
  x->active = 1;
  if (nfields == 0) return PORTA_SUCCESS;
  return x->transport->post(x, fields, nfields, (int64_t)x->value_size * nfields, fence);
}

/** The second half of a start, after the pack's fence: the messages. */
static int post_sends(porta_exchange *x) {
  if (x->nfields == 0) return PORTA_SUCCESS;
  return x->transport->send(x, (int64_t)x->value_size * x->nfields);
}

int porta_exchange_start(porta_exchange *x, const porta_view *fields, int nfields) {
  return porta_exchange_start_together(&x, 1, fields, nfields);
}

int porta_exchange_start_together(porta_exchange *const *plans, int nplans,
                                  const porta_view *fields, int nfields) {
  /* every check before any plan starts: a refusal leaves no plan half started */
  for (int k = 0; k < nplans; ++k) {
    PORTA_CHECK(porta_exchange_check_fields_(plans[k], "porta_exchange_start", fields, nfields));
    for (int j = 0; j < k; ++j)
      if (plans[j] == plans[k])
        return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "porta_exchange_start_together",
                           plans[k]->label, "plan %d is plan %d again", k, j);
  }
  int fence_any = 0;
  for (int k = 0; k < nplans; ++k) {
    int fence;
    PORTA_CHECK(post_receives_and_pack(plans[k], fields, nfields, &fence));
    fence_any |= fence;
  }
  /* one wait for every pack (each plans' execution space instance once) */
  for (int k = 0; k < nplans && fence_any; ++k) {
    int seen = 0;
    for (int j = 0; j < k; ++j)
      seen = seen || (plans[j]->exec.backend == plans[k]->exec.backend &&
                      plans[j]->exec.instance == plans[k]->exec.instance);
    if (!seen) PORTA_CHECK(porta_exec_fence(plans[k]->exec, "porta_exchange_pack"));
  }
  for (int k = 0; k < nplans; ++k) PORTA_CHECK(post_sends(plans[k]));
  return PORTA_SUCCESS;
}

int porta_exchange_finish(porta_exchange *x) {
  if (!x->active)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "porta_exchange_finish", x->label,
                       "no exchange in progress");
  x->active = 0;
  if (x->nfields == 0) return PORTA_SUCCESS;
  int rc = MPI_Waitall(x->nreq, x->req, MPI_STATUSES_IGNORE);
  if (rc != MPI_SUCCESS)
    return porta_exchange_fail_(x, "porta_exchange_finish", "MPI_Waitall failed", rc);
  PORTA_CHECK(x->transport->land(x, (int64_t)x->value_size * x->nfields));
  porta_exchange_pack_args a;
  memset(&a, 0, sizeof a);
  rc = launch_copy(x, x->exec, x->fields, x->nfields, 0, x->transport->recv_buffer(x), &a);
  ++x->exchanges;
  return rc;
}

int porta_exchange_run(porta_exchange *x, const porta_view *fields, int nfields) {
  PORTA_CHECK(porta_exchange_start(x, fields, nfields));
  return porta_exchange_finish(x);
}

int porta_exchange_run_together(porta_exchange *const *plans, int nplans, const porta_view *fields,
                                int nfields) {
  PORTA_CHECK(porta_exchange_start_together(plans, nplans, fields, nfields));
  for (int k = 0; k < nplans; ++k) PORTA_CHECK(porta_exchange_finish(plans[k]));
  return PORTA_SUCCESS;
}

void porta_exchange_stats(const porta_exchange *x, int64_t *messages, int64_t *bytes) {
  if (messages) *messages = x->messages;
  if (bytes) *bytes = x->bytes;
}

int64_t porta_exchange_send_total(const porta_exchange *x) { return x->send_total; }
int64_t porta_exchange_recv_total(const porta_exchange *x) { return x->recv_total; }
