"""The analysis half of the Python -> Porta C translator (translate.py): a decorated function's
source read with `ast`, checked against the typed subset kernels are written in, and described
(KernelSource, FunctionSource, DeviceFunction, ReducerSource); the subset's tables (math
functions, C keywords, hints) and the errors (TranslationError with file, line and column)."""
import ast
import copy
import math
import os
import types as _pytypes

from . import device as D
from . import types as T

def _gen(*args, **kwargs):
    """translate._Gen (imported when first used: translate.py imports this module)."""
    from .translate import _Gen

    return _Gen(*args, **kwargs)


VOID = T.DType("void", "void", -1, False, 0, "void")  # what a call used as a statement returns

INT64_MIN, INT64_MAX = -2**63, 2**63 - 1

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

# print(...) in kernels: printf; on the host each print is one printf, flushed, and a float is
# written as Python writes it (into a buffer of 40 chars); a GPU's printf writes floats with
# %.17g (f32: %.9g).
C_PRINT_HELPERS = r"""#include <stdio.h>
#include <stdlib.h>
#ifdef __CUDA_ARCH__
#define PK_F64 ".17g"
#define PK_F32 ".9g"
#define PK_PRINT_F64(B, X) ((void)(B), (double)(X))
#define PK_PRINT_F32(B, X) ((void)(B), (double)(X))
#define PK_PRINT_FLUSH() ((void)0)
#else
#define PK_F64 "s"
#define PK_F32 "s"
#define PK_PRINT_F64(B, X) pk_print_float(B, (double)(X), 0)
#define PK_PRINT_F32(B, X) pk_print_float(B, (double)(X), 1)
#define PK_PRINT_FLUSH() fflush(stdout)
/* A float as Python's repr writes it (NumPy's for a float32): the fewest digits that read back
 * as the same number, positional from 1e-4 to 1e16 (with .0 when integral), else 1e+20. */
static inline const char *pk_print_float(char *buf, double v, int single) {
  char e[40], dig[20] = "";
  int p = 1, nd = 0, exp10, decpt;
  const char *s = e;
  char *o = buf;
  if (isnan(v)) return "nan";
  if (isinf(v)) return v < 0 ? "-inf" : "inf";
  for (; p < 17; ++p) {
    snprintf(e, sizeof e, "%.*e", p - 1, v);
    if (single ? (float)strtod(e, NULL) == (float)v : strtod(e, NULL) == v) break;
  }
  if (p == 17) snprintf(e, sizeof e, "%.16e", v);
  if (*s == '-') *o++ = *s++;
  for (; *s != 'e'; ++s)
    if (*s != '.') dig[nd++] = *s;
  exp10 = atoi(s + 1);
  decpt = exp10 + 1;
  if (decpt > -4 && decpt <= 16) {
    if (decpt <= 0) {
      *o++ = '0';
      *o++ = '.';
      for (int k = 0; k < -decpt; ++k) *o++ = '0';
      for (int k = 0; k < nd; ++k) *o++ = dig[k];
    } else {
      for (int k = 0; k < decpt || k < nd; ++k) {
        if (k == decpt) *o++ = '.';
        *o++ = k < nd ? dig[k] : '0';
      }
      if (decpt >= nd) {
        *o++ = '.';
        *o++ = '0';
      }
    }
    *o = '\0';
  } else {
    *o++ = dig[0];
    if (nd > 1) *o++ = '.';
    for (int k = 1; k < nd; ++k) *o++ = dig[k];
    snprintf(o, 14, "e%c%02d", exp10 < 0 ? '-' : '+', exp10 < 0 ? -exp10 : exp10);
  }
  return buf;
}
#endif
"""

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
    return "".join(c if c.isascii() and c.isalnum() else "_" for c in text)


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
        self.structs = {}  # reducer methods: name -> (C prefix, {field: DType}, writable, True)


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
        return _gen(self.source(), "", mode="function").generate_function()


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
            src.structs[names[0]] = ("pk_self->", fdict, True, True)
            if nargs == 2:
                src.structs[names[1]] = ("pk_other->", fdict, False, True)
            g = _gen(src, "", mode="reducer")
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
            out += _gen(getattr(self, fname), "", mode="reducer").generate_function()
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
    _gen(ks, "C" * len(ks.arrays)).infer()
    _gen(ks, "C" * len(ks.arrays)).generate("pk_check")  # every error now, not at compile time
    return ks


