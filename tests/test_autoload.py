"""`jaxerrs enable|disable [--status]`: a marked block in IPYTHONDIR/profile_default/ipython_config.py."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


def _env(ipdir: Path) -> dict[str, str]:
    return dict(os.environ, IPYTHONDIR=str(ipdir), JAX_PLATFORMS="cpu")


def jx(ipdir: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "jaxerrs", *args], capture_output=True, text=True,
                          env=_env(ipdir), timeout=120)


def cfg(ipdir: Path) -> Path:
    return ipdir / "profile_default" / "ipython_config.py"


def test_enable_then_fresh_ipython_shows_panel(tmp_path):
    ipdir = tmp_path / "ipy"
    r = jx(ipdir, "enable")
    assert r.returncode == 0 and "enabled" in r.stdout
    code = "import jax; jax.jit(lambda x: x if x > 0 else -x)(1.0)"
    r = subprocess.run([sys.executable, "-m", "IPython", "--colors=nocolor", "-c", code], capture_output=True,
                       text=True, env=_env(ipdir), timeout=300)
    out = r.stdout + r.stderr
    assert "TracerBoolConversionError" in out
    assert "── jaxerrs: TracerBoolConversionError" in out and "What it means" in out, out[-3000:]
    assert out.index("TracerBoolConversionError: Attempted") < out.index("── jaxerrs")  # after the traceback
    # Disabled again: the same command shows IPython's traceback only.
    assert jx(ipdir, "disable").returncode == 0
    r = subprocess.run([sys.executable, "-m", "IPython", "--colors=nocolor", "-c", code], capture_output=True,
                       text=True, env=_env(ipdir), timeout=300)
    out = r.stdout + r.stderr
    assert "TracerBoolConversionError" in out and "jaxerrs" not in out


def test_enable_twice_and_status(tmp_path):
    ipdir = tmp_path / "ipy"
    r = jx(ipdir, "enable", "--status")
    assert r.returncode == 0 and "not enabled" in r.stdout and not cfg(ipdir).exists()
    assert jx(ipdir, "enable").returncode == 0
    once = cfg(ipdir).read_bytes()
    r = jx(ipdir, "enable")
    assert r.returncode == 0 and "already enabled" in r.stdout
    assert cfg(ipdir).read_bytes() == once
    assert once.count(b"jaxerrs enable") == 1
    r = jx(ipdir, "disable", "--status")
    assert r.returncode == 0 and "is enabled" in r.stdout
    assert cfg(ipdir).read_bytes() == once  # --status changes nothing
    assert jx(ipdir, "disable").returncode == 0
    r = jx(ipdir, "disable")
    assert r.returncode == 0 and "was not enabled" in r.stdout


PRIOR = {
    "content": "c = get_config()  # noqa\nc.TerminalInteractiveShell.confirm_exit = False\n",
    "no-trailing-newline": "c = get_config()\nc.InteractiveShell.autocall = 0",
    "user-extensions": "c = get_config()\nc.InteractiveShellApp.extensions = ['autoreload']\n"
                       "c.InteractiveShellApp.exec_lines = ['%autoreload 2']\n",
    "crlf": "c = get_config()\r\nc.InteractiveShell.autocall = 0\r\n",
    "empty": "",
    "blank-lines-at-end": "c = get_config()\n\n\n",
}


@pytest.mark.parametrize("kind", [None, *PRIOR])
def test_disable_restores_exact_bytes(tmp_path, kind):
    ipdir = tmp_path / "ipy"
    path = cfg(ipdir)
    if kind is not None:
        path.parent.mkdir(parents=True)
        path.write_bytes(PRIOR[kind].encode())
    assert jx(ipdir, "enable").returncode == 0
    text = path.read_text()
    assert "jaxerrs" in text
    if kind is not None:
        assert text.startswith(PRIOR[kind].replace("\r\n", "\n")) or path.read_bytes().startswith(
            PRIOR[kind].encode())
    assert jx(ipdir, "enable").returncode == 0  # idempotent in between
    assert jx(ipdir, "disable").returncode == 0
    if kind is None:
        assert not path.exists()
    else:
        assert path.read_bytes() == PRIOR[kind].encode()


def test_user_extensions_line_kept_and_both_load(tmp_path):
    ipdir = tmp_path / "ipy"
    path = cfg(ipdir)
    path.parent.mkdir(parents=True)
    path.write_text("c = get_config()\nc.InteractiveShellApp.extensions = ['autoreload']\n")
    assert jx(ipdir, "enable").returncode == 0
    assert "c.InteractiveShellApp.extensions = ['autoreload']" in path.read_text()
    code = "print(sorted(get_ipython().extension_manager.loaded))"
    r = subprocess.run([sys.executable, "-m", "IPython", "-c", code], capture_output=True, text=True,
                       env=_env(ipdir), timeout=120)
    assert "autoreload'" in r.stdout and "'jaxerrs'" in r.stdout, r.stdout + r.stderr


def test_later_user_extensions_line_is_reported(tmp_path):
    """A user who adds `extensions = [...]` after our block (a later edit) replaces the list: status says so."""
    ipdir = tmp_path / "ipy"
    assert jx(ipdir, "enable").returncode == 0
    path = cfg(ipdir)
    path.write_text(path.read_text() + "c.InteractiveShellApp.extensions = ['autoreload']\n")
    code = "print(sorted(get_ipython().extension_manager.loaded))"
    r = subprocess.run([sys.executable, "-m", "IPython", "-c", code], capture_output=True, text=True,
                       env=_env(ipdir), timeout=120)
    assert "'jaxerrs'" not in r.stdout  # IPython's config semantics: the later assignment wins
    status = jx(ipdir, "enable", "--status").stdout
    assert "replaces the list" in status and "not loaded" in status
    assert jx(ipdir, "disable").returncode == 0
    assert path.read_text() == "c.InteractiveShellApp.extensions = ['autoreload']\n"
