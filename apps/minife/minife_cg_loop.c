/** @file minife_cg_loop.c
 *  CG's iterations as a device loop: minife_cg's pass body (minife_cg.c) recorded once as a
 *  deciding porta_loop, so that on a GPU a solve runs without returning to the host; its
 *  scalars and the history of ||r|| stay in device memory, read back once a run. A p.Ap below
 *  the breakdown tolerance (the reference's test, rare) stops the loop and leaves the test to
 *  the host. On one rank, or on several whose sums and exchange of p NCCL queues on their GPUs
 *  (porta/exchange_device.h), the exact sums of --reproducible too. Host code. */
#include <stdlib.h>
#include <string.h>

#include "app_mpi.h"
#include "minife.h"
#include "porta/exchange.h"
#include "porta/exchange_device.h"

struct minife_cg_loop {
  porta_loop *loop;
  minife_pass_body body; /**< the recorded iteration (minife_cg.c) */
  minife_ctl ctl;        /**< the control it was recorded with */
};

/** The device loop asked for (MINIFE_DEVICE_LOOP, default: on a GPU), as one rank would
 *  have it. */
static int asked(const minife *m) {
  return app_loop_wanted(m->exec, "MINIFE_DEVICE_LOOP", 1, NULL);
}

int minife_cg_loop_wanted(const minife *m) {
  /* several ranks: queued sums and a whole exchange of p before the matvec (not the overlap's
     interior and boundary rows, which are driven from the host) */
  return app_loop_wanted(m->exec, "MINIFE_DEVICE_LOOP", m->mesh.nranks, m->device) &&
         (m->mesh.nranks == 1 || !m->prm.mv_overlap);
}

int minife_cg_loop_comm(minife *m) {
  m->device_note[0] = '\0';
  if (m->mesh.nranks < 2 || !asked(m) || m->prm.mv_overlap) return PORTA_SUCCESS;
  PORTA_CHECK(app_device_comm_try(MPI_COMM_WORLD, m->exec, &m->device, m->device_note,
                                  sizeof m->device_note));
  return m->device && m->halo ? porta_exchange_prepare_queue(m->halo, m->device) : PORTA_SUCCESS;
}

void minife_cg_loop_free(minife *m) {
  struct minife_cg_loop *l = m->cg_loop;
  if (l) porta_loop_destroy(l->loop); /* it holds NCCL's work: before the communicator */
  porta_device_comm_destroy(m->device);
  m->device = NULL;
  free(l);
  m->cg_loop = NULL;
  if (m->cg_scalars.scal_v.data) app_scalars_release(&m->cg_scalars);
  if (m->cg_history.data) porta_view_f64_release(&m->cg_history);
}

/** The recorded pass: the body on the loop's space, its communication queued. */
static int recorded(porta_exec exec, void *ctx) {
  minife *m = (minife *)ctx;
  struct minife_cg_loop *l = m->cg_loop;
  double t[4] = {0.0, 0.0, 0.0, 0.0}; /* recording: nothing to time */
  minife_pass p;
  memset(&p, 0, sizeof p);
  p.m = m;
  p.exec = exec;
  p.ctl = l->ctl;
  p.ctl.loop = porta_loop_decider();
  p.t = t;
  m->queueing = 1;
  const int rc = l->body(&p);
  m->queueing = 0;
  return rc;
}

/** The recorded loop (again if the body or its control changed). */
static int ready(minife *m, minife_pass_body body, const minife_ctl *ctl) {
  struct minife_cg_loop *l = m->cg_loop;
  if (!l) {
    l = (struct minife_cg_loop *)calloc(1, sizeof *l);
    if (!l) return porta_error(PORTA_ERROR_OUT_OF_MEMORY, "minife_cg", "cg loop", "calloc");
    m->cg_loop = l;
  }
  if (l->loop && l->body == body && l->ctl.max_iter == ctl->max_iter && l->ctl.tol == ctl->tol &&
      l->ctl.s.data == ctl->s.data && l->ctl.history.data == ctl->history.data)
    return PORTA_SUCCESS;
  PORTA_CHECK(porta_loop_destroy(l->loop));
  l->loop = NULL;
  l->body = body;
  l->ctl = *ctl;
  return porta_loop_create_deciding("minife_cg_loop", m->exec, recorded, m, ctl->max_iter,
                                    &l->loop);
}

int minife_cg_loop_run(minife *m, minife_pass_body body, const minife_ctl *ctl) {
  PORTA_CHECK(ready(m, body, ctl));
  return porta_loop_run(m->cg_loop->loop);
}
