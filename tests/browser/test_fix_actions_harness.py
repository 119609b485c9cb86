"""fix_actions.js in Chromium against fake frontends (no Jupyter server; fast).

Covers what the real frontends cannot easily show: the cell id beats the widget's position, the
DOM and windowed-index fallbacks, the nbclassic route, the "not available here" message, errors,
the clipboard fallback, re-rendered views remembering an insert, and the theme variables.
"""

from __future__ import annotations

from pathlib import Path

import pytest

ESM = Path(__file__).resolve().parents[2] / "src" / "jaxerrs" / "static" / "fix_actions.js"
ORIGIN = "http://localhost"  # a secure context, so navigator.clipboard exists

HARNESS = """<!doctype html><html><body>
<div id="host"></div>
<script type="module">
import widget from "./fix_actions.js";
// A stand-in for anywidget's model proxy: get/set/save_changes/on/off (+ widget_manager).
window.fakeModel = (state, extra = {}) => {
  const handlers = {};
  const model = {
    saved: 0,
    get: (k) => state[k],
    set: (k, v) => { state[k] = v; (handlers["change:" + k] || []).forEach((f) => f()); },
    save_changes: () => { model.saved += 1; },
    on: (n, f) => { (handlers[n] = handlers[n] || []).push(f); },
    off: (n, f) => { handlers[n] = (handlers[n] || []).filter((g) => g !== f); },
    state,
  };
  return Object.assign(model, extra);
};
// A notebook DOM: N cells; the widget's el goes into cell `at` (or nowhere when at < 0).
window.mount = (n, at, attrs = {}) => {
  const host = document.getElementById("host");
  host.innerHTML = "";
  const nb = document.createElement("div");
  nb.className = "jp-Notebook";
  const cells = [];
  for (let i = 0; i < n; i++) {
    const c = document.createElement("div");
    c.className = "jp-Cell";
    if (attrs[i] !== undefined) c.dataset.windowedListIndex = attrs[i];
    nb.appendChild(c);
    cells.push(c);
  }
  host.appendChild(nb);
  const el = document.createElement("div");
  (at >= 0 ? cells[at] : host).appendChild(el);
  return { el, cells };
};
// A fake Lab shared model that records insertCell calls.
window.fakeShared = (ids, opts = {}) => ({
  cells: ids.map((id) => ({ id })),
  calls: [],
  insertCell(index, cell) {
    if (opts.throws) throw new Error(opts.throws);
    this.calls.push([index, cell]);
  },
});
window.widget = widget;
window.ready = true;
</script></body></html>"""


@pytest.fixture
def harness(chromium):
    context = chromium.new_context()
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=ORIGIN)
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(exc.message))
    pg.route(f"{ORIGIN}/harness.html", lambda r: r.fulfill(body=HARNESS, content_type="text/html"))
    pg.route(
        f"{ORIGIN}/fix_actions.js",
        lambda r: r.fulfill(body=ESM.read_text(encoding="utf-8"), content_type="text/javascript"),
    )
    pg.goto(f"{ORIGIN}/harness.html")
    pg.wait_for_function("() => window.ready === true")
    yield pg
    assert not errors, errors
    context.close()


def lab(page, ids, n_cells, at, cell_id, attrs=None, clicks=1, throws=None):
    """Render with a fake Lab shared model, click Insert `clicks` times; return (calls, status)."""
    return page.evaluate(
        """([ids, n, at, cellId, attrs, clicks, throws]) => {
            const shared = fakeShared(ids, { throws });
            const model = fakeModel({ code: "x = 1  # fix", cell_id: cellId, status: "" },
                                    { widget_manager: { context: { model: { sharedModel: shared } } } });
            const { el } = mount(n, at, attrs || {});
            widget.render({ model, el });
            const button = el.querySelector(".jaxerrs-insert");
            for (let i = 0; i < clicks; i++) button.click();
            return { calls: shared.calls, status: model.state.status, saved: model.saved,
                     shown: el.querySelector(".jaxerrs-fix-status").textContent,
                     disabled: button.disabled };
        }""",
        [ids, n_cells, at, cell_id, attrs, clicks, throws],
    )


