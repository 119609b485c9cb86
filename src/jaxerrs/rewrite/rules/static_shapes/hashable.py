"""Lists passed for static arguments -> tuples; ``@jax.jit`` on a method -> ``self`` static."""

from __future__ import annotations

import ast
import re
from typing import Any

import libcst as cst

from jaxerrs.rewrite import Edit
from jaxerrs.rewrite.analysis import defining_context
from jaxerrs.rewrite.context import Context, dotted_name
from jaxerrs.rewrite.cst_tools import keyword_arg
from jaxerrs.rewrite.jit_static import (
    NOPE,
    STATIC_JITS,
    find_jit,
    jit_kind,
    make_static,
    name_of,
    param_names,
    py_literal,
)
from jaxerrs.rewrite.names import full_name, refers_to
from jaxerrs.rewrite.rules import rule
from jaxerrs.rewrite.rules.static_shapes.common import _body_assignments, _jnp_name, _lookup, _within
from jaxerrs.rewrite.values import MISSING, live_value

# ---------------------------------------------------------------------------------------------- hashable static args


def _hashable_literal(v: Any) -> bool:
    """Whether a literal value is made of plain hashable items (lists count: they become tuples)."""
    if isinstance(v, (int, float, str, bool, type(None))):
        return True
    if isinstance(v, (tuple, list)):
        return all(_hashable_literal(x) for x in v)
    return False


def _to_tuple(e: cst.BaseExpression) -> cst.BaseExpression | None:
    """A list literal of plain items as the same tuple literal (brackets become parentheses)."""
    if isinstance(e, cst.List) and all(isinstance(el, cst.Element) for el in e.elements):
        if not all(_hashable_literal(py_literal(el.value)) or isinstance(el.value, cst.Name)
                   or dotted_name(el.value) for el in e.elements):  # a constant, a name, ``jnp.tanh``
            return None
        if any(isinstance(el.value, cst.List) for el in e.elements):
            return None
        els = list(e.elements)
        if len(els) == 1:  # (2,) not (2)
            els[0] = els[0].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace("")))
        return cst.Tuple(elements=els, lpar=[cst.LeftParen(whitespace_after=e.lbracket.whitespace_after)],
                         rpar=[cst.RightParen(whitespace_before=e.rbracket.whitespace_before)])
    return None


def _items_hashable(ctx: Context, e: cst.List) -> bool:
    """Whether the names among a list literal's items hold hashable values now (a function, a number, a
    string; not a list, an array, an unfrozen dataclass): else the tuple fails to hash the same way."""
    for el in e.elements:
        if isinstance(el.value, (cst.Name, cst.Attribute)):
            v = live_value(ctx, el.value, attrs="instance-or-module")
            if v is MISSING or type(v).__hash__ is None or isinstance(v, (list, dict, set)) or hasattr(v, "shape"):
                return False
    return True


