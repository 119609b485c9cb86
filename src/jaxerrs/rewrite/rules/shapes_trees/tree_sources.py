"""Where a mismatched pytree was built: a Python comprehension over a tree of another container type.

``velocity = [jnp.zeros_like(p) for p in params]`` with ``params`` a tuple gives a list; mapped against
``grads`` (a tuple, since ``jax.grad`` returns the structure of ``params``) it fails, and converting the
other tree at the failing call only moves the failure to the next ``jax.tree.map`` (its result is a list
again). The fix is where the tree is built: ``velocity = jax.tree.map(jnp.zeros_like, params)``, for every
comprehension of the cell that builds such a state tree (Adam's ``m`` and ``v`` alike).

Tree-map-like calls, whose tree arguments must share one structure: ``jax.tree.map`` (and its old
spellings), ``optax.apply_updates(params, updates)`` and an Optax transformation's
``update(updates, state[, params])`` (its state has the structure of what ``init`` was given).
"""

from __future__ import annotations

from typing import Any

import libcst as cst
import libcst.matchers as m

from jaxerrs.rewrite import Edit
from jaxerrs.rewrite.context import Context, dotted_name
from jaxerrs.rewrite.names import full_name
from jaxerrs.rewrite.rules import Found
from jaxerrs.rewrite.rules.shapes_trees.common import _PUBLIC, _statement
from jaxerrs.rewrite.values import MISSING, is_tracer, live_value, lookup_dotted

TREE_MAPS = {"jax.tree.map", "jax.tree_util.tree_map", "jax.tree_map"}
_APPLY = {"optax.apply_updates", "optax._src.update.apply_updates"}


def _is_optax_transform(ctx: Context, node: cst.BaseExpression) -> bool:
    """Whether ``node`` names an Optax ``GradientTransformation`` (live, or built by ``optax.X(...)`` in the cell)."""
    d = dotted_name(node)
    v = lookup_dotted(ctx, d) if d else MISSING
    if v is not MISSING:
        return str(type(v).__module__).startswith("optax") and callable(getattr(v, "update", None)) \
            and callable(getattr(v, "init", None))
    if not isinstance(node, cst.Name):
        return False
    for a in ctx.nodes(cst.Assign):
        assert isinstance(a, cst.Assign)
        if len(a.targets) == 1 and m.matches(a.targets[0].target, m.Name(node.value)) and isinstance(a.value, cst.Call):
            if full_name(ctx, a.value.func, keep=True).startswith("optax."):
                return True
    return False


def init_argument(ctx: Context, optimizer: cst.BaseExpression) -> cst.BaseExpression | None:
    """The one argument ``<optimizer>.init(ARG)`` is given in the cell (what the state's structure follows)."""
    code = dotted_name(optimizer)
    found = [c.args[0].value for c in ctx.nodes(m.Call(func=m.Attribute(attr=m.Name("init"))))
             if isinstance(c, cst.Call) and dotted_name(c.func.value) == code  # type: ignore[attr-defined]
             and len(c.args) == 1 and c.args[0].keyword is None and not c.args[0].star]
    codes = {ctx.code(f) for f in found}
    return found[0] if len(codes) == 1 else None


def tree_arguments(ctx: Context, call: cst.Call) -> tuple[str, list[cst.BaseExpression]] | None:
    """(kind, tree arguments) of a tree-map-like call, reference tree first; None for other calls.

    ``jax.tree.map(f, t0, t1, ...)``: t0, t1, ...; ``optax.apply_updates(params, updates)``: both;
    ``tx.update(updates, state, params)``: params, updates (the state is checked through params).
    """
    if any(a.star for a in call.args):
        return None
    pos = [a.value for a in call.args if a.keyword is None]
    full = full_name(ctx, call.func, modules=_PUBLIC, keep=True, methods=True)
    if full in TREE_MAPS:
        return ("map", pos[1:]) if len(pos) >= 3 else None
    if full in _APPLY:
        return ("apply", pos[:2]) if len(pos) == 2 else None
    if isinstance(call.func, cst.Attribute) and call.func.attr.value == "update" and 2 <= len(pos) <= 3 \
            and len(pos) == len(call.args) and _is_optax_transform(ctx, call.func.value):
        return ("update", [pos[2], pos[0]] if len(pos) == 3 else [pos[0]])
    return None


