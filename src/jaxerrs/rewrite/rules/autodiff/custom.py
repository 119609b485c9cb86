"""``custom_vjp``/``custom_jvp`` rules: tuples, pairs, unbroadcast cotangents, ``defvjp``, argnums."""

from __future__ import annotations

import re
from dataclasses import dataclass

import libcst as cst
import libcst.matchers as m

from jaxerrs.rewrite import Edit
from jaxerrs.rewrite.context import Context
from jaxerrs.rewrite.cst_tools import keyword_arg, positional_args
from jaxerrs.rewrite.names import full_name
from jaxerrs.rewrite.rules.autodiff.common import (
    _GRADS,
    _JACS,
    _PUBLIC,
    _argnums,
    _bare,
    _edit,
    _fn_params,
    _grad_use,
    _int,
    _kw,
    _paren,
    _ref,
    _ret_value,
    _returns,
    _rule,
    _target_fn,
    _tuple,
    _with_value,
)

# ---------------------------------------------------------------------------------------------- custom rules


@dataclass
class _Custom:
    fn: cst.FunctionDef  # the decorated primal function
    nondiff: tuple[int, ...]
    rules: list[cst.BaseExpression]  # fwd, bwd (custom_vjp) or the jvp rule


def _nondiff(ctx: Context, call: cst.Call) -> tuple[int, ...] | None:
    kw = _kw(call, "nondiff_argnums")
    if kw is None:
        return ()
    v = _int(kw.value)
    if v is not None:
        return (v,)
    if isinstance(kw.value, (cst.Tuple, cst.List)):
        vals = [_int(e.value) for e in kw.value.elements]
        if all(x is not None for x in vals):
            return tuple(sorted(x for x in vals if x is not None))
    return None


def _customs(ctx: Context, kind: str) -> list[_Custom]:
    """The ``jax.custom_vjp``/``jax.custom_jvp`` functions defined in the cell, with their registered rules."""
    dotted = f"jax.{kind}"
    out = []
    for fd in ctx.nodes(cst.FunctionDef):
        assert isinstance(fd, cst.FunctionDef)
        nondiff: tuple[int, ...] | None = None
        for d in fd.decorators:
            e = d.decorator
            if full_name(ctx, e, known=_PUBLIC) == dotted:
                nondiff = ()
            elif isinstance(e, cst.Call):
                head = full_name(ctx, e.func, known=_PUBLIC)
                pos = positional_args(e)
                if head == dotted or (head == "functools.partial" and pos and full_name(ctx, pos[0].value, known=_PUBLIC) == dotted):
                    nondiff = _nondiff(ctx, e)
        if nondiff is None:
            continue
        name = fd.name.value
        rules: list[cst.BaseExpression] = []
        method = "defvjp" if kind == "custom_vjp" else "defjvp"
        for c in ctx.nodes(m.Call(func=m.Attribute(value=m.Name(name), attr=m.Name(method)))):
            rules = [a.value for a in c.args if a.keyword is None]  # type: ignore[attr-defined]
        if kind == "custom_jvp":
            for f2 in ctx.nodes(cst.FunctionDef):
                if any(m.matches(d.decorator, m.Attribute(value=m.Name(name), attr=m.Name("defjvp")))
                       for d in f2.decorators):  # type: ignore[attr-defined]
                    rules = [f2.name]  # type: ignore[attr-defined]
        out.append(_Custom(fd, nondiff, rules))
    return out


def _rule_fn(ctx: Context, e: cst.BaseExpression) -> cst.FunctionDef | cst.Lambda | None:
    if isinstance(e, cst.Lambda):
        return e
    if isinstance(e, cst.Name):
        return ctx.function_named(e.value)
    return None


def _tree_inner(text: str) -> str | None:
    mm = re.fullmatch(r"\s*PyTreeDef\((.*)\)\s*\.?\s*", text or "")
    return mm.group(1) if mm else None


