"""The one registry of what a kernel may call or read besides its own names (docs/python.md):
math functions and constants, the builtins abs / min / max / float / int / bool, the team
member's attributes, porta's calls (nested ranges, barriers, scratch, single, simd_range,
atomics) with the Porta C each becomes, and NumPy's names with what to write instead.
device.py makes porta's Python-side functions from PORTA_CALLS; the translator's typing and
emission read every table here and nowhere else."""
import math

from . import types as T

MATH_FUNCS = {
    # name: (number of arguments, C name of the double version)
    "sqrt": (1, "sqrt"), "exp": (1, "exp"), "log": (1, "log"), "log10": (1, "log10"),
    "log2": (1, "log2"), "sin": (1, "sin"), "cos": (1, "cos"), "tan": (1, "tan"),
    "asin": (1, "asin"), "acos": (1, "acos"), "atan": (1, "atan"), "atan2": (2, "atan2"),
    "sinh": (1, "sinh"), "cosh": (1, "cosh"), "tanh": (1, "tanh"), "fabs": (1, "fabs"),
    "pow": (2, "pow"), "hypot": (2, "hypot"), "fmod": (2, "fmod"), "erf": (1, "erf"),
    "erfc": (1, "erfc"), "expm1": (1, "expm1"), "log1p": (1, "log1p"),
    "copysign": (2, "copysign"), "cbrt": (1, "cbrt"),
}
MATH_INT_FUNCS = {"floor": "floor", "ceil": "ceil", "trunc": "trunc"}  # Python returns int
MATH_BOOL_FUNCS = {"isnan": "isnan", "isinf": "isinf", "isfinite": "isfinite"}
MATH_CONSTS = {"pi": math.pi, "e": math.e, "tau": math.tau, "inf": math.inf}

# NumPy functions a kernel may call by mistake: what to write instead (a math function of the
# same name or of this one, a builtin, an operator).
NUMPY_INSTEAD = {
    "arcsin": "math.asin", "arccos": "math.acos", "arctan": "math.atan",
    "arctan2": "math.atan2", "abs": "abs(x)", "absolute": "abs(x)", "minimum": "min(a, b)",
    "maximum": "max(a, b)", "fmin": "min(a, b)", "fmax": "max(a, b)", "power": "a ** b",
    "float_power": "math.pow", "square": "x * x", "mod": "a % b", "remainder": "a % b",
    "fmod": "math.fmod", "floor_divide": "a // b", "divide": "a / b", "true_divide": "a / b",
    "multiply": "a * b", "add": "a + b", "subtract": "a - b", "negative": "-x",
    "float64": "float(x)", "int64": "int(x)", "bool_": "bool(x)", "isclose": "abs(a - b) <= tol",
}
BUILTINS = ("abs", "min", "max", "float", "int", "bool")  # called by their Python names

TEAM_ATTRS = {
    # attribute (or method of no arguments) of the team member: C expression of pk_team's
    "league_rank": "pk_team->league_rank",
    "league_size": "pk_team->league_size",
    "team_rank": "(int64_t)pk_team->team_rank",
    "team_size": "(int64_t)pk_team->team_size",
    "vector_length": "(int64_t)pk_team->vector_length",
}

# Nested ranges: name -> the Porta C loop macro (for-loops over them) ...
RANGES = {
    "team_thread_range": "PORTA_TEAM_THREAD_RANGE",
    "thread_vector_range": "PORTA_THREAD_VECTOR_RANGE",
    "team_vector_range": "PORTA_TEAM_VECTOR_RANGE",
}
# ... and the macro of the same loop when it reduces into an accumulator.
RANGE_REDUCE = {
    "team_thread_range": "PORTA_TEAM_THREAD_REDUCE",
    "thread_vector_range": "PORTA_THREAD_VECTOR_REDUCE",
    "team_vector_range": "PORTA_TEAM_VECTOR_REDUCE",
}
# Test of porta.single / porta.single_per_thread (PORTA_SINGLE_PER_TEAM / _PER_THREAD).
SINGLES = {
    "single": "(pk_team->team_rank == 0 && pk_team->vector_lane == 0)",
    "single_per_thread": "(pk_team->vector_lane == 0)",
}
# Scratch: name -> (the Porta C allocator, the PORTA_PY_SCRATCH_* slot of its level 0).
SCRATCH = {"scratch": ("porta_team_scratch", 0), "thread_scratch": ("porta_thread_scratch", 2)}

# Atomics: name -> (Porta C operation, what it returns: None, "old" or "new", argument count).
ATOMICS = {}
for _op in ("add", "sub", "min", "max"):
    ATOMICS["atomic_" + _op] = (_op, None, 3)
    ATOMICS["atomic_fetch_" + _op] = ("fetch_" + _op, "old", 3)
    ATOMICS["atomic_%s_fetch" % _op] = (_op + "_fetch", "new", 3)
ATOMICS["atomic_exchange"] = ("exchange", "old", 3)
ATOMICS["atomic_compare_exchange"] = ("compare_exchange", "old", 4)
ATOMICS["atomic_load"] = ("load", "old", 2)
ATOMICS["atomic_store"] = ("store", None, 3)
ATOMIC_DTYPES = ("f64", "f32", "i64", "i32")

