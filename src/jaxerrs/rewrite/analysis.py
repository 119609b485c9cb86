"""One reading of the cell that every rewrite rule shares: names, jits, functions and live values.

Rules key their decisions on what the code *is*, never on how the user spelled it. This module is
the one place that turns the spelling into meaning, from LibCST's metadata (the context's
``ScopeProvider``, ``ParentNodeProvider`` and ``PositionProvider``) and, where there is one, the
failing frame's values:

- **names**: :func:`full_name` gives "jax.numpy.sum" for ``np.sum`` after ``from jax import numpy as
  np``, "jax.lax.cond" for ``L.cond`` after ``import jax.lax as L``, and resolves bare names an earlier
  cell bound (``from jax import jit``, ``partial``, ``scan = lax.scan``) through the namespace. A
  parameter or local that shadows an import is not that import (LibCST scopes).
- **jits**: :func:`jit_kind` says which jit an expression is (``jax.jit``, ``flax.nnx.jit``,
  ``equinox.filter_jit``); :func:`find_jit` finds how a function of the cell is jitted (``@jax.jit``,
  ``@jit``, ``@jax.jit(...)``, ``@partial(jax.jit, ...)``, ``f = jax.jit(g, ...)``, ``jax.jit(g)(...)``,
  ``nnx.jit``, on methods) as a :class:`JitSite`, and :meth:`JitSite.statics` which parameters are static.
- **functions**: :func:`function_of` is the ``def`` or ``lambda`` a callable expression runs: a name
  (through scopes, so closures and nested defs resolve), ``self.method`` and ``obj.method`` of a class
  of the cell (Flax NNX and Equinox modules included, ``obj`` itself for ``__call__``), and
  ``functools.partial(f, a, k=v)`` with the parameters it binds.
- **values**: :func:`lookup`, :func:`lookup_dotted` and :func:`live_value` read the failing frame
  (locals, then the namespace of earlier cells); :func:`is_array`, :func:`is_tracer`, :func:`traced`.

``names``, ``values`` and ``jit_static`` re-export what they used to define, so existing imports keep
working. Nothing here runs user code beyond attribute reads of live objects.
"""

from __future__ import annotations

import ast
import builtins
import importlib
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import libcst as cst

from jaxerrs.rewrite.context import dotted_name

if TYPE_CHECKING:
    from jaxerrs.rewrite.context import Context

MISSING: Any = object()  # "no value known" (None is a value a name can hold)
NOPE: Any = object()  # an expression that is not a Python literal

# ============================================================================================== values


def lookup(ctx: Context, name: str, with_builtins: bool = False) -> Any:
    """What ``name`` holds in the failing frame: its locals, then the namespace (then builtins); MISSING."""
    scopes = (ctx.locals, ctx.namespace, vars(builtins) if with_builtins else None)
    for scope in scopes:
        if scope is not None and name in scope:
            return scope[name]
    return MISSING


def lookup_dotted(ctx: Context, dotted: str) -> Any:
    """The value of ``a.b.c`` in the failing frame (locals, namespace, builtins), or MISSING."""
    if not dotted:
        return MISSING
    head, *rest = dotted.split(".")
    obj = lookup(ctx, head, with_builtins=True)
    if obj is MISSING:
        return MISSING
    try:
        for part in rest:
            obj = getattr(obj, part)
    except Exception:  # noqa: BLE001 - a property that raises: unknown
        return MISSING
    return obj


def literal(node: cst.BaseExpression) -> Any:
    """A string or (possibly negated) number written in the cell, or MISSING."""
    if isinstance(node, (cst.SimpleString, cst.Integer, cst.Float)) or (
            isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus)
            and isinstance(node.expression, (cst.Integer, cst.Float))):
        try:
            return ast.literal_eval(cst.Module([]).code_for_node(node))
        except (ValueError, SyntaxError):
            return MISSING
    return MISSING


def py_literal(e: cst.BaseExpression) -> Any:
    """The Python value of a literal expression (numbers, strings, tuples, lists...), or NOPE."""
    try:
        return ast.literal_eval(cst.Module([]).code_for_node(e))
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return NOPE


def frame_function(ctx: Context) -> cst.CSTNode | None:
    """The function (or lambda) whose frame ``ctx.locals`` belongs to: the innermost at the failing line."""
    found = ctx.at_line((cst.FunctionDef, cst.Lambda))
    return found[0] if found else None


def read_names(node: cst.CSTNode) -> set[str]:
    """Names that appear in an expression (not attribute names, not keyword names)."""
    out: set[str] = set()

    class _V(cst.CSTVisitor):
        def visit_Name(self, n: cst.Name) -> None:
            out.add(n.value)

        def visit_Attribute(self, n: cst.Attribute) -> bool:
            n.value.visit(self)
            return False

        def visit_Arg(self, n: cst.Arg) -> bool:
            n.value.visit(self)
            return False

    node.visit(_V())
    return out


