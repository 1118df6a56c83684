"""Annotation types of Python kernels (docs/python.md).

Scalars: porta.f64, porta.f32, porta.i64, porta.i32, porta.u8, porta.boolean; Python's float and
int mean f64 and i64 (a leading `int` parameter is an index of the iteration space).
Arrays: a dtype indexed by slices, one per dimension: porta.f64[:] (rank 1), porta.f64[:, :].
Accumulators of reductions: porta.Sum[f64], porta.Prod[...], porta.Min[...], porta.Max[...],
porta.MinLoc[...], porta.MaxLoc[...] (a value and its index: acc.val, acc.loc), porta.ExactSum
(or porta.ExactSum[f64]: Porta's exact sum, porta_xsum_f64, rounded once), and a class
decorated with @porta.reducer (a custom reducer: its fields, init and join).
"""


class DType:
    """An element / scalar type: its name, C type and porta_py_dtype code."""

    def __init__(self, name, ctype, code, is_float, itemsize, suffix):
        self.name, self.ctype, self.code = name, ctype, code
        self.is_float, self.itemsize, self.suffix = is_float, itemsize, suffix

    def __getitem__(self, dims):
        if not isinstance(dims, tuple):
            dims = (dims,)
        fixed = []
        for d in dims:
            if isinstance(d, slice) and d == slice(None):
                fixed.append(0)
            elif isinstance(d, int) and not isinstance(d, bool) and d > 0:
                fixed.append(d)  # an extent fixed by the annotation (Kokkos' View<double*[3]>)
            else:
                raise TypeError("array annotations are written %s[:], %s[:, :], ... (one ':' per "
                                "dimension, or a positive int fixing that extent: %s[:, 3])"
                                % (self.name, self.name, self.name))
        if not 1 <= len(dims) <= 6:
            raise TypeError("arrays have 1 to 6 dimensions")
        return ArrayType(self, len(dims), tuple(fixed))

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
    """An array argument's dtype and rank; `fixed` gives each dimension's extent where the
    annotation fixes it (0: any), so the generated C indexes with constants there."""

    def __init__(self, dtype, rank, fixed=None):
        self.dtype, self.rank = dtype, rank
        self.fixed = tuple(fixed) if fixed else (0,) * rank

    def __repr__(self):
        return "porta.%s[%s]" % (self.dtype.name,
                                 ", ".join(str(f) if f else ":" for f in self.fixed))

    def __eq__(self, other):
        return isinstance(other, ArrayType) and \
            (self.dtype, self.rank, self.fixed) == (other.dtype, other.rank, other.fixed)

    def __hash__(self):
        return hash((self.dtype.name, self.rank, self.fixed))


class _ReducerFamily:
    def __init__(self, op):
        self.op = op

    def __getitem__(self, dtype):
        dtype = as_dtype(dtype)
        if dtype is None or dtype.name in ("boolean",):
            raise TypeError("porta.%s[...] takes f64, f32, i64 or i32" % self.op)
        return AccType(self.op, dtype)

    def bare(self):
        """The accumulator the family written alone means (acc: porta.ExactSum), or None."""
        return None


class _ExactSumFamily(_ReducerFamily):
    """porta.ExactSum: the C reducer porta_xsum_f64 (porta/xsum.h), doubles only."""

    def __getitem__(self, dtype):
        if as_dtype(dtype) is not f64:
            raise TypeError("porta.ExactSum[...] takes f64 only (Porta's exact sum is of "
                            "doubles): write porta.ExactSum or porta.ExactSum[porta.f64]")
        return AccType(self.op, f64)

    def bare(self):
        return AccType(self.op, f64)

    def __repr__(self):
        return "porta.ExactSum"


class AccType:
    """The accumulator of a reduction: reducer `op` (sum, prod, min, max, minloc, maxloc, xsum:
    the exact sum) over `dtype`, or a custom reducer (op "custom", `custom` its
    translate.ReducerSource)."""

    def __init__(self, op, dtype, custom=None):
        self.op, self.dtype, self.custom = op, dtype, custom

    @property
    def reducer(self):
        if self.custom is not None:
            return self.custom.cname
        return "porta_%s_%s" % (self.op, self.dtype.suffix)

    @property
    def exact(self):
        """The exact sum (porta.ExactSum): only added to, its value rounded once at the end."""
        return self.op == "xsum"

    @property
    def fields(self):
        """A struct value's fields [(name, DType)], or None for a scalar value."""
        if self.custom is not None:
            return self.custom.fields
        if self.op in ("minloc", "maxloc"):
            return [("val", self.dtype), ("loc", i64)]
        return None

    def __eq__(self, other):
        return isinstance(other, AccType) and (self.op, self.dtype, self.custom) == \
            (other.op, other.dtype, other.custom)

    def __hash__(self):
        return hash((self.op, self.dtype.name if self.dtype else None, id(self.custom)))

    def __repr__(self):
        if self.custom is not None:
            return self.custom.name
        name = {"minloc": "MinLoc", "maxloc": "MaxLoc", "xsum": "ExactSum"}.get(
            self.op, self.op.capitalize())
        return "porta.%s[%r]" % (name, self.dtype)


Sum = _ReducerFamily("sum")
Prod = _ReducerFamily("prod")
Min = _ReducerFamily("min")
Max = _ReducerFamily("max")
MinLoc = _ReducerFamily("minloc")
MaxLoc = _ReducerFamily("maxloc")
ExactSum = _ExactSumFamily("xsum")


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
