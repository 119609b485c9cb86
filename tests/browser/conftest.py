"""End-to-end fixtures: real JupyterLab / Notebook 7 / nbclassic servers driven by headless Chromium.

One server per frontend per test session (started on first use, stopped at the end), each with its
own temporary root, settings, config, runtime and IPython dirs, no token and no password. Every
test gets a fresh browser context (clipboard permissions granted) and a fresh notebook; its kernels
are shut down afterwards. Playwright drives the system Chromium: never `playwright install`.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # jxbrowser, also under --import-mode=importlib

from jxbrowser import (  # noqa: E402
    CHROMIUM,
    CHROMIUM_ARGS,
    FRONTENDS,
    LATENCIES,
    REPO,
    Driver,
    Server,
    make_driver,
    shot,
    start_server,
)

try:
    from playwright.sync_api import sync_playwright
except ImportError:  # pragma: no cover - depends on the environment
    sync_playwright = None


def pytest_collection_modifyitems(config, items):
    reason = None
    if sync_playwright is None:
        reason = "playwright (python) is not installed"
    elif not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)):
        reason = f"no Chromium at {CHROMIUM} (run .ci/browser-setup.sh)"
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.browser)
            if reason:
                item.add_marker(pytest.mark.skip(reason=reason))


@pytest.fixture(scope="session")
def _servers(tmp_path_factory):
    started: dict[str, Server] = {}
    base = tmp_path_factory.mktemp("jupyter")

    def get(frontend: str) -> Server:
        if frontend not in started:
            started[frontend] = start_server(frontend, base)
        return started[frontend]

    yield get
    for server in started.values():
        server.stop()


@pytest.fixture(params=FRONTENDS)
def frontend(request) -> str:
    return request.param


@pytest.fixture
def server(_servers, frontend) -> Server:
    srv = _servers(frontend)
    yield srv
    srv.shutdown_kernels()


# --------------------------------------------------------------------------- browser


@pytest.fixture(scope="session")
def chromium():
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(chromium, server, request):
    context = chromium.new_context(viewport={"width": 1200, "height": 900})
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.base)
    context.set_default_timeout(30_000)
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(f"{exc.message}\n{exc.stack}"))
    pg.page_errors = errors
    yield pg
    if getattr(request.node, "rep_call", None) is not None and request.node.rep_call.failed:
        try:
            shot(pg, f"FAILED-{request.node.name}")
        except Exception:
            pass
    context.close()


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    rep = yield
    if rep.when == "call":
        item.rep_call = rep
    return rep


@pytest.fixture
def driver(server, page) -> Driver:
    return make_driver(server, page)


def pytest_terminal_summary(terminalreporter):
    if not LATENCIES:
        return
    terminalreporter.section("jaxerrs browser latencies (performance.now() in the page)")
    for what, ms in LATENCIES:
        terminalreporter.write_line(f"{what:<45} {ms:8.1f} ms")
    out = REPO / "artifacts" / "browser-latencies.json"
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps([{"what": w, "ms": round(ms, 1)} for w, ms in LATENCIES], indent=1))
    except OSError:
        pass
