"""The full flow in real JupyterLab 4, Notebook 7 and nbclassic: `%load_ext jaxerrs`, a real JAX
error, the panel under the traceback, its Insert button; no panel for non-JAX errors; error text is
never executed as HTML; light and dark screenshots in JupyterLab. Latencies are printed (-s)."""

from __future__ import annotations

import pytest
from jxbrowser import choose_lab_dark_theme, have_jaxerrs_extension, record_latency, shot, write_notebook

pytestmark = pytest.mark.skipif(
    not have_jaxerrs_extension(), reason="jaxerrs.extension is not importable yet"
)

LOAD = "%load_ext jaxerrs"
JAX_ERROR = "import jax\njax.jit(lambda x: x if x > 0 else -x)(1.0)"

# Records, in the page, when the cell's traceback and its panel first appear (performance.now()).
INSTALL_PANEL_PROBE = """
([cellSel, index, errSel]) => {
  const cell = document.querySelectorAll(cellSel)[index];
  const seen = window.__jxPanel = { tb: null, panel: null };
  const check = () => {
    const now = performance.now();
    if (seen.tb === null && cell.querySelector(errSel)) seen.tb = now;
    if (seen.panel === null && cell.querySelector('.jaxerrs-panel')) seen.panel = now;
  };
  new MutationObserver(check).observe(cell, { childList: true, subtree: true });
}
"""

PANEL_BELOW_TRACEBACK = """
([cellSel, index, errSel]) => {
  const cell = document.querySelectorAll(cellSel)[index];
  const tb = cell.querySelector(errSel), panel = cell.querySelector('.jaxerrs-panel');
  return !!(tb && panel && (tb.compareDocumentPosition(panel) & Node.DOCUMENT_POSITION_FOLLOWING));
}
"""


def _open(driver, name, cells):
    fname = write_notebook(driver.server, f"{name}-{driver.server.frontend}", cells)
    driver.open(fname, len(cells))
    driver.run(0)  # %load_ext jaxerrs


def _error_text(driver, index) -> str:
    return driver.cell(index).locator(driver.error_selector()).first.inner_text()


def _show_panel(driver, index, timeout=60_000):
    """Run cell `index`, wait for its panel; return (panel locator, traceback->panel ms)."""
    page = driver.page
    page.evaluate(INSTALL_PANEL_PROBE, [driver.cell_selector, index, driver.error_selector()])
    driver.run(index, timeout=timeout)
    panel = driver.cell(index).locator(".jaxerrs-panel").first
    panel.wait_for(timeout=timeout)
    seen = page.evaluate("() => window.__jxPanel")
    assert seen["tb"] is not None and seen["panel"] is not None, seen
    assert page.evaluate(PANEL_BELOW_TRACEBACK, [driver.cell_selector, index, driver.error_selector()])
    return panel, seen["panel"] - seen["tb"]


def test_panel_under_traceback_and_insert_fix(driver, page):
    _open(driver, "panel", [("cell-load", LOAD), ("cell-jax", JAX_ERROR), ("cell-after", "print('after')")])
    panel, ms = _show_panel(driver, 1)
    record_latency(f"{driver.server.frontend}: traceback -> panel", ms)
    assert "TracerBoolConversionError" in _error_text(driver, 1)  # IPython's traceback, unchanged
    page.set_viewport_size({"width": 1200, "height": 2400})  # the whole panel in view for the shot
    shot(panel, f"{driver.server.frontend}-panel")
    page.set_viewport_size({"width": 1200, "height": 900})

    before = driver.sources()
    page.page_errors.clear()
    panel.get_by_role("button", name="Insert as new cell").click()
    page.wait_for_function(
        "([sel, n]) => document.querySelectorAll(sel).length === n + 1",
        arg=[driver.cell_selector, len(before)],
    )
    after = driver.sources()
    fix = after[2]
    assert after[:2] == before[:2] and after[3:] == before[2:], after  # directly below the failing cell
    assert fix.strip() and fix not in before
    # The user's own cell, fixed: every code line of it is in the panel's diff (added or kept lines).
    assert fix.startswith("# jaxerrs: Cell In["), fix
    diff = " ".join(panel.locator(".jaxerrs-diff").inner_text().split())
    for line in fix.splitlines():
        if line.strip() and not line.startswith("# "):
            assert " ".join(line.split()) in diff, (line, diff)
    assert panel.locator(".jaxerrs-fix-status").inner_text() == "Inserted below"
    shot(page, f"{driver.server.frontend}-panel-inserted")

    # The inserted fix runs clean in the same kernel.
    driver.run(2)
    assert driver.cell(2).locator(driver.error_selector()).count() == 0, driver.cell(2).inner_text()
    assert not page.page_errors, page.page_errors


