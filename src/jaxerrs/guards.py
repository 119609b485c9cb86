"""The check that guarded a raise, read from the source with ``ast``: as code, and as one sentence.

For a raise inside ``if cond:`` the check is ``cond``; inside an ``else`` (or after ``elif``s) it is the
negation of every test above it; inside ``except KeyError:`` after ``table[key]`` it is "``key`` is not a
key of ``table``"; other ``except`` clauses say what raised. The names the check reads (``mode``,
``operand.shape``) are kept so the values can be read from the live frame, and a membership test in a
literal collection (a tuple, a set, a dict's keys, here or bound to a name in the function or the module)
keeps the accepted values, for "did you mean". Computed once per raise when the catalog is built.

The code is the test as written in the source (its whitespace folded onto one line), so that it reads and
searches like the file; ``ast.unparse`` is the fallback where no source text is at hand.
"""

from __future__ import annotations

import ast
import io
import re
from collections.abc import Callable
from dataclasses import dataclass

Text = Callable[[ast.AST], str]

MAX_CODE = 200
MAX_ACCEPTED = 60


@dataclass(frozen=True)
class Guard:
    code: str  # the test as written, negated where the raise is in its else
    words: str  # the same, in plain words
    names: tuple[str, ...] = ()  # names and attribute chains the test reads, to look up in the raising frame
    accepted: tuple[str, ...] = ()  # reprs of the values a membership test accepts (a literal collection)
    subject: str = ""  # what is tested for membership or looked up ("mode")
    table: str = ""  # the collection it is looked up in, by name ("allowed_kwargs"), to read live

    def to_list(self) -> list[object]:
        return [self.code, self.words, list(self.names), list(self.accepted), self.subject, self.table]

    @classmethod
    def from_list(cls, row: list[object]) -> Guard:
        code, words, names, accepted, subject, table = row
        return cls(str(code), str(words), tuple(names), tuple(accepted), str(subject), str(table))  # type: ignore[arg-type]


# ---------------------------------------------------------------------------- words

_CMP = {ast.Eq: ("equals", "does not equal"), ast.NotEq: ("differs from", "equals"),
        ast.Lt: ("is less than", "is not less than"), ast.LtE: ("is at most", "is not at most"),
        ast.Gt: ("is greater than", "is not greater than"), ast.GtE: ("is at least", "is not at least"),
        ast.In: ("is one of", "is not one of"), ast.NotIn: ("is not one of", "is one of"),
        ast.Is: ("is", "is not"), ast.IsNot: ("is not", "is")}


def _c(node: ast.AST) -> str:
    text = ast.unparse(node)
    return f"`{text if len(text) <= 80 else text[:77] + '...'}`"


