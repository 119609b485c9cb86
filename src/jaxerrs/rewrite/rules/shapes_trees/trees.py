"""Pytree structure mismatches in ``tree.map`` and ``grad``: argnums, containers, ``None``, dict keys."""

from __future__ import annotations

from typing import Any

import libcst as cst
import libcst.matchers as m

from jaxerrs.rewrite import Edit
from jaxerrs.rewrite.context import Context
from jaxerrs.rewrite.names import full_name
from jaxerrs.rewrite.rules import rule
from jaxerrs.rewrite.rules.shapes_trees.common import (
    _PUBLIC,
    _binding_before,
    _has_kw,
    _paren,
    _shape_of,
)
from jaxerrs.rewrite.rules.shapes_trees.tree_sources import (
    TREE_MAPS,
    detect_tree_source,
    failing_tree_call,
    fix_tree_source,
    init_argument,
    tree_arguments,
)
from jaxerrs.rewrite.values import MISSING, literal, live_value, lookup

# ----------------------------------------------------------------------------- tree-structure

_GRADS = {"jax.grad", "jax.value_and_grad"}


def _tree_map_call(ctx: Context) -> tuple[cst.Call, list[cst.BaseExpression], list[Any]] | None:
    """The single tree-map-like call on the failing line that fails: (call, tree nodes, values).

    ``jax.tree.map(f, t0, t1, ...)``, ``optax.apply_updates(params, updates)`` and ``tx.update(updates,
    state[, params])`` (see :mod:`.tree_sources`); for ``update`` the parameters come first (without them,
    what ``tx.init`` was given in the cell).
    """
    got = failing_tree_call(ctx)
    if got is None:
        return None
    _kind, call, trees, values = got
    if len(values) != len(trees):
        ref = init_argument(ctx, call.func.value)  # type: ignore[attr-defined]
        if ref is None:
            return None
        trees = [ref, *trees]
    return call, trees, values


def _odd_tree(values: list[Any]) -> int | None:
    """Index (among the trees) of the only tree whose structure differs from the first."""
    import jax

    try:
        first = jax.tree.structure(values[0])
        odd = [i for i, v in enumerate(values[1:], 1) if jax.tree.structure(v) != first]
    except Exception:  # noqa: BLE001
        return None
    return odd[0] if len(odd) == 1 else None


def _scope_body(ctx: Context, node: cst.CSTNode) -> cst.CSTNode:
    fn = ctx.enclosing(node, cst.FunctionDef)
    return fn if fn is not None else ctx.module  # type: ignore[return-value]


def _grad_call(ctx: Context, expr: cst.BaseExpression, scope: cst.CSTNode, line: int) -> tuple[cst.Call, cst.Call] | None:
    """For ``jax.grad(f, ...)(args)`` or ``gf(args)`` with ``gf = jax.grad(f, ...)``: (the grad call, the call)."""
    if not isinstance(expr, cst.Call):
        return None
    func = expr.func
    if isinstance(func, cst.Call) and full_name(ctx, func.func, modules=_PUBLIC, keep=True, methods=True) in _GRADS:
        return func, expr
    if isinstance(func, cst.Name):
        for sc in dict.fromkeys([scope, ctx.module]):
            a = _binding_before(ctx, sc, func.value, line)
            if a is not None and len(a.targets) == 1 and isinstance(a.value, cst.Call) and full_name(
                    ctx, a.value.func, modules=_PUBLIC, keep=True, methods=True) in _GRADS:
                return a.value, expr
    return None


def _argnums(call: cst.Call) -> Any:
    for a in call.args:
        if a.keyword is not None and a.keyword.value == "argnums":
            return literal(a.value)
    return 0


def _with_argnums(call: cst.Call, j: int) -> cst.Call:
    args = [a for a in call.args if not (a.keyword is not None and a.keyword.value == "argnums")]
    if j != 0:
        kw = cst.Arg(cst.Integer(str(j)), keyword=cst.Name("argnums"),
                     equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")))
        args = [a.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))) for a in args] + [kw]
    elif args:
        args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return call.with_changes(args=args)


def _same_tree(a: Any, b: Any, is_leaf: Any = None) -> bool:
    """Same structure and, leaf by leaf, the same shapes."""
    import jax

    try:
        if jax.tree.structure(a, is_leaf=is_leaf) != jax.tree.structure(b, is_leaf=is_leaf):
            return False
        la, lb = jax.tree.leaves(a, is_leaf=is_leaf), jax.tree.leaves(b, is_leaf=is_leaf)
    except Exception:  # noqa: BLE001
        return False
    return all(_shape_of(x) == _shape_of(y) for x, y in zip(la, lb, strict=True))


