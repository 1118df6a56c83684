/** @file app_halo.c
 *  Halo exchange for 2D views (see app_halo.h). */
#include "app_halo.h"

#include <mpi.h>
#include <string.h>

/* The pack/unpack kernels live in app_halo_kernels.c (no MPI there, so the kernel file also
 * compiles as plain C++17 / CUDA without the MPI headers). */
#include "app_halo_kernels.h"

int app_halo2d_create(app_halo2d *h, const app_decomp *d, int halo, int x_dim, int max_fields,
                      porta_exec exec) {
  memset(h, 0, sizeof *h);
  if (d->ndims != 2 || halo < 1 || (x_dim != 0 && x_dim != 1) || max_fields < 1)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "app_halo2d_create", "halo",
                       "needs a 2D decomposition, halo >= 1 (got %d), x_dim 0 or 1 (got %d) and "
                       "max_fields >= 1 (got %d)",
                       halo, x_dim, max_fields);
  h->d = *d;
  h->halo = halo;
  h->x_dim = x_dim;
  h->max_fields = max_fields;
  h->exec = exec;
  /* Hook: a CUDA-aware MPI (MPIX_Query_cuda_support()) could take the exec space's own
   * buffers on the GPU as well. */
  porta_memory_space space = porta_exec_memory_space(exec);
  if (!porta_space_accessible(PORTA_BACKEND_SERIAL, space)) space = PORTA_CUDA_HOST_PINNED_SPACE;
  if (!porta_space_accessible(PORTA_BACKEND_SERIAL, space) ||
      !porta_space_accessible(exec.backend, space))
    return porta_error(PORTA_ERROR_UNSUPPORTED, "app_halo2d_create", "halo",
                       "no memory space both the %s back end and MPI can access",
                       porta_backend_name(exec.backend));
  porta_view_options opt;
  opt.space = space;
  opt.layout = PORTA_LAYOUT_DEFAULT;
  opt.flags = 0;
  opt.stride = NULL;
  static const char *names[2][2][2] = {
      {{"halo_send_xlo", "halo_send_xhi"}, {"halo_send_ylo", "halo_send_yhi"}},
      {{"halo_recv_xlo", "halo_recv_xhi"}, {"halo_recv_ylo", "halo_recv_yhi"}}};
  for (int dim = 0; dim < 2; ++dim) {
    int64_t other = d->local[1 - dim] + 2 * halo;
    h->cap[dim] = (int64_t)max_fields * halo * other;
    for (int s = 0; s < 2; ++s) {
      int64_t n = h->cap[dim];
      PORTA_CHECK(porta_view_f64_create(&h->send[dim][s], names[0][dim][s], 1, &n, &opt));
      for (int r = 0; r < 2; ++r)
        PORTA_CHECK(porta_view_f64_create(&h->recv[r][dim][s], names[1][dim][s], 1, &n, &opt));
    }
  }
  return PORTA_SUCCESS;
}

void app_halo2d_destroy(app_halo2d *h) {
  for (int dim = 0; dim < 2; ++dim)
    for (int s = 0; s < 2; ++s) {
      porta_view_f64_release(&h->send[dim][s]);
      porta_view_f64_release(&h->recv[0][dim][s]);
      porta_view_f64_release(&h->recv[1][dim][s]);
    }
  memset(h, 0, sizeof *h);
}

/** Pack (unpack = 0) or unpack (1) every field's box for one face. */
static int halo_copy(app_halo2d *h, const porta_view_f64 *fields, int nfields, int dim, int side,
                     int depth, int unpack) {
  const int64_t H = h->halo, n = h->d.local[dim];
  int64_t a0;
  if (!unpack)
    a0 = side == APP_LOW ? H : H + n - depth; /* owned layers next to the face */
  else
    a0 = side == APP_LOW ? H - depth : H + n; /* ghost layers */
  const int64_t b0 = H - depth, len = h->d.local[1 - dim] + 2 * depth;
  app_halo_pack_args p;
  p.buf = unpack ? h->recv[h->exchanges % 2][dim][side] : h->send[dim][side];
  p.a0 = a0;
  p.b0 = b0;
  p.len = len;
  /* view dimension of the exchanged direction: x is x_dim, y the other */
  p.swap = (dim == 0 ? h->x_dim : 1 - h->x_dim) == 1;
  for (int f = 0; f < nfields; ++f) {
    p.v = fields[f];
    p.off = (int64_t)f * depth * len;
    porta_mdrange_policy pol = porta_mdrange2(a0, a0 + depth, b0, b0 + len);
    PORTA_CHECK(porta_parallel_for_md(unpack ? "app_halo_unpack" : "app_halo_pack", h->exec, pol,
                                      unpack ? &app_halo_unpack : &app_halo_pack, &p));
  }
  return PORTA_SUCCESS;
}