def test_no_panel_for_non_jax_errors(driver, page):
    _open(
        driver,
        "nonjax",
        [("cell-load", LOAD), ("cell-zero", "1/0"), ("cell-name", "import jax\nundefined_name_xyz")],
    )
    driver.run(1)
    driver.run(2)
    driver.wait_kernel("idle")
    page.wait_for_timeout(500)  # anything still in flight on iopub
    assert "ZeroDivisionError" in _error_text(driver, 1)
    assert "NameError" in _error_text(driver, 2)
    assert page.locator(".jaxerrs-panel").count() == 0
    shot(page, f"{driver.server.frontend}-nonjax")


XSS_SHAPE = (
    "import jax.numpy as jnp\n"
    "jnp.zeros('<img src=x onerror=window.__pwned=1><script>window.__pwned2=1</script>')"
)
XSS_FUNCTION_NAME = (
    "import jax\n"
    "def f(x):\n"
    "    return x if x > 0 else -x\n"
    "f.__name__ = f.__qualname__ = '<img src=x onerror=window.__pwned3=1><script>window.__pwned4=1</script>'\n"
    "jax.jit(f)(1.0)"
)


def test_error_text_is_not_executed(driver, page):
    _open(driver, "xss", [("cell-load", LOAD), ("cell-shape", XSS_SHAPE), ("cell-name", XSS_FUNCTION_NAME)])
    panel1, _ = _show_panel(driver, 1)
    panel2, _ = _show_panel(driver, 2)
    page.wait_for_timeout(1000)  # give a broken <img> time to fire onerror
    pwned = page.evaluate("() => [window.__pwned, window.__pwned2, window.__pwned3, window.__pwned4]")
    assert pwned == [None, None, None, None]
    for panel in (panel1, panel2):
        # No markup from the error text; the one script a panel may hold is jaxerrs' own (nbclassic keeps it).
        assert panel.locator("img[src=x], script:not([data-jaxerrs-actions])").count() == 0
        assert panel.locator("script").count() <= 1
    assert "<img src=x" in panel1.text_content() + panel2.text_content()  # shown as text
    shot(page, f"{driver.server.frontend}-xss")


@pytest.mark.parametrize("frontend", ["lab"], indirect=True)
def test_lab_light_and_dark_theme(driver, page, request):
    _open(driver, "theme", [("cell-load", LOAD), ("cell-jax", JAX_ERROR)])
    panel, _ = _show_panel(driver, 1)
    page.set_viewport_size({"width": 1200, "height": 2400})  # the whole panel in view for the shots
    assert page.evaluate("() => document.body.dataset.jpThemeLight") == "true"
    shot(panel, "lab-panel-light")
    choose_lab_dark_theme(page, driver.server, request)
    colors = panel.evaluate(
        """el => { const b = el.querySelector('.jaxerrs-insert');
                   return [getComputedStyle(b).color, getComputedStyle(document.body).backgroundColor]; }"""
    )
    shot(panel, "lab-panel-dark")
    shot(page, "lab-dark")
    # Dark theme: light text on the button.
    r, g, b = (int(v) for v in colors[0][colors[0].index("(") + 1 : colors[0].index(")")].split(",")[:3])
    assert r + g + b > 3 * 128, colors
