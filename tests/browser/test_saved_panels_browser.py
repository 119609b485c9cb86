"""Panels that last: run JAX errors, save, close, reopen the notebook in a fresh page with a fresh kernel
(no widget state anywhere), and find every panel whole, with Insert and Copy working, in JupyterLab 4,
Notebook 7 and nbclassic; Insert keeps working after the kernel is shut down. A page exported by
nbconvert shows the same panels, and its Copy works."""

from __future__ import annotations

import json

import pytest
from jxbrowser import have_jaxerrs_extension, shot, write_notebook

pytestmark = pytest.mark.skipif(not have_jaxerrs_extension(), reason="jaxerrs.extension is not importable yet")

LOAD = "%load_ext jaxerrs"
SETITEM = "import jax.numpy as jnp\nscores = jnp.zeros(3)\nscores[1] += 2.5   # bump the winner\nscores"
BOOL = "import jax\njax.jit(lambda x: x if x > 0 else -x)(1.0)"
MIME = "application/vnd.jaxerrs.panel+json"
CELLS = [("cell-load", LOAD), ("cell-setitem", SETITEM), ("cell-bool", BOOL)]


def _run_and_wait_panel(driver, index):
    driver.run(index, timeout=120_000)
    driver.cell(index).locator(".jaxerrs-panel").first.wait_for(timeout=120_000)


def _save(driver):
    if driver.kind == "classic":
        path = driver.server.root / driver.fname
        before = path.stat().st_mtime_ns
        driver.page.evaluate("() => Jupyter.notebook.save_notebook()")
        driver.page.wait_for_function("() => !Jupyter.notebook.dirty")
        assert path.stat().st_mtime_ns != before
    else:
        driver.sources()  # Ctrl+S, and waits for the file to change


def _saved_outputs(driver) -> list[list[dict]]:
    nb = json.loads((driver.server.root / driver.fname).read_text(encoding="utf-8"))
    return [c.get("outputs", []) for c in nb["cells"]]


def _sources(driver) -> list[str]:
    return driver.sources() if driver.kind != "classic" else driver.page.evaluate(
        "() => Jupyter.notebook.get_cells().map(c => c.get_text())")


def _insert_below(driver, panel, n_before):
    panel.get_by_role("button", name="Insert as new cell").click()
    driver.page.wait_for_function("([sel, n]) => document.querySelectorAll(sel).length === n + 1",
                                  arg=[driver.cell_selector, n_before])
    panel.locator(".jaxerrs-fix-status").filter(has_text="Inserted below").wait_for()


def test_saved_notebook_reopens_with_its_panels(driver, page, tmp_path):
    fe = driver.server.frontend
    fname = write_notebook(driver.server, f"saved-{fe}", CELLS)
    driver.fname = fname
    driver.open(fname, len(CELLS))
    driver.run(0)
    _run_and_wait_panel(driver, 1)
    _run_and_wait_panel(driver, 2)
    live_text = [driver.cell(i).locator(".jaxerrs-panel").first.inner_text() for i in (1, 2)]
    _save(driver)

    # What was saved: the jaxerrs bundle, no widget.
    outputs = _saved_outputs(driver)
    for i in (1, 2):
        panels = [o for o in outputs[i] if MIME in o.get("data", {})]
        assert len(panels) == 1, outputs[i]
        assert "application/vnd.jupyter.widget-view+json" not in panels[0]["data"]
        assert 'class="jaxerrs-panel"' in "".join(panels[0]["data"]["text/html"])

    # Close: the kernel goes, the page goes. Reopen in a fresh page: a fresh kernel, no widget state.
    driver.server.shutdown_kernels()
    page.goto("about:blank")
    driver.open(fname, len(CELLS))
    page.page_errors.clear()  # Notebook 7.6 itself throws one on every load ("reading 'schema'"), with or without us
    for i, text in zip((1, 2), live_text, strict=True):
        panel = driver.cell(i).locator(".jaxerrs-panel").first
        panel.wait_for()
        assert panel.inner_text() == text  # the whole panel, as it was shown live
    body = page.locator("body").inner_text()
    assert "Error displaying widget" not in body and "could not be displayed" not in body
    assert "Your cell, fixed" in live_text[0] and "What it means" in live_text[1]
    shot(page, f"{fe}-reopened")
    assert not page.page_errors, "\n".join(page.page_errors)

    # Insert below the first failing cell, the user's cell fixed.
    panel = driver.cell(1).locator(".jaxerrs-panel").first
    before = _sources(driver)
    _insert_below(driver, panel, len(before))
    after = _sources(driver)
    assert after[:2] == before[:2] and after[3:] == before[2:], after
    assert after[2].startswith("# jaxerrs: Cell In[") and "scores = scores.at[1].add(2.5)" in after[2], after[2]

    assert not page.page_errors, "\n".join(page.page_errors)
    # No kernel at all: Insert is the frontend's own business, so it still works.
    driver.server.shutdown_kernels()
    if driver.kind == "classic":  # nbclassic says the kernel is gone in a modal dialog: close it, as a user would
        modal = page.locator(".modal.kernel-modal")
        modal.wait_for()
        modal.locator("button.close").click()
        modal.wait_for(state="hidden")
    panel = driver.cell(3).locator(".jaxerrs-panel").first  # the bool panel, now one cell lower
    before = _sources(driver)
    _insert_below(driver, panel, len(before))
    after = _sources(driver)
    assert "jnp.where" in after[4] and after[:4] == before[:4], after
    panel.get_by_role("button", name="Copy").click()
    panel.locator(".jaxerrs-fix-status").filter(has_text="Copied").wait_for()
    shot(page, f"{fe}-reopened-inserted")
    assert not page.page_errors, page.page_errors


