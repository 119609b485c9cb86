"""Fixes in a library's own terms: Equinox's ``filter_jit``, Optax's ``update(…, params)``, Flax's variable
dicts and ``nnx.Optimizer`` calls.

Each rule changes one call the error points at, names what it changes, and refuses when the cell does not
say which value is meant (the parameters passed to ``init``, the model given to ``nnx.Optimizer``).
Refused: a ``jax.jit`` with arguments (``static_argnums`` has no one-to-one ``filter_jit`` spelling);
an ``update`` whose parameters the cell never names; ``apply`` calls whose first argument is not a name.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from jaxerrs.rewrite import Edit
from jaxerrs.rewrite.analysis import is_tracer
from jaxerrs.rewrite.context import Context, dotted_name
from jaxerrs.rewrite.cst_tools import keyword_arg
from jaxerrs.rewrite.jit_static import is_jit
from jaxerrs.rewrite.names import full_name
from jaxerrs.rewrite.rules import Found, rule
from jaxerrs.rewrite.values import MISSING, lookup


def _calls_at_line(ctx: Context, method: str) -> list[cst.Call]:
    """Calls ``<something>.<method>(…)`` on the failing line (or in the statement there)."""
    pattern = m.Call(func=m.Attribute(attr=m.Name(method)))
    found = ctx.at_line(pattern)
    if not found:
        stmt = ctx.statement()
        if stmt is not None:
            found = [n for n in ctx.nodes(pattern) if ctx.span(n)[0] >= ctx.span(stmt)[0]
                     and ctx.span(n)[1] <= ctx.span(stmt)[1]]
    return [c for c in found if isinstance(c, cst.Call)]


# ---------------------------------------------------------------------------------------------- Equinox


_EQX_GRADS = {"jax.grad": "filter_grad", "jax.value_and_grad": "filter_value_and_grad"}


def _assigned_names(ctx: Context, call: cst.Call) -> set[str]:
    """Names bound from the result of applying ``call`` (``g = jax.grad(f)(m)``, ``loss, g = ...(m)``)."""
    applied = ctx.parent(call)
    if not (isinstance(applied, cst.Call) and applied.func is call):
        return set()
    a = ctx.parent(applied)
    if not isinstance(a, cst.Assign):
        return set()
    return {n.value for t in a.targets for n in m.findall(t.target, m.Name())}  # type: ignore[attr-defined]


_PY_SCALARS = (bool, int, float, complex, str)


def traced_module_field(ctx: Context) -> str | None:
    """``obj.field`` on the failing line whose live value is a tracer although the field is a Python number
    (its annotation is ``int``/``float``/``bool``/``str``, or an instance of the class in the namespace holds
    one there): ``jax.jit`` traced a non-array leaf of an Equinox module, which ``eqx.filter_jit`` keeps
    static. The field's code, or None."""
    names = {**(ctx.namespace or {}), **(ctx.locals or {})}
    for node in ctx.at_line(m.Attribute(value=m.Name())):
        assert isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name)
        obj, attr = names.get(node.value.value), node.attr.value
        cls = type(obj)
        if not any(c.__name__ == "Module" and c.__module__.startswith("equinox") for c in cls.__mro__[1:]):
            continue
        if not is_tracer(getattr(obj, attr, None)):
            continue
        note = getattr(cls, "__annotations__", {}).get(attr)
        scalar = note in _PY_SCALARS or note in {t.__name__ for t in _PY_SCALARS}
        if scalar or any(type(v) is cls and isinstance(getattr(v, attr, None), _PY_SCALARS)
                         for v in (ctx.namespace or {}).values()):
            return ctx.code(node)
    return None


