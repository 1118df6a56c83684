"""The emission half of the Python -> Porta C translator: _Gen writes the C of one kernel
specialisation (or device function, or reducer method) from its typed KernelSource
(translate_typing: every expression's type is read from its table, never derived here), with
Porta's kernel macros, the argument struct and the porta_py_kernel descriptor (porta_py.h),
whose members are filled by name."""
import ast
import math

from .translate_direct import direct_index_masks
from .translate_expressions import _Expressions
from .translate_print import _Print
from .translate_source import HINTS, _cname, _describe
from .translate_statements import _Statements
from .translate_typing import _Scope

LAYOUT_LETTERS = "CFSRL"  # indexed by porta_py_layout (porta_py.h)
BACK_TO_C = "#line <back to the generated file>"

# The members of porta_py_field and porta_py_kernel (porta_py.h), in their order: descriptors
# are written by name (tests/python/test_translate_layers.py checks these against the header).
FIELD_MEMBERS = ("name", "kind", "dtype", "rank", "layout", "flags", "offset", "extent_offset",
                 "stride_offset", "fixed", "direct")
KERNEL_MEMBERS = ("name", "spec", "kernel", "pattern", "policy", "rank", "result_dtype",
                  "nfields", "args_size", "fields", "scratch", "result_kind", "nresult",
                  "result_fields", "err_offset", "flags", "index_names", "finish")


def c_initializer(members, **values):
    """The C initializer of a porta_py.h struct from its members' values given by name (every
    member, no other), in the struct's order."""
    if set(values) != set(members):
        raise ValueError("initializer members %s, not %s" % (sorted(values), list(members)))
    return "{%s}" % ", ".join(str(values[m]) for m in members)


