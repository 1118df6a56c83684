"""TeaLeaf's conjugate-gradient heat conduction (apps/tealeaf, docs/tealeaf.md) in Python: the
kernels are Porta kernels, the fields Porta views, the ranks mpi4py's.

    build/python-venv/bin/python examples/python/tealeaf_cg.py inputs/tealeaf/tea_bm_1.in
    mpirun -np 2 build/python-venv/bin/python examples/python/tealeaf_cg.py DECK [--steps N]
    ... [--porta-backend=serial|openmp|cuda] [--porta-threads=N]

Each time step solves the implicit system A u = u0 (u = energy x density) by CG, then sets
energy = u / density. It prints what the C app prints for the same deck (the iteration count
and the conduction error of each step, the field summaries), then one line for benchmarks:
`iterations=N solve_seconds=S ms_per_iteration=M` (CG iterations executed, and the time of the
steps, the kernels' compilation excluded). On the host its numbers are the C app's with
`--sums ordinary` to the last bit on the same back end and thread count: the kernels evaluate the same expressions in the
same order, fused the same way (tea_kernels_cg.c's "lean" iteration, 3 kernels and 2 global
sums per iteration), and Porta's reductions sum in the same order for both.

The fields live in the default back end's memory (the GPU's on CUDA) in its default layout, so
the program runs unchanged on every back end; each is a porta.subview of a View with padded
lines, laid out as the C app's. A rank holds its block of nx x ny cells (the C app's
decomposition, porta.exchange.Decomp) with G = 1 ghost layer each side: field index [k, j] is
row k (y) and column j (x), the interior [G, G + ny) x [G, G + nx). Kx[k, j] is the left face
of cell j, Ky[k, j] the bottom face of cell k. Ghost layers come from the neighbours through
porta.exchange.Halo2D; global sums are a Porta reduction on each rank, then one MPI_Allreduce on
mpi4py's communicator (porta.exchange.global_sum).
"""
import argparse
import gc
import math
import sys
import time
import traceback

import porta

try:  # several ranks need mpi4py and porta.exchange; one rank runs without them
    from mpi4py import MPI
except ImportError:
    MPI = None
try:
    import porta.exchange as px
except ImportError:
    px = None

# Ghost layers on each side of a rank's block: the stencil reaches one cell.
G = 1
# The fields' memory, as the C app's (app_field2d_create): each line (along the contiguous
# dimension of the space's layout: x on the host, y on a GPU) starts LEAD values before its
# first ghost cell and is padded to a multiple of ALIGN values, so that the first interior
# cell of every line sits on a 256-byte boundary. A field is the subview without the padding.
# On a GPU aligned lines made an iteration of tea_bm_5 0.41 ms instead of 0.47 (H200).
ALIGN = 32
LEAD = ALIGN - G

BACKGROUND, RECTANGLE, CIRCLE, POINT = 0, 1, 2, 3  # a state's shape (module constants: in C)

# U after each test_problem's run in the reference TeaLeaf (tea_output.c)
U_REFERENCE = {1: 157.55084183279294, 2: 106.27221178646569, 3: 99.955877498324000,
               4: 97.277332050749976, 5: 95.462351583362249, 6: 95.174738768320850}


# ---- kernels -----------------------------------------------------------------------------

@porta.kernel
def set_state(k: int, j: int, density: porta.f64[:, :], energy: porta.f64[:, :],
              shape: porta.i64, d: float, e: float, xmin: float, ymin: float, xmax: float,
              ymax: float, radius: float, x0: float, y0: float, dx: float, dy: float,
              xoff: porta.i64, yoff: porta.i64):
    """A state's density and energy in the cells its shape covers (ghost cells too)."""
    vx = x0 + dx * float(xoff + j)  # the cell's left, right, bottom and top vertices
    vx1 = x0 + dx * float(xoff + j + 1)
    vy = y0 + dy * float(yoff + k)
    vy1 = y0 + dy * float(yoff + k + 1)
    covers = 0
    if shape == BACKGROUND:
        covers = 1
    elif shape == RECTANGLE:  # the cell overlaps the box
        if vx1 >= xmin and vx < xmax and vy1 >= ymin and vy < ymax:
            covers = 1
    elif shape == CIRCLE:  # the cell's centre is within the radius
        x = 0.5 * (vx + vx1) - xmin
        y = 0.5 * (vy + vy1) - ymin
        if math.sqrt(x * x + y * y) <= radius:
            covers = 1
    elif vx <= xmin and xmin < vx1 and vy <= ymin and ymin < vy1:  # POINT: the cell holds it
        covers = 1
    if covers == 1:
        density[k, j] = d
        energy[k, j] = e


