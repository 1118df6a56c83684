/** Exercise 06, solution: a 1D heat equation decomposed over MPI ranks, with the apps' halo
 *  exchange plan (core/exchange/include/porta/exchange.h).
 *
 *  The serial original (N cells, insulated ends: no heat leaves the rod):
 *
 *    u[-1] = u[0]; u[N] = u[N-1];                      (ghost cells mirror the ends)
 *    for (i = 0; i < N; ++i) unew[i] = u[i] + r * (u[i-1] - 2 u[i] + u[i+1]);
 *    swap(u, unew);                                    (nsteps times)
 *
 *  Decomposed: rank p owns a contiguous block of n cells, stored at indices 1..n of a view of
 *  n + 2; indices 0 and n + 1 are ghost cells. Before each step the ghost cells next to another
 *  rank receive that rank's edge cell (the halo exchange); at the rod's ends they mirror the
 *  end cell as before. The exchange is a porta_exchange plan: for each neighbour rank, which
 *  elements (offsets into the view) to send and where the received values go.
 *  Answers: on any number of ranks, (1) the total heat stays what it was, sum=468.3671875 (to
 *  1e-12 relative: insulated ends conserve it), and (2) every cell agrees with the serial
 *  loop above run on one rank (to 1e-12; the same bits on the host back ends).
 *  Run: mpiexec -n 2 tutorial_06_solution
 */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "porta/exchange.h"
#include "app_mpi.h"
#include "tutorial.h"

typedef struct {
  porta_view_f64 u, unew; /**< (n + 2): ghost, owned cells 1..n, ghost */
  double r;
} heat_args;

/* The update of the owned cells [1, n + 1). */
PORTA_FOR(heat_k, heat_args, a, i) {
  const double c = PORTA_AT1(a->u, i);
  PORTA_AT1(a->unew, i) = c + a->r * (PORTA_AT1(a->u, i - 1) - 2.0 * c + PORTA_AT1(a->u, i + 1));
}

/* Insulated rod ends: the ghost cell beyond an end mirrors the end cell (no flux). k = 0: the
 * left end (if this rank has it), k = 1: the right end. */
typedef struct {
  porta_view_f64 u;
  int64_t n;
  int left_end, right_end;
} ends_args;
PORTA_FOR(ends_k, ends_args, a, k) {
  if (k == 0 && a->left_end) PORTA_AT1(a->u, 0) = PORTA_AT1(a->u, 1);
  if (k == 1 && a->right_end) PORTA_AT1(a->u, a->n + 1) = PORTA_AT1(a->u, a->n);
}

/* This rank's heat: the sum over its owned cells. */
PORTA_REDUCE(heat_sum_k, heat_args, a, i, porta_sum_f64, acc) { *acc += PORTA_AT1(a->u, i); }

/** The initial temperature of global cell g: multiples of 1/128, so sums of them are exact. */
static double initial_u(int64_t g) { return (double)((g * 37) % 101) / 128.0; }