@rule("equinox-filter-jit")
def equinox_filter_jit(ctx: Context) -> Edit | None:
    """Every bare ``jax.jit`` of the cell (decorator or call) becomes ``eqx.filter_jit``, and every bare
    ``jax.grad``/``jax.value_and_grad`` (``has_aux`` allowed) its ``eqx.filter_*`` twin: a module that holds
    a function fails at each of them, so fixing the jit alone fails again at the grad inside it.

    Other records (a shape, a size, a Python ``int()`` of a traced value) name this rule too: there its
    precondition is :func:`traced_module_field`, a module's Python-number field traced by ``jax.jit``.

    Refused: a jit or grad with other arguments (``static_argnums``, ``argnums``: no one-to-one ``filter_*``
    spelling), and a gradient mapped together with the module by ``jax.tree.map`` (the filtered gradient
    has None where the module has a function: the map would call the update on it).
    """
    field = traced_module_field(ctx) if ctx.record_id != "equinox-jit-non-array-field" else None
    if ctx.record_id != "equinox-jit-non-array-field" and field is None:
        return None
    refs = []
    for node in ctx.nodes(cst.Decorator):
        assert isinstance(node, cst.Decorator)
        if is_jit(ctx, node.decorator):
            refs.append((node.decorator, "filter_jit"))
        elif isinstance(node.decorator, cst.Call) and is_jit(ctx, node.decorator.func):
            return None  # @jax.jit(static_argnums=…): no one-to-one spelling
    grad_results: set[str] = set()
    for call in ctx.nodes(cst.Call):
        assert isinstance(call, cst.Call)
        if is_jit(ctx, call.func):
            if len(call.args) != 1 or call.args[0].keyword is not None or call.args[0].star:
                return None
            refs.append((call.func, "filter_jit"))
            continue
        full = full_name(ctx, call.func, keep=True)
        if full in _EQX_GRADS:
            if not call.args or call.args[0].keyword is not None or any(
                    a.star or a.keyword is None or a.keyword.value != "has_aux" for a in call.args[1:]):
                return None
            refs.append((call.func, _EQX_GRADS[full]))
            grad_results |= _assigned_names(ctx, call)
    if not any(kind == "filter_jit" for _, kind in refs):
        return None
    for call in ctx.nodes(cst.Call):
        assert isinstance(call, cst.Call)
        if full_name(ctx, call.func, keep=True) in ("jax.tree.map", "jax.tree_util.tree_map", "jax.tree_map"):
            trees = [a.value for a in call.args[1:] if a.keyword is None]
            if len(trees) >= 2 and any(isinstance(t, cst.Name) and t.value in grad_results for t in trees):
                return None
    eqx, imp = ctx.need("equinox", "eqx")
    pairs = [(node, cst.parse_expression(f"{eqx}.{kind}")) for node, kind in refs]
    kinds = sorted({kind for _, kind in refs})
    what = ", ".join(f"`eqx.{k}`" for k in kinds)
    if field is not None:
        return Edit(ctx.replace_many(pairs, [imp]), "review",
                    f"`jax` transformations → {what}: `{field}` is a Python number of the module, which `jax.jit` "
                    "traces; the filtered transformations keep it (and the call's other Python numbers) static, so "
                    "a new value of one of them recompiles, and trace the arrays.")
    return Edit(ctx.replace_many(pairs, [imp]), "review",
                f"`jax` transformations → {what}: the model's arrays are traced (and differentiated) and its other "
                "leaves (functions, Python numbers) are kept static, so a new value of one of those recompiles.")


# ---------------------------------------------------------------------------------------------- Optax


def _init_argument(ctx: Context, optimizer: str) -> str | None:
    """The name passed to ``<optimizer>.init(NAME)`` in the cell, when there is exactly one such call."""
    names = set()
    for call in ctx.nodes(m.Call(func=m.Attribute(attr=m.Name("init")))):
        assert isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute)
        if dotted_name(call.func.value) != optimizer or len(call.args) != 1:
            continue
        arg = call.args[0].value
        if isinstance(arg, cst.Name):
            names.add(arg.value)
    return names.pop() if len(names) == 1 else None


def _in_scope(ctx: Context, call: cst.Call, name: str) -> bool:
    """Whether ``name`` is a parameter of the function around ``call``, or the call is at the cell's top level."""
    fn = ctx.enclosing(call, cst.FunctionDef)
    if fn is None:
        return True
    assert isinstance(fn, cst.FunctionDef)
    params = [p.name.value for p in (*fn.params.posonly_params, *fn.params.params, *fn.params.kwonly_params)]
    return name in params or not any(
        isinstance(t.target, cst.Name) and t.target.value == name
        for a in ctx.nodes(cst.Assign) if ctx.enclosing(a, cst.FunctionDef) is fn
        for t in a.targets)  # type: ignore[attr-defined]


def _named_value(ctx: Context, call: cst.Call, found: str | None, usual: str) -> str | None:
    """The name to pass at ``call``: ``found`` in the cell, else the enclosing function's parameter called
    ``usual`` ("params", "model"); None unless it is in scope there."""
    fn = ctx.enclosing(call, cst.FunctionDef)
    if found is None and isinstance(fn, cst.FunctionDef):
        found = usual if usual in [p.name.value for p in fn.params.params] else None
    return found if found is not None and _in_scope(ctx, call, found) else None


