/** @file exchange.c
 *  The exchange plan (see porta/exchange.h): its creation from the neighbours' lists (counts,
 *  offsets, buffers, the transport each neighbour is reached by), updates of the lists, adding
 *  receives, the transports' names, destruction. The exchange itself (pack, messages, unpack) is
 *  exchange_run.c. */
#include "porta/exchange.h"

#include <stdlib.h>
#include <string.h>

#include "exchange_kernels.h"
#include "exchange_private.h"
#include "transport/transport.h"

/** Transports of the plans made so far in this process (a bit per porta_exchange_mode). */
static unsigned modes_used;

const char *porta_exchange_mode_name_(porta_exchange_mode m) {
  static const char *names[] = {"host",     "pinned-host", "cuda-aware-mpi",
                                "cuda-ipc", "nccl",        "gpu-peer"};
  return names[m];
}

void porta_exchange_note_mode_(porta_exchange_mode mode) { modes_used |= 1u << mode; }

int porta_exchange_buffer_space(porta_exec exec, porta_memory_space *space) {
  porta_memory_space s = porta_exec_memory_space(exec);
  if (!porta_memory_space_host_accessible(s)) s = porta_exec_query(exec).staging_space;
  if (!porta_memory_space_host_accessible(s) || !porta_space_accessible(exec.backend, s))
    return porta_error(PORTA_ERROR_UNSUPPORTED, "porta_exchange_buffer_space",
                       porta_backend_name(exec.backend),
                       "no memory space both the %s back end and MPI can access",
                       porta_backend_name(exec.backend));
  *space = s;
  return PORTA_SUCCESS;
}

/** Capacity for `n` values: a quarter more, so plans refreshed at every re-neighbouring of a
 *  simulation seldom allocate (from the first update on). */
static int64_t grown(int64_t n) { return n + n / 4 + 64; }

/** *dst (grown as needed on `space`) holds the first n offsets of view src. */
static int copy_index_view(porta_view_i64 *dst, const char *label, porta_view_i64 src, int64_t n,
                           porta_memory_space space) {
  if (!dst->data || porta_extent(*dst, 0) < n) {
    porta_view_i64_release(dst);
    const int64_t len = grown(n > 0 ? n : 1);
    porta_view_options opt = {space, PORTA_LAYOUT_DEFAULT, PORTA_VIEW_UNINITIALIZED, NULL};
    PORTA_CHECK(porta_view_i64_create(dst, label, 1, &len, &opt));
  }
  if (n == 0) return PORTA_SUCCESS;
  porta_view_i64 d, s;
  memset(&d, 0, sizeof d);
  memset(&s, 0, sizeof s);
  porta_slice sl = porta_slice_range(0, n);
  int rc = porta_view_i64_subview(&d, dst, &sl);
  if (rc == PORTA_SUCCESS) rc = porta_view_i64_subview(&s, &src, &sl);
  if (rc == PORTA_SUCCESS) rc = porta_deep_copy(d, s);
  porta_view_i64_release(&d);
  porta_view_i64_release(&s);
  return rc;
}

/** `n` offsets from host array `src` into *v on `space`, growing it as needed. */
static int copy_index(porta_view_i64 *v, const char *label, const int64_t *src, int64_t n,
                      porta_memory_space space) {
  porta_view_options hopt = {PORTA_HOST_SPACE, PORTA_LAYOUT_DEFAULT, PORTA_VIEW_UNMANAGED, NULL};
  porta_view_i64 host;
  PORTA_CHECK(porta_view_i64_wrap(&host, (int64_t *)src, "exchange_lists", 1, &n, &hopt));
  const int rc = copy_index_view(v, label, host, n, space);
  porta_view_i64_release(&host);
  return rc;
}