def locals_of(fn: cst.CSTNode) -> set[str]:
    """Parameters and assigned names of a function or lambda (its locals)."""
    params = fn.params  # type: ignore[attr-defined]
    out = {p.name.value for p in params.params + params.kwonly_params + params.posonly_params}
    for star in (params.star_arg, params.star_kwarg):
        if isinstance(star, cst.Param):
            out.add(star.name.value)

    class _V(cst.CSTVisitor):
        def visit_AssignTarget(self, n: cst.AssignTarget) -> None:
            out.update(read_names(n.target))

        def visit_AugAssign(self, n: cst.AugAssign) -> None:
            out.update(read_names(n.target))

        def visit_AnnAssign(self, n: cst.AnnAssign) -> None:
            out.update(read_names(n.target))

        def visit_For(self, n: cst.For) -> None:
            out.update(read_names(n.target))

    fn.visit(_V())
    return out


def live_value(ctx: Context, node: cst.CSTNode, attrs: str = "instance", numbers: bool = False,
               scoped: bool = False) -> Any:
    """The live value of a name, ``obj.attr``, ``d["key"]``/``seq[i]`` (or a number, a tuple), or MISSING.

    ``attrs`` says which attributes are read: "getattr" (any), "instance" (the instance ``__dict__``
    only, so no property runs), "instance-or-module". ``numbers`` also evaluates number literals and
    tuples/lists of values. ``scoped`` reads a name from the failing frame's locals only when the name
    sits in that frame's function (a local of another function has no live value).
    """
    def again(n: cst.CSTNode) -> Any:
        return live_value(ctx, n, attrs, numbers, scoped)

    if isinstance(node, cst.Name):
        if not scoped:
            return lookup(ctx, node.value)
        home = next((a for a in ctx.ancestors(node) if isinstance(a, (cst.FunctionDef, cst.Lambda))), None)
        here = frame_function(ctx)
        scopes = (ctx.locals, ctx.namespace) if home is here else (ctx.namespace,)
        if home is not None and home is not here and node.value in locals_of(home):
            scopes = ()  # a local of another function: its frame is gone
        for scope in scopes:
            if scope is not None and node.value in scope:
                return scope[node.value]
        return MISSING
    if numbers and isinstance(node, (cst.Integer, cst.Float)):
        return node.evaluated_value
    if numbers and isinstance(node, (cst.Tuple, cst.List)) and not any(
            isinstance(e, cst.StarredElement) for e in node.elements):
        items = [again(e.value) for e in node.elements]
        if any(v is MISSING for v in items):
            return MISSING
        return tuple(items) if isinstance(node, cst.Tuple) else items
    if isinstance(node, cst.Attribute):
        base = again(node.value)
        if base is MISSING:
            return MISSING
        attr = node.attr.value
        if attrs == "getattr":
            try:
                return getattr(base, attr)
            except Exception:  # noqa: BLE001
                return MISSING
        inst = getattr(base, "__dict__", None)
        if isinstance(inst, dict) and attr in inst:
            return inst[attr]
        if attrs == "instance-or-module" and type(base).__name__ == "module":
            return getattr(base, attr, MISSING)
        return MISSING
    if isinstance(node, cst.Subscript) and len(node.slice) == 1 and isinstance(
            node.slice[0].slice, cst.Index):
        base = again(node.value)
        key = literal(node.slice[0].slice.value)
        if key is MISSING or not isinstance(base, (dict, list, tuple)):
            return MISSING
        try:
            return base[key]
        except (KeyError, IndexError, TypeError):
            return MISSING
    return MISSING


def is_tracer(v: Any) -> bool:
    """Whether ``v`` is a JAX tracer (a value only known while tracing), without importing JAX."""
    jax = sys.modules.get("jax")
    return jax is not None and isinstance(v, jax.core.Tracer)


def is_array(v: Any) -> bool:
    """Whether ``v`` is array data: a tracer, or a JAX/NumPy array or scalar (not a Python number, not a class)."""
    if v is MISSING or v is None:
        return False
    if is_tracer(v):
        return True
    mod = type(v).__module__ or ""
    return (mod.startswith(("jax", "jaxlib", "numpy")) and hasattr(v, "shape") and hasattr(v, "dtype")
            and not isinstance(v, type))


_SHAPED = ("zeros", "ones", "empty", "full")


