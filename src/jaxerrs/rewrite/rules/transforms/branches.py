"""``scan`` bodies that return one value; ``cond``/``switch`` branches with different dtypes."""

from __future__ import annotations

import re
from typing import Any

import libcst as cst

from jaxerrs.rewrite import Edit
from jaxerrs.rewrite.analysis import references
from jaxerrs.rewrite.context import Context
from jaxerrs.rewrite.cst_tools import positional_args
from jaxerrs.rewrite.names import full_name
from jaxerrs.rewrite.rules import rule
from jaxerrs.rewrite.rules.transforms.common import (
    _DTYPES,
    _arg,
    _assigned,
    _Branch,
    _branch,
    _calls_at_line,
    _code,
    _is_used,
    _kind,
    _navigate_literal,
    _np_module,
    _paren,
    _parse_type,
    _path,
    _shape,
    _with_dtype,
)
from jaxerrs.rewrite.values import MISSING, literal, live_value

# ---------------------------------------------------------------------------------------------- scan body pair


@rule("scan-body-pair")
def scan_body_pair(ctx: Context) -> Edit | None:
    """A scan body that returns only the carry returns ``(carry, None)``; the call site takes the carry.

    A body returning ``(carry, y1, y2)`` returns ``(carry, (y1, y2))`` and ``c, a, b = scan(...)``
    becomes ``c, (a, b) = scan(...)``.
    """
    calls = _calls_at_line(ctx, {"jax.lax.scan"})
    if not calls:
        return None
    call = calls[0]
    f_arg = _arg(call, 0, "f")
    body = _branch(ctx, f_arg.value) if f_arg is not None else None
    got = (ctx.values.get("output") or "").strip()
    if body is None or not got or got[0] in "[{":  # a list or dict output: what the user meant is unclear
        return None
    if f_arg is None or _used_elsewhere(ctx, body, f_arg.value):  # a body also called elsewhere would break there
        return None
    n_out = _count_top(got)
    pairs: list[tuple[cst.CSTNode, cst.CSTNode]] = []
    for out in body.outs:
        if isinstance(out, (cst.List, cst.Dict)):
            return None
        s = out
        if isinstance(s, cst.Tuple):
            if len(s.elements) != n_out or n_out < 3 or any(isinstance(e, cst.StarredElement) for e in s.elements):
                return None
            rest = [e.with_changes(comma=cst.MaybeSentinel.DEFAULT) if i == len(s.elements) - 2 else e
                    for i, e in enumerate(s.elements[1:])]
            ys = cst.Tuple(elements=rest, lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
            new = s.with_changes(elements=[s.elements[0].with_changes(
                comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))), cst.Element(ys)])
        else:
            if n_out != 1:
                return None
            new = cst.Tuple(elements=[cst.Element(out, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
                                      cst.Element(cst.Name("None"))],
                            lpar=[cst.LeftParen()] if isinstance(body.node, cst.Lambda) else [],
                            rpar=[cst.RightParen()] if isinstance(body.node, cst.Lambda) else [])
        pairs.append((out, new))
    site = _scan_site(ctx, call, n_out)
    if site is MISSING:
        return None
    if site is not None:
        if body.home is not None:
            return None  # the body is in an earlier cell and the call needs a change too: two cells
        pairs.append(site)
    what = "`(carry, None)`" if n_out == 1 else "`(carry, (outputs...))`"
    where = f" (in {body.home.label}, where the body is defined)" if body.home is not None else ""
    return Edit((body.home or ctx).replace_many(pairs), "review",
                f"The scan body now returns {what}{where}, the pair scan expects, and the call keeps the final "
                "carry; check that you need no per-step output (scan stacks the second element).", where=body.home)


def _used_elsewhere(ctx: Context, body: _Branch, passed: cst.BaseExpression) -> bool:
    """Whether the cell names the body's def anywhere but in the expression that passes it (``step``,
    ``self.step``, ``partial(step, k)``): a change to what it returns would be seen there too."""
    if body.callee is None:
        return isinstance(body.node, cst.FunctionDef)
    if body.home is not None and references(body.home, body.callee):
        return True  # named in the earlier cell that defines it
    return any(r is not passed and passed not in ctx.ancestors(r) for r in references(ctx, body.callee))


def _count_top(text: str) -> int:
    """How many values a printed scan output holds: 'float32[]' -> 1, '(a, b, c)' -> 3."""
    text = text.strip()
    if not text.startswith("("):
        return 1
    depth, n = 0, 1
    for ch in text[1:-1]:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            n += 1
    return n


def _scan_site(ctx: Context, call: cst.Call, n_out: int) -> Any:
    """The edit of the statement using the scan's result: None when none is needed, MISSING when unsure."""
    parent = ctx.parent(call)
    if isinstance(parent, cst.Subscript) and parent.value is call:
        index = parent.slice[0].slice if len(parent.slice) == 1 else None
        if isinstance(index, cst.Index) and literal(index.value) == 0:
            return None  # lax.scan(...)[0] already takes the carry
        return MISSING
    if isinstance(parent, cst.Assign) and parent.value is call and len(parent.targets) == 1:
        target = parent.targets[0].target
        if n_out == 1:
            if isinstance(target, cst.Name):
                new_t = cst.Tuple([cst.Element(target, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
                                   cst.Element(cst.Name("_"))], lpar=[], rpar=[])
                return parent.targets[0], parent.targets[0].with_changes(target=new_t)
            if isinstance(target, (cst.Tuple, cst.List)) and len(target.elements) == 2:
                second = target.elements[1].value
                if isinstance(second, cst.Name) and (second.value == "_" or not _is_used(ctx, second.value, parent)):
                    return None
            return MISSING
        if isinstance(target, (cst.Tuple, cst.List)) and len(target.elements) == n_out:
            els = list(target.elements)
            rest = [e.with_changes(comma=cst.MaybeSentinel.DEFAULT) if i == len(els) - 2 else e
                    for i, e in enumerate(els[1:])]
            ys = cst.Tuple(elements=rest, lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
            new_t = target.with_changes(elements=[els[0].with_changes(
                comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))), cst.Element(ys)])
            return target, new_t
        return MISSING
    if n_out != 1 or not isinstance(parent, (cst.Return, cst.Arg, cst.BinaryOperation, cst.Element)):
        return MISSING
    return call, cst.Subscript(value=call, slice=[cst.SubscriptElement(cst.Index(cst.Integer("0")))])


# ---------------------------------------------------------------------------------------------- cond / switch

_COND = re.compile(r"The output of true_fun(?: at path (?P<path>\S+))? has type (?P<a>\S+) but the corresponding "
                   r"output of false_fun has type (?P<b>\S+), so the")
_SWITCH = re.compile(r"The output of branch ?(?P<i>\d+)(?: at path (?P<path>\S+))? has type (?P<a>\S+) but the "
                     r"corresponding output of branch ?(?P<j>\d+) has type (?P<b>\S+), so the")


@rule("branch-dtype")
def branch_dtype(ctx: Context) -> Edit | None:
    """The odd branch's returned value takes the other branch's type: ``0`` -> ``0.0``, ``jnp.int32(0)`` ->
    ``jnp.float32(0)``, a scalar placeholder -> ``jnp.zeros_like(v)``, an integer result -> ``.astype``."""
    cm, sm = _COND.search(ctx.message), _SWITCH.search(ctx.message)
    if cm:
        calls = _calls_at_line(ctx, {"jax.lax.cond", "flax.nnx.cond"})
        if not calls:
            return None
        call = calls[0]
        pos = positional_args(call)
        if pos is None or len(pos) < 3:
            return None
        exprs, operands, mm = [pos[1].value, pos[2].value], pos[3:], cm
        idx = (0, 1)
    elif sm:
        calls = _calls_at_line(ctx, {"jax.lax.switch", "flax.nnx.switch"})
        if not calls:
            return None
        call = calls[0]
        pos = positional_args(call)
        if pos is None or len(pos) < 2:
            return None
        branches = pos[1].value
        if isinstance(branches, cst.Name):
            branches = _assigned(ctx, branches.value)
        if not isinstance(branches, (cst.List, cst.Tuple)) or any(
                isinstance(e, cst.StarredElement) for e in branches.elements):
            return None
        exprs, operands, mm = [e.value for e in branches.elements], pos[2:], sm
        idx = (int(sm.group("i")), int(sm.group("j")))
        if max(idx) >= len(exprs):
            return None
    else:
        return None
    path = _path(mm.group("path") or "")
    if path is not None and full_name(ctx, call.func, keep=True).startswith("flax.nnx."):
        # nnx.cond/nnx.switch return (module state, the branch's output): the user's output is at [1]
        if not path or path[0] != 1:
            return None
        path = path[1:]
    ta, tb = _parse_type(mm.group("a")), _parse_type(mm.group("b"))
    if path is None or ta is None or tb is None:
        return None
    types = {idx[0]: ta, idx[1]: tb}
    leaves: dict[int, cst.BaseExpression] = {}
    infos: dict[int, _Branch] = {}
    for k in range(len(exprs)):
        br = _branch(ctx, exprs[k])
        leaf = _navigate_literal(br.outs[0], path) if br is not None and len(br.outs) == 1 else None
        if br is not None and leaf is not None:
            leaves[k], infos[k] = leaf, br
    # which branch is the odd one: the one returning a literal placeholder, else an integer result
    options = []
    for odd in idx:
        ref = idx[1] if odd == idx[0] else idx[0]
        fix = _branch_fix(ctx, leaves[odd], types[odd], types[ref], infos[odd], operands) if odd in leaves else None
        if fix is not None:
            options.append((fix[2], odd, ref, fix))
    options.sort(key=lambda o: o[0])
    if not options or (len(options) > 1 and options[0][0] == options[1][0]):
        return None
    _, odd, ref, fix = options[0]
    changed = {odd: fix}
    if sm and odd == idx[0]:
        # switch compares every branch with the first and reports the first that differs: the branches between
        # them have the first one's type, so each of them needs the same change (else it fails again on them)
        for k in range(idx[0] + 1, idx[1]):
            more = _branch_fix(ctx, leaves[k], types[odd], types[ref], infos[k], operands) if k in leaves else None
            if more is None:
                return None
            changed[k] = more
    for k, leaf in leaves.items():  # switch: other branches returning a bare literal need the same change
        lit = literal(leaf)
        if k in idx or isinstance(lit, bool) or not isinstance(lit, (int, float)):
            continue
        more = _branch_fix(ctx, leaf, ("int32" if isinstance(lit, int) else "float32", ()), types[ref], infos[k],
                           operands)
        if more is not None and _code(more[0]) != (infos[k].home or ctx).code(leaf):
            changed[k] = more
    homes = {id(infos[k].home) for k in changed}
    if len(homes) != 1:
        return None  # branches defined in different cells: one rewrite cannot fix them all
    home = infos[next(iter(changed))].home
    cell = home or ctx  # the cell the changed branches are defined in (an earlier one, or this one)
    pairs = [(leaves[k], f[0]) for k, f in changed.items()]
    imports = [i for f in changed.values() for i in f[1]]
    # safe only where the changed branch is this call's alone (a def called elsewhere too sees the change)
    safety = "safe" if home is None and all(
        f[3] and not _used_elsewhere(ctx, infos[k], exprs[k]) for k, f in changed.items()) else "review"
    names = ", ".join(("true_fun", "false_fun")[k] if cm else f"branch {k}" for k in changed)
    dt, shape = types[ref]
    olds = ", ".join(f"`{cell.code(leaves[k])}`" for k in changed)
    news = ", ".join(f"`{_code(f[0])}`" for f in changed.values())
    summary = (f"{names} now return{'s' if len(changed) == 1 else ''} {news} instead of {olds}, so "
               f"{'both' if cm else 'all'} branches give {dt}{list(shape)}")
    if home is not None:
        many = len(changed) > 1
        summary += (f" (the branch{'es are' if many else ' is'} defined in {home.label}; other code calling "
                    f"{'them' if many else 'it'} sees the change)")
    if safety == "review":
        summary += "; check that this value is what the branch should produce"
    return Edit(cell.replace_many(pairs, imports=imports), safety, summary + ".", where=home)


def _branch_fix(ctx: Context, leaf: cst.BaseExpression, have: tuple[str, tuple[int, ...]],
                want: tuple[str, tuple[int, ...]], br: _Branch,
                operands: list[cst.Arg]) -> tuple[cst.BaseExpression, list[str | None], int, bool] | None:
    """(new leaf, imports, rank (lower = surer odd one), safe) turning ``leaf`` of type ``have`` into ``want``.

    ``ctx`` is the cell with the call (its operands); the leaf is written in the branch's own cell.
    """
    dt, shape = want
    call_ctx, ctx = ctx, br.home or ctx
    lit = literal(leaf)
    is_lit = isinstance(lit, (int, float)) and not isinstance(lit, bool)
    if have[1] != shape:
        if not is_lit or have[1] != ():
            return None
        ref = _like_name(call_ctx, br, operands, want)
        if ref is None:
            return None
        jnp, imp = ctx.need("jax.numpy", "jnp")
        fn = "zeros_like" if lit == 0 else "ones_like" if lit == 1 else "full_like"
        code = f"{jnp}.{fn}({ref})" if fn != "full_like" else f"{jnp}.{fn}({ref}, {lit!r})"
        return cst.parse_expression(code), [imp], 0, False
    if is_lit:
        if _kind(dt) not in ("f", "i") or (_kind(dt) == "i" and lit != int(lit)) or not _fits(lit, dt):
            return None  # a literal the dtype cannot hold would wrap or overflow: not the same value
        fixed = _with_dtype(ctx, leaf, dt)
        return (fixed[0], fixed[1], 0, True) if fixed else None
    s = leaf
    if isinstance(s, cst.Call) and isinstance(s.func, cst.Attribute) and _np_module(ctx, s.func) and (
            s.func.attr.value in _DTYPES):
        fixed = _with_dtype(ctx, s, dt)
        return (fixed[0], fixed[1], 1, False) if fixed else None
    if _kind(have[0]) in ("i", "b") and _kind(dt) == "f":
        jnp, imp = ctx.need("jax.numpy", "jnp")
        new = cst.Call(func=cst.Attribute(value=_paren(leaf), attr=cst.Name("astype")),
                       args=[cst.Arg(cst.parse_expression(f"{jnp}.{dt}"))])
        return new, [imp], 2, False
    return None


def _like_name(ctx: Context, br: _Branch, operands: list[cst.Arg], want: tuple[str, tuple[int, ...]]) -> str | None:
    """A parameter of the branch whose operand has the wanted shape and dtype (for ``zeros_like``)."""
    if br.params is None or len(br.params) != len(operands):
        return None
    for name, op in zip(br.params, operands, strict=True):
        v = live_value(ctx, op.value, numbers=True)
        if v is not MISSING and _shape(v) == want[1] and str(getattr(v, "dtype", "")) == want[0]:
            return name
    return None


def _fits(lit: float, dtype: str) -> bool:
    """Whether the number ``lit`` is a finite value of ``dtype`` (int8 holds no 300, float16 no 1e5), so
    writing it in the other branch's dtype keeps its value (up to float rounding)."""
    import numpy as np

    try:
        info = np.iinfo(dtype) if _kind(dtype) == "i" else np.finfo(np.dtype("float32" if dtype == "bfloat16"
                                                                              else dtype))
    except (TypeError, ValueError):
        return False
    return bool(info.min <= lit <= info.max)
