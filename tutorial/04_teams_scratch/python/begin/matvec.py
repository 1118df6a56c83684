"""Exercise 04 in Python, begin: a matrix-vector product in NumPy, to port to a team kernel
with scratch memory.

    build/python-venv/bin/python tutorial/04_teams_scratch/python/begin/matvec.py

This program runs as it is: NumPy computes y = A x and the sum of y over each block of ROWS
rows. Port it to one Porta team kernel (the TODO(tutorial) comments): one team per block of
rows, the team's threads over the rows, each thread's vector lanes over the columns, x staged
once per team in team scratch memory. The finished program is ../solution/matvec.py.
Answer: sum(y)=-18 sum(|y|)=15634 (exact: A and x hold small integers).
"""
import sys

import numpy as np

import porta

ROWS = 16  # rows per team: a module-level constant is copied into a kernel's generated C

# TODO(tutorial): the team kernel
#   @porta.kernel
#   def matvec(t: porta.TeamMember, A: porta.f64[:, :], x: porta.f64[:], y: porta.f64[:],
#              block_sum: porta.f64[:]):
# Its block of rows is [row0, row1) with row0 = t.league_rank * ROWS, row1 = min(row0 + ROWS,
# A.shape[0]). In order:
#   1. xs = porta.scratch(t, porta.f64, x.shape[0]) and ys = porta.scratch(t, porta.f64, ROWS)
#      (team scratch, taken at the top of the body); copy x into xs with
#      `for k in porta.team_vector_range(t, A.shape[1]):`, then t.team_barrier();
#   2. `for r in porta.team_thread_range(t, row0, row1):` a row per thread; in it declare the
#      accumulator `dot: porta.Sum[porta.f64]` and reduce A[r, k] * xs[k] into it with
#      `for k in porta.thread_vector_range(t, A.shape[1]):`; write dot to ys[r - row0] from one
#      lane (`for _ in porta.thread_vector_range(t, 1):`); then t.team_barrier();
#   3. copy ys to y[row0:row1] with porta.team_vector_range, sum ys over the whole team into a
#      second accumulator (another porta.team_vector_range loop) and write it to
#      block_sum[t.league_rank] under `if porta.single(t):`.


def main():
    porta.init()
    nrows, ncols = 1000, 300
    league = (nrows + ROWS - 1) // ROWS  # 63 blocks; the last has 8 rows
    r, k = np.meshgrid(np.arange(nrows), np.arange(ncols), indexing="ij")
    A = ((r * 7 + k * 3) % 11 - 5).astype(np.float64)
    x = (np.arange(ncols) % 5 - 2).astype(np.float64)

    # TODO(tutorial): copy A and x into views (porta.View(A.shape, porta.f64) ... through host
    # mirrors and porta.deep_copy), make the views y (nrows) and block_sum (league), and launch
    # porta.parallel_for(porta.TeamPolicy(league, team_size, 8), matvec, A, x, y, block_sum)
    # with team_size 1 on Serial and min(4, porta.num_threads()) on OpenMP. Then copy y and
    # block_sum back (porta.create_mirror_view_and_copy) and compare them with NumPy's.
    y = A @ x
    block_sum = np.array([y[b * ROWS:(b + 1) * ROWS].sum() for b in range(league)])

    print("04_teams_scratch begin: backend=%s (NumPy, not ported yet) league=%d sum(y)=%.0f "
          "sum(|y|)=%.0f sum(block_sum)=%.0f"
          % (porta.backend(), league, y.sum(), np.abs(y).sum(), block_sum.sum()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
