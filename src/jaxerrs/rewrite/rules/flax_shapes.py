"""Flax NNX layer sizes that do not chain: an ``nnx.Linear`` whose ``in_features`` is not what the layer
before it gives.

``self.l2 = nnx.Linear(4, 2, rngs=rngs)`` after ``self.l1 = nnx.Linear(3, 8, rngs=rngs)``, called as
``self.l2(relu(self.l1(x)))``, fails with the contracting sizes (8,) and (4,): the input has 8 features
and the layer was built for 4. When the failing layer's input is visibly the output of another layer of
the same module (through activations, dropout, a local name), whose ``out_features`` is the size the
input has, the failing layer is built with that many ``in_features``. Refused when the layer is fed the
method's own input (the data may be what is wrong), or when several layers could be the one.
"""

from __future__ import annotations

from typing import Any

import libcst as cst
import libcst.matchers as m

from jaxerrs.rewrite import Edit
from jaxerrs.rewrite.context import Context
from jaxerrs.rewrite.names import full_name
from jaxerrs.rewrite.rules import Found, rule
from jaxerrs.rewrite.rules.shapes_trees.common import _parse_shapes
from jaxerrs.rewrite.values import literal

_LINEAR = {"flax.nnx.Linear", "flax.nnx.nn.linear.Linear"}


def _layers(ctx: Context, cls: cst.ClassDef) -> dict[str, tuple[cst.Call, cst.BaseExpression, cst.BaseExpression]]:
    """attr -> (the ``nnx.Linear(...)`` call, its in_features node, its out_features node) for every
    ``self.attr = nnx.Linear(...)`` of the class's ``__init__`` (attrs assigned twice are left out)."""
    out: dict[str, Any] = {}
    seen: dict[str, int] = {}
    for a in m.findall(cls, m.Assign(targets=[m.AssignTarget(target=m.Attribute(value=m.Name("self")))])):
        assert isinstance(a, cst.Assign)
        attr = a.targets[0].target.attr.value  # type: ignore[attr-defined]
        seen[attr] = seen.get(attr, 0) + 1
        v = a.value
        if not isinstance(v, cst.Call) or full_name(ctx, v.func, keep=True) not in _LINEAR:
            continue
        pos = [x.value for x in v.args if x.keyword is None and not x.star]
        kw = {x.keyword.value: x.value for x in v.args if x.keyword is not None}
        n_in = kw.get("in_features", pos[0] if pos else None)
        n_out = kw.get("out_features", pos[1] if len(pos) > 1 else None)
        if n_in is not None and n_out is not None:
            out[attr] = (v, n_in, n_out)
    return {k: v for k, v in out.items() if seen.get(k) == 1}


def _layer_call(node: cst.CSTNode, layers: dict[str, Any]) -> str | None:
    if isinstance(node, cst.Call) and m.matches(node.func, m.Attribute(value=m.Name("self"))):
        attr = node.func.attr.value  # type: ignore[attr-defined]
        return attr if attr in layers else None
    return None


def _feeder(ctx: Context, fn: cst.FunctionDef, expr: cst.BaseExpression, layers: dict[str, Any],
            depth: int = 0) -> str | None:
    """The layer of the module whose output ``expr`` is (through one-argument functions and local names)."""
    if depth > 8:
        return None
    got = _layer_call(expr, layers)
    if got is not None:
        return got
    if isinstance(expr, cst.Call):
        pos = [a for a in expr.args if a.keyword is None and not a.star]
        if len(pos) == 1 and not m.matches(expr.func, m.Attribute(value=m.Name("self"))):
            return _feeder(ctx, fn, pos[0].value, layers, depth + 1)
        return None
    if isinstance(expr, cst.Name):
        line = ctx.span(expr)[0]
        binds = [a for a in m.findall(fn, m.Assign(targets=[m.AssignTarget(target=m.Name(expr.value))]))
                 if ctx.span(a)[0] < line]
        if not binds:
            return None  # the method's own input (a parameter), or bound some other way
        last = max(binds, key=lambda a: ctx.span(a)[0])
        assert isinstance(last, cst.Assign)
        return _feeder(ctx, fn, last.value, layers, depth + 1)
    return None


