"""FixActions in real JupyterLab 4, Notebook 7 and nbclassic: insert directly below, also while the
kernel is busy; Copy; a double click inserts once. Insert latencies are printed (run with -s)."""

from __future__ import annotations

import time

from jxbrowser import insert_latency_ms, install_insert_probe, record_latency, shot, write_notebook

FIX = "x = 1  # fix"

HOOK = (
    "from IPython import get_ipython\n"
    "_cid = {}\n"
    "get_ipython().events.register('pre_run_cell', lambda info: _cid.__setitem__('id', info.cell_id or ''))"
)
WIDGET = (
    "from jaxerrs.fix_actions import FixActions\n"
    f"w = FixActions(code={FIX!r}, cell_id=_cid['id'])\n"
    "print('cell_id=' + repr(w.cell_id))\n"
    "w"
)


def _open(driver, name, extra=()):
    cells = [("cell-hook", HOOK), ("cell-widget", WIDGET), *extra]
    fname = write_notebook(driver.server, f"{name}-{driver.server.frontend}", cells)
    driver.open(fname, len(cells))
    driver.run(0)
    driver.run(1)
    widget_cell = driver.cell(1)
    widget_cell.locator(".jaxerrs-fix-actions").wait_for()
    return widget_cell


def _expected_after_insert(before, index):
    return before[: index + 1] + [FIX] + before[index + 1 :]


def test_insert_lands_directly_below(driver, page):
    widget_cell = _open(driver, "insert", extra=[("cell-after", "print('after')")])
    # ipykernel hands the frontend's cell id to pre_run_cell in Lab / Notebook 7; nbclassic sends none.
    expected_id = "''" if driver.server.frontend == "nbclassic" else "'cell-widget'"
    assert f"cell_id={expected_id}" in widget_cell.inner_text()
    before = driver.sources()
    install_insert_probe(driver, FIX)
    page.page_errors.clear()  # Notebook 7 reports an unrelated error of its own while loading
    widget_cell.get_by_role("button", name="Insert as new cell").click()
    ms = insert_latency_ms(driver)
    record_latency(f"{driver.server.frontend}: insert (click -> cell in DOM)", ms)
    assert driver.sources() == _expected_after_insert(before, 1)
    status = widget_cell.locator(".jaxerrs-fix-status")
    assert status.inner_text() == "Inserted below"
    assert widget_cell.get_by_role("button", name="Insert as new cell").is_disabled()
    shot(page, f"{driver.server.frontend}-insert")
    assert not page.page_errors, page.page_errors


def test_insert_while_kernel_busy(driver, page):
    widget_cell = _open(driver, "busy", extra=[("cell-sleep", "import time; time.sleep(8)")])
    driver.run(2, wait=False)
    driver.wait_kernel("busy", timeout=15)
    before = driver.sources()
    install_insert_probe(driver, FIX)
    widget_cell.get_by_role("button", name="Insert as new cell").click()
    ms = insert_latency_ms(driver)
    assert driver.server.kernel_state() == "busy", "the insert should have happened while the kernel was busy"
    record_latency(f"{driver.server.frontend}: insert while kernel busy", ms)
    assert driver.sources() == _expected_after_insert(before, 1)
    assert widget_cell.locator(".jaxerrs-fix-status").inner_text() == "Inserted below"
    shot(page, f"{driver.server.frontend}-insert-busy")


def test_copy(driver, page):
    widget_cell = _open(driver, "copy", extra=[("cell-status", "print('status=' + repr(w.status))")])
    widget_cell.get_by_role("button", name="Copy").click()
    status = widget_cell.locator(".jaxerrs-fix-status")
    status.filter(has_text="Copied").wait_for()
    assert page.evaluate("() => navigator.clipboard.readText()") == FIX
    # The outcome is synced back to the kernel (the `status` trait).
    driver.run(2)
    deadline = time.monotonic() + 10
    while "status='Copied'" not in driver.cell(2).inner_text():
        assert time.monotonic() < deadline, driver.cell(2).inner_text()
        driver.run(2)
    shot(page, f"{driver.server.frontend}-copy")


def test_double_click_inserts_once(driver, page):
    widget_cell = _open(driver, "dblclick")
    before = driver.sources()
    button = widget_cell.get_by_role("button", name="Insert as new cell")
    button.dblclick()
    widget_cell.locator(".jaxerrs-fix-status").filter(has_text="Inserted below").wait_for()
    page.wait_for_timeout(700)  # let a second insert, if any, land
    after = driver.sources()
    assert after == _expected_after_insert(before, 1)
    assert after.count(FIX) == 1
    assert button.is_disabled()
    button.click(force=True)  # a later click on the disabled button does nothing either
    page.wait_for_timeout(300)
    assert driver.sources().count(FIX) == 1
    shot(page, f"{driver.server.frontend}-dblclick")
