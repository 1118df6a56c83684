/** @file exchange_run.c
 *  The exchange of a plan (see porta/exchange.h): the pack into the send buffer (or straight into
 *  mapped neighbours' buffers), the messages, the unpack, alone or several plans together. The
 *  plan itself is made in exchange.c. */
#include "porta/exchange.h"

#include <string.h>

#include "exchange_kernels.h"
#include "exchange_private.h"

/** The buffer the current exchange receives into and unpacks from. */
static unsigned char *recv_buffer(porta_exchange *x) {
  const int b = (int)(x->exchanges % 2);
  return x->mode == PORTA_EXCHANGE_IPC ? (unsigned char *)x->ipc_recv[b] : x->recv_buf[b].data;
}

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

/** A pack (to_buffer) or unpack; `direct` (a pack in IPC mode, every sending neighbour mapped,
 *  at most PORTA_EXCHANGE_MAX_SEGMENTS of them): each neighbour's values go straight into its
 *  mapped receive buffer, with no copy after the pack. */
static int copy(porta_exchange *x, const porta_view *fields, int nfields, int to_buffer,
                int direct) {
  porta_exchange_pack_args a;
  memset(&a, 0, sizeof a);
  if (direct) {
    const int b = (int)(x->exchanges % 2);
    const int64_t vb = (int64_t)x->value_size * nfields;
    for (int k = 0; k < x->n; ++k)
      if (x->send_count[k] > 0) {
        a.seg_first[a.nseg] = x->send_displ[k];
        a.seg_buf[a.nseg++] = (unsigned char *)x->peer[k].base[b] + x->peer[k].displ * vb;
      }
  }
  return launch_copy(x, x->exec, fields, nfields, to_buffer,
                     to_buffer ? (void *)x->send_buf.data : recv_buffer(x), &a);
}

/** IPC mode, before the fence: receives (tokens from the mapped neighbours, values from the
 *  others into host staging) and the pack (straight into the neighbours' buffers when every
 *  sending neighbour is mapped, else into the send buffer, then each neighbour's values copied
 *  into its buffer or the staging). */
