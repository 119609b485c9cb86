"""``x[i] = v`` on a JAX array -> ``x = x.at[i].set(v)`` (and ``+=``, ``-=``, ``*=``, ``/=``, ``**=``).

The rule fixes the cause, not the line: every in-place assignment to the same array in the scope of the
failing line (its function, or the cell) is rewritten, or none is (one left behind fails the cell again).

Why the rewrite computes the same values: ``x.at[i].set(v)`` is a new array equal to ``x`` everywhere
except at ``i``, where it holds ``v`` cast to ``x``'s dtype, which is what NumPy's ``x[i] = v`` leaves in
``x`` (``add``/``multiply``/... likewise for ``x[i] += v``...). Rebinding ``x`` to it makes every later
read of ``x`` in the scope see exactly those values, wherever the statement runs (a loop, a branch). What
differs is only what else held the old array: another name (``y = x``), a container, the caller who
passed ``x`` in and meant it to be changed for them; those keep the old values. And with an index array
holding a position twice, ``.at[idx].add`` adds every time where NumPy's ``x[idx] += v`` adds once (and
which of two ``set`` values wins is unspecified). So the edit is ``safe`` only when the cell binds no
other name to the array (checked with LibCST's scope analysis, and in the namespace of earlier cells),
the array is not a parameter the function does not return, and every index is a number or a slice;
otherwise it is ``review``, with what to check.
"""

from __future__ import annotations

from typing import Any

import libcst as cst
from libcst.metadata import FunctionScope, GlobalScope

from jaxerrs.rewrite import Edit
from jaxerrs.rewrite.context import Context, dotted_name
from jaxerrs.rewrite.cst_tools import own_returns
from jaxerrs.rewrite.names import full_name
from jaxerrs.rewrite.rules import Found, rule
from jaxerrs.rewrite.values import MISSING, lookup

_AUG = {cst.AddAssign: "add", cst.MultiplyAssign: "multiply", cst.DivideAssign: "divide",
        cst.PowerAssign: "power", cst.SubtractAssign: "add"}
_STORES_INTO = {"append", "extend", "insert", "add", "update", "setdefault", "put", "appendleft"}


def _at(target: cst.Subscript, method: str, value: cst.BaseExpression) -> cst.Call:
    """``<base>.at[<slice>].<method>(value)``."""
    at = cst.Subscript(value=cst.Attribute(value=target.value, attr=cst.Name("at")), slice=target.slice)
    return cst.Call(func=cst.Attribute(value=at, attr=cst.Name(method)), args=[cst.Arg(value)])


def _paren(value: cst.BaseExpression) -> cst.BaseExpression:
    if isinstance(value, (cst.Name, cst.Integer, cst.Float, cst.Attribute, cst.Call, cst.Subscript)):
        return value
    return value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


# ---------------------------------------------------------------------------------------------- detection


def _root(e: cst.BaseExpression) -> tuple[cst.BaseExpression, bool]:
    """(the array a subscript target writes into, whether it is written directly: ``x[i]``, not ``x[i][j]``)."""
    direct = True
    while isinstance(e, cst.Subscript):
        e = e.value
        if isinstance(e, cst.Subscript):
            direct = False
    return e, direct


def _subscript_stores(node: cst.CSTNode) -> list[tuple[cst.CSTNode, cst.Subscript]]:
    """(statement or target holder, subscript target) for every store into a subscript under ``node``."""
    out: list[tuple[cst.CSTNode, cst.Subscript]] = []

    def targets(holder: cst.CSTNode, t: cst.BaseExpression) -> None:
        if isinstance(t, cst.Subscript):
            out.append((holder, t))
        elif isinstance(t, (cst.Tuple, cst.List)):
            for el in t.elements:
                targets(holder, el.value.value if isinstance(el, cst.StarredElement) else el.value)
        elif isinstance(t, cst.StarredElement):
            targets(holder, t.value)

    class _V(cst.CSTVisitor):
        def visit_Assign(self, n: cst.Assign) -> None:
            for t in n.targets:
                targets(n, t.target)

        def visit_AugAssign(self, n: cst.AugAssign) -> None:
            targets(n, n.target)

        def visit_AnnAssign(self, n: cst.AnnAssign) -> None:
            targets(n, n.target)

        def visit_For(self, n: cst.For) -> None:
            targets(n, n.target)

        def visit_Del(self, n: cst.Del) -> None:
            targets(n, n.target)

        def visit_WithItem(self, n: cst.WithItem) -> None:
            if n.asname is not None:
                targets(n, n.asname.name)

    node.visit(_V())
    return out