int porta_exchange_reserve_buffer_(porta_view_u8 *v, const char *label, int64_t bytes,
                                   porta_memory_space space) {
  if (v->data && porta_extent(*v, 0) >= bytes) return PORTA_SUCCESS;
  porta_view_u8_release(v);
  const int64_t len = grown(bytes > 0 ? bytes : 1);
  porta_view_options opt = {space, PORTA_LAYOUT_DEFAULT, 0, NULL};
  return porta_view_u8_create(v, label, 1, &len, &opt);
}

/** The receive offsets of an adding plan are distinct (parallel adds into one value would
 *  race): PORTA_SUCCESS, or an error naming a repeated offset. Ascending lists, the usual
 *  case, take one pass. */
static int check_distinct(const porta_exchange *x, const char *op, const int64_t *o, int64_t n);

/** check_distinct of the first n offsets of view `offsets` (wherever they are). */
static int check_distinct_view(const porta_exchange *x, const char *op, porta_view_i64 offsets,
                               int64_t n) {
  int64_t *o = (int64_t *)malloc((size_t)(n > 0 ? n : 1) * sizeof *o);
  if (!o) return porta_error(PORTA_ERROR_OUT_OF_MEMORY, op, x->label, "no memory");
  int rc = PORTA_SUCCESS;
  if (n > 0) {
    porta_view_options opt = {PORTA_HOST_SPACE, PORTA_LAYOUT_DEFAULT, PORTA_VIEW_UNMANAGED, NULL};
    porta_view_i64 h, src;
    memset(&src, 0, sizeof src);
    porta_slice sl = porta_slice_range(0, n);
    rc = porta_view_i64_wrap(&h, o, "exchange_recv_check", 1, &n, &opt);
    if (rc == PORTA_SUCCESS) rc = porta_view_i64_subview(&src, &offsets, &sl);
    if (rc == PORTA_SUCCESS) rc = porta_deep_copy(h, src);
    porta_view_i64_release(&src);
    porta_view_i64_release(&h);
  }
  if (rc == PORTA_SUCCESS) rc = check_distinct(x, op, o, n);
  free(o);
  return rc;
}

/** The neighbours and counts of new lists: the plan's neighbours (the same number; on an update
 *  the same ranks in the same order), counts not negative; their totals. */
static int check_counts(const porta_exchange *x, const char *op, int nneighbours, const int *ranks,
                        const int64_t *send_count, const int64_t *recv_count, int updating,
                        int64_t *send_total, int64_t *recv_total) {
  int nranks = 0; /* MPI_COMM_NULL (no communicator): no rank is a valid neighbour */
  if (x->comm != MPI_COMM_NULL) MPI_Comm_size(x->comm, &nranks);
  if (nneighbours != x->n)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, x->label,
                       "%d neighbours, the plan was built with %d", nneighbours, x->n);
  *send_total = *recv_total = 0;
  for (int k = 0; k < x->n; ++k) {
    if (ranks[k] < 0 || ranks[k] >= nranks || send_count[k] < 0 || recv_count[k] < 0 ||
        (updating && ranks[k] != x->rank[k]))
      return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, x->label,
                         "neighbour %d: rank %d outside 0..%d, a negative count, or not the "
                         "plan's neighbour",
                         k, ranks[k], nranks - 1);
    *send_total += send_count[k];
    *recv_total += recv_count[k];
  }
  return PORTA_SUCCESS;
}

/** Buffers for the new totals (they grow, never shrink), then the counts and displacements. */
static int set_counts(porta_exchange *x, const int *ranks, const int64_t *send_count,
                      const int64_t *recv_count, int64_t send_total, int64_t recv_total,
                      int64_t max_offset) {
  PORTA_CHECK(x->transport->reserve(x, send_total, recv_total));
  x->send_total = x->recv_total = 0;
  for (int k = 0; k < x->n; ++k) {
    x->rank[k] = ranks[k];
    x->send_count[k] = send_count[k];
    x->recv_count[k] = recv_count[k];
    x->send_displ[k] = x->send_total;
    x->recv_displ[k] = x->recv_total;
    x->send_total += send_count[k];
    x->recv_total += recv_count[k];
  }
  x->max_offset = max_offset;
  return PORTA_SUCCESS;
}