def shape_of(ctx: Context, e: cst.BaseExpression) -> tuple[int, ...] | None:
    """The shape of an expression: from its live value (a name, ``obj.attr``, ``d["k"]``, a number), else from
    a constructor written with literal sizes (``jnp.zeros((3, 2))``, ``jnp.arange(5)``, ``jnp.eye(3)``,
    ``jnp.array([[1, 2]])``, ``jax.random.normal(key, (4,))``); None when it cannot be told without running."""
    v = live_value(ctx, e, numbers=True)
    if v is not MISSING:
        if isinstance(v, (bool, int, float)):
            return ()
        shape = getattr(v, "shape", None) if is_array(v) else None
        return tuple(shape) if isinstance(shape, tuple) and all(isinstance(d, int) for d in shape) else None
    if not isinstance(e, cst.Call) or any(a.star for a in e.args):
        return None
    name = full_name(ctx, e.func, keep=True)
    mod, _, fn = name.rpartition(".")
    pos = [a.value for a in e.args if a.keyword is None]
    kw = {a.keyword.value: a.value for a in e.args if a.keyword is not None}

    def dims(node: cst.BaseExpression | None) -> tuple[int, ...] | None:
        val = py_literal(node) if node is not None else NOPE
        if isinstance(val, int) and not isinstance(val, bool):
            return (val,)
        if isinstance(val, (tuple, list)) and all(isinstance(d, int) and not isinstance(d, bool) for d in val):
            return tuple(val)
        return None

    if mod in ("jax.numpy", "numpy"):
        if fn in _SHAPED:
            return dims(pos[0] if pos else kw.get("shape"))
        if fn == "arange" and len(pos) == 1 and not kw:
            return dims(pos[0])
        if fn in ("eye", "identity") and len(pos) == 1:
            n = dims(pos[0])
            return (n[0], n[0]) if n is not None and len(n) == 1 else None
        if fn in ("array", "asarray") and pos:
            val = py_literal(pos[0])
            if val is NOPE or not isinstance(val, (list, tuple, int, float)):
                return None
            try:
                import numpy as np

                return tuple(np.shape(val)) if np.asarray(val).dtype != object else None
            except (ValueError, TypeError):
                return None
    if isinstance(e.func, cst.Attribute) and e.func.attr.value == "reshape" and pos and not kw:
        new = dims(pos[0]) if len(pos) == 1 else dims(cst.Tuple([cst.Element(p) for p in pos]))
        return new if new is not None and all(d >= 0 for d in new) else None  # `x.reshape(5, 3)`
    if mod == "jax.random" and fn in ("normal", "uniform", "bernoulli") and len(pos) >= 2:
        return dims(pos[1]) if fn != "bernoulli" else dims(pos[2]) if len(pos) >= 3 else None
    return None


# names read only for their static metadata: ``x.shape`` of a tracer is a Python tuple
STATIC_ATTRS = frozenset({"shape", "ndim", "dtype", "size"})


def loads(node: cst.CSTNode) -> list[str]:
    """Dotted names an expression reads for their value: ``x.shape``-like static reads, ``len(...)`` and
    keyword names are skipped; ``f(x).sum`` reads what ``f(x)`` reads."""
    out: list[str] = []

    class _V(cst.CSTVisitor):
        def visit_Attribute(self, n: cst.Attribute) -> bool:
            if n.attr.value in STATIC_ATTRS:
                return False
            d = dotted_name(n)
            if d and "" not in d.split("."):
                out.append(d)
            else:
                n.value.visit(self)
            return False

        def visit_Call(self, n: cst.Call) -> bool:
            return not (isinstance(n.func, cst.Name) and n.func.value == "len")

        def visit_Arg(self, n: cst.Arg) -> bool:
            n.value.visit(self)
            return False

        def visit_Name(self, n: cst.Name) -> None:
            out.append(n.value)

    node.visit(_V())
    return out


def traced(ctx: Context, e: cst.CSTNode) -> bool | None:
    """True when ``e`` reads array data (a tracer under a transform) in the failing frame, False when it
    reads none, None when some name it reads has no live value."""
    unknown = False
    for name in loads(e):
        parts = name.split(".")
        values = [lookup_dotted(ctx, ".".join(parts[:k])) for k in range(1, len(parts) + 1)]
        if any(v is not MISSING and is_array(v) for v in values):
            return True  # `y.sum` reads the array `y`
        if values[-1] is MISSING:
            unknown = True
    return None if unknown else False


# ============================================================================================== names


def _objects(dotted: tuple[str, ...]) -> dict[int, str]:
    """id(object) -> dotted name, for the objects among ``dotted`` (in modules already loaded)."""
    out: dict[int, str] = {}
    for name in dotted:
        head = name.split(".")[0]
        obj: Any = sys.modules.get(head)
        if obj is None:
            continue
        for part in name.split(".")[1:]:
            obj = getattr(obj, part, None)
        if obj is not None:
            out[id(obj)] = name
    return out


def _head(node: cst.CSTNode) -> cst.Name | None:
    while isinstance(node, cst.Attribute):
        node = node.value
    return node if isinstance(node, cst.Name) else None


def _rebound(ctx: Context) -> set[str]:
    """Names the cell binds other than by import (parameters, assignments, defs): only those can shadow."""
    a = _analysis(ctx)
    if a.rebound is None:
        out: set[str] = set()
        for p in ctx.nodes(cst.Param):
            out.add(p.name.value)  # type: ignore[attr-defined]
        for t in ctx.nodes(cst.AssignTarget):
            out.update(read_names(t.target))  # type: ignore[attr-defined]
        for n in ctx.nodes((cst.FunctionDef, cst.ClassDef)):
            out.add(n.name.value)  # type: ignore[attr-defined]
        for n in ctx.nodes((cst.For, cst.AugAssign, cst.AnnAssign)):
            out.update(read_names(n.target))  # type: ignore[attr-defined]
        a.rebound = out
    return a.rebound


def shadowed(ctx: Context, node: cst.CSTNode) -> bool:
    """Whether the head name of ``node`` is, where it stands, a parameter or local of a function of the
    cell rather than what the cell's imports (or an earlier cell) bound it to (LibCST scopes)."""
    head = _head(node)
    if head is None or head.value not in _rebound(ctx) or head not in ctx.positions:
        return False  # the cheap common case: the name is bound only by imports here
    scope = ctx.scopes.get(head)
    if scope is None:
        return False
    try:
        assigned = list(scope[head.value])
    except Exception:  # noqa: BLE001 - a scope LibCST cannot answer: keep the spelling's meaning
        return False
    if not assigned:
        return False
    from libcst.metadata import GlobalScope

    kinds = {type(a).__name__ for a in assigned}
    return kinds == {"Assignment"} and not isinstance(getattr(assigned[0], "scope", None), GlobalScope)