def _fixable(holder: cst.CSTNode, target: cst.Subscript) -> bool:
    """Whether the store is one statement the rule rewrites: ``x[...] = v`` or ``x[...] op= v``."""
    if not isinstance(target.value, (cst.Name, cst.Attribute)) or not dotted_name(target.value):
        return False
    if isinstance(holder, cst.Assign):
        return len(holder.targets) == 1 and holder.targets[0].target is target
    if isinstance(holder, cst.AugAssign):
        return holder.target is target and type(holder.operator) in _AUG
    return False


def _owner(ctx: Context, name: cst.Name) -> tuple[Any, Any] | None:
    """(scope the name is read in, scope whose binding it reads); the global scope for names of earlier cells."""
    scope = ctx.scopes.get(name)
    if scope is None:
        return None
    owners = {r.scope for a in scope.accesses[name] for r in a.referents}
    if len(owners) > 1:
        return None
    return scope, (owners.pop() if owners else scope.globals)


def _declared(fn_scope: Any, name: str) -> bool:
    """``global name`` / ``nonlocal name`` in the function of ``fn_scope``."""
    node = getattr(fn_scope, "node", None)
    if not isinstance(node, cst.FunctionDef):
        return False
    for st in node.body.body if isinstance(node.body, cst.IndentedBlock) else []:
        for small in getattr(st, "body", ()) if isinstance(st, cst.SimpleStatementLine) else ():
            if isinstance(small, (cst.Global, cst.Nonlocal)) and any(n.name.value == name for n in small.names):
                return True
    return False


def _qualname(ctx: Context, scope: Any) -> str:
    if isinstance(scope, GlobalScope):
        return ""
    node = getattr(scope, "node", None)
    if node is None:
        return "?"
    parts = [a.name.value for a in [node, *ctx.ancestors(node)] if isinstance(a, (cst.FunctionDef, cst.ClassDef))]
    return ".".join(reversed(parts))


def _scope_node(ctx: Context, scope: Any) -> cst.CSTNode | None:
    return ctx.module if isinstance(scope, GlobalScope) else getattr(scope, "node", None)


def detect_at_set(ctx: Context, key: Any = None) -> Found | None:
    """The in-place assignments to the array of the failing line, in its scope.

    The key is (the array's name, the qualified name of the scope that binds it). A store into the same
    array from a nested function (a closure) or through ``x[i][j]``, a tuple target, ``del``... is an
    instance the rule does not fix.
    """
    if ctx.module is None:
        return None
    if key is None:
        lines = ctx.at_line(cst.SimpleStatementLine)
        if not lines:
            return None
        stores = _subscript_stores(lines[0])
        roots = {dotted_name(_root(t)[0]) for _, t in stores}
        if len(roots) != 1 or "" in roots:
            return None  # f()[i] = v, or stores into two arrays on one line
        holder, target = stores[0]
        root = _root(target)[0]
        if isinstance(root, cst.Attribute):
            fn = ctx.enclosing(target, cst.FunctionDef)
            key = (dotted_name(root), ctx.code(fn.name) if isinstance(fn, cst.FunctionDef) else "", "attr")
        else:
            assert isinstance(root, cst.Name)
            got = _owner(ctx, root)
            if got is None:
                return None
            key = (root.value, _qualname(ctx, got[1]), "name")
    name, qual, kind = key
    found = Found(key)
    for holder, target in _subscript_stores(ctx.module):
        root, direct = _root(target)
        if dotted_name(root) != name:
            continue
        if kind == "attr":
            fn = ctx.enclosing(target, cst.FunctionDef)
            if (fn.name.value if isinstance(fn, cst.FunctionDef) else "") != qual:
                continue
            ok = direct and _fixable(holder, target)
        else:
            assert isinstance(root, cst.Name)
            got = _owner(ctx, root)
            if got is None:
                found.unfixable.append(target)
                continue
            here, owner = got
            if _qualname(ctx, owner) != qual:
                continue  # another variable of the same name
            local = here is owner or (isinstance(here, FunctionScope) and _declared(here, name))
            ok = direct and local and _fixable(holder, target)
        (found.fixable if ok else found.unfixable).append(holder if ok else target)
    if kind == "name" and len(found.fixable) + len(found.unfixable) > 1 and _not_jax_bindings(ctx, key):
        found.unfixable.append(None)  # the name is also a NumPy array or a list somewhere in the scope
    return found


