"""Helpers for the notebook tests: execute a notebook with nbclient and find jaxerrs panels in its outputs."""

from __future__ import annotations

import copy
import os
import time
from html.parser import HTMLParser
from pathlib import Path

import nbformat

PANEL_MIME = "application/vnd.jaxerrs.panel+json"
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
PANEL_CLASS = "jaxerrs-panel"


def with_extension_loaded(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """A copy of `nb` whose first cell is `%load_ext jaxerrs` (the original is not touched)."""
    nb = copy.deepcopy(nb)
    nb.cells.insert(0, nbformat.v4.new_code_cell("%load_ext jaxerrs"))
    return nb


def execute(nb: nbformat.NotebookNode, cwd: str | os.PathLike, timeout: int = 120) -> float:
    """Execute `nb` in place in a fresh python3 kernel (errors allowed); return the wall time in seconds."""
    from nbclient import NotebookClient

    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        allow_errors=True,
        resources={"metadata": {"path": str(cwd)}},
    )
    start = time.perf_counter()
    client.execute()
    return time.perf_counter() - start


class _PanelRoot(HTMLParser):
    """Finds the first element whose class list holds `jaxerrs-panel`; keeps its attributes."""

    def __init__(self) -> None:
        super().__init__()
        self.attrs: dict[str, str | None] | None = None

    def handle_starttag(self, tag, attrs):
        if self.attrs is None:
            d = dict(attrs)
            if PANEL_CLASS in (d.get("class") or "").split():
                self.attrs = d


def panel_root_attrs(html: str) -> dict[str, str | None] | None:
    parser = _PanelRoot()
    parser.feed(html)
    return parser.attrs


def _html(output) -> str:
    html = output.get("data", {}).get("text/html", "")
    return "".join(html) if isinstance(html, list) else html


def panels(cell) -> list[tuple[int, dict, dict[str, str | None]]]:
    """(output index, output, root attributes) for each display of a jaxerrs panel in a code cell."""
    found = []
    for i, out in enumerate(cell.get("outputs", [])):
        if out.get("output_type") not in ("display_data", "execute_result"):
            continue
        attrs = panel_root_attrs(_html(out))
        if attrs is not None:
            found.append((i, out, attrs))
    return found


def mentions_panel(cell) -> bool:
    """Any output of the cell that carries the panel's CSS class at all (stricter than `panels`)."""
    for out in cell.get("outputs", []):
        if PANEL_CLASS in _html(out):
            return True
    return False


def expected_record(cell, version: str) -> str | None:
    """The record a gallery cell expects under JAX ``version``: ``expected_record``, or the entry of
    ``expected_record_by_release`` ({"<0.5.1": id}) whose range holds ``version``."""
    from jaxerrs.kb.records import _in_range

    info = cell.metadata.get("jaxerrs", {})
    for spec, rid in info.get("expected_record_by_release", {}).items():
        if _in_range(version, spec):
            return rid
    return info.get("expected_record")


def errors(cell) -> list[tuple[int, dict]]:
    return [(i, o) for i, o in enumerate(cell.get("outputs", [])) if o.get("output_type") == "error"]


def describe(cell) -> str:
    """Short summary of a cell's outputs for assertion messages."""
    parts = []
    for out in cell.get("outputs", []):
        kind = out.get("output_type")
        if kind == "error":
            parts.append(f"error {out.get('ename')}: {out.get('evalue', '')[:100]!r}")
        elif kind in ("display_data", "execute_result"):
            attrs = panel_root_attrs(_html(out))
            rec = None if attrs is None else attrs.get("data-record")
            parts.append(f"{kind} {sorted(out.get('data', {}))} panel_record={rec!r}")
        else:
            parts.append(f"{kind} {out.get('name', '')}")
    return "; ".join(parts) or "<no outputs>"


def strip_outputs_report(nb: nbformat.NotebookNode) -> list[str]:
    """Problems that make a saved notebook 'not clean': outputs or execution counts present."""
    problems = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        if cell.get("outputs"):
            problems.append(f"cell {i} has {len(cell.outputs)} output(s)")
        if cell.get("execution_count") is not None:
            problems.append(f"cell {i} has execution_count {cell.execution_count}")
    return problems


def repo_root() -> Path:
    return Path(__file__).resolve().parents[1]


def execute_all(notebooks: dict[str, nbformat.NotebookNode], cwd: str | os.PathLike, timeout: int, label: str,
                workers: int = 2) -> dict[str, tuple[nbformat.NotebookNode, float] | BaseException]:
    """Execute notebooks concurrently, each in its own kernel: name -> (executed copy, seconds) or its error."""
    from concurrent.futures import ThreadPoolExecutor

    def run(item: tuple[str, nbformat.NotebookNode]) -> tuple[str, object]:
        name, nb = item
        try:
            return name, (nb, execute(nb, cwd, timeout=timeout))
        except Exception as exc:  # noqa: BLE001 - reported by every test of that notebook
            return name, exc

    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=workers) as pool:
        results = dict(pool.map(run, notebooks.items()))
    timings = ", ".join(f"{n}={r[1]:.1f}s" for n, r in results.items() if isinstance(r, tuple))
    print(f"\n[{label}] executed {len(results)} notebooks in {time.perf_counter() - start:.1f}s wall ({timings})")
    return results


def executed_notebook(executed: dict, name: str) -> nbformat.NotebookNode:
    """One notebook of ``execute_all``'s results; the test fails if it did not execute."""
    import pytest

    result = executed[name]
    if isinstance(result, BaseException):
        pytest.fail(f"{name} did not execute: {type(result).__name__}: {result}")
    return result[0]