def _fix_argnums(ctx: Context, call: cst.Call, trees: list[cst.BaseExpression], values: list[Any],
                 odd: int) -> Edit | None:
    """grads = jax.grad(loss, argnums=1)(params, batch): the gradient was taken w.r.t. the wrong argument."""
    g_node, p_node = trees[odd], trees[0]
    if not isinstance(g_node, cst.Name) or not isinstance(p_node, cst.Name):
        return None
    line = ctx.span(call)[0]
    scope = _scope_body(ctx, call)
    assign = _binding_before(ctx, scope, g_node.value, line)
    if assign is None or len(assign.targets) != 1:
        return None
    got = _grad_call(ctx, assign.value, scope, line)
    if got is None:
        return None
    grad, applied = got
    k = _argnums(grad)
    if not isinstance(k, int) or any(a.keyword is not None or a.star for a in applied.args):
        return None
    pos = [i for i, a in enumerate(applied.args) if isinstance(a.value, cst.Name) and a.value.value == p_node.value]
    if len(pos) != 1 or pos[0] == k:
        return None
    target = assign.targets[0].target
    is_vg = full_name(ctx, grad.func, modules=_PUBLIC, keep=True, methods=True) == "jax.value_and_grad"
    if is_vg != isinstance(target, cst.Tuple):
        return None
    j = pos[0]
    taken = live_value(ctx, applied.args[k].value, attrs="instance-or-module") if k < len(applied.args) else MISSING
    if taken is not MISSING and not _same_tree(taken, values[odd]):
        return None  # the odd tree is not the gradient of argument k after all
    f = grad.args[0].value if grad.args else None
    name = ctx.code(f) if f is not None else "the function"
    return Edit(ctx.replace(grad, _with_argnums(grad, j)), "review",
                f"the gradient of `{name}` is now taken with respect to `{p_node.value}` (argument {j}) instead of "
                f"argument {k}, so `{g_node.value}` matches `{p_node.value}`; check that this is the argument you train.")


