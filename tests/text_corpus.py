"""A labelled corpus of pasted error texts, generated from the records' reproducers, and its figures.

Source: the reproducers' tracebacks as IPython prints them on other JAX releases, which
``jaxerrs kb check --capture DIR`` writes (one ``ID.txt`` per record; the version matrix of the test suite
keeps them under ``$JAXERRS_CACHE_DIR/jax-matrix/captured/VERSION/``, and some are kept as test data in
``tests/data/releases/VERSION/``, the default). Each is rendered in the ways people
paste an error (``STYLES``): whole, its last line, the message without its class, wrapped at 80 columns
at words (an editor) or anywhere (a terminal), quoted as markdown, cut short, with the tracer and array reprs of older releases, behind a wrapper
class of JAX 0.2-0.4, with a user's words before it, with its backticks lost.

The corpus is split by record (a hash of the id), never by row: ``tuning`` (two thirds) is what a change
to the matcher may be read against; ``held`` (one third) is only reported beside it.

    python tests/text_corpus.py [--captured DIR ...] [--split tuning|held|all] [--misses]

prints record top-1 and confident wrong answers per style and per release. Figures only unless ``--misses``
(which lists misses of the tuning part only).
"""

from __future__ import annotations

import argparse
import hashlib
import re
import sys
import textwrap
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))

# Tracebacks of older releases kept as test data by an earlier matrix run.
KEPT = sorted(p for p in (HERE / "data" / "releases").iterdir() if p.is_dir())
_LAST_LINE = re.compile(r"^(?P<cls>[A-Za-z_][\w.]*(?:Error|Exception|Warning|Exit)): ?(?P<msg>.*)$")
_TRACED = re.compile(r"Traced<([^<>]*)>with<(\w+)>")


@dataclass(frozen=True)
class Item:
    record: str
    release: str
    style: str
    text: str

    @property
    def split(self) -> str:
        return split_of(self.record)


def split_of(record_id: str) -> str:
    """``held`` for a third of the records (by a hash of the id, stable across runs), else ``tuning``."""
    return "held" if hashlib.sha1(record_id.encode()).digest()[0] % 3 == 0 else "tuning"


def _final(text: str) -> tuple[str, str, str] | None:
    """The traceback's exception part: (text before it, class, message with its later lines)."""
    lines = text.rstrip().splitlines()
    for i in range(len(lines) - 1, -1, -1):
        m = _LAST_LINE.match(lines[i])
        if m and not lines[i].startswith(" "):
            return "\n".join(lines[:i]), m["cls"], "\n".join([m["msg"], *lines[i + 1:]]).strip()
    return None


def _cut(message: str) -> str:
    """The first 60% of the message, ended at a word: a paste that lost its tail."""
    first = message.splitlines()[0] if message else ""
    head = first[: max(40, int(len(first) * 0.6))]
    return head.rsplit(" ", 1)[0] if " " in head[30:] else head


def _old_reprs(s: str) -> str:
    """Tracer and array reprs as JAX 0.2-0.4.13 printed them."""
    s = _TRACED.sub(lambda m: f"Traced<ShapedArray({m[1]})>with<{m[2]}(level=1/0)>", s)
    return re.sub(r"\bArray\((?=[-\[\d])", "DeviceArray(", s)