def test_renders_the_contract_buttons(harness):
    texts = harness.evaluate(
        """() => { const { el } = mount(1, 0);
                   widget.render({ model: fakeModel({ code: "a", cell_id: "", status: "" }), el });
                   return Array.from(el.querySelectorAll("button")).map((b) => b.textContent); }"""
    )
    assert texts == ["Insert as new cell", "Copy"]


def test_lab_cell_id_wins_over_position(harness):
    r = lab(harness, ["a", "b", "c"], 3, 2, "a")
    assert r["calls"] == [[1, {"cell_type": "code", "source": "x = 1  # fix"}]]
    assert r["status"] == r["shown"] == "Inserted below"
    assert r["saved"] == 1 and r["disabled"] is True


def test_lab_falls_back_to_the_cell_holding_the_widget(harness):
    assert lab(harness, ["a", "b", "c"], 3, 1, "")["calls"][0][0] == 2
    assert lab(harness, ["a", "b", "c"], 3, 1, "gone")["calls"][0][0] == 2


def test_lab_windowed_notebook_uses_the_model_index(harness):
    # Lab's windowed notebook keeps only some cells in the DOM; each carries its model index.
    r = lab(harness, [f"c{i}" for i in range(10)], 3, 1, "", attrs={0: "6", 1: "7", 2: "8"})
    assert r["calls"][0][0] == 8


def test_lab_no_cell_found(harness):
    r = lab(harness, ["a"], 1, -1, "")
    assert r["calls"] == []
    assert "Could not find the failing cell" in r["status"]
    assert r["disabled"] is False


def test_insert_error_is_reported(harness):
    r = lab(harness, ["a"], 1, 0, "a", throws="read-only notebook")
    assert "Insert failed" in r["status"] and "read-only notebook" in r["status"]
    assert r["disabled"] is False


def test_many_clicks_insert_once(harness):
    r = lab(harness, ["a", "b"], 2, 0, "a", clicks=5)
    assert len(r["calls"]) == 1
    assert r["disabled"] is True


def test_a_new_view_of_an_inserted_widget_stays_disabled(harness):
    r = harness.evaluate(
        """() => { const model = fakeModel({ code: "a", cell_id: "", status: "Inserted below" });
                   const { el } = mount(1, 0);
                   widget.render({ model, el });
                   // Copy afterwards must not re-arm Insert.
                   model.set("status", "Copied");
                   return el.querySelector(".jaxerrs-insert").disabled; }"""
    )
    assert r is True


def test_nbclassic_route(harness):
    r = harness.evaluate(
        """() => {
            const { el, cells } = mount(3, 1);
            const calls = [];
            window.Jupyter = { notebook: {
                get_cells: () => cells.map((c) => ({ element: [c] })),
                insert_cell_at_index(type, i) { const rec = [type, i, null]; calls.push(rec);
                    return { set_text: (t) => { rec[2] = t; } }; },
            } };
            try {
                const model = fakeModel({ code: "x = 1  # fix", cell_id: "", status: "" });
                widget.render({ model, el });
                el.querySelector(".jaxerrs-insert").click();
                el.querySelector(".jaxerrs-insert").click();
                return { calls, status: model.state.status };
            } finally { delete window.Jupyter; }
        }"""
    )
    assert r["calls"] == [["code", 2, "x = 1  # fix"]]
    assert r["status"] == "Inserted below"


def test_elsewhere_insert_explains_and_points_at_copy(harness):
    r = harness.evaluate(
        """() => { const { el } = mount(1, 0);
                   // A widget manager without a notebook context (e.g. VS Code, Colab, Voila).
                   const model = fakeModel({ code: "a", cell_id: "" , status: "" }, { widget_manager: {} });
                   widget.render({ model, el });
                   el.querySelector(".jaxerrs-insert").click();
                   const s = el.querySelector(".jaxerrs-fix-status");
                   return { text: s.textContent, error: s.classList.contains("jaxerrs-error"),
                            disabled: el.querySelector(".jaxerrs-insert").disabled }; }"""
    )
    assert "not available here" in r["text"]
    assert "Copy" in r["text"] and "%jaxerr fix" in r["text"]
    assert r["error"] is True and r["disabled"] is False


