"""The simulated system of examples/python/lj_md.py: the atoms' arrays (porta.Views in the default
back end's memory) and miniMD's run on one rank: velocity Verlet (its kernels are here),
re-neighbouring every neigh_every steps (lj_md_neighbors.py), the forces and the thermo output
(lj_md_force.py)."""
import math
import time

import numpy as np

import porta
from lj_md_force import force_lj, force_lj_energy, scale_velocities, sum_mv2
from lj_md_neighbors import (bin_count, bin_fill, bin_order, bin_positions, bin_start, build_full,
                             copy_rows, ghost_select, permute, update_ghosts, wrap)
from lj_md_setup import BinGrid, fcc_lattice


# ---- kernels: integration ---------------------------------------------------------------------

@porta.kernel
def initial_integrate(i: int, dt: float, dtf: float, x: porta.f64[:, 3], v: porta.f64[:, 3],
                      f: porta.f64[:, 3]):
    """Half a kick and a drift: v += dtf f, x += dt v."""
    for d in range(3):
        v[i, d] += dtf * f[i, d]
        x[i, d] += dt * v[i, d]


@porta.kernel
def final_initial_integrate(i: int, dt: float, dtf: float, x: porta.f64[:, 3],
                            v: porta.f64[:, 3], f: porta.f64[:, 3]):
    """The previous step's second half-kick fused with this step's first one and the drift:
    one pass over the atoms where nobody looks at v in between (the same operations, in the
    same order, as final_integrate then initial_integrate)."""
    for d in range(3):
        v[i, d] += dtf * f[i, d]
        v[i, d] += dtf * f[i, d]
        x[i, d] += dt * v[i, d]


@porta.kernel
def final_integrate(i: int, dtf: float, v: porta.f64[:, 3], f: porta.f64[:, 3]):
    for d in range(3):
        v[i, d] += dtf * f[i, d]


# ---- the simulation ---------------------------------------------------------------------------

def view_of(host_array, label):
    """A view in the default memory space holding a copy of a host array (C order)."""
    v = porta.View(host_array.shape, host_array.dtype, layout="C", label=label)
    porta.deep_copy(v, np.ascontiguousarray(host_array))
    return v


