"""A static ``size=`` for ``nonzero``/``where``/``unique``; ``static_argnames`` typos."""

from __future__ import annotations

import ast
import difflib
import re

import libcst as cst

from jaxerrs.rewrite import Edit
from jaxerrs.rewrite.analysis import literal
from jaxerrs.rewrite.context import Context
from jaxerrs.rewrite.jit_static import (
    NOPE,
    STATIC_JITS,
    deco_kind,
    find_jit,
    jit_kind,
    kwarg,
    name_of,
    param_names,
    py_literal,
    set_kwargs,
)
from jaxerrs.rewrite.rules import rule
from jaxerrs.rewrite.rules.static_shapes.common import (
    _arg_for,
    _call_sites,
    _jnp_name,
    _lookup,
    _names_in,
    _prod,
    _py_value,
    _shape,
    _target_names,
    _within,
)

# ---------------------------------------------------------------------------------------------- size-argument

_SIZED = {"nonzero", "where", "argwhere", "flatnonzero", "unique"}


@rule("size-argument")
def size_argument(ctx: Context) -> Edit | None:
    """``jnp.nonzero(x)``/``jnp.where(c)``/``jnp.argwhere``/``jnp.flatnonzero``/``jnp.unique`` -> a static ``size=``."""
    stmt = ctx.statement()
    if stmt is None:
        return None
    cands = []
    for c in ctx.nodes(cst.Call):
        assert isinstance(c, cst.Call)
        if not _within(ctx, c, stmt):
            continue
        name = _jnp_name(ctx, c.func)
        if name not in _SIZED or any(a.keyword is not None and a.keyword.value in ("size", "axis") for a in c.args):
            continue
        pos = [a for a in c.args if a.keyword is None]
        if not pos or any(a.star for a in c.args) or (name == "where" and len(pos) != 1):
            continue
        if name != "unique" and len(c.args) != 1:
            continue
        cands.append((c, name))
    if len(cands) != 1:
        return None
    call, name = cands[0]
    arg = call.args[0].value
    counted = _count_of(ctx, call, name)
    if counted is not None:
        return counted
    shape = _shape(ctx, arg)
    if shape is None or not _result_is_values(ctx, call, stmt):
        return None
    total = _prod(shape)
    size_code = str(total)
    if isinstance(arg, cst.Name):
        size_code = f"{arg.value}.size"
    else:  # name the array the size comes from, so the rewrite keeps working for other input shapes
        for n in _names_in(arg):
            got = _shape(ctx, cst.Name(n))
            if got is not None and len(got) > 0 and _prod(got) == total:
                size_code = f"{n}.size"
                break
    kws = [kwarg("size", size_code)]
    given = next((a for a in call.args if a.keyword is not None and a.keyword.value == "fill_value"), None)
    if given is not None:
        pad = f"`{ctx.code(given.value)}`"
    elif name != "unique":
        kws.append(kwarg("fill_value", "-1"))
        pad = "-1"
    else:
        pad = "the smallest value"
    new = set_kwargs(call, {})
    new = new.with_changes(args=[*new.args, *kws])
    if new.args[-len(kws) - 1].comma is not cst.MaybeSentinel.DEFAULT:
        fixed = list(new.args)
        fixed[-len(kws) - 1] = fixed[-len(kws) - 1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        new = new.with_changes(args=fixed)
    return Edit(ctx.replace(call, new), "review",
                f"`jnp.{name}` now returns exactly `{size_code}` entries, padded with {pad}: check that the "
                f"code using the result ignores the padding.")


def _length_read(ctx: Context, node: cst.CSTNode) -> cst.BaseExpression | None:
    """The expression that reads the length of ``node``'s result and nothing else of it: ``r.size``,
    ``r.shape[0]``, ``len(r)``; None for any other use."""
    p = ctx.parent(node)
    if isinstance(p, cst.Attribute) and p.value is node and p.attr.value == "size":
        return p
    if isinstance(p, cst.Attribute) and p.value is node and p.attr.value == "shape":
        sub = ctx.parent(p)
        return sub if _zero_index(sub) else None
    if isinstance(p, cst.Arg) and p.keyword is None:
        call = ctx.parent(p)
        if isinstance(call, cst.Call) and isinstance(call.func, cst.Name) and call.func.value == "len" and len(
                call.args) == 1 and not (ctx.namespace and "len" in ctx.namespace):
            return call
    return None


def _first_of(ctx: Context, call: cst.Call) -> cst.CSTNode | None:
    """``call[0]`` when ``call``'s result is indexed by 0 (the row indices ``nonzero`` returns), else None."""
    sub = ctx.parent(call)
    return sub if _zero_index(sub) and sub.value is call else None  # type: ignore[union-attr]


def _zero_index(node: cst.CSTNode | None) -> bool:
    """Whether ``node`` is a subscript by the integer 0 (``r[0]``, ``r.shape[0]``)."""
    if not (isinstance(node, cst.Subscript) and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index)):
        return False
    key = literal(node.slice[0].slice.value)
    return type(key) is int and key == 0


