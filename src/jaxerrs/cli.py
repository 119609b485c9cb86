"""The ``jaxerrs`` command line. Exit codes: 0 ok, 1 nothing found / check failed, 2 bad input."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from jaxerrs.diagnosis import Diagnosis

MAX_INPUT = 64 * 1024 * 1024  # bytes read from a file or stdin


class BadInput(Exception):
    """Input we cannot use; the message is shown to the user as is."""


def _read_input(source: str | None) -> str:
    if source in (None, "-"):
        if sys.stdin is None or sys.stdin.isatty():
            raise BadInput("no input: give a FILE or pipe a traceback into `jaxerrs explain -`")
        data = sys.stdin.buffer.read(MAX_INPUT + 1)
        name = "standard input"
    else:
        path = Path(source)
        if not path.exists():
            raise BadInput(f"{source}: no such file")
        if path.is_dir():
            raise BadInput(f"{source}: is a directory, not a file")
        try:
            with path.open("rb") as fh:
                data = fh.read(MAX_INPUT + 1)
        except OSError as e:
            raise BadInput(f"{source}: cannot read ({e.strerror or e})") from None
        name = source
    if len(data) > MAX_INPUT:
        data = data[-MAX_INPUT:]  # the error is at the end of a log
    if not data.strip():
        raise BadInput(f"{name} is empty: nothing to explain")
    if b"\x00" in data[:8192]:
        raise BadInput(f"{name} looks like a binary file, not a traceback or log")
    return data.decode("utf-8", errors="replace")


def _emit(text: str) -> None:
    sys.stdout.write(text if text.endswith("\n") else text + "\n")


def cmd_explain(args: argparse.Namespace) -> int:
    from jaxerrs.matcher import diagnose_from_text
    from jaxerrs.views import render_html, render_text

    text = _read_input(args.file)
    d = diagnose_from_text(text)
    if args.cell:
        d.cell_source = _read_cell(args.cell)
    if not d.evidence.exc_class and not d.is_jax:
        if args.format == "json":
            _emit(json.dumps(d.to_dict(), indent=2))
        else:
            print("jaxerrs: found no error in this input (expected a traceback or a 'Class: message' line)",
                  file=sys.stderr)
        return 1
    if args.format == "json":
        _emit(json.dumps(d.to_dict(), indent=2))
    elif not d.is_jax:
        first = (d.message.splitlines() or [""])[0][:200]
        print(f"jaxerrs: not a JAX error ({d.error_class}: {first}): nothing to explain", file=sys.stderr)
    elif args.format == "html":
        _emit(render_html(d))
    else:
        _emit(render_text(d, color=sys.stdout.isatty(), fix_hints=_explain_hints(d, bool(args.cell))))
    return 0 if d.is_jax else 1


def _explain_hints(d: Diagnosis, with_cell: bool) -> tuple[str, str]:
    """What puts a fix to work from the command line (there is no next input to fill, as in IPython)."""
    rec = d.record
    rewrite = "--format json prints the whole fixed cell, as rewrite.cell"
    if with_cell or rec is None or not rec.rewrite:
        return rewrite, ""
    return rewrite, "pass the failing code with --cell FILE to get your own cell fixed"


def _read_cell(path: str) -> str:
    """The failing cell's source for ``explain --cell``; bad input is BadInput (exit 2)."""
    p = Path(path)
    try:
        source = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise BadInput(f"--cell {path}: cannot read ({e})") from None
    if not source.strip():
        raise BadInput(f"--cell {path} is empty: give the source of the failing cell")
    return source


def cmd_draft(args: argparse.Namespace) -> int:
    """A record skeleton (TOML) for the error in FILE, to finish by hand (CONTRIBUTING.md)."""
    from jaxerrs.draft import draft
    from jaxerrs.matcher import diagnose_from_text

    d = diagnose_from_text(_read_input(args.file))
    if not d.is_jax:
        print("jaxerrs: no JAX error in this input: nothing to draft", file=sys.stderr)
        return 1
    if d.record is not None and not args.force:
        print(f"jaxerrs: record {d.record.id} already explains this error (--force drafts one anyway)",
              file=sys.stderr)
        return 1
    _emit(draft(d, _read_cell(args.cell) if args.cell else None))
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    from jaxerrs.kb.records import find
    from jaxerrs.views import record_diagnosis, render_html, render_text

    rec = find(args.id)
    if rec is None:
        print(f"jaxerrs: no record with id {args.id!r} (try `jaxerrs search WORDS`)", file=sys.stderr)
        return 1
    if args.format == "json":
        _emit(json.dumps(rec.to_dict(), indent=2))
    elif args.format == "html":
        _emit(render_html(record_diagnosis(rec)))
    else:
        _emit(render_text(record_diagnosis(rec), color=sys.stdout.isatty(), fix_hints=("", "")))
    return 0


