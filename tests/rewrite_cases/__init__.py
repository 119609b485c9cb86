"""The proof set of "fix my cell": realistic failing cells, as data.

Each module in this folder defines ``CASES``, a list of :func:`case` entries:

- ``setup``: what earlier cells did (imports, data); runs clean.
- ``cell``: the failing cell as a user would write it; raises a JAX error (or, for a negative, a
  non-JAX error: then no rewrite may be offered).
- ``check``: code run after ``setup`` + the rewritten cell, asserting that the result is what the
  user meant, against a reference computed another way (NumPy or plain Python).
- ``wrong_fix``: a version of the cell that silences the error but breaks the intent; ``check``
  must reject it (proof that the check has teeth).
- ``offer`` (optional): what the rewrite must be, when that is the point of the case: "review" (a
  rewrite, if any, is labelled review: an alias may see the change), "none" (no rewrite: one instance of
  the cause cannot be fixed, and fixing the others alone would fail again).
"""

from __future__ import annotations

import importlib
import pkgutil
import textwrap
from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Case:
    id: str
    kind: str  # the error kind (usually the record id the cell should land on)
    setup: str
    cell: str
    check: str
    wrong_fix: str
    negative: bool = False  # a non-JAX error: no panel, no rewrite
    module: str = ""  # the file of tests/rewrite_cases it comes from
    offer: str = ""  # "", "review" or "none": see the module docstring


def case(id: str, kind: str, cell: str, check: str = "", wrong_fix: str = "", setup: str = "",
         negative: bool = False, offer: str = "") -> Case:
    assert offer in ("", "review", "none"), offer
    d = textwrap.dedent
    return Case(id, kind, d(setup).strip("\n") + "\n", d(cell).strip("\n") + "\n", d(check).strip("\n") + "\n",
                d(wrong_fix).strip("\n") + "\n", negative, offer=offer)


def load_cases() -> list[Case]:
    out: list[Case] = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        mod = importlib.import_module(f"{__name__}.{info.name}")
        out.extend(replace(c, module=info.name) for c in getattr(mod, "CASES", []))
    ids = [c.id for c in out]
    dupes = {i for i in ids if ids.count(i) > 1}
    if dupes:
        raise ValueError(f"duplicate rewrite case ids: {sorted(dupes)}")
    return out