def _same_scope(ctx: Context, node: cst.CSTNode, other: cst.CSTNode) -> bool:
    """Whether two nodes sit in the same function (or both at the cell's top level)."""
    return ctx.enclosing(node, cst.FunctionDef) is ctx.enclosing(other, cst.FunctionDef)


def _updates_name(ctx: Context, call: cst.Call, name: str) -> bool:
    """Whether the scope of ``call`` applies updates to ``name`` and only to it (``optax.apply_updates(name,
    ...)``): then ``name`` holds the parameters this update is for."""
    applied = [c for c in ctx.nodes(cst.Call) if isinstance(c, cst.Call) and _same_scope(ctx, c, call)
               and full_name(ctx, c.func, keep=True).rsplit(".", 1)[-1] == "apply_updates"]
    return bool(applied) and all(c.args and c.args[0].keyword is None and isinstance(c.args[0].value, cst.Name)
                                 and c.args[0].value.value == name for c in applied)  # type: ignore[attr-defined]


@rule("optax-pass-params")
def optax_pass_params(ctx: Context) -> Edit | None:
    """``tx.update(grads, state)`` → ``tx.update(grads, state, params)``, params being what ``tx.init`` was given.

    Why the same values: a transformation that needs the parameters (weight decay, ``adamw``) computes its
    update from the parameters being optimised, and the others ignore the argument; there is no other
    value the call can mean. ``safe`` when ``params`` provably holds those parameters at the call: the name
    ``tx.init`` was given, and the same scope applies the updates to that name and no other
    (``params = optax.apply_updates(params, updates)``, ``_updates_name``). A name guessed from a function
    parameter, or a scope that applies the updates elsewhere, is ``review``.
    """
    calls = [c for c in _calls_at_line(ctx, "update") if len(c.args) == 2
             and all(a.keyword is None and not a.star for a in c.args)]
    if len(calls) != 1:
        return None
    call = calls[0]
    assert isinstance(call.func, cst.Attribute)
    optimizer = dotted_name(call.func.value)
    init = _init_argument(ctx, optimizer) if optimizer else None
    params = _named_value(ctx, call, init, "params")
    if params is None:
        return None
    args = list(call.args)
    args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    new = call.with_changes(args=[*args, cst.Arg(cst.Name(params))])
    summary = (f"`{params}` is passed to `update`: weight decay needs the current parameters; transformations "
               "that do not use them ignore it")
    if params != init or not _updates_name(ctx, call, params):
        return Edit(ctx.replace(call, new), "review",
                    summary + f"; check that `{params}` holds the parameters being updated at this call.")
    return Edit(ctx.replace(call, new), "safe", summary + ".")


# ---------------------------------------------------------------------------------------------- Flax


def _variables_first(call: cst.Call) -> bool:
    """``….apply(VARIABLES, …)``: the variables passed first, by position."""
    return bool(call.args) and call.args[0].keyword is None and not call.args[0].star


def _apply_calls(ctx: Context) -> list[cst.Call]:
    return [c for c in _calls_at_line(ctx, "apply") if _variables_first(c)]


@rule("flax-wrap-params")
def flax_wrap_params(ctx: Context) -> Edit | None:
    """``model.apply(params, x)`` → ``model.apply({'params': params}, x)`` (the error: not a dict of collections).

    Why the same values: Flax raises this error when a value of the dict is not itself a dict of named
    variables, i.e. the argument is one collection, the parameters (``model.init(...)["params"]``); wrapped
    as ``{'params': ...}`` it is the variables dict ``apply`` documents, and the module computes with those
    very parameters. A model that needs another collection too fails loudly, never silently.

    The cell's other ``model.apply(params, …)`` calls (same model, same argument) would fail the same way
    next, so they are wrapped too: ``safe`` when they are all in the failing call's scope (the same name is
    the same value there), ``review`` when another scope may bind the name to something else.
    """
    calls = [c for c in _apply_calls(ctx) if isinstance(c.args[0].value, cst.Name | cst.Attribute | cst.Subscript)]
    if len(calls) != 1:
        return None
    call = calls[0]
    assert isinstance(call.func, cst.Attribute)
    code, model = ctx.code(call.args[0].value), ctx.code(call.func.value)
    scope = ctx.enclosing(call, cst.FunctionDef)
    same = [c for c in ctx.nodes(m.Call(func=m.Attribute(attr=m.Name("apply"))))  # the failing call among them
            if isinstance(c, cst.Call) and _variables_first(c) and isinstance(c.func, cst.Attribute)
            and ctx.code(c.func.value) == model and ctx.code(c.args[0].value) == code]
    wrapped = cst.parse_expression(f"{{'params': {code}}}")
    source = ctx.replace_many([(c.args[0].value, wrapped) for c in same])
    summary = f"`{code}` is the parameter collection: `apply` takes a dict of collections, `{{'params': …}}`"
    if len(same) > 1:
        summary += f"; every `{model}.apply({code}, …)` of the cell is wrapped ({len(same)} calls)"
    if all(ctx.enclosing(c, cst.FunctionDef) is scope for c in same):
        return Edit(source, "safe", summary + ".")
    return Edit(source, "review", summary + f": check that `{code}` is the parameter collection at each of them.")


