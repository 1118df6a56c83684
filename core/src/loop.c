/** @file loop.c
 *  Recorded loops (porta/loop.h): checks, the back end's record when it has one (a CUDA
 *  graph), else the body called on every pass. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loop_private.h"
#include "profiling_private.h"
#include "reduce_end_private.h"

int porta_loop_call_body_(porta_loop *loop, porta_exec exec, int capturing) {
  const unsigned long errors = porta_error_serial_();
  porta_recording_begin_(loop, loop->label, exec, capturing);
  int rc = loop->body(exec, loop->ctx);
  const int unjoined = porta_recording_end_(exec);
  const int end_left = porta_reduce_end_drop_(exec); /* not for a launch after the body */
  if (rc == PORTA_SUCCESS && end_left)
    rc = porta_error(PORTA_ERROR_INVALID_ARGUMENT,
                     capturing ? "porta_loop_create" : "porta_loop_run", loop->label,
                     "the body set a reduction's end (porta_exec_end_next_reduction) that no "
                     "reduction of the body took");
  if (rc == PORTA_SUCCESS && unjoined >= 0)
    rc = porta_error(PORTA_ERROR_INVALID_ARGUMENT,
                     capturing ? "porta_loop_create" : "porta_loop_run", loop->label,
                     "the body forked instance %d (porta_exec_wait) and did not join it: wait for "
                     "it on the body's space before the body returns",
                     unjoined);
  if (rc != PORTA_SUCCESS && porta_error_serial_() == errors) /* the body said nothing */
    return porta_error(rc, capturing ? "porta_loop_create" : "porta_loop_run", loop->label,
                       "the loop's body failed");
  return rc;
}

/** Both kinds of loop: a repeat flag the body writes, or (deciding) kernels that decide. */
static int create(const char *op, const char *label, porta_exec exec, porta_loop_body body,
                  void *ctx, const int32_t *repeat, int deciding, int64_t max_passes,
                  porta_loop **loop) {
  if (!loop) return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, label, "no loop pointer");
  *loop = NULL;
  if (!porta_state_.initialized)
    return porta_error(PORTA_ERROR_NOT_INITIALIZED, op, label,
                       "porta_initialize has not been called");
  if (!body) return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, label, "no body given");
  if (max_passes < 0)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, label,
                       "max_passes is %lld; it must be 0 (no limit) or more",
                       (long long)max_passes);
  if (porta_state_.recording)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, label,
                       "a loop created inside the body of loop '%s'", porta_state_.recording);
  const porta_backend_ops *ops = porta_backend_usable_of_(exec.backend);
  if (!ops)
    return porta_error(PORTA_ERROR_UNSUPPORTED, op, label, "the %s back end is not available",
                       porta_backend_name(exec.backend));
  porta_loop *l = (porta_loop *)calloc(1, sizeof *l);
  if (!l) return porta_error(PORTA_ERROR_OUT_OF_MEMORY, op, label, "no memory for the loop");
  snprintf(l->label, sizeof l->label, "%s", label ? label : "porta_loop");
  l->exec = exec;
  l->body = body;
  l->ctx = ctx;
  l->repeat = repeat;
  l->max_passes = max_passes;
  l->deciding = deciding;
  if (deciding) { /* the host back ends' handle; a recording back end fills in its own */
    l->handle.repeat = &l->host_repeat;
    l->handle.passes = &l->passes;
    l->handle.max_passes = max_passes;
  }
  if (ops->loop_record) {
    const int rc = ops->loop_record(l);
    if (rc != PORTA_SUCCESS) {
      free(l);
      return rc;
    }
    l->ops = ops;
  }
  *loop = l;
  return PORTA_SUCCESS;
}

int porta_loop_records(porta_exec exec) {
  const porta_backend_ops *ops = porta_backend_usable_of_(exec.backend);
  return ops && ops->loop_record != NULL;
}

int porta_loop_create(const char *label, porta_exec exec, porta_loop_body body, void *ctx,
                      const int32_t *repeat, int64_t max_passes, porta_loop **loop) {
  return create("porta_loop_create", label, exec, body, ctx, repeat, 0, max_passes, loop);
}

int porta_loop_create_deciding(const char *label, porta_exec exec, porta_loop_body body, void *ctx,
                               int64_t max_passes, porta_loop **loop) {
  return create("porta_loop_create_deciding", label, exec, body, ctx, NULL, 1, max_passes, loop);
}

porta_loop_handle porta_loop_decider(void) {
  porta_loop_handle h;
  memset(&h, 0, sizeof h);
  const porta_loop *l = porta_state_.recording_loop;
  if (!l || !l->deciding) {
    porta_error(PORTA_ERROR_INVALID_ARGUMENT, "porta_loop_decider", l ? l->label : NULL,
                "called outside the body of a deciding loop (porta_loop_create_deciding)");
    return h;
  }
  return l->handle;
}

/** A conditional step's checks (op: the caller): a flag and a body, a usable back end, and
 *  inside a loop's body the body's space. */