def full_name(ctx: Context, node: cst.CSTNode, known: tuple[str, ...] = (), modules: tuple[str, ...] = (),
              keep: bool = False, methods: bool = False) -> str:
    """The full dotted name an expression stands for (``tu.tree_map`` -> "jax.tree_util.tree_map"), or ''.

    A head the cell's imports (and the namespace's modules, ``jit``, ``partial``...) do not bind is
    looked up further only as asked: ``known`` dotted names recognised by identity when the namespace
    binds one bare (``scan = jax.lax.scan``); ``modules`` searched for a bare name's live value (a
    function an earlier cell imported by name); ``keep`` returns the unresolved spelling instead of '';
    ``methods`` gives ".mean" for a method of any expression (``params["w"].mean``). A head that is a
    parameter or local of the function it stands in is not the import of the same name.
    """
    dotted = dotted_name(node)
    if not dotted:
        return f".{node.attr.value}" if methods and isinstance(node, cst.Attribute) else ""
    head, _, rest = dotted.partition(".")
    base = ctx.imports.get(head)
    if base is not None:
        if shadowed(ctx, node):  # checked only for names an import binds: the scope analysis is not free
            return dotted if keep else ""
        return f"{base}.{rest}" if rest else base
    if not rest and known and ctx.namespace and head in ctx.namespace and not shadowed(ctx, node):
        obj = ctx.namespace[head]
        if "functools.partial" in known and getattr(obj, "__module__", None) == "functools" \
                and getattr(obj, "__name__", "") == "partial":
            return "functools.partial"
        found = _objects(known).get(id(obj))
        if found:
            return found
    if not rest and modules:
        found = public_name(ctx, head, modules)
        if found:
            return found
    return dotted if keep else ""


def public_name(ctx: Context, name: str, modules: tuple[str, ...]) -> str | None:
    """'jax.nn.logsumexp' for a bare name an earlier cell imported with ``from jax.nn import logsumexp``."""
    obj = lookup(ctx, name)
    if obj is MISSING or not callable(obj) or not str(getattr(obj, "__module__", "")).startswith("jax"):
        return None
    for mod in modules:
        try:
            if getattr(importlib.import_module(mod), name, None) is obj:
                return f"{mod}.{name}"
        except ImportError:
            continue
    return None


def refers_to(ctx: Context, node: cst.CSTNode, target: str) -> bool:
    """Whether ``node`` (a dotted name) is ``target`` ("jax.jit"): by its live value when the frame has
    one, else by the cell's imports."""
    d = dotted_name(node)
    if not d or "" in d.split("."):
        return False
    v = lookup_dotted(ctx, d)
    if v is not MISSING and not shadowed(ctx, node):
        mod, _, attr = target.rpartition(".")
        try:
            return v is getattr(importlib.import_module(mod), attr)
        except Exception:  # noqa: BLE001
            return False
    return full_name(ctx, node, keep=True) == target


def module_aliases(ctx: Context, module: str) -> list[str]:
    """The names the cell (or an earlier cell) binds to ``module``: ["jnp", "np"] for "jax.numpy"."""
    return [bound for bound, full in ctx.imports.items() if full == module]


# ============================================================================================== jits

# jit-like wrappers that take ``static_argnums``/``static_argnames`` the way ``jax.jit`` does
STATIC_JITS = ("jax.jit", "flax.nnx.jit")
# every jit the analysis recognises (``equinox.filter_jit`` makes non-array arguments static by itself)
JITS = (*STATIC_JITS, "equinox.filter_jit")


def jit_kind(ctx: Context, node: cst.CSTNode) -> str:
    """Which jit ``node`` is ("jax.jit", "flax.nnx.jit", "equinox.filter_jit"), or ''."""
    name = full_name(ctx, node, keep=True)
    if name in JITS:
        return name
    if isinstance(node, cst.Name) and ctx.namespace and node.value in ctx.namespace and not shadowed(ctx, node):
        found = _objects(JITS).get(id(ctx.namespace[node.value]))  # `from flax.nnx import jit`
        if found:
            return found
    return ""


def is_jit(ctx: Context, node: cst.CSTNode) -> bool:
    """Whether ``node`` is ``jax.jit`` itself (however the cell spells it)."""
    return full_name(ctx, node, keep=True) == "jax.jit"


def is_partial(ctx: Context, node: cst.CSTNode) -> bool:
    return full_name(ctx, node, keep=True) == "functools.partial"


