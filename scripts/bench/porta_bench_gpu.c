/** @file porta_bench_gpu.c
 *  Porta's CUDA back end against hand-written CUDA kernels, in one run.
 *
 *  Every row runs a Porta kernel (launched on porta_exec_backend(PORTA_BACKEND_CUDA))
 *  and a reference, normally a hand-written CUDA kernel over raw pointers. The Porta
 *  kernels are in bench_kernels.c (shared with porta-bench), the hand-written ones in
 *  the benchmark's topic file (bench_gpu.h); nvcc compiles all of them as CUDA
 *  (scripts/bench/CMakeLists.txt marks them with porta_kernel_sources), so both get the
 *  same compiler and flags. They work on the same device allocations (Porta views in
 *  CudaSpace, default layout: Left). This file reads the command line, sets up the
 *  device, runs the benchmarks and prints the table; the helpers the benchmarks share are
 *  bench_gpu_common.c's.
 *
 *  Timing (bench_timing.h): after one warm-up of each side, reps alternate which side runs
 *  first (ABBA). A sample is a fenced batch: K back-to-back calls, then one fence, timed
 *  with porta_wtime; the sample is the time per call. Rows report medians over the
 *  reps, and h/p = the median over reps of (reference time / Porta time) taken within
 *  one rep, so slow drifts of the machine cancel.
 *
 *  Checks: after the timed reps each side's outputs are poisoned (NaN / -1), the side
 *  runs once more, and a hand-written checker kernel compares every element with
 *  the expected value, so a side that skips elements fails. A failed check makes the
 *  exit status 1; a missed performance criterion only prints MISS.
 *
 *    porta-bench-gpu [--n=ELEMENTS] [--reps=K] [--only=LIST] [--stencil=SIDE]
 *                    [--spmv=SIDE] [--atoms=N] [--porta-*]
 *
 *  LIST: copy,triad,dot,det,exact,launch,latency,scan,stencil,spmv,layout.
 *
 *  Without nvcc (a plain C11 compile) the file still compiles, and main says that
 *  the benchmark needs the CUDA back end.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "porta/porta.h"

#include "bench_kernels.h"

#if defined(__CUDACC__)

#include "bench_cli.h"
#include "bench_gpu.h"

/* The Porta kernels (bk_*), their argument structs and NEIGHBOURS: bench_kernels.h, shared
 * with porta-bench. Every back end is generated; the Serial one serves the deterministic
 * dot's reference. */

/** --only names: spmv selects both SpMV rows. */
static const char *const only_names[] = {"copy",    "triad", "dot",     "det",  "exact", "launch",
                                         "latency", "scan",  "stencil", "spmv", "layout"};
static const int only_rows[][2] = {{B_COPY, -1},       {B_TRIAD, -1}, {B_DOT, -1},
                                   {B_DET, -1},        {B_EXACT, -1}, {B_LAUNCH, -1},
                                   {B_LATENCY, -1},    {B_SCAN, -1},  {B_STENCIL, -1},
                                   {B_SPMV4, B_SPMV8}, {B_LAYOUT, -1}};
#define N_ONLY ((int)(sizeof only_names / sizeof only_names[0]))

/* ---- the program ---------------------------------------------------------- */

static void usage(FILE *out) {
  fprintf(out, "usage: porta-bench-gpu [--n=ELEMENTS] [--reps=K] [--only=LIST] [--stencil=SIDE]\n"
               "                       [--spmv=SIDE] [--atoms=N] [--porta-*]\n"
               "  --n        elements of the stream, det and scan arrays (default 2^28)\n"
               "  --reps     timed reps of each benchmark, after one warm-up (default 10)\n"
               "  --only     comma list of: copy,triad,dot,det,exact,launch,latency,scan,stencil,"
               "spmv,layout\n"
               "  --stencil  interior side of the 2D stencil (default 8192)\n"
               "  --spmv     side of the SpMV Laplacian grid (default 4096)\n"
               "  --atoms    atoms of the neighbour-list layout demonstration (default 2^20)\n"
               "  --porta-help  Porta's own options\n");
}

