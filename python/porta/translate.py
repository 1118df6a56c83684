"""Python kernels -> Porta C (docs/python.md).

analyse(fn) reads a decorated function's source with `ast` and checks it against the typed
subset kernels are written in; generate(kernel_source, spec) writes the C of one
specialisation (one layout letter per array argument: C, F or S for strided) with Porta's
kernel macros (PORTA_FOR, PORTA_REDUCE, PORTA_MDFOR2 ...), the argument struct, and the
porta_py_kernel description (porta_py.h) the extension launches it through. The C is in the
common subset of C11 and C++17, so nvcc can compile it too. Every statement is preceded by a
#line directive naming the Python file and line, so compiler errors and Porta's bounds
messages point at the Python source. Anything outside the subset raises TranslationError with
the file, line, column (1-based, as compilers print), the construct and what to write instead.
"""
import ast
import copy
import math
import os
import types as _pytypes

from . import device as D
from . import types as T

VOID = T.DType("void", "void", -1, False, 0, "void")  # what a call used as a statement returns

C_KEYWORDS = set("""auto break case char const continue default do double else enum extern float
for goto if inline int long register restrict return short signed sizeof static struct switch
typedef union unsigned void volatile while _Bool _Complex _Imaginary class new delete this
template typename namespace operator private public protected virtual friend bool true false
try catch throw main NULL INFINITY NAN""".split())

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

HINTS = {
    "ListComp": "write a for loop over range(...) that stores into an array argument",
    "SetComp": "write a for loop over range(...)",
    "DictComp": "write a for loop over range(...)",
    "GeneratorExp": "write a for loop over range(...)",
    "List": "pass an array argument (porta.f64[:]) instead of building a list in the kernel",
    "Tuple": "assign one name at a time; pass arrays as arguments",
    "Dict": "pass arrays as arguments; kernels have no dictionaries",
    "Set": "pass arrays as arguments; kernels have no sets",
    "Try": "kernels cannot raise or catch exceptions: test the condition with if and write a "
           "flag into an array argument",
    "TryStar": "kernels cannot raise or catch exceptions: test the condition with if",
    "Raise": "kernels cannot raise exceptions: write a flag into an array argument and check "
             "it after the launch",
    "With": "kernels have no context managers: remove the with statement",
    "Lambda": "decorate a module-level function with @porta.kernel instead",
    "FunctionDef": "define functions at module level",
    "ClassDef": "define classes at module level",
    "Import": "import at module level (math is known by name in kernels)",
    "ImportFrom": "import at module level (math is known by name in kernels)",
    "Global": "pass the value as an argument",
    "Nonlocal": "pass the value as an argument",
    "Yield": "kernels produce no values: store into an array argument",
    "YieldFrom": "kernels produce no values: store into an array argument",
    "Await": "kernels are not coroutines",
    "AsyncFor": "kernels are not coroutines",
    "AsyncWith": "kernels are not coroutines",
    "Delete": "remove the del statement: locals end with the kernel",
    "Assert": "test the condition with if and write a flag into an array argument",
    "Starred": "pass each value as its own argument",
    "JoinedStr": "kernels have no strings",
    "NamedExpr": "assign on a line of its own",
    "Match": "write if / elif / else",
    "Slice": "index one element at a time (x[i], a[i, j]); slice arrays before the launch",
}


class TranslationError(Exception):
    """A kernel uses something outside Porta's Python subset.

    Attributes: file, line, col (1-based), construct (what was found), hint (what to write
    instead), kernel (the kernel's name)."""

    def __init__(self, file, line, col, construct, hint, kernel=None):
        self.file, self.line, self.col = file, line, col
        self.construct, self.hint, self.kernel = construct, hint, kernel
        where = " (in kernel '%s')" % kernel if kernel else ""
        super().__init__("%s:%d:%d: %s is not supported in a Porta kernel%s: %s"
                         % (file, line, col, construct, where, hint))

    def __reduce__(self):
        return (TranslationError,
                (self.file, self.line, self.col, self.construct, self.hint, self.kernel))


class Param:
    def __init__(self, name, kind, type_):
        # kind: index, team (the team member), acc, final (a scan's flag), array, scalar
        self.name, self.kind, self.type = name, kind, type_


class KernelSource:
    """A checked kernel: its parameters and body, independent of the layouts."""

    def __init__(self, fn, name, module, file, tree, params, env_globals):
        self.fn, self.name, self.module, self.file = fn, name, module, file
        self.tree, self.params, self.globals = tree, params, env_globals
        self.indices = [p for p in params if p.kind == "index"]
        self.fields = [p for p in params if p.kind in ("array", "scalar")]
        self.arrays = [p for p in params if p.kind == "array"]
        accs = [p for p in params if p.kind == "acc"]
        self.acc = accs[0] if accs else None
        self.team = next((p for p in params if p.kind == "team"), None)
        self.final = next((p for p in params if p.kind == "final"), None)
        self.written = set()
        self.locals = {}
        self.funcs = {}  # device functions called: C name -> FunctionSource
        self.reducers = {}  # custom reducers used: C name -> ReducerSource
        self.structs = {}

    @property
    def rank(self):
        return len(self.indices)


def _c_ident(text):
    return "".join(c if c.isalnum() else "_" for c in text)


class FunctionSource:
    """A checked @porta.function (scalar parameters, a scalar or no return value), or a custom
    reducer's init / join (mode "reducer": `self` and `other` are the reducer's values)."""

    def __init__(self, fn, name, module, file, tree, params, ret, env_globals, cname):
        self.fn, self.name, self.module, self.file = fn, name, module, file
        self.tree, self.params, self.ret, self.globals = tree, params, ret, env_globals
        self.cname = cname
        self.indices, self.fields, self.arrays = [], [], []
        self.acc = self.team = self.final = None
        self.written = set()
        self.locals = {}
        self.funcs = {}
        self.reducers = {}
        self.structs = {}  # reducer methods: name -> (C prefix, {field: DType}, writable)


class DeviceFunction:
    """A function kernels (and other device functions) call: @porta.function. Called from
    Python it runs as Python."""

    def __init__(self, fn):
        self.fn = fn
        self.__name__ = fn.__name__
        self.__qualname__ = getattr(fn, "__qualname__", fn.__name__)
        self.__doc__ = fn.__doc__
        self.__module__ = fn.__module__
        self._source = None
        self._busy = False

    def __call__(self, *args):
        return self.fn(*args)

    def __repr__(self):
        return "<porta function %s.%s>" % (self.__module__, self.__name__)

    def source(self):
        """The checked FunctionSource (raises TranslationError)."""
        if self._source is None:
            if self._busy:
                file, fdef = _load(self.fn)
                raise TranslationError(file, fdef.lineno, fdef.col_offset + 1,
                                       "a recursive call of '%s'" % self.__name__,
                                       "device functions cannot call themselves, directly or "
                                       "not: write a loop", self.__name__)
            self._busy = True
            try:
                self._source = analyse_function(self.fn)
            finally:
                self._busy = False
        return self._source

    def check(self):
        self.source()

    def c_source(self):
        return _Gen(self.source(), "", mode="function").generate_function()


REDUCER_DTYPES = ("f64", "f32", "i64", "i32")


class ReducerSource:
    """A custom reducer (@porta.reducer class): its annotated scalar fields are the value
    (a C struct), init sets the identity and join(self, other) combines two values; both are
    translated like kernels. Kernels take it as an accumulator (acc: Stats) and
    parallel_reduce returns an instance of the class."""

    def __init__(self, cls):
        self.cls = cls
        self.name = cls.__name__
        self.module = cls.__module__
        self.cname = "pkr_%s_%s" % (_c_ident(self.module), _c_ident(cls.__qualname__))
        self.fields = []
        self.error = None
        self.init = self.join = None
        try:
            self._analyse()
        except TranslationError as e:
            self.error = e

    def _analyse(self):
        cls = self.cls
        init, join = cls.__dict__.get("init"), cls.__dict__.get("join")
        anchor = init or join
        file = anchor.__code__.co_filename if anchor else "<unknown>"
        line = anchor.__code__.co_firstlineno if anchor else 0
        for fname, fn in (("init", init), ("join", join)):
            if not isinstance(fn, _pytypes.FunctionType):
                raise TranslationError(file, line, 1, "a reducer without %s" % fname,
                                       "define init(self) and join(self, other) in the class",
                                       self.name)
        mod_globals = init.__globals__
        for fname, ann in cls.__dict__.get("__annotations__", {}).items():
            t = T.as_dtype(_resolve_annotation(ann, init))
            if t is None or t.suffix not in REDUCER_DTYPES or t is T.boolean:
                raise TranslationError(file, line, 1, "the reducer field '%s: %r'" % (fname, ann),
                                       "annotate reducer fields with porta.f64, f32, i64 or "
                                       "i32 (or float, int)", self.name)
            self.fields.append((fname, t))
        if not self.fields:
            raise TranslationError(file, line, 1, "a reducer without fields",
                                   "annotate its value's fields in the class body "
                                   "(lo: float ...)", self.name)
        if len(self.fields) > 16:
            raise TranslationError(file, line, 1, "a reducer of %d fields" % len(self.fields),
                                   "at most 16 fields (128 bytes, a team slot)", self.name)
        fdict = dict(self.fields)
        for fname, fn, nargs in (("init", init, 1), ("join", join, 2)):
            f, fdef = _load(fn)
            a = fdef.args
            names = [x.arg for x in a.args]
            if len(names) != nargs or a.vararg or a.kwarg or a.kwonlyargs or a.defaults:
                raise TranslationError(f, fdef.lineno, fdef.col_offset + 1,
                                       "%s with arguments (%s)" % (fname, ", ".join(names)),
                                       "write init(self) and join(self, other)", self.name)
            src = FunctionSource(fn, "%s.%s" % (self.name, fname), self.module, f, fdef, [], None,
                                 mod_globals, "%s_%s" % (self.cname, fname))
            src.structs[names[0]] = ("pk_self->", fdict, True)
            if nargs == 2:
                src.structs[names[1]] = ("pk_other->", fdict, False)
            g = _Gen(src, "", mode="reducer")
            g.infer()
            g.generate_function()
            setattr(self, fname, src)

    def make(self, values):
        """The class instance of a reduction's result (the fields' values, in order)."""
        obj = self.cls.__new__(self.cls)
        for (fname, _), v in zip(self.fields, values):
            setattr(obj, fname, v)
        return obj

    def c_source(self):
        out = ["typedef struct %s_value {" % self.cname]
        out += ["  %s %s;" % (t.ctype, _cname(n)) for n, t in self.fields]
        out.append("} %s_value;" % self.cname)
        for fname in ("init", "join"):
            out += _Gen(getattr(self, fname), "", mode="reducer").generate_function()
        out.append("PORTA_REDUCER_TEAM_OPS(%s)" % self.cname)
        return out


