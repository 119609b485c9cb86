"""The notebook panel: one display output that lasts.

A panel is a plain display bundle, not a widget, so a saved notebook keeps it whole (docs/panels.md):

- ``application/vnd.jaxerrs.panel+json``: what the JupyterLab 4 / Notebook 7 extension needs to show
  the panel from the output's own HTML and to insert the fix below the failing cell, live or reopened;
- ``text/html``: the static panel, with the Insert/Copy buttons and an inline script that wires them
  where a frontend runs a trusted output's scripts (nbclassic, VS Code, Colab, an exported page);
- ``text/plain``: the compact text panel.

The user's cell, fixed, is computed before the panel shows (LibCST is warm by then: the warm-up loads it
when jax is imported), so what Insert and Copy carry is final from the first moment.
"""

from __future__ import annotations

import uuid
from typing import Any

from jaxerrs import views
from jaxerrs.diagnosis import Diagnosis

MIME = "application/vnd.jaxerrs.panel+json"
MIME_VERSION = 1


class Panel:
    """One diagnosis as a display bundle (``display(Panel(d))``)."""

    def __init__(self, diagnosis: Diagnosis, cell_id: str = "") -> None:
        self.diagnosis = diagnosis
        self.cell_id = cell_id or ""
        self.uid = uuid.uuid4().hex
        v = views.build(diagnosis)  # computes the rewrite: Insert never races it
        self.fix, self.fix_kind = views.fix_of(v)
        self.html = views.panel_html(v, uid=self.uid)
        self.text = views.render_text(diagnosis, color=False, compact=True)

    def data(self) -> dict[str, Any]:
        """The jaxerrs mimetype's payload (versioned: a reopened notebook may come from an older jaxerrs)."""
        rec = self.diagnosis.record
        return {"version": MIME_VERSION, "record": rec.id if rec is not None else None, "fix": self.fix,
                "fix_kind": self.fix_kind, "cell_id": self.cell_id}

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        return {MIME: self.data(), "text/html": self.html, "text/plain": self.text}