def _bindings(ctx: Context, key: Any) -> tuple[Any, list[Any]]:
    """(the scope that binds the array's name, its assignments there)."""
    name, qual, _ = key
    for scope in {s for s in ctx.scopes.values() if s is not None}:
        if _qualname(ctx, scope) == qual and isinstance(scope, (GlobalScope, FunctionScope)):
            return scope, list(scope.assignments[name])
    return None, []


def _not_jax_bindings(ctx: Context, key: Any) -> bool:
    _, assigns = _bindings(ctx, key)
    for a in assigns:
        parent = ctx.parent(a.node)
        value = getattr(ctx.parent(parent), "value", None) if isinstance(parent, cst.AssignTarget) else None
        if isinstance(value, (cst.List, cst.ListComp, cst.Dict, cst.DictComp, cst.Set)):
            return True
        if isinstance(value, cst.Call) and full_name(ctx, value.func, keep=True).split(".")[0] in (
                "numpy", "np", "list", "dict", "bytearray", "torch"):
            return True
    return False


# ---------------------------------------------------------------------------------------------- safety


def _scalar_index(ctx: Context, e: cst.BaseExpression, scope: Any, depth: int = 0) -> bool:
    """Whether ``e`` is a number (never an index array, which could repeat a position)."""
    if depth > 4:
        return False
    if isinstance(e, cst.Integer):
        return True
    if isinstance(e, cst.UnaryOperation):
        return _scalar_index(ctx, e.expression, scope, depth + 1)
    if isinstance(e, cst.BinaryOperation):
        return _scalar_index(ctx, e.left, scope, depth + 1) and _scalar_index(ctx, e.right, scope, depth + 1)
    if isinstance(e, cst.Call) and isinstance(e.func, cst.Name) and e.func.value in ("len", "int"):
        return True
    if isinstance(e, cst.Name):
        v = lookup(ctx, e.value)
        if v is not MISSING:
            return isinstance(v, int) or getattr(v, "shape", None) == ()
        if scope is None:
            return False
        assigns = list(scope.assignments[e.value])
        if not assigns:
            return False
        for a in assigns:  # ``for i in range(...)``
            loop = ctx.parent(a.node)
            if not (isinstance(loop, cst.For) and loop.target is a.node and isinstance(loop.iter, cst.Call)
                    and isinstance(loop.iter.func, cst.Name) and loop.iter.func.value == "range"):
                return False
        return True
    return False


def _index_note(ctx: Context, targets: list[cst.Subscript], scope: Any) -> str | None:
    for t in targets:
        for el in t.slice:
            if isinstance(el.slice, cst.Slice):
                continue
            v = el.slice.value
            if isinstance(v, cst.Ellipsis) or (isinstance(v, cst.Name) and v.value == "None"):
                continue
            if not _scalar_index(ctx, v, scope):
                return (f"`{ctx.code(t)}` may index with an array: `.at[...]` updates a position it holds twice "
                        "once per time (NumPy once, and which `set` value wins is unspecified)")
    return None


def _alias_note(ctx: Context, key: Any, scope: Any, assigns: list[Any]) -> str | None:
    """What else may hold the array: another name, a container, the caller; None when nothing does."""
    name = key[0]
    for a in assigns:
        node, parent = a.node, ctx.parent(a.node)
        if isinstance(node, cst.Param):
            fn = getattr(scope, "node", None)
            rets = own_returns(fn) if isinstance(fn, cst.FunctionDef) else []
            if not rets or not all(r.value is not None and any(
                    isinstance(n, cst.Name) and n.value == name for n in _names(r.value)) for r in rets):
                return (f"`{name}` is a parameter the function does not return: the caller's array is not changed "
                        f"(return `{name}` and use the result)")
        elif isinstance(parent, cst.AssignTarget):
            value = getattr(ctx.parent(parent), "value", None)
            if isinstance(value, (cst.Name, cst.Attribute, cst.Subscript)):
                return f"`{name}` is bound to `{ctx.code(value)}`, which keeps the old values"
        elif isinstance(parent, (cst.For, cst.WithItem, cst.AsName)):
            return f"`{name}` is bound by a loop or `with`: what it came from keeps the old values"
    for acc in scope.accesses[name]:
        n = acc.node
        p = ctx.parent(n)
        while isinstance(p, (cst.Element, cst.DictElement, cst.List, cst.Tuple, cst.Set, cst.Dict,
                             cst.StarredElement)):
            p = ctx.parent(p)
        holder = p
        if isinstance(p, cst.Arg):
            call = ctx.parent(p)
            if isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute) \
                    and call.func.attr.value in _STORES_INTO:
                return f"`{name}` is stored by `{ctx.code(call.func)}`: that copy keeps the old values"
            continue
        if isinstance(holder, (cst.Assign, cst.AnnAssign, cst.NamedExpr, cst.AugAssign)) and getattr(
                holder, "value", None) is not None and _contains(holder.value, n):
            tgt = holder.targets[0].target if isinstance(holder, cst.Assign) else holder.target
            if isinstance(holder, cst.Assign) and isinstance(tgt, cst.Name) and tgt.value == name:
                continue  # x = x ...: the same name
            if _direct(ctx, n, holder.value):
                return f"`{ctx.code(tgt)}` is bound to `{name}`'s array too: it keeps the old values"
    if isinstance(scope, GlobalScope) and ctx.namespace:
        v = ctx.namespace.get(name)
        if v is not None and hasattr(v, "shape"):
            for other, w in ctx.namespace.items():
                if w is v and other != name and isinstance(other, str) and not other.startswith("_") \
                        and other not in ("In", "Out"):
                    return f"`{other}` (from an earlier cell) is the same array as `{name}`: it keeps the old values"
    return None


