"""The rewrite rules, one small function per error kind, registered by name.

A rule takes a :class:`~jaxerrs.rewrite.context.Context` and returns an
:class:`~jaxerrs.rewrite.Edit`, or None when it cannot be sure (the failing expression is not
found, several candidates, aliasing). Records name their rules in their ``rewrite`` field.
Every module in this package and its subpackages (one per family of rules) is imported, so a new
rule is one new file.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from jaxerrs.rewrite import Edit
    from jaxerrs.rewrite.context import Context

Rule = Callable[["Context"], "Edit | None"]
RULES: dict[str, Rule] = {}


@dataclass
class Found:
    """What a rule family's detection finds: every instance of one cause in one scope.

    ``key`` names the cause without positions (the array and its scope, the jitted function), so the
    same detection can be run on the edited cell; ``fixable`` are the instances the rule knows how to
    fix (nodes of the context's tree), ``unfixable`` the ones it does not: then it offers nothing.
    """

    key: Hashable
    fixable: list[Any] = field(default_factory=list)
    unfixable: list[Any] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.fixable or self.unfixable)


# detect(ctx, key): with key None, the cause on the failing line (None when there is none); with a key,
# what is left of that cause in ``ctx``'s cell (an empty or None result: nothing left).
Detect = Callable[["Context", "Hashable | None"], "Found | None"]
DETECTORS: dict[str, Detect] = {}
# siblings(ctx): the keys (for the rule's detection) of the other causes of the same kind in the cell that
# provably raise the same error when reached (another array of the same scope, the same list passed again):
# fixed with the failing one, or the cell would fail again on the next of them.
Siblings = Callable[["Context"], "list[Hashable]"]
SIBLINGS: dict[str, Siblings] = {}


def rule(name: str, detect: Detect | None = None, siblings: Siblings | None = None) -> Callable[[Rule], Rule]:
    """Register a rule under ``name`` (the value a record's ``rewrite`` field uses).

    ``detect`` is the family's detection (see :class:`Found`): the rule builds its edit from it, and
    :func:`jaxerrs.rewrite.apply_rules` runs it again on the edited cell; an edit after which the same
    cause is still found is not offered. ``siblings`` (needs ``detect``) names the cell's other instances
    of the same error, which :func:`jaxerrs.rewrite.apply_rules` fixes too (or offers nothing).
    """
    if siblings is not None and detect is None:
        raise ValueError(f"rewrite rule {name!r}: siblings need a detection to find them again")

    def register(fn: Rule) -> Rule:
        if name in RULES:
            raise ValueError(f"rewrite rule {name!r} is registered twice")
        RULES[name] = fn
        if detect is not None:
            DETECTORS[name] = detect
        if siblings is not None:
            SIBLINGS[name] = siblings
        return fn

    return register


def fix_each(ctx: Context, detect: Detect, fix_one: Rule, limit: int = 8) -> Edit | None:
    """Fix every instance of the cause on the failing line, one at a time, with a rule that fixes the
    instance on its context's line: after each edit the cell is parsed again and detected again.

    None as soon as an instance is unfixable or the one-instance rule declines it. The safety is the
    weakest of the steps; the summary is the first step's (with how many places changed).
    """
    from jaxerrs.rewrite import Edit

    first = detect(ctx, None)
    if not first or first.unfixable:
        return None
    key = first.key
    cur, edits = ctx, []
    for _ in range(limit):
        found = detect(cur, key) if edits else first
        if not found:
            break
        if found.unfixable:
            return None
        node = found.fixable[0]
        edit = fix_one(cur.derive(cur.source, line=cur.span(node)[0]))
        if edit is None:
            return None
        edits.append(edit)
        cur = cur.derive(cur.restore(edit.source))
        if cur.module is None:
            return None
    else:
        return None
    if not edits:
        return None
    safety = "review" if any(e.safety == "review" for e in edits) else "safe"
    summary = edits[0].summary
    if len(edits) > 1:
        summary = f"{summary.rstrip('.')} (in {len(edits)} places)."
    return Edit(edits[-1].source, safety, summary, cause=key)


for _info in pkgutil.walk_packages(__path__, prefix=f"{__name__}."):
    importlib.import_module(_info.name)
