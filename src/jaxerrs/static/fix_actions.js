// jaxerrs FixActions: "Insert as new cell" and "Copy" for a fix, run in the browser.
// anywidget ESM. Traits: code (fix source), cell_id (failing cell, may be ""), status (set here).
// Insert routes (DESIGN.md, "Frontends and the insert button"), feature-tested at click time:
//   JupyterLab 4 / Notebook 7: widget_manager.context.model.sharedModel.insertCell(i + 1, ...)
//   nbclassic:                 Jupyter.notebook.insert_cell_at_index('code', i + 1).set_text(...)
//   elsewhere:                 explain, and point at Copy or %jaxerr fix.

const CSS = `
.jaxerrs-fix-actions { display: flex; align-items: center; gap: 6px; margin: 4px 0;
  font-family: var(--jp-ui-font-family, system-ui, sans-serif); font-size: var(--jp-ui-font-size1, 13px); }
.jaxerrs-fix-actions button { cursor: pointer; padding: 2px 10px; border-radius: 3px; font: inherit;
  color: var(--jp-ui-font-color1, #222); background: var(--jp-layout-color2, #eee);
  border: 1px solid var(--jp-border-color1, #bbb); }
.jaxerrs-fix-actions button:hover:not(:disabled) { background: var(--jp-layout-color3, #ddd); }
.jaxerrs-fix-actions button:focus-visible { outline: 1px solid var(--jp-brand-color1, #1976d2); }
.jaxerrs-fix-actions button:disabled { cursor: default; opacity: 0.6; }
.jaxerrs-fix-actions .jaxerrs-fix-status { color: var(--jp-ui-font-color2, #555); }
.jaxerrs-fix-actions .jaxerrs-fix-status.jaxerrs-error { color: var(--jp-error-color1, #c62828); }
`;

const NOT_HERE = "Insert is not available here: use Copy, or run %jaxerr fix in a new cell.";

// JupyterLab 4 / Notebook 7: the notebook's shared model, if this frontend exposes it.
function sharedNotebook(model) {
  try {
    const shared = model.widget_manager?.context?.model?.sharedModel;
    return shared && typeof shared.insertCell === "function" && shared.cells ? shared : null;
  } catch {
    return null;
  }
}

// Index of the failing cell in the shared model: by cell id, else by where the widget sits.
function labCellIndex(shared, cellId, el) {
  const cells = Array.from(shared.cells);
  if (cellId) {
    const i = cells.findIndex((c) => c.id === cellId);
    if (i >= 0) return i;
  }
  const cell = el.closest(".jp-Cell");
  const notebook = cell && cell.closest(".jp-Notebook");
  if (!cell || !notebook) return -1;
  const windowed = cell.dataset.windowedListIndex; // set when Lab renders the notebook windowed
  if (windowed !== undefined && windowed !== "") return Number(windowed);
  return Array.from(notebook.querySelectorAll(".jp-Cell")).indexOf(cell);
}

function insertBelow(model, el, code) {
  const shared = sharedNotebook(model);
  if (shared) {
    const i = labCellIndex(shared, model.get("cell_id"), el);
    if (i < 0) return { ok: false, text: "Could not find the failing cell: use Copy." };
    shared.insertCell(i + 1, { cell_type: "code", source: code });
    return { ok: true, text: "Inserted below" };
  }
  const nb = window.Jupyter?.notebook;
  if (nb && typeof nb.insert_cell_at_index === "function") {
    const i = nb.get_cells().findIndex((c) => c.element && c.element[0].contains(el));
    if (i < 0) return { ok: false, text: "Could not find the failing cell: use Copy." };
    nb.insert_cell_at_index("code", i + 1).set_text(code);
    return { ok: true, text: "Inserted below" };
  }
  return { ok: false, text: NOT_HERE };
}

async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // Older browsers, insecure origins, denied permission: the textarea route.
    const area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.style.cssText = "position:fixed;top:0;left:0;opacity:0;";
    document.body.appendChild(area);
    area.select();
    let ok = false;
    try {
      ok = document.execCommand("copy");
    } catch {
      ok = false;
    }
    area.remove();
    return ok;
  }
}

function render({ model, el }) {
  const root = document.createElement("div");
  root.className = "jaxerrs-fix-actions";
  const style = document.createElement("style");
  style.textContent = CSS;
  const insert = document.createElement("button");
  insert.type = "button";
  insert.className = "jaxerrs-insert";
  insert.textContent = "Insert as new cell";
  insert.title = "Insert the fix as a new code cell below the failing cell";
  const copy = document.createElement("button");
  copy.type = "button";
  copy.className = "jaxerrs-copy";
  copy.textContent = "Copy";
  copy.title = "Copy the fix to the clipboard";
  const status = document.createElement("span");
  status.className = "jaxerrs-fix-status";
  status.setAttribute("role", "status");
  status.setAttribute("aria-live", "polite");
  root.append(style, insert, copy, status);
  el.appendChild(root);

  let inserting = false;
  let inserted = model.get("status") === "Inserted below"; // e.g. a re-rendered view

  const show = (text, isError = false) => {
    status.textContent = text;
    status.classList.toggle("jaxerrs-error", isError);
    if (model.get("status") !== text) {
      model.set("status", text);
      model.save_changes();
    }
  };
  // Once inserted (in this or another view of the same widget), never insert again.
  const sync = () => {
    if (model.get("status") === "Inserted below") inserted = true;
    status.textContent = model.get("status") || "";
    insert.disabled = inserting || inserted;
    if (inserted) insert.title = "Already inserted; use Copy to get the fix again";
  };

  insert.addEventListener("click", () => {
    if (inserting || insert.disabled) return;
    inserting = true;
    insert.disabled = true;
    let result;
    try {
      result = insertBelow(model, el, model.get("code") || "");
    } catch (err) {
      result = { ok: false, text: `Insert failed (${err && err.message ? err.message : err}): use Copy.` };
    }
    inserting = false;
    if (result.ok) inserted = true;
    show(result.text, !result.ok);
    sync();
  });

  copy.addEventListener("click", async () => {
    const ok = await copyText(model.get("code") || "");
    show(ok ? "Copied" : "Could not copy: select the code and copy it by hand.", !ok);
  });

  model.on("change:status", sync);
  sync();
  return () => model.off("change:status", sync);
}

export default { render };
