/** @file porta_bench.c
 *  Porta against hand-written OpenMP, in one run, BabelStream style.
 *
 *  Every benchmark runs a Porta kernel (bench_kernels.c, shared with
 *  porta-bench-gpu) and a hand-written OpenMP loop over raw pointers (the
 *  benchmark's topic file, bench_host.h), compiled with identical flags, on arrays
 *  of the same allocator. After one warm-up of each, reps are interleaved so machine
 *  noise hits both (bench_timing.h): in rep r Porta works on data set r % 2 and the
 *  hand-written loop on the other, and set 0 always runs first, so each side
 *  alternates sets and positions (ABBA). That cancels the few per cent by which one
 *  allocation can be faster than another (measured: the set allocated first was
 *  slower).
 *  Results (the last rep of each side, and through the BabelStream chain the
 *  earlier ones) are checked after the timed runs; a failed check makes the exit
 *  status non-zero, a missed performance criterion only prints MISS.
 *
 *  Build with -falign-loops=64 (scripts/bench/CMakeLists.txt does): otherwise a
 *  hot in-cache loop that straddles a 64-byte line can run up to 2x slower on
 *  either side, depending only on where the linker put it.
 *
 *    porta-bench [--n=ELEMENTS] [--reps=K] [--only=LIST] [--stencil=SIDE] [--spmv=SIDE]
 *                [--porta-*]
 *
 *  LIST: copy,scale,add,triad,dot,launch,stencil,spmv,scan,det,sdot.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "porta/porta.h"

#include "bench_cli.h"
#include "bench_host.h"

static const char *const bench_names[B_COUNT] = {
    "copy", "scale", "add", "triad", "dot", "launch", "stencil", "spmv", "scan", "det", "sdot"};

/* ---- output ------------------------------------------------------------- */

static void usage(FILE *out) {
  fprintf(out,
          "usage: porta-bench [--n=ELEMENTS] [--reps=K] [--only=LIST] [--stencil=SIDE]\n"
          "                   [--spmv=SIDE] [--porta-*]\n"
          "  --n        elements of the stream, scan and det arrays (default 2^25)\n"
          "  --reps     timed reps of each benchmark, after one warm-up (default 10)\n"
          "  --only     comma list of: copy,scale,add,triad,dot,launch,stencil,spmv,scan,det,\n"
          "             sdot\n"
          "  --stencil  interior side of the 2D stencil (default sqrt(n/2), 4096)\n"
          "  --spmv     side of the SpMV Laplacian grid (default sqrt(n/8), 2048)\n"
          "  --porta-help  Porta's own options\n");
}

/** The command line into B (0: run; else the exit status, usage printed). */
static int parse_options(int argc, char **argv, bench *B) {
  const bench_cli_spec spec = {"porta-bench", 1, 1000000, 0, bench_names, B_COUNT, usage};
  bench_cli cli;
  memset(&cli, 0, sizeof cli);
  cli.n = (int64_t)1 << 25;
  cli.reps = 10;
  const int st = bench_cli_parse(argc, argv, &spec, &cli);
  if (st) return st == 1 ? 0 : 2;
  B->n = cli.n;
  B->reps = cli.reps;
  B->stencil_side = cli.stencil_side;
  B->spmv_side = cli.spmv_side;
  for (int k = 0; k < B_COUNT; ++k) B->only[k] = cli.only[k];
  if (!B->stencil_side) B->stencil_side = (int64_t)sqrt((double)B->n / 2.0);
  if (B->stencil_side < 1) B->stencil_side = 1;
  if (!B->spmv_side) B->spmv_side = (int64_t)sqrt((double)B->n / 8.0);
  if (B->spmv_side < 2) B->spmv_side = 2;
  return -1;
}

static void print_header(const bench *B) {
  printf(
      "porta-bench: Porta kernels against hand-written OpenMP loops (same compiler, same flags)\n");
  porta_print_configuration(stdout);
  const char *bind = getenv("OMP_PROC_BIND");
  printf("  n = %lld (%.1f MiB per array), reps = %d after 1 warm-up, threads = %d, "
         "OMP_PROC_BIND=%s\n",
         (long long)B->n, (double)B->n * 8.0 / 1048576.0, B->reps, B->nt, bind ? bind : "(unset)");
  printf("  stencil %lld x %lld interior, spmv %lld x %lld grid (5-point Laplacian, %d rows per "
         "team)\n\n",
         (long long)B->stencil_side, (long long)B->stencil_side, (long long)B->spmv_side,
         (long long)B->spmv_side, SPMV_ROWS_PER_TEAM);
  fflush(stdout);
}

/** The selected benchmarks, in the table's order, each only while nothing has failed. */
static void run_all(bench *B, det_bits bits[3]) {
  bench_stream(B);
  if (B->only[B_LAUNCH] && !B->porta_rc) bench_launch(B);
  if (B->only[B_STENCIL] && !B->porta_rc) bench_stencil_run(B);
  if (B->only[B_SPMV] && !B->porta_rc) bench_spmv_run(B);
  if (B->only[B_SCAN] && !B->porta_rc) bench_scan_run(B);
  if (B->only[B_DET] && !B->porta_rc) bench_det(B, bits);
  if (B->only[B_SDOT] && !B->porta_rc) bench_sdot(B);
}

