/** @file minimd.h
 *  miniMD on Porta: the state shared by the driver's files.
 *
 *  The problem (Mantevo miniMD, ref variant): atoms on an fcc lattice in a periodic box,
 *  Lennard-Jones or EAM (one DYNAMO funcfl file) forces from binned neighbour lists with a
 *  skin, rebuilt every `neigh_every` steps, and velocity Verlet (NVE). The box is split over
 *  the ranks in 3D; ghost atoms come from the reference's six swaps. docs/minimd.md maps it
 *  onto Porta. No MPI here: kernel files include this header. */
#ifndef MINIMD_H
#define MINIMD_H

#include <stdint.h>

#include "app_sum.h"
#include "porta/porta.h"

PORTA_EXTERN_C_BEGIN

/** A position, velocity or force: three doubles side by side (a gather of atom j's
 *  coordinates touches one 32-byte sector on a GPU, on a CPU one cache line). */
typedef struct minimd_vec3 {
  double v[3];
} minimd_vec3;
PORTA_DECLARE_VIEW(vec3, minimd_vec3, PORTA_TYPE_USER)

enum { MINIMD_UNITS_LJ = 0, MINIMD_UNITS_METAL = 1 };
enum { MINIMD_FORCE_LJ = 0, MINIMD_FORCE_EAM = 1 };

/** Run parameters: the reference's deck and command line, plus Porta's. */
typedef struct minimd_params {
  char input[1024];     /**< the deck's path (for messages and the report) */
  int units;            /**< MINIMD_UNITS_* */
  char data_file[1024]; /**< LAMMPS data file, "" for none */
  int force;            /**< MINIMD_FORCE_* */
  double epsilon, sigma;
  int64_t nx, ny, nz; /**< fcc unit cells per dimension */
  int64_t nsteps;
  double dt, temperature, density;
  int neigh_every;
  double cutforce, skin;
  int thermo_every;
  int ntypes;       /**< atom types (all pairs share the parameters) */
  int nbins[3];     /**< neighbour bins per dimension; 0: 5/6 of the cells */
  int half_neigh;   /**< 1 half list, 0 full list (-1: the reference's serial kernel) */
  int ghost_newton; /**< Newton's third law across ghosts (half lists) */
  int sort_every;   /**< -1: every re-neighbouring; 0: never; N: every N steps */
  int yaml_output;  /**< write miniMD-DATE.yaml */
  int yaml_screen;  /**< print the YAML on stdout too */
  int dump_every;   /**< snapshots of the atoms in minimd.h5 every N steps; 0: none */
} minimd_params;

/** Physical constants of a unit system and the potential's mass. */
typedef struct minimd_units {
  double mass, mvv2e, boltz, dof_boltz, t_scale, p_scale, e_scale, dtforce;
} minimd_units;

/** The EAM potential as spline coefficients (LAMMPS `pair eam`): 7 per knot. */
typedef struct minimd_eam {
  int nrho, nr;
  double drho, dr, rdrho, rdr, cut, cutsq, mass;
  porta_view_f64 frho, rhor, z2r; /**< [n + 1][7], row 0 unused (1-based like the file) */
  porta_view_f64 rho, fp;         /**< per atom: density, F'(rho) (fp includes ghosts) */
} minimd_eam;

/** The atoms of this rank: owned 0..nlocal-1, then ghosts (host arrays are authoritative
 *  between re-neighbourings only for what the host changes: ids, types, the ghost layout). */
typedef struct minimd_atoms {
  int64_t nlocal, nghost, cap; /**< counts and device capacity (owned + ghosts) */
  int64_t natoms;              /**< global */
  porta_view_vec3 x, v, f;     /**< device (execution space) */
  porta_view_i32 type;
  porta_view_i64 id;           /**< global id: a lattice site's number, decomposition independent */
  porta_view_f64 eatom, vatom; /**< per-atom energy and virial on thermo steps */
  /* host copies used at re-neighbouring (grown with realloc) */
  double *hx, *hv;
  int32_t *htype;
  int64_t *hid;
  int64_t hcap;
} minimd_atoms;

