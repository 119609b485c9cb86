"""Curated records load time, ``jaxerrs.kb.records.all_records(reload=True)`` (target: < 50 ms), against
parsing the same TOML files with ``tomllib`` alone (the floor) in the same process.

Usage: python benchmarks/bench_records.py [--repeat N]
"""

from __future__ import annotations

import argparse
import json

from _common import median, ms, pct, run_python

CODE = r'''
import json, time, tomllib
from pathlib import Path
import jaxerrs.kb.records as R
files = sorted((Path(R.__file__).parent / "records").glob("*.toml"))
t = time.perf_counter(); n = len(R.all_records()); cold = time.perf_counter() - t
warm, parse = [], []
for _ in range(REPEAT):
    t = time.perf_counter(); R.all_records(reload=True); warm.append(time.perf_counter() - t)
    t = time.perf_counter()
    for f in files:
        tomllib.loads(f.read_text(encoding="utf-8"))
    parse.append(time.perf_counter() - t)
print(json.dumps([n, len(files), cold, warm, parse]))
'''


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=10)
    args = ap.parse_args()
    n, files, cold, warm, parse = json.loads(run_python(CODE.replace("REPEAT", str(args.repeat))).splitlines()[-1])
    print(f"records: {n} loaded from {files} files")
    print(f"  first all_records() in a fresh process   {ms(cold)}")
    print(f"  all_records(reload=True)                 median {ms(median(warm))}  p90 {ms(pct(warm, 90))}   (target < 50 ms)")
    print(f"  baseline: tomllib parse of the same files median {ms(median(parse))}   "
          f"-> records load = {median(warm) / median(parse):4.2f} x parse alone")


if __name__ == "__main__":
    main()
