"""Annotation types of Python kernels (docs/python.md).

Scalars: porta.f64, porta.f32, porta.i64, porta.i32, porta.u8, porta.boolean; Python's float and
int mean f64 and i64 (a leading `int` parameter is an index of the iteration space).
Arrays: a dtype indexed by slices, one per dimension: porta.f64[:] (rank 1), porta.f64[:, :].
Accumulators of reductions: porta.Sum[f64], porta.Prod[...], porta.Min[...], porta.Max[...].
"""


class DType:
    """An element / scalar type: its name, C type and porta_py_dtype code."""

    def __init__(self, name, ctype, code, is_float, itemsize, suffix):
        self.name, self.ctype, self.code = name, ctype, code
        self.is_float, self.itemsize, self.suffix = is_float, itemsize, suffix

    def __getitem__(self, dims):
        if not isinstance(dims, tuple):
            dims = (dims,)
        if not all(isinstance(d, slice) and d == slice(None) for d in dims):
            raise TypeError("array annotations are written %s[:], %s[:, :], ... (one ':' per "
                            "dimension)" % (self.name, self.name))
        if not 1 <= len(dims) <= 6:
            raise TypeError("arrays have 1 to 6 dimensions")
        return ArrayType(self, len(dims))

    def __repr__(self):
        return "porta." + self.name


f64 = DType("f64", "double", 0, True, 8, "f64")
f32 = DType("f32", "float", 1, True, 4, "f32")
i64 = DType("i64", "int64_t", 2, False, 8, "i64")
i32 = DType("i32", "int32_t", 3, False, 4, "i32")
u8 = DType("u8", "uint8_t", 4, False, 1, "u8")
boolean = DType("boolean", "int32_t", 5, False, 4, "i32")
DTYPES = {d.name: d for d in (f64, f32, i64, i32, u8, boolean)}
NUMPY_NAMES = {"f64": "float64", "f32": "float32", "i64": "int64", "i32": "int32",
               "u8": "uint8", "boolean": "bool"}


class ArrayType:
    def __init__(self, dtype, rank):
        self.dtype, self.rank = dtype, rank

    def __repr__(self):
        return "porta.%s[%s]" % (self.dtype.name, ", ".join([":"] * self.rank))

    def __eq__(self, other):
        return isinstance(other, ArrayType) and (self.dtype, self.rank) == (other.dtype, other.rank)

    def __hash__(self):
        return hash((self.dtype.name, self.rank))


class _ReducerFamily:
    def __init__(self, op):
        self.op = op

    def __getitem__(self, dtype):
        dtype = as_dtype(dtype)
        if dtype is None or dtype.name in ("boolean",):
            raise TypeError("porta.%s[...] takes f64, f32, i64 or i32" % self.op.capitalize())
        return AccType(self.op, dtype)


class AccType:
    """The accumulator of a reduction: reducer `op` (sum, prod, min, max) over `dtype`."""

    def __init__(self, op, dtype):
        self.op, self.dtype = op, dtype

    @property
    def reducer(self):
        return "porta_%s_%s" % (self.op, self.dtype.suffix)

    def __repr__(self):
        return "porta.%s[%r]" % (self.op.capitalize(), self.dtype)


Sum = _ReducerFamily("sum")
Prod = _ReducerFamily("prod")
Min = _ReducerFamily("min")
Max = _ReducerFamily("max")


def as_dtype(t):
    if t is float:
        return f64
    if t is int:
        return i64
    if t is bool:
        return boolean
    if isinstance(t, DType):
        return t
    return None
