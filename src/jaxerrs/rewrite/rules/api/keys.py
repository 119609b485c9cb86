"""PRNG keys: ints where keys belong, seeds, raw key data, ``fold_in``, integer dtypes for ``randint``."""

from __future__ import annotations

import re
from typing import Any

import libcst as cst

from jaxerrs.rewrite import Edit
from jaxerrs.rewrite.context import Context
from jaxerrs.rewrite.names import full_name
from jaxerrs.rewrite.rules import rule
from jaxerrs.rewrite.rules.api.helpers import _arg, _calls_on_line, _expr, _is_array, _module_ref, _wrap
from jaxerrs.rewrite.values import live_value

# ---------------------------------------------------------------------------------------------- PRNG keys

_NOT_KEY_TAKERS = {"key", "PRNGKey", "wrap_key_data", "key_impl", "default_prng_impl", "threefry2x32_key",
                   "rbg_key", "unsafe_rbg_key", "threefry_2x32"}


def _is_int(ctx: Context, node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.Integer):
        return True
    v = live_value(ctx, node, attrs="getattr", scoped=True)
    return isinstance(v, int) and not isinstance(v, bool)


def _key_kind(value: Any) -> str:
    """'typed' for a new-style key array, 'raw' for a uint32 (..., 2) key, '' otherwise."""
    if not _is_array(value):
        return ""
    try:
        import jax

        if jax.dtypes.issubdtype(value.dtype, jax.dtypes.prng_key):
            return "typed"
        if str(value.dtype) == "uint32" and len(value.shape) >= 1 and value.shape[-1] == 2:
            return "raw"
    except Exception:  # noqa: BLE001
        return ""
    return ""


def _random_calls(ctx: Context) -> list[tuple[cst.Call, cst.Arg, str]]:
    """jax.random calls that take a key, with their key argument and the cell's spelling of jax.random."""
    out = []
    for call in ctx.nodes(cst.Call):
        assert isinstance(call, cst.Call)
        full = full_name(ctx, call.func)
        if not full.startswith("jax.random.") or full.count(".") != 2 or full.rsplit(".", 1)[1] in _NOT_KEY_TAKERS:
            continue
        arg = _arg(call, 0, "key")
        if arg is None:
            continue
        if isinstance(call.func, cst.Attribute):
            prefix = ctx.code(call.func.value)
        else:
            prefix, _ = _module_ref(ctx, "jax.random", "jax.random")
        out.append((call, arg, prefix))
    return out


def _key_style(ctx: Context) -> str:
    """'PRNGKey' where the cell or its namespace already works with raw uint32 keys, else 'key'."""
    for node in ctx.nodes(cst.Attribute) + ctx.nodes(cst.Name):
        if full_name(ctx, node) == "jax.random.PRNGKey":
            return "PRNGKey"
    for v in (ctx.namespace or {}).values():
        if _key_kind(v) == "raw":
            return "PRNGKey"
    return "key"