def direct_index_masks(ks):
    """{array name: [rank] masks}: for each dimension of each array argument, the launch
    indices (bit r: the r-th index) that index it directly, as y[i] or a[i, j] do, in a
    statement every launch index runs. The launch checks that those ranges fit the extents and
    start at 0 or above (an IndexError before the kernel runs, where it would write past an end).
    Only what always runs counts: accesses under an if, in a loop body, on the untaken side of
    `x if c else y`, `and` / `or`, or after an `if` or loop that may return are left out, and so
    is an index the kernel assigns to anywhere (it is then not the launch's index)."""
    if ks.team is not None or not ks.indices:
        return {}
    index = {p.name: r for r, p in enumerate(ks.indices)}
    arrays = {p.name: p.type.rank for p in ks.arrays}
    for node in ast.walk(ks.tree):  # an index assigned to is not the launch's any more
        targets = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)  # a copy: the loop below pops from it
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For)):
            targets = [node.target]
        elif isinstance(node, ast.NamedExpr):
            targets = [node.target]
        while targets:  # names stored to (y[i] = ... stores to y, not to i)
            t = targets.pop()
            if isinstance(t, ast.Name):
                index.pop(t.id, None)
            elif isinstance(t, (ast.Tuple, ast.List)):
                targets.extend(t.elts)
            elif isinstance(t, ast.Starred):
                targets.append(t.value)
    masks = {}

    def access(base, idx):
        if not isinstance(base, ast.Name) or base.id not in arrays:
            return
        elts = idx.elts if isinstance(idx, ast.Tuple) else [idx]
        if len(elts) != arrays[base.id]:
            return
        for k, x in enumerate(elts):
            if isinstance(x, ast.Name) and x.id in index:
                m = masks.setdefault(base.id, [0] * len(elts))
                m[k] |= 1 << index[x.id]

    def atomic(call):
        f, obj = call.func, None
        if isinstance(f, ast.Name):
            obj = ks.globals.get(f.id)
        elif isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name):
            obj = getattr(ks.globals.get(f.value.id), f.attr, None)
        return getattr(obj, "_porta_intrinsic", None) in D.ATOMICS

    def expr(e):
        """The element accesses an expression always makes."""
        if e is None:
            return
        if isinstance(e, ast.Subscript):
            if not (isinstance(e.value, ast.Attribute) and e.value.attr == "shape"):
                access(e.value, e.slice)
            expr(e.value)
            expr(e.slice)
        elif isinstance(e, ast.IfExp):
            expr(e.test)
        elif isinstance(e, ast.BoolOp):
            expr(e.values[0])
        elif isinstance(e, ast.Compare):
            expr(e.left)
            expr(e.comparators[0])
        elif isinstance(e, ast.Call):
            if atomic(e) and len(e.args) >= 2:
                access(e.args[0], e.args[1])
            for a in e.args:
                expr(a)
        elif isinstance(e, (ast.BinOp,)):
            expr(e.left)
            expr(e.right)
        elif isinstance(e, ast.UnaryOp):
            expr(e.operand)
        elif isinstance(e, ast.Tuple):
            for x in e.elts:
                expr(x)
        elif isinstance(e, ast.Attribute):
            expr(e.value)

    body = ks.tree.body
    for st in body:
        if isinstance(st, ast.Return):
            break
        if isinstance(st, ast.Assign):
            for t in st.targets:
                expr(t)
            expr(st.value)
        elif isinstance(st, (ast.AugAssign, ast.AnnAssign)):
            expr(st.target)
            expr(st.value)
        elif isinstance(st, ast.Expr):
            expr(st.value)
        elif isinstance(st, (ast.If, ast.While)):
            expr(st.test)  # the test runs, the body may not
        elif isinstance(st, ast.For):
            expr(st.iter)
        if any(isinstance(n, ast.Return) for n in ast.walk(st)):
            break  # the statements after it may not run
    return masks


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
    g = _gen(fs, "", mode="function")
    g.infer()
    g.generate_function()
    return fs


class _Errors:
    def __init__(self, file, kernel):
        self.file, self.kernel = file, kernel

    def at(self, node, construct, hint):
        return TranslationError(self.file, getattr(node, "lineno", 0),
                                getattr(node, "col_offset", 0) + 1, construct, hint, self.kernel)


def _cname(name, prefix="py"):
    """The C name of a Python name: py_x for x, so that no Python name can be a C keyword, a
    typedef, a macro or a libm function of the generated C (translator names start with pk_).
    A name with non-ASCII letters is pyu_ and the name with '_' doubled and each non-ASCII
    letter as _x<hex>_ (one C name per Python name). prefix "pk": the translator's own names
    made from a Python name (pk_x_n0, an extent of array x)."""
    if name.isascii():
        return "%s_%s" % (prefix, name)
    enc = "".join(c if c.isascii() and c != "_" else "__" if c == "_" else "_x%x_" % ord(c)
                  for c in name)
    return "%su_%s" % (prefix, enc)


def _assigned_names(tree):
    """The names a function body assigns anywhere (its locals, in Python's scoping)."""
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)
            and isinstance(n.ctx, (ast.Store, ast.Del))}


def _c_int(v):
    """An int64 value as a C constant expression."""
    if v == INT64_MIN:
        return "INT64_MIN"
    c = "INT64_C(%d)" % v if abs(v) >= 2**31 else str(v)
    return "(%s)" % c if v < 0 else c


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
