"""The in-browser "Insert as new cell" / "Copy" buttons of a fix.

The kernel cannot place a cell below the failing one (see DESIGN.md, "Frontends and the insert
button"), so the insert runs in the browser: a small anywidget whose ESM ships in
``static/fix_actions.js``. It feature-tests the frontend at click time (JupyterLab 4 / Notebook 7
shared model, nbclassic ``Jupyter.notebook``) and elsewhere explains that only Copy works.
"""

from __future__ import annotations

from pathlib import Path

import anywidget
import traitlets

__all__ = ["FixActions"]


class FixActions(anywidget.AnyWidget):
    """Two buttons, ``Insert as new cell`` and ``Copy``, and a status line.

    ``code`` is the fix's source; ``cell_id`` the id of the failing cell as ipykernel reports it
    (``info.cell_id`` in ``pre_run_cell``; empty when unknown, then the widget finds its own cell);
    ``status`` is the last outcome ("Inserted below", "Copied", or why not), set by the browser.
    """

    _esm = Path(__file__).parent / "static" / "fix_actions.js"

    code = traitlets.Unicode("", help="Source of the fix to insert or copy.").tag(sync=True)
    cell_id = traitlets.Unicode("", help="Id of the failing cell; may be empty.").tag(sync=True)
    status = traitlets.Unicode("", help="Last outcome, set from the browser.").tag(sync=True)

    def __init__(self, code: str = "", cell_id: str | None = "", **kwargs):
        super().__init__(code=code, cell_id=cell_id or "", **kwargs)
