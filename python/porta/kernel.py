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


class _Unit:
    """The compiled kernels of one Python module."""

    def __init__(self, module, file):
        self.module, self.file = module, file
        self.kernels = []  # definition order
        # A module's mode: its variant (0: C compiler, 1: nvcc), plus 2 in the checked mode.
        self.wanted = {}  # mode -> {(kernel name, spec)}
        self.loaded = {}  # (kernel name, spec, mode) -> capsule
        self.paths = []  # the .so files loaded, the latest last

    def c_name(self):
        return "".join(c if c.isalnum() else "_" for c in self.module)

    def ensure(self, kern, spec, variant=0, checked=False):
        """The capsule of kern's specialisation `spec`, compiled by the C compiler (variant 0)
        or, for the CUDA back end, by nvcc (variant 1: the same C, a module of its own); in the
        checked mode (bounds_check) from a module of its own too."""
        k = (kern._key, spec)
        mode = variant + (2 if checked else 0)
        if k + (mode,) in self.loaded:
            return self.loaded[k + (mode,)]
        wanted = self.wanted.setdefault(mode, set())
        # A miss compiles the whole module, so it brings the other kernels' likely
        # specialisations along: those with every array in this launch's layout when it has
        # one (F-ordered views, the GPU's default, would otherwise cost one compile of the
        # module per kernel), and C-ordered ones at the first miss.
        layouts = set(spec)
        if len(layouts) == 1 or not wanted:
            layout = layouts.pop() if len(layouts) == 1 else "C"
            for other in self.kernels:
                if other._source is not None:
                    wanted.add((other._key, layout * len(other._source.arrays)))
        wanted.add(k)
        by_name = {kk._key: kk for kk in self.kernels if kk._source is not None}
        items = sorted(wanted)
        try:
            self._load(items, by_name, mode)
        except cache.CompileError as e:
            if len(items) == 1 or isinstance(e, cache.CompileTimeout):
                raise  # a hung compiler is not this kernel's error: do not wait twice
            # Is the error this kernel's? Compile it alone (the others stay usable).
            self.wanted[mode] = {k}
            try:
                self._load([k], by_name, mode)
            except cache.CompileError as e:
                raise e from None
        return self.loaded[k + (mode,)]

    def _load(self, items, by_name, mode=0):
        src = translate.generate_module(self.module,
                                        [(by_name[n]._source, s) for n, s in items], mode >= 2)
        path = cache.build(src, self.c_name(), cuda=mode % 2 == 1)
        for name, spec, cap in _core.load_module(path):
            self.loaded[(name.rsplit(".", 1)[1], spec, mode)] = cap
        self.paths.append(path)

    def forget(self):
        self.wanted.clear()
        self.loaded.clear()


_units = {}
_bounds_check = None  # porta.set_bounds_check / porta.init(bounds_check=...); None: environment


def bounds_check():
    """Whether kernels without their own bounds_check option compile checked variants:
    porta.init(bounds_check=...) or porta.set_bounds_check(...), else PORTA_BOUNDS_CHECK=1."""
    if _bounds_check is not None:
        return _bounds_check
    v = os.environ.get("PORTA_BOUNDS_CHECK", "").strip().lower()
    return v not in ("", "0", "false", "no", "off")


