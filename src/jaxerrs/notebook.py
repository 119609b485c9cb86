"""Saved notebooks: explain every JAX error output, and optionally write a copy with explanations.

The cells jaxerrs adds are marked in their metadata (``jaxerrs.generated``), so running it again on
its own output adds nothing. Everything else in the notebook is kept as it was.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jaxerrs.diagnosis import Diagnosis

META = "jaxerrs"


class NotebookError(Exception):
    """The input cannot be used as a notebook; the message says why."""


@dataclass
class Found:
    cell_index: int
    cell_id: str | None
    diagnosis: Diagnosis

    def to_dict(self) -> dict[str, Any]:
        return {"cell_index": self.cell_index, "cell_id": self.cell_id, "diagnosis": self.diagnosis.to_dict()}


def read(path: Path) -> Any:
    import nbformat

    if not path.exists():
        raise NotebookError(f"{path}: no such file")
    if path.is_dir():
        raise NotebookError(f"{path}: is a directory, not a notebook")
    try:
        raw = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise NotebookError(f"{path}: cannot read ({e})") from None
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as e:
        raise NotebookError(f"{path}: not valid JSON ({e.msg} at line {e.lineno})") from None
    if not isinstance(data, dict) or "nbformat" not in data:
        raise NotebookError(f"{path}: JSON, but not a notebook (no 'nbformat' field)")
    version = data.get("nbformat")
    if not isinstance(version, int) or version < 3:
        raise NotebookError(f"{path}: nbformat {version!r} is not supported (need 3 or 4)")
    try:
        nb = nbformat.reads(raw, as_version=4)  # upgrades nbformat 3 in memory
    except Exception as e:  # noqa: BLE001 - nbformat raises many kinds
        raise NotebookError(f"{path}: not a readable notebook ({type(e).__name__}: {e})") from None
    if version == 3:
        print(f"jaxerrs: {path} is nbformat 3; read it upgraded to nbformat 4", file=sys.stderr)
    return nb


def _error_text(output: Any) -> str:
    tb = output.get("traceback") or []
    text = "\n".join(str(x) for x in tb) if isinstance(tb, list) else str(tb)
    final = f"{output.get('ename', '')}: {output.get('evalue', '')}"
    return text if final.strip(": ") and final in text else f"{text}\n{final}"


def find_errors(nb: Any) -> list[Found]:
    from jaxerrs.matcher import diagnose_from_text

    found = []
    for i, cell in enumerate(nb.cells):
        if cell.get("cell_type") != "code" or cell.get("metadata", {}).get(META, {}).get("generated"):
            continue
        for out in cell.get("outputs", []):
            if out.get("output_type") != "error":
                continue
            d = diagnose_from_text(_error_text(out))
            if d.is_jax:
                d.cell_source = _failing_source(nb, i, d)
                found.append(Found(i, cell.get("id"), d))
            break
    return found


_CELL_LABEL = re.compile(r"^(?:Cell In ?\[(\d+)\]|<ipython-input-(\d+)-[^>]*>)$")


def _failing_source(nb: Any, index: int, d: Diagnosis) -> str | None:
    """The source of the cell holding the user's failing line: the cell the traceback names, else this one."""
    uf = d.evidence.user_frame
    if uf is None:
        return None
    m = _CELL_LABEL.match(uf.filename.strip())
    if m is None:
        return None  # the failing line is in a file, not a cell
    count = int(m.group(1) or m.group(2))
    cell = nb.cells[index]
    if cell.get("execution_count") in (count, None):
        return _text(cell.get("source", ""))
    for other in nb.cells:
        if other.get("cell_type") == "code" and other.get("execution_count") == count:
            return _text(other.get("source", ""))
    return None


def _text(source: Any) -> str:
    return "".join(source) if isinstance(source, list) else str(source)