@rule("static-arg-hashable")
def static_arg_hashable(ctx: Context) -> Edit | None:
    """A list given for a static argument becomes a tuple at the call site; a dataclass of the user's given
    for one becomes a frozen dataclass (see :func:`_frozen_dataclass`)."""
    text = ctx.message or ""
    mt = re.search(r"hash an object of type <class '([\w.]+)'>, (.*?)\. The error was", text, re.S)
    if mt is not None and mt.group(1) == "dict":
        return _dict_items(ctx, mt.group(2))
    if mt is not None and mt.group(1) != "list":
        return _frozen_dataclass(ctx, mt.group(1), mt.group(2))
    if mt is None:
        return None
    shown = mt.group(2)
    stmt = ctx.statement()
    if stmt is None:
        return None
    cands: list[tuple[cst.BaseExpression, cst.BaseExpression, cst.Call, cst.Arg]] = []
    for call in ctx.nodes(cst.Call):
        assert isinstance(call, cst.Call)
        if not _within(ctx, call, stmt) or _jnp_name(ctx, call.func) or full_name(ctx, call.func, keep=True).startswith("jax."):
            continue
        for a in call.args:
            v = a.value
            if isinstance(v, cst.List):
                lit = py_literal(v)
                new = _to_tuple(v)
                if new is not None and (lit is NOPE or repr(lit) == shown) and _items_hashable(ctx, v):
                    cands.append((v, new, call, a))
            elif isinstance(v, cst.ListComp):
                cands.append((v, cst.Call(func=cst.Name("tuple"), args=[cst.Arg(v)]), call, a))
            elif isinstance(v, cst.Name):
                val = _lookup(ctx, v.value)
                if isinstance(val, list) and _hashable_literal(val) and \
                        not any(isinstance(x, list) for x in val) and repr(val) == shown:
                    cands.append((v, cst.Call(func=cst.Name("tuple"), args=[cst.Arg(v)]), call, a))
    # the call's other lists for static parameters fail the same way next: fixed with it when provably static
    others = [(a.value, _to_tuple(a.value), cands[0][2], a) for a in cands[0][2].args
              if isinstance(a.value, cst.List) and _to_tuple(a.value) is not None
              and _items_hashable(ctx, a.value) and all(a is not c[3] for c in cands)] if cands else []
    every = _static_lists(ctx, cands + others) if len(cands) > 1 or others else cands
    cands = every or (cands if len(cands) == 1 else [])
    if not cands:
        return None
    verdicts = [_tuple_fits(ctx, call, arg) for _, _, call, arg in cands]
    if False in verdicts:
        return None  # the function uses it as a list (`+ [..]`, `.append`): a tuple would break it
    what = ", ".join(f"`{ctx.code(old)}`" for old, _, _, _ in cands)
    summary = f"{what} {'is' if len(cands) == 1 else 'are'} passed as a tuple: static arguments must be hashable"
    edit = ctx.replace_many([(old, new) for old, new, _, _ in cands])
    if all(verdicts):
        return Edit(edit, "safe", summary + ", and the function only reads the items.")
    return Edit(edit, "review",
                summary + "; check the function does not use it as a list (`+ [..]`, `.append`, `== [..]`).")


def _dict_items(ctx: Context, shown: str) -> Edit | None:
    """A dict passed for a static parameter: the calls pass ``tuple(d.items())`` and the function's first
    line turns it back into the dict, ``kw = dict(kw)``.

    The body then reads a dict equal to the one passed (same keys, same values, same order), so it computes
    what it would have computed; the tuple of items hashes by value, so equal dicts share one compilation.
    Only when the function is defined in this cell, ``jit`` makes the parameter static, the dict's values
    hash, and every call of the function in the cell passes a dict there (each is converted). ``review``:
    the function gets a copy, so code that relies on the dict's identity or changes it sees the difference.
    """
    stmt = ctx.statement()
    if stmt is None:
        return None
    hits = []
    for call in ctx.nodes(cst.Call):
        assert isinstance(call, cst.Call)
        if not _within(ctx, call, stmt) or full_name(ctx, call.func, keep=True).startswith("jax."):
            continue
        for a in call.args:
            v = live_value(ctx, a.value, attrs="instance-or-module") if isinstance(a.value, (cst.Name, cst.Dict)) \
                else MISSING
            if isinstance(a.value, cst.Dict) and v is MISSING:
                v = py_literal(a.value)
            if isinstance(v, dict) and repr(v) == shown.strip():
                hits.append((call, a))
    if len(hits) != 1 or not isinstance(hits[0][0].func, cst.Name):
        return None
    call, arg = hits[0]
    found = _callee_def(ctx, call)
    if found is None or found[1]:
        return None
    fn = found[0]
    param = _param_of(call, arg, fn, False)
    site = find_jit(ctx, fn)
    static = site.statics() if site is not None else None
    if param is None or not static or param not in static or param not in param_names(fn)[0]:
        return None
    pairs: list[tuple[cst.CSTNode, cst.CSTNode]] = []
    for other in ctx.nodes(cst.Call):
        assert isinstance(other, cst.Call)
        if not (isinstance(other.func, cst.Name) and other.func.value == call.func.value):
            continue
        mine = [a for a in other.args if not a.star and _param_of(other, a, fn, False) == param]
        if any(a.star for a in other.args) or len(mine) != 1:
            return None
        v = live_value(ctx, mine[0].value, attrs="instance-or-module")
        if isinstance(mine[0].value, cst.Dict) and v is MISSING:
            v = py_literal(mine[0].value)
        if not isinstance(v, dict) or not _all_hash(v):
            return None
        node = mine[0].value
        src = ctx.code(node)
        pairs.append((node, cst.parse_expression(f"tuple({src}.items())" if isinstance(node, (cst.Name, cst.Dict))
                                                 else f"tuple(({src}).items())")))
    body = fn.body
    if not isinstance(body, cst.IndentedBlock):
        return None
    stmts = list(body.body)
    first = stmts[0] if stmts else None
    doc = (isinstance(first, cst.SimpleStatementLine) and len(first.body) == 1 and isinstance(first.body[0], cst.Expr)
           and isinstance(first.body[0].value, (cst.SimpleString, cst.ConcatenatedString)))
    k = 1 if doc else 0
    stmts.insert(k, cst.parse_statement(f"{param} = dict({param})\n"))
    pairs.append((fn, fn.with_changes(body=body.with_changes(body=stmts))))
    n = len(pairs) - 1
    return Edit(ctx.replace_many(pairs), "review",
                f"the dict for the static `{param}` of `{fn.name.value}` is passed as a tuple of its items "
                f"({n} call{'s' if n > 1 else ''}), which hashes, and `{param} = dict({param})` turns it back "
                "into the same dict in the function; check nothing relies on it being the very dict passed.")


