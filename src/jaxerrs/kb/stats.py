"""``jaxerrs kb stats``: what the knowledge base covers in the installed JAX."""

from __future__ import annotations

from collections import Counter
from typing import Any


def compute() -> dict[str, Any]:
    from jaxerrs import catalog
    from jaxerrs.kb.records import all_records

    records = all_records()
    cat = catalog.get(progress=False)
    curated = [r for r in records.values() if r.origin == "curated"]
    families = Counter(r.tags[0] if r.tags else "untagged" for r in curated)
    classes = Counter(r.class_name for r in curated)
    covered: set[tuple[str, str]] = set()
    stale = []
    for r in curated:
        for s in r.sites:
            if cat.in_function(s.path, s.function):
                covered.add((s.path, s.function))
            elif cat.function_line(s.path, s.function) is None:  # a C++ error's site has no raise
                stale.append({"id": r.id, "site": f"{s.path}:{s.function}", "jax_version": cat.jax_version})
    per_module: dict[str, dict[str, int]] = {}
    for site in cat.sites:
        module = site.path.rsplit("/", 1)[0] if "/_src/" not in site.path else site.path
        row = per_module.setdefault(module, {"sites": 0, "covered": 0})
        row["sites"] += 1
        row["covered"] += (site.path, site.function) in covered
    libraries = {}
    for lib in catalog.library_catalogs():
        lib_sites = {(x.path, x.function) for x in lib.sites}
        mine = [r for r in curated if r.library == lib.package]
        covered_lib = {(x.path, x.function) for r in mine for x in r.sites} & lib_sites
        libraries[lib.package] = {"version": lib.jax_version, "records": len(mine),
                                  "raise_statements": len(lib.sites),
                                  "sites_covered": sum((x.path, x.function) in covered_lib for x in lib.sites)}
    from jaxerrs.kb.verify import undemonstrated

    executed = [r for r in curated if r.verified != "message"]
    demonstrated = [r for r in executed if r.demos and undemonstrated(r) == ([], [])]
    return {
        "jax_version": cat.jax_version,
        "demos": {"records_with_demos": sum(bool(r.demos) for r in executed), "fully_demonstrated": len(demonstrated),
                  "executed_records": len(executed), "demos": sum(len(r.demos) for r in curated),
                  "records_with_near_misses": sum(bool(r.near_misses) for r in curated),
                  "near_misses": sum(len(r.near_misses) for r in curated)},
        "libraries": libraries,
        "records": len(curated),
        "imported": len(records) - len(curated),
        "message_only": sum(r.verified == "message" for r in curated),
        "families": dict(families.most_common()),
        "classes": dict(classes.most_common()),
        "catalog_sites": len(cat.sites),
        "sites_covered": sum(v["covered"] for v in per_module.values()),
        "modules": {k: v for k, v in sorted(per_module.items(), key=lambda kv: -kv[1]["covered"]) if v["covered"]},
        "stale": stale,
    }


def render(data: dict[str, Any]) -> str:
    lines = [f"JAX {data['jax_version']}: {data['records']} curated records ({data['message_only']} verified by "
             f"message only), {data['imported']} imported",
             f"raise sites covered by a curated record: {data['sites_covered']} of {data['catalog_sites']}"]
    lines += [f"{name} {v['version']}: {v['records']} records; raise sites covered: {v['sites_covered']} of "
              f"{v['raise_statements']}" for name, v in data.get("libraries", {}).items()]
    d = data["demos"]
    lines += [f"solutions demonstrated: {d['fully_demonstrated']} of {d['executed_records']} executed records have a "
              f"demo for every case and every code solution ({d['records_with_demos']} have demos, {d['demos']} in all); "
              f"{d['records_with_near_misses']} records have near misses ({d['near_misses']} in all)"]
    lines += ["",
             "records per family (first tag):"]
    lines += [f"  {k:<28} {v}" for k, v in data["families"].items()]
    lines += ["", "records per error class:"] + [f"  {k:<36} {v}" for k, v in data["classes"].items()]
    lines += ["", "covered raise sites per module:"]
    lines += [f"  {k:<48} {v['covered']:>4} / {v['sites']}" for k, v in data["modules"].items()]
    lines += ["", f"stale records: {len(data['stale'])}"]
    lines += [f"  {s['id']}: {s['site']} not in JAX {s['jax_version']}" for s in data["stale"]]
    return "\n".join(lines)
