"""Writing a ``print(...)`` call as the ``jax.debug.print(fmt, ...)`` call that prints the same line.

Every printed part goes into one format string: literal text (braces doubled), f-string fields with their
conversions and specs, ``str.format`` fields, printf ``%`` conversions turned into format specs (only where
the two agree: ``%d`` of a known integer, ``%.3f``, ``%x``...), and ``float(x)``/``int(x)``/``x.item()`` of
traced values replaced by the array (cast where the kind changes). The values become the call's arguments.
"""

from __future__ import annotations

import ast
import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from string import Formatter
from typing import Any

import libcst as cst

from jaxerrs.rewrite.context import Context
from jaxerrs.rewrite.cst_tools import keyword_arg
from jaxerrs.rewrite.rules.api.helpers import _expr
from jaxerrs.rewrite.values import MISSING, lookup_dotted

_CONVERT = ("float", "int")
# printf conversions -> str.format types; %d/%i/%u on a float truncate in printf but raise in format()
_PRINTF = re.compile(r"%(?P<key>\([^)]*\))?(?P<flags>[-+ #0]*)(?P<width>\*|\d+)?(?:\.(?P<prec>\*|\d+))?[hlL]?"
                     r"(?P<type>[diouxXeEfFgGcrsa%])")
_INT_TYPES = set("diuoxX")


def _debug_print_params() -> set[str]:
    """Parameter names of ``jax.debug.print``: a value passed by one of these names would not reach fmt."""
    try:
        import jax

        return set(inspect.signature(jax.debug.print).parameters)
    except Exception:  # noqa: BLE001
        return {"fmt", "args", "kwargs", "ordered", "partitioned"}


def _has_spec(fmt: str) -> bool:
    """Whether a ``str.format`` string has a field with a format spec (unparseable counts as one)."""
    try:
        return any(spec for _lit, name, spec, _conv in Formatter().parse(fmt) if name is not None)
    except ValueError:
        return True


def _literal(e: cst.CSTNode) -> str | None:
    """The value of a plain string literal (not an f-string, not bytes), else None."""
    if isinstance(e, (cst.SimpleString, cst.ConcatenatedString)) and not isinstance(e, cst.FormattedString):
        try:
            v = ast.literal_eval(cst.Module([]).code_for_node(e.with_changes(lpar=[], rpar=[])))
        except (ValueError, SyntaxError):
            return None
        return v if isinstance(v, str) else None
    return None




