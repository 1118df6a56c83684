"""Kernels that use constructs outside Porta's Python subset (tests/python/test_errors.py),
next to a good one: the bad ones must not break it. Each bad line carries an ERR marker that
the test finds to know the line and column the message must name."""
import porta


def helper(x):
    return x + 1


@porta.kernel
def good(i: int, x: porta.f64[:]):
    x[i] = 2.0 * i


@porta.kernel
def bad_listcomp(i: int, x: porta.f64[:]):
    t = [k for k in range(3)]  # ERR listcomp
    x[i] = t


@porta.kernel
def bad_string(i: int, x: porta.f64[:]):
    s = "hello"  # ERR string
    x[i] = 1.0


@porta.kernel
def bad_call(i: int, x: porta.f64[:]):
    x[i] = helper(i)  # ERR call


@porta.kernel
def bad_try(i: int, x: porta.f64[:]):
    try:  # ERR try
        x[i] = 1.0
    except IndexError:
        pass


@porta.kernel
def bad_name(i: int, x: porta.f64[:]):
    x[i] = undefined_thing  # ERR name  # noqa: F821


@porta.kernel
def bad_index_count(i: int, a: porta.f64[:, :]):
    a[i] = 1.0  # ERR indexcount


@porta.kernel
def bad_return(i: int, x: porta.f64[:]):
    return x[i]  # ERR return


@porta.kernel
def bad_annotation(i: int, x):  # ERR annotation
    x[i] = 1.0
