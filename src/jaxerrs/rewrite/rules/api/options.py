"""A string, function or flag option passed to the user's jitted function -> a static argument.

``layer(x, w, activation="relu")`` on a jitted ``layer`` fails before tracing: jit turns every argument
into an abstract array, and a string (or a function, or another plain object) is not one. An option like
that is meant to be a Python value the function branches on, which is what ``static_argnames`` makes it.
Every option of the same function that the cell passes a string, a function or a branched-on bool gets
made static at once, so the next call does not fail on the next option (``norm="layer"`` after
``activation``, or ``if training:`` on a traced bool). The same rule answers the TracerBoolConversionError
of ``if training:`` itself when ``training`` is a parameter every call passes a Python bool: all the flags
the function branches on become static together, not only the one the message names.
"""

from __future__ import annotations

import re
import types
from typing import Any

import libcst as cst

from jaxerrs.rewrite import Edit
from jaxerrs.rewrite.context import Context
from jaxerrs.rewrite.jit_static import NOPE, find_jit, make_static, param_names, py_literal, static_kw
from jaxerrs.rewrite.names import full_name
from jaxerrs.rewrite.rules import Found, rule
from jaxerrs.rewrite.rules.static_shapes.common import _ARGS, _ORIGIN, _arg_for, _call_sites
from jaxerrs.rewrite.values import MISSING, lookup_dotted

# ``to <function f at 0x…>`` for jax.jit; nnx.jit names its wrapper: ``to JitFn(f=<function f at 0x…>, …)``.
_MSG = re.compile(r"Error interpreting argument to (?:\w+\(f=)?<function (?P<fn>[\w.<>]+) at 0x[0-9a-f]+>"
                  r"(?:, [^\n]*?\))? as an abstract array\. The problematic value is of type (?P<type><class '[^']+'>) and was passed to the "
                  r"function at path (?P<path>\S+?)\.?\s")
_IDENT = re.compile(r"^[A-Za-z_]\w*$")


def _dotted(e: cst.CSTNode) -> str:
    from jaxerrs.rewrite.context import dotted_name

    d = dotted_name(e)
    return d if d and "" not in d.split(".") else ""


def _kind(ctx: Context, e: cst.BaseExpression, inside: bool = False) -> str:
    """What a call passes: 'str', 'bool', 'none', 'function' (Python values an option takes), 'array', '?'.

    ``inside``: the call is in a function, whose names have no live value here (only literals count)."""
    lit = py_literal(e)
    if lit is not NOPE:
        if isinstance(lit, bool):
            return "bool"
        if isinstance(lit, str):
            return "str"
        if lit is None:
            return "none"
        return "?"
    if isinstance(e, cst.Call) and full_name(ctx, e.func, keep=True).startswith(("jax.", "numpy.")):
        return "array"  # jnp.array(0.5), np.float32(2), jax.random.normal(...): array data
    d = _dotted(e)
    if inside and d.split(".")[0] not in ("jax", "jnp", "np") and not (d and ctx.imports.get(d.split(".")[0])):
        return "?"
    v = lookup_dotted(ctx, d) if d else MISSING
    return _kind_of_value(v)


def _kind_of_value(v: Any) -> str:
    if v is MISSING:
        return "?"
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, str):
        return "str"
    if v is None:
        return "none"
    if hasattr(v, "shape") and hasattr(v, "dtype"):
        return "array"
    if isinstance(v, (types.FunctionType, types.BuiltinFunctionType)) or (
            callable(v) and not isinstance(v, type) and str(type(v).__module__).startswith(("jax", "jaxlib"))):
        return "function"
    return "?"


def _branch_tests(fn: cst.FunctionDef) -> set[str]:
    """Parameters read in a Python ``if``/``while``/ternary test or a boolean operator inside ``fn``."""
    out: set[str] = set()

    def names(e: cst.CSTNode) -> None:
        class _N(cst.CSTVisitor):
            def visit_Name(self, n: cst.Name) -> None:
                out.add(n.value)

            def visit_Attribute(self, n: cst.Attribute) -> bool:
                n.value.visit(self)
                return False

            def visit_Call(self, n: cst.Call) -> bool:
                return False

        e.visit(_N())

    class _V(cst.CSTVisitor):
        def visit_If(self, n: cst.If) -> None:
            names(n.test)

        def visit_While(self, n: cst.While) -> None:
            names(n.test)

        def visit_IfExp(self, n: cst.IfExp) -> None:
            names(n.test)

        def visit_BooleanOperation(self, n: cst.BooleanOperation) -> None:
            names(n)

    fn.body.visit(_V())
    return out


