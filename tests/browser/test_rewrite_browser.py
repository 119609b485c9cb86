"""The panel's "Your cell, fixed" in real JupyterLab 4, Notebook 7 and nbclassic: the diff and its
safety label; Insert as new cell puts the user's own cell, fixed, directly below the failing cell,
with the kernel idle and busy; the inserted cell runs clean. Light and dark screenshots of the
diff in JupyterLab, with a contrast check of the diff lines and the safety label."""

from __future__ import annotations

import re

import pytest
from jxbrowser import choose_lab_dark_theme, have_jaxerrs_extension, shot, write_notebook
from tests.ecosystem_cells import NNX_MLP

pytestmark = pytest.mark.skipif(
    not have_jaxerrs_extension(), reason="jaxerrs.extension is not importable yet"
)

LOAD = "%load_ext jaxerrs"
# Rule `at-set` (safe). The last line makes the fixed cell show the array when it runs.
SETITEM = "import jax.numpy as jnp\nscores = jnp.zeros(3)\nscores[1] += 2.5   # bump the winner\nscores"
DEL_LINE = "-scores[1] += 2.5   # bump the winner"
ADD_LINE = "+scores = scores.at[1].add(2.5)   # bump the winner"
FIXED_LINE = "scores = scores.at[1].add(2.5)   # bump the winner"
ARRAY = re.compile(r"Array\(\[0\.\s*,\s*2\.5\s*,\s*0\.\s*\],\s*dtype=float32\)")
SLEEP = "import time; time.sleep(8)"

# The cell's execution count, from its input prompt ("[3]:" in Lab / Notebook 7, "In [3]:" classic).
PROMPT = """
([sel, i]) => {
  const c = document.querySelectorAll(sel)[i];
  const p = c && c.querySelector('.jp-InputPrompt, .input_prompt');
  const m = p && p.textContent.match(/\\[(\\d+)\\]/);
  return m ? Number(m[1]) : null;
}
"""


def _open(driver, name, cells):
    fname = write_notebook(driver.server, f"{name}-{driver.server.frontend}", cells)
    driver.open(fname, len(cells))
    driver.run(0)  # %load_ext jaxerrs


def _run_failing(driver, index, nth=0, timeout=90_000):
    """Run cell `index` and wait for its panel, which shows whole, the diff in it, from the first moment
    (the tests click Insert at once: it must insert the fixed cell, never the example).

    Returns the panel locator and the cell's execution count. The locator picks the `nth` panel
    of the notebook, so that it keeps pointing at this panel when cells are inserted above it."""
    driver.run(index, timeout=timeout)
    driver.cell(index).locator(".jaxerrs-panel").first.wait_for(timeout=timeout)
    panel = driver.page.locator(".jaxerrs-panel").nth(nth)
    assert panel.locator(".jaxerrs-rewrite pre.jaxerrs-diff").count() == 1
    count = driver.page.evaluate(PROMPT, [driver.cell_selector, index])
    assert isinstance(count, int), driver.cell(index).inner_text()
    return panel, count


def _assert_diff(panel):
    rewrite = panel.locator(".jaxerrs-rewrite")
    assert rewrite.count() == 1
    assert "Your cell, fixed" in rewrite.locator("h4").first.text_content()
    diff = rewrite.locator("pre.jaxerrs-diff")
    dels, adds = diff.locator("span.jaxerrs-diff-del"), diff.locator("span.jaxerrs-diff-add")
    assert dels.count() == 1 and adds.count() == 1, diff.inner_html()
    assert dels.first.text_content() == DEL_LINE
    assert adds.first.text_content() == ADD_LINE
    assert dels.first.is_visible() and adds.first.is_visible()
    safety = rewrite.locator("span.jaxerrs-safety")
    assert safety.count() == 1
    assert safety.text_content() == "safe"  # shown upper case by the CSS
    assert "jaxerrs-safety-safe" in (safety.get_attribute("class") or "").split()
    # With a rewrite, the example fix is collapsed and the one pair of buttons inserts the fixed cell.
    assert panel.get_by_role("button", name="Insert as new cell").count() == 1


