"""``jaxerrs kb check|import|stats``."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path


def add_parser(sub: argparse._SubParsersAction, func: Callable[[argparse.Namespace], int]) -> None:
    kb = sub.add_parser("kb", help="the knowledge base: check, import, stats")
    kbsub = kb.add_subparsers(dest="kb_command", required=True)
    c = kbsub.add_parser("check", help="validate records, run reproducers and fixes, print a table")
    c.add_argument("--only", nargs="+", metavar="ID", help="check only these records")
    c.add_argument("--jobs", type=int, default=None, help="worker processes (default: one per core)")
    c.add_argument("--format", choices=("text", "json"), default="text")
    c.add_argument("--capture", metavar="DIR", help="write each reproducer's traceback (as IPython prints it) "
                   "to DIR/ID.txt")
    c.add_argument("--fresh", action="store_true",
                   help="check each record in a process of its own (slower: each compiles again)")
    c.set_defaults(func=func)
    i = kbsub.add_parser("import", help="check records in the external dataset's JSON format (schemaVersion 2)")
    i.add_argument("path", nargs="+", help="JSON files or folders")
    i.add_argument("--format", choices=("text", "json"), default="text")
    i.set_defaults(func=func)
    s = kbsub.add_parser("stats", help="records per family and class, catalog coverage, stale records")
    s.add_argument("--format", choices=("text", "json"), default="text")
    s.set_defaults(func=func)


def run(args: argparse.Namespace) -> int:
    return {"check": _check, "import": _import, "stats": _stats}[args.kb_command](args)


def _check(args: argparse.Namespace) -> int:
    from jaxerrs.kb.records import PROBLEMS, all_records
    from jaxerrs.kb.verify import check, table

    records = all_records()
    chosen = list(records.values())
    if args.only:
        unknown = [i for i in args.only if i not in records]
        if unknown:
            print(f"jaxerrs: unknown record id(s): {', '.join(unknown)}", file=sys.stderr)
            return 2
        chosen = [records[i] for i in args.only]
    curated = [r for r in chosen if r.origin == "curated"]
    imported = [r for r in chosen if r.origin != "curated"]
    results = check(curated, jobs=args.jobs, capture=args.capture, fresh=args.fresh)
    if args.format == "json":
        from jaxerrs.kb.records import installed_jax

        print(json.dumps({"jax": installed_jax(), "results": [r.__dict__ for r in results], "problems": PROBLEMS,
                          "imported": {r.id: r.flags for r in imported}}, indent=2))
    else:
        print(table(results))
        for p in PROBLEMS:
            print(f"invalid record file: {p}")
        for r in imported:
            print(f"imported {r.id} ({r.slug}): " + ("; ".join(r.flags) if r.flags else "no consistency flags"))
    ok = all(r.ok for r in results) and not PROBLEMS
    return 0 if ok else 1


def _import(args: argparse.Namespace) -> int:
    from jaxerrs.kb.importer import import_path

    problems: list[str] = []
    records = []
    for p in args.path:
        records.extend(import_path(Path(p), problems))
    if args.format == "json":
        print(json.dumps({"records": [{"id": r.id, "slug": r.slug, "title": r.title, "flags": r.flags,
                                       "sites": [s.__dict__ for s in r.sites]} for r in records],
                          "problems": problems}, indent=2))
    else:
        for r in records:
            print(f"{r.id}  {r.slug}")
            print(f"  {r.title}")
            for f in r.flags or ["consistent with the installed JAX"]:
                print(f"  - {f}")
        for p in problems:
            print(f"skipped: {p}")
        print(f"{len(records)} record(s) read, {len(problems)} skipped. "
              "Set JAXERRS_KB_PATH to these paths to load them after the built-in records.")
    return 2 if problems and not records else 0


def _stats(args: argparse.Namespace) -> int:
    from jaxerrs.kb.stats import compute, render

    data = compute()
    print(json.dumps(data, indent=2) if args.format == "json" else render(data))
    return 0