/** The command line into B (-1: run; else the exit status, usage printed). */
static int parse_options(int argc, char **argv, bench *B) {
  bench_cli_spec spec;
  spec.prog = "porta-bench-gpu";
  spec.n_min = SMALL_N;
  spec.reps_limit = 100000;
  spec.has_atoms = 1;
  spec.only_names = only_names;
  spec.nonly = N_ONLY;
  spec.usage = usage;
  bench_cli cli;
  memset(&cli, 0, sizeof cli);
  cli.n = (int64_t)1 << 28;
  cli.reps = 10;
  cli.stencil_side = 8192;
  cli.spmv_side = 4096;
  cli.atoms = (int64_t)1 << 20;
  const int st = bench_cli_parse(argc, argv, &spec, &cli);
  if (st) return st == 1 ? 0 : 2;
  B->n = cli.n;
  B->reps = cli.reps;
  B->stencil_side = cli.stencil_side;
  B->spmv_side = cli.spmv_side;
  B->atoms = cli.atoms;
  for (int k = 0; k < N_ONLY; ++k)
    for (int q = 0; q < 2; ++q)
      if (cli.only[k] && only_rows[k][q] >= 0) B->only[only_rows[k][q]] = 1;
  return -1;
}

/** The device, the checkers' counter and the hand-written reductions' buffers; 0 or 2. */
static int setup_device(bench *B, cudaDeviceProp *prop) {
  if (!porta_backend_available(PORTA_BACKEND_CUDA)) {
    fprintf(stderr, "porta-bench-gpu: the CUDA back end is not available (no usable GPU?)\n");
    return 2;
  }
  B->ex = porta_exec_backend(PORTA_BACKEND_CUDA);
  B->det0 = porta_deterministic();
  int dev = 0;
  CU(B, cudaGetDevice(&dev));
  CU(B, cudaGetDeviceProperties(prop, dev));
  B->sms = prop->multiProcessorCount > 0 ? prop->multiProcessorCount : 1;
  B->tp = (double *)malloc((size_t)B->reps * sizeof(double));
  B->th = (double *)malloc((size_t)B->reps * sizeof(double));
  CU(B, cudaMalloc((void **)&B->bad, sizeof(unsigned long long)));
  CU(B, cudaMalloc((void **)&B->part, (size_t)check_grid(B) * sizeof(double)));
  CU(B, cudaHostAlloc((void **)&B->pinned, 4 * sizeof(double), cudaHostAllocMapped));
  if (!B->cuda_rc) CU(B, cudaHostGetDevicePointer((void **)&B->pinned_dev, B->pinned, 0));
  return B->cuda_rc ? 2 : 0;
}

static void print_header(const bench *B, const cudaDeviceProp *prop) {
  printf("porta-bench-gpu: Porta's CUDA back end against hand-written CUDA kernels (the same nvcc "
         "and flags)\n");
  porta_print_configuration(stdout);
  printf("  %s: %d SMs, %.0f MiB L2, %.1f GiB; n = %lld (%.0f MiB per f64 array), reps = %d "
         "after 1 warm-up\n",
         prop->name, B->sms, prop->l2CacheSize / 1048576.0, prop->totalGlobalMem / 1073741824.0,
         (long long)B->n, (double)B->n * 8.0 / 1048576.0, B->reps);
  printf("  stencil %lld^2 interior, spmv %lld^2 grid (5-point Laplacian), layout %lld atoms x %d "
         "neighbours\n\n",
         (long long)B->stencil_side, (long long)B->spmv_side, (long long)B->atoms, NEIGHBOURS);
  fflush(stdout);
}

/** The selected benchmarks, in the table's order, each only while nothing has failed. */
static void run_all(bench *B) {
  bench_stream(B);
  if (B->only[B_LAUNCH] && !B->porta_rc && !B->cuda_rc) bench_launch(B);
  if (B->only[B_LATENCY] && !B->porta_rc && !B->cuda_rc) bench_latency(B);
  if (B->only[B_SCAN] && !B->porta_rc && !B->cuda_rc) bench_scan(B);
  if (B->only[B_STENCIL] && !B->porta_rc && !B->cuda_rc) bench_stencil(B);
  if ((B->only[B_SPMV4] || B->only[B_SPMV8]) && !B->porta_rc && !B->cuda_rc) bench_spmv(B);
  if (B->only[B_LAYOUT] && !B->porta_rc && !B->cuda_rc) bench_layout(B);
}

