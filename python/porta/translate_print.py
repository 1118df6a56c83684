"""print(...) in kernels as one printf per call (a part of the translator's emission,
translate_emit._Gen): numbers, string constants, f-strings of them, sep= and end=."""
import ast
import re

from . import types as T
from .translate_source import VOID, _describe

# print(...) in kernels: printf; on the host each print is one printf, flushed, and a float is
# written as Python writes it (into a buffer of 40 chars): a double as Python's repr, a float32
# as the installed NumPy's str of np.float32 (f32_positional_exponent); a GPU's printf writes
# floats with %.17g (f32: %.9g).
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
/* A float as Python writes it: the fewest digits that read back as the same number,
 * positional (with .0 when integral), else 1e+20. A double as Python's repr: positional where
 * those digits' exponent is -4 to 15. A float32 as NumPy's str of np.float32: positional
 * where 1e-4 <= |v| < PK_F32_POSITIONAL_MAX (the installed NumPy's: 1e16 before NumPy 2.3,
 * 1e6 from it), or v is 0. */
static inline const char *pk_print_float(char *buf, double v, int single) {
  char e[40], dig[20] = "";
  int p = 1, nd = 0, exp10, decpt, positional;
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
  positional = single ? v == 0 || (fabs(v) >= 1e-4 && fabs(v) < PK_F32_POSITIONAL_MAX)
                      : decpt > -4 && decpt <= 16;
  if (positional) {
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


def f32_positional_exponent():
    """k where the installed NumPy's str(np.float32(x)) turns scientific at 10**k: 16 before
    NumPy 2.3 (np.float32(1677721.6) prints 1677721.6), 6 from it (1.6777216e+06), as its
    print options are now (legacy='2.2' gives 16 again). Asked of NumPy itself, each time a
    module with a print is generated, so the kernel prints what Python prints beside it."""
    import numpy as np

    for k in range(1, 17):
        if "e" in str(np.float32(10.0 ** k)):
            return k
    return 16


def c_print_helpers(exponent=None):
    """The C of print(): C_PRINT_HELPERS with the float32 cutoff (f32_positional_exponent,
    or `exponent`) defined first, so modules made for other NumPy versions differ."""
    k = f32_positional_exponent() if exponent is None else exponent
    return ("#define PK_F32_POSITIONAL_MAX 1e%d /* NumPy's str(np.float32): 1e+%02d */\n"
            % (k, k)) + C_PRINT_HELPERS


class _Print:
    """print() for translate_emit._Gen (uses its state: self.err, self.expr, self.void ...)."""

    def print_call(self, e, stmt):
        """print(...): one printf of the whole line (so threads' lines do not mix), flushed on
        the host; numbers, string constants and f-strings of them, sep= and end=."""
        if not stmt:
            raise self.err.at(e, "the value of print()",
                              "print() returns nothing: call it as a statement")
        sep, end = " ", "\n"
        for kw in e.keywords:
            v = kw.value
            const = v.value if isinstance(v, ast.Constant) else ...
            if kw.arg in ("sep", "end"):
                if const is not None and not isinstance(const, str):
                    raise self.err.at(e, "print's %s=%s" % (kw.arg, _describe(v)),
                                      "give sep and end as string constants: sep=', '")
                if const is not None:
                    sep, end = (const, end) if kw.arg == "sep" else (sep, const)
            elif kw.arg == "flush" and const is not ...:
                pass  # the host flushes every print
            elif kw.arg == "file" and const is None:
                pass  # file=None is standard output
            else:
                raise self.err.at(e, "print(..., %s=...)" % (kw.arg or "**"),
                                  "kernels print to standard output with print(a, b, sep=' ', "
                                  "end='\\n')")
        fmt, args = [], []  # fmt: printf's format as text and (macro name,) (PK_F64 ...)
        for k, a in enumerate(e.args):
            if k:
                fmt.append(_printf_text(sep))
            if isinstance(a, ast.JoinedStr):
                for part in a.values:
                    if isinstance(part, ast.Constant):
                        fmt.append(_printf_text(part.value))
                    else:
                        self.print_value(part.value, part, fmt, args, a)
            else:
                self.print_value(a, None, fmt, args)
        fmt.append(_printf_text(end))
        literal = []  # adjacent text in one string literal
        for piece in fmt:
            if isinstance(piece, tuple) or not literal or isinstance(literal[-1], tuple):
                literal.append(piece)
            else:
                literal[-1] += piece
        text = " ".join(x[0] if isinstance(x, tuple) else '"%s"' % x for x in literal)
        if len(args) > 32:
            raise self.err.at(e, "print of %d values" % len(args),
                              "print at most 32 values at once (a GPU's printf takes 32)")
        if text == '""' and not args:  # print(end=""): nothing to write
            return self.void(e, "print()", stmt, "(void)0")
        self.ks.prints = True  # the module includes the print helpers (generate_module)
        nbuf = sum(a.startswith("PK_PRINT_F") for a in args)
        buf = ""
        if nbuf:
            self.tmp += 1
            buf = "char pk_pb%d[%d][40]; " % (self.tmp, nbuf)
            k = 0
            for j, a in enumerate(args):
                if a.startswith("PK_PRINT_F"):
                    args[j] = a.replace("(pk_pb, ", "(pk_pb%d[%d], " % (self.tmp, k), 1)
                    k += 1
        return self.void(e, "print()", stmt, "do { %sprintf(%s); PK_PRINT_FLUSH(); } while (0)"
                         % (buf, ", ".join([text] + args)))

    def print_value(self, a, fv, fmt, args, fstring=None):
        """Adds one printed value (a in print(a) or f"{a}": fv the FormattedValue, fstring
        the f-string) to the printf format pieces and arguments."""
        if isinstance(a, ast.Constant) and isinstance(a.value, str) and fv is None:
            fmt.append(_printf_text(a.value))
            return
        if isinstance(a, (ast.Name, ast.Attribute)) and isinstance(self.resolve(a), str) \
                and fv is None and not (isinstance(a, ast.Name) and a.id in self.assigned):
            fmt.append(_printf_text(self.resolve(a)))  # a module's string constant
            return
        if isinstance(a, ast.Starred):
            raise self.err.at(a, "print(*...)", "print each value as its own argument")
        c, t = self.expr(a)
        if t is VOID:
            raise self.err.at(a, "printing '%s', which has no value" % _describe(a),
                              "print numbers")
        spec = ""
        if fv is not None and fv.format_spec is not None:
            spec = "".join(p.value if isinstance(p, ast.Constant) else "\0"
                           for p in fv.format_spec.values)
        m = re.fullmatch(r"(<|>)?([+ -])?(#)?(0)?(\d*)(\.\d+)?([deEfFgGxXo]?)", spec)
        integral = m is not None and m.group(7) in ("d", "x", "X", "o")
        if m is None or (integral and t.is_float) \
                or (m.group(6) and not t.is_float and (integral or not m.group(7))):
            raise self.err.at(fstring, "the format '{%s:%s}'"
                              % (_describe(a), spec.replace("\0", "{...}")),
                              "kernels' f-strings take [<>][+ ][#][0][width][.precision] and a "
                              "type d x X o (integers), f e g F E G (numbers), as constants")
        align, sign, alt, zero, width, prec, typ = (g or "" for g in m.groups())
        left = "-" if align == "<" else ""
        sign = sign.replace("-", "")
        if t is T.boolean and not spec:  # a bool with a format prints as an int, as in Python
            fmt.append("%s")
            args.append('((%s) ? "True" : "False")' % c)
        elif typ in ("", "d", "x", "X", "o") and not t.is_float:
            if alt:  # C's %#x writes 0 for 0 and 017 for Python's 0o17
                raise self.err.at(fstring, "the format '{%s:%s}'" % (_describe(a), spec),
                                  "write the prefix in the text: f\"0x{n:x}\"")
            fmt.append("%%%s%s%s%sll%s" % (left, sign, zero, width, typ or "d"))
            args.append("(long long)(%s)" % c)
        elif typ:  # f e g F E G G: C's (an int converted to a float, as in Python)
            fmt.append("%%%s%s%s%s%s%s%s" % (left, sign, alt, zero, width, prec, typ))
            args.append("(double)(%s)" % c)
        else:  # Python's repr of the float (the host), %.17g (a GPU)
            if sign or alt or zero or prec:
                raise self.err.at(fstring, "the format '{%s:%s}'" % (_describe(a), spec),
                                  "give a float's format a type: {x:.3f}, {x:+08.3e}, {x:.3g}")
            single = t is T.f32
            fmt += ["%" + left + width, ("PK_F32" if single else "PK_F64",)]
            args.append("PK_PRINT_F%s(pk_pb, %s)" % ("32" if single else "64", c))


def _printf_text(text):
    """A Python string as the text of a C string literal for printf's format: % doubled,
    escapes for backslash, quote and ? (no trigraphs), octal escapes for other bytes (UTF-8)."""
    out = []
    for byte in text.encode("utf-8"):
        ch = chr(byte)
        if ch == "%":
            out.append("%%")
        elif ch in "\n\t":
            out.append("\\n" if ch == "\n" else "\\t")
        elif ch in '\\"?':
            out.append("\\" + ch)
        elif 32 <= byte < 127:
            out.append(ch)
        else:
            out.append("\\%03o" % byte)
    return "".join(out)

