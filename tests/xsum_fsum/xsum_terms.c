/** @file xsum_terms.c
 *  The exact sum (porta/xsum.h) of the doubles in a file, one per line in any form strtod reads
 *  (hexadecimal floats keep every bit; inf and nan too), for test_xsum_fsum.py to compare with
 *  Python's math.fsum. The terms are summed in several orders and splits: forward, backward,
 *  in 7 uneven parts joined in a scrambled order, and in pairs normalised and merged limb by
 *  limb as an MPI sum merges ranks. Every way must give the same bits and status. The
 *  double-double sum (porta/ddsum.h) sums them forward, backward, in the 7 parts, in lanes and
 *  as 7 ranks' gathered words; where its bound decides the rounding, it must give those bits.
 *  The program prints "%a STATUS CERTIFIED" once (status: the PORTA_XSUM_* bits; certified: how
 *  many of the five double-double ways decided), or names the disagreement and exits 1. Built
 *  with the default window (xsum_terms) and with the whole double range (xsum_terms_full:
 *  PORTA_XSUM_MIN_EXP -1074, 66 limbs). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "porta/porta.h"

typedef struct {
  double value;
  int status;
} xt_result;

static xt_result xt_finish(const porta_xsum_f64_value *v) {
  xt_result r = {porta_xsum_f64_round(v), porta_xsum_f64_status(v)};
  return r;
}

static xt_result xt_range(const double *x, long lo, long hi, int backward) {
  porta_xsum_f64_value v;
  porta_xsum_f64_init(&v);
  for (long i = lo; i < hi; ++i) porta_xsum_f64_add(&v, x[backward ? hi - 1 - (i - lo) : i]);
  return xt_finish(&v);
}

static xt_result xt_parts(const double *x, long n) {
  enum { P = 7 };
  porta_xsum_f64_value part[P], all;
  long cut[P + 1] = {0, n / 13, n / 13 + 1, n / 3, n / 2, n / 2, (4 * n) / 5, n};
  for (int p = 1; p <= P; ++p) /* uneven, some empty, in order for any n */
    cut[p] = cut[p] < cut[p - 1] ? cut[p - 1] : (cut[p] > n ? n : cut[p]);
  for (int p = 0; p < P; ++p) {
    porta_xsum_f64_init(&part[p]);
    for (long i = cut[p]; i < cut[p + 1]; ++i) porta_xsum_f64_add(&part[p], x[i]);
  }
  porta_xsum_f64_init(&all);
  for (int p = 0; p < P; ++p) porta_xsum_f64_join(&all, &part[(3 * p + 5) % P]);
  return xt_finish(&all);
}

/** Pairs of terms, each pair's accumulator normalised and its limbs added as integers. */
static xt_result xt_merged(const double *x, long n) {
  porta_xsum_f64_value all;
  porta_xsum_f64_init(&all);
  long merged = 0;
  for (long i = 0; i < n; i += 2) {
    porta_xsum_f64_value v;
    porta_xsum_f64_init(&v);
    porta_xsum_f64_add(&v, x[i]);
    if (i + 1 < n) porta_xsum_f64_add(&v, x[i + 1]);
    porta_xsum_f64_normalize(&v);
    for (int k = 0; k < PORTA_XSUM_LIMBS; ++k) all.limb[k] += v.limb[k];
    all.flags |= v.flags;
    if (++merged == 1 << 20) { /* limbs of normalised values: 2^20 of them stay in range */
      all.count = (int32_t)merged;
      porta_xsum_f64_normalize(&all);
      merged = 1;
    }
  }
  all.count = (int32_t)(merged > 0 ? merged : 0);
  return xt_finish(&all);
}

/** The double-double sum forward, backward (way 0, 1), in the 7 parts (way 2), in lanes
 *  (way 3: term i into lane i mod PORTA_DDSUM_LANES, as a host's first pass adds a row) or in
 *  the 7 parts as 7 ranks' words gathered (way 4, as a device loop's sum over the ranks); 1 and
 *  its rounding in *out where the bound decides it. */