@_rule("custom-vjp-bwd-tuple")
def custom_vjp_bwd_tuple(ctx: Context) -> Edit | None:
    """bwd returning a bare cotangent for a one-argument function -> a 1-tuple; entries for nondiff args dropped.

    Why the same values: bwd must return one cotangent per differentiable argument, as a tuple; wrapping
    the one cotangent of a one-argument function (checked: the primal has one differentiable parameter
    and the message's trees are ``(bwd's,)``), or dropping the entries bwd returned as ``None`` for the
    ``nondiff_argnums`` arguments (checked: ``None`` literals at exactly those positions in every return),
    hands JAX the cotangents bwd computed, each for the argument it was computed for.
    """
    bwd_tree = _tree_inner(ctx.values.get("bwd_tree", ""))
    primal_tree = _tree_inner(ctx.values.get("primal_tree", ""))
    if bwd_tree is None or primal_tree is None:
        return None
    found: list[tuple[list[tuple[cst.CSTNode, cst.CSTNode]], str, str]] = []
    for c in _customs(ctx, "custom_vjp"):
        params = _fn_params(c.fn)
        bwd = _rule_fn(ctx, c.rules[1]) if len(c.rules) == 2 else None
        holders = _returns(bwd) if bwd is not None else None
        if params is None or holders is None:
            continue
        values = [_ret_value(h) for h in holders]
        if primal_tree == f"({bwd_tree},)" and len(params) - len(c.nondiff) == 1:
            pairs = [(h, _with_value(h, _tuple([v]))) for h, v in zip(holders, values, strict=True)]
            found.append((pairs, "safe", "bwd now returns a 1-tuple `(cotangent,)`: one entry per argument of "
                                         f"`{c.fn.name.value}`, same values."))
        elif c.nondiff and all(isinstance(v, (cst.Tuple, cst.List)) and len(v.elements) == len(params)
                               for v in values):
            ok = all(m.matches(v.elements[i].value, m.Name("None")) for v in values  # type: ignore[attr-defined]
                     for i in c.nondiff)
            if not ok:
                continue
            pairs = []
            for h, v in zip(holders, values, strict=True):
                keep = [e.value for i, e in enumerate(v.elements) if i not in c.nondiff]  # type: ignore[attr-defined]
                pairs.append((h, _with_value(h, _tuple(keep, parens=bool(v.lpar)))))
            skipped = ", ".join(f"`{params[i]}`" for i in c.nondiff)
            found.append((pairs, "safe", f"bwd no longer returns entries for the nondiff_argnums argument(s) "
                                         f"{skipped}: they get no cotangent."))
    if len(found) != 1:
        return None
    pairs, safety, summary = found[0]
    return Edit(_edit(ctx, pairs), safety, summary)


def _unpacked(fn: cst.FunctionDef, name: str) -> list[str] | None:
    """Names that ``a, b = name`` unpacks in the body of ``fn``."""
    for a in m.findall(fn.body, m.Assign(value=m.Name(name))):
        assert isinstance(a, cst.Assign)
        t = a.targets[0].target
        if len(a.targets) == 1 and isinstance(t, (cst.Tuple, cst.List)) and all(
                isinstance(e.value, cst.Name) and not isinstance(e, cst.StarredElement) for e in t.elements):
            return [e.value.value for e in t.elements]  # type: ignore[attr-defined]
    return None