/** Counts, offsets and buffers from `l` (host arrays). */
static int set_lists(porta_exchange *x, const porta_exchange_lists *l, int updating) {
  const char *op = updating ? "porta_exchange_update" : "porta_exchange_create";
  int64_t send_total, recv_total;
  PORTA_CHECK(check_counts(x, op, l->nneighbours, l->ranks, l->send_count, l->recv_count, updating,
                           &send_total, &recv_total));
  int64_t max_offset = -1;
  for (int64_t i = 0; i < send_total + recv_total; ++i) {
    const int64_t o = i < send_total ? l->send_index[i] : l->recv_index[i - send_total];
    if (o < 0)
      return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, x->label, "negative offset %lld",
                         (long long)o);
    if (o > max_offset) max_offset = o;
  }
  if (x->accumulate) PORTA_CHECK(check_distinct(x, op, l->recv_index, recv_total));
  const porta_memory_space exec_space = porta_exec_memory_space(x->exec);
  PORTA_CHECK(
      copy_index(&x->send_index, "exchange_send_index", l->send_index, send_total, exec_space));
  PORTA_CHECK(
      copy_index(&x->recv_index, "exchange_recv_index", l->recv_index, recv_total, exec_space));
  return set_counts(x, l->ranks, l->send_count, l->recv_count, send_total, recv_total, max_offset);
}

/** The end of an update whose lists are in place: the IPC hand-shake, then a plan that was
 *  prepared for queued exchanges (`queued`, its device communicator's id; 0: none) prepared
 *  again (the peer transport's links refreshed with the neighbours, NCCL's buffers grown as
 *  needed). The update took the plan's preparation away before changing the lists, so an
 *  update that fails anywhere leaves it not prepared, never with stale links. */
static int finish_update(porta_exchange *x, uint64_t queued) {
  PORTA_CHECK(x->transport->connect(x, 0));
  if (!queued) return PORTA_SUCCESS;
  PORTA_CHECK(x->queue_ops->refresh(x));
  x->queue_comm = queued;
  return PORTA_SUCCESS;
}

int porta_exchange_update_device(porta_exchange *x, const int *ranks, const int64_t *send_count,
                                 porta_view_i64 send_index, const int64_t *recv_count,
                                 porta_view_i64 recv_index) {
  const char *op = "porta_exchange_update_device";
  if (x->active)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, x->label,
                       "an exchange is in progress (finish it first)");
  int64_t send_total, recv_total;
  PORTA_CHECK(
      check_counts(x, op, x->n, ranks, send_count, recv_count, 1, &send_total, &recv_total));
  const porta_memory_space exec_space = porta_exec_memory_space(x->exec);
  if ((send_total > 0 && (!send_index.data || porta_extent(send_index, 0) < send_total)) ||
      (recv_total > 0 && (!recv_index.data || porta_extent(recv_index, 0) < recv_total)) ||
      (send_total > 0 && !porta_space_accessible(x->exec.backend, send_index.m.space)) ||
      (recv_total > 0 && !porta_space_accessible(x->exec.backend, recv_index.m.space)))
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, x->label,
                       "the offset views must hold %lld and %lld offsets where the plan's "
                       "kernels run",
                       (long long)send_total, (long long)recv_total);
  /* one kernel checks them: none negative, and an adding plan's receive offsets ascending
     (so distinct; lists that are not are checked on the host) */
  porta_exchange_check_args a;
  a.send = send_index;
  a.recv = recv_index;
  a.nsend = send_total;
  porta_exchange_check_value v;
  porta_exchange_check_init(&v);
  if (send_total + recv_total > 0)
    PORTA_CHECK(PORTA_PARALLEL_REDUCE_LABELED("porta_exchange_check", porta_exchange_check_offsets,
                                              x->exec, porta_range(0, send_total + recv_total), &a,
                                              &v));
  if (v.lo < 0)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, x->label, "negative offset %lld",
                       (long long)v.lo);
  if (x->accumulate && v.unordered > 0) /* distinct? (on the host, before anything changes) */
    PORTA_CHECK(check_distinct_view(x, op, recv_index, recv_total));
  /* the buffers may be replaced: the last exchange's unpack must be done with them */
  PORTA_CHECK(porta_exec_fence(x->exec, op));
  const uint64_t queued = x->queue_comm;
  x->queue_comm = 0;
  PORTA_CHECK(
      copy_index_view(&x->send_index, "exchange_send_index", send_index, send_total, exec_space));
  PORTA_CHECK(
      copy_index_view(&x->recv_index, "exchange_recv_index", recv_index, recv_total, exec_space));
  PORTA_CHECK(set_counts(x, ranks, send_count, recv_count, send_total, recv_total, v.hi));
  return finish_update(x, queued);
}