def failing_tree_call(ctx: Context) -> tuple[str, cst.Call, list[cst.BaseExpression], list[Any]] | None:
    """The single tree-map-like call on the failing line whose trees do not match: (kind, call, trees, values).

    A call whose values are all known and match is skipped; for ``tx.update`` without params the reference
    (what ``init`` was given) is appended to the values only.
    """
    stmt = _statement(ctx)
    if stmt is None:
        return None
    import jax

    found = []
    for call in m.findall(stmt, m.Call()):
        assert isinstance(call, cst.Call)
        got = tree_arguments(ctx, call)
        if got is None:
            continue
        kind, trees = got
        values = [live_value(ctx, t, attrs="instance-or-module") for t in trees]
        if kind == "update" and len(trees) == 1:
            ref = init_argument(ctx, call.func.value)  # type: ignore[attr-defined]
            values = [live_value(ctx, ref, attrs="instance-or-module") if ref is not None else MISSING, *values]
        if len(values) >= 2 and all(v is not MISSING for v in values):
            try:
                first = jax.tree.structure(values[0])
                if all(jax.tree.structure(v) == first for v in values[1:]):
                    continue
            except Exception:  # noqa: BLE001 - odd user objects: keep as a candidate
                pass
        found.append((kind, call, trees, values))
    return found[0] if len(found) == 1 else None


# ----------------------------------------------------------------------------- comprehensions as sources


def _comprehension(value: cst.BaseExpression) -> Any:
    """(element expression or None, loop variable, iterated tree, function for ``list(map(f, T))``, over
    ``.values()``) for ``[E for x in T]``, ``[E for x in T.values()]`` or ``list(map(f, T))``; the list
    itself for a list display ``[a, b]`` (no starred items); else None."""
    if isinstance(value, cst.List):
        ok = value.elements and all(isinstance(e, cst.Element) for e in value.elements)
        return value if ok else None
    if isinstance(value, cst.ListComp):
        f = value.for_in
        if f.inner_for_in is not None or f.ifs or f.asynchronous is not None:
            return None
        if isinstance(f.target, cst.Tuple):  # [[g(W), h(b)] for W, b in T]: one display per unpacked element
            t, e = f.target, value.elt
            if not (all(isinstance(x, cst.Element) and isinstance(x.value, cst.Name) for x in t.elements)
                    and isinstance(e, (cst.List, cst.Tuple)) and len(e.elements) == len(t.elements)
                    and all(isinstance(x, cst.Element) for x in e.elements)):
                return None
        elif not isinstance(f.target, cst.Name):
            return None
        if m.findall(value.elt, m.NamedExpr() | m.Yield() | m.Await()):
            return None
        it = f.iter
        values = False
        if m.matches(it, m.Call(func=m.Attribute(attr=m.Name("values")), args=[])):
            it, values = it.func.value, True  # type: ignore[attr-defined]
        if not isinstance(it, (cst.Name, cst.Attribute)) or not dotted_name(it):
            return None
        var = f.target.value if isinstance(f.target, cst.Name) else ""  # "": unpacked (see Source.unpacked)
        return value.elt, var, it, None, values
    if m.matches(value, m.Call(func=m.Name("list"), args=[m.Arg(m.Call(func=m.Name("map")))])):
        inner = value.args[0].value  # type: ignore[attr-defined]
        assert isinstance(inner, cst.Call)
        if len(inner.args) != 2 or any(a.keyword is not None or a.star for a in inner.args):
            return None
        fn, it = inner.args[0].value, inner.args[1].value
        if not dotted_name(fn) or not isinstance(it, (cst.Name, cst.Attribute)) or not dotted_name(it):
            return None
        return None, "", it, fn, False
    return None


def _is_leaf(v: Any) -> bool:
    import jax
    import numpy as np

    return isinstance(v, (jax.Array, np.ndarray, np.generic, int, float, complex)) or is_tracer(v)


def _scope_of(ctx: Context, node: cst.CSTNode) -> cst.CSTNode:
    fn = ctx.enclosing(node, cst.FunctionDef)
    return fn if fn is not None else ctx.module  # type: ignore[return-value]


