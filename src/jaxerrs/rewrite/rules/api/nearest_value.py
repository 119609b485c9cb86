"""A misspelled option string (``mode="reflekt"``, ``precision="higest"``) -> the accepted value nearest to it.

The values a JAX function accepts come from the error itself: the literal collection the failing check
tests (the ``check`` of "Why it was raised": ``mode not in allowed_kwargs``), or a list of strings the
message spells out (``precision`` must be one of ``['highest', …]``). When exactly one accepted value is
a typo away from the given string (its case aside: at most one edit per eight letters, one at least,
where an edit inserts, deletes, replaces or swaps two neighbouring letters), every string literal of the
cell that spells the given value becomes that value. Always ``review``: the nearest spelling is a guess
at what the user meant, and the summary says which value it picked.

Stricter than the panel's "did you mean" (difflib's ratio), which may list ``reflect`` for PyTorch's
``replicate``: a similar-looking name of another meaning is a hint to read, never a rewrite.

Declined: no literal of the cell spells the value (it comes from a config, an argument, a computation),
no accepted value is a typo away, two are, or the value is not a string.
"""

from __future__ import annotations

import ast

import libcst as cst

from jaxerrs.rewrite import Edit
from jaxerrs.rewrite.context import Context
from jaxerrs.rewrite.rules import rule

LETTERS_PER_EDIT = 8  # a value of n letters may be 1 + n // 8 edits from the given one
MAX_LITERALS = 8


def _plain(text: str) -> str | None:
    """A string from its repr (``'reflect'``) or as the message spells it; None when it is no string."""
    try:
        v = ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return text if text and text.strip() == text and "\n" not in text else None
    return v if isinstance(v, str) else None


def _strings(text: str) -> list[str]:
    """The strings of a list or tuple literal the message spells (``['highest', 'float32', None]``)."""
    try:
        v = ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return []
    return [x for x in v if isinstance(x, str)] if isinstance(v, (list, tuple, set, frozenset)) else []


def _candidates(ctx: Context) -> list[tuple[str, list[str]]]:
    """(given value, accepted values) pairs the error offers: the check's, then the message's."""
    out = []
    chk = ctx.check or {}
    accepted = [a for a in (_plain(x) for x in chk.get("accepted") or []) if a is not None]
    if accepted:
        for v in (chk.get("values") or {}).values():
            given = _plain(v)
            if given is not None and given not in accepted:
                out.append((given, accepted))
    lists = [s for s in (_strings(v) for v in ctx.values.values()) if len(s) >= 2]
    for accepted in lists:
        for v in ctx.values.values():
            given = _plain(v)
            if given is not None and given not in accepted and not _strings(v):
                out.append((given, accepted))
    return out


def _edits(a: str, b: str) -> int:
    """Optimal string alignment distance: insertions, deletions, replacements, adjacent swaps."""
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1]))
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
        prev2, prev = prev, cur
    return prev[-1]


def _nearest(given: str, accepted: list[str]) -> str | None:
    """The one accepted value a typo away from ``given``; None when none is, or two are equally near."""
    near = sorted((d, a) for a in set(accepted)
                  if (d := _edits(given.lower(), a.lower())) <= 1 + len(a) // LETTERS_PER_EDIT)
    if not near or (len(near) > 1 and near[1][0] == near[0][0]):
        return None
    return near[0][1]


@rule("nearest-accepted-value")
def nearest_accepted_value(ctx: Context) -> Edit | None:
    if ctx.module is None:
        return None
    for given, accepted in _candidates(ctx):
        best = _nearest(given, accepted)
        if best is None:
            continue
        spots = [n for n in ctx.nodes(cst.SimpleString) if _literal(n) == given]
        if not spots or len(spots) > MAX_LITERALS:
            continue
        new = ctx.module.visit(_Respell(set(map(id, spots)), best))
        where = "1 place" if len(spots) == 1 else f"{len(spots)} places"
        return Edit(new.code, "review",
                    f"Changes the string {given!r} to {best!r} ({where}), the accepted value nearest to it; "
                    "check it is the one you meant.")
    return None


def _literal(node: cst.SimpleString) -> str | None:
    v = node.evaluated_value
    return v if isinstance(v, str) else None


class _Respell(cst.CSTTransformer):
    def __init__(self, ids: set[int], value: str) -> None:
        super().__init__()
        self.ids, self.value = ids, value

    def leave_SimpleString(self, original: cst.SimpleString, updated: cst.SimpleString) -> cst.BaseExpression:
        if id(original) not in self.ids:
            return updated
        prefix = original.prefix.replace("b", "").replace("B", "")
        quote = original.quote
        body = self.value.replace("\\", "\\\\").replace(quote[0], "\\" + quote[0]) if len(quote) == 1 else self.value
        return updated.with_changes(value=f"{prefix}{quote}{body}{quote}")