@rule("flax-unwrap-variables")
def flax_unwrap_variables(ctx: Context) -> Edit | None:
    """``model.apply({'params': variables}, x)`` where ``variables`` already holds ``params`` → ``apply(variables, x)``.

    Why the same values: Flax raises this error for ``{'params': {'params': ...}}``, an extra layer around
    the variables ``init`` returned; passing those variables is the call ``apply`` documents, with the
    same parameters (checked where the value is live: it is a dict with a ``'params'`` entry).
    """
    for call in _apply_calls(ctx):
        d = call.args[0].value
        if not (isinstance(d, cst.Dict) and len(d.elements) == 1 and isinstance(d.elements[0], cst.DictElement)):
            continue
        key, value = d.elements[0].key, d.elements[0].value
        if not (isinstance(key, cst.SimpleString) and key.evaluated_value == "params"):
            continue
        live = lookup(ctx, value.value) if isinstance(value, cst.Name) else MISSING
        if live is not MISSING and not (hasattr(live, "keys") and "params" in live):
            continue  # not the variables dict the error is about
        code = ctx.code(value)
        return Edit(ctx.replace(d, value), "safe",
                    f"`{code}` is already the dict of collections (it has 'params'); it is passed as it is.")
    return None


def _optimizer_model(ctx: Context, optimizer: str) -> str | None:
    """The model passed to ``OPT = nnx.Optimizer(MODEL, …)`` in the cell."""
    found = set()
    for a in ctx.nodes(cst.Assign):
        assert isinstance(a, cst.Assign)
        if len(a.targets) != 1 or dotted_name(a.targets[0].target) != optimizer or not isinstance(a.value, cst.Call):
            continue
        if full_name(ctx, a.value.func, keep=True) not in ("flax.nnx.Optimizer", "nnx.Optimizer", "flax.nnx.optimizer.Optimizer"):
            continue
        first = a.value.args[0].value if a.value.args and a.value.args[0].keyword is None else None
        if isinstance(first, cst.Name):
            found.add(first.value)
    return found.pop() if len(found) == 1 else None