def _styles() -> dict[str, Callable[[str, str, str, str], str | None]]:
    """style -> (whole text, class, message, text before the exception) -> the pasted text."""
    return {
        "whole": lambda whole, cls, msg, before: whole,
        "last line": lambda whole, cls, msg, before: f"{cls}: {msg}",
        "message only": lambda whole, cls, msg, before: msg,
        "wrapped at 80": lambda whole, cls, msg, before: "\n".join(
            textwrap.fill(line, 80, break_on_hyphens=False, break_long_words=False) if line.strip() else line
            for line in f"{cls}: {msg}".splitlines()),
        # A terminal cuts each line at 80 columns, anywhere; copying drops the spaces that end a line.
        "terminal at 80": lambda whole, cls, msg, before: "\n".join(
            "\n".join(line[i:i + 80].rstrip() for i in range(0, len(line), 80)) if len(line) > 80 else line
            for line in f"{cls}: {msg}".splitlines()) if len(f"{cls}: {msg}") > 80 else None,
        "markdown quote": lambda whole, cls, msg, before: "\n".join("> " + line for line in whole.splitlines()),
        "cut short": lambda whole, cls, msg, before: f"{cls}: {_cut(msg)}" if len(msg) > 80 else None,
        "older reprs": lambda whole, cls, msg, before: (
            _old_reprs(f"{cls}: {msg}") if _old_reprs(msg) != msg else None),
        "wrapper class": lambda whole, cls, msg, before: f"jax._src.traceback_util.UnfilteredStackTrace: {cls}: {msg}",
        "user's words first": lambda whole, cls, msg, before: f"I keep getting this error: {cls}: {msg}",
        "backticks lost": lambda whole, cls, msg, before: (
            f"{cls}: {msg.replace('`', '')}" if "`" in msg else None),
    }


STYLES = tuple(_styles())


def items(captured: list[Path]) -> Iterator[Item]:
    """Every record's capture in every style (styles that would not change the text are left out)."""
    styles = _styles()
    for folder in captured:
        release = folder.name
        for path in sorted(folder.glob("*.txt")):
            whole = path.read_text(encoding="utf-8", errors="replace").rstrip()
            parts = _final(whole)
            if parts is None:
                continue
            before, cls, msg = parts
            for style, render in styles.items():
                text = render(whole, cls, msg, before)
                if text:
                    yield Item(path.stem, release, style, text)


def _verdict(item: Item) -> tuple[bool, bool]:
    """(right record top-1, a wrong record or none given with confidence >= 0.5)."""
    import jaxerrs

    d = jaxerrs.diagnose_text(item.text)
    got = d.record.id if d.record is not None else None
    right = got == item.record
    return right, (not right and got is not None and d.confidence >= 0.5)


def figures(rows: list[tuple[Item, bool, bool]]) -> dict[str, tuple[int, int, int]]:
    """style (and ``release V``) -> (texts, right record top-1, confident wrong)."""
    by: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for it, right, wrong in rows:
        for key in (it.style, f"release {it.release}"):
            by[key][0] += 1
            by[key][1] += right
            by[key][2] += wrong
    return {k: (v[0], v[1], v[2]) for k, v in by.items()}


def run(captured: list[Path], split: str = "all") -> list[tuple[Item, bool, bool]]:
    return [(it, *_verdict(it)) for it in items(captured) if split == "all" or it.split == split]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--captured", nargs="+", type=Path, default=KEPT,
                    help="folders of ID.txt captures (default: the kept ones, tests/data/releases/*)")
    ap.add_argument("--split", choices=("tuning", "held", "all"), default="all")
    ap.add_argument("--misses", action="store_true", help="list the tuning part's misses")
    args = ap.parse_args()
    rows = run(args.captured, args.split)
    for split in ("tuning", "held"):
        part = [r for r in rows if r[0].split == split]
        if not part:
            continue
        print(f"== {split}: {len({r[0].record for r in part})} records, {len(part)} texts; "
              f"record top-1 {sum(r[1] for r in part) / len(part):.3f}, confident wrong {sum(r[2] for r in part)}")
        for key, (n, right, wrong) in figures(part).items():
            print(f"  {key:24} {right:4}/{n:4}  {right / n:.3f}  confident wrong {wrong}")
    if args.misses:
        for it, right, _wrong in rows:
            if not right and it.split == "tuning":
                print(f"MISS {it.release} {it.record} [{it.style}]: {it.text.splitlines()[-1][:160]!r}")


if __name__ == "__main__":
    main()
