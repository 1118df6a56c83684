/** @file app_exchange_kernels.c
 *  Pack / unpack kernels of the exchange plan: a kernel file (C11 and C++17, no MPI). */
#include "app_exchange_kernels.h"

#define APP_EXCHANGE_COPY_(NAME, WORD_T, TO_BUFFER)                                                \
  PORTA_FOR(NAME, app_exchange_pack_args, a, i) {                                                  \
    const int64_t e = i / a->nfields, f = i % a->nfields;                                          \
    WORD_T *field = (WORD_T *)a->field[f] + PORTA_AT1(a->index, e) * a->words;                     \
    WORD_T *buf = (WORD_T *)a->buf + i * a->words;                                                 \
    for (int w = 0; w < a->words; ++w) {                                                           \
      if (TO_BUFFER)                                                                               \
        buf[w] = field[w];                                                                         \
      else                                                                                         \
        field[w] = buf[w];                                                                         \
    }                                                                                              \
  }

APP_EXCHANGE_COPY_(app_exchange_pack_w8, uint64_t, 1)
APP_EXCHANGE_COPY_(app_exchange_unpack_w8, uint64_t, 0)
APP_EXCHANGE_COPY_(app_exchange_pack_w4, uint32_t, 1)
APP_EXCHANGE_COPY_(app_exchange_unpack_w4, uint32_t, 0)