@rule("nnx-optimizer-update-model")
def nnx_optimizer_update_model(ctx: Context) -> Edit | None:
    """``optimizer.update(grads)`` → ``optimizer.update(model, grads)`` (Flax 0.11 and later take the model first).

    Why the same values: before Flax 0.11 ``update(grads)`` updated the model the optimizer was built with;
    ``update(model, grads)`` with that very model does the same. ``safe`` when the name provably is that
    model (``_same_model``): the cell's ``OPT = nnx.Optimizer(MODEL, ...)`` with the call in the same scope,
    or in a function whose callers in the cell all pass ``MODEL`` and ``OPT`` for those parameters (or
    that reads both as globals). A ``model`` parameter guessed by its name is ``review``.
    """
    calls = [c for c in _calls_at_line(ctx, "update") if len(c.args) == 1 and c.args[0].keyword is None]
    if len(calls) != 1:
        return None
    call = calls[0]
    assert isinstance(call.func, cst.Attribute)
    opt = dotted_name(call.func.value)
    built = _optimizer_model(ctx, opt)
    model = _named_value(ctx, call, built, "model")
    if model is None:
        return None
    first = cst.Arg(cst.Name(model), comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    new = call.with_changes(args=[first, *call.args])
    summary = f"`{model}` is passed first: `nnx.Optimizer.update(model, grads)` updates that model's parameters"
    if model != built or not _same_model(ctx, call, opt, model):
        return Edit(ctx.replace(call, new), "review",
                    summary + f"; check that `{model}` is the model `{opt}` was built for.")
    return Edit(ctx.replace(call, new), "safe", summary + ".")


def _same_model(ctx: Context, call: cst.Call, opt: str, model: str) -> bool:
    """Whether, at ``call``, ``opt`` and ``model`` are the cell's ``opt = nnx.Optimizer(model, ...)`` objects."""
    binds = [t for a in ctx.nodes(cst.Assign) for t in a.targets  # type: ignore[attr-defined]
             if isinstance(t.target, cst.Name) and t.target.value in (opt, model)]
    if len(binds) != 2 or any(ctx.enclosing(t, cst.FunctionDef) is not None for t in binds):
        return False  # each bound once, at the top level
    fn = ctx.enclosing(call, cst.FunctionDef)
    if fn is None:
        return True
    assert isinstance(fn, cst.FunctionDef)
    params = [p.name.value for p in (*fn.params.posonly_params, *fn.params.params)]
    if any(p.name.value in (opt, model) for p in fn.params.kwonly_params) or fn.params.star_arg is not None and \
            isinstance(fn.params.star_arg, cst.Param):
        return False
    mine = [n for n in (opt, model) if n in params]
    if not mine:
        return ctx.enclosing(fn, cst.FunctionDef) is None  # both read as globals
    refs = [n for n in ctx.nodes(cst.Name) if n.value == fn.name.value and n is not fn.name]  # type: ignore[attr-defined]
    if not refs:
        return False
    for r in refs:
        site = ctx.parent(r)
        if not isinstance(site, cst.Call) or site.func is not r or any(a.star for a in site.args):
            return False
        pos = [a for a in site.args if a.keyword is None]
        for n in mine:
            arg = next((a for a in site.args if a.keyword is not None and a.keyword.value == n), None)
            if arg is None and params.index(n) < len(pos):
                arg = pos[params.index(n)]
            if arg is None or not (isinstance(arg.value, cst.Name) and arg.value.value == n):
                return False
    return True


_OPTIMIZER = ("flax.nnx.Optimizer", "nnx.Optimizer")


def _optimizers_without_wrt(ctx: Context, calls: list[cst.CSTNode]) -> list[cst.Call]:
    return [c for c in calls if isinstance(c, cst.Call) and full_name(ctx, c.func, keep=True) in _OPTIMIZER
            and not any(a.keyword is not None and a.keyword.value == "wrt" for a in c.args)]


def detect_optimizer_wrt(ctx: Context, key: object = None) -> Found | None:
    """With a key: every ``nnx.Optimizer(...)`` of the cell still built without ``wrt``."""
    if key is None or ctx.module is None:
        return None
    return Found(key, fixable=_optimizers_without_wrt(ctx, ctx.nodes(cst.Call)))


def siblings_optimizer_wrt(ctx: Context) -> list[object]:
    """The cell's other ``nnx.Optimizer`` built without ``wrt`` (a second model's): this Flax requires it
    of every one, as the error says."""
    here = {id(c) for c in ctx.at_line(cst.Call)}
    others = [c for c in _optimizers_without_wrt(ctx, ctx.nodes(cst.Call)) if id(c) not in here]
    return ["optimizer-wrt"] if others else []


@rule("nnx-optimizer-wrt", detect=detect_optimizer_wrt, siblings=siblings_optimizer_wrt)
def nnx_optimizer_wrt(ctx: Context) -> Edit | None:
    """``nnx.Optimizer(model, tx)`` → ``nnx.Optimizer(model, tx, wrt=nnx.Param)`` (what it optimised by default).

    Why the same values: before ``wrt`` was required, ``nnx.Optimizer`` optimised the model's
    ``nnx.Param`` variables; ``wrt=nnx.Param`` names that same filter, so the same variables get the same
    updates.
    """
    calls = _optimizers_without_wrt(ctx, ctx.at_line(cst.Call))
    if len(calls) != 1:
        return None
    call = calls[0]
    nnx, imp = ctx.need("flax.nnx", "nnx")
    args = list(call.args)
    args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    new = call.with_changes(args=[*args, keyword_arg("wrt", cst.parse_expression(f"{nnx}.Param"))])
    return Edit(ctx.replace(call, new, [imp]), "safe",
                "`wrt=nnx.Param`: the optimizer updates the model's parameters, as it did before `wrt` was required.")