class LJ:
    def __init__(self, deck):
        p = self.p = deck
        x, v, self.prd = fcc_lattice(p["nx"], p["ny"], p["nz"], p["density"])
        self.natoms = self.nlocal = len(x)
        self.cutneigh = p["cutforce"] + p["skin"]
        if np.any(self.prd < 2.0 * self.cutneigh):
            raise SystemExit("a box of %s is too small for one layer of ghosts of %g: use a "
                             "larger -s" % (self.prd, self.cutneigh))
        # LJ units: mass 1, mvv2e 1, k_B 1; dof_boltz 3N - 3
        n = float(self.natoms)
        self.mass = 1.0
        self.dof_boltz = 3.0 * n - 3.0
        self.t_scale = 1.0 / self.dof_boltz
        self.p_scale = 1.0 / 3.0 / float(np.prod(self.prd))
        self.e_scale = 0.5
        self.dtf = 0.5 * p["dt"] / self.mass
        self.cutforcesq = p["cutforce"] ** 2
        self.sigma6 = p["sigma"] ** 6
        self.grid = BinGrid((p["nx"], p["ny"], p["nz"]), self.prd, self.cutneigh)
        grid, igrid = self.grid.kernel_arrays()
        self.grid_d, self.igrid_d = view_of(grid, "grid"), view_of(igrid, "igrid")
        self.rows = view_of(self.grid.rows, "stencil_rows")
        self.bincount = porta.View(self.grid.mbins, porta.i32, label="bincount")
        self.binstart = porta.View(self.grid.mbins + 1, porta.i32, label="binstart")

        # per-atom arrays: owned atoms first, then their ghosts (x only); room for the ghosts
        # the shell of width cutneigh around the box holds at this density, plus a margin
        v = v - v.sum(axis=0) / n  # miniMD: the plain mean velocity removed, then scaled
        self.v = view_of(v, "v")
        self.valt = porta.View((self.natoms, 3), porta.f64, layout="C", label="v_sorted")
        self.f = porta.View((self.natoms, 3), porta.f64, layout="C", label="f")
        self.cap = 0
        shell = float(np.prod((self.prd + 2.0 * self.cutneigh) / self.prd))
        self._reserve(int(self.natoms * shell), x)
        t = self.temperature()
        porta.parallel_for(self.nlocal, scale_velocities, math.sqrt(p["temperature"] / t), self.v)
        self.maxneighs = 100
        self.numneigh = porta.View(self.natoms, porta.i32, label="numneigh")
        self.neighbors = porta.View((self.natoms, self.maxneighs), porta.i32, label="neighbors")
        self.nghost = 0

    def _reserve(self, nall, x0=None):
        """x (owned atoms and ghosts), its sorted copy, the binned atoms and the ghost lists
        hold nall atoms; grown with 20 % room, keeping the owned atoms (copied by a kernel, or
        x0 from the host at the start)."""
        if nall <= self.cap:
            return
        self.cap = nall + nall // 5 + 64
        x = porta.View((self.cap, 3), porta.f64, layout="C", label="x")
        if x0 is not None:
            xh = porta.create_mirror_view(x)
            np.asarray(xh)[:self.nlocal] = x0
            porta.deep_copy(x, xh)
        else:
            porta.parallel_for(self.nlocal, copy_rows, self.x, x)
        self.x = x
        self.xalt = porta.View((self.cap, 3), porta.f64, layout="C", label="x_sorted")
        self.atombin = porta.View(self.cap, porta.i32, label="atombin")
        self.binatom = porta.View(self.cap, porta.i32, label="binatom")
        self.binx = porta.View((self.cap, 3), porta.f64, layout="C", label="binx")
        self.owner = porta.View(self.cap, porta.i32, label="ghost_owner")
        self.shift = porta.View((self.cap, 3), porta.f64, layout="C", label="ghost_shift")

    # -- re-neighbouring ---------------------------------------------------------------------
    def reneighbor(self, sort):
        """miniMD's re-neighbouring on one rank, all in kernels: the owned atoms wrapped into
        the box, sorted by bin (a stable counting sort), the ghosts chosen, then the bins and
        the list. Only counts come back to the host (to size the arrays)."""
        n = self.nlocal
        porta.parallel_for(n, wrap, self.grid_d, self.x)
        if sort:  # atoms close in space close in memory: the force's gathers hit the cache
            self._bin(n)
            porta.parallel_for(n, permute, self.binatom, self.x, self.v, self.xalt, self.valt)
            self.x, self.xalt = self.xalt, self.x
            self.v, self.valt = self.valt, self.v
        self._borders()
        self.build()

    def _borders(self):
        """The ghosts, as miniMD's borders on one rank: along x, then y, then z, the atoms
        (owned, and the ghosts of the earlier axes) within cutneigh of the lower face are copied
        shifted up by the box, then those within cutneigh of the upper face shifted down. A ghost
        is (its owned atom, its total shift): its position x[owner] + shift is written here, and
        at every other step by the update_ghosts kernel. One scan per axis; its total is the
        only thing read back, and when the ghosts did not fit the arrays grow and it starts
        again."""
        n = self.nlocal
        while True:
            ng = 0
            for d in range(3):
                prd = float(self.prd[d])
                total = porta.parallel_scan(2 * (n + ng), ghost_select, d, n + ng, n, ng,
                                            self.cutneigh, prd - self.cutneigh, prd, self.x,
                                            self.owner, self.shift)
                ng += int(total)
                if n + ng > self.cap:
                    break
            if n + ng <= self.cap:
                break
            self._reserve(n + ng + ng // 2)  # ghosts of ghosts: the later axes add more
        self.nghost = ng

    def _bin(self, nall):
        """The first nall atoms in bins (count with atomics, scan, fill, each bin in the atoms'
        order): binstart[b] .. binstart[b + 1] of binatom are bin b's atoms."""
        self.bincount.fill(0)  # the last fill left it holding the counts
        outside = porta.parallel_reduce(nall, bin_count, self.x, self.grid_d, self.igrid_d,
                                        self.atombin, self.bincount)
        if nall and outside > 0:
            raise SystemExit("an atom left the bins: it moved farther than the skin allows "
                             "(or its position is not finite)")
        porta.parallel_scan(self.grid.mbins + 1, bin_start, self.bincount, self.binstart)
        porta.parallel_for(nall, bin_fill, self.atombin, self.binstart, self.bincount,
                           self.binatom)
        porta.parallel_for(self.grid.mbins, bin_order, self.binstart, self.binatom)

    def forward(self):
        """The ghosts' positions from their atoms (every step; miniMD's forward communication)."""
        porta.parallel_for(self.nghost, update_ghosts, self.nlocal, self.owner, self.shift,
                           self.x)

    def build(self):
        """Bins and the full list, grown if it overflowed."""
        nall = self.nlocal + self.nghost
        self._bin(nall)
        porta.parallel_for(nall, bin_positions, self.x, self.binatom, self.binx)
        while True:
            longest = porta.parallel_reduce(self.nlocal, build_full, self.x, self.atombin,
                                            self.binstart, self.binx, self.binatom, self.rows,
                                            self.cutneigh ** 2, self.numneigh, self.neighbors)
            if longest <= self.maxneighs:
                return
            self.maxneighs = int(1.2 * longest)
            self.neighbors = porta.View((self.natoms, self.maxneighs), porta.i32,
                                        label="neighbors")

    # -- forces and thermo -------------------------------------------------------------------
    def force(self, energy):
        args = (self.x, self.f, self.numneigh, self.neighbors, self.cutforcesq, self.sigma6,
                self.p["epsilon"])
        if energy:
            return porta.parallel_reduce(self.nlocal, force_lj_energy, *args)
        porta.parallel_for(self.nlocal, force_lj, *args)
        return None

    def temperature(self):
        return porta.parallel_reduce(self.nlocal, sum_mv2, self.mass, self.v) * self.t_scale

    def thermo(self, step, ev, elapsed):
        t = self.temperature()
        u = 2.0 * self.e_scale * ev.e / self.natoms
        pr = (t * self.dof_boltz + ev.w) * self.p_scale
        print("%d %e %e %e %6.3f" % (step, t, u, pr, elapsed), flush=True)
        return step, t, u, pr

    # -- the run -----------------------------------------------------------------------------
    def warm_up(self):
        """Every kernel of the timed loop launched once on no atoms: their module is compiled
        (or loaded from the cache) and specialised here, not in the timed loop."""
        dt, dtf = self.p["dt"], self.dtf
        porta.parallel_for(0, initial_integrate, dt, dtf, self.x, self.v, self.f)
        porta.parallel_for(0, final_initial_integrate, dt, dtf, self.x, self.v, self.f)
        porta.parallel_for(0, final_integrate, dtf, self.v, self.f)
        porta.parallel_for(0, permute, self.binatom, self.x, self.v, self.xalt, self.valt)
        porta.parallel_for(0, force_lj, self.x, self.f, self.numneigh, self.neighbors,
                           self.cutforcesq, self.sigma6, 1.0)

    def run(self, nsteps):
        """miniMD's loop (minimd_steps.c): step 0, then nsteps velocity-Verlet steps,
        re-neighbouring every neigh_every steps and the thermo output every thermo_every."""
        p = self.p
        dt, dtf, every, thermo_every = p["dt"], self.dtf, p["neigh_every"], p["thermo_every"]
        lines = []
        self.reneighbor(sort=False)  # miniMD sorts at re-neighbouring steps, not at step 0
        ev = self.force(energy=True)
        self.warm_up()
        print("# Starting dynamics ...\n# Timestep T U P Time", flush=True)
        lines.append(self.thermo(0, ev, 0.0))
        porta.fence()
        t0 = time.perf_counter()
        final_pending = False  # the last step's second half-kick left to the next first one
        for n in range(nsteps):
            integrate = final_initial_integrate if final_pending else initial_integrate
            porta.parallel_for(self.nlocal, integrate, dt, dtf, self.x, self.v, self.f)
            eflag = thermo_every > 0 and (n + 1) % thermo_every == 0
            if (n + 1) % every:
                self.forward()
            else:
                self.reneighbor(sort=True)
            ev = self.force(eflag)
            final_pending = not eflag and n + 1 < nsteps
            if not final_pending:
                porta.parallel_for(self.nlocal, final_integrate, dtf, self.v, self.f)
            if eflag:
                lines.append(self.thermo(n + 1, ev, time.perf_counter() - t0))
        porta.fence()
        elapsed = time.perf_counter() - t0
        if thermo_every == 0 or nsteps % thermo_every:
            lines.append(self.thermo(nsteps, self.force(energy=True), elapsed))
        return lines, elapsed