def _self_attr(ctx: Context, node: cst.CSTNode) -> tuple[cst.ClassDef, str] | None:
    """(class, "self.attr") for ``self.attr`` in a method (``self`` being its first parameter)."""
    if not (isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name)):
        return None
    fn = ctx.enclosing(node, cst.FunctionDef)
    cls = ctx.enclosing(fn, cst.ClassDef) if fn is not None else None
    if not isinstance(fn, cst.FunctionDef) or not isinstance(cls, cst.ClassDef) or not fn.params.params or \
            fn.params.params[0].name.value != node.value.value or ctx.parent(ctx.parent(fn)) is not cls:
        return None
    return cls, f"{node.value.value}.{node.attr.value}"


def _key(ctx: Context, node: cst.CSTNode, at: cst.CSTNode) -> tuple[int, str] | None:
    """Where a tree is named: (id of the scope, name) for a name used at ``at``; (id of the class,
    "self.attr") for an attribute of ``self`` in a method (every method of the class sees the same one)."""
    if isinstance(node, cst.Name):
        return id(_scope_of(ctx, at)), node.value
    got = _self_attr(ctx, node)
    return (id(got[0]), got[1]) if got is not None else None


def _tree_uses(ctx: Context) -> dict[tuple[int, str], list[cst.Call]]:
    """Key (see :func:`_key`) -> the tree-map-like calls that take that tree, directly or as the argument
    of a cell function that passes its parameter on to one."""
    direct: dict[tuple[int, str], list[cst.Call]] = {}
    for call in ctx.nodes(cst.Call):
        assert isinstance(call, cst.Call)
        got = tree_arguments(ctx, call)
        if got is None:
            continue
        for t in got[1]:
            k = _key(ctx, t, call)
            if k is not None:
                direct.setdefault(k, []).append(call)
    out = dict(direct)
    by_callee: dict[str, list[cst.Call]] = {}
    for call in ctx.nodes(cst.Call):
        if isinstance(call.func, cst.Name):  # type: ignore[attr-defined]
            by_callee.setdefault(call.func.value, []).append(call)  # type: ignore[attr-defined]
    for fn in ctx.nodes(cst.FunctionDef):
        assert isinstance(fn, cst.FunctionDef)
        params = [p.name.value for p in fn.params.params]
        used = [i for i, p in enumerate(params) if (id(fn), p) in direct]
        if not used:
            continue
        for call in by_callee.get(fn.name.value, []):
            if any(a.star for a in call.args):
                continue
            for i in used:
                arg = next((a.value for a in call.args if a.keyword is not None and a.keyword.value == params[i]), None)
                if arg is None and i < len(call.args) and call.args[i].keyword is None:
                    arg = call.args[i].value
                k = _key(ctx, arg, call) if arg is not None else None
                if k is not None:
                    out.setdefault(k, []).extend(direct[(id(fn), params[i])])
    return out


def _call_argument(ctx: Context, fn: cst.FunctionDef, param: str) -> cst.BaseExpression | None:
    """The argument given for ``param`` at the one call of ``fn`` in the cell (for ``__init__``, the one
    construction of its class), or None."""
    params = [p.name.value for p in fn.params.params]
    if param not in params:
        return None
    i = params.index(param)
    callee = fn.name.value
    cls = ctx.enclosing(fn, cst.ClassDef)
    if cls is not None:
        if callee != "__init__":
            return None
        callee, i = cls.name.value, i - 1  # type: ignore[attr-defined]
    calls = [c for c in ctx.nodes(cst.Call) if m.matches(c, m.Call(func=m.Name(callee)))]
    if len(calls) != 1 or i < 0:
        return None
    c = calls[0]
    assert isinstance(c, cst.Call)
    arg = next((a.value for a in c.args if a.keyword is not None and a.keyword.value == param), None)
    if arg is None and i < len(c.args) and c.args[i].keyword is None and not any(a.star for a in c.args[:i + 1]):
        arg = c.args[i].value
    return arg


def _resolve(ctx: Context, node: cst.BaseExpression, call: cst.Call) -> tuple[int, str] | None:
    """The key (see :func:`_key`) of the tree ``node`` of ``call``: a parameter of the enclosing function is
    followed to the one call of that function in the cell (and the tree passed there)."""
    scope = _scope_of(ctx, call)
    if isinstance(node, cst.Name) and isinstance(scope, cst.FunctionDef) and node.value in [
            p.name.value for p in scope.params.params]:
        arg = _call_argument(ctx, scope, node.value)
        if arg is None:
            return None
        c = ctx.enclosing(arg, cst.Call)
        return _key(ctx, arg, c if c is not None else arg)
    return _key(ctx, node, call)


