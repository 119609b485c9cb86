"""The notebook panel: ipywidgets around the same HTML the static view shows.

Its mimebundle also carries ``text/html`` and ``text/plain``, so nbconvert, GitHub and
nbclient outputs show the same content without a widget manager.
"""

from __future__ import annotations

import sys
import threading
from typing import Any

import ipywidgets as widgets

from jaxerrs import views
from jaxerrs.diagnosis import Diagnosis
from jaxerrs.fix_actions import FixActions


def rules_loaded() -> bool:
    """Whether LibCST and the rewrite rules are imported (then a rewrite costs milliseconds)."""
    return "jaxerrs.rewrite.rules" in sys.modules


class Panel(widgets.VBox):
    """One diagnosis: compact by default, the rest in collapsible sections, related errors on click."""

    def __init__(self, diagnosis: Diagnosis, cell_id: str = "", **kwargs: Any) -> None:
        # The rewrite never delays the panel: computed here only once LibCST and the rules are loaded
        # (the warm-up loads them when jax is imported), else in the background, and the panel updates.
        now = diagnosis._rewrite_done or not diagnosis.is_jax or rules_loaded()
        v = views.build(diagnosis, with_rewrite=now)
        self.diagnosis = diagnosis
        self._main = widgets.HTML(self._main_html(v))
        self._actions = FixActions(code=self._fix_code(v), cell_id=cell_id)
        self._more = widgets.HTML(views.more_html(v))
        children: list[widgets.Widget] = [self._main]
        if self._actions.code:
            children.append(self._actions)
        children.append(self._more)
        if v.related:
            children.append(self._related(v))
        super().__init__(children=children, **kwargs)
        self.add_class("jaxerrs-panel")
        self._refresh_static(now)
        self.rewrite_thread: threading.Thread | None = None
        if not now:
            self.rewrite_thread = threading.Thread(target=self._rewrite_later, name="jaxerrs-rewrite", daemon=True)
            self.rewrite_thread.start()

    @staticmethod
    def _main_html(v: views.PanelView) -> str:
        return f"<style>{views.CSS}</style>{views.header_html(v)}{views.body_html(v)}"

    @staticmethod
    def _fix_code(v: views.PanelView) -> str:
        return v.rewrite.insertable() if v.rewrite is not None else v.fix_after

    def _refresh_static(self, with_rewrite: bool = True) -> None:
        self._static_html = views.render_html(self.diagnosis, with_rewrite)
        self._text = views.render_text(self.diagnosis, color=False, compact=True, with_rewrite=with_rewrite)

    def _rewrite_later(self) -> None:
        try:
            if self.diagnosis.rewrite is None:
                return
            v = views.build(self.diagnosis)
            self._actions.code = self._fix_code(v)  # before the diff shows: a click then inserts the fixed cell
            self._main.value = self._main_html(v)
            self._more.value = views.more_html(v)
            if self._actions not in self.children:
                self.children = (self.children[0], self._actions, *self.children[1:])
            self._refresh_static()
        except Exception:  # noqa: BLE001 - the panel without a rewrite is still whole
            pass

    def _related(self, v: views.PanelView) -> widgets.Widget:
        out = widgets.Output()
        buttons = []
        for rid, title in v.related:
            b = widgets.Button(description=rid, tooltip=title, layout=widgets.Layout(width="auto"))
            b.on_click(lambda _b, rid=rid: self._open(rid, out))
            buttons.append(b)
        label = widgets.HTML("<b>Related errors</b>")
        return widgets.VBox([label, widgets.HBox(buttons, layout=widgets.Layout(flex_flow="row wrap")), out])

    @staticmethod
    def _open(record_id: str, out: widgets.Output) -> Panel | None:
        from IPython.display import display

        from jaxerrs.kb.records import find

        rec = find(record_id)
        if rec is None:
            return None
        panel = Panel(views.record_diagnosis(rec))
        out.clear_output()
        with out:
            display(panel)
        return panel

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        data = super()._repr_mimebundle_(**kwargs) or {}
        data["text/html"] = self._static_html
        data["text/plain"] = self._text
        return data


class SearchBox(widgets.VBox):
    """Search results (class ``jaxerrs-search``); static HTML and text ride along in the mimebundle."""

    def __init__(self, rows: list[widgets.Widget], static_html: str, text: str) -> None:
        super().__init__(rows)
        self._static_html, self._text = static_html, text

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        data = super()._repr_mimebundle_(**kwargs) or {}
        data["text/html"], data["text/plain"] = self._static_html, self._text
        return data
