"""A count or flag parameter of the user's jitted function used as a Python value -> static."""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from jaxerrs.rewrite import Edit
from jaxerrs.rewrite.analysis import ran_context
from jaxerrs.rewrite.context import Context
from jaxerrs.rewrite.jit_static import STATIC_JITS, JitSite, find_jit, jit_kind, make_static, static_kw
from jaxerrs.rewrite.names import refers_to
from jaxerrs.rewrite.rules import rule
from jaxerrs.rewrite.rules.control_flow.common import (
    _dotted,
    _edit,
    _function,
    _has_bool_syntax,
    _header,
    _loads,
    _params,
    _traced,
)
from jaxerrs.rewrite.values import is_tracer

# ---------------------------------------------------------------------------------------------- static arguments


def _static_candidates(ctx: Context, fn: cst.FunctionDef, region: cst.CSTNode) -> list[str]:
    """Parameters of ``fn`` read in ``region`` that are jit tracers of a scalar integer or boolean."""
    params = _params(fn)
    out = []
    for name in dict.fromkeys(_loads(region)):
        if name not in params or ctx.locals is None or name not in ctx.locals:
            continue
        v = ctx.locals[name]
        if not is_tracer(v) or "Batch" in type(v).__name__ or "JVP" in type(v).__name__:
            continue
        dtype = str(getattr(v, "dtype", ""))
        if getattr(v, "shape", None) == () and (dtype == "bool" or dtype.startswith(("int", "uint"))):
            out.append(name)
    return out


def _passes_array(ctx: Context, fn: cst.FunctionDef, site: JitSite, name: str, index: int | None) -> bool:
    """Whether a call in the cell passes an array for ``name`` (a static argument must be hashable)."""
    callees = {fn.name.value, *site.names}
    is_method = isinstance(ctx.parent(ctx.parent(fn) or fn), cst.ClassDef)
    for call in ctx.nodes(cst.Call):
        assert isinstance(call, cst.Call)
        f = call.func
        if isinstance(f, cst.Call):  # jax.jit(fn)(...)
            if not (f.args and (refers_to(ctx, f.func, "jax.jit") or jit_kind(ctx, f.func) in STATIC_JITS)
                    and m.matches(f.args[0].value,
                                                                            m.Name(fn.name.value))):
                continue
            fname = fn.name.value
        elif isinstance(f, (cst.Attribute, cst.Name)):
            fname = f.attr.value if isinstance(f, cst.Attribute) else f.value
        else:
            continue
        if fname not in callees:
            continue
        pos = None if index is None else index - (1 if is_method and isinstance(f, cst.Attribute) else 0)
        positional = [a for a in call.args if a.keyword is None]
        arg = next((a.value for a in call.args if a.keyword is not None and a.keyword.value == name), None)
        if arg is None and pos is not None and 0 <= pos < len(positional) and not positional[pos].star:
            arg = positional[pos].value
        if arg is not None and _array_expr(ctx, arg):
            return True
    return False


def _array_expr(ctx: Context, e: cst.BaseExpression) -> bool:
    if _traced(ctx, e) is True:
        return True
    if isinstance(e, cst.Call):
        head = _dotted(e.func).split(".")[0]
        mod = ctx.imports.get(head, "")
        return mod.startswith(("jax", "numpy"))
    return False


@rule("traced-static-arg")
def static_arg(ctx: Context) -> Edit | None:
    """A count or flag parameter of the user's own jitted function used as a Python value -> a static argument."""
    head = _header(ctx)
    if head is None:
        return None
    kind, stmt, region = head
    fn = _function(ctx, stmt) if kind != "stmt" else ctx.function_at_line()
    if fn is None:
        return None
    if kind in ("if", "while"):
        test = region
        while isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            test = test.expression
        if not isinstance(test, cst.Name):
            return None  # a data-dependent condition: where/cond, not static
        region = test
    elif kind == "for":
        if not m.matches(region, m.Call(func=m.Name("range"))):
            return None
    else:
        other = m.IfExp() | m.Call(func=m.Name("min") | m.Name("max"))
        if _has_bool_syntax(region) or any(region in ctx.ancestors(n) for n in ctx.nodes(other)):
            return None  # another rule's construct: not a count or flag
    cands = _static_candidates(ctx, fn, region)
    if len(cands) != 1:
        return None
    name = cands[0]
    positional = [x.name.value for x in (*fn.params.posonly_params, *fn.params.params)]
    index = positional.index(name) if name in positional else None
    site = find_jit(ctx, fn, others=True, anywhere=True)
    home = None  # the cell that ran, when the function an earlier cell defined is jitted there
    if site is None and not fn.decorators:
        home = ran_context(ctx)
        site = find_jit(home, fn, others=True, anywhere=True) if home is not None else None
    jctx = home or ctx
    if site is None or _passes_array(jctx, fn, site, name, index):
        return None
    if site.decorator is not None and site.call is site.node and jit_kind(ctx, site.call.func) in STATIC_JITS:
        return None  # jax.jit(...) as a decorator factory: leave it alone
    nums, names = static_kw(site.call, "static_argnums"), static_kw(site.call, "static_argnames")
    if index is None and nums is not None and nums[1] is not None and names == ([], None):
        return None  # a keyword-only parameter cannot join static_argnums alone
    made = make_static(jctx, site, [name])
    if made is None:
        return None
    old, new, imports = made
    dtype = str(getattr(ctx.locals.get(name), "dtype", "")) if ctx.locals else ""
    pytype = "bool" if dtype == "bool" else "int"
    where = f" (in {home.label}, where it is jitted)" if home is not None else ""
    return Edit(_edit(jctx, {old: new}, imports), "review",
                f"`{name}` is now a static argument of `{fn.name.value}`{where}: pass a plain Python {pytype}; "
                "each new value compiles the function again.", where=home)