def _all_hash(v: dict) -> bool:
    try:
        hash(tuple(v.items()))
    except TypeError:
        return False
    return True


def _param_of(call: cst.Call, arg: cst.Arg, fn: cst.FunctionDef, method: bool) -> str | None:
    """The parameter of ``fn`` that ``arg`` of ``call`` binds; None when ``*args`` makes it unknowable."""
    if arg.keyword is not None:
        return arg.keyword.value
    pos, _ = param_names(fn)
    i = [a for a in call.args if a.keyword is None].index(arg) + (1 if method else 0)
    return None if any(a.star for a in call.args) or i >= len(pos) else pos[i]


def _static_lists(ctx: Context, cands: list) -> list:
    """The candidates when they are all arguments of one call, each for a parameter its ``jit`` makes static
    (``JitSite.statics``; the function's own cell when an earlier cell defines it); else none."""
    if len({id(c[2]) for c in cands}) != 1:
        return []
    call = cands[0][2]
    owner, found = ctx, _callee_def(ctx, call)
    if found is None and isinstance(call.func, cst.Name):
        home = defining_context(ctx, _lookup(ctx, call.func.value))
        fn_there = home.function_named(call.func.value) if home is not None else None
        if fn_there is not None:
            owner, found = home, (fn_there, False)
    if found is None or found[1]:
        return []
    site = find_jit(owner, found[0])
    static = site.statics() if site is not None else None
    if not static or any(_param_of(call, c[3], found[0], False) not in static for c in cands):
        return []
    return cands


def _callee_def(ctx: Context, call: cst.Call) -> tuple[cst.FunctionDef, bool] | None:
    """The user's function a call runs (through its ``jit``), and whether it is called as a method."""
    if isinstance(call.func, cst.Name):
        name = call.func.value
        fn = ctx.function_named(name)
        if fn is not None and not isinstance(ctx.parent(ctx.parent(fn) or fn), cst.ClassDef):
            return fn, False
        for c in ctx.nodes(cst.Call):
            assert isinstance(c, cst.Call)
            parent = ctx.parent(c)
            if jit_kind(ctx, c.func) in STATIC_JITS and c.args and isinstance(c.args[0].value, cst.Name) and isinstance(
                    parent, cst.Assign) and name_of(parent.targets[0].target) == name:
                g = ctx.function_named(c.args[0].value.value)
                return (g, False) if g is not None else None
    return None


_TUPLE_SAFE_CALLS = {"len", "tuple", "list", "zip", "enumerate", "sum", "max", "min", "sorted", "reversed"}
# array functions and methods that read a sequence argument item by item (a shape, axes, values): a
# tuple and a list give them the same result. Any other call may tell them apart (``str.format``,
# ``jax.tree.map`` keeps the container type).
_TUPLE_SAFE_MODULES = ("jax.numpy.", "numpy.", "jax.lax.", "jax.nn.", "jax.random.", "math.")
_TUPLE_SAFE_METHODS = {"reshape", "transpose", "sum", "mean", "max", "min", "prod", "std", "var", "any", "all",
                       "argmax", "argmin", "squeeze", "broadcast_to", "join", "count", "index", "tile", "repeat"}