def _tree_value(ctx: Context, tree: cst.BaseExpression) -> Any:
    """The live value of the tree a comprehension iterates over; a parameter of the function around it (a
    method's argument, ``__init__``'s) is followed to the one call of that function in the cell."""
    v = live_value(ctx, tree, attrs="instance-or-module", scoped=True)
    if v is not MISSING or not isinstance(tree, cst.Name):
        return v
    fn = ctx.enclosing(tree, cst.FunctionDef)
    if not isinstance(fn, cst.FunctionDef):
        return MISSING
    arg = _call_argument(ctx, fn, tree.value)
    if arg is None or _scope_of(ctx, arg) is not ctx.module:
        return MISSING
    return live_value(ctx, arg, attrs="instance-or-module", scoped=True)


class Source:
    """One comprehension that builds a state tree: ``NAME = [E for x in T]`` (or ``list(map(f, T))``).

    ``value`` is what ``T`` held when the comprehension ran: its live value, or for ``g = [E for x in g]``
    (the name rebound to its own mapped copy, so its live value is the list) the tree ``jax.grad``
    differentiated just before (the gradient has its structure), else MISSING.
    """

    def __init__(self, assign: cst.Assign, name: str, elt: cst.BaseExpression | None, var: str,
                 tree: cst.BaseExpression | None, fn: cst.BaseExpression | None, over_values: bool, value: Any,
                 literal: cst.List | None = None, key: tuple[int, str] = (0, "")):
        self.assign, self.name, self.elt, self.var, self.tree = assign, name, elt, var, tree
        self.key = key
        self.fn, self.over_values, self.value, self.literal = fn, over_values, value, literal

    @property
    def unpacked(self) -> bool:
        """``[[g(W), h(b)] for W, b in T]``: each element of ``T`` unpacked and rebuilt as a display."""
        return self.elt is not None and not self.var and self.fn is None


_GRADS = {"jax.grad", "jax.value_and_grad"}


def _prior_value(ctx: Context, assign: cst.Assign, name: str) -> Any:
    """For ``name = [E for x in name]``: the tree that ``jax.grad``/``jax.value_and_grad`` differentiated
    in the assignment of ``name`` just before it (same scope); else MISSING."""
    scope = _scope_of(ctx, assign)
    start = ctx.span(assign)[0]
    prior = None
    for a in ctx.nodes(cst.Assign):
        assert isinstance(a, cst.Assign)
        if _scope_of(ctx, a) is not scope or ctx.span(a)[0] >= start or len(a.targets) != 1:
            continue
        t = a.targets[0].target
        if m.matches(t, m.Name(name)):
            prior = (a, False)
        elif isinstance(t, cst.Tuple) and len(t.elements) == 2 and m.matches(t.elements[1].value, m.Name(name)):
            prior = (a, True)
        elif name in {n.value for n in m.findall(t, m.Name())}:  # type: ignore[attr-defined]
            prior = None
    if prior is None:
        return MISSING
    a, pair = prior
    v = a.value
    if not (isinstance(v, cst.Call) and isinstance(v.func, cst.Call)):
        return MISSING
    g = v.func
    full = full_name(ctx, g.func, modules=_PUBLIC, keep=True)
    if full not in _GRADS or pair != (full == "jax.value_and_grad") or len(g.args) != 1:
        return MISSING  # argnums, has_aux...: not simply the structure of the first argument
    if g.args[0].keyword is not None or not v.args or v.args[0].keyword is not None or v.args[0].star:
        return MISSING
    return live_value(ctx, v.args[0].value, attrs="instance-or-module", scoped=True)


