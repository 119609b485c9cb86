"""Flax NNX dropout built without the module's ``Rngs``: pass it the ``rngs`` the other layers get.

``self.drop = nnx.Dropout(0.2)`` in an ``__init__(self, ..., rngs)`` that builds its other layers with
``rngs=rngs`` fails on the first call in training mode: the layer has no stream to draw its mask from.
Every ``nnx.Dropout`` of the cell built in such a method without ``rngs`` gets ``rngs=<that parameter>``.
Refused: a dropout built where no ``Rngs`` parameter is passed to other layers (which ``Rngs`` to use, or
whether the layer should be deterministic, is not visible).
"""

from __future__ import annotations

from typing import Any

import libcst as cst
import libcst.matchers as m

from jaxerrs.rewrite import Edit
from jaxerrs.rewrite.context import Context
from jaxerrs.rewrite.cst_tools import keyword_arg
from jaxerrs.rewrite.names import full_name
from jaxerrs.rewrite.rules import Found, rule

_DROPOUT = {"flax.nnx.Dropout", "flax.nnx.nn.stochastic.Dropout"}


def _rngs_param(fn: cst.FunctionDef) -> str | None:
    """The parameter of ``fn`` that its layers get as ``rngs=...`` (one name, used at least once)."""
    params = {p.name.value for p in (*fn.params.params, *fn.params.kwonly_params)}
    used = {a.value.value for a in m.findall(fn, m.Arg(keyword=m.Name("rngs"), value=m.Name()))  # type: ignore
            if a.value.value in params}  # type: ignore[attr-defined]
    return used.pop() if len(used) == 1 else None


def detect_dropout_rngs(ctx: Context, key: Any) -> Found | None:
    """Every ``nnx.Dropout(...)`` of the cell built without ``rngs`` (fixable inside a method whose other
    layers get an ``Rngs`` parameter)."""
    found = Found("nnx-dropout-rngs")
    for call in ctx.nodes(cst.Call):
        assert isinstance(call, cst.Call)
        if full_name(ctx, call.func, keep=True) not in _DROPOUT or any(
                a.keyword is not None and a.keyword.value in ("rngs", "deterministic") for a in call.args):
            continue
        fn = ctx.enclosing(call, cst.FunctionDef)
        ok = isinstance(fn, cst.FunctionDef) and _rngs_param(fn) is not None
        (found.fixable if ok else found.unfixable).append(call)
    return found if found else None


@rule("nnx-dropout-rngs", detect=detect_dropout_rngs)
def nnx_dropout_rngs(ctx: Context) -> Edit | None:
    """``nnx.Dropout(rate)`` → ``nnx.Dropout(rate, rngs=rngs)``, the ``Rngs`` the method gives its other
    layers. Review: the masks come from that stream (its ``dropout`` key, else its default one)."""
    found = detect_dropout_rngs(ctx, None)
    if not found or found.unfixable:
        return None
    pairs = []
    for call in found.fixable:
        fn = ctx.enclosing(call, cst.FunctionDef)
        assert isinstance(fn, cst.FunctionDef)
        name = _rngs_param(fn)
        assert name is not None
        args = list(call.args)
        if args:
            args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        pairs.append((call, call.with_changes(args=[*args, keyword_arg("rngs", cst.Name(name))])))
    return Edit(ctx.replace_many(pairs), "review",
                "each `nnx.Dropout` gets the `Rngs` its module's other layers are built with, so it can draw its "
                "masks in training mode; check that the model should be in training mode here (else `model.eval()`).",
                cause=found.key)
