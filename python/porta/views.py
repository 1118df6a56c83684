"""Porta views from Python (docs/python.md, "Arrays").

    v = porta.View((n, m), porta.f64, space="cuda", layout="C")   # porta_view_create
    h = porta.create_mirror_view(v)          # a host view (v itself if the host reads v)
    porta.deep_copy(h, v)                    # porta_view_deep_copy: views or any arrays
    a = numpy.asarray(h)                     # the same memory (buffer protocol), no copy
    cupy.asarray(v)                          # __cuda_array_interface__ v3, no copy
    torch.from_dlpack(v)                     # DLPack, no copy
    s = porta.subview(v, (1, n - 1), porta.ALL)  # porta_view_subview: the same memory

A View is a Python object owning one reference to a Porta view; what it exports (a NumPy
array, a DLPack tensor) keeps that reference alive. Views, NumPy arrays and other arrays
(__cuda_array_interface__, DLPack) are all accepted as kernel arguments, each in the memory
space its protocol says: a kernel on a back end that cannot read an argument's memory raises
a TypeError naming it (a NumPy array on CUDA: copy it into a View of space "cuda" first).
"""
import operator

import numpy as np

from . import _core
from . import types as T

SPACES = {"host": _core.HOST_SPACE, "cuda": _core.CUDA_SPACE,
          "cuda_uvm": _core.CUDA_UVM_SPACE, "cuda_host_pinned": _core.CUDA_HOST_PINNED_SPACE}
_SPACE_ALIASES = {"hostspace": "host", "cudaspace": "cuda", "device": "cuda", "uvm": "cuda_uvm",
                  "cudauvmspace": "cuda_uvm", "managed": "cuda_uvm", "pinned": "cuda_host_pinned",
                  "cudahostpinnedspace": "cuda_host_pinned"}
SPACE_NAMES = {v: k for k, v in SPACES.items()}
# porta_layout: DEFAULT (the space's: Right on the host, Left on a GPU), RIGHT, LEFT.
_LAYOUTS = {None: 0, "C": 1, "right": 1, "F": 2, "left": 2}


def space_id(space):
    """The porta_memory_space of a space name ("host", "cuda", "cuda_uvm", "cuda_host_pinned")."""
    if isinstance(space, int) and space in SPACE_NAMES:
        return space
    name = str(space).lower()
    name = _SPACE_ALIASES.get(name, name)
    if name not in SPACES:
        raise ValueError("unknown memory space %r (host, cuda, cuda_uvm or cuda_host_pinned)"
                         % (space,))
    return SPACES[name]


_VIEW_DTYPES = ("f8", "f4", "i8", "i4", "u8", "u4", "u1", "b1")


def _dtype_code(dtype):
    """'f8', 'i4', 'u1', 'b1' ... of a porta dtype, a NumPy dtype or anything np.dtype takes."""
    if isinstance(dtype, T.DType):
        if dtype is T.boolean:
            return "b1"
        dtype = T.NUMPY_NAMES[dtype.name]
    try:
        dt = np.dtype(dtype)
    except TypeError as e:
        raise TypeError("porta.View: %s" % e) from None
    code = "%s%d" % (dt.kind, dt.itemsize)
    if code not in _VIEW_DTYPES or not dt.isnative:
        name = dt.name if dt.isnative else "%s (byte-swapped: %s)" % (dt.name, dt.str)
        raise TypeError("porta.View: views hold float64, float32, int64, int32, uint64, uint32, "
                        "uint8 or bool, not %s" % name)
    return code


