"""jaxerrs: explains JAX errors in IPython and Jupyter.

Importing this package is cheap: it imports neither jax nor ipywidgets. The heavy parts load
on first use (the first error, search or explain).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from jaxerrs.diagnosis import Diagnosis
    from jaxerrs.search_index import Hit

__all__ = ["diagnose", "diagnose_text", "search", "render_html", "render_text", "__version__"]


def load_ipython_extension(ip: Any) -> None:
    from jaxerrs.extension import load

    load(ip)


def unload_ipython_extension(ip: Any) -> None:
    from jaxerrs.extension import unload

    unload(ip)


def diagnose(exc: BaseException) -> Diagnosis:
    """Diagnose a live exception."""
    from jaxerrs.matcher import diagnose_exception

    return diagnose_exception(exc)


def diagnose_text(text: str) -> Diagnosis:
    """Diagnose a traceback, a log that contains one, or a final ``Class: message`` line."""
    from jaxerrs.matcher import diagnose_from_text

    return diagnose_from_text(text)


def search(query: str, limit: int = 10) -> list[Hit]:
    """Search curated records and JAX's raise sites; best first."""
    from jaxerrs.search_index import search as _search

    return _search(query, limit)


def render_html(diagnosis: Diagnosis) -> str:
    """The static HTML view of a panel (root element has class ``jaxerrs-panel``)."""
    from jaxerrs.views import render_html as _render

    return _render(diagnosis)


def render_text(diagnosis: Diagnosis) -> str:
    """The plain-text view of a panel."""
    from jaxerrs.views import render_text as _render

    return _render(diagnosis, color=False)