static int check_step(const char *op, porta_exec exec, const int32_t *flag, porta_loop_body body,
                      const porta_backend_ops **ops) {
  if (!flag || !body)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, porta_state_.recording,
                       "no flag or no body given");
  *ops = porta_backend_usable_of_(exec.backend);
  if (!*ops)
    return porta_error(PORTA_ERROR_UNSUPPORTED, op, NULL, "the %s back end is not available",
                       porta_backend_name(exec.backend));
  const porta_exec r = porta_state_.recording_exec;
  if (porta_state_.recording && (exec.backend != r.backend || exec.instance != r.instance))
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, porta_state_.recording,
                       "inside loop '%s': a conditional step on %s instance %d, not on the "
                       "body's space",
                       porta_state_.recording, porta_backend_name(exec.backend), exec.instance);
  return PORTA_SUCCESS;
}

int porta_exec_if(porta_exec exec, const int32_t *flag, porta_loop_body body, void *ctx) {
  const porta_backend_ops *ops = NULL;
  PORTA_CHECK(check_step("porta_exec_if", exec, flag, body, &ops));
  if (ops->exec_if) return ops->exec_if(exec, flag, body, ctx, porta_state_.capturing);
  /* the host back ends: the launches before are done, the flag in host memory */
  return *(const volatile int32_t *)flag ? body(exec, ctx) : PORTA_SUCCESS;
}

int porta_exec_cond(porta_exec exec, int32_t *flag, porta_cond *cond) {
  if (!flag || !cond)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "porta_exec_cond", porta_state_.recording,
                       "no flag or no condition given");
  const porta_backend_ops *ops = porta_backend_usable_of_(exec.backend);
  if (!ops)
    return porta_error(PORTA_ERROR_UNSUPPORTED, "porta_exec_cond", NULL,
                       "the %s back end is not available", porta_backend_name(exec.backend));
  cond->flag = flag;
  cond->handle = 0;
  return ops->exec_cond && porta_state_.capturing ? ops->exec_cond(exec, &cond->handle)
                                                  : PORTA_SUCCESS;
}

int porta_exec_if_cond(porta_exec exec, const porta_cond *cond, porta_loop_body body, void *ctx) {
  if (!cond)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "porta_exec_if_cond", porta_state_.recording,
                       "no condition given (porta_exec_cond)");
  if (!cond->handle) return porta_exec_if(exec, cond->flag, body, ctx);
  const porta_backend_ops *ops = NULL;
  PORTA_CHECK(check_step("porta_exec_if_cond", exec, cond->flag, body, &ops));
  return ops->exec_if_cond(exec, cond->handle, cond->flag, body, ctx, porta_state_.capturing);
}

int porta_loop_run(porta_loop *loop) {
  static const char op[] = "porta_loop_run";
  if (!loop) return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, NULL, "no loop given");
  if (porta_state_.recording)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, loop->label,
                       "a loop run inside the body of loop '%s'", porta_state_.recording);
  if (!loop->ops) { /* the host: the body on every pass, its launches reported as usual */
    int rc, again;
    loop->passes = 0;
    do {
      const int64_t before = loop->passes;
      loop->host_repeat = 1; /* a body that does not decide repeats (to max_passes) */
      rc = porta_loop_call_body_(loop, loop->exec, 0);
      if (!loop->deciding || loop->passes == before) ++loop->passes;
      again = loop->deciding ? loop->host_repeat : loop->repeat && *loop->repeat;
    } while (rc == PORTA_SUCCESS && again &&
             (loop->max_passes == 0 || loop->passes < loop->max_passes));
    return rc;
  }
  /* a recorded graph hides its launches: the run is reported as one kernel */
  uint64_t h = 0;
  if (PORTA_UNLIKELY(porta_profiling_active_))
    h = porta_profile_begin_kernel_(PORTA_PATTERN_FOR, loop->label,
                                    porta_profile_device_id(loop->exec.backend,
                                                            (uint32_t)porta_state_.device_id,
                                                            (uint32_t)loop->exec.instance));
  int rc = loop->ops->loop_run(loop);
  if (PORTA_UNLIKELY(porta_profiling_active_)) {
    if (porta_state_.profile_table && rc == PORTA_SUCCESS) rc = porta_fence_quiet_(loop->exec);
    porta_profile_end_kernel_(PORTA_PATTERN_FOR, h);
  }
  return rc;
}

int porta_loop_passes(porta_loop *loop, int64_t *passes) {
  if (!loop || !passes)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "porta_loop_passes", NULL,
                       "no loop or no result pointer");
  if (porta_state_.recording) return porta_refuse_in_loop_("porta_loop_passes", loop->label);
  if (!loop->ops) {
    *passes = loop->passes;
    return PORTA_SUCCESS;
  }
  return loop->ops->loop_passes(loop, passes);
}

int porta_loop_destroy(porta_loop *loop) {
  if (!loop) return PORTA_SUCCESS;
  if (porta_state_.recording) return porta_refuse_in_loop_("porta_loop_destroy", loop->label);
  const int rc = loop->ops ? loop->ops->loop_release(loop) : PORTA_SUCCESS;
  free(loop);
  return rc;
}