@dataclass
class JitSite:
    """Where the user's function is jitted and how it is called."""

    fn: cst.FunctionDef
    node: cst.BaseExpression  # what to replace: the decorator expression or the ``jax.jit(g, ...)`` call
    call: cst.Call | None  # the call that carries the keywords (None for a bare ``@jax.jit``)
    jit_ref: cst.BaseExpression  # ``jax.jit`` / ``jit`` / ``nnx.jit`` as the cell spells it
    names: list[str] = field(default_factory=list)  # names the jitted function is called by
    inline: cst.Call | None = None  # ``jax.jit(g)(...)``
    method: bool = False  # the call sites are ``obj.name(...)``
    decorator: cst.Decorator | None = None  # the decorator, for a decorated function
    direct: bool = True  # ``jax.jit(g)`` itself, not ``jax.jit(grad(g))``
    kind: str = "jax.jit"  # which jit (see JITS)

    def statics(self) -> set[str] | None:
        """The parameters this jit makes static (by number or by name); None when unreadable."""
        pos, _ = param_names(self.fn)
        nums = static_kw(self.call, "static_argnums")
        names = static_kw(self.call, "static_argnames")
        if nums is None or names is None:
            return None
        return set(names[0]) | {pos[i] for i in nums[0] if isinstance(i, int) and -len(pos) <= i < len(pos)}


def deco_kind(ctx: Context, e: cst.BaseExpression, kinds: tuple[str, ...] = ("jax.jit",)
              ) -> tuple[cst.Call | None, cst.BaseExpression] | None:
    """(the call that carries the keywords, the jit expression) for a jit decorator; None for others.

    ``@jax.jit`` gives (None, ``jax.jit``); ``@jax.jit(...)`` and ``@partial(jax.jit, ...)`` give the call.
    ``kinds`` are the jits that count (``jax.jit`` alone unless asked).
    """
    def kind_of(x: cst.CSTNode) -> bool:
        return jit_kind(ctx, x) in kinds

    if kind_of(e):
        return None, e
    if isinstance(e, cst.Call):
        pos = [a for a in e.args if a.keyword is None]
        if kind_of(e.func) and not pos and all(a.star == "" for a in e.args):
            return e, e.func
        if is_partial(ctx, e.func) and len(pos) == 1 and e.args[0] is pos[0] and kind_of(pos[0].value) \
                and all(a.star == "" for a in e.args):
            return e, pos[0].value
    return None


def name_of(e: cst.CSTNode) -> str:
    return e.value if isinstance(e, cst.Name) else ""


def find_jit(ctx: Context, fn: cst.FunctionDef, others: bool = False, anywhere: bool = False,
             reaches: Callable[[cst.BaseExpression], bool] | None = None,
             kinds: tuple[str, ...] = STATIC_JITS) -> JitSite | None:
    """The single place where ``fn`` is jitted in the cell, or None (not jitted, jitted twice, unusual).

    ``others``: other decorators may sit beside the jit, and a ``jax.jit(fn)`` call is looked for even
    then; ``anywhere``: a ``jax.jit(fn, ...)`` call counts wherever it stands (not only assigned to a name
    or called at once); ``reaches``: what counts as ``fn`` in ``jax.jit(X)`` (``grad(fn)``, an alias);
    ``kinds``: the jits that count (``jax.jit`` and ``nnx.jit``, which take the same static keywords).
    """
    decos = list(fn.decorators)
    jits = [(d, k) for d, k in ((d, deco_kind(ctx, d.decorator, kinds)) for d in decos) if k is not None]
    name = fn.name.value
    in_class = isinstance(ctx.parent(ctx.parent(fn) or fn), cst.ClassDef)
    found: list[JitSite] = []
    if jits:
        if len(jits) != 1 or (len(decos) != 1 and not others):
            return None
        d, (call, ref) = jits[0]
        found.append(JitSite(fn, d.decorator, call, ref, [name], method=in_class, decorator=d,
                             kind=jit_kind(ctx, ref)))
        if not others:
            return found[0]
    elif (decos or in_class) and not others:
        return None
    target = reaches or (lambda e: name_of(e) == name)
    calls = [c for c in ctx.nodes(cst.Call) if jit_kind(ctx, c.func) in kinds  # type: ignore[attr-defined]
             and c.args and c.args[0].keyword is None and not c.args[0].star  # type: ignore[attr-defined]
             and target(c.args[0].value)]  # type: ignore[attr-defined]
    for call in calls:
        assert isinstance(call, cst.Call)
        if any(a.keyword is None or a.star for a in call.args[1:]):
            return None
        direct = name_of(call.args[0].value) == name
        kind = jit_kind(ctx, call.func)
        parent = ctx.parent(call)
        if isinstance(parent, cst.Call) and parent.func is call:
            found.append(JitSite(fn, call, call, call.func, [], inline=parent, direct=direct, kind=kind))
        elif isinstance(parent, cst.Assign) and len(parent.targets) == 1 and isinstance(
                parent.targets[0].target, cst.Name):
            found.append(JitSite(fn, call, call, call.func, [parent.targets[0].target.value], direct=direct,
                                 kind=kind))
        elif anywhere:
            found.append(JitSite(fn, call, call, call.func, [], direct=direct, kind=kind))
        else:
            return None
    return found[0] if len(found) == 1 else None


def param_names(fn: cst.FunctionDef | cst.Lambda) -> tuple[list[str], list[str]]:
    """(positional parameter names in order, keyword-only names)."""
    pos = [p.name.value for p in (*fn.params.posonly_params, *fn.params.params)]
    return pos, [p.name.value for p in fn.params.kwonly_params]


