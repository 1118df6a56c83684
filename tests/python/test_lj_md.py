"""examples/python/lj_md.py (miniMD's LJ run in Python kernels) prints miniMD's thermo lines:
-s 8 of inputs/minimd/in.lj.miniMD on Serial, OpenMP x1 and OpenMP x2, against the numbers the
C miniMD printed when this test was written (which are also the reference Mantevo miniMD's,
inputs/minimd/reference/lj_s8_n500_np1_half.txt) and, where the C binary is built, against a
run of it with its full list and with its half list, at the 7 significant digits printed."""
import os
import subprocess
import sys

import pytest

import porta
from programs import HOW, run_program

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLE = os.path.join(ROOT, "examples", "python", "lj_md.py")
DECK = os.path.join(ROOT, "inputs", "minimd", "in.lj.miniMD")

# step, T, U, P of `minimd -i inputs/minimd/in.lj.miniMD -s 8` (100 steps; the same with
# --half_neigh 0 and 1, on 1 and 2 threads)
MINIMD_S8 = [
    ("0", "1.440000e+00", "-6.773368e+00", "-5.020263e+00"),
    ("100", "7.202854e-01", "-5.698504e+00", "6.538913e-01"),
]


def minimd_binary():
    """The C miniMD: $PORTA_MINIMD, else the release build (CMake puts it in bin/)."""
    env = os.environ.get("PORTA_MINIMD")
    if env:
        return env if os.access(env, os.X_OK) else None
    for rel in ("build/release/bin/minimd", "build/release/apps/minimd/minimd"):
        path = os.path.join(ROOT, rel)
        if os.access(path, os.X_OK):
            return path
    return None


def thermo_lines(stdout):
    """(step, T, U, P) of the lines after '# Timestep T U P Time', as printed."""
    lines, on = [], False
    for line in stdout.splitlines():
        if line.startswith("# Timestep"):
            on = True
        elif on and line and line[0].isdigit():
            lines.append(tuple(line.split()[:4]))
        elif on and line.startswith("#"):
            on = False
    return lines


@pytest.mark.parametrize("half", [0, 1])
def test_minimd_c(half):
    """The C app still prints the recorded lines (full list, the default on the host, and the
    reference's half list)."""
    exe = minimd_binary()
    if exe is None:
        pytest.skip("no C miniMD binary (set PORTA_MINIMD)")
    r = subprocess.run([exe, "-i", DECK, "-s", "8", "--half_neigh", str(half), "--no-h5",
                        "--porta-backend=serial"], capture_output=True, text=True, timeout=300,
                       cwd=ROOT)
    assert r.returncode == 0, r.stdout + r.stderr
    assert thermo_lines(r.stdout) == MINIMD_S8, r.stdout


@pytest.mark.parametrize("how", HOW)
def test_lj_md(how):
    r, backend, threads = run_program(EXAMPLE, how, ["-s", "8"], timeout=600)
    want = backend + threads
    assert r.returncode == 0, r.stdout + r.stderr
    assert "PASS" in r.stdout and want in r.stdout, r.stdout
    lines = thermo_lines(r.stdout)
    assert lines == MINIMD_S8, r.stdout
    exe = minimd_binary()
    if exe is not None:
        for half in (0, 1):
            c = subprocess.run([exe, "-i", DECK, "-s", "8", "--half_neigh", str(half), "--no-h5",
                                "--porta-backend=serial"], capture_output=True, text=True,
                               timeout=300, cwd=ROOT)
            assert c.returncode == 0, c.stdout + c.stderr
            assert lines == thermo_lines(c.stdout), (r.stdout, c.stdout)


@pytest.mark.skipif(not porta.backend_available("cuda"), reason="no CUDA back end")
def test_lj_md_on_cuda():
    """On the GPU (device Views; the neighbour list in the GPU's layout): the same thermo
    lines at 7 digits."""
    r, _, _ = run_program(EXAMPLE, "arg-cuda", ["-s", "8"], timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "PASS" in r.stdout and "backend=cuda" in r.stdout, r.stdout
    assert thermo_lines(r.stdout) == MINIMD_S8, r.stdout


def test_lj_md_options():
    """-n sets the steps; a run that does not end on a thermo step prints a last line, as
    miniMD does (-s 8 -n 150: steps 0, 100, 150; the reference's step-150 line, from
    inputs/minimd/reference/lj_s8_n150_np1.txt)."""
    r = subprocess.run([sys.executable, EXAMPLE, "-s", "8", "-n", "150", "--input", DECK,
                        "--porta-backend=serial"], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    lines = thermo_lines(r.stdout)
    assert [s for s, *_ in lines] == ["0", "100", "150"], r.stdout
    assert lines[:2] == MINIMD_S8
    assert "atom-steps/s=" in r.stdout and "PASS" in r.stdout
    bad = subprocess.run([sys.executable, EXAMPLE, "--bogus"], capture_output=True, text=True,
                         timeout=60)
    assert bad.returncode != 0 and "unrecognised arguments: --bogus" in bad.stderr