/** The table; returns whether every check passed, counting the criteria. */
static int print_table(const bench *B, int *n_crit, int *n_pass) {
  printf("%-8s %12s %12s %12s %12s %8s %8s %8s  %-5s %s\n", "kernel", "porta med", "porta min",
         "hand med", "hand min", "h/p", "porta", "hand", "check", "acceptance");
  printf("%-8s %12s %12s %12s %12s %8s %8s %8s  %-5s %s\n", "", "", "", "", "", "speed", "GB/s",
         "GB/s", "", "");
  int all_ok = 1;
  for (int k = 0; k < B_COUNT; ++k) {
    const bench_row *r = &B->rows[k];
    if (!B->only[k]) continue;
    if (!r->ran) {
      printf("%-8s %s\n", bench_names[k], "not run (an earlier error)");
      all_ok = 0;
      continue;
    }
    char pm[24], pn[24], hm[24], hn[24], pb[16], hb[16];
    fmt_time(pm, sizeof pm, r->p_med, r->us);
    fmt_time(pn, sizeof pn, r->p_min, r->us);
    fmt_time(hm, sizeof hm, r->h_med, r->us);
    fmt_time(hn, sizeof hn, r->h_min, r->us);
    bench_fmt_rate(pb, sizeof pb, r->bytes, r->p_med, 1e-9, 2);
    bench_fmt_rate(hb, sizeof hb, r->bytes, r->h_med, 1e-9, 2);
    printf("%-8s %12s %12s %12s %12s %8.3f %8s %8s  %-5s %s\n", bench_names[k], pm, pn, hm, hn,
           r->ratio, pb, hb, r->check_ok ? "OK" : "FAIL", r->has_crit ? r->accept : "-");
    all_ok &= r->check_ok;
    *n_crit += r->has_crit;
    *n_pass += r->has_crit && r->crit_ok;
  }
  return all_ok;
}

static void print_notes(const bench *B, const det_bits bits[3]) {
  printf("\n  med, min: median and minimum over the reps. h/p speed: median over the reps of\n"
         "  hand time / porta time within one rep (> 1: Porta faster); the criteria use such\n"
         "  per-rep pairs too (launch: difference, det: det/default, scan: copy/scan time).\n"
         "  GB/s from the medians with BabelStream byte counts: copy, scale, dot 2 arrays,\n"
         "  add, triad 3; stencil in + out; spmv val, col, rowptr, x, y; scan in + out.\n"
         "  launch: one empty parallel for over nthreads indices, reps of %d launches.\n",
         LAUNCHES_PER_REP);
  for (int k = 0; k < B_COUNT; ++k)
    if (B->only[k] && B->rows[k].ran && B->rows[k].ref_label)
      printf("  %s: %s\n", bench_names[k], B->rows[k].ref_label);
  if (!(B->only[B_DET] && B->rows[B_DET].ran)) return;
  printf("  deterministic dot bits:");
  char who2[32];
  snprintf(who2, sizeof who2, "openmp %d threads", B->det_threads);
  const char *const who[3] = {"serial", "openmp 1 thread", who2};
  int same = 1;
  for (int q = 0; q < 3; ++q) {
    if (!bits[q].have) {
      printf(" %s n/a;", who[q]);
      continue;
    }
    bench_print_bits(who[q], bits[q].v);
    same &= memcmp(&bits[q].v, &bits[0].v, sizeof(double)) == 0;
  }
  printf(" %s\n", same ? "IDENTICAL" : "DIFFERENT");
}

int main(int argc, char **argv) {
  if (porta_initialize(&argc, &argv) != PORTA_SUCCESS) {
    fprintf(stderr, "porta-bench: %s\n", porta_last_error_message());
    return 2;
  }
  bench B;
  memset(&B, 0, sizeof B);
  const int st = parse_options(argc, argv, &B);
  if (st >= 0) {
    porta_finalize();
    return st;
  }
  B.ex = porta_exec_default();
  if (B.ex.backend != PORTA_BACKEND_OPENMP && B.ex.backend != PORTA_BACKEND_SERIAL) {
    fprintf(stderr,
            "porta-bench: compares host back ends with host loops; the default back end "
            "is %s (use --porta-backend=openmp)\n",
            porta_backend_name(B.ex.backend));
    porta_finalize();
    return 2;
  }
  B.nt = B.ex.backend == PORTA_BACKEND_OPENMP ? porta_num_threads() : 1;
  B.tp = (double *)malloc((size_t)B.reps * sizeof(double));
  B.th = (double *)malloc((size_t)B.reps * sizeof(double));
  print_header(&B);

  det_bits bits[3];
  memset(bits, 0, sizeof bits);
  run_all(&B, bits);
  int n_crit = 0, n_pass = 0;
  const int all_ok = print_table(&B, &n_crit, &n_pass);
  print_notes(&B, bits);
  printf("\nperformance criteria: %d of %d PASS; correctness: %s\n", n_pass, n_crit,
         all_ok && !B.porta_rc ? "all OK" : "FAILED");
  free(B.tp);
  free(B.th);
  if (porta_finalize() != PORTA_SUCCESS) {
    fprintf(stderr, "porta-bench: %s\n", porta_last_error_message());
    return 1;
  }
  return all_ok && !B.porta_rc ? 0 : 1;
}