def _mismatches(ctx: Context, cls: cst.ClassDef) -> list[tuple[str, str]]:
    """(layer, the layer feeding it) for every layer call of the class whose ``in_features`` literal is not
    the feeding layer's ``out_features`` literal."""
    layers = _layers(ctx, cls)
    out = []
    for fn in m.findall(cls, m.FunctionDef()):
        assert isinstance(fn, cst.FunctionDef)
        for call in m.findall(fn, m.Call()):
            me = _layer_call(call, layers)
            assert me is None or isinstance(call, cst.Call)
            if me is None or len(call.args) != 1 or call.args[0].keyword is not None:
                continue
            prev = _feeder(ctx, fn, call.args[0].value, layers)  # type: ignore[union-attr]
            if prev is None:
                continue
            n_in, n_out = literal(layers[me][1]), literal(layers[prev][2])
            if isinstance(n_in, int) and isinstance(n_out, int) and n_in != n_out:
                out.append((me, prev))
    return out


def detect_in_features(ctx: Context, key: Any) -> Found | None:
    """The layer of the failing line fed by another layer with a different size (key: the class name), and
    every other such layer of that class."""
    if key is None:
        fn = ctx.function_at_line()
        cls = ctx.enclosing(fn, cst.ClassDef) if fn is not None else None
        if not isinstance(cls, cst.ClassDef):
            return None
        shapes = [_parse_shapes(ctx.values.get(k, "")) for k in ("lhs", "rhs")]
        if not all(shapes) or len(shapes[0][0]) != 1 or len(shapes[1][0]) != 1:  # type: ignore[index]
            return None
        got_in, want_in = shapes[0][0][0], shapes[1][0][0]  # type: ignore[index]
        layers = _layers(ctx, cls)
        on_line = [c for c in ctx.at_line(cst.Call) if _layer_call(c, layers) is not None]
        hit = [c for c in on_line if literal(layers[_layer_call(c, layers)][1]) == want_in]  # type: ignore[index]
        if len(hit) != 1:
            return None
        me = _layer_call(hit[0], layers)
        found = Found(cls.name.value, fixable=_mismatches(ctx, cls))
        if not any(layer == me and literal(layers[prev][2]) == got_in for layer, prev in found.fixable):
            return None
        return found
    classes = [c for c in ctx.nodes(cst.ClassDef) if c.name.value == key]  # type: ignore[attr-defined]
    if len(classes) != 1:
        return Found(key, unfixable=["class"])
    found = Found(key)
    for pair in _mismatches(ctx, classes[0]):  # type: ignore[arg-type]
        found.fixable.append(pair)
    return found if found else None


@rule("nnx-linear-in-features", detect=detect_in_features)
def nnx_linear_in_features(ctx: Context) -> Edit | None:
    """Each ``nnx.Linear`` of the module fed by another layer takes that layer's ``out_features`` as its
    ``in_features``. Review: the layer's weight matrix changes shape (a checkpoint saved for the old size
    no longer fits)."""
    found = detect_in_features(ctx, None)
    if not found or found.unfixable:
        return None
    classes = [c for c in ctx.nodes(cst.ClassDef) if c.name.value == found.key]  # type: ignore[attr-defined]
    if len(classes) != 1:
        return None
    layers = _layers(ctx, classes[0])  # type: ignore[arg-type]
    pairs: dict[int, tuple[cst.CSTNode, cst.CSTNode]] = {}
    changed = []
    for layer, prev in found.fixable:
        old = layers[layer][1]
        new = layers[prev][2]
        if id(old) in pairs and ctx.code(pairs[id(old)][1]) != ctx.code(new):
            return None  # one layer fed by two layers of different sizes
        pairs[id(old)] = (old, new.deep_clone())
        changed.append(f"`self.{layer}` takes the {ctx.code(new)} features `self.{prev}` gives")
    return Edit(ctx.replace_many(list(pairs.values())), "review",
                "; ".join(dict.fromkeys(changed)) + " (its `in_features`); check that the layer sizes are the ones "
                "you meant.", cause=found.key)


# ----------------------------------------------------------------------------- Linen: init with a dummy of another shape

_FILLS = {"jax.numpy.ones", "jax.numpy.zeros", "jax.numpy.empty", "numpy.ones", "numpy.zeros"}


def _apply_calls(ctx: Context) -> list[cst.Call]:
    """The ``.apply(...)`` calls of the failing statement; when it has none (the error is raised inside the
    module's own ``__call__``, the deepest frame of the cell), every ``.apply(...)`` call of the cell."""
    pattern = m.Call(func=m.Attribute(attr=m.Name("apply")))
    stmt = ctx.statement()
    found = [c for c in m.findall(stmt, pattern) if isinstance(c, cst.Call)] if stmt is not None else []
    return found or [c for c in ctx.nodes(pattern) if isinstance(c, cst.Call)]


