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
from jaxerrs.rewrite.context import Context, dotted_name
from jaxerrs.rewrite.cst_tools import keyword_arg
from jaxerrs.rewrite.jit_static import is_jit
from jaxerrs.rewrite.names import full_name
from jaxerrs.rewrite.rules import rule


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


@rule("equinox-filter-jit")
def equinox_filter_jit(ctx: Context) -> Edit | None:
    """The one bare ``jax.jit`` of the cell (decorator or call) becomes ``eqx.filter_jit``."""
    refs = []
    for node in ctx.nodes(cst.Decorator):
        assert isinstance(node, cst.Decorator)
        if is_jit(ctx, node.decorator):
            refs.append(node.decorator)
        elif isinstance(node.decorator, cst.Call) and is_jit(ctx, node.decorator.func):
            return None  # @jax.jit(static_argnums=…): no one-to-one spelling
    for call in ctx.nodes(cst.Call):
        assert isinstance(call, cst.Call)
        if is_jit(ctx, call.func):
            if len(call.args) != 1 or call.args[0].keyword is not None or call.args[0].star:
                return None
            refs.append(call.func)
    if len(refs) != 1:
        return None
    eqx, imp = ctx.need("equinox", "eqx")
    new = cst.parse_expression(f"{eqx}.filter_jit")
    return Edit(ctx.replace(refs[0], new, [imp]), "review",
                "`jax.jit` → `eqx.filter_jit`: the model's arrays are traced and its other leaves (functions, "
                "Python numbers) become static, so a new value of one of those recompiles.")


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


@rule("optax-pass-params")
def optax_pass_params(ctx: Context) -> Edit | None:
    """``tx.update(grads, state)`` → ``tx.update(grads, state, params)``, params being what ``tx.init`` was given."""
    calls = [c for c in _calls_at_line(ctx, "update") if len(c.args) == 2
             and all(a.keyword is None and not a.star for a in c.args)]
    if len(calls) != 1:
        return None
    call = calls[0]
    assert isinstance(call.func, cst.Attribute)
    optimizer = dotted_name(call.func.value)
    params = _named_value(ctx, call, _init_argument(ctx, optimizer) if optimizer else None, "params")
    if params is None:
        return None
    args = list(call.args)
    args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    new = call.with_changes(args=[*args, cst.Arg(cst.Name(params))])
    return Edit(ctx.replace(call, new), "safe",
                f"`{params}` is passed to `update`: weight decay needs the current parameters; transformations "
                "that do not use them ignore it.")


# ---------------------------------------------------------------------------------------------- Flax


def _apply_calls(ctx: Context) -> list[cst.Call]:
    return [c for c in _calls_at_line(ctx, "apply") if c.args and c.args[0].keyword is None and not c.args[0].star]


@rule("flax-wrap-params")
def flax_wrap_params(ctx: Context) -> Edit | None:
    """``model.apply(params, x)`` → ``model.apply({'params': params}, x)`` (the error: not a dict of collections)."""
    calls = [c for c in _apply_calls(ctx) if isinstance(c.args[0].value, cst.Name | cst.Attribute | cst.Subscript)]
    if len(calls) != 1:
        return None
    arg = calls[0].args[0]
    code = ctx.code(arg.value)
    wrapped = cst.parse_expression(f"{{'params': {code}}}")
    return Edit(ctx.replace(arg.value, wrapped), "safe",
                f"`{code}` is the parameter collection: `apply` takes a dict of collections, `{{'params': …}}`.")


@rule("flax-unwrap-variables")
def flax_unwrap_variables(ctx: Context) -> Edit | None:
    """``model.apply({'params': variables}, x)`` where ``variables`` already holds ``params`` → ``apply(variables, x)``."""
    for call in _apply_calls(ctx):
        d = call.args[0].value
        if not (isinstance(d, cst.Dict) and len(d.elements) == 1 and isinstance(d.elements[0], cst.DictElement)):
            continue
        key, value = d.elements[0].key, d.elements[0].value
        if not (isinstance(key, cst.SimpleString) and key.evaluated_value == "params"):
            continue
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
    """``optimizer.update(grads)`` → ``optimizer.update(model, grads)`` (Flax 0.11 and later take the model first)."""
    calls = [c for c in _calls_at_line(ctx, "update") if len(c.args) == 1 and c.args[0].keyword is None]
    if len(calls) != 1:
        return None
    call = calls[0]
    assert isinstance(call.func, cst.Attribute)
    model = _named_value(ctx, call, _optimizer_model(ctx, dotted_name(call.func.value)), "model")
    if model is None:
        return None
    first = cst.Arg(cst.Name(model), comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    new = call.with_changes(args=[first, *call.args])
    return Edit(ctx.replace(call, new), "safe",
                f"`{model}` is passed first: `nnx.Optimizer.update(model, grads)` updates that model's parameters.")


@rule("nnx-optimizer-wrt")
def nnx_optimizer_wrt(ctx: Context) -> Edit | None:
    """``nnx.Optimizer(model, tx)`` → ``nnx.Optimizer(model, tx, wrt=nnx.Param)`` (what it optimised by default)."""
    calls = [c for c in ctx.at_line(cst.Call) if isinstance(c, cst.Call)
             and full_name(ctx, c.func, keep=True) in ("flax.nnx.Optimizer", "nnx.Optimizer")
             and not any(a.keyword is not None and a.keyword.value == "wrt" for a in c.args)]
    if len(calls) != 1:
        return None
    call = calls[0]
    nnx, imp = ctx.need("flax.nnx", "nnx")
    args = list(call.args)
    args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    new = call.with_changes(args=[*args, keyword_arg("wrt", cst.parse_expression(f"{nnx}.Param"))])
    return Edit(ctx.replace(call, new, [imp]), "safe",
                "`wrt=nnx.Param`: the optimizer updates the model's parameters, as it did before `wrt` was required.")