def _reads_items(ctx: Context, call: cst.Call) -> bool:
    """Whether ``call`` treats a tuple argument as it treats the same list (see ``_TUPLE_SAFE_MODULES``)."""
    if name_of(call.func) in _TUPLE_SAFE_CALLS:
        return True
    if not isinstance(call.func, cst.Attribute):
        return False
    full = full_name(ctx, call.func, keep=True)
    return full.startswith(_TUPLE_SAFE_MODULES) or (
        not full.startswith("jax.") and call.func.attr.value in _TUPLE_SAFE_METHODS)


def _tuple_fits(ctx: Context, call: cst.Call, arg: cst.Arg) -> bool | None:
    """True: the called function only reads the argument's items; False: it uses list-only operations;
    None: cannot tell (the function is not in the cell, or the value is handed on to other code).

    This is the ``safe`` precondition of ``static-arg-hashable``: a static argument is the Python value
    itself inside the jitted function, so a tuple computes what the list computed wherever the function
    only indexes it, iterates it, unpacks it, takes ``len``/``count``/``index``, or hands it to a function
    that reads its items (``_reads_items``); ``+ [..]``, comparisons, ``.append``... tell them apart.
    """
    found = _callee_def(ctx, call)
    if found is None:
        return None
    fn, method = found
    pos, kwonly = param_names(fn)
    param = _param_of(call, arg, fn, method)
    if param is None or param not in pos + kwonly or _body_assignments(fn, param):
        return None
    verdict: bool | None = True
    for n in ctx.nodes(cst.Name):
        assert isinstance(n, cst.Name)
        if n.value != param or not _within(ctx, n, fn.body):
            continue
        p = ctx.parent(n)
        if isinstance(p, cst.Arg):
            owner = ctx.parent(p)
            if isinstance(owner, cst.Call) and _reads_items(ctx, owner) and p.star in ("", "*"):
                continue
            verdict = None  # handed to other code
            continue
        if isinstance(p, cst.Subscript) and p.value is n:
            continue
        if isinstance(p, (cst.For, cst.CompFor)) and p.iter is n:
            continue
        if isinstance(p, cst.StarredElement):
            continue
        if isinstance(p, cst.Attribute) and p.attr.value in ("count", "index") and p.value is n:
            continue
        if isinstance(p, (cst.BinaryOperation, cst.Comparison, cst.ComparisonTarget, cst.Attribute, cst.AugAssign)):
            return False
        verdict = None
    return verdict


