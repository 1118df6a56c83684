"""Lennard-Jones molecular dynamics in Python kernels: miniMD's LJ benchmark (the run the
PyKokkos paper ported from ExaMiniMD), with miniMD's set-up, so that it prints miniMD's thermo
lines.

    build/python-venv/bin/python examples/python/lj_md.py [-s 8] [-n 100] [--input DECK]
                                                          [--porta-backend=serial|openmp|cuda]

What it does, as apps/minimd does on one MPI rank:
  - reads the deck (inputs/minimd/in.lj.miniMD: units, LJ epsilon and sigma, size, steps,
    dt, temperature, density, re-neighbouring interval, cut-off and skin, thermo interval);
  - an fcc lattice of 4 s^3 atoms, miniMD's velocities (a Park-Miller generator seeded by the
    lattice site), their mean removed and scaled to the temperature;
  - periodic boundaries through ghost atoms: every `neigh_every` steps the atoms are wrapped
    into the box, sorted by bin, and the images of those within the neighbour cut-off of a face
    become ghosts (x, then y, then z, images of images making the edges and corners); on the
    other steps only the ghosts' positions are refreshed from their atoms;
  - a binned full neighbour list (every j != i within cut-off + skin), one thread per atom;
  - velocity Verlet, the LJ force of the full list (no atomics: each atom sums its own force),
    and the thermo output (T, U, P) by parallel reductions every `thermo_every` steps.

The arrays are porta.Views in the default back end's memory (the GPU's on CUDA), positions,
velocities and forces as miniMD's vec3 (n x 3, C order); the neighbour list takes the memory
space's own layout (atom-major on the host, slot-major on a GPU, so that a warp reads
consecutive words). Everything after the set-up is a kernel, the re-neighbouring too: the
wrap, the sort by bin (a counting sort: counts with atomics, an exclusive scan, a fill, each
bin's atoms then put back in their order, so that it is stable and the same on every back end),
the ghosts (per axis one scan that gives each selected atom its ghost's slot and writes it),
the bins and the list. Only counts come back to the host (the ghosts per axis, the longest
list, whether an atom left the bins), to size the arrays, which grow with a margin.

It prints miniMD's thermo lines ("step T U P time") and its performance line (atom-steps per
second of the timed loop, compile time excluded: every kernel is launched once before it), then
PASS when energy is conserved and, for a deck and size that inputs/minimd/reference has a run
of (-s 8, -s 16, -s 32 of in.lj.miniMD), the lines match the reference miniMD's to the 7 digits
printed.

The files, one idea each (read them in this order):
  - lj_md.py: this command line, and the checks of the thermo lines;
  - lj_md_setup.py: the deck, the fcc lattice and its velocities, the bins and their stencil
    (host code, NumPy);
  - lj_md_system.py: the atoms' arrays and the run: velocity Verlet (its kernels are here),
    re-neighbouring, forces and thermo output, as miniMD's loop;
  - lj_md_neighbors.py: the kernels of the re-neighbouring (the wrap, the sort by bin, the
    ghosts, the full neighbour list);
  - lj_md_force.py: the kernels of the LJ force, the energy and virial, and the temperature.
"""
import argparse
import glob
import math
import os
import sys

import porta
from lj_md_setup import DECK, ROOT, read_deck
from lj_md_system import LJ


# ---- the checks -------------------------------------------------------------------------------

def reference_lines(deck_path, size, nsteps):
    """The reference miniMD's thermo lines of this run, step -> [T, U, P] as printed, from
    inputs/minimd/reference (Mantevo miniMD's runs of in.lj.miniMD on one rank, with -s, -n and
    --half_neigh only); a step where two of its runs printed different lines is left out."""
    if os.path.realpath(deck_path) != os.path.realpath(DECK) or size is None:
        return {}
    seen = {}
    pattern = os.path.join(ROOT, "inputs", "minimd", "reference", "lj_s%d_n*_np1*.txt" % size)
    for path in sorted(glob.glob(pattern)):
        with open(path) as fh:
            text = fh.read().splitlines()
        cmd = text[1].split("miniMD_openmpi", 1)[-1].split() if len(text) > 1 else ["?"]
        if cmd[:2] != ["-i", "in.lj.miniMD"] or any(
                o not in ("-s", "-n", "--half_neigh") for o in cmd[2::2]):
            continue
        for line in text:
            tok = line.split()
            if len(tok) == 4 and not line.startswith("#") and int(tok[0]) <= nsteps:
                seen.setdefault(int(tok[0]), set()).add(tuple(tok[1:]))
    return {step: list(v.pop()) for step, v in seen.items() if len(v) == 1}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-s", "--size", type=int, help="nx = ny = nz = N unit cells (as miniMD's -s)")
    ap.add_argument("-n", "--nsteps", type=int, help="number of steps (overrides the deck)")
    ap.add_argument("--input", "-i", default=DECK, help="miniMD input deck (default: %(default)s)")
    args, rest = ap.parse_known_args()
    bad = [a for a in rest if not a.startswith("--porta-")]
    if bad:
        ap.error("unrecognised arguments: %s" % " ".join(bad))
    porta.init()  # --porta-backend=..., PORTA_BACKEND, PORTA_NUM_THREADS
    deck = read_deck(args.input)
    if args.size:
        deck["nx"] = deck["ny"] = deck["nz"] = args.size
    if args.nsteps is not None:
        deck["nsteps"] = args.nsteps
    md = LJ(deck)
    print("# lj_md: %d atoms, box %.2f %.2f %.2f (unit cells %d %d %d), bins %s, stencil %d "
          "rows, backend=%s threads=%d space=%s"
          % (md.natoms, *md.prd, deck["nx"], deck["ny"], deck["nz"],
             " ".join(map(str, md.grid.nbin)), len(md.grid.rows), porta.backend(),
             porta.num_threads(), md.x.space))
    lines, elapsed = md.run(deck["nsteps"])
    nsteps = deck["nsteps"]
    rate = md.natoms * nsteps / elapsed if elapsed > 0 else 0.0
    print("\n# Performance Summary:\n# natoms nsteps t_total time/step atom-steps/s")
    print("%d %d %f %e %f PERF_SUMMARY" % (md.natoms, nsteps, elapsed, elapsed / max(nsteps, 1),
                                           rate))

    # The checks: finite; NVE keeps 1.5 T + U (per atom) within 1 % (the force is not shifted
    # at the cut-off, so it drifts by some 1e-3 in 100 steps); the reference's lines, where
    # inputs/minimd/reference has this run, to the 7 digits printed.
    ok = all(math.isfinite(q) for line in lines for q in line[1:])
    e0 = 1.5 * lines[0][1] + lines[0][2]
    ok = ok and all(abs(1.5 * t + u - e0) <= 0.01 * abs(e0) for _, t, u, _ in lines)
    cube = deck["nx"] if deck["nx"] == deck["ny"] == deck["nz"] else None
    ref = reference_lines(args.input, cube, nsteps)
    matched = 0
    for step, t, u, pr in lines:
        if step in ref:
            got = ["%e" % q for q in (t, u, pr)]
            if got != ref[step]:
                print("# step %d: %s, the reference miniMD printed %s"
                      % (step, " ".join(got), " ".join(ref[step])))
                ok = False
            matched += 1
    print("lj_md: backend=%s threads=%d atoms=%d steps=%d atom-steps/s=%.4g reference lines "
          "matched=%d %s" % (porta.backend(), porta.num_threads(), md.natoms, nsteps, rate,
                             matched, "PASS" if ok else "FAIL"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
