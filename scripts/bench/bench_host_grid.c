/** @file bench_host_grid.c
 *  porta-bench: the 2D 5-point stencil (a rank-2 MDRANGE) and the team CSR SpMV of the 5-point
 *  Laplacian, each against a hand-written OpenMP loop (bench_host.h). */
#include <math.h>
#include <stdio.h>

#include "bench_host.h"
#include "bench_matrix.h"

static void hand_stencil(const double *in, double *out, int64_t m, int nt) {
  (void)nt; /* unused without OpenMP */
  PORTA_OMP(parallel for num_threads(nt))
  for (int64_t i = 1; i < m - 1; ++i)
    for (int64_t j = 1; j < m - 1; ++j)
      out[i * m + j] = 0.2 * (in[i * m + j] + in[(i - 1) * m + j] + in[(i + 1) * m + j] +
                              in[i * m + j + 1] + in[i * m + j - 1]);
}
static void hand_spmv(const int64_t *rowptr, const int32_t *col, const double *val, const double *x,
                      double *y, int64_t nrows, int nt) {
  (void)nt; /* unused without OpenMP */
  PORTA_OMP(parallel for num_threads(nt))
  for (int64_t r = 0; r < nrows; ++r) {
    double sum = 0.0;
    for (int64_t k = rowptr[r]; k < rowptr[r + 1]; ++k) sum += val[k] * x[col[k]];
    y[r] = sum;
  }
}

/** The output a side writes in rep r: Porta's set, or the other one. */
static int out_set(int porta, int r) { return porta ? bench_porta_set(r) : !bench_porta_set(r); }

/* ---- 2D 5-point stencil ------------------------------------------------- */

typedef struct stencil_ctx {
  bench *B;
  porta_view_f64 in, out[2];
  int64_t m; /**< side with the halo */
  porta_mdrange_policy box;
  int rc;
} stencil_ctx;

static double stencil_side(void *ctx, int porta, int r) {
  stencil_ctx *c = (stencil_ctx *)ctx;
  const int o = out_set(porta, r);
  const double t0 = porta_wtime();
  if (porta) {
    stencil_args sa;
    sa.in = c->in;
    sa.out = c->out[o];
    c->rc |= PORTA_PARALLEL_FOR_LABELED("stencil", bk_stencil, c->B->ex, c->box, &sa);
    c->rc |= porta_exec_fence(c->B->ex, "stencil");
  } else {
    hand_stencil(c->in.data, c->out[o].data, c->m, c->B->nt);
  }
  return porta_wtime() - t0;
}

/** The last sweep of each side against a serial sweep, interior only; the wrong points. */
static int64_t stencil_check(const stencil_ctx *c, int reps) {
  const int64_t m = c->m;
  const double *in = c->in.data, *po = c->out[bench_porta_set(reps - 1)].data,
               *ho = c->out[!bench_porta_set(reps - 1)].data;
  int64_t bad = 0;
  for (int64_t i = 1; i < m - 1; ++i)
    for (int64_t j = 1; j < m - 1; ++j) {
      const double ref = 0.2 * (in[i * m + j] + in[(i - 1) * m + j] + in[(i + 1) * m + j] +
                                in[i * m + j + 1] + in[i * m + j - 1]);
      const double p = po[i * m + j], h = ho[i * m + j];
      if (fabs(p - ref) > 1e-14 * fabs(ref) || fabs(h - ref) > 1e-14 * fabs(ref))
        if (bad++ == 0)
          fprintf(stderr, "porta-bench: stencil (%lld,%lld): porta %.17g hand %.17g ref %.17g\n",
                  (long long)i, (long long)j, p, h, ref);
    }
  return bad;
}

void bench_stencil_run(bench *B) {
  bench_row *rw = &B->rows[B_STENCIL];
  stencil_ctx c;
  c.B = B;
  c.m = B->stencil_side + 2; /* with the halo */
  c.rc = PORTA_SUCCESS;
  const int64_t m = c.m;
  note_rc(B, porta_view_f64_create2(&c.in, "st_in", m, m));
  note_rc(B, porta_view_f64_create2(&c.out[0], "st_out0", m, m));
  note_rc(B, porta_view_f64_create2(&c.out[1], "st_out1", m, m));
  if (B->porta_rc) return;
  if (porta_stride(c.in, 0) != m || porta_stride(c.in, 1) != 1) {
    fprintf(stderr, "porta-bench: stencil view is not row-major with stride %lld\n", (long long)m);
    rw->ran = 1;
    return;
  }
  double *in = c.in.data;
  PORTA_OMP(parallel for num_threads(B->nt))
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < m; ++j) in[i * m + j] = bench_stencil_in(i, j);
  c.box = porta_mdrange2(1, m - 1, 1, m - 1);
  bench_abba(B->reps, bench_porta_first(-1), stencil_side, &c, B->tp, B->th);
  note_rc(B, c.rc);
  bench_row_stats(rw, B->tp, B->th, B->reps);
  const int64_t bad = stencil_check(&c, B->reps);
  rw->check_ok = B->porta_rc == 0 && bad == 0;
  rw->bytes = 2.0 * sizeof(double) * (double)B->stencil_side * (double)B->stencil_side;
  bench_crit_ratio(rw, 0.97, "hand");
  porta_view_f64_release(&c.in);
  porta_view_f64_release(&c.out[0]);
  porta_view_f64_release(&c.out[1]);
}

