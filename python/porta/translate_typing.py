"""The typing pass of the Python -> Porta C translator: the types of a kernel's locals and of
every expression, found before any C is written (translate_emit then writes the C once,
reading them: it has no type rule of its own). A local's type is the promotion of every value
assigned to it (integer locals are int64_t, as Python's int), so a value may depend on a local
assigned later in the body (in a loop): the pass walks the body until no local's type changes
(at most 4 times: f64 is the top of i64 < f32 < f64). The last walk, made with the final
locals, leaves its table: ks.types (id(node) -> (node, DType) for every expression node, None
where it found an error) and ks.parts (what emission needs beside a type: the element an
atomic updates, the steps of min / max, a scratch array's element type).

Typing reports nothing: an expression it cannot type (an error) types as None and leaves its
local untyped, and emission, which walks the body once in source order, raises the first
TranslationError at its construct, as the user reads the kernel. _Scope is what typing and
emission share: the kernel's names, what a name denotes in its module, constant integers."""
import ast
import types as _pytypes

from . import translate_intrinsics as I
from . import types as T
from .translate_intrinsics import _promote
from .translate_source import (
    INT64_MAX,
    INT64_MIN,
    VOID,
    TranslationError,
    _Errors,
    _acc_type,
    _assigned_of,
    _describe,
    _resolve_annotation)

PASSES = 4  # the most walks of the body; each one can only widen a local (i64 < f32 < f64)
# The most bits a part of a constant integer expression may have while it is folded (Python's
# ints are unbounded; the folded value must then fit int64): 2**200 // 2**190 folds, 2**5000
# is a TranslationError without being computed.
FOLD_BITS = 1024