@_rule("custom-vjp-fwd-pair")
def custom_vjp_fwd_pair(ctx: Context) -> Edit | None:
    """fwd returning ``y, a, b`` -> ``y, (a, b)``; fwd returning only ``y`` -> ``y, x`` when bwd plainly reads ``x``.

    Only the grouping can be ``safe``: fwd's output and saved values are unchanged, in order, and bwd gets
    them as the residual it unpacks (checked: bwd's body unpacks its residual parameter into exactly that
    many names, ``a, b = res``), so bwd computes the same cotangents. Saving inputs bwd names is a guess
    at what it needs: ``review``.
    """
    fwd_name = ctx.values.get("fwd") or ctx.values.get("fwd_name") or ""
    fun_name = ctx.values.get("fun") or ctx.values.get("primal_name") or ""
    fwd = ctx.function_named(fwd_name)
    custom = [c for c in _customs(ctx, "custom_vjp") if c.fn.name.value == fun_name]
    if fwd is None or len(custom) != 1 or len(custom[0].rules) != 2:
        return None
    c = custom[0]
    bwd = _rule_fn(ctx, c.rules[1])
    holders = _returns(fwd)
    fwd_params = _fn_params(fwd)
    bwd_params = _fn_params(bwd) if bwd is not None else None
    if holders is None or fwd_params is None or bwd_params is None or len(bwd_params) != len(c.nondiff) + 2:
        return None
    res = bwd_params[len(c.nondiff)]
    values = [_ret_value(h) for h in holders]
    sizes = {len(v.elements) if isinstance(v, cst.Tuple) else 0 for v in values}
    if len(sizes) == 1 and min(sizes) >= 3:
        n = min(sizes)
        if any(isinstance(e, cst.StarredElement) for v in values for e in v.elements):  # type: ignore[attr-defined]
            return None
        pairs = []
        for h, v in zip(holders, values, strict=True):
            els = [e.value for e in v.elements]  # type: ignore[attr-defined]
            pairs.append((h, _with_value(h, v.with_changes(elements=[cst.Element(els[0]),  # type: ignore[attr-defined]
                                                                      cst.Element(_tuple(els[1:]))]))))
        reads = _unpacked(bwd, res) if isinstance(bwd, cst.FunctionDef) else None
        safe = reads is not None and len(reads) == n - 1
        return Edit(_edit(ctx, pairs), "safe" if safe else "review",
                    f"`{fwd_name}` now returns (output, residuals) with its {n - 1} saved values grouped in one tuple"
                    + (", as `" + (c.rules[1].value if isinstance(c.rules[1], cst.Name) else "bwd")
                       + "` unpacks them." if safe else "; check that bwd reads them in this order."))
    if sizes != {0} or any(isinstance(v, (cst.List, cst.Dict)) for v in values):
        return None
    # only the output: the residuals are the inputs bwd reads under the same names
    if res in fwd_params:
        residual: cst.BaseExpression = cst.Name(res)
        saved = f"`{res}`"
    else:
        names = _unpacked(bwd, res) if isinstance(bwd, cst.FunctionDef) else None
        if not names or any(x not in fwd_params for x in names):
            return None
        residual = _tuple([cst.Name(x) for x in names])
        saved = ", ".join(f"`{x}`" for x in names)
    pairs = [(h, _with_value(h, _tuple([_paren(v) if isinstance(v, cst.Lambda) else v, residual], parens=False)))
             for h, v in zip(holders, values, strict=True)]
    return Edit(_edit(ctx, pairs), "review",
                f"`{fwd_name}` now returns (output, residuals), saving the input(s) {saved} that bwd reads: "
                "check that bwd expects exactly these values.")


def _bindings(fn: cst.FunctionDef, name: str) -> int:
    """How many statements of the body bind ``name`` (assignments, loops, with, imports...)."""
    n = 0
    for node in m.findall(fn.body, m.AssignTarget() | m.AugAssign() | m.AnnAssign() | m.For() | m.WithItem()
                          | m.NamedExpr()):
        target = getattr(node, "target", None) or getattr(getattr(node, "asname", None), "name", None)
        if target is not None and m.findall(target, m.Name(name)):
            n += 1
    return n


