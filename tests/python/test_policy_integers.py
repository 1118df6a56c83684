"""Launch ranges, policies and porta.init(threads=) take any integer (issue 53): Python's int,
bool and NumPy's integer scalars (anything with __index__, as numbers.Integral), and refuse
floats and strings with a TypeError naming the parameter. Before, parallel_for(np.int64(8), ...)
was refused and porta.init(threads=2.5) or RangePolicy(0, 8.5) were truncated silently."""
import os
import subprocess
import sys

import numpy as np
import pytest

import porta
import kernels_threads as K

INTS = [np.int64, np.int32, np.int16, np.uint8, np.uint64, int]


@pytest.mark.parametrize("itype", INTS, ids=[t.__name__ for t in INTS])
def test_numpy_integers_as_ranges(space, itype):
    x = np.arange(8.0)
    out = np.zeros(8)
    if space.name == "openmp" and space.threads == 2 and itype is not int:  # the default back end
        porta.parallel_for(itype(8), K.scale, 2.0, x, out)
        np.testing.assert_array_equal(out, 2.0 * x)
    out[:] = 0
    porta.parallel_for(porta.RangePolicy(itype(2), itype(8), space=space.name), K.scale, 3.0, x,
                       out)
    np.testing.assert_array_equal(out, np.where(np.arange(8) >= 2, 3.0 * x, 0.0))
    a = np.arange(12.0).reshape(3, 4)
    md = porta.MDRangePolicy((itype(0), 0), (itype(3), itype(4)), space=space.name)
    assert md.upper == (3, 4) and all(type(v) is int for v in md.lower + md.upper)
    assert porta.parallel_reduce(md, K.box_sum, 1.0, a) == a.sum()
    team = porta.TeamPolicy(itype(3), itype(1), itype(1), space=space.name)
    assert (team.league_size, team.team_size, team.vector_length) == (3, 1, 1)
    assert porta.parallel_reduce(team, K.team_sum, 1.0, a) == a.sum()


BAD = [8.0, 8.5, np.float64(8.0), np.float32(8.0), "8", None, 8 + 0j]


@pytest.mark.parametrize("bad", BAD, ids=[repr(b) for b in BAD])
def test_non_integers_are_refused(bad):
    x, out = np.arange(8.0), np.zeros(8)
    with pytest.raises(TypeError):
        porta.parallel_for(bad, K.scale, 2.0, x, out)
    with pytest.raises(TypeError, match="RangePolicy: end must be an integer"):
        porta.RangePolicy(0, bad)
    with pytest.raises(TypeError, match="RangePolicy: begin must be an integer"):
        porta.RangePolicy(bad, 8)
    with pytest.raises(TypeError, match=r"MDRangePolicy: upper\[1\] must be an integer"):
        porta.MDRangePolicy((0, 0), (3, bad))
    with pytest.raises(TypeError, match="TeamPolicy: league_size must be an integer"):
        porta.TeamPolicy(bad)
    with pytest.raises(TypeError, match="TeamPolicy: team_size must be an integer"):
        porta.TeamPolicy(4, bad)
    if bad is not None:  # threads=None is the default
        with pytest.raises(TypeError, match="porta.init: threads must be an integer"):
            porta.init(threads=bad)
    assert (out == 0).all()


def test_init_threads_takes_numpy_integers():
    """porta.init(threads=np.int64(2)) in a fresh process: 2 threads; threads=2.5 raises."""
    code = ("import numpy as np, porta\n"
            "porta.init(backend='openmp', threads=np.int64(2), args=[])\n"
            "print(porta.num_threads())\n"
            "try:\n"
            "    porta.init(threads=2.5)\n"
            "except TypeError as e:\n"
            "    print(e)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=60, env=dict(os.environ))
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [
        "2", "porta.init: threads must be an integer, not float (2.5)"], r.stdout