class _Gen(_Scope, _Statements, _Expressions, _Print):
    """The C of one kernel specialisation, device function or reducer method, from its typed
    source (translate_typing.type_source has set ks.locals)."""

    def __init__(self, ks, spec, mode="kernel"):
        _Scope.__init__(self, ks, mode)
        self.spec = spec
        self.layout = {p.name: spec[k] for k, p in enumerate(ks.arrays)}
        self.lines = []
        self.indent = 1
        self.tmp = 0
        self.unknown_name = None  # the first unknown name read (translate_expressions.name)
        self.types, self.parts = ks.types, ks.parts  # typing's (translate_typing._Typer)

    def typed(self, node):
        """The DType typing gave an expression (emission derives none): a node it left
        untyped, where emission found no error, is the translator's own error."""
        return self._table(self.types, node, "type")

    def typed_part(self, node, optional=False):
        """What typing recorded of a node beside its type (record_part); optional: None where
        typing found none (an error emission reports)."""
        return self._table(self.parts, node, "element or steps", optional)

    def _table(self, table, node, what, optional=False):
        hit = table.get(id(node))
        if optional and hit is not None and hit[0] is node:
            return hit[1]
        if hit is None or hit[0] is not node or hit[1] is None:
            raise AssertionError("typing gave no %s to '%s' (%s line %s) of %s, which emission "
                                 "reads" % (what, _describe(node), self.ks.file,
                                            getattr(node, "lineno", "?"), self.ks.name))
        return hit[1]

    def set_local(self, node, name, t):
        """A store to a local: typing has typed it (a wider type here is the translator's own
        error, never the user's)."""
        before = self.locals.get(name)
        _Scope.set_local(self, node, name, t)
        if self.locals[name] is not before:
            raise AssertionError("typing gave the local '%s' of %s the type %s, emission %s"
                                 % (name, self.ks.name, before, self.locals[name]))

    def team_arg(self, node, what):
        p = self.params.get(node.id) if isinstance(node, ast.Name) else None
        if p is None or p.kind != "team":
            raise self.err.at(node, "%s without the team member" % what,
                              "pass the kernel's team member first: %s(t, ...), in a kernel "
                              "whose first argument is t: porta.TeamMember" % what)


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
            # no launch's record here: an integer division by zero gives 0, unreported
            out.append("  porta_py_error_record *const pk_err = NULL;")
            out.append("  (void)pk_err;")
            ret = None
        else:
            ret = ks.ret
            params = ["%s %s" % (p.type.ctype, _cname(p.name)) for p in ks.params]
            params.append("porta_py_error_record *pk_err")  # the launch's error record (porta_py.h)
            out.append("PORTA_INLINE_FUNCTION %s %s(%s) {"
                       % (ret.ctype if ret else "void", ks.cname, ", ".join(params)))
            out.append("  (void)pk_err;")
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
                fixed, lay, r = p.type.fixed, self.layout[n], p.type.rank
                for k in range(r):
                    # an extent the annotation fixes is a constant (the launch checks it), and
                    # so is a stride that only fixed extents make (C order: those after k)
                    pn = _cname(n, "pk")
                    ext = str(fixed[k]) if fixed[k] else "pk_a->%s_n[%d]" % (pn, k)
                    out.append("  const int64_t %s_n%d = %s;" % (pn, k, ext))
                    out.append("  (void)%s_n%d;" % (pn, k))
                    if with_pointers:
                        # (padded layouts R and L: the unit stride only, the others from pk_a)
                        inner = range(k + 1, r) if lay == "C" else range(k) if lay == "F" else None
                        st = "pk_a->%s_s[%d]" % (pn, k)
                        if inner is not None and all(fixed[m] for m in inner):
                            st = str(math.prod(fixed[m] for m in inner))
                        out.append("  const int64_t %s_s%d = %s;" % (pn, k, st))
                        out.append("  (void)%s_s%d;" % (pn, k))
            else:
                out.append("  %s %s = pk_a->%s;" % (p.type.ctype, _cname(n), _cname(n)))
                out.append("  (void)%s;" % _cname(n))

    def generate(self, cname):
        """The C of one kernel specialisation: its argument struct, the kernel, the scratch it
        requests and the porta_py_kernel the extension reads."""
        self.lines = []
        self.indent = 1
        body_lines = self._body()
        args_t = cname + "_args"
        out = self._args_struct(cname, args_t)
        out.append(self._kernel_macro(cname, args_t))
        self._kernel_body(out, body_lines)
        scratch_fn = self._scratch_function(out, cname, args_t)
        # The description the extension reads.
        self._field_descriptors(out, cname, args_t)
        result = self._result_descriptor(out, cname)
        index_names = self._index_names(out, cname)
        out.append("static const porta_py_kernel %s_info = %s;"
                   % (cname, self._kernel_info(cname, args_t, scratch_fn, result, index_names)))
        return out

    def _args_struct(self, cname, args_t):
        """The kernel's comment and its argument struct: the packed arguments of a launch."""
        ks = self.ks
        out = ["/* kernel %s.%s, layouts '%s' (%s:%d) */"
               % (ks.module, ks.name, self.spec, ks.file, ks.tree.lineno)]
        out.append("typedef struct %s {" % args_t)
        for p in ks.fields:
            if p.kind == "array":
                out.append("  %s *%s;" % (p.type.dtype.ctype, _cname(p.name)))
                out.append("  int64_t %s_n[%d];" % (_cname(p.name, "pk"), p.type.rank))
                out.append("  int64_t %s_s[%d];" % (_cname(p.name, "pk"), p.type.rank))
            else:
                out.append("  %s %s;" % (p.type.ctype, _cname(p.name)))
        out.append("  porta_py_error_record *pk_err; /* this launch's error record (porta_py.h) */")
        out.append("} %s;" % args_t)
        return out

    def _kernel_macro(self, cname, args_t):
        """The line opening the kernel: the Porta macro of its pattern and policy."""
        ks = self.ks
        idx = [_cname(p.name) for p in ks.indices]
        r = ks.acc.type.reducer if ks.acc else None
        if ks.team is not None:
            if ks.acc is None:
                return "PORTA_TEAM_FOR(%s, %s, pk_a, pk_team) {" % (cname, args_t)
            return "PORTA_TEAM_REDUCE(%s, %s, pk_a, pk_team, %s, pk_acc) {" % (cname, args_t, r)
        if ks.final is not None:
            return "PORTA_SCAN(%s, %s, pk_a, %s, %s, pk_acc, %s) {" \
                % (cname, args_t, idx[0], r, _cname(ks.final.name))
        if ks.acc is None:
            if ks.rank == 1:
                return "PORTA_FOR(%s, %s, pk_a, %s) {" % (cname, args_t, idx[0])
            return "PORTA_MDFOR%d(%s, %s, pk_a, %s) {" % (ks.rank, cname, args_t, ", ".join(idx))
        if ks.rank == 1:
            return "PORTA_REDUCE(%s, %s, pk_a, %s, %s, pk_acc) {" % (cname, args_t, idx[0], r)
        return "PORTA_MDREDUCE%d(%s, %s, pk_a, %s, %s, pk_acc) {" \
            % (ks.rank, cname, args_t, ", ".join(idx), r)

    def _kernel_body(self, out, body_lines):
        """The kernel's body after its macro: arguments, error record, locals and accumulators,
        then the statements' C."""
        self.prologue(out)
        out.append("  porta_py_error_record *const pk_err = pk_a->pk_err;")
        out.append("  (void)pk_err;")
        out.append("  PORTA_PY_CHECKED_LOCALS")
        for n, t in sorted(self.locals.items()):
            out.append("  %s %s = 0;" % (t.ctype, _cname(n)))
            out.append("  (void)%s;" % _cname(n))
        for n, (acc, _) in sorted(self.accs.items()):
            out.append("  %s_value %s;" % (acc.reducer, _cname(n)))
            out.append("  %s_init(&%s);" % (acc.reducer, _cname(n)))
        out.extend(body_lines)
        out.append("}")
        out.append(BACK_TO_C)

    def _scratch_function(self, out, cname, args_t):
        """The scratch the launch requests, from the packed arguments: the function's name, or
        NULL when the kernel asks for none."""
        if not self.scratch_reqs:
            return "NULL"
        scratch_fn = "%s_scratch" % cname
        out.append("static void %s(const void *pk_v, size_t *pk_req) {" % scratch_fn)
        out.append("  const %s *pk_a = (const %s *)pk_v;" % (args_t, args_t))
        # (a // 0 in an extent is recorded there: the launch raises before the kernel runs)
        out.append("  porta_py_error_record *const pk_err = pk_a->pk_err;")
        out.append("  (void)pk_err;")
        self.prologue(out, with_pointers=False)
        for slot, code in self.scratch_reqs:
            out.append("  pk_req[%d] += porta_scratch_size(%s);" % (slot, code))
        out.append("}")
        return scratch_fn

    def _field_descriptors(self, out, cname, args_t):
        """The porta_py_field of every argument, with the arrays' fixed extents and direct
        index masks."""
        ks = self.ks
        for p in ks.fields:
            if p.kind == "array" and any(p.type.fixed):
                out.append("static const int64_t %s_%s_fixed[] = {%s};"
                           % (cname, _cname(p.name, "pk"), ", ".join(map(str, p.type.fixed))))
        direct = direct_index_masks(ks)  # checked against the launch range at every launch
        for n, masks in sorted(direct.items()):
            out.append("static const uint8_t %s_%s_direct[] = {%s};"
                       % (cname, _cname(n, "pk"), ", ".join(map(str, masks))))
        out.append("static const porta_py_field %s_fields[] = {" % cname)
        for p in ks.fields:
            n, pn = p.name, _cname(p.name, "pk")
            if p.kind == "array":
                out.append("  %s," % c_initializer(
                    FIELD_MEMBERS, name='"%s"' % n, kind="PORTA_PY_ARRAY",
                    dtype=p.type.dtype.code, rank=p.type.rank,
                    layout=LAYOUT_LETTERS.index(self.layout[n]),
                    flags="PORTA_PY_WRITTEN" if n in ks.written else "0",
                    offset="(int32_t)offsetof(%s, %s)" % (args_t, _cname(n)),
                    extent_offset="(int32_t)offsetof(%s, %s_n)" % (args_t, pn),
                    stride_offset="(int32_t)offsetof(%s, %s_s)" % (args_t, pn),
                    fixed="%s_%s_fixed" % (cname, pn) if any(p.type.fixed) else "NULL",
                    direct="%s_%s_direct" % (cname, pn) if n in direct else "NULL"))
            else:
                out.append("  %s," % _scalar_field(n, p.type, "%s, %s" % (args_t, _cname(n))))
        if not ks.fields:
            out.append("  %s," % c_initializer(
                FIELD_MEMBERS, name="NULL", kind=0, dtype=0, rank=0, layout=0, flags=0, offset=0,
                extent_offset=0, stride_offset=0, fixed="NULL", direct="NULL"))
        out.append("};")

    def _result_descriptor(self, out, cname):
        """How the launch returns the reduction's value: (result kind, number of fields, their
        porta_py_field table), the table written to `out`."""
        ks = self.ks
        if ks.acc is None:
            return "PORTA_PY_RESULT_NONE", 0, "NULL"
        fields = ks.acc.type.fields
        if not fields:
            return "PORTA_PY_RESULT_SCALAR", 0, "NULL"
        r = ks.acc.type.reducer
        out.append("static const porta_py_field %s_result[] = {" % cname)
        for f, t in fields:
            cf = _cname(f) if ks.acc.type.custom else f  # (Porta's minloc: val, loc)
            out.append("  %s," % _scalar_field(f, t, "%s_value, %s" % (r, cf)))
        out.append("};")
        result_kind = "PORTA_PY_RESULT_STRUCT" if ks.acc.type.custom else "PORTA_PY_RESULT_LOC"
        return result_kind, len(fields), "%s_result" % cname

    def _index_names(self, out, cname):
        """The names of the kernel's index arguments (for its messages): the table's name, or
        NULL for a kernel without one."""
        if not self.ks.indices:
            return "NULL"
        index_names = "%s_indices" % cname
        out.append("static const char *const %s[] = {%s};"
                   % (index_names, ", ".join('"%s"' % p.name for p in self.ks.indices)))
        return index_names

    def _kernel_info(self, cname, args_t, scratch_fn, result, index_names):
        """The initializer of the kernel's porta_py_kernel, every member by name."""
        ks = self.ks
        result_kind, nresult, result_fields = result
        return c_initializer(
            KERNEL_MEMBERS, name='"%s.%s"' % (ks.module, ks.name), spec='"%s"' % self.spec,
            kernel="&" + cname,
            pattern="PORTA_PATTERN_SCAN" if ks.final else
            ("PORTA_PATTERN_REDUCE" if ks.acc else "PORTA_PATTERN_FOR"),
            policy="PORTA_POLICY_TEAM" if ks.team else
            ("PORTA_POLICY_RANGE" if ks.rank == 1 else "PORTA_POLICY_MDRANGE"),
            rank=ks.rank, result_dtype=ks.acc.type.dtype.code if ks.acc and ks.acc.type.dtype
            else -1,
            nfields=len(ks.fields), args_size="(int32_t)sizeof(%s)" % args_t,
            fields="%s_fields" % cname, scratch=scratch_fn, result_kind=result_kind,
            nresult=nresult, result_fields=result_fields,
            err_offset="(int32_t)offsetof(%s, pk_err)" % args_t,
            flags="PORTA_PY_KERNEL_FLAGS(%s)" % ("PORTA_PY_MAY_RAISE" if _raises(ks) else "0"),
            index_names=index_names,
            finish="porta_py_xsum_finish" if ks.acc and ks.acc.type.exact else "NULL")

    def _body(self):
        """The body's C (every check on the way; an unknown name last, as it may be a local
        whose assignment has an error of its own)."""
        self.lines = []
        self.indent = 1
        self.unknown_name = None
        self._reset_body()
        self.block(self.body_statements())
        if self.unknown_name is not None:
            raise self.unknown_name
        return self.lines


def _scalar_field(name, dtype, where):
    """The porta_py_field of a scalar (an argument, or a field of a reduction's value) at
    offsetof(`where`)."""
    return c_initializer(FIELD_MEMBERS, name='"%s"' % name, kind="PORTA_PY_SCALAR",
                         dtype=dtype.code, rank=0, layout=0, flags=0,
                         offset="(int32_t)offsetof(%s)" % where, extent_offset=-1,
                         stride_offset=-1, fixed="NULL", direct="NULL")


def _raises(ks):
    """Whether a kernel (or a device function it calls, at any depth) divides integers by a
    divisor known only at run time: its launches then check the error record."""
    seen, todo = set(), [ks]
    while todo:
        s = todo.pop()
        if getattr(s, "raises", False):
            return True
        for fs in s.funcs.values():
            if fs.cname not in seen:
                seen.add(fs.cname)
                todo.append(fs)
    return False