static int post_ipc(porta_exchange *x, const porta_view *fields, int nfields, int64_t vb) {
  const int b = (int)(x->exchanges % 2);
  unsigned char *hrecv = x->host_recv[b].data;
  for (int k = 0; k < x->n; ++k) {
    int rc = MPI_SUCCESS;
    if (x->peer[k].on)
      rc =
          MPI_Irecv(&x->peer[k].token, 1, MPI_INT, x->rank[k], x->tag, x->comm, &x->req[x->nreq++]);
    else if (x->recv_count[k] > 0)
      rc = MPI_Irecv(hrecv + x->recv_displ[k] * vb, (int)(x->recv_count[k] * vb), MPI_BYTE,
                     x->rank[k], x->tag, x->comm, &x->req[x->nreq++]);
    if (rc != MPI_SUCCESS)
      return porta_exchange_fail_(x, "porta_exchange_start", "MPI_Irecv failed", rc);
  }
  int direct = 1, nsending = 0;
  for (int k = 0; k < x->n; ++k)
    if (x->send_count[k] > 0) {
      direct = direct && x->peer[k].on;
      ++nsending;
    }
  direct = direct && nsending <= PORTA_EXCHANGE_MAX_SEGMENTS;
  PORTA_CHECK(copy(x, fields, nfields, 1, direct));
  for (int k = 0; k < x->n && !direct; ++k) {
    if (x->send_count[k] == 0) continue;
    const unsigned char *src = x->send_buf.data + x->send_displ[k] * vb;
    unsigned char *dst = x->peer[k].on ? (unsigned char *)x->peer[k].base[b] + x->peer[k].displ * vb
                                       : x->host_send.data + x->send_displ[k] * vb;
    PORTA_CHECK(porta_ipc_copy_async(x->exec, dst, src, (size_t)(x->send_count[k] * vb)));
  }
  return PORTA_SUCCESS;
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
 * queued without waiting. *fence says whether the pack must be waited for before post_sends():
 * always in IPC mode (the fence also covers this rank's unpack of the last exchange, which the
 * token promises). */
static int post_receives_and_pack(porta_exchange *x, const porta_view *fields, int nfields,
                                  int *fence) {
  const char *op = "porta_exchange_start";
  *fence = 0;
  x->nfields = nfields;
  for (int f = 0; f < nfields; ++f) x->fields[f] = fields[f];
  x->nreq = 0;
  x->active = 1;
  if (nfields == 0) return PORTA_SUCCESS;
  const int64_t vb = (int64_t)x->value_size * nfields;
  if (x->mode == PORTA_EXCHANGE_IPC) {
    *fence = 1;
    return post_ipc(x, fields, nfields, vb);
  }
  unsigned char *rbuf = recv_buffer(x);
  /* The fence after packing covers the unpack of two exchanges ago, which read the buffer
   * the receives are about to fill; a plan that sends nothing must wait here instead. */
  if (x->send_total == 0 && x->recv_total > 0)
    PORTA_CHECK(porta_exec_fence(x->exec, "porta_exchange_recv"));
  for (int k = 0; k < x->n; ++k) {
    if (x->recv_count[k] == 0) continue;
    int rc = MPI_Irecv(rbuf + x->recv_displ[k] * vb, (int)(x->recv_count[k] * vb), MPI_BYTE,
                       x->rank[k], x->tag, x->comm, &x->req[x->nreq++]);
    if (rc != MPI_SUCCESS) return porta_exchange_fail_(x, op, "MPI_Irecv failed", rc);
  }
  PORTA_CHECK(copy(x, fields, nfields, 1, 0));
  *fence = x->send_total > 0;
  return PORTA_SUCCESS;
}

/** The second half of a start, after the pack's fence: the messages (IPC mode: the tokens to
 *  the mapped neighbours and the staged values to the others). */
static int post_sends(porta_exchange *x) {
  if (x->nfields == 0) return PORTA_SUCCESS;
  const int64_t vb = (int64_t)x->value_size * x->nfields;
  const int ipc = x->mode == PORTA_EXCHANGE_IPC;
  const unsigned char *sbuf = ipc ? x->host_send.data : x->send_buf.data;
  if (ipc) x->token_out = (int)x->exchanges;
  for (int k = 0; k < x->n; ++k) {
    int rc = MPI_SUCCESS;
    if (ipc && x->peer[k].on)
      rc = MPI_Isend(&x->token_out, 1, MPI_INT, x->rank[k], x->tag, x->comm, &x->req[x->nreq++]);
    else if (x->send_count[k] > 0)
      rc = MPI_Isend(sbuf + x->send_displ[k] * vb, (int)(x->send_count[k] * vb), MPI_BYTE,
                     x->rank[k], x->tag, x->comm, &x->req[x->nreq++]);
    if (rc != MPI_SUCCESS)
      return porta_exchange_fail_(x, "porta_exchange_start", "MPI_Isend failed", rc);
    if (x->send_count[k] > 0) {
      x->messages += 1;
      x->bytes += x->send_count[k] * vb;
    }
  }
  return PORTA_SUCCESS;
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
  if (x->mode == PORTA_EXCHANGE_IPC) { /* the staged values next to the mapped ones */
    const int64_t vb = (int64_t)x->value_size * x->nfields;
    const int b = (int)(x->exchanges % 2);
    for (int k = 0; k < x->n; ++k)
      if (!x->peer[k].on && x->recv_count[k] > 0)
        PORTA_CHECK(porta_ipc_copy_async(x->exec, recv_buffer(x) + x->recv_displ[k] * vb,
                                         x->host_recv[b].data + x->recv_displ[k] * vb,
                                         (size_t)(x->recv_count[k] * vb)));
  }
  rc = copy(x, x->fields, x->nfields, 0, 0);
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
