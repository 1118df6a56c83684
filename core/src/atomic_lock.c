/** @file atomic_lock.c
 *  The host lock table behind PORTA_ATOMIC_UPDATE: PORTA_ATOMIC_LOCK_COUNT test-and-set
 *  spinlocks, one chosen by hashing the object's address (porta_atomic_lock_index).
 *
 *  The flags are bytes because GCC documents __atomic_test_and_set and __atomic_clear for bool
 *  and char operands only. A waiter spins on a plain relaxed load and retries the test-and-set
 *  only when the lock looks free, so waiting does not bounce the cache line between cores.
 */
#include "porta/atomic.h"

static unsigned char porta_atomic_host_locks_[PORTA_ATOMIC_LOCK_COUNT];

/** Tell the core it is in a spin-wait loop (frees pipeline resources for a sibling thread). */
static inline void porta_atomic_cpu_relax_(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

void porta_atomic_lock(const void *addr) {
  unsigned char *l = &porta_atomic_host_locks_[porta_atomic_lock_index(addr)];
  while (__atomic_test_and_set(l, __ATOMIC_ACQUIRE)) {
    while (__atomic_load_n(l, __ATOMIC_RELAXED)) porta_atomic_cpu_relax_();
  }
}

void porta_atomic_unlock(const void *addr) {
  __atomic_clear(&porta_atomic_host_locks_[porta_atomic_lock_index(addr)], __ATOMIC_RELEASE);
}
