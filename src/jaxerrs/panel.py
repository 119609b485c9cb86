"""The notebook panel: ipywidgets around the same HTML the static view shows.

Its mimebundle also carries ``text/html`` and ``text/plain``, so nbconvert, GitHub and
nbclient outputs show the same content without a widget manager.
"""

from __future__ import annotations

from typing import Any

import ipywidgets as widgets

from jaxerrs import views
from jaxerrs.diagnosis import Diagnosis
from jaxerrs.fix_actions import FixActions


class Panel(widgets.VBox):
    """One diagnosis: compact by default, the rest in collapsible sections, related errors on click."""

    def __init__(self, diagnosis: Diagnosis, cell_id: str = "", **kwargs: Any) -> None:
        v = views.build(diagnosis)
        self.diagnosis = diagnosis
        children: list[widgets.Widget] = [
            widgets.HTML(f"<style>{views.CSS}</style>{views.header_html(v)}{views.body_html(v)}"),
        ]
        if v.fix_after:
            children.append(FixActions(code=v.fix_after, cell_id=cell_id))
        children.append(widgets.HTML(views.more_html(v)))
        if v.related:
            children.append(self._related(v))
        super().__init__(children=children, **kwargs)
        self.add_class("jaxerrs-panel")
        self._static_html = views.render_html(diagnosis)
        self._text = views.render_text(diagnosis, color=False, compact=True)

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
