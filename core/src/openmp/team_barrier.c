/** @file openmp/team_barrier.c
 *  The barrier of a host team: a counter and a generation number; the last
 *  member to arrive resets the counter and bumps the generation. Waiters spin
 *  briefly, then yield so oversubscribed runs still progress. */
#include <sched.h>

#include "porta/porta.h"

void porta_team_barrier_host_(porta_team *team) {
  porta_team_shared *s = team->shared;
  int gen = __atomic_load_n(&s->generation, __ATOMIC_ACQUIRE);
  if (__atomic_add_fetch(&s->arrived, 1, __ATOMIC_ACQ_REL) == team->team_size) {
    __atomic_store_n(&s->arrived, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&s->generation, gen + 1, __ATOMIC_RELEASE);
    return;
  }
  for (int spins = 0; __atomic_load_n(&s->generation, __ATOMIC_ACQUIRE) == gen; ++spins)
    if (spins > 1000) sched_yield();
}
