/** @file minimd_comm_grid.c
 *  miniMD's decomposition, as the reference's: the process grid px py pz = P with the least
 *  sub-domain surface (the first minimum in px, py order), periodic in every dimension, and
 *  per dimension 2 * need swaps, alternately to the lower and the upper neighbour, of the
 *  atoms within the neighbour cut-off of the face (inclusive bounds). Ghost k of swap s is the
 *  copy of sendlist[k] on the sender, plus the periodic image shift when the swap crosses the
 *  box, which the receiver adds. */
#include <math.h>
#include <stdlib.h>

#include "porta/exchange.h"
#include "porta/exchange_channel.h"
#include "porta/exchange_device.h"
#include "minimd_comm.h"

void minimd_comm_grid(minimd_comm *c, const double prd[3], int nranks, int rank) {
  const double area[3] = {prd[0] * prd[1], prd[0] * prd[2], prd[1] * prd[2]};
  double best = 2.0 * (area[0] + area[1] + area[2]) + 1.0;
  int grid[3] = {1, 1, nranks};
  for (int ipx = 1; ipx <= nranks; ++ipx) {
    if (nranks % ipx) continue;
    const int nremain = nranks / ipx;
    for (int ipy = 1; ipy <= nremain; ++ipy) {
      if (nremain % ipy) continue;
      const int ipz = nremain / ipy;
      const double surf = area[0] / ipx / ipy + area[1] / ipx / ipz + area[2] / ipy / ipz;
      if (surf < best) {
        best = surf;
        grid[0] = ipx;
        grid[1] = ipy;
        grid[2] = ipz;
      }
    }
  }
  c->rank = rank;
  c->nranks = nranks;
  for (int d = 0; d < 3; ++d) {
    c->procgrid[d] = grid[d];
    c->prd[d] = prd[d];
  }
  /* row-major ranks, z fastest (MPI_Cart_create without reordering) */
  c->myloc[0] = rank / (grid[1] * grid[2]);
  c->myloc[1] = (rank / grid[2]) % grid[1];
  c->myloc[2] = rank % grid[2];
  for (int d = 0; d < 3; ++d) {
    for (int side = 0; side < 2; ++side) {
      int loc[3] = {c->myloc[0], c->myloc[1], c->myloc[2]};
      loc[d] = (loc[d] + (side ? 1 : -1) + grid[d]) % grid[d];
      c->procneigh[d][side] = (loc[0] * grid[1] + loc[1]) * grid[2] + loc[2];
    }
    c->lo[d] = c->myloc[d] * prd[d] / grid[d];
    c->hi[d] = (c->myloc[d] + 1) * prd[d] / grid[d];
  }
}

int minimd_comm_setup(minimd_comm *c, double cutneigh) {
  c->cutneigh = cutneigh;
  c->nswap = 0;
  for (int d = 0; d < 3; ++d) {
    c->need[d] = (int)(cutneigh * c->procgrid[d] / c->prd[d] + 1);
    c->nswap += 2 * c->need[d];
  }
  c->swaps = (minimd_swap *)calloc((size_t)c->nswap, sizeof *c->swaps);
  if (!c->swaps)
    return porta_error(PORTA_ERROR_OUT_OF_MEMORY, "minimd_comm_setup", "swaps", "no memory");
  int s = 0;
  for (int d = 0; d < 3; ++d)
    for (int k = 0; k < 2 * c->need[d]; ++k, ++s) {
      minimd_swap *w = &c->swaps[s];
      w->dim = d;
      w->k = k;
      const int down = k % 2 == 0;
      w->sendproc = c->procneigh[d][down ? 0 : 1];
      w->recvproc = c->procneigh[d][down ? 1 : 0];
      w->self = w->sendproc == c->rank && w->recvproc == c->rank;
      if (down) {
        w->slablo = k < 2 ? -HUGE_VAL : 0.5 * (c->lo[d] + c->hi[d]);
        w->slabhi = c->lo[d] + cutneigh;
        /* what I receive comes from my upper neighbour: shifted down by the box when I am
           the last rank of this dimension (the sender then sits at the box's lower face) */
        w->shift[d] = c->myloc[d] == c->procgrid[d] - 1 ? c->prd[d] : 0.0;
      } else {
        w->slablo = c->hi[d] - cutneigh;
        w->slabhi = k < 2 ? HUGE_VAL : 0.5 * (c->lo[d] + c->hi[d]);
        w->shift[d] = c->myloc[d] == 0 ? -c->prd[d] : 0.0;
      }
    }
  return PORTA_SUCCESS;
}

static void swap_plans_free(minimd_swap *w) {
  porta_exchange_destroy(w->forward);
  porta_exchange_destroy(w->reverse);
  porta_exchange_destroy(w->forward_scalar);
  w->forward = w->reverse = w->forward_scalar = NULL;
}

void minimd_comm_free(minimd_comm *c) {
  for (int s = 0; s < c->nswap; ++s) {
    swap_plans_free(&c->swaps[s]);
    porta_view_i64_release(&c->swaps[s].list_d);
    free(c->swaps[s].sendlist);
  }
  free(c->swaps);
  c->swaps = NULL;
  porta_view_i64_release(&c->ghost_index);
  porta_channel_destroy(c->chan);
  c->chan = NULL;
  if (c->has_side) porta_exec_destroy_instance(c->side);
  c->has_side = 0;
  porta_device_comm_destroy(c->device); /* after the plans it served */
  c->device = NULL;
  porta_view_i64_release(&c->leave);
  porta_view_i64_release(&c->movers);
}
