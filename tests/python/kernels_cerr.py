"""A kernel the translator accepts but the C compiler rejects when warnings are errors
(tests/python/test_errors_more.py): the compiler's message must name this file and line."""
import porta


@porta.kernel
def dubious(i: int, x: porta.u8[:], f: porta.f64[:], y: porta.i64[:]):
    y[i] = i
    y[i] = 1 if x[i] >= 0 and f[i] == 0.5 else 0  # ERR dubious