def _data_shape(ctx: Context, node: cst.BaseExpression) -> tuple[int, ...] | None:
    """The shape of the data given to ``apply``: its live value where the name lives in the failing frame or
    at the top level; a parameter of the function around the call is followed to that function's one call."""
    from jaxerrs.rewrite.rules.shapes_trees.common import _shape_of
    from jaxerrs.rewrite.rules.shapes_trees.tree_sources import _call_argument
    from jaxerrs.rewrite.values import MISSING, live_value

    v = live_value(ctx, node, attrs="instance-or-module", scoped=True)
    if v is MISSING and isinstance(node, cst.Name):
        fn = ctx.enclosing(node, cst.FunctionDef)
        arg = _call_argument(ctx, fn, node.value) if isinstance(fn, cst.FunctionDef) else None
        if arg is not None and ctx.enclosing(arg, cst.FunctionDef) is None:
            v = live_value(ctx, arg, attrs="instance-or-module", scoped=True)
    return _shape_of(v) if v is not MISSING else None


@rule("linen-init-input-shape")
def linen_init_input_shape(ctx: Context) -> Edit | None:
    """``model.init(key, jnp.ones((1, 784)))`` then ``model.apply(variables, x)`` with ``x`` of another
    trailing shape: the parameters were made for the dummy's shape. The dummy gets the data's trailing
    shape (its leading batch size kept): ``jnp.ones((1, 3072))``.

    Only when the message's two parameter shapes differ exactly where the dummy's size is replaced by the
    data's (the size the parameter was made with, and the one the data needs), the dummy is a ``jnp.ones``
    or ``jnp.zeros`` of a literal shape of the data's rank, and the model has one ``init`` in the cell.
    Review: the parameters change shape (a checkpoint saved for the old input no longer fits).
    """
    expected = _parse_shapes(ctx.values.get("expected", ""))
    actual = _parse_shapes(ctx.values.get("actual", ""))
    if not expected or not actual or len(expected[0]) != len(actual[0]):
        return None
    want, have = expected[0], actual[0]
    found = []
    for call in _apply_calls(ctx):
        assert isinstance(call.func, cst.Attribute)
        pos = [a.value for a in call.args if a.keyword is None and not a.star]
        if len(pos) < 2:
            continue
        data = _data_shape(ctx, pos[1])
        model = ctx.code(call.func.value)
        inits = [c for c in ctx.nodes(m.Call(func=m.Attribute(attr=m.Name("init"))))
                 if isinstance(c, cst.Call) and ctx.code(c.func.value) == model]  # type: ignore[attr-defined]
        if len(inits) != 1 or not isinstance(data, tuple):
            continue
        ipos = [a.value for a in inits[0].args if a.keyword is None and not a.star]
        if len(ipos) != 2 or not isinstance(ipos[1], cst.Call):
            continue
        dummy = ipos[1]
        if full_name(ctx, dummy.func, keep=True) not in _FILLS or not dummy.args or dummy.args[0].keyword is not None:
            continue
        shape_node = dummy.args[0].value
        if not isinstance(shape_node, cst.Tuple | cst.List):
            continue
        dims = [literal(e.value) for e in shape_node.elements]
        if not all(isinstance(d, int) for d in dims) or len(dims) != len(data) or len(dims) < 2:
            continue
        new_dims = [dims[0], *data[1:]]
        diff = [(old, new) for old, new in zip(dims[1:], data[1:], strict=True) if old != new]
        param_diff = [(h, w) for h, w in zip(have, want, strict=True) if h != w]
        if not diff or not param_diff or not all(pd in diff for pd in param_diff):
            continue
        found.append((shape_node, new_dims))
    if len(found) != 1:
        return None
    node, new_dims = found[0]
    code = "(" + ", ".join(map(str, new_dims)) + ("," if len(new_dims) == 1 else "") + ")"
    new = cst.parse_expression(code) if isinstance(node, cst.Tuple) else cst.parse_expression(f"[{code[1:-1]}]")
    return Edit(ctx.replace(node, new), "review",
                f"the model is initialised with a dummy input of the data's shape {code} (its parameters are made "
                "for the input they will see); check that the data is what the model should take.")
