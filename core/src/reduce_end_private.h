/** @file reduce_end_private.h
 *  A reduction's end (porta/reduce_end.h) between dispatch.c and reduce_end.c. */
#ifndef PORTA_REDUCE_END_PRIVATE_H
#define PORTA_REDUCE_END_PRIVATE_H

#include "porta/porta.h"

/** Give the launch of kernel `k` (a reduction into memory; `team`: over a team policy) the end
 *  set for its instance, if any (stored in *into, L->end = into), and check that it can run it. */
int porta_reduce_end_take_(porta_launch *L, const porta_kernel *k, const char *op, int team,
                           porta_reduce_end *into);
/** `rc`, a reduction into memory's status on `exec`: when it failed, the end set for `exec` (if
 *  the launch did not take it) is dropped, so that no later reduction takes it. */
int porta_reduce_end_settle_(porta_exec exec, int rc);
/** Drop the end set for `exec` and not taken; 1 if there was one. */
int porta_reduce_end_drop_(porta_exec exec);
/** Drop every end this host thread set and no reduction took (porta_finalize). */
void porta_reduce_end_clear_(void);
/** After a host back end's launcher: the end's scalar steps (a device launcher ran them). */
int porta_reduce_end_host_(const porta_launch *L);

#endif