@rule("int-to-key")
def int_to_key(ctx: Context) -> Edit | None:
    """An int seed passed where a PRNG key goes is turned into a key (``jax.random.key(seed)``)."""
    bad = ctx.values.get("key_data", "")
    if not bad:  # the hole's name differs between releases (``{key_data}``, ``{value}``): read the message's tail
        got = re.search(r"\. Got (-?\d+)\s*$", ctx.message or "")
        bad = got.group(1) if got else ""
    stmt = ctx.statement(cst.If, cst.While, cst.For, cst.With, cst.Return)
    if stmt is None:
        return None
    lo, hi = ctx.span(stmt)
    calls = _random_calls(ctx)
    failing = [(c, a, p) for c, a, p in calls if lo <= ctx.span(c)[0] <= hi and _is_int(ctx, a.value)
               and str(a.value.evaluated_value if isinstance(a.value, cst.Integer) else live_value(ctx, a.value, attrs="getattr", scoped=True)) == bad]
    if len({ctx.code(a.value) for _, a, _ in failing}) != 1:
        return None
    call, arg, prefix = failing[0]
    style = _key_style(ctx)
    pairs: list[tuple[cst.CSTNode, cst.CSTNode]] = []
    fn = ctx.enclosing(call, cst.FunctionDef)
    param = None
    if isinstance(arg.value, cst.Name) and isinstance(fn, cst.FunctionDef):
        names = [p.name.value for p in fn.params.params]
        if arg.value.value in names:
            param = arg.value.value
    if param is not None and re.search(r"key|rng", param, re.I):
        # the function expects a key: fix the cell's calls that hand it an int
        assert isinstance(fn, cst.FunctionDef)
        idx = [p.name.value for p in fn.params.params].index(param)
        for site in ctx.nodes(cst.Call):
            assert isinstance(site, cst.Call)
            if not (isinstance(site.func, cst.Name) and site.func.value == fn.name.value):
                continue
            a = _arg(site, idx, param)
            if a is not None and _is_int(ctx, a.value):
                pairs.append((a.value, _wrap(f"{prefix}.{style}", a.value)))
        if not pairs:
            return None
        where = f"the calls of `{fn.name.value}`"
    else:
        seeded: set[int] = set()  # int literals a name is bound to, made keys where they are written
        for c, a, p in calls:  # every int given as a key in this scope raises the same way: all of them
            same_int = _is_int(ctx, a.value) and ctx.enclosing(c, cst.FunctionDef) is fn
            if not (c is call or isinstance(a.value, cst.Integer) or same_int):
                continue
            lit = _int_binding(ctx, a.value, fn) if isinstance(a.value, cst.Name) and _only_keys(
                ctx, a.value, fn, {id(k.value) for _, k, _ in calls}) else None
            if lit is None:
                pairs.append((a.value, _wrap(f"{p}.{style}", a.value)))
            elif id(lit) not in seeded:
                seeded.add(id(lit))
                pairs.append((lit, _wrap(f"{p}.{style}", lit)))
        where = "the `jax.random` calls"
    return Edit(ctx.replace_many(pairs), "review",
                f"Integer seeds passed to {where} are turned into keys with `{prefix}.{style}(seed)`; check that "
                "you did not mean to pass an existing key (its random numbers would differ).")


def _only_keys(ctx: Context, name: cst.Name, fn: cst.CSTNode | None, key_args: set[int]) -> bool:
    """Whether every read of ``name`` in its scope is the key argument of a ``jax.random`` call (so the
    seed may become a key where it is written; a seed also printed or added to is not)."""
    for n in ctx.nodes(cst.Name):
        assert isinstance(n, cst.Name)
        if n.value != name.value or ctx.enclosing(n, cst.FunctionDef) is not fn:
            continue
        p = ctx.parent(n)
        if isinstance(p, cst.Attribute) and p.attr is n:
            continue
        stores = isinstance(p, (cst.AssignTarget, cst.Element)) and any(
            isinstance(x, cst.AssignTarget) for x in [p, *ctx.ancestors(p)][:3])
        if not stores and id(n) not in key_args:
            return False
    return True


def _int_binding(ctx: Context, name: cst.Name, fn: cst.CSTNode | None) -> cst.Integer | None:
    """The int literal ``name`` is bound to by its one such assignment in its scope (``key = 0``,
    ``data_seed, init_seed = 0, 1``), when every other binding there is not an int (``key, sub =
    split(key)``): the key is made where the seed is written, so a loop that splits it keeps a key."""
    found: list[cst.Integer] = []
    for a in ctx.nodes(cst.Assign):
        assert isinstance(a, cst.Assign)
        if ctx.enclosing(a, cst.FunctionDef) is not fn:
            continue
        for t in a.targets:
            tgt, val = t.target, a.value
            if isinstance(tgt, cst.Name) and tgt.value == name.value and isinstance(val, cst.Integer):
                found.append(val)
            elif isinstance(tgt, (cst.Tuple, cst.List)) and isinstance(val, (cst.Tuple, cst.List)):
                names = [e.value for e in tgt.elements]
                vals = [e.value for e in val.elements]
                for n, v in zip(names, vals, strict=False):
                    if len(names) == len(vals) and isinstance(n, cst.Name) and n.value == name.value \
                            and isinstance(v, cst.Integer):
                        found.append(v)
    return found[0] if len(found) == 1 else None


@rule("seed-to-int")
def seed_to_int(ctx: Context) -> Edit | None:
    """A float seed given to ``jax.random.key``/``PRNGKey`` is made an int (``1e3`` -> ``1000``)."""
    found = []
    for call in _calls_on_line(ctx):
        if full_name(ctx, call.func) not in ("jax.random.key", "jax.random.PRNGKey"):
            continue
        a = _arg(call, 0, "seed")
        if a is None:
            continue
        v = a.value
        if isinstance(v, cst.Float):
            num = float(v.value.replace("_", ""))
            if num.is_integer():
                found.append((v, cst.Integer(str(int(num)))))
            else:
                found.append((v, _wrap("int", v)))
            continue
        val = live_value(ctx, v, attrs="getattr", scoped=True)
        if isinstance(val, float) or (type(val).__module__ == "numpy" and "float" in type(val).__name__):
            found.append((v, _wrap("int", v)))
    if len(found) != 1:
        return None
    old, new = found[0]
    return Edit(ctx.replace(old, new), "review",
                f"The seed `{ctx.code(old)}` is made an integer (`{ctx.module.code_for_node(new)}`); "  # type: ignore[union-attr]
                "check it was a whole number: int() drops any fraction.")


