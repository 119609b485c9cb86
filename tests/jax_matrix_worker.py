"""Runs inside one JAX release's venv (see ``jax_matrix.py``): the gallery notebook and a handler smoke test.

Prints one JSON line: gallery cells naming their expected record, and what failed in the smoke test.
"""

from __future__ import annotations

import json
import re
import sys
import tempfile

import nbformat

from notebook_support import errors, execute, expected_record, panels, repo_root

BOOL_CELL = """
import jax

@jax.jit
def relu(x):
    if x > 0:
        return x
    return 0.0

relu(1.0)
"""


def gallery() -> tuple[int, int, list[str]]:
    nb = nbformat.read(repo_root() / "notebooks" / "gallery.ipynb", as_version=4)
    with tempfile.TemporaryDirectory() as cwd:
        execute(nb, cwd, timeout=180)
    from jaxerrs.kb.records import installed_jax

    right, total, misses = 0, 0, []
    for index, cell in enumerate(nb.cells):
        want = expected_record(cell, installed_jax()) if cell.cell_type == "code" else None
        if not want:
            continue
        total += 1
        found = panels(cell)
        got = found[0][2].get("data-record") if len(found) == 1 else None
        if got == want and errors(cell):
            right += 1
        else:
            err = errors(cell)
            what = f"{err[0][1].get('ename')}: {err[0][1].get('evalue', '')[:120]}" if err else "no error"
            misses.append(f"cell {index}: expected {want}, got {got} ({what})")
    return right, total, misses


def smoke() -> list[str]:
    """Loading imports no jax; a JAX error gets IPython's traceback then the panel; others are untouched."""
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.utils.capture import capture_output

    failures = []
    ip = InteractiveShell.instance()
    ip.history_manager.enabled = False
    ip.run_line_magic("load_ext", "jaxerrs")
    if "jax" in sys.modules:
        failures.append("loading the extension imported jax")
    from jaxerrs.extension import get_state

    with capture_output() as plain:
        ip.run_cell("1/0")
    if "jaxerrs" in plain.stdout + plain.stderr or "ZeroDivisionError" not in plain.stdout:
        failures.append(f"a ZeroDivisionError was not left alone: {plain.stdout[-300:]!r}")
    with capture_output() as cap:
        result = ip.run_cell(BOOL_CELL)
    out = cap.stdout
    if type(result.error_in_exec).__name__ != "TracerBoolConversionError":
        failures.append(f"the cell raised {result.error_in_exec!r}")
    tb_at, panel_at = out.find("TracerBoolConversionError"), out.find("── jaxerrs:")
    if not 0 <= tb_at < panel_at:
        failures.append(f"traceback then panel not found in {out[-400:]!r}")
    last = get_state(ip).last
    if last is None or last.record is None or last.record.id != "tracer-bool-conversion":
        failures.append(f"diagnosed as {getattr(getattr(last, 'record', None), 'id', None)}")
    elif not re.search(r"Cell In\[\d+\]|<ipython-input", str(last.to_dict().get("user_frame"))):
        failures.append(f"user_frame is not the cell: {last.to_dict().get('user_frame')}")
    import jax

    if not hasattr(jax, "shard_map"):  # a release older than the name: the panel says it is a newer one's
        with capture_output():
            ip.run_cell("import jax\njax.shard_map")
        last = get_state(ip).last
        if last is None or not any("is new in JAX 0.6.1" in n for n in last.notes):
            failures.append(f"jax.shard_map on JAX {jax.__version__}: notes {getattr(last, 'notes', None)}")
    with capture_output() as found:
        ip.run_line_magic("jaxerr", "search tracer bool")
    if "tracer-bool-conversion" not in found.stdout:
        failures.append(f"search did not list tracer-bool-conversion: {found.stdout[:300]!r}")
    return failures


def main() -> None:
    right, total, misses = gallery()
    result = {"gallery_right": right, "gallery_cells": total, "gallery_misses": misses,
              "smoke_failures": smoke()}
    print(json.dumps(result))


if __name__ == "__main__":
    main()