def words(node: ast.AST, negate: bool = False) -> str:
    """``node`` (a test) in plain words; ``negate``: the words for its being false."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return words(node.operand, not negate)
    if isinstance(node, ast.BoolOp):
        # De Morgan: not (a and b) is (not a) or (not b)
        joiner = " and " if isinstance(node.op, ast.And) != negate else " or "
        return joiner.join(words(v, negate) for v in node.values)
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        op, right = node.ops[0], node.comparators[0]
        yes, no = _CMP.get(type(op), ("compares to", "does not compare to"))
        if isinstance(right, ast.Constant) and right.value is None and isinstance(op, (ast.Is, ast.IsNot)):
            none = isinstance(op, ast.Is) != negate
            return f"{_c(node.left)} is {'None' if none else 'not None'}"
        return f"{_c(node.left)} {no if negate else yes} {_c(right)}"
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and len(node.args) == 2:
        if node.func.id in ("isinstance", "issubclass"):
            kind = "a" if node.func.id == "isinstance" else "a subclass of"
            return f"{_c(node.args[0])} is {'not ' if negate else ''}{kind} {_c(node.args[1])}"
        if node.func.id == "hasattr":
            return f"{_c(node.args[0])} {'has no' if negate else 'has an'} attribute {_c(node.args[1])}"
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("all", "any"):
        return f"{_c(node)} is {'false' if negate else 'true'}"
    if isinstance(node, (ast.Name, ast.Attribute)):
        return f"{_c(node)} is {'false (or empty)' if negate else 'true (not empty)'}"
    return f"{_c(node)} is {'false' if negate else 'true'}"


def source_text(source: str | bytes) -> Text:
    """``node`` -> its code as written in ``source``, folded onto one line (``ast.unparse`` where the segment
    cannot be read, or holds a comment that folding would swallow)."""
    text = source.decode("utf-8", "replace") if isinstance(source, bytes) else source
    segment = _segments(text)

    def of(node: ast.AST) -> str:
        try:
            seg = segment(node)
        except (TypeError, ValueError, IndexError, UnicodeDecodeError):
            seg = None
        if not seg or ("\n" in seg and "#" in seg):
            return ast.unparse(node)
        seg = " ".join(seg.split())
        return re.sub(r"\s+([)\]}])", r"\1", re.sub(r"([(\[{])\s+", r"\1", seg))

    return of


def _segments(text: str) -> Callable[[ast.AST], str | None]:
    """``ast.get_source_segment(text, node)``, with the file split into lines once instead of on every call
    (that split made indexing JAX's source take minutes). Lines break at ``\\n``, ``\\r`` and ``\\r\\n`` only,
    as in ``ast``, and column offsets count UTF-8 bytes."""
    lines = io.StringIO(text, newline="").readlines()

    def segment(node: ast.AST) -> str | None:
        end_line, end_col = getattr(node, "end_lineno", None), getattr(node, "end_col_offset", None)
        if end_line is None or end_col is None:
            return None
        first, last, col = node.lineno - 1, end_line - 1, node.col_offset  # type: ignore[attr-defined]
        if first == last:
            return lines[first].encode()[col:end_col].decode()
        head = lines[first].encode()[col:].decode()
        tail = lines[last].encode()[:end_col].decode()
        return head + "".join(lines[first + 1:last]) + tail

    return segment


_FLIP = {ast.In: "not in", ast.NotIn: "in", ast.Is: "is not", ast.IsNot: "is", ast.Eq: "!=", ast.NotEq: "=="}


def _negated_code(node: ast.AST, text: Text = ast.unparse) -> str:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return text(node.operand)
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _FLIP:
        return f"{text(node.left)} {_FLIP[type(node.ops[0])]} {text(node.comparators[0])}"
    if isinstance(node, (ast.Call, ast.Name, ast.Attribute, ast.Subscript)):
        return f"not {text(node)}"
    return f"not ({text(node)})"


def _cap(code: str) -> str:
    return code if len(code) <= MAX_CODE else code[:MAX_CODE - 3] + "..."


# ---------------------------------------------------------------------------- names and literals

def read_names(node: ast.AST) -> tuple[str, ...]:
    """Names and attribute chains (``x``, ``operand.shape``) a test reads, in order, without duplicates."""
    out: list[str] = []

    def chain(n: ast.AST) -> str | None:
        if isinstance(n, ast.Name):
            return n.id
        if isinstance(n, ast.Attribute):
            base = chain(n.value)
            return f"{base}.{n.attr}" if base else None
        return None

    def visit(n: ast.AST) -> None:
        if isinstance(n, (ast.Name, ast.Attribute)):
            c = chain(n)
            if c is not None:
                if c.split(".")[0] not in _BUILTIN_NAMES and c not in out:
                    out.append(c)
                return
        if isinstance(n, ast.Call):  # the function called is not a value of interest; its arguments are
            for a in [*n.args, *(k.value for k in n.keywords)]:
                visit(a)
            return
        for child in ast.iter_child_nodes(n):
            visit(child)

    visit(node)
    return tuple(out[:8])


_BUILTIN_NAMES = {"len", "isinstance", "issubclass", "hasattr", "int", "float", "str", "bool", "tuple", "list",
                  "dict", "set", "type", "None", "True", "False", "np", "jnp", "dtypes", "core", "config"}


def literal_values(node: ast.AST | None, bindings: dict[str, ast.AST]) -> tuple[str, ...]:
    """Reprs of the values in a literal collection (tuple, list, set, frozenset/set/tuple call, dict keys,
    ``.keys()``), following a name bound to one in ``bindings``; () when it is not literal."""
    for _ in range(3):
        if isinstance(node, (ast.Name, ast.Attribute)) and (bound := bindings.get(ast.unparse(node))) is not None:
            node = bound
        elif isinstance(node, ast.Call) and not node.keywords and len(node.args) == 1 and (
                isinstance(node.func, ast.Name) and node.func.id in ("set", "frozenset", "tuple", "list")):
            node = node.args[0]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "keys" \
                and not node.args:
            node = node.func.value
        else:
            break
    if isinstance(node, ast.Dict):
        items = [k for k in node.keys if k is not None]
    elif isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        items = list(node.elts)
    else:
        return ()
    if not items or not all(isinstance(k, ast.Constant) for k in items):
        return ()
    return tuple(repr(k.value) for k in items[:MAX_ACCEPTED])  # type: ignore[attr-defined]


# ---------------------------------------------------------------------------- the guard of one raise

def guard_of(chain: list[ast.AST], bindings: dict[str, ast.AST], text: Text = ast.unparse) -> Guard | None:
    """The check guarding the raise at the end of ``chain`` (the raise's ancestors, outermost first, then the
    raise); ``bindings``: literal values bound to names in its function and module; ``text``: a node's code
    (``source_text`` of the module, for the test as written).

    Besides the ``if`` (or ``except``) around it, a raise after ``if test: return`` statements in its block
    (JAX's ``if mode == 'a': return …`` … ``raise ValueError(mode)``) is guarded by none of them holding."""
    loop = ""
    early = _early_exits(chain)
    for i in range(len(chain) - 2, -1, -1):
        node, child = chain[i], chain[i + 1]
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.Module)):
            break
        if isinstance(node, (ast.For, ast.AsyncFor)) and child in node.body and not loop:
            loop = f" (for {_c(node.target)} in {_c(node.iter)})"
        if isinstance(node, ast.If):
            if child in node.body:
                conds = [(node.test, False)]
            elif child in node.orelse:
                conds = [(t, True) for t in _else_tests(chain[: i + 1])]
            else:
                continue
            return _from_tests(conds + [(t, True) for t in early], bindings, loop, text)
        if isinstance(node, ast.ExceptHandler):
            try_node = chain[i - 1] if i > 0 else None
            if isinstance(try_node, (ast.Try, getattr(ast, "TryStar", ast.Try))):
                return _from_handler(try_node, node, bindings, loop, text)
            return None
    if early:
        return _from_tests([(t, True) for t in early], bindings, loop, text)
    return None