def _fix_value_and_grad(ctx: Context, call: cst.Call, trees: list[cst.BaseExpression], odd: int) -> Edit | None:
    """grads = jax.value_and_grad(loss)(params): the (value, grads) pair was bound to one name."""
    g_node = trees[odd]
    if not isinstance(g_node, cst.Name) or not isinstance(live_value(ctx, g_node, attrs="instance-or-module"), tuple):
        return None
    line = ctx.span(call)[0]
    scope = _scope_body(ctx, call)
    assign = _binding_before(ctx, scope, g_node.value, line)
    if assign is None or len(assign.targets) != 1 or not isinstance(assign.targets[0].target, cst.Name):
        return None
    got = _grad_call(ctx, assign.value, scope, line)
    if got is None or full_name(ctx, got[0].func, modules=_PUBLIC, keep=True, methods=True) != "jax.value_and_grad":
        return None
    value = live_value(ctx, g_node, attrs="instance-or-module")
    if len(value) != 2 or not _same_tree(live_value(ctx, trees[0], attrs="instance-or-module"), value[1]):
        return None
    free = next((n for n in ("loss", "loss_value", "value") if not ctx.bound(n)), "_")
    target = cst.Tuple([cst.Element(cst.Name(free), comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
                        cst.Element(cst.Name(g_node.value))], lpar=[], rpar=[])
    new = assign.with_changes(targets=[assign.targets[0].with_changes(target=target)])
    return Edit(ctx.replace(assign, new), "review",
                f"`jax.value_and_grad` returns (value, gradients): the pair is unpacked into `{free}, "
                f"{g_node.value}`; check that nothing else expected the pair.")


def _fix_container(ctx: Context, call: cst.Call, trees: list[cst.BaseExpression], values: list[Any],
                   odd: int) -> Edit | None:
    """A list where the first tree has a tuple (or the reverse), with the same leaves: convert it.

    Safe: ``list(t)``/``tuple(t)`` of a flat container keeps its items in order, so the map pairs the very
    leaves it would pair position by position, and its result has the first tree's container, as before.
    Not offered when that result is mapped again, in the same scope, against a tree of the other container
    (the conversion would only move the failure there; the tree is fixed where it is built, or not at all).
    """
    first, other = values[0], values[odd]
    if type(first) not in (list, tuple) or type(other) not in (list, tuple) or type(first) is type(other):
        return None
    conv = type(first).__name__
    shadow = lookup(ctx, conv)
    if not _same_tree(first, type(first)(other)) or shadow is not MISSING and shadow is not type(first):
        return None  # different leaves, or `list`/`tuple` rebound by the user
    if _clashes_later(ctx, call, type(first)):
        return None  # the result keeps the first tree's container and meets the other kind again
    node = trees[odd]
    new = cst.Call(func=cst.Name(conv), args=[cst.Arg(node)])
    return Edit(ctx.replace(node, new), "safe",
                f"`{ctx.code(node)}` is converted to a {conv} so its structure matches the first tree; the leaves "
                "are the same.")


def _fix_rebuilt_container(ctx: Context, call: cst.Call, trees: list[cst.BaseExpression], values: list[Any],
                           odd: int) -> Edit | None:
    """The same leaves in another container, converted at the call where the conversion is exact:

    - a stacked array against a list (tuple) of arrays of its rows' shape -> ``list(arr)``: iterating an array
      gives its rows in order, so the map pairs row i with item i;
    - a dict against a NamedTuple with exactly its keys as fields -> ``Params(**d)``: each field takes the
      entry of its name.
    The converted tree takes the other's container; review, since the first tree decides the result's."""
    import jax

    for a, b in ((0, odd), (odd, 0)):
        first, other = values[a], values[b]
        node = trees[b]
        if type(first) in (list, tuple) and hasattr(other, "shape") and hasattr(other, "dtype") and first:
            shape = getattr(other, "shape", ())
            if len(shape) < 1 or shape[0] != len(first) or not all(
                    hasattr(x, "shape") and tuple(x.shape) == tuple(shape[1:]) for x in first):
                continue
            conv = type(first).__name__
            if lookup(ctx, conv) not in (MISSING, type(first)):
                return None
            new = cst.Call(func=cst.Name(conv), args=[cst.Arg(node)])
            return Edit(ctx.replace(node, new), "review",
                        f"`{ctx.code(node)}` is split into a {conv} of its {shape[0]} rows, one per item of "
                        f"`{ctx.code(trees[a])}`, so the map pairs row i with item i; check that its first axis "
                        "indexes those items.")
        fields = getattr(type(first), "_fields", None)
        if isinstance(fields, tuple) and isinstance(other, dict) and set(other) == set(fields) and fields:
            cls = type(first)
            shown = lookup(ctx, cls.__name__)
            try:
                same = jax.tree.structure(cls(**other)) == jax.tree.structure(first)
            except Exception:  # noqa: BLE001
                same = False
            if shown is not cls or not same:
                return None
            new = cst.Call(func=cst.Name(cls.__name__), args=[cst.Arg(node, star="**")])
            return Edit(ctx.replace(node, new), "review",
                        f"`{ctx.code(node)}` is made a `{cls.__name__}` (each field takes the entry of its name), "
                        f"the type of `{ctx.code(trees[a])}`, so the two trees match.")
    return None


def _clashes_later(ctx: Context, call: cst.Call, kind: type) -> bool:
    """Whether the result of ``call`` (a tree of container ``kind``), bound to a name or ``self.attr``, is
    mapped elsewhere against a tree whose live container is the other of list and tuple (the same failure
    again, one line later)."""
    parent = ctx.parent(call)
    if not (isinstance(parent, cst.Assign) and len(parent.targets) == 1
            and isinstance(parent.targets[0].target, cst.Name | cst.Attribute)):
        return False
    target = parent.targets[0].target
    code = ctx.code(target)
    attr = isinstance(target, cst.Attribute)
    scope = _scope_body(ctx, call)
    for other in ctx.nodes(cst.Call):
        assert isinstance(other, cst.Call)
        if other is call or not attr and _scope_body(ctx, other) is not scope:
            continue
        got = tree_arguments(ctx, other)
        if got is None or not any(ctx.code(t) == code for t in got[1]):
            continue
        for t in got[1]:
            v = live_value(ctx, t, attrs="instance-or-module") if ctx.code(t) != code else MISSING
            if type(v) in (list, tuple) and type(v) is not kind:
                return True
    return False


def _fix_none(ctx: Context, call: cst.Call, trees: list[cst.BaseExpression], values: list[Any]) -> Edit | None:
    """None (a frozen or absent entry) in the first tree: let it reach ``f`` and keep the other value there."""
    if len(trees) != 2 or _has_kw(call, "is_leaf"):
        return None
    fn = call.args[0].value
    if not isinstance(fn, cst.Lambda) or len(fn.params.params) != 2 or fn.params.star_arg not in (
            None, cst.MaybeSentinel.DEFAULT) or fn.params.kwonly_params or fn.params.posonly_params:
        return None
    import jax

    def isnone(x: Any) -> bool:
        return x is None

    first, other = values
    if any(x is None for x in jax.tree.leaves(other, is_leaf=isnone)):
        return None
    try:
        if jax.tree.structure(first, is_leaf=isnone) != jax.tree.structure(other, is_leaf=isnone):
            return None
    except Exception:  # noqa: BLE001
        return None
    # keeping the other value is right only where the map computes the new version of that very tree
    parent = ctx.parent(call)
    if not (isinstance(parent, cst.Assign) and len(parent.targets) == 1 and isinstance(trees[1], (cst.Name, cst.Attribute))
            and ctx.code(parent.targets[0].target) == ctx.code(trees[1])):
        return None
    a, b = (p.name.value for p in fn.params.params)
    body = cst.IfExp(test=cst.Comparison(cst.Name(a), [cst.ComparisonTarget(cst.Is(), cst.Name("None"))]),
                     body=cst.Name(b), orelse=_paren(fn.body) if isinstance(fn.body, (cst.IfExp, cst.Lambda)) else fn.body)
    new_fn = fn.with_changes(body=body)
    is_leaf = cst.Arg(cst.parse_expression("lambda x: x is None"), keyword=cst.Name("is_leaf"),
                      equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")))
    args = list(call.args)
    args[0] = args[0].with_changes(value=new_fn)
    args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    new = call.with_changes(args=[*args, is_leaf])
    t0, t1 = ctx.code(trees[0]), ctx.code(trees[1])
    return Edit(ctx.replace(call, new), "review",
                f"where `{t0}` holds None, the entry of `{t1}` is left unchanged (None is an empty subtree; "
                "`is_leaf` lets it reach the function); check that None means 'leave this entry alone'.")


def _dict_literal(ctx: Context, node: cst.BaseExpression, line: int, scope: cst.CSTNode,
                  depth: int = 0) -> cst.BaseExpression | None:
    """The dict (or list/tuple) literal ``node`` is, or was bound to by its one earlier assignment.

    A parameter of the enclosing function is followed to the argument of its one call in the cell.
    """
    if isinstance(node, (cst.Dict, cst.List, cst.Tuple)):
        return node
    if not isinstance(node, cst.Name) or depth > 3:
        return None
    a = _binding_before(ctx, scope, node.value, line) or (
        _binding_before(ctx, ctx.module, node.value, line) if scope is not ctx.module else None)  # type: ignore[arg-type]
    if a is not None:
        if len(a.targets) == 1 and isinstance(a.targets[0].target, cst.Name):
            return _dict_literal(ctx, a.value, ctx.span(a)[0], scope, depth + 1)
        return None
    if not isinstance(scope, cst.FunctionDef):
        return None
    params = [p.name.value for p in scope.params.params]
    if node.value not in params:
        return None
    i = params.index(node.value)
    calls = [c for c in ctx.nodes(cst.Call) if m.matches(c, m.Call(func=m.Name(scope.name.value)))]
    if len(calls) != 1:
        return None
    call = calls[0]
    assert isinstance(call, cst.Call)
    arg = next((x.value for x in call.args if x.keyword is not None and x.keyword.value == node.value), None)
    if arg is None and i < len(call.args) and call.args[i].keyword is None and not call.args[i].star:
        arg = call.args[i].value
    if arg is None:
        return None
    return _dict_literal(ctx, arg, ctx.span(call)[0], _scope_body(ctx, call), depth + 1)


def _dict_diff(a: Any, b: Any, path: tuple[Any, ...] = ()) -> list[tuple[tuple[Any, ...], dict, dict]]:
    """The dict pairs (with their key path) whose key sets differ, walking dicts, lists and tuples."""
    if isinstance(a, dict) and isinstance(b, dict):
        if set(a) != set(b):
            return [(path, a, b)]
        return [d for k in a for d in _dict_diff(a[k], b[k], (*path, k))]
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b, strict=True)) for d in _dict_diff(x, y, (*path, i))]
    return []