static int xt_dd(const double *x, long n, int way, double *out) {
  porta_ddsum_f64_value v;
  porta_ddsum_f64_init(&v);
  if (way == 3) {
    porta_ddsum_f64_lanes l;
    porta_ddsum_f64_lanes_init(&l);
    long i = 0;
    for (; i + PORTA_DDSUM_LANES <= n; i += PORTA_DDSUM_LANES) {
      PORTA_SIMD()
      for (int j = 0; j < PORTA_DDSUM_LANES; ++j) porta_ddsum_f64_lanes_add(&l, j, x[i + j]);
    }
    for (int j = 0; i < n; ++i, ++j) porta_ddsum_f64_lanes_add(&l, j, x[i]);
    porta_ddsum_f64_lanes_join(&v, &l);
  } else if (way == 4) { /* the 7 parts as 7 ranks' words, gathered by a sum */
    enum { P = 7 };
    double w[PORTA_DDSUM_WORDS * P];
    for (int p = 0; p < P; ++p) {
      porta_ddsum_f64_value part;
      porta_ddsum_f64_init(&part);
      for (long i = p * n / P; i < (p + 1) * n / P; ++i) porta_ddsum_f64_add(&part, x[i]);
      porta_ddsum_f64_to_words(&part, w + PORTA_DDSUM_WORDS * p);
    }
    return porta_ddsum_f64_round_words(w, P, out);
  } else if (way < 2) {
    for (long i = 0; i < n; ++i) porta_ddsum_f64_add(&v, x[way ? n - 1 - i : i]);
  } else {
    enum { P = 7 };
    porta_ddsum_f64_value part[P];
    for (int p = 0; p < P; ++p) {
      porta_ddsum_f64_init(&part[p]);
      for (long i = p * n / P; i < (p + 1) * n / P; ++i) porta_ddsum_f64_add(&part[p], x[i]);
    }
    for (int p = 0; p < P; ++p) porta_ddsum_f64_join(&v, &part[(3 * p + 5) % P]);
  }
  return porta_ddsum_f64_round(&v, out);
}

static int xt_same(xt_result a, xt_result b) {
  return memcmp(&a.value, &b.value, sizeof a.value) == 0 && a.status == b.status;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s FILE (one double a line)\n", argv[0]);
    return 2;
  }
  FILE *f = fopen(argv[1], "r");
  if (!f) {
    fprintf(stderr, "%s: cannot open %s: %s\n", argv[0], argv[1], strerror(errno));
    return 2;
  }
  long n = 0, cap = 1024, line = 0;
  double *x = (double *)malloc((size_t)cap * sizeof *x);
  char buf[256];
  while (x && fgets(buf, sizeof buf, f)) {
    ++line;
    char *end;
    const double d = strtod(buf, &end);
    if (end == buf) {
      fprintf(stderr, "%s: %s line %ld: not a number: %s", argv[0], argv[1], line, buf);
      return 2;
    }
    if (n == cap) {
      double *y = (double *)realloc(x, (size_t)(cap *= 2) * sizeof *x);
      if (!y) free(x);
      x = y;
    }
    if (x) x[n++] = d;
  }
  fclose(f);
  if (!x) {
    fprintf(stderr, "%s: out of memory\n", argv[0]);
    return 2;
  }
  const xt_result want = xt_range(x, 0, n, 0);
  const xt_result other[3] = {xt_range(x, 0, n, 1), xt_parts(x, n), xt_merged(x, n)};
  const char *name[3] = {"backward", "in 7 joined parts", "in pairs merged limb by limb"};
  for (int k = 0; k < 3; ++k)
    if (!xt_same(other[k], want)) {
      printf("DISAGREE %s: %a status %d, forward %a status %d\n", name[k], other[k].value,
             other[k].status, want.value, want.status);
      return 1;
    }
  int certified = 0;
  for (int way = 0; way < 5; ++way) {
    double dd;
    if (!xt_dd(x, n, way, &dd)) continue;
    ++certified;
    if (memcmp(&dd, &want.value, sizeof dd) != 0 ||
        (want.status & (PORTA_XSUM_OVERFLOW | PORTA_XSUM_NONFINITE))) {
      printf("DISAGREE double-double way %d: %a, exact %a status %d\n", way, dd, want.value,
             want.status);
      return 1;
    }
  }
  printf("%a %d %d\n", want.value, want.status, certified);
  free(x);
  return 0;
}