def test_copy_uses_the_clipboard(harness):
    harness.evaluate(
        """() => { const { el } = mount(1, 0);
                   window.m = fakeModel({ code: "y = 2\\nprint(y)", cell_id: "", status: "" });
                   widget.render({ model: window.m, el });
                   el.querySelector(".jaxerrs-copy").click(); }"""
    )
    harness.wait_for_function("() => window.m.state.status === 'Copied'")
    assert harness.evaluate("() => navigator.clipboard.readText()") == "y = 2\nprint(y)"
    assert harness.locator(".jaxerrs-fix-status").inner_text() == "Copied"


def test_copy_falls_back_to_exec_command(harness):
    r = harness.evaluate(
        """async () => {
            const copied = [];
            Object.defineProperty(navigator, "clipboard", { configurable: true,
                value: { writeText: () => Promise.reject(new Error("denied")) } });
            document.execCommand = (cmd) => { copied.push([cmd, document.activeElement.value]); return true; };
            const { el } = mount(1, 0);
            const model = fakeModel({ code: "z = 3", cell_id: "", status: "" });
            widget.render({ model, el });
            el.querySelector(".jaxerrs-copy").click();
            await new Promise((r) => setTimeout(r, 50));
            return { copied, status: model.state.status, leftovers: document.querySelectorAll("textarea").length };
        }"""
    )
    assert r["copied"] == [["copy", "z = 3"]]
    assert r["status"] == "Copied"
    assert r["leftovers"] == 0


def test_copy_failure_is_reported(harness):
    r = harness.evaluate(
        """async () => {
            Object.defineProperty(navigator, "clipboard", { configurable: true, value: undefined });
            document.execCommand = () => false;
            const { el } = mount(1, 0);
            const model = fakeModel({ code: "z = 3", cell_id: "", status: "" });
            widget.render({ model, el });
            el.querySelector(".jaxerrs-copy").click();
            await new Promise((r) => setTimeout(r, 50));
            return model.state.status;
        }"""
    )
    assert r.startswith("Could not copy")


def test_theme_variables_drive_the_colors(harness):
    colors = harness.evaluate(
        """() => { const { el } = mount(1, 0);
                   widget.render({ model: fakeModel({ code: "a", cell_id: "", status: "" }), el });
                   const b = el.querySelector(".jaxerrs-insert");
                   const before = [getComputedStyle(b).color, getComputedStyle(b).backgroundColor];
                   const root = document.documentElement.style;
                   root.setProperty("--jp-ui-font-color1", "rgb(1, 2, 3)");
                   root.setProperty("--jp-layout-color2", "rgb(4, 5, 6)");
                   return [before, [getComputedStyle(b).color, getComputedStyle(b).backgroundColor]]; }"""
    )
    fallback, themed = colors
    assert fallback == ["rgb(34, 34, 34)", "rgb(238, 238, 238)"]  # the fallbacks, outside Jupyter
    assert themed == ["rgb(1, 2, 3)", "rgb(4, 5, 6)"]


def test_cleanup_unsubscribes(harness):
    n = harness.evaluate(
        """() => { const { el } = mount(1, 0);
                   const model = fakeModel({ code: "a", cell_id: "", status: "" });
                   let subs = 0; const on = model.on, off = model.off;
                   model.on = (n, f) => { subs += 1; on(n, f); };
                   model.off = (n, f) => { subs -= 1; off(n, f); };
                   const cleanup = widget.render({ model, el });
                   if (typeof cleanup === "function") cleanup();
                   return subs; }"""
    )
    assert n == 0
