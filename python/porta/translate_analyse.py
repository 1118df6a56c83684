"""The analysis of a decorated function (translate.py's first step): its source read with
`ast` and checked against the typed subset kernels are written in, then typed
(translate_typing) and emitted once (translate_emit) so that every error shows now, not at
compile time; KernelSource for kernels, FunctionSource for @porta.function (DeviceFunction)
and a custom reducer's init / join (ReducerSource)."""
import ast
import copy
import types as _pytypes

from . import device as D
from . import types as T
from .translate_emit import _Gen
from .translate_source import (
    FunctionSource,
    KernelSource,
    Param,
    TranslationError,
    _Errors,
    _acc_type,
    _c_ident,
    _cname,
    _load,
    _resolve_annotation)
from .translate_typing import type_source



class DeviceFunction:
    """A function kernels (and other device functions) call: @porta.function. Called from
    Python it runs as Python."""

    _porta_function = True  # what translate_expressions calls as a device function

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
            src.structs[names[0]] = ("pk_self->", fdict, True, True)
            if nargs == 2:
                src.structs[names[1]] = ("pk_other->", fdict, False, True)
            type_source(src, "reducer")
            _Gen(src, "", mode="reducer").generate_function()  # its errors now
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
    args = list(a.args)
    selfname = None
    if owner is not None:
        selfname = _self_argument(err, fn, fdef, args)
    params = _argument_params(err, fn, args)
    if owner is not None:
        params += _field_params(err, fn, fdef, owner, {p.name for p in params})
    _check_kernel_form(err, fdef, args, params)
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
    # Type the locals, then emit once: every error now, not at compile time.
    type_source(ks)
    _Gen(ks, "C" * len(ks.arrays)).generate("pk_check")
    return ks


def _self_argument(err, fn, fdef, args):
    """A kernel method's self: its name, taken off the front of `args` (the fields are
    read through it)."""
    if not args or args[0].arg in getattr(fn, "__annotations__", {}):
        raise err.at(fdef, "a kernel method without self",
                     "write def %s(self, i: int, ...): the fields are self.x" % fn.__name__)
    return args.pop(0).arg


def _argument_params(err, fn, args):
    """The kernel's arguments as Params, by their annotations: indices (the leading ints) or
    a team member first, then arrays, scalars, an accumulator and a scan's final flag."""
    anns = getattr(fn, "__annotations__", {})
    params = []
    leading = True
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
    return params


def _field_params(err, fn, fdef, owner, taken):
    """A kernel method's class fields as Params (arrays and scalars), after its arguments
    (`taken`: their names, which no field may reuse)."""
    params = []
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
    return params


def _check_kernel_form(err, fdef, args, params):
    """The kernel's arguments together make one launch form: indices or a team member, at
    most one accumulator, a scan over a range, an exact sum outside teams and scans."""
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
    exact = next((p for p in params if p.kind == "acc" and p.type.exact), None)
    if exact is not None and (team or final is not None):
        raise err.at(next(x for x in args if x.arg == exact.name),
                     "the exact sum '%s: %r' in a %s" % (exact.name, exact.type,
                                                          "team kernel" if team else "scan"),
                     "porta.ExactSum reduces range and MDRangePolicy kernels (def k(i: int, "
                     "acc: porta.ExactSum, ...) launched by porta.parallel_reduce); a %s "
                     "reduces with porta.Sum[porta.f64]" % ("team kernel" if team else "scan"))


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
    type_source(fs, "function")
    _Gen(fs, "", mode="function").generate_function()  # its errors now
    return fs