def _literal_at(lit: cst.BaseExpression, path: tuple[Any, ...]) -> cst.Dict | None:
    """The dict literal inside ``lit`` at ``path`` (keys of nested dict and list literals)."""
    node = lit
    for key in path:
        if isinstance(node, cst.Dict) and isinstance(key, str):
            hits = [e.value for e in node.elements if isinstance(e, cst.DictElement) and literal(e.key) == key]
        elif isinstance(node, (cst.List, cst.Tuple)) and isinstance(key, int):
            elems = [e.value for e in node.elements if isinstance(e, cst.Element)]
            hits = [elems[key]] if len(elems) == len(node.elements) and key < len(elems) else []
        else:
            return None
        if len(hits) != 1:
            return None
        node = hits[0]
    return node if isinstance(node, cst.Dict) else None


def _fix_dict_key(ctx: Context, call: cst.Call, trees: list[cst.BaseExpression], values: list[Any],
                  odd: int) -> Edit | None:
    """One key of a hand-written dict spelled differently from the first tree's: rename it there."""
    diffs = _dict_diff(values[0], values[odd])
    if len(diffs) != 1:
        return None
    path, first, other = diffs[0]
    if len(first) != len(other):
        return None
    only1, only2 = set(first) - set(other), set(other) - set(first)
    if len(only1) != 1 or len(only2) != 1:
        return None
    k1, k2 = only1.pop(), only2.pop()
    if not isinstance(k1, str) or not isinstance(k2, str):
        return None
    renamed = {(k1 if k == k2 else k): v for k, v in other.items()}
    if not _same_tree(first, renamed):
        return None
    top = _dict_literal(ctx, trees[odd], ctx.span(call)[0], _scope_body(ctx, call))
    lit = _literal_at(top, path) if top is not None else None
    if lit is None:
        return None
    keys = [e for e in lit.elements if isinstance(e, cst.DictElement) and literal(e.key) == k2]
    if len(keys) != 1 or any(isinstance(e, cst.StarredDictElement) for e in lit.elements):
        return None
    key = keys[0].key
    assert isinstance(key, cst.SimpleString)
    quote = key.value[0] if key.value[0] in "'\"" else '"'
    new = key.with_changes(value=f"{quote}{k1}{quote}")
    return Edit(ctx.replace(key, new), "review",
                f"the key '{k2}' is renamed '{k1}' to match the first tree (same shapes); check that they are the "
                "same entry.")


