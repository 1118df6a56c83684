/** @file backend/cuda/device_team.h
 *  The device pass of porta/team.h (nvcc): the team barrier and the vector lanes' butterfly.
 *  Reached through porta/backend/cuda/device.h. */
#ifndef PORTA_BACKEND_CUDA_DEVICE_TEAM_H
#define PORTA_BACKEND_CUDA_DEVICE_TEAM_H

#include "porta/backend/cuda/warp.h"

#if defined(__CUDA_ARCH__)
#define PORTA_DEVICE_TEAM_BARRIER_(team) ((void)(team), __syncthreads())

/* When the whole warp is here (the usual case) the butterfly uses the full mask. A shuffle on
 * the vector group's own mask makes the compiler match the group at run time before every step
 * (MATCH.ANY, REDUX, a divergence branch): an 8-lane SpMV ran at 0.70 of the hand-written
 * kernel. The steps run a fixed count of 5 (lane distances 16 .. 1, those below the vector
 * length), so they unroll; with the vector length a compile-time constant (team.h of the CUDA
 * back end) they become straight-line shuffles. All lanes that see a full __activemask see it
 * together, so they all take the first branch. */
#define PORTA_VECTOR_REDUCE_STEPS_(R, team, v, SHFL)                                               \
  _Pragma("unroll") for (int k_ = 4; k_ >= 0; --k_) {                                              \
    if ((1 << k_) < (team)->vector_length) {                                                       \
      R##_value o_ = SHFL(*(v), 1 << k_, (team)->vector_length);                                   \
      R##_join((v), &o_);                                                                          \
    }                                                                                              \
  }
#define PORTA_VECTOR_REDUCE_BODY_(R, team, v)                                                      \
  if (__activemask() == 0xffffffffu) {                                                             \
    PORTA_VECTOR_REDUCE_STEPS_(R, team, v, porta_cuda_shfl_xor_warp_)                              \
  } else {                                                                                         \
    PORTA_VECTOR_REDUCE_STEPS_(R, team, v, porta_cuda_shfl_xor_)                                   \
  }
#endif

#endif
