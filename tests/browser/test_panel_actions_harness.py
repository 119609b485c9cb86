"""panel_actions.js in Chromium on a real panel's HTML, against fake frontends (no Jupyter server; fast).

The panel's text/html carries its own script (what nbclassic, VS Code, Colab and exported pages run).
Covers: it wires its own panel, also when the frontend runs it before attaching the output (nbclassic
does); the nbclassic insert route, once however often it is clicked; the "not available here" message;
Copy with the clipboard, its fallback and its failure; the disabled buttons and their reason where no
script runs (GitHub, untrusted); the theme variables.
"""

from __future__ import annotations

import pytest

ORIGIN = "http://localhost"  # a secure context, so navigator.clipboard exists

HARNESS = """<!doctype html><html><body><div id="host"></div>
<script>
// Show an output's HTML as a frontend does: innerHTML, then its scripts run (jQuery-style, in <head>).
// attachFirst=false runs them while the output is not yet in the page, as nbclassic's append_html does.
window.showOutput = (html, { attachFirst = true, runScripts = true } = {}) => {
  const box = document.createElement("div");
  box.className = "output";
  box.innerHTML = html;
  const host = document.getElementById("host");
  if (attachFirst) host.appendChild(box);
  if (runScripts) box.querySelectorAll("script").forEach((old) => {
    const s = document.createElement("script");
    s.textContent = old.textContent;
    document.head.appendChild(s).remove();
  });
  if (!attachFirst) host.appendChild(box);
  return box;
};
window.fakeClassic = (box, nCells, at) => {
  const cells = [];
  const host = document.getElementById("host");
  for (let i = 0; i < nCells; i++) { const c = document.createElement("div"); host.appendChild(c); cells.push(c); }
  cells[at].appendChild(box);
  const calls = [];
  window.Jupyter = { notebook: {
    get_cells: () => cells.map((c) => ({ element: [c] })),
    insert_cell_at_index(type, i) { const rec = [type, i, null]; calls.push(rec);
      return { set_text: (t) => { rec[2] = t; } }; },
  } };
  return calls;
};
window.ready = true;
</script></body></html>"""


@pytest.fixture(scope="module")
def panel():
    from jaxerrs.kb.records import find
    from jaxerrs.panel import Panel
    from jaxerrs.views import record_diagnosis

    return Panel(record_diagnosis(find("tracer-bool-conversion")))


@pytest.fixture
def harness(chromium):
    context = chromium.new_context()
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=ORIGIN)
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(exc.message))
    pg.route(f"{ORIGIN}/harness.html", lambda r: r.fulfill(body=HARNESS, content_type="text/html"))
    pg.goto(f"{ORIGIN}/harness.html")
    pg.wait_for_function("() => window.ready === true")
    yield pg
    assert not errors, errors
    context.close()


def _state(page):
    return page.evaluate(
        """() => { const p = document.querySelector('.jaxerrs-panel');
                   const ins = p.querySelector('.jaxerrs-insert'), cp = p.querySelector('.jaxerrs-copy');
                   const s = p.querySelector('.jaxerrs-fix-status');
                   return { insert: ins.textContent, copy: cp.textContent, insertDisabled: ins.disabled,
                            copyDisabled: cp.disabled, status: s.textContent,
                            error: s.classList.contains('jaxerrs-error') }; }""")


def test_without_a_script_the_buttons_say_why(harness, panel):
    harness.evaluate("html => showOutput(html, { runScripts: false })", panel.html)
    st = _state(harness)
    assert (st["insert"], st["copy"]) == ("Insert as new cell", "Copy")  # the DOM contract
    assert st["insertDisabled"] and st["copyDisabled"]
    assert "Insert and Copy work in a notebook with jaxerrs installed" in st["status"]