int app_halo2d_exchange(app_halo2d *h, const porta_view_f64 *fields, int nfields, int depth) {
  const char *op = "app_halo2d_exchange";
  if (depth < 1 || depth > h->halo)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, "halo",
                       "depth %d outside 1..%d (the fields' ghost layers)", depth, h->halo);
  if (nfields < 0 || nfields > h->max_fields)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, "halo",
                       "%d fields, buffers were sized for %d", nfields, h->max_fields);
  for (int f = 0; f < nfields; ++f) {
    const porta_view_f64 *v = &fields[f];
    int64_t ex = h->d.local[0] + 2 * h->halo, ey = h->d.local[1] + 2 * h->halo;
    int64_t e0 = h->x_dim == 0 ? ex : ey, e1 = h->x_dim == 0 ? ey : ex;
    if (v->m.rank != 2 || v->m.extent[0] != e0 || v->m.extent[1] != e1)
      return porta_error(PORTA_ERROR_INCOMPATIBLE, op, porta_label(*v),
                         "field is rank %d with extents %lld x %lld; expected rank 2, %lld x %lld",
                         (int)v->m.rank, (long long)v->m.extent[0], (long long)v->m.extent[1],
                         (long long)e0, (long long)e1);
  }
  for (int dim = 0; dim < 2; ++dim) {
    /* the smallest share along dim is global / dims: every rank must be able to send depth */
    if (h->d.dims[dim] > 1 && h->d.global[dim] / h->d.dims[dim] < depth)
      return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, "halo",
                         "depth %d is more than the %lld cells some rank owns along %c", depth,
                         (long long)(h->d.global[dim] / h->d.dims[dim]), "xy"[dim]);
  }
  if (nfields == 0) return PORTA_SUCCESS;

  for (int dim = 0; dim < 2; ++dim) {
    const int *nb = h->d.neighbour[dim];
    if (nb[0] == MPI_PROC_NULL && nb[1] == MPI_PROC_NULL) continue;
    const int64_t len = h->d.local[1 - dim] + 2 * depth;
    const int count = (int)((int64_t)nfields * depth * len);
    MPI_Request req[4];
    int nreq = 0;
    for (int s = 0; s < 2; ++s) {
      if (nb[s] == MPI_PROC_NULL) continue;
      /* a message travelling towards the low side has tag 2*dim, towards high 2*dim+1 */
      int rc = MPI_Irecv(h->recv[h->exchanges % 2][dim][s].data, count, MPI_DOUBLE, nb[s],
                         2 * dim + (1 - s), h->d.comm, &req[nreq++]);
      if (rc != MPI_SUCCESS)
        return porta_error(PORTA_ERROR_BACKEND, op, "halo", "MPI_Irecv failed (%d)", rc);
    }
    for (int s = 0; s < 2; ++s)
      if (nb[s] != MPI_PROC_NULL) PORTA_CHECK(halo_copy(h, fields, nfields, dim, s, depth, 0));
    PORTA_CHECK(porta_exec_fence(h->exec, "app_halo_pack"));
    for (int s = 0; s < 2; ++s) {
      if (nb[s] == MPI_PROC_NULL) continue;
      int rc = MPI_Isend(h->send[dim][s].data, count, MPI_DOUBLE, nb[s], 2 * dim + s, h->d.comm,
                         &req[nreq++]);
      if (rc != MPI_SUCCESS)
        return porta_error(PORTA_ERROR_BACKEND, op, "halo", "MPI_Isend failed (%d)", rc);
      h->messages += 1;
      h->bytes += (int64_t)count * (int64_t)sizeof(double);
    }
    int rc = MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
    if (rc != MPI_SUCCESS)
      return porta_error(PORTA_ERROR_BACKEND, op, "halo", "MPI_Waitall failed (%d)", rc);
    for (int s = 0; s < 2; ++s) {
      if (nb[s] == MPI_PROC_NULL) continue;
      PORTA_CHECK(halo_copy(h, fields, nfields, dim, s, depth, 1));
    }
  }
  ++h->exchanges;
  return PORTA_SUCCESS;
}
