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
import math
import os

from . import types as T

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
        self.name, self.kind, self.type = name, kind, type_  # kind: index, array, scalar, acc


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
        self.written = set()
        self.locals = {}

    @property
    def rank(self):
        return len(self.indices)


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


def analyse(fn):
    """Check `fn` and return its KernelSource (raises TranslationError)."""
    file, fdef = _load(fn)
    name = fn.__name__
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
    for arg in a.args:
        if arg.arg not in anns:
            raise err.at(arg, "an argument without annotation ('%s')" % arg.arg,
                         "annotate it: int for an index, float / porta.f64 for a scalar, "
                         "porta.f64[:] for an array, porta.Sum[porta.f64] for an accumulator")
        t = _resolve_annotation(anns[arg.arg], fn)
        _check_name(err, arg, arg.arg)
        if t is int and leading:
            params.append(Param(arg.arg, "index", T.i64))
            continue
        leading = False
        if isinstance(t, T.ArrayType):
            params.append(Param(arg.arg, "array", t))
        elif isinstance(t, T.AccType):
            params.append(Param(arg.arg, "acc", t))
        elif T.as_dtype(t) is not None:
            params.append(Param(arg.arg, "scalar", T.as_dtype(t)))
        else:
            raise err.at(arg, "the annotation %r of '%s'" % (t, arg.arg),
                         "use int (index), float, int after the indices as porta.i64, "
                         "porta.f64 / f32 / i64 / i32, porta.f64[:] (arrays) or porta.Sum[...]")
    nidx = sum(p.kind == "index" for p in params)
    if not 1 <= nidx <= 6:
        raise err.at(fdef, "a kernel with %d index arguments" % nidx,
                     "start with one to six index arguments annotated int (i: int, j: int)")
    if sum(p.kind == "acc" for p in params) > 1:
        raise err.at(fdef, "two accumulators", "reduce one value per kernel for now")
    ks = KernelSource(fn, name, fn.__module__, file, fdef, params, fn.__globals__)
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

    def __init__(self, ks, spec):
        self.ks, self.spec = ks, spec
        self.err = _Errors(ks.file, ks.name)
        self.layout = {p.name: spec[k] for k, p in enumerate(ks.arrays)}
        self.params = {p.name: p for p in ks.params}
        self.locals = dict(ks.locals)
        self.lines = []
        self.indent = 1
        self.tmp = 0
        self.inferring = False

    # ---- types ----
    def infer(self):
        self.inferring = True
        for _ in range(4):
            before = dict(self.locals)
            self.lines = []
            self.block(self.body_statements())
            if before == self.locals:
                break
        self.inferring = False
        self.ks.locals = dict(self.locals)

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
            code, t = self.expr(s.value)
            self.store(s.targets[0], code, t, s)
        elif isinstance(s, ast.AnnAssign):
            try:
                t = T.as_dtype(_resolve_annotation(ast.unparse(s.annotation), self.ks.fn))
            except Exception:  # noqa: BLE001 - reported as a TranslationError below
                t = None
            if t is None or not isinstance(s.target, ast.Name):
                raise self.err.at(s, "this annotated assignment",
                                  "annotate locals with float, int or porta.f64 / f32 / i64 / i32")
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
            self.indent += 1
            self.block(s.body)
            self.indent -= 1
            if s.orelse:
                self.emit("} else {")
                self.indent += 1
                self.block(s.orelse)
                self.indent -= 1
            self.emit("}")
        elif isinstance(s, ast.While):
            if s.orelse:
                raise self.err.at(s, "while ... else", "move the else part after the loop")
            c, _ = self.expr(s.test)
            self.emit("while (%s) {" % c)
            self.indent += 1
            self.block(s.body)
            self.indent -= 1
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
            if s.value is not None:
                raise self.err.at(s, "return with a value",
                                  "kernels return nothing: store into an array argument, or add "
                                  "to the accumulator of a reduction")
            self.emit("return;")
        elif isinstance(s, ast.Expr):
            if isinstance(s.value, ast.Constant) and isinstance(s.value.value, str):
                return  # a string statement (a comment)
            code, _ = self.expr(s.value)
            self.emit("(void)(%s);" % code)
        else:
            raise self.unsupported(s)

    def for_range(self, s):
        if s.orelse:
            raise self.err.at(s, "for ... else", "move the else part after the loop")
        it = s.iter
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
        self.block(s.body)
        self.indent -= 1
        self.emit("}")
        self.indent -= 1
        self.emit("}")

    def store(self, target, code, t, node):
        if isinstance(target, ast.Name):
            name = target.id
            p = self.params.get(name)
            if p is not None and p.kind == "acc":
                self.emit("*pk_acc = (%s)(%s);" % (p.type.dtype.ctype, code))
                return
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
                return "(*pk_acc)", p.type.dtype
            if p.kind == "array":
                raise self.err.at(e, "the array '%s' used as a value" % n,
                                  "index it: %s[i]; its extents are %s.shape[k]" % (n, n))
            return _cname(n), p.type
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
        if not isinstance(e.value, ast.Name) or \
                self.params.get(e.value.id, Param("", "", None)).kind != "array":
            raise self.err.at(e, "indexing '%s'" % _describe(e.value),
                              "index array arguments only: x[i], a[i, j]")
        arr = self.params[e.value.id]
        idx = e.slice.elts if isinstance(e.slice, ast.Tuple) else [e.slice]
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
        return "%s[%s]" % (_cname(arr.name), " + ".join(terms)), arr.type.dtype

    def call(self, e):
        f = e.func
        if e.keywords:
            raise self.err.at(e, "keyword arguments in a call", "pass arguments by position")
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "math":
            fname = f.attr
        elif isinstance(f, ast.Name) and f.id in ("abs", "min", "max", "float", "int", "bool"):
            fname = f.id
        else:
            raise self.err.at(e, "a call to '%s'" % _describe(f),
                              "kernels call math functions (math.sqrt ...), abs, min, max, "
                              "float and int")
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

    # ---- the kernel ----
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
        if ks.acc is None:
            if ks.rank == 1:
                out.append("PORTA_FOR(%s, %s, pk_a, %s) {" % (cname, args_t, idx[0]))
            else:
                out.append("PORTA_MDFOR%d(%s, %s, pk_a, %s) {" % (ks.rank, cname, args_t,
                                                                  ", ".join(idx)))
        else:
            r = ks.acc.type.reducer
            if ks.rank == 1:
                out.append("PORTA_REDUCE(%s, %s, pk_a, %s, %s, pk_acc) {"
                           % (cname, args_t, idx[0], r))
            else:
                out.append("PORTA_MDREDUCE%d(%s, %s, pk_a, %s, %s, pk_acc) {"
                           % (ks.rank, cname, args_t, ", ".join(idx), r))
        for p in ks.fields:
            n = p.name
            if p.kind == "array":
                const = "" if n in ks.written else "const "
                out.append("  %s%s *const %s = pk_a->%s;" % (const, p.type.dtype.ctype,
                                                              _cname(n), _cname(n)))
                for k in range(p.type.rank):
                    out.append("  const int64_t pk_%s_n%d = pk_a->%s_n[%d];" % (n, k, n, k))
                    out.append("  const int64_t pk_%s_s%d = pk_a->%s_s[%d];" % (n, k, n, k))
                    out.append("  (void)pk_%s_n%d;" % (n, k))
                    out.append("  (void)pk_%s_s%d;" % (n, k))
            else:
                out.append("  %s %s = pk_a->%s;" % (p.type.ctype, _cname(n), _cname(n)))
                out.append("  (void)%s;" % _cname(n))
        for n, t in sorted(self.locals.items()):
            out.append("  %s %s = 0;" % (t.ctype, _cname(n)))
            out.append("  (void)%s;" % _cname(n))
        out.extend(body_lines)
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
        pattern = "PORTA_PATTERN_REDUCE" if ks.acc else "PORTA_PATTERN_FOR"
        policy = "PORTA_POLICY_RANGE" if ks.rank == 1 else "PORTA_POLICY_MDRANGE"
        rdt = ks.acc.type.dtype.code if ks.acc else -1
        out.append('static const porta_py_kernel %s_info = {"%s.%s", "%s", &%s, %s, %s, %d, %d, '
                   "%d, (int32_t)sizeof(%s), %s_fields};"
                   % (cname, ks.module, ks.name, self.spec, cname, pattern, policy, ks.rank, rdt,
                      len(ks.fields), args_t, cname))
        return out

    def _body(self):
        self.lines = []
        self.indent = 1
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


def generate_module(module, items):
    """The C of one module: `items` is a list of (KernelSource, spec), in a stable order."""
    out = ["/* Generated by porta (python/porta/translate.py) from module '%s'. */" % module,
           "#include <math.h>", "#include <stddef.h>", "#include <stdint.h>",
           '#include "porta/porta.h"', '#include "porta_py.h"', ""]
    names = []
    for ks, spec in items:
        cname = kernel_cname(ks, spec)
        lines = _Gen(ks, spec).generate(cname)
        out.extend(lines)
        out.append("#line %d \"%s.c\"" % (len(out) + 2, module))  # back to the generated file
        out.append("")
        names.append(cname)
    out.append("static const porta_py_kernel *const pk_kernels[] = {%s};"
               % ", ".join("&%s_info" % n for n in names))
    out.append('#ifdef __cplusplus\nextern "C"\n#endif')
    out.append('__attribute__((visibility("default"))) const porta_py_module_info porta_py_module = '
               "{PORTA_PY_ABI, %d, pk_kernels};" % len(names))
    return "\n".join(out) + "\n"