int porta_exchange_create(porta_exchange **out, const char *label, MPI_Comm comm,
                          const porta_exchange_lists *l, size_t value_size, int max_fields,
                          porta_exec exec, int tag) {
  const char *op = "porta_exchange_create";
  *out = NULL;
  label = label ? label : "exchange";
  if (value_size == 0 || value_size % 4 != 0 || max_fields < 1 ||
      max_fields > PORTA_EXCHANGE_MAX_FIELDS || l->nneighbours < 0)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, label,
                       "value_size %zu must be a positive multiple of 4, max_fields %d in 1..%d, "
                       "neighbours %d >= 0",
                       value_size, max_fields, PORTA_EXCHANGE_MAX_FIELDS, l->nneighbours);
  porta_exchange *x = (porta_exchange *)calloc(1, sizeof *x);
  if (!x) return porta_error(PORTA_ERROR_OUT_OF_MEMORY, op, label, "calloc failed");
  snprintf(x->label, sizeof x->label, "%s", label);
  x->comm = comm;
  x->exec = exec;
  x->tag = tag;
  x->max_fields = max_fields;
  x->value_size = value_size;
  x->word_bytes = value_size % 8 == 0 ? 8 : 4;
  x->words = (int)(value_size / (size_t)x->word_bytes);
  x->n = l->nneighbours;
  x->max_offset = -1;
  const size_t nn = (size_t)(x->n > 0 ? x->n : 1);
  x->rank = (int *)calloc(nn, sizeof(int));
  x->send_count = (int64_t *)calloc(4 * nn, sizeof(int64_t));
  if (!x->rank || !x->send_count) {
    porta_exchange_destroy(x);
    return porta_error(PORTA_ERROR_OUT_OF_MEMORY, op, label, "calloc failed");
  }
  x->send_displ = x->send_count + nn;
  x->recv_count = x->send_count + 2 * nn;
  x->recv_displ = x->send_count + 3 * nn;
  x->peer = (porta_exchange_peer *)calloc(nn, sizeof *x->peer);
  if (!x->peer) {
    porta_exchange_destroy(x);
    return porta_error(PORTA_ERROR_OUT_OF_MEMORY, op, label, "calloc failed");
  }
  /* the transport: the first usable of the list (transport/list.c), then its agreement with
     the neighbours (on a GPU every rank takes part in the IPC hand-shake, so that the pairs
     agree; a plan that maps no neighbour then takes pinned host memory) */
  x->transport = porta_exchange_transport_choose_(exec, !porta_exec_query(exec).on_device, 1);
  x->req = (MPI_Request *)calloc((size_t)x->transport->requests * nn, sizeof(MPI_Request));
  if (!x->req) {
    porta_exchange_destroy(x);
    return porta_error(PORTA_ERROR_OUT_OF_MEMORY, op, label, "calloc failed");
  }
  int rc = set_lists(x, l, 0);
  if (rc == PORTA_SUCCESS) rc = x->transport->connect(x, 1);
  if (rc != PORTA_SUCCESS) {
    porta_exchange_destroy(x);
    return rc;
  }
  modes_used |= x->transport->modes_of ? x->transport->modes_of(x) : 1u << x->transport->mode;
  *out = x;
  return PORTA_SUCCESS;
}

