/** @file bench_gpu_grid.c
 *  porta-bench-gpu: the 2D 5-point stencil and the team CSR SpMV against hand-written CUDA,
 *  and the neighbour-list gather in LayoutLeft against LayoutRight (bench_gpu.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench_gpu.h"
#include "bench_matrix.h"

#if defined(__CUDACC__)

/* ---- hand-written CUDA: 2D 5-point stencil, Left layout: element (i, j) at i + j * ld ---- */

static __global__ void hand_stencil_k(const double *in, double *out, int64_t m, int64_t ld) {
  const int64_t i = 1 + (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t j = 1 + (int64_t)blockIdx.y * blockDim.y + threadIdx.y;
  if (i < m - 1 && j < m - 1) {
    const int64_t o = i + j * ld;
    out[o] = 0.2 * (in[o] + in[o - 1] + in[o + 1] + in[o - ld] + in[o + ld]);
  }
}

/* ---- vector CSR SpMV: VL lanes of a warp per row ---- */

template <int VL>
static __global__ void hand_spmv_k(const int64_t *rowptr, const int32_t *col, const double *val,
                                   const double *x, double *y, int64_t nrows) {
  const int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t r = t / VL;
  const int lane = (int)(t % VL);
  double sum = 0.0;
  if (r < nrows) {
    const int64_t kb = rowptr[r], ke = rowptr[r + 1];
    for (int64_t k = kb + lane; k < ke; k += VL) sum += val[k] * x[col[k]];
  }
  for (int s = VL / 2; s > 0; s >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, s, VL);
  if (r < nrows && lane == 0) y[r] = sum;
}

/* ---- initialisation and checkers (never timed) ---- */

static __global__ void stencil_init_k(double *in, int64_t m, int64_t ld) {
  const int64_t step = (int64_t)gridDim.x * blockDim.x;
  for (int64_t q = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; q < m * m; q += step) {
    const int64_t i = q % m, j = q / m;
    in[i + j * ld] = bench_stencil_in(i, j);
  }
}
static __global__ void neigh_x_init_k(double *x, int64_t n) {
  const int64_t step = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step)
    x[i] = 1.0 + (double)((i * 7919) % 1013) / 1024.0;
}
/** Count the elements where p and ref differ by more than tol. */
static __global__ void count_diff_f64_k(const double *p, const double *ref, int64_t n, double tol,
                                        unsigned long long *bad) {
  unsigned long long mine = 0;
  const int64_t step = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step)
    mine += !(fabs(p[i] - ref[i]) <= tol);
  if (mine) atomicAdd(bad, mine);
}
/** Stencil check of the interior against the formula, in the same order of additions. */
static __global__ void stencil_check_k(const double *in, const double *out, int64_t m, int64_t ld,
                                       unsigned long long *bad) {
  unsigned long long mine = 0;
  const int64_t step = (int64_t)gridDim.x * blockDim.x, w = m - 2;
  for (int64_t q = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; q < w * w; q += step) {
    const int64_t o = 1 + q % w + (1 + q / w) * ld;
    const double ref = 0.2 * (in[o] + in[o - 1] + in[o + 1] + in[o - ld] + in[o + ld]);
    mine += !(fabs(out[o] - ref) <= 1e-14 * fabs(ref));
  }
  if (mine) atomicAdd(bad, mine);
}
/** SpMV reference: one thread per row, nonzeros in order. */
static __global__ void spmv_ref_k(const int64_t *rowptr, const int32_t *col, const double *val,
                                  const double *x, double *y, int64_t nrows) {
  const int64_t step = (int64_t)gridDim.x * blockDim.x;
  for (int64_t r = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; r < nrows; r += step) {
    double sum = 0.0;
    for (int64_t k = rowptr[r]; k < rowptr[r + 1]; ++k) sum += val[k] * x[col[k]];
    y[r] = sum;
  }
}
/** Neighbour-sum reference from the Left neighbour table (same order of additions). */
static __global__ void neigh_ref_k(const int32_t *nb, int64_t ld, const double *x, double *out,
                                   int64_t n) {
  const int64_t step = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) {
    double sum = 0.0;
    for (int64_t k = 0; k < NEIGHBOURS; ++k) sum += x[nb[i + k * ld]];
    out[i] = sum;
  }
}