def _target(ctx: Context) -> tuple[cst.FunctionDef, str, bool] | None:
    """(the jitted function, the parameter the error names): a non-array argument, or a bool flag that a
    Python ``if`` of the jitted function tests (``TracerBoolConversionError`` naming one argument)."""
    text = ctx.message or str(ctx.exc or "")
    mm = _MSG.search(text)
    if mm is not None:
        if not _IDENT.match(mm["path"]):
            return None  # a string inside a container argument (``cfg['act']``): the container is not static
        name, param = mm["fn"].rsplit(".", 1)[-1], mm["path"]
    elif ctx.error_class.endswith("TracerBoolConversionError"):
        origin, args = _ORIGIN.search(text), _ARGS.search(text)
        if origin is None or args is None or origin["kind"] != "jit" or not _IDENT.match(args["args"]):
            return None
        name, param = origin["fn"].rsplit(".", 1)[-1], args["args"]
    else:
        return None
    fn = ctx.function_named(name)
    if fn is None:
        return None
    pos, kwonly = param_names(fn)
    if param not in pos and param not in kwonly:
        return None
    if mm is None and param not in _flag_tests(fn):
        return None  # not a flag a Python test reads as it is (`t < 0.0` is data): another rule's cause
    return fn, param, mm is None


def _flag_tests(fn: cst.FunctionDef) -> set[str]:
    """Names a Python test of ``fn`` reads as a truth value themselves: ``if training:``, ``if not flag``,
    ``a and flag``, ``x if flag else y``."""
    out: set[str] = set()

    def bare(e: cst.BaseExpression) -> None:
        while isinstance(e, cst.UnaryOperation) and isinstance(e.operator, cst.Not):
            e = e.expression
        if isinstance(e, cst.Name):
            out.add(e.value)
        elif isinstance(e, cst.BooleanOperation):
            bare(e.left)
            bare(e.right)

    class _V(cst.CSTVisitor):
        def visit_If(self, n: cst.If) -> None:
            bare(n.test)

        def visit_While(self, n: cst.While) -> None:
            bare(n.test)

        def visit_IfExp(self, n: cst.IfExp) -> None:
            bare(n.test)

    fn.body.visit(_V())
    return out


def _plan(ctx: Context, fn: cst.FunctionDef, first: str | None, flag: bool = False
          ) -> tuple[Any, list[str], list[str], bool] | None:
    """(jit site, params to make static, params that cannot be, every value known) for ``fn``; ``flag``: the
    error named ``first`` as a traced bool (then a call must be seen passing it a Python value)."""
    site = find_jit(ctx, fn, others=True, anywhere=True)
    if site is None:
        return None
    nums, names = static_kw(site.call, "static_argnums"), static_kw(site.call, "static_argnames")
    if nums is None or names is None:
        return None
    pos, kwonly = param_names(fn)
    static = set(names[0]) | {pos[i] for i in nums[0] if isinstance(i, int) and -len(pos) <= i < len(pos)}
    tests = _branch_tests(fn)
    calls = _call_sites(ctx, site)
    want: list[str] = []
    bad: list[str] = []
    known = bool(calls)
    for p in (*pos, *kwonly):
        if p in static or (site.method and p == pos[0]):
            continue
        kinds = set()
        for call in calls:
            arg = _arg_for(call, fn, p, site.method)
            if arg is False:
                return None
            if arg is None:
                continue
            inside = ctx.enclosing(call, cst.FunctionDef) is not None
            kinds.add(_kind(ctx, arg.value, inside))  # type: ignore[union-attr]
        option = bool(kinds & {"str", "function"}) or ("bool" in kinds and p in tests) or p == first
        if p == first and (not kinds <= {"str", "function", "bool", "none"} or (flag and not kinds)):
            return site, [], [p], False  # the named argument gets other values (ints, arrays), or none seen
        if not option:
            continue
        if "array" in kinds or "?" in kinds:
            bad.append(p)  # arrays (or values it cannot read) for the same parameter: static would reject them
            continue
        known = known and bool(kinds)
        want.append(p)
    return site, want, bad, known