/* ---- team-based CSR SpMV ------------------------------------------------ */

typedef struct spmv_ctx {
  bench *B;
  spmv_args s;
  porta_view_f64 y[2];
  porta_team_policy policy;
  int rc;
} spmv_ctx;

static double spmv_side(void *ctx, int porta, int r) {
  spmv_ctx *c = (spmv_ctx *)ctx;
  const int o = out_set(porta, r);
  const double t0 = porta_wtime();
  if (porta) {
    c->s.y = c->y[o];
    c->rc |= PORTA_PARALLEL_FOR_LABELED("spmv", bk_spmv, c->B->ex, c->policy, &c->s);
    c->rc |= porta_exec_fence(c->B->ex, "spmv");
  } else {
    hand_spmv(c->s.rowptr.data, c->s.col.data, c->s.val.data, c->s.x.data, c->y[o].data, c->s.nrows,
              c->B->nt);
  }
  return porta_wtime() - t0;
}

/** The last product of each side against a serial one; the wrong rows. */
static int64_t spmv_check(const spmv_ctx *c, int reps) {
  const int64_t *rp = c->s.rowptr.data;
  const int32_t *col = c->s.col.data;
  const double *val = c->s.val.data, *x = c->s.x.data;
  const double *py = c->y[bench_porta_set(reps - 1)].data,
               *hy = c->y[!bench_porta_set(reps - 1)].data;
  int64_t bad = 0;
  for (int64_t r = 0; r < c->s.nrows; ++r) {
    double ref = 0.0;
    for (int64_t q = rp[r]; q < rp[r + 1]; ++q) ref += val[q] * x[col[q]];
    const double p = py[r], h = hy[r], tol = 1e-13 * 12.0; /* |val| * |x| summed <= 16 */
    if (fabs(p - ref) > tol || fabs(h - ref) > tol)
      if (bad++ == 0)
        fprintf(stderr, "porta-bench: spmv row %lld: porta %.17g hand %.17g ref %.17g\n",
                (long long)r, p, h, ref);
  }
  return bad;
}

static void spmv_release(spmv_ctx *c) {
  porta_view_i64_release(&c->s.rowptr);
  porta_view_i32_release(&c->s.col);
  porta_view_f64_release(&c->s.val);
  porta_view_f64_release(&c->s.x);
  porta_view_f64_release(&c->y[0]);
  porta_view_f64_release(&c->y[1]);
}

void bench_spmv_run(bench *B) {
  bench_row *rw = &B->rows[B_SPMV];
  const int64_t g = B->spmv_side, nrows = g * g, nnz = bench_laplace5_nnz(g);
  spmv_ctx c;
  c.B = B;
  c.rc = PORTA_SUCCESS;
  note_rc(B, porta_view_i64_create1(&c.s.rowptr, "rowptr", nrows + 1));
  note_rc(B, porta_view_i32_create1(&c.s.col, "col", nnz));
  note_rc(B, porta_view_f64_create1(&c.s.val, "val", nnz));
  note_rc(B, porta_view_f64_create1(&c.s.x, "x", nrows));
  note_rc(B, porta_view_f64_create1(&c.y[0], "y0", nrows));
  note_rc(B, porta_view_f64_create1(&c.y[1], "y1", nrows));
  if (B->porta_rc) return;
  c.s.nrows = nrows;
  c.s.rows_per_team = SPMV_ROWS_PER_TEAM;
  const int64_t k = bench_laplace5(g, c.s.rowptr.data, c.s.col.data, c.s.val.data, c.s.x.data);
  if (k != nnz) {
    fprintf(stderr, "porta-bench: spmv built %lld nonzeros, expected %lld\n", (long long)k,
            (long long)nnz);
    rw->ran = 1;
    return;
  }
  c.policy = porta_team_policy_make((nrows + SPMV_ROWS_PER_TEAM - 1) / SPMV_ROWS_PER_TEAM,
                                    PORTA_AUTO, PORTA_AUTO);
  bench_abba(B->reps, bench_porta_first(-1), spmv_side, &c, B->tp, B->th);
  note_rc(B, c.rc);
  bench_row_stats(rw, B->tp, B->th, B->reps);
  const int64_t bad = spmv_check(&c, B->reps);
  rw->check_ok = B->porta_rc == 0 && bad == 0;
  rw->bytes = bench_spmv_bytes(nrows, nnz);
  bench_crit_ratio(rw, 0.95, "hand");
  spmv_release(&c);
}
