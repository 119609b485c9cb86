"""The search results widget: entries are buttons that open their panels below."""

from __future__ import annotations

from typing import Any

import ipywidgets as widgets


class SearchBox(widgets.VBox):
    """Search results (class ``jaxerrs-search``); static HTML and text ride along in the mimebundle."""

    def __init__(self, rows: list[widgets.Widget], static_html: str, text: str) -> None:
        super().__init__(rows)
        self._static_html, self._text = static_html, text

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        data = super()._repr_mimebundle_(**kwargs) or {}
        data["text/html"], data["text/plain"] = self._static_html, self._text
        return data
