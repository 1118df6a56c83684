/** @file loop.h
 *  Recorded loops: a sequence of launches recorded once and run again and again, repeated
 *  while a flag that the launches themselves write says so, with no return to the host in
 *  between. A solver's iterations (kernels, reductions into device scalars, the convergence
 *  test and the loop) then run on a GPU without a host round trip per iteration.
 *
 *  The body is a function that launches the work of one pass on the execution space it is
 *  given. On CUDA it is called once, at porta_loop_create, while its launches are recorded into
 *  a CUDA graph; the loop is a conditional "while" node of that graph (CUDA 12.4 and later), so
 *  porta_loop_run is one graph launch, asynchronous like a kernel. On the host back ends the
 *  body is called on every pass by porta_loop_run: the same launches in the same order, so the
 *  same results, for the cost of a function call.
 *
 *  What a body may do: launch kernels on the execution space it is given, with reductions into
 *  memory of that space (porta_parallel_reduce_into); a launch elsewhere, a reduction returning
 *  to the host, a fence and a loop made or run inside fail with a message naming the loop (from
 *  porta_loop_create where the body is recorded, CUDA; from porta_loop_run on the host). What it
 * must not do: decide anything on the host from values the launches produce (they are not there
 * while it is recorded), or change arguments between runs: a run replays the arguments of the
 * recording. Values that change between runs live in device memory that the kernels read.
 *  @code
 *  static int cg_pass(porta_exec exec, void *ctx) {        // one CG iteration
 *    solver *s = ctx;
 *    PORTA_CHECK(PORTA_PARALLEL_REDUCE_INTO(calc_w, exec, s->box, &s->w_args, &s->dev[PW]));
 *    ...
 *    return PORTA_PARALLEL_FOR(decide, exec, porta_range(0, 1), &s->decide_args);  // repeat?
 *  }
 *  PORTA_CHECK(porta_loop_create("cg", exec, cg_pass, &s, s.repeat, max_iters, &loop));
 *  PORTA_CHECK(porta_loop_run(loop));   // every iteration, on the device
 *  PORTA_CHECK(porta_exec_fence(exec, "cg"));
 *  @endcode
 *  Profiling: on a GPU the launches inside a loop run inside the graph and are not reported one
 *  by one; each porta_loop_run is reported as one parallel_for named by the loop's label, to
 *  Kokkos Tools and in the profile table (which times it to its end). On the host back ends
 *  each launch of each pass is reported as usual, and the run itself is not.
 *
 *  Reductions share one launch workspace: a run, or a porta_parallel_reduce_into, must not
 *  overlap a reduction on another instance (fence between them, or keep them on one). */
#ifndef PORTA_LOOP_H
#define PORTA_LOOP_H

#include <stdint.h>

#include "porta/macros.h"
#include "porta/runtime.h"

PORTA_EXTERN_C_BEGIN

/** A recorded loop (porta_loop_create). */
typedef struct porta_loop porta_loop;

/** The launches of one pass, on `exec`; `ctx` is porta_loop_create's. Returns a Porta error
 *  code (PORTA_CHECK on its launches). */
typedef int (*porta_loop_body)(porta_exec exec, void *ctx);

/** 1 when a loop on `exec` is recorded once and replayed on the device, its passes and their
 *  decisions there (a back end that records: CUDA), 0 when porta_loop_run calls the body from
 *  the host on every pass. A solver whose iteration can run either way asks this, not which
 *  back end it has. */
PORTA_API int porta_loop_records(porta_exec exec);

/** Record `body` as a loop on `exec`. `repeat` points to an int32 in `exec`'s memory space
 *  (a device view's element on a GPU) that the body's launches write: after each pass, another
 *  runs if it is non-zero. The first pass always runs (do ... while). NULL: one pass per run,
 *  a recorded sequence. `max_passes` > 0 ends a run after that many passes whatever *repeat
 *  says (a guard against a body that never clears it); 0: no limit. `label` names the loop in
 *  messages and profiles. On failure *loop is NULL. Destroy loops before porta_finalize. */
PORTA_API int porta_loop_create(const char *label, porta_exec exec, porta_loop_body body, void *ctx,
                                const int32_t *repeat, int64_t max_passes, porta_loop **loop);
/** What a kernel of a deciding loop's body (porta_loop_create_deciding) passes to
 *  porta_loop_decide: the loop's condition, its flag and pass count in memory of its space. */
typedef struct porta_loop_handle {
  unsigned long long cond; /**< the CUDA graph's conditional handle (0 on the host) */
  int32_t *repeat;         /**< another pass follows (host back ends; NULL on CUDA) */
  int64_t *passes;         /**< passes of this run so far (the loop's memory) */
  int64_t max_passes;      /**< 0: no limit */
} porta_loop_handle;

