"""Debug one proof-set case: python tests/rewrite_debug.py CASE_ID (prints the panel, the context and the rewrite)."""
import sys; sys.path.insert(0,'tests')
from IPython.core.interactiveshell import InteractiveShell
import jaxerrs
from rewrite_cases import load_cases
ip = InteractiveShell.instance()
ip.run_line_magic("load_ext", "jaxerrs")
cid = sys.argv[1]
c = {c.id: c for c in load_cases()}[cid]
ip.run_cell(c.setup)
r = ip.run_cell(c.cell)
exc = r.error_in_exec
d = jaxerrs.diagnose(exc)
print("record", d.record and d.record.id, "uf", d.evidence.user_frame)
from jaxerrs.rewrite import rewrite_for
from jaxerrs.rewrite.context import build_context
ctx = build_context(d)
print("ctx", ctx and (ctx.line, ctx.label, ctx.source[:80]))
print(rewrite_for(d))
import json; print(json.dumps(d.to_dict()["rewrite"], indent=1))