def _fix_subtree(ctx: Context, call: cst.Call, trees: list[cst.BaseExpression], values: list[Any]) -> Edit | None:
    """One tree is a dict holding, under exactly one key, a tree of the others' structure (the whole Flax
    ``variables`` where its ``"params"`` was meant) -> that entry. At the call, or, when the dict is what the
    call's result is assigned to (an accumulator), where it is built: ``jax.tree.map(f, variables)`` once
    elsewhere in the cell -> ``jax.tree.map(f, variables["params"])``."""
    import jax

    try:
        structs = [jax.tree.structure(v) for v in values]
    except Exception:  # noqa: BLE001
        return None
    for j, big in enumerate(values):
        others = [structs[i] for i in range(len(values)) if i != j]
        if not isinstance(big, dict) or len(set(others)) != 1 or structs[j] == others[0]:
            continue
        keys = []
        for k, sub in big.items():
            try:
                if jax.tree.structure(sub) == others[0]:
                    keys.append(k)
            except Exception:  # noqa: BLE001
                continue
        if len(keys) != 1 or not isinstance(keys[0], str):
            continue
        key = keys[0]
        node = trees[j]
        stmt = ctx.enclosing(call, cst.Assign)
        targets = [ctx.code(t.target) for t in stmt.targets] if isinstance(stmt, cst.Assign) else []  # type: ignore[attr-defined]
        what = ctx.code(node)
        if what not in targets:
            if j == 0 and full_name(ctx, call.func, modules=_PUBLIC, keep=True, methods=True) in TREE_MAPS:
                return None  # the first tree decides the result's structure: taking its entry changes that too
            new = cst.Subscript(node, [cst.SubscriptElement(cst.Index(cst.SimpleString(_quoted(key))))])
            return Edit(ctx.replace(node, new), "review",
                        f"`{what}` is given as `{what}[{_quoted(key)}]`, its one entry with the structure of the other "
                        f"tree(s); check that the other entries of `{what}` were not meant to be mapped too.")
        builds = [a for a in ctx.nodes(cst.Assign) if a is not stmt and any(
            ctx.code(t.target) == what for t in a.targets)]  # type: ignore[attr-defined]
        if len(builds) != 1 or not isinstance(builds[0].value, cst.Call):  # type: ignore[attr-defined]
            return None
        build = builds[0].value  # type: ignore[attr-defined]
        if full_name(ctx, build.func, modules=_PUBLIC, keep=True, methods=True) not in TREE_MAPS or len(
                build.args) != 2 or any(a.keyword is not None or a.star for a in build.args):
            return None  # not `jax.tree.map(f, tree)`: what the dict is built from is not read
        src = build.args[1].value
        new = cst.Subscript(src, [cst.SubscriptElement(cst.Index(cst.SimpleString(_quoted(key))))])
        return Edit(ctx.replace(src, new), "review",
                    f"`{what}` is built from `{ctx.code(src)}[{_quoted(key)}]`, the one entry of `{ctx.code(src)}` with "
                    f"the structure of the tree(s) it is mapped with; check that the other entries were not "
                    "meant to be kept.")
    return None


