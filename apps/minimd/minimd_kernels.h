/** @file minimd_kernels.h
 *  miniMD's on-node work, each a Porta kernel on the run's execution space: image shifts of
 *  received ghosts, binning and the neighbour list, LJ and EAM forces, velocity Verlet and
 *  the sums of the thermo output. No MPI here: the kernel files include this header. */
#ifndef MINIMD_KERNELS_H
#define MINIMD_KERNELS_H

#include "minimd.h"

PORTA_EXTERN_C_BEGIN

/** x[first .. first + n) += shift (a swap's periodic image). */
int minimd_shift(porta_exec exec, porta_view_vec3 x, int64_t first, int64_t n,
                 const double shift[3]);
/** A swap with this rank itself: x[first + k] = x[list[k]] + shift for k < n; and in the same
 *  launch a second, independent one (list2, n2, first2, shift2; n2 = 0: none). */
int minimd_self_forward(porta_exec exec, porta_view_vec3 x, porta_view_i64 list, int64_t n,
                        int64_t first, const double shift[3], porta_view_i64 list2, int64_t n2,
                        int64_t first2, const double shift2[3]);
/** Its reverse: f[list[k]] += f[first + k]. */
int minimd_self_reverse(porta_exec exec, porta_view_vec3 f, porta_view_i64 list, int64_t n,
                        int64_t first);
/** list[k] = first + k for k < n. */
int minimd_iota(porta_exec exec, porta_view_i64 list, int64_t first, int64_t n);
/** One double per atom: s[first + k] = s[list[k]]. */
int minimd_self_scalar(porta_exec exec, porta_view_f64 s, porta_view_i64 list, int64_t n,
                       int64_t first);

/** Which atoms minimd_select picks along a dimension: within the closed slab [lo, hi] (ghost
 *  candidates, the reference's inclusive test), outside [lo, hi) (atoms leaving the
 *  sub-domain) or inside it. */
enum { MINIMD_SELECT_SLAB = 0, MINIMD_SELECT_OUTSIDE = 1, MINIMD_SELECT_INSIDE = 2 };
/** Doubles per atom in a migration message (x, v, type, id) and a ghost message (x, type,
 *  id); ids travel as doubles (below 2^53: checked at set-up). */
enum { MINIMD_MIGRATE_DOUBLES = 8, MINIMD_GHOST_DOUBLES = 5 };

/* The kernels of re-neighbouring on the execution space (driven by minimd_comm_device.c). */

/** Owned positions wrapped into the box of lengths prd. */
int minimd_wrap(porta_exec exec, minimd_atoms *at, const double prd[3]);
/** Indices i in [first, first + n) whose coordinate `dim` the mode picks, ascending, into
 *  list; *count of them. */
int minimd_select(porta_exec exec, const minimd_atoms *at, int64_t first, int64_t n, int dim,
                  int mode, double lo, double hi, porta_view_i64 list, int64_t *count);
/** Ghost first + k = atom list[k] + shift (position, type, id), k < n. */
int minimd_ghosts(porta_exec exec, minimd_atoms *at, porta_view_i64 list, int64_t n, int64_t first,
                  const double shift[3]);
/** Atom to[k] = atom from[k] (position, velocity, type, id), k < n. */
int minimd_move(porta_exec exec, minimd_atoms *at, porta_view_i64 from, porta_view_i64 to,
                int64_t n);
/** Atoms list[0..n) into buf, MINIMD_MIGRATE_DOUBLES each (with_v) or MINIMD_GHOST_DOUBLES. */
int minimd_pack(porta_exec exec, const minimd_atoms *at, porta_view_i64 list, int64_t n, int with_v,
                porta_view_f64 buf);
/** The n atoms of buf whose coordinate `dim` is in [lo, hi) (dim < 0: all of them) appended from
 * index first on, their positions + shift (NULL: none); *kept of them. A ghost message
 * (!with_v) is kept whole (dim < 0): one kernel, no count read back. */
int minimd_unpack(porta_exec exec, minimd_atoms *at, porta_view_f64 buf, int64_t n, int with_v,
                  int dim, double lo, double hi, int64_t first, const double shift[3],
                  int64_t *kept);

/** Bins and stencil for this rank's sub-box (host work; allocates the bin views). */
int minimd_neighbor_setup(minimd *m);
/** Bin every atom (owned and ghost) and build the owned atoms' lists, growing the bins and the
 *  list width as needed. */
int minimd_neighbor_build(minimd *m);
/** Sort the owned atoms by bin on the execution space, stably (in a bin by their old order),
 *  as minimd_sort_host does on the host: neighbours in space become neighbours in memory again
 *  after migration has filled holes from the tail. Call before the ghosts are made. */
int minimd_sort_device(minimd *m);
/** The sort's buffers for n owned atoms (kept when large enough; room for a fifth more). */
int minimd_sort_reserve(minimd *m, int64_t n);
/** Bin index of every owned atom on the host (for sorting): bin[i] for i < nlocal. */
void minimd_neighbor_bin_host(const minimd *m, const double *x, int64_t n, int64_t *bin);

/** Forces (and, when `eflag`, per-atom energy and virial) from the current list. */
int minimd_force_lj(minimd *m, int eflag);
/** The same for one side of a split full list: the atoms without a neighbour among other
 *  ranks' ghosts (border 0), which need no position but those of the leading self swaps, or
 *  those with one (border 1). */
int minimd_force_lj_part(minimd *m, int eflag, int border);
/** EAM in two passes around the halo exchange of F'(rho): densities and embedding terms of the
 *  owned atoms, then (ghosts' F' received) the pair forces. */
int minimd_force_eam(minimd *m, int eflag);
int minimd_force_eam_pairs(minimd *m, int eflag);

/** v += dtf f, x += dt v over the owned atoms; with final_first the previous step's
 *  minimd_final_integrate first, in the same pass (bit for bit the two calls). */
int minimd_initial_integrate(minimd *m, int final_first);
/** v += dtf f over the owned atoms. */
int minimd_final_integrate(minimd *m);

/** Local sums (slots 0..) for the thermo output: sum of m v^2; of the per-atom energy and
 *  virial; of each velocity component. */
int minimd_sum_mv2(minimd *m, double *local);
int minimd_sum_energy_virial(minimd *m, double local[2]);
int minimd_sum_velocity(minimd *m, double local[3]);
/** v = (v - vmean) * scale over the owned atoms. */
int minimd_velocity_adjust(minimd *m, const double vmean[3], double scale);

PORTA_EXTERN_C_END

#endif /* MINIMD_KERNELS_H */