def _early_exits(chain: list[ast.AST]) -> list[ast.AST]:
    """Tests of the ``if … return`` (or ``continue``) statements before the raise in its own block, with the
    ``elif``s of a chain whose every branch returns."""
    if len(chain) < 2:
        return []
    parent, raise_node = chain[-2], chain[-1]
    block = next((b for b in (getattr(parent, f, None) for f in ("body", "orelse", "finalbody"))
                  if isinstance(b, list) and raise_node in b), None)
    if block is None:
        return []
    tests: list[ast.AST] = []
    for stmt in block[: block.index(raise_node)]:
        while isinstance(stmt, ast.If) and _exits(stmt.body):
            tests.append(stmt.test)
            if len(stmt.orelse) == 1 and isinstance(stmt.orelse[0], ast.If):
                stmt = stmt.orelse[0]
            else:
                break
    return tests[-8:]


def _exits(body: list[ast.stmt]) -> bool:
    return bool(body) and isinstance(body[-1], (ast.Return, ast.Continue))


def _else_tests(chain: list[ast.AST]) -> list[ast.AST]:
    """The tests an ``else`` negates: the ``if`` at the end of ``chain`` and the ``elif``s that lead to it."""
    tests = [chain[-1].test]  # type: ignore[attr-defined]
    j = len(chain) - 1
    while j > 0 and isinstance(chain[j - 1], ast.If) and chain[j - 1].orelse == [chain[j]]:  # an elif
        tests.insert(0, chain[j - 1].test)  # type: ignore[attr-defined]
        j -= 1
    return tests


