"""Helpers for the browser tests: Jupyter servers, frontend drivers, the insert-latency probe."""

from __future__ import annotations

import importlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

CHROMIUM = os.environ.get("JAXERRS_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
REPO = Path(__file__).resolve().parents[2]
SCREENSHOTS = REPO / "artifacts" / "screenshots"
FRONTENDS = ("lab", "notebook7", "nbclassic")
SERVER_START_TIMEOUT = 90


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _http(method: str, url: str, body: dict | None = None, timeout: float = 10):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout) as resp:
        raw = resp.read()
    return json.loads(raw) if raw else None


@dataclass
class Server:
    frontend: str
    port: int
    root: Path
    home: Path
    proc: subprocess.Popen
    log: Path
    base: str = field(init=False)

    def __post_init__(self):
        self.base = f"http://127.0.0.1:{self.port}"

    @property
    def settings_dir(self) -> Path:
        return self.home / "lab-settings"

    def notebook_url(self, name: str) -> str:
        if self.frontend == "lab":  # ?reset: a fresh workspace, not the tabs the last test left open
            return f"{self.base}/lab/tree/{name}?reset"
        prefix = {"notebook7": "/notebooks/", "nbclassic": "/nbclassic/notebooks/"}
        return self.base + prefix[self.frontend] + name

    def api(self, method: str, path: str, body: dict | None = None, timeout: float = 10):
        return _http(method, self.base + path, body, timeout)

    def kernels(self) -> list[dict]:
        return self.api("GET", "/api/kernels")

    def kernel_state(self) -> str | None:
        """The only kernel's execution state; None while there is not exactly one, or the server
        cannot list it yet (jupyter_server answers 500 while a kernel is still starting)."""
        try:
            ks = self.kernels()
        except (OSError, ValueError):
            return None
        return ks[0]["execution_state"] if len(ks) == 1 else None

    def shutdown_kernels(self) -> None:
        for session in self.api("GET", "/api/sessions"):
            try:
                self.api("DELETE", f"/api/sessions/{session['id']}")
            except Exception:
                pass
        for kernel in self.kernels():
            try:
                self.api("DELETE", f"/api/kernels/{kernel['id']}")
            except Exception:
                pass

    def log_tail(self, n: int = 40) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-n:])
        except OSError:
            return ""

    def stop(self) -> None:
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGTERM)
                self.proc.wait(timeout=15)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                pass
        try:  # the server's own process group: its kernels too
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait(timeout=10)


def _write_lab_settings(settings: Path, theme: str = "JupyterLab Light") -> None:
    """No news toast, no update check; the theme given (used by Lab and Notebook 7)."""
    apputils = settings / "@jupyterlab" / "apputils-extension"
    apputils.mkdir(parents=True, exist_ok=True)
    (apputils / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False})
    )
    (apputils / "themes.jupyterlab-settings").write_text(json.dumps({"theme": theme}))


def set_lab_theme(server: Server, theme: str) -> None:
    _write_lab_settings(server.settings_dir, theme)


def choose_lab_dark_theme(page, server: Server, request) -> None:  # noqa: ANN001 - Playwright page, pytest request
    """Settings > Theme > JupyterLab Dark, as a user would; Lab saves it, so it is put back after the test."""
    request.addfinalizer(lambda: set_lab_theme(server, "JupyterLab Light"))
    page.locator("#jp-MainMenu").get_by_text("Settings", exact=True).click()
    page.locator(".lm-Menu").get_by_text("Theme", exact=True).hover()
    page.locator(".lm-Menu").get_by_text("JupyterLab Dark", exact=True).click()
    page.wait_for_function("() => document.body.dataset.jpThemeLight === 'false'")
    page.wait_for_timeout(500)