def cmd_search(args: argparse.Namespace) -> int:
    from jaxerrs.search_index import search, title_text

    query = " ".join(args.query)
    hits = search(query, limit=args.limit, tags=args.tag, error_class=args.cls)
    if args.format == "json":
        _emit(json.dumps([h.to_dict() for h in hits], indent=2))
    elif not hits:
        print(f"jaxerrs: nothing found for {query!r}", file=sys.stderr)
    else:
        for h in hits:
            _emit(f"{h.score:6.3f}  {h.kind:<6}  {h.id:<40}  {title_text(h)}")
    return 0 if hits else 1


def cmd_notebook(args: argparse.Namespace) -> int:
    from jaxerrs.notebook import run_cli

    return run_cli(args.input, args.write, args.format)


def cmd_catalog(args: argparse.Namespace) -> int:
    from jaxerrs import catalog

    try:
        cat = catalog.get(rebuild=args.rebuild)
    except LookupError as e:
        print(f"jaxerrs: {e}", file=sys.stderr)
        return 2
    stats = cat.stats()
    libraries = [{"library": lib.package, **lib.stats()} for lib in catalog.library_catalogs(progress=True)]
    if args.stats:
        _emit(json.dumps({**stats, "libraries": libraries}, indent=2))
    else:
        lines = [f"JAX {stats['jax_version']}: {stats['raise_statements']} raise statements in {stats['files']} files "
                 f"({stats['with_literal_text']} with literal message text, {stats['skipped_files']} files skipped)"]
        lines += [f"{lib['library']} {lib['jax_version']}: {lib['raise_statements']} raise statements in "
                  f"{lib['files']} files ({lib['with_literal_text']} with literal message text)" for lib in libraries]
        _emit("\n".join(lines))
    return 0


def cmd_kb(args: argparse.Namespace) -> int:
    from jaxerrs.kb import cli as kb_cli

    return kb_cli.run(args)


def cmd_enable(args: argparse.Namespace) -> int:
    from jaxerrs.autoload import run_cli

    return run_cli("status" if args.status else args.command)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="jaxerrs", description="Explain JAX errors.")
    sub = p.add_subparsers(dest="command", required=True)

    e = sub.add_parser("explain", help="explain a traceback, a log holding one, or a 'Class: message' line")
    e.add_argument("file", nargs="?", default="-", help="a file, or - for standard input (default)")
    e.add_argument("--format", choices=("text", "json", "html"), default="text")
    e.add_argument("--cell", metavar="FILE", help="the source of the failing cell: adds 'your cell, fixed'")
    e.set_defaults(func=cmd_explain)

    dr = sub.add_parser("draft", help="a record skeleton for an error no record explains (see CONTRIBUTING.md)")
    dr.add_argument("file", nargs="?", default="-", help="a traceback file, or - for standard input (default)")
    dr.add_argument("--cell", metavar="FILE", help="the failing code: becomes the reproducer and first case")
    dr.add_argument("--force", action="store_true", help="draft even when a record matches")
    dr.set_defaults(func=cmd_draft)

    s = sub.add_parser("search", help="search the knowledge base and JAX's raise sites")
    s.add_argument("query", nargs="+")
    s.add_argument("--format", choices=("text", "json"), default="text")
    s.add_argument("--limit", type=int, default=10)
    s.add_argument("--tag", action="append", default=[], help="only records with this tag (repeatable)")
    s.add_argument("--class", dest="cls", default=None, help="only results of this error class")
    s.set_defaults(func=cmd_search)

    sh = sub.add_parser("show", help="show one record")
    sh.add_argument("id")
    sh.add_argument("--format", choices=("text", "json", "html"), default="text")
    sh.set_defaults(func=cmd_show)

    n = sub.add_parser("notebook", help="explain the JAX errors saved in a notebook")
    n.add_argument("input")
    n.add_argument("--write", metavar="OUT.ipynb", help="write a copy with explanation and fix cells")
    n.add_argument("--format", choices=("text", "json"), default="text")
    n.set_defaults(func=cmd_notebook)

    c = sub.add_parser("catalog", help="the raise-site catalog of the installed JAX")
    c.add_argument("--stats", action="store_true", help="print counts as JSON")
    c.add_argument("--rebuild", action="store_true", help="rebuild the cached catalog")
    c.set_defaults(func=cmd_catalog)

    from jaxerrs.kb.cli import add_parser as add_kb

    add_kb(sub, cmd_kb)

    for name, helptext in (("enable", "load jaxerrs in every new IPython kernel and terminal"),
                           ("disable", "undo `jaxerrs enable`")):
        a = sub.add_parser(name, help=helptext)
        a.add_argument("--status", action="store_true", help="only say whether it is enabled")
        a.set_defaults(func=cmd_enable)
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except BadInput as e:
        print(f"jaxerrs: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
