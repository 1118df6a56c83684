"""A kernel the translator accepts but the C compiler rejects when warnings are errors
(tests/python/test_errors_more.py): the compiler's message must name this file and line."""
import porta


@porta.kernel
def shift_too_far(i: int, x: porta.i64[:]):
    x[i] = i
    x[i] = i << 70  # ERR shift