/** A loop whose body decides by itself, in one of its kernels, whether another pass runs: that
 *  kernel calls porta_loop_decide once per pass (one thread), with the handle the body got from
 *  porta_loop_decider(). It may come anywhere in the pass: the pass runs to its end either way.
 *  This saves the one-thread kernel that a `repeat` flag costs at the end of every pass (a
 *  few microseconds on a GPU). The body must decide on every pass: porta_loop_decide is also
 *  what counts passes against max_passes, so on a GPU a body that never calls it repeats for
 *  ever (the host back ends stop it at max_passes when that is not 0). */
PORTA_API int porta_loop_create_deciding(const char *label, porta_exec exec, porta_loop_body body,
                                         void *ctx, int64_t max_passes, porta_loop **loop);
/** Inside a deciding loop's body: the handle its kernels pass to porta_loop_decide (zeroed, and
 *  an error recorded, elsewhere). */
PORTA_API porta_loop_handle porta_loop_decider(void);

/** Run `body`'s launches on `exec` only if the int32 at `flag` (memory of exec's space) is
 *  non-zero once the launches queued on exec before them are done: a rare step (an exact sum's
 *  second pass) that costs nothing when it is not taken. Inside a loop's body recorded on a GPU
 *  the choice is a conditional node of the graph, made on the device at every pass, and body
 *  is recorded into it (its launches on the space it is given, as a loop's body). Elsewhere the
 *  host reads the flag, after a wait for exec on a GPU (then body runs or not at once). */
PORTA_API int porta_exec_if(porta_exec exec, const int32_t *flag, porta_loop_body body, void *ctx);

/** The condition of a conditional step that a kernel decides itself (porta_cond_set, one thread,
 *  before the step), saving porta_exec_if's own one-thread kernel: `flag` an int32 in exec's
 *  memory, and inside a loop recorded on a GPU the graph's conditional handle. */
typedef struct porta_cond {
  unsigned long long handle; /**< the CUDA graph's conditional handle (0: none) */
  int32_t *flag;             /**< what porta_cond_set wrote (memory of exec's space) */
} porta_cond;
/** A condition for the next conditional step on exec (porta_exec_if_cond), to pass to the
 *  kernel that decides it. */
PORTA_API int porta_exec_cond(porta_exec exec, int32_t *flag, porta_cond *cond);
/** porta_exec_if on a condition a kernel set with porta_cond_set. */
PORTA_API int porta_exec_if_cond(porta_exec exec, const porta_cond *cond, porta_loop_body body,
                                 void *ctx);

/** Run the loop: passes until *repeat is 0 after one (or max_passes). Asynchronous on a GPU
 *  (fence `exec` before reading its results on the host); complete on return on the host. */
PORTA_API int porta_loop_run(porta_loop *loop);
/** The passes the last run made (waits for it: a fence of the loop's execution space). */
PORTA_API int porta_loop_passes(porta_loop *loop, int64_t *passes);
/** Wait for the loop's runs, release it (NULL: nothing to do). */
PORTA_API int porta_loop_destroy(porta_loop *loop);

PORTA_EXTERN_C_END

/* The device back end's way to set a recorded loop's condition from a kernel (its hooks,
   porta/backend/<device>/device.h); none on the host back ends, where the flag decides. */
#ifdef PORTA_DEVICE_LOOP_H
#include PORTA_DEVICE_LOOP_H
#endif
#ifndef PORTA_LOOP_SET_CONDITION_
#define PORTA_LOOP_SET_CONDITION_(cond, v) ((void)(cond), (void)(v))
#endif

/** In a kernel, from one thread, before the conditional step of `c` (porta_exec_if_cond): the
 *  step runs when v is non-zero. */
PORTA_INLINE_FUNCTION void porta_cond_set(const porta_cond *c, int v) {
  *c->flag = v != 0;
  if (c->handle) PORTA_LOOP_SET_CONDITION_(c->handle, v);
}

/** In a kernel of a deciding loop's body, from one thread once per pass: count the pass, and
 *  run another when `repeat` is non-zero and max_passes allows it. */
PORTA_INLINE_FUNCTION void porta_loop_decide(const porta_loop_handle *h, int repeat) {
  if (!h->passes) return; /* a zeroed handle: porta_loop_decider outside a deciding body */
  const int64_t n = ++*h->passes;
  const int v = repeat && (h->max_passes <= 0 || n < h->max_passes);
  if (h->repeat) *h->repeat = v;
  if (h->cond) PORTA_LOOP_SET_CONDITION_(h->cond, v);
}

#endif /* PORTA_LOOP_H */
