"""``%load_ext jaxerrs`` as a user pays it, against loading one of IPython's own extensions the same way.

Each sample is a fresh ``python -c`` process (``PYTHONPATH=src``) that creates
``InteractiveShell.instance()`` (timed and reported, not counted) and then times
``shell.run_line_magic("load_ext", NAME)``: finding and importing the package, its
``load_ipython_extension`` and everything that registers. Subjects alternate process by process
(jaxerrs, autoreload, storemagic, jaxerrs, ...), so the machine's noise falls on all of them alike.
The baseline is IPython's ``autoreload`` (a module import plus a ``Magics`` class and an event hook,
what an extension usually does); ``storemagic``, which ``InteractiveShell`` has already imported, is shown
too: the cost of registering alone.

Two conditions, each with its own samples:
  cached   bytecode cached, as after ``pip install`` or any earlier import (what a user has); one
           unrecorded process first writes the cache to a temporary PYTHONPYCACHEPREFIX
  source   no bytecode anywhere (PYTHONDONTWRITEBYTECODE=1 and an empty PYTHONPYCACHEPREFIX): every
           module, IPython's too, is compiled from source, as on the first import after an edit

Usage: python benchmarks/bench_extension.py [--repeat N] [--only cached|source]
"""

from __future__ import annotations

import argparse
import json
import tempfile

from _common import median, ms, pct, run_python

CODE = r'''
import json, sys, time
t0 = time.perf_counter()
from IPython.core.interactiveshell import InteractiveShell
ip = InteractiveShell.instance()
t1 = time.perf_counter()
before = set(sys.modules)
t2 = time.perf_counter()
ip.run_line_magic("load_ext", NAME)
t3 = time.perf_counter()
assert any(m.split(".")[-1] == NAME for m in ip.extension_manager.loaded)
print(json.dumps([t1 - t0, t3 - t2, sorted(set(sys.modules) - before)]))
'''

SUBJECT = "jaxerrs"
BASELINE = "autoreload"
SUBJECTS = (SUBJECT, BASELINE, "storemagic")
CONDITIONS = {
    "cached": "bytecode cached (a user's case: after pip install or any earlier import)",
    "source": "no bytecode cache (every module compiled from source, IPython's too)",
}


def sample(name: str, condition: str, prefix: str) -> tuple[float, float, list[str]]:
    dont_write = "1" if condition == "source" else ""  # an empty value means "not set" to Python
    out = run_python(CODE.replace("NAME", repr(name)), PYTHONDONTWRITEBYTECODE=dont_write, PYTHONPYCACHEPREFIX=prefix)
    shell_s, load_s, new = json.loads(out.splitlines()[-1])
    return shell_s, load_s, new


def run_condition(condition: str, repeat: int) -> None:
    with tempfile.TemporaryDirectory(prefix="jaxerrs-bench-pyc-") as prefix:
        if condition == "cached":
            for name in SUBJECTS:  # writes the bytecode; not recorded
                sample(name, condition, prefix)
        shells: dict[str, list[float]] = {n: [] for n in SUBJECTS}
        loads: dict[str, list[float]] = {n: [] for n in SUBJECTS}
        new: dict[str, list[str]] = {}
        for _ in range(repeat):
            for name in SUBJECTS:
                s, load, new[name] = sample(name, condition, prefix)
                shells[name].append(s)
                loads[name].append(load)
    base = median(loads[BASELINE])
    print(f"\n[{condition}] {CONDITIONS[condition]}; {repeat} fresh processes per extension")
    timed = 'timed: run_line_magic("load_ext", X)'
    print(f"  {timed:42s} {'median':>11s} {'p90':>11s}   median vs {BASELINE}")
    for name in SUBJECTS:
        ratio = median(loads[name]) / base
        print(f"  {'%load_ext ' + name:42s} {ms(median(loads[name]))} {ms(pct(loads[name], 90))}   {ratio:6.2f}x")
    all_shells = [s for n in SUBJECTS for s in shells[n]]
    print(f"  {'not counted: InteractiveShell.instance()':42s} {ms(median(all_shells))} {ms(pct(all_shells, 90))}")
    mods = new[SUBJECT]
    heavy = {top: any(m == top or m.startswith(top + ".") for m in mods)
             for top in ("jax", "jaxlib", "ipywidgets", "libcst")}
    print(f"  modules %load_ext {SUBJECT} adds: {len(mods)} ({', '.join(mods)})")
    print("  imports " + ", ".join(f"{top}: {hit}" for top, hit in heavy.items()))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=15, help="fresh processes per extension and condition")
    ap.add_argument("--only", choices=sorted(CONDITIONS), default=None, help="one condition only")
    args = ap.parse_args()
    print(__doc__.split("\n\nUsage")[0])
    for condition in CONDITIONS:
        if args.only in (None, condition):
            run_condition(condition, args.repeat)


if __name__ == "__main__":
    main()