@porta.kernel
def init_u(k: int, j: int, energy: porta.f64[:, :], density: porta.f64[:, :],
           u: porta.f64[:, :], u0: porta.f64[:, :]):
    """u = u0 = energy x density: the right-hand side and the first guess."""
    v = energy[k, j] * density[k, j]
    u[k, j] = v
    u0[k, j] = v


@porta.kernel
def init_faces(k: int, j: int, density: porta.f64[:, :], kx: porta.f64[:, :],
               ky: porta.f64[:, :], recip: porta.i64, kx_zero_to: porta.i64,
               kx_zero_from: porta.i64, ky_zero_to: porta.i64, ky_zero_from: porta.i64):
    """The face coefficients: the mean of 1/w of the two cells (w the conductivity: density,
    or 1/density), 0 on the faces of the physical boundary (no heat flows out)."""
    w = density[k, j]
    wl = density[k, j - 1]
    wb = density[k - 1, j]
    if recip != 0:
        w = 1.0 / w
        wl = 1.0 / wl
        wb = 1.0 / wb
    fx = (wl + w) / (2.0 * wl * w)
    fy = (wb + w) / (2.0 * wb * w)
    if j <= kx_zero_to or j >= kx_zero_from:
        fx = 0.0
    if k <= ky_zero_to or k >= ky_zero_from:
        fy = 0.0
    kx[k, j] = fx
    ky[k, j] = fy


@porta.function
def apply_a(rx: float, ry: float, kx_l: float, kx_r: float, ky_b: float, ky_t: float,
            v: float, v_l: float, v_r: float, v_b: float, v_t: float) -> float:
    """(A v) at a cell from its four faces and five values (left, right, bottom, top): the
    C app's expression, term by term, so that the results are the same bits."""
    diag = 1.0 + ry * (ky_t + ky_b) + rx * (kx_r + kx_l)
    return diag * v - ry * (ky_t * v_t + ky_b * v_b) - rx * (kx_r * v_r + kx_l * v_l)


@porta.kernel
def residual(k: int, j: int, rr: porta.Sum[porta.f64], rx: float, ry: float,
             u: porta.f64[:, :], u0: porta.f64[:, :], kx: porta.f64[:, :],
             ky: porta.f64[:, :], r: porta.f64[:, :], p: porta.f64[:, :]):
    """r = u0 - A u; p = r (CG's first direction); the sum of r.r."""
    rv = u0[k, j] - apply_a(rx, ry, kx[k, j], kx[k, j + 1], ky[k, j], ky[k + 1, j], u[k, j],
                            u[k, j - 1], u[k, j + 1], u[k - 1, j], u[k + 1, j])
    r[k, j] = rv
    p[k, j] = rv
    rr += rv * rv


@porta.kernel
def cg_calc_w(k: int, j: int, pw: porta.Sum[porta.f64], rx: float, ry: float,
              p: porta.f64[:, :], kx: porta.f64[:, :], ky: porta.f64[:, :],
              w: porta.f64[:, :]):
    """w = A p, fused with the sum of p.w (reads p, Kx, Ky; writes w)."""
    wv = apply_a(rx, ry, kx[k, j], kx[k, j + 1], ky[k, j], ky[k + 1, j], p[k, j], p[k, j - 1],
                 p[k, j + 1], p[k - 1, j], p[k + 1, j])
    w[k, j] = wv
    pw += wv * p[k, j]


@porta.kernel
def cg_calc_r(k: int, j: int, rr: porta.Sum[porta.f64], alpha: float, r: porta.f64[:, :],
              w: porta.f64[:, :]):
    """r -= alpha w, fused with the sum of r.r (reads r, w; writes r)."""
    rv = r[k, j] - alpha * w[k, j]
    r[k, j] = rv
    rr += rv * rv


@porta.kernel
def cg_calc_up(k: int, j: int, alpha: float, beta: float, u: porta.f64[:, :],
               p: porta.f64[:, :], r: porta.f64[:, :]):
    """u += alpha p and p = r + beta p in one pass (both need the old p)."""
    pv = p[k, j]
    u[k, j] += alpha * pv
    p[k, j] = r[k, j] + beta * pv