def _count_of(ctx: Context, call: cst.Call, name: str) -> Edit | None:
    """Where only the number of entries of a data-dependent-size result is read (``jnp.unique(t).size``,
    ``len(jnp.nonzero(m)[0])``, ``jnp.argwhere(m).shape[0]``), that number is computed as an array, with no
    array of unknown size: ``jnp.count_nonzero(x)`` for the nonzero family, and for ``unique`` one plus the
    number of places where the sorted values change, for integer and boolean arrays (the live dtype; a float's
    NaNs and infinities would not count as ``jnp.unique`` counts them).

    Review: the count is the same number for every input, but it is now a JAX array, not a Python int, so
    Python code that branches on it or builds a shape from it would need a concrete value again.
    """
    if len(call.args) != 1 or call.args[0].keyword is not None:
        return None
    arg = call.args[0].value
    if name in ("nonzero", "where"):
        first = _first_of(ctx, call)
        read = _length_read(ctx, first) if first is not None else None
    else:
        read = _length_read(ctx, call)
        if name == "argwhere" and isinstance(read, cst.Attribute):  # .size of argwhere: count * ndim
            return None
    if read is None:
        return None
    jnp = ctx.code(call.func).rsplit(".", 1)[0] if isinstance(call.func, cst.Attribute) else None
    if not jnp:
        return None
    x = ctx.code(arg)
    if name == "unique":
        if not isinstance(arg, cst.Name):
            return None  # the argument is read twice: it must be a plain name
        kind = getattr(getattr(_lookup(ctx, arg.value), "dtype", None), "kind", "")
        if kind not in ("b", "i", "u"):
            return None  # floats: NaNs and infinities need more than a difference of sorted values
        code = f"(({x}.size > 0) + {jnp}.count_nonzero({jnp}.diff({jnp}.sort({x}.ravel()))))"
        what = f"the number of distinct values of `{x}` (one plus the changes between its sorted values)"
    else:
        code = f"{jnp}.count_nonzero({x})"
        what = f"the number of nonzero entries of `{x}`"
    return Edit(ctx.replace(read, cst.parse_expression(code)), "review",
                f"`{ctx.code(read)}` is computed as {what} without building an array of that size; it is the "
                "same number, but a JAX array rather than a Python int: check no Python `if` or shape is built "
                "from it.")


def _result_is_values(ctx: Context, call: cst.Call, stmt: cst.SimpleStatementLine) -> bool:
    """False when the padded result would change what follows: its length is read, or it indexes an array."""
    cur: cst.CSTNode = call
    while True:
        p = ctx.parent(cur)
        if p is None or p is stmt:
            break
        if isinstance(p, cst.Attribute) and p.attr.value in ("shape", "size") and p.value is cur:
            return False
        if isinstance(p, cst.Arg) and isinstance(ctx.parent(p), cst.Call) and name_of(ctx.parent(p).func) == "len":  # type: ignore[union-attr]
            return False
        if isinstance(p, (cst.SubscriptElement, cst.Index)):
            sub = ctx.enclosing(p, cst.Subscript)
            if sub is not None and not _within(ctx, call, sub.value):  # type: ignore[attr-defined]
                return False  # the result is an index
        cur = p
    small = stmt.body[0] if len(stmt.body) == 1 else None
    fn = ctx.enclosing(stmt, cst.FunctionDef)
    if isinstance(small, cst.Assign) and fn is not None:
        bound = [n.value for t in small.targets for n in _target_names(t.target)]
        line = ctx.span(stmt)[1]
        for n in ctx.nodes(cst.Name):
            assert isinstance(n, cst.Name)
            if n.value in bound and ctx.span(n)[0] > line and _within(ctx, n, fn):
                q = ctx.parent(n)
                if isinstance(q, cst.Attribute) and q.attr.value in ("shape", "size") and q.value is n:
                    return False
                for a in ctx.ancestors(n):
                    if isinstance(a, cst.SubscriptElement):
                        return False
                    if isinstance(a, cst.SimpleStatementLine):
                        break
                    if isinstance(a, cst.Arg) and isinstance(ctx.parent(a), cst.Call) and name_of(
                            ctx.parent(a).func) == "len":  # type: ignore[union-attr]
                        return False
    return True


