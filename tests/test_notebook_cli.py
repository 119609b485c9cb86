"""`jaxerrs notebook`: real notebooks executed with nbclient (jaxerrs NOT loaded, so the errors are saved
as IPython shows them), then listed and annotated by the CLI in a subprocess."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

JAX_CELLS = {  # cell index -> (source, expected record id)
    2: ("jax.jit(lambda x: x if x > 0 else -x)(1.0)", "tracer-bool-conversion"),
    4: ("jnp.ones(3) + jnp.ones(4)", "binary-op-incompatible-shapes"),
    7: ("jnp.ones(6).reshape(4, 2)", "reshape-size-mismatch"),
}
OTHER_CELLS = {
    3: "undefined_name + 1",  # NameError in a notebook that imports jax: not a JAX error
    5: "raise ValueError('my own validation failed')",
    6: "print('fine')",
    8: "1 / 0",
    9: "@jax.jit\ndef f(x):\n    raise RuntimeError('user raise inside jit')\nf(1.0)",  # the user's raise
}


def _errors_notebook(minor: int = 5):
    nb = nbformat.v4.new_notebook()
    cells = [nbformat.v4.new_markdown_cell("# Errors\nSome JAX errors and some others."),
             nbformat.v4.new_code_cell("import jax\nimport jax.numpy as jnp")]
    for i in range(2, 10):
        src = JAX_CELLS[i][0] if i in JAX_CELLS else OTHER_CELLS[i]
        cells.append(nbformat.v4.new_code_cell(src, metadata={"tags": [f"cell{i}"]}))
    nb.cells = cells
    nb.metadata["custom"] = {"keep": [1, 2, 3]}
    if minor < 5:
        nb.nbformat_minor = minor
        for c in nb.cells:
            c.pop("id", None)
    return nb


def _widgets_notebook():
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("import ipywidgets as widgets\nimport jax.numpy as jnp\n"
                                          "s = widgets.IntSlider(value=3, description='n')\ns"),
                nbformat.v4.new_code_cell("jnp.zeros((2, 3)) @ jnp.zeros((4, 5))"),
                nbformat.v4.new_code_cell("s.value")]
    return nb


def _execute(nb, path: Path, store_widget_state: bool = False) -> Path:
    from nbclient import NotebookClient

    NotebookClient(nb, kernel_name="python3", allow_errors=True, timeout=180,
                   store_widget_state=store_widget_state, resources={"metadata": {"path": str(path.parent)}}).execute()
    nbformat.write(nb, str(path))
    return path


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    d = tmp_path_factory.mktemp("nbs")
    ipdir = d / "ipython"  # an empty IPython dir: the kernel loads no jaxerrs even if the user enabled it
    ipdir.mkdir()
    old = {k: os.environ.get(k) for k in ("IPYTHONDIR", "JAX_PLATFORMS")}
    os.environ.update(IPYTHONDIR=str(ipdir), JAX_PLATFORMS="cpu")
    try:
        errors = _execute(_errors_notebook(), d / "errors.ipynb")
        errors44 = _execute(_errors_notebook(minor=4), d / "errors44.ipynb")
        widgets = _execute(_widgets_notebook(), d / "widgets.ipynb", store_widget_state=True)
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return {"errors": errors, "errors44": errors44, "widgets": widgets}


def cli(*args) -> subprocess.CompletedProcess:
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    return subprocess.run([sys.executable, "-m", "jaxerrs", "notebook", *map(str, args)],
                          capture_output=True, text=True, timeout=300, env=env)


def sha(p: Path) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()


def _is_generated(cell) -> bool:
    return bool(cell.get("metadata", {}).get("jaxerrs", {}).get("generated"))


def test_executed_notebook_holds_the_errors(executed):
    nb = nbformat.read(str(executed["errors"]), as_version=4)
    errored = {i for i, c in enumerate(nb.cells) if any(o.output_type == "error" for o in c.get("outputs", []))}
    assert errored == set(JAX_CELLS) | {3, 5, 8, 9}
    assert not any("jaxerrs" in json.dumps(c.get("outputs", [])) for c in nb.cells)  # not loaded


def test_list_text(executed):
    p = executed["errors"]
    before = sha(p)
    r = cli(p)
    assert r.returncode == 0, r.stderr
    for i, (_src, rid) in JAX_CELLS.items():
        assert f"cell {i}:" in r.stdout and rid in r.stdout
    for i in OTHER_CELLS:
        assert f"cell {i}:" not in r.stdout
    assert sha(p) == before


def test_list_json(executed):
    r = cli(executed["errors"], "--format", "json")
    assert r.returncode == 0, r.stderr
    found = json.loads(r.stdout)
    assert {f["cell_index"]: f["diagnosis"]["record"]["id"] for f in found} == \
        {i: rid for i, (_s, rid) in JAX_CELLS.items()}
    nb = nbformat.read(str(executed["errors"]), as_version=4)
    for f in found:
        assert f["cell_id"] == nb.cells[f["cell_index"]].id
        assert f["diagnosis"]["is_jax"] is True
        assert f["diagnosis"]["site"]["path"].startswith("jax/")


def _check_written(src: Path, out: Path) -> None:
    nb_in = json.loads(src.read_text())
    nb_out = json.loads(out.read_text())
    nbformat.validate(nbformat.reads(out.read_text(), as_version=nbformat.NO_CONVERT))
    # Every original cell, output and the metadata unchanged; generated cells only right after JAX errors.
    kept = [c for c in nb_out["cells"] if not _is_generated(c)]
    assert kept == nb_in["cells"]
    assert {k: v for k, v in nb_out.items() if k != "cells"} == {k: v for k, v in nb_in.items() if k != "cells"}
    gen_after: dict[int, list[dict]] = {}
    orig = -1
    for c in nb_out["cells"]:
        if _is_generated(c):
            gen_after.setdefault(orig, []).append(c)
        else:
            orig += 1
    assert set(gen_after) == set(JAX_CELLS)
    for i, cells in gen_after.items():
        assert [c["cell_type"] for c in cells] == ["markdown", "code"]
        md, code = cells
        rid = JAX_CELLS[i][1]
        assert rid in json.dumps(md["metadata"]) and "jaxerrs" in "".join(md["source"])
        assert code["metadata"]["jaxerrs"]["generated"] is True and code["metadata"]["jaxerrs"]["record"] == rid
        assert code["outputs"] == [] and code["execution_count"] is None
        from jaxerrs.kb.records import find

        source = "".join(code["source"])
        if code["metadata"]["jaxerrs"].get("rewrite"):  # the failing cell, fixed
            assert source.startswith(f"# jaxerrs: Cell In[{i}], fixed (") and "fixed" in source
            assert code["metadata"]["jaxerrs"]["safety"] in ("safe", "review")
            compile(source, "<fixed>", "exec")
        else:
            assert find(rid).fix.after.strip() in source


@pytest.mark.parametrize("which", ["errors", "errors44"])
def test_write_annotates_and_is_idempotent(executed, tmp_path, which):
    src = executed[which]
    before = sha(src)
    out = tmp_path / "out.ipynb"
    r = cli(src, "--write", out)
    assert r.returncode == 0, r.stderr
    assert "3 cell(s)" not in r.stdout and "6 cell(s) added" in r.stdout
    assert sha(src) == before
    _check_written(src, out)
    out2 = tmp_path / "out2.ipynb"
    r = cli(out, "--write", out2)
    assert r.returncode == 0, r.stderr
    assert "0 cell(s) added" in r.stdout
    assert out2.read_bytes() == out.read_bytes()
    # Listing the annotated notebook still finds the three errors, not the generated cells.
    found = json.loads(cli(out, "--format", "json").stdout)
    assert len(found) == 3


def test_write_adds_the_fixed_cell_and_it_runs(tmp_path):
    """The failing cell's own source, fixed, follows it; executing the written notebook runs it clean."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("import jax\nimport jax.numpy as jnp"),
                nbformat.v4.new_code_cell("scores = jnp.zeros(3)\n# bump the winner\nscores[1] += 2.5\nscores")]
    src = _execute(nb, tmp_path / "setitem.ipynb")
    out = tmp_path / "fixed.ipynb"
    r = cli(src, "--write", out)
    assert r.returncode == 0, r.stderr
    written = nbformat.read(str(out), as_version=4)
    fixed = written.cells[3]
    meta = fixed.metadata["jaxerrs"]
    assert meta["rewrite"] == "at-set" and meta["safety"] == "safe"
    assert "scores = scores.at[1].add(2.5)" in fixed.source and "# bump the winner" in fixed.source
    _execute(written, tmp_path / "ran.ipynb")
    assert not [o for o in written.cells[3].outputs if o.output_type == "error"]
    assert "2.5" in json.dumps(written.cells[3].outputs)


