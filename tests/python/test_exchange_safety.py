"""porta.exchange fails like Python (issue 53): Plan fields in any layout get their values at
the right elements (x = xb[::2]: offset k is x[k], and xb's other elements stay), or a
ValueError naming the field; arguments that differ between the ranks, or that one rank
refuses, raise on every rank, naming the argument and each rank's value, instead of hanging
or running on inconsistent domains; only mpi4py communicators are taken.

Each test runs tests/python/exchange_safety.py on 1 to 3 ranks of `mpirun` (every rank checks
the values it receives; rank 0 prints "RESULT OK <ranks>" or the failures). A run that hangs,
as the mismatch cases did before, ends after TIMEOUT seconds and fails (exchange_mpirun)."""
import os
import sys

import pytest

from exchange_mpirun import mpi_env, mpi_ready, mpirun

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAM = os.path.join(HERE, "exchange_safety.py")
TIMEOUT = 60  # each run takes 1-3 s; only a hang reaches this

pytestmark = pytest.mark.skipif(mpi_ready() is not None, reason=str(mpi_ready()))


def run(tmp_path, ranks, case, backend="serial", **env):
    rc, out, err = mpirun(ranks, [sys.executable, PROGRAM, case, backend],
                          mpi_env(tmp_path, **env), timeout=TIMEOUT)
    text = out + err
    assert rc == 0, text
    lines = [ln for ln in out.splitlines() if ln.startswith("RESULT ")]
    assert lines == ["RESULT OK %d" % ranks], text


@pytest.mark.parametrize("ranks,backend", [(1, "serial"), (2, "serial"), (3, "serial"),
                                           (2, "openmp")])
def test_plan_fields_of_every_layout_get_their_values(tmp_path, ranks, backend):
    """x = xb[::2], a 2D slice, F order and an F slice, int32 strided, start/finish with the
    field changed in between, accumulation, a read-only sender; read-only receivers, negative
    and zero strides and too short fields refused naming the field; a Halo2D field with a
    non-unit inner stride."""
    run(tmp_path, ranks, "layouts", backend)


@pytest.mark.parametrize("ranks", [2, 3])
def test_arguments_that_differ_between_ranks_raise_on_every_rank(tmp_path, ranks):
    """Decomp dims and global_cells, Halo2D tag, halo, x_dim, max_fields and Decomp,
    Halo2D.exchange depth and number of fields, Plan tag and value size differing on the last
    rank; one rank refusing its Decomp, exchange or Plan arguments, its Plan.run field or its
    global_sum value. Every rank raises (no hang), and afterwards the ranks exchange halos of
    depth 1 and 2 with the right values."""
    run(tmp_path, ranks, "mismatch")


@pytest.mark.parametrize("ranks", [1, 2])
def test_only_mpi4py_communicators_are_taken(tmp_path, ranks):
    """A plain int (12345, a Fortran handle), None or a NumPy integer is a TypeError in Decomp,
    Plan and global_sum; COMM_NULL and an intercommunicator a ValueError; COMM_SELF and a
    split communicator work."""
    run(tmp_path, ranks, "comm")


DISAGREE_TIMEOUT = 30  # these runs take 1-2 s; a hang (as before issue 68) reaches this


@pytest.mark.parametrize("case,ranks,words", [
    ("depth", 2, ["Halo2D.exchange", "depth", "1 on rank 0", "2 on rank 1"]),
    ("sum", 2, ["global_sum", "number of values", "2 on rank 0", "1 on rank 1"]),
    ("sum", 4, ["global_sum", "number of values", "2 on rank 0", "1 on rank 1, 2, 3"]),
    ("counts", 2, ["Plan counts", "rank 0 sends 2", "rank 1", "receives 1"]),
    ("fields", 2, ["Plan.start", "number of fields", "2 on rank 0", "1 on rank 1"]),
])
def test_a_call_made_differently_on_the_ranks_raises_on_every_rank(tmp_path, case, ranks,
                                                                   words):
    """Issue 68: Halo2D.exchange with depth 1 (already used) on rank 0 and 2 (new) on rank 1;
    global_sum of 2 values on rank 0 and 1 elsewhere; a Plan whose rank 0 sends 2 values to
    rank 1 that receives 1; Plan.run of 2 fields on rank 0 and 1 on rank 1. Every rank raises
    the same ValueError naming what differs and each rank's value; none hangs or returns."""
    rc, out, err = mpirun(ranks, [sys.executable, PROGRAM, "disagree-" + case, "serial"],
                          mpi_env(tmp_path), timeout=DISAGREE_TIMEOUT)
    text = out + err
    assert rc == 0, text
    lines = sorted(ln for ln in out.splitlines() if ln.startswith(("RAISED ", "RETURNED ")))
    assert [ln.split()[1] for ln in lines] == [str(k) for k in range(ranks)], text
    messages = {ln.split(" ", 2)[2] for ln in lines}
    assert len(messages) == 1, "not the same exception on every rank: %s" % text
    message = messages.pop()
    assert message.startswith("ValueError: "), text
    assert all(w in message for w in words), "%r lacks one of %r" % (message, words)


@pytest.mark.skipif(os.environ.get("PORTA_BACKEND", "").lower() != "cuda",
                    reason="CUDA runs only (PORTA_BACKEND=cuda on a GPU machine)")
@pytest.mark.parametrize("ranks", [1, 2])
def test_plan_fields_on_the_gpu(tmp_path, ranks):
    """A contiguous device View exchanges; a non-contiguous one is refused naming the field."""
    run(tmp_path, ranks, "cuda", "cuda")
