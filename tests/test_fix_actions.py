"""FixActions without a browser: traits, the mimebundle, and the shipped ESM."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("anywidget")

from jaxerrs.fix_actions import FixActions  # noqa: E402

ESM = Path(__file__).resolve().parents[1] / "src" / "jaxerrs" / "static" / "fix_actions.js"


def test_traits_are_synced():
    w = FixActions(code="x = 1  # fix", cell_id="abc-123")
    state = w.get_state()
    assert state["code"] == "x = 1  # fix"
    assert state["cell_id"] == "abc-123"
    assert state["status"] == ""
    for name in ("code", "cell_id", "status"):
        assert w.trait_metadata(name, "sync") is True


def test_defaults_and_missing_cell_id():
    w = FixActions()
    assert (w.code, w.cell_id, w.status) == ("", "", "")
    assert FixActions(code="y = 2", cell_id=None).cell_id == ""


def test_status_change_from_frontend_is_applied():
    w = FixActions(code="x = 1")
    seen = []
    w.observe(lambda change: seen.append(change["new"]), names="status")
    # What the frontend's save_changes() sends, as ipywidgets applies it.
    w.set_state({"status": "Inserted below"})
    assert w.status == "Inserted below"
    assert seen == ["Inserted below"]


def test_repr_mimebundle_is_a_widget_view():
    w = FixActions(code="x = 1")
    bundle = w._repr_mimebundle_()
    data = bundle[0] if isinstance(bundle, tuple) else bundle
    view = data["application/vnd.jupyter.widget-view+json"]
    assert view["model_id"] == w.model_id
    assert view["version_major"] == 2
    assert "text/plain" in data


def test_esm_file_ships_and_has_the_contract_texts():
    assert ESM.is_file()
    src = ESM.read_text(encoding="utf-8")
    # DOM contract (DESIGN.md): the buttons' visible texts.
    assert '"Insert as new cell"' in src
    assert '"Copy"' in src
    assert "export default" in src and "render" in src
    # The measured routes, feature-tested at click time.
    assert "sharedModel" in src and "insertCell" in src
    assert "insert_cell_at_index" in src
    assert "navigator.clipboard" in src and "execCommand" in src
    assert "%jaxerr fix" in src


def test_widget_state_carries_the_esm_source():
    w = FixActions(code="x = 1")
    esm = w.get_state()["_esm"]
    assert "Insert as new cell" in esm
    assert esm == ESM.read_text(encoding="utf-8")


def test_esm_path_points_into_the_package():
    import jaxerrs.fix_actions as mod

    assert (Path(mod.__file__).parent / "static" / "fix_actions.js").is_file()


def test_esm_parses_as_a_module(tmp_path):
    import shutil
    import subprocess

    node = shutil.which("node")
    if node is None:
        pytest.skip("node not installed")
    copy = tmp_path / "fix_actions.mjs"
    copy.write_text(ESM.read_text(encoding="utf-8"), encoding="utf-8")
    result = subprocess.run([node, "--check", str(copy)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