@pytest.mark.parametrize("frontend", ["lab"], indirect=True)
def test_exported_page_shows_the_panels(driver, page, tmp_path):
    import nbformat
    from nbconvert import HTMLExporter

    fname = write_notebook(driver.server, "export-lab", CELLS)
    driver.fname = fname
    driver.open(fname, len(CELLS))
    for i in range(3):
        driver.run(i, timeout=120_000)
    driver.cell(2).locator(".jaxerrs-panel").first.wait_for(timeout=120_000)
    driver.sources()  # saved
    body, _ = HTMLExporter().from_notebook_node(nbformat.read(driver.server.root / fname, as_version=4))
    # Served as a page of its own (Jupyter's /files/ sandboxes HTML), on an origin allowed the clipboard.
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin="http://localhost")
    page.route("http://localhost/export-lab.html", lambda r: r.fulfill(body=body, content_type="text/html"))
    page.goto("http://localhost/export-lab.html")
    panels = page.locator(".jaxerrs-panel")
    panels.first.wait_for()
    assert panels.count() == 2 and "Your cell, fixed" in panels.first.inner_text()
    # The page runs the panel's script: Copy works, Insert says plainly why not.
    first = panels.first
    first.get_by_role("button", name="Copy").click()
    first.locator(".jaxerrs-fix-status").filter(has_text="Copied").wait_for()
    assert "scores.at[1].add(2.5)" in page.evaluate("() => navigator.clipboard.readText()")
    first.get_by_role("button", name="Insert as new cell").click()
    first.locator(".jaxerrs-fix-status").filter(has_text="Insert is not available here").wait_for()
    shot(page, "exported-page")


@pytest.mark.parametrize("frontend", ["lab"], indirect=True)
def test_someone_elses_notebook_shows_its_panels(driver, page):
    """A notebook run elsewhere (nbclient here) is not trusted when opened: JupyterLab sanitizes its HTML,
    and the panels still show, with working buttons (the extension adds them; no script runs)."""
    import nbformat

    from notebook_support import execute

    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [nbformat.v4.new_code_cell(src) for _cid, src in CELLS]
    execute(nb, driver.server.root)  # unsigned: Jupyter trusts only the notebooks it signed itself
    nbformat.write(nb, driver.server.root / "shared-lab.ipynb")
    driver.open("shared-lab.ipynb", len(CELLS))
    page.page_errors.clear()
    panel = driver.cell(1).locator(".jaxerrs-panel").first
    panel.wait_for()
    assert "Your cell, fixed" in panel.inner_text() and panel.locator(".jaxerrs-diff-add").count() == 1
    assert panel.inner_text().count("# jaxerrs: Cell In[") == 0  # the buttons' copy of the fix stays unseen
    before = driver.sources()
    _insert_below(driver, panel, len(before))
    after = driver.sources()
    assert after[2].startswith("# jaxerrs: ") and "scores.at[1].add(2.5)" in after[2], after
    shot(page, "lab-untrusted")
    assert not page.page_errors, page.page_errors