def reducer_of(t):
    """The ReducerSource of a @porta.reducer class, or None."""
    return getattr(t, "_porta_reducer", None) if isinstance(t, type) else None


_file_trees = {}


def _file_tree(file):
    """The parsed source file (one ast.parse per file and version: faster than
    inspect.getsource per kernel, and the nodes carry the file's own lines and columns)."""
    st = os.stat(file)
    k = (file, st.st_mtime_ns, st.st_size)
    tree = _file_trees.get(k)
    if tree is None:
        with open(file, "rb") as fh:
            tree = ast.parse(fh.read(), filename=file)
        _file_trees[k] = tree
    return tree


def _load(fn):
    code = fn.__code__
    file = code.co_filename
    first = code.co_firstlineno
    try:
        tree = _file_tree(file)
    except (OSError, SyntaxError, ValueError) as e:
        raise TranslationError(file, first, 1, "a kernel without source",
                               "define kernels in a file (their source is read): %s" % e,
                               fn.__name__)
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == fn.__name__:
            start = min([node.lineno] + [d.lineno for d in node.decorator_list])
            if start == first:
                return file, node
    raise TranslationError(file, first, 1, "a kernel whose source was not found",
                           "define kernels with def in a file that has not changed since it was "
                           "imported", fn.__name__)


def _resolve_annotation(ann, fn):
    if isinstance(ann, str):
        return eval(ann, fn.__globals__)  # noqa: S307 - the user's own annotation text
    return ann


def _acc_type(t):
    """The AccType of an accumulator annotation (porta.Sum[...], a @porta.reducer class)."""
    if isinstance(t, T.AccType):
        return t
    r = reducer_of(t)
    if r is not None:
        return T.AccType("custom", None, r)
    return None


class _SelfFields(ast.NodeTransformer):
    """A kernel method's body with self.field read as the kernel argument `field`."""

    def __init__(self, err, fields, selfname):
        self.err, self.fields, self.selfname = err, fields, selfname

    def visit_Attribute(self, node):
        if isinstance(node.value, ast.Name) and node.value.id == self.selfname:
            if node.attr not in self.fields:
                raise self.err.at(node, "'%s.%s'" % (self.selfname, node.attr),
                                  "a kernel method reads the class's annotated fields "
                                  "(%s); annotate '%s' in the class body"
                                  % (", ".join(sorted(self.fields)) or "none", node.attr))
            return ast.copy_location(ast.Name(id=node.attr, ctx=node.ctx), node)
        self.generic_visit(node)
        return node

    def visit_Name(self, node):
        if node.id in self.fields:
            raise self.err.at(node, "the name '%s'" % node.id,
                              "'%s' is a field of the class: write %s.%s"
                              % (node.id, self.selfname, node.id))
        if node.id == self.selfname:
            raise self.err.at(node, "'%s' used as a value" % node.id,
                              "read its fields: %s.field" % node.id)
        return node


def analyse(fn, owner=None):
    """Check `fn` and return its KernelSource (raises TranslationError). `owner`: the class
    of a kernel method (@porta.workload), whose annotated fields are the kernel's arguments."""
    file, fdef = _load(fn)
    name = fn.__name__ if owner is None else \
        "%s_%s" % (_c_ident(owner.__qualname__), fn.__name__)
    err = _Errors(file, name)
    if not isinstance(fdef, ast.FunctionDef):
        raise err.at(fdef, "this definition", "decorate a plain def with @porta.kernel")
    a = fdef.args
    if a.vararg or a.kwarg or a.kwonlyargs or a.defaults or a.posonlyargs:
        raise err.at(fdef, "*args, **kwargs, keyword-only or default arguments",
                     "list every argument with an annotation and no default")
    anns = getattr(fn, "__annotations__", {})
    params = []
    leading = True
    args = list(a.args)
    selfname = None
    if owner is not None:
        if not args or args[0].arg in anns:
            raise err.at(fdef, "a kernel method without self",
                         "write def %s(self, i: int, ...): the fields are self.x" % fn.__name__)
        selfname = args.pop(0).arg
    for k, arg in enumerate(args):
        if arg.arg not in anns:
            raise err.at(arg, "an argument without annotation ('%s')" % arg.arg,
                         "annotate it: int for an index, float / porta.f64 for a scalar, "
                         "porta.f64[:] for an array, porta.Sum[porta.f64] for an accumulator")
        t = _resolve_annotation(anns[arg.arg], fn)
        _check_name(err, arg, arg.arg)
        if t is D.TeamMember:
            if k != 0:
                raise err.at(arg, "the team member '%s' after other arguments" % arg.arg,
                             "make the team member the first argument: def k(t: "
                             "porta.TeamMember, ...)")
            params.append(Param(arg.arg, "team", None))
            leading = False
            continue
        if t is int and leading:
            params.append(Param(arg.arg, "index", T.i64))
            continue
        leading = False
        acc = _acc_type(t)
        if isinstance(t, T.ArrayType):
            params.append(Param(arg.arg, "array", t))
        elif acc is not None:
            if acc.custom is not None and acc.custom.error is not None:
                raise acc.custom.error
            params.append(Param(arg.arg, "acc", acc))
        elif t is bool and params and params[-1].kind == "acc":
            params.append(Param(arg.arg, "final", T.boolean))
        elif T.as_dtype(t) is not None:
            params.append(Param(arg.arg, "scalar", T.as_dtype(t)))
        else:
            raise err.at(arg, "the annotation %r of '%s'" % (t, arg.arg),
                         "use int (index), porta.TeamMember, float, int after the indices as "
                         "porta.i64, porta.f64 / f32 / i64 / i32, porta.f64[:] (arrays), "
                         "porta.Sum[...] or a @porta.reducer class")
    if owner is not None:
        taken = {p.name for p in params}
        for fname, ann in _class_annotations(owner).items():
            t = _resolve_annotation(ann, fn)
            if fname in taken:
                raise err.at(fdef, "the field '%s', also an argument of %s" % (fname, fn.__name__),
                             "rename the argument or the field")
            if isinstance(t, T.ArrayType):
                params.append(Param(fname, "array", t))
            elif T.as_dtype(t) is not None:
                params.append(Param(fname, "scalar", T.as_dtype(t)))
            else:
                raise err.at(fdef, "the field annotation '%s: %r' of class %s"
                             % (fname, t, owner.__name__),
                             "kernel fields are arrays (porta.f64[:] ...) or scalars (float, "
                             "porta.i64 ...); keep other attributes unannotated")
    nidx = sum(p.kind == "index" for p in params)
    team = any(p.kind == "team" for p in params)
    if team and nidx:
        raise err.at(fdef, "a team kernel with index arguments",
                     "a team kernel's first argument is the team member (t: porta.TeamMember); "
                     "its indices are t.league_rank and the nested ranges")
    if not team and not 1 <= nidx <= 6:
        raise err.at(fdef, "a kernel with %d index arguments" % nidx,
                     "start with one to six index arguments annotated int (i: int, j: int), "
                     "or a team member (t: porta.TeamMember)")
    if sum(p.kind == "acc" for p in params) > 1:
        raise err.at(fdef, "two accumulators",
                     "reduce one value per kernel: several fields at once with a "
                     "@porta.reducer class")
    final = next((p for p in params if p.kind == "final"), None)
    if final is not None and (team or nidx != 1):
        raise err.at(fdef, "a scan ('%s: bool' after the accumulator) over %s"
                     % (final.name, "a team policy" if team else "%d indices" % nidx),
                     "scans run over a range: def k(i: int, update: porta.Sum[...], "
                     "final: bool, ...)")
    ks = KernelSource(fn, name, fn.__module__, file, fdef, params, fn.__globals__)
    if owner is not None:
        fields = {p.name for p in params if p.kind in ("array", "scalar")}
        tree = copy.deepcopy(fdef)
        tree.body = [_SelfFields(err, fields, selfname).visit(st) for st in tree.body]
        ks.tree = tree
    # Closure variables are constants too.
    if fn.__closure__:
        env = dict(fn.__globals__)
        for n, c in zip(fn.__code__.co_freevars, fn.__closure__):
            env[n] = c.cell_contents
        ks.globals = env
    # Type the locals (a fixed point over the body), then generate once to find errors.
    _Gen(ks, "C" * len(ks.arrays)).infer()
    _Gen(ks, "C" * len(ks.arrays)).generate("pk_check")  # every error now, not at compile time
    return ks