@porta.kernel
def finalise(k: int, j: int, u: porta.f64[:, :], density: porta.f64[:, :],
             energy: porta.f64[:, :]):
    """energy = u / density."""
    energy[k, j] = u[k, j] / density[k, j]


@porta.kernel
def summary_term(k: int, j: int, acc: porta.Sum[porta.f64], which: porta.i64, vol: float,
                 density: porta.f64[:, :], energy: porta.f64[:, :], u: porta.f64[:, :]):
    """One column of the field summary: volume (0), mass (1), energy (2) or U (3)."""
    mass = vol * density[k, j]
    t = vol
    if which == 1:
        t = mass
    elif which == 2:
        t = mass * energy[k, j]
    elif which == 3:
        t = mass * u[k, j]
    acc += t


# ---- the deck ----------------------------------------------------------------------------

# keywords that do not change a CG run (the C app's timing table, other solvers' settings,
# tiling, kernel choices)
IGNORED = {"profiler_on", "tl_ch_cg_presteps", "tl_ch_cg_epslim", "tl_ch_cg_errswitch",
           "tl_ppcg_inner_steps", "tiles_per_task", "tiles_per_problem", "sub_tiles_per_tile",
           "use_fortran_kernels", "use_c_kernels", "use_cuda_kernels", "use_opencl_kernels",
           "cuda_device"}
NUMBERS = {"x_cells": int, "y_cells": int, "xmin": float, "ymin": float, "xmax": float,
           "ymax": float, "initial_timestep": float, "end_time": float, "end_step": int,
           "summary_frequency": int, "tl_max_iters": int, "tl_eps": float, "test_problem": int,
           "halo_depth": int, "visit_frequency": int}


def read_deck(path):
    """The *tea ... *endtea block (case-insensitive; '=' and ',' separate, '!' and ';' start
    comments) with the reference code's defaults; what this program does not do is refused."""
    s = dict(x_cells=10, y_cells=10, xmin=0.0, ymin=0.0, xmax=100.0, ymax=100.0,
             initial_timestep=0.1, end_time=10.0, end_step=2 ** 31 - 1, summary_frequency=10,
             tl_max_iters=1000, tl_eps=1e-10, test_problem=0, halo_depth=1, visit_frequency=0,
             solver="jacobi", recip=False, states={})
    inside = False
    for number, line in enumerate(open(path), 1):
        for c in "!;":
            line = line.split(c)[0]
        tok = line.lower().replace("=", " ").replace(",", " ").split()
        where = "%s:%d: " % (path, number)
        if not tok or tok[0] == "*tea":
            inside = inside or bool(tok)
            continue
        if not inside:
            continue
        key = tok[0]
        if key == "*endtea":
            break
        if key == "state":
            st = dict(geometry="rectangle", xmin=0.0, ymin=0.0, xmax=0.0, ymax=0.0, radius=0.0)
            for name, value in zip(tok[2::2], tok[3::2]):
                st[name] = value if name == "geometry" else float(value)
            if "density" not in st or "energy" not in st or st["density"] <= 0:
                sys.exit(where + "a state needs density= (> 0) and energy=")
            if st["geometry"] not in ("rectangle", "circle", "circular", "point"):
                sys.exit(where + "unknown geometry '%s'" % st["geometry"])
            s["states"][int(tok[1])] = st
        elif key in NUMBERS:
            s[key] = NUMBERS[key](tok[1])
        elif key.startswith("tl_use_"):
            s["solver"] = key[len("tl_use_"):]
        elif key in ("tl_coefficient_density", "tl_coefficient_inverse_density"):
            s["recip"] = key.endswith("inverse_density")
        elif key == "tl_preconditioner_type" and tok[1:] == ["none"]:
            pass
        elif key not in IGNORED:
            sys.exit(where + "'%s' is not implemented here (this example is TeaLeaf's "
                     "unpreconditioned CG; the C app apps/tealeaf has the rest)" % " ".join(tok))
    if s["solver"] != "cg":
        sys.exit("%s: solver '%s': this example implements CG only (tl_use_cg)"
                 % (path, s["solver"]))
    if s["halo_depth"] != 1 or s["visit_frequency"] != 0:
        sys.exit("%s: halo_depth other than 1 and visit_frequency are not implemented here"
                 % path)
    if 1 not in s["states"] or sorted(s["states"]) != list(range(1, len(s["states"]) + 1)):
        sys.exit("%s: states must be numbered 1..N, 1 the background" % path)
    return s