@dataclass
class _Fmt:
    """One ``jax.debug.print`` call under construction."""

    ctx: Context
    traced: Callable[[cst.CSTNode], bool]
    reserved: set[str]
    text: list[str] = field(default_factory=list)
    args: list[cst.BaseExpression] = field(default_factory=list)
    kwargs: dict[str, cst.BaseExpression] = field(default_factory=dict)

    def lit(self, s: str) -> None:
        self.text.append(s.replace("{", "{{").replace("}", "}}"))

    def field(self, e: cst.BaseExpression, conv: str | None = None, spec: str = "") -> bool:
        v = self.value(e)
        if v is None:
            return False
        name = ""
        if isinstance(v, cst.Name) and v.value not in self.reserved and v.value.isidentifier():
            if v.value not in self.kwargs or self.kwargs[v.value] is v or (
                    isinstance(self.kwargs[v.value], cst.Name)):
                name = v.value
                self.kwargs.setdefault(name, v)
        if not name:
            self.args.append(v)
        self.text.append("{" + name + (f"!{conv}" if conv else "") + (f":{spec}" if spec else "") + "}")
        return True

    def value(self, e: cst.BaseExpression) -> cst.BaseExpression | None:
        """``e`` with its Python-number conversions of traced values dropped (None: one it cannot drop)."""
        ok = True
        traced = self.traced
        ctx = self.ctx

        class _T(cst.CSTTransformer):
            def leave_Call(self, orig: cst.Call, upd: cst.Call) -> cst.BaseExpression:
                nonlocal ok
                f = orig.func
                if isinstance(f, cst.Name) and f.value in _CONVERT and len(orig.args) == 1 and traced(orig.args[0].value):
                    if orig.args[0].keyword or orig.args[0].star:
                        ok = False
                        return upd
                    inner = upd.args[0].value
                    kind = _dtype_kind(ctx, orig.args[0].value)
                    if (f.value == "int" and kind == "int") or (f.value == "float" and kind != "int"):
                        return inner  # already of that kind (a float of unknown dtype prints as a float)
                    return cst.Call(func=cst.Attribute(value=_paren(inner), attr=cst.Name("astype")),
                                    args=[cst.Arg(cst.Name(f.value))])
                if isinstance(f, cst.Attribute) and f.attr.value == "item" and not orig.args and traced(f.value):
                    return upd.func.value  # type: ignore[attr-defined]
                return upd

            def visit_Lambda(self, n: cst.Lambda) -> bool:
                return False

        out = e.visit(_T())
        return out if ok and isinstance(out, cst.BaseExpression) else None  # type: ignore[return-value]

    def fstring(self, s: cst.FormattedString) -> bool:
        prefix = s.start[:-1].replace("f", "").replace("F", "")
        quote = s.end
        if "b" in prefix.lower():
            return False
        for part in s.parts:
            if isinstance(part, cst.FormattedStringText):
                try:
                    text = ast.literal_eval(prefix + quote + part.value + quote)
                except (ValueError, SyntaxError):
                    return False
                self.lit(text.replace("{{", "{").replace("}}", "}"))
                continue
            assert isinstance(part, cst.FormattedStringExpression)
            spec = ""
            for sp in part.format_spec or ():
                if not isinstance(sp, cst.FormattedStringText):
                    return False  # a nested replacement field in the spec
                spec += sp.value
            conv = part.conversion
            if part.equal is not None:
                self.lit(self.ctx.code(part.expression) + "=")
                if not spec and not conv:
                    conv = "r"
            if not self.field(part.expression, conv, spec):
                return False
        return True

    def dot_format(self, fmt: str, call: cst.Call) -> bool:
        pos = [a.value for a in call.args if a.keyword is None and not a.star]
        kws = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
        if any(a.star for a in call.args):
            return False
        auto = 0
        try:
            parsed = list(Formatter().parse(fmt))
        except ValueError:
            return False
        for lit, name, spec, conv in parsed:
            if lit:
                self.lit(lit)
            if name is None:
                continue
            if spec and "{" in spec:
                return False
            if name == "":
                if auto >= len(pos):
                    return False
                e = pos[auto]
                auto += 1
            elif name.isdigit() and int(name) < len(pos):
                e = pos[int(name)]
            elif name in kws:
                e = kws[name]
            else:
                return False  # `{0.x}`, `{a[0]}`: attribute or index access in the field
            if not self.field(e, conv, spec or ""):
                return False
        return True

    def percent(self, fmt: str, right: cst.BaseExpression) -> bool:
        values = [el.value for el in right.elements] if isinstance(right, cst.Tuple) else [right]
        if isinstance(right, cst.Tuple) and any(isinstance(el, cst.StarredElement) for el in right.elements):
            return False
        at, i = 0, 0
        for mm in _PRINTF.finditer(fmt):
            self.lit(fmt[at:mm.start()])
            at = mm.end()
            t = mm["type"]
            if t == "%":
                self.lit("%")
                continue
            if mm["key"] or mm["width"] == "*" or mm["prec"] == "*" or i >= len(values) or t in "ca":
                return False
            e = values[i]
            i += 1
            flags = mm["flags"]
            spec = ("<" if "-" in flags else "") + ("+" if "+" in flags else " " if " " in flags else "") + (
                "#" if "#" in flags and t in "oxX" else "") + ("0" if "0" in flags and "-" not in flags else "")
            spec += mm["width"] or ""
            if mm["prec"] is not None:
                if t in _INT_TYPES:
                    return False
                spec += "." + mm["prec"]
            if t in "sr":
                if spec:
                    return False
                if not self.field(e, t if t == "r" else "s"):
                    return False
                continue
            if t in _INT_TYPES:
                if not _int_dtype(self.ctx, e):
                    return False  # printf truncates a float for %d; format() would raise
                t = {"i": "d", "u": "d"}.get(t, t)
            if not self.field(e, None, spec + t):
                return False
        if i != len(values) or (not isinstance(right, cst.Tuple) and i != 1):
            return False
        self.lit(fmt[at:])
        return True

    def arg(self, e: cst.BaseExpression) -> bool:
        if isinstance(e, cst.FormattedString):
            return self.fstring(e)
        if isinstance(e, cst.ConcatenatedString):
            parts: list[cst.BaseExpression] = []
            cur: Any = e
            while isinstance(cur, cst.ConcatenatedString):
                parts.append(cur.left)
                cur = cur.right
            parts.append(cur)
            if all(not isinstance(p, cst.FormattedString) for p in parts):
                lit = _literal(e)
                if lit is None:
                    return False
                self.lit(lit)
                return True
            return all(self.arg(p) for p in parts)
        lit = _literal(e)
        if lit is not None:
            self.lit(lit)
            return True
        if isinstance(e, cst.Call) and isinstance(e.func, cst.Attribute) and e.func.attr.value == "format":
            fmt = _literal(e.func.value)
            if fmt is not None:
                return self.dot_format(fmt, e)
        if isinstance(e, cst.BinaryOperation) and isinstance(e.operator, cst.Modulo):
            fmt = _literal(e.left)
            if fmt is not None:
                return self.percent(fmt, e.right)
        return self.field(e)

    def code(self) -> str:
        return "".join(self.text)