def _frozen_dataclass(ctx: Context, qual: str, shown: str) -> Edit | None:
    """``@dataclass class Config`` passed as a static argument -> ``@dataclass(frozen=True)``.

    A plain dataclass defines ``__eq__`` and so has no ``__hash__``; frozen, it hashes by its field values,
    which is what jit's cache then keys on (equal configs share one compilation). Only when the instance
    shown in the message holds hashable literals only, and no cell seen assigns attributes of its instances
    (frozen instances refuse that); review, since other code may still change an instance.
    """
    mod, _, name = qual.rpartition(".")
    if mod not in ("__main__", "builtins", "") or not name:
        return None
    try:
        shown_call = ast.parse(shown.strip(), mode="eval").body
    except SyntaxError:
        return None
    if not isinstance(shown_call, ast.Call) or shown_call.args or not all(
            kw.arg and _hashable_value(kw.value) for kw in shown_call.keywords):
        return None  # a field holding a list or an array would be unhashable again
    here, home = ctx, None
    classes = [c for c in ctx.nodes(cst.ClassDef) if c.name.value == name]  # type: ignore[attr-defined]
    obj = (ctx.namespace or {}).get(name)
    if not classes:
        home = defining_context(ctx, obj)
        if home is None:
            return None
        ctx = home
        classes = [c for c in ctx.nodes(cst.ClassDef) if c.name.value == name]  # type: ignore[attr-defined]
    if len(classes) != 1:
        return None
    cls = classes[0]
    assert isinstance(cls, cst.ClassDef)
    decos = [d for d in cls.decorators if refers_to(ctx, d.decorator.func if isinstance(d.decorator, cst.Call)
                                                    else d.decorator, "dataclasses.dataclass")]
    if len(decos) != 1 or (obj is not None and not hasattr(obj, "__dataclass_fields__")):
        return None
    deco = decos[0].decorator
    if isinstance(deco, cst.Call):
        if any(a.star or a.keyword is None or a.keyword.value in ("frozen", "eq", "unsafe_hash") for a in deco.args):
            return None
    if _mutates_instances(ctx, cls, obj) or (home is not None and _mutates_instances(here, cls, obj)):
        return None
    if any(m_ for m_ in cls.body.body if isinstance(m_, cst.FunctionDef) and m_.name.value in (
            "__setattr__", "__hash__", "__init__", "__post_init__")):  # they may assign attributes
        return None
    frozen = keyword_arg("frozen", cst.Name("True"))
    new = deco.with_changes(args=[*deco.args, frozen]) if isinstance(deco, cst.Call) else cst.Call(
        func=deco, args=[frozen])
    where = f" (in {home.label}, where `{name}` is defined)" if home is not None else ""
    return Edit(ctx.replace(deco, new), "review",
                f"`{name}` is now a frozen dataclass{where}, so it hashes by its fields and can be a static "
                "argument (equal values share one compilation); its instances can no longer be changed after "
                "creation: check that no code assigns their attributes.", where=home)


def _hashable_value(node: ast.expr) -> bool:
    """Whether a repr'd field value is a hashable literal (numbers, strings, None, booleans, tuples of them)."""
    try:
        v = ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError, RecursionError):
        return False
    try:
        hash(v)
    except TypeError:
        return False
    return True


# ---------------------------------------------------------------------------------------------- jit-method


@rule("jit-method")
def jit_method(ctx: Context) -> Edit | None:
    """``@jax.jit`` on a method -> ``@partial(jax.jit, static_argnums=0)`` (``self`` hashed by identity)."""
    qual = ctx.values.get("method", "")
    if qual.count(".") < 1 or "<locals>" in qual:
        return None
    cls_name, meth = qual.split(".")[-2:]
    home = None  # the earlier cell that defines the class, when it is not this one
    here = ctx
    classes = [c for c in ctx.nodes(cst.ClassDef) if c.name.value == cls_name]  # type: ignore[attr-defined]
    if not classes:
        home = defining_context(ctx, (ctx.namespace or {}).get(cls_name))
        if home is None:
            return None
        ctx = home
        classes = [c for c in ctx.nodes(cst.ClassDef) if c.name.value == cls_name]  # type: ignore[attr-defined]
    if len(classes) != 1:
        return None
    cls = classes[0]
    assert isinstance(cls, cst.ClassDef)
    fns = [s for s in cls.body.body if isinstance(s, cst.FunctionDef) and s.name.value == meth]
    if len(fns) != 1:
        return None
    fn = fns[0]
    obj = (ctx.namespace or {}).get(cls_name)
    unhashable = obj is not None and (getattr(obj, "__hash__", None) is None or hasattr(obj, "__dataclass_fields__"))
    dataclass_deco = any("dataclass" in dotted_name(d.decorator.func if isinstance(d.decorator, cst.Call)
                                                   else d.decorator) for d in cls.decorators)
    if unhashable or dataclass_deco or _mutates_instances(ctx, cls, obj) or (
            home is not None and _mutates_instances(here, cls, obj)):
        # a static self would fail to hash, or silently keep the old attribute values: make it a pytree
        return _pytree_self(ctx, here, cls, obj, meth, home)
    site = find_jit(ctx, fn)
    pos, _ = param_names(fn)
    if site is None or not pos:
        return None
    made = make_static(ctx, site, [pos[0]], prefer_nums=True)
    if made is None:
        return None
    old, new, imports = made
    where = f" (in {home.label}, where `{cls_name}` is defined)" if home is not None else ""
    return Edit(ctx.replace(old, new, imports=imports), "review",
                f"`{pos[0]}` is now a static argument of `{meth}`{where}: the object must stay hashable and is "
                f"compiled in as a constant, so later changes to its attributes are NOT seen (no retrace).",
                where=home)