def _fix_extra_entries(ctx: Context, call: cst.Call, trees: list[cst.BaseExpression], values: list[Any]) -> Edit | None:
    """``jax.tree.map(f, params, grads)`` where ``params`` has entries ``grads`` has no key for (a frozen
    scale, a label next to the features) -> ``{**params, **jax.tree.map(f, {k: params[k] for k in grads},
    grads)}``: ``f`` maps the entries every tree has; the others are kept as they are.

    Only for ``jax.tree.map`` on dicts at the top, when the other trees share one structure and the bigger
    dict's entries for their keys have it, the trees are plain names (read twice), and the result is not
    assigned back to one of the smaller trees (that tree would gain the extra entries)."""
    import jax

    if full_name(ctx, call.func, modules=_PUBLIC, keep=True, methods=True) not in TREE_MAPS:
        return None
    if not all(isinstance(t, (cst.Name, cst.Attribute)) for t in trees):
        return None
    for j, big in enumerate(values):
        rest = [values[i] for i in range(len(values)) if i != j]
        if not isinstance(big, dict) or not all(isinstance(r, dict) for r in rest):
            continue
        keys = set(rest[0])
        if not keys or any(set(r) != keys for r in rest) or not keys < set(big):
            continue
        try:
            want = jax.tree.structure(rest[0])
            if any(jax.tree.structure(r) != want for r in rest) or jax.tree.structure(
                    {k: big[k] for k in rest[0]}) != want:
                continue
        except Exception:  # noqa: BLE001
            continue
        if all(_constant_literal(ctx, trees[i], call) for i in range(len(trees))):
            return None  # every tree is zeros/ones written by hand: which one is short of entries is not said
        small = [ctx.code(trees[i]) for i in range(len(trees)) if i != j]
        stmt = ctx.enclosing(call, cst.Assign)
        if isinstance(stmt, cst.Assign) and any(ctx.code(t.target) in small for t in stmt.targets):
            return None
        name = ctx.code(trees[j])
        k = "k" if not ctx.bound("k") else "key_"
        sub = cst.parse_expression(f"{{{k}: {name}[{k}] for {k} in {small[0]}}}")
        mapped = call.with_changes(args=[a.with_changes(value=sub) if a.value is trees[j] else a for a in call.args])
        new = cst.Dict([cst.StarredDictElement(trees[j]), cst.StarredDictElement(mapped)])
        extra = ", ".join(f"`{x}`" for x in big if x not in keys)
        return Edit(ctx.replace(call, new), "review",
                    f"`{name}`'s entries that {' and '.join(f'`{x}`' for x in small)} {'has' if len(small) == 1 else 'have'} "
                    f"no key for ({extra}) "
                    f"are kept as they are; the function maps the others. Check that those entries were meant to "
                    f"stay unchanged.")
    return None


def _constant_literal(ctx: Context, node: cst.BaseExpression, call: cst.Call) -> bool:
    """Whether the tree ``node`` is written in the cell as a literal whose leaves are all zeros/ones calls."""
    lit = _dict_literal(ctx, node, ctx.span(call)[0], _scope_body(ctx, call))
    leaves = _literal_leaves(lit) if isinstance(lit, (cst.Dict, cst.List, cst.Tuple)) else None
    return bool(leaves) and all(isinstance(x, cst.Call) and full_name(
        ctx, x.func, modules=_PUBLIC, keep=True, methods=True) in _CONSTANT_INITS for x in leaves or [])


def _quoted(key: str) -> str:
    return f'"{key}"' if '"' not in key and "\\" not in key else repr(key)


def _fix_like_literal(ctx: Context, call: cst.Call, trees: list[cst.BaseExpression], values: list[Any],
                      odd: int) -> Edit | None:
    """``state = {"w": jnp.zeros_like(params["w"])}`` that misses entries: build it from every parameter."""
    for mine, other in ((odd, 0), (0, odd)):
        edit = _like_literal(ctx, call, trees[mine], values[other])
        if edit is not None:
            return edit
    return None


def _like_literal(ctx: Context, call: cst.Call, g_node: cst.BaseExpression, other: Any) -> Edit | None:
    if not isinstance(g_node, cst.Name):
        return None
    lit = _dict_literal(ctx, g_node, ctx.span(call)[0], _scope_body(ctx, call))
    if isinstance(lit, cst.Dict):
        items = [e.value for e in lit.elements if isinstance(e, cst.DictElement)]
        if len(items) != len(lit.elements):
            return None
    elif isinstance(lit, (cst.List, cst.Tuple)):
        items = [e.value for e in lit.elements if isinstance(e, cst.Element)]
    else:
        return None
    funcs, roots = set(), set()
    for item in items:
        if not isinstance(item, cst.Call) or len(item.args) != 1 or item.args[0].keyword is not None:
            return None
        full = full_name(ctx, item.func, modules=_PUBLIC, keep=True, methods=True)
        if full not in ("jax.numpy.zeros_like", "jax.numpy.ones_like"):
            return None
        root = item.args[0].value
        while isinstance(root, cst.Subscript):
            root = root.value
        if not isinstance(root, cst.Name):
            return None
        roots.add(root.value)
        funcs.add(ctx.code(item.func))
    if len(funcs) != 1 or len(roots) != 1:
        return None
    source = roots.pop()
    ref = lookup(ctx, source)
    if ref is MISSING or not _same_tree(ref, other):
        return None
    tm = ctx.ref("jax.tree.map") or ctx.ref("jax.tree_util.tree_map")
    if tm is None:
        return None
    new = cst.parse_expression(f"{tm}({funcs.pop()}, {source})")
    return Edit(ctx.replace(lit, new), "review",
                f"`{g_node.value}` is built from every entry of `{source}` instead of a hand-written subset; "
                "check that each parameter should get this state.")


_CONSTANT_INITS = {"jax.numpy.zeros": "zeros_like", "jax.numpy.ones": "ones_like",
                   "jax.numpy.zeros_like": "zeros_like", "jax.numpy.ones_like": "ones_like"}


