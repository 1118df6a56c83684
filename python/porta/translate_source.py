"""What the Python -> Porta C translator knows of a kernel before typing it: the checked
description of a kernel or device function (KernelSource, FunctionSource, Param), its source
read with `ast` (one parse per file), the errors (TranslationError with file, line and column,
and the hints of what to write instead), and the C spellings of names and constants."""
import ast
import math
import os

from . import types as T


VOID = T.DType("void", "void", -1, False, 0, "void")  # what a call used as a statement returns

INT64_MIN, INT64_MAX = -2**63, 2**63 - 1

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
        self.types = {}  # typing's table: id(expression node) -> (node, DType) (translate_typing)
        self.parts = {}  # and of what is no node of its own (elements, min / max's steps)
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
        self.types = {}  # typing's table: id(expression node) -> (node, DType) (translate_typing)
        self.parts = {}  # and of what is no node of its own (elements, min / max's steps)
        self.funcs = {}
        self.reducers = {}
        self.structs = {}  # reducer methods: name -> (C prefix, {field: DType}, writable, True)


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
    """The AccType of an accumulator annotation (porta.Sum[...], porta.ExactSum, a
    @porta.reducer class)."""
    if isinstance(t, T.AccType):
        return t
    if isinstance(t, T._ReducerFamily):
        return t.bare()
    r = reducer_of(t)
    if r is not None:
        return T.AccType("custom", None, r)
    return None


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


def _assigned_of(ks):
    """_assigned_names of ks's body, found once a body: typing and every emission ask, and a
    walk of the whole body each time made a cached module's import and first launch slower."""
    memo = getattr(ks, "_assigned_memo", None)
    if memo is None or memo[0] is not ks.tree:  # a kernel method's body is a rewritten copy
        memo = ks._assigned_memo = (ks.tree, frozenset(_assigned_names(ks.tree)))
    return memo[1]


def _c_int(v):
    """An int64 value as a C constant expression."""
    if v == INT64_MIN:
        return "INT64_MIN"
    c = "INT64_C(%d)" % v if abs(v) >= 2**31 else str(v)
    return "(%s)" % c if v < 0 else c


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