def _direct(ctx: Context, n: cst.CSTNode, value: cst.CSTNode) -> bool:
    """Whether ``n`` is the value itself or an element of a literal container that is the value."""
    while n is not value:
        p = ctx.parent(n)
        if p is None or not isinstance(p, (cst.Element, cst.DictElement, cst.List, cst.Tuple, cst.Set, cst.Dict,
                                           cst.StarredElement)) and p is not value:
            return False
        n = p
    return True


def _contains(outer: cst.CSTNode, node: cst.CSTNode) -> bool:
    found = []

    class _V(cst.CSTVisitor):
        def on_visit(self, n: cst.CSTNode) -> bool:
            if n is node:
                found.append(n)
            return not found

    outer.visit(_V())
    return bool(found)


def _names(e: cst.CSTNode) -> list[cst.Name]:
    out: list[cst.Name] = []

    class _V(cst.CSTVisitor):
        def visit_Name(self, n: cst.Name) -> None:
            out.append(n)

    e.visit(_V())
    return out


# ---------------------------------------------------------------------------------------------- the rule


def _rewritten(small: cst.Assign | cst.AugAssign) -> tuple[cst.Assign, cst.Subscript]:
    if isinstance(small, cst.Assign):
        target = small.targets[0].target
        assert isinstance(target, cst.Subscript)
        call = _at(target, "set", small.value)
    else:
        target = small.target
        assert isinstance(target, cst.Subscript)
        value = small.value
        if isinstance(small.operator, cst.SubtractAssign):
            value = cst.UnaryOperation(cst.Minus(), _paren(value))
        call = _at(target, _AUG[type(small.operator)], value)
    return cst.Assign(targets=[cst.AssignTarget(target.value)], value=call), target


@rule("at-set", detect=detect_at_set)
def at_set(ctx: Context) -> Edit | None:
    """Every item assignment to the failing line's array in its scope becomes a functional ``.at[...]``
    update bound to the same name (see the module docstring for when that is ``safe``)."""
    found = detect_at_set(ctx)
    if not found or found.unfixable or not found.fixable:
        return None
    pairs: list[tuple[cst.CSTNode, cst.CSTNode]] = []
    targets: list[cst.Subscript] = []
    for small in found.fixable:
        new, target = _rewritten(small)
        pairs.append((small, new))
        targets.append(target)
    name, _, kind = found.key
    base = targets[0].value
    where = f" ({len(pairs)} places)" if len(pairs) > 1 else ""
    summary = f"`{ctx.code(base)}` is rebound to an updated copy{where}: JAX arrays are never changed in place"
    note: str | None
    if kind == "attr":
        note = f"other references to `{name}`'s array keep the old values"
        scope = None
    else:
        scope, assigns = _bindings(ctx, found.key)
        note = _alias_note(ctx, found.key, scope, assigns) if scope is not None else "what else holds the array"
    note = note or _index_note(ctx, targets, scope)
    if note:
        return Edit(ctx.replace_many(pairs), "review", f"{summary}; {note}.", cause=found.key)
    return Edit(ctx.replace_many(pairs), "safe", summary + ".", cause=found.key)