class _Scope:
    """The names of one kernel, device function or reducer method (typing's and emission's)."""

    def __init__(self, ks, mode="kernel"):
        self.ks, self.mode = ks, mode  # mode: kernel, function, reducer
        self.err = _Errors(ks.file, ks.name)
        self.params = {p.name: p for p in ks.params}
        self.locals = dict(ks.locals)
        # Values with fields: name -> (C prefix, {field: DType}, writable, the fields' C names
        # are made from the Python names (a custom reducer's) rather than Porta's (val, loc)).
        self.structs = dict(ks.structs)
        if ks.acc is not None and ks.acc.type.fields:
            self.structs[ks.acc.name] = ("pk_acc->", dict(ks.acc.type.fields), True,
                                         ks.acc.type.custom is not None)
        # Names the body assigns anywhere are locals there (Python's scoping), never module
        # constants; constant integer expressions: node -> value (const).
        self.assigned = _assigned_of(ks)
        self.consts = {}
        if ks.acc is not None and ks.acc.type.custom is not None:
            ks.reducers[ks.acc.type.custom.cname] = ks.acc.type.custom
        self._reset_body()

    def _reset_body(self):
        self.accs = {}  # nested accumulators: name -> [AccType, reduced by a nested loop yet]
        self.guards = []  # the tests of the ifs around the statement being generated
        self.scratch = {}  # scratch arrays: name -> (DType, rank)
        self.scratch_reqs = []  # (PORTA_PY_SCRATCH_* slot, bytes as C)
        self.depth = 0

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

    def body_statements(self):
        body = self.ks.tree.body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            body = body[1:]  # the docstring
        return body

    def set_local(self, node, name, t):
        old = self.locals.get(name)
        if t is T.boolean or t is T.i32 or t is T.u8:
            t = T.i64  # integer locals are int64_t, as Python's int
        if old is None:
            self.locals[name] = t
        elif old is not t:
            self.locals[name] = _promote(old, t)



    def const(self, e):
        """The value of a constant integer expression (int and bool literals, module-level int
        constants, unary and binary operators on them), computed as Python computes it, or
        None. The whole expression is folded first, its parts as Python's unbounded ints, and
        only its value must fit int64 (-2**63 and 2**63 - 1 do, though 2**63 does not): a
        value no int64 holds, a constant shift count outside 0..63 and a zero divisor are
        TranslationErrors at the expression that makes them."""
        v = self._folded(e)
        if type(v) is int and not INT64_MIN <= v <= INT64_MAX:
            raise self.int64_error(e, v)
        return v

    def int64_error(self, e, v=None):
        what = "the integer %d" % v if isinstance(e, ast.Constant) else \
            "'%s'" % _describe(e) if v is None else "'%s' (= %d)" % (_describe(e), v)
        return self.err.at(e, what, "kernel integers are int64 (-2**63 to 2**63 - 1, as "
                                    "NumPy's): write a float (2.0 ** 70, 1.2e29) for a "
                                    "larger number")

    def _folded(self, e):
        """const's value of e before the int64 check (its parts may be any Python int)."""
        hit = self.consts.get(id(e))
        if hit is not None and hit[0] is e:
            return hit[1]
        v = self._const(e)
        if type(v) is int and v.bit_length() > FOLD_BITS:
            raise self.int64_error(e)  # no int64 on the way: 2**5000 // 2**4990 is refused
        self.consts[id(e)] = (e, v)
        return v

    def _const(self, e):
        if isinstance(e, ast.Constant):
            return e.value if isinstance(e.value, int) else None
        if isinstance(e, (ast.Name, ast.Attribute)):
            if isinstance(e, ast.Name) and e.id in self.assigned:
                return None  # a local (Python's scoping)
            v = self.resolve(e)
            return v if isinstance(v, int) else None
        if isinstance(e, ast.UnaryOp):
            a = self._folded(e.operand)
            if a is None:
                return None
            return {ast.USub: lambda: -a, ast.UAdd: lambda: +a, ast.Invert: lambda: ~a,
                    ast.Not: lambda: not a}[type(e.op)]()
        if not isinstance(e, ast.BinOp):
            return None
        a = self._folded(e.left)
        b = self._folded(e.right) if a is not None else None
        if b is None:
            return None
        op = e.op
        if isinstance(op, (ast.FloorDiv, ast.Mod)):
            if b == 0:
                raise self.err.at(e, "'%s' (an integer %s by the constant 0)"
                                  % (_describe(e), "division" if isinstance(op, ast.FloorDiv)
                                     else "modulo"),
                                  "Python raises ZeroDivisionError there: divide by a non-zero "
                                  "value")
            return a // b if isinstance(op, ast.FloorDiv) else a % b
        if isinstance(op, ast.Pow):
            if b < 0:
                return None  # a float (pow), as in Python
            if abs(a) > 1 and (abs(a).bit_length() - 1) * b > FOLD_BITS:
                raise self.int64_error(e)
            return a ** b
        if isinstance(op, (ast.LShift, ast.RShift)):
            if not 0 <= b <= 63:
                raise self.shift_error(e)
            return a << b if isinstance(op, ast.LShift) else a >> b
        fold = {ast.Add: lambda: a + b, ast.Sub: lambda: a - b, ast.Mult: lambda: a * b,
                ast.BitAnd: lambda: a & b, ast.BitOr: lambda: a | b,
                ast.BitXor: lambda: a ^ b}.get(type(op))
        return fold() if fold is not None else None

    def shift_error(self, node):
        return self.err.at(node, "the shift '%s'" % _describe(node),
                           "shift counts are 0 to 63 (kernel integers are int64); for a float "
                           "power of two write 2.0 ** n")

    # ---- what typing and emission both read of constants ----
    def float_const(self, n):
        """The module-level constant a name that is no local or argument reads, or None."""
        if n in self.params or n in self.accs or n in self.scratch or n in self.structs \
                or n in self.locals or n in self.assigned:
            return None
        return self.ks.globals.get(n)

    def is_two(self, e):
        """Whether a float's exponent is the constant 2 (2.0, TWO = 2.0 ...): x ** 2 is x * x,
        of x's type."""
        k = self.const(e)
        if k is not None:
            return k == 2 and not isinstance(k, bool)
        while isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.UAdd):
            e = e.operand
        if isinstance(e, ast.Constant):
            return isinstance(e.value, float) and e.value == 2.0
        v = self.float_const(e.id) if isinstance(e, ast.Name) else \
            self.resolve(e) if isinstance(e, ast.Attribute) else None
        if isinstance(e, ast.Attribute) and isinstance(e.value, ast.Name) \
                and e.value.id == "math":
            v = I.MATH_CONSTS.get(e.attr, v)
        return isinstance(v, float) and v == 2.0


