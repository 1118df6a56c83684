"""The kernels of examples/python/lj_md.py's forces and thermo output: the LJ force of the
full neighbour list (with the energy and virial on a thermo step, a custom reducer's two sums),
the kinetic-energy sum behind the temperature, and the velocities' scaling to it."""
import porta


@porta.kernel
def force_lj(i: int, x: porta.f64[:, 3], f: porta.f64[:, 3], numneigh: porta.i32[:],
             neighbors: porta.i32[:, :], cutforcesq: float, sigma6: float, epsilon: float):
    """Atom i's LJ force from its full list, written (not added): each pair is computed by both
    of its atoms, so no two threads write one atom and no atomics are needed. The factor is 0
    beyond the cut-off (a select, not a branch)."""
    xi = x[i, 0]
    yi = x[i, 1]
    zi = x[i, 2]
    fx = 0.0
    fy = 0.0
    fz = 0.0
    for k in porta.simd_range(numneigh[i]):  # vectorised on the CPU, summed per lane
        j = neighbors[i, k]
        dx = xi - x[j, 0]
        dy = yi - x[j, 1]
        dz = zi - x[j, 2]
        rsq = dx * dx + dy * dy + dz * dz
        sr2 = 1.0 / rsq
        sr6 = sr2 * sr2 * sr2 * sigma6
        force = 48.0 * sr6 * (sr6 - 0.5) * sr2 * epsilon * float(rsq < cutforcesq)
        fx += dx * force
        fy += dy * force
        fz += dz * force
    f[i, 0] = fx
    f[i, 1] = fy
    f[i, 2] = fz


@porta.reducer
class EnergyVirial:
    """The sums of a thermo step: pair energy and virial (r^2 f_pair)."""
    e: float
    w: float

    def init(self):
        self.e = 0.0
        self.w = 0.0

    def join(self, other):
        self.e += other.e
        self.w += other.w


@porta.kernel
def force_lj_energy(i: int, acc: EnergyVirial, x: porta.f64[:, 3], f: porta.f64[:, 3],
                    numneigh: porta.i32[:], neighbors: porta.i32[:, :], cutforcesq: float,
                    sigma6: float, epsilon: float):
    """force_lj on a thermo step, also summing the energy and the virial; each pair is seen
    from both of its atoms, so half of it is this atom's."""
    xi = x[i, 0]
    yi = x[i, 1]
    zi = x[i, 2]
    fx = 0.0
    fy = 0.0
    fz = 0.0
    e = 0.0
    w = 0.0
    for k in porta.simd_range(numneigh[i]):  # vectorised on the CPU, summed per lane
        j = neighbors[i, k]
        dx = xi - x[j, 0]
        dy = yi - x[j, 1]
        dz = zi - x[j, 2]
        rsq = dx * dx + dy * dy + dz * dz
        sr2 = 1.0 / rsq
        sr6 = sr2 * sr2 * sr2 * sigma6
        force = 48.0 * sr6 * (sr6 - 0.5) * sr2 * epsilon * float(rsq < cutforcesq)
        fx += dx * force
        fy += dy * force
        fz += dz * force
        e += 4.0 * sr6 * (sr6 - 1.0) * epsilon if rsq < cutforcesq else 0.0
        w += rsq * force
    f[i, 0] = fx
    f[i, 1] = fy
    f[i, 2] = fz
    acc.e += 0.5 * e
    acc.w += 0.5 * w


@porta.kernel
def sum_mv2(i: int, acc: porta.Sum[porta.f64], mass: float, v: porta.f64[:, 3]):
    acc += (v[i, 0] * v[i, 0] + v[i, 1] * v[i, 1] + v[i, 2] * v[i, 2]) * mass


@porta.kernel
def scale_velocities(i: int, scale: float, v: porta.f64[:, 3]):
    for d in range(3):
        v[i, d] = v[i, d] * scale
