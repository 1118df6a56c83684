/** @file app_sum_kernels.c
 *  The device side of exact sums (app_sum.h): an accumulator left in memory by a reduction is
 *  rounded there, or packed for the sum over the ranks and unpacked after it, each by a kernel
 *  of one thread per value, so a device loop's exact sums never wait for the host.
 *  Kernel file (C++17 compatible). */
#include "app_sum.h"

/** What the kernels read and write (each uses its part). */
typedef struct {
  const porta_xsum_f64_value *acc;
  const double *wire_in;
  double *wire, *values;
  porta_cond cond; /**< set: whether the second pass runs */
  int nranks, n, force, rank, words;
} finish_args;

static finish_args finish_make(const porta_xsum_f64_value *acc, const double *wire_in, double *wire,
                               double *values, int nranks) {
  finish_args a;
  memset(&a, 0, sizeof a);
  a.acc = acc;
  a.wire_in = wire_in;
  a.wire = wire;
  a.values = values;
  a.nranks = nranks;
  return a;
}

PORTA_FOR(app_sum_k_round, finish_args, a, i) { a->values[i] = porta_xsum_f64_round(&a->acc[i]); }

int app_sum_round_on(porta_exec exec, const porta_xsum_f64_value *acc, double *values, int n) {
  const finish_args a = finish_make(acc, NULL, NULL, values, 1);
  return PORTA_PARALLEL_FOR_LABELED("app_sum_round", app_sum_k_round, exec, porta_range(0, n), &a);
}

PORTA_FOR(app_sum_k_pack, finish_args, a, i) {
  app_sum_put_(a->acc[i], a->wire + APP_SUM_WIRE * i);
}

int app_sum_pack_on(porta_exec exec, const porta_xsum_f64_value *acc, double *wire, int n) {
  const finish_args a = finish_make(acc, NULL, wire, NULL, 1);
  return PORTA_PARALLEL_FOR_LABELED("app_sum_pack", app_sum_k_pack, exec, porta_range(0, n), &a);
}

PORTA_FOR(app_sum_k_unpack, finish_args, a, i) {
  const porta_xsum_f64_value v = app_sum_get_(a->wire_in + APP_SUM_WIRE * i, a->nranks);
  a->values[i] = porta_xsum_f64_round(&v);
}

int app_sum_unpack_on(porta_exec exec, const double *wire, double *values, int n, int nranks) {
  const finish_args a = finish_make(NULL, wire, NULL, values, nranks);
  return PORTA_PARALLEL_FOR_LABELED("app_sum_unpack", app_sum_k_unpack, exec, porta_range(0, n),
                                    &a);
}

/* ---- first passes (double-double sums with their bounds) ---- */

/* a rank's first pass as its sum and bound in limbs (porta_ddsum_f64_to_limbs) */
PORTA_FOR(app_sum_k_pack_dd, finish_args, a, i) {
  porta_xsum_f64_value v, b;
  porta_ddsum_f64_to_limbs(app_sum_dd_of_c(&a->acc[i]), &v, &b);
  app_sum_put_(v, a->wire + 2 * APP_SUM_WIRE * i);
  app_sum_put_(b, a->wire + 2 * APP_SUM_WIRE * i + APP_SUM_WIRE);
}

int app_sum_pack_dd_on(porta_exec exec, const porta_xsum_f64_value *acc, double *wire, int n) {
  finish_args a = finish_make(acc, NULL, wire, NULL, 1);
  return PORTA_PARALLEL_FOR_LABELED("app_sum_pack_dd", app_sum_k_pack_dd, exec, porta_range(0, n),
                                    &a);
}

/** One thread: each sum of the ranks rounded where its bound decides it, from limbs
 *  (porta_xsum_f64_round_within) or from the gathered words (porta_ddsum_f64_round_words); the
 *  condition set where one does not (or force). */
PORTA_FOR(app_sum_k_unpack_dd, finish_args, a, i) {
  (void)i;
  int32_t again = 0;
  for (int k = 0; k < a->n; ++k) {
    int decided;
    if (a->words) {
      decided = porta_ddsum_f64_round_words(a->wire_in + (int64_t)PORTA_DDSUM_WORDS * a->nranks * k,
                                            a->nranks, &a->values[k]);
    } else {
      const double *w = a->wire_in + 2 * APP_SUM_WIRE * k;
      const porta_xsum_f64_value v = app_sum_get_(w, a->nranks);
      const porta_xsum_f64_value b = app_sum_get_(w + APP_SUM_WIRE, a->nranks);
      decided = porta_xsum_f64_round_within(&v, &b, &a->values[k]);
    }
    again |= a->force || !decided;
  }
  porta_cond_set(&a->cond, again);
}

static int unpack_first(porta_exec exec, const double *wire, double *values,
                        const porta_cond *again, int n, int nranks, int force, int words) {
  finish_args a = finish_make(NULL, wire, NULL, values, nranks);
  a.cond = *again;
  a.n = n;
  a.force = force;
  a.words = words;
  return PORTA_PARALLEL_FOR_LABELED("app_sum_unpack_dd", app_sum_k_unpack_dd, exec,
                                    porta_range(0, 1), &a);
}

int app_sum_unpack_dd_on(porta_exec exec, const double *wire, double *values,
                         const porta_cond *again, int n, int nranks, int force) {
  return unpack_first(exec, wire, values, again, n, nranks, force, 0);
}

/* ---- first passes gathered by a sum (porta_ddsum_f64_to_words) ---- */

/* word c of rank q's place for sum k: this rank's words, zeros elsewhere */
PORTA_FOR(app_sum_k_pack_words, finish_args, a, i) {
  const int64_t per = (int64_t)PORTA_DDSUM_WORDS * a->nranks;
  const int64_t k = i / per, q = i % per / PORTA_DDSUM_WORDS, c = i % PORTA_DDSUM_WORDS;
  double w[PORTA_DDSUM_WORDS];
  porta_ddsum_f64_to_words(app_sum_dd_of_c(&a->acc[k]), w);
  a->wire[i] = q == a->rank ? w[c] : 0.0;
}

int app_sum_pack_words_on(porta_exec exec, const porta_xsum_f64_value *acc, double *wire, int n,
                          int rank, int nranks) {
  finish_args a = finish_make(acc, NULL, wire, NULL, nranks);
  a.rank = rank;
  return PORTA_PARALLEL_FOR_LABELED("app_sum_pack_words", app_sum_k_pack_words, exec,
                                    porta_range(0, (int64_t)n * nranks * PORTA_DDSUM_WORDS), &a);
}

int app_sum_unpack_words_on(porta_exec exec, const double *wire, double *values,
                            const porta_cond *again, int n, int nranks, int force) {
  return unpack_first(exec, wire, values, again, n, nranks, force, 1);
}
