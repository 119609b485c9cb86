"""``x[i] = v`` on a JAX array -> ``x = x.at[i].set(v)`` (and ``+=``, ``-=``, ``*=``, ``/=``, ``**=``).

The rule fixes the cause, not the line: every in-place assignment to the same array in the scope of the
failing line (its function, or the cell) is rewritten, or none is (one left behind fails the cell again).
Its siblings too (``siblings_at_set``): the other arrays of that scope stored into in place whose live
value is a JAX array (a second table filled in the same loop) would raise the same error next.

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

Preconditions checked, each one a way NumPy's in-place semantics would differ (``_alias_note``,
``_caller_note``, ``_index_note``, ``_dtype_note``):

- no other name holds the array: ``y = x``, ``y = (x, 1)``, a store into a container, an earlier cell's
  name for the same object; nor a NumPy *view* of it taken before a store (``y = x[1:]``, ``x.T``,
  ``x.reshape(...)``, ``jnp.asarray(x)``, ``x if c else z``), which NumPy would see change;
- a parameter is returned by every ``return`` of the function, and every caller in the cell passes an
  array nobody else reads: a fresh expression (``f(jnp.zeros(3))``), a name read nowhere else, or
  ``a = f(a)``; a function passed on (``jax.jit(f)``), a method, a default value or a function not
  called in the cell leaves the caller's array unknown;
- every index is a number (an index array may repeat a position: ``.at[].add`` adds each time);
- an augmented store into an integer array adds an integer: NumPy computes ``x[i] + 0.5`` in floating
  point and truncates the sum, ``.at[i].add(0.5)`` casts ``0.5`` to the integer type first.
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
from jaxerrs.rewrite.values import MISSING, is_tracer, live_value, lookup

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


def siblings_at_set(ctx: Context) -> list[Any]:
    """The keys of the other arrays stored into in place in the failing array's scope that are provably JAX
    arrays (their live value in the failing frame is one): a second table filled in the same loop would
    raise the same error on its first store."""
    first = detect_at_set(ctx)
    if not first or first.key[2] != "name":
        return []
    name, qual, _ = first.key
    keys: list[Any] = []
    for _, target in _subscript_stores(ctx.module):
        root, _ = _root(target)
        if not isinstance(root, cst.Name) or root.value == name:
            continue
        got = _owner(ctx, root)
        if got is None or _qualname(ctx, got[1]) != qual:
            continue
        value = live_value(ctx, root, scoped=True)
        jax_array = is_tracer(value) or (type(value).__module__ or "").startswith(("jax", "jaxlib")) and hasattr(
            value, "at")
        if jax_array and (root.value, qual, "name") not in keys:
            keys.append((root.value, qual, "name"))
    return keys


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
            if isinstance(v, bool):
                return False
            return isinstance(v, int) or (getattr(v, "shape", None) == () and getattr(
                getattr(v, "dtype", None), "kind", "") in ("i", "u"))
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


def _alias_note(ctx: Context, key: Any, scope: Any, assigns: list[Any],
                stores: list[cst.CSTNode] | None = None) -> str | None:
    """What else may hold the array: another name, a container, a view, the caller; None when nothing does."""
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
            note = _caller_note(ctx, fn, name) if isinstance(fn, cst.FunctionDef) else "the caller's array"
            if note:
                return note
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
    view = _view_note(ctx, name, scope, stores or [])
    if view:
        return view
    if isinstance(scope, GlobalScope) and ctx.namespace:
        v = ctx.namespace.get(name)
        if v is not None and hasattr(v, "shape"):
            for other, w in ctx.namespace.items():
                if w is v and other != name and isinstance(other, str) and not other.startswith("_") \
                        and other not in ("In", "Out"):
                    return f"`{other}` (from an earlier cell) is the same array as `{name}`: it keeps the old values"
    return None


# attributes and methods that give a NumPy view of the array (it would see a later in-place store)
_VIEW_ATTRS = {"T", "mT", "real", "imag", "flat"}
_VIEW_METHODS = {"reshape", "view", "transpose", "swapaxes", "ravel", "squeeze", "diagonal", "__array__"}


def _view_note(ctx: Context, name: str, scope: Any, stores: list[cst.CSTNode]) -> str | None:
    """A name bound, before a store, to what NumPy makes a view of the array (``y = x[1:]``, ``x.T``,
    ``x.reshape(...)``, ``jnp.asarray(x)``, ``x if c else z``): NumPy's ``y`` would see the store, JAX's not."""
    for acc in scope.accesses[name]:
        n = acc.node
        cur: cst.CSTNode = n
        while True:
            p = ctx.parent(cur)
            if isinstance(p, cst.Subscript) and p.value is cur:
                cur = p
            elif isinstance(p, cst.Attribute) and p.value is cur and p.attr.value in _VIEW_ATTRS:
                cur = p
            elif isinstance(p, cst.Attribute) and p.value is cur and p.attr.value in _VIEW_METHODS:
                call = ctx.parent(p)
                if not (isinstance(call, cst.Call) and call.func is p):
                    break
                cur = call
            elif isinstance(p, cst.IfExp) and cur is not p.test or isinstance(p, cst.BooleanOperation):
                cur = p
            elif isinstance(p, cst.Arg) and p.keyword is None and isinstance(ctx.parent(p), cst.Call):
                call = ctx.parent(p)
                assert isinstance(call, cst.Call)
                if not (call.args and call.args[0] is p and full_name(ctx, call.func, keep=True).rsplit(
                        ".", 1)[-1] == "asarray"):
                    break
                cur = call
            else:
                break
        if cur is n:
            continue
        holder = ctx.parent(cur)
        if not isinstance(holder, (cst.Assign, cst.AnnAssign, cst.NamedExpr)) or holder.value is not cur:
            continue
        tgt = holder.targets[0].target if isinstance(holder, cst.Assign) else holder.target
        if isinstance(tgt, cst.Name) and tgt.value == name:
            continue  # x = x[1:]: the name itself, rebound
        if _before_a_store(ctx, holder, stores):
            return (f"`{ctx.code(tgt)}` is taken from `{name}` before it is changed (in NumPy a view that sees "
                    "the change): it keeps the old values")
    return None


def _before_a_store(ctx: Context, node: cst.CSTNode, stores: list[cst.CSTNode]) -> bool:
    """Whether ``node`` may run before one of ``stores``: earlier in the cell, or in a loop with one."""
    if not stores:
        return True
    line = ctx.span(node)[0]
    if any(ctx.span(st)[0] >= line for st in stores):
        return True
    loops = [a for a in ctx.ancestors(node) if isinstance(a, (cst.For, cst.While))]
    return any(loop in ctx.ancestors(st) for loop in loops for st in stores)


# jax.numpy and numpy, also as the conventional names a cell uses when an earlier cell imported them
_NUMPY = ("jax.numpy", "numpy", "jnp", "np")
# jax.numpy / numpy functions whose result is a new array (never the argument itself)
_FRESH = {"zeros", "ones", "full", "empty", "arange", "linspace", "eye", "identity", "array", "zeros_like",
          "ones_like", "full_like", "copy"}


def _fresh(ctx: Context, e: cst.BaseExpression) -> bool:
    """Whether ``e`` makes a new array that no name holds (a literal, arithmetic, ``jnp.zeros(...)``)."""
    if isinstance(e, (cst.Integer, cst.Float, cst.List, cst.Tuple, cst.BinaryOperation, cst.UnaryOperation)):
        return True
    if isinstance(e, cst.Call):
        full = full_name(ctx, e.func, keep=True)
        head, _, last = full.rpartition(".")
        return head in _NUMPY and last in _FRESH
    return False


def _caller_note(ctx: Context, fn: cst.FunctionDef, name: str) -> str | None:
    """What a caller of ``fn`` still holds of the array it passed for parameter ``name`` (NumPy would have
    changed it in place); None when every caller in the cell passes an array nobody else reads."""
    fname = fn.name.value
    unknown = (f"`{name}` is a parameter: check that `{fname}`'s callers use the returned array (the one they "
               "passed keeps the old values)")
    if isinstance(ctx.parent(ctx.parent(fn)), cst.ClassDef):
        return unknown  # a method: its callers are ``obj.method(...)``, not followed here
    p = fn.params
    positional = [q.name.value for q in (*p.posonly_params, *p.params)]
    param = next((q for q in (*p.posonly_params, *p.params, *p.kwonly_params) if q.name.value == name), None)
    if param is None or param.default is not None:
        return unknown  # ``*args``, or a default array a call without it would share
    refs = [n for n in ctx.nodes(cst.Name) if n.value == fname and n is not fn.name]  # type: ignore[attr-defined]
    if not refs:
        return unknown
    for r in refs:
        call = ctx.parent(r)
        if not isinstance(call, cst.Call) or call.func is not r or fn in ctx.ancestors(r):
            return unknown  # passed on (``jax.jit(f)``, ``vmap(f)``), stored, or recursive
        if any(a.star for a in call.args):
            return unknown
        pos_args = [a for a in call.args if a.keyword is None]
        arg = next((a for a in call.args if a.keyword is not None and a.keyword.value == name), None)
        if arg is None and name in positional and positional.index(name) < len(pos_args):
            arg = pos_args[positional.index(name)]
        if arg is None:
            return unknown
        v = arg.value
        if _fresh(ctx, v):
            continue
        if not isinstance(v, cst.Name):
            return unknown
        held = f"`{v.value}` (passed to `{fname}`) keeps the old values: use the returned array"
        got = _owner(ctx, v)
        if got is None:
            return held
        key = (v.value, _qualname(ctx, got[1]), "name")
        owner, assigns = _bindings(ctx, key)
        stmt = ctx.parent(call)
        rebinds = isinstance(stmt, cst.Assign) and stmt.value is call and len(stmt.targets) == 1 and isinstance(
            stmt.targets[0].target, cst.Name) and stmt.targets[0].target.value == v.value
        if owner is None or (not assigns and not rebinds):
            return held  # an array of an earlier cell: later cells may read it
        if not rebinds:
            reads = {id(acc.node) for asg in assigns for acc in asg.references}
            if reads - {id(v)}:
                return held
        if not isinstance(getattr(owner, "node", None), cst.FunctionDef) or owner.node is not fn:
            note = _alias_note(ctx, key, owner, assigns)
            if note:
                return held
    return None


# constructors whose result is floating point unless a dtype says otherwise
_FLOAT_CTORS = {"zeros", "ones", "empty", "eye", "identity", "linspace", "logspace"}


def _written_kind(ctx: Context, assigns: list[Any]) -> str | None:
    """'f' when every binding of the array in its scope builds a float array (``jnp.zeros(3)``,
    ``jnp.ones(n, dtype=jnp.float32)``); None when the cell does not say."""
    if not assigns:
        return None
    for a in assigns:
        parent = ctx.parent(a.node)
        value = getattr(ctx.parent(parent), "value", None) if isinstance(parent, cst.AssignTarget) else None
        if not isinstance(value, cst.Call):
            return None
        full = full_name(ctx, value.func, keep=True)
        head, _, last = full.rpartition(".")
        if head not in _NUMPY or last not in _FLOAT_CTORS:
            return None
        dt = next((x.value for x in value.args if x.keyword is not None and x.keyword.value == "dtype"), None)
        if dt is not None and not any(k in ctx.code(dt) for k in ("float", "complex")):
            return None
        if dt is None and any(x.keyword is None for x in value.args[1 if last != "eye" else 3:]):
            return None  # a dtype given by position
    return "f"


def _dtype_note(ctx: Context, name: str, holders: list[cst.CSTNode], assigns: list[Any] | None = None) -> str | None:
    """An augmented store into an integer (or bool) array whose value may not be an integer."""
    if not any(isinstance(h, cst.AugAssign) for h in holders):
        return None
    kind = getattr(getattr(lookup(ctx, name), "dtype", None), "kind", None)
    if kind is None:
        kind = _written_kind(ctx, assigns or [])
    if kind in ("f", "c"):
        return None
    for h in holders:
        if not isinstance(h, cst.AugAssign):
            continue
        v = h.value
        if isinstance(v, cst.UnaryOperation) and isinstance(v.operator, cst.Minus):
            v = v.expression
        val = lookup(ctx, v.value) if isinstance(v, cst.Name) else MISSING
        is_int = isinstance(v, cst.Integer) or (isinstance(val, int) and not isinstance(val, bool)) or getattr(
            getattr(val, "dtype", None), "kind", "") in ("i", "u")
        if kind is None or not is_int:
            return (f"`{ctx.code(h)}`: if `{name}` holds integers and the value is fractional, NumPy adds in "
                    "floating point and truncates the sum, `.at[]` truncates the value first")
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


_AUG_OPS = {cst.AddAssign: cst.Add, cst.SubtractAssign: cst.Subtract, cst.MultiplyAssign: cst.Multiply,
            cst.DivideAssign: cst.Divide, cst.PowerAssign: cst.Power}


def _mask_shape(ctx: Context, e: cst.BaseExpression, depth: int = 0) -> tuple[int, ...] | None:
    """The shape of a boolean mask expression (a bool array, a comparison of an array with scalars or
    arrays of its shape, ``~``/``&``/``|`` of masks); None when it is not one or not known."""
    if depth > 4:
        return None
    if isinstance(e, cst.UnaryOperation) and isinstance(e.operator, cst.BitInvert):
        return _mask_shape(ctx, e.expression, depth + 1)
    if isinstance(e, cst.BinaryOperation) and isinstance(e.operator, (cst.BitAnd, cst.BitOr, cst.BitXor)):
        a, b = _mask_shape(ctx, e.left, depth + 1), _mask_shape(ctx, e.right, depth + 1)
        return a if a is not None and a == b else None
    if isinstance(e, cst.Comparison) and len(e.comparisons) == 1 and isinstance(
            e.comparisons[0].operator, (cst.LessThan, cst.LessThanEqual, cst.GreaterThan, cst.GreaterThanEqual,
                                        cst.Equal, cst.NotEqual)):
        shapes = set()
        for side in (e.left, e.comparisons[0].comparator):
            if isinstance(side, (cst.Integer, cst.Float)):
                continue
            v = live_value(ctx, side, attrs="getattr", scoped=True)
            if v is MISSING or isinstance(v, bool):
                return None
            shp = getattr(v, "shape", None) if not isinstance(v, (int, float)) else ()
            if shp is None:
                return None
            if shp != ():
                shapes.add(tuple(shp))
        return shapes.pop() if len(shapes) == 1 else None
    v = live_value(ctx, e, attrs="getattr", scoped=True) if isinstance(e, (cst.Name, cst.Attribute)) else MISSING
    if v is not MISSING and str(getattr(v, "dtype", "")) == "bool" and getattr(v, "shape", None) is not None:
        return tuple(v.shape)
    return None


def _mask_where(ctx: Context, small: cst.Assign | cst.AugAssign) -> cst.Assign | None:
    """``x[mask] = v`` (or ``op=``) with a boolean mask of ``x``'s own shape and a scalar ``v`` ->
    ``x = jnp.where(mask, v, x)``: the same values, and unlike ``.at[mask]`` it also works under ``jit``,
    where a boolean index has no static size. None for any other store."""
    target = small.targets[0].target if isinstance(small, cst.Assign) else small.target
    if not isinstance(target, cst.Subscript) or len(target.slice) != 1 or not isinstance(target.slice[0].slice, cst.Index):
        return None
    mask = target.slice[0].slice.value
    xv = live_value(ctx, target.value, attrs="getattr", scoped=True)
    if xv is MISSING or _mask_shape(ctx, mask) != getattr(xv, "shape", None):
        return None
    value = small.value
    vv = live_value(ctx, value, attrs="getattr", scoped=True) if not isinstance(value, (cst.Integer, cst.Float)) else 0
    if not (isinstance(value, (cst.Integer, cst.Float)) or isinstance(vv, (int, float)) or getattr(vv, "shape", None) == ()):
        return None  # a value per selected position is not what `where` takes
    if "float" not in str(getattr(xv, "dtype", "")):
        return None  # an int array with a float value: NumPy casts, `where` would promote
    if isinstance(small, cst.AugAssign):
        op = _AUG_OPS.get(type(small.operator))
        if op is None:
            return None
        value = cst.BinaryOperation(_paren(target.value), op(), _paren(value))
    jnp, imp = ctx.need("jax.numpy", "jnp")
    if imp is not None:
        return None  # keep the edit to the statements: the cell names jax.numpy already in every real case
    call = cst.Call(func=cst.parse_expression(f"{jnp}.where"),
                    args=[cst.Arg(mask, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
                          cst.Arg(value, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
                          cst.Arg(target.value)])
    return cst.Assign(targets=[cst.AssignTarget(target.value)], value=call)


@rule("at-set", detect=detect_at_set, siblings=siblings_at_set)
def at_set(ctx: Context) -> Edit | None:
    """Every item assignment to the failing line's array in its scope becomes a functional ``.at[...]``
    update bound to the same name (see the module docstring for when that is ``safe``)."""
    found = detect_at_set(ctx)
    if not found or found.unfixable or not found.fixable:
        return None
    pairs: list[tuple[cst.CSTNode, cst.CSTNode]] = []
    targets: list[cst.Subscript] = []
    masked = []
    for small in found.fixable:
        new, target = _rewritten(small)
        where = _mask_where(ctx, small)
        if where is not None:
            masked.append(ctx.code(target))
            new = where
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
        note = _alias_note(ctx, found.key, scope, assigns, found.fixable) if scope is not None else \
            "what else holds the array"
    if masked:
        note = note or (f"`{'`, `'.join(masked)}` became `jnp.where(mask, value, array)`: the same values where the "
                        "mask is True, the array elsewhere (a boolean index has no size under `jit`)")
    note = note or _index_note(ctx, [t for t in targets if ctx.code(t) not in masked], scope) or _dtype_note(
        ctx, name, found.fixable, assigns if kind != "attr" else None)
    if note:
        return Edit(ctx.replace_many(pairs), "review", f"{summary}; {note}.", cause=found.key)
    return Edit(ctx.replace_many(pairs), "safe", summary + ".", cause=found.key)