def _literal_leaves(node: cst.BaseExpression) -> list[cst.BaseExpression] | None:
    """The leaf expressions of a nested dict/list/tuple literal, in order; None for a ``**``/``*`` entry."""
    if isinstance(node, cst.Dict):
        if not all(isinstance(e, cst.DictElement) for e in node.elements):
            return None
        items = [e.value for e in node.elements]  # type: ignore[union-attr]
    elif isinstance(node, (cst.List, cst.Tuple)):
        if not all(isinstance(e, cst.Element) for e in node.elements):
            return None
        items = [e.value for e in node.elements]
    else:
        return [node]
    out: list[cst.BaseExpression] = []
    for item in items:
        got = _literal_leaves(item)
        if got is None:
            return None
        out += got
    return out


def _in_scope_of(ctx: Context, node: cst.BaseExpression, call: cst.Call, scope: cst.CSTNode) -> cst.Name | None:
    """``node`` (a tree the failing call maps) as a name of ``scope``: itself, or for a parameter of the
    function the call is in, the name given for it at that function's one call."""
    if not isinstance(node, cst.Name):
        return None
    fn = ctx.enclosing(call, cst.FunctionDef)
    if _scope_body(ctx, call) is scope or fn is None:
        return node
    assert isinstance(fn, cst.FunctionDef)
    params = [p.name.value for p in fn.params.params]
    if node.value not in params:
        return None
    calls = [c for c in ctx.nodes(cst.Call) if m.matches(c, m.Call(func=m.Name(fn.name.value)))]
    if len(calls) != 1:
        return None
    i = params.index(node.value)
    args = calls[0].args  # type: ignore[attr-defined]
    arg = next((a.value for a in args if a.keyword is not None and a.keyword.value == node.value), None)
    if arg is None and i < len(args) and args[i].keyword is None and not args[i].star:
        arg = args[i].value
    return arg if isinstance(arg, cst.Name) and _scope_body(ctx, calls[0]) is scope else None


def _usable_at(ctx: Context, name: str, scope: cst.CSTNode, line: int) -> bool:
    """Whether ``name`` holds its value at ``line`` of ``scope``: bound before it there, a free name of a
    function, or at the top of the cell a name an earlier cell made."""
    if _binding_before(ctx, scope, name, line) is not None:
        return True
    return ctx.bound(name) if scope is not ctx.module else _from_before(ctx, name)


def _from_before(ctx: Context, name: str) -> bool:
    """Whether ``name`` held a value before the cell ran: the namespace has it and the cell reads it before
    it binds it (the parameters an earlier cell made, rebound by this cell's training loop)."""
    if name not in (ctx.namespace or {}):
        return False
    first = None
    for n in ctx.nodes(cst.Name):  # the cached list of the cell's names, in source order
        if n.value != name:  # type: ignore[attr-defined]
            continue
        p = ctx.parent(n)
        if isinstance(p, cst.Attribute) and p.attr is n or isinstance(p, (cst.Param, cst.FunctionDef, cst.ClassDef)):
            continue
        if ctx.enclosing(n, cst.FunctionDef) is not None or ctx.enclosing(n, cst.Lambda) is not None:
            continue  # another scope's name
        first = n
        break
    if first is None:
        return False
    p = ctx.parent(first)
    while isinstance(p, (cst.Element, cst.Tuple, cst.List)):
        p = ctx.parent(p)
    return not isinstance(p, (cst.AssignTarget, cst.AugAssign, cst.For, cst.CompFor))


def _same_structure_name(ctx: Context, lit: cst.CSTNode, value: Any) -> cst.Name | None:
    """The one name assigned before ``lit`` in its scope whose live value has ``value``'s tree structure
    (the parameters a gradient tree was computed from); at the top of the cell also a name an earlier cell
    made (:func:`_from_before`)."""
    import jax

    scope, line = _scope_body(ctx, lit), ctx.span(lit)[0]
    try:
        want = jax.tree.structure(value)
    except Exception:  # noqa: BLE001
        return None
    names = {t.value for a in ctx.nodes(cst.Assign) if _scope_body(ctx, a) is scope and ctx.span(a)[0] < line
             for tgt in a.targets for t in m.findall(tgt.target, m.Name())}  # type: ignore[attr-defined]
    if scope is ctx.module:
        names |= {n for n in {x.value for x in ctx.nodes(cst.Name)} if _from_before(ctx, n)}  # type: ignore[attr-defined]
    hits = []
    for n in sorted(names):
        v = live_value(ctx, cst.Name(n), attrs="instance-or-module")
        try:
            if v is not MISSING and jax.tree.leaves(v) and jax.tree.structure(v) == want:
                hits.append(n)
        except Exception:  # noqa: BLE001
            continue
    return cst.Name(hits[0]) if len(hits) == 1 else None


