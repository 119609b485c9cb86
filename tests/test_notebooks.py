"""The notebooks shipped in notebooks/: saved clean, and executed with nbclient they show a panel for
every JAX error cell and nothing for the other cells.

Cells that raise are tagged `raises-exception`; their `metadata.jaxerrs` says whether a panel is
expected (`expects_panel`) and for which curated record (`expected_record`).
"""

from __future__ import annotations

import nbformat
import pytest

from jaxerrs.kb.records import installed_jax
from notebook_support import (
    PANEL_MIME,
    WIDGET_MIME,
    describe,
    errors,
    execute_all,
    executed_notebook,
    expected_record,
    mentions_panel,
    panels,
    repo_root,
    strip_outputs_report,
)

NOTEBOOKS_DIR = repo_root() / "notebooks"
NOTEBOOKS = ["quickstart.ipynb", "gallery.ipynb", "ecosystem.ipynb"]
CELL_TIMEOUT = 120


def _read(name: str) -> nbformat.NotebookNode:
    return nbformat.read(NOTEBOOKS_DIR / name, as_version=4)


def _raises(cell) -> bool:
    return "raises-exception" in cell.metadata.get("tags", [])


def _code_cells() -> list:
    params = []
    for name in NOTEBOOKS:
        for index, cell in enumerate(_read(name).cells):
            if cell.cell_type == "code":
                params.append(pytest.param(name, index, id=f"{name}:{index}"))
    return params


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    workdir = tmp_path_factory.mktemp("notebooks")  # kernels' cwd, so nothing lands in the repo
    results = execute_all({name: _read(name) for name in NOTEBOOKS}, workdir, CELL_TIMEOUT, "notebooks")
    _report_gallery(results.get("gallery.ipynb"))
    return results


def _report_gallery(result) -> None:
    """The gallery's figures for the newest release's row of the version matrix (tests/jax_matrix.py)."""
    import jax_matrix

    if not isinstance(result, tuple):
        return
    version = installed_jax()
    cells = [c for c in result[0].cells if c.cell_type == "code" and expected_record(c, version)]
    right = sum(1 for c in cells if len(panels(c)) == 1
                and panels(c)[0][2].get("data-record") == expected_record(c, version))
    jax_matrix.report_gallery(version, right, len(cells))


_get = executed_notebook


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_saved_notebook_has_no_outputs(name):
    nb = _read(name)
    nbformat.validate(nb)
    problems = strip_outputs_report(nb)
    assert not problems, f"notebooks/{name} must be committed without outputs: " + "; ".join(problems)
    for index, cell in enumerate(nb.cells):
        info = cell.metadata.get("jaxerrs")
        if info is not None:
            assert _raises(cell), f"{name} cell {index} has jaxerrs metadata but no raises-exception tag"
            assert "expects_panel" in info, f"{name} cell {index}"


def test_gallery_covers_at_least_20_error_families():
    nb = _read("gallery.ipynb")
    records = [
        c.metadata["jaxerrs"].get("expected_record")
        for c in nb.cells
        if c.cell_type == "code" and c.metadata.get("jaxerrs", {}).get("expects_panel")
    ]
    assert len(records) >= 20
    # Every error cell is introduced by a markdown cell saying what it shows.
    for index, cell in enumerate(nb.cells):
        if cell.cell_type == "code" and _raises(cell):
            assert index > 0 and nb.cells[index - 1].cell_type == "markdown", f"gallery cell {index}"
    # The first cell asks for several CPU devices before JAX is imported.
    first = next(c for c in nb.cells if c.cell_type == "code").source
    assert "--xla_force_host_platform_device_count=4" in first
    assert first.index("XLA_FLAGS") < first.index("import jax")


def test_ecosystem_panels_point_at_the_users_cell(executed):
    """Every library's error: "In your code" is the notebook's cell, never a file inside the library."""
    import re

    nb = _get(executed, "ecosystem.ipynb")
    libraries = set()
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code" or not _raises(cell):
            continue
        found = panels(cell)
        assert len(found) == 1, f"ecosystem cell {index}: {describe(cell)}"
        html = "".join(found[0][1]["data"].get("text/html", ""))
        where = re.search(r'<div class="jaxerrs-where">(.*?)</div>', html)
        assert where and "Cell In[" in where.group(1), f"ecosystem cell {index}: {where and where.group(1)}"
        assert "site-packages" not in where.group(1)
        libraries.add(cell.metadata["jaxerrs"]["expected_record"].split("-")[0])
    assert libraries >= {"flax", "optax", "equinox", "chex", "orbax"}


def test_quickstart_shows_the_documented_steps():
    sources = "\n".join(c.source for c in _read("quickstart.ipynb").cells)
    for needle in (
        "%load_ext jaxerrs",
        "%jaxerr search dot shapes",
        "%%jaxerr",
        "%jaxerr off",
        "%jaxerr fix",
        "Insert as new cell",
    ):
        assert needle in sources, needle


@pytest.mark.parametrize(("name", "index"), _code_cells())
def test_cell(executed, name, index):
    nb = _get(executed, name)
    cell = nb.cells[index]
    where = f"{name} cell {index} ({cell.source.splitlines()[0]!r}): {describe(cell)}"
    errs = errors(cell)

    if not _raises(cell):
        assert not errs, f"unexpected error in {where}"
        assert not mentions_panel(cell), f"a cell that does not raise shows a jaxerrs panel: {where}"
        return

    assert errs, f"expected an error in {where}"
    err_index, err = errs[0]
    assert err.get("traceback"), f"IPython's traceback is missing in {where}"
    info = cell.metadata.get("jaxerrs", {"expects_panel": True})
    found = panels(cell)
    if not info["expects_panel"]:
        assert not found and not mentions_panel(cell), f"a non-JAX error got a jaxerrs panel: {where}"
        return

    assert len(found) == 1, f"expected exactly one panel in {where}"
    panel_index, panel, attrs = found[0]
    assert panel_index > err_index, f"the panel must come after the traceback in {where}"
    data = panel["data"]
    assert PANEL_MIME in data and WIDGET_MIME not in data, f"the panel is not jaxerrs' own bundle in {where}"
    assert data[PANEL_MIME]["version"] == 1 and data[PANEL_MIME]["record"] == attrs.get("data-record"), where
    assert "jaxerrs-panel" in (attrs.get("class") or "").split(), where
    assert attrs.get("data-record"), f"the panel names no record in {where}"
    assert data.get("text/plain"), f"the panel has no text/plain fallback in {where}"
    want = expected_record(cell, installed_jax())
    if want:
        assert attrs["data-record"] == want, where


def test_quickstart_search_lists_results(executed):
    nb = _get(executed, "quickstart.ipynb")
    cell = next(c for c in nb.cells if c.cell_type == "code" and c.source.startswith("%jaxerr search"))
    html = "".join(o.get("data", {}).get("text/html", "") for o in cell.outputs)
    assert "jaxerrs-search" in html, describe(cell)