def static_kw(call: cst.Call | None, kw: str) -> tuple[list[Any], cst.Arg | None] | None:
    """``static_argnums``/``static_argnames`` on ``call`` (values as a list, its Arg); None if unreadable."""
    if call is None:
        return [], None
    for a in call.args:
        if a.keyword is not None and a.keyword.value == kw:
            v = py_literal(a.value)
            if v is NOPE:
                return None
            if v is None:
                return [], a
            vals = list(v) if isinstance(v, (tuple, list)) else [v]
            if kw.endswith("nums") and not all(isinstance(x, int) for x in vals):
                return None
            if kw.endswith("names") and not all(isinstance(x, str) for x in vals):
                return None
            return vals, a
    return [], None


# ============================================================================================== functions


@dataclass
class Callee:
    """The ``def`` or ``lambda`` a callable expression of the cell runs, and what it binds before the call.

    ``params`` are the positional parameters the caller's arguments fill (``self`` and the arguments a
    ``partial`` binds are left out); None when a ``*args``/``**kwargs`` makes them unknowable.
    """

    node: cst.FunctionDef | cst.Lambda
    params: list[str] | None
    method: bool = False  # reached as ``obj.name`` (a method of a class of the cell)
    partial: cst.Call | None = None  # the ``partial(f, ...)`` it was reached through
    ref: str = ""  # the name (or attribute) it is called by: other uses of it see any change to it


def _own_params(node: cst.FunctionDef | cst.Lambda) -> list[str] | None:
    p = node.params
    if p.star_kwarg is not None or isinstance(p.star_arg, cst.Param):
        return None
    return [q.name.value for q in (*p.posonly_params, *p.params)]


def _def_named(ctx: Context, name: cst.Name) -> cst.FunctionDef | None:
    """The ``def`` a name reads: the only def of that name in the cell, or (several) the one its scope binds."""
    defs = [f for f in ctx.nodes(cst.FunctionDef) if f.name.value == name.value]  # type: ignore[attr-defined]
    if not defs:
        return None
    if len(defs) == 1 and name.value not in _rebound_not_def(ctx):
        return defs[0]  # type: ignore[return-value]
    if name not in ctx.positions:
        return None
    scope = ctx.scopes.get(name)
    if scope is None:
        return None
    try:
        assigned = list(scope[name.value])
    except Exception:  # noqa: BLE001
        return None
    nodes = [getattr(a, "node", None) for a in assigned]
    if len(nodes) == 1 and isinstance(nodes[0], cst.FunctionDef):
        return nodes[0]
    if len(defs) == 1 and defs[0] in nodes:  # `step = jax.jit(step)` beside its def: the def, as before
        return defs[0]  # type: ignore[return-value]
    return None


def _rebound_not_def(ctx: Context) -> set[str]:
    """Names bound by something other than a def (parameters, assignments, loops)."""
    defs = {f.name.value for f in ctx.nodes(cst.FunctionDef)}  # type: ignore[attr-defined]
    out = set()
    for p in ctx.nodes(cst.Param):
        out.add(p.name.value)  # type: ignore[attr-defined]
    for t in ctx.nodes(cst.AssignTarget):
        out.update(read_names(t.target))  # type: ignore[attr-defined]
    for n in ctx.nodes((cst.For, cst.AugAssign, cst.AnnAssign)):
        out.update(read_names(n.target))  # type: ignore[attr-defined]
    return out & defs


def class_of(ctx: Context, node: cst.CSTNode) -> cst.ClassDef | None:
    """The class whose method ``node`` (a def) is."""
    p = ctx.parent(ctx.parent(node) or node)
    return p if isinstance(p, cst.ClassDef) else None


def _method(ctx: Context, cls: cst.ClassDef, name: str) -> cst.FunctionDef | None:
    found = [s for s in cls.body.body if isinstance(s, cst.FunctionDef) and s.name.value == name]
    if len(found) != 1:
        return None
    f = found[0]
    if any(dotted_name(d.decorator).rpartition(".")[2] in ("staticmethod", "classmethod", "property")
           for d in f.decorators):
        return None
    return f


def _class_of_value(ctx: Context, expr: cst.BaseExpression) -> cst.ClassDef | None:
    """The class of the cell an expression's live value (or ``self`` in a method) is an instance of."""
    if isinstance(expr, cst.Name):
        fn = ctx.enclosing(expr, cst.FunctionDef)
        cls = class_of(ctx, fn) if isinstance(fn, cst.FunctionDef) else None
        if cls is not None:
            pos, _ = param_names(fn)  # type: ignore[arg-type]
            if pos and pos[0] == expr.value and not any(
                    dotted_name(d.decorator).rpartition(".")[2] in ("staticmethod", "classmethod")
                    for d in fn.decorators):  # type: ignore[union-attr]
                return cls
            if expr.value in locals_of(fn):  # type: ignore[arg-type]
                return None
    v = live_value(ctx, expr, scoped=True)
    if v is MISSING or isinstance(v, type):
        return None
    classes = [c for c in ctx.nodes(cst.ClassDef) if c.name.value == type(v).__name__]  # type: ignore[attr-defined]
    return classes[0] if len(classes) == 1 else None  # type: ignore[return-value]


