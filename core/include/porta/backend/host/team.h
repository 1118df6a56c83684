/** @file backend/host/team.h
 *  The host back ends' team set-up. A host team's workspace block holds, each 64-byte
 *  aligned: the exchange slots, level-0 team scratch, level-0 per-thread scratch, level-1
 *  team, level-1 per-thread. */
#ifndef PORTA_BACKEND_HOST_TEAM_H
#define PORTA_BACKEND_HOST_TEAM_H

/** Bytes of one host team's workspace block. */
PORTA_FORCEINLINE_FUNCTION size_t porta_host_team_block_bytes_(const porta_team_policy *p) {
  size_t ts = (size_t)p->team_size, n = porta_align64_(ts * PORTA_TEAM_SLOT_BYTES);
  for (int l = 0; l < 2; ++l)
    n += porta_align64_(p->scratch_team[l]) + ts * porta_align64_(p->scratch_thread[l]);
  return n;
}

/** Point `t` at league rank `lr`, member `tr`, sharing `sh` and the block `blk`. */
PORTA_FORCEINLINE_FUNCTION void porta_host_team_setup_(porta_team *t, const porta_team_policy *p,
                                                       int64_t lr, int tr, porta_team_shared *sh,
                                                       char *blk) {
  size_t ts = (size_t)p->team_size, off = porta_align64_(ts * PORTA_TEAM_SLOT_BYTES);
  t->league_rank = lr;
  t->league_size = p->league_size;
  t->team_rank = tr;
  t->team_size = p->team_size;
  t->vector_length = 1;
  t->vector_lane = 0;
  sh->slots = blk;
  t->shared = sh;
  for (int l = 0; l < 2; ++l) {
    size_t tb = porta_align64_(p->scratch_team[l]), pb = porta_align64_(p->scratch_thread[l]);
    t->scratch[l] = blk + off;
    t->scratch_size[l] = p->scratch_team[l];
    t->scratch_used[l] = 0;
    t->thread_scratch[l] = blk + off + tb + (size_t)tr * pb;
    t->thread_scratch_size[l] = p->scratch_thread[l];
    t->thread_scratch_used[l] = 0;
    off += tb + ts * pb;
  }
}

#endif