def detect_options(ctx: Context, key: Any = None) -> Found | None:
    """The options of the jitted function that get strings, functions or branched-on bools and are not static."""
    if key is None:
        got = _target(ctx)
        if got is None:
            return None
        fn, first, flag = got
        key = ("non-array-option", fn.name.value)
    else:
        fn = ctx.function_named(key[1])
        first, flag = None, False
        if fn is None:
            return None
    plan = _plan(ctx, fn, first, flag)
    if plan is None:
        return Found(key, unfixable=[fn])
    _site, want, bad, _known = plan
    return Found(key, fixable=want, unfixable=bad)


@rule("non-array-static", detect=detect_options)
def non_array_static(ctx: Context) -> Edit | None:
    """Make every option of the user's jitted function that the cell passes a string, a function or a bool
    it branches on static (``static_argnames``, or ``static_argnums`` where the jit already lists those).

    Why the values are the same: a static argument is handed to the Python function as it is, so the
    jitted function computes with the very string, function or bool the unjitted function would; jit
    compiles it once per distinct value. Nothing is offered when a call passes an array, or a value the
    rule cannot read, for one of these parameters (a static argument must be hashable). ``safe`` when
    every call is found and passes such a Python value (a literal, or a name bound to one); ``review``
    when the calls are not found in the cell (``obj(...)`` of a jitted ``__call__``, calls in later cells).
    """
    got = _target(ctx)
    if got is None:
        return None
    fn, first, flag = got
    plan = _plan(ctx, fn, first, flag)
    if plan is None:
        return None
    site, want, bad, known = plan
    if bad or first not in want:
        return None
    made = make_static(ctx, site, want)
    if made is None:
        return None
    old, new, imports = made
    who = fn.name.value
    listed = ", ".join(f"`{p}`" for p in want)
    summary = (f"{listed} {'is' if len(want) == 1 else 'are'} now static in `{site.kind}` of `{who}`: options are "
               f"Python values the function uses as they are; each distinct value compiles `{who}` once")
    if not known:
        summary += f"; check every call passes a hashable Python value (not an array) for {listed}"
    return Edit(ctx.replace_many([(old, new)], imports), "safe" if known else "review", summary + ".",
                cause=("non-array-option", who))


# ---------------------------------------------------------------------------------------------- vmap options


@rule("vmap-option-unmapped")
def vmap_option_unmapped(ctx: Context) -> Edit | None:
    """A string or function passed positionally to a vmapped function -> ``in_axes`` None for it.

    Why the values are the same: an argument with ``in_axes`` None is handed unchanged to every example,
    which is what calling the function once per example with that option computes; the other entries of
    ``in_axes`` stay as they were. Every such argument of the failing call is unmapped at once.
    """
    from jaxerrs.rewrite.cst_tools import positional_args
    from jaxerrs.rewrite.rules.transforms.vmap import (
        _axes_code,
        _axes_value,
        _entries,
        _set_in_axes,
        _vmap_of,
        _vmapped_call,
    )

    found = _vmapped_call(ctx)
    if found is None:
        return None
    call, vm = found
    if getattr(vm, "home", None) is not None:
        return None  # the vmap is written in an earlier cell
    positional = positional_args(call)
    if positional is None or len(positional) != len(call.args):
        return None  # keyword arguments are always mapped over axis 0: in_axes cannot unmap them
    axes = _axes_value(vm.in_axes.value if vm.in_axes is not None else None)
    entries = _entries(axes, len(positional)) if axes is not MISSING else None
    if entries is None:
        return None
    odd = [i for i, a in enumerate(positional) if _kind(ctx, a.value) in ("str", "function") and entries[i] is not None]
    if not odd:
        return None
    for other in ctx.nodes(cst.Call):  # every call of the same vmapped function: in_axes is shared
        assert isinstance(other, cst.Call)
        if other is call:
            continue
        ovm = _vmap_of(ctx, other.func)
        if ovm is None or ovm.node is not vm.node:
            continue
        pos = positional_args(other)
        if pos is None or any(i >= len(pos) or _kind(ctx, pos[i].value) not in ("str", "function") for i in odd):
            return None  # another call maps an array there
    new_axes = tuple(None if i in odd else e for i, e in enumerate(entries))
    names = ", ".join(f"`{ctx.code(positional[i].value)}`" for i in odd)
    return Edit(_set_in_axes(ctx, vm, new_axes), "safe",
                f"{names} {'is' if len(odd) == 1 else 'are'} passed unmapped (`in_axes={_axes_code(new_axes)}`): "
                "every example gets the same option, as a Python value.")
