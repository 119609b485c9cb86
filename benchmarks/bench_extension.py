"""``%load_ext jaxerrs`` time against an IPython shell's start in the same fresh process, and the modules
loading imports (must import neither jax nor ipywidgets).

Usage: python benchmarks/bench_extension.py [--repeat N]
"""

from __future__ import annotations

import argparse
import json

from _common import median, ms, run_python

CODE = r'''
import json, sys, time
t0 = time.perf_counter()
from IPython.core.interactiveshell import InteractiveShell
ip = InteractiveShell.instance()
t1 = time.perf_counter()
before = set(sys.modules)
ip.run_line_magic("load_ext", "jaxerrs")
t2 = time.perf_counter()
new = sorted(set(sys.modules) - before)
print(json.dumps([t1 - t0, t2 - t1, new]))
'''


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    shells, loads, new = [], [], []
    for _ in range(args.repeat):
        s, load, new = json.loads(run_python(CODE).splitlines()[-1])
        shells.append(s)
        loads.append(load)
    tops = sorted({m.split(".")[0] for m in new})
    print(f"median of {args.repeat} fresh processes")
    print(f"  baseline: IPython shell start    {ms(median(shells))}")
    print(f"  %load_ext jaxerrs                {ms(median(loads))}   = {median(loads) / median(shells):6.1%} of shell start")
    print(f"  modules it imports: {len(new)} ({', '.join(tops)})")
    print(f"  imports jax: {any(m == 'jax' or m.startswith(('jax.', 'jaxlib')) for m in new)}; "
          f"imports ipywidgets: {any(m == 'ipywidgets' or m.startswith('ipywidgets.') for m in new)}")
    jaxerrs_mods = [m for m in new if m.startswith("jaxerrs")]
    print(f"  jaxerrs modules: {', '.join(jaxerrs_mods)}")


if __name__ == "__main__":
    main()
