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
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from jaxerrs.rewrite import Edit
    from jaxerrs.rewrite.context import Context

Rule = Callable[["Context"], "Edit | None"]
RULES: dict[str, Rule] = {}


def rule(name: str) -> Callable[[Rule], Rule]:
    """Register a rule under ``name`` (the value a record's ``rewrite`` field uses)."""

    def register(fn: Rule) -> Rule:
        if name in RULES:
            raise ValueError(f"rewrite rule {name!r} is registered twice")
        RULES[name] = fn
        return fn

    return register


for _info in pkgutil.walk_packages(__path__, prefix=f"{__name__}."):
    importlib.import_module(_info.name)
