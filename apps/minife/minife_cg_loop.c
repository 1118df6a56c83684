/** @file minife_cg_loop.c
 *  CG on the device (minife.h, kernels in minife_cg_kernels.c): minife_cg's iteration (its pass
 *  body, minife_cg.c) recorded once as a deciding porta_loop, so that on a GPU a solve runs without
 * returning to the host; r.r, p.Ap, beta and ||r|| stay in device memory, the history of ||r|| too,
 * read back once. A p.Ap below the breakdown tolerance (the reference's test, rare) stops the loop
 * and leaves the test and what follows to the host. The divisions and branches are the host loop's,
 * so are the bits. On one rank, or on several whose sums and exchange of p NCCL queues on their
 * GPUs (porta/exchange_device.h); with --reproducible's exact sums too, whose accumulators stay
 * in device memory and are rounded there (app_sum_finish_on). Host code. */
#include <stdlib.h>
#include <string.h>

#include "app_env.h"
#include "minife.h"
#include "app_mpi.h"
#include "app_sum_comm.h"
#include "porta/exchange.h"

struct minife_cg_loop {
  minife_loop_state st;
  porta_loop *loop;
  minife_pass_body body; /**< the recorded iteration (minife_cg.c) */
  int max_iter;
  double tol;
};

/** The device loop asked for (MINIFE_DEVICE_LOOP, default: on a GPU), as one rank would
 *  have it. */
static int asked(const minife *m) {
  return app_loop_wanted(m->exec, "MINIFE_DEVICE_LOOP", 1, NULL);
}

int minife_cg_loop_wanted(const minife *m) {
  /* several ranks: queued sums and a whole exchange of p before the matvec (not the overlap's
     interior and boundary rows, which the host loop sums otherwise) */
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
  if (!l) return;
  if (l->st.s.data) porta_view_f64_release(&l->st.s);
  if (l->st.history.data) porta_view_f64_release(&l->st.history);
  if (l->st.n.data) porta_view_i64_release(&l->st.n);
  if (l->st.exact.data) porta_view_u8_release(&l->st.exact);
  if (l->st.wire.data) porta_view_f64_release(&l->st.wire);
  free(l);
  m->cg_loop = NULL;
}

int minife_pass_exchange_queued(minife_pass *p) {
  minife *m = p->m;
  if (!m->halo) return PORTA_SUCCESS;
  porta_view pv = PORTA_VIEW_ERASE(m->p);
  return porta_exchange_queue(m->halo, m->device, p->exec, &pv, 1);
}

int minife_pass_end_sum(minife_pass *p, int slot) {
  if (p->m->mesh.nranks < 2 || p->st->exact.data || !app_env_flag("MINIFE_LOOP_END", 1))
    return PORTA_SUCCESS;
  porta_reduce_end e;
  memset(&e, 0, sizeof e);
  int fused = 0;
  PORTA_CHECK(porta_device_comm_end_sum(p->m->device, &e, &fused));
  if (!fused) return PORTA_SUCCESS;
  p->ended |= 1u << slot;
  return porta_exec_end_next_reduction(p->exec, &e);
}

int minife_pass_sum_queued(minife_pass *p, int slot) {
  if (p->ended & 1u << slot) {
    p->ended &= ~(1u << slot);
    return PORTA_SUCCESS;
  }
  const minife_loop_state *st = p->st;
  if (st->exact.data) /* this rank's accumulator rounded, or summed over the ranks first */
    return app_sum_finish_on(p->exec, p->m->device, p->m->mesh.nranks,
                             minife_loop_sum_to(st, slot).exact, st->wire.data, &p->s[slot], 1);
  if (p->m->mesh.nranks < 2) return PORTA_SUCCESS;
  return porta_device_comm_sum(p->m->device, p->exec, &p->s[slot], 1);
}

/** The recorded pass: the body's steps launch on the loop's space into its device state. */
static int iteration(porta_exec exec, void *ctx) {
  minife *m = (minife *)ctx;
  struct minife_cg_loop *l = m->cg_loop;
  minife_pass p;
  memset(&p, 0, sizeof p);
  p.m = m;
  p.exec = exec;
  p.recorded = 1;
  p.s = l->st.s.data;
  p.n = l->st.n.data;
  p.history = l->st.history.data;
  p.st = &l->st;
  return l->body(&p);
}

