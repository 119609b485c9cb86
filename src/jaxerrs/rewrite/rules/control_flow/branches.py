"""``if`` on a traced value (conditions, assignments, returns) -> ``jnp.where`` / ``lax.cond``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import libcst as cst
import libcst.matchers as m

from jaxerrs.rewrite import Edit
from jaxerrs.rewrite.context import Context
from jaxerrs.rewrite.rules import Found, fix_each, rule
from jaxerrs.rewrite.rules.control_flow.common import (
    _AUG_TO_BIN,
    _BOTH_BRANCHES,
    _array_cond,
    _bare,
    _bound_before,
    _call,
    _carry,
    _code,
    _const_value,
    _def,
    _edit,
    _free_name,
    _function,
    _header,
    _jnp,
    _lax,
    _loads,
    _paren,
    _reads_after,
    _scalar_pred,
    _smalls,
    _stmts,
    _traced,
    _tuple_of,
)
from jaxerrs.rewrite.values import MISSING, lookup_dotted

# ---------------------------------------------------------------------------------------------- conditions


# ---------------------------------------------------------------------------------------------- if


def _chain(node: cst.If) -> tuple[list[tuple[cst.BaseExpression, list[cst.BaseStatement]]],
                                  list[cst.BaseStatement] | None]:
    """The branches of an if/elif chain and its else body (None when it has no else)."""
    branches = []
    cur: cst.If | None = node
    while cur is not None:
        branches.append((cur.test, _stmts(cur.body)))
        orelse = cur.orelse
        if isinstance(orelse, cst.If):
            cur = orelse
        else:
            return branches, (_stmts(orelse.body) if isinstance(orelse, cst.Else) else None)
    return branches, None


def _only_return(stmts: Sequence[cst.BaseStatement]) -> cst.BaseExpression | None:
    sm = _smalls(stmts)
    if sm is None or len(sm) != 1 or not isinstance(sm[0], cst.Return) or sm[0].value is None:
        return None
    return sm[0].value


def _block_of(ctx: Context, node: cst.CSTNode) -> tuple[list[cst.BaseStatement], int] | None:
    parent = ctx.parent(node)
    if isinstance(parent, (cst.IndentedBlock, cst.Module)):
        body = list(parent.body)
        return body, body.index(node)  # type: ignore[arg-type]
    return None


def _select(jnp: str, conds: Sequence[cst.BaseExpression], values: Sequence[cst.BaseExpression],
            default: cst.BaseExpression) -> cst.BaseExpression | None:
    """``where(c1, v1, where(c2, v2, default))``; tuples of equal length are selected element by element."""
    all_vals = [*values, default]
    if any(isinstance(v, cst.Tuple) for v in all_vals):
        if not all(isinstance(v, cst.Tuple) for v in all_vals):
            return None
        sizes = {len(v.elements) for v in all_vals}  # type: ignore[attr-defined]
        if len(sizes) != 1 or any(isinstance(el, cst.StarredElement) for v in all_vals
                                  for el in v.elements):  # type: ignore[attr-defined]
            return None
        parts = []
        for k in range(sizes.pop()):
            sel = _select(jnp, conds, [v.elements[k].value for v in values],  # type: ignore[attr-defined]
                          default.elements[k].value)  # type: ignore[attr-defined]
            if sel is None:
                return None
            parts.append(cst.Element(sel))
        return cst.Tuple(parts, lpar=[], rpar=[])
    out = default
    for c, v in zip(reversed(conds), reversed(values), strict=True):
        out = _call(f"{jnp}.where", c, v, out)
    return out


def _replace_if(ctx: Context, node: cst.If, new: list[cst.BaseStatement], removed: Sequence[cst.CSTNode] = ()
                ) -> dict[cst.CSTNode, Any]:
    """Mapping that puts ``new`` statements where the if chain starting at ``node`` was."""
    parent = ctx.parent(node)
    mapping: dict[cst.CSTNode, Any] = {r: cst.RemovalSentinel.REMOVE for r in removed}
    if isinstance(parent, cst.If) and parent.orelse is node:  # an elif: it becomes the else
        mapping[node] = cst.Else(body=cst.IndentedBlock(body=new))
    else:
        new = [new[0].with_changes(leading_lines=node.leading_lines), *new[1:]]
        mapping[node] = cst.FlattenSentinel(new) if len(new) > 1 else new[0]
    return mapping


# ---------------------------------------------------------------------------------------------- detection

_NOT_VALUES = {"isinstance", "callable", "hasattr", "len", "type", "issubclass", "getattr"}


def _qual(ctx: Context, fn: cst.FunctionDef) -> str:
    parts = [a.name.value for a in [fn, *ctx.ancestors(fn)] if isinstance(a, (cst.FunctionDef, cst.ClassDef))]
    return ".".join(reversed(parts))


def _test_traced(ctx: Context, fn: cst.FunctionDef, e: cst.BaseExpression, depth: int = 0) -> bool:
    """Whether an ``if`` test in ``fn`` reads a traced value: a live array, or a local computed from one."""
    if depth > 3:
        return False
    if isinstance(e, cst.BooleanOperation):
        return _test_traced(ctx, fn, e.left, depth) or _test_traced(ctx, fn, e.right, depth)
    if isinstance(e, cst.UnaryOperation):
        return _test_traced(ctx, fn, e.expression, depth)
    if isinstance(e, cst.Comparison) and all(isinstance(c.operator, (cst.Is, cst.IsNot)) for c in e.comparisons):
        return False  # `x is None`: identity, never the array's value
    if isinstance(e, cst.Call) and isinstance(e.func, cst.Name) and e.func.value in _NOT_VALUES:
        return False
    traced = _traced(ctx, e)
    if traced is not None:
        return traced
    for name in _loads(e):  # names the failing frame has no value for yet: what they are computed from
        if lookup_dotted(ctx, name.split(".")[0]) is not MISSING:
            continue
        for st in _own_assigns(fn, name.split(".")[0]):
            if _test_traced(ctx, fn, st, depth + 1):
                return True
    return False


def _own_assigns(fn: cst.FunctionDef, name: str) -> list[cst.BaseExpression]:
    out: list[cst.BaseExpression] = []

    class _V(cst.CSTVisitor):
        def visit_FunctionDef(self, n: cst.FunctionDef) -> bool:
            return n is fn

        def visit_Assign(self, n: cst.Assign) -> None:
            if any(isinstance(t.target, cst.Name) and t.target.value == name for t in n.targets):
                out.append(n.value)

    fn.visit(_V())
    return out


def _own_ifs(ctx: Context, fn: cst.FunctionDef) -> list[cst.If]:
    """The if statements (chain heads, not elifs) of ``fn`` itself, not of functions nested in it."""
    out: list[cst.If] = []

    class _V(cst.CSTVisitor):
        def visit_FunctionDef(self, n: cst.FunctionDef) -> bool:
            return n is fn

        def visit_Lambda(self, n: cst.Lambda) -> bool:
            return False

        def visit_If(self, n: cst.If) -> None:
            out.append(n)

    fn.visit(_V())
    elifs = {n.orelse for n in out if isinstance(n.orelse, cst.If)}
    return [n for n in out if n not in elifs]


def detect_traced_if(ctx: Context, key: object = None) -> Found | None:
    """Every ``if`` on a traced value in the function of the failing ``if`` (key: the function's qualified name)."""
    if key is None:
        head = _header(ctx)
        if head is None or head[0] != "if":
            return None
        fn = _function(ctx, head[1])
        if fn is None:
            return None
        key = _qual(ctx, fn)
        first: cst.CSTNode | None = head[1]
        if isinstance(ctx.parent(first), cst.If):  # an elif: its chain's head is the statement
            while isinstance(ctx.parent(first), cst.If):
                first = ctx.parent(first)
    else:
        fns = [f for f in ctx.nodes(cst.FunctionDef) if _qual(ctx, f) == key]  # type: ignore[arg-type]
        if len(fns) != 1:
            return None
        fn, first = fns[0], None  # type: ignore[assignment]
    assert isinstance(fn, cst.FunctionDef)
    ifs = [n for n in _own_ifs(ctx, fn) if n is first or any(
        _test_traced(ctx, fn, t) for t, _ in _chain(n)[0])]
    if first is not None and first in ifs:  # the failing one first
        ifs = [first, *[n for n in ifs if n is not first]]
    return Found(key, fixable=ifs)


@rule("traced-if", detect=detect_traced_if)
def traced_if(ctx: Context) -> Edit | None:
    """Every ``if`` on a traced value in the failing function, one after another (see :func:`_traced_if_one`);
    nothing when one of them is not of a form the rule rewrites."""
    return fix_each(ctx, detect_traced_if, _traced_if_one)


def _traced_if_one(ctx: Context) -> Edit | None:
    """``if`` on a traced value: branches that return or assign one value -> ``jnp.where``; else ``lax.cond``."""
    head = _header(ctx)
    if head is None or head[0] != "if":
        return None
    node = head[1]
    assert isinstance(node, cst.If)
    if _traced(ctx, node.test) is False:
        return None  # a static condition: not what failed
    jnp, imp = _jnp(ctx)
    elementwise = not _scalar_pred(ctx)
    branches, orelse = _chain(node)
    conds = []
    for c, _ in branches:
        cc = _array_cond(c, jnp)
        if cc is None:
            return None
        conds.append(cc)
    what = "an element-wise `where`" if elementwise else "`where`"
    extra = " The condition is element-wise: if you meant all elements, use `.all()`." if elementwise else ""

    # 1) every branch is `return expr`
    rets = [_only_return(b) for _, b in branches]
    if all(r is not None for r in rets):
        removed: list[cst.CSTNode] = []
        default = _only_return(orelse) if orelse is not None else None
        if orelse is None and not isinstance(ctx.parent(node), cst.If):
            block = _block_of(ctx, node)
            if block is None:
                return None
            body, i = block
            j = i + 1
            while j < len(body) and isinstance(body[j], cst.If):  # `if c2: return b` siblings join the chain
                sib = body[j]
                assert isinstance(sib, cst.If)
                sb, so = _chain(sib)
                sr = _only_return(sb[0][1]) if len(sb) == 1 and so is None else None
                sc = _array_cond(sib.test, jnp) if sr is not None else None
                if sr is None or sc is None:
                    break
                conds.append(sc)
                rets.append(sr)
                removed.append(sib)
                j += 1
            if j < len(body):
                default = _only_return([body[j]])
                removed.append(body[j])
        if default is not None:
            values = [r for r in rets if r is not None]
            if any(_const_value(v) for v in [*values, default]) or (elementwise and any(
                    m.matches(v, m.Name("True") | m.Name("False")) for v in [*values, default])):
                return None
            sel = _select(jnp, conds, values, default)
            if sel is None:
                return None
            new = cst.SimpleStatementLine(body=[cst.Return(value=sel)])
            return Edit(_edit(ctx, _replace_if(ctx, node, [new], removed), [imp]), "review",
                        f"the `if` became {what}: {_BOTH_BRANCHES}.{extra}")

    # 2) every branch assigns names (one statement per name, no cross references)
    edit = _if_assign(ctx, node, branches, orelse, conds, jnp, imp, what, extra)
    if edit is not None:
        return edit
    # 3) several statements per branch: lax.cond with a scalar predicate
    if not elementwise:
        return _if_cond(ctx, node, branches, orelse, conds[0])
    return None


def _if_assign(ctx: Context, node: cst.If, branches: list[tuple[cst.BaseExpression, list[cst.BaseStatement]]],
               orelse: list[cst.BaseStatement] | None, conds: list[cst.BaseExpression], jnp: str,
               imp: str | None, what: str, extra: str) -> Edit | None:
    bodies = [b for _, b in branches] + ([orelse] if orelse is not None else [])
    per: list[dict[str, cst.BaseExpression]] = []
    order: list[str] = []
    for b in bodies:
        sm = _smalls(b)
        if not sm:
            return None
        got: dict[str, cst.BaseExpression] = {}
        for s in sm:
            if isinstance(s, cst.Assign) and len(s.targets) == 1 and isinstance(s.targets[0].target, cst.Name):
                name, value = s.targets[0].target.value, s.value
            elif isinstance(s, cst.AugAssign) and isinstance(s.target, cst.Name) and type(s.operator) in _AUG_TO_BIN:
                name = s.target.value
                value = cst.BinaryOperation(left=s.target, operator=_AUG_TO_BIN[type(s.operator)](),
                                            right=_paren(s.value))
            else:
                return None
            if name in got:
                return None
            got[name] = value
            if name not in order:
                order.append(name)
        per.append(got)
    for got in per:  # a value may read the name it sets, no other name the branches set
        for name, value in got.items():
            if any(r in order and r != name for r in _loads(value)):
                return None
    new: list[cst.BaseStatement] = []
    if len(order) > 1:  # a later `where` must not see a condition re-evaluated on names already rebound
        taken: list[str] = []
        for i, c in enumerate(conds):
            if any(r.split(".")[0] in order for r in _loads(c)):
                pred = _free_name(ctx, "pred")
                while pred in taken:
                    pred = _free_name(ctx, f"pred_{len(taken) + 1}")
                taken.append(pred)
                new.append(cst.SimpleStatementLine(body=[cst.Assign(targets=[cst.AssignTarget(cst.Name(pred))],
                                                                    value=_bare(c))]))
                conds = [*conds[:i], cst.Name(pred), *conds[i + 1:]]
    for name in order:
        missing = orelse is None or any(name not in got for got in per)
        if missing and not _bound_before(ctx, node, name):
            return None
        values = [got.get(name, cst.Name(name)) for got in per[:len(branches)]]
        default = per[-1].get(name, cst.Name(name)) if orelse is not None else cst.Name(name)
        if any(_const_value(v) for v in [*values, default]):
            return None
        sel = _select(jnp, conds, values, default)
        if sel is None:
            return None
        new.append(cst.SimpleStatementLine(body=[cst.Assign(targets=[cst.AssignTarget(cst.Name(name))], value=sel)]))
    names = ", ".join(f"`{n}`" for n in order)
    return Edit(_edit(ctx, _replace_if(ctx, node, new), [imp]), "review",
                f"the `if` became {what} for {names}: {_BOTH_BRANCHES}.{extra}")


def _if_cond(ctx: Context, node: cst.If, branches: list[tuple[cst.BaseExpression, list[cst.BaseStatement]]],
             orelse: list[cst.BaseStatement] | None, cond: cst.BaseExpression) -> Edit | None:
    """if/else with several statements per branch -> two local functions run by ``lax.cond``."""
    fn = _function(ctx, node)
    if len(branches) != 1 or fn is None:
        return None
    true_body, false_body = branches[0][1], orelse
    removed: list[cst.CSTNode] = []
    returns = _ends_in_return(true_body)
    if returns:
        if false_body is None:  # early return: the rest of the block is the false branch
            block = _block_of(ctx, node)
            if block is None:
                return None
            body, i = block
            false_body = body[i + 1:]
            removed = list(false_body)
        if not _ends_in_return(false_body):
            return None
    elif false_body is not None and _ends_in_return(false_body):
        return None
    t_sm, f_sm = _smalls(true_body), _smalls(false_body or [])
    if t_sm is None or f_sm is None:
        return None
    t = _carry(ctx, node, t_sm[:-1] if returns else t_sm)
    f = _carry(ctx, node, f_sm[:-1] if returns else f_sm)
    if t is None or f is None:
        return None
    operands = list(dict.fromkeys(t[0] + f[0]))  # rebound names: passed in, so the branches can read them
    outs: list[str] = []
    if not returns:
        end = ctx.span(node)[1]
        for name in dict.fromkeys(t[0] + t[1] + f[0] + f[1]):
            both = name in t[0] + t[1] and name in f[0] + f[1]
            if name in operands or both:
                outs.append(name)
            elif _reads_after(ctx, fn, name, end):
                return None  # set on one side only, unbound on the other
        if not outs:
            return None
    lax, imp = _lax(ctx)
    t_name, f_name = _free_name(ctx, "true_branch"), _free_name(ctx, "false_branch")
    ret = _tuple_of(outs) if outs else None
    t_def = _def(t_name, operands, true_body, ret)
    f_def = _def(f_name, operands, list(false_body or []), ret)
    call = f"{lax}.cond({_code(_bare(cond))}, {t_name}, {f_name}" + "".join(f", {o}" for o in operands) + ")"
    last = cst.parse_statement(f"return {call}\n" if returns else f"{_tuple_of(outs)} = {call}\n")
    mapping = _replace_if(ctx, node, [t_def, f_def, last], removed)
    return Edit(_edit(ctx, mapping, [imp]), "review",
                "the branches became local functions run by `lax.cond`: both are traced, and they must return "
                "the same shapes and dtypes.")


def _ends_in_return(stmts: Sequence[cst.BaseStatement]) -> bool:
    sm = _smalls(stmts[-1:]) if stmts else None
    return bool(sm) and isinstance(sm[-1], cst.Return) and sm[-1].value is not None  # type: ignore[index]
