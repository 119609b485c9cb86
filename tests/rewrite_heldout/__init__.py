"""A held-out set for "fix my cell": failing cells written blind to the rewriting code.

Same shape as ``tests/rewrite_cases`` (see its ``__init__``), plus two fields:

- ``alt_fixes``: correct fixes of the cell, each written another way (``.at[].set`` vs ``.at[].add``,
  ``static_argnums`` vs ``static_argnames``, ``jnp.where`` vs ``lax.cond``, ...); ``check`` must
  accept every one of them, so that it tests the intent and not one spelling of the fix.
- ``source``: the public thread the cell was modelled on (its URL), or ``"written for the shape
  ..."`` when none fitted.
- ``earlier`` (optional): a cell run after ``setup`` and before ``cell``, as its own cell, that defines
  what fails (the function, the class); the error's user frame is then in that earlier cell. For such a
  case ``wrong_fix`` and every ``alt_fixes`` entry are versions of ``earlier``, and ``cell`` runs unchanged
  after them.

Which half a case is on (held out, or open for tuning) is :func:`side`. Each module defines ``CASES``; ``load_cases()`` gathers them. ``validate.py`` (run it with
``python tests/rewrite_heldout/validate.py``) proves each case in fresh subprocesses: the cell
raises the JAX error named by ``kind``, every alt fix passes ``check``, and ``wrong_fix`` does not.
"""

from __future__ import annotations

import hashlib
import importlib
import pkgutil
import textwrap
from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Case:
    id: str
    kind: str  # the jaxerrs record id the error should land on
    setup: str
    cell: str
    check: str
    wrong_fix: str
    alt_fixes: tuple[str, ...] = ()
    source: str = ""
    negative: bool = False
    module: str = ""
    earlier: str = ""


def _d(s: str) -> str:
    return textwrap.dedent(s).strip("\n") + "\n"


def case(id: str, kind: str, cell: str, check: str = "", wrong_fix: str = "", setup: str = "",
         negative: bool = False, alt_fixes: tuple[str, ...] | list[str] = (), source: str = "",
         earlier: str = "") -> Case:
    return Case(id, kind, _d(setup), _d(cell), _d(check), _d(wrong_fix),
                tuple(_d(f) for f in alt_fixes), source, negative, earlier=_d(earlier) if earlier.strip() else "")


def fixed_run(c: Case, fix: str) -> tuple[str, str]:
    """(code run before, code run as the cell) for a fix of ``c``: a fix replaces ``earlier`` when the case
    has one (the failing definition is there), else the cell."""
    if c.earlier:
        return c.setup + "\n" + fix, c.cell
    return c.setup, fix


# The modules written before any rule was tuned on them are held out whole; the later ones (outside_*) are
# split in two by a hash of the case id: the "tuning" half may be read and tuned on, the "held" half never.
WHOLLY_HELD = {"immutable", "static_shapes", "control_flow", "others"}
# Modules written (blind to the rewriter, from public threads) only to tune on: wholly on the tuning side.
WHOLLY_TUNING = {"tuning_d", "tuning_e"}


def side(c: Case) -> str:
    """"held" (measured, never read) or "tuning" (its misses may be read and rules tuned on it)."""
    if c.module in WHOLLY_HELD:
        return "held"
    if c.module in WHOLLY_TUNING:
        return "tuning"
    return "tuning" if hashlib.sha256(c.id.encode()).digest()[0] % 2 == 0 else "held"


def load_cases() -> list[Case]:
    out: list[Case] = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        if info.name == "validate":
            continue
        mod = importlib.import_module(f"{__name__}.{info.name}")
        out.extend(replace(c, module=info.name) for c in getattr(mod, "CASES", []))
    ids = [c.id for c in out]
    dupes = {i for i in ids if ids.count(i) > 1}
    if dupes:
        raise ValueError(f"duplicate held-out case ids: {sorted(dupes)}")
    return out
