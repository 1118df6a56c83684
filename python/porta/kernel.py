"""Kernels: the @porta.kernel decorator, the per-module compile unit and the launch glue.

A Kernel is a porta._core.Dispatcher (its specialisations live in C, looked up by the layout
signature of the arguments on every launch) plus what a miss needs: the checked source
(translate.analyse) and the module it belongs to. All kernels of one Python module compile
into one C file: on the first miss the unit generates every kernel of the module that
translates, with C-ordered arrays, plus the specialisation asked for; later misses (another
layout) add theirs. The set is sorted, so the same program finds the same cache entries run
after run. A kernel that does not translate is left out of the module (its error is raised
when it is launched): it does not break the others.
"""
import os

from . import _core, cache, translate
from . import types as T

LAYOUT_OF_CODE = {0: "C", 1: "F", 2: "S"}


class _Unit:
    """The compiled kernels of one Python module."""

    def __init__(self, module, file):
        self.module, self.file = module, file
        self.kernels = []  # definition order
        self.wanted = set()  # (kernel name, spec)
        self.loaded = {}  # (kernel name, spec) -> capsule
        self.paths = []  # the .so files loaded, the latest last

    def c_name(self):
        return "".join(c if c.isalnum() else "_" for c in self.module)

    def ensure(self, kern, spec):
        k = (kern.__name__, spec)
        if k in self.loaded:
            return self.loaded[k]
        if not self.wanted:  # first miss: every kernel of the module, C-ordered
            for other in self.kernels:
                if other._source is not None:
                    self.wanted.add((other.__name__, "C" * len(other._source.arrays)))
        self.wanted.add(k)
        by_name = {kk.__name__: kk for kk in self.kernels}
        items = sorted(self.wanted)
        try:
            self._load(items, by_name)
        except cache.CompileError:
            if len(items) == 1:
                raise
            # Is the error this kernel's? Compile it alone (the others stay usable).
            self.wanted = {k}
            try:
                self._load([k], by_name)
            except cache.CompileError as e:
                raise e from None
        return self.loaded[k]

    def _load(self, items, by_name):
        src = translate.generate_module(self.module,
                                        [(by_name[n]._source, s) for n, s in items])
        path = cache.build(src, self.c_name())
        for name, spec, cap in _core.load_module(path):
            self.loaded[(name.rsplit(".", 1)[1], spec)] = cap
        self.paths.append(path)

    def forget(self):
        self.wanted.clear()
        self.loaded.clear()


_units = {}


def _unit_for(fn):
    mod = fn.__module__ or "__main__"
    file = getattr(fn.__code__, "co_filename", "")
    k = (mod, file)
    if k not in _units:
        _units[k] = _Unit(mod, file)
    return _units[k]


def _describe_dtype(dt):
    return T.NUMPY_NAMES[dt.name]


class Kernel(_core.Dispatcher):
    """A kernel written in Python (see porta.kernel)."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn
        self.__name__ = fn.__name__
        self.__qualname__ = getattr(fn, "__qualname__", fn.__name__)
        self.__doc__ = fn.__doc__
        self.__module__ = fn.__module__
        self._source = None
        self._error = None
        try:
            self._source = translate.analyse(fn)
            self._set_names(tuple(p.name for p in self._source.fields))
        except translate.TranslationError as e:
            self._error = e
        self._unit = _unit_for(fn)
        old = [k for k in self._unit.kernels if k.__name__ == self.__name__]
        if old:  # the module was reloaded (or the name redefined): start the unit afresh
            self._unit.kernels.remove(old[0])
            self._unit.forget()
        self._unit.kernels.append(self)

    def __repr__(self):
        return "<porta kernel %s.%s>" % (self.__module__, self.__name__)

    def __call__(self, *args, **kwargs):
        raise TypeError("a Porta kernel is launched with porta.parallel_for(policy, %s, ...) "
                        "or porta.parallel_reduce(...)" % self.__name__)

    def check(self):
        """Raise the kernel's TranslationError, if it has one."""
        if self._error is not None:
            raise self._error

    def c_source(self, spec=None):
        """The generated C of this kernel alone (for reading)."""
        self.check()
        spec = spec if spec is not None else "C" * len(self._source.arrays)
        return translate.generate_module(self.__module__, [(self._source, spec)])

    def _specialize(self, sig, codes, args):
        """A launch missed: check the arguments, compile (or load) the specialisation."""
        self.check()
        from . import _ensure_init
        _ensure_init()
        ks = self._source
        if len(args) != len(ks.fields):
            raise TypeError("%s() takes %d arguments (%s), got %d"
                            % (self.__name__, len(ks.fields),
                               ", ".join(p.name for p in ks.fields), len(args)))
        spec = ""
        for p, code, a in zip(ks.fields, codes, args):
            if p.kind == "array":
                if code == 3:
                    raise TypeError("%s: argument '%s' must be an array (%s, %d dimension(s)), "
                                    "got %s" % (self.__name__, p.name,
                                                _describe_dtype(p.type.dtype), p.type.rank,
                                                type(a).__name__))
                m = memoryview(a)
                if m.ndim != p.type.rank:
                    raise TypeError("%s: argument '%s' has %d dimension(s), expected %d"
                                    % (self.__name__, p.name, m.ndim, p.type.rank))
                spec += LAYOUT_OF_CODE[code]
            elif code != 3:
                raise TypeError("%s: argument '%s' must be a scalar (%s), got an array"
                                % (self.__name__, p.name, _describe_dtype(p.type)))
        cap = self._unit.ensure(self, spec)
        self._register(sig, cap)


def kernel(fn):
    """Decorate a kernel written in Porta's Python subset (docs/python.md):

        @porta.kernel
        def axpy(i: int, a: float, x: porta.f64[:], y: porta.f64[:]):
            y[i] += a * x[i]

        porta.parallel_for(n, axpy, 2.0, x, y)

    Leading `int` parameters are the indices (one: a range; two to six: an MDRangePolicy of
    that rank); a parameter annotated porta.Sum[...] (Prod, Min, Max) makes it a reduction.
    The others are the launch's arguments: NumPy arrays (or any buffer) and scalars."""
    return Kernel(fn)


def clear_specialisations():
    """Forget every loaded specialisation (the next launches look in the cache again)."""
    for u in _units.values():
        u.forget()
        for k in u.kernels:
            k._clear()