# ---------------------------------------------------------------------------------------------- static-argnames-typo


@rule("static-argnames-typo")
def static_argnames_typo(ctx: Context) -> Edit | None:
    """``static_argnames=("num",)`` on ``def f(x, n)`` -> the parameter name it is closest to.

    Why the same values (when ``safe``): a static argument is its Python value inside the function, so a
    function jitted with a parameter static computes what the unjitted function computes on that value;
    which parameter the misspelt name meant changes what is compiled, not what is computed. Checked: the
    keyword is ``static_argnames`` and every call in the cell passes a plain Python value for it (a value
    that may be an array would be hashed or refused: ``review``).
    """
    # read the message itself: the template holes can split "{'trainng'}" at the "in" inside the name
    mt = re.search(r"invalid argnames (\{.*?\}) in (\w+)\.", ctx.message or "")
    if mt is None:
        return None
    kw = mt.group(2)
    try:
        bad = ast.literal_eval(mt.group(1))
    except (ValueError, SyntaxError):
        return None
    if not isinstance(bad, (set, list, tuple)) or not bad:
        return None
    sites: list[tuple[cst.Call, cst.FunctionDef]] = []
    for c in ctx.at_line(cst.Call, exact_start=True):
        assert isinstance(c, cst.Call)
        parent = ctx.parent(c)
        if isinstance(parent, cst.Decorator) and deco_kind(ctx, c, STATIC_JITS) is not None:
            fn = ctx.parent(parent)
            if isinstance(fn, cst.FunctionDef):
                sites.append((c, fn))
        elif jit_kind(ctx, c.func) in STATIC_JITS and c.args and c.args[0].keyword is None and isinstance(
                c.args[0].value, cst.Name):
            fn2 = ctx.function_named(c.args[0].value.value)
            if fn2 is not None:
                sites.append((c, fn2))
    if len(sites) != 1:
        return None
    call, fn = sites[0]
    arg = next((a for a in call.args if a.keyword is not None and a.keyword.value == kw), None)
    if arg is None:
        return None
    pos, kwonly = param_names(fn)
    params = pos + kwonly
    current = py_literal(arg.value)
    if current is NOPE:
        return None
    current_l = [current] if isinstance(current, str) else list(current)
    strings = [arg.value] if isinstance(arg.value, cst.SimpleString) else [
        e.value for e in getattr(arg.value, "elements", []) if isinstance(e.value, cst.SimpleString)]
    pairs: list[tuple[cst.CSTNode, cst.CSTNode]] = []
    fixes = []
    for b in bad:
        close = difflib.get_close_matches(b, [p for p in params if p not in current_l], n=2, cutoff=0.6)
        if len(close) == 0 or (len(close) == 2 and difflib.SequenceMatcher(None, b, close[0]).ratio()
                                == difflib.SequenceMatcher(None, b, close[1]).ratio()):
            return None
        node = next((s for s in strings if isinstance(s, cst.SimpleString) and s.evaluated_value == b), None)
        if node is None:
            return None
        q = node.quote
        pairs.append((node, node.with_changes(value=f"{node.prefix}{q}{close[0]}{q}")))
        fixes.append((b, close[0]))
    text = ", ".join(f"`{b}` -> `{c}`" for b, c in fixes)
    safe = kw == "static_argnames" and _calls_pass_python(ctx, fn, [c for _, c in fixes])
    tail = "every call in the cell passes a Python value for it" if safe else \
        "check every call passes a hashable Python value for it"
    return Edit(ctx.replace_many(pairs), "safe" if safe else "review",
                f"{kw} now names the parameter the function has ({text}), which becomes static as intended; {tail}.")


def _calls_pass_python(ctx: Context, fn: cst.FunctionDef, params: list[str]) -> bool:
    """Whether every call of the jitted ``fn`` in the cell passes plain Python values for ``params``."""
    site = find_jit(ctx, fn)
    sites = _call_sites(ctx, site) if site is not None else []
    if site is None or not sites:
        return False
    for call in sites:
        inside = ctx.enclosing(call, cst.FunctionDef) is not None
        for p in params:
            arg = _arg_for(call, fn, p, site.method)
            if arg is False or (isinstance(arg, cst.Arg) and _py_value(ctx, arg.value, inside) != "py"):
                return False
    return True