def _explanation_markdown(d: Diagnosis) -> str:
    from jaxerrs.views import build

    v = build(d)
    lines = [f"**jaxerrs: `{v.error_class}`: {v.title}**", "", v.meaning.replace("\n", " ")]
    if v.solutions:
        lines += ["", "Solutions:", *(f"{i}. {s}" for i, s in enumerate(v.solutions, 1))]
    if v.site:
        lines += ["", f"Raised at [`{v.site.path}:{v.site.line}`]({v.site.url}) in `{v.site.function}` "
                      f"({v.site.release})."]
    if v.doc_url:
        lines += ["", f"Docs: {v.doc_url}"]
    return "\n".join(lines)


def annotate(nb: Any, found: list[Found]) -> int:
    """Insert explanation and fix cells after each failing cell; returns how many cells were added."""
    import nbformat

    # Cell ids exist from nbformat 4.5 on; an older notebook (or one upgraded from nbformat 3) must not get them.
    with_ids = (nb.get("nbformat", 4), nb.get("nbformat_minor", 0)) >= (4, 5)
    added = 0
    for f in sorted(found, key=lambda x: -x.cell_index):
        key = f.cell_id or f"index-{f.cell_index}"
        nxt = nb.cells[f.cell_index + 1] if f.cell_index + 1 < len(nb.cells) else None
        if nxt is not None and nxt.get("metadata", {}).get(META, {}).get("generated"):
            continue  # already annotated (keyed by position: without cell ids, indices shift as cells are added)
        meta = {"generated": True, "for_cell": key, "record": f.diagnosis.record.id if f.diagnosis.record else None}
        new = [nbformat.v4.new_markdown_cell(_explanation_markdown(f.diagnosis), metadata={META: dict(meta)})]
        rec, rw = f.diagnosis.record, f.diagnosis.rewrite
        if rw is not None:
            new.append(nbformat.v4.new_code_cell(rw.insertable(), metadata={
                META: dict(meta, rewrite=rw.rule, safety=rw.safety)}))
        elif rec is not None:
            new.append(nbformat.v4.new_code_cell("# jaxerrs: example fix\n" + rec.fix.after,
                                                 metadata={META: dict(meta)}))
        if not with_ids:
            for c in new:
                c.pop("id", None)
        nb.cells[f.cell_index + 1:f.cell_index + 1] = new
        added += len(new)
    return added


def run_cli(input_path: str, write: str | None, fmt: str) -> int:
    import nbformat

    src = Path(input_path)
    if write and src.exists() and Path(write).exists() and Path(write).resolve() == src.resolve():
        print(f"jaxerrs: --write {write} is the input notebook; name a new file (the input is never modified)",
              file=sys.stderr)
        return 2
    try:
        nb = read(src)
    except NotebookError as e:
        print(f"jaxerrs: {e}", file=sys.stderr)
        return 2
    found = find_errors(nb)
    if fmt == "json":
        print(json.dumps([f.to_dict() for f in found], indent=2))
    else:
        if not found:
            print(f"jaxerrs: no JAX error outputs in {src}")
        for f in found:
            d = f.diagnosis
            what = f"{d.record.id}: {d.record.title}" if d.record else "no curated record"
            where = f" at {d.site.path}:{d.site.line}" if d.site else ""
            print(f"cell {f.cell_index}: {d.error_class}{where}\n    {what}")
    if write:
        out = Path(write)
        if out.is_dir():
            print(f"jaxerrs: --write {out} is a directory; name the notebook file to write", file=sys.stderr)
            return 2
        added = annotate(nb, found)
        try:
            nbformat.validate(nb)
        except nbformat.ValidationError as e:
            msg = str(e).splitlines()[0]
            print(f"jaxerrs: {src} does not validate as nbformat {nb.nbformat}.{nb.nbformat_minor} ({msg}); "
                  "nothing written", file=sys.stderr)
            return 2
        try:
            nbformat.write(nb, str(out))
        except OSError as e:
            print(f"jaxerrs: cannot write {out} ({e.strerror or e})", file=sys.stderr)
            return 2
        if fmt != "json":
            print(f"jaxerrs: wrote {out} ({added} cell(s) added)")
    return 0 if found else 1
