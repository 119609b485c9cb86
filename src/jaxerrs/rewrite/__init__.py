"""Fix my cell: rewrite the user's own failing cell for the matched error, with LibCST.

A rule (one per error kind, named by the record's ``rewrite`` field) gets a :class:`Context`
(the cell, the failing line, the values the message carries, the live exception and the
namespace where there is one) and returns an :class:`Edit` or ``None`` when it is not sure.
Nothing here runs the user's code. LibCST is imported only when a rewrite is asked for.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import PureWindowsPath
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from jaxerrs.diagnosis import Diagnosis
    from jaxerrs.rewrite.context import Context

SAFETIES = ("safe", "review")
MAX_CELL_CHARS = 200_000


@dataclass(frozen=True)
class Edit:
    """What a rule proposes: the whole new source, its safety label and one line on what changed."""

    source: str
    safety: str
    summary: str
    cause: Any = None  # the key of the cause it fixes, for rules with a detection (see rules.Found)
    where: Any = None  # the Context of another (earlier) cell the edit is of, when the fix lives there


@dataclass(frozen=True)
class Rewrite:
    """The user's cell, fixed. ``to_dict`` is the JSON contract's ``rewrite`` object."""

    cell: str
    diff: str
    safety: str  # "safe" | "review"
    summary: str
    rule: str
    label: str = ""  # where the source came from: "Cell In[3]", "train.py"
    ran: str = ""  # the cell that ran, when ``label`` is another (earlier) cell that defines the failing code

    @property
    def where(self) -> str:
        """Which cell this fixes, in words: "Cell In[3]", or when the code to fix is defined in an earlier cell
        than the one that ran, "Cell In[3] — an earlier cell: the code to fix is defined there, Cell In[5] ran it"."""
        if not self.ran:
            return self.label
        return f"{self.label} — an earlier cell: the code to fix is defined there, {self.ran} ran it"

    def to_dict(self) -> dict[str, Any]:
        return {"cell": self.cell, "diff": self.diff, "safety": self.safety, "summary": self.summary,
                "rule": self.rule}

    def insertable(self) -> str:
        """The fixed cell with a first comment line naming its source (and, for review, what to check)."""
        head = f"# jaxerrs: {self.label or 'your cell'}, fixed ({self.rule}, {self.safety})"
        lines = [head]
        if self.ran:
            lines.append(f"# the code to fix is defined in this earlier cell, not in {self.ran} that ran: "
                         f"run this in place of {self.label}, then {self.ran} again")
        if self.safety == "review":
            lines.append(f"# review: {self.summary}")
        return "\n".join(lines) + "\n" + self.cell


def unified_diff(before: str, after: str, label: str = "cell") -> str:
    a = before.splitlines(keepends=True)
    b = after.splitlines(keepends=True)
    if a and not a[-1].endswith("\n"):
        a[-1] += "\n"
    if b and not b[-1].endswith("\n"):
        b[-1] += "\n"
    return "".join(difflib.unified_diff(a, b, *diff_names(label), n=2))


def diff_names(label: str) -> tuple[str, str]:
    """The diff's file names: ``a/``, ``b/`` before a relative path or a cell ("a/train.py",
    "a/Cell In[3]", as git writes them); an absolute path as it is on both sides, as ``diff -u`` writes it
    (``patch`` then finds the file from anywhere)."""
    label = label or "cell"
    if label.startswith("/") or PureWindowsPath(label).is_absolute():
        return label, label
    label = label.removeprefix("./")
    return f"a/{label}", f"b/{label}"


def rewrite_for(diagnosis: Diagnosis, source: str | None = None, line: int | None = None,
                exc: BaseException | None = None) -> Rewrite | None:
    """The rewrite of the user's cell for ``diagnosis``, or None (no rule, no source, or no sure fix).

    ``source``/``line`` default to the source of the user's frame (a cell through linecache) and its line.
    """
    rec = diagnosis.record
    if rec is None or not rec.rewrite:
        return None
    from jaxerrs.rewrite.context import build_context

    ctx = build_context(diagnosis, source, line, exc)
    if ctx is None:
        return None
    return apply_rules(ctx, rec.rewrite)


def apply_rules(ctx: Context, names: list[str]) -> Rewrite | None:
    """The first rule of ``names`` that proposes a valid edit.

    Post-condition for rules that declare a detection (``@rule(name, detect=...)``): the detection run on
    the edited cell must find nothing left of the cause the edit fixed, else the edit is not offered (a
    cell fixed on one line and failing again on the next is no fix). An edit may be of another cell than
    the context's (``Edit.where``: the earlier cell that defines a branch, a body, a vmapped function): the
    rewrite is then of that cell, and says so.
    """
    from jaxerrs.rewrite.rules import DETECTORS, RULES, SIBLINGS

    if ctx.module is None:  # the cell is not Python LibCST can parse
        return None
    for name in names:
        rule = RULES.get(name)
        if rule is None:
            continue
        try:
            edit = rule(ctx)
        except Exception:  # noqa: BLE001 - a rule that breaks offers nothing; the panel stays
            edit = None
        if edit is None or edit.safety not in SAFETIES:
            continue
        base = edit.where if edit.where is not None else ctx  # the cell the edit is of
        fixed = base.restore(edit.source)
        if fixed.strip() == base.source.strip() or not _compiles(edit.source):
            continue
        detect = DETECTORS.get(name)
        if detect is not None and not _cause_gone(base, detect, edit, fixed):
            continue
        if name in SIBLINGS:
            got = _with_siblings(base, rule, detect, SIBLINGS[name], edit, fixed)
            if got is None:
                continue
            edit, fixed = got
        return Rewrite(fixed, unified_diff(base.source, fixed, base.label or "cell"), edit.safety,
                       edit.summary, name, base.label, base.ran)
    return None


def _cause_gone(ctx: Context, detect: Any, edit: Edit, fixed: str) -> bool:
    """Whether the rule's own detection finds nothing of the edit's cause left in the edited cell."""
    try:
        key = edit.cause
        if key is None:
            found = detect(ctx, None)
            if found is None:
                return True  # the detection does not see this case: nothing to check it against
            key = found.key
        after = ctx.derive(fixed)
        if after.module is None:
            return False
        return not detect(after, key)
    except Exception:  # noqa: BLE001 - a detection that breaks cannot vouch for the edit
        return False


def _with_siblings(ctx: Context, rule: Any, detect: Any, siblings: Any, edit: Edit, fixed: str,
                   limit: int = 8) -> tuple[Edit, str] | None:
    """The edit extended to the cell's other instances of the same error (``rules.SIBLINGS``), each fixed by
    the same rule at its own line; None when one of them cannot be fixed (the cell would fail on it next).
    The safety is the weakest of the edits."""
    try:
        keys = [k for k in siblings(ctx) if k != edit.cause]
    except Exception:  # noqa: BLE001 - siblings that cannot be read are not proven: the edit stands alone
        return edit, fixed
    edits, at = [edit], []
    cur = ctx.derive(fixed)
    for key in keys:
        for _ in range(limit):
            found = detect(cur, key) if cur.module is not None else None
            if not found:
                break
            if found.unfixable or not found.fixable:
                return None
            line = cur.span(found.fixable[0])[0]
            try:
                more = rule(cur.derive(cur.source, line=line))
            except Exception:  # noqa: BLE001
                more = None
            if more is None or more.safety not in SAFETIES or more.where is not None:
                return None
            at.append(cur.source.splitlines()[line - 1].strip())
            cur = cur.derive(cur.restore(more.source))
            edits.append(more)
        else:
            return None
    if len(edits) == 1:
        return edit, fixed
    if not _compiles(cur.source):
        return None
    safety = "review" if any(e.safety == "review" for e in edits) else "safe"
    notes = [e.summary for e in edits if e.safety == "review"]
    where = ", ".join(f"`{t[:60]}`" for t in at[:3]) + (" ..." if len(at) > 3 else "")
    summary = edit.summary.rstrip(".") + f"; the same fix at {where}, which would fail the same way next"
    summary += f" ({notes[0].rstrip('.')})." if notes and edit.safety != "review" else "."
    return Edit(cur.source, safety, summary, cause=edit.cause, where=edit.where), cur.source


def _compiles(source: str) -> bool:
    try:
        compile(source, "<jaxerrs-rewrite>", "exec", dont_inherit=True)
        return True
    except (SyntaxError, ValueError):
        return False