def _fix_constant_literal(ctx: Context, call: cst.Call, trees: list[cst.BaseExpression], values: list[Any],
                          odd: int) -> Edit | None:
    """A state tree written by hand as zeros (or ones) with other keys or fewer entries than the tree it is
    mapped with -> ``jax.tree.map(jnp.zeros_like, params)``: the same constant, in the other tree's structure.

    Only when every leaf of the literal is ``jnp.zeros``/``ones``(``_like``) of one kind, each leaf shape of
    the literal is a leaf shape of the other tree (a renamed or missing entry, not another model), and the
    other tree is a name bound where the literal is written.
    """
    import jax

    for mine, other in ((odd, 0), (0, odd)):
        lit = _dict_literal(ctx, trees[mine], ctx.span(call)[0], _scope_body(ctx, call))
        leaves = _literal_leaves(lit) if isinstance(lit, (cst.Dict, cst.List, cst.Tuple)) else None
        if not leaves:
            continue
        kinds = {_CONSTANT_INITS.get(full_name(ctx, x.func, modules=_PUBLIC, keep=True, methods=True))
                 for x in leaves if isinstance(x, cst.Call)}
        if len(kinds) != 1 or None in kinds or not all(isinstance(x, cst.Call) for x in leaves):
            continue
        olit = _dict_literal(ctx, trees[other], ctx.span(call)[0], _scope_body(ctx, call))
        oleaves = _literal_leaves(olit) if isinstance(olit, (cst.Dict, cst.List, cst.Tuple)) else None
        okinds = {_CONSTANT_INITS.get(full_name(ctx, x.func, modules=_PUBLIC, keep=True, methods=True))
                  if isinstance(x, cst.Call) else None for x in oleaves or []}
        if oleaves and len(okinds) == 1 and None not in okinds:
            return None  # both trees are one constant each: which one is the state is not said
        # (a tree of several initializers, kernels of ones and biases of zeros, is the model's, not a state)
        scope = _scope_body(ctx, lit)
        src = next((n for n in (_in_scope_of(ctx, trees[other], call, scope),
                                _same_structure_name(ctx, lit, values[other]))
                    if n is not None and _usable_at(ctx, n.value, scope, ctx.span(lit)[0])), None)
        if src is None:
            continue
        try:
            have = sorted(str(_shape_of(x)) for x in jax.tree.leaves(values[mine]))
            want = sorted(str(_shape_of(x)) for x in jax.tree.leaves(values[other]))
        except Exception:  # noqa: BLE001
            continue
        if len(have) > len(want) or any(have.count(s) > want.count(s) for s in set(have)):
            continue
        tm = ctx.ref("jax.tree.map") or ctx.ref("jax.tree_util.tree_map")
        jnp = ctx.ref("jax.numpy")
        if tm is None or jnp is None:
            continue
        kind = kinds.pop()
        name = ctx.code(trees[mine]) if isinstance(trees[mine], cst.Name) else "the state"
        new = cst.parse_expression(f"{tm}({jnp}.{kind}, {src.value})")
        return Edit(ctx.replace(lit, new), "review",
                    f"`{name}` is built as `{kind}` of `{src.value}`, so it has exactly its keys and structure "
                    f"(the hand-written tree had {'other keys' if len(have) == len(want) else 'fewer entries'}); "
                    f"each entry takes the dtype of `{src.value}`'s: check the state should cover every entry.")
    return None


@rule("tree-structure", detect=detect_tree_source)
def tree_structure(ctx: Context) -> Edit | None:
    """Two pytrees that should match in ``jax.tree.map`` (or an Optax update): fix where the odd tree came
    from, if certain. A state tree built by a comprehension is rebuilt where it is made (every such tree of
    the cell, :func:`.tree_sources.fix_tree_source`); the detection then checks that none is left."""
    got = _tree_map_call(ctx)
    if got is None:
        return None
    call, trees, values = got
    if any(v is MISSING for v in values):
        return None
    if ctx.record_id == "tree-map-none-subtree":
        return _fix_none(ctx, call, trees, values)
    source = fix_tree_source(ctx)
    if source is not None:
        return source
    odd = _odd_tree(values)
    if odd is None:  # several trees differ from the first: the first may be the odd one
        return _fix_subtree(ctx, call, trees, values) or _fix_extra_entries(ctx, call, trees, values)
    for fix in (lambda: _fix_argnums(ctx, call, trees, values, odd),
                lambda: _fix_value_and_grad(ctx, call, trees, odd),
                lambda: _fix_container(ctx, call, trees, values, odd),
                lambda: _fix_rebuilt_container(ctx, call, trees, values, odd),
                lambda: _fix_dict_key(ctx, call, trees, values, odd),
                lambda: _fix_subtree(ctx, call, trees, values),
                lambda: _fix_extra_entries(ctx, call, trees, values),
                lambda: _fix_like_literal(ctx, call, trees, values, odd),
                lambda: _fix_constant_literal(ctx, call, trees, values, odd)):
        edit = fix()
        if edit is not None:
            return edit
    return None