/** The device state and the recorded loop (again if the limit or the tolerance changed). */
static int ready(minife *m, minife_pass_body body, int max_iter, double tol) {
  struct minife_cg_loop *l = m->cg_loop;
  if (!l) {
    l = (struct minife_cg_loop *)calloc(1, sizeof *l);
    if (!l) return porta_error(PORTA_ERROR_OUT_OF_MEMORY, "minife_cg", "cg loop", "calloc");
    m->cg_loop = l;
    PORTA_CHECK(porta_view_f64_create1(&l->st.s, "cg loop scalars", MINIFE_LOOP_NSCAL));
    PORTA_CHECK(porta_view_f64_create1(&l->st.history, "cg loop history", (int64_t)max_iter + 1));
    PORTA_CHECK(porta_view_i64_create1(&l->st.n, "cg loop counts", 3));
    if (app_sum_is_exact(m->sum)) {
      PORTA_CHECK(porta_view_u8_create1(&l->st.exact, "cg loop exact sums",
                                        MINIFE_LOOP_NSCAL * (int64_t)sizeof(porta_xsum_f64_value)));
      PORTA_CHECK(porta_view_f64_create1(&l->st.wire, "cg loop exact sums' wire", APP_SUM_WIRE));
    }
  }
  if (l->loop && l->body == body && l->max_iter == max_iter && l->tol == tol) return PORTA_SUCCESS;
  PORTA_CHECK(porta_loop_destroy(l->loop));
  l->loop = NULL;
  if (porta_extent(l->st.history, 0) < (int64_t)max_iter + 1) { /* a longer history */
    porta_view_f64_release(&l->st.history);
    PORTA_CHECK(porta_view_f64_create1(&l->st.history, "cg loop history", (int64_t)max_iter + 1));
  }
  l->body = body;
  l->max_iter = l->st.max_iter = max_iter;
  l->tol = l->st.tol = tol;
  return porta_loop_create_deciding("minife_cg_loop", m->exec, iteration, m, max_iter, &l->loop);
}

int minife_cg_loop_run(minife *m, minife_pass_body body, int max_iter, double tol, double rtrans,
                       double brkdown_tol, double *history, minife_loop_result *out) {
  memset(out, 0, sizeof *out);
  PORTA_CHECK(ready(m, body, max_iter, tol));
  struct minife_cg_loop *l = m->cg_loop;
  porta_mirror_f64 s, h;
  porta_mirror_i64 n;
  PORTA_CHECK(porta_view_f64_create_mirror_view(&s, &l->st.s));
  int rc = porta_view_i64_create_mirror_view(&n, &l->st.n);
  if (rc != PORTA_SUCCESS) {
    porta_mirror_f64_release(&s);
    return rc;
  }
  memset(s.data, 0, MINIFE_LOOP_NSCAL * sizeof(double));
  s.data[MINIFE_LOOP_RTRANS] = rtrans;
  s.data[MINIFE_LOOP_BRK] = brkdown_tol;
  n.data[0] = n.data[1] = n.data[2] = 0;
  rc = porta_deep_copy(l->st.s, s);
  if (rc == PORTA_SUCCESS) rc = porta_deep_copy(l->st.n, n);
  if (rc == PORTA_SUCCESS) rc = porta_loop_run(l->loop);
  if (rc == PORTA_SUCCESS) rc = porta_deep_copy(s, l->st.s); /* waits for the loop */
  if (rc == PORTA_SUCCESS) rc = porta_deep_copy(n, l->st.n);
  if (rc == PORTA_SUCCESS) {
    out->tops = (int)n.data[0];
    out->iterations = (int)n.data[1];
    out->suspect = n.data[2] == MINIFE_LOOP_SUSPECT;
    out->pAp = s.data[MINIFE_LOOP_PAP];
    out->rtrans = s.data[MINIFE_LOOP_RTRANS];
    out->rr_next = s.data[MINIFE_LOOP_RRN];
    rc = porta_view_f64_create_mirror_view(&h, &l->st.history);
    if (rc == PORTA_SUCCESS) {
      rc = porta_deep_copy(h, l->st.history);
      if (rc == PORTA_SUCCESS) memcpy(history + 1, h.data + 1, (size_t)out->tops * sizeof(double));
      porta_mirror_f64_release(&h);
    }
  }
  porta_mirror_f64_release(&s);
  porta_mirror_i64_release(&n);
  return rc;
}
