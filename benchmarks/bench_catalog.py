"""Catalog build time (fresh cache dir via JAXERRS_CACHE_DIR) and cached load time, each in a fresh
process, against ``import jax`` measured the same way in the same run.

Usage: python benchmarks/bench_catalog.py [--repeat N]
"""

from __future__ import annotations

import argparse
import json
import tempfile

from _common import median, ms, run_python

IMPORT_JAX = "import time; t=time.perf_counter(); import jax; print(time.perf_counter()-t)"
GET = ("import time, json; from jaxerrs import catalog; t=time.perf_counter(); c=catalog.get(progress=False); "
       "d=time.perf_counter()-t; print(json.dumps([d, len(c.sites), c.files]))")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    jax_t = [float(run_python(IMPORT_JAX).split()[-1]) for _ in range(args.repeat)]
    builds, loads = [], []
    sites = files = 0
    for _ in range(args.repeat):
        with tempfile.TemporaryDirectory(prefix="jaxerrs-bench-") as cache:
            d, sites, files = json.loads(run_python(GET, JAXERRS_CACHE_DIR=cache).splitlines()[-1])
            builds.append(d)
            loads.append(json.loads(run_python(GET, JAXERRS_CACHE_DIR=cache).splitlines()[-1])[0])
    base = median(jax_t)
    print(f"catalog: {sites} raise sites in {files} files; median of {args.repeat} fresh processes")
    print(f"  baseline: import jax           {ms(base)}")
    print(f"  catalog build (empty cache)    {ms(median(builds))}   = {median(builds) / base:5.2f} x import jax")
    print(f"  catalog load (cached)          {ms(median(loads))}   = {median(loads) / base:5.2f} x import jax")


if __name__ == "__main__":
    main()