/* ---- 2D 5-point stencil ------------------------------------------------- */

typedef struct stencil_ctx {
  bench *B;
  stencil_args s;
  int64_t m, ld;
} stencil_ctx;

static double stencil_side(void *vctx, int porta, int rep) {
  (void)rep;
  stencil_ctx *c = (stencil_ctx *)vctx;
  bench *B = c->B;
  const int64_t m = c->m;
  const porta_mdrange_policy box = porta_mdrange2(1, m - 1, 1, m - 1);
  const dim3 blk(32, 8, 1);
  const dim3 grid(blocks_for(m - 2, 32), blocks_for(m - 2, 8), 1);
  int rc = PORTA_SUCCESS;
  const double t0 = porta_wtime();
  for (int k = 0; k < STREAM_BATCH; ++k) {
    if (porta)
      rc |= PORTA_PARALLEL_FOR_LABELED("stencil", bk_stencil, B->ex, box, &c->s);
    else
      hand_stencil_k<<<grid, blk>>>(c->s.in.data, c->s.out.data, m, c->ld);
  }
  if (porta)
    rc |= porta_exec_fence(B->ex, "stencil");
  else
    CU(B, cudaStreamSynchronize(0));
  const double t = porta_wtime() - t0;
  CU_LAUNCHED(B);
  note_rc(B, rc);
  return t / STREAM_BATCH;
}

void bench_stencil(bench *B) {
  bench_row *rw = &B->rows[B_STENCIL];
  const int64_t m = B->stencil_side + 2, ext[2] = {m, m};
  const porta_view_options o = dev_options(PORTA_LAYOUT_DEFAULT);
  stencil_ctx c;
  memset(&c, 0, sizeof c);
  c.B = B;
  note_rc(B, porta_view_f64_create(&c.s.in, "st_in", 2, ext, &o));
  note_rc(B, porta_view_f64_create(&c.s.out, "st_out", 2, ext, &o));
  if (B->porta_rc) return;
  c.m = m;
  c.ld = porta_stride(c.s.in, 1);
  if (c.s.in.m.layout != PORTA_LAYOUT_LEFT || porta_stride(c.s.in, 0) != 1 ||
      porta_stride(c.s.out, 1) != c.ld) {
    fprintf(stderr, "porta-bench-gpu: the device stencil views are not LayoutLeft\n");
    rw->ran = 1;
    return;
  }
  stencil_init_k<<<check_grid(B), HAND_BLOCK>>>(c.s.in.data, m, c.ld);
  CU_LAUNCHED(B);
  CU(B, cudaDeviceSynchronize());
  measure(B, rw, stencil_side, &c);
  unsigned long long bad = 0;
  for (int side = 0; side < 2; ++side) {
    CU(B, cudaMemset(c.s.out.data, 0xff, (size_t)(m * c.ld) * sizeof(double)));
    stencil_side(&c, side == 0, -1);
    bad_reset(B);
    stencil_check_k<<<check_grid(B), HAND_BLOCK>>>(c.s.in.data, c.s.out.data, m, c.ld, B->bad);
    const unsigned long long b = bad_read(B);
    if (b)
      fprintf(stderr, "porta-bench-gpu: stencil (%s): %llu wrong points\n",
              side == 0 ? "porta" : "hand", b);
    bad += b;
  }
  rw->check_ok = !bad && !B->porta_rc && !B->cuda_rc;
  rw->bytes = 2.0 * sizeof(double) * (double)(m - 2) * (double)(m - 2);
  rw->ref_label = "ref = hand 2D kernel, 32x8 blocks, one point per thread";
  bench_crit_ratio(rw, 0.95, "hand");
  porta_view_f64_release(&c.s.in);
  porta_view_f64_release(&c.s.out);
}

