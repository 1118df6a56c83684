/** @file app_exchange_kernels.c
 *  Pack / unpack kernels of the exchange plan: a kernel file (C11 and C++17, no MPI). */
#include "app_exchange_kernels.h"

/* Index e of a pack is value e of the list, for every field: its offset is read once and the
 * fields follow one another in the buffer (no division per value; 8-byte values, the common
 * case, copy one word per field). */
#define APP_EXCHANGE_COPY_(NAME, WORD_T, TO_BUFFER)                                                \
  PORTA_FOR(NAME, app_exchange_pack_args, a, e) {                                                  \
    const int64_t off = PORTA_AT1(a->index, e) * a->words;                                         \
    WORD_T *buf = (WORD_T *)a->buf + e * a->nfields * a->words;                                    \
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

APP_EXCHANGE_COPY_(app_exchange_pack_w8, uint64_t, 1)
APP_EXCHANGE_COPY_(app_exchange_unpack_w8, uint64_t, 0)
APP_EXCHANGE_COPY_(app_exchange_pack_w4, uint32_t, 1)
APP_EXCHANGE_COPY_(app_exchange_unpack_w4, uint32_t, 0)

/* Unpack by adding: the values are doubles (value_size a multiple of 8). A plan lists each
 * offset at most once per neighbour; offsets repeated across neighbours would race, so
 * app_exchange_set_accumulate asks for plans whose receive offsets are all distinct. */
PORTA_FOR(app_exchange_unpack_add_f64, app_exchange_pack_args, a, e) {
  const int64_t off = PORTA_AT1(a->index, e) * a->words;
  const double *buf = (const double *)a->buf + e * a->nfields * a->words;
  for (int f = 0; f < a->nfields; ++f) {
    double *field = (double *)a->field[f] + off;
    for (int w = 0; w < a->words; ++w) field[w] += buf[w];
    buf += a->words;
  }
}

/* GPU-side synchronisation of IPC neighbours (app_exchange_ipc.c): one thread writes each
 * flag after a system-wide fence (the values copied before, in stream order, are then visible
 * to the neighbour's GPU), or spins until each flag reaches the value. Launched on CUDA only:
 * on a host back end the neighbour's flag would never change while this thread spins. */
PORTA_FOR(app_exchange_signal, app_exchange_sync_args, a, i) {
  (void)i;
#if defined(__CUDA_ARCH__)
  __threadfence_system();
#endif
  for (int k = 0; k < a->n; ++k) *(volatile int64_t *)a->flag[k] = a->value;
#if defined(__CUDA_ARCH__)
  __threadfence_system();
#endif
}

PORTA_FOR(app_exchange_wait, app_exchange_sync_args, a, i) {
  (void)i;
  for (int k = 0; k < a->n; ++k)
    while (*(volatile int64_t *)a->flag[k] < a->value) {
#if defined(__CUDA_ARCH__)
      __nanosleep(64);
#endif
    }
#if defined(__CUDA_ARCH__)
  __threadfence_system();
#endif
}
