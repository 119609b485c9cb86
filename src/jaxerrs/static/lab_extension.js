// jaxerrs for JupyterLab 4 and Notebook 7 (prebuilt with `jupyter labextension build`, see package.json).
// A mime renderer for application/vnd.jaxerrs.panel+json: it shows the panel from the same output's
// text/html (sanitized when the output is untrusted) and wires Insert / Copy, in a live notebook and
// in a reopened one, with or without a kernel. Ranked before ipywidgets' renderer and before text/html.
// Insert edits the notebook's shared model directly below the failing cell (docs/panels.md).
import { Widget } from "@lumino/widgets";
import "./panel_actions.js";

const MIME = "application/vnd.jaxerrs.panel+json";
let app = null; // the JupyterFrontEnd, from the plugin below

function notebookOf(el) {
  if (!app || !app.shell || typeof app.shell.widgets !== "function") return null;
  for (const area of ["main", "down", "left", "right"]) {
    let widgets;
    try {
      widgets = app.shell.widgets(area);
    } catch (_err) {
      continue;
    }
    for (const w of widgets) {
      const nb = w && w.content;
      if (nb && nb.model && nb.model.sharedModel && w.node && w.node.contains(el)) return nb;
    }
  }
  return null;
}

function labInsert(cellId) {
  return (el, code) => {
    const nb = notebookOf(el);
    if (!nb) return { ok: false, text: window.jaxerrsPanelActions.NOT_HERE };
    const shared = nb.model.sharedModel;
    let i = cellId ? Array.from(shared.cells).findIndex((c) => c.id === cellId) : -1;
    if (i < 0) i = Array.from(nb.widgets || []).findIndex((c) => c.node && c.node.contains(el));
    if (i < 0) return { ok: false, text: "Could not find the failing cell: use Copy." };
    shared.insertCell(i + 1, { cell_type: "code", source: code });
    return { ok: true, text: window.jaxerrsPanelActions.INSERTED };
  };
}

class PanelRenderer extends Widget {
  constructor(options) {
    super();
    this._sanitizer = options.sanitizer;
    this.addClass("jaxerrs-rendered");
  }

  async renderModel(model) {
    const data = model.data[MIME] || {};
    let html = String(model.data["text/html"] || "");
    if (!model.trusted && this._sanitizer) html = this._sanitizer.sanitize(html);
    this.node.innerHTML = html; // scripts inserted this way never run; the panel's own is removed below
    // The panel's script, and the copy of the fix it reads (a sanitizer drops its `hidden`): ours is data.fix.
    this.node.querySelectorAll("script, .jaxerrs-fixed-cell").forEach((s) => s.remove());
    const panel = this.node.querySelector(".jaxerrs-panel");
    if (panel && typeof data.fix === "string" && data.fix) {
      window.jaxerrsPanelActions.wire(panel, data.fix, labInsert(String(data.cell_id || "")));
    }
  }
}

const rendererFactory = {
  safe: true, // it shows only the output's own HTML, sanitized unless trusted, and adds two buttons
  mimeTypes: [MIME],
  createRenderer: (options) => new PanelRenderer(options),
};

// lab_plugin.js hands over the application when JupyterLab activates it.
export function setApp(application) {
  app = application;
}

export default { id: "jaxerrs:panel", rendererFactory, rank: -20, dataType: "json" };