/* ---- team-based CSR SpMV ------------------------------------------------ */

typedef struct spmv_ctx {
  bench *B;
  spmv_args s;
  int vl;
  porta_team_policy policy;
} spmv_ctx;

static double spmv_side(void *vctx, int porta, int rep) {
  (void)rep;
  spmv_ctx *c = (spmv_ctx *)vctx;
  bench *B = c->B;
  const int64_t nrows = c->s.nrows;
  const unsigned g = blocks_for(nrows * c->vl, HAND_BLOCK);
  int rc = PORTA_SUCCESS;
  const double t0 = porta_wtime();
  for (int k = 0; k < STREAM_BATCH; ++k) {
    if (porta) {
      rc |= PORTA_PARALLEL_FOR_LABELED("spmv", bk_spmv, B->ex, c->policy, &c->s);
    } else if (c->vl == 4) {
      hand_spmv_k<4><<<g, HAND_BLOCK>>>(c->s.rowptr.data, c->s.col.data, c->s.val.data, c->s.x.data,
                                        c->s.y.data, nrows);
    } else {
      hand_spmv_k<8><<<g, HAND_BLOCK>>>(c->s.rowptr.data, c->s.col.data, c->s.val.data, c->s.x.data,
                                        c->s.y.data, nrows);
    }
  }
  if (porta)
    rc |= porta_exec_fence(B->ex, "spmv");
  else
    CU(B, cudaStreamSynchronize(0));
  const double t = porta_wtime() - t0;
  CU_LAUNCHED(B);
  note_rc(B, rc);
  return t / STREAM_BATCH;
}

/** The Laplacian built on the host (bench_laplace5) and copied into c's device views; 1 when
 *  the host views could not be made. */
static int spmv_upload(bench *B, spmv_ctx *c, int64_t g) {
  const int64_t nrows = g * g, nnz = bench_laplace5_nnz(g), nrp = nrows + 1;
  const porta_view_options ho = host_options();
  porta_view_i64 hrp;
  porta_view_i32 hcol;
  porta_view_f64 hval, hx;
  note_rc(B, porta_view_i64_create(&hrp, "h_rowptr", 1, &nrp, &ho));
  note_rc(B, porta_view_i32_create(&hcol, "h_col", 1, &nnz, &ho));
  note_rc(B, porta_view_f64_create(&hval, "h_val", 1, &nnz, &ho));
  note_rc(B, porta_view_f64_create(&hx, "h_x", 1, &nrows, &ho));
  if (B->porta_rc) return 1;
  bench_laplace5(g, hrp.data, hcol.data, hval.data, hx.data);
  note_rc(B, porta_deep_copy(c->s.rowptr, hrp));
  note_rc(B, porta_deep_copy(c->s.col, hcol));
  note_rc(B, porta_deep_copy(c->s.val, hval));
  note_rc(B, porta_deep_copy(c->s.x, hx));
  porta_view_i64_release(&hrp);
  porta_view_i32_release(&hcol);
  porta_view_f64_release(&hval);
  porta_view_f64_release(&hx);
  return 0;
}

/** The row of `vl` lanes a row: measured, then each side checked against yref. */
static void spmv_row(bench *B, spmv_ctx *c, int rid, int vl, const porta_view_f64 *yref) {
  const int64_t nrows = c->s.nrows;
  bench_row *rw = &B->rows[rid];
  c->vl = vl;
  const int ts = HAND_BLOCK / c->vl; /* 256 threads a team, as the hand kernel's blocks */
  c->s.rows_per_team = ts;
  c->policy = porta_team_policy_make((nrows + ts - 1) / ts, ts, c->vl);
  measure(B, rw, spmv_side, c);
  unsigned long long bad = 0;
  for (int side = 0; side < 2; ++side) {
    CU(B, cudaMemset(c->s.y.data, 0xff, (size_t)nrows * sizeof(double)));
    spmv_side(c, side == 0, -1);
    bad_reset(B);
    count_diff_f64_k<<<check_grid(B), HAND_BLOCK>>>(c->s.y.data, yref->data, nrows, 1e-12, B->bad);
    const unsigned long long b = bad_read(B);
    if (b)
      fprintf(stderr, "porta-bench-gpu: spmv vl %d (%s): %llu wrong rows\n", c->vl,
              side == 0 ? "porta" : "hand", b);
    bad += b;
  }
  rw->check_ok = !bad && !B->porta_rc && !B->cuda_rc;
  rw->bytes = bench_spmv_bytes(nrows, bench_laplace5_nnz(B->spmv_side));
  snprintf(B->notes[rid], sizeof B->notes[rid],
           "Porta: team of %d rows (team_size %d, vector_length %d); ref = hand vector CSR, "
           "%d lanes a row",
           ts, ts, c->vl, c->vl);
  rw->ref_label = B->notes[rid];
  bench_crit_ratio(rw, 0.90, "hand");
}