def _paren(e: cst.BaseExpression) -> cst.BaseExpression:
    if isinstance(e, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)) or e.lpar:
        return e
    return e.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def _dtype_kind(ctx: Context, e: cst.BaseExpression) -> str:
    """'int', 'float', 'bool' or '' (unknown) for the value of ``e`` in the failing frame."""
    from jaxerrs.rewrite.rules.control_flow.common import _dotted

    v = lookup_dotted(ctx, _dotted(e)) if _dotted(e) else MISSING
    dtype = str(getattr(v, "dtype", ""))
    if dtype.startswith(("int", "uint")):
        return "int"
    if dtype == "bool":
        return "bool"
    if dtype.startswith(("float", "bfloat")):
        return "float"
    return ""


def _int_dtype(ctx: Context, e: cst.BaseExpression) -> bool:
    """Whether ``e`` is an integer value (a Python int, or an integer array in the failing frame)."""
    from jaxerrs.rewrite.rules.control_flow.common import _dotted

    v = lookup_dotted(ctx, _dotted(e)) if _dotted(e) else MISSING
    if isinstance(v, bool):
        return False
    if isinstance(v, int):
        return True
    return str(getattr(v, "dtype", "")).startswith(("int", "uint"))


def _quote(s: str, like: str) -> str:
    """A string literal for ``s``, in the quote style the cell used where it can."""
    r = repr(s)
    if like.startswith('"') and r.startswith("'") and '"' not in s:
        r = '"' + r[1:-1].replace("\\'", "'") + '"'
    return r


def to_debug_print(ctx: Context, call: cst.Call, traced: Callable[[cst.CSTNode], bool], ref: str) -> cst.Call | None:
    """``print(...)`` -> ``jax.debug.print(fmt, ...)`` printing the same line, or None."""
    sep, end = " ", "\n"
    items: list[cst.BaseExpression] = []
    for a in call.args:
        if a.star:
            return None
        if a.keyword is None:
            items.append(a.value)
            continue
        kw = a.keyword.value
        lit = _literal(a.value)
        if kw == "sep" and lit is not None:
            sep = lit
        elif kw == "end" and lit is not None:
            end = lit
        elif kw == "flush":
            continue
        else:
            return None  # file=..., a computed sep/end
    if end != "\n" or not items:
        return None
    fmt = _Fmt(ctx, traced, _debug_print_params())
    for i, e in enumerate(items):
        if i:
            fmt.lit(sep)
        if not fmt.arg(e):
            return None
    like = next((ctx.code(e) for e in items if isinstance(e, (cst.SimpleString, cst.FormattedString))), '"')
    if isinstance(items[0], cst.FormattedString):
        like = items[0].end
    args = [cst.Arg(cst.SimpleString(_quote(fmt.code(), like)))]
    args += [cst.Arg(v) for v in fmt.args]
    args += [keyword_arg(k, v) for k, v in fmt.kwargs.items()]
    return cst.Call(func=_expr(ref), args=args, lpar=call.lpar, rpar=call.rpar)