def test_widget_state_kept(executed, tmp_path):
    src = executed["widgets"]
    nb_in = json.loads(src.read_text())
    state = nb_in["metadata"]["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    assert any(m.get("model_name") == "IntSliderModel" for m in state.values())
    out = tmp_path / "w.ipynb"
    r = cli(src, "--write", out)
    assert r.returncode == 0, r.stderr
    nb_out = json.loads(out.read_text())
    nbformat.validate(nbformat.reads(out.read_text(), as_version=nbformat.NO_CONVERT))
    assert nb_out["metadata"] == nb_in["metadata"]
    assert [c for c in nb_out["cells"] if not _is_generated(c)] == nb_in["cells"]
    assert [_is_generated(c) for c in nb_out["cells"]] == [False, False, True, True, False]
    assert nb_out["cells"][2]["metadata"]["jaxerrs"]["record"] == "dot-general-contracting-mismatch"


def _bad(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


@pytest.mark.parametrize("name,text,words", [
    ("list.ipynb", "[1, 2, 3]", "not a notebook"),
    ("dict.ipynb", '{"cells": [], "metadata": {}}', "not a notebook"),
    ("broken.ipynb", '{"cells": [', "not valid JSON"),
    ("empty.ipynb", "", "not valid JSON"),
    ("v2.ipynb", '{"nbformat": 2, "nbformat_minor": 0, "worksheets": []}', "not supported"),
])
def test_bad_input_exit_2(tmp_path, name, text, words):
    p = _bad(tmp_path, name, text)
    out = tmp_path / "out.ipynb"
    r = cli(p, "--write", out)
    assert r.returncode == 2
    assert words in r.stderr and str(p) in r.stderr
    assert "Traceback" not in r.stderr
    assert p.read_text() == text and not out.exists()


def test_missing_file_and_directory(tmp_path):
    r = cli(tmp_path / "nope.ipynb")
    assert r.returncode == 2 and "no such file" in r.stderr
    r = cli(tmp_path)
    assert r.returncode == 2 and "directory" in r.stderr


def test_write_onto_input_refused(executed, tmp_path):
    src = tmp_path / "in.ipynb"
    src.write_bytes(executed["errors"].read_bytes())
    before = sha(src)
    for target in (src, tmp_path / "." / "in.ipynb"):
        r = cli(src, "--write", target)
        assert r.returncode == 2
        assert "input" in r.stderr and "never modified" in r.stderr
        assert sha(src) == before
    link = tmp_path / "link.ipynb"
    link.symlink_to(src)
    r = cli(src, "--write", link)
    assert r.returncode == 2 and sha(src) == before


def test_nbformat_v3_is_upgraded(tmp_path):
    v3 = {"nbformat": 3, "nbformat_minor": 0, "metadata": {"name": "old"}, "worksheets": [{"cells": [
        {"cell_type": "code", "input": "jnp.ones(3) + jnp.ones(4)", "language": "python", "metadata": {},
         "prompt_number": 1, "outputs": [{"output_type": "pyerr", "ename": "TypeError",
                                          "evalue": "add got incompatible shapes for broadcasting: (3,), (4,).",
                                          "traceback": ["TypeError: add got incompatible shapes for broadcasting: "
                                                        "(3,), (4,)."]}]}]}]}
    p = _bad(tmp_path, "v3.ipynb", json.dumps(v3))
    before = sha(p)
    r = cli(p, "--format", "json")
    assert r.returncode == 0, r.stderr
    assert "nbformat 3" in r.stderr
    assert json.loads(r.stdout)[0]["diagnosis"]["record"]["id"] == "binary-op-incompatible-shapes"
    out = tmp_path / "v3out.ipynb"
    r = cli(p, "--write", out)
    assert r.returncode == 0, r.stderr
    nb = nbformat.read(str(out), as_version=nbformat.NO_CONVERT)
    assert nb.nbformat == 4
    nbformat.validate(nb)
    assert sha(p) == before


def test_no_jax_errors_exit_1(tmp_path):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("print(1)")]
    p = tmp_path / "clean.ipynb"
    nbformat.write(nb, str(p))
    r = cli(p)
    assert r.returncode == 1 and "no JAX error" in r.stdout