def _class_annotations(cls):
    out = {}
    for base in reversed(cls.__mro__):
        out.update(base.__dict__.get("__annotations__", {}))
    return out


def analyse_function(fn):
    """Check a @porta.function and return its FunctionSource (raises TranslationError)."""
    file, fdef = _load(fn)
    name = fn.__name__
    err = _Errors(file, name)
    a = fdef.args
    if a.vararg or a.kwarg or a.kwonlyargs or a.defaults or a.posonlyargs:
        raise err.at(fdef, "*args, **kwargs, keyword-only or default arguments",
                     "list every argument with an annotation and no default")
    anns = getattr(fn, "__annotations__", {})
    params = []
    for arg in a.args:
        t = _resolve_annotation(anns[arg.arg], fn) if arg.arg in anns else None
        _check_name(err, arg, arg.arg)
        if T.as_dtype(t) is None:
            raise err.at(arg, "the argument '%s'%s of a device function"
                         % (arg.arg, "" if t is None else ": %r" % (t,)),
                         "device functions take numbers: annotate with float, int, porta.f64, "
                         "porta.i64 ...; pass array elements, not arrays")
        params.append(Param(arg.arg, "scalar", T.as_dtype(t)))
    ret = None
    if "return" in anns and anns["return"] is not None:
        ret = T.as_dtype(_resolve_annotation(anns["return"], fn))
        if ret is None:
            raise err.at(fdef, "the return annotation %r" % (anns["return"],),
                         "return a number: -> float, -> int, -> porta.f32 ...")
    fs = FunctionSource(fn, name, fn.__module__, file, fdef, params, ret, fn.__globals__,
                        "pkf_%s_%s" % (_c_ident(fn.__module__), _c_ident(fn.__qualname__)))
    g = _Gen(fs, "", mode="function")
    g.infer()
    g.generate_function()
    return fs


class _Errors:
    def __init__(self, file, kernel):
        self.file, self.kernel = file, kernel

    def at(self, node, construct, hint):
        return TranslationError(self.file, getattr(node, "lineno", 0),
                                getattr(node, "col_offset", 0) + 1, construct, hint, self.kernel)


def _check_name(err, node, name):
    if name.startswith("pk_"):
        raise err.at(node, "the name '%s'" % name, "names starting with pk_ are Porta's: rename it")


def _cname(name):
    return name + "_" if name in C_KEYWORDS else name


def _promote(a, b):
    """The type of a binary operation: f64 if either is f64, f32 if a float is f32, else i64
    if either is i64, else i32 (booleans count as i32)."""
    if a.is_float or b.is_float:
        return T.f64 if T.f64 in (a, b) else T.f32
    return T.i64 if T.i64 in (a, b) else T.i32


def _float_literal(v):
    if v == math.inf:
        return "HUGE_VAL"
    if v == -math.inf:
        return "(-HUGE_VAL)"
    r = repr(float(v))
    if "e" not in r and "." not in r:
        r += ".0"
    return r


LAYOUT_LETTERS = "CFS"