def _occurrences(ctx: Context, key: tuple[int, str]) -> list[cst.BaseExpression]:
    """Every expression of the cell that names the tree ``key`` (a name in its scope, ``self.attr`` in any
    method of its class)."""
    out: list[cst.BaseExpression] = []
    if "." in key[1]:
        for a in ctx.nodes(cst.Attribute):
            assert isinstance(a, cst.Attribute)
            got = _self_attr(ctx, a)
            if got is not None and (id(got[0]), got[1]) == key:
                out.append(a)
        return out
    for n in ctx.nodes(cst.Name):
        assert isinstance(n, cst.Name)
        p = ctx.parent(n)
        if n.value != key[1] or isinstance(p, cst.Attribute) and p.attr is n or isinstance(p, cst.Param) or \
                isinstance(p, cst.Arg) and p.keyword is n or isinstance(p, cst.FunctionDef | cst.ClassDef):
            continue
        if id(_scope_of(ctx, n)) == key[0]:
            out.append(n)
    return out


def _state_like(ctx: Context, key: tuple[int, str]) -> bool:
    """Whether the tree ``key`` is used only as a tree to map over: an argument of a call (a tree-map-like
    one or a function of the cell), an assignment target, an element of a returned tuple. Parameters
    unpacked into a differentiated function (``grad(f)(*params)``) are not state: a list of them decides
    the structure of what comes back, and stays as written."""
    cell_fns = {f.name.value for f in ctx.nodes(cst.FunctionDef)}  # type: ignore[attr-defined]
    for n in _occurrences(ctx, key):
        p = ctx.parent(n)
        if isinstance(p, cst.AssignTarget) or isinstance(p, cst.Element) and isinstance(
                ctx.parent(p), cst.Tuple):
            continue
        if isinstance(p, cst.Arg) and not p.star:
            call = ctx.parent(p)
            if isinstance(call, cst.Call) and (tree_arguments(ctx, call) is not None or (
                    isinstance(call.func, cst.Name) and call.func.value in cell_fns)):
                continue
        return False
    return True


def _sources(ctx: Context) -> list[Source]:
    """Every comprehension (or list display) of the cell whose result is mapped as a tree against others;
    computed once per context."""
    cached = ctx.__dict__.get("_tree_sources")
    if cached is not None:
        return cached
    if ctx.module is None or not m.findall(ctx.module, m.ListComp() | m.List() | m.Call(func=m.Name("list"))):
        ctx.__dict__["_tree_sources"] = []  # nothing that builds a list: no metadata needed to know it
        return []
    out = _find_sources(ctx)
    ctx.__dict__["_tree_sources"] = out
    return out


def _find_sources(ctx: Context) -> list[Source]:
    uses = _tree_uses(ctx)
    out = []
    for a in ctx.nodes(cst.Assign):
        assert isinstance(a, cst.Assign)
        if len(a.targets) != 1:
            continue
        key = _key(ctx, a.targets[0].target, a)
        got = _comprehension(a.value) if key is not None else None
        if got is None or key not in uses:
            continue
        name = key[1]
        if isinstance(got, cst.List):  # the list as written: its live value (the name's) shows its leaves
            if not _state_like(ctx, key):
                continue
            out.append(Source(a, name, None, "", None, None, False,
                              live_value(ctx, a.targets[0].target, attrs="instance-or-module", scoped=True), got,
                              key))
            continue
        elt, var, tree, fn, over_values = got
        if dotted_name(tree) == name:
            value = _prior_value(ctx, a, name) if not over_values and "." not in name else MISSING
        else:
            value = _tree_value(ctx, tree)
        out.append(Source(a, name, elt, var, tree, fn, over_values, value, key=key))
    return out


def _fixable(src: Source, want: Any) -> bool:
    """Whether mapping over ``src.tree`` gives the reference structure ``want`` leaf for leaf."""
    import jax

    v = src.value
    if v is MISSING:
        return False
    if src.literal is not None:
        if not isinstance(v, list) or len(v) != len(src.literal.elements) or not all(_is_leaf(x) for x in v):
            return False
        try:
            return jax.tree.structure(tuple(v)) == want
        except Exception:  # noqa: BLE001
            return False
    if src.unpacked:  # T is a list/tuple of lists/tuples of leaves, each as long as the display
        n = len(src.elt.elements)  # type: ignore[union-attr]
        if not isinstance(v, (list, tuple)) or not v or not all(
                isinstance(x, (list, tuple)) and type(x) is type(v[0]) and len(x) == n and all(_is_leaf(y) for y in x)
                for x in v):
            return False
        try:
            return jax.tree.structure(v) == want
        except Exception:  # noqa: BLE001
            return False
    if src.over_values:
        if not isinstance(v, dict):
            return False
        items = list(v.values())
    elif isinstance(v, (list, tuple)):
        items = list(v)
    else:
        return False
    if not items or not all(_is_leaf(x) for x in items):
        return False
    try:
        return jax.tree.structure(v) == want
    except Exception:  # noqa: BLE001
        return False


