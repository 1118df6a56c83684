/** @file cuda/loop.cu
 *  Recorded loops on CUDA (porta/loop.h): the body's launches are captured from a stream of
 *  the loop's own into the body of a conditional "while" node (CUDA 12.4 and later), closed by
 *  a one-thread kernel that counts the pass and sets the node's condition from the body's
 *  repeat flag. A run is one graph launch on the loop's execution space: no return to the
 *  host between passes. Without a repeat flag the graph is the captured sequence alone. */
#include <cuda_runtime.h>
#include <stdlib.h>

#include "../loop_private.h"
#include "cuda_private.h"

#if CUDART_VERSION >= 12040
#define PORTA_CUDA_HAS_LOOPS 1
#else
#define PORTA_CUDA_HAS_LOOPS 0
typedef unsigned long long cudaGraphConditionalHandle; /* not used: no while nodes */
#endif

/** What a loop keeps: its graph, ready to launch, and its pass counter (device memory). */
typedef struct cuda_loop {
  int instance; /**< the stream the body was captured from */
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  int64_t *passes; /**< device memory: passes of the current run */
} cuda_loop;

#if PORTA_CUDA_HAS_LOOPS
/** The end of a pass: count it, and run another while *repeat and under max (0: no limit). */
__global__ void porta_cuda_loop_next_k_(cudaGraphConditionalHandle h, const int32_t *repeat,
                                        int64_t *passes, int64_t max) {
  const int64_t n = ++*passes;
  cudaGraphSetConditional(h, *repeat != 0 && (max <= 0 || n < max) ? 1u : 0u);
}
#endif

/** The end of a loop's only pass (no repeat flag): count it. */
__global__ void porta_cuda_loop_once_k_(int64_t *passes) { *passes = 1; }

static int loop_fail(cudaError_t e, const char *what, const char *label) {
  (void)cudaGetLastError(); /* not sticky: the context stays usable */
  return porta_error(PORTA_ERROR_BACKEND, "porta_loop_create", label, "%s: CUDA error %s: %s", what,
                     cudaGetErrorName(e), cudaGetErrorString(e));
}

/** Free what the loop holds (after porta_finalize only its host memory: the CUDA state went
 *  with the context's resources). */
static void release(cuda_loop *c) {
  if (porta_cuda_available_()) {
    if (c->exec) cudaGraphExecDestroy(c->exec);
    if (c->graph) cudaGraphDestroy(c->graph);
    if (c->passes) cudaFree(c->passes);
    if (c->instance > 0) porta_cuda_instance_destroy_(c->instance);
    porta_cuda_loops_alive_(-1);
  }
  free(c);
}

#define LOOP_TRY(call, what)                                                                       \
  do {                                                                                             \
    cudaError_t e_ = (call);                                                                       \
    if (e_ != cudaSuccess) return loop_fail(e_, what, l->label);                                   \
  } while (0)

/** The graph's skeleton: with a repeat flag, a while node whose body graph (*body) the
 *  recording fills; without, nothing yet (*body NULL: the recording makes the graph). */
static int make_graph(porta_loop *l, cuda_loop *c, cudaGraph_t *body,
                      cudaGraphConditionalHandle *h) {
  *body = NULL;
  LOOP_TRY(cudaMalloc((void **)&c->passes, sizeof *c->passes), "the pass counter");
  LOOP_TRY(cudaMemset(c->passes, 0, sizeof *c->passes), "the pass counter"); /* 0 before a run */
  if (!l->repeat && !l->deciding) return PORTA_SUCCESS;
#if PORTA_CUDA_HAS_LOOPS
  LOOP_TRY(cudaGraphCreate(&c->graph, 0), "a graph");
  LOOP_TRY(cudaGraphConditionalHandleCreate(h, c->graph, 1, cudaGraphCondAssignDefault),
           "a conditional handle");
  cudaGraphNodeParams p = {}; /* every field zero */
  p.type = cudaGraphNodeTypeConditional;
  p.conditional.handle = *h;
  p.conditional.type = cudaGraphCondTypeWhile;
  p.conditional.size = 1;
  cudaGraphNode_t node;
#if CUDART_VERSION >= 13000
  LOOP_TRY(cudaGraphAddNode(&node, c->graph, NULL, NULL, 0, &p), "the while node");
#else
  LOOP_TRY(cudaGraphAddNode(&node, c->graph, NULL, 0, &p), "the while node");
#endif
  *body = p.conditional.phGraph_out[0];
  if (l->deciding) { /* the kernels' handle: this graph's condition and count (no flag) */
    l->handle.cond = (unsigned long long)*h;
    l->handle.repeat = NULL;
    l->handle.passes = c->passes;
    l->handle.max_passes = l->max_passes;
  }
  return PORTA_SUCCESS;
#else
  (void)h;
  return porta_error(PORTA_ERROR_UNSUPPORTED, "porta_loop_create", l->label,
                     "a repeated loop needs CUDA 12.4 or later (conditional graph nodes); this "
                     "build has CUDA runtime %d",
                     CUDART_VERSION);
#endif
}

