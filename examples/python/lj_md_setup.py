"""The set-up of examples/python/lj_md.py, on the host with NumPy, as miniMD does it: the
input deck, the fcc lattice and its velocities (miniMD's generator), and the bins with the
stencil of bins the neighbour list searches."""
import os

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DECK = os.path.join(ROOT, "inputs", "minimd", "in.lj.miniMD")


def read_deck(path):
    """miniMD's input deck: fixed line positions, the first tokens of a line (the rest is a
    comment). Only the LJ style without a data file is done here."""
    with open(path) as fh:
        lines = [line.split() for line in fh.read().splitlines()]
    tok = lambda n, k=0: lines[n - 1][k]  # noqa: E731 - line n (1-based), token k
    deck = dict(units=tok(3), datafile=tok(4), force=tok(5),
                epsilon=float(tok(6)), sigma=float(tok(6, 1)),
                nx=int(tok(7)), ny=int(tok(7, 1)), nz=int(tok(7, 2)),
                nsteps=int(tok(8)), dt=float(tok(9)), temperature=float(tok(10)),
                density=float(tok(11)), neigh_every=int(tok(12)),
                cutforce=float(tok(13)), skin=float(tok(13, 1)), thermo_every=int(tok(14)))
    if deck["units"] != "lj" or deck["force"] != "lj" or deck["datafile"] != "none":
        raise SystemExit("%s: this example does LJ units, the LJ force and a lattice only "
                         "(units %s, force %s, data file %s)"
                         % (path, deck["units"], deck["force"], deck["datafile"]))
    return deck


def park_miller(seed):
    """miniMD's "minimal standard" generator (Schrage's method) on an array of seeds: the
    seeds advanced in place, the draws returned."""
    ia, im, iq, ir = 16807, 2147483647, 127773, 2836
    k = seed // iq
    seed[...] = ia * (seed - k * iq) - ir * k
    seed[seed < 0] += im
    return seed * (1.0 / im)


def fcc_lattice(nx, ny, nz, density):
    """miniMD's atoms on one rank: the half-lattice points (i, j, k) with i + j + k even, k
    outermost, at (i, j, k) a / 2; velocities from the site's seed (five draws skipped before
    each component). Returns positions, velocities and the box lengths."""
    alat = (4.0 / density) ** (1.0 / 3.0)
    h = 0.5 * alat
    k, j, i = np.meshgrid(np.arange(2 * nz), np.arange(2 * ny), np.arange(2 * nx), indexing="ij")
    keep = (i + j + k) % 2 == 0
    i, j, k = i[keep], j[keep], k[keep]
    x = np.stack([h * i, h * j, h * k], axis=1).astype(np.float64)
    seed = (k * (2 * ny) + j) * (2 * nx) + i + 1
    v = np.empty_like(x)
    for d in range(3):
        for _ in range(5):
            park_miller(seed)
        v[:, d] = park_miller(seed)
    return x, v, np.array([nx * alat, ny * alat, nz * alat])


class BinGrid:
    """miniMD's bins (minimd_neighbor.c): nbin = 5/6 of the unit cells per axis, a local grid
    over the box plus the neighbour cut-off plus one bin on each side (for the ghosts), and the
    stencil: the bins whose closest approach is within the cut-off, as rows along x."""

    def __init__(self, ncells, prd, cutneigh):
        self.prd = prd
        self.nbin = np.array([max(1, int(5.0 / 6.0 * c)) for c in ncells])
        self.binsize = prd / self.nbin
        self.bininv = 1.0 / self.binsize
        below = -cutneigh - 1e-6 * prd
        lo = np.trunc(below * self.bininv) - 1.0 - 1.0  # below < 0: one more, then one extra
        hi = np.trunc((prd + cutneigh + 1e-6 * prd) * self.bininv) + 1.0
        self.mbinlo = lo.astype(np.int64)
        self.mbin = (hi - lo).astype(np.int64) + 1
        self.mbins = int(np.prod(self.mbin))
        reach = [int(cutneigh * self.bininv[d]) for d in range(3)]
        reach = [r + 1 if r * self.binsize[d] < 0.999 * cutneigh else r
                 for d, r in enumerate(reach)]
        self.rows = self._stencil_rows(reach, cutneigh * cutneigh)

    def _bindist(self, o):
        d2 = 0.0
        for d in range(3):
            if o[d] > 0:
                d2 += ((o[d] - 1) * self.binsize[d]) ** 2
            elif o[d] < 0:
                d2 += ((o[d] + 1) * self.binsize[d]) ** 2
        return d2

    def _stencil_rows(self, reach, cutsq):
        rows = []
        for k in range(-reach[2], reach[2] + 1):
            for j in range(-reach[1], reach[1] + 1):
                run = [i for i in range(-reach[0], reach[0] + 1)
                       if self._bindist((i, j, k)) < cutsq]
                if run:
                    rows.append(((k * self.mbin[1] + j) * self.mbin[0] + run[0], len(run)))
        return np.array(rows, dtype=np.int32)

    def kernel_arrays(self):
        grid = np.concatenate([self.prd, self.bininv]).astype(np.float64)
        igrid = np.concatenate([self.nbin, self.mbinlo, self.mbin]).astype(np.int32)
        return grid, igrid