def function_of(ctx: Context, expr: cst.BaseExpression, depth: int = 0) -> Callee | None:
    """The def or lambda of the cell that calling ``expr`` runs (see :class:`Callee`), or None.

    A lambda is itself; a name is the def its scope binds (a nested def, a closure) or a name bound once
    to one of the forms here; ``self.step`` / ``model.step`` is the method of the cell's class (Flax NNX and
    Equinox modules are classes like any other); an instance of such a class is its ``__call__``;
    ``functools.partial(f, a, k=v)`` is ``f`` less the parameters it binds.
    """
    if depth > 3:
        return None
    if isinstance(expr, cst.Lambda):
        return Callee(expr, _own_params(expr))
    if isinstance(expr, cst.Name):
        fn = _def_named(ctx, expr)
        if fn is not None:
            return Callee(fn, _own_params(fn), ref=fn.name.value)
        value = _assigned_once(ctx, expr.value)
        if value is not None:
            got = function_of(ctx, value, depth + 1)
            return Callee(got.node, got.params, got.method, got.partial, expr.value) if got else None
        cls = _class_of_value(ctx, expr)
        meth = _method(ctx, cls, "__call__") if cls is not None else None
        if meth is not None:
            params = _own_params(meth)
            return Callee(meth, params[1:] if params else None, method=True, ref="__call__")
        return None
    if isinstance(expr, cst.Attribute):
        cls = _class_of_value(ctx, expr.value)
        meth = _method(ctx, cls, expr.attr.value) if cls is not None else None
        if meth is None:
            return None
        params = _own_params(meth)
        return Callee(meth, params[1:] if params else None, method=True, ref=expr.attr.value)
    if isinstance(expr, cst.Call) and is_partial(ctx, expr.func):
        if not expr.args or expr.args[0].keyword is not None or any(a.star for a in expr.args):
            return None
        got = function_of(ctx, expr.args[0].value, depth + 1)
        if got is None or got.params is None:
            return None
        bound_pos = [a for a in expr.args[1:] if a.keyword is None]
        bound_kw = {a.keyword.value for a in expr.args[1:] if a.keyword is not None}
        rest = got.params[len(bound_pos):]
        if len(bound_pos) > len(got.params) or any(k in got.params[:len(bound_pos)] for k in bound_kw):
            return None
        rest = [p for p in rest if p not in bound_kw]
        return Callee(got.node, rest, got.method, expr, got.ref)
    return None


def _assigned_once(ctx: Context, name: str) -> cst.BaseExpression | None:
    """The value of the single ``name = value`` in the cell (None if ``name`` is bound any other way)."""
    found = [a for a in ctx.nodes(cst.Assign) if isinstance(a, cst.Assign) and any(
        isinstance(t.target, cst.Name) and t.target.value == name for t in a.targets)]
    if len(found) != 1 or len(found[0].targets) != 1:
        return None
    others = [n for n in ctx.nodes(cst.Param) if n.name.value == name]  # type: ignore[attr-defined]
    others += [n for n in ctx.nodes(cst.AugAssign) if dotted_name(n.target) == name]  # type: ignore[attr-defined]
    others += [n for n in ctx.nodes(cst.For) if dotted_name(n.target) == name]  # type: ignore[attr-defined]
    others += [n for n in ctx.nodes(cst.FunctionDef) if n.name.value == name]  # type: ignore[attr-defined]
    return None if others else found[0].value


def references(ctx: Context, callee: Callee) -> list[cst.CSTNode]:
    """Every place the cell names the callee's def (its name, or ``.name`` for a method): a change to what
    it returns is seen at each of them."""
    if isinstance(callee.node, cst.Lambda) or not callee.ref:
        return []
    out: list[cst.CSTNode] = []
    for n in ctx.nodes(cst.Name):
        assert isinstance(n, cst.Name)
        if n.value != callee.ref or n is callee.node.name:
            continue
        par = ctx.parent(n)
        if isinstance(par, cst.Attribute) and par.attr is n:
            if callee.method:
                out.append(par)
            continue
        if not callee.method:
            out.append(n)
    return out


# ============================================================================================== earlier cells


def code_file(value: Any) -> tuple[str, int] | None:
    """(file, first line) of the code a live callable runs: a function, a method, a ``partial``, a jit or vmap
    wrapper (through ``__wrapped__``), a class (through its own methods); None when unknown."""
    seen = 0
    while seen < 8:
        seen += 1
        if isinstance(value, type):
            from jaxerrs.rewrite.context import is_cell

            # methods written in a cell say where the class is (those a decorator made, as a dataclass's, do not)
            codes = [f.__code__ for f in vars(value).values() if hasattr(f, "__code__")]
            codes = [c for c in codes if is_cell(c.co_filename)]
            return (codes[0].co_filename, min(c.co_firstlineno for c in codes)) if codes else _class_cell(value)
        inner = getattr(value, "__wrapped__", None) or getattr(value, "__func__", None) or (
            value.func if type(value).__name__ == "partial" else None)
        if inner is not None:  # a jit/vmap wrapper's own code is JAX's: the user's is inside
            value = inner
            continue
        code = getattr(value, "__code__", None)
        return (code.co_filename, code.co_firstlineno) if code is not None else None
    return None


def _class_cell(cls: type) -> tuple[str, int] | None:
    """(cell file, line) of the latest IPython cell with a top-level ``class <name>`` (a class with no methods
    of its own, such as a dataclass, has no code object that says where it was written)."""
    import linecache
    import re

    try:
        from IPython import get_ipython

        ip = get_ipython()
        files = sorted(ip.compile._filename_map.items(), key=lambda kv: kv[1]) if ip is not None else []
    except Exception:  # noqa: BLE001
        return None
    pat = re.compile(rf"^class {re.escape(cls.__name__)}\b")
    found = None
    for filename, _ in files:
        for i, line in enumerate(linecache.getlines(filename), 1):
            if pat.match(line):
                found = (filename, i)
    return found if cls.__module__ == "__main__" else None


