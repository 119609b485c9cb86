"""Memory that the loaded catalog, the curated records and the matcher add to a process that already
imported jax: RSS before/after in a fresh subprocess (aim: <= 30 MB), and as a share of jax's own RSS.

Usage: python benchmarks/bench_memory.py
"""

from __future__ import annotations

import json

from _common import run_python

CODE = r'''
import json, warnings
warnings.simplefilter("ignore")
def rss():
    for ln in open("/proc/self/status"):
        if ln.startswith("VmRSS:"):
            return int(ln.split()[1]) * 1024
start = rss()
import jax, jax.numpy as jnp
jnp.ones(3).block_until_ready()
with_jax = rss()
import jaxerrs
from jaxerrs import catalog
from jaxerrs.kb.records import all_records
catalog.get(progress=False)
all_records()
# Exercise the matcher once, live and from text, so its caches (compiled templates, ...) are counted.
try:
    jax.jit(lambda x: x if x > 0 else -x)(1.0)
except Exception as e:
    jaxerrs.diagnose(e)
    import traceback
    jaxerrs.diagnose_text("".join(traceback.format_exception(e)))
    jaxerrs.diagnose_text("TypeError: dot_general requires contracting dimensions to have the same shape, got (3,) and (4,).")
after = rss()
print(json.dumps([start, with_jax, after]))
'''


def main() -> None:
    start, with_jax, after = json.loads(run_python(CODE, JAX_TRACEBACK_FILTERING="tracebackhide").splitlines()[-1])
    mb = 1024 * 1024
    added = after - with_jax
    print("RSS in a fresh process (MB)")
    print(f"  python start                         {start / mb:8.1f}")
    print(f"  after import jax + one jnp op        {with_jax / mb:8.1f}   (baseline: jax adds {(with_jax - start) / mb:.1f})")
    print(f"  after catalog + records + matcher    {after / mb:8.1f}")
    print(f"  jaxerrs adds                         {added / mb:8.1f} MB = {added / max(1, with_jax - start):.1%} of what jax "
          f"adds   (aim: <= 30 MB)")


if __name__ == "__main__":
    main()
