/** @file halo2d.c
 *  Halo exchange for 2D views as exchange plans (see porta/exchange_halo2d.h). */
#include "porta/exchange_halo2d.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/** Tag of the plan of depth d (1-based) and phase p: its own tag per plan, so no message of
 *  one plan can match a receive of another (h->tag apart for two halos of one decomposition). */
#define APP_HALO_TAG(h, d, p) ((h)->tag + 2 * ((d)-1) + (p))

int porta_halo2d_create(porta_halo2d *h, const porta_decomp *d, int halo, int x_dim, int max_fields,
                        porta_exec exec) {
  memset(h, 0, sizeof *h);
  h->tag = 1000;
  if (d->ndims != 2 || halo < 1 || halo > 10000 || (x_dim != 0 && x_dim != 1) || max_fields < 1 ||
      max_fields > PORTA_EXCHANGE_MAX_FIELDS)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "porta_halo2d_create", "halo",
                       "needs a 2D decomposition, halo in 1..10000 (got %d), x_dim 0 or 1 (got %d) "
                       "and max_fields in 1..%d (got %d)",
                       halo, x_dim, PORTA_EXCHANGE_MAX_FIELDS, max_fields);
  /* The plans' buffers are allocated at the first exchange; refuse a back end they cannot
   * serve now (the same test as porta_exchange_create's). */
  porta_memory_space space = porta_exec_memory_space(exec);
  if (!porta_memory_space_host_accessible(space)) space = porta_exec_query(exec).staging_space;
  if (!porta_memory_space_host_accessible(space) || !porta_space_accessible(exec.backend, space))
    return porta_error(PORTA_ERROR_UNSUPPORTED, "porta_halo2d_create", "halo",
                       "no memory space both the %s back end and MPI can access",
                       porta_backend_name(exec.backend));
  h->plan = (porta_exchange **)calloc((size_t)(2 * halo), sizeof *h->plan);
  if (!h->plan)
    return porta_error(PORTA_ERROR_OUT_OF_MEMORY, "porta_halo2d_create", "halo", "calloc failed");
  h->d = *d;
  h->halo = halo;
  h->x_dim = x_dim;
  h->max_fields = max_fields;
  h->exec = exec;
  return PORTA_SUCCESS;
}

void porta_halo2d_destroy(porta_halo2d *h) {
  if (h->plan)
    for (int i = 0; i < 2 * h->halo; ++i) porta_exchange_destroy(h->plan[i]);
  porta_exchange_destroy(h->faces);
  free(h->plan);
  memset(h, 0, sizeof *h);
}

/** Append the element offsets of the box [lo0, hi0) x [lo1, hi1) (view indices), in
 *  lexicographic order (index 0 outer): both ends of a message enumerate their boxes, which
 *  differ by a shift along the exchanged dimension, in the same order. */
static int64_t box_offsets(int64_t *out, const int64_t *stride, int64_t lo0, int64_t hi0,
                           int64_t lo1, int64_t hi1) {
  int64_t n = 0;
  for (int64_t i0 = lo0; i0 < hi0; ++i0)
    for (int64_t i1 = lo1; i1 < hi1; ++i1) out[n++] = i0 * stride[0] + i1 * stride[1];
  return n;
}

/** Append one face's boxes, `depth` layers from index sa (sent) and ra (received) along view
 *  dimension vd, spanning [b0, b0 + len) along the other; the values in each box. */
static int64_t face_boxes(const porta_halo2d *h, int vd, int64_t sa, int64_t ra, int64_t depth,
                          int64_t b0, int64_t len, int64_t *send, int64_t *recv) {
  if (vd == 0) {
    box_offsets(recv, h->stride, ra, ra + depth, b0, b0 + len);
    return box_offsets(send, h->stride, sa, sa + depth, b0, b0 + len);
  }
  box_offsets(recv, h->stride, b0, b0 + len, ra, ra + depth);
  return box_offsets(send, h->stride, b0, b0 + len, sa, sa + depth);
}