# porta's calls: name -> docstring of its Python-side function (device.py).
PORTA_CALLS = {
    "team_thread_range": "for j in porta.team_thread_range(t, [begin,] end): [begin, end) "
                         "split over the team's threads (PORTA_TEAM_THREAD_RANGE).",
    "thread_vector_range": "for k in porta.thread_vector_range(t, [begin,] end): over the "
                           "calling thread's vector lanes (PORTA_THREAD_VECTOR_RANGE).",
    "team_vector_range": "for k in porta.team_vector_range(t, [begin,] end): over every lane "
                         "of every thread of the team (PORTA_TEAM_VECTOR_RANGE).",
    "team_barrier": "porta.team_barrier(t): porta_team_barrier.",
    "scratch": "a = porta.scratch(t, porta.f64, n | (n0, n1), level=0): team-shared scratch "
               "(porta_team_scratch); the launch requests its size from the kernel's arguments.",
    "thread_scratch": "a = porta.thread_scratch(t, porta.f64, n, level=0): this thread's "
                      "scratch (porta_thread_scratch).",
    "single": "if porta.single(t): runs on one thread of the team (PORTA_SINGLE_PER_TEAM).",
    "single_per_thread": "if porta.single_per_thread(t): runs on one vector lane of each "
                         "thread (PORTA_SINGLE_PER_THREAD).",
    "simd_range": "for k in porta.simd_range([begin,] end): a sequential loop inside one index "
                  "of a kernel that the CPU may vectorise (omp simd on the host back ends, a "
                  "plain loop on a GPU); locals updated with += or -= (*=) in it are summed "
                  "(multiplied) per lane and combined after the loop, so the order of that sum "
                  "differs from a plain loop's.",
}
for _name, (_op, _ret, _n) in ATOMICS.items():
    PORTA_CALLS[_name] = (
        "porta.%s(a, index, %s): porta_atomic_%s_<type> on the element a[index] (index: an int, "
        "or a tuple of one per dimension)%s."
        % (_name, "expected, desired" if _n == 4 else ("" if _n == 2 else "value"), _op,
           "" if _ret is None else "; returns the %s value" % _ret))


def _promote(a, b):
    """The type of a binary operation: f64 if either is f64, f32 if a float is f32, else i64
    if either is i64, else i32 (booleans count as i32)."""
    if a.is_float or b.is_float:
        return T.f64 if T.f64 in (a, b) else T.f32
    return T.i64 if T.i64 in (a, b) else T.i32


def builtin_takes(fname, n):
    """Whether the math function or builtin `fname` takes `n` arguments."""
    if fname in MATH_FUNCS:
        return n == MATH_FUNCS[fname][0]
    if fname in ("min", "max"):
        return n >= 2
    return n == 1 and (fname in MATH_INT_FUNCS or fname in MATH_BOOL_FUNCS
                       or fname in ("abs", "float", "int", "bool"))


def builtin_type(fname, types):
    """Typing's rule for a math function or builtin called with arguments of `types`: its
    DType, or None when it does not take that many arguments. min / max: their steps
    (minmax_steps) give it."""
    if not builtin_takes(fname, len(types)):
        return None
    if fname in MATH_FUNCS:
        return T.f32 if all(t is T.f32 for t in types) else T.f64
    if fname in MATH_INT_FUNCS:
        return T.i64 if types[0].is_float else types[0]
    if fname == "abs":
        return (T.f64 if types[0] is T.f64 else T.f32) if types[0].is_float else T.i64
    if fname in ("min", "max"):
        return minmax_steps(types)[-1]
    return {"float": T.f64, "int": T.i64}.get(fname, T.boolean)  # bool, isnan ...


def minmax_steps(types):
    """The types of min(a, b, c ...) after each argument past the first: it compares the
    arguments left to right, each result of the promotion so far."""
    steps, t = [], types[0]
    for t2 in types[1:]:
        t = _promote(t, t2)
        steps.append(t)
    return steps


def builtin_code(fname, args, t, steps):
    """The C of a math function or builtin that takes these arguments [(C, DType)]
    (builtin_takes), of the type `t` typing gave it (steps: min / max's, minmax_steps)."""
    if fname in MATH_FUNCS:
        cn = MATH_FUNCS[fname][1]
        return "%s%s(%s)" % (cn, "f" if t is T.f32 else "", ", ".join(
            c if at.is_float else "(double)%s" % c for c, at in args))
    c, at = args[0]
    if fname in MATH_INT_FUNCS:
        return "(int64_t)%s(%s)" % (MATH_INT_FUNCS[fname], c) if at.is_float else c
    if fname in MATH_BOOL_FUNCS:
        return "(%s((double)%s) ? 1 : 0)" % (MATH_BOOL_FUNCS[fname], c)
    if fname == "abs":
        return "fabs(%s)" % c if at.is_float else "pk_abs(%s)" % c
    if fname in ("min", "max"):
        op = "<" if fname == "min" else ">"
        for (c2, _), st in zip(args[1:], steps):
            c = "(%s %s %s ? (%s)(%s) : (%s)(%s))" % (c2, op, c, st.ctype, c2, st.ctype, c)
        return c
    return {"float": "((double)%s)", "int": "((int64_t)%s)", "bool": "(%s != 0)"}[fname] % c
