"""Debug one proof-set case: ``python tests/rewrite_debug.py CASE_ID`` prints the panel, the context, the rewrite."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def main(cid: str) -> None:
    from IPython.core.interactiveshell import InteractiveShell

    import jaxerrs
    from jaxerrs.rewrite.context import build_context
    from rewrite_cases import load_cases

    ip = InteractiveShell.instance()
    ip.run_line_magic("load_ext", "jaxerrs")
    c = {c.id: c for c in load_cases()}[cid]
    ip.run_cell(c.setup)
    exc = ip.run_cell(c.cell).error_in_exec
    if exc is None:
        print("the cell did not raise")
        return
    d = jaxerrs.diagnose(exc)
    print("record:", d.record and d.record.id, "| rules:", d.record and d.record.rewrite)
    print("user frame:", d.evidence.user_frame, "| values:", d.values)
    ctx = build_context(d)
    print("context line:", ctx and ctx.line, "label:", ctx and ctx.label)
    print(json.dumps(d.to_dict()["rewrite"], indent=1))


if __name__ == "__main__":
    main(sys.argv[1])