def start_server(frontend: str, base_dir: Path) -> Server:
    home = base_dir / frontend
    root = home / "root"
    for d in (root, home / "config", home / "runtime", home / "ipython", home / "workspaces"):
        d.mkdir(parents=True, exist_ok=True)
    _write_lab_settings(home / "lab-settings")
    port = _free_port()
    app = {"lab": "lab", "notebook7": "notebook", "nbclassic": "nbclassic"}[frontend]
    cmd = [
        sys.executable, "-m", "jupyter", app,
        "--no-browser", "--allow-root",
        f"--port={port}", "--ServerApp.ip=127.0.0.1", "--ServerApp.port_retries=0",
        f"--ServerApp.root_dir={root}",
        "--IdentityProvider.token=", "--ServerApp.password=",
        "--ServerApp.disable_check_xsrf=True",
    ]  # fmt: skip
    if frontend == "nbclassic":
        cmd.append("--NotebookApp.show_banner=False")
    env = dict(os.environ)
    env.update(
        JUPYTER_CONFIG_DIR=str(home / "config"),
        JUPYTER_RUNTIME_DIR=str(home / "runtime"),
        JUPYTERLAB_SETTINGS_DIR=str(home / "lab-settings"),
        JUPYTERLAB_WORKSPACES_DIR=str(home / "workspaces"),
        IPYTHONDIR=str(home / "ipython"),
        JAX_PLATFORMS="cpu",
        PYTHONUNBUFFERED="1",
    )
    log = home / "server.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            cmd, cwd=root, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    server = Server(frontend, port, root, home, proc, log)
    deadline = time.monotonic() + SERVER_START_TIMEOUT
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{frontend} server exited early:\n{server.log_tail()}")
        try:
            server.api("GET", "/api/status", timeout=2)
            return server
        except Exception:
            time.sleep(0.25)
    server.stop()
    raise RuntimeError(
        f"{frontend} server did not answer within {SERVER_START_TIMEOUT}s:\n{server.log_tail()}"
    )


def shot(page_or_locator, name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in name)
    path = SCREENSHOTS / f"{safe}.png"
    page_or_locator.screenshot(path=str(path))
    return path


def write_notebook(server: Server, name: str, cells: list[tuple[str, str]]) -> str:
    """Write NAME.ipynb into the server's root with (cell id, source) code cells."""
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    for cell_id, source in cells:
        cell = nbformat.v4.new_code_cell(source)
        cell.id = cell_id
        nb.cells.append(cell)
    fname = f"{name}.ipynb"
    nbformat.write(nb, server.root / fname)
    return fname