def _mutates_instances(ctx: Context, cls: cst.ClassDef, obj: Any) -> bool:
    """Whether the cell changes attributes of the class's objects after ``__init__``."""
    for a in ctx.nodes(cst.AssignTarget) + ctx.nodes(cst.AugAssign) + ctx.nodes(cst.AnnAssign):
        t = a.target  # type: ignore[attr-defined]
        targets = [t] if not isinstance(t, (cst.Tuple, cst.List)) else [e.value for e in t.elements]
        for tt in targets:
            if not isinstance(tt, cst.Attribute) or not isinstance(tt.value, cst.Name):
                continue
            meth = ctx.enclosing(a, cst.FunctionDef)
            if meth is not None and _within(ctx, meth, cls):
                if meth.name.value != "__init__":  # type: ignore[attr-defined]
                    return True
                continue
            inst = (ctx.namespace or {}).get(tt.value.value)
            if meth is not None or obj is None or isinstance(inst, obj):
                return True
    return False


_SIZE_CALLS = {"range", "int", "float", "bool", "len"}


def _pytree_self(ctx: Context, here: Context, cls: cst.ClassDef, obj: Any, meth: str,
                 home: Context | None) -> Edit | None:
    """A class whose jitted method gets ``self`` -> a pytree class: its number and array attributes become
    the leaves (traced, so a later change to them is seen), its other attributes the static aux data
    (compared by value, so a change recompiles). ``tree_unflatten`` rebuilds with ``object.__new__``, never
    calling ``__init__``.

    Only when the live instances all have the same hashable-or-numeric attributes, the class has no base, no
    slots, no ``__setattr__`` and no flatten of its own, no method other than ``__init__`` assigns to
    ``self``, the cell never gives an instance an attribute it did not have, and no method uses a leaf in
    Python control flow or as a size. Review: the leaves are traced, so code that needs them concrete fails.
    """
    if not isinstance(obj, type) or cls.bases or obj.__mro__[1:] != (object,):
        return None
    if "__slots__" in vars(obj) or any(k in vars(obj) for k in ("__setattr__", "tree_flatten", "tree_unflatten",
                                                                  "__getattr__", "__getattribute__")):
        return None
    params = getattr(obj, "__dataclass_params__", None)
    if params is not None and params.frozen:
        return None
    instances = [v for v in (ctx.namespace or {}).values() if type(v) is obj]
    if not instances:
        return None
    names = list(vars(instances[0]))
    if not names or any(list(vars(i)) != names for i in instances) or not all(n.isidentifier() for n in names):
        return None
    leaves, aux = [], []
    for n in names:
        vals = [vars(i)[n] for i in instances]
        if all(_numeric_leaf(v) for v in vals):
            leaves.append(n)
        elif all(_static_value(v) for v in vals):
            aux.append(n)
        else:
            return None
    if not _attrs_safe(ctx, cls, set(leaves)) or not _outside_assigns_known(here, obj, set(names)) or (
            home is not None and not _outside_assigns_known(ctx, obj, set(names))):
        return None
    tu, imp = ctx.need("jax.tree_util", "tree_util")
    ind = "    "
    def tup(attrs: list[str], who: str) -> str:
        return "(" + ", ".join(f"{who}.{a}" for a in attrs) + ("," if len(attrs) == 1 else "") + ")"
    lines = ["def tree_flatten(self):",
             f"{ind}return {tup(leaves, 'self')}, {tup(aux, 'self')}",
             "",
             "@classmethod",
             "def tree_unflatten(cls, aux, children):",
             f"{ind}obj = object.__new__(cls)"]
    if leaves:
        lines.append(f"{ind}{tup(leaves, 'obj')} = children")
    if aux:
        lines.append(f"{ind}{tup(aux, 'obj')} = aux")
    lines.append(f"{ind}return obj")
    parsed = cst.parse_module("class _C:\n" + "".join(f"{ind}{ln}\n" if ln else "\n" for ln in lines))
    added = list(parsed.body[0].body.body)  # type: ignore[attr-defined]
    added[0] = added[0].with_changes(leading_lines=[cst.EmptyLine(indent=False)])
    deco = cst.Decorator(cst.parse_expression(f"{tu}.register_pytree_node_class"))
    new_cls = cls.with_changes(decorators=[deco, *cls.decorators],
                               body=cls.body.with_changes(body=[*cls.body.body, *added]))
    where = f" (in {home.label}, where `{cls.name.value}` is defined)" if home is not None else ""
    shown = ", ".join(f"`{a}`" for a in leaves) or "none"
    rest = (f"; the others ({', '.join(f'`{a}`' for a in aux)}) are static: a change to them recompiles"
            if aux else "")
    return Edit(ctx.replace(cls, new_cls, imports=[imp]), "review",
                f"`{cls.name.value}` is registered as a pytree{where}, so `{meth}` gets its attributes as "
                f"arguments: the number and array ones ({shown}) are traced, and a change to them is seen on "
                f"the next call{rest}. Check that `{meth}` needs none of the traced ones as a Python value.",
                where=home)


