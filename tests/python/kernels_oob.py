"""Kernels that index past their arrays' ends: in a debug build Porta's bounds check must name
this file and the line of the access (test_bounds.py); the launch refuses ranges that do not fit
the arrays a kernel indexes with the launch's indices (test_launch_checks.py); the checked mode
raises IndexError naming the line (test_checked_mode.py). Lines marked `# OOB tag` are found by
their tag."""
import porta


@porta.kernel
def shift_right(i: int, x: porta.f64[:], y: porta.f64[:]):
    y[i] = x[i + 1]  # OOB 1d


@porta.kernel
def shift_down(i: int, j: int, a: porta.f64[:, :], b: porta.f64[:, :]):
    t = a[i + 1, j]  # OOB 2d
    b[i, j] = t + 1.0


@porta.kernel
def transpose_add(i: int, j: int, a: porta.f64[:, :], b: porta.f64[:, :]):
    """b[j, i] with the launch's j, i: a launch whose ranges do not fit b is refused (IndexError)
    before the kernel runs, in any build."""
    t = a[i, j]
    b[j, i] = t + 1.0


# ---- issue 53: launch ranges (test_launch_checks.py) ----

@porta.kernel
def axpy(i: int, a: float, x: porta.f64[:], y: porta.f64[:]):
    y[i] += a * x[i]


@porta.kernel
def dot(i: int, acc: porta.Sum[porta.f64], x: porta.f64[:], y: porta.f64[:]):
    acc += x[i] * y[i]


@porta.kernel
def fill2d(i: int, j: int, v: float, a: porta.f64[:, :]):
    a[i, j] = v + i * 10 + j


@porta.kernel
def transpose(i: int, j: int, a: porta.f64[:, :], b: porta.f64[:, :]):
    b[j, i] = a[i, j]


@porta.kernel
def guarded(i: int, n: porta.i64, y: porta.f64[:]):
    """y[i] only under an if: a launch past y's end is the kernel's own business."""
    if i < n:
        y[i] = 1.0 + i


@porta.kernel
def early_return(i: int, y: porta.f64[:]):
    """y[i] after an if that returns: not every index reaches it."""
    if i >= y.shape[0]:
        return
    y[i] = 2.0 * i


@porta.kernel
def shifted(i: int, y: porta.f64[:]):
    """i is reassigned: y[i] is not indexed by the launch index itself."""
    i = i - 1
    y[i] = 3.0


@porta.kernel
def conditional_expr(i: int, n: porta.i64, x: porta.f64[:], y: porta.f64[:]):
    """x[i] on the untaken side of a conditional expression; y[i] always."""
    y[i] = x[i] if i < n else -1.0


@porta.kernel
def histogram(i: int, h: porta.i64[:], w: porta.i64[:]):
    porta.atomic_add(h, i, w[i])


# ---- issue 53: the checked mode (test_checked_mode.py) ----

@porta.kernel(bounds_check=True)
def shift_checked(i: int, x: porta.f64[:], y: porta.f64[:]):
    y[i] = x[i + 1]  # OOB checked-read


@porta.kernel(bounds_check=True)
def back_checked(i: int, x: porta.f64[:], y: porta.f64[:]):
    y[i] = x[i - 1]  # OOB checked-negative


@porta.kernel(bounds_check=True)
def write_checked(i: int, y: porta.f64[:]):
    y[i + 1] = 7.0  # OOB checked-write


@porta.kernel(bounds_check=True)
def left_checked(i: int, j: int, a: porta.f64[:, :], b: porta.f64[:, :]):
    b[i, j] = a[i, j + 1] + 1.0  # OOB checked-2d


@porta.kernel(bounds_check=True)
def sum_checked(i: int, acc: porta.Sum[porta.f64], x: porta.f64[:], idx: porta.i64[:]):
    acc += x[idx[i]]  # OOB checked-reduce


@porta.kernel(bounds_check=True)
def scatter_checked(i: int, h: porta.i64[:], idx: porta.i64[:]):
    porta.atomic_add(h, idx[i], 1)  # OOB checked-atomic


@porta.kernel(bounds_check=False)
def shift_never_checked(i: int, x: porta.f64[:], y: porta.f64[:]):
    y[i] = x[i + 1]