/** Record the body's launches on the loop's stream, then the kernel that ends a pass. */
static int record(porta_loop *l, cuda_loop *c, cudaGraph_t body, cudaGraphConditionalHandle h) {
  const cudaStream_t cs = (cudaStream_t)porta_cuda_stream_(c->instance);
  porta_exec on = l->exec;
  on.instance = c->instance;
#if PORTA_CUDA_HAS_LOOPS
  if (body)
    LOOP_TRY(cudaStreamBeginCaptureToGraph(cs, body, NULL, NULL, 0, cudaStreamCaptureModeRelaxed),
             "the recording");
  else
#endif
    LOOP_TRY(cudaStreamBeginCapture(cs, cudaStreamCaptureModeRelaxed), "the recording");
  int rc = porta_loop_call_body_(l, on, 1);
#if PORTA_CUDA_HAS_LOOPS
  if (body && !l->deciding) /* a deciding body's kernels count and decide themselves */
    porta_cuda_loop_next_k_<<<1, 1, 0, cs>>>(h, l->repeat, c->passes, l->max_passes);
  else if (!body)
#endif
    porta_cuda_loop_once_k_<<<1, 1, 0, cs>>>(c->passes);
  (void)h;
  cudaGraph_t got = NULL;
  const cudaError_t e = cudaStreamEndCapture(cs, &got);
  if (!body && got) c->graph = got; /* the recorded sequence is the graph */
  /* an invalidated recording into a while node's body: destroying the graph then crashed in
     the driver (CUDA 13.0), so it is left: the one thing a failed porta_loop_create keeps */
  if (body && e != cudaSuccess) c->graph = NULL;
  if (rc == PORTA_SUCCESS && e != cudaSuccess)
    rc = loop_fail(e, "the recording (a call in the body that a graph cannot hold?)", l->label);
  return rc;
}

extern "C" int porta_cuda_loop_record_(porta_loop *l) {
  cuda_loop *c = (cuda_loop *)calloc(1, sizeof *c);
  if (!c)
    return porta_error(PORTA_ERROR_OUT_OF_MEMORY, "porta_loop_create", l->label,
                       "no memory for the loop");
  porta_cuda_loops_alive_(1); /* from here the launch workspace is never freed under a graph */
  int rc = porta_cuda_instance_create_(PORTA_PRIORITY_NORMAL, &c->instance);
  if (rc != PORTA_SUCCESS) c->instance = 0;
  cudaGraph_t body = NULL;
  cudaGraphConditionalHandle h = 0;
  if (rc == PORTA_SUCCESS) rc = make_graph(l, c, &body, &h);
  if (rc == PORTA_SUCCESS) rc = record(l, c, body, h);
  if (rc == PORTA_SUCCESS) {
    const cudaError_t e = cudaGraphInstantiate(&c->exec, c->graph, 0);
    if (e != cudaSuccess) rc = loop_fail(e, "the graph's instantiation", l->label);
  }
  if (rc != PORTA_SUCCESS) {
    (void)cudaGetLastError();
    release(c);
    return rc;
  }
  /* the recording's stream is not needed to run the graph: give its instance back */
  if (porta_cuda_instance_destroy_(c->instance) == PORTA_SUCCESS) c->instance = 0;
  l->impl = c;
  return PORTA_SUCCESS;
}

