"""Statements of a Python kernel as C (a part of translate_emit._Gen: assignments, control flow,
parallel loops and their accumulators, team scratch, stores to arrays)."""
import ast

from . import types as T
from . import translate_intrinsics as I
from .translate_source import (
    VOID,
    _acc_type,
    _cname,
    _describe,
    _int_literal,
    _resolve_annotation)


class _Statements:
    """Statement generation for translate_emit._Gen (uses its state: self.err, self.emit, ...)."""

    def stmt(self, s):
        """The C of one statement, after its #line: each kind of statement to its own step."""
        self.line(s)
        if isinstance(s, ast.Assign):
            self.assign_stmt(s)
        elif isinstance(s, ast.AnnAssign):
            self.ann_assign_stmt(s)
        elif isinstance(s, ast.AugAssign):
            self.aug_assign_stmt(s)
        elif isinstance(s, ast.If):
            self.if_stmt(s)
        elif isinstance(s, ast.While):
            self.while_stmt(s)
        elif isinstance(s, ast.For):
            self.for_range(s)
        elif isinstance(s, ast.Break):
            self.emit("break;")
        elif isinstance(s, ast.Continue):
            self.emit("continue;")
        elif isinstance(s, ast.Pass):
            self.emit(";")
        elif isinstance(s, ast.Return):
            self.return_stmt(s)
        elif isinstance(s, ast.Expr):
            self.expr_stmt(s)
        else:
            raise self.unsupported(s)

    def assign_stmt(self, s):
        """a = value, a[i] = value, or a team scratch array's declaration."""
        if len(s.targets) != 1 or isinstance(s.targets[0], (ast.Tuple, ast.List)):
            raise self.err.at(s, "assignment to several targets",
                              "assign one name at a time (a = 1 then b = 1)")
        if isinstance(s.value, ast.Call) and \
                self.intrinsic(s.value.func) in I.SCRATCH:
            self.scratch_decl(s.targets[0], s.value)
            return
        code, t = self.expr(s.value)
        self.store(s.targets[0], code, t, s)

    def ann_assign_stmt(self, s):
        """a: type (= value): a typed local, or an accumulator's declaration."""
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

    def aug_assign_stmt(self, s):
        """a += value (an exact sum's addition has its own C)."""
        if self.exact_sum(s.target) is not None:
            self.exact_add(s)
            return
        cur, ct = self.expr(s.target, store_ok=True)
        code, t = self.binop(s.op, cur, ct, *self.expr(s.value), node=s)
        self.store(s.target, code, t, s)

    def if_stmt(self, s):
        """if / else, its test kept as a guard of the statements under it."""
        c, _ = self.expr(s.test)
        self.emit("if (%s) {" % c)
        self.guards.append(s.test)
        try:
            self.nested(s.body)
            if s.orelse:
                self.emit("} else {")
                self.nested(s.orelse)
        finally:
            self.guards.pop()
        self.emit("}")

    def while_stmt(self, s):
        """while (no else part: C has none)."""
        if s.orelse:
            raise self.err.at(s, "while ... else", "move the else part after the loop")
        c, _ = self.expr(s.test)
        self.emit("while (%s) {" % c)
        self.nested(s.body)
        self.emit("}")

    def return_stmt(self, s):
        """return: a device function's value in its return type; kernels return nothing."""
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

    def expr_stmt(self, s):
        """An expression statement: a call (print, an atomic ...) or a value dropped; a string
        is a comment."""
        if isinstance(s.value, ast.Constant) and isinstance(s.value.value, str):
            return  # a string statement (a comment)
        if isinstance(s.value, ast.Call):
            code, t = self.call(s.value, stmt=True)
        else:
            code, t = self.expr(s.value)
        self.emit("%s;" % code if t is VOID else "(void)(%s);" % code)

    def nested(self, body):
        self.indent += 1
        self.depth += 1
        self.block(body)
        self.depth -= 1
        self.indent -= 1

    # ---- the exact sum: an accumulator that is only added to ----
    def exact_sum(self, target):
        """The name of the kernel's exact-sum accumulator (porta.ExactSum) that `target` is, or
        None."""
        p = self.params.get(target.id) if isinstance(target, ast.Name) else None
        return target.id if p is not None and p.kind == "acc" and p.type.exact else None

    def exact_add(self, s):
        """acc += term / acc -= term on an exact sum: porta_xsum_f64_add(acc, +-term), the term
        converted to a double first (negation is exact)."""
        name = s.target.id
        if not isinstance(s.op, (ast.Add, ast.Sub)):
            raise self.err.at(s, "'%s' on the exact sum '%s'" % (_describe(s), name),
                              "an exact sum (porta.ExactSum) is only added to: write "
                              "%s += term or %s -= term" % (name, name))
        code, t = self.expr(s.value)
        if t is None or t is VOID:
            raise self.err.at(s.value, "adding '%s' to the exact sum '%s'"
                              % (_describe(s.value), name),
                              "add a number: %s += x[i] * y[i]" % name)
        sign = "-" if isinstance(s.op, ast.Sub) else ""
        self.emit("porta_xsum_f64_add(pk_acc, %s(double)(%s));" % (sign, code))

    # ---- teams: accumulators of nested reductions, scratch ----
    def acc_decl(self, s, acc):
        name = s.target.id
        if self.mode != "kernel" or self.ks.team is None:
            raise self.err.at(s, "the accumulator '%s: %r'" % (name, acc),
                              "accumulators of nested reductions belong in team kernels; a "
                              "range kernel reduces through its accumulator argument")
        if acc.exact:
            raise self.err.at(s, "the exact sum '%s: %r' of a nested reduction" % (name, acc),
                              "Porta's exact sum has no team collectives (its value does not fit "
                              "a team's slot): reduce the nested loop with porta.Sum[porta.f64], "
                              "or sum exactly in a range or MDRangePolicy kernel whose "
                              "accumulator argument is porta.ExactSum")
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
            self.structs[name] = ("%s." % _cname(name), dict(acc.fields), True,
                                  acc.custom is not None)

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
        dt = self.typed_part(call, optional=True)  # its element type
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
        pn = _cname(name, "pk")
        for k, c in enumerate(codes):
            self.emit("const int64_t %s_n%d = %s;" % (pn, k, c))
        count = " * ".join("%s_n%d" % (pn, k) for k in range(len(codes)))
        alloc, slot = I.SCRATCH[kind]
        self.emit("%s *const %s = (%s *)%s(pk_team, %d, (size_t)(%s) * sizeof(%s));"
                  % (dt.ctype, _cname(name), dt.ctype, alloc, level, count, dt.ctype))
        self.emit("(void)%s;" % _cname(name))
        self.scratch[name] = (dt, len(codes))
        self.scratch_reqs.append((slot + level, "(size_t)(%s) * sizeof(%s)"
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
        if isinstance(it, ast.Call) and self.intrinsic(it.func) in I.RANGES:
            return self.for_nested(s, self.intrinsic(it.func))
        simd = isinstance(it, ast.Call) and self.intrinsic(it.func) == "simd_range"
        if simd and (it.keywords or not 1 <= len(it.args) <= 2):
            raise self.err.at(it, "porta.simd_range with %s" % (
                "keywords" if it.keywords else "%d arguments" % len(it.args)),
                "write porta.simd_range(end) or porta.simd_range(begin, end) (no step)")
        if not simd and not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name)
                             and it.func.id == "range" and not it.keywords
                             and 1 <= len(it.args) <= 3):
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
            lit = self.const(it.args[2])
            self.emit("const int64_t %s = %s;" % (st, step[0]))
            if lit is not None and lit == 0:
                raise self.err.at(it.args[2], "range() with step 0", "use a non-zero step")
            if lit is not None:
                cond = "%s %s %s" % (k, "<" if lit > 0 else ">", e)
            else:
                cond = "(%s > 0 ? %s < %s : %s > %s)" % (st, k, e, k, e)
            inc = "%s += %s" % (k, st)
        if simd:
            self.emit("PORTA_PY_SIMD(%s)" % self.simd_clauses(s))
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

    def simd_clauses(self, s):
        """The reduction clauses of a porta.simd_range loop: every local the body updates with
        += / -= (sum) or *= (product), which the body may not read or assign otherwise (each
        lane keeps its own partial value, combined after the loop)."""
        ops = {}
        for n in ast.walk(ast.Module(body=s.body, type_ignores=[])):
            if isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name):
                name = n.target.id
                op = {ast.Add: "+", ast.Sub: "+", ast.Mult: "*"}.get(type(n.op))
                if name in self.accs or name not in self.locals or op is None:
                    what = ("the accumulator '%s'" % name if name in self.accs or
                            name not in self.locals else "'%s' updated with %s" % (
                                name, type(n.op).__name__))
                    raise self.err.at(n, "%s in porta.simd_range" % what,
                                      "sum into a local with += (or multiply with *=) inside "
                                      "the loop, and use it after the loop")
                if ops.setdefault(name, op) != op:
                    raise self.err.at(n, "both a sum and a product into '%s' in "
                                      "porta.simd_range" % name,
                                      "use one local for each")
        for n in ast.walk(ast.Module(body=s.body, type_ignores=[])):
            if isinstance(n, ast.Name) and n.id in ops and not isinstance(n.ctx, ast.Store):
                raise self.err.at(n, "'%s' read inside the porta.simd_range loop that sums "
                                  "into it" % n.id,
                                  "read it after the loop (inside, each lane holds only a part)")
            if isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id in ops
                                                 for t in n.targets):
                raise self.err.at(n, "an assignment to '%s' inside the porta.simd_range loop "
                                  "that sums into it" % n.targets[0].id,
                                  "only update it with += (or *=) in the loop")
        groups = {}
        for name, op in sorted(ops.items()):
            groups.setdefault(op, []).append(_cname(name))
        return " ".join("reduction(%s: %s)" % (op, ", ".join(v)) for op, v in groups.items())

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
                      % (I.RANGE_REDUCE[rname], k, b, e, acc[0].reducer, _cname(updated[0])))
        else:
            self.emit("%s(pk_team, %s, %s, %s) {" % (I.RANGES[rname], k, b, e))
        self.indent += 1
        self.emit("%s = %s;" % (_cname(name), k))
        self.depth += 1
        self.block(s.body)
        self.depth -= 1
        self.indent -= 1
        self.emit("}")
        self.indent -= 1
        self.emit("}")

    def check_acc_assignment(self, name, node):
        """`acc = value` sets one thread's partial value, so it is right only where the value
        reads the accumulator (acc = max(acc, x[i])) or an if around it compares with it (if
        x[i] > acc: acc = x[i]); else the result depends on how many partials the back end
        makes (acc = 1.0 gave 32.0 on 1 thread and 64.0 on 2)."""
        value = getattr(node, "value", None)
        if not isinstance(node, (ast.Assign, ast.AnnAssign)) or value is None:
            return

        def reads(tree):
            return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(tree))

        if reads(value) or any(reads(g) for g in self.guards):
            return
        raise self.err.at(node, "assigning the accumulator '%s' a value that does not depend on "
                                "it" % name,
                          "a reduction combines one partial value per thread: update it with "
                          "%s += ..., %s = max(%s, ...), or under an if that compares with it"
                          % (name, name, name))

    def store(self, target, code, t, node):
        if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) \
                and target.value.id in self.structs:
            prefix, fields, writable, mangled = self.structs[target.value.id]
            if target.attr not in fields:
                raise self.err.at(target, "the field '%s' of '%s'" % (target.attr,
                                                                      target.value.id),
                                  "its fields are %s" % ", ".join(fields))
            if not writable:
                raise self.err.at(target, "assignment to '%s'" % _describe(target),
                                  "join(self, other) reads other and updates self")
            ft = self.typed(target)
            field = _cname(target.attr) if mangled else target.attr
            self.emit("%s%s = (%s)(%s);" % (prefix, field, ft.ctype, code))
            return
        if isinstance(target, ast.Name):
            name = target.id
            p = self.params.get(name)
            if p is not None and p.kind == "acc":
                if p.type.exact:
                    raise self.err.at(target, "assignment to the exact sum '%s'" % name,
                                      "an exact sum (porta.ExactSum) starts at 0 and is only "
                                      "added to: %s += term or %s -= term" % (name, name))
                if p.type.fields:
                    raise self.err.at(target, "assignment to the accumulator '%s'" % name,
                                      "update its fields: %s"
                                      % ", ".join("%s.%s" % (name, f) for f, _ in p.type.fields))
                self.check_acc_assignment(name, node)
                self.emit("*pk_acc = (%s)(%s);" % (self.typed(target).ctype, code))
                return
            if name in self.accs:
                acc = self.accs[name][0]
                if acc.fields:
                    raise self.err.at(target, "assignment to the accumulator '%s'" % name,
                                      "update its fields: %s"
                                      % ", ".join("%s.%s" % (name, f) for f, _ in acc.fields))
                self.check_acc_assignment(name, node)
                self.emit("%s = (%s)(%s);" % (_cname(name), self.typed(target).ctype, code))
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
                self.set_local(target, name, t)  # checks typing's type of the local
                lt = self.locals[name]
            else:
                lt = self.typed(target)
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