/** A plan of doubles over `nn` neighbours, each sending and receiving count[k] values. */
static int create_plan(porta_halo2d *h, const char *label, int nn, int *ranks, int64_t *count,
                       int64_t *send, int64_t *recv, int tag, porta_exchange **out) {
  porta_exchange_lists l;
  l.nneighbours = nn;
  l.ranks = ranks;
  l.send_count = count;
  l.send_index = send;
  l.recv_count = count;
  l.recv_index = recv;
  return porta_exchange_create(out, label, h->d.comm, &l, sizeof(double), h->max_fields, h->exec,
                               tag);
}

/** The plan of depth `depth` along `dim` (0: x, 1: y), or NULL when that dimension has no
 *  neighbour: one list entry per neighbour (low, then high side). A face sends the `depth`
 *  owned layers next to it and receives its `depth` ghost layers; along the other dimension
 *  the box spans the owned cells and `depth` ghost layers on each side. */
static int build_plan(porta_halo2d *h, int depth, int dim, porta_exchange **out) {
  *out = NULL;
  const int *nb = h->d.neighbour[dim];
  if (nb[PORTA_LOW] == MPI_PROC_NULL && nb[PORTA_HIGH] == MPI_PROC_NULL) return PORTA_SUCCESS;
  const int64_t H = h->halo, n = h->d.local[dim];
  const int64_t b0 = H - depth, len = h->d.local[1 - dim] + 2 * depth, per = depth * len;
  const int vd = dim == 0 ? h->x_dim : 1 - h->x_dim; /* view dimension along dim */
  int ranks[2];
  int64_t count[2];
  int64_t *index = (int64_t *)malloc((size_t)(4 * per) * sizeof(int64_t));
  if (!index)
    return porta_error(PORTA_ERROR_OUT_OF_MEMORY, "porta_halo2d_exchange", "halo", "malloc failed");
  int64_t *send = index, *recv = index + 2 * per, ns = 0; /* as many received as sent */
  int nn = 0;
  for (int s = 0; s < 2; ++s) {
    if (nb[s] == MPI_PROC_NULL) continue;
    const int64_t sa = s == PORTA_LOW ? H : H + n - depth; /* owned layers next to the face */
    const int64_t ra = s == PORTA_LOW ? H - depth : H + n; /* ghost layers */
    ns += face_boxes(h, vd, sa, ra, depth, b0, len, send + ns, recv + ns);
    ranks[nn] = nb[s];
    count[nn++] = per;
  }
  char label[32];
  snprintf(label, sizeof label, "halo_%c_depth%d", "xy"[dim], depth);
  const int rc =
      create_plan(h, label, nn, ranks, count, send, recv, APP_HALO_TAG(h, depth, dim), out);
  free(index);
  return rc;
}

/** The faces' plan (porta_halo2d.faces): each face's owned layer next to it to the neighbour
 *  there, into the ghost layer, along the owned cells only; x's neighbours, then y's. */
static int build_faces(porta_halo2d *h) {
  int ranks[4];
  int64_t count[4], total = 0;
  for (int dim = 0; dim < 2; ++dim) total += 2 * h->d.local[1 - dim];
  int64_t *index = (int64_t *)malloc((size_t)(2 * total + 1) * sizeof(int64_t));
  if (!index)
    return porta_error(PORTA_ERROR_OUT_OF_MEMORY, "porta_halo2d_prepare_queue", "halo",
                       "malloc failed");
  int64_t *send = index, *recv = index + total, ns = 0; /* as many received as sent */
  int nn = 0;
  const int64_t H = h->halo;
  for (int dim = 0; dim < 2; ++dim) {
    const int vd = dim == 0 ? h->x_dim : 1 - h->x_dim;
    const int64_t n = h->d.local[dim], len = h->d.local[1 - dim];
    for (int s = 0; s < 2; ++s) {
      const int nb = h->d.neighbour[dim][s];
      if (nb == MPI_PROC_NULL) continue;
      const int64_t sa = s == PORTA_LOW ? H : H + n - 1, ra = s == PORTA_LOW ? H - 1 : H + n;
      ns += face_boxes(h, vd, sa, ra, 1, H, len, send + ns, recv + ns);
      ranks[nn] = nb;
      count[nn++] = len;
    }
  }
  const int rc =
      nn > 0 ? create_plan(h, "halo_faces", nn, ranks, count, send, recv, h->tag + 20000, &h->faces)
             : PORTA_SUCCESS;
  free(index);
  return rc;
}