class _Gen:
    """Type inference and C generation of one kernel specialisation."""

    def __init__(self, ks, spec, mode="kernel"):
        self.ks, self.spec, self.mode = ks, spec, mode  # mode: kernel, function, reducer
        self.err = _Errors(ks.file, ks.name)
        self.layout = {p.name: spec[k] for k, p in enumerate(ks.arrays)}
        self.params = {p.name: p for p in ks.params}
        self.locals = dict(ks.locals)
        self.lines = []
        self.indent = 1
        self.tmp = 0
        self.inferring = False
        # Values with fields: name -> (C prefix, {field: DType}, writable).
        self.structs = dict(ks.structs)
        if ks.acc is not None and ks.acc.type.fields:
            self.structs[ks.acc.name] = ("pk_acc->", dict(ks.acc.type.fields), True)
        if ks.acc is not None and ks.acc.type.custom is not None:
            ks.reducers[ks.acc.type.custom.cname] = ks.acc.type.custom
        self._reset_body()

    def _reset_body(self):
        self.accs = {}  # nested accumulators: name -> [AccType, reduced by a nested loop yet]
        self.scratch = {}  # scratch arrays: name -> (DType, rank)
        self.scratch_reqs = []  # (PORTA_PY_SCRATCH_* slot, bytes as C)
        self.depth = 0

    # ---- types ----
    def infer(self):
        self.inferring = True
        for _ in range(4):
            before = dict(self.locals)
            self.lines = []
            self._reset_body()
            self.block(self.body_statements())
            if before == self.locals:
                break
        self.inferring = False
        self.ks.locals = dict(self.locals)

    def resolve(self, node):
        """The Python object a name or a module attribute (porta.atomic_add, lj) denotes in the
        kernel's module, or None (locals, arguments, anything else)."""
        if isinstance(node, ast.Name):
            n = node.id
            if n in self.params or n in self.locals or n in self.scratch or n in self.accs \
                    or n in self.structs:
                return None
            return self.ks.globals.get(n)
        if isinstance(node, ast.Attribute):
            base = self.resolve(node.value)
            if isinstance(base, _pytypes.ModuleType):
                return getattr(base, node.attr, None)
        return None

    def intrinsic(self, node):
        """The name of the porta intrinsic (device.py) a callee denotes, or None."""
        return getattr(self.resolve(node), "_porta_intrinsic", None)

    def team_arg(self, node, what):
        p = self.params.get(node.id) if isinstance(node, ast.Name) else None
        if p is None or p.kind != "team":
            raise self.err.at(node, "%s without the team member" % what,
                              "pass the kernel's team member first: %s(t, ...), in a kernel "
                              "whose first argument is t: porta.TeamMember" % what)

    def body_statements(self):
        body = self.ks.tree.body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            body = body[1:]  # the docstring
        return body

    def set_local(self, node, name, t):
        _check_name(self.err, node, name)
        old = self.locals.get(name)
        if t is T.boolean or t is T.i32 or t is T.u8:
            t = T.i64  # integer locals are int64_t, as Python's int
        if old is None:
            self.locals[name] = t
        elif old is not t:
            self.locals[name] = _promote(old, t)

    # ---- emission ----
    def emit(self, text):
        self.lines.append("  " * self.indent + text)

    def line(self, node):
        self.lines.append('#line %d "%s"' % (node.lineno, self.ks.file.replace("\\", "/")))

    def block(self, stmts):
        for s in stmts:
            self.stmt(s)

    def unsupported(self, node, what=None):
        kind = type(node).__name__
        hint = HINTS.get(kind, "use the subset in docs/python.md (arithmetic, math functions, "
                               "locals, if/elif/else, for over range, while)")
        return self.err.at(node, what or "'%s'" % _describe(node), hint)

    def stmt(self, s):
        self.line(s)
        if isinstance(s, ast.Assign):
            if len(s.targets) != 1 or isinstance(s.targets[0], (ast.Tuple, ast.List)):
                raise self.err.at(s, "assignment to several targets",
                                  "assign one name at a time (a = 1 then b = 1)")
            if isinstance(s.value, ast.Call) and \
                    self.intrinsic(s.value.func) in ("scratch", "thread_scratch"):
                self.scratch_decl(s.targets[0], s.value)
                return
            code, t = self.expr(s.value)
            self.store(s.targets[0], code, t, s)
        elif isinstance(s, ast.AnnAssign):
            try:
                ann = _resolve_annotation(ast.unparse(s.annotation), self.ks.fn)
            except Exception:  # noqa: BLE001 - reported as a TranslationError below
                ann = None
            acc = _acc_type(ann)
            if acc is not None and isinstance(s.target, ast.Name):
                self.acc_decl(s, acc)
                return
            t = T.as_dtype(ann)
            if t is None or not isinstance(s.target, ast.Name):
                raise self.err.at(s, "this annotated assignment",
                                  "annotate locals with float, int or porta.f64 / f32 / i64 / "
                                  "i32, or an accumulator with porta.Sum[...] ...")
            self.set_local(s.target, s.target.id, t)
            if s.value is not None:
                code, vt = self.expr(s.value)
                self.store(s.target, code, vt, s)
        elif isinstance(s, ast.AugAssign):
            cur, ct = self.expr(s.target, store_ok=True)
            code, t = self.binop(s.op, cur, ct, *self.expr(s.value), node=s)
            self.store(s.target, code, t, s)
        elif isinstance(s, ast.If):
            c, _ = self.expr(s.test)
            self.emit("if (%s) {" % c)
            self.nested(s.body)
            if s.orelse:
                self.emit("} else {")
                self.nested(s.orelse)
            self.emit("}")
        elif isinstance(s, ast.While):
            if s.orelse:
                raise self.err.at(s, "while ... else", "move the else part after the loop")
            c, _ = self.expr(s.test)
            self.emit("while (%s) {" % c)
            self.nested(s.body)
            self.emit("}")
        elif isinstance(s, ast.For):
            self.for_range(s)
        elif isinstance(s, ast.Break):
            self.emit("break;")
        elif isinstance(s, ast.Continue):
            self.emit("continue;")
        elif isinstance(s, ast.Pass):
            self.emit(";")
        elif isinstance(s, ast.Return):
            if self.mode == "function" and self.ks.ret is not None:
                if s.value is None:
                    raise self.err.at(s, "return without a value",
                                      "the function returns %s: return a value"
                                      % self.ks.ret.name)
                code, _ = self.expr(s.value)
                self.emit("return (%s)(%s);" % (self.ks.ret.ctype, code))
                return
            if s.value is not None:
                if self.mode == "function":
                    raise self.err.at(s, "return with a value",
                                      "annotate the function's return type: def %s(...) -> "
                                      "float:" % self.ks.name)
                raise self.err.at(s, "return with a value",
                                  "kernels return nothing: store into an array argument, or add "
                                  "to the accumulator of a reduction")
            self.emit("return;")
        elif isinstance(s, ast.Expr):
            if isinstance(s.value, ast.Constant) and isinstance(s.value.value, str):
                return  # a string statement (a comment)
            if isinstance(s.value, ast.Call):
                code, t = self.call(s.value, stmt=True)
            else:
                code, t = self.expr(s.value)
            self.emit("%s;" % code if t is VOID else "(void)(%s);" % code)
        else:
            raise self.unsupported(s)

    def nested(self, body):
        self.indent += 1
        self.depth += 1
        self.block(body)
        self.depth -= 1
        self.indent -= 1

    # ---- teams: accumulators of nested reductions, scratch ----
    def acc_decl(self, s, acc):
        name = s.target.id
        _check_name(self.err, s.target, name)
        if self.mode != "kernel" or self.ks.team is None:
            raise self.err.at(s, "the accumulator '%s: %r'" % (name, acc),
                              "accumulators of nested reductions belong in team kernels; a "
                              "range kernel reduces through its accumulator argument")
        if s.value is not None:
            raise self.err.at(s, "an initial value for the accumulator '%s'" % name,
                              "an accumulator starts at its reducer's identity: write "
                              "'%s: %r' alone, then update it in a nested range loop"
                              % (name, acc))
        if name in self.locals or name in self.params or name in self.scratch:
            raise self.err.at(s, "the accumulator '%s', a name already used" % name,
                              "give the accumulator a name of its own")
        if acc.custom is not None:
            if acc.custom.error is not None:
                raise acc.custom.error
            self.ks.reducers[acc.custom.cname] = acc.custom
        if name not in self.accs:
            self.accs[name] = [acc, False]
        if acc.fields:
            self.structs[name] = ("%s." % _cname(name), dict(acc.fields), True)

    def scratch_decl(self, target, call):
        kind = self.intrinsic(call.func)
        fn = "porta." + kind
        if self.mode != "kernel" or self.ks.team is None:
            raise self.err.at(call, fn, "scratch memory belongs to team kernels (t: "
                                        "porta.TeamMember)")
        if not isinstance(target, ast.Name):
            raise self.err.at(target, "%s assigned to '%s'" % (fn, _describe(target)),
                              "assign scratch to a name: tile = %s(t, porta.f64, n)" % fn)
        name = target.id
        _check_name(self.err, target, name)
        if self.depth:
            raise self.err.at(call, "%s inside a loop or an if" % fn,
                              "take scratch at the top level of the kernel body: its size is "
                              "requested at the launch, once per team")
        if name in self.scratch or name in self.locals or name in self.params:
            raise self.err.at(target, "scratch assigned to '%s', a name already used" % name,
                              "give each scratch array a name of its own")
        level = 0
        args = list(call.args)
        for kw in call.keywords:
            if kw.arg != "level":
                raise self.err.at(call, "the keyword '%s'" % kw.arg, "%s takes level=0 or 1" % fn)
            args.append(kw.value)
        if len(args) not in (3, 4):
            raise self.err.at(call, "%s with %d arguments" % (fn, len(args)),
                              "write %s(t, porta.f64, n) or %s(t, porta.f64, (n0, n1), level=1)"
                              % (fn, fn))
        self.team_arg(args[0], fn)
        dt = self.resolve(args[1])
        dt = T.as_dtype(dt)
        if dt is None or dt is T.boolean:
            raise self.err.at(args[1], "the scratch element type '%s'" % _describe(args[1]),
                              "give porta.f64, f32, i64, i32 or u8")
        if len(args) == 4:
            level = _int_literal(args[3])
            if level not in (0, 1):
                raise self.err.at(args[3], "the scratch level '%s'" % _describe(args[3]),
                                  "level is the constant 0 (fast, small) or 1 (large)")
        dims = args[2].elts if isinstance(args[2], ast.Tuple) else [args[2]]
        if not 1 <= len(dims) <= 3:
            raise self.err.at(args[2], "scratch of %d dimensions" % len(dims),
                              "scratch arrays have 1 to 3 dimensions")
        for d in dims:
            self.check_launch_expr(d, fn)
        codes = []
        for d in dims:
            c, t = self.expr(d)
            if t.is_float:
                raise self.err.at(d, "a float scratch extent", "extents are integers: use int(x)")
            codes.append(c)
        for k, c in enumerate(codes):
            self.emit("const int64_t pk_%s_n%d = %s;" % (name, k, c))
        count = " * ".join("pk_%s_n%d" % (name, k) for k in range(len(codes)))
        self.emit("%s *const %s = (%s *)%s(pk_team, %d, (size_t)(%s) * sizeof(%s));"
                  % (dt.ctype, _cname(name), dt.ctype,
                     "porta_team_scratch" if kind == "scratch" else "porta_thread_scratch",
                     level, count, dt.ctype))
        self.emit("(void)%s;" % _cname(name))
        self.scratch[name] = (dt, len(codes))
        slot = level + (2 if kind == "thread_scratch" else 0)
        self.scratch_reqs.append((slot, "(size_t)(%s) * sizeof(%s)"
                                  % (" * ".join("(%s)" % c for c in codes), dt.ctype)))

    def check_launch_expr(self, node, fn):
        """A scratch extent is computed before the launch: it may read scalar arguments, array
        shapes and module constants only."""
        for n in ast.walk(node):
            if isinstance(n, ast.Name):
                p = self.params.get(n.id)
                ok = (p is not None and p.kind in ("scalar", "array")) or \
                    (p is None and n.id not in self.locals and n.id not in self.scratch
                     and n.id not in self.accs)
                if not ok:
                    raise self.err.at(n, "the %s extent '%s'" % (fn, _describe(node)),
                                      "scratch is requested at the launch: size it from scalar "
                                      "arguments, array shapes (x.shape[0]) and constants, not "
                                      "from locals or the team member")
            elif isinstance(n, ast.Call):
                raise self.err.at(n, "a call in the %s extent '%s'" % (fn, _describe(node)),
                                  "size scratch with arithmetic on arguments and constants")

    def for_range(self, s):
        if s.orelse:
            raise self.err.at(s, "for ... else", "move the else part after the loop")
        it = s.iter
        if isinstance(it, ast.Call) and self.intrinsic(it.func) in D.RANGES:
            return self.for_nested(s, self.intrinsic(it.func))
        if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name)
                and it.func.id == "range" and not it.keywords and 1 <= len(it.args) <= 3):
            raise self.err.at(it, "a for loop over '%s'" % _describe(it),
                              "loop over range(stop), range(start, stop) or "
                              "range(start, stop, step)")
        if not isinstance(s.target, ast.Name):
            raise self.err.at(s.target, "a for loop target that is not a name",
                              "loop with one name: for k in range(n)")
        args = [self.expr(a) for a in it.args]
        for (c, t), a in zip(args, it.args):
            if t.is_float:
                raise self.err.at(a, "a float in range()", "range takes integers: use int(x)")
        if len(args) == 1:
            start, stop, step = "0", args[0][0], None
        else:
            start, stop = args[0][0], args[1][0]
            step = args[2] if len(args) == 3 else None
        name = s.target.id
        self.set_local(s.target, name, T.i64)
        self.tmp += 1
        k, e, st = "pk_k%d" % self.tmp, "pk_e%d" % self.tmp, "pk_s%d" % self.tmp
        self.emit("{")
        self.indent += 1
        self.emit("const int64_t %s = %s;" % (e, stop))
        if step is None:
            cond, inc = "%s < %s" % (k, e), "++%s" % k
        else:
            lit = _int_literal(it.args[2])
            self.emit("const int64_t %s = %s;" % (st, step[0]))
            if lit is not None and lit == 0:
                raise self.err.at(it.args[2], "range() with step 0", "use a non-zero step")
            if lit is not None:
                cond = "%s %s %s" % (k, "<" if lit > 0 else ">", e)
            else:
                cond = "(%s > 0 ? %s < %s : %s > %s)" % (st, k, e, k, e)
            inc = "%s += %s" % (k, st)
        self.emit("for (int64_t %s = %s; %s; %s) {" % (k, start, cond, inc))
        self.indent += 1
        self.emit("%s = %s;" % (_cname(name), k))
        self.depth += 1
        self.block(s.body)
        self.depth -= 1
        self.indent -= 1
        self.emit("}")
        self.indent -= 1
        self.emit("}")

    def for_nested(self, s, rname):
        """for j in porta.team_thread_range(t, [b,] e): the Porta C nested-range loop; when its
        body updates an accumulator declared before (s: porta.Sum[porta.f64]), the nested
        reduction macro (PORTA_TEAM_THREAD_REDUCE ...): afterwards the accumulator holds the
        reduction over the whole range on every member."""
        it = s.iter
        fn = "porta." + rname
        if it.keywords or not 2 <= len(it.args) <= 3:
            raise self.err.at(it, "%s with these arguments" % fn,
                              "write %s(t, end) or %s(t, begin, end)" % (fn, fn))
        self.team_arg(it.args[0], fn)
        if not isinstance(s.target, ast.Name):
            raise self.err.at(s.target, "a for loop target that is not a name",
                              "loop with one name: for j in %s(t, n)" % fn)
        bounds = []
        for a in it.args[1:]:
            c, t = self.expr(a)
            if t.is_float:
                raise self.err.at(a, "a float in %s()" % fn, "ranges take integers: use int(x)")
            bounds.append(c)
        if len(bounds) == 1:
            bounds.insert(0, "0")
        updated = []
        for n in ast.walk(ast.Module(body=s.body, type_ignores=[])):
            tgt = None
            if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                tgts = n.targets if isinstance(n, ast.Assign) else [n.target]
                for tgt in tgts:
                    while isinstance(tgt, ast.Attribute):
                        tgt = tgt.value
                    if isinstance(tgt, ast.Name) and tgt.id in self.accs \
                            and tgt.id not in updated:
                        updated.append(tgt.id)
        if len(updated) > 1:
            raise self.err.at(s, "a nested loop updating the accumulators %s" % ", ".join(updated),
                              "reduce one accumulator per nested loop, or several values with "
                              "a @porta.reducer class")
        name = s.target.id
        self.set_local(s.target, name, T.i64)
        self.tmp += 1
        k, b, e = "pk_k%d" % self.tmp, "pk_b%d" % self.tmp, "pk_e%d" % self.tmp
        self.emit("{")
        self.indent += 1
        self.emit("const int64_t %s = %s;" % (b, bounds[0]))
        self.emit("const int64_t %s = %s;" % (e, bounds[1]))
        if updated:
            acc = self.accs[updated[0]]
            if acc[1]:
                raise self.err.at(s, "the accumulator '%s' reduced by a second nested loop"
                                  % updated[0],
                                  "declare a new accumulator for each nested reduction")
            acc[1] = True
            self.emit("%s(pk_team, %s, %s, %s, %s, %s) {"
                      % (D.RANGE_REDUCE[rname], k, b, e, acc[0].reducer, _cname(updated[0])))
        else:
            self.emit("%s(pk_team, %s, %s, %s) {" % (D.RANGES[rname], k, b, e))
        self.indent += 1
        self.emit("%s = %s;" % (_cname(name), k))
        self.depth += 1
        self.block(s.body)
        self.depth -= 1
        self.indent -= 1
        self.emit("}")
        self.indent -= 1
        self.emit("}")

    def store(self, target, code, t, node):
        if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) \
                and target.value.id in self.structs:
            prefix, fields, writable = self.structs[target.value.id]
            if target.attr not in fields:
                raise self.err.at(target, "the field '%s' of '%s'" % (target.attr,
                                                                      target.value.id),
                                  "its fields are %s" % ", ".join(fields))
            if not writable:
                raise self.err.at(target, "assignment to '%s'" % _describe(target),
                                  "join(self, other) reads other and updates self")
            ft = fields[target.attr]
            self.emit("%s%s = (%s)(%s);" % (prefix, _cname(target.attr), ft.ctype, code))
            return
        if isinstance(target, ast.Name):
            name = target.id
            p = self.params.get(name)
            if p is not None and p.kind == "acc":
                if p.type.fields:
                    raise self.err.at(target, "assignment to the accumulator '%s'" % name,
                                      "update its fields: %s"
                                      % ", ".join("%s.%s" % (name, f) for f, _ in p.type.fields))
                self.emit("*pk_acc = (%s)(%s);" % (p.type.dtype.ctype, code))
                return
            if name in self.accs:
                acc = self.accs[name][0]
                if acc.fields:
                    raise self.err.at(target, "assignment to the accumulator '%s'" % name,
                                      "update its fields: %s"
                                      % ", ".join("%s.%s" % (name, f) for f, _ in acc.fields))
                self.emit("%s = (%s)(%s);" % (_cname(name), acc.dtype.ctype, code))
                return
            if name in self.scratch:
                raise self.err.at(target, "assignment to the scratch array '%s'" % name,
                                  "store into its elements: %s[i] = ..." % name)
            if p is not None and p.kind in ("team", "final"):
                raise self.err.at(target, "assignment to '%s'" % name,
                                  "the %s is read-only" % ("team member" if p.kind == "team"
                                                           else "scan's final flag"))
            if p is not None and p.kind == "array":
                raise self.err.at(target, "assignment to the array argument '%s'" % name,
                                  "store into its elements: %s[i] = ..." % name)
            if p is None:
                self.set_local(target, name, t)
                lt = self.locals[name]
            else:
                lt = p.type
            self.emit("%s = (%s)(%s);" % (_cname(name), lt.ctype, code))
        elif isinstance(target, ast.Subscript):
            lhs, et = self.subscript(target)
            if isinstance(target.value, ast.Name):
                self.ks.written.add(target.value.id)
            self.emit("%s = (%s)(%s);" % (lhs, et.ctype, code))
        else:
            raise self.err.at(target, "assignment to '%s'" % _describe(target),
                              "assign to a local name or to an array element")

    # ---- expressions: (C code, DType) ----
    def expr(self, e, store_ok=False):
        if isinstance(e, ast.Constant):
            v = e.value
            if isinstance(v, bool):
                return ("1" if v else "0"), T.boolean
            if isinstance(v, int):
                return ("INT64_C(%d)" % v if abs(v) >= 2**31 else str(v)), T.i64
            if isinstance(v, float):
                return _float_literal(v), T.f64
            if isinstance(v, str):
                raise self.err.at(e, "a string", "kernels have no strings: pass numbers")
            raise self.err.at(e, "the constant %r" % (v,), "use int or float constants")
        if isinstance(e, ast.Name):
            return self.name(e)
        if isinstance(e, ast.BinOp):
            return self.binop(e.op, *self.expr(e.left), *self.expr(e.right), node=e)
        if isinstance(e, ast.UnaryOp):
            c, t = self.expr(e.operand)
            if isinstance(e.op, ast.USub):
                return "(-%s)" % c, t
            if isinstance(e.op, ast.UAdd):
                return c, t
            if isinstance(e.op, ast.Not):
                return "(!%s)" % c, T.boolean
            if isinstance(e.op, ast.Invert) and not t.is_float:
                return "(~%s)" % c, t
            raise self.err.at(e, "~ on a float", "use ~ on integers only")
        if isinstance(e, ast.BoolOp):
            op = " && " if isinstance(e.op, ast.And) else " || "
            return "(" + op.join(self.expr(v)[0] for v in e.values) + ")", T.boolean
        if isinstance(e, ast.Compare):
            parts = []
            left = self.expr(e.left)[0]
            for op, right in zip(e.ops, e.comparators):
                rc = self.expr(right)[0]
                cop = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==",
                       ast.NotEq: "!="}.get(type(op))
                if cop is None:
                    raise self.err.at(e, "the comparison '%s'" % type(op).__name__,
                                      "compare numbers with <, <=, >, >=, == or !=")
                parts.append("(%s %s %s)" % (left, cop, rc))
                left = rc
            return "(" + " && ".join(parts) + ")", T.boolean
        if isinstance(e, ast.IfExp):
            c = self.expr(e.test)[0]
            a, at = self.expr(e.body)
            b, bt = self.expr(e.orelse)
            t = _promote(at, bt)
            return "(%s ? (%s)(%s) : (%s)(%s))" % (c, t.ctype, a, t.ctype, b), t
        if isinstance(e, ast.Subscript):
            return self.subscript(e)
        if isinstance(e, ast.Call):
            return self.call(e)
        if isinstance(e, ast.Attribute):
            return self.attribute(e)
        raise self.unsupported(e)

    def name(self, e):
        n = e.id
        p = self.params.get(n)
        if p is not None:
            if p.kind == "acc":
                if p.type.fields:
                    raise self.err.at(e, "the accumulator '%s' used as a value" % n,
                                      "read and update its fields: %s"
                                      % ", ".join("%s.%s" % (n, f) for f, _ in p.type.fields))
                return "(*pk_acc)", p.type.dtype
            if p.kind == "array":
                raise self.err.at(e, "the array '%s' used as a value" % n,
                                  "index it: %s[i]; its extents are %s.shape[k]" % (n, n))
            if p.kind == "team":
                raise self.err.at(e, "the team member '%s' used as a value" % n,
                                  "read %s.league_rank, %s.team_rank, %s.team_size ..., or "
                                  "pass it to porta.team_thread_range(%s, n)" % (n, n, n, n))
            return _cname(n), p.type
        if n in self.accs:
            acc = self.accs[n][0]
            if acc.fields:
                raise self.err.at(e, "the accumulator '%s' used as a value" % n,
                                  "read its fields: %s"
                                  % ", ".join("%s.%s" % (n, f) for f, _ in acc.fields))
            return _cname(n), acc.dtype
        if n in self.scratch:
            raise self.err.at(e, "the scratch array '%s' used as a value" % n,
                              "index it: %s[i]" % n)
        if n in self.structs:
            raise self.err.at(e, "'%s' used as a value" % n, "read its fields: %s.field" % n)
        if n in self.locals:
            return _cname(n), self.locals[n]
        if n in self.ks.globals:  # module-level constants are copied into the C
            v = self.ks.globals[n]
            if isinstance(v, bool):
                return ("1" if v else "0"), T.boolean
            if isinstance(v, int):
                return "INT64_C(%d)" % v, T.i64
            if isinstance(v, float):
                return _float_literal(v), T.f64
        if self.inferring:
            # A local read before its first assignment in source order (loops): typed later.
            return _cname(n), T.i64
        raise self.err.at(e, "the name '%s'" % n,
                          "kernels read their arguments, their locals and module-level int or "
                          "float constants; pass '%s' as an argument" % n)

    def attribute(self, e):
        if isinstance(e.value, ast.Name) and e.value.id == "math" and e.attr in MATH_CONSTS:
            return _float_literal(MATH_CONSTS[e.attr]), T.f64
        if isinstance(e.value, ast.Name):
            b = e.value.id
            p = self.params.get(b)
            if p is not None and p.kind == "team":
                if e.attr in D.TEAM_ATTRS:
                    return D.TEAM_ATTRS[e.attr], T.i64
                raise self.err.at(e, "the team member attribute '%s'" % _describe(e),
                                  "a team member has %s and team_barrier()"
                                  % ", ".join(sorted(D.TEAM_ATTRS)))
            if b in self.structs:
                prefix, fields, _ = self.structs[b]
                if e.attr not in fields:
                    raise self.err.at(e, "the field '%s' of '%s'" % (e.attr, b),
                                      "its fields are %s" % ", ".join(fields))
                return prefix + _cname(e.attr), fields[e.attr]
        raise self.err.at(e, "the attribute '%s'" % _describe(e),
                          "kernels read math.pi, math.e, math.tau, math.inf and x.shape[k]")

    def binop(self, op, a, at, b, bt, node):
        t = _promote(at, bt)
        if isinstance(op, (ast.Add, ast.Sub, ast.Mult)):
            sym = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*"}[type(op)]
            return "(%s %s %s)" % (a, sym, b), t
        if isinstance(op, ast.Div):
            ft = t if t.is_float else T.f64
            return "((%s)%s / (%s)%s)" % (ft.ctype, a, ft.ctype, b), ft
        if isinstance(op, ast.FloorDiv):
            if t.is_float:
                return "floor(%s / %s)" % (a, b), T.f64
            return "porta_py_floordiv_i64(%s, %s)" % (a, b), T.i64
        if isinstance(op, ast.Mod):
            if t.is_float:
                return "porta_py_mod_f64(%s, %s)" % (a, b), T.f64
            return "porta_py_mod_i64(%s, %s)" % (a, b), T.i64
        if isinstance(op, ast.Pow):
            if t.is_float:
                if b in ("2", "2.0"):
                    return "(%s * %s)" % (a, a), t
                return "pow(%s, %s)" % (a, b), T.f64
            return "porta_py_ipow_i64(%s, %s)" % (a, b), T.i64
        bits = {ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^", ast.LShift: "<<",
                ast.RShift: ">>"}
        if type(op) in bits:
            if t.is_float:
                raise self.err.at(node, "a bitwise operator on floats", "use integers")
            return "(%s %s %s)" % (a, bits[type(op)], b), t
        raise self.err.at(node, "the operator '%s'" % type(op).__name__, "use + - * / // % **")

    def subscript(self, e):
        if isinstance(e.value, ast.Attribute) and e.value.attr == "shape" \
                and isinstance(e.value.value, ast.Name) \
                and self.params.get(e.value.value.id, Param("", "", None)).kind == "array":
            arr = self.params[e.value.value.id]
            k = _int_literal(e.slice)
            if k is None or not 0 <= k < arr.type.rank:
                raise self.err.at(e, "shape[%s]" % ast.unparse(e.slice),
                                  "index shape with a constant 0 .. %d" % (arr.type.rank - 1))
            return "pk_%s_n%d" % (arr.name, k), T.i64
        if isinstance(e.value, ast.Attribute) and e.value.attr == "shape" \
                and isinstance(e.value.value, ast.Name) and e.value.value.id in self.scratch:
            name = e.value.value.id
            k = _int_literal(e.slice)
            if k is None or not 0 <= k < self.scratch[name][1]:
                raise self.err.at(e, "shape[%s]" % ast.unparse(e.slice),
                                  "index shape with a constant 0 .. %d"
                                  % (self.scratch[name][1] - 1))
            return "pk_%s_n%d" % (name, k), T.i64
        idx = e.slice.elts if isinstance(e.slice, ast.Tuple) else [e.slice]
        return self.element(e.value, idx, e)

    def element(self, base, idx, e):
        """The C lvalue of an array (or scratch) element base[idx...] and its dtype."""
        if isinstance(base, ast.Name) and base.id in self.scratch:
            name = base.id
            dt, rank = self.scratch[name]
            if len(idx) != rank:
                raise self.err.at(e, "%d index(es) into the scratch array '%s', which has %d "
                                  "dimension(s)" % (len(idx), name, rank),
                                  "give one index per dimension")
            terms = []
            for k, x in enumerate(idx):
                if isinstance(x, ast.Slice):
                    raise self.unsupported(x, "a slice")
                c, t = self.expr(x)
                if t.is_float:
                    raise self.err.at(x, "a float index", "indices are integers: use int(x)")
                stride = " * ".join("pk_%s_n%d" % (name, j) for j in range(k + 1, rank))
                terms.append("(int64_t)(%s)%s" % (c, " * " + stride if stride else ""))
            return "%s[%s]" % (_cname(name), " + ".join(terms)), dt
        if not isinstance(base, ast.Name) or \
                self.params.get(base.id, Param("", "", None)).kind != "array":
            raise self.err.at(e, "indexing '%s'" % _describe(base),
                              "index array arguments only: x[i], a[i, j]")
        arr = self.params[base.id]
        if len(idx) != arr.type.rank:
            raise self.err.at(e, "%d index(es) into '%s', which has %d dimension(s)"
                              % (len(idx), arr.name, arr.type.rank),
                              "give one index per dimension: %s[%s]"
                              % (arr.name, ", ".join("i%d" % k for k in range(arr.type.rank))))
        codes = []
        for k, x in enumerate(idx):
            if isinstance(x, ast.Slice):
                raise self.unsupported(x, "a slice")
            c, t = self.expr(x)
            if t.is_float:
                raise self.err.at(x, "a float index", "indices are integers: use int(x)")
            codes.append(c)
        lay = self.layout[arr.name]
        r = arr.type.rank
        terms = []
        for k, c in enumerate(codes):
            unit = (lay == "C" and k == r - 1) or (lay == "F" and k == 0)
            terms.append("(int64_t)(%s)" % c if unit else "(int64_t)(%s) * pk_%s_s%d"
                         % (c, arr.name, k))
        # PORTA_PY_IDX<r> is the offset in a normal build, Porta's bounds check in a debug one
        return "%s[PORTA_PY_IDX%d(pk_a->%s_n, pk_a->%s_s, \"%s\", %s, %s)]" % (
            _cname(arr.name), r, arr.name, arr.name, arr.name, " + ".join(terms),
            ", ".join("(int64_t)(%s)" % c for c in codes)), arr.type.dtype

    def call(self, e, stmt=False):
        f = e.func
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) \
                and self.params.get(f.value.id, Param("", "", None)).kind == "team":
            return self.team_method(e, stmt)
        special = self.special_call(e, stmt)
        if special is not None:
            return special
        if e.keywords:
            raise self.err.at(e, "keyword arguments in a call", "pass arguments by position")
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "math":
            fname = f.attr
        elif isinstance(f, ast.Name) and f.id in ("abs", "min", "max", "float", "int", "bool"):
            fname = f.id
        else:
            raise self.err.at(e, "a call to '%s'" % _describe(f),
                              "kernels call math functions (math.sqrt ...), abs, min, max, "
                              "float, int, porta's atomics and team functions, and functions "
                              "decorated with @porta.function")
        args = [self.expr(a) for a in e.args]
        if fname in MATH_FUNCS:
            n, cn = MATH_FUNCS[fname]
            if len(args) != n:
                raise self.err.at(e, "math.%s with %d arguments" % (fname, len(args)),
                                  "math.%s takes %d" % (fname, n))
            f32 = all(t is T.f32 for _, t in args)
            return "%s%s(%s)" % (cn, "f" if f32 else "", ", ".join(
                c if t.is_float else "(double)%s" % c for c, t in args)), T.f32 if f32 else T.f64
        if fname in MATH_INT_FUNCS and len(args) == 1:
            c, t = args[0]
            if not t.is_float:
                return c, t
            return "(int64_t)%s(%s)" % (MATH_INT_FUNCS[fname], c), T.i64
        if fname in MATH_BOOL_FUNCS and len(args) == 1:
            return "(%s((double)%s) ? 1 : 0)" % (MATH_BOOL_FUNCS[fname], args[0][0]), T.boolean
        if fname == "abs" and len(args) == 1:
            c, t = args[0]
            if t.is_float:
                return "fabs(%s)" % c, T.f64 if t is T.f64 else T.f32
            return "(%s < 0 ? -%s : %s)" % (c, c, c), t
        if fname in ("min", "max") and len(args) >= 2:
            c, t = args[0]
            for c2, t2 in args[1:]:
                t = _promote(t, t2)
                op = "<" if fname == "min" else ">"
                c = "(%s %s %s ? (%s)(%s) : (%s)(%s))" % (c2, op, c, t.ctype, c2, t.ctype, c)
            return c, t
        if fname == "float" and len(args) == 1:
            return "((double)%s)" % args[0][0], T.f64
        if fname == "int" and len(args) == 1:
            return "((int64_t)%s)" % args[0][0], T.i64
        if fname == "bool" and len(args) == 1:
            return "(%s != 0)" % args[0][0], T.boolean
        raise self.err.at(e, "%s with %d arguments" % (fname, len(args)),
                          "see docs/python.md for the functions kernels call")

    def void(self, e, what, stmt, code):
        if not stmt:
            raise self.err.at(e, "the value of %s" % what,
                              "%s returns nothing: call it as a statement" % what)
        return code, VOID

    def team_method(self, e, stmt):
        f = e.func
        t = f.value.id
        if e.args or e.keywords:
            raise self.err.at(e, "'%s' with arguments" % _describe(e),
                              "team member methods take no arguments: %s.%s()" % (t, f.attr))
        if f.attr == "team_barrier":
            return self.void(e, "%s.team_barrier()" % t, stmt, "porta_team_barrier(pk_team)")
        if f.attr in D.TEAM_ATTRS:
            return D.TEAM_ATTRS[f.attr], T.i64
        raise self.err.at(e, "the team member method '%s'" % _describe(f),
                          "a team member has %s and team_barrier()"
                          % ", ".join(sorted(D.TEAM_ATTRS)))

    def special_call(self, e, stmt):
        """porta's intrinsics (atomics, barriers, ...) and @porta.function calls; None for the
        other calls."""
        obj = self.resolve(e.func)
        if isinstance(obj, DeviceFunction):
            return self.device_call(e, obj, stmt)
        name = getattr(obj, "_porta_intrinsic", None)
        if name is None:
            return None
        fn = "porta." + name
        if name in D.ATOMICS:
            return self.atomic(e, name, stmt)
        if e.keywords:
            raise self.err.at(e, "keyword arguments to %s" % fn, "pass arguments by position")
        if name == "team_barrier":
            if len(e.args) != 1:
                raise self.err.at(e, "%s with %d arguments" % (fn, len(e.args)),
                                  "write porta.team_barrier(t)")
            self.team_arg(e.args[0], fn)
            return self.void(e, fn, stmt, "porta_team_barrier(pk_team)")
        if name == "single":
            if len(e.args) != 1:
                raise self.err.at(e, "%s with %d arguments" % (fn, len(e.args)),
                                  "write if porta.single(t):")
            self.team_arg(e.args[0], fn)
            return "(pk_team->team_rank == 0 && pk_team->vector_lane == 0)", T.boolean
        if name in D.RANGES:
            raise self.err.at(e, "%s outside a for statement" % fn,
                              "loop over it: for j in %s(t, n):" % fn)
        if name in ("scratch", "thread_scratch"):
            raise self.err.at(e, "%s inside an expression" % fn,
                              "assign it to a name at the top of the kernel: tile = %s(t, "
                              "porta.f64, n)" % fn)
        raise self.err.at(e, "a call to %s" % fn, "see docs/python.md")

    def atomic(self, e, name, stmt):
        op, ret, nargs = D.ATOMICS[name]
        fn = "porta." + name
        if e.keywords or len(e.args) != nargs:
            raise self.err.at(e, "%s with %d arguments" % (fn, len(e.args) + len(e.keywords)),
                              "write %s(a, i%s) (a[i, j]: %s(a, (i, j)%s))"
                              % (fn, ", expected, desired" if nargs == 4 else
                                 ("" if nargs == 2 else ", value"),
                                 fn, ", ..." if nargs > 2 else ""))
        base, index = e.args[0], e.args[1]
        idx = index.elts if isinstance(index, ast.Tuple) else [index]
        elem, dt = self.element(base, idx, e)
        if dt.suffix not in D.ATOMIC_DTYPES or dt is T.boolean:
            raise self.err.at(e.args[0], "%s on an array of %s" % (fn, T.NUMPY_NAMES[dt.name]),
                              "atomics work on float64, float32, int64 and int32 arrays")
        if op != "load" and isinstance(base, ast.Name):
            self.ks.written.add(base.id)
        vals = []
        for a in e.args[2:]:
            c, t = self.expr(a)
            if t.is_float and not dt.is_float:
                raise self.err.at(a, "a float value for %s on an integer array" % fn,
                                  "convert it: int(x)")
            vals.append("(%s)(%s)" % (dt.ctype, c))
        code = "porta_atomic_%s_%s(&%s%s)" % (op, dt.suffix, elem,
                                              "".join(", " + v for v in vals))
        if ret is None:
            return self.void(e, fn, stmt, code)
        return code, dt

    def device_call(self, e, obj, stmt):
        if e.keywords:
            raise self.err.at(e, "keyword arguments in a call", "pass arguments by position")
        fs = obj.source()  # its own TranslationError, with its own file and line
        if len(e.args) != len(fs.params):
            raise self.err.at(e, "%s() with %d arguments" % (obj.__name__, len(e.args)),
                              "%s takes %d: %s" % (obj.__name__, len(fs.params),
                                                   ", ".join(p.name for p in fs.params)))
        codes = []
        for a, p in zip(e.args, fs.params):
            c, t = self.expr(a)
            if t.is_float and not p.type.is_float:
                raise self.err.at(a, "a float for the integer argument '%s' of %s()"
                                  % (p.name, obj.__name__), "convert it: int(x)")
            codes.append("(%s)(%s)" % (p.type.ctype, c))
        self.ks.funcs[fs.cname] = fs
        code = "%s(%s)" % (fs.cname, ", ".join(codes))
        if fs.ret is None:
            return self.void(e, "%s()" % obj.__name__, stmt, code)
        return code, fs.ret

    # ---- device functions and reducer methods ----
    def generate_function(self):
        ks = self.ks
        body = self._body()
        out = ['#line %d "%s"' % (ks.tree.lineno, ks.file.replace("\\", "/"))]
        if self.mode == "reducer":
            rv = ks.cname.rsplit("_", 1)[0] + "_value"
            names = list(ks.structs)
            params = ["%s *pk_self" % rv]
            if len(names) == 2:
                params.append("const %s *pk_other" % rv)
            out.append("PORTA_INLINE_FUNCTION void %s(%s) {" % (ks.cname, ", ".join(params)))
            if len(names) == 2:
                out.append("  (void)pk_other;")
            ret = None
        else:
            ret = ks.ret
            params = ["%s %s" % (p.type.ctype, _cname(p.name)) for p in ks.params]
            out.append("PORTA_INLINE_FUNCTION %s %s(%s) {"
                       % (ret.ctype if ret else "void", ks.cname, ", ".join(params) or "void"))
        for n, t in sorted(self.locals.items()):
            out.append("  %s %s = 0;" % (t.ctype, _cname(n)))
            out.append("  (void)%s;" % _cname(n))
        out.extend(body)
        if ret is not None:
            out.append("  return (%s)0;" % ret.ctype)
        out.append("}")
        return out

    # ---- the kernel ----
    def prologue(self, out, with_pointers=True):
        """The kernel's arguments read from the struct pk_a into locals."""
        ks = self.ks
        for p in ks.fields:
            n = p.name
            if p.kind == "array":
                if with_pointers:
                    const = "" if n in ks.written else "const "
                    out.append("  %s%s *const %s = pk_a->%s;" % (const, p.type.dtype.ctype,
                                                                  _cname(n), _cname(n)))
                for k in range(p.type.rank):
                    out.append("  const int64_t pk_%s_n%d = pk_a->%s_n[%d];" % (n, k, n, k))
                    out.append("  (void)pk_%s_n%d;" % (n, k))
                    if with_pointers:
                        out.append("  const int64_t pk_%s_s%d = pk_a->%s_s[%d];" % (n, k, n, k))
                        out.append("  (void)pk_%s_s%d;" % (n, k))
            else:
                out.append("  %s %s = pk_a->%s;" % (p.type.ctype, _cname(n), _cname(n)))
                out.append("  (void)%s;" % _cname(n))

    def generate(self, cname):
        ks = self.ks
        self.lines = []
        self.indent = 1
        body_lines = self._body()
        out = []
        args_t = cname + "_args"
        out.append("/* kernel %s.%s, layouts '%s' (%s:%d) */"
                   % (ks.module, ks.name, self.spec, ks.file, ks.tree.lineno))
        out.append("typedef struct %s {" % args_t)
        for p in ks.fields:
            if p.kind == "array":
                out.append("  %s *%s;" % (p.type.dtype.ctype, _cname(p.name)))
                out.append("  int64_t %s_n[%d];" % (p.name, p.type.rank))
                out.append("  int64_t %s_s[%d];" % (p.name, p.type.rank))
            else:
                out.append("  %s %s;" % (p.type.ctype, _cname(p.name)))
        if not ks.fields:
            out.append("  char pk_unused_;")
        out.append("} %s;" % args_t)
        idx = [_cname(p.name) for p in ks.indices]
        r = ks.acc.type.reducer if ks.acc else None
        if ks.team is not None:
            if ks.acc is None:
                out.append("PORTA_TEAM_FOR(%s, %s, pk_a, pk_team) {" % (cname, args_t))
            else:
                out.append("PORTA_TEAM_REDUCE(%s, %s, pk_a, pk_team, %s, pk_acc) {"
                           % (cname, args_t, r))
        elif ks.final is not None:
            out.append("PORTA_SCAN(%s, %s, pk_a, %s, %s, pk_acc, %s) {"
                       % (cname, args_t, idx[0], r, _cname(ks.final.name)))
        elif ks.acc is None:
            if ks.rank == 1:
                out.append("PORTA_FOR(%s, %s, pk_a, %s) {" % (cname, args_t, idx[0]))
            else:
                out.append("PORTA_MDFOR%d(%s, %s, pk_a, %s) {" % (ks.rank, cname, args_t,
                                                                  ", ".join(idx)))
        else:
            if ks.rank == 1:
                out.append("PORTA_REDUCE(%s, %s, pk_a, %s, %s, pk_acc) {"
                           % (cname, args_t, idx[0], r))
            else:
                out.append("PORTA_MDREDUCE%d(%s, %s, pk_a, %s, %s, pk_acc) {"
                           % (ks.rank, cname, args_t, ", ".join(idx), r))
        self.prologue(out)
        for n, t in sorted(self.locals.items()):
            out.append("  %s %s = 0;" % (t.ctype, _cname(n)))
            out.append("  (void)%s;" % _cname(n))
        for n, (acc, _) in sorted(self.accs.items()):
            out.append("  %s_value %s;" % (acc.reducer, _cname(n)))
            out.append("  %s_init(&%s);" % (acc.reducer, _cname(n)))
        out.extend(body_lines)
        out.append("}")
        out.append(BACK_TO_C)
        # The scratch the launch requests, from the packed arguments.
        scratch_fn = "NULL"
        if self.scratch_reqs:
            scratch_fn = "%s_scratch" % cname
            out.append("static void %s(const void *pk_v, size_t *pk_req) {" % scratch_fn)
            out.append("  const %s *pk_a = (const %s *)pk_v;" % (args_t, args_t))
            self.prologue(out, with_pointers=False)
            for slot, code in self.scratch_reqs:
                out.append("  pk_req[%d] += porta_scratch_size(%s);" % (slot, code))
            out.append("}")
        # The description the extension reads.
        out.append("static const porta_py_field %s_fields[] = {" % cname)
        for p in ks.fields:
            n = p.name
            if p.kind == "array":
                flags = "PORTA_PY_WRITTEN" if n in ks.written else "0"
                out.append('  {"%s", PORTA_PY_ARRAY, %d, %d, %d, %s, (int32_t)offsetof(%s, %s), '
                           "(int32_t)offsetof(%s, %s_n), (int32_t)offsetof(%s, %s_s)},"
                           % (n, p.type.dtype.code, p.type.rank,
                              LAYOUT_LETTERS.index(self.layout[n]), flags, args_t, _cname(n),
                              args_t, n, args_t, n))
            else:
                out.append('  {"%s", PORTA_PY_SCALAR, %d, 0, 0, 0, (int32_t)offsetof(%s, %s), '
                           "-1, -1}," % (n, p.type.code, args_t, _cname(n)))
        if not ks.fields:
            out.append("  {NULL, 0, 0, 0, 0, 0, 0, 0, 0},")
        out.append("};")
        result_kind, nresult, result_fields = "PORTA_PY_RESULT_NONE", 0, "NULL"
        if ks.acc is not None:
            result_kind = "PORTA_PY_RESULT_SCALAR"
            fields = ks.acc.type.fields
            if fields:
                result_kind = "PORTA_PY_RESULT_STRUCT" if ks.acc.type.custom else \
                    "PORTA_PY_RESULT_LOC"
                nresult, result_fields = len(fields), "%s_result" % cname
                out.append("static const porta_py_field %s_result[] = {" % cname)
                for f, t in fields:
                    out.append('  {"%s", PORTA_PY_SCALAR, %d, 0, 0, 0, (int32_t)offsetof(%s_value, '
                               '%s), -1, -1},' % (f, t.code, r, _cname(f)))
                out.append("};")
        pattern = "PORTA_PATTERN_SCAN" if ks.final else \
            ("PORTA_PATTERN_REDUCE" if ks.acc else "PORTA_PATTERN_FOR")
        policy = "PORTA_POLICY_TEAM" if ks.team else \
            ("PORTA_POLICY_RANGE" if ks.rank == 1 else "PORTA_POLICY_MDRANGE")
        rdt = ks.acc.type.dtype.code if ks.acc and ks.acc.type.dtype else -1
        out.append('static const porta_py_kernel %s_info = {"%s.%s", "%s", &%s, %s, %s, %d, %d, '
                   "%d, (int32_t)sizeof(%s), %s_fields, %s, %s, %d, %s};"
                   % (cname, ks.module, ks.name, self.spec, cname, pattern, policy, ks.rank, rdt,
                      len(ks.fields), args_t, cname, scratch_fn, result_kind, nresult,
                      result_fields))
        return out

    def _body(self):
        self.lines = []
        self.indent = 1
        self._reset_body()
        self.block(self.body_statements())
        return self.lines