class Driver:
    """What the tests need from a frontend: open, run a cell, read sources, find cells."""

    cell_selector: str
    kind: str

    def __init__(self, server: Server, page):
        self.server = server
        self.page = page

    def cells(self):
        return self.page.locator(self.cell_selector)

    def cell(self, i: int):
        return self.cells().nth(i)

    def wait_kernel(self, state: str = "idle", timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.server.kernel_state() == state:
                return
            time.sleep(0.1)
        raise AssertionError(f"kernel not {state} after {timeout}s: {self.server.kernels()}")


class LabDriver(Driver):
    """JupyterLab 4 and Notebook 7 (same notebook DOM)."""

    cell_selector = ".jp-Notebook .jp-Cell"
    kind = "lab"

    def open(self, fname: str, n_cells: int) -> None:
        self.fname = fname
        self.page.goto(self.server.notebook_url(fname))
        self.page.wait_for_function(
            "n => document.querySelectorAll('.jp-Notebook .jp-Cell').length === n",
            arg=n_cells,
            timeout=60_000,
        )
        self.page.wait_for_selector('.jp-Notebook-ExecutionIndicator[data-status="idle"]', timeout=60_000)
        self.wait_kernel("idle")

    def run(self, i: int, wait: bool = True, timeout: float = 60_000) -> None:
        cell = self.cell(i)
        cell.locator(".jp-InputPrompt").first.click()
        self.page.keyboard.press("Control+Enter")  # run in place: never adds a cell
        if wait:
            self.page.wait_for_function(
                """([sel, i]) => {
                    const c = document.querySelectorAll(sel)[i];
                    const p = c && c.querySelector('.jp-InputPrompt');
                    return p && /^\\[\\d+\\]:?$/.test(p.textContent.trim());
                }""",
                arg=[self.cell_selector, i],
                timeout=timeout,
            )

    def sources(self) -> list[str]:
        """The notebook model's cell sources, as the frontend saves them.

        Lab renders the editors of off-screen cells lazily, so the DOM is not a reliable source
        of truth; save (Ctrl+S) and read the file back instead."""
        path = self.server.root / self.fname
        before = path.stat().st_mtime_ns
        for _attempt in range(4):  # a save still finishing swallows the next Ctrl+S: press again
            self.page.keyboard.press("Control+s")
            deadline = time.monotonic() + 4
            while path.stat().st_mtime_ns == before and time.monotonic() < deadline:
                time.sleep(0.05)
            if path.stat().st_mtime_ns != before:
                break
        else:
            raise AssertionError(f"{self.fname} was not saved")
        self.page.wait_for_timeout(200)  # let the frontend finish its save before the next one
        for _ in range(50):  # the file may be mid-write
            try:
                cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
                return [c["source"] if isinstance(c["source"], str) else "".join(c["source"]) for c in cells]
            except (ValueError, KeyError):
                time.sleep(0.1)
        raise AssertionError(f"could not read {path}")

    def error_selector(self) -> str:
        return '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]'


class ClassicDriver(Driver):
    cell_selector = "#notebook-container > .cell"
    kind = "classic"

    def open(self, fname: str, n_cells: int) -> None:
        self.page.goto(self.server.notebook_url(fname))
        self.page.wait_for_function(
            """n => window.Jupyter && Jupyter.notebook && Jupyter.notebook._fully_loaded
                 && Jupyter.notebook.kernel && Jupyter.notebook.kernel.is_connected()
                 && Jupyter.notebook.get_cells().length === n""",
            arg=n_cells,
            timeout=60_000,
        )
        self.wait_kernel("idle")

    def run(self, i: int, wait: bool = True, timeout: float = 60_000) -> None:
        self.page.evaluate("i => Jupyter.notebook.execute_cells([i])", i)
        if wait:
            self.page.wait_for_function(
                """i => { const c = Jupyter.notebook.get_cell(i);
                          return c && typeof c.input_prompt_number === 'number'; }""",
                arg=i,
                timeout=timeout,
            )

    def sources(self) -> list[str]:
        return self.page.evaluate("() => Jupyter.notebook.get_cells().map(c => c.get_text())")

    def error_selector(self) -> str:
        return ".output_error"


def make_driver(server: Server, page) -> Driver:
    return (ClassicDriver if server.frontend == "nbclassic" else LabDriver)(server, page)


# Measures, in the page, click -> new cell with the expected source in the DOM (performance.now()).
INSTALL_INSERT_PROBE = """
([cellSel, kind, expected, before]) => {
  const text = (c) => kind === 'classic'
    ? ((c.querySelector('.CodeMirror') || {}).CodeMirror || {getValue: () => ''}).getValue()
    : (c.querySelector('.jp-InputArea-editor .cm-content') || {innerText: ''}).innerText;
  window.__jxClick = null;
  document.addEventListener('click', (e) => {
    if (window.__jxClick === null && e.target.closest && e.target.closest('.jaxerrs-insert')) {
      window.__jxClick = performance.now();
    }
  }, true);
  window.__jxInserted = new Promise((resolve) => {
    const check = () => {
      const cells = document.querySelectorAll(cellSel);
      if (cells.length > before && Array.from(cells).some((c) => text(c) === expected)) {
        obs.disconnect();
        resolve(performance.now());
      }
    };
    const obs = new MutationObserver(check);
    obs.observe(document.body, {childList: true, subtree: true, characterData: true, attributes: true});
    setTimeout(() => { obs.disconnect(); resolve(null); }, 15000);
  });
}
"""


def install_insert_probe(driver: Driver, expected: str) -> None:
    before = driver.cells().count()
    driver.page.evaluate(INSTALL_INSERT_PROBE, [driver.cell_selector, driver.kind, expected, before])


def insert_latency_ms(driver: Driver) -> float:
    t1 = driver.page.evaluate("() => window.__jxInserted")
    t0 = driver.page.evaluate("() => window.__jxClick")
    assert t1 is not None, "the inserted cell never appeared"
    assert t0 is not None, "the click on the insert button was not seen"
    return t1 - t0


LATENCIES: list[tuple[str, float]] = []


def record_latency(what: str, ms: float) -> None:
    """Print a measured latency now (visible with -s) and keep it for the session summary."""
    LATENCIES.append((what, ms))
    print(f"\n[latency] {what}: {ms:.1f} ms")


def have_jaxerrs_extension() -> bool:
    """True once the IPython extension imports (it does not import jax, so this is cheap)."""
    try:
        importlib.import_module("jaxerrs.extension")
    except Exception:
        return False
    return True