static int build_plans(porta_halo2d *h) {
  for (int depth = 1; depth <= h->halo; ++depth)
    for (int dim = 0; dim < 2; ++dim) {
      const int rc = build_plan(h, depth, dim, &h->plan[2 * (depth - 1) + dim]);
      if (rc != PORTA_SUCCESS) {
        for (int i = 0; i < 2 * h->halo; ++i) {
          porta_exchange_destroy(h->plan[i]);
          h->plan[i] = NULL;
        }
        return rc;
      }
    }
  h->built = 1;
  return PORTA_SUCCESS;
}

/** The fields have the halo's shape (rank 2, the local cells and ghost layers). */
static int check_shapes(const porta_halo2d *h, const char *op, const porta_view_f64 *fields,
                        int nfields) {
  for (int f = 0; f < nfields; ++f) {
    const porta_view_f64 *v = &fields[f];
    int64_t ex = h->d.local[0] + 2 * h->halo, ey = h->d.local[1] + 2 * h->halo;
    int64_t e0 = h->x_dim == 0 ? ex : ey, e1 = h->x_dim == 0 ? ey : ex;
    /* larger extents are padding after the high ghost layers (rows aligned by the caller) */
    if (v->m.rank != 2 || v->m.extent[0] < e0 || v->m.extent[1] < e1)
      return porta_error(PORTA_ERROR_INCOMPATIBLE, op, porta_label(*v),
                         "field is rank %d with extents %lld x %lld; expected rank 2, at least "
                         "%lld x %lld",
                         (int)v->m.rank, (long long)v->m.extent[0], (long long)v->m.extent[1],
                         (long long)e0, (long long)e1);
  }
  return PORTA_SUCCESS;
}

/** The field has the strides the plans are (or will be) built for. */
static int check_strides(const porta_halo2d *h, const char *op, const porta_view_meta *m) {
  if (m->stride[0] != h->stride[0] || m->stride[1] != h->stride[1])
    return porta_error(PORTA_ERROR_INCOMPATIBLE, op, m->label,
                       "field has strides %lld x %lld; the halo's exchange plans were built for "
                       "%lld x %lld (all fields of one halo need the same layout)",
                       (long long)m->stride[0], (long long)m->stride[1], (long long)h->stride[0],
                       (long long)h->stride[1]);
  return PORTA_SUCCESS;
}

int porta_halo2d_prepare(porta_halo2d *h, const porta_view_f64 *field) {
  PORTA_CHECK(check_shapes(h, "porta_halo2d_prepare", field, 1));
  if (h->built) return check_strides(h, "porta_halo2d_prepare", &field->m);
  h->stride[0] = field->m.stride[0];
  h->stride[1] = field->m.stride[1];
  return build_plans(h);
}

/** The checks of an exchange of `fields` (the plans built at the first), and the fields as
 *  the plans take them. */