#if PORTA_CUDA_HAS_LOOPS
/** Before a conditional step: its node runs when *flag is non-zero. */
__global__ void porta_cuda_if_set_k_(cudaGraphConditionalHandle h, const int32_t *flag) {
  cudaGraphSetConditional(h, *flag != 0 ? 1u : 0u);
}
#endif

static int if_fail(cudaError_t e, const char *what) {
  (void)cudaGetLastError();
  return porta_error(PORTA_ERROR_BACKEND, "porta_exec_if", porta_state_.recording,
                     "%s: CUDA error %s: %s", what, cudaGetErrorName(e), cudaGetErrorString(e));
}

#define IF_TRY(call, what)                                                                         \
  do {                                                                                             \
    cudaError_t e_ = (call);                                                                       \
    if (e_ != cudaSuccess) return if_fail(e_, what);                                               \
  } while (0)

#if PORTA_CUDA_HAS_LOOPS
/** The body recorded into the conditional node's graph from a stream of its own, the recording
 *  guard pointed at that stream's instance meanwhile. */
static int record_if_body(cudaGraph_t g, porta_exec exec, int (*body)(porta_exec, void *),
                          void *ctx) {
  int inst = 0;
  PORTA_CHECK(porta_cuda_instance_create_(PORTA_PRIORITY_NORMAL, &inst));
  const cudaStream_t s2 = (cudaStream_t)porta_cuda_stream_(inst);
  cudaError_t e = cudaStreamBeginCaptureToGraph(s2, g, NULL, NULL, 0, cudaStreamCaptureModeRelaxed);
  int rc = e == cudaSuccess ? PORTA_SUCCESS : if_fail(e, "the conditional step's recording");
  if (rc == PORTA_SUCCESS) {
    porta_exec on = exec;
    on.instance = inst;
    const porta_exec outer = porta_state_.recording_exec;
    porta_state_.recording_exec = on;
    rc = body(on, ctx);
    porta_state_.recording_exec = outer;
    cudaGraph_t got = NULL;
    e = cudaStreamEndCapture(s2, &got);
    if (rc == PORTA_SUCCESS && e != cudaSuccess)
      rc = if_fail(e, "the conditional step's recording (a call a graph cannot hold?)");
  }
  (void)porta_cuda_instance_destroy_(inst);
  return rc;
}
#endif

extern "C" int porta_cuda_exec_if_cond_(porta_exec exec, unsigned long long handle,
                                        const int32_t *flag, int (*body)(porta_exec, void *),
                                        void *ctx, int capturing);
extern "C" int porta_cuda_exec_cond_(porta_exec exec, unsigned long long *handle);

/** porta_exec_if: while a loop records, a one-thread kernel sets a conditional handle from the
 *  flag and an "if" node runs the body's graph; otherwise the host waits and reads the flag. */
extern "C" int porta_cuda_exec_if_(porta_exec exec, const int32_t *flag,
                                   int (*body)(porta_exec, void *), void *ctx, int capturing) {
  const cudaStream_t cs = (cudaStream_t)porta_cuda_stream_(exec.instance);
  if (!capturing) {
    PORTA_CHECK(porta_cuda_sync_(exec.instance, "porta_exec_if"));
    int32_t v = 0;
    IF_TRY(cudaMemcpy(&v, flag, sizeof v, cudaMemcpyDefault), "reading the flag");
    return v ? body(exec, ctx) : PORTA_SUCCESS;
  }
#if PORTA_CUDA_HAS_LOOPS
  unsigned long long h = 0;
  PORTA_CHECK(porta_cuda_exec_cond_(exec, &h));
  porta_cuda_if_set_k_<<<1, 1, 0, cs>>>((cudaGraphConditionalHandle)h, flag);
  IF_TRY(cudaGetLastError(), "the flag's kernel");
  return porta_cuda_exec_if_cond_(exec, h, flag, body, ctx, capturing);
#else
  (void)cs;
  return porta_error(PORTA_ERROR_UNSUPPORTED, "porta_exec_if", porta_state_.recording,
                     "a conditional step in a recording needs CUDA 12.4 or later");
#endif
}