def defining_context(ctx: Context, value: Any) -> Context | None:
    """A context for the earlier cell that defines ``value`` (see :func:`code_file`), when that is another
    cell than ``ctx``'s: same error and namespace, no failing line, labelled with that cell ("Cell In[3]")
    and with the cell that ran. None for code outside a cell, or the same cell."""
    from jaxerrs.evidence import Frame
    from jaxerrs.rewrite.context import Context, cell_source, is_cell
    from jaxerrs.views import frame_label

    where = code_file(value)
    if where is None or not is_cell(where[0]):
        return None
    memo = _analysis(ctx).cells
    if where[0] not in memo:
        source = cell_source(where[0])
        other = None
        if source and source.strip() != ctx.source.strip() and len(source) <= 200_000:
            label = frame_label(Frame(where[0], where[1], "", "user"), with_line=False)
            other = Context(source=source, line=None, error_class=ctx.error_class, message=ctx.message,
                            values=ctx.values, record_id=ctx.record_id, exc=ctx.exc, namespace=ctx.namespace,
                            locals=None, label=label, ran=ctx.ran or ctx.label)
            if other.module is None:
                other = None
        memo[where[0]] = other
    return memo[where[0]]


def ran_context(ctx: Context) -> Context | None:
    """A context for the cell that ran, when ``ctx`` is of an earlier cell whose code it called (``ctx.ran``):
    the jit or the call that belongs to the failing function may be written there."""
    from jaxerrs.evidence import traceback_entries
    from jaxerrs.rewrite.context import Context, cell_source, is_cell

    if not ctx.ran or ctx.exc is None:
        return None
    memo = _analysis(ctx).cells
    if "<ran>" not in memo:
        other = None
        tb = next((t for t in traceback_entries(ctx.exc) if is_cell(t.tb_frame.f_code.co_filename)), None)
        source = cell_source(tb.tb_frame.f_code.co_filename) if tb is not None else None
        if source and source.strip() != ctx.source.strip() and len(source) <= 200_000:
            other = Context(source=source, line=None, error_class=ctx.error_class, message=ctx.message,
                            values=ctx.values, record_id=ctx.record_id, exc=ctx.exc, namespace=ctx.namespace,
                            locals=None, label=ctx.ran)
            if other.module is None:
                other = None
        memo["<ran>"] = other
    return memo["<ran>"]


def def_at(ctx: Context, name: str, line: int | None = None) -> cst.FunctionDef | None:
    """The def named ``name`` of the cell (the one starting at ``line`` when several have that name)."""
    defs = [f for f in ctx.nodes(cst.FunctionDef) if f.name.value == name]  # type: ignore[attr-defined]
    if len(defs) > 1 and line is not None:
        defs = [f for f in defs if min([ctx.span(d)[0] for d in f.decorators]  # type: ignore[attr-defined]
                                      + [ctx.span(f)[0]]) == line]
    return defs[0] if len(defs) == 1 else None  # type: ignore[return-value]


def function_elsewhere(ctx: Context, expr: cst.BaseExpression) -> tuple[Context, Callee] | None:
    """The def an earlier cell defines that calling ``expr`` (a name, ``partial(name, ...)``) runs, with the
    context of that cell; None when ``expr`` is not such a function."""
    bound_pos: list[cst.Arg] = []
    bound_kw: set[str] = set()
    if isinstance(expr, cst.Call) and is_partial(ctx, expr.func) and expr.args and expr.args[0].keyword is None \
            and not any(a.star for a in expr.args):
        bound_pos = [a for a in expr.args[1:] if a.keyword is None]
        bound_kw = {a.keyword.value for a in expr.args[1:] if a.keyword is not None}
        expr = expr.args[0].value
    if not isinstance(expr, cst.Name) or _def_named(ctx, expr) is not None or shadowed(ctx, expr):
        return None
    value = lookup(ctx, expr.value)
    if value is MISSING or not callable(value) or isinstance(value, type):
        return None
    other = defining_context(ctx, value)
    where = code_file(value)
    if other is None or where is None:
        return None
    fn = def_at(other, getattr(value, "__name__", expr.value), where[1])
    if fn is None or fn.name.value != expr.value:
        return None
    params = _own_params(fn)
    if params is not None:
        if len(bound_pos) > len(params):
            return None
        params = [p for p in params[len(bound_pos):] if p not in bound_kw]
    return other, Callee(fn, params, ref=fn.name.value)


# ============================================================================================== the cache


@dataclass
class _Cache:
    rebound: set[str] | None = None
    cells: dict[str, Any] = field(default_factory=dict)  # file -> the context of that earlier cell (or None)


def _analysis(ctx: Context) -> _Cache:
    """Per-context memo (the context's tree never changes; an edit gets a new context)."""
    cache = ctx.__dict__.get("_jaxerrs_analysis")
    if cache is None:
        cache = _Cache()
        ctx.__dict__["_jaxerrs_analysis"] = cache
    return cache