const char *porta_exchange_transport(const porta_exchange *x) {
  return x->transport->name_of ? x->transport->name_of(x) : x->transport->name;
}

void porta_exchange_mode_names_(unsigned modes, char *buf, size_t size) {
  size_t len = 0;
  buf[0] = '\0';
  for (int m = PORTA_EXCHANGE_HOST; m <= PORTA_EXCHANGE_GPU_PEER; ++m)
    if (modes & (1u << m)) {
      snprintf(buf + len, size - len, "%s%s", len ? "+" : "",
               porta_exchange_mode_name_((porta_exchange_mode)m));
      len = strlen(buf);
    }
  if (!len) snprintf(buf, size, "none");
}

void porta_exchange_transports_used(char *buf, size_t size) {
  porta_exchange_mode_names_(modes_used, buf, size);
}

int porta_exchange_transports_agree(MPI_Comm comm, char *buf, size_t size) {
  unsigned all = 0;
  const int rc = MPI_Allreduce(&modes_used, &all, 1, MPI_UNSIGNED, MPI_BOR, comm);
  if (rc != MPI_SUCCESS)
    return porta_error(PORTA_ERROR_BACKEND, "porta_exchange_transports_agree", NULL,
                       "MPI_Allreduce failed");
  porta_exchange_mode_names_(all, buf, size);
  return PORTA_SUCCESS;
}

int porta_exchange_update(porta_exchange *x, const porta_exchange_lists *l) {
  if (x->active)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "porta_exchange_update", x->label,
                       "an exchange is in progress (finish it first)");
  /* the buffers may be replaced: the last exchange's unpack must be done with them */
  PORTA_CHECK(porta_exec_fence(x->exec, "porta_exchange_update"));
  const uint64_t queued = x->queue_comm;
  x->queue_comm = 0;
  PORTA_CHECK(set_lists(x, l, 1));
  return finish_update(x, queued);
}

static int cmp_i64(const void *a, const void *b) {
  const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

static int check_distinct(const porta_exchange *x, const char *op, const int64_t *o, int64_t n) {
  int64_t i = 1;
  while (i < n && o[i] > o[i - 1]) ++i;
  if (i >= n) return PORTA_SUCCESS;
  int64_t *c = (int64_t *)malloc((size_t)n * sizeof *c);
  if (!c) return porta_error(PORTA_ERROR_OUT_OF_MEMORY, op, x->label, "no memory");
  memcpy(c, o, (size_t)n * sizeof *c);
  qsort(c, (size_t)n, sizeof *c, cmp_i64);
  int rc = PORTA_SUCCESS;
  for (i = 1; i < n && rc == PORTA_SUCCESS; ++i)
    if (c[i] == c[i - 1])
      rc =
          porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, x->label,
                      "offset %lld is received more than once; adding would race", (long long)c[i]);
  free(c);
  return rc;
}

int porta_exchange_set_accumulate(porta_exchange *x, int on) {
  const char *op = "porta_exchange_set_accumulate";
  if (!on) {
    x->accumulate = 0;
    return PORTA_SUCCESS;
  }
  if (x->word_bytes != 8)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, x->label,
                       "adding needs values of doubles (value size %zu)", x->value_size);
  /* distinct receive offsets: parallel adds into one value would race */
  PORTA_CHECK(check_distinct_view(x, op, x->recv_index, x->recv_total));
  x->accumulate = 1;
  return PORTA_SUCCESS;
}

void porta_exchange_destroy(porta_exchange *x) {
  if (!x) return;
  porta_view_i64_release(&x->send_index);
  porta_view_i64_release(&x->recv_index);
  if (x->transport) x->transport->release(x);
  if (x->queue_ops) x->queue_ops->plan_release(x);
  free(x->peer);
  free(x->rank);
  free(x->send_count);
  free(x->req);
  free(x);
}