def _int_literal(node):
    if isinstance(node, ast.Constant) and isinstance(node.value, int):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        v = _int_literal(node.operand)
        return -v if v is not None else None
    return None


def _describe(node):
    try:
        return ast.unparse(node)
    except Exception:  # noqa: BLE001 - only for messages
        return type(node).__name__


def kernel_cname(ks, spec):
    return "pk_%s_%s" % (ks.name, spec) if spec else "pk_%s" % ks.name


BACK_TO_C = "#line <back to the generated file>"


def _dependencies(sources):
    """The device functions and custom reducers the kernels use, callees before callers."""
    funcs, reducers, seen = [], {}, set()

    def visit(fs):
        if fs.cname in seen:
            return
        seen.add(fs.cname)
        for callee in fs.funcs.values():
            visit(callee)
        funcs.append(fs)

    for ks in sources:
        for r in ks.reducers.values():
            reducers.setdefault(r.cname, r)
            for m in (r.init, r.join):
                for callee in m.funcs.values():
                    visit(callee)
        for fs in ks.funcs.values():
            visit(fs)
    return funcs, list(reducers.values())


def generate_module(module, items):
    """The C of one module: `items` is a list of (KernelSource, spec), in a stable order."""
    head = ["/* Generated by porta (python/porta/translate.py) from module '%s'. */" % module,
            "#include <math.h>", "#include <stddef.h>", "#include <stdint.h>",
            '#include "porta/porta.h"', '#include "porta_py.h"', ""]
    body = []
    names = []
    for ks, spec in items:
        cname = kernel_cname(ks, spec)
        body.append(_Gen(ks, spec).generate(cname))
        names.append(cname)
    funcs, reducers = _dependencies([ks for ks, _ in items])
    parts = [_Gen(fs, "", mode="function").generate_function() for fs in funcs]
    parts += [r.c_source() for r in reducers]
    out = head
    for lines in parts + body:
        for text in lines + [BACK_TO_C]:
            # back to the generated file after the Python lines
            out.append('#line %d "%s.c"' % (len(out) + 2, module) if text is BACK_TO_C else text)
        out.append("")
    out.append("static const porta_py_kernel *const pk_kernels[] = {%s};"
               % ", ".join("&%s_info" % n for n in names))
    out.append('#ifdef __cplusplus\nextern "C"\n#endif')
    out.append('__attribute__((visibility("default"))) const porta_py_module_info '
               "porta_py_module = {PORTA_PY_ABI, %d, pk_kernels};" % len(names))
    return "\n".join(out) + "\n"
