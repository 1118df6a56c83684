/** @file recording.c
 *  The recording guard of a loop's body (porta/loop.h): while a body runs, porta_state_ says
 *  which loop records on which space, the calls a body may not make are refused, and the
 *  instances it forks from its space (porta_exec_wait) are tracked until it joins them. The
 *  runtime (porta_exec_wait, instances, fences) and the loops (loop.c) both call this file and
 *  not each other. */
#include "runtime_private.h"

int porta_refuse_in_loop_(const char *op, const char *label) {
  return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, label,
                     "called inside the body of loop '%s' (a body only launches kernels on its "
                     "execution space; do this before or after porta_loop_run)",
                     porta_state_.recording);
}

void porta_recording_begin_(const struct porta_loop *loop, const char *label, porta_exec exec,
                            int capturing) {
  porta_state_.recording = label;
  porta_state_.recording_exec = exec;
  porta_state_.recording_loop = loop;
  porta_state_.capturing = capturing;
  porta_state_.nforked = 0;
}

int porta_recording_end_(porta_exec exec) {
  const int unjoined = porta_state_.nforked > 0 ? porta_state_.forked[0] : -1;
  porta_join_forks_(exec); /* a recording ends whole either way */
  porta_state_.recording = NULL;
  porta_state_.recording_loop = NULL;
  porta_state_.capturing = 0;
  return unjoined;
}

int porta_forked_(porta_exec exec) {
  for (int k = 0; k < porta_state_.nforked; ++k)
    if (porta_state_.forked[k] == exec.instance) return 1;
  return 0;
}

int porta_recording_wait_(porta_exec exec, porta_exec after) {
  const porta_exec r = porta_state_.recording_exec;
  const char *loop = porta_state_.recording;
  if (exec.backend != r.backend)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "porta_exec_wait", NULL,
                       "an instance of %s inside loop '%s', whose space is %s",
                       porta_backend_name(exec.backend), loop, porta_backend_name(r.backend));
  const int joined = exec.instance == r.instance;
  const int from = after.instance == r.instance || porta_forked_(after);
  if (!from)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "porta_exec_wait", NULL,
                       "inside loop '%s': instance %d neither is the body's space nor was forked "
                       "from it",
                       loop, after.instance);
  if (joined) {
    for (int k = 0; k < porta_state_.nforked; ++k)
      if (porta_state_.forked[k] == after.instance)
        porta_state_.forked[k] = porta_state_.forked[--porta_state_.nforked];
    return PORTA_SUCCESS;
  }
  if (porta_forked_(exec)) return PORTA_SUCCESS;
  if (porta_state_.nforked == PORTA_MAX_FORKS)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "porta_exec_wait", NULL,
                       "inside loop '%s': more than %d instances forked at once", loop,
                       PORTA_MAX_FORKS);
  porta_state_.forked[porta_state_.nforked++] = exec.instance;
  return PORTA_SUCCESS;
}

void porta_join_forks_(porta_exec exec) {
  const porta_backend_ops *ops = porta_backend_usable_of_(exec.backend);
  for (int k = 0; k < porta_state_.nforked; ++k)
    if (ops && ops->order) (void)ops->order(exec.instance, porta_state_.forked[k]);
  porta_state_.nforked = 0;
}