@rule("wrap-key-data")
def wrap_key_data(ctx: Context) -> Edit | None:
    """Typed and raw keys mixed in one operation: the raw ones are wrapped into typed keys.

    Why the same values: ``wrap_key_data(k)`` is a typed key holding exactly the uint32 words of ``k``
    with the default implementation, and ``key(s)`` is ``wrap_key_data(PRNGKey(s))``; so every random
    function draws from the same bits as before. Exact only for threefry keys, which is checked: the
    message's implementation is threefry (or unnamed) and so is ``jax_default_prng_impl``; the raw keys are
    the names on the line whose live value is a uint32 array ending in 2.
    """
    impl = ctx.values.get("impl", "")
    try:
        import jax

        default = str(jax.config.jax_default_prng_impl)
    except Exception:  # noqa: BLE001
        return None
    if impl not in ("fry", "") or "threefry" not in default:
        return None  # wrap_key_data uses the default implementation: only exact for threefry keys
    stmt = ctx.statement(cst.If, cst.While, cst.For, cst.With, cst.Return)
    if stmt is None:
        return None
    lo, hi = ctx.span(stmt)
    raw: list[cst.CSTNode] = []
    typed = False
    for node in ctx.nodes(cst.Name):
        assert isinstance(node, cst.Name)
        if not lo <= ctx.span(node)[0] <= hi:
            continue
        parent = ctx.parent(node)
        if isinstance(parent, cst.Attribute) and parent.attr is node or isinstance(parent, cst.Arg) and \
                parent.keyword is node or any(isinstance(a, cst.AssignTarget) for a in ctx.ancestors(node)):
            continue
        kind = _key_kind(live_value(ctx, node, attrs="getattr", scoped=True))
        typed = typed or kind == "typed"
        if kind == "raw":
            raw.append(node)
    makers = [c for c in _calls_on_line(ctx) if full_name(ctx, c.func) == "jax.random.PRNGKey"]
    typed = typed or any(full_name(ctx, c.func) == "jax.random.key" for c in _calls_on_line(ctx))
    for node in ctx.nodes(cst.Name):  # a list of keys named on the line
        if lo <= ctx.span(node)[0] <= hi:
            v = live_value(ctx, node, attrs="getattr", scoped=True)
            if isinstance(v, (list, tuple)):
                kinds = {_key_kind(x) for x in v}
                typed = typed or "typed" in kinds
    if not typed or not (raw or makers):
        return None
    rnd = ctx.ref("jax.random")
    if rnd is None:
        return None
    pairs: list[tuple[cst.CSTNode, cst.CSTNode]] = [(n, _wrap(f"{rnd}.wrap_key_data", n)) for n in raw]  # type: ignore[arg-type]
    for c in makers:
        assert isinstance(c.func, (cst.Attribute, cst.Name))
        new_func = c.func.with_changes(attr=cst.Name("key")) if isinstance(c.func, cst.Attribute) else _expr(
            f"{rnd}.key")
        pairs.append((c, c.with_changes(func=new_func)))
    return Edit(ctx.replace_many(pairs), "safe",
                "Raw uint32 keys on this line are made typed keys (`wrap_key_data`, `PRNGKey(s)` -> `key(s)`): "
                "the same key bits, so the same random numbers.")