/** Bins and the neighbour list. */
typedef struct minimd_neighbor {
  int nbin[3]; /**< global bins per dimension */
  double binsize[3], bininv[3];
  int mbinlo[3], mbin[3]; /**< local bin grid (sub-box + cut-off + one bin) */
  int64_t mbins;
  porta_view_i32 bincount; /**< [mbins] atoms per bin (a counter while binning) */
  porta_view_i32 binstart; /**< [mbins + 1] each bin's first slot in the binned arrays */
  porta_view_vec3 binx;    /**< [atoms] positions in bin order */
  porta_view_i32 binatom;  /**< [atoms] the atom in each binned slot */
  int64_t binned_cap;
  porta_view_i32 rows; /**< the stencil as runs of consecutive bins: [2 * row] offset, count */
  int nrows;
  int half, newton; /**< list kind in use */
  int maxneighs;
  porta_view_i32 numneigh;  /**< [nlocal] */
  porta_view_i32 neighbors; /**< [nlocal][maxneighs], the back end's preferred layout */
  porta_view_i32 flag;      /**< [1] set when an atom is outside the bins */
  /* the device sort's copies of v, type and id (x goes through binx) */
  porta_view_vec3 sortv;
  porta_view_i32 sorttype;
  porta_view_i64 sortid;
  int check_sort; /**< MINIMD_CHECK_SORT=1: each device sort checks its bin order (the tests) */
  /* with `split` (the forces overlap the ghosts' messages): the owned atoms without a ghost
     of another rank among their neighbours (`inner`, ninner of them; the leading self swaps'
     ghosts, comm.leading_ghosts, are ready before them) and those with one (`border`),
     in index order, made at every build */
  int split;
  porta_view_i32 isborder, inner, border;
  int64_t ninner, nborder;
  int64_t nlocal_cap;
  double cutneighsq;
  int64_t builds;
} minimd_neighbor;

/** One ghost swap (see minimd_comm_grid.c). */
typedef struct minimd_swap {
  int dim, k; /**< its dimension, and its place among that dimension's 2 * need swaps */
  int sendproc, recvproc;
  double slablo, slabhi;
  int64_t nsend, nrecv, firstrecv;
  int64_t *sendlist; /**< host, nsend local indices */
  int64_t sendcap;
  double shift[3]; /**< added by the receiver to what it receives (periodic image) */
  struct porta_exchange *forward, *reverse, *forward_scalar;
  int self;              /**< the partner is this rank: the swap is a device copy */
  porta_view_i64 list_d; /**< sendlist on the execution space (every swap where the atoms are
                            re-neighboured there, else the self swaps only) */
} minimd_swap;

struct minimd;

/** The decomposition and the communication state (minimd_comm.h). */
typedef struct minimd_comm {
  int rank, nranks;
  int procgrid[3], myloc[3], procneigh[3][2];
  double prd[3];       /**< box lengths */
  double lo[3], hi[3]; /**< this rank's sub-box */
  int need[3];
  int nswap;
  minimd_swap *swaps;
  double cutneigh;
  int64_t max_ghosts;
  /** The first swap with another rank (nswap when none), and the ghosts the swaps before it
   *  make (ghosts nlocal to nlocal + leading_ghosts - 1, copies of this rank's own atoms):
   *  set at every re-neighbouring */
  int first_remote;
  int64_t leading_ghosts;
  /** The re-neighbouring's implementation (host or execution space), chosen at the first */
  int (*rebuild)(struct minimd *m, int64_t step, int sort);
  /** How the swaps with other ranks travel (their plans queued on the GPUs over `device`, or
   *  driven from the host), chosen at the first re-neighbouring; where it was a choice,
   *  `swaps_note` says which and why */
  char swaps_note[300];
  /* re-neighbouring on the execution space (minimd_comm_device.c): its messages (created at
     the first) and the migration's index lists */
  struct porta_channel
      *chan; /* (porta/exchange_channel.h carries MPI, which kernel files do not see) */
  porta_view_i64 leave, movers;
  porta_view_i64 ghost_index; /**< first, first + 1, ...: a swap's ghosts for its plans */
  int forward_pending; /**< 1 + the swap minimd_comm_forward_begin left in flight (0: none) */
  /** The device communicator the plans were prepared for (porta/exchange_device.h); NULL:
   *  the swaps are driven from the host */
  struct porta_device_comm *device;
  /** With `device`, an instance beside the run's where the queued swaps overlap the forces of
   *  the atoms without ghost neighbours (m->neigh.split) */
  porta_exec side;
  int has_side;
} minimd_comm;

/** Timers of the reference's performance summary (rank 0's wall seconds). */
typedef struct minimd_times {
  double total, force, neigh, comm, other, extra;
} minimd_times;

/** Thermo output so far (every thermo step). */
typedef struct minimd_thermo {
  int64_t n, cap;
  int64_t *step;
  double *t, *u, *p, *time;
} minimd_thermo;

/** The whole run. */
typedef struct minimd {
  minimd_params prm;
  minimd_units units;
  minimd_atoms atoms;
  minimd_neighbor neigh;
  minimd_comm comm;
  minimd_eam eam;
  minimd_thermo thermo;
  minimd_times times;
  porta_exec exec;
  app_sum *sum;
  int reproducible;
  int device_reneighbor; /**< on a GPU: re-neighbouring without the atoms visiting the host */
} minimd;

PORTA_EXTERN_C_END

#endif /* MINIMD_H */