def _numeric_leaf(v: Any) -> bool:
    if isinstance(v, bool):
        return False
    if isinstance(v, (float, complex)):
        return True
    return hasattr(v, "shape") and hasattr(v, "dtype") and type(v).__module__.split(".")[0] in ("jax", "jaxlib",
                                                                                                   "numpy")


def _static_value(v: Any) -> bool:
    """A value fit for aux data: hashable and compared by value (numbers, strings, None, tuples of them)."""
    if v is None or isinstance(v, (bool, int, str)):
        return True
    return isinstance(v, tuple) and all(_static_value(e) for e in v)


def _attrs_safe(ctx: Context, cls: cst.ClassDef, leaves: set[str]) -> bool:
    """No method but ``__init__`` assigns to ``self``; no method reads a leaf in an ``if``/``while`` test or
    in a call that needs a Python value (``range``, ``int``...)."""
    for fn in cls.body.body:
        if not isinstance(fn, cst.FunctionDef) or not fn.params.params:
            continue
        me = fn.params.params[0].name.value
        for a in ctx.nodes(cst.Attribute):
            if not (isinstance(a.value, cst.Name) and a.value.value == me and _within(ctx, a, fn)):  # type: ignore[attr-defined]
                continue
            if fn.name.value != "__init__" and _assigned(ctx, a):
                return False
            if a.attr.value not in leaves:  # type: ignore[attr-defined]
                continue
            for anc in ctx.ancestors(a):
                if anc is fn:
                    break
                if isinstance(anc, (cst.If, cst.While, cst.IfExp, cst.Assert)) and _within(
                        ctx, a, anc.test):  # type: ignore[attr-defined]
                    return False
                if isinstance(anc, cst.Call) and isinstance(anc.func, cst.Name) and anc.func.value in _SIZE_CALLS:
                    return False
    return True


def _outside_assigns_known(ctx: Context, obj: type, names: set[str]) -> bool:
    """Every attribute the cell assigns on an instance from outside the class is one the instances have."""
    for a in ctx.nodes(cst.Attribute):
        if not isinstance(a.value, cst.Name) or ctx.enclosing(a, cst.ClassDef) is not None:  # type: ignore[attr-defined]
            continue
        if not _assigned(ctx, a):
            continue
        if type((ctx.namespace or {}).get(a.value.value)) is obj and a.attr.value not in names:  # type: ignore[attr-defined]
            return False
    return True


def _assigned(ctx: Context, a: cst.Attribute) -> bool:
    """Whether the attribute is a target of an assignment (``o.x = ``, ``o.x += ``, ``o.x, o.y = ``)."""
    par = ctx.parent(a)
    if isinstance(par, cst.Element) and isinstance(ctx.parent(par), (cst.Tuple, cst.List)):
        par = ctx.parent(ctx.parent(par))
    return isinstance(par, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign)) and (
        not isinstance(par, (cst.AugAssign, cst.AnnAssign)) or par.target is a or isinstance(par.target, cst.Tuple))
