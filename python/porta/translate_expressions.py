"""Expressions of a Python kernel as C (a part of translate_emit._Gen: names, attributes,
arithmetic, array elements, calls to math functions, team methods, atomics and device
functions)."""
import ast
import re
import types as _pytypes

from . import types as T
from . import translate_intrinsics as I
from .translate_source import (
    Param,
    _c_int,
    _cname,
    _describe,
    _float_literal,
    _int_literal)


class _Expressions:
    """Expression generation for translate_emit._Gen (uses its state: self.err, self.emit, ...)."""

    def expr(self, e, store_ok=False):
        if isinstance(e, (ast.Constant, ast.Name, ast.Attribute, ast.UnaryOp, ast.BinOp)):
            v = self.const(e)  # an integer constant (folded as Python computes it)
            if isinstance(v, bool):
                return ("1" if v else "0"), self.typed(e)
            if v is not None:
                return _c_int(v), self.typed(e)
        if isinstance(e, ast.Constant):
            v = e.value
            if isinstance(v, float):
                return _float_literal(v), self.typed(e)
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
                return ("(-%s)" if t.is_float else "pk_neg(%s)") % c, self.typed(e)
            if isinstance(e.op, ast.UAdd):
                return c, self.typed(e)
            if isinstance(e.op, ast.Not):
                return "(!%s)" % c, self.typed(e)
            if isinstance(e.op, ast.Invert) and not t.is_float:
                return "(~%s)" % c, self.typed(e)
            raise self.err.at(e, "~ on a float", "use ~ on integers only")
        if isinstance(e, ast.BoolOp):
            op = " && " if isinstance(e.op, ast.And) else " || "
            return "(" + op.join(self.expr(v)[0] for v in e.values) + ")", self.typed(e)
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
            return "(" + " && ".join(parts) + ")", self.typed(e)
        if isinstance(e, ast.IfExp):
            c = self.expr(e.test)[0]
            a = self.expr(e.body)[0]
            b = self.expr(e.orelse)[0]
            t = self.typed(e)
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
                if p.type.exact:
                    raise self.err.at(e, "the exact sum '%s' read as a value" % n,
                                      "its value exists once the reduction has ended "
                                      "(porta.parallel_reduce returns it, rounded once); in the "
                                      "kernel only add to it: %s += term or %s -= term" % (n, n))
                if p.type.fields:
                    raise self.err.at(e, "the accumulator '%s' used as a value" % n,
                                      "read and update its fields: %s"
                                      % ", ".join("%s.%s" % (n, f) for f, _ in p.type.fields))
                return "(*pk_acc)", self.typed(e)
            if p.kind == "array":
                raise self.err.at(e, "the array '%s' used as a value" % n,
                                  "index it: %s[i]; its extents are %s.shape[k]" % (n, n))
            if p.kind == "team":
                raise self.err.at(e, "the team member '%s' used as a value" % n,
                                  "read %s.league_rank, %s.team_rank, %s.team_size ..., or "
                                  "pass it to porta.team_thread_range(%s, n)" % (n, n, n, n))
            return _cname(n), self.typed(e)
        if n in self.accs:
            acc = self.accs[n][0]
            if acc.fields:
                raise self.err.at(e, "the accumulator '%s' used as a value" % n,
                                  "read its fields: %s"
                                  % ", ".join("%s.%s" % (n, f) for f, _ in acc.fields))
            return _cname(n), self.typed(e)
        if n in self.scratch:
            raise self.err.at(e, "the scratch array '%s' used as a value" % n,
                              "index it: %s[i]" % n)
        if n in self.structs:
            raise self.err.at(e, "'%s' used as a value" % n, "read its fields: %s.field" % n)
        if n in self.locals:
            return _cname(n), self.typed(e)
        if n in self.ks.globals and n not in self.assigned:
            v = self.ks.globals[n]  # module-level constants are copied into the C
            if isinstance(v, float):
                return _float_literal(v), self.typed(e)
        # An unknown name is reported after the body's other errors (_Gen.body_lines): read
        # meanwhile as an int, as typing reads it.
        if self.unknown_name is None:
            self.unknown_name = self.err.at(
                e, "the name '%s'" % n, "kernels read their arguments, their locals and "
                "module-level int or float constants; pass '%s' as an argument" % n)
        return _cname(n), self.typed(e)

    def attribute(self, e):
        if isinstance(e.value, ast.Name) and e.value.id == "math" and e.attr in I.MATH_CONSTS:
            return _float_literal(I.MATH_CONSTS[e.attr]), self.typed(e)
        if isinstance(e.value, ast.Name):
            b = e.value.id
            p = self.params.get(b)
            if p is not None and p.kind == "team":
                if e.attr in I.TEAM_ATTRS:
                    return I.TEAM_ATTRS[e.attr], self.typed(e)
                raise self.err.at(e, "the team member attribute '%s'" % _describe(e),
                                  "a team member has %s and team_barrier()"
                                  % ", ".join(sorted(I.TEAM_ATTRS)))
            if b in self.structs:
                prefix, fields, _, mangled = self.structs[b]
                if e.attr not in fields:
                    raise self.err.at(e, "the field '%s' of '%s'" % (e.attr, b),
                                      "its fields are %s" % ", ".join(fields))
                return prefix + (_cname(e.attr) if mangled else e.attr), self.typed(e)
        v = self.resolve(e)
        if isinstance(v, float):  # a module's float constant: np.pi, mymodule.EPS
            return _float_literal(v), self.typed(e)
        raise self.err.at(e, "the attribute '%s'" % _describe(e),
                          "kernels read math.pi, math.e, math.tau, math.inf and x.shape[k]")

    def binop(self, op, a, at, b, bt, node):
        """The C of `a op b` (node: the BinOp, or an AugAssign), of the type typing gave it
        (translate_typing._Typer.binop_type), read once the operator is known to be right."""
        right = node.right if isinstance(node, ast.BinOp) else node.value  # or an AugAssign's
        is_float = at.is_float or bt.is_float  # (the operands' promotion is a float)
        if isinstance(op, (ast.Add, ast.Sub, ast.Mult)):
            if not is_float:  # int64 wrap-around (pk_add ..., porta_py.h)
                fn = {ast.Add: "pk_add", ast.Sub: "pk_sub", ast.Mult: "pk_mul"}[type(op)]
                return "%s(%s, %s)" % (fn, a, b), self.typed(node)
            sym = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*"}[type(op)]
            return "(%s %s %s)" % (a, sym, b), self.typed(node)
        if isinstance(op, ast.Div):
            rt = self.typed(node)
            return "((%s)%s / (%s)%s)" % (rt.ctype, a, rt.ctype, b), rt
        if isinstance(op, (ast.FloorDiv, ast.Mod)):
            floor = isinstance(op, ast.FloorDiv)
            if is_float:  # IEEE: a zero divisor gives inf or nan, no exception
                if floor:
                    return "floor(%s / %s)" % (a, b), self.typed(node)
                return "porta_py_mod_f64(%s, %s)" % (a, b), self.typed(node)
            return self.int_division(floor, a, b, node), self.typed(node)
        if isinstance(op, ast.Pow):
            rt = self.typed(node)
            if is_float:
                if self.is_two(right):
                    return "(%s * %s)" % (a, a), rt
                return "pow(%s, %s)" % (a, b), rt
            if not rt.is_float:  # a constant exponent >= 0: an int, as in Python
                return "pk_ipow(%s, %s)" % (a, b), rt
            # another exponent may be negative, which makes a float in Python (2 ** -2 = 0.25)
            return "pow((double)%s, (double)%s)" % (a, b), rt
        bits = {ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^", ast.LShift: "<<",
                ast.RShift: ">>"}
        if type(op) in bits:
            if is_float:
                raise self.err.at(node, "a bitwise operator on floats", "use integers")
            if isinstance(op, (ast.LShift, ast.RShift)):
                k = self.const(right)
                if k is not None and not 0 <= k <= 63:
                    raise self.shift_error(node)
                return "%s(%s, %s)" % ("pk_shl" if isinstance(op, ast.LShift) else "pk_shr",
                                       a, b), self.typed(node)
            return "(%s %s %s)" % (a, bits[type(op)], b), self.typed(node)
        raise self.err.at(node, "the operator '%s'" % type(op).__name__, "use + - * / // % **")

    def int_division(self, floor, a, b, node):
        """Integer a // b or a % b with Python's rounding: a constant zero divisor is a
        TranslationError; another constant needs no check; a divisor known only at run time
        is checked (PORTA_PY_FLOORDIV: a zero records a ZeroDivisionError naming the Python
        file and line, raised after the launch, where C would kill the process)."""
        right = node.right if isinstance(node, ast.BinOp) else getattr(node, "value", None)
        const = _c_int_constant(b)
        if const is None and right is not None:
            const = _int_literal(right)
        if const == 0:
            raise self.err.at(node, "'%s' (an integer %s by the constant 0)"
                              % (_describe(node), "division" if floor else "modulo"),
                              "Python raises ZeroDivisionError there: divide by a non-zero value")
        if const is not None:
            return "porta_py_%s_i64(%s, %s)" % ("floordiv" if floor else "mod", a, b)
        self.ks.raises = True  # the kernel's launches check its error record
        return "PORTA_PY_%s(%s, %s, %d)" % ("FLOORDIV" if floor else "MOD", a, b,
                                             getattr(node, "lineno", 0))

    def subscript(self, e):
        if isinstance(e.value, ast.Attribute) and e.value.attr == "shape" \
                and isinstance(e.value.value, ast.Name) \
                and self.params.get(e.value.value.id, Param("", "", None)).kind == "array":
            arr = self.params[e.value.value.id]
            k = self.const(e.slice)
            if k is None or not -arr.type.rank <= k < arr.type.rank:
                raise self.err.at(e, "shape[%s]" % ast.unparse(e.slice),
                                  "index shape with a constant 0 .. %d" % (arr.type.rank - 1))
            return "%s_n%d" % (_cname(arr.name, "pk"), k % arr.type.rank), self.typed(e)
        if isinstance(e.value, ast.Attribute) and e.value.attr == "shape" \
                and isinstance(e.value.value, ast.Name) and e.value.value.id in self.scratch:
            name = e.value.value.id
            rank = self.scratch[name][1]
            k = self.const(e.slice)
            if k is None or not -rank <= k < rank:
                raise self.err.at(e, "shape[%s]" % ast.unparse(e.slice),
                                  "index shape with a constant 0 .. %d" % (rank - 1))
            return "%s_n%d" % (_cname(name, "pk"), k % rank), self.typed(e)
        idx = e.slice.elts if isinstance(e.slice, ast.Tuple) else [e.slice]
        return self.element(e.value, idx, e)

    def element(self, base, idx, e):
        """The C lvalue of an array (or scratch) element base[idx...] and its dtype (e: the
        Subscript, whose type typing gave, or the atomic, whose element typing recorded)."""
        if isinstance(base, ast.Name) and base.id in self.scratch:
            name = base.id
            rank = self.scratch[name][1]
            if len(idx) != rank:
                raise self.err.at(e, "%d index(es) into the scratch array '%s', which has %d "
                                  "dimension(s)" % (len(idx), name, rank),
                                  "give one index per dimension")
            terms = []
            for k, x in enumerate(idx):
                c = self.index(x, _cname(name, "pk"), k)
                stride = " * ".join("%s_n%d" % (_cname(name, "pk"), j)
                                    for j in range(k + 1, rank))
                terms.append("(int64_t)(%s)%s" % (c, " * " + stride if stride else ""))
            return "%s[%s]" % (_cname(name), " + ".join(terms)), self.element_dtype(e)
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
        pn = _cname(arr.name, "pk")
        codes = [self.index(x, pn, k) for k, x in enumerate(idx)]
        lay = self.layout[arr.name]
        r = arr.type.rank
        terms = []
        for k, c in enumerate(codes):
            unit = (lay in "CR" and k == r - 1) or (lay in "FL" and k == 0)
            terms.append("(int64_t)(%s)" % c if unit else "(int64_t)(%s) * %s_s%d"
                         % (c, pn, k))
        # PORTA_PY_AT<r> (porta_py.h) is the element at the offset in a normal build, a checked
        # access that records an IndexError in the checked mode, Porta's check in a debug build
        dt = self.element_dtype(e)
        return "PORTA_PY_AT%d(%s, %s, pk_a->%s_n, pk_a->%s_s, \"%s\", %d, %s, %s)" % (
            r, dt.ctype, _cname(arr.name), pn, pn, arr.name,
            getattr(e, "lineno", 0), " + ".join(terms),
            ", ".join("(int64_t)(%s)" % c for c in codes)), dt

    def element_dtype(self, e):
        return self.typed_part(e) if isinstance(e, ast.Call) else self.typed(e)

    def call(self, e, stmt=False):
        f = e.func
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) \
                and self.params.get(f.value.id, Param("", "", None)).kind == "team":
            return self.team_method(e, stmt)
        special = self.special_call(e, stmt)
        if special is not None:
            return special
        if isinstance(f, ast.Name) and f.id == "print" and f.id not in self.assigned \
                and f.id not in self.params:
            return self.print_call(e, stmt)
        self.numpy_call(e)
        if e.keywords:
            raise self.err.at(e, "keyword arguments in a call", "pass arguments by position")
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "math":
            fname = f.attr
        elif isinstance(f, ast.Name) and f.id in I.BUILTINS:
            fname = f.id
        else:
            raise self.err.at(e, "a call to '%s'" % _describe(f),
                              "kernels call math functions (math.sqrt ...), abs, min, max, "
                              "float, int, porta's atomics and team functions, and functions "
                              "decorated with @porta.function")
        args = [self.expr(a) for a in e.args]
        if I.builtin_takes(fname, len(args)):
            steps = self.typed_part(e) if fname in ("min", "max") else None
            return I.builtin_code(fname, args, self.typed(e), steps), self.typed(e)
        if fname in I.MATH_FUNCS:
            raise self.err.at(e, "math.%s with %d arguments" % (fname, len(args)),
                              "math.%s takes %d" % (fname, I.MATH_FUNCS[fname][0]))
        raise self.err.at(e, "%s with %d arguments" % (fname, len(args)),
                          "see docs/python.md for the functions kernels call")

    def void(self, e, what, stmt, code):
        if not stmt:
            raise self.err.at(e, "the value of %s" % what,
                              "%s returns nothing: call it as a statement" % what)
        return code, self.typed(e)

    def team_method(self, e, stmt):
        f = e.func
        t = f.value.id
        if e.args or e.keywords:
            raise self.err.at(e, "'%s' with arguments" % _describe(e),
                              "team member methods take no arguments: %s.%s()" % (t, f.attr))
        if f.attr == "team_barrier":
            return self.void(e, "%s.team_barrier()" % t, stmt, "porta_team_barrier(pk_team)")
        if f.attr in I.TEAM_ATTRS:
            return I.TEAM_ATTRS[f.attr], self.typed(e)
        raise self.err.at(e, "the team member method '%s'" % _describe(f),
                          "a team member has %s and team_barrier()"
                          % ", ".join(sorted(I.TEAM_ATTRS)))

    def special_call(self, e, stmt):
        """porta's intrinsics (atomics, barriers, ...) and @porta.function calls; None for the
        other calls."""
        obj = self.resolve(e.func)
        if getattr(obj, "_porta_function", False):  # @porta.function
            return self.device_call(e, obj, stmt)
        name = getattr(obj, "_porta_intrinsic", None)
        if name is None:
            return None
        fn = "porta." + name
        if name in I.ATOMICS:
            return self.atomic(e, name, stmt)
        if e.keywords:
            raise self.err.at(e, "keyword arguments to %s" % fn, "pass arguments by position")
        if name == "team_barrier":
            if len(e.args) != 1:
                raise self.err.at(e, "%s with %d arguments" % (fn, len(e.args)),
                                  "write porta.team_barrier(t)")
            self.team_arg(e.args[0], fn)
            return self.void(e, fn, stmt, "porta_team_barrier(pk_team)")
        if name in I.SINGLES:
            if len(e.args) != 1:
                raise self.err.at(e, "%s with %d arguments" % (fn, len(e.args)),
                                  "write if %s(t):" % fn)
            self.team_arg(e.args[0], fn)
            return I.SINGLES[name], self.typed(e)
        if name in I.RANGES:
            raise self.err.at(e, "%s outside a for statement" % fn,
                              "loop over it: for j in %s(t, n):" % fn)
        if name in I.SCRATCH:
            raise self.err.at(e, "%s inside an expression" % fn,
                              "assign it to a name at the top of the kernel: tile = %s(t, "
                              "porta.f64, n)" % fn)
        raise self.err.at(e, "a call to %s" % fn, "see docs/python.md")

    def atomic(self, e, name, stmt):
        op, ret, nargs = I.ATOMICS[name]
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
        if dt.suffix not in I.ATOMIC_DTYPES or dt is T.boolean:
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
        return code, self.typed(e)

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
        codes.append("pk_err")  # the caller's error record (integer division by zero)
        code = "%s(%s)" % (fs.cname, ", ".join(codes))
        if fs.ret is None:
            return self.void(e, "%s()" % obj.__name__, stmt, code)
        return code, self.typed(e)

    # ---- indices, NumPy ----
    def index(self, x, pn, k):
        """The C of the index x in dimension k of an array whose extents are pn_n<k>: a
        negative constant counts from the end, as in Python (x[-1] is x[n - 1])."""
        if isinstance(x, ast.Slice):
            raise self.unsupported(x, "a slice")
        c, t = self.expr(x)
        if t.is_float:
            raise self.err.at(x, "a float index", "indices are integers: use int(x)")
        v = self.const(x)
        if v is not None and v < 0:
            return "(%s_n%d - %d)" % (pn, k, -v)
        return c

    def numpy_call(self, e):
        """A call to a NumPy function: a TranslationError naming what to write instead."""
        f = e.func
        obj = self.resolve(f)
        mod = getattr(obj, "__module__", None) if obj is not None else None
        name = None
        if isinstance(mod, str) and mod.split(".")[0] == "numpy":
            name = getattr(obj, "__name__", None)
        if name is None and isinstance(f, ast.Attribute):
            base = self.resolve(f.value)
            if isinstance(base, _pytypes.ModuleType) and base.__name__.split(".")[0] == "numpy":
                name = f.attr
        if not isinstance(name, str):
            return
        instead = I.NUMPY_INSTEAD.get(name)
        if instead is None and (name in I.MATH_FUNCS or name in I.MATH_INT_FUNCS
                                or name in I.MATH_BOOL_FUNCS):
            instead = "math." + name
        if instead is None:
            hint = "kernels work on one element at a time, with math functions (math.sqrt "\
                   "...): loop over the elements (for k in range(n)) or reduce with an "\
                   "accumulator (porta.Sum[porta.f64])"
        elif instead.startswith("math."):
            hint = "NumPy functions do not run in kernels: write %s(...)" % instead
        else:
            hint = "NumPy functions do not run in kernels: write %s" % instead
        raise self.err.at(e, "a call to NumPy's %s" % _describe(f), hint)


def _c_int_constant(code):
    """The value of an integer constant as the translator writes it in C ("3", "INT64_C(3)",
    "(-3)", "INT64_C(-3)", "1" for True), or None."""
    c = re.sub(r"INT64_C|[()\s]", "", code)
    m = re.fullmatch(r"(-*)(\d+)", c)
    if m is None:
        return None
    return -int(m.group(2)) if len(m.group(1)) % 2 else int(m.group(2))