# ---- ranks: the decomposition, halo exchanges, global sums -------------------------------

class OneRank:
    """The whole grid on one rank, when mpi4py or porta.exchange is not installed."""

    def __init__(self, global_cells):
        self.nranks, self.dims, self.offset, self.local = 1, (1, 1), (0, 0), tuple(global_cells)

    def is_boundary(self, dim, side):
        return True


class NoHalo:
    def prepare(self, field):
        pass

    def exchange(self, fields, depth=1):
        pass


def decompose(comm, global_cells):
    """This rank's block of the grid, cut as the C apps cut it (porta_decomp_create: the rank
    grid with the fewest cells on cuts, ranks numbered x fastest, the first n % parts blocks
    of each axis one cell larger): .dims, .offset, .local, .is_boundary(dim, side)."""
    if px is None or comm is None:
        if comm is not None and comm.size > 1:
            sys.exit("several ranks need porta.exchange (porta built with MPI)")
        return OneRank(global_cells)
    return px.Decomp(comm, global_cells=global_cells)


def halo_exchange(d):
    """The exchange of a field's first ghost layer with the neighbours (x, then y with the
    corners). The fields have G ghost layers each side; x is dimension 1. One rank has no
    neighbours: nothing to exchange (and no fence of the back end, which Halo2D makes)."""
    return NoHalo() if d.nranks == 1 else px.Halo2D(d, halo=G, x_dim=1, max_fields=1)


class Sum:
    """Global sums: each rank's Porta reduction, then one MPI_Allreduce over the ranks
    (porta.exchange.global_sum: made in C on mpi4py's communicator, as the C app makes its own)."""

    def __init__(self, comm):
        self.comm = comm if comm is not None and comm.size > 1 else None

    def __call__(self, value):
        """The global sum of one value (twice per CG iteration)."""
        if self.comm is None:
            return value
        return px.global_sum(self.comm, value)

    def four_values(self, *values):
        """The global sums of the field summary's four values."""
        if self.comm is None:
            return values
        return px.global_sum(self.comm, *values)


# ---- the run -----------------------------------------------------------------------------

def fmt_e(v, digits):
    """Fortran's E format as TeaLeaf prints it: 0.ddddE+xx."""
    if v == 0.0 or not math.isfinite(v):
        return "0." + "0" * digits + "E+00" if v == 0.0 else "%g" % v
    mant, ex = ("%.*e" % (digits - 1, abs(v))).split("e")
    ex = int(ex) + 1
    return "%s0.%sE%s%02d" % ("-" if v < 0 else "", mant.replace(".", ""),
                              "-" if ex < 0 else "+", abs(ex))


