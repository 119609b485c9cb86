// jaxerrs panel actions: "Insert as new cell" and "Copy" for a panel's fix, in the browser.
// One classic script, two ways in (docs/panels.md):
//   - the JupyterLab 4 / Notebook 7 extension (lab_extension.js) imports it and wires each panel it
//     renders, live or in a reopened notebook, with an inserter that edits the notebook's model;
//   - the panel's own text/html embeds it as an inline script element, which frontends that run a trusted
//     output's scripts execute (nbclassic, VS Code, Colab, a page exported by nbconvert): there Insert
//     uses nbclassic's Jupyter.notebook where it exists and says plainly why not elsewhere.
// Where no script runs (GitHub, nbviewer, an untrusted notebook), the buttons stay disabled and the
// status line, written by the kernel, says what to do instead.
(function () {
  "use strict";
  if (window.jaxerrsPanelActions) return;

  const NOT_HERE = "Insert is not available here: use Copy, or run %jaxerr fix in a new cell.";
  const INSERTED = "Inserted below";

  // nbclassic: the cell whose element holds the panel; insert below it.
  function classicInsert(el, code) {
    const nb = window.Jupyter && window.Jupyter.notebook;
    if (!nb || typeof nb.insert_cell_at_index !== "function") return { ok: false, text: NOT_HERE };
    const i = nb.get_cells().findIndex((c) => c.element && c.element[0] && c.element[0].contains(el));
    if (i < 0) return { ok: false, text: "Could not find the failing cell: use Copy." };
    nb.insert_cell_at_index("code", i + 1).set_text(code);
    return { ok: true, text: INSERTED };
  }

  async function copyText(text) {
    try {
      await navigator.clipboard.writeText(text);
      return true;
    } catch (_err) {
      // Older browsers, insecure origins, webviews, denied permission: the textarea route.
      const area = document.createElement("textarea");
      area.value = text;
      area.setAttribute("readonly", "");
      area.style.cssText = "position:fixed;top:0;left:0;opacity:0;";
      document.body.appendChild(area);
      area.select();
      let ok = false;
      try {
        ok = document.execCommand("copy");
      } catch (_e) {
        ok = false;
      }
      area.remove();
      return ok;
    }
  }

  // Wire one panel's buttons. `fix` is the code to insert or copy (null: the panel's hidden
  // .jaxerrs-fixed-cell); `insert(el, code)` returns {ok, text}. Wiring twice does nothing.
  function wire(panel, fix, insert) {
    const box = panel && panel.querySelector(".jaxerrs-actions");
    if (!box || box.dataset.wired === "1") return false;
    const code = fix != null ? String(fix) : (panel.querySelector(".jaxerrs-fixed-cell") || {}).textContent;
    const ins = box.querySelector(".jaxerrs-insert");
    const cp = box.querySelector(".jaxerrs-copy");
    const status = box.querySelector(".jaxerrs-fix-status");
    if (!code || !ins || !cp || !status) return false;
    box.dataset.wired = "1";
    const show = (text, isError) => {
      status.textContent = text;
      status.classList.toggle("jaxerrs-error", !!isError);
    };
    show("");
    ins.disabled = false;
    cp.disabled = false;
    ins.addEventListener("click", () => {
      if (ins.disabled) return;
      ins.disabled = true;
      let result;
      try {
        result = insert(panel, code);
      } catch (err) {
        result = { ok: false, text: `Insert failed (${err && err.message ? err.message : err}): use Copy.` };
      }
      show(result.text, !result.ok);
      if (result.ok) ins.title = "Already inserted; use Copy to get the fix again";
      else ins.disabled = false;
    });
    cp.addEventListener("click", async () => {
      const ok = await copyText(code);
      show(ok ? "Copied" : "Could not copy: select the code and copy it by hand.", !ok);
    });
    return true;
  }

  // The inline script's entry: wire every panel with this id (an output can be shown twice). Frontends
  // may run the script before they attach the output to the page (nbclassic does), so look again on the
  // next frames until it is there.
  function wireInline(uid, tries) {
    const found = document.querySelectorAll(`.jaxerrs-panel[data-jaxerrs-uid="${uid}"]`);
    found.forEach((p) => wire(p, null, classicInsert));
    const left = tries === undefined ? 100 : tries;
    if (!found.length && left > 0) {
      const again = () => wireInline(uid, left - 1);
      if (window.requestAnimationFrame) window.requestAnimationFrame(again);
      else setTimeout(again, 16);
    }
  }

  window.jaxerrsPanelActions = { wire, wireInline, classicInsert, copyText, NOT_HERE, INSERTED };
})();