@_rule("custom-jvp-pair")
def custom_jvp_pair(ctx: Context) -> Edit | None:
    """A custom_jvp rule returning only the tangent -> ``(primal_out, tangent_out)``, the primal from the function."""
    rule_name = ctx.values.get("rule") or ctx.values.get("jvp_name") or ""
    fun_name = ctx.values.get("fun") or ctx.values.get("primal_name") or ""
    jvp = ctx.function_named(rule_name)
    custom = [c for c in _customs(ctx, "custom_jvp") if c.fn.name.value == fun_name]
    if jvp is None or len(custom) != 1:
        return None
    c = custom[0]
    if c.nondiff != tuple(range(len(c.nondiff))):
        return None  # nondiff arguments in the middle: their order in the call is not worth guessing
    params = _fn_params(jvp)
    f_params = _fn_params(c.fn)
    holders = _returns(jvp)
    if params is None or f_params is None or holders is None or len(params) != len(c.nondiff) + 2:
        return None
    values = [_ret_value(h) for h in holders]
    if any(isinstance(v, (cst.Tuple, cst.List, cst.Dict)) for v in values):
        return None
    lead = params[: len(c.nondiff)]
    primals = params[len(c.nondiff)]
    names = _unpacked(jvp, primals)
    if names is None:  # (x,), (t,) = primals, tangents
        for a in m.findall(jvp.body, m.Assign(value=m.Tuple([m.Element(m.Name(primals)), m.Element()]))):
            t = a.targets[0].target  # type: ignore[attr-defined]
            if isinstance(t, cst.Tuple) and len(t.elements) == 2 and isinstance(t.elements[0].value, cst.Tuple):
                inner = t.elements[0].value.elements
                if all(isinstance(e.value, cst.Name) for e in inner):
                    names = [e.value.value for e in inner]  # type: ignore[attr-defined]
    if names is not None and len(names) != len(f_params) - len(c.nondiff):
        return None
    if names is not None and any(_bindings(jvp, x) != 1 for x in names):
        names = None  # rebound in the rule: call the function on the primals themselves
    if _bindings(jvp, primals) != 0 or any(_bindings(jvp, x) != 0 for x in lead):
        return None
    primal: cst.BaseExpression | None = None
    body = c.fn.body.body if isinstance(c.fn.body, cst.IndentedBlock) else []
    if names is not None and not c.nondiff and names == f_params and len(body) == 1 and m.matches(
            body[0], m.SimpleStatementLine([m.Return()])):
        value = body[0].body[0].value  # type: ignore[attr-defined]
        if value is not None and not isinstance(value, (cst.Tuple, cst.List, cst.Dict)):
            primal = value  # the function's own expression, on the same names
    if primal is None:
        args = [cst.Arg(cst.Name(x)) for x in lead]
        args += [cst.Arg(cst.Name(x)) for x in names] if names is not None else [cst.Arg(cst.Name(primals), star="*")]
        primal = cst.Call(cst.Name(fun_name), args)
    pairs = [(h, _with_value(h, _tuple([_paren(primal) if isinstance(primal, cst.Lambda) else primal, v],
                                       parens=False))) for h, v in zip(holders, values, strict=True)]
    return Edit(_edit(ctx, pairs), "review",
                f"`{rule_name}` now returns (primal_out, tangent_out), the primal output computed as `{fun_name}` "
                "does: check it is the value the function returns.")


_AVAL = re.compile(r"([a-z]+\d*)\[([\d,\s]*)\]")


@_rule("custom-vjp-bwd-unbroadcast")
def custom_vjp_bwd_unbroadcast(ctx: Context) -> Edit | None:
    """A bwd cotangent shaped like the (broadcast) output for a smaller input -> summed over the broadcast axes."""
    path = re.fullmatch(r"\[(\d+)\]", ctx.values.get("path", "").strip())
    got = _AVAL.match(ctx.values.get("got", "").strip())
    want = _AVAL.match(ctx.values.get("expected", "").strip())
    if path is None or got is None or want is None or got.group(1) != want.group(1):
        return None
    k = int(path.group(1))
    g_dims = [int(x) for x in got.group(2).split(",") if x.strip()]
    w_dims = [int(x) for x in want.group(2).split(",") if x.strip()]
    lead = len(g_dims) - len(w_dims)
    if lead <= 0 or g_dims[lead:] != w_dims:
        return None  # not a leading broadcast: the rule itself is wrong in a way a sum does not fix
    customs = [c for c in _customs(ctx, "custom_vjp") if len(c.rules) == 2]
    if len(customs) != 1:
        return None
    c = customs[0]
    bwd = _rule_fn(ctx, c.rules[1])
    holders = _returns(bwd) if bwd is not None else None
    params = _fn_params(c.fn)
    if holders is None or params is None:
        return None
    diff = [p for i, p in enumerate(params) if i not in c.nondiff]
    if k >= len(diff):
        return None
    total, imp = _ref(ctx, "jax.numpy.sum")
    axis = [] if not w_dims else [keyword_arg("axis", cst.parse_expression(
        "0" if lead == 1 else repr(tuple(range(lead)))))]
    pairs = []
    for h in holders:
        v = _ret_value(h)
        if not isinstance(v, (cst.Tuple, cst.List)) or len(v.elements) != len(diff):
            return None
        el = v.elements[k]
        if isinstance(el, cst.StarredElement):
            return None
        new_el = el.with_changes(value=cst.Call(total, [cst.Arg(_bare(el.value)), *axis]))
        pairs.append((el, new_el))
    return Edit(_edit(ctx, pairs, imports=[imp]), "review",
                f"the cotangent for `{diff[k]}` is summed over the {lead} broadcast axis(es) to its shape "
                f"{tuple(w_dims)}: right when `{c.fn.name.value}` broadcasts `{diff[k]}` against the other inputs.")


