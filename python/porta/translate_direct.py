"""Which launch indices index an array directly (y[i], a[i, j]) in every run of a kernel: the
launch checks those ranges against the extents before the kernel runs (porta_py_field.direct)."""
import ast

from . import translate_intrinsics as I
from .translate_source import _assigned_of


def direct_index_masks(ks):
    """direct_masks(ks), found once a kernel (its AST does not change; every emission of the
    kernel asks, and each answer is a walk of the whole body)."""
    masks = getattr(ks, "_direct_masks", None)
    if masks is None:
        masks = ks._direct_masks = direct_masks(ks)
    return masks


def direct_masks(ks):
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
    for name in _assigned_of(ks):  # an index assigned to (or deleted) is not the launch's
        index.pop(name, None)
    accesses = _DirectAccesses(ks, index, arrays)
    for st in _always_run(ks.tree.body):
        accesses.statement(st)
    return accesses.masks


def _always_run(body):
    """The statements of a kernel's body that every launch index runs: up to a return, or up
    to and including the first statement that may return."""
    for st in body:
        if isinstance(st, ast.Return):
            return
        yield st
        if any(isinstance(n, ast.Return) for n in ast.walk(st)):
            return  # the statements after it may not run


class _DirectAccesses:
    """The direct accesses (masks) of the statements and expressions it is shown: `index`,
    the launch indices by name; `arrays`, the array arguments' ranks."""

    def __init__(self, ks, index, arrays):
        self.ks, self.index, self.arrays = ks, index, arrays
        self.masks = {}

    def access(self, base, idx):
        """base[idx]: the launch indices indexing an array argument's dimensions."""
        if not isinstance(base, ast.Name) or base.id not in self.arrays:
            return
        elts = idx.elts if isinstance(idx, ast.Tuple) else [idx]
        if len(elts) != self.arrays[base.id]:
            return
        for k, x in enumerate(elts):
            if isinstance(x, ast.Name) and x.id in self.index:
                m = self.masks.setdefault(base.id, [0] * len(elts))
                m[k] |= 1 << self.index[x.id]

    def atomic(self, call):
        """Whether a call is one of the atomics (its first two arguments: array, index)."""
        f, obj = call.func, None
        if isinstance(f, ast.Name):
            obj = self.ks.globals.get(f.id)
        elif isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name):
            obj = getattr(self.ks.globals.get(f.value.id), f.attr, None)
        return getattr(obj, "_porta_intrinsic", None) in I.ATOMICS

    def expr(self, e):
        """The element accesses an expression always makes."""
        if e is None:
            return
        if isinstance(e, ast.Subscript):
            if not (isinstance(e.value, ast.Attribute) and e.value.attr == "shape"):
                self.access(e.value, e.slice)
            self.expr(e.value)
            self.expr(e.slice)
        elif isinstance(e, ast.IfExp):
            self.expr(e.test)
        elif isinstance(e, ast.BoolOp):
            self.expr(e.values[0])
        elif isinstance(e, ast.Compare):
            self.expr(e.left)
            self.expr(e.comparators[0])
        elif isinstance(e, ast.Call):
            if self.atomic(e) and len(e.args) >= 2:
                self.access(e.args[0], e.args[1])
            for a in e.args:
                self.expr(a)
        elif isinstance(e, (ast.BinOp,)):
            self.expr(e.left)
            self.expr(e.right)
        elif isinstance(e, ast.UnaryOp):
            self.expr(e.operand)
        elif isinstance(e, ast.Tuple):
            for x in e.elts:
                self.expr(x)
        elif isinstance(e, ast.Attribute):
            self.expr(e.value)

    def statement(self, st):
        """The element accesses a statement always makes (an if's or loop's test or range,
        not its body)."""
        if isinstance(st, ast.Assign):
            for t in st.targets:
                self.expr(t)
            self.expr(st.value)
        elif isinstance(st, (ast.AugAssign, ast.AnnAssign)):
            self.expr(st.target)
            self.expr(st.value)
        elif isinstance(st, ast.Expr):
            self.expr(st.value)
        elif isinstance(st, (ast.If, ast.While)):
            self.expr(st.test)  # the test runs, the body may not
        elif isinstance(st, ast.For):
            self.expr(st.iter)