def _assert_fixed_cell(source, count):
    first, _, rest = source.partition("\n")
    assert first == f"# jaxerrs: Cell In[{count}], fixed (at-set, safe)", source
    assert ".at[1].add(2.5)" in source and FIXED_LINE in rest.splitlines(), source
    assert "scores[1] += 2.5" not in source


def _click_insert(driver, panel, n_before):
    driver.page.page_errors.clear()
    panel.get_by_role("button", name="Insert as new cell").click()
    driver.page.wait_for_function(
        "([sel, n]) => document.querySelectorAll(sel).length === n + 1",
        arg=[driver.cell_selector, n_before],
        timeout=15_000,
    )
    panel.locator(".jaxerrs-fix-status").filter(has_text="Inserted below").wait_for(timeout=15_000)
    assert panel.get_by_role("button", name="Insert as new cell").is_disabled()


def _assert_runs_clean(driver, index):
    driver.run(index, timeout=90_000)
    cell = driver.cell(index)
    cell.locator(".jp-OutputArea-output, .output_area").filter(has_text="Array(").first.wait_for()
    assert cell.locator(driver.error_selector()).count() == 0, cell.inner_text()
    assert cell.locator(".jaxerrs-panel").count() == 0, cell.inner_text()
    assert ARRAY.search(cell.inner_text()), cell.inner_text()


def test_rewrite_diff_insert_idle_and_busy_then_run(driver, page):
    cells = [("cell-load", LOAD), ("cell-fail-a", SETITEM), ("cell-fail-b", SETITEM), ("cell-sleep", SLEEP)]
    _open(driver, "rewrite", cells)
    fe = driver.server.frontend
    panel_a, count_a = _run_failing(driver, 1)
    panel_b, count_b = _run_failing(driver, 2, nth=1)
    assert count_b == count_a + 1
    error = driver.cell(1).locator(driver.error_selector()).first.inner_text()
    assert "JAX arrays are immutable" in error, error
    _assert_diff(panel_a)
    _assert_diff(panel_b)

    # 1) Kernel idle: the fixed cell lands directly below the first failing cell.
    driver.wait_kernel("idle")
    before = driver.sources()
    _click_insert(driver, panel_a, len(before))
    after = driver.sources()
    assert after[:2] == before[:2] and after[3:] == before[2:], after
    _assert_fixed_cell(after[2], count_a)
    assert not page.page_errors, page.page_errors
    shot(page, f"{fe}-rewrite-inserted")

    # 2) Kernel busy (the sleep cell, now at index 4, runs): below the second failing cell, now at 3.
    driver.run(4, wait=False)
    driver.wait_kernel("busy", timeout=30)
    before = driver.sources()
    _click_insert(driver, panel_b, len(before))
    assert driver.server.kernel_state() == "busy", "the insert should have happened while the kernel was busy"
    after = driver.sources()
    assert after[:4] == before[:4] and after[5:] == before[4:], after
    _assert_fixed_cell(after[4], count_b)
    assert after[4] != after[2]  # each panel inserts its own cell: In[a] vs In[b]
    shot(page, f"{fe}-rewrite-inserted-busy")

    # 3) The inserted cells run clean in the same kernel and show the array.
    driver.wait_kernel("idle", timeout=60)
    _assert_runs_clean(driver, 2)
    _assert_runs_clean(driver, 4)
    shot(page, f"{fe}-rewrite-ran")
    assert not page.page_errors, page.page_errors


def _rgb(css: str) -> tuple[float, float, float, float]:
    nums = [float(v) for v in re.findall(r"[\d.]+", css)]
    return (nums[0], nums[1], nums[2], nums[3] if len(nums) > 3 else 1.0)


def _over(fg: tuple[float, float, float, float], bg: tuple[float, float, float, float]):
    a = fg[3]
    return tuple(fg[k] * a + bg[k] * (1 - a) for k in range(3)) + (1.0,)


def _luminance(c) -> float:
    def ch(v):
        v /= 255
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

    return 0.2126 * ch(c[0]) + 0.7152 * ch(c[1]) + 0.0722 * ch(c[2])