@_rule("grad-argnums-positional")
def grad_argnums_positional(ctx: Context) -> Edit | None:
    """``grad(f, argnums=1)(x, w=w)``: pass the keyword arguments that argnums counts positionally.

    Why the same values: ``f(x, w)`` binds the same values to the same parameters as ``f(x, w=w)``
    (checked: the function is a def of the cell with plain positional parameters, the moved keywords are
    exactly the parameters up to the highest argnum, no vmap/pmap wraps the call), and argnums then
    reaches the argument it names. ``safe`` when nothing is evaluated in another order: the moved
    values are simple, or the keywords already come first in signature order.
    """
    use = _grad_use(ctx, {**_GRADS, **_JACS})
    if use is None:
        return None
    argnums = _argnums(use.make)
    fn_arg = positional_args(use.make)
    pos = positional_args(use.apply)
    if argnums is None or not fn_arg or pos is None:
        return None
    fn, name = _target_fn(ctx, fn_arg[0].value)
    params = _fn_params(fn) if fn is not None else None
    if params is None:
        return None
    if use.wrappers:
        return None  # under vmap/pmap a keyword argument is batched differently from a positional one
    need = max(argnums) + 1
    missing = params[len(pos):need]
    kws = {a.keyword.value: a for a in use.apply.args if a.keyword is not None}
    if need > len(params) or not missing or any(p not in kws for p in missing):
        return None
    moved = [cst.Arg(kws[p].value) for p in missing]
    rest = [a.with_changes(comma=cst.MaybeSentinel.DEFAULT) for a in use.apply.args
            if a.keyword is None or a.keyword.value not in missing]
    keep_pos = [a for a in rest if a.keyword is None]
    keep_kw = [a for a in rest if a.keyword is not None]
    new_apply = use.apply.with_changes(args=[*keep_pos, *moved, *keep_kw])
    shown = ", ".join(f"`{p}`" for p in missing)
    order = [a.keyword.value for a in use.apply.args if a.keyword is not None]
    in_order = order[:len(missing)] == list(missing)
    simple = all(isinstance(v, (cst.Name, cst.Attribute, cst.Integer, cst.Float, cst.SimpleString)) or isinstance(
        v, cst.UnaryOperation) and isinstance(v.expression, (cst.Integer, cst.Float))
        for v in (kws[p].value for p in missing))
    if not (in_order or simple):
        return Edit(_edit(ctx, [(use.apply, new_apply)]), "review",
                    f"{shown} passed by position: argnums counts positional arguments; check nothing depends on "
                    "the order the arguments are evaluated in.")
    return Edit(_edit(ctx, [(use.apply, new_apply)]), "safe",
                f"{shown} passed by position: argnums counts positional arguments; same call of `{name or 'f'}`.")


@_rule("custom-vjp-defvjp")
def custom_vjp_defvjp(ctx: Context) -> Edit | None:
    """A custom_vjp function with ``<f>_fwd``/``<f>_bwd`` defined but never registered: add ``f.defvjp(...)``."""
    fun = ctx.values.get("fun", "").strip()
    custom = [c for c in _customs(ctx, "custom_vjp") if c.fn.name.value == fun and not c.rules]
    if len(custom) != 1 or ctx.line is None:
        return None
    fwd = ctx.function_named(f"{fun}_fwd")
    bwd = ctx.function_named(f"{fun}_bwd")
    if fwd is None or bwd is None:
        return None
    blocks = {ctx.parent(x) for x in (custom[0].fn, fwd, bwd)}
    if len(blocks) != 1:
        return None
    last = max((custom[0].fn, fwd, bwd), key=lambda n: ctx.span(n)[0])
    if ctx.parent(last) is ctx.module and ctx.span(last)[1] >= ctx.line:
        return None  # the failing call comes before the rules exist
    reg = cst.parse_statement(f"{fun}.defvjp({fun}_fwd, {fun}_bwd)\n")
    return Edit(_edit(ctx, [], after={last: [reg]}), "review",
                f"registers `{fun}_fwd`/`{fun}_bwd` as the rules of `{fun}` with `{fun}.defvjp`: check that they are "
                "the rules you meant.")
