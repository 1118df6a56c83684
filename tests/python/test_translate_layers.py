"""The translator's structure (docs/design-notes.md, "Python front end"): its modules import
each other without a circle (no import inside a function either, the way one used to hide),
each stays within 650 lines and each function within 80 (a longer one is split into named
steps), and the descriptors it fills by name list porta_py.h's members in the header's
order."""
import ast
import os
import re

import pytest

import porta
from porta import translate, translate_emit, translate_typing

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PACKAGE = os.path.join(ROOT, "python", "porta")
TRANSLATOR = sorted(f[:-3] for f in os.listdir(PACKAGE)
                    if f.startswith("translate") and f.endswith(".py"))


def _imports(module):
    """The porta modules `module` imports: [(name, at module level)]."""
    with open(os.path.join(PACKAGE, module + ".py")) as fh:
        tree = ast.parse(fh.read())
    top = set(map(id, tree.body))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            names = [node.module] if node.module else [a.name for a in node.names]
            out += [(n, id(node) in top) for n in names]
    return out


def find_cycle(graph):
    """A list of modules that import each other in a circle, or None."""
    state = {}

    def visit(m, path):
        state[m] = "open"
        for n in graph.get(m, ()):
            if state.get(n) == "open":
                return path[path.index(n):] + [n]
            if n not in state:
                found = visit(n, path + [n])
                if found:
                    return found
        state[m] = "done"
        return None

    for m in sorted(graph):
        if m not in state:
            found = visit(m, [m])
            if found:
                return found
    return None


def test_translator_modules_import_without_a_circle():
    assert len(TRANSLATOR) >= 8, TRANSLATOR
    graph = {}
    for m in TRANSLATOR + ["device", "types"]:
        imports = _imports(m)
        lazy = [n for n, top in imports if not top]
        assert not lazy, "%s imports %s inside a function" % (m, lazy)
        graph[m] = {n for n, _ in imports}
    assert find_cycle(graph) is None, find_cycle(graph)


def test_cycle_finder_finds_a_circle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None


@pytest.mark.parametrize("module", TRANSLATOR)
def test_translator_module_size(module):
    with open(os.path.join(PACKAGE, module + ".py")) as fh:
        assert len(fh.readlines()) <= 650


MAX_FUNCTION_LINES = 80  # a longer function is split into named steps (issue 69)


def _long_functions(module, limit=MAX_FUNCTION_LINES):
    """The functions and methods of `module` longer than `limit` lines, from def to their last
    line: ["name (line N, M lines)"]."""
    with open(os.path.join(PACKAGE, module + ".py")) as fh:
        tree = ast.parse(fh.read())
    out = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            lines = node.end_lineno - node.lineno + 1
            if lines > limit:
                out.append("%s (line %d, %d lines)" % (node.name, node.lineno, lines))
    return out


def test_translator_functions_are_short():
    long = ["%s.%s" % (m, f) for m in TRANSLATOR for f in _long_functions(m)]
    assert not long, "functions over %d lines (split them into named steps): %s" \
        % (MAX_FUNCTION_LINES, ", ".join(long))


def test_the_length_check_finds_a_long_function(tmp_path, monkeypatch):
    body = "".join("        x = %d\n" % k for k in range(80))
    (tmp_path / "translate_fake.py").write_text(
        "def short():\n    pass\n\n\nclass C:\n    def long(self):\n" + body)
    monkeypatch.setattr(__import__(__name__), "PACKAGE", str(tmp_path))
    assert _long_functions("translate_fake") == ["long (line 6, 81 lines)"]


def _members(header, struct):
    """The member names of `typedef struct NAME {...}` in a C header, in order."""
    body = re.search(r"typedef struct %s \{(.*?)\n\} %s;" % (struct, struct), header, re.S).group(1)
    body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
    names = []
    for decl in body.split(";")[:-1]:
        m = re.search(r"\(\*(\w+)\)\(", decl) or re.search(r"(\w+)\s*$", decl.strip())
        names.append(m.group(1))
    return tuple(names)


def test_descriptors_are_filled_by_the_headers_member_names():
    with open(os.path.join(PACKAGE, "include", "porta_py.h")) as fh:
        header = fh.read()
    assert _members(header, "porta_py_field") == translate_emit.FIELD_MEMBERS
    assert _members(header, "porta_py_kernel") == translate_emit.KERNEL_MEMBERS


def test_an_initializer_needs_every_member_by_name():
    members = ("a", "b")
    assert translate_emit.c_initializer(members, b=2, a=1) == "{1, 2}"
    with pytest.raises(ValueError):
        translate_emit.c_initializer(members, a=1)
    with pytest.raises(ValueError):
        translate_emit.c_initializer(members, a=1, b=2, c=3)


