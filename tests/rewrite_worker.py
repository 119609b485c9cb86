"""Worker for ``tests/test_rewrite.py``: run failing cells in a real InteractiveShell with jaxerrs loaded.

``python tests/rewrite_worker.py [--set PACKAGE] ID [ID ...]`` (PACKAGE: ``rewrite_cases``, the default, or
``rewrite_heldout``) prints, after the marker, a JSON list of
``{"id", "raised", "is_jax", "record", "rewrite", "panel_rewrite", "label", "error"}`` where ``rewrite`` is
``jaxerrs.diagnose(exc).to_dict()["rewrite"]``, ``panel_rewrite`` the one the loaded extension's
handler computed for its panel and ``label`` the cell that rewrite is of ("Cell In[3]").
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

MARKER = "@@REWRITE-RESULTS@@"


def main(ids: list[str]) -> None:
    import importlib

    from IPython.core.interactiveshell import InteractiveShell
    from IPython.utils.capture import capture_output

    import jaxerrs
    from jaxerrs.extension import get_state
    package = "rewrite_cases"
    if ids[:1] == ["--set"]:
        package, ids = ids[1], ids[2:]
    cases = {c.id: c for c in importlib.import_module(package).load_cases()}
    ip = InteractiveShell.instance()
    ip.run_line_magic("load_ext", "jaxerrs")
    state = get_state(ip)
    out = []
    for cid in ids:
        c = cases[cid]
        _reset_without_collecting(ip)
        _settle(ip)
        state.last = None
        row = {"id": cid, "raised": None, "is_jax": None, "record": None, "rewrite": None,
               "panel_rewrite": None, "label": None, "error": None}
        with capture_output():
            setup = ip.run_cell(c.setup)
            earlier = getattr(c, "earlier", "")
            if setup.success and earlier:  # the failing definition lives in a cell of its own
                setup = ip.run_cell(earlier)
            result = ip.run_cell(c.cell) if setup.success else None
        if not setup.success:
            row["error"] = f"setup failed: {setup.error_in_exec!r}"
        elif result.success:
            row["error"] = "the cell did not raise"
        else:
            exc = result.error_in_exec
            row["raised"] = f"{type(exc).__name__}: {str(exc)[:300]}"
            d = jaxerrs.diagnose(exc).to_dict()
            row.update(is_jax=d["is_jax"], record=(d["record"] or {}).get("id"), rewrite=d["rewrite"])
            if state.last is not None and state.last.rewrite is not None:
                row["panel_rewrite"] = state.last.rewrite.to_dict()
                row["label"] = state.last.rewrite.label
        out.append(row)
    print(MARKER)
    print(json.dumps(out))


def _settle(ip) -> None:
    """Move what earlier cases left alive out of the garbage collector's reach (``gc.freeze``), so that the
    collector, and JAX's leak checker (which asks it for a leaked tracer's referrers), walk this case's objects
    only; then give the case a namespace of its own, made after the freeze, as a new notebook's is, so that the
    leak checker's chain of referrers ends at the notebook's module as in a notebook."""
    import gc

    gc.collect()
    gc.freeze()
    ip.init_create_namespaces()
    ip.init_sys_modules()
    ip.init_user_ns()


def _reset_without_collecting(ip) -> None:
    """``ip.reset(new_session=False)`` for the next case, all of it but the full ``gc.collect()`` its output
    cache's flush ends with: with JAX's objects alive that took about half of the proof set's first phase (248 s
    against 123 s without it, two workers over the 600 cells). Python's own collector still runs as it always does."""
    import gc

    collect = gc.collect
    gc.collect = lambda *args, **kwargs: 0
    try:
        ip.reset(new_session=False)
    finally:
        gc.collect = collect


if __name__ == "__main__":
    main(sys.argv[1:])