/** porta_exec_cond while a loop records: a handle of the graph being recorded. */
extern "C" int porta_cuda_exec_cond_(porta_exec exec, unsigned long long *handle) {
#if PORTA_CUDA_HAS_LOOPS
  const cudaStream_t cs = (cudaStream_t)porta_cuda_stream_(exec.instance);
  cudaStreamCaptureStatus st;
  cudaGraph_t g = NULL;
  IF_TRY(cudaStreamGetCaptureInfo(cs, &st, NULL, &g, NULL, NULL, NULL), "the recording's state");
  cudaGraphConditionalHandle h;
  IF_TRY(cudaGraphConditionalHandleCreate(&h, g, 0, 0), "a conditional handle");
  *handle = (unsigned long long)h;
  return PORTA_SUCCESS;
#else
  (void)exec;
  *handle = 0;
  return PORTA_SUCCESS;
#endif
}

/** The "if" node on handle h (set by a kernel before it) and its body's recording; not
 *  capturing, the host reads the flag. */
extern "C" int porta_cuda_exec_if_cond_(porta_exec exec, unsigned long long handle,
                                        const int32_t *flag, int (*body)(porta_exec, void *),
                                        void *ctx, int capturing) {
  if (!capturing) return porta_cuda_exec_if_(exec, flag, body, ctx, 0);
#if PORTA_CUDA_HAS_LOOPS
  const cudaStream_t cs = (cudaStream_t)porta_cuda_stream_(exec.instance);
  cudaStreamCaptureStatus st;
  cudaGraph_t g = NULL;
  const cudaGraphNode_t *deps = NULL;
  const cudaGraphEdgeData *edges = NULL;
  size_t nd = 0;
  IF_TRY(cudaStreamGetCaptureInfo(cs, &st, NULL, &g, &deps, &edges, &nd), "the recording's state");
  cudaGraphNodeParams p = {}; /* every field zero */
  p.type = cudaGraphNodeTypeConditional;
  p.conditional.handle = (cudaGraphConditionalHandle)handle;
  p.conditional.type = cudaGraphCondTypeIf;
  p.conditional.size = 1;
  cudaGraphNode_t node;
  IF_TRY(cudaGraphAddNode(&node, g, deps, edges, nd, &p), "the conditional node");
  IF_TRY(cudaStreamUpdateCaptureDependencies(cs, &node, NULL, 1, cudaStreamSetCaptureDependencies),
         "the recording's dependencies");
  return record_if_body(p.conditional.phGraph_out[0], exec, body, ctx);
#else
  (void)exec, (void)handle, (void)flag, (void)body, (void)ctx;
  return porta_error(PORTA_ERROR_UNSUPPORTED, "porta_exec_if", porta_state_.recording,
                     "a conditional step in a recording needs CUDA 12.4 or later");
#endif
}

extern "C" int porta_cuda_loop_run_(porta_loop *l) {
  cuda_loop *c = (cuda_loop *)l->impl;
  const cudaStream_t st = (cudaStream_t)porta_cuda_stream_(l->exec.instance);
  cudaError_t e = cudaMemsetAsync(c->passes, 0, sizeof *c->passes, st);
  if (e == cudaSuccess) e = cudaGraphLaunch(c->exec, st);
  if (e != cudaSuccess)
    return porta_error(PORTA_ERROR_BACKEND, "porta_loop_run", l->label, "CUDA error %s: %s",
                       cudaGetErrorName(e), cudaGetErrorString(e));
  return PORTA_SUCCESS;
}

extern "C" int porta_cuda_loop_passes_(porta_loop *l, int64_t *passes) {
  cuda_loop *c = (cuda_loop *)l->impl;
  PORTA_CHECK(porta_cuda_sync_(l->exec.instance, l->label));
  const cudaError_t e = cudaMemcpy(passes, c->passes, sizeof *passes, cudaMemcpyDeviceToHost);
  if (e != cudaSuccess)
    return porta_error(PORTA_ERROR_BACKEND, "porta_loop_passes", l->label, "CUDA error %s: %s",
                       cudaGetErrorName(e), cudaGetErrorString(e));
  return PORTA_SUCCESS;
}

extern "C" int porta_cuda_loop_release_(porta_loop *l) {
  cuda_loop *c = (cuda_loop *)l->impl;
  if (!c) return PORTA_SUCCESS;
  const int rc =
      porta_cuda_available_() ? porta_cuda_sync_(l->exec.instance, l->label) : PORTA_SUCCESS;
  release(c);
  l->impl = NULL;
  return rc;
}