/** The table; returns whether every check passed, counting the criteria. */
static int print_table(const bench *B, int *n_crit, int *n_pass) {
  printf("%-8s %12s %12s %8s %8s %8s  %-5s %s\n", "kernel", "porta med", "ref med", "ref/p",
         "porta", "ref", "check", "acceptance");
  printf("%-8s %12s %12s %8s %8s %8s  %-5s %s\n", "", "", "", "speed", "TB/s", "TB/s", "", "");
  int all_ok = 1;
  for (int k = 0; k < B_COUNT; ++k) {
    const bench_row *r = &B->rows[k];
    if (!B->only[k]) continue;
    if (!r->ran) {
      printf("%-8s %s\n", row_names[k], "not run (an earlier error)");
      all_ok = 0;
      continue;
    }
    char pm[24], hm[24], pb[16], hb[16];
    bench_fmt_time(pm, sizeof pm, r->p_med, r->us);
    bench_fmt_time(hm, sizeof hm, r->h_med, r->us);
    bench_fmt_rate(pb, sizeof pb, r->bytes, r->p_med, 1e-12, 3);
    bench_fmt_rate(hb, sizeof hb, r->bytes, r->h_med, 1e-12, 3);
    printf("%-8s %12s %12s %8.3f %8s %8s  %-5s %s\n", row_names[k], pm, hm, r->ratio, pb, hb,
           r->check_ok ? "OK" : "FAIL", r->has_crit || r->accept[0] ? r->accept : "-");
    all_ok &= r->check_ok;
    *n_crit += r->has_crit;
    *n_pass += r->has_crit && r->crit_ok;
  }
  return all_ok;
}

static void print_notes(const bench *B) {
  printf("\n  med: median over the reps of the time per call (fenced batches of %d calls; launch:\n"
         "  %d, red-lat: %d). ref/p: median over reps of ref time / porta time in the same rep\n"
         "  (> 1: Porta faster). TB/s from the medians; BabelStream byte counts (copy, dot 2\n"
         "  arrays, triad 3; det-dot and scan in + out; stencil in + out; spmv val, col, rowptr,\n"
         "  x, y; layout neigh + x + out). ref = hand-written CUDA unless said otherwise:\n",
         STREAM_BATCH, LAUNCHES, LATENCY_CALLS);
  for (int k = 0; k < B_COUNT; ++k)
    if (B->only[k] && B->rows[k].ran && B->rows[k].ref_label)
      printf("  %s: %s\n", row_names[k], B->rows[k].ref_label);
  if (B->only[B_DET] && B->rows[B_DET].ran) {
    printf("  deterministic dot bits:");
    bench_print_bits("cuda det", B->det_bits[0]);
    bench_print_bits("serial det", B->det_bits[1]);
    bench_print_bits("cuda default", B->det_bits[2]);
    printf(" cuda det %s serial det, %s over the reps\n",
           memcmp(&B->det_bits[0], &B->det_bits[1], sizeof(double)) ? "DIFFERS from" : "==",
           B->det_same_reps ? "identical" : "NOT identical");
  }
  if (B->only[B_EXACT] && B->rows[B_EXACT].ran) {
    printf("  exact dot bits:");
    bench_print_bits("cuda exact", B->exact_bits[0]);
    bench_print_bits("serial exact", B->exact_bits[1]);
    printf(" %s\n", memcmp(&B->exact_bits[0], &B->exact_bits[1], sizeof(double)) ? "DIFFER" : "==");
  }
}

int main(int argc, char **argv) {
  if (porta_initialize(&argc, &argv) != PORTA_SUCCESS) {
    fprintf(stderr, "porta-bench-gpu: %s\n", porta_last_error_message());
    return 2;
  }
  bench B;
  memset(&B, 0, sizeof B);
  const int st = parse_options(argc, argv, &B);
  if (st >= 0) {
    porta_finalize();
    return st;
  }
  cudaDeviceProp prop;
  if (setup_device(&B, &prop)) {
    porta_finalize();
    return 2;
  }
  print_header(&B, &prop);
  run_all(&B);
  int n_crit = 0, n_pass = 0;
  const int all_ok = print_table(&B, &n_crit, &n_pass);
  print_notes(&B);
  printf("\nperformance criteria: %d of %d PASS; correctness: %s\n", n_pass, n_crit,
         all_ok && !B.porta_rc && !B.cuda_rc ? "all OK" : "FAILED");
  cudaFree(B.bad);
  cudaFree(B.part);
  cudaFreeHost(B.pinned);
  free(B.tp);
  free(B.th);
  if (porta_finalize() != PORTA_SUCCESS) {
    fprintf(stderr, "porta-bench-gpu: %s\n", porta_last_error_message());
    return 1;
  }
  return all_ok && !B.porta_rc && !B.cuda_rc ? 0 : 1;
}

#else /* not compiled by nvcc as CUDA */

int main(void) {
  fprintf(stderr, "porta-bench-gpu: built without CUDA; configure with -DPORTA_ENABLE_CUDA=ON\n");
  return 2;
}

#endif