void bench_spmv(bench *B) {
  const int64_t g = B->spmv_side, nrows = g * g, nnz = bench_laplace5_nnz(g);
  const porta_view_options o = dev_options(PORTA_LAYOUT_DEFAULT);
  spmv_ctx c;
  memset(&c, 0, sizeof c);
  c.B = B;
  porta_view_f64 yref;
  const int64_t nrp = nrows + 1;
  note_rc(B, porta_view_i64_create(&c.s.rowptr, "rowptr", 1, &nrp, &o));
  note_rc(B, porta_view_i32_create(&c.s.col, "col", 1, &nnz, &o));
  note_rc(B, porta_view_f64_create(&c.s.val, "val", 1, &nnz, &o));
  note_rc(B, porta_view_f64_create(&c.s.x, "x", 1, &nrows, &o));
  note_rc(B, porta_view_f64_create(&c.s.y, "y", 1, &nrows, &o));
  note_rc(B, porta_view_f64_create(&yref, "yref", 1, &nrows, &o));
  if (B->porta_rc || spmv_upload(B, &c, g)) return;
  spmv_ref_k<<<check_grid(B), HAND_BLOCK>>>(c.s.rowptr.data, c.s.col.data, c.s.val.data, c.s.x.data,
                                            yref.data, nrows);
  CU_LAUNCHED(B);
  CU(B, cudaDeviceSynchronize());
  c.s.nrows = nrows;
  for (int v = 0; v < 2 && !B->porta_rc && !B->cuda_rc; ++v) {
    const int rid = v == 0 ? B_SPMV4 : B_SPMV8;
    if (B->only[rid]) spmv_row(B, &c, rid, v == 0 ? 4 : 8, &yref);
  }
  porta_view_i64_release(&c.s.rowptr);
  porta_view_i32_release(&c.s.col);
  porta_view_f64_release(&c.s.val);
  porta_view_f64_release(&c.s.x);
  porta_view_f64_release(&c.s.y);
  porta_view_f64_release(&yref);
}

/* ---- layout: neighbour-list gather -------------------------------------- */

typedef struct layout_ctx {
  bench *B;
  neigh_args left, right;
} layout_ctx;

static double layout_side(void *vctx, int porta, int rep) {
  (void)rep;
  layout_ctx *c = (layout_ctx *)vctx;
  bench *B = c->B;
  const porta_range_policy rg = porta_range(0, c->left.natoms);
  int rc = PORTA_SUCCESS;
  const double t0 = porta_wtime();
  for (int k = 0; k < STREAM_BATCH; ++k) {
    if (porta)
      rc |= PORTA_PARALLEL_FOR_LABELED("neigh_left", bk_neigh, B->ex, rg, &c->left);
    else
      rc |= PORTA_PARALLEL_FOR_LABELED("neigh_right", bk_neigh_right, B->ex, rg, &c->right);
  }
  rc |= porta_exec_fence(B->ex, "neigh");
  const double t = porta_wtime() - t0;
  note_rc(B, rc);
  return t / STREAM_BATCH;
}