def set_bounds_check(on):
    """Turn the checked mode on (True) or off (False) for kernels without their own option, or
    back to PORTA_BOUNDS_CHECK (None). Kernels launched before are specialised again at their
    next launch: each mode has its own compiled module (and cache entry)."""
    global _bounds_check
    new = None if on is None else bool(on)
    if new != _bounds_check:
        _bounds_check = new
        clear_specialisations()


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

    def __init__(self, fn, bounds_check=None):
        super().__init__()
        self.fn = fn
        self._bounds_check = None if bounds_check is None else bool(bounds_check)
        self.__name__ = fn.__name__
        self.__qualname__ = getattr(fn, "__qualname__", fn.__name__)
        self.__doc__ = fn.__doc__
        self.__module__ = fn.__module__
        self._key = fn.__name__
        self._source = None
        self._error = None
        self._owner = None
        self._unit = _unit_for(fn)
        if _is_method(fn):
            # A kernel method: analysed when its class is created (__set_name__).
            self._error = translate.TranslationError(
                fn.__code__.co_filename, fn.__code__.co_firstlineno, 1,
                "a kernel method outside a class", "define it in a class body", fn.__name__)
            return
        self._analyse(None)

    def _analyse(self, owner):
        self._error = None
        try:
            self._source = translate.analyse(self.fn, owner)
            self._set_names(tuple(p.name for p in self._source.fields))
            acc = self._source.acc
            if acc is not None and acc.type.custom is not None:
                self._porta_result = acc.type.custom.make
        except translate.TranslationError as e:
            self._error = e
        old = [k for k in self._unit.kernels if k._key == self._key]
        if old:  # the module was reloaded (or the name redefined): start the unit afresh
            self._unit.kernels.remove(old[0])
            self._unit.forget()
        self._unit.kernels.append(self)

    def __set_name__(self, owner, name):
        """A kernel method: its class's annotated fields are the kernel's arguments."""
        if not _is_method(self.fn):
            return
        self._owner = owner
        self._key = "%s_%s" % (translate._c_ident(owner.__qualname__), self.fn.__name__)
        self._analyse(owner)

    def __get__(self, obj, owner=None):
        if obj is None or self._owner is None:
            return self
        return BoundKernel(self, obj)

    @property
    def field_names(self):
        self.check()
        return tuple(p.name for p in self._source.fields)

    def __repr__(self):
        return "<porta kernel %s.%s>" % (self.__module__, self.__name__)

    def __call__(self, *args, **kwargs):
        raise TypeError("a Porta kernel is launched with porta.parallel_for(policy, %s, ...), "
                        "porta.parallel_reduce(...) or porta.parallel_scan(...)" % self.__name__)

    def check(self):
        """Raise the kernel's TranslationError, if it has one."""
        if self._error is not None:
            raise self._error

    def _source_fields(self):
        return [p.name for p in self._source.fields]

    def c_source(self, spec=None, checked=False):
        """The generated C of this kernel alone (for reading); `checked`: its checked variant."""
        self.check()
        spec = spec if spec is not None else "C" * len(self._source.arrays)
        return translate.generate_module(self.__module__, [(self._source, spec)], checked)

    @property
    def checked(self):
        """Whether this kernel's next specialisations are checked (its own bounds_check option,
        else porta.set_bounds_check / porta.init(bounds_check=...), else PORTA_BOUNDS_CHECK)."""
        return self._bounds_check if self._bounds_check is not None else bounds_check()

    def _specialize(self, sig, codes, args, variant=0):
        """A launch missed: check the arguments, compile (or load) the specialisation (variant
        1: for the CUDA back end, with nvcc)."""
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
                if code == _core.CODE_SCALAR:
                    raise TypeError("%s: argument '%s' must be an array (%s, %d dimension(s)), "
                                    "got %s" % (self.__name__, p.name,
                                                _describe_dtype(p.type.dtype), p.type.rank,
                                                type(a).__name__))
                ndim = _core.array_info(a)[0]  # buffer, View, CUDA array interface, DLPack
                if ndim != p.type.rank:
                    raise TypeError("%s: argument '%s' has %d dimension(s), expected %d"
                                    % (self.__name__, p.name, ndim, p.type.rank))
                spec += translate.LAYOUT_LETTERS[code]  # porta_py_layout's order
            elif code != _core.CODE_SCALAR:
                raise TypeError("%s: argument '%s' must be a scalar (%s), got an array"
                                % (self.__name__, p.name, _describe_dtype(p.type)))
        cap = self._unit.ensure(self, spec, variant, self.checked)
        self._register(sig, cap, variant)


def _is_method(fn):
    """A def whose first parameter is an unannotated `self` (a kernel method of a class)."""
    code = fn.__code__
    return code.co_argcount > 0 and code.co_varnames[0] == "self" and \
        "self" not in getattr(fn, "__annotations__", {})


class BoundKernel:
    """obj.kernel for a @porta.workload object: porta.parallel_for(policy, obj.kernel) launches
    the kernel with the object's annotated fields as its arguments."""

    __slots__ = ("kernel", "obj")

    def __init__(self, kernel, obj):
        self.kernel, self.obj = kernel, obj

    @property
    def _porta_launch(self):
        k = self.kernel
        if k._error is not None:
            raise k._error
        obj = self.obj
        try:
            return k, tuple(getattr(obj, n) for n in k._source_fields())
        except AttributeError as e:  # a TypeError: AttributeError means "not a kernel"
            raise TypeError("%s: a field of the object is not set (%s)" % (k.__qualname__, e)) \
                from None

    def __repr__(self):
        return "<bound porta kernel %s of %r>" % (self.kernel.__qualname__, self.obj)

    def __call__(self, *args, **kwargs):
        return self.kernel(*args, **kwargs)


