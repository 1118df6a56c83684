/** @file exchange_kernels.c
 *  Pack / unpack kernels of the exchange plan: a kernel file (C11 and C++17, no MPI). */
#include "exchange_kernels.h"

/* Index e of a pack is value e of the list, for every field: its offset is read once and the
 * fields follow one another in the buffer (no division per value; 8-byte values, the common
 * case, copy one word per field). */
#define PORTA_EXCHANGE_COPY_(NAME, WORD_T, TO_BUFFER)                                              \
  PORTA_FOR(NAME, porta_exchange_pack_args, a, e) {                                                \
    const int64_t off = PORTA_AT1(a->index, e) * a->words;                                         \
    void *base = a->buf;                                                                           \
    int64_t q = e;                                                                                 \
    if (a->nseg > 0) {                                                                             \
      int k = 0;                                                                                   \
      while (k + 1 < a->nseg && e >= a->seg_first[k + 1]) ++k;                                     \
      base = a->seg_buf[k];                                                                        \
      q = e - a->seg_first[k];                                                                     \
    }                                                                                              \
    WORD_T *buf = (WORD_T *)base + q * a->nfields * a->words;                                      \
    if (a->words == 1) {                                                                           \
      for (int f = 0; f < a->nfields; ++f) {                                                       \
        WORD_T *field = (WORD_T *)a->field[f] + off;                                               \
        if (TO_BUFFER)                                                                             \
          buf[f] = *field;                                                                         \
        else                                                                                       \
          *field = buf[f];                                                                         \
      }                                                                                            \
      return;                                                                                      \
    }                                                                                              \
    for (int f = 0; f < a->nfields; ++f) {                                                         \
      WORD_T *field = (WORD_T *)a->field[f] + off;                                                 \
      for (int w = 0; w < a->words; ++w) {                                                         \
        if (TO_BUFFER)                                                                             \
          buf[w] = field[w];                                                                       \
        else                                                                                       \
          field[w] = buf[w];                                                                       \
      }                                                                                            \
      buf += a->words;                                                                             \
    }                                                                                              \
  }

PORTA_EXCHANGE_COPY_(porta_exchange_pack_w8, uint64_t, 1)
PORTA_EXCHANGE_COPY_(porta_exchange_unpack_w8, uint64_t, 0)
PORTA_EXCHANGE_COPY_(porta_exchange_pack_w4, uint32_t, 1)
PORTA_EXCHANGE_COPY_(porta_exchange_unpack_w4, uint32_t, 0)

PORTA_REDUCE(porta_exchange_check_offsets, porta_exchange_check_args, a, i, porta_exchange_check,
             acc) {
  const int in_recv = i >= a->nsend;
  const int64_t q = in_recv ? i - a->nsend : i;
  const int64_t o = in_recv ? PORTA_AT1(a->recv, q) : PORTA_AT1(a->send, q);
  if (o < acc->lo) acc->lo = o;
  if (o > acc->hi) acc->hi = o;
  if (in_recv && q > 0 && o <= PORTA_AT1(a->recv, q - 1)) acc->unordered += 1;
}

/* Unpack by adding: the values are doubles (value_size a multiple of 8). A plan lists each
 * offset at most once per neighbour; offsets repeated across neighbours would race, so
 * porta_exchange_set_accumulate asks for plans whose receive offsets are all distinct. */
PORTA_FOR(porta_exchange_unpack_add_f64, porta_exchange_pack_args, a, e) {
  const int64_t off = PORTA_AT1(a->index, e) * a->words;
  const double *buf = (const double *)a->buf + e * a->nfields * a->words;
  for (int f = 0; f < a->nfields; ++f) {
    double *field = (double *)a->field[f] + off;
    for (int w = 0; w < a->words; ++w) field[w] += buf[w];
    buf += a->words;
  }
}