static int begin(porta_halo2d *h, const char *op, const porta_view_f64 *fields, int nfields,
                 int depth, porta_view *views) {
  if (depth < 1 || depth > h->halo)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, "halo",
                       "depth %d outside 1..%d (the fields' ghost layers)", depth, h->halo);
  if (nfields < 0 || nfields > h->max_fields)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, "halo",
                       "%d fields, buffers were sized for %d", nfields, h->max_fields);
  PORTA_CHECK(check_shapes(h, op, fields, nfields));
  for (int dim = 0; dim < 2; ++dim) {
    /* the smallest share along dim is global / dims: every rank must be able to send depth */
    if (h->d.dims[dim] > 1 && h->d.global[dim] / h->d.dims[dim] < depth)
      return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, "halo",
                         "depth %d is more than the %lld cells some rank owns along %c", depth,
                         (long long)(h->d.global[dim] / h->d.dims[dim]), "xy"[dim]);
  }
  if (nfields == 0) return PORTA_SUCCESS;

  /* The plans' offsets hold for fields of the strides they were built for. */
  if (!h->built) {
    h->stride[0] = fields[0].m.stride[0];
    h->stride[1] = fields[0].m.stride[1];
  }
  for (int f = 0; f < nfields; ++f) {
    PORTA_CHECK(check_strides(h, op, &fields[f].m));
    views[f] = PORTA_VIEW_ERASE(fields[f]);
  }
  if (!h->built) PORTA_CHECK(build_plans(h));
  return PORTA_SUCCESS;
}

int porta_halo2d_exchange(porta_halo2d *h, const porta_view_f64 *fields, int nfields, int depth) {
  porta_view views[PORTA_EXCHANGE_MAX_FIELDS];
  PORTA_CHECK(begin(h, "porta_halo2d_exchange", fields, nfields, depth, views));
  if (nfields == 0) return PORTA_SUCCESS;
  /* x, then y: the y plan's boxes include the ghost columns the x plan fills (corners) */
  for (int dim = 0; dim < 2; ++dim) {
    porta_exchange *x = h->plan[2 * (depth - 1) + dim];
    if (!x) continue;
    int64_t m0, b0, m1, b1;
    porta_exchange_stats(x, &m0, &b0);
    PORTA_CHECK(porta_exchange_run(x, views, nfields));
    porta_exchange_stats(x, &m1, &b1);
    h->messages += m1 - m0;
    h->bytes += b1 - b0;
  }
  return PORTA_SUCCESS;
}

int porta_halo2d_prepare_queue(porta_halo2d *h, porta_device_comm *dc,
                               const porta_view_f64 *field) {
  PORTA_CHECK(porta_halo2d_prepare(h, field));
  for (int i = 0; i < 2 * h->halo; ++i)
    if (h->plan[i]) PORTA_CHECK(porta_exchange_prepare_queue(h->plan[i], dc));
  if (!h->faces) PORTA_CHECK(build_faces(h));
  return h->faces ? porta_exchange_prepare_queue(h->faces, dc) : PORTA_SUCCESS;
}

int porta_halo2d_queue(porta_halo2d *h, porta_device_comm *dc, porta_exec exec,
                       const porta_view_f64 *fields, int nfields, int depth) {
  porta_view views[PORTA_EXCHANGE_MAX_FIELDS];
  PORTA_CHECK(begin(h, "porta_halo2d_queue", fields, nfields, depth, views));
  if (nfields == 0) return PORTA_SUCCESS;
  /* x, then y, in the queue's order: the y pack reads the ghost columns the x unpack wrote */
  for (int dim = 0; dim < 2; ++dim) {
    porta_exchange *x = h->plan[2 * (depth - 1) + dim];
    if (x) PORTA_CHECK(porta_exchange_queue(x, dc, exec, views, nfields));
  }
  return PORTA_SUCCESS;
}

int porta_halo2d_queue_faces(porta_halo2d *h, porta_device_comm *dc, porta_exec exec,
                             const porta_view_f64 *fields, int nfields) {
  porta_view views[PORTA_EXCHANGE_MAX_FIELDS];
  PORTA_CHECK(begin(h, "porta_halo2d_queue_faces", fields, nfields, 1, views));
  if (nfields == 0 || !h->faces) {
    /* no neighbour at all, or not prepared: the latter only where some plan exists */
    for (int i = 0; i < 2 * h->halo; ++i)
      if (h->plan[i])
        return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "porta_halo2d_queue_faces", "halo",
                           "the faces' plan is not prepared (porta_halo2d_prepare_queue)");
    return PORTA_SUCCESS;
  }
  return porta_exchange_queue(h->faces, dc, exec, views, nfields);
}