def kernel(fn=None, *, bounds_check=None):
    """Decorate a kernel written in Porta's Python subset (docs/python.md):

        @porta.kernel
        def axpy(i: int, a: float, x: porta.f64[:], y: porta.f64[:]):
            y[i] += a * x[i]

        porta.parallel_for(n, axpy, 2.0, x, y)

    Leading `int` parameters are the indices (one: a range; two to six: an MDRangePolicy of
    that rank); a parameter annotated porta.Sum[...] (Prod, Min, Max) makes it a reduction.
    The others are the launch's arguments: NumPy arrays (or any buffer) and scalars.

    @porta.kernel(bounds_check=True) compiles the kernel's checked variant whatever the global
    switch says (False: never checked): every array access is checked, and the first bad one
    of a launch raises IndexError after it, naming the array, the indices, the extents and the
    Python file and line."""
    if fn is None:
        return lambda f: Kernel(f, bounds_check)
    if not callable(fn):
        raise TypeError("porta.kernel decorates a function: @porta.kernel or "
                        "@porta.kernel(bounds_check=True), got %r" % (fn,))
    return Kernel(fn, bounds_check)


def function(fn):
    """Decorate a device function that kernels (and other device functions) call:

        @porta.function
        def lj(r2: float, eps: float, sigma6: float) -> float:
            s6 = sigma6 / (r2 * r2 * r2)
            return 24.0 * eps * s6 * (2.0 * s6 - 1.0) / r2

    Its parameters and return value are numbers (annotated); its body is the kernel subset.
    It is emitted as a static inline C function beside the kernels that call it. Called
    from Python, it runs as Python."""
    return translate.DeviceFunction(fn)


def reducer(cls):
    """Decorate a custom reducer: a class with annotated scalar fields (its value), init(self)
    setting the identity and join(self, other) combining two values, both in the kernel
    subset:

        @porta.reducer
        class Range:
            lo: float
            hi: float
            def init(self):
                self.lo = math.inf
                self.hi = -math.inf
            def join(self, other):
                self.lo = min(self.lo, other.lo)
                self.hi = max(self.hi, other.hi)

    A kernel takes it as its accumulator (acc: Range) and updates acc.lo ...; parallel_reduce
    returns a Range with the fields set. In C it is the triple Range_value, _init, _join of a
    Porta custom reducer (and PORTA_REDUCER_TEAM_OPS for nested reductions)."""
    cls._porta_reducer = translate.ReducerSource(cls)
    return cls


def workload(cls):
    """Decorate a class whose kernel methods (@porta.kernel def step(self, i: int): ...) take
    the class's annotated fields as their arguments (PyKokkos's workload style):

        @porta.workload
        class Axpy:
            a: float
            x: porta.f64[:]
            y: porta.f64[:]
            @porta.kernel
            def run(self, i: int):
                self.y[i] += self.a * self.x[i]

        w = Axpy(a=2.0, x=x, y=y)      # a constructor from the fields, unless it defines one
        porta.parallel_for(n, w.run)

    Raises the first kernel method's TranslationError at once."""
    fields = list(translate._class_annotations(cls))
    if "__init__" not in cls.__dict__:
        def __init__(self, *args, **kwargs):
            if len(args) > len(fields):
                raise TypeError("%s takes %d fields (%s), got %d"
                                % (cls.__name__, len(fields), ", ".join(fields), len(args)))
            for n, v in zip(fields, args):
                setattr(self, n, v)
            for n, v in kwargs.items():
                if n not in fields:
                    raise TypeError("%s has no field '%s'" % (cls.__name__, n))
                setattr(self, n, v)
        __init__.__qualname__ = cls.__qualname__ + ".__init__"
        cls.__init__ = __init__
    cls._porta_fields = tuple(fields)
    return cls


def clear_specialisations():
    """Forget every loaded specialisation (the next launches look in the cache again)."""
    for u in _units.values():
        u.forget()
        for k in u.kernels:
            k._clear()