@rule("key-fold-in")
def key_fold_in(ctx: Context) -> Edit | None:
    """``key + i`` on a typed key -> ``jax.random.fold_in(key, i)``; ``typed == raw`` compares key data.

    Only the comparison is ``safe``: ``key_data(typed) == raw`` compares the uint32 words, which is what
    ``raw == raw`` compared before typed keys (checked from the live values: one side typed, the other
    a raw uint32 key). ``fold_in`` gives other numbers than arithmetic on raw bits: ``review``.
    """
    stmt = ctx.statement(cst.If, cst.While, cst.For, cst.With, cst.Return)
    rnd = ctx.ref("jax.random")
    if stmt is None or rnd is None:
        return None
    lo, hi = ctx.span(stmt)

    def on_line(n: cst.CSTNode) -> bool:
        return lo <= ctx.span(n)[0] <= hi

    for node in ctx.nodes(cst.BinaryOperation):
        assert isinstance(node, cst.BinaryOperation)
        if not on_line(node) or not isinstance(node.operator, cst.Add):
            continue
        left, right = _key_kind(live_value(ctx, node.left, attrs="getattr", scoped=True)), _key_kind(live_value(ctx, node.right, attrs="getattr", scoped=True))
        if left == "typed" and not right:
            key, data = node.left, node.right
        elif right == "typed" and not left:
            key, data = node.right, node.left
        else:
            continue
        new = _expr(f"{rnd}.fold_in(a, b)").with_changes(lpar=node.lpar, rpar=node.rpar)
        assert isinstance(new, cst.Call)
        new = new.with_changes(args=[cst.Arg(key, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
                                     cst.Arg(data)])
        return Edit(ctx.replace(node, new), "review",
                    f"`{ctx.code(node)}` -> `{rnd}.fold_in(...)`: a key derived from the pair; the numbers differ from "
                    "arithmetic on raw key bits, check nothing relied on those.")
    for node in ctx.nodes(cst.AugAssign):
        assert isinstance(node, cst.AugAssign)
        if on_line(node) and isinstance(node.operator, cst.AddAssign) and isinstance(node.target, cst.Name) and \
                _key_kind(live_value(ctx, node.target, attrs="getattr", scoped=True)) == "typed":
            call = _expr(f"{rnd}.fold_in({node.target.value}, a)")
            assert isinstance(call, cst.Call)
            call = call.with_changes(args=[call.args[0], call.args[1].with_changes(value=node.value)])
            new = cst.Assign(targets=[cst.AssignTarget(node.target)], value=call)
            return Edit(ctx.replace(node, new), "review",
                        f"`{ctx.code(node)}` -> `fold_in`: a new key derived from the old one and the number; "
                        "check nothing relied on raw key arithmetic.")
    for node in ctx.nodes(cst.Comparison):
        assert isinstance(node, cst.Comparison)
        if not on_line(node) or len(node.comparisons) != 1 or not isinstance(
                node.comparisons[0].operator, (cst.Equal, cst.NotEqual)):
            continue
        left, right = node.left, node.comparisons[0].comparator
        kinds = (_key_kind(live_value(ctx, left, attrs="getattr", scoped=True)), _key_kind(live_value(ctx, right, attrs="getattr", scoped=True)))
        if kinds == ("typed", "raw"):
            new = node.with_changes(left=_wrap(f"{rnd}.key_data", left))
        elif kinds == ("raw", "typed"):
            new = node.with_changes(comparisons=[node.comparisons[0].with_changes(
                comparator=_wrap(f"{rnd}.key_data", right))])
        else:
            continue
        return Edit(ctx.replace(node, new), "safe",
                    "The typed key is compared through its raw data (`key_data`), the representation of the other side.")
    return None


@rule("randint-for-int-dtype")
def randint_for_int_dtype(ctx: Context) -> Edit | None:
    """``uniform(key, shape, minval, maxval, dtype=int32)`` -> ``randint(key, shape, minval, maxval, dtype=int32)``."""
    for call in _calls_on_line(ctx):
        if full_name(ctx, call.func) != "jax.random.uniform" or not isinstance(call.func, cst.Attribute):
            continue
        key, shape = _arg(call, 0, "key"), _arg(call, 1, "shape")
        # uniform(key, shape, dtype, minval, maxval) -> randint(key, shape, minval, maxval, dtype)
        dtype, lo_, hi_ = _arg(call, 2, "dtype"), _arg(call, 3, "minval"), _arg(call, 4, "maxval")
        if None in (key, shape, lo_, hi_, dtype):
            return None
        args = [cst.Arg(a.value) for a in (key, shape, lo_, hi_)]  # type: ignore[union-attr]
        args.append(cst.Arg(dtype.value, keyword=cst.Name("dtype"),  # type: ignore[union-attr]
                            equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace(""))))
        args = [a.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))) for a in args[:-1]] + [
            args[-1]]
        new = call.with_changes(func=call.func.with_changes(attr=cst.Name("randint")), args=args)
        return Edit(ctx.replace(call, new), "review",
                    "Integers are drawn with `randint` (uniform over [minval, maxval)); `uniform` only makes floats. "
                    "Check the upper bound: randint excludes maxval.")
    return None