def field(cells, label):
    """A field of `cells` values (ghost cells included) in the default memory space and layout:
    the subview of a padded View whose lines start on a 256-byte boundary (LEAD, ALIGN)."""
    v = porta.View((1, 1), porta.f64, initialize=False)
    c = 1 if v.layout == "C" else 0  # the contiguous dimension
    shape = list(cells)
    shape[c] = -(-(LEAD + cells[c]) // ALIGN) * ALIGN
    slices = [porta.ALL, porta.ALL]
    slices[c] = (LEAD, LEAD + cells[c])
    return porta.subview(porta.View(tuple(shape), porta.f64, label=label), *slices)


class TeaLeaf:
    def __init__(self, s, comm):
        self.s, self.comm = s, comm
        nx, ny = s["x_cells"], s["y_cells"]
        self.d = d = decompose(comm, (nx, ny))
        self.halo = halo_exchange(d)
        self.sum = Sum(comm)
        self.nx, self.ny = d.local
        self.dx = (s["xmax"] - s["xmin"]) / nx
        self.dy = (s["ymax"] - s["ymin"]) / ny
        dt = s["initial_timestep"]
        self.rx, self.ry = dt / (self.dx * self.dx), dt / (self.dy * self.dy)
        names = "density energy u u0 r p w kx ky".split()
        for name in names:  # default memory space and layout (the GPU's on CUDA)
            setattr(self, name, field((self.ny + 2 * G, self.nx + 2 * G), name))
        # the boxes: the interior [G, G + ny) x [G, G + nx); it and the first ghost layer (the
        # states); the faces Kx, Ky of its cells and of the ghost cells above and to the right
        ky1, kx1 = G + self.ny, G + self.nx
        self.interior = porta.MDRangePolicy((G, G), (ky1, kx1))
        self.with_ghosts = porta.MDRangePolicy((G - 1, G - 1), (ky1 + 1, kx1 + 1))
        self.faces = porta.MDRangePolicy((G, G), (ky1 + 1, kx1 + 1))
        # the physical boundary's faces: Kx zero for j <= G (left) and j >= G + nx (right)
        none_below, none_above = -1, 2 ** 62
        self.zero = (G if d.is_boundary(0, 0) else none_below,
                     kx1 if d.is_boundary(0, 1) else none_above,
                     G if d.is_boundary(1, 0) else none_below,
                     ky1 if d.is_boundary(1, 1) else none_above)

    def generate(self):
        """The states, in order, over every cell (ghost cells too); the density's ghost layer
        from the neighbours (density never changes: this is its only exchange)."""
        s, d = self.s, self.d
        for n in sorted(s["states"]):
            st = s["states"][n]
            shape = BACKGROUND if n == 1 else {"rectangle": RECTANGLE, "circle": CIRCLE,
                                               "circular": CIRCLE, "point": POINT}[st["geometry"]]
            # bounds nudged inwards by 1/100 of a cell against round-off on faces (reference)
            porta.parallel_for(self.with_ghosts, set_state, self.density, self.energy, shape,
                               st["density"], st["energy"], st["xmin"] + self.dx / 100.0,
                               st["ymin"] + self.dy / 100.0, st["xmax"] - self.dx / 100.0,
                               st["ymax"] - self.dy / 100.0, st["radius"], s["xmin"],
                               s["ymin"], self.dx, self.dy, d.offset[0] - G, d.offset[1] - G)
        porta.parallel_for(self.interior, init_u, self.energy, self.density, self.u, self.u0)
        self.halo.exchange([self.density])

    def summary(self):
        vol = self.dx * self.dy
        v = [porta.parallel_reduce(self.interior, summary_term, which, vol, self.density,
                                   self.energy, self.u) for which in range(4)]
        volume, mass, energy, u = self.sum.four_values(*v)
        return volume, mass, mass / volume, energy, u

    def step(self):
        """One implicit step: A u = u0 by CG from u = u0. Returns (printed iteration count,
        executed iterations, conduction error); the printed count is the reference's (the
        loop index at exit - 1)."""
        rx, ry, interior = self.rx, self.ry, self.interior
        u, u0, r, p, w, kx, ky = self.u, self.u0, self.r, self.p, self.w, self.kx, self.ky
        porta.parallel_for(interior, init_u, self.energy, self.density, u, u0)
        porta.parallel_for(self.faces, init_faces, self.density, kx, ky, int(self.s["recip"]),
                           *self.zero)
        self.halo.exchange([u])
        rro = self.sum(porta.parallel_reduce(interior, residual, rx, ry, u, u0, kx, ky, r, p))
        initial = math.sqrt(abs(rro))
        eps, max_iters = self.s["tl_eps"], self.s["tl_max_iters"]
        n, error, converged = 0, 0.0, rro == 0.0  # a uniform field is solved already
        if not converged:
            self.halo.exchange([p])
            for n in range(1, max_iters + 1):
                pw = self.sum(porta.parallel_reduce(interior, cg_calc_w, rx, ry, p, kx, ky, w))
                alpha = rro / pw
                rrn = self.sum(porta.parallel_reduce(interior, cg_calc_r, alpha, r, w))
                beta = rrn / rro
                porta.parallel_for(interior, cg_calc_up, alpha, beta, u, p, r)
                # p's ghost cells on the physical boundary are never set: A weighs them by 0
                self.halo.exchange([p])
                error = math.sqrt(abs(rrn))
                if not math.isfinite(error):
                    raise FloatingPointError("the residual is not finite at iteration %d" % n)
                if error < eps * initial:
                    converged = True
                    break
                rro = rrn
            else:
                n = max_iters + 1
        porta.parallel_for(interior, finalise, u, self.density, self.energy)
        porta.fence()
        executed = n if converged else max_iters
        return n - 1 if n else 0, executed, error / initial if initial else 0.0

    def warm_up(self):
        """Every kernel launched once on no cells, so that compiling (a C compiler, or nvcc on
        CUDA) is not timed as part of the first step; the halo's plans made."""
        none = porta.MDRangePolicy((G, G), (G, G))
        u, u0, r, p, w, kx, ky = self.u, self.u0, self.r, self.p, self.w, self.kx, self.ky
        porta.parallel_for(none, init_faces, self.density, kx, ky, 0, *self.zero)
        porta.parallel_reduce(none, residual, 0.0, 0.0, u, u0, kx, ky, r, p)
        porta.parallel_reduce(none, cg_calc_w, 0.0, 0.0, p, kx, ky, w)
        porta.parallel_reduce(none, cg_calc_r, 0.0, r, w)
        porta.parallel_for(none, cg_calc_up, 0.0, 0.0, u, p, r)
        porta.parallel_for(none, finalise, u, self.density, self.energy)
        self.halo.prepare(self.p)  # the exchange plans (collective)


def print_summary(step, t, values):
    print("\n Time %25.15E" % t)
    print("                                 Volume                      Mass"
          "                   Density                    Energy                         U")
    print(" step:%7d%s" % (step, "".join("%26s" % fmt_e(v, 17) for v in values)))
    print(" ")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("deck")
    ap.add_argument("--steps", type=int, help="stop after this many steps (end_step)")
    args, _ = ap.parse_known_args()  # --porta-* are porta.init's
    porta.init()
    comm = MPI.COMM_WORLD if MPI else None
    rank0 = not comm or comm.rank == 0
    s = read_deck(args.deck)
    if args.steps:
        s["end_step"] = min(s["end_step"], args.steps)
    tea = TeaLeaf(s, comm)
    if rank0:
        print("tealeaf_cg: deck=%s cells=%dx%d ranks=%d (%d x %d) backend=%s threads=%d "
              "space=%s" % (args.deck, s["x_cells"], s["y_cells"], comm.size if comm else 1,
                            tea.d.dims[0], tea.d.dims[1], porta.backend(), porta.num_threads(),
                            tea.u.space))
    tea.generate()
    values = tea.summary()
    if rank0:
        print_summary(0, 0.0, values)
    tea.warm_up()
    step, t, dt, total_iterations, solve_seconds = 0, 0.0, s["initial_timestep"], 0, 0.0
    while True:
        step += 1
        if rank0:
            print(" Step %7d time %11.7f timestep  %9.2E" % (step, t, dt))
        if comm:
            comm.Barrier()
        # no garbage collection inside the solve: a collection pauses one rank, and the other
        # waits for it at the next global sum (the loop makes no reference cycles)
        gc.disable()
        t0 = time.perf_counter()
        printed, executed, error = tea.step()
        solve_seconds += time.perf_counter() - t0
        gc.enable()
        total_iterations += executed
        t += dt
        values = tea.summary()
        if rank0:
            print("Conduction error  %s\nIteration count %8d" % (fmt_e(error, 7), printed))
            if s["summary_frequency"] > 0 and step % s["summary_frequency"] == 0:
                print_summary(step, t, values)
        if t + 1e-16 > s["end_time"] or step >= s["end_step"]:
            break
    ok = True
    if rank0:
        print_summary(step, t, values)
        if s["test_problem"] in U_REFERENCE:
            diff = abs(100.0 * (values[4] / U_REFERENCE[s["test_problem"]]) - 100.0)
            ok = diff < 0.001
            print("Test problem %3d is within %16.7E%% of the expected solution\n This test "
                  "is considered %s" % (s["test_problem"], diff, "PASSED" if ok else
                                        "NOT PASSED"))
        print("iterations=%d solve_seconds=%.6f ms_per_iteration=%.6f"
              % (total_iterations, solve_seconds, 1e3 * solve_seconds / max(total_iterations, 1)))
    return 0 if ok else 1


def main_or_abort():
    """main(); on several ranks an error on one of them ends every rank (MPI_Abort) with its
    traceback: the others would wait for it forever at their next global sum or exchange (as
    mpi4py's `python -m mpi4py` does)."""
    try:
        return main()
    except Exception:
        if MPI is None or MPI.COMM_WORLD.size == 1:
            raise
        traceback.print_exc()
        sys.stderr.write("tealeaf_cg: rank %d failed; ending all %d ranks\n"
                         % (MPI.COMM_WORLD.rank, MPI.COMM_WORLD.size))
        sys.stderr.flush()
        MPI.COMM_WORLD.Abort(1)


if __name__ == "__main__":
    sys.exit(main_or_abort())