int main(int argc, char **argv) {
  app_mpi_init(&argc, &argv, "tutorial_06");
  APP_CHECK(porta_initialize(&argc, &argv));
  const int rank = app_mpi_rank(), nranks = app_mpi_size();
  const porta_exec space = porta_exec_default();

  const int64_t N = 1200;
  const int nsteps = 500;
  const double r = 0.4;
  if (N < nranks) app_exit_all(1, "%lld cells cannot be shared by %d ranks", (long long)N, nranks);
  /* This rank's block of cells: [g0, g0 + n). */
  const int64_t n = N / nranks + (rank < N % nranks ? 1 : 0);
  const int64_t g0 = rank * (N / nranks) + (rank < N % nranks ? rank : N % nranks);

  heat_args a;
  a.r = r;
  APP_CHECK(porta_view_f64_create1(&a.u, "u", n + 2));
  APP_CHECK(porta_view_f64_create1(&a.unew, "unew", n + 2));
  porta_mirror_f64 h;
  APP_CHECK(porta_view_f64_create_mirror_view(&h, &a.u));
  for (int64_t i = 1; i <= n; ++i) PORTA_S1(h, i) = initial_u(g0 + i - 1);
  APP_CHECK(porta_deep_copy(a.u, h));

  /* ---- the exchange plan ----
   * One entry per neighbour rank, with the offsets (elements from the view's data pointer)
   * of the values sent to it and of the places the values received from it go:
   *   left neighbour  (rank - 1): send my first cell (1),  receive into my left ghost (0);
   *   right neighbour (rank + 1): send my last cell (n),   receive into my right ghost (n + 1).
   * Both sides of a pair list each other once, so the messages match. A rank at an end of the
   * rod has no neighbour there; a single rank has none at all. */
  int ranks[2];
  int64_t send_count[2], send_index[2], recv_count[2], recv_index[2];
  int nn = 0;
  if (rank > 0) {
    ranks[nn] = rank - 1;
    send_count[nn] = recv_count[nn] = 1;
    send_index[nn] = 1;
    recv_index[nn] = 0;
    ++nn;
  }
  if (rank < nranks - 1) {
    ranks[nn] = rank + 1;
    send_count[nn] = recv_count[nn] = 1;
    send_index[nn] = n;
    recv_index[nn] = n + 1;
    ++nn;
  }
  porta_exchange_lists lists;
  lists.nneighbours = nn;
  lists.ranks = ranks;
  lists.send_count = send_count;
  lists.send_index = send_index;
  lists.recv_count = recv_count;
  lists.recv_index = recv_index;
  porta_exchange *halo = NULL;
  /* doubles, one field per exchange, packed and unpacked by kernels on `space`, MPI tag 61 */
  APP_CHECK(porta_exchange_create(&halo, "heat_halo", MPI_COMM_WORLD, &lists, sizeof(double), 1,
                                  space, 61));

  ends_args e;
  e.n = n;
  e.left_end = rank == 0;
  e.right_end = rank == nranks - 1;
  for (int step = 0; step < nsteps; ++step) {
    /* The halo exchange fills the ghost cells next to other ranks (the field in the plan's
     * terms: a type-erased view; its offsets are the plan's). Kernels queued after it on
     * `space` see the values. */
    porta_view field = PORTA_VIEW_ERASE(a.u);
    APP_CHECK(porta_exchange_run(halo, &field, 1));
    e.u = a.u;
    APP_CHECK(PORTA_PARALLEL_FOR(ends_k, space, porta_range(0, 2), &e));
    APP_CHECK(PORTA_PARALLEL_FOR(heat_k, space, porta_range(1, n + 1), &a));
    const porta_view_f64 t = a.u;
    a.u = a.unew;
    a.unew = t;
  }

  /* ---- checks ---- */
  int ok = 1;
  /* (1) The total heat: this rank's sum, then the global sum over the ranks. */
  double mine = 0.0, total = 0.0, initial = 0.0;
  APP_CHECK(PORTA_PARALLEL_REDUCE(heat_sum_k, space, porta_range(1, n + 1), &a, &mine));
  MPI_Allreduce(&mine, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  for (int64_t g = 0; g < N; ++g) initial += initial_u(g); /* exact: multiples of 1/128 */
  if (!(fabs(total - initial) <= 1e-12 * initial)) {
    if (rank == 0) fprintf(stderr, "total heat %.17g, was %.17g\n", total, initial);
    ok = 0;
  }

  /* (2) Every rank runs the serial original for the whole rod and compares its own cells. */
  double *ref = (double *)malloc((size_t)(N + 2) * sizeof(double));
  double *tmp = (double *)malloc((size_t)(N + 2) * sizeof(double));
  if (!ref || !tmp) app_fatal("out of memory");
  for (int64_t g = 0; g < N; ++g) ref[g + 1] = initial_u(g);
  for (int step = 0; step < nsteps; ++step) {
    ref[0] = ref[1];
    ref[N + 1] = ref[N];
    for (int64_t i = 1; i <= N; ++i) tmp[i] = ref[i] + r * (ref[i - 1] - 2.0 * ref[i] + ref[i + 1]);
    double *t = ref;
    ref = tmp;
    tmp = t;
  }
  APP_CHECK(porta_deep_copy(h, a.u));
  double diff = 0.0, max_diff = 0.0;
  for (int64_t i = 1; i <= n; ++i) {
    const double d = fabs(PORTA_S1(h, i) - ref[g0 + i]);
    if (!(d <= diff)) diff = d; /* a NaN sticks */
  }
  free(ref);
  free(tmp);
  MPI_Allreduce(&diff, &max_diff, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  if (!(max_diff <= 1e-12)) {
    if (rank == 0) fprintf(stderr, "max |u - serial| = %.3g, want <= 1e-12\n", max_diff);
    ok = 0;
  }

  if (rank == 0)
    printf("06_mpi_halo: ranks=%d backend=%s cells=%lld steps=%d sum=%.10f initial=%.10f "
           "max_diff_vs_serial=%.3g %s\n",
           nranks, porta_backend_name(space.backend), (long long)N, nsteps, total, initial,
           max_diff, ok ? "PASS" : "FAIL");
  fflush(stdout);

  porta_exchange_destroy(halo);
  porta_mirror_f64_release(&h);
  porta_view_f64_release(&a.u);
  porta_view_f64_release(&a.unew);
  app_mpi_finalize(); /* finalises Porta, then MPI */
  return ok ? 0 : 1;
}