def detect_tree_source(ctx: Context, key: Any) -> Found | None:
    """With ``key`` None: the comprehension-built tree of the failing tree-map-like call and every other
    comprehension of the cell that builds a tree of the same kind (mapped against trees of the reference
    structure); with a key: what is left of those in ``ctx``'s cell."""
    import jax

    if key is None:
        got = failing_tree_call(ctx)
        if got is None:
            return None
        _kind, call, trees, values = got
        if any(v is MISSING for v in values):
            return None
        srcs = _sources(ctx)
        by_name = {s.key: s for s in srcs}
        odd, refs = [], []
        offset = len(values) - len(trees)  # a reference value with no node of the call (tx.update without params)
        for i, v in enumerate(values):
            r = _resolve(ctx, trees[i - offset], call) if i >= offset else None
            s = by_name.get(r) if r is not None else None
            (odd if s is not None else refs).append((s, v))
        if not odd or not refs:
            return None
        try:
            wants = {jax.tree.structure(v) for _s, v in refs}
        except Exception:  # noqa: BLE001
            return None
        if len(wants) != 1:
            return None
        want = wants.pop()
        key = ("tree-source", want)
    else:
        want = key[1]
    found = Found(key)
    for s in _sources(ctx):
        v = s.value
        if s.unpacked and isinstance(v, list) and v and isinstance(v[0], (list, tuple)) and isinstance(
                s.elt, cst.Tuple if type(v[0]) is tuple else cst.List):
            continue  # its displays already have the type of T's elements
        if s.literal is not None:
            v = tuple(v) if isinstance(v, list) else MISSING
        try:
            same = v is not MISSING and jax.tree.structure(v) == want
        except Exception:  # noqa: BLE001
            same = False
        if same or (s.over_values and isinstance(v, dict)) or v is MISSING:
            (found.fixable if _fixable(s, want) else found.unfixable).append(s)
    return found if found else None


def _list_only_uses(ctx: Context, src: Source) -> bool:
    """Whether the tree is used as a list would be and a tuple would not (``.append``, item assignment,
    ``+``), where it is named or in a function of the cell it is passed to: then the container type is
    part of what the code means."""
    return _list_use(ctx, src.key, 0)


def _list_use(ctx: Context, key: tuple[int, str], depth: int) -> bool:
    fns = {f.name.value: f for f in ctx.nodes(cst.FunctionDef)}  # type: ignore[attr-defined]
    for n in _occurrences(ctx, key):
        p = ctx.parent(n)
        if isinstance(p, cst.Attribute) and p.value is n:
            return True
        if isinstance(p, cst.BinaryOperation | cst.AugAssign):
            return True
        if isinstance(p, cst.Subscript) and isinstance(ctx.parent(p), cst.AssignTarget | cst.Del):
            return True
        call = ctx.parent(p) if isinstance(p, cst.Arg) else None
        if isinstance(call, cst.Call) and isinstance(call.func, cst.Name) and call.func.value in fns:
            fn = fns[call.func.value]
            params = [q.name.value for q in fn.params.params]
            if p.star or depth > 2:  # type: ignore[union-attr]
                return True
            if p.keyword is not None:  # type: ignore[union-attr]
                name = p.keyword.value  # type: ignore[union-attr]
            else:
                i = call.args.index(p)  # type: ignore[arg-type]
                name = params[i] if i < len(params) else ""
            if not name or name not in params or _list_use(ctx, (id(fn), name), depth + 1):
                return True
    return False


