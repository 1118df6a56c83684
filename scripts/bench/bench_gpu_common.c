/** @file bench_gpu_common.c
 *  porta-bench-gpu's helpers that every benchmark uses (bench_gpu.h): return codes, CUDA
 *  checks, the timed measurement, the checkers' counter and the views' options. The topic
 *  files (bench_gpu_stream.c, bench_gpu_reduce.c, bench_gpu_grid.c) and the program
 *  (porta_bench_gpu.c) call these; nothing here calls them, so the files form no circle. */
#include <stdio.h>

#include "porta/porta.h"

#if defined(__CUDACC__)

#include "bench_gpu.h"

const char *const row_names[B_COUNT] = {"copy",      "triad",   "dot",     "det-dot",
                                        "exact-dot", "launch",  "red-lat", "scan",
                                        "stencil",   "spmv-v4", "spmv-v8", "layout"};

void note_rc(bench *B, int rc) { bench_note_rc("porta-bench-gpu", &B->porta_rc, rc); }

void cu_check(bench *B, cudaError_t e, const char *what, int line) {
  if (e != cudaSuccess) {
    if (!B->cuda_rc)
      fprintf(stderr, "porta-bench-gpu: line %d: %s: %s\n", line, what, cudaGetErrorString(e));
    B->cuda_rc = 1;
  }
}

void measure(bench *B, bench_row *r, bench_side_fn f, void *ctx) {
  bench_abba(B->reps, 1, f, ctx, B->tp, B->th);
  bench_row_stats(r, B->tp, B->th, B->reps);
}

void bad_reset(bench *B) { CU(B, cudaMemset(B->bad, 0, sizeof(unsigned long long))); }
unsigned long long bad_read(bench *B) {
  unsigned long long h = 0;
  CU_LAUNCHED(B);
  CU(B, cudaMemcpy(&h, B->bad, sizeof h, cudaMemcpyDeviceToHost));
  return B->cuda_rc ? 1 : h;
}
unsigned check_grid(const bench *B) { return (unsigned)(B->sms * 8); }

porta_view_options dev_options(porta_layout layout) {
  porta_view_options o;
  o.space = PORTA_CUDA_SPACE;
  o.layout = layout;
  o.flags = 0;
  o.stride = NULL;
  return o;
}
porta_view_options host_options(void) {
  porta_view_options o;
  o.space = PORTA_HOST_SPACE;
  o.layout = PORTA_LAYOUT_DEFAULT;
  o.flags = PORTA_VIEW_UNINITIALIZED;
  o.stride = NULL;
  return o;
}
int dev_f64(porta_view_f64 *v, const char *label, int64_t n) {
  const porta_view_options o = dev_options(PORTA_LAYOUT_DEFAULT);
  return porta_view_f64_create(v, label, 1, &n, &o);
}

#endif /* __CUDACC__ */