@pytest.mark.parametrize("attach_first", [True, False])
def test_the_panel_wires_itself(harness, panel, attach_first):
    harness.evaluate("([html, a]) => showOutput(html, { attachFirst: a })", [panel.html, attach_first])
    harness.wait_for_function("() => !document.querySelector('.jaxerrs-insert').disabled")
    st = _state(harness)
    assert not st["copyDisabled"] and st["status"] == ""


def test_nbclassic_route_inserts_once(harness, panel):
    r = harness.evaluate(
        """html => { const box = showOutput(html, { runScripts: false });
                     const calls = fakeClassic(box, 3, 1);
                     box.querySelectorAll('script').forEach((old) => { const s = document.createElement('script');
                       s.textContent = old.textContent; document.head.appendChild(s).remove(); });
                     const b = box.querySelector('.jaxerrs-insert');
                     b.click(); b.click(); b.click();
                     return { calls, status: box.querySelector('.jaxerrs-fix-status').textContent,
                              disabled: b.disabled }; }""",
        panel.html,
    )
    assert r["calls"] == [["code", 2, panel.fix]]
    assert r["status"] == "Inserted below" and r["disabled"] is True


def test_elsewhere_insert_explains_and_points_at_copy(harness, panel):
    harness.evaluate("html => showOutput(html)", panel.html)
    harness.locator(".jaxerrs-insert").click()
    st = _state(harness)
    assert "not available here" in st["status"] and "Copy" in st["status"] and "%jaxerr fix" in st["status"]
    assert st["error"] is True and st["insertDisabled"] is False


def test_copy_uses_the_clipboard(harness, panel):
    harness.evaluate("html => showOutput(html)", panel.html)
    harness.locator(".jaxerrs-copy").click()
    harness.locator(".jaxerrs-fix-status").filter(has_text="Copied").wait_for()
    assert harness.evaluate("() => navigator.clipboard.readText()") == panel.fix


def test_copy_falls_back_to_exec_command(harness, panel):
    r = harness.evaluate(
        """async (html) => {
            const copied = [];
            Object.defineProperty(navigator, "clipboard", { configurable: true,
                value: { writeText: () => Promise.reject(new Error("denied")) } });
            document.execCommand = (cmd) => { copied.push([cmd, document.activeElement.value]); return true; };
            const box = showOutput(html);
            box.querySelector(".jaxerrs-copy").click();
            await new Promise((r) => setTimeout(r, 50));
            return { copied, status: box.querySelector(".jaxerrs-fix-status").textContent,
                     leftovers: document.querySelectorAll("textarea").length };
        }""",
        panel.html,
    )
    assert r == {"copied": [["copy", panel.fix]], "status": "Copied", "leftovers": 0}


def test_copy_failure_is_reported(harness, panel):
    status = harness.evaluate(
        """async (html) => {
            Object.defineProperty(navigator, "clipboard", { configurable: true, value: undefined });
            document.execCommand = () => false;
            const box = showOutput(html);
            box.querySelector(".jaxerrs-copy").click();
            await new Promise((r) => setTimeout(r, 50));
            return box.querySelector(".jaxerrs-fix-status").textContent;
        }""",
        panel.html,
    )
    assert status.startswith("Could not copy")


def test_theme_variables_drive_the_colors(harness, panel):
    fallback, themed = harness.evaluate(
        """html => { const b = showOutput(html).querySelector('.jaxerrs-copy');
                     const before = [getComputedStyle(b).color, getComputedStyle(b).backgroundColor];
                     const root = document.documentElement.style;
                     root.setProperty("--jp-ui-font-color1", "rgb(1, 2, 3)");
                     root.setProperty("--jp-layout-color2", "rgb(4, 5, 6)");
                     return [before, [getComputedStyle(b).color, getComputedStyle(b).backgroundColor]]; }""",
        panel.html,
    )
    assert fallback == ["rgb(34, 34, 34)", "rgb(238, 238, 238)"]  # the fallbacks, outside Jupyter
    assert themed == ["rgb(1, 2, 3)", "rgb(4, 5, 6)"]