def fix_tree_source(ctx: Context) -> Edit | None:
    """Build every state tree that a comprehension builds with the reference tree's own structure.

    ``[E for x in T]`` → ``jax.tree.map(lambda x: E, T)`` (``jax.tree.map(f, T)`` for ``[f(x) for x in T]``);
    a list display ``[a, b]`` against a tuple → ``(a, b)``.
    Safe when ``T`` is a tuple or list whose every element is a leaf (an array or a number) and the name is
    never used as only a list can be (``.append``, item assignment, ``+``): the map calls ``E`` on the same
    elements in the same order, so the leaves are the very values the comprehension computed (a display
    keeps its items as written); only the container becomes the reference tree's own, the one every other
    tree of the step has. Over ``T.values()`` of a dict the result is keyed (and ordered) as ``T`` is, not
    positional: review.
    """
    found = detect_tree_source(ctx, None)
    if not found or found.unfixable:
        return None
    tm = ctx.ref("jax.tree.map")
    imp = None
    if tm is None:
        jax_name, imp = ctx.need("jax", "jax")
        tm = f"{jax_name}.tree.map"
    pairs = []
    safe = True
    names: list[str] = []
    rebuilt: list[str] = []  # what the unpacking comprehensions became
    for s in found.fixable:
        if s.literal is not None:
            elems = list(s.literal.elements)
            if len(elems) == 1:
                elems[0] = elems[0].with_changes(comma=cst.Comma())
            pairs.append((s.literal, cst.Tuple(
                elems, lpar=[cst.LeftParen(whitespace_after=s.literal.lbracket.whitespace_after)],
                rpar=[cst.RightParen(whitespace_before=s.literal.rbracket.whitespace_before)])))
            safe = safe and not _list_only_uses(ctx, s)
            names.append(s.name)
            continue
        assert s.tree is not None
        if s.unpacked:  # the display takes the type of T's elements; the comprehension T's own
            assert isinstance(s.elt, (cst.List, cst.Tuple)) and isinstance(s.assign.value, cst.ListComp)
            inner = type(s.value[0])
            items = ", ".join(ctx.code(e.value) for e in s.elt.elements)
            one = len(s.elt.elements) == 1
            disp = cst.parse_expression(f"({items}{',' if one else ''})" if inner is tuple else f"[{items}]")
            comp = s.assign.value.with_changes(elt=disp)
            new = comp if isinstance(s.value, list) else cst.Call(cst.Name("tuple"), [cst.Arg(
                cst.GeneratorExp(comp.elt, comp.for_in))])
            pairs.append((s.assign.value, new))
            safe = False
            names.append(s.name)
            rebuilt.append(f"`{s.name}`'s entries are now {inner.__name__}s, as `{ctx.code(s.tree)}`'s are")
            continue
        tree = ctx.code(s.tree)
        if s.fn is not None:
            fn = ctx.code(s.fn)
        elif (isinstance(s.elt, cst.Call) and len(s.elt.args) == 1 and s.elt.args[0].keyword is None
              and not s.elt.args[0].star and m.matches(s.elt.args[0].value, m.Name(s.var))
              and dotted_name(s.elt.func) and s.var not in dotted_name(s.elt.func).split(".")):
            fn = ctx.code(s.elt.func)
        else:
            assert s.elt is not None
            fn = f"lambda {s.var}: {ctx.code(s.elt)}"
        pairs.append((s.assign.value, cst.parse_expression(f"{tm}({fn}, {tree})")))
        safe = safe and not s.over_values and not _list_only_uses(ctx, s)
        names.append(s.name)
    uniq = list(dict.fromkeys(names))
    shown = ", ".join(f"`{n}`" for n in uniq)
    one = len(uniq) == 1
    if safe:
        summary = (f"{shown} {'is' if one else 'are'} built with the container type of the tree {'it is' if one else 'they are'} "
                   "mapped against (the same leaves, in the same order), so every `jax.tree.map` of the step "
                   "matches.")
    else:
        summary = (f"{shown} {'is' if one else 'are'} built with `jax.tree.map`, keyed like the parameters; "
                   f"check that nothing used {'it' if one else 'them'} as a list (by position or with list methods).")
    if rebuilt and len(rebuilt) == len(found.fixable):
        summary = (f"{'; '.join(dict.fromkeys(rebuilt))}: the same leaves in the same order, so every "
                   "`jax.tree.map` of the step matches; check that nothing changes an entry in place.")
    return Edit(ctx.replace_many(pairs, [imp if not rebuilt or len(rebuilt) < len(found.fixable) else None]),
                "safe" if safe else "review", summary, cause=found.key)