def _contrast(a, b) -> float:
    la, lb = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


# Per diff line and the safety label: text colour and the background stack up to the first opaque one.
DIFF_COLOURS = """
el => {
  const stack = (node) => {
    const out = [];
    for (let n = node; n && n.nodeType === 1; n = n.parentElement) {
      const bg = getComputedStyle(n).backgroundColor;
      out.push(bg);
      if (/^rgb\\(/.test(bg)) break;
    }
    return out;
  };
  const pick = (sel) => { const n = el.querySelector(sel);
                          return { color: getComputedStyle(n).color, bgs: stack(n) }; };
  return { add: pick('.jaxerrs-diff-add'), del: pick('.jaxerrs-diff-del'), ctx: pick('.jaxerrs-diff-ctx'),
           hunk: pick('.jaxerrs-diff-hunk'), safety: pick('.jaxerrs-safety') };
}
"""


def _contrasts(rewrite) -> dict[str, float]:
    out = {}
    for name, c in rewrite.evaluate(DIFF_COLOURS).items():
        bg = (255.0, 255.0, 255.0, 1.0)
        for layer in reversed(c["bgs"]):  # paint from the first opaque ancestor up
            bg = _over(_rgb(layer), bg)
        out[name] = round(_contrast(_over(_rgb(c["color"]), bg), bg), 2)
    return out


@pytest.mark.parametrize("frontend", ["lab"], indirect=True)
def test_rewrite_lab_light_and_dark_theme(driver, page, request):
    _open(driver, "rewrite-theme", [("cell-load", LOAD), ("cell-fail", SETITEM)])
    panel, _ = _run_failing(driver, 1)
    rewrite = panel.locator(".jaxerrs-rewrite")
    page.set_viewport_size({"width": 1200, "height": 2400})  # the whole panel in view for the shots
    assert page.evaluate("() => document.body.dataset.jpThemeLight") == "true"
    light = _contrasts(rewrite)
    shot(panel, "lab-rewrite-panel-light")
    shot(rewrite, "lab-rewrite-diff-light")
    choose_lab_dark_theme(page, driver.server, request)
    dark = _contrasts(rewrite)
    shot(panel, "lab-rewrite-panel-dark")
    shot(rewrite, "lab-rewrite-diff-dark")
    for theme, ratios in (("light", light), ("dark", dark)):
        print(f"\n[contrast] lab {theme}: {ratios}")
        # WCAG AA for text: 4.5 for the code lines, 3 for the small bold label and the hunk header.
        assert min(ratios["add"], ratios["del"], ratios["ctx"]) >= 4.5, (theme, ratios)
        assert ratios["safety"] >= 3 and ratios["hunk"] >= 3, (theme, ratios)


@pytest.mark.parametrize("frontend", ["lab"], indirect=True)
def test_flax_error_panel_in_lab_points_at_the_users_line(driver, page):
    """A Flax NNX model's shape error: the Flax record, the layer named, "In your code" on the user's line."""
    pytest.importorskip("flax.nnx")
    _open(driver, "flax", [("cell-load", LOAD), ("cell-flax", NNX_MLP)])
    driver.run(1, timeout=120_000)
    panel = driver.cell(1).locator(".jaxerrs-panel").first
    panel.wait_for(timeout=120_000)
    from jaxerrs.kb.records import find

    title = find("flax-nnx-linear-in-features").title.replace("`", "")
    assert title in panel.inner_text().replace("`", ""), panel.inner_text()[:400]
    where = panel.locator(".jaxerrs-where").first.inner_text()
    assert re.search(r"Cell In\[\d+\], line 11", where), where
    assert "site-packages" not in where and "linear.py" not in where
    assert panel.locator(".jaxerrs-userline").first.inner_text().strip().endswith("return self.l2(h)")
    note = panel.locator(".jaxerrs-note").first.inner_text()
    assert "self.l2" in note and "expects 4 input features" in note and "has 8" in note, note
    shot(panel, "lab-flax-panel")
    assert not page.page_errors, page.page_errors