void bench_layout(bench *B) {
  bench_row *rw = &B->rows[B_LAYOUT];
  const int64_t n = B->atoms, ext[2] = {n, NEIGHBOURS};
  const porta_view_options ol = dev_options(PORTA_LAYOUT_DEFAULT),
                           orr = dev_options(PORTA_LAYOUT_RIGHT);
  layout_ctx c;
  memset(&c, 0, sizeof c);
  c.B = B;
  porta_view_f64 ref;
  note_rc(B, porta_view_i32_create(&c.left.nb, "neigh_left", 2, ext, &ol));
  note_rc(B, porta_view_i32_create(&c.right.nb, "neigh_right", 2, ext, &orr));
  note_rc(B, porta_view_f64_create(&c.left.x, "neigh_x", 1, &n, &ol));
  note_rc(B, porta_view_f64_create(&c.left.out, "neigh_out", 1, &n, &ol));
  note_rc(B, porta_view_f64_create(&ref, "neigh_ref", 1, &n, &ol));
  if (B->porta_rc) return;
  if (c.left.nb.m.layout != PORTA_LAYOUT_LEFT || c.right.nb.m.layout != PORTA_LAYOUT_RIGHT) {
    fprintf(stderr, "porta-bench-gpu: neighbour views have the wrong layouts\n");
    rw->ran = 1;
    return;
  }
  c.left.natoms = n;
  const porta_view_i32 rnb = c.right.nb;
  c.right = c.left; /* the same x and out, the Right neighbour table */
  c.right.nb = rnb;
  neigh_x_init_k<<<check_grid(B), HAND_BLOCK>>>(c.left.x.data, n);
  CU_LAUNCHED(B);
  const porta_range_policy rg = porta_range(0, n);
  note_rc(B, PORTA_PARALLEL_FOR_LABELED("neigh_fill", bk_neigh_fill, B->ex, rg, &c.left));
  note_rc(B,
          PORTA_PARALLEL_FOR_LABELED("neigh_fill_right", bk_neigh_fill_right, B->ex, rg, &c.right));
  note_rc(B, porta_exec_fence(B->ex, "neigh_fill"));
  neigh_ref_k<<<check_grid(B), HAND_BLOCK>>>(c.left.nb.data, porta_stride(c.left.nb, 1),
                                             c.left.x.data, ref.data, n);
  CU_LAUNCHED(B);
  CU(B, cudaDeviceSynchronize());
  measure(B, rw, layout_side, &c);
  unsigned long long bad = 0;
  for (int side = 0; side < 2; ++side) {
    CU(B, cudaMemset(c.left.out.data, 0xff, (size_t)n * sizeof(double)));
    layout_side(&c, side == 0, -1);
    bad_reset(B);
    count_diff_f64_k<<<check_grid(B), HAND_BLOCK>>>(c.left.out.data, ref.data, n, 0.0, B->bad);
    const unsigned long long b = bad_read(B);
    if (b)
      fprintf(stderr, "porta-bench-gpu: neighbour sum (%s layout): %llu wrong atoms\n",
              side == 0 ? "left" : "right", b);
    bad += b;
  }
  rw->check_ok = !bad && !B->porta_rc && !B->cuda_rc;
  rw->bytes = (double)n * (NEIGHBOURS * sizeof(int32_t) + 2.0 * sizeof(double));
  snprintf(B->notes[B_LAYOUT], sizeof B->notes[B_LAYOUT],
           "porta = neigh(i,k) in the device default LayoutLeft (PORTA_AT2), ref = the same "
           "Porta loop on LayoutRight (PORTA_R2); %lld atoms x %d neighbours",
           (long long)n, NEIGHBOURS);
  rw->ref_label = B->notes[B_LAYOUT];
  snprintf(rw->accept, sizeof rw->accept, "(no criterion) Right/Left time %.2fx", rw->ratio);
  porta_view_i32_release(&c.left.nb);
  porta_view_i32_release(&c.right.nb);
  porta_view_f64_release(&c.left.x);
  porta_view_f64_release(&c.left.out);
  porta_view_f64_release(&ref);
}

#endif /* __CUDACC__ */