def _loop_carried(i: int, x: porta.f64[:]):
    s = 0
    for k in range(3):
        s = s + x[k]  # s is read before the loop makes it a float: typing's fixed point
    x[i] = s


def test_typing_then_emission_once(monkeypatch):
    """Typing writes no C; analyse emits the kernel's statements once (it used to run the C
    emitter until the locals' types settled, then once more)."""
    calls = []
    original = translate_emit._Gen.stmt

    def stmt(self, s):
        calls.append(s.lineno)
        return original(self, s)

    monkeypatch.setattr(translate_emit._Gen, "stmt", stmt)
    ks = translate.analyse(_loop_carried)
    assert ks.locals == {"s": porta.f64, "k": porta.i64}
    assert len(calls) == 4, calls  # s = 0, for, its body, x[i] = s: each once


def test_emission_stops_where_typing_missed_a_local(monkeypatch):
    monkeypatch.setattr(translate_typing._Typer, "store", lambda self, target, t: None)
    with pytest.raises(AssertionError, match="typing gave the local 's'"):
        translate.analyse(_loop_carried)


# Emission reads every expression's type from typing's table (ks.types, ks.parts) and derives
# none: the rules live in translate_typing and translate_intrinsics only.
EMISSION = ("translate_emit", "translate_expressions", "translate_statements", "translate_print")
TYPING_RULES = ("_promote", "binop_type", "builtin_type", "minmax_steps", "name_type",
                "subscript_type", "element_type", "attribute_type", "call_type", "_Typer",
                "type_source")


def _rule_uses(module):
    """The typing rules `module` names, and its (code, type) returns whose type is a constant
    (T.f64, VOID ...) rather than typing's: [(line, what)]."""
    with open(os.path.join(PACKAGE, module + ".py")) as fh:
        tree = ast.parse(fh.read())
    out = []
    for node in ast.walk(tree):
        name = node.id if isinstance(node, ast.Name) else \
            node.attr if isinstance(node, ast.Attribute) else None
        if name in TYPING_RULES:
            out.append((node.lineno, name))
        if isinstance(node, ast.alias) and node.name in TYPING_RULES:
            out.append((0, "import " + node.name))
        if isinstance(node, ast.Return) and isinstance(node.value, ast.Tuple) \
                and len(node.value.elts) == 2:
            t = node.value.elts[1]
            if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) \
                    and t.value.id == "T" or isinstance(t, ast.Name) and t.id == "VOID":
                out.append((node.lineno, "returns the type " + ast.unparse(t)))
    return out


def test_the_rules_are_typings():
    for rule in ("binop_type", "name_type", "subscript_type", "element_type", "call_type"):
        assert hasattr(translate_typing._Typer, rule), rule
    assert not hasattr(translate_emit._Gen, "binop_type")  # _Scope has no type rule
    from porta import translate_intrinsics
    for rule in ("_promote", "builtin_type", "minmax_steps"):
        assert hasattr(translate_intrinsics, rule), rule


@pytest.mark.parametrize("module", EMISSION)
def test_emission_derives_no_type(module):
    assert _rule_uses(module) == []


def test_the_check_finds_a_derived_type(tmp_path, monkeypatch):
    (tmp_path / "translate_fake.py").write_text(
        "from .translate_intrinsics import _promote\n"
        "def f(self, e, a, b):\n"
        "    return 'x', T.f64\n")
    monkeypatch.setattr(__import__(__name__), "PACKAGE", str(tmp_path))
    assert _rule_uses("translate_fake") == [(0, "import _promote"), (3, "returns the type T.f64")]


def _typed(i: int, x: porta.f64[:], y: porta.f32[:]):
    a = x[i] * 2.0 + y[i]
    y[i] = min(a, y[i], 3) if i > 0 else -a


@pytest.mark.parametrize("kind", ["BinOp", "Subscript", "Call", "IfExp", "UnaryOp"])
def test_emission_stops_where_typing_left_an_expression_untyped(monkeypatch, kind):
    """Leave one kind of node out of typing's table: emission, which has no rule of its own,
    stops with the translator's own error naming the node."""
    record = translate_typing._Typer.record

    def partial(self, node, t):
        if type(node).__name__ != kind:
            record(self, node, t)

    monkeypatch.setattr(translate_typing._Typer, "record", partial)
    with pytest.raises(AssertionError, match="typing gave no type to '.*' \\(.*line \\d+\\) "
                                             "of _typed"):
        translate.analyse(_typed)


def test_typing_records_every_expression_emission_reads():
    ks = translate.analyse(_typed)
    types = {ast.unparse(n): t for n, t in ks.types.values() if t is not None}
    assert types["x[i] * 2.0 + y[i]"] is porta.f64
    assert types["min(a, y[i], 3)"] is porta.f64
    assert types["-a"] is porta.f64
    assert types["i > 0"] is porta.boolean
