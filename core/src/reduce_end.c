/** @file reduce_end.c
 *  A reduction's end (porta/reduce_end.h): the ends set for the next reduction of an instance,
 *  handed to the launch that takes them, and their scalar steps on the host. */
#include <string.h>

#include "reduce_end_private.h"
#include "runtime_private.h"

/** Ends set and not yet taken, per host thread: one per instance that has one. */
#define PENDING_MAX 8
static _Thread_local struct {
  int used;
  porta_exec exec;
  porta_reduce_end end;
} pending[PENDING_MAX];

static int same_exec(porta_exec a, porta_exec b) {
  return a.backend == b.backend && a.instance == b.instance;
}

int porta_reduce_end_step(porta_reduce_end *end, porta_scalar_step_kind kind, double *dst,
                          const double *a, const double *b) {
  static const char op[] = "porta_reduce_end_step";
  if (!end || !dst || !a || (kind == PORTA_SCALAR_DIV && !b))
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, NULL, "a NULL end or operand");
  if (kind != PORTA_SCALAR_COPY && kind != PORTA_SCALAR_DIV)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, NULL, "unknown step kind %d", (int)kind);
  if (end->nsteps < 0 || end->nsteps >= PORTA_REDUCE_END_STEPS)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, NULL,
                       "an end holds at most %d steps (it has %d)", PORTA_REDUCE_END_STEPS,
                       (int)end->nsteps);
  porta_scalar_step *s = &end->steps[end->nsteps++];
  s->kind = (int32_t)kind;
  s->pad = 0;
  s->dst = dst;
  s->a = a;
  s->b = kind == PORTA_SCALAR_DIV ? b : NULL;
  return PORTA_SUCCESS;
}

int porta_exec_end_next_reduction(porta_exec exec, const porta_reduce_end *end) {
  static const char op[] = "porta_exec_end_next_reduction";
  if (!end) return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, NULL, "no end given");
  if (!porta_state_.initialized)
    return porta_error(PORTA_ERROR_NOT_INITIALIZED, op, NULL,
                       "porta_initialize has not been called");
  const porta_backend_ops *ops = porta_backend_usable_of_(exec.backend);
  if (!ops)
    return porta_error(PORTA_ERROR_UNSUPPORTED, op, NULL, "back end %d is not available",
                       (int)exec.backend);
  if (end->nsteps < 0 || end->nsteps > PORTA_REDUCE_END_STEPS)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, NULL, "%d steps (at most %d)",
                       (int)end->nsteps, PORTA_REDUCE_END_STEPS);
  if (end->nranks < 0 || end->nranks > PORTA_REDUCE_END_RANKS ||
      (end->nranks > 0 && (end->rank < 0 || end->rank >= end->nranks || !end->runs)))
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, NULL,
                       "a cross-rank sum of %d ranks (at most %d), rank %d", (int)end->nranks,
                       PORTA_REDUCE_END_RANKS, (int)end->rank);
  if (end->nranks > 0 && !ops->on_device)
    return porta_error(PORTA_ERROR_UNSUPPORTED, op, NULL,
                       "a cross-rank sum in a reduction's end needs a GPU back end, not %s",
                       porta_backend_name(exec.backend));
  int free_slot = -1;
  for (int k = 0; k < PENDING_MAX; ++k) {
    if (pending[k].used && same_exec(pending[k].exec, exec)) {
      pending[k].end = *end;
      return PORTA_SUCCESS;
    }
    if (!pending[k].used && free_slot < 0) free_slot = k;
  }
  if (free_slot < 0)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, NULL,
                       "ends set on %d instances and not yet taken", PENDING_MAX);
  pending[free_slot].used = 1;
  pending[free_slot].exec = exec;
  pending[free_slot].end = *end;
  return PORTA_SUCCESS;
}

int porta_reduce_end_take_(porta_launch *L, const porta_kernel *k, const char *op, int team,
                           porta_reduce_end *into) {
  for (int q = 0; q < PENDING_MAX; ++q) {
    if (!pending[q].used || !same_exec(pending[q].exec, L->exec)) continue;
    pending[q].used = 0;
    *into = pending[q].end;
    if (team)
      return porta_error(PORTA_ERROR_UNSUPPORTED, op, L->label,
                         "a reduction's end (porta_exec_end_next_reduction) is for range and "
                         "mdrange reductions");
    if (into->nranks > 0 && k->value_size != sizeof(double))
      return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, L->label,
                         "a cross-rank sum in the end of kernel '%s', whose value is %u bytes, "
                         "not one double",
                         k->name, (unsigned)k->value_size);
    L->end = into;
    return PORTA_SUCCESS;
  }
  return PORTA_SUCCESS;
}

int porta_reduce_end_settle_(porta_exec exec, int rc) {
  if (rc != PORTA_SUCCESS) (void)porta_reduce_end_drop_(exec);
  return rc;
}

int porta_reduce_end_drop_(porta_exec exec) {
  int dropped = 0;
  for (int q = 0; q < PENDING_MAX; ++q)
    if (pending[q].used && same_exec(pending[q].exec, exec)) {
      pending[q].used = 0;
      dropped = 1;
    }
  return dropped;
}

void porta_reduce_end_clear_(void) {
  for (int q = 0; q < PENDING_MAX; ++q) pending[q].used = 0;
}

int porta_reduce_end_host_(const porta_launch *L) {
  const porta_reduce_end *e = L->end;
  if (!e) return PORTA_SUCCESS;
  const porta_backend_ops *ops = porta_backend_ops_of_(L->exec.backend);
  if (ops && ops->on_device) return PORTA_SUCCESS; /* the kernel ran it */
  for (int k = 0; k < e->nsteps; ++k) {
    const porta_scalar_step *s = &e->steps[k];
    *s->dst = s->kind == PORTA_SCALAR_DIV ? *s->a / *s->b : *s->a;
  }
  return PORTA_SUCCESS;
}
