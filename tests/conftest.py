"""Shared fixtures: a real IPython InteractiveShell per test, JAX as IPython runs it."""

from __future__ import annotations

import os
import sys

import pytest

# JAX under IPython keeps every frame (tracebackhide); tests outside a shell see the same.
os.environ.setdefault("JAX_TRACEBACK_FILTERING", "tracebackhide")
os.environ.setdefault("JAX_PLATFORMS", "cpu")


@pytest.fixture(scope="session")
def _ipython():
    from IPython.testing.globalipapp import start_ipython

    ip = start_ipython()
    ip.history_manager.enabled = False
    return ip


@pytest.fixture
def shell(_ipython):
    """The shared InteractiveShell, with jaxerrs unloaded and no custom handler before and after."""
    ip = _ipython
    ip.run_line_magic("unload_ext", "jaxerrs") if "jaxerrs" in ip.extension_manager.loaded else None
    ip.set_custom_exc((), None)
    saved_custom = ip.custom_exceptions
    yield ip
    if "jaxerrs" in ip.extension_manager.loaded:
        ip.run_line_magic("unload_ext", "jaxerrs")
    ip.set_custom_exc((), None)
    assert ip.custom_exceptions == saved_custom


def run(ip, code: str):
    """Run a cell; return (stdout, stderr, result) with displays captured."""
    from IPython.utils.capture import capture_output

    with capture_output() as cap:
        result = ip.run_cell(code)
    return cap, result


@pytest.fixture
def run_cell():
    return run


def pytest_configure(config):
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 3000))


# ---------------------------------------------------------------------------- the JAX version matrix


def pytest_collection_modifyitems(config, items):
    """The matrix's tests wait for the background matrix: run them last, when it has had the longest."""
    items.sort(key=lambda item: item.nodeid.startswith("tests/test_jax_matrix.py"))


def pytest_collection_finish(session):
    session.config.jax_matrix_wanted = any("matrix" in getattr(item, "fixturenames", ()) for item in session.items)


def pytest_runtest_setup(item):
    """Start the matrix (tests/jax_matrix.py) in the background once the browser tests are done (they run
    first and are timed), so that it overlaps the rest of the suite."""
    config = item.config
    if (getattr(config, "jax_matrix_wanted", False) and getattr(config, "jax_matrix", None) is None
            and not item.nodeid.startswith("tests/browser/")):
        import jax_matrix

        config.jax_matrix = jax_matrix.start(capture=jax_matrix.cache_root() / "captured")


def pytest_terminal_summary(terminalreporter):
    import jax_matrix

    if jax_matrix.REPORT:
        terminalreporter.write_sep("=", "JAX version matrix")
        rows = sorted(jax_matrix.REPORT.values(), key=lambda o: jax_matrix.version_key(o.version))
        terminalreporter.write_line(jax_matrix.table(rows))