class _Typer(_Scope):
    """The typing pass: the types of the locals (ks.locals) and of every expression (ks.types,
    ks.parts), no C."""

    def run(self):
        for _ in range(PASSES):
            before = dict(self.locals)
            self._reset_body()
            self.types, self.parts = {}, {}  # the last walk's, made with the final locals
            self.block(self.body_statements())
            if before == self.locals:
                break
        self.ks.locals = dict(self.locals)
        self.ks.types, self.ks.parts = self.types, self.parts

    def record(self, node, t):
        """The type of an expression (None: an error, which emission reports), for emission."""
        self.types[id(node)] = (node, t)

    def record_part(self, node, t):
        """What emission needs of a node beside its type: an element's DType, min / max's
        steps."""
        self.parts[id(node)] = (node, t)

    def block(self, stmts):
        for s in stmts:
            self.stmt(s)

    def stmt(self, s):
        self.stmt_types(s)
        for e in ast.iter_child_nodes(s):  # the rest: tests, targets, values, ranges
            if isinstance(e, ast.expr):
                self.type(e)

    def stmt_types(self, s):
        if isinstance(s, ast.Assign):
            if len(s.targets) != 1:
                return
            if isinstance(s.value, ast.Call) and self.intrinsic(s.value.func) in I.SCRATCH:
                self.scratch_decl(s.targets[0], s.value)
            else:
                self.store(s.targets[0], self.type(s.value))
        elif isinstance(s, ast.AnnAssign):
            try:
                ann = _resolve_annotation(ast.unparse(s.annotation), self.ks.fn)
            except Exception:  # noqa: BLE001 - emission reports it
                ann = None
            if not isinstance(s.target, ast.Name):
                return
            acc = _acc_type(ann)
            if acc is not None:
                if s.target.id not in self.accs:
                    self.accs[s.target.id] = [acc, False]
                if acc.fields:
                    self.structs[s.target.id] = (None, dict(acc.fields), True, None)
                return
            t = T.as_dtype(ann)
            if t is not None:
                self.set_local(s.target, s.target.id, t)
                if s.value is not None:
                    self.store(s.target, self.type(s.value))
        elif isinstance(s, ast.AugAssign):
            try:
                t = self.binop_type(s.op, self.type(s.target), self.type(s.value), s.value)
            except TranslationError:
                t = None
            self.record(s, t)  # the type of target op value (translate_expressions.binop)
            self.store(s.target, t)
        elif isinstance(s, (ast.If, ast.While)):
            self.block(s.body)
            self.block(s.orelse)
        elif isinstance(s, ast.For):
            if isinstance(s.target, ast.Name):
                self.set_local(s.target, s.target.id, T.i64)
            self.block(s.body)

    def store(self, target, t):
        if not isinstance(target, ast.Name) or t is None or t is VOID:
            return
        name = target.id
        if name in self.params or name in self.accs or name in self.scratch:
            return
        self.set_local(target, name, t)

    def scratch_decl(self, target, call):
        args = list(call.args) + [kw.value for kw in call.keywords]
        if not isinstance(target, ast.Name) or len(args) < 3:
            return
        dt = T.as_dtype(self.resolve(args[1]))
        self.record_part(call, dt)  # its element type (None: emission reports it)
        dims = args[2].elts if isinstance(args[2], ast.Tuple) else [args[2]]
        if dt is not None and target.id not in self.scratch:
            self.scratch[target.id] = (dt, len(dims))

    # ---- expressions: their DType, or None where emission will report an error ----
    def binop_type(self, op, at, bt, right):
        """The type of `a op b` (an AugAssign's too; None: an error, which emission reports)."""
        if at is None or bt is None:
            return None
        t = _promote(at, bt)
        if isinstance(op, (ast.Add, ast.Sub, ast.Mult)):
            return t if t.is_float else T.i64
        if isinstance(op, ast.Div):
            return t if t.is_float else T.f64
        if isinstance(op, (ast.FloorDiv, ast.Mod)):
            return T.f64 if t.is_float else T.i64
        if isinstance(op, ast.Pow):
            if t.is_float:
                return t if self.is_two(right) else T.f64
            k = self.const(right)
            return T.i64 if k is not None and k >= 0 else T.f64
        if isinstance(op, (ast.LShift, ast.RShift)):
            return None if t.is_float else T.i64
        if isinstance(op, (ast.BitAnd, ast.BitOr, ast.BitXor)):
            return None if t.is_float else t
        return None

    def type(self, e):
        """The DType of an expression, recorded with those of all its parts (once a walk)."""
        hit = self.types.get(id(e))
        if hit is not None and hit[0] is e:
            return hit[1]
        try:
            t = self._type(e)
        except TranslationError:
            t = None
        self.record(e, t)
        folded = self.consts.get(id(e))
        if t is not None and folded is not None and folded[0] is e and folded[1] is not None:
            return t  # a constant: emission writes its value, never its parts (2**63 of -2**63)
        for part in ast.iter_child_nodes(e):
            if isinstance(part, ast.expr):
                self.type(part)
        return t

    def _type(self, e):
        if isinstance(e, (ast.Constant, ast.Name, ast.Attribute, ast.UnaryOp, ast.BinOp)):
            v = self.const(e)
            if isinstance(v, bool):
                return T.boolean
            if v is not None:
                return T.i64
        if isinstance(e, ast.Constant):
            return T.f64 if isinstance(e.value, float) else None
        if isinstance(e, ast.Name):
            return self.name_type(e.id)
        if isinstance(e, ast.BinOp):
            return self.binop_type(e.op, self.type(e.left), self.type(e.right), e.right)
        if isinstance(e, ast.UnaryOp):
            t = self.type(e.operand)
            if t is None or isinstance(e.op, ast.Not):
                return None if t is None else T.boolean
            if isinstance(e.op, ast.USub):
                return t if t.is_float else T.i64
            return t if isinstance(e.op, ast.UAdd) or not t.is_float else None
        if isinstance(e, (ast.BoolOp, ast.Compare)):
            return T.boolean
        if isinstance(e, ast.IfExp):
            a, b = self.type(e.body), self.type(e.orelse)
            return None if a is None or b is None else _promote(a, b)
        if isinstance(e, ast.Subscript):
            return self.subscript_type(e)
        if isinstance(e, ast.Call):
            return self.call_type(e)
        if isinstance(e, ast.Attribute):
            return self.attribute_type(e)
        return None

    def name_type(self, n):
        p = self.params.get(n)
        if p is not None:
            if p.kind == "acc":
                return None if p.type.fields else p.type.dtype
            return None if p.kind in ("array", "team") else p.type
        if n in self.accs:
            return None if self.accs[n][0].fields else self.accs[n][0].dtype
        if n in self.scratch or n in self.structs:
            return None
        if n in self.locals:
            return self.locals[n]
        if isinstance(self.float_const(n), float):
            return T.f64
        return T.i64  # a local read before its first assignment in source order (loops)

    def subscript_type(self, e):
        if isinstance(e.value, ast.Attribute) and e.value.attr == "shape":
            return T.i64
        return self.element_type(e.value)

    def element_type(self, base):
        """The DType of an element of the array (or scratch) `base`."""
        if isinstance(base, ast.Name) and base.id in self.scratch:
            return self.scratch[base.id][0]
        p = self.params.get(base.id) if isinstance(base, ast.Name) else None
        return p.type.dtype if p is not None and p.kind == "array" else None

    def attribute_type(self, e):
        if isinstance(e.value, ast.Name):
            if e.value.id == "math" and e.attr in I.MATH_CONSTS:
                return T.f64
            p = self.params.get(e.value.id)
            if p is not None and p.kind == "team":
                return T.i64 if e.attr in I.TEAM_ATTRS else None
            if e.value.id in self.structs:
                return self.structs[e.value.id][1].get(e.attr)
        return T.f64 if isinstance(self.resolve(e), float) else None

    def call_type(self, e):
        f = e.func
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name):
            p = self.params.get(f.value.id)
            if p is not None and p.kind == "team":
                return T.i64 if f.attr in I.TEAM_ATTRS else VOID
        obj = self.resolve(f)
        if getattr(obj, "_porta_function", False):
            ret = obj.source().ret
            return VOID if ret is None else ret
        name = getattr(obj, "_porta_intrinsic", None)
        if name in I.ATOMICS:
            if len(e.args) < 2:
                return VOID
            t = self.element_type(e.args[0])
            self.record_part(e, t)  # the element it updates (translate_expressions.atomic)
            return VOID if I.ATOMICS[name][1] is None else t
        if name in I.SINGLES:
            return T.boolean
        if name is not None or isinstance(f, ast.Name) and f.id == "print":
            return VOID
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) \
                and f.value.id == "math":
            fname = f.attr
        elif isinstance(f, ast.Name) and f.id in I.BUILTINS:
            fname = f.id
        else:
            return None
        types = [self.type(a) for a in e.args]
        if any(t is None for t in types):
            return None
        if fname in ("min", "max") and len(types) >= 2:
            self.record_part(e, I.minmax_steps(types))
        return I.builtin_type(fname, types)


def type_source(ks, mode="kernel"):
    """The typing pass over a KernelSource or FunctionSource: sets ks.locals."""
    _Typer(ks, mode).run()