class View(_core.View):
    """A Porta view (porta_view_create): `shape` (an int or a tuple, rank 0 to 8), `dtype`
    (porta.f64 ..., a NumPy dtype; float64, float32, int64, int32, uint64, uint32, uint8,
    bool), `space` ("host", "cuda", "cuda_uvm", "cuda_host_pinned"; None: Porta's default memory
    space, that of the default back end), `layout` ("C" = LayoutRight, "F" = LayoutLeft; None:
    the space's default, Right on the host and Left on a GPU, as in C), `label`, and
    `initialize` (False: not zero-filled).

    On the host it is a NumPy array without a copy (numpy.asarray(view)); on a GPU it exports
    __cuda_array_interface__ v3; everywhere DLPack (__dlpack__ / __dlpack_device__)."""

    __slots__ = ()

    def __new__(cls, shape, dtype=T.f64, space=None, layout=None, label="", initialize=True):
        from . import _ensure_init
        _ensure_init()
        if isinstance(shape, (int, np.integer)):
            shape = (int(shape),)
        if layout not in _LAYOUTS:
            raise ValueError("porta.View: layout must be 'C' (LayoutRight), 'F' (LayoutLeft) or "
                             "None (the space's default), not %r" % (layout,))
        elif not isinstance(shape, (tuple, list)):
            raise TypeError("porta.View: shape is an int or a tuple of ints, not %s"
                            % type(shape).__name__)
        if len(shape) > 8:
            raise ValueError("porta.View: a view has at most 8 dimensions, not %d (shape %r)"
                             % (len(shape), tuple(shape)))
        shape = tuple(operator.index(n) for n in shape)
        for r, n in enumerate(shape):
            if n < 0:
                raise ValueError("porta.View: extent %d of shape %r is negative" % (r, shape))
        sid = -1 if space is None else space_id(space)
        return _core.view_create(cls, shape, _dtype_code(dtype), sid, _LAYOUTS[layout],
                                 "" if label is None else str(label), bool(initialize))

    @property
    def dtype(self):
        """The NumPy dtype of the elements."""
        return np.dtype(self._dtype_name)

    @property
    def space(self):
        """The memory space's name: "host", "cuda", "cuda_uvm" or "cuda_host_pinned"."""
        return SPACE_NAMES[self._space]

    @property
    def nbytes(self):
        return self.size * self.itemsize

    def __len__(self):
        if self.ndim == 0:
            raise TypeError("len() of a rank-0 view")
        return self.shape[0]

    def __repr__(self):
        return "porta.View(%r, %s, space=%r, layout=%r, label=%r)" % (
            self.shape, self._dtype_name, self.space, self.layout, self.label)

    def __array__(self, dtype=None, copy=None):
        # NumPy reads host views through the buffer protocol first; this is reached for a view
        # the host cannot read (its buffer export failed), or when a dtype is asked for.
        if not _core.space_accessible(0, self._space):
            raise TypeError("view '%s' is in %s memory, which the host cannot read: use "
                            "porta.create_mirror_view_and_copy(view) (or view.to_numpy())"
                            % (self.label, self.space))
        a = np.asarray(memoryview(self))
        return a if dtype is None else a.astype(dtype, copy=bool(copy))

    def to_numpy(self):
        """A NumPy array of the values: the view's own memory when the host can read it (no
        copy), else a host mirror filled by deep_copy."""
        return np.asarray(create_mirror_view_and_copy(self))


_core._set_view_class(View)


def _ready():
    from . import _ensure_init
    _ensure_init()


def deep_copy(dst, src):
    """porta_view_deep_copy(dst, src): dst and src are porta.Views or any arrays (NumPy,
    __cuda_array_interface__, DLPack), each wrapped as a view of its memory space. They must
    agree in dtype, shape and (rank >= 2) layout, as in C: a layout is never converted behind
    the caller's back (ValueError). Fences first; complete on return."""
    _ready()
    _core.deep_copy(dst, src)


def create_mirror(src):
    """A new host View of src's shape and layout (porta_view_create_mirror)."""
    _ready()
    return _core.create_mirror(src)


def create_mirror_view(src):
    """src itself when the host can read it, else a new host mirror
    (porta_view_create_mirror_view)."""
    _ready()
    return _core.create_mirror_view(src)


ALL = slice(None)
"""A whole dimension in porta.subview (Kokkos::ALL)."""


def subview(view, *slices):
    """A View of part of `view`, sharing its memory (Kokkos::subview, porta_view_subview): one
    argument per dimension, an int (that index; the dimension is dropped), a slice with step 1
    (negative bounds count from the end, as in Python), a pair (begin, end) or porta.ALL.

    The interior of a padded 2D field, v[1:n+1, 1:m+1] in NumPy terms, is
    porta.subview(v, (1, n + 1), (1, m + 1)): in any memory space, and kernels compile it with
    unit inner stride (a padded layout, docs/python.md), not as an arbitrarily strided array."""
    if not isinstance(view, View):
        raise TypeError("porta.subview: the first argument must be a porta.View, not %s "
                        "(slice other arrays with their own indexing)" % type(view).__name__)
    if len(slices) != view.ndim:
        raise ValueError("porta.subview: a view of rank %d takes %d slices, got %d"
                         % (view.ndim, view.ndim, len(slices)))
    out = []
    for r, (s, n) in enumerate(zip(slices, view.shape)):
        if isinstance(s, slice):
            if s.step not in (None, 1):
                raise ValueError("porta.subview: slice %d has step %r: subviews take step 1"
                                 % (r, s.step))
            b, e, _ = s.indices(n)
            out.append((2, b, max(b, e)))
        elif isinstance(s, tuple) and len(s) == 2:
            b, e = (operator.index(x) for x in s)
            if not 0 <= b <= e <= n:
                raise IndexError("porta.subview: range %d (%d, %d) is outside [0, %d]"
                                 % (r, b, e, n))
            out.append((2, b, e))
        else:
            try:
                i = operator.index(s)
            except TypeError:
                raise TypeError("porta.subview: slice %d is %r: give an int, a slice, a pair "
                                "(begin, end) or porta.ALL" % (r, s)) from None
            if not -n <= i < n:
                raise IndexError("porta.subview: index %d of dimension %d is outside [0, %d)"
                                 % (i, r, n))
            i = i + n if i < 0 else i
            out.append((1, i, i + 1))
    _ready()
    return _core.view_subview(view, tuple(out))


def create_mirror_view_and_copy(src):
    """A host view holding src's values: src itself when the host can read it, else a new
    mirror filled with deep_copy (Kokkos' create_mirror_view_and_copy to the host)."""
    m = create_mirror_view(src)
    if m is not src:
        deep_copy(m, src)
    return m