def _exclusion(test: ast.AST, neg: bool, bindings: dict[str, ast.AST]) -> tuple[str, tuple[str, ...], str] | None:
    """(subject, values, table) when the raise firing means ``subject`` is none of ``values``: a failed
    membership test, or a failed ``subject == constant``."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test, neg = test.operand, not neg
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) != neg:
        # the raise means every part held (`a and b` true, or `a or b` false): the first exclusion among them
        return next((ex for v in test.values if (ex := _exclusion(v, neg, bindings)) is not None), None)
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return None
    op, right = test.ops[0], test.comparators[0]
    if isinstance(op, (ast.In, ast.NotIn)) and isinstance(op, ast.NotIn) != neg:
        base = right.func.value if isinstance(right, ast.Call) and isinstance(right.func, ast.Attribute) else right
        table = ast.unparse(base) if isinstance(base, (ast.Name, ast.Attribute)) else ""
        return ast.unparse(test.left), literal_values(right, bindings), table
    if isinstance(op, (ast.Eq, ast.NotEq)) and isinstance(op, ast.NotEq) != neg and isinstance(right, ast.Constant):
        return ast.unparse(test.left), (repr(right.value),), ""
    return None


def _from_membership(subject: str, conds: list[tuple[ast.AST, bool]]) -> bool:
    return any(isinstance(t, ast.Compare) and isinstance(t.ops[0], (ast.In, ast.NotIn)) and ast.unparse(t.left) == subject
               for t, _n in conds)


def _from_tests(conds: list[tuple[ast.AST, bool]], bindings: dict[str, ast.AST], loop: str,
                text: Text = ast.unparse) -> Guard:
    parts = [_negated_code(t, text) if n else text(t) for t, n in conds]
    code = parts[0] if len(parts) == 1 else " and ".join(f"({p})" for p in parts)
    said = "; and ".join(words(t, n) for t, n in conds)
    names: list[str] = []
    for t, _n in conds:
        names += [x for x in read_names(t) if x not in names]
    by_subject: dict[str, tuple[list[str], list[str]]] = {}
    for t, n in conds:
        ex = _exclusion(t, n, bindings)
        if ex is not None:
            values, tables = by_subject.setdefault(ex[0], ([], []))
            values += [v for v in ex[1] if v not in values]
            if ex[2]:
                tables.append(ex[2])
    # one `x != 2` is a comparison, not a set of accepted values; two or more (`n != 'a'`, `n != 'b'`) are
    by_subject = {k: v for k, v in by_subject.items() if v[1] or len(v[0]) >= 2 or _from_membership(k, conds)}
    subject = table = ""
    accepted: tuple[str, ...] = ()
    if by_subject:
        subject = max(by_subject, key=lambda k: (len(by_subject[k][0]), len(by_subject[k][1])))
        values, tables = by_subject[subject]
        accepted = tuple(values[:MAX_ACCEPTED])
        table = tables[0] if len(tables) == 1 else ""
    return Guard(_cap(code), said + loop, tuple(names[:8]), accepted, subject, table)


def _from_handler(try_node: ast.AST, handler: ast.ExceptHandler, bindings: dict[str, ast.AST],
                  loop: str, text: Text = ast.unparse) -> Guard | None:
    caught = ast.unparse(handler.type) if handler.type is not None else "an exception"
    body = getattr(try_node, "body", [])
    if not body:
        return None
    subs = [n for stmt in body for n in ast.walk(stmt) if isinstance(n, ast.Subscript)]
    if "KeyError" in caught and subs:
        sub = subs[-1]
        key, table = ast.unparse(sub.slice), ast.unparse(sub.value)
        code = f"{text(sub.slice)} not in {text(sub.value)}"
        return Guard(_cap(code), f"{_c(sub.slice)} is not a key of {_c(sub.value)}{loop}",
                     tuple(dict.fromkeys([*read_names(sub.slice), *read_names(sub.value)]))[:8],
                     literal_values(sub.value, bindings), key, table if isinstance(sub.value, (ast.Name, ast.Attribute)) else "")
    stmt = body[-1] if len(body) == 1 else body[0]
    head = stmt
    compound = isinstance(stmt, (ast.For, ast.While, ast.With, ast.If))
    if compound:  # its header line, not its whole body
        head = getattr(stmt, "iter", None) or getattr(stmt, "test", None) or stmt
    code = ast.unparse(stmt).splitlines()[0] if compound else text(stmt)
    return Guard(_cap(f"{code}  # raised {caught}"), f"{_c(head) if head is not stmt else '`' + code + '`'} raised "
                 f"{caught}{loop}", read_names(head))


def literal_bindings(body: list[ast.stmt]) -> dict[str, ast.AST]:
    """Names bound once, at this level of ``body``, to a literal collection (a module's constants)."""
    out: dict[str, ast.AST] = {}
    for stmt in body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            value = stmt.value
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
            value = stmt.value
        else:
            continue
        if isinstance(value, (ast.Tuple, ast.List, ast.Set, ast.Dict, ast.Call)):
            name = stmt.targets[0].id if isinstance(stmt, ast.Assign) else stmt.target.id  # type: ignore[union-attr]
            out[name] = value
    return out
